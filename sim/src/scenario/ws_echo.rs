//! `ws-echo`: quic-echo over the WebSocket. A phone behind its NAT dials the
//! cloud's WebSocket door (TCP, TLS 1.3, upgrade to the target) and, through
//! `Link` unchanged, sends ten messages and ten "datagrams", one a second; the
//! cloud echoes each. Over the WebSocket a datagram goes as a message, so every
//! one comes back, in order, even under loss (TCP repairs it). The phone closes
//! with 1000.
//!
//! ws-echo has no reconnect. A WebSocket may die of its heartbeat (two pings
//! unanswered, 15 s apart) when TCP's retransmission backoff after an outage or
//! repeated loss leaves nothing delivered for more than two beats (RTOs of 8,
//! then 16 s: found by `ftwsim fuzz`, corpus/ws-echo-heartbeat-death.toml). The
//! laws then ask that the echoes so far are an in-order prefix, that both ends
//! learn of the death, and that only a plan with loss or an outage kills a link.
//! Likewise the phone's close frame may be lost until the cloud's heartbeat
//! ends the link (1006); the cloud must learn that the link is over either way.
//! And the dial itself fails when every SYN is lost (seven over 127 s, as
//! Linux's connect: corpus/ws-echo-every-syn-lost-13910018809.toml): the phone
//! gives up, the door accepted nothing, and only a plan with loss or an outage
//! may do that. Once connected, a dial whose TLS or upgrade bytes go
//! unacknowledged is given up by TCP's abort (`tcp_retries2`, 924.6 s after the
//! last segment heard: corpus/ws-echo-dial-bytes-lost-14030096348.toml): the
//! door accepted the TCP connection and no WebSocket, under the same law. And
//! a dial connected only by the door's last SYN-ACK, whose ACK and first bytes
//! are lost, is reset: the phone's next bytes wait 2 SRTT (an SRTT sampled
//! across the SYN's retries, tens of seconds) and come after the door gave the
//! half-open connection up, as on Linux (the door accepted nothing, the same law:
//! docs/findings/ws-dial-reset-after-half-open-given-up.md).

use std::cell::RefCell;
use std::net::{IpAddr, Ipv4Addr, SocketAddrV4};
use std::rc::Rc;
use std::time::Duration;

use ftw_crypto::ClientResumption;

use super::def::{RunReport, ScenarioDef};
use crate::drive::link::{accept_ws, dial_ws, CloseInfo, LinkEvent, TransportKind};
use crate::drive::rig::Rig;
use crate::drive::tcp::{tcp_config_for, TcpHost};
use crate::drive::ws::{client_tls, door_tls, tcp_gave_up, TcpGaveUp, WsClient, WsDoor};
use crate::kinds;
use crate::law::laws;
use crate::law::reference;
use crate::law::seen::{Accepted, Close, Cut, Echo, Seen};
use crate::law::Check;
use crate::law_list;
use crate::world::net::fault::Outage;
use crate::world::domain::{Domain, Kind, IMPAIRMENTS};
use crate::world::host::addr;
use crate::world::host::{CLOUD, PHONE};
use crate::world::time;
use crate::world::topology::RunSpec;
use crate::world::trace;

const MESSAGES: usize = 10;
const INTERVAL: Duration = Duration::from_secs(1);
/// How long a run may take past its messages (TCP's 1 s minimum RTO and
/// backoff under loss need more room than QUIC).
const SLACK: Duration = Duration::from_secs(170);
/// How long the dial may take: ws-echo's phone has no dial time-out of its own,
/// so its TCP's give-ups are the phone's, and a run must reach them before its
/// limit (`ftw_tcp::consts`: every SYN unanswered, 127 s; then bytes
/// unacknowledged, 924.6 s after the last segment heard).
const DIAL_GIVE_UP: Duration = ftw_tcp::consts::CONNECT_TIMEOUT_DEFAULT.saturating_add(ftw_tcp::consts::RETRANSMIT_TIMEOUT_DEFAULT);
/// How long the phone stays up after its close for the cloud to see it: TCP's
/// backoff caps at 120 s (Linux `TCP_RTO_MAX`, `ftw_tcp::consts::LINUX_RTO_MAX`),
/// so a close frame still unacknowledged is retransmitted at least once within it.
const CLOSE_LINGER: Duration = Duration::from_secs(120);
/// The target the phone opens (path and query).
pub const TARGET: &str = "/v1/app?site=demo";

/// The IPv4 form of a world address.
pub fn v4(ip: IpAddr) -> Ipv4Addr {
    match ip {
        IpAddr::V4(a) => a,
        IpAddr::V6(_) => panic!("the world is IPv4"),
    }
}

