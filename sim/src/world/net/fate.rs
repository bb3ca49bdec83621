//! What became of every UDP datagram the world carried (tunnelled TCP aside):
//! delivered and when, or dropped, and by what. Laws read it to tell a
//! connection the network killed from one a model lost: an idle-out after
//! every answer the peer sent was lost on the way is QUIC keeping its rules
//! (`crate::scenario::idle_out`), not a bug of the reactors.

use std::collections::BTreeMap;
use std::net::{IpAddr, SocketAddr};
use std::time::Duration;

/// How a datagram ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Outcome {
    /// It reached its host at this time (a duplicate is a second fate).
    Delivered(Duration),
    /// A fault of the plan dropped it (loss, a blackhole, an MTU), or held it:
    /// a held one that is let go later is a `Delivered` fate of its own.
    Fault,
    /// A NAT dropped it (no mapping, filtered), or nothing routes to it.
    Nat,
    /// The destination refused it at once (ICMP unreachable).
    Refused,
}

/// One datagram.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Fate {
    /// When it was sent (a held datagram let go later: when it was let go).
    pub sent: Duration,
    /// The sender's own address (inside its NAT, if it has one).
    pub from_host: IpAddr,
    /// Its source as the receiver sees it (a NAT's public address).
    pub from: SocketAddr,
    /// The destination its sender sent it to (one let go after a hold too:
    /// its own, as its fate when held recorded it, not the address of the
    /// datagram behind which it was let go).
    pub to: SocketAddr,
    /// The host it was for: the one it reached, or the one behind the NAT
    /// that dropped it (`None`: nobody known).
    pub to_host: Option<IpAddr>,
    pub outcome: Outcome,
    /// The payload's hash (the journal's FNV-1a): a datagram's identity across its
    /// copies (the link's duplicates, a forged copy, a held one let go later).
    pub bytes: u64,
    /// Every QUIC packet in it has a long header (Initial, 0-RTT, Handshake:
    /// [`super::quic_header::long_headers_only`]), so a receiver that has
    /// confirmed its handshake cannot read it; `false` for TCP.
    pub long_only: bool,
}

/// The world's step in which a host reads a datagram that arrives at `t`: the
/// first step starting at or after `t` (`world::TICK`). A host whose step starts
/// at `s` receives the datagrams due by `s` (sim/vendor/turmoil/PATCH.md, 2), and
/// what it sends in that step carries the time `s`; so a datagram arriving 1 µs
/// after `s` (the reorder piece lets a held one go 1 µs behind the one it waited
/// for) is read a step later, after the host's sends of step `s` (quinn-proto's
/// trace of `corpus/fleet-migrate-answer-lost-in-the-step-both-arrived-14310114372.toml`:
/// a copy arriving at 6.677001 s is read at 6.678 s). The laws that ask whether
/// a host answered what reached it compare in these steps.
pub fn read_at(t: Duration) -> Duration {
    let tick = crate::world::TICK.as_nanos();
    Duration::from_nanos(t.as_nanos().div_ceil(tick) as u64 * tick as u64)
}

impl Fate {
    /// When it reached its host, if it did.
    pub fn arrival(&self) -> Option<Duration> {
        match self.outcome {
            Outcome::Delivered(a) => Some(a),
            _ => None,
        }
    }

    /// Whether `other` is a copy of this datagram: the same bytes from the same
    /// host to the same address (the link's duplicate, a forged copy, a held one
    /// let go later, or itself).
    pub fn is_copy(&self, other: &Fate) -> bool {
        self.bytes == other.bytes && self.to == other.to && self.from_host == other.from_host
    }

    /// The earliest arrival of this datagram or of a copy of it in `fates` (its
    /// send time if none arrived): where a receiver took it; a later copy is a
    /// duplicate packet, which a QUIC endpoint drops unread.
    pub fn first_arrival(&self, fates: &[Fate]) -> Duration {
        fates.iter().filter(|x| self.is_copy(x)).filter_map(Fate::arrival).min().unwrap_or(self.sent)
    }

    /// When its sender sent this datagram: the earliest send of it or of a copy
    /// of it in `fates` (a held one let go later was sent with its original).
    pub fn first_sent(&self, fates: &[Fate]) -> Duration {
        fates.iter().filter(|x| self.is_copy(x)).map(|x| x.sent).fold(self.sent, Duration::min)
    }
}

