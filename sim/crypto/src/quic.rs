//! quinn-proto configurations whose every random byte and every wall-clock read is the run's.

use std::sync::{Arc, Mutex};
use std::time::Duration;

use quinn_proto::crypto::rustls::{QuicClientConfig, QuicServerConfig};
use quinn_proto::{ConnectionId, ConnectionIdGenerator, EndpointConfig, IdleTimeout, TokenMemoryCache, TransportConfig, VarInt};
use rand_chacha::ChaCha20Rng;
use rand_core::{RngCore, SeedableRng};
use ring::{hkdf, hmac};
use rustls::crypto::CryptoProvider;
use rustls::server::StoresServerSessions;

use crate::certs::CloudCerts;
use crate::consts::{
    CID_LEN_MAX, INITIAL_DCID_LEN, INITIAL_DCID_LEN_MIN, QUIC_ALPN, QUIC_DATAGRAM_RECEIVE_BUFFER_BYTES, QUIC_DATAGRAM_SEND_BUFFER_BYTES,
    QUIC_GO_EQUIVALENT_INITIAL_RTT_MS, QUIC_GO_INITIAL_WINDOW_BYTES, QUIC_GO_RENO_BETA, QUIC_KEEP_ALIVE_MS, QUIC_MAX_IDLE_TIMEOUT_MS,
};
use crate::provider::SimClock;
use crate::rng::SeededRng;
use crate::tls::{client_config_inner, server_config_inner, ClientResumption};

/// Makes one `ConnectionIdGenerator` per quinn-proto `Endpoint` (called once per endpoint).
pub type CidFactory = Arc<dyn Fn() -> Box<dyn ConnectionIdGenerator> + Send + Sync>;

/// Makes the client's first destination connection id (called once per `connect`).
pub type InitialDcidProvider = Arc<dyn Fn() -> ConnectionId + Send + Sync>;

/// Transport parameters the kit sets (the rest are quinn-proto's defaults).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct QuicTransportParams {
    /// PING interval; `None` sends none. Default 15 s (SPEC.md sections 3 and 6).
    pub keep_alive_ms: Option<u64>,
    /// Max idle timeout. Default 30 s.
    pub max_idle_timeout_ms: u64,
    /// Datagram receive buffer (datagrams on). Default quinn-proto's 1 250 000 bytes.
    pub datagram_receive_buffer_bytes: usize,
    /// Datagram send buffer. Default quinn-proto's 1 MiB.
    pub datagram_send_buffer_bytes: usize,
    /// Path MTU discovery (DPLPMTUD, RFC 8899): quinn-proto's default probing
    /// (`true`, the default) or none (`false`: `mtu_discovery_config(None)`).
    pub mtu_discovery: bool,
    /// The RTT before a sample; None: quinn-proto's 333 ms (RFC 9002's kInitialRtt).
    pub initial_rtt_ms: Option<u64>,
    /// quic-go's congestion controller with this initial window (NewReno, cut to 0.7 on a
    /// loss, as quic-go's Reno mode); None: quinn-proto's own (Cubic, 14,720 bytes).
    pub initial_window_bytes: Option<u64>,
    /// Time the keep-alive from the last packet received only, as quic-go does
    /// (the vendored quinn-proto's patch, PATCH.md section 4); false: quinn-proto's
    /// own (from the last packet sent or received).
    pub keep_alive_from_receipt: bool,
    /// At most one DATAGRAM frame a packet, as quic-go packs (the vendored
    /// quinn-proto's patch, PATCH.md section 8); false: quinn-proto's (every one that fits).
    pub one_datagram_per_packet: bool,
    /// The iPhone's stack (Apple's Network.framework), whose timing is not known:
    /// these parameters as given (RFC 9002's defaults) even under the rig's profile,
    /// which gives every other connection quic-go's (`for_this_run`).
    pub apple: bool,
}

impl Default for QuicTransportParams {
    fn default() -> Self {
        Self {
            keep_alive_ms: Some(QUIC_KEEP_ALIVE_MS),
            max_idle_timeout_ms: QUIC_MAX_IDLE_TIMEOUT_MS,
            datagram_receive_buffer_bytes: QUIC_DATAGRAM_RECEIVE_BUFFER_BYTES,
            datagram_send_buffer_bytes: QUIC_DATAGRAM_SEND_BUFFER_BYTES,
            mtu_discovery: true,
            initial_rtt_ms: None,
            initial_window_bytes: None,
            keep_alive_from_receipt: false,
            one_datagram_per_packet: false,
            apple: false,
        }
    }
}

