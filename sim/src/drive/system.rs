//! The whole system as a builder: the cloud (`ftw_cloud::Cloud` behind a QUIC
//! door and a WebSocket door), the box (`ftw_box::BoxNode`, uplink over QUIC
//! resuming with 0-RTT keys) as hosts of a world, and the phone's app
//! ([`PhoneApp`]: race, `PhoneSession`, carrier, view) for the caller's host.
//! The session scenarios, the phone's race scenarios and the table build on it.
//!
//! Every Noise key and model seed comes from the run seed's named streams
//! (`model.phone.static`, `model.box.static`, `model.cloud.static`,
//! `model.box`, `model.cloud`, `model.box.site`, `model.phone.session.<n>`).

use std::cell::RefCell;
use std::net::SocketAddrV4;
use std::rc::Rc;
use std::time::Duration;

use ftw_box::{BoxNode, BoxStats, SentLive};
use ftw_cloud::phone::PhoneConfig;
use ftw_cloud::CloudStats;
use ftw_crypto::{crypto_provider, new_client_session_store, ClientResumption, QuicTransportParams};
use ftw_phone::network::NetworkDesc;
use ftw_wire::noise::Key;

use crate::drive::app::cloud::{CloudDriver, CloudLog};
use crate::drive::app::phone::{dialer_with, PhoneApp, PhoneLog};
use crate::drive::app::r#box::{UplinkLog, UplinkRecord};
use crate::drive::app::relay::RelayFault;
use crate::drive::build::{client_quic, fleet_config, FleetRun};
use crate::drive::fleet::FleetDoor;
use crate::drive::hosts::{v4, BoxHost, CloudHost, Keys, Uplink, BOX_ID};
use crate::drive::link::EarlyData;
use crate::drive::rig::Rig;
use crate::drive::tcp::{tcp_config_for, TcpHost};
use crate::drive::ws::{client_tls, WsClient};
use crate::world::host::PHONE;
use crate::world::host::{addr, cloud_certs, sim_clock};
use crate::world::plan::kind;
use crate::world::plan::{FaultKind, FaultPlan};
use crate::world::switch::Switch;
use crate::world::time;
use crate::world::topology::RunSpec;
use crate::world::trace;

/// After the last fault heals, the phone streams again within this long: the
/// box's backoff ceiling (60 s) plus a race and the handshakes. Chosen here.
pub const HEAL_BOUND: Duration = Duration::from_secs(75);

/// A phone whose session ended races again after this long. Chosen here.
pub const RECONNECT_DELAY: Duration = Duration::from_secs(2);

/// The command the phone sends (accepted by every site).
pub const CMD_OP: &str = "site.mode.set";

/// Plaintext the cloud must never see: text in frames of the box session.
pub const SECRETS: &[&str] = &["grid_w", "hello_ok", "cmd.ack", CMD_OP, "battery_soc"];

/// How the world is set up.
#[derive(Clone, Debug)]
pub struct Setup {
    /// The phone is paired at the cloud and pinned at the box.
    pub paired: bool,
    pub sessions_enabled: bool,
    /// The cloud listens for QUIC (false: no UDP listener, QUIC is refused).
    pub quic_door: bool,
    /// The app hears of each move of the plan at once (as from the OS) and taps
    /// there, so its first datagram from the new network is a command
    /// (`session-moves`; the table's probe phone does the same).
    pub tap_on_move: bool,
}

impl Default for Setup {
    fn default() -> Self {
        Setup { paired: true, sessions_enabled: true, quic_door: true, tap_on_move: false }
    }
}

/// What the hosts leave behind for the checks.
#[derive(Default)]
pub struct Shared {
    pub cloud: Option<CloudDriver>,
    /// The cloud's QUIC door: its reactor fleet.
    pub door: Option<FleetDoor>,
    pub boxn: Option<Rc<RefCell<BoxNode>>>,
    /// The box's uplink dials.
    pub uplinks: UplinkLog,
    pub phone: Option<Rc<RefCell<PhoneLog>>>,
    /// The phone's memory at the end (JSON) and its networks.
    pub memory: Option<ftw_phone::memory::CloudTransportMemory>,
}

/// The state after the end: what the box and the cloud still hold once the
/// world stops.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct AtEnd {
    pub box_sessions: usize,
    pub cloud_links: usize,
    /// Phones the cloud still relays to the box.
    pub cloud_phones: usize,
    pub box_uplink_up: bool,
}