/// Every fate of a run, in the order the datagrams were sent.
#[derive(Debug, Default)]
pub struct Fates {
    pub log: Vec<Fate>,
    /// NAT index -> the host behind it now, or the last one that was.
    served: BTreeMap<usize, IpAddr>,
    /// A datagram's bytes -> the last fate recorded at its own send (delivered,
    /// dropped, or held by a fault): where a copy let go later finds its sender
    /// and address.
    sent_as: BTreeMap<u64, usize>,
}

impl Fates {
    /// `host` is behind NAT `nat` from now on.
    pub fn serve(&mut self, nat: usize, host: IpAddr) {
        self.served.insert(nat, host);
    }

    /// The host NAT `nat` serves, or last served.
    pub fn served_by(&self, nat: usize) -> Option<IpAddr> {
        self.served.get(&nat).copied()
    }

    /// The fate of a datagram at its own send: it, or a copy of it, was
    /// delivered, dropped or held.
    pub fn push(&mut self, fate: Fate) {
        self.sent_as.insert(fate.bytes, self.log.len());
        self.log.push(fate);
    }

    /// The fate of a datagram a fault held and let go later, behind another
    /// datagram or when its hold ran out: it keeps the sender and the
    /// destination of its own send ([`Self::sent_as`]; `fate`'s are the
    /// fallback, for bytes never sent, as a stranger's).
    pub fn push_let_go(&mut self, mut fate: Fate) {
        if let Some((from_host, to)) = self.sent_as(fate.bytes) {
            (fate.from_host, fate.to) = (from_host, to);
        }
        self.log.push(fate);
    }

    /// The sender and the destination of the datagram with `bytes`, as it was
    /// last sent, if it was: a datagram the link let go behind another keeps its
    /// own (fresh seeds 13860000000: one held before a NAT rebind and let go
    /// behind a probe to the phone's new address was taken for a second probe,
    /// which the rig excuse then found answered), and so does one of two copies
    /// the link made when the other went through, and one let go when its hold
    /// ran out (not the address inside the NAT it had reached; fresh seeds
    /// 14310000000: a held copy of a packet to the phone's Wi-Fi, let go behind a
    /// probe of its cellular address, was taken for a second probe there).
    pub fn sent_as(&self, bytes: u64) -> Option<(IpAddr, SocketAddr)> {
        self.sent_as.get(&bytes).map(|&i| (self.log[i].from_host, self.log[i].to))
    }
}

/// A QUIC connection that ended because its idle timeout passed (RFC 9000
/// section 10.1), as the driver of `local` saw it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct IdleOut {
    pub at: Duration,
    /// The endpoint that idled out (its own address, inside its NAT).
    pub local: SocketAddr,
    /// Its peer's address as it last knew it.
    pub peer: SocketAddr,
    /// When the endpoint's connection began (its driver made its slot).
    pub since: Duration,
    /// When the peer's end of the connection confirmed its handshake (RFC 9001
    /// section 4.1.2), which discards its Initial and Handshake keys (section
    /// 4.9.2): the first confirmation its host's driver noted ([`confirmed`]) of a
    /// connection from the endpoint's address since `since`; `None`: none.
    pub peer_confirmed: Option<Duration>,
}

/// What the rig's QUIC server did with an address a client's packets came
/// from (quinn-proto PATCH.md section 11: quic-go's probe, then switch), as its
/// driver saw it. Only with the plan's `quic = "rig"`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct RigPath {
    pub at: Duration,
    /// The client's address, as the server saw it.
    pub remote: SocketAddr,
    pub event: quinn_proto::RigPathEvent,
}

/// What the QUIC drivers tell the laws beside the datagrams' fates.
#[derive(Default)]
struct QuicNotes {
    idle_outs: Vec<(String, IdleOut)>,
    /// Each connection's handshake confirmed: its driver's host, when, and its peer's address.
    confirmed: Vec<(String, Duration, SocketAddr)>,
    /// The notes, a client's own with its host's name (its address is resolved at the end).
    rig_paths: Vec<(Option<String>, RigPath)>,
}

thread_local! {
    static QUIC_NOTES: std::cell::RefCell<QuicNotes> = std::cell::RefCell::new(QuicNotes::default());
}

