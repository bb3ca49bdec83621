//! The known bugs of SPEC.md section 7 that fall in the phone, each a switch, all off by
//! default. Each switch has a unit test that shows its law failing with it on.

use serde::{Deserialize, Serialize};

/// Bug switches of the phone model. `Default` is all off (the fixed behaviour).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default)]
pub struct Switches {
    /// SPEC.md 7, row "WebSocket-first race cancels the QUIC learning probe and refreshes
    /// the WebSocket entry" (review of the QUIC pull request): when the WebSocket goes
    /// first and opens within the lead, QUIC is never dialled.
    pub ws_first_cancels_quic_probe: bool,
    /// SPEC.md 7, row "every close counts toward demotion" (B2, S5): the service's own
    /// closes (4403, 4408, 1000...) demote QUIC too.
    pub every_close_demotes: bool,
    /// SPEC.md 7, row "no close counts" (B2, S5): nothing demotes QUIC, so a door that
    /// finishes the handshake and closes holds the phone on QUIC.
    pub no_close_demotes: bool,
    /// SPEC.md 7, row "a losing QUIC dial is cancelled instead of learning" (race note):
    /// when the WebSocket wins, a QUIC dial under way is closed at once.
    pub losing_quic_dial_cancelled: bool,
    /// SPEC.md 7, row "a replay on a datagram ends the session" (S1).
    pub datagram_replay_ends_session: bool,
    /// SPEC.md 7, row "a replay on a stream is only dropped" (S1).
    pub stream_replay_only_dropped: bool,
    /// SPEC.md 7, row "a late live's newer table is thrown away" (S2): a `live` older
    /// than the newest shown is dropped whole, its newer table with it.
    pub late_live_table_dropped: bool,
    /// Not a SPEC.md 7 row: ours, so the race law "QUIC refused means the
    /// WebSocket starts at once" (SPEC section 4) can be shown to fail. A refused
    /// QUIC dial leaves the WebSocket waiting for the 250 ms lead.
    pub refused_waits_for_lead: bool,
}
