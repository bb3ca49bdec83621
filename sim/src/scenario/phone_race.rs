//! `phone-race`: the phone's race, memory and demotion end to end (issue 7),
//! over days of simulated time. The phone races for a session every hour,
//! holds it a few seconds and closes it, against the cloud (QUIC and WebSocket
//! doors) with the box behind. The plan brings a transient QUIC failure (by
//! default: UDP blocked on the phone's leg from 0:59 to 3:00) and a move to
//! cellular and back (6:00, 7:00); the run lasts until a day and two hours
//! after the failure ends.

use std::collections::BTreeMap;
use std::time::Duration;

use ftw_phone::Transport;

use super::def::{RunReport, ScenarioDef};
use crate::drive::app::phone::{PhoneApp, SessionRecord};
use crate::drive::system::{build, network_at, phone_app, record_fleet_counters, summary, SessionSummary, Setup};
use crate::kinds;
use crate::law::laws;
use crate::law::laws::should_demote;
use crate::law::reference;
use crate::law::seen::{Seen, Sessions};
use crate::law::Check;
use crate::law_list;
use crate::world::net::fault::Outage;
use crate::world::domain::{Domain, Kind, IMPAIRMENTS};
use crate::world::host::PHONE;
use crate::world::host::{addr, Host};
use crate::world::plan::kind;
use crate::world::plan::{FaultKind, FaultPlan, TimedFault};
use crate::world::switch::Switch;
use crate::world::time;
use crate::world::topology::RunSpec;

const HOUR_MS: u64 = 3_600_000;
const DAY_MS: u64 = 24 * HOUR_MS;
/// The phone races this long after each hour starts.
const RACE_AT_MS: u64 = 10_000;
/// How long each session is held.
const HOLD: Duration = Duration::from_secs(5);
/// SPEC section 4: "WebSocket starts 250 ms later" (section 6: race lead 250 ms).
/// The SPEC's number, not the phone model's constant: the laws judge the model.
const LEAD_MS: u64 = 250;
/// SPEC section 4: a demotion lasts "for a day" (section 6: demotion 24 h).
const DEMOTION_MS: u64 = DAY_MS;

/// The default faults when the plan has none.
pub fn default_faults() -> Vec<TimedFault> {
    vec![
        TimedFault { at_ms: HOUR_MS - 60_000, fault: FaultKind::UdpBlocked(kind::UdpBlocked { host: Host::Phone, for_ms: 2 * HOUR_MS + 60_000 }) },
        TimedFault { at_ms: 6 * HOUR_MS, fault: FaultKind::SwitchNetwork(kind::SwitchNetwork { host: Host::Phone }) },
        TimedFault { at_ms: 7 * HOUR_MS, fault: FaultKind::SwitchNetwork(kind::SwitchNetwork { host: Host::Phone }) },
    ]
}

/// The phone's UDP outages in the plan: (from, until) in ms, and whether they refuse.
fn udp_outages(plan: &FaultPlan) -> Vec<(u64, u64, bool)> {
    plan.faults
        .iter()
        .filter(|f| f.fault.host() == Host::Phone)
        .filter_map(|f| {
            let refuses = match f.fault.def().outage()?.0 {
                Outage::UdpBlocked | Outage::Blackhole => false,
                Outage::UdpRefused => true,
            };
            Some((f.at_ms, f.at_ms + f.fault.def().lasts_ms(), refuses))
        })
        .collect()
}

pub fn run(spec: &RunSpec) -> RunReport {
    run_with(spec).0
}

pub fn run_with(spec: &RunSpec) -> (RunReport, SessionSummary) {
    let mut spec = spec.clone();
    if spec.plan.faults.is_empty() {
        spec.plan.faults = default_faults();
    }
    let outage_end_ms = udp_outages(&spec.plan).iter().map(|o| o.1).max().unwrap_or(0);
    let length_ms = (outage_end_ms + DAY_MS + 2 * HOUR_MS).div_ceil(HOUR_MS) * HOUR_MS;
    let length = Duration::from_millis(length_ms);
    let (outcome, s) = hourly_run(&spec, &Setup::default(), length, None, 0);
    let checks = vec![
        ws_after_250ms_without_udp(&s, &spec.plan),
        quic_back_within_a_day(&s, &spec.plan),
        memory_per_network(&s, length_ms),
        ws_at_once_when_refused(&s, &spec.plan, false),
    ];
    (RunReport::new(outcome, checks).with(seen_by_races(&s)), s)
}

