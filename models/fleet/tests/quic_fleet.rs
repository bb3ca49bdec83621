//! Real QUIC (quinn-proto endpoints from ftw-crypto's deterministic kit) behind the fleet: one
//! server `Endpoint` per reactor with a [`ShardCidGenerator`], every datagram for the cloud's
//! port routed by [`Fleet`]. The client's NAT rebinds to an address the hash sends to another
//! reactor; the same server connection must keep serving (forwarded, then pinned), and with
//! `no_routing` it must not.
//!
//! Time: one base `Instant` captured once; only `base + offset` is ever passed (as in
//! ftw-crypto's tests/quic_memory.rs).

use std::collections::BTreeMap;
use std::net::{IpAddr, Ipv4Addr, SocketAddr};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, OnceLock};
use std::time::{Duration, Instant};

use bytes::{Bytes, BytesMut};
use ftw_crypto::consts::{CERT_SEED_DEFAULT, CID_LEN, CLOUD_SERVER_NAME};
use ftw_crypto::{
    crypto_provider, new_server_session_store, quic_client_config, quic_endpoint_config, quic_server_config, seeded_cid_factory, ClientResumption, CloudCerts,
    QuicTransportParams, SeededRng, SimClock,
};
use ftw_fleet::{ConnectionHandle, Fleet, FleetBugs, FleetConfig, MintedCids, ReactorId, ShardCidGenerator};
use quinn_proto::{DatagramEvent, Endpoint, Event, Transmit};
use rustls::pki_types::UnixTime;

const SIM_EPOCH_UNIX_S: u64 = 1_780_272_000;
const ONE_WAY: Duration = Duration::from_millis(20);
const N: usize = 4;
const SERVER_ADDR: SocketAddr = SocketAddr::new(IpAddr::V4(Ipv4Addr::new(10, 0, 0, 1)), 443);

fn base_instant() -> Instant {
    static BASE: OnceLock<Instant> = OnceLock::new();
    *BASE.get_or_init(Instant::now)
}

struct Node {
    endpoint: Endpoint,
    conns: BTreeMap<ConnectionHandle, quinn_proto::Connection>,
    /// Server side: the peer address last reported to the fleet.
    reported: BTreeMap<ConnectionHandle, SocketAddr>,
    events: Vec<(ConnectionHandle, Event)>,
}

impl Node {
    fn new(endpoint: Endpoint) -> Self {
        Self { endpoint, conns: BTreeMap::new(), reported: BTreeMap::new(), events: Vec::new() }
    }
}

struct Packet {
    from: SocketAddr,
    to: SocketAddr,
    data: Vec<u8>,
}

struct World {
    base: Instant,
    now: Duration,
    wall_s: Arc<AtomicU64>,
    client: Node,
    client_addr: SocketAddr,
    reactors: Vec<Node>,
    fleet: Fleet,
    in_flight: BTreeMap<(Duration, u64), Packet>,
    sent: u64,
    /// Reads whose bytes differ from what was sent (by datagram id).
    corrupt_reads: u64,
    sent_to_cloud: BTreeMap<u64, Vec<u8>>,
}

