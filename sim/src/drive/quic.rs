//! The QUIC driver: one quinn-proto `Endpoint` on one simulated UDP socket,
//! driven by a task. quinn-proto stays IO-free; this binds it to turmoil's
//! socket, to the sim-owned timers (so idle time can be skipped) and to the
//! trace. Applications hold [`QuicConn`] handles and await [`QuicEvent`]s.
//!
//! Two ways to bind: [`QuicEndpoint::bind`] owns its socket and reads it;
//! [`QuicEndpoint::on_shared_socket`] sends from a socket someone else reads
//! (the cloud's reactor fleet, `crate::drive::fleet`), which feeds it datagrams with
//! [`QuicEndpoint::feed`] and learns about its connections through an
//! [`EpNote`] observer.

use std::cell::RefCell;
use std::collections::{BTreeMap, BTreeSet, VecDeque};
use std::net::SocketAddr;
use std::rc::Rc;
use std::sync::Arc;
use std::time::Duration;

use bytes::{Bytes, BytesMut};
use quinn_proto::{
    ClientConfig, ConnectionError, ConnectionHandle, DatagramEvent, Dir, Endpoint, EndpointConfig, Event, ServerConfig, StreamEvent, StreamId, VarInt,
};
use tokio::sync::Notify;
use turmoil::net::UdpSocket;

use crate::world::net::fate;
use crate::world::time;
use crate::world::trace;

/// The largest UDP payload we receive.
const RECV_BUF_BYTES: usize = 65_536;
/// Most datagrams quinn may batch in one `poll_transmit` (split before sending).
const GSO_SEGMENTS_MAX: usize = 10;

/// The instant quinn-proto sees for the running host's current time.
pub fn quinn_now() -> std::time::Instant {
    time::instant_now()
}

fn since_start(i: std::time::Instant) -> Duration {
    time::instant_since_start(i)
}

/// What a connection tells its application.
#[derive(Clone, Debug, PartialEq)]
pub enum QuicEvent {
    Connected,
    /// 0-RTT data was accepted by the server (client side).
    ZeroRttAccepted(bool),
    StreamOpened {
        stream: StreamId,
        bidi: bool,
    },
    Data {
        stream: StreamId,
        data: Bytes,
    },
    Finished {
        stream: StreamId,
    },
    Datagram(Bytes),
    /// The peer's address changed (server side: a migration).
    PathChanged(SocketAddr),
    Lost(Lost),
}

/// How a connection ended.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Lost {
    /// Closed by the application with this code (either side).
    Closed {
        code: u64,
        by_peer: bool,
    },
    TimedOut,
    /// The destination refused UDP at once (ICMP port unreachable).
    Refused,
    Other(String),
}

impl Lost {
    fn from_error(e: &ConnectionError) -> Lost {
        match e {
            ConnectionError::ApplicationClosed(c) => Lost::Closed { code: c.error_code.into_inner(), by_peer: true },
            ConnectionError::LocallyClosed => Lost::Closed { code: 0, by_peer: false },
            ConnectionError::TimedOut => Lost::TimedOut,
            other => Lost::Other(other.to_string()),
        }
    }
}

struct Slot {
    /// Which connection this is: quinn-proto reuses a drained connection's
    /// handle, so a handle alone would let a stale `QuicConn` read its
    /// successor's events (found by `ftwsim table`: a race redialling from the
    /// same socket got its new connection's target read by the old link).
    gen: u64,
    conn: quinn_proto::Connection,
    events: VecDeque<QuicEvent>,
    notify: Rc<Notify>,
    done: bool,
    /// A client whose send was refused: the app has given the dial up, so the
    /// connection sends nothing more and its timers stop (left to an app, a
    /// refused dial whose 0-RTT target later got through was a link nobody held:
    /// corpus/session-refused-dial-left-a-link.toml).
    abandoned: bool,
    remote: SocketAddr,
    /// Its earliest timer as last polled (its key in [`EpState::timers`]).
    timeout: Option<std::time::Instant>,
    /// When (ms of simulated time) the handshake was first seen confirmed.
    confirmed: Confirmed,
    /// When the slot was made (a client's dial, a server's first Initial).
    since: Duration,
}

