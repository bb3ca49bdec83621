//! `ftwsim table`: the seed's measured tables (000, held back there) computed in
//! the simulated rig. Three tables:
//!
//! 1. `system`: phone, cloud and box, both legs 20 ms each way with 0, 1 and 5 %
//!    loss, WebSocket on both legs or QUIC on both: cold connect and reconnect to
//!    the first live number, tap to ack, tunnel frame and copy live box to phone,
//!    network switch to live again, the age of the newest value at the phone.
//! 2. `phone`: only the phone's leg shaped: scan to streaming, tap to ack,
//!    background to streaming, for the WebSocket, QUIC and the race.
//! 3. `idle`: IP bytes per day of an idle box's uplink, QUIC with and without
//!    path MTU probing, and the WebSocket.
//!
//! Every sample is a simulated run or a phase of one; each run's seed is derived
//! from the table's seed and the run's name, so the whole output is a pure
//! function of `(seed, samples)`. Times are simulated (`crate::world::time::now()`).

pub(crate) mod consts;
pub mod day;
pub mod fit;
pub(crate) mod probe;
pub(crate) mod profile;
pub(crate) mod render;
pub(crate) mod rig;
pub(crate) mod runs;
pub(crate) mod spread;

use ftw_phone::Transport;
use serde::Serialize;

use crate::world::seed::RunSeed;
pub use profile::Profile;
use runs::{Cond, PhoneVia, Sample, CONDS};

/// What `ftwsim table` is asked for.
#[derive(Clone, Copy, Debug)]
pub struct TableOpts {
    pub seed: RunSeed,
    /// Connects and taps per row (and switches, scans, returns).
    pub samples: usize,
    /// The rig, or the protocol's floor.
    pub profile: Profile,
}

impl Default for TableOpts {
    fn default() -> Self {
        TableOpts { seed: RunSeed(consts::SEED_DEFAULT), samples: consts::SAMPLES_DEFAULT, profile: Profile::default() }
    }
}

/// One row of a table: one measure, one link condition, one transport.
#[derive(Clone, Debug, Serialize, PartialEq)]
pub struct Row {
    /// `system`, `phone` or `idle`.
    pub table: &'static str,
    /// `40ms`, `40ms+1%`, `40ms+5%`.
    pub link: &'static str,
    /// `websocket`, `quic`, `race`.
    pub transport: &'static str,
    /// The row's name.
    pub what: String,
    pub p50_ms: Option<f64>,
    pub p95_ms: Option<f64>,
    /// Samples that finished.
    pub n: usize,
    /// Samples that did not finish within their bound.
    pub failed: usize,
    /// Counted rows (copy live): how many of those sent arrived.
    pub arrived: Option<u64>,
    pub sent: Option<u64>,
    /// Table 3: IP bytes per day.
    pub bytes_per_day: Option<u64>,
    /// Table 3: path MTU probing on.
    pub mtu_probing: Option<bool>,
    /// QUIC's network switch: lane-0 ticks that never reached the phone (the seed: 0).
    pub ticks_missed: Option<u64>,
    /// Every finished sample, ms (for the CSV and the pictures; not in the JSON).
    #[serde(skip)]
    pub samples_ms: Vec<f64>,
}

/// All three tables.
#[derive(Clone, Debug)]
pub struct Tables {
    pub seed: RunSeed,
    pub samples: usize,
    pub profile: Profile,
    pub rows: Vec<Row>,
}

/// The row names, in table order.
pub mod what {
    pub const COLD: &str = "cold connect -> first live number";
    pub const RECONNECT: &str = "reconnect -> first live number";
    pub const TAP: &str = "tap -> ack";
    pub const FRAME: &str = "tunnel frame, box -> phone";
    pub const LIVE: &str = "copy live, box -> phone";
    pub const SWITCH: &str = "network switch -> live again";
    pub const AGE: &str = "age of the newest value at the phone";
    pub const SCAN: &str = "scan -> streaming";
    pub const BACKGROUND: &str = "background -> streaming";
    pub const IDLE: &str = "idle box, IP bytes per day";
}

