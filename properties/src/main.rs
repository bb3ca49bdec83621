//! `ftwsim`: run one seed, replay the corpus, list what exists, measure speed.

use std::path::PathBuf;
use std::process::ExitCode;

use clap::{Parser, Subcommand};
use ftw_properties::corpus::{self, Expect};
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
        Cmd::Bench { json } => {
            let timed = |name: &str| {
                let wall = std::time::Instant::now(); // the tool's own wall clock, never seen by the run
                let r = scenario::run(&RunSpec::new(name, ftw_sim::RunSeed(1))).expect("known scenario");
                let wall_s = wall.elapsed().as_secs_f64();
                (r.verdict(), r.outcome.sim_elapsed.as_secs_f64(), wall_s, r.outcome.steps)
            };
            let (v1, day_sim, day_wall, day_steps) = timed("idle-link");
            let (v2, ses_sim, ses_wall, ses_steps) = timed("quic-stream");
            if json {
                println!("{}", serde_json::json!({
                    "idle_day_wall_s": day_wall,
                    "idle_day_sim_s_per_wall_s": day_sim / day_wall,
                    "idle_day_steps": day_steps,
                    "session_speedup": ses_sim / ses_wall,
                    "session_wall_s": ses_wall,
                    "session_steps": ses_steps,
                    "verdicts": [format!("{v1:?}"), format!("{v2:?}")],
                }));
            } else {
                println!("idle day (idle-link, seed 1): {day_sim:.0} sim s in {day_wall:.2} wall s = {:.0} sim s per wall s, {day_steps} steps [{v1:?}]", day_sim / day_wall);
                println!("90 s session (quic-stream, seed 1): {ses_sim:.1} sim s in {ses_wall:.3} wall s = {:.0}x real time, {ses_steps} steps [{v2:?}]", ses_sim / ses_wall);
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
        Cmd::Run { scenario, seed, switches, plan, trace: trace_out, json, check_determinism, no_skip } => {
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
