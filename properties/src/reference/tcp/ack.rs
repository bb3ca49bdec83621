//! The delayed ACK of `tcp-agrees-with-spec`, from the figures sim/tcp/README.md
//! names (its "delayed ACK" row) and the RFCs behind them, not from the socket's
//! code:
//!
//! - data is acknowledged at most 40 ms after the first byte of it that waits
//!   (Linux `TCP_DELACK_MIN`, the rig's delay for both flavours; RFC 9293
//!   3.8.6.3 allows up to 500 ms);
//! - at once when more than one full segment waits (RFC 9293 SHLD-19, Linux
//!   `__tcp_ack_snd_check`), or the segment arrived out of order or filled a gap
//!   (RFC 5681 section 4.2);
//! - Linux only: at once for the first 16 data segments of a connection and after
//!   a silence longer than the RTO (`TCP_MAX_QUICKACKS`, `tcp_event_data_recv`),
//!   except in pingpong mode: data sent within 40 ms of data received enters it
//!   (the ACK rides on the reply), a delayed ACK that had to fire leaves it.

use super::super::{differs, R};

/// Linux `TCP_DELACK_MIN`: the delayed-ACK timer (sim/tcp/README.md: "40 ms here").
pub const DELAY_MS: i64 = 40;
/// Linux `TCP_MAX_QUICKACKS`: data segments acknowledged at once in quick-ack mode.
pub const QUICKACKS: u32 = 16;

/// Why an ACK is due when no rule asks for it at once.
const DELAYED: &str = "within the delayed ACK's 40 ms of the first byte waiting (Linux TCP_DELACK_MIN)";

/// When an ACK is due.
#[derive(Clone, Copy, Debug)]
struct Due {
    by: i64,
    why: &'static str,
    /// The delayed-ACK timer's rule, not one that asks for the ACK at once.
    timer: bool,
}

/// One connection's receiving side, as the delayed-ACK rules keep it.
#[derive(Clone, Debug, Default)]
pub struct Acks {
    /// When the oldest data not yet acknowledged arrived.
    waiting_since: Option<i64>,
    /// The latest the ACK may go out, and the rule that sets it.
    due: Option<Due>,
    /// Quick acks left (Linux), once the first data arrived.
    quick_left: Option<u32>,
    last_rx: Option<i64>,
    pingpong: bool,
}

impl Acks {
    /// Data arrived at `at`; `unacked` bytes wait after it. `rto` is the
    /// connection's RTO now (the quick-ack mode's silence).
    pub fn data_in(&mut self, linux: bool, at: i64, rto: u32, unacked: u32, mss: u32, in_order: bool) {
        let silent = self.last_rx.is_some_and(|r| at - r > i64::from(rto));
        if linux && (self.quick_left.is_none() || silent) {
            self.quick_left = Some(QUICKACKS);
        }
        self.last_rx = Some(at);
        if unacked == 0 {
            return;
        }
        let quick = linux && !self.pingpong && self.quick_left.is_some_and(|q| q > 0);
        if quick {
            self.quick_left = self.quick_left.map(|q| q - 1);
        }
        let since = *self.waiting_since.get_or_insert(at);
        let now = |why| Due { by: at, why, timer: false };
        let due = if quick {
            now("at once: one of a connection's first 16 data segments, or the first after a silence longer than the RTO (Linux quick-ack)")
        } else if !in_order {
            now("at once: the segment arrived out of order or filled a gap (RFC 5681 4.2)")
        } else if unacked > mss {
            now("at once: more than one full segment waits (RFC 9293 SHLD-19, Linux)")
        } else {
            Due { by: since + DELAY_MS, why: DELAYED, timer: true }
        };
        // A rule's "at once" wins over the timer due at the same instant.
        if self.due.is_none_or(|d| due.by < d.by || (due.by == d.by && !due.timer)) {
            self.due = Some(due);
        }
    }

    /// A segment went out at `at`, with data and/or acknowledging new data;
    /// `reply`: an ACK answering an arriving segment (the timer did not fire).
    pub fn seg_out(&mut self, linux: bool, at: i64, data: bool, acks_new: bool, reply: bool) -> R {
        if linux && data && self.last_rx.is_some_and(|r| at - r < DELAY_MS) {
            self.pingpong = true;
        }
        if !acks_new {
            return Ok(());
        }
        let due = self.due.take();
        if let Some(d) = due {
            let since = self.waiting_since.unwrap_or(d.by);
            if at > d.by {
                return differs(format!("data waiting since {since} ms acknowledged at {at} ms"), format!("by {} ms, {}", d.by, d.why));
            }
        }
        // The delayed-ACK timer fired (a pure ACK on the sending path when only the
        // delay was due, not an answer and not a rule's "at once"): pingpong ends.
        let fired = due.is_some_and(|d| d.timer && at >= d.by);
        if !data && !reply && fired {
            self.pingpong = false;
        }
        self.waiting_since = None;
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_lone_segment_waits_at_most_40_ms_after_the_quick_acks() {
        let mut a = Acks::default();
        for i in 0..QUICKACKS {
            let t = i64::from(i) * 100;
            a.data_in(true, t, 1000, 100, 1460, true);
            assert!(a.clone().seg_out(true, t + 1, false, true, false).is_err(), "quick ack {i} waited 1 ms");
            a.seg_out(true, t, false, true, false).unwrap();
        }
        a.data_in(true, 2000, 1000, 100, 1460, true);
        assert!(a.clone().seg_out(true, 2040, false, true, false).is_ok());
        assert!(a.seg_out(true, 2041, false, true, false).is_err());
    }

    #[test]
    fn smoltcp_has_no_quick_ack_but_two_segments_go_at_once() {
        let mut a = Acks::default();
        a.data_in(false, 0, 1000, 100, 1460, true);
        assert!(a.clone().seg_out(false, 40, false, true, false).is_ok());
        a.data_in(false, 10, 1000, 1600, 1460, true);
        assert!(a.clone().seg_out(false, 10, false, true, false).is_ok());
        assert!(a.seg_out(false, 11, false, true, false).is_err());
        let mut b = Acks::default();
        b.data_in(false, 0, 1000, 100, 1460, false);
        assert!(b.seg_out(false, 1, false, true, false).is_err(), "out of order waits");
    }

    #[test]
    fn pingpong_lets_the_ack_ride_on_the_reply_and_a_fired_delack_ends_it() {
        let mut a = Acks::default();
        a.data_in(true, 0, 1000, 100, 1460, true);
        a.seg_out(true, 0, false, true, false).unwrap();
        a.seg_out(true, 5, true, false, false).unwrap(); // reply within 40 ms: pingpong
        a.data_in(true, 100, 1000, 100, 1460, true);
        assert!(a.clone().seg_out(true, 101, false, true, false).is_ok());
        let mut replied = a.clone(); // an ACK answering a duplicate at 140: the timer never fired
        replied.seg_out(true, 140, false, true, true).unwrap();
        replied.data_in(true, 200, 1000, 100, 1460, true);
        assert!(replied.seg_out(true, 201, false, true, false).is_ok(), "still pingpong: the ACK may wait");
        a.seg_out(true, 140, false, true, false).unwrap(); // the delayed ACK fired: pingpong ends
        a.data_in(true, 200, 1000, 100, 1460, true);
        assert!(a.seg_out(true, 201, false, true, false).is_err(), "quick again, due at once");
    }
}
