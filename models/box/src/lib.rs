//! The home energy box ("Core"), IO-free (design/SPEC.md §1, §3; STYLE.md: quinn-proto style).
//!
//! [`BoxNode`] keeps an uplink to FTW Cloud and answers up to four phone sessions relayed over
//! it. It never touches a socket or a clock: the driver feeds it `now_ms` and link events and
//! carries out what it asks.
//!
//! # Driving it
//!
//! ```text
//! let mut b = BoxNode::new(config, seed);
//! loop {
//!     b.handle_timeout(now_ms);                       // whenever now_ms >= b.poll_timeout()
//!     while let Some(out) = b.poll_output() {
//!         match out {
//!             BoxOutput::Dial { target } => { dial the cloud (QUIC or WebSocket) with target;
//!                 on success b.handle_uplink_up(now, link_has_datagrams),
//!                 on failure b.handle_uplink_failed(now) }
//!             BoxOutput::Link(LinkOp::Send { kind, bytes }) => link.send / send_bulk / send_datagram,
//!             BoxOutput::Link(LinkOp::Close { code, reason }) => link.close(code, reason),
//!         }
//!     }
//!     on LinkEvent::Message(b)  => b.handle_message(now, &b)
//!     on LinkEvent::Datagram(b) => b.handle_datagram(now, &b)
//!     on LinkEvent::Closed(c)   => b.handle_closed(now, c.code)
//! }
//! ```
//!
//! # Uplink and reconnects
//!
//! The box asks to dial at its first `handle_timeout` (at `now_ms >= 0`). When a dial fails or
//! an uplink ends, the next dial is due after a delay drawn with "equal jitter":
//! ceiling = min(1 s · 2^attempt, 60 s), delay uniform in [ceiling/2, ceiling] from the box's
//! seeded RNG; `attempt` goes up by one per failure and back to 0 once an uplink stayed up
//! 60 s ([`consts`]). So the ceilings run 1, 2, 4, 8, 16, 32, 60, 60, ... s.
//! Every session dies with its uplink (the phone's half is gone too; srcfl/ftw appuplink).
//!
//! # A phone session (through the cloud, see [`uplink`] for the framing)
//!
//! 1. `Open(chan, m1)`: read the box session's message 1 (`Noise_IK`, box = responder). If the
//!    phone's static key is not pinned in [`BoxConfig::paired`]: `Close(chan, 4403)`, nothing
//!    else. A session the same phone still has on another channel is ended (`Close(old, 1000)`:
//!    one session per phone). With [`SESSIONS_MAX`](consts::SESSIONS_MAX) sessions open:
//!    `Close(chan, 4429)`.
//!    Otherwise write message 2 back (`Data`).
//! 2. `hello` (with `sub`) → `hello_ok` and `snap` on the bulk lane (`Bulk`). A later `hello`
//!    in the same session updates the subscription and is answered the same way.
//! 3. Lane 0 every period (1 s; 5 s while `hello.sub.hidden`, i.e. the phone says its view is
//!    in the background: it sends a new `hello` with `hidden` set or cleared): a `delta` of the
//!    subscribed fields that changed since the last one sent, or a `tick {seq}` when none did.
//!    `seq` counts lane-0 telemetry frames of the session from 1.
//! 4. With `sub.live`, at the same instants: `live {liveSeq, srcRev, wallMs, values}` then
//!    `hb {liveSeq}`, both as datagrams (`Dgram`). `liveSeq` counts per phone static key from 1
//!    and goes on across sessions, so (phone, liveSeq) names one `live` for ever; every one is
//!    recorded ([`BoxNode::lives_sent`]). The first `live` of a session and the first after
//!    the table changed carry an extra body key `table: [name]` (the field names of `srcRev`;
//!    unknown keys are ignored by other readers, SPEC.md §2), and a table change also sends a
//!    new `snap`.
//! 5. `cmd` → `cmd.ack` (same envelope id) at once, then `cmd.result` 200 ms later. Ops:
//!    `battery.hold {setpoint_w}` (holds the site's battery; result `ok: false, E_PRECONDITION`
//!    without a battery), `site.mode.set` (accepted, no effect here); another op:
//!    `accepted: false, E_UNKNOWN_OP`; `notValidAfterMs` below the box's wall clock:
//!    `accepted: false, E_CMD_EXPIRED`.
//!
//! A message that does not open is dropped (anyone may write into the uplink's channels;
//! the box's own carrier rules are not the phone's). `Close(chan)` from the cloud ends the
//! session.

pub mod consts;
pub mod site;
pub mod uplink;

use std::collections::{BTreeMap, VecDeque};

