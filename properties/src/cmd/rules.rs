//! `ftwsim rules`: the rule table as Markdown (what `docs/rules.md` holds).

use std::process::ExitCode;

/// Print the rule table.
#[derive(clap::Args)]
pub struct Args {}

pub fn main(_: Args) -> ExitCode {
    print!("{}", crate::rules::markdown());
    ExitCode::SUCCESS
}
