//! The cloud's QUIC door as a fleet of reactors (SPEC section 5).
//!
//! * `fleet-migrate`: a phone behind its Wi-Fi NAT talks to the cloud's echo
//!   service through a fleet of 4 reactors on one port; its NAT rebinds and it
//!   moves to cellular (the plan's faults, or by default a rebind at 3 s, Wi-Fi
//!   to cellular at 6 s and a rebind at 9 s). Each move re-hashes it to some
//!   reactor; the same connection must carry on, forwarded and then pinned.
//! * `fleet-still`: a phone and a box that never move: the fleet forwards
//!   nothing and pins nothing.
//! * `fleet-resume`: the cloud closes the box's connection with 4408; the box
//!   reconnects (from a new socket) with 0-RTT and its first flight is answered
//!   in one round trip; the phone makes a full handshake.

use crate::drive::build::{client_config, client_config_with, client_endpoint_config, fleet_config, FleetRun, FLEET_TARGET};
use crate::drive::rig::Rig;
use std::cell::RefCell;
use std::rc::Rc;
use std::time::Duration;

use bytes::BytesMut;
use ftw_crypto::{new_client_session_store, ClientResumption, QuicTransportParams};
use ftw_fleet::{Counters, Routing};

use super::def::{RunReport, ScenarioDef};
use crate::drive::fleet::{DoorStats, FleetDoor};
use crate::drive::link::{accept_quic, close, dial_quic, put_varint, take_framed, LinkEvent};
use crate::drive::quic::{Lost, QuicEndpoint, QuicEvent};
use crate::kinds;
use crate::law::idle_out;
use crate::law::laws;
use crate::law::reference;
use crate::law::{Check, NO_PANIC};
use crate::law_list;
use crate::world::domain::{Domain, Kind, IMPAIRMENTS, MOVES};
use crate::world::host::addr;
use crate::world::host::Host;
use crate::world::host::{BOX, CLOUD, PHONE};
use crate::world::plan::kind;
use crate::world::plan::{FaultKind, FaultPlan, TimedFault};
use crate::world::switch::Switch;
use crate::world::time;
use crate::world::topology::RunSpec;
use crate::world::trace;

/// The phone's round: one stream message and this many datagrams, every second.
pub const BURST_LEN: usize = 3;
/// Bytes of each datagram of a burst (each fills most of a QUIC packet, so a
/// burst is several UDP datagrams arriving together).
pub const BURST_DATAGRAM_BYTES: usize = 900;
/// Rounds the phone sends.
pub const ROUNDS: usize = 12;
const INTERVAL: Duration = Duration::from_secs(1);
/// After a move the owner's sweep (every 250 ms) claims a pin once the path
/// settles; forwards later than this after the move mean forwarding never stopped.
pub const SETTLE_MS: u64 = 1_000;
/// The service's target on the control stream.
const TARGET: &str = FLEET_TARGET;
/// The phone's target in `fleet-resume` (tells its connection from the box's).
const PHONE_TARGET: &str = "/app?box=fleet&phone=1";

/// What a fleet run saw, for tests that look closer than the checks.
#[derive(Clone, Debug, Default)]
pub struct FleetSummary {
    /// Connections the cloud accepted: (reactor, handle id).
    pub accepted: Vec<(usize, usize)>,
    pub echoes: Vec<String>,
    pub phone_lost: Option<String>,
    pub totals: Counters,
    /// Read by the tests.
    #[cfg_attr(not(test), allow(dead_code))]
    pub per_reactor: Vec<Counters>,
    pub stats: DoorStats,
    pub moves_planned: usize,
    /// Handshakes a client lost to its own move and dialled again (a QUIC client
    /// keeps its address until the handshake is confirmed, RFC 9000 section 9;
    /// the server drops a handshake packet from a new address).
    pub redials: usize,
    /// Moves a handshake crossed, whether it then succeeded or was lost: each can
    /// have sent the host's Initial to one more reactor, which answered it.
    pub moved_handshakes: usize,
}

#[derive(Default)]
struct Tally {
    door: Option<FleetDoor>,
    accepted: Vec<(usize, usize)>,
    echoes: Vec<String>,
    phone_lost: Option<String>,
    box_done: bool,
    redials: usize,
    moved_handshakes: usize,
}

/// How long past its last send and the plan's outages a client waits for its echoes.
pub const PATIENCE: Duration = crate::drive::build::FLEET_CLIENT_PATIENCE;

/// How many times a client dials before it gives up on handshakes lost to moves.
const DIALS_MAX: usize = 4;

