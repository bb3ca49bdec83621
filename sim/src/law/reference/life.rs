//! Law `life-agrees-with-spec`: the phone's app life (`ftw_phone::app::AppLife`)
//! in lockstep with its rules in words, from SPEC section 6's numbers:
//! * "lane-0 cadence 1 Hz visible, 0.2 Hz hidden": hiding the app asks for a
//!   frame every 5 s, bringing it back into view for one every second; hiding a
//!   hidden app or showing a shown one asks nothing.
//! * "NAT mapping idle timeout 30 s" (and SPEC section 3: the 15 s keepalive
//!   holds it; a hidden app sends none): a session silent for longer than the
//!   mapping lives cannot be trusted, so coming back after more than 30 s hidden,
//!   or a clock that jumped more than 30 s at once (the phone slept), asks for a
//!   reconnect; 30 s or less does not.
//! * A relaunch is a new app, in view, that connects afresh (a reconnect).
//!
//! Written from those sentences: an app is a `Seen` value per host, an answer a
//! count of reconnects and the cadences asked, compared whatever the order.

use std::collections::BTreeMap;

use crate::law::rules;
use crate::law::{Judge, Law};
use crate::world::journal::life::{LifeEvent, LifeStep};
use crate::world::journal::{Entry, Step};
use ftw_phone::app::LifeAsk;

use super::{Lockstep, Reference};

pub const LIFE: Reference = Reference {
    law: Law::new("life-agrees-with-spec", "every app-life event (background, foreground, relaunch, clock jump) asks what SPEC section 6 says: 0.2 Hz hidden, 1 Hz in view, a reconnect after a silence longer than the 30 s NAT mapping and on relaunch").checks(&[&rules::LANE0_RATE, &rules::NO_SESSION_PAST_MAPPING])
        .judged(Judge::Journal(check)),
    planted: &[],
};

/// SPEC section 6: "NAT mapping idle timeout 30 s".
const MAPPING_MS: u64 = 30_000;
/// SPEC section 6: "lane-0 cadence 1 Hz visible".
const IN_VIEW_EVERY_MS: u64 = 1_000;
/// SPEC section 6: "0.2 Hz hidden".
const HIDDEN_EVERY_MS: u64 = 5_000;

/// Whether the app is in view, or hidden and since when.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
enum Seen {
    #[default]
    InView,
    HiddenSince(u64),
}

/// What one event asks: how many reconnects, and the cadences, in order.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
struct Answer {
    reconnects: usize,
    cadences_ms: Vec<u64>,
}

impl Answer {
    fn of(asks: &[LifeAsk]) -> Self {
        let mut a = Answer::default();
        for ask in asks {
            match ask {
                LifeAsk::Reconnect => a.reconnects += 1,
                LifeAsk::SetLane0Interval { interval_ms } => a.cadences_ms.push(*interval_ms),
            }
        }
        a
    }

    fn new(reconnect: bool, cadence_ms: Option<u64>) -> Self {
        Answer { reconnects: usize::from(reconnect), cadences_ms: cadence_ms.into_iter().collect() }
    }
}

/// The SPEC's answer to `event` for an app `seen` so, and how it is seen after.
fn spec(seen: Seen, event: LifeEvent) -> (Answer, Seen) {
    match (event, seen) {
        (LifeEvent::Background { .. }, Seen::HiddenSince(_)) => (Answer::default(), seen),
        (LifeEvent::Background { now_ms }, Seen::InView) => (Answer::new(false, Some(HIDDEN_EVERY_MS)), Seen::HiddenSince(now_ms)),
        (LifeEvent::Foreground { .. }, Seen::InView) => (Answer::default(), seen),
        (LifeEvent::Foreground { now_ms }, Seen::HiddenSince(since)) => {
            let silent_too_long = now_ms.saturating_sub(since) > MAPPING_MS;
            (Answer::new(silent_too_long, Some(IN_VIEW_EVERY_MS)), Seen::InView)
        }
        (LifeEvent::ClockJump { by_ms }, _) => (Answer::new(by_ms > MAPPING_MS, None), seen),
        (LifeEvent::Relaunch { .. }, _) => (Answer::new(true, None), Seen::InView),
    }
}