/// When a connection's handshake was confirmed (RFC 9001 section 4.1.2), in ms
/// of simulated time; shared, so it outlives the connection (quinn-proto PATCH.md
/// section 16).
pub type Confirmed = Rc<std::cell::Cell<Option<u64>>>;

/// What an endpoint tells an observer about its connections (server side: the
/// fleet needs to know where each connection's peer is and when it ends).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum EpNote {
    /// A connection was accepted from `peer`.
    Opened { conn: ConnectionHandle, peer: SocketAddr },
    /// A datagram was handled by `conn`, whose peer address is now `remote` (a
    /// path report: sent on every datagram, as an engine does while it
    /// validates a path).
    Handled { conn: ConnectionHandle, remote: SocketAddr },
    /// The connection is drained and gone.
    Drained { conn: ConnectionHandle },
}

/// Receives [`EpNote`]s, synchronously, from inside the endpoint (it must not
/// call back into the endpoint).
pub type Observer = Rc<dyn Fn(EpNote)>;

struct EpState {
    host: String,
    ep: Endpoint,
    socket: Rc<UdpSocket>,
    /// The driver reads `socket` (false: someone else feeds datagrams).
    reads_socket: bool,
    observer: Option<Observer>,
    conns: BTreeMap<ConnectionHandle, Slot>,
    next_gen: u64,
    accepted: VecDeque<(ConnectionHandle, u64)>,
    accept_notify: Rc<Notify>,
    /// Connections something happened to since the last flush (a datagram, a
    /// timer, a call of the app's): only these and those with a timer due are
    /// polled, so a flush costs what changed, not every connection (a reactor
    /// of the pin flood holds hundreds).
    dirty: BTreeSet<ConnectionHandle>,
    /// Every live connection's earliest timer, earliest first.
    timers: BTreeSet<(std::time::Instant, ConnectionHandle)>,
}

impl EpState {
    /// Re-read `h`'s earliest timer after it was polled (none once abandoned).
    fn retime(&mut self, h: ConnectionHandle) {
        let Some(s) = self.conns.get_mut(&h) else { return };
        let t = if s.abandoned { None } else { s.conn.poll_timeout() };
        if s.timeout != t {
            if let Some(old) = std::mem::replace(&mut s.timeout, t) {
                self.timers.remove(&(old, h));
            }
            if let Some(t) = t {
                self.timers.insert((t, h));
            }
        }
    }

    /// The connections whose timer is due at `now`, in handle order.
    fn due(&self, now: std::time::Instant) -> BTreeSet<ConnectionHandle> {
        self.timers.iter().take_while(|(t, _)| *t <= now).map(|(_, h)| *h).collect()
    }

    /// A new connection: a slot, and a flush to come.
    fn insert(&mut self, h: ConnectionHandle, conn: quinn_proto::Connection, remote: SocketAddr) -> u64 {
        self.next_gen += 1;
        let gen = self.next_gen;
        let slot = Slot {
            gen,
            conn,
            events: VecDeque::new(),
            notify: Rc::new(Notify::new()),
            done: false,
            abandoned: false,
            remote,
            timeout: None,
            confirmed: Confirmed::default(),
            since: time::now(),
        };
        self.conns.insert(h, slot);
        self.dirty.insert(h);
        gen
    }

    /// Drop a drained connection and its timer, and wake the task waiting on
    /// it: a connection the app closed itself drains without an event (quinn
    /// reports only a peer's or an error's end), so without the wake its
    /// `next_event` would wait on a slot that is gone
    /// (corpus/rig-quic-echo-backoff-after-blackout-14020023638.toml).
    fn remove(&mut self, h: ConnectionHandle) {
        if let Some(s) = self.conns.remove(&h) {
            if let Some(t) = s.timeout {
                self.timers.remove(&(t, h));
            }
            s.notify.notify_one();
        }
    }
}

/// One QUIC endpoint on one simulated UDP socket.
#[derive(Clone)]
pub struct QuicEndpoint {
    st: Rc<RefCell<EpState>>,
    wake: Rc<Notify>,
}

impl QuicEndpoint {
    /// Bind `addr` and start the driver task on the current host.
    pub async fn bind(host: &str, addr: SocketAddr, config: EndpointConfig, server: Option<ServerConfig>) -> std::io::Result<Self> {
        let socket = Rc::new(UdpSocket::bind(addr).await?);
        Ok(Self::start(host, socket, true, config, server, None, Rc::new(Notify::new())))
    }

