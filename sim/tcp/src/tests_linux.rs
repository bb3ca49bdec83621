//! The Linux flavour (issue 16): one test per behaviour, each naming the Linux 6.x figure it
//! reproduces. Same world as `tests.rs`: 20 ms each way (RTT 40 ms), paused tokio clock.
//! Where it helps, the smoltcp flavour's figure is asserted alongside for contrast.

use core::time::Duration;
use std::io;
use std::net::SocketAddrV4;

use smoltcp::phy::ChecksumCapabilities;
use smoltcp::wire::{IpAddress, Ipv4Packet, TcpPacket, TcpRepr};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::task::LocalSet;

use crate::testkit::*;
use crate::{TcpConfig, TcpFlavor, TcpListener, TcpStack, TcpStream};

const RTT: Duration = Duration::from_millis(40);
const MS: Duration = Duration::from_millis(1);

/// Header facts of a logged packet.
#[derive(Debug, Clone, Copy)]
struct Facts {
    seq: u32,
    ack: Option<u32>,
    syn: bool,
    rst: bool,
    len: usize,
    ts: Option<(u32, u32)>,
}

fn facts(pkt: &[u8]) -> Facts {
    let ip = Ipv4Packet::new_checked(pkt).unwrap();
    let tcp = TcpPacket::new_checked(ip.payload()).unwrap();
    let repr = TcpRepr::parse(&tcp, &IpAddress::Ipv4(ip.src_addr()), &IpAddress::Ipv4(ip.dst_addr()), &ChecksumCapabilities::ignored()).unwrap();
    Facts {
        seq: tcp.seq_number().0 as u32,
        ack: tcp.ack().then(|| tcp.ack_number().0 as u32),
        syn: tcp.syn(),
        rst: tcp.rst(),
        len: tcp.payload().len(),
        ts: repr.timestamp.map(|t| (t.tsval, t.tsecr)),
    }
}

/// Times (since start) at which `dir` sent a packet carrying data.
fn data_times(w: &World, dir: usize) -> Vec<Duration> {
    w.link.borrow().log.iter().filter(|p| p.dir == dir && facts(&p.bytes).len > 0).map(|p| p.at).collect()
}

/// Server on port 9 that reads `n` bytes and reports when it has them.
fn sink(w: &World, n: usize) -> tokio::sync::oneshot::Receiver<Vec<u8>> {
    let listener = TcpListener::bind(&w.b, 9).unwrap();
    let (tx, rx) = tokio::sync::oneshot::channel();
    tokio::task::spawn_local(async move {
        let (mut s, _) = listener.accept().await.unwrap();
        let mut got = vec![0u8; n];
        if s.read_exact(&mut got).await.is_err() {
            return; // the test is about something else (a stream cut short, or open-ended)
        }
        let _ = tx.send(got);
        // Keep the connection open (no FIN muddling the figures).
        let mut rest = Vec::new();
        let _ = s.read_to_end(&mut rest).await;
    });
    rx
}

/// Write `chunks` back to back (TCP_NODELAY) and return how long until the server has them
/// all, and the client stream.
async fn delivery_time(w: &World, chunks: &[usize]) -> (Duration, TcpStream) {
    let total: usize = chunks.iter().sum();
    let done = sink(w, total);
    let mut c = TcpStream::connect(&w.a, w.b_addr(9)).await.unwrap();
    c.set_nodelay(true).unwrap();
    let t0 = w.now();
    for (i, &n) in chunks.iter().enumerate() {
        c.write_all(&payload(i as u64, n)).await.unwrap();
    }
    let got = done.await.unwrap();
    assert_eq!(got.len(), total);
    (w.now() - t0, c)
}

fn near(got: Duration, want: Duration, slack: Duration) -> bool {
    got + slack >= want && got <= want + slack
}

