//! A fixed one-way delay.

use std::io;
use std::time::Duration;

use super::{Ctx, Fault};
use crate::world::net::InFlight;

/// A fixed one-way delay.
pub struct Delay(pub Duration);

impl Fault for Delay {
    fn name(&self) -> String {
        format!("delay({}ms)", self.0.as_millis())
    }
    fn process(&mut self, _: &mut Ctx<'_>, mut d: InFlight, out: &mut Vec<InFlight>) -> io::Result<()> {
        d.delay += self.0;
        out.push(d);
        Ok(())
    }
}
