//! Law `nat-agrees-with-spec`: every NAT decision of the run, replayed against
//! a NAT written from docs/network-and-tcp.md and the RFCs it cites, not from
//! `world/net/nat.rs` (issue 32 section 1).
//!
//! The rules, in the docs' words and the RFCs':
//! - one mapping per inside address and port, whatever the remote
//!   (endpoint-independent mapping, RFC 4787 REQ-1); UDP and TCP each in their
//!   own table (RFC 5382), one outside port naming one flow;
//! - a new mapping takes an outside port no live mapping holds, from the
//!   NAT's public address;
//! - a mapping lets in only packets from remotes it has sent to
//!   (address-and-port-dependent filtering, RFC 4787 section 5);
//! - a packet passing either way refreshes its mapping; a mapping idle for
//!   longer than its timeout is gone: UDP 30 s (SPEC section 6, "a 30 s NAT
//!   mapping"); TCP 2 h 4 min once a packet came back in, 4 min while only a
//!   SYN was seen or once a FIN or RST passed either way (RFC 5382 REQ-5);
//! - a rebind gives every flow of the host a new outside port and the old
//!   port lets nothing in any more; a host that leaves loses its mappings.

use std::collections::{BTreeMap, BTreeSet};
use std::net::{IpAddr, SocketAddr};
use std::time::Duration;

use crate::law::rules;
use crate::law::{Judge, Law};
use crate::world::journal::nat::{NatStep, Seen};
use crate::world::journal::{Entry, Step};
use crate::world::net::nat::{NatDrop, Proto};

use crate::world::plant::Bug;

use super::{differs, Lockstep, Reference, R};

pub const NAT: Reference = Reference {
    law: Law::new("nat-agrees-with-spec", "every NAT decision (map, refresh, expire, filter, rebind; UDP and TCP) is the one docs/network-and-tcp.md and RFC 4787 / RFC 5382 give: endpoint-independent mapping, filtering to the remotes a mapping sent to, 30 s UDP, 2 h 4 min / 4 min TCP").checks(&[&rules::NAT_BEHAVIOUR])
        .judged(Judge::Journal(check)),
    planted: &[Bug::NatRebindKeepsOldPort, Bug::NatTcpNeverEstablished, Bug::NatKeepsLeftHost],
};

/// SPEC section 6: the NAT mapping's idle timeout.
const UDP_IDLE: Duration = Duration::from_secs(30);
/// RFC 5382 REQ-5: "MUST NOT be less than 2 hours and 4 minutes".
const TCP_ESTABLISHED_IDLE: Duration = Duration::from_secs(2 * 3600 + 4 * 60);
/// RFC 5382 REQ-5: "MUST NOT be less than 4 minutes".
const TCP_TRANSITORY_IDLE: Duration = Duration::from_secs(4 * 60);

/// One flow's mapping as the rules describe it.
#[derive(Clone, Debug)]
struct Flow {
    port: u16,
    last: Duration,
    remotes: BTreeSet<SocketAddr>,
    /// TCP: a packet came back in.
    answered: bool,
    /// TCP: a FIN or RST passed, either way.
    closing: bool,
}

impl Flow {
    fn established(&self) -> bool {
        self.answered && !self.closing
    }

    fn idle_limit(&self, proto: Proto) -> Duration {
        match proto {
            Proto::Udp => UDP_IDLE,
            Proto::Tcp if self.established() => TCP_ESTABLISHED_IDLE,
            Proto::Tcp => TCP_TRANSITORY_IDLE,
        }
    }

    fn seen(&self, proto: Proto) -> Seen {
        Seen { public_port: self.port, established: proto == Proto::Tcp && self.established() }
    }
}

/// One NAT.
#[derive(Debug)]
struct RefNat {
    public_ip: IpAddr,
    flows: BTreeMap<(Proto, SocketAddr), Flow>,
}

impl RefNat {
    /// Drop the flow if it has been idle longer than its timeout at `at`.
    fn expire(&mut self, key: (Proto, SocketAddr), at: Duration) {
        if self.flows.get(&key).is_some_and(|f| at.saturating_sub(f.last) > f.idle_limit(key.0)) {
            self.flows.remove(&key);
        }
    }

