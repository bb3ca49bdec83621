//! The phone's picture of the site over lane 0 (law `lane0-picture-current`),
//! judged from the phone's side of a box session: what it subscribed to (its
//! latest `hello`), and every `snap`, `delta` and `tick` the box sent it, opened.
//!
//! The rule, from SPEC §2 (lane 0 carries `tick` and `delta`; TRUNC) and the box
//! docs (models/box/src/lib.rs, "lane 0"): a `snap` gives every field; a `delta`
//! carries only fields the phone subscribed to (none listed: all) whose values
//! changed since the last lane-0 frame (so a delta right after a table change's
//! `snap` may repeat what the snap showed); a `tick` says nothing changed. So after each
//! lane-0 frame that is not truncated, the picture (the latest snap with every
//! delta since applied) shows the site's value of every subscribed field; a
//! truncated delta leaves the rest for the next frame.
//!
//! The site's values are the box's own (`BoxNode::site`): the environment the box
//! reports, not the decision under test.

use std::collections::BTreeMap;

use ftw_wire::Msg;

/// One session's subscription and picture.
#[derive(Debug, Default)]
struct Sub {
    /// Field ids subscribed; empty: all.
    fields: Vec<u32>,
    /// The picture, once a snap came.
    shown: Option<BTreeMap<u32, i64>>,
    /// A snap came since the last lane-0 frame.
    snap_since_frame: bool,
}

impl Sub {
    fn wants(&self, fid: u32) -> bool {
        self.fields.is_empty() || self.fields.contains(&fid)
    }
}

/// Every session's picture, by channel.
#[derive(Debug, Default)]
pub struct Picture {
    subs: BTreeMap<u32, Sub>,
}

impl Picture {
    /// The phone on `chan` sent a `hello` subscribing to `fields` (empty: all).
    pub fn hello(&mut self, chan: u32, fields: &[u32]) {
        let s = self.subs.entry(chan).or_default();
        s.fields = fields.to_vec();
    }

    /// The session on `chan` ended.
    pub fn end(&mut self, chan: u32) {
        self.subs.remove(&chan);
    }

    /// A message the box sent on `chan`, opened; `trunc`: its frame's TRUNC flag;
    /// `site`: the site's values by field id as the box sent it. `Err` names the
    /// first way the picture broke the rule.
    pub fn frame(&mut self, chan: u32, m: &Msg, trunc: bool, site: &BTreeMap<u32, i64>) -> Result<(), String> {
        let Some(s) = self.subs.get_mut(&chan) else { return Ok(()) };
        match m {
            Msg::Snap(snap) => {
                s.shown = Some(snap.fields.0.clone());
                s.snap_since_frame = true;
                Ok(())
            }
            Msg::Delta(d) => {
                let Some(shown) = s.shown.as_ref() else { return Err(format!("chan {chan}: delta {} before any snap", d.seq)) };
                if let Some(f) = d.fields.0.keys().find(|f| !s.wants(**f)) {
                    return Err(format!("chan {chan}: delta {} carries field {f}, not subscribed ({:?})", d.seq, s.fields));
                }
                let after_snap = std::mem::take(&mut s.snap_since_frame);
                if let Some((f, v)) = d.fields.0.iter().find(|(f, v)| !after_snap && shown.get(f) == Some(v)) {
                    return Err(format!("chan {chan}: delta {} repeats field {f} = {v}, already shown", d.seq));
                }
                let shown = s.shown.as_mut().expect("checked above");
                shown.extend(d.fields.0.iter().map(|(f, v)| (*f, *v)));
                if trunc {
                    return Ok(());
                }
                current(chan, &format!("delta {}", d.seq), s, site)
            }
            Msg::Tick { seq } => {
                s.snap_since_frame = false;
                current(chan, &format!("tick {seq:?}"), s, site)
            }
            _ => Ok(()),
        }
    }
}

