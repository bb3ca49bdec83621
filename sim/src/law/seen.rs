//! What runs observe that laws of more than one scenario judge: each a small
//! typed summary a scenario fills in ([`Seen`]), judged by the one function its
//! law names (`laws.rs`). A scenario never writes such a law's check itself.

use super::{Check, Judge, Law};
use crate::drive::app::phone::SessionRecord;

/// The stream's echo: what the phone sent, in order, and what came back.
#[derive(Debug, Clone)]
pub struct Echo {
    pub sent: Vec<String>,
    pub back: Vec<String>,
    /// Why the echo stopped before the end, if something cut it.
    pub cut: Option<Cut>,
}

/// What cut an echo short, in words, and whether the scenario's excuse holds
/// (a link the plan could kill, a connection QUIC's rules let idle out).
#[derive(Debug, Clone)]
pub struct Cut {
    pub why: String,
    pub excused: bool,
}

/// The connections the cloud accepted against those the run should cost.
#[derive(Debug, Clone)]
pub struct Accepted {
    pub accepted: u64,
    pub expected: u64,
    /// What the expected number is made of, in words.
    pub why: String,
    /// Something wrong with an accepted connection (its target, its transport).
    pub wrong: Option<String>,
}

/// The close the cloud saw from the phone.
#[derive(Debug, Clone)]
pub struct Close {
    /// The code the cloud saw, and whether the peer sent it (not a local end).
    pub seen: Option<(u64, bool)>,
    /// The close may be lost for good (QUIC's one CONNECTION_CLOSE under loss).
    pub may_be_lost: bool,
    /// The link may die first: the cloud then sees 1006.
    pub may_die: bool,
    /// The link died before the phone could close it.
    pub died: bool,
}

/// What the box and the cloud hold once the phone has gone and the links settled.
#[derive(Debug, Clone)]
pub struct Held {
    /// Whether the end could settle (the cloud can tell the box only over an uplink).
    pub settled: bool,
    /// The counts at the end; `None` when the run never got there.
    pub counts: Option<HeldCounts>,
    /// When the counts were taken, in words.
    pub when: String,
}

/// Sessions the box holds, the cloud's links beyond the box's uplink, and the
/// phones it relays to the box.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct HeldCounts {
    pub box_sessions: usize,
    pub cloud_links: usize,
    pub relays: usize,
}

/// Replays a receiver refused against the copies someone made.
#[derive(Debug, Clone)]
pub struct Replays {
    pub refused: u64,
    pub made: u64,
    pub about: String,
}

/// The phone's sessions: how many, and the most held at once.
#[derive(Debug, Clone)]
pub struct Sessions {
    pub sessions: usize,
    pub at_once_max: usize,
    pub about: String,
}

/// Everything a run observed for the laws more than one scenario judges; a
/// scenario fills in what its declared laws need (a declared law whose
/// observation is missing is a bug in the scenario: the run panics).
#[derive(Debug, Default)]
pub struct Seen {
    pub echo: Option<Echo>,
    pub accepted: Option<Accepted>,
    pub close: Option<Close>,
    pub held: Option<Held>,
    pub replays: Option<Replays>,
    pub sessions: Option<Sessions>,
    /// The phone's sessions as it recorded them (the session scenarios, the phone's races).
    pub phone_sessions: Option<Vec<SessionRecord>>,
}

impl Seen {
    /// The check of `law` over what the run saw; `None` when the law is not
    /// judged over an observation or the run did not make it.
    pub fn judge(&self, law: &'static Law) -> Option<Check> {
        let (ok, detail) = match law.judge {
            Judge::Echo(f) => f(self.echo.as_ref()?),
            Judge::Accepted(f) => f(self.accepted.as_ref()?),
            Judge::Close(f) => f(self.close.as_ref()?),
            Judge::Held(f) => f(self.held.as_ref()?),
            Judge::Replays(f) => f(self.replays.as_ref()?),
            Judge::Sessions(f) => f(self.sessions.as_ref()?),
            Judge::PhoneSessions(f) => f(self.phone_sessions.as_deref()?),
            Judge::Outcome | Judge::Own | Judge::Journal(_) => return None,
        };
        Some(Check { law, ok, detail })
    }
}
