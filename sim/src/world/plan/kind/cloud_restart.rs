//! `kind = "cloud_restart"`: the cloud's service restarts under the box's uplink.

use serde::{Deserialize, Serialize};

use super::{Actor, Draw, Kind, TimedKind};
use crate::world::host::Host;

/// The cloud's service restarts (issue 15 section 2): it closes the box's uplink
/// with 1012 (service restart, RFC 6455 section 7.4.1), and the box reconnects
/// with the ticket it holds. With `loses_tickets` the restart also loses the
/// cloud's TLS session store, so that ticket no longer resumes: the box's 0-RTT
/// early data is rejected (quinn-proto resets the streams opened in 0-RTT) and
/// the target must go again over 1-RTT. Drawn both ways in turn.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct CloudRestart {
    pub host: Host,
    pub loses_tickets: bool,
}

/// The close the restart sends the box.
pub const SERVICE_RESTART: u16 = 1012;

impl CloudRestart {
    /// This kind from a drawn case's values: `extra` odd loses the tickets.
    pub fn drawn(d: &Draw) -> Self {
        CloudRestart { host: Host::Box, loses_tickets: d.extra % 2 == 1 }
    }
}

impl TimedKind for CloudRestart {
    fn swarm(&self) -> Kind {
        Kind::CloudRestart
    }

    fn host(&self) -> Host {
        self.host
    }

    fn actor(&self) -> Actor {
        Actor::Service
    }

    fn only_host(&self) -> Option<Host> {
        Some(Host::Box)
    }
}
