//! The typed definitions every scenario is made of: a [`Law`] (its name and its
//! words), the switches that must break it ([`Judged`]), a scenario's whole
//! definition ([`ScenarioDef`]: name, words, domain, laws, run function), and
//! what a run ends in ([`Check`], [`RunReport`], [`Verdict`]).

use crate::law::{Check, Law, NO_PANIC, RUN, UNIVERSAL};
use crate::world::domain::Domain;
use crate::world::switch::Switch;
use crate::world::topology::RunSpec;
use crate::world::RunOutcome;

/// A law as one scenario judges it: with the bug switches that must make it
/// fail in that scenario (SPEC section 7: from random seeds, within the
/// default number of cases).
#[derive(Debug)]
pub struct Judged {
    pub law: &'static Law,
    pub broken_by: &'static [Switch],
}

/// A law judged with no switch known to break it in this scenario.
pub const fn judge(law: &'static Law) -> Judged {
    Judged { law, broken_by: &[] }
}

/// A law judged, and the switches that break it here.
pub const fn broken(law: &'static Law, by: &'static [Switch]) -> Judged {
    Judged { law, broken_by: by }
}

/// A scenario users can name: everything about it, in one place.
pub struct ScenarioDef {
    pub name: &'static str,
    pub about: &'static str,
    /// What the fuzzer may draw for it.
    pub domain: Domain,
    /// Every law its runs check (a run that checks another is a bug: tested).
    pub laws: &'static [Judged],
    pub run: fn(&RunSpec) -> RunReport,
}

impl ScenarioDef {
    /// Whether this scenario judges the law named `name`.
    pub fn judges(&self, name: &str) -> bool {
        UNIVERSAL.iter().any(|l| l.name == name) || self.laws.iter().any(|j| j.law.name == name)
    }
}

/// A run's outcome and its checks.
#[derive(Debug)]
pub struct RunReport {
    pub outcome: RunOutcome,
    pub checks: Vec<Check>,
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
        RunReport { outcome, checks: [run, no_panic].into_iter().chain(checks).collect() }
    }

    /// The report of a run that unwound: the trace up to the panic, and the
    /// failed `no-panic` check carrying the panic's message and location.
    pub fn panicked(outcome: RunOutcome, panic: String) -> Self {
        let run = Check { law: &RUN, ok: true, detail: "the run stopped at a panic".into() };
        RunReport { outcome, checks: vec![run, Check { law: &NO_PANIC, ok: false, detail: panic }] }
    }

    /// Pass, or the first law that failed (the universal laws first).
    pub fn verdict(&self) -> Verdict {
        match self.checks.iter().find(|c| !c.ok) {
            Some(c) => Verdict::Fail { property: c.law.name.into(), detail: c.detail.clone() },
            None => Verdict::Pass,
        }
    }
}