impl World {
    fn new(bugs: FleetBugs, client_addr: SocketAddr) -> (Self, quinn_proto::ClientConfig) {
        let wall_s = Arc::new(AtomicU64::new(SIM_EPOCH_UNIX_S));
        let clock = {
            let wall_s = wall_s.clone();
            SimClock::new(Arc::new(move || UnixTime::since_unix_epoch(Duration::from_secs(wall_s.load(Ordering::SeqCst)))))
        };
        let certs = CloudCerts::generate(CERT_SEED_DEFAULT, &[SERVER_ADDR.ip()]);
        let transport = QuicTransportParams::default();
        let cloud = SeededRng::for_host(7, "cloud");
        let provider = crypto_provider(&cloud.sub("tls"));
        let sessions = new_server_session_store();
        let mut world_fleet = Fleet::new(FleetConfig { bugs, ..FleetConfig::default() });
        let mut gens = ShardCidGenerator::for_fleet(N, cloud.sub_seed("quic/cid"));
        let mut reactors = Vec::new();
        for r in 0..N {
            let log = MintedCids::new();
            world_fleet.attach_minted(ReactorId::new(r), log.clone());
            let gen = std::sync::Mutex::new(Some(gens.remove(0).with_minted_log(log)));
            let factory: ftw_crypto::CidFactory = Arc::new(move || Box::new(gen.lock().unwrap().take().expect("one endpoint per reactor")));
            let server_config = quic_server_config(&provider, &clock, &certs, sessions.clone(), cloud.sub_seed("quic/token-key"), &transport);
            let ep_config = quic_endpoint_config(cloud.sub_seed("quic/reset-key"), cloud.sub_seed(&format!("quic/endpoint/{r}")), factory);
            reactors.push(Node::new(Endpoint::new(Arc::new(ep_config), Some(Arc::new(server_config)), true, None)));
        }
        let phone = SeededRng::for_host(7, "phone");
        let client_config = quic_client_config(
            &crypto_provider(&phone.sub("tls")),
            &clock,
            &certs,
            ClientResumption::Disabled,
            phone.sub_seed("quic/initial-dcid"),
            &transport,
        );
        let client_ep =
            quic_endpoint_config(phone.sub_seed("quic/reset-key"), phone.sub_seed("quic/endpoint"), seeded_cid_factory(phone.sub_seed("quic/cid"), CID_LEN));
        let world = World {
            base: base_instant(),
            now: Duration::ZERO,
            wall_s,
            client: Node::new(Endpoint::new(Arc::new(client_ep), None, true, None)),
            client_addr,
            reactors,
            fleet: world_fleet,
            in_flight: BTreeMap::new(),
            sent: 0,
            corrupt_reads: 0,
            sent_to_cloud: BTreeMap::new(),
        };
        (world, client_config)
    }

    fn instant(&self) -> Instant {
        self.base + self.now
    }

    fn now_ms(&self) -> u64 {
        self.now.as_millis() as u64
    }

    fn send(&mut self, from: SocketAddr, t: &Transmit, buf: &[u8]) {
        let seg = t.segment_size.unwrap_or(t.size);
        for chunk in buf[..t.size].chunks(seg) {
            self.in_flight.insert((self.now + ONE_WAY, self.sent), Packet { from, to: t.destination, data: chunk.to_vec() });
            self.sent += 1;
        }
    }

    /// Polls every connection; server transmits leave from the shared port (pins only receive).
    fn flush(&mut self) {
        let now = self.instant();
        let mut out = Vec::new();
        for (i, node) in std::iter::once(&mut self.client).chain(self.reactors.iter_mut()).enumerate() {
            let from = if i == 0 { self.client_addr } else { SERVER_ADDR };
            let handles: Vec<ConnectionHandle> = node.conns.keys().copied().collect();
            for ch in handles {
                let conn = node.conns.get_mut(&ch).unwrap();
                loop {
                    let mut progressed = false;
                    while let Some(ev) = conn.poll_endpoint_events() {
                        progressed = true;
                        if let Some(back) = node.endpoint.handle_event(ch, ev) {
                            conn.handle_event(back);
                        }
                    }
                    let mut buf = Vec::new();
                    while let Some(t) = conn.poll_transmit(now, 10, &mut buf) {
                        progressed = true;
                        out.push((from, t, std::mem::take(&mut buf)));
                    }
                    while let Some(ev) = conn.poll() {
                        progressed = true;
                        node.events.push((ch, ev));
                    }
                    if !progressed {
                        break;
                    }
                }
            }
        }
        for (from, t, buf) in out {
            self.send(from, &t, &buf);
        }
        // Tell the fleet what the reactors' endpoints learnt.
        let now_ms = self.now_ms();
        for (r, node) in self.reactors.iter_mut().enumerate() {
            let handles: Vec<ConnectionHandle> = node.conns.keys().copied().collect();
            for ch in handles {
                let conn = &node.conns[&ch];
                if conn.is_drained() {
                    node.conns.remove(&ch);
                    node.reported.remove(&ch);
                    self.fleet.connection_closed(now_ms, ReactorId::new(r), ch);
                    continue;
                }
                let addr = conn.remote_address();
                if node.reported.get(&ch) != Some(&addr) {
                    node.reported.insert(ch, addr);
                    self.fleet.path_report(now_ms, ReactorId::new(r), ch, addr);
                }
            }
        }
    }

