//! The phone's transport race, its memory, demotion and learning dial (SPEC section 4,
//! numbers from section 6), written a second time from the SPEC's words and replayed on
//! the inputs the model was given (`crate::world::journal::race`).
//!
//! After each of the driver's steps the journal holds what the model answered (actions,
//! decisions, its next deadline, its memory); the reference compares it with what it
//! predicted for the same inputs:
//! * the race (SPEC 4): QUIC first unless the memory says otherwise; the other transport
//!   dialled 250 ms later, or at once when the first dial fails (QUIC refused; the model's
//!   docs choose "any failure"); the first to open carries the session, at most one per race;
//!   the loser closed (a WebSocket dialling or still waiting) or, if it is QUIC, the
//!   learning dial: one under way goes on, one still waiting stays scheduled (the fix of
//!   the review's bug); a learning dial that opens records QUIC unless demoted, then closes;
//! * the memory (SPEC 4): the winner per network for a day, the remembered winner first,
//!   QUIC demoted for a day by a QUIC session that ends before its first message or whose
//!   path drops within 60 s of it, closes from 1000 up other than 1005 and 1006 not
//!   counting, no QUIC win (learning included) written while demoted; what the memory
//!   holds is compared after every step by what it means (winner and demotion still in
//!   force), so any pruning schedule agrees;
//! * the network's name (SPEC 4: "named by its interfaces and gateways and stored only as
//!   a hash"): each race's network, as the world's network watch saw it, against the name
//!   the model gave it: one name a network, never one for two, and a hash;
//! * the next deadline (when the second dial or a give-up is due).
//!
//! Where the SPEC leaves the model free the comparison accepts every answer: actions and
//! decisions of one step are compared as multisets (the SPEC orders none of them); when
//! the memory forgets a stale network (`MemoryForgot`) is not compared, only its effect;
//! a stale input's wording is not compared. Choices the model's docs write down are
//! followed: a dial not open after 10 s has failed (models/phone consts.rs), the app's own
//! close never demotes and a broken message after the first message is not a path drop
//! (session.rs), the memory survives a relaunch (memory.rs).

use std::collections::{BTreeMap, BTreeSet};

use crate::law::rules;
use crate::law::{Judge, Law};
use crate::world::journal::race::{RaceInput, RaceStep, Remembered};
use crate::world::journal::{Entry, Step};
use crate::world::switch::Switch;
use ftw_phone::memory::FirstReason;
use ftw_phone::network::{NetworkDesc, NetworkId};
use ftw_phone::race::{Action, Decision, DialFailure, RaceStats};
use ftw_phone::session::{DemotionVerdict, SessionEnd};
use ftw_phone::Transport::{self, Quic, WebSocket};

use super::{Lockstep, Reference};

/// SPEC section 4 / 6: "WebSocket starts 250 ms later" ("race lead 250 ms").
const LEAD_MS: u64 = 250;
/// SPEC section 4 / 6: the memory and a demotion last "a day" ("24 h").
const DAY_MS: u64 = 24 * 60 * 60 * 1000;
/// SPEC section 4 / 6: "within a minute of the first message" ("60 s").
const WINDOW_MS: u64 = 60 * 1000;
/// Not in the SPEC: the model's docs choose 10 s before a dial counts as failed.
const GIVE_UP_MS: u64 = 10 * 1000;

pub const RACE: Reference = Reference {
    law: Law::new("race-agrees-with-spec", "the phone's race, memory, demotion and learning dial decide what SPEC section 4 says on every input: which transport goes first, when the second starts, one session, what is remembered and demoted").checks(&[&rules::RACE_START, &rules::ONE_SESSION, &rules::MEMORY_PER_NETWORK, &rules::NETWORK_NAMED, &rules::DEMOTION, &rules::SERVICE_CLOSE_NO_DEMOTION, &rules::LEARNING_DIAL, &rules::WS_WIN_AT_MOST_A_DAY]).broken_by(&[Switch::WsFirstCancelsProbe, Switch::EveryCloseDemotes, Switch::NoCloseDemotes, Switch::LosingDialCancelled, Switch::RefusedWaitsForLead])
        .judged(Judge::Journal(check)),
    planted: &[],
};

