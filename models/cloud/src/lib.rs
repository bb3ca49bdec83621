//! FTW Cloud (`ftwcloudd`), IO-free (design/SPEC.md §1, §3), and the phone's protocol helper
//! ([`phone::PhoneSession`]).
//!
//! [`Cloud`] has two doors (QUIC and WebSocket) that are just links to it: the driver accepts
//! a link at either door, numbers it with a [`LinkId`] of its choosing, and hands the cloud the
//! link's target and events. The cloud keeps a pairing registry (which phone static keys may
//! reach which box) and relays phone <-> box blindly: it answers the outer tunnel handshake
//! (phone <-> cloud, `Noise_IK`, cloud key pinned), takes the box session's message 1 out of
//! `now.tun`, and from then on moves the box session's messages as opaque bytes. It never holds
//! a key of the box session.
//!
//! # Driving it
//!
//! ```text
//! let mut c = Cloud::new(CloudConfig::new(key), seed);
//! c.register_box("box-1"); c.pair(phone_pub, "box-1");
//! on an accepted link (either door)  => c.handle_accept(now, id, &target, link_has_datagrams)
//! on LinkEvent::Message(b)           => c.handle_message(now, id, &b)
//! on LinkEvent::Datagram(b)          => c.handle_datagram(now, id, &b)
//! on LinkEvent::Closed(info)         => c.handle_closed(now, id, info.code)
//! when now >= c.poll_timeout()       => c.handle_timeout(now)
//! after each of these: while let Some(t) = c.poll_transmit() { perform t.op on link t.link }
//! ```
//!
//! # Targets
//!
//! * `/box/<box_id>`: a box's uplink (framing: `ftw_box::uplink`). The box id must be
//!   registered with its static key, else close 4403. The cloud sends a `Challenge` (a fresh
//!   16-byte nonce from its seed) first; the uplink serves phones only once the box's `Auth`
//!   carries `ftw_wire::noise::uplink_proof` of that nonce (the seed's challenge; the box sends
//!   its target as 0-RTT early data on a reconnect, so the challenge rides the cloud's first
//!   flight). Any other answer: close 4403. Then a new uplink for a box replaces the old one
//!   (closed 1000).
//! * [`consts::PHONE_TARGET`] (`/app/v1`): a phone. Its first message is the outer handshake's
//!   message 1, whose payload is `now.tun {box, m1}`. Then, in order:
//!   1. not a readable message 1 (or not `now.tun`): close 4400;
//!   2. sessions off ([`CloudConfig::sessions_enabled`] false): write message 2, send it, close
//!      1013 (try again later) — the door completes the handshake and closes (seed 000);
//!   3. the phone's static key is not paired with that box: close 4403, no message 2, nothing
//!      of the box ever reaches this link;
//!   4. otherwise write message 2 (outer) and send it; then `Open(chan, m1)` to the box's
//!      uplink at once, or when the uplink comes, if it comes within
//!      [`consts::BOX_WAIT_MS`] (10 s); the box must answer (its message 2 or a close)
//!      within those same 10 s of the outer handshake, else close 4408.
//! * anything else: close 4400.
//!
//! # Relay
//!
//! Phone → box: each phone message (stream or datagram) is an outer transport message; the
//! cloud opens it with the outer session and sends its plaintext — a box-session message —
//! as `Data(chan)` on the uplink. An outer message that does not open ends the phone link
//! (4400) when it came on a stream and is dropped when it came as a datagram.
//! Box → phone: `Data`/`Bulk`/`Dgram(chan, bytes)` is sealed in the outer session and sent with
//! `Send{Message}`, `Send{Bulk}`, or `Send{Datagram}` when the phone's link has datagrams
//! (`Send{Message}` otherwise). `Close(chan, code)` from the box closes the phone link with
//! that code; a phone link that ends sends `Close(chan, 1000)` to the box; an uplink that ends
//! closes its phone links with 1001.
//!
//! Any number of phones may be relayed to one box; the box refuses past four (4429).
//!
//! # Choices and deviations (SPEC.md leaves them open or this model simplifies)
//!
//! * The box session's messages ride inside the outer tunnel (outer transport messages whose
//!   plaintext is a box-session transport message), so both layers have a replay window; the
//!   phone reports a replay found by either as `Replay`.
//! * `live` is sealed in the box session like every other frame: the "readable copy" the
//!   cloud may read (SPEC.md §3) is not modelled; the cloud stays blind to all of it.
//! * Sessions off closes with 1013 after the outer message 2 (a close from 1000 up other than
//!   1005/1006: it does not count toward the phone's QUIC demotion, seed 000).
//! * Unpaired at the cloud: 4403 from the cloud. Paired at the cloud but not pinned at the
//!   box: the box refuses (4403 relayed), also without its message 2.

