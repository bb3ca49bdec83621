//! `rejected-0rtt-loses-nothing` on made-up logs: an uplink up ten seconds
//! without its challenge fails, unless the cloud's restart ended it in that
//! window, even with the restart's close lost on the way to the box
//! (corpus/box-reconnect-restart-close-lost-14100056803.toml).

use std::time::Duration;

use crate::drive::app::r#box::UplinkRecord;
use crate::drive::system::SessionSummary;
use crate::law::uplink_laws::rejected_0rtt_loses_nothing;
use crate::plan::kind;
use crate::plan::{FaultKind, FaultPlan, LinkPlan, TimedFault};

/// The entry's uplink: dialled at 18.6 s, up at 19.1 s with its 0-RTT
/// rejected, no challenge heard and no close heard.
fn silent_uplink() -> SessionSummary {
    let mut s = SessionSummary::default();
    s.uplinks.push(UplinkRecord { dial_ms: 18_566, up_ms: Some(19_102), zero_rtt: Some(false), ticket: true, ..UplinkRecord::default() });
    s
}

fn plan(restart_at_ms: Option<u64>) -> FaultPlan {
    let faults = restart_at_ms
        .map(|at_ms| TimedFault { at_ms, fault: FaultKind::CloudRestart(kind::CloudRestart { host: crate::host::Host::Box, loses_tickets: true }) });
    FaultPlan { box_: LinkPlan { loss_pct: 8.8, ..LinkPlan::default() }, faults: faults.into_iter().collect(), ..FaultPlan::default() }
}

#[test]
fn an_uplink_up_ten_seconds_without_its_challenge_fails() {
    let c = rejected_0rtt_loses_nothing(&silent_uplink(), &plan(None), Duration::from_secs(150));
    assert!(!c.ok, "{}", c.detail);
    assert!(c.detail.starts_with("1 uplinks judged"), "{}", c.detail);
}

#[test]
fn an_uplink_the_clouds_restart_closed_unheard_is_not_judged() {
    let c = rejected_0rtt_loses_nothing(&silent_uplink(), &plan(Some(20_500)), Duration::from_secs(150));
    assert!(c.ok, "{}", c.detail);
    assert!(c.detail.starts_with("0 uplinks judged"), "{}", c.detail);
    // A restart before the dial or after the window leaves the uplink judged.
    for at in [18_000, 29_200] {
        let c = rejected_0rtt_loses_nothing(&silent_uplink(), &plan(Some(at)), Duration::from_secs(150));
        assert!(!c.ok, "restart at {at} ms: {}", c.detail);
    }
}