    fn handle_at(&mut self, reactor: Option<usize>, from: SocketAddr, data: &[u8]) {
        let now = self.instant();
        let mut buf = Vec::new();
        let node = match reactor {
            None => &mut self.client,
            Some(r) => &mut self.reactors[r],
        };
        let local = if reactor.is_none() { self.client_addr } else { SERVER_ADDR };
        match node.endpoint.handle(now, from, Some(local.ip()), None, BytesMut::from(data), &mut buf) {
            None => {}
            Some(DatagramEvent::ConnectionEvent(ch, ev)) => {
                if let Some(c) = node.conns.get_mut(&ch) {
                    c.handle_event(ev);
                }
            }
            Some(DatagramEvent::NewConnection(incoming)) => {
                let r = reactor.expect("only the cloud accepts");
                let (ch, conn) = node.endpoint.accept(incoming, now, &mut buf, None).expect("accept");
                let peer = conn.remote_address();
                node.conns.insert(ch, conn);
                node.reported.insert(ch, peer);
                let now_ms = self.now_ms();
                self.fleet.connection_opened(now_ms, ReactorId::new(r), ch, peer);
            }
            Some(DatagramEvent::Response(t)) => {
                let src = if reactor.is_none() { self.client_addr } else { SERVER_ADDR };
                self.send(src, &t, &buf);
            }
        }
    }

    fn deliver(&mut self, p: Packet) {
        if p.to == SERVER_ADDR {
            let now_ms = self.now_ms();
            let arrival = self.fleet.on_datagram(now_ms, p.from, &p.data);
            self.sent_to_cloud.insert(arrival.datagram.0, p.data);
            while let Some(d) = self.fleet.poll_delivery(now_ms) {
                if self.sent_to_cloud[&d.datagram.0] != d.bytes {
                    self.corrupt_reads += 1;
                }
                self.handle_at(Some(d.reactor.index()), d.src, &d.bytes);
            }
        } else if p.to == self.client_addr {
            self.handle_at(None, p.from, &p.data);
        } // else: the client's old NAT mapping is gone.
    }

    fn step(&mut self) -> bool {
        loop {
            self.flush();
            let mut progressed = false;
            while let Some(e) = self.in_flight.first_entry() {
                if e.key().0 > self.now {
                    break;
                }
                let p = e.remove();
                self.deliver(p);
                progressed = true;
            }
            let now = self.instant();
            let (base, cur) = (self.base, self.now);
            for c in std::iter::once(&mut self.client).chain(self.reactors.iter_mut()).flat_map(|n| n.conns.values_mut()) {
                if c.poll_timeout().is_some_and(|t| t.saturating_duration_since(base) <= cur) {
                    c.handle_timeout(now);
                    progressed = true;
                }
            }
            if self.fleet.poll_timeout().is_some_and(|t| t <= self.now_ms()) {
                let now_ms = self.now_ms();
                self.fleet.handle_timeout(now_ms);
                progressed = true;
            }
            if !progressed {
                break;
            }
        }
        let base = self.base;
        let conn_t = std::iter::once(&mut self.client)
            .chain(self.reactors.iter_mut())
            .flat_map(|n| n.conns.values_mut())
            .filter_map(|c| c.poll_timeout())
            .map(|t| t.saturating_duration_since(base))
            .min();
        let next = [self.in_flight.keys().next().map(|k| k.0), conn_t, self.fleet.poll_timeout().map(Duration::from_millis)].into_iter().flatten().min();
        let Some(next) = next else { return false };
        self.now = next.max(self.now + Duration::from_micros(1));
        self.wall_s.store(SIM_EPOCH_UNIX_S + self.now.as_secs(), Ordering::SeqCst);
        assert!(self.now < Duration::from_secs(300));
        true
    }

    fn run_until<T>(&mut self, limit: Duration, mut probe: impl FnMut(&mut World) -> Option<T>) -> Option<T> {
        let until = self.now + limit;
        loop {
            if let Some(x) = probe(self) {
                return Some(x);
            }
            if self.now >= until || !self.step() {
                return probe(self);
            }
        }
    }

    fn server_datagram(&mut self, r: usize, ch: ConnectionHandle) -> Option<Bytes> {
        self.reactors[r].conns.get_mut(&ch)?.datagrams().recv()
    }
}

