//! `session`, `unpaired`, `sessions-off`: the whole system end to end in the
//! simulated world. The cloud (`ftw_cloud::Cloud` behind a QUIC door and a
//! WebSocket door), the box (`ftw_box::BoxNode`, uplink over QUIC resuming with
//! 0-RTT keys) and the phone (race, `PhoneSession`, carrier, view). The phone
//! pairs, says hello, gets the snapshot and live values, sends a command and
//! gets its ack and result, goes to the background and back, through the
//! plan's faults; after a session ends it races again.
//!
//! Every Noise key and model seed comes from the run seed's named streams
//! (`model.phone.static`, `model.box.static`, `model.cloud.static`,
//! `model.box`, `model.cloud`, `model.box.site`, `model.phone.session.<n>`).

use std::cell::RefCell;
use std::net::SocketAddrV4;
use std::rc::Rc;
use std::time::Duration;

use ftw_box::{BoxConfig, BoxNode, BoxStats, SentLive};
use ftw_cloud::phone::PhoneConfig;
use ftw_cloud::{Cloud, CloudConfig, CloudStats};
use ftw_crypto::{
    crypto_provider, new_client_session_store, quic_client_config, quic_endpoint_config,
    seeded_cid_factory, ClientResumption, QuicTransportParams,
};
use ftw_phone::network::{NetworkDesc, NetworkId};
use ftw_phone::Switches as PhoneSwitches;
use ftw_wire::noise::{Key, Keypair};
use ftw_wire::BugSwitches;

use super::{addr, cloud_certs, sim_clock, world_for, Check, FaultKind, FaultPlan, RunReport, RunSpec, Switches, Topology};
use crate::app::cloud::{CloudDriver, CloudLog, RelayFault, Tamper};
use crate::app::phone::{dialer, PhoneApp, PhoneLog, SessionRecord};
use crate::app::r#box::{run_box, BoxDialer};
use crate::link::dial_quic;
use crate::quic::QuicEndpoint;
use crate::seed::RunSeed;
use crate::tcp::{tcp_config_for_link, TcpHost};
use crate::time;
use crate::trace;
use crate::world::World;
use crate::ws::{client_tls, door_tls, WsClient, WsDoor};

fn v4(ip: std::net::IpAddr) -> std::net::Ipv4Addr {
    match ip {
        std::net::IpAddr::V4(a) => a,
        std::net::IpAddr::V6(_) => unreachable!("the simulated world is IPv4"),
    }
}

/// The box's id at the cloud.
pub const BOX_ID: &str = "box-1";
/// After the last fault heals, the phone streams again within this long: the
/// box's backoff ceiling (60 s) plus a race and the handshakes. Chosen here.
pub const HEAL_BOUND: Duration = Duration::from_secs(75);
/// A phone whose session ended races again after this long. Chosen here.
pub const RECONNECT_DELAY: Duration = Duration::from_secs(2);
/// The command the phone sends (accepted by every site).
pub const CMD_OP: &str = "site.mode.set";
/// Plaintext the cloud must never see: text in frames of the box session.
pub const SECRETS: &[&str] = &["grid_w", "hello_ok", "cmd.ack", CMD_OP, "battery_soc"];

/// The phone's bug switches from the run's.
pub fn phone_switches(s: &Switches) -> PhoneSwitches {
    PhoneSwitches {
        ws_first_cancels_quic_probe: s.on("ws-first-cancels-probe"),
        every_close_demotes: s.on("every-close-demotes"),
        no_close_demotes: s.on("no-close-demotes"),
        losing_quic_dial_cancelled: s.on("losing-dial-cancelled"),
        datagram_replay_ends_session: s.on("datagram-replay-ends-session"),
        stream_replay_only_dropped: s.on("stream-replay-only-dropped"),
        late_live_table_dropped: s.on("late-live-table-dropped"),
        refused_waits_for_lead: s.on("refused-waits-for-lead"),
    }
}

/// The wire's bug switches from the run's.
pub fn wire_switches(s: &Switches) -> BugSwitches {
    BugSwitches { replay_window_64: s.on("replay-window-64") }
}

/// The keys of a run, from its seed.
#[derive(Clone, Debug)]
pub struct Keys {
    pub phone: Keypair,
    pub box_: Keypair,
    pub cloud: Keypair,
}

impl Keys {
    pub fn of(seed: RunSeed) -> Keys {
        Keys {
            phone: Keypair::from_private(seed.key("model.phone.static")),
            box_: Keypair::from_private(seed.key("model.box.static")),
            cloud: Keypair::from_private(seed.key("model.cloud.static")),
        }
    }
}

/// How the world is set up.
#[derive(Clone, Debug)]
pub struct Setup {
    /// The phone is paired at the cloud and pinned at the box.
    pub paired: bool,
    pub sessions_enabled: bool,
    /// The cloud listens for QUIC (false: no UDP listener, QUIC is refused).
    pub quic_door: bool,
    pub tamper: Tamper,
    /// The app hears of each move of the plan at once (as from the OS) and taps
    /// there, so its first datagram from the new network is a command
    /// (`session-moves`; the table's probe phone does the same).
    pub tap_on_move: bool,
}

