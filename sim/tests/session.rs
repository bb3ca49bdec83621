//! The session end to end: phone, cloud and box in the simulated world.

use ftw_sim::app::cloud::Tamper;
use ftw_sim::scenario::session::{run_short, run_with, Setup};
use ftw_sim::scenario::{self, FaultKind, FaultPlan, RunSpec, Switches, TimedFault, Verdict};
use ftw_sim::RunSeed;

fn spec(name: &str, seed: u64) -> RunSpec {
    RunSpec::new(name, RunSeed(seed))
}

fn assert_pass(r: &scenario::RunReport) {
    assert_eq!(r.verdict(), Verdict::Pass, "checks: {:#?}", r.checks);
}

#[test]
fn session_over_quic_end_to_end() {
    let (r, s) = run_with(&spec("session", 1), &Setup::default());
    assert_pass(&r);
    let first = &s.phone.sessions[0];
    assert_eq!(first.transport, ftw_phone::Transport::Quic);
    assert!(first.open_at_ms.is_some());
    assert!(s.phone.lives.len() > 20, "lives delivered: {}", s.phone.lives.len());
    assert_eq!(s.phone.concurrent_max, 1);
    assert!(s.cloud.by_transport.get("QUIC").copied().unwrap_or(0) >= 2, "box and phone over QUIC: {:?}", s.cloud.by_transport);
}
