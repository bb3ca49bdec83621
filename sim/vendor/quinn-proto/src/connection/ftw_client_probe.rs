//! ftw-sim patch (client-probe): PATCH.md section 13.
//!
//! quic-go's client probes a new path before it moves there (`Path.Probe` in
//! `path_manager_outgoing.go`): a packet with a PATH_CHALLENGE of its own, padded
//! to 1200 bytes (`PackPathProbePacket`), each try with a fresh challenge, and a
//! PATH_RESPONSE to any of them validates the path (`HandlePathResponseFrame`).
//! quinn-proto's client has no such call. Here the caller (the simulator's Go
//! phone) asks for each try; when to try again is quic-go's schedule, kept by
//! the caller. The path is the connection's own: in the simulation the phone's
//! socket stays and its network changes under it, so the new path is the one
//! the next packet takes.

use rand::RngExt;
use tracing::trace;

use super::{Connection, PacketBuilder, SpaceId};
use crate::coding::BufMutExt;
use crate::{Instant, MIN_INITIAL_SIZE, Transmit, frame};

/// The client's probe of its path (quic-go `pathOutgoing`).
#[derive(Debug, Default)]
pub(super) struct ClientProbe {
    /// Every challenge sent on this probe (`pathChallenges`).
    tokens: Vec<u64>,
    /// A try asked for and not yet sent.
    pending: bool,
    /// A PATH_RESPONSE to one of them arrived.
    answered: bool,
}

impl Connection {
    /// ftw-sim patch (client-probe): one try of quic-go's `Path.Probe`: a PATH_CHALLENGE
    /// with a fresh token goes out in a packet of its own at the next transmit. A new
    /// probe starts when the previous one was answered.
    pub fn ftw_probe_path(&mut self) {
        if self.ftw_client_probe.answered {
            self.ftw_client_probe = ClientProbe::default();
        }
        self.ftw_client_probe.pending = true;
    }

    /// ftw-sim patch (client-probe): whether a PATH_RESPONSE answered the probe.
    pub fn ftw_path_probe_answered(&self) -> bool {
        self.ftw_client_probe.answered
    }

    /// A PATH_RESPONSE for one of the probe's challenges.
    pub(super) fn ftw_client_probe_response(&mut self, token: u64) -> bool {
        let p = &mut self.ftw_client_probe;
        if self.side.is_client() && p.tokens.contains(&token) {
            trace!("client path probe answered");
            p.answered = true;
            p.pending = false;
            return true;
        }
        false
    }

    /// The probe's packet, if a try is pending: a PATH_CHALLENGE padded to 1200 bytes,
    /// on the current path with its connection ID.
    pub(super) fn ftw_send_client_probe(&mut self, now: Instant, buf: &mut Vec<u8>) -> Option<Transmit> {
        if !self.ftw_client_probe.pending || !self.side.is_client() || self.highest_space != SpaceId::Data {
            return None;
        }
        let token: u64 = self.rng.random();
        buf.reserve(MIN_INITIAL_SIZE as usize);
        let buf_capacity = buf.capacity();
        let cid = self.rem_cids.active();
        let mut builder = PacketBuilder::new(now, SpaceId::Data, cid, buf, buf_capacity, 0, false, self)?;
        self.ftw_client_probe.pending = false;
        self.ftw_client_probe.tokens.push(token);
        trace!("client path probe with PATH_CHALLENGE {:08x}", token);
        buf.write(frame::FrameType::PATH_CHALLENGE);
        buf.write(token);
        self.stats.frame_tx.path_challenge += 1;
        builder.pad_to(MIN_INITIAL_SIZE);
        builder.finish(self, now, buf);
        self.stats.udp_tx.on_sent(1, buf.len());
        let destination = self.path.remote;
        Some(Transmit { destination, size: buf.len(), ecn: None, segment_size: None, src_ip: self.local_ip })
    }
}
