//! `ftwsim fuzz`: many drawn cases (swarm testing), every failure shrunk and
//! written as a corpus entry, a determinism spot-check on a share of cases,
//! and a coverage report at the end.
//!
//! Case `k` of shard `I/N` is global case `i = I + k*N`; its run seed is
//! `seed_from + i` and its scenario the `k`-th of the list, round robin. So a
//! case is named by (scenario, seed) alone, and shards never overlap.

use std::collections::{BTreeMap, BTreeSet, VecDeque};
use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{mpsc, Arc, Mutex};
use std::time::{Duration, Instant};

use ftw_sim::scenario::{self, Verdict};
use ftw_sim::switch::Switches;
use ftw_sim::trace::Keep;
use ftw_sim::{RunSeed, RunSpec};
use serde::{Deserialize, Serialize};

use crate::coverage::{Coverage, Growth};
use crate::guide::engine::{Engine, Proposal, FIRST_FRESH};
use crate::guide::kept;
use crate::guide::keys::{self, Keys};
use crate::harness::{self, only_property, run_command, Check, Failure};
use crate::strategy::{draw, Case};
use crate::triage::signature::{self, Signature};

mod watchdog;
pub use watchdog::HUNG_STATUS;

/// When to stop.
#[derive(Clone, Copy, Debug)]
pub enum Stop {
    /// Wall-clock seconds (the tool's own clock, never seen by a run).
    Time(u64),
    Cases(u64),
}

#[derive(Clone, Debug)]
pub struct FuzzOpts {
    pub stop: Stop,
    /// Only this property counts as a failure (`replay`: only the determinism check).
    pub property: Option<String>,
    pub scenarios: Vec<String>,
    pub switches: Switches,
    /// The QUIC stand-in of every case (`--quic`).
    pub quic: ftw_sim::plan::QuicPlan,
    /// (I, N): this shard is I of N, 0-based.
    pub shard: (u64, u64),
    pub seed_from: u64,
    pub out_dir: PathBuf,
    /// Run every case numbered a multiple of this twice and compare hashes (1 = every case).
    pub determinism_every: u64,
    pub jobs: usize,
    pub progress: bool,
    /// Stop at the first failure, unshrunk (`ftwsim bench --catch`: time to first catch).
    pub first_only: bool,
    /// The guided search, or the unguided one (the default here; `ftwsim fuzz` guides).
    pub guide: Guide,
    /// Failures of these signatures are passed over: neither kept, shrunk nor ending a
    /// `first_only` session. The mutation score's fuzz passes over the product's own
    /// findings the laws keep failing with the models unmutated
    /// ([`crate::triage::known_findings`]), so that a mutant is not counted caught by them.
    pub known: BTreeSet<Signature>,
}

/// The guided search's options (issue 36).
#[derive(Clone, Debug, Default)]
pub struct Guide {
    /// Guided: cases are fresh draws and mutations of kept plans (see [`WINDOW`]).
    pub on: bool,
    /// Where kept plans are written (`DIR/<scenario>/`), if anywhere.
    pub kept_out: Option<PathBuf>,
    /// Kept plans to start from (run first, each as a case).
    pub kept_from: Vec<PathBuf>,
}

/// One failure found: the lowest case of its signature.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct Found {
    /// Scenario, law and typed reason: one failure a signature.
    pub signature: Signature,
    pub scenario: String,
    pub seed: u64,
    pub property: String,
    pub detail: String,
    pub entry: Option<String>,
    /// The shrunk run's pcapng beside the entry (the cloud's link).
    pub pcap: Option<String>,
    /// Its other links' files beside it (`<entry>.<link>.pcapng`).
    #[serde(default)]
    pub pcap_links: Vec<String>,
    pub replay: String,
    /// Cases of the same signature after this one (not shrunk again).
    pub repeats: u64,
    /// The case number of the first find, and the wall time from the start of
    /// fuzzing to it (before shrinking): the time to first catch.
    pub case: u64,
    pub found_after_s: f64,
    /// The shrunk run's trace hash, so a replay elsewhere can be compared (issue 19 section 1).
    pub hash: Option<String>,
    #[serde(skip)]
    pub message: String,
}

/// What `ftwsim fuzz --json` prints; `ftwsim triage` reads it back.
#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Summary {
    pub cases: u64,
    pub shard: String,
    pub seeds: String,
    pub scenarios: Vec<String>,
    /// One a signature, in the order found.
    pub failures: Vec<Found>,
    /// Per signature (`scenario law reason`): the cases that failed with it.
    pub signatures: BTreeMap<String, u64>,
    pub determinism_checks: u64,
    /// Per law: the cases that passed it without judging all its rules (too few
    /// datagrams or draws for a rate or a mean: issue 32).
    pub unjudged: BTreeMap<String, u64>,
    pub coverage: Coverage,
    pub warnings: Vec<String>,
    pub wall_s: f64,
    /// Cases and wall time each scenario got.
    pub per_scenario: Vec<ScenarioShare>,
    /// Each time the cases reached a fault kind or decision kind none had before.
    pub growth: Vec<Growth>,
    /// Whether the search was guided (issue 36).
    #[serde(default)]
    pub guided: bool,
    /// Protocol-state keys reached (`guide::keys`), counted per scenario and summed.
    #[serde(default)]
    pub keys: u64,
    /// Each time a case reached keys none had before: case, wall s, keys so far.
    #[serde(default)]
    pub key_growth: Vec<Growth>,
    /// Plans the guided search kept (a key no earlier case reached).
    #[serde(default)]
    pub kept: u64,
}

