//! The session's laws against the plan's relay faults, table change, dropped
//! path and app life (issue 8): each bug switch fails its law on a plan made
//! for it and the law holds with the switch off. The plans are data, as in a
//! corpus entry.

use crate::drive::system::{SessionSummary, Setup};
use crate::plan::kind;
use crate::plan::{FaultKind, TimedFault};
use crate::scenario::session::run_with;
use crate::scenario::{self, RunReport, Verdict};
use crate::switch::Switches;
use crate::RunSeed;
use ftw_phone::Transport;

fn phone() -> crate::host::Host {
    crate::host::Host::Phone
}

fn run(seed: u64, switches: &[&str], faults: Vec<TimedFault>) -> (RunReport, SessionSummary) {
    let mut s = crate::scenario::spec("session", RunSeed(seed));
    s.switches = Switches::parse(switches.iter().copied()).expect("switches");
    s.plan.faults = faults;
    s.plan.validate().expect("a valid plan");
    let (report, summary) = run_with(&s, &Setup::default());
    (scenario::judge(&crate::scenario::session::SESSION, report), summary)
}

fn check<'a>(r: &'a RunReport, name: &str) -> &'a scenario::Check {
    r.checks.iter().find(|c| c.property() == name).unwrap_or_else(|| panic!("check {name} present"))
}

fn assert_pass(r: &RunReport) {
    assert_eq!(r.verdict(), Verdict::Pass, "checks: {:#?}", r.checks);
}

fn at(at_ms: u64, fault: FaultKind) -> TimedFault {
    TimedFault { at_ms, fault }
}

#[test]
fn a_replayed_datagram_is_dropped_and_the_switch_ends_the_session() {
    let plan = vec![at(8_000, FaultKind::ReplayDatagram(kind::ReplayDatagram { host: phone() }))];
    let (r, s) = run(21, &[], plan.clone());
    assert_pass(&r);
    assert_eq!(s.cloud.repeated_datagrams, 1);
    assert_eq!(s.phone.replays_seen, 1, "the copy reached the carrier");
    assert_eq!(s.phone.replays_dropped, 1);
    let (r, s) = run(21, &["datagram-replay-ends-session"], plan);
    let c = check(&r, "replayed-datagram-dropped");
    assert!(!c.ok, "{}", c.detail);
    assert_eq!(s.phone.ended_by_datagram_replay, 1);
}

#[test]
fn a_replay_on_the_stream_ends_the_session_and_the_switch_only_drops_it() {
    let plan = vec![at(8_000, FaultKind::ReplayStreamMessage(kind::ReplayStreamMessage { host: phone() }))];
    let (r, s) = run(22, &[], plan.clone());
    assert_pass(&r);
    assert_eq!(s.cloud.repeated_stream, 1);
    assert_eq!(s.phone.sessions[0].end, Some(crate::drive::app::phone::End::Replay));
    assert!(s.phone.sessions.len() >= 2, "the phone raced again");
    let (r, s) = run(22, &["stream-replay-only-dropped"], plan);
    let c = check(&r, "stream-replay-ends-session");
    assert!(!c.ok, "{}", c.detail);
    assert_eq!(s.phone.stream_replays_dropped, 1);
}

#[test]
fn a_burst_overtaking_a_control_message_is_no_replay_but_window_64_says_it_is() {
    let plan = vec![at(6_000, FaultKind::OvertakeControl(kind::OvertakeControl { host: phone(), burst: 80 }))];
    let (r, s) = run(23, &[], plan.clone());
    assert_pass(&r);
    assert_eq!(s.cloud.held, 1);
    assert_eq!(s.phone.replays_seen, 0);
    let (r, s) = run(23, &["replay-window-64"], plan.clone());
    let c = check(&r, "no-false-replay");
    assert!(!c.ok, "{}", c.detail);
    assert!(s.phone.ended_by_carrier >= 1);
    // A burst the 64-wide window still covers is no false replay even with the switch.
    let (r, _) = run(23, &["replay-window-64"], vec![at(6_000, FaultKind::OvertakeControl(kind::OvertakeControl { host: phone(), burst: 20 }))]);
    assert!(check(&r, "no-false-replay").ok);
}

