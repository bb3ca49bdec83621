//! `kind = "background"`: The phone's app goes to the background for `for_ms` (`host` = "phone").

use serde::{Deserialize, Serialize};

use super::{Actor, Draw, Kind, TimedKind};
use crate::world::host::Host;

/// The phone's app goes to the background for `for_ms` (`host` = "phone").
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Background {
    pub host: Host,
    pub for_ms: u64,
}

impl Background {
    /// This kind from a drawn case's values.
    /// 0.5 to 64 s in the background.
    pub fn drawn(d: &Draw) -> Self {
        Background { host: Host::Phone, for_ms: d.extra as u64 * 500 }
    }
}

impl TimedKind for Background {
    fn swarm(&self) -> Kind {
        Kind::Background
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

    fn lasts_ms(&self) -> u64 {
        self.for_ms
    }

    fn whole_fields(&self) -> Vec<(&'static str, u64)> {
        vec![("for_ms", self.for_ms)]
    }

    fn ranges(&self) -> &'static [super::FieldRange] {
        super::FOR_A_DAY
    }
}
