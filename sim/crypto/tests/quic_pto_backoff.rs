//! The smallest reproducer of the quinn-proto 0.11.19 fault behind
//! `corpus/fleet-pin-flood-initial-hijacked.toml`: two quinn-proto endpoints over an
//! in-memory network with a hand-moved clock (no simulator, no turmoil; the kit only
//! provides deterministic TLS configs).
//!
//! The fault: `Connection::discard_space` (quinn-proto `src/connection/mod.rs`) keeps
//! `pto_count` when Initial or Handshake keys are discarded, where RFC 9002 section 6.2.2
//! and Appendix A.11 (`OnPacketNumberSpaceDiscarded`: `pto_count = 0`) reset it. A client
//! never resets its backoff on Initial ACKs (section 6.2.1), so after N Initial PTOs its
//! first PTO for its Finished is 2^N PTO periods away. If the datagram carrying the
//! Finished is lost, nothing is sent in that space before then; the server stays in its
//! handshake, drops every 1-RTT packet ("dropping short packet during handshake"), and
//! when 2^N * PTO exceeds the idle timeout, both sides time out having done nothing.
//!
//! The run here: a 350 ms one-way path (700 ms round trip), a 20 s idle timeout, the
//! server's datagrams lost for the first 15 s (the client's Initial takes 4 PTOs: sent at
//! 0, 1, 3, 7 and 15 s), then the datagrams the client sends as its handshake completes
//! (at 22.4 s: its Finished, coalesced with its first 1-RTT packet) lost. With the backoff
//! reset, the client probes its Finished one PTO (2.1 s) later and the server completes
//! at 24.8 s. Without it (quinn-proto 0.11.19 as released) the probe is due 2^4 PTOs
//! (33.6 s) later, at 56 s; both sides idle out at 46.6 s and 46.9 s with the server's
//! handshake never complete. See
//! `docs/findings/quinn-proto-pto-backoff-after-key-discard.md` and
//! `sim/vendor/quinn-proto/PATCH.md`.

use std::collections::BTreeMap;
use std::net::{IpAddr, Ipv4Addr, SocketAddr};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, OnceLock};
use std::time::{Duration, Instant};

use bytes::BytesMut;
use ftw_crypto::consts::{CERT_SEED_DEFAULT, CID_LEN, CLOUD_SERVER_NAME};
use ftw_crypto::{
    crypto_provider, new_server_session_store, quic_client_config, quic_endpoint_config, quic_server_config, seeded_cid_factory, ClientResumption, CloudCerts,
    QuicTransportParams, SeededRng, SimClock,
};
use quinn_proto::{ConnectionHandle, DatagramEvent, Endpoint, Event};
use rustls::pki_types::UnixTime;

/// 2026-06-01T00:00:00Z: inside the certificates' validity.
const EPOCH_UNIX_S: u64 = 1_780_272_000;
/// One way, both directions: a 700 ms round trip (a geostationary satellite link).
const ONE_WAY: Duration = Duration::from_millis(350);
/// Every datagram the server sends before this is lost.
const SERVER_LOST_UNTIL: Duration = Duration::from_secs(15);
/// Both sides' idle timeout.
const IDLE_TIMEOUT: Duration = Duration::from_secs(20);
/// The run's end: past every timeout.
const RUN_LEN: Duration = Duration::from_secs(120);

const SERVER: SocketAddr = SocketAddr::new(IpAddr::V4(Ipv4Addr::new(10, 0, 0, 1)), 443);
const CLIENT: SocketAddr = SocketAddr::new(IpAddr::V4(Ipv4Addr::new(192, 168, 0, 1)), 49152);

/// The one base `Instant` of this process; quinn-proto only uses differences.
fn base_instant() -> Instant {
    static BASE: OnceLock<Instant> = OnceLock::new();
    *BASE.get_or_init(Instant::now)
}

struct Node {
    endpoint: Endpoint,
    conns: BTreeMap<ConnectionHandle, quinn_proto::Connection>,
}

impl Node {
    /// Poll every connection until it has nothing more to say at `now`: its
    /// datagrams, and whether one connected or was lost; drained ones go.
    fn drain(&mut self, now: Instant) -> (Vec<(SocketAddr, Vec<u8>)>, bool, bool) {
        let (mut out, mut connected_now, mut lost_now) = (Vec::new(), false, false);
        for (&h, conn) in self.conns.iter_mut() {
            loop {
                let mut busy = false;
                while let Some(ev) = conn.poll_endpoint_events() {
                    busy = true;
                    if let Some(back) = self.endpoint.handle_event(h, ev) {
                        conn.handle_event(back);
                    }
                }
                while let Some(ev) = conn.poll() {
                    busy = true;
                    match ev {
                        Event::Connected => connected_now = true,
                        Event::ConnectionLost { .. } => lost_now = true,
                        _ => {}
                    }
                }
                let mut buf = Vec::new();
                while let Some(t) = conn.poll_transmit(now, 10, &mut buf) {
                    busy = true;
                    let seg = t.segment_size.unwrap_or(t.size);
                    for chunk in buf[..t.size].chunks(seg) {
                        out.push((t.destination, chunk.to_vec()));
                    }
                    buf.clear();
                }
                if !busy {
                    break;
                }
            }
        }
        self.conns.retain(|_, c| !c.is_drained());
        (out, connected_now, lost_now)
    }
}

