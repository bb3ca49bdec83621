//! The phone's part of the protocol over one link, IO-free: [`PhoneSession`].
//!
//! It does the dial (outer tunnel + box session message 1 in one flight, ftw-wire's
//! [`PhoneDial`]), reads the cloud's outer message 2 and then the box's message 2 (the first
//! outer transport message), sends `hello` with the subscription, and from then on opens
//! every message and reports it as a [`Received`]: how it came ([`Arrival`]), the result of
//! opening it ([`Opened`], outer layer first, then the box session), and the message. It does
//! **not** judge: the phone model's `CloudCarrier` decides drop or end-session from
//! `(arrival, opened)` (ftw-phone `Arrival`/`Opened` have the same variants), and the
//! phone model calls [`PhoneSession::close`] when it ends the session.
//!
//! # Driving it
//!
//! ```text
//! let mut p = PhoneSession::new(config, seed);
//! dial the cloud (QUIC or WebSocket) with PhoneSession::target();
//! p.start(now);                                   // queues the outer message 1
//! while let Some(op) = p.poll_transmit() { perform op on the link }
//! on LinkEvent::Message(b)  => p.handle_message(now, &b)
//! on LinkEvent::Datagram(b) => p.handle_datagram(now, &b)
//! on LinkEvent::Closed(c)   => p.handle_closed(now, c.code)
//! while let Some(ev) = p.poll_event() { TunnelUp, SessionOpen, Received(..), Closed{code} }
//! p.set_hidden(now, true) / p.send_cmd(now, op, args, not_valid_after_ms) / p.close(now)
//! ```
//!
//! The background: the phone says its view is hidden by sending a new `hello` whose
//! `sub.hidden` is set ([`PhoneSession::set_hidden`]); the box then sends lane 0 at 0.2 Hz
//! instead of 1 Hz (and answers with `hello_ok` and a fresh `snap`, as to any `hello`).
//!
//! The phone has no deadlines of its own (keepalives are the transport's).
//!
//! # Feeding the phone model (ftw-phone)
//!
//! * `CloudCarrier::judge(arrival, opened)` with [`Received::arrival`] / [`Received::opened`]
//!   (same variant names); on `EndSession` call [`PhoneSession::close`].
//! * `CloudView::handle_live(&view::Live { live_seq, src_rev, wall_ms, table:
//!   received.live_table, values: values as f64 })` for a delivered `Msg::Live`, and
//!   `CloudView::handle_hb(hb.live_seq)` for a delivered `Msg::Hb`.
//! * Which values the box sent: `ftw_box::BoxNode::live_sent(phone_pub, live_seq)`.

use std::collections::VecDeque;

use ciborium::Value;
use ftw_box::uplink::{LinkOp, SealedFrame, SendKind};
use ftw_wire::envelope::{Cmd, Hello, ProtoRange, Subscription};
use ftw_wire::noise::{HandshakeParams, InitiatorAwaitingMsg2, Judged, Key, Keypair, OpenError, PhoneDial, SeededResolver};
use ftw_wire::{BugSwitches, ControlBucket, Msg, Session};
use rand::SeedableRng;
use rand_chacha::ChaCha20Rng;

use crate::consts;

/// How a message reached the phone (as ftw-phone's `carrier::Arrival`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Arrival {
    /// A QUIC datagram.
    Datagram,
    /// The control stream, the bulk stream, or the WebSocket.
    Stream,
}

/// The result of opening a message (as ftw-phone's `carrier::Opened`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Opened {
    Ok,
    /// A sequence number already seen or behind the window (outer tunnel or box session).
    Replay,
    /// Did not authenticate, not a frame, or not an envelope.
    Broken,
}

fn opened_of(e: &OpenError) -> Opened {
    match e {
        OpenError::Replay { .. } | OpenError::TooOld { .. } => Opened::Replay,
        OpenError::Broken | OpenError::BadFrame(_) => Opened::Broken,
    }
}

