//! `life-clock`: the phone's app life at its edges, with no network. A bench
//! lives the IO-free app-life model (`ftw_phone::app::AppLife`) through
//! backgrounds, returns, relaunches and clock jumps drawn from the run seed, at
//! and around the one time its rules turn on: hidden 29,999, 30,000 or 30,001 ms
//! (SPEC section 6's 30 s NAT mapping), a clock that jumps by as much, and
//! anywhere from a blink to an hour besides; a hidden app hidden again, a shown
//! app shown again. Issue 14 section 3: "times at and around each deadline and
//! window", which a network plan reaches only by chance (its `background` and
//! `sleep` kinds draw these edges too, rarely). The app-life reference
//! (`life-agrees-with-spec`, properties crate) judges every step; the law here
//! is what the rule exists for: a session is never used across a silence longer
//! than the mapping lives.
//!
//! A hidden app sends nothing (iOS suspends it, `ftw_phone::app`), so its
//! silence runs from the background to the return; a clock jump is a silence of
//! its own (the phone slept). A jump inside a hidden stretch is judged on its
//! own, as the networked world does: its NAT runs on simulated time, which a
//! jump of the phone's clock does not move.

use std::time::Duration;

use ftw_phone::app::{AppLife, LifeAsk};
use rand::Rng;
use rand_chacha::ChaCha20Rng;

use super::def::{RunReport, ScenarioDef};
use crate::drive::rig::Rig;
use crate::law::laws;
use crate::law::reference;
use crate::law::Check;
use crate::world::domain::Domain;
use crate::world::host::{addr, PHONE};
use crate::world::journal::life::{LifeEvent, LifeStep};
use crate::world::journal::{self, Step};
use crate::world::topology::RunSpec;
use crate::world::trace;

/// SPEC section 6: "NAT mapping idle timeout 30 s".
const MAPPING_MS: u64 = 30_000;
/// Events one run lives through.
const EVENTS: usize = 400;

/// The app-life model, the session it would use, and what the law found.
struct Bench {
    now: u64,
    life: AppLife,
    rng: ChaCha20Rng,
    /// Hidden since (the bench's own record, not the model's).
    hidden_since: Option<u64>,
    /// A session is up (the bench's connection; a reconnect makes a fresh one).
    session: bool,
    stale_uses: Vec<String>,
}

pub fn run(spec: &RunSpec) -> RunReport {
    let (outcome, stale) = Rig::offline(spec, PHONE, addr::PHONE, workload);
    let stale = stale.unwrap_or_default();
    let detail = format!("{EVENTS} app-life events; a session used across a silence longer than {MAPPING_MS} ms: {stale:?}");
    RunReport::new(outcome, vec![Check { law: &laws::NO_SESSION_PAST_ITS_MAPPING, ok: stale.is_empty(), detail }])
}

fn workload(spec: &RunSpec) -> Vec<String> {
    let mut b = Bench { now: 0, life: AppLife::new(), rng: spec.seed.stream("life-clock.schedule"), hidden_since: None, session: true, stale_uses: Vec::new() };
    for _ in 0..EVENTS {
        b.now += b.gap();
        let event = b.draw();
        b.live(event);
    }
    b.stale_uses
}

impl Bench {
    /// A time at, just below or just above the mapping's life, or anything from a blink to an hour.
    fn edge_or_any(&mut self) -> u64 {
        [MAPPING_MS - 1, MAPPING_MS, MAPPING_MS + 1, self.rng.random_range(0..3_600_000)][self.rng.random_range(0..4)]
    }

    /// Time to the next event: a hidden app comes back at the edges.
    fn gap(&mut self) -> u64 {
        if self.hidden_since.is_some() {
            self.edge_or_any()
        } else {
            self.rng.random_range(0..10_000)
        }
    }

    fn draw(&mut self) -> LifeEvent {
        let now_ms = self.now;
        match self.rng.random_range(0..10) {
            0..=3 => LifeEvent::Background { now_ms },
            4..=7 => LifeEvent::Foreground { now_ms },
            8 => LifeEvent::ClockJump { by_ms: self.edge_or_any() },
            _ => LifeEvent::Relaunch { now_ms },
        }
    }

