//! ftw-sim patch: a hook that decides the fate of every UDP datagram.
//!
//! Stock turmoil draws latency and a link-wide "fail rate" itself. With a hook
//! installed, each datagram a host sends is handed to [`NetHook::on_send`] with
//! the sender's exact simulated time; the hook returns zero or more copies to
//! deliver, each with its own delay and (possibly rewritten) addresses. That is
//! enough to build per-packet loss, jitter, duplication, reordering, MTU limits
//! and NATs outside turmoil, as small composable pieces.

use std::io;
use std::net::SocketAddr;
use std::time::Duration;

use bytes::Bytes;

/// One datagram to deliver: `delay` after the send time, from `src` to `dst`.
#[derive(Debug, Clone)]
pub struct Emit {
    pub delay: Duration,
    pub src: SocketAddr,
    pub dst: SocketAddr,
    pub payload: Bytes,
}

/// Decides what happens to each UDP datagram.
pub trait NetHook {
    /// `now` is the sender's exact time since the start of the simulation.
    /// Return the copies to deliver (none: dropped), or an error that the
    /// sender's `send_to` returns (e.g. `ConnectionRefused`).
    fn on_send(
        &mut self,
        now: Duration,
        src: SocketAddr,
        dst: SocketAddr,
        payload: &Bytes,
    ) -> io::Result<Vec<Emit>>;
}
