//! The reorder piece's countdown, in docs/fault-plans.md's words: a held
//! datagram waits until `reorder_k` later ones have passed, then goes just
//! behind the k-th; if fewer pass, it goes once it has waited
//! `reorder_hold_max_ms` (so a flow's last datagram is reordered, never lost).
//!
//! The reference sees what came out, not what the piece held, so it counts the
//! datagrams that passed after a hold two ways: those that surely passed (a
//! copy out at once that no earlier hold of the same bytes could be) and those
//! that may have (every copy out). A hold let go on its own, at `hold_max`, must
//! have seen fewer than k surely pass; one let go behind a later datagram must
//! have seen at least k that may have passed.

use std::net::SocketAddr;
use std::time::Duration;

use super::super::{differs, R};

/// The sim's step: a hold let go on its own goes at the first step at or past its
/// `hold_max` (the world visits every time a piece asked for; a tick is 1 ms).
const TICK: Duration = Duration::from_millis(1);

/// One copy that may be held: the datagram it belongs to (`None`: a forged
/// copy), the source it was sent from, when, and the passes counted at its hold.
#[derive(Clone, Copy, Debug)]
pub(super) struct Hold {
    pub of: Option<usize>,
    pub src: SocketAddr,
    pub since: Duration,
    /// Passes surely counted once its own step was done.
    pub sure_after: u64,
    /// Passes that may have been counted before its own step.
    pub maybe_before: u64,
}

/// The passes one direction of a leg has seen, in both counts.
#[derive(Clone, Copy, Debug, Default)]
pub(super) struct Passes {
    pub sure: u64,
    pub maybe: u64,
}

impl Passes {
    /// A step in which `sure` copies surely passed and `maybe` may have.
    pub fn step(&mut self, sure: usize, maybe: usize) {
        self.sure += sure as u64;
        self.maybe += maybe as u64;
    }
}

/// `h` let go on its own (no datagram passed with it) at `at`.
pub(super) fn on_its_own(h: &Hold, at: Duration, passes: Passes, (k, hold_max): (u32, Duration)) -> R {
    let passed = passes.sure.saturating_sub(h.sure_after);
    if passed >= u64::from(k) {
        return differs(
            format!("a copy held at {} ms let go on its own at {} ms, after {passed} later datagrams passed", h.since.as_millis(), at.as_millis()),
            format!("let go just behind the {k}th later datagram (reorder_k = {k}; docs/fault-plans.md)"),
        );
    }
    let due = h.since + hold_max;
    if at < due || at > due + TICK {
        return differs(
            format!("a copy held at {} ms let go on its own at {} ms", h.since.as_millis(), at.as_millis()),
            format!("once it has waited reorder_hold_max_ms = {} ms (at {} ms)", hold_max.as_millis(), due.as_millis()),
        );
    }
    Ok(())
}

/// `h` let go behind a datagram that passed in a step of `out_len` copies.
pub(super) fn behind_one(h: &Hold, at: Duration, passes: Passes, out_len: usize, k: u32) -> R {
    let passed = (passes.maybe + out_len as u64).saturating_sub(h.maybe_before);
    if passed < u64::from(k) {
        return differs(
            format!("a copy held at {} ms let go at {} ms behind at most {passed} later datagrams", h.since.as_millis(), at.as_millis()),
            format!("held until {k} later datagrams passed (reorder_k = {k}) or reorder_hold_max_ms ran out"),
        );
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn hold(sure_after: u64, maybe_before: u64) -> Hold {
        Hold { of: Some(0), src: "192.0.2.1:49152".parse().unwrap(), since: Duration::from_millis(100), sure_after, maybe_before }
    }

    const MAX: Duration = Duration::from_millis(200);

    #[test]
    fn on_its_own_only_before_k_passed_and_at_hold_max() {
        let h = hold(5, 4);
        let at = Duration::from_millis(300);
        assert!(on_its_own(&h, at, Passes { sure: 7, maybe: 9 }, (3, MAX)).is_ok());
        // Three passed for sure: the third should have taken it along.
        let e = on_its_own(&h, at, Passes { sure: 8, maybe: 9 }, (3, MAX)).unwrap_err();
        assert!(e.0.contains("after 3 later datagrams"), "{e:?}");
        assert!(on_its_own(&h, Duration::from_millis(299), Passes { sure: 5, maybe: 5 }, (3, MAX)).is_err());
        assert!(on_its_own(&h, Duration::from_millis(302), Passes { sure: 5, maybe: 5 }, (3, MAX)).is_err());
    }

    #[test]
    fn behind_one_only_once_k_may_have_passed() {
        let h = hold(5, 4);
        let at = Duration::from_millis(150);
        // 4 before its step, 2 maybe since, this step's 2 copies: 4 may have passed.
        assert!(behind_one(&h, at, Passes { sure: 6, maybe: 6 }, 2, 4).is_ok());
        assert!(behind_one(&h, at, Passes { sure: 6, maybe: 6 }, 2, 5).is_err());
    }
}
