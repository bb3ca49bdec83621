use std::net::{IpAddr, Ipv4Addr, SocketAddr};

use super::*;
use crate::cid::ShardCidGenerator;
use crate::packet::{build_long, build_short};
use crate::FleetBugs;

const N: usize = 4;

fn r(i: usize) -> ReactorId {
    ReactorId::new(i)
}

fn h(i: usize) -> ConnectionHandle {
    ConnectionHandle(i)
}

fn fleet_with(routing: Routing, bugs: FleetBugs) -> Fleet {
    Fleet::new(FleetConfig { routing, bugs, ..FleetConfig::default() })
}

fn fleet() -> Fleet {
    fleet_with(Routing::Forward, FleetBugs::default())
}

/// The first address on host `10.0.<host>.<x>` (from port `from`) that the hash sends to `to`.
fn addr_to(f: &Fleet, to: ReactorId, host: u8, from: u16) -> SocketAddr {
    (from..u16::MAX)
        .map(|p| SocketAddr::new(IpAddr::V4(Ipv4Addr::new(10, 0, host, 1)), p))
        .find(|a| f.kernel().hash_reactor(*a) == to)
        .expect("some port hashes there")
}

/// A server id of `owner`, registered with the fleet.
fn mint(f: &mut Fleet, owner: ReactorId, seed: u8) -> Cid {
    let mut g = ShardCidGenerator::new(owner, N, [seed; 32]);
    let cid = g.next_cid();
    f.register_cid(owner, &cid);
    cid
}

fn drain(f: &mut Fleet, now_ms: u64) -> Vec<Delivery> {
    std::iter::from_fn(|| f.poll_delivery(now_ms)).collect()
}

fn events(f: &mut Fleet) -> Vec<FleetEvent> {
    std::iter::from_fn(|| f.poll_event()).collect()
}

/// A connection owned by r0 from `old` (which hashes to r0); the client then rebinds to
/// `new`, which hashes to r1.
struct Moved {
    f: Fleet,
    cid: Cid,
    old: SocketAddr,
    new: SocketAddr,
}

fn moved(routing: Routing, bugs: FleetBugs) -> Moved {
    let mut f = fleet_with(routing, bugs);
    let cid = mint(&mut f, r(0), 1);
    let old = addr_to(&f, r(0), 1, 20_000);
    let new = addr_to(&f, r(1), 2, 30_000);
    f.connection_opened(0, r(0), h(0), old);
    Moved { f, cid, old, new }
}

#[test]
fn a_client_that_never_moves_is_never_forwarded_or_pinned() {
    let mut f = fleet();
    let mut t = 0;
    for c in 0..N {
        let owner = r(c);
        let cid = mint(&mut f, owner, c as u8 + 10);
        let src = addr_to(&f, owner, c as u8, 40_000);
        // The handshake's long header, then short headers for 2 s of sweeps.
        f.on_datagram(t, src, &build_long(&[0xee; 8], &[1; 8], b"initial"));
        let hs = drain(&mut f, t);
        assert_eq!((hs.len(), hs[0].reactor, hs[0].via), (1, owner, Via::Listener));
        f.connection_opened(t, owner, h(c), src);
        for i in 0..8u8 {
            t += 250;
            f.handle_timeout(t);
            let sent = build_short(&cid, &[i; 40]);
            f.on_datagram(t, src, &sent);
            let got = drain(&mut f, t);
            assert_eq!(got.len(), 1);
            assert_eq!((got[0].reactor, got[0].via, &got[0].bytes), (owner, Via::Listener, &sent));
        }
        f.path_report(t, owner, h(c), src); // a report of the same address is no move
    }
    t += 1000;
    f.handle_timeout(t);
    let all = f.totals();
    assert_eq!(all.forwards_sent + all.forwards_received + all.pins_created + all.stale_datagrams, 0, "{f:?}");
    assert_eq!(all.datagrams_delivered, (N * 9) as u64);
    assert_eq!(f.poll_timeout(), None, "nothing to sweep");
}

