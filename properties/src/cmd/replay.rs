//! `ftwsim replay`: corpus entries against their expectations and their recorded bytes.

use std::path::PathBuf;
use std::process::ExitCode;

use ftw_sim::scenario::Verdict;

use super::bad_input;
use crate::corpus::{self, Bytes, Recorded, Replayed};

/// Replay corpus entries (default: corpus/) and check each one's expectation.
/// Each entry is one of: same verdict and same bytes (`ok`); same verdict,
/// other bytes than it recorded (`ok~`, with the first divergent event when a
/// trace is saved beside it; a failure under `--strict`); another verdict (`FAIL`).
#[derive(clap::Args)]
pub struct Args {
    paths: Vec<PathBuf>,
    /// Fail on an entry whose bytes differ from those it recorded (CI, on the committed corpus).
    #[arg(long)]
    strict: bool,
    /// Write each entry's `[recorded]` table anew with the bytes this build produces
    /// (entries whose verdict meets their expectation only).
    #[arg(long)]
    record: bool,
    /// Also write each entry's pcapng files beside it (`<entry>.pcapng`: the
    /// cloud's link, `<entry>.<link>.pcapng` the others, TLS secrets embedded)
    /// and print how to open them.
    #[arg(long)]
    pcap: bool,
    /// Entries replayed at once, each on its own thread (default: the machine's
    /// cores); the output is in the entries' order whatever the number.
    #[arg(long, value_parser = clap::value_parser!(u64).range(1..=256))]
    jobs: Option<u64>,
    /// Replay every entry with this QUIC stand-in instead of its own: `rig` (as
    /// the rig's quic-go behaves) or `patched` (PATCH.md, quinn's own migration).
    /// Each entry keeps its expectation; bytes recorded under another stand-in
    /// are not compared (so not with `--record`).
    #[arg(long)]
    quic: Option<String>,
}

/// The line for one replayed entry; whether it counts as a failure.
fn line(r: &Replayed, strict: bool) -> (String, bool) {
    let Ok((e, v, hash)) = &r.outcome else { return (format!("BAD  {}", r.path.display()), true) };
    let got = match v {
        Verdict::Pass => "pass".to_string(),
        Verdict::Fail { property, .. } => format!("fails {property}"),
    };
    let head = format!("{}  expected {}, got {}  hash {}", r.path.display(), e.expect.render(), got, &hash[..16]);
    if !e.expect.met_by(v) {
        return (format!("FAIL {head}"), true);
    }
    match &r.bytes {
        Bytes::Same => (format!("ok   {head}  (same bytes)"), false),
        Bytes::Unrecorded => (format!("ok   {head}  (no recorded bytes)"), strict),
        Bytes::Other { recorded, divergence } => {
            let mut s = format!(
                "{} {head}  OTHER BYTES than recorded {} (version {}, Cargo.lock {})",
                if strict { "FAIL" } else { "ok~ " },
                &recorded.hash[..16],
                recorded.version,
                recorded.lock
            );
            match divergence {
                Some(d) => s.push_str(&format!("\n    against {}: {}", corpus::trace_beside(&e.path).display(), d.replace('\n', "\n    "))),
                None => s.push_str("\n    (no trace saved beside the entry to name the first divergent event)"),
            }
            (s, strict)
        }
    }
}

/// `--record`: rewrite the `[recorded]` table of each entry that meets its expectation.
fn record(results: &[Replayed]) -> Result<usize, String> {
    let mut n = 0;
    for r in results.iter().filter(|r| r.met()) {
        let Ok((_, _, hash)) = &r.outcome else { continue };
        let text = std::fs::read_to_string(&r.path).map_err(|e| format!("{}: {e}", r.path.display()))?;
        std::fs::write(&r.path, corpus::with_recorded(&text, &Recorded::now(hash))).map_err(|e| format!("{}: {e}", r.path.display()))?;
        n += 1;
    }
    Ok(n)
}

/// With `--pcap`, write the entry's pcapng files beside it; either way, if
/// they are there, print how to open them.
fn pcap_beside(write: bool, entry: &std::path::Path, spec: &ftw_sim::RunSpec) -> Result<(), String> {
    let path = entry.with_extension("pcapng");
    if write {
        crate::capture::pcap_of_spec(spec, &path).map_err(|e| format!("--pcap: {e}"))?;
    }
    if path.exists() {
        println!("     packets: {}", crate::capture::open_hint(&path));
    }
    Ok(())
}

pub fn main(a: Args) -> ExitCode {
    let quic = match a.quic.as_deref().map(ftw_sim::plan::QuicPlan::parse).transpose() {
        Ok(q) => q,
        Err(e) => return bad_input(&format!("--quic: {e}")),
    };
    if quic.is_some() && a.record {
        return bad_input("--quic with --record: the entries' plans name their own stand-in; edit `quic` in the entry to record it under another");
    }
    let paths = if a.paths.is_empty() { vec![PathBuf::from("corpus")] } else { a.paths };
    let files = match corpus::collect(&paths) {
        Ok(f) => f,
        Err(e) => return bad_input(&e),
    };
    let jobs = a.jobs.map_or_else(crate::pool::cores, |j| j as usize);
    let results = corpus::replay_as(&files, jobs, quic);
    let mut bad = 0;
    let mut other = 0;
    for r in &results {
        let (text, failed) = line(r, a.strict);
        bad += failed as usize;
        other += matches!(r.bytes, Bytes::Other { .. }) as usize;
        println!("{text}");
        match &r.outcome {
            Err(msg) => eprintln!("ftwsim: {msg}"),
            Ok((e, _, _)) => {
                if let Err(msg) = pcap_beside(a.pcap, &r.path, &e.spec) {
                    bad += 1;
                    eprintln!("ftwsim: {msg}");
                }
            }
        }
    }
    println!("{} passed, {} failed ({other} with other bytes than recorded)", results.len() - bad, bad);
    if a.record {
        match record(&results) {
            Ok(n) => println!("recorded the bytes of {n} entries"),
            Err(e) => return bad_input(&e),
        }
    }
    if bad > 0 {
        ExitCode::from(1)
    } else {
        ExitCode::SUCCESS
    }
}
