//! The fault plan: a whole network and its timed faults as data, so a corpus
//! entry keeps the concrete plan (it outlives changes to the generators).

use std::time::Duration;

use crate::world::host::addr;
pub use crate::world::net::processing::{ProcessingPlan, PROCESSING_RANGES};
use crate::world::net::NetAction;

use serde::{Deserialize, Serialize};

use crate::world::host::Host;

pub mod kind;

use crate::world::net::fault::{Chain, Delay, Duplicate, ForgeMoves, Jitter, Loss, Mtu, OrderedJitter, Reorder, Strangers, Window};
use crate::world::range::check_whole;
pub use crate::world::range::FieldRange;
pub use kind::{Actor, FaultKind, TimedFault, TimedKind, FOR_MS_MAX};

/// Link settings of one leg (phone's or box's), both directions.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct LinkPlan {
    /// One-way delay (SPEC section 6: 20 ms each way on every leg).
    pub one_way_ms: u64,
    pub jitter_ms: u64,
    /// The jitter keeps the order datagrams were sent in (a wandering delay,
    /// not reordering). Omitted when false, so plans written before it read the same.
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub jitter_ordered: bool,
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

/// A validated plan holds no NaN (every share is checked to be within 0 to
/// 100), so its equality is an equivalence: the journal carries it as data.
impl Eq for LinkPlan {}

/// A leg's whole-number fields and the range each may take (inclusive), with
/// why: [`FaultPlan::validate`] refuses a value outside, naming the field, the
/// value and the range (issue 19 section 3). `mtu` is 0 (none) or within its range.
pub const LINK_RANGES: &[FieldRange] = &[
    ("one_way_ms", 0, 10_000, "at most 10 s one way; a geostationary hop is 0.27 s"),
    ("jitter_ms", 0, 10_000, "extra delay of at most 10 s"),
    ("reorder_k", 1, 1_000, "a held datagram waits for 1 to 1,000 later ones"),
    ("reorder_hold_max_ms", 0, 60_000, "a held datagram goes within a minute"),
    ("mtu", 1_280, 65_535, "QUIC's 1,280-byte floor (RFC 9000 section 14) to an IPv4 packet's largest; 0 for none"),
];

/// The latest a timed fault may come (ms): a week, past every scenario's horizon.
pub const AT_MS_MAX: u64 = 7 * 24 * 3_600_000;

/// The `[from, until)` windows of the faults on `host` that `span` gives a host and
/// a length for (the leg pieces that act only inside their windows).
fn windows(faults: &[TimedFault], host: Host, span: impl Fn(&FaultKind) -> Option<(Host, u64)>) -> Vec<(Duration, Duration)> {
    faults
        .iter()
        .filter_map(|f| {
            let (_, for_ms) = span(&f.fault).filter(|(h, _)| *h == host)?;
            let from = Duration::from_millis(f.at_ms);
            Some((from, from + Duration::from_millis(for_ms)))
        })
        .collect()
}

impl LinkPlan {
    /// Every whole-number field within its range (`mtu` 0 is none, so unchecked).
    fn check_ranges(&self, leg: &str) -> Result<(), String> {
        let mut fields = vec![
            ("one_way_ms", self.one_way_ms),
            ("jitter_ms", self.jitter_ms),
            ("reorder_k", self.reorder_k as u64),
            ("reorder_hold_max_ms", self.reorder_hold_max_ms),
        ];
        if self.mtu != 0 {
            fields.push(("mtu", self.mtu as u64));
        }
        check_whole(&format!("plan.{leg}."), &fields, LINK_RANGES)
    }
}

impl Default for LinkPlan {
    fn default() -> Self {
        LinkPlan {
            one_way_ms: 20,
            jitter_ms: 0,
            jitter_ordered: false,
            loss_pct: 0.0,
            duplicate_pct: 0.0,
            reorder_pct: 0.0,
            reorder_k: 3,
            reorder_hold_max_ms: 200,
            mtu: 1500,
        }
    }
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

/// The QUIC stand-in (`quic = "rig"` / `quic = "patched"`; issue 33 section 2).
/// `rig`, the default since session 18: the vendored quinn-proto as the rig's stacks
/// behave (quic-go, docs/findings/upstream/STACKS.md): sections 3 and 6 off, the
/// server probing a new address and moving once it answers (section 11), one ACK per
/// packet received (section 12), quic-go's window and timing on every connection.
/// `patched`: every section of sim/vendor/quinn-proto/PATCH.md on, with quinn-proto's
/// own migration (the entries that show a quinn patch's effect, and the table's
/// `ideal` profile, keep it). PATCH.md "The QUIC profile".
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum QuicPlan {
    Patched,
    #[default]
    Rig,
}

impl QuicPlan {
    fn is_default(&self) -> bool {
        *self == QuicPlan::default()
    }

