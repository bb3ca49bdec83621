//! The smallest reproducer of the stall behind `fleet-pin-flood` (PATCH.md
//! section 5), for upstream: quinn-proto alone, two endpoints, an in-memory
//! network (20 ms each way), no simulator. See
//! docs/findings/quinn-return-to-validated-path.md.
//!
//! After the handshake an on-path attacker copies every datagram the client
//! sends and delivers the copy from a forged port of the client's IP 1 ms
//! before the original, so the original is a duplicate: the server migrates to
//! the forged address, which never answers, and its echoes of the client's
//! stream messages (one every 200 ms for 5 s) are lost there while its probe
//! timeout backs off. Then the attack ends; the client's next message comes
//! from its real address only, and the server migrates back. Its first
//! datagram to the real address is lost (as in the fleet case, 11 % loss).
//! Upstream quinn-proto 0.11.19 (with PATCH.md section 3, padding within the
//! budget) treats the real, validated address as a new
//! path (`PathData::from_previous` of the forged one): a new PATH_CHALLENGE,
//! the 3x anti-amplification limit, and the PTO backoff grown on the forged
//! path; the echoes wait for a backed-off probe. With the patch
//! (`Connection::return_to_validated_path`, RFC 9000 section 9.3) the server
//! goes back to the validated path as it was, with `pto_count = 0`.

mod common;

use std::net::{IpAddr, Ipv4Addr, SocketAddr};
use std::time::Duration;

use common::{Net, Wire, FIRST, ONE_WAY};

/// How much earlier than the original the attacker's copy arrives.
const COPY_LEAD: Duration = Duration::from_millis(1);
const CLIENT: SocketAddr = SocketAddr::new(IpAddr::V4(Ipv4Addr::new(192, 0, 2, 1)), 49152);
/// The attacker's first source port; each copy comes from the client's IP and
/// a fresh port (so the server takes it for a NAT rebinding and keeps RTT and
/// congestion state), as ftw-sim's attacker does.
const FORGED_PORT_FIRST: u16 = 20_000;
const ATTACK: Duration = Duration::from_secs(5);
const EVERY: Duration = Duration::from_millis(200);
const MESSAGE: usize = 100;

fn is_forged(addr: SocketAddr) -> bool {
    addr.ip() == CLIENT.ip() && addr.port() != CLIENT.port()
}

/// An on-path attacker, on while `attack` is.
struct Attacker {
    /// Copy every client datagram from a forged port, 1 ms ahead of the original.
    attack: bool,
    /// Drop the next datagram the server sends to `CLIENT`.
    drop_next_to_client: bool,
    /// The next copy's source port.
    next_port: u16,
    /// Datagrams the server sent to forged addresses (all lost: nobody answers there).
    to_forged: u64,
}

impl Wire for Attacker {
    fn client_addr(&self) -> SocketAddr {
        CLIENT
    }

    fn send(&mut self, now: Duration, from: SocketAddr, to: SocketAddr, _len: usize) -> Vec<(Duration, SocketAddr)> {
        if is_forged(to) {
            self.to_forged += 1;
            return Vec::new();
        }
        if to == CLIENT && std::mem::take(&mut self.drop_next_to_client) {
            return Vec::new();
        }
        let mut copies = Vec::new();
        if from == CLIENT && self.attack {
            copies.push((now + ONE_WAY - COPY_LEAD, SocketAddr::new(CLIENT.ip(), self.next_port)));
            self.next_port += 1;
        }
        copies.push((now + ONE_WAY, from));
        copies
    }
}

/// What happened after the attack ended.
struct Outcome {
    /// From the client's first message after the attack to the last echo.
    took: Option<Duration>,
    /// PATH_CHALLENGE frames the server sent in that time.
    challenges: u64,
    /// Datagrams the server sent to the forged address during the attack.
    to_forged: u64,
}

/// The attack window: a message every 200 ms, every datagram copied. Returns
/// the bytes the client wrote.
fn attack(net: &mut Net, wire: &mut Attacker) -> usize {
    let written = attack_window(net, wire);
    assert!(is_forged(net.server().remote_address()), "the attack ends with the server on a forged path");
    written
}

/// [`attack`] without its check of where the server ended.
fn attack_window(net: &mut Net, wire: &mut Attacker) -> usize {
    wire.attack = true;
    let t0 = net.now;
    let n = (ATTACK.as_millis() / EVERY.as_millis()) as u32;
    for i in 0..n {
        net.client_write(&[1u8; MESSAGE]);
        net.run(wire, t0 + EVERY * (i + 1), |_| false);
    }
    wire.attack = false;
    MESSAGE * n as usize
}

fn attack_then_return() -> Outcome {
    let mut wire = Attacker { attack: false, drop_next_to_client: false, next_port: FORGED_PORT_FIRST, to_forged: 0 };
    let mut net = Net::connect(&mut wire, Duration::from_secs(3));
    let total = FIRST + attack(&mut net, &mut wire) + MESSAGE;
    let (t0, challenges0) = (net.now, net.server().stats().frame_tx.path_challenge);
    wire.drop_next_to_client = true;
    net.client_write(&[2u8; MESSAGE]);
    let back = net.run(&mut wire, t0 + Duration::from_secs(600), |n| n.echoed.len() == total);
    assert_eq!(net.server().remote_address(), CLIENT, "the server went back to the real address");
    Outcome { took: back.then(|| net.now - t0), challenges: net.server().stats().frame_tx.path_challenge - challenges0, to_forged: wire.to_forged }
}