/// Parse `I/N` (0-based I).
pub fn parse_shard(s: &str) -> Result<(u64, u64), String> {
    let (i, n) = s.split_once('/').ok_or_else(|| format!("bad shard {s:?}: expected I/N, like 0/4"))?;
    let i: u64 = i.trim().parse().map_err(|_| format!("bad shard {s:?}: expected I/N, like 0/4"))?;
    let n: u64 = n.trim().parse().map_err(|_| format!("bad shard {s:?}: expected I/N, like 0/4"))?;
    if n == 0 || i >= n {
        return Err(format!("bad shard {s:?}: need 0 <= I < N"));
    }
    Ok((i, n))
}

struct Shared {
    coverage: Coverage,
    failures: Vec<(u64, Found)>,
    /// Per signature: the lowest case number that failed so far. The
    /// failure kept is always that case's, so the summary does not depend on
    /// `--jobs` or on which worker finished first (issue 19 section 2).
    seen: BTreeMap<Signature, u64>,
    /// Per signature: every case that failed with it (the summary's repeats, counted
    /// here rather than on the kept failure, which a lower case may not have reached yet).
    failing: BTreeMap<Signature, u64>,
    done: u64,
    determinism_checks: u64,
    unjudged: BTreeMap<String, u64>,
    /// Per scenario (in `opts.scenarios` order): cases run and wall time spent.
    per_scenario: Vec<ScenarioShare>,
    growth: Vec<Growth>,
    /// Every (scenario index, key) reached.
    keys: BTreeSet<(usize, String)>,
    key_growth: Vec<Growth>,
    /// Cases running now: when each started and its spec (the watchdog reads it).
    running: BTreeMap<u64, (Instant, Arc<ftw_sim::RunSpec>)>,
    /// Every (scenario index, key) of the cases the guided search has merged: a
    /// case none of whose keys is new here cannot be kept, whenever it is merged.
    merged: BTreeMap<usize, BTreeSet<String>>,
}

/// What one scenario got of a fuzzing session.
#[derive(Clone, Debug, Default, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ScenarioShare {
    pub scenario: String,
    pub cases: u64,
    pub wall_s: f64,
    /// Protocol-state keys its cases reached.
    #[serde(default)]
    pub keys: u64,
    /// Plans the guided search kept of it.
    #[serde(default)]
    pub kept: u64,
    /// Cases handed out and not yet counted (the guided search's, under `--time`).
    #[serde(skip)]
    pub in_flight: u64,
    /// Cases counted (run and tallied).
    #[serde(skip)]
    pub ran: u64,
}

impl Shared {
    /// The scenario case `k` runs. Under `--cases`: round robin, so a case is
    /// named by its number alone. Under `--time`: the scenario that has had the
    /// least wall time so far (ties: fewest cases, then list order), so each
    /// scenario gets an equal share of the time, not of the cases, and a slow
    /// one (phone-race's 29 simulated hours) no longer sets the pace for all.
    fn pick(&mut self, k: u64, stop: Stop) -> usize {
        let i = match stop {
            Stop::Cases(_) => (k % self.per_scenario.len() as u64) as usize,
            Stop::Time(_) => {
                let key = |s: &ScenarioShare| (s.wall_s, s.cases);
                (0..self.per_scenario.len())
                    .min_by(|&a, &b| key(&self.per_scenario[a]).partial_cmp(&key(&self.per_scenario[b])).expect("finite"))
                    .expect("a scenario")
            }
        };
        // Counted at once, so two workers picking together spread out.
        self.per_scenario[i].cases += 1;
        i
    }

    /// The guided search's scenario for the next case: the one whose cases (under
    /// `--cases`) or wall time (under `--time`) so far, divided by its weight, is
    /// least (ties: list order). A scenario still reaching new keys weighs up to
    /// [`YIELD_WEIGHT_MAX`] times one that has stopped: it gets that many times
    /// the share, and every scenario keeps at least its share at weight 1.
    /// Under `--time` the cost counts the cases in flight at the scenario's mean
    /// case time so far, so the cases handed out ahead spread over the scenarios.
    fn pick_weighted(&mut self, stop: Stop, weights: &[f64]) -> usize {
        let cost = |s: &ScenarioShare| match stop {
            Stop::Cases(_) => s.cases as f64,
            Stop::Time(_) => s.wall_s + s.in_flight as f64 * if s.ran > 0 { s.wall_s / s.ran as f64 } else { FIRST_CASE_S },
        };
        let key = |i: usize| cost(&self.per_scenario[i]) / weights[i];
        let i = (0..self.per_scenario.len()).min_by(|&a, &b| key(a).total_cmp(&key(b))).expect("a scenario");
        self.per_scenario[i].cases += 1;
        self.per_scenario[i].in_flight += 1;
        i
    }
}

/// Whether case `k` is (so far) the lowest failing case of its signature.
fn claim(sh: &Mutex<Shared>, sig: &Signature, k: u64) -> bool {
    let mut s = sh.lock().expect("lock");
    *s.failing.entry(sig.clone()).or_default() += 1;
    match s.seen.get(sig) {
        Some(&low) if low <= k => false,
        _ => {
            s.seen.insert(sig.clone(), k);
            true
        }
    }
}

