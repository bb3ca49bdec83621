//! The reactor fleet (`ftw_fleet::Fleet`) in lockstep with SPEC section 5.
//!
//! Written from the SPEC's words, and where the SPEC leaves a choice open, from
//! the choices the model writes down in `models/fleet/src/{lib,fleet,consts}.rs`
//! (each named below). No code of the model is used; only its plain data types
//! (through the journal).
//!
//! What the reference takes as given: the run's configuration (reactor count,
//! routing mode), the ids each reactor's generator minted, what the endpoints
//! report (connections opened, path reports, closes), the sweep timer firing,
//! the datagrams arriving, and the kernel's reuseport hash: the reactor the
//! hash picks for a sender is the environment (SO_REUSEPORT's hash is the
//! kernel's, not a rule of the SPEC), so the driver records the hash's answer
//! for each arrival as an input, and the reference judges what the fleet does
//! with it (pins and the kernel filter come before the hash). It does hold the
//! answers to what the SPEC says of the hash: it is of "the sender's address
//! and port", so one sender always gets one reactor, and a rebind re-hashes the
//! client: the ports of one address, like all senders, are not all given one
//! reactor once there are enough of them ([`spread_after`]).
//!
//! Where the SPEC leaves the model free, every conforming answer is accepted:
//! reactors may read their queued work in any order (each read must be of work
//! that is waiting at that reactor), and the claims of one sweep may be made in
//! any order (checked claim by claim, then the sweep as a whole).

use std::collections::{BTreeMap, BTreeSet};
use std::net::{IpAddr, SocketAddr};

use crate::law::rules;
use crate::law::{Judge, Law};
use crate::world::journal::fleet::{Bytes, ConnectionHandle, Counters, FleetEvent, FleetStep, PinReleaseReason, ReactorId, Routing, SocketId, Via};
use crate::world::journal::{Entry, Step};
use crate::world::plant::Bug;
use crate::world::switch::Switch;

use super::{Lockstep, Reference};

/// Pins one reactor may hold; past it a moved client keeps forwarding. SPEC
/// sections 5 and 6 ("pins per reactor 512").
const PINS_PER_REACTOR: usize = 512;
/// The owner's pin sweep runs every 250 ms. SPEC sections 5 and 6. The sweeps
/// of all reactors run together at multiples of it from time 0 (the model's
/// written choice, `models/fleet/src/lib.rs`).
const PIN_SWEEP_MS: u64 = 250;
/// Bytes one socket's receive buffer holds: what a stock kernel grants, "about
/// 208 KiB" (SPEC section 5), exactly 212,992 (`net.core.rmem_max`). Charged by
/// payload length, per socket (each listener and each pin): the model's written
/// choice (`lib.rs`, `consts.rs`).
const RECV_BUFFER_BYTES: usize = 212_992;
/// Forwards waiting at one owner; a post past it is dropped and counted as
/// ForwardsDropped. The model's written choice (`consts.rs`,
/// `FORWARD_QUEUE_LEN_MAX`): the SPEC names the counter, not the bound.
const FORWARD_QUEUE: usize = 1024;
/// Senders of one group (all, or the ports of one address) after which a hash
/// of the address and port has picked two of N reactors: a uniform hash puts k
/// senders all on one with probability N^(1-k), under 2^-40 from k = 1 +
/// ceil(40 / log2 N) (41 for two reactors, 21 for four). Not in the SPEC: the
/// bound of this reference's check that the hash reads both (SPEC section 5).
fn spread_after(n: usize) -> Option<usize> {
    (n >= 2).then(|| 1 + (40.0 / (n as f64).log2()).ceil() as usize)
}
/// Length of the ids the server mints, so of a short header's destination id.
/// The model's written choice (`consts.rs`: 8-byte ids, as quinn-proto's).
const CID_LEN: usize = 8;