/// The phone of the hourly scenarios: an optional first session at RACE_AT_MS
/// held `first_hold`, then a race every hour from `from_hour` until `length`;
/// the run's outcome and what the hosts left.
fn hourly_run(spec: &RunSpec, setup: &Setup, length: Duration, first_hold: Option<Duration>, from_hour: u64) -> (crate::world::RunOutcome, SessionSummary) {
    let (mut world, shared) = build(spec, setup, length + Duration::from_secs(600));
    let sh = shared.clone();
    let sp = spec.clone();
    world.client(PHONE, addr::PHONE, async move {
        let mut phone = phone_app(&sp).await?;
        sh.borrow_mut().phone = Some(phone.log.clone());
        if let Some(hold) = first_hold {
            time::sleep_until(Duration::from_millis(RACE_AT_MS)).await;
            if phone.connect(network_at(&sp.plan, time::now())).await {
                phone.run_until(time::now() + hold).await;
                phone.close();
            }
        }
        hourly_races(&mut phone, &sp.plan, from_hour, length).await;
        sh.borrow_mut().memory = Some(phone.race().with_model(|m| m.memory().clone()));
        time::sleep(Duration::from_millis(300)).await;
        record_fleet_counters(&sh);
        Ok(())
    });
    let outcome = world.run();
    (outcome, summary(spec, &shared))
}

/// From hour `from_hour` until `length`: race RACE_AT_MS into each hour on the
/// network the plan has the phone on, hold the session HOLD, close it.
async fn hourly_races(phone: &mut PhoneApp, plan: &FaultPlan, from_hour: u64, length: Duration) {
    let mut hour = from_hour;
    loop {
        let at = Duration::from_millis(hour * HOUR_MS + RACE_AT_MS);
        if at >= length {
            break;
        }
        time::sleep_until(at).await;
        if phone.connect(network_at(plan, time::now())).await {
            phone.run_until(time::now() + HOLD).await;
            phone.close();
        }
        hour += 1;
    }
}

/// How long `demotion-expiry` holds its first session: through the plan's path
/// drop (drawn: UDP blocked at 12 to 20 s for 31 to 60 s, so QUIC's idle timeout
/// ends it within the 60 s demotion window) and the WebSocket session after it.
const DEMOTION_FIRST_HOLD: Duration = Duration::from_secs(150);
/// `demotion-expiry` runs this long: the demotion (about a minute in), a day,
/// and two more hourly races after it.
const DEMOTION_RUN_MS: u64 = DAY_MS + 3 * HOUR_MS;

/// The default faults of `demotion-expiry` when the plan has none: UDP blocked
/// on the phone's leg at 20 s for 40 s, a path drop a few seconds after the
/// first message.
pub fn demotion_default_faults() -> Vec<TimedFault> {
    vec![TimedFault { at_ms: 20_000, fault: FaultKind::UdpBlocked(kind::UdpBlocked { host: Host::Phone, for_ms: 40_000 }) }]
}

/// `demotion-expiry` (property 5): the phone's first session goes over QUIC and
/// its path drops, which demotes QUIC on that network; the phone then races
/// every hour for a day and three hours. The WebSocket goes first for the day,
/// and QUIC goes first again after it (within one reconnect: the first race
/// after the day still has the WebSocket remembered, and its learning probe
/// records QUIC).
pub fn run_demotion_expiry(spec: &RunSpec) -> RunReport {
    let mut spec = spec.clone();
    if spec.plan.faults.is_empty() {
        spec.plan.faults = demotion_default_faults();
    }
    let length = Duration::from_millis(DEMOTION_RUN_MS);
    let (outcome, s) = hourly_run(&spec, &Setup::default(), length, Some(DEMOTION_FIRST_HOLD), 1);
    let checks = vec![quic_first_after_demotion(&s, &spec.plan, true)];
    RunReport::new(outcome, checks).with(seen_by_races(&s))
}