#[test]
fn a_rebound_client_is_forwarded_to_its_owner_until_the_sweep_pins_it() {
    let Moved { mut f, cid, old, new } = moved(Routing::Forward, FleetBugs::default());
    let before = build_short(&cid, b"before the move");
    f.on_datagram(10, old, &before);
    assert_eq!(drain(&mut f, 10)[0].via, Via::Listener);

    // The NAT rebinds: the hash now picks r1, which forwards to r0 by byte 0.
    let mut t = 20;
    for i in 0..5u8 {
        let sent = build_short(&cid, &[i; 30]);
        let a = f.on_datagram(t, new, &sent);
        assert_eq!(a.socket, SocketId::Listener(r(1)));
        let got = drain(&mut f, t);
        assert_eq!(got.len(), 1);
        assert_eq!(got[0].reactor, r(0));
        assert_eq!(got[0].via, Via::Forwarded { from: r(1) });
        assert_eq!(got[0].bytes, sent, "a forward is a copy");
        assert_eq!(got[0].datagram, a.datagram);
        if i == 0 {
            // The owner's endpoint adopts the new path and the driver reports it.
            f.path_report(t, r(0), h(0), new);
        }
        t += 10;
    }
    assert_eq!(f.counters(r(1)).forwards_sent, 5);
    assert_eq!(f.counters(r(0)).forwards_received, 5);
    assert_eq!(f.totals().forwards_sent, f.totals().forwards_received);
    assert_eq!(f.totals().pins_created, 0, "no pin before the sweep");
    assert!(events(&mut f).iter().any(|e| matches!(e, FleetEvent::Forwarded { from, to, by_reference: false, .. } if *from == r(1) && *to == r(0))));

    // The sweep claims the new address.
    assert_eq!(f.poll_timeout(), Some(250));
    f.handle_timeout(249);
    assert_eq!(f.pin_of(r(0), h(0)), None);
    f.handle_timeout(250);
    assert_eq!(f.pin_of(r(0), h(0)), Some(new));
    assert_eq!(f.counters(r(0)).pins_created, 1);
    assert_eq!(f.counters(r(0)).pins_open, 1);
    assert_eq!(f.poll_timeout(), None);
    assert!(events(&mut f).contains(&FleetEvent::Pinned { reactor: r(0), conn: h(0), peer: new }));

    // Forwarding stops: the pin is a more specific match than the hash.
    for i in 0..5u8 {
        let sent = build_short(&cid, &[i; 30]);
        let a = f.on_datagram(300, new, &sent);
        assert_eq!(a.socket, SocketId::Pin { reactor: r(0), peer: new });
        let got = drain(&mut f, 300);
        assert_eq!((got[0].reactor, got[0].via, &got[0].bytes), (r(0), Via::Pin, &sent));
    }
    assert_eq!(f.totals().forwards_sent, 5);
    // Another client of r1 is untouched by the pin.
    let other = addr_to(&f, r(1), 3, 1000);
    assert_eq!(f.on_datagram(300, other, &build_long(&[0; 8], &[], b"")).socket, SocketId::Listener(r(1)));
}

/// ngtcp2-style reports while a path validates: the old address for data, the new one for
/// probes, five reports in all.
fn five_reports(m: &mut Moved, with_traffic: bool) {
    let reports = [m.new, m.old, m.new, m.old, m.new];
    for (i, a) in reports.into_iter().enumerate() {
        let t = 10 + i as u64 * 20;
        m.f.path_report(t, r(0), h(0), a);
        if with_traffic {
            // The client (now at `new`) keeps sending; nobody has read yet.
            m.f.on_datagram(t + 1, m.new, &build_short(&m.cid, &[i as u8; 50]));
        }
    }
}

