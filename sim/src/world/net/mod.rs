//! The simulated network: turmoil carries the datagrams; this module decides
//! their fate through turmoil's network hook (see `sim/vendor/turmoil/PATCH.md`).
//!
//! A datagram from an inside host (phone, box) first meets that host's NAT, then
//! the fault chain of its leg in the "up" direction; a datagram to a NAT's
//! public address meets the leg's "down" chain and then the NAT. Everything
//! else (between hosts on the internet side) gets the default chain. Timed
//! actions of the fault plan (rebinds, network switches) are applied by the
//! network itself at their time, never from outside the run.
//!
//! TCP (the userspace TCP of `ftw-tcp`, bound by `crate::drive::tcp`) travels as
//! IPv4 packets in UDP datagrams between [`IP_TUNNEL_PORT`] on both hosts. A NAT
//! rewrites the inner packet (address, TCP port, checksums; see [`nat`]) and the
//! outer addresses; the fault chains treat such datagrams as TCP (loss, delay,
//! blackholes apply; `UdpBlocked` and `UdpRefused` let them pass).

pub mod capture;
pub mod fate;
pub mod fault;
pub mod log;
pub mod nat;
pub mod processing;
pub mod quic_header;

use std::cell::RefCell;
use std::collections::BTreeMap;
use std::io;
use std::net::{IpAddr, SocketAddr};
use std::rc::Rc;
use std::time::Duration;

use bytes::Bytes;
use rand_chacha::ChaCha20Rng;

use crate::world::trace;
use fault::{Chain, Ctx};
use nat::{Nat, NatDrop, Proto};

/// TCP travels as raw IPv4 packets inside UDP datagrams between this port on
/// both hosts (the userspace TCP in `ftw-tcp`); faults tell it from QUIC by it.
pub const IP_TUNNEL_PORT: u16 = 6;
/// IPv4 (20) + UDP (8) header bytes, for MTU checks and byte counts.
pub const IP_UDP_HEADER_BYTES: usize = 28;

/// One datagram in flight through a chain.
#[derive(Clone, Debug)]
pub struct InFlight {
    pub delay: Duration,
    pub src: SocketAddr,
    pub dst: SocketAddr,
    pub payload: Bytes,
}

impl InFlight {
    /// A tunnelled TCP segment (an IPv4 packet between the hosts' tunnel
    /// ports), not a UDP datagram of the application.
    pub fn is_tunnelled_tcp(&self) -> bool {
        self.src.port() == IP_TUNNEL_PORT && self.dst.port() == IP_TUNNEL_PORT
    }
}

/// The link between an edge host (behind its NAT) and the internet.
pub struct Leg {
    pub name: String,
    pub up: Chain,
    pub down: Chain,
}

/// A timed network action of the fault plan.
#[derive(Clone, Debug, PartialEq)]
pub enum NetAction {
    /// The host's NAT gives every flow of the host a new outside port.
    Rebind { host: IpAddr },
    /// The host moves to the NAT with index `nat` (Wi-Fi to cellular).
    Move { host: IpAddr, nat: usize },
}

/// A host's move to another NAT, and when its first UDP datagram from there
/// reached the other end (the moment the peer can see the new path).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct MoveSeen {
    pub at: Duration,
    pub host: IpAddr,
    pub nat: usize,
    /// The earliest arrival of the host's UDP datagrams (not tunnelled TCP)
    /// sent through the new NAT that the fault chain let through: when the
    /// other end first sees the new path. Not always the first one sent: a
    /// later one can overtake it by the leg's jitter.
    pub first_udp_arrival: Option<Duration>,
    /// That datagram's UDP payload bytes.
    pub first_udp_len: usize,
    /// Arrival (at the mover, after its processing) of the first UDP datagram
    /// sent to it over the new path after the peer saw `first_udp_arrival`:
    /// the round trip of the path probe on the new path (seed 000, "the time
    /// is the path probe and switch").
    pub first_reply_arrival: Option<Duration>,
}

