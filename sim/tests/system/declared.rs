//! Each scenario, law and switch is declared once and the lists derive from
//! the declarations: these tests hold the declarations to the runs.

use std::collections::BTreeSet;

use ftw_sim::law::laws;
use ftw_sim::scenario::{self, Check, RunReport, ScenarioDef, SCENARIOS};
use ftw_sim::world::domain::Domain;
use ftw_sim::world::switch::Switch;
use ftw_sim::world::topology::RunSpec;
use ftw_sim::RunSeed;

fn emits_echo_in_order(spec: &RunSpec) -> RunReport {
    let world = ftw_sim::world::topology::world_for(spec, std::time::Duration::from_secs(1));
    let outcome = world.run();
    RunReport::new(outcome, vec![Check { law: &laws::ECHO_IN_ORDER, ok: true, detail: String::new() }])
}

#[test]
#[should_panic(expected = "which its definition does not declare")]
fn a_run_that_checks_an_undeclared_law_is_refused() {
    const DEF: ScenarioDef =
        ScenarioDef { name: "test-undeclared", about: "", domain: Domain::DEFAULT, laws: &[&laws::CLEAN_CLOSE], catches: &[], run: emits_echo_in_order };
    scenario::run_def(&DEF, &RunSpec::new("test-undeclared", RunSeed(1)));
}

#[test]
fn a_run_that_checks_its_declared_laws_passes_the_guard() {
    const DEF: ScenarioDef =
        ScenarioDef { name: "test-declared", about: "", domain: Domain::DEFAULT, laws: &[&laws::ECHO_IN_ORDER], catches: &[], run: emits_echo_in_order };
    let r = scenario::run_def(&DEF, &RunSpec::new("test-declared", RunSeed(1)));
    // The universal laws first (`run`, `no-panic`), judged as laws like the others.
    let names: Vec<&str> = r.checks.iter().map(|c| c.law.name).collect();
    assert_eq!(names, ["run", "no-panic", "echo-in-order"]);
}

#[test]
fn names_are_unique_and_every_switch_breaks_a_declared_law() {
    let scenarios: BTreeSet<&str> = SCENARIOS.iter().map(|s| s.name).collect();
    assert_eq!(scenarios.len(), SCENARIOS.len(), "two scenarios share a name");
    let laws = scenario::all_laws();
    let names: BTreeSet<&str> = laws.iter().map(|l| l.name).collect();
    assert_eq!(names.len(), laws.len(), "two laws share a name");
    let switches: BTreeSet<&str> = Switch::ALL.iter().map(|s| s.name()).collect();
    assert_eq!(switches.len(), Switch::ALL.len(), "two switches share a name");
    for s in Switch::ALL {
        assert!(scenario::switch_laws().iter().any(|(w, _, _)| w == s), "switch {s} breaks no declared law");
    }
    for s in SCENARIOS {
        assert!(!s.laws.is_empty(), "{} judges no law", s.name);
        for l in s.laws {
            assert!(scenario::law(l.name).is_some());
        }
        // A switch a scenario says it catches is one some law of its breaks:
        // which switch breaks a law is said once, on the law.
        for w in s.catches {
            assert!(s.laws.iter().any(|l| l.broken_by.contains(w)), "{} says it catches {w}, which none of its laws is broken by", s.name);
        }
    }
}

/// Each timed fault kind is declared once (its file under `world/plan/kind/`):
/// what a swarm kind draws names that swarm kind back, names a host its kind
/// allows, and is written and read back in TOML unchanged.
#[test]
fn every_fault_kind_draws_itself_back_and_round_trips_toml() {
    use ftw_sim::world::domain::KINDS;
    use ftw_sim::world::host::Host;
    use ftw_sim::world::plan::kind::Draw;
    use ftw_sim::world::plan::{FaultPlan, TimedFault};
    let mut drawn: Vec<TimedFault> = Vec::new();
    for k in KINDS.iter().copied().filter(|k| k.is_timed()) {
        for host in [Host::Phone, Host::Box] {
            for extra in [1, 64, 128] {
                let faults = k.draw(&Draw { host, at_ms: 3_000, for_ms: 500, extra });
                assert!(!faults.is_empty(), "{k:?} draws nothing");
                for f in &faults {
                    assert_eq!(f.fault.def().swarm(), k, "{k:?} drew {f:?}, which names another swarm kind");
                    if let Some(only) = f.fault.def().only_host() {
                        assert_eq!(f.fault.host(), only, "{f:?}");
                    }
                }
                drawn.extend(faults);
            }
        }
    }
    let plan = FaultPlan { faults: drawn, ..FaultPlan::default() };
    plan.validate().expect("drawn faults are valid");
    let text = toml::to_string(&plan).expect("TOML");
    let back: FaultPlan = toml::from_str(&text).expect("reads back");
    assert_eq!(back, plan);
}
