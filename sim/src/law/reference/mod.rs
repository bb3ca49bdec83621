//! Reference models in lockstep (issue 14 section 2).
//!
//! For each model whose rules can be written small, a second implementation
//! straight from the SPEC's words: deliberately simple (a `BTreeSet` where the
//! model has a bitmap, a table where it has a match), sharing no code with the
//! model. Every run journals what each model was given and what it decided
//! (`crate::world::journal`); after the run its reference replays the same
//! inputs and compares every decision. The law `<model>-agrees-with-spec`
//! fails at the first step where they differ and names it.
//!
//! TigerBeetle checks its state machine against a simple model this way;
//! FoundationDB's workloads check against in-memory references.

pub mod r#box;
pub mod carrier;
pub mod cloud;
pub mod fleet;
pub mod life;
pub mod link;
pub mod nat;
pub mod processing;
pub mod race;
pub mod replay;
pub mod request_ids;
pub mod tcp;
pub mod view;
pub mod wire;

use super::{Check, Judge, Law};
use crate::world::journal::Entry;

/// A reference model and the law it judges.
pub struct Reference {
    pub law: Law,
    /// The bugs planted in the world for a test that make it fail (the world's
    /// references, whose elements have no bug switch: `crate::world::plant`).
    pub planted: &'static [crate::world::plant::Bug],
}

impl Reference {
    /// Its model's lockstep with the SPEC over `journal`: `None` when the run
    /// gave its model nothing to do.
    pub fn lockstep(&self, journal: &[Entry]) -> Option<Lockstep> {
        match self.law.judge {
            Judge::Journal(check) => check(journal),
            _ => None,
        }
    }
}

/// How a reference fared against its model over one run.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Lockstep {
    /// Every decision agreed (`steps` of the model's steps compared).
    Agreed { steps: usize },
    /// Every decision agreed, but the run was too short to judge some of
    /// the rules it names (a random piece's rate over too few datagrams).
    Unjudged { steps: usize, unjudged: Vec<String> },
    /// The first step where the model and the SPEC differ.
    Differs { index: usize, entry: String, model: String, spec: String },
}

impl Lockstep {
    fn detail(&self) -> String {
        match self {
            Lockstep::Agreed { steps } => format!("{steps} steps agree with the SPEC"),
            Lockstep::Unjudged { steps, unjudged } => format!("{steps} steps agree with the SPEC; {UNJUDGED_MARK} {}", unjudged.join("; ")),
            Lockstep::Differs { index, entry, model, spec } => {
                format!("journal step #{index} ({entry}): the model decided {model}; the SPEC says {spec}")
            }
        }
    }
}

/// What a check's detail says when its run was too short to judge some of its
/// rules (`Lockstep::Unjudged`); the fuzzer counts such checks per law.
pub const UNJUDGED_MARK: &str = "too few to judge:";

/// The laws of a report that passed but could not judge all their rules.
pub fn unjudged_laws(checks: &[Check]) -> Vec<&'static str> {
    checks.iter().filter(|c| c.ok && c.detail.contains(UNJUDGED_MARK)).map(|c| c.law.name).collect()
}

/// One step's comparison: agreed, or (what the model decided, what the SPEC says).
pub(crate) type R = Result<(), (String, String)>;

/// A disagreement: what the model decided and what the SPEC says.
pub(crate) fn differs(model: impl Into<String>, spec: impl Into<String>) -> R {
    Err((model.into(), spec.into()))
}

/// A disagreement found once the journal has ended (a call still open), named
/// by the journal's last step.
pub(crate) fn at_end(journal: &[Entry], (model, spec): (String, String)) -> Lockstep {
    let index = journal.len() - 1;
    Lockstep::Differs { index, entry: format!("end of the journal ({})", journal[index].describe()), model, spec }
}

