//! `fleet-pin-flood` (issue 8, property 8): a crowd of QUIC clients behind the
//! home NAT holds connections to the cloud's fleet while an on-path attacker on
//! their leg copies every datagram from a forged source port, the copy first
//! (RFC 9000 section 9.3.3; the plan's `forged_moves`, by default from 3 s for
//! 5 s). A server adopts a new peer address before it validates it, so every
//! copy that arrives first moves its connection, and the owner's sweep claims a
//! pin for it. The crowd is larger than the pin ceiling of one reactor, so the
//! flood presses on the ceiling (seed 002: "a forged datagram can reach here").
//!
//! Laws: no reactor ever holds more than 512 pins (SPEC section 5), and the
//! flood reaches that ceiling when more of a reactor's connections moved; and
//! every client's connection carries on (one handshake each, every echo back).
//! A handshake under the attack can be lost (a forged copy of the first
//! Initial makes the server's connection at the forged address); such a client
//! dials again and the law counts the extra handshake
//! (corpus/fleet-pin-flood-initial-hijacked.toml).

use std::cell::RefCell;
use std::rc::Rc;
use std::time::Duration;

use super::def::{RunReport, ScenarioDef};
use crate::drive::build::{client_config, client_endpoint_config, fleet_config, FleetRun, FLEET_TARGET};
use crate::drive::fleet::{DoorStats, FleetDoor};
use crate::drive::link::{accept_quic, dial_quic, Link, LinkEvent};
use crate::drive::quic::QuicEndpoint;
use crate::drive::rig::Rig;
use crate::kinds;
use crate::law::laws;
use crate::law::reference;
use crate::law::Check;
use crate::law_list;
use crate::world::domain::{Domain, Kind, IMPAIRMENTS};
use crate::world::host::{addr, Host};
use crate::world::host::{BOX, CLOUD};
use crate::world::plan::kind;
use crate::world::plan::{FaultKind, TimedFault};
use crate::world::seed::RunSeed;
use crate::world::time;
use crate::world::topology::RunSpec;
use crate::world::trace;

/// Clients in the crowd: more than one reactor's pin ceiling.
pub const CROWD: usize = 600;
/// The fleet the flood runs against: one reactor, so it owns the whole crowd.
pub const FLOOD_REACTORS: usize = 1;
/// Clients start their dials this far apart.
const DIAL_SPACING: Duration = Duration::from_millis(2);
/// Each client's echoes: one stream message a second, from ROUND_START.
const ROUNDS: usize = 8;
const ROUND_START: Duration = Duration::from_secs(2);
const INTERVAL: Duration = Duration::from_secs(1);
/// A client gives up on its echoes this long after its last round: the same
/// patience as fleet-migrate's clients (30 s was short of QUIC's doubled PTOs
/// under loss: corpus/fleet-pin-flood-lossy-two-give-up.toml).
const GIVE_UP_AFTER: Duration = crate::drive::build::FLEET_CLIENT_PATIENCE;
/// Dials a client makes before it gives up on handshakes lost to the attack.
const DIALS_MAX: usize = 4;

/// The default attack when the plan has no faults.
pub fn default_faults() -> Vec<TimedFault> {
    vec![TimedFault { at_ms: 3_000, fault: FaultKind::ForgedMoves(kind::ForgedMoves { host: Host::Box, for_ms: 5_000 }) }]
}

#[derive(Default)]
struct Tally {
    /// Per client: echoes back.
    echoes: Vec<usize>,
    /// Clients whose dial or link failed, with why.
    lost: Vec<(usize, String)>,
    /// Dials made again after a handshake was lost under the attack.
    redials: usize,
}

/// `fleet-pin-flood`.
pub fn run(spec: &RunSpec) -> RunReport {
    run_with(spec, &FleetRun { reactor_count: FLOOD_REACTORS, default_moves: false, ..FleetRun::default() })
}

/// The attack's windows on the crowd's leg: (start, end) of each `forged_moves` on it.
type Attacks = Rc<Vec<(Duration, Duration)>>;

fn attacks_of(spec: &RunSpec) -> Attacks {
    Rc::new(
        spec.plan
            .faults
            .iter()
            .filter_map(|f| match &f.fault {
                FaultKind::ForgedMoves(kind::ForgedMoves { host, for_ms }) if *host == Host::Box => {
                    Some((Duration::from_millis(f.at_ms), Duration::from_millis(f.at_ms + for_ms)))
                }
                _ => None,
            })
            .collect(),
    )
}

