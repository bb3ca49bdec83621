//! `ftwsim table`: the seed's tables in the simulated rig.

use std::path::PathBuf;
use std::process::ExitCode;

use super::bad_input;

/// The seed's tables in the simulated rig: the system, the phone's view, an idle box's bytes.
#[derive(clap::Args)]
pub struct Args {
    /// Connects and taps per row.
    #[arg(long, default_value_t = 30, value_parser = clap::value_parser!(u64).range(1..=10_000))]
    samples: u64,
    #[arg(long, default_value = "1")]
    seed: String,
    /// The rig to run: `rig` (the seed's, as far as it is known: Linux's TCP,
    /// quic-go's timing, host processing) or `ideal` (the protocol's floor).
    #[arg(long, default_value = "rig")]
    profile: String,
    /// Every number as one JSON object: the profile and the rows.
    #[arg(long)]
    json: bool,
    /// Also write CSV and one SVG per row's distribution here (one seed only).
    #[arg(long)]
    out: Option<PathBuf>,
    /// Run the whole table on this many seeds (from --seed on) and print each
    /// p50 and p95 as the median over them with its range.
    #[arg(long, default_value_t = 1, value_parser = clap::value_parser!(u64).range(1..=1_000))]
    seeds: u64,
    /// Instead: fit the hosts' processing on the seed's four figures (tunnel
    /// frame and cold connect p50 at 40 ms, each transport) and print every
    /// value tried, the best, and the profile's value.
    #[arg(long)]
    fit: bool,
}

/// `--fit`: a grid of service times per transport, 1 to 8 ms in 0.25 ms steps.
fn fit_main(a: &Args) -> ExitCode {
    let seed = match ftw_sim::parse_seed(&a.seed) {
        Ok(s) => s,
        Err(e) => return bad_input(&format!("--seed: {e}")),
    };
    let grid: Vec<u64> = (4..=32).map(|q| q * 250).collect();
    let rig = ftw_sim::net::processing::RIG_PROCESSING;
    for (t, name, now) in [(ftw_phone::Transport::WebSocket, "tcp_us", rig.tcp_us), (ftw_phone::Transport::Quic, "udp_us", rig.udp_us)] {
        let targets: Vec<String> = ftw_sim::table::fit::FIT_TARGETS.iter().filter(|x| x.1 == t).map(|x| format!("{} {:.0} ms", x.0, x.2)).collect();
        println!("{name} ({}; seed's p50: {}):", t.name(), targets.join(", "));
        let tried = ftw_sim::table::fit::search(seed, a.samples as usize, t, &grid);
        for x in &tried {
            println!("  {name} = {:>5}: p50 {:>6.1} / {:>6.1} ms, error {:.5}", x.us, x.p50[0], x.p50[1], x.err);
        }
        let best = tried.iter().min_by(|x, y| x.err.total_cmp(&y.err)).expect("a grid");
        println!("  best {name} = {} (the profile has {now})", best.us);
    }
    ExitCode::SUCCESS
}

pub fn main(a: Args) -> ExitCode {
    if a.fit {
        return fit_main(&a);
    }
    if a.seeds > 1 && a.out.is_some() {
        return bad_input("--out: writes one seed's samples; leave it out with --seeds above 1");
    }
    let bar = crate::progress::bar(ftw_sim::table::row_groups() as u64 * a.seeds, "row groups");
    bar.set_prefix("table");
    let mut done = |name: &str| {
        bar.inc(1);
        bar.set_message(name.to_string());
    };
    let result = if a.seeds > 1 {
        ftw_sim::table::command_line_seeds(&a.seed, a.samples as usize, &a.profile, a.seeds as usize, a.json, &mut done)
    } else {
        ftw_sim::table::command_line_with(&a.seed, a.samples as usize, &a.profile, a.json, a.out.as_deref(), &mut done)
    };
    bar.finish_and_clear();
    match result {
        Ok(text) => {
            print!("{text}");
            ExitCode::SUCCESS
        }
        Err(e) => bad_input(&e),
    }
}