/// Counters of the network, for properties and the trace summary.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct NetStats {
    pub sent: u64,
    pub delivered: u64,
    pub dropped_fault: u64,
    pub dropped_nat: u64,
    pub refused: u64,
    pub bytes_ip: u64,
}

/// The network's state: NATs, legs, schedule, counters.
pub struct Network {
    rng: ChaCha20Rng,
    pub nats: Vec<Nat>,
    /// Inside host -> index of the NAT it is behind now.
    pub behind: BTreeMap<IpAddr, usize>,
    /// Edge host (inside address) -> its leg.
    pub legs: BTreeMap<IpAddr, Leg>,
    pub default_chain: Chain,
    schedule: Vec<(Duration, NetAction)>,
    next_action: usize,
    pub names: BTreeMap<IpAddr, String>,
    pub stats: NetStats,
    /// IP bytes sent per host (by name), for the byte-count tables.
    pub bytes_by_host: BTreeMap<String, u64>,
    /// Every move of the plan, in time order (for `move-recovers-within-pto`).
    pub moves: Vec<MoveSeen>,
    /// Each receiving host's service time (off unless the plan has processing or a slow host).
    pub processing: Option<processing::Processing>,
    /// Every datagram at each link it crossed, when the run captures ([`capture`]).
    pub capture: capture::Capture,
    /// What became of every UDP datagram ([`fate`]).
    pub fates: fate::Fates,
    /// What the journal is told of the legs and the hosts' processing ([`log`]),
    /// while the run keeps a journal: (time, host, event).
    pub log: Option<Vec<(Duration, String, log::NetEvent)>>,
    /// The last payload hashed, and its hashes.
    hashed: Hashed,
}

/// A payload's hashes, each computed once: a datagram is hashed as it is sent
/// and again as each copy arrives (the trace's short SHA-256, the journal's
/// FNV-1a), and a copy mostly carries the same bytes.
#[derive(Default)]
struct Hashed {
    bytes: Bytes,
    short: Option<String>,
    fnv: Option<u64>,
}

impl Hashed {
    /// Forget the hashes unless `b` holds the same bytes.
    fn of(&mut self, b: &Bytes) -> &mut Self {
        if self.bytes != *b {
            *self = Hashed { bytes: b.clone(), short: None, fnv: None };
        }
        self
    }

    /// The trace's short hash of `b` ([`trace::bytes_hash`]).
    fn short(&mut self, b: &Bytes) -> String {
        self.of(b).short.get_or_insert_with(|| trace::bytes_hash(b)).clone()
    }

    /// The journal's hash of `b` ([`log::hash`]).
    fn fnv(&mut self, b: &Bytes) -> u64 {
        *self.of(b).fnv.get_or_insert_with(|| log::hash(b))
    }
}

impl Network {
    pub fn new(rng: ChaCha20Rng) -> Self {
        Network {
            rng,
            nats: Vec::new(),
            behind: BTreeMap::new(),
            legs: BTreeMap::new(),
            default_chain: Chain::default(),
            schedule: Vec::new(),
            next_action: 0,
            names: BTreeMap::new(),
            stats: NetStats::default(),
            bytes_by_host: BTreeMap::new(),
            moves: Vec::new(),
            processing: None,
            capture: capture::Capture::default(),
            fates: fate::Fates::default(),
            log: None,
            hashed: Hashed::default(),
        }
    }

    /// `inside` starts behind NAT `nat`.
    pub fn put_behind(&mut self, inside: IpAddr, nat: usize) {
        self.behind.insert(inside, nat);
        self.fates.serve(nat, inside);
    }

    /// Schedule a network action at `at` (time since the start).
    pub fn schedule(&mut self, at: Duration, action: NetAction) {
        self.schedule.push((at, action));
        self.schedule.sort_by_key(|(t, _)| *t);
        assert_eq!(self.next_action, 0, "schedule network actions before the run starts");
    }

    fn name(&self, ip: IpAddr) -> String {
        self.names.get(&ip).cloned().unwrap_or_else(|| ip.to_string())
    }

