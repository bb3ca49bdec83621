//! Walks of the race, memory, demotion and learning rules with explicit times.

use crate::consts::{DIAL_TIMEOUT_MS, LEAD_MS};
use crate::network::{NetworkDesc, NetworkId};
use crate::race::{CloudSockets, Decision, Phase};
use crate::script::{run_race, DialOutcome, DialScript, RaceRun};
use crate::session::SessionEnd;
use crate::switches::Switches;
use crate::Transport::{self, Quic, WebSocket};

const S: u64 = 1000;
const MIN: u64 = 60 * S;
const H: u64 = 60 * MIN;

fn net(n: &str) -> NetworkId {
    NetworkDesc::behind_nat(n).id()
}

fn race(s: &mut CloudSockets, t: u64, script: DialScript) -> RaceRun {
    run_race(s, t, net("home"), script, t + 60 * S)
}

fn first_dial(run: &RaceRun) -> Transport {
    run.dials[0].1
}

fn has(run: &RaceRun, f: impl Fn(&Decision) -> bool) -> bool {
    run.decisions.iter().any(|(_, d)| f(d))
}

/// A QUIC session at `t` that ends `end` at `end_ms` (first message at `first_ms`).
fn quic_session_ending(s: &mut CloudSockets, t: u64, first_ms: Option<u64>, end_ms: u64, end: SessionEnd) {
    let run = race(s, t, DialScript::both_open(60, 40));
    assert_eq!(run.session, Some((Quic, t + 60)));
    if let Some(f) = first_ms {
        s.first_message(f);
    }
    s.session_ended(end_ms, end);
    assert_eq!(s.phase(), Phase::Idle);
}

#[test]
fn quic_first_and_wins_inside_the_lead() {
    let mut s = CloudSockets::racing(Switches::default());
    let run = race(&mut s, 0, DialScript::both_open(60, 40));
    assert_eq!(run.dials, vec![(0, Quic)]);
    assert_eq!(run.session, Some((Quic, 60)));
    assert!(has(&run, |d| matches!(d, Decision::LeadCancelled { never_started: WebSocket })));
    assert_eq!(s.memory().winner(&net("home"), 60), Some(Quic));
    assert_eq!(s.phase(), Phase::Connected(Quic));
}

#[test]
fn quic_refused_dials_the_websocket_at_once() {
    let mut s = CloudSockets::racing(Switches::default());
    let script = DialScript { quic: DialOutcome::Refused { after_ms: 5 }, ws: DialOutcome::Opens { after_ms: 40 } };
    let run = race(&mut s, 1000, script);
    assert_eq!(run.dials, vec![(1000, Quic), (1005, WebSocket)]);
    assert_eq!(run.session, Some((WebSocket, 1045)));
    assert_eq!(s.memory().winner(&net("home"), 1045), Some(WebSocket));
}

#[test]
fn no_udp_answer_websocket_at_250_ms_wins() {
    let mut s = CloudSockets::racing(Switches::default());
    let script = DialScript { quic: DialOutcome::NoAnswer, ws: DialOutcome::Opens { after_ms: 40 } };
    let run = race(&mut s, 0, script);
    assert_eq!(run.dials, vec![(0, Quic), (LEAD_MS, WebSocket)]);
    assert_eq!(run.session, Some((WebSocket, LEAD_MS + 40)));
    // The QUIC dial went on learning until its timeout, then was closed.
    assert!(has(&run, |d| matches!(d, Decision::LearningDialContinues)));
    assert!(run.closes.contains(&(DIAL_TIMEOUT_MS, Quic)));
    assert_eq!(s.memory().winner(&net("home"), DIAL_TIMEOUT_MS), Some(WebSocket));
    assert_eq!(s.phase(), Phase::Connected(WebSocket));
}

#[test]
fn both_fail_race_fails() {
    let mut s = CloudSockets::racing(Switches::default());
    let script = DialScript { quic: DialOutcome::Refused { after_ms: 1 }, ws: DialOutcome::Refused { after_ms: 30 } };
    let run = race(&mut s, 0, script);
    assert!(run.failed);
    assert_eq!(run.session, None);
    assert_eq!(s.phase(), Phase::Idle);
    assert_eq!(s.stats().races_failed, 1);
}

