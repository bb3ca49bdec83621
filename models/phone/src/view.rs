//! `CloudView`: what the phone shows from the readable copy (`live`) and `hb` (seed 000, S2;
//! SPEC.md section 4 "View").
//!
//! Messages (fields chosen here, after the seed's words):
//! * [`Live`]: `live_seq` (the box counts every `live` it sends, +1 each), `src_rev` (the
//!   revision of the source table the values were built against), `wall_ms` (the box's
//!   wall clock), `values` (field name -> value) and, in the first `live` after a table
//!   change (and whenever the box chooses), the `table` itself (the field names of
//!   revision `src_rev`).
//! * `hb` carries the latest `live_seq` the box sent ([`CloudView::handle_hb`]).
//!
//! Value semantics:
//! 1. The view never goes back to an older `src_rev`: a `live` whose `src_rev` is older
//!    than the view's table is dropped whole; the table's revision only grows.
//! 2. A `live` with a table whose `src_rev` is newer than the view's table gives the view
//!    its table, even when the `live` is late (its `live_seq` is not above the newest
//!    applied). This is "Freshness case 17": a table overtaken by a datagram is not lost.
//!    Switch `late_live_table_dropped`: a late `live` is dropped whole, its table with it.
//! 3. Each field shows the value of the highest `live_seq` that carried it: a late `live`
//!    sets only fields nothing newer has set (the newer values already shown are kept).
//! 4. A gap is known from `hb`: when the latest `live_seq` the box announced is above the
//!    newest `live` applied, [`CloudView::gap`] reports it. A gap is only ever shown as a
//!    gap: `hb` sets no value, and each shown value keeps the `live_seq` it came with.
//!    When the missing `live` (or a newer one) arrives, the gap closes.
//! 5. Values may be shown under an older table (their `src_rev` above the table's) until
//!    the table arrives: [`CloudView::table_behind`] says so.

use crate::switches::Switches;
use std::collections::BTreeMap;

/// The source table of one revision: its field names.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Table {
    pub src_rev: u64,
    pub fields: Vec<String>,
}

/// One `live` message (the readable copy).
#[derive(Clone, Debug, PartialEq)]
pub struct Live {
    pub live_seq: u64,
    pub src_rev: u64,
    pub wall_ms: u64,
    /// The table of `src_rev`, when this `live` carries it.
    pub table: Option<Vec<String>>,
    pub values: BTreeMap<String, f64>,
}

/// A value as shown, with where it came from.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Shown {
    pub value: f64,
    pub live_seq: u64,
    pub src_rev: u64,
    pub wall_ms: u64,
}

/// A known gap: the box announced `latest_seq` but the newest applied is `shown_seq`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Gap {
    pub shown_seq: Option<u64>,
    pub latest_seq: u64,
}

/// What a `live` did to the view.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum LiveOutcome {
    Applied {
        late: bool,
        table_adopted: bool,
        values_set: usize,
        values_kept_newer: usize,
    },
    /// Its `src_rev` is older than the view's table.
    DroppedOlderSrcRev,
    /// Switch `late_live_table_dropped`: a late `live` thrown away whole.
    DroppedLate,
}

#[derive(Clone, Debug, Default)]
pub struct CloudView {
    sw: Switches,
    table: Option<Table>,
    values: BTreeMap<String, Shown>,
    newest_seq: Option<u64>,
    hb_seq: Option<u64>,
}

impl CloudView {
    pub fn new(sw: Switches) -> Self {
        Self { sw, ..Self::default() }
    }

    pub fn table(&self) -> Option<&Table> {
        self.table.as_ref()
    }

    pub fn value(&self, field: &str) -> Option<&Shown> {
        self.values.get(field)
    }

    pub fn values(&self) -> &BTreeMap<String, Shown> {
        &self.values
    }

    /// The newest `live_seq` applied.
    pub fn newest_seq(&self) -> Option<u64> {
        self.newest_seq
    }

    pub fn handle_hb(&mut self, latest_live_seq: u64) {
        self.hb_seq = Some(self.hb_seq.map_or(latest_live_seq, |s| s.max(latest_live_seq)));
    }

    /// The gap between what the box announced and what the view applied, if any.
    pub fn gap(&self) -> Option<Gap> {
        let latest_seq = self.hb_seq?;
        match self.newest_seq {
            Some(n) if n >= latest_seq => None,
            shown_seq => Some(Gap { shown_seq, latest_seq }),
        }
    }

    /// Some shown value was built against a newer table than the view holds.
    pub fn table_behind(&self) -> bool {
        let rev = self.table.as_ref().map(|t| t.src_rev);
        self.values.values().any(|s| Some(s.src_rev) > rev)
    }

