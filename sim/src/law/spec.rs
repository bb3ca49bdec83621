//! The figures the laws judge by, written from the SPEC (or the registry it
//! names), never imported from the model they judge (issue 32 section 2).

/// RFC 6455 section 7.4.1: 1000, a normal closure (the phone's own close, SPEC section 3).
pub const CLOSE_NORMAL: u16 = 1000;
/// RFC 6455 section 7.4.1: 1006, the connection closed abnormally (no close frame).
pub const CLOSE_ABNORMAL: u16 = 1006;
/// SPEC section 3: "The service's close code (4403 forbidden, ...)": an unpaired phone.
pub const CLOSE_FORBIDDEN: u16 = 4403;
/// The IANA WebSocket close code registry (RFC 6455 section 7.4.2): 1013 "Try
/// Again Later", what a door with its sessions off closes with.
pub const CLOSE_TRY_AGAIN_LATER: u16 = 1013;
/// SPEC section 6: "lane-0 cadence 1 Hz visible".
pub const LANE0_VISIBLE_PERIOD_MS: u64 = 1_000;
/// SPEC section 6: "pins per reactor 512".
pub const PINS_PER_REACTOR_MAX: u64 = 512;
/// SPEC section 6: "sweep 250 ms".
pub const PIN_SWEEP_MS: u64 = 250;
