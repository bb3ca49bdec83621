//! `ftwsim bench --search` (issue 36 point 4): the guided search against the
//! unguided one on the same budget and seeds: protocol-state keys reached over
//! the budget for each, and for every bug switch the median time to first catch
//! over seed blocks for each ([`crate::catch`]).

use ftw_sim::switch::Switch;
use serde::Serialize;

use crate::catch::{catch_pair, Catch};
use crate::coverage::Growth;
use crate::fuzz::{fuzz, FuzzOpts, Guide, Stop};

/// What one search reached.
#[derive(Clone, Debug, Serialize)]
pub struct Reach {
    pub guided: bool,
    pub cases: u64,
    pub wall_s: f64,
    pub keys: u64,
    pub kept: u64,
    pub failures: usize,
    pub key_growth: Vec<Growth>,
}

/// One switch caught by both searches.
#[derive(Clone, Debug, Serialize)]
pub struct Catches {
    pub switch: &'static str,
    pub guided: Catch,
    pub unguided: Catch,
}

/// The budget and the seeds both searches get.
#[derive(Clone, Debug)]
pub struct Budget {
    pub stop: Stop,
    pub seed_from: u64,
    pub jobs: usize,
    pub scenarios: Vec<String>,
}

/// Run one search (no determinism checks: both spend the budget on cases alike).
pub fn reach(b: &Budget, guided: bool) -> Result<Reach, String> {
    let opts = FuzzOpts {
        stop: b.stop,
        property: None,
        scenarios: b.scenarios.clone(),
        switches: Default::default(),
        quic: Default::default(),
        shard: (0, 1),
        seed_from: b.seed_from,
        out_dir: std::env::temp_dir().join(format!("ftwsim-search-found-{}", std::process::id())),
        determinism_every: u64::MAX,
        jobs: b.jobs,
        progress: false,
        first_only: false,
        guide: Guide { on: guided, ..Guide::default() },
        known: Default::default(),
    };
    let s = fuzz(&opts)?;
    Ok(Reach { guided, cases: s.cases, wall_s: s.wall_s, keys: s.keys, kept: s.kept, failures: s.failures.len(), key_growth: s.key_growth })
}

/// Keys reached by `at` (wall seconds, or cases under a case budget).
pub fn keys_at(r: &Reach, at: f64, by_cases: bool) -> usize {
    let x = |g: &Growth| if by_cases { g.case as f64 } else { g.wall_s };
    r.key_growth.iter().take_while(|g| x(g) <= at).last().map_or(0, |g| g.keys)
}

/// Both searches' catches of every switch of `switches`.
pub fn catches(switches: &[Switch], blocks: u64, limit_s: u64, jobs: usize) -> Vec<Catches> {
    switches
        .iter()
        .map(|&w| {
            let (guided, unguided) = catch_pair(w, blocks, limit_s, jobs);
            Catches { switch: w.name(), guided, unguided }
        })
        .collect()
}

/// The keys table for people: eight points over the budget, then the totals.
pub fn render_reach(g: &Reach, u: &Reach, stop: Stop) -> String {
    let (end, by_cases, unit) = match stop {
        Stop::Time(s) => (s as f64, false, "s"),
        Stop::Cases(n) => (n as f64, true, "cases"),
    };
    let mut s = format!("protocol-state keys reached ({unit}: guided, unguided)\n");
    for i in 1..=8 {
        let at = end * i as f64 / 8.0;
        s.push_str(&format!("  {at:>8.0} {unit:<5}  {:>6}  {:>6}\n", keys_at(g, at, by_cases), keys_at(u, at, by_cases)));
    }
    for r in [g, u] {
        s.push_str(&format!(
            "  {:<8} {} keys in {} cases, {:.1} s; {} plans kept; {} failures\n",
            if r.guided { "guided" } else { "unguided" },
            r.keys,
            r.cases,
            r.wall_s,
            r.kept,
            r.failures
        ));
    }
    s
}

/// One line a switch: both medians and their blocks.
pub fn render_catch(c: &Catches, limit_s: u64) -> String {
    let med = |c: &Catch| match (c.median_s, c.median_cases) {
        (Some(s), Some(n)) => format!("{s:.2} s {n:>4} cases"),
        _ => format!("> {limit_s} s"),
    };
    let blocks = |c: &Catch| c.found_after_s.iter().map(|f| f.map_or(format!(">{limit_s}"), |s| format!("{s:.1}"))).collect::<Vec<_>>().join(", ");
    format!("{:<28} guided {:<17} [{}]  unguided {:<17} [{}]", c.switch, med(&c.guided), blocks(&c.guided), med(&c.unguided), blocks(&c.unguided))
}
