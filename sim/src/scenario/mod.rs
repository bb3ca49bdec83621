//! Scenarios: whole systems built in a world, run from a seed, a fault plan and
//! a set of bug switches, ending in checks that name the law they test.

pub mod plan;
pub mod idle_link;
pub mod fleet_migrate;
pub mod quic_echo;
pub mod ws_echo;
pub mod session;
pub mod fleet_flood;
pub mod phone_race;

use std::collections::BTreeSet;
use std::net::{IpAddr, Ipv4Addr, SocketAddr};
use std::sync::Arc;
use std::time::Duration;

use ftw_crypto::{CloudCerts, SimClock};
use rustls::pki_types::UnixTime;

use crate::net::NetAction;
use crate::seed::RunSeed;
use crate::world::{RunOutcome, World, WorldConfig};
pub use plan::{FaultKind, FaultPlan, FleetPlan, FleetRouting, LinkPlan, TimedFault};

/// Addresses of the simulated world (documentation ranges of RFC 5737 outside,
/// RFC 1918 inside).
pub mod addr {
    use super::*;
    pub const CLOUD: IpAddr = IpAddr::V4(Ipv4Addr::new(203, 0, 113, 10));
    pub const PHONE: IpAddr = IpAddr::V4(Ipv4Addr::new(10, 0, 1, 2));
    pub const BOX: IpAddr = IpAddr::V4(Ipv4Addr::new(10, 0, 2, 2));
    pub const NAT_WIFI: IpAddr = IpAddr::V4(Ipv4Addr::new(192, 0, 2, 1));
    pub const NAT_CELL: IpAddr = IpAddr::V4(Ipv4Addr::new(198, 51, 100, 1));
    pub const NAT_HOME: IpAddr = IpAddr::V4(Ipv4Addr::new(192, 0, 2, 2));
    /// The cloud's QUIC door (UDP) and WebSocket door (TCP) share the URL's port.
    pub const CLOUD_PORT: u16 = 443;
    pub fn cloud_door() -> SocketAddr {
        SocketAddr::new(CLOUD, CLOUD_PORT)
    }
}

/// NAT mapping idle timeout (SPEC section 6: 30 s).
pub const NAT_IDLE_TIMEOUT: Duration = Duration::from_secs(30);

/// One known bug, kept as a switch (SPEC section 7).
pub struct SwitchDef {
    pub name: &'static str,
    pub about: &'static str,
}

