//! `kind = "corrupt_message"`: the relay flips a bit of a message on its way to
//! the phone or to the box.

use serde::{Deserialize, Serialize};

use super::{Actor, Draw, Kind, TimedKind};
use crate::world::host::Host;

/// The cloud as a hostile relay (issue 14 section 3: a corrupted message at
/// every receiver). `host = "phone"`: the first phone-bound message it relays
/// at or after the time (a datagram when `datagram`, else a stream message)
/// goes with its last byte's lowest bit flipped, inside the outer tunnel's AEAD
/// tag. `host = "box"`: the first phone message it relays to the box (a `Data`
/// on the uplink's stream; the phone sends the box no datagrams, so `datagram`
/// must be false) after the session's first, its `hello`, goes with its last
/// byte flipped, inside the box session's AEAD tag (a corrupted `hello` leaves
/// the session silent by design: docs/findings/hello-has-no-deadline.md).
/// Either way it can never open.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct CorruptMessage {
    pub host: Host,
    pub datagram: bool,
}

impl CorruptMessage {
    /// This kind from a drawn case's values: toward the box, or toward the phone as a
    /// datagram or a stream message, by `extra` modulo 3.
    pub fn drawn(d: &Draw) -> Self {
        match d.extra % 3 {
            0 => CorruptMessage { host: Host::Box, datagram: false },
            n => CorruptMessage { host: Host::Phone, datagram: n == 1 },
        }
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

    fn validate(&self) -> Result<(), String> {
        match (self.host, self.datagram) {
            (Host::Box, true) => {
                Err("datagram = true: toward host = \"box\" the relay carries phone messages on the uplink's stream only; must be false".into())
            }
            _ => Ok(()),
        }
    }
}
