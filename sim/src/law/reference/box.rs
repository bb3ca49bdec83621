//! The box's reference (law `box-agrees-with-spec`): a second box written from
//! SPEC.md §1-4 and §6 and, where the SPEC says "chosen here", from the box
//! model's written docs (models/box/src/lib.rs crate docs, consts.rs, uplink.rs).
//! It replays each box's journal (config, inputs, the box's plaintext notes of what
//! it read and decided, its outputs) and checks every decision:
//!
//! * session limit: a paired phone's message 1 gets message 2 while fewer than four
//!   sessions are open, else `Close 4429`; an unpaired one `Close 4403` and nothing
//!   else; an unreadable one `Close 4400`; a phone that opens again loses its old
//!   session (`Close 1000`) first (box docs "a phone session" 1);
//! * lane-0 cadence: every session's lane-0 frames come every 1 s while visible and
//!   every 5 s while hidden (SPEC §6), exactly on time in a steady state; after a
//!   `hello` that changes the period, the next comes no sooner than the shorter period
//!   after the last one and no later than the new period after the change (every
//!   SPEC-conforming way to move to the new period passes); `seq` counts from 1;
//! * `live` then `hb` with each lane-0 frame when subscribed, `liveSeq` going up by one
//!   per phone across sessions, stamped with the box's wall clock, carrying the table
//!   the first time and after a table change, a snapshot before the first frame of a
//!   new table (SPEC §3, §4 "View"; box docs 3-4);
//! * commands: `cmd.ack` at once echoing the envelope id and the command id, accepted
//!   for the known ops unless expired; `cmd.result` 200 ms later for an accepted one,
//!   echoing both ids (box docs 5);
//! * `hello` answered by `hello_ok` (id echoed) and a `snap` on the bulk lane (SPEC §2);
//! * uplink backoff: the first dial at once, each redial after a delay in
//!   [ceiling/2, ceiling], ceiling 1 s doubling per failure to a 60 s cap, back to 1 s
//!   after an uplink that stayed up 60 s (box docs "Uplink and reconnects");
//! * a phone message the relay corrupted (`corrupt_message` toward the box, journaled
//!   as tampered) never opens: no `hello` or `cmd` is read from it, nothing answers it
//!   (SPEC §2, the AEAD; box docs: "a message that does not open is dropped");
//! * its counters count what happened, after every call (box docs, `BoxStats`): dials,
//!   uplinks up, challenges answered, 4403s to strangers, 4429s past the limit,
//!   sessions opened (message 2), commands read, lane-0 frames and lives sent; and
//!   dropped, exactly every input that cannot go anywhere (a message while the uplink
//!   is down, an unreadable one, an `Open` on a channel in use or whose message 1 does
//!   not read, a `Data` for no session or tampered with, a kind the box does not take)
//!   and every session `Data` from which the box read neither a `hello`, a `cmd` nor a
//!   type it ignores (an unknown type is ignored, not dropped: SPEC §2; the box notes it);
//! * every session dies with its uplink; a `Close` from the cloud ends one; nothing is
//!   sent on a channel without a session;
//! * each output on the wire is the message the box decided (kind, lane, channel,
//!   close code: uplink.rs's table);
//! * the cloud's `Challenge` (kind 6, chan 0, a 16-byte nonce) is answered at once by
//!   one `Auth` (kind 7, chan 0, a 32-byte proof) on the stream; the proof's bytes are
//!   the cloud reference's to check (this journal keeps no payloads).
//!
//! What it cannot see: the site's values (deltas versus ticks) and whether the site
//! has a battery (`battery.hold`'s `ok`); those are accepted either way.

use std::collections::{BTreeMap, BTreeSet, VecDeque};

use crate::law::rules;
use crate::world::journal::r#box::{BoxNote, BoxStats, BoxStep, Key, SendKind, Sent};
use crate::world::journal::{Entry, Step};
use crate::world::switch::Switch;

