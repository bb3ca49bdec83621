//! `ftwsim table --seeds N` (issue 34 section 3): the whole table on N seeds,
//! each figure as the median over the seeds with its range, so a reader sees
//! which figures a 30-sample measurement pins down and which it cannot. Pure
//! functions of the tables each seed gave.

use std::fmt::Write as _;

use super::{percentile, RunSeed, TableOpts, Tables};

/// The tables of `seeds` seeds from `opts.seed` on (seed, seed + 1, ...).
pub fn run_seeds(opts: &TableOpts, seeds: usize, done: &mut dyn FnMut(&str)) -> Vec<Tables> {
    assert!(seeds > 0, "at least one seed");
    (0..seeds as u64).map(|i| super::run_with(&TableOpts { seed: RunSeed(opts.seed.0.wrapping_add(i)), ..*opts }, done)).collect()
}

/// One figure over the seeds: its median (nearest rank) and range, None
/// where some seed had no value.
#[derive(Clone, Copy, Debug, PartialEq, serde::Serialize)]
pub struct Spread {
    pub median: f64,
    pub min: f64,
    pub max: f64,
}

/// The spread of `values`, one per seed; None if any is missing.
pub fn spread(values: &[Option<f64>]) -> Option<Spread> {
    let mut v: Vec<f64> = values.iter().copied().collect::<Option<_>>()?;
    v.sort_by(f64::total_cmp);
    Some(Spread { median: percentile(&v, 50.0)?, min: v[0], max: v[v.len() - 1] })
}

fn cell(s: Option<Spread>) -> String {
    s.map_or("-".into(), |s| format!("{:.0} [{:.0}–{:.0}]", s.median, s.min, s.max))
}

/// The row at `i` of every seed's tables (the same row: the order is fixed).
fn figure(ts: &[Tables], i: usize, f: impl Fn(&super::Row) -> Option<f64>) -> Option<Spread> {
    spread(&ts.iter().map(|t| f(&t.rows[i])).collect::<Vec<_>>())
}

/// The tables as Markdown: each p50 and p95 as "median [min–max]" over the seeds.
pub fn markdown(ts: &[Tables]) -> String {
    let first = &ts[0];
    let mut s = String::new();
    let last = first.seed.0.wrapping_add(ts.len() as u64 - 1);
    let _ = writeln!(
        s,
        "Made by `{} --seeds {}` (seeds {} to {last}, {} samples per row; simulated time). Each figure: the median over the seeds [the lowest – the highest].\n",
        super::render::command(first),
        ts.len(),
        first.seed.0,
        first.samples
    );
    let _ = writeln!(s, "The rig: {}.\n", first.profile.describe());
    s.push_str("| table | what | link | transport | p50 ms | p95 ms |\n|---|---|---|---|---|---|\n");
    for (i, r) in first.rows.iter().enumerate() {
        let (p50, p95) = match r.bytes_per_day {
            Some(_) => (figure(ts, i, |r| r.bytes_per_day.map(|b| b as f64)), None),
            None => (figure(ts, i, |r| r.p50_ms), figure(ts, i, |r| r.p95_ms)),
        };
        let what = match (r.bytes_per_day, r.transport, r.mtu_probing) {
            (None, _, _) => r.what.clone(),
            (Some(_), "websocket", _) => format!("{} (bytes)", r.what),
            (Some(_), _, probing) => format!("{} (bytes; path MTU probing {})", r.what, if probing == Some(true) { "on" } else { "off" }),
        };
        let _ = writeln!(s, "| {} | {what} | {} | {} | {} | {} |", r.table, r.link, r.transport, cell(p50), cell(p95));
    }
    s
}

/// The tables as JSON: the seeds, and per row its p50 and p95 spreads with every seed's value.
pub fn json(ts: &[Tables]) -> String {
    let rows: Vec<serde_json::Value> = ts[0]
        .rows
        .iter()
        .enumerate()
        .map(|(i, r)| {
            let each = |f: fn(&super::Row) -> Option<f64>| ts.iter().map(|t| f(&t.rows[i])).collect::<Vec<_>>();
            serde_json::json!({
                "table": r.table, "what": r.what, "link": r.link, "transport": r.transport,
                "p50_ms": figure(ts, i, |r| r.p50_ms), "p95_ms": figure(ts, i, |r| r.p95_ms),
                "p50_each": each(|r| r.p50_ms), "p95_each": each(|r| r.p95_ms),
                "bytes_per_day": figure(ts, i, |r| r.bytes_per_day.map(|b| b as f64)),
            })
        })
        .collect();
    let seeds: Vec<u64> = ts.iter().map(|t| t.seed.0).collect();
    serde_json::json!({ "seeds": seeds, "samples": ts[0].samples, "profile": ts[0].profile.name(), "rows": rows }).to_string()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_spread_is_the_median_and_the_range_or_nothing() {
        assert_eq!(spread(&[Some(3.0), Some(1.0), Some(2.0)]), Some(Spread { median: 2.0, min: 1.0, max: 3.0 }));
        assert_eq!(spread(&[Some(3.0), None]), None);
        assert_eq!(cell(spread(&[Some(40.4), Some(60.6)])), "40 [40–61]");
    }
}
