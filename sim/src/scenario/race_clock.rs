//! `race-clock`: the phone's race, memory, demotion and learning dial at their
//! deadlines, with no network. A fake dialer answers the IO-free race model
//! (`ftw_phone::race::CloudSockets`) with outcomes drawn from the run seed, at
//! and around every time the SPEC's rules turn on: a dial that opens 249, 250
//! or 251 ms after the race starts (the 250 ms lead), a session that ends
//! 59,999, 60,000 or 60,001 ms after its first message (the demotion minute), a
//! race that starts a day minus one, a day, or a day plus one ms after the
//! memory was written or QUIC was demoted; refusals, failures and dials that
//! never answer; closes with every kind of code. Issue 14 section 3: "times at
//! and around each deadline and window", which a network plan reaches only by
//! chance. The race's reference (`race-agrees-with-spec`, properties crate)
//! judges every step; the law here is SPEC section 4's "never two sessions".
//!
//! The times are SPEC sections 4 and 6's words, not the model's constants.

use std::collections::BTreeMap;
use std::time::Duration;

use ftw_phone::network::NetworkDesc;
use ftw_phone::race::{Action, CloudSockets};
use ftw_phone::session::SessionEnd;
use ftw_phone::Transport;
use rand::Rng;
use rand_chacha::ChaCha20Rng;

use super::def::{RunReport, ScenarioDef};
use crate::drive::rig::Rig;
use crate::law::laws;
use crate::law::reference;
use crate::law::seen::{Seen, Sessions};
use crate::world::domain::Domain;
use crate::world::host::{addr, PHONE};
use crate::world::journal::race::{memory_of, RaceInput, RaceStep};
use crate::world::journal::{self, Step};
use crate::world::topology::RunSpec;
use crate::world::trace;

/// SPEC section 4: "WebSocket starts 250 ms later".
const LEAD: u64 = 250;
/// SPEC section 4: "whose path drops within a minute of the first message".
const MINUTE: u64 = 60_000;
/// SPEC sections 4 and 6: memory and demotion are kept "for a day".
const DAY: u64 = 24 * 60 * 60 * 1000;
/// Races one run starts.
const RACES: usize = 60;
/// Steps one run may take (a run takes a few thousand).
const STEPS_MAX: usize = 200_000;
/// Close codes a session may end with: the service's (1000 up), the two a
/// stack invents (1005, 1006), and below 1000.
const CODES: [u16; 9] = [1000, 1001, 1005, 1006, 1011, 1013, 4403, 4408, 999];

/// What the fake network does next.
#[derive(Clone, Debug)]
enum Event {
    /// A dial's outcome: opened, refused at once (QUIC only), failed.
    Dial(Transport, Outcome),
    FirstMessage,
    Ended(SessionEnd),
    /// The app closes the race or session.
    AppClose,
    /// The next race starts, on this network.
    Race(usize),
}

#[derive(Clone, Copy, Debug)]
enum Outcome {
    Opened,
    Refused,
    Failed,
}

/// The race model, its fake network, and what the law needs.
struct Bench {
    now: u64,
    race: CloudSockets,
    queue: BTreeMap<(u64, u64), Event>,
    n: u64,
    rng: ChaCha20Rng,
    networks: [NetworkDesc; 2],
    current: usize,
    session: Option<Transport>,
    races: usize,
    two_sessions: Vec<String>,
    /// Sessions the model used, in all.
    sessions: usize,
    fed: bool,
}

pub fn run(spec: &RunSpec) -> RunReport {
    let (outcome, found) = Rig::offline(spec, PHONE, addr::PHONE, workload);
    let (two, sessions) = found.unwrap_or_default();
    // The bench holds one session: a second while one is up is two at once.
    let at_once_max = if two.is_empty() { 1 } else { 2 };
    let about = format!("; {RACES} races; a second session while one was up: {two:?}");
    RunReport::new(outcome, vec![]).with(Seen { sessions: Some(Sessions { sessions, at_once_max, about }), ..Seen::default() })
}

fn workload(spec: &RunSpec) -> (Vec<String>, usize) {
    let mut b = Bench::new(spec);
    journal::record_at(Duration::ZERO, PHONE, Step::Race(RaceStep { instance: 0, what: RaceInput::Launched { memory: memory_of(b.race.memory()) } }));
    b.at(0, Event::Race(0));
    // A bound on the steps, so a model whose deadline never moves cannot hang a run.
    for _ in 0..STEPS_MAX {
        let Some(t) = b.next_time() else { break };
        b.now = t;
        match b.queue.first_key_value().map(|(k, _)| k.0) {
            Some(q) if q <= b.race.poll_timeout().unwrap_or(u64::MAX) => {
                let (_, ev) = b.queue.pop_first().expect("an event is due");
                b.apply(ev);
            }
            _ => {
                b.feed(RaceInput::Timeout);
                b.race.handle_timeout(t);
            }
        }
        b.poll();
    }
    (b.two_sessions, b.sessions)
}

