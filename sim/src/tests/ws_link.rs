//! The WebSocket door through `Link`: order under loss and its head-of-line
//! cost against QUIC datagrams, every close code on both ends, refused dials,
//! one exchange over both transports unchanged, TLS resumption, exact replay.

use std::cell::RefCell;
use std::net::{SocketAddr, SocketAddrV4};
use std::rc::Rc;
use std::time::Duration;

use crate::drive::link::{accept_quic, accept_ws, close, dial_quic, dial_ws, CloseInfo, DialError, Link, LinkEvent, TransportKind};
use crate::drive::quic::QuicEndpoint;
use crate::drive::rig::Rig;
use crate::drive::tcp::TcpHost;
use crate::drive::ws::{client_tls, door_tls, tcp_gave_up, TcpGaveUp, WsClient, WsDoor, BEATS_MISSED_MAX, CLOSE_REPLY_WAIT, PING_INTERVAL};
use crate::host::{addr, cloud_certs, sim_clock};
use crate::plan::kind;
use crate::plan::{FaultKind, FaultPlan, TimedFault};
use crate::scenario::ws_echo::v4;
use crate::scenario::{self, Verdict};
use crate::time;
use crate::RunSpec;
use crate::{RunOutcome, RunSeed};
use ftw_crypto::{
    crypto_provider, new_client_session_store, new_server_session_store, quic_client_config, quic_endpoint_config, quic_server_config, seeded_cid_factory,
    ClientResumption, QuicTransportParams,
};

const SERVER_NAME: &str = ftw_crypto::consts::CLOUD_SERVER_NAME;

fn door_addr() -> SocketAddrV4 {
    SocketAddrV4::new(v4(addr::CLOUD), addr::CLOUD_PORT)
}

/// What the cloud saw end each link: transport, close, when.
type Ends = Rc<RefCell<Vec<(TransportKind, CloseInfo, Duration)>>>;

/// The cloud's echo service over `Link`: messages back as messages, datagrams
/// as datagrams; `close:<code>:<reason>` closes with that code, `abort` resets.
async fn serve(mut link: Link, ends: Ends) {
    loop {
        match link.recv().await {
            LinkEvent::Message(m) => {
                if let Some(rest) = m.strip_prefix(b"close:") {
                    let s = String::from_utf8_lossy(rest).into_owned();
                    let (code, reason) = s.split_once(':').unwrap_or((&s, ""));
                    link.close(code.parse().expect("code"), reason);
                } else if &m[..] == b"abort" {
                    let Link::Ws(w) = &mut link else { panic!("abort is for the WebSocket") };
                    w.abort();
                } else {
                    let _ = link.send(&m);
                }
            }
            LinkEvent::Datagram(d) => {
                let _ = link.send_datagram(&d);
            }
            LinkEvent::Closed(c) => {
                ends.borrow_mut().push((link.transport(), c, time::now()));
                return;
            }
        }
    }
}

/// A world with the standard topology and a cloud serving QUIC and/or the WebSocket door.
fn world(seed: u64, plan: FaultPlan, quic: bool, door: bool, ends: Ends) -> Rig {
    world_until(seed, plan, quic, door, ends, Duration::from_secs(900))
}

