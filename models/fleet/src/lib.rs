//! The cloud's sharded QUIC server (design/SPEC.md section 5, seed 002: ioxide #205/#210 and
//! the pin work) as IO-free state machines.
//!
//! N reactors share one UDP port. Each runs its own QUIC endpoint (a quinn-proto `Endpoint`,
//! bound by a driver in `sim/`); this crate decides which reactor reads which bytes:
//!
//! * [`ShardCidGenerator`]: every server-minted id carries its owner, `cid[0] % N`.
//! * [`Kernel`]: the reuseport hash, pins (connected sockets, a more specific match), and the
//!   `KernelFilter` program.
//! * [`Fleet`]: the receive buffers, the forwarding between reactors, the 250 ms pin sweep,
//!   the counters and the trace events, with the known bugs as [`FleetBugs`] switches.
//!
//! # Choices made here (SPEC.md leaves them open)
//!
//! * Arrival and reading are two steps ([`Fleet::on_datagram`], then [`Fleet::poll_delivery`]
//!   or [`Fleet::poll_recv`]): a finite receive buffer and a reused receive slot can only be
//!   observed if a datagram can wait.
//! * The receive buffer is per socket (each listener and each pin), charged by payload length.
//! * The receive slots are reused LIFO: the slot a dispatch returns is the next one filled.
//! * A short header for an id this reactor does not hold but whose byte 0 names it is stale
//!   (dropped, counted); ids minted by a reactor count as held until retired.
//! * A moved connection refused by the pin ceiling stays moved and is claimed by a later sweep
//!   once a pin frees; an address another socket already holds is skipped (the failed bind is
//!   swallowed, as in seed 002).
//! * A pin closed with datagrams queued on it loses them (counted as `pin_socket_drops`): that
//!   is the harm of `claim_per_path_report`.
//! * Sweeps of all reactors run together at multiples of `pin_sweep_ms` from time 0.
//!
//! Nothing here reads a clock, a socket or the machine's entropy: time comes in as `now_ms`,
//! randomness as 32-byte seeds.

pub mod cid;
pub mod consts;
pub mod fleet;
pub mod kernel;
pub mod packet;

use std::fmt;

pub use cid::{Cid, MintedCids, ShardCidGenerator};
pub use fleet::{Arrival, Counters, DatagramId, Delivery, Fleet, FleetEvent, PinReleaseReason, Via};
pub use kernel::{Kernel, SocketId};
pub use quinn_proto::ConnectionHandle;

/// One reactor of the fleet, `0..reactor_count`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct ReactorId(u8);

impl ReactorId {
    /// Reactor `index` (must be below [`consts::REACTOR_COUNT_MAX`]).
    pub fn new(index: usize) -> Self {
        assert!(index < consts::REACTOR_COUNT_MAX, "reactor {index} >= {}", consts::REACTOR_COUNT_MAX);
        Self(index as u8)
    }

    /// The index, for tables.
    pub fn index(self) -> usize {
        usize::from(self.0)
    }
}

impl fmt::Display for ReactorId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "r{}", self.0)
    }
}

/// How a datagram reaches the reactor that owns its connection (seed 002, `QuicOptions.Routing`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Routing {
    /// The kernel hashes the sender; a reactor that gets a short header for an id it does not
    /// hold posts a copy to the owner named by byte 0; the owner pins moved clients.
    #[default]
    Forward,
    /// A classic-BPF program routes short headers by `cid[0] % N`; nothing is forwarded and no
    /// pin is claimed. Forwarding stays underneath (it never fires).
    KernelFilter,
}

/// The known bugs of SPEC.md section 7 that live in the fleet. All off by default.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct FleetBugs {
    /// Pre-#205: a short header for an id the reactor does not hold is dropped as stale.
    pub no_routing: bool,
    /// #210's warning: long headers are also forwarded by byte 0 of their destination id, which
    /// the client chose, so a client aims its traffic at any reactor it likes.
    pub forward_long_headers: bool,
    /// The pin work's first try: claim a pin on every path report instead of from the sweep
    /// (five claims for one address change, queued datagrams lost on each teardown).
    pub claim_per_path_report: bool,
    /// #205's warning: forward a reference to the receiving reactor's receive slot instead of a
    /// copy; the slot is reused by that reactor's next datagram before the owner reads it.
    pub forward_reference: bool,
    /// A planted bug, not from the seeds (it proves a model's own assertion is a
    /// finding: law `no-panic`): a new pin is not counted in `PinsOpen`, so the
    /// fleet's invariant "pin gauges agree with the kernel" fails on the first pin.
    pub pin_gauge_drift: bool,
    /// A bug planted in the kernel (the world's, not the SPEC's; only a test plants it):
    /// the reuseport hash reads the sender's address but not its port, so a NAT rebind
    /// never re-hashes the client (SPEC section 5 says it does).
    pub hash_ignores_port: bool,
}

/// Everything a [`Fleet`] is built from. `Default` is the shipping configuration.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct FleetConfig {
    pub reactor_count: usize,
    pub routing: Routing,
    pub bugs: FleetBugs,
    /// The reuseport hash's secret (see [`kernel`]); part of the seed of a run.
    pub hash_salt: u64,
    pub pin_sweep_ms: u64,
    pub pins_per_reactor_max: usize,
    pub forward_queue_len_max: usize,
    /// Per socket (each listener and each pin has its own).
    pub recv_buffer_bytes: usize,
    /// Record [`FleetEvent`]s for [`Fleet::poll_event`] (a driver that never drains should
    /// turn this off).
    pub record_events: bool,
}

impl Default for FleetConfig {
    fn default() -> Self {
        Self {
            reactor_count: consts::REACTOR_COUNT_DEFAULT,
            routing: Routing::Forward,
            bugs: FleetBugs::default(),
            hash_salt: 0,
            pin_sweep_ms: consts::PIN_SWEEP_MS,
            pins_per_reactor_max: consts::PINS_PER_REACTOR_MAX,
            forward_queue_len_max: consts::FORWARD_QUEUE_LEN_MAX,
            // What ioxide asks for, clamped by the kernel to what a stock Linux grants.
            recv_buffer_bytes: consts::RECV_BUFFER_REQUEST_BYTES.min(consts::RECV_BUFFER_BYTES),
            record_events: true,
        }
    }
}