/// Linux: RTO = SRTT + max(4 x RTTVAR, TCP_RTO_MIN) = 40 + 200 = 240 ms at 40 ms RTT (the
/// 200 ms floor), backing off by doubling to TCP_RTO_MAX = 120 s. A segment (and every copy
/// of it) lost: the tail loss probe goes at min(2 x SRTT + 200 ms, RTO) = 240 ms, the RTO
/// 240 ms later, then 480 ms, 960 ms, ... and never more than 120 s apart. smoltcp's own:
/// first resend after 1 s, ceiling 60 s.
#[tokio::test(start_paused = true)]
async fn linux_rto_is_srtt_plus_200ms_floor_and_backs_off_to_120s() {
    LocalSet::new()
        .run_until(async {
            for flavor in [TcpFlavor::Linux, TcpFlavor::Smoltcp] {
                let mut spec = WorldSpec::new(31).flavor(flavor);
                spec.drop_if = Some(Box::new(|dir, p| dir == A_TO_B && facts(p).len > 0));
                let w = world(spec);
                let _done = sink(&w, 1);
                let mut c = TcpStream::connect(&w.a, w.b_addr(9)).await.unwrap();
                c.set_nodelay(true).unwrap();
                c.write_all(b"x").await.unwrap();
                // Until the stack gives up (924.6 s without a packet from the peer).
                let mut buf = [0u8; 1];
                let err = tokio::time::timeout(Duration::from_secs(1000), c.read(&mut buf)).await.expect("gives up within 1000 s").unwrap_err();
                assert_eq!(err.kind(), io::ErrorKind::TimedOut);
                let times = data_times(&w, A_TO_B);
                let gaps: Vec<Duration> = times.windows(2).map(|p| p[1] - p[0]).collect();
                let max_gap = *gaps.iter().max().unwrap();
                match flavor {
                    TcpFlavor::Linux => {
                        assert!(near(gaps[0], 240 * MS, MS), "probe: {gaps:?}");
                        assert!(near(gaps[1], 240 * MS, MS), "first RTO: {gaps:?}");
                        assert!(near(gaps[2], 480 * MS, MS), "backed off: {gaps:?}");
                        assert!(near(gaps[3], 960 * MS, MS), "backed off: {gaps:?}");
                        assert_eq!(max_gap, Duration::from_secs(120), "TCP_RTO_MAX: {gaps:?}");
                        assert!(gaps.iter().filter(|g| **g == max_gap).count() >= 2);
                    }
                    TcpFlavor::Smoltcp => {
                        assert!(gaps[0] >= Duration::from_secs(1), "{gaps:?}");
                        assert_eq!(max_gap, Duration::from_secs(60), "{gaps:?}");
                    }
                }
            }
        })
        .await;
}

/// Linux: a lost SYN still costs the initial RTO, TCP_TIMEOUT_INIT = 1 s (no RTT sample
/// yet), so the connect takes 1 s + one round trip. The SYN-ACK's echoed timestamp still
/// gives an RTT sample (`tcp_rtt_tsopt_us`; no Karn ambiguity), so the next lost segment
/// costs the usual 240 ms probe, not a backed-off 2 s (smoltcp's own, which times no
/// segment across a resend).
#[tokio::test(start_paused = true)]
async fn linux_lost_syn_costs_the_1s_initial_rto() {
    LocalSet::new()
        .run_until(async {
            for flavor in [TcpFlavor::Linux, TcpFlavor::Smoltcp] {
                let mut spec = WorldSpec::new(32).flavor(flavor);
                let mut first = true;
                spec.drop_if = Some(Box::new(move |dir, p| {
                    let f = facts(p);
                    let drop = dir == A_TO_B && f.syn && first;
                    first &= !drop;
                    drop
                }));
                spec.drop_data_nth[A_TO_B] = vec![0];
                let w = world(spec);
                let done = sink(&w, 100);
                let t0 = w.now();
                let mut c = TcpStream::connect(&w.a, w.b_addr(9)).await.unwrap();
                let took = w.now() - t0;
                assert!(near(took, Duration::from_secs(1) + RTT, MS), "{took:?}");
                c.set_nodelay(true).unwrap();
                let t1 = w.now();
                c.write_all(&[5u8; 100]).await.unwrap();
                done.await.unwrap();
                let repaired = w.now() - t1;
                match flavor {
                    TcpFlavor::Linux => {
                        assert!(near(repaired, 240 * MS + RTT / 2, 2 * MS), "{repaired:?}")
                    }
                    TcpFlavor::Smoltcp => assert!(repaired >= 2 * SMOLTCP_RTO, "{repaired:?}"),
                }
            }
        })
        .await;
}

