//! The IO-free core: one smoltcp `Interface` (Medium::Ip, one IPv4 address), its sockets,
//! and a virtual device made of two queues of raw IPv4 packets. The owner pushes received
//! packets in, polls with a time it supplies, pulls packets to send and asks for the next
//! deadline. There is no clock and no randomness inside beyond the caller's seed.

use core::task::{Poll, Waker};
use core::time::Duration;
use std::collections::{BTreeMap, VecDeque};
use std::io;
use std::net::{Ipv4Addr, SocketAddrV4};

use smoltcp::iface::{Config, Interface, SocketHandle, SocketSet};
use smoltcp::phy::{self, Device, DeviceCapabilities, Medium};
use smoltcp::socket::tcp::{self, State};
use smoltcp::time::{Duration as SmolDuration, Instant as SmolInstant};
use smoltcp::wire::{HardwareAddress, IpAddress, IpCidr, IpEndpoint, IpListenEndpoint, IpProtocol, Ipv4Packet, TcpPacket, TcpSeqNumber};

use crate::consts;

/// Which TCP a stack's sockets behave like under loss (issue 16; the table in docs/table.md).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum TcpFlavor {
    /// Linux 6.x's timers and recovery, through the vendored smoltcp patch
    /// (`sim/vendor/smoltcp/PATCH.md`): RTO 1 s initial, 200 ms floor, 120 s ceiling;
    /// SACK scoreboard with RACK loss detection and tail loss probes; initial window 10
    /// segments; quick-ack at connection start; TCP timestamps from simulated time.
    #[default]
    Linux,
    /// smoltcp 0.14's own behaviour, byte for byte what this crate did before the patch:
    /// RTO floor 1 s, ceiling 60 s, go-back-N after an RTO, received SACK ignored,
    /// initial window 2048 bytes, no timestamps.
    Smoltcp,
}

impl TcpFlavor {
    /// The name a plan uses (`tcp = "linux"` / `tcp = "smoltcp"`).
    pub fn name(self) -> &'static str {
        match self {
            TcpFlavor::Linux => "linux",
            TcpFlavor::Smoltcp => "smoltcp",
        }
    }

    /// The flavour a plan names, if any.
    pub fn from_name(name: &str) -> Option<TcpFlavor> {
        match name {
            "linux" => Some(TcpFlavor::Linux),
            "smoltcp" => Some(TcpFlavor::Smoltcp),
            _ => None,
        }
    }
}

/// Settings of one stack. `Default` gives the Linux-like defaults of [`crate::consts`].
#[derive(Debug, Clone)]
pub struct TcpConfig {
    /// Timers and loss recovery of every socket of the stack (default: Linux).
    pub flavor: TcpFlavor,
    /// IP MTU; smoltcp derives the MSS from it (1460 at 1500).
    pub mtu_bytes: usize,
    /// Receive buffer per socket (also sets the advertised window and window-scale shift).
    pub rx_buffer_len: usize,
    /// Send buffer per socket.
    pub tx_buffer_len: usize,
    /// TCP_NODELAY for new sockets (Linux default: off, i.e. Nagle on).
    pub nodelay: bool,
    /// Keep-alive interval for new sockets (Linux default: off).
    pub keep_alive: Option<Duration>,
    /// Delayed-ACK time (None: ACK every segment at once).
    pub ack_delay: Option<Duration>,
    /// Give up a connect (SYN-SENT) after this long without an answer.
    pub connect_timeout: Duration,
    /// Give up a passive half-open connection (SYN-RECEIVED) after this long.
    pub synack_timeout: Duration,
    /// Abort when unacknowledged data or FIN got no packet from the peer for this long.
    pub retransmit_timeout: Duration,
    /// Abort an orphaned socket stuck in FIN-WAIT-2 after this long.
    pub fin_wait2_orphan_timeout: Duration,
    /// Ephemeral port range (inclusive), walked by a counter.
    pub ephemeral_port_first: u16,
    /// Last ephemeral port (inclusive).
    pub ephemeral_port_last: u16,
}

impl Default for TcpConfig {
    fn default() -> Self {
        TcpConfig {
            flavor: TcpFlavor::default(),
            mtu_bytes: consts::MTU_BYTES_DEFAULT,
            rx_buffer_len: consts::RX_BUFFER_LEN_DEFAULT,
            tx_buffer_len: consts::TX_BUFFER_LEN_DEFAULT,
            nodelay: false,
            keep_alive: None,
            ack_delay: Some(consts::ACK_DELAY_DEFAULT),
            connect_timeout: consts::CONNECT_TIMEOUT_DEFAULT,
            synack_timeout: consts::SYNACK_TIMEOUT_DEFAULT,
            retransmit_timeout: consts::RETRANSMIT_TIMEOUT_DEFAULT,
            fin_wait2_orphan_timeout: consts::FIN_WAIT2_ORPHAN_TIMEOUT,
            ephemeral_port_first: consts::EPHEMERAL_PORT_FIRST,
            ephemeral_port_last: consts::EPHEMERAL_PORT_LAST,
        }
    }
}

/// A connection of one stack. Ids are never reused within a stack.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct ConnId(u64);

/// Why a connection ended abnormally.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ConnError {
    /// Our SYN was answered with a RST (nobody listens there).
    Refused,
    /// The peer reset an open connection.
    Reset,
    /// No answer within the configured timeout (connect, SYN-ACK, retransmission).
    TimedOut,
}

impl ConnError {
    /// The `std::io::ErrorKind` a socket API reports for it.
    pub fn kind(self) -> io::ErrorKind {
        match self {
            ConnError::Refused => io::ErrorKind::ConnectionRefused,
            ConnError::Reset => io::ErrorKind::ConnectionReset,
            ConnError::TimedOut => io::ErrorKind::TimedOut,
        }
    }
}

