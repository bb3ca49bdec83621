//! The cloud's driver: binds the IO-free `ftw_cloud::Cloud` to links accepted at
//! any door. A door (the single QUIC endpoint, the reactor fleet, the WebSocket
//! listener) accepts a link, reads its target and hands both to
//! [`CloudDriver::adopt`]; the driver numbers the link, tells the cloud, pumps
//! the link's messages, datagrams and close into the model, runs the model's
//! timer, and carries out every `Transmit` on the right link (send, send_bulk,
//! send_datagram, close).
//!
//! Each link has a task that owns it and a FIFO of operations, so the order the
//! model asked for is the order on the wire. Every byte the cloud handles
//! (received from or sent to any link) is kept in a bounded log, so a scenario
//! can check the relay is blind (`blind-relay`).
//!
//! The plan's timed relay faults ([`RelayFault`], one kind each in
//! `world/plan/kind/`) turn the cloud into a hostile relay that sends a
//! phone-bound message twice, holds one back behind later ones, or sends a
//! window of datagrams newest first: the way to put replays and late messages
//! in front of the phone's carrier (QUIC itself drops duplicated packets).
//! Trace kind `cloud.tamper`.

use std::cell::RefCell;
use std::collections::{BTreeMap, BTreeSet};
use std::rc::Rc;
use std::time::Duration;

use ftw_box::uplink::{LinkOp, SendKind};
use ftw_cloud::{Cloud, LinkId};
use tokio::sync::{mpsc, Notify};

use crate::drive::app::relay::{self, Fate, PhoneSend, RelayFault};
use crate::drive::link::{Link, LinkEvent, TransportKind};
use crate::world::journal::cloud::{Bytes, CloudStep};
use crate::world::journal::{self, Step};
use crate::world::time;
use crate::world::trace;

/// The longest the relay holds a message back waiting for its burst: a message
/// nothing follows (a handshake reply) is let go after it, as a network lets go
/// of a reordered packet. Declared with its fault kind.
pub use crate::world::plan::kind::HOLD_MAX_MS;

/// Most bytes kept in the cloud's handled-bytes log (a limit on everything).
pub const HANDLED_LOG_BYTES_MAX: usize = 64 << 20;

/// What the cloud driver saw.
#[derive(Clone, Debug, Default)]
pub struct CloudLog {
    /// Every byte string the cloud received or sent, in order (bounded).
    pub handled: Vec<Vec<u8>>,
    handled_bytes: usize,
    /// Close codes the cloud sent, by link.
    pub closes: Vec<(LinkId, u16)>,
    pub links_adopted: u64,
    /// Links adopted per transport.
    pub by_transport: BTreeMap<&'static str, u64>,
    pub repeated: u64,
    /// Phone-bound messages sent twice as datagrams and as stream messages.
    pub repeated_datagrams: u64,
    pub repeated_stream: u64,
    /// Stream messages held back behind later ones (and how many passed them, most).
    pub held: u64,
    pub held_behind_max: u32,
    /// Datagrams sent newest first by a `reverse_datagrams` window.
    pub reversed: u64,
    /// Phone messages the plan's `corrupt_message` corrupted on their way to a box.
    pub corrupted_to_box: u64,
    /// Links whose QUIC connection carried accepted 0-RTT early data, by target.
    pub early_data: BTreeMap<String, u64>,
    /// When the plan's `cloud_restart`s closed the box's uplinks (ms), and whether
    /// each lost the TLS session store.
    pub restarts: Vec<(u64, bool)>,
}

impl CloudLog {
    fn keep(&mut self, b: &[u8]) {
        if self.handled_bytes + b.len() <= HANDLED_LOG_BYTES_MAX {
            self.handled_bytes += b.len();
            self.handled.push(b.to_vec());
        }
    }

    /// Whether `needle` occurs in any byte string the cloud handled.
    pub fn saw(&self, needle: &[u8]) -> bool {
        let finder = memchr::memmem::Finder::new(needle);
        !needle.is_empty() && self.handled.iter().any(|h| finder.find(h).is_some())
    }
}

