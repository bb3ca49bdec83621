//! What the network keeps for the journal while a run keeps one: each datagram
//! that met a leg and what came out, each let go after a hold, and each one's
//! service at the host that received it. The world moves it into the journal at
//! the run's end (`crate::world::journal`, whose imports run one way down to
//! these types; the network never imports the journal).

use std::net::SocketAddr;
use std::time::Duration;

/// One thing the network did, at a time, on a host's leg or at a host.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum NetEvent {
    /// One datagram met `host`'s leg (`up`: from the host).
    Crossed { up: bool, sent: Sent, refused: bool, out: Vec<Out> },
    /// Datagrams a piece of the leg held were let go on their own.
    Released { up: bool, out: Vec<Out> },
    /// A datagram reached the host at `arrival`; the host had it ready at `ready`.
    Served { arrival: Duration, tcp: bool, ready: Duration },
}

/// A datagram as it met the leg.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Sent {
    pub src: SocketAddr,
    /// A tunnelled TCP segment (an IP packet of its own), not a UDP datagram.
    pub tcp: bool,
    /// Its IP packet's length (a UDP datagram's payload plus 28 bytes).
    pub ip_len: usize,
    pub hash: u64,
}

/// A datagram the leg put out: its delay from `at`, its bytes' hash, its source.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Out {
    pub delay: Duration,
    pub hash: u64,
    pub src: SocketAddr,
}

/// The bytes' hash the link steps carry (FNV-1a: cheap, and only compared
/// within one run).
pub fn hash(bytes: &[u8]) -> u64 {
    bytes.iter().fold(0xcbf2_9ce4_8422_2325u64, |h, b| (h ^ u64::from(*b)).wrapping_mul(0x0100_0000_01b3))
}
