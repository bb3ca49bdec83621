//! The property harness: draw cases, run them, shrink a failure to a minimal
//! case, write it to the corpus and say how to replay it.
//!
//! A case is a function of one number `N`: the run seed is `N` and the plan is
//! drawn from `N` (see [`crate::strategy::draw`]). `SIM_SEED=N` runs only that
//! case; `SIM_CASES=K` runs cases `1..=K` instead of the default count.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use ftw_sim::plan::QuicPlan;
use ftw_sim::scenario::{RunReport, Verdict};
use ftw_sim::switch::Switches;
use ftw_sim::RunSpec;
use ftw_sim::{parse_seed, RunSeed};

use crate::corpus::{self, Expect};
use crate::strategy::{domain_for, draw, Case, Domain};
use crate::triage::signature::{self, Signature};

/// A law judged on one run: `Pass`, or the property that failed and why.
pub type Law<'a> = &'a (dyn Fn(&RunSpec, &RunReport) -> Verdict + Sync);

/// The scenario's own checks (the default law).
pub fn scenario_checks(_: &RunSpec, r: &RunReport) -> Verdict {
    r.verdict()
}

/// Only one property of the scenario's checks (`run` and `no-panic` among them).
pub fn only_property(property: &str, r: &RunReport) -> Verdict {
    match r.checks.iter().find(|c| c.property() == property && !c.ok) {
        Some(c) => Verdict::Fail { property: c.property().into(), detail: c.detail.clone() },
        None => Verdict::Pass,
    }
}

/// The case numbers a test runs: `SIM_SEED=N` gives `[N]`; else `1..=SIM_CASES`
/// (default `default_cases`).
pub fn case_seeds(default_cases: u32) -> Result<Vec<u64>, String> {
    if let Ok(s) = std::env::var("SIM_SEED") {
        return Ok(vec![parse_seed(&s).map_err(|e| format!("SIM_SEED: {e}"))?.0]);
    }
    let n = match std::env::var("SIM_CASES") {
        Ok(s) => s.trim().parse::<u32>().map_err(|e| format!("SIM_CASES={s:?}: {e}"))?,
        Err(_) => default_cases,
    };
    Ok((1..=n as u64).collect())
}

/// The spec of a case.
pub fn spec_of(scenario: &str, switches: &Switches, case: &Case) -> RunSpec {
    let mut spec = ftw_sim::scenario::spec(scenario, case.seed);
    spec.switches = switches.clone();
    spec.plan = case.plan.clone();
    spec
}

/// What a property run is about.
#[derive(Clone)]
pub struct Check {
    pub scenario: String,
    pub switches: Switches,
    pub domain: Domain,
    /// At most this many runs while shrinking one failure.
    pub shrink_runs_max: u32,
    /// Stop shrinking at this wall-clock instant (the fuzzer's time limit), keeping
    /// the smallest failing plan so far. The tool's clock: no run ever sees it.
    pub shrink_deadline: Option<std::time::Instant>,
    /// Where failures become corpus entries (None: not written).
    pub out_dir: Option<PathBuf>,
    /// How a person reruns the test that found it (for the failure message).
    pub test_hint: Option<String>,
    /// The QUIC stand-in every case runs with (`ftwsim fuzz --quic`).
    pub quic: QuicPlan,
}

impl Check {
    pub fn new(scenario: &str) -> Check {
        Check {
            scenario: scenario.into(),
            switches: Switches::default(),
            domain: domain_for(scenario),
            shrink_runs_max: 200,
            shrink_deadline: None,
            out_dir: None,
            test_hint: None,
            quic: QuicPlan::default(),
        }
    }

    /// The run of `case` this check makes: on the check's QUIC stand-in, or on
    /// the one a switch's bug lives in (`Switch::stand_in`) or the scenario's
    /// premise needs (`Domain::stand_in`).
    pub fn spec(&self, case: &Case) -> RunSpec {
        let mut spec = spec_of(&self.scenario, &self.switches, case);
        spec.plan.quic = crate::strategy::needed_stand_in(&self.switches, &self.domain).unwrap_or(self.quic);
        spec
    }
}

