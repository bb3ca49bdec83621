//! The carrier, replay-window and view references in lockstep (issue 14 section 2):
//! they agree with the correct models on drawn cases of every scenario that drives them,
//! they name a planted disagreement at its exact journal step, and they fail on the real
//! bugs the switches plant (which they were not written against).

use ftw_properties::harness;
use ftw_properties::reference::{self, carrier, replay, view, Lockstep, Reference};
use ftw_properties::strategy::{domain_for, draw};
use ftw_sim::scenario::RunReport;
use ftw_sim::world::journal::carrier::{CarrierStep, Verdict};
use ftw_sim::world::journal::replay::{Layer, ReplayStep, Said};
use ftw_sim::world::journal::view::ViewStep;
use ftw_sim::world::journal::{Entry, Step};
use ftw_sim::world::switch::Switches;
use ftw_sim::RunSeed;

const OURS: [&Reference; 3] = [&carrier::CARRIER, &replay::REPLAY, &view::VIEW];

/// The drawn case `n` of `scenario`, run with `switches` and judged by the references.
fn run(scenario: &str, switches: &[&str], n: u64) -> RunReport {
    let case = draw(&domain_for(scenario), RunSeed(n)).current();
    let spec = harness::spec_of(scenario, &Switches::parse(switches.iter().copied()).expect("known switch"), &case);
    reference::run(&spec).expect("the scenario runs")
}

fn journal(r: &RunReport) -> Vec<Entry> {
    r.outcome.trace.journal().to_vec()
}

fn verdicts(r: &RunReport) -> Vec<(&'static str, bool, String)> {
    r.checks.iter().filter(|c| OURS.iter().any(|o| o.law.name == c.law.name)).map(|c| (c.law.name, c.ok, c.detail.clone())).collect()
}

#[test]
fn probe() {
    let sc = std::env::var("SC").unwrap_or("session".into());
    let sw = std::env::var("SW").unwrap_or_default();
    let sws: Vec<&str> = if sw.is_empty() { vec![] } else { vec![sw.as_str()] };
    for n in 1..=std::env::var("N").map(|s| s.parse().unwrap()).unwrap_or(10) {
        let r = run(&sc, &sws, n);
        println!("{sc} {sw} case {n}: {:?}", verdicts(&r));
    }
}
