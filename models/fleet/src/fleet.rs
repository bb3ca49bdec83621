//! The router: receive buffers, forwarding between reactors, pins, counters and trace events.
//!
//! # How a driver uses it
//!
//! 1. A datagram for the shared port arrives: [`Fleet::on_datagram`]. The kernel model picks a
//!    socket and queues the bytes in that socket's receive buffer (or drops them, counted).
//! 2. Reactors read: [`Fleet::poll_delivery`] (every reactor, oldest work first) or
//!    [`Fleet::poll_recv`] (one reactor). A read takes the datagram into a receive slot and
//!    decides: hand it to this reactor's endpoint (a [`Delivery`]), post it to the owner
//!    (a forward, read later by the owner as its own [`Delivery`]), or drop it as stale.
//!    Each [`Delivery`] says which reactor's endpoint must handle which bytes.
//! 3. The driver tells the fleet what its endpoints know: the ids each reactor holds
//!    ([`Fleet::attach_minted`] or [`Fleet::register_cid`]/[`Fleet::retire_cid`]), new
//!    connections ([`Fleet::connection_opened`]), a connection's new peer address
//!    ([`Fleet::path_report`]), and closes ([`Fleet::connection_closed`]).
//! 4. Timers: [`Fleet::poll_timeout`] / [`Fleet::handle_timeout`] drive the 250 ms pin sweep.
//!
//! Sends are not routed here: every reactor sends from its listener socket (pins only receive).
//!
//! # Ordering (chosen here)
//!
//! Each reactor has one queue of work in arrival order: datagrams from its sockets and forwards
//! posted to it. Work gets a fleet-wide sequence number when queued; [`Fleet::poll_delivery`]
//! always runs the oldest. A forward is queued when the sender reads the datagram, so a
//! datagram already waiting at the sender is read before the owner reads the forward.

use std::collections::{BTreeMap, BTreeSet, VecDeque};
use std::fmt;
use std::net::SocketAddr;

use quinn_proto::ConnectionHandle;

use crate::cid::{Cid, MintedCids};
use crate::consts::{HELD_CIDS_PER_REACTOR_MAX, LOCAL_CID_LEN, REACTOR_COUNT_MAX, RECV_SLOTS_PER_REACTOR, UDP_PAYLOAD_MAX_BYTES};
use crate::kernel::{Kernel, SocketId};
use crate::packet::{dst_cid, header_form, owner_of, HeaderForm};
use crate::{FleetConfig, ReactorId, Routing};

/// A datagram's number, given when it reaches the kernel, in arrival order. A forwarded
/// datagram keeps its number, so a driver can compare the bytes delivered with the bytes sent.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct DatagramId(pub u64);

impl fmt::Display for DatagramId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "d{}", self.0)
    }
}

/// What the kernel did with an arriving datagram.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Arrival {
    pub datagram: DatagramId,
    pub socket: SocketId,
    /// False: the socket's receive buffer was full and the datagram was dropped.
    pub queued: bool,
}

/// How the delivered bytes reached the reactor.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Via {
    /// Read from the reactor's listener (the reuseport hash or the kernel filter chose it).
    Listener,
    /// Read from one of the reactor's pins.
    Pin,
    /// Read by `from`, which posted it here.
    Forwarded { from: ReactorId },
}

/// Bytes for one reactor's endpoint: the driver calls that endpoint's `handle` with them.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Delivery {
    pub datagram: DatagramId,
    pub reactor: ReactorId,
    pub src: SocketAddr,
    /// What the reactor read. Equal to what was sent unless `forward_reference` is on.
    pub bytes: Vec<u8>,
    pub via: Via,
}

/// Why a pin was closed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PinReleaseReason {
    /// Its connection ended.
    ConnectionClosed,
    /// Its connection claimed another address.
    Replaced,
}

