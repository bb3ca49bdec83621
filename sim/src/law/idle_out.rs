//! When a QUIC idle-out is the network's doing, not a bug.
//!
//! RFC 9000 section 10.1: an endpoint that hears nothing from its peer for
//! its idle timeout closes the connection. Under heavy loss after a long
//! outage that is QUIC keeping its rules: the phone's probes, backed off,
//! reach the cloud seconds apart; the cloud, with nothing in flight, answers
//! each with one ACK; the network loses every answer, and the phone idles out
//! (`corpus/fleet-migrate-blackhole-lossy-acks-lost-idle-out.toml`). A law
//! that promises "the same connection carries on" promises more than QUIC
//! does there, so it excuses exactly the idle-out the network caused, judged
//! from the fates of the datagrams ([`crate::world::net::fate`]): between the
//! last datagram of the peer that reached the endpoint and the idle-out,
//!
//! * the peer sent the endpoint something that a fault of the plan lost (had
//!   it arrived, the endpoint's idle timer would have started again);
//! * nothing the peer sent it was dropped by a NAT or refused: an answer to
//!   an address the endpoint left is the peer's mistake (the `no-routing`
//!   switch: the stale reactor probes the phone's old address), unless the
//!   peer could not have learnt the move: it sent to the address it last heard
//!   the endpoint from, and every datagram the endpoint sent from elsewhere
//!   before then was lost to a fault (RFC 9000 section 9: a server learns a
//!   client's new address only from its packets;
//!   `corpus/fleet-migrate-kernel-filter-move-every-probe-lost-9800025258.toml`),
//!   or it was validating the endpoint's newer address, or went back from it
//!   after validation failed, each round of it failed to the network (what it
//!   sent there lost to a fault, or the endpoint's answer lost to one or held
//!   back by its congestion control; RFC 9000 sections 9.3.2, 9.3.3 and
//!   8.2.2); such a drop counts as lost to the network;
//! * and the peer answered, within [`ANSWER_WITHIN`], each datagram of the
//!   endpoint that reached it, sent later than [`ANSWER_WITHIN`] after the
//!   endpoint last heard the peer (a copy the link held and let go later was
//!   sent when the endpoint sent it) (an ACK of what it heard then needs no
//!   answer; after that the endpoint, hearing nothing, sends only probes,
//!   data and PINGs, which RFC 9000 section 13.2.1 wants acknowledged within
//!   max_ack_delay). A peer that drops what reaches it, or holds its ACK
//!   back, is not the network; one that cannot read it is not asked to
//!   answer (a packet under keys it has discarded: the old keys after a key
//!   update, or Initial and Handshake packets once its handshake is
//!   confirmed, RFC 9001 sections 6.5 and 4.9.2).

use std::collections::BTreeSet;
use std::net::{IpAddr, SocketAddr};
use std::time::Duration;

use quinn_proto::RigPathEvent;

use crate::world::net::fate::{self, Fate, IdleOut, Outcome, RigPath};
use crate::world::net::fault::{is_forged, is_stranger};
use crate::world::trace::fmt_time;

/// How soon a peer answers an ack-eliciting datagram: within max_ack_delay
/// (RFC 9000 section 13.2.1; 25 ms by default, section 18.2), with room for
/// the hosts' processing.
pub const ANSWER_WITHIN: Duration = Duration::from_millis(100);

/// The host a datagram source stands for: the sender behind that address.
fn host_of(fates: &[Fate], addr: SocketAddr) -> IpAddr {
    fates.iter().find(|f| f.from == addr).map_or(addr.ip(), |f| f.from_host)
}

/// Why `o` is the network's doing (`Ok`), or why it is not (`Err`). `rig`: the
/// rig server's path events (none unless the run has the rig's stand-in).
pub fn judge(fates: &[Fate], o: &IdleOut, rig: &[RigPath]) -> Result<String, String> {
    // A stranger behind the endpoint's NAT is another household: what it sends
    // and what is sent back to it say nothing of the endpoint's connection.
    let fates: Vec<Fate> = fates.iter().filter(|f| !is_stranger(f.from) && !is_stranger(f.to)).cloned().collect();
    let fates = fates.as_slice();
    let (me, peer) = (o.local.ip(), host_of(fates, o.peer));
    let toward_me: Vec<&Fate> = fates.iter().filter(|f| f.from_host == peer && f.to_host == Some(me)).collect();
    let heard = toward_me.iter().filter_map(|f| match f.outcome {
        Outcome::Delivered(a) if a <= o.at => Some(a),
        _ => None,
    });
    let since = heard.max().unwrap_or_default();
    let after: Vec<&&Fate> = toward_me.iter().filter(|f| f.sent > since && f.sent <= o.at).collect();
    let dropped = |f: &Fate| matches!(f.outcome, Outcome::Nat | Outcome::Refused);
    let excused = |f: &Fate| move_unknown(fates, me, peer, f) || validation_failed(fates, rig, me, peer, f) || rig_unvalidated(fates, rig, me, f, o.at);
    if let Some(f) = after.iter().find(|f| dropped(f) && !excused(f)) {
        return Err(format!("the peer's datagram at {} to {} was {:?}, not lost to a fault", fmt_time(f.sent), f.to, f.outcome));
    }
    // Sent (by the endpoint: a held copy let go later was sent with its original) after that.
    let asked = fates.iter().filter(|f| f.from_host == me && f.to_host == Some(peer) && f.first_sent(fates) > since + ANSWER_WITHIN);
    for f in asked {
        let Outcome::Delivered(at) = f.outcome else { continue };
        // A datagram that arrived more than once (a duplicate, a forged copy
        // ahead of it, a held copy let go later) is answered from its first
        // arrival; a later copy is a duplicate packet, which needs no answer
        // (quic-go and quinn drop it unread).
        let a = f.first_arrival(fates);
        if a < at || overtaken_while_held(fates, f, me, peer) || unreadable(f, o.peer_confirmed, a) {
            continue;
        }
        // Counted from the step the peer read it in ([`fate::read_at`]).
        if a + ANSWER_WITHIN <= o.at && !after.iter().any(|x| x.sent >= fate::read_at(a) && x.sent <= a + ANSWER_WITHIN) {
            return Err(format!("its datagram of {} reached the peer at {} and was not answered within {ANSWER_WITHIN:?}", fmt_time(f.sent), fmt_time(a)));
        }
    }
    let lost = after.iter().filter(|f| f.outcome == Outcome::Fault || dropped(f)).count();
    if lost == 0 {
        return Err(format!("the peer sent it nothing the network lost after {}, when it last heard it", fmt_time(since)));
    }
    let to_old = after.iter().filter(|f| dropped(f) && rig_unvalidated(fates, rig, me, f, o.at)).count();
    let rig_words = match to_old {
        0 => String::new(),
        n => format!(" ({n} of them to its old address: the rig's quic-go sends there until it moves, on a packet of the new address after the address is validated, and each round of validation that could have moved it was lost to the network)"),
    };
    Ok(format!(
        "{me} idled out at {} (RFC 9000 section 10.1): it last heard {peer} at {}, and the network lost all {lost} datagrams the peer sent it after that{rig_words}",
        fmt_time(o.at),
        fmt_time(since)
    ))
}