impl QuicTransportParams {
    /// The iPhone of the seed's second table: RFC 9002's defaults (Apple's stack's
    /// own timing is not known; docs/table.md, "The rig's QUIC stack").
    pub fn iphone() -> Self {
        QuicTransportParams { apple: true, ..QuicTransportParams::default() }
    }

    /// quinn-proto set to time its recovery as quic-go does, for the seed's rig
    /// (issue 16 section 2): quic-go's first probe timeout (200 ms, against
    /// quinn-proto's 999 ms: a lost Initial costs a fifth of the time) and its
    /// congestion controller (NewReno, its initial window and its 0.7 cut). quic-go's max_ack_delay (25 ms, advertised with
    /// the 1 ms granularity: 26) is quinn-proto's 25 ms already; its PTO after a
    /// sample is RFC 9002's, as quinn-proto's. Not matched: quic-go's path MTU
    /// discovery schedule (quinn-proto probes on its own timer). The keep-alive
    /// is timed from the last packet received, as quic-go's `nextKeepAliveTime`
    /// (quic-go connection.go: `lastPacketReceivedTime.Add(keepAliveInterval)`,
    /// one PING outstanding): only one end pings an idle connection.
    pub fn quic_go() -> Self {
        QuicTransportParams {
            initial_rtt_ms: Some(QUIC_GO_EQUIVALENT_INITIAL_RTT_MS),
            initial_window_bytes: Some(QUIC_GO_INITIAL_WINDOW_BYTES),
            keep_alive_from_receipt: true,
            one_datagram_per_packet: true,
            ..QuicTransportParams::default()
        }
    }
}

impl QuicTransportParams {
    /// These parameters as the rig's stacks would have them: with the plan's `quic =
    /// "rig"` (`quinn_proto::ftw_sim_patch::rig()`, set per run), every connection
    /// takes quic-go's timing, window and packing ([`QuicTransportParams::quic_go`]);
    /// otherwise they are as given.
    fn for_this_run(&self) -> QuicTransportParams {
        if !quinn_proto::ftw_sim_patch::rig() || self.apple {
            return self.clone();
        }
        let go = QuicTransportParams::quic_go();
        QuicTransportParams {
            initial_rtt_ms: go.initial_rtt_ms,
            initial_window_bytes: go.initial_window_bytes,
            keep_alive_from_receipt: go.keep_alive_from_receipt,
            one_datagram_per_packet: go.one_datagram_per_packet,
            ..self.clone()
        }
    }

    /// The quinn-proto `TransportConfig` (quic-go's settings in the rig's profile:
    /// [`QuicTransportParams::for_this_run`]).
    pub fn transport_config(&self) -> TransportConfig {
        let params = self.for_this_run();
        params.transport_config_as_given()
    }

    fn transport_config_as_given(&self) -> TransportConfig {
        if let Some(keep_alive_ms) = self.keep_alive_ms {
            assert!(keep_alive_ms < self.max_idle_timeout_ms, "keep-alive must come before the idle timeout");
        }
        assert!(self.datagram_receive_buffer_bytes > 0, "datagrams must stay on");
        let mut transport = TransportConfig::default();
        transport.keep_alive_interval(self.keep_alive_ms.map(Duration::from_millis));
        transport.ftw_keep_alive_from_receipt(self.keep_alive_from_receipt);
        transport.ftw_one_datagram_per_packet(self.one_datagram_per_packet);
        let idle = IdleTimeout::from(VarInt::from_u64(self.max_idle_timeout_ms).expect("idle timeout fits a varint"));
        transport.max_idle_timeout(Some(idle));
        transport.datagram_receive_buffer_size(Some(self.datagram_receive_buffer_bytes));
        transport.datagram_send_buffer_size(self.datagram_send_buffer_bytes);
        if !self.mtu_discovery {
            transport.mtu_discovery_config(None);
        }
        if let Some(ms) = self.initial_rtt_ms {
            transport.initial_rtt(Duration::from_millis(ms));
        }
        if let Some(w) = self.initial_window_bytes {
            // quic-go's controller: NewReno with its window and its 0.7 cut.
            let mut reno = quinn_proto::congestion::NewRenoConfig::default();
            reno.initial_window(w).loss_reduction_factor(QUIC_GO_RENO_BETA);
            transport.congestion_controller_factory(std::sync::Arc::new(reno));
        }
        transport
    }
}

