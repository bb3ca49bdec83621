//! App life: what foreground, background, relaunch and a clock jump ask of the transport.
//!
//! Chosen here (the seed gives the cadences, not the rest):
//! * Background: the app is hidden; lane 0 drops to 0.2 Hz (`LANE0_HIDDEN_INTERVAL_MS`),
//!   the session is kept. iOS soon suspends a hidden app, so it sends no keepalive.
//! * Foreground (a return from the background): lane 0 back to 1 Hz. If the app was hidden
//!   longer than the NAT mapping lives (`NAT_IDLE_TIMEOUT_MS`), the session cannot be
//!   trusted: reconnect (a new race, which consults the memory at the new time).
//! * Relaunch: a new `CloudSockets` with the memory reloaded from its persisted form (an
//!   unreadable form counts as an empty memory), and a new race.
//! * A clock jump (the phone slept for hours): past the NAT idle timeout, reconnect; the
//!   memory's day is judged at the new time by the race that follows (`CloudSockets::start`
//!   forgets expired entries).

use crate::consts::{LANE0_HIDDEN_INTERVAL_MS, LANE0_VISIBLE_INTERVAL_MS, NAT_IDLE_TIMEOUT_MS};
use crate::memory::CloudTransportMemory;
use crate::race::CloudSockets;
use crate::switches::Switches;

/// What app life asks of the transport layer.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum LifeAsk {
    /// Ask the box for this lane-0 interval (the subscription's cadence).
    SetLane0Interval { interval_ms: u64 },
    /// Start a new race: the session is gone or cannot be trusted.
    Reconnect,
}

#[derive(Clone, Debug)]
pub struct AppLife {
    visible: bool,
    hidden_since_ms: Option<u64>,
}

impl AppLife {
    /// A visible app.
    pub fn new() -> Self {
        Self { visible: true, hidden_since_ms: None }
    }

    pub fn lane0_interval_ms(&self) -> u64 {
        if self.visible {
            LANE0_VISIBLE_INTERVAL_MS
        } else {
            LANE0_HIDDEN_INTERVAL_MS
        }
    }

    pub fn background(&mut self, now_ms: u64) -> Vec<LifeAsk> {
        if !self.visible {
            return Vec::new();
        }
        self.visible = false;
        self.hidden_since_ms = Some(now_ms);
        vec![LifeAsk::SetLane0Interval { interval_ms: LANE0_HIDDEN_INTERVAL_MS }]
    }

    /// Visible again (a return from the background).
    pub fn foreground(&mut self, now_ms: u64) -> Vec<LifeAsk> {
        if self.visible {
            return Vec::new();
        }
        self.visible = true;
        let since = self.hidden_since_ms.take().expect("a hidden app knows since when");
        let mut asks = Vec::new();
        if now_ms.saturating_sub(since) > NAT_IDLE_TIMEOUT_MS {
            asks.push(LifeAsk::Reconnect);
        }
        asks.push(LifeAsk::SetLane0Interval { interval_ms: LANE0_VISIBLE_INTERVAL_MS });
        asks
    }

    /// The app starts again: memory reloaded, a new race.
    pub fn relaunch(now_ms: u64, persisted_memory: &str, sw: Switches) -> (CloudSockets, AppLife, Vec<LifeAsk>) {
        let mut memory = CloudTransportMemory::from_json(persisted_memory).unwrap_or_default();
        memory.prune(now_ms);
        (CloudSockets::with_memory(sw, memory), AppLife::new(), vec![LifeAsk::Reconnect])
    }

    /// The clock moved `jumped_ms` at once (the phone slept).
    pub fn clock_jump(&mut self, jumped_ms: u64) -> Vec<LifeAsk> {
        if jumped_ms > NAT_IDLE_TIMEOUT_MS {
            vec![LifeAsk::Reconnect]
        } else {
            Vec::new()
        }
    }
}

impl Default for AppLife {
    fn default() -> Self {
        Self::new()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::network::NetworkDesc;
    use crate::Transport;

    #[test]
    fn cadence_follows_visibility() {
        let mut a = AppLife::new();
        assert_eq!(a.lane0_interval_ms(), 1000);
        assert_eq!(a.background(0), vec![LifeAsk::SetLane0Interval { interval_ms: 5000 }]);
        assert_eq!(a.lane0_interval_ms(), 5000);
        assert_eq!(a.foreground(10_000), vec![LifeAsk::SetLane0Interval { interval_ms: 1000 }]);
        assert_eq!(a.lane0_interval_ms(), 1000);
    }

    #[test]
    fn long_background_reconnects() {
        let mut a = AppLife::new();
        a.background(0);
        assert_eq!(a.foreground(31_000)[0], LifeAsk::Reconnect);
        a.background(40_000);
        assert!(!a.foreground(70_000).contains(&LifeAsk::Reconnect));
    }

    #[test]
    fn relaunch_reloads_memory() {
        let net = NetworkDesc::behind_nat("a").id();
        let mut s = CloudSockets::racing(Switches::default());
        s.memory_mut().remember(&net, Transport::WebSocket, 1000);
        let saved = s.memory().to_json();
        let (s2, life, asks) = AppLife::relaunch(2000, &saved, Switches::default());
        assert_eq!(s2.memory().first(&net, 2000).0, Transport::WebSocket);
        assert_eq!(life.lane0_interval_ms(), 1000);
        assert_eq!(asks, vec![LifeAsk::Reconnect]);
        let (s3, _, _) = AppLife::relaunch(2000, "not json", Switches::default());
        assert_eq!(s3.memory().networks().count(), 0);
    }

    #[test]
    fn clock_jump_past_the_nat_timeout_reconnects() {
        let mut a = AppLife::new();
        assert_eq!(a.clock_jump(25 * 3_600_000), vec![LifeAsk::Reconnect]);
        assert_eq!(a.clock_jump(NAT_IDLE_TIMEOUT_MS + 1), vec![LifeAsk::Reconnect]);
        assert!(a.clock_jump(NAT_IDLE_TIMEOUT_MS).is_empty(), "a jump of exactly the timeout is not past it");
        assert!(a.clock_jump(10_000).is_empty());
    }

    #[test]
    fn a_reconnect_after_hours_forgets_old_networks() {
        let net = NetworkDesc::behind_nat("a").id();
        let mut s = CloudSockets::racing(Switches::default());
        s.memory_mut().remember(&net, Transport::WebSocket, 0);
        s.start(25 * 3_600_000, NetworkDesc::behind_nat("b").id());
        assert!(s.memory().get(&net).is_none());
    }
}
