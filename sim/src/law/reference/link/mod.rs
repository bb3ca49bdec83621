//! Law `link-agrees-with-spec`: every datagram that met a leg, judged against
//! the leg's plan in the plan's own words (docs/fault-plans.md and the fields'
//! documentation in `LinkPlan`), not against the fault pieces (issue 32
//! section 1).
//!
//! Each datagram, in each direction of its leg:
//! - while a timed outage of the leg's host is open (`[at, at + for)`): a
//!   blackhole drops everything; UDP blocked drops UDP; UDP refused refuses UDP
//!   at once (TCP passes both); overlapping outages act in the plan's order;
//!   nothing else is ever refused;
//! - an IP packet longer than the leg's MTU is dropped;
//! - otherwise it arrives once, is lost (only with `loss_pct`), comes twice
//!   (only with `duplicate_pct`) or is held back behind later ones (only with
//!   `reorder_pct`: let go just behind the `reorder_k`th later one, or on its own
//!   once it has waited `reorder_hold_max_ms` if fewer pass; [`hold`]);
//! - each copy takes the one-way delay plus at most the jitter (plus the
//!   millisecond by which a duplicate or a forged copy's lead sets it apart);
//!   with `jitter_ordered` none arrives ahead of the one sent before it;
//! - copies from other sources only while forged moves or strangers act on
//!   the host's way up, and never for TCP.
//!
//! The random pieces are judged over the whole run: the share lost, duplicated
//! and held must be one the plan's rate gives with more than a one in 10^9
//! chance (the held share over the copies whose hold can be seen: with
//! `reorder_k` 1 a duplicate's first copy let go just behind its own twin looks
//! like both passing, [`Dir::twins`]), and the jitter drawn must average half the plan's (uniform in
//! `[0, jitter_ms]`: within six standard errors) (a Chernoff bound on the binomial tail, so the law itself errs less
//! often than that). A run with too few datagrams to tell a doubled rate from
//! the plan's says so in its detail instead of judging that rate.

use std::collections::BTreeMap;
use std::net::SocketAddr;
use std::time::Duration;

mod hold;

use hold::{Hold, Passes};

use crate::law::rules;
use crate::law::{Judge, Law};
use crate::world::journal::link::{LinkStep, Out, Sent};
use crate::world::journal::{Entry, Step};
use crate::world::net::fault::Outage;
use crate::world::plan::LinkPlan;

use crate::world::plant::Bug;

use super::{differs, Lockstep, Reference, R};

pub const LINK: Reference = Reference {
    law: Law::new("link-agrees-with-spec", "every datagram a leg carried met its plan: outages, MTU, one-way delay plus jitter, a held datagram let go behind the reorder_k-th later one or on its own after reorder_hold_max_ms, and the shares lost, duplicated and held within the binomial bounds of the plan's rates (docs/fault-plans.md)").checks(&[&rules::LEG_PLAN])
        .judged(Judge::Journal(check)),
    planted: &[Bug::LossDoubled, Bug::JitterDoubled],
};

/// How unlikely a share must be, under the plan's rate, before the law calls it wrong.
const ALPHA_LN: f64 = 20.723_265_836_946_41; // ln(10^9)
/// A duplicate's copy comes this much after the datagram; a forged copy runs
/// this much ahead of the original (docs/fault-plans.md; RFC 9000 section 9.3.3's attacker).
const APART: Duration = Duration::from_millis(1);
/// A datagram let go behind a later one arrives just behind it.
const BEHIND: Duration = Duration::from_micros(1);

