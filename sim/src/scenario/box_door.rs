//! `box-door`: the box's door for phone sessions at its limits, with no
//! network. A fake cloud on the box's uplink hands the real box model
//! (`ftw_box::BoxNode`) `Open(chan, m1)` from seven phones (five paired, two
//! not), a phone opening again on a new channel, the same channel twice,
//! garbage where message 1 should be (a stranger), closes, and the uplink
//! dropping and coming back, at times drawn from the run seed. Phones whose
//! session opened send `hello`s (visible or hidden, live or not, some fields or
//! all: the lane-0 cadence and its changes) and `cmd`s (known and unknown ops,
//! valid until a millisecond before, at or after the box's clock), messages of a
//! type the box does not take, frames that open but hold no envelope, and
//! messages the relay corrupted. The fake cloud
//! also sends what a cloud should not: messages while the uplink is down, a
//! `Data` for no session, bytes too short for a header, kinds the box does not
//! take, challenges of the wrong size or channel (and genuine ones), any of it
//! as a stream message or a datagram; and the box's dials fail, or end before
//! they open, as well as succeed. A network plan
//! never reaches these: every other scenario has one phone, so the box's
//! session limit (four, then 4429) is never met. Issue 14 section 3 ("an
//! attacker or a stranger wherever the SPEC has a defence"; every boundary a
//! rule has). The box's reference (`box-agrees-with-spec`) judges every step;
//! the law here is the state after the end: once the cloud has closed every
//! channel, the box holds no session.

use std::time::Duration;

use std::collections::BTreeMap;

use ftw_box::uplink::{Kind, LinkOp, UpMsg};
use ftw_box::{BoxConfig, BoxNode, BoxOutput};
use ftw_wire::consts::FLAG_TRUNC;
use ftw_wire::envelope::{Cmd, Hb, Hello, ProtoRange, Subscription};
use ftw_wire::noise::{HandshakeParams, Initiator, InitiatorAwaitingMsg2, Keypair, SeededResolver};
use ftw_wire::{ControlBucket, Msg, Session};
use rand::{Rng, RngCore};
use rand_chacha::ChaCha20Rng;

use super::def::{RunReport, ScenarioDef};
use crate::drive::app::r#box::{config_step, jot, jot_notes, jot_output, jot_redial};
use crate::drive::rig::Rig;
use crate::law::lane0_picture::Picture;
use crate::law::laws;
use crate::law::reference;
use crate::law::seen::{Held, HeldCounts, Seen};
use crate::law::Check;
use crate::world::domain::Domain;
use crate::world::host::{addr, BOX};
use crate::world::journal::r#box::{header, BoxStep};
use crate::world::switch::Switch;
use crate::world::topology::RunSpec;
use crate::world::trace;

/// Phones that try the box; the first `PAIRED` are paired.
const PHONES: usize = 7;
const PAIRED: usize = 5;
/// Inputs one run hands the box.
const STEPS: usize = 150;

/// The fake cloud, the box, and what the law needs.
struct Door {
    now: u64,
    node: BoxNode,
    rng: ChaCha20Rng,
    phones: Vec<Keypair>,
    box_pub: ftw_wire::noise::Key,
    resolver: SeededResolver,
    /// Channels the fake cloud opened and has not closed.
    open: Vec<u32>,
    next_chan: u32,
    up: bool,
    /// Phones waiting for the box's message 2, by channel.
    waiting: BTreeMap<u32, InitiatorAwaitingMsg2>,
    /// Phones' open box sessions, by channel.
    sessions: BTreeMap<u32, Session>,
    /// The next envelope id a phone puts on a `hello` or `cmd`.
    next_id: u32,
    /// The phones' pictures of the site over lane 0, and the first way one broke.
    picture: Picture,
    picture_fault: Option<String>,
}

pub fn run(spec: &RunSpec) -> RunReport {
    let (outcome, end) = Rig::offline(spec, BOX, addr::BOX, workload);
    let held = end.as_ref().map(|e| e.0);
    let fault = end.and_then(|e| e.1);
    let ok = outcome.result.is_ok() && fault.is_none();
    let detail = fault.unwrap_or_else(|| "every phone's picture showed the site's values after each lane-0 frame".into());
    let checks = vec![Check { law: &laws::LANE0_PICTURE_CURRENT, ok, detail }];
    let counts = held.map(|box_sessions| HeldCounts { box_sessions, cloud_links: 0, relays: 0 });
    let when = "after the cloud closed every channel and the box's deadlines ran".into();
    RunReport::new(outcome, checks).with(Seen { held: Some(Held { settled: true, counts, when }), ..Seen::default() })
}

