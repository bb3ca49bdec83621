//! The figures the laws judge by, written from the SPEC (or the registry it
//! names), never imported from the model they judge (issue 32 section 2).

/// Close codes, as the laws and the references read them.
pub mod close {
    /// RFC 6455 section 7.4.1: a normal closure (the phone's own close, SPEC section 3).
    pub const NORMAL: u16 = 1000;
    /// RFC 6455 section 7.4.1: going away.
    pub const GOING_AWAY: u16 = 1001;
    /// RFC 6455 section 7.4.1: no status code was present.
    pub const NO_STATUS: u16 = 1005;
    /// RFC 6455 section 7.4.1: the connection closed abnormally (no close frame).
    pub const ABNORMAL: u16 = 1006;
    /// The IANA WebSocket close code registry (RFC 6455 section 7.4.2): "Try Again
    /// Later", what a door with its sessions off closes with.
    pub const TRY_AGAIN_LATER: u16 = 1013;
    /// The box and cloud docs: a bad message 1.
    pub const BAD: u16 = 4400;
    /// SPEC section 3: "The service's close code (4403 forbidden, ...)": an unpaired phone.
    pub const FORBIDDEN: u16 = 4403;
    /// SPEC section 3: 4408, the service's time-out.
    pub const TIMED_OUT: u16 = 4408;
    /// The box docs: busy (its sessions are full).
    pub const BUSY: u16 = 4429;
}

/// The box's uplink to the cloud (the box's uplink.rs table, as the box docs give it).
pub mod uplink {
    /// Message kinds.
    pub const OPEN: u8 = 1;
    pub const DATA: u8 = 2;
    pub const BULK: u8 = 3;
    pub const DGRAM: u8 = 4;
    pub const CLOSE: u8 = 5;
    pub const CHALLENGE: u8 = 6;
    pub const AUTH: u8 = 7;
    /// A challenge's nonce, in bytes.
    pub const NONCE_LEN: usize = 16;
    /// What the box's proof hashes first.
    pub const AUTH_PREFIX: &[u8] = b"ftw.uplink.auth.v1:";
}

/// SPEC section 6: "lane-0 cadence 1 Hz visible".
pub const LANE0_VISIBLE_PERIOD_MS: u64 = 1_000;
/// SPEC section 6: "pins per reactor 512".
pub const PINS_PER_REACTOR_MAX: u64 = 512;
/// SPEC section 6: "sweep 250 ms".
pub const PIN_SWEEP_MS: u64 = 250;
