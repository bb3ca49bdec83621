//! A capture of the run: every datagram at each link it crossed, as the
//! network saw it, for `ftwsim run --pcap` (which writes the pcapng).
//!
//! A link is named by its end: an inside host's leg (`phone`, `box`: inside
//! addresses), a NAT's outside (`nat-wifi`, `nat-cell`, `nat-home`: public
//! addresses) or a host on the internet side (`cloud`). A datagram from the
//! phone is seen on `phone` when sent, on the NAT's outside once translated,
//! and on `cloud` when it arrives; one the network lost carries a note saying
//! where and why. Capturing only copies what the network decided: it draws no
//! randomness and records no trace event, so a run is the same with it on.

use std::net::SocketAddr;
use std::time::Duration;

use bytes::Bytes;

/// One datagram seen on one link.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Packet {
    /// Simulated time since the start.
    pub t: Duration,
    pub link: String,
    pub src: SocketAddr,
    pub dst: SocketAddr,
    /// The UDP payload, or the whole IPv4 packet when `tunnelled` (TCP).
    pub payload: Bytes,
    pub tunnelled: bool,
    /// The network lost it here (a NAT, a fault chain, an unreachable host).
    pub lost: bool,
    /// Where and why it was lost, or how it came to be late (a hold).
    pub note: Option<String>,
}

/// One link of the capture: its name and what it is.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Link {
    pub name: String,
    pub what: String,
}

/// The packets of a run, in the order the network handled them (not sorted
/// by time), and its links in the order they were first seen.
#[derive(Clone, Debug, Default)]
pub struct Capture {
    on: bool,
    pub packets: Vec<Packet>,
    pub links: Vec<Link>,
}

impl Capture {
    /// A capture that keeps packets only if `on`.
    pub fn new(on: bool) -> Self {
        Capture { on, packets: Vec::new(), links: Vec::new() }
    }

    pub fn is_on(&self) -> bool {
        self.on
    }

    /// Keep one packet on `link` at `t` (nothing if capture is off); `lost`
    /// if the network lost it there, `note` saying where and why.
    pub fn keep(&mut self, t: Duration, link: Link, d: &super::InFlight, lost: bool, note: Option<String>) {
        if !self.on {
            return;
        }
        if !self.links.contains(&link) {
            self.links.push(link.clone());
        }
        let (src, dst, payload, tunnelled) = (d.src, d.dst, d.payload.clone(), d.is_tunnelled_tcp());
        self.packets.push(Packet { t, link: link.name, src, dst, payload, tunnelled, lost, note });
    }
}