/// Counters of one stack (all since creation).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct StackCounters {
    /// IP packets taken in by `push_rx`.
    pub packets_in: u64,
    /// IP packets handed out by `pop_tx`.
    pub packets_out: u64,
    /// Outgoing segments carrying sequence space (data, SYN or FIN) that start below the
    /// highest sequence number already sent on their connection: retransmissions.
    pub retransmits: u64,
    /// RST segments received.
    pub resets_in: u64,
    /// RST segments sent.
    pub resets_out: u64,
    /// Packets dropped because the receive queue was full.
    pub rx_dropped: u64,
    /// SYNs dropped because a connection of this stack already holds their 4-tuple
    /// (a duplicate or retransmitted SYN; see [`TcpStack::poll`]).
    pub syn_repeats_dropped: u64,
    /// Repeated SYNs answered with the SYN-ACK again (Linux flavour, SYN-RECEIVED).
    pub syn_repeats_answered: u64,
    /// Times the driver found work still due after `IMMEDIATE_POLLS_MAX` polls.
    pub stalled_polls: u64,
}

/// (local port, remote endpoint) of a connection.
type Tuple = (u16, SocketAddrV4);

#[derive(Debug)]
struct Conn {
    handle: SocketHandle,
    tuple: Option<Tuple>,
    last_state: State,
    fin_received: bool,
    error: Option<ConnError>,
    /// The app dropped its stream; the socket goes once it is closed.
    detached: bool,
    /// The app called `abort`.
    aborted_locally: bool,
    /// Born from this listener and not yet handed to `accept`.
    listener_port: Option<u16>,
    queued_for_accept: bool,
    /// Since when our FIN waits for its ACK (FIN-WAIT-1, CLOSING, LAST-ACK).
    fin_unacked_since: Option<Duration>,
    /// Since when we sit in FIN-WAIT-2.
    fin_wait2_since: Option<Duration>,
    /// When we last answered a repeated SYN in SYN-RECEIVED (Linux flavour).
    last_syn_answer: Option<Duration>,
}

impl Conn {
    /// Why a connection that just closed ended, from the state it left
    /// (`rst_here`: the segment of this step was a reset for it): none for a
    /// close of its own or an orderly one, else refused, reset or timed out.
    fn close_error(&self, rst_here: bool) -> Option<ConnError> {
        match self.last_state {
            _ if self.aborted_locally => None,
            State::TimeWait => None,
            State::LastAck if !rst_here => None,
            State::SynSent if rst_here => Some(ConnError::Refused),
            _ if rst_here => Some(ConnError::Reset),
            _ => Some(ConnError::TimedOut),
        }
    }

    /// Keeps when the connection entered a state with a FIN unacknowledged and
    /// FIN-WAIT-2 (the clocks of their give-ups), and its state, after a step.
    fn track(&mut self, st: State, now: Duration) {
        let fin_unacked = matches!(st, State::FinWait1 | State::Closing | State::LastAck);
        self.fin_unacked_since = match (fin_unacked, self.fin_unacked_since) {
            (true, None) => Some(now),
            (true, since) => since,
            (false, _) => None,
        };
        self.fin_wait2_since = match (st == State::FinWait2, self.fin_wait2_since) {
            (true, None) => Some(now),
            (true, since) => since,
            (false, _) => None,
        };
        self.last_state = st;
    }
}

#[derive(Debug, Default)]
struct Listener {
    /// The socket in LISTEN state, if the backlog leaves room for one.
    listen_handle: Option<SocketHandle>,
    ready: VecDeque<ConnId>,
    waker: Option<Waker>,
}

#[derive(Debug, Clone, Copy)]
struct SegTrack {
    syn_seq: Option<TcpSeqNumber>,
    snd_max: TcpSeqNumber,
    retransmits: u64,
}

/// Header facts of one TCP/IPv4 packet.
#[derive(Debug, Clone, Copy)]
struct SegInfo {
    src: SocketAddrV4,
    dst: SocketAddrV4,
    seq: TcpSeqNumber,
    seg_len: usize,
    syn: bool,
    ack: bool,
    rst: bool,
}

impl SegInfo {
    fn parse(pkt: &[u8]) -> Option<SegInfo> {
        let ip = Ipv4Packet::new_checked(pkt).ok()?;
        if ip.next_header() != IpProtocol::Tcp {
            return None;
        }
        let tcp = TcpPacket::new_checked(ip.payload()).ok()?;
        let seg_len = tcp.payload().len() + usize::from(tcp.syn()) + usize::from(tcp.fin());
        Some(SegInfo {
            src: SocketAddrV4::new(ip.src_addr(), tcp.src_port()),
            dst: SocketAddrV4::new(ip.dst_addr(), tcp.dst_port()),
            seq: tcp.seq_number(),
            seg_len,
            syn: tcp.syn(),
            ack: tcp.ack(),
            rst: tcp.rst(),
        })
    }
}

/// The virtual device: raw IPv4 packets in and out.
#[derive(Debug)]
struct PacketDevice {
    rx: VecDeque<Vec<u8>>,
    tx: VecDeque<Vec<u8>>,
    mtu_bytes: usize,
}

struct RxTok(Vec<u8>);
struct TxTok<'a>(&'a mut VecDeque<Vec<u8>>);

impl phy::RxToken for RxTok {
    fn consume<R, F: FnOnce(&[u8]) -> R>(self, f: F) -> R {
        f(&self.0)
    }
}

