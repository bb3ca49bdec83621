//! The carrier, replay-window and view references in lockstep (issue 14 section 2):
//! 1. they agree with the correct models on drawn cases of every scenario that drives them;
//! 2. they name a planted disagreement at its exact journal step (real journals, one
//!    decision altered; and hand-made journals at and around the replay window's edge);
//! 3. they fail on the real bugs the switches plant, which they were not written against.

use std::collections::BTreeMap;

use ftw_phone::view::LiveOutcome;
use ftw_properties::harness;
use ftw_properties::strategy::{domain_for, draw};
use ftw_sim::journal::carrier::{Arrival, CarrierStep, Opened, Transport, Verdict};
use ftw_sim::journal::replay::{Layer, ReplayStep, Said};
use ftw_sim::journal::view::{LiveIn, ShownValue, Shows, ViewStep};
use ftw_sim::journal::{Entry, Step};
use ftw_sim::law::reference::{carrier, replay, view, Lockstep, Reference};
use ftw_sim::scenario::RunReport;
use ftw_sim::switch::Switches;
use ftw_sim::RunSeed;

const OURS: [&Reference; 3] = [&carrier::CARRIER, &replay::REPLAY, &view::VIEW];

/// The drawn case `n` of `scenario`, run with `switches` and judged by the references.
fn run(scenario: &str, switches: &[&str], n: u64) -> RunReport {
    let case = draw(&domain_for(scenario), RunSeed(n)).current();
    let spec = harness::spec_of(scenario, &Switches::parse(switches.iter().copied()).expect("known switch"), &case);
    ftw_sim::scenario::run(&spec).expect("the scenario runs")
}

fn journal(r: &RunReport) -> Vec<Entry> {
    r.outcome.journal.clone()
}

/// Our laws' checks in a report: (law, ok, detail).
fn ours(r: &RunReport) -> Vec<(&'static str, bool, String)> {
    r.checks.iter().filter(|c| OURS.iter().any(|o| o.law.name == c.law.name)).map(|c| (c.law.name, c.ok, c.detail.clone())).collect()
}

fn assert_all_agree(scenario: &str, cases: u64) {
    for n in 1..=cases {
        let r = run(scenario, &[], n);
        let got = ours(&r);
        assert_eq!(got.len(), 3, "{scenario} case {n}: all three laws judged: {got:?}");
        for (law, ok, detail) in got {
            assert!(ok, "{scenario} case {n}: {law}: {detail}");
        }
    }
}

#[test]
fn agrees_on_session() {
    assert_all_agree("session", 16);
}

#[test]
fn agrees_on_session_moves() {
    assert_all_agree("session-moves", 10);
}

/// The laws also run in props' `laws_hold` on every default case of each
/// scenario (a disagreement fails there); here they are asserted judged, the long
/// race scenarios (a simulated day and more) on one case.
#[test]
fn agrees_on_the_race_scenarios() {
    assert_all_agree("phone-race", 1);
    assert_all_agree("demotion-expiry", 1);
    assert_all_agree("quic-refused", 3);
}

/// `unpaired` and `sessions-off` never get a transport message to the phone (4403 / 1013
/// come before any): no window judges, no carrier verdict, no live. The replay and view laws
/// stay silent; the carrier's judges only how each session ended (never by the carrier).
#[test]
fn silent_without_a_session() {
    for scenario in ["unpaired", "sessions-off"] {
        for n in 1..=4 {
            let r = run(scenario, &[], n);
            let j = journal(&r);
            assert_eq!((replay::check)(&j), None, "{scenario} case {n}");
            assert_eq!((view::check)(&j), None, "{scenario} case {n}");
            assert!(j.iter().all(|e| !matches!(e.step, Step::Carrier(CarrierStep::Judged { .. }))), "{scenario} case {n}");
            let got = ours(&r);
            assert!(got.iter().all(|c| c.0 == carrier::CARRIER.law.name && c.1), "{scenario} case {n}: {got:?}");
        }
    }
}