/// Remove a failure's corpus entry and the trace beside it (a lower case of
/// the same scenario and property was kept instead).
fn forget_entry(f: &Found) {
    if let Some(e) = &f.entry {
        let p = std::path::Path::new(e);
        std::fs::remove_file(crate::corpus::trace_beside(p)).ok();
        std::fs::remove_file(p).ok();
    }
    for p in f.pcap.iter().chain(&f.pcap_links) {
        std::fs::remove_file(p).ok();
    }
}

/// Keep `found` unless a lower case of its signature is kept; a higher one
/// already kept gives way to it.
fn keep(sh: &Mutex<Shared>, k: u64, mut found: Found) {
    let mut s = sh.lock().expect("lock");
    let same = s.failures.iter().position(|(_, f)| f.signature == found.signature);
    match same {
        Some(i) if s.failures[i].0 < k => {
            s.failures[i].1.repeats += 1;
            forget_entry(&found);
        }
        Some(i) => {
            let (_, old) = s.failures.remove(i);
            found.repeats = old.repeats + 1;
            forget_entry(&old);
            s.failures.push((k, found));
        }
        None => s.failures.push((k, found)),
    }
}

fn record_failure(sh: &Mutex<Shared>, opts: &FuzzOpts, k: u64, found_after_s: f64, mut f: Failure) {
    let mut pcaps = Vec::new();
    match f.write_entry(&opts.out_dir) {
        Ok(_) => match f.write_pcap() {
            Ok(files) => pcaps = files,
            Err(e) => eprintln!("ftwsim: could not write the failure's pcapng: {e}"),
        },
        Err(e) => eprintln!("ftwsim: could not write the corpus entry: {e}"),
    }
    let pcap_links = pcaps.iter().filter(|p| Some(*p) != f.pcap.as_ref()).map(|p| p.display().to_string()).collect();
    let found = Found {
        signature: f.signature.clone(),
        pcap_links,
        scenario: f.spec.scenario.name().to_string(),
        seed: f.spec.seed.0,
        property: f.property.clone(),
        detail: f.detail.clone(),
        entry: f.entry.as_ref().map(|p| p.display().to_string()),
        pcap: f.pcap.as_ref().map(|p| p.display().to_string()),
        replay: run_command(&f.spec, f.entry.as_deref()),
        repeats: 0,
        case: k,
        found_after_s,
        hash: f.recorded.as_ref().map(|r| r.hash.clone()),
        message: f.message(),
    };
    keep(sh, k, found);
}

/// The least wall time shrinking gets under `--time`, even for a failure found at
/// the last moment (so the corpus entry is smaller than the drawn case).
const SHRINK_MIN: Duration = Duration::from_secs(10);

/// The run of one case: the determinism spot-check's divergence if any (its
/// signature and description), and the case's own run.
struct Ran {
    run: harness::CaseRun,
    replay_failure: Option<(Signature, String)>,
}

/// Run the case again and compare hashes; the first divergence if they differ.
fn spot_check(run: &harness::CaseRun) -> Option<(Signature, String)> {
    let again = ftw_sim::scenario::run(&run.spec).expect("ran once already");
    if run.report.outcome.trace.hash() == again.outcome.trace.hash() {
        return None;
    }
    let d = ftw_sim::trace::first_divergence(run.report.outcome.trace.events(), again.outcome.trace.events());
    let sig = signature::of_divergence(run.spec.scenario.name(), d.as_ref().and_then(|d| d.1.as_ref()), d.as_ref().and_then(|d| d.2.as_ref()));
    let detail = match d {
        Some(d) => ftw_sim::trace::describe_divergence(&d),
        None => "hashes differ with identical kept events".into(),
    };
    Some((sig, detail))
}

/// Count a finished case: its coverage, unjudged laws, wall time, spot-check.
fn tally(sh: &Mutex<Shared>, which: usize, ran: &Ran, keys: &Keys, case_wall_s: f64, spot: bool, start: Instant) {
    let mut s = sh.lock().expect("lock");
    let r = &ran.run;
    let before = s.keys.len();
    s.keys.extend(keys.iter().map(|k| (which, k.clone())));
    let new = (s.keys.len() - before) as u64;
    if new > 0 {
        s.per_scenario[which].keys += new;
        let (case, keys) = (s.done, s.keys.len());
        s.key_growth.push(Growth { case, wall_s: start.elapsed().as_secs_f64(), keys });
    }
    s.coverage.add(r.report.outcome.trace.counts(), r.report.outcome.trace.tags());
    s.coverage.add_faults(&harness::FaultPlanSummary::of(&r.spec.plan).kinds);
    let (case, keys) = (s.done, s.coverage.keys());
    if s.growth.last().is_none_or(|g| g.keys < keys) {
        s.growth.push(Growth { case, wall_s: start.elapsed().as_secs_f64(), keys });
    }
    for law in ftw_sim::law::reference::unjudged_laws(&r.report.checks) {
        *s.unjudged.entry(law.to_string()).or_default() += 1;
    }
    s.done += 1;
    s.per_scenario[which].wall_s += case_wall_s;
    s.per_scenario[which].ran += 1;
    s.per_scenario[which].in_flight = s.per_scenario[which].in_flight.saturating_sub(1);
    if spot {
        s.determinism_checks += 1;
    }
}

