//! What the journal records of the reactor fleet (`ftw_fleet::Fleet`, SPEC
//! section 5), as the cloud's door (`crate::drive::fleet`) drives it: its
//! configuration, every input (datagrams reaching the shared port with the
//! kernel's reuseport choice, ids minted, connections opened, path reports,
//! closes, sweep timers) and every decision (the socket a datagram lands on and
//! whether it was queued, each read: delivered, forwarded, dropped or stale,
//! pins claimed and released, the counters).
//!
//! Datagram bytes are recorded as their length, their first bytes (enough to
//! tell the header form and read a short header's id) and a digest, so a
//! reference can tell whether the bytes a reactor read are the bytes that came.

use std::net::SocketAddr;

pub use ftw_fleet::{ConnectionHandle, Counters, FleetEvent, PinReleaseReason, ReactorId, Routing, SocketId, Via};

/// Bytes of a datagram's start kept in the journal: the first byte and a short
/// header's 8-byte destination id.
pub const HEAD_BYTES: usize = 9;

/// A datagram as the journal keeps it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Bytes {
    pub len: usize,
    /// The first [`HEAD_BYTES`] bytes (fewer if the datagram is shorter).
    pub head: Vec<u8>,
    /// 64-bit FNV-1a of all the bytes.
    pub digest: u64,
}

impl Bytes {
    pub fn of(bytes: &[u8]) -> Self {
        let mut h: u64 = 0xcbf2_9ce4_8422_2325;
        for b in bytes {
            h ^= u64::from(*b);
            h = h.wrapping_mul(0x0100_0000_01b3);
        }
        Bytes { len: bytes.len(), head: bytes[..bytes.len().min(HEAD_BYTES)].to_vec(), digest: h }
    }
}

/// An input or a decision of the fleet.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum FleetStep {
    /// The fleet was built with these numbers (inputs the reference checks
    /// against the SPEC's).
    Config { reactors: usize, routing: Routing, pins_per_reactor_max: usize, pin_sweep_ms: u64, recv_buffer_bytes: usize, forward_queue_len_max: usize },
    /// Reactor `reactor`'s endpoint minted `cid` (it holds it from now on).
    Minted { reactor: ReactorId, cid: Vec<u8> },
    /// A datagram from `src` reached the shared port. Input: the bytes and
    /// `hashed`, the reactor the kernel's reuseport hash picks for `src` (the
    /// environment's choice). Decision: the datagram's number, the socket the
    /// fleet's kernel put it on and whether that socket's buffer took it.
    Arrival { src: SocketAddr, bytes: Bytes, hashed: ReactorId, datagram: u64, socket: SocketId, queued: bool },
    /// Decision: `reactor`'s endpoint is handed datagram `datagram`'s bytes.
    Delivery { datagram: u64, reactor: ReactorId, src: SocketAddr, bytes: Bytes, via: Via },
    /// Decision: one of the fleet's events (forwards, drops, stale, pins).
    Event(FleetEvent),
    /// Input: `reactor`'s endpoint accepted connection `conn` from `peer`.
    Opened { reactor: ReactorId, conn: ConnectionHandle, peer: SocketAddr },
    /// Input: `reactor`'s connection `conn` handled a datagram from `addr`.
    PathReport { reactor: ReactorId, conn: ConnectionHandle, addr: SocketAddr },
    /// Input: `reactor`'s connection `conn` ended.
    Closed { reactor: ReactorId, conn: ConnectionHandle },
    /// Input: the sweep timer fired (`Fleet::handle_timeout`).
    Timeout,
    /// Decision: every reactor's counters, recorded whenever one changed.
    Counters(Vec<Counters>),
}
