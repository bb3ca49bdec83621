//! `ftwsim fuzz`: many drawn cases; failures become corpus entries.

use std::path::PathBuf;
use std::process::ExitCode;

use ftw_sim::parse_seed;
use ftw_sim::scenario::{self, SCENARIOS};
use ftw_sim::switch::Switches;

use super::bad_input;
use crate::fuzz::{self, parse_shard, FuzzOpts, Stop};

/// Many drawn cases with swarm testing; failures become corpus entries.
#[derive(clap::Args)]
pub struct Args {
    /// Stop after this many wall-clock seconds (default: 60 unless --cases).
    #[arg(long, value_parser = clap::value_parser!(u64).range(1..=604_800))]
    time: Option<u64>,
    /// Stop after this many cases.
    #[arg(long, conflicts_with = "time", value_parser = clap::value_parser!(u64).range(1..=1_000_000_000))]
    cases: Option<u64>,
    /// Only this property counts (`replay`: only the determinism check, on every case).
    #[arg(long)]
    property: Option<String>,
    /// Scenarios to fuzz: repeatable or a comma-separated list (default: every registered scenario).
    #[arg(long = "scenario", value_delimiter = ',')]
    scenarios: Vec<String>,
    /// A bug switch on in every case (repeatable).
    #[arg(long = "switch")]
    switches: Vec<String>,
    /// The QUIC stand-in of every case: `rig` (as the rig's quic-go behaves; docs/fault-plans.md)
    /// or `patched` (every section of PATCH.md, quinn's own migration).
    #[arg(long, default_value = "rig")]
    quic: String,
    /// This shard of the case space: I/N, 0-based.
    #[arg(long, default_value = "0/1")]
    shard: String,
    /// The first case's seed (case i has seed FROM+i).
    #[arg(long, default_value = "1")]
    seed_from: String,
    /// Where failures become corpus entries.
    #[arg(long, default_value = "corpus/found")]
    out: PathBuf,
    /// Run one case in this many twice and compare trace hashes.
    #[arg(long, default_value_t = 8, value_parser = clap::value_parser!(u64).range(1..=1_000_000_000))]
    determinism_every: u64,
    /// Worker threads.
    #[arg(long, default_value_t = 1, value_parser = clap::value_parser!(u64).range(1..=256))]
    jobs: u64,
    /// Print one JSON object (the summary) on stdout.
    #[arg(long)]
    json: bool,
    /// The unguided search: every case a fresh swarm draw (default: guided, issue 36:
    /// fresh draws mixed with mutations of the plans kept for reaching new keys).
    #[arg(long)]
    unguided: bool,
    /// Where the guided search writes its kept plans, `DIR/<scenario>/` (default:
    /// OUT/kept; `ftwsim triage` does not read a folder named `kept`).
    #[arg(long)]
    kept: Option<PathBuf>,
    /// Kept plans to start from (a folder as `--kept` writes it; repeatable): run
    /// first, each as a case, and kept again if they reach new keys. Under
    /// `--shard I/N` this shard takes the files numbered I, I+N, ... (sorted by path).
    #[arg(long = "kept-from")]
    kept_from: Vec<PathBuf>,
    /// Also write the session as a page (`DIR/index.html`) with each signature's
    /// files (`DIR/entries/`); signatures already in `corpus/` are marked known.
    #[arg(long)]
    report: Option<PathBuf>,
}

