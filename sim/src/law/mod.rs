//! Laws: what a run must uphold, each declared once as a value ([`Law`]), and
//! what judging one ends in ([`Check`]). `laws` declares the scenarios' laws;
//! `reference` holds the reference models judged in lockstep over the journal.
//! Above the drivers, below the scenarios: a law may read what a driver
//! observed, never a scenario.

pub mod laws;
pub mod reference;

/// A law a scenario checks at the end of a run: the rule in words.
#[derive(Debug, PartialEq, Eq)]
pub struct Law {
    pub name: &'static str,
    pub about: &'static str,
}

/// The law every run judges first: the run itself ends without an error (a
/// host's task failing, the world's limit reached).
pub const RUN: Law = Law { name: "run", about: "the run completes: no host fails and the world ends within its limit" };

/// The law every run judges too: no panic. A model's own assertion, a
/// driver's `expect`: anything that unwinds out of a run is caught and fails
/// this law with its message and location (`world::panic`).
pub const NO_PANIC: Law =
    Law { name: "no-panic", about: "nothing panics during a run: a model's own assertion firing is a finding, with its message and location" };

/// The laws every scenario judges, besides its own.
pub const UNIVERSAL: &[&Law] = &[&RUN, &NO_PANIC];

/// One law checked at the end of a run.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Check {
    pub law: &'static Law,
    pub ok: bool,
    pub detail: String,
}

impl Check {
    /// The law's name.
    pub fn property(&self) -> &'static str {
        self.law.name
    }
}