use ciborium::Value;
use ftw_wire::envelope::{fit_delta, Clock, CmdAck, CmdResult, Delta, FieldDef, Hb, HelloOk, IdMap, Live, Snap, SourceInfo, Subscription};
use ftw_wire::noise::{HandshakeParams, Key, Keypair, Responder, SeededResolver};
use ftw_wire::{BugSwitches, ControlBucket, Frame, Msg, Session};
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha20Rng;

use consts::close;
pub use site::Site;
pub use uplink::{Kind, LinkOp, SealedFrame, SendKind, UpMsg};

/// What the box is given.
#[derive(Debug, Clone)]
pub struct BoxConfig {
    /// Its id at the cloud (the uplink target is `/box/<box_id>`).
    pub box_id: String,
    /// Its static key (pinned by paired phones).
    pub key: Keypair,
    /// Static keys of the paired phones (pinned at pairing).
    pub paired: Vec<Key>,
    /// Wire bug switches (the replay window of each session).
    pub switches: BugSwitches,
    /// The box's wall clock at sim time 0.
    pub wall_base_ms: u64,
    /// The lane-0 bucket of every session.
    pub control_bucket: ControlBucket,
    /// Seed of the simulated site.
    pub site_seed: u64,
    /// Planted bugs (off by default).
    pub bugs: BoxBugs,
    /// The cloud's static public key, for the uplink's `Auth` (zero until set: the
    /// cloud then refuses the proof with 4403).
    pub cloud_public: Key,
}

/// Bugs planted in the box to show a law can fail (not from the seeds).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct BoxBugs {
    /// A session the cloud closes (its phone left) stays in the box's table:
    /// the state after the end is wrong, and four such sessions fill the
    /// session limit.
    pub keeps_closed_sessions: bool,
    /// The padding of every frame that has some ends in a non-zero byte (SPEC §2: zero pad).
    pub pad_not_zeroed: bool,
    /// `cmd.ack` goes on lane 1 (SPEC §2 puts it on lane 0).
    pub ack_on_bulk_lane: bool,
    /// A `delta` that fit whole carries TRUNC (SPEC §2: only a message that did not fit).
    pub trunc_on_whole_delta: bool,
    /// `cmd.ack` goes as a QUIC datagram (SPEC §3: only `hb` and `live` may).
    pub ack_as_datagram: bool,
}

impl BoxConfig {
    /// Defaults for everything but identity and pairing.
    pub fn new(box_id: &str, key: Keypair, paired: Vec<Key>, site_seed: u64) -> BoxConfig {
        BoxConfig {
            box_id: box_id.to_string(),
            key,
            paired,
            switches: BugSwitches::default(),
            wall_base_ms: consts::WALL_BASE_MS_DEFAULT,
            control_bucket: ControlBucket::default(),
            site_seed,
            bugs: BoxBugs::default(),
            cloud_public: [0; 32],
        }
    }
}

/// What the box asks of its driver.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum BoxOutput {
    /// Dial the cloud with this target; answer with `handle_uplink_up` or `handle_uplink_failed`.
    Dial { target: String },
    /// Something to do on the open uplink.
    Link(LinkOp),
}

/// One `live` the box sent.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SentLive {
    pub phone: Key,
    pub chan: u32,
    pub live_seq: u64,
    pub src_rev: u64,
    pub wall_ms: u64,
    pub sent_at_ms: u64,
    pub values: BTreeMap<String, i64>,
    /// The table it carried, if any.
    pub table: Option<Vec<String>>,
}

/// What the box read or decided, in plaintext terms, for a lockstep reference
/// (`ftw-properties` `reference::box`): the session's messages are sealed, so a driver
/// cannot see them. Pure observation: queued as the box decides, drained with
/// [`BoxNode::poll_note`], never read by the box itself. A driver that does not drain them
/// keeps at most [`NOTES_MAX`] (the oldest go).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum BoxNote {
    /// `Open(chan, m1)` read: the phone's static key (`None`: not a readable message 1).
    Read { chan: u32, phone: Option<Key> },
    /// A `hello` opened on `chan` (its envelope id and subscription flags).
    Hello { chan: u32, id: Option<u32>, hidden: bool, live: bool },
    /// A `cmd` opened on `chan`.
    Cmd { chan: u32, id: Option<u32>, cmd_id: String, op: String, not_valid_after_ms: u64 },
    /// A message of a type the box does not take opened on `chan`: ignored, not
    /// dropped (SPEC section 2: unknown types are ignored).
    Ignored { chan: u32 },
    /// One uplink message queued for `chan`, in the order of [`BoxNode::poll_output`].
    Sent { chan: u32, what: Sent },
}