impl Default for Setup {
    fn default() -> Self {
        Setup { paired: true, sessions_enabled: true, quic_door: true, tamper: Tamper::default(), tap_on_move: false }
    }
}

/// What the hosts leave behind for the checks.
#[derive(Default)]
pub struct Shared {
    pub cloud: Option<CloudDriver>,
    pub boxn: Option<Rc<RefCell<BoxNode>>>,
    pub phone: Option<Rc<RefCell<PhoneLog>>>,
    /// The phone's memory at the end (JSON) and its networks.
    pub memory: Option<ftw_phone::memory::CloudTransportMemory>,
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
}

/// The network the phone is on at `t`, from the plan's network switches.
pub fn network_at(plan: &FaultPlan, t: Duration) -> NetworkId {
    let moves = plan.faults.iter().filter(|f| matches!(f.fault, FaultKind::SwitchNetwork { .. }) && Duration::from_millis(f.at_ms) <= t).count();
    NetworkDesc::behind_nat(if moves % 2 == 1 { "nat-cell" } else { "nat-wifi" }).id()
}

/// When the plan's last fault is over (zero without faults).
pub fn heal_time(plan: &FaultPlan) -> Duration {
    plan.faults
        .iter()
        .map(|f| {
            let extra = match &f.fault {
                FaultKind::Blackhole { for_ms, .. }
                | FaultKind::UdpBlocked { for_ms, .. }
                | FaultKind::UdpRefused { for_ms, .. }
                | FaultKind::ReverseDatagrams { for_ms, .. }
                | FaultKind::Background { for_ms, .. } => *for_ms,
                FaultKind::OvertakeControl { .. } => crate::app::cloud::HOLD_MAX_MS,
                _ => 0,
            };
            Duration::from_millis(f.at_ms + extra)
        })
        .max()
        .unwrap_or_default()
}

/// The box's site seed: `model.box.site`; when the plan changes the table (a
/// battery joins), the first of `model.box.site`, `model.box.site.1`, ... whose
/// site starts without a battery, so the change is a change.
pub fn site_seed(seed: RunSeed, table_changes: bool) -> u64 {
    let mut s = seed.sub_seed("model.box.site");
    let mut n = 0;
    while table_changes && ftw_box::site::Site::new(s).has_battery() {
        n += 1;
        assert!(n < 1_000, "some site seed starts without a battery");
        s = seed.sub_seed(&format!("model.box.site.{n}"));
    }
    s
}

/// Build the world: cloud and box as hosts; the phone is the caller's.
pub fn build(spec: &RunSpec, setup: &Setup, limit: Duration) -> (World, Rc<RefCell<Shared>>) {
    let mut world = world_for(spec, limit);
    Topology::build(&mut world, &spec.plan);
    let seed = spec.seed;
    let keys = Keys::of(seed);
    let shared = Rc::new(RefCell::new(Shared::default()));
    let wire_sw = wire_switches(&spec.switches);
    let relay = RelayFault::of(&spec.plan.faults);
    let table_changes: Vec<Duration> = spec.plan.faults.iter().filter(|f| matches!(f.fault, FaultKind::TableChange { .. })).map(|f| Duration::from_millis(f.at_ms)).collect();

    let sh = shared.clone();
    let (k, st) = (keys.clone(), setup.clone());
    world.host("cloud", addr::CLOUD, move || {
        let (sh, k, st, relay) = (sh.clone(), k.clone(), st.clone(), relay.clone());
        async move {
            let mut cfg = CloudConfig::new(k.cloud.clone());
            cfg.sessions_enabled = st.sessions_enabled;
            cfg.switches = wire_sw;
            let mut cloud = Cloud::new(cfg, seed.key("model.cloud"));
            cloud.register_box(BOX_ID);
            if st.paired {
                cloud.pair(k.phone.public, BOX_ID);
            }
            let driver = CloudDriver::start_with_relay("cloud", cloud, st.tamper, relay);
            sh.borrow_mut().cloud = Some(driver.clone());
            // The WebSocket door.
            let tcp = TcpHost::bind("cloud", v4(addr::CLOUD), seed).await?;
            let door = WsDoor::bind(&tcp, addr::CLOUD_PORT, door_tls(seed, "cloud"))?;
            driver.serve_ws(door);
            // The QUIC door.
            if st.quic_door {
                driver.serve_quic(super::cloud_quic_endpoint(seed).await?).await;
            }
            std::future::pending::<()>().await;
            Ok(())
        }
    });

    let sh = shared.clone();
    let (k, st) = (keys.clone(), setup.clone());
    world.host("box", addr::BOX, move || {
        let (sh, k, st, table_changes) = (sh.clone(), k.clone(), st.clone(), table_changes.clone());
        async move {
            let paired = if st.paired { vec![k.phone.public] } else { vec![] };
            let mut cfg = BoxConfig::new(BOX_ID, k.box_.clone(), paired, site_seed(seed, !table_changes.is_empty()));
            cfg.switches = wire_sw;
            let node = Rc::new(RefCell::new(BoxNode::new(cfg, seed.key("model.box"))));
            sh.borrow_mut().boxn = Some(node.clone());
            // The plan's table changes: the site gets a battery (srcRev + 1).
            let site = node.clone();
            tokio::task::spawn_local(async move {
                for at in table_changes {
                    time::sleep_until(at).await;
                    site.borrow_mut().site_mut().add_battery();
                    trace::record("box", "box.table", format!("srcRev {}", site.borrow().site().src_rev()));
                }
            });
            let rng = seed.crypto("box");
            let provider = crypto_provider(&rng.sub("tls"));
            // One session store for the box's life: every reconnect resumes (0-RTT keys).
            let client = quic_client_config(&provider, &sim_clock("box"), &cloud_certs(), ClientResumption::Store(new_client_session_store()), rng.sub_seed("quic/initial-dcid"), &QuicTransportParams::default());
            let ep_cfg = quic_endpoint_config(rng.sub_seed("quic/reset-key"), rng.sub_seed("quic/endpoint"), seeded_cid_factory(rng.sub_seed("quic/cid"), 8));
            let ep = QuicEndpoint::bind("box", "0.0.0.0:0".parse().expect("addr"), ep_cfg, None).await?;
            let dial: BoxDialer = Rc::new(move |target: String| {
                let (ep, client) = (ep.clone(), client.clone());
                Box::pin(async move { dial_quic(&ep, client, addr::cloud_door(), ftw_crypto::consts::CLOUD_SERVER_NAME, &target).await })
            });
            run_box("box", node, dial).await;
            Ok(())
        }
    });
    (world, shared)
}

