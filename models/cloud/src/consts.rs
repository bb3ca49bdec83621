//! Every number of the cloud model and the phone helper, in one place, each with its source.

/// How long a phone waits at the cloud for its box: from the outer handshake to the box's
/// first answer (message 2 or a close). Past it: close 4408. Chosen here (brief: "e.g. 10 s").
pub const BOX_WAIT_MS: u64 = 10_000;

/// The phone's target (the URL's path). Chosen here; the box id travels in `now.tun`.
pub const PHONE_TARGET: &str = "/app/v1";

/// Close codes are the box crate's (one list, WebSocket numbers): see `ftw_box::consts::close`.
pub use ftw_box::consts::close;
pub use ftw_box::consts::UPLINK_TARGET_PREFIX;