pub mod consts;
pub mod phone;

use std::collections::{BTreeMap, BTreeSet, VecDeque};

use ftw_box::uplink::{Kind, LinkOp, SendKind, UpMsg};
use ftw_wire::consts::UPLINK_NONCE_LEN;
use ftw_wire::noise::{cloud_read_msg1, uplink_proof, HandshakeParams, Key, Keypair, Responder, SeededResolver};
use ftw_wire::{BugSwitches, Session};
use rand::{RngCore, SeedableRng};
use rand_chacha::ChaCha20Rng;

use consts::close;

/// The driver's name for a link (unique over the cloud's life).
pub type LinkId = u64;

/// What the cloud is given.
#[derive(Debug, Clone)]
pub struct CloudConfig {
    /// The cloud's static key (pinned by phones for the outer tunnel).
    pub key: Keypair,
    /// "Sessions off" when false: the door completes the outer handshake and closes (1013).
    pub sessions_enabled: bool,
    /// How long a phone waits for its box ([`consts::BOX_WAIT_MS`]).
    pub box_wait_ms: u64,
    /// Wire bug switches (the replay window of each outer session).
    pub switches: BugSwitches,
}

impl CloudConfig {
    pub fn new(key: Keypair) -> CloudConfig {
        CloudConfig { key, sessions_enabled: true, box_wait_ms: consts::BOX_WAIT_MS, switches: BugSwitches::default() }
    }
}

/// One thing for the driver to do on link `link`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Transmit {
    pub link: LinkId,
    pub op: LinkOp,
}

/// What the cloud read inside a phone's outer tunnel, for a lockstep reference
/// (`ftw-properties` `reference::cloud`): the driver sees only ciphertext. Pure observation:
/// queued as the cloud reads, drained with [`Cloud::poll_note`], never read by the cloud
/// itself. A driver that does not drain them keeps at most [`NOTES_MAX`] (the oldest go).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum CloudNote {
    /// A phone's first message on `link`, read as the outer message 1: the phone's static key,
    /// the `now.tun` box id and the box session's message 1 (`None`: not readable).
    Msg1 { link: LinkId, read: Option<(Key, String, Vec<u8>)> },
    /// An outer transport message on `link` opened to `inner` (a box-session message; `None`:
    /// it did not open).
    Opened { link: LinkId, inner: Option<Vec<u8>> },
}

/// Most notes kept undrained ([`CloudNote`]).
pub const NOTES_MAX: usize = 4096;

/// Counters.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct CloudStats {
    pub phones_accepted: u64,
    pub uplinks_accepted: u64,
    pub refused_unpaired: u64,
    pub timed_out: u64,
    pub sessions_off_closes: u64,
    pub relayed_to_box: u64,
    pub relayed_to_phone: u64,
    pub relayed_as_datagram: u64,
    pub dropped: u64,
    /// Uplinks whose `Auth` proved the box's key / that were refused for it.
    pub uplinks_authed: u64,
    pub uplinks_refused: u64,
}

#[derive(Debug)]
enum Phase {
    /// The outer handshake is done; the box's uplink is not there yet.
    WaitingUplink {
        m1: Vec<u8>,
    },
    /// `Open` sent; no answer from the box yet.
    WaitingBox,
    Relaying,
}

#[derive(Debug)]
struct PhoneLink {
    datagrams: bool,
    box_id: String,
    chan: u32,
    outer: Session,
    phase: Phase,
    deadline_ms: u64,
}

#[derive(Debug)]
enum LinkState {
    /// A box's uplink whose `Auth` has not come yet: it serves no phone.
    UplinkPending {
        box_id: String,
        nonce: [u8; UPLINK_NONCE_LEN],
    },
    Uplink {
        box_id: String,
    },
    /// A phone before its first message.
    PhoneNew {
        datagrams: bool,
    },
    Phone(Box<PhoneLink>),
}

