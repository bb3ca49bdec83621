//! The timed fault kinds, one file each: how the plan writes it (its struct,
//! `kind = "..."` in TOML), which host it names, how long it lasts, who
//! carries it out and what outage it puts on a leg ([`TimedKind`]). The
//! strategy draws them (`properties/src/strategy.rs`), the world, the relay,
//! the phone and the site apply them by their [`Actor`], the timeline shades
//! their outages; none of them matches on the kinds one by one.

use serde::{Deserialize, Serialize};

use crate::world::host::Host;
use crate::world::net::fault::Outage;

mod background;
mod blackhole;
mod cloud_close;
mod cloud_restart;
mod corrupt_message;
mod forged_moves;
mod overtake_control;
mod rebind;
mod relaunch;
mod replay_datagram;
mod replay_stream_message;
mod reverse_datagrams;
mod sleep;
mod slow_host;
mod strangers;
mod switch_network;
mod table_change;
mod udp_blocked;
mod udp_refused;

pub use background::Background;
pub use blackhole::Blackhole;
pub use cloud_close::{CloudClose, CLOSE_CODES};
pub use cloud_restart::{CloudRestart, SERVICE_RESTART};
pub use corrupt_message::CorruptMessage;
pub use forged_moves::ForgedMoves;
pub use overtake_control::{OvertakeControl, HOLD_MAX_MS};
pub use rebind::Rebind;
pub use relaunch::Relaunch;
pub use replay_datagram::ReplayDatagram;
pub use replay_stream_message::ReplayStreamMessage;
pub use reverse_datagrams::ReverseDatagrams;
pub use sleep::Sleep;
pub use slow_host::{SlowHost, SLOW_FOR_MS_MAX};
pub use strangers::Strangers;
pub use switch_network::SwitchNetwork;
pub use table_change::TableChange;
pub use udp_blocked::{UdpBlocked, PATH_DROP_MAX_MS, PATH_DROP_MIN_MS};
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
    /// The cloud's service itself (a restart).
    Service,
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
    /// Its whole-number fields and their values, each with a range in [`TimedKind::ranges`].
    fn whole_fields(&self) -> Vec<(&'static str, u64)> {
        vec![]
    }
    /// The ranges of [`TimedKind::whole_fields`] (inclusive), with why, beside the kind's
    /// definition (issue 19 section 3).
    fn ranges(&self) -> &'static [FieldRange] {
        &[]
    }
    /// Checks of its values beyond their ranges (a set of codes, say).
    fn validate(&self) -> Result<(), String> {
        Ok(())
    }
}

pub use crate::world::range::FieldRange;

/// The longest an outage, a hidden app or a forged stream of copies may last (ms): a day.
pub const FOR_MS_MAX: u64 = 86_400_000;

/// `for_ms` of a kind that lasts at most [`FOR_MS_MAX`].
pub const FOR_A_DAY: &[FieldRange] = &[("for_ms", 0, FOR_MS_MAX, "at most a day")];

/// Every whole-number field of a kind within its range, then the kind's own checks;
/// the error names the field, the value and the range.
pub fn check(k: &dyn TimedKind) -> Result<(), String> {
    crate::world::range::check_whole("", &k.whole_fields(), k.ranges())?;
    k.validate()
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
    CloudClose(CloudClose),
    CorruptMessage(CorruptMessage),
    CloudRestart(CloudRestart),
    SlowHost(SlowHost),
    Strangers(Strangers),
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
            FaultKind::CloudClose(k) => k,
            FaultKind::CorruptMessage(k) => k,
            FaultKind::CloudRestart(k) => k,
            FaultKind::SlowHost(k) => k,
            FaultKind::Strangers(k) => k,
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

/// A fault at a time.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct TimedFault {
    pub at_ms: u64,
    #[serde(flatten)]
    pub fault: FaultKind,
}

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
    /// The cloud ends the phone's session with one of the closes its service
    /// sends (1000, 1001, 1005, 1011, 1013, 4403, 4408, 4429).
    CloudClose,
    /// The relay flips a bit of a phone-bound message (a datagram or a stream message).
    Corrupt,
    /// The cloud's service restarts: the box's uplink closes (1012) and, every other
    /// time, the cloud's TLS session store is lost (the box's 0-RTT is rejected).
    CloudRestart,
    /// A host's processing is ten times the profile's for a while (issue 16 section 3).
    SlowHost,
    /// Hosts nobody talked to send the cloud unknown ids, a known id with a body that
    /// does not decrypt, long headers and garbage (SPEC section 5's defences).
    Strangers,
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
    Kind::CloudClose,
    Kind::Corrupt,
    Kind::CloudRestart,
    Kind::SlowHost,
    Kind::Strangers,
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
            Kind::CloudClose => "cloud_close",
            Kind::Corrupt => "corrupt_message",
            Kind::CloudRestart => "cloud_restart",
            Kind::SlowHost => "slow_host",
            Kind::Strangers => "strangers",
        }
    }
    /// The timed faults this swarm kind makes of one drawn case's values (each
    /// kind's `drawn` says how); empty for the link settings.
    pub fn draw(self, d: &Draw) -> Vec<TimedFault> {
        let one = |fault| vec![TimedFault { at_ms: d.at_ms, fault }];
        match self {
            Kind::Delay | Kind::Jitter | Kind::Loss | Kind::Duplicate | Kind::Reorder | Kind::Mtu => vec![],
            Kind::Rebind => one(FaultKind::Rebind(Rebind::drawn(d))),
            Kind::SwitchNetwork => one(FaultKind::SwitchNetwork(SwitchNetwork::drawn(d))),
            Kind::Blackhole => one(FaultKind::Blackhole(Blackhole::drawn(d))),
            Kind::UdpBlocked => one(FaultKind::UdpBlocked(UdpBlocked::drawn(d))),
            Kind::UdpRefused => one(FaultKind::UdpRefused(UdpRefused::drawn(d))),
            Kind::PathDrop => one(FaultKind::UdpBlocked(UdpBlocked::drawn_path_drop(d))),
            Kind::ReplayDatagram => one(FaultKind::ReplayDatagram(ReplayDatagram::drawn(d))),
            Kind::ReplayStream => one(FaultKind::ReplayStreamMessage(ReplayStreamMessage::drawn(d))),
            Kind::OvertakeControl => one(FaultKind::OvertakeControl(OvertakeControl::drawn(d))),
            Kind::LateTable => {
                let mut v = one(FaultKind::TableChange(TableChange::drawn(d)));
                v.extend(one(FaultKind::ReverseDatagrams(ReverseDatagrams::drawn(d))));
                v
            }
            Kind::Background => one(FaultKind::Background(Background::drawn(d))),
            Kind::Relaunch => one(FaultKind::Relaunch(Relaunch::drawn(d))),
            Kind::Sleep => one(FaultKind::Sleep(Sleep::drawn(d))),
            Kind::ForgedMoves => one(FaultKind::ForgedMoves(ForgedMoves::drawn(d))),
            Kind::CloudClose => one(FaultKind::CloudClose(CloudClose::drawn(d))),
            Kind::Corrupt => one(FaultKind::CorruptMessage(CorruptMessage::drawn(d))),
            Kind::CloudRestart => one(FaultKind::CloudRestart(CloudRestart::drawn(d))),
            Kind::SlowHost => one(FaultKind::SlowHost(SlowHost::drawn(d))),
            Kind::Strangers => one(FaultKind::Strangers(Strangers::drawn(d))),
        }
    }
}