use super::{differs, Lockstep, Reference, R};
use crate::law::spec::close as code;
use crate::law::spec::uplink as kind;
use crate::law::spec::uplink::NONCE_LEN;
use crate::law::{Judge, Law};

/// Sessions one box answers at once: the brief and the box docs ("up to four").
const SESSIONS_MAX: usize = 4;
/// Lane-0 period while the view is visible: 1 Hz (SPEC §6).
const VISIBLE_MS: u64 = 1_000;
/// Lane-0 period while the view is hidden: 0.2 Hz (SPEC §6).
const HIDDEN_MS: u64 = 5_000;
/// First reconnect ceiling, doubling per failure (box docs: 1 s doubling to 60 s).
const BACKOFF_FIRST_MS: u64 = 1_000;
/// Largest reconnect ceiling (box docs, consts.rs `BACKOFF_CAP_MS`: 60 s).
const BACKOFF_CAP_MS: u64 = 60_000;
/// An uplink up this long resets the backoff (box docs: "stayed up 60 s").
const RESET_UP_MS: u64 = 60_000;
/// `cmd.result` comes this long after `cmd.ack` (box docs 5: "200 ms later").
const CMD_APPLY_MS: u64 = 200;
/// The uplink target: "/box/" then the box id (box docs, consts.rs: chosen there).
const TARGET_PREFIX: &str = "/box/";
/// The ops a box knows (box docs 5).
const OPS: &[&str] = &["battery.hold", "site.mode.set"];

pub const BOX: Reference = Reference {
    law: Law::new(
        "box-agrees-with-spec",
        "the box, replayed against a reference written from the SPEC: session limit, pairing, lane-0 cadence, live sequence, commands, uplink backoff",
    )
    .checks(&[
        &rules::REPLY_ECHOES_ID,
        &rules::UNOPENED_NEVER_READ,
        &rules::LIVE_READABLE_COPY,
        &rules::BOX_0RTT_PHONE_NEVER,
        &rules::NOTHING_AFTER_END,
        &rules::LANE0_RATE,
        &rules::CMD_ACK_RESULT,
    ])
    .broken_by(&[Switch::BoxKeepsClosedSessions])
    .judged(Judge::Journal(check)),
    planted: &[],
};

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Uplink {
    Down { next_ms: u64 },
    Dialing,
    Up { since_ms: u64, datagrams: bool },
}

#[derive(Debug)]
struct Sess {
    phone: Key,
    lane0_seq: u64,
    /// The subscription (hidden, live) once a `hello` came.
    sub: Option<(bool, bool)>,
    /// The last lane-0 frame (or the first `hello`) and the period then.
    base_ms: u64,
    base_period: u64,
    /// The latest `hello` since `base_ms`.
    changed_ms: Option<u64>,
    snap_rev: Option<u64>,
    live_rev: Option<u64>,
}

impl Sess {
    fn period(&self) -> u64 {
        match self.sub {
            Some((true, _)) => HIDDEN_MS,
            _ => VISIBLE_MS,
        }
    }

    /// When the next lane-0 frame may and must come.
    fn window(&self) -> Option<(u64, u64)> {
        self.sub?;
        let p = self.period();
        Some(match self.changed_ms {
            None => (self.base_ms + p, self.base_ms + p),
            Some(h) => (self.base_ms + p.min(self.base_period), self.base_ms.max(h) + p),
        })
    }
}

#[derive(Debug)]
struct Pending {
    due_ms: u64,
    chan: u32,
    id: Option<u32>,
    cmd_id: String,
    op: String,
}

/// A note the box must write next.
#[derive(Debug, Clone)]
enum Want {
    Exact(u32, Sent),
    /// A `snap` of any revision (the site's table is the box's own).
    Snap(u32),
    Ack {
        chan: u32,
        id: Option<u32>,
        cmd_id: String,
        accepted: bool,
        codes: Vec<Option<String>>,
    },
}

