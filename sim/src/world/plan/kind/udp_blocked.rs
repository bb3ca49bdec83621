//! `kind = "udp_blocked"`: UDP dropped on the host's leg for `for_ms` (TCP passes).

use serde::{Deserialize, Serialize};

use super::{Actor, TimedKind};
use crate::world::host::Host;
use crate::world::net::fault::Outage;

/// UDP dropped on the host's leg for `for_ms` (TCP passes).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct UdpBlocked {
    pub host: Host,
    pub for_ms: u64,
}

impl TimedKind for UdpBlocked {
    fn host(&self) -> Host {
        self.host
    }

    fn actor(&self) -> Actor {
        Actor::Leg
    }

    fn lasts_ms(&self) -> u64 {
        self.for_ms
    }

    fn outage(&self) -> Option<(Outage, &'static str)> {
        Some((Outage::UdpBlocked, "UDP blocked"))
    }
}