/// Dial the cloud's door, and dial again when the handshake failed while the
/// host moved (a NAT rebind or a network switch of `host` in the plan between
/// the dial's start and its failure): the app's reconnect, which the laws count.
/// Any other failure is returned.
async fn dial_through_moves(
    host: &str,
    ep: &QuicEndpoint,
    client: &quinn_proto::ClientConfig,
    moves_ms: &[u64],
    t: &Rc<RefCell<Tally>>,
) -> Result<crate::drive::link::Link, String> {
    let mut dials = 0;
    loop {
        let from = time::now().as_millis() as u64;
        dials += 1;
        match dial_quic(ep, client.clone(), addr::cloud_door(), ftw_crypto::consts::CLOUD_SERVER_NAME, TARGET).await {
            // Each move in a handshake, whatever becomes of it, may have sent its
            // host's Initial to another reactor (long headers stay where the
            // kernel's hash puts them), which then answered an Initial of its own:
            // one more handshake at the door (corpus/fleet-still-move-in-handshake.toml;
            // a handshake lost after it: corpus/fleet-migrate-lost-handshake-crossed-moves-9902830406596968404.toml).
            Ok(l) => {
                t.borrow_mut().moved_handshakes += moves_in(moves_ms, from);
                return Ok(l);
            }
            Err(e) => {
                let crossed = moves_in(moves_ms, from);
                if dials < DIALS_MAX && crossed > 0 {
                    trace::record(host, "app.redial", format!("handshake lost to a move: {e:?}"));
                    let mut t = t.borrow_mut();
                    t.redials += 1;
                    t.moved_handshakes += crossed;
                    continue;
                }
                return Err(format!("dial: {e:?}"));
            }
        }
    }
}

/// How many of `moves_ms` fall between `from` (ms) and now.
fn moves_in(moves_ms: &[u64], from: u64) -> usize {
    let to = time::now().as_millis() as u64;
    moves_ms.iter().filter(|m| (from..=to).contains(m)).count()
}

/// The times (ms) of the plan's moves of `host`.
fn moves_of(plan: &FaultPlan, host: Host) -> Vec<u64> {
    plan.address_changes_ms(host)
}

/// The default moves: a rebind, Wi-Fi to cellular, a rebind.
pub fn default_moves() -> Vec<TimedFault> {
    let phone = || Host::Phone;
    vec![
        TimedFault { at_ms: 3_000, fault: FaultKind::Rebind(kind::Rebind { host: phone() }) },
        TimedFault { at_ms: 6_000, fault: FaultKind::SwitchNetwork(kind::SwitchNetwork { host: phone() }) },
        TimedFault { at_ms: 9_000, fault: FaultKind::Rebind(kind::Rebind { host: phone() }) },
    ]
}

/// The laws of a fleet echo (`fleet-migrate`, its kernel-filter variant,
/// `fleet-still`): the same connection through moves, long headers kept, the
/// owner reading what was sent, pins and forwarding as SPEC section 5 says.
const FLEET_ECHO_LAWS: &[&crate::law::Law] = &[
    &laws::SAME_CONNECTION,
    &laws::LONG_HEADERS_STAY,
    &laws::OWNER_READS_WHAT_WAS_SENT,
    &laws::ONE_PIN_PER_MOVE,
    &laws::FORWARDING_STOPS_AFTER_PIN,
    &laws::KERNEL_FILTER_FORWARDS_NOTHING,
];

/// `fleet-migrate`.
pub fn run(spec: &RunSpec) -> RunReport {
    run_with(spec, &FleetRun::default()).0
}

/// `fleet-migrate` with the kernel filter.
pub fn run_kernel_filter(spec: &RunSpec) -> RunReport {
    run_with(spec, &FleetRun { routing: Routing::KernelFilter, ..FleetRun::default() }).0
}

/// `fleet-still`.
pub fn run_still(spec: &RunSpec) -> RunReport {
    run_with(spec, &FleetRun { default_moves: false, with_box: true, ..FleetRun::default() }).0
}

/// What a fleet run's plan asks: its faults (the default moves if it has none and
/// the run wants them), how many moves, when the last outage ends, each client's moves.
struct FleetPlan {
    plan: FaultPlan,
    moves_planned: usize,
    outages_end: Duration,
    phone_moves: Vec<u64>,
    box_moves: Vec<u64>,
}

fn fleet_plan(spec: &RunSpec, run: &FleetRun) -> FleetPlan {
    let mut plan: FaultPlan = spec.plan.clone();
    if plan.faults.is_empty() && run.default_moves {
        plan.faults = default_moves();
    }
    let moves_planned =
        plan.faults.iter().filter(|f| matches!(f.fault, FaultKind::Rebind(kind::Rebind { .. }) | FaultKind::SwitchNetwork(kind::SwitchNetwork { .. }))).count();
    let outages_end = plan
        .faults
        .iter()
        .filter(|f| f.fault.def().outage().is_some())
        .map(|f| Duration::from_millis(f.at_ms + f.fault.def().lasts_ms()))
        .max()
        .unwrap_or_default();
    let (phone_moves, box_moves) = (moves_of(&plan, Host::Phone), moves_of(&plan, Host::Box));
    FleetPlan { plan, moves_planned, outages_end, phone_moves, box_moves }
}

