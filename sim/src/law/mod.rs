//! Laws: what a run must uphold, each declared once as a value ([`Law`]), and
//! what judging one ends in ([`Check`]). `laws` declares the scenarios' laws;
//! `reference` holds the reference models judged in lockstep over the journal.
//! Above the drivers, below the scenarios: a law may read what a driver
//! observed, never a scenario.

// The judge modules the scenarios share: the excuses QUIC's own rules give
// (a connection idled out, a move the rig's stacks answer as they do), the box's
// uplink laws, and the phone's picture of the site over lane 0.
pub(crate) mod idle_out;
pub(crate) mod lane0_picture;
pub mod laws;
mod list;
pub mod reference;
pub(crate) mod rig_move;
pub mod rules;
pub mod seen;
pub(crate) mod shared;
pub(crate) mod spec;
pub(crate) mod uplink_laws;

pub use list::{concat as list_concat, total as list_total};

use crate::drive::app::phone::SessionRecord;
use crate::world::journal::Entry;
use crate::world::switch::Switch;

/// A law a run is judged by, declared once: its name (what users type and the
/// corpus records), the rule in words, how it is judged (over which typed
/// observation, by which function), and the bug switches that break it (SPEC
/// section 7: each shown by a test; a scenario that lists one of them in its
/// `catches` must fail with it, on the first of its laws the switch breaks).
#[derive(Debug)]
pub struct Law {
    pub name: &'static str,
    pub about: &'static str,
    pub judge: Judge,
    pub broken_by: &'static [Switch],
    /// The rules it checks (each a SPEC sentence, a seed's, a page of docs/).
    pub rules: &'static [&'static rules::Rule],
}

/// Laws are one by name (`scenario::all_laws` holds the names unique: tested).
impl PartialEq for Law {
    fn eq(&self, other: &Law) -> bool {
        self.name == other.name
    }
}

impl Eq for Law {}

impl Law {
    /// A law judged by the one scenario that declares it, which no known switch breaks.
    pub const fn new(name: &'static str, about: &'static str) -> Law {
        Law { name, about, judge: Judge::Own, broken_by: &[], rules: &[] }
    }

    /// The same law, broken by `switches`.
    pub const fn broken_by(self, switches: &'static [Switch]) -> Law {
        Law { broken_by: switches, ..self }
    }

    /// The same law, checking `rules` (a law checks at least one: tested).
    pub const fn checks(self, rules: &'static [&'static rules::Rule]) -> Law {
        Law { rules, ..self }
    }

    /// The same law, judged by `judge`.
    pub const fn judged(self, judge: Judge) -> Law {
        Law { judge, ..self }
    }
}

/// What a judge rules: whether the law held, and what it saw, in words.
pub type Ruling = (bool, String);

/// How a law is judged: over which typed observation, by which function. One
/// run (`scenario::run`) judges every law its scenario declares this way.
#[derive(Debug, Clone, Copy)]
pub enum Judge {
    /// The universal laws, from the run's outcome (`RunReport::new`).
    Outcome,
    /// By its one scenario, over what only that scenario observes: the
    /// scenario's run returns its check.
    Own,
    /// Over the stream's echo ([`seen::Echo`]).
    Echo(fn(&seen::Echo) -> Ruling),
    /// Over the connections the cloud accepted ([`seen::Accepted`]).
    Accepted(fn(&seen::Accepted) -> Ruling),
    /// Over the close the cloud saw ([`seen::Close`]).
    Close(fn(&seen::Close) -> Ruling),
    /// Over what is held once the phone has gone ([`seen::Held`]).
    Held(fn(&seen::Held) -> Ruling),
    /// Over the replays refused and made ([`seen::Replays`]).
    Replays(fn(&seen::Replays) -> Ruling),
    /// Over the phone's sessions ([`seen::Sessions`]).
    Sessions(fn(&seen::Sessions) -> Ruling),
    /// Over the phone's sessions as it recorded them.
    PhoneSessions(fn(&[SessionRecord]) -> Ruling),
    /// A reference model in lockstep over the run's journal (`None`: its
    /// model took no part in the run).
    Journal(fn(&[Entry]) -> Option<reference::Lockstep>),
}

/// The law every run judges first: the run itself ends without an error (a
/// host's task failing, the world's limit reached).
pub const RUN: Law =
    Law::new("run", "the run completes: no host fails and the world ends within its limit").checks(&[&rules::RUNS_COMPLETE]).judged(Judge::Outcome);

/// The law every run judges too: no panic. A model's own assertion, a
/// driver's `expect`: anything that unwinds out of a run is caught and fails
/// this law with its message and location (`world::panic`).
pub const NO_PANIC: Law = Law::new("no-panic", "nothing panics during a run: a model's own assertion firing is a finding, with its message and location")
    .checks(&[&rules::RUNS_COMPLETE])
    .broken_by(&[Switch::PinGaugeDrift])
    .judged(Judge::Outcome);

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
