//! Host processing time (issue 16 section 3): the work a host does on each
//! datagram it receives before its application has it (the Go runtime, the
//! crypto, CBOR, the relay hop, the container's loopback), as a service time
//! drawn per datagram. The protocol's messages each fit one datagram, so this
//! is per message; a handshake flight of several datagrams pays it per datagram.
//!
//! The work is pipelined, not a queue: a datagram is ready its service time
//! after it arrives, but never before the one that arrived ahead of it at the
//! same host (no reordering, no throughput ceiling). Draws come from the
//! processing's own seeded stream, so turning it on moves no other draw.

use std::collections::BTreeMap;
use std::net::IpAddr;
use std::time::Duration;

use rand::Rng;
use rand_chacha::ChaCha20Rng;

use serde::{Deserialize, Serialize};

use crate::world::plant::{self, Bug};
use crate::world::range::{check_whole, FieldRange};

/// A host's service time per datagram it receives: the median over QUIC's UDP
/// and over the WebSocket's TCP, and the spread either side (uniform).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ProcessingPlan {
    pub udp_us: u64,
    pub tcp_us: u64,
    pub spread_pct: u64,
}

/// [`ProcessingPlan`]'s fields and their ranges (inclusive), with why.
pub const PROCESSING_RANGES: &[FieldRange] = &[
    ("udp_us", 0, 1_000_000, "at most a second a datagram"),
    ("tcp_us", 0, 1_000_000, "at most a second a datagram"),
    ("spread_pct", 0, 100, "a share of the median either side"),
];

impl ProcessingPlan {
    pub(crate) fn check_ranges(&self) -> Result<(), String> {
        let fields = [("udp_us", self.udp_us), ("tcp_us", self.tcp_us), ("spread_pct", self.spread_pct)];
        check_whole("plan.processing.", &fields, PROCESSING_RANGES)
    }
}

/// The seed's rig (issue 16 section 3): the service time every host of the
/// rig (ftwcloudd, the box, the Go test phone, all Go in one OrbStack
/// container) pays per datagram it receives. Fitted on four figures of seed
/// 000's first table and nothing else, at 40 ms and 0 % loss: *tunnel frame,
/// box -> phone* p50 49 ms over the WebSocket and 52 ms over QUIC, and *cold
/// connect -> first live number* p50 326 ms and 236 ms (the fit and its
/// residuals: docs/table.md, "Host processing"). The spread is chosen here.
pub const RIG_PROCESSING: ProcessingPlan = ProcessingPlan { udp_us: 3_750, tcp_us: 3_000, spread_pct: 50 };

/// A time a host is slow: every service time is [`SLOW_FACTOR`] times the profile's.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SlowWindow {
    pub host: IpAddr,
    pub from: Duration,
    pub until: Duration,
}

/// A slow host's service time against the profile's (issue 16 section 3: "a
/// service time ten times the profile's").
pub const SLOW_FACTOR: u64 = 10;

/// The processing of every host of a run.
pub struct Processing {
    /// None: no processing outside slow windows.
    plan: Option<ProcessingPlan>,
    /// What a slow window multiplies when the plan has no processing of its own.
    slow_base: ProcessingPlan,
    slow: Vec<SlowWindow>,
    rng: ChaCha20Rng,
    /// When the last datagram each host received is ready.
    ready: BTreeMap<IpAddr, Duration>,
}

impl Processing {
    pub fn new(plan: Option<ProcessingPlan>, slow_base: ProcessingPlan, slow: Vec<SlowWindow>, rng: ChaCha20Rng) -> Self {
        Processing { plan, slow_base, slow, rng, ready: BTreeMap::new() }
    }

    /// Nothing to do: every datagram keeps its delay (and no draw is made).
    pub fn is_off(&self) -> bool {
        self.plan.is_none() && self.slow.is_empty()
    }

    /// The profile and factor that apply to `host` at `at`, if any.
    fn profile(&self, host: IpAddr, at: Duration) -> Option<(ProcessingPlan, u64)> {
        let slow = self.slow.iter().any(|w| w.host == host && (w.from..w.until).contains(&at));
        match (slow, self.plan) {
            (true, p) => Some((p.unwrap_or(self.slow_base), SLOW_FACTOR)),
            (false, Some(p)) => Some((p, 1)),
            (false, None) => None,
        }
    }

    /// The delay of a datagram to `host` that arrives `delay` after `now`, with
    /// the host's service time added (`tcp`: a tunnelled TCP segment).
    pub fn delay(&mut self, now: Duration, host: IpAddr, delay: Duration, tcp: bool) -> Duration {
        let arrival = now + delay;
        let Some((p, factor)) = self.profile(host, arrival) else { return delay };
        let median = if tcp { p.tcp_us } else { p.udp_us };
        let service = Duration::from_micros(draw_us(&mut self.rng, median, p.spread_pct) * factor);
        let ahead = self.ready.get(&host).copied().unwrap_or_default();
        let ready = if plant::on(Bug::ProcessingReorders) { arrival + service } else { (arrival + service).max(ahead) };
        self.ready.insert(host, ready);
        ready - now
    }
}

/// A service time in µs: uniform within `spread_pct` per cent either side of `median_us`.
fn draw_us(rng: &mut ChaCha20Rng, median_us: u64, spread_pct: u64) -> u64 {
    let half = median_us * spread_pct.min(100) / 100;
    if half == 0 {
        return median_us;
    }
    rng.random_range(median_us - half..=median_us + half)
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand_chacha::rand_core::SeedableRng;

    const IP: IpAddr = IpAddr::V4(std::net::Ipv4Addr::new(10, 0, 0, 1));
    const P: ProcessingPlan = ProcessingPlan { udp_us: 6_000, tcp_us: 4_000, spread_pct: 50 };

    fn ms(v: u64) -> Duration {
        Duration::from_millis(v)
    }

    #[test]
    fn off_keeps_every_delay() {
        let mut p = Processing::new(None, P, vec![], ChaCha20Rng::seed_from_u64(1));
        assert!(p.is_off());
        assert_eq!(p.delay(ms(5), IP, ms(20), false), ms(20));
    }

    #[test]
    fn service_within_spread_and_never_reorders() {
        let mut p = Processing::new(Some(P), P, vec![], ChaCha20Rng::seed_from_u64(1));
        let mut last = Duration::ZERO;
        for i in 0..200 {
            let now = Duration::from_micros(i * 100);
            let d = p.delay(now, IP, ms(20), false);
            let extra = d - ms(20);
            assert!(now + d >= last, "datagram {i} ready before the one ahead of it");
            assert!(extra >= Duration::from_micros(3_000), "service {extra:?} below the spread");
            last = now + d;
        }
        let tcp = p.delay(ms(100), IP, ms(20), true) - ms(20);
        assert!((ms(2)..=ms(6)).contains(&tcp), "tcp service {tcp:?}");
    }

    #[test]
    fn slow_window_multiplies_by_ten() {
        let w = SlowWindow { host: IP, from: ms(1_000), until: ms(2_000) };
        let mut p = Processing::new(None, P, vec![w], ChaCha20Rng::seed_from_u64(1));
        assert_eq!(p.delay(ms(0), IP, ms(20), false), ms(20), "outside the window: none");
        let slow = p.delay(ms(1_500), IP, ms(20), false) - ms(20);
        assert!((ms(30)..=ms(90)).contains(&slow), "slow service {slow:?}");
    }
}