/// Every subscribed field shows the site's value.
fn current(chan: u32, what: &str, s: &Sub, site: &BTreeMap<u32, i64>) -> Result<(), String> {
    let Some(shown) = s.shown.as_ref() else { return Err(format!("chan {chan}: {what} before any snap")) };
    match site.iter().find(|(f, v)| s.wants(**f) && shown.get(f) != Some(v)) {
        Some((f, v)) => Err(format!("chan {chan}: after {what} field {f} shows {:?}, the site reads {v}", shown.get(f))),
        None => Ok(()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use ftw_wire::envelope::{Delta, IdMap, Snap};

    fn snap(fields: &[(u32, i64)]) -> Msg {
        Msg::Snap(Snap { rev: 1, dict: IdMap(BTreeMap::new()), fields: IdMap(fields.iter().copied().collect()), sources: BTreeMap::new() })
    }

    fn delta(fields: &[(u32, i64)]) -> Msg {
        Msg::Delta(Delta { seq: 2, fields: IdMap(fields.iter().copied().collect()) })
    }

    fn site(fields: &[(u32, i64)]) -> BTreeMap<u32, i64> {
        fields.iter().copied().collect()
    }

    fn opened(fields: &[u32]) -> Picture {
        let mut p = Picture::default();
        p.hello(7, fields);
        p.frame(7, &snap(&[(2, 10), (3, 20)]), false, &site(&[(2, 10), (3, 20)])).unwrap();
        p
    }

    #[test]
    fn a_delta_of_the_changes_keeps_the_picture_current() {
        let mut p = opened(&[]);
        assert_eq!(p.frame(7, &delta(&[(3, 21)]), false, &site(&[(2, 10), (3, 21)])), Ok(()));
        assert_eq!(p.frame(7, &Msg::Tick { seq: Some(3) }, false, &site(&[(2, 10), (3, 21)])), Ok(()));
    }

    #[test]
    fn a_tick_while_a_value_moved_is_stale() {
        let mut p = opened(&[]);
        let e = p.frame(7, &Msg::Tick { seq: Some(2) }, false, &site(&[(2, 11), (3, 20)])).unwrap_err();
        assert!(e.contains("field 2 shows Some(10), the site reads 11"), "{e}");
    }

    #[test]
    fn a_delta_repeating_a_value_or_beyond_the_subscription_is_refused() {
        let mut p = opened(&[]);
        p.frame(7, &Msg::Tick { seq: Some(1) }, false, &site(&[(2, 10), (3, 20)])).unwrap();
        let e = p.frame(7, &delta(&[(2, 10), (3, 21)]), false, &site(&[(2, 10), (3, 21)])).unwrap_err();
        assert!(e.contains("repeats field 2"), "{e}");
        let e = opened(&[3]).frame(7, &delta(&[(2, 11)]), false, &site(&[(2, 11), (3, 20)])).unwrap_err();
        assert!(e.contains("carries field 2, not subscribed"), "{e}");
    }

    #[test]
    fn right_after_a_snap_a_delta_may_repeat_what_it_showed() {
        let mut p = opened(&[]);
        assert_eq!(p.frame(7, &delta(&[(2, 10), (3, 21)]), false, &site(&[(2, 10), (3, 21)])), Ok(()));
        assert!(p.frame(7, &delta(&[(3, 21)]), false, &site(&[(2, 10), (3, 21)])).is_err());
    }

    #[test]
    fn unsubscribed_fields_may_lag_and_a_truncated_delta_may_leave_the_rest() {
        let mut p = opened(&[3]);
        assert_eq!(p.frame(7, &Msg::Tick { seq: Some(2) }, false, &site(&[(2, 99), (3, 20)])), Ok(()));
        let mut p = opened(&[]);
        assert_eq!(p.frame(7, &delta(&[(2, 11)]), true, &site(&[(2, 11), (3, 21)])), Ok(()));
        assert!(p.frame(7, &Msg::Tick { seq: Some(3) }, false, &site(&[(2, 11), (3, 21)])).is_err());
    }
}