    fn apply_due(&mut self, now: Duration) {
        while let Some((at, action)) = self.schedule.get(self.next_action).cloned() {
            if at > now {
                break;
            }
            self.next_action += 1;
            match action {
                NetAction::Rebind { host } => {
                    if let Some(&n) = self.behind.get(&host) {
                        let flows = self.nats[n].rebind(at, host);
                        trace::record_at(at, &self.nats[n].name.clone(), "nat.rebind", format!("{} flows={flows}", self.name(host)));
                    }
                }
                NetAction::Move { host, nat } => self.move_host(at, host, nat),
            }
        }
    }

    /// `host` moves behind NAT `nat` at `at` (Wi-Fi to cellular): its old NAT
    /// forgets it, and the move is recorded for the laws and the table.
    pub fn move_host(&mut self, at: Duration, host: IpAddr, nat: usize) {
        if let Some(old) = self.behind.insert(host, nat) {
            self.nats[old].left(at, host);
            self.nats[old].forget(host);
        }
        self.fates.serve(nat, host);
        trace::record_at(at, &self.name(host), "net.move", format!("now behind {}", self.nats[nat].name));
        self.moves.push(MoveSeen { at, host, nat, first_udp_arrival: None, first_udp_len: 0, first_reply_arrival: None });
    }

    /// The latest move of `host` still waiting for its first UDP reply, once
    /// the peer has seen the mover's first datagram from the new path.
    fn awaiting_reply(&self, now: Duration, host: IpAddr) -> Option<usize> {
        let i = self.moves.iter().rposition(|m| m.host == host)?;
        let m = &self.moves[i];
        (m.first_reply_arrival.is_none() && m.first_udp_arrival.is_some_and(|a| a <= now)).then_some(i)
    }

    fn nat_of_public(&self, ip: IpAddr) -> Option<usize> {
        self.nats.iter().position(|n| n.public_ip == ip)
    }

    fn is_inside(&self, ip: IpAddr) -> bool {
        self.behind.contains_key(&ip)
    }

    fn nat_drop(&mut self, now: Duration, n: usize, tag: &str, what: &str, d: &InFlight) -> Vec<turmoil::hook::Emit> {
        self.stats.dropped_nat += 1;
        let nat = self.nats[n].name.clone();
        trace::record_at(now, &nat, "udp.drop", format!("{tag} nat: {what}"));
        self.tap(now, self.nats[n].public_ip, d, true, Some(format!("dropped by {nat}: {what}")));
        Vec::new()
    }

    /// A tunnelled TCP packet leaving through NAT `n`: the inner source address
    /// and port become the NAT's public address and the flow's mapped port, the
    /// outer source its public address and the tunnel port. `None` if the
    /// payload is not an IPv4/TCP packet (dropped, as a NAT would).
    fn nat_tcp_out(&mut self, now: Duration, n: usize, d: InFlight) -> Option<InFlight> {
        let flow = nat::tcp_flow(&d.payload)?;
        let nat = &mut self.nats[n];
        let (public, created) = nat.outbound_proto(Proto::Tcp, now, SocketAddr::V4(flow.src), SocketAddr::V4(flow.dst), flow.fin || flow.rst);
        if created {
            trace::record_at(now, &nat.name.clone(), "nat.map", format!("tcp {} as {public}", flow.src));
        }
        let SocketAddr::V4(public_v4) = public else { panic!("NAT public addresses are IPv4") };
        let payload = Bytes::from(nat::rewrite_tcp(&d.payload, nat::End::Src, public_v4)?);
        Some(InFlight { src: SocketAddr::new(public.ip(), IP_TUNNEL_PORT), payload, ..d })
    }

