//! Transports and drivers: QUIC, TCP, TLS/WebSocket, [`link::Link`] over
//! either, the reactor fleet's door, and the phone, box and cloud drivers.
//! Imports only from [`crate::world`] below.

pub mod app;
pub mod build;
pub mod event;
pub mod fleet;
pub mod hosts;
pub mod link;
pub mod quic;
pub mod rig;
pub mod system;
pub mod tcp;
pub mod ws;