/// One direction of a leg: what it was given and how often each piece acted.
#[derive(Default)]
struct Dir {
    /// Per eligible datagram (passed outages and MTU): copies out so far.
    copies: Vec<u8>,
    /// When each eligible datagram met the leg.
    at: Vec<Duration>,
    /// Copies held now, by bytes' hash, oldest first: the datagram each belongs
    /// to (`None`: an attacker's forged copy, counted nowhere) and the source
    /// the datagram was sent from (a forged copy comes from another).
    held: BTreeMap<u64, Vec<Hold>>,
    /// The datagrams that passed the reorder piece so far (its countdown).
    passes: Passes,
    /// Copies let go after a hold.
    released: u64,
    /// Datagrams whose two copies came out in the step they crossed while
    /// `reorder_k` is 1. The reorder piece meets each copy of a duplicate on
    /// its own (docs/fault-plans.md: `Duplicate`, then `Reorder`), so the first
    /// copy may have been held and let go just behind its twin: that looks the
    /// same as both passing, and the first copy's hold cannot be seen. It is
    /// left out of the held share; its hold is independent of its twin's, so
    /// leaving it out whenever the twin passed biases nothing (fresh seeds
    /// 13960000000, corpus/fleet-pin-flood-held-behind-its-twin-13960056738.toml).
    twins: u64,
    /// The latest arrival so far (for ordered jitter).
    last_arrival: Duration,
    /// The jitter drawn for each lone copy (µs past the one-way delay): its sum
    /// and count, to judge the draw's uniformity.
    jitter: (f64, u64),
    /// Each UDP datagram that passed outages and MTU on the way up while forged
    /// moves acted: when, and its forged copies out at once.
    forging: Vec<(Duration, u8)>,
    /// Forged copies let go after a hold.
    forged_released: u64,
}

impl Dir {
    /// The held copy `o` may be: one from its own source (a datagram's copy;
    /// one none of whose copies came out explains it best, then the oldest) or
    /// from another (a forged copy).
    fn held_copy(&self, o: &Out) -> Option<usize> {
        self.held_copies(o).next()
    }

    /// Every held copy `o` may be, the likeliest first (as [`Dir::held_copy`]).
    fn held_copies<'a>(&'a self, o: &'a Out) -> impl Iterator<Item = usize> + 'a {
        let waiting = self.held.get(&o.hash).map_or(&[][..], |w| &w[..]);
        let fits = move |w: &Hold| (w.of.is_some() && w.src == o.src) || (w.of.is_none() && w.src != o.src);
        let missing = move |w: &Hold| w.of.is_some_and(|i| self.copies[i] == 0);
        let first = waiting.iter().enumerate().filter(move |(_, w)| fits(w) && missing(w));
        let rest = waiting.iter().enumerate().filter(move |(_, w)| fits(w) && !missing(w));
        first.chain(rest).map(|(i, _)| i)
    }
}

struct Leg {
    plan: LinkPlan,
    outages: Vec<(Duration, Duration, Outage)>,
    forged: Vec<(Duration, Duration)>,
    strangers: Vec<(Duration, Duration)>,
    dirs: [Dir; 2],
    last_seen: Duration,
}

/// The law's check: `None` when no leg carried a datagram.
pub fn check(journal: &[Entry]) -> Option<Lockstep> {
    let mut legs: BTreeMap<&str, Leg> = BTreeMap::new();
    let mut steps = 0;
    for (index, e) in journal.iter().enumerate() {
        let Step::Link(s) = &e.step else { continue };
        let r = match s {
            LinkStep::Leg { plan, outages, forged, strangers } => {
                let leg = Leg {
                    plan: plan.clone(),
                    outages: outages.clone(),
                    forged: forged.clone(),
                    strangers: strangers.clone(),
                    dirs: Default::default(),
                    last_seen: Duration::ZERO,
                };
                legs.insert(e.host.as_str(), leg);
                Ok(())
            }
            LinkStep::Crossed { at, up, sent, refused, out } => {
                steps += 1;
                match legs.get_mut(e.host.as_str()) {
                    Some(leg) => leg.crossed(*at, *up, sent, *refused, out),
                    None => differs("a datagram on a leg", "a leg the plan made"),
                }
            }
            LinkStep::Released { at, up, out } => match legs.get_mut(e.host.as_str()) {
                Some(leg) => leg.released(*at, *up, out),
                None => differs("a release on a leg", "a leg the plan made"),
            },
        };
        if let Err((model, spec)) = r {
            return Some(Lockstep::Differs { index, entry: e.describe(), model, spec });
        }
    }
    if steps == 0 {
        return None;
    }
    let mut unjudged = Vec::new();
    for (name, leg) in &legs {
        if let Err((model, spec)) = leg.rates(name, &mut unjudged) {
            let entry = format!("the whole run, {name}'s leg");
            return Some(Lockstep::Differs { index: journal.len(), entry, model, spec });
        }
    }
    if unjudged.is_empty() {
        return Some(Lockstep::Agreed { steps });
    }
    Some(Lockstep::Unjudged { steps, unjudged })
}