    /// A tunnelled TCP packet arriving at NAT `n`'s public address: back to the
    /// inside host by the mapped port in its TCP header.
    fn nat_tcp_in(&mut self, now: Duration, n: usize, d: InFlight) -> Result<InFlight, NatDrop> {
        let flow = nat::tcp_flow(&d.payload).ok_or(NatDrop::NoMapping)?;
        let nat = &mut self.nats[n];
        let inside = nat.inbound_proto(Proto::Tcp, now, flow.dst.port(), SocketAddr::V4(flow.src), flow.fin || flow.rst)?;
        let SocketAddr::V4(inside_v4) = inside else { panic!("inside addresses are IPv4") };
        let payload = Bytes::from(nat::rewrite_tcp(&d.payload, nat::End::Dst, inside_v4).ok_or(NatDrop::NoMapping)?);
        Ok(InFlight { dst: SocketAddr::new(inside.ip(), IP_TUNNEL_PORT), payload, ..d })
    }

    /// Decide the fate of one datagram.
    pub fn on_send(&mut self, now: Duration, src: SocketAddr, dst: SocketAddr, payload: &Bytes) -> io::Result<Vec<turmoil::hook::Emit>> {
        self.apply_due(now);
        // A tunnelled TCP packet is itself the IP packet: its UDP wrapping is the
        // simulation's, not the network's.
        let tunnel = src.port() == IP_TUNNEL_PORT && dst.port() == IP_TUNNEL_PORT;
        let (sender, tag) = self.count_send(now, src, dst, payload, tunnel);
        // Where it goes, and through which chain.
        let d = InFlight { delay: Duration::ZERO, src, dst, payload: payload.clone() };
        self.tap(now, src.ip(), &d, false, None);
        let sent = d.clone();
        // A UDP datagram of the mover from its new network that may be the first
        // to arrive (one sent after the earliest arrival so far cannot be).
        let first_after_move = (!tunnel && self.is_inside(src.ip()))
            .then(|| self.moves.iter().rposition(|m| m.host == src.ip()))
            .flatten()
            .filter(|&i| self.moves[i].first_udp_arrival.is_none_or(|t| now < t));
        let (d, chain_owner, up) = match self.route(now, d, (&sender, &tag), &sent, tunnel) {
            Ok(r) => r,
            Err(dropped) => return Ok(dropped),
        };
        // What a capture sees between the ends: the NAT's outside, or the sender's link.
        let middle = match (chain_owner, up) {
            (Some(_), true) => d.clone(),
            _ => sent.clone(),
        };
        // Named only for a capture's notes (no allocation per datagram otherwise).
        let leg = match chain_owner.and_then(|ip| self.legs.get(&ip)) {
            Some(l) if self.capture.is_on() => format!("{}'s leg ({})", l.name, if up { "up" } else { "down" }),
            _ => "the internet".into(),
        };
        // The source the receiver sees, and the host the datagram is for.
        let (seen_from, to_host) = (d.src, if up { Some(d.dst.ip()) } else { chain_owner });
        let out = match self.run_chain(now, d, chain_owner, up) {
            Ok(out) => out,
            Err(e) => {
                self.stats.refused += 1;
                if !tunnel {
                    self.fate(now, &sent, seen_from, to_host, fate::Outcome::Refused);
                }
                trace::record_at(now, &sender, "udp.refused", tag);
                self.tap_middle(now, &middle, chain_owner, up, Some(format!("refused on {leg}: {e}")));
                return Err(e);
            }
        };
        // The sender's own copies: not a forged copy or a stranger's datagram beside
        // it, nor an earlier datagram the link held and let go behind it.
        let own = out.iter().find(|o| o.src == seen_from && (tunnel || o.payload == sent.payload));
        if let (Some(i), Some(o)) = (first_after_move, own) {
            if self.moves[i].first_udp_arrival.is_none_or(|t| now + o.delay < t) {
                self.moves[i].first_udp_arrival = Some(now + o.delay);
                self.moves[i].first_udp_len = o.payload.len();
            }
        }
        if own.is_none() {
            self.stats.dropped_fault += 1;
            if !tunnel {
                self.fate(now, &sent, seen_from, to_host, fate::Outcome::Fault);
            }
            trace::record_at(now, &sender, "udp.drop", format!("{tag} fault"));
            self.tap_middle(now, &middle, chain_owner, up, Some(format!("lost on {leg}: its faults dropped it (or held it: see a later release)")));
        } else if up {
            self.tap_middle(now, &middle, chain_owner, up, None);
        }
        Ok(self.deliver(now, out, &sent, (chain_owner, up), tunnel))
    }

