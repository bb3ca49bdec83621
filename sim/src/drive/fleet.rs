//! The cloud's QUIC door as a reactor fleet (SPEC section 5): one simulated UDP
//! socket on the shared port (the kernel's receive side), N quinn-proto
//! endpoints (the reactors), and the IO-free [`ftw_fleet::Fleet`] deciding which
//! reactor reads which datagram.
//!
//! The driver task reads every datagram waiting on the socket at once (a
//! batch, as `recvmmsg` would), hands each to [`Fleet::on_datagram`], then
//! drains [`Fleet::poll_delivery`] into the chosen reactor's endpoint. Every
//! reactor sends from the shared socket (pins only receive). The endpoints tell
//! the fleet what they learn through [`EpNote`]s: new connections, a path
//! report on every datagram a connection handles, drained connections. The pin
//! sweep's timer goes through [`crate::world::time::sleep_until`] and is armed only
//! while a connection has moved, so an idle fleet never wakes.
//!
//! What the driver adds to the fleet's own counters ([`DoorStats`]): reads whose
//! bytes differ from what arrived (`forward-reference`), long headers that were
//! forwarded (`forward-long-headers`), and the times of moves and forwards, so
//! scenarios can state the laws. Trace kinds: `fleet.forward`, `fleet.pin`,
//! `fleet.unpin`, `fleet.stale`, `fleet.drop`, `fleet.move`, `fleet.counters`.
//!
//! The journal ([`crate::world::journal::fleet`], never hashed) gets every input
//! the fleet is given and every decision it makes, in order: its configuration,
//! the ids each reactor minted (the driver drains the generators' logs and
//! registers them just before each read, where the fleet would have drained
//! them itself), each arrival with the kernel's hash for its sender, each read,
//! each event as soon as the call that made it returns, the endpoints' notes,
//! the sweep timer, and the counters whenever they changed.

use std::cell::RefCell;
use std::collections::{BTreeMap, VecDeque};
use std::net::SocketAddr;
use std::rc::Rc;
use std::sync::{Arc, Mutex};

use ftw_crypto::CidFactory;
use ftw_fleet::{ConnectionHandle, Counters, Fleet, FleetConfig, FleetEvent, MintedCids, ReactorId, ShardCidGenerator, Via};
use quinn_proto::{EndpointConfig, ServerConfig};
use tokio::sync::Notify;
use turmoil::net::UdpSocket;

use crate::drive::quic::{EpNote, QuicConn, QuicEndpoint};
use crate::world::journal::{self, fleet::Bytes, fleet::FleetStep, Step};
use crate::world::time;
use crate::world::trace;

/// The largest UDP payload read from the shared socket.
const RECV_BUF_BYTES: usize = 65_536;

/// What the driver observed, beyond the fleet's counters.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct DoorStats {
    /// Deliveries whose bytes differ from the datagram that arrived.
    pub corrupt_reads: u64,
    /// Deliveries of long-header datagrams that came by a forward.
    pub long_headers_forwarded: u64,
    /// Connections accepted, per reactor.
    pub accepted_by_reactor: Vec<u64>,
    /// Datagrams handed to each reactor's endpoint.
    pub delivered_by_reactor: Vec<u64>,
    /// Path reports made (one per datagram a server connection handled).
    pub path_reports: u64,
    /// Every change of a server connection's peer address.
    pub moves: Vec<Move>,
    /// When each forwarded datagram was read by its owner (ms), for datagrams
    /// whose id the owner holds: a moved client's packets.
    pub forward_times_ms: Vec<u64>,
    /// When each forwarded datagram whose id its stamp's reactor does not hold was
    /// read (ms): a stateless reset (random bytes after a short header's first
    /// byte, RFC 9000 section 10.3) or a retired id. The phone sends resets for
    /// the cloud's late packets to an id it retired at a migration; the stamp
    /// routes them at random and the owner drops them.
    pub stray_forward_times_ms: Vec<u64>,
    /// When each forwarded datagram from an address no connection had as its
    /// peer by then was read (ms): a forged move's copy (plan kind
    /// `forged_moves`) that arrived after its original, so no connection moved
    /// to it; or a packet of a connection that cannot move yet, its handshake not
    /// confirmed at the server (RFC 9000 section 9), from the address its client
    /// later dials again from (corpus/fleet-migrate-forwards-before-confirmed.toml).
    pub forged_forward_times_ms: Vec<u64>,
    /// When each forwarded datagram from a peer whose pin was already released
    /// because its connection ended was read (ms): the late packets of a closed
    /// connection (its draining period, RFC 9000 section 10.2), routed by the
    /// hash again once nothing claims the address (SPEC section 5: "a pin is
    /// released when its connection ends"; corpus/fleet-still-forward-after-close.toml).
    pub ended_forward_times_ms: Vec<u64>,
    /// Pins claimed: (time ms, reactor, peer).
    pub pins: Vec<(u64, usize, SocketAddr)>,
    /// Pins released because their connection ended: (time ms, peer).
    pub ended_pins: Vec<(u64, SocketAddr)>,
    /// Connections drained, per reactor.
    pub drained_by_reactor: Vec<u64>,
    /// The most pins each reactor held open at once.
    pub pins_open_max: Vec<u64>,
}

