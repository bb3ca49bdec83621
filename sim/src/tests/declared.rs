//! Each scenario, law and switch is declared once and the lists derive from
//! the declarations: these tests hold the declarations to the runs.

use std::collections::BTreeSet;

use crate::domain::Domain;
use crate::law::seen::Echo;
use crate::law::{laws, rules, Judge, Law, Ruling};
use crate::scenario::{self, Check, RunReport, ScenarioDef, SCENARIOS};
use crate::switch::Switch;
use crate::RunSeed;
use crate::RunSpec;

fn emits_datagrams_echoed(spec: &RunSpec) -> RunReport {
    let world = crate::drive::rig::Rig::new(spec, std::time::Duration::from_secs(1));
    let outcome = world.run();
    RunReport::new(outcome, vec![Check { law: &laws::DATAGRAMS_ECHOED, ok: true, detail: String::new() }])
}

/// A scenario's own check of a law it does not declare.
#[test]
#[should_panic(expected = "which its definition does not declare")]
fn a_run_that_checks_an_undeclared_law_is_refused() {
    const DEF: ScenarioDef =
        ScenarioDef { name: "test-undeclared", about: "", domain: Domain::DEFAULT, laws: &[&laws::CLEAN_CLOSE], catches: &[], run: emits_datagrams_echoed };
    scenario::run_def(&DEF, &RunSpec::new(&DEF, RunSeed(1)));
}

#[test]
fn a_run_that_checks_its_declared_laws_passes_the_guard() {
    const DEF: ScenarioDef =
        ScenarioDef { name: "test-declared", about: "", domain: Domain::DEFAULT, laws: &[&laws::DATAGRAMS_ECHOED], catches: &[], run: emits_datagrams_echoed };
    let r = scenario::run_def(&DEF, &RunSpec::new(&DEF, RunSeed(1)));
    // The universal laws first (`run`, `no-panic`), judged as laws like the others.
    let names: Vec<&str> = r.checks.iter().map(|c| c.law.name).collect();
    assert_eq!(names, ["run", "no-panic", "datagrams-echoed"]);
}

/// A law judged over an observation is judged once, by its law's judge: a
/// scenario that writes its check itself is refused.
#[test]
#[should_panic(expected = "wrote the check of \"echo-in-order\" itself")]
fn a_run_that_writes_a_shared_laws_check_itself_is_refused() {
    fn emits(spec: &RunSpec) -> RunReport {
        let outcome = crate::drive::rig::Rig::new(spec, std::time::Duration::from_secs(1)).run();
        RunReport::new(outcome, vec![Check { law: &laws::ECHO_IN_ORDER, ok: true, detail: String::new() }])
    }
    const DEF: ScenarioDef = ScenarioDef { name: "test-own-echo", about: "", domain: Domain::DEFAULT, laws: &[&laws::ECHO_IN_ORDER], catches: &[], run: emits };
    scenario::run_def(&DEF, &RunSpec::new(&DEF, RunSeed(1)));
}

/// A declared law cannot be skipped: one judged over an observation the run
/// did not make is refused.
#[test]
#[should_panic(expected = "declares \"one-connection\", but its run observed nothing for it")]
fn a_declared_law_its_run_observed_nothing_for_is_refused() {
    const DEF: ScenarioDef = ScenarioDef {
        name: "test-unobserved",
        about: "",
        domain: Domain::DEFAULT,
        laws: &[&laws::DATAGRAMS_ECHOED, &laws::ONE_CONNECTION],
        catches: &[],
        run: emits_datagrams_echoed,
    };
    scenario::run_def(&DEF, &RunSpec::new(&DEF, RunSeed(1)));
}