/// Linux: a connect into a black hole sends the SYN at 0, 1, 3, 7, 15, 31 and 63 s
/// (`tcp_syn_retries = 6`) and fails at 127 s. (smoltcp's own 60 s ceiling sends an 8th SYN
/// at 123 s: `tests::connect_into_a_black_hole_times_out_like_linux`.)
#[tokio::test(start_paused = true)]
async fn linux_black_hole_connect_sends_7_syns_and_fails_at_127s() {
    LocalSet::new()
        .run_until(async {
            let mut spec = WorldSpec::new(5);
            spec.loss = 1.0;
            let w = world(spec);
            let t0 = w.now();
            let err = TcpStream::connect(&w.a, w.b_addr(7)).await.unwrap_err();
            let took = w.now() - t0;
            assert_eq!(err.kind(), io::ErrorKind::TimedOut);
            assert!(took >= Duration::from_secs(127) && took < Duration::from_secs(128), "{took:?}");
            let syn_times: Vec<u64> = w.link.borrow().log.iter().filter(|p| facts(&p.bytes).syn).map(|p| p.at.as_secs()).collect();
            assert_eq!(syn_times, [0, 1, 3, 7, 15, 31, 63]);
            assert_eq!(w.a.borrow().counters().retransmits, 6);
        })
        .await;
}

/// Linux (RACK, RFC 8985): a lost data segment with later segments SACKed is resent when
/// RACK.rtt + reo_wnd (min_RTT / 4 = 10 ms, as fewer than 3 segments are SACKed) has passed
/// since it was sent: at 50 ms, delivered at 70 ms, within 2 x SRTT + a little (not 1 s).
/// smoltcp's own: 2 duplicate ACKs are not 3, so the RTO (1 s).
#[tokio::test(start_paused = true)]
async fn linux_one_lost_segment_is_repaired_by_rack_within_2_srtt() {
    LocalSet::new()
        .run_until(async {
            for flavor in [TcpFlavor::Linux, TcpFlavor::Smoltcp] {
                let mut spec = WorldSpec::new(33).flavor(flavor);
                spec.drop_data_nth[A_TO_B] = vec![0];
                let w = world(spec);
                // Three segments at once (the Linux initial window allows 10).
                let (took, c) = delivery_time(&w, &[4000]).await;
                match flavor {
                    TcpFlavor::Linux => {
                        assert!(near(took, RTT + RTT / 4 + RTT / 2, 2 * MS), "{took:?}");
                        assert!(took < 2 * RTT + 20 * MS, "{took:?}");
                        assert_eq!(c.retransmits(), 1, "only the lost segment went again");
                    }
                    TcpFlavor::Smoltcp => assert!(took > SMOLTCP_RTO, "{took:?}"),
                }
            }
        })
        .await;
}

const SMOLTCP_RTO: Duration = Duration::from_secs(1);

/// Linux: head-of-line blocking behind one lost message lasts about a round trip. Message 1
/// lost, message 2 sent 1 ms later arrives and is SACKed; RACK resends message 1 at
/// 40 + 10 ms; message 2 reaches the app about 70 ms after it was sent (smoltcp: > 1 s,
/// `tests::head_of_line_blocking_behind_a_lost_segment`).
#[tokio::test(start_paused = true)]
async fn linux_head_of_line_blocking_lasts_about_one_rtt() {
    LocalSet::new()
        .run_until(async {
            let mut spec = WorldSpec::new(11);
            spec.drop_data_nth[A_TO_B] = vec![0];
            let w = world(spec);
            let done = sink(&w, 200);
            let mut c = TcpStream::connect(&w.a, w.b_addr(9)).await.unwrap();
            c.set_nodelay(true).unwrap();
            c.write_all(&[1u8; 100]).await.unwrap();
            tokio::time::sleep(MS).await;
            let t2 = w.now();
            c.write_all(&[2u8; 100]).await.unwrap();
            let got = done.await.unwrap();
            let blocked = w.now() - t2;
            assert_eq!(&got[..100], &[1u8; 100]);
            assert_eq!(&got[100..], &[2u8; 100]);
            assert!(blocked < 2 * RTT, "{blocked:?}");
            assert!(blocked > RTT, "{blocked:?}");
        })
        .await;
}

