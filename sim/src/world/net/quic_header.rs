//! Whether a datagram holds only long-header QUIC packets (RFC 9000 section 17.2):
//! Initial, 0-RTT, Handshake or Retry, the packets of the handshake. A receiver that
//! has confirmed its handshake has discarded the Initial and Handshake keys (RFC
//! 9001 section 4.9.2) and drops such packets unread, so the idle-out judge
//! ([`crate::law::idle_out`]) does not expect them answered.
//!
//! Packets are walked by their Length fields (RFC 9000 section 12.2: packets
//! coalesced in one datagram; a short-header packet can only come last, and has
//! no length).

/// A long header's packet types (RFC 9000 section 17.2, bits 5 and 4 of the first byte).
const INITIAL: u8 = 0;
const RETRY: u8 = 3;

/// Whether every packet in `bytes` has a long header; `false` for an empty
/// datagram, one with a short-header packet, or bytes that do not read as QUIC.
pub fn long_headers_only(bytes: &[u8]) -> bool {
    let mut rest = bytes;
    if rest.is_empty() {
        return false;
    }
    while !rest.is_empty() {
        match long_packet_len(rest) {
            Some(Packet::Whole) => return true,
            Some(Packet::Len(n)) => rest = &rest[n..],
            None => return false,
        }
    }
    true
}

/// How much of a datagram the long-header packet at its start takes.
enum Packet {
    /// `n` bytes, header included.
    Len(usize),
    /// The rest of the datagram (a Retry or a version negotiation has no Length).
    Whole,
}

/// The length of the long-header packet at the start of `b`, or `None` when it
/// is a short header or does not parse.
fn long_packet_len(b: &[u8]) -> Option<Packet> {
    let first = *b.first()?;
    if first & 0x80 == 0 {
        return None;
    }
    let version = u32::from_be_bytes(b.get(1..5)?.try_into().ok()?);
    let ty = (first >> 4) & 0x03;
    if version == 0 || ty == RETRY {
        return b.get(5..).map(|_| Packet::Whole);
    }
    let mut at = 5;
    for _ in 0..2 {
        // The destination, then the source connection id: a length byte and the id.
        at += 1 + usize::from(*b.get(at)?);
    }
    if ty == INITIAL {
        let (token_len, n) = varint(b.get(at..)?)?;
        at += n + usize::try_from(token_len).ok()?;
    }
    let (len, n) = varint(b.get(at..)?)?;
    let end = at.checked_add(n)?.checked_add(usize::try_from(len).ok()?)?;
    (end <= b.len()).then_some(Packet::Len(end))
}

/// A variable-length integer (RFC 9000 section 16) and how many bytes it took.
fn varint(b: &[u8]) -> Option<(u64, usize)> {
    let first = *b.first()?;
    let n = 1usize << (first >> 6);
    let bytes = b.get(..n)?;
    let value = bytes[1..].iter().fold(u64::from(first & 0x3f), |v, &x| (v << 8) | u64::from(x));
    Some((value, n))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A long-header packet of type `ty` with 8-byte ids and `payload` bytes after
    /// its Length (an Initial carries an empty token).
    fn long(ty: u8, payload: usize) -> Vec<u8> {
        let mut p = vec![0xc0 | (ty << 4), 0, 0, 0, 1, 8];
        p.extend([0xaa; 8]);
        p.push(8);
        p.extend([0xbb; 8]);
        if ty == INITIAL {
            p.push(0);
        }
        // A two-byte varint length (RFC 9000 section 16: 0b01 prefix).
        p.extend([0x40 | (payload >> 8) as u8, payload as u8]);
        p.extend(std::iter::repeat_n(0x11, payload));
        p
    }

    #[test]
    fn handshake_packets_alone_or_coalesced_are_long_headers_only() {
        assert!(long_headers_only(&long(2, 60)));
        assert!(long_headers_only(&[long(INITIAL, 1100), long(2, 40)].concat()));
    }

    #[test]
    fn a_short_header_packet_anywhere_is_not() {
        let short = [0x40, 1, 2, 3, 4, 5, 6, 7, 8, 9];
        assert!(!long_headers_only(&short));
        assert!(!long_headers_only(&[long(2, 40), short.to_vec()].concat()));
    }

    #[test]
    fn a_length_past_the_datagram_or_nothing_is_not_quic() {
        let mut cut = long(2, 60);
        cut.truncate(50);
        assert!(!long_headers_only(&cut));
        assert!(!long_headers_only(&[]));
    }

    #[test]
    fn varints_read_as_rfc_9000_appendix_a_shows() {
        // RFC 9000 section A.1's examples.
        assert_eq!(varint(&[0xc2, 0x19, 0x7c, 0x5e, 0xff, 0x14, 0xe8, 0x8c]), Some((151_288_809_941_952_652, 8)));
        assert_eq!(varint(&[0x9d, 0x7f, 0x3e, 0x7d]), Some((494_878_333, 4)));
        assert_eq!(varint(&[0x7b, 0xbd]), Some((15_293, 2)));
        assert_eq!(varint(&[0x25]), Some((37, 1)));
    }
}
