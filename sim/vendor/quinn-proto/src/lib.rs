//! Low-level protocol logic for the QUIC protoocol
//!
//! quinn-proto contains a fully deterministic implementation of QUIC protocol logic. It contains
//! no networking code and does not get any relevant timestamps from the operating system. Most
//! users may want to use the futures-based quinn API instead.
//!
//! The quinn-proto API might be of interest if you want to use it from a C or C++ project
//! through C bindings or if you want to use a different event loop than the one tokio provides.
//!
//! The most important types are `Endpoint`, which conceptually represents the protocol state for
//! a single socket and mostly manages configuration and dispatches incoming datagrams to the
//! related `Connection`. `Connection` types contain the bulk of the protocol logic related to
//! managing a single connection and all the related state (such as streams).

#![cfg_attr(not(fuzzing), warn(missing_docs))]
#![cfg_attr(test, allow(dead_code))]
// Fixes welcome:
#![warn(unreachable_pub)]
#![allow(clippy::cognitive_complexity)]
#![allow(clippy::too_many_arguments)]
#![warn(clippy::use_self)]

use std::{
    fmt,
    net::{IpAddr, SocketAddr},
    ops,
};

mod cid_queue;
pub mod coding;
mod constant_time;
mod range_set;
#[cfg(all(test, any(feature = "rustls-aws-lc-rs", feature = "rustls-ring")))]
mod tests;
pub mod transport_parameters;
mod varint;

pub use varint::{VarInt, VarIntBoundsExceeded};

#[cfg(feature = "bloom")]
mod bloom_token_log;
#[cfg(feature = "bloom")]
pub use bloom_token_log::BloomTokenLog;

mod connection;
pub use crate::connection::{
    Chunk, Chunks, ClosedStream, Connection, ConnectionError, ConnectionStats, Datagrams, Event,
    FinishError, FrameStats, PathStats, ReadError, ReadableError, RecvStream, RigPathEvent,
    RigPathNote, RttEstimator,
    SendDatagramError, SendStream, ShouldTransmit, StreamEvent, Streams, UdpStats, WriteError,
    Written,
};
#[cfg(feature = "qlog")]
pub use connection::qlog::QlogStream;

#[cfg(feature = "rustls")]
pub use rustls;

mod config;
#[cfg(feature = "qlog")]
pub use config::QlogConfig;
pub use config::{
    AckFrequencyConfig, ClientConfig, ConfigError, EndpointConfig, IdleTimeout, MtuDiscoveryConfig,
    ServerConfig, StdSystemTime, TimeSource, TransportConfig, ValidationTokenConfig,
};

pub mod crypto;

mod frame;
use crate::frame::Frame;
pub use crate::frame::{ApplicationClose, ConnectionClose, Datagram, FrameType};

mod endpoint;
pub use crate::endpoint::{
    AcceptError, ConnectError, ConnectionHandle, DatagramEvent, Endpoint, Incoming, RetryError,
};

mod packet;
pub use packet::{
    ConnectionIdParser, FixedLengthConnectionIdParser, LongType, PacketDecodeError, PartialDecode,
    ProtectedHeader, ProtectedInitialHeader,
};

mod shared;
pub use crate::shared::{ConnectionEvent, ConnectionId, EcnCodepoint, EndpointEvent};

mod transport_error;
pub use crate::transport_error::{Code as TransportErrorCode, Error as TransportError};

pub mod congestion;

// ftw-sim patch (switchstall): a test-only switch back to upstream's behaviour.
// See sim/vendor/quinn-proto/PATCH.md.
pub mod ftw_sim_patch {
    //! ftw-sim's switch for its patch of quinn-proto (not upstream API).
    use std::cell::Cell;

