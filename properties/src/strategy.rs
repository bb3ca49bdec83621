//! Fault plans as proptest strategies: a whole scenario's network and timed
//! faults drawn as typed data ([`FaultPlan`]) with the run seed.
//!
//! Swarm testing: each case first draws which fault kinds are on (each kind with
//! probability one half, out of the kinds its [`Domain`] allows), then draws
//! values for the kinds that are on. Cases therefore differ in *which* faults
//! they mix, not only in how much of each.
//!
//! Shrinking goes toward small plans: a kind's switch shrinks from on to off
//! (removing every fault of that kind at once), the list of timed faults loses
//! elements, each value shrinks to its mildest (loss to 0.1 %, outages to
//! 100 ms, faults to the domain's earliest time), and an unset link value falls back to the
//! default link (SPEC section 6: 20 ms each way, no loss).

use std::collections::BTreeSet;

use ftw_sim::scenario::{FaultKind, FaultPlan, FleetPlan, FleetRouting, LinkPlan, TimedFault};
use ftw_sim::RunSeed;
use proptest::prelude::*;
use proptest::strategy::{BoxedStrategy, ValueTree};
use proptest::test_runner::{Config, RngAlgorithm, TestRng, TestRunner};
use sha2::{Digest, Sha256};

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
    pub fn parse(s: &str) -> Result<Kind, String> {
        KINDS.iter().copied().find(|k| k.name() == s).ok_or_else(|| {
            let known: Vec<&str> = KINDS.iter().map(|k| k.name()).collect();
            format!("unknown fault kind {s:?}; known kinds: {}", known.join(", "))
        })
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
            s.insert(match f.fault {
                FaultKind::Rebind { .. } => Kind::Rebind,
                FaultKind::SwitchNetwork { .. } => Kind::SwitchNetwork,
                FaultKind::UdpBlocked { for_ms, .. } if for_ms > PATH_DROP_MIN_MS - 1 => Kind::PathDrop,
                FaultKind::Blackhole { .. } => Kind::Blackhole,
                FaultKind::UdpBlocked { .. } => Kind::UdpBlocked,
                FaultKind::UdpRefused { .. } => Kind::UdpRefused,
                FaultKind::ReplayDatagram { .. } => Kind::ReplayDatagram,
                FaultKind::ReplayStreamMessage { .. } => Kind::ReplayStream,
                FaultKind::OvertakeControl { .. } => Kind::OvertakeControl,
                FaultKind::ReverseDatagrams { .. } | FaultKind::TableChange { .. } => Kind::LateTable,
                FaultKind::Background { .. } => Kind::Background,
                FaultKind::Relaunch { .. } => Kind::Relaunch,
                FaultKind::Sleep { .. } => Kind::Sleep,
                FaultKind::ForgedMoves { .. } => Kind::ForgedMoves,
            });
        }
        s
    }
}