/// [`world`] with the run's limit.
fn world_until(seed: u64, plan: FaultPlan, quic: bool, door: bool, ends: Ends, limit: Duration) -> Rig {
    let spec = RunSpec { plan, ..RunSpec::new(&crate::OwnWorld("ws-test"), RunSeed(seed)) };
    let mut world = Rig::new(&spec, limit);
    let seed = spec.seed;
    world.host("cloud", addr::CLOUD, move || {
        let ends = ends.clone();
        async move {
            let tcp = TcpHost::bind("cloud", v4(addr::CLOUD), seed).await?;
            if quic {
                let rng = seed.crypto("cloud");
                let provider = crypto_provider(&rng.sub("tls"));
                let server = quic_server_config(
                    &provider,
                    &sim_clock("cloud"),
                    &cloud_certs(),
                    new_server_session_store(),
                    rng.sub_seed("quic/token-key"),
                    &QuicTransportParams::default(),
                );
                let ep_cfg =
                    quic_endpoint_config(rng.sub_seed("quic/reset-key"), rng.sub_seed("quic/endpoint"), seeded_cid_factory(rng.sub_seed("quic/cid"), 8));
                let ep = QuicEndpoint::bind("cloud", SocketAddr::from(([0, 0, 0, 0], addr::CLOUD_PORT)), ep_cfg, Some(server)).await?;
                let ends = ends.clone();
                tokio::task::spawn_local(async move {
                    loop {
                        let conn = ep.accept().await;
                        let ends = ends.clone();
                        tokio::task::spawn_local(async move {
                            if let Ok((link, _)) = accept_quic(conn).await {
                                serve(link, ends).await;
                            }
                        });
                    }
                });
            }
            if door {
                let door = WsDoor::bind(&tcp, addr::CLOUD_PORT, door_tls(seed, "cloud"))?;
                loop {
                    let (stream, _) = door.accept().await?;
                    let (door, ends) = (door.clone(), ends.clone());
                    tokio::task::spawn_local(async move {
                        if let Ok((link, target)) = accept_ws(&door, stream).await {
                            assert_eq!(target, "/v1/app?site=demo");
                            serve(link, ends).await;
                        }
                    });
                }
            }
            std::future::pending::<()>().await;
            Ok(())
        }
    });
    world
}

async fn phone_ws(seed: RunSeed, resumption: ClientResumption) -> std::io::Result<WsClient> {
    let tcp = TcpHost::bind("phone", v4(addr::PHONE), seed).await?;
    Ok(WsClient::new(tcp, client_tls(seed, "phone", resumption), seed))
}

async fn dial_phone_ws(client: &WsClient) -> Result<Link, DialError> {
    dial_ws(client, door_addr(), SERVER_NAME, "/v1/app?site=demo").await
}

async fn dial_phone_quic(seed: RunSeed) -> Result<Link, DialError> {
    let rng = seed.crypto("phone");
    let provider = crypto_provider(&rng.sub("tls"));
    let client = quic_client_config(
        &provider,
        &sim_clock("phone"),
        &cloud_certs(),
        ClientResumption::Disabled,
        rng.sub_seed("quic/initial-dcid"),
        &QuicTransportParams::default(),
    );
    let ep_cfg = quic_endpoint_config(rng.sub_seed("quic/reset-key"), rng.sub_seed("quic/endpoint"), seeded_cid_factory(rng.sub_seed("quic/cid"), 8));
    let ep = QuicEndpoint::bind("phone", "0.0.0.0:0".parse().expect("addr"), ep_cfg, None).await.map_err(|e| DialError::Other(e.to_string()))?;
    dial_quic(&ep, client, addr::cloud_door(), SERVER_NAME, "/v1/app?site=demo").await
}

fn p95(mut v: Vec<Duration>) -> Duration {
    v.sort();
    v[(v.len() * 95).div_ceil(100) - 1]
}

fn loss5() -> FaultPlan {
    let mut plan = FaultPlan::default();
    plan.phone.loss_pct = 5.0;
    plan
}

#[derive(Default)]
struct Rtts {
    ws_order: Vec<u32>,
    ws: Vec<Duration>,
    quic: Vec<Duration>,
}