/// A trace event.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum FleetEvent {
    /// `from` read a short header for `to`'s id and posted it there.
    Forwarded { datagram: DatagramId, from: ReactorId, to: ReactorId, by_reference: bool },
    /// `to`'s forward queue was full; the datagram is lost.
    ForwardDropped { datagram: DatagramId, from: ReactorId, to: ReactorId },
    /// `reactor` connected a socket to `peer` for connection `conn`.
    Pinned { reactor: ReactorId, conn: ConnectionHandle, peer: SocketAddr },
    /// A pin closed; `lost` datagrams were still queued on it.
    PinReleased { reactor: ReactorId, conn: ConnectionHandle, peer: SocketAddr, reason: PinReleaseReason, lost: usize },
    /// `reactor` dropped a short header for an id nobody here holds (or, with `no_routing`,
    /// an id it does not hold).
    StaleDrop { datagram: DatagramId, reactor: ReactorId, cid: Vec<u8> },
    /// The receive buffer of `socket` was full.
    BufferDrop { datagram: DatagramId, socket: SocketId, len: usize },
}

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

impl fmt::Display for FleetEvent {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            FleetEvent::Forwarded { datagram, from, to, by_reference } => {
                let how = if *by_reference { "reference" } else { "copy" };
                write!(f, "{datagram} forwarded {from}->{to} ({how})")
            }
            FleetEvent::ForwardDropped { datagram, from, to } => {
                write!(f, "{datagram} forward dropped {from}->{to} (queue full)")
            }
            FleetEvent::Pinned { reactor, conn, peer } => write!(f, "{reactor} pinned conn {} to {peer}", conn.0),
            FleetEvent::PinReleased { reactor, conn, peer, reason, lost } => {
                let why = match reason {
                    PinReleaseReason::ConnectionClosed => "closed",
                    PinReleaseReason::Replaced => "replaced",
                };
                write!(f, "{reactor} pin released conn {} from {peer} ({why}, {lost} queued lost)", conn.0)
            }
            FleetEvent::StaleDrop { datagram, reactor, cid } => {
                write!(f, "{datagram} stale drop at {reactor} cid {}", hex(cid))
            }
            FleetEvent::BufferDrop { datagram, socket, len } => {
                write!(f, "{datagram} buffer drop at {socket} ({len} bytes)")
            }
        }
    }
}

/// The counters of one reactor (or their sum). Names follow seed 002's `Quic*` counters.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Counters {
    /// Datagrams this reactor's sockets accepted into their receive buffers.
    pub datagrams_received: u64,
    /// Datagrams handed to this reactor's endpoint (direct or forwarded).
    pub datagrams_delivered: u64,
    /// Forwards this reactor posted to an owner.
    pub forwards_sent: u64,
    /// Forwards this reactor read from its queue.
    pub forwards_received: u64,
    /// Forwards this reactor could not post: the owner's queue was full.
    pub forwards_dropped: u64,
    /// Short headers this reactor dropped for an id no reactor (with `no_routing`: not this
    /// one) holds.
    pub stale_datagrams: u64,
    /// Pins this reactor claimed.
    pub pins_created: u64,
    /// Pins open now (a gauge; the sum is the fleet's).
    pub pins_open: u64,
    /// Datagrams the kernel dropped because a socket of this reactor had a full buffer.
    pub recv_buffer_drops: u64,
    /// Datagrams still queued on a pin when it closed (lost with the socket).
    pub pin_socket_drops: u64,
}

impl Counters {
    fn add(&mut self, o: &Counters) {
        self.datagrams_received += o.datagrams_received;
        self.datagrams_delivered += o.datagrams_delivered;
        self.forwards_sent += o.forwards_sent;
        self.forwards_received += o.forwards_received;
        self.forwards_dropped += o.forwards_dropped;
        self.stale_datagrams += o.stale_datagrams;
        self.pins_created += o.pins_created;
        self.pins_open += o.pins_open;
        self.recv_buffer_drops += o.recv_buffer_drops;
        self.pin_socket_drops += o.pin_socket_drops;
    }
}