/// After a demotion's day is over, QUIC goes first again on that network within
/// one reconnect: of the first two races there after `ended + DEMOTION_MS`, one
/// sends QUIC first. A demotion whose races a day later fall in a UDP outage is
/// not judged; one without two such races is not judged either, unless
/// `runs_past_every_demotion` (the scenario lasts long enough for it).
pub fn quic_first_after_demotion(s: &SessionSummary, plan: &FaultPlan, runs_past_every_demotion: bool) -> Check {
    let outages = udp_outages(plan);
    let in_outage = |t: u64| outages.iter().any(|(a, b, _)| *a <= t && t < *b);
    let (mut demotions, mut judged, mut bad) = (0, 0, Vec::new());
    for d in s.phone.sessions.iter().filter(|r| should_demote(r)) {
        demotions += 1;
        let ended = d.ended_at_ms.expect("a session that should demote has ended");
        let after: Vec<_> = s.phone.sessions.iter().filter(|r| r.network == d.network && r.race_start_ms >= ended + DEMOTION_MS).take(2).collect();
        if after.iter().any(|r| in_outage(r.race_start_ms)) {
            continue;
        }
        if after.len() < 2 {
            if runs_past_every_demotion {
                bad.push(format!("session #{} demoted QUIC at {ended} ms; {} races on its network a day later", d.no, after.len()));
            }
            continue;
        }
        judged += 1;
        if !after.iter().any(|r| r.first == Transport::Quic) {
            bad.push(format!(
                "session #{} demoted QUIC at {ended} ms; the races at {} and {} ms went {} and {} first",
                d.no,
                after[0].race_start_ms,
                after[1].race_start_ms,
                after[0].first.name(),
                after[1].first.name()
            ));
        }
    }
    Check {
        law: &laws::QUIC_FIRST_AFTER_DEMOTION,
        ok: bad.is_empty(),
        detail: format!("{demotions} sessions should demote QUIC, {judged} judged a day later; {}", bad.first().cloned().unwrap_or_default()),
    }
}

/// `quic-refused` (property 7's third clause): UDP is refused on the phone's
/// leg for the whole run (by default; ICMP port unreachable), so every QUIC
/// dial is refused at once; the phone races at 10 s, 1 h and 2 h. The first race
/// starts with QUIC (nothing remembered) and must dial the WebSocket at once;
/// later ones go WebSocket first.
pub fn run_quic_refused(spec: &RunSpec) -> RunReport {
    let length = Duration::from_millis(2 * HOUR_MS + RACE_AT_MS + 1);
    let mut spec = spec.clone();
    if spec.plan.faults.is_empty() {
        spec.plan.faults =
            vec![TimedFault { at_ms: 0, fault: FaultKind::UdpRefused(kind::UdpRefused { host: Host::Phone, for_ms: length.as_millis() as u64 + 60_000 }) }];
    }
    let (outcome, s) = hourly_run(&spec, &Setup::default(), length, None, 0);
    let checks = vec![ws_at_once_when_refused(&s, &spec.plan, true)];
    RunReport::new(outcome, checks).with(seen_by_races(&s))
}