/// A new run: no idle-out yet.
pub(crate) fn begin() {
    QUIC_NOTES.with(|v| *v.borrow_mut() = QuicNotes::default());
}

/// A driver's host by its name in `names` (a reactor's driver is named `host.rN`).
fn ip_of(names: &BTreeMap<IpAddr, String>, host: &str) -> Option<IpAddr> {
    let name = host.split('.').next().unwrap_or(host);
    names.iter().find(|(_, n)| n.as_str() == name).map(|(ip, _)| *ip)
}

/// The run's rig path events, in the order they were seen. A client's own note
/// ([`quinn_proto::RigPathEvent::AnswerHeld`]) names the client: its host's
/// address (port 0), by the host's name in `names`.
pub(crate) fn end_rig_paths(names: &BTreeMap<IpAddr, String>) -> Vec<RigPath> {
    let raw = QUIC_NOTES.with(|v| std::mem::take(&mut v.borrow_mut().rig_paths));
    let own = |host: Option<String>, r: RigPath| match host.as_deref().and_then(|h| ip_of(names, h)) {
        Some(ip) => RigPath { remote: SocketAddr::new(ip, 0), ..r },
        None => r,
    };
    raw.into_iter().map(|(host, r)| own(host, r)).collect()
}

/// The rig's QUIC server noted `event` for `remote` at `at`; or the client on
/// `host` noted its own (`AnswerHeld`).
pub fn rig_path(at: Duration, host: &str, remote: SocketAddr, event: quinn_proto::RigPathEvent) {
    let client = (event == quinn_proto::RigPathEvent::AnswerHeld).then(|| host.to_string());
    QUIC_NOTES.with(|v| v.borrow_mut().rig_paths.push((client, RigPath { at, remote, event })));
}

/// The run's idle-outs, in the order they happened. An endpoint bound to
/// 0.0.0.0 is given its host's address, by the host's name in `names` (a
/// reactor's driver is named `host.rN`), and each its peer's confirmation,
/// matched by the addresses `fates` show the endpoint sending from.
pub(crate) fn end(names: &BTreeMap<IpAddr, String>, fates: &[Fate]) -> Vec<IdleOut> {
    let (raw, confirmed) = QUIC_NOTES.with(|v| {
        let mut v = v.borrow_mut();
        (std::mem::take(&mut v.idle_outs), std::mem::take(&mut v.confirmed))
    });
    let own = |host: &str, local: SocketAddr| match (local.ip().is_unspecified(), ip_of(names, host)) {
        (true, Some(ip)) => SocketAddr::new(ip, local.port()),
        _ => local,
    };
    let confirmed: Vec<(Option<IpAddr>, Duration, SocketAddr)> = confirmed.into_iter().map(|(host, at, peer)| (ip_of(names, &host), at, peer)).collect();
    let resolve = |(host, o): (String, IdleOut)| {
        let o = IdleOut { local: own(&host, o.local), ..o };
        IdleOut { peer_confirmed: peer_confirmed(&o, &confirmed, fates), ..o }
    };
    raw.into_iter().map(resolve).collect()
}

/// The first confirmation, since `o` began, of a connection on the host of
/// `o`'s peer whose own peer was `o`'s endpoint (an address `fates` show it
/// sending from, or its own).
fn peer_confirmed(o: &IdleOut, confirmed: &[(Option<IpAddr>, Duration, SocketAddr)], fates: &[Fate]) -> Option<Duration> {
    let host_of = |a: SocketAddr| fates.iter().find(|f| f.from == a).map_or(a.ip(), |f| f.from_host);
    let (me, peer) = (o.local.ip(), host_of(o.peer));
    let mine = |c: &&(Option<IpAddr>, Duration, SocketAddr)| c.0 == Some(peer) && c.1 >= o.since && host_of(c.2) == me;
    confirmed.iter().filter(mine).map(|c| c.1).min()
}

/// The QUIC driver of `host` saw a connection of its socket at `local`, begun
/// at `since`, idle out.
pub fn idle_out(at: Duration, host: &str, local: SocketAddr, peer: SocketAddr, since: Duration) {
    let o = IdleOut { at, local, peer, since, peer_confirmed: None };
    QUIC_NOTES.with(|v| v.borrow_mut().idle_outs.push((host.to_string(), o)));
}

