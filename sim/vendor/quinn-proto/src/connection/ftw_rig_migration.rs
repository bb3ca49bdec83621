//! ftw-sim patch (rig-migration): a server that follows its client to a new
//! address as quic-go's does (PATCH.md section 11), on with the plan's
//! `quic = "rig"` only. quic-go `path_manager.go` and `connection.go`
//! (`handleShortHeaderPacket`) at `2cfe6ee0`:
//!
//! * a packet from an address other than the path's does not move the
//!   connection: the address becomes a candidate (at most three; the oldest is
//!   evicted only when it has been silent for 5 s) and gets one probe, a
//!   PATH_CHALLENGE padded to 1200 B with no anti-amplification check;
//! * everything else still goes to the path's address;
//! * a probe neither acknowledged nor answered 1 s after it was sent is lost
//!   (`pathProbePacketLossTimeout`; an acknowledged probe leaves the lost-probe
//!   history, `sentPacketHandler.detectAndRemoveAckedPackets`): the path is
//!   forgotten, a later answer finds nothing, and the address's next packet
//!   sends a new probe;
//! * the PATH_RESPONSE validates the candidate; the connection switches to it
//!   on the highest-numbered packet from it once it has also sent a non-probing
//!   packet (RFC 9000 section 9.3), with fresh RTT, congestion and MTU state and
//!   every 1-RTT packet in flight declared lost and queued again
//!   (`sentPacketHandler.MigratedPath`).

use std::net::SocketAddr;

use rand::RngExt;
use tracing::trace;

use super::{Connection, PacketBuilder, PathData, SpaceId, Timer};
use crate::coding::BufMutExt;
use crate::{Duration, Instant, MIN_INITIAL_SIZE, Transmit, frame};

/// quic-go's `maxPaths`.
const MAX_CANDIDATES: usize = 3;
/// quic-go's `pathTimeout`.
const CANDIDATE_TIMEOUT: Duration = Duration::from_secs(5);
/// quic-go's `pathProbePacketLossTimeout`.
const PROBE_LOSS_TIMEOUT: Duration = Duration::from_secs(1);

/// What the rig's server did with an address its client's packets came from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RigPathEvent {
    /// A probe (PATH_CHALLENGE padded to 1200 B) went to it.
    Probed,
    /// Its PATH_RESPONSE came: validated.
    Validated,
    /// The connection moved to it.
    Switched,
    /// A packet came from it while three other addresses, each heard within
    /// 5 s, were candidates: not probed (quic-go `maxPaths`, `pathTimeout`).
    Ignored,
    /// (A client's note; `remote` is its peer.) A PATH_RESPONSE waited while
    /// congestion control let only an ACK go: quic-go queues it as a control
    /// frame and sends ACK-only packets when congestion-limited (`connection.go`
    /// `SendAck` -> `maybeSendAckOnlyPacket`); RFC 9000 section 8.2.2 allows it.
    AnswerHeld,
}

/// One [`RigPathEvent`], for the simulator's laws (`Connection::ftw_take_rig_notes`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RigPathNote {
    /// When it happened.
    pub at: Instant,
    /// The client's address it concerns.
    pub remote: SocketAddr,
    /// What happened.
    pub event: RigPathEvent,
}

/// An address the client's packets came from that the connection has not moved to.
#[derive(Debug, Clone)]
pub(super) struct Candidate {
    remote: SocketAddr,
    token: u64,
    /// When its PATH_CHALLENGE went out (`None`: still to send).
    challenge_sent: Option<Instant>,
    /// The packet number of that probe, and whether an ACK has covered it.
    probe_pn: Option<u64>,
    probe_acked: bool,
    validated: bool,
    rcvd_non_probing: bool,
    last_packet: Instant,
    /// A PATH_CHALLENGE from this address to answer in a probe packet of its own
    /// (quic-go `HandlePacket` returns the PATH_RESPONSE among the probe's frames).
    response: Option<u64>,
}

impl Candidate {
    fn probe_lost(&self, now: Instant) -> bool {
        !self.validated && !self.probe_acked && self.challenge_sent.is_some_and(|t| now >= t + PROBE_LOSS_TIMEOUT)
    }
}

