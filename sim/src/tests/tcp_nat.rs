//! The userspace TCP through the simulated network: a NAT rewrites it, loss is
//! repaired by retransmission, a connect to a closed port is refused at once,
//! and a run replays exactly.

use std::cell::RefCell;
use std::io;
use std::net::{IpAddr, Ipv4Addr, SocketAddrV4};
use std::rc::Rc;
use std::time::Duration;

use crate::drive::rig::Rig;
use crate::drive::tcp::{tcp_config_for, TcpHost};
use crate::host::addr;
use crate::net::fault::{Chain, Ctx, Delay, Fault};
use crate::net::{nat, InFlight, NetAction, IP_TUNNEL_PORT};
use crate::plan::{FaultPlan, TcpPlan};
use crate::time;
use crate::RunSpec;
use crate::{RunOutcome, RunSeed};
use tokio::io::{AsyncReadExt, AsyncWriteExt};

fn v4(ip: IpAddr) -> Ipv4Addr {
    match ip {
        IpAddr::V4(a) => a,
        IpAddr::V6(_) => unreachable!(),
    }
}

const PORT: u16 = 80;

fn pattern(n: usize) -> Vec<u8> {
    (0..n).map(|i| (i * 7 + i / 251) as u8).collect()
}

/// Drops the `nth` tunnelled TCP datagram that carries payload (counted from 1).
struct DropNthSegment {
    nth: u32,
    seen: Rc<RefCell<u32>>,
}

impl Fault for DropNthSegment {
    fn name(&self) -> String {
        format!("drop-segment({})", self.nth)
    }
    fn process(&mut self, _: &mut Ctx<'_>, d: InFlight, out: &mut Vec<InFlight>) -> io::Result<()> {
        let tcp = d.src.port() == IP_TUNNEL_PORT && d.dst.port() == IP_TUNNEL_PORT;
        if tcp && nat::tcp_flow(&d.payload).is_some_and(|f| f.payload_len > 0) {
            *self.seen.borrow_mut() += 1;
            if *self.seen.borrow() == self.nth {
                return Ok(());
            }
        }
        out.push(d);
        Ok(())
    }
}

#[derive(Default, Debug)]
struct Got {
    bytes: Vec<u8>,
    peer: Option<SocketAddrV4>,
    phone_retransmits: u64,
    done_at: Option<Duration>,
}

/// The phone sends `n` bytes to the cloud (through its NAT and the plan's
/// leg), closes its side, and waits for the cloud's byte count.
fn transfer(seed: u64, n: usize, plan: FaultPlan, custom_up: Option<Chain>, actions: Vec<(Duration, NetAction)>) -> (RunOutcome, Got) {
    let spec = RunSpec { plan, ..RunSpec::new(&crate::OwnWorld("tcp-transfer"), RunSeed(seed)) };
    let mut world = Rig::new(&spec, Duration::from_secs(600));
    if let Some(up) = custom_up {
        let mut down = Chain::default();
        down.push(Delay(Duration::from_millis(20)));
        world.leg(addr::PHONE, "phone", up, down);
    }
    for (at, a) in actions {
        world.schedule(at, a);
    }
    let got = Rc::new(RefCell::new(Got::default()));
    let seed = RunSeed(seed);
    let g = got.clone();
    let tcp_cfg = tcp_config_for(&spec.plan, 0);
    let cloud_tcp = tcp_cfg.clone();
    world.host("cloud", addr::CLOUD, move || {
        let (g, cloud_tcp) = (g.clone(), cloud_tcp.clone());
        async move {
            let tcp = TcpHost::bind_with("cloud", v4(addr::CLOUD), seed, cloud_tcp).await?;
            let listener = tcp.listen(PORT)?;
            let (mut s, peer) = listener.accept().await?;
            g.borrow_mut().peer = Some(peer);
            let mut buf = Vec::new();
            s.read_to_end(&mut buf).await?;
            let len = buf.len() as u64;
            g.borrow_mut().bytes = buf;
            s.write_all(&len.to_be_bytes()).await?;
            s.shutdown().await?;
            std::future::pending::<()>().await;
            Ok(())
        }
    });
    let g = got.clone();
    world.client("phone", addr::PHONE, async move {
        let tcp = TcpHost::bind_with("phone", v4(addr::PHONE), seed, tcp_cfg).await?;
        let mut s = tcp.connect(SocketAddrV4::new(v4(addr::CLOUD), PORT)).await?;
        s.write_all(&pattern(n)).await?;
        s.shutdown().await?;
        let mut count = [0u8; 8];
        s.read_exact(&mut count).await?;
        assert_eq!(u64::from_be_bytes(count), n as u64);
        let mut g = g.borrow_mut();
        g.phone_retransmits = tcp.retransmits();
        g.done_at = Some(time::now());
        Ok(())
    });
    let outcome = world.run();
    let got = Rc::try_unwrap(got).map(RefCell::into_inner).unwrap_or_default();
    (outcome, got)
}

