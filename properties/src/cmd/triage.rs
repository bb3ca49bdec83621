//! `ftwsim triage`: several fuzzing shards or nights as one, failures grouped by signature.

use std::path::PathBuf;
use std::process::ExitCode;

use super::bad_input;
use crate::triage;

/// Merge the summaries (`*.json`: `ftwsim fuzz --json`) and entries (`*.toml`)
/// under each DIR: failures grouped by signature (scenario, law, typed reason),
/// the smallest entry of each, each marked new or known (an entry in --corpus
/// with the same signature).
#[derive(clap::Args)]
pub struct Args {
    /// Directories of fuzzing sessions (searched recursively), e.g. one a shard.
    #[arg(required = true)]
    dirs: Vec<PathBuf>,
    /// The corpus whose entries make a signature known (its top level only).
    #[arg(long, default_value = "corpus")]
    corpus: PathBuf,
    /// Print one JSON object instead of text.
    #[arg(long)]
    json: bool,
    /// Also write the page (`DIR/index.html`) and each signature's files (`DIR/entries/`).
    #[arg(long)]
    report: Option<PathBuf>,
}

fn run(a: &Args) -> Result<triage::Triage, String> {
    let (shards, entries) = triage::read_dirs(&a.dirs)?;
    if shards.is_empty() && entries.is_empty() {
        let dirs: Vec<String> = a.dirs.iter().map(|d| d.display().to_string()).collect();
        return Err(format!("no fuzz summary (*.json) and no entry (*.toml) under {}", dirs.join(", ")));
    }
    // Without a corpus every signature would be called new (a session run in a scratch
    // folder, where `corpus` names nothing, once called two known failures new).
    if !a.corpus.is_dir() {
        let c = a.corpus.display();
        return Err(format!("--corpus {c}: not a directory, so no failure could be known; run from the project's root or pass --corpus DIR"));
    }
    let known = triage::known_signatures(&a.corpus).map_err(|e| format!("--corpus: {e}"))?;
    triage::triage(&shards, &entries, &known)
}

pub fn main(a: Args) -> ExitCode {
    let t = match run(&a) {
        Ok(t) => t,
        Err(e) => return bad_input(&e),
    };
    if a.json {
        println!("{}", serde_json::to_value(&t).expect("triage serialises"));
    } else {
        print!("{}", t.render());
    }
    if let Some(dir) = &a.report {
        let dirs: Vec<String> = a.dirs.iter().map(|d| d.display().to_string()).collect();
        match crate::report::write(dir, &t, &format!("ftwsim triage {}", dirs.join(" "))) {
            Ok(page) => eprintln!("ftwsim: the page: {}", page.display()),
            Err(e) => return bad_input(&e),
        }
    }
    ExitCode::SUCCESS
}
