//! The box's reconnect with 0-RTT (issue 15 section 2; SPEC section 3: "the box's
//! uplink uses 0-RTT on reconnect: the cloud's challenge comes back in the first
//! flight. The phone does not use 0-RTT"; seed 000: "0-RTT still saves a box a
//! round trip, whose challenge comes back in the first flight"). Laws over the
//! box driver's uplink records and the cloud's log, judged by `session` and
//! `box-reconnect`.

use std::time::Duration;

use crate::drive::system::SessionSummary;
use crate::law::laws;
use crate::law::Check;
use crate::world::domain::Kind;
use crate::world::host::Host;
use crate::world::plan::FaultPlan;

/// Time rounding of the simulated clock (1 ms steps) on each of the two legs.
const ROUNDING_MS: u64 = 2;
/// A link up this long without an outage has had its challenge (a stream
/// message, retransmitted by QUIC within a few PTOs at the loss the law judges).
const CHALLENGE_WITHIN_MS: u64 = 10_000;
/// The loss per packet on the box's leg below which a challenge must come within
/// [`CHALLENGE_WITHIN_MS`] (issue 15 section 4's bound for the phone's leg).
const LOSS_PCT_BELOW: f64 = 10.0;

/// Whether a fault on the box's leg (an outage) overlaps `[from, to]` ms.
fn box_outage(plan: &FaultPlan, from: u64, to: u64) -> bool {
    plan.faults
        .iter()
        .filter(|f| f.fault.host() == Host::Box && f.fault.def().outage().is_some())
        .any(|f| f.at_ms <= to && f.at_ms + f.fault.def().lasts_ms() >= from)
}

/// Whether the box's NAT rebinds in `[from, to]` ms: an address change before the
/// handshake is confirmed can end the connection or stall it, whatever the early
/// data did (RFC 9000 section 9: "The design of QUIC relies on endpoints retaining
/// a stable address for the duration of the handshake"; no migration before then;
/// corpus/box-reconnect-rebind-during-handshake.toml).
fn box_rebind(plan: &FaultPlan, from: u64, to: u64) -> bool {
    box_fault_at(plan, Kind::Rebind, from, to)
}

/// Whether a fault of `kind` on the box's side happens at a time in `[from, to]` ms.
fn box_fault_at(plan: &FaultPlan, kind: Kind, from: u64, to: u64) -> bool {
    plan.faults.iter().any(|f| f.fault.host() == Host::Box && f.fault.def().swarm() == kind && (from..=to).contains(&f.at_ms))
}

/// Whether the cloud's service restarts in `[from, to]` ms (plan kind
/// `cloud_restart`): the restart closes the box's uplink at the cloud with 1012,
/// whether or not the close reaches the box. A close lost on the leg leaves the
/// box's connection open on its side with no cloud behind it, so a challenge the
/// cloud sent before the restart and lost is never sent again; the box learns of
/// the end only at its next keep-alive, from the cloud's stateless reset
/// (RFC 9000 section 10.3; corpus/box-reconnect-restart-close-lost-14100056803.toml).
fn cloud_restart(plan: &FaultPlan, from: u64, to: u64) -> bool {
    box_fault_at(plan, Kind::CloudRestart, from, to)
}

/// Whether a slow host (plan kind `slow_host`: a host's processing ten times the
/// profile's) overlaps `[from, to]` ms: its processing then takes part of the round
/// trip the law measures (corpus/session-slow-box-challenge-late-9700319541.toml).
fn slow_host(plan: &FaultPlan, from: u64, to: u64) -> bool {
    plan.faults.iter().filter(|f| f.fault.def().swarm() == Kind::SlowHost).any(|f| f.at_ms <= to && f.at_ms + f.fault.def().lasts_ms() >= from)
}

