//! `idle-link`: a phone and a box each keep a QUIC connection to the cloud for a
//! simulated day with nothing to say: only keepalive PINGs every 15 s hold their
//! 30 s NAT mappings. The bench's idle day; it also proves the keepalive holds.

use std::cell::RefCell;
use std::rc::Rc;
use std::time::Duration;

use super::def::{judge, Check, RunReport, ScenarioDef};
use super::laws;
use crate::drive::build::{client_quic, serve_quic};
use crate::drive::quic::QuicEvent;
use crate::world::domain::Domain;
use crate::world::host::addr;
use crate::world::host::{BOX, CLOUD, PHONE};
use crate::world::time;
use crate::world::topology::{world_for, RunSpec, Topology};

/// One simulated day.
pub const DAY: Duration = Duration::from_secs(24 * 3600);

#[derive(Default)]
struct Tally {
    accepted: u32,
    held: Vec<&'static str>,
    lost: Vec<String>,
}

pub fn run(spec: &RunSpec) -> RunReport {
    let mut world = world_for(spec, DAY + Duration::from_secs(60));
    Topology::build(&mut world, &spec.plan);
    let seed = spec.seed;
    let tally = Rc::new(RefCell::new(Tally::default()));

    let t = tally.clone();
    world.host(CLOUD, addr::CLOUD, move || {
        let t = t.clone();
        serve_quic(seed, move |conn| {
            t.borrow_mut().accepted += 1;
            async move { while !matches!(conn.next_event().await, QuicEvent::Lost(_)) {} }
        })
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
                    Some(l) => t.borrow_mut().lost.push(format!("{name}: {l:?}")),
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
    let checks = vec![
        Check { law: &laws::KEEPALIVE_HOLDS, ok: t.lost.is_empty() && t.held.contains(&PHONE), detail: format!("held: {:?}, lost: {:?}", t.held, t.lost) },
        Check { law: &laws::ONE_CONNECTION, ok: t.accepted == 2, detail: format!("the cloud accepted {} connections (phone and box: 2)", t.accepted) },
    ];
    drop(t);
    RunReport::new(outcome, checks)
}

/// `idle-link`.
pub const IDLE_LINK: ScenarioDef = ScenarioDef {
    name: "idle-link",
    about: "a phone and a box each hold a QUIC connection to the cloud for a simulated day: keepalives only",
    // A simulated day (2-3 s of wall time a case): faults anywhere in it, few cases.
    domain: Domain { horizon_ms: 86_000_000, test_cases: 2, ..Domain::DEFAULT },
    laws: &[judge(&laws::KEEPALIVE_HOLDS), judge(&laws::ONE_CONNECTION)],
    run,
};
