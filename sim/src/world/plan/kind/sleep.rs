//! `kind = "sleep"`: The phone sleeps: its wall clock jumps `for_ms` and it reconnects.

use serde::{Deserialize, Serialize};

use super::{Actor, Draw, Kind, TimedKind};
use crate::world::host::Host;

/// The phone sleeps: its wall clock jumps `for_ms` and it reconnects.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Sleep {
    pub host: Host,
    pub for_ms: u64,
}

impl Sleep {
    /// This kind from a drawn case's values.
    /// Up to 8 hours of sleep.
    pub fn drawn(d: &Draw) -> Self {
        Sleep { host: Host::Phone, for_ms: d.extra as u64 * 225_000 }
    }
}

impl TimedKind for Sleep {
    fn swarm(&self) -> Kind {
        Kind::Sleep
    }

    fn host(&self) -> Host {
        self.host
    }

    fn actor(&self) -> Actor {
        Actor::AppLife
    }

    fn only_host(&self) -> Option<Host> {
        Some(Host::Phone)
    }

    fn whole_fields(&self) -> Vec<(&'static str, u64)> {
        vec![("for_ms", self.for_ms)]
    }

    fn ranges(&self) -> &'static [super::FieldRange] {
        &[("for_ms", 0, 7 * 86_400_000, "a week asleep at most")]
    }
}