    /// An endpoint that sends from `socket` but never reads it: datagrams come
    /// in through [`QuicEndpoint::feed`]. `observer` hears about its
    /// connections; `accept_notify` is notified on each accepted connection
    /// (share one between endpoints to accept from all of them).
    pub fn on_shared_socket(
        host: &str,
        socket: Rc<UdpSocket>,
        config: EndpointConfig,
        server: Option<ServerConfig>,
        observer: Option<Observer>,
        accept_notify: Rc<Notify>,
    ) -> Self {
        Self::start(host, socket, false, config, server, observer, accept_notify)
    }

    fn start(
        host: &str,
        socket: Rc<UdpSocket>,
        reads_socket: bool,
        config: EndpointConfig,
        server: Option<ServerConfig>,
        observer: Option<Observer>,
        accept_notify: Rc<Notify>,
    ) -> Self {
        let server_config = server.map(Arc::new);
        let ep = Endpoint::new(Arc::new(config), server_config, true, None);
        let st = Rc::new(RefCell::new(EpState {
            host: host.to_string(),
            ep,
            socket,
            reads_socket,
            observer,
            conns: BTreeMap::new(),
            next_gen: 0,
            accepted: VecDeque::new(),
            accept_notify,
            dirty: BTreeSet::new(),
            timers: BTreeSet::new(),
        }));
        let me = QuicEndpoint { st, wake: Rc::new(Notify::new()) };
        let driver = me.clone();
        tokio::task::spawn_local(async move { driver.drive().await });
        me
    }

    /// Hand the endpoint a datagram from `from` (endpoints made with
    /// [`QuicEndpoint::on_shared_socket`]); it is handled now and the driver
    /// flushes what it causes.
    pub fn feed(&self, from: SocketAddr, data: &[u8]) {
        self.on_datagram(from, data);
        self.wake.notify_one();
    }

    /// An accepted connection, if one is waiting.
    pub fn try_accept(&self) -> Option<QuicConn> {
        let (h, gen) = self.st.borrow_mut().accepted.pop_front()?;
        Some(QuicConn { ep: self.clone(), h, gen })
    }

    /// The host the endpoint runs on (its trace name).
    pub fn host(&self) -> String {
        self.st.borrow().host.clone()
    }

    /// Dial `remote`.
    pub fn connect(&self, config: ClientConfig, remote: SocketAddr, server_name: &str) -> Result<QuicConn, String> {
        let mut st = self.st.borrow_mut();
        let (h, conn) = st.ep.connect(quinn_now(), config, remote, server_name).map_err(|e| e.to_string())?;
        let host = st.host.clone();
        trace::record(&host, "quic.dial", format!("{remote}"));
        let gen = st.insert(h, conn, remote);
        drop(st);
        self.wake.notify_one();
        Ok(QuicConn { ep: self.clone(), h, gen })
    }

    /// Wait for the next incoming connection (server side).
    pub async fn accept(&self) -> QuicConn {
        loop {
            let n = {
                let mut st = self.st.borrow_mut();
                if let Some((h, gen)) = st.accepted.pop_front() {
                    return QuicConn { ep: self.clone(), h, gen };
                }
                st.accept_notify.clone()
            };
            n.notified().await;
        }
    }

    async fn drive(&self) {
        let mut buf = vec![0u8; RECV_BUF_BYTES];
        loop {
            self.flush();
            let (socket, reads, timeout) = {
                let st = self.st.borrow();
                let t = st.timers.first().map(|(t, _)| *t);
                (st.socket.clone(), st.reads_socket, t.map(since_start))
            };
            let sleep = async {
                match timeout {
                    Some(t) => time::sleep_until(t).await,
                    None => std::future::pending().await,
                }
            };
            tokio::select! {
                biased;
                r = socket.recv_from(&mut buf), if reads => {
                    if let Ok((n, from)) = r {
                        self.on_datagram(from, &buf[..n]);
                    }
                }
                _ = sleep => {
                    // A reactor behind a shared socket lets the door deliver what
                    // arrived at this same instant first, as an endpoint reading
                    // its own socket does (`biased;` above): a keep-alive due the
                    // moment the peer's packet lands is then not sent.
                    if !reads {
                        tokio::task::yield_now().await;
                        self.flush();
                    }
                    let now = quinn_now();
                    let mut st = self.st.borrow_mut();
                    trace::record(&st.host.clone(), "timer", "quic");
                    for h in st.due(now) {
                        let s = st.conns.get_mut(&h).expect("a timer's connection is live");
                        s.conn.handle_timeout(now);
                        st.dirty.insert(h);
                    }
                }
                _ = self.wake.notified() => {}
            }
        }
    }

