//! A NAT between an inside host and the internet: one mapping per inside
//! address and port, endpoint-dependent inbound filtering, idle expiry, and a
//! forced rebind (same inside flow, new outside port). The inside host never
//! sees any of it: its socket and addresses do not change.
//!
//! Expiry is evaluated when a datagram meets the NAT (a mapping idle for longer
//! than the timeout is gone by then), which is exactly what a timer would have
//! done, without a timer that would stop the world from skipping idle time.

use std::collections::{BTreeMap, BTreeSet};
use std::net::{IpAddr, SocketAddr};
use std::time::Duration;

/// First outside port handed out (Linux's ephemeral range starts here too).
pub const FIRST_PUBLIC_PORT: u16 = 49152;

#[derive(Clone, Debug)]
struct Mapping {
    public_port: u16,
    last_used: Duration,
    remotes: BTreeSet<SocketAddr>,
}

/// Why a datagram did not pass.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum NatDrop {
    /// Inbound to an outside port with no mapping (never made, expired or rebound).
    NoMapping,
    /// Inbound from a remote the mapping never sent to.
    Filtered,
}

/// One NAT.
#[derive(Clone, Debug)]
pub struct Nat {
    pub name: String,
    pub public_ip: IpAddr,
    pub idle_timeout: Duration,
    next_port: u16,
    by_inside: BTreeMap<SocketAddr, Mapping>,
    by_port: BTreeMap<u16, SocketAddr>,
    pub created: u64,
    pub expired: u64,
    pub rebinds: u64,
}

impl Nat {
    pub fn new(name: &str, public_ip: IpAddr, idle_timeout: Duration) -> Self {
        Nat {
            name: name.to_string(),
            public_ip,
            idle_timeout,
            next_port: FIRST_PUBLIC_PORT,
            by_inside: BTreeMap::new(),
            by_port: BTreeMap::new(),
            created: 0,
            expired: 0,
            rebinds: 0,
        }
    }

    fn alloc_port(&mut self) -> u16 {
        let p = self.next_port;
        self.next_port = if self.next_port == u16::MAX { FIRST_PUBLIC_PORT } else { self.next_port + 1 };
        p
    }

    fn expire(&mut self, inside: SocketAddr, now: Duration) -> bool {
        let stale = matches!(self.by_inside.get(&inside), Some(m) if now.saturating_sub(m.last_used) > self.idle_timeout);
        if stale {
            let m = self.by_inside.remove(&inside).expect("present");
            self.by_port.remove(&m.public_port);
            self.expired += 1;
        }
        stale
    }

    /// Outbound: the outside source address for `inside` talking to `remote`.
    /// Returns the address and whether a new mapping was made.
    pub fn outbound(&mut self, now: Duration, inside: SocketAddr, remote: SocketAddr) -> (SocketAddr, bool) {
        self.expire(inside, now);
        let mut created = false;
        if !self.by_inside.contains_key(&inside) {
            let port = self.alloc_port();
            self.by_inside.insert(inside, Mapping { public_port: port, last_used: now, remotes: BTreeSet::new() });
            self.by_port.insert(port, inside);
            self.created += 1;
            created = true;
        }
        let m = self.by_inside.get_mut(&inside).expect("mapping");
        m.last_used = now;
        m.remotes.insert(remote);
        (SocketAddr::new(self.public_ip, m.public_port), created)
    }

    /// Inbound to `public_port` from `remote`: the inside address, or why not.
    pub fn inbound(&mut self, now: Duration, public_port: u16, remote: SocketAddr) -> Result<SocketAddr, NatDrop> {
        let inside = *self.by_port.get(&public_port).ok_or(NatDrop::NoMapping)?;
        if self.expire(inside, now) {
            return Err(NatDrop::NoMapping);
        }
        let m = self.by_inside.get_mut(&inside).expect("mapping");
        if !m.remotes.contains(&remote) {
            return Err(NatDrop::Filtered);
        }
        m.last_used = now;
        Ok(inside)
    }

    /// Forced rebind: every mapping of `inside_ip` gets a new outside port.
    pub fn rebind(&mut self, inside_ip: IpAddr) -> usize {
        let flows: Vec<SocketAddr> = self.by_inside.keys().filter(|a| a.ip() == inside_ip).copied().collect();
        for f in &flows {
            let old = self.by_inside[f].public_port;
            self.by_port.remove(&old);
            let port = self.alloc_port();
            self.by_inside.get_mut(f).expect("mapping").public_port = port;
            self.by_port.insert(port, *f);
        }
        self.rebinds += 1;
        flows.len()
    }

    /// Forget every mapping of `inside_ip` (the host left this network).
    pub fn forget(&mut self, inside_ip: IpAddr) {
        let flows: Vec<SocketAddr> = self.by_inside.keys().filter(|a| a.ip() == inside_ip).copied().collect();
        for f in flows {
            let m = self.by_inside.remove(&f).expect("mapping");
            self.by_port.remove(&m.public_port);
        }
    }

    /// Open mappings.
    pub fn mappings(&self) -> usize {
        self.by_inside.len()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn a(s: &str) -> SocketAddr {
        s.parse().unwrap()
    }

    #[test]
    fn mapping_filter_expiry_rebind() {
        let mut nat = Nat::new("wifi", "192.0.2.1".parse().unwrap(), Duration::from_secs(30));
        let inside = a("10.0.1.2:5000");
        let cloud = a("203.0.113.10:443");
        let (out, created) = nat.outbound(Duration::ZERO, inside, cloud);
        assert!(created);
        assert_eq!(out, a("192.0.2.1:49152"));
        assert_eq!(nat.inbound(Duration::from_secs(1), 49152, cloud), Ok(inside));
        assert_eq!(nat.inbound(Duration::from_secs(1), 49152, a("198.51.100.9:443")), Err(NatDrop::Filtered));
        // 15 s keepalives hold it for minutes.
        for k in 1..=20u64 {
            let (o, c) = nat.outbound(Duration::from_secs(15 * k), inside, cloud);
            assert_eq!((o, c), (out, false));
        }
        // Idle past 30 s: gone.
        assert_eq!(nat.inbound(Duration::from_secs(300 + 31), 49152, cloud), Err(NatDrop::NoMapping));
        let (o2, c2) = nat.outbound(Duration::from_secs(400), inside, cloud);
        assert!(c2);
        assert_ne!(o2, out);
        // Rebind: same inside flow, new outside port; old port dead.
        assert_eq!(nat.rebind(inside.ip()), 1);
        let (o3, c3) = nat.outbound(Duration::from_secs(401), inside, cloud);
        assert!(!c3);
        assert_ne!(o3.port(), o2.port());
        assert_eq!(nat.inbound(Duration::from_secs(401), o2.port(), cloud), Err(NatDrop::NoMapping));
        assert_eq!(nat.expired, 1);
    }
}
