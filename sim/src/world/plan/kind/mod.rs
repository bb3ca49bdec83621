//! The timed fault kinds, one file each: how the plan writes it (its struct,
//! `kind = "..."` in TOML), which host it names, how long it lasts, who
//! carries it out and what outage it puts on a leg ([`TimedKind`]). The
//! strategy draws them (`properties/src/strategy.rs`), the world, the relay,
//! the phone and the site apply them by their [`Actor`], the timeline shades
//! their outages; none of them matches on the kinds one by one.

use serde::{Deserialize, Serialize};

use crate::world::host::Host;
use crate::world::net::fault::Outage;

#[macro_use]
mod table;

pub use cloud_close::CLOSE_CODES;
pub use cloud_restart::SERVICE_RESTART;
pub use overtake_control::HOLD_MAX_MS;
pub use slow_host::SLOW_FOR_MS_MAX;
pub use udp_blocked::{PATH_DROP_MAX_MS, PATH_DROP_MIN_MS};

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

impl FaultKind {
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

/// One timed fault at the case's time, from what its kind's `drawn` made of the draw.
fn drawn_at(d: &Draw, fault: impl Into<FaultKind>) -> TimedFault {
    TimedFault { at_ms: d.at_ms, fault: fault.into() }
}

kinds! {
    /// A one-way delay other than the default 20 ms.
    Delay "delay" [] [],
    Jitter "jitter" [] [],
    Loss "loss" [] [],
    Duplicate "duplicate" [] [],
    Reorder "reorder" [] [],
    /// A path MTU below 1500 (never below QUIC's 1280-byte floor).
    Mtu "mtu" [] [],
    /// NAT rebinds (new outside port, same inside flow).
    Rebind "rebind" [Rebind(rebind)] [Rebind::drawn],
    /// The phone moves Wi-Fi to cellular (and back).
    SwitchNetwork "switch_network" [SwitchNetwork(switch_network)] [SwitchNetwork::drawn],
    /// A leg drops everything for a while.
    Blackhole "blackhole" [Blackhole(blackhole)] [Blackhole::drawn],
    /// UDP dropped for a while (TCP passes): only scenarios with a WebSocket survive it.
    UdpBlocked "udp_blocked" [UdpBlocked(udp_blocked)] [UdpBlocked::drawn],
    /// UDP refused at once for a while (TCP passes).
    UdpRefused "udp_refused" [UdpRefused(udp_refused)] [UdpRefused::drawn],
    /// The phone's UDP goes silent past QUIC's 30 s idle timeout (UDP blocked on
    /// the phone's leg for 31 to 60 s): the QUIC path drops, which demotes QUIC.
    PathDrop "path_drop" [] [UdpBlocked::drawn_path_drop],
    /// The relay sends a phone-bound datagram twice.
    ReplayDatagram "replay_datagram" [ReplayDatagram(replay_datagram)] [ReplayDatagram::drawn],
    /// The relay sends a phone-bound control-lane stream message twice.
    ReplayStream "replay_stream_message" [ReplayStreamMessage(replay_stream_message)] [ReplayStreamMessage::drawn],
    /// The relay holds a phone-bound stream message behind a burst of later ones.
    OvertakeControl "overtake_control" [OvertakeControl(overtake_control)] [OvertakeControl::drawn],
    /// The box's table changes and the relay sends the next datagrams newest
    /// first: the live carrying the new table comes late (Freshness case 17).
    LateTable "late_table" [TableChange(table_change), ReverseDatagrams(reverse_datagrams)] [TableChange::drawn, ReverseDatagrams::drawn],
    /// The phone's app goes to the background for a while.
    Background "background" [Background(background)] [Background::drawn],
    /// The phone's app is killed and launched again.
    Relaunch "relaunch" [Relaunch(relaunch)] [Relaunch::drawn],
    /// The phone sleeps for hours (its wall clock jumps) and reconnects.
    Sleep "sleep" [Sleep(sleep)] [Sleep::drawn],
    /// An on-path attacker copies a host's datagrams from forged ports, the
    /// copy first (RFC 9000 section 9.3.3).
    ForgedMoves "forged_moves" [ForgedMoves(forged_moves)] [ForgedMoves::drawn],
    /// The cloud ends the phone's session with one of the closes its service
    /// sends (1000, 1001, 1005, 1011, 1013, 4403, 4408, 4429).
    CloudClose "cloud_close" [CloudClose(cloud_close)] [CloudClose::drawn],
    /// The relay flips a bit of a phone-bound message (a datagram or a stream message).
    Corrupt "corrupt_message" [CorruptMessage(corrupt_message)] [CorruptMessage::drawn],
    /// The cloud's service restarts: the box's uplink closes (1012) and, every other
    /// time, the cloud's TLS session store is lost (the box's 0-RTT is rejected).
    CloudRestart "cloud_restart" [CloudRestart(cloud_restart)] [CloudRestart::drawn],
    /// A host's processing is ten times the profile's for a while (issue 16 section 3).
    SlowHost "slow_host" [SlowHost(slow_host)] [SlowHost::drawn],
    /// Hosts nobody talked to send the cloud unknown ids, a known id with a body that
    /// does not decrypt, long headers and garbage (SPEC section 5's defences).
    Strangers "strangers" [Strangers(strangers)] [Strangers::drawn],
}
