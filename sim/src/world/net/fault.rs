//! Network faults, each a small piece with one interface, chained per link
//! direction (in the manner of neqo's simulator nodes). A piece takes one
//! datagram in flight (its delay so far and its bytes) and puts zero or more
//! out: delayed, dropped, duplicated, held back. All randomness comes from the
//! network's own seeded stream, so the same seed drops the same datagrams.

use std::io;
use std::net::SocketAddr;
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

    /// When this piece next lets go of a datagram it holds on its own (not
    /// because another datagram passed). The world steps to that time.
    fn next_release(&self) -> Option<Duration> {
        None
    }

    /// Let go of the datagrams whose time has come (`now` >= their release).
    fn release_due(&mut self, _now: Duration, _out: &mut Vec<InFlight>) {}
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
/// `k` later datagrams have passed, then released just behind the k-th; or,
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
        let mut to_hold = None;
        if hold {
            to_hold = Some(d);
        } else {
            out.push(d);
        }
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
        if let Some(d) = to_hold {
            self.held.push((d, ctx.now, self.k));
        }
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

/// An MTU limit: a datagram whose IP packet is larger than `mtu` is dropped, as
/// a router would. A UDP datagram's IP packet is its payload + 28 bytes of IPv4
/// and UDP headers; a tunnelled TCP datagram's payload IS the IP packet.
pub struct Mtu(pub usize);
impl Fault for Mtu {
    fn name(&self) -> String {
        format!("mtu({})", self.0)
    }
    fn process(&mut self, _: &mut Ctx<'_>, d: InFlight, out: &mut Vec<InFlight>) -> io::Result<()> {
        let is_tcp = d.src.port() == IP_TUNNEL_PORT && d.dst.port() == IP_TUNNEL_PORT;
        let ip_len = if is_tcp { d.payload.len() } else { d.payload.len() + super::IP_UDP_HEADER_BYTES };
        if ip_len <= self.0 {
            out.push(d);
        }
        Ok(())
    }
}

/// An on-path attacker (RFC 9000 section 9.3.3) during its windows `[from,
/// until)`: each UDP datagram is copied and the copy sent first, from a forged
/// source port of the same address (a fresh port per copy, counting up from
/// [`FORGED_PORT_FIRST`] across all windows, so no forged port is used twice);
/// the original follows [`FORGED_LEAD`] later. A QUIC server adopts a new peer
/// address before validating it, so each copy that arrives first is a "move".
/// Replies to a forged port die at the sender's NAT (no mapping). Tunnelled
/// TCP passes untouched. One piece per leg direction.
pub struct ForgeMoves {
    pub windows: Vec<(Duration, Duration)>,
    next_port: u16,
}

/// The first forged source port (below the NATs' own range, which starts at 49152
/// and grows by one per mapping).
pub const FORGED_PORT_FIRST: u16 = 20_000;
/// How far a forged copy runs ahead of its original.
pub const FORGED_LEAD: Duration = Duration::from_millis(1);

impl ForgeMoves {
    pub fn new(windows: Vec<(Duration, Duration)>) -> Self {
        ForgeMoves { windows, next_port: FORGED_PORT_FIRST }
    }
}