impl fmt::Display for Counters {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "recv={} deliv={} fwd_sent={} fwd_recv={} fwd_drop={} stale={} pins_created={} pins_open={} rcvbuf_drop={} pin_drop={}",
            self.datagrams_received,
            self.datagrams_delivered,
            self.forwards_sent,
            self.forwards_received,
            self.forwards_dropped,
            self.stale_datagrams,
            self.pins_created,
            self.pins_open,
            self.recv_buffer_drops,
            self.pin_socket_drops
        )
    }
}

/// The provided-buffer ring of one reactor: fixed slots, the most recently returned slot is
/// the next one filled (chosen here: LIFO, so a slot is reused by the very next read).
#[derive(Debug)]
struct RecvRing {
    slots: Vec<Vec<u8>>,
    free: Vec<usize>,
}

impl RecvRing {
    fn new(len: usize) -> Self {
        Self { slots: vec![Vec::new(); len], free: (0..len).rev().collect() }
    }

    fn take(&mut self) -> usize {
        self.free.pop().expect("a reactor reads one datagram at a time, so a slot is free")
    }

    fn give_back(&mut self, slot: usize) {
        assert!(slot < self.slots.len() && !self.free.contains(&slot));
        self.free.push(slot);
    }

    /// Fills the slot's first bytes; a longer earlier datagram's tail stays behind it.
    fn write(&mut self, slot: usize, bytes: &[u8]) {
        let s = &mut self.slots[slot];
        if s.len() < bytes.len() {
            s.resize(bytes.len(), 0);
        }
        s[..bytes.len()].copy_from_slice(bytes);
    }

    fn read(&self, slot: usize, len: usize) -> Vec<u8> {
        self.slots[slot][..len].to_vec()
    }
}

#[derive(Debug)]
enum Payload {
    /// The bytes, copied out of the sender's slot (the fix).
    Copy(Vec<u8>),
    /// Where the bytes were in the sender's ring (`forward_reference`).
    Ref { slot: usize, len: usize },
}

#[derive(Debug)]
enum Work {
    Datagram { socket: SocketId, bytes: Vec<u8> },
    Forward { from: ReactorId, payload: Payload },
}

#[derive(Debug)]
struct Pending {
    seq: u64,
    datagram: DatagramId,
    src: SocketAddr,
    work: Work,
}

#[derive(Debug)]
struct Reactor {
    held: BTreeSet<Cid>,
    minted: Option<MintedCids>,
    queue: VecDeque<Pending>,
    /// Bytes queued per socket of this reactor.
    socket_bytes: BTreeMap<SocketId, usize>,
    ring: RecvRing,
    forwards_queued: usize,
    counters: Counters,
}

#[derive(Debug)]
struct Conn {
    peer: SocketAddr,
    pin: Option<SocketAddr>,
}

type ConnKey = (ReactorId, ConnectionHandle);

enum Decision {
    Local,
    Stale(Vec<u8>),
    Forward(ReactorId),
}

/// The reactor fleet. See the module doc.
pub struct Fleet {
    cfg: FleetConfig,
    kernel: Kernel,
    reactors: Vec<Reactor>,
    conns: BTreeMap<ConnKey, Conn>,
    /// Connections whose peer address changed since their last claim (seed 002's
    /// `PeerAddressMoved`): the only ones the sweep visits.
    moved: BTreeSet<ConnKey>,
    events: VecDeque<FleetEvent>,
    next_datagram: u64,
    next_seq: u64,
    next_sweep_ms: u64,
    now_ms: u64,
}