/// The first drawn session case whose journal has a step matching `want`, with its index.
fn real_journal(want: impl Fn(&Step) -> bool) -> (Vec<Entry>, usize) {
    for n in 1..=8 {
        let j = journal(&run("session", &[], n));
        if let Some(i) = j.iter().position(|e| want(&e.step)) {
            return (j, i);
        }
    }
    panic!("no session case has the step")
}

fn differs_at(check: fn(&[Entry]) -> Option<Lockstep>, j: &[Entry]) -> usize {
    match check(j) {
        Some(Lockstep::Differs { index, .. }) => index,
        other => panic!("expected a disagreement, got {other:?}"),
    }
}

#[test]
fn planted_window_answer_is_named() {
    // A late seq in a real run: the window said fresh; plant "duplicate".
    let fresh = |s: &Step| matches!(s, Step::Replay(ReplayStep::Judged { said: Said::Fresh, marked: true, seq, .. }) if *seq > 3);
    let (mut j, i) = real_journal(fresh);
    assert!(matches!(replay::check(&j), Some(Lockstep::Agreed { .. })));
    let Step::Replay(ReplayStep::Judged { said, .. }) = &mut j[i].step else { unreachable!() };
    *said = Said::Duplicate;
    assert_eq!(differs_at(replay::check, &j), i);
}

#[test]
fn planted_window_forgets_a_seq_is_named() {
    // Plant a second judgement of an accepted seq, answered "fresh": the SPEC says duplicate.
    let (mut j, i) = real_journal(|s| matches!(s, Step::Replay(ReplayStep::Judged { said: Said::Fresh, marked: true, seq: 5, .. })));
    let mut again = j[i].clone();
    let Step::Replay(ReplayStep::Judged { marked, .. }) = &mut again.step else { unreachable!() };
    *marked = false;
    j.insert(i + 1, again);
    assert_eq!(differs_at(replay::check, &j), i + 1);
}

#[test]
fn planted_carrier_verdict_is_named() {
    let (mut j, i) = real_journal(|s| matches!(s, Step::Carrier(CarrierStep::Judged { verdict: Verdict::Deliver, .. })));
    assert!(matches!(carrier::check(&j), Some(Lockstep::Agreed { .. })));
    let Step::Carrier(CarrierStep::Judged { verdict, .. }) = &mut j[i].step else { unreachable!() };
    *verdict = Verdict::Drop;
    assert_eq!(differs_at(carrier::check, &j), i);
}

#[test]
fn planted_opened_that_the_windows_did_not_say_is_named() {
    // The windows accepted the message; the carrier is told it was a replay.
    let (mut j, i) = real_journal(|s| matches!(s, Step::Carrier(CarrierStep::Judged { arrival: Arrival::Datagram, opened: Opened::Ok, .. })));
    let Step::Carrier(CarrierStep::Judged { opened, verdict, .. }) = &mut j[i].step else { unreachable!() };
    (*opened, *verdict) = (Opened::Replay, Verdict::Drop);
    assert_eq!(differs_at(carrier::check, &j), i);
}

#[test]
fn planted_view_value_is_named() {
    let shows_values = |s: &Step| matches!(s, Step::View(ViewStep::Shows(v)) if v.values.len() > 1);
    let (mut j, i) = real_journal(shows_values);
    assert!(matches!(view::check(&j), Some(Lockstep::Agreed { .. })));
    let Step::View(ViewStep::Shows(v)) = &mut j[i].step else { unreachable!() };
    v.values.values_mut().next().expect("a value").value += 1;
    assert_eq!(differs_at(view::check, &j), i);
    // And a gap hidden after an hb.
    let (mut j, i) = real_journal(|s| matches!(s, Step::View(ViewStep::Hb { .. })));
    let Step::View(ViewStep::Shows(v)) = &mut j[i + 1].step else { panic!("Shows follows an hb") };
    v.gap = Some((Some(0), u64::MAX));
    assert_eq!(differs_at(view::check, &j), i + 1);
}