impl Connection {
    /// What the rig's server did with its candidate addresses since the last call
    /// (PATCH.md section 11): the simulator's laws judge a move by it.
    pub fn ftw_take_rig_notes(&mut self) -> Vec<RigPathNote> {
        std::mem::take(&mut self.ftw_rig_notes)
    }

    /// Congestion control let only an ACK go at `now`: note a PATH_RESPONSE held back.
    pub(super) fn ftw_note_answer_held(&mut self, now: Instant) {
        if !self.path_responses.is_empty() {
            self.ftw_note(now, self.path.remote, RigPathEvent::AnswerHeld);
        }
    }

    fn ftw_note(&mut self, at: Instant, remote: SocketAddr, event: RigPathEvent) {
        self.ftw_rig_notes.push(RigPathNote { at, remote, event });
    }

    /// A packet from `remote`, not the path's address, has been processed.
    pub(super) fn ftw_rig_path_packet(&mut self, now: Instant, remote: SocketAddr, non_probing: bool, largest: bool) {
        self.ftw_candidates.retain(|c| c.remote == remote || !c.probe_lost(now));
        let response = self.path_responses.ftw_take_for(remote);
        if let Some(c) = self.ftw_candidates.iter_mut().find(|c| c.remote == remote) {
            c.last_packet = now;
            c.rcvd_non_probing |= non_probing;
            c.response = response.or(c.response);
            if c.probe_lost(now) {
                trace!(%remote, "candidate path probe lost, probing again");
                c.token = self.rng.random();
                c.challenge_sent = None;
                c.probe_pn = None;
                c.probe_acked = false;
                return;
            }
            if c.validated && c.rcvd_non_probing && largest {
                self.ftw_switch_to(now, remote);
            }
            return;
        }
        if self.ftw_candidates.len() >= MAX_CANDIDATES {
            if now < self.ftw_candidates[0].last_packet + CANDIDATE_TIMEOUT {
                trace!(%remote, "candidate paths full, ignoring");
                self.ftw_note(now, remote, RigPathEvent::Ignored);
                // quic-go returns before it looks at the challenge: no answer either.
                return;
            }
            self.ftw_candidates.remove(0);
        }
        trace!(%remote, "new candidate path, probing");
        let token = self.rng.random();
        self.ftw_candidates.push(Candidate {
            remote,
            token,
            challenge_sent: None,
            probe_pn: None,
            probe_acked: false,
            validated: false,
            rcvd_non_probing: non_probing,
            last_packet: now,
            response,
        });
    }

    /// A PATH_RESPONSE: whether it answered a candidate's probe (then validated,
    /// unless the probe was already lost: quic-go forgets the path when its probe's
    /// loss timer fires, so a later answer finds nothing).
    pub(super) fn ftw_rig_path_response(&mut self, now: Instant, token: u64) -> bool {
        let Some(c) = self.ftw_candidates.iter_mut().find(|c| c.token == token) else {
            return false;
        };
        if c.probe_lost(now) {
            trace!(remote = %c.remote, "answer to a lost candidate probe ignored");
            return true;
        }
        trace!(remote = %c.remote, "candidate path validated");
        c.validated = true;
        let remote = c.remote;
        self.ftw_note(now, remote, RigPathEvent::Validated);
        true
    }