/// Whether `f` is a datagram the link held and let go after a later datagram of
/// `me` to the same peer had arrived: a reordered packet, which the peer may no
/// longer be able to read (after a key update the old read keys go three PTOs
/// after the first packet under the new ones, RFC 9001 section 6.5; quinn-proto
/// and quic-go both discard them so) and need not answer at once. Fresh seeds
/// 13800000000: a packet held 200 ms reached the cloud 3 ms after its old keys
/// were discarded (corpus/fleet-still-held-packet-after-key-discard-4132011906867605708.toml).
fn overtaken_while_held(fates: &[Fate], f: &Fate, me: IpAddr, peer: IpAddr) -> bool {
    let sent = f.first_sent(fates);
    let Some(arrived) = f.arrival().filter(|_| sent < f.sent) else { return false };
    let later = |x: &&Fate| x.from_host == me && x.to_host == Some(peer) && x.first_sent(fates) >= sent && !x.is_copy(f);
    fates.iter().filter(later).filter_map(Fate::arrival).any(|a| a < arrived)
}

/// Whether the peer could no longer read `f` when it arrived at `a`: only
/// long-header packets (Initial or Handshake keys), after the peer's end of the
/// connection confirmed the handshake, which discards those keys (RFC 9001
/// section 4.9.2; quinn-proto and quic-go drop such packets unread). A client
/// still without HANDSHAKE_DONE sends its probe timeouts in the Handshake space
/// (RFC 9002 section 6.2.2.1 and appendix A.8: no Application Data probe before
/// the handshake is confirmed). Fresh seeds 13950000000: the cloud's
/// HANDSHAKE_DONE and everything after it lost, the phone's only datagrams that
/// reached the cloud were such probes
/// (corpus/rig-quic-echo-handshake-probes-unreadable-13950023227.toml).
fn unreadable(f: &Fate, peer_confirmed: Option<Duration>, a: Duration) -> bool {
    f.long_only && peer_confirmed.is_some_and(|c| c < a)
}

/// Whether the peer, sending `f`, could not have learnt that the endpoint `me`
/// moved: `f` went to the address the peer last heard `me` from, and whatever `me`
/// sent from another address before `f`, and the peer had not heard before it
/// last heard `f`'s address, was lost to a fault or still on its way when `f`
/// left (or it sent nothing from there yet). What the peer heard from an address
/// `me` used before that one (the Wi-Fi before a move to cellular) is old news
/// (fresh seeds 13750000000: a rebind on cellular after a move from Wi-Fi,
/// `corpus/fleet-migrate-rebind-after-move-unknown-876543717045270603.toml`).
/// Forged copies are not the endpoint's: a reply to the address it last sent
/// from is no mistake because an attacker's copy from another port came first.
/// Nor is a datagram of long-header packets only (Initial or Handshake): no
/// stack moves a connection on one (quinn-proto drops a handshake packet from
/// another address, and one whose keys it discarded; quic-go's path manager
/// sees only 1-RTT packets; RFC 9000 section 9 migrates on non-probing
/// packets of a confirmed connection). Fresh seeds 14350000000: the phone's
/// Handshake probes from its new network reached the cloud, which had
/// discarded those keys and answered the old address.
fn move_unknown(fates: &[Fate], me: IpAddr, peer: IpAddr, f: &Fate) -> bool {
    // A forged copy is the attacker's, not the endpoint's: its replies die at the
    // NAT (the plan's attack), and it says nothing of where the endpoint is.
    let telling = |x: &&Fate| !is_forged(x.from) && !x.long_only;
    let mine: Vec<&Fate> = fates.iter().filter(|x| x.from_host == me && x.to_host == Some(peer) && x.sent < f.sent).filter(telling).collect();
    // Only a datagram's first copy is heard: behind a forged copy of it (or the
    // link's duplicate) it is a duplicate packet, dropped before the peer looks
    // at its address (quic-go `IsPotentiallyDuplicate`; quinn-proto's dedup comes
    // before migration). Fresh seeds 14000000000.
    let first = |x: &&&Fate| x.arrival() == Some(x.first_arrival(fates));
    // Heard before it sent `f`: sends carry their step's time, and a host reads what
    // arrived by then first ([`fate::read_at`]), so `a <= f.sent` is exact.
    let heard = mine
        .iter()
        .filter(first)
        .filter_map(|x| match x.outcome {
            Outcome::Delivered(a) if a <= f.sent => Some((a, x.from)),
            _ => None,
        })
        .max_by_key(|(a, _)| *a);
    let Some((heard_at, heard_from)) = heard.filter(|(_, from)| *from == f.to) else { return false };
    // Nothing sent from elsewhere yet (the peer's datagram left before the endpoint's
    // first from its new network) teaches the peer nothing either.
    let news = mine.iter().filter(|x| x.from != heard_from && !matches!(x.outcome, Outcome::Delivered(a) if a <= heard_at));
    news.clone().all(|x| x.outcome == Outcome::Fault || matches!(x.outcome, Outcome::Delivered(a) if a > f.sent) || !first(&x))
}