/// A failure, shrunk.
#[derive(Clone, Debug)]
pub struct Failure {
    /// The minimal failing run.
    pub spec: RunSpec,
    /// The case as first drawn.
    pub original: FaultPlanSummary,
    pub property: String,
    pub detail: String,
    /// Runs spent shrinking.
    pub shrink_runs: u32,
    /// Shrinking stopped at the time limit, not at a smallest plan.
    pub shrink_cut: bool,
    /// The corpus entry written, if any.
    pub entry: Option<PathBuf>,
    /// The shrunk run's pcapng beside the entry, if written.
    pub pcap: Option<PathBuf>,
    pub test_hint: Option<String>,
    /// The shrunk run's bytes, once [`Failure::write_entry`] has run it again.
    pub recorded: Option<corpus::Recorded>,
    /// Its scenario, law and typed reason: what shrinking kept, what triage groups by.
    pub signature: Signature,
}

/// How big a plan was before shrinking.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct FaultPlanSummary {
    pub faults: usize,
    pub kinds: Vec<&'static str>,
}

impl FaultPlanSummary {
    pub fn of(plan: &ftw_sim::plan::FaultPlan) -> Self {
        FaultPlanSummary { faults: plan.faults.len(), kinds: crate::strategy::Kind::used_by(plan).into_iter().map(|k| k.name()).collect() }
    }
}

/// `cargo sim run ...` for a spec whose plan lives in `plan_file`.
pub fn run_command(spec: &RunSpec, plan_file: Option<&Path>) -> String {
    let mut cmd = format!("cargo sim run --scenario {} --seed {}", spec.scenario, spec.seed.0);
    for s in &spec.switches.0 {
        cmd.push_str(&format!(" --switch {s}"));
    }
    if let Some(p) = plan_file {
        cmd.push_str(&format!(" --plan {}", p.display()));
    }
    cmd
}

impl Failure {
    /// A failure shrunk to `best` from a case drawn with `original`: its law and
    /// detail, the shrink's runs and whether it was cut at the time limit.
    fn shrunk(
        check: &Check,
        best: &Case,
        original: &ftw_sim::plan::FaultPlan,
        (property, detail): (String, String),
        (shrink_runs, shrink_cut): (u32, bool),
        sig: &Signature,
    ) -> Failure {
        Failure {
            spec: check.spec(best),
            original: FaultPlanSummary::of(original),
            property,
            detail,
            shrink_runs,
            shrink_cut,
            entry: None,
            pcap: None,
            test_hint: check.test_hint.clone(),
            recorded: None,
            signature: sig.clone(),
        }
    }

    /// The corpus entry's TOML.
    pub fn entry_toml(&self) -> String {
        let note = format!(
            "found by the property harness: {}: {} (shrunk in {} runs{} from {} timed faults using [{}])",
            self.property,
            self.detail.replace('\n', " "),
            self.shrink_runs,
            if self.shrink_cut { ", cut short at the time limit" } else { "" },
            self.original.faults,
            self.original.kinds.join(", ")
        );
        corpus::render(&self.spec, &Expect::Fails(self.property.clone()), &note, Some(&self.signature.reason), self.recorded.clone())
    }

    /// What a person reads: the law, the shrunk plan, the seed, the commands.
    pub fn message(&self) -> String {
        let mut m = format!(
            "property {} failed in scenario {} (seed {}, switches [{}]):\n  {}\n\nshrunk plan ({} runs{}; first drawn with {} timed faults using [{}]):\n{}\n",
            self.property,
            self.spec.scenario,
            self.spec.seed.0,
            self.spec.switches.names().join(", "),
            self.detail,
            self.shrink_runs,
            if self.shrink_cut { ", cut short at the time limit: `--cases` shrinks fully" } else { "" },
            self.original.faults,
            self.original.kinds.join(", "),
            self.entry_toml()
        );
        match &self.entry {
            Some(p) => {
                m.push_str(&format!("written to {}\nreplay: cargo sim replay {}\n   or: {}\n", p.display(), p.display(), run_command(&self.spec, Some(p))));
                m.push_str(&format!("  see: {} --timeline failure.html\n", run_command(&self.spec, Some(p))));
                if let Some(pcap) = &self.pcap {
                    m.push_str(&format!("  packets: {} (or open it in Wireshark; TLS secrets embedded)\n", crate::capture::open_hint(pcap)));
                }
            }
            None => m.push_str(&format!("replay: {} (with the plan above saved as a file)\n", run_command(&self.spec, Some(Path::new("<file>"))))),
        }
        if let Some(t) = &self.test_hint {
            m.push_str(&format!("rerun the case: SIM_SEED={} {t}\n", self.spec.seed.0));
        }
        m
    }