/// The phone's app on the current host: QUIC and WebSocket dialers, keys from the seed.
pub async fn phone_app(spec: &RunSpec) -> std::io::Result<PhoneApp> {
    let seed = spec.seed;
    let keys = Keys::of(seed);
    let rng = seed.crypto("phone");
    let provider = crypto_provider(&rng.sub("tls"));
    let client = quic_client_config(&provider, &sim_clock("phone"), &cloud_certs(), ClientResumption::Disabled, rng.sub_seed("quic/initial-dcid"), &QuicTransportParams::default());
    let ep_cfg = quic_endpoint_config(rng.sub_seed("quic/reset-key"), rng.sub_seed("quic/endpoint"), seeded_cid_factory(rng.sub_seed("quic/cid"), 8));
    let ep = QuicEndpoint::bind("phone", "0.0.0.0:0".parse().expect("addr"), ep_cfg, None).await?;
    let tcp = TcpHost::bind_with("phone", v4(addr::PHONE), seed, tcp_config_for_link(spec.plan.phone.mtu)).await?;
    let ws = Rc::new(WsClient::new(tcp, client_tls(seed, "phone", ClientResumption::Disabled), seed));
    let door = SocketAddrV4::new(v4(addr::CLOUD), addr::CLOUD_PORT);
    let dial = dialer(Some((ep, client)), Some(ws), door);
    let mut cfg = PhoneConfig::new(keys.phone.clone(), keys.cloud.public, keys.box_.public, BOX_ID);
    cfg.switches = wire_switches(&spec.switches);
    Ok(PhoneApp::start("phone", seed, cfg, phone_switches(&spec.switches), dial))
}

/// Collect what the hosts left.
pub fn summary(spec: &RunSpec, shared: &Rc<RefCell<Shared>>) -> SessionSummary {
    let sh = shared.borrow();
    let mut s = SessionSummary { phone_pub: Keys::of(spec.seed).phone.public, memory: sh.memory.clone(), ..Default::default() };
    if let Some(p) = &sh.phone {
        s.phone = p.borrow().clone();
    }
    if let Some(b) = &sh.boxn {
        let b = b.borrow();
        s.lives_sent = b.lives_sent().to_vec();
        s.box_stats = b.stats();
    }
    if let Some(c) = &sh.cloud {
        s.cloud = c.log();
        s.cloud_stats = c.with_cloud(|c| c.stats());
    }
    s
}

/// How long a `session` run lasts for a plan.
pub fn session_length(plan: &FaultPlan) -> Duration {
    (heal_time(plan) + HEAL_BOUND + Duration::from_secs(15)).max(Duration::from_secs(60))
}

/// `session`.
pub fn run(spec: &RunSpec) -> RunReport {
    run_with(spec, &Setup::default()).0
}

/// `session-moves`: `session` whose app taps at each move of the phone.
pub fn run_moves(spec: &RunSpec) -> RunReport {
    run_with(spec, &Setup { tap_on_move: true, ..Setup::default() }).0
}