impl Leg {
    fn open(windows: &[(Duration, Duration)], at: Duration) -> bool {
        windows.iter().any(|(from, until)| *from <= at && at < *until)
    }

    /// Strangers act on the host's way up at `at`, or did so recently enough
    /// that one of their datagrams may still be held.
    fn strangers_near(&self, at: Duration) -> bool {
        let hold = Duration::from_millis(self.plan.reorder_hold_max_ms);
        self.strangers.iter().any(|(from, until)| *from <= at && at < *until + hold)
    }

    /// The outage that decides a datagram at `at`: `(drops, refuses)`. Outages
    /// that overlap act in the plan's order: the first open one that takes
    /// this datagram (a blackhole any, the UDP ones only UDP) decides.
    fn outage(&self, at: Duration, tcp: bool) -> (bool, bool) {
        let open = self.outages.iter().filter(|(from, until, _)| *from <= at && at < *until).map(|w| w.2);
        match open.into_iter().find(|o| *o == Outage::Blackhole || !tcp) {
            Some(Outage::UdpRefused) => (true, true),
            Some(_) => (true, false),
            None => (false, false),
        }
    }

    /// Whether the leg's plan could let a datagram come out `delay` after `at`:
    /// the one-way delay plus the jitter, plus what sets copies apart.
    fn delay_fits(&self, at: Duration, delay: Duration, dir: &Dir) -> R {
        let p = &self.plan;
        let base = Duration::from_millis(p.one_way_ms);
        let mut slack = Duration::from_millis(p.jitter_ms);
        if p.duplicate_pct > 0.0 {
            slack += APART;
        }
        // A forged copy and a stranger's datagram each run ahead of the original.
        for attack in [&self.forged, &self.strangers] {
            if Self::open(attack, at) {
                slack += APART;
            }
        }
        if p.reorder_pct > 0.0 {
            slack += BEHIND;
        }
        let mut latest = base + slack;
        if p.jitter_ordered {
            latest = latest.max(dir.last_arrival.saturating_sub(at));
        }
        if delay < base || delay > latest {
            let jitter = if p.jitter_ordered { "ordered jitter" } else { "jitter" };
            return differs(
                format!("a copy {} µs on the way", delay.as_micros()),
                format!(
                    "the one-way {} ms plus at most the {} ms {jitter} (and {} µs apart, {} µs at most)",
                    p.one_way_ms,
                    p.jitter_ms,
                    (slack.as_micros() as u64).saturating_sub(p.jitter_ms * 1000),
                    latest.as_micros()
                ),
            );
        }
        Ok(())
    }

