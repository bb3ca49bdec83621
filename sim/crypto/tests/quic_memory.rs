//! Real QUIC (quinn-proto 0.11.19 + rustls 0.23) between a client (the box) and the cloud over
//! an in-memory network with a fake clock, and the proof that every byte on the wire is a pure
//! function of the run seed.
//!
//! Time: quinn-proto takes `std::time::Instant` values. The harness captures ONE base `Instant`
//! (once per process, [`base_instant`]) and only ever passes `base + offset`; it never reads the
//! clock again. quinn-proto only uses differences of instants, so the base's value changes no
//! byte on the wire: [`the_instant_base_changes_no_byte`] runs the scenario with two bases far
//! apart and gets the same hash. The hash covers datagram bytes, source and destination
//! addresses and the send offset (never an `Instant`).

use std::collections::BTreeMap;
use std::net::{IpAddr, Ipv4Addr, SocketAddr};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, OnceLock};
use std::time::{Duration, Instant};

use bytes::{Bytes, BytesMut};
use ftw_crypto::consts::{CERT_SEED_DEFAULT, CID_LEN, CLOUD_SERVER_NAME, QUIC_ALPN};
use ftw_crypto::{
    crypto_provider, new_client_session_store, new_server_session_store, quic_client_config, quic_endpoint_config, quic_server_config, seeded_cid_factory,
    ClientResumption, CloudCerts, QuicTransportParams, SeededRng, SimClock,
};
use quinn_proto::{ConnectionError, ConnectionHandle, DatagramEvent, Dir, Endpoint, Event, ReadError, ReadableError, StreamId, Transmit, VarInt};
use rustls::pki_types::UnixTime;
use sha2::{Digest, Sha256};

/// 2026-06-01T00:00:00Z: inside the certificates' validity.
const SIM_EPOCH_UNIX_S: u64 = 1_780_272_000;
/// One-way delay of every datagram (SPEC.md section 6: 20 ms each way).
const ONE_WAY: Duration = Duration::from_millis(20);
/// Upper bound on one scenario's simulated time.
const SCENARIO_LEN_MAX: Duration = Duration::from_secs(600);
/// The close code the cloud uses for "forbidden" (SPEC.md section 3).
const CLOSE_FORBIDDEN: u32 = 4403;
/// Most datagrams per `poll_transmit` (GSO batches are split by the harness).
const GSO_BATCH_MAX: usize = 10;

const SERVER_ADDR: SocketAddr = SocketAddr::new(IpAddr::V4(Ipv4Addr::new(10, 0, 0, 1)), 443);
const CLIENT_ADDR_A: SocketAddr = SocketAddr::new(IpAddr::V4(Ipv4Addr::new(192, 168, 0, 1)), 49152);
const CLIENT_ADDR_B: SocketAddr = SocketAddr::new(IpAddr::V4(Ipv4Addr::new(192, 168, 0, 1)), 49153);

