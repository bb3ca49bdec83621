//! Every number of the wire layer, in one place, each with its source.

/// Frame layout version, byte 0 of every frame. SPEC.md §2; srcfl/ftw-webapp docs/protocol.md "Frames".
pub const FRAME_VERSION: u8 = 1;
/// Frame header: ver, lane, flags, rsvd, len u16 BE. SPEC.md §2.
pub const FRAME_HEADER_LEN: usize = 6;
/// What the u16 length field can describe. SPEC.md §2 (len u16 BE).
pub const FRAME_PAYLOAD_LEN_MAX: usize = u16::MAX as usize;

/// Lane 0: control/telemetry (tick, delta, cmd, cmd.ack, cmd.result, event). SPEC.md §2.
pub const LANE_CONTROL: u8 = 0;
/// Lane 1: bulk (snap, history, hello_ok). SPEC.md §2.
pub const LANE_BULK: u8 = 1;
/// Flag 0x02 = TRUNC: a delta that did not fit its lane-0 bucket; the rest follows. SPEC.md §2,
/// vector `delta_truncated` in webapp-vectors.json.
pub const FLAG_TRUNC: u8 = 0x02;

/// The two sizes a lane-0 bucket may take (one of them for the whole session). SPEC.md §2.
pub const CONTROL_BUCKETS_LEN: [usize; 2] = [256, 512];
/// The steps of lane-1 buckets. SPEC.md §2.
pub const BULK_BUCKETS_LEN: [usize; 3] = [1024, 4096, 16384];

/// Noise protocol name of both the box session and the outer tunnel. SPEC.md §2, §3.
pub const NOISE_PROTOCOL_NAME: &str = "Noise_IK_25519_ChaChaPoly_SHA256";
/// Prologue prefix of the end-to-end box session; the box's static public key follows. SPEC.md §2.
pub const SESSION_PROLOGUE_PREFIX: &[u8] = b"ftw.session.v1:";
/// Prologue prefix of the outer phone-to-cloud tunnel; the cloud's static public key follows.
/// Chosen here (SPEC.md §3 leaves the outer prologue open).
pub const TUNNEL_PROLOGUE_PREFIX: &[u8] = b"ftw.tunnel.v1:";
/// What the box's uplink proof hashes first (chosen here: the seed names the cloud's
/// challenge on the box's uplink, not its form); see `noise::uplink_proof`.
pub const UPLINK_AUTH_PREFIX: &[u8] = b"ftw.uplink.auth.v1:";
/// Bytes of the cloud's uplink challenge nonce (chosen here).
pub const UPLINK_NONCE_LEN: usize = 16;
/// Prologue of the public vectors ("ftw1"). webapp-vectors.json `handshake.prologue`.
pub const VECTOR_PROLOGUE: &[u8] = b"ftw1";

/// X25519 key length. Noise spec §12.1.
pub const DH_LEN: usize = 32;
/// ChaChaPoly tag length. Noise spec §5.1 / RFC 8439.
pub const TAG_LEN: usize = 16;
/// Cleartext sequence number in front of every transport message (u64 BE). SPEC.md §2.
pub const SEQ_LEN: usize = 8;
/// Largest Noise message. Noise spec §3.
pub const NOISE_MSG_LEN_MAX: usize = 65_535;
/// Nonce 2^64-1 is reserved and never encrypts. Noise spec §5.1.
pub const SEQ_RESERVED: u64 = u64::MAX;

/// Replay window: 1024 sequence numbers as 16 words of 64 bits, because a bulk burst can
/// overtake a control message. SPEC.md §4 "Carrier", §6.
pub const REPLAY_WINDOW_LEN: usize = 1024;
/// The earlier design's window (go/internal/appwire/transport.go `ReplayWindow = 64`); a bug,
/// kept as a switch. SPEC.md §4, §7 (S1).
pub const REPLAY_WINDOW_LEGACY_LEN: usize = 64;
/// Bits per bitmap word.
pub const REPLAY_WORD_BITS: usize = 64;
/// Words in the bitmap of the full window.
pub const REPLAY_WORDS_LEN: usize = REPLAY_WINDOW_LEN / REPLAY_WORD_BITS;

const _: () = assert!(REPLAY_WORDS_LEN == 16);
const _: () = assert!(REPLAY_WINDOW_LEGACY_LEN / REPLAY_WORD_BITS * REPLAY_WORD_BITS == REPLAY_WINDOW_LEGACY_LEN);
const _: () = assert!(FRAME_HEADER_LEN + 1 < CONTROL_BUCKETS_LEN[0]);