impl Fleet {
    /// A fleet as `cfg` says, no connections, empty buffers.
    pub fn new(cfg: FleetConfig) -> Self {
        assert!((1..=REACTOR_COUNT_MAX).contains(&cfg.reactor_count), "reactor_count {}", cfg.reactor_count);
        assert!(cfg.pin_sweep_ms > 0 && cfg.forward_queue_len_max > 0 && cfg.recv_buffer_bytes > 0);
        let reactors = (0..cfg.reactor_count)
            .map(|_| Reactor {
                held: BTreeSet::new(),
                minted: None,
                queue: VecDeque::new(),
                socket_bytes: BTreeMap::new(),
                ring: RecvRing::new(RECV_SLOTS_PER_REACTOR),
                forwards_queued: 0,
                counters: Counters::default(),
            })
            .collect();
        Self {
            kernel: Kernel::new(cfg.reactor_count, cfg.routing, cfg.hash_salt).hashing_ports(!cfg.bugs.hash_ignores_port),
            reactors,
            conns: BTreeMap::new(),
            moved: BTreeSet::new(),
            events: VecDeque::new(),
            next_datagram: 0,
            next_seq: 0,
            next_sweep_ms: cfg.pin_sweep_ms,
            now_ms: 0,
            cfg,
        }
    }

    /// The configuration it was built with.
    pub fn config(&self) -> &FleetConfig {
        &self.cfg
    }

    /// The kernel model (the hash, the pins).
    pub fn kernel(&self) -> &Kernel {
        &self.kernel
    }

    /// Number of reactors.
    pub fn reactor_count(&self) -> usize {
        self.reactors.len()
    }

    fn tick(&mut self, now_ms: u64) {
        assert!(now_ms >= self.now_ms, "time ran backwards: {now_ms} < {}", self.now_ms);
        self.now_ms = now_ms;
        // With nothing to claim a sweep changes nothing; keep its phase without visiting it.
        if self.moved.is_empty() && self.next_sweep_ms <= now_ms {
            self.next_sweep_ms = (now_ms / self.cfg.pin_sweep_ms + 1) * self.cfg.pin_sweep_ms;
        }
    }

    fn emit(&mut self, e: FleetEvent) {
        if self.cfg.record_events {
            self.events.push_back(e);
        }
    }

    /// The next trace event, oldest first.
    pub fn poll_event(&mut self) -> Option<FleetEvent> {
        self.events.pop_front()
    }

    /// The events not yet taken by [`Fleet::poll_event`], oldest first, left in place.
    /// A pure look (changes nothing): a driver journals each event as soon as the call
    /// that made it returns, in the order the fleet decided, and still drains them later.
    pub fn pending_events(&self) -> impl Iterator<Item = &FleetEvent> {
        self.events.iter()
    }

    fn r(&mut self, r: ReactorId) -> &mut Reactor {
        assert!(r.index() < self.reactors.len(), "{r} not in a fleet of {}", self.reactors.len());
        &mut self.reactors[r.index()]
    }

    // ---- what the driver tells the fleet --------------------------------------------------

    /// Reactor `reactor`'s id generator logs into `minted`; the fleet reads the log before
    /// each routing decision, so every id minted counts as held (retire with
    /// [`Fleet::retire_cid`]).
    pub fn attach_minted(&mut self, reactor: ReactorId, minted: MintedCids) {
        self.r(reactor).minted = Some(minted);
    }

    fn absorb_minted(&mut self) {
        for i in 0..self.reactors.len() {
            let Some(log) = self.reactors[i].minted.clone() else {
                continue;
            };
            for cid in log.drain() {
                self.register_cid(ReactorId::new(i), &cid);
            }
        }
    }

    /// `reactor` now holds `cid`, which must carry its stamp.
    pub fn register_cid(&mut self, reactor: ReactorId, cid: &[u8]) {
        let n = self.reactors.len();
        let cid: Cid = cid.try_into().expect("server ids are LOCAL_CID_LEN bytes");
        assert_eq!(usize::from(cid[0]) % n, reactor.index(), "id {} is not stamped for {reactor}", hex(&cid));
        let held = &mut self.r(reactor).held;
        held.insert(cid);
        assert!(held.len() <= HELD_CIDS_PER_REACTOR_MAX, "{reactor} holds too many ids: retire some");
    }

