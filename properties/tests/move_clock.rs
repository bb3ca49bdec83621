//! The move law's clock starts when the cloud first sees the new path: the
//! earliest arrival of the mover's datagrams from its new network, not the
//! arrival of the first one sent (fresh seeds 13840000000). In this entry the
//! phone's second datagram from the cellular network overtakes its first by the
//! leg's jitter and arrives at 81,824 ms, when the owner reactor probes the new
//! address; with the clock at the first one sent (81,828 ms) the rig excuse
//! missed that probe and the law failed.
//!
//! The entry is replayed with the rig stand-in's path-probe acknowledgement as
//! first written (`probe_ack_uncounted_in_rig`, PATCH.md section 11): with
//! quic-go's restart of the backoff (session 27) the entry's run differs before
//! this move (its move law judges one at 79,800 ms; the entry still passes), so
//! the probe no longer falls between the two arrivals.

use ftw_sim::scenario::{self, Verdict};

#[test]
fn the_move_clock_starts_at_the_first_arrival() {
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/../corpus/rig-session-moves-first-arrival-overtaken-17971522073264351833.toml");
    let mut spec = ftw_properties::corpus::load(std::path::Path::new(path)).expect("the entry loads").spec;
    spec.quinn.probe_ack_uncounted_in_rig = true;
    let r = scenario::run(&spec).expect("the spec runs");
    let law = r.checks.iter().find(|c| c.law.name == "move-recovers-within-pto").expect("the move law is judged");
    assert!(law.detail.contains("cloud sees the new path 81824 ms"), "{}", law.detail);
    assert!(law.ok && law.detail.contains("excused"), "{}", law.detail);
    assert_eq!(r.verdict(), Verdict::Pass, "{:?}", r.checks);
}