/// `session` with a setup, and what it saw.
pub fn run_with(spec: &RunSpec, setup: &Setup) -> (RunReport, SessionSummary) {
    let length = session_length(&spec.plan);
    let (mut world, shared) = build(spec, setup, length + Duration::from_secs(120));
    let net = world.net.clone();
    let sh = shared.clone();
    let sp = spec.clone();
    let tap_on_move = setup.tap_on_move;
    world.client("phone", addr::PHONE, async move {
        let mut phone = phone_app(&sp).await?;
        sh.borrow_mut().phone = Some(phone.log.clone());
        // The moves the app hears of (with tap_on_move), popped in time order.
        let mut moves: Vec<Duration> = sp.plan.faults.iter().filter(|f| tap_on_move && matches!(f.fault, FaultKind::SwitchNetwork { .. })).map(|f| Duration::from_millis(f.at_ms)).collect();
        moves.reverse();
        let mut life: Vec<(Duration, FaultKind)> = sp.plan.faults.iter().filter(|f| f.fault.is_app_life()).map(|f| (Duration::from_millis(f.at_ms), f.fault.clone())).collect();
        life.reverse(); // popped in time order
        let mut cmd_sent_in: Option<u64> = None;
        let mut hidden_done = false;
        time::sleep(Duration::from_millis(500)).await;
        while time::now() < length {
            if moves.last().is_some_and(|at| time::now() >= *at) {
                moves.pop();
                if phone.session_open() && phone.send_cmd(CMD_OP).is_some() {
                    trace::record("phone", "phone.life", "the network changed: tap");
                }
                continue;
            }
            // The plan's app life, at its time.
            if let Some((at, f)) = life.last().cloned() {
                if time::now() >= at {
                    life.pop();
                    app_life(&mut phone, &f, at).await;
                    continue;
                }
            }
            if phone.transport().is_none() {
                if !phone.connect(network_at(&sp.plan, time::now())).await {
                    time::sleep(RECONNECT_DELAY).await;
                    continue;
                }
            }
            let now = time::now();
            // A command whose session ended before its result is sent again.
            let session_no = phone.log.borrow().sessions.len() as u64;
            let cmd_done = phone.log.borrow().cmds.iter().any(|c| c.ack.is_some() && c.result.is_some());
            let cmd_pending = !cmd_done && cmd_sent_in != Some(session_no);
            // The script: a command at 5 s (or as soon as a session is open after), the
            // background from 20 s to 30 s.
            let mut next = if cmd_pending {
                Duration::from_secs(5)
            } else if !hidden_done {
                Duration::from_secs(20)
            } else {
                length
            };
            if let Some((at, _)) = life.last() {
                next = next.min((*at).max(now));
            }
            if let Some(at) = moves.last() {
                next = next.min((*at).max(now));
            }
            if now >= next && (life.last().is_some_and(|(at, _)| *at <= now) || moves.last().is_some_and(|at| *at <= now)) {
                continue;
            }
            if now >= next && phone.session_open() {
                if cmd_pending {
                    if phone.send_cmd(CMD_OP).is_some() {
                        cmd_sent_in = Some(session_no);
                    }
                } else if !hidden_done {
                    phone.background();
                    phone.run_until(Duration::from_secs(30)).await;
                    if phone.foreground() {
                        trace::record("phone", "phone.life", "foreground asks for a reconnect");
                    }
                    hidden_done = true;
                }
                continue;
            }
            let until = if now >= next { now + Duration::from_secs(1) } else { next };
            phone.run_until(until.min(length)).await;
            if phone.transport().is_none() && time::now() < length {
                time::sleep(RECONNECT_DELAY).await;
            }
        }
        phone.close();
        sh.borrow_mut().memory = Some(phone.race().with_model(|m| m.memory().clone()));
        time::sleep(Duration::from_millis(300)).await;
        Ok(())
    });
    let outcome = world.run();
    let s = summary(spec, &shared);
    let heal = heal_time(&spec.plan);
    let checks = vec![
        values_are_sent_values(&s),
        cmd_round_trip(&s),
        live_gap_not_value(&s),
        blind_relay(&s),
        streams_after_heal(&s, heal),
        replayed_datagram_dropped(&s),
        stream_replay_ends_session(&s),
        no_false_replay(&s),
        late_live_table_kept(&s),
        demoted_goes_ws_first(&s),
        move_recovers_within_pto(&s, &spec.plan, &net.borrow().moves, length),
    ];
    (RunReport { outcome, checks }, s)
}