/// What one uplink message of a session is ([`BoxNote::Sent`]).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Sent {
    /// The box session's handshake message 2 (`Data`).
    Msg2,
    /// `Close(chan, code)`.
    Close {
        code: u16,
    },
    HelloOk {
        id: Option<u32>,
    },
    Snap {
        rev: u64,
    },
    /// A lane-0 telemetry frame (`tick` or `delta`) with its `seq`, built at table `rev`.
    Lane0 {
        seq: u64,
        rev: u64,
    },
    Live {
        live_seq: u64,
        rev: u64,
        wall_ms: u64,
        table: bool,
    },
    Hb {
        live_seq: u64,
    },
    Ack {
        id: Option<u32>,
        cmd_id: String,
        accepted: bool,
        code: Option<String>,
    },
    Result {
        id: Option<u32>,
        cmd_id: String,
        ok: bool,
    },
}

/// Most notes kept undrained ([`BoxNote`]).
pub const NOTES_MAX: usize = 4096;

/// Counters.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct BoxStats {
    pub dials: u64,
    pub uplinks_up: u64,
    pub sessions_opened: u64,
    pub refused_unpaired: u64,
    pub refused_busy: u64,
    /// Messages that matched no session or did not open.
    pub dropped: u64,
    pub lane0_sent: u64,
    pub lives_sent: u64,
    pub cmds: u64,
    /// The cloud's uplink challenges answered with an `Auth`.
    pub challenges_answered: u64,
}

/// Where the uplink stands.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum UplinkState {
    /// Waiting to dial at `next_dial_ms`.
    Down {
        next_dial_ms: u64,
    },
    /// A dial was asked for; no answer yet.
    Dialing,
    Up {
        datagrams: bool,
        since_ms: u64,
    },
}

#[derive(Debug)]
struct Open {
    sub: Subscription,
    next_tick_ms: u64,
    last_fields: BTreeMap<u32, i64>,
    /// The table revision last given to this phone (snap or live table).
    table_rev_sent: u64,
    /// The table revision last carried by a `live` of this session.
    live_table_rev_sent: Option<u64>,
}

#[derive(Debug)]
struct Sess {
    phone: Key,
    session: Session,
    open: Option<Open>,
    lane0_seq: u64,
}

#[derive(Debug)]
struct PendingResult {
    due_ms: u64,
    chan: u32,
    id: Option<u32>,
    result: CmdResult,
}

/// The box.
#[derive(Debug)]
pub struct BoxNode {
    cfg: BoxConfig,
    rng: ChaCha20Rng,
    resolver: SeededResolver,
    site: Site,
    uplink: UplinkState,
    attempt: u32,
    sessions: BTreeMap<u32, Sess>,
    out: VecDeque<BoxOutput>,
    next_live_seq: BTreeMap<Key, u64>,
    lives: Vec<SentLive>,
    pending: Vec<PendingResult>,
    stats: BoxStats,
    last_now_ms: u64,
    notes: VecDeque<BoxNote>,
    /// Every sealed session message, while the tap is on ([`BoxNode::keep_sealed`]).
    tap: Option<Vec<SealedFrame>>,
}

impl BoxNode {
    /// A box whose randomness (backoff jitter, Noise ephemerals) comes from `seed`.
    pub fn new(cfg: BoxConfig, seed: [u8; 32]) -> BoxNode {
        let mut rng = ChaCha20Rng::from_seed(seed);
        let resolver = SeededResolver::from_rng(&mut rng);
        let site = Site::new(cfg.site_seed);
        BoxNode {
            cfg,
            rng,
            resolver,
            site,
            uplink: UplinkState::Down { next_dial_ms: 0 },
            attempt: 0,
            sessions: BTreeMap::new(),
            out: VecDeque::new(),
            next_live_seq: BTreeMap::new(),
            lives: Vec::new(),
            pending: Vec::new(),
            stats: BoxStats::default(),
            last_now_ms: 0,
            notes: VecDeque::new(),
            tap: None,
        }
    }

    /// From now on keep a [`SealedFrame`] of every session message sealed, for
    /// [`take_sealed`](Self::take_sealed): a record for the simulator's judges of the wire,
    /// off by default, changing nothing sent.
    pub fn keep_sealed(&mut self) {
        self.tap.get_or_insert_with(Vec::new);
    }

    /// The sealed messages kept since the last call, oldest first (empty when not kept).
    pub fn take_sealed(&mut self) -> Vec<SealedFrame> {
        self.tap.as_mut().map(std::mem::take).unwrap_or_default()
    }

