// ftw-sim patch (whole file; see PATCH.md): the sender's SACK scoreboard and RACK-TLP loss
// detection, as a stock Linux 6.x runs them (`net/ipv4/tcp_recovery.c`, `tcp_output.c`).
//
// * RFC 6675 (SACK-based loss recovery): a record per transmitted segment, marked SACKed
//   from the peer's SACK blocks; "pipe" (bytes in flight that are neither SACKed nor
//   deemed lost) instead of "everything above SND.UNA" when the congestion window is
//   checked; an RTO marks every un-SACKed segment lost and only those are resent.
// * RFC 8985 (RACK-TLP, Linux's default loss detection since 4.18): a segment is lost when
//   a segment sent after it has been delivered and more than RACK.rtt + reo_wnd has passed
//   since it was sent (section 6.2); a reordering timer covers the remainder (6.3); a tail
//   loss probe goes 2 x SRTT after the last transmission (7.2, 7.3).
//
// Used by `Socket` only when `set_sack_recovery(true)` and the peer offered SACK; the
// socket keeps smoltcp's own recovery otherwise.

use heapless::Deque;

use crate::time::{Duration, Instant};
use crate::wire::TcpSeqNumber;

/// Records kept; when full, a new transmission is merged into the last record (coarser,
/// never wrong about what is acknowledged). 256 covers a 128 KiB window of 536-byte segments.
pub(super) const SEGS_MAX: usize = 256;

/// RFC 8985 7.2: WCDelAckT, the worst-case delayed-ACK time added to the probe timeout when
/// a single segment is in flight (Linux adds `TCP_RTO_MIN`, 200 ms, in
/// `tcp_schedule_loss_probe`).
pub(super) const TLP_WORST_CASE_DELACK: Duration = Duration::from_millis(200);

/// Linux `tcp_schedule_loss_probe`: with more than one segment in flight the probe timeout
/// is 2 x SRTT + `TCP_TIMEOUT_MIN` (2 jiffies, 2 ms at HZ=1000).
pub(super) const TLP_MIN_EXTRA: Duration = Duration::from_millis(2);

/// The longest RTT believed from an echoed timestamp (a TSecr that is not one of ours, or
/// from before a wrap, gives a huge difference; the RTO ceiling is 120 s).
pub(super) const TS_RTT_MAX_MS: u32 = 120_000;

/// Linux `tcp_rack_reo_wnd`: the reordering window is 0 until reordering was seen, once
/// three segments are SACKed (`tp->reordering`, RFC 6675's DupThresh) or in recovery.
const DUPTHRESH: usize = 3;

/// One transmitted segment (data and/or FIN) not yet cumulatively acknowledged.
#[derive(Debug, Clone, Copy)]
pub(super) struct Seg {
    pub start: TcpSeqNumber,
    /// One past the last sequence number, FIN included.
    pub end: TcpSeqNumber,
    pub fin: bool,
    /// Time of the latest (re)transmission.
    pub xmit: Instant,
    pub sacked: bool,
    pub lost: bool,
    pub retrans: bool,
    /// Bytes of a lost segment already sent again (a merged segment can straddle the send
    /// ring's wrap and go again in two pieces).
    pub resent: usize,
}

impl Seg {
    pub fn len(&self) -> usize {
        self.end - self.start
    }
}

/// The one loss-detection timer (Linux `ICSK_TIME_REO_TIMEOUT` / `ICSK_TIME_LOSS_PROBE`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum LossTimer {
    /// RFC 8985 6.3: re-run loss detection when a segment's reordering window is over.
    Reorder(Instant),
    /// RFC 8985 7.2: send a tail loss probe.
    Probe(Instant),
}

impl LossTimer {
    pub fn at(&self) -> Instant {
        match *self {
            LossTimer::Reorder(t) | LossTimer::Probe(t) => t,
        }
    }
}

/// RFC 8985 6.2: RACK_sent_after.
fn sent_after(t1: Instant, seq1: TcpSeqNumber, t2: Instant, seq2: TcpSeqNumber) -> bool {
    t1 > t2 || (t1 == t2 && seq1 > seq2)
}