/// An address on 192.168.<host>.1 that the fleet's hash sends to `to`.
fn addr_to(fleet: &Fleet, to: usize, host: u8) -> SocketAddr {
    (40_000..u16::MAX)
        .map(|p| SocketAddr::new(IpAddr::V4(Ipv4Addr::new(192, 168, host, 1)), p))
        .find(|a| fleet.kernel().hash_reactor(*a) == ReactorId::new(to))
        .unwrap()
}

struct AfterMove {
    world: World,
    owner: usize,
    ch: ConnectionHandle,
    got: Option<Bytes>,
}

/// Handshake from an address hashed to r2, a datagram each way, then the NAT rebinds to an
/// address hashed to r3 and the client sends "after move".
fn migrate(bugs: FleetBugs) -> AfterMove {
    let probe = Fleet::new(FleetConfig::default());
    let (a, b) = (addr_to(&probe, 2, 1), addr_to(&probe, 3, 2));
    let (mut world, client_config) = World::new(bugs, a);
    let now = world.instant();
    let (cch, conn) = world.client.endpoint.connect(now, client_config, SERVER_ADDR, CLOUD_SERVER_NAME).unwrap();
    world.client.conns.insert(cch, conn);
    let (owner, ch) = world
        .run_until(Duration::from_secs(5), |w| {
            w.reactors.iter().enumerate().find_map(|(r, n)| n.events.iter().find(|(_, e)| matches!(e, Event::Connected)).map(|(ch, _)| (r, *ch)))
        })
        .expect("handshake");
    assert_eq!(owner, 2, "the handshake lands where the hash says");
    world.client.conns.get_mut(&cch).unwrap().datagrams().send(Bytes::from_static(b"before"), false).unwrap();
    let got = world.run_until(Duration::from_secs(2), |w| w.server_datagram(owner, ch));
    assert_eq!(got.as_deref(), Some(&b"before"[..]));
    assert_eq!(world.fleet.totals().forwards_sent, 0, "nobody moved yet");

    world.client_addr = b;
    world.client.conns.get_mut(&cch).unwrap().datagrams().send(Bytes::from_static(b"after move"), false).unwrap();
    let got = world.run_until(Duration::from_secs(2), |w| w.server_datagram(owner, ch));
    AfterMove { world, owner, ch, got }
}

#[test]
fn a_migrated_client_keeps_its_connection_forwarded_then_pinned() {
    let AfterMove { mut world, owner, ch, got } = migrate(FleetBugs::default());
    assert_eq!(got.as_deref(), Some(&b"after move"[..]));
    let c = world.fleet.counters(ReactorId::new(3));
    assert!(c.forwards_sent > 0, "{:?}", world.fleet);
    assert_eq!(world.reactors[owner].conns.len(), 1, "the same connection, no new one");
    assert!(world.reactors.iter().enumerate().all(|(r, n)| r == owner || n.conns.is_empty()));
    // Let the path settle and the sweep claim; then forwarding stops.
    world.run_until(Duration::from_secs(1), |_| None::<()>);
    assert_eq!(world.fleet.pin_of(ReactorId::new(owner), ch), Some(world.client_addr));
    assert_eq!(world.fleet.totals().pins_created, 1);
    let forwarded = world.fleet.totals().forwards_sent;
    let cch = *world.client.conns.keys().next().unwrap();
    world.client.conns.get_mut(&cch).unwrap().datagrams().send(Bytes::from_static(b"pinned"), false).unwrap();
    let got = world.run_until(Duration::from_secs(2), |w| w.server_datagram(owner, ch));
    assert_eq!(got.as_deref(), Some(&b"pinned"[..]));
    assert_eq!(world.fleet.totals().forwards_sent, forwarded, "{:?}", world.fleet);
    assert_eq!(world.fleet.totals().forwards_sent, world.fleet.totals().forwards_received);
    assert_eq!(world.corrupt_reads, 0);
    while let Some(e) = world.fleet.poll_event() {
        assert!(!e.to_string().is_empty());
    }
}

#[test]
fn without_routing_the_migrated_clients_packets_die_as_stale() {
    let AfterMove { world, got, .. } = migrate(FleetBugs { no_routing: true, ..FleetBugs::default() });
    assert_eq!(got, None);
    let all = world.fleet.totals();
    assert!(all.stale_datagrams > 0, "{:?}", world.fleet);
    assert_eq!(all.forwards_sent, 0);
}