    /// A candidate's probe packet, in a datagram of its own: the PATH_CHALLENGE of a
    /// candidate still to probe, and the PATH_RESPONSE to the client's own challenge
    /// from there (quic-go `PackPathProbePacket`, not held by congestion control).
    pub(super) fn ftw_send_candidate_challenge(&mut self, now: Instant, buf: &mut Vec<u8>) -> Option<Transmit> {
        let i = self.ftw_candidates.iter().position(|c| c.challenge_sent.is_none() || c.response.is_some())?;
        let c = &self.ftw_candidates[i];
        let challenge = c.challenge_sent.is_none().then_some(c.token);
        let (response, destination) = (c.response, c.remote);
        buf.reserve(MIN_INITIAL_SIZE as usize);
        let buf_capacity = buf.capacity();
        let cid = self.rem_cids.active();
        let mut builder = PacketBuilder::new(now, SpaceId::Data, cid, buf, buf_capacity, 0, false, self)?;
        let pn = builder.exact_number;
        let c = &mut self.ftw_candidates[i];
        c.response = None;
        if let Some(token) = challenge {
            c.challenge_sent = Some(now);
            c.probe_pn = Some(pn);
            trace!("probing candidate path with PATH_CHALLENGE {:08x}", token);
            self.ftw_note(now, destination, RigPathEvent::Probed);
            buf.write(frame::FrameType::PATH_CHALLENGE);
            buf.write(token);
            self.stats.frame_tx.path_challenge += 1;
        }
        if let Some(token) = response {
            trace!("PATH_RESPONSE {:08x} in the candidate's probe packet", token);
            buf.write(frame::FrameType::PATH_RESPONSE);
            buf.write(token);
            self.stats.frame_tx.path_response += 1;
        }
        builder.pad_to(MIN_INITIAL_SIZE);
        builder.finish(self, now, buf);
        self.stats.udp_tx.on_sent(1, buf.len());
        Some(Transmit { destination, size: buf.len(), ecn: None, segment_size: None, src_ip: self.local_ip })
    }

    /// An ACK of the Data space: the candidates' probes it covers are acknowledged;
    /// whether it newly acknowledged one not yet lost (quic-go counts that probe among
    /// the ACK's acknowledged packets: `detectAndRemoveAckedPackets`, "the probe packet
    /// might already have been declared lost").
    pub(super) fn ftw_rig_on_ack(&mut self, now: Instant, ack: &frame::Ack) -> bool {
        let mut newly = false;
        for c in self.ftw_candidates.iter_mut() {
            let Some(pn) = c.probe_pn else { continue };
            if !c.probe_acked && ack.iter().any(|r| r.contains(&pn)) {
                newly |= !c.probe_lost(now);
                c.probe_acked = true;
            }
        }
        newly && crate::ftw_sim_patch::rig_probe_ack_counted()
    }

    /// An ACK that acknowledged a candidate's probe and no packet of `sent_packets`
    /// (the probe is not kept there): what quic-go's `ReceivedAck` still does with
    /// an acknowledged probe, loss detection, the probe-timeout backoff restarted
    /// ("Reset the pto_count unless the client is unsure if the server has
    /// validated the client's address"), the timer set again.
    pub(super) fn ftw_rig_probe_acked(&mut self, now: Instant, space: SpaceId) {
        self.detect_lost_packets(now, space, true);
        if self.peer_completed_address_validation() {
            self.pto_count = 0;
        }
        self.set_loss_detection_timer(now);
    }

    /// Move the connection to `remote`, validated, as quic-go's `MigratedPath`.
    fn ftw_switch_to(&mut self, now: Instant, remote: SocketAddr) {
        trace!(%remote, "switching to validated candidate path");
        self.ftw_note(now, remote, RigPathEvent::Switched);
        self.path_counter = self.path_counter.wrapping_add(1);
        let peer_max_udp_payload_size = u16::try_from(self.peer_params.max_udp_payload_size.into_inner()).unwrap_or(u16::MAX);
        let mut path = PathData::new(remote, self.allow_mtud, Some(peer_max_udp_payload_size), self.path_counter, now, &self.config);
        path.validated = true;
        self.path = path;
        self.prev_path = None;
        self.ftw_candidates.clear();
        self.timers.stop(Timer::PathValidation);
        self.ftw_requeue_in_flight();
        self.datagrams().drop_oversized();
        self.update_rem_cid();
        self.spin = false;
        self.set_loss_detection_timer(now);
    }

    /// Every 1-RTT packet in flight is lost and its frames queued again.
    fn ftw_requeue_in_flight(&mut self) {
        let sent = std::mem::take(&mut self.spaces[SpaceId::Data].sent_packets);
        for (_, info) in sent {
            self.ftw_requeue_frames(SpaceId::Data, info);
        }
        self.spaces[SpaceId::Data].loss_time = None;
        self.spaces[SpaceId::Data].time_of_last_ack_eliciting_packet = None;
    }
}
