//! What the journal records of the phone's view (`ftw_phone::CloudView`, SPEC.md §3 `live`
//! and `hb`, §4 "View"): each `live` and `hb` it was given and what it shows after each.

use std::collections::BTreeMap;

/// A `live` as the view was given it (values as the box sent them, whole numbers).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LiveIn {
    pub live_seq: u64,
    pub src_rev: u64,
    pub wall_ms: u64,
    /// The table (field names of `src_rev`) when this `live` carries it.
    pub table: Option<Vec<String>>,
    pub values: BTreeMap<String, i64>,
}

/// One value as shown, with the `live` it came with.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ShownValue {
    /// The value as shown (the view's f64, whole numbers here).
    pub value: i64,
    pub live_seq: u64,
    pub src_rev: u64,
}

/// What the view shows.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Shows {
    /// The table's srcRev and field names.
    pub table: Option<(u64, Vec<String>)>,
    pub values: BTreeMap<String, ShownValue>,
    /// The newest `liveSeq` applied.
    pub newest_seq: Option<u64>,
    /// A gap: (newest applied, latest the box announced).
    pub gap: Option<(Option<u64>, u64)>,
    /// Some value was built against a newer table than the view holds.
    pub table_behind: bool,
}

/// An input or a decision of this model.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ViewStep {
    /// The app made a new, empty view (a relaunch).
    New,
    /// A delivered `live`.
    Live(LiveIn),
    /// A delivered `hb` carrying the latest `liveSeq` the box sent.
    Hb { live_seq: u64 },
    /// What the view made of the `live` just before (`handle_live`'s answer).
    Outcome(ftw_phone::view::LiveOutcome),
    /// What the view shows after the input just before.
    Shows(Shows),
}
