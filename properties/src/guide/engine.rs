//! The guided search's machinery on LibAFL (issue 36 point 3): one engine a
//! scenario, holding LibAFL's state (the kept plans as its in-memory corpus, its
//! seeded random source), its feedback (`MaxMapFeedback` over the map of
//! protocol-state keys: a case whose run set an entry no earlier case set is
//! kept), its scheduler (`WeightedScheduler`, the alias-table sampler, weighted
//! by [`RarityScore`]: the sum over a kept plan's keys of one over the cases that
//! reached each, so plans that reach rare keys are chosen more) and its havoc
//! mutator (2 or 4 of the typed plan mutations stacked on one case).
//!
//! What is the project's own: the keys ([`super::keys`]), the typed mutations
//! ([`super::mutate`]) and the score. The target is not run by LibAFL: the
//! search runs a generation of cases on threads first (`guide::run`), then
//! hands each case's keys to [`Engine::merge`] in case order, where the
//! executor ([`Replayed`]) only writes those keys into the observer's map. So
//! what LibAFL sees, and what it keeps, is the same whatever the number of
//! threads, and no wall time reaches a decision (no calibration stage, no
//! execution time in the score).

use std::borrow::Cow;
use std::collections::BTreeMap;
use std::hash::{Hash, Hasher};

use libafl::corpus::{Corpus, CorpusId, InMemoryCorpus, Testcase};
use libafl::events::NopEventManager;
use libafl::executors::{Executor, ExitKind, HasObservers};
use libafl::feedbacks::{ConstFeedback, MaxMapFeedback};
use libafl::fuzzer::{Evaluator, HasScheduler, NopInputFilter, StdFuzzer};
use libafl::inputs::{BytesInputConverter, Input};
use libafl::mutators::{HavocScheduledMutator, MutationResult, Mutator};
use libafl::observers::{MapObserver, StdMapObserver};
use libafl::schedulers::{Scheduler, TestcaseScore, WeightedScheduler};
use libafl::state::{HasCorpus, HasRand, StdState};
use libafl::{Error, HasMetadata};
use libafl_bolts::rands::{Rand, StdRand};
use libafl_bolts::tuples::{tuple_list, tuple_list_type, RefIndexable};
use libafl_bolts::Named;
use serde::{Deserialize, Serialize};

use super::keys::Keys;
use super::mutate::{self, Case, Mutation, MUTATIONS};
use crate::strategy::Domain;

/// Entries of one scenario's map: keys past it share entries (by their number
/// modulo the size); a scenario reaches a few hundred.
pub const MAP_SIZE: usize = 1 << 14;

/// Share of a scenario's cases drawn afresh from the domain (swarm testing),
/// the rest mutations of kept plans: fresh draws keep finding what no kept plan
/// is near, mutations dwell near what was rare.
pub const FRESH_SHARE: f64 = 0.4;

/// A scenario's first cases are all fresh draws: the corpus the mutations start
/// from (as a fuzzer starts from its seeds). 32, not 4: a bug the swarm draws
/// catch within a scenario's first cases (most switches' first catch is within
/// 40 cases) is then caught by the guided search at the same case. With 4,
/// `mtud-on-unvalidated-path` (one scenario, caught by a fresh draw about one in
/// twenty) took a median 0.7 s against 0.5 s unguided over 15 seed blocks; with
/// 32, 0.5 s against 0.5 s (`ftwsim bench --search --time 1 --blocks 15 --switch
/// mtud-on-unvalidated-path`, docs/fuzzing-and-ci.md).
pub const FIRST_FRESH: u64 = 32;

/// Share of mutated cases run under the case's own new seed rather than the
/// kept plan's: the same plan under another run's randomness.
pub const NEW_SEED_SHARE: f64 = 0.5;

/// Stacked mutations a case: 2^1 or 2^2 (havoc's `2^(1+below(pow))`).
const STACK_POW: usize = 2;

/// A case as LibAFL's input: hashed and serialised as its TOML.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(into = "String", try_from = "String")]
pub struct PlanInput(pub Case);

#[derive(Serialize, Deserialize)]
struct PlanText {
    seed: String,
    plan: ftw_sim::plan::FaultPlan,
}

impl From<PlanInput> for String {
    fn from(p: PlanInput) -> String {
        toml::to_string(&PlanText { seed: format!("{:#x}", p.0.seed.0), plan: p.0.plan }).expect("plan renders")
    }
}

impl TryFrom<String> for PlanInput {
    type Error = String;
    fn try_from(s: String) -> Result<Self, String> {
        let t: PlanText = toml::from_str(&s).map_err(|e| e.to_string())?;
        Ok(PlanInput(Case { seed: ftw_sim::parse_seed(&t.seed)?, plan: t.plan }))
    }
}

impl Hash for PlanInput {
    fn hash<H: Hasher>(&self, h: &mut H) {
        String::from(self.clone()).hash(h)
    }
}

impl Input for PlanInput {}

