//! `kind = "sleep"`: The phone sleeps: its wall clock jumps `for_ms` and it reconnects.

use serde::{Deserialize, Serialize};

use super::{Actor, TimedKind};
use crate::world::host::Host;

/// The phone sleeps: its wall clock jumps `for_ms` and it reconnects.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Sleep {
    pub host: Host,
    pub for_ms: u64,
}

impl TimedKind for Sleep {
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