/// `fleet-pin-flood` on a fleet set up as `run` says (a test raises the ceiling
/// to show the law fails).
pub fn run_with(spec: &RunSpec, run: &FleetRun) -> RunReport {
    let mut spec = spec.clone();
    if spec.plan.faults.is_empty() {
        spec.plan.faults = default_faults();
    }
    let run = run.shaped_by(&spec.plan);
    let seed = spec.seed;
    let last_round = ROUND_START + INTERVAL * ROUNDS as u32;
    let attacks = attacks_of(&spec);
    let attack_end = attacks.iter().map(|w| w.1).max().unwrap_or_default();
    // A dial lost to the attack fails after QUIC's idle timeout; the client then
    // dials again and sends its rounds.
    let mut world = Rig::new(&spec, last_round.max(attack_end) + Duration::from_secs(30) * DIALS_MAX as u32 + GIVE_UP_AFTER + Duration::from_secs(30));
    let door_slot = Rc::new(RefCell::new(None));
    host_stream_echo(&mut world, seed, fleet_config(seed, &spec, &run), &door_slot);
    let tally = Rc::new(RefCell::new(Tally { echoes: vec![0; CROWD], lost: Vec::new(), redials: 0 }));
    let t = tally.clone();
    world.client(BOX, addr::BOX, async move { crowd(seed, &t, &attacks, last_round).await });
    let outcome = world.run();
    let door = door_slot.borrow().clone().expect("the cloud started");
    door.record_counters("fleet.counters");
    let checks = judge_flood(&door.stats(), &tally.borrow());
    RunReport::new(outcome, checks)
}

/// The cloud: the fleet's door, echoing every stream message.
fn host_stream_echo(rig: &mut Rig, seed: RunSeed, cfg: ftw_fleet::FleetConfig, door_slot: &Rc<RefCell<Option<FleetDoor>>>) {
    let slot = door_slot.clone();
    let on_door = move |door: &FleetDoor| *slot.borrow_mut() = Some(door.clone());
    rig.cloud_fleet(seed, cfg, on_door, |_, conn| async move {
        let Ok((mut link, _target)) = accept_quic(conn).await else { return };
        while let LinkEvent::Message(m) = link.recv().await {
            let _ = link.send(&m);
        }
    });
}

/// The crowd: `CROWD` clients behind the home NAT, each its own endpoint.
async fn crowd(seed: RunSeed, t: &Rc<RefCell<Tally>>, attacks: &Attacks, last_round: Duration) -> turmoil::Result {
    let client = client_config(seed, BOX);
    let mut tasks = Vec::with_capacity(CROWD);
    for i in 0..CROWD {
        let ep = QuicEndpoint::bind(BOX, "0.0.0.0:0".parse().expect("addr"), client_endpoint_config(seed, BOX, i as u32), None).await?;
        let (client, t, attacks) = (client.clone(), t.clone(), attacks.clone());
        tasks.push(tokio::task::spawn_local(async move {
            time::sleep(DIAL_SPACING * i as u32).await;
            let Some(link) = dial_under_attack(i, &ep, &client, &t, &attacks).await else { return };
            rounds(i, link, &t, last_round).await;
        }));
    }
    for task in tasks {
        let _ = task.await;
    }
    Ok(())
}

/// Client `i`'s dial. A handshake is not a migration: a forged copy of a client's
/// first Initial that arrives first makes the server's connection at the forged
/// address, and the dial fails (an on-path attacker can always do that, RFC 9000
/// section 21.1). A client whose dial failed while the attack was on dials again,
/// as an app would; the laws count it.
async fn dial_under_attack(i: usize, ep: &QuicEndpoint, client: &quinn_proto::ClientConfig, t: &Rc<RefCell<Tally>>, attacks: &Attacks) -> Option<Link> {
    let mut dials = 0;
    loop {
        let from = time::now();
        dials += 1;
        match dial_quic(ep, client.clone(), addr::cloud_door(), ftw_crypto::consts::CLOUD_SERVER_NAME, FLEET_TARGET).await {
            Ok(l) => return Some(l),
            Err(e) => {
                let crossed = attacks.iter().any(|(a, b)| *a <= time::now() && from < *b);
                if crossed && dials < DIALS_MAX {
                    trace::record(BOX, "app.redial", format!("client {i}: handshake lost under forged moves: {e:?}"));
                    t.borrow_mut().redials += 1;
                    continue;
                }
                t.borrow_mut().lost.push((i, format!("dial: {e:?}")));
                return None;
            }
        }
    }
}

