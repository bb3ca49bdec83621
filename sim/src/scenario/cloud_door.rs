//! `cloud-door`: the cloud's doors and relay at their limits, with no network.
//! The real cloud (`ftw_cloud::Cloud`), two real boxes (`ftw_box::BoxNode`,
//! box-1 and box-2, each with its own phones paired) and real phone sessions
//! (`ftw_cloud::PhoneSession`: five phones, four paired, one a stranger) talk
//! over in-memory links the workload delivers one message at a time, in an
//! order drawn from the run seed, closing links from either end, letting time
//! pass to each deadline (the 10 s box wait, lane 0, backoffs), and putting in
//! strangers (one run in six with the cloud's sessions off): an unregistered box's uplink, a wrong proof, an unknown target,
//! garbage in place of message 1, datagrams before it, a phone writing in the
//! tunnel before its box answered, a box writing to a channel nobody holds (or
//! to one a phone still waiting for the uplink holds) or sending kinds the
//! relay does not carry, a bit
//! flipped in a message on its way to the cloud or in a phone's message the
//! cloud relays to a box, messages crossing the
//! cloud's close of their link. A network
//! plan never reaches most of this: every other scenario has one box and one
//! phone, so the relay's routing between boxes, an uplink replaced while
//! phones wait, and a phone's link ending while its box has not answered are
//! never met. Issue 14 sections 3 and 5 (strangers, boundaries; the cloud's
//! mutants the simulation missed). `cloud-agrees-with-spec` and
//! `box-agrees-with-spec` judge every step; the law here is the state after
//! the end: once every link has closed, the cloud holds no link and no box a
//! session.

use std::collections::{BTreeMap, BTreeSet, VecDeque};
use std::time::Duration;

use ftw_box::uplink::{Kind as UpKind, LinkOp, SendKind, UpMsg};
use ftw_box::{BoxConfig, BoxNode, BoxOutput};
use ftw_cloud::phone::{PhoneConfig, PhoneSession};
use ftw_cloud::{consts::PHONE_TARGET, Cloud, CloudConfig, LinkId};
use ftw_wire::noise::{Keypair, SeededResolver};
use rand::{Rng, RngCore};
use rand_chacha::ChaCha20Rng;

use super::def::{RunReport, ScenarioDef};
use crate::drive::app::cloud::{config_step as cloud_config, jot as cloud_jot, jot_notes as cloud_notes, jot_transmit};
use crate::drive::app::r#box::{config_step, jot, jot_notes, jot_output, jot_redial};
use crate::drive::rig::Rig;
use crate::law::laws;
use crate::law::reference;
use crate::law::seen::{Held, HeldCounts, Seen};
use crate::world::domain::Domain;
use crate::world::host::{addr, CLOUD};
use crate::world::journal;
use crate::world::journal::cloud::CloudStep;
use crate::world::journal::r#box::{header, BoxStep};
use crate::world::topology::RunSpec;
use crate::world::trace;

const BOX_IDS: [&str; 2] = ["box-1", "box-2"];
/// Phones; phone `k < PAIRED` is paired with box `k % 2`, the rest with none.
const PHONES: usize = 5;
const PAIRED: usize = 4;
/// Inputs one run makes.
const STEPS: usize = 400;

/// Who holds the far end of a link.
enum End {
    Box(usize),
    Phone(Box<PhoneSession>),
    /// A client that is neither: it writes what the workload draws.
    Stranger,
}

struct Pipe {
    end: End,
    /// Messages to the cloud (datagram, bytes), and from it.
    up: VecDeque<(bool, Vec<u8>)>,
    down: VecDeque<(SendKind, Vec<u8>)>,
}

