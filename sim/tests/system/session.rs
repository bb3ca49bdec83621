//! The session end to end: phone, cloud and box in the simulated world, over
//! QUIC and over the WebSocket; the refusals; replays put in front of the
//! phone's carrier by a hostile relay; exact replay of a seed.

use ftw_phone::Transport;
use ftw_sim::drive::app::cloud::{CloudLog, Tamper};
use ftw_sim::drive::system::{SessionSummary, Setup};
use ftw_sim::scenario::session::{run_short, run_with};
use ftw_sim::scenario::{self, RunReport, Verdict};
use ftw_sim::world::plan::kind;
use ftw_sim::world::plan::{FaultKind, FaultPlan, TimedFault};
use ftw_sim::world::switch::Switches;
use ftw_sim::world::topology::RunSpec;
use ftw_sim::RunSeed;

fn spec(seed: u64, switches: &[&str]) -> RunSpec {
    let mut s = RunSpec::new("session", RunSeed(seed));
    s.switches = Switches::parse(switches.iter().copied()).expect("switches");
    s
}

fn assert_pass(r: &RunReport) {
    assert_eq!(r.verdict(), Verdict::Pass, "checks: {:#?}", r.checks);
}

fn check<'a>(r: &'a RunReport, name: &str) -> &'a scenario::Check {
    r.checks.iter().find(|c| c.property() == name).expect("check present")
}

fn tampered(seed: u64, switches: &[&str], tamper: Tamper) -> (RunReport, SessionSummary) {
    run_with(&spec(seed, switches), &Setup { tamper, ..Setup::default() })
}

#[test]
fn session_over_quic_end_to_end() {
    let (r, s) = run_with(&spec(1, &[]), &Setup::default());
    assert_pass(&r);
    let first = &s.phone.sessions[0];
    assert_eq!(first.transport, Transport::Quic);
    assert!(first.open_at_ms.is_some());
    assert!(s.phone.lives.len() > 20, "lives delivered: {}", s.phone.lives.len());
    assert_eq!(s.phone.concurrent_max, 1);
    assert_eq!(s.cloud.by_transport.get("QUIC").copied(), Some(2), "box and phone over QUIC: {:?}", s.cloud.by_transport);
    assert_eq!(s.phone.replays_dropped, 0);
}

#[test]
fn session_over_the_websocket_when_udp_is_refused() {
    let mut sp = spec(2, &[]);
    sp.plan = FaultPlan {
        faults: vec![TimedFault { at_ms: 0, fault: FaultKind::UdpRefused(kind::UdpRefused { host: ftw_sim::world::host::Host::Phone, for_ms: 60_000 }) }],
        ..FaultPlan::default()
    };
    let (r, s) = run_with(&sp, &Setup::default());
    assert_pass(&r);
    assert_eq!(s.phone.sessions[0].transport, Transport::WebSocket);
    assert_eq!(s.cloud.by_transport.get("WebSocket").copied(), Some(1));
    assert!(s.phone.lives.len() > 20);
}

#[test]
fn unpaired_gets_4403_and_no_box_data() {
    let (r, s) = run_short(&spec(3, &[]), Setup { paired: false, ..Setup::default() });
    assert_pass(&r);
    assert_eq!(s.cloud.closes.iter().map(|c| c.1).collect::<Vec<_>>(), vec![4403]);
    assert!(s.phone.lives.is_empty());
}

#[test]
fn sessions_off_closes_1013_and_every_close_demotes_breaks_it() {
    let (r, _) = run_short(&spec(4, &[]), Setup { sessions_enabled: false, ..Setup::default() });
    assert_pass(&r);
    let (r, _) = run_short(&spec(4, &["every-close-demotes"]), Setup { sessions_enabled: false, ..Setup::default() });
    assert!(!check(&r, "service-close-keeps-quic").ok);
}

#[test]
fn replayed_datagrams_are_dropped_and_counted() {
    let t = Tamper { repeat_datagram_every: 7, ..Tamper::default() };
    let (r, s) = tampered(5, &[], t);
    assert_pass(&r);
    assert!(s.cloud.repeated > 5);
    assert_eq!(s.phone.replays_dropped, s.cloud.repeated, "every repeated datagram dropped as a replay");
    assert_eq!(s.phone.ended_by_carrier, 0);
    assert_eq!(s.phone.sessions.len(), 1);
    // The bug: a replayed datagram ends the session.
    let (_, s) = tampered(5, &["datagram-replay-ends-session"], t);
    assert!(s.phone.ended_by_carrier > 0);
    assert_eq!(s.phone.sessions[0].end, Some(ftw_sim::drive::app::phone::End::Replay));
}