#[test]
fn learning_dial_records_quic() {
    // One lost QUIC packet: QUIC opens at 400 ms, after the WebSocket (250 + 40).
    let mut s = CloudSockets::racing(Switches::default());
    let run = race(&mut s, 0, DialScript::both_open(400, 40));
    assert_eq!(run.session, Some((WebSocket, 290)));
    assert!(has(&run, |d| matches!(d, Decision::LearningWin { .. })));
    assert!(run.closes.contains(&(400, Quic)));
    assert_eq!(s.session(), Some(WebSocket));
    assert_eq!(s.memory().winner(&net("home"), 400), Some(Quic));
    s.close(10 * MIN);
    let next = race(&mut s, H, DialScript::both_open(60, 40));
    assert_eq!(first_dial(&next), Quic);
    assert_eq!(next.session, Some((Quic, H + 60)));
}

#[test]
fn switch_losing_quic_dial_cancelled_forgets_quic() {
    for (on, learned) in [(false, Quic), (true, WebSocket)] {
        let sw = Switches { losing_quic_dial_cancelled: on, ..Switches::default() };
        let mut s = CloudSockets::racing(sw);
        let run = race(&mut s, 0, DialScript::both_open(400, 40));
        assert_eq!(run.session, Some((WebSocket, 290)));
        assert_eq!(run.closes.contains(&(290, Quic)), on);
        assert_eq!(s.memory().winner(&net("home"), 400), Some(learned));
    }
}

#[test]
fn demotion_lasts_a_day_then_quic_first() {
    let mut s = CloudSockets::racing(Switches::default());
    let t = 10 * S + 30 * S;
    // First message at 10 s, path drops 30 s later: demoted at t.
    quic_session_ending(&mut s, 0, Some(10 * S), t, SessionEnd::PathDropped);
    assert_eq!(s.stats().demotions, 1);
    let mut before = s.clone();
    let run = race(&mut before, t + 23 * H + 59 * MIN, DialScript::both_open(60, 40));
    assert_eq!(first_dial(&run), WebSocket);
    let mut after = s.clone();
    let run = race(&mut after, t + 24 * H, DialScript::both_open(60, 40));
    assert_eq!(first_dial(&run), Quic);
    assert_eq!(run.session.unwrap().0, Quic);
}

#[test]
fn close_4403_does_not_demote_1006_does() {
    let mut s = CloudSockets::racing(Switches::default());
    quic_session_ending(&mut s, 0, None, 2 * S, SessionEnd::Closed { code: 4403 });
    assert_eq!(first_dial(&race(&mut s, MIN, DialScript::both_open(60, 40))), Quic);
    s.session_ended(MIN + 2 * S, SessionEnd::Closed { code: 1006 });
    assert_eq!(first_dial(&race(&mut s, 2 * MIN, DialScript::both_open(60, 40))), WebSocket);
}

#[test]
fn path_drop_59_s_after_first_message_demotes_61_s_does_not() {
    for (after, demoted) in [(59 * S, true), (61 * S, false)] {
        let mut s = CloudSockets::racing(Switches::default());
        quic_session_ending(&mut s, 0, Some(S), S + after, SessionEnd::PathDropped);
        let run = race(&mut s, 5 * MIN, DialScript::both_open(60, 40));
        assert_eq!(first_dial(&run) == WebSocket, demoted, "drop {after} ms after the first message");
    }
}

#[test]
fn switch_every_close_demotes_flips_4403() {
    let sw = Switches { every_close_demotes: true, ..Switches::default() };
    let mut s = CloudSockets::racing(sw);
    quic_session_ending(&mut s, 0, Some(S), 2 * H, SessionEnd::Closed { code: 4403 });
    assert_eq!(first_dial(&race(&mut s, 3 * H, DialScript::both_open(60, 40))), WebSocket);
}

