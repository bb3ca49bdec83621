//! `ftwsim`: run one seed, replay the corpus, fuzz, draw a timeline, list what
//! exists, measure speed, print the seed's tables. Each subcommand lives in
//! its own file under `cmd/`.

use std::process::ExitCode;

use clap::{Parser, Subcommand};
use ftw_properties::cmd;

#[derive(Parser)]
#[command(name = "ftwsim", about = "Deterministic simulation of the phone, box and cloud protocol", version)]
struct Cli {
    #[command(subcommand)]
    cmd: Cmd,
}

#[derive(Subcommand)]
enum Cmd {
    /// One run of a scenario from a seed.
    Run(cmd::run::Args),
    /// Draw a saved trace (`--trace` JSON lines) as a picture.
    Timeline(cmd::timeline::Args),
    /// Many drawn cases with swarm testing; failures become corpus entries.
    Fuzz(cmd::fuzz::Args),
    /// Several fuzzing shards or nights as one: failures grouped by signature, each new or known.
    Triage(cmd::triage::Args),
    /// Replay corpus entries (default: corpus/) and check each one's expectation.
    Replay(cmd::replay::Args),
    /// Scenarios, properties and bug switches, one a line.
    List(cmd::list::Args),
    /// The rule table: every rule of the SPEC, its laws, where they are judged, what breaks them (Markdown).
    Rules(cmd::rules::Args),
    /// Measure speed: a simulated idle day (idle-link) and a 90 s session (quic-stream).
    Bench(cmd::bench::Args),
    /// The seed's tables in the simulated rig: the system, the phone's view, an idle box's bytes.
    Table(cmd::table::Args),
}

fn main() -> ExitCode {
    // A closed pipe (`ftwsim run ... | head`) ends the process as it does any
    // Unix tool, instead of a panic in println!: the Rust runtime ignores SIGPIPE.
    // SAFETY: signal(2) with SIG_DFL at start-up, before any thread exists.
    unsafe {
        libc::signal(libc::SIGPIPE, libc::SIG_DFL);
    }
    ftw_sim::trace::init_logging();
    match Cli::parse().cmd {
        Cmd::Run(a) => cmd::run::main(a),
        Cmd::Timeline(a) => cmd::timeline::main(a),
        Cmd::Fuzz(a) => cmd::fuzz::main(a),
        Cmd::Triage(a) => cmd::triage::main(a),
        Cmd::Replay(a) => cmd::replay::main(a),
        Cmd::List(a) => cmd::list::main(a),
        Cmd::Rules(a) => cmd::rules::main(a),
        Cmd::Bench(a) => cmd::bench::main(a),
        Cmd::Table(a) => cmd::table::main(a),
    }
}
