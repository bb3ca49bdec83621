//! What the journal records of the phone's carrier (`ftw_phone::CloudCarrier`, SPEC.md §4
//! "Carrier"): each message the carrier judged and its verdict, and the settings line it
//! gives the session.

// Re-exported so a reference can read the steps without depending on the model crate.
pub use ftw_phone::{Arrival, Opened, Transport, Verdict};

/// An input or a decision of this model.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum CarrierStep {
    /// The carrier of the host's session number `session` (over `transport`) judged a message
    /// that came as `arrival` and `opened` so (replay window, then AEAD), and decided `verdict`.
    Judged { session: u64, transport: Transport, arrival: Arrival, opened: Opened, verdict: Verdict },
    /// The session `session` is up over `transport`, and the FTW Cloud settings line reads
    /// `line` (`CloudCarrier::settings_line`, SPEC §4).
    Shown { session: u64, transport: Transport, line: String },
    /// The session ended: by the carrier's verdict (`by_carrier`), or otherwise (a close from
    /// the peer or the link, the app's own close).
    Ended { session: u64, by_carrier: bool },
}
