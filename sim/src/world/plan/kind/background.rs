//! `kind = "background"`: The phone's app goes to the background for `for_ms` (`host` = "phone").

use serde::{Deserialize, Serialize};

use super::{Actor, TimedKind};
use crate::world::host::Host;

/// The phone's app goes to the background for `for_ms` (`host` = "phone").
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Background {
    pub host: Host,
    pub for_ms: u64,
}

impl TimedKind for Background {
    fn host(&self) -> Host {
        self.host
    }

    fn actor(&self) -> Actor {
        Actor::AppLife
    }

    fn only_host(&self) -> Option<Host> {
        Some(Host::Phone)
    }

    fn lasts_ms(&self) -> u64 {
        self.for_ms
    }
}