impl phy::TxToken for TxTok<'_> {
    fn consume<R, F: FnOnce(&mut [u8]) -> R>(self, len: usize, f: F) -> R {
        let mut buf = vec![0u8; len];
        let r = f(&mut buf);
        self.0.push_back(buf);
        r
    }
}

impl Device for PacketDevice {
    type RxToken<'a> = RxTok;
    type TxToken<'a> = TxTok<'a>;

    fn receive(&mut self, _ts: SmolInstant) -> Option<(RxTok, TxTok<'_>)> {
        let pkt = self.rx.pop_front()?;
        Some((RxTok(pkt), TxTok(&mut self.tx)))
    }

    fn transmit(&mut self, _ts: SmolInstant) -> Option<TxTok<'_>> {
        Some(TxTok(&mut self.tx))
    }

    fn capabilities(&self) -> DeviceCapabilities {
        let mut caps = DeviceCapabilities::default();
        caps.medium = Medium::Ip;
        caps.max_transmission_unit = self.mtu_bytes;
        caps
    }
}

fn to_smol_instant(d: Duration) -> SmolInstant {
    SmolInstant::from_micros(i64::try_from(d.as_micros()).expect("sim time fits i64 µs"))
}

fn from_smol_instant(i: SmolInstant) -> Duration {
    Duration::from_micros(u64::try_from(i.total_micros()).unwrap_or(0))
}

fn to_smol_duration(d: Duration) -> SmolDuration {
    SmolDuration::from(d)
}

fn endpoint_v4(ep: IpEndpoint) -> SocketAddrV4 {
    match ep.addr {
        IpAddress::Ipv4(a) => SocketAddrV4::new(a, ep.port),
    }
}

/// Whether the peer's FIN has been received in this state.
fn state_has_peer_fin(st: State) -> bool {
    matches!(st, State::CloseWait | State::LastAck | State::Closing | State::TimeWait)
}

/// A userspace TCP/IPv4 stack driven by its owner (see the module docs).
pub struct TcpStack {
    iface: Interface,
    sockets: SocketSet<'static>,
    device: PacketDevice,
    config: TcpConfig,
    addr: Ipv4Addr,
    now: Duration,
    rx_pending: VecDeque<Vec<u8>>,
    tx_out: VecDeque<Vec<u8>>,
    conns: BTreeMap<ConnId, Conn>,
    listeners: BTreeMap<u16, Listener>,
    seg_track: BTreeMap<Tuple, SegTrack>,
    next_conn_id: u64,
    next_ephemeral_port: u16,
    counters: StackCounters,
    dirty: bool,
    driver_waker: Option<Waker>,
}

impl core::fmt::Debug for TcpStack {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("TcpStack")
            .field("addr", &self.addr)
            .field("now", &self.now)
            .field("conns", &self.conns.len())
            .field("counters", &self.counters)
            .finish()
    }
}

impl TcpStack {
    /// A stack with one address. `seed` seeds smoltcp's RNG (initial sequence numbers).
    pub fn new(addr: Ipv4Addr, seed: u64, config: TcpConfig) -> TcpStack {
        assert!(config.mtu_bytes >= consts::MTU_BYTES_MIN, "MTU below IPv4 minimum");
        assert!(config.ephemeral_port_first > 0);
        assert!(config.ephemeral_port_first <= config.ephemeral_port_last);
        assert!(config.rx_buffer_len > 0 && config.tx_buffer_len > 0);
        let mut device = PacketDevice { rx: VecDeque::new(), tx: VecDeque::new(), mtu_bytes: config.mtu_bytes };
        let mut iface_config = Config::new(HardwareAddress::Ip);
        iface_config.random_seed = seed;
        let mut iface = Interface::new(iface_config, &mut device, SmolInstant::ZERO);
        iface.update_ip_addrs(|addrs| {
            addrs.push(IpCidr::new(IpAddress::Ipv4(addr), 32)).expect("one address fits");
        });
        // Medium::Ip has no neighbours; every destination is reachable through the pipe.
        iface.routes_mut().add_default_ipv4_route(addr).expect("one route fits");
        TcpStack {
            iface,
            sockets: SocketSet::new(Vec::new()),
            device,
            next_ephemeral_port: config.ephemeral_port_first,
            config,
            addr,
            now: Duration::ZERO,
            rx_pending: VecDeque::new(),
            tx_out: VecDeque::new(),
            conns: BTreeMap::new(),
            listeners: BTreeMap::new(),
            seg_track: BTreeMap::new(),
            next_conn_id: 0,
            counters: StackCounters::default(),
            dirty: false,
            driver_waker: None,
        }
    }

    /// The stack's IPv4 address.
    pub fn addr(&self) -> Ipv4Addr {
        self.addr
    }

    /// The configuration in use.
    pub fn config(&self) -> &TcpConfig {
        &self.config
    }

    /// The last time given to `poll`.
    pub fn now(&self) -> Duration {
        self.now
    }

    /// Counters since creation.
    pub fn counters(&self) -> &StackCounters {
        &self.counters
    }

    /// Hand in one received IPv4 packet (processed at the next `poll`).
    pub fn push_rx(&mut self, pkt: Vec<u8>) {
        if self.rx_pending.len() >= consts::RX_QUEUE_LEN_MAX {
            self.counters.rx_dropped += 1;
            return;
        }
        self.rx_pending.push_back(pkt);
        self.mark_dirty();
    }

    /// Take the next IPv4 packet to send.
    pub fn pop_tx(&mut self) -> Option<Vec<u8>> {
        let pkt = self.tx_out.pop_front()?;
        self.counters.packets_out += 1;
        Some(pkt)
    }

