//! The cloud's reference (law `cloud-agrees-with-spec`): a second cloud written
//! from SPEC.md §1-3 and, where the SPEC says "chosen here", from the cloud model's
//! written docs (models/cloud/src/lib.rs crate docs, consts.rs). It replays each
//! cloud's journal (config, inputs, what the cloud read inside the tunnels, its
//! transmits) and checks every decision:
//!
//! * doors and targets: `/box/<id>` of a registered box gets a `Challenge` (kind 6,
//!   chan 0, a 16-byte nonce) first and becomes the box's uplink only once the box's
//!   `Auth` (kind 7, chan 0) carries SHA-256("ftw.uplink.auth.v1:" || X25519(cloud,
//!   box) || nonce || box id), the box uplink table's rule; then a new one replaces the
//!   old, closed 1000; any other answer 4403; of an unknown box 4403; `/app/v1` a phone;
//!   anything else 4400;
//! * a phone's first message: unreadable 4400; sessions off: message 2 then 1013
//!   (after the handshake, SPEC §3 / seed 000); not paired with the box it names:
//!   4403, no message 2 and no byte of the box ever (SPEC §3); paired: message 2,
//!   then `Open(chan, m1)` on the box's uplink with the phone's message 1 unchanged, at
//!   once or when the uplink comes;
//! * box not answering: 4408 exactly 10 s after the outer handshake (brief: BOX_WAIT_MS),
//!   and never later;
//! * relay routing: a phone's message goes to its own box's uplink on its own channel;
//!   a box message on a channel goes to the phone of that channel only; nothing before
//!   the box's message 2;
//! * blindness: the box-session bytes go through unchanged: `Data(chan, inner)` carries
//!   exactly what the phone's tunnel message opened to, and that is the tunnel message
//!   less its 8-byte seq and 16-byte tag; every box message reaches the phone as one
//!   tunnel message of exactly its length plus 24, seq counting from 0 (SPEC §2: `seq u64
//!   BE || AEAD`), on the lane its kind says (Data: stream, Bulk: the bulk stream, Dgram:
//!   a datagram where the link has them);
//! * close codes propagate: the box's `Close(chan, code)` closes the phone with that code;
//!   a phone link that ends tells the box `Close(chan, 1000)`; an uplink that ends closes
//!   its relayed phones 1001 (cloud docs "Relay");
//! * the state after the end: the cloud holds exactly the links the reference holds after
//!   every call (a closed link's state is released);
//! * its counters count what happened, after every call (cloud docs, `CloudStats`):
//!   phones and registered boxes' uplinks accepted, proofs right and wrong, 4403s to
//!   unpaired phones, 1013s with sessions off, 4408s, phone messages relayed to a box,
//!   box messages relayed to a phone (and of them as datagrams), and every input that
//!   went nowhere as dropped: on no link, a datagram before message 1, a phone message
//!   that does not open or comes before its box answered, an uplink message that is
//!   unreadable, for no channel's phone, or of a kind the relay does not carry.
//!
//! Where the order of transmits on different links is free, any order passes; on one link
//! the order is checked, except among the `Open`s of several waiting phones.

use std::collections::{BTreeMap, BTreeSet, VecDeque};

use crate::law::rules;
use crate::law::spec::close as code;
use crate::law::spec::uplink as kind;
use crate::law::spec::uplink::{AUTH_PREFIX, NONCE_LEN};
use crate::law::{Judge, Law};
use crate::world::journal::cloud::{Bytes, CloudNote, CloudStats, CloudStep, Key, LinkId, SendKind};
use crate::world::journal::{Entry, Step};

use super::{differs, Lockstep, Reference, R};

/// How long a phone waits for its box (brief: BOX_WAIT_MS, 10 s; cloud consts docs).
const BOX_WAIT_MS: u64 = 10_000;
/// The phone's target (cloud consts docs: chosen there).
const PHONE_TARGET: &str = "/app/v1";
/// A box's uplink target prefix (box consts docs).
const UPLINK_PREFIX: &str = "/box/";
/// What a tunnel transport message adds: `seq u64 BE` and the AEAD tag (SPEC §2, ChaChaPoly).
const SEQ_LEN: usize = 8;
const TAG_LEN: usize = 16;

