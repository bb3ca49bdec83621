//! The phone's carrier, from the SPEC's words (SPEC.md §4 "Carrier", §3 datagrams).
//!
//! Rules, per host and session:
//! * a message that opened is delivered;
//! * a replay (its seq refused by a replay window) that came as a datagram is dropped and the
//!   session goes on;
//! * a replay or a broken message (it did not authenticate or decode) on a stream ends the
//!   session;
//! * a broken datagram ends the session too: chosen in the model's docs
//!   (`models/phone/src/carrier.rs`: QUIC's packet protection rules out damage in transit);
//! * once the session ended nothing more is delivered (the model's docs: dropped), and its
//!   windows judge nothing more;
//! * a datagram only comes over QUIC (SPEC §3).
//!
//! What the carrier is told (`opened`) must match what the session's replay windows said of
//! the message (the `ReplayStep`s journaled since the carrier's last verdict in that session):
//! a refused seq is a replay; a fresh seq that did not authenticate is broken; only a message
//! the box session's window accepted can have opened (a message that authenticated may still
//! be broken: not a frame, not an envelope).

use std::collections::BTreeMap;

use ftw_sim::scenario::Law;
use ftw_sim::world::journal::carrier::{Arrival, CarrierStep, Opened, Transport, Verdict};
use ftw_sim::world::journal::replay::{Layer, ReplayStep, Said};
use ftw_sim::world::journal::{Entry, Step};

use super::{Lockstep, Reference};

pub const CARRIER: Reference = Reference {
    law: Law {
        name: "carrier-agrees-with-spec",
        about: "every carrier verdict is the SPEC's: a datagram replay is dropped, a replay or broken message on a stream ends the session, nothing after the end (SPEC §4)",
    },
    check,
};

/// One session's carrier as the SPEC describes it.
#[derive(Default)]
struct Carrier {
    ended: bool,
    /// What the windows said of the message being judged: (layer, said, marked).
    judged: Vec<(Layer, Said, bool)>,
}

impl Carrier {
    /// How the message should have opened, from the windows' answers.
    fn opened_allowed(&self) -> &'static [Opened] {
        if self.judged.iter().any(|j| j.1 != Said::Fresh) {
            &[Opened::Replay]
        } else if self.judged.iter().any(|j| !j.2) {
            &[Opened::Broken]
        } else if self.judged.iter().any(|j| j.0 == Layer::BoxSession) {
            &[Opened::Ok, Opened::Broken]
        } else {
            &[Opened::Broken]
        }
    }

    /// The SPEC's verdict.
    fn verdict(&self, arrival: Arrival, opened: Opened) -> Verdict {
        match (self.ended, arrival, opened) {
            (true, _, _) => Verdict::Drop,
            (false, _, Opened::Ok) => Verdict::Deliver,
            (false, Arrival::Datagram, Opened::Replay) => Verdict::Drop,
            (false, Arrival::Stream, Opened::Replay) => Verdict::EndSession,
            (false, _, Opened::Broken) => Verdict::EndSession,
        }
    }
}

/// Replays the carrier's and the windows' steps against a [`Carrier`] per host and session.
pub fn check(journal: &[Entry]) -> Option<Lockstep> {
    let mut carriers: BTreeMap<(&str, u64), Carrier> = BTreeMap::new();
    let mut steps = 0;
    for (index, e) in journal.iter().enumerate() {
        let differs = |model: String, spec: String| Some(Lockstep::Differs { index, entry: e.describe(), model, spec });
        match &e.step {
            Step::Replay(ReplayStep::Judged { session, layer, said, marked, .. }) => {
                let c = carriers.entry((e.host.as_str(), *session)).or_default();
                if c.ended {
                    return differs("a window judged a message".into(), "the session ended: it judges nothing more".into());
                }
                c.judged.push((*layer, *said, *marked));
            }
            Step::Carrier(CarrierStep::Judged { session, transport, arrival, opened, verdict }) => {
                steps += 1;
                let c = carriers.entry((e.host.as_str(), *session)).or_default();
                if *arrival == Arrival::Datagram && *transport != Transport::Quic {
                    return differs(format!("a datagram over {transport:?}"), "a datagram only comes over QUIC".into());
                }
                let allowed = c.opened_allowed();
                if !c.ended && !allowed.contains(opened) {
                    return differs(format!("opened {opened:?}"), format!("opened {allowed:?} (the windows said {:?})", c.judged));
                }
                let spec = c.verdict(*arrival, *opened);
                if spec != *verdict {
                    return differs(format!("{verdict:?}"), format!("{spec:?}"));
                }
                c.judged.clear();
                c.ended |= spec == Verdict::EndSession;
            }
            _ => {}
        }
    }
    (steps > 0).then_some(Lockstep::Agreed { steps })
}
