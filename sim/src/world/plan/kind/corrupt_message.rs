//! `kind = "corrupt_message"`: the relay flips a bit of a phone-bound message.

use serde::{Deserialize, Serialize};

use super::{Actor, Draw, Kind, TimedKind};
use crate::world::host::Host;

/// The cloud as a hostile relay (issue 14 section 3: a corrupted message at a
/// receiver): the first phone-bound message it relays at or after the time
/// (a datagram when `datagram`, else a stream message) goes with its last
/// byte's lowest bit flipped, inside the AEAD tag, so it can never open.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct CorruptMessage {
    pub host: Host,
    pub datagram: bool,
}

impl CorruptMessage {
    /// This kind from a drawn case's values: a datagram or a stream message by `extra`'s parity.
    pub fn drawn(d: &Draw) -> Self {
        CorruptMessage { host: Host::Phone, datagram: d.extra % 2 == 1 }
    }
}

impl TimedKind for CorruptMessage {
    fn swarm(&self) -> Kind {
        Kind::Corrupt
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
}
