//! `CloudSockets.racing`: the race of QUIC against the WebSocket, the session it yields,
//! demotion and the learning dial, as an IO-free state machine.
//!
//! Inputs: [`CloudSockets::start`], [`CloudSockets::quic_refused`],
//! [`CloudSockets::dial_failed`], [`CloudSockets::opened`], [`CloudSockets::first_message`],
//! [`CloudSockets::session_ended`], [`CloudSockets::close`], [`CloudSockets::handle_timeout`].
//! Outputs: [`CloudSockets::poll_action`] (what the driver must do),
//! [`CloudSockets::poll_timeout`] (the next deadline), [`CloudSockets::poll_decision`]
//! (a trace of every decision, with its time).
//!
//! The race (seed 000, SPEC.md section 4):
//! * `start` asks the memory which transport goes first (QUIC unless the memory says
//!   otherwise) and dials it at once; the other is scheduled `LEAD_MS` later. If the first
//!   dial fails (QUIC refused, or any failure) before the lead, the other starts at once.
//! * The first dial to open carries the session ([`Action::UseSession`], at most once per
//!   race: never two sessions) and its win is written to the memory (a QUIC win while QUIC
//!   is demoted is not written).
//! * The other dial: if it is the WebSocket (QUIC won) it is closed, or never started if
//!   still scheduled. If it is QUIC and under way it goes on as the learning dial (switch
//!   `losing_quic_dial_cancelled`: it is closed). If it is QUIC and still scheduled (the
//!   WebSocket went first and opened inside the lead), the QUIC probe stays scheduled and
//!   is dialled at `start + LEAD_MS` as a learning dial (switch
//!   `ws_first_cancels_quic_probe`: it is cancelled, QUIC is never dialled; the review's bug).
//! * A learning dial that opens writes QUIC to the memory unless QUIC is demoted, and is
//!   closed at once. One that fails writes nothing.
//! * Every dial has `DIAL_TIMEOUT_MS` to open (chosen here); past it, it counts as failed
//!   and is closed. When both dials have failed, the race fails ([`Action::RaceFailed`]);
//!   the driver decides when to start again.
//! * A QUIC session's end is judged by [`crate::session::judge_quic_end`]; a demotion is
//!   written to the memory for `DEMOTION_MS`.
//!
//! Consequence (tested in `race_tests`): after a demotion, the WebSocket wins every race
//! of the day and its memory entry is refreshed each time; the first reconnect after the
//! day starts with the remembered WebSocket, and its QUIC probe learns QUIC; the next one
//! is carried by QUIC. After a lost race with no demotion, QUIC is learned at the next
//! reconnect. With `ws_first_cancels_quic_probe`, neither ever happens.
//!
//! [`Action::CloseDial`] closes the named transport's connection, whether it is still
//! opening or carries the session.

use crate::consts::{DECISIONS_MAX, DIAL_TIMEOUT_MS, LEAD_MS};
use crate::memory::{CloudTransportMemory, FirstReason, WriteOutcome};
use crate::network::NetworkId;
use crate::session::{judge_quic_end, DemotionVerdict, SessionEnd};
use crate::switches::Switches;
use crate::Transport;
use std::collections::VecDeque;
use std::fmt;

/// What the driver must do.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Action {
    /// Dial this transport to the cloud.
    StartDial(Transport),
    /// Close this transport's dial or connection.
    CloseDial(Transport),
    /// This transport carries the session (once per race).
    UseSession(Transport),
    /// Both dials failed; no session.
    RaceFailed,
}

/// Why a dial failed.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum DialFailure {
    /// QUIC refused at once (ICMP port unreachable, UDP not allowed).
    Refused,
    /// Any other failure the driver reports.
    Failed,
    /// No answer within `DIAL_TIMEOUT_MS`.
    TimedOut,
}

/// Where the race or session stands.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Phase {
    Idle,
    Racing,
    Connected(Transport),
}