    /// The profile a name gives (`patched`, `rig`), for the command line.
    pub fn parse(name: &str) -> Result<QuicPlan, String> {
        match name {
            "patched" => Ok(QuicPlan::Patched),
            "rig" => Ok(QuicPlan::Rig),
            _ => Err(format!("unknown QUIC profile {name:?}: patched or rig")),
        }
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
    /// The QUIC stand-in (omitted when `patched`, so plans written before it read and
    /// write the same).
    #[serde(skip_serializing_if = "QuicPlan::is_default")]
    pub quic: QuicPlan,
    pub phone: LinkPlan,
    #[serde(rename = "box")]
    pub box_: LinkPlan,
    /// The cloud's QUIC reactor fleet, for the scenarios that run one (`fleet-*`;
    /// others ignore it). None: the scenario's own (4 reactors; its routing).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub fleet: Option<FleetPlan>,
    /// Every host's processing time per datagram received (issue 16 section 3;
    /// `crate::world::net::processing`). None: none (the protocol's floor), as
    /// in every plan written before it.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub processing: Option<ProcessingPlan>,
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
    /// The chain of one direction of this leg (`up`: from the host): (up) its forged
    /// moves and its strangers first, then the plan's outage windows for `host`.
    pub fn chain(&self, host: Host, faults: &[TimedFault], up: bool) -> Chain {
        let mut c = Chain::default();
        if up {
            let forged = windows(faults, host, |k| match k {
                FaultKind::ForgedMoves(kind::ForgedMoves { host, for_ms }) => Some((*host, *for_ms)),
                _ => None,
            });
            if !forged.is_empty() {
                c.push(ForgeMoves::new(forged));
            }
            let strangers = windows(faults, host, |k| match k {
                FaultKind::Strangers(kind::Strangers { host, for_ms }) => Some((*host, *for_ms)),
                _ => None,
            });
            if !strangers.is_empty() {
                c.push(Strangers::new(strangers));
            }
        }
        for f in faults.iter().filter(|f| f.fault.host() == host) {
            if let Some((outage, _)) = f.fault.def().outage() {
                let from = Duration::from_millis(f.at_ms);
                c.push(Window { from, until: from + Duration::from_millis(f.fault.def().lasts_ms()), outage });
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
        if self.jitter_ms > 0 && self.jitter_ordered {
            c.push(OrderedJitter::new(Duration::from_millis(self.jitter_ms)));
        } else if self.jitter_ms > 0 {
            c.push(Jitter(Duration::from_millis(self.jitter_ms)));
        }
        c
    }
}

impl FaultPlan {
    /// The times (ms) the plan changes `host`'s public address: its NAT
    /// rebinds and its moves between networks.
    pub fn address_changes_ms(&self, host: Host) -> Vec<u64> {
        self.faults
            .iter()
            .filter(
                |f| matches!(&f.fault, FaultKind::Rebind(kind::Rebind { host: h }) | FaultKind::SwitchNetwork(kind::SwitchNetwork { host: h }) if *h == host),
            )
            .map(|f| f.at_ms)
            .collect()
    }

    /// The world's scheduled actions: NAT rebinds, and the phone's moves between
    /// its two networks (NATs `wifi` and `cell`), toggling in list order.
    pub fn net_actions(&self, wifi: usize, cell: usize) -> Vec<(Duration, NetAction)> {
        let mut on_cell = false;
        let mut out = Vec::new();
        for f in &self.faults {
            let at = Duration::from_millis(f.at_ms);
            match &f.fault {
                FaultKind::Rebind(kind::Rebind { host }) => out.push((at, NetAction::Rebind { host: host.ip() })),
                FaultKind::SwitchNetwork(kind::SwitchNetwork { .. }) => {
                    on_cell = !on_cell;
                    out.push((at, NetAction::Move { host: addr::PHONE, nat: if on_cell { cell } else { wifi } }));
                }
                _ => {}
            }
        }
        out
    }

    /// Check the plan names only hosts that exist and sane numbers.
    pub fn validate(&self) -> Result<(), String> {
        for (leg, l) in [("phone", &self.phone), ("box", &self.box_)] {
            l.check_ranges(leg)?;
            for (field, v) in [("loss_pct", l.loss_pct), ("duplicate_pct", l.duplicate_pct), ("reorder_pct", l.reorder_pct)] {
                if !(0.0..=100.0).contains(&v) {
                    return Err(format!("plan.{leg}.{field} = {v}: must be a percentage from 0 to 100"));
                }
            }
        }
        if let Some(p) = &self.processing {
            p.check_ranges()?;
        }
        if let Some(f) = &self.fleet {
            if !(1..=FLEET_REACTORS_MAX).contains(&f.reactors) {
                return Err(format!("plan.fleet.reactors = {}: must be from 1 to {FLEET_REACTORS_MAX}", f.reactors));
            }
        }
        for (i, f) in self.faults.iter().enumerate() {
            if f.at_ms > AT_MS_MAX {
                return Err(format!("plan.faults[{i}].at_ms = {}: must be from 0 to {AT_MS_MAX} (a week)", f.at_ms));
            }
            let host = f.fault.host();
            if host == Host::Cloud {
                return Err(format!("plan.faults[{i}].host = \"{host}\": must be \"phone\" or \"box\""));
            }
            if let Some(only) = f.fault.def().only_host() {
                if host != only {
                    return Err(format!("plan.faults[{i}].host = \"{host}\": this kind takes host = \"{only}\""));
                }
            }
            kind::check(f.fault.def()).map_err(|e| format!("plan.faults[{i}].{e}"))?;
        }
        Ok(())
    }
}
