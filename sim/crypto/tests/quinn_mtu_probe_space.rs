//! The smallest reproducer of PATCH.md section 10, for upstream: quinn-proto
//! alone, two endpoints, an in-memory network (20 ms each way), no simulator.
//! See docs/findings/upstream/mtu-probe-number-across-spaces/.
//!
//! Upstream quinn-proto 0.11.19's loss detection compares every packet of the
//! space it runs on with the in-flight MTU probe's number, a 1-RTT (Data
//! space) number. A client between the handshake's completion and its
//! confirmation has Handshake packets and an MTU probe in flight at once, and
//! both spaces number from 0. Here the client's Finished (Handshake packet 0)
//! went in a datagram with 1-RTT packet 0, so its MTU probe is 1-RTT packet 1;
//! the Finished and the client's next, ACK-only, Handshake packet 1 are lost.
//! When the server's acknowledgement of a later Handshake packet makes both
//! lost, upstream takes Handshake packet 1 for the probe: it is never declared
//! lost, and the probe, which no Handshake acknowledgement says anything
//! about, is (the path MTU search counts a failure it did not have).

mod common;

use std::net::{IpAddr, Ipv4Addr, SocketAddr};
use std::time::Duration;

use common::{Net, Wire, ONE_WAY, SERVER};

const CLIENT: SocketAddr = SocketAddr::new(IpAddr::V4(Ipv4Addr::new(192, 0, 2, 1)), 49152);
/// Before this, every datagram of the server's is lost (its first flight).
const FIRST_FLIGHT_LOST_UNTIL: Duration = Duration::from_millis(500);
/// Until this, every client Handshake datagram larger than an ACK alone (its
/// Finished and the Finished's retransmissions) is lost.
const FINISHED_LOST_UNTIL: Duration = Duration::from_secs(3);
/// A Handshake datagram of an ACK frame alone is at most this long here (47 to 49 B).
const ACK_ONLY_MAX: usize = 60;
/// From then until this, the client's Initial datagrams are lost (its first
/// probes, at 999 ms).
const CLIENT_PROBES_LOST_UNTIL: Duration = Duration::from_millis(1000);

/// A long header (0x80) of type Initial (0x00) or Handshake (0x20).
fn long_type(first: u8) -> Option<u8> {
    (first & 0x80 != 0).then_some(first & 0x30)
}

/// The losses that bring the client's lost Finished before an acknowledgement
/// of a later Handshake packet: the server's first flight and the client's
/// first Initial probes (the client's RTT sample then spans the server's first
/// probe timeout, about 1 s, and its own probe timer comes late), the client's
/// first Handshake datagram (the Finished), and the second of the server's
/// Handshake probes that follow it (so that the server probes again, with an
/// ACK of the client's ACK-only Handshake packets).
#[derive(Default)]
struct Losses {
    client_handshakes: usize,
    server_handshakes_after_finished: usize,
}

impl Wire for Losses {
    fn client_addr(&self) -> SocketAddr {
        CLIENT
    }

    fn send(&mut self, _now: Duration, _from: SocketAddr, _to: SocketAddr, _len: usize) -> Vec<(Duration, SocketAddr)> {
        unreachable!("send_bytes decides")
    }

    fn send_bytes(&mut self, now: Duration, from: SocketAddr, _to: SocketAddr, bytes: &[u8]) -> Vec<(Duration, SocketAddr)> {
        let lost = if from == SERVER {
            let handshake = long_type(bytes[0]) == Some(0x20);
            if handshake && self.client_handshakes > 0 {
                self.server_handshakes_after_finished += 1;
            }
            now < FIRST_FLIGHT_LOST_UNTIL || (handshake && [2, 4].contains(&self.server_handshakes_after_finished))
        } else {
            match long_type(bytes[0]) {
                Some(0x00) => (FIRST_FLIGHT_LOST_UNTIL..CLIENT_PROBES_LOST_UNTIL).contains(&now),
                Some(0x20) => {
                    self.client_handshakes += 1;
                    self.client_handshakes <= 2 || (bytes.len() > ACK_ONLY_MAX && now < FINISHED_LOST_UNTIL)
                }
                _ => false,
            }
        };
        if lost {
            Vec::new()
        } else {
            vec![(now + ONE_WAY, from)]
        }
    }
}

/// The client's path statistics once two packets are declared lost (before
/// the server's handshake completes): (packets declared lost, MTU probes
/// declared lost).
fn first_loss() -> (u64, u64) {
    let mut wire = Losses::default();
    let mut net = Net::begin();
    let lost = |n: &Net| {
        let p = n.client().stats().path;
        p.lost_packets + p.lost_plpmtud_probes >= 2
    };
    assert!(net.run(&mut wire, Duration::from_secs(20), lost), "setup: the client declared two packets lost");
    assert!(net.server().is_handshaking(), "setup: the losses came after the server's handshake completed");
    let p = net.client().stats().path;
    (p.lost_packets, p.lost_plpmtud_probes)
}

#[test]
fn patched_declares_the_handshake_packets_lost_not_the_probe() {
    common::upstream(false);
    let (packets, probes) = first_loss();
    println!("patched: {packets} packets, {probes} MTU probes declared lost");
    assert_eq!((packets, probes), (2, 0), "Handshake packets 0 and 1 are declared lost, not the probe");
}

#[test]
fn upstream_takes_a_handshake_packet_for_the_mtu_probe() {
    common::upstream(false);
    quinn_proto::ftw_sim_patch::set_upstream_mtu_probe_any_space(true);
    let (packets, probes) = first_loss();
    common::upstream(false);
    println!("upstream: {packets} packets, {probes} MTU probes declared lost");
    assert_eq!((packets, probes), (1, 1), "upstream declares the probe lost in Handshake packet 1's place");
}