    fn port_taken(&self, port: u16, except: Option<(Proto, SocketAddr)>) -> bool {
        self.flows.iter().any(|(k, f)| f.port == port && Some(*k) != except)
    }

    fn by_port(&self, proto: Proto, port: u16) -> Option<(Proto, SocketAddr)> {
        self.flows.iter().find(|(k, f)| k.0 == proto && f.port == port).map(|(k, _)| *k)
    }
}

#[derive(Default)]
struct Nats(BTreeMap<String, RefNat>);

/// The law's check: `None` when no NAT passed a packet.
pub fn check(journal: &[Entry]) -> Option<Lockstep> {
    let mut nats = Nats::default();
    let mut steps = 0;
    for (index, e) in journal.iter().enumerate() {
        let Step::Nat(s) = &e.step else { continue };
        if !matches!(s, NatStep::Made { .. }) {
            steps += 1;
        }
        if let Err((model, spec)) = nats.step(&e.host, s) {
            return Some(Lockstep::Differs { index, entry: e.describe(), model, spec });
        }
    }
    (steps > 0).then_some(Lockstep::Agreed { steps })
}

impl Nats {
    fn nat(&mut self, name: &str) -> Result<&mut RefNat, (String, String)> {
        self.0.get_mut(name).ok_or_else(|| (format!("a step of NAT {name}"), "no NAT of that name was made".to_string()))
    }

    fn step(&mut self, name: &str, s: &NatStep) -> R {
        match s {
            NatStep::Made { public_ip, udp_idle, tcp_established_idle, tcp_transitory_idle } => {
                let given = (*udp_idle, *tcp_established_idle, *tcp_transitory_idle);
                if given != (UDP_IDLE, TCP_ESTABLISHED_IDLE, TCP_TRANSITORY_IDLE) {
                    return differs(
                        format!("idle timeouts {given:?}"),
                        "UDP 30 s (SPEC section 6), TCP 2 h 4 min established and 4 min transitory (RFC 5382 REQ-5)",
                    );
                }
                self.0.insert(name.to_string(), RefNat { public_ip: *public_ip, flows: BTreeMap::new() });
                Ok(())
            }
            NatStep::Out { at, proto, inside, remote, closing, public, created, after } => {
                out(self.nat(name)?, *at, *proto, *inside, *remote, *closing, (*public, *created, *after))
            }
            NatStep::In { at, proto, public_port, remote, closing, passed, after } => {
                inbound(self.nat(name)?, *at, *proto, *public_port, *remote, *closing, (passed, *after))
            }
            NatStep::Rebind { at, inside_ip, moved } => rebind(self.nat(name)?, *at, *inside_ip, moved),
            NatStep::Forget { inside_ip, .. } => {
                self.nat(name)?.flows.retain(|k, _| k.1.ip() != *inside_ip);
                Ok(())
            }
        }
    }
}

/// An outbound packet: the mapping it goes out through, made if none lives.
fn out(nat: &mut RefNat, at: Duration, proto: Proto, inside: SocketAddr, remote: SocketAddr, closing: bool, model: (SocketAddr, bool, Seen)) -> R {
    let (public, created, after) = model;
    let key = (proto, inside);
    nat.expire(key, at);
    let expect_new = !nat.flows.contains_key(&key);
    if created != expect_new {
        let spec = if expect_new { "a new mapping (none lives for this inside address)" } else { "the live mapping of this inside address" };
        return differs(format!("created={created}"), spec);
    }
    if public.ip() != nat.public_ip {
        return differs(format!("sent from {public}"), format!("the NAT's public address {}", nat.public_ip));
    }
    if expect_new {
        if public.port() == 0 || nat.port_taken(public.port(), None) {
            return differs(format!("new mapping on port {}", public.port()), "an outside port no live mapping holds");
        }
        let f = Flow { port: public.port(), last: at, remotes: BTreeSet::new(), answered: false, closing: false };
        nat.flows.insert(key, f);
    }
    let f = nat.flows.get_mut(&key).expect("flow");
    if public.port() != f.port {
        return differs(format!("sent from port {}", public.port()), format!("the mapping's port {} (endpoint-independent mapping, RFC 4787 REQ-1)", f.port));
    }
    f.last = at;
    f.remotes.insert(remote);
    f.closing |= closing && proto == Proto::Tcp;
    same_state(after, f.seen(proto))
}