    pub fn config(&self) -> &BoxConfig {
        &self.cfg
    }
    pub fn site(&self) -> &Site {
        &self.site
    }
    /// The site, to change it in a test (e.g. `add_battery`).
    pub fn site_mut(&mut self) -> &mut Site {
        &mut self.site
    }
    pub fn uplink(&self) -> UplinkState {
        self.uplink
    }
    pub fn stats(&self) -> BoxStats {
        self.stats
    }
    /// Sessions open (handshake done) now.
    pub fn session_count(&self) -> usize {
        self.sessions.len()
    }
    /// Static keys of the phones with a session now, by channel.
    pub fn session_phones(&self) -> Vec<(u32, Key)> {
        self.sessions.iter().map(|(c, s)| (*c, s.phone)).collect()
    }
    /// Every `live` sent, in order.
    pub fn lives_sent(&self) -> &[SentLive] {
        &self.lives
    }
    /// The `live` sent to `phone` with `live_seq`.
    pub fn live_sent(&self, phone: &Key, live_seq: u64) -> Option<&SentLive> {
        self.lives.iter().find(|l| &l.phone == phone && l.live_seq == live_seq)
    }
    /// The box's wall clock.
    pub fn wall_ms(&self, now_ms: u64) -> u64 {
        self.cfg.wall_base_ms + now_ms
    }

    /// The uplink target.
    pub fn target(&self) -> String {
        format!("{}{}", consts::UPLINK_TARGET_PREFIX, self.cfg.box_id)
    }

    /// Next note of what the box read or decided ([`BoxNote`]; observation only).
    pub fn poll_note(&mut self) -> Option<BoxNote> {
        self.notes.pop_front()
    }

    fn note(&mut self, n: BoxNote) {
        if self.notes.len() >= NOTES_MAX {
            self.notes.pop_front();
        }
        self.notes.push_back(n);
    }

    fn note_sent(&mut self, chan: u32, what: Sent) {
        self.note(BoxNote::Sent { chan, what });
    }

    /// Next thing for the driver to do.
    pub fn poll_output(&mut self) -> Option<BoxOutput> {
        self.out.pop_front()
    }

    /// The next instant `handle_timeout` has work.
    pub fn poll_timeout(&self) -> Option<u64> {
        let mut t: Option<u64> = None;
        let mut at = |x: u64| t = Some(t.map_or(x, |t| t.min(x)));
        if let UplinkState::Down { next_dial_ms } = self.uplink {
            at(next_dial_ms);
        }
        for s in self.sessions.values() {
            if let Some(o) = &s.open {
                at(o.next_tick_ms);
            }
        }
        for p in &self.pending {
            at(p.due_ms);
        }
        t
    }

    fn clock(&mut self, now_ms: u64) {
        assert!(now_ms >= self.last_now_ms, "time went back: {now_ms} < {}", self.last_now_ms);
        self.last_now_ms = now_ms;
        self.site.advance_to(now_ms);
    }

    /// Run what is due at `now_ms`.
    pub fn handle_timeout(&mut self, now_ms: u64) {
        self.clock(now_ms);
        if let UplinkState::Down { next_dial_ms } = self.uplink {
            if now_ms >= next_dial_ms {
                self.uplink = UplinkState::Dialing;
                self.stats.dials += 1;
                self.out.push_back(BoxOutput::Dial { target: self.target() });
            }
        }
        // Command results, in due order (ties in arrival order).
        self.pending.sort_by_key(|p| p.due_ms);
        while self.pending.first().is_some_and(|p| p.due_ms <= now_ms) {
            let p = self.pending.remove(0);
            if self.sessions.contains_key(&p.chan) {
                self.note_sent(p.chan, Sent::Result { id: p.id, cmd_id: p.result.cmd_id.clone(), ok: p.result.ok });
                self.send_msg(p.chan, &Msg::CmdResult(p.result), p.id, Kind::Data);
            }
        }
        let due: Vec<u32> = self.sessions.iter().filter(|(_, s)| s.open.as_ref().is_some_and(|o| o.next_tick_ms <= now_ms)).map(|(c, _)| *c).collect();
        for chan in due {
            self.lane0_tick(now_ms, chan);
        }
    }

    /// The dial asked for by `Dial` opened.
    pub fn handle_uplink_up(&mut self, now_ms: u64, datagrams: bool) {
        self.clock(now_ms);
        assert_eq!(self.uplink, UplinkState::Dialing, "uplink up without a dial");
        self.uplink = UplinkState::Up { datagrams, since_ms: now_ms };
        self.stats.uplinks_up += 1;
    }

    /// The dial asked for by `Dial` failed.
    pub fn handle_uplink_failed(&mut self, now_ms: u64) {
        self.clock(now_ms);
        assert_eq!(self.uplink, UplinkState::Dialing, "dial failure without a dial");
        self.schedule_redial(now_ms);
    }

