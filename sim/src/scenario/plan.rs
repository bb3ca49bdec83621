//! The fault plan: a whole network and its timed faults as data, so a corpus
//! entry keeps the concrete plan (it outlives changes to the generators).

use std::time::Duration;

use serde::{Deserialize, Serialize};

use crate::net::fault::{Chain, Delay, Duplicate, ForgeMoves, Jitter, Loss, Mtu, Outage, Reorder, Window};

/// Link settings of one leg (phone's or box's), both directions.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct LinkPlan {
    /// One-way delay (SPEC section 6: 20 ms each way on every leg).
    pub one_way_ms: u64,
    pub jitter_ms: u64,
    /// Independent loss of each packet, per cent, each direction.
    pub loss_pct: f64,
    pub duplicate_pct: f64,
    /// Share of packets held back behind `reorder_k` later ones, per cent.
    pub reorder_pct: f64,
    pub reorder_k: u32,
    /// The longest a held packet waits for its `reorder_k` to pass, in ms.
    pub reorder_hold_max_ms: u64,
    /// Path MTU in bytes (IP packet), 0 = none.
    pub mtu: usize,
}

impl Default for LinkPlan {
    fn default() -> Self {
        LinkPlan { one_way_ms: 20, jitter_ms: 0, loss_pct: 0.0, duplicate_pct: 0.0, reorder_pct: 0.0, reorder_k: 3, reorder_hold_max_ms: 200, mtu: 1500 }
    }
}

/// What a timed fault does.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case", tag = "kind")]
pub enum FaultKind {
    /// The host's NAT rebinds (same inside flow, new outside port).
    Rebind { host: String },
    /// The phone moves to its other network (Wi-Fi to cellular or back).
    SwitchNetwork { host: String },
    /// The host's leg drops everything for `for_ms`.
    Blackhole { host: String, for_ms: u64 },
    /// UDP dropped on the host's leg for `for_ms` (TCP passes).
    UdpBlocked { host: String, for_ms: u64 },
    /// UDP refused at once on the host's leg for `for_ms` (TCP passes).
    UdpRefused { host: String, for_ms: u64 },
    /// The cloud as a hostile relay (`host` = "phone": phone-bound traffic):
    /// the first phone-bound datagram it relays at or after the time goes twice.
    ReplayDatagram { host: String },
    /// The relay sends the first phone-bound control-lane stream message at or
    /// after the time twice.
    ReplayStreamMessage { host: String },
    /// The relay holds the first phone-bound stream message at or after the
    /// time back until `burst` later phone-bound messages have gone: a burst
    /// overtaking a control message.
    OvertakeControl { host: String, burst: u32 },
    /// The relay holds every phone-bound datagram for `for_ms`, then sends
    /// them newest first (a reordering relay).
    ReverseDatagrams { host: String, for_ms: u64 },
    /// The box's site changes its table (`host` = "box": a battery is added, srcRev + 1).
    TableChange { host: String },
    /// The phone's app goes to the background for `for_ms` (`host` = "phone").
    Background { host: String, for_ms: u64 },
    /// The phone's app is killed and launched again.
    Relaunch { host: String },
    /// The phone sleeps: its wall clock jumps `for_ms` and it reconnects.
    Sleep { host: String, for_ms: u64 },
    /// An on-path attacker on the host's leg (RFC 9000 section 9.3.3) copies
    /// each UDP datagram the host sends during `for_ms` and sends the copy from
    /// a forged source port of the same address, 1 ms ahead of the original: a
    /// server adopts the "moved" address before it validates it.
    ForgedMoves { host: String, for_ms: u64 },
}

