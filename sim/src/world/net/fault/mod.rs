//! Network faults, each a small piece with one interface, chained per link
//! direction (in the manner of neqo's simulator nodes). A piece takes one
//! datagram in flight (its delay so far and its bytes) and puts zero or more
//! out: delayed, dropped, duplicated, held back. All randomness comes from the
//! network's own seeded stream, so the same seed drops the same datagrams.
//! One file a piece; a new impairment is a new file, not a change here.

use std::io;
use std::time::Duration;

use rand_chacha::ChaCha20Rng;

use super::InFlight;

mod delay;
mod duplicate;
mod forge;
mod jitter;
mod loss;
mod mtu;
mod ordered_jitter;
mod reorder;
mod strangers;
mod window;

pub use delay::Delay;
pub use duplicate::Duplicate;
pub use forge::{is_forged, ForgeMoves};
pub use jitter::Jitter;
pub use loss::Loss;
pub use mtu::Mtu;
pub use ordered_jitter::OrderedJitter;
pub use reorder::Reorder;
pub use strangers::{is_stranger, Strangers};
pub use window::{Outage, Window};

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
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::world::net::IP_TUNNEL_PORT;
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