/// A fleet run: the report and a summary.
pub fn run_with(spec: &RunSpec, run: &FleetRun) -> (RunReport, FleetSummary) {
    let run = &run.shaped_by(&spec.plan);
    let fp = fleet_plan(spec, run);
    let mut world = Rig::with_plan(spec, &fp.plan, (INTERVAL * ROUNDS as u32).max(fp.outages_end) + PATIENCE * 2 + Duration::from_secs(60));
    let seed = spec.seed;
    let tally = Rc::new(RefCell::new(Tally::default()));
    host_echo_cloud(&mut world, seed, fleet_config(seed, spec, run), &tally);
    if run.with_box {
        host_box(&mut world, seed, fp.box_moves.clone(), &tally);
    }
    let t = tally.clone();
    let (phone_moves, outages_end) = (fp.phone_moves.clone(), fp.outages_end);
    world.client(PHONE, addr::PHONE, async move { phone_echoes(seed, &phone_moves, outages_end, &t).await });
    let outcome = world.run();
    let summary = summarize(&tally.borrow(), fp.moves_planned);
    let checks = judge_fleet(run, &summary, &outcome);
    (RunReport::new(outcome, checks), summary)
}

/// The cloud: the fleet's door, echoing every message and datagram on each connection.
fn host_echo_cloud(rig: &mut Rig, seed: crate::world::seed::RunSeed, cfg: ftw_fleet::FleetConfig, tally: &Rc<RefCell<Tally>>) {
    let on_door = {
        let t = tally.clone();
        move |door: &FleetDoor| t.borrow_mut().door = Some(door.clone())
    };
    let t = tally.clone();
    rig.cloud_fleet(seed, cfg, on_door, move |r, conn| {
        t.borrow_mut().accepted.push((r, conn.id()));
        trace::record(CLOUD, "app.accept", format!("r{r} h={}", conn.id()));
        async move {
            let Ok((mut link, _target)) = accept_quic(conn).await else { return };
            loop {
                match link.recv().await {
                    LinkEvent::Message(m) => {
                        let _ = link.send(&m);
                    }
                    LinkEvent::Datagram(d) => {
                        let _ = link.send_datagram(&d);
                    }
                    LinkEvent::Closed(_) => break,
                }
            }
        }
    });
}

/// The box: a datagram a second through its own moves, then idle.
fn host_box(world: &mut crate::world::World, seed: crate::world::seed::RunSeed, box_moves: Vec<u64>, tally: &Rc<RefCell<Tally>>) {
    let t = tally.clone();
    world.host(BOX, addr::BOX, move || {
        let (t, box_moves) = (t.clone(), box_moves.clone());
        async move {
            let client = client_config(seed, BOX);
            let ep = QuicEndpoint::bind(BOX, "0.0.0.0:0".parse().expect("addr"), client_endpoint_config(seed, BOX, 0), None).await?;
            let mut link = dial_through_moves(BOX, &ep, &client, &box_moves, &t).await?;
            for i in 0..ROUNDS {
                link.send_datagram(format!("hb{i}").as_bytes())?;
                time::sleep(INTERVAL).await;
            }
            t.borrow_mut().box_done = true;
            std::future::pending::<()>().await;
            Ok(())
        }
    });
}

/// The phone's round `sent`: one stream message and a burst of datagrams.
fn send_round(link: &mut crate::drive::link::Link, sent: usize) -> Result<(), String> {
    let msg = format!("m{sent}");
    link.send(msg.as_bytes())?;
    for j in 0..BURST_LEN {
        let mut d = format!("d{sent}.{j}:").into_bytes();
        d.resize(BURST_DATAGRAM_BYTES, b'.');
        let _ = link.send_datagram(&d);
    }
    trace::record(PHONE, "app.send", msg);
    Ok(())
}

