//! Law `processing-agrees-with-spec`: each datagram's service time at the host
//! that received it, judged against docs/fault-plans.md ("Host processing and
//! slow hosts"), not against `world/net/processing.rs` (issue 32 section 1):
//!
//! - with a `[processing]` plan, a host pays a service time per datagram it
//!   receives, uniform within `spread_pct` either side of the plan's median
//!   (`udp_us`, or `tcp_us` for a TCP segment), in whole microseconds;
//! - pipelined: a datagram is never ready before the one that arrived ahead of
//!   it at the same host, and there is no throughput ceiling;
//! - while a `slow_host` fault acts on the host, every datagram it receives
//!   costs ten times the profile's (the rig's when the plan has none);
//! - with neither, a datagram is ready the moment it arrives.

use std::collections::BTreeMap;
use std::time::Duration;

use crate::law::rules;
use crate::law::{Judge, Law};
use crate::world::journal::processing::ProcessingStep;
use crate::world::journal::{Entry, Step};
use crate::world::net::processing::ProcessingPlan;

use crate::world::plant::Bug;

use super::{differs, Lockstep, Reference, R};

pub const PROCESSING: Reference = Reference {
    law: Law::new("processing-agrees-with-spec", "each datagram's service time at its host is the plan's (uniform over the spread of the UDP or TCP median: its mean the median, both ends of the spread reached; ten times it while the host is slow), pipelined, never ahead of the datagram before it (docs/fault-plans.md)").checks(&[&rules::HOST_SERVICE_TIME])
        .judged(Judge::Journal(check)),
    planted: &[Bug::ProcessingReorders],
};

/// docs/fault-plans.md: "every datagram it receives then costs ten times the profile's".
const SLOW_TIMES: u64 = 10;

struct Setup {
    plan: Option<ProcessingPlan>,
    rig: ProcessingPlan,
    slow: Vec<(String, Duration, Duration)>,
}

/// Service times seen whole (the host had nothing ahead), by (median, spread, times):
/// their sum in µs, count, least and most, to judge the draw's uniformity.
type Draws = BTreeMap<(u64, u64, u64), Seen>;

/// What a run's whole service times of one kind add up to.
#[derive(Clone, Copy, Debug)]
struct Seen {
    sum: f64,
    n: u64,
    min: f64,
    max: f64,
}

impl Default for Seen {
    fn default() -> Self {
        Seen { sum: 0.0, n: 0, min: f64::INFINITY, max: f64::NEG_INFINITY }
    }
}

/// The law's check: `None` when no host received a datagram under a profile.
pub fn check(journal: &[Entry]) -> Option<Lockstep> {
    let mut setup: Option<Setup> = None;
    let mut ahead: BTreeMap<&str, Duration> = BTreeMap::new();
    let mut draws = Draws::new();
    let mut steps = 0;
    for (index, e) in journal.iter().enumerate() {
        let Step::Processing(s) = &e.step else { continue };
        let r = match (s, &setup) {
            (ProcessingStep::Setup { plan, rig, slow }, _) => {
                setup = Some(Setup { plan: *plan, rig: *rig, slow: slow.clone() });
                Ok(())
            }
            (ProcessingStep::Served { arrival, tcp, ready }, Some(su)) => {
                steps += 1;
                served(su, (ahead.entry(e.host.as_str()).or_default(), &mut draws), &e.host, *arrival, *tcp, *ready)
            }
            (ProcessingStep::Served { .. }, None) => differs("a datagram served", "a processing set up first"),
        };
        if let Err((model, spec)) = r {
            return Some(Lockstep::Differs { index, entry: e.describe(), model, spec });
        }
    }
    if steps == 0 {
        return None;
    }
    let mut unjudged = Vec::new();
    for ((median, spread, times), d) in &draws {
        let half = median * spread.min(&100) / 100;
        let (lo, hi) = (((median - half) * times) as f64, ((median + half) * times) as f64);
        let what = format!("service time about {median} µs x{times}");
        let r = super::uniform_mean(&what, d.sum, d.n, (lo, hi), &mut unjudged)
            .and_then(|()| super::uniform_cover(&what, (d.min, d.max, d.n), (lo, hi), &mut unjudged));
        if let Err((model, spec)) = r {
            return Some(Lockstep::Differs { index: journal.len(), entry: "the whole run's service times".into(), model, spec });
        }
    }
    Some(if unjudged.is_empty() { Lockstep::Agreed { steps } } else { Lockstep::Unjudged { steps, unjudged } })
}

