//! The workloads of `ftwsim bench`'s floor (issue 37): the real work a run
//! cannot avoid, done once outside any simulation so the bench can time it
//! (`ftw_properties::floor`). A QUIC and TLS 1.3 handshake, QUIC datagrams, a
//! Noise IK handshake and Noise transport messages, each with the kit's
//! configuration and fixed seeds. No clock is read here: quinn-proto's
//! instants count from a base the caller passes.

use std::net::{IpAddr, Ipv4Addr, SocketAddr};
use std::sync::Arc;
use std::time::{Duration, Instant};

use bytes::BytesMut;
use ftw_crypto::consts::{CERT_SEED_DEFAULT, CID_LEN, CLOUD_SERVER_NAME};
use ftw_crypto::{crypto_provider, ClientResumption, CloudCerts, QuicTransportParams, SeededRng, SimClock};
use ftw_wire::noise::{HandshakeParams, Initiator, Responder, SeededResolver, Session};
use quinn_proto::{Connection, ConnectionHandle, DatagramEvent, Dir, Endpoint};

/// The wall-clock seconds the certificates are inside their validity at (2026-06-01).
const CERT_VALID_UNIX_S: u64 = 1_780_272_000;
/// Bytes of stream data a QUIC datagram of the floor carries (one datagram at
/// the initial 1,200-byte path MTU, with headers and frames).
pub const QUIC_CHUNK_LEN: usize = 1_100;

/// The static keys and parameters of both ends of a Noise IK handshake
/// (the box session's), from fixed seeds: made once, like a host's keys.
pub struct NoiseKeys {
    init: HandshakeParams,
    resp: HandshakeParams,
}

impl NoiseKeys {
    pub fn new() -> NoiseKeys {
        let phone = SeededResolver::new([1; 32]).generate_keypair();
        let boxk = SeededResolver::new([2; 32]).generate_keypair();
        let init = HandshakeParams::box_session_initiator(phone, boxk.public, SeededResolver::new([3; 32]));
        let resp = HandshakeParams::box_session_responder(boxk, SeededResolver::new([4; 32]));
        NoiseKeys { init, resp }
    }

    /// One handshake, both ends: the initiator's session and the responder's.
    pub fn handshake(&self) -> (Session, Session) {
        let (waiting, m1) = Initiator::new(&self.init).and_then(|i| i.write_msg1(&[])).expect("message 1");
        let (got, _) = Responder::new(&self.resp).and_then(|r| r.read_msg1(&m1)).expect("the responder reads message 1");
        let (m2, responder) = got.write_msg2(&[]).expect("message 2");
        let (_, initiator) = waiting.read_msg2(&m2).expect("the initiator reads message 2");
        (initiator, responder)
    }
}

impl Default for NoiseKeys {
    fn default() -> Self {
        Self::new()
    }
}

/// The configuration of both ends of a QUIC connection (the cloud's server,
/// the phone's client without resumption), made once, like a host's.
pub struct QuicKit {
    server: Arc<quinn_proto::ServerConfig>,
    client: quinn_proto::ClientConfig,
    server_ep: Arc<quinn_proto::EndpointConfig>,
    client_ep: Arc<quinn_proto::EndpointConfig>,
}

impl QuicKit {
    pub fn new() -> QuicKit {
        let clock = SimClock::fixed(CERT_VALID_UNIX_S);
        let certs = CloudCerts::generate(CERT_SEED_DEFAULT, &[SERVER.ip()]);
        let params = QuicTransportParams::default();
        let (s, c) = (SeededRng::for_host(1, "cloud"), SeededRng::for_host(1, "phone"));
        let store = ftw_crypto::new_server_session_store();
        let server = ftw_crypto::quic_server_config(&crypto_provider(&s.sub("tls")), &clock, &certs, store, s.sub_seed("quic/token-key"), &params);
        let resumption = ClientResumption::Disabled;
        let client = ftw_crypto::quic_client_config(&crypto_provider(&c.sub("tls")), &clock, &certs, resumption, c.sub_seed("quic/initial-dcid"), &params);
        let ep = |r: &SeededRng| {
            let cids = ftw_crypto::seeded_cid_factory(r.sub_seed("quic/cid"), CID_LEN);
            Arc::new(ftw_crypto::quic_endpoint_config(r.sub_seed("quic/reset-key"), r.sub_seed("quic/endpoint"), cids))
        };
        QuicKit { server: Arc::new(server), client, server_ep: ep(&s), client_ep: ep(&c) }
    }
}