/// A determinism failure: not shrunk, the case itself is the evidence.
fn on_replay_failure(sh: &Mutex<Shared>, opts: &FuzzOpts, k: u64, start: Instant, run: &harness::CaseRun, (sig, detail): (Signature, String)) {
    if !claim(sh, &sig, k) {
        return bump_repeat(sh, &sig);
    }
    let f = Failure {
        spec: run.spec.clone(),
        original: harness::FaultPlanSummary::of(&run.spec.plan),
        property: "replay".into(),
        detail,
        shrink_runs: 0,
        shrink_cut: false,
        entry: None,
        pcap: None,
        test_hint: None,
        recorded: None,
        signature: sig,
    };
    record_failure(sh, opts, k, start.elapsed().as_secs_f64(), f);
}

/// A law failed in case `k`: shrink it (the lowest case of its signature only) and keep it.
#[allow(clippy::too_many_arguments)]
fn on_failure(
    sh: &Mutex<Shared>,
    opts: &FuzzOpts,
    k: u64,
    start: Instant,
    mut check: Check,
    run: &harness::CaseRun,
    case: &Case,
    drawn: bool,
    law: harness::Law,
) {
    let Verdict::Fail { property, detail } = &run.verdict else { return };
    let sig = signature::of_run(&check.scenario, property, &run.report);
    if opts.known.contains(&sig) {
        return;
    }
    if !claim(sh, &sig, k) {
        return bump_repeat(sh, &sig);
    }
    let found_after_s = start.elapsed().as_secs_f64();
    // Under --time S, shrinking ends with the run (at least SHRINK_MIN after the find).
    if let Stop::Time(s) = opts.stop {
        check.shrink_deadline = Some((start + Duration::from_secs(s)).max(Instant::now() + SHRINK_MIN));
    }
    if opts.first_only {
        check.shrink_runs_max = 0;
    }
    let shrunk = if drawn { harness::shrink(&check, run.spec.seed, &sig, detail, law) } else { harness::shrink_plan(&check, case, &sig, detail, law) };
    match shrunk {
        Ok(f) => record_failure(sh, opts, k, found_after_s, f),
        Err(e) => eprintln!("ftwsim: shrinking {} seed {}: {e}", check.scenario, run.spec.seed.0),
    }
}

/// The run seed of case `k` of this shard.
fn case_seed(opts: &FuzzOpts, k: u64) -> RunSeed {
    let (shard_i, shard_n) = opts.shard;
    RunSeed(opts.seed_from.wrapping_add(shard_i + k * shard_n))
}

/// The check case `k` runs under: its scenario, the session's switches and QUIC.
fn check_of(opts: &FuzzOpts, which: usize) -> Check {
    let mut check = Check::new(&opts.scenarios[which]);
    check.switches = opts.switches.clone();
    check.quic = opts.quic;
    check
}

/// What a case's run left for the guided search: its keys, its spec, verdict,
/// and hash if its trace was hashed.
pub(crate) struct CaseOut {
    pub keys: Keys,
    pub spec: ftw_sim::RunSpec,
    pub verdict: Verdict,
    pub hash: Option<String>,
}

/// A case's hash, for the plan the guided search may keep: its trace's if it
/// kept one; else, when one of its keys is not among the merged cases' (so it
/// may be kept), a run's again, on this worker (the coordinator then runs
/// nothing, and no third thread holds a world's memory: docs/speed.md).
fn hash_of(sh: &Mutex<Shared>, opts: &FuzzOpts, which: usize, run: &harness::CaseRun, keys: &Keys) -> Option<String> {
    let trace = &run.report.outcome.trace;
    if trace.keep() != Keep::Counts {
        return Some(trace.hash());
    }
    opts.guide.kept_out.as_ref()?;
    let known = |s: &Shared| s.merged.get(&which).is_some_and(|m| keys.iter().all(|k| m.contains(k)));
    if known(&sh.lock().expect("lock")) {
        return None;
    }
    hash_again(&run.spec).map_err(|e| eprintln!("ftwsim: {e}")).ok()
}

/// The hash of `spec`'s run, run again keeping it (a counts-only case kept none).
fn hash_again(spec: &RunSpec) -> Result<String, String> {
    let r = ftw_sim::scenario::run(&RunSpec { trace: Keep::Hash, ..spec.clone() });
    r.map(|r| r.outcome.trace.hash()).map_err(|e| format!("could not run a kept plan again for its hash: {e}"))
}