/// Law `fleet-agrees-with-spec`.
pub const FLEET: Reference = Reference {
    law: Law::new(
        "fleet-agrees-with-spec",
        "the reactor fleet decides, step by step, what SPEC section 5 says: the socket each datagram lands on (pin, kernel filter, \
                else the kernel's hash), the finite receive buffer, forwarding short headers (never long ones) for ids a reactor does not \
                hold to the owner cid[0] % N as a copy, stale drops, pins claimed only by the 250 ms sweep (one per address change, at most \
                512 per reactor) and released when their connection ends, and the counters",
    )
    .checks(&[&rules::KERNEL_HASH_CID_OWNER, &rules::FORWARD_ROUTING, &rules::SHORT_HEADERS_ONLY, &rules::SWEEP_PINS, &rules::PIN_CEILING, &rules::STILL_FLEET])
    .broken_by(&[Switch::NoRouting, Switch::ForwardLongHeaders, Switch::ClaimPerPathReport, Switch::ForwardReference])
    .judged(Judge::Journal(check)),
    planted: &[Bug::KernelHashIgnoresPort],
};

/// What the model decided and what the SPEC says, at `index` (the current
/// step when `None`).
struct Miss {
    index: Option<usize>,
    model: String,
    spec: String,
}

fn miss<T>(model: impl Into<String>, spec: impl Into<String>) -> Result<T, Miss> {
    Err(Miss { index: None, model: model.into(), spec: spec.into() })
}

fn check(journal: &[Entry]) -> Option<Lockstep> {
    let mut doors: BTreeMap<&str, Door> = BTreeMap::new();
    let (mut steps, mut last) = (0, 0);
    let differs = |i: usize, m: Miss| {
        let index = m.index.unwrap_or(i);
        Some(Lockstep::Differs { index, entry: journal[index].describe(), model: m.model, spec: m.spec })
    };
    for (i, e) in journal.iter().enumerate() {
        let Step::Fleet(s) = &e.step else { continue };
        (steps, last) = (steps + 1, i);
        if let Err(m) = doors.entry(&e.host).or_default().step(i, e.t_ms, s) {
            return differs(i, m);
        }
    }
    if steps == 0 {
        return None;
    }
    for door in doors.values_mut() {
        // What the run's end shows is named at the fleet's last step.
        if let Err(m) = door.finish() {
            return differs(last, m);
        }
    }
    Some(Lockstep::Agreed { steps })
}

/// A datagram queued on a socket, not yet read.
struct Queued {
    at: usize,
    src: SocketAddr,
    bytes: Bytes,
    socket: SocketId,
}

/// A forward posted to an owner, not yet read by it.
struct Posted {
    from: ReactorId,
    src: SocketAddr,
    bytes: Bytes,
}

type Key = (ReactorId, ConnectionHandle);

struct Conn {
    peer: SocketAddr,
    pin: Option<SocketAddr>,
    /// When its peer address changed since its last claim (the sweep's work).
    moved_at: Option<u64>,
    /// The last sweep may or may not have settled it (a claim order the
    /// reference cannot tell apart): a claim later is fine, none is fine.
    optional: bool,
}

/// A sweep under way: the claims after a `Timeout` step.
struct Sweep {
    at: usize,
    t_ms: u64,
    /// Addresses pinned at some moment of this sweep.
    pinned: BTreeSet<SocketAddr>,
    /// A pin released for a new claim of this connection, the claim not seen yet.
    replacing: Option<Key>,
}

#[derive(PartialEq, Eq, Debug)]
enum Decision {
    /// Hand it to this reactor's endpoint.
    Local,
    /// Post a copy to the owner.
    Forward(ReactorId),
    /// Drop it as stale (an id nobody holds, addressed here).
    Stale(Vec<u8>),
}

