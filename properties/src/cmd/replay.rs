//! `ftwsim replay`: corpus entries against their expectations.

use std::path::PathBuf;
use std::process::ExitCode;

use ftw_sim::scenario::Verdict;

use super::bad_input;
use crate::corpus;

/// Replay corpus entries (default: corpus/) and check each one's expectation.
#[derive(clap::Args)]
pub struct Args {
    paths: Vec<PathBuf>,
}

pub fn main(a: Args) -> ExitCode {
    let paths = if a.paths.is_empty() { vec![PathBuf::from("corpus")] } else { a.paths };
    let files = match corpus::collect(&paths) {
        Ok(f) => f,
        Err(e) => return bad_input(&e),
    };
    let results = corpus::replay(&files);
    let mut bad = 0;
    for r in &results {
        match &r.outcome {
            Ok((e, v, hash)) => {
                let got = match v {
                    Verdict::Pass => "pass".to_string(),
                    Verdict::Fail { property, .. } => format!("fails {property}"),
                };
                let ok = e.expect.met_by(v);
                if !ok {
                    bad += 1;
                }
                println!("{} {}  expected {}, got {}  hash {}", if ok { "ok  " } else { "FAIL" }, r.path.display(), e.expect.render(), got, &hash[..16]);
            }
            Err(msg) => {
                bad += 1;
                println!("BAD  {}", r.path.display());
                eprintln!("ftwsim: {msg}");
            }
        }
    }
    println!("{} passed, {} failed", results.len() - bad, bad);
    if bad > 0 {
        ExitCode::from(1)
    } else {
        ExitCode::SUCCESS
    }
}
