//! `wire-window`: the wire's transport messages at their boundaries, with no
//! network in between. A box session (real Noise IK, `ftw_wire`) seals frames;
//! the phone's end opens them in an order drawn from the run seed that a
//! network plan almost never reaches: sequence numbers at and around the replay
//! window's edges (1, 63, 64, 65, 1023, 1024, 1025 ahead or behind the highest
//! accepted), copies of what was already opened, forged messages ahead of the
//! genuine ones and behind them; payloads at and around every frame bucket's
//! edge on both lanes. Issue 14 section 3: "every boundary a rule has". The
//! replay window's reference (`replay-window-agrees-with-spec`, properties
//! crate) judges every seq the window saw; the laws here state the rules:
//! nothing opens twice, a forged message never opens nor moves the window, a
//! first copy inside the window always opens (no false replay), and every frame
//! takes its lane's bucket, zero-padded, or is refused when it does not fit.
//!
//! Each step's expectation is computed from SPEC sections 2 and 4, never from
//! the model's constants.

use std::collections::BTreeSet;

use rand::{Rng, RngCore};
use rand_chacha::ChaCha20Rng;

use super::def::{RunReport, ScenarioDef};
use crate::drive::rig::Rig;
use crate::law::laws;
use crate::law::reference;
use crate::law::seen::{Replays, Seen};
use crate::law::Check;
use crate::world::domain::Domain;
use crate::world::host::{addr, PHONE};
use crate::world::journal::{self, replay::ReplayStep, Step};
use crate::world::switch::Switch;
use crate::world::topology::RunSpec;
use crate::world::trace;

/// SPEC section 4: "a replay window of 1024 sequence numbers".
const WINDOW: u64 = 1024;
/// SPEC section 2: `ver | lane | flags | rsvd | len u16` is six bytes.
const HEADER: usize = 6;
/// SPEC section 2: lane 0 is one bucket of 256 or 512 B for the session's life.
const CONTROL_BUCKETS: [usize; 2] = [256, 512];
/// SPEC section 2: "Flag `0x02` = TRUNC" (byte 2 of the frame).
const TRUNC: u8 = 0x02;
/// SPEC section 2: lane 1 steps 1024 / 4096 / 16384.
const BULK_BUCKETS: [usize; 3] = [1024, 4096, 16384];
/// Distances from the highest accepted seq that the window's rule turns on
/// (the old 64-wide window's edge, then the 1024-wide one's).
const EDGES: [u64; 9] = [1, 2, 63, 64, 65, 1022, 1023, 1024, 1025];
/// Messages the phone's end is handed in one run.
const STEPS: usize = 300;

/// What one run saw, for the laws.
#[derive(Default)]
struct Tally {
    /// Authentic seqs opened, in order (a seq twice is a replay accepted).
    opened: Vec<u64>,
    /// Forged messages that opened, or that moved the window.
    forged_accepted: Vec<String>,
    /// First copies inside the window that were refused.
    false_replays: Vec<String>,
    /// Frames whose bucket, padding or content differ from SPEC section 2.
    frames_wrong: Vec<String>,
    /// Frames sealed, by lane.
    frames: [u32; 2],
}

pub fn run(spec: &RunSpec) -> RunReport {
    let (outcome, tally) = Rig::offline(spec, PHONE, addr::PHONE, tallied);
    let t = tally.unwrap_or_default();
    let twice = t.opened.len() - t.opened.iter().collect::<BTreeSet<_>>().len();
    let checks = vec![
        Check {
            law: &laws::OPENS_ONCE_FORGED_NEVER,
            ok: twice == 0 && t.forged_accepted.is_empty(),
            detail: format!("{} opened, {twice} of them a second time; forged accepted: {:?}", t.opened.len(), first(&t.forged_accepted)),
        },
        Check {
            law: &laws::FRAME_TAKES_ITS_BUCKET,
            ok: t.frames_wrong.is_empty() && t.frames.iter().all(|&n| n > 0),
            detail: format!("{} lane-0 and {} lane-1 frames; wrong: {:?}", t.frames[0], t.frames[1], first(&t.frames_wrong)),
        },
    ];
    // The workload counts the first copies the window refused: none of them a copy anyone made.
    let about = format!("first copies inside the window refused: {:?}", first(&t.false_replays));
    let replays = Replays { refused: t.false_replays.len() as u64, made: 0, about };
    RunReport::new(outcome, checks).with(Seen { replays: Some(replays), ..Seen::default() })
}

