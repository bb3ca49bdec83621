//! A NAT between an inside host and the internet: one mapping per inside
//! address and port (UDP and TCP each in their own table), endpoint-dependent
//! inbound filtering, idle expiry, and a forced rebind (same inside flow, new
//! outside port). The inside host never sees any of it: its socket and
//! addresses do not change.
//!
//! TCP is the userspace TCP's IPv4 packets tunnelled in UDP between port
//! [`super::IP_TUNNEL_PORT`] on both hosts; the network rewrites the inner IPv4
//! source (outbound) or destination (inbound) address and TCP port, with both
//! checksums, as a real NAT would ([`rewrite_tcp`]). TCP mappings have their own
//! idle timeouts (RFC 5382 REQ-5, see the constants): a mapping is
//! *transitory* until a packet comes back in (the SYN-ACK) and again once a FIN
//! or RST is seen either way, *established* in between. A rebind gives a TCP
//! flow a new outside port too: the remote then sees segments from an unknown
//! port and answers with an RST, so the connection breaks, as it does behind a
//! real NAT that loses its state.
//!
//! Expiry is evaluated when a datagram meets the NAT (a mapping idle for longer
//! than the timeout is gone by then), which is exactly what a timer would have
//! done, without a timer that would stop the world from skipping idle time.

use std::collections::{BTreeMap, BTreeSet};
use std::net::{IpAddr, Ipv4Addr, SocketAddr, SocketAddrV4};
use std::time::Duration;

use smoltcp::wire::{IpAddress, IpProtocol, Ipv4Packet, TcpPacket};

use crate::world::plant::{self, Bug};

/// First outside port handed out (Linux's ephemeral range starts here too).
pub const FIRST_PUBLIC_PORT: u16 = 49152;

/// Idle timeout of an established TCP mapping: RFC 5382 REQ-5 ("MUST NOT be less
/// than 2 hours and 4 minutes"). Linux conntrack keeps an established flow 5 days
/// (`nf_conntrack_tcp_timeout_established = 432000`); consumer NATs sit between.
/// Either way far past anything a WebSocket pinging every 15 s needs.
pub const TCP_ESTABLISHED_IDLE_TIMEOUT: Duration = Duration::from_secs(2 * 3600 + 4 * 60);

/// Idle timeout of a transitory TCP mapping (only a SYN seen, or after a FIN or
/// RST): RFC 5382 REQ-5's 4 minutes (Linux: `syn_sent` 120 s, `close` 10 s,
/// `time_wait` 120 s).
pub const TCP_TRANSITORY_IDLE_TIMEOUT: Duration = Duration::from_secs(4 * 60);

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

/// Which table a flow lives in.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum Proto {
    Udp,
    Tcp,
}

#[derive(Clone, Debug)]
struct Mapping {
    public_port: u16,
    last_used: Duration,
    remotes: BTreeSet<SocketAddr>,
    /// TCP: a packet came back in.
    answered: bool,
    /// TCP: a FIN or RST passed, either way: transitory until the mapping goes
    /// (RFC 5382 REQ-5), whatever passes after it.
    closing: bool,
}

impl Mapping {
    fn established(&self) -> bool {
        self.answered && !self.closing
    }

    fn seen(&self, proto: Proto) -> Seen {
        Seen { public_port: self.public_port, established: proto == Proto::Tcp && self.established() }
    }
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
    /// The UDP mapping idle timeout (SPEC section 6: 30 s).
    pub idle_timeout: Duration,
    pub tcp_established_timeout: Duration,
    pub tcp_transitory_timeout: Duration,
    /// One counter for both tables, so an outside port names one flow in a trace.
    next_port: u16,
    by_inside: BTreeMap<(Proto, SocketAddr), Mapping>,
    by_port: BTreeMap<(Proto, u16), SocketAddr>,
    pub created: u64,
    pub expired: u64,
    pub rebinds: u64,
    /// Every step, for the journal (`nat-agrees-with-spec`), while the run keeps one.
    pub log: Option<Vec<(Duration, NatStep)>>,
}