/// An inbound packet: let in by a live mapping that sent to its remote.
fn inbound(
    nat: &mut RefNat,
    at: Duration,
    proto: Proto,
    port: u16,
    remote: SocketAddr,
    closing: bool,
    model: (&Result<SocketAddr, NatDrop>, Option<Seen>),
) -> R {
    let (passed, after) = model;
    if let Some(key) = nat.by_port(proto, port) {
        nat.expire(key, at);
    }
    let Some(key) = nat.by_port(proto, port) else {
        return same_decision(passed, Err(NatDrop::NoMapping), "no live mapping holds that port");
    };
    let f = nat.flows.get_mut(&key).expect("flow");
    if !f.remotes.contains(&remote) {
        return same_decision(passed, Err(NatDrop::Filtered), "the mapping never sent to that remote (filtered)");
    }
    same_decision(passed, Ok(key.1), "let in to the mapping's inside address")?;
    f.last = at;
    if proto == Proto::Tcp {
        f.answered = true;
        f.closing |= closing;
    }
    match after {
        Some(seen) => same_state(seen, f.seen(proto)),
        None => differs("no mapping state after letting a packet in", "the mapping's state"),
    }
}

fn same_decision(model: &Result<SocketAddr, NatDrop>, spec: Result<SocketAddr, NatDrop>, why: &str) -> R {
    if *model == spec {
        Ok(())
    } else {
        differs(format!("{model:?}"), format!("{spec:?}: {why}"))
    }
}

fn same_state(model: Seen, spec: Seen) -> R {
    if model == spec {
        Ok(())
    } else {
        differs(
            format!("mapping after the packet {model:?}"),
            format!("{spec:?} (RFC 5382 REQ-5: established once a packet came back in, transitory again once a FIN or RST passed)"),
        )
    }
}