/// One network's memory as it counts: the winner written within the day, and the end of
/// a demotion still in force.
type InForce = (Option<(Transport, u64)>, Option<u64>);

/// The memory (SPEC 4): a table of winners and a table of demotions, per network.
#[derive(Clone, Debug, Default)]
struct Memory {
    winner: BTreeMap<NetworkId, (Transport, u64)>,
    demoted_at: BTreeMap<NetworkId, u64>,
}

/// Still within a day of `at` (a clock gone backwards counts as no time at all).
fn within_day(at: u64, now: u64) -> bool {
    now.saturating_sub(at) < DAY_MS
}

impl Memory {
    fn from_entries(entries: &[Remembered]) -> Memory {
        let mut m = Memory::default();
        for (net, e) in entries {
            if let Some(w) = e.winner {
                m.winner.insert(net.clone(), w);
            }
            if let Some(at) = e.quic_demoted_at_ms {
                m.demoted_at.insert(net.clone(), at);
            }
        }
        m
    }

    /// While demoted, the end of QUIC's demotion on `net`.
    fn demoted_until(&self, net: &NetworkId, now: u64) -> Option<u64> {
        self.demoted_at.get(net).filter(|at| within_day(**at, now)).map(|at| at + DAY_MS)
    }

    /// The winner written within the last day.
    fn fresh_winner(&self, net: &NetworkId, now: u64) -> Option<(Transport, u64)> {
        self.winner.get(net).copied().filter(|(_, at)| within_day(*at, now))
    }

    /// SPEC 4: demoted, the WebSocket goes first; else the remembered winner; else QUIC.
    fn first(&self, net: &NetworkId, now: u64) -> (Transport, FirstReason) {
        if let Some(until_ms) = self.demoted_until(net, now) {
            return (WebSocket, FirstReason::Demoted { until_ms });
        }
        match self.fresh_winner(net, now) {
            Some((t, written_ms)) => (t, FirstReason::Remembered { written_ms }),
            None => (Quic, FirstReason::Default),
        }
    }

    /// Record a win; a QUIC win while demoted is not written (`Err(until)`).
    fn remember(&mut self, net: &NetworkId, t: Transport, now: u64) -> Result<(), u64> {
        match (t, self.demoted_until(net, now)) {
            (Quic, Some(until)) => Err(until),
            _ => {
                self.winner.insert(net.clone(), (t, now));
                Ok(())
            }
        }
    }

    fn demote(&mut self, net: &NetworkId, now: u64) -> u64 {
        self.demoted_at.insert(net.clone(), now);
        now + DAY_MS
    }

    /// What the memory means at `now`: per network, the winner and the demotion in force.
    fn in_force(&self, now: u64) -> BTreeMap<NetworkId, InForce> {
        let nets = self.winner.keys().chain(self.demoted_at.keys());
        nets.map(|n| (n.clone(), (self.fresh_winner(n, now), self.demoted_until(n, now)))).filter(|(_, v)| *v != (None, None)).collect()
    }
}

/// One transport's dial within a race.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Leg {
    /// Not dialled yet: due at `at`.
    Due {
        at: u64,
    },
    /// Dialling; failed if not open by `give_up`.
    Dialling {
        give_up: u64,
    },
    Open,
    /// Failed, closed, or never to be dialled.
    Over,
}

#[derive(Clone, Debug)]
struct Race {
    network: NetworkId,
    started: u64,
    legs: BTreeMap<Transport, Leg>,
    /// The session: its transport, when it opened, when its first message came.
    session: Option<(Transport, u64, Option<u64>)>,
}

impl Race {
    fn leg(&self, t: Transport) -> Leg {
        self.legs[&t]
    }
}

/// One phone's `CloudSockets` as the SPEC has it, and what it owes the driver.
#[derive(Clone, Debug, Default)]
struct Phone {
    memory: Memory,
    race: Option<Race>,
    actions: Vec<Action>,
    decisions: Vec<(u64, Decision)>,
    /// What the model's counters must read: every action and decision this reference
    /// owed so far, counted ([`Counted::count`]).
    counted: Counted,
}

/// The model's counters as this reference counts them, from what it owed: a race per
/// start, a dial per dial started, a session per winner, the learning dial's wins and
/// the wins a demotion ignored, each demotion, each race that failed. The driver
/// polls after every step, so no decision is ever dropped.
#[derive(Clone, Debug, Default)]
struct Counted(RaceStats);