impl Bench {
    /// A fresh model with an empty memory and the run's schedule stream.
    fn new(spec: &RunSpec) -> Bench {
        Bench {
            now: 0,
            race: CloudSockets::racing(spec.switches.phone()),
            queue: BTreeMap::new(),
            n: 0,
            rng: spec.seed.stream("race-clock.schedule"),
            networks: [NetworkDesc::behind_nat("wifi"), NetworkDesc::behind_nat("cell")],
            current: 0,
            session: None,
            races: 0,
            two_sessions: Vec::new(),
            sessions: 0,
            fed: false,
        }
    }

    fn at(&mut self, t: u64, ev: Event) {
        self.n += 1;
        self.queue.insert((t, self.n), ev);
    }

    /// The next time something happens: a queued event or the model's deadline.
    fn next_time(&self) -> Option<u64> {
        let q = self.queue.first_key_value().map(|(k, _)| k.0);
        let d = self.race.poll_timeout();
        match (q, d) {
            (Some(q), Some(d)) => Some(q.min(d).max(self.now)),
            (q, d) => q.or(d).map(|t| t.max(self.now)),
        }
    }

    fn feed(&mut self, what: RaceInput) {
        self.fed = true;
        journal::record_at(Duration::from_millis(self.now), PHONE, Step::Race(RaceStep { instance: 0, what }));
    }

    fn apply(&mut self, ev: Event) {
        let now = self.now;
        match ev {
            Event::Race(net) => {
                self.session = None;
                self.current = net;
                self.races += 1;
                let on = self.networks[net].clone();
                let network = on.id();
                self.feed(RaceInput::Start { network: network.clone(), on });
                self.race.start(now, network);
                self.queue.retain(|_, e| matches!(e, Event::Race(_)));
                if self.rng.random_range(0..12) == 0 {
                    let t = now + self.rng.random_range(0..3 * LEAD);
                    self.at(t, Event::AppClose);
                }
            }
            Event::Dial(t, Outcome::Opened) => {
                self.feed(RaceInput::Opened(t));
                self.race.opened(now, t);
            }
            Event::Dial(_, Outcome::Refused) => {
                self.feed(RaceInput::QuicRefused);
                self.race.quic_refused(now);
            }
            Event::Dial(t, Outcome::Failed) => {
                self.feed(RaceInput::DialFailed(t));
                self.race.dial_failed(now, t);
            }
            Event::FirstMessage => {
                self.feed(RaceInput::FirstMessage);
                self.race.first_message(now);
            }
            Event::Ended(end) => {
                self.session = None;
                self.feed(RaceInput::SessionEnded(end));
                self.race.session_ended(now, end);
                self.next_race();
            }
            Event::AppClose => {
                self.session = None;
                self.feed(RaceInput::Close);
                self.race.close(now);
                self.next_race();
            }
        }
    }

    /// Everything the model queued, journaled as the phone's driver does, and
    /// the fake network's answers to its actions.
    fn poll(&mut self) {
        let mut actions = Vec::new();
        while let Some(a) = self.race.poll_action() {
            actions.push(a);
            self.answer(a);
        }
        let mut decisions = Vec::new();
        while let Some((at, d)) = self.race.poll_decision() {
            trace::record_at(Duration::from_millis(at), PHONE, "phone.race", d.to_string());
            decisions.push((at, d));
        }
        if self.fed || !actions.is_empty() || !decisions.is_empty() {
            self.fed = false;
            let polled = RaceInput::Polled {
                actions,
                decisions,
                deadline_ms: self.race.poll_timeout(),
                memory: memory_of(self.race.memory()),
                stats: self.race.stats(),
            };
            journal::record_at(Duration::from_millis(self.now), PHONE, Step::Race(RaceStep { instance: 0, what: polled }));
        }
    }

    fn answer(&mut self, a: Action) {
        let now = self.now;
        match a {
            Action::StartDial(t) => self.dial(t),
            Action::CloseDial(t) => self.queue.retain(|_, e| !matches!(e, Event::Dial(d, _) if *d == t)),
            Action::UseSession(t) => {
                if let Some(s) = self.session {
                    self.two_sessions.push(format!("{t:?} at {now} ms while {s:?} was up"));
                }
                self.session = Some(t);
                self.sessions += 1;
                self.live_session();
            }
            Action::RaceFailed => self.next_race(),
        }
    }