#[test]
fn freshness_case_17_a_late_live_keeps_its_newer_table() {
    let plan = vec![
        at(8_000, FaultKind::TableChange(kind::TableChange { host: crate::host::Host::Box })),
        at(8_000, FaultKind::ReverseDatagrams(kind::ReverseDatagrams { host: phone(), for_ms: 3_000 })),
    ];
    let (r, s) = run(24, &[], plan.clone());
    assert_pass(&r);
    assert!(s.cloud.reversed >= 4, "datagrams sent newest first: {}", s.cloud.reversed);
    assert!(s.phone.late_tables >= 1, "the live with the new table came late");
    assert!(s.lives_sent.iter().any(|l| l.src_rev > s.lives_sent[0].src_rev && l.table.is_some()));
    let (r, _) = run(24, &["late-live-table-dropped"], plan);
    let c = check(&r, "late-live-table-kept");
    assert!(!c.ok, "{}", c.detail);
}

#[test]
fn a_dropped_path_demotes_quic_and_no_close_demotes_keeps_it_first() {
    // The phone's path goes silent for 40 s past the QUIC idle timeout, seconds
    // after the session's first message.
    let plan = vec![at(8_000, FaultKind::Blackhole(kind::Blackhole { host: phone(), for_ms: 40_000 }))];
    let (r, s) = run(25, &[], plan.clone());
    assert_pass(&r);
    let first = &s.phone.sessions[0];
    assert_eq!(first.transport, Transport::Quic);
    assert!(crate::law::laws::should_demote(first), "{first:?}");
    let later: Vec<_> = s.phone.sessions[1..].iter().map(|r| r.first).collect();
    assert!(!later.is_empty() && later.iter().all(|t| *t == Transport::WebSocket), "{later:?}");
    let (r, _) = run(25, &["no-close-demotes"], plan);
    let c = check(&r, "demoted-goes-ws-first");
    assert!(!c.ok, "{}", c.detail);
}

#[test]
fn app_life_from_the_plan_background_relaunch_sleep() {
    let plan = vec![
        at(6_000, FaultKind::Background(kind::Background { host: phone(), for_ms: 40_000 })),
        at(50_000, FaultKind::Relaunch(kind::Relaunch { host: phone() })),
        at(60_000, FaultKind::Sleep(kind::Sleep { host: phone(), for_ms: 3 * 3_600_000 })),
    ];
    let (r, s) = run(26, &[], plan);
    assert_pass(&r);
    assert!(
        s.phone.sessions.len() >= 3,
        "background past the NAT timeout, relaunch and sleep each reconnect: {:?}",
        s.phone.sessions.iter().map(|r| &r.end).collect::<Vec<_>>()
    );
}

#[test]
fn relay_faults_replay_exactly() {
    let plan = vec![
        at(5_000, FaultKind::OvertakeControl(kind::OvertakeControl { host: phone(), burst: 10 })),
        at(7_000, FaultKind::ReplayDatagram(kind::ReplayDatagram { host: phone() })),
        at(8_000, FaultKind::TableChange(kind::TableChange { host: crate::host::Host::Box })),
        at(8_000, FaultKind::ReverseDatagrams(kind::ReverseDatagrams { host: phone(), for_ms: 2_500 })),
    ];
    let a = run(27, &[], plan.clone()).0.outcome.trace.hash();
    assert_eq!(a, run(27, &[], plan).0.outcome.trace.hash());
}

