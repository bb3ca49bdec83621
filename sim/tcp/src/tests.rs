//! End-to-end tests: two stacks over an in-memory link with 20 ms one-way delay, on tokio's
//! paused clock (simulated time; no real waiting).

use core::time::Duration;
use std::io;

use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::task::LocalSet;

use crate::testkit::*;
use crate::{TcpFlavor, TcpListener, TcpState, TcpStream};

const ECHO_PORT: u16 = 7;
/// smoltcp's minimum RTO (`RTTE_MIN_RTO` in socket/tcp.rs).
const SMOLTCP_MIN_RTO: Duration = Duration::from_secs(1);

/// Tests that hold for both flavours: each `name` becomes `name::smoltcp` and `name::linux`,
/// running `async fn name(flavor)` on the paused clock in a `LocalSet`.
macro_rules! both_flavours {
    ($($name:ident),* $(,)?) => {$(
        mod $name {
            use super::*;
            #[tokio::test(start_paused = true)]
            async fn smoltcp() {
                LocalSet::new().run_until(super::$name(TcpFlavor::Smoltcp)).await
            }
            #[tokio::test(start_paused = true)]
            async fn linux() {
                LocalSet::new().run_until(super::$name(TcpFlavor::Linux)).await
            }
        }
    )*};
}

both_flavours!(
    handshake_and_echo,
    megabyte_in_order_under_five_percent_loss,
    connect_to_closed_port_is_refused_promptly,
    fin_gives_eof_and_half_close_still_carries_the_other_way,
    reset_reaches_the_peer_as_an_error,
    idle_connection_has_no_deadline,
    websocket_runs_over_the_stream_under_loss,
);

async fn echo_server(listener: TcpListener) {
    loop {
        let Ok((mut s, _)) = listener.accept().await else {
            return;
        };
        tokio::task::spawn_local(async move {
            let mut buf = vec![0u8; 4096];
            loop {
                match s.read(&mut buf).await {
                    Ok(0) | Err(_) => break,
                    Ok(n) => {
                        if s.write_all(&buf[..n]).await.is_err() {
                            break;
                        }
                    }
                }
            }
            let _ = s.shutdown().await;
        });
    }
}

async fn handshake_and_echo(flavor: TcpFlavor) {
    let w = world(WorldSpec::new(1).flavor(flavor));
    let listener = TcpListener::bind(&w.b, ECHO_PORT).unwrap();
    tokio::task::spawn_local(echo_server(listener));

    let t0 = w.now();
    let mut c = TcpStream::connect(&w.a, w.b_addr(ECHO_PORT)).await.unwrap();
    let connect_time = w.now() - t0;
    // One round trip (40 ms), not less; no timeout involved.
    assert!(connect_time >= 2 * ONE_WAY_DELAY, "{connect_time:?}");
    assert!(connect_time < 2 * ONE_WAY_DELAY + Duration::from_millis(5), "{connect_time:?}");
    assert_eq!(c.peer_addr().unwrap(), w.b_addr(ECHO_PORT));
    assert_eq!(c.local_addr().unwrap().port(), crate::consts::EPHEMERAL_PORT_FIRST);

    c.write_all(b"hello, box").await.unwrap();
    let mut got = [0u8; 10];
    c.read_exact(&mut got).await.unwrap();
    assert_eq!(&got, b"hello, box");
    assert_eq!(w.a.borrow().counters().retransmits, 0);

    // Many connections through one listener.
    let mut clients = Vec::new();
    for i in 0..5u8 {
        let mut s = TcpStream::connect(&w.a, w.b_addr(ECHO_PORT)).await.unwrap();
        s.write_all(&[i; 3]).await.unwrap();
        clients.push(s);
    }
    for (i, s) in clients.iter_mut().enumerate() {
        let mut got = [0u8; 3];
        s.read_exact(&mut got).await.unwrap();
        assert_eq!(got, [i as u8; 3]);
    }
}

/// Write `data`, shut down, and read everything the peer sends until EOF.
async fn transfer(w: &World, data: &[u8]) -> (Vec<u8>, Duration) {
    let listener = TcpListener::bind(&w.b, 9).unwrap();
    let sink = tokio::task::spawn_local(async move {
        let (mut s, _) = listener.accept().await.unwrap();
        let mut got = Vec::new();
        s.read_to_end(&mut got).await.unwrap();
        got
    });
    let t0 = w.now();
    let mut c = TcpStream::connect(&w.a, w.b_addr(9)).await.unwrap();
    c.write_all(data).await.unwrap();
    c.shutdown().await.unwrap();
    let got = sink.await.unwrap();
    (got, w.now() - t0)
}

