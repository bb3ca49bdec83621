//! `kind = "udp_blocked"`: UDP dropped on the host's leg for `for_ms` (TCP passes).

use serde::{Deserialize, Serialize};

use super::Kind;
use super::{Actor, Draw, TimedKind};
use crate::world::host::Host;
use crate::world::net::fault::Outage;

/// The shortest drawn path drop: past QUIC's 30 s idle timeout (sim/crypto).
pub const PATH_DROP_MIN_MS: u64 = 31_000;
/// The longest drawn path drop.
pub const PATH_DROP_MAX_MS: u64 = 60_000;

/// UDP dropped on the host's leg for `for_ms` (TCP passes).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct UdpBlocked {
    pub host: Host,
    pub for_ms: u64,
}

impl UdpBlocked {
    /// This kind from a drawn case's values.
    pub fn drawn(d: &Draw) -> Self {
        UdpBlocked { host: d.host, for_ms: d.for_ms }
    }

    /// A path drop (swarm kind `PathDrop`): the phone's UDP blocked for 31 to
    /// 60 s, past QUIC's idle timeout. UDP blocked, not a blackhole: the
    /// WebSocket that follows the drop must be able to carry the session.
    pub fn drawn_path_drop(d: &Draw) -> Self {
        let span = PATH_DROP_MAX_MS - PATH_DROP_MIN_MS;
        UdpBlocked { host: Host::Phone, for_ms: PATH_DROP_MIN_MS + (d.extra as u64 - 1) * span / 127 / 100 * 100 }
    }
}

impl TimedKind for UdpBlocked {
    fn swarm(&self) -> Kind {
        if self.for_ms >= PATH_DROP_MIN_MS {
            Kind::PathDrop
        } else {
            Kind::UdpBlocked
        }
    }

    fn host(&self) -> Host {
        self.host
    }

    fn actor(&self) -> Actor {
        Actor::Leg
    }

    fn lasts_ms(&self) -> u64 {
        self.for_ms
    }

    fn outage(&self) -> Option<(Outage, &'static str)> {
        Some((Outage::UdpBlocked, "UDP blocked"))
    }

    fn whole_fields(&self) -> Vec<(&'static str, u64)> {
        vec![("for_ms", self.for_ms)]
    }

    fn ranges(&self) -> &'static [super::FieldRange] {
        super::FOR_A_DAY
    }
}
