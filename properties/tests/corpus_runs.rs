//! The tests that read the whole corpus's runs, over one replay of it (most of a
//! minute on two cores; issue 37 keeps `cargo test` within two minutes):
//!
//! * issue 19 section 2: every entry meets its expectation on a thread of four,
//!   with the bytes it recorded on one;
//! * issue 35 point 1: a scenario judges every law it declares in some run. Judging
//!   an undeclared law panics in `ftw_sim::scenario::run_def` (tested there); this
//!   holds the other half: every declared law is judged by its first seeds on its
//!   default plan, its first seed with each of the fleet's routings (a plan's
//!   `[fleet]`: a fleet scenario's laws follow it), or a corpus entry of it. A
//!   declared law that no run ever judges is a check that cannot fail.

use std::collections::{BTreeMap, BTreeSet};
use std::path::PathBuf;
use std::sync::OnceLock;

use ftw_properties::corpus::{self, Bytes, Replayed};
use ftw_properties::pool;
use ftw_sim::plan::{FleetPlan, FleetRouting};
use ftw_sim::scenario::SCENARIOS;
use ftw_sim::RunSpec;

/// Seeds of each scenario's default plan run here (the corpus adds the rest).
const SEEDS: u64 = 3;

/// The corpus's files and their replays, four at a time, once for this binary.
fn replayed() -> &'static (Vec<PathBuf>, Vec<Replayed>) {
    static ONCE: OnceLock<(Vec<PathBuf>, Vec<Replayed>)> = OnceLock::new();
    ONCE.get_or_init(|| {
        let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../corpus");
        let files = corpus::collect(&[dir]).expect("corpus readable");
        let results = corpus::replay(&files, 4);
        (files, results)
    })
}

/// Every corpus entry meets its expectation, replayed four at a time, with the
/// bytes it recorded on one thread (`replay --record`). Strict, as `ftwsim
/// replay --strict` (issue 19 section 1): a change that moves the bytes of a
/// committed entry says so, by recording them anew.
#[test]
fn the_corpus_on_four_threads_meets_its_expectations_with_its_recorded_bytes() {
    let (files, results) = replayed();
    assert!(files.len() > 50, "the corpus has its entries: {}", files.len());
    assert_eq!(results.len(), files.len());
    for (r, f) in results.iter().zip(files) {
        assert_eq!(&r.path, f, "results in the files' order");
        match &r.outcome {
            Ok((e, v, _)) => assert!(e.expect.met_by(v), "{}: expected {}, got {v:?}", r.path.display(), e.expect.render()),
            Err(msg) => panic!("{msg}"),
        }
        assert_eq!(
            r.bytes,
            Bytes::Same,
            "{}: other bytes on a thread of four than it recorded; if the change means to move them, run `cargo sim replay --record` and say so in the commit",
            r.path.display()
        );
    }
}

/// Each scenario's first seeds on its default plan, and its first seed with each
/// of the fleet's routings.
fn default_specs() -> Vec<RunSpec> {
    let mut specs = Vec::new();
    for s in SCENARIOS {
        specs.extend((1..=SEEDS).map(|seed| ftw_sim::scenario::spec(s.name, ftw_sim::RunSeed(seed))));
        for routing in [FleetRouting::Forward, FleetRouting::KernelFilter] {
            let mut spec = ftw_sim::scenario::spec(s.name, ftw_sim::RunSeed(1));
            spec.plan.fleet = Some(FleetPlan { reactors: 4, routing: Some(routing) });
            specs.push(spec);
        }
    }
    specs
}

#[test]
fn every_declared_law_is_judged_by_some_run() {
    let mut judged: BTreeMap<String, BTreeSet<&'static str>> = BTreeMap::new();
    for r in &replayed().1 {
        let (e, _, _) = r.outcome.as_ref().expect("the corpus entry runs");
        judged.entry(e.spec.scenario.name().to_string()).or_default().extend(r.judged.iter().copied());
    }
    let specs = default_specs();
    // On every core: the runs are independent worlds (pool.rs).
    let names = pool::map_ordered(&specs, pool::cores(), |spec| {
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
