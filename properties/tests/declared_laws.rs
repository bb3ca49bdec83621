//! A scenario judges exactly the laws it declares (issue 35 point 1). Judging an
//! undeclared law panics in `ftw_sim::scenario::run_def` (tested there); this
//! test holds the other half: every law a scenario declares is judged by some
//! run of it — its first seeds on its default plan, its first seed with each of
//! the fleet's routings (a plan's `[fleet]`: a fleet scenario's laws follow it),
//! or a corpus entry of it. A declared law that no run ever judges is a check that
//! cannot fail.

use std::collections::{BTreeMap, BTreeSet};
use std::path::PathBuf;

use ftw_sim::plan::{FleetPlan, FleetRouting};
use ftw_sim::scenario::SCENARIOS;
use ftw_sim::RunSpec;

/// Seeds of each scenario's default plan run here (the corpus adds the rest).
const SEEDS: u64 = 3;

fn corpus_specs() -> Vec<RunSpec> {
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../corpus");
    let mut paths: Vec<PathBuf> = std::fs::read_dir(&dir).expect("corpus/").map(|e| e.expect("entry").path()).collect();
    paths.retain(|p| p.extension().is_some_and(|e| e == "toml"));
    paths.sort();
    paths.iter().map(|p| ftw_properties::corpus::load(p).expect("corpus entry loads").spec).collect()
}

#[test]
fn every_declared_law_is_judged_by_some_run() {
    let mut judged: BTreeMap<String, BTreeSet<&'static str>> = BTreeMap::new();
    let mut specs: Vec<RunSpec> = corpus_specs();
    for s in SCENARIOS {
        specs.extend((1..=SEEDS).map(|seed| ftw_sim::scenario::spec(s.name, ftw_sim::RunSeed(seed))));
        for routing in [FleetRouting::Forward, FleetRouting::KernelFilter] {
            let mut spec = ftw_sim::scenario::spec(s.name, ftw_sim::RunSeed(1));
            spec.plan.fleet = Some(FleetPlan { reactors: 4, routing: Some(routing) });
            specs.push(spec);
        }
    }
    // On every core: the runs are independent worlds (pool.rs), and one thread took
    // 102 s of `.ci/run` in session 31.
    let names = ftw_properties::pool::map_ordered(&specs, ftw_properties::pool::cores(), |spec| {
        let report = ftw_sim::scenario::run(spec).expect("the scenario runs");
        report.checks.iter().map(|c| c.law.name).collect::<Vec<&'static str>>()
    });
    for (spec, names) in specs.iter().zip(names) {
        judged.entry(spec.scenario.name().to_string()).or_default().extend(names);
    }
    let mut never = Vec::new();
    for s in SCENARIOS {
        let seen = judged.get(s.name).cloned().unwrap_or_default();
        for j in s.laws {
            if !seen.contains(j.name) {
                never.push(format!("{} declares {} but no run of it judged it", s.name, j.name));
            }
        }
    }
    assert!(never.is_empty(), "{never:#?}");
}