async fn megabyte_in_order_under_five_percent_loss(flavor: TcpFlavor) {
    let mut spec = WorldSpec::new(7).flavor(flavor);
    spec.loss = 0.05;
    let w = world(spec);
    let data = payload(99, 1 << 20);
    let (got, took) = tokio::time::timeout(Duration::from_secs(3600), transfer(&w, &data)).await.expect("1 MB within an hour of sim time");
    assert_eq!(got.len(), data.len());
    assert!(got == data, "stream corrupted or reordered");
    let packets = w.link.borrow().log.len();
    let rtx = w.a.borrow().counters().retransmits;
    assert!(rtx > 0, "5 % loss must cost retransmissions");
    eprintln!("1 MB at 5 % loss ({flavor:?}): {took:?} sim time, {packets} packets, {rtx} retransmits");
}

#[tokio::test(start_paused = true)]
async fn dropped_segment_is_retransmitted_once() {
    LocalSet::new()
        .run_until(async {
            let mut spec = WorldSpec::new(3).flavor(TcpFlavor::Smoltcp);
            spec.drop_data_nth[A_TO_B] = vec![0];
            let w = world(spec);
            let listener = TcpListener::bind(&w.b, 9).unwrap();
            let sink = tokio::task::spawn_local(async move {
                let (mut s, _) = listener.accept().await.unwrap();
                let mut got = Vec::new();
                s.read_to_end(&mut got).await.unwrap();
                got
            });
            let mut c = TcpStream::connect(&w.a, w.b_addr(9)).await.unwrap();
            let data = payload(5, 100);
            let t0 = w.now();
            c.write_all(&data).await.unwrap();
            c.shutdown().await.unwrap();
            let got = sink.await.unwrap();
            let took = w.now() - t0;
            assert_eq!(got, data);
            assert_eq!(w.link.borrow().deliberate_drops(), 1);
            assert_eq!(c.retransmits(), 1, "exactly the dropped segment went again");
            assert_eq!(w.a.borrow().counters().retransmits, 1);
            // It came back on the retransmission timer, not earlier.
            assert!(took >= SMOLTCP_MIN_RTO, "{took:?}");
        })
        .await;
}

/// Latency of message 2 when message 1 (sent just before it) is lost or not.
async fn second_message_latency(flavor: TcpFlavor, drop_first: bool) -> (Duration, Vec<u8>) {
    let mut spec = WorldSpec::new(11).flavor(flavor);
    if drop_first {
        spec.drop_data_nth[A_TO_B] = vec![0];
    }
    let w = world(spec);
    let listener = TcpListener::bind(&w.b, 9).unwrap();
    let (done_tx, done_rx) = tokio::sync::oneshot::channel();
    tokio::task::spawn_local(async move {
        let (mut s, _) = listener.accept().await.unwrap();
        let mut got = vec![0u8; 200];
        s.read_exact(&mut got).await.unwrap();
        let _ = done_tx.send(got);
    });
    let mut c = TcpStream::connect(&w.a, w.b_addr(9)).await.unwrap();
    c.set_nodelay(true).unwrap();
    c.write_all(&[1u8; 100]).await.unwrap();
    // Let message 1 leave on its own, then send message 2 right behind it.
    tokio::time::sleep(Duration::from_millis(1)).await;
    let t2 = w.now();
    c.write_all(&[2u8; 100]).await.unwrap();
    let got = done_rx.await.unwrap();
    (w.now() - t2, got)
}

#[tokio::test(start_paused = true)]
async fn head_of_line_blocking_behind_a_lost_segment() {
    LocalSet::new()
        .run_until(async {
            let (clean, got) = second_message_latency(TcpFlavor::Smoltcp, false).await;
            assert_eq!(&got[..100], &[1u8; 100]);
            assert_eq!(&got[100..], &[2u8; 100]);
            assert!(clean < Duration::from_millis(25), "clean path: {clean:?}");

            let (blocked, got) = second_message_latency(TcpFlavor::Smoltcp, true).await;
            // In order although message 1 arrived after message 2 was already there.
            assert_eq!(&got[..100], &[1u8; 100]);
            assert_eq!(&got[100..], &[2u8; 100]);
            assert!(blocked > SMOLTCP_MIN_RTO, "message 2 waited for the RTO: {blocked:?}");
            assert!(blocked < SMOLTCP_MIN_RTO + Duration::from_millis(100), "{blocked:?}");
        })
        .await;
}

