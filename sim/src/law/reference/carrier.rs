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
//! * once the carrier ended the session nothing more is delivered (the model's docs:
//!   dropped); the session ends then (the driver's `Ended { by_carrier }` follows before any
//!   other step of it), never by the carrier otherwise (a dropped datagram replay: the session
//!   goes on), and its windows judge nothing more;
//! * a datagram only comes over QUIC (SPEC §3);
//! * the settings line reads "Connected · QUIC" or "Connected · WebSocket", for the transport
//!   that carries the session (SPEC §4; the rule was listed for this law before the driver
//!   journaled the line: fuzz-only mutants, session 31, `transport_name` -> "" passed).
//!
//! What the carrier is told (`opened`) must match what the session's replay windows said of
//! the message (the `ReplayStep`s journaled since the carrier's last verdict in that session):
//! a refused seq is a replay; a fresh seq that did not authenticate is broken; only a message
//! the box session's window accepted can have opened (a message that authenticated may still
//! be broken: not a frame, not an envelope).

use std::collections::BTreeMap;

use crate::law::rules;
use crate::law::{Judge, Law};
use crate::world::journal::carrier::{Arrival, CarrierStep, Opened, Transport, Verdict};
use crate::world::journal::replay::{Layer, ReplayStep, Said};
use crate::world::journal::{Entry, Step};
use crate::world::switch::Switch;

use super::{Lockstep, Reference};

pub const CARRIER: Reference = Reference {
    law: Law::new("carrier-agrees-with-spec", "every carrier verdict is the SPEC's: a datagram replay is dropped, a replay or broken message on a stream ends the session, nothing after the end; the settings line names the transport (SPEC §4)").checks(&[&rules::REPLAY_HANDLING, &rules::SETTINGS_LINE]).broken_by(&[Switch::DatagramReplayEndsSession, Switch::StreamReplayOnlyDropped])
        .judged(Judge::Journal(check)),
    planted: &[],
};

/// One session's carrier as the SPEC describes it.
#[derive(Default)]
struct Carrier {
    /// The carrier decided to end the session: nothing more is delivered.
    ended: bool,
    /// The journal index of that verdict while the session has not ended yet.
    must_end: Option<usize>,
    /// The session ended (any way): its windows judge nothing more.
    closed: bool,
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

    /// A window judged a message of this session.
    fn window(&mut self, layer: Layer, said: Said, marked: bool) -> Result<(), (String, String)> {
        if self.closed || self.must_end.is_some() {
            return Err(("a window judged a message".into(), "the session ended: it judges nothing more".into()));
        }
        self.judged.push((layer, said, marked));
        Ok(())
    }

    /// The carrier judged a message at journal step `index`.
    fn judge(&mut self, index: usize, transport: Transport, arrival: Arrival, opened: Opened, verdict: Verdict) -> Result<(), (String, String)> {
        if arrival == Arrival::Datagram && transport != Transport::Quic {
            return Err((format!("a datagram over {transport:?}"), "a datagram only comes over QUIC".into()));
        }
        if self.must_end.is_some() {
            return Err(("the session went on".into(), "the carrier ended it".into()));
        }
        let allowed = self.opened_allowed();
        if !self.ended && !allowed.contains(&opened) {
            return Err((format!("opened {opened:?}"), format!("opened {allowed:?} (the windows said {:?})", self.judged)));
        }
        let spec = self.verdict(arrival, opened);
        if spec != verdict {
            return Err((format!("{verdict:?}"), format!("{spec:?}")));
        }
        self.judged.clear();
        if spec == Verdict::EndSession {
            (self.ended, self.must_end) = (true, Some(index));
        }
        Ok(())
    }

    /// The session ended, by the carrier or otherwise.
    fn end(&mut self, by_carrier: bool) -> Result<(), (String, String)> {
        let wanted = self.must_end.is_some();
        (self.closed, self.must_end) = (true, None);
        match (by_carrier, wanted) {
            (true, false) => Err(("the session ended by the carrier".into(), "no EndSession verdict: the session goes on".into())),
            (false, true) => Err(("the session ended otherwise".into(), "the carrier's EndSession ends it".into())),
            _ => Ok(()),
        }
    }
}

/// SPEC §4: "The settings line reads "Connected · QUIC" or "Connected · WebSocket"", for the
/// transport that carries the session.
fn settings_line(transport: Transport, line: &str) -> Result<(), (String, String)> {
    let spec = match transport {
        Transport::Quic => "Connected · QUIC",
        Transport::WebSocket => "Connected · WebSocket",
    };
    match line == spec {
        true => Ok(()),
        false => Err((format!("the settings line {line:?} over {transport:?}"), format!("{spec:?}"))),
    }
}

/// Replays the carrier's and the windows' steps against a [`Carrier`] per host and session.
pub fn check(journal: &[Entry]) -> Option<Lockstep> {
    let mut carriers: BTreeMap<(&str, u64), Carrier> = BTreeMap::new();
    let mut steps = 0;
    for (index, e) in journal.iter().enumerate() {
        let got = match &e.step {
            Step::Replay(ReplayStep::Judged { session, layer, said, marked, .. }) => {
                carriers.entry((e.host.as_str(), *session)).or_default().window(*layer, *said, *marked)
            }
            Step::Carrier(CarrierStep::Judged { session, transport, arrival, opened, verdict }) => {
                steps += 1;
                carriers.entry((e.host.as_str(), *session)).or_default().judge(index, *transport, *arrival, *opened, *verdict)
            }
            Step::Carrier(CarrierStep::Shown { transport, line, .. }) => {
                steps += 1;
                settings_line(*transport, line)
            }
            Step::Carrier(CarrierStep::Ended { session, by_carrier }) => {
                steps += 1;
                carriers.entry((e.host.as_str(), *session)).or_default().end(*by_carrier)
            }
            _ => Ok(()),
        };
        if let Err((model, spec)) = got {
            return Some(Lockstep::Differs { index, entry: e.describe(), model, spec });
        }
    }
    // A session the carrier ended must have ended by the end of the run.
    if let Some(index) = carriers.values().filter_map(|c| c.must_end).min() {
        let (model, spec) = ("the session went on to the end of the run".into(), "the carrier's EndSession ends it".into());
        return Some(Lockstep::Differs { index, entry: journal[index].describe(), model, spec });
    }
    (steps > 0).then_some(Lockstep::Agreed { steps })
}
