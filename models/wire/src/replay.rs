//! The receive-side replay window.
//!
//! 1024 sequence numbers as 16 words of 64 bits (SPEC.md §4 "Carrier"): a bulk burst can
//! overtake a control message, and the control message must still be accepted when it
//! arrives. The earlier design's window of 64 is kept as [`WindowLen::Legacy64`], switched on
//! by [`crate::BugSwitches::replay_window_64`].
//!
//! Use: [`ReplayWindow::check`] before decryption, [`ReplayWindow::mark`] only after the
//! message authenticated. A forged message therefore never moves the window (otherwise anyone
//! able to inject bytes could burn sequence numbers and lock out the real peer).
//!
//! Bit `seq % window_len` of the bitmap says whether `seq` was accepted, for the `window_len`
//! sequence numbers ending at the highest accepted one.

use crate::consts::{REPLAY_WINDOW_LEGACY_LEN, REPLAY_WINDOW_LEN, REPLAY_WORDS_LEN, REPLAY_WORD_BITS};
use crate::BugSwitches;

/// How many sequence numbers the window spans.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub enum WindowLen {
    /// 1024 (16 words of 64 bits). SPEC.md §6.
    #[default]
    Full1024,
    /// 64 (one word): the earlier design's bug. SPEC.md §7.
    Legacy64,
}

impl WindowLen {
    /// Number of sequence numbers covered.
    pub fn window_len(self) -> usize {
        match self {
            WindowLen::Full1024 => REPLAY_WINDOW_LEN,
            WindowLen::Legacy64 => REPLAY_WINDOW_LEGACY_LEN,
        }
    }

    /// The window the switches ask for.
    pub fn from_switches(switches: &BugSwitches) -> WindowLen {
        if switches.replay_window_64 {
            WindowLen::Legacy64
        } else {
            WindowLen::Full1024
        }
    }
}

/// Why a sequence number is refused.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Replay {
    /// Already accepted once.
    Duplicate { seq: u64 },
    /// Older than the window: can no longer be told apart from a replay.
    TooOld { seq: u64, highest: u64 },
}

/// The sliding window of accepted sequence numbers.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ReplayWindow {
    len: WindowLen,
    /// Highest accepted sequence number; `None` before the first.
    highest: Option<u64>,
    bits: [u64; REPLAY_WORDS_LEN],
}

impl Default for ReplayWindow {
    fn default() -> Self {
        ReplayWindow::new(WindowLen::Full1024)
    }
}

impl ReplayWindow {
    /// An empty window of the given length.
    pub fn new(len: WindowLen) -> ReplayWindow {
        ReplayWindow { len, highest: None, bits: [0; REPLAY_WORDS_LEN] }
    }

    /// An empty window as the switches ask for.
    pub fn from_switches(switches: &BugSwitches) -> ReplayWindow {
        ReplayWindow::new(WindowLen::from_switches(switches))
    }

    /// The window length in sequence numbers.
    pub fn window_len(&self) -> usize {
        self.len.window_len()
    }

    /// Highest accepted sequence number.
    pub fn highest(&self) -> Option<u64> {
        self.highest
    }

    fn slot(&self, seq: u64) -> (usize, u64) {
        let bit = (seq % self.window_len() as u64) as usize;
        (bit / REPLAY_WORD_BITS, 1u64 << (bit % REPLAY_WORD_BITS))
    }

    fn is_set(&self, seq: u64) -> bool {
        let (word, mask) = self.slot(seq);
        self.bits[word] & mask != 0
    }

    fn set(&mut self, seq: u64, on: bool) {
        let (word, mask) = self.slot(seq);
        if on {
            self.bits[word] |= mask;
        } else {
            self.bits[word] &= !mask;
        }
    }

    /// May `seq` be accepted? Does not change the window.
    pub fn check(&self, seq: u64) -> Result<(), Replay> {
        let Some(highest) = self.highest else { return Ok(()) };
        if seq > highest {
            return Ok(());
        }
        let behind = highest - seq;
        if behind >= self.window_len() as u64 {
            return Err(Replay::TooOld { seq, highest });
        }
        if self.is_set(seq) {
            return Err(Replay::Duplicate { seq });
        }
        Ok(())
    }

    /// Record an authenticated `seq`. It must have passed [`check`](Self::check).
    pub fn mark(&mut self, seq: u64) {
        assert!(self.check(seq).is_ok(), "mark({seq}) without a passing check");
        match self.highest {
            Some(highest) if seq <= highest => {}
            Some(highest) => {
                let ahead = seq - highest;
                if ahead >= self.window_len() as u64 {
                    self.bits = [0; REPLAY_WORDS_LEN];
                } else {
                    // The slots of highest+1 ..= seq fall out of the old window: clear them.
                    for s in highest + 1..=seq {
                        self.set(s, false);
                    }
                }
                self.highest = Some(seq);
            }
            None => self.highest = Some(seq),
        }
        self.set(seq, true);
        debug_assert!(self.check(seq).is_err());
        debug_assert!(self.window_len() == REPLAY_WINDOW_LEN || self.bits[1..].iter().all(|&w| w == 0));
    }

    /// `check` then `mark`, for callers that authenticate by other means.
    pub fn accept(&mut self, seq: u64) -> Result<(), Replay> {
        self.check(seq)?;
        self.mark(seq);
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn in_order_and_duplicates() {
        let mut w = ReplayWindow::default();
        for s in 0..3000 {
            assert_eq!(w.accept(s), Ok(()));
            assert_eq!(w.check(s), Err(Replay::Duplicate { seq: s }));
        }
        assert_eq!(w.check(2999 - 1024), Err(Replay::TooOld { seq: 1975, highest: 2999 }));
        assert_eq!(w.check(2999 - 1023), Err(Replay::Duplicate { seq: 1976 }));
    }

    #[test]
    fn big_jump_clears_everything() {
        let mut w = ReplayWindow::new(WindowLen::Legacy64);
        w.accept(5).unwrap();
        w.accept(5 + 64 * 3).unwrap();
        // 5+64*2+1 .. are inside the window and were never seen.
        for s in 5 + 64 * 2 + 1..5 + 64 * 3 {
            assert_eq!(w.check(s), Ok(()), "seq {s}");
        }
        assert_eq!(w.check(5 + 64 * 2), Err(Replay::TooOld { seq: 133, highest: 197 }));
    }

    #[test]
    #[should_panic]
    fn mark_without_check_is_a_bug() {
        let mut w = ReplayWindow::default();
        w.mark(1);
        w.mark(1);
    }

    /// The replay-window-64 switch gives the earlier design's 64-wide window; off, 1024.
    #[test]
    fn from_switches_picks_the_window_len() {
        let on = BugSwitches { replay_window_64: true, ..BugSwitches::default() };
        assert_eq!(ReplayWindow::from_switches(&on).window_len(), 64);
        assert_eq!(ReplayWindow::from_switches(&BugSwitches::default()).window_len(), 1024);
    }

    /// Nothing accepted yet means no highest seq; afterwards it is the highest accepted.
    #[test]
    fn highest_is_the_highest_accepted() {
        let mut w = ReplayWindow::default();
        assert_eq!(w.highest(), None);
        w.accept(5).unwrap();
        assert_eq!(w.highest(), Some(5));
        w.accept(3).unwrap();
        assert_eq!(w.highest(), Some(5));
    }
}