/// Every property a scenario checks: (name, the law).
pub const PROPERTIES: &[(&str, &str)] = &[
    ("echo-in-order", "every stream message comes back once, in order"),
    ("one-connection", "the cloud accepts one connection: faults never force a new handshake"),
    ("datagrams-echoed", "without loss every datagram comes back; with loss never more than were sent"),
    ("clean-close", "the cloud sees the phone's close code 1000"),
    ("keepalive-holds", "a 15 s keepalive holds a 30 s NAT mapping: an idle connection lives for a day"),
    ("ws-datagrams-as-messages", "over the WebSocket every datagram goes as a message and comes back, in order, even under loss"),
    ("same-connection", "through rebinds and network moves behind the reactor fleet, the same QUIC connection carries on: one handshake, every echo"),
    ("long-headers-stay", "a long header is read by the reactor the kernel chose: never forwarded by its client-chosen byte 0"),
    ("owner-reads-what-was-sent", "the reactor that owns a connection reads the bytes that arrived, never a reused buffer"),
    ("one-pin-per-move", "one pin claim per address change, not one per path report"),
    ("forwarding-stops-after-pin", "forwarding happens only in the moments after a move: once the owner pins the new address it stops"),
    ("kernel-filter-forwards-nothing", "with the kernel filter nothing is forwarded and nothing pinned"),
    ("still-fleet-quiet", "a fleet whose clients never move forwards none of their packets and pins nothing (strays: stateless resets)"),
    ("close-code-arrives", "the service's close code (4408) arrives at the box as the QUIC application error code"),
    ("box-resumes-0rtt", "the box reconnects with 0-RTT and its first flight is answered in one round trip"),
    ("phone-full-handshake", "the phone never resumes: a full handshake, its first message answered after two round trips"),
    ("values-are-sent-values", "every value the phone shows is one the box sent, with its liveSeq"),
    ("cmd-round-trip", "a command gets cmd.ack then cmd.result, both echoing its id"),
    ("live-gap-not-value", "a lost live shows as a gap, never as a value"),
    ("blind-relay", "the cloud never sees the session's plaintext"),
    ("streams-after-heal", "after the plan's faults heal, the phone streams again within 75 s"),
    ("unpaired-4403", "a phone the cloud has not paired gets 4403"),
    ("no-box-bytes", "an unpaired phone gets no byte of box data and the box opens no session"),
    ("sessions-off-1013", "with sessions off the door finishes the handshake and closes with 1013"),
    ("service-close-keeps-quic", "a close the service sent (4403, 1013) does not demote QUIC"),
    ("replayed-datagram-dropped", "a replay that came as a datagram is dropped: the session goes on"),
    ("stream-replay-ends-session", "a replay on a stream ends the session: it is never only dropped"),
    ("no-false-replay", "a burst overtaking a control message never causes a false replay: every replay the carrier saw is one the relay made"),
    ("late-live-table-kept", "a late live's newer table is kept and the newer values stay (Freshness case 17); the view never goes back"),
    ("demoted-goes-ws-first", "after a QUIC path drop within a minute of the first message (or before it) the WebSocket goes first on that network for a day"),
    ("never-two-sessions", "the phone never holds two sessions at once"),
    ("ws-after-250ms-without-udp", "with UDP blocked the WebSocket opens 250 ms after a QUIC-first start, once per network per day"),
    ("quic-back-within-a-day", "after a transient QUIC failure ends, QUIC carries the session again within a day and one reconnect"),
    ("memory-per-network", "a phone that moves networks keeps a memory entry for each network of the last day"),
    ("quic-first-after-demotion", "a day after a demotion, QUIC goes first again on that network within one reconnect"),
    ("ws-at-once-when-refused", "with QUIC refused, a race that starts with QUIC dials the WebSocket at once: it opens within its own three round trips, not after the lead"),
    ("pins-within-ceiling", "a flood of forged moves never makes a reactor hold more than 512 pins, and reaches that ceiling when more of its connections moved"),
    ("move-recovers-within-pto", "after the phone moves under loss below 10 %, its QUIC session's next message crosses the new path within three PTOs of the new path (RFC 9002, RTT estimator reset) plus the box's cadence and a round trip, from when the cloud first hears the phone there"),
    ("forged-moves-keep-connections", "under forged moves every client's connection carries on: one handshake each, every echo back"),
];

/// Every bug switch, by the name users type.
pub const SWITCHES: &[SwitchDef] = &[
    SwitchDef { name: "ws-first-cancels-probe", about: "WebSocket-first race cancels the QUIC learning probe and refreshes the WebSocket entry (QUIC PR review)" },
    SwitchDef { name: "replay-window-64", about: "replay window of 64 instead of 1024 (S1)" },
    SwitchDef { name: "datagram-replay-ends-session", about: "a replay on a datagram ends the session (S1)" },
    SwitchDef { name: "stream-replay-only-dropped", about: "a replay on a stream is only dropped (S1)" },
    SwitchDef { name: "late-live-table-dropped", about: "a late live's newer table is thrown away (S2)" },
    SwitchDef { name: "every-close-demotes", about: "every close counts toward demotion (B2, S5)" },
    SwitchDef { name: "no-close-demotes", about: "no close counts toward demotion (B2, S5)" },
    SwitchDef { name: "losing-dial-cancelled", about: "a losing QUIC dial is cancelled instead of learning (race note)" },
    SwitchDef { name: "refused-waits-for-lead", about: "a refused QUIC dial leaves the WebSocket waiting for the 250 ms lead (ours, not SPEC section 7: proves ws-at-once-when-refused can fail)" },
    SwitchDef { name: "no-routing", about: "no routing between reactors: unknown short headers dropped as stale (#205)" },
    SwitchDef { name: "forward-long-headers", about: "long headers forwarded by byte 0 (#210)" },
    SwitchDef { name: "claim-per-path-report", about: "pin claimed on every path report instead of from the sweep (pin work)" },
    SwitchDef { name: "forward-reference", about: "forward a reference to the receive buffer instead of a copy (#205)" },
    SwitchDef { name: "mtud-on-unvalidated-path", about: "quinn-proto as upstream: MTU probes to a migrated, not yet validated path overspend its anti-amplification budget (issue 15 section 4; sim/vendor/quinn-proto/PATCH.md)" },
];

