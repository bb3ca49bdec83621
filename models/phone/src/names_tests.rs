//! The names traces and coverage show: each variant has its own, so a trace or a
//! coverage count tells them apart (a name shared or empty would merge two
//! decisions in every report a user reads).

use std::collections::BTreeSet;

use crate::carrier::Verdict;
use crate::network::{NetworkDesc, NetworkId};
use crate::race::{Decision, DialFailure};
use crate::session::{DemotionVerdict, SessionEnd};
use crate::Transport;

fn distinct(names: &[String]) {
    let set: BTreeSet<&String> = names.iter().collect();
    assert_eq!(set.len(), names.len(), "names shared: {names:?}");
    assert!(names.iter().all(|n| !n.is_empty()), "an empty name: {names:?}");
}

#[test]
fn verdicts_and_decisions_have_their_own_names() {
    distinct(&[Verdict::Deliver, Verdict::Drop, Verdict::EndSession].map(|v| v.name().to_string()));
    let kinds = [Decision::LearningDialContinues, Decision::LoserClosed { transport: Transport::Quic }, Decision::LearningProbeKept { at_ms: 1 }];
    distinct(&kinds.map(|d| d.kind().to_string()));
}

#[test]
fn trace_texts_tell_variants_apart() {
    distinct(&[DialFailure::Refused, DialFailure::Failed, DialFailure::TimedOut].map(|d| d.to_string()));
    distinct(&[SessionEnd::Closed { code: 1000 }, SessionEnd::PathDropped, SessionEnd::BrokenMessage, SessionEnd::LocalClose].map(|e| e.to_string()));
    let verdicts = [
        DemotionVerdict::DemoteNoFirstMessage,
        DemotionVerdict::DemotePathDropInWindow { after_first_ms: 5 },
        DemotionVerdict::DemoteEveryClose,
        DemotionVerdict::KeepServiceSpoke,
        DemotionVerdict::KeepLocalClose,
        DemotionVerdict::KeepAfterWindow,
        DemotionVerdict::KeepNoCloseDemotes,
    ];
    distinct(&verdicts.map(|v| v.to_string()));
    let nets = [NetworkDesc::behind_nat("nat-a"), NetworkDesc::behind_nat("nat-b")].map(|d| NetworkId::of(&d));
    distinct(&nets.clone().map(|n| n.to_string()));
    assert!(nets.iter().all(|n| n.as_hex().starts_with(&n.to_string())), "a network's short name is its id's first digits");
}
