//! The journal: every input a model was given and every decision it made, as
//! plain data, in the order the drivers saw them. Reference models (crate
//! ftw-properties, `reference/`) replay it to check each model in lockstep
//! against a second implementation written from the SPEC's words.
//!
//! The journal is kept beside the run's trace (`RunOutcome::journal`) and is
//! never hashed: adding a step changes no trace hash. Each model's steps are
//! one type in its own file here; drivers record them with [`record`].

pub mod r#box;
pub mod carrier;
pub mod cloud;
pub mod fleet;
pub mod life;
pub mod link;
pub mod nat;
pub mod processing;
pub mod race;
pub mod replay;
pub mod tcp;
pub mod view;
pub mod wire;

use std::cell::RefCell;
use std::time::Duration;

/// One model's input or decision.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Step {
    Race(race::RaceStep),
    Carrier(carrier::CarrierStep),
    Replay(replay::ReplayStep),
    View(view::ViewStep),
    Fleet(fleet::FleetStep),
    Box(r#box::BoxStep),
    Cloud(cloud::CloudStep),
    Life(life::LifeStep),
    Nat(nat::NatStep),
    Link(link::LinkStep),
    Processing(processing::ProcessingStep),
    Wire(wire::WireStep),
    Tcp(tcp::TcpStep),
}

/// A step with when and where it happened.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Entry {
    /// Simulated time, in milliseconds since the start.
    pub t_ms: u64,
    pub host: String,
    pub step: Step,
}

impl Entry {
    /// `t=…ms host step` for a person reading a disagreement.
    pub fn describe(&self) -> String {
        format!("t={}ms {} {:?}", self.t_ms, self.host, self.step)
    }
}

/// Journal a step at the running host's current simulated time.
pub fn record(host: &str, step: Step) {
    let t = turmoil::sim_elapsed().unwrap_or_default();
    record_at(t, host, step);
}

/// Journal a step at an explicit simulated time.
pub fn record_at(t: Duration, host: &str, step: Step) {
    push(t, || host.to_string(), step);
}

/// Journal `step` for the host `host` names, if a journal is on (the name is made only then).
fn push(t: Duration, host: impl FnOnce() -> String, step: Step) {
    JOURNAL.with(|j| {
        if let Some(j) = j.borrow_mut().as_mut() {
            j.push(Entry { t_ms: t.as_millis() as u64, host: host(), step });
        }
    });
}

thread_local! {
    /// The running world's journal (one world runs per thread).
    static JOURNAL: RefCell<Option<Vec<Entry>>> = const { RefCell::new(None) };
}

thread_local! {
    /// The byte strings a hostile relay of the running world corrupted on their
    /// way to a receiver, so the receiver's driver can journal that what it was
    /// given was tampered with (a reference then checks it never opens).
    static TAMPERED: RefCell<Vec<Vec<u8>>> = const { RefCell::new(Vec::new()) };
}

/// Start a new journal on this thread (with the world's trace), and the TCP
/// stacks' log of their retransmission timers (`tcp`).
pub(crate) fn begin() {
    JOURNAL.with(|j| *j.borrow_mut() = Some(Vec::new()));
    TAMPERED.with(|t| t.borrow_mut().clear());
    smoltcp::socket::tcp::rto_log::begin();
}

/// Whether this thread's run is journaling (so a driver can skip the work of a step no one keeps).
pub fn is_on() -> bool {
    JOURNAL.with(|j| j.borrow().is_some())
}

/// A relay corrupted `bytes` on their way to a receiver (only while journaling).
pub fn mark_tampered(bytes: &[u8]) {
    if JOURNAL.with(|j| j.borrow().is_some()) {
        TAMPERED.with(|t| t.borrow_mut().push(bytes.to_vec()));
    }
}

/// Whether a relay of this run corrupted `bytes` ([`mark_tampered`]).
pub fn tampered(bytes: &[u8]) -> bool {
    TAMPERED.with(|t| t.borrow().iter().any(|b| b.as_slice() == bytes))
}

/// The network's events and each NAT's steps of a run, into the journal (the
/// world calls this once, at the run's end or as it unwinds from a panic).
pub(crate) fn record_net(net: Vec<(Duration, String, crate::world::net::log::NetEvent)>, nats: Vec<(String, Vec<(Duration, nat::NatStep)>)>) {
    use crate::world::net::log::NetEvent;
    for (name, steps) in nats {
        for (at, s) in steps {
            record_at(at, &name, Step::Nat(s));
        }
    }
    for (at, host, event) in net {
        let step = match event {
            NetEvent::Crossed { up, sent, refused, out } => Step::Link(link::LinkStep::Crossed { at, up, sent, refused, out }),
            NetEvent::Released { up, out } => Step::Link(link::LinkStep::Released { at, up, out }),
            NetEvent::Served { arrival, tcp, ready } => Step::Processing(processing::ProcessingStep::Served { arrival, tcp, ready }),
        };
        push(at, || host, step);
    }
}

/// Journal nothing more in this run (a run no reference reads: the table's rig,
/// whose streaming day would otherwise hold a gigabyte of steps).
pub(crate) fn off() {
    JOURNAL.with(|j| *j.borrow_mut() = None);
    smoltcp::socket::tcp::rto_log::end();
}

/// Stop journaling and hand the steps back, the TCP timers' after the rest.
pub(crate) fn end() -> Vec<Entry> {
    let mut steps = JOURNAL.with(|j| j.borrow_mut().take()).unwrap_or_default();
    steps.extend(tcp::from_log(smoltcp::socket::tcp::rto_log::end()));
    steps
}

/// How many of the current journal's entries satisfy `f` (0 outside a run).
pub(crate) fn count(f: impl Fn(&Entry) -> bool) -> usize {
    JOURNAL.with(|j| j.borrow().as_ref().map_or(0, |j| j.iter().filter(|e| f(e)).count()))
}