/// FTW Cloud.
#[derive(Debug)]
pub struct Cloud {
    cfg: CloudConfig,
    resolver: SeededResolver,
    /// Registered boxes and their static public keys (for the uplink's `Auth`).
    boxes: BTreeMap<String, Key>,
    pairs: BTreeSet<(Key, String)>,
    links: BTreeMap<LinkId, LinkState>,
    uplinks: BTreeMap<String, LinkId>,
    chans: BTreeMap<(String, u32), LinkId>,
    next_chan: u32,
    out: VecDeque<Transmit>,
    stats: CloudStats,
    last_now_ms: u64,
    notes: VecDeque<CloudNote>,
    /// The uplink challenges' nonces.
    nonces: ChaCha20Rng,
}

impl Cloud {
    /// A cloud whose randomness (Noise ephemerals) comes from `seed`.
    pub fn new(cfg: CloudConfig, seed: [u8; 32]) -> Cloud {
        let mut rng = ChaCha20Rng::from_seed(seed);
        let resolver = SeededResolver::from_rng(&mut rng);
        let mut nonce_seed = [0u8; 32];
        rng.fill_bytes(&mut nonce_seed);
        Cloud {
            cfg,
            resolver,
            nonces: ChaCha20Rng::from_seed(nonce_seed),
            boxes: BTreeMap::new(),
            pairs: BTreeSet::new(),
            links: BTreeMap::new(),
            uplinks: BTreeMap::new(),
            chans: BTreeMap::new(),
            next_chan: 1,
            out: VecDeque::new(),
            stats: CloudStats::default(),
            last_now_ms: 0,
            notes: VecDeque::new(),
        }
    }

    pub fn config(&self) -> &CloudConfig {
        &self.cfg
    }
    pub fn stats(&self) -> CloudStats {
        self.stats
    }
    /// Turn sessions on or off (a cloud setting, not a bug).
    pub fn set_sessions_enabled(&mut self, on: bool) {
        self.cfg.sessions_enabled = on;
    }
    /// Let a box with this id and static public key uplink (it proves the key
    /// in its `Auth`).
    pub fn register_box(&mut self, box_id: &str, key: Key) {
        self.boxes.insert(box_id.to_string(), key);
    }
    /// Let `phone` reach `box_id` (a registered box).
    pub fn pair(&mut self, phone: Key, box_id: &str) {
        assert!(self.boxes.contains_key(box_id), "pair with a registered box: {box_id}");
        self.pairs.insert((phone, box_id.to_string()));
    }
    fn is_paired(&self, phone: &Key, box_id: &str) -> bool {
        self.pairs.contains(&(*phone, box_id.to_string()))
    }
    /// Whether the box has an uplink now.
    pub fn box_online(&self, box_id: &str) -> bool {
        self.uplinks.contains_key(box_id)
    }
    /// Phone links relaying to `box_id` now.
    pub fn relayed_phones(&self, box_id: &str) -> usize {
        self.chans.keys().filter(|(b, _)| b == box_id).count()
    }
    /// Links the cloud holds.
    pub fn link_count(&self) -> usize {
        self.links.len()
    }
    /// The registered boxes with their keys, in order.
    pub fn registered_box_keys(&self) -> Vec<(String, Key)> {
        self.boxes.iter().map(|(b, k)| (b.clone(), *k)).collect()
    }
    /// Every pairing (phone static key, box id), in order.
    pub fn pairings(&self) -> Vec<(Key, String)> {
        self.pairs.iter().cloned().collect()
    }

    /// Next note of what the cloud read in a tunnel ([`CloudNote`]; observation only).
    pub fn poll_note(&mut self) -> Option<CloudNote> {
        self.notes.pop_front()
    }

    fn note(&mut self, n: CloudNote) {
        if self.notes.len() >= NOTES_MAX {
            self.notes.pop_front();
        }
        self.notes.push_back(n);
    }

    /// Next thing for the driver to do.
    pub fn poll_transmit(&mut self) -> Option<Transmit> {
        self.out.pop_front()
    }

