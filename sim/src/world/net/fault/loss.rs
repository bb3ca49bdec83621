//! Independent loss of each datagram.

use std::io;

use rand::Rng;

use super::{Ctx, Fault};
use crate::world::net::InFlight;
use crate::world::plant::{self, Bug};

/// Independent loss of each datagram with probability `rate`.
pub struct Loss(pub f64);

impl Fault for Loss {
    fn name(&self) -> String {
        format!("loss({}%)", self.0 * 100.0)
    }
    fn process(&mut self, ctx: &mut Ctx<'_>, d: InFlight, out: &mut Vec<InFlight>) -> io::Result<()> {
        let rate = if plant::on(Bug::LossDoubled) { 2.0 * self.0 } else { self.0 };
        if !(rate > 0.0 && ctx.rng.random_bool(rate.min(1.0))) {
            out.push(d);
        }
        Ok(())
    }
}