    thread_local! {
        static UPSTREAM_MTUD_ON_UNVALIDATED_PATH: Cell<bool> = const { Cell::new(false) };
        static UPSTREAM_CHALLENGE_PADDING: Cell<bool> = const { Cell::new(false) };
        static UPSTREAM_REVALIDATES_OLD_PATH: Cell<bool> = const { Cell::new(false) };
        static UPSTREAM_FULL_DATAGRAM_ON_BUDGET: Cell<bool> = const { Cell::new(false) };
        static NO_RESTORE_PING: Cell<bool> = const { Cell::new(false) };
        static UPSTREAM_ACK_BLOCKED_BY_CONGESTION: Cell<bool> = const { Cell::new(false) };
        static UPSTREAM_LONG_HEADER_FLOOR: Cell<bool> = const { Cell::new(false) };
        static RIG: Cell<bool> = const { Cell::new(false) };
        static UPSTREAM_PTO_BEFORE_CONFIRMED: Cell<bool> = const { Cell::new(false) };
        static UPSTREAM_MTU_PROBE_ANY_SPACE: Cell<bool> = const { Cell::new(false) };
        static UPSTREAM_MIGRATION_IN_RIG: Cell<bool> = const { Cell::new(false) };
        static UPSTREAM_ACKS_IN_RIG: Cell<bool> = const { Cell::new(false) };
        static UPSTREAM_PROBES_IN_RIG: Cell<bool> = const { Cell::new(false) };
        static PROBE_ACK_UNCOUNTED_IN_RIG: Cell<bool> = const { Cell::new(false) };
        static UPSTREAM_RESPONSE_SAME_REMOTE: Cell<bool> = const { Cell::new(false) };
        static UPSTREAM_KEEP_ALIVE_ANY_SPACE: Cell<bool> = const { Cell::new(false) };
    }

    /// Every toggle of one run, set together (`false` everywhere, the default:
    /// every patch as PATCH.md writes it, not the rig's profile). Each field is the
    /// toggle of the `set_` function of the same name, documented there.
    #[allow(missing_docs)]
    #[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
    pub struct Toggles {
        pub upstream_mtud_on_unvalidated_path: bool,
        pub upstream_challenge_padding: bool,
        pub upstream_revalidates_old_path: bool,
        pub upstream_full_datagram_on_budget: bool,
        pub no_restore_ping: bool,
        pub upstream_ack_blocked_by_congestion: bool,
        pub upstream_long_header_floor: bool,
        pub rig: bool,
        pub upstream_pto_before_confirmed: bool,
        pub upstream_mtu_probe_any_space: bool,
        pub upstream_migration_in_rig: bool,
        pub upstream_acks_in_rig: bool,
        pub upstream_probes_in_rig: bool,
        pub probe_ack_uncounted_in_rig: bool,
        pub upstream_response_same_remote: bool,
        pub upstream_keep_alive_any_space: bool,
    }

    /// On this thread, every toggle at once: the simulation sets them for each
    /// world from its run's spec, so a toggle a test left on cannot leak into the
    /// next run on the thread.
    pub fn set_all(t: Toggles) {
        let all = [
            (&UPSTREAM_MTUD_ON_UNVALIDATED_PATH, t.upstream_mtud_on_unvalidated_path),
            (&UPSTREAM_CHALLENGE_PADDING, t.upstream_challenge_padding),
            (&UPSTREAM_REVALIDATES_OLD_PATH, t.upstream_revalidates_old_path),
            (&UPSTREAM_FULL_DATAGRAM_ON_BUDGET, t.upstream_full_datagram_on_budget),
            (&NO_RESTORE_PING, t.no_restore_ping),
            (&UPSTREAM_ACK_BLOCKED_BY_CONGESTION, t.upstream_ack_blocked_by_congestion),
            (&UPSTREAM_LONG_HEADER_FLOOR, t.upstream_long_header_floor),
            (&RIG, t.rig),
            (&UPSTREAM_PTO_BEFORE_CONFIRMED, t.upstream_pto_before_confirmed),
            (&UPSTREAM_MTU_PROBE_ANY_SPACE, t.upstream_mtu_probe_any_space),
            (&UPSTREAM_MIGRATION_IN_RIG, t.upstream_migration_in_rig),
            (&UPSTREAM_ACKS_IN_RIG, t.upstream_acks_in_rig),
            (&UPSTREAM_PROBES_IN_RIG, t.upstream_probes_in_rig),
            (&PROBE_ACK_UNCOUNTED_IN_RIG, t.probe_ack_uncounted_in_rig),
            (&UPSTREAM_RESPONSE_SAME_REMOTE, t.upstream_response_same_remote),
            (&UPSTREAM_KEEP_ALIVE_ANY_SPACE, t.upstream_keep_alive_any_space),
        ];
        for (toggle, on) in all {
            toggle.with(|c| c.set(on));
        }
    }

