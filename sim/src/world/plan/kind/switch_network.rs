//! `kind = "switch_network"`: The phone moves to its other network (Wi-Fi to cellular or back).

use serde::{Deserialize, Serialize};

use super::{Actor, Draw, Kind, TimedKind};
use crate::world::host::Host;

/// The phone moves to its other network (Wi-Fi to cellular or back).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct SwitchNetwork {
    pub host: Host,
}

impl SwitchNetwork {
    /// This kind from a drawn case's values.
    pub fn drawn(_: &Draw) -> Self {
        SwitchNetwork { host: Host::Phone }
    }
}

impl TimedKind for SwitchNetwork {
    fn swarm(&self) -> Kind {
        Kind::SwitchNetwork
    }

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