/// One fleet's state as the SPEC describes it.
#[derive(Default)]
struct Door {
    n: usize,
    kernel_filter: bool,
    held: Vec<BTreeSet<Vec<u8>>>,
    queued: BTreeMap<u64, Queued>,
    occupancy: BTreeMap<SocketId, usize>,
    /// Per owner: forwards waiting, by datagram.
    posted: Vec<BTreeMap<u64, Posted>>,
    /// Arrivals the buffer refused, until the fleet's event for them.
    refused: BTreeSet<u64>,
    conns: BTreeMap<Key, Conn>,
    /// The kernel's connected sockets: peer address to its connection.
    pins: BTreeMap<SocketAddr, Key>,
    /// The last multiple of the sweep period that was swept (or passed with
    /// nothing moved: an idle sweep changes nothing).
    swept_upto: u64,
    sweep: Option<Sweep>,
    /// A close whose pin the fleet must release next.
    release_due: Option<(usize, Key, SocketAddr)>,
    counts: Vec<Counters>,
    /// The reactor the kernel's hash picked for each sender.
    hashed: BTreeMap<SocketAddr, ReactorId>,
}

fn grid(t_ms: u64) -> u64 {
    t_ms / PIN_SWEEP_MS * PIN_SWEEP_MS
}

fn is_short(b: &Bytes) -> bool {
    b.head.first().is_some_and(|f| f & 0x80 == 0)
}

/// A short header's destination id (RFC 9000 section 17.3), if it holds one of ours.
fn short_cid(b: &Bytes) -> Option<&[u8]> {
    (is_short(b) && b.len > CID_LEN).then(|| &b.head[1..=CID_LEN])
}

impl Door {
    fn r(i: usize) -> ReactorId {
        ReactorId::new(i)
    }

    fn step(&mut self, i: usize, t_ms: u64, s: &FleetStep) -> Result<(), Miss> {
        let pin_event = matches!(s, FleetStep::Event(FleetEvent::Pinned { .. } | FleetEvent::PinReleased { .. }));
        if !pin_event {
            self.end_sweep()?;
        }
        if let Some((at, key, peer)) = self.release_due {
            if !matches!(s, FleetStep::Event(FleetEvent::PinReleased { .. })) {
                let m = format!("no release of {peer}'s pin when r{} conn {} ended", key.0.index(), key.1 .0);
                return Err(Miss { index: Some(at), model: m, spec: "a pin is released when its connection ends (SPEC section 5)".into() });
            }
        }
        if !matches!(s, FleetStep::Config { .. }) && self.n == 0 {
            return miss("a fleet step before its configuration", "the door journals its configuration first");
        }
        self.sweeps_on_time(t_ms)?;
        if self.moved().next().is_none() && self.sweep.is_none() {
            self.swept_upto = self.swept_upto.max(grid(t_ms));
        }
        match s {
            FleetStep::Config { reactors, routing, pins_per_reactor_max, pin_sweep_ms, recv_buffer_bytes, forward_queue_len_max } => {
                self.config(*reactors, *routing, (*pins_per_reactor_max, *pin_sweep_ms, *recv_buffer_bytes, *forward_queue_len_max))
            }
            FleetStep::Minted { reactor, cid } => self.minted(*reactor, cid),
            FleetStep::Arrival { src, bytes, hashed, datagram, socket, queued } => self.arrival(i, *src, bytes, *hashed, *datagram, *socket, *queued),
            FleetStep::Delivery { datagram, reactor, src, bytes, via } => self.delivery(*datagram, *reactor, *src, bytes, *via),
            FleetStep::Event(e) => self.event(e),
            FleetStep::Opened { reactor, conn, peer } => {
                self.conns.insert((*reactor, *conn), Conn { peer: *peer, pin: None, moved_at: None, optional: false });
                Ok(())
            }
            FleetStep::PathReport { reactor, conn, addr } => {
                self.path_report((*reactor, *conn), *addr, t_ms);
                Ok(())
            }
            FleetStep::Closed { reactor, conn } => {
                if let Some(pin) = self.conns.remove(&(*reactor, *conn)).and_then(|c| c.pin) {
                    self.release_due = Some((i, (*reactor, *conn), pin));
                }
                Ok(())
            }
            FleetStep::Timeout => {
                self.timeout(i, t_ms);
                Ok(())
            }
            FleetStep::Counters(model) => self.counters(model),
        }
    }

