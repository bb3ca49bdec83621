//! ftw-sim: the phone, the box, the cloud and the cloud's QUIC reactors in
//! one seeded turmoil world, run from a seed, a fault plan and a set of bug
//! switches, and judged by laws. Every run replays exactly from its spec.
//!
//! The public surface, what a scenario, `ftw-properties` and a user's own test
//! need (the world's machinery beneath it is private):
//!
//! * running: [`scenario::run`] a [`RunSpec`] (a scenario's name, a [`RunSeed`],
//!   a [`plan::FaultPlan`], [`switch::Switches`]) into a
//!   [`scenario::RunReport`] (its [`RunOutcome`]: result, trace, journal,
//!   captures; its checks; [`scenario::Verdict`]); [`scenario::SCENARIOS`] and
//!   each scenario's typed definition;
//! * laws: [`law`]: each law a value with its judge, the typed observations
//!   several scenarios make, the reference models in lockstep;
//! * fault plans and what the fuzzer may draw: [`plan`], [`domain`], bug
//!   switches [`switch`], the parties and addresses [`host`];
//! * what a run leaves: [`trace`], [`journal`] (the models' typed steps),
//!   [`net`] (the network's pieces, captures and NATs), [`time`];
//! * a world of one's own: [`drive::rig::Rig`] builds it (the standard
//!   topology under a plan), [`drive`] has the transports and the phone, box
//!   and cloud drivers; [`plant`] plants a bug in the world for a test;
//! * the seed's measurements in the simulated rig: [`table`]; the real work a
//!   run cannot avoid, as workloads `ftwsim bench` times: [`floor`].
//!
//! The layers' imports point one way, down: `world` (private: seeds, time, the
//! network, the plan, the journal), [`drive`], [`law`], [`scenario`], [`table`].

pub mod drive;
pub mod floor;
pub mod law;
pub mod scenario;
pub mod table;
mod world;

pub use world::seed::{parse_seed, RunSeed};
pub use world::topology::{OwnWorld, RunSpec, Scenario};
pub use world::{domain, host, journal, net, plan, plant, switch, time, trace};
pub use world::{RunOutcome, World, WorldConfig};