    /// On this thread, defer the keep-alive on every packet sent, as upstream
    /// quinn-proto 0.11.19 does (`true`), or only on a 1-RTT packet (`false`, the
    /// default; PATCH.md section 18): an Initial or Handshake probe of a client not yet
    /// confirmed is discarded unread by a confirmed server and cannot move it.
    pub fn set_upstream_keep_alive_any_space(on: bool) {
        UPSTREAM_KEEP_ALIVE_ANY_SPACE.with(|c| c.set(on));
    }

    pub(crate) fn upstream_keep_alive_any_space() -> bool {
        UPSTREAM_KEEP_ALIVE_ANY_SPACE.with(|c| c.get())
    }

    /// On this thread, take a PATH_RESPONSE as validating the current path only when it
    /// came from that path's address, as upstream quinn-proto 0.11.19 does (`true`), or
    /// from any address (`false`, the default: the patch of PATCH.md section 17, RFC 9000
    /// sections 8.2.2 and 8.2.3).
    pub fn set_upstream_response_same_remote(on: bool) {
        UPSTREAM_RESPONSE_SAME_REMOTE.with(|c| c.set(on));
    }

    pub(crate) fn upstream_response_same_remote() -> bool {
        UPSTREAM_RESPONSE_SAME_REMOTE.with(|c| c.get())
    }

    /// On this thread, take a lost Initial or Handshake packet whose number is the
    /// in-flight MTU probe's for that probe, as upstream quinn-proto 0.11.19 does
    /// (`true`), or declare it lost in its own space (`false`, the default; PATCH.md
    /// section 10).
    pub fn set_upstream_mtu_probe_any_space(on: bool) {
        UPSTREAM_MTU_PROBE_ANY_SPACE.with(|c| c.set(on));
    }

    pub(crate) fn upstream_mtu_probe_any_space() -> bool {
        UPSTREAM_MTU_PROBE_ANY_SPACE.with(|c| c.get())
    }

    /// On this thread, arm a client's probe timer for the 1-RTT space once its handshake
    /// is complete, as upstream quinn-proto 0.11.19 does (`true`), or only once it is
    /// confirmed, probing the Handshake space until then (`false`, the default; PATCH.md
    /// section 9, RFC 9002 section 6.2.1).
    pub fn set_upstream_pto_before_confirmed(on: bool) {
        UPSTREAM_PTO_BEFORE_CONFIRMED.with(|c| c.set(on));
    }

    pub(crate) fn upstream_pto_before_confirmed() -> bool {
        UPSTREAM_PTO_BEFORE_CONFIRMED.with(|c| c.get())
    }

    /// On this thread, the rig's stacks (`true`; issue 33 section 2, PATCH.md "The
    /// rig's stacks"): sections 3 and 6 off, as quic-go pads every path probe to 1200 B
    /// and sends a whole datagram on any budget (upstream's behaviour), and section 5
    /// only while the current path is not validated (a spurious migration, where quic-go
    /// never left the validated path); after a completed move the return is validated
    /// again, as quic-go's `SwitchToPath` forgets every other path. `false` (the crate's
    /// default): every patch as PATCH.md writes it. The simulation sets it per run from
    /// the plan's `quic`.
    pub fn set_rig(on: bool) {
        RIG.with(|c| c.set(on));
    }

