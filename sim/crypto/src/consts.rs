//! Every constant of the crypto kit, each with where it comes from.

/// Domain separation prefix of [`crate::derive_seed`]. Changing it changes every byte of every
/// run: bump the version suffix only on purpose.
pub const DERIVE_SEED_DOMAIN: &[u8] = b"ftw-sim/derive_seed/v1\0";

/// Domain separation prefix of [`crate::SeededRng::sub_seed`] (named sub-streams of one stream).
pub const SUB_SEED_DOMAIN: &[u8] = b"ftw-sim/sub_seed/v1\0";

/// The fixed seed of the kit's certificates (chosen here; any 32 bytes would do). The
/// certificates are a constant of the simulation, not of the run: every run trusts the same CA.
pub const CERT_SEED_DEFAULT: [u8; 32] = *b"ftw-sim fixed certificate seed!!";

/// Certificate validity, start: 2026-01-01T00:00:00Z (brief). The sim's wall clock must lie
/// inside `[CERT_NOT_BEFORE_UNIX_S, CERT_NOT_AFTER_UNIX_S)` or every handshake fails.
pub const CERT_NOT_BEFORE_YMD: (i32, u8, u8) = (2026, 1, 1);
/// Certificate validity, end: 2036-01-01T00:00:00Z (brief).
pub const CERT_NOT_AFTER_YMD: (i32, u8, u8) = (2036, 1, 1);
/// 2026-01-01T00:00:00Z in seconds since the Unix epoch.
pub const CERT_NOT_BEFORE_UNIX_S: u64 = 1_767_225_600;
/// 2036-01-01T00:00:00Z in seconds since the Unix epoch.
pub const CERT_NOT_AFTER_UNIX_S: u64 = 2_082_758_400;

/// Fixed serial numbers (rcgen would otherwise hash the public key: also deterministic, but a
/// fixed value is what the brief asks for and reads better in a dump).
pub const CA_SERIAL: u8 = 1;
/// Serial number of the cloud's server certificate.
pub const SERVER_SERIAL: u8 = 2;

/// Common name of the kit's CA (chosen here).
pub const CA_COMMON_NAME: &str = "FTW Sim CA";
/// The cloud's DNS name in the simulated world (brief); also the name clients connect to.
pub const CLOUD_SERVER_NAME: &str = "cloud.ftw";
/// Second DNS SAN of the server certificate (brief).
pub const LOCALHOST_NAME: &str = "localhost";

/// ALPN of the phone's and box's QUIC link to FTW Cloud (SPEC.md section 3).
pub const QUIC_ALPN: &[u8] = b"ftw-cloud-app/1";
/// ALPN of the WebSocket door over TLS/TCP (brief's example; the caller may pass another).
pub const TCP_ALPN_HTTP1: &[u8] = b"http/1.1";

/// QUIC keep-alive (PING) interval: holds a 30 s NAT mapping (SPEC.md sections 3 and 6).
pub const QUIC_KEEP_ALIVE_MS: u64 = 15_000;
/// QUIC max idle timeout (brief; equals the NAT mapping idle timeout of SPEC.md section 6).
pub const QUIC_MAX_IDLE_TIMEOUT_MS: u64 = 30_000;

/// quic-go's RTT before the first sample: 100 ms (quic-go `internal/utils/rtt_stats.go`,
/// `defaultInitialRTT`), whose probe timeout before a sample is `2 * defaultInitialRTT`
/// (`RTTStats.PTO`): 200 ms. The seed's rig runs quic-go on every end.
pub const QUIC_GO_FIRST_PTO_MS: u64 = 200;
/// The quinn-proto `initial_rtt` that gives quic-go's first PTO: quinn-proto starts with
/// smoothed_rtt = initial_rtt and rttvar = initial_rtt / 2 (RFC 9002 section 6.2.2), so its
/// first PTO is 3 x initial_rtt; 200 / 3 ms, rounded up to the millisecond.
pub const QUIC_GO_EQUIVALENT_INITIAL_RTT_MS: u64 = QUIC_GO_FIRST_PTO_MS.div_ceil(3);
/// quic-go's initial congestion window: 32 packets of 1,280 bytes
/// (`internal/congestion/cubic_sender.go`: `initialCongestionWindow = 32` packets of
/// `initialMaxDatagramSize = protocol.InitialPacketSize`, 1,280; read at quic-go
/// 2cfe6ee0, and the same at v0.48 to v0.56); quinn-proto's is 14,720. Was 32 x 1,460
/// (`DefaultTCPMSS`, which quic-go no longer has; issue 34, docs/table-derivations.md
/// section 3 item 7).
pub const QUIC_GO_INITIAL_WINDOW_BYTES: u64 = 32 * 1_280;
/// quic-go's congestion response: its `cubicSender` runs in Reno mode
/// (`sent_packet_handler.go` `NewSentPacketHandler`: "true, // use Reno"), cutting the
/// window to `renoBeta` = 0.7 of itself on a loss (`cubic_sender.go`).
pub const QUIC_GO_RENO_BETA: f32 = 0.7;
/// Datagram receive buffer: quinn-proto 0.11.19's own default (`STREAM_RWND`, 12.5 MB/s x 100 ms).
pub const QUIC_DATAGRAM_RECEIVE_BUFFER_BYTES: usize = 1_250_000;
/// Datagram send buffer: quinn-proto 0.11.19's own default.
pub const QUIC_DATAGRAM_SEND_BUFFER_BYTES: usize = 1024 * 1024;

/// Length of server-minted connection ids from the default seeded generator: quinn-proto's
/// default generators use 8 bytes.
pub const CID_LEN: usize = 8;
/// Length of the client's first destination connection id: quinn-proto's default
/// (`MAX_CID_SIZE`); RFC 9000 section 7.2 asks for at least 8 unpredictable bytes.
pub const INITIAL_DCID_LEN: usize = 20;
/// RFC 9000 section 7.2: the client's first destination id is at least 8 bytes.
pub const INITIAL_DCID_LEN_MIN: usize = 8;
/// RFC 9000 section 17.2: connection ids are at most 20 bytes.
pub const CID_LEN_MAX: usize = 20;

/// Lifetime hint of session tickets, seconds: rustls' own `AeadTicketer` value (12 h). Keys do
/// not rotate inside a run (a run is shorter than a rotation would matter; chosen here).
pub const TICKET_LIFETIME_S: u32 = 12 * 60 * 60;
/// Ticket key name length (rustls' `AeadTicketer` layout: key name, nonce, ciphertext, tag).
pub const TICKET_KEY_NAME_LEN: usize = 16;
/// ChaCha20-Poly1305 nonce length (RFC 8439).
pub const TICKET_NONCE_LEN: usize = 12;
/// ChaCha20-Poly1305 tag length (RFC 8439).
pub const TICKET_TAG_LEN: usize = 16;
/// Largest plaintext the ticketer seals (a guard: rustls' ticket payloads are a few hundred bytes).
pub const TICKET_PLAIN_LEN_MAX: usize = 16 * 1024;

/// Capacity of a client session store (rustls' `Resumption::default()` uses 256 server names).
pub const CLIENT_SESSION_STORE_LEN: usize = 256;

/// Capacity of a server session store (rustls' `ServerConfig` default: 256 sessions).
pub const SERVER_SESSION_STORE_LEN: usize = 256;

/// X25519 key and share lengths (RFC 7748).
pub const X25519_LEN: usize = 32;