/// The one base `Instant` of this process: captured once, never read again.
fn base_instant() -> Instant {
    static BASE: OnceLock<Instant> = OnceLock::new();
    *BASE.get_or_init(Instant::now)
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Host {
    Client,
    Server,
}

struct Node {
    endpoint: Endpoint,
    conns: BTreeMap<ConnectionHandle, quinn_proto::Connection>,
    events: Vec<(ConnectionHandle, Event)>,
}

struct Packet {
    from: SocketAddr,
    to: SocketAddr,
    data: Vec<u8>,
}

struct World {
    base: Instant,
    /// Sim time since the start of the scenario.
    now: Duration,
    wall_s: Arc<AtomicU64>,
    client: Node,
    server: Node,
    /// The client's current source address (changes on migration).
    client_addr: SocketAddr,
    in_flight: BTreeMap<(Duration, u64), Packet>,
    sent_count: u64,
    dropped_count: u64,
    wire: Sha256,
}

impl World {
    fn instant(&self) -> Instant {
        self.base + self.now
    }

    fn node(&mut self, host: Host) -> &mut Node {
        match host {
            Host::Client => &mut self.client,
            Host::Server => &mut self.server,
        }
    }

    fn local_addr(&self, host: Host) -> SocketAddr {
        match host {
            Host::Client => self.client_addr,
            Host::Server => SERVER_ADDR,
        }
    }

    /// Puts one transmit (possibly a GSO batch) on the wire and into the hash.
    fn send(&mut self, from: SocketAddr, transmit: &Transmit, buf: &[u8]) {
        let segment = transmit.segment_size.unwrap_or(transmit.size);
        assert!(segment > 0);
        for chunk in buf[..transmit.size].chunks(segment) {
            self.wire.update(self.now.as_nanos().to_be_bytes());
            self.wire.update(from.to_string().as_bytes());
            self.wire.update(b">");
            self.wire.update(transmit.destination.to_string().as_bytes());
            self.wire.update((chunk.len() as u64).to_be_bytes());
            self.wire.update(chunk);
            let key = (self.now + ONE_WAY, self.sent_count);
            self.sent_count += 1;
            self.in_flight.insert(key, Packet { from, to: transmit.destination, data: chunk.to_vec() });
        }
    }

    /// Collects every output of every connection at the current time.
    fn flush(&mut self) {
        let now = self.instant();
        for host in [Host::Client, Host::Server] {
            let from = self.local_addr(host);
            let mut outgoing = Vec::new();
            let node = self.node(host);
            let handles: Vec<ConnectionHandle> = node.conns.keys().copied().collect();
            for ch in handles {
                let conn = node.conns.get_mut(&ch).expect("handle listed above");
                loop {
                    let mut progressed = false;
                    while let Some(event) = conn.poll_endpoint_events() {
                        progressed = true;
                        if let Some(back) = node.endpoint.handle_event(ch, event) {
                            conn.handle_event(back);
                        }
                    }
                    let mut buf = Vec::new();
                    while let Some(transmit) = conn.poll_transmit(now, GSO_BATCH_MAX, &mut buf) {
                        progressed = true;
                        outgoing.push((transmit, std::mem::take(&mut buf)));
                    }
                    while let Some(event) = conn.poll() {
                        progressed = true;
                        node.events.push((ch, event));
                    }
                    if !progressed {
                        break;
                    }
                }
                if conn.is_drained() {
                    node.conns.remove(&ch);
                }
            }
            for (transmit, buf) in outgoing {
                self.send(from, &transmit, &buf);
            }
        }
    }

    fn deliver(&mut self, packet: Packet) {
        let host = if packet.to == SERVER_ADDR {
            Host::Server
        } else if packet.to == self.client_addr {
            Host::Client
        } else {
            // The client's old NAT mapping is gone after a rebind.
            self.dropped_count += 1;
            return;
        };
        let now = self.instant();
        let local = self.local_addr(host);
        let mut buf = Vec::new();
        let node = self.node(host);
        let event = node.endpoint.handle(now, packet.from, Some(packet.to.ip()), None, BytesMut::from(&packet.data[..]), &mut buf);
        match event {
            None => {}
            Some(DatagramEvent::ConnectionEvent(ch, event)) => {
                if let Some(conn) = node.conns.get_mut(&ch) {
                    conn.handle_event(event);
                }
            }
            Some(DatagramEvent::NewConnection(incoming)) => {
                assert_eq!(host, Host::Server, "only the cloud accepts");
                match node.endpoint.accept(incoming, now, &mut buf, None) {
                    Ok((ch, conn)) => {
                        node.conns.insert(ch, conn);
                    }
                    Err(err) => {
                        if let Some(transmit) = err.response {
                            self.send(local, &transmit, &buf);
                        }
                    }
                }
            }
            Some(DatagramEvent::Response(transmit)) => self.send(local, &transmit, &buf),
        }
    }

    fn next_timeout(&mut self) -> Option<Duration> {
        let base = self.base;
        self.client.conns.values_mut().chain(self.server.conns.values_mut()).filter_map(|c| c.poll_timeout()).map(|t| t.saturating_duration_since(base)).min()
    }

    /// Runs everything due now, then moves the clock to the next event. False if idle.
    fn step(&mut self) -> bool {
        loop {
            self.flush();
            let mut progressed = false;
            while let Some(entry) = self.in_flight.first_entry() {
                if entry.key().0 > self.now {
                    break;
                }
                let packet = entry.remove();
                self.deliver(packet);
                progressed = true;
            }
            let now = self.instant();
            let base = self.base;
            let current = self.now;
            for conn in self.client.conns.values_mut().chain(self.server.conns.values_mut()) {
                if let Some(t) = conn.poll_timeout() {
                    if t.saturating_duration_since(base) <= current {
                        conn.handle_timeout(now);
                        progressed = true;
                    }
                }
            }
            if !progressed {
                break;
            }
        }
        let next_packet = self.in_flight.keys().next().map(|k| k.0);
        let next = match (next_packet, self.next_timeout()) {
            (Some(a), Some(b)) => a.min(b),
            (Some(a), None) | (None, Some(a)) => a,
            (None, None) => return false,
        };
        assert!(next >= self.now, "time never goes back");
        // A timeout that is due but did not fire would loop for ever: step at least 1 µs.
        self.now = next.max(self.now + Duration::from_micros(1));
        self.wall_s.store(SIM_EPOCH_UNIX_S + self.now.as_secs(), Ordering::SeqCst);
        assert!(self.now < SCENARIO_LEN_MAX, "scenario ran past its time limit");
        true
    }

    /// Steps until `probe` returns something.
    fn run_until<T>(&mut self, what: &str, mut probe: impl FnMut(&mut World) -> Option<T>) -> T {
        loop {
            if let Some(found) = probe(self) {
                return found;
            }
            if !self.step() {
                // Idle: the last step may still have produced what we wait for.
                return probe(self).unwrap_or_else(|| panic!("the world went idle waiting for: {what}"));
            }
        }
    }

    /// Steps for `len` of sim time.
    fn run_for(&mut self, len: Duration) {
        let until = self.now + len;
        while self.now < until {
            if !self.step() {
                break;
            }
        }
    }

    fn take_event(&mut self, host: Host, pred: impl Fn(&Event) -> bool) -> Option<(ConnectionHandle, Event)> {
        let node = self.node(host);
        let at = node.events.iter().position(|(_, e)| pred(e))?;
        Some(node.events.remove(at))
    }

    fn conn(&mut self, host: Host, ch: ConnectionHandle) -> &mut quinn_proto::Connection {
        self.node(host).conns.get_mut(&ch).expect("connection is open")
    }
}

/// Appends whatever is readable on `id` to `out`; true once the stream is finished.
fn read_some(conn: &mut quinn_proto::Connection, id: StreamId, out: &mut Vec<u8>) -> bool {
    let mut stream = conn.recv_stream(id);
    let mut chunks = match stream.read(true) {
        Ok(chunks) => chunks,
        Err(ReadableError::ClosedStream) => return true,
        Err(err) => panic!("stream not readable: {err:?}"),
    };
    let finished = loop {
        match chunks.next(usize::MAX) {
            Ok(Some(chunk)) => out.extend_from_slice(&chunk.bytes),
            Ok(None) => break true,
            Err(ReadError::Blocked) => break false,
            Err(err) => panic!("read failed: {err:?}"),
        }
    };
    let _ = chunks.finalize();
    finished
}

fn write_all(conn: &mut quinn_proto::Connection, id: StreamId, data: &[u8]) {
    let mut stream = conn.send_stream(id);
    let written = stream.write(data).expect("stream writable");
    assert_eq!(written, data.len(), "the test writes less than one flow-control window");
}

/// What one scenario observed.
#[derive(Debug, PartialEq, Eq)]
struct Outcome {
    hash: [u8; 32],
    datagrams_sent: u64,
}

/// Where the box's rustls draws its randomness (the negative control uses *ring*'s own).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum BoxTls {
    /// The kit's provider: seeded `secure_random`, seeded X25519.
    Seeded,
    /// rustls' stock *ring* provider: `SystemRandom` everywhere.
    RingDefault,
}