    /// The run's numbers are the SPEC's (and the model's written choices).
    fn config(&mut self, n: usize, routing: Routing, numbers: (usize, u64, usize, usize)) -> Result<(), Miss> {
        let spec = (PINS_PER_REACTOR, PIN_SWEEP_MS, RECV_BUFFER_BYTES, FORWARD_QUEUE);
        if numbers != spec || n == 0 {
            return miss(
                format!("{n} reactors, (pins per reactor, sweep ms, receive buffer bytes, forward queue) = {numbers:?}"),
                format!("at least one reactor and {spec:?} (SPEC sections 5 and 6; the forward queue: models/fleet/src/consts.rs)"),
            );
        }
        *self = Door {
            n,
            kernel_filter: routing == Routing::KernelFilter,
            held: vec![BTreeSet::new(); n],
            posted: (0..n).map(|_| BTreeMap::new()).collect(),
            counts: vec![Counters::default(); n],
            ..Door::default()
        };
        Ok(())
    }

    /// SPEC section 5: every server-minted id carries its owner, `cid[0] % N`.
    fn minted(&mut self, reactor: ReactorId, cid: &[u8]) -> Result<(), Miss> {
        if cid.len() != CID_LEN || usize::from(cid[0]) % self.n != reactor.index() {
            return miss(
                format!("r{} minted id {cid:02x?}", reactor.index()),
                format!("an {CID_LEN}-byte id with cid[0] % {} == {} (SPEC section 5)", self.n, reactor.index()),
            );
        }
        self.held[reactor.index()].insert(cid.to_vec());
        Ok(())
    }

    /// The socket a datagram lands on: a pin (a more specific match) first;
    /// under KernelFilter a short header goes to its id's owner; else the
    /// kernel's hash (SPEC section 5).
    fn kernel(&self, src: SocketAddr, b: &Bytes, hashed: ReactorId) -> SocketId {
        if let Some((reactor, _)) = self.pins.get(&src) {
            return SocketId::Pin { reactor: *reactor, peer: src };
        }
        match short_cid(b) {
            Some(cid) if self.kernel_filter => SocketId::Listener(Self::r(usize::from(cid[0]) % self.n)),
            _ => SocketId::Listener(hashed),
        }
    }

    /// The kernel's choice, then the finite receive buffer: a datagram past it
    /// is dropped and counted (SPEC section 5).
    #[allow(clippy::too_many_arguments)]
    fn arrival(&mut self, at: usize, src: SocketAddr, b: &Bytes, hashed: ReactorId, d: u64, socket: SocketId, queued: bool) -> Result<(), Miss> {
        if let Some(before) = self.hashed.insert(src, hashed).filter(|r| *r != hashed) {
            return miss(
                format!("d{d} from {src} hashed to r{}, its earlier datagrams to r{}", hashed.index(), before.index()),
                "one reactor for one sender: the kernel hashes the sender's address and port (SPEC section 5)",
            );
        }
        let want = self.kernel(src, b, hashed);
        if socket != want {
            return miss(
                format!("d{d} from {src} landed on {socket}"),
                format!("it lands on {want} (pins, then the kernel filter, then the hash; SPEC section 5)"),
            );
        }
        let used = self.occupancy.get(&socket).copied().unwrap_or(0);
        let fits = used + b.len <= RECV_BUFFER_BYTES;
        if queued != fits {
            return miss(
                format!("d{d} ({} bytes) queued={queued} on {socket} holding {used} bytes", b.len),
                format!("queued={fits}: the receive buffer holds {RECV_BUFFER_BYTES} bytes (SPEC section 5)"),
            );
        }
        let r = socket.reactor().index();
        if fits {
            *self.occupancy.entry(socket).or_default() += b.len;
            self.queued.insert(d, Queued { at, src, bytes: b.clone(), socket });
            self.counts[r].datagrams_received += 1;
        } else {
            self.refused.insert(d);
            self.counts[r].recv_buffer_drops += 1;
        }
        Ok(())
    }

