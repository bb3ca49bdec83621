//! What the journal records of each NAT (`crate::world::net::nat::Nat`): how it
//! was set up, and every packet it was asked to pass with what it decided. The
//! lockstep reference is `ftw_properties::reference::nat`, written from
//! docs/network-and-tcp.md, RFC 4787 (UDP) and RFC 5382 (TCP).
//!
//! Times are the NAT's own `now` to the nanosecond (the journal entry's
//! milliseconds are too coarse to judge an idle timeout at its edge).

use std::net::{IpAddr, SocketAddr};
use std::time::Duration;

use crate::world::net::nat::{NatDrop, Proto};

/// One NAT's input and decision.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum NatStep {
    /// The NAT exists, with its public address and its idle timeouts.
    Made { public_ip: IpAddr, udp_idle: Duration, tcp_established_idle: Duration, tcp_transitory_idle: Duration },
    /// A packet from the inside host's `inside` to `remote`: sent from `public`,
    /// through a mapping made for it (`created`) or an existing one.
    Out { at: Duration, proto: Proto, inside: SocketAddr, remote: SocketAddr, closing: bool, public: SocketAddr, created: bool, after: Seen },
    /// A packet from `remote` to the NAT's `public_port`: let in to the inside
    /// address, or dropped and why.
    In { at: Duration, proto: Proto, public_port: u16, remote: SocketAddr, closing: bool, passed: Result<SocketAddr, NatDrop>, after: Option<Seen> },
    /// Every mapping of `inside_ip` got a new outside port: (table, inside
    /// address, old port, new port) for each flow the NAT moved.
    Rebind { at: Duration, inside_ip: IpAddr, moved: Vec<(Proto, SocketAddr, u16, u16)> },
    /// The host `inside_ip` left this NAT's network: its mappings are gone.
    Forget { at: Duration, inside_ip: IpAddr },
}

/// The state of the mapping a packet used, after the NAT passed it: its outside
/// port and (TCP) whether the NAT holds the flow as established.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Seen {
    pub public_port: u16,
    pub established: bool,
}
