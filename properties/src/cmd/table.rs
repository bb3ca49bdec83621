//! `ftwsim table`: the seed's tables in the simulated rig.

use std::path::PathBuf;
use std::process::ExitCode;

use super::bad_input;

/// The seed's tables in the simulated rig: the system, the phone's view, an idle box's bytes.
#[derive(clap::Args)]
pub struct Args {
    /// Connects and taps per row.
    #[arg(long, default_value_t = 30)]
    samples: usize,
    #[arg(long, default_value = "1")]
    seed: String,
    /// Every number as a JSON list of rows.
    #[arg(long)]
    json: bool,
    /// Also write CSV and one SVG per row's distribution here.
    #[arg(long)]
    out: Option<PathBuf>,
}

pub fn main(a: Args) -> ExitCode {
    let bar = crate::progress::bar(ftw_sim::table::row_groups() as u64, "row groups");
    bar.set_prefix("table");
    let mut done = |name: &str| {
        bar.inc(1);
        bar.set_message(name.to_string());
    };
    let result = ftw_sim::table::command_line_with(&a.seed, a.samples, a.json, a.out.as_deref(), &mut done);
    bar.finish_and_clear();
    match result {
        Ok(text) => {
            print!("{text}");
            ExitCode::SUCCESS
        }
        Err(e) => bad_input(&e),
    }
}