struct Door {
    now: u64,
    rng: ChaCha20Rng,
    cloud: Cloud,
    boxes: Vec<BoxNode>,
    /// Each box's uplink, once dialled.
    uplink: Vec<Option<LinkId>>,
    phones: Vec<PhoneConfig>,
    links: BTreeMap<LinkId, Pipe>,
    /// Messages the far end had sent when the cloud closed their link: they still
    /// arrive, on a link the cloud has forgotten (cloud docs: dropped).
    crossing: VecDeque<(LinkId, bool, Vec<u8>)>,
    next_link: LinkId,
    /// The highest channel number the cloud has told any box of.
    chans_told: u32,
    sessions: u64,
    seed: crate::world::seed::RunSeed,
    /// Every message a bit was flipped in, as flipped: a message still queued is
    /// flipped once only (flipped twice it would be the genuine message again,
    /// journaled tampered: cloud-door seed 6298 of `fuzz --time 120 --jobs 2`).
    flipped: BTreeSet<Vec<u8>>,
}

/// A message in the trace: its length and a hash of every byte (the trace hash then
/// covers what crossed each link, so the determinism check can fail).
fn digest(b: &[u8]) -> String {
    let h = b.iter().fold(0xcbf2_9ce4_8422_2325u64, |h, &x| (h ^ u64::from(x)).wrapping_mul(0x100_0000_01b3));
    format!("{} B h={h:016x}", b.len())
}

/// Flip the lowest bit of `bytes`' last byte unless they are a message flipped
/// before; whether it flipped.
fn flip_once(flipped: &mut BTreeSet<Vec<u8>>, bytes: &mut [u8]) -> bool {
    if flipped.contains(bytes) {
        return false;
    }
    let Some(b) = bytes.last_mut() else { return false };
    *b ^= 1;
    flipped.insert(bytes.to_vec())
}

fn box_host(k: usize) -> &'static str {
    ["box", "box.2"][k]
}

pub fn run(spec: &RunSpec) -> RunReport {
    let (outcome, held) = Rig::offline(spec, CLOUD, addr::CLOUD, workload);
    let counts = held.map(|(cloud_links, box_sessions)| HeldCounts { box_sessions, cloud_links, relays: 0 });
    let held = Held { settled: true, counts, when: "once every link closed and the deadlines ran".into() };
    RunReport::new(outcome, vec![]).with(Seen { held: Some(held), ..Seen::default() })
}

/// The run; returns the links the cloud and the sessions the boxes hold at the end.
fn workload(spec: &RunSpec) -> (usize, usize) {
    let mut d = Door::new(spec);
    for _ in 0..STEPS {
        // Mostly the same instant (messages crossing), now and then each deadline's edge.
        let waits = [0, 0, 0, 0, 0, 0, 0, 0, 1, 20, 999, 1000, 5000, 9999, 10_000, 10_001, d.rng.random_range(0..30_000)];
        let wait = waits[d.rng.random_range(0..waits.len())];
        d.advance(d.now + wait);
        d.step();
    }
    let ids: Vec<LinkId> = d.links.keys().copied().collect();
    for id in ids {
        d.close_from_peer(id, 1000);
    }
    d.advance(d.now + 1);
    // No more dials: the boxes stay down from here (their redials are drawn out past the end).
    d.drain();
    (d.cloud.link_count(), d.boxes.iter().map(BoxNode::session_count).sum())
}

