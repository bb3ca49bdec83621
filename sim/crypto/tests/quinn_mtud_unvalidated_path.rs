//! The smallest reproducer of the stall behind issue 15 section 4, for upstream:
//! quinn-proto alone, two endpoints, an in-memory network (20 ms each way), no
//! simulator. See docs/findings/quinn-mtud-unvalidated-path.md.
//!
//! The client moves to a new IP address and sends a 600-byte stream message; the
//! server (migration on, the default) echoes it. The server's first datagram to
//! the new address, the one with its PATH_CHALLENGE, is lost. Upstream
//! quinn-proto 0.11.19 then sends MTU probes to the unvalidated address, past its
//! anti-amplification limit (RFC 9000 section 8.1), and every packet that would
//! carry a new PATH_CHALLENGE is blocked by that limit: the echo waits for
//! `Timer::PathValidation` (three PTOs) and a second migration. With the patch
//! (sim/vendor/quinn-proto/PATCH.md) it comes one PTO later.

use std::collections::BTreeMap;
use std::net::{IpAddr, Ipv4Addr, SocketAddr};
use std::sync::Arc;
use std::time::{Duration, Instant};

use bytes::BytesMut;
use ftw_crypto::consts::{CERT_SEED_DEFAULT, CID_LEN, CLOUD_SERVER_NAME};
use ftw_crypto::{
    crypto_provider, new_server_session_store, quic_client_config, quic_endpoint_config, quic_server_config, seeded_cid_factory, ClientResumption, CloudCerts,
    QuicTransportParams, SeededRng, SimClock,
};
use quinn_proto::{Connection, ConnectionHandle, DatagramEvent, Dir, Endpoint, StreamId};
use rustls::pki_types::UnixTime;

const ONE_WAY: Duration = Duration::from_millis(20);
const SERVER: SocketAddr = SocketAddr::new(IpAddr::V4(Ipv4Addr::new(203, 0, 113, 10)), 443);
/// Before and after the move: different IPs (a Wi-Fi NAT, a cellular NAT), so
/// the server starts the new path from scratch (`PathData::new`).
const CLIENT_A: SocketAddr = SocketAddr::new(IpAddr::V4(Ipv4Addr::new(192, 0, 2, 1)), 49152);
const CLIENT_B: SocketAddr = SocketAddr::new(IpAddr::V4(Ipv4Addr::new(198, 51, 100, 1)), 49152);
/// 2026-06-01: inside the test certificates' validity.
const EPOCH_UNIX_S: u64 = 1_780_272_000;

struct Side {
    ep: Endpoint,
    conn: Option<(ConnectionHandle, Connection)>,
}

struct Net {
    base: Instant,
    now: Duration,
    client: Side,
    server: Side,
    /// The client's current address.
    client_addr: SocketAddr,
    /// (deliver at, send order) -> (from, to, bytes).
    flight: BTreeMap<(Duration, u64), (SocketAddr, SocketAddr, Vec<u8>)>,
    sent: u64,
    /// Drop the next datagram the server sends to this address.
    drop_next_to: Option<SocketAddr>,
    /// Bytes the server sent to / received from `CLIENT_B` while its path there
    /// was not validated (before the client's PATH_RESPONSE reached it).
    to_b_unvalidated: u64,
    from_b_unvalidated: u64,
    b_validated: bool,
    /// What the client read back on stream 0.
    echoed: Vec<u8>,
}

impl Net {
    fn instant(&self) -> Instant {
        self.base + self.now
    }

    fn new() -> (Net, quinn_proto::ClientConfig) {
        let clock = SimClock::new(Arc::new(|| UnixTime::since_unix_epoch(Duration::from_secs(EPOCH_UNIX_S))));
        let certs = CloudCerts::generate(CERT_SEED_DEFAULT, &[SERVER.ip()]);
        let params = QuicTransportParams::default();
        let s = SeededRng::for_host(1, "cloud");
        let server_config =
            quic_server_config(&crypto_provider(&s.sub("tls")), &clock, &certs, new_server_session_store(), s.sub_seed("quic/token-key"), &params);
        let s_ep = quic_endpoint_config(s.sub_seed("quic/reset-key"), s.sub_seed("quic/endpoint"), seeded_cid_factory(s.sub_seed("quic/cid"), CID_LEN));
        let c = SeededRng::for_host(1, "phone");
        let client_config =
            quic_client_config(&crypto_provider(&c.sub("tls")), &clock, &certs, ClientResumption::Disabled, c.sub_seed("quic/initial-dcid"), &params);
        let c_ep = quic_endpoint_config(c.sub_seed("quic/reset-key"), c.sub_seed("quic/endpoint"), seeded_cid_factory(c.sub_seed("quic/cid"), CID_LEN));
        let net = Net {
            base: Instant::now(),
            now: Duration::ZERO,
            client: Side { ep: Endpoint::new(Arc::new(c_ep), None, true, None), conn: None },
            server: Side { ep: Endpoint::new(Arc::new(s_ep), Some(Arc::new(server_config)), true, None), conn: None },
            client_addr: CLIENT_A,
            flight: BTreeMap::new(),
            sent: 0,
            drop_next_to: None,
            to_b_unvalidated: 0,
            from_b_unvalidated: 0,
            b_validated: false,
            echoed: Vec::new(),
        };
        (net, client_config)
    }