/// The workload's tally, the frames sealed by the wire's own encoder.
fn tallied(spec: &RunSpec) -> Tally {
    let mut t = Tally::default();
    workload(spec, &mut t, ftw_wire::Frame::encode);
    t
}

/// The first few of a law's findings (the count is in the list's length).
fn first(v: &[String]) -> &[String] {
    &v[..v.len().min(3)]
}

/// The two ends of a box session: the box seals, the phone opens.
fn session_pair(spec: &RunSpec) -> (ftw_wire::Session, ftw_wire::Session) {
    use ftw_wire::noise::{HandshakeParams, Initiator, Responder, SeededResolver};
    let mut keys = spec.seed.stream("wire-window.keys");
    let box_key = SeededResolver::from_rng(&mut keys).generate_keypair();
    let phone_key = SeededResolver::from_rng(&mut keys).generate_keypair();
    let phone = HandshakeParams::box_session_initiator(phone_key, box_key.public, SeededResolver::from_rng(&mut keys)).with_switches(spec.switches.wire());
    let boxp = HandshakeParams::box_session_responder(box_key, SeededResolver::from_rng(&mut keys));
    let (phone, m1) = Initiator::new(&phone).and_then(|i| i.write_msg1(&[])).expect("message 1");
    let (got, _) = Responder::new(&boxp).and_then(|r| r.read_msg1(&m1)).expect("box reads message 1");
    let (m2, box_end) = got.write_msg2(&[]).expect("message 2");
    let (_, phone_end) = phone.read_msg2(&m2).expect("phone reads message 2");
    (box_end, phone_end)
}

/// The box's end and what it sealed, by seq: (frame bytes, transport message).
struct Sender {
    end: ftw_wire::Session,
    sealed: Vec<(Vec<u8>, Vec<u8>)>,
    control: usize,
}

impl Sender {
    /// Seal small lane-0 frames up to `seq` (the seqs nobody asked for), then `frame` at it.
    fn seal_at(&mut self, seq: u64, frame: Vec<u8>) {
        while (self.sealed.len() as u64) < seq {
            let filler = one_byte_frame(self.control, 0xf1);
            let msg = self.end.seal(&filler).expect("seal");
            self.sealed.push((filler, msg));
        }
        if self.sealed.len() as u64 == seq {
            let msg = self.end.seal(&frame).expect("seal");
            self.sealed.push((frame, msg));
        }
    }
}

/// A forgery carrying `seq` in clear: the genuine message at `seq` with its
/// tag altered, or, past what was sealed, the last genuine message with its
/// seq rewritten (its associated data then no longer authenticates).
fn forge(tx: &Sender, seq: u64) -> Vec<u8> {
    let (_, last) = tx.sealed.last().expect("a genuine message comes first");
    match tx.sealed.get(seq as usize) {
        Some((_, msg)) => {
            let mut m = msg.clone();
            let end = m.len() - 1;
            m[end] ^= 0x5a;
            m
        }
        None => {
            let mut m = last.clone();
            m[..8].copy_from_slice(&seq.to_be_bytes());
            m
        }
    }
}

/// A one-byte lane-0 frame: what the box seals where no drawn frame goes.
fn one_byte_frame(control: usize, byte: u8) -> Vec<u8> {
    ftw_wire::Frame::control(vec![byte]).encode(control_bucket(control)).expect("a one-byte lane-0 frame fits")
}

fn control_bucket(len: usize) -> ftw_wire::ControlBucket {
    ftw_wire::ControlBucket::from_len(len).expect("a lane-0 bucket")
}

/// One message handed to the phone's end.
enum Op {
    /// The genuine message at this seq.
    Genuine(u64),
    /// A forgery carrying this seq (its ciphertext altered).
    Forged(u64),
}