impl Default for QuicKit {
    fn default() -> Self {
        Self::new()
    }
}

/// The server's address and the client's in the in-memory pair.
const SERVER: SocketAddr = SocketAddr::new(IpAddr::V4(Ipv4Addr::new(203, 0, 113, 10)), 443);
const CLIENT: SocketAddr = SocketAddr::new(IpAddr::V4(Ipv4Addr::new(10, 0, 0, 2)), 40_000);

/// One end of the in-memory QUIC pair.
struct End {
    addr: SocketAddr,
    ep: Endpoint,
    conn: Option<(ConnectionHandle, Connection)>,
}

/// A QUIC client and server in memory, datagrams handed straight across.
pub struct Quic {
    base: Instant,
    now: Duration,
    ends: [End; 2],
    /// Datagrams handed across so far.
    pub datagrams: u64,
}

impl Quic {
    /// A pair that has finished its handshake (the client is `ends[0]`); every
    /// instant is `base` plus simulated time.
    pub fn connected(kit: &QuicKit, base: Instant) -> Quic {
        let client_end = End { addr: CLIENT, ep: Endpoint::new(kit.client_ep.clone(), None, true, None), conn: None };
        let server_end = End { addr: SERVER, ep: Endpoint::new(kit.server_ep.clone(), Some(kit.server.clone()), true, None), conn: None };
        let mut q = Quic { base, now: Duration::ZERO, ends: [client_end, server_end], datagrams: 0 };
        q.ends[0].conn = Some(q.ends[0].ep.connect(base, kit.client.clone(), SERVER, CLOUD_SERVER_NAME).expect("connect"));
        while q.handshaking() {
            q.settle();
        }
        q
    }

    fn handshaking(&self) -> bool {
        self.ends.iter().any(|e| e.conn.as_ref().is_none_or(|(_, c)| c.is_handshaking()))
    }

    /// Hand datagrams across until neither end has one to send, then let a millisecond pass.
    fn settle(&mut self) {
        while self.pump(0) | self.pump(1) {}
        self.now += Duration::from_millis(1);
        let now = self.base + self.now;
        for (_, c) in self.ends.iter_mut().filter_map(|e| e.conn.as_mut()) {
            if c.poll_timeout().is_some_and(|t| t <= now) {
                c.handle_timeout(now);
            }
        }
    }

    /// End `from`'s datagrams handed to the other end; whether there were any.
    fn pump(&mut self, from: usize) -> bool {
        let now = self.base + self.now;
        let [a, b] = &mut self.ends;
        let (src, dst) = if from == 0 { (a, b) } else { (b, a) };
        let Some((h, conn)) = src.conn.as_mut() else { return false };
        while let Some(ev) = conn.poll_endpoint_events() {
            if let Some(cev) = src.ep.handle_event(*h, ev) {
                conn.handle_event(cev);
            }
        }
        while conn.poll().is_some() {}
        let mut buf = Vec::new();
        let mut moved = false;
        while let Some(t) = conn.poll_transmit(now, 1, &mut buf) {
            let data = BytesMut::from(&buf[..t.size]);
            buf.clear();
            moved = true;
            self.datagrams += 1;
            let mut resp = Vec::new();
            match dst.ep.handle(now, src.addr, None, None, data, &mut resp) {
                Some(DatagramEvent::NewConnection(incoming)) => dst.conn = Some(dst.ep.accept(incoming, now, &mut resp, None).expect("accept")),
                Some(DatagramEvent::ConnectionEvent(_, ev)) => dst.conn.as_mut().expect("a connection").1.handle_event(ev),
                _ => {}
            }
        }
        moved
    }

    /// The client sends one datagram's worth of stream data on a stream of its
    /// own; the server reads it (and acknowledges it, a datagram of its own).
    pub fn send_one(&mut self) {
        let (_, client) = self.ends[0].conn.as_mut().expect("client");
        let id = match client.streams().open(Dir::Uni) {
            Some(id) => id,
            None => return self.settle(),
        };
        let _ = client.send_stream(id).write(&[5u8; QUIC_CHUNK_LEN]);
        let _ = client.send_stream(id).finish();
        self.settle();
        let (_, server) = self.ends[1].conn.as_mut().expect("server");
        while let Some(id) = server.streams().accept(Dir::Uni) {
            if let Ok(mut chunks) = server.recv_stream(id).read(true) {
                while let Ok(Some(_)) = chunks.next(usize::MAX) {}
                let _ = chunks.finalize();
            }
        }
    }
}
