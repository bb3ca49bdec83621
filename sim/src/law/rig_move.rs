//! A phone's move under the rig's quic-go: what `move-recovers-within-pto`
//! excuses (issue 33 section 2; docs/findings/rig-migration-under-loss.md).
//!
//! RFC 9000 section 9.3 lets a server move to a new address at once and
//! validate it while sending there; the law's bound (three probe timeouts of
//! the new path) is drawn from that. quic-go's server instead sends the new
//! address one probe and keeps everything else on the old one until the probe
//! is answered (`path_manager.go` `HandlePacket`, `SwitchToPath`; PATCH.md
//! section 11). A lost probe is sent again only once its 1 s loss timer fired
//! and the address's next packet came (`pathProbePacketLossTimeout`); a lost
//! answer is not sent again (RFC 9000 section 13.3). So under the rig a move's
//! stall is excused exactly when:
//!
//! * every round of validation before the switch failed to the network: the
//!   probe (a datagram from the cloud to the new address: under the rig nothing
//!   else goes there before the switch) was lost to a fault, or met a NAT with no
//!   mapping after the phone had left that address ([`left`]), or it arrived and
//!   a datagram the phone then sent from the new address, before the next
//!   probe reached it, was lost to a fault (the one that carried the answer), or
//!   the phone held its answer back behind its congestion control; a probe that
//!   arrived with nothing of the phone's lost or held after it is the stand-in's
//!   or the phone's failure, never excused;
//! * and from the switch on, no wait for a message is longer than the law's
//!   bound: the RFC's clock starts when quic-go moves ("the time is the path
//!   probe and switch", seed 000).

use std::collections::BTreeSet;
use std::net::{IpAddr, SocketAddr};
use std::time::Duration;

use quinn_proto::RigPathEvent;

use crate::world::host::addr;
use crate::world::net::fate::{self, Fate, Outcome, RigPath};
use crate::world::net::fault::is_forged;

/// The move the law judges: from `t1` (the phone's first datagram from the new
/// network reached the cloud) to `until`, with the phone's message deliveries.
pub struct MoveWindow<'a> {
    pub t1: u64,
    pub until: u64,
    pub bound: u64,
    pub delivered_ms: &'a [u64],
}

fn ms(d: Duration) -> u64 {
    d.as_millis() as u64
}

/// Why the stall after the move in `w` is quic-go's validation meeting the
/// network's losses (`Ok`), or why it is not (`Err`).
pub fn excused(fates: &[Fate], rig_paths: &[RigPath], w: &MoveWindow) -> Result<String, String> {
    let to = rig_paths.iter().find(|r| r.event == RigPathEvent::Probed && ms(r.at) >= w.t1 && ms(r.at) <= w.until).map(|r| r.remote);
    let Some(to) = to else { return Err("the rig's server never probed the new address".into()) };
    let switch = rig_paths.iter().find(|r| r.event == RigPathEvent::Switched && r.remote == to && ms(r.at) >= w.t1).map(|r| ms(r.at));
    // The rounds before the answered one (the last probe before the validation).
    let validated = rig_paths.iter().find(|r| r.event == RigPathEvent::Validated && r.remote == to && ms(r.at) >= w.t1).map(|r| ms(r.at));
    let end = validated.map_or(w.until, |v| answered_probe(fates, to, w.t1, v)).min(w.until);
    // The client behind the new address: the phone, or the box (idle-link).
    let Some(client) = fates.iter().find(|f| f.from == to).map(|f| f.from_host) else { return Err(format!("no datagram came from {to}")) };
    let rounds = failed_rounds(fates, rig_paths, client, to, w.t1, end)?;
    let Some(v) = switch.filter(|&v| v <= w.until) else {
        return Ok(format!("under the rig's quic-go the cloud never moved to {to} in the window: {rounds} rounds of validation, each lost to the network or its answer held back by the phone's congestion control"));
    };
    let wait = longest_wait(w.delivered_ms, v, w.until);
    if wait.0 > w.bound {
        return Err(format!("the cloud moved to {to} at {v} ms, then no message for {} ms from {} ms (bound {} ms)", wait.0, wait.1, w.bound));
    }
    Ok(format!(
        "under the rig's quic-go the cloud stays on the old address until its probe is answered (path_manager.go): {rounds} rounds lost to the network before it moved to {to} at {v} ms; from then the longest wait {} ms",
        wait.0
    ))
}

