//! Law `wire-agrees-with-spec`: the bytes on the wire, judged against SPEC §2
//! and §3 from what was sent (issue 32 section 2), not from the sender's
//! helpers. Every box-session transport message is journaled as it was handed
//! to the link, with the key that sealed it (the world holds every key); this
//! reference opens it itself (ChaChaPoly, the nonce the clear `seq`, `seq` the
//! associated data: SPEC §2) and reads the frame byte by byte with its own
//! constants, each from the SPEC's words. It calls none of `ftw_wire`'s frame
//! code and imports none of its constants.
//!
//! - SPEC §2 frame: `ver u8 = 1 | lane u8 | flags u8 | rsvd u8 = 0 | len u16 BE
//!   | payload | zero pad to the bucket`; the only flag is `0x02` = TRUNC;
//! - lane 0 carries tick, delta, cmd, cmd.ack, cmd.result and event, in one
//!   bucket of 256 or 512 B for the life of a session (both directions);
//!   lane 1 carries snap, history and hello_ok, in the smallest of 1024 / 4096
//!   / 16384 that holds the frame; a type SPEC §2 does not name (hello, hb,
//!   live, error) may take either lane, and that lane's bucket;
//! - TRUNC is set exactly when the message the sender meant did not fit its
//!   bucket whole; without it the payload is the whole message;
//! - SPEC §3: each message on a QUIC stream goes with its QUIC varint length
//!   (RFC 9000 section 16), the target first;
//! - SPEC §3: only `hb` and `live` may come as QUIC datagrams: judged where the
//!   box sends one and where the phone opens one.

use std::collections::BTreeMap;

use crate::law::rules;
use crate::law::{Judge, Law};
use crate::world::journal::wire::{Carrier, WireStep};
use crate::world::journal::{Entry, Step};
use crate::world::plant::Bug;
use snow::params::CipherChoice;
use snow::resolvers::{CryptoResolver, DefaultResolver};

use super::{differs, Lockstep, Reference, R};

pub const WIRE: Reference = Reference {
    law: Law::new("wire-agrees-with-spec", "every box-session frame on the wire, opened with its key, has version 1, rsvd 0, its type's lane, the session's one lane-0 bucket or the smallest lane-1 step that holds it, zero padding, a true length and TRUNC exactly when the message did not fit whole; every QUIC stream message its varint length; every datagram an hb or a live (SPEC §2, §3)").checks(&[&rules::FRAME_FORMAT, &rules::LANE_PER_TYPE, &rules::CONTROL_STREAM, &rules::DATAGRAM_HB_LIVE])
        .judged(Judge::Journal(check)),
    planted: &[Bug::WirePadNotZeroed, Bug::WireAckOnBulkLane, Bug::WireTruncOnWholeDelta, Bug::WireAckAsDatagram, Bug::WireVarintCountsItself],
};

/// SPEC §2: `ver u8 = 1`.
const VERSION: u8 = 1;
/// SPEC §2: `ver | lane | flags | rsvd | len u16 BE` is six bytes.
const HEADER: usize = 6;
/// SPEC §2: "Flag `0x02` = TRUNC" (the only flag it names).
const TRUNC: u8 = 0x02;
/// SPEC §2: lane 0 "is one fixed bucket (256 or 512 B)".
const LANE0_BUCKETS: [usize; 2] = [256, 512];
/// SPEC §2: lane 1 "steps 1024 / 4096 / 16384".
const LANE1_BUCKETS: [usize; 3] = [1024, 4096, 16384];
/// SPEC §2: "Lane 0 (control/telemetry: tick, delta, cmd, cmd.ack, cmd.result, event)".
const LANE0_TYPES: [&str; 6] = ["tick", "delta", "cmd", "cmd.ack", "cmd.result", "event"];
/// SPEC §2: "Lane 1 (bulk: snap, history, hello_ok)".
const LANE1_TYPES: [&str; 3] = ["snap", "history", "hello_ok"];
/// SPEC §3: "`hb` and `live` may come as QUIC datagrams".
const DATAGRAM_TYPES: [&str; 2] = ["hb", "live"];
/// SPEC §2: "Transport message = `seq u64 BE (clear, used as associated data) || AEAD(frame)`".
const SEQ: usize = 8;
/// SPEC §2 names ChaChaPoly: its tag is 16 bytes (RFC 8439 section 2.8).
const TAG: usize = 16;

#[derive(Default)]
struct State {
    /// Each session's lane-0 bucket, from its first lane-0 frame (by handshake hash).
    lane0: BTreeMap<[u8; 32], usize>,
    /// The type of each message the box sealed, by (session, seq).
    by_box: BTreeMap<([u8; 32], u64), String>,
}

