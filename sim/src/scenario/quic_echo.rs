//! `quic-echo`: the harness's first real scenario. A phone behind its NAT dials
//! the cloud over real QUIC (quinn-proto, TLS 1.3), sends ten messages on a
//! stream and ten datagrams, one a second, and the cloud echoes each. Through
//! the plan's faults (rebinds, network switches, loss) the same connection
//! must carry on.

use std::cell::RefCell;
use std::net::SocketAddr;
use std::rc::Rc;
use std::time::Duration;

use bytes::Bytes;

use super::def::{RunReport, ScenarioDef};
use crate::drive::build::client_quic;
use crate::drive::quic::{Lost, QuicConn, QuicEvent};
use crate::drive::rig::Rig;
use crate::law::idle_out;
use crate::law::laws;
use crate::law::reference;
use crate::law::seen::{Accepted, Close, Cut, Echo, Seen};
use crate::law::Check;
use crate::law_list;
use crate::world::domain::Domain;
use crate::world::host::addr;
use crate::world::host::PHONE;
use crate::world::time;
use crate::world::topology::RunSpec;
use crate::world::trace;

const INTERVAL: Duration = Duration::from_secs(1);
/// How long the phone waits for trailing datagram echoes (many round trips).
const LINGER: Duration = Duration::from_secs(2);
/// How long a run may take, past its messages.
const SLACK: Duration = Duration::from_secs(110);

#[derive(Default)]
struct Tally {
    accepted: u32,
    echoes: Vec<String>,
    datagrams_back: u32,
    paths_seen: Vec<SocketAddr>,
    closed_with: Option<u64>,
    /// Connections whose handshake the cloud completed.
    cloud_connected: u32,
    /// Dials made again because the connection was lost to an address change.
    redials: u32,
    /// How the phone's connection was lost, if it was (the laws judge it).
    phone_lost: Option<String>,
}

/// How many times the phone dials before it gives up on connections lost to
/// address changes.
const DIALS_MAX: u32 = 4;

/// Whether the phone's connection `attempt` (0-based) was lost to an address
/// change: the plan changed the phone's address after the dial at `dialled_ms`,
/// and the cloud had not completed that connection's handshake. A server drops
/// packets from a new address until it has (RFC 9000 section 9: no migration
/// before the handshake is confirmed), so the connection dies; the app dials
/// again, as the phone's app does, and the laws count it
/// (corpus/quic-echo-move-during-handshake.toml,
/// corpus/quic-echo-lossy-handshake-then-move.toml).
fn lost_to_move(t: &Tally, attempt: u32, changes_ms: &[u64], dialled_ms: u64) -> bool {
    let now_ms = time::now().as_millis() as u64;
    t.cloud_connected <= attempt && t.echoes.is_empty() && changes_ms.iter().any(|m| (dialled_ms..=now_ms).contains(m))
}

/// Ten messages (the harness's proof scenario).
pub fn run(spec: &RunSpec) -> RunReport {
    run_n(spec, 10)
}

/// A 90 s streaming session: 90 messages and 90 datagrams at 1 Hz (the bench's session).
pub fn run_stream(spec: &RunSpec) -> RunReport {
    run_n(spec, 90)
}

/// `messages` messages and datagrams at 1 Hz.
pub fn run_n(spec: &RunSpec, messages: usize) -> RunReport {
    let mut world = Rig::new(spec, SLACK + INTERVAL * messages as u32);
    let seed = spec.seed;
    let tally = Rc::new(RefCell::new(Tally::default()));
    host_quic_echo(&mut world, seed, &tally);
    let t = tally.clone();
    let changes_ms = spec.plan.address_changes_ms(crate::world::host::Host::Phone);
    world.client(PHONE, addr::PHONE, async move { phone_echoes(seed, &t, messages, &changes_ms).await });
    let outcome = world.run();
    let (checks, seen) = judge_echoes(spec, &tally.borrow(), messages, &outcome);
    RunReport::new(outcome, checks).with(seen)
}