/// The rounds of validation of `client`'s address `to` in `[from, end)`, each
/// failed to the network, or the first that did not. A round fails to the
/// network when its probe is lost, when something the client (the phone, or the
/// box) sent after it, before the next probe reached it, is lost, or when it held
/// its answer back because congestion control let only an ACK go (finding 4 of
/// docs/findings/rig-migration-under-loss.md: the loss that spent its window is
/// the network's; quic-go's `SendAck` mode does the same).
pub fn failed_rounds(fates: &[Fate], rig: &[RigPath], client: IpAddr, to: SocketAddr, from: u64, end: u64) -> Result<usize, String> {
    let in_window = |f: &&Fate| ms(f.sent) >= from && ms(f.sent) < end;
    // What the client's peer (the cloud) sent there.
    let probes = probes_once(fates.iter().filter(in_window).filter(|f| f.from_host != client && f.to == to).collect());
    // What the client sent, from whichever of its own addresses it sent from then:
    // its one socket answers from the network it is on, so a client that moved
    // again after the probe left answers from there (RFC 9000 section 8.2.2's
    // path is the client's socket and the server's; the plan's NAT picks the
    // outside address). A forged copy is the attacker's, never an answer.
    let answers: Vec<&Fate> = fates.iter().filter(in_window).filter(|f| f.from_host == client && !is_forged(f.from)).collect();
    for p in &probes {
        let Outcome::Delivered(d) = p.outcome else {
            if p.outcome == Outcome::Fault || (p.outcome == Outcome::Nat && left(fates, client, to, p.sent, end)) {
                continue;
            }
            return Err(format!("the probe sent at {} ms to {to} was {:?}, not lost to a fault", ms(p.sent), p.outcome));
        };
        // A probe that reaches the client only at or after the end (its idle-out)
        // is a round still pending then: no answer could have come in time (fresh
        // seeds 13880000000: corpus/rig-quic-echo-probe-after-the-end-2255817472848038902.toml).
        if ms(d) >= end {
            continue;
        }
        // The round lasts until the client read the next probe: until then the
        // answer it holds is this one's (quinn sends several at once; fresh seeds
        // 14210000000). Counted in the steps the client read them in
        // ([`fate::read_at`]): probes read in one step are one round, and what it
        // sent in that step may answer any of them.
        let step = |t| ms(fate::read_at(t));
        let (at, next) = (step(d), probes.iter().filter_map(Fate::arrival).map(step).filter(|&a| a > step(d)).min().unwrap_or(end));
        let lost = answers.iter().any(|a| ms(a.sent) >= at && ms(a.sent) < next && a.outcome == Outcome::Fault);
        let held = rig.iter().any(|r| r.event == RigPathEvent::AnswerHeld && r.remote.ip() == client && ms(r.at) >= at && ms(r.at) < next);
        if !lost && !held {
            return Err(format!("the probe sent at {} ms reached the phone at {at} ms and nothing it sent before {next} ms was lost", ms(p.sent)));
        }
    }
    // A round a probe each, but probes read in one step are one.
    Ok(probes.iter().enumerate().map(|(i, p)| p.arrival().map_or(Err(i), |a| Ok(fate::read_at(a)))).collect::<BTreeSet<_>>().len())
}

/// Whether `client` had left the address `to` when a probe sent there at `at`
/// met a NAT with no mapping for it: it sent nothing more from `to`, and sent from
/// another address of its own (not a forged copy) before `end`. The plan moved it
/// away (a second move before the probe of the first arrived, the NAT forgetting
/// the network it left): the probe's loss is the network's, as a fault's is
/// (fresh seeds 14190000000,
/// corpus/rig-quic-echo-probe-after-a-second-move-1557050295451008649.toml). A
/// probe a NAT dropped while the client still sent from `to` is no such loss.
fn left(fates: &[Fate], client: IpAddr, to: SocketAddr, at: Duration, end: u64) -> bool {
    let mine = |f: &&Fate| f.from_host == client && f.sent >= at && ms(f.sent) < end;
    let stayed = fates.iter().filter(mine).any(|f| f.from == to);
    !is_forged(to) && !stayed && fates.iter().filter(mine).any(|f| f.from != to && !is_forged(f.from))
}

