//! What the journal records of each NAT (`crate::world::net::nat::Nat`): how it
//! was set up, and every packet it was asked to pass with what it decided. The
//! lockstep reference is `ftw_properties::reference::nat`, written from
//! docs/network-and-tcp.md, RFC 4787 (UDP) and RFC 5382 (TCP).
//!
//! The step types live beside the NAT (`net::nat`), which keeps its steps and
//! hands them to the world at the run's end: the network never imports the
//! journal, so the journal's imports run one way, down to the network's types.

pub use crate::world::net::nat::{NatStep, Seen};