/// One datagram: `ahead` is when the host had the datagram before it ready.
fn served(su: &Setup, (ahead, draws): (&mut Duration, &mut Draws), host: &str, arrival: Duration, tcp: bool, ready: Duration) -> R {
    let slow = su.slow.iter().any(|(h, from, until)| h == host && *from <= arrival && arrival < *until);
    let profile = match (slow, su.plan) {
        (true, p) => Some((p.unwrap_or(su.rig), SLOW_TIMES)),
        (false, Some(p)) => Some((p, 1)),
        (false, None) => None,
    };
    let Some((p, times)) = profile else {
        return match ready == arrival {
            true => Ok(()),
            false => differs(
                format!("ready {} µs after it arrived", (ready.saturating_sub(arrival)).as_micros()),
                "ready on arrival: no processing in the plan and the host is not slow",
            ),
        };
    };
    let median = if tcp { p.tcp_us } else { p.udp_us };
    let half = median * p.spread_pct.min(100) / 100;
    let (lo, hi) = (Duration::from_micros((median - half) * times), Duration::from_micros((median + half) * times));
    let spec = format!(
        "{} to {} µs after it arrived{}, and not before the datagram ahead of it ({} µs)",
        lo.as_micros(),
        hi.as_micros(),
        if slow { " (a slow host: ten times)" } else { "" },
        ahead.as_micros()
    );
    let took = ready.checked_sub(arrival);
    // Waiting behind the one ahead may make it later than its own service, never earlier.
    let fits = ready >= *ahead && took.is_some_and(|t| t >= lo && (t <= hi || ready == *ahead));
    if !fits {
        return differs(format!("ready at {} µs, {} µs after it arrived", ready.as_micros(), took.map_or(-1, |t| t.as_micros() as i128)), spec);
    }
    if *ahead <= arrival {
        let d = draws.entry((median, p.spread_pct, times)).or_default();
        let t = (ready - arrival).as_micros() as f64;
        (d.sum, d.n, d.min, d.max) = (d.sum + t, d.n + 1, d.min.min(t), d.max.max(t));
    }
    *ahead = ready;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    const P: ProcessingPlan = ProcessingPlan { udp_us: 4_000, tcp_us: 3_000, spread_pct: 50 };

    fn e(host: &str, step: ProcessingStep) -> Entry {
        Entry { t_ms: 0, host: host.into(), step: Step::Processing(step) }
    }

    fn served(arrival_us: u64, ready_us: u64) -> Entry {
        e("phone", ProcessingStep::Served { arrival: Duration::from_micros(arrival_us), tcp: false, ready: Duration::from_micros(ready_us) })
    }

    fn setup(plan: Option<ProcessingPlan>, slow: Vec<(String, Duration, Duration)>) -> Entry {
        e("world", ProcessingStep::Setup { plan, rig: P, slow })
    }

    #[test]
    fn within_the_spread_and_in_order_agrees() {
        let j = vec![setup(Some(P), vec![]), served(0, 2_000), served(100, 6_100), served(200, 6_100)];
        assert!(matches!(check(&j), Some(Lockstep::Unjudged { steps: 3, .. })), "agrees, too few draws to judge their mean: {:?}", check(&j));
    }

    #[test]
    fn out_of_the_spread_or_ahead_of_the_one_before_is_caught() {
        for (what, j) in [
            ("too short", vec![setup(Some(P), vec![]), served(0, 1_999)]),
            ("too long", vec![setup(Some(P), vec![]), served(0, 6_001)]),
            ("ahead of the one before", vec![setup(Some(P), vec![]), served(0, 6_000), served(100, 5_000)]),
            ("processing with none planned", vec![setup(None, vec![]), served(0, 1)]),
        ] {
            assert!(matches!(check(&j), Some(Lockstep::Differs { .. })), "{what}");
        }
    }

    /// Service times drawn across the spread, not always at one end: a host that
    /// always takes the most fails once it has enough datagrams seen whole.
    #[test]
    fn service_times_always_at_one_end_are_caught() {
        let run = |service: &dyn Fn(u64) -> u64| {
            let mut j = vec![setup(Some(P), vec![])];
            j.extend((0..100u64).map(|i| served(i * 10_000, i * 10_000 + service(i))));
            check(&j)
        };
        assert!(matches!(run(&|i| 2_000 + (i * 7919) % 4_001), Some(Lockstep::Agreed { steps: 100 })), "{:?}", run(&|i| 2_000 + (i * 7919) % 4_001));
        assert!(matches!(run(&|_| 6_000), Some(Lockstep::Differs { .. })), "always the most");
        // A spread narrowed to its middle half: the mean is right, the ends never reached.
        assert!(matches!(run(&|i| 3_000 + (i * 7919) % 2_001), Some(Lockstep::Differs { .. })), "{:?}", run(&|i| 3_000 + (i * 7919) % 2_001));
    }

    #[test]
    fn a_slow_host_pays_ten_times_the_rigs_profile() {
        let w = vec![("phone".to_string(), Duration::from_millis(1), Duration::from_millis(2))];
        let ok = vec![setup(None, w.clone()), served(0, 0), served(1_000, 1_000 + 20_000), served(2_000, 2_000)];
        assert!(matches!(check(&ok), Some(Lockstep::Unjudged { steps: 3, .. })), "{:?}", check(&ok));
        let not_slow = vec![setup(None, w), served(1_000, 1_000 + 4_000)];
        assert!(matches!(check(&not_slow), Some(Lockstep::Differs { .. })));
    }
}