impl Nat {
    pub fn new(name: &str, public_ip: IpAddr, idle_timeout: Duration) -> Self {
        Nat {
            name: name.to_string(),
            public_ip,
            idle_timeout,
            tcp_established_timeout: TCP_ESTABLISHED_IDLE_TIMEOUT,
            tcp_transitory_timeout: TCP_TRANSITORY_IDLE_TIMEOUT,
            next_port: FIRST_PUBLIC_PORT,
            by_inside: BTreeMap::new(),
            by_port: BTreeMap::new(),
            created: 0,
            expired: 0,
            rebinds: 0,
            log: None,
        }
    }

    /// Keep every step from now on (the run journals), starting with how it is set up.
    pub fn logged(mut self) -> Self {
        let made = NatStep::Made {
            public_ip: self.public_ip,
            udp_idle: self.idle_timeout,
            tcp_established_idle: self.tcp_established_timeout,
            tcp_transitory_idle: self.tcp_transitory_timeout,
        };
        self.log = Some(vec![(Duration::ZERO, made)]);
        self
    }

    /// Keep one step of this NAT, if it keeps them.
    fn note(&mut self, at: Duration, step: NatStep) {
        if let Some(log) = self.log.as_mut() {
            log.push((at, step));
        }
    }

    fn alloc_port(&mut self) -> u16 {
        // Skip ports still mapped (the counter wraps after 16k flows).
        for _ in 0..=(u16::MAX - FIRST_PUBLIC_PORT) {
            let p = self.next_port;
            self.next_port = if self.next_port == u16::MAX { FIRST_PUBLIC_PORT } else { self.next_port + 1 };
            if !self.by_port.contains_key(&(Proto::Udp, p)) && !self.by_port.contains_key(&(Proto::Tcp, p)) {
                return p;
            }
        }
        panic!("NAT {}: every outside port is mapped", self.name);
    }

    fn timeout_of(&self, proto: Proto, m: &Mapping) -> Duration {
        match (proto, m.established()) {
            (Proto::Udp, _) => self.idle_timeout,
            (Proto::Tcp, true) => self.tcp_established_timeout,
            (Proto::Tcp, false) => self.tcp_transitory_timeout,
        }
    }

    fn expire(&mut self, key: (Proto, SocketAddr), now: Duration) -> bool {
        let stale = matches!(self.by_inside.get(&key), Some(m) if now.saturating_sub(m.last_used) > self.timeout_of(key.0, m));
        if stale {
            let m = self.by_inside.remove(&key).expect("present");
            self.by_port.remove(&(key.0, m.public_port));
            self.expired += 1;
        }
        stale
    }

    /// Outbound UDP: the outside source address for `inside` talking to `remote`.
    /// Returns the address and whether a new mapping was made.
    pub fn outbound(&mut self, now: Duration, inside: SocketAddr, remote: SocketAddr) -> (SocketAddr, bool) {
        self.outbound_proto(Proto::Udp, now, inside, remote, false)
    }

    /// Outbound on `proto`'s table; `closing`: a TCP packet with FIN or RST,
    /// after which the mapping is transitory (RFC 5382 REQ-5).
    pub fn outbound_proto(&mut self, proto: Proto, now: Duration, inside: SocketAddr, remote: SocketAddr, closing: bool) -> (SocketAddr, bool) {
        let key = (proto, inside);
        self.expire(key, now);
        let mut created = false;
        if !self.by_inside.contains_key(&key) {
            let port = self.alloc_port();
            self.by_inside.insert(key, Mapping { public_port: port, last_used: now, remotes: BTreeSet::new(), answered: false, closing: false });
            self.by_port.insert((proto, port), inside);
            self.created += 1;
            created = true;
        }
        let m = self.by_inside.get_mut(&key).expect("mapping");
        m.last_used = now;
        m.remotes.insert(remote);
        m.closing |= closing && proto == Proto::Tcp;
        let (public, after) = (SocketAddr::new(self.public_ip, m.public_port), m.seen(proto));
        self.note(now, NatStep::Out { at: now, proto, inside, remote, closing, public, created, after });
        (public, created)
    }