impl Counted {
    fn count(&mut self, actions: &[Action], decisions: &[(u64, Decision)]) {
        let c = &mut self.0;
        for a in actions {
            match a {
                Action::StartDial(Transport::Quic) => c.dials_quic += 1,
                Action::StartDial(Transport::WebSocket) => c.dials_websocket += 1,
                _ => {}
            }
        }
        for (_, d) in decisions {
            match d {
                Decision::RaceStarted { .. } => c.races += 1,
                Decision::RaceFailed { .. } => c.races_failed += 1,
                Decision::Winner { transport: Transport::Quic, .. } => c.sessions_quic += 1,
                Decision::Winner { transport: Transport::WebSocket, .. } => c.sessions_websocket += 1,
                Decision::LearningWin { .. } => c.learning_wins += 1,
                Decision::LearningIgnoredDemoted { .. } => c.learning_ignored += 1,
                Decision::Demoted { .. } => c.demotions += 1,
                _ => {}
            }
        }
    }
}

impl Phone {
    fn say(&mut self, now: u64, d: Decision) {
        self.decisions.push((now, d));
    }

    fn stale(&mut self, now: u64) {
        self.say(now, Decision::StaleInput { what: "" });
    }

    fn dial(&mut self, now: u64, t: Transport) {
        self.actions.push(Action::StartDial(t));
        if let Some(r) = self.race.as_mut() {
            r.legs.insert(t, Leg::Dialling { give_up: now + GIVE_UP_MS });
        }
    }

    /// SPEC 4: the remembered winner (or QUIC) at once, the other after the lead.
    fn start(&mut self, now: u64, network: NetworkId) {
        self.abandon(now);
        let (first, reason) = self.memory.first(&network, now);
        let legs = BTreeMap::from([(first, Leg::Over), (first.other(), Leg::Due { at: now + LEAD_MS })]);
        self.race = Some(Race { network: network.clone(), started: now, legs, session: None });
        self.say(now, Decision::RaceStarted { network, first, reason });
        self.dial(now, first);
    }

    /// A new race or the app's close: every dial and the session closed, nothing demoted.
    fn abandon(&mut self, now: u64) {
        let Some(r) = self.race.take() else { return };
        for (t, leg) in &r.legs {
            if matches!(leg, Leg::Dialling { .. } | Leg::Open) {
                self.actions.push(Action::CloseDial(*t));
            }
        }
        if let Some((t, _, _)) = r.session {
            self.say(now, Decision::SessionEnded { transport: t, end: SessionEnd::LocalClose });
        }
        self.say(now, Decision::Aborted { network: r.network });
    }

    /// A dial failed: before any session the other starts at once (SPEC 4: "at once if
    /// QUIC is refused"); both failed, the race fails; after a session, nothing is learned.
    fn failed(&mut self, now: u64, t: Transport, cause: DialFailure) {
        let Some(r) = self.race.as_mut() else { return self.stale(now) };
        if !matches!(r.leg(t), Leg::Dialling { .. }) {
            return self.stale(now);
        }
        r.legs.insert(t, Leg::Over);
        if r.session.is_some() {
            return self.say(now, Decision::LearningDialFailed { cause });
        }
        let other = r.leg(t.other());
        let network = r.network.clone();
        self.say(now, Decision::DialFailed { transport: t, cause });
        match other {
            Leg::Due { .. } => {
                self.say(now, Decision::SecondAtOnce { started: t.other(), failed: t, cause });
                self.dial(now, t.other());
            }
            Leg::Dialling { .. } | Leg::Open => {}
            Leg::Over => {
                self.race = None;
                self.actions.push(Action::RaceFailed);
                self.say(now, Decision::RaceFailed { network });
            }
        }
    }

    fn opened(&mut self, now: u64, t: Transport) {
        let Some(r) = self.race.as_ref() else { return self.stale(now) };
        if !matches!(r.leg(t), Leg::Dialling { .. }) {
            return self.stale(now);
        }
        match r.session {
            None => self.won(now, t),
            Some(_) => self.learned(now, t),
        }
    }