/// Linux (TLP, RFC 8985 7.2): the only segment in flight lost is resent by the tail loss
/// probe at min(2 x SRTT + 200 ms, RTO) = 240 ms after it was sent, delivered at 260 ms:
/// a probe timeout, not smoltcp's 1 s RTO.
#[tokio::test(start_paused = true)]
async fn linux_lone_lost_segment_is_resent_by_the_tail_loss_probe_at_240ms() {
    LocalSet::new()
        .run_until(async {
            let mut spec = WorldSpec::new(34);
            spec.drop_data_nth[A_TO_B] = vec![0];
            let w = world(spec);
            let (took, c) = delivery_time(&w, &[100]).await;
            assert!(near(took, 240 * MS + RTT / 2, 2 * MS), "{took:?}");
            assert_eq!(c.retransmits(), 1);
        })
        .await;
}

/// Linux (TLP then RACK): the last two of four segments lost. The first two are ACKed at
/// 40 ms; with two segments in flight the probe timeout is 2 x SRTT + 2 ms, so the probe
/// (the last segment again) goes at 122 ms; its SACK at 162 ms lets RACK mark the third
/// lost at once; it arrives at 182 ms. smoltcp's own: > 1 s.
#[tokio::test(start_paused = true)]
async fn linux_two_lost_tail_segments_cost_a_probe_and_a_round_trip() {
    LocalSet::new()
        .run_until(async {
            for flavor in [TcpFlavor::Linux, TcpFlavor::Smoltcp] {
                let mut spec = WorldSpec::new(35).flavor(flavor);
                spec.drop_data_nth[A_TO_B] = vec![2, 3];
                let w = world(spec);
                // Four full segments (4 x 1448 bytes) in one go.
                let (took, c) = delivery_time(&w, &[4 * 1448]).await;
                match flavor {
                    TcpFlavor::Linux => {
                        let want = RTT + 2 * RTT + 2 * MS + RTT + RTT / 2;
                        assert!(near(took, want, 3 * MS), "{took:?} want {want:?}");
                        assert_eq!(c.retransmits(), 2);
                    }
                    TcpFlavor::Smoltcp => assert!(took > SMOLTCP_RTO, "{took:?}"),
                }
            }
        })
        .await;
}

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

/// Linux: the initial congestion window is 10 segments (`TCP_INIT_CWND`, RFC 6928): 10 x
/// 1448 bytes (MSS 1460 less 12 bytes of timestamp option) leave before the first ACK.
/// smoltcp's own: 2048 bytes (2 x its built-in 1024-byte MSS), in 2 segments.
#[test]
fn linux_initial_window_is_10_segments() {
    for (flavor, segments, bytes) in [(TcpFlavor::Linux, 10, 14_480), (TcpFlavor::Smoltcp, 2, 2048)] {
        let cfg = TcpConfig { flavor, nodelay: true, ..TcpConfig::default() };
        let t = Duration::ZERO;
        let mut a = TcpStack::new(ADDR_A, 1, cfg.clone());
        let mut b = TcpStack::new(ADDR_B, 2, cfg);
        b.listen(9).unwrap();
        let c = a.connect(0, SocketAddrV4::new(ADDR_B, 9)).unwrap();
        pump(&mut a, &mut b, t);
        assert_eq!(a.send_slice(c, &payload(1, 65_536)).unwrap(), 65_536);
        a.poll(t);
        let out: Vec<Facts> = std::iter::from_fn(|| a.pop_tx()).map(|p| facts(&p)).filter(|f| f.len > 0).collect();
        assert_eq!(out.len(), segments, "{flavor:?}");
        assert_eq!(out.iter().map(|f| f.len).sum::<usize>(), bytes, "{flavor:?}");
    }
}

/// For each data segment A sent, how long after it reached B did B acknowledge it.
fn ack_delays(w: &World) -> Vec<Duration> {
    let log = w.link.borrow().log.clone();
    let mut out = Vec::new();
    for p in log.iter().filter(|p| p.dir == A_TO_B) {
        let f = facts(&p.bytes);
        if f.len == 0 {
            continue;
        }
        let end = f.seq.wrapping_add(f.len as u32);
        let arrived = p.at + ONE_WAY_DELAY;
        let acked = log
            .iter()
            .find(|q| q.dir == B_TO_A && q.at >= arrived && facts(&q.bytes).ack.is_some_and(|a| (a.wrapping_sub(end) as i32) >= 0))
            .expect("acknowledged");
        out.push(acked.at - arrived);
    }
    out
}

