//! Builders the scenarios and the table share: the cloud's QUIC endpoint, its
//! reactor fleet's door, and QUIC clients, each keyed from its host's seed stream.

use std::net::SocketAddr;

use ftw_crypto::{crypto_provider, new_server_session_store, quic_endpoint_config, quic_server_config, seeded_cid_factory, QuicTransportParams};
use ftw_fleet::{FleetConfig, Routing};

use crate::drive::fleet::FleetDoor;
use crate::drive::quic::{QuicConn, QuicEndpoint};
use crate::world::host::{addr, cloud_certs, sim_clock, CLOUD};
use crate::world::plan::{FaultPlan, FleetRouting};
use crate::world::seed::RunSeed;
use crate::world::topology::RunSpec;

/// The cloud's one QUIC endpoint on the door's port (scenarios without the
/// reactor fleet), its keys and ids from the stream `cloud`.
pub async fn cloud_quic_endpoint(seed: RunSeed) -> std::io::Result<QuicEndpoint> {
    let rng = seed.crypto(CLOUD);
    let provider = ftw_crypto::crypto_provider(&rng.sub("tls"));
    let server = ftw_crypto::quic_server_config(
        &provider,
        &sim_clock(CLOUD),
        &cloud_certs(),
        ftw_crypto::new_server_session_store(),
        rng.sub_seed("quic/token-key"),
        &ftw_crypto::QuicTransportParams::default(),
    );
    let ep_cfg = endpoint_config(&rng);
    QuicEndpoint::bind(CLOUD, SocketAddr::from(([0, 0, 0, 0], addr::CLOUD_PORT)), ep_cfg, Some(server)).await
}

/// A QUIC client config for a full handshake (no resumption: the phone's way),
/// its keys from the stream named `host`.
pub fn client_config(seed: RunSeed, host: &'static str) -> quinn_proto::ClientConfig {
    client_config_with(seed, host, ftw_crypto::ClientResumption::Disabled, &QuicTransportParams::default())
}

/// A client host's QUIC client config: its TLS from the host's seeded crypto,
/// trusting the cloud's certificates, with `resumption` and `params`.
pub fn client_config_with(
    seed: RunSeed,
    host: &'static str,
    resumption: ftw_crypto::ClientResumption,
    params: &QuicTransportParams,
) -> quinn_proto::ClientConfig {
    let rng = seed.crypto(host);
    let provider = crypto_provider(&rng.sub("tls"));
    ftw_crypto::quic_client_config(&provider, &sim_clock(host), &cloud_certs(), resumption, rng.sub_seed("quic/initial-dcid"), params)
}

/// A client host's QUIC endpoint on an ephemeral port, and [`client_config`].
pub async fn client_quic(seed: RunSeed, host: &'static str) -> std::io::Result<(QuicEndpoint, quinn_proto::ClientConfig)> {
    let ep = QuicEndpoint::bind(host, SocketAddr::from(([0, 0, 0, 0], 0)), endpoint_config(&seed.crypto(host)), None).await?;
    Ok((ep, client_config(seed, host)))
}

/// An endpoint config whose reset key, RNG and connection ids come from `rng`.
pub fn endpoint_config(rng: &ftw_crypto::SeededRng) -> quinn_proto::EndpointConfig {
    ftw_crypto::quic_endpoint_config(rng.sub_seed("quic/reset-key"), rng.sub_seed("quic/endpoint"), ftw_crypto::seeded_cid_factory(rng.sub_seed("quic/cid"), 8))
}

/// The target fleet scenarios' clients open.
pub const FLEET_TARGET: &str = "/app?box=fleet";

/// How long past its last send and the plan's outages a fleet scenario's client
/// waits for its echoes: five doublings of a PTO of about 1.3 s (430 ms round
/// trips) and more (`fleet-*`, `fleet-pin-flood`).
pub const FLEET_CLIENT_PATIENCE: std::time::Duration = std::time::Duration::from_secs(120);

/// How a fleet run is set up (the scenarios are presets of it).
#[derive(Clone, Debug)]
pub struct FleetRun {
    pub routing: Routing,
    pub reactor_count: usize,
    /// Apply the default moves when the plan has no faults.
    pub default_moves: bool,
    /// Also run a box that never moves.
    pub with_box: bool,
    /// The pin ceiling per reactor (SPEC: 512).
    pub pins_per_reactor_max: usize,
}