/// One decision of the phone's transport logic, for the trace.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Decision {
    RaceStarted {
        network: NetworkId,
        first: Transport,
        reason: FirstReason,
    },
    /// A new `start` or `close` abandoned the race or session under way.
    Aborted {
        network: NetworkId,
    },
    /// The lead timer started the second transport (`learning`: a session already exists).
    LeadTimerFired {
        started: Transport,
        learning: bool,
    },
    /// The first dial failed before the lead, so the other starts at once.
    SecondAtOnce {
        started: Transport,
        failed: Transport,
        cause: DialFailure,
    },
    DialFailed {
        transport: Transport,
        cause: DialFailure,
    },
    Winner {
        transport: Transport,
        after_start_ms: u64,
    },
    MemoryWrite {
        network: NetworkId,
        transport: Transport,
    },
    /// QUIC won the race while demoted: it carries this session, the memory is unchanged.
    WinIgnoredDemoted {
        network: NetworkId,
        until_ms: u64,
    },
    MemoryForgot {
        network: NetworkId,
    },
    LoserClosed {
        transport: Transport,
    },
    /// The scheduled second transport will never be dialled in this race.
    LeadCancelled {
        never_started: Transport,
    },
    /// The WebSocket won and the QUIC dial under way goes on to learn.
    LearningDialContinues,
    /// The WebSocket won inside the lead; the QUIC probe stays scheduled.
    LearningProbeKept {
        at_ms: u64,
    },
    LearningWin {
        network: NetworkId,
    },
    LearningIgnoredDemoted {
        network: NetworkId,
        until_ms: u64,
    },
    LearningDialFailed {
        cause: DialFailure,
    },
    RaceFailed {
        network: NetworkId,
    },
    FirstMessage {
        transport: Transport,
        after_open_ms: u64,
    },
    SessionEnded {
        transport: Transport,
        end: SessionEnd,
    },
    Demoted {
        network: NetworkId,
        until_ms: u64,
        why: DemotionVerdict,
    },
    NotDemoted {
        network: NetworkId,
        why: DemotionVerdict,
    },
    /// An input that does not fit the state (e.g. an open reported after a close).
    StaleInput {
        what: &'static str,
    },
}

impl fmt::Display for DialFailure {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            DialFailure::Refused => "refused",
            DialFailure::Failed => "failed",
            DialFailure::TimedOut => "timed out",
        })
    }
}

impl Decision {
    /// The decision's kind, named from its variant: what coverage and laws
    /// count (never the display text, which is for people).
    pub fn kind(&self) -> &'static str {
        match self {
            Decision::RaceStarted { .. } => "race-started",
            Decision::Aborted { .. } => "aborted",
            Decision::LeadTimerFired { .. } => "lead-timer-fired",
            Decision::SecondAtOnce { .. } => "second-at-once",
            Decision::DialFailed { .. } => "dial-failed",
            Decision::Winner { .. } => "winner",
            Decision::MemoryWrite { .. } => "memory-write",
            Decision::WinIgnoredDemoted { .. } => "win-ignored-demoted",
            Decision::MemoryForgot { .. } => "memory-forgot",
            Decision::LoserClosed { .. } => "loser-closed",
            Decision::LeadCancelled { .. } => "lead-cancelled",
            Decision::LearningDialContinues => "learning-dial-continues",
            Decision::LearningProbeKept { .. } => "learning-probe-kept",
            Decision::LearningWin { .. } => "learning-win",
            Decision::LearningIgnoredDemoted { .. } => "learning-ignored-demoted",
            Decision::LearningDialFailed { .. } => "learning-dial-failed",
            Decision::RaceFailed { .. } => "race-failed",
            Decision::FirstMessage { .. } => "first-message",
            Decision::SessionEnded { .. } => "session-ended",
            Decision::Demoted { .. } => "demoted",
            Decision::NotDemoted { .. } => "not-demoted",
            Decision::StaleInput { .. } => "stale-input",
        }
    }
}