#[test]
fn one_claim_per_address_change_not_per_path_report() {
    let mut m = moved(Routing::Forward, FleetBugs::default());
    five_reports(&mut m, true);
    let mut t = 250;
    while t <= 2000 {
        m.f.handle_timeout(t);
        t += 250;
    }
    let c = m.f.counters(r(0));
    assert_eq!((c.pins_created, c.pins_open, c.pin_socket_drops), (1, 1, 0));
    assert_eq!(m.f.pin_of(r(0), h(0)), Some(m.new));
    assert_eq!(drain(&mut m.f, t).len(), 5, "nothing lost");
}

#[test]
fn claim_per_path_report_claims_five_times_and_loses_queued_datagrams() {
    let bugs = FleetBugs { claim_per_path_report: true, ..FleetBugs::default() };
    let mut m = moved(Routing::Forward, bugs);
    five_reports(&mut m, true);
    let c = m.f.counters(r(0));
    assert_eq!(c.pins_created, 5, "{:?}", m.f);
    assert_eq!(c.pins_open, 1);
    // Each teardown of a pin toward `new` closed a socket holding the client's datagrams.
    assert!(c.pin_socket_drops > 0, "{:?}", m.f);
    assert!(drain(&mut m.f, 200).len() < 5);
    assert!(events(&mut m.f).iter().any(|e| matches!(e, FleetEvent::PinReleased { reason: PinReleaseReason::Replaced, lost, .. } if *lost > 0)));
}

#[test]
fn kernel_filter_forwards_nothing_and_pins_nothing() {
    let Moved { mut f, cid, old, new } = moved(Routing::KernelFilter, FleetBugs::default());
    f.on_datagram(0, old, &build_short(&cid, b"a"));
    f.path_report(5, r(0), h(0), new);
    assert_eq!(f.poll_timeout(), None);
    for t in [10, 250, 500, 750] {
        f.handle_timeout(t);
        let sent = build_short(&cid, &[t as u8; 20]);
        assert_eq!(f.on_datagram(t, new, &sent).socket, SocketId::Listener(r(0)));
        let got = drain(&mut f, t);
        assert!(got.iter().all(|d| d.reactor == r(0) && d.via == Via::Listener));
        assert_eq!(got.last().unwrap().bytes, sent);
    }
    let all = f.totals();
    assert_eq!((all.forwards_sent, all.forwards_received, all.pins_created, all.stale_datagrams), (0, 0, 0, 0));
    assert_eq!(all.datagrams_delivered, 5);
}

#[test]
fn no_routing_drops_a_moved_clients_short_headers_as_stale() {
    for no_routing in [false, true] {
        let bugs = FleetBugs { no_routing, ..FleetBugs::default() };
        let Moved { mut f, cid, new, .. } = moved(Routing::Forward, bugs);
        for i in 0..4u8 {
            f.on_datagram(10, new, &build_short(&cid, &[i; 10]));
        }
        let got = drain(&mut f, 10);
        let all = f.totals();
        if no_routing {
            assert!(got.is_empty());
            assert_eq!((all.stale_datagrams, all.forwards_sent), (4, 0));
            assert_eq!(f.counters(r(1)).stale_datagrams, 4);
            assert!(events(&mut f).iter().all(|e| matches!(e, FleetEvent::StaleDrop { reactor, .. } if *reactor == r(1))));
        } else {
            assert_eq!(got.len(), 4);
            assert_eq!((all.stale_datagrams, all.forwards_sent), (0, 4));
        }
    }
}

#[test]
fn an_unknown_id_addressed_here_is_stale_in_either_mode() {
    let mut f = fleet();
    let src = addr_to(&f, r(2), 1, 1000);
    let retired = mint(&mut f, r(2), 7);
    assert!(f.retire_cid(r(2), &retired));
    f.on_datagram(0, src, &build_short(&retired, b"late"));
    assert!(drain(&mut f, 0).is_empty());
    assert_eq!(f.counters(r(2)).stale_datagrams, 1);
    assert_eq!(f.totals().forwards_sent, 0);
    assert_eq!(events(&mut f)[0].to_string(), format!("d0 stale drop at r2 cid {}", hex(&retired)));
}