/// The proof a box holding `box_key`'s private half gives for `nonce`, computed from
/// the cloud's side: X25519 of the cloud's private key and the box's public key.
fn proof(cloud_private: &Key, box_public: &Key, nonce: &[u8], box_id: &str) -> Vec<u8> {
    use sha2::Digest;
    use snow::resolvers::CryptoResolver;
    let mut dh = snow::resolvers::DefaultResolver.resolve_dh(&snow::params::DHChoice::Curve25519).expect("X25519");
    dh.set(cloud_private);
    let mut shared = [0u8; 32];
    dh.dh(box_public, &mut shared).expect("32-byte keys");
    sha2::Sha256::new().chain_update(AUTH_PREFIX).chain_update(shared).chain_update(nonce).chain_update(box_id.as_bytes()).finalize().to_vec()
}

pub const CLOUD: Reference = Reference {
    law: Law::new(
        "cloud-agrees-with-spec",
        "the cloud, replayed against a reference written from the SPEC: pairing, close codes, the 10 s box wait, relay routing, blindness, state released",
    )
    .checks(&[&rules::CLOSE_CODE_CARRIED, &rules::BOX_0RTT_PHONE_NEVER, &rules::BLIND_RELAY, &rules::NOTHING_AFTER_END, &rules::UNPAIRED_AND_OFF])
    .judged(Judge::Journal(check)),
    planted: &[],
};

#[derive(Debug, Clone, PartialEq, Eq)]
enum Phase {
    /// Waiting for the box's uplink (message 1 kept).
    Waiting,
    /// `Open` sent; the channel is learned when the `Open` is matched.
    Opened(Option<u32>),
    Relaying(u32),
}

#[derive(Debug)]
struct Phone {
    box_id: String,
    datagrams: bool,
    m1: Vec<u8>,
    phase: Phase,
    deadline_ms: u64,
    /// The seq of the next tunnel message to the phone.
    out_seq: u64,
}

impl Phone {
    fn chan(&self) -> Option<u32> {
        match self.phase {
            Phase::Opened(c) => c,
            Phase::Relaying(c) => Some(c),
            Phase::Waiting => None,
        }
    }
}

#[derive(Debug)]
enum Link {
    /// A box's uplink before its proof: the nonce once the `Challenge` is matched.
    Pending {
        box_id: String,
        nonce: Option<Vec<u8>>,
    },
    Uplink(String),
    PhoneNew {
        datagrams: bool,
    },
    Phone(Phone),
}

/// A transmit the cloud must make.
#[derive(Debug, Clone)]
enum Want {
    Close(u16),
    /// The uplink's `Challenge` (its nonce is the cloud's choice).
    Challenge,
    /// The outer handshake's message 2 (a stream message).
    Msg2,
    /// `Open(chan, m1)` for the phone on `phone`, chan of the cloud's choosing.
    Open {
        phone: LinkId,
        m1: Vec<u8>,
    },
    /// `Data(chan, inner)` on the uplink.
    Data {
        chan: u32,
        inner: Vec<u8>,
    },
    /// `Close(chan, code)` on the uplink.
    CloseChan {
        chan: u32,
        code: u16,
    },
    /// A tunnel message to the phone: how, its length and seq.
    ToPhone {
        kind: SendKind,
        len: usize,
        seq: u64,
    },
}

/// What the reference counted (the model's `CloudStats`, field for field).
#[derive(Debug, Default)]
struct Counts {
    phones_accepted: u64,
    uplinks_accepted: u64,
    refused_unpaired: u64,
    timed_out: u64,
    sessions_off_closes: u64,
    relayed_to_box: u64,
    relayed_to_phone: u64,
    relayed_as_datagram: u64,
    dropped: u64,
    uplinks_authed: u64,
    uplinks_refused: u64,
}