async fn connect_to_closed_port_is_refused_promptly(flavor: TcpFlavor) {
    let w = world(WorldSpec::new(4).flavor(flavor));
    let t0 = w.now();
    let err = TcpStream::connect(&w.a, w.b_addr(81)).await.unwrap_err();
    let took = w.now() - t0;
    assert_eq!(err.kind(), io::ErrorKind::ConnectionRefused);
    // One round trip: SYN out, RST back.
    assert!(took >= 2 * ONE_WAY_DELAY && took < Duration::from_millis(100), "{took:?}");
    assert_eq!(w.b.borrow().counters().resets_out, 1);
    assert_eq!(w.a.borrow().conn_count(), 0, "the failed socket is released");
}

#[tokio::test(start_paused = true)]
async fn connect_into_a_black_hole_times_out_like_linux() {
    LocalSet::new()
        .run_until(async {
            let mut spec = WorldSpec::new(5).flavor(TcpFlavor::Smoltcp);
            spec.loss = 1.0;
            let w = world(spec);
            let t0 = w.now();
            let err = TcpStream::connect(&w.a, w.b_addr(ECHO_PORT)).await.unwrap_err();
            let took = w.now() - t0;
            assert_eq!(err.kind(), io::ErrorKind::TimedOut);
            // Linux: tcp_syn_retries = 6, 127 s.
            assert!(took >= Duration::from_secs(127) && took < Duration::from_secs(128), "{took:?}");
            // SYN at 0, 1, 3, 7, 15, 31, 63 s, then 123 s: smoltcp caps the RTO at 60 s
            // (`RTTE_MAX_RTO`) where Linux caps at 120 s, so one SYN more than Linux's 6.
            let syn_times: Vec<u64> = w.link.borrow().log.iter().filter(|p| p.bytes.len() == 52).map(|p| p.at.as_secs()).collect();
            assert_eq!(syn_times, [0, 1, 3, 7, 15, 31, 63, 123]);
            assert_eq!(w.a.borrow().counters().retransmits, 7);
        })
        .await;
}

async fn fin_gives_eof_and_half_close_still_carries_the_other_way(flavor: TcpFlavor) {
    let w = world(WorldSpec::new(6).flavor(flavor));
    let listener = TcpListener::bind(&w.b, 9).unwrap();
    let server = tokio::task::spawn_local(async move {
        let (mut s, _) = listener.accept().await.unwrap();
        let mut got = Vec::new();
        s.read_to_end(&mut got).await.unwrap(); // EOF after the client's FIN
        assert_eq!(got, b"bye");
        let mut again = [0u8; 1];
        assert_eq!(s.read(&mut again).await.unwrap(), 0, "EOF is sticky");
        s.write_all(b"after your fin").await.unwrap();
        s.shutdown().await.unwrap();
    });
    let mut c = TcpStream::connect(&w.a, w.b_addr(9)).await.unwrap();
    c.write_all(b"bye").await.unwrap();
    c.shutdown().await.unwrap();
    assert!(c.write_all(b"x").await.is_err(), "no writes after shutdown");
    let mut back = Vec::new();
    c.read_to_end(&mut back).await.unwrap();
    assert_eq!(back, b"after your fin");
    server.await.unwrap();
    assert_eq!(w.a.borrow().counters().resets_out + w.b.borrow().counters().resets_out, 0);
}

async fn reset_reaches_the_peer_as_an_error(flavor: TcpFlavor) {
    let w = world(WorldSpec::new(8).flavor(flavor));
    let listener = TcpListener::bind(&w.b, 9).unwrap();
    let server = tokio::task::spawn_local(async move {
        let (mut s, _) = listener.accept().await.unwrap();
        let mut buf = [0u8; 16];
        let n = s.read(&mut buf).await.unwrap();
        assert_eq!(&buf[..n], b"hi");
        let err = s.read(&mut buf).await.unwrap_err();
        assert_eq!(err.kind(), io::ErrorKind::ConnectionReset);
        let err = s.write_all(b"late").await.unwrap_err();
        assert_eq!(err.kind(), io::ErrorKind::ConnectionReset);
    });
    let mut c = TcpStream::connect(&w.a, w.b_addr(9)).await.unwrap();
    c.write_all(b"hi").await.unwrap();
    tokio::time::sleep(Duration::from_millis(100)).await;
    c.abort();
    server.await.unwrap();
    assert_eq!(w.a.borrow().counters().resets_out, 1);
    assert_eq!(w.b.borrow().counters().resets_in, 1);
}