/// A planted miscount in the view's answer to a `live` (a value counted as kept newer
/// though it was set, as `+=` to `*=` does) is named at that answer.
#[test]
fn planted_view_outcome_is_named() {
    let applied = |s: &Step| matches!(s, Step::View(ViewStep::Outcome(LiveOutcome::Applied { values_set, .. })) if *values_set > 0);
    let (mut j, i) = real_journal(applied);
    let Step::View(ViewStep::Outcome(LiveOutcome::Applied { values_set, values_kept_newer, .. })) = &mut j[i].step else { unreachable!() };
    (*values_set, *values_kept_newer) = (*values_set - 1, *values_kept_newer + 1);
    assert_eq!(differs_at(view::check, &j), i);
}

fn entry(t_ms: u64, step: Step) -> Entry {
    Entry { t_ms, host: "phone".into(), step }
}

fn judged(seq: u64, said: Said, marked: bool) -> Entry {
    entry(seq, Step::Replay(ReplayStep::Judged { session: 1, layer: Layer::BoxSession, seq, said, marked }))
}

/// Seq 0 and 2000 accepted: the window is 977 ..= 2000 (SPEC §4: 1024 seqs ending at the
/// highest accepted).
fn edge_journal() -> Vec<Entry> {
    vec![
        judged(0, Said::Fresh, true),
        judged(2000, Said::Fresh, true),
        judged(977, Said::Fresh, false), // forged: inside the window, not marked
        judged(977, Said::Fresh, true),  // the genuine one still gets in
        judged(977, Said::Duplicate, false),
        judged(976, Said::TooOld, false),
        judged(975, Said::TooOld, false),
        judged(1999, Said::Fresh, true),
        judged(2000, Said::Duplicate, false),
        judged(0, Said::TooOld, false), // old and accepted before: either answer is a refusal
        judged(0, Said::Duplicate, false),
        judged(2001, Said::Fresh, true), // the window moves: 978 ..= 2001
        judged(977, Said::TooOld, false),
        judged(978, Said::Fresh, true),
    ]
}

#[test]
fn window_edges_agree() {
    assert_eq!(replay::check(&edge_journal()), Some(Lockstep::Agreed { steps: 14 }));
}

#[test]
fn window_edges_disagree_at_the_step() {
    let with = |i: usize, said: Said| {
        let mut j = edge_journal();
        let Step::Replay(ReplayStep::Judged { said: s, .. }) = &mut j[i].step else { unreachable!() };
        *s = said;
        differs_at(replay::check, &j)
    };
    assert_eq!(with(3, Said::TooOld), 3, "h - 1023 is inside the window");
    assert_eq!(with(5, Said::Fresh), 5, "h - 1024 is too old");
    assert_eq!(with(4, Said::Fresh), 4, "an accepted seq is a duplicate");
    assert_eq!(with(12, Said::Fresh), 12, "the window moved with the highest");
    // A 64-seq window (the legacy bug) refuses 1999 - 64 = 1935 inside the SPEC's window.
    let mut j = edge_journal();
    j.push(judged(1935, Said::TooOld, false));
    assert_eq!(differs_at(replay::check, &j), j.len() - 1);
    // A refused seq is never marked.
    let mut j = edge_journal();
    j.push(judged(5, Said::TooOld, true));
    assert_eq!(differs_at(replay::check, &j), j.len() - 1);
}

