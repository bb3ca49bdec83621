//! `ftwsim bench`: speed, measured (never asserted in tests).

use std::process::ExitCode;

use ftw_sim::scenario::Verdict;
use ftw_sim::switch::Switch;
use ftw_sim::RunSeed;

/// Measure speed: a simulated idle day (idle-link), a 90 s session (quic-stream), the table, fuzz throughput.
#[derive(clap::Args)]
pub struct Args {
    #[arg(long)]
    json: bool,
    /// Instead: time to first catch per bug switch (median over seed blocks, fuzzing stopped at the first failure).
    #[arg(long)]
    catch: bool,
    /// With --catch: seed blocks per switch.
    #[arg(long, default_value_t = 5, value_parser = clap::value_parser!(u64).range(1..=50))]
    blocks: u64,
    /// With --catch: wall seconds each block may fuzz.
    #[arg(long, default_value_t = 60, value_parser = clap::value_parser!(u64).range(1..=3600))]
    limit: u64,
    /// With --catch: only these switches (default: every switch).
    #[arg(long = "switch")]
    switches: Vec<String>,
    /// Instead: only the streaming day (a simulated day of the whole system at work).
    #[arg(long)]
    streaming_day: bool,
    /// Instead: only the floor: each scenario's seed 1 against the cost of the
    /// real work it cannot avoid (handshakes, AEAD), priced by microbenchmarks run now.
    #[arg(long)]
    floor: bool,
    /// With --catch or --search: fuzzing threads.
    #[arg(long, default_value_t = 2, value_parser = clap::value_parser!(u64).range(1..=256))]
    jobs: u64,
    /// Instead: the guided search against the unguided one (issue 36): keys reached
    /// over the same budget and seeds, then each switch's time to first catch by both.
    #[arg(long)]
    search: bool,
    /// With --search: wall seconds each search gets (default 120 unless --cases).
    #[arg(long, value_parser = clap::value_parser!(u64).range(1..=86_400))]
    time: Option<u64>,
    /// With --search: a budget in cases instead (the same cases on any machine).
    #[arg(long, conflicts_with = "time", value_parser = clap::value_parser!(u64).range(1..=10_000_000))]
    cases: Option<u64>,
    /// With --search: the first seed of both searches.
    #[arg(long, default_value_t = 1)]
    seed_from: u64,
    /// With --search: only the keys, no catches.
    #[arg(long)]
    no_catch: bool,
}

/// The switches `--switch` names, or every one.
fn switches_of(a: &Args) -> Result<Vec<Switch>, String> {
    if a.switches.is_empty() {
        return Ok(Switch::ALL.to_vec());
    }
    a.switches.iter().map(|s| Switch::parse(s)).collect::<Result<Vec<_>, _>>().map_err(|e| format!("--switch: {e}"))
}

/// `--search`: keys reached by both searches, then both catches of every switch.
fn search_main(a: &Args) -> ExitCode {
    let switches = match switches_of(a) {
        Ok(v) => v,
        Err(e) => return super::bad_input(&e),
    };
    let stop = match (a.time, a.cases) {
        (_, Some(n)) => crate::fuzz::Stop::Cases(n),
        (t, None) => crate::fuzz::Stop::Time(t.unwrap_or(120)),
    };
    let scenarios = ftw_sim::scenario::SCENARIOS.iter().map(|s| s.name.to_string()).collect();
    let budget = crate::compare::Budget { stop, seed_from: a.seed_from, jobs: a.jobs as usize, scenarios };
    let (g, u) = match (crate::compare::reach(&budget, true), crate::compare::reach(&budget, false)) {
        (Ok(g), Ok(u)) => (g, u),
        (Err(e), _) | (_, Err(e)) => return super::bad_input(&e),
    };
    if !a.json {
        print!("{}", crate::compare::render_reach(&g, &u, stop));
    }
    let mut caught = Vec::new();
    if !a.no_catch {
        if !a.json {
            println!("time to first catch, median over {} seed blocks (limit {} s a block)", a.blocks, a.limit);
        }
        for w in &switches {
            let c = crate::compare::catches(std::slice::from_ref(w), a.blocks, a.limit, a.jobs as usize).remove(0);
            if !a.json {
                println!("{}", crate::compare::render_catch(&c, a.limit));
            }
            caught.push(c);
        }
    }
    if a.json {
        println!(
            "{}",
            serde_json::json!({ "budget": format!("{stop:?}"), "seed_from": a.seed_from, "jobs": a.jobs, "guided": g, "unguided": u, "blocks": a.blocks, "limit_s": a.limit, "catches": caught })
        );
    }
    ExitCode::SUCCESS
}

