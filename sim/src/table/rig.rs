//! The measurement rig as seed 000 describes it: the cloud with its QUIC and
//! WebSocket doors, the box holding its uplink over one chosen transport, the
//! phone as the caller's client, each leg shaped by the plan.

use std::cell::RefCell;
use std::net::SocketAddrV4;
use std::rc::Rc;
use std::time::Duration;

use ftw_box::{BoxConfig, BoxNode};
use ftw_cloud::{Cloud, CloudConfig};
use ftw_crypto::{new_client_session_store, ClientResumption, QuicTransportParams};
use ftw_phone::Transport;

use super::consts::LOOPBACK_MTU_BYTES;
use crate::drive::app::cloud::CloudDriver;
use crate::drive::app::r#box::{run_box, BoxDialer};
use crate::drive::build::{cloud_door_with, fleet_config, FleetRun};
use crate::drive::link::{dial_ws, EarlyData};
use crate::drive::rig::Rig;
use crate::drive::system::{box_quic_dialer, Keys, BOX_ID};
use crate::drive::tcp::TcpHost;
use crate::drive::ws::{client_tls, door_tls, WsClient, WsDoor};
use crate::world::host::addr;
use crate::world::host::{BOX, CLOUD};
use crate::world::plan::FaultPlan;
use crate::world::seed::RunSeed;
use crate::world::topology::RunSpec;

pub fn v4(ip: std::net::IpAddr) -> std::net::Ipv4Addr {
    match ip {
        std::net::IpAddr::V4(a) => a,
        std::net::IpAddr::V6(_) => unreachable!("the simulated world is IPv4"),
    }
}

/// The rig's TCP on a leg whose link MTU is `leg_mtu` (0: the loopback's,
/// [`LOOPBACK_MTU_BYTES`]): the simulated host's stack with Nagle off. Every end of
/// the seed's rig is Go (ftwcloudd, the box's cloudlink, the Go test phone), and
/// Go's net package sets TCP_NODELAY on every TCP connection by default.
pub fn rig_tcp(plan: &FaultPlan, leg_mtu: usize) -> ftw_tcp::TcpConfig {
    let mtu_bytes = if leg_mtu == 0 { LOOPBACK_MTU_BYTES } else { leg_mtu };
    ftw_tcp::TcpConfig { nodelay: true, mtu_bytes, ..crate::drive::tcp::tcp_config_for(plan, 0) }
}

/// The cloud's door as a `SocketAddrV4` (the WebSocket dials take one).
pub fn door_v4() -> SocketAddrV4 {
    SocketAddrV4::new(v4(addr::CLOUD), addr::CLOUD_PORT)
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
    run.keep_events = false;
    // No reference model reads the rig's runs: journal nothing.
    let mut world = Rig::unjournaled(&run, spec.limit);
    let topo = *world.topology().expect("the standard topology");
    let seed = spec.seed;
    let keys = Keys::of(seed);
    let shared = Rc::new(RefCell::new(RigShared::default()));

    // The cloud's own interface is the loopback; a phone on a smaller link
    // advertises the smaller MSS (RFC 6691) and gets segments that fit.
    let cloud_tcp = rig_tcp(&spec.plan, 0);
    let tcp_cfg = rig_tcp(&spec.plan, spec.plan.box_.mtu);
    let sh = shared.clone();
    let (k, params) = (keys.clone(), spec.quic.clone());
    let fleet = fleet_config(seed, &run, &FleetRun::default().shaped_by(&spec.plan));
    world.host(CLOUD, addr::CLOUD, move || {
        let (sh, k, params, cloud_tcp, fleet) = (sh.clone(), k.clone(), params.clone(), cloud_tcp.clone(), fleet);
        async move {
            let mut cloud = Cloud::new(CloudConfig::new(k.cloud.clone()), seed.key("model.cloud"));
            cloud.register_box(BOX_ID, k.box_.public);
            cloud.pair(k.phone.public, BOX_ID);
            let driver = CloudDriver::start(CLOUD, cloud);
            sh.borrow_mut().cloud = Some(driver.clone());
            let tcp = TcpHost::bind_with(CLOUD, v4(addr::CLOUD), seed, cloud_tcp).await?;
            let door = WsDoor::bind(&tcp, addr::CLOUD_PORT, door_tls(seed, CLOUD))?;
            driver.serve_ws(door);
            // The QUIC door: the reactor fleet, 4 reactors forwarding (or the plan's shape).
            driver.serve_fleet(cloud_door_with(seed, fleet, &params, ftw_crypto::new_server_session_store()).await?).await
        }
    });

    let sh = shared.clone();
    let (k, params, via) = (keys, spec.quic.clone(), spec.box_transport);
    world.host(BOX, addr::BOX, move || {
        let (sh, k, params, box_tcp) = (sh.clone(), k.clone(), params.clone(), tcp_cfg.clone());
        async move {
            let cfg =
                BoxConfig { cloud_public: k.cloud.public, ..BoxConfig::new(BOX_ID, k.box_.clone(), vec![k.phone.public], seed.sub_seed("model.box.site")) };
            let node = Rc::new(RefCell::new(BoxNode::new(cfg, seed.key("model.box"))));
            sh.borrow_mut().boxn = Some(node.clone());
            let dial: BoxDialer = match via {
                // Its first message as 0-RTT early data on a reconnect (seed; SPEC section 3).
                Transport::Quic => box_quic_dialer(seed, &params, EarlyData::IfTicket { resend: true }).await?,
                Transport::WebSocket => {
                    let tcp = TcpHost::bind_with(BOX, v4(addr::BOX), seed, box_tcp.clone()).await?;
                    let ws = Rc::new(WsClient::new(tcp, client_tls(seed, BOX, ClientResumption::Store(new_client_session_store())), seed));
                    Rc::new(move |target: String| {
                        let ws = ws.clone();
                        Box::pin(async move { dial_ws(&ws, door_v4(), ftw_crypto::consts::CLOUD_SERVER_NAME, &target).await })
                    })
                }
            };
            run_box(BOX, node, dial).await;
            Ok(())
        }
    });
    (world, shared, (topo.wifi, topo.cell))
}
