//! Law `tcp-agrees-with-spec`: every decision of every TCP connection's
//! retransmission timer, judged against RFC 6298 from the RTT samples the
//! connection measured, with the limits `sim/tcp/README.md` names for the
//! run's flavour (issue 32 section 1), not against the estimator's code:
//!
//! - before any sample the RTO is 1 s (RFC 6298 2.1; Linux `TCP_TIMEOUT_INIT`);
//! - the first sample R sets SRTT = R, RTTVAR = R/2 (2.2); each later one
//!   RTTVAR = 3/4 RTTVAR + 1/4 |SRTT - R|, then SRTT = 7/8 SRTT + 1/8 R (2.3),
//!   each to the millisecond (the estimator's clock);
//! - RTO = SRTT + max(G, 4 RTTVAR), within [min, max] (2.3, 2.4, 2.5): Linux
//!   G = min = 200 ms (`TCP_RTO_MIN`), max = 120 s (`TCP_RTO_MAX`); stock smoltcp
//!   G = 5 ms, min = 1 s, max = 60 s;
//! - the timer starts for the current RTO (5.1, 5.3), never expires early, and
//!   each expiry doubles the RTO up to max (5.5); SRTT and RTTVAR may be
//!   forgotten only after the timer backed off more than once (5.7's MAY);
//! - the tail loss probe (RFC 8985 section 7, Linux): 2 SRTT plus 200 ms with one
//!   segment in flight, else plus 2 ms, 1 s before any sample, never past the RTO;
//! - the delayed ACK ([`ack`]): at most 40 ms, at once for more than one full
//!   segment or out-of-order data, Linux's quick-ack and pingpong modes;
//! - SYN-RECEIVED ([`synrecv`]): Linux answers a repeated SYN with the SYN-ACK
//!   again, at most once per 500 ms, and forgets the connection silently 63 s
//!   after its SYN.

mod ack;
mod synrecv;

use std::collections::BTreeMap;
use std::net::SocketAddr;

use crate::law::rules;
use crate::law::{Judge, Law};
use crate::world::journal::tcp::{RtoKind, TcpStep};
use crate::world::journal::{Entry, Step};
use crate::world::plan::TcpPlan;
use crate::world::plant::Bug;

use super::{differs, Lockstep, Reference, R};

pub const TCP: Reference = Reference {
    law: Law::new("tcp-agrees-with-spec", "every TCP retransmission timer is RFC 6298's from the connection's own RTT samples: 1 s before any, SRTT and RTTVAR smoothed by 1/8 and 1/4, RTO = SRTT + max(G, 4 RTTVAR) within Linux's 200 ms and 120 s, started for the current RTO, never early, doubled on each expiry; data acknowledged within 40 ms, at once for two full segments (Linux: more than rcv_mss), out-of-order data, Linux's first 16 segments and a read that empties the buffer after a small pushed segment; in SYN-RECEIVED a repeated SYN answered with the SYN-ACK again (at most once per 500 ms) and the connection forgotten silently 63 s after its SYN, as Linux (sim/tcp/README.md)").checks(&[&rules::TCP_RTO, &rules::TCP_DELAYED_ACK, &rules::TCP_SYN_RECEIVED])
        .judged(Judge::Journal(check)),
    planted: &[Bug::RtoNoBackoff, Bug::TcpNoQuickAck, Bug::TcpSynRecvAsStock],
};

/// RFC 6298 2.1 (and Linux's `TCP_TIMEOUT_INIT`, smoltcp's `RTTE_INITIAL_RTO`).
const INITIAL_MS: u32 = 1_000;
/// RFC 8985 section 7.2 (Linux `TCP_DELACK_MAX`): a probe with one segment in flight
/// allows for the peer's worst-case delayed ACK.
const TLP_DELACK_MS: u64 = 200;
/// Linux `tcp_schedule_loss_probe`: 2 ms (`TCP_TIMEOUT_MIN`) otherwise.
const TLP_EXTRA_MS: u64 = 2;

/// (G, min, max) in ms: sim/tcp/README.md's table, Linux and stock smoltcp.
fn limits(flavour: TcpPlan) -> (u32, u32, u32) {
    match flavour {
        TcpPlan::Linux => (200, 200, 120_000),
        TcpPlan::Smoltcp => (5, 1_000, 60_000),
    }
}

/// One connection's timer as RFC 6298 keeps it.
#[derive(Clone, Debug)]
struct Timer {
    /// (SRTT, RTTVAR) once a sample was taken and not forgotten.
    smoothed: Option<(u32, u32)>,
    rto: u32,
    backoffs: u32,
    /// When the timer was last started, and for how long.
    armed: Option<(i64, u32)>,
    /// The receiving side's delayed ACK.
    acks: ack::Acks,
    /// The passive side's time in SYN-RECEIVED.
    half_open: synrecv::HalfOpen,
}

