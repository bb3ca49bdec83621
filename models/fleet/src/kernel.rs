//! The kernel's side of a reuseport group: which socket a datagram for the shared port lands on.
//!
//! Lookup order, as in Linux's UDP socket lookup: a connected socket whose remote address is
//! the sender (a *pin*) is a more specific match than the wildcard binds and wins outright
//! (seed 002: "the kernel's lookup takes the narrowest match before it ever reaches the
//! reuseport hash"). Otherwise the reuseport group answers: under [`Routing::Forward`] by a
//! hash of the sender's address and port; under [`Routing::KernelFilter`] a classic-BPF program
//! answers a short header with `cid[0] % N` and leaves everything else to the hash.
//!
//! The hash is Linux's for a UDP reuseport group: `udp_ehashfn` gives Bob Jenkins'
//! `jhash_3words(local address, sender's address, local port << 16 | sender's port, secret)`
//! (include/linux/jhash.h: each word plus `0xdeadbeef`, the secret added to the third, then
//! lookup3's final mix), scaled to `0..N` as `reciprocal_scale` does: `(hash * N) >> 32`.
//! The group's local address and port are the same for every datagram it receives, so here
//! they are 0 and the secret carries them; `salt`'s low 32 bits play the boot-time random
//! secret and come from the caller (0 by default). An IPv6 sender's address is folded to one
//! word by XOR of its four (chosen here; Linux hashes the 16 bytes first). Well mixed, as
//! Linux's is: a NAT rebind to the next port lands on another of N reactors with probability
//! (N - 1) / N. (The FNV-1a used before 2026-12-06 kept a rebind to the next port on the same
//! reactor 94 % of the time with four reactors, against Linux's 25 %; docs/findings.md.)

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

/// The reuseport hash of the sender's address and port under the secret `salt` (see the
/// module doc): `jhash_3words(0, address, port, secret)`.
pub fn reuseport_hash(src: SocketAddr, salt: u64) -> u32 {
    let address = match src.ip() {
        IpAddr::V4(ip) => u32::from(ip),
        IpAddr::V6(ip) => ip.octets().chunks(4).map(|w| u32::from_be_bytes([w[0], w[1], w[2], w[3]])).fold(0, |x, w| x ^ w),
    };
    jhash_3words(0, address, u32::from(src.port()), salt as u32)
}

/// Bob Jenkins' `jhash_3words` (lookup3, public domain), as Linux's include/linux/jhash.h has it:
/// the three words offset, then lookup3's final mix.
fn jhash_3words(a: u32, b: u32, c: u32, initval: u32) -> u32 {
    const JHASH_INITVAL: u32 = 0xdead_beef;
    let (a, b, c) = (a.wrapping_add(JHASH_INITVAL), b.wrapping_add(JHASH_INITVAL), c.wrapping_add(initval));
    let c = mix(c, b, 14);
    let a = mix(a, c, 11);
    let b = mix(b, a, 25);
    let c = mix(c, b, 16);
    let a = mix(a, c, 4);
    let b = mix(b, a, 14);
    mix(c, b, 24)
}

/// One step of lookup3's final mix: `x ^= y; x -= rol32(y, r)`.
fn mix(x: u32, y: u32, r: u32) -> u32 {
    (x ^ y).wrapping_sub(y.rotate_left(r))
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
    /// Whether the hash reads the sender's port (it does; false only when a test
    /// plants `FleetBugs::hash_ignores_port`).
    hash_ports: bool,
    /// Connected sockets by remote address.
    pins: BTreeMap<SocketAddr, ReactorId>,
}

impl Kernel {
    /// A group of `reactor_count` wildcard binds, no pins.
    pub fn new(reactor_count: usize, routing: Routing, salt: u64) -> Self {
        assert!(reactor_count >= 1);
        Self { reactor_count, routing, salt, hash_ports: true, pins: BTreeMap::new() }
    }

    /// The same kernel, its hash reading the sender's port or (a planted bug) not.
    pub fn hashing_ports(self, hash_ports: bool) -> Self {
        Self { hash_ports, ..self }
    }

    /// The reactor the reuseport hash picks for `src`.
    pub fn hash_reactor(&self, src: SocketAddr) -> ReactorId {
        let src = if self.hash_ports { src } else { SocketAddr::new(src.ip(), 0) };
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
        // A pinned value (checked against an independent jhash_3words): the hash is part of
        // the replay contract.
        let a = addr("10.0.0.1:4433");
        assert_eq!(reuseport_hash(a, 0), 0x0250_5430);
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

    /// SPEC section 5: "A NAT rebind ... re-hashes the client." The NAT hands out the next
    /// port, and a well-mixed hash (Linux's jhash) sends it to another of four reactors three
    /// times in four; the FNV-1a this replaced kept it on the same reactor 94 % of the time.
    #[test]
    fn a_rebind_to_the_next_port_is_hashed_afresh() {
        for salt in [0, 1, 0x5eed_0000_0000_0001] {
            let k = Kernel::new(4, Routing::Forward, salt);
            let at = |port: u16| k.hash_reactor(SocketAddr::new(addr("192.0.2.2:0").ip(), port));
            let moved = (49152..53152u16).filter(|&p| at(p) != at(p + 1)).count();
            assert!((2700..=3300).contains(&moved), "salt {salt}: {moved} of 4000 rebinds changed reactor");
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