/// The QUIC driver of `host` saw a connection with `peer` confirm its handshake.
pub fn confirmed(at: Duration, host: &str, peer: SocketAddr) {
    QUIC_NOTES.with(|v| v.borrow_mut().confirmed.push((host.to_string(), at, peer)));
}

#[cfg(test)]
mod tests {
    use super::*;

    fn fate(sent: u64, to_port: u16, outcome: Outcome, bytes: u64) -> Fate {
        let ip = |d| IpAddr::from([203, 0, 113, d]);
        Fate {
            sent: Duration::from_millis(sent),
            from_host: ip(10),
            from: SocketAddr::new(ip(10), 443),
            to: SocketAddr::new(ip(1), to_port),
            to_host: None,
            outcome,
            bytes,
            long_only: false,
        }
    }

    /// A phone idles out of a connection begun at 10 s; its peer's confirmation is
    /// the cloud's first for a connection from the phone's NAT address since then.
    #[test]
    fn the_peers_confirmation_is_its_hosts_for_the_endpoint_since_it_began() {
        let (cloud, phone, nat) = (IpAddr::from([203, 0, 113, 10]), IpAddr::from([10, 0, 1, 2]), SocketAddr::from(([192, 0, 2, 1], 49152)));
        let ms = Duration::from_millis;
        let from_phone = Fate {
            sent: ms(1),
            from_host: phone,
            from: nat,
            to: SocketAddr::new(cloud, 443),
            to_host: Some(cloud),
            outcome: Outcome::Fault,
            bytes: 1,
            long_only: false,
        };
        let o = IdleOut { at: ms(50_000), local: SocketAddr::new(phone, 49152), peer: SocketAddr::new(cloud, 443), since: ms(10_000), peer_confirmed: None };
        let stranger = SocketAddr::from(([192, 0, 2, 1], 10_001));
        let notes = [
            (Some(cloud), ms(2_000), nat),
            (Some(cloud), ms(12_000), stranger),
            (Some(phone), ms(12_500), SocketAddr::new(cloud, 443)),
            (Some(cloud), ms(13_000), nat),
        ];
        let fates = [from_phone];
        assert_eq!(peer_confirmed(&o, &notes, &fates), Some(ms(13_000)));
        assert_eq!(peer_confirmed(&o, &notes[..3], &fates), None);
    }

    /// A datagram keeps the sender and address of its own send for a copy let
    /// go later: one held (a fault's fate), or one whose other copy was
    /// delivered; a later send of the same bytes is the one found, and a copy
    /// let go does not change it.
    #[test]
    fn a_let_go_datagram_keeps_its_own_address() {
        let mut fates = Fates::default();
        assert_eq!(fates.sent_as(7), None);
        fates.push(fate(1, 49152, Outcome::Delivered(Duration::from_millis(2)), 7));
        assert_eq!(fates.sent_as(7).map(|h| h.1.port()), Some(49152));
        fates.push(fate(3, 49153, Outcome::Fault, 8));
        assert_eq!(fates.sent_as(8).map(|h| h.1.port()), Some(49153));
        fates.push_let_go(fate(4, 49155, Outcome::Delivered(Duration::from_millis(5)), 7));
        assert_eq!(fates.log[2].to.port(), 49152);
        assert_eq!(fates.sent_as(7).map(|h| h.1.port()), Some(49152));
        fates.push(fate(5, 49154, Outcome::Fault, 7));
        assert_eq!(fates.sent_as(7).map(|h| h.1.port()), Some(49154));
        // Bytes never sent (a stranger's): the fate keeps its own.
        fates.push_let_go(fate(6, 49156, Outcome::Delivered(Duration::from_millis(7)), 9));
        assert_eq!(fates.log[4].to.port(), 49156);
    }

    /// A host reads a datagram in the first step starting at or after its arrival.
    #[test]
    fn a_datagram_is_read_in_the_first_step_at_or_after_it_arrives() {
        let us = Duration::from_micros;
        assert_eq!(read_at(us(6_677_000)), us(6_677_000));
        assert_eq!(read_at(us(6_677_001)), us(6_678_000));
        assert_eq!(read_at(us(6_677_999)), us(6_678_000));
    }
}