/// What happened, in sim time since the start.
#[derive(Debug, Default)]
struct Seen {
    client_connected: Option<Duration>,
    server_connected: Option<Duration>,
    /// When the client sent each datagram that starts with a Handshake packet (for the
    /// failure message: the probes and ACKs after its Finished).
    client_handshake_sends: Vec<Duration>,
    /// Datagrams the client sent that were lost on purpose (its Finished flight).
    finished_flight_lost: usize,
    /// When each side's connection ended (idle timeout), if it did.
    client_lost: Option<Duration>,
    server_lost: Option<Duration>,
}

struct Net {
    now: Duration,
    client: Node,
    server: Node,
    /// (arrival, send order) -> (from, to, bytes).
    in_flight: BTreeMap<(Duration, u64), (SocketAddr, SocketAddr, Vec<u8>)>,
    sent: u64,
    seen: Seen,
}

/// A long header's packet type is bits 4-5 of byte 0 (RFC 9000 section 17.2); header
/// protection does not cover them.
fn starts_with_handshake(datagram: &[u8]) -> bool {
    datagram.first().is_some_and(|b| b & 0x80 != 0 && (b >> 4) & 0x03 == 0x02)
}

impl Net {
    fn new() -> (Net, quinn_proto::ClientConfig) {
        let wall = Arc::new(AtomicU64::new(EPOCH_UNIX_S));
        let clock = SimClock::new(Arc::new(move || UnixTime::since_unix_epoch(Duration::from_secs(wall.load(Ordering::SeqCst)))));
        let certs = CloudCerts::generate(CERT_SEED_DEFAULT, &[SERVER.ip()]);
        // A 20 s idle timeout; no keep-alive, so nothing but loss recovery sends.
        let transport = QuicTransportParams { keep_alive_ms: None, max_idle_timeout_ms: IDLE_TIMEOUT.as_millis() as u64, ..QuicTransportParams::default() };
        let s = SeededRng::for_host(1, "server");
        let server_config = quic_server_config(&crypto_provider(&s.sub("tls")), &clock, &certs, new_server_session_store(), s.sub_seed("token"), &transport);
        let server_ep = quic_endpoint_config(s.sub_seed("reset"), s.sub_seed("endpoint"), seeded_cid_factory(s.sub_seed("cid"), CID_LEN));
        let c = SeededRng::for_host(1, "client");
        let client_config = quic_client_config(&crypto_provider(&c.sub("tls")), &clock, &certs, ClientResumption::Disabled, c.sub_seed("dcid"), &transport);
        let client_ep = quic_endpoint_config(c.sub_seed("reset"), c.sub_seed("endpoint"), seeded_cid_factory(c.sub_seed("cid"), CID_LEN));
        let net = Net {
            now: Duration::ZERO,
            client: Node { endpoint: Endpoint::new(Arc::new(client_ep), None, true, Some(c.sub_seed("rng"))), conns: BTreeMap::new() },
            server: Node { endpoint: Endpoint::new(Arc::new(server_ep), Some(Arc::new(server_config)), true, Some(s.sub_seed("rng"))), conns: BTreeMap::new() },
            in_flight: BTreeMap::new(),
            sent: 0,
            seen: Seen::default(),
        };
        (net, client_config)
    }

    fn instant(&self) -> Instant {
        base_instant() + self.now
    }

    fn put(&mut self, from: SocketAddr, to: SocketAddr, bytes: &[u8]) {
        self.in_flight.insert((self.now + ONE_WAY, self.sent), (from, to, bytes.to_vec()));
        self.sent += 1;
    }

    /// Everything each connection has to say now; applies the two losses.
    fn flush(&mut self) {
        let now = self.instant();
        let (out, connected_now, lost_now) = self.client.drain(now);
        self.client_sends(out, connected_now, lost_now);
        let (out, connected_now, lost_now) = self.server.drain(now);
        self.server_sends(out, connected_now, lost_now);
    }