#[test]
fn a_lost_segment_is_retransmitted_and_the_stream_stays_in_order_through_a_nat() {
    let seen = Rc::new(RefCell::new(0));
    let mut up = Chain::default();
    up.push(DropNthSegment { nth: 3, seen: seen.clone() }).push(Delay(Duration::from_millis(20)));
    let (out, got) = transfer(11, 20_000, FaultPlan::default(), Some(up), vec![]);
    assert_eq!(out.result, Ok(()), "run");
    assert_eq!(got.bytes, pattern(20_000), "every byte, in order");
    assert!(*seen.borrow() > 3, "the third data segment was dropped");
    assert!(got.phone_retransmits >= 1, "the phone retransmitted ({})", got.phone_retransmits);
    // The cloud sees the NAT's public address, not the phone's.
    let peer = got.peer.expect("accepted");
    assert_eq!(IpAddr::V4(*peer.ip()), addr::NAT_WIFI);
    assert!(peer.port() >= nat::FIRST_PUBLIC_PORT);
    let maps: Vec<_> = out.trace.events().iter().filter(|e| e.kind == "nat.map" && e.detail.starts_with("tcp ")).collect();
    assert_eq!(maps.len(), 1, "one TCP mapping: {maps:?}");
    assert!(maps[0].detail.ends_with(&format!("as {peer}")), "{:?}", maps[0]);
}