/// A server connection's peer address changed.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Move {
    pub at_ms: u64,
    /// The reactor that owns the connection.
    pub reactor: usize,
    /// The connection's handle on that reactor.
    pub conn: usize,
    pub to: SocketAddr,
    /// The reactor the kernel's hash picks for `to` (a move forwards iff it differs
    /// from `reactor`, under `Forward`).
    pub hashed: usize,
    /// When the moved connection ended (ms), if it did: a connection that ends
    /// before the next pin sweep is never pinned (SPEC section 5: a pin lives as
    /// long as its connection).
    pub ended_ms: Option<u64>,
}

struct DoorState {
    host: String,
    fleet: Fleet,
    stats: DoorStats,
    /// Peer address last reported, per (reactor, connection).
    peers: BTreeMap<(usize, ConnectionHandle), SocketAddr>,
    /// Every address a connection ever had as its peer.
    /// When each address was first some connection's peer (ms).
    ever_peers: std::collections::BTreeMap<SocketAddr, u64>,
    /// Forwarded datagrams whose id the owner holds: (read at ms, source).
    client_forwards: Vec<(u64, SocketAddr)>,
    notes: VecDeque<(usize, EpNote)>,
    /// Bytes of each datagram queued in the fleet, by datagram id, until read
    /// (emptied after every batch).
    arrived: BTreeMap<u64, Vec<u8>>,
    last_counters: Counters,
    /// Each reactor's log of the ids its generator minted. The driver hands
    /// them to the fleet ([`Fleet::register_cid`]) before every read, where the
    /// fleet would have read the log itself, so the journal sees each id.
    minted: Vec<MintedCids>,
    /// How many of the fleet's pending events are journaled already.
    events_journaled: usize,
    /// The counters last journaled, per reactor.
    journaled_counters: Vec<Counters>,
}

impl DoorState {
    /// A door's state before any datagram: its fleet (recording its events) and
    /// empty counts for each of its `cfg.reactor_count` reactors.
    fn new(host: &str, cfg: FleetConfig) -> DoorState {
        let n = cfg.reactor_count;
        DoorState {
            host: host.to_string(),
            fleet: Fleet::new(FleetConfig { record_events: true, ..cfg }),
            arrived: BTreeMap::new(),
            stats: DoorStats {
                accepted_by_reactor: vec![0; n],
                delivered_by_reactor: vec![0; n],
                pins_open_max: vec![0; n],
                drained_by_reactor: vec![0; n],
                ..DoorStats::default()
            },
            peers: BTreeMap::new(),
            ever_peers: std::collections::BTreeMap::new(),
            client_forwards: Vec::new(),
            notes: VecDeque::new(),
            last_counters: Counters::default(),
            minted: Vec::with_capacity(n),
            events_journaled: 0,
            journaled_counters: vec![Counters::default(); n],
        }
    }

