//! `replay_datagram` and `replay_stream_message`: the first phone-bound
//! datagram (or control-lane stream message) at or after the fault's time goes
//! twice, a replay put in front of the phone's carrier (QUIC itself drops a
//! duplicated packet, so only the relay can).

use ftw_box::uplink::SendKind;

use super::{Fate, PhoneSend, Piece};
use crate::world::plan::kind::{ReplayDatagram, ReplayStreamMessage};

/// PhoneSend twice the first send of `of` (once).
fn repeat_first(of: SendKind, done: bool, send: &PhoneSend, fate: &mut Fate) -> bool {
    if done || send.kind != of {
        return done;
    }
    fate.repeat = true;
    true
}

impl Piece for ReplayDatagram {
    fn on_phone_send(&self, done: bool, _at_ms: u64, send: &mut PhoneSend, fate: &mut Fate) -> bool {
        repeat_first(SendKind::Datagram, done, send, fate)
    }
}

impl Piece for ReplayStreamMessage {
    fn on_phone_send(&self, done: bool, _at_ms: u64, send: &mut PhoneSend, fate: &mut Fate) -> bool {
        repeat_first(SendKind::Message, done, send, fate)
    }
}
