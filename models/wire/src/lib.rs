//! The protocol's wire layer, IO-free (design/SPEC.md §2 and §3).
//!
//! * [`frame`]: the padded frame (`ver | lane | flags | rsvd | len | payload | pad`).
//! * [`envelope`]: the CBOR envelope `{t, id?, b?}` and the typed [`Msg`].
//! * [`noise`]: the box session and the outer tunnel (`Noise_IK_25519_ChaChaPoly_SHA256`),
//!   a seeded snow resolver, and the `seq || AEAD(frame)` transport.
//! * [`replay`]: the 1024-wide replay window (64 behind a bug switch).
//! * [`BugSwitches`]: the wire layer's bug switches (all off by default).
//!
//! No clocks, no sockets, no OS randomness: every key is drawn from a caller's seed.

pub mod consts;
pub mod envelope;
pub mod frame;
pub mod noise;
pub mod replay;
mod switches;

pub use envelope::{Envelope, EnvelopeError, Msg};
pub use frame::{ControlBucket, Frame};
pub use noise::{OpenError, Session};
pub use replay::{Replay, ReplayWindow, WindowLen};
pub use switches::BugSwitches;