/// Nearest-rank percentile of sorted samples.
pub fn percentile(sorted: &[f64], p: f64) -> Option<f64> {
    if sorted.is_empty() {
        return None;
    }
    assert!(sorted.windows(2).all(|w| w[0] <= w[1]), "percentile of unsorted samples");
    let rank = ((p / 100.0) * sorted.len() as f64).ceil().max(1.0) as usize;
    Some(sorted[rank.min(sorted.len()) - 1])
}

pub fn transport_name(t: Transport) -> &'static str {
    match t {
        Transport::Quic => "quic",
        Transport::WebSocket => "websocket",
    }
}

fn row(table: &'static str, c: Cond, transport: &'static str, what: &str, samples: &[Sample]) -> Row {
    let mut done: Vec<f64> = samples.iter().flatten().copied().collect();
    done.sort_by(|a, b| a.total_cmp(b));
    Row {
        table,
        link: c.name,
        transport,
        what: what.to_string(),
        p50_ms: percentile(&done, 50.0),
        p95_ms: percentile(&done, 95.0),
        n: done.len(),
        failed: samples.len() - done.len(),
        arrived: None,
        sent: None,
        bytes_per_day: None,
        mtu_probing: None,
        ticks_missed: None,
        samples_ms: done,
    }
}

fn sub(seed: RunSeed, name: &str) -> RunSeed {
    RunSeed(seed.sub_seed(&format!("table.{name}")))
}

const TRANSPORTS: [Transport; 2] = [Transport::WebSocket, Transport::Quic];

/// How many groups of rows [`run_with`] reports: one per condition and
/// transport of table 1, per condition and way of table 2, per row of table 3.
pub fn row_groups() -> usize {
    CONDS.len() * TRANSPORTS.len() + CONDS.len() * 3 + 3
}

/// Run every table. Sequential: one run at a time.
pub fn run(opts: &TableOpts) -> Tables {
    run_with(opts, &mut |_| {})
}

