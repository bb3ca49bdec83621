//! What the journal records of TCP (`ftw-tcp` over the vendored smoltcp): the run's
//! flavour, and every decision of each connection's retransmission timer (the
//! smoltcp patch's `rto_log`: each RTT sample with the estimator after it, each
//! time the timer is started, each time it expires). The lockstep reference is
//! `ftw_properties::reference::tcp`, written from RFC 6298 and the Linux figures
//! `sim/tcp/README.md` names.

use std::net::SocketAddr;

pub use smoltcp::socket::tcp::rto_log::{RtoKind, Seg};

use crate::world::plan::TcpPlan;

/// The flavour, or one timer decision of the connection `local` -> `remote`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum TcpStep {
    /// Every host's TCP in this run (the plan's `tcp`).
    Flavour(TcpPlan),
    /// One decision, at `at_ms` of the sockets' clock (the run's time).
    Rto { at_ms: i64, local: SocketAddr, remote: SocketAddr, kind: RtoKind },
}

/// The smoltcp log of this run, as journal steps (the host is the local end's address).
pub(crate) fn from_log(events: Vec<smoltcp::socket::tcp::rto_log::RtoEvent>) -> Vec<super::Entry> {
    events
        .into_iter()
        .map(|e| {
            let (local, remote) = (SocketAddr::from(e.local), SocketAddr::from(e.remote));
            let step = super::Step::Tcp(TcpStep::Rto { at_ms: e.at_ms, local, remote, kind: e.kind });
            super::Entry { t_ms: e.at_ms.max(0) as u64, host: local.ip().to_string(), step }
        })
        .collect()
}