/// Run case `k` (`case`, of scenario `which`): run, spot-check, count, keep
/// failures. `drawn`: the plan is the swarm draw of its seed (shrunk as drawn),
/// else a plan of the guided search (shrunk by [`harness::shrink_plan`]).
fn run_one(sh: &Mutex<Shared>, opts: &FuzzOpts, k: u64, which: usize, case: &Case, drawn: bool, start: Instant) -> Option<CaseOut> {
    if late(sh, opts, start) {
        let share = &mut sh.lock().expect("lock").per_scenario[which];
        (share.cases, share.in_flight) = (share.cases - 1, share.in_flight.saturating_sub(1));
        return None;
    }
    let case_start = Instant::now(); // the tool's wall clock, never seen by a run
    let check = check_of(opts, which);
    let law_property = opts.property.clone();
    let law = move |_: &ftw_sim::RunSpec, r: &ftw_sim::scenario::RunReport| match law_property.as_deref() {
        None => r.verdict(),
        Some("replay") => Verdict::Pass,
        Some(p) => only_property(p, r),
    };
    // A case keeps its trace's events and hash only for the determinism
    // spot-check, whose divergence names the first event that differs; else only
    // the counts the keys are read from (writing and hashing every datagram's line
    // is a tenth of a case). A kept plan's hash and a failure's entry and trace are
    // a run's again ([`keep_plan`], [`harness::Failure::write_entry`]).
    let spot = opts.property.as_deref() == Some("replay") || k.is_multiple_of(opts.determinism_every);
    let mut spec = check.spec(case);
    spec.trace = if spot { Keep::Events } else { Keep::Counts };
    let spec = Arc::new(spec);
    watchdog::running(sh, k, Some(Arc::clone(&spec)));
    let judged = harness::judge(&spec, &law);
    watchdog::running(sh, k, None);
    let run = match judged {
        Ok((verdict, report)) => harness::CaseRun { spec: Arc::unwrap_or_clone(spec), verdict, report },
        Err(e) => {
            eprintln!("ftwsim: {} seed {}: {e}", check.scenario, case.seed.0);
            return None;
        }
    };
    let ran = Ran { replay_failure: if spot { spot_check(&run) } else { None }, run };
    let keys = keys::of_run(&ran.run.spec.plan, &ran.run.report);
    tally(sh, which, &ran, &keys, case_start.elapsed().as_secs_f64(), spot, start);
    if let Some(failure) = ran.replay_failure {
        on_replay_failure(sh, opts, k, start, &ran.run, failure);
    }
    let hash = hash_of(sh, opts, which, &ran.run, &keys);
    let out = CaseOut { keys, spec: ran.run.spec.clone(), verdict: ran.run.verdict.clone(), hash };
    on_failure(sh, opts, k, start, check, &ran.run, case, drawn, &law);
    Some(out)
}

/// Run case `k` of the unguided search: the swarm draw of its seed.
fn one_case(sh: &Mutex<Shared>, opts: &FuzzOpts, k: u64, start: Instant) {
    let which = sh.lock().expect("lock").pick(k, opts.stop);
    let case = draw(&Check::new(&opts.scenarios[which]).domain, case_seed(opts, k)).current();
    run_one(sh, opts, k, which, &case, true, start);
}

/// Cases of the guided search in flight under `--cases`: case `k` is proposed
/// once every case before `k - WINDOW` is merged (and none after), and cases
/// are merged in case order, so each proposal is made from the same engine
/// state however long the cases take or however many threads run them.
pub const WINDOW: u64 = 16;

/// Under `--time` what runs depends on the clock anyway (where the time ends),
/// so cases are merged as they finish and a case is proposed whenever fewer
/// than this many a job are in flight. With [`WINDOW`]'s order instead, one
/// long case (`fleet-pin-flood`, 3 s) held every merge behind it and the other
/// core idled once the window was full: 78 % of two cores busy against the
/// unguided search's 99 % (`ftwsim fuzz --time 30 --jobs 2`, at fafbe90).
pub const AHEAD_PER_JOB: u64 = 2;

/// How far ahead of the merge cases are proposed, and whether merges wait for
/// case order: `(WINDOW, true)` under `--cases`, else `(AHEAD_PER_JOB x jobs, false)`.
fn lookahead(opts: &FuzzOpts) -> (u64, bool) {
    match opts.stop {
        Stop::Cases(_) => (WINDOW, true),
        Stop::Time(_) => (AHEAD_PER_JOB * opts.jobs.max(1) as u64, false),
    }
}

/// One case of the guided search.
struct Planned {
    k: u64,
    which: usize,
    proposal: Proposal,
    /// The plan is its seed's swarm draw.
    drawn: bool,
}

/// Whether a case handed out before the end comes too late to run: past `--time`,
/// or after the first failure under `first_only` (never under `--cases`, whose
/// every case runs). The guided search hands cases out ahead of time.
fn late(sh: &Mutex<Shared>, opts: &FuzzOpts, start: Instant) -> bool {
    let Stop::Time(s) = opts.stop else { return false };
    start.elapsed() >= Duration::from_secs(s) || (opts.first_only && !sh.lock().expect("lock").failures.is_empty())
}

/// Whether the session is over before case `k`.
fn over(sh: &Mutex<Shared>, opts: &FuzzOpts, k: u64, start: Instant) -> bool {
    let spent = match opts.stop {
        Stop::Cases(n) => k >= n,
        Stop::Time(s) => start.elapsed() >= Duration::from_secs(s),
    };
    spent || (opts.first_only && !sh.lock().expect("lock").failures.is_empty())
}

/// The engine of scenario `which`, made on first use; its random source is
/// seeded from the session's first seed, shard and the scenario's name.
fn engine<'a>(engines: &'a mut [Option<Engine>], opts: &FuzzOpts, drawn: &[u64], which: usize) -> Result<&'a mut Engine, String> {
    if engines[which].is_none() {
        let tag = format!("ftw.guide.engine.v1|{}|{:?}|{}", opts.seed_from, opts.shard, opts.scenarios[which]);
        let d = <sha2::Sha256 as sha2::Digest>::digest(tag.as_bytes());
        let seed = u64::from_be_bytes(d[..8].try_into().expect("8 bytes"));
        engines[which] = Some(Engine::new(&Check::new(&opts.scenarios[which]).domain, seed, drawn[which])?);
    }
    Ok(engines[which].as_mut().expect("made"))
}