#[derive(Default)]
struct Tally {
    accepted: u32,
    target: Option<String>,
    echoes: Vec<String>,
    datagram_echoes: Vec<String>,
    sent_as_datagram: u32,
    transport: Option<TransportKind>,
    closed_with: Option<CloseInfo>,
    /// Woken when the cloud's side sees its close.
    cloud_closed: Rc<tokio::sync::Notify>,
    /// The close the phone saw before it closed (the link died under it).
    phone_saw_death: Option<CloseInfo>,
    /// The dial's TCP gave up, and where (ws-echo does not dial again).
    dial_failed: Option<(TcpGaveUp, String)>,
}

/// Wait until the cloud's side has seen the link end, or CLOSE_LINGER.
async fn linger_for_cloud(t: &Rc<RefCell<Tally>>) {
    let cloud_closed = t.borrow().cloud_closed.clone();
    if t.borrow().closed_with.is_none() {
        tokio::select! {
            biased;
            () = cloud_closed.notified() => {}
            () = time::sleep(CLOSE_LINGER) => {}
        }
    }
}

pub fn run(spec: &RunSpec) -> RunReport {
    let mut world = Rig::new(spec, DIAL_GIVE_UP + SLACK + INTERVAL * MESSAGES as u32);
    let seed = spec.seed;
    let (cloud_tcp, phone_tcp) = (tcp_config_for(&spec.plan, 0), tcp_config_for(&spec.plan, spec.plan.phone.mtu));
    let tally = Rc::new(RefCell::new(Tally::default()));
    host_echo_door(&mut world, seed, cloud_tcp, &tally);
    let t = tally.clone();
    world.client(PHONE, addr::PHONE, async move { phone_echoes(seed, phone_tcp, &t).await });
    let outcome = world.run();
    let (checks, seen) = judge_echoes(&tally.borrow(), plan_can_kill_a_link(&spec.plan));
    RunReport::new(outcome, checks).with(seen)
}

/// The cloud: a WebSocket door echoing every message, noting how each link ended.
fn host_echo_door(world: &mut crate::world::World, seed: crate::world::seed::RunSeed, cloud_tcp: ftw_tcp::TcpConfig, tally: &Rc<RefCell<Tally>>) {
    let t = tally.clone();
    world.host(CLOUD, addr::CLOUD, move || {
        let (t, cloud_tcp) = (t.clone(), cloud_tcp.clone());
        async move {
            let tcp = TcpHost::bind_with(CLOUD, v4(addr::CLOUD), seed, cloud_tcp).await?;
            let door = WsDoor::bind(&tcp, addr::CLOUD_PORT, door_tls(seed, CLOUD))?;
            loop {
                let (stream, _) = door.accept().await?;
                t.borrow_mut().accepted += 1;
                let (t, door) = (t.clone(), door.clone());
                tokio::task::spawn_local(async move {
                    let Ok((mut link, target)) = accept_ws(&door, stream).await else { return };
                    t.borrow_mut().target = Some(target);
                    loop {
                        match link.recv().await {
                            LinkEvent::Message(m) | LinkEvent::Datagram(m) => {
                                let _ = link.send(&m);
                            }
                            LinkEvent::Closed(c) => {
                                t.borrow_mut().closed_with = Some(c);
                                t.borrow().cloud_closed.notify_one();
                                break;
                            }
                        }
                    }
                });
            }
        }
    });
}

/// The phone's message `sent` and its datagram (which the WebSocket carries as a message).
fn send_pair(link: &mut crate::drive::link::Link, sent: usize, t: &Rc<RefCell<Tally>>) -> Result<(), String> {
    let msg = format!("m{sent};");
    link.send(msg.as_bytes())?;
    if link.send_datagram(format!("d{sent}").as_bytes())? {
        t.borrow_mut().sent_as_datagram += 1;
    }
    trace::record(PHONE, "app.send", msg);
    Ok(())
}

