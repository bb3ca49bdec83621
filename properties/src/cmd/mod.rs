//! `ftwsim`'s subcommands, one file each: its arguments (clap) and its `main`.

use std::process::ExitCode;

pub mod bench;
pub mod fuzz;
pub mod list;
pub mod replay;
pub mod rules;
pub mod run;
pub mod table;
pub mod timeline;
pub mod triage;

/// A one-line error for bad input (exit status 2).
pub fn bad_input(msg: &str) -> ExitCode {
    eprintln!("ftwsim: {msg}");
    ExitCode::from(2)
}