/// Freshness case 17 (SPEC §4), by hand: table rev 5 shown; live 11 (rev 6, no table)
/// overtakes live 10 (rev 6, its table). The late live 10 gives the view table 6 and keeps
/// live 11's newer `p`.
#[test]
fn freshness_case_17_by_hand() {
    let live = |seq: u64, rev: u64, table: Option<&[&str]>, vals: &[(&str, i64)]| {
        let table = table.map(|t| t.iter().map(|s| s.to_string()).collect());
        let values = vals.iter().map(|(k, v)| (k.to_string(), *v)).collect();
        entry(seq, Step::View(ViewStep::Live(LiveIn { live_seq: seq, src_rev: rev, wall_ms: seq, table, values })))
    };
    let shown = |vals: &[(&str, i64, u64, u64)]| -> BTreeMap<String, ShownValue> {
        vals.iter().map(|(k, value, live_seq, src_rev)| (k.to_string(), ShownValue { value: *value, live_seq: *live_seq, src_rev: *src_rev })).collect()
    };
    let shows = |table: (u64, &[&str]), values, newest, gap, table_behind| {
        let table = Some((table.0, table.1.iter().map(|s| s.to_string()).collect()));
        entry(0, Step::View(ViewStep::Shows(Shows { table, values, newest_seq: Some(newest), gap, table_behind })))
    };
    let j = vec![
        live(9, 5, Some(&["p"]), &[("p", 90)]),
        shows((5, &["p"]), shown(&[("p", 90, 9, 5)]), 9, None, false),
        entry(0, Step::View(ViewStep::Hb { live_seq: 12 })),
        shows((5, &["p"]), shown(&[("p", 90, 9, 5)]), 9, Some((Some(9), 12)), false),
        live(11, 6, None, &[("p", 110)]),
        shows((5, &["p"]), shown(&[("p", 110, 11, 6)]), 11, Some((Some(11), 12)), true),
        live(10, 6, Some(&["p", "q"]), &[("p", 100), ("q", 7)]),
        shows((6, &["p", "q"]), shown(&[("p", 110, 11, 6), ("q", 7, 10, 6)]), 11, Some((Some(11), 12)), false),
        live(8, 5, Some(&["p"]), &[("p", -1)]), // older than the table: dropped whole
        shows((6, &["p", "q"]), shown(&[("p", 110, 11, 6), ("q", 7, 10, 6)]), 11, Some((Some(11), 12)), false),
    ];
    assert_eq!(view::check(&j), Some(Lockstep::Agreed { steps: 10 }));
    // The late live's table thrown away (the switch's behaviour) is named at its step.
    let mut bad = j.clone();
    bad[7] = shows((5, &["p"]), shown(&[("p", 110, 11, 6)]), 11, Some((Some(11), 12)), true);
    assert_eq!(differs_at(view::check, &bad), 7);
}

#[test]
fn carrier_table_by_hand() {
    let msg =
        |session: u64, arrival, opened, verdict| entry(0, Step::Carrier(CarrierStep::Judged { session, transport: Transport::Quic, arrival, opened, verdict }));
    let j = vec![
        judged(0, Said::Fresh, true),
        msg(1, Arrival::Stream, Opened::Ok, Verdict::Deliver),
        judged(0, Said::Duplicate, false),
        msg(1, Arrival::Datagram, Opened::Replay, Verdict::Drop),
        judged(1, Said::Fresh, false),
        msg(1, Arrival::Datagram, Opened::Broken, Verdict::EndSession),
        entry(0, Step::Carrier(CarrierStep::Ended { session: 1, by_carrier: true })),
    ];
    assert_eq!(carrier::check(&j), Some(Lockstep::Agreed { steps: 4 }));
    let mut bad = j.clone();
    bad[3] = msg(1, Arrival::Datagram, Opened::Replay, Verdict::EndSession);
    assert_eq!(differs_at(carrier::check, &bad), 3);
    let mut bad = j.clone();
    bad[3] = msg(1, Arrival::Stream, Opened::Replay, Verdict::Drop);
    assert_eq!(differs_at(carrier::check, &bad), 3);
    // After the end the session's windows judge nothing more.
    let mut bad = j.clone();
    bad.push(judged(2, Said::Fresh, true));
    assert_eq!(differs_at(carrier::check, &bad), 7);
    // The carrier's EndSession not carried out: named at the verdict.
    assert_eq!(differs_at(carrier::check, &j[..6]), 5);
    let mut bad = j.clone();
    bad[6] = entry(0, Step::Carrier(CarrierStep::Ended { session: 1, by_carrier: false }));
    assert_eq!(differs_at(carrier::check, &bad), 6);
    // A dropped datagram replay that ended the session anyway.
    let mut bad = j[..4].to_vec();
    bad.push(entry(0, Step::Carrier(CarrierStep::Ended { session: 1, by_carrier: true })));
    assert_eq!(differs_at(carrier::check, &bad), 4);
}