impl Door {
    fn new(spec: &RunSpec) -> Door {
        let mut keys = spec.seed.stream("cloud-door.keys");
        let mut gen = || SeededResolver::from_rng(&mut keys).generate_keypair();
        let cloud_key = gen();
        let box_keys: Vec<Keypair> = BOX_IDS.iter().map(|_| gen()).collect();
        let phone_keys: Vec<Keypair> = (0..PHONES).map(|_| gen()).collect();
        // One run in six with the cloud's sessions off (every phone: message 2, then 1013).
        let mut cfg = CloudConfig::new(cloud_key.clone());
        cfg.sessions_enabled = spec.seed.stream("cloud-door.settings").random_range(0..6) != 0;
        let mut cloud = Cloud::new(cfg, spec.seed.key("cloud-door.cloud"));
        for (id, k) in BOX_IDS.iter().zip(&box_keys) {
            cloud.register_box(id, k.public);
        }
        for (p, k) in phone_keys.iter().enumerate().take(PAIRED) {
            cloud.pair(k.public, BOX_IDS[p % 2]);
        }
        cloud_jot(CLOUD, 0, cloud_config(&cloud));
        let boxes = (0..BOX_IDS.len())
            .map(|b| {
                let paired = (0..PAIRED).filter(|p| p % 2 == b).map(|p| phone_keys[p].public).collect();
                let mut cfg = BoxConfig::new(BOX_IDS[b], box_keys[b].clone(), paired, spec.seed.sub_seed(&format!("cloud-door.site.{b}")));
                cfg.cloud_public = cloud_key.public;
                let node = BoxNode::new(cfg, spec.seed.key(&format!("cloud-door.box.{b}")));
                jot(box_host(b), 0, config_step(node.config()));
                node
            })
            .collect();
        // The stranger phone names box-1 but is paired with nothing.
        let phones =
            phone_keys.iter().enumerate().map(|(p, k)| PhoneConfig::new(k.clone(), cloud_key.public, box_keys[p % 2].public, BOX_IDS[p % 2])).collect();
        let rng = spec.seed.stream("cloud-door.schedule");
        let mut d = Door {
            now: 0,
            rng,
            cloud,
            boxes,
            uplink: vec![None; BOX_IDS.len()],
            phones,
            links: BTreeMap::new(),
            crossing: VecDeque::new(),
            flipped: BTreeSet::new(),
            next_link: 1,
            chans_told: 0,
            sessions: 0,
            seed: spec.seed,
        };
        d.advance(0);
        d
    }

    /// Run every deadline (the cloud's, the boxes') up to `until`.
    fn advance(&mut self, until: u64) {
        loop {
            let cloud = self.cloud.poll_timeout();
            let boxes = self.boxes.iter().enumerate().filter_map(|(k, b)| b.poll_timeout().map(|t| (t, k))).min();
            let next = match (cloud, boxes) {
                (Some(c), Some((b, _))) => Some(c.min(b)),
                (c, b) => c.or(b.map(|b| b.0)),
            };
            let Some(t) = next.filter(|&t| t <= until) else { break };
            self.now = t.max(self.now);
            if cloud == Some(t) {
                cloud_jot(CLOUD, self.now, CloudStep::Timeout);
                self.cloud.handle_timeout(self.now);
                self.cloud_out();
            } else if let Some((_, k)) = boxes {
                jot(box_host(k), self.now, BoxStep::Timeout);
                self.boxes[k].handle_timeout(self.now);
                jot_notes(box_host(k), self.now, &mut self.boxes[k]);
                self.box_out(k);
            }
        }
        self.now = self.now.max(until);
    }

    /// One input, drawn.
    fn step(&mut self) {
        match self.rng.random_range(0..24) {
            0..=13 => self.deliver(),
            14 | 15 => self.phone_dials(),
            16 => self.stranger(),
            17 => {
                if let Some(id) = self.pick_link() {
                    let code = [1000, 1001, 1006][self.rng.random_range(0..3)];
                    self.close_from_peer(id, code);
                }
            }
            18..=20 => self.phone_acts(),
            21 => self.box_writes_astray(),
            22 => self.corrupt_up(),
            23 => self.corrupt_to_box(),
            _ => {}
        }
    }

    fn pick_link(&mut self) -> Option<LinkId> {
        let ids: Vec<LinkId> = self.links.keys().copied().collect();
        (!ids.is_empty()).then(|| ids[self.rng.random_range(0..ids.len())])
    }

    fn accept(&mut self, target: &str, end: End) -> LinkId {
        let id = self.next_link;
        self.next_link += 1;
        self.links.insert(id, Pipe { end, up: VecDeque::new(), down: VecDeque::new() });
        cloud_jot(CLOUD, self.now, CloudStep::Accept { link: id, target: target.to_string(), datagrams: true });
        self.cloud.handle_accept(self.now, id, target, true);
        self.cloud_out();
        id
    }

    /// A phone opens a new link and starts its session.
    fn phone_dials(&mut self) {
        let p = self.rng.random_range(0..PHONES);
        self.sessions += 1;
        let mut s = PhoneSession::new(self.phones[p].clone(), self.seed.key(&format!("cloud-door.phone.{}", self.sessions)));
        s.start(self.now);
        let id = self.accept(PHONE_TARGET, End::Phone(Box::new(s)));
        self.phone_out(id);
    }