#[test]
fn a_replay_on_the_stream_ends_the_session() {
    let t = Tamper { repeat_stream_message: 10, ..Tamper::default() };
    let (r, s) = tampered(6, &[], t);
    assert_pass(&r);
    // Every session's 10th stream message comes twice; each replay ends its session.
    assert!(s.cloud.repeated >= 1);
    assert_eq!(s.phone.ended_by_carrier, s.cloud.repeated);
    assert_eq!(s.phone.sessions[0].end, Some(ftw_sim::drive::app::phone::End::Replay));
    assert!(s.phone.sessions.len() >= 2, "the phone raced again: {:?}", s.phone.sessions);
    // The bug: only dropped, the session goes on.
    let (_, s) = tampered(6, &["stream-replay-only-dropped"], t);
    assert_eq!(s.phone.ended_by_carrier, 0);
    assert_eq!(s.phone.replays_dropped, 1);
    assert_eq!(s.cloud.repeated, 1);
    assert_eq!(s.phone.sessions.len(), 1);
}

#[test]
fn window_64_rejects_a_control_message_a_burst_overtook() {
    // The 12th stream message to the phone arrives after 80 later messages.
    let t = Tamper { hold_stream_message: 12, hold_behind: 80, ..Tamper::default() };
    let (r, s) = tampered(7, &[], t);
    assert_pass(&r);
    assert_eq!(s.phone.ended_by_carrier, 0, "1024 wide: the late message opens");
    let (_, s) = tampered(7, &["replay-window-64"], t);
    assert!(s.phone.ended_by_carrier >= 1, "64 wide: a false replay ends the session");
    assert_eq!(s.phone.sessions[0].end, Some(ftw_sim::drive::app::phone::End::Replay));
}

#[test]
fn session_through_loss_and_network_moves() {
    let mut sp = spec(8, &[]);
    sp.plan.phone.loss_pct = 5.0;
    sp.plan.box_.loss_pct = 1.0;
    sp.plan.faults = vec![
        TimedFault { at_ms: 8_000, fault: FaultKind::Rebind(kind::Rebind { host: ftw_sim::world::host::Host::Phone }) },
        TimedFault { at_ms: 15_000, fault: FaultKind::SwitchNetwork(kind::SwitchNetwork { host: ftw_sim::world::host::Host::Phone }) },
        TimedFault { at_ms: 25_000, fault: FaultKind::Blackhole(kind::Blackhole { host: ftw_sim::world::host::Host::Box, for_ms: 40_000 }) },
    ];
    let (r, s) = run_with(&sp, &Setup::default());
    assert_pass(&r);
    assert!(s.phone.lives.len() > 20);
}

#[test]
fn same_seed_same_trace_other_seed_other_trace() {
    let run = |seed| run_with(&spec(seed, &[]), &Setup::default()).0.outcome.trace.hash();
    assert_eq!(run(11), run(11));
    assert_ne!(run(11), run(12));
}

#[test]
fn blind_relay_check_finds_plaintext() {
    let mut log = CloudLog::default();
    log.handled.push(b"\x01\x02 grid_w \x03".to_vec());
    assert!(log.saw(b"grid_w"));
    assert!(!log.saw(b"hello_ok"));
    assert!(!log.saw(b""));
}

/// Issue 16 section 3: a slow box (ten times the rig's processing for 20 s,
/// the lane-0 cadence and lives going through it) still holds every law of
/// the session, and the slowness is in the run: the same seed without it
/// gives another trace, and the phone's lives come later.
#[test]
fn session_holds_its_laws_with_a_slow_box() {
    let mut sp = spec(3, &[]);
    sp.plan = FaultPlan {
        faults: vec![TimedFault { at_ms: 2_000, fault: FaultKind::SlowHost(kind::SlowHost { host: ftw_sim::world::host::Host::Box, for_ms: 20_000 }) }],
        ..FaultPlan::default()
    };
    let (slow, _) = run_with(&sp, &Setup::default());
    assert_pass(&slow);
    let (plain, _) = run_with(&spec(3, &[]), &Setup::default());
    assert_ne!(slow.outcome.trace.hash(), plain.outcome.trace.hash(), "a slow box changed nothing");
    assert!(slow.outcome.trace.events().iter().any(|e| e.kind == "host.slow"), "no host.slow event");
}