/// Whether the peer sent `f` to an address `me` left while validating (or
/// after failing to validate) a newer one: it had heard `me` from another
/// address since it last heard it from `f.to`, and each round of what it sent
/// `me` elsewhere from then until `f`
/// failed to the network ([`super::rig_move::failed_rounds`]: lost to a fault,
/// or it reached `me` and `me`'s answer was lost to a fault or held back by its
/// congestion control, RFC 9000 section 8.2.2, finding 4 of
/// docs/findings/rig-migration-under-loss.md). RFC 9000 section 9.3.3 has a
/// server probe the old path when its peer moves, and section 9.3.2 send it
/// back to the last validated path when validating the new one fails
/// (`corpus/quic-echo-gone-fresh-seeds-9400135905.toml`; a forged move's reply
/// dies at the NAT: the plan's attack,
/// `corpus/fleet-migrate-forged-move-validation-lost-9900035825.toml`; the
/// phone's PATH_RESPONSE held back after a blackhole, fresh seeds 14210000000).
/// A peer that never answers the new address at all (the `no-routing` switch)
/// is not excused.
fn validation_failed(fates: &[Fate], rig: &[RigPath], me: IpAddr, peer: IpAddr, f: &Fate) -> bool {
    let heard = |x: &&Fate| match x.outcome {
        Outcome::Delivered(a) if x.from_host == me && x.to_host == Some(peer) && a <= f.sent => Some((a, x.from)),
        _ => None,
    };
    // Newer than `f.to`: heard after the peer last heard `me` from there (an address `me`
    // used before `f.to` is old news; fresh seeds 14270000000).
    let last_there = fates.iter().filter_map(|x| heard(&x)).filter(|(_, from)| *from == f.to).map(|(a, _)| a).max();
    let newer = fates.iter().filter_map(|x| heard(&x)).filter(|(a, from)| *from != f.to && last_there.is_none_or(|t| *a > t));
    let Some(since) = newer.map(|(a, _)| a).min() else { return false };
    let elsewhere: BTreeSet<SocketAddr> =
        fates.iter().filter(|x| x.from_host == peer && x.to_host == Some(me) && x.to != f.to && (since..=f.sent).contains(&x.sent)).map(|x| x.to).collect();
    let (from, end) = (since.as_millis() as u64, f.sent.as_millis() as u64 + 1);
    !elsewhere.is_empty() && elsewhere.iter().all(|&to| super::rig_move::failed_rounds(fates, rig, me, to, from, end).is_ok())
}

/// Whether, under the rig's stand-in, the peer sent `f` to the address `me`
/// left because `me`'s current address was not validated, as quic-go's server
/// does (it sends only probes to a new address and switches once one is
/// answered: `path_manager.go` `HandlePacket`, `SwitchToPath`; PATCH.md section
/// 11), and that validation failed to the network until `me` idled out at
/// `end`: every probe of the new address lost, or followed by a datagram of
/// `me` lost to a fault (its answer is sent once, RFC 9000 section 13.3, and an
/// acknowledged probe is never sent again; docs/findings/rig-migration-under-loss.md),
/// or, before any probe, the address ignored while three others were candidates
/// (quic-go `maxPaths`: forged copies of the plan's attack fill them).
fn rig_unvalidated(fates: &[Fate], rig: &[RigPath], me: IpAddr, f: &Fate, end: Duration) -> bool {
    // Where the peer last heard `me` from by then (a forged copy is the attacker's).
    let heard = |x: &&Fate| matches!(x.outcome, Outcome::Delivered(a) if a <= f.sent);
    // Only a datagram's first copy is heard: behind a forged copy the original
    // is a duplicate packet, dropped unread (quic-go `IsPotentiallyDuplicate`).
    let first = |x: &&Fate| x.arrival() == Some(x.first_arrival(fates));
    let mine = fates.iter().filter(|x| x.from_host == me && !is_forged(x.from)).filter(heard).filter(first);
    let current = mine.max_by_key(|x| x.arrival()).map(|x| x.from);
    let Some(current) = current.filter(|c| *c != f.to) else { return false };
    let of = |e: RigPathEvent| rig.iter().filter(move |r| r.remote == current && r.event == e).map(|r| r.at);
    if of(RigPathEvent::Switched).any(|t| t <= f.sent) {
        return false;
    }
    let Some(p) = of(RigPathEvent::Probed).min().filter(|p| *p <= f.sent) else {
        return of(RigPathEvent::Ignored).any(|t| t <= f.sent);
    };
    let p = p.as_millis() as u64;
    // Validated but never moved to: quic-go switches on a packet from the
    // address after it is validated (connection.go `handleShortHeaderPacket`:
    // only on "the highest-numbered non-probing packet", so not on the answer
    // itself when a later packet overtook it), and none reached the cloud
    // before the end. Until the answer the round was pending; the rounds
    // before it are judged.
    let waiting = of(RigPathEvent::Validated).filter(|&v| v <= end && !arrived_from(fates, current, v, end)).min();
    let end = end.as_millis() as u64;
    let end = waiting.map_or(end, |v| super::rig_move::answered_probe(fates, current, p, v.as_millis() as u64));
    super::rig_move::failed_rounds(fates, rig, me, current, p, end).is_ok()
}

/// Whether a new datagram from `from` reached its host in `(after, until]`: a
/// copy of one that had arrived by `after` (the link's duplicate) is not new, and
/// a QUIC endpoint drops it as a duplicate packet before anything else (quic-go
/// `handleShortHeaderPacket`: `IsPotentiallyDuplicate`).
fn arrived_from(fates: &[Fate], from: SocketAddr, after: Duration, until: Duration) -> bool {
    let arrived = |x: &Fate| matches!(x.outcome, Outcome::Delivered(a) if a > after && a <= until);
    fates.iter().any(|x| x.from == from && arrived(x) && x.first_arrival(fates) > after)
}

/// The idle-outs of `host`'s connections (either end), judged: `Ok` with why
/// if the network explains one of them, else `Err` with why not (`None`:
/// none idled out).
pub fn excused(fates: &[Fate], idle_outs: &[IdleOut], rig: &[RigPath], host: IpAddr) -> Option<Result<String, String>> {
    let judged = idle_outs.iter().filter(|o| o.local.ip() == host || host_of(fates, o.peer) == host).map(|o| judge(fates, o, rig));
    judged.reduce(|a, b| a.or(b))
}