/// One message as the phone got it.
#[derive(Clone, Debug, PartialEq)]
pub struct Received {
    pub at_ms: u64,
    pub arrival: Arrival,
    pub opened: Opened,
    /// The envelope id (replies echo the request's).
    pub id: Option<u32>,
    /// The message, when `opened` is `Ok`.
    pub msg: Option<Msg>,
    /// For a `live`: the table (field names of its `srcRev`) when it carries one.
    pub live_table: Option<Vec<String>>,
    /// The box session's sequence number, when the outer layer opened.
    pub inner_seq: Option<u64>,
}

/// What happened.
#[derive(Clone, Debug, PartialEq)]
#[allow(clippy::large_enum_variant)] // events are few and short-lived; a plain value is easier to match
pub enum PhoneEvent {
    /// The cloud answered the outer handshake.
    TunnelUp,
    /// The box answered the box session's handshake; `hello` is sent.
    SessionOpen,
    Received(Received),
    /// The link ended with this code (from the peer, or by [`PhoneSession::close`]).
    Closed {
        code: u16,
    },
}

/// Where the session stands.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum PhoneState {
    Idle,
    AwaitTunnel,
    AwaitBox,
    Open,
    Closed { code: u16 },
}

/// What the phone is given.
#[derive(Debug, Clone)]
pub struct PhoneConfig {
    pub key: Keypair,
    /// The cloud's static key (pinned).
    pub cloud_pub: Key,
    /// The box's static key (pinned at pairing).
    pub box_pub: Key,
    pub box_id: String,
    /// The subscription sent in `hello`.
    pub sub: Subscription,
    /// Wire bug switches (the replay windows of both sessions).
    pub switches: BugSwitches,
}

impl PhoneConfig {
    /// All fields, `live` on, visible.
    pub fn new(key: Keypair, cloud_pub: Key, box_pub: Key, box_id: &str) -> PhoneConfig {
        PhoneConfig {
            key,
            cloud_pub,
            box_pub,
            box_id: box_id.to_string(),
            sub: Subscription { fields: vec![], live: true, hidden: false },
            switches: BugSwitches::default(),
        }
    }
}

/// The phone's protocol over one link.
pub struct PhoneSession {
    cfg: PhoneConfig,
    resolver: SeededResolver,
    state: PhoneState,
    inner_hs: Option<InitiatorAwaitingMsg2>,
    outer_hs: Option<InitiatorAwaitingMsg2>,
    outer: Option<Session>,
    inner: Option<Session>,
    out: VecDeque<LinkOp>,
    events: VecDeque<PhoneEvent>,
    next_id: u32,
    /// Keep the windows' records ([`PhoneSession::keep_judged`]).
    keep_judged: bool,
    /// Every box-session message sealed, while the tap is on ([`PhoneSession::keep_sealed`]).
    tap: Option<Vec<SealedFrame>>,
}

/// Which of the phone's two receive windows judged a seq.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum Layer {
    /// The outer tunnel, cloud to phone.
    Tunnel,
    /// The end-to-end box session, box to phone.
    BoxSession,
}

impl std::fmt::Debug for PhoneSession {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("PhoneSession").field("state", &self.state).finish()
    }
}

impl PhoneSession {
    /// A session whose randomness (Noise ephemerals) comes from `seed`.
    pub fn new(cfg: PhoneConfig, seed: [u8; 32]) -> PhoneSession {
        let mut rng = ChaCha20Rng::from_seed(seed);
        let resolver = SeededResolver::from_rng(&mut rng);
        PhoneSession {
            cfg,
            resolver,
            state: PhoneState::Idle,
            inner_hs: None,
            outer_hs: None,
            outer: None,
            inner: None,
            out: VecDeque::new(),
            events: VecDeque::new(),
            next_id: 1,
            keep_judged: false,
            tap: None,
        }
    }

