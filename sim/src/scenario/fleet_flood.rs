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

use std::cell::RefCell;
use std::rc::Rc;
use std::time::Duration;

use ftw_crypto::{crypto_provider, quic_client_config, ClientResumption, QuicTransportParams};

use super::fleet_migrate::{client_endpoint_config, cloud_door, fleet_config, FleetRun, FLEET_TARGET};
use super::{addr, cloud_certs, sim_clock, world_for, Check, FaultKind, RunReport, RunSpec, TimedFault, Topology};
use crate::link::{accept_quic, dial_quic, LinkEvent};
use crate::quic::QuicEndpoint;
use crate::time;
use crate::trace;

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
/// A client gives up on its echoes this long after its last round.
const GIVE_UP_AFTER: Duration = Duration::from_secs(30);

/// The default attack when the plan has no faults.
pub fn default_faults() -> Vec<TimedFault> {
    vec![TimedFault { at_ms: 3_000, fault: FaultKind::ForgedMoves { host: "box".into(), for_ms: 5_000 } }]
}

#[derive(Default)]
struct Tally {
    /// Per client: echoes back.
    echoes: Vec<usize>,
    /// Clients whose dial or link failed, with why.
    lost: Vec<(usize, String)>,
}

/// `fleet-pin-flood`.
pub fn run(spec: &RunSpec) -> RunReport {
    run_with(spec, &FleetRun { reactor_count: FLOOD_REACTORS, default_moves: false, ..FleetRun::default() })
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
    let mut world = world_for(&spec, last_round + GIVE_UP_AFTER + Duration::from_secs(30));
    Topology::build(&mut world, &spec.plan);
    let cfg = fleet_config(seed, &spec, &run);
    let door_slot = Rc::new(RefCell::new(None));
    let tally = Rc::new(RefCell::new(Tally { echoes: vec![0; CROWD], lost: Vec::new() }));

    let slot = door_slot.clone();
    world.host("cloud", addr::CLOUD, move || {
        let slot = slot.clone();
        async move {
            let door = cloud_door(seed, cfg).await?;
            *slot.borrow_mut() = Some(door.clone());
            loop {
                let (_r, conn) = door.accept().await;
                tokio::task::spawn_local(async move {
                    let Ok((mut link, _target)) = accept_quic(conn).await else { return };
                    while let LinkEvent::Message(m) = link.recv().await {
                        let _ = link.send(&m);
                    }
                });
            }
        }
    });

    let t = tally.clone();
    world.client("box", addr::BOX, async move {
        let rng = seed.crypto("box");
        let provider = crypto_provider(&rng.sub("tls"));
        let client = quic_client_config(&provider, &sim_clock("box"), &cloud_certs(), ClientResumption::Disabled, rng.sub_seed("quic/initial-dcid"), &QuicTransportParams::default());
        let mut tasks = Vec::with_capacity(CROWD);
        for i in 0..CROWD {
            let ep = QuicEndpoint::bind("box", "0.0.0.0:0".parse().expect("addr"), client_endpoint_config(seed, "box", i as u32), None).await?;
            let (client, t) = (client.clone(), t.clone());
            tasks.push(tokio::task::spawn_local(async move {
                time::sleep(DIAL_SPACING * i as u32).await;
                let mut link = match dial_quic(&ep, client, addr::cloud_door(), ftw_crypto::consts::CLOUD_SERVER_NAME, FLEET_TARGET).await {
                    Ok(l) => l,
                    Err(e) => {
                        t.borrow_mut().lost.push((i, format!("dial: {e:?}")));
                        return;
                    }
                };
                let give_up = last_round + GIVE_UP_AFTER;
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
                                t.borrow_mut().lost.push((i, format!("gave up with {} of {ROUNDS} echoes", t.borrow().echoes[i])));
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
                link.close(crate::link::close::NORMAL, "done");
                time::sleep(Duration::from_millis(200)).await;
            }));
        }
        for task in tasks {
            let _ = task.await;
        }
        Ok(())
    });

    let outcome = world.run();
    let door = door_slot.borrow().clone().expect("the cloud started");
    door.record_counters("fleet.counters");
    let stats = door.stats();
    let t = tally.borrow();
    let ceiling = ftw_fleet::consts::PINS_PER_REACTOR_MAX as u64;
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
    trace::record("cloud", "app.flood", format!("{} moves, pins open at most {:?}", stats.moves.len(), stats.pins_open_max));
    let checks = vec![
        Check {
            property: "pins-within-ceiling".into(),
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
            property: "forged-moves-keep-connections".into(),
            ok: complete == CROWD && accepted == CROWD as u64 && t.lost.is_empty(),
            detail: format!("{complete} of {CROWD} clients got every echo; {accepted} handshakes; lost: {:?}", t.lost.iter().take(3).collect::<Vec<_>>()),
        },
    ];
    RunReport { outcome, checks }
}