/// Client `i`'s rounds: a message a second from `ROUND_START`, until every echo is
/// back or it gives up.
async fn rounds(i: usize, mut link: Link, t: &Rc<RefCell<Tally>>, last_round: Duration) {
    let connected = time::now();
    let give_up = last_round.max(connected + INTERVAL * ROUNDS as u32) + GIVE_UP_AFTER;
    let mut next = ROUND_START;
    let mut sent = 0;
    while t.borrow().echoes[i] < ROUNDS {
        if sent < ROUNDS && time::now() >= next {
            if link.send(format!("c{i}.{sent}").as_bytes()).is_err() {
                break;
            }
            sent += 1;
            next += INTERVAL;
        }
        let wake = if sent < ROUNDS { next } else { give_up };
        let ev = tokio::select! {
            biased;
            ev = link.recv() => ev,
            () = time::sleep_until(wake) => {
                if time::now() >= give_up {
                    // One borrow at a time (borrowing inside borrow_mut panicked once a client gave up).
                    let echoes = t.borrow().echoes[i];
                    t.borrow_mut().lost.push((i, format!("gave up with {echoes} of {ROUNDS} echoes")));
                    break;
                }
                continue;
            }
        };
        match ev {
            LinkEvent::Message(_) => t.borrow_mut().echoes[i] += 1,
            LinkEvent::Datagram(_) => {}
            LinkEvent::Closed(c) => {
                t.borrow_mut().lost.push((i, format!("closed: {c:?}")));
                break;
            }
        }
    }
    link.close(crate::drive::link::close::NORMAL, "done");
    time::sleep(Duration::from_millis(200)).await;
}

/// The flood's two laws over the door's statistics and the crowd's tally.
fn judge_flood(stats: &DoorStats, t: &Tally) -> Vec<Check> {
    let ceiling = crate::law::spec::PINS_PER_REACTOR_MAX;
    let pins_max = stats.pins_open_max.iter().copied().max().unwrap_or(0);
    // Connections that moved, per reactor: each holds at most one pin, so the
    // ceiling is reached exactly when more of them than it moved.
    let mut moved: Vec<std::collections::BTreeSet<usize>> = vec![Default::default(); stats.accepted_by_reactor.len()];
    for m in &stats.moves {
        moved[m.reactor].insert(m.conn);
    }
    let moved_max = moved.iter().map(|m| m.len() as u64).max().unwrap_or(0);
    let complete = t.echoes.iter().filter(|&&n| n == ROUNDS).count();
    let accepted: u64 = stats.accepted_by_reactor.iter().sum();
    trace::record(CLOUD, "app.flood", format!("{} moves, pins open at most {:?}", stats.moves.len(), stats.pins_open_max));
    vec![
        Check {
            law: &laws::PINS_WITHIN_CEILING,
            ok: pins_max <= ceiling && (pins_max == ceiling || moved_max <= ceiling),
            detail: format!(
                "{} forged and real moves of {:?} connections per reactor; pins open at most {:?} (ceiling {ceiling}); connections owned {:?}",
                stats.moves.len(),
                moved.iter().map(|m| m.len()).collect::<Vec<_>>(),
                stats.pins_open_max,
                stats.accepted_by_reactor
            ),
        },
        Check {
            law: &laws::FORGED_MOVES_KEEP_CONNECTIONS,
            // Each handshake lost to the attack was accepted once at the forged address.
            ok: complete == CROWD && accepted == (CROWD + t.redials) as u64 && t.lost.is_empty(),
            detail: format!(
                "{complete} of {CROWD} clients got every echo; {accepted} handshakes ({} dials again after a handshake lost under the attack); lost: {:?}",
                t.redials,
                t.lost.iter().take(3).collect::<Vec<_>>()
            ),
        },
    ]
}

/// `fleet-pin-flood`.
pub const FLEET_PIN_FLOOD: ScenarioDef = ScenarioDef {
    name: "fleet-pin-flood",
    about: "600 QUIC clients behind one NAT, one reactor; an on-path attacker copies every datagram from a forged port for 5 s: pins stay within 512, every connection carries on",
    // The crowd's leg impaired, and the attack (forged moves on the crowd's
    // leg, host "box") somewhere in its rounds; 600 clients take about 4 s of
    // wall time a case, so few cases. Loss is in again since quinn-proto restarts its
    // PTO backoff when it discards keys (sim/vendor/quinn-proto/PATCH.md: a Finished
    // lost after a lossy handshake was first probed past the idle timeout,
    // corpus/fleet-pin-flood-initial-hijacked.toml).
    domain: Domain {
        kinds: kinds![IMPAIRMENTS, &[Kind::ForgedMoves]],
        always: &[Kind::ForgedMoves],
        horizon_ms: 8_000,
        faults_from_ms: 2_000,
        outage_max_ms: 6_000,
        faults_max: 2,
        hosts: &[Host::Box],
        test_cases: 2,
        // Forged moves reach the pins only where a server adopts a new address
        // before validating it: quinn-proto's own migration, and seed 002's ngtcp2
        // ("ngtcp2 adopts a new path BEFORE it finishes validating it, so a forged
        // datagram can reach here"). The rig's quic-go probes first and never adopts
        // a forged address, so under it the flood has nothing to press on.
        stand_in: Some(crate::world::plan::QuicPlan::Patched),
        ..Domain::DEFAULT
    },
    laws: law_list![&[&laws::PINS_WITHIN_CEILING, &laws::FORGED_MOVES_KEEP_CONNECTIONS], reference::FLEET_RUN],
    catches: &[],
    run,
};
