//! What the journal records of the phone's transport race (`ftw_phone::race::CloudSockets`,
//! driven by `drive::app::race::RaceDriver`): every input the driver gives the model, and
//! after each of the driver's steps everything it polled back (actions, decisions, the next
//! deadline) and what the memory then holds. The lockstep reference is
//! `ftw_properties::reference::race`.
//!
//! Every step names the model instance it belongs to: a relaunch starts a new
//! `CloudSockets` on the same host (with the memory reloaded from its persisted form)
//! while the old driver may still report a late dial result to the old one.

use ftw_phone::memory::MemoryEntry;
use ftw_phone::network::{NetworkDesc, NetworkId};
use ftw_phone::race::{Action, Decision, RaceStats};
use ftw_phone::session::SessionEnd;
use ftw_phone::Transport;

/// What one network's memory entry holds, as plain data.
pub type Remembered = (NetworkId, MemoryEntry);

/// An input or a decision of the race model.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RaceStep {
    /// Which `CloudSockets` on this host (0 for the first, counted per host and run).
    pub instance: usize,
    pub what: RaceInput,
}

/// What happened to the model (all times are the model's clock, in ms).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum RaceInput {
    /// A `CloudSockets` was made with this memory (its raw entries, in id order).
    Launched { memory: Vec<Remembered> },
    /// `start(now, network)`: `network` is the model's name (`NetworkId::of`) for what
    /// the phone's network watch saw, `on` (the world's: its interfaces and gateways).
    Start { network: NetworkId, on: NetworkDesc },
    /// `close(now)`.
    Close,
    /// `quic_refused(now)`.
    QuicRefused,
    /// `dial_failed(now, t)`.
    DialFailed(Transport),
    /// `opened(now, t)`.
    Opened(Transport),
    /// `first_message(now)`.
    FirstMessage,
    /// `session_ended(now, end)`.
    SessionEnded(SessionEnd),
    /// `handle_timeout(now)`.
    Timeout,
    /// What the driver polled at the end of one of its steps: every action and every
    /// decision (with its time) queued since the last poll, the next deadline
    /// (`poll_timeout`), the memory's raw entries at that moment and the model's
    /// counters (`stats()`).
    Polled { actions: Vec<Action>, decisions: Vec<(u64, Decision)>, deadline_ms: Option<u64>, memory: Vec<Remembered>, stats: RaceStats },
}

/// The memory's raw entries, in network id order.
pub fn memory_of(m: &ftw_phone::memory::CloudTransportMemory) -> Vec<Remembered> {
    m.networks().map(|n| (n.clone(), m.get(n).expect("a listed network has an entry").clone())).collect()
}

/// The instance number the next `CloudSockets` on `host` gets: how many were
/// launched on it so far in this run's journal.
pub fn next_instance(host: &str) -> usize {
    super::count(|e| e.host == host && matches!(&e.step, super::Step::Race(RaceStep { what: RaceInput::Launched { .. }, .. })))
}
