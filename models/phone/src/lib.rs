//! ftw-phone: the phone's transport logic to FTW Cloud as IO-free state machines.
//!
//! Built from seed 000 (the pull request that moves the iPhone's link to FTW Cloud onto
//! QUIC, racing the WebSocket, and its review) and SPEC.md sections 4, 6 and 7. No clock,
//! no IO, no randomness: time comes in as `now_ms: u64` (monotonic, the caller's clock).
//!
//! * [`race::CloudSockets`]: the race, the session, demotion and the learning dial.
//! * [`memory::CloudTransportMemory`]: the winner per network for a day, persistable.
//! * [`network`]: a network named by its interfaces and gateways, kept as a SHA-256.
//! * [`session`]: how a session ends and whether that demotes QUIC.
//! * [`carrier::CloudCarrier`]: deliver, drop or end the session, per message.
//! * [`view::CloudView`]: live values, gaps and the source table (Freshness case 17).
//! * [`app`]: foreground, background, relaunch and clock jumps.
//! * `script`: a scripted dial driver for the unit tests (`cfg(test)`).
//! * [`switches::Switches`]: the bug switches (SPEC.md section 7), all off by default.

pub mod app;
pub mod carrier;
pub mod consts;
pub mod memory;
pub mod network;
pub mod race;
/// Test support: a scripted dial driver for the race's unit tests (the sim drives the
/// race with simulated sockets, ftw-sim's race driver `drive/app/race.rs`).
#[cfg(test)]
pub mod script;
pub mod session;
pub mod switches;
pub mod view;

pub use carrier::{Arrival, CloudCarrier, Opened, Verdict};
pub use memory::{CloudTransportMemory, FirstReason};
pub use network::{NetworkDesc, NetworkId};
pub use race::{Action, CloudSockets, Decision, DialFailure, Phase};
pub use session::{DemotionVerdict, SessionEnd};
pub use switches::Switches;
pub use view::CloudView;

use serde::{Deserialize, Serialize};
use std::fmt;

/// How a session with FTW Cloud travels.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
pub enum Transport {
    Quic,
    WebSocket,
}

impl Transport {
    pub fn other(self) -> Transport {
        match self {
            Transport::Quic => Transport::WebSocket,
            Transport::WebSocket => Transport::Quic,
        }
    }

    /// The name the settings line shows.
    pub fn name(self) -> &'static str {
        match self {
            Transport::Quic => "QUIC",
            Transport::WebSocket => "WebSocket",
        }
    }
}

impl fmt::Display for Transport {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

#[cfg(test)]
mod names_tests;
#[cfg(test)]
mod race_tests;