/// kInitialRtt (RFC 9002 section 6.2.2).
const K_INITIAL_RTT_MS: u64 = 333;
/// The peer's max_ack_delay when it sends none (RFC 9000 section 18.2; quinn-proto sends none).
const MAX_ACK_DELAY_MS: u64 = 25;
/// The law holds below this loss per packet on each leg (issue 15 section 4).
const MOVE_LAW_LOSS_PCT_BELOW: f64 = 10.0;
/// The law judges a move whose first datagram from the new network carries at
/// least this many bytes: three times it (the anti-amplification limit, RFC
/// 9000 section 8.1) admits the cloud's PATH_CHALLENGE padded to 1,200 bytes
/// (section 8.2.1). Below it the RFC lets the cloud send less than a padded
/// challenge, and whether it recovers from a loss depends on the phone sending
/// again; quinn-proto pads anyway ("any budget left allows a full MTU", quinn
/// issue 1082) and, if that datagram is lost, waits for the phone (an open
/// problem, docs/findings/quinn-mtud-unvalidated-path.md). The app of
/// `session-moves` taps at each move, so its first datagram is a command.
const MOVE_LAW_TRIGGER_BYTES_MIN: usize = 400;
/// The law's bound for a move, after the phone's first datagram from the new
/// network reached the cloud (the moment the cloud can see the new path), with
/// round trips `rtt_phone_ms` and `rtt_box_ms` (each leg's delay and jitter).
///
/// From RFC 9002's PTO rules: once the cloud migrates it resets its RTT
/// estimator for the new address (RFC 9000 section 9.4), so the new path's PTO
/// is smoothed_rtt + 4 rttvar + max_ack_delay with smoothed_rtt =
/// max(kInitialRtt, the path's RTT) and rttvar half of it (RFC 9002 sections
/// 5.3, 6.2.1, 6.2.2): at most 3 x max(333 ms, RTT) + 25 ms, 1,024 ms on the
/// default link. A lost packet costs one PTO and a lost retransmission two more
/// (the PTO doubles, section 6.2.1), so three PTOs cover any two losses in a
/// row; they are also the time the RFC gives path validation before it is
/// abandoned (RFC 9000 section 8.2.4). Add the box's cadence (the next message
/// exists within 1 s, one lane-0 frame a second while visible: ftw-box) and the
/// message's trip (box to cloud to phone, under one round trip of each leg).
/// Upstream quinn-proto 0.11.19 misses it: after one lost PATH_CHALLENGE or
/// PATH_RESPONSE its MTU probes keep the new path blocked by the 3x limit until
/// path validation gives up, three PTOs after the migration, and the phone's next
/// packet migrates it again (sim/vendor/quinn-proto/PATCH.md).
pub fn move_bound_ms(rtt_phone_ms: u64, rtt_box_ms: u64) -> u64 {
    let pto_new = 3 * K_INITIAL_RTT_MS.max(rtt_phone_ms) + MAX_ACK_DELAY_MS;
    ftw_box::consts::LANE0_VISIBLE_PERIOD_MS + rtt_phone_ms + rtt_box_ms + 3 * pto_new
}

/// When a timed fault is active: from its time to its end (outages, the app
/// in the background, held or reversed datagrams), or its moment.
fn fault_span_ms(f: &super::TimedFault) -> (u64, u64) {
    let len = match &f.fault {
        FaultKind::Blackhole { for_ms, .. }
        | FaultKind::UdpBlocked { for_ms, .. }
        | FaultKind::UdpRefused { for_ms, .. }
        | FaultKind::ReverseDatagrams { for_ms, .. }
        | FaultKind::Background { for_ms, .. }
        | FaultKind::ForgedMoves { for_ms, .. } => *for_ms,
        FaultKind::OvertakeControl { .. } => crate::app::cloud::HOLD_MAX_MS,
        _ => 0,
    };
    (f.at_ms, f.at_ms + len)
}