/// The cloud: a QUIC endpoint echoing every stream's data and every datagram,
/// noting connections, paths and closes.
fn host_quic_echo(rig: &mut Rig, seed: crate::world::seed::RunSeed, tally: &Rc<RefCell<Tally>>) {
    let t = tally.clone();
    rig.cloud_quic(seed, move |conn| {
        t.borrow_mut().accepted += 1;
        let t = t.clone();
        async move {
            loop {
                match conn.next_event().await {
                    QuicEvent::Data { stream, data } => {
                        let _ = conn.write(stream, &data);
                    }
                    QuicEvent::Datagram(d) => {
                        let _ = conn.send_datagram(d);
                    }
                    QuicEvent::PathChanged(a) => t.borrow_mut().paths_seen.push(a),
                    QuicEvent::Connected => t.borrow_mut().cloud_connected += 1,
                    QuicEvent::Lost(l) => {
                        if let Lost::Closed { code, .. } = l {
                            t.borrow_mut().closed_with = Some(code);
                        }
                        break;
                    }
                    _ => {}
                }
            }
        }
    });
}

/// The phone: echo every message (dialling again when a move lost the connection
/// before the cloud confirmed it), wait a while for trailing datagram echoes, close.
async fn phone_echoes(seed: crate::world::seed::RunSeed, t: &Rc<RefCell<Tally>>, messages: usize, changes_ms: &[u64]) -> turmoil::Result {
    let (ep, client) = client_quic(seed, PHONE).await?;
    let mut attempt = 0;
    let conn = loop {
        let dialled_ms = time::now().as_millis() as u64;
        let conn = ep.connect(client.clone(), addr::cloud_door(), ftw_crypto::consts::CLOUD_SERVER_NAME)?;
        match echo_all(&conn, t, messages).await {
            Ok(()) => break conn,
            Err(l) if attempt + 1 < DIALS_MAX && lost_to_move(&t.borrow(), attempt, changes_ms, dialled_ms) => {
                trace::record(PHONE, "app.redial", format!("connection lost to a move before the cloud confirmed it: {l:?}"));
                t.borrow_mut().redials += 1;
                attempt += 1;
            }
            Err(l) => {
                t.borrow_mut().phone_lost = Some(format!("{l:?}"));
                return Ok(());
            }
        }
    };
    // Datagram echoes may trail the last stream echo (jitter reorders them):
    // wait for them a while, then close.
    let linger = time::now() + LINGER;
    while (t.borrow().datagrams_back as usize) < messages {
        let ev = tokio::select! {
            biased;
            ev = conn.next_event() => ev,
            _ = time::sleep_until(linger) => break,
        };
        match ev {
            QuicEvent::Datagram(_) => t.borrow_mut().datagrams_back += 1,
            QuicEvent::Lost(l) => {
                t.borrow_mut().phone_lost = Some(format!("{l:?}"));
                return Ok(());
            }
            _ => {}
        }
    }
    conn.close(1000, "done");
    // Stay until the connection is gone (quinn drains for three PTOs after a
    // close), so the close has had its chances to reach the cloud.
    let give_up = time::now() + LINGER * 10;
    loop {
        tokio::select! {
            biased;
            ev = conn.next_event() => if matches!(ev, QuicEvent::Lost(_)) { break },
            _ = time::sleep_until(give_up) => break,
        }
    }
    Ok(())
}