/// What the call being replayed allows.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Call {
    None,
    Timeout,
    /// An `Open(chan)` on a new channel: the box must read its message 1.
    Open {
        chan: u32,
        read: bool,
    },
    /// A `Data(chan)` of a session: it may decode to one `hello` or `cmd`.
    Data {
        chan: u32,
        decoded: bool,
    },
    /// A `Data(chan)` the relay corrupted: it must not open (SPEC §2: the frame
    /// is AEAD-sealed; box docs: "a message that does not open is dropped").
    Tampered {
        chan: u32,
    },
}

/// What the reference counted (the model's `BoxStats`, field for field; a session
/// message is a drop unless the box read a `hello`, a `cmd` or a type it ignores).
#[derive(Debug, Default)]
struct Counts {
    dials: u64,
    uplinks_up: u64,
    challenges_answered: u64,
    refused_unpaired: u64,
    refused_busy: u64,
    sessions_opened: u64,
    cmds: u64,
    lane0_sent: u64,
    lives_sent: u64,
    dropped: u64,
}

impl Counts {
    /// The first counter where the model's differs; `open_data`: the call now is a
    /// session `Data` nothing was read from: a drop, counted by the model already.
    fn differ(&self, m: &BoxStats, open_data: bool) -> Option<String> {
        let exact = [
            ("dials", m.dials, self.dials),
            ("uplinks_up", m.uplinks_up, self.uplinks_up),
            ("challenges_answered", m.challenges_answered, self.challenges_answered),
            ("refused_unpaired", m.refused_unpaired, self.refused_unpaired),
            ("refused_busy", m.refused_busy, self.refused_busy),
            ("sessions_opened", m.sessions_opened, self.sessions_opened),
            ("cmds", m.cmds, self.cmds),
            ("lane0_sent", m.lane0_sent, self.lane0_sent),
            ("lives_sent", m.lives_sent, self.lives_sent),
        ];
        if let Some((name, model, spec)) = exact.into_iter().find(|(_, a, b)| a != b) {
            return Some(format!("{name} = {model}, not {spec}"));
        }
        let dropped = self.dropped + u64::from(open_data);
        (m.dropped != dropped).then(|| format!("dropped = {}, not {dropped}", m.dropped))
    }

    /// A note the reference checked, counted.
    fn sent(&mut self, what: &Sent) {
        match what {
            Sent::Msg2 => self.sessions_opened += 1,
            Sent::Close { code: code::FORBIDDEN } => self.refused_unpaired += 1,
            Sent::Close { code: code::BUSY } => self.refused_busy += 1,
            Sent::Close { code: code::BAD } => self.dropped += 1,
            Sent::Lane0 { .. } => self.lane0_sent += 1,
            Sent::Live { .. } => self.lives_sent += 1,
            _ => {}
        }
    }
}

struct Ref {
    counts: Counts,
    box_id: String,
    paired: BTreeSet<Key>,
    wall_base: u64,
    uplink: Uplink,
    failures: u32,
    /// A `Redial` must follow (the failure's time and ceiling).
    redial: Option<(u64, u64)>,
    sessions: BTreeMap<u32, Sess>,
    last_live: BTreeMap<Key, u64>,
    pending: Vec<Pending>,
    call: Call,
    call_ms: u64,
    next: VecDeque<Want>,
    /// Outputs the notes announced: (how, kind, chan, close code).
    wire: VecDeque<(SendKind, u8, u32, Option<u16>)>,
}

