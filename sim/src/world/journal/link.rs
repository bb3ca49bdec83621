//! What the journal records of each leg's link (`crate::world::net::fault`):
//! the leg's plan as the fault plan gives it, and every datagram that met the
//! leg with what came out (before the receiver's processing). The lockstep
//! reference is `ftw_properties::reference::link`, written from the plan's
//! words (docs/fault-plans.md), not from the pieces.
//!
//! The entry's host is the leg's (the phone's or the box's); times are the
//! network's `now` to the nanosecond.

use std::net::SocketAddr;
use std::time::Duration;

use crate::world::net::fault::Outage;
use crate::world::plan::LinkPlan;

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

/// A datagram as it met the leg.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Sent {
    pub src: SocketAddr,
    /// A tunnelled TCP segment (an IP packet of its own), not a UDP datagram.
    pub tcp: bool,
    /// Its IP packet's length (a UDP datagram's payload plus 28 bytes).
    pub ip_len: usize,
    pub hash: u64,
}

/// A datagram the leg put out: its delay from `at`, its bytes' hash, its source.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Out {
    pub delay: Duration,
    pub hash: u64,
    pub src: SocketAddr,
}

/// The bytes' hash the link steps carry (FNV-1a: cheap, and only compared
/// within one run).
pub fn hash(bytes: &[u8]) -> u64 {
    bytes.iter().fold(0xcbf2_9ce4_8422_2325u64, |h, b| (h ^ u64::from(*b)).wrapping_mul(0x0100_0000_01b3))
}
