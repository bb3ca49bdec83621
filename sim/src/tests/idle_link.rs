//! `keepalive-holds` can fail: a connection the network killed without a move of
//! the plan is never excused (only a move's lost validation is, `idle_link.rs`
//! `lost_to_the_network`).

use crate::host::Host;
use crate::plan::kind;
use crate::plan::{FaultKind, TimedFault};
use crate::scenario::{self, Check};
use crate::RunSeed;

fn keepalive(faults: Vec<TimedFault>) -> Check {
    let mut spec = crate::scenario::spec("idle-link", RunSeed(3));
    spec.plan.faults = faults;
    let r = scenario::run(&spec).expect("spec is valid");
    r.checks.into_iter().find(|c| c.law.name == "keepalive-holds").expect("judged")
}

#[test]
fn a_box_cut_off_past_the_idle_timeout_without_a_move_fails_keepalive_holds() {
    assert!(keepalive(vec![]).ok, "a quiet day holds");
    // 40 s of blackhole on the box's leg: its connection idles out (30 s), no move to excuse it.
    let cut = TimedFault { at_ms: 3_600_000, fault: FaultKind::Blackhole(kind::Blackhole { host: Host::Box, for_ms: 40_000 }) };
    let c = keepalive(vec![cut]);
    assert!(!c.ok, "{}", c.detail);
    assert!(!c.detail.contains("excused"), "{}", c.detail);
}
