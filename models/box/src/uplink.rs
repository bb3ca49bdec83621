//! The box's uplink to the cloud: how one link carries up to [`SESSIONS_MAX`](crate::consts::SESSIONS_MAX)
//! relayed phone sessions (chosen here; the earlier design broadcast and let the AEAD sort
//! them out, srcfl/ftw appuplink/session.go).
//!
//! Every uplink message (a stream message or a datagram of the link) is
//! `kind u8 | chan u32 BE | payload`. `chan` is the cloud's number for one phone link; the
//! payload is opaque to the cloud except for `Open`'s (the box session's message 1, itself
//! Noise) and `Close`'s (a close code).
//!
//! | kind | dir | payload | cloud does |
//! |---|---|---|---|
//! | 1 `Open` | cloud → box | box session message 1 | - |
//! | 2 `Data` | both | box session message (handshake message 2 or transport) | to the phone on its control stream |
//! | 3 `Bulk` | box → cloud | box session transport message | to the phone on the bulk lane |
//! | 4 `Dgram` | box → cloud | box session transport message | to the phone as a datagram where its link has them |
//! | 5 `Close` | both | close code u16 BE | ends the phone link with that code / the box drops the session |
//! | 6 `Challenge` | cloud → box | a nonce of `UPLINK_NONCE_LEN` bytes (chan 0) | sent first on every uplink it accepts |
//! | 7 `Auth` | box → cloud | `ftw_wire::noise::uplink_proof` of the nonce (chan 0) | checks it: the uplink serves phones from then on; a wrong proof 4403 |
//!
//! The challenge is the seed's ("0-RTT still saves a box a round trip, whose challenge
//! comes back in the first flight"): the box sends its target as 0-RTT early data on a
//! reconnect, so the cloud's `Challenge` rides the cloud's first flight.
//!
//! The kind tells the cloud how to carry a message (a QUIC relay sees that anyway), not
//! what is in it.

/// The kind byte.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Kind {
    Open = 1,
    Data = 2,
    Bulk = 3,
    Dgram = 4,
    Close = 5,
    Challenge = 6,
    Auth = 7,
}

/// Header length: kind + chan.
pub const HEADER_LEN: usize = 5;

/// One uplink message.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct UpMsg {
    pub kind: Kind,
    pub chan: u32,
    pub payload: Vec<u8>,
}

impl UpMsg {
    /// A `Close` for `chan` with `code`.
    pub fn close(chan: u32, code: u16) -> UpMsg {
        UpMsg { kind: Kind::Close, chan, payload: code.to_be_bytes().to_vec() }
    }

    /// The cloud's `Challenge` with `nonce`.
    pub fn challenge(nonce: &[u8]) -> UpMsg {
        UpMsg { kind: Kind::Challenge, chan: 0, payload: nonce.to_vec() }
    }

    /// The box's `Auth` with its proof.
    pub fn auth(proof: &[u8]) -> UpMsg {
        UpMsg { kind: Kind::Auth, chan: 0, payload: proof.to_vec() }
    }

    /// The close code of a `Close` (1005 "no status" when the payload is short).
    pub fn close_code(&self) -> u16 {
        match self.payload.as_slice() {
            [a, b, ..] => u16::from_be_bytes([*a, *b]),
            _ => 1005,
        }
    }

    pub fn encode(&self) -> Vec<u8> {
        let mut out = Vec::with_capacity(HEADER_LEN + self.payload.len());
        out.push(self.kind as u8);
        out.extend_from_slice(&self.chan.to_be_bytes());
        out.extend_from_slice(&self.payload);
        out
    }

    /// `None` for a short message or an unknown kind (ignored by both sides).
    pub fn decode(bytes: &[u8]) -> Option<UpMsg> {
        if bytes.len() < HEADER_LEN {
            return None;
        }
        let kind = match bytes[0] {
            1 => Kind::Open,
            2 => Kind::Data,
            3 => Kind::Bulk,
            4 => Kind::Dgram,
            5 => Kind::Close,
            6 => Kind::Challenge,
            7 => Kind::Auth,
            _ => return None,
        };
        let chan = u32::from_be_bytes(bytes[1..5].try_into().expect("4 bytes"));
        Some(UpMsg { kind, chan, payload: bytes[HEADER_LEN..].to_vec() })
    }
}

/// How a model asks its driver to send on a [`Link`](../../ftw_sim/link/enum.Link.html).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum SendKind {
    /// `Link::send` (control stream / WebSocket message).
    Message,
    /// `Link::send_bulk` (the service's bulk stream; WebSocket: a message).
    Bulk,
    /// `Link::send_datagram`. A model only asks for this on a link it was told has datagrams.
    Datagram,
}

/// One thing for the driver to do on a link.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum LinkOp {
    Send {
        kind: SendKind,
        bytes: Vec<u8>,
    },
    /// `Link::close(code, reason)`; the model considers the link gone at once.
    Close {
        code: u16,
        reason: String,
    },
}

/// One box-session transport message as its sender handed it to the link, kept for the
/// simulator's judges of the wire while a sender's tap is on (off by default; a record
/// only, changing nothing sent): the session's handshake hash, whether the phone (the
/// initiator) sealed it, the key it was sealed with, the envelope type and whole envelope
/// length the sender meant (before any truncation), how it went, and the sealed bytes.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SealedFrame {
    pub session: [u8; 32],
    pub initiator: bool,
    pub key: [u8; 32],
    pub t: String,
    pub whole_len: usize,
    pub kind: SendKind,
    pub msg: Vec<u8>,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn round_trip_and_rejects() {
        let m = UpMsg { kind: Kind::Bulk, chan: 0x0102_0304, payload: vec![9, 8] };
        let b = m.encode();
        assert_eq!(b, vec![3, 1, 2, 3, 4, 9, 8]);
        assert_eq!(UpMsg::decode(&b), Some(m));
        assert_eq!(UpMsg::decode(&[2, 0, 0, 0]), None);
        // A header alone is a message with an empty payload.
        assert_eq!(UpMsg::decode(&[6, 0, 0, 0, 0]), Some(UpMsg { kind: Kind::Challenge, chan: 0, payload: vec![] }));
        assert_eq!(UpMsg::decode(&[9, 0, 0, 0, 0]), None);
        assert_eq!(UpMsg::close(7, 4403).close_code(), 4403);
        assert_eq!(UpMsg::decode(&UpMsg::close(7, 4429).encode()).unwrap().close_code(), 4429);
    }
}
