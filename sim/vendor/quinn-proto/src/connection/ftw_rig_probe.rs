//! ftw-sim patch (rig-probe-oldest): a probe timeout sends the oldest outstanding
//! packet's data again, as quic-go's does (PATCH.md section 15).

use super::{Connection, SpaceId};

impl Connection {
    /// For each of `count` probes, the oldest ack-eliciting packet in flight in
    /// `space` is declared lost and its frames queued to go first (quic-go
    /// `sentPacketHandler.QueueProbePacket`: `DeclareLost`, `removeFromBytesInFlight`,
    /// `queueFramesForRetransmission`), not told to the congestion controller.
    pub(super) fn ftw_requeue_oldest(&mut self, space: SpaceId, count: u32) {
        for _ in 0..count {
            let oldest = self.spaces[space]
                .sent_packets
                .iter()
                .find(|(_, p)| p.ack_eliciting && (!p.stream_frames.is_empty() || !p.retransmits.is_empty(&self.streams)))
                .map(|(pn, _)| *pn);
            let Some(pn) = oldest else { return };
            let info = self.spaces[space].sent_packets.remove(&pn).expect("just found");
            self.remove_in_flight(&info);
            self.ftw_requeue_frames(space, info);
        }
    }

    /// `info`'s frames queued to go again: its stream data and its other frames.
    pub(super) fn ftw_requeue_frames(&mut self, space: SpaceId, info: super::SentPacket) {
        for frame in info.stream_frames {
            self.streams.retransmit(frame);
        }
        self.spaces[space].pending |= info.retransmits;
    }
}