    fn crossed(&mut self, at: Duration, up: bool, sent: &Sent, refused: bool, out: &[Out]) -> R {
        self.last_seen = self.last_seen.max(at);
        let (drops, refuses) = self.outage(at, sent.tcp);
        if refused != refuses {
            return differs(format!("refused={refused}"), format!("refused={refuses}: only UDP under an open udp_refused outage is refused"));
        }
        let d = usize::from(!up);
        let maybe_before = self.dirs[d].passes.maybe;
        // A copy out at once surely passed the reorder piece unless a hold of the
        // same bytes was waiting (it may be that hold let go), or it is a stranger's.
        let sure = out.iter().filter(|o| o.hash == sent.hash && self.dirs[d].held.get(&o.hash).is_none_or(|h| h.is_empty())).count();
        let (own, let_go) = self.sort_out(d, at, up, sent, out)?;
        // Its twin surely passed; the first copy may be a hold let go behind it.
        let twin = own.len() == 2 && self.plan.reorder_k == 1 && self.plan.reorder_pct > 0.0;
        self.dirs[d].twins += u64::from(twin);
        self.dirs[d].passes.step(sure.min(out.len() - let_go).saturating_sub(usize::from(twin)), out.len() - let_go);
        if drops {
            return match own.is_empty() {
                true => Ok(()),
                false => differs(
                    format!("{} copies out during an outage", own.len()),
                    "nothing through an open blackhole, nor UDP through a blocked or refused window",
                ),
            };
        }
        if self.plan.mtu > 0 && sent.ip_len > self.plan.mtu {
            return match own.is_empty() {
                true => Ok(()),
                false => differs(format!("a {} B IP packet through", sent.ip_len), format!("dropped: longer than the {} B MTU", self.plan.mtu)),
            };
        }
        if up && !sent.tcp && Self::open(&self.forged, at) {
            let forged_out = out.iter().filter(|o| o.hash == sent.hash && o.src != sent.src).count();
            self.dirs[d].forging.push((at, forged_out.min(2) as u8));
        }
        let ordered_check = self.plan.jitter_ordered && self.plan.duplicate_pct == 0.0 && self.plan.reorder_pct == 0.0;
        let idx = self.dirs[d].copies.len();
        self.dirs[d].copies.push(0);
        self.dirs[d].at.push(at);
        // A lone copy with nothing else that sets copies apart shows the jitter drawn.
        let lone =
            own.len() == 1 && self.plan.duplicate_pct == 0.0 && !self.plan.jitter_ordered && !Self::open(&self.forged, at) && !Self::open(&self.strangers, at);
        if let (true, Some(o)) = (lone, own.first()) {
            let extra = o.delay.saturating_sub(Duration::from_millis(self.plan.one_way_ms));
            self.dirs[d].jitter.0 += extra.as_micros() as f64;
            self.dirs[d].jitter.1 += 1;
        }
        for o in own {
            self.arrives(d, idx, at, o.delay, ordered_check)?;
        }
        self.may_hold(d, (idx, maybe_before), at, up, sent, out);
        Ok(())
    }

