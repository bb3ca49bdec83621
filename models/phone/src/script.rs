//! A scripted dial driver: runs a [`CloudSockets`] race against fixed dial outcomes, with
//! no network. For the unit tests; the sim's real driver binds the same inputs to
//! simulated sockets.
//!
//! Order of events at the same instant: the race's own deadline first, then dial outcomes
//! in the order they were scheduled.

use crate::network::NetworkId;
use crate::race::{Action, CloudSockets, Decision};
use crate::Transport;

/// What a dial of one transport does once started.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum DialOutcome {
    /// Opens this long after it starts.
    Opens { after_ms: u64 },
    /// Refused this long after it starts (for QUIC: `quic_refused`).
    Refused { after_ms: u64 },
    /// Never answers (the race's dial timeout ends it).
    NoAnswer,
}

/// The outcome of each transport's dial in one race.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct DialScript {
    pub quic: DialOutcome,
    pub ws: DialOutcome,
}

impl DialScript {
    pub fn both_open(quic_ms: u64, ws_ms: u64) -> Self {
        Self { quic: DialOutcome::Opens { after_ms: quic_ms }, ws: DialOutcome::Opens { after_ms: ws_ms } }
    }
    fn of(&self, t: Transport) -> DialOutcome {
        match t {
            Transport::Quic => self.quic,
            Transport::WebSocket => self.ws,
        }
    }
}

/// What happened in one scripted race.
#[derive(Clone, Debug, Default)]
pub struct RaceRun {
    /// The transport that carried the session and when it opened.
    pub session: Option<(Transport, u64)>,
    pub failed: bool,
    /// Every dial started, with its time.
    pub dials: Vec<(u64, Transport)>,
    /// Every dial closed, with its time.
    pub closes: Vec<(u64, Transport)>,
    pub decisions: Vec<(u64, Decision)>,
    /// The time the run stopped (no more work, or `until_ms`).
    pub end_ms: u64,
}

impl RaceRun {
    pub fn dialled(&self, t: Transport) -> bool {
        self.dials.iter().any(|&(_, d)| d == t)
    }
}

#[derive(Clone, Copy)]
enum Ev {
    Open,
    Refused,
}

/// Start a race at `now_ms` on `network` and run it until nothing is left to happen or
/// `until_ms`. The session (if any) stays open: end it with `session_ended` or `close`.
pub fn run_race(s: &mut CloudSockets, now_ms: u64, network: NetworkId, script: DialScript, until_ms: u64) -> RaceRun {
    let mut run = RaceRun::default();
    let mut pending: Vec<(u64, Transport, Ev)> = Vec::new();
    let mut now = now_ms;
    s.start(now, network);
    loop {
        while let Some(a) = s.poll_action() {
            match a {
                Action::StartDial(t) => {
                    run.dials.push((now, t));
                    match script.of(t) {
                        DialOutcome::Opens { after_ms } => pending.push((now + after_ms, t, Ev::Open)),
                        DialOutcome::Refused { after_ms } => pending.push((now + after_ms, t, Ev::Refused)),
                        DialOutcome::NoAnswer => {}
                    }
                }
                Action::CloseDial(t) => {
                    run.closes.push((now, t));
                    pending.retain(|&(_, p, _)| p != t);
                }
                Action::UseSession(t) => {
                    assert!(run.session.is_none(), "never two sessions");
                    run.session = Some((t, now));
                }
                Action::RaceFailed => run.failed = true,
            }
        }
        while let Some(d) = s.poll_decision() {
            run.decisions.push(d);
        }
        let timer = s.poll_timeout();
        let event = pending.iter().map(|p| p.0).min();
        let next = match (timer, event) {
            (None, None) => break,
            (Some(a), Some(b)) => a.min(b),
            (Some(a), None) | (None, Some(a)) => a,
        };
        if next > until_ms {
            break;
        }
        assert!(next >= now, "time never goes back");
        now = next;
        if timer.is_some_and(|t| t <= now) {
            s.handle_timeout(now);
            continue;
        }
        let i = pending.iter().position(|p| p.0 == now).expect("an event is due");
        let (_, t, ev) = pending.remove(i);
        match (ev, t) {
            (Ev::Open, _) => s.opened(now, t),
            (Ev::Refused, Transport::Quic) => s.quic_refused(now),
            (Ev::Refused, Transport::WebSocket) => s.dial_failed(now, t),
        }
    }
    run.end_ms = now;
    run
}
