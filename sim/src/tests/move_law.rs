//! `move-recovers-within-pto` (issue 15 section 4): its bound from RFC 9002's PTO
//! rules, the law on made-up logs (a stall fails it, a recovery passes, loss of
//! 10 % or more and a tiny first datagram are not judged), and end to end on the
//! corpus plan: upstream quinn-proto's behaviour (switch mtud-on-unvalidated-path)
//! fails it, the patched crate passes.

use std::net::IpAddr;
use std::time::Duration;

use crate::drive::app::phone::{End, SessionRecord};
use crate::drive::system::SessionSummary;
use crate::host::addr;
use crate::net::MoveSeen;
use crate::plan::kind;
use crate::plan::{FaultKind, FaultPlan, LinkPlan, TimedFault};
use crate::scenario::session::{move_bound_ms, move_recovers_within_pto, moves_keep_the_session, run_moves};
use crate::switch::Switches;
use crate::RunSeed;
use crate::RunSpec;
use ftw_phone::Transport;

#[test]
fn the_bound_is_three_ptos_of_a_reset_path_plus_the_cadence_and_round_trips() {
    // PTO of a path whose RTT estimator starts from kInitialRtt: 333 + 4 x 166.5 + 25 = 1,024 ms.
    assert_eq!(move_bound_ms(40, 40), 1_000 + 40 + 40 + 3 * 1_024);
    // A path slower than kInitialRtt: its own RTT (first sample), rttvar half of it.
    assert_eq!(move_bound_ms(500, 40), 1_000 + 500 + 40 + 3 * (3 * 500 + 25));
}

fn quic_session() -> SessionRecord {
    SessionRecord {
        no: 1,
        transport: Transport::Quic,
        network: "nat-wifi".into(),
        race_start_ms: 500,
        first: Transport::Quic,
        link_at_ms: 600,
        open_at_ms: Some(650),
        first_message_ms: Some(700),
        ended_at_ms: None,
        end: None,
    }
}

/// A move at 10 s, the cloud hearing the phone's `len`-byte datagram at 10.02 s,
/// messages every second except from `gap.0` for `gap.1` ms.
fn judge(loss_pct: f64, len: usize, gap: (u64, u64)) -> crate::scenario::Check {
    let plan = FaultPlan {
        phone: LinkPlan { loss_pct, ..LinkPlan::default() },
        faults: vec![TimedFault { at_ms: 10_000, fault: FaultKind::SwitchNetwork(kind::SwitchNetwork { host: crate::host::Host::Phone }) }],
        ..FaultPlan::default()
    };
    let mut s = SessionSummary::default();
    s.phone.sessions.push(quic_session());
    s.phone.delivered_ms = (1..60).map(|k| k * 1_000 + 40).filter(|t| *t < gap.0 || *t > gap.0 + gap.1).collect();
    let phone: IpAddr = addr::PHONE;
    let moves = vec![MoveSeen {
        at: Duration::from_millis(10_000),
        host: phone,
        nat: 1,
        first_udp_arrival: Some(Duration::from_millis(10_020)),
        first_udp_len: len,
        first_reply_arrival: None,
    }];
    let seen = crate::scenario::session::MovesSeen { moves: &moves, fates: &[], rig_paths: &[], idle_outs: &[] };
    move_recovers_within_pto(&s, &plan, &seen, Duration::from_secs(60))
}

#[test]
fn a_stall_past_the_bound_fails_and_a_recovery_passes() {
    let ok = judge(5.0, 600, (0, 0));
    assert!(ok.ok && ok.detail.starts_with("1 moves judged"), "{}", ok.detail);
    let stall = judge(5.0, 600, (11_000, 4_300));
    assert!(!stall.ok, "{}", stall.detail);
    // Three lost messages: a 4,000 ms wait, inside the bound (4,152 ms on the default link).
    let inside = judge(5.0, 600, (11_000, 2_100));
    assert!(inside.ok, "{}", inside.detail);
}

#[test]
fn heavy_loss_and_a_tiny_first_datagram_are_not_judged() {
    let heavy = judge(10.0, 600, (11_000, 4_300));
    assert!(heavy.ok && heavy.detail.contains("does not apply"), "{}", heavy.detail);
    let tiny = judge(5.0, 40, (11_000, 4_300));
    assert!(tiny.ok && tiny.detail.starts_with("0 moves judged"), "{}", tiny.detail);
}

/// corpus/session-move-mtud-on-unvalidated-path.toml's seed and plan (loss on the
/// phone's leg and its moves), read from the entry itself.
fn corpus_spec(switches: &[&str]) -> RunSpec {
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/../corpus/session-move-mtud-on-unvalidated-path.toml");
    let entry: toml::Value = toml::from_str(&std::fs::read_to_string(path).expect("the entry")).expect("TOML");
    let seed = entry["seed"].as_integer().expect("seed") as u64;
    let mut spec = crate::scenario::spec("session-moves", RunSeed(seed));
    spec.switches = Switches::parse(switches.iter().copied()).expect("switches");
    spec.plan = entry["plan"].clone().try_into().expect("the entry's plan");
    spec.plan.validate().expect("a valid plan");
    spec
}