#[test]
fn websocket_under_loss_is_in_order_and_pays_head_of_line_blocking_against_quic_datagrams() {
    const N: u32 = 200;
    const GAP: Duration = Duration::from_millis(50);
    let ends = Ends::default();
    let mut w = world(21, loss5(), true, true, ends.clone());
    let rtts = Rc::new(RefCell::new(Rtts::default()));
    let r = rtts.clone();
    let seed = RunSeed(21);
    w.client("phone", addr::PHONE, async move {
        let client = phone_ws(seed, ClientResumption::Disabled).await?;
        let mut quic = dial_phone_quic(seed).await.map_err(|e| format!("{e:?}"))?;
        let mut ws = dial_phone_ws(&client).await.map_err(|e| format!("{e:?}"))?;
        let mut sent_at = Vec::new();
        let start = time::now();
        let last_send = start + GAP * (N - 1);
        loop {
            let i = sent_at.len() as u32;
            if i < N && time::now() >= start + GAP * i {
                let mut msg = i.to_be_bytes().to_vec();
                msg.resize(100, 0xab);
                assert!(quic.send_datagram(&msg)?, "QUIC sends a datagram");
                assert!(!ws.send_datagram(&msg)?, "the WebSocket sends a message");
                sent_at.push(time::now());
                continue;
            }
            if r.borrow().ws_order.len() == N as usize && time::now() > last_send + Duration::from_secs(2) {
                break;
            }
            let next = if i < N { start + GAP * i } else { time::now().max(last_send + Duration::from_secs(2)) + Duration::from_millis(1) };
            tokio::select! {
                biased;
                ev = ws.recv() => match ev {
                    LinkEvent::Message(m) => {
                        let id = u32::from_be_bytes(m[..4].try_into().unwrap());
                        let mut r = r.borrow_mut();
                        r.ws_order.push(id);
                        r.ws.push(time::now() - sent_at[id as usize]);
                    }
                    other => return Err(format!("ws: {other:?}").into()),
                },
                ev = quic.recv() => match ev {
                    LinkEvent::Datagram(m) => {
                        let id = u32::from_be_bytes(m[..4].try_into().unwrap());
                        r.borrow_mut().quic.push(time::now() - sent_at[id as usize]);
                    }
                    other => return Err(format!("quic: {other:?}").into()),
                },
                _ = time::sleep_until(next) => {}
            }
        }
        ws.close(close::NORMAL, "done");
        quic.close(close::NORMAL, "done");
        time::sleep(Duration::from_millis(500)).await;
        Ok(())
    });
    let out = w.run();
    assert_eq!(out.result, Ok(()));
    let r = rtts.borrow();
    assert_eq!(r.ws_order, (0..N).collect::<Vec<_>>(), "every WebSocket message, once, in order");
    assert!(r.quic.len() < N as usize && r.quic.len() > (N as usize * 8) / 10, "QUIC datagrams are lost, not repaired ({} of {N})", r.quic.len());
    let (ws95, quic95) = (p95(r.ws.clone()), p95(r.quic.clone()));
    eprintln!("p95 at 5 % loss, 20 ms each way: WebSocket {ws95:?}, QUIC datagrams {quic95:?}");
    assert!(quic95 <= Duration::from_millis(50), "QUIC datagrams arrive in one round trip or not at all ({quic95:?})");
    assert!(ws95 > quic95 * 2, "head-of-line blocking shows in the WebSocket's tail: {ws95:?} vs {quic95:?}");
    let ends = ends.borrow();
    assert_eq!(ends.len(), 2, "{ends:?}");
    assert!(ends.iter().all(|(_, c, _)| c.code == close::NORMAL && c.by_peer), "{ends:?}");
}

