//! Extra delay drawn per datagram.

use std::io;
use std::time::Duration;

use rand::Rng;

use super::{Ctx, Fault};
use crate::world::net::InFlight;
use crate::world::plant::{self, Bug};

/// Uniform extra delay in `[0, max]`, in whole microseconds. Reorders datagrams
/// sent closer together than the jitter.
pub struct Jitter(pub Duration);

impl Fault for Jitter {
    fn name(&self) -> String {
        format!("jitter({}ms)", self.0.as_millis())
    }
    fn process(&mut self, ctx: &mut Ctx<'_>, mut d: InFlight, out: &mut Vec<InFlight>) -> io::Result<()> {
        let max_us = self.0.as_micros() as u64 * if plant::on(Bug::JitterDoubled) { 2 } else { 1 };
        if max_us > 0 {
            d.delay += Duration::from_micros(ctx.rng.random_range(0..=max_us));
        }
        out.push(d);
        Ok(())
    }
}