async fn idle_connection_has_no_deadline(flavor: TcpFlavor) {
    let w = world(WorldSpec::new(9).flavor(flavor));
    let listener = TcpListener::bind(&w.b, ECHO_PORT).unwrap();
    tokio::task::spawn_local(echo_server(listener));
    let mut c = TcpStream::connect(&w.a, w.b_addr(ECHO_PORT)).await.unwrap();
    c.write_all(b"ping").await.unwrap();
    let mut got = [0u8; 4];
    c.read_exact(&mut got).await.unwrap();
    // Let delayed ACKs go out, then nothing is pending anywhere.
    tokio::time::sleep(Duration::from_secs(1)).await;
    let now = w.now();
    assert_eq!(w.a.borrow_mut().poll_at(now), None);
    assert_eq!(w.b.borrow_mut().poll_at(now), None);
    let sent = w.link.borrow().log.len();
    tokio::time::sleep(Duration::from_secs(3600)).await;
    assert_eq!(w.link.borrow().log.len(), sent, "no packet in an idle hour");
    assert_eq!(w.a.borrow().state(c.id()), TcpState::Established);
}

/// A lossy transfer; returns the packet log hash.
fn lossy_run(flavor: TcpFlavor, seed: u64) -> u64 {
    let rt = tokio::runtime::Builder::new_current_thread().enable_time().start_paused(true).build().unwrap();
    LocalSet::new().block_on(&rt, async {
        let mut spec = WorldSpec::new(seed).flavor(flavor);
        spec.loss = 0.05;
        let w = world(spec);
        let data = payload(seed, 100_000);
        let (got, _) = transfer(&w, &data).await;
        assert!(got == data);
        let h = w.link.borrow().hash();
        h
    })
}

#[test]
fn same_seed_same_packets() {
    for flavor in [TcpFlavor::Smoltcp, TcpFlavor::Linux] {
        let first = lossy_run(flavor, 42);
        assert_eq!(first, lossy_run(flavor, 42), "same seed, same bytes");
        assert_ne!(first, lossy_run(flavor, 43), "another seed, other bytes");
    }
}

/// The smoltcp flavour is today's stack byte for byte: these are the packet-log hashes the
/// crate produced before the smoltcp patch (stock smoltcp 0.14.0 from crates.io, same
/// test world), and the flavours differ.
#[test]
fn smoltcp_flavour_is_byte_identical_to_the_unpatched_stack() {
    assert_eq!(lossy_run(TcpFlavor::Smoltcp, 42), 0xd1cc_1980_1330_1405);
    assert_eq!(lossy_run(TcpFlavor::Smoltcp, 43), 0x9d67_cbe1_58a7_2010);
    assert_eq!(lossy_run(TcpFlavor::Smoltcp, 7), 0xb071_0ac9_c2b1_5e84);
    assert_ne!(lossy_run(TcpFlavor::Linux, 42), 0xd1cc_1980_1330_1405);
}

async fn websocket_runs_over_the_stream_under_loss(flavor: TcpFlavor) {
    use futures_util::{SinkExt, StreamExt};
    use tokio_tungstenite::tungstenite::Message;
    let mut spec = WorldSpec::new(21).flavor(flavor);
    spec.loss = 0.05;
    let w = world(spec);
    let listener = TcpListener::bind(&w.b, 80).unwrap();
    let server = tokio::task::spawn_local(async move {
        let (s, _) = listener.accept().await.unwrap();
        let mut ws = tokio_tungstenite::accept_async(s).await.unwrap();
        while let Some(msg) = ws.next().await {
            match msg.unwrap() {
                Message::Binary(b) => ws.send(Message::Binary(b)).await.unwrap(),
                Message::Close(_) => break,
                _ => {}
            }
        }
    });
    let s = TcpStream::connect(&w.a, w.b_addr(80)).await.unwrap();
    let (mut ws, _) = tokio_tungstenite::client_async("ws://10.0.0.2/", s).await.unwrap();
    for i in 0..50u64 {
        let msg = payload(i, 300);
        ws.send(Message::Binary(msg.clone())).await.unwrap();
        match ws.next().await.unwrap().unwrap() {
            Message::Binary(b) => assert_eq!(b, msg),
            other => panic!("unexpected {other:?}"),
        }
    }
    ws.close(None).await.unwrap();
    while ws.next().await.is_some() {}
    server.await.unwrap();
    assert!(w.a.borrow().counters().retransmits + w.b.borrow().counters().retransmits > 0);
}