    /// Inbound UDP to `public_port` from `remote`: the inside address, or why not.
    pub fn inbound(&mut self, now: Duration, public_port: u16, remote: SocketAddr) -> Result<SocketAddr, NatDrop> {
        self.inbound_proto(Proto::Udp, now, public_port, remote, false)
    }

    /// Inbound on `proto`'s table. A TCP mapping that lets a packet in is
    /// established, unless a FIN or RST (`closing`, this packet's or an
    /// earlier one's) passed.
    pub fn inbound_proto(&mut self, proto: Proto, now: Duration, public_port: u16, remote: SocketAddr, closing: bool) -> Result<SocketAddr, NatDrop> {
        let passed = self.let_in(proto, now, public_port, remote, closing);
        let after = passed.as_ref().ok().map(|inside| self.by_inside[&(proto, *inside)].seen(proto));
        self.note(now, NatStep::In { at: now, proto, public_port, remote, closing, passed: passed.clone(), after });
        passed
    }

    fn let_in(&mut self, proto: Proto, now: Duration, public_port: u16, remote: SocketAddr, closing: bool) -> Result<SocketAddr, NatDrop> {
        let inside = *self.by_port.get(&(proto, public_port)).ok_or(NatDrop::NoMapping)?;
        let key = (proto, inside);
        if self.expire(key, now) {
            return Err(NatDrop::NoMapping);
        }
        let m = self.by_inside.get_mut(&key).expect("mapping");
        if !m.remotes.contains(&remote) {
            return Err(NatDrop::Filtered);
        }
        m.last_used = now;
        if proto == Proto::Tcp {
            m.answered = !plant::on(Bug::NatTcpNeverEstablished);
            m.closing |= closing;
        }
        Ok(inside)
    }

    /// Forced rebind at `now`: every mapping of `inside_ip` (UDP and TCP) gets
    /// a new outside port. Returns how many flows moved.
    pub fn rebind(&mut self, now: Duration, inside_ip: IpAddr) -> usize {
        let flows: Vec<(Proto, SocketAddr)> = self.by_inside.keys().filter(|a| a.1.ip() == inside_ip).copied().collect();
        let mut moved = Vec::with_capacity(flows.len());
        for f in &flows {
            let old = self.by_inside[f].public_port;
            if !plant::on(Bug::NatRebindKeepsOldPort) {
                self.by_port.remove(&(f.0, old));
            }
            let port = self.alloc_port();
            self.by_inside.get_mut(f).expect("mapping").public_port = port;
            self.by_port.insert((f.0, port), f.1);
            moved.push((f.0, f.1, old, port));
        }
        self.rebinds += 1;
        self.note(now, NatStep::Rebind { at: now, inside_ip, moved });
        flows.len()
    }

    /// The host `inside_ip` left this network at `now`: the journal's step, noted
    /// by the network that moved it, apart from [`Nat::forget`] doing it, so the
    /// NAT reference judges the forgetting by what comes after.
    pub fn left(&mut self, now: Duration, inside_ip: IpAddr) {
        self.note(now, NatStep::Forget { at: now, inside_ip });
    }

    /// Forget every mapping of `inside_ip` (the host left this network).
    pub fn forget(&mut self, inside_ip: IpAddr) {
        if plant::on(Bug::NatKeepsLeftHost) {
            return;
        }
        let flows: Vec<(Proto, SocketAddr)> = self.by_inside.keys().filter(|a| a.1.ip() == inside_ip).copied().collect();
        for f in flows {
            let m = self.by_inside.remove(&f).expect("mapping");
            self.by_port.remove(&(f.0, m.public_port));
        }
    }

    /// Open mappings (both tables).
    pub fn mappings(&self) -> usize {
        self.by_inside.len()
    }

    /// Open mappings of one table.
    pub fn mappings_of(&self, proto: Proto) -> usize {
        self.by_inside.keys().filter(|k| k.0 == proto).count()
    }
}

/// The addresses and flags of a tunnelled IPv4/TCP packet.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct TcpFlow {
    pub src: SocketAddrV4,
    pub dst: SocketAddrV4,
    pub syn: bool,
    pub fin: bool,
    pub rst: bool,
    /// TCP payload bytes.
    pub payload_len: usize,
}