/// The bug switches on in a run.
#[derive(Clone, Debug, Default, PartialEq, Eq, PartialOrd, Ord)]
pub struct Switches(pub BTreeSet<String>);

impl Switches {
    /// Parse names, refusing unknown ones with the list of known ones.
    pub fn parse<'a>(names: impl IntoIterator<Item = &'a str>) -> Result<Self, String> {
        let mut set = BTreeSet::new();
        for n in names {
            if !SWITCHES.iter().any(|s| s.name == n) {
                let known: Vec<&str> = SWITCHES.iter().map(|s| s.name).collect();
                return Err(format!("unknown switch {n:?}; known switches: {}", known.join(", ")));
            }
            set.insert(n.to_string());
        }
        Ok(Switches(set))
    }
    pub fn on(&self, name: &str) -> bool {
        debug_assert!(SWITCHES.iter().any(|s| s.name == name), "switch {name} not in the catalogue");
        self.0.contains(name)
    }
}

/// Everything one run depends on.
#[derive(Clone, Debug)]
pub struct RunSpec {
    pub scenario: String,
    pub seed: RunSeed,
    pub switches: Switches,
    pub plan: FaultPlan,
    pub skip_idle: bool,
    pub keep_events: bool,
}

impl RunSpec {
    pub fn new(scenario: &str, seed: RunSeed) -> Self {
        RunSpec { scenario: scenario.into(), seed, switches: Switches::default(), plan: FaultPlan::default(), skip_idle: true, keep_events: true }
    }
}

/// One law checked at the end of a run.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Check {
    pub property: String,
    pub ok: bool,
    pub detail: String,
}

/// A run's outcome and its checks.
#[derive(Debug)]
pub struct RunReport {
    pub outcome: RunOutcome,
    pub checks: Vec<Check>,
}

/// Pass, or the first law that failed.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Verdict {
    Pass,
    Fail { property: String, detail: String },
}

impl RunReport {
    pub fn verdict(&self) -> Verdict {
        if let Err(e) = &self.outcome.result {
            return Verdict::Fail { property: "run".into(), detail: e.clone() };
        }
        match self.checks.iter().find(|c| !c.ok) {
            Some(c) => Verdict::Fail { property: c.property.clone(), detail: c.detail.clone() },
            None => Verdict::Pass,
        }
    }
}

/// A scenario users can name.
pub struct ScenarioDef {
    pub name: &'static str,
    pub about: &'static str,
    pub run: fn(&RunSpec) -> RunReport,
}

