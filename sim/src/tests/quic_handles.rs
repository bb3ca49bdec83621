//! quinn-proto reuses a drained connection's handle for the next connection.
//! A `QuicConn` kept by an application past its connection's end must not read
//! its successor's events (found by `ftwsim table`: a phone racing again from
//! the same socket had its new connection's first message eaten by the cloud's
//! old link, and the cloud closed the new one with 4400).

use std::cell::RefCell;
use std::net::SocketAddr;
use std::rc::Rc;
use std::time::Duration;

use crate::drive::build::{client_quic, cloud_quic_endpoint};
use crate::drive::quic::{Lost, QuicEndpoint, QuicEvent};
use crate::host::{addr, cloud_certs, sim_clock};
use crate::time;
use crate::{RunSeed, World, WorldConfig};
use bytes::Bytes;
use ftw_crypto::{crypto_provider, quic_client_config, quic_endpoint_config, seeded_cid_factory, ClientResumption, QuicTransportParams};

#[derive(Default)]
struct Log {
    handles: Vec<usize>,
    seen_by: Vec<(usize, String)>,
    /// What the first connection's handle answered once the second took its index.
    stale_remote: Option<Option<SocketAddr>>,
    stale_write_ok: Option<bool>,
}

/// The cloud: accepts two connections on one endpoint; when the second comes,
/// tries the first's (stale) handle; reads each with a reader of its own.
async fn cloud(seed: RunSeed, l: Rc<RefCell<Log>>) -> turmoil::Result {
    let ep = cloud_quic_endpoint(seed).await?;
    let mut first = None;
    for n in 0..2usize {
        let conn = ep.accept().await;
        l.borrow_mut().handles.push(conn.id());
        if n == 0 {
            first = Some(conn.clone());
        } else if let Some(old) = &first {
            // The old handle names a gone connection, not the new one.
            let stream = conn.open_uni();
            l.borrow_mut().stale_remote = Some(old.remote());
            l.borrow_mut().stale_write_ok = Some(stream.is_some_and(|s| old.write(s, b"stale").is_ok()));
        }
        tokio::task::spawn_local(read_for_ever(n, conn, l.clone()));
    }
    std::future::pending::<()>().await;
    Ok(())
}

/// Each reader keeps polling its own handle for ever, as a link does.
async fn read_for_ever(n: usize, conn: crate::drive::quic::QuicConn, l: Rc<RefCell<Log>>) {
    if n == 1 {
        // The new connection's own reader starts late: whatever
        // arrives meanwhile must wait for it, not go to the old one.
        time::sleep(Duration::from_secs(1)).await;
    }
    loop {
        match conn.next_event().await {
            QuicEvent::Data { data, .. } => l.borrow_mut().seen_by.push((n, String::from_utf8_lossy(&data).into_owned())),
            // A gone connection answers at once: poll again every millisecond,
            // as eagerly as a link task would be woken.
            QuicEvent::Lost(_) => time::sleep(Duration::from_millis(1)).await,
            _ => {}
        }
    }
}

/// The phone: two connections one after the other from the same socket, each
/// sending one word and closing, both ends drained before the next.
async fn phone(seed: RunSeed) -> turmoil::Result {
    let rng = seed.crypto("phone");
    let provider = crypto_provider(&rng.sub("tls"));
    let ep_cfg = quic_endpoint_config(rng.sub_seed("quic/reset-key"), rng.sub_seed("quic/endpoint"), seeded_cid_factory(rng.sub_seed("quic/cid"), 8));
    let ep = QuicEndpoint::bind("phone", "0.0.0.0:0".parse().expect("addr"), ep_cfg, None).await?;
    for (i, word) in ["first", "second"].into_iter().enumerate() {
        let client = quic_client_config(
            &provider,
            &sim_clock("phone"),
            &cloud_certs(),
            ClientResumption::Disabled,
            rng.sub_seed(&format!("quic/initial-dcid/{i}")),
            &QuicTransportParams::default(),
        );
        let conn = ep.connect(client, addr::cloud_door(), ftw_crypto::consts::CLOUD_SERVER_NAME)?;
        while conn.next_event().await != QuicEvent::Connected {}
        let s = conn.open_bi().ok_or("stream")?;
        conn.write(s, word.as_bytes())?;
        time::sleep(Duration::from_secs(2)).await;
        conn.close(1000, "done");
        let _ = conn.send_datagram(Bytes::new());
        // Long enough for both ends to drain, so the cloud frees the handle.
        time::sleep(Duration::from_secs(5)).await;
    }
    Ok(())
}