/// The phone: a round a second until every echo is back, dialling again when a
/// move lost the connection before its first echo; what it saw goes to the tally.
async fn phone_echoes(seed: crate::world::seed::RunSeed, phone_moves: &[u64], outages_end: Duration, t: &Rc<RefCell<Tally>>) -> turmoil::Result {
    let client = client_config(seed, PHONE);
    let ep = QuicEndpoint::bind(PHONE, "0.0.0.0:0".parse().expect("addr"), client_endpoint_config(seed, PHONE, 0), None).await?;
    let mut dialled_at = time::now().as_millis() as u64;
    let mut link = match dial_through_moves(PHONE, &ep, &client, phone_moves, t).await {
        Ok(l) => l,
        Err(e) => {
            t.borrow_mut().phone_lost = Some(e);
            return Ok(());
        }
    };
    let start = time::now();
    let mut next_send = start;
    // Give up only once every outage of the plan is over and QUIC's backed-off
    // probes have had their chance: PATIENCE, not the 30 s idle timeout, since a
    // connection that still hears its peer never idles out, and at 14 % loss and
    // 430 ms round trips the doubled PTOs after a blackhole passed 25 s
    // (corpus/fleet-migrate-lossy-backoff-past-25s.toml).
    let mut give_up = (start + INTERVAL * ROUNDS as u32).max(outages_end) + PATIENCE;
    let mut sent = 0;
    while t.borrow().echoes.len() < ROUNDS {
        if sent < ROUNDS && time::now() >= next_send {
            send_round(&mut link, sent)?;
            sent += 1;
            next_send += INTERVAL;
        }
        let wake = if sent < ROUNDS { next_send.min(give_up) } else { give_up };
        let ev = tokio::select! {
            biased;
            ev = link.recv() => ev,
            _ = time::sleep_until(wake) => {
                if time::now() >= give_up {
                    t.borrow_mut().phone_lost = Some(format!("gave up with {} of {ROUNDS} echoes", t.borrow().echoes.len()));
                    break;
                }
                continue;
            }
        };
        match ev {
            LinkEvent::Message(m) => {
                let m = String::from_utf8_lossy(&m).into_owned();
                trace::record(PHONE, "app.echo", m.clone());
                t.borrow_mut().echoes.push(m);
            }
            LinkEvent::Datagram(_) => {}
            LinkEvent::Closed(c) => {
                let now_ms = time::now().as_millis() as u64;
                let Some(l) = redial_after_move(&ep, &client, (phone_moves, dialled_at, now_ms), t, &c).await else { break };
                (link, dialled_at, sent, next_send) = (l, now_ms, 0, time::now());
                give_up = give_up.max(next_send + INTERVAL * ROUNDS as u32 + PATIENCE);
            }
        }
    }
    link.close(close::NORMAL, "done");
    time::sleep(Duration::from_millis(200)).await;
    Ok(())
}

/// The phone's connection closed (`c`) at `now_ms`. The client's handshake was
/// done but not yet the server's (its Finished lost) when the phone moved: the
/// server drops packets from a new address until it confirms the handshake (RFC 9000
/// section 9), and the connection dies before any echo
/// (corpus/fleet-migrate-move-before-confirmed.toml). The app dials again (the laws
/// count it): the new link; otherwise the loss is noted and there is none.
async fn redial_after_move(
    ep: &QuicEndpoint,
    client: &quinn_proto::ClientConfig,
    (phone_moves, dialled_at, now_ms): (&[u64], u64, u64),
    t: &Rc<RefCell<Tally>>,
    c: &crate::drive::link::CloseInfo,
) -> Option<crate::drive::link::Link> {
    let moved = phone_moves.iter().any(|m| (dialled_at..=now_ms).contains(m));
    if !(t.borrow().echoes.is_empty() && moved && t.borrow().redials < DIALS_MAX) {
        t.borrow_mut().phone_lost = Some(format!("closed: {c:?}"));
        return None;
    }
    trace::record(PHONE, "app.redial", format!("connection lost to a move before its first echo: {c:?}"));
    t.borrow_mut().redials += 1;
    match dial_through_moves(PHONE, ep, client, phone_moves, t).await {
        Ok(l) => Some(l),
        Err(e) => {
            t.borrow_mut().phone_lost = Some(e);
            None
        }
    }
}

/// The run's summary from the tally and the door's counters (recorded in the trace).
fn summarize(t: &Tally, moves_planned: usize) -> FleetSummary {
    let door = t.door.clone().expect("the cloud started");
    door.record_counters("fleet.counters");
    FleetSummary {
        accepted: t.accepted.clone(),
        echoes: t.echoes.clone(),
        phone_lost: t.phone_lost.clone(),
        totals: door.totals(),
        per_reactor: (0..door.reactor_count()).map(|r| door.counters(r)).collect(),
        stats: door.stats(),
        moves_planned,
        redials: t.redials,
        moved_handshakes: t.moved_handshakes,
    }
}