/// The wall time a scenario's case is taken to cost before one has run (a
/// session case takes about 0.1 s: docs/fuzzing-and-ci.md).
const FIRST_CASE_S: f64 = 0.1;

/// The most a scenario still reaching new keys weighs against one that stopped.
pub const YIELD_WEIGHT_MAX: f64 = 4.0;

/// Merged cases of a scenario its weight looks back on.
const YIELD_WINDOW: usize = 8;

/// Each scenario's weight from the new keys of its last [`YIELD_WINDOW`] merged
/// cases: 1 + 3 x (the share of them that reached a new key); the most before it
/// has that many.
fn weights(yields: &[VecDeque<bool>]) -> Vec<f64> {
    yields
        .iter()
        .map(|y| {
            let found = y.iter().filter(|n| **n).count() + YIELD_WINDOW - y.len();
            1.0 + (YIELD_WEIGHT_MAX - 1.0) * found as f64 / YIELD_WINDOW as f64
        })
        .collect()
}

/// What the guided search planned before its coordinator started: the kept
/// plans still to run first (`--kept-from`), each scenario's fresh draws so
/// far, and the next case number.
struct Early {
    preload: Vec<VecDeque<Case>>,
    drawn: Vec<u64>,
    next: u64,
}

/// Case `k`: a kept plan to start from, else `propose`'s proposal for the
/// scenario picked (by number) with the seed of case `k`.
fn plan_case(
    sh: &Mutex<Shared>,
    opts: &FuzzOpts,
    propose: impl FnOnce(usize, RunSeed) -> Result<Proposal, String>,
    preload: &mut [VecDeque<Case>],
    yields: &[VecDeque<bool>],
    k: u64,
) -> Result<Planned, String> {
    let which = sh.lock().expect("lock").pick_weighted(opts.stop, &weights(yields));
    if let Some(case) = preload[which].pop_front() {
        return Ok(Planned { k, which, proposal: Proposal { case, parent: None }, drawn: false });
    }
    let proposal = propose(which, case_seed(opts, k))?;
    let drawn = proposal.parent.is_none();
    Ok(Planned { k, which, proposal, drawn })
}

/// The first cases, planned on the calling thread before any other starts, so
/// that the workers find their cases waiting and the coordinator has nothing
/// to do until the first case ends (a third busy thread on two cores delays the
/// first cases by a millisecond or more): the whole look-ahead, at most
/// [`FIRST_FRESH`], each a kept plan or a fresh draw, as the engine (not `Send`,
/// so made on the coordinator's thread) would have proposed it.
fn plan_first(sh: &Mutex<Shared>, opts: &FuzzOpts, start: Instant, work: &mpsc::Sender<Planned>) -> Result<Early, String> {
    let preload = kept::load(&opts.guide.kept_from, &opts.scenarios, opts.shard)?;
    let mut early = Early { preload, drawn: vec![0; opts.scenarios.len()], next: 0 };
    let yields: Vec<VecDeque<bool>> = opts.scenarios.iter().map(|_| VecDeque::new()).collect();
    let n = lookahead(opts).0.min(FIRST_FRESH);
    while early.next < n && !over(sh, opts, early.next, start) {
        let drawn = &mut early.drawn;
        let fresh = |which: usize, seed: RunSeed| {
            drawn[which] += 1;
            Ok(Engine::fresh(&Check::new(&opts.scenarios[which]).domain, seed))
        };
        work.send(plan_case(sh, opts, fresh, &mut early.preload, &yields, early.next)?).expect("the channel is open");
        early.next += 1;
    }
    Ok(early)
}

/// A kept plan: counted, and written under `--kept` if given.
fn keep_plan(sh: &Mutex<Shared>, opts: &FuzzOpts, p: &Planned, out: &CaseOut) {
    sh.lock().expect("lock").per_scenario[p.which].kept += 1;
    let Some(dir) = &opts.guide.kept_out else { return };
    let how = if p.proposal.parent.is_some() { "a mutation of a kept plan" } else { "a fresh draw" };
    let note = format!(
        "kept by the guided search (case {} of shard {}/{}, {how}): it reached a protocol-state key no earlier case of its scenario had",
        p.k, opts.shard.0, opts.shard.1
    );
    // [`hash_of`] gave a hash to every case that may be kept; a failed re-run left none.
    let hash = match out.hash.clone().map_or_else(|| hash_again(&out.spec), Ok) {
        Ok(h) => h,
        Err(e) => return eprintln!("ftwsim: {e}"),
    };
    if let Err(e) = kept::write(dir, &out.spec, &out.verdict, &hash, &note) {
        eprintln!("ftwsim: could not write a kept plan: {e}");
    }
}

