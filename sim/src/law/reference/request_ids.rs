//! Law `request-ids-distinct`: every request one phone session sends (`hello`,
//! `cmd`) carries its own envelope id. SPEC §2: the envelope is `{t, id?, b?}`,
//! and `hello_ok`, `cmd.ack` and `cmd.result` echo the request's id: a session
//! that sends two requests under one id cannot tell their replies apart.
//!
//! Judged from what the boxes read (`BoxNote::Hello` / `BoxNote::Cmd`, by box and
//! channel; a channel's ids start afresh when the box opens a session on it with
//! message 2). Not a second model of anything: a rule over every request seen.

use std::collections::{BTreeMap, BTreeSet};

use crate::law::rules;
use crate::law::{Judge, Law};
use crate::world::journal::r#box::{BoxNote, BoxStep, Sent};
use crate::world::journal::{Entry, Step};

use super::{Lockstep, Reference};

pub const REQUEST_IDS: Reference = Reference {
    law: Law::new(
        "request-ids-distinct",
        "each request of one phone session (hello, cmd) carries its own envelope id, so each reply echoing it names one request (SPEC section 2)",
    )
    .checks(&[&rules::REPLY_ECHOES_ID])
    .judged(Judge::Journal(check)),
    planted: &[],
};

/// The law's check: `None` when no box read a request.
pub fn check(journal: &[Entry]) -> Option<Lockstep> {
    let mut seen: BTreeMap<(&str, u32), BTreeSet<u32>> = BTreeMap::new();
    let mut steps = 0;
    for (index, e) in journal.iter().enumerate() {
        let Step::Box(BoxStep::Note(n)) = &e.step else { continue };
        let (chan, id, what) = match n {
            BoxNote::Sent { chan, what: Sent::Msg2 } => {
                seen.remove(&(e.host.as_str(), *chan));
                continue;
            }
            BoxNote::Hello { chan, id: Some(id), .. } => (*chan, *id, "hello".to_string()),
            BoxNote::Cmd { chan, id: Some(id), cmd_id, .. } => (*chan, *id, format!("cmd {cmd_id}")),
            _ => continue,
        };
        steps += 1;
        if !seen.entry((e.host.as_str(), chan)).or_default().insert(id) {
            let model = format!("{what} on chan {chan} with id {id}, an id this session already used");
            return Some(Lockstep::Differs { index, entry: e.describe(), model, spec: "a new id for each request of a session".into() });
        }
    }
    (steps > 0).then_some(Lockstep::Agreed { steps })
}