    /// What a reactor does with a datagram it reads (SPEC section 5): a long
    /// header is never routed (its id is the client's choice); a short header
    /// for an id the reactor does not hold goes, as a copy, to the owner byte 0
    /// names. Written choices of the model (`lib.rs`): an id addressed to this
    /// very reactor that it does not hold is stale; a datagram too short to
    /// carry an id (or empty) is handed to the endpoint.
    fn decide(&self, r: ReactorId, b: &Bytes) -> Decision {
        let Some(cid) = short_cid(b) else { return Decision::Local };
        if self.held[r.index()].contains(cid) {
            return Decision::Local;
        }
        let owner = Self::r(usize::from(cid[0]) % self.n);
        if owner == r {
            Decision::Stale(cid.to_vec())
        } else {
            Decision::Forward(owner)
        }
    }

    /// Takes datagram `d` off `r`'s sockets, checking it waits there and that
    /// the SPEC's decision for it is `want`.
    fn read(&mut self, d: u64, r: ReactorId, want: Decision) -> Result<Queued, Miss> {
        let Some(q) = self.queued.get(&d).filter(|q| q.socket.reactor() == r) else {
            return miss(format!("r{} read d{d}", r.index()), format!("d{d} is not waiting on a socket of r{}", r.index()));
        };
        let spec = self.decide(r, &q.bytes);
        if spec != want {
            return miss(format!("r{} did {want:?} with d{d} ({:02x?}..)", r.index(), q.bytes.head), format!("{spec:?} (SPEC section 5)"));
        }
        let q = self.queued.remove(&d).expect("just seen");
        self.unqueue(&q);
        Ok(q)
    }

    fn unqueue(&mut self, q: &Queued) {
        let left = self.occupancy.get_mut(&q.socket).expect("queued bytes are counted");
        *left -= q.bytes.len;
        if *left == 0 {
            self.occupancy.remove(&q.socket);
        }
    }

    fn delivery(&mut self, d: u64, r: ReactorId, src: SocketAddr, b: &Bytes, via: Via) -> Result<(), Miss> {
        let (from_src, sent) = match via {
            Via::Listener | Via::Pin => {
                let q = self.read(d, r, Decision::Local)?;
                let kind = if matches!(q.socket, SocketId::Pin { .. }) { Via::Pin } else { Via::Listener };
                if via != kind {
                    return miss(format!("d{d} delivered via {via:?}"), format!("it was read from {}", q.socket));
                }
                (q.src, q.bytes)
            }
            Via::Forwarded { from } => {
                let Some(p) = self.posted[r.index()].remove(&d).filter(|p| p.from == from) else {
                    return miss(format!("r{} read d{d} as a forward from r{}", r.index(), from.index()), "no such forward waits at it");
                };
                self.counts[r.index()].forwards_received += 1;
                (p.src, p.bytes)
            }
        };
        if src != from_src || *b != sent {
            return miss(
                format!("d{d} handed to r{} from {src}: {} bytes digest {:016x}", r.index(), b.len, b.digest),
                format!("the bytes that came, from {from_src}: {} bytes digest {:016x} (a forward posts a copy; SPEC section 5)", sent.len, sent.digest),
            );
        }
        self.counts[r.index()].datagrams_delivered += 1;
        Ok(())
    }

