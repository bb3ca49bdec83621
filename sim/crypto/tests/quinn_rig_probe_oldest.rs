//! PATCH.md section 15: the rig's probe timeout sends the oldest outstanding
//! packet's data again. quic-go's PTO declares the first outstanding packet lost
//! and queues its frames for its probe (`internal/ackhandler/sent_packet_handler.go`
//! `QueueProbePacket`); upstream quinn-proto's probe carries new data, the oldest
//! packet's control frames or a PING, never lost stream frames, which go again
//! only once the probe's acknowledgement lets loss detection declare them lost.
//!
//! So a lone stream message lost on the wire costs quic-go's PTO, and upstream
//! quinn-proto's PTO plus a round trip (docs/table-derivations.md, item 6).

mod common;

use std::net::{IpAddr, Ipv4Addr, SocketAddr};
use std::time::Duration;

use common::{Home, Net, Wire, FIRST, ONE_WAY};

const CLIENT: SocketAddr = SocketAddr::new(IpAddr::V4(Ipv4Addr::new(192, 0, 2, 1)), 49152);
const MESSAGE: usize = 100;

/// Every datagram delivered after [`ONE_WAY`] but the client's first one once armed.
struct LoseOne {
    armed: bool,
    lost: bool,
}

impl Wire for LoseOne {
    fn client_addr(&self) -> SocketAddr {
        CLIENT
    }

    fn send(&mut self, now: Duration, from: SocketAddr, _to: SocketAddr, _len: usize) -> Vec<(Duration, SocketAddr)> {
        if self.armed && !self.lost && from == CLIENT {
            self.lost = true;
            return Vec::new();
        }
        vec![(now + ONE_WAY, from)]
    }
}

/// After the connection settled, one message whose first datagram is lost: how
/// long until its echo came back.
fn lost_message_echo(upstream_probes: bool) -> Duration {
    common::upstream(false);
    quinn_proto::ftw_sim_patch::set_rig(true);
    quinn_proto::ftw_sim_patch::set_upstream_probes_in_rig(upstream_probes);
    let mut net = Net::connect(&mut Home { at: CLIENT }, Duration::from_secs(3));
    let mut wire = LoseOne { armed: true, lost: false };
    let start = net.now;
    net.client_write(&[1u8; MESSAGE]);
    let t = net.now + Duration::from_secs(5);
    let echoed = net.run(&mut wire, t, |n| n.echoed.len() == FIRST + MESSAGE);
    quinn_proto::ftw_sim_patch::set_upstream_probes_in_rig(false);
    quinn_proto::ftw_sim_patch::set_rig(false);
    assert!(wire.lost && echoed, "the message was lost once and came back");
    net.now - start
}

#[test]
fn quic_gos_probe_sends_the_lost_message_again_a_round_trip_sooner() {
    let rig = lost_message_echo(false);
    let upstream = lost_message_echo(true);
    // The round trip the probe saves, within a millisecond of processing.
    let rtt = 2 * ONE_WAY;
    assert!(upstream >= rig + rtt - Duration::from_millis(1), "rig {rig:?}, upstream {upstream:?}");
}