impl fmt::Display for Decision {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        use Decision::*;
        match self {
            RaceStarted { network, first, reason } => {
                write!(f, "race started on {network}: {first} first (")?;
                match reason {
                    FirstReason::Default => write!(f, "nothing remembered)"),
                    FirstReason::Remembered { written_ms } => {
                        write!(f, "remembered winner, written at {written_ms} ms)")
                    }
                    FirstReason::Demoted { until_ms } => {
                        write!(f, "QUIC demoted until {until_ms} ms)")
                    }
                }
            }
            Aborted { network } => write!(f, "race or session on {network} abandoned"),
            LeadTimerFired { started, learning } => {
                write!(f, "lead timer fired: dialling {started}")?;
                if *learning {
                    write!(f, " as a learning probe")?;
                }
                Ok(())
            }
            SecondAtOnce { started, failed, cause } => {
                write!(f, "{failed} {cause}: dialling {started} at once")
            }
            DialFailed { transport, cause } => write!(f, "{transport} dial {cause}"),
            Winner { transport, after_start_ms } => {
                write!(f, "{transport} opened first, {after_start_ms} ms after start: it carries the session")
            }
            MemoryWrite { network, transport } => {
                write!(f, "memory: {transport} is the winner on {network}")
            }
            WinIgnoredDemoted { network, until_ms } => write!(f, "memory unchanged: QUIC won on {network} but is demoted until {until_ms} ms"),
            MemoryForgot { network } => write!(f, "memory: forgot {network} (older than a day)"),
            LoserClosed { transport } => write!(f, "{transport} lost the race: closed"),
            LeadCancelled { never_started } => {
                write!(f, "lead cancelled: {never_started} is never dialled in this race")
            }
            LearningDialContinues => write!(f, "WebSocket won: the QUIC dial goes on to learn"),
            LearningProbeKept { at_ms } => {
                write!(f, "WebSocket won inside the lead: QUIC probe stays scheduled at {at_ms} ms")
            }
            LearningWin { network } => {
                write!(f, "learning dial opened: memory: QUIC is the winner on {network}; closed")
            }
            LearningIgnoredDemoted { network, until_ms } => {
                write!(f, "learning dial opened but QUIC is demoted on {network} until {until_ms} ms: ignored; closed")
            }
            LearningDialFailed { cause } => write!(f, "learning dial {cause}: nothing learned"),
            RaceFailed { network } => write!(f, "race on {network} failed: no transport opened"),
            FirstMessage { transport, after_open_ms } => {
                write!(f, "first message on {transport}, {after_open_ms} ms after open")
            }
            SessionEnded { transport, end } => write!(f, "{transport} session ended: {end}"),
            Demoted { network, until_ms, why } => {
                write!(f, "QUIC demoted on {network} until {until_ms} ms: {why}")
            }
            NotDemoted { network, why } => write!(f, "QUIC not demoted on {network}: {why}"),
            StaleInput { what } => write!(f, "stale input ignored: {what}"),
        }
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Dial {
    Scheduled { at_ms: u64 },
    Dialing { deadline_ms: u64 },
    Open,
    Failed,
    Closed,
}

#[derive(Clone, Debug)]
struct Session {
    transport: Transport,
    opened_ms: u64,
    first_message_ms: Option<u64>,
}

#[derive(Clone, Debug)]
struct Attempt {
    network: NetworkId,
    started_ms: u64,
    quic: Dial,
    ws: Dial,
    session: Option<Session>,
}

impl Attempt {
    fn dial(&self, t: Transport) -> Dial {
        match t {
            Transport::Quic => self.quic,
            Transport::WebSocket => self.ws,
        }
    }
    fn set(&mut self, t: Transport, d: Dial) {
        match t {
            Transport::Quic => self.quic = d,
            Transport::WebSocket => self.ws = d,
        }
    }
    fn winner(&self) -> Option<Transport> {
        self.session.as_ref().map(|s| s.transport)
    }
}

/// Counters over the life of a `CloudSockets`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct RaceStats {
    pub races: u64,
    pub races_failed: u64,
    pub sessions_quic: u64,
    pub sessions_websocket: u64,
    pub dials_quic: u64,
    pub dials_websocket: u64,
    pub learning_wins: u64,
    pub learning_ignored: u64,
    pub demotions: u64,
    pub decisions_dropped: u64,
}

/// The phone's cloud transport: the race, the memory, the session and its demotion.
#[derive(Clone, Debug)]
pub struct CloudSockets {
    sw: Switches,
    memory: CloudTransportMemory,
    attempt: Option<Attempt>,
    actions: VecDeque<Action>,
    decisions: VecDeque<(u64, Decision)>,
    stats: RaceStats,
}

impl CloudSockets {
    /// `CloudSockets.racing` with an empty memory.
    pub fn racing(sw: Switches) -> Self {
        Self::with_memory(sw, CloudTransportMemory::new())
    }