/// The guided search: cases proposed [`WINDOW`] ahead of the merge, run on
/// `jobs` threads, merged into their engines in case order. The calling thread
/// is one of the workers, as in the unguided search (`bench --search` compares
/// the two in one process), and the coordinator has a thread of its own.
fn guided(sh: &Mutex<Shared>, opts: &FuzzOpts, start: Instant, bar: &indicatif::ProgressBar) -> Result<(), String> {
    let (work_tx, work_rx) = mpsc::channel::<Planned>();
    let (done_tx, done_rx) = mpsc::channel::<(Planned, Option<CaseOut>)>();
    let work_rx = Mutex::new(work_rx);
    let worker = |done_tx: mpsc::Sender<(Planned, Option<CaseOut>)>| loop {
        let next = work_rx.lock().expect("lock").recv();
        let Ok(p) = next else { break };
        let out = run_one(sh, opts, p.k, p.which, &p.proposal.case, p.drawn, start);
        if done_tx.send((p, out)).is_err() {
            break;
        }
    };
    let early = plan_first(sh, opts, start, &work_tx)?;
    std::thread::scope(|scope| {
        for _ in 1..opts.jobs.max(1) {
            let done_tx = done_tx.clone();
            scope.spawn(move || worker(done_tx));
        }
        let coordinator = scope.spawn(move || coordinate(sh, opts, start, bar, work_tx, done_rx, early));
        worker(done_tx);
        coordinator.join().expect("the coordinator ran")
    })
}

/// Propose, hand out and merge the guided search's cases (`work` dropped on
/// return, so the threads end).
fn coordinate(
    sh: &Mutex<Shared>,
    opts: &FuzzOpts,
    start: Instant,
    bar: &indicatif::ProgressBar,
    work: mpsc::Sender<Planned>,
    done: mpsc::Receiver<(Planned, Option<CaseOut>)>,
    early: Early,
) -> Result<(), String> {
    let Early { mut preload, drawn, next: first } = early;
    let mut engines: Vec<Option<Engine>> = opts.scenarios.iter().map(|_| None).collect();
    let (mut next, mut merged, mut in_flight) = (first, 0u64, first);
    let mut arrived: BTreeMap<u64, (Planned, Option<CaseOut>)> = BTreeMap::new();
    let mut yields: Vec<VecDeque<bool>> = opts.scenarios.iter().map(|_| VecDeque::new()).collect();
    let (ahead, in_order) = lookahead(opts);
    // Under `--cases` every proposal is made right after the merge of case `k - WINDOW`, never later.
    let mut fill = |next: &mut u64, merged: u64, in_flight: &mut u64, engines: &mut [Option<Engine>], yields: &[VecDeque<bool>]| -> Result<(), String> {
        while *next < merged + ahead && !over(sh, opts, *next, start) {
            let propose = |which: usize, seed: RunSeed| engine(engines, opts, &drawn, which)?.propose(seed);
            work.send(plan_case(sh, opts, propose, &mut preload, yields, *next)?).expect("the threads run");
            (*next, *in_flight) = (*next + 1, *in_flight + 1);
        }
        Ok(())
    };
    fill(&mut next, merged, &mut in_flight, &mut engines, &yields)?;
    while in_flight > 0 {
        let (p, out) = done.recv().expect("a thread has the case");
        arrived.insert(p.k, (p, out));
        while let Some((p, out)) = if in_order { arrived.remove(&merged) } else { arrived.pop_first().map(|(_, v)| v) } {
            (merged, in_flight) = (merged + 1, in_flight - 1);
            if let Some(out) = out {
                let (kept, new) = engine(&mut engines, opts, &drawn, p.which)?.merge(&p.proposal, &out.keys)?;
                let mut s = sh.lock().expect("lock");
                let m = s.merged.entry(p.which).or_default();
                for k in &out.keys {
                    if !m.contains(k) {
                        m.insert(k.clone());
                    }
                }
                drop(s);
                if kept {
                    keep_plan(sh, opts, &p, &out);
                }
                let y = &mut yields[p.which];
                y.push_back(new > 0);
                if y.len() > YIELD_WINDOW {
                    y.pop_front();
                }
            }
            fill(&mut next, merged, &mut in_flight, &mut engines, &yields)?;
        }
        progress(sh, opts, start, bar);
    }
    Ok(())
}

/// Fuzz until `opts.stop`.
pub fn fuzz(opts: &FuzzOpts) -> Result<Summary, String> {
    for s in &opts.scenarios {
        scenario::find(s)?;
    }
    assert!(!opts.scenarios.is_empty(), "at least one scenario");
    assert!(opts.determinism_every >= 1);
    let start = Instant::now(); // the tool's wall clock, never seen by a run
    let next = AtomicU64::new(0);
    let per_scenario = opts.scenarios.iter().map(|s| ScenarioShare { scenario: s.clone(), ..ScenarioShare::default() }).collect();
    let sh = Mutex::new(Shared {
        coverage: Coverage::default(),
        failures: Vec::new(),
        seen: BTreeMap::new(),
        failing: BTreeMap::new(),
        done: 0,
        determinism_checks: 0,
        unjudged: BTreeMap::new(),
        per_scenario,
        growth: Vec::new(),
        keys: BTreeSet::new(),
        key_growth: Vec::new(),
        running: BTreeMap::new(),
        merged: BTreeMap::new(),
    });
    let bar = progress_bar(opts);
    let finished = AtomicBool::new(false);
    std::thread::scope(|scope| {
        let dog = scope.spawn(|| watchdog::watch(&sh, opts, &finished));
        let searched = search(&sh, opts, start, &bar, &next);
        finished.store(true, Ordering::SeqCst);
        dog.thread().unpark();
        searched
    })?;
    bar.finish_and_clear();
    Ok(summary(opts, sh.into_inner().expect("lock"), start))
}

