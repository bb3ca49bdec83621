//! The world: a seeded turmoil simulation with the network hook installed, the
//! hosts of a scenario, and a run loop that skips idle time.
//!
//! Skipping: between steps the world knows the earliest pending timer (every
//! timer goes through [`crate::world::time::sleep_until`]) and the earliest datagram
//! delivery (patched turmoil). When that moment is more than a millisecond
//! away, one step goes straight to it; nothing can happen in between, so the
//! trace is the same as with 1 ms steps (a test proves it). Without skipping,
//! every step is 1 ms, as stock turmoil.

pub mod domain;
pub mod host;
pub mod journal;
pub mod net;
pub mod panic;
pub mod plan;
pub mod plant;
pub mod range;
pub mod record;
pub mod seed;
pub mod switch;
pub mod time;
pub mod topology;
pub mod trace;

use std::cell::RefCell;
use std::future::Future;
use std::net::IpAddr;
use std::rc::Rc;
use std::time::{Duration, UNIX_EPOCH};

use crate::world::net::processing::{Processing, SlowWindow, RIG_PROCESSING, SLOW_FACTOR};
use crate::world::net::{fault::Chain, nat::Nat, Hook, Leg, NetAction, Network};
use crate::world::plan::{FaultKind, FaultPlan};
use crate::world::seed::RunSeed;
use crate::world::time::{ceil_ms, EPOCH_UNIX_MS};
use crate::world::trace::Trace;

/// The step of the world when it is not skipping, and the shortest step.
pub const TICK: Duration = Duration::from_millis(1);

/// How a run is set up.
#[derive(Clone, Debug)]
pub struct WorldConfig {
    pub seed: RunSeed,
    /// Step straight to the next event when idle (on by default).
    pub skip_idle: bool,
    /// The run stops here even if the scenario's client has not finished.
    pub limit: Duration,
    /// What the trace keeps: every event in memory (for divergence reports and
    /// `--trace`), their hash only, or only their counts; changes nothing else.
    pub trace: trace::Keep,
    /// Keep every datagram at each link it crossed (`--pcap`); changes nothing else.
    pub capture: bool,
    /// Keep a qlog of every QUIC connection (`--qlog`); changes nothing else.
    pub qlog: bool,
}

impl WorldConfig {
    pub fn new(seed: RunSeed) -> Self {
        WorldConfig { seed, skip_idle: true, limit: Duration::from_secs(3600), trace: trace::Keep::Events, capture: false, qlog: false }
    }
}

/// How a run ended.
#[derive(Debug)]
pub struct RunOutcome {
    pub trace: Trace,
    /// Every model step the drivers journaled, in order (never hashed).
    pub journal: Vec<journal::Entry>,
    pub sim_elapsed: Duration,
    pub steps: u64,
    /// `Err` if a host failed or the limit was reached before the client finished.
    pub result: Result<(), String>,
    pub net: crate::world::net::NetStats,
    pub bytes_by_host: std::collections::BTreeMap<String, u64>,
    /// The datagrams, if the run captured them (never hashed).
    pub capture: crate::world::net::capture::Capture,
    /// The TLS secrets of every connection, NSS key log lines (never hashed).
    pub keylog: ftw_crypto::keylog::KeyLogLines,
    /// The qlog streams of the QUIC configurations, if the run kept them (never hashed).
    pub qlog: Vec<ftw_crypto::qlog::QlogBytes>,
    /// What became of every UDP datagram (never hashed).
    pub fates: Vec<crate::world::net::fate::Fate>,
    /// Every QUIC connection that idled out (never hashed).
    pub idle_outs: Vec<crate::world::net::fate::IdleOut>,
    /// What the rig's QUIC server did with its clients' new addresses (never hashed).
    pub rig_paths: Vec<crate::world::net::fate::RigPath>,
}

/// A world being built, then run.
pub struct World {
    sim: turmoil::Sim<'static>,
    pub net: Rc<RefCell<Network>>,
    cfg: WorldConfig,
    flush: FlushLogs,
}

impl World {
    pub fn new(cfg: WorldConfig) -> Self {
        record::begin(cfg.trace, cfg.qlog);
        let mut sim = turmoil::Builder::new()
            .rng_seed(cfg.seed.sub_seed("turmoil"))
            .epoch(UNIX_EPOCH + Duration::from_millis(EPOCH_UNIX_MS))
            .tick_duration(TICK)
            .simulation_duration(Duration::from_secs(400 * 24 * 3600))
            .udp_capacity(1 << 16)
            .build();
        let net = Rc::new(RefCell::new(Network::new(cfg.seed.stream("net"))));
        net.borrow_mut().capture = crate::world::net::capture::Capture::new(cfg.capture);
        net.borrow_mut().log = Some(Vec::new());
        sim.set_net_hook(Box::new(Hook(net.clone())));
        // Stepping 1 ms at a time is the reference a skipping run is compared
        // with: it ticks every host on every step (turmoil patch 8).
        sim.set_skip_idle_hosts(cfg.skip_idle);
        World { sim, flush: FlushLogs(net.clone()), net, cfg }
    }

    /// This world journals no model step (`RunOutcome::journal` stays empty): for
    /// runs no reference model reads, such as the table's rig.
    pub fn without_journal(self) -> Self {
        journal::off();
        let mut net = self.net.borrow_mut();
        net.log = None;
        net.nats.iter_mut().for_each(|n| n.log = None);
        drop(net);
        self
    }

    pub fn seed(&self) -> RunSeed {
        self.cfg.seed
    }

    fn name(&mut self, ip: IpAddr, name: &str) {
        self.net.borrow_mut().names.insert(ip, name.to_string());
    }