    /// Journals the fleet's configuration, the first step of its reference model.
    fn journal_config(&self) {
        let c = self.fleet.config();
        let step = FleetStep::Config {
            reactors: c.reactor_count,
            routing: c.routing,
            pins_per_reactor_max: c.pins_per_reactor_max,
            pin_sweep_ms: c.pin_sweep_ms,
            recv_buffer_bytes: c.recv_buffer_bytes,
            forward_queue_len_max: c.forward_queue_len_max,
        };
        self.journal(now_ms(), step);
    }

    /// Journal a step of the fleet at `now_ms` (never traced, never hashed).
    fn journal(&self, now_ms: u64, step: FleetStep) {
        journal::record_at(std::time::Duration::from_millis(now_ms), &self.host, Step::Fleet(step));
    }

    /// Journal the events the fleet made since the last call, in its order.
    fn journal_events(&mut self, now_ms: u64) {
        let new: Vec<FleetEvent> = self.fleet.pending_events().skip(self.events_journaled).cloned().collect();
        self.events_journaled += new.len();
        for e in new {
            self.journal(now_ms, FleetStep::Event(e));
        }
    }

    /// Give the fleet (and the journal) the ids minted since the last call.
    fn register_minted(&mut self, now_ms: u64) {
        for r in 0..self.minted.len() {
            for cid in self.minted[r].drain() {
                self.journal(now_ms, FleetStep::Minted { reactor: ReactorId::new(r), cid: cid.to_vec() });
                self.fleet.register_cid(ReactorId::new(r), &cid);
            }
        }
    }

    /// Journal every reactor's counters if any changed since the last time.
    fn journal_counters(&mut self, now_ms: u64) {
        let now: Vec<Counters> = (0..self.fleet.reactor_count()).map(|r| self.fleet.counters(ReactorId::new(r))).collect();
        if now != self.journaled_counters {
            self.journal(now_ms, FleetStep::Counters(now.clone()));
            self.journaled_counters = now;
        }
    }
}

/// The cloud's QUIC door: N reactors behind one port.
#[derive(Clone)]
pub struct FleetDoor {
    st: Rc<RefCell<DoorState>>,
    reactors: Vec<QuicEndpoint>,
    accept_notify: Rc<Notify>,
    note_notify: Rc<Notify>,
}

impl FleetDoor {
    /// Bind `addr` and start the fleet on the current host. Reactor `r`'s
    /// endpoint is `endpoint_config(r, factory)`, where `factory` makes its
    /// shard-stamped id generator (seeded from `cid_seed`); all reactors share
    /// `server` (so one session store, one token key).
    pub async fn bind(
        host: &str,
        addr: SocketAddr,
        cfg: FleetConfig,
        cid_seed: [u8; 32],
        endpoint_config: impl Fn(usize, CidFactory) -> EndpointConfig,
        server: ServerConfig,
    ) -> std::io::Result<Self> {
        let socket = Rc::new(UdpSocket::bind(addr).await?);
        let n = cfg.reactor_count;
        let accept_notify = Rc::new(Notify::new());
        let note_notify = Rc::new(Notify::new());
        let st = Rc::new(RefCell::new(DoorState::new(host, cfg)));
        st.borrow().journal_config();
        let mut gens = ShardCidGenerator::for_fleet(n, cid_seed);
        let mut reactors = Vec::with_capacity(n);
        for r in 0..n {
            let log = MintedCids::new();
            st.borrow_mut().minted.push(log.clone());
            let gen = Mutex::new(Some(gens.remove(0).with_minted_log(log)));
            let factory: CidFactory = Arc::new(move || Box::new(gen.lock().expect("single-threaded").take().expect("one endpoint per reactor")));
            let observer = {
                let st = st.clone();
                let note_notify = note_notify.clone();
                Rc::new(move |note: EpNote| {
                    st.borrow_mut().notes.push_back((r, note));
                    note_notify.notify_one();
                })
            };
            reactors.push(QuicEndpoint::on_shared_socket(
                &format!("{host}.r{r}"),
                socket.clone(),
                endpoint_config(r, factory),
                Some(server.clone()),
                Some(observer),
                accept_notify.clone(),
            ));
        }
        let door = FleetDoor { st, reactors, accept_notify, note_notify };
        let driver = door.clone();
        tokio::task::spawn_local(async move { driver.drive(socket).await });
        Ok(door)
    }