    /// A dial's outcome, at and around the lead (or never: the model's own timeout).
    fn dial(&mut self, t: Transport) {
        let now = self.now;
        let after = [1, LEAD - 1, LEAD, LEAD + 1, 2 * LEAD, self.rng.random_range(1..4000)][self.rng.random_range(0..6)];
        let soon = now + self.rng.random_range(0..3);
        // The second network is hard on UDP: QUIC mostly fails there, so the
        // WebSocket wins and is remembered, and the memory's day matters.
        let roll = self.rng.random_range(0..10);
        let roll = if t == Transport::Quic && self.current == 1 { roll % 4 } else { roll };
        match roll {
            0 if t == Transport::Quic => self.at(soon, Event::Dial(t, Outcome::Refused)),
            1 => self.at(now + after, Event::Dial(t, Outcome::Failed)),
            2 => {} // never answers: the model times the dial out
            _ => self.at(now + after, Event::Dial(t, Outcome::Opened)),
        }
    }

    /// A session's life: ended before its first message, or at and around the
    /// minute after it, or later.
    fn live_session(&mut self) {
        let now = self.now;
        let end = match self.rng.random_range(0..5) {
            0 => SessionEnd::PathDropped,
            1 => SessionEnd::LocalClose,
            2 => SessionEnd::BrokenMessage,
            _ => SessionEnd::Closed { code: CODES[self.rng.random_range(0..CODES.len())] },
        };
        if self.rng.random_range(0..4) == 0 {
            let t = now + self.rng.random_range(0..2000);
            self.at(t, Event::Ended(end));
            return;
        }
        let first = now + self.rng.random_range(1..500);
        self.at(first, Event::FirstMessage);
        let lasted = [MINUTE - 1, MINUTE, MINUTE + 1, self.rng.random_range(1..3 * MINUTE)][self.rng.random_range(0..4)];
        self.at(first + lasted, Event::Ended(end));
    }

    /// The next race: soon, or a day minus one, a day, or a day plus one ms
    /// after the memory's winner was written or QUIC was demoted.
    fn next_race(&mut self) {
        if self.races >= RACES {
            return;
        }
        let net = if self.rng.random_range(0..4) == 0 { 1 - self.current } else { self.current };
        let entry = self.race.memory().get(&self.networks[net].id()).cloned();
        let written = entry.as_ref().and_then(|e| e.winner.map(|w| w.1));
        let demoted = entry.as_ref().and_then(|e| e.quic_demoted_at_ms);
        let edge = [DAY - 1, DAY, DAY + 1][self.rng.random_range(0..3)];
        let now = self.now;
        let t = match self.rng.random_range(0..5) {
            0 => written.map(|w| w + edge),
            1 => demoted.map(|d| d + edge),
            2 => Some(now + self.rng.random_range(1..4 * 3600 * 1000)),
            _ => None,
        }
        .filter(|&t| t > now)
        .unwrap_or(now + self.rng.random_range(1..5000));
        self.at(t, Event::Race(net));
    }
}

/// `race-clock`.
pub const RACE_CLOCK: ScenarioDef = ScenarioDef {
    name: "race-clock",
    about: "the phone's race, memory, demotion and learning dial driven at and around every deadline of SPEC section 4 (250 ms, a minute, a day): no network",
    domain: Domain::NO_NETWORK,
    laws: &[&laws::NEVER_TWO_SESSIONS, &reference::race::RACE.law],
    catches: &[],
    run,
};

#[cfg(test)]
mod tests {
    use super::*;
    use crate::world::seed::RunSeed;

    #[test]
    fn the_correct_model_never_holds_two_sessions() {
        for seed in 1..=8 {
            assert_eq!(workload(&crate::scenario::spec("race-clock", RunSeed(seed))).0, Vec::<String>::new(), "seed {seed}");
        }
    }

    /// The law's check fails when the model hands the driver a second session.
    #[test]
    fn a_second_session_while_one_is_up_is_seen() {
        let mut b = Bench::new(&crate::scenario::spec("race-clock", RunSeed(1)));
        b.answer(Action::UseSession(Transport::Quic));
        assert!(b.two_sessions.is_empty());
        b.answer(Action::UseSession(Transport::WebSocket));
        assert_eq!(b.two_sessions.len(), 1);
    }
}
