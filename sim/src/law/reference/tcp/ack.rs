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
//!   (the ACK rides on the reply), a delayed ACK that had to fire leaves it;
//! - Linux counts "a full segment" by its estimate of the peer's segment size,
//!   `rcv_mss` (`tcp_initialize_rcv_mss`, `tcp_measure_rcv_mss`): at first the
//!   least of this end's MSS, the peer's and 536 (`TCP_MSS_DEFAULT`), at least 88
//!   (`TCP_MIN_MSS`); a segment queued in order at least that long raises it (to at
//!   most this end's MSS); a shorter one seen twice running lowers it, if it is 536 B
//!   or more with its header, or 88 B or more and carries none of PSH, FIN, SYN, URG;
//!   any other shorter one is a small pushed segment (PUSHED; PUSHED2 if one was
//!   already marked), the marks cleared by the next ACK sent;
//! - Linux, when the application reads (`tcp_cleanup_rbuf`): with data waiting for
//!   an ACK, at once if more than `rcv_mss` waits, or if the read emptied the receive
//!   buffer after a small pushed segment (PUSHED2, or PUSHED outside pingpong mode).

use crate::world::journal::tcp::Seg;

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
    /// Linux's estimate of the peer's segment size (0 before its first data), the
    /// last segment size it noted, and the small pushed segments since the last ACK.
    rcv_mss: u32,
    last_seg_size: u32,
    pushed: u32,
}

/// Linux `TCP_MSS_DEFAULT` and `TCP_MIN_MSS` (include/net/tcp.h).
const MSS_DEFAULT: u32 = 536;
const MIN_MSS: u32 = 88;
/// A TCP header without options.
const BARE_HDR: u32 = 20;