    /// The earliest deadline (a phone waiting for its box).
    pub fn poll_timeout(&self) -> Option<u64> {
        self.links
            .values()
            .filter_map(|l| match l {
                LinkState::Phone(p) if !matches!(p.phase, Phase::Relaying) => Some(p.deadline_ms),
                _ => None,
            })
            .min()
    }

    fn clock(&mut self, now_ms: u64) {
        assert!(now_ms >= self.last_now_ms, "time went back: {now_ms} < {}", self.last_now_ms);
        self.last_now_ms = now_ms;
    }

    fn push(&mut self, link: LinkId, op: LinkOp) {
        self.out.push_back(Transmit { link, op });
    }

    /// Close `link` and forget it (no `handle_closed` is needed for it afterwards).
    fn close_link(&mut self, link: LinkId, code: u16, reason: &str) {
        self.push(link, LinkOp::Close { code, reason: reason.to_string() });
        self.forget(link, code);
    }

    /// Forget a link and tell the other side.
    fn forget(&mut self, link: LinkId, _code: u16) {
        match self.links.remove(&link) {
            Some(LinkState::Uplink { box_id }) => {
                if self.uplinks.get(&box_id) == Some(&link) {
                    self.uplinks.remove(&box_id);
                    // Phones whose session reached the box lose it with the uplink; phones still
                    // waiting for the uplink keep waiting (their deadline runs).
                    let phones: Vec<LinkId> = self
                        .links
                        .iter()
                        .filter_map(|(id, l)| match l {
                            LinkState::Phone(p) if p.box_id == box_id && !matches!(p.phase, Phase::WaitingUplink { .. }) => Some(*id),
                            _ => None,
                        })
                        .collect();
                    for p in phones {
                        self.push(p, LinkOp::Close { code: close::GOING_AWAY, reason: "box gone".into() });
                        self.forget(p, close::GOING_AWAY);
                    }
                }
            }
            Some(LinkState::Phone(p)) => {
                self.chans.remove(&(p.box_id.clone(), p.chan));
                if !matches!(p.phase, Phase::WaitingUplink { .. }) {
                    if let Some(&up) = self.uplinks.get(&p.box_id) {
                        self.push(up, LinkOp::Send { kind: SendKind::Message, bytes: UpMsg::close(p.chan, close::NORMAL).encode() });
                    }
                }
            }
            Some(LinkState::PhoneNew { .. }) | Some(LinkState::UplinkPending { .. }) | None => {}
        }
    }

    /// A link was accepted at a door.
    pub fn handle_accept(&mut self, now_ms: u64, link: LinkId, target: &str, datagrams: bool) {
        self.clock(now_ms);
        assert!(!self.links.contains_key(&link), "link id {link} reused");
        if let Some(box_id) = target.strip_prefix(consts::UPLINK_TARGET_PREFIX) {
            if !self.boxes.contains_key(box_id) {
                self.push(link, LinkOp::Close { code: close::FORBIDDEN, reason: "unknown box".into() });
                return;
            }
            self.stats.uplinks_accepted += 1;
            let mut nonce = [0u8; UPLINK_NONCE_LEN];
            self.nonces.fill_bytes(&mut nonce);
            self.links.insert(link, LinkState::UplinkPending { box_id: box_id.to_string(), nonce });
            self.push(link, LinkOp::Send { kind: SendKind::Message, bytes: UpMsg::challenge(&nonce).encode() });
        } else if target == consts::PHONE_TARGET {
            self.stats.phones_accepted += 1;
            self.links.insert(link, LinkState::PhoneNew { datagrams });
        } else {
            self.push(link, LinkOp::Close { code: close::BAD_REQUEST, reason: "unknown target".into() });
        }
    }