/// docs/layout.md's first worked example, followed step by step: a law that
/// two scenarios judge is one declaration (its name, its words, the rule it
/// checks, its judge over an observation both make) and a line in each
/// scenario's `laws`; both runs judge it, by the one judge, in the place
/// declared, and the rule table would list it under its rule.
#[test]
fn a_law_declared_once_is_judged_by_two_scenarios() {
    fn something_came_back(e: &Echo) -> Ruling {
        (!e.back.is_empty(), format!("{} of {} echoes came back", e.back.len(), e.sent.len()))
    }
    const SOMETHING_CAME_BACK: Law = Law::new("test-something-came-back", "an echo gives something back (a worked example)")
        .checks(&[&rules::CONTROL_STREAM])
        .judged(Judge::Echo(something_came_back));
    assert!(rules::RULES.contains(&SOMETHING_CAME_BACK.rules[0]), "the rule it checks is a row of the table");
    for base in [&crate::scenario::quic_echo::QUIC_ECHO, &crate::scenario::ws_echo::WS_ECHO] {
        let laws: Vec<&'static Law> = base.laws.iter().copied().chain([&SOMETHING_CAME_BACK]).collect();
        let def = ScenarioDef { name: base.name, about: base.about, domain: base.domain.clone(), laws: laws.leak(), catches: base.catches, run: base.run };
        // A spec holds its scenario's definition: an unregistered one runs as a registered one does.
        let def: &'static ScenarioDef = Box::leak(Box::new(def));
        let r = scenario::run(&RunSpec::new(def, RunSeed(1))).expect("the spec is valid");
        let c = r.checks.iter().find(|c| c.law.name == SOMETHING_CAME_BACK.name).unwrap_or_else(|| panic!("{} judged it", base.name));
        assert!(c.ok && c.detail == "10 of 10 echoes came back", "{}: {c:?}", base.name);
        assert_eq!(r.checks.last().map(|c| c.law.name), Some(SOMETHING_CAME_BACK.name), "{}: judged where declared, last", base.name);
    }
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
    use crate::domain::KINDS;
    use crate::host::Host;
    use crate::plan::kind::Draw;
    use crate::plan::{FaultPlan, TimedFault};
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

/// docs/layout.md's third worked example, followed step by step: a scenario
/// is its file (here, this test's items: its run function, which builds its
/// world on the rig, runs its workload and returns its checks, and its
/// `ScenarioDef`) plus one line in `scenarios!`. Before that line it runs
/// through `scenario::run` as a registered one: judged by the universal laws
/// and its own, a failing law named in its verdict.
#[test]
fn a_scenario_written_from_the_documented_steps_runs_and_is_judged() {
    use std::cell::RefCell;
    use std::rc::Rc;
    use std::time::Duration;

    use crate::drive::build::client_quic;
    use crate::drive::quic::QuicEvent;
    use crate::drive::rig::Rig;
    use crate::host::{addr, PHONE};

    const HANDSHAKES_DONE: Law =
        Law::new("test-handshakes-done", "each of the phone's three dials opens a connection the cloud accepted").checks(&[&rules::COLD_CONNECT]);
    fn run(spec: &RunSpec) -> RunReport {
        // Build: the rig under the spec's plan, a cloud counting what it accepts.
        let mut rig = Rig::new(spec, Duration::from_secs(30));
        let accepted = Rc::new(RefCell::new(0usize));
        let a = accepted.clone();
        rig.cloud_quic(spec.seed, move |_conn| {
            *a.borrow_mut() += 1;
            std::future::pending::<()>()
        });
        // Workload: the phone dials three times, one after the other.
        let (seed, opened) = (spec.seed, Rc::new(RefCell::new(0usize)));
        let o = opened.clone();
        rig.client(PHONE, addr::PHONE, async move {
            let (ep, config) = client_quic(seed, PHONE).await?;
            for _ in 0..3 {
                let conn = ep.connect(config.clone(), addr::cloud_door(), ftw_crypto::consts::CLOUD_SERVER_NAME)?;
                while !matches!(conn.next_event().await, QuicEvent::Connected | QuicEvent::Lost(_)) {}
                *o.borrow_mut() += usize::from(!conn.is_handshaking());
            }
            Ok(())
        });
        // Observe and judge.
        let outcome = rig.run();
        let (opened, accepted) = (*opened.borrow(), *accepted.borrow());
        let check = Check { law: &HANDSHAKES_DONE, ok: opened == 3 && accepted == 3, detail: format!("{opened} of 3 opened, {accepted} accepted") };
        RunReport::new(outcome, vec![check])
    }
    const HANDSHAKES: ScenarioDef = ScenarioDef {
        name: "test-handshakes",
        about: "the phone dials the cloud three times (a worked example)",
        domain: Domain::DEFAULT,
        laws: &[&HANDSHAKES_DONE],
        catches: &[],
        run,
    };
    let r = scenario::run(&RunSpec::new(&HANDSHAKES, RunSeed(1))).expect("the spec is valid");
    let names: Vec<&str> = r.checks.iter().map(|c| c.law.name).collect();
    assert_eq!(names, ["run", "no-panic", "test-handshakes-done"]);
    assert!(r.checks.iter().all(|c| c.ok), "{:?}", r.checks);
    assert_eq!(r.checks[2].detail, "3 of 3 opened, 3 accepted");
    // The same scenario under a plan that blackholes the phone for the whole
    // run: its law fails (and the run, which never gets its three dials done
    // within its limit); the verdict names the first that failed.
    let mut spec = RunSpec::new(&HANDSHAKES, RunSeed(1));
    spec.plan = toml::from_str("[[faults]]\nat_ms = 0\nkind = \"blackhole\"\nhost = \"phone\"\nfor_ms = 60000\n").expect("a plan");
    let r = scenario::run(&spec).expect("the spec is valid");
    assert!(r.checks.iter().any(|c| c.law.name == "test-handshakes-done" && !c.ok && c.detail == "0 of 3 opened, 0 accepted"), "{:?}", r.checks);
    assert!(matches!(&r.verdict(), scenario::Verdict::Fail { property, .. } if property == "run"), "{:?}", r.checks);
}
