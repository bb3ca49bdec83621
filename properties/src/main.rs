//! `ftwsim`: run one seed, replay the corpus, fuzz, draw a timeline, list what exists, measure speed.

use std::path::PathBuf;
use std::process::ExitCode;

use clap::{Parser, Subcommand};
use ftw_properties::corpus::{self, Expect};
use ftw_properties::fuzz::{self, parse_shard, FuzzOpts, Stop};
use ftw_properties::timeline;
use ftw_sim::scenario::{self, RunSpec, Switches, Verdict, SCENARIOS, SWITCHES};
use ftw_sim::trace::{describe_divergence, first_divergence, fmt_time};
use ftw_sim::{parse_seed, trace};

#[derive(Parser)]
#[command(name = "ftwsim", about = "Deterministic simulation of the phone, box and cloud protocol", version)]
struct Cli {
    #[command(subcommand)]
    cmd: Cmd,
}

#[derive(Subcommand)]
enum Cmd {
    /// One run of a scenario from a seed.
    Run {
        #[arg(long, default_value = "quic-echo")]
        scenario: String,
        /// The run seed: decimal, or hex with 0x.
        #[arg(long, default_value = "1")]
        seed: String,
        /// A bug switch to turn on (repeatable); `ftwsim list` shows them.
        #[arg(long = "switch")]
        switches: Vec<String>,
        /// A corpus entry (TOML) whose fault plan to use.
        #[arg(long)]
        plan: Option<PathBuf>,
        /// Write the trace as JSON lines here.
        #[arg(long)]
        trace: Option<PathBuf>,
        /// Print one JSON object instead of text.
        #[arg(long)]
        json: bool,
        /// Run twice and compare every event.
        #[arg(long)]
        check_determinism: bool,
        /// Step 1 ms at a time instead of skipping idle time.
        #[arg(long)]
        no_skip: bool,
        /// Draw the run as a picture: `.html` (a page with inline SVG) or `.svg`.
        #[arg(long)]
        timeline: Option<PathBuf>,
    },
    /// Draw a saved trace (`--trace` JSON lines) as a picture.
    Timeline {
        trace: PathBuf,
        /// `.html` or `.svg`.
        #[arg(long)]
        out: PathBuf,
        /// A corpus entry whose plan's outages to shade.
        #[arg(long)]
        plan: Option<PathBuf>,
    },
    /// Many drawn cases with swarm testing; failures become corpus entries.
    Fuzz {
        /// Stop after this many wall-clock seconds (default: 60 unless --cases).
        #[arg(long)]
        time: Option<u64>,
        /// Stop after this many cases.
        #[arg(long, conflicts_with = "time")]
        cases: Option<u64>,
        /// Only this property counts (`replay`: only the determinism check, on every case).
        #[arg(long)]
        property: Option<String>,
        /// Scenario to fuzz (repeatable; default: every registered scenario).
        #[arg(long = "scenario")]
        scenarios: Vec<String>,
        /// A bug switch on in every case (repeatable).
        #[arg(long = "switch")]
        switches: Vec<String>,
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
        #[arg(long, default_value_t = 8)]
        determinism_every: u64,
        /// Worker threads.
        #[arg(long, default_value_t = 1)]
        jobs: usize,
        /// Print one JSON object (the summary) on stdout.
        #[arg(long)]
        json: bool,
    },
    /// Replay corpus entries (default: corpus/) and check each one's expectation.
    Replay { paths: Vec<PathBuf> },
    /// Scenarios, properties and bug switches, one a line.
    List,
    /// Measure speed: a simulated idle day (idle-link) and a 90 s session (quic-stream).
    Bench {
        #[arg(long)]
        json: bool,
    },
    /// The seed's tables in the simulated rig: the system, the phone's view, an idle box's bytes.
    Table {
        /// Connects and taps per row.
        #[arg(long, default_value_t = 30)]
        samples: usize,
        #[arg(long, default_value = "1")]
        seed: String,
        /// Every number as a JSON list of rows.
        #[arg(long)]
        json: bool,
        /// Also write CSV and one SVG per row's distribution here.
        #[arg(long)]
        out: Option<PathBuf>,
    },
}

