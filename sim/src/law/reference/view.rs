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
//! * every `live` the view is given is one the box sent, as it sent it: its liveSeq, srcRev,
//!   wall clock and whether it carried its table (SPEC §3: `live` is "stamped with the box's
//!   `wallMs`, a `liveSeq` and the `srcRev` of the source table"; §4: a table overtaken by a
//!   datagram is not lost). The box's own notes say what it sent ([`Sent::Live`]), so a phone
//!   that loses a live's table on its way to the view is judged from what the box sent, not
//!   from what the phone read (fuzz-only mutants, session 31: `live_table` reading no table
//!   left every view check agreeing with itself);
//! * every `live` carries a value for each field of the table it was built against, and no
//!   other (SPEC §3: `live` is the "readable copy", values "of the source table it was built
//!   against"), judged where that table is known: carried by the `live`, or the view's own of
//!   the same srcRev (fuzz-only mutants, session 34: the box's site values read as empty sent
//!   every `live` bare, and the view, showing nothing, agreed with itself).
//!
//! After every `live` the journal has the view's answer (`ViewStep::Outcome`: dropped as
//! older than its table, or applied: late or not, the table adopted or not, how many values
//! set and how many kept because a newer one was shown), and after every `live` and `hb`
//! what the view shows (`ViewStep::Shows`); both are compared whole with the reference's.

use std::collections::{BTreeMap, BTreeSet};

use crate::law::rules;
use crate::law::{Judge, Law};
use crate::world::journal::r#box::{BoxNote, BoxStep, Sent};
use crate::world::journal::view::{LiveIn, ShownValue, Shows, ViewStep};
use crate::world::journal::{Entry, Step};
use crate::world::switch::Switch;
use ftw_phone::view::LiveOutcome;

use super::{Lockstep, Reference};

pub const VIEW: Reference = Reference {
    law: Law::new("view-agrees-with-spec", "after every live and hb the view shows what the SPEC says: a late live's newer table kept with the newer values (Freshness case 17), a gap never a value, never back; every live it is given is one the box sent, as sent, with a value for each field of its table (SPEC §3, §4)").checks(&[&rules::DATAGRAM_HB_LIVE, &rules::LATE_LIVE]).broken_by(&[Switch::LateLiveTableDropped])
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

/// The lives the box sent so far, by liveSeq: (srcRev, wall clock, table carried), each
/// way it sent that liveSeq (to each session; again after a restart).
#[derive(Debug, Default)]
struct SentLives(BTreeMap<u64, Vec<(u64, u64, bool)>>);

impl SentLives {
    fn note(&mut self, s: &BoxStep) {
        if let BoxStep::Note(BoxNote::Sent { what: Sent::Live { live_seq, rev, wall_ms, table }, .. }) = s {
            self.0.entry(*live_seq).or_default().push((*rev, *wall_ms, *table));
        }
    }

    /// How `l` differs from every live the box sent with its liveSeq, as (model, spec);
    /// `None` when it is one of them, or when the run journals no box that sent a live.
    fn differs(&self, l: &LiveIn) -> Option<(String, String)> {
        let given = (l.src_rev, l.wall_ms, l.table.is_some());
        let sent = self.0.get(&l.live_seq).map_or(&[][..], Vec::as_slice);
        if self.0.is_empty() || sent.contains(&given) {
            return None;
        }
        let say = |(rev, wall, table): (u64, u64, bool)| format!("srcRev {rev}, wallMs {wall}, {} table", if table { "with its" } else { "no" });
        let spec = match sent {
            [] => format!("the box sent no live {}", l.live_seq),
            _ => format!("the box sent live {} as {}", l.live_seq, sent.iter().map(|&s| say(s)).collect::<Vec<_>>().join(" or ")),
        };
        Some((format!("the view was given live {} with {}", l.live_seq, say(given)), spec))
    }
}

/// How the fields `l` has values for differ from those of the table it was built against
/// (SPEC §3: the "readable copy" of its source table), as (model, spec): the table `l`
/// carries, else `view_table` when it is of `l`'s srcRev; `None` when they match or the
/// table is not known here.
fn values_differ(l: &LiveIn, view_table: Option<&(u64, Vec<String>)>) -> Option<(String, String)> {
    let fields = l.table.as_ref().or_else(|| view_table.filter(|t| t.0 == l.src_rev).map(|t| &t.1))?;
    let table: BTreeSet<&str> = fields.iter().map(String::as_str).collect();
    let given: BTreeSet<&str> = l.values.keys().map(String::as_str).collect();
    (table != given).then(|| {
        (
            format!("live {} with values for {given:?}", l.live_seq),
            format!("a value for each field of table {} and no other, {table:?} (SPEC §3: the readable copy of the source table)", l.src_rev),
        )
    })
}

/// Replays every `ViewStep` against a [`View`] per host, each `live` checked against
/// what the box sent.
pub fn check(journal: &[Entry]) -> Option<Lockstep> {
    let mut views: BTreeMap<&str, View> = BTreeMap::new();
    let mut sent = SentLives::default();
    let mut steps = 0;
    for (index, e) in journal.iter().enumerate() {
        if let Step::Box(b) = &e.step {
            sent.note(b);
        }
        let Step::View(step) = &e.step else { continue };
        steps += 1;
        let v = views.entry(e.host.as_str()).or_default();
        match step {
            ViewStep::New => *v = View::default(),
            ViewStep::Live(l) => {
                if let Some((model, spec)) = sent.differs(l).or_else(|| values_differ(l, v.table.as_ref())) {
                    return Some(Lockstep::Differs { index, entry: e.describe(), model, spec });
                }
                v.live(l)
            }
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