    /// The next accepted connection, from any reactor, with its reactor.
    pub async fn accept(&self) -> (usize, QuicConn) {
        loop {
            for (r, ep) in self.reactors.iter().enumerate() {
                if let Some(c) = ep.try_accept() {
                    return (r, c);
                }
            }
            self.accept_notify.notified().await;
        }
    }

    pub fn reactor_count(&self) -> usize {
        self.reactors.len()
    }

    /// One reactor's counters.
    pub fn counters(&self, r: usize) -> Counters {
        self.st.borrow().fleet.counters(ReactorId::new(r))
    }

    /// The fleet's counters, summed.
    pub fn totals(&self) -> Counters {
        self.st.borrow().fleet.totals()
    }

    /// What the driver observed.
    pub fn stats(&self) -> DoorStats {
        let st = self.st.borrow();
        let mut stats = st.stats.clone();
        // A forward from an address no connection ever adopted is an on-path
        // attacker's forged copy that lost the race to its original.
        for &(at, src) in &st.client_forwards {
            if stats.ended_pins.iter().any(|&(t, peer)| peer == src && t <= at) {
                stats.ended_forward_times_ms.push(at);
            } else if st.ever_peers.get(&src).is_some_and(|&first| first <= at) {
                stats.forward_times_ms.push(at);
            } else {
                stats.forged_forward_times_ms.push(at);
            }
        }
        stats
    }

    /// The reactor the kernel's hash picks for `src`.
    #[cfg(test)]
    pub fn hash_reactor(&self, src: SocketAddr) -> usize {
        self.st.borrow().fleet.kernel().hash_reactor(src).index()
    }

    /// Record the counters (summed and per reactor) in the trace as `kind`.
    pub fn record_counters(&self, kind: &str) {
        let st = self.st.borrow();
        trace::record(&st.host, kind, counters_line(&st.fleet));
    }

    async fn drive(&self, socket: Rc<UdpSocket>) {
        let mut buf = vec![0u8; RECV_BUF_BYTES];
        loop {
            self.apply_notes();
            let sweep = self.st.borrow().fleet.poll_timeout();
            let sleep = async {
                match sweep {
                    Some(ms) => time::sleep_until(std::time::Duration::from_millis(ms)).await,
                    None => std::future::pending().await,
                }
            };
            tokio::select! {
                biased;
                r = socket.recv_from(&mut buf) => {
                    if let Ok((n, from)) = r {
                        let now_ms = now_ms();
                        self.arrive(now_ms, from, &buf[..n]);
                        // Everything else already waiting: one batch.
                        while let Ok((n, from)) = socket.try_recv_from(&mut buf) {
                            self.arrive(now_ms, from, &buf[..n]);
                        }
                        self.deliver(now_ms);
                    }
                }
                _ = sleep => {
                    let now_ms = now_ms();
                    trace::record(&self.st.borrow().host, "timer", "fleet.sweep");
                    {
                        let mut st = self.st.borrow_mut();
                        st.journal(now_ms, FleetStep::Timeout);
                        st.fleet.handle_timeout(now_ms);
                        st.journal_events(now_ms);
                    }
                    self.after(now_ms);
                }
                _ = self.note_notify.notified() => {}
            }
        }
    }