/// Draws said to be uniform on `[lo, hi]`: their mean within six standard errors
/// of the middle (the Irwin-Hall tail past six is under 10^-9), or too few to tell
/// a draw always at one end from the middle (named in `unjudged`).
pub(crate) fn uniform_mean(what: &str, sum: f64, n: u64, (lo, hi): (f64, f64), unjudged: &mut Vec<String>) -> R {
    if n == 0 || hi <= lo {
        return Ok(());
    }
    let (mean, mid) = (sum / n as f64, (lo + hi) / 2.0);
    let se = (hi - lo) / (12.0 * n as f64).sqrt();
    if (mean - mid).abs() > 6.0 * se {
        return differs(
            format!("{what}: a mean of {mean:.0} over {n} draws"),
            format!("uniform in [{lo:.0}, {hi:.0}]: a mean within {:.0} of {mid:.0}", 6.0 * se),
        );
    }
    if (hi - lo) / 2.0 <= 6.0 * se {
        unjudged.push(format!("{what} ({n} draws)"));
    }
    Ok(())
}

/// Draws said to be uniform on `[lo, hi]` reach both outer quarters of it: with
/// `n` draws each quarter is missed with probability 0.75^n, both checked under
/// 10^-9 from 75 draws on (2 x 0.75^75 = 8.5e-10); fewer are named in
/// `unjudged`. A draw on a narrower range than the plan's fails here where its
/// mean, still the middle, passes [`uniform_mean`].
pub(crate) fn uniform_cover(what: &str, (min, max, n): (f64, f64, u64), (lo, hi): (f64, f64), unjudged: &mut Vec<String>) -> R {
    const COVER_DRAWS: u64 = 75;
    if n == 0 || hi <= lo {
        return Ok(());
    }
    if n < COVER_DRAWS {
        unjudged.push(format!("{what}: the spread's ends ({n} draws)"));
        return Ok(());
    }
    let q = (hi - lo) / 4.0;
    if min > lo + q || max < hi - q {
        return differs(
            format!("{what}: {n} draws from {min:.0} to {max:.0}"),
            format!("uniform in [{lo:.0}, {hi:.0}]: some draws below {:.0} and some above {:.0}", lo + q, hi - q),
        );
    }
    Ok(())
}

/// Every reference model, in the order their laws are listed.
pub const REFERENCES: &[&Reference] = &[
    &race::RACE,
    &carrier::CARRIER,
    &replay::REPLAY,
    &view::VIEW,
    &r#box::BOX,
    &cloud::CLOUD,
    &fleet::FLEET,
    &request_ids::REQUEST_IDS,
    &life::LIFE,
    &nat::NAT,
    &link::LINK,
    &processing::PROCESSING,
    &tcp::TCP,
    &wire::WIRE,
];

/// The references of the network every run with one judges: its NATs, its
/// legs, the hosts' processing.
pub const NETWORK: &[&Law] = &[&nat::NAT.law, &link::LINK.law, &processing::PROCESSING.law];

/// The references a run of the reactor fleet is judged by: the fleet's, the
/// network's, the wire's (its clients speak the session's framing).
pub const FLEET_RUN: &[&Law] = crate::law_list![&[&fleet::FLEET.law], NETWORK, &[&wire::WIRE.law]];

/// The references of the whole system's models, in `REFERENCES`' order
/// (`life` apart: only the session scenarios run the app's life).
pub const SYSTEM: &[&Law] = &[
    &race::RACE.law,
    &carrier::CARRIER.law,
    &replay::REPLAY.law,
    &view::VIEW.law,
    &r#box::BOX.law,
    &cloud::CLOUD.law,
    &fleet::FLEET.law,
    &request_ids::REQUEST_IDS.law,
];

/// The laws the references judge.
pub fn laws() -> impl Iterator<Item = &'static Law> {
    REFERENCES.iter().map(|r| &r.law)
}

/// The check of `law` over the run's journal, if it is a reference model's
/// law and its model took part in the run.
pub fn check(law: &'static Law, journal: &[Entry]) -> Option<Check> {
    let Judge::Journal(lockstep) = law.judge else { return None };
    let l = lockstep(journal)?;
    Some(Check { law, ok: matches!(l, Lockstep::Agreed { .. } | Lockstep::Unjudged { .. }), detail: l.detail() })
}