fn replay_command(spec: &RunSpec, plan: &Option<PathBuf>) -> String {
    let mut cmd = format!("cargo sim run --scenario {} --seed {}", spec.scenario, spec.seed.0);
    for s in &spec.switches.0 {
        cmd.push_str(&format!(" --switch {s}"));
    }
    if let Some(p) = plan {
        cmd.push_str(&format!(" --plan {}", p.display()));
    }
    cmd
}

fn bad_input(msg: &str) -> ExitCode {
    eprintln!("ftwsim: {msg}");
    ExitCode::from(2)
}

fn main() -> ExitCode {
    trace::init_logging();
    let cli = Cli::parse();
    match cli.cmd {
        Cmd::Table { samples, seed, json, out } => match ftw_sim::table::command_line(&seed, samples, json, out.as_deref()) {
            Ok(text) => {
                print!("{text}");
                ExitCode::SUCCESS
            }
            Err(e) => bad_input(&e),
        },
        Cmd::Bench { json } => {
            let timed = |name: &str| {
                let wall = std::time::Instant::now(); // the tool's own wall clock, never seen by the run
                let r = scenario::run(&RunSpec::new(name, ftw_sim::RunSeed(1))).expect("known scenario");
                let wall_s = wall.elapsed().as_secs_f64();
                (r.verdict(), r.outcome.sim_elapsed.as_secs_f64(), wall_s, r.outcome.steps)
            };
            let (v1, day_sim, day_wall, day_steps) = timed("idle-link");
            let (v2, ses_sim, ses_wall, ses_steps) = timed("quic-stream");
            let table_wall = std::time::Instant::now(); // the tool's own wall clock, never seen by the runs
            let table_rows = ftw_sim::table::run(&ftw_sim::table::TableOpts::default()).rows.len();
            let table_wall_s = table_wall.elapsed().as_secs_f64();
            if json {
                println!("{}", serde_json::json!({
                    "idle_day_wall_s": day_wall,
                    "idle_day_sim_s_per_wall_s": day_sim / day_wall,
                    "idle_day_steps": day_steps,
                    "session_speedup": ses_sim / ses_wall,
                    "session_wall_s": ses_wall,
                    "session_steps": ses_steps,
                    "table_wall_s": table_wall_s,
                    "verdicts": [format!("{v1:?}"), format!("{v2:?}")],
                }));
            } else {
                println!("idle day (idle-link, seed 1): {day_sim:.0} sim s in {day_wall:.2} wall s = {:.0} sim s per wall s, {day_steps} steps [{v1:?}]", day_sim / day_wall);
                println!("90 s session (quic-stream, seed 1): {ses_sim:.1} sim s in {ses_wall:.3} wall s = {:.0}x real time, {ses_steps} steps [{v2:?}]", ses_sim / ses_wall);
                println!("ftwsim table (seed 1, 30 samples, {table_rows} rows): {table_wall_s:.1} wall s");
            }
            ExitCode::SUCCESS
        }
        Cmd::List => {
            for s in SCENARIOS {
                println!("scenario {}  {}", s.name, s.about);
            }
            for p in ftw_sim::scenario::PROPERTIES {
                println!("property {}  {}", p.0, p.1);
            }
            for s in SWITCHES {
                println!("switch {}  {}", s.name, s.about);
            }
            ExitCode::SUCCESS
        }
        Cmd::Replay { paths } => {
            let paths = if paths.is_empty() { vec![PathBuf::from("corpus")] } else { paths };
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
        Cmd::Timeline { trace: input, out, plan } => {
            let text = match std::fs::read_to_string(&input) {
                Ok(t) => t,
                Err(e) => return bad_input(&format!("{}: {e}", input.display())),
            };
            let events = match timeline::read_jsonl(&text) {
                Ok(e) => e,
                Err(e) => return bad_input(&format!("{}: {e}", input.display())),
            };
            let plan = match &plan {
                Some(p) => match corpus::load(p) {
                    Ok(e) => Some(e.spec.plan),
                    Err(e) => return bad_input(&e),
                },
                None => None,
            };
            let title = timeline::Title { scenario: input.display().to_string(), seed: "-".into(), verdict: "saved trace".into(), hash: String::new() };
            if let Err(e) = std::fs::write(&out, timeline::render_for(&out, &events, plan.as_ref(), &title)) {
                return bad_input(&format!("--out {}: {e}", out.display()));
            }
            println!("timeline: {} ({} events)", out.display(), events.len());
            ExitCode::SUCCESS
        }
        Cmd::Fuzz { time, cases, property, scenarios, switches, shard, seed_from, out, determinism_every, jobs, json } => {
            let stop = match (time, cases) {
                (_, Some(n)) => Stop::Cases(n),
                (Some(t), None) => Stop::Time(t),
                (None, None) => Stop::Time(60),
            };
            let shard = match parse_shard(&shard) {
                Ok(s) => s,
                Err(e) => return bad_input(&format!("--shard: {e}")),
            };
            let seed_from = match parse_seed(&seed_from) {
                Ok(s) => s.0,
                Err(e) => return bad_input(&format!("--seed-from: {e}")),
            };
            let switches = match Switches::parse(switches.iter().map(String::as_str)) {
                Ok(s) => s,
                Err(e) => return bad_input(&format!("--switch: {e}")),
            };
            if let Some(p) = &property {
                if p != "run" && p != "replay" && !ftw_sim::scenario::PROPERTIES.iter().any(|(n, _)| n == p) {
                    let known: Vec<&str> = ftw_sim::scenario::PROPERTIES.iter().map(|(n, _)| *n).collect();
                    return bad_input(&format!("--property: unknown property {p:?}; known properties: run, replay, {}", known.join(", ")));
                }
            }
            // With bug switches on and no scenario named, fuzz the scenarios that catch
            // those switches (properties/src/laws.rs), not every scenario.
            let caught_by: Vec<String> = ftw_properties::laws::scenarios_for(switches.0.iter().map(String::as_str)).into_iter().map(String::from).collect();
            let scenarios = if !scenarios.is_empty() {
                scenarios
            } else if !caught_by.is_empty() {
                caught_by
            } else {
                SCENARIOS.iter().map(|s| s.name.to_string()).collect()
            };
            for s in &scenarios {
                if let Err(e) = scenario::find(s) {
                    return bad_input(&format!("--scenario: {e}"));
                }
            }
            if determinism_every == 0 {
                return bad_input("--determinism-every: must be at least 1");
            }
            let opts = FuzzOpts { stop, property, scenarios, switches, shard, seed_from, out_dir: out, determinism_every, jobs, progress: true };
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
            if summary.failures.is_empty() {
                ExitCode::SUCCESS
            } else {
                for f in &summary.failures {
                    eprintln!("ftwsim: {} {} seed {} failed; replay with: {}", f.scenario, f.property, f.seed, f.replay);
                }
                ExitCode::from(1)
            }
        }
        Cmd::Run { scenario, seed, switches, plan, trace: trace_out, json, check_determinism, no_skip, timeline: timeline_out } => {
            let seed = match parse_seed(&seed) {
                Ok(s) => s,
                Err(e) => return bad_input(&format!("--seed: {e}")),
            };
            if let Err(e) = scenario::find(&scenario) {
                return bad_input(&format!("--scenario: {e}"));
            }
            let switches = match Switches::parse(switches.iter().map(String::as_str)) {
                Ok(s) => s,
                Err(e) => return bad_input(&format!("--switch: {e}")),
            };
            let mut spec = RunSpec::new(&scenario, seed);
            spec.switches = switches;
            spec.skip_idle = !no_skip;
            if let Some(p) = &plan {
                match corpus::load(p) {
                    Ok(e) => spec.plan = e.spec.plan,
                    Err(e) => return bad_input(&e),
                }
            }
            let wall = std::time::Instant::now(); // wall time of the tool, never seen by the run
            let report = match scenario::run(&spec) {
                Ok(r) => r,
                Err(e) => return bad_input(&e),
            };
            let wall_ms = wall.elapsed().as_secs_f64() * 1000.0;
            let mut determinism: Option<Result<(), String>> = None;
            if check_determinism {
                let again = scenario::run(&spec).expect("ran once already");
                determinism = Some(match first_divergence(report.outcome.trace.events(), again.outcome.trace.events()) {
                    None if report.outcome.trace.hash() == again.outcome.trace.hash() => Ok(()),
                    None => Err("hashes differ with identical kept events".into()),
                    Some(d) => Err(describe_divergence(&d)),
                });
            }
            if let Some(path) = &trace_out {
                if let Err(e) = std::fs::write(path, report.outcome.trace.to_jsonl()) {
                    return bad_input(&format!("--trace {}: {e}", path.display()));
                }
            }
            let verdict = report.verdict();
            if let Some(path) = &timeline_out {
                let title = timeline::Title {
                    scenario: spec.scenario.clone(),
                    seed: spec.seed.0.to_string(),
                    verdict: match &verdict {
                        Verdict::Pass => "pass".into(),
                        Verdict::Fail { property, detail } => format!("FAIL {property}: {detail}"),
                    },
                    hash: report.outcome.trace.hash(),
                };
                if let Err(e) = std::fs::write(path, timeline::render_for(path, report.outcome.trace.events(), Some(&spec.plan), &title)) {
                    return bad_input(&format!("--timeline {}: {e}", path.display()));
                }
            }
            let sim = report.outcome.sim_elapsed;
            let replay = replay_command(&spec, &plan);
            if json {
                let (v, prop, detail) = match &verdict {
                    Verdict::Pass => ("pass", None, None),
                    Verdict::Fail { property, detail } => ("fail", Some(property.clone()), Some(detail.clone())),
                };
                let obj = serde_json::json!({
                    "seed": spec.seed.0,
                    "scenario": spec.scenario,
                    "switches": spec.switches.0,
                    "hash": report.outcome.trace.hash(),
                    "verdict": v,
                    "property": prop,
                    "detail": detail,
                    "events": report.outcome.trace.len(),
                    "sim_ms": sim.as_millis() as u64,
                    "wall_ms": wall_ms,
                    "steps": report.outcome.steps,
                    "deterministic": determinism.as_ref().map(|d| d.is_ok()),
                    "replay": replay,
                });
                println!("{obj}");
            } else {
                match &verdict {
                    Verdict::Pass => println!("verdict: pass"),
                    Verdict::Fail { property, detail } => println!("verdict: FAIL {property}: {detail}"),
                }
                for c in &report.checks {
                    println!("  {} {}: {}", if c.ok { "ok  " } else { "FAIL" }, c.property, c.detail);
                }
                println!("scenario: {}  seed: {}  switches: [{}]", spec.scenario, spec.seed.0, spec.switches.0.iter().cloned().collect::<Vec<_>>().join(", "));
                println!("hash: {}", report.outcome.trace.hash());
                println!(
                    "events: {}  steps: {}  sim: {}  wall: {:.1} ms  ({:.0} sim s per wall s)",
                    report.outcome.trace.len(),
                    report.outcome.steps,
                    fmt_time(sim),
                    wall_ms,
                    sim.as_secs_f64() / (wall_ms / 1000.0).max(1e-9)
                );
                if let Some(d) = &determinism {
                    match d {
                        Ok(()) => println!("determinism: two runs, identical traces"),
                        Err(e) => println!("determinism: BROKEN\n{e}"),
                    }
                }
                println!("replay: {replay}");
            }
            if let Some(Err(_)) = determinism {
                return ExitCode::from(1);
            }
            if verdict != Verdict::Pass {
                if !json {
                    eprintln!("ftwsim: seed {} failed; replay with: {replay}", spec.seed.0);
                }
                let _ = Expect::Pass;
                return ExitCode::from(1);
            }
            ExitCode::SUCCESS
        }
    }
}
