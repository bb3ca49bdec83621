//! What a scenario's laws must hold under, as data the fuzzer draws from: the
//! kinds of fault (the unit of swarm testing), when timed faults may happen,
//! how long outages last, the link delays, the fleet. Each scenario declares
//! its [`Domain`] beside its laws; `properties`' strategy draws plans from it.

use std::collections::BTreeSet;

use crate::world::host::Host;
use crate::world::plan::kind;
use crate::world::plan::kind::Draw;
use crate::world::plan::{FaultKind, FaultPlan, LinkPlan, TimedFault};

/// A kind of fault the generator can switch on (the unit of swarm testing).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Kind {
    /// A one-way delay other than the default 20 ms.
    Delay,
    Jitter,
    Loss,
    Duplicate,
    Reorder,
    /// A path MTU below 1500 (never below QUIC's 1280-byte floor).
    Mtu,
    /// NAT rebinds (new outside port, same inside flow).
    Rebind,
    /// The phone moves Wi-Fi to cellular (and back).
    SwitchNetwork,
    /// A leg drops everything for a while.
    Blackhole,
    /// UDP dropped for a while (TCP passes): only scenarios with a WebSocket survive it.
    UdpBlocked,
    /// UDP refused at once for a while (TCP passes).
    UdpRefused,
    /// The phone's UDP goes silent past QUIC's 30 s idle timeout (UDP blocked on
    /// the phone's leg for 31 to 60 s): the QUIC path drops, which demotes QUIC.
    PathDrop,
    /// The relay sends a phone-bound datagram twice.
    ReplayDatagram,
    /// The relay sends a phone-bound control-lane stream message twice.
    ReplayStream,
    /// The relay holds a phone-bound stream message behind a burst of later ones.
    OvertakeControl,
    /// The box's table changes and the relay sends the next datagrams newest
    /// first: the live carrying the new table comes late (Freshness case 17).
    LateTable,
    /// The phone's app goes to the background for a while.
    Background,
    /// The phone's app is killed and launched again.
    Relaunch,
    /// The phone sleeps for hours (its wall clock jumps) and reconnects.
    Sleep,
    /// An on-path attacker copies a host's datagrams from forged ports, the
    /// copy first (RFC 9000 section 9.3.3).
    ForgedMoves,
}

/// Every kind, in the order the generator draws them.
pub const KINDS: &[Kind] = &[
    Kind::Delay,
    Kind::Jitter,
    Kind::Loss,
    Kind::Duplicate,
    Kind::Reorder,
    Kind::Mtu,
    Kind::Rebind,
    Kind::SwitchNetwork,
    Kind::Blackhole,
    Kind::UdpBlocked,
    Kind::UdpRefused,
    Kind::PathDrop,
    Kind::ReplayDatagram,
    Kind::ReplayStream,
    Kind::OvertakeControl,
    Kind::LateTable,
    Kind::Background,
    Kind::Relaunch,
    Kind::Sleep,
    Kind::ForgedMoves,
];