#[test]
fn switch_no_close_demotes_holds_the_phone_on_a_dead_door() {
    // A door that finishes the handshake and closes (no first message, 1006).
    for (sw, first) in [(Switches::default(), WebSocket), (Switches { no_close_demotes: true, ..Switches::default() }, Quic)] {
        let mut s = CloudSockets::racing(sw);
        quic_session_ending(&mut s, 0, None, 100, SessionEnd::Closed { code: 1006 });
        assert_eq!(first_dial(&race(&mut s, MIN, DialScript::both_open(60, 40))), first);
    }
}

#[test]
fn learning_win_ignored_while_demoted() {
    let mut s = CloudSockets::racing(Switches::default());
    quic_session_ending(&mut s, 0, None, S, SessionEnd::PathDropped);
    let run = race(&mut s, H, DialScript::both_open(60, 40));
    assert_eq!(run.dials, vec![(H, WebSocket), (H + LEAD_MS, Quic)]);
    assert_eq!(run.session, Some((WebSocket, H + 40)));
    assert!(has(&run, |d| matches!(d, Decision::LearningProbeKept { .. })));
    assert!(has(&run, |d| matches!(d, Decision::LearningIgnoredDemoted { .. })));
    assert_eq!(s.memory().winner(&net("home"), H + S), Some(WebSocket));
    assert_eq!(s.stats().learning_ignored, 1);
}

#[test]
fn a_quic_win_while_demoted_carries_the_session_but_is_not_remembered() {
    let mut s = CloudSockets::racing(Switches::default());
    quic_session_ending(&mut s, 0, None, S, SessionEnd::PathDropped);
    // The WebSocket is slow (600 ms); QUIC, dialled at 250 ms, opens at 310 ms.
    let run = race(&mut s, H, DialScript::both_open(60, 600));
    assert_eq!(run.session, Some((Quic, H + 310)));
    assert!(has(&run, |d| matches!(d, Decision::WinIgnoredDemoted { .. })));
    assert!(run.closes.contains(&(H + 310, WebSocket)));
    // The entry still holds the win written before the demotion (at 60 ms), not this one.
    assert_eq!(s.memory().get(&net("home")).unwrap().winner, Some((Quic, 60)));
}

#[test]
fn websocket_first_failing_dials_quic_at_once() {
    let mut s = CloudSockets::racing(Switches::default());
    s.memory_mut().remember(&net("home"), WebSocket, 0);
    let script = DialScript { quic: DialOutcome::Opens { after_ms: 60 }, ws: DialOutcome::Refused { after_ms: 20 } };
    let run = race(&mut s, S, script);
    assert_eq!(run.dials, vec![(S, WebSocket), (S + 20, Quic)]);
    assert_eq!(run.session, Some((Quic, S + 80)));
}

#[test]
fn demotion_is_per_network() {
    let mut s = CloudSockets::racing(Switches::default());
    quic_session_ending(&mut s, 0, None, S, SessionEnd::PathDropped);
    let other = run_race(&mut s, MIN, net("cafe"), DialScript::both_open(60, 40), MIN + 60 * S);
    assert_eq!(other.dials[0].1, Quic);
    assert_eq!(s.memory().networks().count(), 2);
    // Networks older than a day are forgotten at the next race.
    s.close(2 * MIN);
    let later = run_race(&mut s, 25 * H, net("office"), DialScript::both_open(60, 40), 26 * H);
    assert!(has(&later, |d| matches!(d, Decision::MemoryForgot { .. })));
    assert_eq!(s.memory().networks().count(), 1);
}

#[test]
fn a_websocket_session_end_never_demotes() {
    let mut s = CloudSockets::racing(Switches::default());
    s.memory_mut().remember(&net("home"), WebSocket, 0);
    let run = race(&mut s, S, DialScript { quic: DialOutcome::NoAnswer, ws: DialOutcome::Opens { after_ms: 40 } });
    assert_eq!(run.session.unwrap().0, WebSocket);
    s.session_ended(S + 100, SessionEnd::PathDropped);
    assert_eq!(s.stats().demotions, 0);
    assert_eq!(s.memory().quic_demoted_until(&net("home"), S + 100), None);
}