    /// The uplink closed (by the cloud or the network).
    pub fn handle_closed(&mut self, now_ms: u64, _code: u16) {
        self.clock(now_ms);
        if let UplinkState::Up { since_ms, .. } = self.uplink {
            if now_ms.saturating_sub(since_ms) >= consts::BACKOFF_RESET_UP_MS {
                self.attempt = 0;
            }
            self.drop_all_sessions();
            self.schedule_redial(now_ms);
        } else if self.uplink == UplinkState::Dialing {
            // A dial that ended before it opened: the same as `handle_uplink_failed`.
            self.schedule_redial(now_ms);
        }
    }

    fn drop_all_sessions(&mut self) {
        self.sessions.clear();
        self.pending.clear();
    }

    /// The delay before dial number `attempt + 1` after a failure: equal jitter on a doubling
    /// ceiling (see the crate docs).
    fn schedule_redial(&mut self, now_ms: u64) {
        let ceiling = (consts::BACKOFF_BASE_MS << self.attempt.min(consts::BACKOFF_DOUBLINGS_MAX)).min(consts::BACKOFF_CAP_MS);
        let delay = ceiling / 2 + self.rng.random_range(0..=ceiling / 2);
        assert!(delay <= consts::BACKOFF_CAP_MS);
        self.attempt = (self.attempt + 1).min(consts::BACKOFF_DOUBLINGS_MAX);
        self.uplink = UplinkState::Down { next_dial_ms: now_ms + delay };
    }

    /// A stream message on the uplink.
    pub fn handle_message(&mut self, now_ms: u64, bytes: &[u8]) {
        self.handle_up(now_ms, bytes);
    }

    /// A datagram on the uplink (the cloud sends none today; handled the same).
    pub fn handle_datagram(&mut self, now_ms: u64, bytes: &[u8]) {
        self.handle_up(now_ms, bytes);
    }

    fn handle_up(&mut self, now_ms: u64, bytes: &[u8]) {
        self.clock(now_ms);
        if !matches!(self.uplink, UplinkState::Up { .. }) {
            self.stats.dropped += 1;
            return;
        }
        let Some(m) = UpMsg::decode(bytes) else {
            self.stats.dropped += 1;
            return;
        };
        match m.kind {
            Kind::Open => self.open_session(m.chan, &m.payload),
            Kind::Data => self.session_data(now_ms, m.chan, &m.payload),
            Kind::Close => {
                if !self.cfg.bugs.keeps_closed_sessions {
                    self.sessions.remove(&m.chan);
                }
                self.pending.retain(|p| p.chan != m.chan);
            }
            Kind::Challenge if m.chan == 0 && m.payload.len() == ftw_wire::consts::UPLINK_NONCE_LEN => {
                let proof = ftw_wire::noise::uplink_proof(&self.cfg.key.private, &self.cfg.cloud_public, &m.payload, &self.cfg.box_id);
                self.stats.challenges_answered += 1;
                self.send_up(UpMsg::auth(&proof), SendKind::Message);
            }
            Kind::Challenge | Kind::Bulk | Kind::Dgram | Kind::Auth => self.stats.dropped += 1,
        }
    }

    /// Queue `m`; returns how it goes (a datagram goes as a message on a link without them).
    fn send_up(&mut self, m: UpMsg, kind: SendKind) -> SendKind {
        let datagrams = matches!(self.uplink, UplinkState::Up { datagrams: true, .. });
        let kind = if kind == SendKind::Datagram && !datagrams { SendKind::Message } else { kind };
        self.out.push_back(BoxOutput::Link(LinkOp::Send { kind, bytes: m.encode() }));
        kind
    }