/// The law's check: `None` when no box ran.
pub fn check(journal: &[Entry]) -> Option<Lockstep> {
    let mut boxes: BTreeMap<&str, Ref> = BTreeMap::new();
    let mut steps = 0;
    for (index, e) in journal.iter().enumerate() {
        let fail = |(model, spec): (String, String)| Some(Lockstep::Differs { index, entry: e.describe(), model, spec });
        for b in boxes.values() {
            if let Err(d) = b.overdue(e.t_ms) {
                return fail(d);
            }
        }
        let Step::Box(s) = &e.step else { continue };
        steps += 1;
        let r = match (s, boxes.get_mut(e.host.as_str())) {
            (BoxStep::Config { box_id, paired, wall_base_ms, .. }, _) => {
                boxes.insert(&e.host, Ref::new(box_id, paired, *wall_base_ms, e.t_ms));
                Ok(())
            }
            (_, None) => differs(format!("{s:?}"), "a box journals its config first"),
            (s, Some(b)) => b.step(e.t_ms, s),
        };
        if let Err(d) = r {
            return fail(d);
        }
    }
    if steps == 0 {
        return None;
    }
    for b in boxes.values_mut() {
        if let Err(d) = b.finish_call() {
            return Some(super::at_end(journal, d));
        }
    }
    Some(Lockstep::Agreed { steps })
}

fn ceiling(failures: u32) -> u64 {
    if failures >= 7 {
        return BACKOFF_CAP_MS;
    }
    (BACKOFF_FIRST_MS << failures).min(BACKOFF_CAP_MS)
}

impl Ref {
    fn new(box_id: &str, paired: &[Key], wall_base: u64, t: u64) -> Ref {
        Ref {
            counts: Counts::default(),
            box_id: box_id.to_string(),
            paired: paired.iter().copied().collect(),
            wall_base,
            // The first dial is due at once (box docs).
            uplink: Uplink::Down { next_ms: t },
            failures: 0,
            redial: None,
            sessions: BTreeMap::new(),
            last_live: BTreeMap::new(),
            pending: Vec::new(),
            call: Call::None,
            call_ms: 0,
            next: VecDeque::new(),
            wire: VecDeque::new(),
        }
    }

    /// Something the box had to do before `t`: a dial, a lane-0 frame, a command result.
    fn overdue(&self, t: u64) -> R {
        if let Uplink::Down { next_ms } = self.uplink {
            if t > next_ms && self.redial.is_none() {
                return differs("no dial yet", format!("the box dials at {next_ms} ms, when its backoff delay ends"));
            }
        }
        for (chan, s) in &self.sessions {
            if let Some((_, hi)) = s.window().filter(|(_, hi)| t > *hi) {
                return differs(format!("no lane-0 frame on chan {chan} yet"), format!("one by {hi} ms (1 Hz visible, 0.2 Hz hidden: SPEC §6)"));
            }
        }
        if let Some(p) = self.pending.iter().find(|p| t > p.due_ms && self.sessions.contains_key(&p.chan)) {
            return differs(format!("no cmd.result for {} yet", p.cmd_id), format!("cmd.result at {} ms, 200 ms after cmd.ack", p.due_ms));
        }
        Ok(())
    }

    /// The call before is over: everything it had to produce came.
    fn finish_call(&mut self) -> R {
        if let Some(w) = self.next.front() {
            return differs("nothing more", format!("{w:?}"));
        }
        if matches!(self.call, Call::Data { decoded: false, .. }) {
            // Nothing read from it, not even a type to ignore: it did not open or decode.
            self.counts.dropped += 1;
        }
        match self.call {
            Call::Open { chan, read: false } => return differs("message 1 not read", format!("an answer to Open on chan {chan}: message 2 or a close")),
            Call::Timeout => {
                let t = self.call_ms;
                if let Some(p) = self.pending.iter().find(|p| p.due_ms <= t && self.sessions.contains_key(&p.chan)) {
                    return differs("no cmd.result", format!("cmd.result for {} (due {} ms)", p.cmd_id, p.due_ms));
                }
                if let Some((chan, hi)) = self.sessions.iter().find_map(|(c, s)| s.window().filter(|w| w.1 <= t).map(|w| (c, w.1))) {
                    return differs(format!("no lane-0 frame on chan {chan}"), format!("one by {hi} ms (SPEC §6)"));
                }
            }
            _ => {}
        }
        self.call = Call::None;
        Ok(())
    }

