//! `ftwsim run`: one run of a scenario from a seed, its verdict, its checks,
//! and the one command that replays it.

use std::path::PathBuf;
use std::process::ExitCode;

use ftw_sim::parse_seed;
use ftw_sim::scenario::{self, RunReport, Verdict};
use ftw_sim::switch::Switches;
use ftw_sim::trace::{describe_divergence, first_divergence, fmt_time};
use ftw_sim::RunSpec;

use super::bad_input;
use crate::harness::run_command;
use crate::{corpus, timeline};

/// One run of a scenario from a seed.
#[derive(clap::Args)]
pub struct Args {
    /// The scenario (`ftwsim list`); the default runs the whole system: phone, box and cloud end to end.
    #[arg(long, default_value = "session")]
    scenario: String,
    /// The run seed: decimal, or hex with 0x.
    #[arg(long, default_value = "1")]
    seed: String,
    /// A bug switch to turn on (repeatable); `ftwsim list` shows them.
    #[arg(long = "switch")]
    switches: Vec<String>,
    /// A corpus entry (TOML) whose fault plan to use.
    #[arg(long, conflicts_with = "drawn")]
    plan: Option<PathBuf>,
    /// Draw the fault plan from the seed, out of everything the scenario's laws
    /// must survive (its domain): the fuzzer's case of this seed. Without it (and
    /// without --plan) the scenario runs on a calm network: 20 ms each way, no faults.
    #[arg(long)]
    drawn: bool,
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
    /// Write the models' journal here, one step a line, numbered as the
    /// references name them (`journal step #N`): what to read when a
    /// `*-agrees-with-spec` law names a step.
    #[arg(long)]
    journal: Option<PathBuf>,
    /// Write every datagram as IP packets in pcapng, one file a vantage point,
    /// each with the run's TLS secrets embedded: FILE holds the cloud's link,
    /// `FILE` with a name the others (`run.phone.pcapng`, `run.box.pcapng`, and
    /// `run.nat.pcapng`: every NAT's outside); `tshark -r FILE` decrypts it.
    #[arg(long)]
    pcap: Option<PathBuf>,
    /// Instead, only these links, together in FILE (repeatable): to follow a packet
    /// through the NATs; Wireshark decrypts QUIC in a file of one link only (docs/tools.md).
    #[arg(long = "pcap-link", requires = "pcap")]
    pcap_links: Vec<String>,
    /// Write the TLS secrets of every QUIC and TLS connection here (NSS key log format).
    #[arg(long)]
    keylog: Option<PathBuf>,
    /// Write the run's events in the Chrome trace event format (JSON) here,
    /// for ui.perfetto.dev: a process per host, spans for handshakes, races
    /// and sessions, instants for faults and drops.
    #[arg(long)]
    perfetto: Option<PathBuf>,
    /// Write a qlog of every QUIC connection into this directory, one
    /// `.sqlog` per connection and side, in simulated time (for qvis).
    #[arg(long)]
    qlog: Option<PathBuf>,
}

/// The run's spec from the arguments, or the message for bad input.
fn spec_of(a: &Args) -> Result<RunSpec, String> {
    let seed = parse_seed(&a.seed).map_err(|e| format!("--seed: {e}"))?;
    scenario::find(&a.scenario).map_err(|e| format!("--scenario: {e}"))?;
    let switches = Switches::parse(a.switches.iter().map(String::as_str)).map_err(|e| format!("--switch: {e}"))?;
    let mut spec = ftw_sim::scenario::spec(&a.scenario, seed);
    spec.switches = switches;
    spec.skip_idle = !a.no_skip;
    spec.capture = a.pcap.is_some();
    spec.qlog = a.qlog.is_some();
    let domain = crate::strategy::domain_for(&a.scenario);
    if let Some(p) = &a.plan {
        spec.plan = corpus::load(p)?.spec.plan;
    }
    if a.drawn {
        spec.plan = crate::strategy::draw(&domain, seed).current().plan;
    }
    // Without a plan file, the stand-in a switch's bug or the scenario's premise
    // needs, as the fuzzer runs them (a plan file names its own).
    if let (None, Some(q)) = (&a.plan, crate::strategy::needed_stand_in(&spec.switches, &domain)) {
        spec.plan.quic = q;
    }
    Ok(spec)
}

/// Run the spec again and compare every event with the first run's.
fn determinism(spec: &RunSpec, report: &RunReport) -> Result<(), String> {
    let again = ftw_sim::scenario::run(spec).expect("ran once already");
    match first_divergence(report.outcome.trace.events(), again.outcome.trace.events()) {
        None if report.outcome.trace.hash() == again.outcome.trace.hash() => Ok(()),
        None => Err("hashes differ with identical kept events".into()),
        Some(d) => Err(describe_divergence(&d)),
    }
}