/// The run; returns how many sessions the box holds at the end, and the first way a
/// phone's lane-0 picture broke its rule.
fn workload(spec: &RunSpec) -> (usize, Option<String>) {
    let mut keys = spec.seed.stream("box-door.keys");
    let box_key = SeededResolver::from_rng(&mut keys).generate_keypair();
    let phones: Vec<Keypair> = (0..PHONES).map(|_| SeededResolver::from_rng(&mut keys).generate_keypair()).collect();
    let paired = phones[..PAIRED].iter().map(|k| k.public).collect();
    let box_pub = box_key.public;
    let mut cfg = BoxConfig::new("box-1", box_key, paired, spec.seed.sub_seed("box-door.site"));
    cfg.switches = spec.switches.wire();
    cfg.bugs = spec.switches.boxn();
    let node = BoxNode::new(cfg, spec.seed.key("box-door.model"));
    jot(BOX, 0, config_step(node.config()));
    let resolver = SeededResolver::from_rng(&mut keys);
    let mut d = Door {
        now: 0,
        node,
        rng: spec.seed.stream("box-door.schedule"),
        phones,
        box_pub,
        resolver,
        open: Vec::new(),
        next_chan: 1,
        up: false,
        waiting: BTreeMap::new(),
        sessions: BTreeMap::new(),
        next_id: 1,
        picture: Picture::default(),
        picture_fault: None,
    };
    d.outputs();
    for _ in 0..STEPS {
        let wait = [0, 1, 999, 1000, 1001, 4999, 5000, 5001, d.rng.random_range(0..20_000)][d.rng.random_range(0..9)];
        d.advance(d.now + wait);
        d.step();
    }
    for chan in std::mem::take(&mut d.open) {
        d.message(&UpMsg::close(chan, 1000).encode());
    }
    d.advance(d.now + 60_000);
    (d.node.session_count(), d.picture_fault)
}

impl Door {
    /// Run the box's deadlines up to `until`.
    fn advance(&mut self, until: u64) {
        while let Some(t) = self.node.poll_timeout().filter(|&t| t <= until) {
            self.now = t.max(self.now);
            jot(BOX, self.now, BoxStep::Timeout);
            self.node.handle_timeout(self.now);
            jot_notes(BOX, self.now, &mut self.node);
            self.outputs();
        }
        self.now = until;
    }

    /// One input, drawn.
    fn step(&mut self) {
        if !self.up {
            return self.step_down();
        }
        match self.rng.random_range(0..20) {
            0..=4 => {
                let chan = self.next_chan;
                self.next_chan += 1;
                let phone = self.rng.random_range(0..PHONES);
                self.open_chan(chan, phone);
            }
            5 if !self.open.is_empty() => {
                // The same channel opened again.
                let chan = self.open[self.rng.random_range(0..self.open.len())];
                self.open_chan(chan, 0);
            }
            6 => {
                // A stranger: bytes that are no message 1.
                let chan = self.next_chan;
                self.next_chan += 1;
                let junk = self.junk(120);
                self.open.push(chan);
                self.message(&UpMsg { kind: Kind::Open, chan, payload: junk }.encode());
            }
            7..=8 if !self.open.is_empty() => {
                let i = self.rng.random_range(0..self.open.len());
                let chan = self.open.swap_remove(i);
                self.forget(chan);
                self.message(&UpMsg::close(chan, 1000).encode());
            }
            9 => self.drop_uplink(),
            10..=11 => self.hello(),
            12..=13 => self.cmd(),
            14..=15 => self.session_odd(),
            _ => self.cloud_odd(),
        }
    }

    /// While the uplink is down: now and then a late message, or a second close.
    fn step_down(&mut self) {
        match self.rng.random_range(0..4) {
            0 => {
                let chan = self.rng.random_range(0..self.next_chan);
                let m = [UpMsg::close(chan, 1000).encode(), UpMsg { kind: Kind::Data, chan, payload: self.junk(40) }.encode()];
                let i = self.rng.random_range(0..2);
                self.message(&m[i]);
            }
            1 => {
                // A close for an uplink already down changes nothing: a new redial time
                // is journaled only if the box made one.
                jot(BOX, self.now, BoxStep::Closed { code: 1006 });
                let before = self.node.uplink();
                self.node.handle_closed(self.now, 1006);
                if self.node.uplink() != before {
                    jot_redial(BOX, self.now, &self.node);
                }
                jot_notes(BOX, self.now, &mut self.node);
                self.outputs();
            }
            _ => {}
        }
    }

