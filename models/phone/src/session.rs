//! How a session ends, and whether that end demotes QUIC (seed 000, B2/S5).
//!
//! A QUIC session's end demotes QUIC on its network when:
//! * the service did not speak: not a close with a code `>= 1000` other than 1005/1006
//!   (codes below 1000, 1005 and 1006 are stack-made, like a path drop), and
//! * the app did not close it itself ([`SessionEnd::LocalClose`]: background, network
//!   change, relaunch are the app's choices, not QUIC failing), and
//! * either it ended before its first message (any remaining end: path drop, timeout,
//!   broken message, stack-made close), or its path dropped (a [`SessionEnd::PathDropped`]
//!   or a stack-made close) within `DEMOTION_WINDOW_MS` of the first message (half-open:
//!   at exactly 60 000 ms it no longer counts).
//!
//! Chosen here: a broken message after the first message is not a path failure, so it does
//! not demote (the carrier's verdict is the same on both transports).
//! A WebSocket session's end never demotes anything.

use crate::consts::{CLOSE_ABNORMAL, CLOSE_NO_STATUS, DEMOTION_WINDOW_MS, SERVICE_CLOSE_CODE_MIN};
use crate::switches::Switches;
use std::fmt;

/// How a session ended, as the driver reports it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SessionEnd {
    /// A close with a code: the QUIC application error code or the WebSocket close code.
    Closed { code: u16 },
    /// The path went away: idle timeout, no route, NAT mapping lost, reset.
    PathDropped,
    /// The carrier ended the session (a broken message, or a replay on a stream).
    BrokenMessage,
    /// The app closed it (background, network change, relaunch, a new race).
    LocalClose,
}

impl SessionEnd {
    /// A close the service sent: code `>= 1000`, other than 1005 and 1006.
    pub fn service_spoke(self) -> bool {
        matches!(self, SessionEnd::Closed { code }
            if code >= SERVICE_CLOSE_CODE_MIN && code != CLOSE_NO_STATUS && code != CLOSE_ABNORMAL)
    }

    /// A path-like end: the path dropped, or a close no peer sent.
    pub fn path_like(self) -> bool {
        match self {
            SessionEnd::PathDropped => true,
            SessionEnd::Closed { .. } => !self.service_spoke(),
            SessionEnd::BrokenMessage | SessionEnd::LocalClose => false,
        }
    }
}

impl fmt::Display for SessionEnd {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            SessionEnd::Closed { code } => write!(f, "closed with code {code}"),
            SessionEnd::PathDropped => f.write_str("path dropped"),
            SessionEnd::BrokenMessage => f.write_str("broken message"),
            SessionEnd::LocalClose => f.write_str("closed by the app"),
        }
    }
}

/// Why a QUIC session's end does or does not demote QUIC.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum DemotionVerdict {
    /// Ended before its first message.
    DemoteNoFirstMessage,
    /// The path dropped `after_first_ms` after the first message, inside the window.
    DemotePathDropInWindow { after_first_ms: u64 },
    /// Switch `every_close_demotes`: a close the service sent demoted QUIC.
    DemoteEveryClose,
    /// The service spoke (close code >= 1000, not 1005/1006).
    KeepServiceSpoke,
    /// The app closed the session itself.
    KeepLocalClose,
    /// The end came after the window, or was not path-like after the first message.
    KeepAfterWindow,
    /// Switch `no_close_demotes`: nothing demotes.
    KeepNoCloseDemotes,
}

impl DemotionVerdict {
    pub fn demotes(self) -> bool {
        matches!(self, DemotionVerdict::DemoteNoFirstMessage | DemotionVerdict::DemotePathDropInWindow { .. } | DemotionVerdict::DemoteEveryClose)
    }
}

impl fmt::Display for DemotionVerdict {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            DemotionVerdict::DemoteNoFirstMessage => f.write_str("ended before its first message"),
            DemotionVerdict::DemotePathDropInWindow { after_first_ms } => {
                write!(f, "path dropped {after_first_ms} ms after the first message")
            }
            DemotionVerdict::DemoteEveryClose => f.write_str("every close demotes (bug switch)"),
            DemotionVerdict::KeepServiceSpoke => f.write_str("the service spoke"),
            DemotionVerdict::KeepLocalClose => f.write_str("the app closed it"),
            DemotionVerdict::KeepAfterWindow => f.write_str("after the first minute"),
            DemotionVerdict::KeepNoCloseDemotes => f.write_str("no close demotes (bug switch)"),
        }
    }
}