impl Kind {
    /// A timed fault (drawn with a time and a host), not a link setting.
    pub fn is_timed(self) -> bool {
        !matches!(self, Kind::Delay | Kind::Jitter | Kind::Loss | Kind::Duplicate | Kind::Reorder | Kind::Mtu)
    }
    pub fn name(self) -> &'static str {
        match self {
            Kind::Delay => "delay",
            Kind::Jitter => "jitter",
            Kind::Loss => "loss",
            Kind::Duplicate => "duplicate",
            Kind::Reorder => "reorder",
            Kind::Mtu => "mtu",
            Kind::Rebind => "rebind",
            Kind::SwitchNetwork => "switch_network",
            Kind::Blackhole => "blackhole",
            Kind::UdpBlocked => "udp_blocked",
            Kind::UdpRefused => "udp_refused",
            Kind::PathDrop => "path_drop",
            Kind::ReplayDatagram => "replay_datagram",
            Kind::ReplayStream => "replay_stream_message",
            Kind::OvertakeControl => "overtake_control",
            Kind::LateTable => "late_table",
            Kind::Background => "background",
            Kind::Relaunch => "relaunch",
            Kind::Sleep => "sleep",
            Kind::ForgedMoves => "forged_moves",
        }
    }
    /// The timed faults this swarm kind makes of one drawn case's values (each
    /// kind's `drawn` says how); empty for the link settings.
    pub fn draw(self, d: &Draw) -> Vec<TimedFault> {
        let one = |fault| vec![TimedFault { at_ms: d.at_ms, fault }];
        match self {
            Kind::Delay | Kind::Jitter | Kind::Loss | Kind::Duplicate | Kind::Reorder | Kind::Mtu => vec![],
            Kind::Rebind => one(FaultKind::Rebind(kind::Rebind::drawn(d))),
            Kind::SwitchNetwork => one(FaultKind::SwitchNetwork(kind::SwitchNetwork::drawn(d))),
            Kind::Blackhole => one(FaultKind::Blackhole(kind::Blackhole::drawn(d))),
            Kind::UdpBlocked => one(FaultKind::UdpBlocked(kind::UdpBlocked::drawn(d))),
            Kind::UdpRefused => one(FaultKind::UdpRefused(kind::UdpRefused::drawn(d))),
            Kind::PathDrop => one(FaultKind::UdpBlocked(kind::UdpBlocked::drawn_path_drop(d))),
            Kind::ReplayDatagram => one(FaultKind::ReplayDatagram(kind::ReplayDatagram::drawn(d))),
            Kind::ReplayStream => one(FaultKind::ReplayStreamMessage(kind::ReplayStreamMessage::drawn(d))),
            Kind::OvertakeControl => one(FaultKind::OvertakeControl(kind::OvertakeControl::drawn(d))),
            Kind::LateTable => {
                let mut v = one(FaultKind::TableChange(kind::TableChange::drawn(d)));
                v.extend(one(FaultKind::ReverseDatagrams(kind::ReverseDatagrams::drawn(d))));
                v
            }
            Kind::Background => one(FaultKind::Background(kind::Background::drawn(d))),
            Kind::Relaunch => one(FaultKind::Relaunch(kind::Relaunch::drawn(d))),
            Kind::Sleep => one(FaultKind::Sleep(kind::Sleep::drawn(d))),
            Kind::ForgedMoves => one(FaultKind::ForgedMoves(kind::ForgedMoves::drawn(d))),
        }
    }

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
    /// Draw the cloud's reactor fleet (2 to 8 reactors) in about half the
    /// cases; the others keep the scenario's own 4.
    pub fleet: bool,
    /// With `fleet`: draw its routing too (one drawn fleet in four routes by
    /// the kernel filter, whose laws the scenario then checks).
    pub fleet_routing: bool,
}

/// Reactor counts a drawn fleet has (one reactor forwards nothing).
pub const FLEET_REACTORS_DRAWN: std::ops::RangeInclusive<usize> = 2..=8;

/// The shortest drawn path drop: past QUIC's 30 s idle timeout (sim/crypto).
pub const PATH_DROP_MIN_MS: u64 = 31_000;
/// The longest drawn path drop.
pub const PATH_DROP_MAX_MS: u64 = 60_000;

/// What the `session` scenario's laws hold under besides the network: the
/// cloud as a hostile relay, a table change, the app's life, a dropped path.
pub const SESSION_EXTRAS: &[Kind] =
    &[Kind::PathDrop, Kind::ReplayDatagram, Kind::ReplayStream, Kind::OvertakeControl, Kind::LateTable, Kind::Background, Kind::Relaunch, Kind::Sleep];

/// Link impairments and the timed faults a QUIC connection must ride through
/// (rebinds, network moves, outages well under the 30 s idle timeout).
/// Reordering is in since sim's `Reorder` lets go of a held packet after
/// `reorder_hold_max_ms` (corpus/quic-stream-reorder-holds-close.toml).
pub const QUIC_SURVIVABLE: &[Kind] =
    &[Kind::Delay, Kind::Jitter, Kind::Loss, Kind::Duplicate, Kind::Reorder, Kind::Mtu, Kind::Rebind, Kind::SwitchNetwork, Kind::Blackhole];

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
    };
}

impl Default for Domain {
    fn default() -> Self {
        Domain::DEFAULT
    }
}
