//! The smallest reproducer of the stall behind issue 15 section 4, for upstream:
//! quinn-proto alone, two endpoints, an in-memory network (20 ms each way), no
//! simulator. See docs/findings/quinn-mtud-unvalidated-path.md.
//!
//! The client moves to a new IP address and sends a 600-byte stream message; the
//! server (migration on, the default) echoes it. The server's first datagram to
//! the new address, the one with its PATH_CHALLENGE, is lost. Upstream
//! quinn-proto 0.11.19 then sends MTU probes to the unvalidated address, past its
//! anti-amplification limit (RFC 9000 section 8.1), and every packet that would
//! carry a new PATH_CHALLENGE is blocked by that limit: the echo waits for
//! `Timer::PathValidation` (three PTOs) and a second migration. With the patch
//! (sim/vendor/quinn-proto/PATCH.md) it comes one PTO later.

mod common;

use std::net::{IpAddr, Ipv4Addr, SocketAddr};
use std::time::Duration;

use common::{Net, Unvalidated, Wire, FIRST, ONE_WAY, SERVER};
use quinn_proto::Connection;

/// Before and after the move: different IPs (a Wi-Fi NAT, a cellular NAT), so
/// the server starts the new path from scratch (`PathData::new`).
const CLIENT_A: SocketAddr = SocketAddr::new(IpAddr::V4(Ipv4Addr::new(192, 0, 2, 1)), 49152);
const CLIENT_B: SocketAddr = SocketAddr::new(IpAddr::V4(Ipv4Addr::new(198, 51, 100, 1)), 49152);
const MESSAGE: usize = 600;

/// A client that moves from A to B once.
struct Move {
    /// The client's current address.
    client_addr: SocketAddr,
    /// Drop the next datagram the server sends to this address.
    drop_next_to: Option<SocketAddr>,
    /// The server's bytes to and from `CLIENT_B` before it validated B.
    b: Unvalidated,
}

impl Wire for Move {
    fn client_addr(&self) -> SocketAddr {
        self.client_addr
    }

    fn send(&mut self, now: Duration, from: SocketAddr, to: SocketAddr, len: usize) -> Vec<(Duration, SocketAddr)> {
        let from_server = from == SERVER;
        if from_server && to == CLIENT_B {
            self.b.on_send(len);
        }
        if from_server && self.drop_next_to == Some(to) {
            self.drop_next_to = None;
            return Vec::new();
        }
        vec![(now + ONE_WAY, from)]
    }

    fn server_handled(&mut self, from: SocketAddr, len: usize, server: &Connection) {
        if from == CLIENT_B {
            self.b.on_handled(len, server);
        }
    }
}

/// Connect, let the server finish its path MTU search on A, move the client
/// to B and send 600 bytes with the server's first datagram to B lost. Returns
/// how long the echo took, and the bytes the server sent to and received from
/// B before B was validated.
fn move_and_echo() -> (Option<Duration>, u64, u64) {
    let mut wire = Move { client_addr: CLIENT_A, drop_next_to: None, b: Unvalidated::default() };
    let mut net = Net::connect(&mut wire, Duration::from_secs(8));
    // The client moves; its next packet comes from B.
    wire.client_addr = CLIENT_B;
    wire.drop_next_to = Some(CLIENT_B);
    let t0 = net.now;
    net.client_write(&[2u8; MESSAGE]);
    let back = net.run(&mut wire, t0 + Duration::from_secs(20), |n| n.echoed.len() == FIRST + MESSAGE);
    (back.then(|| net.now - t0), wire.b.sent, wire.b.received)
}

/// The new path's PTO from RFC 9002: the server resets its RTT estimator for
/// the new address (RFC 9000 section 9.4), so kInitialRtt 333 ms, rttvar half of
/// it, plus max_ack_delay 25 ms: 333 + 4 x 166.5 + 25 = 1,024 ms.
const PTO_NEW_PATH: Duration = Duration::from_millis(1_024);

#[test]
fn patched_a_lost_path_challenge_costs_one_pto_and_the_3x_limit_holds() {
    common::upstream(false);
    let (took, sent, recvd) = move_and_echo();
    let took = took.expect("the echo came back");
    println!("patched: echo after {took:?}; to B before validation {sent} bytes, from B {recvd} bytes");
    // One round trip, plus one PTO of the new path for the lost datagram.
    assert!(took <= 4 * ONE_WAY + PTO_NEW_PATH, "echo after {took:?}");
    assert!(sent <= 3 * recvd, "sent {sent} bytes to an unvalidated address that sent {recvd} (RFC 9000 section 8.1)");
}

#[test]
fn upstream_overspends_the_3x_limit_and_stalls_until_path_validation_gives_up() {
    common::upstream(true);
    let (took, sent, recvd) = move_and_echo();
    common::upstream(false);
    println!("upstream: echo after {took:?}; to B before validation {sent} bytes, from B {recvd} bytes");
    assert!(sent > 3 * recvd, "upstream kept to the limit: sent {sent}, received {recvd}");
    // Timer::PathValidation is 3 x PTO of the new path.
    assert!(took.is_none_or(|t| t > 3 * PTO_NEW_PATH), "upstream recovered after {took:?}");
}
