//! What the journal records of the box (`ftw_box::BoxNode`, see `super`): its configuration,
//! every input its driver gives it, what it read and decided in plaintext terms (its
//! [`BoxNote`]s, drained right after each call) and every output its driver carries out.

pub use ftw_box::uplink::SendKind;
pub use ftw_box::{BoxNote, BoxStats, Sent};
pub use ftw_wire::noise::Key;

/// An input or a decision of the box.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum BoxStep {
    /// The box starts: its id, its private key and the cloud's public key (for the
    /// uplink proof), the phones pinned at pairing, its wall clock at sim time 0.
    Config { box_id: String, box_private: Key, cloud_public: Key, paired: Vec<Key>, wall_base_ms: u64 },
    /// `handle_timeout(now)`.
    Timeout,
    /// `handle_uplink_up(now, datagrams)`.
    UplinkUp { datagrams: bool },
    /// `handle_uplink_failed(now)`.
    UplinkFailed,
    /// `handle_closed(now, code)`.
    Closed { code: u16 },
    /// `handle_message` / `handle_datagram`: the uplink message's clear header
    /// (`kind u8 | chan u32`; `None` when shorter), its length, and whether the
    /// plan's hostile relay corrupted it on the way (`corrupt_message` toward the box).
    Up { datagram: bool, header: Option<(u8, u32)>, len: usize, tampered: bool },
    /// After a failure or an uplink end: when the box will dial again (`BoxNode::uplink()`).
    Redial { next_dial_ms: u64 },
    /// What the box read or decided during the call before (`BoxNode::poll_note`).
    Note(BoxNote),
    /// After each call and its notes: how many sessions the box holds (`session_count()`)
    /// and its counters (`stats()`).
    Holds { sessions: usize, stats: BoxStats },
    /// `BoxOutput::Dial`.
    Dial { target: String },
    /// `BoxOutput::Link(Send)`: how, and the uplink message's clear header and length
    /// (`close` is a `Close` message's code).
    Send { kind: SendKind, header: Option<(u8, u32)>, len: usize, close: Option<u16> },
    /// `BoxOutput::Link(Close)`.
    CloseUplink { code: u16 },
}

/// The clear header of an uplink message (`kind u8 | chan u32 BE`).
pub fn header(bytes: &[u8]) -> Option<(u8, u32)> {
    let chan: [u8; 4] = bytes.get(1..5)?.try_into().ok()?;
    Some((bytes[0], u32::from_be_bytes(chan)))
}

/// The code of a `Close` uplink message (kind 5), if it is one.
pub fn close_code(bytes: &[u8]) -> Option<u16> {
    match bytes {
        [5, _, _, _, _, a, b, ..] => Some(u16::from_be_bytes([*a, *b])),
        [5, _, _, _, _, ..] => Some(1005),
        _ => None,
    }
}
