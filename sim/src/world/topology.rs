//! What one run depends on ([`RunSpec`]) and the standard world it runs in:
//! the cloud; the phone behind Wi-Fi (and a cellular NAT it can move to); the
//! box behind its home NAT; legs and timed faults from the plan.

use std::time::Duration;

use crate::world::host::{addr, Host, BOX, NAT_IDLE_TIMEOUT, PHONE};
use crate::world::journal;
use crate::world::plan::FaultPlan;
use crate::world::seed::RunSeed;
use crate::world::switch::Switches;
use crate::world::{World, WorldConfig};

/// What a run runs, as the world knows it: the scenario's definition (the
/// scenario layer says what one is, `scenario::ScenarioDef`), of which the
/// world needs only the name; or a world of one's own ([`OwnWorld`]).
pub trait Scenario: std::fmt::Debug + Sync + 'static {
    /// Its name (what users type and the corpus records).
    fn name(&self) -> &'static str;
    /// Itself, for the scenario layer to find its definition.
    fn as_any(&self) -> &dyn std::any::Any;
}

impl std::fmt::Display for dyn Scenario {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}

/// A world that runs no registered scenario, only its name: the table's rig,
/// a test's own world.
#[derive(Debug)]
pub struct OwnWorld(pub &'static str);

impl Scenario for OwnWorld {
    fn name(&self) -> &'static str {
        self.0
    }
    fn as_any(&self) -> &dyn std::any::Any {
        self
    }
}

/// Everything one run depends on.
#[derive(Clone, Debug)]
pub struct RunSpec {
    /// What it runs: a scenario's definition (not its name: nothing looks it up again).
    pub scenario: &'static dyn Scenario,
    pub seed: RunSeed,
    pub switches: Switches,
    pub plan: FaultPlan,
    pub skip_idle: bool,
    /// What the run's trace keeps ([`crate::world::trace::Keep`]): the run is the same either way.
    pub trace: crate::world::trace::Keep,
    /// Capture every datagram (`--pcap`): the run is the same either way.
    pub capture: bool,
    /// Keep a qlog of every QUIC connection (`--qlog`): the run is the same either way.
    pub qlog: bool,
    /// The vendored quinn-proto's toggles for this run (a test's way to run a patch
    /// as upstream has it; PATCH.md); the rig's profile and the bug switch's toggle
    /// come from the plan and the switches.
    pub quinn: quinn_proto::ftw_sim_patch::Toggles,
}

impl RunSpec {
    /// A run of `scenario` with `seed`, on a calm network, no switch on.
    pub fn new(scenario: &'static dyn Scenario, seed: RunSeed) -> Self {
        RunSpec {
            scenario,
            seed,
            switches: Switches::default(),
            plan: FaultPlan::default(),
            skip_idle: true,
            trace: crate::world::trace::Keep::Events,
            capture: false,
            qlog: false,
            quinn: Default::default(),
        }
    }
}

/// The NATs of the standard topology (indices into the world's NATs).
#[derive(Clone, Copy, Debug)]
pub struct Topology {
    pub wifi: usize,
    pub cell: usize,
}

impl Topology {
    pub fn build(world: &mut World, plan: &FaultPlan) -> Topology {
        let wifi = world.nat("nat-wifi", addr::NAT_WIFI, NAT_IDLE_TIMEOUT);
        let cell = world.nat("nat-cell", addr::NAT_CELL, NAT_IDLE_TIMEOUT);
        let home = world.nat("nat-home", addr::NAT_HOME, NAT_IDLE_TIMEOUT);
        world.behind(addr::PHONE, wifi);
        world.behind(addr::BOX, home);
        world.leg(addr::PHONE, PHONE, plan.phone.chain(Host::Phone, &plan.faults, true), plan.phone.chain(Host::Phone, &plan.faults, false));
        world.leg(addr::BOX, BOX, plan.box_.chain(Host::Box, &plan.faults, true), plan.box_.chain(Host::Box, &plan.faults, false));
        journal::record_at(Duration::ZERO, "world", journal::Step::Tcp(journal::tcp::TcpStep::Flavour(plan.tcp)));
        for (host, name) in [(Host::Phone, PHONE), (Host::Box, BOX)] {
            journal::record_at(Duration::ZERO, name, journal::Step::Link(journal::link::leg(plan, host)));
        }
        for (at, action) in plan.net_actions(wifi, cell) {
            world.schedule(at, action);
        }
        world.processing(plan);
        Topology { wifi, cell }
    }
}

/// A world for a spec (`drive::rig::Rig` builds every world from it).
pub(crate) fn world_for(spec: &RunSpec, limit: Duration) -> World {
    let mut cfg = WorldConfig::new(spec.seed);
    cfg.skip_idle = spec.skip_idle;
    cfg.trace = spec.trace;
    cfg.capture = spec.capture;
    cfg.qlog = spec.qlog;
    cfg.limit = limit;
    let world = World::new(cfg);
    // The vendored quinn-proto's toggles are thread-locals (one world a thread at a
    // time): every one set for this world, from its spec (the bug switch of its
    // patch, the rig's profile, a test's own). Nothing a test left on leaks into it.
    let mut quinn = spec.quinn;
    quinn.upstream_mtud_on_unvalidated_path |= spec.switches.on(crate::world::switch::Switch::MtudOnUnvalidatedPath);
    quinn.rig = spec.plan.quic == crate::world::plan::QuicPlan::Rig;
    quinn_proto::ftw_sim_patch::set_all(quinn);
    world
}
