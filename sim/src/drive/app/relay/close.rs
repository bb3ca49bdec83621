//! `cloud_close`: the cloud ends the phone's session with one of its service's
//! closes at the first phone-bound send at or after the fault's time; that
//! message never goes. One link a fault: a second close due at once waits for
//! the next link (two at one time closed one link twice:
//! corpus/session-two-closes-at-once.toml).

use super::{Fate, PhoneSend, Piece};
use crate::world::plan::kind::CloudClose;

impl Piece for CloudClose {
    fn on_phone_send(&self, done: bool, _at_ms: u64, send: &mut PhoneSend, _fate: &mut Fate) -> bool {
        if done || send.closes.iter().any(|c| c.0 == send.link) {
            return done;
        }
        send.closes.push((send.link, self.code));
        true
    }
}