    /// Keep a record of every seq both receive windows judge (outer tunnel and box session),
    /// for [`take_judged`](Self::take_judged): a pure record for lockstep checks, off by
    /// default, changing no decision. Call before the first message.
    pub fn keep_judged(&mut self) {
        self.keep_judged = true;
    }

    /// From now on keep a [`SealedFrame`] of every box-session message sealed, for
    /// [`take_sealed`](Self::take_sealed): a record for the simulator's judges of the wire,
    /// off by default, changing nothing sent.
    pub fn keep_sealed(&mut self) {
        self.tap.get_or_insert_with(Vec::new);
    }

    /// The sealed messages kept since the last call, oldest first (empty when not kept).
    pub fn take_sealed(&mut self) -> Vec<SealedFrame> {
        self.tap.as_mut().map(std::mem::take).unwrap_or_default()
    }

    /// The box session's handshake hash, once it is open (the same at the box).
    pub fn box_session_hash(&self) -> Option<[u8; 32]> {
        self.inner.as_ref().map(|s| s.handshake_hash())
    }

    /// The windows' records since the last call, oldest first, each with its layer.
    pub fn take_judged(&mut self) -> Vec<(Layer, Judged)> {
        let mut out: Vec<(Layer, Judged)> = Vec::new();
        if let Some(s) = self.outer.as_mut() {
            out.extend(s.take_judged().into_iter().map(|j| (Layer::Tunnel, j)));
        }
        if let Some(s) = self.inner.as_mut() {
            out.extend(s.take_judged().into_iter().map(|j| (Layer::BoxSession, j)));
        }
        out
    }

