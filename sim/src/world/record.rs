//! The run's recorders, begun once and finished once (issue 35 point 4). A run
//! keeps what it observes in thread-locals the drivers write without a handle
//! (one world a thread at a time): the timer registry and the clocks, the trace,
//! the journal of model steps, the fates' notes (idle-outs, the rig's path
//! events), the TLS key log and the qlog. [`begin`] starts every one for a new
//! world; [`finish`] ends every one into the run's [`RunOutcome`], with what the
//! world's network kept, whether the run ended or unwound from a panic.

use std::collections::BTreeMap;
use std::net::IpAddr;
use std::time::Duration;

use crate::world::net::capture::Capture;
use crate::world::net::fate::{self, Fate};
use crate::world::net::NetStats;
use crate::world::{journal, time, trace, RunOutcome};

/// Start every recorder of a run on this thread (`keep`: what the trace keeps
/// of its events; `qlog`: the QUIC configurations write qlog).
pub fn begin(keep: trace::Keep, qlog: bool) {
    time::reset_timers();
    time::reset_wall_jumps();
    time::reset_instant_base();
    trace::begin(keep);
    journal::begin();
    fate::begin();
    ftw_crypto::keylog::begin();
    ftw_crypto::qlog::begin(qlog, time::instant_base());
}

/// What the world's network kept over the run (nothing, for a run that panicked).
#[derive(Default)]
pub struct NetKept {
    pub stats: NetStats,
    pub bytes_by_host: BTreeMap<String, u64>,
    pub capture: Capture,
    pub fates: Vec<Fate>,
    /// Each host's name by its address, to name the fates' notes.
    pub names: BTreeMap<IpAddr, String>,
}

/// How the run ended: its result, its simulated length (`None`: the trace's last
/// event, for a run that unwound) and its steps.
pub struct Ended {
    pub result: Result<(), String>,
    pub sim_elapsed: Option<Duration>,
    pub steps: u64,
}

/// End every recorder of the run into its outcome.
pub fn finish(ended: Ended, net: NetKept) -> RunOutcome {
    let idle_outs = fate::end(&net.names, &net.fates);
    let rig_paths = fate::end_rig_paths(&net.names);
    let (keylog, qlog) = (ftw_crypto::keylog::end(), ftw_crypto::qlog::end());
    let trace = trace::end();
    let sim_elapsed = ended.sim_elapsed.unwrap_or_else(|| trace.last_time());
    RunOutcome {
        trace,
        journal: journal::end(),
        sim_elapsed,
        steps: ended.steps,
        result: ended.result,
        net: net.stats,
        bytes_by_host: net.bytes_by_host,
        capture: net.capture,
        keylog,
        qlog,
        fates: net.fates,
        idle_outs,
        rig_paths,
    }
}