    /// Give the model the event, journal its answer, judge it.
    fn live(&mut self, event: LifeEvent) {
        let asks = match event {
            LifeEvent::Background { now_ms } => self.life.background(now_ms),
            LifeEvent::Foreground { now_ms } => self.life.foreground(now_ms),
            LifeEvent::ClockJump { by_ms } => self.life.clock_jump(by_ms),
            LifeEvent::Relaunch { now_ms } => {
                let (_race, life, asks) = AppLife::relaunch(now_ms, "", Default::default());
                self.life = life;
                asks
            }
        };
        let at = Duration::from_millis(self.now);
        trace::record_at(at, PHONE, "phone.life", format!("{event:?} asks {asks:?}"));
        journal::record_at(at, PHONE, Step::Life(LifeStep { event, asks: asks.clone() }));
        self.judge(event, &asks);
    }

    /// The law: an event that ends a silence longer than the mapping and keeps the session is a stale use.
    fn judge(&mut self, event: LifeEvent, asks: &[LifeAsk]) {
        let silence = self.silence(event);
        if asks.contains(&LifeAsk::Reconnect) {
            self.session = true;
        } else if self.session && silence > MAPPING_MS {
            self.stale_uses.push(format!("{event:?} after {silence} ms of silence kept the session"));
        }
    }

    /// The silence this event ends (0 when it ends none), and the bench's own visibility.
    fn silence(&mut self, event: LifeEvent) -> u64 {
        match event {
            LifeEvent::Background { now_ms } => {
                self.hidden_since.get_or_insert(now_ms);
                0
            }
            LifeEvent::Foreground { now_ms } => self.hidden_since.take().map_or(0, |since| now_ms - since),
            LifeEvent::ClockJump { by_ms } => by_ms,
            LifeEvent::Relaunch { .. } => {
                self.hidden_since = None;
                self.session = false;
                0
            }
        }
    }
}

/// `life-clock`.
pub const LIFE_CLOCK: ScenarioDef = ScenarioDef {
    name: "life-clock",
    about: "the phone's app life (background, return, relaunch, clock jump) at and around SPEC section 6's 30 s NAT mapping: no network",
    domain: Domain::NO_NETWORK,
    laws: &[&laws::NO_SESSION_PAST_ITS_MAPPING, &reference::life::LIFE.law],
    catches: &[],
    run,
};

#[cfg(test)]
mod tests {
    use super::*;
    use crate::world::seed::RunSeed;

    #[test]
    fn the_correct_model_never_keeps_a_stale_session() {
        for seed in 1..=8 {
            assert_eq!(workload(&crate::scenario::spec("life-clock", RunSeed(seed))), Vec::<String>::new(), "seed {seed}");
        }
    }

    /// The law's check fails when a session is kept across a silence longer than the mapping.
    #[test]
    fn a_session_kept_past_the_mapping_is_seen() {
        let mut b = Bench { now: 0, life: AppLife::new(), rng: RunSeed(1).stream("t"), hidden_since: None, session: true, stale_uses: Vec::new() };
        b.judge(LifeEvent::Background { now_ms: 0 }, &[]);
        b.judge(LifeEvent::Foreground { now_ms: MAPPING_MS }, &[]);
        b.judge(LifeEvent::ClockJump { by_ms: MAPPING_MS }, &[]);
        assert!(b.stale_uses.is_empty(), "at the edge the mapping still lives");
        b.judge(LifeEvent::Background { now_ms: 40_000 }, &[]);
        b.judge(LifeEvent::Foreground { now_ms: 40_000 + MAPPING_MS + 1 }, &[]);
        assert_eq!(b.stale_uses.len(), 1);
        b.judge(LifeEvent::ClockJump { by_ms: MAPPING_MS + 1 }, &[]);
        assert_eq!(b.stale_uses.len(), 2);
        b.judge(LifeEvent::ClockJump { by_ms: MAPPING_MS + 1 }, &[LifeAsk::Reconnect]);
        assert_eq!(b.stale_uses.len(), 2, "a reconnect is a fresh session");
    }
}