struct LinkSlot {
    ops: mpsc::UnboundedSender<LinkOp>,
    datagrams: bool,
    /// Messages held back, each with how many later messages must pass it and
    /// when it goes anyway.
    held: Vec<(LinkOp, u32, u64)>,
    /// Datagrams held by a `reverse_datagrams` window.
    reversing: Vec<LinkOp>,
    /// A phone's link (the relay faults touch only these, and `corrupt_message` toward the box).
    phone: bool,
    /// An uplink's channels that have carried a phone `Data` (`corrupt_message` toward the box).
    data_chans: BTreeSet<u32>,
}

/// The plan's `corrupt_message`: the last byte (inside the AEAD tag, the outer
/// tunnel's toward a phone, the box session's in an uplink's `Data`) goes with its
/// lowest bit flipped.
fn corrupt(host: &str, log: &mut CloudLog, to_phone: bool, t: &mut ftw_cloud::Transmit) {
    if let LinkOp::Send { bytes, .. } = &mut t.op {
        if let Some(b) = bytes.last_mut() {
            *b ^= 1;
        }
    }
    if !to_phone {
        log.corrupted_to_box += 1;
        if let LinkOp::Send { bytes, .. } = &t.op {
            journal::mark_tampered(bytes);
        }
    }
    trace::record(host, "cloud.tamper", format!("link={} corrupts a message", t.link));
}

/// Send `t` on its link as its fate says: into a reversing window, held back, or
/// now (releasing the held messages it passes), and again when it repeats.
fn send_through(host: &str, log: &mut CloudLog, slot: &mut LinkSlot, t: ftw_cloud::Transmit, fate: Fate, now: u64) {
    if fate.reverse {
        trace::record(host, "cloud.tamper", format!("link={} holds a datagram to send newest first", t.link));
        slot.reversing.push(t.op.clone());
        if fate.repeat {
            slot.reversing.push(t.op);
            log.repeated += 1;
            log.repeated_datagrams += 1;
        }
        return;
    }
    if let Some(behind) = fate.hold {
        trace::record(host, "cloud.tamper", format!("link={} holds a message back behind {behind} later ones", t.link));
        log.held += 1;
        log.held_behind_max = log.held_behind_max.max(behind);
        slot.held.push((t.op.clone(), behind, now + HOLD_MAX_MS));
        if fate.repeat {
            // The copy goes now; the original comes late.
            log.repeated += 1;
            log.repeated_stream += 1;
            let _ = slot.ops.send(t.op);
        }
        return;
    }
    let is_datagram = matches!(&t.op, LinkOp::Send { kind: SendKind::Datagram, .. });
    let _ = slot.ops.send(t.op.clone());
    let mut k = 0;
    while k < slot.held.len() {
        slot.held[k].1 -= 1;
        if slot.held[k].1 == 0 {
            let (op, _, _) = slot.held.remove(k);
            trace::record(host, "cloud.tamper", format!("link={} releases a held message", t.link));
            let _ = slot.ops.send(op);
        } else {
            k += 1;
        }
    }
    if fate.repeat {
        log.repeated += 1;
        if is_datagram {
            log.repeated_datagrams += 1;
        } else {
            log.repeated_stream += 1;
        }
        trace::record(host, "cloud.tamper", format!("link={} repeats a message", t.link));
        let _ = slot.ops.send(t.op);
    }
}

struct Inner {
    host: String,
    cloud: Cloud,
    links: BTreeMap<LinkId, LinkSlot>,
    next_id: LinkId,
    log: CloudLog,
    relay: Vec<RelayFault>,
}

/// The cloud's driver (clone to share between doors).
#[derive(Clone)]
pub struct CloudDriver {
    inner: Rc<RefCell<Inner>>,
    wake: Rc<Notify>,
}

fn now_ms() -> u64 {
    time::now().as_millis() as u64
}

/// Journal a step of the cloud at `now` (ms).
pub(crate) fn jot(host: &str, now: u64, step: CloudStep) {
    journal::record_at(Duration::from_millis(now), host, Step::Cloud(step));
}

/// The journal's first step of a cloud: its configuration.
pub(crate) fn config_step(cloud: &Cloud) -> CloudStep {
    CloudStep::Config {
        cloud_private: cloud.config().key.private,
        boxes: cloud.registered_box_keys(),
        pairs: cloud.pairings(),
        sessions_enabled: cloud.config().sessions_enabled,
    }
}