#[test]
fn long_headers_are_never_forwarded_unless_the_bug_is_on() {
    for forward_long_headers in [false, true] {
        let bugs = FleetBugs { forward_long_headers, ..FleetBugs::default() };
        let mut f = fleet_with(Routing::Forward, bugs);
        let src = addr_to(&f, r(1), 1, 5000);
        // The client picks byte 0 of its Initial's destination id to aim at each reactor.
        for target in 0..N {
            let dcid = [target as u8, 0x55, 0x55, 0x55, 0x55, 0x55, 0x55, 0x55, 0x55];
            let got = {
                f.on_datagram(0, src, &build_long(&dcid, &[9; 8], b"initial"));
                drain(&mut f, 0)
            };
            assert_eq!(got.len(), 1);
            let expect = if forward_long_headers { r(target) } else { r(1) };
            assert_eq!(got[0].reactor, expect, "bug={forward_long_headers} target={target}");
        }
        let sent = f.totals().forwards_sent;
        assert_eq!(sent, if forward_long_headers { 3 } else { 0 });
    }
}

#[test]
fn a_flood_of_forged_moves_never_makes_more_than_512_pins_per_reactor() {
    let mut f = fleet();
    let conns = 1000;
    let mut g = ShardCidGenerator::new(r(0), N, [3; 32]);
    let mut cids = Vec::new();
    let home = addr_to(&f, r(0), 0, 1000);
    for c in 0..conns {
        let cid = g.next_cid();
        f.register_cid(r(0), &cid);
        cids.push(cid);
        f.connection_opened(0, r(0), h(c), home);
    }
    // Forged datagrams from new addresses make the engine adopt a new path for every one.
    let forged = |wave: u8, c: usize| SocketAddr::new(IpAddr::V4(Ipv4Addr::new(172, 16 + wave, (c / 250) as u8, 1)), 2000 + c as u16);
    for wave in 0..3u8 {
        for c in 0..conns {
            f.path_report(10 + u64::from(wave) * 300, r(0), h(c), forged(wave, c));
        }
        f.handle_timeout(250 + u64::from(wave) * 300);
        assert!(f.counters(r(0)).pins_open <= 512);
        assert_eq!(f.counters(r(0)).pins_open, 512, "{f:?}");
        assert_eq!(f.kernel().pins_len(), 512);
    }
    // Past the ceiling a moved connection keeps forwarding.
    let unpinned = (0..conns).find(|c| f.pin_of(r(0), h(*c)).is_none()).unwrap();
    let src = forged(2, unpinned);
    let hashed = f.kernel().hash_reactor(src);
    f.on_datagram(1000, src, &build_short(&cids[unpinned], b"x"));
    let got = drain(&mut f, 1000);
    assert_eq!(got[0].reactor, r(0));
    if hashed != r(0) {
        assert_eq!(got[0].via, Via::Forwarded { from: hashed });
    }
    // When a pinned connection ends, the next sweep claims for a waiting one.
    let pinned = (0..conns).find(|c| f.pin_of(r(0), h(*c)).is_some()).unwrap();
    let created = f.counters(r(0)).pins_created;
    f.connection_closed(1100, r(0), h(pinned));
    assert_eq!(f.counters(r(0)).pins_open, 511);
    f.handle_timeout(1250);
    assert_eq!(f.counters(r(0)).pins_open, 512);
    assert_eq!(f.counters(r(0)).pins_created, created + 1);
}