    fn arrive(&self, now_ms: u64, from: SocketAddr, bytes: &[u8]) {
        let mut st = self.st.borrow_mut();
        let hashed = st.fleet.kernel().hash_reactor(from);
        let a = st.fleet.on_datagram(now_ms, from, bytes);
        let step = FleetStep::Arrival { src: from, bytes: Bytes::of(bytes), hashed, datagram: a.datagram.0, socket: a.socket, queued: a.queued };
        st.journal(now_ms, step);
        st.journal_events(now_ms);
        if !a.queued {
            let host = st.host.clone();
            trace::record(&host, "fleet.drop", format!("d{} rcvbuf full at {}", a.datagram.0, a.socket));
        }
        if a.queued {
            st.arrived.insert(a.datagram.0, bytes.to_vec());
        }
    }

    /// Read everything queued into the reactors' endpoints.
    fn deliver(&self, now_ms: u64) {
        loop {
            let d = {
                let mut st = self.st.borrow_mut();
                st.register_minted(now_ms);
                let d = st.fleet.poll_delivery(now_ms);
                st.journal_events(now_ms);
                if let Some(d) = &d {
                    let step = FleetStep::Delivery { datagram: d.datagram.0, reactor: d.reactor, src: d.src, bytes: Bytes::of(&d.bytes), via: d.via };
                    st.journal(now_ms, step);
                }
                d
            };
            let Some(d) = d else { break };
            let r = d.reactor.index();
            {
                let mut st = self.st.borrow_mut();
                let sent = st.arrived.remove(&d.datagram.0);
                if sent.as_deref() != Some(&d.bytes[..]) {
                    st.stats.corrupt_reads += 1;
                    let host = st.host.clone();
                    trace::record(&host, "fleet.corrupt", format!("d{} read at r{r} differs from what arrived", d.datagram.0));
                }
                st.stats.delivered_by_reactor[r] += 1;
                if let Via::Forwarded { .. } = d.via {
                    let held = ftw_fleet::packet::dst_cid(&d.bytes, ftw_fleet::consts::LOCAL_CID_LEN).map(<[u8]>::to_vec);
                    if held.is_some_and(|cid| st.fleet.holds(d.reactor, &cid)) || d.bytes.first().is_some_and(|b| b & 0x80 != 0) {
                        // Sorted out by `stats`: the datagram that makes a connection move
                        // is read before the move is known.
                        st.client_forwards.push((now_ms, d.src));
                    } else {
                        st.stats.stray_forward_times_ms.push(now_ms);
                        let host = st.host.clone();
                        trace::record(
                            &host,
                            "fleet.stray",
                            format!("d{} forwarded to r{r}, which holds no such id (a stateless reset or a retired id)", d.datagram.0),
                        );
                    }
                    if d.bytes.first().is_some_and(|b| b & 0x80 != 0) {
                        st.stats.long_headers_forwarded += 1;
                    }
                }
            }
            self.reactors[r].feed(d.src, &d.bytes);
        }
        // Every queue is empty: what was not delivered was dropped (and counted).
        {
            let mut st = self.st.borrow_mut();
            st.arrived.clear();
            for r in 0..self.reactors.len() {
                assert_eq!(st.fleet.queued_len(ReactorId::new(r)), 0, "r{r} left work queued");
            }
        }
        self.apply_notes();
    }