/// The fleet's laws over a run's summary.
fn judge_fleet(run: &FleetRun, s: &FleetSummary, outcome: &crate::world::RunOutcome) -> Vec<Check> {
    let expected: Vec<String> = (0..ROUNDS).map(|i| format!("m{i}")).collect();
    let clients = 1 + usize::from(run.with_box);
    let handshakes_ok = (clients + s.redials..=clients + s.redials + s.moved_handshakes).contains(&s.accepted.len());
    let whole = s.phone_lost.is_none() && s.echoes == expected;
    // A phone connection that idled out after the network lost every answer
    // the cloud sent it is QUIC keeping its rules (RFC 9000 section 10.1):
    // the echoes before it must still be the first ones, in order
    // (corpus/fleet-migrate-blackhole-lossy-acks-lost-idle-out.toml).
    let in_order = expected.starts_with(&s.echoes);
    let excuse =
        (handshakes_ok && !whole && in_order).then(|| idle_out::excused(&outcome.fates, &outcome.idle_outs, &outcome.rig_paths, addr::PHONE)).flatten();
    let mut checks = vec![
        Check {
            law: &laws::SAME_CONNECTION,
            ok: handshakes_ok && (whole || excuse.as_ref().is_some_and(|e| e.is_ok())),
            detail: format!(
                "accepted {:?} (want {clients}, {} handshakes lost to a move, up to {} more from handshakes a move crossed), phone lost: {:?}, echoes {:?}{}",
                s.accepted,
                s.redials,
                s.moved_handshakes,
                s.phone_lost,
                s.echoes,
                idle_out::describe(&excuse)
            ),
        },
        Check {
            law: &laws::LONG_HEADERS_STAY,
            ok: s.stats.long_headers_forwarded == 0,
            detail: format!("{} long-header datagrams were forwarded by their client-chosen byte 0", s.stats.long_headers_forwarded),
        },
        Check {
            law: &laws::OWNER_READS_WHAT_WAS_SENT,
            ok: s.stats.corrupt_reads == 0,
            detail: format!("{} reads differed from the datagram that arrived", s.stats.corrupt_reads),
        },
    ];
    checks.extend(routing_checks(run.routing, s, outcome.sim_elapsed.as_millis() as u64));
    if !run.default_moves && s.moves_planned == 0 {
        checks.push(still_check(s));
    }
    checks
}

/// The laws of the fleet's routing: forwarding then one pin a move, or (the kernel
/// filter) nothing forwarded.
fn routing_checks(routing: Routing, s: &FleetSummary, end_ms: u64) -> Vec<Check> {
    let moves = s.stats.moves.len() as u64;
    // A move is pinned at the first sweep after it, if its connection still
    // lives then: not one seen in the run's last moments
    // (corpus/fleet-still-move-at-the-end.toml), nor one whose connection ended
    // first (corpus/rig-fleet-still-one-pin-per-move-13000126982.toml). The
    // sweep is at most PIN_SWEEP_MS after the move and must come strictly
    // before the end: a timer due at the run's last instant fires as the run
    // stops, and its task never runs (fresh seeds 13870000000:
    // corpus/fleet-migrate-sweep-due-at-the-end-13870153974.toml).
    let moves_swept = s.stats.moves.iter().filter(|m| m.at_ms + crate::law::spec::PIN_SWEEP_MS < m.ended_ms.unwrap_or(end_ms).min(end_ms)).count();
    match routing {
        Routing::Forward => {
            let pin = Check {
                law: &laws::ONE_PIN_PER_MOVE,
                ok: s.totals.pins_created <= moves && (moves_swept == 0 || s.totals.pins_created >= 1),
                detail: format!(
                    "{} pins for {moves} address changes, {moves_swept} with a sweep before the end ({} path reports)",
                    s.totals.pins_created, s.stats.path_reports
                ),
            };
            let late: Vec<u64> =
                s.stats.forward_times_ms.iter().copied().filter(|&f| !s.stats.moves.iter().any(|m| m.at_ms <= f + 1 && f <= m.at_ms + SETTLE_MS)).collect();
            let stops = Check {
                law: &laws::FORWARDING_STOPS_AFTER_PIN,
                ok: late.is_empty(),
                // Strays (stateless resets, retired ids) are not a client's packets
                // (corpus/fleet-migrate-stateless-reset-forwarded.toml), nor are
                // forged copies from an address never adopted
                // (corpus/fleet-migrate-forged-copy-lost-the-race.toml), nor the late
                // packets of a connection that ended and released its pin, as SPEC
                // section 5 says it must (corpus/fleet-still-forward-after-close.toml).
                detail: format!(
                    "{} forwards ({} strays, {} forged copies, {} after their connection ended), {} not within {SETTLE_MS} ms after a move (first at {:?} ms); moves at {:?}",
                    s.totals.forwards_sent,
                    s.stats.stray_forward_times_ms.len(),
                    s.stats.forged_forward_times_ms.len(),
                    s.stats.ended_forward_times_ms.len(),
                    late.len(),
                    late.first(),
                    s.stats.moves.iter().map(|m| m.at_ms).collect::<Vec<_>>()
                ),
            };
            vec![pin, stops]
        }
        Routing::KernelFilter => vec![Check {
            law: &laws::KERNEL_FILTER_FORWARDS_NOTHING,
            ok: s.totals.forwards_sent == 0 && s.totals.pins_created == 0,
            detail: format!("{} forwards, {} pins", s.totals.forwards_sent, s.totals.pins_created),
        }],
    }
}