    /// The uplink drops; the cloud forgets the box's channels.
    fn drop_uplink(&mut self) {
        jot(BOX, self.now, BoxStep::Closed { code: 1006 });
        self.node.handle_closed(self.now, 1006);
        jot_redial(BOX, self.now, &self.node);
        jot_notes(BOX, self.now, &mut self.node);
        self.up = false;
        self.open.clear();
        self.waiting.clear();
        self.sessions.clear();
        self.picture = Picture::default();
        self.outputs();
    }

    /// Phone `phone` opens `chan` (on a channel with a session, the box must drop it:
    /// the session's phone keeps it).
    fn open_chan(&mut self, chan: u32, phone: usize) {
        let (init, m1) = self.m1(phone);
        if !self.sessions.contains_key(&chan) {
            self.waiting.insert(chan, init);
        }
        if !self.open.contains(&chan) {
            self.open.push(chan);
        }
        self.message(&UpMsg { kind: Kind::Open, chan, payload: m1 }.encode());
    }

    fn forget(&mut self, chan: u32) {
        self.waiting.remove(&chan);
        self.sessions.remove(&chan);
        self.picture.end(chan);
    }

    /// A session drawn from the open ones.
    fn session_chan(&mut self) -> Option<u32> {
        let n = self.sessions.len();
        (n > 0).then(|| *self.sessions.keys().nth(self.rng.random_range(0..n)).expect("in range"))
    }

    /// A `hello` on an open session: visible or hidden, live or not, every field or some.
    fn hello(&mut self) {
        let Some(chan) = self.session_chan() else { return };
        let fields = match self.rng.random_range(0..3) {
            0 => vec![],
            1 => vec![2, 3],
            _ => vec![4, 5, 9],
        };
        self.picture.hello(chan, &fields);
        let sub = Subscription { fields, live: self.rng.random_bool(0.7), hidden: self.rng.random_bool(0.4) };
        let hello = Msg::Hello(Hello { proto: ProtoRange { min: 1, max: 1 }, caps: vec!["live".into()], sub });
        self.send(chan, &hello, true);
    }

    /// A `cmd`: a known op or not, valid until just before, at or after the box's clock.
    fn cmd(&mut self) {
        let Some(chan) = self.session_chan() else { return };
        let op = ["battery.hold", "site.mode.set", "site.reboot"][self.rng.random_range(0..3)];
        let wall = self.node.wall_ms(self.now);
        let not_valid_after_ms = [wall.saturating_sub(1), wall, wall + 1, wall + 30_000][self.rng.random_range(0..4)];
        let args =
            ciborium::Value::Map(vec![(ciborium::Value::Text("setpoint_w".into()), ciborium::Value::Integer(self.rng.random_range(-8_000i64..8_000).into()))]);
        let id = self.next_id;
        let cmd = Msg::Cmd(Cmd { cmd_id: format!("c{id}"), op: op.into(), args, not_valid_after_ms, expect: None });
        self.send(chan, &cmd, true);
    }

    /// On a session: a message of a type the box does not take, or one the relay
    /// corrupted (journaled as tampered), or a `Data` on a channel with no session,
    /// or a frame that opens but holds no envelope (not CBOR, or not a map).
    fn session_odd(&mut self) {
        let Some(chan) = self.session_chan() else { return };
        match self.rng.random_range(0..4) {
            3 => {
                let payload = if self.rng.random_bool(0.5) { self.junk(40) } else { vec![0x01] };
                let frame = ftw_wire::Frame { lane: ftw_wire::consts::LANE_CONTROL, flags: 0, payload };
                let bytes = frame.encode(ControlBucket::default()).expect("a short frame fits lane 0");
                let sealed = self.sessions.get_mut(&chan).expect("session").seal(&bytes).expect("session seals");
                self.message(&UpMsg { kind: Kind::Data, chan, payload: sealed }.encode());
            }
            0 => self.send(chan, &Msg::Hb(Hb { live_seq: 1 }), false),
            1 => {
                let hello =
                    Msg::Hello(Hello { proto: ProtoRange { min: 1, max: 1 }, caps: vec![], sub: Subscription { fields: vec![], live: true, hidden: false } });
                let mut sealed = self.seal(chan, &hello, true);
                let i = self.rng.random_range(0..sealed.len());
                sealed[i] ^= 1 << self.rng.random_range(0..8);
                self.deliver(&UpMsg { kind: Kind::Data, chan, payload: sealed }.encode(), true);
            }
            _ => {
                let junk = self.junk(60);
                self.message(&UpMsg { kind: Kind::Data, chan: self.next_chan + 1_000, payload: junk }.encode());
            }
        }
    }

