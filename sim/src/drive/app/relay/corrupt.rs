//! `corrupt_message`: the relay flips the last byte's lowest bit of one message
//! (inside the AEAD tag): toward the phone, the first phone-bound datagram or
//! stream message (as the fault says) at or after its time; toward the box, the
//! first phone `Data` it relays to the box at or after its time that is not its
//! channel's first. The cloud's driver flips the bit (`cloud.rs`, `corrupt`).

use std::collections::BTreeSet;

use ftw_box::uplink::{Kind as UpKind, LinkOp, SendKind, UpMsg};

use super::{Fate, PhoneSend, Piece, RelayFault};
use crate::world::host::Host;
use crate::world::plan::kind::CorruptMessage;
use crate::world::plan::FaultKind;

impl Piece for CorruptMessage {
    fn on_phone_send(&self, done: bool, _at_ms: u64, send: &mut PhoneSend, fate: &mut Fate) -> bool {
        if done || self.host != Host::Phone || self.datagram != (send.kind == SendKind::Datagram) {
            return done;
        }
        fate.corrupt = true;
        true
    }
}

/// Whether the plan's `corrupt_message` toward the box acts on `op`, an uplink's
/// send (marked done when it does). A channel's first `Data` is the phone's
/// `hello`: the phone sends it once and the SPEC gives it no answer deadline, so
/// a corrupted one leaves the session silent by design
/// (docs/findings/hello-has-no-deadline.md); the kind leaves it alone.
pub fn box_corruption_due(relay: &mut [RelayFault], now: u64, op: &LinkOp, data_chans: &mut BTreeSet<u32>) -> bool {
    let LinkOp::Send { kind: SendKind::Message, bytes } = op else { return false };
    let Some(m) = UpMsg::decode(bytes).filter(|m| m.kind == UpKind::Data) else { return false };
    if data_chans.insert(m.chan) {
        return false;
    }
    let to_box = |f: &RelayFault| matches!(f.kind, FaultKind::CorruptMessage(CorruptMessage { host: Host::Box, .. }));
    let due = relay.iter_mut().find(|f| !f.done && f.at_ms <= now && to_box(f));
    due.map(|f| f.done = true).is_some()
}