    /// Count a datagram sent (its IP bytes, by host) and trace it: the sender's
    /// name and the datagram's tag for later notes.
    fn count_send(&mut self, now: Duration, src: SocketAddr, dst: SocketAddr, payload: &Bytes, tunnel: bool) -> (String, String) {
        self.stats.sent += 1;
        let ip_bytes = if tunnel { payload.len() as u64 } else { (payload.len() + IP_UDP_HEADER_BYTES) as u64 };
        self.stats.bytes_ip += ip_bytes;
        let sender = self.name(src.ip());
        match self.bytes_by_host.get_mut(&sender) {
            Some(n) => *n += ip_bytes,
            None => {
                self.bytes_by_host.insert(sender.clone(), ip_bytes);
            }
        }
        // Written only when read: a fuzzed case keeps only the trace's counts.
        let tag = if trace::wanted() { format!("{src}->{dst} len={} h={}", payload.len(), self.hashed.short(payload)) } else { String::new() };
        trace::record_at(now, &sender, "udp.send", tag.clone());
        (sender, tag)
    }

    /// Through which NAT and leg `d` goes: (`d` as it leaves the NAT, the inside
    /// host whose leg carries it, whether up that leg); or the datagram dropped at a
    /// NAT or for an inside host reached directly (what to emit: nothing).
    fn route(
        &mut self,
        now: Duration,
        d: InFlight,
        (sender, tag): (&str, &str),
        sent: &InFlight,
        tunnel: bool,
    ) -> Result<(InFlight, Option<IpAddr>, bool), Vec<turmoil::hook::Emit>> {
        let (src, dst) = (d.src, d.dst);
        if self.is_inside(src.ip()) {
            let n = self.behind[&src.ip()];
            if tunnel {
                return match self.nat_tcp_out(now, n, d) {
                    Some(d) => Ok((d, Some(src.ip()), true)),
                    None => Err(self.nat_drop(now, n, tag, "not TCP", sent)),
                };
            }
            let (public, created) = self.nats[n].outbound(now, src, dst);
            if created {
                trace::record_at(now, &self.nats[n].name.clone(), "nat.map", format!("{src} as {public}"));
            }
            Ok((InFlight { src: public, ..d }, Some(src.ip()), true))
        } else if let Some(n) = self.nat_of_public(dst.ip()) {
            let passed =
                if tunnel { self.nat_tcp_in(now, n, d) } else { self.nats[n].inbound(now, dst.port(), src).map(|inside| InFlight { dst: inside, ..d }) };
            match passed {
                Ok(d) => {
                    let inside = d.dst.ip();
                    Ok((d, Some(inside), false))
                }
                Err(why) => {
                    let what = match why {
                        NatDrop::NoMapping => "no mapping",
                        NatDrop::Filtered => "filtered",
                    };
                    if !tunnel {
                        self.fate(now, sent, src, self.fates.served_by(n), nat_drop_outcome(dst.port()));
                    }
                    Err(self.nat_drop(now, n, tag, what, sent))
                }
            }
        } else if self.is_inside(dst.ip()) {
            // Nothing reaches an inside host except through its NAT.
            self.stats.dropped_nat += 1;
            self.fate(now, sent, src, Some(dst.ip()), fate::Outcome::Nat);
            trace::record_at(now, sender, "udp.drop", format!("{tag} inside host not reachable directly"));
            self.tap(now, src.ip(), sent, true, Some("dropped: an inside host is not reachable directly".into()));
            Err(Vec::new())
        } else {
            Ok((d, None, true))
        }
    }