/// Read a tunnelled packet's IPv4/TCP header; `None` if it is not one.
pub fn tcp_flow(pkt: &[u8]) -> Option<TcpFlow> {
    let ip = Ipv4Packet::new_checked(pkt).ok()?;
    if ip.next_header() != IpProtocol::Tcp {
        return None;
    }
    let tcp = TcpPacket::new_checked(ip.payload()).ok()?;
    Some(TcpFlow {
        src: SocketAddrV4::new(ip.src_addr(), tcp.src_port()),
        dst: SocketAddrV4::new(ip.dst_addr(), tcp.dst_port()),
        syn: tcp.syn(),
        fin: tcp.fin(),
        rst: tcp.rst(),
        payload_len: tcp.payload().len(),
    })
}

/// Which end of a packet a NAT rewrites.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum End {
    Src,
    Dst,
}

/// Rewrite the source or destination address and port of an IPv4/TCP packet,
/// fixing the IPv4 header checksum and the TCP checksum (pseudo-header included).
pub fn rewrite_tcp(pkt: &[u8], end: End, to: SocketAddrV4) -> Option<Vec<u8>> {
    let mut buf = pkt.to_vec();
    let mut ip = Ipv4Packet::new_checked(&mut buf[..]).ok()?;
    if ip.next_header() != IpProtocol::Tcp {
        return None;
    }
    match end {
        End::Src => ip.set_src_addr(*to.ip()),
        End::Dst => ip.set_dst_addr(*to.ip()),
    }
    ip.fill_checksum();
    let (src, dst): (Ipv4Addr, Ipv4Addr) = (ip.src_addr(), ip.dst_addr());
    let mut tcp = TcpPacket::new_checked(ip.payload_mut()).ok()?;
    match end {
        End::Src => tcp.set_src_port(to.port()),
        End::Dst => tcp.set_dst_port(to.port()),
    }
    tcp.fill_checksum(&IpAddress::Ipv4(src), &IpAddress::Ipv4(dst));
    Some(buf)
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
        assert_eq!(nat.rebind(Duration::from_secs(400), inside.ip()), 1);
        let (o3, c3) = nat.outbound(Duration::from_secs(401), inside, cloud);
        assert!(!c3);
        assert_ne!(o3.port(), o2.port());
        assert_eq!(nat.inbound(Duration::from_secs(401), o2.port(), cloud), Err(NatDrop::NoMapping));
        assert_eq!(nat.expired, 1);
    }
    /// A minimal IPv4/TCP packet with valid checksums.
    pub(crate) fn tcp_packet(src: SocketAddrV4, dst: SocketAddrV4, flags: u8, payload: &[u8]) -> Vec<u8> {
        let total = 40 + payload.len();
        let mut b = vec![0u8; total];
        b[0] = 0x45;
        b[2..4].copy_from_slice(&(total as u16).to_be_bytes());
        b[8] = 64;
        b[9] = 6;
        b[12..16].copy_from_slice(&src.ip().octets());
        b[16..20].copy_from_slice(&dst.ip().octets());
        b[20..22].copy_from_slice(&src.port().to_be_bytes());
        b[22..24].copy_from_slice(&dst.port().to_be_bytes());
        b[24..28].copy_from_slice(&1000u32.to_be_bytes());
        b[32] = 5 << 4;
        b[33] = flags;
        b[34..36].copy_from_slice(&8192u16.to_be_bytes());
        b[40..].copy_from_slice(payload);
        let mut ip = Ipv4Packet::new_unchecked(&mut b[..]);
        ip.fill_checksum();
        let mut tcp = TcpPacket::new_unchecked(ip.payload_mut());
        tcp.fill_checksum(&IpAddress::Ipv4(*src.ip()), &IpAddress::Ipv4(*dst.ip()));
        b
    }

    fn checksums_ok(pkt: &[u8]) -> bool {
        let ip = Ipv4Packet::new_checked(pkt).unwrap();
        let tcp = TcpPacket::new_checked(ip.payload()).unwrap();
        ip.verify_checksum() && tcp.verify_checksum(&IpAddress::Ipv4(ip.src_addr()), &IpAddress::Ipv4(ip.dst_addr()))
    }

    #[test]
    fn tcp_rewrite_keeps_checksums_valid() {
        let inside: SocketAddrV4 = "10.0.1.2:40000".parse().unwrap();
        let cloud: SocketAddrV4 = "203.0.113.10:443".parse().unwrap();
        let pkt = tcp_packet(inside, cloud, 0x18, b"hello through the NAT");
        assert!(checksums_ok(&pkt));
        let public: SocketAddrV4 = "192.0.2.1:49152".parse().unwrap();
        let out = rewrite_tcp(&pkt, End::Src, public).unwrap();
        assert!(checksums_ok(&out));
        let f = tcp_flow(&out).unwrap();
        assert_eq!((f.src, f.dst, f.payload_len), (public, cloud, 21));
        // A rewrite that forgot the checksums would fail verification.
        let mut stale = out.clone();
        stale[12..16].copy_from_slice(&[192, 0, 2, 9]);
        assert!(!checksums_ok(&stale));
        let back = rewrite_tcp(&out, End::Dst, public).unwrap();
        assert!(checksums_ok(&back));
        // Not TCP: left alone.
        let mut udp = pkt.clone();
        udp[9] = 17;
        assert!(tcp_flow(&udp).is_none());
        assert!(tcp_flow(&pkt[..30]).is_none());
    }

    #[test]
    fn tcp_table_is_separate_with_its_own_timeouts() {
        let mut nat = Nat::new("wifi", "192.0.2.1".parse().unwrap(), Duration::from_secs(30));
        let inside = a("10.0.1.2:40000");
        let cloud = a("203.0.113.10:443");
        let (udp, _) = nat.outbound(Duration::ZERO, inside, cloud);
        let (tcp, created) = nat.outbound_proto(Proto::Tcp, Duration::ZERO, inside, cloud, false);
        assert!(created);
        assert_ne!(udp.port(), tcp.port(), "one port counter for both tables");
        assert_eq!(nat.inbound(Duration::ZERO, tcp.port(), cloud), Err(NatDrop::NoMapping), "UDP does not enter a TCP mapping");
        assert_eq!(nat.mappings_of(Proto::Tcp), 1);
        // Transitory (SYN only): gone after 4 minutes idle.
        assert_eq!(nat.inbound_proto(Proto::Tcp, TCP_TRANSITORY_IDLE_TIMEOUT + Duration::from_secs(1), tcp.port(), cloud, false), Err(NatDrop::NoMapping));
        let (tcp, _) = nat.outbound_proto(Proto::Tcp, Duration::from_secs(300), inside, cloud, false);
        // The SYN-ACK comes in: established, outlives an hour of silence (UDP would not).
        assert_eq!(nat.inbound_proto(Proto::Tcp, Duration::from_secs(301), tcp.port(), cloud, false), Ok(inside));
        assert_eq!(nat.inbound_proto(Proto::Tcp, Duration::from_secs(301 + 3600), tcp.port(), cloud, false), Ok(inside));
        // A FIN makes it transitory again, and an ACK coming back after it does not undo that.
        let fin_at = Duration::from_secs(301 + 3600);
        nat.outbound_proto(Proto::Tcp, fin_at, inside, cloud, true);
        assert_eq!(nat.inbound_proto(Proto::Tcp, fin_at, tcp.port(), cloud, false), Ok(inside));
        let t = fin_at + TCP_TRANSITORY_IDLE_TIMEOUT + Duration::from_secs(1);
        assert_eq!(nat.inbound_proto(Proto::Tcp, t, tcp.port(), cloud, false), Err(NatDrop::NoMapping));
        // Rebind moves TCP flows as well.
        let (tcp, _) = nat.outbound_proto(Proto::Tcp, t, inside, cloud, false);
        assert_eq!(nat.rebind(t, inside.ip()), 2);
        assert_eq!(nat.inbound_proto(Proto::Tcp, t, tcp.port(), cloud, false), Err(NatDrop::NoMapping));
    }
}