    /// `reactor` no longer holds `cid`. Returns whether it did.
    pub fn retire_cid(&mut self, reactor: ReactorId, cid: &[u8]) -> bool {
        self.absorb_minted();
        match <Cid>::try_from(cid) {
            Ok(c) => self.r(reactor).held.remove(&c),
            Err(_) => false,
        }
    }

    /// Whether `reactor` holds `cid` (reads the minted logs first).
    pub fn holds(&mut self, reactor: ReactorId, cid: &[u8]) -> bool {
        self.absorb_minted();
        <Cid>::try_from(cid).is_ok_and(|c| self.reactors[reactor.index()].held.contains(&c))
    }

    /// `reactor`'s endpoint accepted connection `conn` from `peer`.
    pub fn connection_opened(&mut self, now_ms: u64, reactor: ReactorId, conn: ConnectionHandle, peer: SocketAddr) {
        self.tick(now_ms);
        let was = self.conns.insert((reactor, conn), Conn { peer, pin: None });
        assert!(was.is_none(), "{reactor} conn {} opened twice", conn.0);
    }

    /// `reactor`'s connection `conn` now uses `addr` as its peer address (the engine reported a
    /// path; quinn-proto: `Connection::remote_address` changed). A report for a connection the
    /// fleet does not know opens it at `addr`.
    pub fn path_report(&mut self, now_ms: u64, reactor: ReactorId, conn: ConnectionHandle, addr: SocketAddr) {
        self.tick(now_ms);
        let key = (reactor, conn);
        let Some(c) = self.conns.get_mut(&key) else {
            self.conns.insert(key, Conn { peer: addr, pin: None });
            return;
        };
        if c.peer != addr {
            c.peer = addr;
            if self.cfg.routing == Routing::Forward {
                self.moved.insert(key);
            }
        }
        if self.cfg.bugs.claim_per_path_report && self.cfg.routing == Routing::Forward {
            // The bug: claim now, on every report, tearing down whatever pin there was.
            self.moved.remove(&key);
            if let Some(old) = self.conns[&key].pin {
                self.release_pin(key, old, PinReleaseReason::Replaced);
            }
            self.claim(key, addr);
        }
        self.check();
    }

    /// `reactor`'s connection `conn` ended: its pin (if any) is released.
    pub fn connection_closed(&mut self, now_ms: u64, reactor: ReactorId, conn: ConnectionHandle) {
        self.tick(now_ms);
        let key = (reactor, conn);
        self.moved.remove(&key);
        if let Some(c) = self.conns.get(&key) {
            if let Some(peer) = c.pin {
                self.release_pin(key, peer, PinReleaseReason::ConnectionClosed);
            }
            self.conns.remove(&key);
        }
        self.check();
    }

    // ---- pins -----------------------------------------------------------------------------

    /// Claims `addr` for `key`; false if the reactor is at its pin ceiling (the connection
    /// keeps forwarding). A refused bind (another socket holds `addr`) is swallowed: true.
    fn claim(&mut self, key: ConnKey, addr: SocketAddr) -> bool {
        let (reactor, conn) = key;
        let own = self.conns[&key].pin;
        if own == Some(addr) {
            return true;
        }
        let open_others = self.reactors[reactor.index()].counters.pins_open as usize - usize::from(own.is_some());
        if open_others >= self.cfg.pins_per_reactor_max {
            return false;
        }
        if self.kernel.pinned(addr).is_some() {
            return true;
        }
        if let Some(old) = own {
            self.release_pin(key, old, PinReleaseReason::Replaced);
        }
        assert!(self.kernel.pin(addr, reactor));
        self.conns.get_mut(&key).expect("claimed for a known connection").pin = Some(addr);
        let drift = self.cfg.bugs.pin_gauge_drift;
        let c = &mut self.r(reactor).counters;
        c.pins_created += 1;
        if !drift {
            c.pins_open += 1;
        }
        self.emit(FleetEvent::Pinned { reactor, conn, peer: addr });
        true
    }

