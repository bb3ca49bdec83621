//! `kind = "table_change"`: The box's site changes its table (`host` = "box": a battery is added, srcRev + 1).

use serde::{Deserialize, Serialize};

use super::{Actor, Draw, Kind, TimedKind};
use crate::world::host::Host;

/// The box's site changes its table (`host` = "box": a battery is added, srcRev + 1).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct TableChange {
    pub host: Host,
}

impl TableChange {
    /// This kind from a drawn case's values.
    /// Drawn with reversed datagrams (swarm kind `LateTable`).
    pub fn drawn(_: &Draw) -> Self {
        TableChange { host: Host::Box }
    }
}

impl TimedKind for TableChange {
    fn swarm(&self) -> Kind {
        Kind::LateTable
    }

    fn host(&self) -> Host {
        self.host
    }

    fn actor(&self) -> Actor {
        Actor::Site
    }

    fn only_host(&self) -> Option<Host> {
        Some(Host::Box)
    }
}