/// A rebind: every live flow of the host on a new port, no two flows on one.
fn rebind(nat: &mut RefNat, at: Duration, inside_ip: IpAddr, moved: &[(Proto, SocketAddr, u16, u16)]) -> R {
    let live: Vec<(Proto, SocketAddr)> = nat.flows.keys().filter(|k| k.1.ip() == inside_ip).copied().collect();
    for key in live {
        nat.expire(key, at);
        let Some(f) = nat.flows.get(&key) else { continue };
        let Some(&(_, _, old, new)) = moved.iter().find(|m| (m.0, m.1) == key) else {
            return differs(format!("flow {:?} {} kept port {}", key.0, key.1, f.port), "a new outside port for every flow of the host");
        };
        if old != f.port || new == old || new == 0 {
            return differs(format!("{:?} {} moved from port {old} to {new}", key.0, key.1), format!("from port {} to another", f.port));
        }
        nat.flows.get_mut(&key).expect("flow").port = new;
    }
    let mut ports = BTreeSet::new();
    for f in nat.flows.values() {
        if !ports.insert(f.port) {
            return differs(format!("two live mappings on port {} after the rebind", f.port), "one outside port names one flow");
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn a(s: &str) -> SocketAddr {
        s.parse().unwrap()
    }

    fn entry(step: NatStep) -> Entry {
        Entry { t_ms: 0, host: "nat-wifi".into(), step: Step::Nat(step) }
    }

    fn made() -> Entry {
        entry(NatStep::Made {
            public_ip: "192.0.2.1".parse().unwrap(),
            udp_idle: UDP_IDLE,
            tcp_established_idle: TCP_ESTABLISHED_IDLE,
            tcp_transitory_idle: TCP_TRANSITORY_IDLE,
        })
    }

    fn out_udp(at_s: u64, port: u16, created: bool) -> Entry {
        entry(NatStep::Out {
            at: Duration::from_secs(at_s),
            proto: Proto::Udp,
            inside: a("10.0.1.2:5000"),
            remote: a("203.0.113.10:443"),
            closing: false,
            public: SocketAddr::new("192.0.2.1".parse().unwrap(), port),
            created,
            after: Seen { public_port: port, established: false },
        })
    }

    fn in_udp(at_s: u64, port: u16, remote: &str, passed: Result<SocketAddr, NatDrop>) -> Entry {
        let after = passed.is_ok().then_some(Seen { public_port: port, established: false });
        entry(NatStep::In { at: Duration::from_secs(at_s), proto: Proto::Udp, public_port: port, remote: a(remote), closing: false, passed, after })
    }

    #[test]
    fn a_nat_that_keeps_the_rules_agrees() {
        let j = vec![
            made(),
            out_udp(0, 49152, true),
            in_udp(1, 49152, "203.0.113.10:443", Ok(a("10.0.1.2:5000"))),
            in_udp(1, 49152, "198.51.100.9:443", Err(NatDrop::Filtered)),
            out_udp(25, 49152, false),
            // 30 s idle exactly is not longer than 30 s.
            in_udp(55, 49152, "203.0.113.10:443", Ok(a("10.0.1.2:5000"))),
            in_udp(86, 49152, "203.0.113.10:443", Err(NatDrop::NoMapping)),
            out_udp(90, 49153, true),
        ];
        assert_eq!(check(&j), Some(Lockstep::Agreed { steps: 7 }));
    }

    #[test]
    fn each_broken_rule_is_caught() {
        let cases: Vec<(&str, Vec<Entry>)> = vec![
            ("kept past idle", vec![made(), out_udp(0, 49152, true), in_udp(31, 49152, "203.0.113.10:443", Ok(a("10.0.1.2:5000")))]),
            ("expired early", vec![made(), out_udp(0, 49152, true), in_udp(30, 49152, "203.0.113.10:443", Err(NatDrop::NoMapping))]),
            ("no filter", vec![made(), out_udp(0, 49152, true), in_udp(1, 49152, "198.51.100.9:443", Ok(a("10.0.1.2:5000")))]),
            ("new port per packet", vec![made(), out_udp(0, 49152, true), out_udp(1, 49153, false)]),
            ("remade while live", vec![made(), out_udp(0, 49152, true), out_udp(1, 49153, true)]),
            (
                "old port after rebind",
                vec![
                    made(),
                    out_udp(0, 49152, true),
                    entry(NatStep::Rebind {
                        at: Duration::from_secs(1),
                        inside_ip: "10.0.1.2".parse().unwrap(),
                        moved: vec![(Proto::Udp, a("10.0.1.2:5000"), 49152, 49153)],
                    }),
                    in_udp(2, 49152, "203.0.113.10:443", Ok(a("10.0.1.2:5000"))),
                ],
            ),
            (
                "rebind kept the port",
                vec![
                    made(),
                    out_udp(0, 49152, true),
                    entry(NatStep::Rebind { at: Duration::from_secs(1), inside_ip: "10.0.1.2".parse().unwrap(), moved: vec![] }),
                ],
            ),
        ];
        for (what, j) in cases {
            assert!(matches!(check(&j), Some(Lockstep::Differs { .. })), "{what}: {:?}", check(&j));
        }
    }

    #[test]
    fn a_tcp_flow_is_established_by_its_answer_and_transitory_after_a_fin() {
        let tcp = |at: u64, out: bool, closing: bool, established: bool| {
            let at = Duration::from_secs(at);
            let seen = Seen { public_port: 49152, established };
            if out {
                entry(NatStep::Out {
                    at,
                    proto: Proto::Tcp,
                    inside: a("10.0.1.2:40000"),
                    remote: a("203.0.113.10:443"),
                    closing,
                    public: a("192.0.2.1:49152"),
                    created: at.is_zero(),
                    after: seen,
                })
            } else {
                let passed = Ok(a("10.0.1.2:40000"));
                entry(NatStep::In { at, proto: Proto::Tcp, public_port: 49152, remote: a("203.0.113.10:443"), closing, passed, after: Some(seen) })
            }
        };
        let good = vec![made(), tcp(0, true, false, false), tcp(1, false, false, true), tcp(2, true, true, false), tcp(3, false, false, false)];
        assert_eq!(check(&good), Some(Lockstep::Agreed { steps: 4 }));
        // A NAT that never marks the flow established, or re-establishes it after a FIN.
        let never = vec![made(), tcp(0, true, false, false), tcp(1, false, false, false)];
        assert!(matches!(check(&never), Some(Lockstep::Differs { index: 2, .. })));
        let again = vec![made(), tcp(0, true, false, false), tcp(1, false, false, true), tcp(2, true, true, false), tcp(3, false, false, true)];
        assert!(matches!(check(&again), Some(Lockstep::Differs { index: 4, .. })));
    }
}