/// Issue 15 section 4: after a move of the phone under loss below 10 % on
/// both legs, while a QUIC session is open and nothing else happens (and the
/// phone's first datagram from there admits a padded PATH_CHALLENGE), the
/// session's next message crosses the new path within [`move_bound_ms`] of the
/// phone's first datagram from the new network reaching the cloud, and so does
/// each next one for two bounds (a lost PATH_RESPONSE stalls the path after a
/// first message went through).
pub fn move_recovers_within_pto(s: &SessionSummary, plan: &FaultPlan, moves: &[crate::net::MoveSeen], length: Duration) -> Check {
    let property = "move-recovers-within-pto".to_string();
    let rtt = |l: &super::LinkPlan| 2 * (l.one_way_ms + l.jitter_ms);
    let bound = move_bound_ms(rtt(&plan.phone), rtt(&plan.box_));
    if plan.phone.loss_pct >= MOVE_LAW_LOSS_PCT_BELOW || plan.box_.loss_pct >= MOVE_LAW_LOSS_PCT_BELOW {
        return Check { property, ok: true, detail: format!("loss {} % / {} %: not below {MOVE_LAW_LOSS_PCT_BELOW} %, the law does not apply", plan.phone.loss_pct, plan.box_.loss_pct) };
    }
    // Margins around a move's window in which nothing else may happen.
    const BEFORE_MS: u64 = 2_000;
    const AFTER_MS: u64 = 1_000;
    let mut judged = Vec::new();
    let mut bad = Vec::new();
    for m in moves.iter().filter(|m| m.host == addr::PHONE) {
        let at = m.at.as_millis() as u64;
        let Some(t1) = m.first_udp_arrival.map(|t| t.as_millis() as u64) else { continue };
        // Judged over two bounds: the stall can also start after a first message
        // (a lost PATH_RESPONSE), so every message of the window counts.
        let until = t1 + 2 * bound;
        if until + AFTER_MS > length.as_millis() as u64 {
            continue;
        }
        let (from, to) = (at.saturating_sub(BEFORE_MS), until + AFTER_MS);
        // Another move counts if it comes within the window, or if the cloud
        // first saw its path just before this move (a migration under way); one
        // the phone never sent from (superseded by this move) changes nothing.
        let other_move = moves.iter().filter(|o| o.host == m.host && o.at != m.at).any(|o| {
            let o_at = o.at.as_millis() as u64;
            (o_at > at && o_at <= to) || o.first_udp_arrival.is_some_and(|t| (t.as_millis() as u64) + BEFORE_MS >= at && o_at < at)
        });
        let other_fault = other_move
            || plan.faults.iter().filter(|f| !matches!(f.fault, FaultKind::SwitchNetwork { .. })).map(fault_span_ms).any(|(a, b)| a <= to && b >= from);
        let hidden = s.phone.hidden_ms.iter().any(|&(a, b)| a <= to && b.is_none_or(|b| b >= from));
        // A QUIC session open before the move that outlives the window.
        let quic_open = s.phone.sessions.iter().any(|r| r.transport == ftw_phone::Transport::Quic && r.first_message_ms.is_some_and(|f| f < at) && r.ended_at_ms.is_none_or(|e| e > to));
        if other_fault || hidden || !quic_open || m.first_udp_len < MOVE_LAW_TRIGGER_BYTES_MIN {
            continue;
        }
        // The longest wait for the next message, from t1 on.
        let mut last = t1;
        let mut wait = (0, t1);
        for d in s.phone.delivered_ms.iter().copied().filter(|&d| d >= t1 && d <= until).chain([until]) {
            if d - last > wait.0 {
                wait = (d - last, last);
            }
            last = d;
        }
        judged.push(format!("move {at} ms, cloud sees the new path {t1} ms, longest wait {} ms from {} ms", wait.0, wait.1));
        if wait.0 > bound {
            bad.push(format!("move at {at} ms: the phone's first datagram from the new network reached the cloud at {t1} ms; from {} ms no message for {} ms (bound {bound} ms)", wait.1, wait.0));
        }
    }
    Check {
        property,
        ok: bad.is_empty(),
        detail: format!("{} moves judged (bound {bound} ms after the cloud sees the new path): {}; {}", judged.len(), judged.join("; "), bad.first().cloned().unwrap_or_default()),
    }
}

/// Every value the phone shows is one the box sent, with that liveSeq.
pub fn values_are_sent_values(s: &SessionSummary) -> Check {
    let sent = |seq: u64| s.lives_sent.iter().find(|l| l.phone == s.phone_pub && l.live_seq == seq);
    let mut bad = Vec::new();
    for (seq, values) in &s.phone.lives {
        match sent(*seq) {
            Some(l) if &l.values == values => {}
            Some(_) => bad.push(format!("live {seq}: values differ from the box's")),
            None => bad.push(format!("live {seq}: never sent by the box")),
        }
    }
    for (field, value, seq) in &s.phone.shown {
        if sent(*seq).and_then(|l| l.values.get(field)).map(|v| *v as f64) != Some(*value) {
            bad.push(format!("{field} = {value} shown for live {seq}: not what the box sent"));
        }
    }
    let ok = bad.is_empty() && !s.phone.lives.is_empty();
    Check {
        property: "values-are-sent-values".into(),
        ok,
        detail: format!("{} lives delivered, {} values shown, box sent {}; {}", s.phone.lives.len(), s.phone.shown.len(), s.lives_sent.len(), bad.first().cloned().unwrap_or_default()),
    }
}

/// Carry out one app-life fault of the plan on the phone.
pub async fn app_life(phone: &mut PhoneApp, f: &FaultKind, at: Duration) {
    match f {
        FaultKind::Background { for_ms, .. } => {
            trace::record("phone", "phone.life", format!("background for {for_ms} ms"));
            phone.background();
            let until = at + Duration::from_millis(*for_ms);
            while time::now() < until {
                phone.run_until(until).await;
                if phone.transport().is_none() {
                    time::sleep_until(until).await;
                }
            }
            if phone.foreground() {
                trace::record("phone", "phone.life", "foreground asks for a reconnect");
            }
        }
        FaultKind::Relaunch { .. } => phone.relaunch(),
        FaultKind::Sleep { for_ms, .. } => {
            trace::record("phone", "phone.life", format!("sleeps {for_ms} ms of wall clock"));
            phone.clock_jump(Duration::from_millis(*for_ms));
        }
        other => unreachable!("not an app-life fault: {other:?}"),
    }
}

/// A replay that came as a datagram is dropped: it never ends the session.
pub fn replayed_datagram_dropped(s: &SessionSummary) -> Check {
    Check {
        property: "replayed-datagram-dropped".into(),
        ok: s.phone.ended_by_datagram_replay == 0,
        detail: format!(
            "the relay repeated {} datagrams; the carrier saw {} replays, dropped {}, {} sessions ended by a datagram replay",
            s.cloud.repeated_datagrams, s.phone.replays_seen, s.phone.replays_dropped, s.phone.ended_by_datagram_replay
        ),
    }
}