    /// The box's answer to the challenge on a pending uplink: the right proof makes
    /// it the box's uplink (a new one replaces the old, closed 1000; waiting phones
    /// open at once); anything else is refused with 4403.
    fn uplink_auth(&mut self, link: LinkId, box_id: &str, nonce: &[u8], bytes: &[u8]) {
        let expected = uplink_proof(&self.cfg.key.private, &self.boxes[box_id], nonce, box_id);
        let ok = UpMsg::decode(bytes).is_some_and(|m| m.kind == Kind::Auth && m.chan == 0 && m.payload == expected);
        if !ok {
            self.stats.uplinks_refused += 1;
            self.close_link(link, close::FORBIDDEN, "bad uplink proof");
            return;
        }
        self.stats.uplinks_authed += 1;
        {
            if let Some(old) = self.uplinks.get(box_id).copied() {
                self.close_link(old, close::NORMAL, "replaced");
            }
            self.links.insert(link, LinkState::Uplink { box_id: box_id.to_string() });
            self.uplinks.insert(box_id.to_string(), link);
            // Phones waiting for this box: open their sessions now.
            let waiting: Vec<LinkId> = self
                .links
                .iter()
                .filter(|(_, l)| matches!(l, LinkState::Phone(p) if p.box_id == box_id && matches!(p.phase, Phase::WaitingUplink { .. })))
                .map(|(id, _)| *id)
                .collect();
            for p in waiting {
                self.open_at_box(p);
            }
        }
    }

    fn open_at_box(&mut self, link: LinkId) {
        let Some(LinkState::Phone(p)) = self.links.get_mut(&link) else {
            return;
        };
        let Some(&up) = self.uplinks.get(&p.box_id) else {
            return;
        };
        let Phase::WaitingUplink { m1 } = std::mem::replace(&mut p.phase, Phase::WaitingBox) else {
            return;
        };
        let open = UpMsg { kind: Kind::Open, chan: p.chan, payload: m1 };
        self.push(up, LinkOp::Send { kind: SendKind::Message, bytes: open.encode() });
    }

    /// A stream message (or WebSocket message) on `link`.
    pub fn handle_message(&mut self, now_ms: u64, link: LinkId, bytes: &[u8]) {
        self.handle_in(now_ms, link, bytes, false);
    }

    /// A QUIC datagram on `link`.
    pub fn handle_datagram(&mut self, now_ms: u64, link: LinkId, bytes: &[u8]) {
        self.handle_in(now_ms, link, bytes, true);
    }

    fn handle_in(&mut self, now_ms: u64, link: LinkId, bytes: &[u8], datagram: bool) {
        self.clock(now_ms);
        match self.links.get_mut(&link) {
            None => self.stats.dropped += 1,
            Some(LinkState::PhoneNew { datagrams }) => {
                let datagrams = *datagrams;
                if datagram {
                    self.stats.dropped += 1;
                    return;
                }
                self.phone_msg1(now_ms, link, datagrams, bytes);
            }
            Some(LinkState::Phone(p)) => {
                let opened = p.outer.open_raw(bytes);
                let relaying = matches!(p.phase, Phase::Relaying);
                let (box_id, chan) = (p.box_id.clone(), p.chan);
                self.note(CloudNote::Opened { link, inner: opened.as_ref().ok().cloned() });
                match opened {
                    Err(_) => {
                        self.stats.dropped += 1;
                        if !datagram {
                            self.close_link(link, close::BAD_REQUEST, "outer message did not open");
                        }
                    }
                    Ok(inner) if relaying => {
                        let up = self.uplinks[&box_id];
                        self.stats.relayed_to_box += 1;
                        let m = UpMsg { kind: Kind::Data, chan, payload: inner };
                        self.push(up, LinkOp::Send { kind: SendKind::Message, bytes: m.encode() });
                    }
                    // Nothing may come before the box's message 2.
                    Ok(_) => self.stats.dropped += 1,
                }
            }
            Some(LinkState::Uplink { box_id }) => {
                let box_id = box_id.clone();
                self.uplink_msg(&box_id, bytes);
            }
            Some(LinkState::UplinkPending { box_id, nonce }) => {
                let (box_id, nonce) = (box_id.clone(), *nonce);
                self.uplink_auth(link, &box_id, &nonce, bytes);
            }
        }
    }

