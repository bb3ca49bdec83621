//! `CloudTransportMemory`: the winner per network, for a day, and QUIC's demotions.
//!
//! Rules (seed 000, SPEC.md section 4):
//! * Per network (a [`NetworkId`], a hash) it keeps the last race winner and when it was
//!   written, and when QUIC was last demoted there.
//! * The next race on that network starts with: the WebSocket while QUIC is demoted
//!   (`now - demoted_at < DEMOTION_MS`), else the remembered winner while it is fresh
//!   (`now - written_at < MEMORY_TTL_MS`), else QUIC.
//! * Writing QUIC while QUIC is demoted is ignored (no QUIC win moves QUIC back, the
//!   learning dial's included). Writing the WebSocket always writes, and refreshes its
//!   timestamp (that refresh is half of the review's bug; see `race`).
//! * Only the last day's networks are kept: an entry whose newest timestamp is a day old
//!   is forgotten on the next write or [`CloudTransportMemory::prune`], and is treated as
//!   absent before that. At most `NETWORKS_MAX` networks; past it the oldest goes.
//! * Timestamps are the caller's clock. A clock that went backwards (a timestamp in the
//!   future) counts as age 0: the entry is fresh.
//! * Persistable with serde (JSON through [`CloudTransportMemory::to_json`]) so it
//!   survives a relaunch.

use crate::consts::{DEMOTION_MS, MEMORY_TTL_MS, NETWORKS_MAX};
use crate::network::NetworkId;
use crate::Transport;
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

/// What the memory holds for one network.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct MemoryEntry {
    /// The last recorded winner and when it was written.
    pub winner: Option<(Transport, u64)>,
    /// When QUIC was last demoted on this network.
    pub quic_demoted_at_ms: Option<u64>,
}

impl MemoryEntry {
    fn newest_ms(&self) -> u64 {
        let w = self.winner.map(|(_, at)| at).unwrap_or(0);
        w.max(self.quic_demoted_at_ms.unwrap_or(0))
    }

    fn alive(&self, now_ms: u64) -> bool {
        now_ms.saturating_sub(self.newest_ms()) < MEMORY_TTL_MS
    }

    fn demoted_until_ms(&self, now_ms: u64) -> Option<u64> {
        let at = self.quic_demoted_at_ms?;
        (now_ms.saturating_sub(at) < DEMOTION_MS).then_some(at + DEMOTION_MS)
    }

    fn fresh_winner(&self, now_ms: u64) -> Option<Transport> {
        let (t, at) = self.winner?;
        (now_ms.saturating_sub(at) < MEMORY_TTL_MS).then_some(t)
    }
}

/// Why a race starts with the transport it starts with.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum FirstReason {
    /// Nothing fresh is known about this network: QUIC first.
    Default,
    /// The remembered winner, written at `written_ms`.
    Remembered { written_ms: u64 },
    /// QUIC is demoted on this network until `until_ms`: the WebSocket first.
    Demoted { until_ms: u64 },
}

/// The result of a memory write.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum WriteOutcome {
    Written,
    /// A QUIC win while QUIC is demoted: nothing written.
    IgnoredDemoted {
        until_ms: u64,
    },
}

#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct CloudTransportMemory {
    networks: BTreeMap<NetworkId, MemoryEntry>,
}

impl CloudTransportMemory {
    pub fn new() -> Self {
        Self::default()
    }

    /// The transport a race on `net` starts with, and why.
    pub fn first(&self, net: &NetworkId, now_ms: u64) -> (Transport, FirstReason) {
        let Some(e) = self.networks.get(net).filter(|e| e.alive(now_ms)) else {
            return (Transport::Quic, FirstReason::Default);
        };
        if let Some(until_ms) = e.demoted_until_ms(now_ms) {
            return (Transport::WebSocket, FirstReason::Demoted { until_ms });
        }
        match (e.fresh_winner(now_ms), e.winner) {
            (Some(t), Some((_, written_ms))) => (t, FirstReason::Remembered { written_ms }),
            _ => (Transport::Quic, FirstReason::Default),
        }
    }

    /// `Some(until_ms)` while QUIC is demoted on `net`.
    pub fn quic_demoted_until(&self, net: &NetworkId, now_ms: u64) -> Option<u64> {
        self.networks.get(net)?.demoted_until_ms(now_ms)
    }

    /// The fresh remembered winner on `net`, if any.
    pub fn winner(&self, net: &NetworkId, now_ms: u64) -> Option<Transport> {
        self.networks.get(net)?.fresh_winner(now_ms)
    }