/// `tcp = "smoltcp"` in a plan selects stock smoltcp's timers and recovery for every
/// host (sim/tcp/README.md); the default is Linux's. The same lost segment costs the
/// smoltcp flavour more.
#[test]
fn the_plan_picks_linux_tcp_by_default_or_smoltcp() {
    let smoltcp: FaultPlan = serde_json::from_str(r#"{"tcp": "smoltcp"}"#).expect("plan");
    assert_eq!(smoltcp.tcp, TcpPlan::Smoltcp);
    assert_eq!(FaultPlan::default().tcp, TcpPlan::Linux);
    assert!(!serde_json::to_string(&FaultPlan::default()).unwrap().contains("tcp"), "omitted when Linux");
    let mut done = Vec::new();
    for plan in [FaultPlan::default(), smoltcp] {
        let seen = Rc::new(RefCell::new(0));
        let mut up = Chain::default();
        up.push(DropNthSegment { nth: 3, seen: seen.clone() }).push(Delay(Duration::from_millis(20)));
        let (out, got) = transfer(11, 20_000, plan, Some(up), vec![]);
        assert_eq!(out.result, Ok(()), "run");
        assert_eq!(got.bytes, pattern(20_000), "every byte, in order");
        done.push(got.done_at.expect("done"));
    }
    assert!(done[0] < done[1], "Linux {:?} before smoltcp {:?}", done[0], done[1]);
}

#[test]
fn a_megabyte_under_five_percent_loss_arrives_intact() {
    let mut plan = FaultPlan::default();
    plan.phone.loss_pct = 5.0;
    let (out, got) = transfer(12, 1 << 20, plan, None, vec![]);
    assert_eq!(out.result, Ok(()), "run");
    assert_eq!(got.bytes.len(), 1 << 20);
    assert!(got.bytes == pattern(1 << 20), "intact and in order");
    assert!(got.phone_retransmits > 10, "5 % loss costs retransmissions ({})", got.phone_retransmits);
    assert!(out.net.dropped_fault > 20, "the leg dropped packets ({})", out.net.dropped_fault);
}

#[test]
fn a_connect_to_a_port_nobody_listens_on_is_refused_at_once() {
    let spec = RunSpec::new(&crate::OwnWorld("tcp-refused"), RunSeed(13));
    let mut world = Rig::new(&spec, Duration::from_secs(600));
    let seed = spec.seed;
    world.host("cloud", addr::CLOUD, move || async move {
        let _tcp = TcpHost::bind("cloud", v4(addr::CLOUD), seed).await?;
        std::future::pending::<()>().await;
        Ok(())
    });
    let result = Rc::new(RefCell::new(None));
    let r = result.clone();
    world.client("phone", addr::PHONE, async move {
        let tcp = TcpHost::bind("phone", v4(addr::PHONE), seed).await?;
        let t0 = time::now();
        let e = tcp.connect(SocketAddrV4::new(v4(addr::CLOUD), 81)).await.err();
        *r.borrow_mut() = Some((e.map(|e| e.kind()), time::now() - t0));
        Ok(())
    });
    let out = world.run();
    assert_eq!(out.result, Ok(()));
    let (kind, took) = (*result.borrow()).expect("connect returned");
    assert_eq!(kind, Some(io::ErrorKind::ConnectionRefused));
    // One round trip on a 20 ms leg: 40 ms, never an RTO (1 s).
    assert!(took <= Duration::from_millis(45), "refused after {took:?}");
}

#[test]
fn a_rebind_breaks_a_tcp_connection() {
    // The NAT gives the flow a new outside port mid-transfer: the cloud has no
    // connection from that port, so the stream cannot go on (as behind a real NAT).
    // (Behind Linux the RST would come the same way: no socket for the 4-tuple.)
    // At 100 ms: Linux's initial window of 10 segments moves 400 kB in about 280 ms.
    let (out, got) = transfer(14, 400_000, FaultPlan::default(), None, vec![(Duration::from_millis(100), NetAction::Rebind { host: addr::PHONE })]);
    // The cloud answers the segments from the unknown port with an RST, which
    // reaches the phone through the new mapping: a reset within seconds.
    assert_eq!(out.result, Err("Reset".to_string()), "the transfer must end in a reset");
    assert!(out.sim_elapsed < Duration::from_secs(5), "reset after {:?}", out.sim_elapsed);
    assert!(got.bytes.is_empty(), "the cloud never saw the end of the stream");
    assert!(out.trace.events().iter().any(|e| e.kind == "nat.rebind" && e.detail.contains("flows=1")));
}

#[test]
fn tcp_through_the_world_replays_exactly() {
    let mut plan = FaultPlan::default();
    plan.phone.loss_pct = 5.0;
    let (a, ga) = transfer(15, 100_000, plan.clone(), None, vec![]);
    let (b, gb) = transfer(15, 100_000, plan.clone(), None, vec![]);
    assert_eq!(a.result, Ok(()));
    assert_eq!(ga.bytes, pattern(100_000));
    assert_eq!(a.trace.hash(), b.trace.hash(), "same seed, same trace");
    assert_eq!(ga.done_at, gb.done_at);
    let (c, _) = transfer(16, 100_000, plan, None, vec![]);
    assert_ne!(a.trace.hash(), c.trace.hash(), "another seed, another run");
}

#[test]
fn nothing_reaches_an_inside_host_except_through_its_nat() {
    // The phone listens; the cloud tries its inside address and its NAT's public
    // address. Neither SYN gets in, so both connects time out (no RST either).
    let spec = RunSpec::new(&crate::OwnWorld("tcp-inbound"), RunSeed(17));
    let mut world = Rig::new(&spec, Duration::from_secs(600));
    let seed = spec.seed;
    world.host("phone", addr::PHONE, move || async move {
        let tcp = TcpHost::bind("phone", v4(addr::PHONE), seed).await?;
        let listener = tcp.listen(PORT)?;
        let _ = listener.accept().await?;
        panic!("an outside host reached the phone");
    });
    let result = Rc::new(RefCell::new(Vec::new()));
    let r = result.clone();
    world.client("cloud", addr::CLOUD, async move {
        let tcp = TcpHost::bind("cloud", v4(addr::CLOUD), seed).await?;
        for ip in [addr::PHONE, addr::NAT_WIFI] {
            let e = tcp.connect(SocketAddrV4::new(v4(ip), PORT)).await.err().map(|e| e.kind());
            r.borrow_mut().push(e);
        }
        Ok(())
    });
    let out = world.run();
    assert_eq!(out.result, Ok(()));
    assert_eq!(*result.borrow(), vec![Some(io::ErrorKind::TimedOut); 2]);
    let drops: Vec<_> = out.trace.events().iter().filter(|e| e.kind == "udp.drop").map(|e| e.detail.clone()).collect();
    assert!(drops.iter().any(|d| d.contains("inside host not reachable directly")), "{drops:?}");
    assert!(drops.iter().any(|d| d.contains("nat: no mapping")), "{drops:?}");
    assert!(!out.trace.events().iter().any(|e| e.kind == "nat.map"), "no mapping was made from outside");
}