    fn release_pin(&mut self, key: ConnKey, peer: SocketAddr, reason: PinReleaseReason) {
        let (reactor, conn) = key;
        self.kernel.unpin(peer, reactor);
        self.conns.get_mut(&key).expect("pin of a known connection").pin = None;
        let socket = SocketId::Pin { reactor, peer };
        let r = self.r(reactor);
        let before = r.queue.len();
        r.queue.retain(|p| !matches!(&p.work, Work::Datagram { socket: s, .. } if *s == socket));
        let lost = before - r.queue.len();
        r.socket_bytes.remove(&socket);
        r.counters.pins_open -= 1;
        r.counters.pin_socket_drops += lost as u64;
        self.emit(FleetEvent::PinReleased { reactor, conn, peer, reason, lost });
    }

    fn sweep(&mut self) {
        let keys: Vec<ConnKey> = self.moved.iter().copied().collect();
        for key in keys {
            let Some(c) = self.conns.get(&key) else {
                self.moved.remove(&key);
                continue;
            };
            let addr = c.peer;
            if self.claim(key, addr) {
                self.moved.remove(&key);
            }
        }
    }

    /// When [`Fleet::handle_timeout`] next has work: the next sweep, if a connection moved and
    /// pins are claimed from the sweep.
    pub fn poll_timeout(&self) -> Option<u64> {
        // Only `Forward` puts a connection in `moved`, and the per-report claim (the bug)
        // takes it out at once: a connection waits there only for a sweep.
        (!self.moved.is_empty()).then_some(self.next_sweep_ms)
    }

    /// Runs the pin sweep if it is due (every reactor sweeps at multiples of `pin_sweep_ms`).
    pub fn handle_timeout(&mut self, now_ms: u64) {
        self.tick(now_ms);
        if now_ms < self.next_sweep_ms {
            return;
        }
        if self.poll_timeout().is_some() {
            self.sweep();
        }
        self.next_sweep_ms = (now_ms / self.cfg.pin_sweep_ms + 1) * self.cfg.pin_sweep_ms;
        self.check();
    }

    // ---- datagrams ------------------------------------------------------------------------

    /// A datagram from `src` reaches the shared port at `now_ms`.
    pub fn on_datagram(&mut self, now_ms: u64, src: SocketAddr, bytes: &[u8]) -> Arrival {
        self.tick(now_ms);
        assert!(bytes.len() <= UDP_PAYLOAD_MAX_BYTES, "datagram of {} bytes", bytes.len());
        let datagram = DatagramId(self.next_datagram);
        self.next_datagram += 1;
        let socket = self.kernel.select(src, bytes);
        let cap = self.cfg.recv_buffer_bytes;
        let seq = self.next_seq;
        let r = self.r(socket.reactor());
        let queued = r.socket_bytes.get(&socket).copied().unwrap_or(0);
        if queued + bytes.len() > cap {
            r.counters.recv_buffer_drops += 1;
            self.emit(FleetEvent::BufferDrop { datagram, socket, len: bytes.len() });
            return Arrival { datagram, socket, queued: false };
        }
        *r.socket_bytes.entry(socket).or_insert(0) += bytes.len();
        r.counters.datagrams_received += 1;
        r.queue.push_back(Pending { seq, datagram, src, work: Work::Datagram { socket, bytes: bytes.to_vec() } });
        self.next_seq += 1;
        Arrival { datagram, socket, queued: true }
    }

    /// Datagrams and forwards waiting to be read by `reactor`.
    pub fn queued_len(&self, reactor: ReactorId) -> usize {
        self.reactors[reactor.index()].queue.len()
    }

    /// Bytes queued in `socket`'s receive buffer.
    pub fn socket_queued_bytes(&self, socket: SocketId) -> usize {
        self.reactors[socket.reactor().index()].socket_bytes.get(&socket).copied().unwrap_or(0)
    }

