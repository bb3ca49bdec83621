//! The journal: every input a model was given and every decision it made, as
//! plain data, in the order the drivers saw them. Reference models (crate
//! ftw-properties, `reference/`) replay it to check each model in lockstep
//! against a second implementation written from the SPEC's words.
//!
//! The journal rides in the run's [`Trace`](super::trace::Trace) but is never
//! hashed: adding a step changes no trace hash. Each model's steps are one
//! type in its own file here; drivers record them with [`record`].

pub mod r#box;
pub mod carrier;
pub mod cloud;
pub mod fleet;
pub mod race;
pub mod replay;
pub mod view;

use std::time::Duration;

/// One model's input or decision.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Step {
    Race(race::RaceStep),
    Carrier(carrier::CarrierStep),
    Replay(replay::ReplayStep),
    View(view::ViewStep),
    Fleet(fleet::FleetStep),
    Box(r#box::BoxStep),
    Cloud(cloud::CloudStep),
}

/// A step with when and where it happened.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Entry {
    /// Simulated time, in milliseconds since the start.
    pub t_ms: u64,
    pub host: String,
    pub step: Step,
}

impl Entry {
    /// `t=…ms host step` for a person reading a disagreement.
    pub fn describe(&self) -> String {
        format!("t={}ms {} {:?}", self.t_ms, self.host, self.step)
    }
}

/// Journal a step at the running host's current simulated time.
pub fn record(host: &str, step: Step) {
    let t = turmoil::sim_elapsed().unwrap_or_default();
    record_at(t, host, step);
}

/// Journal a step at an explicit simulated time.
pub fn record_at(t: Duration, host: &str, step: Step) {
    super::trace::journal(Entry { t_ms: t.as_millis() as u64, host: host.to_string(), step });
}