impl Counts {
    /// The first counter where the model's differs.
    fn differ(&self, m: &CloudStats) -> Option<(&'static str, u64, u64)> {
        [
            ("phones_accepted", m.phones_accepted, self.phones_accepted),
            ("uplinks_accepted", m.uplinks_accepted, self.uplinks_accepted),
            ("refused_unpaired", m.refused_unpaired, self.refused_unpaired),
            ("timed_out", m.timed_out, self.timed_out),
            ("sessions_off_closes", m.sessions_off_closes, self.sessions_off_closes),
            ("relayed_to_box", m.relayed_to_box, self.relayed_to_box),
            ("relayed_to_phone", m.relayed_to_phone, self.relayed_to_phone),
            ("relayed_as_datagram", m.relayed_as_datagram, self.relayed_as_datagram),
            ("dropped", m.dropped, self.dropped),
            ("uplinks_authed", m.uplinks_authed, self.uplinks_authed),
            ("uplinks_refused", m.uplinks_refused, self.uplinks_refused),
        ]
        .into_iter()
        .find(|(_, a, b)| a != b)
    }
}

struct Ref {
    counts: Counts,
    cloud_private: Key,
    boxes: BTreeMap<String, Key>,
    pairs: BTreeSet<(Key, String)>,
    sessions_on: bool,
    links: BTreeMap<LinkId, Link>,
    uplinks: BTreeMap<String, LinkId>,
    notes: Vec<CloudNote>,
    /// The input step of the call being replayed.
    call: Option<CloudStep>,
    call_ms: u64,
    wants: BTreeMap<LinkId, VecDeque<Want>>,
}

/// The law's check: `None` when no cloud ran.
pub fn check(journal: &[Entry]) -> Option<Lockstep> {
    let mut clouds: BTreeMap<&str, Ref> = BTreeMap::new();
    let mut steps = 0;
    for (index, e) in journal.iter().enumerate() {
        let fail = |(model, spec): (String, String)| Some(Lockstep::Differs { index, entry: e.describe(), model, spec });
        for c in clouds.values() {
            if let Err(d) = c.overdue(e.t_ms) {
                return fail(d);
            }
        }
        let Step::Cloud(s) = &e.step else { continue };
        steps += 1;
        let r = match (s, clouds.get_mut(e.host.as_str())) {
            (CloudStep::Config { cloud_private, boxes, pairs, sessions_enabled }, _) => {
                clouds.insert(&e.host, Ref::new(*cloud_private, boxes, pairs, *sessions_enabled));
                Ok(())
            }
            (_, None) => differs(format!("{s:?}"), "a cloud journals its config first"),
            (s, Some(c)) => c.step(e.t_ms, s),
        };
        if let Err(d) = r {
            return fail(d);
        }
    }
    if steps == 0 {
        return None;
    }
    for c in clouds.values_mut() {
        if let Err(d) = c.finish_call() {
            return Some(super::at_end(journal, d));
        }
    }
    Some(Lockstep::Agreed { steps })
}

/// An uplink message's kind, channel and payload length, from its clear head.
fn up_header(b: &Bytes) -> Option<(u8, u32)> {
    let chan: [u8; 4] = b.head.get(1..5)?.try_into().ok()?;
    Some((b.head[0], u32::from_be_bytes(chan)))
}

/// A tunnel message's clear seq.
fn seq_of(b: &Bytes) -> Option<u64> {
    Some(u64::from_be_bytes(b.head.get(..SEQ_LEN)?.try_into().ok()?))
}

impl Ref {
    fn new(cloud_private: Key, boxes: &[(String, Key)], pairs: &[(Key, String)], sessions_on: bool) -> Ref {
        Ref {
            counts: Counts::default(),
            cloud_private,
            boxes: boxes.iter().cloned().collect(),
            pairs: pairs.iter().cloned().collect(),
            sessions_on,
            links: BTreeMap::new(),
            uplinks: BTreeMap::new(),
            notes: Vec::new(),
            call: None,
            call_ms: 0,
            wants: BTreeMap::new(),
        }
    }

    /// A phone the box did not answer within 10 s must have had its 4408 by now.
    fn overdue(&self, t: u64) -> R {
        for (id, l) in &self.links {
            if let Link::Phone(p) = l {
                if !matches!(p.phase, Phase::Relaying(_)) && t > p.deadline_ms {
                    return differs(format!("link {id} still waits for its box"), format!("close 4408 at {} ms, 10 s after the handshake", p.deadline_ms));
                }
            }
        }
        Ok(())
    }