/// Every scenario.
pub const SCENARIOS: &[ScenarioDef] = &[
    ScenarioDef {
        name: "quic-echo",
        about: "a phone behind a NAT and the cloud over real QUIC: ten stream echoes and datagrams, through the plan's faults",
        run: quic_echo::run,
    },
    ScenarioDef {
        name: "quic-stream",
        about: "a 90 s streaming session at 1 Hz (stream messages and datagrams), as quic-echo",
        run: quic_echo::run_stream,
    },
    ScenarioDef {
        name: "idle-link",
        about: "a phone and a box each hold a QUIC connection to the cloud for a simulated day: keepalives only",
        run: idle_link::run,
    },
    ScenarioDef {
        name: "ws-echo",
        about: "quic-echo over the WebSocket door (TCP, TLS 1.3, upgrade) through Link: ten echoes and ten datagrams sent as messages",
        run: ws_echo::run,
    },
    ScenarioDef {
        name: "fleet-migrate",
        about: "a phone rebinds and moves Wi-Fi to cellular behind the cloud's 4-reactor QUIC fleet (Forward): the same connection, forwarded then pinned",
        run: fleet_migrate::run,
    },
    ScenarioDef {
        name: "fleet-migrate-kernel-filter",
        about: "fleet-migrate with the KernelFilter routing: the kernel routes by connection id, nothing forwarded",
        run: fleet_migrate::run_kernel_filter,
    },
    ScenarioDef {
        name: "fleet-still",
        about: "a phone and a box that never move, behind the 4-reactor fleet: nothing forwarded, nothing pinned",
        run: fleet_migrate::run_still,
    },
    ScenarioDef {
        name: "fleet-resume",
        about: "the cloud closes the box with 4408; the box reconnects with 0-RTT (answered in one round trip), the phone makes a full handshake",
        run: fleet_migrate::run_resume,
    },
    ScenarioDef {
        name: "session",
        about: "phone, cloud and box end to end: pairing, hello, snapshot, live, a command round trip, background and back, through the plan's faults",
        run: session::run,
    },
    ScenarioDef {
        name: "session-moves",
        about: "session with the phone moving Wi-Fi to cellular and back under loss (and the link's other impairments), tapping at each move: QUIC migrates, the next message comes within the RFC's PTOs (issue 15 section 4)",
        run: session::run_moves,
    },
    ScenarioDef {
        name: "unpaired",
        about: "a phone the cloud has not paired: 4403, no byte of box data",
        run: session::run_unpaired,
    },
    ScenarioDef {
        name: "sessions-off",
        about: "the cloud's sessions are off: the door finishes the handshake and closes with 1013",
        run: session::run_sessions_off,
    },
    ScenarioDef {
        name: "phone-race",
        about: "the phone races every hour for 29 h: UDP blocked for two hours, a move to cellular and back; race, memory and demotion end to end",
        run: phone_race::run,
    },
    ScenarioDef {
        name: "demotion-expiry",
        about: "the phone's QUIC path drops a minute in (demoted), then it races every hour for 27 h: the WebSocket first for a day, QUIC first after it",
        run: phone_race::run_demotion_expiry,
    },
    ScenarioDef {
        name: "quic-refused",
        about: "UDP refused on the phone's leg; the phone races at 10 s, 1 h and 2 h: the WebSocket at once, then remembered",
        run: phone_race::run_quic_refused,
    },
    ScenarioDef {
        name: "fleet-pin-flood",
        about: "600 QUIC clients behind one NAT, one reactor; an on-path attacker copies every datagram from a forged port for 5 s: pins stay within 512, every connection carries on",
        run: fleet_flood::run,
    },
];

/// Find a scenario, or explain which exist.
pub fn find(name: &str) -> Result<&'static ScenarioDef, String> {
    SCENARIOS.iter().find(|s| s.name == name).ok_or_else(|| {
        let known: Vec<&str> = SCENARIOS.iter().map(|s| s.name).collect();
        format!("unknown scenario {name:?}; known scenarios: {}", known.join(", "))
    })
}

/// Run a spec.
pub fn run(spec: &RunSpec) -> Result<RunReport, String> {
    spec.plan.validate()?;
    let def = find(&spec.scenario)?;
    Ok((def.run)(spec))
}

/// The standard topology: cloud; phone behind Wi-Fi (and a cellular NAT it can
/// move to); box behind its home NAT; legs and timed faults from the plan.
pub struct Topology {
    pub wifi: usize,
    pub cell: usize,
    pub home: usize,
}

impl Topology {
    pub fn build(world: &mut World, plan: &FaultPlan) -> Topology {
        let wifi = world.nat("nat-wifi", addr::NAT_WIFI, NAT_IDLE_TIMEOUT);
        let cell = world.nat("nat-cell", addr::NAT_CELL, NAT_IDLE_TIMEOUT);
        let home = world.nat("nat-home", addr::NAT_HOME, NAT_IDLE_TIMEOUT);
        world.behind(addr::PHONE, wifi);
        world.behind(addr::BOX, home);
        world.leg(addr::PHONE, "phone", plan.phone.chain("phone", &plan.faults, true), plan.phone.chain("phone", &plan.faults, false));
        world.leg(addr::BOX, "box", plan.box_.chain("box", &plan.faults, true), plan.box_.chain("box", &plan.faults, false));
        let mut on_cell = false;
        for f in &plan.faults {
            let at = Duration::from_millis(f.at_ms);
            match &f.fault {
                FaultKind::Rebind { host } => {
                    let ip = if host == "phone" { addr::PHONE } else { addr::BOX };
                    world.schedule(at, NetAction::Rebind { host: ip });
                }
                FaultKind::SwitchNetwork { .. } => {
                    on_cell = !on_cell;
                    world.schedule(at, NetAction::Move { host: addr::PHONE, nat: if on_cell { cell } else { wifi } });
                }
                _ => {}
            }
        }
        Topology { wifi, cell, home }
    }
}