    fn event(&mut self, e: &FleetEvent) -> Result<(), Miss> {
        match e {
            // Whether the post is a copy is judged by what the owner reads (see
            // `delivery`), not by the event's own `by_reference` flag.
            FleetEvent::Forwarded { datagram, from, to, .. } => {
                let q = self.read(datagram.0, *from, Decision::Forward(*to))?;
                let waiting = self.posted[to.index()].len();
                if waiting >= FORWARD_QUEUE {
                    return miss(
                        format!("{datagram} posted r{}->r{} with {waiting} waiting", from.index(), to.index()),
                        format!("dropped: at most {FORWARD_QUEUE} forwards wait at an owner (consts.rs)"),
                    );
                }
                self.posted[to.index()].insert(datagram.0, Posted { from: *from, src: q.src, bytes: q.bytes });
                self.counts[from.index()].forwards_sent += 1;
            }
            FleetEvent::ForwardDropped { datagram, from, to } => {
                self.read(datagram.0, *from, Decision::Forward(*to))?;
                let waiting = self.posted[to.index()].len();
                if waiting < FORWARD_QUEUE {
                    return miss(
                        format!("{datagram} dropped with {waiting} forwards waiting at r{}", to.index()),
                        format!("posted: the bound is {FORWARD_QUEUE}"),
                    );
                }
                self.counts[from.index()].forwards_dropped += 1;
            }
            FleetEvent::StaleDrop { datagram, reactor, cid } => {
                self.read(datagram.0, *reactor, Decision::Stale(cid.clone()))?;
                self.counts[reactor.index()].stale_datagrams += 1;
            }
            FleetEvent::BufferDrop { datagram, .. } => {
                if !self.refused.remove(&datagram.0) {
                    return miss(format!("{e}"), "no arrival was refused by its buffer");
                }
            }
            FleetEvent::Pinned { reactor, conn, peer } => self.pinned((*reactor, *conn), *peer)?,
            FleetEvent::PinReleased { reactor, conn, peer, reason, lost } => self.released((*reactor, *conn), *peer, *reason, *lost)?,
        }
        Ok(())
    }

    // ---- pins ---------------------------------------------------------------------------

    fn moved(&self) -> impl Iterator<Item = (&Key, &Conn)> {
        self.conns.iter().filter(|(_, c)| c.moved_at.is_some())
    }

    /// SPEC section 5: a path report changes the peer; under Forward the
    /// owner's next sweep claims the new address. A report never claims.
    fn path_report(&mut self, key: Key, addr: SocketAddr, t_ms: u64) {
        let kf = self.kernel_filter;
        let c = self.conns.entry(key).or_insert(Conn { peer: addr, pin: None, moved_at: None, optional: false });
        if c.peer != addr {
            c.peer = addr;
            if !kf {
                c.moved_at = Some(c.moved_at.unwrap_or(t_ms));
                c.optional = false;
            }
        }
    }

    fn pins_of(&self, r: ReactorId) -> usize {
        self.pins.values().filter(|k| k.0 == r).count()
    }

    /// Pins `key`'s reactor holds for other connections.
    fn pins_of_others(&self, key: Key) -> usize {
        let own = self.conns.get(&key).is_some_and(|c| c.pin.is_some());
        self.pins_of(key.0) - usize::from(own)
    }

    /// The timer fired: the sweep runs if a multiple of 250 ms passed since the
    /// last one (SPEC section 5; under KernelFilter nothing is pinned).
    fn timeout(&mut self, at: usize, t_ms: u64) {
        if !self.kernel_filter && grid(t_ms) > self.swept_upto {
            self.swept_upto = grid(t_ms);
            let pinned = self.pins.keys().copied().collect();
            self.sweep = Some(Sweep { at, t_ms, pinned, replacing: None });
        }
    }

    /// A moved client's new address must be claimed by a sweep no later than
    /// one period after it was due.
    fn sweeps_on_time(&self, t_ms: u64) -> Result<(), Miss> {
        let Some(first) = self.moved().filter(|(_, c)| !c.optional).filter_map(|(_, c)| c.moved_at).min() else { return Ok(()) };
        let due = self.swept_upto.max(grid(first)) + PIN_SWEEP_MS;
        if self.sweep.is_none() && t_ms >= due + PIN_SWEEP_MS {
            return miss(
                format!("no pin sweep since {} ms with a client moved at {first} ms", self.swept_upto),
                format!("a sweep every {PIN_SWEEP_MS} ms, due at {due} ms (SPEC section 5)"),
            );
        }
        Ok(())
    }