    /// Record `t` as the winner on `net`. A QUIC write while demoted is ignored.
    /// Returns the networks forgotten by the prune that comes with every write.
    pub fn remember(&mut self, net: &NetworkId, t: Transport, now_ms: u64) -> (WriteOutcome, Vec<NetworkId>) {
        if t == Transport::Quic {
            if let Some(until_ms) = self.quic_demoted_until(net, now_ms) {
                return (WriteOutcome::IgnoredDemoted { until_ms }, Vec::new());
            }
        }
        let forgot = self.prune(now_ms);
        self.entry(net).winner = Some((t, now_ms));
        (WriteOutcome::Written, forgot)
    }

    /// Demote QUIC on `net` for `DEMOTION_MS` from `now_ms`. Returns the end of the
    /// demotion and the networks forgotten by the prune.
    pub fn demote_quic(&mut self, net: &NetworkId, now_ms: u64) -> (u64, Vec<NetworkId>) {
        let forgot = self.prune(now_ms);
        self.entry(net).quic_demoted_at_ms = Some(now_ms);
        (now_ms + DEMOTION_MS, forgot)
    }

    /// Forget every network whose newest timestamp is a day old. Returns them in order.
    pub fn prune(&mut self, now_ms: u64) -> Vec<NetworkId> {
        let old: Vec<NetworkId> = self.networks.iter().filter(|(_, e)| !e.alive(now_ms)).map(|(n, _)| n.clone()).collect();
        for n in &old {
            self.networks.remove(n);
        }
        old
    }

    fn entry(&mut self, net: &NetworkId) -> &mut MemoryEntry {
        if !self.networks.contains_key(net) && self.networks.len() >= NETWORKS_MAX {
            // Evict the oldest (ties: the smallest id, BTreeMap order, deterministic).
            let oldest = self.networks.iter().min_by_key(|(_, e)| e.newest_ms()).map(|(n, _)| n.clone()).expect("a full memory has an oldest entry");
            self.networks.remove(&oldest);
        }
        if !self.networks.contains_key(net) {
            self.networks.insert(net.clone(), MemoryEntry { winner: None, quic_demoted_at_ms: None });
        }
        assert!(self.networks.len() <= NETWORKS_MAX);
        self.networks.get_mut(net).expect("inserted above")
    }

    /// The raw entry for `net` (even if expired but not yet pruned).
    pub fn get(&self, net: &NetworkId) -> Option<&MemoryEntry> {
        self.networks.get(net)
    }

    /// The networks held, in id order.
    pub fn networks(&self) -> impl Iterator<Item = &NetworkId> {
        self.networks.keys()
    }

    /// The persisted form (JSON).
    pub fn to_json(&self) -> String {
        serde_json::to_string(self).expect("the memory always serializes")
    }