    /// What came out beside datagram `sent` crossing way `d`: its own copies (at
    /// most two, a held copy of the same bytes that is due going first), held ones
    /// let go behind it (judged here, counted in the second value), and the
    /// attacker's copies, which only forged ports or strangers may send.
    fn sort_out<'o>(&mut self, d: usize, at: Duration, up: bool, sent: &Sent, out: &'o [Out]) -> Result<(Vec<&'o Out>, usize), (String, String)> {
        let mut own = Vec::new();
        let mut extra = 0;
        let mut let_go = 0;
        for o in out {
            // Identical bytes sent again (a retransmission) may let go a held
            // earlier copy of themselves: an earlier hold is let go before this
            // datagram counts a second copy.
            let held = self.dirs[d].held_copy(o).is_some();
            // ... if the countdown lets one go now (else it is this datagram's duplicate).
            let due = held
                && self.dirs[d]
                    .held_copies(o)
                    .any(|i| hold::behind_one(&self.dirs[d].held[&o.hash][i], at, self.dirs[d].passes, out.len(), self.plan.reorder_k).is_ok());
            if o.hash == sent.hash && o.src == sent.src && (own.is_empty() || (own.len() < 2 && !due)) {
                own.push(o);
            } else if held {
                self.delay_fits(at, o.delay, &self.dirs[d])?;
                self.let_go(d, at, o, Some(out.len()))?;
                let_go += 1;
            } else if !attacker_port(o.hash == sent.hash, o.src) {
                let model = format!("a datagram from {} beside one from {}", o.src, sent.src);
                return differs(model, "a forged copy from a port from 20,000 to 49,151, a stranger's from ports 10,000 to 19,999 (docs/fleet.md)")
                    .map(|()| (own, let_go));
            } else {
                extra += 1;
            }
        }
        if extra > 0 && !(up && ((!sent.tcp && Self::open(&self.forged, at)) || self.strangers_near(at))) {
            let model = format!("{extra} datagrams that are neither this one nor one held");
            return differs(model, "copies from forged ports or strangers only while those act on the host's way up, and never for TCP")
                .map(|()| (own, let_go));
        }
        Ok((own, let_go))
    }

    /// One of the datagram's own copies (sent at `at`, number `idx` on way `d`)
    /// arrived after `delay`: within the link's delay, and in order when jitter
    /// is ordered and nothing else reorders (`ordered_check`).
    fn arrives(&mut self, d: usize, idx: usize, at: Duration, delay: Duration, ordered_check: bool) -> R {
        self.delay_fits(at, delay, &self.dirs[d])?;
        if ordered_check && at + delay < self.dirs[d].last_arrival {
            return differs(
                format!("arrives at {} µs", (at + delay).as_micros()),
                format!("not ahead of the one sent before it ({} µs): jitter_ordered", self.dirs[d].last_arrival.as_micros()),
            );
        }
        let dir = &mut self.dirs[d];
        dir.last_arrival = dir.last_arrival.max(at + delay);
        dir.copies[idx] += 1;
        Ok(())
    }

    /// Each copy that did not come out may be held (or lost): this datagram's,
    /// and a forged copy of it (the same bytes from another port).
    fn may_hold(&mut self, d: usize, (idx, maybe_before): (usize, u64), at: Duration, up: bool, sent: &Sent, out: &[Out]) {
        if self.plan.reorder_pct <= 0.0 {
            return;
        }
        let max = if self.plan.duplicate_pct > 0.0 { 2 } else { 1 };
        let forging = up && !sent.tcp && Self::open(&self.forged, at);
        let forged_out = out.iter().filter(|o| o.hash == sent.hash && o.src != sent.src).count();
        let dir = &mut self.dirs[d];
        let hold = |of| Hold { of, src: sent.src, since: at, sure_after: dir.passes.sure, maybe_before };
        let mut new: Vec<Hold> = (dir.copies[idx]..max).map(|_| hold(Some(idx))).collect();
        new.extend(((if forging { forged_out } else { usize::from(max) })..usize::from(max)).map(|_| hold(None)));
        dir.held.entry(sent.hash).or_default().extend(new);
    }

    fn released(&mut self, at: Duration, up: bool, out: &[Out]) -> R {
        self.last_seen = self.last_seen.max(at);
        let d = usize::from(!up);
        for o in out {
            self.delay_fits(at, o.delay, &self.dirs[d])?;
            let dir = &mut self.dirs[d];
            dir.last_arrival = dir.last_arrival.max(at + o.delay);
            self.let_go(d, at, o, None)?;
        }
        Ok(())
    }

    /// A held copy let go at `at`: one of its datagram's held copies, or a
    /// stranger's datagram held on the way up (its bytes were never seen).
    /// `behind`: let go behind a datagram that passed, in a step of that many
    /// copies out (else on its own).
    fn let_go(&mut self, d: usize, at: Duration, o: &Out, behind: Option<usize>) -> R {
        let (k, hold_max) = (self.plan.reorder_k, Duration::from_millis(self.plan.reorder_hold_max_ms));
        let dir = &mut self.dirs[d];
        let judge = |h: &Hold| match behind {
            Some(n) => hold::behind_one(h, at, dir.passes, n, k),
            None => hold::on_its_own(h, at, dir.passes, (k, hold_max)),
        };
        // Of the holds of identical bytes, one the countdown explains, if any.
        let waiting = dir.held.get(&o.hash);
        let pick = dir.held_copies(o).find(|&i| waiting.is_some_and(|w| judge(&w[i]).is_ok())).or_else(|| dir.held_copy(o));
        if let Some(i) = pick {
            let h = dir.held.get_mut(&o.hash).expect("held").remove(i);
            judge(&h)?;
            match h.of {
                Some(i) => {
                    dir.copies[i] += 1;
                    dir.released += 1;
                }
                None => dir.forged_released += 1,
            }
            return Ok(());
        }
        if d == 0 && self.strangers_near(at) {
            return Ok(());
        }
        differs("a copy of a datagram that was not held, or a third copy", "each datagram once, or twice with duplicate_pct; a held one let go once")
    }

    /// The shares of the run against the plan's rates.
    fn rates(&self, name: &str, unjudged: &mut Vec<String>) -> R {
        let p = &self.plan;
        let hold = Duration::from_millis(p.reorder_hold_max_ms);
        for (d, dir) in self.dirs.iter().enumerate() {
            let way = if d == 0 { "up" } else { "down" };
            // A datagram held when the run ended is neither lost nor let go.
            let held_at_end = |i: usize| p.reorder_pct > 0.0 && dir.at[i] + hold > self.last_seen;
            let counted: Vec<u8> = (0..dir.copies.len()).filter(|&i| !(dir.copies[i] == 0 && held_at_end(i))).map(|i| dir.copies[i]).collect();
            let n = counted.len() as u64;
            let lost = counted.iter().filter(|c| **c == 0).count() as u64;
            let through = n - lost;
            let doubled = counted.iter().filter(|c| **c == 2).count() as u64;
            let copies: u64 = counted.iter().map(|c| u64::from(*c)).sum();
            binomial(&format!("{name} {way}: lost"), n, lost, p.loss_pct / 100.0, unjudged)?;
            binomial(&format!("{name} {way}: duplicated"), through, doubled, p.duplicate_pct / 100.0, unjudged)?;
            binomial(&format!("{name} {way}: held"), copies - dir.twins, dir.released, p.reorder_pct / 100.0, unjudged)?;
            // Forged moves copy every UDP datagram on the way up (docs/fault-plans.md,
            // RFC 9000 section 9.3.3), before loss acts on each copy alike: too few
            // forged copies is a loss share too high (duplication and holds only add).
            let forging: Vec<u8> = dir.forging.iter().filter(|(at, _)| !(p.reorder_pct > 0.0 && *at + hold > self.last_seen)).map(|f| f.1).collect();
            let forged: u64 = forging.iter().map(|c| u64::from(*c)).sum::<u64>() + dir.forged_released;
            let n = forging.len() as u64;
            too_many(&format!("{name} {way}: forged copies missing"), n, n.saturating_sub(forged), p.loss_pct / 100.0, unjudged)?;
            if p.jitter_ms > 0 && !p.jitter_ordered {
                let (sum, n) = dir.jitter;
                super::uniform_mean(&format!("{name} {way}: jitter"), sum, n, (0.0, p.jitter_ms as f64 * 1000.0), unjudged)?;
            }
        }
        Ok(())
    }
}

