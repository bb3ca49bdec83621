//! The IP packet of a captured datagram: a tunnelled TCP segment already is
//! one (the userspace TCP's own IPv4 packet); a UDP datagram gets the IPv4 and
//! UDP headers the network would have put around it, checksums included.

use std::net::{IpAddr, SocketAddr};

use ftw_sim::net::capture::Packet;

const IPV4_HEADER_LEN: usize = 20;
const UDP_HEADER_LEN: usize = 8;
const TTL: u8 = 64;
const PROTO_UDP: u8 = 17;

/// The bytes of `p` as an IPv4 packet (LINKTYPE_RAW).
pub fn packet_bytes(p: &Packet) -> Vec<u8> {
    if p.tunnelled {
        return p.payload.to_vec();
    }
    udp_over_ipv4(p.src, p.dst, &p.payload)
}

fn v4(a: SocketAddr) -> [u8; 4] {
    match a.ip() {
        IpAddr::V4(ip) => ip.octets(),
        IpAddr::V6(_) => panic!("the simulated network is IPv4 only ({a})"),
    }
}

/// An IPv4 packet carrying one UDP datagram from `src` to `dst`.
pub fn udp_over_ipv4(src: SocketAddr, dst: SocketAddr, payload: &[u8]) -> Vec<u8> {
    let udp_len = UDP_HEADER_LEN + payload.len();
    let total = IPV4_HEADER_LEN + udp_len;
    assert!(total <= usize::from(u16::MAX), "a datagram fits an IPv4 packet");
    let (s, d) = (v4(src), v4(dst));
    let mut out = Vec::with_capacity(total);
    out.extend_from_slice(&[0x45, 0, (total >> 8) as u8, total as u8, 0, 0, 0x40, 0, TTL, PROTO_UDP, 0, 0]);
    out.extend_from_slice(&s);
    out.extend_from_slice(&d);
    let ip_sum = checksum(&[&out[..IPV4_HEADER_LEN]]);
    out[10..12].copy_from_slice(&ip_sum.to_be_bytes());
    let len = (udp_len as u16).to_be_bytes();
    let mut udp = Vec::with_capacity(udp_len);
    udp.extend_from_slice(&src.port().to_be_bytes());
    udp.extend_from_slice(&dst.port().to_be_bytes());
    udp.extend_from_slice(&len);
    udp.extend_from_slice(&[0, 0]);
    udp.extend_from_slice(payload);
    let pseudo = [s[0], s[1], s[2], s[3], d[0], d[1], d[2], d[3], 0, PROTO_UDP, len[0], len[1]];
    // A computed zero is sent as all ones (RFC 768): zero means "no checksum".
    let udp_sum = match checksum(&[&pseudo, &udp]) {
        0 => 0xffff,
        c => c,
    };
    udp[6..8].copy_from_slice(&udp_sum.to_be_bytes());
    out.extend_from_slice(&udp);
    out
}

/// The Internet checksum (RFC 1071) over the concatenation of `parts`.
fn checksum(parts: &[&[u8]]) -> u16 {
    let bytes = parts.iter().flat_map(|p| p.iter().copied());
    let mut sum = 0u32;
    let mut hi: Option<u8> = None;
    for b in bytes {
        match hi.take() {
            Some(h) => sum += u32::from(u16::from_be_bytes([h, b])),
            None => hi = Some(b),
        }
    }
    if let Some(h) = hi {
        sum += u32::from(h) << 8;
    }
    while sum > 0xffff {
        sum = (sum & 0xffff) + (sum >> 16);
    }
    !(sum as u16)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn headers_check_out() {
        let p = udp_over_ipv4("10.0.1.2:5000".parse().unwrap(), "203.0.113.10:443".parse().unwrap(), b"hello");
        assert_eq!(p.len(), 20 + 8 + 5);
        assert_eq!(checksum(&[&p[..20]]), 0, "the IPv4 header sums to zero with its checksum");
        let pseudo = [10, 0, 1, 2, 203, 0, 113, 10, 0, 17, 0, 13];
        assert_eq!(checksum(&[&pseudo, &p[20..]]), 0, "the UDP checksum covers the pseudo-header");
        assert_eq!(&p[20..24], &[0x13, 0x88, 0x01, 0xbb]);
    }
}