/// The law's check: `None` when nothing crossed the wire in a judged form.
pub fn check(journal: &[Entry]) -> Option<Lockstep> {
    let mut st = State::default();
    let mut steps = 0;
    for (index, e) in journal.iter().enumerate() {
        let Step::Wire(s) = &e.step else { continue };
        steps += 1;
        let r = match s {
            WireStep::Sealed { session, initiator, key, t, whole_len, carrier, msg } => sealed(&mut st, session, *initiator, key, t, *whole_len, *carrier, msg),
            WireStep::Framed { head, written, msg_len, .. } => framed(head, *written, *msg_len),
            WireStep::Arrived { session, seq } => arrived(&st, session, *seq),
        };
        if let Err((model, spec)) = r {
            return Some(Lockstep::Differs { index, entry: describe(e), model, spec });
        }
    }
    (steps > 0).then_some(Lockstep::Agreed { steps })
}

/// The entry, its sealed bytes cut short (a frame is up to 16 KiB).
fn describe(e: &Entry) -> String {
    match &e.step {
        Step::Wire(WireStep::Sealed { initiator, t, whole_len, carrier, msg, .. }) => {
            let by = if *initiator { "phone" } else { "box" };
            format!("t={}ms {} sealed by the {by}: {t} of {whole_len} B as a {carrier:?}, {} B sealed", e.t_ms, e.host, msg.len())
        }
        _ => e.describe(),
    }
}

/// Open `msg` with `key`: (seq, the plaintext frame). SPEC §2: the clear seq
/// is the associated data and the Noise nonce.
fn open(key: &[u8; 32], msg: &[u8]) -> Result<(u64, Vec<u8>), (String, String)> {
    if msg.len() < SEQ + TAG {
        return Err((format!("a transport message of {} B", msg.len()), "seq (8 B) and an AEAD tag (16 B) at least".into()));
    }
    let seq = u64::from_be_bytes(msg[..SEQ].try_into().expect("8 bytes"));
    let mut c = DefaultResolver.resolve_cipher(&CipherChoice::ChaChaPoly).expect("ChaChaPoly");
    c.set(key);
    let mut out = vec![0u8; msg.len() - SEQ - TAG];
    match c.decrypt(seq, &msg[..SEQ], &msg[SEQ..], &mut out) {
        Ok(_) => Ok((seq, out)),
        Err(_) => Err((format!("seq {seq} that does not open with its session's key"), "seq || AEAD(frame) under the session's key".into())),
    }
}

#[allow(clippy::too_many_arguments)]
fn sealed(st: &mut State, session: &[u8; 32], initiator: bool, key: &[u8; 32], t: &str, whole_len: usize, carrier: Carrier, msg: &[u8]) -> R {
    let (seq, plain) = open(key, msg)?;
    let lane0 = st.lane0.get(session).copied();
    if let Some(bucket) = frame(lane0, t, whole_len, &plain)? {
        st.lane0.insert(*session, bucket);
    }
    if carrier == Carrier::Datagram && !DATAGRAM_TYPES.contains(&t) {
        return differs(format!("{t} sent as a QUIC datagram"), "only hb and live may come as QUIC datagrams (SPEC §3)");
    }
    if !initiator {
        st.by_box.insert((*session, seq), t.to_string());
    }
    Ok(())
}

/// One frame's bytes against SPEC §2, for a message of type `t` whose whole
/// envelope is `whole_len` bytes; `lane0` is the session's lane-0 bucket so
/// far. Returns the lane-0 bucket this frame takes (None on lane 1).
fn frame(lane0: Option<usize>, t: &str, whole_len: usize, p: &[u8]) -> Result<Option<usize>, (String, String)> {
    let no = |model: String, spec: &str| Err((model, spec.to_string()));
    if p.len() < HEADER {
        return no(format!("a frame of {} B", p.len()), "a 6-byte header: ver | lane | flags | rsvd | len u16 BE");
    }
    let (ver, lane, flags, rsvd) = (p[0], p[1], p[2], p[3]);
    let len = u16::from_be_bytes([p[4], p[5]]) as usize;
    if ver != VERSION {
        return no(format!("ver {ver}"), "ver u8 = 1");
    }
    if rsvd != 0 {
        return no(format!("rsvd {rsvd}"), "rsvd u8 = 0");
    }
    let want = if LANE0_TYPES.contains(&t) {
        Some(0)
    } else if LANE1_TYPES.contains(&t) {
        Some(1)
    } else {
        None
    };
    match (lane, want) {
        (0 | 1, None) => {}
        (l, Some(w)) if l == w => {}
        (l, _) => return no(format!("{t} on lane {l}"), &lane_words(want)),
    }
    if flags & !TRUNC != 0 {
        return no(format!("flags {flags:#04x}"), "no flag but 0x02 = TRUNC");
    }
    if HEADER + len > p.len() {
        return no(format!("len {len} in a frame of {} B", p.len()), "len u16 BE the payload's length, within the bucket");
    }
    if let Some(i) = p[HEADER + len..].iter().position(|&b| b != 0) {
        return no(format!("padding byte {} of {} B is {:#04x}", HEADER + len + i, p.len(), p[HEADER + len + i]), "zero pad to the bucket");
    }
    let bucket = bucket(lane, lane0, len, p.len())?;
    trunc(flags & TRUNC != 0, t, len, whole_len, bucket)?;
    Ok((lane == 0).then_some(p.len()))
}