    /// What a cloud should not send: too short for a header, a kind the box does not
    /// take, a challenge of the wrong size or channel; or a genuine challenge.
    fn cloud_odd(&mut self) {
        let chan = if self.rng.random_bool(0.5) { 0 } else { self.rng.random_range(1..self.next_chan + 2) };
        let nonce_len = [0, 15, 16, 16, 17][self.rng.random_range(0..5)];
        let bytes = match self.rng.random_range(0..5) {
            0 => self.junk(5),
            1 => UpMsg { kind: Kind::Challenge, chan, payload: self.junk_exact(nonce_len) }.encode(),
            2 => UpMsg { kind: Kind::Challenge, chan: 0, payload: self.junk_exact(16) }.encode(),
            3 => UpMsg { kind: [Kind::Bulk, Kind::Dgram, Kind::Auth][self.rng.random_range(0..3)], chan, payload: self.junk(40) }.encode(),
            _ => {
                let mut b = UpMsg { kind: Kind::Data, chan, payload: self.junk(20) }.encode();
                b[0] = [0u8, 8, 255][self.rng.random_range(0..3)];
                b
            }
        };
        self.message(&bytes);
    }

    /// `m` sealed in `chan`'s session, with the next envelope id when `with_id`.
    fn seal(&mut self, chan: u32, m: &Msg, with_id: bool) -> Vec<u8> {
        let id = with_id.then(|| {
            self.next_id += 1;
            self.next_id - 1
        });
        let frame = m.to_frame(id).encode(ControlBucket::default()).expect("phone frames fit lane 0");
        self.sessions.get_mut(&chan).expect("session").seal(&frame).expect("session seals")
    }

    fn send(&mut self, chan: u32, m: &Msg, with_id: bool) {
        let sealed = self.seal(chan, m, with_id);
        self.message(&UpMsg { kind: Kind::Data, chan, payload: sealed }.encode());
    }

    /// Up to `max` random bytes.
    fn junk(&mut self, max: usize) -> Vec<u8> {
        let n = self.rng.random_range(0..max);
        self.junk_exact(n)
    }

    fn junk_exact(&mut self, n: usize) -> Vec<u8> {
        let mut b = vec![0u8; n];
        self.rng.fill_bytes(&mut b);
        b
    }

    /// Message 1 of phone `k`'s box session.
    fn m1(&mut self, k: usize) -> (InitiatorAwaitingMsg2, Vec<u8>) {
        let p = HandshakeParams::box_session_initiator(self.phones[k].clone(), self.box_pub, self.resolver.clone());
        Initiator::new(&p).and_then(|i| i.write_msg1(b"")).expect("message 1")
    }

    /// The fake cloud hands the box an uplink message, as a stream message or (one in
    /// five) a datagram.
    fn message(&mut self, bytes: &[u8]) {
        self.deliver(bytes, false);
    }

    fn deliver(&mut self, bytes: &[u8], tampered: bool) {
        let at = Duration::from_millis(self.now);
        let datagram = self.rng.random_bool(0.2);
        trace::record_at(at, BOX, "box.up", format!("{:?} {} B", header(bytes), bytes.len()));
        jot(BOX, self.now, BoxStep::Up { datagram, header: header(bytes), len: bytes.len(), tampered });
        if datagram {
            self.node.handle_datagram(self.now, bytes);
        } else {
            self.node.handle_message(self.now, bytes);
        }
        jot_notes(BOX, self.now, &mut self.node);
        trace::record_at(at, BOX, "box.holds", self.node.session_count().to_string());
        self.outputs();
    }

    /// Everything the box asks, journaled; a dial is answered at once (up, failed, or
    /// closed before it opened); a phone waiting on a channel reads its message 2.
    fn outputs(&mut self) {
        while let Some(out) = self.node.poll_output() {
            jot_output(BOX, self.now, &out);
            match out {
                BoxOutput::Dial { .. } => self.dial_answer(),
                BoxOutput::Link(LinkOp::Send { bytes, .. }) => self.pass_to_phone(&bytes),
                BoxOutput::Link(LinkOp::Close { .. }) => {}
            }
        }
    }