impl FaultKind {
    /// The host the fault names.
    pub fn host(&self) -> &str {
        match self {
            FaultKind::Rebind { host }
            | FaultKind::SwitchNetwork { host }
            | FaultKind::Blackhole { host, .. }
            | FaultKind::UdpBlocked { host, .. }
            | FaultKind::UdpRefused { host, .. }
            | FaultKind::ReplayDatagram { host }
            | FaultKind::ReplayStreamMessage { host }
            | FaultKind::OvertakeControl { host, .. }
            | FaultKind::ReverseDatagrams { host, .. }
            | FaultKind::TableChange { host }
            | FaultKind::Background { host, .. }
            | FaultKind::Relaunch { host }
            | FaultKind::Sleep { host, .. }
            | FaultKind::ForgedMoves { host, .. } => host,
        }
    }
    /// The one host a kind may name, for kinds that are not about a leg.
    fn only_host(&self) -> Option<&'static str> {
        match self {
            FaultKind::SwitchNetwork { .. } => Some("phone"),
            FaultKind::ReplayDatagram { .. } | FaultKind::ReplayStreamMessage { .. } | FaultKind::OvertakeControl { .. } | FaultKind::ReverseDatagrams { .. } => Some("phone"),
            FaultKind::TableChange { .. } => Some("box"),
            FaultKind::Background { .. } | FaultKind::Relaunch { .. } | FaultKind::Sleep { .. } => Some("phone"),
            _ => None,
        }
    }
    /// A fault of the relay (the cloud's driver carries it out).
    pub fn is_relay(&self) -> bool {
        matches!(self, FaultKind::ReplayDatagram { .. } | FaultKind::ReplayStreamMessage { .. } | FaultKind::OvertakeControl { .. } | FaultKind::ReverseDatagrams { .. })
    }
    /// A fault of the phone's app life (the scenario's phone carries it out).
    pub fn is_app_life(&self) -> bool {
        matches!(self, FaultKind::Background { .. } | FaultKind::Relaunch { .. } | FaultKind::Sleep { .. })
    }
}

/// A fault at a time.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct TimedFault {
    pub at_ms: u64,
    #[serde(flatten)]
    pub fault: FaultKind,
}

/// The simulated hosts' TCP (`tcp = "linux"` / `tcp = "smoltcp"`; ftw-tcp's
/// `TcpFlavor`, sim/tcp/README.md): Linux 6.x's timers and loss recovery, as on the
/// rig's Go-on-Linux ends, or stock smoltcp's, as before, to compare the two.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum TcpPlan {
    #[default]
    Linux,
    Smoltcp,
}

impl TcpPlan {
    /// The stack flavour it names.
    pub fn flavor(self) -> ftw_tcp::TcpFlavor {
        match self {
            TcpPlan::Linux => ftw_tcp::TcpFlavor::Linux,
            TcpPlan::Smoltcp => ftw_tcp::TcpFlavor::Smoltcp,
        }
    }

    fn is_default(&self) -> bool {
        *self == TcpPlan::default()
    }
}

/// The whole plan.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct FaultPlan {
    /// Every host's TCP (first: a TOML value before the tables; omitted when Linux, so
    /// plans written before it read and write the same).
    #[serde(skip_serializing_if = "TcpPlan::is_default")]
    pub tcp: TcpPlan,
    pub phone: LinkPlan,
    #[serde(rename = "box")]
    pub box_: LinkPlan,
    /// The cloud's QUIC reactor fleet, for the scenarios that run one (`fleet-*`;
    /// others ignore it). None: the scenario's own (4 reactors; its routing).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub fleet: Option<FleetPlan>,
    pub faults: Vec<TimedFault>,
}

/// How a datagram reaches the reactor that owns its connection (ftw-fleet's
/// `Routing`, seed 002 `QuicOptions.Routing`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum FleetRouting {
    /// The kernel hashes the 4-tuple; a reactor forwards a short header to the
    /// reactor its id names, and the owner pins a moved client's address.
    Forward,
    /// The kernel routes by connection id: nothing forwarded, nothing pinned.
    KernelFilter,
}

/// The fleet's shape.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct FleetPlan {
    /// Reactors behind the one UDP port, 1 to FLEET_REACTORS_MAX.
    pub reactors: usize,
    /// None: the scenario's own routing.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub routing: Option<FleetRouting>,
}