    /// Run `d` through its leg's chain (up or down `chain_owner`'s leg, or the
    /// internet's), journalling the crossing when the log is on.
    fn run_chain(&mut self, now: Duration, d: InFlight, chain_owner: Option<IpAddr>, up: bool) -> io::Result<Vec<InFlight>> {
        let crossing = chain_owner.filter(|_| self.log.is_some()).map(|ip| (ip, link_sent(&d, &mut self.hashed)));
        let mut ctx = Ctx { now, rng: &mut self.rng };
        let chain = match chain_owner.and_then(|ip| self.legs.get_mut(&ip)) {
            Some(leg) if up => &mut leg.up,
            Some(leg) => &mut leg.down,
            None => &mut self.default_chain,
        };
        let out = chain.run(&mut ctx, d);
        if let Some((ip, sent)) = crossing {
            self.journal_crossing(now, ip, up, sent, &out);
        }
        out
    }

    /// A datagram's trace line as it arrives or is let go (`src->dst h=...`),
    /// written only when read ([`trace::wanted`]).
    fn line(&mut self, o: &InFlight) -> String {
        if !trace::wanted() {
            return String::new();
        }
        let h = self.hashed.short(&o.payload);
        format!("{}->{} h={h}", o.src, o.dst)
    }

    /// Hand what the chain let through to the receivers, after their processing:
    /// each arrival traced, captured and its fate noted.
    fn deliver(
        &mut self,
        now: Duration,
        out: Vec<InFlight>,
        sent: &InFlight,
        (chain_owner, up): (Option<IpAddr>, bool),
        tunnel: bool,
    ) -> Vec<turmoil::hook::Emit> {
        let reply_to = (!tunnel && !up).then(|| chain_owner.and_then(|ip| self.awaiting_reply(now, ip))).flatten();
        let mut emits = Vec::with_capacity(out.len());
        for mut o in out {
            self.stats.delivered += 1;
            // At the NAT before the receiving host's processing.
            let at_nat = now + o.delay;
            o.delay = self.served(now, &o);
            if let Some(i) = reply_to {
                self.moves[i].first_reply_arrival.get_or_insert(now + o.delay);
            }
            if !tunnel {
                // Its source as delivered: a forged copy's is the forged port.
                self.fate_of(now, (sent, &o.payload), o.src, Some(o.dst.ip()), fate::Outcome::Delivered(now + o.delay));
            }
            // Delivery happens at the first step at or after this time; whole
            // microseconds keep the trace free of float noise.
            let line = self.line(&o);
            trace::record_at(now + o.delay, &self.name(o.dst.ip()), "udp.arrive", line);
            if chain_owner.is_some() && !up {
                self.tap_nat_in(at_nat, sent, &o);
            }
            self.tap(now + o.delay, o.dst.ip(), &o, false, None);
            emits.push(turmoil::hook::Emit { delay: o.delay, src: o.src, dst: o.dst, payload: o.payload });
        }
        emits
    }

    /// Capture `d` on the link of `ip`: an inside host's leg, a NAT's outside,
    /// or a host on the internet side.
    fn tap(&mut self, t: Duration, ip: IpAddr, d: &InFlight, lost: bool, note: Option<String>) {
        if !self.capture.is_on() {
            return;
        }
        let name = self.name(ip);
        let what = if let Some(n) = self.nat_of_public(ip) {
            format!("the outside of {} (public address {ip})", self.nats[n].name)
        } else if let Some(leg) = self.legs.get(&ip) {
            format!("{}'s leg, inside its NAT ({ip})", leg.name)
        } else if self.is_inside(ip) {
            format!("{name}, inside its NAT ({ip})")
        } else {
            format!("{name} on the internet side ({ip})")
        };
        self.capture.keep(t, capture::Link { name, what }, d, lost, note);
    }

    /// Capture the packet between its ends: on the NAT's outside going up, on
    /// the sender's link otherwise; coming down, only when it was lost there
    /// (a delivered one is seen at the NAT when it arrives: [`Self::tap_nat_in`]).
    fn tap_middle(&mut self, now: Duration, middle: &InFlight, chain_owner: Option<IpAddr>, up: bool, lost: Option<String>) {
        if !self.capture.is_on() {
            return;
        }
        let link = match (chain_owner, up) {
            (Some(_), false) => middle.dst.ip(),
            _ => middle.src.ip(),
        };
        self.tap(now, link, middle, lost.is_some(), lost);
    }

