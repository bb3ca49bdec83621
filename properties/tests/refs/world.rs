//! The world's references (issue 32): judged on real runs, and each shown
//! failing with a bug planted in the world for the test's duration
//! (`ftw_sim::world::plant`) and passing without it.

use std::path::PathBuf;

use ftw_properties::reference;
use ftw_sim::scenario::RunReport;
use ftw_sim::world::plant::{Bug, Plant};
use ftw_sim::world::topology::RunSpec;

/// A corpus entry's spec (its scenario, seed, switches and plan).
fn entry(name: &str) -> RunSpec {
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../corpus").join(name);
    ftw_properties::corpus::load(&path).expect("corpus entry loads").spec
}

/// Run and judge every reference; the check of `law`: (ok, detail).
fn judged(spec: &RunSpec, law: &str) -> (bool, String) {
    let r: RunReport = reference::run(spec).expect("the scenario runs");
    let c = r.checks.iter().find(|c| c.law.name == law).unwrap_or_else(|| panic!("{law} judged in {}", spec.scenario));
    (c.ok, c.detail.clone())
}

/// `law` passes on `spec` as it is, and fails with `bug` planted.
fn caught(spec: &RunSpec, law: &str, bug: Bug) -> String {
    let (ok, detail) = judged(spec, law);
    assert!(ok, "{law} without {bug:?}: {detail}");
    let _plant = Plant::new(&[bug]);
    let (ok, detail) = judged(spec, law);
    assert!(!ok, "{law} with {bug:?} planted still passes: {detail}");
    detail
}

#[test]
fn nat_reference_catches_a_rebind_that_keeps_the_old_port() {
    let detail = caught(&entry("quic-echo-loss-rebind.toml"), "nat-agrees-with-spec", Bug::NatRebindKeepsOldPort);
    assert!(detail.contains("NoMapping"), "{detail}");
}

#[test]
fn nat_reference_catches_a_tcp_flow_never_established() {
    let detail = caught(&entry("ws-echo-heartbeat-death.toml"), "nat-agrees-with-spec", Bug::NatTcpNeverEstablished);
    assert!(detail.contains("established"), "{detail}");
}

/// The plant is gone once its holder is: the next run is the world as written.
#[test]
fn a_planted_bug_does_not_outlive_its_plant() {
    let spec = entry("quic-echo-loss-rebind.toml");
    {
        let _plant = Plant::new(&[Bug::NatRebindKeepsOldPort]);
        assert!(ftw_sim::world::plant::on(Bug::NatRebindKeepsOldPort));
    }
    assert!(!ftw_sim::world::plant::on(Bug::NatRebindKeepsOldPort));
    assert!(judged(&spec, "nat-agrees-with-spec").0);
}

/// A day of keepalives on the phone's leg (`idle-link`) with `edit` made to its plan.
fn idle_day(edit: impl Fn(&mut ftw_sim::world::plan::LinkPlan)) -> RunSpec {
    let mut spec = RunSpec::new("idle-link", ftw_sim::RunSeed(1));
    edit(&mut spec.plan.phone);
    spec
}

#[test]
fn link_reference_catches_twice_the_plans_loss() {
    let detail = caught(&idle_day(|l| l.loss_pct = 5.0), "link-agrees-with-spec", Bug::LossDoubled);
    assert!(detail.contains("lost") && detail.contains("too many"), "{detail}");
}

#[test]
fn link_reference_catches_twice_the_plans_jitter() {
    let detail = caught(&idle_day(|l| l.jitter_ms = 10), "link-agrees-with-spec", Bug::JitterDoubled);
    assert!(detail.contains("jitter"), "{detail}");
}

#[test]
fn processing_reference_catches_a_host_that_reorders() {
    let mut spec = RunSpec::new("session", ftw_sim::RunSeed(1));
    spec.plan.processing = Some(ftw_sim::world::net::processing::RIG_PROCESSING);
    let detail = caught(&spec, "processing-agrees-with-spec", Bug::ProcessingReorders);
    assert!(detail.contains("not before the datagram ahead"), "{detail}");
}

/// The whole system on a calm network: phone, box and cloud through the fleet.
fn session() -> RunSpec {
    RunSpec::new("session", ftw_sim::RunSeed(1))
}

#[test]
fn wire_reference_catches_padding_not_zeroed() {
    let detail = caught(&session(), "wire-agrees-with-spec", Bug::WirePadNotZeroed);
    assert!(detail.contains("padding byte") && detail.contains("zero pad"), "{detail}");
}

#[test]
fn wire_reference_catches_a_cmd_ack_on_the_bulk_lane() {
    let detail = caught(&session(), "wire-agrees-with-spec", Bug::WireAckOnBulkLane);
    assert!(detail.contains("cmd.ack on lane 1"), "{detail}");
}

#[test]
fn wire_reference_catches_trunc_on_a_delta_that_fit() {
    let detail = caught(&session(), "wire-agrees-with-spec", Bug::WireTruncOnWholeDelta);
    assert!(detail.contains("TRUNC on a delta"), "{detail}");
}

#[test]
fn wire_reference_catches_a_cmd_ack_sent_as_a_datagram() {
    let detail = caught(&session(), "wire-agrees-with-spec", Bug::WireAckAsDatagram);
    assert!(detail.contains("cmd.ack sent as a QUIC datagram"), "{detail}");
}

#[test]
fn wire_reference_catches_a_varint_length_that_counts_itself() {
    let detail = caught(&session(), "wire-agrees-with-spec", Bug::WireVarintCountsItself);
    assert!(detail.contains("varint length"), "{detail}");
}

/// Every bug that can be planted in the world is one a reference declares it
/// catches (and each has its test above).
#[test]
fn every_planted_bug_belongs_to_a_reference() {
    for bug in Bug::ALL {
        let by = reference::REFERENCES.iter().filter(|r| r.planted.contains(bug)).count();
        assert_eq!(by, 1, "{bug:?} is declared by {by} references");
    }
}

#[test]
fn tcp_reference_catches_a_timer_that_never_backs_off() {
    let detail = caught(&entry("ws-echo-heartbeat-death.toml"), "tcp-agrees-with-spec", Bug::RtoNoBackoff);
    assert!(detail.contains("5.5"), "{detail}");
}