    fn phone_msg1(&mut self, now_ms: u64, link: LinkId, datagrams: bool, bytes: &[u8]) {
        let params = HandshakeParams::tunnel_responder(self.cfg.key.clone(), self.resolver.clone()).with_switches(self.cfg.switches);
        let responder = Responder::new(&params).expect("cloud responder builds");
        let Ok((got, tun)) = cloud_read_msg1(responder, bytes) else {
            self.note(CloudNote::Msg1 { link, read: None });
            self.close_link(link, close::BAD_REQUEST, "not a tunnel message 1");
            return;
        };
        self.note(CloudNote::Msg1 { link, read: Some((got.remote_static(), tun.box_id.clone(), tun.m1.clone())) });
        if !self.cfg.sessions_enabled {
            let (m2, _outer) = got.write_msg2(b"").expect("message 2 writes");
            self.push(link, LinkOp::Send { kind: SendKind::Message, bytes: m2 });
            self.stats.sessions_off_closes += 1;
            self.close_link(link, close::TRY_AGAIN_LATER, "sessions off");
            return;
        }
        let phone = got.remote_static();
        if !self.is_paired(&phone, &tun.box_id) {
            self.stats.refused_unpaired += 1;
            self.close_link(link, close::FORBIDDEN, "not paired");
            return;
        }
        let (m2, outer) = got.write_msg2(b"").expect("message 2 writes");
        self.push(link, LinkOp::Send { kind: SendKind::Message, bytes: m2 });
        let chan = self.next_chan;
        self.next_chan = self.next_chan.checked_add(1).expect("channel numbers last");
        self.chans.insert((tun.box_id.clone(), chan), link);
        let p =
            PhoneLink { datagrams, box_id: tun.box_id, chan, outer, phase: Phase::WaitingUplink { m1: tun.m1 }, deadline_ms: now_ms + self.cfg.box_wait_ms };
        self.links.insert(link, LinkState::Phone(Box::new(p)));
        self.open_at_box(link);
    }

    fn uplink_msg(&mut self, box_id: &str, bytes: &[u8]) {
        let Some(m) = UpMsg::decode(bytes) else {
            self.stats.dropped += 1;
            return;
        };
        let Some(&link) = self.chans.get(&(box_id.to_string(), m.chan)) else {
            self.stats.dropped += 1;
            return;
        };
        let Some(LinkState::Phone(p)) = self.links.get_mut(&link) else { unreachable!("chan without a phone link") };
        match m.kind {
            Kind::Close => {
                let code = m.close_code();
                p.phase = Phase::Relaying; // the box answered: no upstream Close back
                self.chans.remove(&(box_id.to_string(), m.chan));
                self.push(link, LinkOp::Close { code, reason: "box closed".into() });
                self.links.remove(&link);
            }
            Kind::Data | Kind::Bulk | Kind::Dgram => {
                // An uplink that speaks is authenticated, and authenticating opened every
                // phone waiting for it (`uplink_auth`); losing it keeps only those phones
                // waiting, with no uplink (`forget`). So no phone of this box waits here.
                assert!(!matches!(p.phase, Phase::WaitingUplink { .. }), "a phone of {box_id} waits for the uplink that spoke");
                p.phase = Phase::Relaying;
                let sealed = p.outer.seal(&m.payload).expect("outer seals");
                let kind = match m.kind {
                    Kind::Bulk => SendKind::Bulk,
                    Kind::Dgram if p.datagrams => SendKind::Datagram,
                    _ => SendKind::Message,
                };
                self.stats.relayed_to_phone += 1;
                if kind == SendKind::Datagram {
                    self.stats.relayed_as_datagram += 1;
                }
                self.push(link, LinkOp::Send { kind, bytes: sealed });
            }
            Kind::Open | Kind::Challenge | Kind::Auth => self.stats.dropped += 1,
        }
    }

    /// `link` ended (peer close or network).
    pub fn handle_closed(&mut self, now_ms: u64, link: LinkId, code: u16) {
        self.clock(now_ms);
        self.forget(link, code);
    }

    /// Run what is due: phones whose box did not answer in time get 4408.
    pub fn handle_timeout(&mut self, now_ms: u64) {
        self.clock(now_ms);
        let late: Vec<LinkId> = self
            .links
            .iter()
            .filter(|(_, l)| matches!(l, LinkState::Phone(p) if !matches!(p.phase, Phase::Relaying) && p.deadline_ms <= now_ms))
            .map(|(id, _)| *id)
            .collect();
        for link in late {
            self.stats.timed_out += 1;
            self.close_link(link, close::TIMED_OUT, "box not reachable");
        }
    }
}

#[cfg(test)]
mod tests;
