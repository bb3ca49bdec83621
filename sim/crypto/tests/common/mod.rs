//! An in-memory network for quinn-proto alone, shared by the reproducers
//! written for upstream: a client and a server `Endpoint`, one connection,
//! datagrams delivered a fixed time after they are sent, no simulator. The
//! server echoes what it reads on stream 0; the client keeps the echo. What
//! the wire does to each datagram (loss, copies, a moving client) is the
//! reproducer's own [`Wire`].

#![allow(dead_code)] // each reproducer uses part of it

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

pub const ONE_WAY: Duration = Duration::from_millis(20);
pub const SERVER: SocketAddr = SocketAddr::new(IpAddr::V4(Ipv4Addr::new(203, 0, 113, 10)), 443);
/// 2026-06-01: inside the test certificates' validity.
const EPOCH_UNIX_S: u64 = 1_780_272_000;
/// The first message, echoed before the reproducer starts.
pub const FIRST: usize = 100;

/// Where a moving client starts: `at`, every datagram delivered after [`ONE_WAY`].
pub struct Home {
    pub at: SocketAddr,
}

impl Wire for Home {
    fn client_addr(&self) -> SocketAddr {
        self.at
    }

    fn send(&mut self, now: Duration, from: SocketAddr, _to: SocketAddr, _len: usize) -> Vec<(Duration, SocketAddr)> {
        vec![(now + ONE_WAY, from)]
    }
}

/// What the network does to the datagrams.
pub trait Wire {
    /// The client's source address now.
    fn client_addr(&self) -> SocketAddr;
    /// The copies of a datagram of `len` bytes sent from `from` to `to` at
    /// `now`, as (arrival time, source address); none if it is lost.
    fn send(&mut self, now: Duration, from: SocketAddr, to: SocketAddr, len: usize) -> Vec<(Duration, SocketAddr)>;
    /// The server has handled a datagram of `len` bytes from `from`.
    fn server_handled(&mut self, _from: SocketAddr, _len: usize, _server: &Connection) {}
    /// [`Wire::send`] for a reproducer that reads the datagram's first byte (its
    /// header form and long-header type).
    fn send_bytes(&mut self, now: Duration, from: SocketAddr, to: SocketAddr, bytes: &[u8]) -> Vec<(Duration, SocketAddr)> {
        self.send(now, from, to, bytes.len())
    }
}

struct Side {
    ep: Endpoint,
    conn: Option<(ConnectionHandle, Connection)>,
}

pub struct Net {
    base: Instant,
    /// Simulated time since the start.
    pub now: Duration,
    client: Side,
    server: Side,
    /// (deliver at, send order) -> (from, to, bytes).
    flight: BTreeMap<(Duration, u64), (SocketAddr, SocketAddr, Vec<u8>)>,
    sent: u64,
    /// What the client read back on stream 0.
    pub echoed: Vec<u8>,
    /// The server writes back what it reads this many times over.
    pub echo_times: usize,
}

fn stream0() -> StreamId {
    StreamId::new(quinn_proto::Side::Client, Dir::Bi, 0)
}