    /// `CloudSockets.racing` with a memory (e.g. reloaded after a relaunch).
    pub fn with_memory(sw: Switches, memory: CloudTransportMemory) -> Self {
        Self { sw, memory, attempt: None, actions: VecDeque::new(), decisions: VecDeque::new(), stats: RaceStats::default() }
    }

    pub fn memory(&self) -> &CloudTransportMemory {
        &self.memory
    }
    pub fn memory_mut(&mut self) -> &mut CloudTransportMemory {
        &mut self.memory
    }
    pub fn stats(&self) -> RaceStats {
        self.stats
    }

    pub fn phase(&self) -> Phase {
        match &self.attempt {
            None => Phase::Idle,
            Some(a) => match a.winner() {
                None => Phase::Racing,
                Some(t) => Phase::Connected(t),
            },
        }
    }

    /// The transport carrying the session, if any.
    pub fn session(&self) -> Option<Transport> {
        self.attempt.as_ref().and_then(Attempt::winner)
    }

    /// The network of the race or session under way.
    pub fn network(&self) -> Option<&NetworkId> {
        self.attempt.as_ref().map(|a| &a.network)
    }

    pub fn poll_action(&mut self) -> Option<Action> {
        self.actions.pop_front()
    }

    pub fn poll_decision(&mut self) -> Option<(u64, Decision)> {
        self.decisions.pop_front()
    }

    /// The next deadline: a scheduled dial or a dial's timeout.
    pub fn poll_timeout(&self) -> Option<u64> {
        let a = self.attempt.as_ref()?;
        [a.quic, a.ws]
            .into_iter()
            .filter_map(|d| match d {
                Dial::Scheduled { at_ms } => Some(at_ms),
                Dial::Dialing { deadline_ms } => Some(deadline_ms),
                _ => None,
            })
            .min()
    }

    fn trace(&mut self, now_ms: u64, d: Decision) {
        if self.decisions.len() >= DECISIONS_MAX {
            self.decisions.pop_front();
            self.stats.decisions_dropped += 1;
        }
        self.decisions.push_back((now_ms, d));
    }

    fn forgot(&mut self, now_ms: u64, nets: Vec<NetworkId>) {
        for network in nets {
            self.trace(now_ms, Decision::MemoryForgot { network });
        }
    }

    fn dial_now(&mut self, now_ms: u64, t: Transport) {
        let a = self.attempt.as_mut().expect("dial_now needs an attempt");
        a.set(t, Dial::Dialing { deadline_ms: now_ms + DIAL_TIMEOUT_MS });
        match t {
            Transport::Quic => self.stats.dials_quic += 1,
            Transport::WebSocket => self.stats.dials_websocket += 1,
        }
        self.actions.push_back(Action::StartDial(t));
    }

    /// Start a race on `network` (abandoning any race or session under way).
    pub fn start(&mut self, now_ms: u64, network: NetworkId) {
        self.abort(now_ms);
        let forgot = self.memory.prune(now_ms);
        self.forgot(now_ms, forgot);
        let (first, reason) = self.memory.first(&network, now_ms);
        let second = first.other();
        let mut a = Attempt { network: network.clone(), started_ms: now_ms, quic: Dial::Closed, ws: Dial::Closed, session: None };
        a.set(second, Dial::Scheduled { at_ms: now_ms + LEAD_MS });
        self.attempt = Some(a);
        self.stats.races += 1;
        self.trace(now_ms, Decision::RaceStarted { network, first, reason });
        self.dial_now(now_ms, first);
    }

    /// The app closes the race or session under way (a `LocalClose`: never demotes).
    pub fn close(&mut self, now_ms: u64) {
        self.abort(now_ms);
    }

    fn abort(&mut self, now_ms: u64) {
        let Some(a) = self.attempt.take() else { return };
        for t in [Transport::Quic, Transport::WebSocket] {
            if matches!(a.dial(t), Dial::Dialing { .. } | Dial::Open) {
                self.actions.push_back(Action::CloseDial(t));
            }
        }
        if let Some(s) = &a.session {
            self.trace(now_ms, Decision::SessionEnded { transport: s.transport, end: SessionEnd::LocalClose });
        }
        self.trace(now_ms, Decision::Aborted { network: a.network });
    }