/// With QUIC refused, a race that starts with QUIC dials the WebSocket at once
/// (SPEC section 4): it opens within its own three round trips on the phone's
/// leg (TCP, TLS 1.3, the upgrade: six one-way delays), well before the lead
/// plus those. Judged are races starting QUIC first while the leg refuses UDP
/// (the first open window of the plan refuses), on legs without jitter or
/// loss, where the open time is exact; with `require`, at least one is judged.
pub fn ws_at_once_when_refused(s: &SessionSummary, plan: &FaultPlan, require: bool) -> Check {
    let outages = udp_outages(plan);
    let first_open = |t: u64| outages.iter().position(|(a, b, _)| *a <= t && t < *b);
    let refused = |t: u64| first_open(t).is_some_and(|i| outages[i].2);
    let exact = plan.phone.jitter_ms == 0 && plan.phone.loss_pct == 0.0;
    let ws_open_ms = 6 * plan.phone.one_way_ms;
    let (mut judged, mut bad) = (0, Vec::new());
    for r in s.phone.sessions.iter().filter(|r| exact && r.first == Transport::Quic && refused(r.race_start_ms)) {
        judged += 1;
        let after = r.link_at_ms - r.race_start_ms;
        if r.transport != Transport::WebSocket || after >= ws_open_ms + LEAD_MS / 2 {
            bad.push(format!(
                "race at {} ms: {} open {after} ms after the start (the WebSocket's own handshake is {ws_open_ms} ms)",
                r.race_start_ms,
                r.transport.name()
            ));
        }
    }
    Check {
        law: &laws::WS_AT_ONCE_WHEN_REFUSED,
        ok: bad.is_empty() && (judged > 0 || !require || !exact),
        detail: format!("{judged} QUIC-first races with QUIC refused; {}", bad.first().cloned().unwrap_or_default()),
    }
}

/// What the phone's races saw for the laws they share with other scenarios:
/// its sessions, and the most it held at once.
pub fn seen_by_races(s: &SessionSummary) -> Seen {
    let sessions = Sessions { sessions: s.phone.sessions.len(), at_once_max: s.phone.concurrent_max as usize, about: String::new() };
    Seen { sessions: Some(sessions), phone_sessions: Some(s.phone.sessions.clone()), ..Seen::default() }
}

/// With UDP silently blocked, a race that starts with QUIC opens the WebSocket
/// 250 ms after its start (not before), and that happens once per network per
/// day (after it the memory sends the WebSocket first).
pub fn ws_after_250ms_without_udp(s: &SessionSummary, plan: &FaultPlan) -> Check {
    let outages = udp_outages(plan);
    // What the phone's leg does at `t` is the first window of the plan open then
    // (the chain holds them in plan order, see `LinkPlan::chain`): a refusal
    // overlapping a silent block refuses if it comes first
    // (corpus/phone-race-refused-overlaps-blocked.toml).
    let first_open = |t: u64| outages.iter().position(|(a, b, _)| *a <= t && t < *b);
    // A race is judged if UDP stayed blocked from its start until its link
    // opened: an outage that ends first gives QUIC its chance back (a
    // retransmitted Initial may win), and the rule speaks of a race without UDP
    // (corpus/phone-race-outage-ends-mid-race.toml: quic-go's 200 ms first probe
    // reached the cloud 100 ms after the block ended, before the lead fired).
    let blocked = |r: &SessionRecord| first_open(r.race_start_ms).is_some_and(|i| !outages[i].2 && outages[i].1 >= r.link_at_ms);
    // Per network and outage: QUIC may be learned back between two outages, so
    // each outage may start one race QUIC first on each network.
    let outage_of = |t: u64| first_open(t).filter(|&i| !outages[i].2).unwrap_or(usize::MAX) as u64;
    let mut late_per_day: BTreeMap<(String, u64), u32> = BTreeMap::new();
    let mut bad = Vec::new();
    let mut seen = 0;
    for r in s.phone.sessions.iter().filter(|r| blocked(r) && r.transport == Transport::WebSocket) {
        seen += 1;
        if r.first == Transport::Quic {
            let after = r.link_at_ms - r.race_start_ms;
            if after < LEAD_MS {
                bad.push(format!("race at {} ms: WebSocket open {after} ms after the start", r.race_start_ms));
            }
            *late_per_day.entry((r.network.clone(), outage_of(r.race_start_ms))).or_default() += 1;
        }
    }
    let repeats: Vec<_> = late_per_day.iter().filter(|(_, n)| **n > 1).collect();
    // Every session raced while UDP was blocked went over the WebSocket (an
    // outage between two hourly races holds no race).
    let blocked_sessions = s.phone.sessions.iter().filter(|r| blocked(r)).count();
    Check {
        law: &laws::WS_AFTER_250MS_WITHOUT_UDP,
        ok: bad.is_empty() && repeats.is_empty() && seen == blocked_sessions,
        detail: format!(
            "{seen} WebSocket sessions while UDP was blocked; QUIC-first races per network and outage: {late_per_day:?}; {}",
            bad.first().cloned().unwrap_or_default()
        ),
    }
}