    fn send(&mut self, from: SocketAddr, to: SocketAddr, bytes: &[u8]) {
        let from_server = from == SERVER;
        if from_server && to == CLIENT_B && !self.b_validated {
            self.to_b_unvalidated += bytes.len() as u64;
        }
        if from_server && self.drop_next_to == Some(to) {
            self.drop_next_to = None;
            return;
        }
        self.sent += 1;
        self.flight.insert((self.now + ONE_WAY, self.sent), (from, to, bytes.to_vec()));
    }

    /// Move every connection's output onto the wire; the server echoes what it reads.
    fn flush(&mut self) {
        let now = self.instant();
        for server in [true, false] {
            let mut out: Vec<(SocketAddr, Vec<u8>)> = Vec::new();
            let side = if server { &mut self.server } else { &mut self.client };
            let Some((h, conn)) = side.conn.as_mut() else { continue };
            while let Some(ev) = conn.poll_endpoint_events() {
                if let Some(cev) = side.ep.handle_event(*h, ev) {
                    conn.handle_event(cev);
                }
            }
            while conn.poll().is_some() {}
            // Stream 0: the server writes back what it reads; the client keeps it.
            let id = StreamId::new(quinn_proto::Side::Client, Dir::Bi, 0);
            if server {
                while conn.streams().accept(Dir::Bi).is_some() {}
            }
            let mut got = Vec::new();
            if let Ok(mut chunks) = conn.recv_stream(id).read(true) {
                while let Ok(Some(c)) = chunks.next(usize::MAX) {
                    got.extend_from_slice(&c.bytes);
                }
                let _ = chunks.finalize();
            }
            if server && !got.is_empty() {
                conn.send_stream(id).write(&got).expect("echo fits the window");
            } else if !server {
                self.echoed.extend_from_slice(&got);
            }
            let mut buf = Vec::new();
            while let Some(t) = conn.poll_transmit(now, 1, &mut buf) {
                out.push((t.destination, buf[..t.size].to_vec()));
                buf.clear();
            }
            let from = if server { SERVER } else { self.client_addr };
            for (to, bytes) in out {
                self.send(from, to, &bytes);
            }
        }
    }

    fn deliver(&mut self, from: SocketAddr, to: SocketAddr, bytes: Vec<u8>) {
        let now = self.instant();
        let to_server = to == SERVER;
        if !to_server && to != self.client_addr {
            return; // the client left that address
        }
        if to_server && from == CLIENT_B && !self.b_validated {
            self.from_b_unvalidated += bytes.len() as u64;
        }
        let side = if to_server { &mut self.server } else { &mut self.client };
        let mut resp = Vec::new();
        match side.ep.handle(now, from, None, None, BytesMut::from(&bytes[..]), &mut resp) {
            Some(DatagramEvent::NewConnection(incoming)) => {
                let (h, conn) = side.ep.accept(incoming, now, &mut resp, None).expect("accept");
                side.conn = Some((h, conn));
            }
            Some(DatagramEvent::ConnectionEvent(h, ev)) => {
                if let Some((ch, conn)) = side.conn.as_mut() {
                    assert_eq!(*ch, h);
                    conn.handle_event(ev);
                }
            }
            _ => {}
        }
        if to_server && from == CLIENT_B && !self.b_validated {
            // Validated once the server's path to B is (its PATH_RESPONSE handled).
            let s = self.server.conn.as_ref().map(|(_, c)| c.stats().frame_rx.path_response).unwrap_or(0);
            self.b_validated = s > 0;
        }
    }