/// How the box encodes a frame: the model's encoder (a test plants another).
type Encoder = fn(&ftw_wire::Frame, ftw_wire::ControlBucket) -> Result<Vec<u8>, ftw_wire::frame::EncodeError>;

fn workload(spec: &RunSpec, t: &mut Tally, encode: Encoder) {
    let mut rng = spec.seed.stream("wire-window.schedule");
    let (box_end, mut phone_end) = session_pair(spec);
    phone_end.keep_judged();
    let control = CONTROL_BUCKETS[rng.random_range(0..2)];
    let mut tx = Sender { end: box_end, sealed: Vec::new(), control };
    let mut highest: Option<u64> = None;
    let mut accepted = BTreeSet::new();
    for _ in 0..STEPS {
        let op = next_op(&mut rng, highest, tx.sealed.len() as u64);
        let (seq, forged) = match op {
            Op::Genuine(s) => (s, false),
            Op::Forged(s) => (s, true),
        };
        if !forged && (tx.sealed.len() as u64) <= seq {
            let frame = if rng.random_range(0..4) == 0 { drawn_delta(&mut rng, control, t) } else { drawn_frame(&mut rng, control, t, encode) };
            tx.seal_at(seq, frame);
        }
        let (sent, msg) = match tx.sealed.get(seq as usize) {
            Some((sent, msg)) if !forged => (sent.clone(), msg.clone()),
            _ => (Vec::new(), forge(&tx, seq)),
        };
        let before = phone_end.window().highest();
        let got = phone_end.open_raw(&msg);
        journal_window(&mut phone_end);
        let inside_first = highest.is_none_or(|h| seq > h || h - seq < WINDOW) && !accepted.contains(&seq);
        trace::record(PHONE, "wire.open", format!("seq={seq} forged={forged} opened={}", got.is_ok()));
        match (&got, forged) {
            (Ok(plain), false) => {
                t.opened.push(seq);
                accepted.insert(seq);
                highest = Some(highest.map_or(seq, |h| h.max(seq)));
                if plain != &sent || ftw_wire::Frame::decode(plain).is_err() {
                    t.frames_wrong.push(format!("seq {seq} opened as {} B that differ from the {} B frame sealed", plain.len(), sent.len()));
                }
            }
            (Ok(_), true) => t.forged_accepted.push(format!("seq {seq} opened")),
            (Err(e), false) if inside_first => t.false_replays.push(format!("seq {seq} (highest {highest:?}): {e:?}")),
            (Err(_), true) if phone_end.window().highest() != before => {
                t.forged_accepted.push(format!("seq {seq} moved the window from {before:?} to {:?}", phone_end.window().highest()))
            }
            _ => {}
        }
    }
}

/// Journal what the phone's window judged, as the session driver does.
fn journal_window(end: &mut ftw_wire::Session) {
    for j in end.take_judged() {
        let said = crate::world::journal::replay::Said::of(&j.window);
        journal::record(PHONE, Step::Replay(ReplayStep::Judged { session: 1, layer: journal::replay::Layer::BoxSession, seq: j.seq, said, marked: j.marked }));
    }
}

/// The next message for the phone's end: mostly around the window's edges.
fn next_op(rng: &mut ChaCha20Rng, highest: Option<u64>, sealed: u64) -> Op {
    let Some(h) = highest else { return Op::Genuine(sealed.min(rng.random_range(0..3))) };
    let edge = EDGES[rng.random_range(0..EDGES.len())];
    match rng.random_range(0..10) {
        0..=2 => Op::Genuine(h + 1),
        3 => Op::Genuine(h + edge),
        4 | 5 => Op::Genuine(h.saturating_sub(edge - 1)),
        6 => Op::Genuine(h.saturating_sub(rng.random_range(0..2 * WINDOW))),
        7 => Op::Forged(h + [1, edge, 5000][rng.random_range(0..3)]),
        8 => Op::Forged(h.saturating_sub(edge - 1)),
        _ => Op::Genuine(rng.random_range(0..sealed.max(1))),
    }
}