#[derive(Debug)]
pub(super) struct Recovery {
    pub segs: Deque<Seg, SEGS_MAX>,
    /// RACK.xmit_ts, RACK.end_seq, RACK.rtt of the most recently sent delivered segment.
    rack: Option<(Instant, TcpSeqNumber, Duration)>,
    /// RACK.min_RTT (Linux keeps a windowed minimum; a plain minimum here).
    min_rtt: Option<Duration>,
    /// Linux `tp->reord_seen`: a never-retransmitted segment was delivered below one
    /// already SACKed.
    reord_seen: bool,
    /// Highest SACKed sequence number (end of the highest SACKed segment).
    high_sacked: Option<TcpSeqNumber>,
    /// In loss recovery (fast recovery or after an RTO) until SND.UNA reaches this
    /// (RFC 6675 RecoveryPoint).
    pub recovery_point: Option<TcpSeqNumber>,
    pub timer: Option<LossTimer>,
    /// The probe timer fired; the next segment out is the probe.
    pub tlp_pending: bool,
    /// RFC 8985 7.3 TLP.end_seq: a probe is outstanding (one at a time).
    pub tlp_high_seq: Option<TcpSeqNumber>,
}

impl Recovery {
    pub const fn new() -> Recovery {
        Recovery {
            segs: Deque::new(),
            rack: None,
            min_rtt: None,
            reord_seen: false,
            high_sacked: None,
            recovery_point: None,
            timer: None,
            tlp_pending: false,
            tlp_high_seq: None,
        }
    }

    pub fn clear(&mut self) {
        *self = Recovery::new();
    }

    pub fn in_recovery(&self) -> bool {
        self.recovery_point.is_some()
    }

    pub fn has_sacked(&self) -> bool {
        self.segs.iter().any(|s| s.sacked)
    }

    /// RFC 6675 section 2 "pipe": bytes sent, not SACKed, not deemed lost (a retransmitted
    /// lost segment is in flight again).
    pub fn pipe(&self) -> usize {
        self.segs
            .iter()
            .filter(|s| !s.sacked && !s.lost)
            .map(|s| s.len())
            .sum()
    }

    /// The first segment deemed lost and not yet retransmitted (RFC 6675 NextSeg rule 1).
    pub fn first_lost(&self) -> Option<usize> {
        self.segs.iter().position(|s| s.lost && !s.sacked)
    }

    /// A segment of new data (or FIN) went out.
    pub fn on_send_new(&mut self, start: TcpSeqNumber, end: TcpSeqNumber, fin: bool, now: Instant) {
        let seg = Seg {
            start,
            end,
            fin,
            xmit: now,
            sacked: false,
            lost: false,
            retrans: false,
            resent: 0,
        };
        if let Err(seg) = self.segs.push_back(seg) {
            let last = self
                .segs
                .back_mut()
                .expect("a full deque has a last element");
            last.end = seg.end;
            last.fin |= seg.fin;
            last.xmit = now;
        }
    }

    /// `len` more sequence numbers of segment `i` were sent again; once all of it, it is
    /// in flight again.
    pub fn on_retransmit(&mut self, i: usize, len: usize, now: Instant) {
        if let Some(s) = self.segs.get_mut(i) {
            s.resent += len;
            if s.resent >= s.len() {
                s.xmit = now;
                s.lost = false;
                s.retrans = true;
                s.resent = 0;
            }
        }
    }

    /// RFC 8985 6.2 step 2: RACK_update for a segment newly delivered (cumulatively or by SACK).
    fn rack_update(&mut self, seg: &Seg, now: Instant) {
        let rtt = now - seg.xmit;
        if seg.retrans && self.min_rtt.is_some_and(|m| rtt < m) {
            // Probably the ACK of the original transmission: ambiguous, ignore.
            return;
        }
        if !seg.retrans {
            self.min_rtt = Some(self.min_rtt.map_or(rtt, |m| m.min(rtt)));
        }
        let newer = match self.rack {
            None => true,
            Some((t, end, _)) => sent_after(seg.xmit, seg.end, t, end),
        };
        if newer {
            self.rack = Some((seg.xmit, seg.end, rtt));
        }
    }