#[test]
fn upstream_quinn_proto_fails_the_corpus_plan_and_the_patch_passes_it() {
    let check = |sw: &[&str]| run_moves(&corpus_spec(sw)).checks.into_iter().find(|c| c.property() == "move-recovers-within-pto").expect("the law is checked");
    let upstream = check(&["mtud-on-unvalidated-path"]);
    assert!(!upstream.ok, "{}", upstream.detail);
    let patched = check(&[]);
    assert!(patched.ok, "{}", patched.detail);
}

/// `moves-keep-the-session` on made-up logs: the phone switches networks at 10 s
/// under 5 % loss with a QUIC session open, which ends with 1006 at 40 s, when
/// the phone's connection idled out. Before the move the cloud's answers arrive;
/// after it, the phone's datagrams from its new address reach the cloud and the
/// cloud's answers are lost to a fault, or (`stale`) go on to its old address,
/// where the NAT drops them (the `no-routing` switch's doing).
fn judge_end(stale: bool, idled_out: bool) -> crate::scenario::Check {
    use crate::net::fate::{Fate, IdleOut, Outcome};
    let plan = FaultPlan {
        phone: LinkPlan { loss_pct: 5.0, ..LinkPlan::default() },
        faults: vec![TimedFault { at_ms: 10_000, fault: FaultKind::SwitchNetwork(kind::SwitchNetwork { host: crate::host::Host::Phone }) }],
        ..FaultPlan::default()
    };
    let mut s = SessionSummary::default();
    s.phone.sessions.push(SessionRecord { ended_at_ms: Some(40_000), end: Some(End::Code(1006)), ..quic_session() });
    let (cloud, ms) = ("203.0.113.10:443".parse().expect("cloud"), Duration::from_millis);
    let out = |t: u64| if t < 10_000 { "192.0.2.1:49152" } else { "198.51.100.1:49152" }.parse().expect("address");
    let up = |t: u64| Fate {
        sent: ms(t),
        from_host: addr::PHONE,
        from: out(t),
        to: cloud,
        to_host: Some(cloud.ip()),
        outcome: Outcome::Delivered(ms(t + 20)),
        bytes: t,
        long_only: false,
    };
    let to = |t: u64| out(if stale { 0 } else { t });
    let down = |t: u64, outcome| Fate {
        sent: ms(t),
        from_host: cloud.ip(),
        from: cloud,
        to: to(t),
        to_host: Some(addr::PHONE),
        outcome,
        bytes: t | 1 << 40,
        long_only: false,
    };
    let answer = if stale { Outcome::Nat } else { Outcome::Fault };
    let fates = [up(9_000), down(9_020, Outcome::Delivered(ms(9_040))), up(10_500), down(10_520, answer), up(13_000), down(13_020, answer)];
    let idle_outs = [IdleOut { at: ms(40_000), local: std::net::SocketAddr::new(addr::PHONE, 49152), peer: cloud, since: ms(0), peer_confirmed: None }];
    let idle_outs: &[IdleOut] = if idled_out { &idle_outs } else { &[] };
    let seen = crate::scenario::session::MovesSeen { moves: &[], fates: &fates, rig_paths: &[], idle_outs };
    moves_keep_the_session(&s, &plan, &seen, Duration::from_secs(60))
}

#[test]
fn a_session_ended_after_a_move_fails_unless_the_network_idled_it_out() {
    let lost = judge_end(false, true);
    assert!(lost.ok && lost.detail.contains("excused: 10.0.1.2 idled out"), "{}", lost.detail);
    // The cloud's answers to the phone's old address after it heard the new one: the cloud's doing.
    let dropped = judge_end(true, true);
    assert!(!dropped.ok && dropped.detail.contains("not the network's doing"), "{}", dropped.detail);
    // Ended without an idle-out (a close, a reset): nothing to excuse.
    let closed = judge_end(false, false);
    assert!(!closed.ok && closed.detail.contains("ended at 40000 ms"), "{}", closed.detail);
}

/// `moves-keep-the-session` when the session ended for a replay on a stream
/// 600 ms after a move at 10 s: the plan's relay copied a control message
/// (`relay_copies`), an end by design and not judged; with no copy made, the end
/// is the move's to answer for (fresh seeds 14070065675).
fn judge_replay_end(relay_copies: u64) -> crate::scenario::Check {
    let plan = FaultPlan {
        faults: vec![TimedFault { at_ms: 10_000, fault: FaultKind::Rebind(kind::Rebind { host: crate::host::Host::Phone }) }],
        ..FaultPlan::default()
    };
    let mut s = SessionSummary::default();
    s.phone.sessions.push(SessionRecord { ended_at_ms: Some(10_600), end: Some(End::Replay), ..quic_session() });
    s.cloud.repeated_stream = relay_copies;
    let seen = crate::scenario::session::MovesSeen { moves: &[], fates: &[], rig_paths: &[], idle_outs: &[] };
    moves_keep_the_session(&s, &plan, &seen, Duration::from_secs(60))
}

#[test]
fn a_session_ended_for_a_replay_the_relay_made_is_the_plans_end() {
    let replayed = judge_replay_end(1);
    assert!(replayed.ok && replayed.detail.starts_with("0 moves judged"), "{}", replayed.detail);
    let unexplained = judge_replay_end(0);
    assert!(!unexplained.ok && unexplained.detail.contains("ended at 10600 ms (Some(Replay))"), "{}", unexplained.detail);
}