    /// Capture a delivered packet coming down as its NAT's outside saw it: the
    /// public destination it was sent to, the bytes before the NAT rewrote them.
    fn tap_nat_in(&mut self, at: Duration, sent: &InFlight, o: &InFlight) {
        if !self.capture.is_on() {
            return;
        }
        let payload = match (o.is_tunnelled_tcp(), nat::tcp_flow(&sent.payload)) {
            (true, Some(flow)) => nat::rewrite_tcp(&o.payload, nat::End::Dst, flow.dst).map(Bytes::from).unwrap_or_else(|| o.payload.clone()),
            _ => o.payload.clone(),
        };
        let outside = InFlight { delay: o.delay, src: o.src, dst: sent.dst, payload };
        self.tap(at, sent.dst.ip(), &outside, false, None);
    }
}

impl Network {
    /// Log what became of `sent` (as its sender sent it).
    fn fate(&mut self, now: Duration, sent: &InFlight, seen_from: SocketAddr, to_host: Option<IpAddr>, outcome: fate::Outcome) {
        self.fate_of(now, (sent, &sent.payload), seen_from, to_host, outcome);
    }

    /// [`Self::fate`] of `payload`, which came out of the link for `sent` (its
    /// own copy, a forged copy or a stranger's datagram beside it, or one the
    /// link held and let go behind it: that one keeps its own sender and
    /// destination, [`fate::Fates::push_let_go`]).
    fn fate_of(&mut self, now: Duration, (sent, payload): (&InFlight, &Bytes), seen_from: SocketAddr, to_host: Option<IpAddr>, outcome: fate::Outcome) {
        let bytes = self.hashed.fnv(payload);
        let long_only = !sent.is_tunnelled_tcp() && quic_header::long_headers_only(payload);
        let f = fate::Fate { sent: now, from_host: sent.src.ip(), from: seen_from, to: sent.dst, to_host, outcome, bytes, long_only };
        match *payload == sent.payload {
            true => self.fates.push(f),
            false => self.fates.push_let_go(f),
        }
    }

    /// The datagram's delay with its receiver's service time added.
    fn served(&mut self, now: Duration, o: &InFlight) -> Duration {
        let delay = match self.processing.as_mut() {
            Some(p) if !p.is_off() => p.delay(now, o.dst.ip(), o.delay, o.is_tunnelled_tcp()),
            _ => o.delay,
        };
        if self.processing.is_some() && self.log.is_some() {
            let event = log::NetEvent::Served { arrival: now + o.delay, tcp: o.is_tunnelled_tcp(), ready: now + delay };
            self.note(now, self.name(o.dst.ip()), event);
        }
        delay
    }

    /// Journal what the leg of `owner` did to one datagram (`link-agrees-with-spec`).
    fn journal_crossing(&mut self, now: Duration, owner: IpAddr, up: bool, sent: log::Sent, out: &io::Result<Vec<InFlight>>) {
        let Some(leg) = self.legs.get(&owner) else { return };
        let (refused, out) = match out {
            Ok(out) => (false, out.iter().map(|o| link_out(o, &mut self.hashed)).collect()),
            Err(_) => (true, Vec::new()),
        };
        self.note(now, leg.name.clone(), log::NetEvent::Crossed { up, sent, refused, out });
    }

    /// Keep one event for the journal, if the run keeps one.
    fn note(&mut self, at: Duration, host: String, event: log::NetEvent) {
        if let Some(l) = self.log.as_mut() {
            l.push((at, host, event));
        }
    }

    /// The earliest time a fault piece lets go of a held datagram on its own.
    pub fn next_release(&self) -> Option<Duration> {
        let legs = self.legs.values().flat_map(|l| [l.up.next_release(), l.down.next_release()]);
        legs.chain([self.default_chain.next_release()]).flatten().min()
    }