#[test]
fn decisions_read_as_a_trace() {
    let mut s = CloudSockets::racing(Switches::default());
    let run = race(&mut s, 0, DialScript::both_open(400, 40));
    let lines: Vec<String> = run.decisions.iter().map(|(t, d)| format!("{t} {d}")).collect();
    let text = lines.join("\n");
    assert!(text.contains("race started on"), "{text}");
    assert!(text.contains("QUIC first (nothing remembered)"), "{text}");
    assert!(text.contains("250 lead timer fired: dialling WebSocket"), "{text}");
    assert!(text.contains("290 WebSocket opened first, 290 ms after start"), "{text}");
    assert!(text.contains("400 learning dial opened: memory: QUIC is the winner"), "{text}");
}

/// Hourly reconnects for 3 days after one QUIC loss at the start. Returns the transport
/// of each session.
fn hourly_after_one_quic_loss(sw: Switches) -> (Vec<Transport>, CloudSockets) {
    let mut s = CloudSockets::racing(sw);
    quic_session_ending(&mut s, 0, Some(S), 30 * S, SessionEnd::PathDropped);
    let mut carried = Vec::new();
    for k in 1..=72u64 {
        let t = k * H;
        let run = race(&mut s, t, DialScript::both_open(60, 40));
        carried.push(run.session.expect("a session every hour").0);
        s.close(t + 59 * MIN);
    }
    (carried, s)
}

/// The demotion scenario, fixed: the day of demotion holds QUIC second, the first reconnect
/// after it learns QUIC (a day plus one reconnect), the next one is carried by QUIC.
#[test]
fn fixed_quic_learned_within_a_day_plus_one_reconnect_then_carries() {
    let (carried, s) = hourly_after_one_quic_loss(Switches::default());
    // Demoted from 30 s to 24 h + 30 s: hours 1..=24 on the WebSocket (probe ignored).
    assert!(carried[..24].iter().all(|&t| t == WebSocket));
    // Hour 25: the WebSocket is remembered and goes first, but the probe learns QUIC.
    assert_eq!(carried[24], WebSocket);
    // Hour 26 on: QUIC.
    assert!(carried[25..].iter().all(|&t| t == Quic), "{carried:?}");
    assert_eq!(s.stats().learning_wins, 1);
}

#[test]
fn switch_ws_first_cancels_quic_probe_keeps_the_websocket_for_ever() {
    let sw = Switches { ws_first_cancels_quic_probe: true, ..Switches::default() };
    let (carried, s) = hourly_after_one_quic_loss(sw);
    assert!(carried.iter().all(|&t| t == WebSocket));
    // QUIC was dialled only in the first race, before the loss.
    assert_eq!(s.stats().dials_quic, 1);
    // The WebSocket's entry was refreshed at every reconnect.
    let e = s.memory().get(&net("home")).unwrap();
    assert_eq!(e.winner, Some((WebSocket, 72 * H + 40)));
}

/// One transient QUIC outage: no UDP answer at all in one race, so the WebSocket wins and
/// the learning dial times out. Then hourly reconnects for 3 days with QUIC healthy.
fn hourly_after_one_quic_outage(sw: Switches) -> Vec<Transport> {
    let mut s = CloudSockets::racing(sw);
    let outage = DialScript { quic: DialOutcome::NoAnswer, ws: DialOutcome::Opens { after_ms: 40 } };
    let run = race(&mut s, 0, outage);
    assert_eq!(run.session.unwrap().0, WebSocket);
    assert_eq!(s.memory().winner(&net("home"), 20 * S), Some(WebSocket));
    s.close(30 * MIN);
    (1..=72u64)
        .map(|k| {
            let run = race(&mut s, k * H, DialScript::both_open(60, 40));
            s.close(k * H + 59 * MIN);
            run.session.unwrap().0
        })
        .collect()
}

#[test]
fn one_transient_outage_fixed_vs_switch_ws_first_cancels_quic_probe() {
    let fixed = hourly_after_one_quic_outage(Switches::default());
    assert_eq!(fixed[0], WebSocket, "hour 1: WebSocket remembered, the probe learns QUIC");
    assert!(fixed[1..].iter().all(|&t| t == Quic), "{fixed:?}");
    let sw = Switches { ws_first_cancels_quic_probe: true, ..Switches::default() };
    let buggy = hourly_after_one_quic_outage(sw);
    assert!(buggy.iter().all(|&t| t == WebSocket), "{buggy:?}");
}

