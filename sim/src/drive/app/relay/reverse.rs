//! `reverse_datagrams`: every phone-bound datagram in the window from the
//! fault's time for `for_ms` is held, and all go newest first when the window
//! ends (the live carrying a new table comes late: Freshness case 17).

use ftw_box::uplink::SendKind;

use super::{Fate, PhoneSend, Piece, RelayFault};
use crate::world::plan::kind::ReverseDatagrams;
use crate::world::plan::FaultKind;

impl Piece for ReverseDatagrams {
    fn on_phone_send(&self, done: bool, at_ms: u64, send: &mut PhoneSend, fate: &mut Fate) -> bool {
        if send.kind == SendKind::Datagram && send.now < at_ms + self.for_ms {
            fate.reverse = true;
        }
        done
    }
}

/// When each window ends (ms), with its fault.
fn windows(relay: &mut [RelayFault]) -> impl Iterator<Item = (u64, &mut RelayFault)> {
    relay.iter_mut().filter_map(|f| match &f.kind {
        FaultKind::ReverseDatagrams(k) => Some((f.at_ms + k.for_ms, f)),
        _ => None,
    })
}

/// The earliest end of a window not yet closed.
pub fn open_window_end(relay: &[RelayFault]) -> Option<u64> {
    let ends = relay.iter().filter_map(|f| match &f.kind {
        FaultKind::ReverseDatagrams(k) if !f.done => Some(f.at_ms + k.for_ms),
        _ => None,
    });
    ends.min()
}

/// Close the windows that ended by `now`; whether one is still open (begun, not ended).
pub fn close_windows(relay: &mut [RelayFault], now: u64) -> bool {
    let mut open = false;
    for (end, f) in windows(relay) {
        if end <= now {
            f.done = true;
        } else if f.at_ms <= now {
            open = true;
        }
    }
    open
}