    fn step(&mut self, t: u64, s: &BoxStep) -> R {
        match s {
            BoxStep::Note(n) => self.note(t, n),
            BoxStep::Send { kind, header, close, .. } => self.output(*kind, *header, *close),
            BoxStep::Dial { target } => self.dial(t, target),
            BoxStep::Redial { next_dial_ms } => self.redial(t, *next_dial_ms),
            BoxStep::CloseUplink { code } => differs(format!("close the uplink ({code})"), "the box ends its uplink only when told to (no driver tells it)"),
            BoxStep::Config { .. } => Ok(()),
            // Per-session state is released when a session ends (issue 14 §3: the state after the end).
            BoxStep::Holds { sessions, .. } if *sessions != self.sessions.len() => {
                differs(format!("holds {sessions} sessions"), format!("{} sessions open", self.sessions.len()))
            }
            BoxStep::Holds { stats, .. } => match self.counts.differ(stats, matches!(self.call, Call::Data { decoded: false, .. })) {
                Some(d) => differs(format!("counts {d}"), "what happened"),
                None => Ok(()),
            },
            input => {
                self.finish_call()?;
                if let Some(r) = self.redial {
                    return differs(format!("{input:?}"), format!("a redial scheduled after the failure at {} ms", r.0));
                }
                self.call_ms = t;
                self.input(t, input)
            }
        }
    }

    fn input(&mut self, t: u64, s: &BoxStep) -> R {
        match *s {
            BoxStep::Timeout => {
                // A dial due now is decided in this call (its output follows the call's Holds).
                if matches!(self.uplink, Uplink::Down { next_ms } if t >= next_ms) {
                    self.counts.dials += 1;
                }
                self.call = Call::Timeout;
            }
            BoxStep::UplinkUp { datagrams } => {
                if self.uplink != Uplink::Dialing {
                    return differs("uplink up", "an uplink opens only after a dial");
                }
                self.counts.uplinks_up += 1;
                self.uplink = Uplink::Up { since_ms: t, datagrams };
            }
            BoxStep::UplinkFailed => {
                if self.uplink != Uplink::Dialing {
                    return differs("dial failed", "a dial fails only after a dial");
                }
                self.fail(t);
            }
            BoxStep::Closed { .. } => match self.uplink {
                Uplink::Up { since_ms, .. } => {
                    if t - since_ms >= RESET_UP_MS {
                        self.failures = 0;
                    }
                    // Every session dies with its uplink (box docs).
                    self.sessions.clear();
                    self.pending.clear();
                    self.fail(t);
                }
                Uplink::Dialing => self.fail(t),
                Uplink::Down { .. } => {}
            },
            BoxStep::Up { header: Some((k, chan)), len, tampered, .. } if matches!(self.uplink, Uplink::Up { .. }) => self.up(k, chan, len, tampered),
            // A message while the uplink is down, or too short to read.
            BoxStep::Up { .. } => self.counts.dropped += 1,
            _ => {}
        }
        Ok(())
    }

    fn fail(&mut self, t: u64) {
        self.redial = Some((t, ceiling(self.failures)));
        self.failures = self.failures.saturating_add(1);
        self.uplink = Uplink::Dialing;
    }

    fn redial(&mut self, t: u64, next: u64) -> R {
        let Some((at, ceil)) = self.redial.take() else {
            return differs(format!("redial at {next} ms"), "no failure to redial after");
        };
        let delay = next.saturating_sub(at);
        if next < t || delay < ceil / 2 || delay > ceil {
            return differs(
                format!("redial after {delay} ms"),
                format!("a delay in [{}, {ceil}] ms (ceiling 1 s doubling to 60 s, reset after 60 s up)", ceil / 2),
            );
        }
        self.uplink = Uplink::Down { next_ms: next };
        Ok(())
    }