/// The world of run `run_seed` with Instant base `base`, and the client's QUIC configuration.
fn build_world(run_seed: u64, base: Instant, resumption: ClientResumption, box_tls: BoxTls) -> (World, quinn_proto::ClientConfig) {
    let wall_s = Arc::new(AtomicU64::new(SIM_EPOCH_UNIX_S));
    let clock = {
        let wall_s = wall_s.clone();
        SimClock::new(Arc::new(move || UnixTime::since_unix_epoch(Duration::from_secs(wall_s.load(Ordering::SeqCst)))))
    };
    let certs = CloudCerts::generate(CERT_SEED_DEFAULT, &[SERVER_ADDR.ip()]);
    let transport = QuicTransportParams::default();

    // The cloud: one stream for everything it draws, named sub-streams per purpose.
    let cloud = SeededRng::for_host(run_seed, "cloud");
    let cloud_provider = crypto_provider(&cloud.sub("tls"));
    let server_config = quic_server_config(&cloud_provider, &clock, &certs, new_server_session_store(), cloud.sub_seed("quic/token-key"), &transport);
    let server_endpoint_config =
        quic_endpoint_config(cloud.sub_seed("quic/reset-key"), cloud.sub_seed("quic/endpoint"), seeded_cid_factory(cloud.sub_seed("quic/cid"), CID_LEN));

    // The client (the box resumes with 0-RTT, the phone does not).
    let boxx = SeededRng::for_host(run_seed, "box");
    let box_provider = match box_tls {
        BoxTls::Seeded => crypto_provider(&boxx.sub("tls")),
        BoxTls::RingDefault => Arc::new(rustls::crypto::ring::default_provider()),
    };
    let client_config = quic_client_config(&box_provider, &clock, &certs, resumption, boxx.sub_seed("quic/initial-dcid"), &transport);
    let client_endpoint_config =
        quic_endpoint_config(boxx.sub_seed("quic/reset-key"), boxx.sub_seed("quic/endpoint"), seeded_cid_factory(boxx.sub_seed("quic/cid"), CID_LEN));

    let world = World {
        base,
        now: Duration::ZERO,
        wall_s,
        client: Node { endpoint: Endpoint::new(Arc::new(client_endpoint_config), None, true, None), conns: BTreeMap::new(), events: Vec::new() },
        server: Node {
            endpoint: Endpoint::new(Arc::new(server_endpoint_config), Some(Arc::new(server_config)), true, None),
            conns: BTreeMap::new(),
            events: Vec::new(),
        },
        client_addr: CLIENT_ADDR_A,
        in_flight: BTreeMap::new(),
        sent_count: 0,
        dropped_count: 0,
        wire: Sha256::new(),
    };

    (world, client_config)
}

