//! `kind = "cloud_close"`: the cloud ends the phone's session with a close code.

use serde::{Deserialize, Serialize};

use super::{Actor, Draw, Kind, TimedKind};
use crate::world::host::Host;

/// Every close the cloud's service can send a phone, drawn in turn (issue 14
/// section 3): normal (1000), going away (1001), a close frame with no code
/// (1005, "no status"), internal error (1011), try again later (1013, as with
/// the sessions off), forbidden (4403), timed out (4408), busy (4429). An
/// abnormal end (1006, no close at all) is a path end: the `path_drop` and
/// `blackhole` kinds make it.
pub const CLOSE_CODES: [u16; 8] = [1000, 1001, 1005, 1011, 1013, 4403, 4408, 4429];

/// The cloud ends the phone's session: at the first phone-bound message it
/// relays at or after the time it closes that link with `code` instead, as
/// its service would (the model hears the link closed). Over QUIC the code is
/// the application error code, over the WebSocket the close frame's.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct CloudClose {
    pub host: Host,
    pub code: u16,
}

impl CloudClose {
    /// This kind from a drawn case's values: the code in turn by `extra`.
    pub fn drawn(d: &Draw) -> Self {
        CloudClose { host: Host::Phone, code: CLOSE_CODES[d.extra as usize % CLOSE_CODES.len()] }
    }
}

impl TimedKind for CloudClose {
    fn swarm(&self) -> Kind {
        Kind::CloudClose
    }

    fn host(&self) -> Host {
        self.host
    }

    fn actor(&self) -> Actor {
        Actor::Relay
    }

    fn only_host(&self) -> Option<Host> {
        Some(Host::Phone)
    }

    fn validate(&self) -> Result<(), String> {
        if !CLOSE_CODES.contains(&self.code) {
            return Err(format!("field `code`: {} is not a close the cloud sends; one of {CLOSE_CODES:?}", self.code));
        }
        Ok(())
    }
}
