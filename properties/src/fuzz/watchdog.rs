//! A case that never finishes is a failure too: host code that loops without
//! awaiting (a script retrying at one simulated instant) never returns to the
//! fuzzer, which then hangs without printing a seed. The watchdog, a thread of
//! its own, reads which cases are running; one that has run [`hang_after`] of
//! wall clock is written out as a plan with the command that runs it, and the
//! process exits with status 3. The tool's wall clock only: no run sees it.

use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use ftw_sim::RunSpec;

use super::{FuzzOpts, Shared};
use crate::corpus::{self, Expect};

/// The longest case of any scenario takes about 3.5 s (`fleet-pin-flood`,
/// docs/speed.md); a case forty times that is taken for a hang.
const HANG_AFTER: Duration = Duration::from_secs(120);

/// Exit status of a fuzzing session stopped by a hung case.
pub const HUNG_STATUS: i32 = 3;

/// [`HANG_AFTER`], or `FTWSIM_HANG_AFTER_MS` from the environment (the tests).
fn hang_after() -> Duration {
    std::env::var("FTWSIM_HANG_AFTER_MS").ok().and_then(|v| v.parse().ok()).map_or(HANG_AFTER, Duration::from_millis)
}

/// Watch the running cases until `finished`.
pub fn watch(sh: &Mutex<Shared>, opts: &FuzzOpts, finished: &AtomicBool) {
    let limit = hang_after();
    while !finished.load(Ordering::SeqCst) {
        std::thread::park_timeout(limit.min(Duration::from_secs(1)) / 2);
        let hung = {
            let s = sh.lock().unwrap_or_else(|e| e.into_inner());
            s.running.iter().find(|(_, (t, _))| t.elapsed() >= limit).map(|(k, (_, spec))| (*k, Arc::clone(spec)))
        };
        if let Some((k, spec)) = hung {
            report(opts, k, &spec, limit);
            std::process::exit(HUNG_STATUS);
        }
    }
}

/// Write the hung case's plan under `--out` and say how to run it.
fn report(opts: &FuzzOpts, k: u64, spec: &RunSpec, limit: Duration) {
    let name = spec.scenario.name();
    let path: PathBuf = opts.out_dir.join(format!("{name}-hung-{}.toml", spec.seed.0));
    let note = format!("hung: case {k} ran {} s of wall clock without finishing", limit.as_secs_f64());
    let written = std::fs::create_dir_all(&opts.out_dir).and_then(|_| std::fs::write(&path, corpus::render(spec, &Expect::Pass, &note, None, None)));
    eprintln!(
        "ftwsim: case {k}, {name} seed {}, has run {} s of wall clock without finishing: a loop that never yields to the simulation?",
        spec.seed.0,
        limit.as_secs_f64()
    );
    match written {
        Ok(()) => eprintln!("ftwsim: its plan: {}; run it again with: cargo sim replay {}", path.display(), path.display()),
        Err(e) => eprintln!("ftwsim: could not write its plan to {}: {e}", path.display()),
    }
}

/// A case starts or ends: what the watchdog reads.
pub fn running(sh: &Mutex<Shared>, k: u64, spec: Option<Arc<RunSpec>>) {
    let mut s = sh.lock().expect("lock");
    match spec {
        Some(spec) => s.running.insert(k, (Instant::now(), spec)),
        None => s.running.remove(&k),
    };
}