/// Journal one transmit the model asked for.
pub(crate) fn jot_transmit(host: &str, now: u64, t: &ftw_cloud::Transmit) {
    let step = match &t.op {
        LinkOp::Send { kind, bytes } => CloudStep::Send { link: t.link, kind: *kind, bytes: Bytes::of(bytes) },
        LinkOp::Close { code, .. } => CloudStep::Close { link: t.link, code: *code },
    };
    jot(host, now, step);
}

/// Tell the model `link` closed, journaled (every `handle_closed` goes through here).
fn closed(i: &mut Inner, now: u64, link: LinkId, code: u16) {
    jot(&i.host, now, CloudStep::Closed { link, code });
    i.cloud.handle_closed(now, link, code);
    jot_notes(&i.host, now, &mut i.cloud);
}

/// Journal what the cloud read in the call just made (its notes).
pub(crate) fn jot_notes(host: &str, now: u64, cloud: &mut Cloud) {
    while let Some(n) = cloud.poll_note() {
        jot(host, now, CloudStep::Note(n));
    }
    jot(host, now, CloudStep::Holds { links: cloud.link_count(), stats: cloud.stats() });
}

impl CloudDriver {
    /// Adopt every link the WebSocket door accepts, for as long as the host runs.
    pub fn serve_ws(&self, door: crate::drive::ws::WsDoor) {
        let d = self.clone();
        tokio::task::spawn_local(async move {
            while let Ok((stream, _)) = door.accept().await {
                let (d, door) = (d.clone(), door.clone());
                tokio::task::spawn_local(async move {
                    if let Ok((link, target)) = crate::drive::link::accept_ws(&door, stream).await {
                        d.adopt(link, target);
                    }
                });
            }
        });
    }

    /// Adopt every link the reactor fleet's door accepts, from any reactor
    /// (never returns).
    pub async fn serve_fleet(&self, door: crate::drive::fleet::FleetDoor) -> ! {
        loop {
            let (_, conn) = door.accept().await;
            let d = self.clone();
            tokio::task::spawn_local(async move {
                if let Ok((link, target)) = crate::drive::link::accept_quic(conn).await {
                    d.adopt(link, target);
                }
            });
        }
    }

    /// The plan's `cloud_restart` at this moment: close every box uplink with `code`
    /// (the model hears each closed) after `forget` has lost the TLS session store
    /// or not (`lost`).
    pub fn restart_uplinks(&self, code: u16, lost: bool) {
        {
            let now = now_ms();
            let mut guard = self.inner.borrow_mut();
            let i = &mut *guard;
            i.log.restarts.push((now, lost));
            let boxes: Vec<LinkId> = i.links.iter().filter(|(_, s)| !s.phone).map(|(id, _)| *id).collect();
            for id in boxes {
                trace::record(&i.host, "cloud.restart", format!("link={id} closed with {code}, session store lost: {lost}"));
                if let Some(slot) = i.links.remove(&id) {
                    let _ = slot.ops.send(LinkOp::Close { code, reason: "service restart".into() });
                }
                i.log.closes.push((id, code));
                closed(i, now, id, code);
            }
        }
        self.flush();
    }

    /// Start the driver (its timer task) on the current host, with the plan's
    /// timed relay faults.
    pub fn start_with_relay(host: &str, cloud: Cloud, relay: Vec<RelayFault>) -> Self {
        jot(host, now_ms(), config_step(&cloud));
        let inner = Rc::new(RefCell::new(Inner { host: host.to_string(), cloud, links: BTreeMap::new(), next_id: 1, log: CloudLog::default(), relay }));
        let me = CloudDriver { inner, wake: Rc::new(Notify::new()) };
        let timer = me.clone();
        tokio::task::spawn_local(async move { timer.timer().await });
        me
    }

    /// Read the model.
    pub fn with_cloud<R>(&self, f: impl FnOnce(&mut Cloud) -> R) -> R {
        f(&mut self.inner.borrow_mut().cloud)
    }

    /// What the driver saw so far.
    pub fn log(&self) -> CloudLog {
        self.inner.borrow().log.clone()
    }