#[test]
fn forward_reference_lets_the_owner_read_someone_elses_bytes() {
    for forward_reference in [false, true] {
        let bugs = FleetBugs { forward_reference, ..FleetBugs::default() };
        let Moved { mut f, cid, new, .. } = moved(Routing::Forward, bugs);
        // A client of r1 that never moved.
        let neighbour_cid = mint(&mut f, r(1), 2);
        let neighbour = addr_to(&f, r(1), 9, 7000);
        let a = build_short(&cid, &[0xaa; 40]);
        let b = build_short(&neighbour_cid, &[0xbb; 40]);
        // r1 receives the moved client's datagram, then another before the owner reads.
        let ida = f.on_datagram(10, new, &a).datagram;
        f.on_datagram(10, neighbour, &b);
        let got = drain(&mut f, 10);
        assert_eq!(got.len(), 2);
        let at_owner = got.iter().find(|d| d.datagram == ida).unwrap();
        assert_eq!(at_owner.reactor, r(0));
        if forward_reference {
            assert_ne!(at_owner.bytes, a, "the owner read a reused slot");
            assert_eq!(at_owner.bytes, b, "... holding r1's next datagram");
        } else {
            assert_eq!(at_owner.bytes, a);
        }
    }
    // When the owner reads before the receiver reuses the slot, the reference happens to work.
    let bugs = FleetBugs { forward_reference: true, ..FleetBugs::default() };
    let Moved { mut f, cid, new, .. } = moved(Routing::Forward, bugs);
    let a = build_short(&cid, &[0xaa; 40]);
    f.on_datagram(10, new, &a);
    assert_eq!(drain(&mut f, 10)[0].bytes, a);
}

#[test]
fn a_pin_is_released_when_its_connection_closes() {
    let Moved { mut f, cid, old, new } = moved(Routing::Forward, FleetBugs::default());
    f.path_report(10, r(0), h(0), new);
    f.handle_timeout(250);
    assert_eq!(f.kernel().pinned(new), Some(r(0)));
    f.on_datagram(260, new, &build_short(&cid, b"queued on the pin"));
    // Queued on the owner's listener: not the pin's, so not lost with it.
    f.on_datagram(265, old, &build_short(&cid, b"queued on the listener"));
    f.connection_closed(270, r(0), h(0));
    assert_eq!(f.kernel().pinned(new), None);
    let c = f.counters(r(0));
    assert_eq!((c.pins_created, c.pins_open, c.pin_socket_drops), (1, 0, 1));
    assert_eq!(drain(&mut f, 280).len(), 1, "the listener's datagram is still read");
    assert!(events(&mut f).iter().any(|e| matches!(e, FleetEvent::PinReleased { reason: PinReleaseReason::ConnectionClosed, peer, .. } if *peer == new)));
    // The address goes back to the hash.
    assert_eq!(f.on_datagram(300, new, &build_short(&cid, b"x")).socket, SocketId::Listener(r(1)));
}

#[test]
fn a_full_receive_buffer_drops_and_counts() {
    let mut f = fleet();
    let cid = mint(&mut f, r(3), 4);
    let src = addr_to(&f, r(3), 1, 9000);
    let d = build_short(&cid, &[7; 1191]);
    assert_eq!(d.len(), 1200);
    let fit = crate::consts::RECV_BUFFER_BYTES / 1200; // 177
    let mut dropped = 0;
    for _ in 0..200 {
        if !f.on_datagram(0, src, &d).queued {
            dropped += 1;
        }
    }
    assert_eq!(dropped, 200 - fit);
    assert_eq!(f.counters(r(3)).recv_buffer_drops, (200 - fit) as u64);
    assert_eq!(f.socket_queued_bytes(SocketId::Listener(r(3))), fit * 1200);
    assert!(matches!(events(&mut f).last(), Some(FleetEvent::BufferDrop { len: 1200, .. })));
    // Reading frees the buffer.
    assert_eq!(drain(&mut f, 1).len(), fit);
    assert_eq!(f.socket_queued_bytes(SocketId::Listener(r(3))), 0);
    assert!(f.on_datagram(2, src, &d).queued);
}

#[test]
fn the_forward_queue_is_bounded_and_drops_are_counted() {
    let Moved { mut f, cid, new, .. } = moved(Routing::Forward, FleetBugs::default());
    for i in 0..1100u32 {
        f.on_datagram(10, new, &build_short(&cid, &i.to_be_bytes()));
    }
    // Only r1 runs; the owner does not read.
    assert_eq!(f.poll_recv(10, r(1)), None);
    assert_eq!(f.counters(r(1)).forwards_sent, 1024);
    assert_eq!(f.counters(r(1)).forwards_dropped, 76);
    assert_eq!(f.queued_len(r(0)), 1024);
    let got: Vec<Delivery> = std::iter::from_fn(|| f.poll_recv(11, r(0))).collect();
    assert_eq!(got.len(), 1024);
    assert_eq!(got[1023].bytes, build_short(&cid, &1023u32.to_be_bytes()));
    assert_eq!(f.counters(r(0)).forwards_received, 1024);
}