#[test]
fn bug_trace_says_quic_is_never_started() {
    let sw = Switches { ws_first_cancels_quic_probe: true, ..Switches::default() };
    let mut s = CloudSockets::racing(sw);
    s.memory_mut().remember(&net("home"), WebSocket, 0);
    let run = race(&mut s, S, DialScript::both_open(60, 40));
    assert_eq!(run.dials, vec![(S, WebSocket)]);
    assert!(has(&run, |d| matches!(d, Decision::LeadCancelled { never_started: Quic })));
    let mut s = CloudSockets::racing(Switches::default());
    s.memory_mut().remember(&net("home"), WebSocket, 0);
    let run = race(&mut s, S, DialScript::both_open(60, 40));
    assert_eq!(run.dials, vec![(S, WebSocket), (S + LEAD_MS, Quic)]);
}

#[test]
fn a_new_start_closes_the_session_under_way_without_demoting() {
    let mut s = CloudSockets::racing(Switches::default());
    race(&mut s, 0, DialScript::both_open(60, 40));
    assert_eq!(s.session(), Some(Quic));
    s.start(S, net("cafe"));
    let mut actions = Vec::new();
    while let Some(a) = s.poll_action() {
        actions.push(a);
    }
    assert_eq!(actions, vec![crate::race::Action::CloseDial(Quic), crate::race::Action::StartDial(Quic)]);
    assert_eq!(s.stats().demotions, 0);
    assert_eq!(s.network(), Some(&net("cafe")));
    assert_eq!(s.poll_timeout(), Some(S + LEAD_MS));
}

#[test]
fn stale_inputs_are_traced_not_obeyed() {
    let mut s = CloudSockets::racing(Switches::default());
    s.opened(0, Quic);
    s.session_ended(0, SessionEnd::PathDropped);
    assert_eq!(s.phase(), Phase::Idle);
    assert!(s.poll_action().is_none());
    let mut n = 0;
    while let Some((_, d)) = s.poll_decision() {
        assert!(matches!(d, Decision::StaleInput { .. }));
        n += 1;
    }
    assert_eq!(n, 2);
}

#[test]
fn switches_default_all_off_and_serde() {
    let sw: Switches = serde_json::from_str("{}").unwrap();
    assert_eq!(sw, Switches::default());
    let on: Switches = serde_json::from_str(r#"{"ws_first_cancels_quic_probe": true}"#).unwrap();
    assert!(on.ws_first_cancels_quic_probe && !on.every_close_demotes);
}

/// The switch of the race law "QUIC refused means the WebSocket starts at once": a refused
/// QUIC dial leaves the WebSocket waiting for its lead; any other failure still starts it
/// at once.
#[test]
fn switch_refused_waits_for_lead() {
    let sw = Switches { refused_waits_for_lead: true, ..Switches::default() };
    let mut s = CloudSockets::racing(sw);
    let script = DialScript { quic: DialOutcome::Refused { after_ms: 5 }, ws: DialOutcome::Opens { after_ms: 40 } };
    let run = race(&mut s, 1000, script);
    assert_eq!(run.dials, vec![(1000, Quic), (1000 + LEAD_MS, WebSocket)]);
    let mut s = CloudSockets::racing(sw);
    s.start(0, net("home"));
    s.dial_failed(5, Quic);
    assert!(std::iter::from_fn(|| s.poll_decision()).any(|(t, d)| t == 5 && matches!(d, Decision::SecondAtOnce { .. })));
}

/// A driver that never polls: the decision queue keeps the newest DECISIONS_MAX and counts
/// what it dropped.
#[test]
fn decisions_past_the_bound_are_dropped_and_counted() {
    let mut s = CloudSockets::racing(Switches::default());
    let mut n = 0;
    while s.stats().decisions_dropped == 0 {
        s.start(n, net("home"));
        n += 1;
    }
    let queued = std::iter::from_fn(|| s.poll_decision()).count();
    assert_eq!(queued, crate::consts::DECISIONS_MAX);
    assert_eq!(s.stats().decisions_dropped, 1, "one decision past the bound");
}