/// The view's reference holds every `live` the view is given to what the box sent
/// (SPEC §3: the box's `wallMs`, `liveSeq` and `srcRev`; §4: its table): a table
/// lost on the phone's way to the view, or a live the box never sent, fails it,
/// judged from the box's notes rather than from what the phone read.
#[test]
fn the_view_is_judged_on_the_lives_the_box_sent() {
    use crate::law::reference::{view, Lockstep};
    use crate::world::journal::{view::ViewStep, Step};
    let plan = vec![at(8_000, FaultKind::TableChange(kind::TableChange { host: crate::host::Host::Box }))];
    let (r, _) = run(24, &[], plan);
    assert_pass(&r);
    let journal = &r.outcome.journal;
    assert!(matches!(view::check(journal), Some(Lockstep::Agreed { .. })), "{:?}", view::check(journal));
    let live = |e: &crate::world::journal::Entry| matches!(&e.step, Step::View(ViewStep::Live(l)) if l.table.is_some());
    let at_table = journal.iter().position(live).expect("a live with its table reached the view");
    let mut changed = journal.clone();
    let Step::View(ViewStep::Live(l)) = &mut changed[at_table].step else { unreachable!() };
    l.table = None;
    let Some(Lockstep::Differs { index, spec, .. }) = view::check(&changed) else { panic!("a lost table agreed") };
    assert!(index == at_table && spec.contains("with its table"), "{index} {spec}");
    let Step::View(ViewStep::Live(l)) = &mut changed[at_table].step else { unreachable!() };
    l.live_seq += 1_000;
    let Some(Lockstep::Differs { spec, .. }) = view::check(&changed) else { panic!("a live never sent agreed") };
    assert!(spec.contains("sent no live"), "{spec}");
}

/// The journal of a calm `session` run (seed 24), which passes and whose reference
/// `check` agrees with it: the base a test alters one step of.
fn calm_journal_agreeing(check: fn(&[crate::world::journal::Entry]) -> Option<crate::law::reference::Lockstep>) -> Vec<crate::world::journal::Entry> {
    let (r, _) = run(24, &[], vec![]);
    assert_pass(&r);
    let journal = r.outcome.journal.clone();
    assert!(matches!(check(&journal), Some(crate::law::reference::Lockstep::Agreed { .. })), "{:?}", check(&journal));
    journal
}

/// The view's reference holds every `live` to the table it was built against (SPEC §3:
/// the "readable copy" of its source table): a `live` carrying no value, or one field
/// short, fails it, whether it carries its table or the view already has that table.
#[test]
fn a_live_carries_a_value_for_each_field_of_its_table() {
    use crate::law::reference::{view, Lockstep};
    use crate::world::journal::{view::ViewStep, Step};
    let journal = &calm_journal_agreeing(view::check);
    let live = |with_table: bool| move |e: &crate::world::journal::Entry| matches!(&e.step, Step::View(ViewStep::Live(l)) if l.table.is_some() == with_table);
    for (at, blank) in [(journal.iter().position(live(true)), true), (journal.iter().position(live(false)), false)] {
        let at = at.expect("a live with its table and one without reached the view");
        let mut changed = journal.clone();
        let Step::View(ViewStep::Live(l)) = &mut changed[at].step else { unreachable!() };
        if blank {
            l.values.clear();
        } else {
            l.values.pop_first();
        }
        let Some(Lockstep::Differs { index, spec, .. }) = view::check(&changed) else { panic!("a live short of its table's values agreed") };
        assert!(index == at && spec.contains("readable copy"), "{index} {spec}");
    }
}

/// The carrier's reference reads the settings line the phone shows for each session
/// (SPEC §4: "Connected · QUIC" or "Connected · WebSocket"): a line with no transport, or
/// naming the other one, fails it.
#[test]
fn the_settings_line_names_the_sessions_transport() {
    use crate::law::reference::{carrier, Lockstep};
    use crate::world::journal::{carrier::CarrierStep, Step};
    let journal = &calm_journal_agreeing(carrier::check);
    let shown = journal.iter().position(|e| matches!(&e.step, Step::Carrier(CarrierStep::Shown { .. }))).expect("a session was shown");
    for wrong in ["Connected · ", "Connected · WebSocket", "Connected · QUIC"] {
        let mut changed = journal.clone();
        let Step::Carrier(CarrierStep::Shown { line, .. }) = &mut changed[shown].step else { unreachable!() };
        if line == wrong {
            continue;
        }
        *line = wrong.into();
        let Some(Lockstep::Differs { index, .. }) = carrier::check(&changed) else { panic!("{wrong:?} agreed") };
        assert_eq!(index, shown);
    }
}
