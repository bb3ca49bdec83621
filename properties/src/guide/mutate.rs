//! The typed plan mutations (issue 36 point 2): what the guided search does to a
//! kept plan to make a new case. Each works on the [`FaultPlan`] as data, draws
//! what it needs from the engine's seeded random source, and is undone when the
//! plan it makes is not one the scenario's [`Domain`] could have drawn ([`fits`]):
//! a law is only judged under the faults it was written for.

use std::collections::BTreeSet;

use ftw_sim::plan::kind::Draw;
use ftw_sim::plan::{FaultPlan, TimedFault};
use libafl_bolts::rands::Rand;

pub use crate::strategy::Case;
use crate::strategy::{Domain, Kind, KINDS};

/// One mutation of a plan.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum Mutation {
    /// A fault's time moves by up to a fifth of the domain's window.
    Shift,
    /// An outage is stretched (twice as long) or shrunk (half), within the domain's longest.
    Stretch,
    /// A fault is drawn again: same kind, host and time, new values.
    Redraw,
    /// A fault is drawn again on another host of the domain.
    Retarget,
    /// A fault of a kind of the domain is added at a drawn time.
    Add,
    /// A fault is dropped.
    Drop,
    /// A leg's link settings (and the fleet) are taken from a fresh swarm draw.
    Links,
    /// A new run seed (the plan unchanged).
    Reseed,
    /// The timed faults of a fresh swarm draw added to the plan's.
    Graft,
}

/// Every mutation, in the order the engine's mutator tuple lists them.
pub const MUTATIONS: &[Mutation] = &[
    Mutation::Shift,
    Mutation::Stretch,
    Mutation::Redraw,
    Mutation::Retarget,
    Mutation::Add,
    Mutation::Drop,
    Mutation::Links,
    Mutation::Reseed,
    Mutation::Graft,
];

impl Mutation {
    pub fn name(self) -> &'static str {
        match self {
            Mutation::Shift => "shift",
            Mutation::Stretch => "stretch",
            Mutation::Redraw => "redraw",
            Mutation::Retarget => "retarget",
            Mutation::Add => "add",
            Mutation::Drop => "drop",
            Mutation::Links => "links",
            Mutation::Reseed => "reseed",
            Mutation::Graft => "graft",
        }
    }
}

/// Apply `m` to `case` with `rand`; false (and `case` unchanged) when it does not
/// apply to this plan or makes one the domain could not have drawn.
pub fn apply(m: Mutation, case: &mut Case, domain: &Domain, rand: &mut impl Rand) -> bool {
    let before = case.clone();
    let changed = match m {
        Mutation::Shift => shift(&mut case.plan, domain, rand),
        Mutation::Stretch => stretch(&mut case.plan, domain, rand),
        Mutation::Redraw => redraw(&mut case.plan, domain, rand, false),
        Mutation::Retarget => redraw(&mut case.plan, domain, rand, true),
        Mutation::Add => add(&mut case.plan, domain, rand),
        Mutation::Drop => drop_one(&mut case.plan, rand),
        Mutation::Links => links(&mut case.plan, domain, rand),
        Mutation::Graft => graft(&mut case.plan, domain, rand),
        Mutation::Reseed => {
            case.seed = ftw_sim::RunSeed(rand.next());
            true
        }
    };
    if changed && case.plan.faults.len() > 1 {
        case.plan.faults.sort_by_key(|f| f.at_ms);
    }
    if !changed || *case == before || !fits(&case.plan, domain) {
        *case = before;
        return false;
    }
    true
}

/// Splice: `a`'s faults before a drawn time and `b`'s from it on, `a`'s links.
pub fn splice(a: &mut Case, b: &Case, domain: &Domain, rand: &mut impl Rand) -> bool {
    let before = a.clone();
    let cut = step_time(domain, rand);
    let mut faults: Vec<TimedFault> = a.plan.faults.iter().filter(|f| f.at_ms < cut).cloned().collect();
    faults.extend(b.plan.faults.iter().filter(|f| f.at_ms >= cut).cloned());
    a.plan.faults = faults;
    if *a == before || !fits(&a.plan, domain) {
        *a = before;
        return false;
    }
    true
}