    /// The client's datagrams onto the wire, but its handshake-completing flight.
    fn client_sends(&mut self, out: Vec<(SocketAddr, Vec<u8>)>, connected_now: bool, lost_now: bool) {
        let at = self.now;
        if lost_now {
            self.seen.client_lost.get_or_insert(at);
        }
        let first_connect = connected_now && self.seen.client_connected.is_none();
        if first_connect {
            self.seen.client_connected = Some(at);
        }
        for (to, bytes) in out {
            if starts_with_handshake(&bytes) {
                self.seen.client_handshake_sends.push(at);
            }
            // Loss 2: what the client sends as its handshake completes (its
            // Finished, coalesced with its first 1-RTT packet, and the rest of
            // that flight).
            if first_connect {
                self.seen.finished_flight_lost += 1;
                continue;
            }
            self.put(CLIENT, to, &bytes);
        }
    }

    /// The server's datagrams onto the wire, but those before [`SERVER_LOST_UNTIL`].
    fn server_sends(&mut self, out: Vec<(SocketAddr, Vec<u8>)>, connected_now: bool, lost_now: bool) {
        let at = self.now;
        if lost_now {
            self.seen.server_lost.get_or_insert(at);
        }
        if connected_now {
            self.seen.server_connected.get_or_insert(at);
        }
        for (to, bytes) in out {
            // Loss 1: the server's answers, until the client has backed off 4 times.
            if at < SERVER_LOST_UNTIL {
                continue;
            }
            self.put(SERVER, to, &bytes);
        }
    }

    fn deliver(&mut self, from: SocketAddr, to: SocketAddr, bytes: Vec<u8>) {
        let now = self.instant();
        let node = if to == SERVER { &mut self.server } else { &mut self.client };
        let mut buf = Vec::new();
        let mut reply = None;
        match node.endpoint.handle(now, from, None, None, BytesMut::from(&bytes[..]), &mut buf) {
            Some(DatagramEvent::ConnectionEvent(h, ev)) => {
                if let Some(c) = node.conns.get_mut(&h) {
                    c.handle_event(ev);
                }
            }
            Some(DatagramEvent::NewConnection(incoming)) => match node.endpoint.accept(incoming, now, &mut buf, None) {
                Ok((h, c)) => {
                    node.conns.insert(h, c);
                }
                Err(e) => reply = e.response,
            },
            Some(DatagramEvent::Response(t)) => reply = Some(t),
            None => {}
        }
        if let Some(t) = reply {
            self.put(to, t.destination, &buf[..t.size]);
        }
    }

    fn run(mut self, client_config: quinn_proto::ClientConfig) -> Seen {
        let (h, c) = self.client.endpoint.connect(self.instant(), client_config, SERVER, CLOUD_SERVER_NAME).expect("connect");
        self.client.conns.insert(h, c);
        while self.now < RUN_LEN {
            self.flush();
            while let Some(e) = self.in_flight.first_entry() {
                if e.key().0 > self.now {
                    break;
                }
                let (from, to, bytes) = e.remove();
                self.deliver(from, to, bytes);
            }
            let now = self.instant();
            for c in self.client.conns.values_mut().chain(self.server.conns.values_mut()) {
                if c.poll_timeout().is_some_and(|t| t <= now) {
                    c.handle_timeout(now);
                }
            }
            self.flush();
            let timer = self
                .client
                .conns
                .values_mut()
                .chain(self.server.conns.values_mut())
                .filter_map(|c| c.poll_timeout())
                .map(|t| t.saturating_duration_since(base_instant()))
                .min();
            let Some(next) = [timer, self.in_flight.keys().next().map(|k| k.0)].into_iter().flatten().min() else {
                break;
            };
            self.now = next.max(self.now + Duration::from_micros(1));
        }
        self.seen
    }
}

#[test]
fn a_lost_finished_is_probed_one_pto_after_initial_backoff() {
    let (net, client_config) = Net::new();
    let seen = net.run(client_config);
    let connected = seen.client_connected.expect("the client completes its handshake (it gets the server's flight after 15 s)");
    assert!(connected > SERVER_LOST_UNTIL, "{seen:?}");
    assert!(seen.finished_flight_lost > 0, "the Finished flight was dropped: {seen:?}");
    // The Finished is only sent again by a PTO probe (nothing else retransmits CRYPTO
    // data), so the server completes one probe after the loss. RFC 9002 A.11: the backoff
    // restarts when the client discards its Initial keys, so the probe comes one PTO
    // (3 x 700 ms for a first RTT sample) later, not 2^4 PTOs (past the idle timeout).
    let server = seen.server_connected.unwrap_or_else(|| panic!("the server never completed its handshake (both sides idle out): {seen:?}"));
    assert!(server - connected < Duration::from_secs(4), "the server completed {:?} after the client: {seen:?}", server - connected);
}
