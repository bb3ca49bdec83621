//! What the journal records of the cloud (`ftw_cloud::Cloud`, see `super`): its
//! configuration, every input its driver gives it, what it read inside the tunnels (its
//! [`CloudNote`]s, drained right after each call) and every transmit it asked for.
//!
//! Bytes are kept whole where a reference compares them (message 1 and the box-session
//! messages a phone sends up); elsewhere a length and the clear 8-byte head (an outer
//! transport message's `seq`, an uplink message's `kind | chan`).

pub use ftw_box::uplink::SendKind;
pub use ftw_cloud::LinkId;
pub use ftw_cloud::{CloudNote, CloudStats};
pub use ftw_wire::noise::Key;

/// An input or a decision of the cloud.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum CloudStep {
    /// The cloud starts: its static key pair's private half (for the uplink proofs),
    /// registered boxes with their keys, pairings, whether sessions are on.
    Config { cloud_private: Key, boxes: Vec<(String, Key)>, pairs: Vec<(Key, String)>, sessions_enabled: bool },
    /// `handle_accept(now, link, target, datagrams)`.
    Accept { link: LinkId, target: String, datagrams: bool },
    /// `handle_message` / `handle_datagram` on `link`.
    In { link: LinkId, datagram: bool, bytes: Bytes },
    /// `handle_closed(now, link, code)`.
    Closed { link: LinkId, code: u16 },
    /// `handle_timeout(now)`.
    Timeout,
    /// What the cloud read during the call before (`Cloud::poll_note`).
    Note(CloudNote),
    /// After each call and its notes: how many links the cloud holds (`link_count()`)
    /// and its counters (`stats()`).
    Holds { links: usize, stats: CloudStats },
    /// One `Transmit`: a send on `link`.
    Send { link: LinkId, kind: SendKind, bytes: Bytes },
    /// One `Transmit`: close `link` with `code`.
    Close { link: LinkId, code: u16 },
}

/// Some bytes: their length, their first eight bytes, and the whole of them when short
/// (at most [`WHOLE_MAX`]: every message 2 and every box-session message a phone sends
/// fits; the references compare those byte for byte).
#[derive(Clone, PartialEq, Eq)]
pub struct Bytes {
    pub len: usize,
    pub head: Vec<u8>,
    pub whole: Option<Vec<u8>>,
}

/// Longest byte string kept whole in the journal.
pub const WHOLE_MAX: usize = 2048;

impl Bytes {
    pub fn of(b: &[u8]) -> Bytes {
        Bytes { len: b.len(), head: b[..b.len().min(8)].to_vec(), whole: (b.len() <= WHOLE_MAX).then(|| b.to_vec()) }
    }
}

impl std::fmt::Debug for Bytes {
    /// Short: the length and the clear head (a disagreement's line stays readable).
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{} bytes, head {:02x?}", self.len, self.head)
    }
}