    /// The QUIC dial was refused: the WebSocket starts at once if it has not.
    pub fn quic_refused(&mut self, now_ms: u64) {
        self.fail(now_ms, Transport::Quic, DialFailure::Refused);
    }

    /// A dial failed (not opened).
    pub fn dial_failed(&mut self, now_ms: u64, t: Transport) {
        self.fail(now_ms, t, DialFailure::Failed);
    }

    fn fail(&mut self, now_ms: u64, t: Transport, cause: DialFailure) {
        let Some(a) = self.attempt.as_mut() else {
            self.trace(now_ms, Decision::StaleInput { what: "dial failure with no race" });
            return;
        };
        if !matches!(a.dial(t), Dial::Dialing { .. }) {
            self.trace(now_ms, Decision::StaleInput { what: "failure of a dial not under way" });
            return;
        }
        a.set(t, Dial::Failed);
        let other = t.other();
        let other_dial = a.dial(other);
        let winner = a.winner();
        let network = a.network.clone();
        match winner {
            Some(w) => {
                assert_ne!(w, t, "the session's own dial cannot fail to open");
                self.trace(now_ms, Decision::LearningDialFailed { cause });
            }
            None => {
                self.trace(now_ms, Decision::DialFailed { transport: t, cause });
                match other_dial {
                    // The bug switch: the WebSocket keeps waiting for its lead.
                    Dial::Scheduled { .. } if self.sw.refused_waits_for_lead && cause == DialFailure::Refused => {}
                    Dial::Scheduled { .. } => {
                        self.trace(now_ms, Decision::SecondAtOnce { started: other, failed: t, cause });
                        self.dial_now(now_ms, other);
                    }
                    Dial::Dialing { .. } => {}
                    Dial::Failed | Dial::Closed => {
                        self.attempt = None;
                        self.stats.races_failed += 1;
                        self.actions.push_back(Action::RaceFailed);
                        self.trace(now_ms, Decision::RaceFailed { network });
                    }
                    Dial::Open => unreachable!("an open dial is the winner"),
                }
            }
        }
    }

    /// The dial of `t` opened (its handshake is done).
    pub fn opened(&mut self, now_ms: u64, t: Transport) {
        let Some(a) = self.attempt.as_mut() else {
            self.trace(now_ms, Decision::StaleInput { what: "open with no race" });
            return;
        };
        if !matches!(a.dial(t), Dial::Dialing { .. }) {
            self.trace(now_ms, Decision::StaleInput { what: "open of a dial not under way" });
            return;
        }
        let network = a.network.clone();
        match a.winner() {
            None => {
                a.set(t, Dial::Open);
                a.session = Some(Session { transport: t, opened_ms: now_ms, first_message_ms: None });
                let after_start_ms = now_ms - a.started_ms;
                let other = t.other();
                let other_dial = a.dial(other);
                match t {
                    Transport::Quic => self.stats.sessions_quic += 1,
                    Transport::WebSocket => self.stats.sessions_websocket += 1,
                }
                self.actions.push_back(Action::UseSession(t));
                self.trace(now_ms, Decision::Winner { transport: t, after_start_ms });
                let (outcome, forgot) = self.memory.remember(&network, t, now_ms);
                self.forgot(now_ms, forgot);
                match outcome {
                    WriteOutcome::Written => self.trace(now_ms, Decision::MemoryWrite { network, transport: t }),
                    WriteOutcome::IgnoredDemoted { until_ms } => self.trace(now_ms, Decision::WinIgnoredDemoted { network, until_ms }),
                }
                self.settle_loser(now_ms, other, other_dial);
            }
            Some(w) => {
                assert_ne!(w, t, "the session's dial is open, not dialling");
                a.set(t, Dial::Closed);
                self.actions.push_back(Action::CloseDial(t));
                if t == Transport::WebSocket {
                    // Cannot happen: a WebSocket dial is closed when QUIC wins.
                    self.trace(now_ms, Decision::StaleInput { what: "WebSocket opened after QUIC won" });
                    return;
                }
                let (outcome, forgot) = self.memory.remember(&network, Transport::Quic, now_ms);
                self.forgot(now_ms, forgot);
                match outcome {
                    WriteOutcome::Written => {
                        self.stats.learning_wins += 1;
                        self.trace(now_ms, Decision::LearningWin { network });
                    }
                    WriteOutcome::IgnoredDemoted { until_ms } => {
                        self.stats.learning_ignored += 1;
                        self.trace(now_ms, Decision::LearningIgnoredDemoted { network, until_ms });
                    }
                }
            }
        }
    }

