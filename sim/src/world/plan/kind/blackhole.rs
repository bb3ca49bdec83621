//! `kind = "blackhole"`: The host's leg drops everything for `for_ms`.

use serde::{Deserialize, Serialize};

use super::{Actor, Draw, Kind, TimedKind};
use crate::world::host::Host;
use crate::world::net::fault::Outage;

/// The host's leg drops everything for `for_ms`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Blackhole {
    pub host: Host,
    pub for_ms: u64,
}

impl Blackhole {
    /// This kind from a drawn case's values.
    pub fn drawn(d: &Draw) -> Self {
        Blackhole { host: d.host, for_ms: d.for_ms }
    }
}

impl TimedKind for Blackhole {
    fn swarm(&self) -> Kind {
        Kind::Blackhole
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
        Some((Outage::Blackhole, "blackhole"))
    }

    fn whole_fields(&self) -> Vec<(&'static str, u64)> {
        vec![("for_ms", self.for_ms)]
    }

    fn ranges(&self) -> &'static [super::FieldRange] {
        super::FOR_A_DAY
    }
}
