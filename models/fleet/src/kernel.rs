//! The kernel's side of a reuseport group: which socket a datagram for the shared port lands on.
//!
//! Lookup order, as in Linux's UDP socket lookup: a connected socket whose remote address is
//! the sender (a *pin*) is a more specific match than the wildcard binds and wins outright
//! (seed 002: "the kernel's lookup takes the narrowest match before it ever reaches the
//! reuseport hash"). Otherwise the reuseport group answers: under [`Routing::Forward`] by a
//! hash of the sender's address and port; under [`Routing::KernelFilter`] a classic-BPF program
//! answers a short header with `cid[0] % N` and leaves everything else to the hash.
//!
//! The hash (chosen here, fixed and documented so a run replays): 32-bit FNV-1a over
//! `salt (8 bytes, little endian) || family (4 or 6) || address octets || port (big endian)`,
//! scaled to `0..N` as the kernel's `reciprocal_scale` does: `(hash * N) >> 32`. Linux uses
//! jhash with a boot-time random secret; `salt` plays that secret's part and comes from the
//! caller (0 by default).

use std::collections::BTreeMap;
use std::fmt;
use std::net::{IpAddr, SocketAddr};

use crate::consts::LOCAL_CID_LEN;
use crate::packet::{dst_cid, header_form, owner_of, HeaderForm};
use crate::{ReactorId, Routing};

/// A UDP socket of the fleet: each reactor's wildcard bind in the reuseport group, or a pin.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum SocketId {
    /// The reactor's member of the reuseport group: receives by hash, and sends every
    /// datagram of that reactor (pins only receive).
    Listener(ReactorId),
    /// A socket of `reactor` bound to the shared port and `connect()`ed to `peer`.
    Pin { reactor: ReactorId, peer: SocketAddr },
}

impl SocketId {
    /// The reactor that reads this socket.
    pub fn reactor(&self) -> ReactorId {
        match *self {
            SocketId::Listener(r) | SocketId::Pin { reactor: r, .. } => r,
        }
    }
}

impl fmt::Display for SocketId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            SocketId::Listener(r) => write!(f, "{r}/listener"),
            SocketId::Pin { reactor, peer } => write!(f, "{reactor}/pin->{peer}"),
        }
    }
}

/// The 32-bit FNV-1a hash of `salt` and the sender's address and port (see the module doc).
pub fn reuseport_hash(src: SocketAddr, salt: u64) -> u32 {
    const OFFSET: u32 = 0x811c_9dc5;
    const PRIME: u32 = 0x0100_0193;
    let mut h = OFFSET;
    let mut eat = |bytes: &[u8]| {
        for b in bytes {
            h ^= u32::from(*b);
            h = h.wrapping_mul(PRIME);
        }
    };
    eat(&salt.to_le_bytes());
    match src.ip() {
        IpAddr::V4(ip) => {
            eat(&[4]);
            eat(&ip.octets());
        }
        IpAddr::V6(ip) => {
            eat(&[6]);
            eat(&ip.octets());
        }
    }
    eat(&src.port().to_be_bytes());
    h
}

/// `(hash * n) >> 32`: Linux's `reciprocal_scale`, a hash onto `0..n`.
pub fn reciprocal_scale(hash: u32, n: usize) -> usize {
    assert!(n >= 1);
    ((u64::from(hash) * n as u64) >> 32) as usize
}

/// The kernel model: the reuseport group of `reactor_count` sockets plus the pins.
#[derive(Debug, Clone)]
pub struct Kernel {
    reactor_count: usize,
    routing: Routing,
    salt: u64,
    /// Connected sockets by remote address.
    pins: BTreeMap<SocketAddr, ReactorId>,
}

impl Kernel {
    /// A group of `reactor_count` wildcard binds, no pins.
    pub fn new(reactor_count: usize, routing: Routing, salt: u64) -> Self {
        assert!(reactor_count >= 1);
        Self { reactor_count, routing, salt, pins: BTreeMap::new() }
    }