/// The law's check: `None` when no app lived through anything.
pub fn check(journal: &[Entry]) -> Option<Lockstep> {
    let mut apps: BTreeMap<&str, Seen> = BTreeMap::new();
    let mut steps = 0;
    for (index, e) in journal.iter().enumerate() {
        let Step::Life(LifeStep { event, asks }) = &e.step else { continue };
        steps += 1;
        let seen = apps.entry(e.host.as_str()).or_default();
        let (want, after) = spec(*seen, *event);
        *seen = after;
        let got = Answer::of(asks);
        if got != want {
            return Some(Lockstep::Differs { index, entry: e.describe(), model: format!("{got:?}"), spec: format!("{want:?} (the app was {seen:?} before)") });
        }
    }
    (steps > 0).then_some(Lockstep::Agreed { steps })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn entry(t_ms: u64, event: LifeEvent, asks: Vec<LifeAsk>) -> Entry {
        Entry { t_ms, host: "phone".into(), step: Step::Life(LifeStep { event, asks }) }
    }

    fn hidden(ms: u64) -> LifeAsk {
        LifeAsk::SetLane0Interval { interval_ms: ms }
    }

    /// The model's answers around the 30 s edge agree.
    #[test]
    fn the_models_answers_agree() {
        let mut life = ftw_phone::app::AppLife::new();
        let mut j = Vec::new();
        for (at, back) in [(0, 29_999), (40_000, 70_000), (80_000, 110_001)] {
            j.push(entry(at, LifeEvent::Background { now_ms: at }, life.background(at)));
            j.push(entry(at, LifeEvent::Background { now_ms: at }, life.background(at)));
            j.push(entry(back, LifeEvent::Foreground { now_ms: back }, life.foreground(back)));
            j.push(entry(back, LifeEvent::Foreground { now_ms: back }, life.foreground(back)));
        }
        for by in [29_999, 30_000, 30_001, 86_400_000] {
            j.push(entry(200_000, LifeEvent::ClockJump { by_ms: by }, life.clock_jump(by)));
        }
        assert_eq!(check(&j), Some(Lockstep::Agreed { steps: 16 }));
    }

    /// A planted disagreement is named: a return after exactly 30 s that reconnects.
    #[test]
    fn a_reconnect_at_exactly_the_mapping_is_caught() {
        let j = vec![
            entry(0, LifeEvent::Background { now_ms: 0 }, vec![hidden(5_000)]),
            entry(30_000, LifeEvent::Foreground { now_ms: 30_000 }, vec![LifeAsk::Reconnect, hidden(1_000)]),
        ];
        assert!(matches!(check(&j), Some(Lockstep::Differs { index: 1, .. })), "{:?}", check(&j));
    }

    /// Each rule fails its own planted answer.
    #[test]
    fn wrong_answers_are_caught() {
        let bad: [Vec<Entry>; 5] = [
            // hidden at 1 Hz
            vec![entry(0, LifeEvent::Background { now_ms: 0 }, vec![hidden(1_000)])],
            // back after 30.001 s without a reconnect
            vec![
                entry(0, LifeEvent::Background { now_ms: 0 }, vec![hidden(5_000)]),
                entry(30_001, LifeEvent::Foreground { now_ms: 30_001 }, vec![hidden(1_000)]),
            ],
            // a long sleep that keeps the session
            vec![entry(0, LifeEvent::ClockJump { by_ms: 30_001 }, vec![])],
            // a relaunch that does not connect
            vec![entry(0, LifeEvent::Relaunch { now_ms: 0 }, vec![])],
            // showing a shown app asks again
            vec![entry(0, LifeEvent::Foreground { now_ms: 0 }, vec![hidden(1_000)])],
        ];
        for (i, j) in bad.iter().enumerate() {
            assert!(matches!(check(j), Some(Lockstep::Differs { .. })), "case {i}: {:?}", check(j));
        }
        assert_eq!(check(&[]), None);
    }
}