    /// Runs every reactor's oldest work first until something must go to an endpoint; `None`
    /// when every queue is empty.
    pub fn poll_delivery(&mut self, now_ms: u64) -> Option<Delivery> {
        self.tick(now_ms);
        loop {
            let next = (0..self.reactors.len()).filter_map(|i| self.reactors[i].queue.front().map(|p| (p.seq, i))).min()?;
            if let Some(d) = self.step(ReactorId::new(next.1)) {
                return Some(d);
            }
        }
    }

    /// Runs `reactor`'s work until something must go to its endpoint; `None` when its queue is
    /// empty. Forwards it posts wait in the owners' queues.
    pub fn poll_recv(&mut self, now_ms: u64, reactor: ReactorId) -> Option<Delivery> {
        self.tick(now_ms);
        while !self.r(reactor).queue.is_empty() {
            if let Some(d) = self.step(reactor) {
                return Some(d);
            }
        }
        None
    }

    /// Reads one piece of `reactor`'s work.
    fn step(&mut self, reactor: ReactorId) -> Option<Delivery> {
        self.absorb_minted();
        let p = self.r(reactor).queue.pop_front().expect("step on an empty queue");
        let out = match p.work {
            Work::Datagram { socket, bytes } => {
                let r = self.r(reactor);
                let left = r.socket_bytes.get_mut(&socket).expect("queued bytes are accounted");
                *left -= bytes.len();
                if *left == 0 {
                    r.socket_bytes.remove(&socket);
                }
                self.dispatch(reactor, p.datagram, p.src, socket, &bytes)
            }
            Work::Forward { from, payload } => {
                let bytes = match payload {
                    Payload::Copy(b) => b,
                    Payload::Ref { slot, len } => self.reactors[from.index()].ring.read(slot, len),
                };
                let r = self.r(reactor);
                r.forwards_queued -= 1;
                r.counters.forwards_received += 1;
                r.counters.datagrams_delivered += 1;
                Some(Delivery { datagram: p.datagram, reactor, src: p.src, bytes, via: Via::Forwarded { from } })
            }
        };
        self.check();
        out
    }

    fn decide(&self, reactor: ReactorId, bytes: &[u8]) -> Decision {
        let n = self.reactors.len();
        let held = |cid: &[u8]| <Cid>::try_from(cid).is_ok_and(|c| self.reactors[reactor.index()].held.contains(&c));
        match header_form(bytes) {
            None => Decision::Local,
            Some(HeaderForm::Short) => {
                let Some(cid) = dst_cid(bytes, LOCAL_CID_LEN) else {
                    return Decision::Local;
                };
                if held(cid) {
                    return Decision::Local;
                }
                let owner = ReactorId::new(owner_of(cid, n).expect("ids are 8 bytes"));
                if self.cfg.bugs.no_routing || owner == reactor {
                    // With routing, an unknown id addressed here is ordinary: a migration
                    // retires ids while packets carrying them are in flight.
                    Decision::Stale(cid.to_vec())
                } else {
                    Decision::Forward(owner)
                }
            }
            Some(HeaderForm::Long) => {
                if !self.cfg.bugs.forward_long_headers {
                    return Decision::Local;
                }
                // The bug: route on a byte the client chose.
                match dst_cid(bytes, LOCAL_CID_LEN) {
                    Some(cid) if !cid.is_empty() && !held(cid) => {
                        let owner = ReactorId::new(owner_of(cid, n).expect("non-empty"));
                        if owner == reactor {
                            Decision::Local
                        } else {
                            Decision::Forward(owner)
                        }
                    }
                    _ => Decision::Local,
                }
            }
        }
    }