    /// Reload from the persisted form.
    pub fn from_json(s: &str) -> Result<Self, serde_json::Error> {
        let m: Self = serde_json::from_str(s)?;
        if m.networks.len() > NETWORKS_MAX {
            return Err(serde::de::Error::custom("more networks than NETWORKS_MAX"));
        }
        Ok(m)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::network::NetworkDesc;

    const H: u64 = 60 * 60 * 1000;
    const MIN: u64 = 60 * 1000;

    fn net(n: &str) -> NetworkId {
        NetworkDesc::behind_nat(n).id()
    }

    /// SPEC §4: the winner is kept for a day: a day after its write it is no longer
    /// fresh, even while a later demotion keeps the network's entry alive.
    #[test]
    fn a_winner_is_fresh_for_exactly_a_day() {
        let mut m = CloudTransportMemory::new();
        let _ = m.remember(&net("home"), Transport::WebSocket, 0);
        assert_eq!(m.winner(&net("home"), MEMORY_TTL_MS - 1), Some(Transport::WebSocket));
        let _ = m.demote_quic(&net("home"), H);
        assert_eq!(m.winner(&net("home"), MEMORY_TTL_MS), None);
    }

    #[test]
    fn empty_memory_starts_with_quic() {
        let m = CloudTransportMemory::new();
        assert_eq!(m.first(&net("a"), 0), (Transport::Quic, FirstReason::Default));
    }

    #[test]
    fn winner_kept_for_a_day_per_network() {
        let mut m = CloudTransportMemory::new();
        let t = 5 * H;
        m.remember(&net("a"), Transport::WebSocket, t);
        m.remember(&net("b"), Transport::Quic, t);
        assert_eq!(m.networks().count(), 2);
        assert_eq!(m.first(&net("a"), t + 24 * H - 1).0, Transport::WebSocket);
        assert_eq!(m.first(&net("b"), t + 24 * H - 1).0, Transport::Quic);
        assert_eq!(m.first(&net("a"), t + 24 * H), (Transport::Quic, FirstReason::Default));
    }

    #[test]
    fn forgets_networks_older_than_a_day() {
        let mut m = CloudTransportMemory::new();
        m.remember(&net("old"), Transport::WebSocket, 0);
        m.remember(&net("mid"), Transport::WebSocket, 12 * H);
        // A write a day after "old" forgets it and keeps "mid".
        let (_, forgot) = m.remember(&net("new"), Transport::Quic, 24 * H);
        assert_eq!(forgot, vec![net("old")]);
        assert!(m.get(&net("old")).is_none());
        assert!(m.get(&net("mid")).is_some());
        assert_eq!(m.networks().count(), 2);
        assert_eq!(m.prune(36 * H), vec![net("mid")]);
        assert_eq!(m.networks().count(), 1);
    }

    #[test]
    fn demotion_lasts_exactly_a_day() {
        let mut m = CloudTransportMemory::new();
        let t = 3 * H;
        m.remember(&net("a"), Transport::Quic, t - MIN);
        let (until, _) = m.demote_quic(&net("a"), t);
        assert_eq!(until, t + 24 * H);
        assert_eq!(m.first(&net("a"), t + 23 * H + 59 * MIN), (Transport::WebSocket, FirstReason::Demoted { until_ms: until }));
        // The QUIC winner written before the demotion is older than a day at t + 24 h.
        assert_eq!(m.first(&net("a"), t + 24 * H).0, Transport::Quic);
    }

    #[test]
    fn quic_write_ignored_while_demoted_websocket_write_refreshes() {
        let mut m = CloudTransportMemory::new();
        m.demote_quic(&net("a"), 0);
        let (o, _) = m.remember(&net("a"), Transport::Quic, H);
        assert_eq!(o, WriteOutcome::IgnoredDemoted { until_ms: 24 * H });
        assert_eq!(m.get(&net("a")).unwrap().winner, None);
        m.remember(&net("a"), Transport::WebSocket, 2 * H);
        m.remember(&net("a"), Transport::WebSocket, 30 * H);
        // Demotion over, but the refreshed WebSocket entry still goes first.
        assert_eq!(m.first(&net("a"), 31 * H), (Transport::WebSocket, FirstReason::Remembered { written_ms: 30 * H }));
        let (o, _) = m.remember(&net("a"), Transport::Quic, 31 * H);
        assert_eq!(o, WriteOutcome::Written);
        assert_eq!(m.first(&net("a"), 31 * H).0, Transport::Quic);
    }

    #[test]
    fn survives_a_relaunch_through_json() {
        let mut m = CloudTransportMemory::new();
        m.remember(&net("a"), Transport::WebSocket, H);
        m.demote_quic(&net("b"), 2 * H);
        let s = m.to_json();
        assert!(!s.contains("nat-a"));
        let back = CloudTransportMemory::from_json(&s).unwrap();
        assert_eq!(back, m);
        assert_eq!(back.first(&net("b"), 3 * H).0, Transport::WebSocket);
    }

    #[test]
    fn bounded_number_of_networks() {
        let mut m = CloudTransportMemory::new();
        for i in 0..(NETWORKS_MAX as u64 + 3) {
            m.remember(&net(&format!("n{i}")), Transport::Quic, i);
        }
        assert_eq!(m.networks().count(), NETWORKS_MAX);
        assert!(m.get(&net("n0")).is_none());
        assert!(m.get(&net(&format!("n{}", NETWORKS_MAX + 2))).is_some());
    }

    /// A persisted memory of NETWORKS_MAX networks loads; one more does not (a
    /// corrupt or hostile file cannot grow it past its bound).
    #[test]
    fn reload_holds_the_bound() {
        let mut m = CloudTransportMemory::new();
        for i in 0..NETWORKS_MAX as u64 {
            m.remember(&net(&format!("n{i}")), Transport::Quic, i);
        }
        let full = m.to_json();
        assert_eq!(CloudTransportMemory::from_json(&full).expect("the bound loads").networks().count(), NETWORKS_MAX);
        let mut v: serde_json::Value = serde_json::from_str(&full).expect("json");
        let nets = v["networks"].as_object_mut().expect("a map of networks");
        let (k, e) = nets.iter().next().map(|(k, e)| (k.clone(), e.clone())).expect("an entry");
        nets.insert(format!("{k}0"), e);
        let err = CloudTransportMemory::from_json(&v.to_string()).expect_err("one past the bound loaded");
        assert!(err.to_string().contains("NETWORKS_MAX"), "{err}");
    }
}