    /// Whether this thread runs the rig's stacks (`set_rig`).
    pub fn rig() -> bool {
        RIG.with(|c| c.get())
    }

    /// With the rig's stacks, whether the server follows a client to a new address as
    /// quic-go's does (probe, then switch; PATCH.md section 11) rather than as
    /// upstream quinn-proto's (switch, then validate). `set_upstream_migration_in_rig`
    /// turns it off within the rig, for the tests that show the difference.
    pub(crate) fn rig_migration() -> bool {
        rig() && !UPSTREAM_MIGRATION_IN_RIG.with(|c| c.get())
    }

    /// With the rig's stacks, whether an endpoint bundles an ACK frame with other
    /// frames only when an ack-eliciting packet arrived since its last ACK, as
    /// quic-go's does (PATCH.md section 12), rather than repeating its pending ranges
    /// in every packet as upstream quinn-proto does. `set_upstream_acks_in_rig` turns
    /// it off within the rig, for the tests that show the difference.
    pub(crate) fn rig_ack_once() -> bool {
        rig() && !UPSTREAM_ACKS_IN_RIG.with(|c| c.get())
    }

    /// On this thread, in the rig's profile, repeat pending ACK ranges in every
    /// packet as upstream quinn-proto does (`true`) instead of acknowledging once as
    /// quic-go does (`false`, the default; PATCH.md section 12).
    pub fn set_upstream_acks_in_rig(on: bool) {
        UPSTREAM_ACKS_IN_RIG.with(|c| c.set(on));
    }

    /// Whether a probe timeout sends the oldest outstanding packet's data again, as
    /// quic-go's does (PATCH.md section 15), rather than new data first as upstream
    /// quinn-proto does. `set_upstream_probes_in_rig` turns it off within the rig.
    pub(crate) fn rig_probe_oldest() -> bool {
        rig() && !UPSTREAM_PROBES_IN_RIG.with(|c| c.get())
    }

    /// On this thread, in the rig's profile, send new data in a probe as upstream
    /// quinn-proto does (`true`) instead of the oldest outstanding packet's data as
    /// quic-go does (`false`, the default; PATCH.md section 15).
    pub fn set_upstream_probes_in_rig(on: bool) {
        UPSTREAM_PROBES_IN_RIG.with(|c| c.set(on));
    }

    /// Whether an ACK of a candidate path's probe counts as an acknowledged packet, as
    /// quic-go's does (PATCH.md section 11, "The probe's acknowledgement"): it restarts
    /// the probe-timeout backoff. `set_probe_ack_uncounted_in_rig` turns it off.
    pub(crate) fn rig_probe_ack_counted() -> bool {
        rig() && !PROBE_ACK_UNCOUNTED_IN_RIG.with(|c| c.get())
    }

    /// On this thread, in the rig's profile, let an ACK that covers only a candidate
    /// path's probe leave the probe-timeout backoff as it was (`true`: section 11 as
    /// first written, the probe untracked) instead of restarting it as quic-go does
    /// (`false`, the default; PATCH.md section 11).
    pub fn set_probe_ack_uncounted_in_rig(on: bool) {
        PROBE_ACK_UNCOUNTED_IN_RIG.with(|c| c.set(on));
    }

    /// On this thread, in the rig's profile, migrate as upstream quinn-proto does
    /// (`true`) instead of as quic-go does (`false`, the default; PATCH.md section 11).
    pub fn set_upstream_migration_in_rig(on: bool) {
        UPSTREAM_MIGRATION_IN_RIG.with(|c| c.set(on));
    }

    /// On this thread, start a 1-RTT packet in a datagram cut to an unvalidated
    /// path's budget only with the room a long header needs (`true`: section 6
    /// as first written, `MIN_PACKET_SPACE`), or with a short header's (`false`,
    /// the default; PATCH.md section 6, "The floor").
    pub fn set_upstream_long_header_floor(on: bool) {
        UPSTREAM_LONG_HEADER_FLOOR.with(|c| c.set(on));
    }

