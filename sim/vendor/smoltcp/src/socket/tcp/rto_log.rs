//! ftw-sim patch: a log of the retransmission timer's decisions (PATCH.md section
//! "RTO log"), so a simulation can judge each against RFC 6298 from the RTT samples
//! the connection measured. Off unless `begin` was called on this thread; `end`
//! hands the events back. It changes nothing the socket does.

use core::cell::{Cell, RefCell};

extern crate std;
use std::vec::Vec;

use crate::wire::IpEndpoint;

/// One decision of one connection's retransmission timer.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RtoEvent {
    /// The socket's clock, in ms.
    pub at_ms: i64,
    pub local: IpEndpoint,
    pub remote: IpEndpoint,
    pub kind: RtoKind,
}

/// What the timer did.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RtoKind {
    /// An RTT sample of `rtt_ms`; the estimator after it (RFC 6298 2.2, 2.3).
    Sample { rtt_ms: u32, srtt_ms: u32, rttvar_ms: u32, rto_ms: u32 },
    /// The retransmission timer started to expire `delay_ms` from now (RFC 6298 5.1, 5.3).
    Armed { delay_ms: u32 },
    /// The tail loss probe was armed to fire `pto_us` from now (RFC 8985 section 7;
    /// Linux `tcp_schedule_loss_probe`), with `segs` segments in flight and the
    /// retransmission timer, if running, due `rto_left_us` from now.
    ProbeArmed { pto_us: u64, segs: u32, rto_left_us: Option<u64> },
    /// The retransmission timer expired; the backed-off RTO after it (5.5), and
    /// whether the estimator forgot its samples (the RFC's MAY after repeated backoff).
    Fired { rto_ms: u32, forgot: bool },
    /// Data arrived that is not yet acknowledged (the delayed-ACK timer's input,
    /// RFC 9293 3.8.6.3, Linux `__tcp_ack_snd_check`): `unacked` bytes wait for an
    /// ACK after it, the peer's MSS is `mss` and this end's `advmss`, `in_order` is
    /// false when the segment left or filled a gap, and `seg` is the segment.
    DataIn { unacked: u32, mss: u32, advmss: u32, in_order: bool, seg: Seg },
    /// The application read `copied` bytes; `left` remain in the receive buffer and
    /// `unacked` bytes wait for an ACK (Linux `tcp_cleanup_rbuf`'s input).
    AppRead { copied: u32, left: u32, unacked: u32 },
    /// A segment went out carrying data, or acknowledging data not acknowledged
    /// before (`acks_new`): the delayed-ACK timer's output. `reply`: an ACK sent
    /// at once in answer to an arriving segment (a duplicate, out of order, filling
    /// a gap), not by the sending path that the delayed-ACK timer drives. `delack`:
    /// the delayed-ACK timer expired and sent it (Linux `tcp_delack_timer_handler`;
    /// smoltcp may put waiting data in the same segment, where Linux sends a pure ACK).
    SegOut { data: bool, acks_new: bool, reply: bool, delack: bool },
    /// A SYN moved a listening socket to SYN-RECEIVED (the SYN-ACK's timer starts).
    SynIn,
    /// The socket opened a connection (SYN-SENT): a new connection, whose state owes
    /// nothing to an earlier one on the same addresses and ports.
    Connect,
    /// A repeated SYN for this connection arrived while it sat in SYN-RECEIVED
    /// (the caller's decision, `Socket::ftw_repeated_syn`): whether the SYN-ACK was
    /// sent again in answer.
    SynAgain { answered: bool },
    /// The connection gave up in SYN-RECEIVED: `reset` when it told the peer with an
    /// RST (stock smoltcp's timeout), not when it forgot silently (Linux).
    GaveUp { reset: bool },
}

/// A data segment as it arrived (Linux `tcp_measure_rcv_mss`'s input).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Seg {
    /// Payload bytes.
    pub len: u32,
    /// Its TCP header's length, options included.
    pub hdr: u32,
    /// The connection's fixed header length: 20, plus 12 with timestamps.
    pub fixed_hdr: u32,
    /// PSH, FIN, SYN or URG set (Linux `TCP_REMNANT`).
    pub remnant: bool,
    /// It started at the next byte expected (queued in order, not out of order).
    pub queued: bool,
}

std::thread_local! {
    static LOG: RefCell<Option<Vec<RtoEvent>>> = const { RefCell::new(None) };
}

/// Start logging on this thread (a new run).
pub fn begin() {
    LOG.with(|l| *l.borrow_mut() = Some(Vec::new()));
}

/// Stop logging and hand back what was logged.
pub fn end() -> Vec<RtoEvent> {
    LOG.with(|l| l.borrow_mut().take()).unwrap_or_default()
}

pub(super) fn note(event: RtoEvent) {
    LOG.with(|l| {
        if let Some(v) = l.borrow_mut().as_mut() {
            v.push(event);
        }
    });
}

std::thread_local! {
    static NO_BACKOFF: Cell<bool> = const { Cell::new(false) };
}

/// A bug planted by a test (the simulation's `world::plant`): an expired timer
/// keeps its RTO instead of doubling it (RFC 6298 5.5), so a test can show the
/// simulation's TCP reference catching it. Off unless a test turns it on.
pub fn plant_no_backoff(on: bool) {
    NO_BACKOFF.with(|b| b.set(on));
}

pub(super) fn no_backoff() -> bool {
    NO_BACKOFF.with(|b| b.get())
}

std::thread_local! {
    static NO_QUICKACK: Cell<bool> = const { Cell::new(false) };
}

/// A bug planted by a test: the Linux flavour's quick-ack mode is gone, so the
/// first data segments of a connection wait for the delayed ACK (Linux
/// `tcp_incr_quickack`). Off unless a test turns it on.
pub fn plant_no_quickack(on: bool) {
    NO_QUICKACK.with(|b| b.set(on));
}

pub(super) fn no_quickack() -> bool {
    NO_QUICKACK.with(|b| b.get())
}

std::thread_local! {
    static SYNRECV_AS_STOCK: Cell<bool> = const { Cell::new(false) };
}

/// A bug planted by a test: the Linux flavour's SYN-RECEIVED behaves as stock
/// smoltcp's (a repeated SYN dropped unanswered, the half-open connection given up
/// with an RST by the socket's timeout), as before ftw-tcp's mend. Off unless a test
/// turns it on; read by ftw-tcp.
pub fn plant_synrecv_as_stock(on: bool) {
    SYNRECV_AS_STOCK.with(|b| b.set(on));
}

/// Whether [`plant_synrecv_as_stock`] is on.
pub fn synrecv_as_stock() -> bool {
    SYNRECV_AS_STOCK.with(|b| b.get())
}

std::thread_local! {
    static NO_READ_ACK: Cell<bool> = const { Cell::new(false) };
}

/// A bug planted by a test: the Linux flavour's application read never sends the
/// ACK a drained small pushed segment asks for (Linux `tcp_cleanup_rbuf`). Off
/// unless a test turns it on. Only ftw-tcp's own test plants it: no scenario streams
/// small segments faster than the RTO to a reader outside pingpong mode (slower ones
/// get quick-acks), so no run shows it; the reference's rule is shown on journals
/// (`ftw_properties::reference::tcp::ack` tests).
pub fn plant_no_read_ack(on: bool) {
    NO_READ_ACK.with(|b| b.set(on));
}

pub(super) fn no_read_ack() -> bool {
    NO_READ_ACK.with(|b| b.get())
}