/// `k` of `n` at rate `p`: within the bound, or too few to judge (noted).
fn binomial(what: &str, n: u64, k: u64, p: f64, unjudged: &mut Vec<String>) -> R {
    let spec = |bound: &str| format!("{what}: {k} of {n} is {bound} at the plan's {:.3} % (binomial tail under 10^-9)", p * 100.0);
    if p <= 0.0 {
        return if k == 0 { Ok(()) } else { differs(format!("{what}: {k} of {n}"), format!("{what}: none (the plan's rate is 0)")) };
    }
    if n == 0 {
        return Ok(());
    }
    let q = k as f64 / n as f64;
    if (n as f64) * kl(q, p) > ALPHA_LN {
        return differs(format!("{what}: {k} of {n} ({:.3} %)", q * 100.0), spec(if q > p { "too many" } else { "too few" }));
    }
    // Could this run have told the plan's rate from twice it (or half of it, past 50 %)?
    let other = if p <= 0.5 { 2.0 * p } else { p / 2.0 };
    if (n as f64) * kl(other, p) <= ALPHA_LN {
        unjudged.push(format!("{what} ({n} datagrams)"));
    }
    Ok(())
}

/// A datagram beside a sender's own that is neither its copy nor one held: a
/// forged copy (the same bytes) from a forged port, or a stranger's behind the
/// same public address (docs/fleet.md: ports 10,000 to 19,999; forged copies
/// from 20,000, below the NATs' own from 49,152).
fn attacker_port(same_bytes: bool, src: SocketAddr) -> bool {
    let range = if same_bytes { 20_000..=49_151 } else { 10_000..=19_999 };
    range.contains(&src.port())
}

/// `k` of `n` at most the bound above rate `p` (a one-sided [`binomial`]: a count
/// that other pieces can only lower).
fn too_many(what: &str, n: u64, k: u64, p: f64, unjudged: &mut Vec<String>) -> R {
    if n == 0 || (k as f64) <= p * n as f64 {
        if n > 0 && (n as f64) * kl((2.0 * p).clamp(0.5, 1.0), p) <= ALPHA_LN {
            unjudged.push(format!("{what} ({n} datagrams)"));
        }
        return Ok(());
    }
    binomial(what, n, k, p, unjudged)
}