    pub(crate) fn upstream_long_header_floor() -> bool {
        UPSTREAM_LONG_HEADER_FLOOR.with(|c| c.get())
    }

    /// On this thread, hold a due ACK back with the data of a space the
    /// congestion window blocks, as upstream quinn-proto 0.11.19 does (`true`),
    /// or send it alone in an ACK-only packet (`false`, the patch of PATCH.md
    /// section 7, RFC 9002 section 7; the default).
    pub fn set_upstream_ack_blocked_by_congestion(on: bool) {
        UPSTREAM_ACK_BLOCKED_BY_CONGESTION.with(|c| c.set(on));
    }

    pub(crate) fn upstream_ack_blocked_by_congestion() -> bool {
        UPSTREAM_ACK_BLOCKED_BY_CONGESTION.with(|c| c.get())
    }

    /// On this thread, restore a path (PATCH.md section 5) without queueing
    /// its PING (`true`: the gap section 5 had before session 11, for the test
    /// that shows the PING is needed), or with it (`false`, the default).
    pub fn set_no_restore_ping(on: bool) {
        NO_RESTORE_PING.with(|c| c.set(on));
    }

    pub(crate) fn no_restore_ping() -> bool {
        NO_RESTORE_PING.with(|c| c.get())
    }

    /// On this thread, let a datagram of a whole segment go to an unvalidated
    /// path while any anti-amplification budget is left, as upstream
    /// quinn-proto 0.11.19 does (`true`), or cap it at the budget (`false`, the
    /// patch of PATCH.md section 6, RFC 9000 section 8.1; the default).
    pub fn set_upstream_full_datagram_on_budget(on: bool) {
        UPSTREAM_FULL_DATAGRAM_ON_BUDGET.with(|c| c.set(on));
    }

    pub(crate) fn upstream_full_datagram_on_budget() -> bool {
        UPSTREAM_FULL_DATAGRAM_ON_BUDGET.with(|c| c.get()) || rig()
    }

    /// On this thread, treat a peer's return to the last validated address as
    /// a migration to a new, unvalidated path, as upstream quinn-proto 0.11.19
    /// does (`true`), or go back to that path and its state (`false`, the
    /// patch of PATCH.md section 5, RFC 9000 section 9.3; the default).
    pub fn set_upstream_revalidates_old_path(on: bool) {
        UPSTREAM_REVALIDATES_OLD_PATH.with(|c| c.set(on));
    }

    pub(crate) fn upstream_revalidates_old_path() -> bool {
        UPSTREAM_REVALIDATES_OLD_PATH.with(|c| c.get())
    }

    /// On this thread, pad every datagram carrying PATH_CHALLENGE or
    /// PATH_RESPONSE to 1200 bytes whatever the path's anti-amplification
    /// budget, as upstream quinn-proto 0.11.19 does (`true`), or pad it only as
    /// far as an unvalidated path's budget allows (`false`, the default: the
    /// patch of PATCH.md section 3, RFC 9000 section 8.2.1; on since section 5
    /// mends what it lost under forged moves).
    pub fn set_upstream_challenge_padding(on: bool) {
        UPSTREAM_CHALLENGE_PADDING.with(|c| c.set(on));
    }

    pub(crate) fn upstream_challenge_padding() -> bool {
        UPSTREAM_CHALLENGE_PADDING.with(|c| c.get()) || rig()
    }

    /// On this thread, send MTU probes to a path that is not validated yet, as
    /// upstream quinn-proto 0.11.19 does (`true`), or wait for its validation
    /// (`false`, the patch; the default). For the simulator's bug switch only.
    pub fn set_upstream_mtud_on_unvalidated_path(on: bool) {
        UPSTREAM_MTUD_ON_UNVALIDATED_PATH.with(|c| c.set(on));
    }

    pub(crate) fn upstream_mtud_on_unvalidated_path() -> bool {
        UPSTREAM_MTUD_ON_UNVALIDATED_PATH.with(|c| c.get())
    }
}