/// A replay on a stream ends the session: it is never only dropped.
pub fn stream_replay_ends_session(s: &SessionSummary) -> Check {
    Check {
        property: "stream-replay-ends-session".into(),
        ok: s.phone.stream_replays_dropped == 0,
        detail: format!(
            "the relay repeated {} stream messages; {} stream replays only dropped, {} sessions ended by the carrier",
            s.cloud.repeated_stream, s.phone.stream_replays_dropped, s.phone.ended_by_carrier
        ),
    }
}

/// A burst overtaking a control message never causes a false replay: every
/// replay the carrier saw is one the relay made.
pub fn no_false_replay(s: &SessionSummary) -> Check {
    Check {
        property: "no-false-replay".into(),
        ok: s.phone.replays_seen <= s.cloud.repeated,
        detail: format!(
            "the carrier saw {} replays, the relay repeated {} messages; {} held back (behind up to {} later ones)",
            s.phone.replays_seen, s.cloud.repeated, s.cloud.held, s.cloud.held_behind_max
        ),
    }
}

/// Freshness case 17: a late live whose table is newer than the view's gives
/// the view its table and keeps the newer values shown; the view never goes
/// back (to an older srcRev, or a value from an older live).
pub fn late_live_table_kept(s: &SessionSummary) -> Check {
    Check {
        property: "late-live-table-kept".into(),
        ok: s.phone.freshness_breaches.is_empty(),
        detail: format!(
            "{} late lives carried a newer table ({} datagrams sent newest first); breaches: {:?}",
            s.phone.late_tables,
            s.cloud.reversed,
            s.phone.freshness_breaches.iter().take(2).collect::<Vec<_>>()
        ),
    }
}

/// Whether a QUIC session's end demotes QUIC (SPEC section 4, judged from the
/// log alone): not the app's close, not a close the service spoke (from 1000,
/// other than 1005 and 1006), and before its first message or within a
/// minute of it. Replays and broken messages end a session without a path drop.
pub fn should_demote(r: &SessionRecord) -> bool {
    use ftw_phone::consts::{CLOSE_ABNORMAL, CLOSE_NO_STATUS, DEMOTION_WINDOW_MS, SERVICE_CLOSE_CODE_MIN};
    let (Some(end), Some(ended)) = (r.end.as_deref(), r.ended_at_ms) else { return false };
    if r.transport != ftw_phone::Transport::Quic || end.starts_with("local") {
        return false;
    }
    let path_like = match end.strip_prefix("code ").and_then(|c| c.parse::<u16>().ok()) {
        Some(code) => code < SERVICE_CLOSE_CODE_MIN || code == CLOSE_NO_STATUS || code == CLOSE_ABNORMAL,
        None => false, // "replay", "broken": the carrier ended it
    };
    match r.first_message_ms {
        None => path_like || end == "replay" || end == "broken",
        Some(first) => path_like && ended - first < DEMOTION_WINDOW_MS,
    }
}

/// After a demotion (a QUIC session whose path dropped within a minute of its
/// first message, or that ended before it) the WebSocket goes first on that
/// network for a day.
pub fn demoted_goes_ws_first(s: &SessionSummary) -> Check {
    let day_ms = ftw_phone::consts::DEMOTION_MS;
    let mut bad = Vec::new();
    let mut demotions = 0;
    for d in s.phone.sessions.iter().filter(|r| should_demote(r)) {
        demotions += 1;
        let ended = d.ended_at_ms.expect("ended");
        for r in s.phone.sessions.iter().filter(|r| r.network == d.network && r.race_start_ms >= ended && r.race_start_ms < ended + day_ms) {
            if r.first != ftw_phone::Transport::WebSocket {
                bad.push(format!("session #{} ended {:?} at {ended} ms; the race at {} ms went {} first", d.no, d.end, r.race_start_ms, r.first.name()));
            }
        }
    }
    Check {
        property: "demoted-goes-ws-first".into(),
        ok: bad.is_empty(),
        detail: format!("{demotions} sessions should demote QUIC; {}", bad.first().cloned().unwrap_or_default()),
    }
}

/// A tap gets cmd.ack then cmd.result, echoing its id.
pub fn cmd_round_trip(s: &SessionSummary) -> Check {
    // In order, unless the relay held a message back behind later ones.
    let reordered = s.cloud.held > 0;
    let done = s.phone.cmds.iter().find(|c| matches!((c.ack, c.result), (Some((a, true)), Some((r, true))) if a <= r || reordered));
    Check {
        property: "cmd-round-trip".into(),
        ok: done.is_some(),
        detail: format!("commands: {:?}", s.phone.cmds),
    }
}

