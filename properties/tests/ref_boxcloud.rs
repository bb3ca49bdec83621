//! The box's and the cloud's lockstep references (`box-agrees-with-spec`,
//! `cloud-agrees-with-spec`): they agree with the correct models on every scenario
//! that runs them, and each catches a planted disagreement at its index.

use ftw_properties::reference::{self, r#box, Lockstep};
use ftw_sim::world::journal::Entry;
use ftw_sim::world::topology::RunSpec;
use ftw_sim::RunSeed;

fn journal(scenario: &str, seed: u64) -> Vec<Entry> {
    let spec = RunSpec::new(scenario, RunSeed(seed));
    let report = reference::run(&spec).expect("scenario runs");
    report.outcome.trace.journal().to_vec()
}

#[test]
fn box_agrees_on_session() {
    for seed in 1..=3 {
        let j = journal("session", seed);
        let l = (r#box::BOX.check)(&j);
        assert!(matches!(l, Some(Lockstep::Agreed { .. })), "seed {seed}: {l:?}");
    }
}