    /// A client the cloud should turn away, or garbage where message 1 goes.
    fn stranger(&mut self) {
        // An unregistered box, an unknown target, a registered box without its key (a wrong proof), a phone that is not.
        let target = ["/box/box-9", "/nope", "/box/box-1", PHONE_TARGET, PHONE_TARGET][self.rng.random_range(0..5)];
        let id = self.accept(target, End::Stranger);
        if let Some(pipe) = self.links.get_mut(&id) {
            let mut junk = vec![0u8; self.rng.random_range(0..200)];
            self.rng.fill_bytes(&mut junk);
            pipe.up.push_back((self.rng.random_bool(0.3), junk));
        }
    }

    /// A phone with an open session sends a command, goes hidden or visible, or leaves;
    /// one whose box has not answered yet writes in the tunnel anyway (a hasty phone).
    fn phone_acts(&mut self) {
        let Some(id) = self.pick_link() else { return };
        let now = self.now;
        let choice = self.rng.random_range(0..5);
        let Some(Pipe { end: End::Phone(s), .. }) = self.links.get_mut(&id) else { return };
        match choice {
            0 => {
                let _ = s.send_cmd(now, "site.mode.set", ciborium::Value::Text("eco".into()), now + 60_000);
            }
            1 => {
                let _ = s.set_hidden(now, true);
            }
            2 => {
                let _ = s.set_hidden(now, false);
            }
            3 => {
                let _ = s.write_before_box(b"hasty");
            }
            _ => s.close(now),
        }
        self.phone_out(id);
    }

    /// A box writes to a channel nobody holds, a kind the relay does not carry, a kind
    /// nobody knows, or less than a header.
    fn box_writes_astray(&mut self) {
        let k = self.rng.random_range(0..BOX_IDS.len());
        let Some(id) = self.uplink[k] else { return };
        let kind = [UpKind::Data, UpKind::Open, UpKind::Challenge, UpKind::Auth, UpKind::Close][self.rng.random_range(0..5)];
        // The newest channel the cloud may have given a phone still waiting for the
        // uplink: past every channel any box was told of.
        let unsaid = self.chans_told + self.rng.random_range(1..4);
        let chan = [0, 999_999, self.rng.random_range(1..20), unsaid][self.rng.random_range(0..4)];
        let mut bytes = UpMsg { kind, chan, payload: vec![7; self.rng.random_range(0..40)] }.encode();
        match self.rng.random_range(0..4) {
            // A kind byte the uplink table does not have, or fewer bytes than a header.
            0 => bytes[0] = [0, 8, 255][self.rng.random_range(0..3)],
            1 => bytes.truncate(self.rng.random_range(0..5)),
            _ => {}
        }
        if let Some(pipe) = self.links.get_mut(&id) {
            pipe.up.push_back((false, bytes));
        }
    }

    /// A bit flipped in the next message a link carries to the cloud (inside the outer
    /// tunnel's AEAD tag on a phone's link): it must not open (4400 on a stream, dropped
    /// as a datagram; cloud docs).
    fn corrupt_up(&mut self) {
        let Some(id) = self.pick_link() else { return };
        if let Some((_, bytes)) = self.links.get_mut(&id).and_then(|p| p.up.front_mut()) {
            flip_once(&mut self.flipped, bytes);
        }
    }

    /// A bit flipped in the next phone `Data` the cloud relays to a box, inside the box
    /// session's AEAD tag (as the plan's `corrupt_message` toward the box): the box's
    /// journal marks it tampered, and it must not open there.
    fn corrupt_to_box(&mut self) {
        let k = self.rng.random_range(0..BOX_IDS.len());
        let Some(Pipe { down, .. }) = self.uplink[k].and_then(|id| self.links.get_mut(&id)) else { return };
        let Some((_, bytes)) = down.front_mut().filter(|(_, b)| b.first() == Some(&(UpKind::Data as u8)) && b.len() > 5) else { return };
        if flip_once(&mut self.flipped, bytes) {
            journal::mark_tampered(bytes);
        }
    }

