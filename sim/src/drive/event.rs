//! The vocabulary every link speaks, whatever carries it: which transport,
//! how it closed, what arrives, why a dial failed.

use bytes::Bytes;

/// Which transport carries a link.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum TransportKind {
    Quic,
    WebSocket,
}

impl TransportKind {
    pub fn name(self) -> &'static str {
        match self {
            TransportKind::Quic => "QUIC",
            TransportKind::WebSocket => "WebSocket",
        }
    }
}

/// Close codes, as a browser or URLSession sees them: the protocol's codes
/// (the box model's catalogue, SPEC section 3) and the two a client makes up
/// itself (the phone model's).
pub mod close {
    pub use ftw_box::consts::close::{NORMAL, TIMED_OUT};
    pub use ftw_phone::consts::{CLOSE_ABNORMAL as ABNORMAL, CLOSE_NO_STATUS as NO_STATUS};
}

/// How a link ended.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CloseInfo {
    pub code: u16,
    pub reason: String,
    /// The peer (or the network) ended it, not this side.
    pub by_peer: bool,
}

/// What arrives on a link.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum LinkEvent {
    /// A message on a stream (control or bulk) or a WebSocket binary message.
    Message(Bytes),
    /// A message that came as a QUIC datagram.
    Datagram(Bytes),
    Closed(CloseInfo),
}

/// Why a dial failed.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum DialError {
    /// Refused at once (QUIC: ICMP port unreachable; TCP: RST).
    Refused,
    /// Closed before it opened, with this code.
    Closed(CloseInfo),
    Other(String),
}