/// Each probe once: a datagram the link duplicated has a fate per copy
/// ([`Fate::is_copy`]), and counts by its first arrival, or as lost if every
/// copy was.
fn probes_once(mut fates: Vec<&Fate>) -> Vec<Fate> {
    fates.sort_by_key(|f| f.sent);
    let mut out: Vec<Fate> = Vec::new();
    for f in fates {
        match out.iter_mut().find(|o| o.is_copy(f)) {
            Some(first) => first.outcome = merged(first.outcome, f.outcome),
            None => out.push(f.clone()),
        }
    }
    out
}

/// Two copies' outcomes as one: the earliest arrival, else a drop that was not
/// the plan's fault (the stricter), else lost to a fault.
fn merged(a: Outcome, b: Outcome) -> Outcome {
    match (a, b) {
        (Outcome::Delivered(x), Outcome::Delivered(y)) => Outcome::Delivered(x.min(y)),
        (Outcome::Delivered(x), _) | (_, Outcome::Delivered(x)) => Outcome::Delivered(x),
        (Outcome::Fault, other) => other,
        (other, _) => other,
    }
}

/// When the probe that `validated` answered went out: the last datagram to `to`
/// before it (before the switch the rig sends the new address only probes).
pub fn answered_probe(fates: &[Fate], to: SocketAddr, from: u64, validated: u64) -> u64 {
    let probes = fates.iter().filter(|f| f.from_host == addr::CLOUD && f.to == to && ms(f.sent) >= from && ms(f.sent) < validated);
    probes.map(|f| ms(f.sent)).max().unwrap_or(validated)
}