/// A server that accepts and never reads (the data waits in its receive buffer).
fn hold(w: &World) {
    let listener = TcpListener::bind(&w.b, 9).unwrap();
    tokio::task::spawn_local(async move {
        let (_s, _) = listener.accept().await.unwrap();
        tokio::time::sleep(Duration::from_secs(3600)).await;
    });
}

/// Linux: quick-ack mode at connection start acknowledges the first 16 data segments at
/// once (`TCP_MAX_QUICKACKS`), then ACKs wait `TCP_DELACK_MIN` = 40 ms while the
/// application leaves the data unread; data after a gap longer than the RTO is
/// acknowledged at once again. An application that reads each small pushed segment
/// gets it acknowledged at once all along (`tcp_cleanup_rbuf`, ICSK_ACK_PUSHED, outside
/// pingpong mode). smoltcp's own: every ACK waits 40 ms.
#[tokio::test(start_paused = true)]
async fn linux_quickacks_16_segments_then_delays_acks_40ms() {
    LocalSet::new()
        .run_until(async {
            for (flavor, reads, planted) in
                [(TcpFlavor::Linux, false, false), (TcpFlavor::Linux, true, false), (TcpFlavor::Linux, true, true), (TcpFlavor::Smoltcp, true, false)]
            {
                // The planted bug (the read's ACK never sent) makes a reader's ACKs wait as a non-reader's.
                smoltcp::socket::tcp::rto_log::plant_no_read_ack(planted);
                let w = world(WorldSpec::new(36).flavor(flavor));
                let _done = if reads {
                    Some(sink(&w, 1 << 20))
                } else {
                    hold(&w);
                    None
                };
                let mut c = TcpStream::connect(&w.a, w.b_addr(9)).await.unwrap();
                c.set_nodelay(true).unwrap();
                for _ in 0..20 {
                    c.write_all(&[7u8; 100]).await.unwrap();
                    tokio::time::sleep(100 * MS).await;
                }
                tokio::time::sleep(Duration::from_secs(2)).await;
                c.write_all(&[8u8; 100]).await.unwrap();
                tokio::time::sleep(Duration::from_secs(1)).await;
                let delays = ack_delays(&w);
                assert_eq!(delays.len(), 21);
                smoltcp::socket::tcp::rto_log::plant_no_read_ack(false);
                let want: Vec<Duration> = match (flavor, reads && !planted) {
                    (TcpFlavor::Linux, false) => (0..21).map(|i| if (16..20).contains(&i) { 40 * MS } else { Duration::ZERO }).collect(),
                    (TcpFlavor::Linux, true) => vec![Duration::ZERO; 21],
                    (TcpFlavor::Smoltcp, _) => vec![40 * MS; 21],
                };
                assert_eq!(delays, want, "{flavor:?}, the application reads: {reads}, planted: {planted}");
            }
        })
        .await;
}

/// Linux: TCP timestamps are on (`tcp_timestamps = 1`) and TSval counts milliseconds
/// (`tcp_clock_ms`, plus a per-connection offset): here of simulated time. Each packet's
/// TSval minus the SYN's equals the simulated milliseconds between them, and TSecr echoes
/// the peer's. smoltcp's own: no timestamp option.
#[tokio::test(start_paused = true)]
async fn linux_timestamps_count_simulated_milliseconds() {
    LocalSet::new()
        .run_until(async {
            for flavor in [TcpFlavor::Linux, TcpFlavor::Smoltcp] {
                let w = world(WorldSpec::new(37).flavor(flavor));
                let _done = sink(&w, 1 << 20);
                let mut c = TcpStream::connect(&w.a, w.b_addr(9)).await.unwrap();
                tokio::time::sleep(Duration::from_millis(1500)).await;
                c.write_all(b"stamp").await.unwrap();
                tokio::time::sleep(Duration::from_secs(1)).await;
                let log = w.link.borrow().log.clone();
                let stamped: Vec<_> = log.iter().map(|p| (p, facts(&p.bytes))).collect();
                if flavor == TcpFlavor::Smoltcp {
                    assert!(stamped.iter().all(|(_, f)| f.ts.is_none()));
                    continue;
                }
                for dir in [A_TO_B, B_TO_A] {
                    let mine: Vec<_> = stamped.iter().filter(|(p, _)| p.dir == dir).collect();
                    let (p0, f0) = mine[0];
                    let ts0 = f0.ts.expect("timestamps on").0;
                    for (p, f) in &mine {
                        let tsval = f.ts.expect("every segment stamped").0;
                        let ms = (p.at - p0.at).as_millis() as u32;
                        assert_eq!(tsval.wrapping_sub(ts0), ms, "{dir} {:?}", p.at);
                    }
                    assert!(mine.len() >= 2);
                }
                // The data segment echoes the server's latest TSval.
                let data = stamped.iter().find(|(p, f)| p.dir == A_TO_B && f.len > 0).unwrap();
                let last_b = stamped.iter().rev().find(|(p, _)| p.dir == B_TO_A && p.at < data.0.at).unwrap();
                assert_eq!(data.1.ts.unwrap().1, last_b.1.ts.unwrap().0);
                assert!(!stamped.iter().any(|(_, f)| f.rst));
            }
        })
        .await;
}