/// The whole scenario for run `run_seed` with Instant base `base`; asserts every step.
fn quic_scenario(run_seed: u64, base: Instant) -> Outcome {
    quic_scenario_with(run_seed, base, BoxTls::Seeded)
}

fn quic_scenario_with(run_seed: u64, base: Instant, box_tls: BoxTls) -> Outcome {
    let (mut world, client_config) = build_world(run_seed, base, ClientResumption::Store(new_client_session_store()), box_tls);
    let (cch, sch) = handshake_and_request(&mut world, &client_config);
    bulk_and_datagrams(&mut world, cch, sch);
    rebind(&mut world, cch, sch);
    idle_then_close(&mut world, cch, sch);
    resume_with_0rtt(&mut world, client_config);
    assert!(world.dropped_count > 0 || world.sent_count > 0);
    Outcome { hash: world.wire.finalize().into(), datagrams_sent: world.sent_count }
}

/// Steps 1 and 2: the handshake, then a request and its answer on a client-opened
/// bidirectional stream; the two ends' connection handles.
fn handshake_and_request(world: &mut World, client_config: &quinn_proto::ClientConfig) -> (ConnectionHandle, ConnectionHandle) {
    // 1. Handshake.
    let now = world.instant();
    let (cch, conn) = world.client.endpoint.connect(now, client_config.clone(), SERVER_ADDR, CLOUD_SERVER_NAME).expect("connect");
    world.client.conns.insert(cch, conn);
    world.run_until("client connected", |w| w.take_event(Host::Client, |e| matches!(e, Event::Connected)));
    let (sch, _) = world.run_until("server connected", |w| w.take_event(Host::Server, |e| matches!(e, Event::Connected)));
    assert!(!world.conn(Host::Client, cch).accepted_0rtt(), "the first connection has no ticket");
    let alpn = world
        .conn(Host::Client, cch)
        .crypto_session()
        .handshake_data()
        .and_then(|d| d.downcast::<quinn_proto::crypto::rustls::HandshakeData>().ok())
        .and_then(|d| d.protocol);
    assert_eq!(alpn.as_deref(), Some(QUIC_ALPN));

    // 2. A bidirectional stream, client-opened: request and answer.
    let bi = world.conn(Host::Client, cch).streams().open(Dir::Bi).expect("bi stream");
    write_all(world.conn(Host::Client, cch), bi, b"GET /box/42?sub=live");
    world.conn(Host::Client, cch).send_stream(bi).finish().unwrap();
    let server_bi = world.run_until("server accepts bi", |w| w.conn(Host::Server, sch).streams().accept(Dir::Bi));
    let mut request = Vec::new();
    world.run_until("request read", |w| read_some(w.conn(Host::Server, sch), server_bi, &mut request).then_some(()));
    assert_eq!(request, b"GET /box/42?sub=live");
    write_all(world.conn(Host::Server, sch), server_bi, b"ok");
    world.conn(Host::Server, sch).send_stream(server_bi).finish().unwrap();
    let mut answer = Vec::new();
    world.run_until("answer read", |w| read_some(w.conn(Host::Client, cch), bi, &mut answer).then_some(()));
    assert_eq!(answer, b"ok");

    (cch, sch)
}