    fn step(&mut self, t: u64, s: &CloudStep) -> R {
        match s {
            CloudStep::Config { .. } => Ok(()),
            CloudStep::Note(n) => {
                self.notes.push(n.clone());
                Ok(())
            }
            CloudStep::Holds { links, stats } => {
                self.predict(t)?;
                if *links != self.links.len() {
                    return differs(format!("holds {links} links"), format!("{} links open", self.links.len()));
                }
                match self.counts.differ(stats) {
                    Some((name, model, spec)) => differs(format!("counts {name} = {model}"), format!("{name} = {spec}: what happened")),
                    None => Ok(()),
                }
            }
            CloudStep::Send { link, kind, bytes } => self.matched(*link, Some((*kind, bytes)), None),
            CloudStep::Close { link, code } => self.matched(*link, None, Some(*code)),
            input => {
                self.finish_call()?;
                self.call = Some(input.clone());
                self.call_ms = t;
                Ok(())
            }
        }
    }

    /// The call before is over: every transmit it had to make came.
    fn finish_call(&mut self) -> R {
        if let Some((link, w)) = self.wants.iter().find_map(|(l, q)| q.front().map(|w| (*l, w.clone()))) {
            return differs("nothing more", format!("on link {link}: {w:?}"));
        }
        if self.call.is_some() {
            return differs("no Holds step after the call", "each call journals what the cloud holds");
        }
        Ok(())
    }

    fn want(&mut self, link: LinkId, w: Want) {
        self.wants.entry(link).or_default().push_back(w);
    }

    /// The call's notes are in: predict its transmits and the state after it.
    fn predict(&mut self, t: u64) -> R {
        let Some(call) = self.call.take() else {
            return differs("Holds without a call", "a call, then what the cloud holds");
        };
        let notes = std::mem::take(&mut self.notes);
        match call {
            CloudStep::Accept { link, target, datagrams } => self.accept(link, &target, datagrams, &notes),
            CloudStep::In { link, datagram, bytes } => self.input(t, link, datagram, &bytes, &notes),
            CloudStep::Closed { link, .. } => {
                no_notes(&notes)?;
                self.forget(link);
                Ok(())
            }
            CloudStep::Timeout => {
                no_notes(&notes)?;
                let late: Vec<LinkId> = self
                    .links
                    .iter()
                    .filter(|(_, l)| matches!(l, Link::Phone(p) if !matches!(p.phase, Phase::Relaying(_)) && p.deadline_ms <= t))
                    .map(|(id, _)| *id)
                    .collect();
                for id in late {
                    self.counts.timed_out += 1;
                    self.close(id, code::TIMED_OUT);
                }
                Ok(())
            }
            other => differs(format!("{other:?}"), "an input"),
        }
    }

    /// The cloud closes `link` with `code` and forgets it.
    fn close(&mut self, link: LinkId, code: u16) {
        self.want(link, Want::Close(code));
        self.forget(link);
    }

    /// A link is gone: tell the other side (cloud docs "Relay").
    fn forget(&mut self, link: LinkId) {
        match self.links.remove(&link) {
            Some(Link::Uplink(box_id)) if self.uplinks.get(&box_id) == Some(&link) => {
                self.uplinks.remove(&box_id);
                let phones: Vec<LinkId> = self
                    .links
                    .iter()
                    .filter(|(_, l)| matches!(l, Link::Phone(p) if p.box_id == box_id && p.phase != Phase::Waiting))
                    .map(|(id, _)| *id)
                    .collect();
                for p in phones {
                    self.close(p, code::GOING_AWAY);
                }
            }
            Some(Link::Phone(p)) => {
                if let (Some(&up), true) = (self.uplinks.get(&p.box_id), p.phase != Phase::Waiting) {
                    match p.chan() {
                        Some(chan) => self.want(up, Want::CloseChan { chan, code: code::NORMAL }),
                        // Its Open is still to be matched in this call: the channel is unknown.
                        None => self.want(up, Want::CloseChan { chan: u32::MAX, code: code::NORMAL }),
                    }
                }
            }
            _ => {}
        }
    }