/// `--catch`: one line (or one JSON object) per switch.
fn catch_main(a: &Args) -> ExitCode {
    let switches = match switches_of(a) {
        Ok(v) => v,
        Err(e) => return super::bad_input(&e),
    };
    let mut all = Vec::new();
    for w in switches {
        let c = crate::catch::catch(w, a.blocks, a.limit, a.jobs as usize, false);
        if !a.json {
            let shown: Vec<String> = c.found_after_s.iter().map(|f| f.map_or(format!(">{}", a.limit), |s| format!("{s:.1}"))).collect();
            let median = c.median_s.map_or(format!("> {} s", a.limit), |m| format!("{m:.1} s"));
            println!("{:<28} median {median:<9} blocks [{}]  ({})", c.switch, shown.join(", "), c.scenarios.join(", "));
        }
        all.push(c);
    }
    if a.json {
        println!("{}", serde_json::json!({ "blocks": a.blocks, "limit_s": a.limit, "jobs": a.jobs, "catches": all }));
    }
    ExitCode::SUCCESS
}

/// Fuzz throughput over the whole mix: 60 s of `ftwsim fuzz --jobs 1` (equal
/// time share, every scenario, seeds from 1): cases per second per core, and
/// each scenario's wall ms per case.
fn fuzz_throughput() -> (f64, Vec<(String, u64, f64)>) {
    let opts = crate::fuzz::FuzzOpts {
        first_only: false,
        stop: crate::fuzz::Stop::Time(60),
        property: None,
        scenarios: ftw_sim::scenario::SCENARIOS.iter().map(|s| s.name.to_string()).collect(),
        switches: Default::default(),
        quic: Default::default(),
        shard: (0, 1),
        seed_from: 1,
        out_dir: std::env::temp_dir().join("ftwsim-bench-found"),
        determinism_every: u64::MAX,
        jobs: 1,
        progress: false,
        guide: Default::default(),
        known: Default::default(),
    };
    let s = crate::fuzz::fuzz(&opts).expect("known scenarios");
    let per = s.per_scenario.iter().map(|x| (x.scenario.clone(), x.cases, x.wall_s * 1000.0 / x.cases.max(1) as f64)).collect();
    (s.cases as f64 / s.wall_s, per)
}

/// A simulated day of the whole system streaming (issue 18): wall s and what it delivered.
fn streaming_day() -> (f64, ftw_sim::table::day::Day) {
    let wall = std::time::Instant::now(); // the tool's own wall clock, never seen by the run
    let d = ftw_sim::table::day::streaming_day(RunSeed(1), 24);
    (wall.elapsed().as_secs_f64(), d)
}

/// One scenario's seed 1 against its floor.
#[derive(serde::Serialize)]
struct FloorRow {
    scenario: &'static str,
    wall_ms: f64,
    floor_ms: f64,
    ratio: f64,
    work: crate::floor::Work,
}

/// Every scenario's seed 1 (default plan, references judged, its trace kept
/// as counts: as the fuzzer runs a case), timed, with the floor of its work at `prices`.
fn floor_rows(prices: &crate::floor::Prices) -> Vec<FloorRow> {
    let row = |s: &ftw_sim::scenario::ScenarioDef| {
        let _ = ftw_wire::noise::work::take();
        let spec = ftw_sim::RunSpec { trace: ftw_sim::trace::Keep::Counts, ..ftw_sim::scenario::spec(s.name, RunSeed(1)) };
        let wall = std::time::Instant::now(); // the tool's own wall clock, never seen by the run
        let r = ftw_sim::scenario::run(&spec).expect("known scenario");
        let wall_ms = wall.elapsed().as_secs_f64() * 1e3;
        let work = crate::floor::Work::of(&r, ftw_wire::noise::work::take());
        let floor_ms = work.floor_ms(prices);
        FloorRow { scenario: s.name, wall_ms, floor_ms, ratio: if floor_ms > 0.0 { wall_ms / floor_ms } else { 0.0 }, work }
    };
    ftw_sim::scenario::SCENARIOS.iter().map(|s| row(s)).collect()
}

/// The floor's prices and table, for people.
fn print_floor(p: &crate::floor::Prices, rows: &[FloorRow]) {
    println!(
        "floor prices (measured now): QUIC+TLS handshake {:.0} µs, QUIC datagram {:.1} µs, Noise handshake {:.0} µs, Noise message {:.2} µs + {:.2} ns a byte",
        p.quic_handshake_us,
        p.quic_datagram_us,
        p.noise_handshake_us,
        p.noise_msg_us,
        p.noise_byte_us * 1e3
    );
    println!(
        "  {:<28} {:>10} {:>9} {:>7}   work (QUIC handshakes, datagrams; Noise handshakes, messages, bytes)",
        "scenario (seed 1)", "wall ms", "floor ms", "ratio"
    );
    for r in rows {
        let w = &r.work;
        println!(
            "  {:<28} {:>10.1} {:>9.2} {:>7}   {}, {}; {}, {}, {}",
            r.scenario,
            r.wall_ms,
            r.floor_ms,
            if r.floor_ms > 0.0 { format!("{:.1}", r.ratio) } else { "-".into() },
            w.quic_handshakes,
            w.quic_datagrams,
            w.noise_handshakes,
            w.noise_msgs,
            w.noise_bytes
        );
    }
}