mod cid_generator;
pub use crate::cid_generator::{
    ConnectionIdGenerator, HashedConnectionIdGenerator, InvalidCid, RandomConnectionIdGenerator,
};

mod token;
use token::ResetToken;
pub use token::{NoneTokenLog, NoneTokenStore, TokenLog, TokenReuseError, TokenStore};

mod token_memory_cache;
pub use token_memory_cache::TokenMemoryCache;

#[cfg(feature = "arbitrary")]
use arbitrary::Arbitrary;

// Deal with time
#[cfg(not(all(target_family = "wasm", target_os = "unknown")))]
pub(crate) use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};
#[cfg(all(target_family = "wasm", target_os = "unknown"))]
pub(crate) use web_time::{Duration, Instant, SystemTime, UNIX_EPOCH};

#[cfg(fuzzing)]
pub mod fuzzing {
    pub use crate::connection::{Retransmits, State as ConnectionState, StreamsState};
    pub use crate::frame::ResetStream;
    pub use crate::packet::PartialDecode;
    pub use crate::transport_parameters::TransportParameters;
    pub use bytes::{BufMut, BytesMut};

    #[cfg(feature = "arbitrary")]
    use arbitrary::{Arbitrary, Result, Unstructured};

    #[cfg(feature = "arbitrary")]
    impl<'arbitrary> Arbitrary<'arbitrary> for TransportParameters {
        fn arbitrary(u: &mut Unstructured<'arbitrary>) -> Result<Self> {
            Ok(Self {
                initial_max_streams_bidi: u.arbitrary()?,
                initial_max_streams_uni: u.arbitrary()?,
                ack_delay_exponent: u.arbitrary()?,
                max_udp_payload_size: u.arbitrary()?,
                ..Self::default()
            })
        }
    }

    #[derive(Debug)]
    pub struct PacketParams {
        pub local_cid_len: usize,
        pub buf: BytesMut,
        pub grease_quic_bit: bool,
    }

    #[cfg(feature = "arbitrary")]
    impl<'arbitrary> Arbitrary<'arbitrary> for PacketParams {
        fn arbitrary(u: &mut Unstructured<'arbitrary>) -> Result<Self> {
            let local_cid_len: usize = u.int_in_range(0..=crate::MAX_CID_SIZE)?;
            let bytes: Vec<u8> = Vec::arbitrary(u)?;
            let mut buf = BytesMut::new();
            buf.put_slice(&bytes[..]);
            Ok(Self {
                local_cid_len,
                buf,
                grease_quic_bit: bool::arbitrary(u)?,
            })
        }
    }
}

/// The QUIC protocol version implemented.
pub const DEFAULT_SUPPORTED_VERSIONS: &[u32] = &[
    0x00000001,
    0xff00_001d,
    0xff00_001e,
    0xff00_001f,
    0xff00_0020,
    0xff00_0021,
    0xff00_0022,
];

/// Whether an endpoint was the initiator of a connection
#[cfg_attr(feature = "arbitrary", derive(Arbitrary))]
#[derive(Debug, Copy, Clone, Eq, PartialEq, Ord, PartialOrd, Hash)]
pub enum Side {
    /// The initiator of a connection
    Client = 0,
    /// The acceptor of a connection
    Server = 1,
}

impl Side {
    #[inline]
    /// Shorthand for `self == Side::Client`
    pub fn is_client(self) -> bool {
        self == Self::Client
    }

    #[inline]
    /// Shorthand for `self == Side::Server`
    pub fn is_server(self) -> bool {
        self == Self::Server
    }
}

impl ops::Not for Side {
    type Output = Self;
    fn not(self) -> Self {
        match self {
            Self::Client => Self::Server,
            Self::Server => Self::Client,
        }
    }
}

