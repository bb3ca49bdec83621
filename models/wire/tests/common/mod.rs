//! Shared helpers: a seeded box session between a phone and a box.
#![allow(dead_code)]

use ftw_wire::noise::{HandshakeParams, Initiator, Responder, SeededResolver, Session};
use ftw_wire::BugSwitches;

/// A finished box session (phone, box) from a seed; `box_switches` go to the box's side
/// (the receiver of the phone's messages) and `phone_switches` to the phone's.
pub fn sessions(seed: u8, phone_switches: BugSwitches, box_switches: BugSwitches) -> (Session, Session) {
    let keys = SeededResolver::new([seed; 32]);
    let phone = keys.generate_keypair();
    let boxk = keys.generate_keypair();
    let ip = HandshakeParams::box_session_initiator(phone, boxk.public, SeededResolver::new([seed ^ 1; 32])).with_switches(phone_switches);
    let rp = HandshakeParams::box_session_responder(boxk, SeededResolver::new([seed ^ 2; 32])).with_switches(box_switches);
    let (i, m1) = Initiator::new(&ip).unwrap().write_msg1(b"").unwrap();
    let (r, _) = Responder::new(&rp).unwrap().read_msg1(&m1).unwrap();
    let (m2, boxs) = r.write_msg2(b"").unwrap();
    let (_, phones) = i.read_msg2(&m2).unwrap();
    (phones, boxs)
}

/// A deterministic shuffle driven by a seed (Fisher-Yates over a ChaCha stream).
pub fn shuffle<T>(v: &mut [T], seed: u64) {
    use rand_core::{RngCore, SeedableRng};
    let mut rng = rand_chacha::ChaCha20Rng::seed_from_u64(seed);
    for i in (1..v.len()).rev() {
        let j = (rng.next_u64() % (i as u64 + 1)) as usize;
        v.swap(i, j);
    }
}
