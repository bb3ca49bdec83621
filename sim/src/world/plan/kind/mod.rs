//! The timed fault kinds, one file each: how the plan writes it (its struct,
//! `kind = "..."` in TOML), which host it names, how long it lasts, who
//! carries it out and what outage it puts on a leg ([`TimedKind`]). The
//! strategy draws them (`properties/src/strategy.rs`), the world, the relay,
//! the phone and the site apply them by their [`Actor`], the timeline shades
//! their outages; none of them matches on the kinds one by one.

use serde::{Deserialize, Serialize};

use crate::world::domain::Kind;
use crate::world::host::Host;
use crate::world::net::fault::Outage;

mod background;
mod blackhole;
mod forged_moves;
mod overtake_control;
mod rebind;
mod relaunch;
mod replay_datagram;
mod replay_stream_message;
mod reverse_datagrams;
mod sleep;
mod switch_network;
mod table_change;
mod udp_blocked;
mod udp_refused;

pub use background::Background;
pub use blackhole::Blackhole;
pub use forged_moves::ForgedMoves;
pub use overtake_control::{OvertakeControl, HOLD_MAX_MS};
pub use rebind::Rebind;
pub use relaunch::Relaunch;
pub use replay_datagram::ReplayDatagram;
pub use replay_stream_message::ReplayStreamMessage;
pub use reverse_datagrams::ReverseDatagrams;
pub use sleep::Sleep;
pub use switch_network::SwitchNetwork;
pub use table_change::TableChange;
pub use udp_blocked::UdpBlocked;
pub use udp_refused::UdpRefused;

/// Who carries a timed fault out.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Actor {
    /// The world schedules it (a NAT rebind, a move between networks).
    World,
    /// A piece on the host's leg (an outage window, forged copies).
    Leg,
    /// The cloud's driver, as a hostile relay.
    Relay,
    /// The phone's app (background, relaunch, sleep).
    AppLife,
    /// The box's site (its table).
    Site,
}

/// The raw values a drawn case gives a timed fault (`properties`' strategy
/// draws them, shrinking each toward its mildest): the host of the domain,
/// the time, an outage length, and an extra value 1..=128 a kind reads as its
/// own (a burst, a window, a sleep). Each kind's `drawn` says what it makes of them.
#[derive(Clone, Copy, Debug)]
pub struct Draw {
    pub host: Host,
    pub at_ms: u64,
    pub for_ms: u64,
    pub extra: u32,
}

/// What every timed fault kind says about itself.
pub trait TimedKind {
    /// The swarm kind (the unit the generator switches on) that draws it.
    fn swarm(&self) -> Kind;
    /// The host it names.
    fn host(&self) -> Host;
    /// Who carries it out.
    fn actor(&self) -> Actor;
    /// The one host it may name, for kinds that are not about any leg.
    fn only_host(&self) -> Option<Host> {
        None
    }
    /// How long it lasts after its time, in ms (0: an instant).
    fn lasts_ms(&self) -> u64 {
        0
    }
    /// The outage window it puts on its host's leg, and its words for a picture.
    fn outage(&self) -> Option<(Outage, &'static str)> {
        None
    }
    /// Its own values' ranges.
    fn validate(&self) -> Result<(), String> {
        Ok(())
    }
}

/// What a timed fault does: one variant a kind, each kind's struct in its file.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case", tag = "kind")]
pub enum FaultKind {
    Rebind(Rebind),
    SwitchNetwork(SwitchNetwork),
    Blackhole(Blackhole),
    UdpBlocked(UdpBlocked),
    UdpRefused(UdpRefused),
    ReplayDatagram(ReplayDatagram),
    ReplayStreamMessage(ReplayStreamMessage),
    OvertakeControl(OvertakeControl),
    ReverseDatagrams(ReverseDatagrams),
    TableChange(TableChange),
    Background(Background),
    Relaunch(Relaunch),
    Sleep(Sleep),
    ForgedMoves(ForgedMoves),
}

impl FaultKind {
    /// The kind's own description of itself.
    pub fn def(&self) -> &dyn TimedKind {
        match self {
            FaultKind::Rebind(k) => k,
            FaultKind::SwitchNetwork(k) => k,
            FaultKind::Blackhole(k) => k,
            FaultKind::UdpBlocked(k) => k,
            FaultKind::UdpRefused(k) => k,
            FaultKind::ReplayDatagram(k) => k,
            FaultKind::ReplayStreamMessage(k) => k,
            FaultKind::OvertakeControl(k) => k,
            FaultKind::ReverseDatagrams(k) => k,
            FaultKind::TableChange(k) => k,
            FaultKind::Background(k) => k,
            FaultKind::Relaunch(k) => k,
            FaultKind::Sleep(k) => k,
            FaultKind::ForgedMoves(k) => k,
        }
    }

    /// The host the fault names.
    pub fn host(&self) -> Host {
        self.def().host()
    }

    /// Who carries it out.
    pub fn actor(&self) -> Actor {
        self.def().actor()
    }

    /// A fault of the relay (the cloud's driver carries it out).
    pub fn is_relay(&self) -> bool {
        self.actor() == Actor::Relay
    }

    /// A fault of the phone's app life (the scenario's phone carries it out).
    pub fn is_app_life(&self) -> bool {
        self.actor() == Actor::AppLife
    }
}
