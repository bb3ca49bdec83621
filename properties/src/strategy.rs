//! Fault plans as proptest strategies: a whole scenario's network and timed
//! faults drawn as typed data ([`FaultPlan`]) with the run seed.
//!
//! Swarm testing: each case first draws which fault kinds are on (each kind with
//! probability one half, out of the kinds its [`Domain`] allows), then draws
//! values for the kinds that are on. Cases therefore differ in *which* faults
//! they mix, not only in how much of each.
//!
//! Shrinking goes toward small plans: a kind's switch shrinks from on to off
//! (removing every fault of that kind at once), the list of timed faults loses
//! elements, each value shrinks to its mildest (loss to 0.1 %, outages to
//! 100 ms, faults to the domain's earliest time), and an unset link value falls back to the
//! default link (SPEC section 6: 20 ms each way, no loss).

use std::collections::BTreeSet;

pub use ftw_sim::domain::{Domain, Kind, FLEET_REACTORS_DRAWN, KINDS, PATH_DROP_MAX_MS, PATH_DROP_MIN_MS, QUIC_SURVIVABLE};
use ftw_sim::plan::kind::Draw;
use ftw_sim::plan::{FaultPlan, FleetPlan, FleetRouting, LinkPlan, TimedFault};
use ftw_sim::RunSeed;
use proptest::prelude::*;
use proptest::strategy::{BoxedStrategy, ValueTree};
use proptest::test_runner::{Config, RngAlgorithm, TestRng, TestRunner};
use sha2::{Digest, Sha256};

/// The domain a scenario declares (its [`ftw_sim::scenario::ScenarioDef`]);
/// the default one for a name no scenario has.
pub fn domain_for(scenario: &str) -> Domain {
    ftw_sim::scenario::find(scenario).map(|d| d.domain.clone()).unwrap_or_default()
}

/// The QUIC stand-in a run needs whatever it is asked for: the one a switch's bug
/// lives in (`Switch::stand_in`), else the one the scenario's premise needs
/// (`Domain::stand_in`).
pub fn needed_stand_in(switches: &ftw_sim::switch::Switches, domain: &Domain) -> Option<ftw_sim::plan::QuicPlan> {
    switches.stand_in().or(domain.stand_in)
}

/// One drawn case: the run seed and the plan.
#[derive(Clone, Debug, PartialEq)]
pub struct Case {
    pub seed: RunSeed,
    pub plan: FaultPlan,
}

/// Raw values of one leg: `None` keeps the default link's value.
type RawLink = (Option<u64>, Option<u64>, Option<u32>, Option<u32>, Option<(u32, u32)>, Option<usize>);
/// Raw timed fault: kind index into the domain's timed kinds, host index, time
/// (100 ms units), outage length (100 ms units), and (drawn after everything
/// else, so plans of the kinds before it are drawn as they always were) an extra
/// value 1..=128: a burst, a window, a sleep, a path drop's length.
type RawFault = (usize, usize, u64, u64, u32);

/// Everything one case draws, in drawing order: the swarm mask, both legs,
/// the timed faults, the always-on kinds' faults, the extra values, the fleet
/// and whether its routing is drawn.
type Drawn = (Vec<bool>, RawLink, RawLink, Vec<(usize, usize, u64, u64)>, Vec<(usize, u64, u64, u32)>, Vec<u32>, Option<(usize, u8)>, bool);

fn link_strategy(one_way_min_ms: u64, one_way_max_ms: u64) -> impl Strategy<Value = RawLink> {
    (
        proptest::option::of(one_way_min_ms.max(1)..=one_way_max_ms.max(one_way_min_ms.max(1))), // one-way delay, ms
        proptest::option::of(1u64..=40),                                                         // jitter, ms
        proptest::option::of(1u32..=150),                                                        // loss, per mille (0.1 % to 15 %)
        proptest::option::of(1u32..=100),                                                        // duplicate, per mille
        proptest::option::of((1u32..=200, 1u32..=8)),                                            // reorder per mille, k
        proptest::option::of(1280usize..=1499),                                                  // MTU
    )
}

fn apply_link(on: &BTreeSet<Kind>, raw: &RawLink) -> LinkPlan {
    let mut l = LinkPlan::default();
    let (delay, jitter, loss, dup, reorder, mtu) = raw;
    if let (true, Some(v)) = (on.contains(&Kind::Delay), delay) {
        l.one_way_ms = *v;
    }
    if let (true, Some(v)) = (on.contains(&Kind::Jitter), jitter) {
        l.jitter_ms = *v;
    }
    if let (true, Some(v)) = (on.contains(&Kind::Loss), loss) {
        l.loss_pct = *v as f64 / 10.0;
    }
    if let (true, Some(v)) = (on.contains(&Kind::Duplicate), dup) {
        l.duplicate_pct = *v as f64 / 10.0;
    }
    if let (true, Some((p, k))) = (on.contains(&Kind::Reorder), reorder) {
        l.reorder_pct = *p as f64 / 10.0;
        l.reorder_k = *k;
    }
    if let (true, Some(v)) = (on.contains(&Kind::Mtu), mtu) {
        l.mtu = *v;
    }
    l
}

