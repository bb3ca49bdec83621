//! The measurement rig as seed 000 describes it: the cloud with its QUIC and
//! WebSocket doors, the box holding its uplink over one chosen transport, the
//! phone as the caller's client, each leg shaped by the plan.

use std::cell::RefCell;
use std::rc::Rc;
use std::time::Duration;

use ftw_box::BoxNode;
use ftw_crypto::QuicTransportParams;
use ftw_phone::Transport;

use super::consts::LOOPBACK_MTU_BYTES;
use crate::drive::app::cloud::CloudDriver;
use crate::drive::build::{fleet_config, FleetRun};
use crate::drive::fleet::FleetDoor;
use crate::drive::hosts::{BoxHost, CloudHost, Uplink};
use crate::drive::link::EarlyData;
use crate::drive::rig::Rig;
use crate::world::plan::FaultPlan;
use crate::world::seed::RunSeed;
use crate::world::topology::RunSpec;

/// The rig's TCP on a leg whose link MTU is `leg_mtu` (0: the loopback's,
/// [`LOOPBACK_MTU_BYTES`]): the simulated host's stack with Nagle off. Every end of
/// the seed's rig is Go (ftwcloudd, the box's cloudlink, the Go test phone), and
/// Go's net package sets TCP_NODELAY on every TCP connection by default.
pub fn rig_tcp(plan: &FaultPlan, leg_mtu: usize) -> ftw_tcp::TcpConfig {
    let mtu_bytes = if leg_mtu == 0 { LOOPBACK_MTU_BYTES } else { leg_mtu };
    ftw_tcp::TcpConfig { nodelay: true, mtu_bytes, ..crate::drive::tcp::tcp_config_for(plan, 0) }
}

/// How a rig is set up.
#[derive(Clone, Debug)]
pub struct RigSpec {
    pub seed: RunSeed,
    pub plan: FaultPlan,
    /// The box's uplink transport.
    pub box_transport: Transport,
    /// QUIC transport parameters of the cloud's door and the box.
    pub quic: QuicTransportParams,
    pub limit: Duration,
}

/// What the hosts leave behind.
#[derive(Default)]
pub struct RigShared {
    pub boxn: Option<Rc<RefCell<BoxNode>>>,
    pub cloud: Option<CloudDriver>,
}

/// Build the world with the cloud and the box; the phone (if any) is the caller's client.
/// Also returns the NAT indices (Wi-Fi, cellular) for the phone's moves.
pub fn build(spec: &RigSpec) -> (Rig, Rc<RefCell<RigShared>>, (usize, usize)) {
    let mut run = RunSpec::new(&crate::world::topology::OwnWorld("table"), spec.seed);
    run.plan = spec.plan.clone();
    // No one reads the table's traces: only their counts are kept.
    run.trace = crate::world::trace::Keep::Counts;
    // No reference model reads the rig's runs: journal nothing.
    let mut world = Rig::unjournaled(&run, spec.limit);
    let topo = *world.topology().expect("the standard topology");
    let shared = Rc::new(RefCell::new(RigShared::default()));
    world.cloud(cloud_host(spec, &run, &shared));
    world.home_box(box_host(spec, &shared));
    (world, shared, (topo.wifi, topo.cell))
}

/// The rig's cloud: paired, sessions on, its QUIC door the reactor fleet (4
/// reactors forwarding, or the plan's shape) with the spec's parameters. Its
/// own interface is the loopback; a phone on a smaller link advertises the
/// smaller MSS (RFC 6691) and gets segments that fit.
fn cloud_host(spec: &RigSpec, run: &RunSpec, shared: &Rc<RefCell<RigShared>>) -> CloudHost {
    let fleet = fleet_config(spec.seed, run, &FleetRun::default().shaped_by(&spec.plan));
    let sh = shared.clone();
    CloudHost {
        seed: spec.seed,
        paired: true,
        sessions_enabled: true,
        wire: Default::default(),
        relay: Vec::new(),
        restarts: Vec::new(),
        tcp: rig_tcp(&spec.plan, 0),
        quic: Some((fleet, spec.quic.clone())),
        on_cloud: Rc::new(move |d: &CloudDriver| sh.borrow_mut().cloud = Some(d.clone())),
        on_door: Rc::new(|_: &FleetDoor| {}),
    }
}

/// The rig's box: paired, holding its uplink over the spec's transport (QUIC
/// sends its first message as 0-RTT early data on a reconnect: seed; SPEC
/// section 3).
fn box_host(spec: &RigSpec, shared: &Rc<RefCell<RigShared>>) -> BoxHost {
    let uplink = match spec.box_transport {
        Transport::Quic => Uplink::Quic { params: spec.quic.clone(), early: EarlyData::IfTicket { resend: true } },
        Transport::WebSocket => Uplink::WebSocket { tcp: rig_tcp(&spec.plan, spec.plan.box_.mtu) },
    };
    let sh = shared.clone();
    BoxHost {
        seed: spec.seed,
        paired: true,
        table_changes: Vec::new(),
        wire: Default::default(),
        bugs: Default::default(),
        uplink,
        uplinks: Default::default(),
        on_node: Rc::new(move |n: &Rc<RefCell<BoxNode>>| sh.borrow_mut().boxn = Some(n.clone())),
    }
}
