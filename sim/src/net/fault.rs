//! Network faults, each a small piece with one interface, chained per link
//! direction (in the manner of neqo's simulator nodes). A piece takes one
//! datagram in flight (its delay so far and its bytes) and puts zero or more
//! out: delayed, dropped, duplicated, held back. All randomness comes from the
//! network's own seeded stream, so the same seed drops the same datagrams.

use std::io;
use std::time::Duration;

use rand::Rng;
use rand_chacha::ChaCha20Rng;
use serde::{Deserialize, Serialize};

use super::{InFlight, IP_TUNNEL_PORT};

/// What a piece may read besides the datagram.
pub struct Ctx<'a> {
    pub now: Duration,
    pub rng: &'a mut ChaCha20Rng,
}

/// One fault piece.
pub trait Fault {
    /// A short name for traces.
    fn name(&self) -> String;
    /// Process one datagram; push what goes on to `out`. An error is returned
    /// to the sender's `send_to` (used for "UDP refused").
    fn process(&mut self, ctx: &mut Ctx<'_>, d: InFlight, out: &mut Vec<InFlight>) -> io::Result<()>;
}

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

/// Uniform extra delay in `[0, max]`, in whole microseconds. Reorders datagrams
/// sent closer together than the jitter.
pub struct Jitter(pub Duration);
impl Fault for Jitter {
    fn name(&self) -> String {
        format!("jitter({}ms)", self.0.as_millis())
    }
    fn process(&mut self, ctx: &mut Ctx<'_>, mut d: InFlight, out: &mut Vec<InFlight>) -> io::Result<()> {
        let max_us = self.0.as_micros() as u64;
        if max_us > 0 {
            d.delay += Duration::from_micros(ctx.rng.random_range(0..=max_us));
        }
        out.push(d);
        Ok(())
    }
}

/// Independent loss of each datagram with probability `rate`.
pub struct Loss(pub f64);
impl Fault for Loss {
    fn name(&self) -> String {
        format!("loss({}%)", self.0 * 100.0)
    }
    fn process(&mut self, ctx: &mut Ctx<'_>, d: InFlight, out: &mut Vec<InFlight>) -> io::Result<()> {
        if !(self.0 > 0.0 && ctx.rng.random_bool(self.0.min(1.0))) {
            out.push(d);
        }
        Ok(())
    }
}

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

/// Explicit reordering: with probability `rate` a datagram is held back until
/// `k` later datagrams have passed, then released just behind the k-th.
pub struct Reorder {
    pub rate: f64,
    pub k: u32,
    held: Vec<(InFlight, Duration, u32)>,
}
impl Reorder {
    pub fn new(rate: f64, k: u32) -> Self {
        Reorder { rate, k: k.max(1), held: Vec::new() }
    }
}
impl Fault for Reorder {
    fn name(&self) -> String {
        format!("reorder({}%,k={})", self.rate * 100.0, self.k)
    }
    fn process(&mut self, ctx: &mut Ctx<'_>, d: InFlight, out: &mut Vec<InFlight>) -> io::Result<()> {
        let passing_delay = d.delay;
        let hold = self.rate > 0.0 && ctx.rng.random_bool(self.rate.min(1.0));
        let mut to_hold = None;
        if hold {
            to_hold = Some(d);
        } else {
            out.push(d);
        }
        // Count this datagram against everything held; release those whose turn came.
        let mut still = Vec::new();
        for (h, sent_at, left) in self.held.drain(..) {
            if left <= 1 {
                // Released just behind the datagram that passed now.
                let mut h = h;
                h.delay = passing_delay + Duration::from_micros(1);
                let _ = sent_at;
                out.push(h);
            } else {
                still.push((h, sent_at, left - 1));
            }
        }
        self.held = still;
        if let Some(d) = to_hold {
            self.held.push((d, ctx.now, self.k));
        }
        Ok(())
    }
}

/// An MTU limit: a datagram whose IP packet (payload + 28 bytes of IPv4 and
/// UDP headers) is larger than `mtu` is dropped, as a router would.
pub struct Mtu(pub usize);
impl Fault for Mtu {
    fn name(&self) -> String {
        format!("mtu({})", self.0)
    }
    fn process(&mut self, _: &mut Ctx<'_>, d: InFlight, out: &mut Vec<InFlight>) -> io::Result<()> {
        if d.payload.len() + super::IP_UDP_HEADER_BYTES <= self.0 {
            out.push(d);
        }
        Ok(())
    }
}

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
        let is_tcp = d.src.port() == IP_TUNNEL_PORT && d.dst.port() == IP_TUNNEL_PORT;
        #[allow(clippy::match_same_arms)]
        match (open, self.outage) {
            (false, _) => out.push(d),
            (true, Outage::Blackhole) => {}
            (true, Outage::UdpBlocked | Outage::UdpRefused) if is_tcp => out.push(d),
            (true, Outage::UdpBlocked) => {}
            (true, Outage::UdpRefused) => {
                return Err(io::Error::new(io::ErrorKind::ConnectionRefused, "UDP refused (simulated ICMP port unreachable)"))
            }
        }
        Ok(())
    }
}

/// A chain of pieces, applied in order.
#[derive(Default)]
pub struct Chain(pub Vec<Box<dyn Fault>>);

impl Chain {
    pub fn push(&mut self, f: impl Fault + 'static) -> &mut Self {
        self.0.push(Box::new(f));
        self
    }

    pub fn run(&mut self, ctx: &mut Ctx<'_>, d: InFlight) -> io::Result<Vec<InFlight>> {
        let mut cur = vec![d];
        for piece in self.0.iter_mut() {
            let mut next = Vec::with_capacity(cur.len());
            for d in cur {
                piece.process(ctx, d, &mut next)?;
            }
            cur = next;
            if cur.is_empty() {
                break;
            }
        }
        Ok(cur)
    }

    pub fn describe(&self) -> String {
        self.0.iter().map(|p| p.name()).collect::<Vec<_>>().join(" > ")
    }
}