/// After a transient QUIC failure ends, QUIC carries a session again, on the
/// network the failure hit, within a day and one reconnect.
pub fn quic_back_within_a_day(s: &SessionSummary, plan: &FaultPlan) -> Check {
    let Some(end) = udp_outages(plan).iter().map(|o| o.1).max() else {
        return Check { law: &laws::QUIC_BACK_WITHIN_A_DAY, ok: true, detail: "no QUIC failure in the plan".into() };
    };
    // The networks the failure hit: those the phone raced on during it.
    let outages = udp_outages(plan);
    let hit: Vec<&String> =
        s.phone.sessions.iter().filter(|r| outages.iter().any(|(a, b, _)| *a <= r.race_start_ms && r.race_start_ms < *b)).map(|r| &r.network).collect();
    if hit.is_empty() {
        return Check { law: &laws::QUIC_BACK_WITHIN_A_DAY, ok: true, detail: format!("the QUIC failure (over at {end} ms) hit no race") };
    }
    let back = s.phone.sessions.iter().find(|r| r.transport == Transport::Quic && r.race_start_ms >= end && hit.contains(&&r.network)).map(|r| r.race_start_ms);
    // The law does not speak of a phone that left the networks the failure hit
    // for good before QUIC was surely due (`end + DAY`): its last race is
    // elsewhere and it never raced on a hit network that late, so it may not have
    // had the reconnect QUIC needs (corpus/phone-race-moved-away-before-quic-due.toml).
    let left = s.phone.sessions.last().is_some_and(|r| !hit.contains(&&r.network))
        && !s.phone.sessions.iter().any(|r| hit.contains(&&r.network) && r.race_start_ms >= end + DAY_MS);
    let due = !left;
    Check {
        law: &laws::QUIC_BACK_WITHIN_A_DAY,
        ok: back.is_some_and(|t| t <= end + DAY_MS + HOUR_MS) || (back.is_none() && !due),
        detail: format!(
            "QUIC failure over at {end} ms; QUIC back at {back:?} ms (bound {} ms){}",
            end + DAY_MS + HOUR_MS,
            if due { "" } else { "; the phone left the networks it hit before QUIC was due" }
        ),
    }
}

/// A phone that moves networks keeps a memory entry for each network it used in the last day.
pub fn memory_per_network(s: &SessionSummary, end_ms: u64) -> Check {
    let held: Vec<String> = s.memory.as_ref().map(|m| m.networks().map(|n| n.to_string()).collect()).unwrap_or_default();
    let mut used: Vec<String> = s.phone.sessions.iter().filter(|r| r.race_start_ms + DAY_MS > end_ms + HOUR_MS).map(|r| r.network.clone()).collect();
    used.sort();
    used.dedup();
    let missing: Vec<&String> = used.iter().filter(|n| !held.contains(n)).collect();
    Check {
        law: &laws::MEMORY_PER_NETWORK,
        ok: missing.is_empty() && !used.is_empty(),
        detail: format!("networks used in the last day {used:?}, held {held:?}"),
    }
}

