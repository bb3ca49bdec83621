//! Drivers that bind the IO-free application models (phone, box, cloud) to the
//! simulated network.

pub mod r#box;
pub mod cloud;
pub mod phone;
pub(crate) mod race;
pub(crate) mod relay;