/// Steps 3 and 4: bulk on a server-opened uni stream, datagrams both ways.
fn bulk_and_datagrams(world: &mut World, cch: ConnectionHandle, sch: ConnectionHandle) {
    // 3. A server-opened uni stream carrying bulk (several packets' worth).
    let bulk: Vec<u8> = (0..20_000u32).map(|i| (i % 251) as u8).collect();
    let uni = world.conn(Host::Server, sch).streams().open(Dir::Uni).expect("uni stream");
    write_all(world.conn(Host::Server, sch), uni, &bulk);
    world.conn(Host::Server, sch).send_stream(uni).finish().unwrap();
    let client_uni = world.run_until("client accepts uni", |w| w.conn(Host::Client, cch).streams().accept(Dir::Uni));
    let mut got = Vec::new();
    world.run_until("bulk read", |w| read_some(w.conn(Host::Client, cch), client_uni, &mut got).then_some(()));
    assert_eq!(got, bulk);

    // 4. Datagrams both ways.
    world.conn(Host::Client, cch).datagrams().send(Bytes::from_static(b"hb 1"), false).unwrap();
    world.conn(Host::Server, sch).datagrams().send(Bytes::from_static(b"live 1"), false).unwrap();
    let at_server = world.run_until("datagram at server", |w| w.conn(Host::Server, sch).datagrams().recv());
    let at_client = world.run_until("datagram at client", |w| w.conn(Host::Client, cch).datagrams().recv());
    assert_eq!(&at_server[..], b"hb 1");
    assert_eq!(&at_client[..], b"live 1");
}

/// Step 5: the client's NAT rebinds; the same connection carries on.
fn rebind(world: &mut World, cch: ConnectionHandle, sch: ConnectionHandle) {
    // 5. Migration: the client's NAT rebinds; it sends from a new address. Same connection.
    world.client_addr = CLIENT_ADDR_B;
    let bi2 = world.conn(Host::Client, cch).streams().open(Dir::Bi).expect("second bi stream");
    write_all(world.conn(Host::Client, cch), bi2, b"after rebind");
    world.conn(Host::Client, cch).send_stream(bi2).finish().unwrap();
    let server_bi2 = world.run_until("server accepts bi after rebind", |w| w.conn(Host::Server, sch).streams().accept(Dir::Bi));
    let mut after = Vec::new();
    world.run_until("read after rebind", |w| read_some(w.conn(Host::Server, sch), server_bi2, &mut after).then_some(()));
    assert_eq!(after, b"after rebind");
    world.conn(Host::Server, sch).datagrams().send(Bytes::from_static(b"live 2"), false).unwrap();
    let at_client = world.run_until("datagram after rebind", |w| w.conn(Host::Client, cch).datagrams().recv());
    assert_eq!(&at_client[..], b"live 2");
    assert_eq!(world.conn(Host::Server, sch).remote_address(), CLIENT_ADDR_B);
    assert_eq!(world.server.conns.len(), 1, "a migrated connection is the same connection");
    assert!(world.take_event(Host::Server, |e| matches!(e, Event::Connected)).is_none(), "no new handshake");
}

