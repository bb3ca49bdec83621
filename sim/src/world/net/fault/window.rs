//! Outage windows: a blackhole, UDP blocked, UDP refused.

use std::io;
use std::time::Duration;

use serde::{Deserialize, Serialize};

use super::{Ctx, Fault};
use crate::world::net::InFlight;

/// What a [`Window`] does while it is open.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Outage {
    /// Everything is dropped (a blackhole, or one side of a partition).
    Blackhole,
    /// UDP is dropped, TCP passes (so the WebSocket fallback can be forced).
    UdpBlocked,
    /// UDP is refused at once, as by an ICMP port unreachable (so "QUIC refused,
    /// WebSocket at once" can be tested). TCP passes.
    UdpRefused,
}

/// An outage for a time window `[from, until)`.
pub struct Window {
    pub from: Duration,
    pub until: Duration,
    pub outage: Outage,
}

impl Fault for Window {
    fn name(&self) -> String {
        format!("{:?}[{}ms..{}ms)", self.outage, self.from.as_millis(), self.until.as_millis())
    }
    fn process(&mut self, ctx: &mut Ctx<'_>, d: InFlight, out: &mut Vec<InFlight>) -> io::Result<()> {
        let open = ctx.now >= self.from && ctx.now < self.until;
        let is_tcp = d.is_tunnelled_tcp();
        #[allow(clippy::match_same_arms)]
        match (open, self.outage) {
            (false, _) => out.push(d),
            (true, Outage::Blackhole) => {}
            (true, Outage::UdpBlocked | Outage::UdpRefused) if is_tcp => out.push(d),
            (true, Outage::UdpBlocked) => {}
            (true, Outage::UdpRefused) => return Err(io::Error::new(io::ErrorKind::ConnectionRefused, "UDP refused (simulated ICMP port unreachable)")),
        }
        Ok(())
    }
}