/// The most reactors a plan may ask for (a stamp is one byte of the id, and
/// the cloud's hosts run a handful; seed 002 runs 4).
pub const FLEET_REACTORS_MAX: usize = 64;

impl LinkPlan {
    /// The chain of one direction of this leg (`up`: from the host), with the
    /// plan's outage windows for `host` first, then (up) its forged moves.
    pub fn chain(&self, host: &str, faults: &[TimedFault], up: bool) -> Chain {
        let mut c = Chain::default();
        if up {
            let windows: Vec<(Duration, Duration)> = faults
                .iter()
                .filter_map(|f| match &f.fault {
                    FaultKind::ForgedMoves { host: h, for_ms } if h == host => {
                        let from = Duration::from_millis(f.at_ms);
                        Some((from, from + Duration::from_millis(*for_ms)))
                    }
                    _ => None,
                })
                .collect();
            if !windows.is_empty() {
                c.push(ForgeMoves::new(windows));
            }
        }
        for f in faults {
            let from = Duration::from_millis(f.at_ms);
            let (h, for_ms, outage) = match &f.fault {
                FaultKind::Blackhole { host, for_ms } => (host, *for_ms, Outage::Blackhole),
                FaultKind::UdpBlocked { host, for_ms } => (host, *for_ms, Outage::UdpBlocked),
                FaultKind::UdpRefused { host, for_ms } => (host, *for_ms, Outage::UdpRefused),
                _ => continue,
            };
            if h == host {
                c.push(Window { from, until: from + Duration::from_millis(for_ms), outage });
            }
        }
        if self.mtu > 0 {
            c.push(Mtu(self.mtu));
        }
        if self.loss_pct > 0.0 {
            c.push(Loss(self.loss_pct / 100.0));
        }
        if self.duplicate_pct > 0.0 {
            c.push(Duplicate { rate: self.duplicate_pct / 100.0, gap: Duration::from_millis(1) });
        }
        if self.reorder_pct > 0.0 {
            c.push(Reorder::new(self.reorder_pct / 100.0, self.reorder_k, Duration::from_millis(self.reorder_hold_max_ms)));
        }
        c.push(Delay(Duration::from_millis(self.one_way_ms)));
        if self.jitter_ms > 0 {
            c.push(Jitter(Duration::from_millis(self.jitter_ms)));
        }
        c
    }
}

impl FaultPlan {
    /// Check the plan names only hosts that exist and sane numbers.
    pub fn validate(&self) -> Result<(), String> {
        for (leg, l) in [("phone", &self.phone), ("box", &self.box_)] {
            for (field, v) in [("loss_pct", l.loss_pct), ("duplicate_pct", l.duplicate_pct), ("reorder_pct", l.reorder_pct)] {
                if !(0.0..=100.0).contains(&v) {
                    return Err(format!("plan.{leg}.{field} = {v}: must be a percentage from 0 to 100"));
                }
            }
        }
        if let Some(f) = &self.fleet {
            if !(1..=FLEET_REACTORS_MAX).contains(&f.reactors) {
                return Err(format!("plan.fleet.reactors = {}: must be from 1 to {FLEET_REACTORS_MAX}", f.reactors));
            }
        }
        for (i, f) in self.faults.iter().enumerate() {
            let host = f.fault.host();
            if host != "phone" && host != "box" {
                return Err(format!("plan.faults[{i}].host = {host:?}: must be \"phone\" or \"box\""));
            }
            if let Some(only) = f.fault.only_host() {
                if host != only {
                    return Err(format!("plan.faults[{i}].host = {host:?}: this kind takes host = {only:?}"));
                }
            }
            if let FaultKind::OvertakeControl { burst: 0, .. } = f.fault {
                return Err(format!("plan.faults[{i}].burst = 0: at least one message overtakes"));
            }
        }
        Ok(())
    }
}
