//! A retransmitting userspace TCP (smoltcp 0.14) for the simulated network.
//!
//! * [`TcpStack`]: the IO-free core. The owner pushes received IPv4 packets in
//!   ([`TcpStack::push_rx`]), polls with a time it supplies ([`TcpStack::poll`]), pulls
//!   packets to send ([`TcpStack::pop_tx`]) and asks for the next deadline
//!   ([`TcpStack::poll_at`]). No clock inside; the initial sequence numbers come from the
//!   caller's seed and ephemeral ports from a counter.
//! * [`TcpStream`], [`TcpListener`], [`run_stack`]: a tokio adapter over
//!   `Rc<RefCell<TcpStack>>`, with the outside world abstracted as a [`PacketPipe`] and a
//!   [`Sleeper`].
//!
//! Where this TCP differs from Linux, and why, is in `README.md`.

pub mod consts;
mod io;
mod stack;

#[cfg(test)]
mod testkit;
#[cfg(test)]
mod tests;
#[cfg(test)]
mod tests_linux;

pub use crate::io::{run_stack, shared, PacketPipe, SharedStack, Sleeper, TcpListener, TcpStream};
pub use crate::stack::{ConnError, ConnId, StackCounters, TcpConfig, TcpFlavor, TcpStack};
pub use smoltcp::socket::tcp::State as TcpState;