/// Whether the domain could have drawn `plan`: valid, every kind of the domain,
/// every fault on a host of the domain and inside its window, every always-on kind there.
pub fn fits(plan: &FaultPlan, domain: &Domain) -> bool {
    if plan.validate().is_err() {
        return false;
    }
    let allowed: BTreeSet<Kind> = domain.kinds.iter().chain(domain.always).copied().collect();
    // A UDP block drawn longer than a path drop's least (a domain with outages of
    // hours) calls itself a path drop: it is the domain's UDP block.
    let drawn_as = |k: Kind| if k == Kind::PathDrop && !allowed.contains(&k) && allowed.contains(&Kind::UdpBlocked) { Kind::UdpBlocked } else { k };
    let used: BTreeSet<Kind> = Kind::used_by(plan).into_iter().map(drawn_as).collect();
    let always_timed = domain.always.iter().filter(|k| k.is_timed());
    used.is_subset(&allowed)
        && always_timed.clone().all(|k| used.contains(k))
        && plan.faults.len() <= 2 * (domain.faults_max + domain.always.len())
        && plan.faults.iter().all(|f| domain.hosts.contains(&f.fault.host()) && (domain.faults_from_ms..=domain.horizon_ms).contains(&f.at_ms))
}

/// A time in the domain's window, on its 100 ms grid.
fn step_time(domain: &Domain, rand: &mut impl Rand) -> u64 {
    let (from, to) = (domain.faults_from_ms / 100, domain.horizon_ms / 100);
    rand.between(from as usize, to as usize) as u64 * 100
}

fn pick(n: usize, rand: &mut impl Rand) -> Option<usize> {
    (n > 0).then(|| rand.below_or_zero(n))
}

fn shift(plan: &mut FaultPlan, domain: &Domain, rand: &mut impl Rand) -> bool {
    let Some(i) = pick(plan.faults.len(), rand) else { return false };
    let span = (domain.horizon_ms.saturating_sub(domain.faults_from_ms) / 5 / 100).max(1) as usize;
    let by = rand.between(1, span) as u64 * 100;
    let f = &mut plan.faults[i];
    f.at_ms = if rand.coinflip(0.5) { f.at_ms.saturating_add(by).min(domain.horizon_ms) } else { f.at_ms.saturating_sub(by).max(domain.faults_from_ms) };
    true
}

/// The drawn values that give a fault like `f` of `kind` again (its host and
/// time, its length as an outage length, a new extra value).
fn draw_like(f: &TimedFault, host: ftw_sim::host::Host, for_ms: u64, rand: &mut impl Rand) -> Draw {
    Draw { host, at_ms: f.at_ms, for_ms, extra: rand.between(1, 128) as u32 }
}

fn stretch(plan: &mut FaultPlan, domain: &Domain, rand: &mut impl Rand) -> bool {
    let outages: Vec<usize> = (0..plan.faults.len()).filter(|&i| plan.faults[i].fault.def().lasts_ms() > 0).collect();
    let Some(j) = pick(outages.len(), rand) else { return false };
    let f = &plan.faults[outages[j]];
    let old = f.fault.def().lasts_ms();
    let longest = domain.outage_max_ms.max(100);
    let new = if rand.coinflip(0.5) { old.saturating_mul(2) } else { old / 2 };
    let new = (new / 100 * 100).clamp(100, longest.max(old.min(longest)));
    // Through the kind's own serde form: its `for_ms`, whatever the kind.
    let Ok(toml::Value::Table(mut t)) = toml::Value::try_from(&f.fault) else { return false };
    if !t.contains_key("for_ms") {
        return false;
    }
    t.insert("for_ms".into(), toml::Value::Integer(new as i64));
    match toml::Value::Table(t).try_into() {
        Ok(k) => {
            plan.faults[outages[j]].fault = k;
            true
        }
        Err(_) => false,
    }
}

