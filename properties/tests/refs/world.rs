//! The world's references (issue 32): judged on real runs, and each shown
//! failing with a bug planted in the world for the test's duration
//! (`ftw_sim::plant`) and passing without it.

use std::path::PathBuf;

use ftw_sim::law::reference;
use ftw_sim::plant::{Bug, Plant};
use ftw_sim::scenario::RunReport;
use ftw_sim::RunSpec;

/// A corpus entry's spec (its scenario, seed, switches and plan).
fn entry(name: &str) -> RunSpec {
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../corpus").join(name);
    ftw_properties::corpus::load(&path).expect("corpus entry loads").spec
}

/// `spec` on quinn-proto's own migration (`quic = "patched"`): the plan of
/// `sessions-off-lossy-rebind-1006` loses its QUIC session there and streams over
/// the WebSocket through 13.9 % loss, where Linux's quick-ack mode shows; the
/// rig's stand-in keeps the session on QUIC.
fn on_patched(mut spec: RunSpec) -> RunSpec {
    spec.plan.quic = ftw_sim::plan::QuicPlan::Patched;
    spec
}

/// Run and judge every reference; the check of `law`: (ok, detail).
fn judged(spec: &RunSpec, law: &str) -> (bool, String) {
    let r: RunReport = ftw_sim::scenario::run(spec).expect("the scenario runs");
    let c = r.checks.iter().find(|c| c.law.name == law).unwrap_or_else(|| panic!("{law} judged in {}", spec.scenario));
    (c.ok, c.detail.clone())
}

/// `law` passes on `spec` as it is, and fails with `bug` planted: the failure's detail.
fn caught(spec: &RunSpec, law: &str, bug: Bug) -> String {
    let (ok, detail) = judged(spec, law);
    assert!(ok, "{law} without {bug:?}: {detail}");
    let _plant = Plant::new(&[bug]);
    let (ok, detail) = judged(spec, law);
    assert!(!ok, "{law} with {bug:?} planted still passes: {detail}");
    detail
}

/// A day of keepalives on the phone's leg (`idle-link`) with `edit` made to its plan.
fn idle_day(edit: impl Fn(&mut ftw_sim::plan::LinkPlan)) -> RunSpec {
    let mut spec = ftw_sim::scenario::spec("idle-link", ftw_sim::RunSeed(1));
    edit(&mut spec.plan.phone);
    spec
}

/// The whole system on seed 1's calm network.
fn session() -> RunSpec {
    ftw_sim::scenario::spec("session", ftw_sim::RunSeed(1))
}

/// Where each bug that can be planted is shown, and what the failure it causes
/// must name (the match is exhaustive: a new bug has no test until it has a row).
fn shown_on(bug: Bug) -> (RunSpec, &'static str) {
    match bug {
        Bug::NatRebindKeepsOldPort => (entry("quic-echo-loss-rebind.toml"), "NoMapping"),
        Bug::NatTcpNeverEstablished => (entry("ws-echo-heartbeat-death.toml"), "established"),
        Bug::NatKeepsLeftHost => (entry("session-cloud-close-lost-after-move.toml"), "NoMapping"),
        Bug::LossDoubled => (idle_day(|l| l.loss_pct = 5.0), "too many"),
        Bug::JitterDoubled => (idle_day(|l| l.jitter_ms = 10), "jitter"),
        Bug::ProcessingReorders => {
            let mut spec = session();
            spec.plan.processing = Some(ftw_sim::net::processing::RIG_PROCESSING);
            (spec, "not before the datagram ahead")
        }
        Bug::RtoNoBackoff => (entry("ws-echo-heartbeat-death.toml"), "5.5"),
        Bug::TcpNoQuickAck => (on_patched(entry("sessions-off-lossy-rebind-1006.toml")), "quick-ack"),
        Bug::TcpSynRecvAsStock => (entry("ws-echo-synack-given-up-resets-13100060729.toml"), "SYN-RECEIVED"),
        Bug::WirePadNotZeroed => (session(), "zero pad"),
        Bug::WireAckOnBulkLane => (session(), "cmd.ack on lane 1"),
        Bug::WireTruncOnWholeDelta => (session(), "TRUNC on a delta"),
        Bug::WireAckAsDatagram => (session(), "cmd.ack sent as a QUIC datagram"),
        Bug::WireVarintCountsItself => (session(), "varint length"),
        // Strangers behind the client's NAT address, a port each (53 senders at the door).
        Bug::KernelHashIgnoresPort => (entry("fleet-migrate-sweep-due-at-the-end-13870153974.toml"), "ports of"),
    }
}

/// Issue 32 section 3: every bug that can be planted in the world fails the one
/// reference that declares it (`Reference::planted`) on a real run, naming what
/// broke, and the same run passes that law without it.
#[test]
fn every_planted_bug_fails_its_reference_and_only_with_it() {
    for bug in Bug::ALL {
        let declaring: Vec<_> = reference::REFERENCES.iter().filter(|r| r.planted.contains(bug)).collect();
        assert_eq!(declaring.len(), 1, "{bug:?} is declared by {} references", declaring.len());
        let (spec, names) = shown_on(*bug);
        let detail = caught(&spec, declaring[0].law.name, *bug);
        assert!(detail.contains(names), "{bug:?}: {detail}");
    }
}

/// The plant is gone once its holder is: the next run is the world as written.
#[test]
fn a_planted_bug_does_not_outlive_its_plant() {
    let spec = entry("quic-echo-loss-rebind.toml");
    {
        let _plant = Plant::new(&[Bug::NatRebindKeepsOldPort]);
        assert!(ftw_sim::plant::on(Bug::NatRebindKeepsOldPort));
    }
    assert!(!ftw_sim::plant::on(Bug::NatRebindKeepsOldPort));
    assert!(judged(&spec, "nat-agrees-with-spec").0);
}