    /// Process received packets, timers and socket work at time `now` (since sim start).
    pub fn poll(&mut self, now: Duration) {
        assert!(now >= self.now, "time went backwards: {now:?} < {:?}", self.now);
        self.now = now;
        let ts = to_smol_instant(now);
        // One packet at a time, so that a listener has a fresh LISTEN socket for every SYN
        // (smoltcp resets a SYN that finds no socket in LISTEN).
        while let Some(pkt) = self.rx_pending.pop_front() {
            let info = SegInfo::parse(&pkt);
            self.counters.packets_in += 1;
            if info.is_some_and(|i| i.rst) {
                self.counters.resets_in += 1;
            }
            if info.as_ref().is_some_and(|i| self.holds_the_tuple_of(i)) {
                if info.as_ref().is_some_and(|i| self.answer_repeated_syn(i, now)) {
                    self.counters.syn_repeats_answered += 1;
                } else {
                    self.counters.syn_repeats_dropped += 1;
                }
                continue;
            }
            self.device.rx.push_back(pkt);
            let _ = self.iface.poll_ingress_single(ts, &mut self.device, &mut self.sockets);
            assert!(self.device.rx.is_empty(), "device consumed the packet");
            self.after_step(info.as_ref());
        }
        self.egress(ts);
        if self.enforce_deadlines(now) {
            self.egress(ts);
        }
        self.set_socket_timeouts();
        self.collect_tx();
    }

    /// A SYN (without ACK) for a 4-tuple a connection of this stack already holds
    /// (a duplicate or a retransmission of the SYN it was born from). Linux finds the
    /// request or the connection by its 4-tuple and answers it there (`tcp_check_req`
    /// resends the SYN-ACK; an established one sends a challenge ACK, RFC 5961); smoltcp
    /// gives it to whichever socket comes first, and a fresh LISTEN socket would take it
    /// as a second connection on the same 4-tuple. It is dropped instead: the peer's
    /// own retransmission or the SYN-ACK already sent carries the handshake on.
    fn holds_the_tuple_of(&self, i: &SegInfo) -> bool {
        i.syn && !i.ack && self.conns.values().any(|c| c.tuple == Some((i.dst.port(), i.src)) && !matches!(c.last_state, State::Closed | State::TimeWait))
    }

    /// Linux flavour: a repeated SYN for a connection in SYN-RECEIVED gets the SYN-ACK
    /// again (`tcp_check_req`), at most once per `REPEATED_SYN_ANSWER_GAP` (Linux's
    /// `tcp_oow_rate_limited`, `tcp_invalid_ratelimit`). Whether it was answered.
    fn answer_repeated_syn(&mut self, i: &SegInfo, now: Duration) -> bool {
        let linux = self.linux_syn_received();
        let Some(c) = self.conns.values_mut().find(|c| c.tuple == Some((i.dst.port(), i.src))) else {
            return false;
        };
        let socket = self.sockets.get_mut::<tcp::Socket>(c.handle);
        if socket.state() != State::SynReceived {
            return false;
        }
        let answer = linux && c.last_syn_answer.is_none_or(|t| now >= t + consts::REPEATED_SYN_ANSWER_GAP);
        socket.ftw_repeated_syn(to_smol_instant(now), answer);
        if answer {
            c.last_syn_answer = Some(now);
            self.dirty = true;
        }
        answer
    }

    /// Whether SYN-RECEIVED behaves as Linux's (answers repeated SYNs, gives up
    /// silently) rather than stock smoltcp's: the Linux flavour, unless a test planted
    /// the stock behaviour in it (`rto_log::plant_synrecv_as_stock`).
    fn linux_syn_received(&self) -> bool {
        self.config.flavor == TcpFlavor::Linux && !smoltcp::socket::tcp::rto_log::synrecv_as_stock()
    }

    /// The next time `poll` must be called (None: only when a packet or app call comes).
    /// A deadline in the past is returned as `now`.
    pub fn poll_at(&mut self, now: Duration) -> Option<Duration> {
        if !self.rx_pending.is_empty() {
            return Some(now);
        }
        let mut at = self.iface.poll_at(to_smol_instant(now), &self.sockets).map(from_smol_instant);
        for c in self.conns.values() {
            if let Some(since) = c.fin_unacked_since {
                at = min_opt(at, since + self.config.retransmit_timeout);
            }
            if let (true, Some(since)) = (c.detached, c.fin_wait2_since) {
                at = min_opt(at, since + self.config.fin_wait2_orphan_timeout);
            }
        }
        at.map(|t| t.max(now))
    }

    fn egress(&mut self, ts: SmolInstant) {
        let mut rounds = 0u32;
        while self.iface.poll_egress(ts, &mut self.device, &mut self.sockets) != smoltcp::iface::PollResult::None {
            rounds += 1;
            assert!(rounds < 1_000_000, "egress does not settle");
        }
        self.after_step(None);
    }

    /// Move device output to the outgoing queue, accounting retransmissions.
    fn collect_tx(&mut self) {
        while let Some(pkt) = self.device.tx.pop_front() {
            if let Some(info) = SegInfo::parse(&pkt) {
                self.account_tx(&info);
            }
            self.tx_out.push_back(pkt);
        }
    }

