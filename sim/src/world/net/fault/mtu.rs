//! A path MTU: larger IP packets are dropped.

use std::io;

use super::{Ctx, Fault};
use crate::world::net::InFlight;

/// An MTU limit: a datagram whose IP packet is larger than `mtu` is dropped, as
/// a router would. A UDP datagram's IP packet is its payload + 28 bytes of IPv4
/// and UDP headers; a tunnelled TCP datagram's payload IS the IP packet.
pub struct Mtu(pub usize);

impl Fault for Mtu {
    fn name(&self) -> String {
        format!("mtu({})", self.0)
    }
    fn process(&mut self, _: &mut Ctx<'_>, d: InFlight, out: &mut Vec<InFlight>) -> io::Result<()> {
        let is_tcp = d.is_tunnelled_tcp();
        let ip_len = if is_tcp { d.payload.len() } else { d.payload.len() + crate::world::net::IP_UDP_HEADER_BYTES };
        if ip_len <= self.0 {
            out.push(d);
        }
        Ok(())
    }
}