impl Default for Timer {
    fn default() -> Self {
        Timer { smoothed: None, rto: INITIAL_MS, backoffs: 0, armed: None, acks: ack::Acks::default(), half_open: synrecv::HalfOpen::default() }
    }
}

/// The law's check: `None` when no TCP connection timed anything.
pub fn check(journal: &[Entry]) -> Option<Lockstep> {
    let mut flavour = TcpPlan::Linux;
    let mut timers: BTreeMap<(SocketAddr, SocketAddr), Timer> = BTreeMap::new();
    let mut steps = 0;
    for (index, e) in journal.iter().enumerate() {
        let Step::Tcp(s) = &e.step else { continue };
        let r = match s {
            TcpStep::Flavour(f) => {
                flavour = *f;
                Ok(())
            }
            TcpStep::Rto { at_ms, local, remote, kind } => {
                steps += 1;
                // A connection opened (or a SYN taken) on addresses and ports an earlier
                // connection used starts afresh: nothing of the old one carries over.
                if matches!(kind, RtoKind::Connect | RtoKind::SynIn) {
                    timers.remove(&(*local, *remote));
                }
                timers.entry((*local, *remote)).or_default().step(flavour, *at_ms, kind)
            }
        };
        if let Err((model, spec)) = r {
            return Some(Lockstep::Differs { index, entry: e.describe(), model, spec });
        }
    }
    (steps > 0).then_some(Lockstep::Agreed { steps })
}

/// The RFC's smoothing of a sample `r` into `prev` (2.2, 2.3), in real numbers.
fn smooth(prev: Option<(u32, u32)>, r: u32) -> (f64, f64) {
    let r = f64::from(r);
    match prev {
        None => (r, r / 2.0),
        Some((srtt, rttvar)) => {
            let (srtt, rttvar) = (f64::from(srtt), f64::from(rttvar));
            (srtt * 7.0 / 8.0 + r / 8.0, rttvar * 3.0 / 4.0 + (srtt - r).abs() / 4.0)
        }
    }
}

/// RTO from SRTT and RTTVAR (2.3 to 2.5).
fn rto_of(srtt: u32, rttvar: u32, (g, min, max): (u32, u32, u32)) -> u32 {
    (srtt + g.max(4 * rttvar)).clamp(min, max)
}

impl Timer {
    fn step(&mut self, flavour: TcpPlan, at: i64, kind: &RtoKind) -> R {
        let (lim, linux) = (limits(flavour), flavour == TcpPlan::Linux);
        match *kind {
            RtoKind::Sample { rtt_ms, srtt_ms, rttvar_ms, rto_ms } => self.sample(lim, rtt_ms, (srtt_ms, rttvar_ms, rto_ms)),
            RtoKind::Armed { delay_ms } => {
                if delay_ms != self.rto {
                    return differs(format!("timer started for {delay_ms} ms"), format!("the current RTO, {} ms (RFC 6298 5.1, 5.3)", self.rto));
                }
                self.armed = Some((at, delay_ms));
                Ok(())
            }
            RtoKind::Fired { rto_ms, forgot } => self.fired(lim, at, rto_ms, forgot),
            RtoKind::ProbeArmed { pto_us, segs, rto_left_us } => self.probe(pto_us, segs, rto_left_us),
            RtoKind::DataIn { unacked, mss, advmss, in_order, seg } => {
                self.acks.data_in(linux, at, self.rto, (unacked, mss, advmss), in_order, seg);
                Ok(())
            }
            RtoKind::AppRead { copied, left, unacked } => {
                self.acks.app_read(linux, at, copied, left, unacked);
                Ok(())
            }
            RtoKind::SegOut { data, acks_new, reply, delack } => self.acks.seg_out(linux, at, (data, acks_new), reply, delack),
            RtoKind::SynIn => {
                self.half_open.syn_in(at);
                Ok(())
            }
            RtoKind::Connect => Ok(()),
            RtoKind::SynAgain { answered } => self.half_open.syn_again(linux, at, answered),
            RtoKind::GaveUp { reset } => self.half_open.gave_up(linux, at, reset),
        }
    }