/// `--floor`: the prices and every scenario's seed 1 against its floor.
fn floor_main(a: &Args) -> ExitCode {
    let prices = crate::floor::measure();
    let rows = floor_rows(&prices);
    if a.json {
        println!("{}", serde_json::json!({ "floor_prices": prices, "floor": rows }));
    } else {
        print_floor(&prices, &rows);
    }
    ExitCode::SUCCESS
}

/// One scenario's seed 1: (verdict, simulated s, wall s, steps).
fn timed(name: &str) -> (Verdict, f64, f64, u64) {
    let wall = std::time::Instant::now(); // the tool's own wall clock, never seen by the run
    let r = ftw_sim::scenario::run(&ftw_sim::scenario::spec(name, RunSeed(1))).expect("known scenario");
    let wall_s = wall.elapsed().as_secs_f64();
    (r.verdict(), r.outcome.sim_elapsed.as_secs_f64(), wall_s, r.outcome.steps)
}

pub fn main(a: Args) -> ExitCode {
    if a.search {
        return search_main(&a);
    }
    if a.catch {
        return catch_main(&a);
    }
    if a.floor {
        return floor_main(&a);
    }
    speed(a)
}

/// The speed figures: an idle day, a session, the table, the streaming day, fuzz throughput.
fn speed(a: Args) -> ExitCode {
    if a.streaming_day {
        let (wall, d) = streaming_day();
        println!("streaming day: {:.0} sim s in {wall:.2} wall s = {:.0} sim s per wall s; {d:?}", d.sim_s, d.sim_s / wall);
        return ExitCode::SUCCESS;
    }
    let (v1, day_sim, day_wall, day_steps) = timed("idle-link");
    let (v2, ses_sim, ses_wall, ses_steps) = timed("quic-stream");
    let table_wall = std::time::Instant::now(); // the tool's own wall clock, never seen by the runs
    let table_rows = ftw_sim::table::run(&ftw_sim::table::TableOpts::default()).rows.len();
    let table_wall_s = table_wall.elapsed().as_secs_f64();
    let (day_stream_wall, day_stream) = streaming_day();
    let (fuzz_rate, per_scenario) = fuzz_throughput();
    let prices = crate::floor::measure();
    let floor = floor_rows(&prices);
    let per_json: Vec<serde_json::Value> =
        per_scenario.iter().map(|(n, c, ms)| serde_json::json!({ "scenario": n, "cases": c, "wall_ms_per_case": ms })).collect();
    if a.json {
        println!(
            "{}",
            serde_json::json!({
                "idle_day_wall_s": day_wall,
                "idle_day_sim_s_per_wall_s": day_sim / day_wall,
                "idle_day_steps": day_steps,
                "session_speedup": ses_sim / ses_wall,
                "session_wall_s": ses_wall,
                "session_steps": ses_steps,
                "table_wall_s": table_wall_s,
                "fuzz_cases_per_core_s": fuzz_rate,
                "fuzz_per_scenario": per_json,
                "streaming_day_wall_s": day_stream_wall,
                "streaming_day_sim_s_per_wall_s": day_stream.sim_s / day_stream_wall,
                "streaming_day_frames": day_stream.frames,
                "streaming_day_lives": day_stream.lives,
                "streaming_day_moves": day_stream.moves,
                "streaming_day_sessions": day_stream.sessions,
                "verdicts": [format!("{v1:?}"), format!("{v2:?}")],
                "floor_prices": prices,
                "floor": floor,
            })
        );
    } else {
        println!(
            "idle day (idle-link, seed 1): {day_sim:.0} sim s in {day_wall:.2} wall s = {:.0} sim s per wall s, {day_steps} steps [{v1:?}]",
            day_sim / day_wall
        );
        println!(
            "90 s session (quic-stream, seed 1): {ses_sim:.1} sim s in {ses_wall:.3} wall s = {:.0}x real time, {ses_steps} steps [{v2:?}]",
            ses_sim / ses_wall
        );
        println!("ftwsim table (seed 1, 30 samples, {table_rows} rows): {table_wall_s:.1} wall s");
        let d = &day_stream;
        println!(
            "streaming day (phone, box, cloud fleet over QUIC, 1 Hz lane 0 and lives, a move an hour, seed 1): {:.0} sim s in {day_stream_wall:.2} wall s = {:.0} sim s per wall s, {} steps; {} frames, {} lives, {} moves, {} session(s)",
            d.sim_s,
            d.sim_s / day_stream_wall,
            d.steps,
            d.frames,
            d.lives,
            d.moves,
            d.sessions
        );
        println!("fuzz throughput (60 s, one core, every scenario, equal time share): {fuzz_rate:.1} cases per second per core");
        for (n, c, ms) in &per_scenario {
            println!("  {n:<20} {c:>6} cases  {ms:>8.1} wall ms per case");
        }
        print_floor(&prices, &floor);
    }
    ExitCode::SUCCESS
}