impl Fault for ForgeMoves {
    fn name(&self) -> String {
        let w: Vec<String> = self.windows.iter().map(|(a, b)| format!("{}ms..{}ms", a.as_millis(), b.as_millis())).collect();
        format!("forge-moves[{}]", w.join(", "))
    }
    fn process(&mut self, ctx: &mut Ctx<'_>, d: InFlight, out: &mut Vec<InFlight>) -> io::Result<()> {
        let is_tcp = d.src.port() == IP_TUNNEL_PORT && d.dst.port() == IP_TUNNEL_PORT;
        let open = self.windows.iter().any(|(a, b)| *a <= ctx.now && ctx.now < *b);
        if is_tcp || !open {
            out.push(d);
            return Ok(());
        }
        let forged = SocketAddr::new(d.src.ip(), self.next_port);
        // Wrap within the range below the NATs' ports.
        self.next_port = if self.next_port >= 49_151 { FORGED_PORT_FIRST } else { self.next_port + 1 };
        out.push(InFlight { src: forged, ..d.clone() });
        out.push(InFlight { delay: d.delay + FORGED_LEAD, ..d });
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

    /// The earliest time a piece lets go of a held datagram on its own.
    pub fn next_release(&self) -> Option<Duration> {
        self.0.iter().filter_map(|p| p.next_release()).min()
    }

    /// Datagrams let go at `now`, each run through the pieces after the one that held it.
    pub fn release_due(&mut self, ctx: &mut Ctx<'_>) -> Vec<InFlight> {
        let mut done = Vec::new();
        for i in 0..self.0.len() {
            let mut rel = Vec::new();
            self.0[i].release_due(ctx.now, &mut rel);
            for d in rel {
                let mut cur = vec![d];
                for piece in self.0[i + 1..].iter_mut() {
                    let mut next = Vec::new();
                    for d in cur {
                        // A release is not a send: a refusal cannot reach anyone, so it is a drop.
                        let _ = piece.process(ctx, d, &mut next);
                    }
                    cur = next;
                }
                done.extend(cur);
            }
        }
        done
    }

    pub fn describe(&self) -> String {
        self.0.iter().map(|p| p.name()).collect::<Vec<_>>().join(" > ")
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand_chacha::rand_core::SeedableRng;

    fn d(i: u32) -> InFlight {
        InFlight {
            delay: Duration::ZERO,
            src: "10.0.0.1:1000".parse().unwrap(),
            dst: "10.0.0.2:2000".parse().unwrap(),
            payload: bytes::Bytes::from(i.to_be_bytes().to_vec()),
        }
    }

    /// Push `n` datagrams a millisecond apart through `chain`; return what came out.
    fn pump(chain: &mut Chain, n: u32, seed: u64) -> Vec<(u32, Duration)> {
        let mut rng = ChaCha20Rng::seed_from_u64(seed);
        let mut out = Vec::new();
        for i in 0..n {
            let now = Duration::from_millis(i as u64);
            let mut ctx = Ctx { now, rng: &mut rng };
            for o in chain.run(&mut ctx, d(i)).unwrap() {
                out.push((u32::from_be_bytes(o.payload[..4].try_into().unwrap()), now + o.delay));
            }
        }
        out
    }

    #[test]
    fn loss_drops_its_share_and_the_same_ones_for_the_same_seed() {
        let mut c = Chain::default();
        c.push(Loss(0.05));
        let a = pump(&mut c, 10_000, 1);
        let lost = 10_000 - a.len();
        assert!((400..=600).contains(&lost), "5 % of 10,000 lost {lost}");
        let b = pump(&mut c, 10_000, 1);
        assert_eq!(a, b, "same seed, same drops");
        let other = pump(&mut c, 10_000, 2);
        assert_ne!(a, other);
    }

    #[test]
    fn bursty_loss_comes_in_runs() {
        let mut c = Chain::default();
        c.push(GilbertElliott { p_enter_bad: 0.01, p_leave_bad: 0.2, loss_good: 0.0, loss_bad: 0.9, bad: false });
        let out = pump(&mut c, 20_000, 3);
        let got: std::collections::BTreeSet<u32> = out.iter().map(|x| x.0).collect();
        let lost: Vec<u32> = (0..20_000).filter(|i| !got.contains(i)).collect();
        // Expected share: 1/21 of the time bad, 90 % lost there: about 4.3 %.
        assert!((500..=1300).contains(&lost.len()), "lost {}", lost.len());
        // Bursts: far more adjacent losses than independent loss at that rate would give (~4 %).
        let adjacent = lost.windows(2).filter(|w| w[1] == w[0] + 1).count();
        assert!(adjacent * 2 > lost.len(), "{adjacent} adjacent of {} lost", lost.len());
    }

    #[test]
    fn delay_and_jitter_reorder() {
        let mut c = Chain::default();
        c.push(Delay(Duration::from_millis(20))).push(Jitter(Duration::from_millis(5)));
        let out = pump(&mut c, 1000, 4);
        assert_eq!(out.len(), 1000);
        assert!(out.iter().all(|(i, at)| *at >= Duration::from_millis(*i as u64 + 20) && *at <= Duration::from_millis(*i as u64 + 25)));
        let mut by_arrival = out.clone();
        by_arrival.sort_by_key(|x| (x.1, x.0));
        let inversions = by_arrival.windows(2).filter(|w| w[1].0 < w[0].0).count();
        assert!(inversions > 50, "jitter larger than the gap reorders ({inversions})");
    }

    #[test]
    fn duplication_adds_copies() {
        let mut c = Chain::default();
        c.push(Duplicate { rate: 0.1, gap: Duration::from_millis(1) });
        let out = pump(&mut c, 10_000, 5);
        let extra = out.len() - 10_000;
        assert!((850..=1150).contains(&extra), "10 % duplicated gave {extra} copies");
    }

    #[test]
    fn reorder_holds_one_behind_k_others() {
        let mut c = Chain::default();
        c.push(Reorder::new(1.0 / 16.0, 3, Duration::from_secs(60)));
        let out = pump(&mut c, 2000, 6);
        let mut by_arrival = out.clone();
        by_arrival.sort_by_key(|x| x.1);
        let late = by_arrival.windows(2).filter(|w| w[1].0 < w[0].0).count();
        assert!(late > 60, "held datagrams arrive behind later ones ({late})");
        // Nothing is lost by reordering except what is still held at the end.
        assert!(out.len() >= 2000 - 8);
    }

    #[test]
    fn a_held_datagram_is_let_go_at_its_longest_hold() {
        let mut c = Chain::default();
        c.push(Reorder::new(1.0, 3, Duration::from_millis(100))).push(Delay(Duration::from_millis(20)));
        let mut rng = ChaCha20Rng::seed_from_u64(9);
        let mut ctx = Ctx { now: Duration::from_millis(5), rng: &mut rng };
        assert!(c.run(&mut ctx, d(1)).unwrap().is_empty(), "held");
        assert_eq!(c.next_release(), Some(Duration::from_millis(105)));
        ctx.now = Duration::from_millis(104);
        assert!(c.release_due(&mut ctx).is_empty());
        ctx.now = Duration::from_millis(105);
        let out = c.release_due(&mut ctx);
        assert_eq!(out.len(), 1);
        assert_eq!(out[0].delay, Duration::from_millis(20), "the pieces after it still apply");
        assert_eq!(c.next_release(), None);
    }

    #[test]
    fn mtu_drops_oversized() {
        let mut c = Chain::default();
        c.push(Mtu(1200));
        let mut rng = ChaCha20Rng::seed_from_u64(7);
        let mut ctx = Ctx { now: Duration::ZERO, rng: &mut rng };
        let mut small = d(1);
        small.payload = bytes::Bytes::from(vec![0u8; 1172]);
        let mut big = d(2);
        big.payload = bytes::Bytes::from(vec![0u8; 1173]);
        assert_eq!(c.run(&mut ctx, small).unwrap().len(), 1);
        assert_eq!(c.run(&mut ctx, big).unwrap().len(), 0);
        // A tunnelled TCP packet is its own IP packet: 1200 bytes pass, 1201 do not.
        let mut tcp = d(3);
        tcp.src.set_port(IP_TUNNEL_PORT);
        tcp.dst.set_port(IP_TUNNEL_PORT);
        tcp.payload = bytes::Bytes::from(vec![0u8; 1200]);
        assert_eq!(c.run(&mut ctx, tcp.clone()).unwrap().len(), 1);
        tcp.payload = bytes::Bytes::from(vec![0u8; 1201]);
        assert_eq!(c.run(&mut ctx, tcp).unwrap().len(), 0);
    }

    #[test]
    fn windows_open_and_close() {
        let mut rng = ChaCha20Rng::seed_from_u64(8);
        let from = Duration::from_secs(10);
        let until = Duration::from_secs(20);
        let mut tcp = d(0);
        tcp.src.set_port(IP_TUNNEL_PORT);
        tcp.dst.set_port(IP_TUNNEL_PORT);
        for (outage, at, udp_passes, tcp_passes, refused) in [
            (Outage::Blackhole, 15, false, false, false),
            (Outage::UdpBlocked, 15, false, true, false),
            (Outage::UdpRefused, 15, false, true, true),
            (Outage::Blackhole, 20, true, true, false),
            (Outage::UdpRefused, 9, true, true, false),
        ] {
            let mut w = Window { from, until, outage };
            let mut ctx = Ctx { now: Duration::from_secs(at), rng: &mut rng };
            let mut out = Vec::new();
            let r = w.process(&mut ctx, d(0), &mut out);
            assert_eq!(r.is_err(), refused, "{outage:?} at {at}");
            assert_eq!(out.len() == 1, udp_passes, "{outage:?} at {at} udp");
            let mut out = Vec::new();
            w.process(&mut ctx, tcp.clone(), &mut out).unwrap();
            assert_eq!(out.len() == 1, tcp_passes, "{outage:?} at {at} tcp");
        }
    }
}
