//! ftw-sim's world: seeds, simulated time, the network and its faults, NATs,
//! drivers that bind the IO-free models to turmoil sockets, and the trace.

pub mod app;
pub mod fleet;
pub mod link;
pub mod net;
pub mod quic;
pub mod scenario;
pub mod seed;
pub mod table;
pub mod tcp;
pub mod time;
pub mod trace;
pub mod world;
pub mod ws;

pub use seed::{parse_seed, RunSeed};
pub use world::{RunOutcome, World, WorldConfig};