    fn accept(&mut self, link: LinkId, target: &str, datagrams: bool, notes: &[CloudNote]) -> R {
        no_notes(notes)?;
        if self.links.contains_key(&link) {
            return differs(format!("link {link} accepted again"), "a link id names one link");
        }
        if let Some(box_id) = target.strip_prefix(UPLINK_PREFIX) {
            if !self.boxes.contains_key(box_id) {
                self.want(link, Want::Close(code::FORBIDDEN));
                return Ok(());
            }
            self.counts.uplinks_accepted += 1;
            self.links.insert(link, Link::Pending { box_id: box_id.to_string(), nonce: None });
            self.want(link, Want::Challenge);
        } else if target == PHONE_TARGET {
            self.counts.phones_accepted += 1;
            self.links.insert(link, Link::PhoneNew { datagrams });
        } else {
            self.want(link, Want::Close(code::BAD));
        }
        Ok(())
    }

    /// The box's answer on a pending uplink: the proof of its key for this nonce makes
    /// the uplink the box's; anything else is refused with 4403.
    fn auth(&mut self, link: LinkId, box_id: &str, nonce: Option<&[u8]>, bytes: &Bytes) -> R {
        let Some(nonce) = nonce else { return differs(format!("input on link {link}"), "the challenge sent before any answer") };
        let want = [&[kind::AUTH, 0, 0, 0, 0][..], &proof(&self.cloud_private, &self.boxes[box_id], nonce, box_id)].concat();
        if bytes.whole.as_deref() != Some(&want[..]) {
            self.counts.uplinks_refused += 1;
            self.close(link, code::FORBIDDEN);
            return Ok(());
        }
        self.counts.uplinks_authed += 1;
        if let Some(old) = self.uplinks.get(box_id).copied() {
            self.close(old, code::NORMAL);
        }
        self.links.insert(link, Link::Uplink(box_id.to_string()));
        self.uplinks.insert(box_id.to_string(), link);
        let waiting: Vec<LinkId> =
            self.links.iter().filter(|(_, l)| matches!(l, Link::Phone(p) if p.box_id == box_id && p.phase == Phase::Waiting)).map(|(id, _)| *id).collect();
        for p in waiting {
            self.open_at_box(p);
        }
        Ok(())
    }

    fn open_at_box(&mut self, phone: LinkId) {
        let Some(Link::Phone(p)) = self.links.get_mut(&phone) else { return };
        let Some(&up) = self.uplinks.get(&p.box_id) else { return };
        p.phase = Phase::Opened(None);
        let m1 = p.m1.clone();
        self.want(up, Want::Open { phone, m1 });
    }

    fn input(&mut self, t: u64, link: LinkId, datagram: bool, bytes: &Bytes, notes: &[CloudNote]) -> R {
        match self.links.get(&link) {
            None => {
                self.counts.dropped += 1;
                no_notes(notes)
            }
            Some(Link::PhoneNew { .. }) if datagram => {
                self.counts.dropped += 1;
                no_notes(notes)
            }
            Some(Link::PhoneNew { datagrams }) => {
                let dg = *datagrams;
                match notes {
                    [CloudNote::Msg1 { link: l, read }] if *l == link => self.msg1(t, link, dg, read.clone()),
                    _ => differs(format!("notes {notes:?}"), "the phone's first message read as message 1"),
                }
            }
            Some(Link::Phone(_)) => match notes {
                [CloudNote::Opened { link: l, inner }] if *l == link => self.phone_msg(link, datagram, bytes, inner.as_deref()),
                _ => differs(format!("notes {notes:?}"), "the phone's tunnel message opened (or not)"),
            },
            Some(Link::Uplink(box_id)) => {
                no_notes(notes)?;
                let box_id = box_id.clone();
                self.box_msg(&box_id, bytes)
            }
            Some(Link::Pending { box_id, nonce }) => {
                no_notes(notes)?;
                let (box_id, nonce) = (box_id.clone(), nonce.clone());
                self.auth(link, &box_id, nonce.as_deref(), bytes)
            }
        }
    }

