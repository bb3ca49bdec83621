//! Every number the phone model uses, with where it comes from.
//!
//! Times are in milliseconds of the caller's clock (`now_ms`, monotonic; in the sim,
//! milliseconds since sim start, which also stands in for the wall clock the app persists).

/// The race's lead: the second transport is dialled this long after the first.
/// Source: seed 000 ("the WebSocket starts after 250 ms"); SPEC.md section 6 "race lead 250 ms".
pub const LEAD_MS: u64 = 250;

/// How long a network's remembered winner is kept, and how long only the last day's
/// networks are kept at all. Source: seed 000 ("for a day"); SPEC.md section 6 "memory 24 h".
pub const MEMORY_TTL_MS: u64 = 24 * 60 * 60 * 1000;

/// How long a demotion of QUIC on a network lasts.
/// Source: seed 000 B2/S5 ("demotes QUIC on that network for a day"); SPEC.md section 6.
pub const DEMOTION_MS: u64 = 24 * 60 * 60 * 1000;

/// A path drop within this long after the first message demotes QUIC (half-open window:
/// a drop at exactly 60 000 ms does not). Source: seed 000 ("within a minute of it");
/// SPEC.md section 6 "demotion window 60 s after the first message".
pub const DEMOTION_WINDOW_MS: u64 = 60 * 1000;

/// A dial that has not opened after this long is given up (a QUIC dial with no UDP answer
/// ends here, so a learning dial is bounded). Chosen here: the seed does not give the
/// number; 10 s is well above a cold QUIC handshake over a 40 ms round trip.
pub const DIAL_TIMEOUT_MS: u64 = 10 * 1000;

/// Close codes from this value up were sent by the service (it spoke), except 1005 and
/// 1006 which a stack invents when no close frame arrived. Source: seed 000 ("Closes from
/// 1000 up other than 1005 and 1006 do not count"); RFC 6455 section 7.4.1.
pub const SERVICE_CLOSE_CODE_MIN: u16 = 1000;
/// RFC 6455 7.4.1: "no status code was actually present" (never sent on the wire).
pub const CLOSE_NO_STATUS: u16 = 1005;
/// RFC 6455 7.4.1: "closed abnormally, without sending or receiving a Close control frame".
pub const CLOSE_ABNORMAL: u16 = 1006;

/// At most this many networks in the memory; past it the oldest entry goes. Chosen here
/// (a limit on everything, STYLE.md); the day's expiry keeps real memories far below it.
pub const NETWORKS_MAX: usize = 256;

/// Lane-0 cadence while the app is visible: 1 Hz. Source: SPEC.md section 6.
pub const LANE0_VISIBLE_INTERVAL_MS: u64 = 1000;
/// Lane-0 cadence while the app is hidden: 0.2 Hz. Source: SPEC.md section 6.
pub const LANE0_HIDDEN_INTERVAL_MS: u64 = 5000;

/// A NAT mapping idle this long is gone. Source: seed 000 ("keeps a 30 s NAT mapping
/// open"); SPEC.md section 6.
pub const NAT_IDLE_TIMEOUT_MS: u64 = 30 * 1000;

/// The trace queue of a race holds at most this many decisions; older ones are dropped
/// (and counted) if the driver never polls. Chosen here (a limit on everything).
pub const DECISIONS_MAX: usize = 4096;

const _: () = assert!(LANE0_HIDDEN_INTERVAL_MS > LANE0_VISIBLE_INTERVAL_MS);
const _: () = assert!(DEMOTION_WINDOW_MS < DEMOTION_MS);
const _: () = assert!(LEAD_MS < DIAL_TIMEOUT_MS);