/// [`run`], calling `done` with a name after each of the [`row_groups`]
/// (for a progress bar; nothing of the run depends on it).
pub fn run_with(opts: &TableOpts, done: &mut dyn FnMut(&str)) -> Tables {
    assert!(opts.samples > 0, "at least one sample per row");
    let (seed, n, pr) = (opts.seed, opts.samples, opts.profile);
    let mut rows = Vec::new();
    // Table 1: the system.
    let mut by_what: Vec<Vec<Row>> = vec![Vec::new(); 7];
    for c in CONDS {
        for t in TRANSPORTS {
            let tn = transport_name(t);
            let (cold, warm) = runs::connects(sub(seed, &format!("system.{}.{tn}.connects", c.name)), c, t, n, pr);
            let s = runs::stream(sub(seed, &format!("system.{}.{tn}.stream", c.name)), c, t, n, pr);
            let mut live = row("system", c, tn, what::LIVE, &s.live.iter().map(|v| Some(*v)).collect::<Vec<_>>());
            live.arrived = Some(s.live_arrived);
            live.sent = Some(s.live_sent);
            let got = [
                row("system", c, tn, what::COLD, &cold),
                row("system", c, tn, what::RECONNECT, &warm),
                row("system", c, tn, what::TAP, &s.taps),
                row("system", c, tn, what::FRAME, &s.lane0.iter().map(|v| Some(*v)).collect::<Vec<_>>()),
                live,
                Row { ticks_missed: s.ticks_missed, ..row("system", c, tn, what::SWITCH, &s.switches) },
                row("system", c, tn, what::AGE, &s.age.iter().map(|v| Some(*v)).collect::<Vec<_>>()),
            ];
            for (i, r) in got.into_iter().enumerate() {
                by_what[i].push(r);
            }
            done(&format!("system {} {tn}", c.name));
        }
    }
    rows.extend(by_what.into_iter().flatten());
    // Table 2: the phone's own view.
    let mut by_what: Vec<Vec<Row>> = vec![Vec::new(); 3];
    for c in CONDS {
        for v in [PhoneVia::Only(Transport::WebSocket), PhoneVia::Only(Transport::Quic), PhoneVia::Race] {
            let tn = match v {
                PhoneVia::Only(t) => transport_name(t),
                PhoneVia::Race => "race",
            };
            let p = runs::phone_view(sub(seed, &format!("phone.{}.{tn}", c.name)), c, v, n, pr);
            by_what[0].push(row("phone", c, tn, what::SCAN, &p.scans));
            by_what[1].push(row("phone", c, tn, what::TAP, &p.taps));
            by_what[2].push(row("phone", c, tn, what::BACKGROUND, &p.returns));
            done(&format!("phone {} {tn}", c.name));
        }
    }
    rows.extend(by_what.into_iter().flatten());
    // Table 3: an idle box, at 40 ms without loss.
    let c = CONDS[0];
    for (t, mtu) in [(Transport::WebSocket, false), (Transport::Quic, true), (Transport::Quic, false)] {
        let tn = transport_name(t);
        let bytes = runs::idle_day(sub(seed, &format!("idle.{tn}.mtu-{mtu}")), c, t, mtu, pr);
        let mut r = row("idle", c, tn, what::IDLE, &[]);
        r.bytes_per_day = Some(bytes);
        r.mtu_probing = Some(mtu);
        rows.push(r);
        done(&format!("idle {tn} mtu-probing={mtu}"));
    }
    Tables { seed, samples: n, profile: pr, rows }
}

/// `ftwsim table`: parse the seed, run, and return what goes on stdout
/// (Markdown, or the JSON rows); with `out`, also write the CSV and pictures
/// there. `Err` is a one-line message about bad input.
pub fn command_line(seed: &str, samples: usize, profile: &str, json: bool, out: Option<&std::path::Path>) -> Result<String, String> {
    command_line_with(seed, samples, profile, json, out, &mut |_| {})
}

/// [`command_line`], calling `done` after each group of rows ([`run_with`]).
pub fn command_line_with(
    seed: &str,
    samples: usize,
    profile: &str,
    json: bool,
    out: Option<&std::path::Path>,
    done: &mut dyn FnMut(&str),
) -> Result<String, String> {
    let seed = crate::world::seed::parse_seed(seed).map_err(|e| format!("--seed: {e}"))?;
    if samples == 0 {
        return Err("--samples: must be at least 1".into());
    }
    let profile = Profile::parse(profile).map_err(|e| format!("--profile: {e}"))?;
    let t = run_with(&TableOpts { seed, samples, profile }, done);
    if let Some(dir) = out {
        render::write_out(&t, dir).map_err(|e| format!("--out {}: {e}", dir.display()))?;
    }
    Ok(if json { render::json(&t) + "\n" } else { render::markdown(&t) })
}

/// `ftwsim table --seeds N` (N > 1): the tables on N seeds from `seed`, each
/// figure as its median and range ([`spread`]); Markdown or JSON.
pub fn command_line_seeds(seed: &str, samples: usize, profile: &str, seeds: usize, json: bool, done: &mut dyn FnMut(&str)) -> Result<String, String> {
    let seed = crate::world::seed::parse_seed(seed).map_err(|e| format!("--seed: {e}"))?;
    if samples == 0 {
        return Err("--samples: must be at least 1".into());
    }
    let profile = Profile::parse(profile).map_err(|e| format!("--profile: {e}"))?;
    let ts = spread::run_seeds(&TableOpts { seed, samples, profile }, seeds, done);
    Ok(if json { spread::json(&ts) + "\n" } else { spread::markdown(&ts) })
}