/// A switch's first failing case among the session's drawn cases: our `law` fails there
/// (and names the step), and the same case passes with the switch off.
fn caught(switch: &str, law: &str) -> u64 {
    for n in 1..=32 {
        let r = run("session", &[switch], n);
        if let Some((_, _, detail)) = ours(&r).into_iter().find(|(l, ok, _)| *l == law && !ok) {
            assert!(detail.contains("journal step #"), "{detail}");
            let off = run("session", &[], n);
            assert!(ours(&off).iter().all(|c| c.1), "case {n} without {switch}: {:?}", ours(&off));
            return n;
        }
    }
    panic!("switch {switch}: {law} passed on 32 session cases")
}

#[test]
fn replay_window_64_fails_the_replay_law() {
    caught("replay-window-64", "replay-window-agrees-with-spec");
}

#[test]
fn datagram_replay_ends_session_fails_the_carrier_law() {
    caught("datagram-replay-ends-session", "carrier-agrees-with-spec");
}

#[test]
fn stream_replay_only_dropped_fails_the_carrier_law() {
    caught("stream-replay-only-dropped", "carrier-agrees-with-spec");
}

#[test]
fn late_live_table_dropped_fails_the_view_law() {
    caught("late-live-table-dropped", "view-agrees-with-spec");
}

/// Seqs at and around the window's edges: after each new highest `h` (jumps of 1, 1023,
/// 1024, 1025 and a few pseudo-random ones), probes at `h - 1025 ..= h + 1` and repeats.
fn edge_seqs() -> Vec<u64> {
    let mut out = vec![0];
    let mut h = 0u64;
    let mut x = 0x9e37_79b9_7f4a_7c15u64;
    for jump in [1, 1023, 1024, 1025, 64, 63, 65, 2048, 7, 1000] {
        h += jump;
        out.push(h);
        for back in [1025, 1024, 1023, 1022, 65, 64, 63, 1, 0] {
            out.extend(h.checked_sub(back));
        }
        for _ in 0..20 {
            x = x.wrapping_mul(6_364_136_223_846_793_005).wrapping_add(1_442_695_040_888_963_407);
            out.extend(h.checked_sub((x >> 33) % 1100));
        }
        out.push(h + 1);
        h += 1;
    }
    out
}

/// The journal of the model's own window judging `seqs` (every fresh one authenticates).
fn window_journal(len: ftw_wire::WindowLen, seqs: &[u64]) -> Vec<Entry> {
    let mut w = ftw_wire::ReplayWindow::new(len);
    seqs.iter()
        .map(|&seq| {
            let said = match w.accept(seq) {
                Ok(()) => Said::Fresh,
                Err(ftw_wire::Replay::Duplicate { .. }) => Said::Duplicate,
                Err(ftw_wire::Replay::TooOld { .. }) => Said::TooOld,
            };
            judged(seq, said, said == Said::Fresh)
        })
        .collect()
}

/// The model's window driven directly at its edges agrees with the reference; the legacy
/// 64-seq window (switch replay-window-64) is named at its first refusal of a seq the SPEC's
/// window still holds.
#[test]
fn the_models_window_at_its_edges() {
    let seqs = edge_seqs();
    let j = window_journal(ftw_wire::WindowLen::Full1024, &seqs);
    assert!(j.iter().any(|e| matches!(e.step, Step::Replay(ReplayStep::Judged { said: Said::TooOld, .. }))));
    assert!(j.iter().any(|e| matches!(e.step, Step::Replay(ReplayStep::Judged { said: Said::Duplicate, .. }))));
    assert_eq!(replay::check(&j), Some(Lockstep::Agreed { steps: seqs.len() }));
    let legacy = window_journal(ftw_wire::WindowLen::Legacy64, &seqs);
    let first = legacy.iter().zip(&j).position(|(a, b)| a != b).expect("the windows differ somewhere");
    assert_eq!(differs_at(replay::check, &legacy), first);
}