#[test]
fn a_stale_connection_handle_never_reads_its_successor() {
    let seed = RunSeed(4);
    let mut world = World::new(WorldConfig::new(seed));
    let log: Rc<RefCell<Log>> = Rc::default();
    let l = log.clone();
    world.host("cloud", addr::CLOUD, move || cloud(seed, l.clone()));
    world.client("phone", addr::PHONE, phone(seed));
    let out = world.run();
    assert!(out.result.is_ok(), "{:?}", out.result);
    let log = log.borrow();
    assert_eq!(log.handles.len(), 2);
    assert_eq!(log.handles[0], log.handles[1], "the test needs quinn-proto to reuse the handle");
    assert_eq!(log.seen_by, vec![(0, "first".to_string()), (1, "second".to_string())], "each reader sees only its own connection");
    assert_eq!(log.stale_remote, Some(None), "the old handle has no remote: its connection is gone");
    assert_eq!(log.stale_write_ok, Some(false), "writing through the old handle fails instead of reaching the new connection");
}

/// The phone: connect, close, then wait on the closed connection's next event
/// for at most 60 s; how it ended, and when (simulated), from the close on.
async fn close_and_wait(seed: RunSeed, got: Rc<RefCell<Option<(Lost, Duration)>>>) -> turmoil::Result {
    let (ep, client) = client_quic(seed, "phone").await?;
    let conn = ep.connect(client, addr::cloud_door(), ftw_crypto::consts::CLOUD_SERVER_NAME)?;
    while conn.next_event().await != QuicEvent::Connected {}
    conn.close(1000, "done");
    let closed = time::now();
    let give_up = time::now() + Duration::from_secs(60);
    loop {
        let ev = tokio::select! {
            biased;
            ev = conn.next_event() => ev,
            _ = time::sleep_until(give_up) => return Ok(()),
        };
        if let QuicEvent::Lost(l) = ev {
            *got.borrow_mut() = Some((l, time::now() - closed));
            return Ok(());
        }
    }
}

/// quinn-proto tells the application nothing when a connection it closed itself
/// drains (only a peer's close or an error is an event), so the driver must wake
/// a task waiting on it when it drops the drained slot. Before, the task slept
/// until its own give-up: the quic-echo phone lingered 20 s after every close,
/// and one run whose echoes took 100 s hit the 120 s limit
/// (corpus/rig-quic-echo-backoff-after-blackout-14020023638.toml).
#[test]
fn a_task_waiting_on_a_connection_it_closed_wakes_when_it_drains() {
    let seed = RunSeed(4);
    let mut world = World::new(WorldConfig::new(seed));
    let got: Rc<RefCell<Option<(Lost, Duration)>>> = Rc::default();
    let g = got.clone();
    world.host("cloud", addr::CLOUD, move || async move {
        let ep = cloud_quic_endpoint(seed).await?;
        let conn = ep.accept().await;
        while !matches!(conn.next_event().await, QuicEvent::Lost(_)) {}
        std::future::pending::<()>().await;
        Ok(())
    });
    world.client("phone", addr::PHONE, close_and_wait(seed, g));
    let out = world.run();
    assert!(out.result.is_ok(), "{:?}", out.result);
    let (lost, after) = got.borrow_mut().take().expect("the wait ended with the connection's end, not the 60 s give-up");
    assert_eq!(lost, Lost::Other("gone".into()), "the closed connection reports it is gone");
    // Draining takes three probe timeouts (RFC 9000 section 10.2): well under a second here.
    assert!(after < Duration::from_secs(2), "woken {after:?} after the close");
}