/// A fleet whose clients never moved forwards none of their packets and pins nothing.
fn still_check(s: &FleetSummary) -> Check {
    Check {
        law: &laws::STILL_FLEET_QUIET,
        // Strays are not the clients' packets: a client's stateless reset for
        // a reordered packet to an id it retired is a short header of random
        // bytes, routed by its random first byte, forwarded or dropped as
        // stale (corpus/fleet-still-stateless-resets.toml). Nor are a stranger's
        // (plan kind `strangers`): a packet carrying a client's id from an address
        // no connection ever had is forwarded to the id's owner as SPEC section 5
        // says, and dropped there. What a still fleet must not do is forward a
        // client's packet (from a client's address) or pin anything.
        ok: s.stats.forward_times_ms.is_empty() && s.stats.ended_forward_times_ms.is_empty() && s.totals.pins_created == 0 && s.stats.moves.is_empty(),
        detail: format!(
            "clients never moved: {} ({} forwards and the stale drops were strays, {} forwards from addresses no connection had)",
            counters_short(&s.totals),
            s.stats.stray_forward_times_ms.len(),
            s.stats.forged_forward_times_ms.len()
        ),
    }
}

fn counters_short(c: &Counters) -> String {
    format!("ForwardsSent={} PinsCreated={} StaleDatagrams={}", c.forwards_sent, c.pins_created, c.stale_datagrams)
}

/// What `fleet-resume` saw.
#[derive(Clone, Debug, Default)]
pub struct ResumeSummary {
    pub box_close: Option<Lost>,
    /// The box's reconnect: had 0-RTT keys at connect, the cloud accepted them,
    /// and ms from connect to the first reply.
    pub box_had_0rtt: bool,
    pub box_accepted_0rtt: bool,
    pub box_first_reply_ms: Option<u64>,
    pub phone_had_0rtt: bool,
    pub phone_first_reply_ms: Option<u64>,
    /// Reactors that accepted the box's two connections.
    pub box_reactors: Vec<usize>,
}

#[derive(Default)]
struct ResumeTally {
    sum: ResumeSummary,
    accepted: Vec<(usize, String)>,
}

/// Open the control stream at once (0-RTT when the session allows) with the
/// target and one message; the ms until the first message comes back.
async fn first_reply_ms(ep: &QuicEndpoint, config: quinn_proto::ClientConfig, target: &str, msg: &str) -> Result<(bool, bool, u64), String> {
    let t0 = time::now();
    let conn = ep.connect(config, addr::cloud_door(), ftw_crypto::consts::CLOUD_SERVER_NAME)?;
    let had_0rtt = conn.has_0rtt();
    let control = if had_0rtt { Some(conn.open_bi().ok_or("no 0-RTT stream")?) } else { None };
    let mut out = BytesMut::new();
    for part in [target, msg] {
        put_varint(&mut out, part.len() as u64);
        out.extend_from_slice(part.as_bytes());
    }
    if let Some(s) = control {
        conn.write(s, &out)?;
    }
    let mut buf = BytesMut::new();
    loop {
        match conn.next_event().await {
            QuicEvent::Connected if control.is_none() => {
                let s = conn.open_bi().ok_or("no stream")?;
                conn.write(s, &out)?;
            }
            QuicEvent::Data { data, .. } => {
                buf.extend_from_slice(&data);
                if take_framed(&mut buf).is_some() {
                    let ms = (time::now() - t0).as_millis() as u64;
                    let accepted = conn.accepted_0rtt();
                    conn.close(close::NORMAL as u32, "done");
                    return Ok((had_0rtt, accepted, ms));
                }
            }
            QuicEvent::Lost(l) => return Err(format!("lost: {l:?}")),
            _ => {}
        }
    }
}

/// `fleet-resume`.
pub fn run_resume(spec: &RunSpec) -> RunReport {
    run_resume_with(spec).0
}