/// What a scenario's laws are meant to hold under: the fault kinds it may be
/// given, when timed faults happen, how long outages last, how many cases a
/// plain `cargo test` runs.
#[derive(Clone, Debug, PartialEq)]
pub struct Domain {
    pub kinds: Vec<Kind>,
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
    pub always: Vec<Kind>,
    pub faults_max: usize,
    /// Hosts timed faults may name (the phone alone can switch networks).
    pub hosts: Vec<&'static str>,
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
pub const SESSION_EXTRAS: &[Kind] = &[Kind::PathDrop, Kind::ReplayDatagram, Kind::ReplayStream, Kind::OvertakeControl, Kind::LateTable, Kind::Background, Kind::Relaunch, Kind::Sleep];

/// Link impairments and the timed faults a QUIC connection must ride through
/// (rebinds, network moves, outages well under the 30 s idle timeout).
/// Reordering is in since sim's `Reorder` lets go of a held packet after
/// `reorder_hold_max_ms` (corpus/quic-stream-reorder-holds-close.toml).
pub const QUIC_SURVIVABLE: &[Kind] = &[Kind::Delay, Kind::Jitter, Kind::Loss, Kind::Duplicate, Kind::Reorder, Kind::Mtu, Kind::Rebind, Kind::SwitchNetwork, Kind::Blackhole];

impl Default for Domain {
    /// For any scenario without its own domain: QUIC-survivable faults in the
    /// first 10 s, outages up to 8 s, sixteen test cases.
    fn default() -> Self {
        Domain { kinds: QUIC_SURVIVABLE.to_vec(), horizon_ms: 10_000, faults_from_ms: 3_000, outage_max_ms: 8_000, one_way_min_ms: 1, one_way_max_ms: 250, always: vec![], faults_max: 6, hosts: vec!["phone", "box"], test_cases: 16, fleet: false, fleet_routing: false }
    }
}

/// Scenarios whose laws need a narrower or wider domain than the default.
///
/// This is the one place that knows scenarios by name; a scenario not named
/// here gets [`Domain::default`]. (Better: each `ScenarioDef` declares its own
/// domain; see the properties report.)
pub fn domain_for(scenario: &str) -> Domain {
    let d = Domain::default();
    match scenario {
        // quic-echo and quic-stream take every QUIC-survivable kind since their
        // laws were fixed (corpus/quic-echo-*: waiting for trailing datagrams and
        // the drained close, counting jitter, reordering and MTU as datagram loss).
        // A 90 s session: faults anywhere in it.
        "quic-stream" => Domain { horizon_ms: 85_000, ..d },
        // A simulated day (2-3 s of wall time a case): faults anywhere in it, few cases.
        "idle-link" => Domain { horizon_ms: 86_000_000, test_cases: 2, ..d },
        // fleet-migrate's phone gives up 25 s after the plan's last outage, and
        // forwarding-stops-after-pin holds with bounded reordering
        // (corpus/fleet-migrate-*): the default domain.
        // Laws about exact round trips: only the default link holds them; timed
        // faults after the reconnect would test something else.
        "fleet-resume" => Domain { kinds: vec![], fleet: true, ..d },
        // The fleet's own laws hold for any reactor count; fleet-migrate also
        // draws the routing (its laws follow it).
        "fleet-migrate" => Domain { kinds: d.kinds.iter().copied().chain([Kind::ForgedMoves]).collect(), fleet: true, fleet_routing: true, ..d },
        "fleet-migrate-kernel-filter" | "fleet-still" => Domain { fleet: true, ..d },
        // The crowd's leg impaired, and the attack (forged moves on the crowd's
        // leg, host "box") somewhere in its rounds; 600 clients take about 4 s of
        // wall time a case, so few cases. No loss: under loss and forged moves an
        // established connection can go silent for good, an open problem
        // (corpus/fleet-pin-flood-initial-hijacked.toml).
        "fleet-pin-flood" => Domain {
            kinds: vec![Kind::Delay, Kind::Jitter, Kind::Duplicate, Kind::Reorder, Kind::ForgedMoves],
            always: vec![Kind::ForgedMoves],
            horizon_ms: 8_000,
            faults_from_ms: 2_000,
            outage_max_ms: 6_000,
            faults_max: 2,
            hosts: vec!["box"],
            test_cases: 2,
            ..d
        },
        // A WebSocket has no migration: a rebind or a move gives its TCP flow a new
        // outside port and the cloud resets it (as behind a real NAT), and ws-echo
        // has no reconnect. Its laws hold under everything else.
        "ws-echo" => Domain { kinds: d.kinds.iter().copied().filter(|k| !matches!(k, Kind::Rebind | Kind::SwitchNetwork)).collect(), ..d },
        // The session end to end: the network's faults, UDP blocked (the WebSocket
        // carries it), the relay's replays and overtaking bursts, a table
        // change overtaken by later lives, the app's life, a dropped path.
        "session" => Domain {
            // udp_refused is in since only the client hears a refusal
            // (corpus/session-udp-refused-half-dead-quic.toml).
            kinds: QUIC_SURVIVABLE.iter().chain([Kind::UdpBlocked, Kind::UdpRefused].iter()).chain(SESSION_EXTRAS).copied().collect(),
            faults_max: 12,
            // A case is about 0.1 s of wall time.
            test_cases: 32,
            ..d
        },
        // The session's laws where moves happen (issue 15 section 4): up to nine
        // moves of the phone under loss (and the link's impairments) from 3 to
        // 80 s, after the QUIC handshake. move-recovers-within-pto judges each
        // move with nothing else near it and the app in view. About 0.2 s of
        // wall time a case.
        "session-moves" => Domain {
            kinds: vec![Kind::Delay, Kind::Jitter, Kind::Loss, Kind::Duplicate, Kind::Reorder, Kind::Mtu, Kind::SwitchNetwork],
            always: vec![Kind::Loss, Kind::SwitchNetwork],
            horizon_ms: 80_000,
            faults_max: 8,
            hosts: vec!["phone"],
            test_cases: 32,
            ..d
        },
        // Hourly races over 29 simulated hours (2-3 s of wall time a case): UDP
        // blocked or refused for up to three hours in the first six, moves, and a
        // phone leg of the default 20 ms (about half the cases: the WebSocket opens
        // within the 250 ms lead, which shows ws-first-cancels-probe) or of 44 to
        // 60 ms each way, where the WebSocket's three round trips outlast the lead
        // but QUIC's learning dial (lead + one round trip) is still under way when
        // it opens, which shows losing-dial-cancelled; few cases.
        // Property 5 end to end: a path drop starting 2 to 10 s after the first
        // message at 10.2 s. QUIC notices it 30 to 45 s later (idle timeout after
        // the last keepalive), so it ends within the 60 s demotion window (a drop
        // at 25 s ended after 60 s: corpus/demotion-expiry-drop-past-window.toml).
        // The link's impairments and rebinds around it, no move (the law is per
        // network). About 1 s of wall time a case.
        "demotion-expiry" => Domain {
            kinds: vec![Kind::Delay, Kind::Jitter, Kind::Loss, Kind::Duplicate, Kind::Reorder, Kind::Mtu, Kind::Rebind, Kind::PathDrop],
            always: vec![Kind::PathDrop],
            horizon_ms: 20_000,
            faults_from_ms: 12_000,
            faults_max: 3,
            test_cases: 6,
            ..d
        },
        // Three races against a cloud without a QUIC door: the phone's leg delay
        // only (the law times the WebSocket's handshake exactly).
        "quic-refused" => Domain {
            kinds: vec![Kind::Delay],
            one_way_min_ms: 1,
            one_way_max_ms: 120,
            hosts: vec!["phone"],
            test_cases: 8,
            ..d
        },
        "phone-race" => Domain {
            kinds: vec![Kind::Delay, Kind::UdpBlocked, Kind::UdpRefused, Kind::SwitchNetwork],
            always: vec![Kind::Delay, Kind::UdpBlocked],
            horizon_ms: 6 * 3_600_000,
            faults_from_ms: 0,
            outage_max_ms: 3 * 3_600_000,
            one_way_min_ms: 44,
            one_way_max_ms: 60,
            faults_max: 3,
            hosts: vec!["phone"],
            test_cases: 5,
            fleet: false,
            fleet_routing: false,
        },
        _ => d,
    }
}

/// One drawn case: the run seed and the plan.
#[derive(Clone, Debug, PartialEq)]
pub struct Case {
    pub seed: RunSeed,
    pub plan: FaultPlan,
}

/// Raw values of one leg: `None` keeps the default link's value.
type RawLink = (Option<u64>, Option<u64>, Option<u32>, Option<u32>, Option<(u32, u32)>, Option<usize>);
/// Raw timed fault: kind index into the domain's timed kinds, host index, time
/// (100 ms units), outage length (100 ms units), and (drawn after everything
/// else, so plans of the kinds before it are drawn as they always were) an extra
/// value 1..=128: a burst, a window, a sleep, a path drop's length.
type RawFault = (usize, usize, u64, u64, u32);

fn link_strategy(one_way_min_ms: u64, one_way_max_ms: u64) -> impl Strategy<Value = RawLink> {
    (
        proptest::option::of(one_way_min_ms.max(1)..=one_way_max_ms.max(one_way_min_ms.max(1))), // one-way delay, ms
        proptest::option::of(1u64..=40),           // jitter, ms
        proptest::option::of(1u32..=150),          // loss, per mille (0.1 % to 15 %)
        proptest::option::of(1u32..=100),          // duplicate, per mille
        proptest::option::of((1u32..=200, 1u32..=8)), // reorder per mille, k
        proptest::option::of(1280usize..=1499),    // MTU
    )
}

fn apply_link(on: &BTreeSet<Kind>, raw: &RawLink) -> LinkPlan {
    let mut l = LinkPlan::default();
    let (delay, jitter, loss, dup, reorder, mtu) = raw;
    if let (true, Some(v)) = (on.contains(&Kind::Delay), delay) {
        l.one_way_ms = *v;
    }
    if let (true, Some(v)) = (on.contains(&Kind::Jitter), jitter) {
        l.jitter_ms = *v;
    }
    if let (true, Some(v)) = (on.contains(&Kind::Loss), loss) {
        l.loss_pct = *v as f64 / 10.0;
    }
    if let (true, Some(v)) = (on.contains(&Kind::Duplicate), dup) {
        l.duplicate_pct = *v as f64 / 10.0;
    }
    if let (true, Some((p, k))) = (on.contains(&Kind::Reorder), reorder) {
        l.reorder_pct = *p as f64 / 10.0;
        l.reorder_k = *k;
    }
    if let (true, Some(v)) = (on.contains(&Kind::Mtu), mtu) {
        l.mtu = *v;
    }
    l
}


/// The strategy for one case of `domain` with run seed `seed`.
pub fn case_strategy(domain: &Domain, seed: RunSeed) -> BoxedStrategy<Case> {
    let kinds = domain.kinds.clone();
    let timed: Vec<Kind> = KINDS.iter().copied().filter(|k| k.is_timed() && kinds.contains(k)).collect();
    let hosts = domain.hosts.clone();
    assert!(!hosts.is_empty(), "a domain names at least one host");
    assert!(domain.faults_from_ms <= domain.horizon_ms, "faults start before the horizon");
    let first_step = domain.faults_from_ms / 100;
    let steps = domain.horizon_ms / 100;
    let outage_steps = (domain.outage_max_ms / 100).max(1);
    let fault = (0..timed.len().max(1), 0..hosts.len(), first_step..=steps, 1..=outage_steps);
    let faults_max = if timed.is_empty() { 0 } else { domain.faults_max };
    let always = domain.always.clone();
    // A kind that is always on gets one fault of its own, drawn apart.
    let always_timed: Vec<Kind> = always.iter().copied().filter(|k| timed.contains(k)).collect();
    let always_faults = proptest::collection::vec((0..hosts.len(), first_step..=steps, 1..=outage_steps, 1u32..=128), always_timed.len());
    (
        proptest::collection::vec(any::<bool>(), kinds.len()),
        link_strategy(domain.one_way_min_ms, domain.one_way_max_ms),
        link_strategy(domain.one_way_min_ms, domain.one_way_max_ms),
        proptest::collection::vec(fault, 0..=faults_max),
        always_faults,
        proptest::collection::vec(1u32..=128, faults_max),
        // Drawn last, so the plans of domains without a fleet are drawn as before.
        if domain.fleet { proptest::option::of((FLEET_REACTORS_DRAWN, 0u8..4)).boxed() } else { Just(None).boxed() },
        Just(domain.fleet_routing),
    )
        .prop_map(move |(mask, phone, box_, raw4, forced, extras, fleet, draw_routing): (Vec<bool>, RawLink, RawLink, Vec<(usize, usize, u64, u64)>, Vec<(usize, u64, u64, u32)>, Vec<u32>, Option<(usize, u8)>, bool)| {
            let mut raw: Vec<RawFault> = raw4.iter().zip(extras.iter().chain(std::iter::repeat(&1))).map(|(&(k, h, at, len), &x)| (k, h, at, len, x)).collect();
            let on: BTreeSet<Kind> = kinds.iter().zip(&mask).filter(|(_, m)| **m).map(|(k, _)| *k).chain(always.iter().copied()).collect();
            for (k, (h, at, len, extra)) in always_timed.iter().zip(forced) {
                let i = timed.iter().position(|t| t == k).expect("always kinds are timed kinds of the domain");
                raw.push((i, h, at, len, extra));
            }
            let mut faults: Vec<TimedFault> = raw
                .iter()
                .flat_map(|&(k, h, at, len, extra)| {
                    let Some(kind) = timed.get(k).copied() else { return vec![] };
                    if !on.contains(&kind) {
                        return vec![];
                    }
                    let host = hosts[h].to_string();
                    let phone = || "phone".to_string();
                    let for_ms = len * 100;
                    let at_ms = at * 100;
                    let one = |fault| vec![TimedFault { at_ms, fault }];
                    match kind {
                        Kind::Rebind => one(FaultKind::Rebind { host }),
                        Kind::SwitchNetwork => one(FaultKind::SwitchNetwork { host: phone() }),
                        Kind::Blackhole => one(FaultKind::Blackhole { host, for_ms }),
                        Kind::UdpBlocked => one(FaultKind::UdpBlocked { host, for_ms }),
                        Kind::UdpRefused => one(FaultKind::UdpRefused { host, for_ms }),
                        Kind::PathDrop => {
                            let span = PATH_DROP_MAX_MS - PATH_DROP_MIN_MS;
                            // UDP blocked, not a blackhole: the WebSocket that follows the drop
                            // must be able to carry the session.
                            one(FaultKind::UdpBlocked { host: phone(), for_ms: PATH_DROP_MIN_MS + (extra as u64 - 1) * span / 127 / 100 * 100 })
                        }
                        Kind::ReplayDatagram => one(FaultKind::ReplayDatagram { host: phone() }),
                        Kind::ReplayStream => one(FaultKind::ReplayStreamMessage { host: phone() }),
                        // 41 to 168 later messages (about 3 a second): mostly past the old 64-wide window.
                        Kind::OvertakeControl => one(FaultKind::OvertakeControl { host: phone(), burst: 40 + extra }),
                        Kind::LateTable => vec![
                            TimedFault { at_ms, fault: FaultKind::TableChange { host: "box".into() } },
                            TimedFault { at_ms, fault: FaultKind::ReverseDatagrams { host: phone(), for_ms: 1_000 + extra as u64 * 40 } },
                        ],
                        Kind::Background => one(FaultKind::Background { host: phone(), for_ms: extra as u64 * 500 }),
                        Kind::Relaunch => one(FaultKind::Relaunch { host: phone() }),
                        Kind::Sleep => one(FaultKind::Sleep { host: phone(), for_ms: extra as u64 * 225_000 }),
                        Kind::ForgedMoves => one(FaultKind::ForgedMoves { host, for_ms }),
                        _ => unreachable!("only timed kinds"),
                    }
                })
                .collect();
            // Network switches toggle in list order: keep the list in time order.
            faults.sort_by_key(|f| f.at_ms);
            let fleet = fleet.map(|(reactors, r)| FleetPlan {
                reactors,
                routing: draw_routing.then_some(if r == 0 { FleetRouting::KernelFilter } else { FleetRouting::Forward }),
            });
            let plan = FaultPlan { phone: apply_link(&on, &phone), box_: apply_link(&on, &box_), fleet, faults };

            debug_assert!(plan.validate().is_ok(), "drawn plans are valid: {plan:?}");
            Case { seed, plan }
        })
        .boxed()
}

/// A deterministic proptest runner for the case drawn from `seed`: its RNG is
/// ChaCha seeded by SHA-256 of a domain tag and the seed; no failure
/// persistence (the corpus is ours).
pub fn runner_for(seed: RunSeed) -> TestRunner {
    let mut h = Sha256::new();
    h.update(b"ftw.properties.case.v1");
    h.update(seed.0.to_be_bytes());
    let bytes: [u8; 32] = h.finalize().into();
    let config = Config { failure_persistence: None, ..Config::default() };
    TestRunner::new_with_rng(config, TestRng::from_seed(RngAlgorithm::ChaCha, &bytes))
}

/// The value tree of the case drawn from `seed` (same seed, same case).
pub fn draw(domain: &Domain, seed: RunSeed) -> Box<dyn ValueTree<Value = Case>> {
    let mut runner = runner_for(seed);
    Box::new(case_strategy(domain, seed).new_tree(&mut runner).expect("the case strategy never rejects"))
}