/// Per map entry: the cases that reached it (the scheduler's notion of rare).
#[derive(Debug, Default, Serialize, Deserialize)]
pub struct KeyHits {
    pub hits: Vec<u64>,
}
libafl_bolts::impl_serdeany!(KeyHits);

/// A kept plan's map entries.
#[derive(Debug, Default, Serialize, Deserialize)]
pub struct Reached {
    pub entries: Vec<usize>,
}
libafl_bolts::impl_serdeany!(Reached);

/// A kept plan's weight: the sum over its entries of 1 / (cases that reached it).
pub struct RarityScore;

impl<S: HasMetadata> TestcaseScore<PlanInput, S> for RarityScore {
    fn compute(state: &S, tc: &mut Testcase<PlanInput>) -> Result<f64, Error> {
        let hits = state.metadata::<KeyHits>()?;
        let w: f64 = tc.metadata::<Reached>().map_or(0.0, |r| r.entries.iter().map(|&e| 1.0 / hits.hits.get(e).copied().unwrap_or(1).max(1) as f64).sum());
        Ok(w.max(1e-6))
    }
}

type Observer = StdMapObserver<'static, u8, false>;
type State = StdState<InMemoryCorpus<PlanInput>, PlanInput, StdRand, InMemoryCorpus<PlanInput>>;
type Sched = WeightedScheduler<Observer, RarityScore, Observer>;
type Fuzzer = StdFuzzer<Sched, MaxMapFeedback<Observer, Observer>, BytesInputConverter, NopInputFilter, ConstFeedback>;
type Mutations = tuple_list_type!(PlanMutator, PlanMutator, PlanMutator, PlanMutator, PlanMutator, PlanMutator, PlanMutator, PlanMutator, PlanMutator, Splice);

/// The executor: the case already ran; it writes the case's map entries.
pub struct Replayed {
    observers: (Observer, ()),
    pending: Vec<usize>,
}

impl HasObservers for Replayed {
    type Observers = (Observer, ());
    fn observers(&self) -> RefIndexable<&Self::Observers, Self::Observers> {
        RefIndexable::from(&self.observers)
    }
    fn observers_mut(&mut self) -> RefIndexable<&mut Self::Observers, Self::Observers> {
        RefIndexable::from(&mut self.observers)
    }
}

impl<EM, S, Z> Executor<EM, PlanInput, S, Z> for Replayed {
    fn run_target(&mut self, _: &mut Z, _: &mut S, _: &mut EM, _: &PlanInput) -> Result<ExitKind, Error> {
        for &e in &self.pending {
            self.observers.0.set(e, 1);
        }
        Ok(ExitKind::Ok)
    }
}

/// One typed mutation as a LibAFL mutator.
pub struct PlanMutator {
    m: Mutation,
    domain: Domain,
    name: Cow<'static, str>,
}

impl Named for PlanMutator {
    fn name(&self) -> &Cow<'static, str> {
        &self.name
    }
}

impl<S: HasRand> Mutator<PlanInput, S> for PlanMutator {
    fn mutate(&mut self, state: &mut S, input: &mut PlanInput) -> Result<MutationResult, Error> {
        let done = mutate::apply(self.m, &mut input.0, &self.domain, state.rand_mut());
        Ok(if done { MutationResult::Mutated } else { MutationResult::Skipped })
    }
    fn post_exec(&mut self, _: &mut S, _: Option<CorpusId>) -> Result<(), Error> {
        Ok(())
    }
}

/// Splice with another kept plan of the scenario (drawn by the engine).
pub struct Splice {
    domain: Domain,
    name: Cow<'static, str>,
}

impl Named for Splice {
    fn name(&self) -> &Cow<'static, str> {
        &self.name
    }
}

impl<S: HasRand + HasCorpus<PlanInput>> Mutator<PlanInput, S> for Splice {
    fn mutate(&mut self, state: &mut S, input: &mut PlanInput) -> Result<MutationResult, Error> {
        let n = state.corpus().count();
        if n < 2 {
            return Ok(MutationResult::Skipped);
        }
        let nth = state.rand_mut().below_or_zero(n);
        let other = state.corpus().cloned_input_for_id(state.corpus().nth(nth))?;
        let done = mutate::splice(&mut input.0, &other.0, &self.domain, state.rand_mut());
        Ok(if done { MutationResult::Mutated } else { MutationResult::Skipped })
    }
    fn post_exec(&mut self, _: &mut S, _: Option<CorpusId>) -> Result<(), Error> {
        Ok(())
    }
}

fn mutations(domain: &Domain) -> Mutations {
    let m = |i: usize| PlanMutator { m: MUTATIONS[i], domain: domain.clone(), name: Cow::Borrowed(MUTATIONS[i].name()) };
    tuple_list!(m(0), m(1), m(2), m(3), m(4), m(5), m(6), m(7), m(8), Splice { domain: domain.clone(), name: Cow::Borrowed("splice") })
}

/// A case the engine proposes: fresh from the domain, or a mutation of a kept plan.
#[derive(Clone, Debug)]
pub struct Proposal {
    pub case: Case,
    pub parent: Option<CorpusId>,
}

