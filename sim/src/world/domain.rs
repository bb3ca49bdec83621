//! What a scenario's laws must hold under, as data the fuzzer draws from: the
//! kinds of fault (the unit of swarm testing), when timed faults may happen,
//! how long outages last, the link delays, the fleet. Each scenario declares
//! its [`Domain`] beside its laws; `properties`' strategy draws plans from it.

use std::collections::BTreeSet;

use crate::world::host::Host;
pub use crate::world::plan::kind::{Kind, KINDS, PATH_DROP_MAX_MS, PATH_DROP_MIN_MS};
use crate::world::plan::{FaultPlan, LinkPlan};

impl Kind {
    /// The kinds a plan actually uses (for coverage of the generator itself).
    pub fn used_by(plan: &FaultPlan) -> BTreeSet<Kind> {
        let mut s = BTreeSet::new();
        let d = LinkPlan::default();
        for l in [&plan.phone, &plan.box_] {
            if l.one_way_ms != d.one_way_ms {
                s.insert(Kind::Delay);
            }
            if l.jitter_ms > 0 {
                s.insert(Kind::Jitter);
            }
            if l.loss_pct > 0.0 {
                s.insert(Kind::Loss);
            }
            if l.duplicate_pct > 0.0 {
                s.insert(Kind::Duplicate);
            }
            if l.reorder_pct > 0.0 {
                s.insert(Kind::Reorder);
            }
            if l.mtu != d.mtu {
                s.insert(Kind::Mtu);
            }
        }
        for f in &plan.faults {
            s.insert(f.fault.def().swarm());
        }
        s
    }
}

/// What a scenario's laws are meant to hold under: the fault kinds it may be
/// given, when timed faults happen, how long outages last, how many cases a
/// plain `cargo test` runs.
#[derive(Clone, Debug, PartialEq)]
pub struct Domain {
    pub kinds: &'static [Kind],
    /// Timed faults fall in `[faults_from_ms, horizon_ms]`.
    pub horizon_ms: u64,
    /// No timed fault before this: a move or rebind during the QUIC handshake
    /// ends the connection (no migration before the handshake is confirmed),
    /// and scenarios without a reconnect cannot survive it
    /// (corpus/quic-echo-move-during-handshake.toml).
    pub faults_from_ms: u64,
    /// Outages (blackhole, UDP blocked or refused) last at most this long.
    pub outage_max_ms: u64,
    /// A drawn one-way delay is at least and at most this (default link: 20 ms).
    pub one_way_min_ms: u64,
    pub one_way_max_ms: u64,
    /// Kinds every case has (not switched by the swarm draw): for a timed kind,
    /// at least one fault of it.
    pub always: &'static [Kind],
    pub faults_max: usize,
    /// Hosts timed faults may name (the phone alone can switch networks).
    pub hosts: &'static [Host],
    /// Cases a plain `cargo test` runs for this scenario.
    pub test_cases: u32,
    /// Draw the cloud's reactor fleet (1 to 8 reactors) in about half the
    /// cases; the others keep the scenario's own 4.
    pub fleet: bool,
    /// With `fleet`: draw its routing too (one drawn fleet in four routes by
    /// the kernel filter, whose laws the scenario then checks).
    pub fleet_routing: bool,
    /// The QUIC stand-in the scenario's premise needs, if only one (its drawn and
    /// calm runs take it; PATCH.md, "The QUIC profile"): `None` runs the run's own.
    pub stand_in: Option<crate::world::plan::QuicPlan>,
}

/// Reactor counts a drawn fleet has (one reactor forwards nothing, and stays possible).
pub const FLEET_REACTORS_DRAWN: std::ops::RangeInclusive<usize> = 1..=8;

/// A domain's kinds from named sets and single kinds, in order, as one constant
/// slice: `kinds![IMPAIRMENTS, &[Kind::Mtu], MOVES]`. The order is the draw's, so
/// a list written with sets draws what it drew written out.
#[macro_export]
macro_rules! kinds {
    ($($part:expr),+ $(,)?) => {{
        const PARTS: &[&[$crate::world::domain::Kind]] = &[$($part),+];
        const LEN: usize = {
            let (mut n, mut i) = (0, 0);
            while i < PARTS.len() {
                n += PARTS[i].len();
                i += 1;
            }
            n
        };
        const OUT: [$crate::world::domain::Kind; LEN] = {
            let mut out = [$crate::world::domain::Kind::Delay; LEN];
            let (mut i, mut k) = (0, 0);
            while i < PARTS.len() {
                let mut j = 0;
                while j < PARTS[i].len() {
                    out[k] = PARTS[i][j];
                    (k, j) = (k + 1, j + 1);
                }
                i += 1;
            }
            out
        };
        &OUT
    }};
}

/// The link's impairments, drawn per leg: delay, jitter, loss, duplication, reordering.
pub const IMPAIRMENTS: &[Kind] = &[Kind::Delay, Kind::Jitter, Kind::Loss, Kind::Duplicate, Kind::Reorder];
/// A host's address changes: a NAT rebind, a move to another network.
pub const MOVES: &[Kind] = &[Kind::Rebind, Kind::SwitchNetwork];
/// The cloud as a hostile relay: a datagram or stream message replayed, a burst
/// overtaking a control message.
pub const RELAY: &[Kind] = &[Kind::ReplayDatagram, Kind::ReplayStream, Kind::OvertakeControl];
/// The app's life: the background, a relaunch, the device asleep.
pub const APP_LIFE: &[Kind] = &[Kind::Background, Kind::Relaunch, Kind::Sleep];

/// Link impairments and the timed faults a QUIC connection must ride through
/// (rebinds, network moves, outages well under the 30 s idle timeout).
/// Reordering is in since sim's `Reorder` lets go of a held packet after
/// `reorder_hold_max_ms` (corpus/quic-stream-reorder-holds-close.toml).
pub const QUIC_SURVIVABLE: &[Kind] = kinds![IMPAIRMENTS, &[Kind::Mtu], MOVES, &[Kind::Blackhole, Kind::Strangers]];

impl Domain {
    /// For any scenario without its own domain: QUIC-survivable faults in the
    /// first 10 s, outages up to 8 s, sixteen test cases.
    pub const DEFAULT: Domain = Domain {
        kinds: QUIC_SURVIVABLE,
        horizon_ms: 10_000,
        faults_from_ms: 3_000,
        outage_max_ms: 8_000,
        one_way_min_ms: 1,
        one_way_max_ms: 250,
        always: &[],
        faults_max: 6,
        hosts: &[Host::Phone, Host::Box],
        test_cases: 16,
        fleet: false,
        fleet_routing: false,
        stand_in: None,
    };

    /// For a scenario with no network (a bench driving a model at its edges): the
    /// plan is not used; every case draws its schedule from its seed.
    pub const NO_NETWORK: Domain = Domain { kinds: &[], faults_max: 0, test_cases: 32, ..Domain::DEFAULT };
}

impl Default for Domain {
    fn default() -> Self {
        Domain::DEFAULT
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn kinds_joins_sets_in_order() {
        const JOINED: &[Kind] = kinds![IMPAIRMENTS, &[Kind::Mtu], MOVES];
        let written = [Kind::Delay, Kind::Jitter, Kind::Loss, Kind::Duplicate, Kind::Reorder, Kind::Mtu, Kind::Rebind, Kind::SwitchNetwork];
        assert_eq!(JOINED, &written[..]);
        assert_eq!(QUIC_SURVIVABLE.len(), 10);
        assert_eq!(&QUIC_SURVIVABLE[8..], &[Kind::Blackhole, Kind::Strangers]);
    }
}
