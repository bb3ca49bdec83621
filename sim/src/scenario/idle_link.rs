//! `idle-link`: a phone and a box each keep a QUIC connection to the cloud for a
//! simulated day with nothing to say: only keepalive PINGs every 15 s hold their
//! 30 s NAT mappings. The bench's idle day; it also proves the keepalive holds.

use std::cell::RefCell;
use std::rc::Rc;
use std::time::Duration;

use super::def::{RunReport, ScenarioDef};
use crate::drive::build::client_quic;
use crate::drive::quic::QuicEvent;
use crate::drive::rig::Rig;
use crate::law::idle_out;
use crate::law::laws;
use crate::law::reference;
use crate::law::seen::{Accepted, Seen};
use crate::law::Check;
use crate::law_list;
use crate::world::domain::{Domain, Kind};
use crate::world::host::addr;
use crate::world::host::{BOX, PHONE};
use crate::world::time;
use crate::world::topology::RunSpec;

/// One simulated day.
pub const DAY: Duration = Duration::from_secs(24 * 3600);

#[derive(Default)]
struct Tally {
    accepted: u32,
    held: Vec<&'static str>,
    /// Each host whose connection was lost, with how.
    lost: Vec<(&'static str, String)>,
}

/// How long before an idle-out a move of the plan can be what caused it: two of
/// QUIC's 30 s idle timeouts (the rig's `max_idle_timeout`), since the host hears
/// the cloud's probe of its new address up to one keep-alive (15 s) after the move.
const MOVE_WINDOW_MS: u64 = 60_000;

/// Whether `name`'s lost connection is the network's doing: the plan moved the
/// host (a NAT rebind, a network switch) within [`MOVE_WINDOW_MS`] before it idled
/// out, and every datagram the cloud sent it after it last heard the cloud was lost
/// to the network (`idle_out.rs`, as fleet-migrate's `same-connection` judges it;
/// RFC 9000 sections 9 and 10.1; finding 1 of docs/findings/rig-migration-under-loss.md:
/// the one answer to the cloud's probe of the new address lost, and quic-go never
/// sends an acknowledged probe again). Without a move a lost connection is the
/// keep-alive's failure (a mapping the NAT let expire), never excused
/// (corpus/idle-link-rebind-answer-lost-13770076159.toml).
fn lost_to_the_network(spec: &RunSpec, outcome: &crate::world::RunOutcome, name: &str, ip: std::net::IpAddr) -> Option<String> {
    let at = outcome.idle_outs.iter().filter(|o| o.local.ip() == ip).map(|o| o.at.as_millis() as u64).min()?;
    let moved = spec.plan.faults.iter().any(|f| {
        let host = f.fault.host();
        let kind = f.fault.def().swarm();
        host.name() == name && matches!(kind, Kind::Rebind | Kind::SwitchNetwork) && f.at_ms <= at && at - f.at_ms <= MOVE_WINDOW_MS
    });
    let excuse = idle_out::excused(&outcome.fates, &outcome.idle_outs, &outcome.rig_paths, ip)?;
    excuse.ok().filter(|_| moved)
}

/// `keepalive-holds`: both connections live the day (the phone's held to the
/// end), but for one the network lost after a move of the plan ([`lost_to_the_network`]).
fn keepalive_holds(spec: &RunSpec, outcome: &crate::world::RunOutcome, t: &Tally) -> Check {
    let ip = |name: &str| if name == PHONE { addr::PHONE } else { addr::BOX };
    let excuses: Vec<(&str, Option<String>)> = t.lost.iter().map(|(name, _)| (*name, lost_to_the_network(spec, outcome, name, ip(name)))).collect();
    let phone = t.held.contains(&PHONE) || excuses.iter().any(|(n, e)| *n == PHONE && e.is_some());
    let ok = phone && excuses.iter().all(|(_, e)| e.is_some());
    let why: Vec<String> = excuses.iter().filter_map(|(n, e)| e.as_ref().map(|e| format!("{n}: {e}"))).collect();
    let excused = if why.is_empty() { String::new() } else { format!("; excused: {}", why.join("; ")) };
    Check { law: &laws::KEEPALIVE_HOLDS, ok, detail: format!("held: {:?}, lost: {:?}{excused}", t.held, t.lost) }
}

pub fn run(spec: &RunSpec) -> RunReport {
    let mut world = Rig::new(spec, DAY + Duration::from_secs(60));
    let seed = spec.seed;
    let tally = Rc::new(RefCell::new(Tally::default()));

    let t = tally.clone();
    world.cloud_quic(seed, move |conn| {
        t.borrow_mut().accepted += 1;
        async move { while !matches!(conn.next_event().await, QuicEvent::Lost(_)) {} }
    });

    for (name, ip, is_client) in [(BOX, addr::BOX, false), (PHONE, addr::PHONE, true)] {
        let t = tally.clone();
        let software = move || {
            let t = t.clone();
            async move {
                let (ep, client) = client_quic(seed, name).await?;
                let conn = ep.connect(client, addr::cloud_door(), ftw_crypto::consts::CLOUD_SERVER_NAME)?;
                let until = DAY;
                let lost = loop {
                    tokio::select! {
                        biased;
                        ev = conn.next_event() => if let QuicEvent::Lost(l) = ev { break Some(l) },
                        _ = time::sleep_until(until) => break None,
                    }
                };
                match lost {
                    None => t.borrow_mut().held.push(name),
                    Some(l) => t.borrow_mut().lost.push((name, format!("{l:?}"))),
                }
                conn.close(1000, "day over");
                time::sleep(Duration::from_millis(100)).await;
                Ok(())
            }
        };
        if is_client {
            world.client(name, ip, software());
        } else {
            world.host(name, ip, software);
        }
    }

    let outcome = world.run();
    let t = tally.borrow();
    let checks = vec![keepalive_holds(spec, &outcome, &t)];
    let accepted = Accepted { accepted: t.accepted as u64, expected: 2, why: "the phone's and the box's".into(), wrong: None };
    drop(t);
    RunReport::new(outcome, checks).with(Seen { accepted: Some(accepted), ..Seen::default() })
}

/// `idle-link`.
pub const IDLE_LINK: ScenarioDef = ScenarioDef {
    name: "idle-link",
    about: "a phone and a box each hold a QUIC connection to the cloud for a simulated day: keepalives only",
    // A simulated day (2-3 s of wall time a case): faults anywhere in it, few cases.
    domain: Domain { horizon_ms: 86_000_000, test_cases: 2, ..Domain::DEFAULT },
    laws: law_list![&[&laws::KEEPALIVE_HOLDS, &laws::ONE_CONNECTION], reference::NETWORK],
    catches: &[],
    run,
};