    /// A host that runs `software` for the whole run (restarted if bounced).
    pub fn host<F, Fut>(&mut self, name: &str, ip: IpAddr, software: F)
    where
        F: Fn() -> Fut + 'static,
        Fut: Future<Output = turmoil::Result> + 'static,
    {
        self.name(ip, name);
        self.sim.host(ip, software);
    }

    /// The host whose finishing ends the run.
    pub fn client<Fut>(&mut self, name: &str, ip: IpAddr, software: Fut)
    where
        Fut: Future<Output = turmoil::Result> + 'static,
    {
        self.name(ip, name);
        self.sim.client(ip, software);
    }

    /// A NAT with its public address; returns its index.
    pub fn nat(&mut self, name: &str, public_ip: IpAddr, idle_timeout: Duration) -> usize {
        // The NAT is the hook; its public address needs no turmoil host (patched
        // turmoil delivers hooked datagrams without links).
        self.name(public_ip, name);
        let mut net = self.net.borrow_mut();
        let nat = Nat::new(name, public_ip, idle_timeout);
        let nat = if net.log.is_some() { nat.logged() } else { nat };
        net.nats.push(nat);
        net.nats.len() - 1
    }

    /// Put an inside host behind NAT `nat` (before the run).
    pub fn behind(&mut self, inside: IpAddr, nat: usize) {
        self.net.borrow_mut().put_behind(inside, nat);
    }

    /// The fault chains of the leg of edge host `inside`.
    pub fn leg(&mut self, inside: IpAddr, name: &str, up: Chain, down: Chain) {
        self.net.borrow_mut().legs.insert(inside, Leg { name: name.to_string(), up, down });
    }

    /// The chain for traffic between hosts on the internet side.
    pub fn default_chain(&mut self, chain: Chain) {
        self.net.borrow_mut().default_chain = chain;
    }

    /// The hosts' processing from the plan: its profile and its slow hosts.
    pub fn processing(&mut self, plan: &FaultPlan) {
        // Each slow host's window, as the processing applies it and as the journal names it.
        let (slow, windows): (Vec<SlowWindow>, Vec<(String, Duration, Duration)>) = plan
            .faults
            .iter()
            .filter_map(|f| match &f.fault {
                FaultKind::SlowHost(k) => {
                    let from = Duration::from_millis(f.at_ms);
                    let until = from + Duration::from_millis(k.for_ms);
                    trace::record_at(from, k.host.name(), "host.slow", format!("x{SLOW_FACTOR} processing for {} ms", k.for_ms));
                    Some((SlowWindow { host: k.host.ip(), from, until }, (k.host.name().to_string(), from, until)))
                }
                _ => None,
            })
            .unzip();
        let setup = journal::processing::ProcessingStep::Setup { plan: plan.processing, rig: RIG_PROCESSING, slow: windows };
        journal::record_at(Duration::ZERO, "world", journal::Step::Processing(setup));
        let rng = self.cfg.seed.stream("net.processing");
        self.net.borrow_mut().processing = Some(Processing::new(plan.processing, RIG_PROCESSING, slow, rng));
    }

    /// A timed network action of the fault plan.
    pub fn schedule(&mut self, at: Duration, action: NetAction) {
        self.net.borrow_mut().schedule(at, action);
    }

    /// Run until the client finishes, a host fails, or the limit.
    pub fn run(mut self) -> RunOutcome {
        let limit = self.cfg.limit;
        let mut steps = 0u64;
        let result = loop {
            let now = self.sim.elapsed();
            // Datagrams a fault piece held and lets go now (never waiting on a later packet).
            let released = self.net.borrow_mut().release_due(now);
            for e in released {
                self.sim.inject(e.src, e.dst, e.payload, now + e.delay);
            }
            if now >= limit {
                break Err(format!("the run reached its limit of {} without finishing", trace::fmt_time(limit)));
            }
            // The first step starts every host; after it, every timer is in
            // the registry and every datagram in turmoil's queues.
            let dt = if self.cfg.skip_idle && steps > 0 {
                let release = self.net.borrow().next_release();
                let next = [time::next_deadline(), self.sim.next_delivery(), release].into_iter().flatten().min();
                match next.map(ceil_ms) {
                    Some(t) if t > now => t - now,
                    Some(_) => TICK,
                    None => limit - now,
                }
            } else {
                TICK
            };
            let dt = dt.min(limit - now).max(TICK);
            steps += 1;
            match self.sim.step_by(dt) {
                Ok(true) => break Ok(()),
                Ok(false) => {}
                Err(e) => break Err(e.to_string()),
            }
        };
        let sim_elapsed = self.sim.elapsed();
        self.flush.flush();
        let mut net = self.net.borrow_mut();
        let kept = record::NetKept {
            stats: net.stats.clone(),
            bytes_by_host: net.bytes_by_host.clone(),
            capture: std::mem::take(&mut net.capture),
            fates: std::mem::take(&mut net.fates.log),
            names: net.names.clone(),
        };
        drop(net);
        drop(self.sim);
        record::finish(record::Ended { result, sim_elapsed: Some(sim_elapsed), steps }, kept)
    }
}

/// Hands what the network and its NATs kept to the journal when dropped: a world
/// that unwinds from a panic still gives the references the run up to the panic
/// (`World::run` hands it over before it ends the journal; then this finds nothing).
struct FlushLogs(Rc<RefCell<Network>>);

impl FlushLogs {
    fn flush(&self) {
        let Ok(mut net) = self.0.try_borrow_mut() else { return };
        let events = net.log.take().unwrap_or_default();
        let nats = net.nats.iter_mut().filter_map(|n| n.log.take().map(|l| (n.name.clone(), l))).collect();
        drop(net);
        journal::record_net(events, nats);
    }
}

impl Drop for FlushLogs {
    fn drop(&mut self) {
        self.flush();
    }
}