    /// SPEC 4: the first to open carries the session; the other is closed, or learns.
    fn won(&mut self, now: u64, t: Transport) {
        let r = self.race.as_mut().expect("a race");
        r.legs.insert(t, Leg::Open);
        r.session = Some((t, now, None));
        let (network, after_start_ms, other) = (r.network.clone(), now - r.started, r.leg(t.other()));
        self.actions.push(Action::UseSession(t));
        self.say(now, Decision::Winner { transport: t, after_start_ms });
        match self.memory.remember(&network, t, now) {
            Ok(()) => self.say(now, Decision::MemoryWrite { network, transport: t }),
            Err(until_ms) => self.say(now, Decision::WinIgnoredDemoted { network, until_ms }),
        }
        match (t.other(), other) {
            (Quic, Leg::Dialling { .. }) => self.say(now, Decision::LearningDialContinues),
            (Quic, Leg::Due { at }) => self.say(now, Decision::LearningProbeKept { at_ms: at }),
            (WebSocket, Leg::Dialling { .. }) => {
                self.close_leg(WebSocket);
                self.say(now, Decision::LoserClosed { transport: WebSocket });
            }
            (WebSocket, Leg::Due { .. }) => {
                self.race.as_mut().expect("a race").legs.insert(WebSocket, Leg::Over);
                self.say(now, Decision::LeadCancelled { never_started: WebSocket });
            }
            (_, Leg::Open | Leg::Over) => {}
        }
    }

    fn close_leg(&mut self, t: Transport) {
        self.race.as_mut().expect("a race").legs.insert(t, Leg::Over);
        self.actions.push(Action::CloseDial(t));
    }

    /// SPEC 4: the learning dial opened: QUIC recorded unless demoted; then closed.
    fn learned(&mut self, now: u64, t: Transport) {
        self.close_leg(t);
        if t == WebSocket {
            return self.stale(now); // closed as soon as QUIC won: cannot open later
        }
        let network = self.race.as_ref().expect("a race").network.clone();
        match self.memory.remember(&network, Quic, now) {
            Ok(()) => self.say(now, Decision::LearningWin { network }),
            Err(until_ms) => self.say(now, Decision::LearningIgnoredDemoted { network, until_ms }),
        }
    }

    fn first_message(&mut self, now: u64) {
        let Some((t, opened, first)) = self.race.as_mut().and_then(|r| r.session.as_mut()) else { return self.stale(now) };
        if first.is_some() {
            return;
        }
        *first = Some(now);
        let d = Decision::FirstMessage { transport: *t, after_open_ms: now - *opened };
        self.say(now, d);
    }

    /// SPEC 4: the session ended; a QUIC one may demote QUIC for a day.
    fn session_ended(&mut self, now: u64, end: SessionEnd) {
        let Some(r) = self.race.as_ref() else { return self.stale(now) };
        let Some((t, _, first)) = r.session else { return self.stale(now) };
        let r = self.race.take().expect("a race");
        if matches!(r.leg(t.other()), Leg::Dialling { .. }) {
            self.actions.push(Action::CloseDial(t.other()));
        }
        self.say(now, Decision::SessionEnded { transport: t, end });
        if t == WebSocket {
            return;
        }
        let why = verdict(end, first, now);
        let network = r.network;
        if demotes(why) {
            let until_ms = self.memory.demote(&network, now);
            self.say(now, Decision::Demoted { network, until_ms, why });
        } else {
            self.say(now, Decision::NotDemoted { network, why });
        }
    }

    /// Every due dial starts (the lead, or the kept learning probe); every dial past its
    /// give-up time is closed and has failed.
    fn timeout(&mut self, now: u64) {
        for t in [Quic, WebSocket] {
            let Some(r) = self.race.as_ref() else { return };
            if let Leg::Due { at } = r.leg(t) {
                if at <= now {
                    let learning = r.session.is_some();
                    self.say(now, Decision::LeadTimerFired { started: t, learning });
                    self.dial(now, t);
                }
            }
        }
        for t in [Quic, WebSocket] {
            let Some(r) = self.race.as_ref() else { return };
            if let Leg::Dialling { give_up } = r.leg(t) {
                if give_up <= now {
                    self.actions.push(Action::CloseDial(t));
                    self.failed(now, t, DialFailure::TimedOut);
                }
            }
        }
    }