fn lane_words(want: Option<u8>) -> String {
    match want {
        Some(0) => "lane 0: tick, delta, cmd, cmd.ack, cmd.result and event (SPEC §2)".into(),
        _ => "lane 1: snap, history and hello_ok (SPEC §2)".into(),
    }
}

/// The frame's length against its lane's bucket; returns the largest frame
/// the bucket rule allowed this message (for TRUNC).
fn bucket(lane: u8, lane0: Option<usize>, len: usize, frame: usize) -> Result<usize, (String, String)> {
    if lane == 0 {
        return match lane0 {
            _ if !LANE0_BUCKETS.contains(&frame) => Err((format!("a lane-0 frame of {frame} B"), "lane 0 is one bucket of 256 or 512 B".into())),
            Some(b) if b != frame => {
                Err((format!("a lane-0 frame of {frame} B in a session whose lane 0 is {b} B"), "one lane-0 bucket for the life of a session".into()))
            }
            _ => Ok(frame),
        };
    }
    let smallest = LANE1_BUCKETS.iter().copied().find(|&b| b >= HEADER + len);
    match smallest {
        Some(b) if b == frame => Ok(LANE1_BUCKETS[LANE1_BUCKETS.len() - 1]),
        _ => Err((format!("a lane-1 frame of {frame} B for a {len} B payload"), format!("the smallest of 1024 / 4096 / 16384 that holds it: {smallest:?}"))),
    }
}

/// TRUNC exactly when the whole message did not fit the largest frame its lane allows.
fn trunc(set: bool, t: &str, len: usize, whole_len: usize, room: usize) -> R {
    let fits = HEADER + whole_len <= room;
    match (set, fits) {
        (false, true) if len == whole_len => Ok(()),
        (false, true) => differs(format!("{t}: {len} B of a {whole_len} B message, no TRUNC"), "the whole message when TRUNC is clear"),
        (true, false) if len < whole_len => Ok(()),
        (true, true) => differs(format!("TRUNC on a {t} of {whole_len} B that fits a {room} B frame whole"), "TRUNC only when the message did not fit"),
        (false, false) => differs(format!("{t} of {whole_len} B in a {room} B frame without TRUNC"), "TRUNC when the message did not fit whole"),
        (true, false) => differs(format!("TRUNC on {len} B of a {whole_len} B {t}"), "a truncated message shorter than the whole"),
    }
}

/// A stream message's first bytes: its QUIC varint length (RFC 9000 section
/// 16: the two high bits of the first byte give its width, 1, 2, 4 or 8 bytes).
fn framed(head: &[u8], written: usize, msg_len: usize) -> R {
    let Some(&first) = head.first() else { return differs("nothing written", "a varint length, then the message") };
    let width = 1usize << (first >> 6);
    if head.len() < width {
        return differs(format!("{} B written of a {width}-byte varint", head.len()), "the whole varint length");
    }
    let value = head[1..width].iter().fold((first & 0x3f) as u64, |v, &b| (v << 8) | b as u64);
    if value as usize != written - width || value as usize != msg_len {
        return differs(
            format!("a varint length of {value} before {} B (the message is {msg_len} B)", written - width),
            "each message with its QUIC varint length (SPEC §3)",
        );
    }
    Ok(())
}

