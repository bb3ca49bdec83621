//! `kind = "udp_refused"`: UDP refused at once on the host's leg for `for_ms` (TCP passes).

use serde::{Deserialize, Serialize};

use super::{Actor, Draw, Kind, TimedKind};
use crate::world::host::Host;
use crate::world::net::fault::Outage;

/// UDP refused at once on the host's leg for `for_ms` (TCP passes).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct UdpRefused {
    pub host: Host,
    pub for_ms: u64,
}

impl UdpRefused {
    /// This kind from a drawn case's values.
    pub fn drawn(d: &Draw) -> Self {
        UdpRefused { host: d.host, for_ms: d.for_ms }
    }
}

impl TimedKind for UdpRefused {
    fn swarm(&self) -> Kind {
        Kind::UdpRefused
    }

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
        Some((Outage::UdpRefused, "UDP refused"))
    }

    fn whole_fields(&self) -> Vec<(&'static str, u64)> {
        vec![("for_ms", self.for_ms)]
    }

    fn ranges(&self) -> &'static [super::FieldRange] {
        super::FOR_A_DAY
    }
}
