//! `CloudCarrier`'s verdict on each message of the session (seed 000, S1).
//!
//! The carrier opens each end-to-end message (the replay window and the AEAD live in the
//! wire/noise models; this module only gets the result) and decides:
//!
//! | came as  | opened  | verdict    |
//! |----------|---------|------------|
//! | any      | Ok      | Deliver    |
//! | datagram | Replay  | Drop       | (a datagram may be a duplicate a bulk burst overtook)
//! | stream   | Replay  | EndSession |
//! | any      | Broken  | EndSession |
//!
//! Chosen here: a broken message ends the session on a datagram too. QUIC's own packet
//! protection already rules out damage in transit, so a message that fails to open was
//! made wrong, as on a stream (the seed only says "as a broken message does").
//! A datagram can only come over QUIC (asserted).

use crate::switches::Switches;
use crate::Transport;

/// How a message reached the phone.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Arrival {
    /// A QUIC datagram (hb and live may come this way).
    Datagram,
    /// The control stream, the service's bulk stream, or the WebSocket.
    Stream,
}

/// The result of opening the message (replay window + AEAD).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Opened {
    Ok,
    /// The sequence number was already seen or is behind the window.
    Replay,
    /// The message did not open (AEAD failure, bad framing).
    Broken,
}

/// What the carrier does with the message.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Verdict {
    Deliver,
    Drop,
    EndSession,
}

impl Verdict {
    /// The verdict's name, for coverage counts.
    pub fn name(self) -> &'static str {
        match self {
            Verdict::Deliver => "deliver",
            Verdict::Drop => "drop",
            Verdict::EndSession => "end-session",
        }
    }
}

#[derive(Clone, Debug)]
pub struct CloudCarrier {
    transport: Transport,
    sw: Switches,
    ended: bool,
}

impl CloudCarrier {
    pub fn new(transport: Transport, sw: Switches) -> Self {
        Self { transport, sw, ended: false }
    }

    pub fn transport(&self) -> Transport {
        self.transport
    }

    /// How it travels: "QUIC" or "WebSocket".
    pub fn transport_name(&self) -> &'static str {
        self.transport.name()
    }

    /// The FTW Cloud settings line while connected.
    pub fn settings_line(&self) -> String {
        format!("Connected · {}", self.transport_name())
    }

    /// The pure rule, without counting.
    pub fn verdict(&self, arrival: Arrival, opened: Opened) -> Verdict {
        assert!(arrival == Arrival::Stream || self.transport == Transport::Quic, "a datagram can only come over QUIC");
        match (arrival, opened) {
            (_, Opened::Ok) => Verdict::Deliver,
            (Arrival::Datagram, Opened::Replay) if self.sw.datagram_replay_ends_session => Verdict::EndSession,
            (Arrival::Datagram, Opened::Replay) => Verdict::Drop,
            (Arrival::Stream, Opened::Replay) if self.sw.stream_replay_only_dropped => Verdict::Drop,
            (Arrival::Stream, Opened::Replay) => Verdict::EndSession,
            (_, Opened::Broken) => Verdict::EndSession,
        }
    }

    /// Judge one message. After the session ended, everything is dropped.
    pub fn judge(&mut self, arrival: Arrival, opened: Opened) -> Verdict {
        let v = if self.ended { Verdict::Drop } else { self.verdict(arrival, opened) };
        self.ended |= v == Verdict::EndSession;
        v
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn quic(sw: Switches) -> CloudCarrier {
        CloudCarrier::new(Transport::Quic, sw)
    }

    #[test]
    fn fixed_table() {
        let c = quic(Switches::default());
        assert_eq!(c.verdict(Arrival::Datagram, Opened::Ok), Verdict::Deliver);
        assert_eq!(c.verdict(Arrival::Stream, Opened::Ok), Verdict::Deliver);
        assert_eq!(c.verdict(Arrival::Datagram, Opened::Replay), Verdict::Drop);
        assert_eq!(c.verdict(Arrival::Stream, Opened::Replay), Verdict::EndSession);
        assert_eq!(c.verdict(Arrival::Stream, Opened::Broken), Verdict::EndSession);
        assert_eq!(c.verdict(Arrival::Datagram, Opened::Broken), Verdict::EndSession);
    }

    #[test]
    fn switch_datagram_replay_ends_session() {
        let c = quic(Switches { datagram_replay_ends_session: true, ..Switches::default() });
        assert_eq!(c.verdict(Arrival::Datagram, Opened::Replay), Verdict::EndSession);
        assert_eq!(c.verdict(Arrival::Stream, Opened::Replay), Verdict::EndSession);
    }

    #[test]
    fn switch_stream_replay_only_dropped() {
        let c = quic(Switches { stream_replay_only_dropped: true, ..Switches::default() });
        assert_eq!(c.verdict(Arrival::Stream, Opened::Replay), Verdict::Drop);
        assert_eq!(c.verdict(Arrival::Stream, Opened::Broken), Verdict::EndSession);
    }

    #[test]
    fn names_and_settings_line() {
        assert_eq!(quic(Switches::default()).transport_name(), "QUIC");
        assert_eq!(quic(Switches::default()).settings_line(), "Connected · QUIC");
        let ws = CloudCarrier::new(Transport::WebSocket, Switches::default());
        assert_eq!(ws.settings_line(), "Connected · WebSocket");
    }

    #[test]
    fn drops_everything_after_the_end() {
        let mut c = quic(Switches::default());
        assert_eq!(c.judge(Arrival::Datagram, Opened::Ok), Verdict::Deliver);
        assert_eq!(c.judge(Arrival::Datagram, Opened::Replay), Verdict::Drop);
        assert_eq!(c.judge(Arrival::Stream, Opened::Broken), Verdict::EndSession);
        assert_eq!(c.judge(Arrival::Stream, Opened::Ok), Verdict::Drop);
        assert_eq!(c.judge(Arrival::Datagram, Opened::Ok), Verdict::Drop);
    }

    #[test]
    #[should_panic(expected = "datagram")]
    fn no_datagram_on_websocket() {
        CloudCarrier::new(Transport::WebSocket, Switches::default()).verdict(Arrival::Datagram, Opened::Ok);
    }
}