/// A box-session message the phone opened from a datagram: what the box sealed at that seq.
fn arrived(st: &State, session: &[u8; 32], seq: u64) -> R {
    match st.by_box.get(&(*session, seq)) {
        Some(t) if !DATAGRAM_TYPES.contains(&t.as_str()) => {
            differs(format!("the box's {t} (seq {seq}) opened from a QUIC datagram"), "only hb and live may come as QUIC datagrams (SPEC §3)")
        }
        Some(_) => Ok(()),
        // Every message the box seals is journaled as it goes to the link, so one the
        // phone opened that no entry holds is a message this reference never judged
        // (fuzz-only mutants, session 34: the box's tap read as empty left every
        // datagram unjudged).
        None => differs(
            format!("a box message (seq {seq}) opened from a QUIC datagram, never journaled as sealed"),
            "every message the phone opens is one its box sealed, judged as it went to the link",
        ),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const KEY: [u8; 32] = [7; 32];
    const S: [u8; 32] = [1; 32];

    /// A frame built by hand: header, `len` payload bytes of 0xa1, zero pad to `bucket`.
    fn frame_bytes(lane: u8, flags: u8, len: usize, bucket: usize) -> Vec<u8> {
        let mut f = vec![0u8; bucket];
        f[..4].copy_from_slice(&[1, lane, flags, 0]);
        f[4..6].copy_from_slice(&(len as u16).to_be_bytes());
        f[HEADER..HEADER + len].fill(0xa1);
        f
    }

    /// `seq || ChaChaPoly(frame)` under `KEY`, sealed here (not by ftw_wire).
    fn seal(seq: u64, plain: &[u8]) -> Vec<u8> {
        let mut c = DefaultResolver.resolve_cipher(&CipherChoice::ChaChaPoly).expect("ChaChaPoly");
        c.set(&KEY);
        let mut out = vec![0u8; SEQ + plain.len() + TAG];
        out[..SEQ].copy_from_slice(&seq.to_be_bytes());
        let (ad, body) = out.split_at_mut(SEQ);
        c.encrypt(seq, ad, plain, body);
        out
    }

    fn e(step: WireStep) -> Entry {
        Entry { t_ms: 0, host: "box".into(), step: Step::Wire(step) }
    }

    fn sealed(seq: u64, t: &str, whole_len: usize, carrier: Carrier, plain: &[u8]) -> Entry {
        e(WireStep::Sealed { session: S, initiator: false, key: KEY, t: t.into(), whole_len, carrier, msg: seal(seq, plain) })
    }

    fn differs_on(j: &[Entry], what: &str) -> String {
        match check(j) {
            Some(Lockstep::Differs { model, spec, .. }) => format!("{model} / {spec}"),
            other => panic!("{what}: {other:?}"),
        }
    }

    #[test]
    fn frames_as_the_spec_says_agree() {
        let j = vec![
            sealed(0, "tick", 9, Carrier::Message, &frame_bytes(0, 0, 9, 512)),
            sealed(1, "snap", 2000, Carrier::Bulk, &frame_bytes(1, 0, 2000, 4096)),
            sealed(2, "hello_ok", 1018, Carrier::Bulk, &frame_bytes(1, 0, 1018, 1024)),
            sealed(3, "delta", 900, Carrier::Message, &frame_bytes(0, TRUNC, 500, 512)),
            sealed(4, "live", 40, Carrier::Datagram, &frame_bytes(0, 0, 40, 512)),
            sealed(5, "hb", 12, Carrier::Datagram, &frame_bytes(1, 0, 12, 1024)),
            e(WireStep::Arrived { session: S, seq: 4 }),
        ];
        assert_eq!(check(&j), Some(Lockstep::Agreed { steps: 7 }));
    }

    #[test]
    fn a_frame_against_spec_section_2_is_caught() {
        let mut not_zero = frame_bytes(0, 0, 9, 512);
        not_zero[511] = 0xa5;
        let mut ver2 = frame_bytes(0, 0, 9, 512);
        ver2[0] = 2;
        let mut rsvd = frame_bytes(0, 0, 9, 512);
        rsvd[3] = 1;
        let mut long = frame_bytes(0, 0, 9, 512);
        long[4..6].copy_from_slice(&600u16.to_be_bytes());
        for (what, t, whole, plain, want) in [
            ("padding not zero", "tick", 9, not_zero, "padding byte 511"),
            ("version 2", "tick", 9, ver2, "ver 2"),
            ("rsvd 1", "tick", 9, rsvd, "rsvd 1"),
            ("len past the frame", "tick", 9, long, "len 600"),
            ("an unknown flag", "tick", 9, frame_bytes(0, 0x01, 9, 512), "flags"),
            ("cmd.ack on lane 1", "cmd.ack", 30, frame_bytes(1, 0, 30, 1024), "cmd.ack on lane 1"),
            ("snap on lane 0", "snap", 30, frame_bytes(0, 0, 30, 512), "snap on lane 0"),
            ("a lane-0 frame of 1024", "tick", 9, frame_bytes(0, 0, 9, 1024), "lane-0 frame of 1024"),
            ("a lane-1 step too big", "snap", 2000, frame_bytes(1, 0, 2000, 16384), "lane-1 frame of 16384"),
            ("not a lane-1 step", "snap", 100, frame_bytes(1, 0, 100, 2048), "lane-1 frame of 2048"),
            ("TRUNC on a whole delta", "delta", 40, frame_bytes(0, TRUNC, 40, 512), "TRUNC on a delta"),
            ("no TRUNC on a cut delta", "delta", 600, frame_bytes(0, 0, 500, 512), "without TRUNC"),
            ("a short payload without TRUNC", "delta", 60, frame_bytes(0, 0, 40, 512), "no TRUNC"),
        ] {
            let shown = differs_on(&[sealed(0, t, whole, Carrier::Message, &plain)], what);
            assert!(shown.contains(want), "{what}: {shown}");
        }
    }

    #[test]
    fn one_lane0_bucket_for_the_session() {
        let j = vec![sealed(0, "tick", 9, Carrier::Message, &frame_bytes(0, 0, 9, 512)), sealed(1, "tick", 9, Carrier::Message, &frame_bytes(0, 0, 9, 256))];
        assert!(differs_on(&j, "256 after 512").contains("whose lane 0 is 512"));
        let mut other = j.clone();
        other[1] = e(WireStep::Sealed {
            session: [2; 32],
            initiator: true,
            key: KEY,
            t: "cmd".into(),
            whole_len: 9,
            carrier: Carrier::Message,
            msg: seal(1, &frame_bytes(0, 0, 9, 256)),
        });
        assert_eq!(check(&other), Some(Lockstep::Agreed { steps: 2 }), "another session may take the other bucket");
    }

    #[test]
    fn only_hb_and_live_as_datagrams() {
        let ack = frame_bytes(0, 0, 30, 512);
        assert!(differs_on(&[sealed(0, "cmd.ack", 30, Carrier::Datagram, &ack)], "sent").contains("cmd.ack sent as a QUIC datagram"));
        // Sent on a stream, but opened by the phone from a datagram (a relay's doing).
        let j = vec![sealed(3, "cmd.ack", 30, Carrier::Message, &ack), e(WireStep::Arrived { session: S, seq: 3 })];
        assert!(differs_on(&j, "arrived").contains("opened from a QUIC datagram"));
        // A live sealed as a datagram agrees; one never journaled as sealed does not.
        let live = frame_bytes(0, 0, 40, 512);
        let j = vec![sealed(4, "live", 40, Carrier::Datagram, &live), e(WireStep::Arrived { session: S, seq: 4 })];
        assert_eq!(check(&j), Some(Lockstep::Agreed { steps: 2 }));
        let j = vec![sealed(4, "live", 40, Carrier::Datagram, &live), e(WireStep::Arrived { session: S, seq: 5 })];
        assert!(differs_on(&j, "never sealed").contains("never journaled as sealed"));
    }

    #[test]
    fn a_message_that_does_not_open_with_its_key_is_caught() {
        let mut j = sealed(0, "tick", 9, Carrier::Message, &frame_bytes(0, 0, 9, 512));
        if let Step::Wire(WireStep::Sealed { key, .. }) = &mut j.step {
            key[0] ^= 1;
        }
        assert!(differs_on(&[j], "wrong key").contains("does not open"));
    }

    fn framed_step(head: &[u8], written: usize, msg_len: usize) -> Entry {
        e(WireStep::Framed { stream: crate::world::journal::wire::Stream::Control, head: head.to_vec(), written, msg_len })
    }

    #[test]
    fn stream_messages_carry_their_varint_length() {
        // RFC 9000 section 16's own examples: 0x25 = 37, 0x7bbd = 15293, 0x9d7f3e7d = 494878333.
        let j = vec![
            framed_step(&[0x25, 0xa1], 1 + 37, 37),
            framed_step(&[0x7b, 0xbd, 0], 2 + 15293, 15293),
            framed_step(&[0x9d, 0x7f, 0x3e, 0x7d], 4 + 494_878_333, 494_878_333),
        ];
        assert_eq!(check(&j), Some(Lockstep::Agreed { steps: 3 }));
        for (what, head, written, msg_len) in
            [("counts its own byte", vec![0x26u8, 0xa1], 38, 37), ("cut short", vec![0x7b], 3, 1), ("says less than was written", vec![0x24, 0xa1], 38, 37)]
        {
            differs_on(&[framed_step(&head, written, msg_len)], what);
        }
    }
}