/// `fleet-resume`, with what it saw.
pub fn run_resume_with(spec: &RunSpec) -> (RunReport, ResumeSummary) {
    let mut world = Rig::new(spec, Duration::from_secs(60));
    let seed = spec.seed;
    let cfg = fleet_config(seed, spec, &FleetRun::default().shaped_by(&spec.plan));
    let tally = Rc::new(RefCell::new(ResumeTally::default()));
    host_resume_cloud(&mut world, seed, cfg, &tally);
    host_resume_phone(&mut world, seed, &tally);
    let t = tally.clone();
    world.client(BOX, addr::BOX, async move { box_resumes(seed, &t).await });
    let outcome = world.run();
    let mut t = tally.borrow_mut();
    t.sum.box_reactors = t.accepted.iter().filter(|(_, target)| target == TARGET).map(|(r, _)| *r).collect();
    let s = t.sum.clone();
    drop(t);
    let checks = judge_resume(spec, &s);
    (RunReport::new(outcome, checks), s)
}

/// The cloud of `fleet-resume`: echoes, and ends the box's first session with 4408.
fn host_resume_cloud(rig: &mut Rig, seed: crate::world::seed::RunSeed, cfg: ftw_fleet::FleetConfig, tally: &Rc<RefCell<ResumeTally>>) {
    let t = tally.clone();
    rig.cloud_fleet(
        seed,
        cfg,
        |_| {},
        move |r, conn| {
            let t = t.clone();
            async move {
                let Ok((mut link, target)) = accept_quic(conn).await else { return };
                t.borrow_mut().accepted.push((r, target));
                while let LinkEvent::Message(m) = link.recv().await {
                    let _ = link.send(&m);
                    if &m[..] == b"first" {
                        // The service ends the box's first session (time-out code).
                        time::sleep(Duration::from_secs(1)).await;
                        link.close(close::TIMED_OUT, "session over");
                    }
                }
            }
        },
    );
}

/// The phone of `fleet-resume`: one full handshake (no ticket), timed to its first reply.
fn host_resume_phone(world: &mut crate::world::World, seed: crate::world::seed::RunSeed, tally: &Rc<RefCell<ResumeTally>>) {
    let t = tally.clone();
    world.host(PHONE, addr::PHONE, move || {
        let t = t.clone();
        async move {
            let client = client_config(seed, PHONE);
            let ep = QuicEndpoint::bind(PHONE, "0.0.0.0:0".parse().expect("addr"), client_endpoint_config(seed, PHONE, 0), None).await?;
            time::sleep(Duration::from_millis(300)).await;
            let (had, _, ms) = first_reply_ms(&ep, client, PHONE_TARGET, PHONE).await?;
            trace::record(PHONE, "app.first-reply", format!("{ms} ms, 0-RTT keys: {had}"));
            {
                let mut t = t.borrow_mut();
                t.sum.phone_had_0rtt = had;
                t.sum.phone_first_reply_ms = Some(ms);
            }
            std::future::pending::<()>().await;
            Ok(())
        }
    });
}

/// The box of `fleet-resume`: its first session until the cloud ends it, then a
/// restart from a new socket with the same session store, timed to its first reply.
async fn box_resumes(seed: crate::world::seed::RunSeed, t: &Rc<RefCell<ResumeTally>>) -> turmoil::Result {
    let client = client_config_with(seed, BOX, ClientResumption::Store(new_client_session_store()), &QuicTransportParams::default());
    let ep = QuicEndpoint::bind(BOX, "0.0.0.0:0".parse().expect("addr"), client_endpoint_config(seed, BOX, 0), None).await?;
    let conn = ep.connect(client.clone(), addr::cloud_door(), ftw_crypto::consts::CLOUD_SERVER_NAME)?;
    let mut out = BytesMut::new();
    for part in [TARGET, "first"] {
        put_varint(&mut out, part.len() as u64);
        out.extend_from_slice(part.as_bytes());
    }
    let lost = loop {
        match conn.next_event().await {
            QuicEvent::Connected => {
                let s = conn.open_bi().ok_or("no stream")?;
                conn.write(s, &out)?;
            }
            QuicEvent::Lost(l) => break l,
            _ => {}
        }
    };
    trace::record(BOX, "app.closed", format!("{lost:?}"));
    t.borrow_mut().sum.box_close = Some(lost);
    time::sleep(Duration::from_millis(500)).await;
    // The box restarts its app: a new socket, the same session store.
    let ep2 = QuicEndpoint::bind(BOX, "0.0.0.0:0".parse().expect("addr"), client_endpoint_config(seed, BOX, 1), None).await?;
    let (had, accepted, ms) = first_reply_ms(&ep2, client, TARGET, "again").await?;
    trace::record(BOX, "app.first-reply", format!("{ms} ms, 0-RTT keys: {had}, accepted: {accepted}"));
    {
        let mut t = t.borrow_mut();
        t.sum.box_had_0rtt = had;
        t.sum.box_accepted_0rtt = accepted;
        t.sum.box_first_reply_ms = Some(ms);
    }
    time::sleep(Duration::from_millis(200)).await;
    Ok(())
}