    fn on_datagram(&self, from: SocketAddr, data: &[u8]) {
        let now = quinn_now();
        let mut st = self.st.borrow_mut();
        let mut resp = Vec::new();
        let ev = st.ep.handle(now, from, None, None, BytesMut::from(data), &mut resp);
        match ev {
            Some(DatagramEvent::NewConnection(incoming)) => {
                let mut resp = Vec::new();
                match st.ep.accept(incoming, now, &mut resp, None) {
                    Ok((h, conn)) => {
                        let host = st.host.clone();
                        trace::record(&host, "quic.accept", format!("{from} h={}", h.0));
                        let gen = st.insert(h, conn, from);
                        st.accepted.push_back((h, gen));
                        st.accept_notify.notify_one();
                        if let Some(o) = &st.observer {
                            o(EpNote::Opened { conn: h, peer: from });
                        }
                    }
                    Err(e) => {
                        if let Some(t) = e.response {
                            let sock = st.socket.clone();
                            send_transmit(&sock, &t, &resp);
                        }
                    }
                }
            }
            Some(DatagramEvent::ConnectionEvent(h, cev)) => {
                st.dirty.insert(h);
                if let Some(s) = st.conns.get_mut(&h) {
                    s.conn.handle_event(cev);
                    let remote = s.conn.remote_address();
                    if let Some(o) = &st.observer {
                        o(EpNote::Handled { conn: h, remote });
                    }
                }
            }
            Some(DatagramEvent::Response(t)) => {
                let sock = st.socket.clone();
                send_transmit(&sock, &t, &resp);
            }
            None => {}
        }
    }

    /// Move everything quinn-proto has to say: endpoint events, app events, datagrams to send.
    fn flush(&self) {
        let now = quinn_now();
        let mut guard = self.st.borrow_mut();
        let st = &mut *guard;
        // What changed, and what a due timer (pacing, say) lets send now.
        let mut handles = std::mem::take(&mut st.dirty);
        handles.extend(st.due(now));
        handles.retain(|h| st.conns.get(h).is_some_and(|s| !s.abandoned));
        let mut buf = Vec::new();
        for h in handles {
            // Endpoint events both ways.
            loop {
                let s = st.conns.get_mut(&h).expect("slot");
                let Some(eev) = s.conn.poll_endpoint_events() else { break };
                if let Some(cev) = st.ep.handle_event(h, eev) {
                    st.conns.get_mut(&h).expect("slot").conn.handle_event(cev);
                }
            }
            let host = st.host.clone();
            let local = st.socket.local_addr().expect("bound");
            let s = st.conns.get_mut(&h).expect("slot");
            if app_events(s, h, &host, local) {
                s.notify.notify_one();
            }
            if s.confirmed.get().is_none() && s.conn.ftw_handshake_confirmed() {
                s.confirmed.set(Some(time::now().as_millis() as u64));
                fate::confirmed(time::now(), &host, s.conn.remote_address());
            }
            // Datagrams to send.
            let mut refused = false;
            loop {
                buf.clear();
                let Some(t) = s.conn.poll_transmit(now, GSO_SEGMENTS_MAX, &mut buf) else { break };
                if !send_transmit(&st.socket, &t, &buf) {
                    refused = true;
                }
            }
            // Only a client hears a refusal. A server's socket is unconnected, and
            // Linux reports no ICMP error on an unconnected UDP socket unless it asks
            // (IP_RECVERR; quinn does not), so the cloud's packet is simply lost and
            // its connection carries on; ending it here left the phone's side open
            // and the session dead (corpus/session-udp-refused-half-dead-quic.toml).
            if refused && !s.done && s.conn.side().is_client() {
                trace::record(&host, "quic.refused", format!("h={} {}", h.0, s.remote));
                s.events.push_back(QuicEvent::Lost(Lost::Refused));
                s.done = true;
                s.abandoned = true;
                s.notify.notify_one();
            }
            if s.conn.is_drained() {
                st.remove(h);
                if let Some(o) = &st.observer {
                    o(EpNote::Drained { conn: h });
                }
            } else {
                st.retime(h);
            }
        }
    }
}