    /// The tail loss probe (sim/tcp/README.md: RFC 8985 section 7 as Linux): 2 SRTT
    /// plus 200 ms with one segment in flight (the worst-case delayed ACK), else plus
    /// 2 ms; 1 s before any sample; never later than the retransmission timer.
    fn probe(&self, pto_us: u64, segs: u32, rto_left_us: Option<u64>) -> R {
        let ms = 1_000u64;
        let formula = match self.smoothed {
            Some((srtt, _)) => 2 * u64::from(srtt) * ms + if segs == 1 { TLP_DELACK_MS * ms } else { TLP_EXTRA_MS * ms },
            None => u64::from(INITIAL_MS) * ms,
        };
        let spec = rto_left_us.map_or(formula, |left| formula.min(left));
        if pto_us != spec {
            return differs(
                format!("probe armed for {pto_us} µs with {segs} segments in flight"),
                format!(
                    "{spec} µs: 2 SRTT + {} ms, within the RTO's {rto_left_us:?} µs left (RFC 8985 section 7, Linux)",
                    if segs == 1 { TLP_DELACK_MS } else { TLP_EXTRA_MS }
                ),
            );
        }
        Ok(())
    }

    fn sample(&mut self, lim: (u32, u32, u32), r: u32, model: (u32, u32, u32)) -> R {
        let (srtt, rttvar) = smooth(self.smoothed, r);
        // The estimator keeps whole milliseconds: each value within one of the RFC's.
        let near = |m: u32, x: f64| (f64::from(m) - x).abs() <= 1.0;
        if !near(model.0, srtt) || !near(model.1, rttvar) {
            return differs(
                format!("after a {r} ms sample SRTT {} ms, RTTVAR {} ms", model.0, model.1),
                format!("SRTT {srtt:.1} ms, RTTVAR {rttvar:.1} ms (RFC 6298 2.2, 2.3)"),
            );
        }
        let rto = rto_of(model.0, model.1, lim);
        if model.2 != rto {
            return differs(
                format!("RTO {} ms from SRTT {} and RTTVAR {}", model.2, model.0, model.1),
                format!("{rto} ms = SRTT + max({}, 4 RTTVAR) within [{}, {}] ms (RFC 6298 2.3 to 2.5)", lim.0, lim.1, lim.2),
            );
        }
        (self.smoothed, self.rto, self.backoffs) = (Some((model.0, model.1)), rto, 0);
        Ok(())
    }

