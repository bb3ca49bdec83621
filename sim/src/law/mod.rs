//! Laws: what a run must uphold, each declared once as a value ([`Law`]), and
//! what judging one ends in ([`Check`]). `laws` declares the scenarios' laws;
//! `reference` holds the reference models judged in lockstep over the journal.
//! Above the drivers, below the scenarios: a law may read what a driver
//! observed, never a scenario.

pub mod laws;
pub mod reference;

use crate::world::switch::Switch;

/// A law a run is judged by, declared once: its name (what users type and the
/// corpus records), the rule in words, and the bug switches that break it
/// (SPEC section 7: each shown by a test, and caught by every scenario that
/// lists it in its `catches`).
#[derive(Debug, PartialEq, Eq)]
pub struct Law {
    pub name: &'static str,
    pub about: &'static str,
    pub broken_by: &'static [Switch],
}

impl Law {
    /// A law no known switch breaks.
    pub const fn new(name: &'static str, about: &'static str) -> Law {
        Law { name, about, broken_by: &[] }
    }

    /// The same law, broken by `switches`.
    pub const fn broken_by(self, switches: &'static [Switch]) -> Law {
        Law { broken_by: switches, ..self }
    }
}

/// The law every run judges first: the run itself ends without an error (a
/// host's task failing, the world's limit reached).
pub const RUN: Law = Law::new("run", "the run completes: no host fails and the world ends within its limit");

/// The law every run judges too: no panic. A model's own assertion, a
/// driver's `expect`: anything that unwinds out of a run is caught and fails
/// this law with its message and location (`world::panic`).
pub const NO_PANIC: Law = Law::new("no-panic", "nothing panics during a run: a model's own assertion firing is a finding, with its message and location")
    .broken_by(&[Switch::PinGaugeDrift]);

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
