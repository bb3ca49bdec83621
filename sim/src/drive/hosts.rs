//! The cloud and the box as hosts of a world, declared once: the session system
//! (`system::build`) and the table's rig (`table::rig::build`) run the same two
//! hosts and differ only in their settings ([`CloudHost`], [`BoxHost`]), which
//! `Rig::cloud` and `Rig::home_box` put on a world.
//!
//! Every Noise key and model seed comes from the run seed's named streams
//! (`model.cloud.static`, `model.box.static`, `model.phone.static` through
//! [`Keys`], `model.cloud`, `model.box`, `model.box.site`).

use std::cell::RefCell;
use std::rc::Rc;
use std::time::Duration;

use ftw_box::{BoxBugs, BoxConfig, BoxNode};
use ftw_cloud::{Cloud, CloudConfig};
use ftw_crypto::{new_client_session_store, quic_endpoint_config, seeded_cid_factory, ClientResumption, QuicTransportParams};
use ftw_fleet::FleetConfig;
use ftw_wire::noise::Keypair;
use ftw_wire::BugSwitches;

use crate::drive::app::cloud::CloudDriver;
use crate::drive::app::r#box::{run_box_logged, BoxDialer, UplinkLog};
use crate::drive::app::relay::RelayFault;
use crate::drive::build::{client_config_with, cloud_door_with};
use crate::drive::fleet::FleetDoor;
use crate::drive::link::{dial_quic_with, dial_ws, EarlyData};
use crate::drive::quic::QuicEndpoint;
use crate::drive::tcp::TcpHost;
use crate::drive::ws::{client_tls, door_tls, WsClient, WsDoor};
use crate::world::host::{addr, BOX, CLOUD};
use crate::world::plan::kind;
use crate::world::seed::RunSeed;
use crate::world::time;
use crate::world::trace;
use crate::world::World;

/// How the cloud is set up.
#[derive(Clone)]
pub struct CloudHost {
    pub seed: RunSeed,
    /// The phone is paired with the box (else the door answers it 4403).
    pub paired: bool,
    /// Sessions on (else the door finishes the handshake and closes with 1013).
    pub sessions_enabled: bool,
    pub wire: BugSwitches,
    /// The plan's timed relay faults.
    pub relay: Vec<RelayFault>,
    /// The plan's service restarts: (time in ms, whether the tickets are lost).
    pub restarts: Vec<(u64, bool)>,
    /// The cloud's TCP (its WebSocket door's).
    pub tcp: ftw_tcp::TcpConfig,
    /// The QUIC door: the reactor fleet and its transport parameters (none: the
    /// WebSocket door alone).
    pub quic: Option<(FleetConfig, QuicTransportParams)>,
    /// Told the cloud's driver once it runs, and its QUIC door once bound.
    pub on_cloud: Rc<dyn Fn(&CloudDriver)>,
    pub on_door: Rc<dyn Fn(&FleetDoor)>,
}

/// How the box dials its uplink.
#[derive(Clone)]
pub enum Uplink {
    /// QUIC with `params`, its first message as early data as `early` says.
    Quic { params: QuicTransportParams, early: EarlyData },
    /// The WebSocket over the box's TCP.
    WebSocket { tcp: ftw_tcp::TcpConfig },
}

/// The box's node, shared with whoever reads it after the run.
pub type BoxRef = Rc<RefCell<BoxNode>>;

/// How the box is set up.
#[derive(Clone)]
pub struct BoxHost {
    pub seed: RunSeed,
    /// The phone's key is in the box's paired list.
    pub paired: bool,
    /// The plan's table changes: the site gets a battery (srcRev + 1).
    pub table_changes: Vec<Duration>,
    pub wire: BugSwitches,
    pub bugs: BoxBugs,
    pub uplink: Uplink,
    /// The box's uplink dials are recorded here.
    pub uplinks: UplinkLog,
    /// Told the box's node once it exists.
    pub on_node: Rc<dyn Fn(&BoxRef)>,
}

/// Put the cloud on `world`: its model behind the relay driver, the WebSocket
/// door, the service restarts, and the reactor fleet as its QUIC door.
pub fn host_cloud(world: &mut World, c: CloudHost) {
    world.host(CLOUD, addr::CLOUD, move || {
        let c = c.clone();
        async move {
            let (seed, k) = (c.seed, Keys::of(c.seed));
            let mut cfg = CloudConfig::new(k.cloud.clone());
            cfg.sessions_enabled = c.sessions_enabled;
            cfg.switches = c.wire;
            let mut cloud = Cloud::new(cfg, seed.key("model.cloud"));
            cloud.register_box(BOX_ID, k.box_.public);
            if c.paired {
                cloud.pair(k.phone.public, BOX_ID);
            }
            let driver = CloudDriver::start_with_relay(CLOUD, cloud, c.relay);
            (c.on_cloud)(&driver);
            let tcp = TcpHost::bind_with(CLOUD, v4(addr::CLOUD), seed, c.tcp).await?;
            let door = WsDoor::bind(&tcp, addr::CLOUD_PORT, door_tls(seed, CLOUD))?;
            driver.serve_ws(door);
            let store = ftw_crypto::ForgetfulSessionStore::new();
            for (at, lose) in c.restarts {
                let (driver, store) = (driver.clone(), store.clone());
                tokio::task::spawn_local(async move {
                    time::sleep_until(Duration::from_millis(at)).await;
                    if lose {
                        store.forget();
                    }
                    driver.restart_uplinks(kind::SERVICE_RESTART, lose);
                });
            }
            if let Some((fleet, params)) = c.quic {
                let door = cloud_door_with(seed, fleet, &params, store).await?;
                (c.on_door)(&door);
                driver.serve_fleet(door).await;
            }
            std::future::pending::<()>().await;
            Ok(())
        }
    });
}

