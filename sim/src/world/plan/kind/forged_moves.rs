//! `kind = "forged_moves"`: An on-path attacker on the host's leg (RFC 9000 section 9.3.3) copies

use serde::{Deserialize, Serialize};

use super::{Actor, Draw, Kind, TimedKind};
use crate::world::host::Host;

/// An on-path attacker on the host's leg (RFC 9000 section 9.3.3) copies
/// each UDP datagram the host sends during `for_ms` and sends the copy from
/// a forged source port of the same address, 1 ms ahead of the original: a
/// server adopts the "moved" address before it validates it.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ForgedMoves {
    pub host: Host,
    pub for_ms: u64,
}

impl ForgedMoves {
    /// This kind from a drawn case's values.
    pub fn drawn(d: &Draw) -> Self {
        ForgedMoves { host: d.host, for_ms: d.for_ms }
    }
}

impl TimedKind for ForgedMoves {
    fn swarm(&self) -> Kind {
        Kind::ForgedMoves
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
        super::FOR_A_DAY
    }
}
