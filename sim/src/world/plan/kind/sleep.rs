//! `kind = "sleep"`: The phone sleeps: its wall clock jumps `for_ms`; past the
//! 30 s NAT mapping it reconnects.

use serde::{Deserialize, Serialize};

use super::{Actor, Draw, Kind, TimedKind};
use crate::world::host::{Host, NAT_IDLE_TIMEOUT};

/// The phone sleeps: its wall clock jumps `for_ms`; past the 30 s NAT mapping it reconnects.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Sleep {
    pub host: Host,
    pub for_ms: u64,
}

impl Sleep {
    /// This kind from a drawn case's values: up to 8 hours of sleep, or (three
    /// draws in 128) a jump at or around the 30 s NAT mapping's edge, where the
    /// app-life rule turns (issue 14 section 3's boundaries).
    pub fn drawn(d: &Draw) -> Self {
        let for_ms = match d.extra {
            1 => NAT_IDLE_TIMEOUT.as_millis() as u64 - 1,
            2 => NAT_IDLE_TIMEOUT.as_millis() as u64,
            3 => NAT_IDLE_TIMEOUT.as_millis() as u64 + 1,
            e => e as u64 * 225_000,
        };
        Sleep { host: Host::Phone, for_ms }
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
