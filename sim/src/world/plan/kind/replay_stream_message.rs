//! `kind = "replay_stream_message"`: The relay sends the first phone-bound control-lane stream message at or

use serde::{Deserialize, Serialize};

use super::{Actor, TimedKind};
use crate::world::host::Host;

/// The relay sends the first phone-bound control-lane stream message at or
/// after the time twice.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ReplayStreamMessage {
    pub host: Host,
}

impl TimedKind for ReplayStreamMessage {
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