impl Default for FleetRun {
    fn default() -> Self {
        FleetRun {
            routing: Routing::Forward,
            reactor_count: ftw_fleet::consts::REACTOR_COUNT_DEFAULT,
            default_moves: true,
            with_box: false,
            pins_per_reactor_max: ftw_fleet::consts::PINS_PER_REACTOR_MAX,
        }
    }
}

impl FleetRun {
    /// This run with the plan's fleet shape, if it has one.
    pub fn shaped_by(&self, plan: &FaultPlan) -> FleetRun {
        let mut r = self.clone();
        if let Some(f) = &plan.fleet {
            r.reactor_count = f.reactors;
            r.routing = match f.routing {
                Some(FleetRouting::Forward) => Routing::Forward,
                Some(FleetRouting::KernelFilter) => Routing::KernelFilter,
                None => r.routing,
            };
        }
        r
    }
}

pub fn fleet_config(seed: RunSeed, spec: &RunSpec, run: &FleetRun) -> FleetConfig {
    let salt = seed.crypto(CLOUD).sub_seed("fleet/hash-salt");
    FleetConfig {
        reactor_count: run.reactor_count,
        routing: run.routing,
        bugs: spec.switches.fleet(),
        hash_salt: u64::from_le_bytes(salt[..8].try_into().expect("8 bytes")),
        pins_per_reactor_max: run.pins_per_reactor_max,
        ..FleetConfig::default()
    }
}

/// Start the cloud's door on the current host (`cloud`).
pub async fn cloud_door(seed: RunSeed, cfg: FleetConfig) -> std::io::Result<FleetDoor> {
    cloud_door_with(seed, cfg, &QuicTransportParams::default(), new_server_session_store()).await
}

/// The cloud's one QUIC endpoint serving every connection it accepts, for the
/// echo scenarios: `serve` is called with each connection, and the future it
/// returns runs as a task of its own. Never returns but with the bind error.
pub async fn serve_quic<F, Fut>(seed: RunSeed, serve: F) -> turmoil::Result
where
    F: Fn(QuicConn) -> Fut,
    Fut: std::future::Future<Output = ()> + 'static,
{
    let ep = cloud_quic_endpoint(seed).await?;
    loop {
        let conn = ep.accept().await;
        tokio::task::spawn_local(serve(conn));
    }
}

/// The cloud's fleet door serving every connection it accepts, for the fleet
/// scenarios: `on_door` sees the door once it is bound; `serve` is called with each
/// connection and the reactor that accepted it, and the future it returns runs as
/// a task of its own. Never returns but with the door's bind error.
pub async fn serve_fleet<F, Fut>(seed: RunSeed, cfg: FleetConfig, on_door: impl FnOnce(&FleetDoor), serve: F) -> turmoil::Result
where
    F: Fn(usize, QuicConn) -> Fut,
    Fut: std::future::Future<Output = ()> + 'static,
{
    let door = cloud_door(seed, cfg).await?;
    on_door(&door);
    loop {
        let (r, conn) = door.accept().await;
        tokio::task::spawn_local(serve(r, conn));
    }
}

/// The cloud's door with the given QUIC transport parameters (the table's rig) and
/// TLS session store (one the plan's `cloud_restart` can make the cloud lose).
pub async fn cloud_door_with(
    seed: RunSeed,
    cfg: FleetConfig,
    params: &QuicTransportParams,
    sessions: std::sync::Arc<dyn rustls::server::StoresServerSessions>,
) -> std::io::Result<FleetDoor> {
    let rng = seed.crypto(CLOUD);
    let provider = crypto_provider(&rng.sub("tls"));
    let server = quic_server_config(&provider, &sim_clock(CLOUD), &cloud_certs(), sessions, rng.sub_seed("quic/token-key"), params);
    let reset = rng.sub_seed("quic/reset-key");
    FleetDoor::bind(
        CLOUD,
        std::net::SocketAddr::from(([0, 0, 0, 0], addr::CLOUD_PORT)),
        cfg,
        rng.sub_seed("quic/cid"),
        |r, factory| quic_endpoint_config(reset, rng.sub_seed(&format!("quic/endpoint/{r}")), factory),
        server,
    )
    .await
}

pub fn client_endpoint_config(seed: RunSeed, host: &str, socket_no: u32) -> quinn_proto::EndpointConfig {
    let rng = seed.crypto(host).sub(&format!("socket/{socket_no}"));
    quic_endpoint_config(rng.sub_seed("quic/reset-key"), rng.sub_seed("quic/endpoint"), seeded_cid_factory(rng.sub_seed("quic/cid"), 8))
}
