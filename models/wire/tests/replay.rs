//! The replay window through a real session: SPEC.md §4 "Carrier", §7 (window 64 switch).

mod common;

use common::{sessions, shuffle};
use ftw_wire::consts::REPLAY_WINDOW_LEN;
use ftw_wire::noise::OpenError;
use ftw_wire::{BugSwitches, ControlBucket, Frame, Msg};
use rand_core::{RngCore, SeedableRng};

const LEGACY: BugSwitches = BugSwitches { replay_window_64: true, forged_marks_window: false };

fn sealed(sender: &mut ftw_wire::Session, n: usize, lane: u8) -> Vec<Vec<u8>> {
    (0..n)
        .map(|i| {
            let msg = Msg::Tick { seq: Some(i as u64) };
            let f = Frame { lane, flags: 0, payload: msg.encode(None) };
            sender.seal(&f.encode(ControlBucket::Large512).unwrap()).unwrap()
        })
        .collect()
}

#[test]
fn shuffled_within_window_all_accepted_exactly_once() {
    let (mut phone, mut boxs) = sessions(7, BugSwitches::default(), BugSwitches::default());
    let msgs = sealed(&mut phone, 3000, 0);
    // Arrival order: sort by seq + a random delay below 1000, so no message arrives more than
    // 1000 behind the highest seen (inside the 1024 window) yet the order is thoroughly mixed.
    let mut rng = rand_chacha::ChaCha20Rng::seed_from_u64(99);
    let mut order: Vec<(u64, usize)> = (0..3000).map(|i| (i as u64 + rng.next_u64() % 1000, i)).collect();
    order.sort();
    let displaced = order.iter().enumerate().filter(|(pos, (_, i))| pos != i).count();
    assert!(displaced > 2500, "the order is really shuffled ({displaced})");

    let mut accepted = vec![0u32; 3000];
    for &(_, i) in &order {
        let f = boxs.open(&msgs[i]).unwrap_or_else(|e| panic!("seq {i}: {e:?}"));
        assert_eq!(Msg::decode(&f.payload).unwrap().1, Msg::Tick { seq: Some(i as u64) });
        accepted[i] += 1;
        // Every repeat of anything accepted so far is refused.
        assert!(matches!(boxs.open(&msgs[i]), Err(OpenError::Replay { seq }) if seq == i as u64));
    }
    assert!(accepted.iter().all(|&n| n == 1));

    // Repeats of everything, in another order: none accepted.
    let mut again: Vec<usize> = (0..3000).collect();
    shuffle(&mut again, 5);
    for i in again {
        let r = boxs.open(&msgs[i]);
        assert!(matches!(r, Err(OpenError::Replay { .. }) | Err(OpenError::TooOld { .. })), "seq {i}: {r:?}");
    }
}

/// One control message overtaken by a burst of 100 bulk messages (they were sealed after it,
/// on the same session, and arrived first).
fn burst_overtakes_control(box_switches: BugSwitches) -> Result<Frame, OpenError> {
    let (mut phone, mut boxs) = sessions(3, BugSwitches::default(), box_switches);
    let control = sealed(&mut phone, 1, 0).remove(0);
    let bulk = sealed(&mut phone, 100, 1);
    for b in &bulk {
        assert_eq!(boxs.open(b).unwrap().lane, 1);
    }
    boxs.open(&control)
}

#[test]
fn burst_overtaking_control_accepted_with_1024() {
    let f = burst_overtakes_control(BugSwitches::default()).expect("accepted");
    assert_eq!(f.lane, 0);
}

#[test]
fn burst_overtaking_control_falsely_rejected_with_64_switch() {
    assert_eq!(burst_overtakes_control(LEGACY), Err(OpenError::TooOld { seq: 0, highest: 100 }));
}

#[test]
fn forged_message_does_not_move_the_window() {
    for switches in [BugSwitches::default(), LEGACY] {
        let (mut phone, mut boxs) = sessions(11, BugSwitches::default(), switches);
        let msgs = sealed(&mut phone, 6, 0);
        boxs.open(&msgs[0]).unwrap();
        let before = boxs.window().clone();

        // A bad tag on a real message.
        let mut bad = msgs[5].clone();
        *bad.last_mut().unwrap() ^= 1;
        assert_eq!(boxs.open(&bad), Err(OpenError::Broken));
        // A renumbered message (seq is associated data) far ahead.
        let mut renum = msgs[5].clone();
        renum[..8].copy_from_slice(&50_000u64.to_be_bytes());
        assert_eq!(boxs.open(&renum), Err(OpenError::Broken));
        // Garbage, and a short message.
        let mut garbage = [0u8; 40];
        garbage[7] = 3; // an unseen seq, so the window lets it through to the AEAD
        assert_eq!(boxs.open(&garbage), Err(OpenError::Broken));
        // Garbage under an already-accepted seq is refused before decryption.
        assert_eq!(boxs.open(&[0u8; 40]), Err(OpenError::Replay { seq: 0 }));
        assert_eq!(boxs.open(&[0u8; 10]), Err(OpenError::Broken));
        assert_eq!(boxs.window(), &before, "forgeries left the window untouched");

        // The real messages are all still accepted, in any order.
        for i in [5, 2, 1, 4, 3] {
            boxs.open(&msgs[i]).unwrap();
        }
    }
}

#[test]
fn far_too_old_rejected() {
    let (mut phone, mut boxs) = sessions(13, BugSwitches::default(), BugSwitches::default());
    let msgs = sealed(&mut phone, REPLAY_WINDOW_LEN + 10, 0);
    // 0 is held back; the rest arrive.
    for m in &msgs[1..] {
        boxs.open(m).unwrap();
    }
    let highest = (REPLAY_WINDOW_LEN + 9) as u64;
    assert_eq!(boxs.open(&msgs[0]), Err(OpenError::TooOld { seq: 0, highest }));
    // Just inside the window, a never-seen seq is still accepted: hold back a fresh one.
    let (mut phone, mut boxs) = sessions(13, BugSwitches::default(), BugSwitches::default());
    let msgs = sealed(&mut phone, REPLAY_WINDOW_LEN, 0);
    for m in &msgs[1..] {
        boxs.open(m).unwrap();
    }
    assert!(boxs.open(&msgs[0]).is_ok(), "1023 behind is inside the window");
}
