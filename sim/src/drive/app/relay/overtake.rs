//! `overtake_control`: the first phone-bound stream message at or after the
//! fault's time is held back until `burst` later messages have gone (a burst
//! overtaking a control message), or at most `HOLD_MAX_MS`.

use ftw_box::uplink::SendKind;

use super::{Fate, PhoneSend, Piece};
use crate::world::plan::kind::OvertakeControl;

impl Piece for OvertakeControl {
    fn on_phone_send(&self, done: bool, _at_ms: u64, send: &mut PhoneSend, fate: &mut Fate) -> bool {
        if done || send.kind != SendKind::Message || fate.hold.is_some() {
            return done;
        }
        fate.hold = Some(self.burst.max(1));
        true
    }
}
