//! What the journal records of host processing (`crate::world::net::processing`):
//! the run's profile and slow windows, and each datagram's arrival at its host
//! with when the host had it ready. The lockstep reference is
//! `ftw_properties::reference::processing`, written from docs/fault-plans.md
//! ("Host processing and slow hosts").
//!
//! The entry's host is the receiving host; times are to the nanosecond.

use std::time::Duration;

use crate::world::net::processing::ProcessingPlan;

/// The processing's setup, or one datagram's service.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ProcessingStep {
    /// The plan's `[processing]` (None: none), the rig's profile a slow host
    /// multiplies when the plan has none, and each slow host's window.
    Setup { plan: Option<ProcessingPlan>, rig: ProcessingPlan, slow: Vec<(String, Duration, Duration)> },
    /// A datagram reached the host at `arrival`; the host had it ready at `ready`.
    Served { arrival: Duration, tcp: bool, ready: Duration },
}