/// The guided or the unguided search, until `opts.stop`.
fn search(sh: &Mutex<Shared>, opts: &FuzzOpts, start: Instant, bar: &indicatif::ProgressBar, next: &AtomicU64) -> Result<(), String> {
    if opts.guide.on {
        return guided(sh, opts, start, bar);
    }
    let worker = || loop {
        let k = next.fetch_add(1, Ordering::SeqCst);
        if over(sh, opts, k, start) {
            break;
        }
        one_case(sh, opts, k, start);
        progress(sh, opts, start, bar);
    };
    std::thread::scope(|scope| {
        for _ in 1..opts.jobs.max(1) {
            scope.spawn(worker);
        }
        worker();
    });
    Ok(())
}

/// The session's summary from what the workers gathered.
fn summary(opts: &FuzzOpts, s: Shared, start: Instant) -> Summary {
    let (shard_i, shard_n) = opts.shard;
    let mut failures = s.failures;
    failures.sort_by_key(|(k, _)| *k);
    let failing = &s.failing;
    let failures: Vec<Found> = failures.into_iter().map(|(_, f)| Found { repeats: failing.get(&f.signature).map_or(f.repeats, |n| n - 1), ..f }).collect();
    let signatures = failures.iter().map(|f| (f.signature.key(), 1 + f.repeats)).collect();
    let last = opts.seed_from.wrapping_add(shard_i + s.done.saturating_sub(1) * shard_n);
    Summary {
        cases: s.done,
        shard: format!("{shard_i}/{shard_n}"),
        seeds: format!("{}..={} step {shard_n}", opts.seed_from.wrapping_add(shard_i), last),
        scenarios: opts.scenarios.clone(),
        failures,
        signatures,
        determinism_checks: s.determinism_checks,
        unjudged: s.unjudged,
        warnings: s.coverage.warnings(),
        coverage: s.coverage,
        wall_s: start.elapsed().as_secs_f64(),
        kept: s.per_scenario.iter().map(|p| p.kept).sum(),
        per_scenario: s.per_scenario,
        growth: s.growth,
        guided: opts.guide.on,
        keys: s.keys.len() as u64,
        key_growth: s.key_growth,
    }
}

fn bump_repeat(sh: &Mutex<Shared>, sig: &Signature) {
    let mut s = sh.lock().expect("lock");
    if let Some((_, f)) = s.failures.iter_mut().find(|(_, f)| f.signature == *sig) {
        f.repeats += 1;
    }
}

/// The fuzzer's bar: cases under `--cases`, seconds under `--time`.
fn progress_bar(opts: &FuzzOpts) -> indicatif::ProgressBar {
    let bar = match opts.stop {
        Stop::Cases(n) => crate::progress::bar(n, "cases"),
        Stop::Time(t) => crate::progress::bar(t, "s"),
    };
    bar.set_prefix("fuzz");
    if !opts.progress {
        bar.set_draw_target(indicatif::ProgressDrawTarget::hidden());
    }
    bar
}

/// Move the bar after a case.
fn progress(sh: &Mutex<Shared>, opts: &FuzzOpts, start: Instant, bar: &indicatif::ProgressBar) {
    let s = sh.lock().expect("lock");
    match opts.stop {
        Stop::Cases(_) => {
            bar.set_position(s.done);
            bar.set_message(format!("{} failures", s.failures.len()));
        }
        Stop::Time(t) => {
            bar.set_position(start.elapsed().as_secs().min(t));
            bar.set_message(format!("{} cases, {} failures", s.done, s.failures.len()));
        }
    }
}

impl Summary {
    /// The report for people.
    pub fn render(&self) -> String {
        let mut s = format!(
            "fuzzed {} cases (shard {}, seeds {}) of [{}] in {:.1} s; {} determinism checks\n",
            self.cases,
            self.shard,
            self.seeds,
            self.scenarios.join(", "),
            self.wall_s,
            self.determinism_checks
        );
        s.push_str(&format!(
            "{} search: {} protocol-state keys reached (each scenario's counted apart), {} plans kept\n",
            if self.guided { "guided" } else { "unguided" },
            self.keys,
            self.kept
        ));
        s.push_str(&self.coverage.render());
        if !self.unjudged.is_empty() {
            let u: Vec<String> = self.unjudged.iter().map(|(law, n)| format!("{law} {n}")).collect();
            s.push_str(&format!("passed without judging every rule (too few datagrams or draws), cases per law: {}\n", u.join(", ")));
        }
        s.push_str("cases per scenario (wall s):");
        for p in &self.per_scenario {
            s.push_str(&format!(" {} {} ({:.1})", p.scenario, p.cases, p.wall_s));
        }
        s.push('\n');
        if self.failures.is_empty() {
            s.push_str("no failures\n");
        }
        for f in &self.failures {
            s.push_str(&format!(
                "\nFAIL {} seed {} (case {}, found after {:.1} s){}\n{}",
                f.signature,
                f.seed,
                f.case,
                f.found_after_s,
                if f.repeats > 0 { format!(" (and {} more cases)", f.repeats) } else { String::new() },
                f.message
            ));
        }
        s
    }

    pub fn json(&self) -> serde_json::Value {
        serde_json::to_value(self).expect("summary serialises")
    }
}