    fn dial(&mut self, t: u64, target: &str) -> R {
        let want = format!("{TARGET_PREFIX}{}", self.box_id);
        match self.uplink {
            Uplink::Down { next_ms } if t >= next_ms && target == want => {
                self.uplink = Uplink::Dialing;
                Ok(())
            }
            Uplink::Down { next_ms } if t >= next_ms => differs(format!("dial {target}"), format!("dial {want}")),
            u => differs(format!("dial at {t} ms"), format!("no dial now (uplink {u:?})")),
        }
    }

    /// An uplink message from the cloud.
    fn up(&mut self, k: u8, chan: u32, len: usize, tampered: bool) {
        match k {
            kind::DATA if tampered => {
                self.counts.dropped += 1;
                self.call = Call::Tampered { chan };
            }
            kind::CHALLENGE if chan == 0 && len == 5 + NONCE_LEN => {
                self.counts.challenges_answered += 1;
                self.wire.push_back((SendKind::Message, kind::AUTH, 0, None));
            }
            kind::OPEN if !self.sessions.contains_key(&chan) => self.call = Call::Open { chan, read: false },
            kind::DATA if self.sessions.contains_key(&chan) => self.call = Call::Data { chan, decoded: false },
            kind::CLOSE => {
                self.sessions.remove(&chan);
                self.pending.retain(|p| p.chan != chan);
            }
            // An Open on a channel in use, a Data for no session, a kind the box does not take.
            _ => self.counts.dropped += 1,
        }
    }

    fn output(&mut self, how: SendKind, header: Option<(u8, u32)>, close: Option<u16>) -> R {
        let got = header.map(|(k, c)| (how, k, c, close));
        match self.wire.pop_front() {
            Some(w) if Some(w) == got => Ok(()),
            w => differs(format!("send {got:?}"), format!("the message it decided: {w:?}")),
        }
    }

    fn note(&mut self, t: u64, n: &BoxNote) -> R {
        if let Some(w) = self.next.pop_front() {
            let BoxNote::Sent { chan, what } = n else {
                return differs(format!("{n:?}"), format!("{w:?}"));
            };
            self.wanted(&w, *chan, what)?;
            return self.announce(*chan, what);
        }
        match n {
            BoxNote::Read { chan, phone } => self.read(*chan, *phone),
            BoxNote::Hello { chan, id, hidden, live } => self.hello(t, *chan, *id, (*hidden, *live)),
            BoxNote::Cmd { chan, id, cmd_id, op, not_valid_after_ms } => self.cmd(t, *chan, *id, cmd_id, op, *not_valid_after_ms),
            BoxNote::Ignored { chan } => self.decoded(*chan),
            BoxNote::Sent { chan, what } if self.call == Call::Timeout => {
                self.timed(t, *chan, what)?;
                self.announce(*chan, what)
            }
            BoxNote::Sent { .. } => differs(format!("{n:?}"), "nothing sent in this call"),
        }
    }

    /// A note against what had to come next.
    fn wanted(&mut self, w: &Want, chan: u32, what: &Sent) -> R {
        let ok = match (w, what) {
            (Want::Exact(c, s), _) => *c == chan && s == what,
            (Want::Snap(c), Sent::Snap { rev }) if *c == chan => {
                if let Some(s) = self.sessions.get_mut(&chan) {
                    s.snap_rev = Some(*rev);
                }
                true
            }
            (Want::Ack { chan: c, id, cmd_id, accepted, codes }, Sent::Ack { id: i, cmd_id: ci, accepted: a, code })
                if *c == chan && id == i && cmd_id == ci && accepted == a && codes.contains(code) =>
            {
                true
            }
            _ => false,
        };
        if ok {
            Ok(())
        } else {
            differs(format!("chan {chan} {what:?}"), format!("{w:?}"))
        }
    }

