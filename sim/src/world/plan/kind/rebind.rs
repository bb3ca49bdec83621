//! `kind = "rebind"`: The host's NAT rebinds (same inside flow, new outside port).

use serde::{Deserialize, Serialize};

use super::{Actor, TimedKind};
use crate::world::host::Host;

/// The host's NAT rebinds (same inside flow, new outside port).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Rebind {
    pub host: Host,
}

impl TimedKind for Rebind {
    fn host(&self) -> Host {
        self.host
    }

    fn actor(&self) -> Actor {
        Actor::World
    }
}