/// An excuse's words for a law's detail ("" when there was none to judge).
pub fn describe(excuse: &Option<Result<String, String>>) -> String {
    match excuse {
        Some(Ok(why)) => format!("; excused: {why}"),
        Some(Err(why)) => format!("; its idle-out is not the network's doing: {why}"),
        None => String::new(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::Duration;

    const PHONE: &str = "10.0.1.2:49152";
    const PHONE_OUT: &str = "192.0.2.1:49152";
    const CLOUD: &str = "203.0.113.10:443";
    /// Marks the cloud's datagrams' bytes apart from the phone's of the same time.
    const DOWN: u64 = 1 << 40;

    fn a(s: &str) -> SocketAddr {
        s.parse().expect("address")
    }

    fn ms(n: u64) -> Duration {
        Duration::from_millis(n)
    }

    /// The phone to the cloud at `t`, delivered 20 ms later.
    fn up(t: u64) -> Fate {
        let to = a(CLOUD);
        let outcome = Outcome::Delivered(ms(t + 20));
        Fate { sent: ms(t), from_host: a(PHONE).ip(), from: a(PHONE_OUT), to, to_host: Some(to.ip()), outcome, bytes: t, long_only: false }
    }

    /// The cloud to the phone at `t`, with `outcome`.
    fn down(t: u64, outcome: Outcome) -> Fate {
        Fate {
            sent: ms(t),
            from_host: a(CLOUD).ip(),
            from: a(CLOUD),
            to: a(PHONE_OUT),
            to_host: Some(a(PHONE).ip()),
            outcome,
            bytes: t | DOWN,
            long_only: false,
        }
    }

    fn phone_idles_at(t: u64) -> IdleOut {
        IdleOut { at: ms(t), local: a(PHONE), peer: a(CLOUD), since: ms(0), peer_confirmed: None }
    }

    #[test]
    fn every_answer_lost_to_a_fault_is_the_networks_doing() {
        let fates = [down(1_000, Outcome::Delivered(ms(1_020))), up(17_700), down(17_720, Outcome::Fault), up(25_400), down(25_420, Outcome::Fault)];
        let why = judge(&fates, &phone_idles_at(31_020), &[]).expect("excused");
        assert!(why.contains("lost all 2"), "{why}");
    }

    /// Under the rig, the phone moved to `PHONE_NEW` at 10 s: the cloud probes it
    /// once (delivered at 10,040 ms) and keeps answering at the old address,
    /// where the NAT drops everything; `answer` is the fate of the phone's
    /// datagram after the probe (its PATH_RESPONSE).
    fn rig_stuck(answer: Outcome) -> (Vec<Fate>, Vec<RigPath>) {
        const PHONE_NEW: &str = "198.51.100.1:49152";
        let new = |t, outcome| Fate { from: a(PHONE_NEW), outcome, ..up(t) };
        let probe = Fate { to: a(PHONE_NEW), ..down(10_020, Outcome::Delivered(ms(10_040))) };
        let fates = vec![up(1_000), down(1_020, Outcome::Delivered(ms(1_040))), new(10_000, Outcome::Delivered(ms(10_020))), probe];
        let tail = [new(10_040, answer), down(10_060, Outcome::Nat), new(15_000, Outcome::Delivered(ms(15_020))), down(15_020, Outcome::Nat)];
        let notes = vec![RigPath { at: ms(10_020), remote: a(PHONE_NEW), event: RigPathEvent::Probed }];
        (fates.into_iter().chain(tail).collect(), notes)
    }

    #[test]
    fn under_the_rig_answers_to_the_old_address_while_validation_is_lost_are_the_networks() {
        let (fates, notes) = rig_stuck(Outcome::Fault);
        let why = judge(&fates, &phone_idles_at(31_020), &notes).expect("excused");
        assert!(why.contains("2 of them to its old address"), "{why}");
        // Without the rig's events they are quinn's probe of the old path and its
        // return there once validation failed, its one round lost to the network
        // (RFC 9000 sections 9.3.3 and 9.3.2).
        let why = judge(&fates, &phone_idles_at(31_020), &[]).expect("excused");
        assert!(!why.contains("old address"), "{why}");
    }

    #[test]
    fn a_strangers_datagram_beside_the_phones_is_not_the_phone() {
        // corpus/rig-fleet-migrate-strangers-answer-lost-13400029351.toml: a
        // stranger behind the phone's new NAT sends the cloud its own datagram
        // after the move; the cloud's reply to it dies at the NAT. Neither says
        // where the phone is, nor asks the phone's peer for an answer.
        let (mut fates, notes) = rig_stuck(Outcome::Fault);
        let stranger = a("198.51.100.1:10003");
        let theirs = Fate { from: stranger, ..up(12_000) };
        let reply = Fate { to: stranger, ..down(12_020, Outcome::Nat) };
        fates.extend([theirs, reply, down(13_000, Outcome::Nat)]);
        let why = judge(&fates, &phone_idles_at(31_020), &notes).expect("excused");
        assert!(why.contains("3 of them to its old address"), "{why}");
    }

    /// Under the rig the phone's new address is validated at 12,060 ms by an
    /// answer that a later packet overtook, so quic-go does not move on it
    /// (corpus/rig-fleet-migrate-kernel-filter-validated-answer-overtaken-13400001841.toml);
    /// `later`: a packet of the phone's new address after that.
    fn rig_validated_late(later: bool) -> (Vec<Fate>, Vec<RigPath>) {
        let (mut fates, mut notes) = rig_stuck(Outcome::Fault);
        fates.retain(|f| f.sent < ms(15_000));
        let new = |t, outcome| Fate { from: a("198.51.100.1:49152"), outcome, ..up(t) };
        let probe = Fate { to: a("198.51.100.1:49152"), ..down(12_000, Outcome::Delivered(ms(12_020))) };
        fates.extend([new(11_980, Outcome::Delivered(ms(12_000))), probe, new(12_030, Outcome::Delivered(ms(12_050)))]);
        fates.extend([new(12_030, Outcome::Delivered(ms(12_060))), down(13_000, Outcome::Nat)]);
        if later {
            fates.push(new(20_000, Outcome::Delivered(ms(20_020))));
        }
        let note = |t, event| RigPath { at: ms(t), remote: a("198.51.100.1:49152"), event };
        notes.extend([note(12_000, RigPathEvent::Probed), note(12_060, RigPathEvent::Validated)]);
        (fates, notes)
    }

    #[test]
    fn under_the_rig_a_validated_address_no_packet_followed_is_not_moved_to() {
        let (fates, notes) = rig_validated_late(false);
        let why = judge(&fates, &phone_idles_at(31_020), &notes).expect("excused");
        assert!(why.contains("to its old address"), "{why}");
        let (fates, notes) = rig_validated_late(true);
        let err = judge(&fates, &phone_idles_at(31_020), &notes).expect_err("a later packet would have moved it");
        assert!(err.contains("was Nat"), "{err}");
    }

    #[test]
    fn under_the_rig_an_address_heard_only_behind_forged_copies_is_not_heard() {
        // corpus/rig-fleet-migrate-forged-copies-hide-the-move-12148839171005419450.toml: the
        // phone's datagram from a newer address reaches the cloud 1 ms after a
        // forged copy of it, which the cloud took; the cloud never heard the newer
        // address, so where it last heard the phone is the validated one no packet
        // followed.
        let (mut fates, notes) = rig_validated_late(false);
        let newer = Fate { from: a("192.0.2.1:49154"), outcome: Outcome::Delivered(ms(12_071)), ..up(12_050) };
        let copy = Fate { from: a("192.0.2.1:20013"), outcome: Outcome::Delivered(ms(12_070)), ..newer.clone() };
        fates.extend([copy, newer.clone()]);
        assert!(judge(&fates, &phone_idles_at(31_020), &notes).is_ok(), "{:?}", judge(&fates, &phone_idles_at(31_020), &notes));
        // Without the copy the cloud heard the newer address and never probed it.
        fates.retain(|f| f.from != a("192.0.2.1:20013"));
        assert!(judge(&fates, &phone_idles_at(31_020), &notes).is_err());
    }

    #[test]
    fn under_the_rig_a_duplicate_of_the_answer_is_no_later_packet() {
        // corpus/rig-fleet-migrate-kernel-filter-duplicated-answer-13500003100.toml:
        // the link duplicates the answer's datagram; its copy arrives after the
        // validation and is dropped as a duplicate packet, so nothing moves the
        // connection.
        let (mut fates, notes) = rig_validated_late(false);
        let copy = Fate { from: a("198.51.100.1:49152"), outcome: Outcome::Delivered(ms(12_075)), ..up(12_030) };
        fates.push(copy);
        assert!(judge(&fates, &phone_idles_at(31_020), &notes).is_ok(), "{:?}", judge(&fates, &phone_idles_at(31_020), &notes));
    }

    #[test]
    fn under_the_rig_a_delivered_answer_does_not_excuse_staying_on_the_old_address() {
        let (fates, notes) = rig_stuck(Outcome::Delivered(ms(10_060)));
        let err = judge(&fates, &phone_idles_at(31_020), &notes).expect_err("not excused");
        assert!(err.contains("was Nat"), "{err}");
    }

    #[test]
    fn a_peer_that_answers_nothing_is_not_excused() {
        // What the no-routing switch looks like: the phone's probes reach the
        // cloud's host and nothing comes back.
        let fates = [down(1_000, Outcome::Delivered(ms(1_020))), up(17_700), up(25_400)];
        assert!(judge(&fates, &phone_idles_at(31_020), &[]).is_err());
    }

    /// The phone's handshake probes (long headers only) reach the cloud at 17.72
    /// and 25.42 s unanswered, and the cloud's answers to its other datagrams
    /// are lost; `confirmed`: when the cloud confirmed the handshake.
    fn handshake_probes(long_only: bool, confirmed: Option<u64>) -> Result<String, String> {
        let probe = |t| Fate { long_only, ..up(t) };
        let fates = [down(1_000, Outcome::Delivered(ms(1_020))), up(2_000), down(2_020, Outcome::Fault), probe(17_700), probe(25_400)];
        let o = IdleOut { peer_confirmed: confirmed.map(ms), ..phone_idles_at(31_020) };
        judge(&fates, &o, &[])
    }

    #[test]
    fn handshake_probes_a_confirmed_peer_cannot_read_need_no_answer() {
        let why = handshake_probes(true, Some(1_500)).expect("excused");
        assert!(why.contains("lost all 1"), "{why}");
        // Before the cloud confirmed, it holds the Handshake keys and must answer.
        assert!(handshake_probes(true, Some(20_000)).expect_err("not excused").contains("of 17.700000s"));
        assert!(handshake_probes(true, None).is_err());
        // A 1-RTT datagram it can read.
        assert!(handshake_probes(false, Some(1_500)).is_err());
    }

    #[test]
    fn a_peer_that_holds_its_ack_back_is_not_excused() {
        // The cloud's end idles out; the phone heard the cloud's probe at
        // 23.09 s and sent nothing back (quinn-proto without PATCH.md section
        // 7): its probes lost in the outage do not excuse that.
        let o = IdleOut { at: ms(33_740), local: a(CLOUD), peer: a(PHONE_OUT), since: ms(0), peer_confirmed: None };
        let probe = Fate { sent: ms(22_850), to: a(PHONE_OUT), ..down(22_850, Outcome::Delivered(ms(23_090))) };
        let lost = |t| Fate { outcome: Outcome::Fault, ..up(t) };
        let fates = [up(3_700), lost(14_440), probe];
        let err = judge(&fates, &o, &[]).expect_err("not excused");
        assert!(err.contains("not answered"), "{err}");
    }

    #[test]
    fn an_answer_a_nat_dropped_is_not_excused() {
        // The stale reactor probes the address the phone left: its old NAT
        // forgot it. One lost answer beside it does not excuse it.
        let fates = [down(1_000, Outcome::Delivered(ms(1_020))), down(5_000, Outcome::Nat), down(9_000, Outcome::Fault)];
        let err = judge(&fates, &phone_idles_at(31_020), &[]).expect_err("not excused");
        assert!(err.contains("Nat"), "{err}");
    }

    /// The phone from its new NAT (after a move) to the cloud at `t`, with `outcome`.
    fn up_moved(t: u64, outcome: Outcome) -> Fate {
        Fate { from: a("198.51.100.1:49152"), outcome, ..up(t) }
    }

    #[test]
    fn answers_to_the_old_address_are_the_networks_doing_when_every_packet_from_the_new_one_was_lost() {
        // The phone moves; each probe it sends from its new address is lost, so the
        // cloud, hearing nothing new, probes the address it knew, which the old NAT
        // forgot.
        let fates = [
            up(900),
            down(1_000, Outcome::Delivered(ms(1_020))),
            up_moved(6_000, Outcome::Fault),
            up_moved(14_800, Outcome::Fault),
            down(20_750, Outcome::Nat),
            up_moved(23_700, Outcome::Fault),
        ];
        let why = judge(&fates, &phone_idles_at(31_020), &[]).expect("excused");
        assert!(why.contains("lost all 1"), "{why}");
    }

    #[test]
    fn answers_to_the_old_address_after_the_new_one_reached_the_peer_are_not_excused() {
        // The no-routing shape: a packet from the new address reached the cloud's
        // host, and the cloud still probes the old address.
        let fates = [
            up(900),
            down(1_000, Outcome::Delivered(ms(1_020))),
            up_moved(6_000, Outcome::Delivered(ms(6_020))),
            down(20_750, Outcome::Nat),
            down(21_000, Outcome::Fault),
        ];
        let err = judge(&fates, &phone_idles_at(31_020), &[]).expect_err("not excused");
        assert!(err.contains("Nat"), "{err}");
    }

    /// The cloud to the phone's new NAT address at `t`, with `outcome`.
    fn down_moved(t: u64, outcome: Outcome) -> Fate {
        Fate { to: a("198.51.100.1:49152"), ..down(t, outcome) }
    }

    #[test]
    fn answers_to_the_old_address_after_validating_the_new_one_failed_are_the_networks_doing() {
        // corpus/quic-echo-gone-fresh-seeds-9400135905.toml: the phone's probes
        // from its new address reach the cloud, which validates the new path;
        // both its datagrams there are lost, validation fails, and it goes back
        // to the old path (RFC 9000 section 9.3.2), which the old NAT forgot.
        let fates = [
            up(4_100),
            down(4_060, Outcome::Delivered(ms(4_080))),
            up_moved(24_880, Outcome::Delivered(ms(24_900))),
            down_moved(24_900, Outcome::Fault),
            down_moved(24_900, Outcome::Fault),
            down(27_972, Outcome::Nat),
        ];
        let why = judge(&fates, &phone_idles_at(35_040), &[]).expect("excused");
        assert!(why.contains("lost all 3"), "{why}");
    }

    /// The cloud validates the phone's new address: one of its two datagrams there
    /// is lost, the other reaches the phone at 24,920 ms; then it goes back to the
    /// old address the old NAT forgot.
    fn one_reached_the_new_address() -> Vec<Fate> {
        vec![
            up(4_100),
            down(4_060, Outcome::Delivered(ms(4_080))),
            up_moved(24_880, Outcome::Delivered(ms(24_900))),
            down_moved(24_900, Outcome::Fault),
            down_moved(24_900, Outcome::Delivered(ms(24_920))),
            down(27_972, Outcome::Nat),
        ]
    }

    #[test]
    fn answers_to_the_old_address_after_one_reached_the_new_one_are_not_excused() {
        // Nothing of the phone's lost or held after it: going back to the old
        // address then is the cloud's mistake.
        assert!(judge(&one_reached_the_new_address(), &phone_idles_at(35_040), &[]).is_err());
    }

    /// Fresh seeds 14210000000 (quinn's own migration): the cloud's datagram to
    /// the phone's new address reached it, but congestion control let only an
    /// ACK go, its PATH_RESPONSE held back (RFC 9000 section 8.2.2); the cloud's
    /// validation failed and it went back to the old address the NAT forgot.
    /// The held answer is the network's loss (it spent the window); another
    /// host's held answer says nothing of the phone's.
    #[test]
    fn answers_to_the_old_address_after_the_phone_held_its_answer_are_the_networks_doing() {
        let mut fates = one_reached_the_new_address();
        fates.insert(5, up_moved(24_920, Outcome::Delivered(ms(24_940))));
        let held = |host: &str| RigPath { at: ms(24_920), remote: SocketAddr::new(a(host).ip(), 0), event: RigPathEvent::AnswerHeld };
        let why = judge(&fates, &phone_idles_at(35_040), &[held(PHONE)]).expect("excused");
        assert!(why.contains("lost all 1"), "{why}");
        assert!(judge(&fates, &phone_idles_at(35_040), &[held(CLOUD)]).is_err());
        assert!(judge(&fates, &phone_idles_at(35_040), &[]).is_err());
    }

    /// Fresh seeds 14270000000: the phone rebinds to the moved address, and later (in a
    /// blackhole) to a third; the cloud's one datagram to the third is lost, its
    /// validation fails, and it goes back to the moved address, which the NAT forgot.
    /// The address the phone had before the moved one is old news: what the cloud
    /// sent there was answered long before.
    #[test]
    fn only_an_address_heard_after_the_one_gone_back_to_is_newer() {
        let third = a("192.0.2.1:49154");
        let fates = [
            up(900),
            down(1_000, Outcome::Delivered(ms(1_020))),
            up_moved(3_000, Outcome::Delivered(ms(3_020))),
            down_moved(3_020, Outcome::Delivered(ms(3_040))),
            Fate { from: third, ..up_moved(24_140, Outcome::Delivered(ms(24_160))) },
            Fate { to: third, ..down_moved(24_165, Outcome::Fault) },
            down_moved(24_465, Outcome::Nat),
        ];
        let why = judge(&fates, &phone_idles_at(39_070), &[]).expect("excused");
        assert!(why.contains("lost all 2"), "{why}");
    }

    #[test]
    fn a_datagram_that_arrived_twice_is_answered_from_its_first_arrival() {
        // corpus/fleet-migrate-forged-move-validation-lost-9900035825.toml: a
        // forged copy arrives 1 ms ahead of the original; the cloud answers the
        // copy (its reply to the forged port dies at the NAT, the attack's
        // doing) and its challenge of the phone's old address dies there too.
        let copy = up_moved(14_210, Outcome::Delivered(ms(14_230)));
        let original = up_moved(14_210, Outcome::Delivered(ms(14_231)));
        let to_forged = Fate { to: a("198.51.100.1:20016"), ..down(14_230, Outcome::Fault) };
        let fates = [up(4_100), down(4_060, Outcome::Delivered(ms(4_080))), copy, original.clone(), down(14_230, Outcome::Nat), to_forged.clone()];
        assert!(judge(&fates, &phone_idles_at(35_040), &[]).is_ok(), "{:?}", judge(&fates, &phone_idles_at(35_040), &[]));
        // Without the copy the original was not answered.
        let fates = [up(4_100), down(4_060, Outcome::Delivered(ms(4_080))), original, down(14_230, Outcome::Nat), to_forged];
        assert!(judge(&fates, &phone_idles_at(35_040), &[]).is_err());
    }

    /// A datagram the link reordered arrives 1 µs behind the one it waited for;
    /// the cloud reads it in the next step ([`fate::read_at`]): what it sent in
    /// that step is an answer, what it sent in the step the datagram arrived in,
    /// before reading it, is not.
    #[test]
    fn a_datagram_is_answered_from_the_step_it_is_read_in() {
        let reordered = Fate { outcome: Outcome::Delivered(Duration::from_micros(10_020_001)), ..up(10_000) };
        let fates = [down(1_000, Outcome::Delivered(ms(1_020))), reordered, down(10_021, Outcome::Fault)];
        let why = judge(&fates, &phone_idles_at(31_020), &[]).expect("excused");
        assert!(why.contains("lost all 1"), "{why}");
        let fates = [down(1_000, Outcome::Delivered(ms(1_020))), fates[1].clone(), down(10_020, Outcome::Fault)];
        assert!(judge(&fates, &phone_idles_at(31_020), &[]).expect_err("not excused").contains("not answered"));
    }

    #[test]
    fn a_held_copy_let_go_later_needs_no_answer() {
        // corpus/rig-fleet-migrate-forged-copies-hide-the-move-12148839171005419450.toml:
        // the link duplicated a datagram of the phone and held one copy; let go
        // long after, it is a duplicate packet the cloud drops unread.
        let held = Fate { sent: ms(20_000), outcome: Outcome::Delivered(ms(20_020)), ..up(900) };
        let fates = [up(900), down(1_000, Outcome::Delivered(ms(1_020))), held, down(25_000, Outcome::Fault)];
        let why = judge(&fates, &phone_idles_at(31_020), &[]).expect("excused");
        assert!(why.contains("lost all 1"), "{why}");
    }

    #[test]
    fn a_copy_held_and_let_go_was_sent_with_its_original() {
        // Fresh seed 13700016374 (fleet-migrate-kernel-filter, 14.7 % reordering):
        // the phone's datagram sent while it still heard the cloud (an ACK, which
        // needs no answer) was held 200 ms by the link and let go after the phone
        // stopped hearing the cloud; it was not sent then.
        let held = Fate { outcome: Outcome::Fault, ..up(1_030) };
        let let_go = Fate { sent: ms(1_230), outcome: Outcome::Delivered(ms(1_240)), ..up(1_030) };
        let fates = [down(1_000, Outcome::Delivered(ms(1_020))), held, let_go.clone(), down(25_000, Outcome::Fault)];
        let why = judge(&fates, &phone_idles_at(31_020), &[]).expect("excused");
        assert!(why.contains("lost all 1"), "{why}");
        // Sent by the phone at 1.23 s, it would have wanted an answer.
        let fates = [down(1_000, Outcome::Delivered(ms(1_020))), let_go, down(25_000, Outcome::Fault)];
        assert!(judge(&fates, &phone_idles_at(31_020), &[]).expect_err("not excused").contains("not answered"));
    }

    #[test]
    fn a_datagram_to_the_address_just_left_is_not_the_peers_mistake() {
        // corpus/fleet-migrate-forged-move-validation-lost-9900035825.toml under
        // quic-go's probe timeout: the cloud's probe went to the phone's Wi-Fi
        // address 26 ms after the phone switched networks (into a blackhole), before
        // the phone had sent anything from its new one. The cloud could not know.
        let fates = [up(9_080), down(9_060, Outcome::Delivered(ms(9_080))), down(9_126, Outcome::Nat)];
        let why = judge(&fates, &phone_idles_at(39_100), &[]).expect("excused");
        assert!(why.contains("lost all 1"), "{why}");
        // Once a datagram from its new address had reached the cloud, it is the cloud's mistake.
        let moved = Fate { from: a("198.51.100.1:49152"), ..up(9_110) };
        let fates = [up(9_080), down(9_060, Outcome::Delivered(ms(9_080))), moved, down(9_140, Outcome::Nat)];
        assert!(judge(&fates, &phone_idles_at(39_100), &[]).is_err());
    }

    /// Fresh seeds 14350000000 (quic-echo, rig): the phone moved to cellular before
    /// its handshake was confirmed; the only datagrams of its that reached the cloud
    /// from there were Handshake probes, which the cloud (its Handshake keys
    /// discarded) could not read and no stack moves on; its 1-RTT packets from there
    /// were lost. The cloud's datagram to the Wi-Fi address is no mistake of its.
    #[test]
    fn handshake_probes_from_the_new_address_do_not_tell_the_peer_of_the_move() {
        let probe = |long_only| Fate { from: a("198.51.100.1:49152"), long_only, ..up(5_386) };
        let fates =
            |long_only| [up(4_786), down(4_927, Outcome::Delivered(ms(4_947))), probe(long_only), down(5_555, Outcome::Nat), up_moved(5_786, Outcome::Fault)];
        // The cloud confirmed the handshake (and dropped its Handshake keys) at 4,947 ms.
        let idle = IdleOut { peer_confirmed: Some(ms(4_947)), ..phone_idles_at(35_000) };
        let why = judge(&fates(true), &idle, &[]).expect("excused");
        assert!(why.contains("lost all 1"), "{why}");
        // A 1-RTT datagram from there would have told it.
        assert!(judge(&fates(false), &idle, &[]).is_err());
    }

    #[test]
    fn an_address_left_before_the_last_one_is_old_news() {
        // Fresh seeds 13750000000 (fleet-migrate): the phone moved from Wi-Fi to
        // cellular (heard there at 6.97 s), then its cellular NAT rebound at 9.8 s
        // inside a blackhole; the cloud's datagram of 10.13 s to the cellular
        // address died at the NAT. What the cloud heard from the Wi-Fi address
        // before the move teaches it nothing of the rebind.
        let cell = Fate { from: a("198.51.100.1:49152"), outcome: Outcome::Delivered(ms(6_966)), ..up(6_813) };
        let rebound = |t, outcome| Fate { from: a("198.51.100.1:49153"), outcome, ..up(t) };
        let to_cell = |t| Fate { to: a("198.51.100.1:49152"), ..down(t, Outcome::Nat) };
        let answer = Fate { to: a("198.51.100.1:49152"), ..down(6_966, Outcome::Delivered(ms(7_119))) };
        let mut fates = vec![up(900), down(1_000, Outcome::Delivered(ms(1_020))), cell, answer, rebound(10_909, Outcome::Fault), to_cell(10_130)];
        // Still on its way when the cloud sent to the cellular address again.
        fates.push(rebound(13_713, Outcome::Delivered(ms(13_867))));
        fates.push(to_cell(13_746));
        fates.push(Fate { to: a("198.51.100.1:49153"), ..down(13_867, Outcome::Fault) });
        let why = judge(&fates, &phone_idles_at(37_119), &[]).expect("excused");
        assert!(why.contains("lost all 3"), "{why}");
        // Once the cloud's datagram to the rebound address had reached the phone, with
        // nothing of the phone's lost or held after it, sending to the old one is the
        // cloud's mistake (before that, its validation of the rebound address had failed
        // to the network: the datagram of 13,867 ms lost).
        fates.push(Fate { to: a("198.51.100.1:49153"), ..down(13_880, Outcome::Delivered(ms(13_900))) });
        fates.push(to_cell(13_950));
        assert!(judge(&fates, &phone_idles_at(37_119), &[]).is_err());
    }

    #[test]
    fn a_forged_copy_does_not_tell_the_peer_where_the_phone_is() {
        // The same run: at 13.866 s an attacker's copy of the phone's first datagram
        // after the rebind reaches the cloud from a forged port, 1 ms ahead of the
        // original; the cloud's datagram of that moment to the cellular address dies
        // at the NAT. The cloud had heard the phone itself only there.
        let cell = Fate { from: a("198.51.100.1:49152"), outcome: Outcome::Delivered(ms(6_966)), ..up(6_813) };
        let answer = Fate { to: a("198.51.100.1:49152"), ..down(6_966, Outcome::Delivered(ms(7_119))) };
        let original = Fate { from: a("198.51.100.1:49153"), outcome: Outcome::Delivered(ms(13_867)), ..up(13_713) };
        let copy = Fate { from: a("198.51.100.1:20005"), outcome: Outcome::Delivered(ms(13_866)), ..original.clone() };
        let to_cell = Fate { to: a("198.51.100.1:49152"), ..down(13_866, Outcome::Nat) };
        let reply = Fate { to: a("198.51.100.1:49153"), ..down(13_867, Outcome::Fault) };
        let fates = vec![up(900), down(1_000, Outcome::Delivered(ms(1_020))), cell, answer, copy, original, to_cell, reply];
        let why = judge(&fates, &phone_idles_at(37_119), &[]).expect("excused");
        assert!(why.contains("lost all 2"), "{why}");
    }

    /// The phone's first datagram after a rebind reaches the cloud 1 ms behind
    /// a forged copy of it (`copy_first`) or ahead of it, and the cloud then
    /// sends to the cellular address the phone left (the NAT drops it).
    fn behind_a_forged_copy(copy_first: bool) -> Result<String, String> {
        let cell = Fate { from: a("198.51.100.1:49152"), outcome: Outcome::Delivered(ms(6_966)), ..up(6_813) };
        let answer = Fate { to: a("198.51.100.1:49152"), ..down(6_966, Outcome::Delivered(ms(7_119))) };
        let original = Fate { from: a("198.51.100.1:49153"), outcome: Outcome::Delivered(ms(13_867)), ..up(13_713) };
        let copy_at = if copy_first { 13_866 } else { 13_868 };
        let copy = Fate { from: a("198.51.100.1:20005"), outcome: Outcome::Delivered(ms(copy_at)), ..original.clone() };
        let to_cell = Fate { to: a("198.51.100.1:49152"), ..down(13_900, Outcome::Nat) };
        let reply = Fate { to: a("198.51.100.1:49153"), ..down(13_910, Outcome::Fault) };
        let fates = vec![up(900), down(1_000, Outcome::Delivered(ms(1_020))), cell, answer, copy, original, to_cell, reply];
        judge(&fates, &phone_idles_at(37_119), &[])
    }

    #[test]
    fn an_original_behind_its_forged_copy_does_not_tell_the_peer_of_the_move() {
        // Fresh seeds 14000000000: a duplicate packet is dropped before the
        // cloud looks at its address, so the cloud had not heard the new one.
        assert!(behind_a_forged_copy(true).expect("excused").contains("lost all 2"));
        let err = behind_a_forged_copy(false).expect_err("the cloud heard the new address first");
        assert!(err.contains("was Nat"), "{err}");
    }

    #[test]
    fn a_held_packet_a_later_one_overtook_needs_no_answer() {
        // Fresh seeds 13800000000 (fleet-still): two packets of a probe at 20.678 s;
        // the link held the first 200 ms, the second arrived at once and carried a key
        // update; the held one came after the old keys were discarded, unread.
        let held = Fate { outcome: Outcome::Fault, ..up(20_678) };
        let let_go = Fate { sent: ms(20_878), outcome: Outcome::Delivered(ms(20_888)), ..up(20_678) };
        let beside = Fate { bytes: 20_679, outcome: Outcome::Delivered(ms(20_688)), ..up(20_678) };
        let fates = [down(1_000, Outcome::Delivered(ms(1_020))), held.clone(), beside.clone(), let_go.clone(), down(20_689, Outcome::Fault)];
        let why = judge(&fates, &phone_idles_at(31_020), &[]).expect("excused");
        assert!(why.contains("lost all 1"), "{why}");
        // Had nothing overtaken it, the held packet would want its answer.
        let beside_late = Fate { outcome: Outcome::Delivered(ms(20_950)), ..beside };
        let fates = [down(1_000, Outcome::Delivered(ms(1_020))), held, beside_late, let_go, down(20_689, Outcome::Fault)];
        assert!(judge(&fates, &phone_idles_at(31_020), &[]).expect_err("not excused").contains("not answered"));
    }

    #[test]
    fn only_what_came_after_the_last_delivery_counts() {
        // A lost answer before the phone last heard the cloud explains nothing.
        let fates = [down(500, Outcome::Fault), down(1_000, Outcome::Delivered(ms(1_020)))];
        assert!(judge(&fates, &phone_idles_at(31_020), &[]).is_err());
    }

    #[test]
    fn an_idle_out_of_the_cloud_side_is_judged_for_the_phone_host() {
        // The cloud's end idles out; its peer is the phone's public address.
        let o = IdleOut { at: ms(31_000), local: a(CLOUD), peer: a(PHONE_OUT), since: ms(0), peer_confirmed: None };
        let up_lost = Fate { outcome: Outcome::Fault, ..up(9_000) };
        let fates = [up(900), up_lost];
        assert!(excused(&fates, &[o], &[], a(PHONE).ip()).is_some_and(|r| r.is_ok()));
    }
}