#[test]
fn minted_ids_reach_the_fleet_through_the_log() {
    let mut f = fleet();
    let log = MintedCids::new();
    let mut g = ShardCidGenerator::new(r(2), N, [8; 32]).with_minted_log(log.clone());
    f.attach_minted(r(2), log);
    let cid = g.next_cid();
    assert!(f.holds(r(2), &cid));
    assert!(!f.holds(r(1), &cid));
    // A moved client of r2 is forwarded there without any register_cid call.
    let src = addr_to(&f, r(1), 1, 100);
    f.on_datagram(0, src, &build_short(&cid, b"p"));
    assert_eq!(drain(&mut f, 0)[0].via, Via::Forwarded { from: r(1) });
}

#[test]
fn summaries_and_events_read_well() {
    let Moved { mut f, cid, new, .. } = moved(Routing::Forward, FleetBugs::default());
    f.on_datagram(10, new, &build_short(&cid, b"x"));
    drain(&mut f, 10);
    assert_eq!(events(&mut f)[0].to_string(), "d0 forwarded r1->r0 (copy)");
    let line = f.to_string();
    assert!(line.starts_with("fleet n=4 routing=Forward t=10ms | all: "), "{line}");
    assert!(line.contains("fwd_sent=1 fwd_recv=1"), "{line}");
    let debug = format!("{f:?}");
    assert!(debug.contains("| r1: recv=1 deliv=0 fwd_sent=1"), "{debug}");
}

/// The fleet's totals are the reactors' counters summed field by field (a gauge too:
/// `pins_open` of the fleet is every reactor's open pins).
#[test]
fn counters_add_field_by_field() {
    let a = Counters {
        datagrams_received: 1,
        datagrams_delivered: 2,
        forwards_sent: 3,
        forwards_received: 4,
        forwards_dropped: 5,
        stale_datagrams: 6,
        pins_created: 7,
        pins_open: 8,
        recv_buffer_drops: 9,
        pin_socket_drops: 10,
    };
    let b = Counters {
        datagrams_received: 100,
        datagrams_delivered: 200,
        forwards_sent: 300,
        forwards_received: 400,
        forwards_dropped: 500,
        stale_datagrams: 600,
        pins_created: 700,
        pins_open: 800,
        recv_buffer_drops: 900,
        pin_socket_drops: 1000,
    };
    let mut sum = a;
    sum.add(&b);
    let want = Counters {
        datagrams_received: 101,
        datagrams_delivered: 202,
        forwards_sent: 303,
        forwards_received: 404,
        forwards_dropped: 505,
        stale_datagrams: 606,
        pins_created: 707,
        pins_open: 808,
        recv_buffer_drops: 909,
        pin_socket_drops: 1010,
    };
    assert_eq!(sum, want);
}

/// Trace lines name what they are about: a stale drop its id in hex, a socket its
/// reactor and whether it is the listener or a pin (and to whom).
#[test]
fn trace_texts_name_ids_and_sockets() {
    let stale = FleetEvent::StaleDrop { datagram: DatagramId(7), reactor: r(1), cid: vec![0xab, 0x01, 0xff] };
    assert!(stale.to_string().ends_with("cid ab01ff"), "{stale}");
    let peer = SocketAddr::new(IpAddr::V4(Ipv4Addr::new(10, 0, 0, 9)), 4433);
    assert_eq!(SocketId::Listener(r(2)).to_string(), format!("{}/listener", r(2)));
    assert_eq!(SocketId::Pin { reactor: r(2), peer }.to_string(), format!("{}/pin->10.0.0.9:4433", r(2)));
}