/// Hand quinn-proto's application events on `h` to its slot's queue, and a path
/// change as one more; whether any came (the waiting task is then woken).
fn app_events(s: &mut Slot, h: ConnectionHandle, host: &str, local: SocketAddr) -> bool {
    let mut woke = false;
    while let Some(ev) = s.conn.poll() {
        woke = true;
        match ev {
            Event::Connected => {
                trace::record(host, "quic.connected", format!("h={} peer={}", h.0, s.conn.remote_address()));
                s.events.push_back(QuicEvent::Connected);
                if s.conn.side().is_client() {
                    if s.conn.accepted_0rtt() {
                        trace::record(host, "quic.0rtt", format!("h={} accepted", h.0));
                    }
                    s.events.push_back(QuicEvent::ZeroRttAccepted(s.conn.accepted_0rtt()));
                }
            }
            Event::Stream(StreamEvent::Opened { dir }) => {
                while let Some(id) = s.conn.streams().accept(dir) {
                    s.events.push_back(QuicEvent::StreamOpened { stream: id, bidi: dir == Dir::Bi });
                    read_stream(s, id);
                }
            }
            Event::Stream(StreamEvent::Readable { id }) => read_stream(s, id),
            Event::DatagramReceived => {
                while let Some(d) = s.conn.datagrams().recv() {
                    s.events.push_back(QuicEvent::Datagram(d));
                }
            }
            Event::ConnectionLost { reason } => {
                let lost = Lost::from_error(&reason);
                trace::record(host, "quic.lost", format!("h={} {lost:?}", h.0));
                if lost == Lost::TimedOut {
                    fate::idle_out(time::now(), host, local, s.conn.remote_address(), s.since);
                }
                s.events.push_back(QuicEvent::Lost(lost));
                s.done = true;
            }
            Event::Stream(_) | Event::DatagramsUnblocked | Event::HandshakeDataReady => {}
        }
    }
    for n in s.conn.ftw_take_rig_notes() {
        fate::rig_path(since_start(n.at), host, n.remote, n.event);
    }
    let remote = s.conn.remote_address();
    if remote != s.remote {
        trace::record(host, "quic.path", format!("h={} {} -> {}", h.0, s.remote, remote));
        s.remote = remote;
        s.events.push_back(QuicEvent::PathChanged(remote));
        woke = true;
    }
    woke
}

/// Send one transmit, split into its segments. False if the send was refused.
fn send_transmit(socket: &UdpSocket, t: &quinn_proto::Transmit, buf: &[u8]) -> bool {
    let seg = t.segment_size.unwrap_or(t.size);
    let mut ok = true;
    for chunk in buf[..t.size].chunks(seg) {
        if let Err(e) = socket.try_send_to(chunk, t.destination) {
            if e.kind() == std::io::ErrorKind::ConnectionRefused {
                ok = false;
            }
        }
    }
    ok
}

fn read_stream(s: &mut Slot, id: StreamId) {
    let mut stream = s.conn.recv_stream(id);
    let Ok(mut chunks) = stream.read(true) else { return };
    let mut fin = false;
    loop {
        match chunks.next(usize::MAX) {
            Ok(Some(c)) => s.events.push_back(QuicEvent::Data { stream: id, data: c.bytes }),
            Ok(None) => {
                fin = true;
                break;
            }
            Err(_) => break,
        }
    }
    let _ = chunks.finalize();
    if fin {
        s.events.push_back(QuicEvent::Finished { stream: id });
    }
}

/// An application's handle on one connection.
#[derive(Clone)]
pub struct QuicConn {
    ep: QuicEndpoint,
    h: ConnectionHandle,
    gen: u64,
}

impl QuicConn {
    fn with<R>(&self, f: impl FnOnce(&mut Slot) -> R) -> Option<R> {
        let mut st = self.ep.st.borrow_mut();
        st.dirty.insert(self.h);
        let r = st.conns.get_mut(&self.h).filter(|s| s.gen == self.gen).map(f);
        drop(st);
        self.ep.wake.notify_one();
        r
    }