    /// Run until `until` (simulated), or until `done` holds.
    fn run(&mut self, until: Duration, mut done: impl FnMut(&Net) -> bool) -> bool {
        loop {
            self.flush();
            if done(self) {
                return true;
            }
            let timers = [&mut self.client, &mut self.server]
                .into_iter()
                .filter_map(|s| s.conn.as_mut().and_then(|(_, c)| c.poll_timeout()))
                .min()
                .map(|t| t - self.base);
            let next = self.flight.keys().next().map(|k| k.0).into_iter().chain(timers).min();
            let Some(next) = next.filter(|n| *n <= until) else {
                self.now = until;
                return false;
            };
            self.now = self.now.max(next);
            while let Some(entry) = self.flight.first_entry() {
                if entry.key().0 > self.now {
                    break;
                }
                let (from, to, bytes) = entry.remove();
                self.deliver(from, to, bytes);
            }
            let now = self.instant();
            for s in [&mut self.client, &mut self.server] {
                if let Some((_, c)) = s.conn.as_mut() {
                    if c.poll_timeout().is_some_and(|t| t <= now) {
                        c.handle_timeout(now);
                    }
                }
            }
        }
    }
}

/// Connect, let the server finish its path MTU search on A, move the client
/// to B and send 600 bytes with the server's first datagram to B lost. Returns
/// how long the echo took, and the bytes the server sent to and received from
/// B before B was validated.
fn move_and_echo() -> (Option<Duration>, u64, u64) {
    let (mut net, config) = Net::new();
    let now = net.instant();
    let (h, conn) = net.client.ep.connect(now, config, SERVER, CLOUD_SERVER_NAME).expect("connect");
    net.client.conn = Some((h, conn));
    let up = |n: &Net| n.client.conn.as_ref().is_some_and(|(_, c)| !c.is_handshaking());
    assert!(net.run(Duration::from_secs(5), up), "the handshake finished");
    let id = {
        let (_, c) = net.client.conn.as_mut().expect("conn");
        let id = c.streams().open(Dir::Bi).expect("stream");
        c.send_stream(id).write(&[1u8; 100]).expect("write");
        id
    };
    assert!(net.run(Duration::from_secs(5), |n| n.echoed.len() == 100), "the first echo came back");
    // Time for both sides' MTU searches to end on path A.
    net.run(Duration::from_secs(8), |_| false);
    // The client moves; its next packet comes from B.
    net.client_addr = CLIENT_B;
    net.drop_next_to = Some(CLIENT_B);
    let t0 = net.now;
    net.client.conn.as_mut().expect("conn").1.send_stream(id).write(&[2u8; 600]).expect("write");
    let back = net.run(t0 + Duration::from_secs(20), |n| n.echoed.len() == 700);
    (back.then(|| net.now - t0), net.to_b_unvalidated, net.from_b_unvalidated)
}

/// The new path's PTO from RFC 9002: the server resets its RTT estimator for
/// the new address (RFC 9000 section 9.4), so kInitialRtt 333 ms, rttvar half of
/// it, plus max_ack_delay 25 ms: 333 + 4 x 166.5 + 25 = 1,024 ms.
const PTO_NEW_PATH: Duration = Duration::from_millis(1_024);

#[test]
fn patched_a_lost_path_challenge_costs_one_pto_and_the_3x_limit_holds() {
    quinn_proto::ftw_sim_patch::set_upstream_mtud_on_unvalidated_path(false);
    let (took, sent, recvd) = move_and_echo();
    let took = took.expect("the echo came back");
    println!("patched: echo after {took:?}; to B before validation {sent} bytes, from B {recvd} bytes");
    // One round trip, plus one PTO of the new path for the lost datagram.
    assert!(took <= 4 * ONE_WAY + PTO_NEW_PATH, "echo after {took:?}");
    assert!(sent <= 3 * recvd, "sent {sent} bytes to an unvalidated address that sent {recvd} (RFC 9000 section 8.1)");
}

#[test]
fn upstream_overspends_the_3x_limit_and_stalls_until_path_validation_gives_up() {
    quinn_proto::ftw_sim_patch::set_upstream_mtud_on_unvalidated_path(true);
    let (took, sent, recvd) = move_and_echo();
    quinn_proto::ftw_sim_patch::set_upstream_mtud_on_unvalidated_path(false);
    println!("upstream: echo after {took:?}; to B before validation {sent} bytes, from B {recvd} bytes");
    assert!(sent > 3 * recvd, "upstream kept to the limit: sent {sent}, received {recvd}");
    // Timer::PathValidation is 3 x PTO of the new path.
    assert!(took.is_none_or(|t| t > 3 * PTO_NEW_PATH), "upstream recovered after {took:?}");
}
