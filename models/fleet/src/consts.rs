//! Every number the fleet model uses, each with where it comes from.
//!
//! "Seed 002" is `/work/shared/seeds/002_eef7cbb7c6c329ff.txt` (ioxide #210 / #205 and the
//! pin work that followed it). "SPEC" is `design/SPEC.md`.

/// Reactors in the fleet when the caller does not say. SPEC section 5 / brief: default 4
/// (ioxide defaults `ReactorCount` to one per core; the sim picks a small fixed fleet).
pub const REACTOR_COUNT_DEFAULT: usize = 4;

/// Upper bound on reactors, so that `cid[0] % N` can name every reactor with one byte and
/// every per-reactor table stays small. Chosen here (a byte names at most 256 owners).
pub const REACTOR_COUNT_MAX: usize = 64;

/// How often each reactor's sweep visits its connections and claims a pin for a client that
/// moved. SPEC section 5 and section 6 ("pin sweep 250 ms"); seed 002 ("The sweep visits
/// every connection every 250 ms").
pub const PIN_SWEEP_MS: u64 = 250;

/// Concurrent pins (connected receive sockets) one reactor may hold; past it the connection
/// keeps forwarding. SPEC sections 5 and 6; seed 002 ("A ceiling of 512 concurrent claims").
pub const PINS_PER_REACTOR_MAX: usize = 512;

/// Forwards posted to one owner and not yet read by it; a post past it is dropped and
/// counted as ForwardsDropped. Brief for this crate (the bound on the cross-reactor queue
/// that `ScheduleOnReactor` rides in seed 002).
pub const FORWARD_QUEUE_LEN_MAX: usize = 1024;

/// Bytes of queued datagrams one UDP socket holds before the kernel drops: what a stock
/// Linux grants (`net.core.rmem_max`) of ioxide's 8 MiB `SO_RCVBUF` request. Seed 002
/// ("on a stock Linux box that ceiling is 212,992 bytes"); SPEC section 5 ("about 208 KiB").
/// Chosen here: the model charges a datagram its payload length only (the kernel charges
/// the skb's truesize, which is larger).
pub const RECV_BUFFER_BYTES: usize = 212_992;

/// What ioxide asks for with `SO_RCVBUF` (and is clamped to [`RECV_BUFFER_BYTES`]). Seed 002
/// ("The receive/send buffer asked for on every UDP socket was a private const of 8 MiB").
pub const RECV_BUFFER_REQUEST_BYTES: usize = 8 * 1024 * 1024;

/// Length of every connection id the server mints (and so the destination id length of a
/// short header it receives). Brief for this crate: 8-byte ids, as quinn-proto's default
/// generators; RFC 9000 section 7.2 asks for at least 8 bytes of client-chosen initial id.
pub const LOCAL_CID_LEN: usize = 8;

/// Receive slots (io_uring provided buffers) per reactor. Chosen here; the value does not
/// change what the model observes because a slot is returned as soon as dispatch ends and
/// the most recently returned slot is the next one used (LIFO), as in seed 002: "the payload
/// lives in the receiving reactor's io_uring provided-buffer ring, which is returned as soon
/// as dispatch ends".
pub const RECV_SLOTS_PER_REACTOR: usize = 64;

/// Ids a reactor may be told it holds, a bound so a driver that never retires ids fails
/// loudly instead of growing without limit. Chosen here.
pub const HELD_CIDS_PER_REACTOR_MAX: usize = 1 << 20;

/// Largest UDP payload (IPv4: 65,535 - 20 - 8). RFC 768 / RFC 791.
pub const UDP_PAYLOAD_MAX_BYTES: usize = 65_507;

/// Longest connection id QUIC v1 allows in a long header. RFC 9000 section 17.2.
pub const CID_LEN_MAX: usize = 20;