    /// The claim the sweep makes for `key` at `peer` is one the SPEC allows.
    fn claimable(&self, key: Key, peer: SocketAddr) -> Result<(), String> {
        let Some(sweep) = &self.sweep else {
            return Err("a pin is claimed only by the owner's 250 ms sweep, never on a path report (SPEC section 5)".into());
        };
        let Some(c) = self.conns.get(&key) else { return Err("a pin for a live connection".into()) };
        if c.moved_at.is_none() || c.peer != peer || c.pin == Some(peer) {
            return Err(format!("one claim per address change, of the connection's new address {} (SPEC section 5)", c.peer));
        }
        if self.pins_of_others(key) >= PINS_PER_REACTOR {
            return Err(format!("at most {PINS_PER_REACTOR} pins per reactor; past that, keep forwarding (SPEC section 5)"));
        }
        if self.pins.contains_key(&peer) || sweep.replacing.is_some_and(|k| k != key) {
            return Err("an address another socket holds cannot be pinned".into());
        }
        Ok(())
    }

    fn pinned(&mut self, key: Key, peer: SocketAddr) -> Result<(), Miss> {
        let what = || format!("r{} pinned conn {} to {peer}", key.0.index(), key.1 .0);
        if let Err(spec) = self.claimable(key, peer) {
            return miss(what(), spec);
        }
        let c = self.conns.get_mut(&key).expect("claimable");
        if c.pin.is_some() {
            return miss(what(), "its old pin is released first");
        }
        c.pin = Some(peer);
        c.moved_at = None;
        c.optional = false;
        self.pins.insert(peer, key);
        let sweep = self.sweep.as_mut().expect("claimable");
        sweep.replacing = None;
        sweep.pinned.insert(peer);
        self.counts[key.0.index()].pins_created += 1;
        self.counts[key.0.index()].pins_open += 1;
        Ok(())
    }

    fn released(&mut self, key: Key, peer: SocketAddr, reason: PinReleaseReason, lost: usize) -> Result<(), Miss> {
        let what = format!("r{} released conn {}'s pin {peer} ({reason:?}, {lost} lost)", key.0.index(), key.1 .0);
        let ok = match reason {
            PinReleaseReason::ConnectionClosed => {
                let ok = self.release_due.is_some_and(|(_, k, p)| k == key && p == peer);
                self.release_due = self.release_due.filter(|_| !ok);
                ok
            }
            PinReleaseReason::Replaced => {
                let c = self.conns.get(&key);
                let new = c.map(|c| c.peer).filter(|_| c.is_some_and(|c| c.pin == Some(peer)));
                let ok = new.is_some_and(|n| self.claimable(key, n).is_ok() && self.sweep.as_ref().is_some_and(|s| s.replacing.is_none()));
                if ok {
                    self.sweep.as_mut().expect("claimable").replacing = Some(key);
                    self.conns.get_mut(&key).expect("known").pin = None;
                }
                ok
            }
        };
        if !ok {
            return miss(what, "a pin is released when its connection ends, or by the sweep's claim of that connection's new address (SPEC section 5)");
        }
        self.pins.remove(&peer);
        let socket = SocketId::Pin { reactor: key.0, peer };
        let gone: Vec<u64> = self.queued.iter().filter(|(_, q)| q.socket == socket).map(|(d, _)| *d).collect();
        if gone.len() != lost {
            return miss(what, format!("{} datagrams were waiting on it", gone.len()));
        }
        for d in gone {
            let q = self.queued.remove(&d).expect("listed");
            self.unqueue(&q);
        }
        let c = &mut self.counts[key.0.index()];
        c.pins_open -= 1;
        c.pin_socket_drops += lost as u64;
        Ok(())
    }

