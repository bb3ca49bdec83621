//! Every number of the box model, in one place, each with its source.

/// Phone sessions one box answers at once. srcfl/ftw go/internal/appuplink/session.go
/// `MaxSessions = 4` (the relay's per-handle stream limit). Brief.
pub const SESSIONS_MAX: usize = 4;

/// Lane-0 cadence while the phone's view is visible: 1 Hz. SPEC.md §6.
pub const LANE0_VISIBLE_PERIOD_MS: u64 = 1_000;
/// Lane-0 cadence while the phone says it is hidden (`hello.sub.hidden`): 0.2 Hz. SPEC.md §6.
pub const LANE0_HIDDEN_PERIOD_MS: u64 = 5_000;

/// First reconnect delay ceiling of the uplink. Chosen here (brief: "1 s doubling to 60 s").
pub const BACKOFF_BASE_MS: u64 = 1_000;
/// Largest reconnect delay ceiling. srcfl/ftw appuplink `backoffCap = 60 * time.Second`.
pub const BACKOFF_CAP_MS: u64 = 60_000;
/// Doublings after which the ceiling is certainly at the cap (2^6 s > 60 s).
pub const BACKOFF_DOUBLINGS_MAX: u32 = 6;
/// An uplink that stayed up this long resets the backoff. srcfl/ftw appuplink (a connection
/// that lasted `backoffCap` is not a connection that is failing).
pub const BACKOFF_RESET_UP_MS: u64 = 60_000;

/// Time from `cmd.ack` to `cmd.result` (the box applying the command). Chosen here.
pub const CMD_APPLY_MS: u64 = 200;

/// Wall clock of the box at sim time 0 (2023-11-14T22:13:20Z). Chosen here; a config field.
pub const WALL_BASE_MS_DEFAULT: u64 = 1_700_000_000_000;

/// Protocol version the box speaks (`hello_ok.proto`). registry.yaml `version: 1`.
pub const PROTO_VERSION: u32 = 1;

/// The box's uplink target prefix; the box id follows. Chosen here.
pub const UPLINK_TARGET_PREFIX: &str = "/box/";

/// Close codes (WebSocket numbers, the same on QUIC: SPEC.md §3).
pub mod close {
    /// Normal close.
    pub const NORMAL: u16 = 1000;
    /// Going away (the box's uplink ended under a relayed phone). RFC 6455 §7.4.1.
    pub const GOING_AWAY: u16 = 1001;
    /// Try again later: the door with sessions off. RFC 6455 / IANA registry 1013.
    pub const TRY_AGAIN_LATER: u16 = 1013;
    /// Bad message (undecodable first message, broken outer transport). Chosen here
    /// (srcfl/ftw appuplink `CloseBadJoin = 4400`).
    pub const BAD_REQUEST: u16 = 4400;
    /// Forbidden: the phone is not paired with the box. SPEC.md §3.
    pub const FORBIDDEN: u16 = 4403;
    /// Timed out: the box did not answer in time. SPEC.md §3.
    pub const TIMED_OUT: u16 = 4408;
    /// Busy: the box already has `SESSIONS_MAX` sessions. srcfl/ftw appuplink `CloseBusy`.
    pub const BUSY: u16 = 4429;
}

/// Field ids and names of the simulated site. vectors/registry.yaml `frozen_fields`.
pub mod fields {
    pub const GRID_W: (u32, &str, &str) = (2, "grid_w", "W");
    pub const PV_W: (u32, &str, &str) = (3, "pv_w", "W");
    pub const BATTERY_W: (u32, &str, &str) = (4, "battery_w", "W");
    /// State of charge in permille (registry: `battery_soc`, unit permille).
    pub const BATTERY_SOC: (u32, &str, &str) = (5, "battery_soc", "permille");
}

const _: () = assert!(LANE0_HIDDEN_PERIOD_MS == 5 * LANE0_VISIBLE_PERIOD_MS);
const _: () = assert!(BACKOFF_BASE_MS << BACKOFF_DOUBLINGS_MAX >= BACKOFF_CAP_MS);