/// Steps 6 and 7: idle under keep-alive, then the cloud's 4403 close.
fn idle_then_close(world: &mut World, cch: ConnectionHandle, sch: ConnectionHandle) {
    // 6. Idle for 45 s: keep-alive (15 s) holds the connection past the 30 s idle timeout.
    world.run_for(Duration::from_secs(45));
    assert!(world.server.conns.contains_key(&sch) && world.client.conns.contains_key(&cch));
    assert!(world.take_event(Host::Client, |e| matches!(e, Event::ConnectionLost { .. })).is_none());

    // 7. The cloud closes with 4403; the box sees ApplicationClosed(4403).
    let now = world.instant();
    world.conn(Host::Server, sch).close(now, VarInt::from_u32(CLOSE_FORBIDDEN), Bytes::from_static(b"forbidden"));
    let (_, lost) = world.run_until("client sees the close", |w| w.take_event(Host::Client, |e| matches!(e, Event::ConnectionLost { .. })));
    match lost {
        Event::ConnectionLost { reason: ConnectionError::ApplicationClosed(close) } => {
            assert_eq!(close.error_code, VarInt::from_u32(CLOSE_FORBIDDEN));
            assert_eq!(&close.reason[..], b"forbidden");
        }
        other => panic!("expected ApplicationClosed(4403), got {other:?}"),
    }
    world.run_until("both ends drained", |w| (w.client.conns.is_empty() && w.server.conns.is_empty()).then_some(()));
}

/// Step 8: a second connection resumes with 0-RTT.
fn resume_with_0rtt(world: &mut World, client_config: quinn_proto::ClientConfig) {
    // 8. A second connection resumes with 0-RTT: data written before the handshake completes.
    world.run_for(Duration::from_secs(5));
    let now = world.instant();
    let (cch2, conn2) = world.client.endpoint.connect(now, client_config, SERVER_ADDR, CLOUD_SERVER_NAME).expect("second connect");
    world.client.conns.insert(cch2, conn2);
    assert!(world.conn(Host::Client, cch2).has_0rtt(), "the ticket allows 0-RTT");
    let early = world.conn(Host::Client, cch2).streams().open(Dir::Bi).expect("0-RTT stream");
    write_all(world.conn(Host::Client, cch2), early, b"challenge please");
    world.conn(Host::Client, cch2).send_stream(early).finish().unwrap();
    world.run_until("second connection up", |w| w.take_event(Host::Client, |e| matches!(e, Event::Connected)));
    assert!(world.conn(Host::Client, cch2).accepted_0rtt(), "the cloud accepted 0-RTT");
    let (sch2, _) = world.run_until("server side of the second connection", |w| w.take_event(Host::Server, |e| matches!(e, Event::Connected)));
    let server_early = world.run_until("server accepts the 0-RTT stream", |w| w.conn(Host::Server, sch2).streams().accept(Dir::Bi));
    let mut early_data = Vec::new();
    world.run_until("0-RTT data read", |w| read_some(w.conn(Host::Server, sch2), server_early, &mut early_data).then_some(()));
    assert_eq!(early_data, b"challenge please");
    let now = world.instant();
    world.conn(Host::Client, cch2).close(now, VarInt::from_u32(0), Bytes::new());
    world.run_until("second connection drained", |w| (w.client.conns.is_empty() && w.server.conns.is_empty()).then_some(()));
}

/// Connects, waits for both ends, closes from the client and drains; returns whether the
/// client had 0-RTT keys at connect time and whether the server accepted 0-RTT.
fn connect_and_close(world: &mut World, config: &quinn_proto::ClientConfig) -> (bool, bool) {
    let now = world.instant();
    let (ch, conn) = world.client.endpoint.connect(now, config.clone(), SERVER_ADDR, CLOUD_SERVER_NAME).expect("connect");
    world.client.conns.insert(ch, conn);
    let had_0rtt = world.conn(Host::Client, ch).has_0rtt();
    world.run_until("client connected", |w| w.take_event(Host::Client, |e| matches!(e, Event::Connected)));
    world.run_until("server connected", |w| w.take_event(Host::Server, |e| matches!(e, Event::Connected)));
    // Let the session tickets arrive.
    world.run_for(Duration::from_secs(1));
    let accepted = world.conn(Host::Client, ch).accepted_0rtt();
    let now = world.instant();
    world.conn(Host::Client, ch).close(now, VarInt::from_u32(0), Bytes::new());
    world.run_until("drained", |w| (w.client.conns.is_empty() && w.server.conns.is_empty()).then_some(()));
    (had_0rtt, accepted)
}