fn redraw(plan: &mut FaultPlan, domain: &Domain, rand: &mut impl Rand, retarget: bool) -> bool {
    let Some(i) = pick(plan.faults.len(), rand) else { return false };
    let f = plan.faults[i].clone();
    let kind = f.fault.def().swarm();
    let host = if retarget {
        let others: Vec<_> = domain.hosts.iter().copied().filter(|h| *h != f.fault.host()).collect();
        match pick(others.len(), rand) {
            Some(h) => others[h],
            None => return false,
        }
    } else {
        f.fault.host()
    };
    let for_ms = rand.between(1, (domain.outage_max_ms / 100).max(1) as usize) as u64 * 100;
    let drawn = kind.draw(&draw_like(&f, host, for_ms, rand));
    if drawn.is_empty() {
        return false;
    }
    plan.faults.splice(i..=i, drawn);
    true
}

fn add(plan: &mut FaultPlan, domain: &Domain, rand: &mut impl Rand) -> bool {
    let timed: Vec<Kind> = KINDS.iter().copied().filter(|k| k.is_timed() && domain.kinds.contains(k)).collect();
    let (Some(k), Some(h)) = (pick(timed.len(), rand), pick(domain.hosts.len(), rand)) else { return false };
    let for_ms = rand.between(1, (domain.outage_max_ms / 100).max(1) as usize) as u64 * 100;
    let d = Draw { host: domain.hosts[h], at_ms: step_time(domain, rand), for_ms, extra: rand.between(1, 128) as u32 };
    let drawn = timed[k].draw(&d);
    let added = !drawn.is_empty();
    plan.faults.extend(drawn);
    added
}

fn drop_one(plan: &mut FaultPlan, rand: &mut impl Rand) -> bool {
    let Some(i) = pick(plan.faults.len(), rand) else { return false };
    plan.faults.remove(i);
    true
}

/// Both legs, the fleet and the processing of a fresh swarm draw (seeded from `rand`).
fn links(plan: &mut FaultPlan, domain: &Domain, rand: &mut impl Rand) -> bool {
    let fresh = crate::strategy::draw(domain, ftw_sim::RunSeed(rand.next())).current().plan;
    if rand.coinflip(0.5) {
        plan.phone = fresh.phone;
    } else {
        plan.box_ = fresh.box_;
    }
    if domain.fleet && rand.coinflip(0.5) {
        plan.fleet = fresh.fleet;
    }
    true
}

/// The timed faults of a fresh swarm draw (seeded from `rand`) added.
fn graft(plan: &mut FaultPlan, domain: &Domain, rand: &mut impl Rand) -> bool {
    let fresh = crate::strategy::draw(domain, ftw_sim::RunSeed(rand.next())).current().plan;
    let added = !fresh.faults.is_empty();
    plan.faults.extend(fresh.faults);
    added
}

#[cfg(test)]
mod tests {
    use super::*;
    use libafl_bolts::rands::StdRand;

    /// Every mutation keeps every scenario's plans inside its domain, and each
    /// changes some drawn plan.
    #[test]
    fn mutations_stay_in_the_domain_and_change_plans() {
        let mut rand = StdRand::with_seed(7);
        let mut changed = BTreeSet::new();
        for def in ftw_sim::scenario::SCENARIOS {
            let domain = &def.domain;
            for s in 1..40u64 {
                let mut case = crate::strategy::draw(domain, ftw_sim::RunSeed(s)).current();
                assert!(fits(&case.plan, domain), "{}: the swarm draw of seed {s} fits its own domain: {:?}", def.name, case.plan);
                for &m in MUTATIONS {
                    if apply(m, &mut case, domain, &mut rand) {
                        changed.insert(m);
                    }
                    assert!(fits(&case.plan, domain), "{}: {} left the domain: {:?}", def.name, m.name(), case.plan);
                }
            }
        }
        assert_eq!(changed.len(), MUTATIONS.len(), "mutations that never applied: {:?}", MUTATIONS.iter().filter(|m| !changed.contains(m)).collect::<Vec<_>>());
    }
}