/// What a run saw, for the checks and the tests.
#[derive(Clone, Debug, Default)]
pub struct SessionSummary {
    pub phone_pub: Key,
    pub phone: PhoneLog,
    pub lives_sent: Vec<SentLive>,
    pub box_stats: BoxStats,
    pub cloud: CloudLog,
    pub cloud_stats: CloudStats,
    pub memory: Option<ftw_phone::memory::CloudTransportMemory>,
    /// What each party still holds when the run ends (`nothing-held-after-end`).
    pub at_end: AtEnd,
    /// The box's uplink dials (issue 15 section 2).
    pub uplinks: Vec<UplinkRecord>,
}

/// The network the phone is on at `t`, from the plan's network switches: what its
/// network watch sees there.
pub fn network_at(plan: &FaultPlan, t: Duration) -> NetworkDesc {
    let moves =
        plan.faults.iter().filter(|f| matches!(f.fault, FaultKind::SwitchNetwork(kind::SwitchNetwork { .. })) && Duration::from_millis(f.at_ms) <= t).count();
    NetworkDesc::behind_nat(if moves % 2 == 1 { "nat-cell" } else { "nat-wifi" })
}

/// When the plan's last fault is over (zero without faults).
pub fn heal_time(plan: &FaultPlan) -> Duration {
    plan.faults.iter().map(|f| Duration::from_millis(f.at_ms + f.fault.def().lasts_ms())).max().unwrap_or_default()
}

/// Build the rig: cloud and box as hosts; the phone is the caller's.
pub fn build(spec: &RunSpec, setup: &Setup, limit: Duration) -> (Rig, Rc<RefCell<Shared>>) {
    let mut world = Rig::new(spec, limit);
    let shared = Rc::new(RefCell::new(Shared::default()));
    world.cloud(cloud_host(spec, setup, &shared));
    world.home_box(box_host(spec, setup, &shared));
    (world, shared)
}

/// The plan's service restarts: (time in ms, whether the tickets are lost).
fn restarts_of(spec: &RunSpec) -> Vec<(u64, bool)> {
    spec.plan
        .faults
        .iter()
        .filter_map(|f| match &f.fault {
            FaultKind::CloudRestart(kind::CloudRestart { loses_tickets, .. }) => Some((f.at_ms, *loses_tickets)),
            _ => None,
        })
        .collect()
}

/// The cloud of the session system: the spec's switches, relay faults and
/// service restarts; with the setup's QUIC door, the reactor fleet in the plan's
/// shape (4 reactors, forward).
fn cloud_host(spec: &RunSpec, setup: &Setup, shared: &Rc<RefCell<Shared>>) -> CloudHost {
    let fleet = fleet_config(spec.seed, spec, &FleetRun::default().shaped_by(&spec.plan));
    let (sh, sh2) = (shared.clone(), shared.clone());
    CloudHost {
        seed: spec.seed,
        paired: setup.paired,
        sessions_enabled: setup.sessions_enabled,
        wire: spec.switches.wire(),
        relay: RelayFault::of(&spec.plan.faults),
        restarts: restarts_of(spec),
        tcp: tcp_config_for(&spec.plan, 0),
        quic: setup.quic_door.then(|| (fleet, QuicTransportParams::default())),
        on_cloud: Rc::new(move |d: &CloudDriver| sh.borrow_mut().cloud = Some(d.clone())),
        on_door: Rc::new(move |d: &FleetDoor| sh2.borrow_mut().door = Some(d.clone())),
    }
}

/// The box of the session system: the spec's switches and table changes, its
/// uplink over QUIC resuming with 0-RTT (unless a switch says otherwise).
fn box_host(spec: &RunSpec, setup: &Setup, shared: &Rc<RefCell<Shared>>) -> BoxHost {
    let table_changes: Vec<Duration> = spec
        .plan
        .faults
        .iter()
        .filter(|f| matches!(f.fault, FaultKind::TableChange(kind::TableChange { .. })))
        .map(|f| Duration::from_millis(f.at_ms))
        .collect();
    let early = if spec.switches.on(Switch::BoxWaitsForHandshake) {
        EarlyData::Never
    } else {
        EarlyData::IfTicket { resend: !spec.switches.on(Switch::RejectedZeroRttNotResent) }
    };
    let sh = shared.clone();
    BoxHost {
        seed: spec.seed,
        paired: setup.paired,
        table_changes,
        wire: spec.switches.wire(),
        bugs: spec.switches.boxn(),
        uplink: Uplink::Quic { params: QuicTransportParams::default(), early },
        uplinks: shared.borrow().uplinks.clone(),
        on_node: Rc::new(move |n: &Rc<RefCell<BoxNode>>| sh.borrow_mut().boxn = Some(n.clone())),
    }
}

