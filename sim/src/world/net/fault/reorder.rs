//! A share of datagrams held back behind later ones, with a bounded hold.

use std::io;
use std::time::Duration;

use rand::Rng;

use super::{Ctx, Fault};
use crate::world::net::InFlight;

/// Explicit reordering: with probability `rate` a datagram is held back until
/// `k` later datagrams have passed (later ones held too do not count: they have
/// not passed), then released just behind the k-th; or,
/// if fewer than `k` pass, once it has waited `hold_max` (so the end of a flow
/// is reordered, never lost: a held packet's release never waits on a later one).
pub struct Reorder {
    pub rate: f64,
    pub k: u32,
    pub hold_max: Duration,
    held: Vec<(InFlight, Duration, u32)>,
}

impl Reorder {
    pub fn new(rate: f64, k: u32, hold_max: Duration) -> Self {
        Reorder { rate, k: k.max(1), hold_max, held: Vec::new() }
    }
}

impl Fault for Reorder {
    fn name(&self) -> String {
        format!("reorder({}%,k={},max={}ms)", self.rate * 100.0, self.k, self.hold_max.as_millis())
    }
    fn process(&mut self, ctx: &mut Ctx<'_>, d: InFlight, out: &mut Vec<InFlight>) -> io::Result<()> {
        let passing_delay = d.delay;
        let hold = self.rate > 0.0 && ctx.rng.random_bool(self.rate.min(1.0));
        if hold {
            // A datagram held is not one that passed: it counts for no one.
            self.held.push((d, ctx.now, self.k));
            return Ok(());
        }
        out.push(d);
        // Count this datagram against everything held; release those whose turn came.
        let mut still = Vec::new();
        for (mut h, held_at, left) in self.held.drain(..) {
            if left <= 1 {
                // Released just behind the datagram that passed now.
                h.delay = passing_delay + Duration::from_micros(1);
                out.push(h);
            } else {
                still.push((h, held_at, left - 1));
            }
        }
        self.held = still;
        Ok(())
    }
    fn next_release(&self) -> Option<Duration> {
        self.held.iter().map(|(_, at, _)| *at + self.hold_max).min()
    }
    fn release_due(&mut self, now: Duration, out: &mut Vec<InFlight>) {
        let hold_max = self.hold_max;
        let (due, still): (Vec<_>, Vec<_>) = self.held.drain(..).partition(|(_, at, _)| *at + hold_max <= now);
        self.held = still;
        for (mut h, _, _) in due {
            h.delay = Duration::ZERO;
            out.push(h);
        }
    }
}