    /// The sweep is over: every moved connection it left unclaimed must be
    /// justified (SPEC section 5): its reactor is at the pin ceiling, or
    /// another socket holds the address (the claim is swallowed, it forwards).
    fn end_sweep(&mut self) -> Result<(), Miss> {
        let Some(sweep) = self.sweep.take() else { return Ok(()) };
        let keys: Vec<Key> = self.moved().map(|(k, _)| *k).collect();
        for key in keys {
            let full = self.pins_of_others(key) >= PINS_PER_REACTOR;
            let c = &self.conns[&key];
            let (peer, pin, optional) = (c.peer, c.pin, c.optional);
            let taken = sweep.pinned.contains(&peer);
            let c = self.conns.get_mut(&key).expect("listed");
            if pin == Some(peer) || (taken && !full) {
                c.moved_at = None;
            } else if full {
                c.optional = taken;
            } else if !optional {
                let m = format!("the sweep at {} ms left r{} conn {} unclaimed at its new address {peer}", sweep.t_ms, key.0.index(), key.1 .0);
                return Err(Miss { index: Some(sweep.at), model: m, spec: "the owner's sweep claims a moved client's new address (SPEC section 5)".into() });
            }
        }
        if let Some(k) = sweep.replacing {
            let m = format!("r{} conn {}'s pin released for a claim never made", k.0.index(), k.1 .0);
            return Err(Miss { index: Some(sweep.at), model: m, spec: "a claim replaces the old pin with the new one".into() });
        }
        Ok(())
    }

    /// SPEC section 5: ForwardsSent, ForwardsReceived, ForwardsDropped,
    /// StaleDatagrams, PinsCreated, PinsOpen and the buffer's drops are what
    /// happened (the reference's tallies of the decisions above).
    fn counters(&self, model: &[Counters]) -> Result<(), Miss> {
        for (r, (m, s)) in model.iter().zip(&self.counts).enumerate() {
            if m != s {
                return miss(format!("r{r}: {m}"), format!("r{r}: {s}"));
            }
        }
        if model.len() != self.counts.len() {
            return miss(format!("{} reactors' counters", model.len()), format!("{} reactors", self.counts.len()));
        }
        Ok(())
    }

    /// SPEC section 5: the kernel hashes "the sender's address and port" and "a NAT
    /// rebind ... re-hashes the client". All senders, and the ports of any one
    /// address, are not all on one reactor once there are [`spread_after`] of them.
    fn hash_spreads(&self) -> Result<(), Miss> {
        let Some(enough) = spread_after(self.n) else { return Ok(()) };
        let mut groups: BTreeMap<Option<IpAddr>, (usize, BTreeSet<usize>)> = BTreeMap::new();
        for (src, r) in &self.hashed {
            for g in [None, Some(src.ip())] {
                let (senders, picked) = groups.entry(g).or_default();
                *senders += 1;
                picked.insert(r.index());
            }
        }
        // The ports of one address first: the narrower group names the fault better.
        match groups.into_iter().rev().find(|(_, (senders, picked))| *senders >= enough && picked.len() == 1) {
            Some((g, (senders, picked))) => miss(
                format!("{senders} senders ({}) all hashed to r{:?}", g.map_or("all".to_string(), |ip| format!("ports of {ip}")), picked),
                format!("a hash of the address and port gives {enough} senders more than one of the {} reactors (SPEC section 5)", self.n),
            ),
            None => Ok(()),
        }
    }

    /// The run is over: a sweep's end, a due release, and nothing queued left
    /// unread or uncounted.
    fn finish(&mut self) -> Result<(), Miss> {
        self.hash_spreads()?;
        self.end_sweep()?;
        if let Some((at, key, peer)) = self.release_due {
            let m = format!("no release of {peer}'s pin when r{} conn {} ended", key.0.index(), key.1 .0);
            return Err(Miss { index: Some(at), model: m, spec: "a pin is released when its connection ends (SPEC section 5)".into() });
        }
        if let Some((d, q)) = self.queued.iter().next() {
            return Err(Miss {
                index: Some(q.at),
                model: format!("d{d} on {} never read", q.socket),
                spec: "every datagram a buffer took is read (or counted lost)".into(),
            });
        }
        if let Some((r, (d, _))) = self.posted.iter().enumerate().find_map(|(r, p)| p.iter().next().map(|x| (r, x))) {
            return miss(format!("the forward of d{d} to r{r} never read"), "every forward posted is read by its owner");
        }
        Ok(())
    }
}
