//! Bug switches of the wire layer (SPEC.md §7). All off by default.

/// Known bugs of the wire layer that the simulator can turn back on.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash)]
pub struct BugSwitches {
    /// The earlier design's replay window of 64 sequence numbers instead of 1024
    /// (SPEC.md §4 "Carrier", §7 row "replay window 64 instead of 1024", seed S1).
    /// A bulk burst of more than 64 messages overtaking a control message then makes the
    /// control message look "too old" and it is falsely rejected.
    pub replay_window_64: bool,
    /// Planted, not from the seeds: the receive window marks a seq whose message did not
    /// authenticate, so a forgery burns a sequence number (and can move the window past the
    /// genuine messages). The window must move only for authenticated messages.
    pub forged_marks_window: bool,
}