/// The options from the arguments, or the message for bad input.
fn opts(a: Args) -> Result<(FuzzOpts, bool, Option<PathBuf>), String> {
    let stop = match (a.time, a.cases) {
        (_, Some(n)) => Stop::Cases(n),
        (Some(t), None) => Stop::Time(t),
        (None, None) => Stop::Time(60),
    };
    let shard = parse_shard(&a.shard).map_err(|e| format!("--shard: {e}"))?;
    let seed_from = parse_seed(&a.seed_from).map_err(|e| format!("--seed-from: {e}"))?.0;
    let switches = Switches::parse(a.switches.iter().map(String::as_str)).map_err(|e| format!("--switch: {e}"))?;
    let quic = ftw_sim::plan::QuicPlan::parse(&a.quic).map_err(|e| format!("--quic: {e}"))?;
    if let Some(p) = &a.property {
        // `replay` is the determinism check; every other property is a law.
        if p != "replay" && ftw_sim::scenario::law(p).is_none() {
            let known: Vec<&str> = ftw_sim::scenario::all_laws().iter().map(|l| l.name).collect();
            return Err(format!("--property: unknown property {p:?}; known properties: replay, {}", known.join(", ")));
        }
    }
    // With bug switches on and no scenario named, fuzz the scenarios that catch
    // those switches (their definitions' laws), not every scenario.
    let caught_by: Vec<String> = crate::laws::scenarios_for(switches.names()).into_iter().map(String::from).collect();
    let scenarios = if !a.scenarios.is_empty() {
        a.scenarios
    } else if !caught_by.is_empty() {
        caught_by
    } else {
        SCENARIOS.iter().map(|s| s.name.to_string()).collect()
    };
    for s in &scenarios {
        scenario::find(s).map_err(|e| format!("--scenario: {e}"))?;
    }
    if a.determinism_every == 0 {
        return Err("--determinism-every: must be at least 1".into());
    }
    if a.unguided && (a.kept.is_some() || !a.kept_from.is_empty()) {
        return Err("--kept and --kept-from are for the guided search: drop --unguided".into());
    }
    let guide = fuzz::Guide { on: !a.unguided, kept_out: Some(a.kept.unwrap_or_else(|| a.out.join("kept"))), kept_from: a.kept_from };
    let opts = FuzzOpts {
        guide,
        first_only: false,
        stop,
        property: a.property,
        scenarios,
        switches,
        quic,
        shard,
        seed_from,
        out_dir: a.out,
        determinism_every: a.determinism_every,
        jobs: a.jobs as usize,
        progress: true,
        known: Default::default(),
    };
    Ok((opts, a.json, a.report))
}

pub fn main(a: Args) -> ExitCode {
    let (opts, json, report) = match opts(a) {
        Ok(o) => o,
        Err(e) => return bad_input(&e),
    };
    let summary = match fuzz::fuzz(&opts) {
        Ok(s) => s,
        Err(e) => return bad_input(&e),
    };
    if json {
        println!("{}", summary.json());
    } else {
        print!("{}", summary.render());
    }
    for w in &summary.warnings {
        eprintln!("ftwsim: warning: {w}");
    }
    if let Some(dir) = &report {
        match write_report(dir, &summary) {
            Ok(page) => eprintln!("ftwsim: the page: {}", page.display()),
            Err(e) => return bad_input(&e),
        }
    }
    if summary.failures.is_empty() {
        return ExitCode::SUCCESS;
    }
    for f in &summary.failures {
        let hash = f.hash.as_deref().map(|h| format!(" (trace hash {})", &h[..16])).unwrap_or_default();
        eprintln!("ftwsim: {} seed {} failed{hash}; replay with: {}", f.signature, f.seed, f.replay);
        if let Some(p) = &f.pcap {
            eprintln!("ftwsim: its packets: {}", crate::capture::open_hint(std::path::Path::new(p)));
        }
    }
    ExitCode::from(1)
}

/// `--report DIR`: the session as a page, its failures' entries marked new or
/// known against `corpus/`.
fn write_report(dir: &std::path::Path, summary: &fuzz::Summary) -> Result<PathBuf, String> {
    let entries =
        summary.failures.iter().filter_map(|f| f.entry.as_deref()).map(|p| crate::corpus::load(std::path::Path::new(p))).collect::<Result<Vec<_>, _>>()?;
    let corpus = std::path::Path::new("corpus");
    if !corpus.is_dir() {
        eprintln!("ftwsim: no corpus/ in this folder: the page marks every failure new (`ftwsim triage DIR --corpus PATH` judges them against the project's)");
    }
    let known = crate::triage::known_signatures(corpus).map_err(|e| format!("--report: corpus: {e}"))?;
    let shard = crate::triage::Shard { source: "this session".into(), summary: summary.clone() };
    let t = crate::triage::triage(std::slice::from_ref(&shard), &entries, &known)?;
    crate::report::write(dir, &t, &format!("ftwsim fuzz: {} cases, seeds {}", summary.cases, summary.seeds))
}
