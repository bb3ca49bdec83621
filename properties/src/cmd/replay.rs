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
    /// Also write each entry's pcapng beside it (`<entry>.pcapng`: every
    /// datagram, TLS secrets embedded) and print how to open it.
    #[arg(long)]
    pcap: bool,
}

/// With `--pcap`, write the entry's pcapng beside it; either way, if one is
/// there, print how to open it.
fn pcap_beside(write: bool, entry: &std::path::Path, spec: &ftw_sim::world::topology::RunSpec) -> Result<(), String> {
    let path = entry.with_extension("pcapng");
    if write {
        crate::capture::pcap_of_spec(spec, &path).map_err(|e| format!("--pcap: {e}"))?;
    }
    if path.exists() {
        println!("     packets: tshark -r {}", path.display());
    }
    Ok(())
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
                if let Err(msg) = pcap_beside(a.pcap, &r.path, &e.spec) {
                    bad += 1;
                    eprintln!("ftwsim: {msg}");
                }
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
