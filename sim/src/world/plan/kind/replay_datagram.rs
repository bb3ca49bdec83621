//! `kind = "replay_datagram"`: The cloud as a hostile relay (`host` = "phone": phone-bound traffic):

use serde::{Deserialize, Serialize};

use super::{Actor, Draw, Kind, TimedKind};
use crate::world::host::Host;

/// The cloud as a hostile relay (`host` = "phone": phone-bound traffic):
/// the first phone-bound datagram it relays at or after the time goes twice.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ReplayDatagram {
    pub host: Host,
}

impl ReplayDatagram {
    /// This kind from a drawn case's values.
    pub fn drawn(_: &Draw) -> Self {
        ReplayDatagram { host: Host::Phone }
    }
}

impl TimedKind for ReplayDatagram {
    fn swarm(&self) -> Kind {
        Kind::ReplayDatagram
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
