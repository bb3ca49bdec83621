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

#[cfg(test)]
mod tests {
    //! Each shared judge passes what its rule allows and fails what it forbids.

    use super::*;
    use crate::law::seen::{Cut, HeldCounts};

    fn echo(back: &[&str], cut: Option<bool>) -> Echo {
        let sent = ["m0;", "m1;", "m2;"].map(String::from).to_vec();
        Echo { sent, back: back.iter().map(|s| s.to_string()).collect(), cut: cut.map(|excused| Cut { why: "cut".into(), excused }) }
    }

    #[test]
    fn echo_in_order_wants_all_back_in_order_unless_an_excused_cut() {
        assert!(echo_in_order(&echo(&["m0;", "m1;", "m2;"], None)).0);
        assert!(!echo_in_order(&echo(&["m0;", "m1;"], None)).0, "one lost with nothing to excuse it");
        assert!(!echo_in_order(&echo(&["m1;", "m0;", "m2;"], None)).0, "out of order");
        assert!(echo_in_order(&echo(&["m0;"], Some(true))).0);
        assert!(!echo_in_order(&echo(&["m0;"], Some(false))).0, "a cut not excused");
        assert!(!echo_in_order(&echo(&["m1;"], Some(true))).0, "an excused cut still wants the start in order");
    }

    #[test]
    fn one_connection_wants_the_expected_count_and_nothing_wrong() {
        let a = |accepted, wrong: Option<&str>| Accepted { accepted, expected: 1, why: String::new(), wrong: wrong.map(String::from) };
        assert!(one_connection(&a(1, None)).0);
        assert!(!one_connection(&a(2, None)).0);
        assert!(!one_connection(&a(1, Some("target \"x\""))).0);
    }

    #[test]
    fn clean_close_wants_the_phones_1000_or_what_the_plan_excuses() {
        let c = |seen, may_be_lost, may_die, died| Close { seen, may_be_lost, may_die, died };
        assert!(clean_close(&c(Some((1000, true)), false, false, false)).0);
        assert!(!clean_close(&c(Some((1000, false)), false, false, false)).0, "a 1000 the cloud made up");
        assert!(!clean_close(&c(None, false, false, false)).0, "no close where none may be lost");
        assert!(clean_close(&c(None, true, false, false)).0);
        assert!(!clean_close(&c(Some((1006, true)), false, false, false)).0, "1006 where the plan cannot kill the link");
        assert!(clean_close(&c(Some((1006, true)), false, true, false)).0);
        assert!(!clean_close(&c(Some((4408, true)), true, true, false)).0, "another code");
        assert!(clean_close(&c(Some((4408, true)), false, false, true)).0, "the link died first");
    }

    #[test]
    fn nothing_held_after_end_wants_all_clear_once_settled() {
        let h = |settled, counts| Held { settled, counts, when: String::new() };
        let clear = HeldCounts { box_sessions: 0, cloud_links: 0, relays: 0 };
        assert!(nothing_held_after_end(&h(true, Some(clear))).0);
        assert!(!nothing_held_after_end(&h(true, Some(HeldCounts { box_sessions: 1, ..clear }))).0);
        assert!(!nothing_held_after_end(&h(true, Some(HeldCounts { cloud_links: 1, ..clear }))).0);
        assert!(!nothing_held_after_end(&h(true, Some(HeldCounts { relays: 1, ..clear }))).0);
        assert!(!nothing_held_after_end(&h(true, None)).0, "a run that never got to the end");
        assert!(nothing_held_after_end(&h(false, Some(HeldCounts { box_sessions: 1, ..clear }))).0, "not settled: not judged");
    }

    #[test]
    fn no_false_replay_and_never_two_sessions_fail_past_their_bounds() {
        assert!(no_false_replay(&Replays { refused: 2, made: 2, about: String::new() }).0);
        assert!(!no_false_replay(&Replays { refused: 3, made: 2, about: String::new() }).0);
        let s = |sessions, at_once_max| Sessions { sessions, at_once_max, about: String::new() };
        assert!(never_two_sessions(&s(3, 1)).0);
        assert!(!never_two_sessions(&s(3, 2)).0);
        assert!(!never_two_sessions(&s(0, 0)).0, "a run with no session judges nothing");
    }
}