/// One scenario's engine.
pub struct Engine {
    domain: Domain,
    state: State,
    fuzzer: Fuzzer,
    executor: Replayed,
    mutator: HavocScheduledMutator<Mutations>,
    mgr: NopEventManager,
    /// Every key reached, numbered in the order first reached.
    entries: BTreeMap<String, usize>,
    /// Cases proposed so far.
    proposed: u64,
}

fn err(e: Error) -> String {
    format!("the fuzzing engine: {e}")
}

impl Engine {
    /// A new engine for `domain`, its random source seeded with `seed`;
    /// `proposed` fresh draws (see [`Engine::fresh`]) were made for its scenario
    /// before it was built, and count among its first [`FIRST_FRESH`].
    pub fn new(domain: &Domain, seed: u64, proposed: u64) -> Result<Engine, String> {
        assert_eq!(MUTATIONS.len(), 9, "the mutator tuple lists every mutation");
        assert!(proposed <= FIRST_FRESH, "only an engine's first {FIRST_FRESH} proposals are fresh draws whatever it keeps");
        let observer = StdMapObserver::owned("keys", vec![0u8; MAP_SIZE]);
        let mut feedback = MaxMapFeedback::new(&observer);
        let mut objective = ConstFeedback::new(false);
        let mut state = StdState::new(StdRand::with_seed(seed), InMemoryCorpus::new(), InMemoryCorpus::new(), &mut feedback, &mut objective).map_err(err)?;
        state.add_metadata(KeyHits { hits: vec![0; MAP_SIZE] });
        let scheduler = WeightedScheduler::new(&mut state, &observer);
        let fuzzer = StdFuzzer::new(scheduler, feedback, objective);
        let mutator = HavocScheduledMutator::with_max_stack_pow(mutations(domain), STACK_POW);
        let executor = Replayed { observers: (observer, ()), pending: vec![] };
        Ok(Engine { domain: domain.clone(), state, fuzzer, executor, mutator, mgr: NopEventManager::new(), entries: BTreeMap::new(), proposed })
    }

    /// The swarm draw of seed `fresh`: what the engine proposes as a fresh draw.
    pub fn fresh(domain: &Domain, fresh: ftw_sim::RunSeed) -> Proposal {
        Proposal { case: crate::strategy::draw(domain, fresh).current(), parent: None }
    }

    /// Plans kept so far.
    pub fn kept(&self) -> usize {
        self.state.corpus().count()
    }

    /// Keys reached so far.
    pub fn keys(&self) -> impl Iterator<Item = &String> {
        self.entries.keys()
    }

    /// The next case: a fresh draw with seed `fresh` (the first [`FIRST_FRESH`],
    /// and while nothing is kept, else a [`FRESH_SHARE`] of the time), or a kept
    /// plan the scheduler picks, mutated.
    pub fn propose(&mut self, fresh: ftw_sim::RunSeed) -> Result<Proposal, String> {
        self.proposed += 1;
        if self.proposed <= FIRST_FRESH || self.kept() == 0 || self.state.rand_mut().coinflip(FRESH_SHARE) {
            return Ok(Engine::fresh(&self.domain, fresh));
        }
        let id = HasScheduler::<PlanInput, State>::scheduler_mut(&mut self.fuzzer).next(&mut self.state).map_err(err)?;
        let mut input = self.state.corpus().cloned_input_for_id(id).map_err(err)?;
        for _ in 0..4 {
            if self.mutator.mutate(&mut self.state, &mut input).map_err(err)? == MutationResult::Mutated {
                break;
            }
        }
        let unchanged = input.0 == self.state.corpus().cloned_input_for_id(id).map_err(err)?.0;
        if unchanged || self.state.rand_mut().coinflip(NEW_SEED_SHARE) {
            input.0.seed = fresh;
        }
        Ok(Proposal { case: input.0, parent: Some(id) })
    }

    /// A case's keys, in case order: whether it reached an entry no earlier case
    /// did (the plan is then kept, its parent recorded), and how many keys were new.
    pub fn merge(&mut self, p: &Proposal, keys: &Keys) -> Result<(bool, usize), String> {
        let known = self.entries.len();
        let mut entries: Vec<usize> = keys
            .iter()
            .map(|k| {
                let n = self.entries.len();
                *self.entries.entry(k.clone()).or_insert(n) % MAP_SIZE
            })
            .collect();
        entries.sort_unstable();
        entries.dedup();
        self.executor.pending = entries.clone();
        *self.state.corpus_mut().current_mut() = p.parent;
        let (_, id) = self.fuzzer.evaluate_input(&mut self.state, &mut self.executor, &mut self.mgr, &PlanInput(p.case.clone())).map_err(err)?;
        let hits = &mut self.state.metadata_mut::<KeyHits>().map_err(err)?.hits;
        for &e in &entries {
            hits[e] += 1;
        }
        if let Some(id) = id {
            self.state.corpus().get(id).map_err(err)?.borrow_mut().add_metadata(Reached { entries });
        }
        Ok((id.is_some(), self.entries.len() - known))
    }
}