    /// Datagrams the fault pieces let go at `now` (the world puts them on the
    /// network with `Sim::inject`).
    pub fn release_due(&mut self, now: Duration) -> Vec<turmoil::hook::Emit> {
        if self.next_release().is_none_or(|t| t > now) {
            return Vec::new();
        }
        let mut out = Vec::new();
        let mut ctx = Ctx { now, rng: &mut self.rng };
        for leg in self.legs.values_mut() {
            for (up, chain) in [(true, &mut leg.up), (false, &mut leg.down)] {
                let released = chain.release_due(&mut ctx);
                if let (Some(l), false) = (self.log.as_mut(), released.is_empty()) {
                    l.push((now, leg.name.clone(), log::NetEvent::Released { up, out: released.iter().map(|o| link_out(o, &mut self.hashed)).collect() }));
                }
                let dir = if up { "up" } else { "down" };
                out.extend(released.into_iter().map(|o| (o, format!("{}'s leg ({dir})", leg.name))));
            }
        }
        out.extend(self.default_chain.release_due(&mut ctx).into_iter().map(|o| (o, "the internet".to_string())));
        let mut emits = Vec::with_capacity(out.len());
        for (mut o, leg) in out {
            self.stats.delivered += 1;
            o.delay = self.served(now, &o);
            let host = self.name(o.dst.ip());
            if !o.is_tunnelled_tcp() {
                // Its sender: the host behind the NAT it left by, if it did (its own
                // send's, and its address before any NAT, when the fates have it).
                let from_host = self.nat_of_public(o.src.ip()).and_then(|n| self.fates.served_by(n)).unwrap_or(o.src.ip());
                let (to, outcome) = (o.dst, fate::Outcome::Delivered(now + o.delay));
                let bytes = self.hashed.fnv(&o.payload);
                let long_only = quic_header::long_headers_only(&o.payload);
                let f = fate::Fate { sent: now, from_host, from: o.src, to, to_host: Some(o.dst.ip()), outcome, bytes, long_only };
                self.fates.push_let_go(f);
            }
            let line = self.line(&o);
            trace::record_at(now, &host, "udp.release", line.clone());
            trace::record_at(now + o.delay, &host, "udp.arrive", line);
            self.tap(now + o.delay, o.dst.ip(), &o, false, Some(format!("released at {} after a hold by the faults of {leg}", trace::fmt_time(now))));
            emits.push(turmoil::hook::Emit { delay: o.delay, src: o.src, dst: o.dst, payload: o.payload });
        }
        emits
    }
}

/// A datagram as it meets a leg, for the journal.
fn link_sent(d: &InFlight, hashed: &mut Hashed) -> log::Sent {
    let tcp = d.is_tunnelled_tcp();
    let ip_len = if tcp { d.payload.len() } else { d.payload.len() + IP_UDP_HEADER_BYTES };
    log::Sent { src: d.src, tcp, ip_len, hash: hashed.fnv(&d.payload) }
}

/// A datagram a leg put out, for the journal.
fn link_out(o: &InFlight, hashed: &mut Hashed) -> log::Out {
    log::Out { delay: o.delay, hash: hashed.fnv(&o.payload), src: o.src }
}

/// The hook turmoil calls; shares the network with the world.
pub struct Hook(pub Rc<RefCell<Network>>);

impl turmoil::hook::NetHook for Hook {
    fn on_send(&mut self, now: Duration, src: SocketAddr, dst: SocketAddr, payload: &Bytes) -> io::Result<Vec<turmoil::hook::Emit>> {
        self.0.borrow_mut().on_send(now, src, dst, payload)
    }
}

/// What a NAT's drop of an inbound datagram to `port` counts as. A port below
/// the NAT's range was never handed out: only a forged source (the plan's
/// `forged_moves` and `strangers`, whose ports start below it) gets a reply
/// there, so the plan's attack lost it (`Fault`). Any other port: the NAT's own
/// doing (a mapping expired, rebound or filtered).
fn nat_drop_outcome(port: u16) -> fate::Outcome {
    if port < nat::FIRST_PUBLIC_PORT {
        fate::Outcome::Fault
    } else {
        fate::Outcome::Nat
    }
}