    fn msg1(&mut self, t: u64, link: LinkId, datagrams: bool, read: Option<(Key, String, Vec<u8>)>) -> R {
        let Some((phone, box_id, m1)) = read else {
            self.close(link, code::BAD);
            return Ok(());
        };
        if !self.sessions_on {
            // The door completes the handshake, then closes (seed 000).
            self.counts.sessions_off_closes += 1;
            self.want(link, Want::Msg2);
            self.close(link, code::TRY_AGAIN_LATER);
            return Ok(());
        }
        if !self.pairs.contains(&(phone, box_id.clone())) {
            // No message 2 and nothing of the box (SPEC §3).
            self.counts.refused_unpaired += 1;
            self.close(link, code::FORBIDDEN);
            return Ok(());
        }
        self.want(link, Want::Msg2);
        let p = Phone { box_id, datagrams, m1, phase: Phase::Waiting, deadline_ms: t + BOX_WAIT_MS, out_seq: 0 };
        self.links.insert(link, Link::Phone(p));
        self.open_at_box(link);
        Ok(())
    }

    /// A tunnel message from a phone: relayed unchanged once the box answered.
    fn phone_msg(&mut self, link: LinkId, datagram: bool, bytes: &Bytes, inner: Option<&[u8]>) -> R {
        let Some(inner) = inner else {
            self.counts.dropped += 1;
            if !datagram {
                self.close(link, code::BAD);
            }
            return Ok(());
        };
        if inner.len() + SEQ_LEN + TAG_LEN != bytes.len {
            return differs(
                format!("opened {} bytes of a {}-byte tunnel message", inner.len(), bytes.len),
                "the tunnel message less its seq and tag (SPEC §2)",
            );
        }
        let Some(Link::Phone(p)) = self.links.get(&link) else { unreachable!("a phone link") };
        if let (Phase::Relaying(chan), Some(&up)) = (&p.phase, self.uplinks.get(&p.box_id)) {
            let chan = *chan;
            self.counts.relayed_to_box += 1;
            self.want(up, Want::Data { chan, inner: inner.to_vec() });
        } else {
            // Nothing may come before the box's message 2.
            self.counts.dropped += 1;
        }
        Ok(())
    }

    /// An uplink message from a box: routed to the phone of its channel.
    fn box_msg(&mut self, box_id: &str, bytes: &Bytes) -> R {
        let carried = [kind::CLOSE, kind::DATA, kind::BULK, kind::DGRAM];
        let Some((k, chan)) = up_header(bytes).filter(|(k, _)| carried.contains(k)) else {
            self.counts.dropped += 1;
            return Ok(());
        };
        let phone = self.links.iter().find_map(|(id, l)| match l {
            Link::Phone(p) if p.box_id == box_id && p.chan() == Some(chan) => Some(*id),
            _ => None,
        });
        let Some(phone) = phone else {
            self.counts.dropped += 1;
            return Ok(());
        };
        let Some(Link::Phone(p)) = self.links.get_mut(&phone) else { unreachable!("a phone link") };
        let payload = bytes.len - 5;
        match k {
            kind::CLOSE => {
                let c = match bytes.whole.as_deref() {
                    Some([_, _, _, _, _, a, b, ..]) => u16::from_be_bytes([*a, *b]),
                    _ => code::NO_STATUS,
                };
                self.links.remove(&phone);
                self.want(phone, Want::Close(c));
            }
            kind::DATA | kind::BULK | kind::DGRAM => {
                p.phase = Phase::Relaying(chan);
                let how = match k {
                    kind::BULK => SendKind::Bulk,
                    kind::DGRAM if p.datagrams => SendKind::Datagram,
                    _ => SendKind::Message,
                };
                let seq = p.out_seq;
                p.out_seq += 1;
                self.counts.relayed_to_phone += 1;
                self.counts.relayed_as_datagram += u64::from(how == SendKind::Datagram);
                self.want(phone, Want::ToPhone { kind: how, len: payload + SEQ_LEN + TAG_LEN, seq });
            }
            _ => {}
        }
        Ok(())
    }

