//! ftw-sim, in layers whose imports point one way (down):
//!
//! * [`world`]: seeds, simulated time, the trace, the network and its fault
//!   pieces, NATs, the fault plan as data, hosts, addresses and bug switches;
//! * [`drive`]: the transports (QUIC, TCP, TLS/WebSocket, [`drive::link::Link`]),
//!   the reactor fleet's door and the phone, box and cloud drivers that bind the
//!   IO-free models to turmoil sockets, with the builders scenarios share;
//! * [`scenario`]: whole systems run from a seed, a plan and switches, each one
//!   typed definition (name, domain, laws, run function);
//! * [`table`]: the seed's measurement tables in the simulated rig;
//! * [`floor`]: the real work a run cannot avoid, as workloads `ftwsim bench` times.

pub mod drive;
pub mod floor;
pub mod law;
pub mod scenario;
pub mod table;
pub mod world;

pub use world::seed::{parse_seed, RunSeed};
pub use world::{RunOutcome, World, WorldConfig};
