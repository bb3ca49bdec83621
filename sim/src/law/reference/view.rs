//! The phone's view, from the SPEC's words (SPEC.md §3 `live` and `hb`, §4 "View") and the
//! choices written in the model's docs (`models/phone/src/view.rs`, rules 1 to 5).
//!
//! Rules, per host (a relaunch starts an empty view):
//! * the view never goes back: its table's srcRev only grows, and a `live` older than the
//!   view's table (its srcRev below the table's) is dropped whole (docs rule 1);
//! * Freshness case 17: a `live` carrying a table whose srcRev is newer than the view's gives
//!   the view that table, even when it is late (its liveSeq not above the newest applied)
//!   (SPEC §4, docs rule 2);
//! * each field shows the value of the highest liveSeq that carried it: a late `live` keeps
//!   the newer values already shown (SPEC §4, docs rule 3; a second `live` with the same
//!   liveSeq is the same `live` and changes nothing);
//! * `hb` carries the latest liveSeq the box sent; when it is above the newest applied, the
//!   view shows a gap, and `hb` never sets a value (SPEC §3, docs rule 4);
//! * the view says its table is behind when a value shown was built against a newer srcRev
//!   than its table (docs rule 5).
//!
//! After every `live` the journal has the view's answer (`ViewStep::Outcome`: dropped as
//! older than its table, or applied: late or not, the table adopted or not, how many values
//! set and how many kept because a newer one was shown), and after every `live` and `hb`
//! what the view shows (`ViewStep::Shows`); both are compared whole with the reference's.

use std::collections::BTreeMap;

use crate::law::rules;
use crate::law::{Judge, Law};
use crate::world::journal::view::{LiveIn, ShownValue, Shows, ViewStep};
use crate::world::journal::{Entry, Step};
use crate::world::switch::Switch;
use ftw_phone::view::LiveOutcome;

use super::{Lockstep, Reference};

pub const VIEW: Reference = Reference {
    law: Law::new("view-agrees-with-spec", "after every live and hb the view shows what the SPEC says: a late live's newer table kept with the newer values (Freshness case 17), a gap never a value, never back (SPEC §3, §4)").checks(&[&rules::DATAGRAM_HB_LIVE, &rules::LATE_LIVE]).broken_by(&[Switch::LateLiveTableDropped])
        .judged(Judge::Journal(check)),
    planted: &[],
};

/// The view as the SPEC describes it.
#[derive(Clone, Debug, Default)]
struct View {
    table: Option<(u64, Vec<String>)>,
    values: BTreeMap<String, ShownValue>,
    newest: Option<u64>,
    announced: Option<u64>,
    /// What the last `live` must have been answered.
    owed: Option<LiveOutcome>,
}

impl View {
    fn live(&mut self, l: &LiveIn) {
        self.owed = Some(self.apply(l));
    }

    fn apply(&mut self, l: &LiveIn) -> LiveOutcome {
        let rev = self.table.as_ref().map(|t| t.0);
        if rev.is_some_and(|r| l.src_rev < r) {
            return LiveOutcome::DroppedOlderSrcRev;
        }
        let late = self.newest.is_some_and(|n| l.live_seq <= n);
        let adopt = l.table.as_ref().filter(|_| rev.is_none_or(|r| l.src_rev > r));
        let table_adopted = adopt.is_some();
        if let Some(fields) = adopt {
            self.table = Some((l.src_rev, fields.clone()));
        }
        let (mut values_set, mut values_kept_newer) = (0, 0);
        for (k, &value) in &l.values {
            if self.values.get(k).is_none_or(|s| s.live_seq < l.live_seq) {
                self.values.insert(k.clone(), ShownValue { value, live_seq: l.live_seq, src_rev: l.src_rev });
                values_set += 1;
            } else {
                values_kept_newer += 1;
            }
        }
        self.newest = self.newest.max(Some(l.live_seq));
        LiveOutcome::Applied { late, table_adopted, values_set, values_kept_newer }
    }

    fn hb(&mut self, live_seq: u64) {
        self.announced = self.announced.max(Some(live_seq));
    }

    fn shows(&self) -> Shows {
        let rev = self.table.as_ref().map(|t| t.0);
        Shows {
            table: self.table.clone(),
            values: self.values.clone(),
            newest_seq: self.newest,
            gap: self.announced.filter(|&a| self.newest.is_none_or(|n| n < a)).map(|a| (self.newest, a)),
            table_behind: self.values.values().any(|s| rev.is_none_or(|r| s.src_rev > r)),
        }
    }
}

/// The first part where two views differ, as (model, spec).
fn first_difference(model: &Shows, spec: &Shows) -> Option<(String, String)> {
    if model.table != spec.table {
        return Some((format!("table {:?}", model.table), format!("table {:?}", spec.table)));
    }
    let keys = model.values.keys().chain(spec.values.keys());
    if let Some(k) = keys.clone().find(|k| model.values.get(*k) != spec.values.get(*k)) {
        return Some((format!("{k} = {:?}", model.values.get(k)), format!("{k} = {:?}", spec.values.get(k))));
    }
    if model.newest_seq != spec.newest_seq {
        return Some((format!("newest liveSeq {:?}", model.newest_seq), format!("newest liveSeq {:?}", spec.newest_seq)));
    }
    if model.gap != spec.gap {
        return Some((format!("gap {:?}", model.gap), format!("gap {:?}", spec.gap)));
    }
    (model.table_behind != spec.table_behind).then(|| (format!("table behind {}", model.table_behind), format!("table behind {}", spec.table_behind)))
}

/// Replays every `ViewStep` against a [`View`] per host.
pub fn check(journal: &[Entry]) -> Option<Lockstep> {
    let mut views: BTreeMap<&str, View> = BTreeMap::new();
    let mut steps = 0;
    for (index, e) in journal.iter().enumerate() {
        let Step::View(step) = &e.step else { continue };
        steps += 1;
        let v = views.entry(e.host.as_str()).or_default();
        match step {
            ViewStep::New => *v = View::default(),
            ViewStep::Live(l) => v.live(l),
            ViewStep::Hb { live_seq } => v.hb(*live_seq),
            ViewStep::Outcome(model) => {
                if Some(model) != v.owed.as_ref() {
                    return Some(Lockstep::Differs { index, entry: e.describe(), model: format!("{model:?}"), spec: format!("{:?}", v.owed) });
                }
            }
            ViewStep::Shows(model) => {
                if let Some((model, spec)) = first_difference(model, &v.shows()) {
                    return Some(Lockstep::Differs { index, entry: e.describe(), model, spec });
                }
            }
        }
    }
    (steps > 0).then_some(Lockstep::Agreed { steps })
}
