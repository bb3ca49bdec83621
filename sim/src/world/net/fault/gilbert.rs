//! Bursty loss: the Gilbert-Elliott two-state channel.

use std::io;

use rand::Rng;
use serde::{Deserialize, Serialize};

use super::{Ctx, Fault};
use crate::world::net::InFlight;

/// Bursty loss: a two-state (Gilbert-Elliott) chain. In the good state a datagram
/// is lost with `loss_good`, in the bad state with `loss_bad`; the chain moves
/// good->bad with `p_enter_bad` and bad->good with `p_leave_bad` per datagram.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
pub struct GilbertElliott {
    pub p_enter_bad: f64,
    pub p_leave_bad: f64,
    pub loss_good: f64,
    pub loss_bad: f64,
    #[serde(skip)]
    pub bad: bool,
}

impl Fault for GilbertElliott {
    fn name(&self) -> String {
        format!("gilbert-elliott({},{})", self.p_enter_bad, self.p_leave_bad)
    }
    fn process(&mut self, ctx: &mut Ctx<'_>, d: InFlight, out: &mut Vec<InFlight>) -> io::Result<()> {
        let flip = if self.bad { self.p_leave_bad } else { self.p_enter_bad };
        if ctx.rng.random_bool(flip.clamp(0.0, 1.0)) {
            self.bad = !self.bad;
        }
        let p = if self.bad { self.loss_bad } else { self.loss_good };
        if !ctx.rng.random_bool(p.clamp(0.0, 1.0)) {
            out.push(d);
        }
        Ok(())
    }
}
