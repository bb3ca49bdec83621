//! The simulator's system tests: whole worlds built with the drivers and run
//! through the scenarios, a module a topic. They live inside the crate so the
//! drivers and scenario modules they reach stay private to it.

mod clock;
mod declared;
mod fleet;
mod idle_link;
mod move_law;
mod nat;
mod phone_race;
mod quic_handles;
mod replay;
mod session;
mod session_laws;
mod table;
mod tcp_nat;
mod uplink_law;
mod ws_link;