/// The phone's app on the current host: QUIC and WebSocket dialers, keys from the seed.
pub async fn phone_app(spec: &RunSpec) -> std::io::Result<PhoneApp> {
    let seed = spec.seed;
    let keys = Keys::of(seed);
    let (ep, mut client) = client_quic(seed, PHONE).await?;
    // Planted: a phone that keeps tickets and sends early data (the seed's phone never does).
    let early = if spec.switches.on(Switch::PhoneUsesZeroRtt) {
        let rng = seed.crypto(PHONE);
        client = ftw_crypto::quic_client_config(
            &crypto_provider(&rng.sub("tls")),
            &sim_clock(PHONE),
            &cloud_certs(),
            ClientResumption::Store(new_client_session_store()),
            rng.sub_seed("quic/initial-dcid"),
            &QuicTransportParams::default(),
        );
        EarlyData::IfTicket { resend: true }
    } else {
        EarlyData::Never
    };
    let tcp = TcpHost::bind_with(PHONE, v4(addr::PHONE), seed, tcp_config_for(&spec.plan, spec.plan.phone.mtu)).await?;
    let ws = Rc::new(WsClient::new(tcp, client_tls(seed, PHONE, ClientResumption::Disabled), seed));
    let door = SocketAddrV4::new(v4(addr::CLOUD), addr::CLOUD_PORT);
    let dial = dialer_with(Some((ep, client)), Some(ws), door, early);
    let mut cfg = PhoneConfig::new(keys.phone.clone(), keys.cloud.public, keys.box_.public, BOX_ID);
    cfg.switches = spec.switches.wire();
    Ok(PhoneApp::start(PHONE, seed, cfg, spec.switches.phone(), dial))
}

/// Put the reactor fleet's counters (summed and per reactor) in the trace as
/// `fleet.counters`: call at a run's end, inside the world.
pub fn record_fleet_counters(shared: &Rc<RefCell<Shared>>) {
    if let Some(door) = shared.borrow().door.clone() {
        door.record_counters("fleet.counters");
    }
}

/// Collect what the hosts left.
pub fn summary(spec: &RunSpec, shared: &Rc<RefCell<Shared>>) -> SessionSummary {
    let sh = shared.borrow();
    let mut s =
        SessionSummary { phone_pub: Keys::of(spec.seed).phone.public, memory: sh.memory.clone(), uplinks: sh.uplinks.borrow().clone(), ..Default::default() };
    if let Some(p) = &sh.phone {
        s.phone = p.borrow().clone();
    }
    if let Some(b) = &sh.boxn {
        let b = b.borrow();
        s.lives_sent = b.lives_sent().to_vec();
        s.box_stats = b.stats();
        s.at_end.box_sessions = b.session_count();
        s.at_end.box_uplink_up = matches!(b.uplink(), ftw_box::UplinkState::Up { .. });
    }
    if let Some(c) = &sh.cloud {
        s.cloud = c.log();
        s.cloud_stats = c.with_cloud(|c| c.stats());
        s.at_end.cloud_links = c.with_cloud(|c| c.link_count());
        s.at_end.cloud_phones = c.with_cloud(|c| c.relayed_phones(BOX_ID));
    }
    s
}

/// How long a `session` run lasts for a plan.
pub fn session_length(plan: &FaultPlan) -> Duration {
    (heal_time(plan) + HEAL_BOUND + Duration::from_secs(15)).max(Duration::from_secs(60))
}

/// Carry out one app-life fault of the plan on the phone.
pub async fn app_life(phone: &mut PhoneApp, f: &FaultKind, at: Duration) {
    match f {
        FaultKind::Background(kind::Background { for_ms, .. }) => {
            trace::record(PHONE, "phone.life", format!("background for {for_ms} ms"));
            phone.background();
            let until = at + Duration::from_millis(*for_ms);
            while time::now() < until {
                phone.run_until(until).await;
                if phone.transport().is_none() {
                    time::sleep_until(until).await;
                }
            }
            if phone.foreground() {
                trace::record(PHONE, "phone.life", "foreground asks for a reconnect");
            }
        }
        FaultKind::Relaunch(kind::Relaunch { .. }) => phone.relaunch(),
        FaultKind::Sleep(kind::Sleep { for_ms, .. }) => {
            trace::record(PHONE, "phone.life", format!("sleeps {for_ms} ms of wall clock"));
            phone.clock_jump(Duration::from_millis(*for_ms));
        }
        other => unreachable!("not an app-life fault: {other:?}"),
    }
}
