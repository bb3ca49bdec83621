//! The smallest reproducer of PATCH.md section 6, for upstream: quinn-proto
//! alone, two endpoints, an in-memory network (20 ms each way), no simulator.
//! See docs/findings/quinn-full-datagram-on-budget.md.
//!
//! The client moves to a new IP address and sends a 150-byte stream message;
//! the server answers it with 3,000 bytes (the reply of a relay with news
//! queued). Its path to the new address is not validated, so it may send three
//! times what it received (RFC 9000 section 8.1). Upstream quinn-proto 0.11.19
//! lets a datagram of a whole segment go while any budget is left (the comment
//! cites quinn issue 1082), so its first datagram there, 1,200 bytes of data
//! with the PATH_CHALLENGE riding along, overspends the limit; with the client's
//! PATH_RESPONSE lost, every later packet is blocked until the client has sent
//! enough to pay the debt back, and the reply waits for `Timer::PathValidation`.
//! With the patch the datagram is cut to the budget.

mod common;

use std::net::{IpAddr, Ipv4Addr, SocketAddr};
use std::time::Duration;

use common::{Net, Unvalidated, Wire, FIRST, ONE_WAY, SERVER};
use quinn_proto::Connection;

const CLIENT_A: SocketAddr = SocketAddr::new(IpAddr::V4(Ipv4Addr::new(192, 0, 2, 1)), 49152);
const CLIENT_B: SocketAddr = SocketAddr::new(IpAddr::V4(Ipv4Addr::new(198, 51, 100, 1)), 49152);
const MESSAGE: usize = 150;
const REPLY_TIMES: usize = 20;

/// A client that moves from A to B once; its datagrams from B numbered in
/// `lose` are lost.
struct Move {
    client_addr: SocketAddr,
    from_b: usize,
    lose: &'static [usize],
    /// The server's bytes to and from B before it validated B.
    b: Unvalidated,
}

impl Wire for Move {
    fn client_addr(&self) -> SocketAddr {
        self.client_addr
    }

    fn send(&mut self, now: Duration, from: SocketAddr, to: SocketAddr, len: usize) -> Vec<(Duration, SocketAddr)> {
        if from == SERVER && to == CLIENT_B {
            self.b.on_send(len);
        }
        if from == CLIENT_B {
            self.from_b += 1;
            if self.lose.contains(&self.from_b) {
                return Vec::new();
            }
        }
        vec![(now + ONE_WAY, from)]
    }

    fn server_handled(&mut self, from: SocketAddr, len: usize, server: &Connection) {
        if from == CLIENT_B {
            self.b.on_handled(len, server);
        }
    }
}

/// What the move cost.
struct Outcome {
    /// From the client's message to the reply's last byte.
    took: Option<Duration>,
    /// See [`Unvalidated::worst_overspend`].
    worst_overspend: i64,
}

/// Move, send the message with the client's datagrams from B numbered in
/// `lose` lost (the second and third carry its PATH_RESPONSEs), and wait for
/// the whole reply.
fn move_and_reply(lose: &'static [usize]) -> Outcome {
    let mut wire = Move { client_addr: CLIENT_A, from_b: 0, lose, b: Unvalidated::default() };
    let mut net = Net::connect(&mut wire, Duration::from_secs(8));
    net.echo_times = REPLY_TIMES;
    wire.client_addr = CLIENT_B;
    let t0 = net.now;
    net.client_write(&[2u8; MESSAGE]);
    let want = FIRST + MESSAGE * REPLY_TIMES;
    let back = net.run(&mut wire, t0 + Duration::from_secs(20), |n| n.echoed.len() == want);
    Outcome { took: back.then(|| net.now - t0), worst_overspend: wire.b.worst_overspend }
}

const LOSE: &[usize] = &[2, 3];

#[test]
fn patched_cuts_the_datagram_to_the_budget() {
    common::upstream(false);
    let o = move_and_reply(LOSE);
    println!("patched: reply after {:?}; the most sent past 3x received: {} B", o.took, o.worst_overspend);
    assert!(o.worst_overspend <= 0, "sent {} B past the 3x limit of RFC 9000 section 8.1", o.worst_overspend);
    assert!(o.took.is_some(), "the reply came");
}

#[test]
fn upstream_sends_a_whole_datagram_on_any_budget() {
    common::upstream(false);
    quinn_proto::ftw_sim_patch::set_upstream_full_datagram_on_budget(true);
    let o = move_and_reply(LOSE);
    common::upstream(false);
    println!("upstream: reply after {:?}; the most sent past 3x received: {} B", o.took, o.worst_overspend);
    assert!(o.worst_overspend > 0, "upstream kept to the 3x limit");
}