impl Net {
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
            // Only a base for quinn-proto's `Instant`s: every time here is
            // `base + now` with `now` simulated, so no figure reads the clock.
            base: Instant::now(),
            now: Duration::ZERO,
            client: Side { ep: Endpoint::new(Arc::new(c_ep), None, true, None), conn: None },
            server: Side { ep: Endpoint::new(Arc::new(s_ep), Some(Arc::new(server_config)), true, None), conn: None },
            flight: BTreeMap::new(),
            sent: 0,
            echoed: Vec::new(),
            echo_times: 1,
        };
        (net, client_config)
    }

    /// Start the client's handshake and nothing more (the reproducer runs it).
    pub fn begin() -> Net {
        let (mut net, config) = Net::new();
        let now = net.instant();
        let (h, conn) = net.client.ep.connect(now, config, SERVER, CLOUD_SERVER_NAME).expect("connect");
        net.client.conn = Some((h, conn));
        net
    }

    /// The client's connection.
    pub fn client(&self) -> &Connection {
        &self.client.conn.as_ref().expect("client connection").1
    }

    /// Connect, echo [`FIRST`] bytes on stream 0, then run until `settled`
    /// (simulated; for both path MTU searches to end on the first path).
    pub fn connect(wire: &mut impl Wire, settled: Duration) -> Net {
        let (mut net, config) = Net::new();
        let now = net.instant();
        let (h, conn) = net.client.ep.connect(now, config, SERVER, CLOUD_SERVER_NAME).expect("connect");
        net.client.conn = Some((h, conn));
        let up = |n: &Net| n.client.conn.as_ref().is_some_and(|(_, c)| !c.is_handshaking());
        assert!(net.run(wire, Duration::from_secs(5), up), "the handshake finished");
        net.client.conn.as_mut().expect("client connection").1.streams().open(Dir::Bi).expect("stream");
        net.client_write(&[0u8; FIRST]);
        assert!(net.run(wire, Duration::from_secs(5), |n| n.echoed.len() == FIRST), "the first echo came back");
        net.run(wire, settled, |_| false);
        net
    }

    fn instant(&self) -> Instant {
        self.base + self.now
    }

    /// The client's connection, to call into.
    pub fn client_mut(&mut self) -> &mut Connection {
        &mut self.client.conn.as_mut().expect("client connection").1
    }

    pub fn server(&self) -> &Connection {
        &self.server.conn.as_ref().expect("server connection").1
    }

    /// The client writes `bytes` on stream 0.
    pub fn client_write(&mut self, bytes: &[u8]) {
        let (_, c) = self.client.conn.as_mut().expect("client connection");
        c.send_stream(stream0()).write(bytes).expect("write");
    }

    /// Stream 0: the server writes back what it reads; the client keeps it.
    fn echo(conn: &mut Connection, server: bool, echoed: &mut Vec<u8>, times: usize) {
        if server {
            while conn.streams().accept(Dir::Bi).is_some() {}
        }
        let mut got = Vec::new();
        if let Ok(mut chunks) = conn.recv_stream(stream0()).read(true) {
            while let Ok(Some(c)) = chunks.next(usize::MAX) {
                got.extend_from_slice(&c.bytes);
            }
            let _ = chunks.finalize();
        }
        if server && !got.is_empty() {
            conn.send_stream(stream0()).write(&got.repeat(times)).expect("echo fits the window");
        } else if !server {
            echoed.extend_from_slice(&got);
        }
    }

    /// Move every connection's output onto the wire.
    fn flush(&mut self, wire: &mut impl Wire) {
        let now = self.instant();
        for server in [true, false] {
            let side = if server { &mut self.server } else { &mut self.client };
            let Some((h, conn)) = side.conn.as_mut() else { continue };
            while let Some(ev) = conn.poll_endpoint_events() {
                if let Some(cev) = side.ep.handle_event(*h, ev) {
                    conn.handle_event(cev);
                }
            }
            while conn.poll().is_some() {}
            Self::echo(conn, server, &mut self.echoed, self.echo_times);
            let (mut out, mut buf) = (Vec::new(), Vec::new());
            while let Some(t) = conn.poll_transmit(now, 1, &mut buf) {
                out.push((t.destination, buf[..t.size].to_vec()));
                buf.clear();
            }
            let from = if server { SERVER } else { wire.client_addr() };
            for (to, bytes) in out {
                for (at, source) in wire.send_bytes(self.now, from, to, &bytes) {
                    self.sent += 1;
                    self.flight.insert((at, self.sent), (source, to, bytes.clone()));
                }
            }
        }
    }

    fn deliver(&mut self, wire: &mut impl Wire, from: SocketAddr, to: SocketAddr, bytes: Vec<u8>) {
        let now = self.instant();
        let to_server = to == SERVER;
        if !to_server && to != wire.client_addr() {
            return; // the client left that address
        }
        let len = bytes.len();
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
        if let Some((_, conn)) = self.server.conn.as_ref().filter(|_| to_server) {
            wire.server_handled(from, len, conn);
        }
    }

    fn handle_timeouts(&mut self) {
        let now = self.instant();
        for s in [&mut self.client, &mut self.server] {
            if let Some((_, c)) = s.conn.as_mut() {
                if c.poll_timeout().is_some_and(|t| t <= now) {
                    c.handle_timeout(now);
                }
            }
        }
    }

    /// Run until `until` (simulated), or until `done` holds.
    pub fn run(&mut self, wire: &mut impl Wire, until: Duration, mut done: impl FnMut(&Net) -> bool) -> bool {
        loop {
            self.flush(wire);
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
                self.deliver(wire, from, to, bytes);
            }
            self.handle_timeouts();
        }
    }
}

/// On this thread, quinn-proto as upstream 0.11.19 has it (`true`), or with
/// every section of sim/vendor/quinn-proto/PATCH.md (`false`, the default).
pub fn upstream(on: bool) {
    use quinn_proto::ftw_sim_patch as p;
    p::set_upstream_mtud_on_unvalidated_path(on);
    p::set_upstream_challenge_padding(on);
    p::set_upstream_revalidates_old_path(on);
    p::set_upstream_full_datagram_on_budget(on);
    p::set_upstream_ack_blocked_by_congestion(on);
    p::set_upstream_pto_before_confirmed(on);
    p::set_upstream_mtu_probe_any_space(on);
}

/// What the server sent to and received from a client's new address while
/// its path there was not validated (before the client's PATH_RESPONSE
/// reached it).
#[derive(Default)]
pub struct Unvalidated {
    pub sent: u64,
    pub received: u64,
    pub validated: bool,
    /// The most `sent` ran ahead of three times `received` at any send (RFC
    /// 9000 section 8.1: never above zero).
    pub worst_overspend: i64,
}

impl Unvalidated {
    /// The server sends `len` bytes to the new address.
    pub fn on_send(&mut self, len: usize) {
        if !self.validated {
            self.sent += len as u64;
            self.worst_overspend = self.worst_overspend.max(self.sent as i64 - 3 * self.received as i64);
        }
    }

    /// The server handled `len` bytes from the new address.
    pub fn on_handled(&mut self, len: usize, server: &Connection) {
        if !self.validated {
            self.received += len as u64;
            self.validated = server.stats().frame_rx.path_response > 0;
        }
    }
}