    /// Write the entry under `dir` as `<scenario>-<property>-<seed>.toml`
    /// (`...-<seed>-<switches>.toml` with switches on; `-2`, `-3`, ... rather than
    /// overwrite an entry already there).
    pub fn write_entry(&mut self, dir: &Path) -> Result<PathBuf, String> {
        std::fs::create_dir_all(dir).map_err(|e| format!("{}: {e}", dir.display()))?;
        let mut stem = format!("{}-{}-{}", self.spec.scenario, self.property, self.spec.seed.0);
        for s in &self.spec.switches.0 {
            stem.push('-');
            stem.push_str(s.name());
        }
        let mut path = dir.join(format!("{stem}.toml"));
        let mut n = 1;
        while path.exists() {
            n += 1;
            path = dir.join(format!("{stem}-{n}.toml"));
        }
        // The shrunk run once more: its hash for the entry, its trace beside it.
        if let Ok(report) = ftw_sim::scenario::run(&self.spec) {
            self.recorded = Some(corpus::Recorded::now(&report.outcome.trace.hash()));
            let trace = corpus::trace_beside(&path);
            std::fs::write(&trace, report.outcome.trace.to_jsonl()).map_err(|e| format!("{}: {e}", trace.display()))?;
        }
        std::fs::write(&path, self.entry_toml()).map_err(|e| format!("{}: {e}", path.display()))?;
        self.entry = Some(path.clone());
        Ok(path)
    }

    /// Run the shrunk case again, capturing, and write its pcapng files beside
    /// the entry (`<entry>.pcapng`, the cloud's link; `<entry>.<link>.pcapng`
    /// the others); an entry must have been written. Every file written.
    pub fn write_pcap(&mut self) -> Result<Vec<PathBuf>, String> {
        let entry = self.entry.as_ref().ok_or("no corpus entry to put the pcapng beside")?;
        let path = entry.with_extension("pcapng");
        let written = crate::capture::pcap_of_spec(&self.spec, &path)?;
        self.pcap = Some(path);
        Ok(written.into_iter().map(|w| w.path).collect())
    }
}

/// One case's run.
pub struct CaseRun {
    pub spec: RunSpec,
    pub verdict: Verdict,
    pub report: RunReport,
}

/// Run one case under a law.
pub fn run_case(check: &Check, case: &Case, law: Law) -> Result<CaseRun, String> {
    let spec = check.spec(case);
    let (verdict, report) = judge(&spec, law)?;
    Ok(CaseRun { spec, verdict, report })
}

/// Run `spec` and judge its report under a law.
pub fn judge(spec: &RunSpec, law: Law) -> Result<(Verdict, RunReport), String> {
    let report = ftw_sim::scenario::run(spec)?;
    Ok((law(spec, &report), report))
}

/// Whether a candidate's run fails with the signature `sig` (its detail if so).
fn fails_alike(check: &Check, r: CaseRun, sig: &Signature) -> Option<String> {
    match r.verdict {
        Verdict::Fail { property: p, detail } if p == sig.law => (signature::of_run(&check.scenario, &p, &r.report) == *sig).then_some(detail),
        _ => None,
    }
}

/// Shrink the failing case drawn from `seed`: simplify while it still fails
/// with the same signature, `sig` (runs of identical plans are looked up, not rerun).
pub fn shrink(check: &Check, seed: RunSeed, sig: &Signature, detail: &str, law: Law) -> Result<Failure, String> {
    let property = sig.law.as_str();
    let mut tree = draw(&check.domain, seed);
    let original = tree.current();
    let mut best = original.clone();
    let mut best_detail = detail.to_string();
    let mut seen: BTreeMap<String, Option<String>> = BTreeMap::new();
    let key = |c: &Case| toml::to_string(&c.plan).expect("plan renders");
    seen.insert(key(&original), Some(detail.to_string()));
    let mut runs = 0;
    let mut cut = false;
    if tree.simplify() {
        loop {
            let cand = tree.current();
            let k = key(&cand);
            let fails = match seen.get(&k) {
                Some(v) => v.clone(),
                None => {
                    if runs >= check.shrink_runs_max {
                        break;
                    }
                    if check.shrink_deadline.is_some_and(|d| std::time::Instant::now() >= d) {
                        cut = true;
                        break;
                    }
                    runs += 1;
                    let v = fails_alike(check, run_case(check, &cand, law)?, sig);
                    seen.insert(k, v.clone());
                    v
                }
            };
            let more = match fails {
                Some(d) => {
                    best = cand;
                    best_detail = d;
                    tree.simplify()
                }
                None => tree.complicate(),
            };
            if !more {
                break;
            }
        }
    }
    Ok(Failure::shrunk(check, &best, &original.plan, (property.to_string(), best_detail), (runs, cut), sig))
}

