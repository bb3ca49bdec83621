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

use super::session::{build, network_at, phone_app, summary, Setup, SessionSummary};
use super::{addr, Check, FaultKind, FaultPlan, RunReport, RunSpec, TimedFault};
use crate::time;

const HOUR_MS: u64 = 3_600_000;
const DAY_MS: u64 = 24 * HOUR_MS;
/// The phone races this long after each hour starts.
const RACE_AT_MS: u64 = 10_000;
/// How long each session is held.
const HOLD: Duration = Duration::from_secs(5);
/// Race lead (SPEC section 6).
const LEAD_MS: u64 = ftw_phone::consts::LEAD_MS;

/// The default faults when the plan has none.
pub fn default_faults() -> Vec<TimedFault> {
    vec![
        TimedFault { at_ms: HOUR_MS - 60_000, fault: FaultKind::UdpBlocked { host: "phone".into(), for_ms: 2 * HOUR_MS + 60_000 } },
        TimedFault { at_ms: 6 * HOUR_MS, fault: FaultKind::SwitchNetwork { host: "phone".into() } },
        TimedFault { at_ms: 7 * HOUR_MS, fault: FaultKind::SwitchNetwork { host: "phone".into() } },
    ]
}

/// The phone's UDP outages in the plan: (from, until) in ms, and whether they refuse.
fn udp_outages(plan: &FaultPlan) -> Vec<(u64, u64, bool)> {
    plan.faults
        .iter()
        .filter_map(|f| match &f.fault {
            FaultKind::UdpBlocked { host, for_ms } | FaultKind::Blackhole { host, for_ms } if host == "phone" => Some((f.at_ms, f.at_ms + for_ms, false)),
            FaultKind::UdpRefused { host, for_ms } if host == "phone" => Some((f.at_ms, f.at_ms + for_ms, true)),
            _ => None,
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
    let (mut world, shared) = build(&spec, &Setup::default(), length + Duration::from_secs(600));
    let sh = shared.clone();
    let sp = spec.clone();
    world.client("phone", addr::PHONE, async move {
        let mut phone = phone_app(&sp).await?;
        sh.borrow_mut().phone = Some(phone.log.clone());
        let mut hour = 0u64;
        loop {
            let at = Duration::from_millis(hour * HOUR_MS + RACE_AT_MS);
            if at >= length {
                break;
            }
            time::sleep_until(at).await;
            if phone.connect(network_at(&sp.plan, time::now())).await {
                phone.run_until(time::now() + HOLD).await;
                phone.close();
            }
            hour += 1;
        }
        sh.borrow_mut().memory = Some(phone.race().with_model(|m| m.memory().clone()));
        time::sleep(Duration::from_millis(300)).await;
        Ok(())
    });
    let outcome = world.run();
    let s = summary(&spec, &shared);
    let checks = vec![
        never_two_sessions(&s),
        ws_after_250ms_without_udp(&s, &spec.plan),
        quic_back_within_a_day(&s, &spec.plan),
        memory_per_network(&s, length_ms),
    ];
    (RunReport { outcome, checks }, s)
}

/// Never two sessions at once.
pub fn never_two_sessions(s: &SessionSummary) -> Check {
    Check {
        property: "never-two-sessions".into(),
        ok: s.phone.concurrent_max <= 1 && !s.phone.sessions.is_empty(),
        detail: format!("{} sessions, at most {} at once", s.phone.sessions.len(), s.phone.concurrent_max),
    }
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
    let blocked = |t: u64| first_open(t).is_some_and(|i| !outages[i].2);
    // Per network and outage: QUIC may be learned back between two outages, so
    // each outage may start one race QUIC first on each network.
    let outage_of = |t: u64| first_open(t).filter(|&i| !outages[i].2).unwrap_or(usize::MAX) as u64;
    let mut late_per_day: BTreeMap<(String, u64), u32> = BTreeMap::new();
    let mut bad = Vec::new();
    let mut seen = 0;
    for r in s.phone.sessions.iter().filter(|r| blocked(r.race_start_ms) && r.transport == Transport::WebSocket) {
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
    let blocked_sessions = s.phone.sessions.iter().filter(|r| blocked(r.race_start_ms)).count();
    Check {
        property: "ws-after-250ms-without-udp".into(),
        ok: bad.is_empty() && repeats.is_empty() && seen == blocked_sessions,
        detail: format!("{seen} WebSocket sessions while UDP was blocked; QUIC-first races per network and outage: {late_per_day:?}; {}", bad.first().cloned().unwrap_or_default()),
    }
}

/// After a transient QUIC failure ends, QUIC carries a session again, on the
/// network the failure hit, within a day and one reconnect.
pub fn quic_back_within_a_day(s: &SessionSummary, plan: &FaultPlan) -> Check {
    let Some(end) = udp_outages(plan).iter().map(|o| o.1).max() else {
        return Check { property: "quic-back-within-a-day".into(), ok: true, detail: "no QUIC failure in the plan".into() };
    };
    // The networks the failure hit: those the phone raced on during it.
    let outages = udp_outages(plan);
    let hit: Vec<&String> = s.phone.sessions.iter().filter(|r| outages.iter().any(|(a, b, _)| *a <= r.race_start_ms && r.race_start_ms < *b)).map(|r| &r.network).collect();
    if hit.is_empty() {
        return Check { property: "quic-back-within-a-day".into(), ok: true, detail: format!("the QUIC failure (over at {end} ms) hit no race") };
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
        property: "quic-back-within-a-day".into(),
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
        property: "memory-per-network".into(),
        ok: missing.is_empty() && !used.is_empty(),
        detail: format!("networks used in the last day {used:?}, held {held:?}"),
    }
}