/// Whether a stream communicates data in both directions or only from the initiator
#[cfg_attr(feature = "arbitrary", derive(Arbitrary))]
#[derive(Debug, Copy, Clone, Eq, PartialEq, Ord, PartialOrd, Hash)]
pub enum Dir {
    /// Data flows in both directions
    Bi = 0,
    /// Data flows only from the stream's initiator
    Uni = 1,
}

impl Dir {
    fn iter() -> impl Iterator<Item = Self> {
        [Self::Bi, Self::Uni].iter().cloned()
    }
}

impl fmt::Display for Dir {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        use Dir::*;
        f.pad(match *self {
            Bi => "bidirectional",
            Uni => "unidirectional",
        })
    }
}

/// Identifier for a stream within a particular connection
#[cfg_attr(feature = "arbitrary", derive(Arbitrary))]
#[derive(Debug, Copy, Clone, Eq, PartialEq, Ord, PartialOrd, Hash)]
pub struct StreamId(u64);

impl fmt::Display for StreamId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let initiator = match self.initiator() {
            Side::Client => "client",
            Side::Server => "server",
        };
        let dir = match self.dir() {
            Dir::Uni => "uni",
            Dir::Bi => "bi",
        };
        write!(
            f,
            "{} {}directional stream {}",
            initiator,
            dir,
            self.index()
        )
    }
}

impl StreamId {
    /// Create a new StreamId
    pub fn new(initiator: Side, dir: Dir, index: u64) -> Self {
        Self((index << 2) | ((dir as u64) << 1) | initiator as u64)
    }
    /// Which side of a connection initiated the stream
    pub fn initiator(self) -> Side {
        if self.0 & 0x1 == 0 {
            Side::Client
        } else {
            Side::Server
        }
    }
    /// Which directions data flows in
    pub fn dir(self) -> Dir {
        if self.0 & 0x2 == 0 { Dir::Bi } else { Dir::Uni }
    }
    /// Distinguishes streams of the same initiator and directionality
    pub fn index(self) -> u64 {
        self.0 >> 2
    }
}

impl From<StreamId> for VarInt {
    fn from(x: StreamId) -> Self {
        unsafe { Self::from_u64_unchecked(x.0) }
    }
}

impl From<VarInt> for StreamId {
    fn from(v: VarInt) -> Self {
        Self(v.0)
    }
}

impl From<StreamId> for u64 {
    fn from(x: StreamId) -> Self {
        x.0
    }
}

impl coding::Codec for StreamId {
    fn decode<B: bytes::Buf>(buf: &mut B) -> coding::Result<Self> {
        VarInt::decode(buf).map(|x| Self(x.into_inner()))
    }
    fn encode<B: bytes::BufMut>(&self, buf: &mut B) {
        VarInt::from_u64(self.0).unwrap().encode(buf);
    }
}

/// An outgoing packet
#[derive(Debug)]
#[must_use]
pub struct Transmit {
    /// The socket this datagram should be sent to
    pub destination: SocketAddr,
    /// Explicit congestion notification bits to set on the packet
    pub ecn: Option<EcnCodepoint>,
    /// Amount of data written to the caller-supplied buffer
    pub size: usize,
    /// The segment size if this transmission contains multiple datagrams.
    /// This is `None` if the transmit only contains a single datagram
    pub segment_size: Option<usize>,
    /// Optional source IP address for the datagram
    pub src_ip: Option<IpAddr>,
}

//
// Useful internal constants
//

/// The maximum number of CIDs we bother to issue per connection
const LOC_CID_COUNT: u64 = 8;
const RESET_TOKEN_SIZE: usize = 16;
const MAX_CID_SIZE: usize = 20;
const MIN_INITIAL_SIZE: u16 = 1200;
/// <https://www.rfc-editor.org/rfc/rfc9000.html#name-datagram-size>
const INITIAL_MTU: u16 = 1200;
const MAX_UDP_PAYLOAD: u16 = 65527;
const TIMER_GRANULARITY: Duration = Duration::from_millis(1);
/// Maximum number of streams that can be uniquely identified by a stream ID
const MAX_STREAM_COUNT: u64 = 1 << 60;
