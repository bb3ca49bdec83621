//! ftw-sim: the phone, the box, the cloud and the cloud's QUIC reactors in
//! one seeded turmoil world, run from a seed, a fault plan and a set of bug
//! switches, and judged by laws. Every run replays exactly from its spec.
//!
//! The public surface is what a scenario's user, `ftw-properties` and a user's
//! own test need; the machinery beneath it (the world, the drivers, each
//! scenario's and each table row's code) is private to the crate:
//!
//! * running: [`scenario::run`] a [`RunSpec`] (a scenario's definition, a
//!   [`RunSeed`], a [`plan::FaultPlan`], [`switch::Switches`]) into a
//!   [`scenario::RunReport`] (its [`RunOutcome`]: result, trace, journal,
//!   captures; its checks; [`scenario::Verdict`]); [`scenario::SCENARIOS`] and
//!   each scenario's typed definition, [`scenario::ScenarioDef`] (a user's own
//!   scenario is one of these, run by [`scenario::run`] as a registered one);
//! * laws: [`law`]: each law a value with its judge, the typed observations
//!   several scenarios make ([`law::seen`]), the reference models in lockstep
//!   ([`law::reference`]);
//! * fault plans and what the fuzzer may draw: [`plan`], [`domain`], bug
//!   switches [`switch`], the parties and addresses [`host`];
//! * what a run leaves: [`trace`], [`journal`] (the models' typed steps),
//!   [`net`] (the network's pieces, captures and NATs), [`time`];
//! * a world of one's own: [`World`] (turmoil under the run's seed, its
//!   network pieces and NATs), named by [`OwnWorld`]; [`plant`] plants a bug in
//!   the world for a test;
//! * the seed's measurements in the simulated rig: [`table`]; the real work a
//!   run cannot avoid, as workloads `ftwsim bench` times: [`floor`].
//!
//! The layers' imports point one way, down: `world` (seeds, time, the network,
//! the plan, the journal), `drive` (the transports and the phone, box and cloud
//! drivers, and the rig that builds every world), [`law`], [`scenario`],
//! [`table`]. The system tests (`tests/`, inside the crate) build worlds with
//! the drivers directly.

mod drive;
pub mod floor;
pub mod law;
pub mod scenario;
pub mod table;
mod world;

pub use world::seed::{parse_seed, RunSeed};
pub use world::topology::{OwnWorld, RunSpec, Scenario};
pub use world::{domain, host, journal, net, plan, plant, switch, time, trace};
pub use world::{RunOutcome, World, WorldConfig};

#[cfg(test)]
mod tests;