/// Byte 0 of a minted id is drawn from every value that names the owner
/// (`v % n == owner`, up to 255), none left out (seed 002, `iq_stamp_shard`).
#[test]
fn byte_0_takes_every_value_naming_its_owner() {
    for (n, owner) in [(4usize, 3usize), (4, 0), (3, 1)] {
        let mut g = ShardCidGenerator::new(r(owner), n, [7; 32]);
        let seen: std::collections::BTreeSet<u8> = (0..20_000).map(|_| g.next_cid()[0]).collect();
        let want: std::collections::BTreeSet<u8> = (0..=255u8).filter(|v| usize::from(*v) % n == owner).collect();
        assert_eq!(seen, want, "n {n} owner {owner}");
    }
}

/// A socket holds up to its buffer's bytes: a datagram that fills it exactly is
/// queued, one byte past it is dropped (consts.rs `RECV_BUFFER_BYTES`: "bytes of
/// queued datagrams one UDP socket holds before the kernel drops").
#[test]
fn a_datagram_that_fills_the_buffer_exactly_is_kept() {
    let cfg = FleetConfig::default();
    let probe = Fleet::new(cfg);
    let src = addr_to(&probe, r(2), 9, 50_000);
    let cid = [9u8; 8];
    let a = build_short(&cid, &[1; 100]);
    let b = build_short(&cid, &[2; 60]);
    let mut f = Fleet::new(FleetConfig { recv_buffer_bytes: a.len() + b.len(), ..cfg });
    assert!(f.on_datagram(0, src, &a).queued);
    assert!(f.on_datagram(0, src, &b).queued, "the buffer is exactly full");
    assert!(!f.on_datagram(0, src, &build_short(&cid, &[])).queued, "one datagram past it");
    assert_eq!(f.counters(r(2)).recv_buffer_drops, 1);
}

/// The forward queue's bound counts forwards waiting, not forwards ever posted: a
/// moved client whose every forward is read at once never meets it.
#[test]
fn forwards_read_free_their_place_in_the_queue() {
    let Moved { mut f, cid, new, .. } = moved(Routing::Forward, FleetBugs::default());
    let n = crate::consts::FORWARD_QUEUE_LEN_MAX + 10;
    for i in 0..n {
        let sent = build_short(&cid, &(i as u32).to_be_bytes());
        f.on_datagram(1, new, &sent);
        let got = drain(&mut f, 1);
        assert_eq!(got.len(), 1, "forward {i}");
        assert_eq!(got[0].bytes, sent);
    }
    let (sent, dropped) = (f.counters(r(1)).forwards_sent, f.counters(r(1)).forwards_dropped);
    assert_eq!((sent, dropped, f.counters(r(0)).forwards_received), (n as u64, 0, n as u64));
}

/// The fleet reads the oldest work first across reactors: a forward posted before a
/// datagram arrived elsewhere is read before it, even at a later reactor.
#[test]
fn the_oldest_work_goes_first_across_reactors() {
    let mut f = fleet();
    let moved_cid = mint(&mut f, r(1), 1);
    let other_cid = mint(&mut f, r(0), 2);
    let old = addr_to(&f, r(1), 1, 20_000);
    let new = addr_to(&f, r(0), 2, 30_000);
    f.connection_opened(0, r(1), h(0), old);
    f.connection_opened(0, r(0), h(1), addr_to(&f, r(0), 3, 40_000));
    let x = build_short(&moved_cid, b"moved: read at r0, forwarded to r1");
    f.on_datagram(1, new, &x);
    assert_eq!(f.poll_recv(1, r(0)), None, "r0 posts the forward and has nothing for its endpoint");
    let z = build_short(&other_cid, b"later, for r0");
    f.on_datagram(2, addr_to(&f, r(0), 3, 40_000), &z);
    let order: Vec<Vec<u8>> = drain(&mut f, 2).into_iter().map(|d| d.bytes).collect();
    assert_eq!(order, vec![x, z]);
}