/// A frame whose payload sits at, just under or just over a bucket's edge (or
/// anywhere), on either lane; records whether the model's encoder agrees with
/// SPEC section 2. Returns the encoded bytes (a one-byte lane-0 frame when the
/// drawn one is rightly refused).
fn drawn_frame(rng: &mut ChaCha20Rng, control: usize, t: &mut Tally, encode: Encoder) -> Vec<u8> {
    let lane = rng.random_range(0..2u8);
    let edges: &[usize] = if lane == 0 { &[control] } else { &BULK_BUCKETS };
    let edge = edges[rng.random_range(0..edges.len())] - HEADER;
    let len = match rng.random_range(0..4) {
        0 => edge - 1,
        1 => edge,
        2 => edge + 1,
        _ => rng.random_range(0..=edge),
    };
    let mut payload = vec![0u8; len];
    rng.fill_bytes(&mut payload);
    let frame = if lane == 0 { ftw_wire::Frame::control(payload.clone()) } else { ftw_wire::Frame::bulk(payload.clone()) };
    let spec_bucket =
        if lane == 0 { CONTROL_BUCKETS.iter().find(|&&b| b == control && len + HEADER <= b) } else { BULK_BUCKETS.iter().find(|&&b| len + HEADER <= b) };
    let got = encode(&frame, control_bucket(control));
    t.frames[lane as usize] += 1;
    match (got, spec_bucket) {
        (Ok(bytes), Some(&b)) => {
            if let Some(why) = frame_differs(&bytes, lane, &payload, b) {
                t.frames_wrong.push(format!("lane {lane}, {len} B: {why}"));
            }
            bytes
        }
        (Err(_), None) => one_byte_frame(control, 0xf2),
        (Ok(bytes), None) => {
            t.frames_wrong.push(format!("lane {lane}, {len} B: encoded into {} B, which SPEC section 2 does not allow", bytes.len()));
            bytes
        }
        (Err(e), Some(b)) => {
            t.frames_wrong.push(format!("lane {lane}, {len} B: refused ({e:?}) though it fits the {b} B bucket"));
            one_byte_frame(control, 0xf2)
        }
    }
}

/// A lane-0 `delta` of up to a few times more changed fields than the session's
/// bucket holds, cut to fit by the model (`fit_delta`); records where it breaks
/// SPEC section 2: lane 0 keeps its one bucket and never fragments, so the frame
/// takes the bucket, and a delta that could not carry every field says so with
/// TRUNC (0x02), carrying the others' values as given. Returns the frame's bytes.
fn drawn_delta(rng: &mut ChaCha20Rng, control: usize, t: &mut Tally) -> Vec<u8> {
    let n = rng.random_range(1..=control / 4);
    let fields: std::collections::BTreeMap<u32, i64> = (0..n).map(|_| (rng.random_range(0..300), rng.random())).collect();
    let seq = u64::from(rng.random::<u32>());
    let (frame, dropped) = ftw_wire::envelope::fit_delta(seq, &ftw_wire::envelope::IdMap(fields.clone()), control_bucket(control));
    t.frames[0] += 1;
    let carried = match ftw_wire::Msg::decode(&frame.payload) {
        Ok((_, ftw_wire::Msg::Delta(d))) => d.fields.0,
        other => {
            t.frames_wrong.push(format!("delta of {} fields: the frame holds {other:?}", fields.len()));
            return one_byte_frame(control, 0xf3);
        }
    };
    // Judged from the encoded bytes and what they carry, not from the flags and the
    // dropped ids `fit_delta` reports: TRUNC (byte 2) exactly when some field is missing.
    let all_there = carried.iter().all(|(k, v)| fields.get(k) == Some(v)) && carried.len() + dropped.len() == fields.len();
    let whole = carried.len() == fields.len();
    let bytes = frame.encode(control_bucket(control));
    let trunc = bytes.as_ref().is_ok_and(|b| b.len() > 2 && b[2] & TRUNC != 0);
    match bytes {
        Ok(b) if b.len() == control && all_there && trunc != whole => b,
        other => {
            let got = other.map(|b| b.len());
            t.frames_wrong.push(format!(
                "delta of {} fields: encoded {got:?}, {} carried, {} dropped, TRUNC {trunc}, values as given {all_there}",
                fields.len(),
                carried.len(),
                dropped.len()
            ));
            one_byte_frame(control, 0xf3)
        }
    }
}