/// The echo's own law over the run's tally, and what it saw for the laws it
/// shares with the other echoes.
fn judge_echoes(spec: &RunSpec, t: &Tally, messages: usize, outcome: &crate::world::RunOutcome) -> (Vec<Check>, Seen) {
    let expected: Vec<String> = (0..messages).map(|i| format!("m{i};")).collect();
    // Lossless for datagrams: nothing on the phone's leg can drop or reorder a
    // packet. A path MTU below Ethernet's drops quinn's MTU probes, and a datagram
    // riding in a probe goes with it; jitter or reordering can put the first
    // 1-RTT packet ahead of the client's Finished, and the server cannot read it
    // yet. QUIC never retransmits a datagram (seed 000: "sends it as a datagram,
    // never again").
    let l = &spec.plan.phone;
    let lossless = l.loss_pct == 0.0 && l.jitter_ms == 0 && l.reorder_pct == 0.0 && spec.plan.faults.is_empty() && (l.mtu == 0 || l.mtu >= 1500);
    let whole = t.phone_lost.is_none() && t.echoes == expected;
    // A phone connection that idled out after the network lost every answer
    // the cloud sent it is QUIC keeping its rules (RFC 9000 section 10.1): the
    // echoes before it must still be the first ones, in order
    // (corpus/quic-echo-gone-fresh-seeds-9400135905.toml).
    let excuse =
        (!whole && expected.starts_with(&t.echoes)).then(|| idle_out::excused(&outcome.fates, &outcome.idle_outs, &outcome.rig_paths, addr::PHONE)).flatten();
    let cut = t.phone_lost.as_ref().map(|lost| Cut {
        why: format!("the phone's connection was lost: {lost:?}{}", idle_out::describe(&excuse)),
        excused: excuse.as_ref().is_some_and(|e| e.is_ok()),
    });
    let seen = Seen {
        echo: Some(Echo { sent: expected, back: t.echoes.clone(), cut }),
        accepted: Some(Accepted {
            accepted: t.accepted as u64,
            expected: 1 + t.redials as u64,
            why: format!("{} dials again after a connection lost to a move", t.redials),
            wrong: None,
        }),
        // Under loss the one CONNECTION_CLOSE may be lost (the cloud then idles out).
        close: Some(Close { seen: t.closed_with.map(|c| (c, true)), may_be_lost: !lossless, may_die: false, died: false }),
        ..Seen::default()
    };
    let datagrams = Check {
        law: &laws::DATAGRAMS_ECHOED,
        ok: if lossless { t.datagrams_back as usize == messages } else { t.datagrams_back as usize <= messages },
        detail: format!("{} of {messages} datagrams came back", t.datagrams_back),
    };
    (vec![datagrams], seen)
}

/// Open the stream and echo `messages` messages and datagrams at 1 Hz on
/// `conn`, from its handshake on; the connection's loss if it ends first.
async fn echo_all(conn: &QuicConn, t: &Rc<RefCell<Tally>>, messages: usize) -> Result<(), Lost> {
    loop {
        match conn.next_event().await {
            QuicEvent::Connected => break,
            QuicEvent::Lost(l) => return Err(l),
            _ => {}
        }
    }
    let stream = conn.open_bi().ok_or_else(|| Lost::Other("no stream".into()))?;
    let mut next_send = time::now();
    let mut sent = 0;
    let mut pending = String::new();
    while t.borrow().echoes.len() < messages {
        if sent < messages && time::now() >= next_send {
            let msg = format!("m{sent};");
            conn.write(stream, msg.as_bytes()).map_err(Lost::Other)?;
            let _ = conn.send_datagram(Bytes::from(format!("d{sent}")));
            trace::record(PHONE, "app.send", msg);
            sent += 1;
            next_send += INTERVAL;
        }
        let ev = tokio::select! {
            biased;
            ev = conn.next_event() => ev,
            _ = time::sleep_until(next_send), if sent < messages => continue,
        };
        match ev {
            QuicEvent::Data { data, .. } => {
                pending.push_str(&String::from_utf8_lossy(&data));
                while let Some(i) = pending.find(';') {
                    let m: String = pending.drain(..=i).collect();
                    trace::record(PHONE, "app.echo", m.clone());
                    t.borrow_mut().echoes.push(m);
                }
            }
            QuicEvent::Datagram(_) => t.borrow_mut().datagrams_back += 1,
            QuicEvent::Lost(l) => return Err(l),
            _ => {}
        }
    }
    Ok(())
}

/// `quic-echo`.
pub const QUIC_ECHO: ScenarioDef = ScenarioDef {
    name: "quic-echo",
    about: "a phone behind a NAT and the cloud over real QUIC: ten stream echoes and datagrams, through the plan's faults",
    domain: Domain::DEFAULT,
    laws: law_list![&[&laws::ECHO_IN_ORDER, &laws::ONE_CONNECTION, &laws::DATAGRAMS_ECHOED, &laws::CLEAN_CLOSE], reference::NETWORK],
    catches: &[],
    run,
};

/// `quic-stream`.
pub const QUIC_STREAM: ScenarioDef = ScenarioDef {
    name: "quic-stream",
    about: "a 90 s streaming session at 1 Hz (stream messages and datagrams), as quic-echo",
    // A 90 s session: faults anywhere in it.
    domain: Domain { horizon_ms: 85_000, ..Domain::DEFAULT },
    laws: law_list![&[&laws::ECHO_IN_ORDER, &laws::ONE_CONNECTION, &laws::DATAGRAMS_ECHOED, &laws::CLEAN_CLOSE], reference::NETWORK],
    catches: &[],
    run: run_stream,
};
