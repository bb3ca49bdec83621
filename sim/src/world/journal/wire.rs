//! What the journal records of the bytes on the wire (issue 32 section 2): each
//! box-session transport message as it was handed to the transport, with the
//! key that sealed it (the world holds every key) and what its sender meant to
//! send; each message written to a QUIC stream with its length prefix; and each
//! box-session message the phone opened from a QUIC datagram. The lockstep
//! reference is `ftw_properties::reference::wire`, written from SPEC §2 and §3:
//! it opens each message itself and reads the frame byte by byte.
//!
//! The entry's host is the sender's (the receiver's for [`WireStep::Arrived`]).

/// How a sealed message was handed to its link (`ftw_box::uplink::SendKind`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Carrier {
    /// A stream message (the control stream, or a WebSocket message).
    Message,
    /// The service's bulk stream.
    Bulk,
    /// A QUIC datagram (a WebSocket message where there are none).
    Datagram,
}

/// Which QUIC stream a length-prefixed message went on.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Stream {
    /// The control stream's first message: the target (path and query).
    Target,
    /// The control stream, either direction.
    Control,
    /// The unidirectional stream the service opens for bulk.
    Bulk,
}

/// One observation of the wire.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum WireStep {
    /// A box-session transport message (`seq u64 BE || AEAD(frame)`) handed to
    /// the link. `session` is the handshake hash (the same at both ends),
    /// `initiator` whether the phone sealed it, `key` the ChaChaPoly key it was
    /// sealed with; `t` the envelope type the sender meant and `whole_len` the
    /// length of the whole envelope it meant to send (before any truncation).
    Sealed { session: [u8; 32], initiator: bool, key: [u8; 32], t: String, whole_len: usize, carrier: Carrier, msg: Vec<u8> },
    /// A message written to a QUIC stream: the first bytes written (up to 9:
    /// the varint and what follows it), how many bytes were written in all, and
    /// the length of the message the writer meant to frame.
    Framed { stream: Stream, head: Vec<u8>, written: usize, msg_len: usize },
    /// The phone opened the box session's message `seq` of `session` from a
    /// QUIC datagram.
    Arrived { session: [u8; 32], seq: u64 },
}
