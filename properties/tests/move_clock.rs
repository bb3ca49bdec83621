//! The move law's clock starts when the cloud first sees the new path: the
//! earliest arrival of the mover's datagrams from its new network, not the
//! arrival of the first one sent (fresh seeds 13840000000, fixed in session 23:
//! corpus/rig-session-moves-first-arrival-overtaken-17971522073264351833.toml).
//!
//! That entry's overtaking moved away with the fleet's kernel hash (session 33:
//! the run differs before its move, and the entry still passes), so the rule is
//! shown on drawn `session-moves` cases where a later datagram overtakes the
//! first one sent from the new network. Each row was read off the case's trace
//! (`ftwsim run --scenario session-moves --seed N --drawn --trace t.jsonl`: the
//! phone's `net.move`, its `udp.send`s after it and their `udp.arrive`s at the
//! cloud, matched by `h=`; drawn cases 1 to 2,000 scanned, these the moves the law
//! judges with the two more than a millisecond apart): (seed, move ms, the first
//! sent's arrival ms, the earliest arrival ms).

use ftw_properties::harness::spec_of;
use ftw_properties::strategy::{domain_for, draw};
use ftw_sim::scenario;
use ftw_sim::switch::Switches;
use ftw_sim::RunSeed;

const OVERTAKEN: &[(u64, u64, u64, u64)] = &[
    (329, 37400, 37586, 37445),
    (641, 41000, 41220, 41086),
    (707, 35700, 35920, 35787),
    (884, 45200, 45435, 45402),
    (899, 72800, 72966, 72886),
    (949, 32500, 32720, 32589),
    (949, 47400, 47620, 47487),
    (1437, 40300, 40520, 40389),
    (1527, 74300, 74520, 74386),
];

#[test]
fn the_move_clock_starts_at_the_first_arrival() {
    for &(seed, at, first_sent, earliest) in OVERTAKEN {
        assert!(earliest < first_sent, "seed {seed}: a row of an overtaking");
        let case = draw(&domain_for("session-moves"), RunSeed(seed)).current();
        let r = scenario::run(&spec_of("session-moves", &Switches::default(), &case)).expect("the case runs");
        let law = r.checks.iter().find(|c| c.law.name == "move-recovers-within-pto").expect("the move law is judged");
        let named = format!("move {at} ms, cloud sees the new path ");
        assert!(law.detail.contains(&named), "seed {seed}: the move at {at} ms is no longer judged: {}", law.detail);
        assert!(
            law.detail.contains(&format!("{named}{earliest} ms")),
            "seed {seed}: the clock is not at the earliest arrival ({earliest} ms; the first sent arrived at {first_sent} ms): {}",
            law.detail
        );
    }
}
