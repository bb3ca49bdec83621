//! A share of datagrams sent twice.

use std::io;
use std::time::Duration;

use rand::Rng;

use super::{Ctx, Fault};
use crate::world::net::InFlight;

/// Duplicate a datagram with probability `rate`; the copy arrives `gap` later.
pub struct Duplicate {
    pub rate: f64,
    pub gap: Duration,
}

impl Fault for Duplicate {
    fn name(&self) -> String {
        format!("duplicate({}%)", self.rate * 100.0)
    }
    fn process(&mut self, ctx: &mut Ctx<'_>, d: InFlight, out: &mut Vec<InFlight>) -> io::Result<()> {
        if self.rate > 0.0 && ctx.rng.random_bool(self.rate.min(1.0)) {
            let mut copy = d.clone();
            copy.delay += self.gap;
            out.push(d);
            out.push(copy);
        } else {
            out.push(d);
        }
        Ok(())
    }
}