    /// Queue the wire message a sent note stands for (uplink.rs's table).
    fn announce(&mut self, chan: u32, what: &Sent) -> R {
        self.counts.sent(what);
        let datagrams = matches!(self.uplink, Uplink::Up { datagrams: true, .. });
        let w = match what {
            Sent::Close { code } => (SendKind::Message, kind::CLOSE, chan, Some(*code)),
            Sent::HelloOk { .. } | Sent::Snap { .. } => (SendKind::Bulk, kind::BULK, chan, None),
            Sent::Live { .. } | Sent::Hb { .. } if datagrams => (SendKind::Datagram, kind::DGRAM, chan, None),
            Sent::Live { .. } | Sent::Hb { .. } => (SendKind::Message, kind::DGRAM, chan, None),
            _ => (SendKind::Message, kind::DATA, chan, None),
        };
        self.wire.push_back(w);
        Ok(())
    }

    /// Message 1 read: pairing, one session per phone, the session limit.
    fn read(&mut self, chan: u32, phone: Option<Key>) -> R {
        if self.call != (Call::Open { chan, read: false }) {
            return differs(format!("read message 1 on chan {chan}"), "no new Open on that channel in this call");
        }
        self.call = Call::Open { chan, read: true };
        let Some(phone) = phone else {
            self.next.push_back(Want::Exact(chan, Sent::Close { code: code::BAD }));
            return Ok(());
        };
        if !self.paired.contains(&phone) {
            // No message 2 to a stranger.
            self.next.push_back(Want::Exact(chan, Sent::Close { code: code::FORBIDDEN }));
            return Ok(());
        }
        let stale: Vec<u32> = self.sessions.iter().filter(|(_, s)| s.phone == phone).map(|(c, _)| *c).collect();
        for old in stale {
            self.sessions.remove(&old);
            self.pending.retain(|p| p.chan != old);
            self.next.push_back(Want::Exact(old, Sent::Close { code: code::NORMAL }));
        }
        if self.sessions.len() >= SESSIONS_MAX {
            self.next.push_back(Want::Exact(chan, Sent::Close { code: code::BUSY }));
            return Ok(());
        }
        let s = Sess { phone, lane0_seq: 0, sub: None, base_ms: 0, base_period: VISIBLE_MS, changed_ms: None, snap_rev: None, live_rev: None };
        self.sessions.insert(chan, s);
        self.next.push_back(Want::Exact(chan, Sent::Msg2));
        Ok(())
    }

    fn decoded(&mut self, chan: u32) -> R {
        if self.call == (Call::Tampered { chan }) {
            return differs(format!("a message decoded on chan {chan}"), "nothing: the relay corrupted it, so it does not open and is dropped");
        }
        if self.call != (Call::Data { chan, decoded: false }) {
            return differs(format!("a message decoded on chan {chan}"), "no session message on that channel in this call");
        }
        self.call = Call::Data { chan, decoded: true };
        Ok(())
    }

    fn hello(&mut self, t: u64, chan: u32, id: Option<u32>, sub: (bool, bool)) -> R {
        self.decoded(chan)?;
        let s = self.sessions.get_mut(&chan).expect("decoded on a session");
        if s.sub.is_none() {
            s.base_ms = t;
            s.changed_ms = None;
        } else {
            s.changed_ms = Some(t);
        }
        s.sub = Some(sub);
        if s.changed_ms.is_none() {
            s.base_period = s.period();
        }
        self.next.push_back(Want::Exact(chan, Sent::HelloOk { id }));
        self.next.push_back(Want::Snap(chan));
        Ok(())
    }