/// The strategy for one case of `domain` with run seed `seed`.
pub fn case_strategy(domain: &Domain, seed: RunSeed) -> BoxedStrategy<Case> {
    let kinds = domain.kinds.to_vec();
    let timed: Vec<Kind> = KINDS.iter().copied().filter(|k| k.is_timed() && kinds.contains(k)).collect();
    let hosts = domain.hosts.to_vec();
    assert!(!hosts.is_empty(), "a domain names at least one host");
    assert!(domain.faults_from_ms <= domain.horizon_ms, "faults start before the horizon");
    let first_step = domain.faults_from_ms / 100;
    let steps = domain.horizon_ms / 100;
    let outage_steps = (domain.outage_max_ms / 100).max(1);
    let fault = (0..timed.len().max(1), 0..hosts.len(), first_step..=steps, 1..=outage_steps);
    let faults_max = if timed.is_empty() { 0 } else { domain.faults_max };
    let always = domain.always.to_vec();
    // The stand-in the scenario's premise needs, else the default (`Domain::stand_in`).
    let quic = domain.stand_in.unwrap_or_default();
    // A kind that is always on gets one fault of its own, drawn apart.
    let always_timed: Vec<Kind> = always.iter().copied().filter(|k| timed.contains(k)).collect();
    let always_faults = proptest::collection::vec((0..hosts.len(), first_step..=steps, 1..=outage_steps, 1u32..=128), always_timed.len());
    (
        proptest::collection::vec(any::<bool>(), kinds.len()),
        link_strategy(domain.one_way_min_ms, domain.one_way_max_ms),
        link_strategy(domain.one_way_min_ms, domain.one_way_max_ms),
        proptest::collection::vec(fault, 0..=faults_max),
        always_faults,
        proptest::collection::vec(1u32..=128, faults_max),
        // Drawn last, so the plans of domains without a fleet are drawn as before.
        if domain.fleet { proptest::option::of((FLEET_REACTORS_DRAWN, 0u8..4)).boxed() } else { Just(None).boxed() },
        Just(domain.fleet_routing),
    )
        .prop_map(move |(mask, phone, box_, raw4, forced, extras, fleet, draw_routing): Drawn| {
            let mut raw: Vec<RawFault> = raw4.iter().zip(extras.iter().chain(std::iter::repeat(&1))).map(|(&(k, h, at, len), &x)| (k, h, at, len, x)).collect();
            let on: BTreeSet<Kind> = kinds.iter().zip(&mask).filter(|(_, m)| **m).map(|(k, _)| *k).chain(always.iter().copied()).collect();
            for (k, (h, at, len, extra)) in always_timed.iter().zip(forced) {
                let i = timed.iter().position(|t| t == k).expect("always kinds are timed kinds of the domain");
                raw.push((i, h, at, len, extra));
            }
            let mut faults: Vec<TimedFault> = raw
                .iter()
                .flat_map(|&(k, h, at, len, extra)| {
                    let Some(kind) = timed.get(k).copied() else { return vec![] };
                    if !on.contains(&kind) {
                        return vec![];
                    }
                    kind.draw(&Draw { host: hosts[h], at_ms: at * 100, for_ms: len * 100, extra })
                })
                .collect();
            // Network switches toggle in list order: keep the list in time order.
            faults.sort_by_key(|f| f.at_ms);
            let fleet = fleet.map(|(reactors, r)| FleetPlan {
                reactors,
                routing: draw_routing.then_some(if r == 0 { FleetRouting::KernelFilter } else { FleetRouting::Forward }),
            });
            let plan = FaultPlan { quic, phone: apply_link(&on, &phone), box_: apply_link(&on, &box_), fleet, faults, ..FaultPlan::default() };

            debug_assert!(plan.validate().is_ok(), "drawn plans are valid: {plan:?}");
            Case { seed, plan }
        })
        .boxed()
}

/// A deterministic proptest runner for the case drawn from `seed`: its RNG is
/// ChaCha seeded by SHA-256 of a domain tag and the seed; no failure
/// persistence (the corpus is ours).
pub fn runner_for(seed: RunSeed) -> TestRunner {
    let mut h = Sha256::new();
    h.update(b"ftw.properties.case.v1");
    h.update(seed.0.to_be_bytes());
    let bytes: [u8; 32] = h.finalize().into();
    let config = Config { failure_persistence: None, ..Config::default() };
    TestRunner::new_with_rng(config, TestRng::from_seed(RngAlgorithm::ChaCha, &bytes))
}

/// The value tree of the case drawn from `seed` (same seed, same case).
pub fn draw(domain: &Domain, seed: RunSeed) -> Box<dyn ValueTree<Value = Case>> {
    let mut runner = runner_for(seed);
    Box::new(case_strategy(domain, seed).new_tree(&mut runner).expect("the case strategy never rejects"))
}
