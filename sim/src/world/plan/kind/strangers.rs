//! `kind = "strangers"`: hosts nobody talked to send the cloud what a server must
//! survive, beside each datagram the host sends (the leg's piece:
//! `world::net::fault::Strangers`).

use serde::{Deserialize, Serialize};

use super::{Actor, Draw, Kind, TimedKind};
use crate::world::host::Host;

/// During `for_ms`, beside each UDP datagram the host sends, a stranger behind
/// the same public address sends the same destination a short header with an
/// id nobody minted, the host's own id with a body that does not decrypt, a
/// long header with random ids, or random bytes, 1 ms ahead: the fleet must
/// drop or route each by SPEC section 5, and no connection may move to a
/// stranger or end for one.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Strangers {
    pub host: Host,
    pub for_ms: u64,
}

impl Strangers {
    /// This kind from a drawn case's values.
    pub fn drawn(d: &Draw) -> Self {
        Strangers { host: d.host, for_ms: d.for_ms }
    }
}

impl TimedKind for Strangers {
    fn swarm(&self) -> Kind {
        Kind::Strangers
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
