//! ftw-sim patch (confirmed): PATCH.md section 16. Observation only.
//!
//! RFC 9001 section 4.1.2: a server's handshake is confirmed when it completes,
//! a client's when HANDSHAKE_DONE arrives. quinn-proto discards the Handshake
//! keys at exactly those moments (`discard_space` on completion for a server,
//! on HANDSHAKE_DONE for a client) and says nothing to the application; the
//! simulator's laws need the moment, since RFC 9000 section 9 relies on an
//! endpoint's address staying put "for the duration of the handshake".

use super::{Connection, SpaceId};

impl Connection {
    /// ftw-sim patch (confirmed): whether the handshake is confirmed (RFC 9001
    /// section 4.1.2): past the handshake, its keys discarded.
    pub fn ftw_handshake_confirmed(&self) -> bool {
        !self.is_handshaking() && self.spaces[SpaceId::Handshake].crypto.is_none()
    }
}