    /// One message of a random link, in one direction, delivered.
    fn deliver(&mut self) {
        let ready: Vec<(LinkId, bool)> =
            self.links.iter().flat_map(|(id, p)| [(!p.up.is_empty()).then_some((*id, true)), (!p.down.is_empty()).then_some((*id, false))]).flatten().collect();
        if ready.is_empty() || (!self.crossing.is_empty() && self.rng.random_range(0..4) == 0) {
            self.deliver_crossing();
            return;
        }
        let (id, up) = ready[self.rng.random_range(0..ready.len())];
        if up {
            self.deliver_up(id);
        } else {
            self.deliver_down(id);
        }
    }

    /// The oldest message crossing a close reaches the cloud.
    fn deliver_crossing(&mut self) {
        if let Some((id, datagram, bytes)) = self.crossing.pop_front() {
            self.cloud_in(id, datagram, &bytes);
        }
    }

    fn deliver_up(&mut self, id: LinkId) {
        if let Some((datagram, bytes)) = self.links.get_mut(&id).and_then(|p| p.up.pop_front()) {
            self.cloud_in(id, datagram, &bytes);
        }
    }

    /// The cloud reads a message of link `id`, journaled as its driver does.
    fn cloud_in(&mut self, id: LinkId, datagram: bool, bytes: &[u8]) {
        trace::record_at(Duration::from_millis(self.now), CLOUD, "cloud.in", format!("link={id} datagram={datagram} {}", digest(bytes)));
        cloud_jot(CLOUD, self.now, CloudStep::In { link: id, datagram, bytes: crate::world::journal::cloud::Bytes::of(bytes) });
        if datagram {
            self.cloud.handle_datagram(self.now, id, bytes);
        } else {
            self.cloud.handle_message(self.now, id, bytes);
        }
        self.cloud_out();
    }

    fn deliver_down(&mut self, id: LinkId) {
        let now = self.now;
        let Some(pipe) = self.links.get_mut(&id) else { return };
        let Some((kind, bytes)) = pipe.down.pop_front() else { return };
        match &mut pipe.end {
            End::Box(k) => {
                let k = *k;
                let datagram = kind == SendKind::Datagram;
                jot(box_host(k), now, BoxStep::Up { datagram, header: header(&bytes), len: bytes.len(), tampered: journal::tampered(&bytes) });
                if datagram {
                    self.boxes[k].handle_datagram(now, &bytes);
                } else {
                    self.boxes[k].handle_message(now, &bytes);
                }
                jot_notes(box_host(k), now, &mut self.boxes[k]);
                self.box_out(k);
            }
            End::Phone(s) => {
                if kind == SendKind::Datagram {
                    s.handle_datagram(now, &bytes);
                } else {
                    s.handle_message(now, &bytes);
                }
                self.phone_out(id);
            }
            End::Stranger => {}
        }
    }

    /// The far end closes `id` (or the link drops): the cloud hears it.
    fn close_from_peer(&mut self, id: LinkId, code: u16) {
        let Some(pipe) = self.links.remove(&id) else { return };
        cloud_jot(CLOUD, self.now, CloudStep::Closed { link: id, code });
        self.cloud.handle_closed(self.now, id, code);
        cloud_notes(CLOUD, self.now, &mut self.cloud);
        self.peer_closed(pipe.end, code);
        self.transmits();
    }

    /// Tell the far end its link ended.
    fn peer_closed(&mut self, end: End, code: u16) {
        match end {
            End::Box(k) => {
                self.uplink[k] = None;
                jot(box_host(k), self.now, BoxStep::Closed { code });
                self.boxes[k].handle_closed(self.now, code);
                jot_redial(box_host(k), self.now, &self.boxes[k]);
                jot_notes(box_host(k), self.now, &mut self.boxes[k]);
                self.box_out(k);
            }
            End::Phone(mut s) => s.handle_closed(self.now, code),
            End::Stranger => {}
        }
    }

    /// Journal what the cloud read in the call just made, then carry out what it asked.
    fn cloud_out(&mut self) {
        cloud_notes(CLOUD, self.now, &mut self.cloud);
        self.transmits();
    }