#[test]
fn the_phone_never_resumes_and_the_box_does() {
    let (mut phone_world, phone_config) = build_world(7, base_instant(), ClientResumption::Disabled, BoxTls::Seeded);
    assert_eq!(connect_and_close(&mut phone_world, &phone_config), (false, false));
    assert_eq!(connect_and_close(&mut phone_world, &phone_config), (false, false), "no 0-RTT for the phone");
    let (mut box_world, box_config) = build_world(7, base_instant(), ClientResumption::Store(new_client_session_store()), BoxTls::Seeded);
    assert_eq!(connect_and_close(&mut box_world, &box_config), (false, false));
    assert_eq!(connect_and_close(&mut box_world, &box_config), (true, true), "the box resumes with 0-RTT");
}

const CHILD_ENV: &str = "FTW_CRYPTO_CHILD_SEED";
const DEFAULT_SEED: u64 = 42;

#[test]
fn quic_is_identical_across_two_runs_in_one_process() {
    let a = quic_scenario(DEFAULT_SEED, base_instant());
    let b = quic_scenario(DEFAULT_SEED, base_instant());
    assert_eq!(a, b);
    assert!(a.datagrams_sent > 20, "the scenario really talked: {a:?}");
}

#[test]
fn quic_differs_with_another_seed() {
    let a = quic_scenario(DEFAULT_SEED, base_instant());
    let b = quic_scenario(DEFAULT_SEED + 1, base_instant());
    assert_ne!(a.hash, b.hash);
}

#[test]
fn the_instant_base_changes_no_byte() {
    let a = quic_scenario(DEFAULT_SEED, base_instant());
    // A base almost three years later: only offsets from it reach quinn-proto.
    let later = base_instant() + Duration::from_secs(90_000_000);
    let b = quic_scenario(DEFAULT_SEED, later);
    assert_eq!(a, b);
}

/// Negative control: the harness sees nondeterminism. With rustls' stock provider on the box
/// (OS randomness in the client random and the key share) two runs of one seed differ.
#[test]
fn the_hash_catches_os_randomness() {
    let a = quic_scenario_with(DEFAULT_SEED, base_instant(), BoxTls::RingDefault);
    let b = quic_scenario_with(DEFAULT_SEED, base_instant(), BoxTls::RingDefault);
    assert_ne!(a.hash, b.hash);
}

/// Runs the scenario (with all its checks) and prints its hash; the seed comes from
/// `FTW_CRYPTO_CHILD_SEED` when the parent test below spawns this binary.
#[test]
fn quic_child_prints_hash() {
    let seed = std::env::var(CHILD_ENV).ok().map(|s| s.parse().expect("a u64 seed")).unwrap_or(DEFAULT_SEED);
    let outcome = quic_scenario(seed, base_instant());
    println!("\nQUIC_HASH={}", hex::encode(outcome.hash));
}

#[test]
fn quic_is_identical_in_a_second_process() {
    let here = quic_scenario(DEFAULT_SEED, base_instant());
    let exe = std::env::current_exe().expect("test binary path");
    let output = std::process::Command::new(exe)
        .args(["--exact", "quic_child_prints_hash", "--nocapture", "--test-threads=1"])
        .env(CHILD_ENV, DEFAULT_SEED.to_string())
        .output()
        .expect("spawn the test binary");
    assert!(output.status.success(), "child failed: {}", String::from_utf8_lossy(&output.stderr));
    let stdout = String::from_utf8_lossy(&output.stdout);
    // The libtest harness may print the line right after its "test ... " prefix.
    let child_hash = stdout.split("QUIC_HASH=").nth(1).and_then(|rest| rest.get(..64)).unwrap_or_else(|| panic!("no hash in child output: {stdout}"));
    assert_eq!(child_hash, hex::encode(here.hash), "another process, same bytes");
}
