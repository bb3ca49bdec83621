//! What the journal records of the receive replay windows (SPEC.md §2 transport message,
//! §4 "Carrier"): every sequence number a window judged and what it said.
//!
//! The phone has two windows per session: the outer tunnel's (cloud to phone) and the box
//! session's (box to phone). The phone's driver (`drive/app/phone.rs`) drains them from
//! `PhoneSession::take_judged` after each message it hands the session.

/// Which window: the layer, and with it the direction (both are receive windows of the host
/// that journals them).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum Layer {
    /// The outer tunnel, cloud to phone.
    Tunnel,
    /// The end-to-end box session, box to phone.
    BoxSession,
}

/// What a window said of a sequence number.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Said {
    /// It may be accepted (then it is marked if the message authenticates).
    Fresh,
    /// Already accepted.
    Duplicate,
    /// Older than the window.
    TooOld,
}

impl Said {
    /// What a window's check said (`ftw_wire::ReplayWindow::check`).
    pub fn of(window: &Result<(), ftw_wire::Replay>) -> Said {
        match window {
            Ok(()) => Said::Fresh,
            Err(ftw_wire::Replay::Duplicate { .. }) => Said::Duplicate,
            Err(ftw_wire::Replay::TooOld { .. }) => Said::TooOld,
        }
    }
}

/// An input or a decision of this model.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ReplayStep {
    /// The window of `layer` in the host's session number `session` judged `seq` (the clear
    /// seq of a transport message): it `said` so, and `marked` the seq as accepted (only when
    /// fresh and the message authenticated).
    Judged { session: u64, layer: Layer, seq: u64, said: Said, marked: bool },
}
