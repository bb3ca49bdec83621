//! Extra delay drawn per datagram that keeps the order datagrams were sent in.

use std::io;
use std::time::Duration;

use rand::Rng;

use super::{Ctx, Fault};
use crate::world::net::InFlight;

/// Uniform extra delay in `[0, max]` in whole microseconds, but never ahead of
/// the datagram sent before it on the same chain: a path whose delay wanders
/// (a VM's own network, as the seed's OrbStack leg: "OrbStack's own few ms") without
/// reordering, unlike [`super::Jitter`].
pub struct OrderedJitter {
    pub max: Duration,
    last_arrival: Duration,
}

impl OrderedJitter {
    pub fn new(max: Duration) -> Self {
        OrderedJitter { max, last_arrival: Duration::ZERO }
    }
}

impl Fault for OrderedJitter {
    fn name(&self) -> String {
        format!("ordered-jitter({}ms)", self.max.as_millis())
    }
    fn process(&mut self, ctx: &mut Ctx<'_>, mut d: InFlight, out: &mut Vec<InFlight>) -> io::Result<()> {
        let max_us = self.max.as_micros() as u64;
        if max_us > 0 {
            d.delay += Duration::from_micros(ctx.rng.random_range(0..=max_us));
        }
        let arrival = (ctx.now + d.delay).max(self.last_arrival);
        self.last_arrival = arrival;
        d.delay = arrival - ctx.now;
        out.push(d);
        Ok(())
    }
}
