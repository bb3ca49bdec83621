//! The judges of the laws more than one scenario is judged by, each over its
//! typed observation (`seen.rs`): written once, named by its law in `laws.rs`.

use super::seen::{Accepted, Close, Echo, Held, Replays, Sessions};
use super::spec;
use super::Ruling;

/// `echo-in-order`: what came back is the start of what was sent, and all of
/// it unless something cut the echo and the scenario's excuse for the cut holds.
pub fn echo_in_order(e: &Echo) -> Ruling {
    let prefix = e.sent.starts_with(&e.back);
    let ok = match &e.cut {
        None => prefix && e.back.len() == e.sent.len(),
        Some(cut) => prefix && cut.excused,
    };
    let cut = e.cut.as_ref().map(|c| format!(" ({}{})", c.why, if c.excused { "" } else { "; not excused" })).unwrap_or_default();
    (ok, format!("echoes {:?}{cut}", e.back))
}

/// `one-connection`: the cloud accepted the connections the run should cost
/// and nothing was wrong with them.
pub fn one_connection(a: &Accepted) -> Ruling {
    let wrong = a.wrong.as_ref().map(|w| format!("; {w}")).unwrap_or_default();
    (a.accepted == a.expected && a.wrong.is_none(), format!("the cloud accepted {} connections ({}){wrong}", a.accepted, a.why))
}

/// `clean-close`: the cloud sees the phone's 1000, sent by the phone; or
/// nothing, where the close may be lost for good; or 1006, where the plan may
/// kill the link; anything goes once the link died first.
pub fn clean_close(c: &Close) -> Ruling {
    let ok = c.died
        || match c.seen {
            None => c.may_be_lost,
            Some((code, by_peer)) if code == u64::from(spec::close::NORMAL) => by_peer,
            Some((code, _)) if code == u64::from(spec::close::ABNORMAL) => c.may_die,
            Some(_) => false,
        };
    let may = match (c.may_be_lost, c.may_die) {
        (true, _) => "; the close may be lost",
        (false, true) => "; the plan may kill the link",
        (false, false) => "",
    };
    (ok, format!("the cloud saw close {:?}{}{may}", c.seen.map(|s| s.0), if c.died { " after the link died" } else { "" }))
}

/// `nothing-held-after-end`: once the end has settled, the box holds no
/// session and the cloud no link beyond the box's uplink and no relay.
pub fn nothing_held_after_end(h: &Held) -> Ruling {
    let clear = h.counts.is_some_and(|c| c.box_sessions == 0 && c.cloud_links == 0 && c.relays == 0);
    let counts = match h.counts {
        Some(c) => format!(
            "the box holds {} sessions, the cloud {} links besides the box's uplink and relays {} phones to the box",
            c.box_sessions, c.cloud_links, c.relays
        ),
        None => "the run never got there".into(),
    };
    (!h.settled || clear, format!("{}: {counts}{}", h.when, if h.settled { "" } else { " (not settled: not judged)" }))
}

/// `no-false-replay`: every replay a receiver refused is a copy someone made.
pub fn no_false_replay(r: &Replays) -> Ruling {
    (r.refused <= r.made, format!("{} replays refused, {} copies made; {}", r.refused, r.made, r.about))
}

/// `never-two-sessions`: the phone held sessions, never two at once.
pub fn never_two_sessions(s: &Sessions) -> Ruling {
    (s.sessions > 0 && s.at_once_max <= 1, format!("{} sessions, at most {} at once{}", s.sessions, s.at_once_max, s.about))
}