/// Connection ids of `cid_len` bytes from a ChaCha20 stream (no lifetime, no validation).
pub struct SeededCidGenerator {
    rng: ChaCha20Rng,
    cid_len: usize,
}

impl SeededCidGenerator {
    /// A generator drawing `cid_len`-byte ids from the stream seeded with `seed`.
    pub fn new(seed: [u8; 32], cid_len: usize) -> Self {
        assert!(cid_len <= CID_LEN_MAX, "connection ids are at most 20 bytes");
        Self { rng: ChaCha20Rng::from_seed(seed), cid_len }
    }
}

impl ConnectionIdGenerator for SeededCidGenerator {
    fn generate_cid(&mut self) -> ConnectionId {
        let mut bytes = [0u8; CID_LEN_MAX];
        self.rng.fill_bytes(&mut bytes[..self.cid_len]);
        ConnectionId::new(&bytes[..self.cid_len])
    }

    fn cid_len(&self) -> usize {
        self.cid_len
    }

    fn cid_lifetime(&self) -> Option<Duration> {
        None
    }
}

/// The default factory: the n-th endpoint built from it (n = 0, 1, ...) gets a
/// [`SeededCidGenerator`] seeded with `SeededRng::from_seed(seed).sub_seed("cid/<n>")`.
pub fn seeded_cid_factory(seed: [u8; 32], cid_len: usize) -> CidFactory {
    assert!(cid_len <= CID_LEN_MAX, "connection ids are at most 20 bytes");
    let parent = SeededRng::from_seed(seed);
    let endpoints_made = Mutex::new(0u64);
    Arc::new(move || {
        let mut n = endpoints_made.lock().unwrap_or_else(|p| p.into_inner());
        let sub = parent.sub_seed(&format!("cid/{n}"));
        *n += 1;
        Box::new(SeededCidGenerator::new(sub, cid_len))
    })
}

/// The client's first destination ids: `INITIAL_DCID_LEN` bytes each, drawn in order from the
/// stream seeded with `seed`.
pub fn seeded_initial_dcid_provider(seed: [u8; 32]) -> InitialDcidProvider {
    const _: () = assert!(INITIAL_DCID_LEN >= INITIAL_DCID_LEN_MIN && INITIAL_DCID_LEN <= CID_LEN_MAX);
    let rng = SeededRng::from_seed(seed);
    Arc::new(move || {
        let mut bytes = [0u8; INITIAL_DCID_LEN];
        rng.fill(&mut bytes);
        ConnectionId::new(&bytes)
    })
}

/// A fixed stateless-reset key (HMAC-SHA256 keyed with `seed`). Every reactor of one cloud
/// must use the same one.
pub fn reset_key(seed: [u8; 32]) -> Arc<dyn quinn_proto::crypto::HmacKey> {
    Arc::new(hmac::Key::new(hmac::HMAC_SHA256, &seed))
}

/// A fixed handshake-token key (HKDF-SHA256 PRK extracted from `seed`, empty salt). Every
/// reactor of one cloud must use the same one.
pub fn handshake_token_key(seed: [u8; 32]) -> Arc<dyn quinn_proto::crypto::HandshakeTokenKey> {
    Arc::new(hkdf::Salt::new(hkdf::HKDF_SHA256, &[]).extract(&seed))
}

/// quinn-proto `EndpointConfig`: fixed reset key from `reset_key_seed`, endpoint RNG seeded with
/// `rng_seed` (grease, packet-number skips, path challenges, token nonces, per-connection RNG
/// seeds), connection ids from `cid_factory` (the reactor fleet passes its shard-stamping
/// factory; otherwise use [`seeded_cid_factory`]).
pub fn quic_endpoint_config(reset_key_seed: [u8; 32], rng_seed: [u8; 32], cid_factory: CidFactory) -> EndpointConfig {
    let mut config = EndpointConfig::new(reset_key(reset_key_seed));
    config.rng_seed(Some(rng_seed));
    config.cid_generator(move || cid_factory());
    config
}