    /// The target to dial with.
    pub fn target() -> &'static str {
        consts::PHONE_TARGET
    }

    pub fn state(&self) -> PhoneState {
        self.state
    }
    pub fn config(&self) -> &PhoneConfig {
        &self.cfg
    }

    /// Queue the first message: the outer message 1 carrying `now.tun` (the box session's
    /// message 1). Call once the link is open.
    pub fn start(&mut self, _now_ms: u64) {
        assert_eq!(self.state, PhoneState::Idle, "start twice");
        let outer = HandshakeParams::tunnel_initiator(self.cfg.key.clone(), self.cfg.cloud_pub, self.resolver.clone()).with_switches(self.cfg.switches);
        let inner = HandshakeParams::box_session_initiator(self.cfg.key.clone(), self.cfg.box_pub, self.resolver.clone()).with_switches(self.cfg.switches);
        let (dial, m1) = PhoneDial::start(&outer, &inner, &self.cfg.box_id, b"").expect("dial starts");
        self.outer_hs = Some(dial.outer);
        self.inner_hs = Some(dial.inner);
        self.state = PhoneState::AwaitTunnel;
        self.out.push_back(LinkOp::Send { kind: SendKind::Message, bytes: m1 });
    }

    /// Next thing to do on the link.
    pub fn poll_transmit(&mut self) -> Option<LinkOp> {
        self.out.pop_front()
    }

    /// Next event.
    pub fn poll_event(&mut self) -> Option<PhoneEvent> {
        self.events.pop_front()
    }

    /// A stream message (control, bulk, or WebSocket).
    pub fn handle_message(&mut self, now_ms: u64, bytes: &[u8]) {
        self.handle_in(now_ms, bytes, Arrival::Stream);
    }

    /// A QUIC datagram.
    pub fn handle_datagram(&mut self, now_ms: u64, bytes: &[u8]) {
        self.handle_in(now_ms, bytes, Arrival::Datagram);
    }

    /// The link ended.
    pub fn handle_closed(&mut self, _now_ms: u64, code: u16) {
        if !matches!(self.state, PhoneState::Closed { .. }) {
            self.state = PhoneState::Closed { code };
            self.events.push_back(PhoneEvent::Closed { code });
        }
    }

    /// End the session (e.g. the carrier's verdict): close the link with 1000.
    pub fn close(&mut self, now_ms: u64) {
        if !matches!(self.state, PhoneState::Closed { .. }) {
            self.out.push_back(LinkOp::Close { code: consts::close::NORMAL, reason: "phone closes".into() });
            self.handle_closed(now_ms, consts::close::NORMAL);
        }
    }

    fn report(&mut self, r: Received) {
        self.events.push_back(PhoneEvent::Received(r));
    }

    fn handle_in(&mut self, now_ms: u64, bytes: &[u8], arrival: Arrival) {
        match self.state {
            PhoneState::Idle | PhoneState::Closed { .. } => {}
            PhoneState::AwaitTunnel => self.tunnel_msg2(now_ms, bytes, arrival),
            PhoneState::AwaitBox => self.box_msg2(now_ms, bytes, arrival),
            PhoneState::Open => self.open_msg(now_ms, bytes, arrival),
        }
    }

    /// What a message that did not open reports.
    fn broken(now_ms: u64, arrival: Arrival, opened: Opened) -> Received {
        Received { at_ms: now_ms, arrival, opened, id: None, msg: None, live_table: None, inner_seq: None }
    }

    /// The cloud's message 2 of the outer handshake. It is a stream message: a
    /// datagram here is not it and must not use the handshake up. A stream message
    /// that did not read as message 2 did: what follows cannot open either (the
    /// carrier has ended the session on it).
    fn tunnel_msg2(&mut self, now_ms: u64, bytes: &[u8], arrival: Arrival) {
        let broken = || Self::broken(now_ms, arrival, Opened::Broken);
        if arrival == Arrival::Datagram {
            return self.report(broken());
        }
        let hs = self.outer_hs.take();
        match self.finish(hs, bytes) {
            Some(s) => {
                self.outer = Some(s);
                self.state = PhoneState::AwaitBox;
                self.events.push_back(PhoneEvent::TunnelUp);
            }
            None => self.report(broken()),
        }
    }

    /// The session a handshake's message 2 opens (keeping the judged copies
    /// when asked to), or `None` when there is no handshake waiting or the
    /// message does not read.
    fn finish(&self, hs: Option<InitiatorAwaitingMsg2>, msg2: &[u8]) -> Option<Session> {
        let (_, mut s) = hs?.read_msg2(msg2).ok()?;
        if self.keep_judged {
            s.keep_judged();
        }
        Some(s)
    }

    /// The box's message 2 of the inner handshake, inside the tunnel. It is a
    /// stream message: a datagram here is not it (a hostile relay's or a
    /// stranger's) and must not use the handshake up, as the carrier drops a
    /// broken datagram and the session goes on.
    fn box_msg2(&mut self, now_ms: u64, bytes: &[u8], arrival: Arrival) {
        let outer = self.outer.as_mut().expect("outer session");
        let m2 = match outer.open_raw(bytes) {
            Ok(m2) => m2,
            Err(e) => return self.report(Self::broken(now_ms, arrival, opened_of(&e))),
        };
        if arrival == Arrival::Datagram {
            return self.report(Self::broken(now_ms, arrival, Opened::Broken));
        }
        let hs = self.inner_hs.take();
        match self.finish(hs, &m2) {
            Some(s) => {
                self.inner = Some(s);
                self.state = PhoneState::Open;
                self.events.push_back(PhoneEvent::SessionOpen);
                let sub = self.cfg.sub.clone();
                self.send_hello(sub);
            }
            None => self.report(Self::broken(now_ms, arrival, Opened::Broken)),
        }
    }

    /// A message of the open session: both layers opened, then decoded.
    fn open_msg(&mut self, now_ms: u64, bytes: &[u8], arrival: Arrival) {
        let broken = |opened| Self::broken(now_ms, arrival, opened);
        let outer = self.outer.as_mut().expect("outer session");
        let plain = match outer.open_raw(bytes) {
            Ok(p) => p,
            Err(e) => return self.report(broken(opened_of(&e))),
        };
        let inner_seq = plain.get(..8).map(|s| u64::from_be_bytes(s.try_into().expect("8 bytes")));
        let inner = self.inner.as_mut().expect("inner session");
        let frame = match inner.open(&plain) {
            Ok(f) => f,
            Err(e) => return self.report(Received { inner_seq, ..broken(opened_of(&e)) }),
        };
        match Msg::decode(&frame.payload) {
            Ok((id, msg)) => {
                let live_table = if matches!(msg, Msg::Live(_)) { ftw_box::live_table(&frame.payload) } else { None };
                self.report(Received { at_ms: now_ms, arrival, opened: Opened::Ok, id, msg: Some(msg), live_table, inner_seq });
            }
            Err(_) => self.report(Received { inner_seq, ..broken(Opened::Broken) }),
        }
    }

    fn send(&mut self, m: &Msg, id: Option<u32>) {
        assert_eq!(self.state, PhoneState::Open, "send before the session is open");
        let whole = m.to_frame(id);
        let frame = whole.encode(ControlBucket::default()).expect("phone frames fit lane 0");
        let inner = self.inner.as_mut().expect("inner");
        let sealed = inner.seal(&frame).expect("inner seals");
        if let Some(tap) = self.tap.as_mut() {
            let (session, key) = (inner.handshake_hash(), inner.send_key());
            let (t, whole_len) = (m.type_name().to_string(), whole.payload.len());
            tap.push(SealedFrame { session, initiator: true, key, t, whole_len, kind: SendKind::Message, msg: sealed.clone() });
        }
        let wrapped = self.outer.as_mut().expect("outer").seal(&sealed).expect("outer seals");
        self.out.push_back(LinkOp::Send { kind: SendKind::Message, bytes: wrapped });
    }

    /// A hasty phone: seal `payload` in the outer tunnel and send it now, before its
    /// box answered (the cloud drops it: nothing may come before the box's message 2).
    /// Returns false unless the tunnel is up and the box has not answered yet.
    pub fn write_before_box(&mut self, payload: &[u8]) -> bool {
        if self.state != PhoneState::AwaitBox {
            return false;
        }
        let sealed = self.outer.as_mut().expect("outer session").seal(payload).expect("outer seals");
        self.out.push_back(LinkOp::Send { kind: SendKind::Message, bytes: sealed });
        true
    }

    fn take_id(&mut self) -> u32 {
        let id = self.next_id;
        self.next_id += 1;
        id
    }

    fn send_hello(&mut self, sub: Subscription) {
        let id = self.take_id();
        let hello = Msg::Hello(Hello { proto: ProtoRange { min: 1, max: 1 }, caps: vec!["live".into()], sub });
        self.send(&hello, Some(id));
    }

    /// Say the view went to the background (`true`) or came back: a new `hello` with
    /// `sub.hidden` set accordingly. Returns false if the session is not open.
    pub fn set_hidden(&mut self, _now_ms: u64, hidden: bool) -> bool {
        if self.state != PhoneState::Open {
            return false;
        }
        self.cfg.sub.hidden = hidden;
        let sub = self.cfg.sub.clone();
        self.send_hello(sub);
        true
    }

    /// Send a `cmd`; returns its envelope id (echoed by `cmd.ack` and `cmd.result`) and its
    /// `cmdId` (`"c<id>"`), or `None` if the session is not open.
    pub fn send_cmd(&mut self, _now_ms: u64, op: &str, args: Value, not_valid_after_ms: u64) -> Option<(u32, String)> {
        if self.state != PhoneState::Open {
            return None;
        }
        let id = self.take_id();
        let cmd_id = format!("c{id}");
        let cmd = Msg::Cmd(Cmd { cmd_id: cmd_id.clone(), op: op.to_string(), args, not_valid_after_ms, expect: None });
        self.send(&cmd, Some(id));
        Some((id, cmd_id))
    }
}