    /// Take in an ACK: cumulative `ack` and the SACK blocks.
    pub fn on_ack(&mut self, now: Instant, ack: TcpSeqNumber, sack: &[Option<(u32, u32)>; 3]) {
        let high_sacked_before = self.high_sacked;
        let reordered = |s: &Seg| !s.retrans && high_sacked_before.is_some_and(|h| s.end <= h);
        // Cumulatively acknowledged segments leave the scoreboard.
        while let Some(front) = self.segs.front_mut() {
            if front.end <= ack {
                let seg = self.segs.pop_front().expect("front exists");
                if !seg.sacked {
                    if reordered(&seg) {
                        self.reord_seen = true;
                    }
                    self.rack_update(&seg, now);
                }
            } else {
                if front.start < ack {
                    front.resent = front.resent.saturating_sub(ack - front.start);
                    front.start = ack;
                }
                break;
            }
        }
        // SACK blocks (RFC 2018): mark whole segments inside a block.
        for &(left, right) in sack.iter().flatten() {
            let (left, right) = (TcpSeqNumber(left as i32), TcpSeqNumber(right as i32));
            if right <= ack || right <= left {
                continue; // D-SACK or stale
            }
            for i in 0..self.segs.len() {
                let seg = *self.segs.get(i).expect("index in range");
                if seg.sacked || seg.start < left || seg.end > right {
                    continue;
                }
                if reordered(&seg) {
                    self.reord_seen = true;
                }
                self.segs.get_mut(i).expect("index in range").sacked = true;
                self.rack_update(&seg, now);
                if self.high_sacked.is_none_or(|h| seg.end > h) {
                    self.high_sacked = Some(seg.end);
                }
            }
        }
        if self.high_sacked.is_some_and(|h| h <= ack) {
            self.high_sacked = None;
        }
        if self.recovery_point.is_some_and(|p| ack >= p) {
            self.recovery_point = None;
        }
        if self.tlp_high_seq.is_some_and(|h| ack >= h) {
            self.tlp_high_seq = None;
        }
        if self.segs.is_empty() {
            self.timer = None;
            self.tlp_pending = false;
        }
    }

    /// RFC 8985 6.2 RACK_detect_loss; arms the reordering timer for segments whose window
    /// is not yet over. Returns whether a segment was newly marked lost.
    pub fn detect_loss(&mut self, now: Instant, srtt: Option<Duration>) -> bool {
        if matches!(self.timer, Some(LossTimer::Reorder(_))) {
            self.timer = None;
        }
        let Some((rack_xmit, rack_end, rack_rtt)) = self.rack else {
            return false;
        };
        let sacked = self.segs.iter().filter(|s| s.sacked).count();
        // Linux tcp_rack_reo_wnd: no settling time while no reordering was seen, once in
        // recovery or DupThresh segments are SACKed; else min_RTT / 4, at most SRTT.
        let reo_wnd = if !self.reord_seen && (self.in_recovery() || sacked >= DUPTHRESH) {
            Duration::ZERO
        } else {
            let w = self.min_rtt.unwrap_or(Duration::ZERO) / 4;
            srtt.map_or(w, |s| w.min(s))
        };
        let mut marked = false;
        let mut timeout = Duration::ZERO;
        for seg in self.segs.iter_mut() {
            if seg.sacked || seg.lost {
                continue;
            }
            if !sent_after(rack_xmit, rack_end, seg.xmit, seg.end) {
                continue;
            }
            let deadline = seg.xmit + rack_rtt + reo_wnd;
            if deadline <= now {
                seg.lost = true;
                seg.resent = 0;
                marked = true;
            } else {
                timeout = timeout.max(deadline - now);
            }
        }
        if timeout > Duration::ZERO {
            self.timer = Some(LossTimer::Reorder(now + timeout));
        }
        marked
    }

    /// RFC 6675 section 5.1 / Linux `tcp_enter_loss`: after an RTO every segment not SACKed
    /// is deemed lost; recovery lasts until everything sent so far is acknowledged.
    pub fn on_rto(&mut self, snd_nxt: TcpSeqNumber) {
        for seg in self.segs.iter_mut() {
            if !seg.sacked {
                seg.lost = true;
                seg.resent = 0;
            }
        }
        self.recovery_point = Some(snd_nxt);
        self.timer = None;
        self.tlp_pending = false;
        self.tlp_high_seq = None;
    }
}