    fn account_tx(&mut self, info: &SegInfo) {
        if info.rst {
            self.counters.resets_out += 1;
        }
        if info.seg_len == 0 {
            return;
        }
        let key = (info.src.port(), info.dst);
        let end = info.seq + info.seg_len;
        let retransmit = match self.seg_track.get_mut(&key) {
            Some(t) if info.syn && t.syn_seq != Some(info.seq) => {
                *t = SegTrack { syn_seq: Some(info.seq), snd_max: end, retransmits: 0 };
                false
            }
            Some(t) => {
                let again = info.seq < t.snd_max;
                if again {
                    t.retransmits += 1;
                }
                t.snd_max = t.snd_max.max(end);
                again
            }
            None => {
                let syn_seq = info.syn.then_some(info.seq);
                self.seg_track.insert(key, SegTrack { syn_seq, snd_max: end, retransmits: 0 });
                false
            }
        };
        if retransmit {
            self.counters.retransmits += 1;
        }
    }

    /// Bring listeners and connections up to date after smoltcp did one step.
    fn after_step(&mut self, ingress: Option<&SegInfo>) {
        // Listeners: a LISTEN socket that took a SYN becomes a pending connection, and a
        // fresh LISTEN socket takes its place.
        let ports: Vec<u16> = self.listeners.keys().copied().collect();
        for port in ports {
            self.replenish_listener(port);
        }
        let now = self.now;
        let mut gone = Vec::new();
        for (&id, c) in self.conns.iter_mut() {
            let socket = self.sockets.get_mut::<tcp::Socket>(c.handle);
            let st = socket.state();
            if c.tuple.is_none() {
                if let (Some(l), Some(r)) = (socket.local_endpoint(), socket.remote_endpoint()) {
                    c.tuple = Some((l.port, endpoint_v4(r)));
                }
            }
            if state_has_peer_fin(st) {
                c.fin_received = true;
            }
            if st == State::Closed && c.last_state != State::Closed && c.error.is_none() {
                let rst_here = ingress.is_some_and(|i| i.rst && c.tuple == Some((i.dst.port(), i.src)));
                c.error = c.close_error(rst_here);
            }
            c.track(st, now);
            if let (Some(port), false) = (c.listener_port, c.queued_for_accept) {
                match st {
                    State::Listen | State::Closed => {
                        // Reset before it was accepted: smoltcp put it back to LISTEN (or
                        // closed it); nobody will ever see it.
                        socket.abort();
                        gone.push(id);
                        continue;
                    }
                    State::SynReceived => {}
                    _ => {
                        c.queued_for_accept = true;
                        let l = self.listeners.get_mut(&port).expect("listener of pending conn");
                        l.ready.push_back(id);
                        if let Some(w) = l.waker.take() {
                            w.wake();
                        }
                    }
                }
            }
            // A closed socket that still has a tuple has an RST to send first.
            if c.detached && st == State::Closed && socket.remote_endpoint().is_none() {
                gone.push(id);
            }
        }
        for id in gone {
            self.remove_conn(id);
        }
    }

    fn replenish_listener(&mut self, port: u16) {
        let listener = self.listeners.get_mut(&port).expect("listener exists");
        if let Some(h) = listener.listen_handle {
            let st = self.sockets.get::<tcp::Socket>(h).state();
            if st == State::Listen {
                return;
            }
            // It took a SYN: it is a pending connection now.
            listener.listen_handle = None;
            let id = self.alloc_conn_id();
            self.conns.insert(
                id,
                Conn {
                    handle: h,
                    tuple: None,
                    last_state: st,
                    fin_received: false,
                    error: None,
                    detached: false,
                    aborted_locally: false,
                    listener_port: Some(port),
                    queued_for_accept: false,
                    fin_unacked_since: None,
                    fin_wait2_since: None,
                    last_syn_answer: None,
                },
            );
        }
        let unaccepted = self.conns.values().filter(|c| c.listener_port == Some(port)).count();
        if unaccepted < consts::ACCEPT_BACKLOG_MAX && self.sockets.iter().count() < consts::SOCKETS_PER_STACK_MAX {
            let mut socket = self.new_socket();
            socket.listen(IpListenEndpoint { addr: Some(IpAddress::Ipv4(self.addr)), port }).expect("fresh socket listens");
            let h = self.sockets.add(socket);
            self.listeners.get_mut(&port).expect("listener exists").listen_handle = Some(h);
        }
    }