    /// The next event; `Lost(Other("gone"))` once the connection is gone.
    pub async fn next_event(&self) -> QuicEvent {
        loop {
            let n = {
                let mut st = self.ep.st.borrow_mut();
                let Some(s) = st.conns.get_mut(&self.h).filter(|s| s.gen == self.gen) else {
                    return QuicEvent::Lost(Lost::Other("gone".into()));
                };
                if let Some(ev) = s.events.pop_front() {
                    return ev;
                }
                s.notify.clone()
            };
            n.notified().await;
        }
    }

    pub fn open_bi(&self) -> Option<StreamId> {
        self.with(|s| s.conn.streams().open(Dir::Bi)).flatten()
    }

    pub fn open_uni(&self) -> Option<StreamId> {
        self.with(|s| s.conn.streams().open(Dir::Uni)).flatten()
    }

    /// Write all of `data` to `stream` (the flow-control windows here are far
    /// larger than anything the models send; a short write is an error).
    pub fn write(&self, stream: StreamId, data: &[u8]) -> Result<(), String> {
        self.with(|s| match s.conn.send_stream(stream).write(data) {
            Ok(n) if n == data.len() => Ok(()),
            Ok(n) => Err(format!("short write {n} of {}", data.len())),
            Err(e) => Err(e.to_string()),
        })
        .unwrap_or_else(|| Err("connection gone".into()))
    }

    pub fn send_datagram(&self, data: Bytes) -> Result<(), String> {
        self.with(|s| s.conn.datagrams().send(data, true).map_err(|e| e.to_string())).unwrap_or_else(|| Err("connection gone".into()))
    }

    /// One try of the Go phone's path probe (quic-go `Path.Probe`; the vendored
    /// quinn-proto's PATCH.md section 13): a PATH_CHALLENGE of its own now.
    pub fn probe_path(&self) {
        self.with(|s| s.conn.ftw_probe_path());
    }

    /// Whether a PATH_RESPONSE answered the path probe.
    pub fn path_probe_answered(&self) -> bool {
        self.ep.st.borrow().conns.get(&self.h).filter(|s| s.gen == self.gen).is_some_and(|s| s.conn.ftw_path_probe_answered())
    }

    /// Close with an application error code (4403, 4408, 1000...).
    pub fn close(&self, code: u32, reason: &str) {
        self.with(|s| s.conn.close(quinn_now(), VarInt::from_u32(code), Bytes::copy_from_slice(reason.as_bytes())));
    }

    /// The peer's address as the connection sees it now (read by the tests).
    #[cfg(test)]
    pub fn remote(&self) -> Option<SocketAddr> {
        self.ep.st.borrow().conns.get(&self.h).filter(|s| s.gen == self.gen).map(|s| s.conn.remote_address())
    }

    /// The host the connection's endpoint runs on (its trace name).
    pub fn host(&self) -> String {
        self.ep.host()
    }

    /// A stable id for this connection within its endpoint.
    pub fn id(&self) -> usize {
        self.h.0
    }

    /// Whether 0-RTT was accepted (client side, after Connected).
    pub fn accepted_0rtt(&self) -> bool {
        self.ep.st.borrow().conns.get(&self.h).filter(|s| s.gen == self.gen).is_some_and(|s| s.conn.accepted_0rtt())
    }

    /// Whether the client has 0-RTT keys (a resumed session): data written
    /// before `Connected` goes out as 0-RTT.
    pub fn has_0rtt(&self) -> bool {
        self.ep.st.borrow().conns.get(&self.h).filter(|s| s.gen == self.gen).is_some_and(|s| s.conn.has_0rtt())
    }

    /// When its handshake was confirmed (set once it is; quinn-proto PATCH.md section 16).
    pub fn confirmed(&self) -> Confirmed {
        self.ep.st.borrow().conns.get(&self.h).filter(|s| s.gen == self.gen).map(|s| s.confirmed.clone()).unwrap_or_default()
    }

    /// Whether the handshake used 0-RTT keys (client side).
    pub fn is_handshaking(&self) -> bool {
        self.ep.st.borrow().conns.get(&self.h).filter(|s| s.gen == self.gen).is_some_and(|s| s.conn.is_handshaking())
    }
}
