//! `ftwsim list`: every scenario, every law a scenario judges, every switch;
//! all derived from the scenarios' definitions.

use std::process::ExitCode;

use ftw_sim::scenario::SCENARIOS;
use ftw_sim::switch::Switch;

/// Scenarios, properties (laws) and bug switches, one a line.
#[derive(clap::Args)]
pub struct Args {}

pub fn main(_: Args) -> ExitCode {
    for s in SCENARIOS {
        println!("scenario {}  {}", s.name, s.about);
    }
    for l in ftw_sim::scenario::all_laws() {
        println!("property {}  {}", l.name, l.about);
    }
    for s in Switch::ALL {
        println!("switch {}  {}", s.name(), s.about());
    }
    ExitCode::SUCCESS
}