/// quinn-proto `ServerConfig` for the cloud: TLS 1.3 with the cloud's certificate, ALPN
/// `ftw-cloud-app/1`, stateful resumption from `session_store` (share one between the reactors
/// of one cloud; [`crate::new_server_session_store`]), 0-RTT accepted (`max_early_data_size` =
/// `u32::MAX`; rustls 0.23.46 allows 0-RTT only with stateful resumption, so no ticketer here:
/// the session ids come from the provider's seeded `secure_random`), fixed token key from `token_key_seed`, token times from `clock`, migration on,
/// transport from `transport`.
pub fn quic_server_config(
    provider: &Arc<CryptoProvider>,
    clock: &SimClock,
    certs: &CloudCerts,
    session_store: Arc<dyn StoresServerSessions>,
    token_key_seed: [u8; 32],
    transport: &QuicTransportParams,
) -> quinn_proto::ServerConfig {
    let mut tls = server_config_inner(provider, clock, certs, &[QUIC_ALPN]);
    assert!(!tls.ticketer.enabled(), "0-RTT needs stateful resumption in rustls");
    tls.session_storage = session_store;
    tls.max_early_data_size = u32::MAX;
    let crypto = QuicServerConfig::try_from(tls).expect("the provider has TLS13_AES_128_GCM_SHA256");
    let mut config = quinn_proto::ServerConfig::new(Arc::new(crypto), handshake_token_key(token_key_seed));
    config.time_source(clock.time_source());
    config.migration(true);
    let mut transport = transport.transport_config();
    transport.qlog_stream(crate::qlog::stream("server"));
    config.transport_config(Arc::new(transport));
    config
}

/// quinn-proto `ClientConfig`: trusts the kit's CA, ALPN `ftw-cloud-app/1`, first destination
/// ids from `initial_dcid_seed`, a fresh token store, transport from `transport`.
/// `ClientResumption::Store` (the box) resumes and enables 0-RTT; `Disabled` (the phone) makes
/// a full handshake every time and never sends 0-RTT.
pub fn quic_client_config(
    provider: &Arc<CryptoProvider>,
    clock: &SimClock,
    certs: &CloudCerts,
    resumption: ClientResumption,
    initial_dcid_seed: [u8; 32],
    transport: &QuicTransportParams,
) -> quinn_proto::ClientConfig {
    let mut tls = client_config_inner(provider, clock, certs, &[QUIC_ALPN], &resumption);
    tls.enable_early_data = matches!(resumption, ClientResumption::Store(_));
    let crypto = QuicClientConfig::try_from(tls).expect("the provider has TLS13_AES_128_GCM_SHA256");
    let mut config = quinn_proto::ClientConfig::new(Arc::new(crypto));
    config.initial_dst_cid_provider(seeded_initial_dcid_provider(initial_dcid_seed));
    config.token_store(Arc::new(TokenMemoryCache::default()));
    let mut transport = transport.transport_config();
    transport.qlog_stream(crate::qlog::stream("client"));
    config.transport_config(Arc::new(transport));
    config
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cid_factory_gives_each_endpoint_its_own_stream() {
        let factory = seeded_cid_factory([6; 32], 8);
        let mut first = factory();
        let mut second = factory();
        let a = first.generate_cid();
        assert_eq!(a.len(), 8);
        assert_ne!(a, second.generate_cid());
        let again = seeded_cid_factory([6; 32], 8);
        assert_eq!(again().generate_cid(), a);
    }

    #[test]
    fn initial_dcids_follow_the_seed() {
        let p = seeded_initial_dcid_provider([8; 32]);
        let q = seeded_initial_dcid_provider([8; 32]);
        let a = p();
        assert_eq!(a.len(), INITIAL_DCID_LEN);
        assert_eq!(a, q());
        assert_ne!(p(), a);
    }

    #[test]
    #[should_panic(expected = "keep-alive must come before the idle timeout")]
    fn keep_alive_past_idle_timeout_is_refused() {
        let params = QuicTransportParams { keep_alive_ms: Some(40_000), ..Default::default() };
        let _ = params.transport_config();
    }
}