    fn fired(&mut self, lim: (u32, u32, u32), at: i64, rto_ms: u32, forgot: bool) -> R {
        match self.armed.take() {
            Some((armed_at, delay)) if at < armed_at + i64::from(delay) => {
                return differs(
                    format!("expired at {at} ms"),
                    format!("not before {} ms ({delay} ms after it started at {armed_at} ms)", armed_at + i64::from(delay)),
                );
            }
            Some((armed_at, delay)) if at > armed_at + i64::from(delay) + 1 => {
                return differs(format!("expired at {at} ms"), format!("at {} ms ({delay} ms after it started at {armed_at} ms)", armed_at + i64::from(delay)));
            }
            Some(_) => {}
            None => return differs("an expiry", "a timer started before it expires"),
        }
        let doubled = (self.rto.saturating_mul(2)).min(lim.2);
        if rto_ms != doubled {
            return differs(
                format!("RTO {rto_ms} ms after an expiry of {} ms", self.rto),
                format!("{doubled} ms: doubled, at most {} ms (RFC 6298 5.5)", lim.2),
            );
        }
        self.backoffs += 1;
        if forgot && self.smoothed.is_some() {
            if self.backoffs < 2 {
                return differs("SRTT forgotten after one backoff", "kept until the timer backed off more than once (RFC 6298 5.7)");
            }
            self.smoothed = None;
        }
        self.rto = rto_ms;
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn e(at_ms: i64, kind: RtoKind) -> Entry {
        let (local, remote) = ("10.0.1.2:40000".parse().unwrap(), "203.0.113.10:443".parse().unwrap());
        Entry { t_ms: at_ms as u64, host: "10.0.1.2".into(), step: Step::Tcp(TcpStep::Rto { at_ms, local, remote, kind }) }
    }

    fn sample(rtt: u32, srtt: u32, rttvar: u32, rto: u32) -> RtoKind {
        RtoKind::Sample { rtt_ms: rtt, srtt_ms: srtt, rttvar_ms: rttvar, rto_ms: rto }
    }

    #[test]
    fn rfc_6298_with_linux_limits_agrees() {
        let j = vec![
            e(0, RtoKind::Armed { delay_ms: 1000 }),
            e(40, sample(40, 40, 20, 240)),
            e(40, RtoKind::Armed { delay_ms: 240 }),
            e(280, RtoKind::Fired { rto_ms: 480, forgot: false }),
            e(280, RtoKind::Armed { delay_ms: 480 }),
            e(760, RtoKind::Fired { rto_ms: 960, forgot: false }),
            e(800, sample(80, 45, 25, 245)),
        ];
        assert_eq!(check(&j), Some(Lockstep::Agreed { steps: 7 }));
    }

    /// Fresh seeds 13720000000: the phone's WebSocket reconnected from the port its
    /// closed connection had used; the new connection owes nothing to the old one.
    #[test]
    fn a_new_connection_on_the_same_ports_starts_afresh() {
        let first = vec![e(0, RtoKind::Connect), e(0, RtoKind::Armed { delay_ms: 1000 }), e(40, sample(40, 40, 20, 240))];
        let mut again = first.clone();
        again.extend([e(5_000, RtoKind::Connect), e(5_000, RtoKind::Armed { delay_ms: 1000 })]);
        assert_eq!(check(&again), Some(Lockstep::Agreed { steps: 5 }));
        // Without the new connection's start, 1 s is not the (old) connection's RTO.
        let mut stale = first;
        stale.push(e(5_000, RtoKind::Armed { delay_ms: 1000 }));
        assert!(matches!(check(&stale), Some(Lockstep::Differs { index: 3, .. })));
    }

    #[test]
    fn the_tail_loss_probe_is_linuxs() {
        let probe = |pto_us, segs, rto_left_us| e(50, RtoKind::ProbeArmed { pto_us, segs, rto_left_us });
        let first = e(40, sample(40, 40, 20, 240));
        // 2 x 40 ms + 2 ms with two segments; + 200 ms with one, cut to the RTO left; 1 s before a sample.
        let good =
            vec![probe(1_000_000, 3, None), first.clone(), probe(82_000, 2, Some(240_000)), probe(240_000, 1, Some(240_000)), probe(100_000, 1, Some(100_000))];
        assert_eq!(check(&good), Some(Lockstep::Agreed { steps: 5 }));
        for bad in [probe(80_000, 2, None), probe(82_000, 1, None), probe(280_000, 1, Some(240_000))] {
            assert!(matches!(check(&[first.clone(), bad.clone()]), Some(Lockstep::Differs { .. })), "{bad:?}");
        }
    }

    #[test]
    fn syn_received_is_linuxs() {
        let (syn, again, gave_up) = (RtoKind::SynIn, |answered| RtoKind::SynAgain { answered }, |reset| RtoKind::GaveUp { reset });
        let linux = vec![e(0, syn), e(1000, again(true)), e(1300, again(false)), e(1500, again(true)), e(63_000, gave_up(false))];
        assert_eq!(check(&linux), Some(Lockstep::Agreed { steps: 5 }));
        // Stock smoltcp: the repeat dropped, an RST at its idle timeout; answering is wrong there.
        let flavour = Entry { t_ms: 0, host: "10.0.1.2".into(), step: Step::Tcp(TcpStep::Flavour(TcpPlan::Smoltcp)) };
        let stock = vec![flavour.clone(), e(0, syn), e(1000, again(false)), e(64_000, gave_up(true))];
        assert_eq!(check(&stock), Some(Lockstep::Agreed { steps: 3 }));
        assert!(matches!(check(&[flavour, e(0, syn), e(1000, again(true))]), Some(Lockstep::Differs { .. })));
        for (what, j) in [
            ("repeat dropped", vec![e(0, syn), e(1000, again(false))]),
            ("answered within 500 ms", vec![e(0, syn), e(1000, again(true)), e(1400, again(true))]),
            ("an RST", vec![e(0, syn), e(63_000, gave_up(true))]),
            ("early", vec![e(0, syn), e(62_000, gave_up(false))]),
            ("late", vec![e(0, syn), e(64_000, gave_up(false))]),
            ("no SYN", vec![e(63_000, gave_up(false))]),
        ] {
            assert!(matches!(check(&j), Some(Lockstep::Differs { .. })), "{what}: {:?}", check(&j));
        }
    }

    #[test]
    fn each_broken_rule_is_caught() {
        for (what, j) in [
            ("no backoff", vec![e(0, RtoKind::Armed { delay_ms: 1000 }), e(1000, RtoKind::Fired { rto_ms: 1000, forgot: false })]),
            ("early", vec![e(0, RtoKind::Armed { delay_ms: 1000 }), e(999, RtoKind::Fired { rto_ms: 2000, forgot: false })]),
            ("floor of 1 s under Linux", vec![e(40, sample(40, 40, 20, 1000))]),
            ("K = 2", vec![e(40, sample(400, 400, 200, 800))]),
            ("no smoothing", vec![e(40, sample(40, 40, 20, 240)), e(80, sample(80, 80, 20, 280))]),
            ("started for a stale RTO", vec![e(40, sample(40, 40, 20, 240)), e(40, RtoKind::Armed { delay_ms: 1000 })]),
            (
                "forgot at once",
                vec![e(40, sample(40, 40, 20, 240)), e(40, RtoKind::Armed { delay_ms: 240 }), e(280, RtoKind::Fired { rto_ms: 480, forgot: true })],
            ),
        ] {
            assert!(matches!(check(&j), Some(Lockstep::Differs { .. })), "{what}: {:?}", check(&j));
        }
    }
}