/// Judge the end of a QUIC session. `first_message_ms` is when its first message came.
pub fn judge_quic_end(end: SessionEnd, first_message_ms: Option<u64>, now_ms: u64, sw: &Switches) -> DemotionVerdict {
    if sw.no_close_demotes {
        return DemotionVerdict::KeepNoCloseDemotes;
    }
    if end == SessionEnd::LocalClose {
        return DemotionVerdict::KeepLocalClose;
    }
    if end.service_spoke() {
        return if sw.every_close_demotes { DemotionVerdict::DemoteEveryClose } else { DemotionVerdict::KeepServiceSpoke };
    }
    let Some(first_ms) = first_message_ms else {
        return DemotionVerdict::DemoteNoFirstMessage;
    };
    let after_first_ms = now_ms.saturating_sub(first_ms);
    if end.path_like() && after_first_ms < DEMOTION_WINDOW_MS {
        DemotionVerdict::DemotePathDropInWindow { after_first_ms }
    } else {
        DemotionVerdict::KeepAfterWindow
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    const S: u64 = 1000;

    fn fixed(end: SessionEnd, first: Option<u64>, now: u64) -> bool {
        judge_quic_end(end, first, now, &Switches::default()).demotes()
    }

    #[test]
    fn close_4403_does_not_demote_1006_does() {
        assert!(!fixed(SessionEnd::Closed { code: 4403 }, None, 5 * S));
        assert!(!fixed(SessionEnd::Closed { code: 4408 }, None, 5 * S));
        assert!(!fixed(SessionEnd::Closed { code: 1000 }, None, 5 * S));
        assert!(fixed(SessionEnd::Closed { code: 1006 }, None, 5 * S));
        assert!(fixed(SessionEnd::Closed { code: 1005 }, None, 5 * S));
        assert!(fixed(SessionEnd::Closed { code: 0 }, None, 5 * S));
    }

    #[test]
    fn path_drop_at_59_s_demotes_at_61_s_does_not() {
        let first = 10 * S;
        assert!(fixed(SessionEnd::PathDropped, Some(first), first + 59 * S));
        assert!(!fixed(SessionEnd::PathDropped, Some(first), first + 61 * S));
        assert!(!fixed(SessionEnd::PathDropped, Some(first), first + 60 * S));
        assert!(fixed(SessionEnd::Closed { code: 1006 }, Some(first), first + 59 * S));
        assert!(!fixed(SessionEnd::Closed { code: 4408 }, Some(first), first + 59 * S));
    }

    #[test]
    fn ending_before_the_first_message_demotes() {
        assert!(fixed(SessionEnd::PathDropped, None, 100 * S));
        assert!(fixed(SessionEnd::BrokenMessage, None, 1));
        assert!(!fixed(SessionEnd::BrokenMessage, Some(0), 1));
        assert!(!fixed(SessionEnd::LocalClose, None, 1));
    }

    #[test]
    fn switch_every_close_demotes_flips_4403() {
        let sw = Switches { every_close_demotes: true, ..Switches::default() };
        let v = judge_quic_end(SessionEnd::Closed { code: 4403 }, None, S, &sw);
        assert_eq!(v, DemotionVerdict::DemoteEveryClose);
        assert!(!fixed(SessionEnd::Closed { code: 4403 }, None, S));
    }

    #[test]
    fn switch_no_close_demotes_flips_1006() {
        let sw = Switches { no_close_demotes: true, ..Switches::default() };
        assert!(!judge_quic_end(SessionEnd::Closed { code: 1006 }, None, S, &sw).demotes());
        assert!(!judge_quic_end(SessionEnd::PathDropped, Some(0), S, &sw).demotes());
        assert!(fixed(SessionEnd::Closed { code: 1006 }, None, S));
    }
}