/// `fleet-resume`'s laws over its summary.
fn judge_resume(spec: &RunSpec, s: &ResumeSummary) -> Vec<Check> {
    let rtt_ms = spec.plan.box_.one_way_ms * 2;
    let phone_rtt_ms = spec.plan.phone.one_way_ms * 2;
    vec![
        Check {
            law: &laws::CLOSE_CODE_ARRIVES,
            ok: s.box_close == Some(Lost::Closed { code: close::TIMED_OUT as u64, by_peer: true }),
            detail: format!("the box saw {:?}", s.box_close),
        },
        Check {
            law: &laws::BOX_RESUMES_0RTT,
            ok: s.box_had_0rtt && s.box_accepted_0rtt && s.box_first_reply_ms.is_some_and(|ms| ms < rtt_ms + rtt_ms / 2),
            detail: format!(
                "0-RTT keys {}, accepted {}, first reply after {:?} ms (one round trip: {rtt_ms} ms)",
                s.box_had_0rtt, s.box_accepted_0rtt, s.box_first_reply_ms
            ),
        },
        Check {
            law: &laws::PHONE_FULL_HANDSHAKE,
            ok: !s.phone_had_0rtt && s.phone_first_reply_ms.is_some_and(|ms| ms >= 2 * phone_rtt_ms),
            detail: format!("0-RTT keys {}, first reply after {:?} ms (two round trips: {} ms)", s.phone_had_0rtt, s.phone_first_reply_ms, 2 * phone_rtt_ms),
        },
    ]
}

/// `fleet-migrate`.
pub const FLEET_MIGRATE: ScenarioDef = ScenarioDef {
    name: "fleet-migrate",
    about: "a phone rebinds and moves Wi-Fi to cellular behind the cloud's 4-reactor QUIC fleet (Forward): the same connection, forwarded then pinned",
    // The fleet's own laws hold for any reactor count; fleet-migrate also draws
    // the routing (its laws follow it) and forged moves. Its phone gives up 25 s
    // after the plan's last outage, and forwarding-stops-after-pin holds with
    // bounded reordering (corpus/fleet-migrate-*).
    domain: Domain {
        kinds: kinds![IMPAIRMENTS, &[Kind::Mtu], MOVES, &[Kind::Blackhole, Kind::ForgedMoves, Kind::Strangers]],
        fleet: true,
        fleet_routing: true,
        ..Domain::DEFAULT
    },
    laws: law_list![&[&NO_PANIC], FLEET_ECHO_LAWS, reference::FLEET_RUN],
    catches: &[Switch::PinGaugeDrift, Switch::NoRouting, Switch::ForwardLongHeaders, Switch::ForwardReference, Switch::ClaimPerPathReport],
    run,
};

/// `fleet-migrate-kernel-filter`.
pub const FLEET_MIGRATE_KERNEL_FILTER: ScenarioDef = ScenarioDef {
    name: "fleet-migrate-kernel-filter",
    about: "fleet-migrate with the KernelFilter routing: the kernel routes by connection id, nothing forwarded",
    domain: Domain { fleet: true, ..Domain::DEFAULT },
    laws: law_list![FLEET_ECHO_LAWS, reference::FLEET_RUN],
    catches: &[],
    run: run_kernel_filter,
};

/// `fleet-still`.
pub const FLEET_STILL: ScenarioDef = ScenarioDef {
    name: "fleet-still",
    about: "a phone and a box that never move, behind the 4-reactor fleet: nothing forwarded, nothing pinned",
    domain: Domain { fleet: true, ..Domain::DEFAULT },
    laws: law_list![FLEET_ECHO_LAWS, &[&laws::STILL_FLEET_QUIET], reference::FLEET_RUN],
    catches: &[],
    run: run_still,
};

/// `fleet-resume`.
pub const FLEET_RESUME: ScenarioDef = ScenarioDef {
    name: "fleet-resume",
    about: "the cloud closes the box with 4408; the box reconnects with 0-RTT (answered in one round trip), the phone makes a full handshake",
    // Laws about exact round trips: only the default link holds them; timed
    // faults after the reconnect would test something else.
    domain: Domain { kinds: &[], fleet: true, ..Domain::DEFAULT },
    laws: law_list![&[&laws::CLOSE_CODE_ARRIVES, &laws::BOX_RESUMES_0RTT, &laws::PHONE_FULL_HANDSHAKE], reference::FLEET_RUN],
    catches: &[],
    run: run_resume,
};