/// The phone: a message and a datagram a second until every echo is back, then a
/// clean close; if the link dies first, it stays up until the cloud has seen it.
async fn phone_echoes(seed: crate::world::seed::RunSeed, phone_tcp: ftw_tcp::TcpConfig, t: &Rc<RefCell<Tally>>) -> turmoil::Result {
    let tcp = TcpHost::bind_with(PHONE, v4(addr::PHONE), seed, phone_tcp).await?;
    let client = WsClient::new(tcp, client_tls(seed, PHONE, ClientResumption::Disabled), seed);
    let door = SocketAddrV4::new(v4(addr::CLOUD), addr::CLOUD_PORT);
    let mut link = match dial_ws(&client, door, ftw_crypto::consts::CLOUD_SERVER_NAME, TARGET).await {
        Ok(link) => link,
        Err(e) => match tcp_gave_up(&e) {
            Some(at) => {
                trace::record(PHONE, "app.dial_failed", format!("{e:?}"));
                t.borrow_mut().dial_failed = Some((at, format!("{e:?}")));
                return Ok(());
            }
            None => return Err(format!("dial: {e:?}").into()),
        },
    };
    t.borrow_mut().transport = Some(link.transport());
    let mut next_send = time::now();
    let mut sent = 0;
    while t.borrow().echoes.len() + t.borrow().datagram_echoes.len() < 2 * MESSAGES {
        if sent < MESSAGES && time::now() >= next_send {
            send_pair(&mut link, sent, t)?;
            sent += 1;
            next_send += INTERVAL;
        }
        let ev = tokio::select! {
            biased;
            ev = link.recv() => ev,
            _ = time::sleep_until(next_send), if sent < MESSAGES => continue,
        };
        match ev {
            LinkEvent::Message(m) | LinkEvent::Datagram(m) => {
                let m = String::from_utf8_lossy(&m).into_owned();
                trace::record(PHONE, "app.echo", m.clone());
                let mut t = t.borrow_mut();
                if m.starts_with('d') {
                    t.datagram_echoes.push(m);
                } else {
                    t.echoes.push(m);
                }
            }
            LinkEvent::Closed(c) => {
                trace::record(PHONE, "app.link_died", format!("{c:?}"));
                t.borrow_mut().phone_saw_death = Some(c);
                // Stay up while the cloud's own heartbeat ends its side: the law
                // asks that it learns the link is over (a phone that left at once
                // ended the run first: corpus/ws-echo-death-cloud-not-yet-told.toml).
                linger_for_cloud(t).await;
                return Ok(());
            }
        }
    }
    link.close(1000, "done");
    // Wait for the cloud's reply to the close (or CLOSE_REPLY_WAIT).
    while !matches!(link.recv().await, LinkEvent::Closed(_)) {}
    // Then stay up, as a phone does, while TCP still delivers the close frame
    // to a cloud that has not seen it (a close frame lost on a leg whose RTO
    // has backed off outlives the 5 s wait: corpus/ws-echo-close-reply-wait.toml).
    linger_for_cloud(t).await;
    drop(link);
    Ok(())
}

/// The echo's own laws over the run's tally, and what it saw for the laws it
/// shares with the other echoes; `can_kill`: the plan may kill a WebSocket.
fn judge_echoes(t: &Tally, can_kill: bool) -> (Vec<Check>, Seen) {
    let expected: Vec<String> = (0..MESSAGES).map(|i| format!("m{i};")).collect();
    let expected_d: Vec<String> = (0..MESSAGES).map(|i| format!("d{i}")).collect();
    let gave_up = t.dial_failed.as_ref().map(|(at, _)| *at);
    let (died, never_opened) = (t.phone_saw_death.is_some() || gave_up.is_some(), gave_up.is_some());
    // A death or a failed dial is judged by `death-needs-a-fault`: the echo it cut is excused.
    let why = match gave_up {
        Some(TcpGaveUp::Reset) => "the door reset the dial",
        Some(_) => "the phone's TCP gave up the dial",
        None => "then the link died",
    };
    // The door accepted the TCP connection of a dial that got that far, and no WebSocket.
    let (door_expected, door) = match gave_up {
        None => (1, "the door: one WebSocket"),
        Some(TcpGaveUp::Connecting) => (0, "the door: none, the dial's SYNs were all lost"),
        Some(TcpGaveUp::Connected) => (1, "the door: the dial's TCP connection, its TLS or upgrade bytes then all lost"),
        Some(TcpGaveUp::Reset) => (0, "the door: none, it gave the half-open connection up before the phone's bytes came, and reset them"),
    };
    let cut = died.then(|| Cut { why: why.into(), excused: true });
    let wrong_target = !never_opened && (t.target.as_deref() != Some(TARGET) || t.transport != Some(TransportKind::WebSocket));
    let seen = Seen {
        echo: Some(Echo { sent: expected, back: t.echoes.clone(), cut }),
        accepted: Some(Accepted {
            accepted: t.accepted as u64,
            expected: door_expected,
            why: door.into(),
            wrong: wrong_target.then(|| format!("target {:?}, transport {:?}", t.target, t.transport)),
        }),
        // Under loss or a blackhole the close frame may be lost until the
        // cloud's heartbeat ends the link (corpus/ws-echo-close-reply-wait.toml):
        // then the cloud must still learn it is over, with 1006.
        close: Some(Close { seen: t.closed_with.as_ref().map(|c| (u64::from(c.code), c.by_peer)), may_be_lost: false, may_die: can_kill, died }),
        ..Seen::default()
    };
    let checks = vec![
        Check {
            law: &laws::DEATH_NEEDS_A_FAULT,
            ok: match (never_opened, died) {
                (true, _) => can_kill,
                (false, false) => true,
                (false, true) => can_kill && t.closed_with.as_ref().is_some_and(|c| c.code != 1000),
            },
            detail: format!(
                "the phone saw {:?}{}, the cloud {:?}; the plan {} loss or an outage",
                t.phone_saw_death,
                t.dial_failed.as_ref().map(|(_, d)| format!(" (its dial failed: {d})")).unwrap_or_default(),
                t.closed_with,
                if can_kill { "has" } else { "has no" }
            ),
        },
        Check {
            law: &laws::WS_DATAGRAMS_AS_MESSAGES,
            ok: expected_d.starts_with(&t.datagram_echoes) && (died || t.datagram_echoes.len() == expected_d.len()) && t.sent_as_datagram == 0,
            detail: format!("{} sent as datagrams; came back {:?}", t.sent_as_datagram, t.datagram_echoes),
        },
    ];
    (checks, seen)
}