    pub fn handle_live(&mut self, live: &Live) -> LiveOutcome {
        let table_rev = self.table.as_ref().map(|t| t.src_rev);
        if table_rev.is_some_and(|r| live.src_rev < r) {
            return LiveOutcome::DroppedOlderSrcRev;
        }
        let late = self.newest_seq.is_some_and(|n| live.live_seq <= n);
        if late && self.sw.late_live_table_dropped {
            return LiveOutcome::DroppedLate;
        }
        let mut table_adopted = false;
        if let Some(fields) = &live.table {
            if table_rev.is_none_or(|r| live.src_rev > r) {
                self.table = Some(Table { src_rev: live.src_rev, fields: fields.clone() });
                table_adopted = true;
            }
        }
        let (mut values_set, mut values_kept_newer) = (0, 0);
        for (k, &value) in &live.values {
            let newer_shown = self.values.get(k).is_some_and(|s| s.live_seq >= live.live_seq || s.src_rev > live.src_rev);
            if newer_shown {
                values_kept_newer += 1;
            } else {
                let shown = Shown { value, live_seq: live.live_seq, src_rev: live.src_rev, wall_ms: live.wall_ms };
                self.values.insert(k.clone(), shown);
                values_set += 1;
            }
        }
        self.newest_seq = Some(self.newest_seq.map_or(live.live_seq, |n| n.max(live.live_seq)));
        if let (Some(old), Some(new)) = (table_rev, self.table.as_ref().map(|t| t.src_rev)) {
            assert!(new >= old, "the view's table never goes back");
        }
        LiveOutcome::Applied { late, table_adopted, values_set, values_kept_newer }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn live(seq: u64, rev: u64, table: Option<&[&str]>, vals: &[(&str, f64)]) -> Live {
        Live {
            live_seq: seq,
            src_rev: rev,
            wall_ms: 1000 * seq,
            table: table.map(|t| t.iter().map(|s| s.to_string()).collect()),
            values: vals.iter().map(|(k, v)| (k.to_string(), *v)).collect(),
        }
    }

    /// Table rev 5 shown; live 11 (rev 6, no table) overtakes live 10 (rev 6, with table).
    fn case_17(sw: Switches) -> CloudView {
        let mut v = CloudView::new(sw);
        v.handle_live(&live(9, 5, Some(&["p"]), &[("p", 90.0)]));
        v.handle_live(&live(11, 6, None, &[("p", 110.0)]));
        v.handle_live(&live(10, 6, Some(&["p", "q"]), &[("p", 100.0), ("q", 7.0)]));
        v
    }

    #[test]
    fn freshness_case_17_late_live_gives_its_table_keeps_newer_values() {
        let v = case_17(Switches::default());
        assert_eq!(v.table().unwrap().src_rev, 6);
        assert_eq!(v.table().unwrap().fields, vec!["p", "q"]);
        assert_eq!(v.value("p").unwrap().value, 110.0);
        assert_eq!(v.value("p").unwrap().live_seq, 11);
        assert_eq!(v.value("q").unwrap().value, 7.0);
        assert!(!v.table_behind());
        assert_eq!(v.newest_seq(), Some(11));
    }

    /// The late live's outcome counts what it set and what it left to newer values.
    #[test]
    fn a_late_live_reports_values_set_and_kept_newer() {
        let mut v = CloudView::new(Switches::default());
        v.handle_live(&live(9, 5, Some(&["p"]), &[("p", 90.0)]));
        v.handle_live(&live(11, 6, None, &[("p", 110.0)]));
        let o = v.handle_live(&live(10, 6, Some(&["p", "q"]), &[("p", 100.0), ("q", 7.0)]));
        assert_eq!(o, LiveOutcome::Applied { late: true, table_adopted: true, values_set: 1, values_kept_newer: 1 });
    }

    #[test]
    fn switch_late_live_table_dropped_loses_the_table() {
        let v = case_17(Switches { late_live_table_dropped: true, ..Switches::default() });
        assert_eq!(v.table().unwrap().src_rev, 5);
        assert!(v.table_behind());
        assert!(v.value("q").is_none());
    }

    #[test]
    fn a_gap_is_a_gap_never_a_value() {
        let mut v = CloudView::new(Switches::default());
        v.handle_live(&live(1, 1, Some(&["p"]), &[("p", 1.0)]));
        v.handle_hb(1);
        assert_eq!(v.gap(), None);
        // live 2 lost; hb announces 2.
        v.handle_hb(2);
        assert_eq!(v.gap(), Some(Gap { shown_seq: Some(1), latest_seq: 2 }));
        assert_eq!(v.value("p").unwrap().live_seq, 1);
        assert_eq!(v.value("p").unwrap().value, 1.0);
        // An older hb does not hide the gap.
        v.handle_hb(1);
        assert!(v.gap().is_some());
        v.handle_live(&live(3, 1, None, &[("p", 3.0)]));
        assert_eq!(v.gap(), None);
        assert_eq!(v.value("p").unwrap().live_seq, 3);
    }

    #[test]
    fn never_goes_back_to_an_older_src_rev() {
        let mut v = case_17(Switches::default());
        let o = v.handle_live(&live(12, 5, Some(&["old"]), &[("p", -1.0)]));
        assert_eq!(o, LiveOutcome::DroppedOlderSrcRev);
        assert_eq!(v.table().unwrap().src_rev, 6);
        assert_eq!(v.value("p").unwrap().value, 110.0);
    }

    #[test]
    fn hb_before_any_live_is_a_gap() {
        let mut v = CloudView::new(Switches::default());
        v.handle_hb(4);
        assert_eq!(v.gap(), Some(Gap { shown_seq: None, latest_seq: 4 }));
        assert!(v.values().is_empty());
    }
}