/// The core without tokio: two stacks pumped by hand with a zero-delay wire.
mod sync_core {
    use super::*;
    use crate::{TcpConfig, TcpStack};
    use std::net::SocketAddrV4;

    fn pump(a: &mut TcpStack, b: &mut TcpStack, now: Duration) {
        loop {
            a.poll(now);
            b.poll(now);
            let mut moved = false;
            while let Some(p) = a.pop_tx() {
                b.push_rx(p);
                moved = true;
            }
            while let Some(p) = b.pop_tx() {
                a.push_rx(p);
                moved = true;
            }
            if !moved {
                return;
            }
        }
    }

    fn data_packets(s: &mut TcpStack, now: Duration) -> Vec<Vec<u8>> {
        s.poll(now);
        std::iter::from_fn(|| s.pop_tx()).collect()
    }

    #[test]
    fn nagle_holds_a_small_segment_until_the_ack_and_nodelay_releases_it() {
        let t = Duration::ZERO;
        let cfg = TcpConfig { flavor: TcpFlavor::Smoltcp, ..TcpConfig::default() };
        let mut a = TcpStack::new(ADDR_A, 1, cfg.clone());
        let mut b = TcpStack::new(ADDR_B, 2, cfg);
        b.listen(9).unwrap();
        let c = a.connect(0, SocketAddrV4::new(ADDR_B, 9)).unwrap();
        pump(&mut a, &mut b, t);
        assert_eq!(a.state(c), TcpState::Established);
        let (s, peer) = b.accept(9).unwrap().expect("established");
        assert_eq!(peer, a.local_addr(c).unwrap());
        assert!(!a.nodelay(c).unwrap(), "Nagle on by default, as Linux");

        assert_eq!(a.send_slice(c, b"x").unwrap(), 1);
        assert_eq!(data_packets(&mut a, t).len(), 1, "first small segment goes at once");
        assert_eq!(a.send_slice(c, b"y").unwrap(), 1);
        assert!(data_packets(&mut a, t).is_empty(), "Nagle: 'x' unacknowledged, 'y' waits");
        a.set_nodelay(c, true).unwrap();
        let out = data_packets(&mut a, t);
        assert_eq!(out.len(), 1, "nodelay sends 'y' without waiting");
        // Deliver only the 'y' packet: it is out of order ('x' was never delivered).
        for p in out {
            b.push_rx(p);
        }
        b.poll(t);
        let mut buf = [0u8; 8];
        assert_eq!(b.recv_slice(s, &mut buf).unwrap_err().kind(), io::ErrorKind::WouldBlock, "'y' waits behind the missing 'x'");
        // The retransmission timer brings 'x' back; then both arrive in order.
        let rto = a.poll_at(t).expect("retransmission pending");
        assert!(rto >= SMOLTCP_MIN_RTO, "{rto:?}");
        pump(&mut a, &mut b, rto);
        assert_eq!(b.recv_slice(s, &mut buf).unwrap(), 2);
        assert_eq!(&buf[..2], b"xy");
        assert!(a.retransmits(c) >= 1);
    }

    /// A SYN that arrives twice (the link duplicated it) opens one connection, not two
    /// on the same 4-tuple: the second copy is answered on the request the first made,
    /// as Linux's `tcp_check_req` does (the SYN-ACK again), never with a second socket.
    #[test]
    fn a_duplicated_syn_opens_one_connection() {
        let t = Duration::ZERO;
        let mut a = TcpStack::new(ADDR_A, 1, TcpConfig::default());
        let mut b = TcpStack::new(ADDR_B, 2, TcpConfig::default());
        b.listen(9).unwrap();
        let c = a.connect(0, SocketAddrV4::new(ADDR_B, 9)).unwrap();
        let syn = data_packets(&mut a, t).pop().expect("a SYN");
        b.push_rx(syn.clone());
        b.poll(t);
        b.push_rx(syn);
        pump(&mut a, &mut b, t);
        assert_eq!(a.state(c), TcpState::Established);
        assert!(b.accept(9).unwrap().is_some(), "one connection");
        assert!(b.accept(9).unwrap().is_none(), "not a second on the same 4-tuple");
        assert_eq!(b.counters().syn_repeats_answered + b.counters().syn_repeats_dropped, 1);
    }