/// Kullback-Leibler divergence of Bernoulli(q) from Bernoulli(p): the Chernoff
/// bound on the binomial tail is exp(-n KL(q || p)).
fn kl(q: f64, p: f64) -> f64 {
    let term = |a: f64, b: f64| {
        if a <= 0.0 {
            0.0
        } else if b <= 0.0 {
            f64::INFINITY
        } else {
            a * (a / b).ln()
        }
    };
    term(q, p) + term(1.0 - q, 1.0 - p)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn leg(plan: LinkPlan, outages: Vec<(Duration, Duration, Outage)>) -> Entry {
        Entry { t_ms: 0, host: "phone".into(), step: Step::Link(LinkStep::Leg { plan, outages, forged: vec![], strangers: vec![] }) }
    }

    fn src() -> SocketAddr {
        "192.0.2.1:49152".parse().unwrap()
    }

    fn crossed(at_ms: u64, hash: u64, refused: bool, delays_us: &[u64]) -> Entry {
        let sent = Sent { src: src(), tcp: false, ip_len: 128, hash };
        let out = delays_us.iter().map(|d| Out { delay: Duration::from_micros(*d), hash, src: src() }).collect();
        Entry { t_ms: at_ms, host: "phone".into(), step: Step::Link(LinkStep::Crossed { at: Duration::from_millis(at_ms), up: true, sent, refused, out }) }
    }

    fn plan(loss: f64, jitter_ms: u64) -> LinkPlan {
        LinkPlan { loss_pct: loss, jitter_ms, ..LinkPlan::default() }
    }

    #[test]
    fn delays_within_one_way_and_jitter_agree() {
        let j = vec![leg(plan(0.0, 5), vec![]), crossed(0, 1, false, &[20_000]), crossed(1, 2, false, &[25_000]), crossed(2, 3, false, &[22_500])];
        // Three draws agree, but are too few to judge the jitter's mean.
        let Some(Lockstep::Unjudged { steps: 3, unjudged }) = check(&j) else { panic!("{:?}", check(&j)) };
        assert!(unjudged.iter().any(|u| u.contains("jitter")), "{unjudged:?}");
        for bad in [19_999, 25_001] {
            let j = vec![leg(plan(0.0, 5), vec![]), crossed(0, 1, false, &[bad])];
            assert!(matches!(check(&j), Some(Lockstep::Differs { index: 1, .. })), "{bad} µs");
        }
    }

    /// Jitter must be drawn across its range, not only at one end: a run whose
    /// copies all take the one-way delay alone fails once it has enough of them.
    #[test]
    fn a_jitter_never_drawn_is_caught() {
        let run = |extra: &dyn Fn(u64) -> u64| {
            let mut j = vec![leg(plan(0.0, 10), vec![])];
            j.extend((0..100u64).map(|i| crossed(i, i + 1, false, &[20_000 + extra(i)])));
            check(&j)
        };
        assert!(matches!(run(&|i| (i * 7919) % 10_001), Some(Lockstep::Agreed { steps: 100 })), "{:?}", run(&|i| (i * 7919) % 10_001));
        assert!(matches!(run(&|_| 0), Some(Lockstep::Differs { .. })), "no jitter drawn");
        assert!(matches!(run(&|_| 10_000), Some(Lockstep::Differs { .. })), "always the most");
    }

    #[test]
    fn a_loss_without_loss_in_the_plan_is_caught() {
        let j = vec![leg(plan(0.0, 0), vec![]), crossed(0, 1, false, &[20_000]), crossed(1, 2, false, &[])];
        assert!(matches!(check(&j), Some(Lockstep::Differs { .. })));
    }

    #[test]
    fn outages_drop_and_refuse_only_in_their_window() {
        let w = |o| vec![(Duration::from_millis(10), Duration::from_millis(20), o)];
        let ok = vec![leg(plan(0.0, 0), w(Outage::UdpRefused)), crossed(9, 1, false, &[20_000]), crossed(10, 2, true, &[]), crossed(20, 3, false, &[20_000])];
        assert_eq!(check(&ok), Some(Lockstep::Agreed { steps: 3 }));
        let late = vec![leg(plan(0.0, 0), w(Outage::Blackhole)), crossed(15, 1, false, &[20_000])];
        assert!(matches!(check(&late), Some(Lockstep::Differs { .. })), "through a blackhole");
        let refused_off = vec![leg(plan(0.0, 0), vec![]), crossed(15, 1, true, &[])];
        assert!(matches!(check(&refused_off), Some(Lockstep::Differs { .. })), "refused with no outage");
    }

    #[test]
    fn a_loss_share_far_from_the_plan_is_caught_both_ways() {
        let run = |lost_every: u64| {
            let mut j = vec![leg(plan(5.0, 0), vec![])];
            for i in 0..4000u64 {
                let d: &[u64] = if i % lost_every == 0 { &[] } else { &[20_000] };
                j.push(crossed(i, i + 1, false, d));
            }
            check(&j)
        };
        assert!(matches!(run(20), Some(Lockstep::Agreed { steps: 4000 })), "5 % lost: {:?}", run(20));
        assert!(matches!(run(10), Some(Lockstep::Differs { .. })), "10 % lost");
        assert!(matches!(run(100), Some(Lockstep::Differs { .. })), "1 % lost");
    }

    /// Forged moves copy every UDP datagram on the way up: a window in which the
    /// copies never come is caught, and copies from ports no forger uses; with
    /// them (from forged ports) it agrees.
    #[test]
    fn forged_moves_that_forge_nothing_are_caught() {
        let run = |forge: bool, port: u16| {
            let forged = vec![(Duration::ZERO, Duration::from_secs(1_000))];
            let mut j = vec![Entry {
                t_ms: 0,
                host: "phone".into(),
                step: Step::Link(LinkStep::Leg { plan: plan(0.0, 0), outages: vec![], forged, strangers: vec![] }),
            }];
            for i in 0..50u64 {
                let mut e = crossed(i * 100, i + 1, false, &[20_000]);
                if let (true, Step::Link(LinkStep::Crossed { out, .. })) = (forge, &mut e.step) {
                    let other = SocketAddr::new(src().ip(), port + i as u16);
                    out.push(Out { delay: Duration::from_micros(19_000), hash: i + 1, src: other });
                }
                j.push(e);
            }
            check(&j)
        };
        assert!(matches!(run(true, 20_000), Some(Lockstep::Agreed { steps: 50 })), "{:?}", run(true, 20_000));
        assert!(matches!(run(false, 20_000), Some(Lockstep::Differs { .. })), "{:?}", run(false, 20_000));
        // A copy from a port no forger uses (a stranger's range, or the NAT's own).
        for port in [10_000, 50_000] {
            assert!(matches!(run(true, port), Some(Lockstep::Differs { .. })), "port {port}: {:?}", run(true, port));
        }
    }

    /// Every datagram duplicated and `reorder_k` 1: in each ten, the second copy
    /// of the first is held and let go behind the next datagram's first copy,
    /// and the first copy of the second is held and let go just behind its own
    /// twin, which looks like two copies passing. Over the copies whose hold can
    /// be seen (all but the first copy of a datagram whose two copies came out
    /// together) the held share is 1 in 11; counting the unseen one as passed,
    /// it would be 1 in 20, far below the plan.
    #[test]
    fn a_copy_let_go_behind_its_own_twin_is_left_out_of_the_held_share() {
        let p = LinkPlan { duplicate_pct: 100.0, reorder_pct: 100.0 / 11.0, reorder_k: 1, ..LinkPlan::default() };
        let mut j = vec![leg(p, vec![])];
        for i in 0..20_000u64 {
            let delays: &[u64] = match i % 10 {
                0 => &[20_000],
                1 => &[20_000, 21_000],
                2 => &[21_000, 21_001],
                _ => &[20_000, 21_000],
            };
            let mut e = crossed(i, i + 1, false, delays);
            if let (1, Step::Link(LinkStep::Crossed { out, .. })) = (i % 10, &mut e.step) {
                out.insert(1, Out { delay: Duration::from_micros(20_001), hash: i, src: src() });
            }
            j.push(e);
        }
        assert!(matches!(check(&j), Some(Lockstep::Agreed { steps: 20_000 })), "{:?}", check(&j));
    }

    #[test]
    fn a_short_run_says_it_cannot_judge_the_rate() {
        let j = vec![leg(plan(5.0, 0), vec![]), crossed(0, 1, false, &[20_000])];
        let Some(Lockstep::Unjudged { steps: 1, unjudged }) = check(&j) else { panic!("{:?}", check(&j)) };
        assert!(unjudged.iter().any(|u| u.contains("lost")), "noted: {unjudged:?}");
    }
}
