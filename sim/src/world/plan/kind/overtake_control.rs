//! `kind = "overtake_control"`: The relay holds the first phone-bound stream message at or after the

use serde::{Deserialize, Serialize};

use super::{Actor, Draw, Kind, TimedKind};
use crate::world::host::Host;

/// The longest the relay holds a message back waiting for its burst (chosen
/// here): a message nothing follows (a handshake reply) is let go after it.
pub const HOLD_MAX_MS: u64 = 45_000;

/// The relay holds the first phone-bound stream message at or after the
/// time back until `burst` later phone-bound messages have gone: a burst
/// overtaking a control message. It lets the message go after
/// [`HOLD_MAX_MS`] if the burst never comes.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct OvertakeControl {
    pub host: Host,
    pub burst: u32,
}

impl OvertakeControl {
    /// This kind from a drawn case's values.
    /// 41 to 168 later messages (about 3 a second): mostly past the old 64-wide window.
    pub fn drawn(d: &Draw) -> Self {
        OvertakeControl { host: Host::Phone, burst: 40 + d.extra }
    }
}

impl TimedKind for OvertakeControl {
    fn swarm(&self) -> Kind {
        Kind::OvertakeControl
    }

    fn host(&self) -> Host {
        self.host
    }

    fn actor(&self) -> Actor {
        Actor::Relay
    }

    fn only_host(&self) -> Option<Host> {
        Some(Host::Phone)
    }

    fn lasts_ms(&self) -> u64 {
        HOLD_MAX_MS
    }

    fn whole_fields(&self) -> Vec<(&'static str, u64)> {
        vec![("burst", self.burst as u64)]
    }

    fn ranges(&self) -> &'static [super::FieldRange] {
        &[("burst", 1, 10_000, "at least one message overtakes; a burst of at most 10,000")]
    }
}