    fn cmd(&mut self, t: u64, chan: u32, id: Option<u32>, cmd_id: &str, op: &str, not_valid_after: u64) -> R {
        self.decoded(chan)?;
        self.counts.cmds += 1;
        let expired = not_valid_after < self.wall_base + t;
        let known = OPS.contains(&op);
        let codes = match (expired, known) {
            (false, true) => vec![None],
            (true, true) => vec![Some("E_CMD_EXPIRED".to_string())],
            (false, false) => vec![Some("E_UNKNOWN_OP".to_string())],
            // Both apply: the docs do not rank them, either code is right.
            (true, false) => vec![Some("E_CMD_EXPIRED".to_string()), Some("E_UNKNOWN_OP".to_string())],
        };
        let accepted = !expired && known;
        self.next.push_back(Want::Ack { chan, id, cmd_id: cmd_id.to_string(), accepted, codes });
        if accepted {
            self.pending.push(Pending { due_ms: t + CMD_APPLY_MS, chan, id, cmd_id: cmd_id.to_string(), op: op.to_string() });
        }
        Ok(())
    }

    /// What a timeout may send unprompted: a due command result, a lane-0 frame.
    fn timed(&mut self, t: u64, chan: u32, what: &Sent) -> R {
        match what {
            Sent::Result { id, cmd_id, ok } => {
                let Some(i) = self.pending.iter().position(|p| p.chan == chan) else {
                    return differs(format!("cmd.result {cmd_id} on chan {chan}"), "no accepted command waiting on that channel");
                };
                let p = self.pending.remove(i);
                let ok_right = p.op != "site.mode.set" || *ok;
                if p.due_ms != t || p.id != *id || p.cmd_id != *cmd_id || !ok_right {
                    return differs(
                        format!("cmd.result {cmd_id} id {id:?} ok {ok} at {t} ms"),
                        format!("cmd.result {} id {:?} at {} ms", p.cmd_id, p.id, p.due_ms),
                    );
                }
                Ok(())
            }
            Sent::Snap { rev } => {
                let Some(s) = self.sessions.get_mut(&chan).filter(|s| s.snap_rev != Some(*rev)) else {
                    return differs(format!("snap rev {rev} on chan {chan}"), "a snap unprompted only for a session whose table changed");
                };
                s.snap_rev = Some(*rev);
                Ok(())
            }
            Sent::Lane0 { seq, rev } => self.lane0(t, chan, *seq, *rev),
            other => differs(format!("{other:?} on chan {chan}"), "a timeout sends lane-0 frames and command results"),
        }
    }

    fn lane0(&mut self, t: u64, chan: u32, seq: u64, rev: u64) -> R {
        let Some(s) = self.sessions.get_mut(&chan) else {
            return differs(format!("lane-0 on chan {chan}"), "no session on that channel");
        };
        let Some((lo, hi)) = s.window() else {
            return differs(format!("lane-0 on chan {chan}"), "lane 0 starts after the hello");
        };
        if t < lo || t > hi {
            return differs(format!("lane-0 at {t} ms"), format!("lane-0 between {lo} and {hi} ms (1 Hz visible, 0.2 Hz hidden: SPEC §6)"));
        }
        if seq != s.lane0_seq + 1 || s.snap_rev != Some(rev) {
            return differs(
                format!("lane-0 seq {seq} at table {rev}"),
                format!("seq {} at the table last given, {:?} (a new table goes first as a snap)", s.lane0_seq + 1, s.snap_rev),
            );
        }
        s.lane0_seq = seq;
        s.base_ms = t;
        s.changed_ms = None;
        s.base_period = s.period();
        if s.sub.is_some_and(|(_, live)| live) {
            let live_seq = self.last_live.get(&s.phone).copied().unwrap_or(0) + 1;
            self.last_live.insert(s.phone, live_seq);
            let table = s.live_rev != Some(rev);
            s.live_rev = Some(rev);
            self.next.push_back(Want::Exact(chan, Sent::Live { live_seq, rev, wall_ms: self.wall_base + t, table }));
            self.next.push_back(Want::Exact(chan, Sent::Hb { live_seq }));
        }
        Ok(())
    }
}
