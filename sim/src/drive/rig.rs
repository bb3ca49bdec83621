//! The one builder of every world. A rig is the world of a run's spec with the
//! standard topology (the phone behind its Wi-Fi NAT, the box behind its home
//! NAT, the cellular NAT for moves, each leg carrying the plan's faults, the
//! plan's NAT actions and service times), or with no network at all for the
//! scenarios that drive models directly. A scenario reads top to bottom as a
//! turmoil test: build the rig, add the cloud and the clients, run, judge:
//!
//! ```text
//! let mut rig = Rig::new(spec, limit);
//! rig.cloud_quic(seed, |conn| echo(conn));   // or rig.cloud(CloudHost { .. }), rig.home_box(BoxHost { .. })
//! rig.client(PHONE, addr::PHONE, phone(seed));
//! let outcome = rig.run();
//! ```
//!
//! A rig is its world (`Deref`): hosts, clients, NATs and scheduled actions are
//! added as to a world. The session system (`system::build`), the table's rig
//! (`table::rig::build`), the fleet and echo scenarios and the model benches all
//! start here.

use std::cell::RefCell;
use std::future::Future;
use std::ops::{Deref, DerefMut};
use std::rc::Rc;
use std::time::Duration;

use ftw_fleet::FleetConfig;

use crate::drive::build::{serve_fleet, serve_quic};
use crate::drive::fleet::FleetDoor;
use crate::drive::hosts::{host_box, host_cloud, BoxHost, CloudHost};
use crate::drive::quic::QuicConn;
use crate::world::host::{addr, CLOUD};
use crate::world::plan::FaultPlan;
use crate::world::seed::RunSeed;
use crate::world::topology::{world_for, RunSpec, Topology};
use crate::world::{RunOutcome, World};

/// A world being built for one run (see the module's words).
pub struct Rig {
    world: World,
    topology: Option<Topology>,
}

impl Rig {
    /// The spec's world with the standard topology under the spec's plan.
    pub fn new(spec: &RunSpec, limit: Duration) -> Rig {
        Rig::with_plan(spec, &spec.plan, limit)
    }

    /// The spec's world with the standard topology under `plan` (a scenario
    /// that shapes the spec's plan first: the fleet's moves).
    pub fn with_plan(spec: &RunSpec, plan: &FaultPlan, limit: Duration) -> Rig {
        Rig::topped(world_for(spec, limit), plan)
    }

    /// The standard topology in a world that journals nothing (the table's
    /// rig: no reference model reads its runs).
    pub fn unjournaled(spec: &RunSpec, limit: Duration) -> Rig {
        Rig::topped(world_for(spec, limit).without_journal(), &spec.plan)
    }

    fn topped(mut world: World, plan: &FaultPlan) -> Rig {
        let topology = Some(Topology::build(&mut world, plan));
        Rig { world, topology }
    }

    /// The standard topology's NATs (`None` for a rig with no network).
    pub fn topology(&self) -> Option<&Topology> {
        self.topology.as_ref()
    }

    /// A world with no network, one task and a minute: `workload` runs once on
    /// `host` (the scenarios that drive models directly: `box-door`,
    /// `cloud-door`, `race-clock`, `life-clock`), and what it returns comes back
    /// beside the outcome (`None` when the host failed first). The run's clock,
    /// trace and journal are the world's as in any other run.
    pub fn offline<T: 'static>(spec: &RunSpec, host: &'static str, ip: std::net::IpAddr, workload: fn(&RunSpec) -> T) -> (RunOutcome, Option<T>) {
        let mut rig = Rig { world: world_for(spec, Duration::from_secs(60)), topology: None };
        let out = Rc::new(RefCell::new(None));
        let (o, sp) = (out.clone(), spec.clone());
        rig.client(host, ip, async move {
            *o.borrow_mut() = Some(workload(&sp));
            Ok(())
        });
        let outcome = rig.run();
        let result = out.borrow_mut().take();
        (outcome, result)
    }

    /// The cloud as one QUIC endpoint (no reactor fleet) serving every
    /// connection it accepts with `serve`, each as a task of its own; started
    /// again, from scratch, whenever the world restarts the cloud.
    pub fn cloud_quic<F, Fut>(&mut self, seed: RunSeed, serve: F)
    where
        F: Fn(QuicConn) -> Fut + Clone + 'static,
        Fut: Future<Output = ()> + 'static,
    {
        self.world.host(CLOUD, addr::CLOUD, move || serve_quic(seed, serve.clone()));
    }

    /// The cloud as the reactor fleet's door under `cfg`: `on_door` sees the
    /// door once bound, `serve` each connection with the reactor that accepted it.
    pub fn cloud_fleet<D, F, Fut>(&mut self, seed: RunSeed, cfg: FleetConfig, on_door: D, serve: F)
    where
        D: Fn(&FleetDoor) + Clone + 'static,
        F: Fn(usize, QuicConn) -> Fut + Clone + 'static,
        Fut: Future<Output = ()> + 'static,
    {
        self.world.host(CLOUD, addr::CLOUD, move || serve_fleet(seed, cfg, on_door.clone(), serve.clone()));
    }

    /// The cloud as the session system and the table's rig run it
    /// (`hosts::CloudHost`: its doors, relay, restarts, reactor fleet).
    pub fn cloud(&mut self, c: CloudHost) {
        host_cloud(&mut self.world, c);
    }

    /// The box as the session system and the table's rig run it
    /// (`hosts::BoxHost`: its model, table changes, uplink).
    pub fn home_box(&mut self, b: BoxHost) {
        host_box(&mut self.world, b);
    }

    /// Run until the client finishes, a host fails, or the limit.
    pub fn run(self) -> RunOutcome {
        self.world.run()
    }
}

impl Deref for Rig {
    type Target = World;
    fn deref(&self) -> &World {
        &self.world
    }
}

impl DerefMut for Rig {
    fn deref_mut(&mut self) -> &mut World {
        &mut self.world
    }
}