    /// Hand the cloud a link accepted at a door, with its target (the first
    /// message). The link's datagrams are on when it is QUIC.
    pub fn adopt(&self, link: Link, target: String) -> LinkId {
        let transport = link.transport();
        if link.zero_rtt() == Some(true) {
            *self.inner.borrow_mut().log.early_data.entry(target.clone()).or_default() += 1;
        }
        let datagrams = transport == TransportKind::Quic;
        let (tx, rx) = mpsc::unbounded_channel();
        let id = {
            let mut i = self.inner.borrow_mut();
            let id = i.next_id;
            i.next_id += 1;
            i.links.insert(
                id,
                LinkSlot {
                    ops: tx,
                    datagrams,
                    held: Vec::new(),
                    reversing: Vec::new(),
                    data_chans: BTreeSet::new(),
                    phone: target == ftw_cloud::consts::PHONE_TARGET,
                },
            );
            i.log.links_adopted += 1;
            *i.log.by_transport.entry(transport.name()).or_default() += 1;
            let host = i.host.clone();
            trace::record(&host, "cloud.accept", format!("link={id} {} target={target}", transport.name()));
            let now = now_ms();
            jot(&host, now, CloudStep::Accept { link: id, target: target.clone(), datagrams });
            i.cloud.handle_accept(now, id, &target, datagrams);
            jot_notes(&host, now, &mut i.cloud);
            id
        };
        self.flush();
        let me = self.clone();
        tokio::task::spawn_local(async move { me.serve(id, link, rx).await });
        id
    }

    async fn serve(&self, id: LinkId, mut link: Link, mut ops: mpsc::UnboundedReceiver<LinkOp>) {
        loop {
            tokio::select! {
                biased;
                op = ops.recv() => {
                    let Some(op) = op else { return };
                    match op {
                        LinkOp::Send { kind, bytes } => {
                            if let Err(e) = link.send_as(kind, &bytes) {
                                let host = self.inner.borrow().host.clone();
                                trace::record(&host, "cloud.send_failed", format!("link={id} {e}"));
                            }
                        }
                        LinkOp::Close { code, reason } => {
                            link.close(code, &reason);
                            // The model has forgotten the link; drain nothing more.
                            self.inner.borrow_mut().links.remove(&id);
                            return;
                        }
                    }
                }
                ev = link.recv() => {
                    let now = now_ms();
                    let closed = {
                        let mut guard = self.inner.borrow_mut();
                        let i = &mut *guard;
                        match &ev {
                            LinkEvent::Message(b) => {
                                i.log.keep(b);
                                jot(&i.host, now, CloudStep::In { link: id, datagram: false, bytes: Bytes::of(b) });
                                i.cloud.handle_message(now, id, b);
                                jot_notes(&i.host, now, &mut i.cloud);
                                false
                            }
                            LinkEvent::Datagram(b) => {
                                i.log.keep(b);
                                jot(&i.host, now, CloudStep::In { link: id, datagram: true, bytes: Bytes::of(b) });
                                i.cloud.handle_datagram(now, id, b);
                                jot_notes(&i.host, now, &mut i.cloud);
                                false
                            }
                            LinkEvent::Closed(c) => {
                                let host = i.host.clone();
                                trace::record(&host, "cloud.link_closed", format!("link={id} code={} by_peer={}", c.code, c.by_peer));
                                if i.links.remove(&id).is_some() {
                                    closed(i, now, id, c.code);
                                }
                                true
                            }
                        }
                    };
                    self.flush();
                    if closed {
                        return;
                    }
                }
            }
        }
    }

