//! `kind = "slow_host"`: the host's processing is ten times the profile's for `for_ms`.

use serde::{Deserialize, Serialize};

use super::{Actor, Draw, Kind, TimedKind};
use crate::world::host::Host;

/// The host is slow for `for_ms` (issue 16 section 3): every datagram it
/// receives costs ten times the profile's service time
/// (`crate::world::net::processing`; the rig's profile when the plan has none),
/// so the laws meet a loaded phone or box, not only a slow network.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct SlowHost {
    pub host: Host,
    pub for_ms: u64,
}

/// The longest a host stays slow (ms): an hour.
pub const SLOW_FOR_MS_MAX: u64 = 3_600_000;

impl SlowHost {
    /// This kind from a drawn case's values: slow as long as an outage would last.
    pub fn drawn(d: &Draw) -> Self {
        SlowHost { host: d.host, for_ms: d.for_ms }
    }
}

impl TimedKind for SlowHost {
    fn swarm(&self) -> Kind {
        Kind::SlowHost
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

    fn whole_fields(&self) -> Vec<(&'static str, u64)> {
        vec![("for_ms", self.for_ms)]
    }

    fn ranges(&self) -> &'static [super::FieldRange] {
        &[("for_ms", 0, SLOW_FOR_MS_MAX, "an hour")]
    }
}