/// Write the trace and the timeline the arguments ask for.
fn write_outputs(a: &Args, spec: &RunSpec, report: &RunReport) -> Result<(), String> {
    if let Some(path) = &a.trace {
        std::fs::write(path, report.outcome.trace.to_jsonl()).map_err(|e| format!("--trace {}: {e}", path.display()))?;
    }
    if let Some(path) = &a.journal {
        let lines: String = report.outcome.journal.iter().enumerate().map(|(n, e)| format!("#{n} {}\n", e.describe())).collect();
        std::fs::write(path, lines).map_err(|e| format!("--journal {}: {e}", path.display()))?;
    }
    for w in crate::capture::write_captures(&report.outcome, a.pcap.as_deref(), &a.pcap_links, a.keylog.as_deref())? {
        eprintln!("ftwsim: {}", crate::capture::summary(&w));
        if a.pcap_links.len() > 1 {
            eprintln!("  (a packet seen on two of these links stops Wireshark's QUIC decryption; --pcap alone writes one file a vantage point: docs/tools.md)");
        }
    }
    if let Some(dir) = &a.qlog {
        let n = crate::capture::qlog::write_dir(dir, &report.outcome.qlog)?;
        eprintln!("ftwsim: {}: {n} qlog files (one per QUIC connection and side); open them in qvis", dir.display());
    }
    if let Some(path) = &a.perfetto {
        let about = serde_json::json!({ "scenario": spec.scenario.name(), "seed": spec.seed.0, "hash": report.outcome.trace.hash(), "time": "simulated" });
        let json = crate::capture::perfetto::trace_events(report.outcome.trace.events(), Some(&spec.plan), about);
        std::fs::write(path, json.to_string()).map_err(|e| format!("--perfetto {}: {e}", path.display()))?;
    }
    if let Some(path) = &a.timeline {
        let verdict = match report.verdict() {
            Verdict::Pass => "pass".into(),
            Verdict::Fail { property, detail } => format!("FAIL {property}: {detail}"),
        };
        let title = timeline::Title { scenario: spec.scenario.name().to_string(), seed: spec.seed.0.to_string(), verdict, hash: report.outcome.trace.hash() };
        let picture = timeline::render_for(path, report.outcome.trace.events(), Some(&spec.plan), &title);
        std::fs::write(path, picture).map_err(|e| format!("--timeline {}: {e}", path.display()))?;
    }
    Ok(())
}

/// The run as one JSON object.
fn print_json(spec: &RunSpec, report: &RunReport, wall_ms: f64, determinism: &Option<Result<(), String>>, replay: &str) {
    let (v, prop, detail) = match report.verdict() {
        Verdict::Pass => ("pass", None, None),
        Verdict::Fail { property, detail } => ("fail", Some(property), Some(detail)),
    };
    let obj = serde_json::json!({
        "seed": spec.seed.0,
        "scenario": spec.scenario.name(),
        "switches": spec.switches.names(),
        "hash": report.outcome.trace.hash(),
        "verdict": v,
        "property": prop,
        "detail": detail,
        "events": report.outcome.trace.len(),
        "sim_ms": report.outcome.sim_elapsed.as_millis() as u64,
        "wall_ms": wall_ms,
        "steps": report.outcome.steps,
        "deterministic": determinism.as_ref().map(|d| d.is_ok()),
        "replay": replay,
    });
    println!("{obj}");
}

/// The run as text: verdict, each check, seed, hash, counts, the replay command.
fn print_text(spec: &RunSpec, report: &RunReport, wall_ms: f64, determinism: &Option<Result<(), String>>, replay: &str) {
    match report.verdict() {
        Verdict::Pass => println!("verdict: pass"),
        Verdict::Fail { property, detail } => println!("verdict: FAIL {property}: {detail}"),
    }
    for c in &report.checks {
        println!("  {} {}: {}", if c.ok { "ok  " } else { "FAIL" }, c.property(), c.detail);
    }
    println!("scenario: {}  seed: {}  switches: [{}]", spec.scenario, spec.seed.0, spec.switches.names().join(", "));
    let plan = crate::harness::FaultPlanSummary::of(&spec.plan);
    println!("plan: {} timed faults; kinds [{}]", plan.faults, plan.kinds.join(", "));
    println!("hash: {}", report.outcome.trace.hash());
    let sim = report.outcome.sim_elapsed;
    let speed = sim.as_secs_f64() / (wall_ms / 1000.0).max(1e-9);
    println!(
        "events: {}  steps: {}  sim: {}  wall: {wall_ms:.1} ms  ({speed:.0} sim s per wall s)",
        report.outcome.trace.len(),
        report.outcome.steps,
        fmt_time(sim)
    );
    match determinism {
        Some(Ok(())) => println!("determinism: two runs, identical traces"),
        Some(Err(e)) => println!("determinism: BROKEN\n{e}"),
        None => {}
    }
    println!("replay: {replay}");
    println!("picture: {replay} --timeline run.html   (or --pcap run.pcapng, --perfetto run.json; docs/tools.md)");
}

pub fn main(a: Args) -> ExitCode {
    let spec = match spec_of(&a) {
        Ok(s) => s,
        Err(e) => return bad_input(&e),
    };
    let wall = std::time::Instant::now(); // wall time of the tool, never seen by the run
    let report = match ftw_sim::scenario::run(&spec) {
        Ok(r) => r,
        Err(e) => return bad_input(&e),
    };
    let wall_ms = wall.elapsed().as_secs_f64() * 1000.0;
    let determinism = a.check_determinism.then(|| determinism(&spec, &report));
    if let Err(e) = write_outputs(&a, &spec, &report) {
        return bad_input(&e);
    }
    let mut replay = run_command(&spec, a.plan.as_deref());
    if a.drawn {
        replay.push_str(" --drawn");
    }
    if a.json {
        print_json(&spec, &report, wall_ms, &determinism, &replay);
    } else {
        print_text(&spec, &report, wall_ms, &determinism, &replay);
    }
    if let Some(Err(_)) = determinism {
        return ExitCode::from(1);
    }
    if report.verdict() != Verdict::Pass {
        if !a.json {
            eprintln!("ftwsim: seed {} failed; replay with: {replay}", spec.seed.0);
        }
        return ExitCode::from(1);
    }
    ExitCode::SUCCESS
}