    fn deadline(&self) -> Option<u64> {
        let r = self.race.as_ref()?;
        r.legs
            .values()
            .copied()
            .filter_map(|l| match l {
                Leg::Due { at } => Some(at),
                Leg::Dialling { give_up } => Some(give_up),
                _ => None,
            })
            .min()
    }
}

/// SPEC 4: closes from 1000 up other than 1005 and 1006: the service spoke.
fn service_spoke(end: SessionEnd) -> bool {
    matches!(end, SessionEnd::Closed { code } if code >= 1000 && code != 1005 && code != 1006)
}

/// Why a QUIC session's end does or does not demote QUIC (SPEC 4, session.rs's choices).
fn verdict(end: SessionEnd, first: Option<u64>, now: u64) -> DemotionVerdict {
    if end == SessionEnd::LocalClose {
        return DemotionVerdict::KeepLocalClose;
    }
    if service_spoke(end) {
        return DemotionVerdict::KeepServiceSpoke;
    }
    let Some(first) = first else { return DemotionVerdict::DemoteNoFirstMessage };
    let after_first_ms = now.saturating_sub(first);
    let path_dropped = matches!(end, SessionEnd::PathDropped | SessionEnd::Closed { .. });
    if path_dropped && after_first_ms < WINDOW_MS {
        DemotionVerdict::DemotePathDropInWindow { after_first_ms }
    } else {
        DemotionVerdict::KeepAfterWindow
    }
}

fn demotes(v: DemotionVerdict) -> bool {
    matches!(v, DemotionVerdict::DemoteNoFirstMessage | DemotionVerdict::DemotePathDropInWindow { .. })
}

/// A model's decision as compared: a stale input's wording does not count.
fn comparable(d: &(u64, Decision)) -> Option<String> {
    match &d.1 {
        Decision::MemoryForgot { .. } => None,
        Decision::StaleInput { .. } => Some(format!("{:?}", (d.0, Decision::StaleInput { what: "" }))),
        _ => Some(format!("{d:?}")),
    }
}

fn sorted<T: std::fmt::Debug>(items: &[T]) -> Vec<String> {
    let mut v: Vec<String> = items.iter().map(|i| format!("{i:?}")).collect();
    v.sort();
    v
}

/// What the model answered after one driver step against what the reference owes:
/// `Some((model, spec))` at the first aspect that differs.
fn compare(
    p: &mut Phone,
    now: u64,
    actions: &[Action],
    decisions: &[(u64, Decision)],
    deadline: Option<u64>,
    memory: &[Remembered],
    stats: &RaceStats,
) -> Option<(String, String)> {
    let (want_a, want_d) = (std::mem::take(&mut p.actions), std::mem::take(&mut p.decisions));
    p.counted.count(&want_a, &want_d);
    let (got, want) = (sorted(actions), sorted(&want_a));
    if got != want {
        return Some((format!("actions {got:?}"), format!("actions {want:?}")));
    }
    let mut got: Vec<String> = decisions.iter().filter_map(comparable).collect();
    let mut want: Vec<String> = want_d.iter().filter_map(comparable).collect();
    got.sort();
    want.sort();
    if got != want {
        return Some((format!("decisions {got:?}"), format!("decisions {want:?}")));
    }
    if deadline != p.deadline() {
        return Some((format!("next deadline {deadline:?} ms"), format!("next deadline {:?} ms", p.deadline())));
    }
    if *stats != p.counted.0 {
        return Some((format!("counters {stats:?}"), format!("counters {:?}", p.counted.0)));
    }
    let (got, want) = (Memory::from_entries(memory).in_force(now), p.memory.in_force(now));
    (got != want).then(|| (format!("memory in force {got:?}"), format!("memory in force {want:?}")))
}

/// A network as SPEC 4 names it: its interfaces and gateways (a set of each: the order
/// they are listed in and repeats name no other network).
type Named = (BTreeSet<String>, BTreeSet<String>);

/// SPEC 4: "A network is named by its interfaces and gateways and stored only as a
/// hash." The names one phone's races were given: the same network always the same
/// name, two networks never one, and every name a hash (the model's docs choose the
/// lower-case hex of a SHA-256: 64 digits, in which no interface or gateway can be read).
#[derive(Default)]
struct Names(BTreeMap<Named, NetworkId>);

