//! `kind = "reverse_datagrams"`: The relay holds every phone-bound datagram for `for_ms`, then sends

use serde::{Deserialize, Serialize};

use super::{Actor, TimedKind};
use crate::world::host::Host;

/// The relay holds every phone-bound datagram for `for_ms`, then sends
/// them newest first (a reordering relay).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ReverseDatagrams {
    pub host: Host,
    pub for_ms: u64,
}

impl TimedKind for ReverseDatagrams {
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
        self.for_ms
    }
}