    /// The reactor the reuseport hash picks for `src`.
    pub fn hash_reactor(&self, src: SocketAddr) -> ReactorId {
        ReactorId::new(reciprocal_scale(reuseport_hash(src, self.salt), self.reactor_count))
    }

    /// The socket a datagram from `src` carrying `bytes` lands on.
    pub fn select(&self, src: SocketAddr, bytes: &[u8]) -> SocketId {
        if let Some(&reactor) = self.pins.get(&src) {
            return SocketId::Pin { reactor, peer: src };
        }
        if self.routing == Routing::KernelFilter && header_form(bytes) == Some(HeaderForm::Short) {
            if let Some(owner) = dst_cid(bytes, LOCAL_CID_LEN).and_then(|c| owner_of(c, self.reactor_count)) {
                return SocketId::Listener(ReactorId::new(owner));
            }
        }
        SocketId::Listener(self.hash_reactor(src))
    }

    /// Connects a socket of `reactor` to `peer`. Fails (returns false) if another socket is
    /// already connected to `peer`: the bind is refused and the caller swallows it (seed 002).
    pub fn pin(&mut self, peer: SocketAddr, reactor: ReactorId) -> bool {
        if self.pins.contains_key(&peer) {
            return false;
        }
        self.pins.insert(peer, reactor);
        true
    }

    /// Closes the socket connected to `peer`, which must be `reactor`'s.
    pub fn unpin(&mut self, peer: SocketAddr, reactor: ReactorId) {
        let was = self.pins.remove(&peer);
        assert_eq!(was, Some(reactor), "unpin of {peer} by {reactor} that does not hold it");
    }

    /// The reactor holding a pin toward `peer`, if any.
    pub fn pinned(&self, peer: SocketAddr) -> Option<ReactorId> {
        self.pins.get(&peer).copied()
    }

    /// Pins open across the fleet.
    pub fn pins_len(&self) -> usize {
        self.pins.len()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::packet::{build_long, build_short};

    fn addr(s: &str) -> SocketAddr {
        s.parse().unwrap()
    }

    #[test]
    fn hash_is_fixed_and_spreads() {
        // A pinned value (checked against an independent FNV-1a): the hash is part of the
        // replay contract.
        let a = addr("10.0.0.1:4433");
        assert_eq!(reuseport_hash(a, 0), 0x73f5_a95c);
        assert_eq!(reuseport_hash(a, 0), reuseport_hash(a, 0));
        assert_ne!(reuseport_hash(a, 0), reuseport_hash(a, 1));
        assert_ne!(reuseport_hash(a, 0), reuseport_hash(addr("10.0.0.1:4434"), 0));
        let k = Kernel::new(4, Routing::Forward, 0);
        let mut seen = [0usize; 4];
        for port in 1000..1400u16 {
            seen[k.hash_reactor(SocketAddr::new(a.ip(), port)).index()] += 1;
        }
        for n in seen {
            assert!(n > 60, "hash spreads over reactors: {seen:?}");
        }
    }

    #[test]
    fn a_pin_wins_and_kernel_filter_routes_short_headers_by_byte_zero() {
        let src = addr("192.0.2.7:5000");
        let mut k = Kernel::new(4, Routing::Forward, 0);
        let hashed = k.hash_reactor(src);
        let other = ReactorId::new((hashed.index() + 1) % 4);
        let short = build_short(&[other.index() as u8, 1, 2, 3, 4, 5, 6, 7], b"x");
        assert_eq!(k.select(src, &short), SocketId::Listener(hashed));
        assert!(k.pin(src, other));
        assert!(!k.pin(src, hashed), "one connected socket per peer");
        assert_eq!(k.select(src, &short), SocketId::Pin { reactor: other, peer: src });
        k.unpin(src, other);
        assert_eq!(k.select(src, &short), SocketId::Listener(hashed));

        let kf = Kernel::new(4, Routing::KernelFilter, 0);
        assert_eq!(kf.select(src, &short), SocketId::Listener(other));
        // Long headers still go by hash, whatever their id says.
        let long = build_long(&[other.index() as u8; 8], &[], b"x");
        assert_eq!(kf.select(src, &long), SocketId::Listener(hashed));
    }
}