/// A lost live shows as a gap, never as a value.
pub fn live_gap_not_value(s: &SessionSummary) -> Check {
    Check {
        property: "live-gap-not-value".into(),
        ok: s.phone.gap_breaches.is_empty(),
        detail: format!("{} gaps shown; breaches: {:?}", s.phone.gaps_seen, s.phone.gap_breaches.iter().take(3).collect::<Vec<_>>()),
    }
}

/// The cloud never sees the session's plaintext.
pub fn blind_relay(s: &SessionSummary) -> Check {
    let seen: Vec<&str> = SECRETS.iter().copied().filter(|p| s.cloud.saw(p.as_bytes())).collect();
    Check {
        property: "blind-relay".into(),
        ok: seen.is_empty() && !s.cloud.handled.is_empty(),
        detail: format!("the cloud handled {} messages; plaintext seen: {seen:?}", s.cloud.handled.len()),
    }
}

/// After the faults heal, the phone streams again within [`HEAL_BOUND`].
pub fn streams_after_heal(s: &SessionSummary, heal: Duration) -> Check {
    let from = heal.as_millis() as u64;
    let to = from + HEAL_BOUND.as_millis() as u64;
    let first = s.phone.delivered_ms.iter().find(|t| **t >= from).copied();
    Check {
        property: "streams-after-heal".into(),
        ok: first.is_some_and(|t| t <= to),
        detail: format!("faults healed at {from} ms; first message after: {first:?} (bound {} ms)", HEAL_BOUND.as_millis()),
    }
}

/// `unpaired`: a phone the cloud does not know gets 4403 and no byte of box data.
pub fn run_unpaired(spec: &RunSpec) -> RunReport {
    run_short(spec, Setup { paired: false, ..Setup::default() }).0
}

/// `sessions-off`: the door finishes the handshake and closes with 1013; QUIC is not demoted.
pub fn run_sessions_off(spec: &RunSpec) -> RunReport {
    run_short(spec, Setup { sessions_enabled: false, ..Setup::default() }).0
}

/// How long `run_short`'s phone waits for the door to end its first session.
/// Not a fixed 10 s: under 14 % loss and 77 ms +- 37 ms each way, QUIC's backed-off
/// probes took the control stream past 10 s, and the app closed first
/// (corpus/sessions-off-slow-lossy-leg.toml).
const SHORT_BOUND: Duration = Duration::from_secs(60);

/// A phone that connects once and listens until the door ends its first
/// session (or SHORT_BOUND).
pub fn run_short(spec: &RunSpec, setup: Setup) -> (RunReport, SessionSummary) {
    let (mut world, shared) = build(spec, &setup, SHORT_BOUND + Duration::from_secs(60));
    let sh = shared.clone();
    let sp = spec.clone();
    world.client("phone", addr::PHONE, async move {
        let mut phone = phone_app(&sp).await?;
        sh.borrow_mut().phone = Some(phone.log.clone());
        time::sleep(Duration::from_millis(500)).await;
        if phone.connect(network_at(&sp.plan, time::now())).await {
            let log = phone.log.clone();
            let first_ended = || log.borrow().sessions.first().is_some_and(|r| r.end.is_some());
            while !first_ended() && time::now() < SHORT_BOUND {
                let next = (time::now() + Duration::from_secs(1)).min(SHORT_BOUND);
                phone.run_until(next).await;
            }
        }
        phone.close();
        sh.borrow_mut().memory = Some(phone.race().with_model(|m| m.memory().clone()));
        time::sleep(Duration::from_millis(300)).await;
        Ok(())
    });
    let outcome = world.run();
    let s = summary(spec, &shared);
    let ends: Vec<Option<String>> = s.phone.sessions.iter().map(|r| r.end.clone()).collect();
    let net = network_at(&spec.plan, Duration::ZERO);
    let demoted = s.memory.as_ref().and_then(|m| m.get(&net)).and_then(|e| e.quic_demoted_at_ms);
    let checks = if setup.paired {
        vec![
            Check { property: "sessions-off-1013".into(), ok: ends.first() == Some(&Some("code 1013".into())) && s.phone.lives.is_empty(), detail: format!("sessions ended {ends:?}") },
            Check { property: "service-close-keeps-quic".into(), ok: demoted.is_none(), detail: format!("QUIC demoted at {demoted:?} ms after a 1013") },
        ]
    } else {
        vec![
            Check { property: "unpaired-4403".into(), ok: ends.first() == Some(&Some("code 4403".into())), detail: format!("sessions ended {ends:?}") },
            Check {
                property: "no-box-bytes".into(),
                ok: s.phone.delivered_ms.is_empty() && s.box_stats.sessions_opened == 0 && s.cloud_stats.relayed_to_phone == 0,
                detail: format!("{} messages delivered, box sessions {}, relayed to phone {}", s.phone.delivered_ms.len(), s.box_stats.sessions_opened, s.cloud_stats.relayed_to_phone),
            },
            Check { property: "service-close-keeps-quic".into(), ok: demoted.is_none(), detail: format!("QUIC demoted at {demoted:?} ms after a 4403") },
        ]
    };
    (RunReport { outcome, checks }, s)
}
