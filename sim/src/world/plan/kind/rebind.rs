//! `kind = "rebind"`: The host's NAT rebinds (same inside flow, new outside port).

use serde::{Deserialize, Serialize};

use super::{Actor, Draw, Kind, TimedKind};
use crate::world::host::Host;

/// The host's NAT rebinds (same inside flow, new outside port).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Rebind {
    pub host: Host,
}

impl Rebind {
    /// This kind from a drawn case's values.
    pub fn drawn(d: &Draw) -> Self {
        Rebind { host: d.host }
    }
}

impl TimedKind for Rebind {
    fn swarm(&self) -> Kind {
        Kind::Rebind
    }

    fn host(&self) -> Host {
        self.host
    }

    fn actor(&self) -> Actor {
        Actor::World
    }
}