    fn open_session(&mut self, chan: u32, m1: &[u8]) {
        if self.sessions.contains_key(&chan) {
            self.stats.dropped += 1;
            return;
        }
        let params = HandshakeParams::box_session_responder(self.cfg.key.clone(), self.resolver.clone()).with_switches(self.cfg.switches);
        let responder = Responder::new(&params).expect("box responder builds");
        let Ok((got, _payload)) = responder.read_msg1(m1) else {
            self.stats.dropped += 1;
            self.note(BoxNote::Read { chan, phone: None });
            self.note_sent(chan, Sent::Close { code: close::BAD_REQUEST });
            self.send_up(UpMsg::close(chan, close::BAD_REQUEST), SendKind::Message);
            return;
        };
        let phone = got.remote_static();
        self.note(BoxNote::Read { chan, phone: Some(phone) });
        if !self.cfg.paired.contains(&phone) {
            // Replying to a stranger would confirm a box is here: no message 2.
            self.stats.refused_unpaired += 1;
            self.note_sent(chan, Sent::Close { code: close::FORBIDDEN });
            self.send_up(UpMsg::close(chan, close::FORBIDDEN), SendKind::Message);
            return;
        }
        // One session per phone: a phone that opens again has forgotten its old one (its old
        // link may not have been seen to end yet). The old one is ended and frees its slot.
        let stale: Vec<u32> = self.sessions.iter().filter(|(_, s)| s.phone == phone).map(|(c, _)| *c).collect();
        for old in stale {
            self.sessions.remove(&old);
            self.pending.retain(|p| p.chan != old);
            self.note_sent(old, Sent::Close { code: close::NORMAL });
            self.send_up(UpMsg::close(old, close::NORMAL), SendKind::Message);
        }
        if self.sessions.len() >= consts::SESSIONS_MAX {
            self.stats.refused_busy += 1;
            self.note_sent(chan, Sent::Close { code: close::BUSY });
            self.send_up(UpMsg::close(chan, close::BUSY), SendKind::Message);
            return;
        }
        let (m2, session) = got.write_msg2(b"").expect("message 2 writes");
        self.sessions.insert(chan, Sess { phone, session, open: None, lane0_seq: 0 });
        assert!(self.sessions.len() <= consts::SESSIONS_MAX);
        self.stats.sessions_opened += 1;
        self.note_sent(chan, Sent::Msg2);
        self.send_up(UpMsg { kind: Kind::Data, chan, payload: m2 }, SendKind::Message);
    }

    fn session_data(&mut self, now_ms: u64, chan: u32, msg: &[u8]) {
        let Some(s) = self.sessions.get_mut(&chan) else {
            self.stats.dropped += 1;
            return;
        };
        let Ok(frame) = s.session.open(msg) else {
            self.stats.dropped += 1;
            return;
        };
        let Ok((id, m)) = Msg::decode(&frame.payload) else {
            self.stats.dropped += 1;
            return;
        };
        match m {
            Msg::Hello(h) => {
                self.note(BoxNote::Hello { chan, id, hidden: h.sub.hidden, live: h.sub.live });
                self.hello(now_ms, chan, id, h.sub)
            }
            Msg::Cmd(c) => {
                let n = BoxNote::Cmd { chan, id, cmd_id: c.cmd_id.clone(), op: c.op.clone(), not_valid_after_ms: c.not_valid_after_ms };
                self.note(n);
                self.cmd(now_ms, chan, id, c)
            }
            _ => self.note(BoxNote::Ignored { chan }), // unknown and unexpected types are ignored (SPEC.md §2)
        }
    }

    fn hello(&mut self, now_ms: u64, chan: u32, id: Option<u32>, sub: Subscription) {
        let hello_ok = HelloOk {
            proto: consts::PROTO_VERSION,
            mode: "full".into(),
            caps: vec!["live".into()],
            clock: Clock { source: "sim".into(), synced_at_ms: self.cfg.wall_base_ms, uptime_ms: now_ms },
            boot: self.cfg.box_id.clone(),
            hint: None,
        };
        self.note_sent(chan, Sent::HelloOk { id });
        self.send_msg(chan, &Msg::HelloOk(hello_ok), id, Kind::Bulk);
        let snap = self.snap(now_ms);
        let rev = self.site.src_rev();
        let fields = self.site.values_by_fid();
        let s = self.sessions.get_mut(&chan).expect("session");
        let period = period_ms(&sub);
        match &mut s.open {
            Some(o) => {
                // A new subscription: keep the cadence's phase but move to the new period.
                let last = o.next_tick_ms.saturating_sub(period_ms(&o.sub));
                o.next_tick_ms = (last + period).max(now_ms);
                o.sub = sub;
                o.last_fields = fields;
                o.table_rev_sent = rev;
            }
            None => {
                s.open = Some(Open { sub, next_tick_ms: now_ms + period, last_fields: fields, table_rev_sent: rev, live_table_rev_sent: None });
            }
        }
        self.note_sent(chan, Sent::Snap { rev });
        self.send_msg(chan, &Msg::Snap(snap), None, Kind::Bulk);
    }

    fn snap(&self, now_ms: u64) -> Snap {
        let t = self.site.table();
        let dict = IdMap(t.fields.iter().map(|f| (f.fid, FieldDef { name: f.name.clone(), unit: f.unit.clone(), src_id: "site".into() })).collect());
        let sources = BTreeMap::from([(
            "site".to_string(),
            SourceInfo { kind: "sim".into(), name: None, last_ok_ms: self.wall_ms(now_ms), stale_after_ms: 10_000, state: "live".into() },
        )]);
        Snap { rev: t.src_rev, dict, fields: IdMap(self.site.values_by_fid()), sources }
    }

