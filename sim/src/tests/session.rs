//! The session end to end: phone, cloud and box in the simulated world, over
//! QUIC and over the WebSocket; the refusals; exact replay of a seed (the
//! hostile relay's replays are `session_laws.rs`'s, with the plan's relay faults).

use crate::drive::app::cloud::CloudLog;
use crate::drive::system::Setup;
use crate::host::Host;
use crate::plan::kind;
use crate::plan::{FaultKind, FaultPlan, TimedFault};
use crate::scenario::session::{run_short, run_with};
use crate::scenario::{self, RunReport, Verdict};
use crate::switch::Switches;
use crate::RunSeed;
use crate::RunSpec;
use ftw_phone::Transport;

fn spec(seed: u64, switches: &[&str]) -> RunSpec {
    let mut s = crate::scenario::spec("session", RunSeed(seed));
    s.switches = Switches::parse(switches.iter().copied()).expect("switches");
    s
}

fn assert_pass(r: &RunReport) {
    assert_eq!(r.verdict(), Verdict::Pass, "checks: {:#?}", r.checks);
}

fn check<'a>(r: &'a RunReport, name: &str) -> &'a scenario::Check {
    r.checks.iter().find(|c| c.property() == name).expect("check present")
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
        faults: vec![TimedFault { at_ms: 0, fault: FaultKind::UdpRefused(kind::UdpRefused { host: Host::Phone, for_ms: 60_000 }) }],
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
fn session_through_loss_and_network_moves() {
    let mut sp = spec(8, &[]);
    sp.plan.phone.loss_pct = 5.0;
    sp.plan.box_.loss_pct = 1.0;
    sp.plan.faults = vec![
        TimedFault { at_ms: 8_000, fault: FaultKind::Rebind(kind::Rebind { host: Host::Phone }) },
        TimedFault { at_ms: 15_000, fault: FaultKind::SwitchNetwork(kind::SwitchNetwork { host: Host::Phone }) },
        TimedFault { at_ms: 25_000, fault: FaultKind::Blackhole(kind::Blackhole { host: Host::Box, for_ms: 40_000 }) },
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
        faults: vec![TimedFault { at_ms: 2_000, fault: FaultKind::SlowHost(kind::SlowHost { host: Host::Box, for_ms: 20_000 }) }],
        ..FaultPlan::default()
    };
    let (slow, _) = run_with(&sp, &Setup::default());
    assert_pass(&slow);
    let (plain, _) = run_with(&spec(3, &[]), &Setup::default());
    assert_ne!(slow.outcome.trace.hash(), plain.outcome.trace.hash(), "a slow box changed nothing");
    assert!(slow.outcome.trace.events().iter().any(|e| e.kind == "host.slow"), "no host.slow event");
}
