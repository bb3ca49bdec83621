//! Just enough of a QUIC packet header to route it (RFC 9000 section 17).
//!
//! The first bit of the first byte is the header form: 1 = long header (Initial, 0-RTT,
//! Handshake, Retry, and version negotiation), 0 = short header (1-RTT, after the handshake).
//! A long header says how long its destination id is (byte 5); a short header does not, so the
//! receiver must know its own id length ([`crate::consts::LOCAL_CID_LEN`] here).

use crate::consts::CID_LEN_MAX;

/// The header form of a QUIC packet (RFC 9000 section 17.1, first bit).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum HeaderForm {
    /// `0b1xxx_xxxx`: the id was chosen by whoever sent the first Initial (for a client's first
    /// flight, the client).
    Long,
    /// `0b0xxx_xxxx`: the handshake is done; the id was minted by the receiver.
    Short,
}

/// The header form of `bytes`, or `None` for an empty datagram.
pub fn header_form(bytes: &[u8]) -> Option<HeaderForm> {
    let first = *bytes.first()?;
    if first & 0x80 != 0 {
        Some(HeaderForm::Long)
    } else {
        Some(HeaderForm::Short)
    }
}

/// The destination connection id of the first packet in `bytes`.
///
/// Short header: the `local_cid_len` bytes after the first byte. Long header: byte 5 gives the
/// length (at most 20, RFC 9000 section 17.2), the id follows. `None` when the datagram is too
/// short to hold what its header announces, or a long header announces more than 20 bytes.
pub fn dst_cid(bytes: &[u8], local_cid_len: usize) -> Option<&[u8]> {
    match header_form(bytes)? {
        HeaderForm::Short => bytes.get(1..1 + local_cid_len),
        HeaderForm::Long => {
            // first byte, 4 bytes of version, then the id's length.
            let len = usize::from(*bytes.get(5)?);
            if len > CID_LEN_MAX {
                return None;
            }
            bytes.get(6..6 + len)
        }
    }
}

/// The reactor a server-minted id names: `cid[0] % reactor_count` (seed 002). `None` for an
/// empty id.
pub fn owner_of(cid: &[u8], reactor_count: usize) -> Option<usize> {
    assert!(reactor_count >= 1, "a fleet has at least one reactor");
    cid.first().map(|b| usize::from(*b) % reactor_count)
}

/// A short-header datagram with destination id `dcid` and `payload` after it. For tests and
/// drivers that need hand-built packets; the payload is not protected.
pub fn build_short(dcid: &[u8], payload: &[u8]) -> Vec<u8> {
    let mut out = Vec::with_capacity(1 + dcid.len() + payload.len());
    out.push(0x40); // form 0, fixed bit 1 (RFC 9000 section 17.3.1)
    out.extend_from_slice(dcid);
    out.extend_from_slice(payload);
    out
}

/// A QUIC v1 long-header (Initial) datagram with `dcid`, `scid` and `payload`. For tests.
pub fn build_long(dcid: &[u8], scid: &[u8], payload: &[u8]) -> Vec<u8> {
    assert!(dcid.len() <= CID_LEN_MAX && scid.len() <= CID_LEN_MAX);
    let mut out = Vec::with_capacity(7 + dcid.len() + scid.len() + payload.len());
    out.push(0xc0); // form 1, fixed bit 1, type 0 = Initial (RFC 9000 section 17.2.2)
    out.extend_from_slice(&1u32.to_be_bytes());
    out.push(dcid.len() as u8);
    out.extend_from_slice(dcid);
    out.push(scid.len() as u8);
    out.extend_from_slice(scid);
    out.extend_from_slice(payload);
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn short_and_long_are_told_apart_by_the_first_bit() {
        assert_eq!(header_form(&[]), None);
        assert_eq!(header_form(&[0x40]), Some(HeaderForm::Short));
        assert_eq!(header_form(&[0x7f]), Some(HeaderForm::Short));
        assert_eq!(header_form(&[0x80]), Some(HeaderForm::Long));
        assert_eq!(header_form(&[0xc3]), Some(HeaderForm::Long));
    }

    #[test]
    fn destination_ids_are_read_from_both_forms() {
        let cid = [9u8, 8, 7, 6, 5, 4, 3, 2];
        let short = build_short(&cid, b"payload");
        assert_eq!(header_form(&short), Some(HeaderForm::Short));
        assert_eq!(dst_cid(&short, 8), Some(&cid[..]));
        // Too short to hold the id.
        assert_eq!(dst_cid(&short[..5], 8), None);

        let dcid = [1u8, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12];
        let long = build_long(&dcid, &[0xaa; 4], b"hello");
        assert_eq!(header_form(&long), Some(HeaderForm::Long));
        assert_eq!(dst_cid(&long, 8), Some(&dcid[..]));
        assert_eq!(dst_cid(&long[..10], 8), None);
        // 20 bytes, the most QUIC v1 allows, are an id; 21 are not.
        let longest = [7u8; CID_LEN_MAX];
        assert_eq!(dst_cid(&build_long(&longest, &[], b"x"), 8), Some(&longest[..]));
        // A long header announcing 21 bytes of id is not QUIC v1.
        let mut bad = long.clone();
        bad[5] = 21;
        bad.extend_from_slice(&[0; 32]);
        assert_eq!(dst_cid(&bad, 8), None);
    }

    #[test]
    fn owner_is_byte_zero_mod_n() {
        assert_eq!(owner_of(&[7, 0, 0], 4), Some(3));
        assert_eq!(owner_of(&[8], 4), Some(0));
        assert_eq!(owner_of(&[], 4), None);
    }
}