    fn cmd(&mut self, now_ms: u64, chan: u32, id: Option<u32>, c: ftw_wire::envelope::Cmd) {
        self.stats.cmds += 1;
        let wall = self.wall_ms(now_ms);
        let (accepted, code) = if c.not_valid_after_ms < wall {
            (false, Some("E_CMD_EXPIRED".to_string()))
        } else if c.op == "battery.hold" || c.op == "site.mode.set" {
            (true, None)
        } else {
            (false, Some("E_UNKNOWN_OP".to_string()))
        };
        self.note_sent(chan, Sent::Ack { id, cmd_id: c.cmd_id.clone(), accepted, code: code.clone() });
        let ack = CmdAck { cmd_id: c.cmd_id.clone(), accepted, code };
        let kind = if self.cfg.bugs.ack_as_datagram { Kind::Dgram } else { Kind::Data };
        self.send_msg(chan, &Msg::CmdAck(ack), id, kind);
        if !accepted {
            return;
        }
        let (ok, code) = if c.op == "battery.hold" {
            let setpoint = arg_i64(&c.args, "setpoint_w").unwrap_or(0);
            if self.site.hold_battery(setpoint) {
                (true, None)
            } else {
                (false, Some("E_PRECONDITION".to_string()))
            }
        } else {
            (true, None)
        };
        let result = CmdResult { cmd_id: c.cmd_id, ok, code };
        self.pending.push(PendingResult { due_ms: now_ms + consts::CMD_APPLY_MS, chan, id, result });
    }

    fn lane0_tick(&mut self, now_ms: u64, chan: u32) {
        let bucket = self.cfg.control_bucket;
        let rev = self.site.src_rev();
        let values = self.site.values().clone();
        let by_fid = self.site.values_by_fid();
        let table_names = self.site.table().names();
        let wall_ms = self.wall_ms(now_ms);
        let snap_needed;
        let tapping = self.tap.is_some();
        let (frame, intent, live) = {
            let s = self.sessions.get_mut(&chan).expect("session");
            let o = s.open.as_mut().expect("open session");
            let period = period_ms(&o.sub);
            o.next_tick_ms += period;
            if o.next_tick_ms <= now_ms {
                o.next_tick_ms = now_ms + period;
            }
            snap_needed = o.table_rev_sent != rev;
            o.table_rev_sent = rev;
            let wanted = |fid: &u32| o.sub.fields.is_empty() || o.sub.fields.contains(fid);
            let changed: BTreeMap<u32, i64> = by_fid.iter().filter(|(f, v)| wanted(f) && o.last_fields.get(f) != Some(v)).map(|(f, v)| (*f, *v)).collect();
            s.lane0_seq += 1;
            let (frame, intent, dropped) = lane0_frame(s.lane0_seq, &changed, bucket, tapping, self.cfg.bugs.trunc_on_whole_delta);
            for (f, v) in changed.iter().filter(|(f, _)| !dropped.contains(f)) {
                o.last_fields.insert(*f, *v);
            }
            let live = if o.sub.live {
                let with_table = o.live_table_rev_sent != Some(rev);
                o.live_table_rev_sent = Some(rev);
                Some((s.phone, with_table))
            } else {
                None
            };
            (frame, intent, live)
        };
        if snap_needed {
            let snap = self.snap(now_ms);
            self.note_sent(chan, Sent::Snap { rev });
            self.send_msg(chan, &Msg::Snap(snap), None, Kind::Bulk);
        }
        let seq = self.sessions.get(&chan).map_or(0, |s| s.lane0_seq);
        self.note_sent(chan, Sent::Lane0 { seq, rev });
        self.send_frame(chan, &frame, Kind::Data, intent);
        self.stats.lane0_sent += 1;
        if let Some((phone, with_table)) = live {
            let seq_slot = self.next_live_seq.entry(phone).or_insert(1);
            let live_seq = *seq_slot;
            *seq_slot += 1;
            let table = with_table.then(|| table_names.clone());
            let live = Live { live_seq, src_rev: rev, wall_ms, values: values.clone() };
            let payload = live_payload(&live, table.as_deref());
            self.note_sent(chan, Sent::Live { live_seq, rev, wall_ms, table: table.is_some() });
            self.note_sent(chan, Sent::Hb { live_seq });
            let whole_len = payload.len();
            self.send_frame(chan, &Frame::control(payload), Kind::Dgram, ("live", whole_len));
            self.send_msg(chan, &Msg::Hb(Hb { live_seq }), None, Kind::Dgram);
            self.lives.push(SentLive { phone, chan, live_seq, src_rev: rev, wall_ms, sent_at_ms: now_ms, values, table });
            self.stats.lives_sent += 1;
        }
    }