/// A world for a spec.
pub fn world_for(spec: &RunSpec, limit: Duration) -> World {
    let mut cfg = WorldConfig::new(spec.seed);
    cfg.skip_idle = spec.skip_idle;
    cfg.keep_events = spec.keep_events;
    cfg.limit = limit;
    let world = World::new(cfg);
    // The bug switch for the vendored quinn-proto's patch (a thread-local: one world a thread at a time).
    quinn_proto::ftw_sim_patch::set_upstream_mtud_on_unvalidated_path(spec.switches.on("mtud-on-unvalidated-path"));
    world
}

/// `host`'s wall clock for rustls and quinn-proto (epoch + elapsed + the host's jumps).
pub fn sim_clock(host: &'static str) -> SimClock {
    SimClock::new(Arc::new(move || UnixTime::since_unix_epoch(crate::time::wall_since_unix(host))))
}

/// The cloud's certificates (fixed seed: identical in every run).
pub fn cloud_certs() -> CloudCerts {
    CloudCerts::generate(ftw_crypto::consts::CERT_SEED_DEFAULT, &[addr::CLOUD])
}

/// The cloud's one QUIC endpoint on the door's port (scenarios without the
/// reactor fleet), its keys and ids from the stream `cloud`.
pub async fn cloud_quic_endpoint(seed: RunSeed) -> std::io::Result<crate::quic::QuicEndpoint> {
    let rng = seed.crypto("cloud");
    let provider = ftw_crypto::crypto_provider(&rng.sub("tls"));
    let server = ftw_crypto::quic_server_config(
        &provider,
        &sim_clock("cloud"),
        &cloud_certs(),
        ftw_crypto::new_server_session_store(),
        rng.sub_seed("quic/token-key"),
        &ftw_crypto::QuicTransportParams::default(),
    );
    let ep_cfg = client_endpoint_config(&rng);
    crate::quic::QuicEndpoint::bind("cloud", SocketAddr::from(([0, 0, 0, 0], addr::CLOUD_PORT)), ep_cfg, Some(server)).await
}

/// A client host's QUIC endpoint on an ephemeral port, and a config for a full
/// handshake (no resumption: the phone's way), from the stream named `host`.
pub async fn client_quic(seed: RunSeed, host: &'static str) -> std::io::Result<(crate::quic::QuicEndpoint, quinn_proto::ClientConfig)> {
    let rng = seed.crypto(host);
    let provider = ftw_crypto::crypto_provider(&rng.sub("tls"));
    let client = ftw_crypto::quic_client_config(
        &provider,
        &sim_clock(host),
        &cloud_certs(),
        ftw_crypto::ClientResumption::Disabled,
        rng.sub_seed("quic/initial-dcid"),
        &ftw_crypto::QuicTransportParams::default(),
    );
    let ep = crate::quic::QuicEndpoint::bind(host, SocketAddr::from(([0, 0, 0, 0], 0)), client_endpoint_config(&rng), None).await?;
    Ok((ep, client))
}

/// An endpoint config whose reset key, RNG and connection ids come from `rng`.
fn client_endpoint_config(rng: &ftw_crypto::SeededRng) -> quinn_proto::EndpointConfig {
    ftw_crypto::quic_endpoint_config(rng.sub_seed("quic/reset-key"), rng.sub_seed("quic/endpoint"), ftw_crypto::seeded_cid_factory(rng.sub_seed("quic/cid"), 8))
}