/// How a close case ends the link.
#[derive(Clone, Copy, Debug)]
enum Ending {
    PhoneCloses(u16, &'static str),
    ServiceCloses(u16, &'static str),
    ServiceAborts,
    NetworkDies,
    /// The network goes silent at 2 s; the phone closes with 1000 at 3 s.
    PhoneClosesIntoSilence,
}

/// Run one close case; returns the phone's and the cloud's close, and when each came.
fn close_case(seed: u64, ending: Ending) -> ((CloseInfo, Duration), (CloseInfo, Duration), RunOutcome) {
    let mut plan = FaultPlan::default();
    if matches!(ending, Ending::NetworkDies | Ending::PhoneClosesIntoSilence) {
        plan.faults.push(TimedFault { at_ms: 2_000, fault: FaultKind::Blackhole(kind::Blackhole { host: crate::host::Host::Phone, for_ms: 600_000 }) });
    }
    let ends = Ends::default();
    let mut w = world(seed, plan, false, true, ends.clone());
    let phone_end = Rc::new(RefCell::new(None));
    let p = phone_end.clone();
    let rs = RunSeed(seed);
    w.client("phone", addr::PHONE, async move {
        let client = phone_ws(rs, ClientResumption::Disabled).await?;
        let mut link = dial_phone_ws(&client).await.map_err(|e| format!("{e:?}"))?;
        link.send(b"hello")?;
        assert_eq!(link.recv().await, LinkEvent::Message(bytes::Bytes::from_static(b"hello")));
        match ending {
            Ending::PhoneCloses(code, reason) => link.close(code, reason),
            Ending::ServiceCloses(code, reason) => link.send(format!("close:{code}:{reason}").as_bytes())?,
            Ending::ServiceAborts => link.send(b"abort")?,
            Ending::NetworkDies => {}
            Ending::PhoneClosesIntoSilence => {
                time::sleep_until(Duration::from_secs(3)).await;
                link.close(1000, "bye");
            }
        }
        loop {
            if let LinkEvent::Closed(c) = link.recv().await {
                *p.borrow_mut() = Some((c, time::now()));
                break;
            }
        }
        // Let the other end finish.
        time::sleep(Duration::from_secs(60)).await;
        Ok(())
    });
    let out = w.run();
    assert_eq!(out.result, Ok(()), "{ending:?}");
    let phone = phone_end.borrow().clone().expect("the phone saw a close");
    let cloud = ends.borrow().first().map(|(_, c, t)| (c.clone(), *t)).expect("the cloud saw a close");
    (phone, cloud, out)
}

fn info(code: u16, reason: &str, by_peer: bool) -> CloseInfo {
    CloseInfo { code, reason: reason.into(), by_peer }
}

#[test]
fn close_codes_are_seen_on_both_ends_as_a_browser_sees_them() {
    // The phone closes normally: the cloud sees 1000 from its peer; the phone the echo.
    let ((p, _), (c, _), _) = close_case(31, Ending::PhoneCloses(1000, "bye"));
    assert_eq!((p, c), (info(1000, "bye", false), info(1000, "bye", true)));
    // The service speaks: 4403 and 4408 with their reasons reach the phone.
    let ((p, _), (c, _), _) = close_case(32, Ending::ServiceCloses(4403, "forbidden"));
    assert_eq!((p, c), (info(4403, "forbidden", true), info(4403, "forbidden", false)));
    let ((p, _), (c, _), _) = close_case(33, Ending::ServiceCloses(4408, "timed out"));
    assert_eq!((p, c), (info(4408, "timed out", true), info(4408, "timed out", false)));
    // A close frame with no code is 1005 on both ends.
    let ((p, _), (c, _), _) = close_case(34, Ending::PhoneCloses(1005, ""));
    assert_eq!((p.code, p.by_peer, c.code, c.by_peer), (1005, false, 1005, true));
    assert_eq!((p.reason.as_str(), c.reason.as_str()), ("", ""));
}

#[test]
fn a_connection_that_dies_without_a_close_frame_is_1006_on_both_ends() {
    // The service resets its TCP connection: the phone sees 1006 on the RST, one trip later.
    let ((p, pt), (c, ct), out) = close_case(35, Ending::ServiceAborts);
    assert_eq!((p.code, p.by_peer, c.code, c.by_peer), (1006, true, 1006, false), "{p:?} {c:?}");
    assert!(pt >= ct && pt - ct <= Duration::from_millis(100), "the RST arrives in one trip ({ct:?} -> {pt:?})");
    assert!(!out.trace.events().iter().any(|e| e.kind == "ws.close"), "no close frame was sent");
    // The network goes silent at 2 s: the service gives up after two unanswered pings
    // (at the third beat, 45 s), the phone after three beats without a frame.
    let ((p, pt), (c, ct), _) = close_case(36, Ending::NetworkDies);
    assert_eq!((p.code, p.by_peer, c.code, c.by_peer), (1006, true, 1006, true), "{p:?} {c:?}");
    let beats = PING_INTERVAL * (BEATS_MISSED_MAX + 1);
    assert!(ct >= beats && ct <= beats + Duration::from_secs(1), "the service gave up at {ct:?}");
    assert!(pt >= beats && pt <= beats + Duration::from_secs(1), "the phone gave up at {pt:?}");
}

/// The side that closes first reports its own code CLOSE_REPLY_WAIT after its
/// close when no reply comes. The reader used to sleep on the heartbeat deadline
/// it had before the close and report only at the next frame, or three beats
/// after the last one (found by the fuzzer: corpus/ws-echo-close-reply-wait.toml).
#[test]
fn a_close_without_a_reply_is_reported_after_the_reply_wait() {
    let ((p, pt), (c, _), _) = close_case(37, Ending::PhoneClosesIntoSilence);
    assert_eq!((p.code, p.by_peer), (1000, false), "{p:?}");
    let due = Duration::from_secs(3) + CLOSE_REPLY_WAIT;
    assert!(pt >= due && pt <= due + Duration::from_millis(100), "the phone reported its close at {pt:?}, due at {due:?}");
    assert_eq!((c.code, c.by_peer), (1006, true), "the cloud never got the frame: {c:?}");
}

#[test]
fn an_idle_websocket_lives_on_the_service_pings() {
    let ends = Ends::default();
    let mut w = world(37, FaultPlan::default(), false, true, ends.clone());
    let rs = RunSeed(37);
    w.client("phone", addr::PHONE, async move {
        let client = phone_ws(rs, ClientResumption::Disabled).await?;
        let mut link = dial_phone_ws(&client).await.map_err(|e| format!("{e:?}"))?;
        // Ten minutes of silence from the application.
        tokio::select! {
            biased;
            ev = link.recv() => return Err(format!("idle link ended: {ev:?}").into()),
            _ = time::sleep(Duration::from_secs(600)) => {}
        }
        link.send(b"still here")?;
        assert_eq!(link.recv().await, LinkEvent::Message(bytes::Bytes::from_static(b"still here")));
        link.close(1000, "");
        while !matches!(link.recv().await, LinkEvent::Closed(_)) {}
        Ok(())
    });
    let out = w.run();
    assert_eq!(out.result, Ok(()));
    assert_eq!(ends.borrow().len(), 1);
    assert!(out.steps < 2_000, "idle time is skipped ({} steps)", out.steps);
}

#[test]
fn a_door_that_is_not_listening_refuses_at_once() {
    let ends = Ends::default();
    let mut w = world(41, FaultPlan::default(), false, false, ends);
    let got = Rc::new(RefCell::new(None));
    let g = got.clone();
    let rs = RunSeed(41);
    w.client("phone", addr::PHONE, async move {
        let client = phone_ws(rs, ClientResumption::Disabled).await?;
        let t0 = time::now();
        let r = dial_phone_ws(&client).await.err();
        *g.borrow_mut() = Some((r, time::now() - t0));
        Ok(())
    });
    assert_eq!(w.run().result, Ok(()));
    let (err, took) = got.borrow().clone().expect("dial returned");
    assert_eq!(err, Some(DialError::Refused));
    assert!(took <= Duration::from_millis(45), "refused after {took:?}");
}

/// A dial whose TCP connected and whose TLS bytes then never got an answer is
/// given up by TCP's abort (`tcp_retries2`: 924.6 s after the last segment
/// heard), and says so: ws-echo's phone, with no dial time-out of its own, sat
/// in TCP's backoff past its run's limit (corpus/ws-echo-dial-bytes-lost-14030096348.toml).
#[test]
fn a_dial_whose_tls_bytes_go_unanswered_is_given_up_by_tcps_abort() {
    let mut plan = FaultPlan::default();
    // After the SYN-ACK reached the phone (40 ms), before the cloud's first flight (80 ms).
    plan.faults.push(TimedFault { at_ms: 50, fault: FaultKind::Blackhole(kind::Blackhole { host: crate::host::Host::Phone, for_ms: 2_000_000 }) });
    let mut w = world_until(43, plan, false, true, Ends::default(), Duration::from_secs(1_200));
    let got = Rc::new(RefCell::new(None));
    let g = got.clone();
    let rs = RunSeed(43);
    w.client("phone", addr::PHONE, async move {
        let client = phone_ws(rs, ClientResumption::Disabled).await?;
        let err = dial_phone_ws(&client).await.err();
        *g.borrow_mut() = Some((err, time::now()));
        Ok(())
    });
    assert_eq!(w.run().result, Ok(()));
    let (err, at) = got.borrow().clone().expect("the dial returned");
    let err = err.expect("the dial failed");
    assert_eq!(tcp_gave_up(&err), Some(TcpGaveUp::Connected), "{err:?}");
    let abort = ftw_tcp::consts::RETRANSMIT_TIMEOUT_DEFAULT;
    assert!(at >= abort && at <= abort + Duration::from_secs(1), "given up at {at:?}");
}

/// One exchange through `Link`, whatever the transport: three messages, one datagram.
async fn exchange(link: &mut Link) -> (Vec<String>, bool) {
    for m in ["one", "two", "three"] {
        link.send(m.as_bytes()).expect("send");
    }
    let as_datagram = link.send_datagram(b"dgram").expect("datagram");
    let mut got = Vec::new();
    while got.len() < 4 {
        match link.recv().await {
            LinkEvent::Message(m) | LinkEvent::Datagram(m) => got.push(String::from_utf8_lossy(&m).into_owned()),
            LinkEvent::Closed(c) => panic!("closed early: {c:?}"),
        }
    }
    got.sort();
    link.close(1000, "done");
    while !matches!(link.recv().await, LinkEvent::Closed(_)) {}
    (got, as_datagram)
}

#[test]
fn the_same_exchange_runs_over_each_transport_through_link_unchanged() {
    let ends = Ends::default();
    let mut w = world(51, FaultPlan::default(), true, true, ends.clone());
    let results = Rc::new(RefCell::new(Vec::new()));
    let r = results.clone();
    let rs = RunSeed(51);
    w.client("phone", addr::PHONE, async move {
        let client = phone_ws(rs, ClientResumption::Disabled).await?;
        for link in [dial_phone_quic(rs).await, dial_phone_ws(&client).await] {
            let mut link = link.map_err(|e| format!("{e:?}"))?;
            let kind = link.transport();
            let (got, as_datagram) = exchange(&mut link).await;
            r.borrow_mut().push((kind, got, as_datagram));
        }
        time::sleep(Duration::from_millis(500)).await;
        Ok(())
    });
    assert_eq!(w.run().result, Ok(()));
    let results = results.borrow();
    let want: Vec<String> = ["dgram", "one", "three", "two"].map(String::from).to_vec();
    assert_eq!(*results, vec![(TransportKind::Quic, want.clone(), true), (TransportKind::WebSocket, want, false)]);
    assert_eq!(TransportKind::WebSocket.name(), "WebSocket");
    let ends = ends.borrow();
    let kinds: Vec<_> = ends.iter().map(|(k, c, _)| (*k, c.code)).collect();
    assert_eq!(kinds, vec![(TransportKind::Quic, 1000), (TransportKind::WebSocket, 1000)]);
}

#[test]
fn the_phone_resumes_tls_with_a_ticket_on_reconnect() {
    let ends = Ends::default();
    let mut w = world(61, FaultPlan::default(), false, true, ends);
    let resumed = Rc::new(RefCell::new(Vec::new()));
    let r = resumed.clone();
    let rs = RunSeed(61);
    w.client("phone", addr::PHONE, async move {
        let client = phone_ws(rs, ClientResumption::Store(new_client_session_store())).await?;
        for _ in 0..2 {
            let mut link = dial_phone_ws(&client).await.map_err(|e| format!("{e:?}"))?;
            let Link::Ws(ws) = &link else { unreachable!() };
            r.borrow_mut().push(ws.tls_resumed());
            exchange(&mut link).await;
        }
        Ok(())
    });
    let out = w.run();
    assert_eq!(out.result, Ok(()));
    assert_eq!(*resumed.borrow(), vec![false, true], "full handshake first, then a ticket");
    let accepts: Vec<_> = out.trace.events().iter().filter(|e| e.kind == "ws.accept").map(|e| e.detail.clone()).collect();
    assert!(accepts.len() == 2 && accepts[0].ends_with("tls=full") && accepts[1].ends_with("tls=resumed"), "{accepts:?}");
}

#[test]
fn ws_echo_passes_under_loss_and_replays_exactly() {
    let mut spec = crate::scenario::spec("ws-echo", RunSeed(71));
    spec.plan = loss5();
    let a = scenario::run(&spec).expect("spec");
    assert_eq!(a.verdict(), Verdict::Pass, "{:?}", a.checks);
    let b = scenario::run(&spec).expect("spec");
    assert_eq!(a.outcome.trace.hash(), b.outcome.trace.hash(), "same seed, same trace");
    let c = scenario::run(&RunSpec { seed: RunSeed(72), ..spec.clone() }).expect("spec");
    assert_eq!(c.verdict(), Verdict::Pass, "{:?}", c.checks);
    assert_ne!(a.outcome.trace.hash(), c.outcome.trace.hash());
    // UDP blocked does not touch the WebSocket.
    let mut blocked = crate::scenario::spec("ws-echo", RunSeed(73));
    blocked.plan.faults.push(TimedFault { at_ms: 0, fault: FaultKind::UdpBlocked(kind::UdpBlocked { host: crate::host::Host::Phone, for_ms: 60_000 }) });
    let d = scenario::run(&blocked).expect("spec");
    assert_eq!(d.verdict(), Verdict::Pass, "{:?}", d.checks);
}