fn report(who: &str, o: &Outcome) {
    println!(
        "{who}: {} datagrams to the forged address during the attack; after the return: last echo after {:?}, {} PATH_CHALLENGE sent",
        o.to_forged, o.took, o.challenges
    );
}

/// One round trip for the message and its echo, the lost datagram's one
/// (un-backed-off) PTO, and the round trip of the retransmission, with room.
const BOUND: Duration = Duration::from_millis(500);

#[test]
fn patched_return_to_the_validated_path_skips_validation_and_the_backoff() {
    common::upstream(false);
    let o = attack_then_return();
    report("patched", &o);
    assert_eq!(o.challenges, 0, "the real address was validated before the attack");
    let took = o.took.expect("every echo came back");
    assert!(took <= BOUND, "the echoes came back after {took:?}");
}

#[test]
fn upstream_revalidates_the_old_path_and_waits_for_its_backed_off_pto() {
    // Upstream's migration with section 3 of PATCH.md (challenge padding
    // within the budget, which RFC 9000 section 8.2.1 asks for): with upstream's
    // 1200 B challenge the budget is spent at once and the PTO stops, so the
    // stall shows only once section 3 is in (see the write-up).
    common::upstream(false);
    quinn_proto::ftw_sim_patch::set_upstream_revalidates_old_path(true);
    let o = attack_then_return();
    common::upstream(false);
    report("upstream", &o);
    assert!(o.challenges >= 1, "upstream sent no PATH_CHALLENGE to the real address");
    assert!(o.took.is_none_or(|t| t > 4 * BOUND), "upstream's echoes came back after {:?}", o.took);
}

/// The client's new address in the completed move below.
const MOVED: SocketAddr = SocketAddr::new(IpAddr::V4(Ipv4Addr::new(198, 51, 100, 7)), 40000);

/// A phone that moves and comes back: its datagrams appear from `at`, and the
/// server's reach it only when sent there.
struct Mover {
    at: SocketAddr,
}

impl Wire for Mover {
    fn client_addr(&self) -> SocketAddr {
        self.at
    }

    fn send(&mut self, now: Duration, from: SocketAddr, _to: SocketAddr, _len: usize) -> Vec<(Duration, SocketAddr)> {
        vec![(now + ONE_WAY, from)]
    }
}

/// A completed move (the new address validated, a second of messages there),
/// then the client back at its first address. The PATH_CHALLENGE frames the
/// server sent after the return.
fn move_and_return(rig: bool) -> u64 {
    common::upstream(false);
    quinn_proto::ftw_sim_patch::set_rig(rig);
    let mut wire = Mover { at: CLIENT };
    let mut net = Net::connect(&mut wire, Duration::from_secs(3));
    let mut total = FIRST;
    wire.at = MOVED;
    for _ in 0..5 {
        net.client_write(&[1u8; MESSAGE]);
        total += MESSAGE;
        let t = net.now + EVERY;
        net.run(&mut wire, t, |_| false);
    }
    assert_eq!(net.server().remote_address(), MOVED, "the server followed the move");
    let challenges0 = net.server().stats().frame_tx.path_challenge;
    wire.at = CLIENT;
    net.client_write(&[2u8; MESSAGE]);
    total += MESSAGE;
    let t = net.now + Duration::from_secs(10);
    assert!(net.run(&mut wire, t, |n| n.echoed.len() == total), "every echo came back");
    assert_eq!(net.server().remote_address(), CLIENT, "the server followed the return");
    quinn_proto::ftw_sim_patch::set_rig(false);
    net.server().stats().frame_tx.path_challenge - challenges0
}

/// Issue 33 section 2: quic-go forgets every other path when it switches
/// (`path_manager.go` `SwitchToPath`), so a phone back at an address it left
/// after a completed move is a new path to validate. The rig profile
/// (`set_rig`) does so; the patch as written (section 5) goes back at once.
#[test]
fn after_a_completed_move_the_rig_validates_the_return_and_the_patch_does_not() {
    assert_eq!(move_and_return(false), 0, "the patch returned without a challenge");
    assert!(move_and_return(true) >= 1, "the rig sent no PATH_CHALLENGE to the address it came back to");
}

/// The rig never leaves the validated path for a forged one: quic-go (and the
/// rig's stand-in, PATCH.md section 11) probes each new address and moves only
/// once one answers, which a forged address never does. So there is nothing to
/// return from, and every echo comes back.
#[test]
fn the_rig_stays_on_the_validated_path_through_forged_moves() {
    common::upstream(false);
    quinn_proto::ftw_sim_patch::set_rig(true);
    let mut wire = Attacker { attack: false, drop_next_to_client: false, next_port: FORGED_PORT_FIRST, to_forged: 0 };
    let mut net = Net::connect(&mut wire, Duration::from_secs(3));
    let challenges0 = net.server().stats().frame_tx.path_challenge;
    let total = FIRST + attack_window(&mut net, &mut wire) + MESSAGE;
    let on_real = net.server().remote_address() == CLIENT;
    net.client_write(&[2u8; MESSAGE]);
    let t0 = net.now;
    let back = net.run(&mut wire, t0 + Duration::from_secs(600), |n| n.echoed.len() == total);
    let probes = net.server().stats().frame_tx.path_challenge - challenges0;
    quinn_proto::ftw_sim_patch::set_rig(false);
    println!("rig: {} datagrams to forged addresses (the probes: {probes} PATH_CHALLENGE); last echo after {:?}", wire.to_forged, back.then(|| net.now - t0));
    assert!(on_real, "the rig moved to a forged address");
    assert!(probes >= 1 && wire.to_forged == probes, "the rig sent forged addresses its probes and nothing else");
    assert!(back, "every echo came back");
}