/// `box-challenge-in-first-flight`: every reconnect of the box that holds a
/// ticket, and whose 0-RTT the cloud did not reject, gets the cloud's challenge
/// one round trip of the box's leg after its dial: the target rode the first
/// flight, so the challenge rides the cloud's (judged without loss, reordering
/// or jitter on the box's leg, with no outage on it and no slow host: jitter lets the cloud's
/// 1-RTT datagram overtake its handshake datagram, and the box, without the
/// keys yet, drops it and waits for the retransmission:
/// corpus/box-reconnect-jitter-overtakes-handshake.toml). Broken by
/// `box-waits-for-handshake` (two round trips).
pub fn box_challenge_in_first_flight(s: &SessionSummary, plan: &FaultPlan) -> Check {
    let law = &laws::BOX_CHALLENGE_IN_FIRST_FLIGHT;
    let leg = &plan.box_;
    if leg.loss_pct > 0.0 || leg.reorder_pct > 0.0 || leg.jitter_ms > 0 {
        let why = format!("loss {} %, reorder {} %, jitter {} ms on the box's leg: the law does not apply", leg.loss_pct, leg.reorder_pct, leg.jitter_ms);
        return Check { law, ok: true, detail: why };
    }
    let rtt = 2 * leg.one_way_ms + ROUNDING_MS;
    let (mut judged, mut bad) = (0, Vec::new());
    for r in s.uplinks.iter().filter(|r| r.ticket && r.zero_rtt != Some(false) && r.up_ms.is_some()) {
        let window = (r.dial_ms, r.dial_ms + 2 * rtt);
        if box_outage(plan, window.0, window.1) || slow_host(plan, window.0, window.1) || r.closed_ms.is_some_and(|c| c <= window.1) {
            continue;
        }
        judged += 1;
        match r.challenge_ms {
            Some(c) if c - r.dial_ms <= rtt => {}
            c => bad.push(format!("dial at {} ms with a ticket (0-RTT {:?}): challenge at {c:?} ms, bound {} ms", r.dial_ms, r.zero_rtt, r.dial_ms + rtt)),
        }
    }
    Check { law, ok: bad.is_empty(), detail: format!("{judged} reconnects with a ticket judged (one round trip: {rtt} ms); {}", bad.join("; ")) }
}

/// `rejected-0rtt-loses-nothing`: whatever becomes of the box's early data
/// (accepted, rejected by a cloud that lost its tickets, or not tried), the
/// cloud gets the target once per connection: every uplink that stays up
/// [`CHALLENGE_WITHIN_MS`] without an outage gets the cloud's challenge (nothing
/// lost), and the cloud refuses no proof (a target sent twice would reach it as
/// the answer to its challenge: nothing doubled). An uplink the cloud's restart
/// closed within the window did not stay up, whether or not the box heard the
/// close ([`cloud_restart`]). Broken by
/// `rejected-0rtt-not-resent`.
pub fn rejected_0rtt_loses_nothing(s: &SessionSummary, plan: &FaultPlan, length: Duration) -> Check {
    let law = &laws::REJECTED_0RTT_LOSES_NOTHING;
    let end = length.as_millis() as u64;
    let mut bad = Vec::new();
    if s.cloud_stats.uplinks_refused > 0 {
        bad.push(format!("the cloud refused {} uplink proofs of the real box", s.cloud_stats.uplinks_refused));
    }
    let lossy = plan.box_.loss_pct >= LOSS_PCT_BELOW;
    let mut judged = 0;
    for r in &s.uplinks {
        let Some(up) = r.up_ms else { continue };
        let until = up + CHALLENGE_WITHIN_MS;
        // The handshake lasts until the box's is confirmed (RFC 9001 section 4.1.2:
        // the cloud's HANDSHAKE_DONE arrived), not a round trip after it came up: a
        // Finished held back by the link, or lost, confirms it later; a rebind before
        // then left the cloud answering the old address while the box's
        // Handshake-space probes from the new one could not move the connection
        // (corpus/box-reconnect-rebind-before-handshake-done-13750084904.toml).
        let confirmed = r.confirmed_ms.get().unwrap_or(end);
        let ended = r.closed_ms.unwrap_or(end) < until || cloud_restart(plan, r.dial_ms, until);
        if lossy || ended || until > end || box_outage(plan, r.dial_ms, until) || box_rebind(plan, r.dial_ms, confirmed) {
            continue;
        }
        judged += 1;
        if r.challenge_ms.is_none_or(|c| c > until) {
            bad.push(format!("uplink up at {up} ms (0-RTT {:?}) had no challenge by {until} ms: {:?}", r.zero_rtt, r.challenge_ms));
        }
    }
    let rejected = s.uplinks.iter().filter(|r| r.zero_rtt == Some(false)).count();
    Check { law, ok: bad.is_empty(), detail: format!("{judged} uplinks judged, {rejected} with their 0-RTT rejected; {}", bad.join("; ")) }
}

/// `phone-never-0rtt`: no phone link ever carries early data the cloud accepted
/// (SPEC section 3; the seed's iPhone makes a full handshake every time). Broken
/// by `phone-uses-0rtt`.
pub fn phone_never_0rtt(s: &SessionSummary) -> Check {
    let n = s.cloud.early_data.get(ftw_cloud::consts::PHONE_TARGET).copied().unwrap_or(0);
    Check {
        law: &laws::PHONE_NEVER_0RTT,
        ok: n == 0,
        detail: format!("{n} phone links carried 0-RTT early data; early data by target: {:?}", s.cloud.early_data),
    }
}