/// Linux: an interactive (request/response) connection is in pingpong mode
/// (`tcp_event_data_sent`: data sent within the ACK delay of data received), so the server
/// does not quick-ack a request even after an idle gap: its ACK rides on the reply. The
/// client, which only answers replies with more requests a second later, quick-acks each
/// reply at once. Per exchange after the first: request, reply (with the ACK), ACK.
#[tokio::test(start_paused = true)]
async fn linux_pingpong_mode_lets_the_ack_ride_on_the_reply() {
    LocalSet::new()
        .run_until(async {
            let w = world(WorldSpec::new(38));
            let listener = TcpListener::bind(&w.b, 7).unwrap();
            tokio::task::spawn_local(async move {
                let (mut s, _) = listener.accept().await.unwrap();
                let mut buf = [0u8; 64];
                loop {
                    match s.read(&mut buf).await {
                        Ok(0) | Err(_) => return,
                        Ok(n) => s.write_all(&buf[..n]).await.unwrap(),
                    }
                }
            });
            let mut c = TcpStream::connect(&w.a, w.b_addr(7)).await.unwrap();
            c.set_nodelay(true).unwrap();
            let mut starts = Vec::new();
            for i in 0..10u8 {
                starts.push(w.now());
                c.write_all(&[i; 10]).await.unwrap();
                let mut got = [0u8; 10];
                c.read_exact(&mut got).await.unwrap();
                assert_eq!(got, [i; 10]);
                tokio::time::sleep(Duration::from_secs(1)).await;
            }
            let log = w.link.borrow().log.clone();
            for win in starts.windows(2).skip(1) {
                let in_win = |dir| log.iter().filter(|p| p.dir == dir && p.at >= win[0] && p.at < win[1]).map(|p| facts(&p.bytes).len).collect::<Vec<_>>();
                assert_eq!(in_win(A_TO_B), [10, 0], "request, then the quick ACK of the reply");
                assert_eq!(in_win(B_TO_A), [10], "the reply carries the ACK");
            }
        })
        .await;
}

/// Linux (`tcp_enter_loss` keeps the SACK marks): after an RTO only segments not SACKed go
/// again, not everything after SND.UNA. Four segments, the first lost and its RACK
/// retransmission (at 40 ms, once 3 are SACKed) lost too; resending the head restarted the
/// RTO (240 ms), which at 280 ms resends the first segment alone: delivered at 300 ms,
/// 6 data packets in all.
#[tokio::test(start_paused = true)]
async fn linux_rto_resends_only_the_segments_not_sacked() {
    LocalSet::new()
        .run_until(async {
            let mut spec = WorldSpec::new(39);
            spec.drop_data_nth[A_TO_B] = vec![0, 4];
            let w = world(spec);
            let (took, c) = delivery_time(&w, &[4 * 1448]).await;
            assert!(near(took, 300 * MS, 2 * MS), "{took:?}");
            assert_eq!(c.retransmits(), 2, "the first segment twice, nothing else");
            assert_eq!(data_times(&w, A_TO_B).len(), 6);
        })
        .await;
}