    fn dial_answer(&mut self) {
        let step = match self.rng.random_range(0..10) {
            0 => BoxStep::UplinkFailed,
            1 => BoxStep::Closed { code: 1006 },
            _ => BoxStep::UplinkUp { datagrams: self.rng.random_bool(0.7) },
        };
        jot(BOX, self.now, step.clone());
        match step {
            BoxStep::UplinkFailed => self.node.handle_uplink_failed(self.now),
            BoxStep::Closed { code } => self.node.handle_closed(self.now, code),
            BoxStep::UplinkUp { datagrams } => {
                self.node.handle_uplink_up(self.now, datagrams);
                self.up = true;
            }
            _ => unreachable!("drawn above"),
        }
        jot_redial(BOX, self.now, &self.node);
        jot_notes(BOX, self.now, &mut self.node);
    }

    /// The fake cloud passes what the box sent on a channel to its phone: the first
    /// `Data` on a channel waiting for the box is message 2.
    fn pass_to_phone(&mut self, bytes: &[u8]) {
        let Some(m) = UpMsg::decode(bytes) else { return };
        match m.kind {
            Kind::Data if self.waiting.contains_key(&m.chan) => {
                let init = self.waiting.remove(&m.chan).expect("checked");
                let (_, session) = init.read_msg2(&m.payload).expect("the box's message 2 reads");
                self.sessions.insert(m.chan, session);
            }
            Kind::Data | Kind::Bulk | Kind::Dgram => self.read(m.chan, &m.payload),
            Kind::Close => self.forget(m.chan),
            _ => {}
        }
    }

    /// The phone on `chan` opens what the box sent it; lane 0 and snapshots go to its
    /// picture of the site.
    fn read(&mut self, chan: u32, sealed: &[u8]) {
        let Some(session) = self.sessions.get_mut(&chan) else { return };
        let got = session.open(sealed).map_err(|e| format!("{e:?}")).and_then(|f| {
            let trunc = f.flags & FLAG_TRUNC != 0;
            Msg::decode(&f.payload).map(|(_, m)| (m, trunc)).map_err(|e| format!("{e:?}"))
        });
        let verdict = match got {
            Ok((m, trunc)) => self.picture.frame(chan, &m, trunc, &self.node.site().values_by_fid()),
            Err(e) => Err(format!("chan {chan}: a box message does not open: {e}")),
        };
        if let (Err(e), None) = (verdict, &self.picture_fault) {
            self.picture_fault = Some(format!("at {} ms, {e}", self.now));
        }
    }
}

/// `box-door`.
pub const BOX_DOOR: ScenarioDef = ScenarioDef {
    name: "box-door",
    about: "the box's door for phone sessions at its limits (seven phones, five paired, strangers, reopened channels, uplink drops), no network",
    domain: Domain::NO_NETWORK,
    laws: &[&laws::NOTHING_HELD_AFTER_END, &laws::LANE0_PICTURE_CURRENT, &reference::r#box::BOX.law, &reference::request_ids::REQUEST_IDS.law],
    catches: &[Switch::BoxKeepsClosedSessions],
    run,
};

#[cfg(test)]
mod tests {
    use super::*;
    use crate::world::seed::RunSeed;
    use crate::world::switch::Switches;

    fn held(seed: u64, switches: &[&str]) -> usize {
        let mut spec = crate::scenario::spec("box-door", RunSeed(seed));
        spec.switches = Switches::parse(switches.iter().copied()).expect("known switches");
        workload(&spec).0
    }

    #[test]
    fn the_box_holds_nothing_once_every_channel_is_closed() {
        for seed in 1..=6 {
            assert_eq!(held(seed, &[]), 0, "seed {seed}");
        }
    }

    #[test]
    fn every_phone_sees_the_site_current_over_lane_0() {
        for seed in 1..=6 {
            let spec = crate::scenario::spec("box-door", RunSeed(seed));
            assert_eq!(workload(&spec).1, None, "seed {seed}");
        }
    }

    #[test]
    fn a_box_that_keeps_closed_sessions_is_seen() {
        assert!((1..=4).any(|seed| held(seed, &["box-keeps-closed-sessions"]) > 0));
    }
}
