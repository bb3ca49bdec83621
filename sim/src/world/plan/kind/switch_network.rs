//! `kind = "switch_network"`: The phone moves to its other network (Wi-Fi to cellular or back).

use serde::{Deserialize, Serialize};

use super::{Actor, TimedKind};
use crate::world::host::Host;

/// The phone moves to its other network (Wi-Fi to cellular or back).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct SwitchNetwork {
    pub host: Host,
}

impl TimedKind for SwitchNetwork {
    fn host(&self) -> Host {
        self.host
    }

    fn actor(&self) -> Actor {
        Actor::World
    }

    fn only_host(&self) -> Option<Host> {
        Some(Host::Phone)
    }
}