/// `phone-race`.
pub const PHONE_RACE: ScenarioDef = ScenarioDef {
    name: "phone-race",
    about: "the phone races every hour for 29 h: UDP blocked for two hours, a move to cellular and back; race, memory and demotion end to end",
    // Hourly races over 29 simulated hours (2-3 s of wall time a case): UDP
    // blocked or refused for up to three hours in the first six, moves, and a
    // phone leg of the default 20 ms (about half the cases: the WebSocket opens
    // within the 250 ms lead, which shows ws-first-cancels-probe) or of 44 to
    // 60 ms each way, where the WebSocket's three round trips outlast the lead
    // but QUIC's learning dial (lead + one round trip) is still under way when
    // it opens, which shows losing-dial-cancelled; few cases.
    domain: Domain {
        kinds: &[Kind::Delay, Kind::UdpBlocked, Kind::UdpRefused, Kind::SwitchNetwork],
        always: &[Kind::Delay, Kind::UdpBlocked],
        horizon_ms: 6 * 3_600_000,
        faults_from_ms: 0,
        outage_max_ms: 3 * 3_600_000,
        one_way_min_ms: 44,
        one_way_max_ms: 60,
        faults_max: 3,
        hosts: &[Host::Phone],
        test_cases: 5,
        fleet: true,
        fleet_routing: true,
        stand_in: None,
    },
    laws: law_list![
        &[
            &laws::NEVER_TWO_SESSIONS,
            &laws::WS_AFTER_250MS_WITHOUT_UDP,
            &laws::QUIC_BACK_WITHIN_A_DAY,
            &laws::MEMORY_PER_NETWORK,
            &laws::WS_AT_ONCE_WHEN_REFUSED
        ],
        reference::SYSTEM,
        reference::NETWORK,
        &[&reference::tcp::TCP.law, &reference::wire::WIRE.law]
    ],
    catches: &[Switch::WsFirstCancelsProbe, Switch::LosingDialCancelled],
    run,
};

/// `demotion-expiry`.
pub const DEMOTION_EXPIRY: ScenarioDef = ScenarioDef {
    name: "demotion-expiry",
    about: "the phone's QUIC path drops a minute in (demoted), then it races every hour for 27 h: the WebSocket first for a day, QUIC first after it",
    // Property 5 end to end: a path drop starting 2 to 10 s after the first
    // message at 10.2 s. QUIC notices it 30 to 45 s later (idle timeout after
    // the last keepalive), so it ends within the 60 s demotion window (a drop
    // at 25 s ended after 60 s: corpus/demotion-expiry-drop-past-window.toml).
    // The link's impairments and rebinds around it, no move (the law is per
    // network). About 1 s of wall time a case.
    domain: Domain {
        kinds: kinds![IMPAIRMENTS, &[Kind::Mtu, Kind::Rebind, Kind::PathDrop]],
        always: &[Kind::PathDrop],
        horizon_ms: 20_000,
        faults_from_ms: 12_000,
        faults_max: 3,
        test_cases: 6,
        fleet: true,
        fleet_routing: true,
        ..Domain::DEFAULT
    },
    laws: law_list![
        &[&laws::NEVER_TWO_SESSIONS, &laws::DEMOTED_GOES_WS_FIRST, &laws::QUIC_FIRST_AFTER_DEMOTION],
        reference::SYSTEM,
        reference::NETWORK,
        &[&reference::tcp::TCP.law, &reference::wire::WIRE.law]
    ],
    catches: &[Switch::WsFirstCancelsProbe],
    run: run_demotion_expiry,
};

/// `quic-refused`.
pub const QUIC_REFUSED: ScenarioDef = ScenarioDef {
    name: "quic-refused",
    about: "UDP refused on the phone's leg; the phone races at 10 s, 1 h and 2 h: the WebSocket at once, then remembered",
    // Three races against a cloud without a QUIC door: the phone's leg delay
    // only (the law times the WebSocket's handshake exactly).
    domain: Domain { kinds: &[Kind::Delay], one_way_min_ms: 1, one_way_max_ms: 120, hosts: &[Host::Phone], test_cases: 8, ..Domain::DEFAULT },
    laws: law_list![
        &[&laws::NEVER_TWO_SESSIONS, &laws::WS_AT_ONCE_WHEN_REFUSED],
        reference::SYSTEM,
        reference::NETWORK,
        &[&reference::tcp::TCP.law, &reference::wire::WIRE.law]
    ],
    catches: &[Switch::RefusedWaitsForLead],
    run: run_quic_refused,
};
