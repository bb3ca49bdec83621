//! `ftwsim timeline`: draw a saved trace.

use std::path::PathBuf;
use std::process::ExitCode;

use super::bad_input;
use crate::{corpus, timeline};

/// Draw a saved trace (`--trace` JSON lines) as a picture.
#[derive(clap::Args)]
pub struct Args {
    trace: PathBuf,
    /// `.html` or `.svg`.
    #[arg(long)]
    out: PathBuf,
    /// A corpus entry whose plan's outages to shade.
    #[arg(long)]
    plan: Option<PathBuf>,
}

pub fn main(a: Args) -> ExitCode {
    let text = match std::fs::read_to_string(&a.trace) {
        Ok(t) => t,
        Err(e) => return bad_input(&format!("{}: {e}", a.trace.display())),
    };
    let events = match timeline::read_jsonl(&text) {
        Ok(e) => e,
        Err(e) => return bad_input(&format!("{}: {e}", a.trace.display())),
    };
    let plan = match &a.plan {
        Some(p) => match corpus::load(p) {
            Ok(e) => Some(e.spec.plan),
            Err(e) => return bad_input(&e),
        },
        None => None,
    };
    let title = timeline::Title { scenario: a.trace.display().to_string(), seed: "-".into(), verdict: "saved trace".into(), hash: String::new() };
    if let Err(e) = std::fs::write(&a.out, timeline::render_for(&a.out, &events, plan.as_ref(), &title)) {
        return bad_input(&format!("--out {}: {e}", a.out.display()));
    }
    println!("timeline: {} ({} events)", a.out.display(), events.len());
    ExitCode::SUCCESS
}
