//! The typed definition every scenario is made of ([`ScenarioDef`]: name,
//! words, domain, laws, the switches it catches, run function), and what a run
//! ends in ([`RunReport`], [`Verdict`]).

use crate::law::seen::Seen;
use crate::law::{Check, Law, NO_PANIC, RUN, UNIVERSAL};
use crate::world::domain::Domain;
use crate::world::switch::Switch;
use crate::world::topology::RunSpec;
use crate::world::RunOutcome;

/// A scenario users can name: everything about it, in one place.
pub struct ScenarioDef {
    pub name: &'static str,
    pub about: &'static str,
    /// What the fuzzer may draw for it.
    pub domain: Domain,
    /// Every law its runs check (a run that checks another is a bug: tested).
    pub laws: &'static [&'static Law],
    /// The bug switches its runs must catch from random seeds within the
    /// default cases (SPEC section 7), each through one of its laws that the
    /// switch breaks (`Law::broken_by`).
    pub catches: &'static [Switch],
    pub run: fn(&RunSpec) -> RunReport,
}

impl std::fmt::Debug for ScenarioDef {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}", self.name)
    }
}

impl crate::world::topology::Scenario for ScenarioDef {
    fn name(&self) -> &'static str {
        self.name
    }
    fn as_any(&self) -> &dyn std::any::Any {
        self
    }
}

impl ScenarioDef {
    /// Whether this scenario judges the law named `name`.
    pub fn judges(&self, name: &str) -> bool {
        UNIVERSAL.iter().any(|l| l.name == name) || self.laws.iter().any(|l| l.name == name)
    }
}

/// A run's outcome, its checks, and what it saw for the laws several
/// scenarios judge.
#[derive(Debug)]
pub struct RunReport {
    pub outcome: RunOutcome,
    pub checks: Vec<Check>,
    pub seen: Seen,
}

/// Pass, or the first law that failed.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Verdict {
    Pass,
    Fail { property: String, detail: String },
}

impl RunReport {
    /// A run's report: the universal laws judged first (`run` from the outcome's
    /// result, `no-panic`: the run got here), then the scenario's own checks.
    pub fn new(outcome: RunOutcome, checks: Vec<Check>) -> Self {
        let run = match &outcome.result {
            Ok(()) => Check { law: &RUN, ok: true, detail: "the run completed within its limit".into() },
            Err(e) => Check { law: &RUN, ok: false, detail: e.clone() },
        };
        let no_panic = Check { law: &NO_PANIC, ok: true, detail: "nothing panicked".into() };
        RunReport { outcome, checks: [run, no_panic].into_iter().chain(checks).collect(), seen: Seen::default() }
    }

    /// The report of a run that unwound: the trace up to the panic, and the
    /// failed `no-panic` check carrying the panic's message and location.
    pub fn panicked(outcome: RunOutcome, panic: String) -> Self {
        let run = Check { law: &RUN, ok: true, detail: "the run stopped at a panic".into() };
        RunReport { outcome, checks: vec![run, Check { law: &NO_PANIC, ok: false, detail: panic }], seen: Seen::default() }
    }

    /// The same report, with what the run saw for the laws several scenarios judge.
    pub fn with(self, seen: Seen) -> Self {
        RunReport { seen, ..self }
    }

    /// Pass, or the first law that failed (the universal laws first).
    pub fn verdict(&self) -> Verdict {
        match self.checks.iter().find(|c| !c.ok) {
            Some(c) => Verdict::Fail { property: c.law.name.into(), detail: c.detail.clone() },
            None => Verdict::Pass,
        }
    }
}