/// Whether a plan may kill a WebSocket by stalling its TCP past the heartbeat:
/// loss on a leg, or a blackhole (UDP blocked or refused lets TCP pass).
fn plan_can_kill_a_link(plan: &crate::world::plan::FaultPlan) -> bool {
    plan.phone.loss_pct > 0.0 || plan.box_.loss_pct > 0.0 || plan.faults.iter().any(|f| matches!(f.fault.def().outage(), Some((Outage::Blackhole, _))))
}

/// `ws-echo`.
pub const WS_ECHO: ScenarioDef = ScenarioDef {
    name: "ws-echo",
    about: "quic-echo over the WebSocket door (TCP, TLS 1.3, upgrade) through Link: ten echoes and ten datagrams sent as messages",
    // A WebSocket has no migration: a rebind or a move gives its TCP flow a new
    // outside port and the cloud resets it (as behind a real NAT), and ws-echo
    // has no reconnect. Its laws hold under everything else.
    domain: Domain { kinds: kinds![IMPAIRMENTS, &[Kind::Mtu, Kind::Blackhole]], ..Domain::DEFAULT },
    laws: law_list![
        &[&laws::ECHO_IN_ORDER, &laws::DEATH_NEEDS_A_FAULT, &laws::ONE_CONNECTION, &laws::WS_DATAGRAMS_AS_MESSAGES, &laws::CLEAN_CLOSE],
        reference::NETWORK,
        &[&reference::tcp::TCP.law]
    ],
    catches: &[],
    run,
};

#[cfg(test)]
mod tests {
    //! A dial whose TCP handshake gave up (every SYN lost) is judged as a link's
    //! death: allowed only under a plan with loss or an outage, and then the door
    //! accepted nothing.

    use super::*;

    fn death_needs_a_fault(t: &Tally, can_kill: bool) -> bool {
        let (checks, _) = judge_echoes(t, can_kill);
        checks.iter().find(|c| c.law.name == laws::DEATH_NEEDS_A_FAULT.name).expect("judged").ok
    }

    #[test]
    fn a_dial_given_up_needs_loss_or_an_outage() {
        let failed = Tally { dial_failed: Some((TcpGaveUp::Connecting, "tcp: TimedOut".into())), ..Tally::default() };
        assert!(death_needs_a_fault(&failed, true));
        assert!(!death_needs_a_fault(&failed, false));
        let accepted = judge_echoes(&failed, true).1.accepted.expect("the door's count");
        assert_eq!((accepted.expected, accepted.wrong), (0, None));
        // A dial given up once connected: the door accepted its TCP connection, no WebSocket.
        let aborted = Tally { accepted: 1, dial_failed: Some((TcpGaveUp::Connected, "tcp aborted: tls: TimedOut".into())), ..Tally::default() };
        assert!(death_needs_a_fault(&aborted, true));
        assert!(!death_needs_a_fault(&aborted, false));
        let accepted = judge_echoes(&aborted, true).1.accepted.expect("the door's count");
        assert_eq!((accepted.expected, accepted.wrong), (1, None));
        // A dial reset by a door that had given its half-open connection up: the door accepted nothing.
        let reset = Tally { dial_failed: Some((TcpGaveUp::Reset, "tcp reset: tls: Reset".into())), ..Tally::default() };
        assert!(death_needs_a_fault(&reset, true));
        assert!(!death_needs_a_fault(&reset, false));
        let accepted = judge_echoes(&reset, true).1.accepted.expect("the door's count");
        assert_eq!((accepted.expected, accepted.wrong), (0, None));
        // A dial that opened: one WebSocket, and a clean link needs no fault.
        let opened = Tally { accepted: 1, target: Some(TARGET.into()), transport: Some(TransportKind::WebSocket), ..Tally::default() };
        assert!(death_needs_a_fault(&opened, false));
        assert_eq!(judge_echoes(&opened, false).1.accepted.expect("the door's count").expected, 1);
    }
}