    /// Whether `pkt` is a SYN-ACK, and whether it is an RST.
    fn syn_ack_or_rst(pkt: &[u8]) -> (bool, bool) {
        let ip = smoltcp::wire::Ipv4Packet::new_checked(pkt).unwrap();
        let tcp = smoltcp::wire::TcpPacket::new_checked(ip.payload()).unwrap();
        (tcp.syn() && tcp.ack(), tcp.rst())
    }

    /// A half-open connection whose SYN-ACK was lost, and the client's SYN again.
    fn half_open(cfg: TcpConfig) -> (TcpStack, Vec<u8>) {
        let mut a = TcpStack::new(ADDR_A, 1, cfg.clone());
        let mut b = TcpStack::new(ADDR_B, 2, cfg);
        b.listen(9).unwrap();
        a.connect(0, SocketAddrV4::new(ADDR_B, 9)).unwrap();
        let syn = data_packets(&mut a, Duration::ZERO).pop().expect("a SYN");
        b.push_rx(syn.clone());
        let first = data_packets(&mut b, Duration::ZERO);
        assert!(first.iter().any(|p| syn_ack_or_rst(p).0), "the first SYN-ACK (lost)");
        (b, syn)
    }

    /// Linux's `tcp_check_req`: a retransmitted SYN that finds its request in
    /// SYN-RECEIVED gets the SYN-ACK again at once (`inet_rtx_syn_ack`), at most one per
    /// 500 ms (`tcp_oow_rate_limited`, `tcp_invalid_ratelimit`). Before, the stack dropped
    /// it, and a client whose SYN-ACKs were all lost waited for the server's backed-off
    /// timer (corpus/ws-echo-synack-given-up-resets-13100060729.toml).
    #[test]
    fn a_repeated_syn_in_syn_received_gets_the_syn_ack_again() {
        let (mut b, syn) = half_open(TcpConfig::default());
        b.push_rx(syn.clone());
        let at_300 = data_packets(&mut b, Duration::from_millis(300));
        assert!(at_300.iter().any(|p| syn_ack_or_rst(p).0), "the SYN-ACK again at once, not at the 1 s timer");
        b.push_rx(syn);
        let at_600 = data_packets(&mut b, Duration::from_millis(600));
        assert!(at_600.is_empty(), "not again within 500 ms");
        assert_eq!((b.counters().syn_repeats_answered, b.counters().syn_repeats_dropped), (1, 1));
        // The smoltcp flavour keeps dropping it.
        let (mut s, syn) = half_open(TcpConfig { flavor: TcpFlavor::Smoltcp, ..TcpConfig::default() });
        s.push_rx(syn);
        assert!(data_packets(&mut s, Duration::from_millis(300)).is_empty());
    }

    /// Linux drops a request whose SYN-ACK retries are spent without a word
    /// (`inet_csk_reqsk_queue_drop_and_put`): a client still in SYN-SENT is not refused.
    /// Before, the stack sent an RST at 63 s and the client's connect failed "refused".
    #[test]
    fn a_half_open_connection_gives_up_silently() {
        let (mut b, _) = half_open(TcpConfig::default());
        let mut sent = Vec::new();
        let mut t = Duration::ZERO;
        while let Some(next) = b.poll_at(t) {
            t = next.max(t + Duration::from_millis(1));
            if t > Duration::from_secs(120) {
                break;
            }
            sent.extend(data_packets(&mut b, t).into_iter().map(|p| (t, syn_ack_or_rst(&p))));
        }
        let syn_acks = sent.iter().filter(|(_, (sa, _))| *sa).count();
        assert_eq!(syn_acks, 5, "five SYN-ACKs again (1, 3, 7, 15, 31 s): {sent:?}");
        assert!(sent.iter().all(|(_, (_, rst))| !rst), "no RST: {sent:?}");
        assert!(b.accept(9).unwrap().is_none(), "nothing to accept");
    }

    #[test]
    fn initial_sequence_numbers_follow_the_seed() {
        let syn = |seed: u64| {
            let mut a = TcpStack::new(ADDR_A, seed, TcpConfig::default());
            a.connect(0, SocketAddrV4::new(ADDR_B, 9)).unwrap();
            a.poll(Duration::ZERO);
            a.pop_tx().expect("a SYN")
        };
        assert_eq!(syn(5), syn(5));
        assert_ne!(syn(5), syn(6));
    }
}
