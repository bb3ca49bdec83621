//! The simulator's integration tests, one binary (one link, and `cargo test` runs
//! their tests in parallel instead of one binary after another): a module a topic.

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
mod ws_link;