/// Put the box on `world`: its model with the plan's table changes, holding its
/// uplink over the chosen transport.
pub fn host_box(world: &mut World, b: BoxHost) {
    world.host(BOX, addr::BOX, move || {
        let b = b.clone();
        async move {
            let (seed, k) = (b.seed, Keys::of(b.seed));
            let paired = if b.paired { vec![k.phone.public] } else { vec![] };
            let mut cfg = BoxConfig::new(BOX_ID, k.box_.clone(), paired, site_seed(seed, !b.table_changes.is_empty()));
            cfg.switches = b.wire;
            cfg.bugs = b.bugs;
            cfg.cloud_public = k.cloud.public;
            let node = Rc::new(RefCell::new(BoxNode::new(cfg, seed.key("model.box"))));
            (b.on_node)(&node);
            let site = node.clone();
            tokio::task::spawn_local(async move {
                for at in b.table_changes {
                    time::sleep_until(at).await;
                    site.borrow_mut().site_mut().add_battery();
                    trace::record(BOX, "box.table", format!("srcRev {}", site.borrow().site().src_rev()));
                }
            });
            let dial = uplink_dialer(seed, b.uplink).await?;
            run_box_logged(BOX, node, dial, b.uplinks).await;
            Ok(())
        }
    });
}

/// The box's uplink dialer over `uplink`.
async fn uplink_dialer(seed: RunSeed, uplink: Uplink) -> std::io::Result<BoxDialer> {
    match uplink {
        Uplink::Quic { params, early } => box_quic_dialer(seed, &params, early).await,
        Uplink::WebSocket { tcp } => {
            let tcp = TcpHost::bind_with(BOX, v4(addr::BOX), seed, tcp).await?;
            let ws = Rc::new(WsClient::new(tcp, client_tls(seed, BOX, ClientResumption::Store(new_client_session_store())), seed));
            Ok(Rc::new(move |target: String| {
                let ws = ws.clone();
                Box::pin(async move { dial_ws(&ws, addr::cloud_door_v4(), ftw_crypto::consts::CLOUD_SERVER_NAME, &target).await })
            }))
        }
    }
}

pub fn v4(ip: std::net::IpAddr) -> std::net::Ipv4Addr {
    match ip {
        std::net::IpAddr::V4(a) => a,
        std::net::IpAddr::V6(_) => unreachable!("the simulated world is IPv4"),
    }
}

/// The box's id at the cloud.
pub const BOX_ID: &str = "box-1";

/// The keys of a run, from its seed.
#[derive(Clone, Debug)]
pub struct Keys {
    pub phone: Keypair,
    pub box_: Keypair,
    pub cloud: Keypair,
}

impl Keys {
    pub fn of(seed: RunSeed) -> Keys {
        Keys {
            phone: Keypair::from_private(seed.key("model.phone.static")),
            box_: Keypair::from_private(seed.key("model.box.static")),
            cloud: Keypair::from_private(seed.key("model.cloud.static")),
        }
    }
}

/// The box's site seed: `model.box.site`; when the plan changes the table (a
/// battery joins), the first of `model.box.site`, `model.box.site.1`, ... whose
/// site starts without a battery, so the change is a change.
pub fn site_seed(seed: RunSeed, table_changes: bool) -> u64 {
    let mut s = seed.sub_seed("model.box.site");
    let mut n = 0;
    while table_changes && ftw_box::site::Site::new(s).has_battery() {
        n += 1;
        assert!(n < 1_000, "some site seed starts without a battery");
        s = seed.sub_seed(&format!("model.box.site.{n}"));
    }
    s
}

/// The box's QUIC uplink dialer with `params`: one session store for the box's life,
/// so every reconnect resumes (0-RTT keys), sending early data as `box_early` says.
/// The session system's box and the table's rig both dial with it.
pub async fn box_quic_dialer(seed: RunSeed, params: &QuicTransportParams, box_early: EarlyData) -> std::io::Result<BoxDialer> {
    let client = client_config_with(seed, BOX, ClientResumption::Store(new_client_session_store()), params);
    let rng = seed.crypto(BOX);
    let ep_cfg = quic_endpoint_config(rng.sub_seed("quic/reset-key"), rng.sub_seed("quic/endpoint"), seeded_cid_factory(rng.sub_seed("quic/cid"), 8));
    let ep = QuicEndpoint::bind(BOX, "0.0.0.0:0".parse().expect("addr"), ep_cfg, None).await?;
    Ok(Rc::new(move |target: String| {
        let (ep, client) = (ep.clone(), client.clone());
        Box::pin(async move { dial_quic_with(&ep, client, addr::cloud_door(), ftw_crypto::consts::CLOUD_SERVER_NAME, &target, box_early).await })
    }))
}
