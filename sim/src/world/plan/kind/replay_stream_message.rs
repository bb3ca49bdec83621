//! `kind = "replay_stream_message"`: The relay sends the first phone-bound control-lane stream message at or

use serde::{Deserialize, Serialize};

use super::{Actor, Draw, Kind, TimedKind};
use crate::world::host::Host;

/// The relay sends the first phone-bound control-lane stream message at or
/// after the time twice.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ReplayStreamMessage {
    pub host: Host,
}

impl ReplayStreamMessage {
    /// This kind from a drawn case's values.
    pub fn drawn(_: &Draw) -> Self {
        ReplayStreamMessage { host: Host::Phone }
    }
}

impl TimedKind for ReplayStreamMessage {
    fn swarm(&self) -> Kind {
        Kind::ReplayStream
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