    /// Move every transmit of the model to its link's queue (through the relay faults).
    fn flush(&self) {
        let mut guard = self.inner.borrow_mut();
        let i = &mut *guard;
        let now = now_ms();
        let mut closes: Vec<(LinkId, u16)> = Vec::new();
        while let Some(mut t) = i.cloud.poll_transmit() {
            jot_transmit(&i.host, now, &t);
            let Some(slot) = i.links.get_mut(&t.link) else { continue };
            let mut fate = Fate::default();
            match &t.op {
                LinkOp::Send { kind, bytes } => {
                    i.log.keep(bytes);
                    assert!(*kind != SendKind::Datagram || slot.datagrams, "the cloud asked for a datagram on a link without them");
                    if slot.phone {
                        relay::phone_fate(&mut i.relay, &mut PhoneSend { now, kind: *kind, link: t.link, closes: &mut closes }, &mut fate);
                    } else {
                        fate.corrupt = relay::box_corruption_due(&mut i.relay, now, &t.op, &mut slot.data_chans);
                    }
                }
                LinkOp::Close { code, .. } => {
                    i.log.closes.push((t.link, *code));
                    trace::record(&i.host, "cloud.close", format!("link={} code={code}", t.link));
                }
            }
            if fate.corrupt {
                corrupt(&i.host, &mut i.log, slot.phone, &mut t);
            }
            if let Some(&(_, code)) = closes.iter().find(|c| c.0 == t.link) {
                // The plan's `cloud_close`: this message never goes; the link closes.
                trace::record(&i.host, "cloud.tamper", format!("link={} closed with {code} by the plan", t.link));
                i.log.closes.push((t.link, code));
                let _ = slot.ops.send(LinkOp::Close { code, reason: "cloud_close".into() });
                continue;
            }
            send_through(&i.host, &mut i.log, slot, t, fate, now);
        }
        let closed_some = !closes.is_empty();
        for (link, code) in closes {
            // The model hears the link it was made to close as closed.
            closed(i, now, link, code);
        }
        drop(guard);
        if closed_some {
            // What the model sends on hearing it (the box told the phone left).
            self.flush();
        }
        self.wake.notify_one();
    }

    /// The next end of a `reverse_datagrams` window still holding datagrams.
    fn relay_deadline(&self) -> Option<u64> {
        let i = self.inner.borrow();
        let held = i.links.values().flat_map(|s| s.held.iter().map(|h| h.2)).min();
        let holding = i.links.values().any(|s| !s.reversing.is_empty());
        let window = if holding { relay::open_window_end(&i.relay) } else { None };
        match (held, window) {
            (Some(a), Some(b)) => Some(a.min(b)),
            (a, b) => a.or(b),
        }
    }

    /// Send every datagram a window that ended held, newest first.
    fn release_reversed(&self) {
        let mut guard = self.inner.borrow_mut();
        let i = &mut *guard;
        let now = now_ms();
        // Held messages whose burst never came go now.
        for (id, slot) in i.links.iter_mut() {
            let mut k = 0;
            while k < slot.held.len() {
                if slot.held[k].2 <= now {
                    let (op, _, _) = slot.held.remove(k);
                    trace::record(&i.host, "cloud.tamper", format!("link={id} lets a held message go after {HOLD_MAX_MS} ms"));
                    let _ = slot.ops.send(op);
                } else {
                    k += 1;
                }
            }
        }
        let open = relay::close_windows(&mut i.relay, now);
        if open {
            return;
        }
        for (id, slot) in i.links.iter_mut() {
            if slot.reversing.is_empty() {
                continue;
            }
            trace::record(&i.host, "cloud.tamper", format!("link={id} sends {} held datagrams newest first", slot.reversing.len()));
            while let Some(op) = slot.reversing.pop() {
                i.log.reversed += 1;
                let _ = slot.ops.send(op);
            }
        }
    }

    async fn timer(&self) {
        loop {
            let model = self.inner.borrow().cloud.poll_timeout();
            let relay = self.relay_deadline();
            let deadline = match (model, relay) {
                (Some(a), Some(b)) => Some(a.min(b)),
                (a, b) => a.or(b),
            };
            let sleep = async {
                match deadline {
                    Some(d) => time::sleep_until(Duration::from_millis(d)).await,
                    None => std::future::pending().await,
                }
            };
            tokio::select! {
                biased;
                _ = sleep => {
                    if relay.is_some_and(|r| r <= now_ms()) {
                        self.release_reversed();
                    }
                    if model.is_some_and(|m| m <= now_ms()) {
                        let now = now_ms();
                        let mut guard = self.inner.borrow_mut();
                        let i = &mut *guard;
                        jot(&i.host, now, CloudStep::Timeout);
                        i.cloud.handle_timeout(now);
                        jot_notes(&i.host, now, &mut i.cloud);
                    }
                    self.flush();
                }
                _ = self.wake.notified() => {}
            }
        }
    }
}
