//! The hostile relay: what the plan's timed relay faults do to the cloud's
//! sends, one piece a file as `world/net/fault/` is for the network. A piece
//! reads one phone-bound send (its kind and link) and marks its [`Fate`]: sent
//! twice (`replay.rs`), held behind later ones (`overtake.rs`), held in a
//! window to go newest first (`reverse.rs`), a bit flipped (`corrupt.rs`, the
//! one piece that also acts toward the box), or the link closed instead
//! (`close.rs`). The cloud's driver carries the fate out (`cloud.rs`,
//! `send_through`): the pieces only decide.

mod close;
mod corrupt;
mod overtake;
mod replay;
mod reverse;

use ftw_box::uplink::SendKind;
use ftw_cloud::LinkId;

use crate::world::plan::{FaultKind, TimedFault};

pub use corrupt::box_corruption_due;
pub use reverse::{close_windows, open_window_end};

/// What the relay faults do to one phone-bound (or, for `corrupt`, box-bound)
/// transmit.
#[derive(Clone, Copy, Debug, Default)]
pub struct Fate {
    /// Send it twice.
    pub repeat: bool,
    /// Hold it back until this many later messages have gone.
    pub hold: Option<u32>,
    /// Hold it in a `reverse_datagrams` window, to go newest first.
    pub reverse: bool,
    /// Flip its last byte's lowest bit.
    pub corrupt: bool,
}

/// One timed relay fault of the plan (an [`Actor::Relay`](crate::world::plan::kind::Actor)
/// kind), and whether it was carried out.
#[derive(Clone, Debug, PartialEq)]
pub struct RelayFault {
    pub at_ms: u64,
    pub kind: FaultKind,
    pub done: bool,
}

impl RelayFault {
    /// The relay faults of a plan's timed faults.
    pub fn of(faults: &[TimedFault]) -> Vec<RelayFault> {
        faults.iter().filter(|f| f.fault.is_relay()).map(|f| RelayFault { at_ms: f.at_ms, kind: f.fault.clone(), done: false }).collect()
    }
}

/// One phone-bound send as the pieces see it.
pub struct PhoneSend<'a> {
    pub now: u64,
    pub kind: SendKind,
    pub link: LinkId,
    /// The links a `cloud_close` closes now (with their codes).
    pub closes: &'a mut Vec<(LinkId, u16)>,
}

/// A relay piece: what one due fault (its time has come) does to a phone-bound send.
trait Piece {
    /// Mark `fate` for `send`; whether the fault is done after it (`done`: before).
    fn on_phone_send(&self, done: bool, at_ms: u64, send: &mut PhoneSend, fate: &mut Fate) -> bool;
}

/// The piece a relay fault is (none for a kind the relay does not carry out).
fn piece(kind: &FaultKind) -> Option<&dyn Piece> {
    match kind {
        FaultKind::ReplayDatagram(p) => Some(p),
        FaultKind::ReplayStreamMessage(p) => Some(p),
        FaultKind::OvertakeControl(p) => Some(p),
        FaultKind::ReverseDatagrams(p) => Some(p),
        FaultKind::CorruptMessage(p) => Some(p),
        FaultKind::CloudClose(p) => Some(p),
        _ => None,
    }
}

/// The plan's timed relay faults on a phone-bound send, in the plan's order:
/// each acts once, on the first phone-bound message of its kind at or after its
/// time (a `reverse_datagrams` window on every datagram in it).
pub fn phone_fate(relay: &mut [RelayFault], send: &mut PhoneSend, fate: &mut Fate) {
    let now = send.now;
    for f in relay.iter_mut().filter(|f| f.at_ms <= now) {
        if let Some(p) = piece(&f.kind) {
            f.done = p.on_phone_send(f.done, f.at_ms, send, fate);
        }
    }
}
