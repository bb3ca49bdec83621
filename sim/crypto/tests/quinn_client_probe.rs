//! PATCH.md section 13: the Go phone probes its new path before it moves there
//! (quic-go `Path.Probe`), and section 11's rig server answers that probe in a
//! probe packet of its own, as quic-go's `HandlePacket` returns the
//! PATH_RESPONSE among the frames `PackPathProbePacket` sends at once.
//!
//! quic-go's server, hearing a PATH_CHALLENGE from a new address, sends one
//! probe packet there with its own PATH_CHALLENGE and the PATH_RESPONSE
//! (`path_manager.go` `HandlePacket`, frames of `PackPathProbePacket`), sent at
//! once and not held by congestion control; upstream quinn-proto answers in an
//! off-path packet of its own from the space loop, behind congestion control.
//! The wire below carries the client's datagrams, and of the server's only
//! those to the new address (padded, 1200 bytes).

mod common;

use std::net::{IpAddr, Ipv4Addr, SocketAddr};
use std::time::Duration;

use common::{Home, Net, Wire, ONE_WAY};

const CLIENT: SocketAddr = SocketAddr::new(IpAddr::V4(Ipv4Addr::new(192, 0, 2, 1)), 49152);
const MOVED: SocketAddr = SocketAddr::new(IpAddr::V4(Ipv4Addr::new(198, 51, 100, 7)), 40000);
/// A path probe is padded to this (RFC 9000 section 8.2.1; quic-go `PackPathProbePacket`).
const PROBE_LEN: usize = 1200;

/// The client moved to [`MOVED`]: its probes reach the server; of the server's
/// datagrams only those to the new address reach the client (`probe_packets`
/// counts them; all are padded path packets).
struct Moved {
    probe_packets: usize,
}

impl Wire for Moved {
    fn client_addr(&self) -> SocketAddr {
        MOVED
    }

    fn send(&mut self, now: Duration, from: SocketAddr, to: SocketAddr, len: usize) -> Vec<(Duration, SocketAddr)> {
        match (from == MOVED, to == MOVED && len >= PROBE_LEN) {
            (true, _) => vec![(now + ONE_WAY, from)],
            (false, true) => {
                self.probe_packets += 1;
                vec![(now + ONE_WAY, from)]
            }
            (false, false) => Vec::new(),
        }
    }
}

/// The client's probe after the move: whether it was answered within 1 s, and
/// how many datagrams of the server's reached the new address until then.
fn probe_after_move(rig: bool) -> (bool, usize) {
    common::upstream(false);
    quinn_proto::ftw_sim_patch::set_rig(rig);
    let mut net = Net::connect(&mut Home { at: CLIENT }, Duration::from_secs(3));
    let mut wire = Moved { probe_packets: 0 };
    net.client_mut().ftw_probe_path();
    let t = net.now + Duration::from_secs(1);
    let answered = net.run(&mut wire, t, |n| n.client().ftw_path_probe_answered());
    quinn_proto::ftw_sim_patch::set_rig(false);
    (answered, wire.probe_packets)
}

#[test]
fn the_rig_server_answers_the_clients_probe_in_its_probe_packet() {
    let (answered, probes) = probe_after_move(true);
    assert!(answered, "the client's probe was answered");
    assert_eq!(probes, 1, "by the one probe packet the server sent there, with its own challenge");
}

#[test]
fn a_probe_is_answered_only_when_asked_for() {
    common::upstream(false);
    quinn_proto::ftw_sim_patch::set_rig(true);
    let mut net = Net::connect(&mut Home { at: CLIENT }, Duration::from_secs(3));
    let t = net.now + Duration::from_secs(1);
    let answered = net.run(&mut Moved { probe_packets: 0 }, t, |n| n.client().ftw_path_probe_answered());
    quinn_proto::ftw_sim_patch::set_rig(false);
    assert!(!answered, "no probe, no answer");
}