    /// Tell the fleet what the endpoints said.
    fn apply_notes(&self) {
        let now_ms = now_ms();
        loop {
            let mut st = self.st.borrow_mut();
            let Some((r, note)) = st.notes.pop_front() else { break };
            let rid = ReactorId::new(r);
            match note {
                EpNote::Opened { conn, peer } => {
                    st.journal(now_ms, FleetStep::Opened { reactor: rid, conn, peer });
                    st.fleet.connection_opened(now_ms, rid, conn, peer);
                    st.peers.insert((r, conn), peer);
                    st.ever_peers.entry(peer).or_insert(now_ms);
                    st.stats.accepted_by_reactor[r] += 1;
                }
                EpNote::Handled { conn, remote } => {
                    st.stats.path_reports += 1;
                    let was = st.peers.insert((r, conn), remote);
                    st.ever_peers.entry(remote).or_insert(now_ms);
                    if was.is_some_and(|w| w != remote) {
                        let hashed = st.fleet.kernel().hash_reactor(remote).index();
                        st.stats.moves.push(Move { at_ms: now_ms, reactor: r, conn: conn.0, to: remote, hashed, ended_ms: None });
                        let host = st.host.clone();
                        trace::record(&host, "fleet.move", format!("r{r} conn {} {} -> {remote} (hashed to r{hashed})", conn.0, was.expect("known")));
                    }
                    st.journal(now_ms, FleetStep::PathReport { reactor: rid, conn, addr: remote });
                    st.fleet.path_report(now_ms, rid, conn, remote);
                    st.journal_events(now_ms);
                }
                EpNote::Drained { conn } => {
                    for m in st.stats.moves.iter_mut().filter(|m| m.reactor == r && m.conn == conn.0 && m.ended_ms.is_none()) {
                        m.ended_ms = Some(now_ms);
                    }
                    st.journal(now_ms, FleetStep::Closed { reactor: rid, conn });
                    st.fleet.connection_closed(now_ms, rid, conn);
                    st.journal_events(now_ms);
                    st.peers.remove(&(r, conn));
                    st.stats.drained_by_reactor[r] += 1;
                }
            }
        }
        self.after(now_ms);
    }

    /// Trace the fleet's events, and its counters when a named one changed.
    fn after(&self, now_ms: u64) {
        let mut st = self.st.borrow_mut();
        let host = st.host.clone();
        st.journal_events(now_ms);
        st.events_journaled = 0;
        st.journal_counters(now_ms);
        while let Some(e) = st.fleet.poll_event() {
            let kind = match &e {
                FleetEvent::Forwarded { .. } => "fleet.forward",
                FleetEvent::ForwardDropped { .. } => "fleet.drop",
                FleetEvent::Pinned { reactor, peer, .. } => {
                    st.stats.pins.push((now_ms, reactor.index(), *peer));
                    "fleet.pin"
                }
                FleetEvent::PinReleased { peer, reason, .. } => {
                    if *reason == ftw_fleet::PinReleaseReason::ConnectionClosed {
                        st.stats.ended_pins.push((now_ms, *peer));
                    }
                    "fleet.unpin"
                }
                FleetEvent::StaleDrop { .. } => "fleet.stale",
                FleetEvent::BufferDrop { .. } => "fleet.drop",
            };
            trace::record(&host, kind, e.to_string());
        }
        for r in 0..st.stats.pins_open_max.len() {
            let open = st.fleet.counters(ftw_fleet::ReactorId::new(r)).pins_open;
            st.stats.pins_open_max[r] = st.stats.pins_open_max[r].max(open);
        }
        let c = st.fleet.totals();
        let named = |c: &Counters| (c.forwards_sent, c.forwards_received, c.forwards_dropped, c.stale_datagrams, c.pins_created, c.pins_open);
        if named(&c) != named(&st.last_counters) {
            st.last_counters = c;
            let line = if trace::wanted() { counters_line(&st.fleet) } else { String::new() };
            trace::record(&host, "fleet.counters", line);
        }
    }
}

fn now_ms() -> u64 {
    time::now().as_millis() as u64
}

/// `ForwardsSent=.. ForwardsReceived=.. ForwardsDropped=.. StaleDatagrams=..
/// PinsCreated=.. PinsOpen=..` summed, then per reactor.
pub fn counters_line(fleet: &Fleet) -> String {
    let one = |c: Counters| {
        format!(
            "ForwardsSent={} ForwardsReceived={} ForwardsDropped={} StaleDatagrams={} PinsCreated={} PinsOpen={}",
            c.forwards_sent, c.forwards_received, c.forwards_dropped, c.stale_datagrams, c.pins_created, c.pins_open
        )
    };
    let mut s = format!("all: {}", one(fleet.totals()));
    for r in 0..fleet.reactor_count() {
        s.push_str(&format!(" | r{r}: {}", one(fleet.counters(ReactorId::new(r)))));
    }
    s
}