impl Names {
    /// The model named the network `on` as `id`: `Some((model, spec))` when that breaks the rule.
    fn named(&mut self, on: &NetworkDesc, id: &NetworkId) -> Option<(String, String)> {
        let net: Named = (on.interfaces.iter().cloned().collect(), on.gateways.iter().cloned().collect());
        let hex = id.as_hex();
        if hex.len() != 64 || !hex.bytes().all(|b| b.is_ascii_digit() || (b'a'..=b'f').contains(&b)) {
            return Some((format!("network {net:?} named {hex:?}"), "a name that is a hash (64 lower-case hex digits)".into()));
        }
        if let Some(before) = self.0.get(&net).filter(|n| *n != id) {
            return Some((format!("network {net:?} named {id}, earlier {before}"), format!("network {net:?} named {before} again")));
        }
        if let Some((other, _)) = self.0.iter().find(|(k, n)| *n == id && **k != net) {
            return Some((format!("networks {other:?} and {net:?} both named {id}"), "a name of its own for each network".into()));
        }
        self.0.insert(net, id.clone());
        None
    }
}

/// The reference's state over one journal: a phone per (host, instance), and the
/// network names each host's phone was given (a relaunch keeps its memory, so its names).
#[derive(Default)]
struct Replay {
    phones: BTreeMap<(String, usize), Phone>,
    names: BTreeMap<String, Names>,
}

impl Replay {
    /// Feed one step; `Some((model, spec))` when the model's answer differs.
    fn step(&mut self, host: &str, now: u64, s: &RaceStep) -> Option<(String, String)> {
        if let RaceInput::Launched { memory } = &s.what {
            return self.launch(host, now, s.instance, memory);
        }
        let p = self.phones.entry((host.to_string(), s.instance)).or_default();
        match &s.what {
            RaceInput::Launched { .. } => unreachable!("handled above"),
            RaceInput::Start { network, on } => {
                if let Some(broken) = self.names.entry(host.to_string()).or_default().named(on, network) {
                    return Some(broken);
                }
                p.start(now, network.clone());
            }
            RaceInput::Close => p.abandon(now),
            RaceInput::QuicRefused => p.failed(now, Quic, DialFailure::Refused),
            RaceInput::DialFailed(t) => p.failed(now, *t, DialFailure::Failed),
            RaceInput::Opened(t) => p.opened(now, *t),
            RaceInput::FirstMessage => p.first_message(now),
            RaceInput::SessionEnded(end) => p.session_ended(now, *end),
            RaceInput::Timeout => p.timeout(now),
            RaceInput::Polled { actions, decisions, deadline_ms, memory, stats } => return compare(p, now, actions, decisions, *deadline_ms, memory, stats),
        }
        None
    }

    /// A new `CloudSockets`: the memory survives a relaunch (memory.rs), so a phone that
    /// had one before must start with what the newest one held.
    fn launch(&mut self, host: &str, now: u64, instance: usize, memory: &[Remembered]) -> Option<(String, String)> {
        let before = self.phones.range((host.to_string(), 0)..(host.to_string(), instance)).next_back().map(|(_, p)| p.memory.clone());
        let loaded = Memory::from_entries(memory);
        let memory = before.unwrap_or_else(|| loaded.clone());
        let (got, want) = (loaded.in_force(now), memory.in_force(now));
        self.phones.insert((host.to_string(), instance), Phone { memory, ..Phone::default() });
        (got != want).then(|| (format!("launched with memory in force {got:?}"), format!("memory in force {want:?}")))
    }
}

/// Replay every race step of the journal through the reference.
pub fn check(journal: &[Entry]) -> Option<Lockstep> {
    let mut replay = Replay::default();
    let mut steps = 0;
    for (index, e) in journal.iter().enumerate() {
        let Step::Race(s) = &e.step else { continue };
        steps += 1;
        if let Some((model, spec)) = replay.step(&e.host, e.t_ms, s) {
            return Some(Lockstep::Differs { index, entry: e.describe(), model, spec });
        }
    }
    (steps > 0).then_some(Lockstep::Agreed { steps })
}