    fn send_msg(&mut self, chan: u32, m: &Msg, id: Option<u32>, kind: Kind) {
        let mut frame = m.to_frame(id);
        if self.cfg.bugs.ack_on_bulk_lane && matches!(m, Msg::CmdAck(_)) {
            frame.lane = ftw_wire::consts::LANE_BULK;
        }
        let whole_len = frame.payload.len();
        self.send_frame(chan, &frame, kind, (m.type_name(), whole_len));
    }

    /// Seal `frame` in `chan`'s session and send it; `intent` is the envelope type the box
    /// means and the length of the whole envelope (for the tap).
    fn send_frame(&mut self, chan: u32, frame: &Frame, kind: Kind, intent: (&str, usize)) {
        let bucket = self.cfg.control_bucket;
        let Some(s) = self.sessions.get_mut(&chan) else {
            return;
        };
        let mut bytes = frame.encode(bucket).expect("box frames fit their bucket");
        if self.cfg.bugs.pad_not_zeroed && bytes.len() > ftw_wire::consts::FRAME_HEADER_LEN + frame.payload.len() {
            *bytes.last_mut().expect("a padded frame") = 0xa5;
        }
        let sealed = s.session.seal(&bytes).expect("session seals");
        let tapped = self.tap.is_some().then(|| (s.session.handshake_hash(), s.session.send_key(), sealed.clone()));
        let send_kind = match kind {
            Kind::Bulk => SendKind::Bulk,
            Kind::Dgram => SendKind::Datagram,
            _ => SendKind::Message,
        };
        let went = self.send_up(UpMsg { kind, chan, payload: sealed }, send_kind);
        if let (Some(tap), Some((session, key, msg))) = (self.tap.as_mut(), tapped) {
            let (t, whole_len) = intent;
            tap.push(SealedFrame { session, initiator: false, key, t: t.to_string(), whole_len, kind: went, msg });
        }
    }
}

/// Lane 0's frame of a tick: a `tick` when nothing `changed`, else a `delta` cut to fit
/// `bucket` (the ids left out returned). With it the envelope type and the whole message's
/// length (`tapping`: the whole delta encoded again to tell it, only while the tap is on).
fn lane0_frame(seq: u64, changed: &BTreeMap<u32, i64>, bucket: ControlBucket, tapping: bool, trunc_bug: bool) -> (Frame, (&'static str, usize), Vec<u32>) {
    if changed.is_empty() {
        let frame = Msg::Tick { seq: Some(seq) }.to_frame(None);
        let whole_len = frame.payload.len();
        return (frame, ("tick", whole_len), vec![]);
    }
    let (mut frame, dropped) = fit_delta(seq, &IdMap(changed.clone()), bucket);
    if trunc_bug && dropped.is_empty() {
        frame.flags |= ftw_wire::consts::FLAG_TRUNC;
    }
    let whole_len = match tapping && !dropped.is_empty() {
        true => Msg::Delta(Delta { seq, fields: IdMap(changed.clone()) }).encode(None).len(),
        false => frame.payload.len(),
    };
    (frame, ("delta", whole_len), dropped)
}

fn period_ms(sub: &Subscription) -> u64 {
    if sub.hidden {
        consts::LANE0_HIDDEN_PERIOD_MS
    } else {
        consts::LANE0_VISIBLE_PERIOD_MS
    }
}

fn arg_i64(args: &Value, key: &str) -> Option<i64> {
    let Value::Map(m) = args else { return None };
    m.iter().find(|(k, _)| k.as_text() == Some(key)).and_then(|(_, v)| v.as_integer()).and_then(|i| i64::try_from(i).ok())
}

/// The envelope bytes of a `live`, with the extra body key `table` when given.
pub fn live_payload(live: &Live, table: Option<&[String]>) -> Vec<u8> {
    let mut env = Msg::Live(live.clone()).to_envelope(None);
    if let (Some(names), Some(Value::Map(body))) = (table, env.b.as_mut()) {
        body.push((Value::Text("table".into()), Value::Array(names.iter().map(|n| Value::Text(n.clone())).collect())));
    }
    env.encode()
}

/// The `table` key of a `live` envelope's body, if present (see [`live_payload`]).
pub fn live_table(envelope_bytes: &[u8]) -> Option<Vec<String>> {
    let env = ftw_wire::Envelope::decode(envelope_bytes).ok()?;
    let Some(Value::Map(body)) = env.b else {
        return None;
    };
    let (_, v) = body.into_iter().find(|(k, _)| k.as_text() == Some("table"))?;
    let Value::Array(items) = v else { return None };
    items.into_iter().map(|i| i.into_text().ok()).collect()
}

#[cfg(test)]
mod tests;
