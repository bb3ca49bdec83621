//! Scenarios: whole systems built in a world, run from a seed, a fault plan and
//! a set of bug switches, ending in checks that name the law they test.
//!
//! Each scenario is one typed [`ScenarioDef`] (name, words, domain, the laws
//! its runs are judged by, the switches it catches, run function) beside its
//! run function; this file registers them and runs a spec, judging it by its
//! scenario's declaration ([`run`]). Every list users see derives from
//! [`SCENARIOS`].

pub(crate) mod def;

pub use crate::law::{Check, Judge, Law, UNIVERSAL};
pub use def::{RunReport, ScenarioDef, Verdict};

use crate::world::panic::{self, Panicked};
use crate::world::switch::Switch;
use crate::world::topology::RunSpec;

/// Declares each scenario module and lists its definitions in `SCENARIOS`:
/// a scenario in a file of its own is one line here.
macro_rules! scenarios {
    ($($module:ident::{$($def:ident),+ $(,)?}),* $(,)?) => {
        $(pub(crate) mod $module;)*
        /// Every scenario, in the order `ftwsim list` shows them and the fuzzer takes them.
        pub const SCENARIOS: &[&ScenarioDef] = &[$($(&$module::$def),+),*];
    };
}

scenarios! {
    quic_echo::{QUIC_ECHO, QUIC_STREAM},
    idle_link::{IDLE_LINK},
    ws_echo::{WS_ECHO},
    fleet_migrate::{FLEET_MIGRATE, FLEET_MIGRATE_KERNEL_FILTER, FLEET_STILL, FLEET_RESUME},
    session::{SESSION, SESSION_MOVES, UNPAIRED, SESSIONS_OFF, BOX_RECONNECT},
    phone_race::{PHONE_RACE, DEMOTION_EXPIRY, QUIC_REFUSED},
    fleet_flood::{FLEET_PIN_FLOOD},
    wire_window::{WIRE_WINDOW},
    race_clock::{RACE_CLOCK},
    life_clock::{LIFE_CLOCK},
    box_door::{BOX_DOOR},
    cloud_door::{CLOUD_DOOR},
}

/// The definition a spec runs, or why it has none (a world of one's own).
pub fn definition(spec: &RunSpec) -> Result<&ScenarioDef, String> {
    let name = spec.scenario.name();
    spec.scenario.as_any().downcast_ref::<ScenarioDef>().ok_or_else(|| format!("{name:?} is a world of its own, not a scenario's definition"))
}

/// A spec of the registered scenario `name` with `seed` (a calm network, no
/// switch on); an unknown name is a bug in the caller (panics: `find` for input).
pub fn spec(name: &str, seed: crate::RunSeed) -> RunSpec {
    RunSpec::new(find(name).unwrap_or_else(|e| panic!("{e}")), seed)
}

/// Find a scenario, or explain which exist.
pub fn find(name: &str) -> Result<&'static ScenarioDef, String> {
    SCENARIOS.iter().copied().find(|s| s.name == name).ok_or_else(|| {
        let known: Vec<&str> = SCENARIOS.iter().map(|s| s.name).collect();
        format!("unknown scenario {name:?}; known scenarios: {}", known.join(", "))
    })
}

/// Run a spec and judge it by its scenario's word: the universal laws, then
/// every law the scenario declares, in the order it declares them (its own
/// checks, the shared laws over what it saw, the reference models over the
/// journal). A panic inside the run is caught and fails the law `no-panic`.
pub fn run(spec: &RunSpec) -> Result<RunReport, String> {
    spec.plan.validate()?;
    let def = definition(spec)?;
    Ok(panic::catch(|| run_def(def, spec)).unwrap_or_else(|p| panicked(def, p)))
}

/// The report of a run that panicked: the trace up to the panic, the failed
/// `no-panic` check carrying the panic's message and location, and the
/// scenario's reference models over the journal so far.
fn panicked(def: &ScenarioDef, p: Panicked) -> RunReport {
    let ended = crate::world::record::Ended { result: Ok(()), sim_elapsed: None, steps: 0 };
    let mut report = RunReport::panicked(crate::world::record::finish(ended, Default::default()), p.to_string());
    let journal = &report.outcome.journal;
    let references: Vec<Check> = def.laws.iter().filter_map(|l| crate::law::reference::check(l, journal)).collect();
    report.checks.extend(references);
    report
}

/// Run a scenario's definition and judge it by its word (see [`run`]), holding
/// it to that word: a check of a law it does not declare, a check it wrote
/// itself for a law judged over an observation, and a declared law over an
/// observation its run did not make are bugs in the scenario (each panics).
pub fn run_def(def: &ScenarioDef, spec: &RunSpec) -> RunReport {
    judge(def, (def.run)(spec))
}

/// Judge a scenario's run by its declaration (see [`run_def`]): for a report
/// from a scenario's run function called directly (a test's own setup).
pub fn judge(def: &ScenarioDef, report: RunReport) -> RunReport {
    let RunReport { outcome, checks, seen } = report;
    let (mut judged, own): (Vec<Check>, Vec<Check>) = checks.into_iter().partition(|c| matches!(c.law.judge, Judge::Outcome));
    for c in &own {
        assert!(def.judges(c.law.name), "scenario {} checked law {:?}, which its definition does not declare", def.name, c.law.name);
        assert!(matches!(c.law.judge, Judge::Own), "scenario {} wrote the check of {:?} itself: its law judges it ({:?})", def.name, c.law.name, c.law.judge);
    }
    for law in def.laws {
        match law.judge {
            Judge::Outcome => {}
            Judge::Own => judged.extend(own.iter().filter(|c| c.law.name == law.name).cloned()),
            Judge::Journal(_) => judged.extend(crate::law::reference::check(law, &outcome.journal)),
            _ => judged.push(seen.judge(law).unwrap_or_else(|| panic!("scenario {} declares {:?}, but its run observed nothing for it", def.name, law.name))),
        }
    }
    RunReport { outcome, checks: judged, seen }
}

/// Every law a run may judge, once each: the universal ones first, then the
/// scenarios' in scenario order, then the reference models'.
pub fn all_laws() -> Vec<&'static Law> {
    let mut out: Vec<&'static Law> = UNIVERSAL.to_vec();
    for law in SCENARIOS.iter().flat_map(|s| s.laws).filter(|l| !matches!(l.judge, Judge::Journal(_))) {
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

/// (switch, scenario, law) for every switch a scenario catches, with the first
/// of its laws (in the order it declares them, the order a verdict names the
/// first failure in) that the switch breaks, in scenario order: the switch
/// table of SPEC section 7.
pub fn switch_laws() -> Vec<(Switch, &'static ScenarioDef, &'static Law)> {
    let first = |s: &'static ScenarioDef, w: Switch| s.laws.iter().copied().find(|l| l.broken_by.contains(&w)).map(|l| (w, s, l));
    SCENARIOS.iter().flat_map(|s| s.catches.iter().filter_map(move |w| first(s, *w))).collect()
}

/// The scenarios whose laws catch one of `switches`, in scenario order.
pub fn scenarios_for(switches: &[Switch]) -> Vec<&'static ScenarioDef> {
    SCENARIOS.iter().copied().filter(|s| s.catches.iter().any(|w| switches.contains(w))).collect()
}
