//! `kind = "relaunch"`: The phone's app is killed and launched again.

use serde::{Deserialize, Serialize};

use super::{Actor, Draw, Kind, TimedKind};
use crate::world::host::Host;

/// The phone's app is killed and launched again.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Relaunch {
    pub host: Host,
}

impl Relaunch {
    /// This kind from a drawn case's values.
    pub fn drawn(_: &Draw) -> Self {
        Relaunch { host: Host::Phone }
    }
}

impl TimedKind for Relaunch {
    fn swarm(&self) -> Kind {
        Kind::Relaunch
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
}