    fn settle_loser(&mut self, now_ms: u64, other: Transport, other_dial: Dial) {
        let sw = self.sw;
        let a = self.attempt.as_mut().expect("settle_loser needs an attempt");
        match (other, other_dial) {
            (Transport::Quic, Dial::Dialing { .. }) if !sw.losing_quic_dial_cancelled => {
                self.trace(now_ms, Decision::LearningDialContinues);
            }
            (_, Dial::Dialing { .. }) => {
                a.set(other, Dial::Closed);
                self.actions.push_back(Action::CloseDial(other));
                self.trace(now_ms, Decision::LoserClosed { transport: other });
            }
            (Transport::Quic, Dial::Scheduled { at_ms }) if !sw.ws_first_cancels_quic_probe => {
                self.trace(now_ms, Decision::LearningProbeKept { at_ms });
            }
            (_, Dial::Scheduled { .. }) => {
                a.set(other, Dial::Closed);
                self.trace(now_ms, Decision::LeadCancelled { never_started: other });
            }
            (_, Dial::Failed | Dial::Closed) => {}
            (_, Dial::Open) => unreachable!("two open dials before a winner"),
        }
    }

    /// The session's first message arrived (the carrier delivered it).
    pub fn first_message(&mut self, now_ms: u64) {
        let Some(s) = self.attempt.as_mut().and_then(|a| a.session.as_mut()) else {
            self.trace(now_ms, Decision::StaleInput { what: "first message with no session" });
            return;
        };
        if s.first_message_ms.is_some() {
            return;
        }
        s.first_message_ms = Some(now_ms);
        let d = Decision::FirstMessage { transport: s.transport, after_open_ms: now_ms - s.opened_ms };
        self.trace(now_ms, d);
    }

    /// The session ended (not by the app: use [`CloudSockets::close`] for that).
    pub fn session_ended(&mut self, now_ms: u64, end: SessionEnd) {
        let Some(a) = self.attempt.as_ref() else {
            self.trace(now_ms, Decision::StaleInput { what: "session end with no session" });
            return;
        };
        let Some(s) = a.session.clone() else {
            self.trace(now_ms, Decision::StaleInput { what: "session end before any open" });
            return;
        };
        let a = self.attempt.take().expect("checked above");
        let other = s.transport.other();
        if matches!(a.dial(other), Dial::Dialing { .. }) {
            self.actions.push_back(Action::CloseDial(other));
        }
        self.trace(now_ms, Decision::SessionEnded { transport: s.transport, end });
        if s.transport != Transport::Quic {
            return;
        }
        let network = a.network;
        let why = judge_quic_end(end, s.first_message_ms, now_ms, &self.sw);
        if why.demotes() {
            let (until_ms, forgot) = self.memory.demote_quic(&network, now_ms);
            self.forgot(now_ms, forgot);
            self.stats.demotions += 1;
            self.trace(now_ms, Decision::Demoted { network, until_ms, why });
        } else {
            self.trace(now_ms, Decision::NotDemoted { network, why });
        }
    }

    /// Fire every deadline at or before `now_ms`.
    pub fn handle_timeout(&mut self, now_ms: u64) {
        for t in [Transport::Quic, Transport::WebSocket] {
            let Some(a) = self.attempt.as_ref() else { return };
            if let Dial::Scheduled { at_ms } = a.dial(t) {
                if at_ms <= now_ms {
                    let learning = a.winner().is_some();
                    self.trace(now_ms, Decision::LeadTimerFired { started: t, learning });
                    self.dial_now(now_ms, t);
                }
            }
        }
        for t in [Transport::Quic, Transport::WebSocket] {
            let Some(a) = self.attempt.as_ref() else { return };
            if let Dial::Dialing { deadline_ms } = a.dial(t) {
                if deadline_ms <= now_ms {
                    self.actions.push_back(Action::CloseDial(t));
                    self.fail(now_ms, t, DialFailure::TimedOut);
                }
            }
        }
    }
}