/// Simpler plans than `c`'s, one step each: each timed fault dropped (the
/// latest first), then each leg, the fleet and the processing set back to the default.
fn simpler(c: &Case) -> Vec<Case> {
    let mut out = Vec::new();
    for i in (0..c.plan.faults.len()).rev() {
        let mut x = c.clone();
        x.plan.faults.remove(i);
        out.push(x);
    }
    let default = ftw_sim::plan::LinkPlan::default();
    for leg in 0..2 {
        let mut x = c.clone();
        let l = if leg == 0 { &mut x.plan.phone } else { &mut x.plan.box_ };
        if *l != default {
            *l = default.clone();
            out.push(x);
        }
    }
    if c.plan.fleet.is_some() || c.plan.processing.is_some() {
        let mut x = c.clone();
        (x.plan.fleet, x.plan.processing) = (None, None);
        out.push(x);
    }
    out
}

/// Shrink a failing case whose plan was not drawn from its seed (the guided
/// search's mutation of a kept plan): take the first of [`simpler`]'s plans that
/// still fails with the signature `sig`, until none does, within the check's
/// runs and deadline.
pub fn shrink_plan(check: &Check, case: &Case, sig: &Signature, detail: &str, law: Law) -> Result<Failure, String> {
    let (mut best, mut best_detail) = (case.clone(), detail.to_string());
    let (mut runs, mut cut) = (0, false);
    'steps: loop {
        for cand in simpler(&best) {
            if runs >= check.shrink_runs_max {
                break 'steps;
            }
            if check.shrink_deadline.is_some_and(|d| std::time::Instant::now() >= d) {
                cut = true;
                break 'steps;
            }
            runs += 1;
            if let Some(d) = fails_alike(check, run_case(check, &cand, law)?, sig) {
                (best, best_detail) = (cand, d);
                continue 'steps;
            }
        }
        break;
    }
    Ok(Failure::shrunk(check, &best, &case.plan, (sig.law.clone(), best_detail), (runs, cut), sig))
}

/// Run the cases `seeds` under `law`; the first failure is shrunk, written to
/// `check.out_dir` and returned. `Ok(n)`: all `n` cases passed.
pub fn check_law(check: &Check, seeds: &[u64], law: Law) -> Result<u32, Box<Failure>> {
    for &s in seeds {
        let seed = RunSeed(s);
        let case = draw(&check.domain, seed).current();
        let r = run_case(check, &case, law).unwrap_or_else(|e| panic!("scenario {}: {e}", check.scenario));
        if let Verdict::Fail { property, detail } = &r.verdict {
            let sig = signature::of_run(&check.scenario, property, &r.report);
            let mut f = shrink(check, seed, &sig, detail, law).unwrap_or_else(|e| panic!("shrinking: {e}"));
            if let Some(dir) = &check.out_dir {
                if let Err(e) = f.write_entry(dir) {
                    eprintln!("ftwsim: could not write the corpus entry: {e}");
                }
            }
            return Err(Box::new(f));
        }
    }
    Ok(seeds.len() as u32)
}

/// The scenario's own laws over `cases` drawn cases (or `SIM_SEED`'s one).
pub fn check(scenario: &str, switches: &Switches, cases: u32) -> Result<u32, Box<Failure>> {
    let mut c = Check::new(scenario);
    c.switches = switches.clone();
    let seeds = case_seeds(cases).unwrap_or_else(|e| panic!("{e}"));
    check_law(&c, &seeds, &scenario_checks)
}

/// Replay law: the case run twice gives the same trace hash; on a mismatch,
/// the first divergence.
pub fn replays_exactly(spec: &RunSpec) -> Result<String, String> {
    let a = ftw_sim::scenario::run(spec)?;
    let b = ftw_sim::scenario::run(spec)?;
    let (ha, hb) = (a.outcome.trace.hash(), b.outcome.trace.hash());
    if ha == hb {
        return Ok(ha);
    }
    let d = ftw_sim::trace::first_divergence(a.outcome.trace.events(), b.outcome.trace.events());
    Err(match d {
        Some(d) => format!("trace hashes differ ({} vs {}); {}", &ha[..16], &hb[..16], ftw_sim::trace::describe_divergence(&d)),
        None => format!("trace hashes differ ({} vs {}) with identical kept events", &ha[..16], &hb[..16]),
    })
}