impl Acks {
    /// Data arrived at `at`; `unacked` bytes wait after it. `rto` is the
    /// connection's RTO now (the quick-ack mode's silence).
    pub fn data_in(&mut self, linux: bool, at: i64, rto: u32, (unacked, mss, advmss): (u32, u32, u32), in_order: bool, seg: Seg) {
        if linux && seg.queued {
            self.measure(advmss, mss, seg);
        }
        let full = if linux { self.rcv_mss } else { mss };
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
        } else if unacked > full {
            now("at once: more than one full segment waits (RFC 9293 SHLD-19; Linux: more than rcv_mss)")
        } else {
            Due { by: since + DELAY_MS, why: DELAYED, timer: true }
        };
        // A rule's "at once" wins over the timer due at the same instant.
        if self.due.is_none_or(|d| due.by < d.by || (due.by == d.by && !due.timer)) {
            self.due = Some(due);
        }
    }

    /// Linux's estimate of the peer's segment size, from a segment queued in order.
    fn measure(&mut self, advmss: u32, mss: u32, seg: Seg) {
        if self.rcv_mss == 0 {
            self.rcv_mss = advmss.min(mss).clamp(MIN_MSS, MSS_DEFAULT);
        }
        let lss = std::mem::take(&mut self.last_seg_size);
        if seg.len >= self.rcv_mss {
            self.rcv_mss = seg.len.min(advmss);
            return;
        }
        let whole = seg.len + seg.hdr;
        if whole >= MSS_DEFAULT + BARE_HDR || (whole >= MIN_MSS + BARE_HDR && !seg.remnant) {
            self.last_seg_size = whole - seg.fixed_hdr;
            if self.last_seg_size == lss {
                self.rcv_mss = lss;
                return;
            }
        }
        self.pushed += 1;
    }

    /// The application read `copied` bytes at `at`, `left` stay buffered and
    /// `unacked` wait for an ACK (Linux `tcp_cleanup_rbuf`).
    pub fn app_read(&mut self, linux: bool, at: i64, copied: u32, left: u32, unacked: u32) {
        if !linux || unacked == 0 {
            return;
        }
        let small_pushed = self.pushed >= 2 || (self.pushed == 1 && !self.pingpong);
        let why = if unacked > self.rcv_mss {
            "at once: the application read with more than rcv_mss waiting (Linux tcp_cleanup_rbuf)"
        } else if copied > 0 && left == 0 && small_pushed {
            "at once: the application emptied the buffer after a small pushed segment (Linux tcp_cleanup_rbuf, ICSK_ACK_PUSHED)"
        } else {
            return;
        };
        if self.due.is_none_or(|d| at < d.by || (at == d.by && d.timer)) {
            self.due = Some(Due { by: at, why, timer: false });
        }
    }

    /// A segment went out at `at`, with data and/or acknowledging new data;
    /// `reply`: an ACK answering an arriving segment (the timer did not fire);
    /// `delack`: the delayed-ACK timer sent it (with data beside, smoltcp's way).
    pub fn seg_out(&mut self, linux: bool, at: i64, (data, acks_new): (bool, bool), reply: bool, delack: bool) -> R {
        if delack {
            // The timer fired (Linux `tcp_delack_timer_handler`): never before the
            // ACK was due by the delay, and it leaves pingpong mode.
            if let Some(d) = self.due.filter(|d| at < d.by) {
                return differs(format!("the delayed ACK fired at {at} ms"), format!("not before {} ms, {}", d.by, d.why));
            }
            self.pingpong = false;
        }
        if linux && data && self.last_rx.is_some_and(|r| at - r < DELAY_MS) {
            self.pingpong = true;
        }
        if !acks_new {
            return Ok(());
        }
        self.pushed = 0;
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

    /// A pushed segment of `len` bytes queued in order, with timestamps.
    fn seg(len: u32) -> Seg {
        Seg { len, hdr: 32, fixed_hdr: 32, remnant: true, queued: true }
    }

    #[test]
    fn a_lone_segment_waits_at_most_40_ms_after_the_quick_acks() {
        let mut a = Acks::default();
        for i in 0..QUICKACKS {
            let t = i64::from(i) * 100;
            a.data_in(true, t, 1000, (100, 1460, 1460), true, seg(100));
            assert!(a.clone().seg_out(true, t + 1, (false, true), false, false).is_err(), "quick ack {i} waited 1 ms");
            a.seg_out(true, t, (false, true), false, false).unwrap();
        }
        a.data_in(true, 2000, 1000, (100, 1460, 1460), true, seg(100));
        assert!(a.clone().seg_out(true, 2040, (false, true), false, false).is_ok());
        assert!(a.seg_out(true, 2041, (false, true), false, false).is_err());
    }

    #[test]
    fn smoltcp_has_no_quick_ack_but_two_segments_go_at_once() {
        let mut a = Acks::default();
        a.data_in(false, 0, 1000, (100, 1460, 1460), true, seg(100));
        assert!(a.clone().seg_out(false, 40, (false, true), false, false).is_ok());
        a.data_in(false, 10, 1000, (1600, 1460, 1460), true, seg(1600));
        assert!(a.clone().seg_out(false, 10, (false, true), false, false).is_ok());
        assert!(a.seg_out(false, 11, (false, true), false, false).is_err());
        let mut b = Acks::default();
        b.data_in(false, 0, 1000, (100, 1460, 1460), false, seg(100));
        assert!(b.seg_out(false, 1, (false, true), false, false).is_err(), "out of order waits");
    }

    #[test]
    fn pingpong_lets_the_ack_ride_on_the_reply_and_a_fired_delack_ends_it() {
        let mut a = Acks::default();
        a.data_in(true, 0, 1000, (100, 1460, 1460), true, seg(100));
        a.seg_out(true, 0, (false, true), false, false).unwrap();
        a.seg_out(true, 5, (true, false), false, false).unwrap(); // reply within 40 ms: pingpong
        a.data_in(true, 100, 1000, (100, 1460, 1460), true, seg(100));
        assert!(a.clone().seg_out(true, 101, (false, true), false, false).is_ok());
        let mut replied = a.clone(); // an ACK answering a duplicate at 140: the timer never fired
        replied.seg_out(true, 140, (false, true), true, false).unwrap();
        replied.data_in(true, 200, 1000, (100, 1460, 1460), true, seg(100));
        assert!(replied.seg_out(true, 201, (false, true), false, false).is_ok(), "still pingpong: the ACK may wait");
        a.seg_out(true, 140, (false, true), false, false).unwrap(); // the delayed ACK fired: pingpong ends
        a.data_in(true, 200, 1000, (100, 1460, 1460), true, seg(100));
        assert!(a.seg_out(true, 201, (false, true), false, false).is_err(), "quick again, due at once");
    }

    /// Fresh seeds 13720000000: smoltcp's delayed-ACK timer may send data waiting
    /// behind Nagle in the same segment (Linux sends a pure ACK); the timer fired
    /// all the same, so pingpong ends, and it never fires before the ACK is due.
    #[test]
    fn a_delack_with_data_beside_it_ends_pingpong() {
        let mut a = Acks::default();
        a.data_in(true, 0, 1000, (100, 1460, 1460), true, seg(100));
        a.seg_out(true, 0, (false, true), false, false).unwrap();
        a.seg_out(true, 5, (true, false), false, false).unwrap(); // pingpong
        a.data_in(true, 100, 1000, (100, 1460, 1460), true, seg(100));
        assert!(a.clone().seg_out(true, 139, (true, true), false, true).is_err(), "fired before it was due");
        let mut timer = a.clone();
        timer.seg_out(true, 140, (true, true), false, true).unwrap();
        timer.data_in(true, 300, 1000, (100, 1460, 1460), true, seg(100));
        assert!(timer.seg_out(true, 301, (false, true), false, false).is_err(), "out of pingpong: quick, due at once");
        // Data at the same instant that the app sent (no timer): pingpong stays.
        a.seg_out(true, 140, (true, true), false, false).unwrap();
        a.data_in(true, 300, 1000, (100, 1460, 1460), true, seg(100));
        assert!(a.seg_out(true, 301, (false, true), false, false).is_ok(), "still pingpong");
    }

    #[test]
    fn linux_counts_a_full_segment_by_rcv_mss() {
        // On loopback (MSS 65,483) two 600 B segments are more than one rcv_mss (600).
        let lo = |a: &mut Acks, t, unacked| a.data_in(true, t, 1000, (unacked, 65_483, 65_483), true, seg(600));
        let mut a = Acks { quick_left: Some(0), ..Acks::default() };
        lo(&mut a, 0, 600);
        assert!(a.clone().seg_out(true, 40, (false, true), false, false).is_ok(), "one segment waits");
        lo(&mut a, 10, 1200);
        assert!(a.seg_out(true, 11, (false, true), false, false).is_err(), "two go at once");
    }

    #[test]
    fn a_drained_small_pushed_segment_is_acknowledged_when_read() {
        let mut a = Acks { quick_left: Some(0), ..Acks::default() };
        a.data_in(true, 0, 1000, (100, 1460, 1460), true, seg(100));
        a.app_read(true, 0, 100, 0, 100);
        assert!(a.clone().seg_out(true, 1, (false, true), false, false).is_err(), "PUSHED outside pingpong: at once");
        let mut kept = a.clone();
        kept.due = None;
        kept.app_read(true, 0, 50, 50, 100);
        assert!(kept.seg_out(true, 40, (false, true), false, false).is_ok(), "a read that leaves data waits");
        let mut p = Acks { quick_left: Some(0), pingpong: true, ..Acks::default() };
        p.data_in(true, 0, 1000, (100, 1460, 1460), true, seg(100));
        p.app_read(true, 0, 100, 0, 100);
        assert!(p.clone().seg_out(true, 40, (false, true), false, false).is_ok(), "pingpong: one pushed segment waits");
        p.data_in(true, 10, 1000, (200, 1460, 1460), true, seg(100));
        p.app_read(true, 10, 100, 0, 200);
        assert!(p.seg_out(true, 11, (false, true), false, false).is_err(), "PUSHED2: at once even in pingpong");
    }
}
