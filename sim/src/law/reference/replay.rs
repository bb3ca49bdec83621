//! The receive replay window, from the SPEC's words (SPEC.md §2 "Transport message", §4
//! "Carrier", §6 "replay window 1024").
//!
//! The rule: a transport message carries its `seq` in clear; the receiver accepts a seq iff
//! it was never accepted before and it is not older than the window, the 1024 sequence numbers
//! ending at the highest seq accepted so far. Edge, taken from "a replay window of 1024
//! sequence numbers (16 words of 64 bits)" (SPEC §4) and the model's docs ("for the
//! `window_len` sequence numbers ending at the highest accepted one"): with `h` the highest
//! accepted, `h - 1023 ..= h` are inside (judged by whether they were accepted), `h - 1024`
//! and older are too old, anything above `h` is fresh, and before the first accepted seq
//! everything is fresh. A seq counts as accepted only once its message authenticated (the
//! journal's `marked`): a forged message never moves the window.
//!
//! State: the set of accepted seqs and the highest, per host, session and window (layer and
//! direction): a `BTreeSet`, where the model has a bitmap.

use std::collections::{BTreeMap, BTreeSet};

use crate::law::rules;
use crate::law::{Judge, Law};
use crate::world::journal::replay::{Layer, ReplayStep, Said};
use crate::world::journal::{Entry, Step};
use crate::world::switch::Switch;

use super::{Lockstep, Reference};

/// SPEC.md §4 "Carrier" and §6: the window spans 1024 sequence numbers.
pub const WINDOW: u64 = 1024;

pub const REPLAY: Reference = Reference {
    law: Law::new("replay-window-agrees-with-spec", "every seq a receive window judged got the SPEC's answer: accepted iff never accepted before and not older than the 1024 seqs ending at the highest accepted (SPEC §2, §4, §6)").checks(&[&rules::NOISE_SESSION, &rules::REPLAY_WINDOW]).broken_by(&[Switch::ReplayWindow64])
        .judged(Judge::Journal(check)),
    planted: &[],
};

/// One receive window as the SPEC describes it.
#[derive(Clone, Debug, Default)]
pub struct Window {
    highest: Option<u64>,
    accepted: BTreeSet<u64>,
}

impl Window {
    /// The answers the SPEC allows for `seq`. An old seq that was also accepted before is
    /// refused for either reason (the SPEC names no order between the two).
    pub fn allowed(&self, seq: u64) -> &'static [Said] {
        let Some(h) = self.highest else { return &[Said::Fresh] };
        if seq > h {
            return &[Said::Fresh];
        }
        let too_old = h - seq >= WINDOW;
        match (too_old, self.accepted.contains(&seq)) {
            (false, false) => &[Said::Fresh],
            (false, true) => &[Said::Duplicate],
            (true, false) => &[Said::TooOld],
            (true, true) => &[Said::TooOld, Said::Duplicate],
        }
    }

    /// `seq` authenticated and is now accepted.
    pub fn accept(&mut self, seq: u64) {
        self.accepted.insert(seq);
        self.highest = Some(self.highest.map_or(seq, |h| h.max(seq)));
    }

    fn why(&self, seq: u64) -> String {
        format!("highest accepted {:?}, seq {seq} accepted before: {}", self.highest, self.accepted.contains(&seq))
    }
}

/// Replays every `ReplayStep` of the journal against a [`Window`] per host, session and layer.
pub fn check(journal: &[Entry]) -> Option<Lockstep> {
    let mut windows: BTreeMap<(&str, u64, Layer), Window> = BTreeMap::new();
    let mut steps = 0;
    for (index, e) in journal.iter().enumerate() {
        let Step::Replay(ReplayStep::Judged { session, layer, seq, said, marked }) = &e.step else { continue };
        steps += 1;
        let w = windows.entry((e.host.as_str(), *session, *layer)).or_default();
        let differs = |model: String, spec: String| Some(Lockstep::Differs { index, entry: e.describe(), model, spec });
        let allowed = w.allowed(*seq);
        if !allowed.contains(said) {
            return differs(format!("{said:?}"), format!("{allowed:?} ({})", w.why(*seq)));
        }
        if *marked && *said != Said::Fresh {
            return differs(format!("{said:?} and marked"), "a refused seq is never marked".into());
        }
        if *marked {
            w.accept(*seq);
        }
    }
    (steps > 0).then_some(Lockstep::Agreed { steps })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn window(accepted: &[u64]) -> Window {
        let mut w = Window::default();
        accepted.iter().for_each(|&s| w.accept(s));
        w
    }

    #[test]
    fn edges_of_the_window() {
        let w = window(&[5000]);
        assert_eq!(w.allowed(5000), &[Said::Duplicate]);
        assert_eq!(w.allowed(5001), &[Said::Fresh]);
        assert_eq!(w.allowed(5000 - 1023), &[Said::Fresh]);
        assert_eq!(w.allowed(5000 - 1024), &[Said::TooOld]);
        assert_eq!(w.allowed(5000 - 1025), &[Said::TooOld]);
        assert_eq!(Window::default().allowed(0), &[Said::Fresh]);
        assert_eq!(window(&[3, 1030]).allowed(3), &[Said::TooOld, Said::Duplicate]);
        assert_eq!(window(&[7, 1030]).allowed(7), &[Said::Duplicate]);
    }
}
