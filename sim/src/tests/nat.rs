//! NATs in the running world: a rebind changes the source the cloud sees while
//! the inside socket does not change; an idle mapping expires at 30 s and a
//! 15 s keepalive holds it; the phone moves to its cellular NAT keeping its socket.

use std::cell::RefCell;
use std::net::SocketAddr;
use std::rc::Rc;
use std::time::Duration;

use crate::host::addr;
use crate::net::NetAction;
use crate::time;
use crate::{RunSeed, World, WorldConfig};
use turmoil::net::UdpSocket;

type Log = Rc<RefCell<Vec<(Duration, SocketAddr)>>>;

/// The cloud echoes every datagram and logs its source; the phone sends at the
/// given times from ONE socket and logs what comes back.
/// What the cloud saw (time, source), what the phone got back (time, source), and the sources.
type Seen = (Vec<(Duration, SocketAddr)>, Vec<(Duration, SocketAddr)>, Vec<SocketAddr>);

fn run(sends_s: &'static [u64], actions: &[(u64, NetAction)]) -> Seen {
    let mut world = World::new(WorldConfig::new(RunSeed(9)));
    let wifi = world.nat("nat-wifi", addr::NAT_WIFI, Duration::from_secs(30));
    let cell = world.nat("nat-cell", addr::NAT_CELL, Duration::from_secs(30));
    assert_eq!((wifi, cell), (0, 1));
    world.behind(addr::PHONE, wifi);
    let mut chain = crate::net::fault::Chain::default();
    chain.push(crate::net::fault::Delay(Duration::from_millis(20)));
    world.default_chain(chain);
    for (at, a) in actions {
        world.schedule(Duration::from_secs(*at), a.clone());
    }
    let seen: Log = Rc::default();
    let back: Log = Rc::default();
    let local: Rc<RefCell<Vec<SocketAddr>>> = Rc::default();
    let s = seen.clone();
    world.host("cloud", addr::CLOUD, move || {
        let s = s.clone();
        async move {
            let sock = UdpSocket::bind(("0.0.0.0", 443)).await?;
            let mut buf = [0u8; 64];
            loop {
                let (n, from) = sock.recv_from(&mut buf).await?;
                s.borrow_mut().push((time::now(), from));
                sock.send_to(&buf[..n], from).await?;
            }
        }
    });
    let (b, l) = (back.clone(), local.clone());
    world.client("phone", addr::PHONE, async move {
        let sock = Rc::new(UdpSocket::bind(("0.0.0.0", 0)).await?);
        let r = sock.clone();
        let b2 = b.clone();
        tokio::task::spawn_local(async move {
            let mut buf = [0u8; 64];
            while let Ok((_, from)) = r.recv_from(&mut buf).await {
                b2.borrow_mut().push((time::now(), from));
            }
        });
        for &t in sends_s {
            time::sleep_until(Duration::from_secs(t)).await;
            l.borrow_mut().push(sock.local_addr()?);
            sock.send_to(b"ping", addr::cloud_door()).await?;
        }
        time::sleep(Duration::from_secs(1)).await;
        Ok(())
    });
    let out = world.run();
    assert!(out.result.is_ok(), "{:?}", out.result);
    let r = (seen.borrow().clone(), back.borrow().clone(), local.borrow().clone());
    r
}

#[test]
fn a_rebind_changes_the_source_the_cloud_sees_but_not_the_inside_socket() {
    let (seen, back, local) = run(&[1, 2, 3, 4], &[(3, NetAction::Rebind { host: addr::PHONE })]);
    assert_eq!(seen.len(), 4);
    assert_eq!(back.len(), 4, "replies reach the phone after the rebind too");
    assert_eq!(seen[0].1, seen[1].1);
    assert_ne!(seen[1].1, seen[2].1, "the cloud sees a new source after the rebind");
    assert_eq!(seen[1].1.ip(), seen[2].1.ip(), "same NAT, new port");
    assert_eq!(seen[2].1, seen[3].1);
    assert!(local.windows(2).all(|w| w[0] == w[1]), "the phone's socket never changed: {local:?}");
    assert!(back.iter().all(|(_, from)| *from == addr::cloud_door()), "the phone always sees the cloud's real address");
}

#[test]
fn an_idle_mapping_expires_at_30_s_and_a_15_s_keepalive_holds_it() {
    // Every 15 s for two minutes: one mapping throughout.
    let (seen, _, _) = run(&[0, 15, 30, 45, 60, 75, 90, 105, 120], &[]);
    assert!(seen.windows(2).all(|w| w[0].1 == w[1].1), "15 s keepalive holds the mapping: {seen:?}");
    // 29 s idle: held. Then 31 s idle: a new mapping (new outside port).
    let (seen, _, _) = run(&[0, 29, 60], &[]);
    assert_eq!(seen[0].1, seen[1].1, "29 s idle keeps it");
    assert_ne!(seen[1].1, seen[2].1, "31 s idle expired it");
}

#[test]
fn moving_to_cellular_gives_a_new_public_address_and_keeps_the_socket() {
    let (seen, back, local) = run(&[1, 2, 3], &[(2, NetAction::Move { host: addr::PHONE, nat: 1 })]);
    assert_eq!(seen[0].1.ip(), addr::NAT_WIFI);
    assert_eq!(seen[1].1.ip(), addr::NAT_CELL);
    assert_eq!(seen[2].1.ip(), addr::NAT_CELL);
    assert_eq!(back.len(), 3);
    assert!(local.windows(2).all(|w| w[0] == w[1]));
}
