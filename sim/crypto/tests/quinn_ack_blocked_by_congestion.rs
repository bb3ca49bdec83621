//! The smallest reproducer of PATCH.md section 7, for upstream: quinn-proto
//! alone, two endpoints, an in-memory network (20 ms each way), no simulator.
//! See docs/findings/quinn-ack-blocked-by-congestion.md.
//!
//! The client writes more than its congestion window holds as both its links
//! go out, so its window fills with packets nobody acknowledges and more
//! stream data waits. When the downlink comes back, the server's probe arrives
//! carrying a long-delayed acknowledgement (an RTT sample of seconds, so the
//! client's next probe timeout moves far away) and asks for an ACK. RFC 9000
//! section 13.2.1 wants it acknowledged within max_ack_delay (25 ms), and RFC
//! 9002 section 7 says packets of ACK frames only are not congestion
//! controlled. Upstream quinn-proto 0.11.19 skips the whole packet number
//! space when the window is full and data waits, the due ACK with it, so the
//! client stays silent until its next probe timeout. With the patch the ACK
//! goes alone.

mod common;

use std::net::{IpAddr, Ipv4Addr, SocketAddr};
use std::time::Duration;

use common::{Net, Wire, ONE_WAY, SERVER};

const CLIENT: SocketAddr = SocketAddr::new(IpAddr::V4(Ipv4Addr::new(192, 0, 2, 1)), 49152);
/// More than the initial congestion window (about 12 KB) by far.
const BACKLOG: usize = 64 * 1024;
/// The downlink comes back this long after it went out; the uplink stays out.
const DOWNLINK_BACK_AFTER: Duration = Duration::from_secs(8);

/// Datagrams each way are lost while that way is out; what crossed is kept.
#[derive(Default)]
struct Outage {
    /// The client's datagrams that still pass before its uplink goes out.
    up_passes: Option<usize>,
    down_lost: bool,
    /// When the client sent each of its datagrams (lost or not).
    client_sent: Vec<Duration>,
    /// When each datagram of the server's reached the client.
    server_arrived: Vec<Duration>,
}

impl Wire for Outage {
    fn client_addr(&self) -> SocketAddr {
        CLIENT
    }

    fn send(&mut self, now: Duration, from: SocketAddr, _to: SocketAddr, _len: usize) -> Vec<(Duration, SocketAddr)> {
        let lost = if from == SERVER {
            self.down_lost
        } else {
            self.client_sent.push(now);
            match self.up_passes.as_mut() {
                Some(0) => true,
                Some(n) => {
                    *n -= 1;
                    false
                }
                None => false,
            }
        };
        if lost {
            return Vec::new();
        }
        if from == SERVER {
            self.server_arrived.push(now + ONE_WAY);
        }
        vec![(now + ONE_WAY, from)]
    }
}

/// The client writes its backlog as both its links go out, the first datagram
/// of it still reaching the server; the server's acknowledgement is lost.
/// When the downlink comes back, the server's next probe carries that
/// acknowledgement, long delayed (an RTT sample of seconds: the client's next
/// probe timeout moves far away), and asks for an ACK. Returns the time from
/// that probe's arrival to the client's next datagram (`None`: nothing within
/// 30 s).
fn silence_after_the_probe() -> Option<Duration> {
    let mut wire = Outage::default();
    let mut net = Net::connect(&mut wire, Duration::from_secs(1));
    let t0 = net.now;
    wire.down_lost = true;
    wire.up_passes = Some(1);
    net.client_write(&[7u8; BACKLOG]);
    net.run(&mut wire, t0 + DOWNLINK_BACK_AFTER, |_| false);
    wire.down_lost = false;
    let back = net.now;
    net.run(&mut wire, back + Duration::from_secs(30), |_| false);
    let probe = *wire.server_arrived.iter().find(|&&t| t > back).expect("the server probed after the downlink came back");
    wire.client_sent.iter().find(|&&t| t >= probe).map(|&t| t - probe)
}

#[test]
fn patched_acknowledges_within_max_ack_delay_while_blocked() {
    common::upstream(false);
    let s = silence_after_the_probe();
    println!("patched: the client's next datagram {s:?} after the server's probe arrived");
    let s = s.expect("the client sent something");
    assert!(s <= Duration::from_millis(26), "the ACK waited {s:?}, past max_ack_delay (25 ms)");
}

#[test]
fn upstream_holds_the_ack_back_until_a_probe_timeout() {
    common::upstream(false);
    quinn_proto::ftw_sim_patch::set_upstream_ack_blocked_by_congestion(true);
    let s = silence_after_the_probe();
    common::upstream(false);
    println!("upstream: the client's next datagram {s:?} after the server's probe arrived");
    assert!(s.is_none_or(|s| s > Duration::from_secs(1)), "upstream acknowledged within {s:?}");
}