/// The longest wait for the next message delivery in `[from, until]`, and where it began.
pub fn longest_wait(delivered_ms: &[u64], from: u64, until: u64) -> (u64, u64) {
    let mut last = from;
    let mut wait = (0, from);
    for d in delivered_ms.iter().copied().filter(|&d| d >= from && d <= until).chain([until]) {
        if d - last > wait.0 {
            wait = (d - last, last);
        }
        last = d;
    }
    wait
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::net::Ipv4Addr;

    const NEW: SocketAddr = SocketAddr::new(IpAddr::V4(Ipv4Addr::new(192, 0, 2, 1)), 49153);
    const CLOUD: SocketAddr = SocketAddr::new(addr::CLOUD, 443);

    fn fate(sent: u64, up: bool, outcome: Outcome) -> Fate {
        let (from_host, from, to) = if up { (addr::PHONE, NEW, CLOUD) } else { (addr::CLOUD, CLOUD, NEW) };
        Fate { sent: Duration::from_millis(sent), from_host, from, to, to_host: None, outcome, bytes: sent * 2 + u64::from(up), long_only: false }
    }

    fn note(at: u64, event: RigPathEvent) -> RigPath {
        RigPath { at: Duration::from_millis(at), remote: NEW, event }
    }

    fn delivered(at: u64) -> Outcome {
        Outcome::Delivered(Duration::from_millis(at))
    }

    /// The first round's answer lost, the second round's probe lost, the third
    /// answered: the switch at 3,100 ms, then messages every second.
    fn two_lost_rounds() -> (Vec<Fate>, Vec<RigPath>) {
        let fates = vec![
            fate(1_000, false, delivered(1_020)),
            fate(1_020, true, Outcome::Fault),
            fate(2_000, false, Outcome::Fault),
            fate(3_000, false, delivered(3_020)),
            fate(3_020, true, delivered(3_040)),
        ];
        let notes = vec![
            note(1_000, RigPathEvent::Probed),
            note(2_000, RigPathEvent::Probed),
            note(3_000, RigPathEvent::Probed),
            note(3_040, RigPathEvent::Validated),
            note(3_100, RigPathEvent::Switched),
        ];
        (fates, notes)
    }

    fn window(delivered_ms: &[u64]) -> MoveWindow<'_> {
        MoveWindow { t1: 980, until: 9_000, bound: 2_000, delivered_ms }
    }

    /// A round whose probe reaches the client only after the end is pending,
    /// not failed to the client; one that reached it before the end and got no
    /// lost answer still fails the excuse.
    #[test]
    fn a_probe_arriving_after_the_end_is_a_pending_round() {
        let (fates, rig) = (vec![fate(1_000, false, Outcome::Fault), fate(9_000, false, delivered(9_300)), fate(9_010, true, delivered(9_200))], vec![]);
        assert_eq!(failed_rounds(&fates, &rig, addr::PHONE, NEW, 1_000, 9_250), Ok(2));
        assert!(failed_rounds(&fates, &rig, addr::PHONE, NEW, 1_000, 9_400).is_err(), "delivered before the end, answered, not lost");
    }

    #[test]
    fn rounds_lost_to_the_network_then_a_prompt_message_are_excused() {
        let (fates, notes) = two_lost_rounds();
        let msgs = [3_500, 4_500, 5_500, 6_500, 7_500, 8_500];
        let why = excused(&fates, &notes, &window(&msgs)).expect("excused");
        assert!(why.contains("2 rounds") && why.contains("3100 ms"), "{why}");
    }

    #[test]
    fn a_probe_that_arrived_with_no_loss_after_it_is_not_excused() {
        let (mut fates, notes) = two_lost_rounds();
        fates[1].outcome = delivered(1_040);
        let msgs = [3_500, 4_500, 5_500, 6_500, 7_500, 8_500];
        let err = excused(&fates, &notes, &window(&msgs)).expect_err("not excused");
        assert!(err.contains("reached the phone at 1020 ms"), "{err}");
    }

    #[test]
    fn an_answer_held_back_by_the_phones_congestion_control_fails_its_round() {
        // Finding 4: the first round's probe arrived and the phone sent only an ACK.
        let (mut fates, mut notes) = two_lost_rounds();
        fates[1].outcome = delivered(1_040);
        let held = RigPath { at: Duration::from_millis(1_020), remote: SocketAddr::new(addr::PHONE, 0), event: RigPathEvent::AnswerHeld };
        notes.push(held);
        let msgs = [3_500, 4_500, 5_500, 6_500, 7_500, 8_500];
        assert!(excused(&fates, &notes, &window(&msgs)).is_ok());
        // Another host's held answer says nothing of the phone's round.
        notes.last_mut().expect("note").remote = SocketAddr::new(addr::CLOUD, 0);
        assert!(excused(&fates, &notes, &window(&msgs)).is_err());
    }

    #[test]
    fn a_stall_after_the_switch_is_not_excused() {
        let (fates, notes) = two_lost_rounds();
        let msgs = [3_500, 8_500];
        let err = excused(&fates, &notes, &window(&msgs)).expect_err("not excused");
        assert!(err.contains("no message for 5000 ms"), "{err}");
    }

    #[test]
    fn a_probe_dropped_by_a_nat_is_not_the_networks_loss() {
        let (mut fates, notes) = two_lost_rounds();
        fates[2].outcome = Outcome::Nat;
        let err = excused(&fates, &notes, &window(&[3_500])).expect_err("not excused");
        assert!(err.contains("Nat"), "{err}");
    }

    /// The phone moved on before the probe of its new address arrived: the NAT of
    /// the network it left had no mapping, and everything after came from elsewhere.
    #[test]
    fn a_probe_a_nat_dropped_after_the_phone_left_the_address_fails_its_round() {
        let elsewhere = SocketAddr::new(IpAddr::V4(Ipv4Addr::new(198, 51, 100, 1)), 49152);
        let from_elsewhere = |t: u64| Fate { from: elsewhere, ..fate(t, true, Outcome::Fault) };
        let fates = vec![fate(900, true, delivered(920)), fate(1_000, false, Outcome::Nat), from_elsewhere(1_500), from_elsewhere(2_500)];
        assert_eq!(failed_rounds(&fates, &[], addr::PHONE, NEW, 900, 3_000), Ok(1));
        // Still sending from the address the probe went to: the NAT's drop is no loss of the network's.
        let stayed = vec![fate(900, true, delivered(920)), fate(1_000, false, Outcome::Nat), fate(1_500, true, Outcome::Fault), from_elsewhere(2_500)];
        assert!(failed_rounds(&stayed, &[], addr::PHONE, NEW, 900, 3_000).is_err());
        // Nothing sent from anywhere after the probe: nothing says the phone left.
        let silent = vec![fate(900, true, delivered(920)), fate(1_000, false, Outcome::Nat)];
        assert!(failed_rounds(&silent, &[], addr::PHONE, NEW, 900, 3_000).is_err());
    }

    /// quinn sends a new address several challenges at once: each round lasts
    /// until the next probe reached the phone, not until the next was sent
    /// (fresh seeds 14210000000).
    #[test]
    fn probes_sent_together_are_each_a_round_until_the_next_arrives() {
        let second = Fate { bytes: 7, ..fate(1_000, false, delivered(1_060)) };
        let fates = vec![fate(900, true, delivered(920)), fate(1_000, false, delivered(1_020)), second];
        let held = |at| RigPath { at: Duration::from_millis(at), remote: SocketAddr::new(addr::PHONE, 0), event: RigPathEvent::AnswerHeld };
        assert_eq!(failed_rounds(&fates, &[held(1_020), held(1_060)], addr::PHONE, NEW, 900, 3_000), Ok(2));
        // The second's answer went: its round is not the network's.
        assert!(failed_rounds(&fates, &[held(1_020)], addr::PHONE, NEW, 900, 3_000).is_err());
    }

    /// Probes the phone read in one step are one round, and what it sent in that
    /// step may answer either; a probe arriving 1 µs after a step starts is read
    /// in the next one, after that step's sends ([`fate::read_at`]; quinn-proto's
    /// trace of corpus/fleet-migrate-answer-lost-in-the-step-both-arrived-14310114372.toml).
    #[test]
    fn probes_read_in_one_step_are_one_round() {
        let answer = |outcome| Fate { bytes: 9, ..fate(1_020, true, outcome) };
        let probe_at = |us| Fate { bytes: 7, ..fate(1_000, false, Outcome::Delivered(Duration::from_micros(us))) };
        let with = |other: Fate, last: Fate| {
            vec![fate(900, true, delivered(920)), other, fate(1_000, false, delivered(1_020)), fate(1_020, true, delivered(1_040)), last]
        };
        let fates = with(probe_at(1_019_001), answer(Outcome::Fault));
        assert_eq!(failed_rounds(&fates, &[], addr::PHONE, NEW, 900, 3_000), Ok(1));
        // Both answers of the step went through: the round is not the network's.
        assert!(failed_rounds(&with(probe_at(1_019_001), answer(delivered(1_040))), &[], addr::PHONE, NEW, 900, 3_000).is_err());
        // Read a step later, the second probe is a round of its own, and no lost answer failed it.
        assert!(failed_rounds(&with(probe_at(1_020_001), answer(Outcome::Fault)), &[], addr::PHONE, NEW, 900, 3_000).is_err());
    }

    /// The probe of the cellular address reached the phone after it had gone
    /// back to Wi-Fi, and its answer, sent from there, was lost to a fault: the
    /// round failed to the network (fresh seeds 14620000000,
    /// corpus/rig-fleet-migrate-answer-from-the-next-network-lost-14620217405.toml).
    #[test]
    fn an_answer_sent_from_the_network_moved_to_fails_its_round_when_lost() {
        let wifi = SocketAddr::new(IpAddr::V4(Ipv4Addr::new(192, 0, 2, 1)), 49200);
        let from_wifi = |outcome| Fate { from: wifi, ..fate(1_020, true, outcome) };
        let fates = |answer| vec![fate(900, true, delivered(920)), fate(1_000, false, delivered(1_020)), answer];
        assert_eq!(failed_rounds(&fates(from_wifi(Outcome::Fault)), &[], addr::PHONE, NEW, 900, 3_000), Ok(1));
        // Delivered, the answer failed nothing.
        assert!(failed_rounds(&fates(from_wifi(delivered(1_040))), &[], addr::PHONE, NEW, 900, 3_000).is_err());
        // A forged copy's loss is the attacker's, not the phone's answer.
        let forged = Fate { from: SocketAddr::new(NEW.ip(), 20_001), ..fate(1_020, true, Outcome::Fault) };
        assert!(failed_rounds(&fates(forged), &[], addr::PHONE, NEW, 900, 3_000).is_err());
    }

    #[test]
    fn a_duplicated_probe_is_one_round() {
        let (mut fates, notes) = two_lost_rounds();
        fates.insert(1, fate(1_000, false, delivered(1_021)));
        let msgs = [3_500, 4_500, 5_500, 6_500, 7_500, 8_500];
        let why = excused(&fates, &notes, &window(&msgs)).expect("excused");
        assert!(why.contains("2 rounds"), "{why}");
    }

    #[test]
    fn no_probe_at_all_is_not_excused() {
        let (fates, _) = two_lost_rounds();
        assert!(excused(&fates, &[], &window(&[3_500])).is_err());
    }
}