    fn dispatch(&mut self, reactor: ReactorId, datagram: DatagramId, src: SocketAddr, socket: SocketId, bytes: &[u8]) -> Option<Delivery> {
        let slot = self.r(reactor).ring.take();
        self.r(reactor).ring.write(slot, bytes);
        let decision = self.decide(reactor, bytes);
        let out = match decision {
            Decision::Local => {
                let r = self.r(reactor);
                r.counters.datagrams_delivered += 1;
                let via = match socket {
                    SocketId::Listener(_) => Via::Listener,
                    SocketId::Pin { .. } => Via::Pin,
                };
                Some(Delivery { datagram, reactor, src, bytes: r.ring.read(slot, bytes.len()), via })
            }
            Decision::Stale(cid) => {
                self.r(reactor).counters.stale_datagrams += 1;
                self.emit(FleetEvent::StaleDrop { datagram, reactor, cid });
                None
            }
            Decision::Forward(owner) => {
                assert_ne!(owner, reactor);
                if self.reactors[owner.index()].forwards_queued >= self.cfg.forward_queue_len_max {
                    self.r(reactor).counters.forwards_dropped += 1;
                    self.emit(FleetEvent::ForwardDropped { datagram, from: reactor, to: owner });
                } else {
                    let by_reference = self.cfg.bugs.forward_reference;
                    let payload = if by_reference {
                        Payload::Ref { slot, len: bytes.len() }
                    } else {
                        // The copy is the point (seed 002): the slot goes back to the ring
                        // when this dispatch ends.
                        Payload::Copy(self.reactors[reactor.index()].ring.read(slot, bytes.len()))
                    };
                    let seq = self.next_seq;
                    self.next_seq += 1;
                    let o = self.r(owner);
                    o.forwards_queued += 1;
                    o.queue.push_back(Pending { seq, datagram, src, work: Work::Forward { from: reactor, payload } });
                    self.r(reactor).counters.forwards_sent += 1;
                    self.emit(FleetEvent::Forwarded { datagram, from: reactor, to: owner, by_reference });
                }
                None
            }
        };
        // Dispatch is over: the slot goes back to the ring.
        self.r(reactor).ring.give_back(slot);
        out
    }

    // ---- counters -------------------------------------------------------------------------

    /// One reactor's counters.
    pub fn counters(&self, reactor: ReactorId) -> Counters {
        self.reactors[reactor.index()].counters
    }

    /// The fleet's counters, summed over reactors.
    pub fn totals(&self) -> Counters {
        let mut t = Counters::default();
        for r in &self.reactors {
            t.add(&r.counters);
        }
        t
    }

    /// The peer address the kernel routes to `reactor`'s pin for connection `conn`, if any.
    pub fn pin_of(&self, reactor: ReactorId, conn: ConnectionHandle) -> Option<SocketAddr> {
        self.conns.get(&(reactor, conn)).and_then(|c| c.pin)
    }

    /// Invariants, checked after every change.
    fn check(&self) {
        let mut pins = 0;
        for (i, r) in self.reactors.iter().enumerate() {
            assert!(r.counters.pins_open as usize <= self.cfg.pins_per_reactor_max, "r{i} over its pin ceiling");
            assert!(r.forwards_queued <= self.cfg.forward_queue_len_max, "r{i} forward queue over its bound");
            assert!(r.counters.pins_created >= r.counters.pins_open);
            for (s, b) in &r.socket_bytes {
                assert!(*b <= self.cfg.recv_buffer_bytes && *b > 0, "{s} holds {b} bytes");
            }
            pins += r.counters.pins_open as usize;
        }
        assert_eq!(pins, self.kernel.pins_len(), "pin gauges agree with the kernel");
    }
}

impl fmt::Display for Fleet {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "fleet n={} routing={:?} t={}ms | all: {}", self.reactors.len(), self.cfg.routing, self.now_ms, self.totals())
    }
}

impl fmt::Debug for Fleet {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{self}")?;
        for (i, r) in self.reactors.iter().enumerate() {
            write!(f, " | r{i}: {}", r.counters)?;
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests;