    fn new_socket(&self) -> tcp::Socket<'static> {
        let rx = tcp::SocketBuffer::new(vec![0u8; self.config.rx_buffer_len]);
        let tx = tcp::SocketBuffer::new(vec![0u8; self.config.tx_buffer_len]);
        let mut s = tcp::Socket::new(rx, tx);
        s.set_nagle_enabled(!self.config.nodelay);
        s.set_keep_alive(self.config.keep_alive.map(to_smol_duration));
        s.set_ack_delay(self.config.ack_delay.map(to_smol_duration));
        if self.config.flavor == TcpFlavor::Linux {
            // The vendored smoltcp's knobs (sim/vendor/smoltcp/PATCH.md).
            s.set_rto_config(tcp::RtoConfig {
                initial: to_smol_duration(consts::LINUX_RTO_INITIAL),
                min: to_smol_duration(consts::LINUX_RTO_MIN),
                max: to_smol_duration(consts::LINUX_RTO_MAX),
                min_margin: to_smol_duration(consts::LINUX_RTO_MIN_MARGIN),
            });
            s.set_initial_window(Some(consts::LINUX_INIT_CWND_SEGMENTS));
            s.set_sack_recovery(true);
            s.set_tail_loss_probe(true);
            s.set_quickack_segments(consts::LINUX_QUICKACK_SEGMENTS);
            s.set_tsval_from_clock(true);
        }
        s
    }

    fn alloc_conn_id(&mut self) -> ConnId {
        let id = ConnId(self.next_conn_id);
        self.next_conn_id += 1;
        id
    }

    fn remove_conn(&mut self, id: ConnId) {
        let c = self.conns.remove(&id).expect("conn exists");
        self.sockets.remove(c.handle);
        if let Some(t) = c.tuple {
            self.seg_track.remove(&t);
        }
    }

    /// Our own deadlines: an unacknowledged FIN, an orphan in FIN-WAIT-2.
    /// Returns whether a socket was aborted (its RST must go out).
    fn enforce_deadlines(&mut self, now: Duration) -> bool {
        let mut aborted = false;
        for c in self.conns.values_mut() {
            let fin_late = c.fin_unacked_since.is_some_and(|s| now >= s + self.config.retransmit_timeout);
            let orphan_late = c.detached && c.fin_wait2_since.is_some_and(|s| now >= s + self.config.fin_wait2_orphan_timeout);
            if fin_late || orphan_late {
                if fin_late && c.error.is_none() {
                    c.error = Some(ConnError::TimedOut);
                }
                self.sockets.get_mut::<tcp::Socket>(c.handle).abort();
                c.fin_unacked_since = None;
                c.fin_wait2_since = None;
                aborted = true;
            }
        }
        aborted
    }

    /// smoltcp's timeout is an idle timeout; arm it only where Linux would give up.
    fn set_socket_timeouts(&mut self) {
        let linux_syn_received = self.linux_syn_received();
        for c in self.conns.values() {
            let s = self.sockets.get_mut::<tcp::Socket>(c.handle);
            let want = match s.state() {
                State::SynSent => Some(self.config.connect_timeout),
                State::SynReceived => Some(self.config.synack_timeout),
                State::Established | State::CloseWait if s.send_queue() > 0 => Some(self.config.retransmit_timeout),
                _ => None,
            }
            .map(to_smol_duration);
            s.ftw_set_silent_half_open(linux_syn_received);
            if s.timeout() != want {
                s.set_timeout(want);
            }
        }
    }

    fn mark_dirty(&mut self) {
        self.dirty = true;
        if let Some(w) = self.driver_waker.take() {
            w.wake();
        }
    }

    /// For the driver: true (and cleared) if the app or a packet added work since last
    /// asked; otherwise `waker` is woken when that happens.
    pub fn poll_dirty(&mut self, waker: &Waker) -> bool {
        if self.dirty {
            self.dirty = false;
            return true;
        }
        self.driver_waker = Some(waker.clone());
        false
    }

    /// For the driver: count a stall (see `consts::IMMEDIATE_POLLS_MAX`).
    pub fn note_stall(&mut self) {
        self.counters.stalled_polls += 1;
    }

    fn port_in_use(&self, port: u16, remote: Option<SocketAddrV4>) -> bool {
        self.listeners.contains_key(&port)
            || self.conns.values().any(|c| match (c.tuple, remote) {
                (Some((p, r)), Some(remote)) => p == port && r == remote,
                (Some((p, _)), None) => p == port,
                (None, _) => false,
            })
    }

    fn pick_ephemeral_port(&mut self) -> io::Result<u16> {
        let first = self.config.ephemeral_port_first;
        let last = self.config.ephemeral_port_last;
        let span = u32::from(last - first) + 1;
        for _ in 0..span {
            let port = self.next_ephemeral_port;
            self.next_ephemeral_port = if port >= last { first } else { port + 1 };
            if !self.port_in_use(port, None) {
                return Ok(port);
            }
        }
        Err(io::Error::new(io::ErrorKind::AddrNotAvailable, "no free ephemeral port"))
    }

    fn check_socket_room(&self) -> io::Result<()> {
        if self.sockets.iter().count() >= consts::SOCKETS_PER_STACK_MAX {
            return Err(io::Error::new(io::ErrorKind::OutOfMemory, "too many sockets"));
        }
        Ok(())
    }

    /// Start a connection. `local_port` 0 picks the next free ephemeral port.
    pub fn connect(&mut self, local_port: u16, remote: SocketAddrV4) -> io::Result<ConnId> {
        self.check_socket_room()?;
        let port = if local_port == 0 {
            self.pick_ephemeral_port()?
        } else if self.port_in_use(local_port, Some(remote)) {
            return Err(io::Error::new(io::ErrorKind::AddrInUse, "4-tuple in use"));
        } else {
            local_port
        };
        let mut socket = self.new_socket();
        socket
            .connect(
                self.iface.context(),
                IpEndpoint::new(IpAddress::Ipv4(*remote.ip()), remote.port()),
                IpListenEndpoint { addr: Some(IpAddress::Ipv4(self.addr)), port },
            )
            .map_err(|e| io::Error::new(io::ErrorKind::InvalidInput, format!("{e:?}")))?;
        let handle = self.sockets.add(socket);
        let id = self.alloc_conn_id();
        self.conns.insert(
            id,
            Conn {
                handle,
                tuple: Some((port, remote)),
                last_state: State::SynSent,
                fin_received: false,
                error: None,
                detached: false,
                aborted_locally: false,
                listener_port: None,
                queued_for_accept: false,
                fin_unacked_since: None,
                fin_wait2_since: None,
                last_syn_answer: None,
            },
        );
        self.set_socket_timeouts();
        self.mark_dirty();
        Ok(id)
    }

    /// Listen on `port` for any number of connections (until `unlisten`).
    pub fn listen(&mut self, port: u16) -> io::Result<()> {
        if port == 0 {
            return Err(io::Error::new(io::ErrorKind::InvalidInput, "port 0"));
        }
        if self.listeners.contains_key(&port) {
            return Err(io::Error::new(io::ErrorKind::AddrInUse, "already listening"));
        }
        self.check_socket_room()?;
        self.listeners.insert(port, Listener::default());
        self.replenish_listener(port);
        Ok(())
    }

    /// Stop listening; connections not yet accepted are reset (as Linux does on close).
    pub fn unlisten(&mut self, port: u16) {
        let Some(l) = self.listeners.remove(&port) else {
            return;
        };
        if let Some(h) = l.listen_handle {
            self.sockets.remove(h);
        }
        let pending: Vec<ConnId> = self.conns.iter().filter(|(_, c)| c.listener_port == Some(port)).map(|(&id, _)| id).collect();
        for id in pending {
            let c = self.conns.get_mut(&id).expect("pending conn");
            c.listener_port = None;
            c.aborted_locally = true;
            c.detached = true;
            self.sockets.get_mut::<tcp::Socket>(c.handle).abort();
        }
        self.mark_dirty();
    }

    /// Take an established connection from a listener, or register `waker` for one.
    pub fn poll_accept(&mut self, port: u16, waker: Option<&Waker>) -> Poll<io::Result<(ConnId, SocketAddrV4)>> {
        let Some(l) = self.listeners.get_mut(&port) else {
            return Poll::Ready(Err(io::Error::new(io::ErrorKind::NotConnected, "not listening")));
        };
        let Some(id) = l.ready.pop_front() else {
            l.waker = waker.cloned();
            return Poll::Pending;
        };
        let c = self.conns.get_mut(&id).expect("ready conn");
        assert!(c.queued_for_accept);
        c.listener_port = None;
        let peer = c.tuple.expect("established conn has a tuple").1;
        // Room in the backlog again.
        if self.listeners[&port].listen_handle.is_none() {
            self.replenish_listener(port);
            self.mark_dirty();
        }
        Poll::Ready(Ok((id, peer)))
    }

    /// Non-blocking accept (None: nothing established yet).
    pub fn accept(&mut self, port: u16) -> io::Result<Option<(ConnId, SocketAddrV4)>> {
        match self.poll_accept(port, None) {
            Poll::Ready(r) => r.map(Some),
            Poll::Pending => Ok(None),
        }
    }

    fn conn(&self, id: ConnId) -> io::Result<&Conn> {
        self.conns.get(&id).ok_or_else(|| io::Error::new(io::ErrorKind::NotConnected, "no such connection"))
    }

    /// The smoltcp state of a connection (Closed if it is gone).
    pub fn state(&self, id: ConnId) -> State {
        match self.conns.get(&id) {
            Some(c) => self.sockets.get::<tcp::Socket>(c.handle).state(),
            None => State::Closed,
        }
    }

    /// Why the connection failed, if it did.
    pub fn error(&self, id: ConnId) -> Option<ConnError> {
        self.conns.get(&id).and_then(|c| c.error)
    }

    /// Local address of a connection.
    pub fn local_addr(&self, id: ConnId) -> io::Result<SocketAddrV4> {
        let c = self.conn(id)?;
        let port = c.tuple.map(|t| t.0).unwrap_or(0);
        Ok(SocketAddrV4::new(self.addr, port))
    }

    /// Remote address of a connection.
    pub fn peer_addr(&self, id: ConnId) -> io::Result<SocketAddrV4> {
        self.conn(id)?.tuple.map(|t| t.1).ok_or_else(|| io::Error::new(io::ErrorKind::NotConnected, "no peer"))
    }

    /// Retransmitted segments on this connection so far.
    pub fn retransmits(&self, id: ConnId) -> u64 {
        self.conns.get(&id).and_then(|c| c.tuple).and_then(|t| self.seg_track.get(&t)).map_or(0, |t| t.retransmits)
    }

    /// TCP_NODELAY: `true` turns Nagle's algorithm off.
    pub fn set_nodelay(&mut self, id: ConnId, nodelay: bool) -> io::Result<()> {
        let h = self.conn(id)?.handle;
        self.sockets.get_mut::<tcp::Socket>(h).set_nagle_enabled(!nodelay);
        self.mark_dirty();
        Ok(())
    }

    /// Whether Nagle's algorithm is off.
    pub fn nodelay(&self, id: ConnId) -> io::Result<bool> {
        let h = self.conn(id)?.handle;
        Ok(!self.sockets.get::<tcp::Socket>(h).nagle_enabled())
    }

    /// Keep-alive interval for one connection (None: off).
    pub fn set_keep_alive(&mut self, id: ConnId, interval: Option<Duration>) -> io::Result<()> {
        let h = self.conn(id)?.handle;
        self.sockets.get_mut::<tcp::Socket>(h).set_keep_alive(interval.map(to_smol_duration));
        self.mark_dirty();
        Ok(())
    }

    fn error_of(c: &Conn) -> Option<io::Error> {
        c.error.map(|e| io::Error::new(e.kind(), format!("{e:?}")))
    }

    /// Wait for a connect to complete.
    pub fn poll_connect(&mut self, id: ConnId, waker: Option<&Waker>) -> Poll<io::Result<()>> {
        let c = match self.conn(id) {
            Ok(c) => c,
            Err(e) => return Poll::Ready(Err(e)),
        };
        if let Some(e) = Self::error_of(c) {
            return Poll::Ready(Err(e));
        }
        let h = c.handle;
        let s = self.sockets.get_mut::<tcp::Socket>(h);
        match s.state() {
            State::SynSent | State::SynReceived => {
                if let Some(w) = waker {
                    s.register_send_waker(w);
                }
                Poll::Pending
            }
            State::Closed => Poll::Ready(Err(io::Error::new(io::ErrorKind::NotConnected, "closed before established"))),
            _ => Poll::Ready(Ok(())),
        }
    }

    /// Read received bytes. Ok(0) is end of stream (peer's FIN) or an empty `buf`.
    pub fn poll_recv(&mut self, id: ConnId, buf: &mut [u8], waker: Option<&Waker>) -> Poll<io::Result<usize>> {
        let c = match self.conn(id) {
            Ok(c) => c,
            Err(e) => return Poll::Ready(Err(e)),
        };
        if buf.is_empty() {
            return Poll::Ready(Ok(0));
        }
        let (h, fin_received) = (c.handle, c.fin_received);
        let err = Self::error_of(c);
        let s = self.sockets.get_mut::<tcp::Socket>(h);
        if s.recv_queue() > 0 {
            if let Ok(n) = s.recv_slice(buf) {
                s.ftw_app_read(to_smol_instant(self.now), n);
                if n > 0 {
                    // Reading opens the window: smoltcp may want to send an update.
                    self.mark_dirty();
                    return Poll::Ready(Ok(n));
                }
            }
        }
        if let Some(e) = err {
            return Poll::Ready(Err(e));
        }
        let st = s.state();
        if fin_received || state_has_peer_fin(st) {
            return Poll::Ready(Ok(0));
        }
        match st {
            State::SynSent | State::SynReceived | State::Established | State::FinWait1 | State::FinWait2 => {
                if let Some(w) = waker {
                    s.register_recv_waker(w);
                }
                Poll::Pending
            }
            _ => Poll::Ready(Err(io::Error::new(io::ErrorKind::NotConnected, "not connected"))),
        }
    }

    /// Queue bytes to send; Pending while the send buffer is full or the handshake runs.
    pub fn poll_send(&mut self, id: ConnId, data: &[u8], waker: Option<&Waker>) -> Poll<io::Result<usize>> {
        let c = match self.conn(id) {
            Ok(c) => c,
            Err(e) => return Poll::Ready(Err(e)),
        };
        if let Some(e) = Self::error_of(c) {
            return Poll::Ready(Err(e));
        }
        if data.is_empty() {
            return Poll::Ready(Ok(0));
        }
        let h = c.handle;
        let s = self.sockets.get_mut::<tcp::Socket>(h);
        match s.state() {
            State::SynSent | State::SynReceived => {
                if let Some(w) = waker {
                    s.register_send_waker(w);
                }
                Poll::Pending
            }
            State::Established | State::CloseWait => {
                let n = s.send_slice(data).unwrap_or(0);
                if n > 0 {
                    self.mark_dirty();
                    return Poll::Ready(Ok(n));
                }
                if let Some(w) = waker {
                    s.register_send_waker(w);
                }
                Poll::Pending
            }
            _ => Poll::Ready(Err(io::Error::new(io::ErrorKind::BrokenPipe, "write half closed"))),
        }
    }

    /// Non-blocking read (WouldBlock when nothing is there yet).
    pub fn recv_slice(&mut self, id: ConnId, buf: &mut [u8]) -> io::Result<usize> {
        match self.poll_recv(id, buf, None) {
            Poll::Ready(r) => r,
            Poll::Pending => Err(io::ErrorKind::WouldBlock.into()),
        }
    }

    /// Non-blocking write (WouldBlock when the buffer is full or not yet connected).
    pub fn send_slice(&mut self, id: ConnId, data: &[u8]) -> io::Result<usize> {
        match self.poll_send(id, data, None) {
            Poll::Ready(r) => r,
            Poll::Pending => Err(io::ErrorKind::WouldBlock.into()),
        }
    }

    /// Bytes queued but not yet acknowledged by the peer.
    pub fn send_queue(&self, id: ConnId) -> usize {
        self.conns.get(&id).map_or(0, |c| self.sockets.get::<tcp::Socket>(c.handle).send_queue())
    }

    /// Close the write half: a FIN follows the queued data (`shutdown(SHUT_WR)`).
    pub fn shutdown_write(&mut self, id: ConnId) -> io::Result<()> {
        let h = self.conn(id)?.handle;
        self.sockets.get_mut::<tcp::Socket>(h).close();
        self.mark_dirty();
        Ok(())
    }

    /// Reset the connection at once (an RST goes out, like SO_LINGER 0 + close).
    pub fn abort(&mut self, id: ConnId) -> io::Result<()> {
        let c = self.conns.get_mut(&id).ok_or_else(|| io::Error::new(io::ErrorKind::NotConnected, "no such connection"))?;
        c.aborted_locally = true;
        self.sockets.get_mut::<tcp::Socket>(c.handle).abort();
        self.mark_dirty();
        Ok(())
    }

    /// The app is done with the connection (its stream was dropped). As Linux `close()`:
    /// a FIN, or an RST if received data was left unread. The socket lingers until closed.
    pub fn release(&mut self, id: ConnId) {
        let Some(c) = self.conns.get_mut(&id) else {
            return;
        };
        c.detached = true;
        let s = self.sockets.get_mut::<tcp::Socket>(c.handle);
        if s.state() == State::Closed {
            if s.remote_endpoint().is_none() {
                self.remove_conn(id);
            } else {
                self.mark_dirty(); // its RST is still to go out
            }
            return;
        }
        if s.recv_queue() > 0 {
            c.aborted_locally = true;
            s.abort();
        } else {
            s.close();
        }
        self.mark_dirty();
    }

    /// Whether `port` has a listener.
    pub fn is_listening(&self, port: u16) -> bool {
        self.listeners.contains_key(&port)
    }

    /// Live connections (including ones lingering after their stream was dropped).
    pub fn conn_count(&self) -> usize {
        self.conns.len()
    }
}

fn min_opt(a: Option<Duration>, b: Duration) -> Option<Duration> {
    Some(a.map_or(b, |a| a.min(b)))
}