    /// A transmit against what the call had to send on its link.
    fn matched(&mut self, link: LinkId, send: Option<(SendKind, &Bytes)>, close: Option<u16>) -> R {
        let q = self.wants.entry(link).or_default();
        let mut k = 0;
        while k < q.len() {
            if fits(&q[k], send, close) {
                break;
            }
            // Only the Opens of several waiting phones may come in any order.
            if !matches!(q[k], Want::Open { .. }) {
                k = q.len();
                break;
            }
            k += 1;
        }
        let got = match (send, close) {
            (Some((how, b)), _) => format!("send {how:?} of {} bytes, head {:?}", b.len, b.head),
            (None, c) => format!("close {c:?}"),
        };
        if k >= q.len() {
            let w = q.front().cloned();
            return differs(format!("on link {link}: {got}"), format!("{w:?}"));
        }
        let w = q.remove(k).expect("in range");
        if q.is_empty() {
            self.wants.remove(&link);
        }
        if let (Want::Open { phone, .. }, Some((_, b))) = (&w, send) {
            self.bind(*phone, b)?;
        }
        if let (Want::Challenge, Some((_, b)), Some(Link::Pending { nonce, .. })) = (&w, send, self.links.get_mut(&link)) {
            *nonce = b.whole.as_ref().map(|w| w[5..].to_vec());
        }
        Ok(())
    }

    /// An `Open` was matched: the phone's channel is the one it names, unique at its box.
    fn bind(&mut self, phone: LinkId, b: &Bytes) -> R {
        let (_, chan) = up_header(b).expect("an Open has a header");
        let Some(Link::Phone(p)) = self.links.get(&phone) else { return Ok(()) };
        let box_id = p.box_id.clone();
        let taken = self.links.iter().any(|(id, l)| *id != phone && matches!(l, Link::Phone(o) if o.box_id == box_id && o.chan() == Some(chan)));
        if taken {
            return differs(format!("Open on chan {chan}"), "a channel names one phone link at its box");
        }
        if let Some(Link::Phone(p)) = self.links.get_mut(&phone) {
            p.phase = Phase::Opened(Some(chan));
        }
        Ok(())
    }
}

fn no_notes(notes: &[CloudNote]) -> R {
    match notes {
        [] => Ok(()),
        n => differs(format!("read {n:?}"), "nothing read inside a tunnel in this call"),
    }
}

/// Whether a transmit is the one wanted.
fn fits(w: &Want, send: Option<(SendKind, &Bytes)>, close: Option<u16>) -> bool {
    let up = send.and_then(|(how, b)| up_header(b).map(|h| (how, h, b)));
    let payload = |b: &Bytes| b.whole.as_ref().map(|w| w[5..].to_vec());
    match (w, close) {
        (Want::Close(c), Some(got)) => *c == got,
        (_, Some(_)) => false,
        (Want::Close(_), None) => false,
        (Want::Msg2, None) => matches!(send, Some((SendKind::Message, _))),
        (Want::Challenge, None) => matches!(up, Some((SendKind::Message, (kind::CHALLENGE, 0), b)) if b.len == 5 + NONCE_LEN),
        (Want::Open { m1, .. }, None) => {
            matches!(up, Some((SendKind::Message, (kind::OPEN, _), b)) if b.len == 5 + m1.len() && payload(b).is_none_or(|p| &p == m1))
        }
        (Want::Data { chan, inner }, None) => {
            matches!(up, Some((SendKind::Message, (kind::DATA, c), b)) if c == *chan && b.len == 5 + inner.len() && payload(b).is_none_or(|p| &p == inner))
        }
        (Want::CloseChan { chan, code }, None) => {
            matches!(up, Some((SendKind::Message, (kind::CLOSE, c), b)) if (c == *chan || *chan == u32::MAX) && b.whole.as_deref().is_some_and(|w| w[5..] == code.to_be_bytes()))
        }
        (Want::ToPhone { kind, len, seq }, None) => matches!(send, Some((how, b)) if how == *kind && b.len == *len && seq_of(b) == Some(*seq)),
    }
}
