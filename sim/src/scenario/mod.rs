//! Scenarios: whole systems built in a world, run from a seed, a fault plan and
//! a set of bug switches, ending in checks that name the law they test.
//!
//! Each scenario is one typed [`ScenarioDef`] (name, words, domain, laws with
//! the switches that break them, run function) beside its run function; this
//! file only registers them. Every list users see derives from [`SCENARIOS`].

pub mod bench;
pub mod box_door;
pub mod cloud_door;
pub mod def;

pub mod fleet_flood;
pub mod fleet_migrate;
pub mod idle_link;
pub mod idle_out;
pub mod lane0_picture;
pub mod life_clock;
pub mod phone_race;
pub mod quic_echo;
pub mod race_clock;
pub mod rig_move;
pub mod session;
pub mod uplink_laws;
pub mod wire_window;
pub mod ws_echo;

pub use crate::law::{Check, Law, UNIVERSAL};
pub use def::{RunReport, ScenarioDef, Verdict};

use crate::world::panic::{self, Panicked};
use crate::world::switch::Switch;
use crate::world::topology::RunSpec;

/// Every scenario, in the order `ftwsim list` shows them and the fuzzer takes them.
pub const SCENARIOS: &[&ScenarioDef] = &[
    &quic_echo::QUIC_ECHO,
    &quic_echo::QUIC_STREAM,
    &idle_link::IDLE_LINK,
    &ws_echo::WS_ECHO,
    &fleet_migrate::FLEET_MIGRATE,
    &fleet_migrate::FLEET_MIGRATE_KERNEL_FILTER,
    &fleet_migrate::FLEET_STILL,
    &fleet_migrate::FLEET_RESUME,
    &session::SESSION,
    &session::SESSION_MOVES,
    &session::UNPAIRED,
    &session::SESSIONS_OFF,
    &session::BOX_RECONNECT,
    &phone_race::PHONE_RACE,
    &phone_race::DEMOTION_EXPIRY,
    &phone_race::QUIC_REFUSED,
    &fleet_flood::FLEET_PIN_FLOOD,
    &wire_window::WIRE_WINDOW,
    &race_clock::RACE_CLOCK,
    &life_clock::LIFE_CLOCK,
    &box_door::BOX_DOOR,
    &cloud_door::CLOUD_DOOR,
];

/// Find a scenario, or explain which exist.
pub fn find(name: &str) -> Result<&'static ScenarioDef, String> {
    SCENARIOS.iter().copied().find(|s| s.name == name).ok_or_else(|| {
        let known: Vec<&str> = SCENARIOS.iter().map(|s| s.name).collect();
        format!("unknown scenario {name:?}; known scenarios: {}", known.join(", "))
    })
}

/// Run a spec and judge every law on it: the universal ones, the scenario's,
/// then each reference model whose model took part (over the run's journal).
/// A panic inside the run is caught and fails the law `no-panic`.
pub fn run(spec: &RunSpec) -> Result<RunReport, String> {
    spec.plan.validate()?;
    let def = find(&spec.scenario)?;
    let mut report = panic::catch(|| run_def(def, spec)).unwrap_or_else(panicked);
    let references = crate::law::reference::judge(&report.outcome.journal);
    report.checks.extend(references);
    Ok(report)
}

/// The report of a run that panicked: the trace up to the panic, and the
/// failed `no-panic` check carrying the panic's message and location.
fn panicked(p: Panicked) -> RunReport {
    let ended = crate::world::record::Ended { result: Ok(()), sim_elapsed: None, steps: 0 };
    RunReport::panicked(crate::world::record::finish(ended, Default::default()), p.to_string())
}

/// Run a scenario's definition, holding it to its word: a run that checks a
/// law its definition does not declare is a bug in the scenario (panics).
pub fn run_def(def: &ScenarioDef, spec: &RunSpec) -> RunReport {
    let report = (def.run)(spec);
    for c in &report.checks {
        assert!(def.judges(c.law.name), "scenario {} checked law {:?}, which its definition does not declare", def.name, c.law.name);
    }
    report
}

/// Every law a run may judge, once each: the universal ones first, then the
/// scenarios' in scenario order, then the reference models'.
pub fn all_laws() -> Vec<&'static Law> {
    let mut out: Vec<&'static Law> = UNIVERSAL.to_vec();
    for law in SCENARIOS.iter().flat_map(|s| s.laws) {
        if !out.iter().any(|l| l.name == law.name) {
            out.push(law);
        }
    }
    out.extend(crate::law::reference::laws());
    out
}

/// The law named `name`, if a run may judge it.
pub fn law(name: &str) -> Option<&'static Law> {
    all_laws().into_iter().find(|l| l.name == name)
}

/// (switch, scenario, law) for every switch a scenario catches and each of its
/// laws that switch breaks, in scenario order: the switch table of SPEC section 7.
pub fn switch_laws() -> Vec<(Switch, &'static ScenarioDef, &'static Law)> {
    let caught = |s: &'static ScenarioDef, l: &'static Law| l.broken_by.iter().filter(move |w| s.catches.contains(w)).map(move |w| (*w, s, l));
    SCENARIOS.iter().flat_map(|s| s.laws.iter().flat_map(move |l| caught(s, l))).collect()
}

/// The scenarios whose laws catch one of `switches`, in scenario order.
pub fn scenarios_for(switches: &[Switch]) -> Vec<&'static ScenarioDef> {
    SCENARIOS.iter().copied().filter(|s| s.catches.iter().any(|w| switches.contains(w))).collect()
}
