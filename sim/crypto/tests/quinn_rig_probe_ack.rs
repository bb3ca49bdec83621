//! PATCH.md section 11, "The probe's acknowledgement": in the rig's profile an
//! ACK of the server's path probe restarts its probe-timeout backoff, as
//! quic-go's does. quic-go keeps the probe in its sent-packet history
//! (`internal/ackhandler/sent_packet_history.go` `SentPathProbePacket`), counts
//! it among an ACK's acknowledged packets unless its 1 s loss timer already
//! fired (`sent_packet_handler.go` `detectAndRemoveAckedPackets`), and
//! `ReceivedAck` then resets `ptoCount`; `MigratedPath` itself leaves the
//! count alone. The patch first built the probe outside `sent_packets`, so an
//! ACK that covered only the probe left the count as a blackout had grown it.
//!
//! Found by fresh seeds 14020000000 (corpus/rig-quic-echo-backoff-after-blackout-14020023638.toml):
//! after a blackout the cloud followed the phone to its new address, and the
//! echoes it sent again there were lost to the leg's 10 % loss; its next probe
//! waited 128 probe timeouts (71 s) where quic-go's would have waited one.

mod common;

use std::net::{IpAddr, Ipv4Addr, SocketAddr};
use std::time::Duration;

use common::{Home, Net, Wire, FIRST, ONE_WAY};

const CLIENT: SocketAddr = SocketAddr::new(IpAddr::V4(Ipv4Addr::new(192, 0, 2, 1)), 49152);
/// The client's address after the blackout.
const MOVED: SocketAddr = SocketAddr::new(IpAddr::V4(Ipv4Addr::new(198, 51, 100, 7)), 40000);
/// A path probe is padded to this (quic-go `PackPathProbePacket`).
const PROBE_LEN: usize = 1200;
const MESSAGE: usize = 100;
/// Everything is lost from just after the client's message until then.
const BLACKOUT: Duration = Duration::from_secs(8);
/// The server's datagrams to the new address are lost for this long after the
/// first one that follows its probe: the echo it sends again on switching.
const LOSS_AFTER_SWITCH: Duration = Duration::from_millis(500);

/// The client's message reaches the server; then a blackout, after which the
/// client is at [`MOVED`] (the old address is gone), and the server's first
/// datagrams there after its probe are lost.
struct BlackoutThenMove {
    start: Duration,
    probe_seen: bool,
    lose_until: Option<Duration>,
}

impl Wire for BlackoutThenMove {
    fn client_addr(&self) -> SocketAddr {
        MOVED
    }

    fn send(&mut self, now: Duration, from: SocketAddr, to: SocketAddr, len: usize) -> Vec<(Duration, SocketAddr)> {
        let dark = now > self.start && now < self.start + BLACKOUT;
        if dark || to == CLIENT {
            return Vec::new();
        }
        if from == common::SERVER && len >= PROBE_LEN && !self.probe_seen {
            self.probe_seen = true;
        } else if from == common::SERVER && self.probe_seen {
            let until = *self.lose_until.get_or_insert(now + LOSS_AFTER_SWITCH);
            if now < until {
                return Vec::new();
            }
        }
        // The client's first datagram goes from its first address.
        let source = if now <= self.start { CLIENT } else { from };
        vec![(now + ONE_WAY, source)]
    }
}

/// The time from the server's switch to the new address until the echo of the
/// client's message came back (`None`: not within 20 s).
fn echo_after_switch(uncounted: bool) -> Option<Duration> {
    common::upstream(false);
    quinn_proto::ftw_sim_patch::set_rig(true);
    quinn_proto::ftw_sim_patch::set_probe_ack_uncounted_in_rig(uncounted);
    let mut net = Net::connect(&mut Home { at: CLIENT }, Duration::from_secs(3));
    let mut wire = BlackoutThenMove { start: net.now, probe_seen: false, lose_until: None };
    net.client_write(&[1u8; MESSAGE]);
    let t = net.now + Duration::from_secs(60);
    let switched = net.run(&mut wire, t, |n| n.server().remote_address() == MOVED);
    let at = net.now;
    let t = net.now + Duration::from_secs(20);
    let echoed = net.run(&mut wire, t, |n| n.echoed.len() == FIRST + MESSAGE);
    quinn_proto::ftw_sim_patch::set_probe_ack_uncounted_in_rig(false);
    quinn_proto::ftw_sim_patch::set_rig(false);
    assert!(switched && wire.lose_until.is_some(), "the server followed the client and lost what it sent first");
    echoed.then(|| net.now - at)
}

#[test]
fn an_acknowledged_probe_restarts_the_backoff_and_the_lost_echo_goes_again_at_once() {
    let after = echo_after_switch(false).expect("the echo came back");
    // Probe timeouts on the fresh path (the initial RTT, as quic-go's reset RTT)
    // from the switch on, past the 500 ms of loss: 0.7 s here.
    assert!(after < Duration::from_secs(3), "the echo came back {after:?} after the switch");
}

#[test]
fn an_uncounted_probe_leaves_the_blackouts_backoff_and_the_echo_waits() {
    assert_eq!(echo_after_switch(true), None, "the echo waited more than 20 s");
}
