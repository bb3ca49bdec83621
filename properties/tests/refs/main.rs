//! The reference models' tests (issue 14 section 2), one binary: a module a reference
//! family (the race; the carrier, replay window and view; the fleet; the box and cloud).

mod boxcloud;
mod carrier;
mod fleet;
mod race;
mod world;
