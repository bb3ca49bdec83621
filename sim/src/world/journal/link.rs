//! What the journal records of each leg's link (`crate::world::net::fault`):
//! the leg's plan as the fault plan gives it, and every datagram that met the
//! leg with what came out (before the receiver's processing). The lockstep
//! reference is `ftw_properties::reference::link`, written from the plan's
//! words (docs/fault-plans.md), not from the pieces.
//!
//! The entry's host is the leg's (the phone's or the box's); times are the
//! network's `now` to the nanosecond.

use std::time::Duration;

use crate::world::host::Host;
use crate::world::net::fault::Outage;
pub use crate::world::net::log::{hash, Out, Sent};
use crate::world::plan::{FaultKind, FaultPlan, LinkPlan};

/// One leg's input and what its pieces did.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum LinkStep {
    /// The leg's link settings and the windows of the timed faults on its host.
    Leg { plan: LinkPlan, outages: Vec<(Duration, Duration, Outage)>, forged: Vec<(Duration, Duration)>, strangers: Vec<(Duration, Duration)> },
    /// One datagram met the leg (`up`: from its host) at `at`.
    Crossed { at: Duration, up: bool, sent: Sent, refused: bool, out: Vec<Out> },
    /// Datagrams a piece held were let go on their own at `at`.
    Released { at: Duration, up: bool, out: Vec<Out> },
}

/// `host`'s leg as the plan gives it: its link settings and the windows of the
/// timed faults that act on the leg.
pub fn leg(plan: &FaultPlan, host: Host) -> LinkStep {
    let leg = if host == Host::Box { &plan.box_ } else { &plan.phone };
    let mut outages = Vec::new();
    let (mut forged, mut strangers) = (Vec::new(), Vec::new());
    for f in plan.faults.iter().filter(|f| f.fault.host() == host) {
        let from = Duration::from_millis(f.at_ms);
        match &f.fault {
            FaultKind::ForgedMoves(k) => forged.push((from, from + Duration::from_millis(k.for_ms))),
            FaultKind::Strangers(k) => strangers.push((from, from + Duration::from_millis(k.for_ms))),
            k => {
                if let Some((outage, _)) = k.def().outage() {
                    outages.push((from, from + Duration::from_millis(k.def().lasts_ms()), outage));
                }
            }
        }
    }
    LinkStep::Leg { plan: leg.clone(), outages, forged, strangers }
}
