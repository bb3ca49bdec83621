//! PATCH.md section 12: the rig's stacks acknowledge a packet once. quic-go
//! puts an ACK frame in a packet only when an ack-eliciting packet arrived
//! since its last ACK (`internal/ackhandler/received_packet_tracker.go`,
//! `hasNewAck`); upstream quinn-proto bundles its pending ranges into every
//! packet until the peer acknowledges them.
//!
//! The difference decides a move under loss with quic-go's server (section
//! 11): the server probes the client's new address once and stays on the old
//! one until the PATH_RESPONSE arrives. If that response is lost, quic-go
//! probes again only when the probe packet is declared lost, 1 s after it was
//! sent without an acknowledgement (`sent_packet_handler.go`,
//! `pathProbePacketLossTimeout`), and the address's next packet comes. A
//! client that acknowledges once (quic-go's) has already spent its ACK of the
//! probe in the lost packet, so the probe is lost and probed again; a client
//! that repeats its ACK ranges (upstream quinn's) acknowledges the probe in
//! its next packet, and the server waits for a response that never comes.

mod common;

use std::net::{IpAddr, Ipv4Addr, SocketAddr};
use std::time::Duration;

use common::{Home, Net, Wire, FIRST, ONE_WAY};

const CLIENT: SocketAddr = SocketAddr::new(IpAddr::V4(Ipv4Addr::new(192, 0, 2, 1)), 49152);
/// The client's address after it changes network.
const MOVED: SocketAddr = SocketAddr::new(IpAddr::V4(Ipv4Addr::new(198, 51, 100, 7)), 40000);
/// A path probe is padded to this (RFC 9000 section 8.2.1; quic-go
/// `PackPathProbePacket`).
const PROBE_LEN: usize = 1200;
const MESSAGE: usize = 100;
const EVERY: Duration = Duration::from_millis(200);
const MESSAGES: usize = 15;

/// A client that moved to [`MOVED`]: the old address is gone (datagrams to it
/// are lost), and the client's first datagram after the server's first probe
/// reached it (its PATH_RESPONSE) is lost.
struct MovedLosingResponse {
    probe_seen: bool,
    response_lost: bool,
}

impl Wire for MovedLosingResponse {
    fn client_addr(&self) -> SocketAddr {
        MOVED
    }

    fn send(&mut self, now: Duration, from: SocketAddr, to: SocketAddr, len: usize) -> Vec<(Duration, SocketAddr)> {
        if to == CLIENT {
            return Vec::new();
        }
        if to == MOVED && len >= PROBE_LEN {
            self.probe_seen = true;
        }
        if from == MOVED && self.probe_seen && !self.response_lost {
            self.response_lost = true;
            return Vec::new();
        }
        vec![(now + ONE_WAY, from)]
    }
}

/// The move, one lost PATH_RESPONSE, then a message every 200 ms from the new
/// address. Whether every echo came back within 10 s, and the server's peer
/// address then.
fn move_losing_the_response(upstream_acks: bool) -> (bool, SocketAddr) {
    common::upstream(false);
    quinn_proto::ftw_sim_patch::set_rig(true);
    quinn_proto::ftw_sim_patch::set_upstream_acks_in_rig(upstream_acks);
    let mut net = Net::connect(&mut Home { at: CLIENT }, Duration::from_secs(3));
    let mut wire = MovedLosingResponse { probe_seen: false, response_lost: false };
    for _ in 0..MESSAGES {
        net.client_write(&[1u8; MESSAGE]);
        let t = net.now + EVERY;
        net.run(&mut wire, t, |_| false);
    }
    let total = FIRST + MESSAGES * MESSAGE;
    let t = net.now + Duration::from_secs(10);
    let all = net.run(&mut wire, t, |n| n.echoed.len() == total);
    quinn_proto::ftw_sim_patch::set_upstream_acks_in_rig(false);
    quinn_proto::ftw_sim_patch::set_rig(false);
    assert!(wire.response_lost, "the wire dropped the client's answer to the probe");
    (all, net.server().remote_address())
}

#[test]
fn acknowledging_once_the_lost_response_is_probed_again_and_the_move_completes() {
    let (all, peer) = move_losing_the_response(false);
    assert!(all, "every echo came back after the move");
    assert_eq!(peer, MOVED, "the server followed the client");
}

#[test]
fn repeating_acks_the_probe_is_acknowledged_and_the_server_never_follows() {
    let (all, peer) = move_losing_the_response(true);
    assert!(!all, "the echoes came back although the server never validated the new address");
    assert_eq!(peer, CLIENT, "the server stayed on the old address");
}