    /// Carry out the cloud's transmits.
    fn transmits(&mut self) {
        while let Some(t) = self.cloud.poll_transmit() {
            jot_transmit(CLOUD, self.now, &t);
            let what = match &t.op {
                LinkOp::Send { kind, bytes } => format!("{kind:?} {}", digest(bytes)),
                LinkOp::Close { code, .. } => format!("close {code}"),
            };
            trace::record_at(Duration::from_millis(self.now), CLOUD, "cloud.out", format!("link={} {what}", t.link));
            match t.op {
                LinkOp::Send { kind, bytes } => {
                    if let Some(p) = self.links.get_mut(&t.link) {
                        if let (End::Box(_), Some(m)) = (&p.end, UpMsg::decode(&bytes)) {
                            self.chans_told = self.chans_told.max(m.chan);
                        }
                        p.down.push_back((kind, bytes));
                    }
                }
                LinkOp::Close { code, .. } => {
                    if let Some(pipe) = self.links.remove(&t.link) {
                        self.crossing.extend(pipe.up.into_iter().map(|(dg, b)| (t.link, dg, b)));
                        self.peer_closed(pipe.end, code);
                    }
                }
            }
        }
    }

    /// What a phone session asks of its link.
    fn phone_out(&mut self, id: LinkId) {
        let mut close = None;
        if let Some(Pipe { end: End::Phone(s), up, .. }) = self.links.get_mut(&id) {
            while let Some(op) = s.poll_transmit() {
                match op {
                    LinkOp::Send { kind, bytes } => up.push_back((kind == SendKind::Datagram, bytes)),
                    LinkOp::Close { code, .. } => close = Some(code),
                }
            }
            while s.poll_event().is_some() {}
        }
        if let Some(code) = close {
            self.close_from_peer(id, code);
        }
    }

    /// What box `k` asks: a dial is answered at once with a new uplink.
    fn box_out(&mut self, k: usize) {
        while let Some(out) = self.boxes[k].poll_output() {
            jot_output(box_host(k), self.now, &out);
            match out {
                BoxOutput::Dial { target } => {
                    let id = self.accept(&target, End::Box(k));
                    if self.links.contains_key(&id) {
                        self.uplink[k] = Some(id);
                        jot(box_host(k), self.now, BoxStep::UplinkUp { datagrams: true });
                        self.boxes[k].handle_uplink_up(self.now, true);
                        jot_notes(box_host(k), self.now, &mut self.boxes[k]);
                    } else {
                        jot(box_host(k), self.now, BoxStep::UplinkFailed);
                        self.boxes[k].handle_uplink_failed(self.now);
                        jot_redial(box_host(k), self.now, &self.boxes[k]);
                        jot_notes(box_host(k), self.now, &mut self.boxes[k]);
                    }
                }
                BoxOutput::Link(LinkOp::Send { kind, bytes }) => {
                    if let Some(p) = self.uplink[k].and_then(|id| self.links.get_mut(&id)) {
                        p.up.push_back((kind == SendKind::Datagram, bytes));
                    }
                }
                BoxOutput::Link(LinkOp::Close { code, .. }) => {
                    if let Some(id) = self.uplink[k] {
                        self.close_from_peer(id, code);
                    }
                }
            }
        }
    }

    /// Deliver everything still queued (the links are gone; this empties the boxes' queues).
    fn drain(&mut self) {
        while !self.links.is_empty() {
            let ids: Vec<LinkId> = self.links.keys().copied().collect();
            for id in ids {
                self.close_from_peer(id, 1000);
            }
        }
    }
}

/// `cloud-door`.
pub const CLOUD_DOOR: ScenarioDef = ScenarioDef {
    name: "cloud-door",
    about: "the cloud's doors and relay at their limits (two boxes, five phones, strangers, links ending from either side, every deadline), real models over in-memory links, no network",
    domain: Domain::NO_NETWORK,
    laws: &[&laws::NOTHING_HELD_AFTER_END, &reference::r#box::BOX.law, &reference::cloud::CLOUD.law, &reference::request_ids::REQUEST_IDS.law],
    catches: &[],
    run,
};
