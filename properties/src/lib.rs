//! The laws, the corpus and the `ftwsim` command.
//!
//! - [`strategy`]: fault plans as proptest strategies (swarm testing, shrinking).
//! - [`harness`]: draw cases, run them, shrink failures, write corpus entries.
//! - [`fuzz`]: `ftwsim fuzz` (shards, determinism spot-checks, coverage).
//! - [`coverage`]: event kinds counted across cases; the expected list.
//! - [`timeline`]: one run as an SVG or HTML picture.
//! - [`laws`]: which scenario and property catch each bug switch.
//! - the reference models in lockstep live in `ftw_sim::law::reference`; `ftw_sim::scenario::run` judges them.
//! - [`rules`]: the rule table: every rule of the SPEC and the laws that check it.
//! - [`corpus`]: failures and hard cases kept as data.
//! - [`report`]: a night of fuzzing as one static HTML page.
//! - [`triage`]: failures grouped by signature across shards and nights.

pub mod capture;
pub mod catch;
pub mod cmd;
pub mod compare;
pub mod corpus;
pub mod coverage;
pub mod floor;
pub mod fuzz;
pub mod guide;
pub mod harness;
pub mod laws;
pub mod pool;
pub mod progress;
pub mod report;
pub mod rules;
pub mod strategy;
pub mod timeline;
pub mod triage;
