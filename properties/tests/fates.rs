//! The fates the judges read (`sim/src/world/net/fate.rs`) give every copy of
//! a datagram the address its sender sent it to: the link's duplicate, a copy
//! held and let go behind another datagram, one let go when its hold ran out.
//! Fresh seeds 14310000000 (session 31): in this entry a copy of a packet to
//! the phone's Wi-Fi address, duplicated and held, was let go behind the
//! cloud's probe of the phone's cellular address and recorded as sent there,
//! so the rig excuse took it for a second probe; a packet let go when its
//! 200 ms hold ran out was recorded as sent to the phone's address inside its
//! NAT.

use std::collections::BTreeMap;

use ftw_sim::scenario;

#[test]
fn every_copy_of_a_datagram_keeps_its_own_address() {
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/../corpus/fleet-migrate-answer-lost-in-the-step-both-arrived-14310114372.toml");
    let spec = ftw_properties::corpus::load(std::path::Path::new(path)).expect("the entry loads").spec;
    let r = scenario::run(&spec).expect("the spec runs");
    let mut to_by_datagram = BTreeMap::new();
    let mut let_go = 0;
    for f in &r.outcome.fates {
        let first = *to_by_datagram.entry((f.bytes, f.from_host)).or_insert((f.to, f.sent));
        assert_eq!(f.to, first.0, "a copy of the datagram of {:?} (h={:x}) is recorded as sent to {}, not {}", first.1, f.bytes, f.to, first.0);
        let_go += usize::from(f.sent > first.1);
    }
    // The entry has copies let go later (the check has something to check).
    assert!(let_go >= 2, "{let_go} copies let go later");
}