/// How `bytes` differ from SPEC section 2's frame of `payload` on `lane` in a
/// `bucket`-byte bucket: `ver 1 | lane | flags | rsvd 0 | len u16 BE | payload | zero pad`.
fn frame_differs(bytes: &[u8], lane: u8, payload: &[u8], bucket: usize) -> Option<String> {
    let end = HEADER + payload.len();
    if bytes.len() != bucket {
        return Some(format!("{} B, not the {bucket} B bucket", bytes.len()));
    }
    if bytes[0] != 1 || bytes[1] != lane || bytes[3] != 0 {
        return Some(format!("header {:?}", &bytes[..4]));
    }
    if u16::from_be_bytes([bytes[4], bytes[5]]) as usize != payload.len() {
        return Some(format!("len field {:?} for {} B", &bytes[4..6], payload.len()));
    }
    if &bytes[HEADER..end] != payload {
        return Some("payload differs".into());
    }
    bytes[end..].iter().any(|&b| b != 0).then(|| "padding not zero".into())
}

/// `wire-window`.
pub const WIRE_WINDOW: ScenarioDef = ScenarioDef {
    name: "wire-window",
    about: "a box session's transport messages opened at the replay window's edges, with copies, forgeries and frames at every bucket's edge: no network",
    domain: Domain::NO_NETWORK,
    laws: &[&laws::OPENS_ONCE_FORGED_NEVER, &laws::NO_FALSE_REPLAY, &laws::FRAME_TAKES_ITS_BUCKET, &reference::replay::REPLAY.law],
    catches: &[Switch::ForgedMarksWindow, Switch::ReplayWindow64],
    run,
};

#[cfg(test)]
mod tests {
    use super::*;
    use crate::world::seed::RunSeed;
    use crate::world::switch::Switches;

    fn tally(seed: u64, switches: &[&str], encode: Encoder) -> Tally {
        let mut spec = crate::scenario::spec("wire-window", RunSeed(seed));
        spec.switches = Switches::parse(switches.iter().copied()).expect("known switches");
        let mut t = Tally::default();
        workload(&spec, &mut t, encode);
        t
    }

    /// A planted encoder bug: a lane-1 frame that fills its bucket exactly takes the next one.
    fn off_by_one(f: &ftw_wire::Frame, c: ftw_wire::ControlBucket) -> Result<Vec<u8>, ftw_wire::frame::EncodeError> {
        let bucket = BULK_BUCKETS.iter().copied().find(|&b| f.payload.len() + HEADER < b);
        match (f.lane, bucket) {
            (1, Some(b)) => f.encode_padded(b, c),
            _ => f.encode(c),
        }
    }

    #[test]
    fn the_model_keeps_every_rule_on_drawn_schedules() {
        for seed in 1..=8 {
            let t = tally(seed, &[], ftw_wire::Frame::encode);
            assert!(t.forged_accepted.is_empty() && t.false_replays.is_empty() && t.frames_wrong.is_empty(), "seed {seed}");
            assert!(t.opened.len() > 100, "seed {seed}: {} opened", t.opened.len());
        }
    }

    #[test]
    fn a_planted_bucket_off_by_one_breaks_frame_takes_its_bucket() {
        let wrong: usize = (1..=8).map(|seed| tally(seed, &[], off_by_one).frames_wrong.len()).sum();
        assert!(wrong > 0, "the planted encoder went unseen");
    }

    #[test]
    fn the_switches_break_their_laws() {
        assert!((1..=4).all(|seed| !tally(seed, &["forged-marks-window"], ftw_wire::Frame::encode).forged_accepted.is_empty()));
        assert!((1..=4).all(|seed| !tally(seed, &["replay-window-64"], ftw_wire::Frame::encode).false_replays.is_empty()));
    }
}
