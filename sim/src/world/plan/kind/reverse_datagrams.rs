//! `kind = "reverse_datagrams"`: The relay holds every phone-bound datagram for `for_ms`, then sends

use serde::{Deserialize, Serialize};

use super::{Actor, Draw, Kind, TimedKind};
use crate::world::host::Host;

/// The relay holds every phone-bound datagram for `for_ms`, then sends
/// them newest first (a reordering relay).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ReverseDatagrams {
    pub host: Host,
    pub for_ms: u64,
}

impl ReverseDatagrams {
    /// This kind from a drawn case's values.
    /// Drawn with a table change (swarm kind `LateTable`): 1 to 6 s of reversed datagrams.
    pub fn drawn(d: &Draw) -> Self {
        ReverseDatagrams { host: Host::Phone, for_ms: 1_000 + d.extra as u64 * 40 }
    }
}

impl TimedKind for ReverseDatagrams {
    fn swarm(&self) -> Kind {
        Kind::LateTable
    }

    fn host(&self) -> Host {
        self.host
    }

    fn actor(&self) -> Actor {
        Actor::Relay
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
