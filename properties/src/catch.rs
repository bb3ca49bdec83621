//! Time to first catch, per switch (issue 14 section 7): for each bug switch,
//! `ftwsim fuzz --switch S` on the scenarios whose laws it breaks, from five
//! seed blocks (block b starts at b x 2^32), stopping at the first failure;
//! the median wall time to it. What `ftwsim bench --catch` prints.

use ftw_sim::switch::{Switch, Switches};

use crate::fuzz::{fuzz, FuzzOpts, Stop};

/// One switch's catches.
#[derive(Clone, Debug, serde::Serialize)]
pub struct Catch {
    pub switch: &'static str,
    pub scenarios: Vec<&'static str>,
    /// Wall seconds to the first failure in each block (None: not within the limit).
    pub found_after_s: Vec<Option<f64>>,
    /// The median over the blocks (None when half or more were not caught).
    pub median_s: Option<f64>,
    /// Cases run to the first failure in each block (its case number + 1: the
    /// cases handed out before it, whatever the machine's speed).
    pub cases: Vec<Option<u64>>,
    /// The median of `cases` (None as for `median_s`).
    pub median_cases: Option<u64>,
}

/// The seed block `b` starts here: far apart, so blocks never overlap.
const BLOCK: u64 = 1 << 32;

/// Time to first catch of `switch` from `blocks` seed blocks, each run at most
/// `limit_s`, by the guided search or the unguided one.
pub fn catch(switch: Switch, blocks: u64, limit_s: u64, jobs: usize, guided: bool) -> Catch {
    let scenarios = crate::laws::scenarios_for([switch.name()]);
    let finds = (1..=blocks).map(|b| first_find(switch, &scenarios, b * BLOCK, limit_s, jobs, guided)).collect();
    of_finds(switch, scenarios, finds)
}

/// Both searches' catches of `switch`, `(guided, unguided)`, block by block:
/// the two run one after the other on the same block, the guided one first in
/// odd blocks and second in even ones, so whatever drifts over the run (the
/// machine's clock speed, its other load, the process warming up) falls on both
/// alike instead of on whichever search runs its blocks last.
pub fn catch_pair(switch: Switch, blocks: u64, limit_s: u64, jobs: usize) -> (Catch, Catch) {
    let scenarios = crate::laws::scenarios_for([switch.name()]);
    let (mut guided, mut unguided) = (Vec::new(), Vec::new());
    for b in 1..=blocks {
        let run = |g: bool| first_find(switch, &scenarios, b * BLOCK, limit_s, jobs, g);
        let (g, u) = if b % 2 == 1 {
            let g = run(true);
            (g, run(false))
        } else {
            let u = run(false);
            (run(true), u)
        };
        guided.push(g);
        unguided.push(u);
    }
    (of_finds(switch, scenarios.clone(), guided), of_finds(switch, scenarios, unguided))
}

/// One search's catch from its blocks' first failures.
fn of_finds(switch: Switch, scenarios: Vec<&'static str>, finds: Vec<Option<(f64, u64)>>) -> Catch {
    let (found, cases): (Vec<Option<f64>>, Vec<Option<u64>>) = finds.into_iter().map(Option::unzip).unzip();
    let median_cases = median(&cases.iter().map(|c| c.map(|c| c as f64)).collect::<Vec<_>>()).map(|m| m as u64);
    Catch { switch: switch.name(), scenarios, median_s: median(&found), found_after_s: found, cases, median_cases }
}

/// The first failure of one block: its wall seconds and its case number + 1.
fn first_find(switch: Switch, scenarios: &[&str], seed_from: u64, limit_s: u64, jobs: usize, guided: bool) -> Option<(f64, u64)> {
    let out_dir = std::env::temp_dir().join(format!("ftwsim-catch-found-{}", std::process::id()));
    let opts = FuzzOpts {
        stop: Stop::Time(limit_s),
        property: None,
        scenarios: scenarios.iter().map(|s| s.to_string()).collect(),
        switches: Switches([switch].into_iter().collect()),
        quic: Default::default(),
        shard: (0, 1),
        seed_from,
        out_dir: out_dir.clone(),
        determinism_every: u64::MAX,
        jobs,
        progress: false,
        first_only: true,
        guide: crate::fuzz::Guide { on: guided, ..Default::default() },
        known: Default::default(),
    };
    let s = fuzz(&opts);
    let _ = std::fs::remove_dir_all(&out_dir); // a catch's entries are not kept: only its time counts
    s.ok()?.failures.iter().map(|f| (f.found_after_s, f.case + 1)).min_by(|a, b| a.0.total_cmp(&b.0))
}

/// The median of the catches, counting a miss as longer than any catch.
fn median(found: &[Option<f64>]) -> Option<f64> {
    let mut v: Vec<f64> = found.iter().map(|f| f.unwrap_or(f64::INFINITY)).collect();
    v.sort_by(|a, b| a.total_cmp(b));
    let m = if v.is_empty() { f64::INFINITY } else { v[(v.len() - 1) / 2] };
    m.is_finite().then_some(m)
}

#[cfg(test)]
mod tests {
    use super::median;

    #[test]
    fn the_median_counts_misses_as_longest() {
        assert_eq!(median(&[Some(3.0), None, Some(1.0)]), Some(3.0));
        assert_eq!(median(&[None, None, Some(1.0)]), None);
        assert_eq!(median(&[Some(2.0), Some(4.0), Some(1.0), Some(9.0), Some(5.0)]), Some(4.0));
    }
}
