//! PhoneSession, Cloud and BoxNode in memory: a tiny harness moves messages between them at
//! explicit times (every hop instantaneous), recording every byte the cloud saw.

use super::*;
use crate::phone::{Arrival, Opened, PhoneConfig, PhoneEvent, PhoneSession, PhoneState, Received};
use ciborium::Value;
use ftw_box::{BoxConfig, BoxNode, BoxOutput};
use ftw_wire::Msg;

const UPLINK: LinkId = 1;
const BOX_ID: &str = "box-1";

fn key(n: u8) -> Keypair {
    SeededResolver::new([n; 32]).generate_keypair()
}

/// What the harness does to the next box→phone transmits.
#[derive(Default)]
struct Taps {
    /// Deliver every phone-bound datagram twice.
    dup_datagrams: bool,
    /// Deliver every phone-bound stream message twice.
    dup_messages: bool,
    /// Hold phone-bound messages here instead of delivering them.
    hold: bool,
    held: Vec<(usize, SendKind, Vec<u8>)>,
}

struct World {
    now: u64,
    cloud: Cloud,
    bx: BoxNode,
    phones: Vec<PhoneSession>,
    /// Phone i's link id is 100 + i; `None` once closed.
    phone_link_open: Vec<bool>,
    /// Whether the box's dial reaches the cloud.
    box_reachable: bool,
    uplink_open: bool,
    datagrams: bool,
    /// Every byte the cloud got or sent, on any link.
    cloud_saw: Vec<Vec<u8>>,
    events: Vec<Vec<PhoneEvent>>,
    taps: Taps,
    /// Drop everything the box sends (a box that is up but does not answer).
    box_mute: bool,
}

impl World {
    fn new(phones_n: u8, paired_n: u8) -> World {
        let cloud_key = key(200);
        let box_key = key(201);
        let phone_keys: Vec<Keypair> = (0..phones_n).map(|i| key(10 + i)).collect();
        let mut cloud = Cloud::new(CloudConfig::new(cloud_key.clone()), [1; 32]);
        cloud.register_box(BOX_ID, box_key.public);
        for k in phone_keys.iter().take(paired_n as usize) {
            cloud.pair(k.public, BOX_ID);
        }
        let paired = phone_keys.iter().take(paired_n as usize).map(|k| k.public).collect();
        let bx = BoxNode::new(BoxConfig { cloud_public: cloud_key.public, ..BoxConfig::new(BOX_ID, box_key.clone(), paired, 4242) }, [2; 32]);
        let phones = phone_keys
            .iter()
            .enumerate()
            .map(|(i, k)| PhoneSession::new(PhoneConfig::new(k.clone(), cloud_key.public, box_key.public, BOX_ID), [50 + i as u8; 32]))
            .collect();
        World {
            now: 0,
            cloud,
            bx,
            phones,
            phone_link_open: vec![false; phones_n as usize],
            box_reachable: true,
            uplink_open: false,
            datagrams: true,
            cloud_saw: vec![],
            events: vec![vec![]; phones_n as usize],
            taps: Taps::default(),
            box_mute: false,
        }
    }

    fn phone_link(i: usize) -> LinkId {
        100 + i as LinkId
    }

    /// Phone `i` dials and sends its first message.
    fn dial(&mut self, i: usize) {
        self.cloud.handle_accept(self.now, Self::phone_link(i), PhoneSession::target(), self.datagrams);
        self.phone_link_open[i] = true;
        self.phones[i].start(self.now);
        self.pump();
    }

    fn deliver_to_phone(&mut self, i: usize, kind: SendKind, bytes: &[u8]) {
        let now = self.now;
        match kind {
            SendKind::Datagram => self.phones[i].handle_datagram(now, bytes),
            _ => self.phones[i].handle_message(now, bytes),
        }
    }

    /// Move everything until nothing moves.
    fn pump(&mut self) {
        for _ in 0..10_000 {
            let moved = [self.pump_box(), self.pump_cloud(), self.pump_phones()];
            if !moved.contains(&true) {
                return;
            }
        }
        panic!("the harness did not settle");
    }

    /// The box's outputs, to the cloud; whether there were any.
    fn pump_box(&mut self) -> bool {
        let now = self.now;
        let mut moved = false;
        while let Some(o) = self.bx.poll_output() {
            moved = true;
            match o {
                BoxOutput::Dial { target } => {
                    if self.box_reachable {
                        self.cloud.handle_accept(now, UPLINK, &target, self.datagrams);
                        self.uplink_open = true;
                        self.bx.handle_uplink_up(now, self.datagrams);
                    } else {
                        self.bx.handle_uplink_failed(now);
                    }
                }
                BoxOutput::Link(LinkOp::Send { .. }) if self.box_mute => {}
                BoxOutput::Link(LinkOp::Send { kind, bytes }) => {
                    assert!(self.uplink_open);
                    self.cloud_saw.push(bytes.clone());
                    match kind {
                        SendKind::Datagram => self.cloud.handle_datagram(now, UPLINK, &bytes),
                        _ => self.cloud.handle_message(now, UPLINK, &bytes),
                    }
                }
                BoxOutput::Link(LinkOp::Close { code, .. }) => {
                    self.uplink_open = false;
                    self.cloud.handle_closed(now, UPLINK, code);
                }
            }
        }
        moved
    }

    /// The cloud's transmits, to the box and the phones (through the taps);
    /// whether there were any.
    fn pump_cloud(&mut self) -> bool {
        let now = self.now;
        let mut moved = false;
        while let Some(t) = self.cloud.poll_transmit() {
            moved = true;
            if t.link == UPLINK {
                match t.op {
                    LinkOp::Send { kind, bytes } => {
                        self.cloud_saw.push(bytes.clone());
                        match kind {
                            SendKind::Datagram => self.bx.handle_datagram(now, &bytes),
                            _ => self.bx.handle_message(now, &bytes),
                        }
                    }
                    LinkOp::Close { code, .. } => {
                        self.uplink_open = false;
                        self.bx.handle_closed(now, code);
                    }
                }
                continue;
            }
            let i = (t.link - 100) as usize;
            if self.phone_link_open[i] {
                self.cloud_op_on_phone(i, t.op);
            }
        }
        moved
    }

    /// One op of the cloud on phone `i`'s open link: a send goes through the taps.
    fn cloud_op_on_phone(&mut self, i: usize, op: LinkOp) {
        match op {
            LinkOp::Send { kind, bytes } => {
                if kind == SendKind::Datagram {
                    assert!(self.datagrams, "a datagram on a link without them");
                }
                self.cloud_saw.push(bytes.clone());
                if self.taps.hold {
                    self.taps.held.push((i, kind, bytes));
                    return;
                }
                self.deliver_to_phone(i, kind, &bytes);
                let dup = match kind {
                    SendKind::Datagram => self.taps.dup_datagrams,
                    _ => self.taps.dup_messages,
                };
                if dup {
                    self.deliver_to_phone(i, kind, &bytes);
                }
            }
            LinkOp::Close { code, .. } => {
                self.phone_link_open[i] = false;
                self.phones[i].handle_closed(self.now, code);
            }
        }
    }

    /// The phones' transmits, to the cloud, and their events kept; whether any
    /// phone transmitted.
    fn pump_phones(&mut self) -> bool {
        let now = self.now;
        let mut moved = false;
        for i in 0..self.phones.len() {
            while let Some(op) = self.phones[i].poll_transmit() {
                moved = true;
                if !self.phone_link_open[i] {
                    continue;
                }
                match op {
                    LinkOp::Send { kind, bytes } => {
                        self.cloud_saw.push(bytes.clone());
                        match kind {
                            SendKind::Datagram => self.cloud.handle_datagram(now, Self::phone_link(i), &bytes),
                            _ => self.cloud.handle_message(now, Self::phone_link(i), &bytes),
                        }
                    }
                    LinkOp::Close { code, .. } => {
                        self.phone_link_open[i] = false;
                        self.cloud.handle_closed(now, Self::phone_link(i), code);
                    }
                }
            }
            while let Some(e) = self.phones[i].poll_event() {
                self.events[i].push(e);
            }
        }
        moved
    }

    /// Run every deadline up to and including `t`.
    fn run_until(&mut self, t: u64) {
        loop {
            let next = [self.bx.poll_timeout(), self.cloud.poll_timeout()].into_iter().flatten().min();
            match next {
                Some(n) if n <= t => {
                    self.now = self.now.max(n);
                    self.bx.handle_timeout(self.now);
                    self.cloud.handle_timeout(self.now);
                    self.pump();
                }
                _ => break,
            }
        }
        self.now = t;
        self.bx.handle_timeout(t);
        self.cloud.handle_timeout(t);
        self.pump();
    }

    fn received(&self, i: usize) -> Vec<Received> {
        self.events[i]
            .iter()
            .filter_map(|e| match e {
                PhoneEvent::Received(r) => Some(r.clone()),
                _ => None,
            })
            .collect()
    }

    fn closed(&self, i: usize) -> Option<u16> {
        self.events[i].iter().find_map(|e| match e {
            PhoneEvent::Closed { code } => Some(*code),
            _ => None,
        })
    }
}

fn lane0_count(rs: &[Received], from: u64, to: u64) -> usize {
    rs.iter().filter(|r| r.at_ms >= from && r.at_ms < to && matches!(r.msg, Some(Msg::Tick { .. }) | Some(Msg::Delta(_)))).count()
}

#[test]
fn pairing_hello_snapshot_live_and_a_command_round_trip() {
    let mut w = World::new(1, 1);
    w.run_until(0); // the box dials
    assert!(w.cloud.box_online(BOX_ID));
    w.now = 100;
    w.dial(0);
    assert_eq!(w.events[0][0], PhoneEvent::TunnelUp);
    assert_eq!(w.events[0][1], PhoneEvent::SessionOpen);
    assert_eq!(w.phones[0].state(), PhoneState::Open);
    let rs = w.received(0);
    assert!(matches!(rs[0].msg, Some(Msg::HelloOk(_))));
    assert_eq!(rs[0].id, Some(1), "hello_ok echoes hello's id");
    let Some(Msg::Snap(snap)) = &rs[1].msg else { panic!("{:?}", rs[1]) };
    assert_eq!(snap.rev, w.bx.site().src_rev());
    assert!(rs.iter().all(|r| r.opened == Opened::Ok && r.arrival == Arrival::Stream));

    w.run_until(5_100);
    let rs = w.received(0);
    let lives: Vec<_> = rs.iter().filter(|r| matches!(r.msg, Some(Msg::Live(_)))).collect();
    assert_eq!(lives.len(), 5);
    for r in &lives {
        assert_eq!(r.arrival, Arrival::Datagram);
        let Some(Msg::Live(l)) = &r.msg else { unreachable!() };
        // Every value the phone got is one the box sent (and recorded).
        let sent = w.bx.live_sent(&w.phones[0].config().key.public, l.live_seq).expect("recorded");
        assert_eq!((&sent.values, sent.src_rev, sent.wall_ms), (&l.values, l.src_rev, l.wall_ms));
        assert_eq!(r.live_table.is_some(), l.live_seq == 1);
    }
    assert_eq!(lane0_count(&rs, 0, 5_101), 5);
    assert!(rs.iter().any(|r| matches!(r.msg, Some(Msg::Hb(_))) && r.arrival == Arrival::Datagram));

    // A command: cmd -> cmd.ack -> cmd.result.
    let wall = w.bx.wall_ms(w.now);
    let args = Value::Map(vec![(Value::Text("mode".into()), Value::Text("self_consumption".into()))]);
    let (id, cmd_id) = w.phones[0].send_cmd(w.now, "site.mode.set", args, wall + 10_000).unwrap();
    w.pump();
    let t_cmd = w.now;
    let acks: Vec<_> = w.received(0).into_iter().filter(|r| matches!(r.msg, Some(Msg::CmdAck(_)))).collect();
    assert_eq!(acks.len(), 1);
    assert_eq!(acks[0].id, Some(id));
    let Some(Msg::CmdAck(a)) = &acks[0].msg else { unreachable!() };
    assert!(a.accepted && a.cmd_id == cmd_id);
    w.run_until(t_cmd + 300);
    let results: Vec<_> = w.received(0).into_iter().filter(|r| matches!(r.msg, Some(Msg::CmdResult(_)))).collect();
    assert_eq!(results.len(), 1);
    assert_eq!(results[0].at_ms, t_cmd + ftw_box::consts::CMD_APPLY_MS);
    let Some(Msg::CmdResult(res)) = &results[0].msg else { unreachable!() };
    assert!(res.ok && res.cmd_id == cmd_id);
    assert_eq!(w.cloud.stats().relayed_as_datagram, 10);
}

#[test]
fn without_datagrams_the_live_comes_on_the_stream() {
    let mut w = World::new(1, 1);
    w.datagrams = false;
    w.run_until(0);
    w.dial(0);
    w.run_until(3_000);
    let rs = w.received(0);
    assert!(rs.iter().any(|r| matches!(r.msg, Some(Msg::Live(_)))));
    assert!(rs.iter().all(|r| r.arrival == Arrival::Stream && r.opened == Opened::Ok));
}

#[test]
fn unpaired_phone_gets_4403_and_no_byte_of_box_data() {
    let mut w = World::new(2, 1); // phone 1 is not paired
    w.run_until(0);
    w.dial(1);
    assert_eq!(w.closed(1), Some(close::FORBIDDEN));
    assert!(w.received(1).is_empty());
    assert!(!w.events[1].contains(&PhoneEvent::TunnelUp), "no message 2 for a stranger");
    assert_eq!(w.cloud.stats().refused_unpaired, 1);
    // The box never heard of it.
    assert_eq!(w.bx.stats().sessions_opened + w.bx.stats().refused_unpaired, 0);
    w.run_until(5_000);
    assert!(w.received(1).is_empty());
    // The paired phone still gets through.
    w.dial(0);
    assert_eq!(w.phones[0].state(), PhoneState::Open);
}

#[test]
fn box_paired_at_the_cloud_but_not_at_the_box_closes_4403() {
    let mut w = World::new(1, 0);
    w.cloud.pair(w.phones[0].config().key.public, BOX_ID);
    w.run_until(0);
    w.dial(0);
    assert_eq!(w.closed(0), Some(close::FORBIDDEN));
    assert!(w.received(0).is_empty());
    assert_eq!(w.bx.stats().refused_unpaired, 1);
}

#[test]
fn box_unreachable_closes_4408_after_ten_seconds() {
    let mut w = World::new(1, 1);
    w.box_reachable = false;
    w.run_until(0);
    w.dial(0);
    assert_eq!(w.events[0], vec![PhoneEvent::TunnelUp]);
    assert_eq!(w.cloud.poll_timeout(), Some(consts::BOX_WAIT_MS));
    w.run_until(consts::BOX_WAIT_MS - 1);
    assert_eq!(w.closed(0), None);
    w.run_until(consts::BOX_WAIT_MS);
    assert_eq!(w.closed(0), Some(close::TIMED_OUT));
    assert!(w.received(0).is_empty());
    assert_eq!(w.cloud.link_count(), 0);
}

#[test]
fn a_box_that_comes_within_the_wait_is_reached() {
    let mut w = World::new(1, 1);
    w.box_reachable = false;
    w.run_until(0);
    w.dial(0);
    w.box_reachable = true;
    // The box's second dial is due within 1 s (backoff), well inside the 10 s wait.
    w.run_until(2_000);
    assert_eq!(w.phones[0].state(), PhoneState::Open);
    assert_eq!(w.closed(0), None);
    w.run_until(20_000);
    assert_eq!(w.closed(0), None);
}

#[test]
fn sessions_off_completes_the_handshake_then_closes() {
    let mut w = World::new(1, 1);
    w.cloud.set_sessions_enabled(false);
    w.run_until(0);
    w.dial(0);
    assert_eq!(w.events[0], vec![PhoneEvent::TunnelUp, PhoneEvent::Closed { code: close::TRY_AGAIN_LATER }]);
    assert_eq!(w.bx.stats().sessions_opened, 0);
    // Back on: the same phone gets through.
    w.cloud.set_sessions_enabled(true);
    let cfg = w.phones[0].config().clone();
    w.phones[0] = PhoneSession::new(cfg, [77; 32]);
    w.events[0].clear();
    w.cloud.handle_closed(w.now, 100, close::TRY_AGAIN_LATER); // no-op: already forgotten
    w.dial(0);
    assert_eq!(w.phones[0].state(), PhoneState::Open);
}

#[test]
fn the_cloud_is_blind_to_the_box_session() {
    let mut w = World::new(1, 1);
    w.run_until(0);
    w.dial(0);
    w.run_until(3_000);
    let wall = w.bx.wall_ms(w.now);
    w.phones[0].send_cmd(w.now, "site.mode.set", Value::Text("secret-mode-xyzzy".into()), wall + 5_000).unwrap();
    w.pump();
    w.run_until(4_000);
    let rs = w.received(0);
    assert!(rs.len() > 8);
    // The plaintext of frames both ways: every envelope the phone got, and the cmd it sent.
    let mut plaintexts: Vec<Vec<u8>> = rs.iter().filter_map(|r| r.msg.as_ref().map(|m| m.encode(r.id))).collect();
    plaintexts.push(b"secret-mode-xyzzy".to_vec());
    let snap = rs.iter().find_map(|r| match &r.msg {
        Some(Msg::Snap(s)) => Some(s.clone()),
        _ => None,
    });
    plaintexts.push(ftw_wire::envelope::to_cbor(&snap.unwrap().dict));
    let haystack: Vec<u8> = w.cloud_saw.concat();
    for p in &plaintexts {
        assert!(p.len() >= 16, "a needle long enough to mean something");
        assert!(!haystack.windows(p.len()).any(|win| win == p.as_slice()), "plaintext seen by the cloud: {p:02x?}");
    }
    // Negative control: the search does find bytes that did cross the cloud.
    let seen = &w.cloud_saw[w.cloud_saw.len() / 2];
    assert!(haystack.windows(seen.len()).any(|win| win == seen.as_slice()));
}

#[test]
fn a_replayed_datagram_is_reported_as_replay() {
    let mut w = World::new(1, 1);
    w.run_until(0);
    w.dial(0);
    w.taps.dup_datagrams = true;
    w.run_until(3_000);
    let rs = w.received(0);
    let dgrams: Vec<_> = rs.iter().filter(|r| r.arrival == Arrival::Datagram).collect();
    assert_eq!(dgrams.len(), 12); // (live + hb) x 3 seconds x 2 copies
    assert_eq!(dgrams.iter().filter(|r| r.opened == Opened::Ok).count(), 6);
    assert_eq!(dgrams.iter().filter(|r| r.opened == Opened::Replay).count(), 6);
    assert!(dgrams.iter().filter(|r| r.opened == Opened::Replay).all(|r| r.msg.is_none()));
}

#[test]
fn a_replayed_stream_message_is_reported_as_replay() {
    let mut w = World::new(1, 1);
    w.run_until(0);
    w.dial(0);
    w.taps.dup_messages = true;
    w.run_until(2_000);
    let rs = w.received(0);
    let stream: Vec<_> = rs.iter().filter(|r| r.arrival == Arrival::Stream && r.at_ms > 0).collect();
    assert_eq!(stream.len(), 4);
    assert_eq!(stream.iter().map(|r| r.opened).collect::<Vec<_>>(), vec![Opened::Ok, Opened::Replay, Opened::Ok, Opened::Replay]);
}

#[test]
fn an_inner_replay_through_a_fresh_outer_seal_is_replay_too() {
    // A cloud that replays a box message by sealing it again in the outer session: the outer
    // layer accepts it, the box session's window catches it.
    let mut w = World::new(1, 1);
    w.run_until(0);
    w.dial(0);
    w.run_until(1_000);
    let (box_msg, chan) = {
        // Seal a copy of a box message the phone already got: take the last Data the box sent.
        let last = w.cloud_saw.iter().rev().find_map(|b| ftw_box::UpMsg::decode(b).filter(|m| m.kind == ftw_box::Kind::Data)).unwrap();
        (last.payload, last.chan)
    };
    // Re-send it from the box side of the cloud as if the box had.
    let m = ftw_box::UpMsg { kind: ftw_box::Kind::Data, chan, payload: box_msg };
    w.cloud.handle_message(w.now, UPLINK, &m.encode());
    w.pump();
    let last = w.received(0).pop().unwrap();
    assert_eq!((last.arrival, last.opened), (Arrival::Stream, Opened::Replay));
}

/// A control message overtaken by `n` bulk messages, arriving last.
fn overtaken_control(switches: BugSwitches, n: usize) -> Opened {
    let mut w = World::new(1, 1);
    w.phones[0] = {
        let mut cfg = w.phones[0].config().clone();
        cfg.switches = switches;
        PhoneSession::new(cfg, [50; 32])
    };
    w.run_until(0);
    w.dial(0);
    w.taps.hold = true;
    w.run_until(1_000); // the 1 s tick (and live, hb) is held
    let held_control: Vec<_> = w.taps.held.drain(..).filter(|(_, k, _)| *k == SendKind::Message).collect();
    assert_eq!(held_control.len(), 1);
    // A burst of bulk (the phone re-subscribing: hello_ok + snap each) overtakes it.
    w.taps.hold = false;
    for _ in 0..n / 2 {
        w.phones[0].set_hidden(w.now, false);
        w.pump();
    }
    let (i, kind, bytes) = &held_control[0];
    w.deliver_to_phone(*i, *kind, bytes);
    w.pump();
    w.received(0).last().unwrap().opened
}

#[test]
fn replay_window_switch_reaches_the_phone_sessions() {
    assert_eq!(overtaken_control(BugSwitches::default(), 100), Opened::Ok);
    assert_eq!(overtaken_control(BugSwitches { replay_window_64: true, ..BugSwitches::default() }, 100), Opened::Replay);
    // Within 64 both accept.
    assert_eq!(overtaken_control(BugSwitches { replay_window_64: true, ..BugSwitches::default() }, 40), Opened::Ok);
}

#[test]
fn background_cadence_is_0_2_hz() {
    let mut w = World::new(1, 1);
    w.run_until(0);
    w.dial(0);
    w.run_until(10_000);
    assert_eq!(lane0_count(&w.received(0), 1, 10_001), 10);
    assert!(w.phones[0].set_hidden(w.now, true));
    w.pump();
    w.run_until(70_000);
    let rs = w.received(0);
    assert_eq!(lane0_count(&rs, 10_001, 70_001), 12, "0.2 Hz for 60 s");
    let lives = rs.iter().filter(|r| r.at_ms > 10_000 && matches!(r.msg, Some(Msg::Live(_)))).count();
    assert_eq!(lives, 12);
    assert!(w.phones[0].set_hidden(w.now, false));
    w.pump();
    w.run_until(80_000);
    assert_eq!(lane0_count(&w.received(0), 70_001, 80_001), 10);
}

#[test]
fn four_sessions_max_and_many_phones_relayed_to_one_box() {
    let mut w = World::new(5, 5);
    w.run_until(0);
    for i in 0..5 {
        w.dial(i);
    }
    for i in 0..4 {
        assert_eq!(w.phones[i].state(), PhoneState::Open, "phone {i}");
    }
    assert_eq!(w.closed(4), Some(close::BUSY));
    assert_eq!(w.bx.session_count(), 4);
    w.run_until(3_000);
    for i in 0..4 {
        let rs = w.received(i);
        assert_eq!(lane0_count(&rs, 1, 3_001), 3, "phone {i}");
        assert!(rs.iter().all(|r| r.opened == Opened::Ok));
    }
    // One leaves: the box frees its session; a new try of the fifth succeeds.
    w.phones[0].close(w.now);
    w.pump();
    assert_eq!(w.bx.session_count(), 3);
    let cfg = w.phones[4].config().clone();
    w.phones[4] = PhoneSession::new(cfg, [99; 32]);
    w.events[4].clear();
    w.dial(4); // a new link id would be used by a real driver; the old one is forgotten
    assert_eq!(w.phones[4].state(), PhoneState::Open);
    assert_eq!(w.bx.session_count(), 4);
    assert_eq!(w.cloud.relayed_phones(BOX_ID), 4);
}

#[test]
fn an_uplink_that_drops_closes_its_phones_and_the_box_redials() {
    let mut w = World::new(1, 1);
    w.run_until(0);
    w.dial(0);
    w.run_until(2_000);
    w.uplink_open = false;
    w.cloud.handle_closed(w.now, UPLINK, 1006);
    w.bx.handle_closed(w.now, 1006);
    w.pump();
    assert_eq!(w.closed(0), Some(close::GOING_AWAY));
    assert_eq!(w.bx.session_count(), 0);
    w.run_until(3_500);
    assert!(w.cloud.box_online(BOX_ID));
    assert_eq!(w.bx.stats().uplinks_up, 2);
}

#[test]
fn same_seeds_same_bytes() {
    let run = || {
        let mut w = World::new(2, 2);
        w.run_until(0);
        w.dial(0);
        w.dial(1);
        w.run_until(5_000);
        w.cloud_saw.concat()
    };
    assert_eq!(run(), run());
}

#[test]
fn a_box_that_is_up_but_does_not_answer_also_gives_4408() {
    let mut w = World::new(1, 1);
    w.run_until(0);
    w.box_mute = true;
    w.now = 500;
    w.dial(0);
    assert_eq!(w.bx.session_count(), 1, "the box got the Open");
    w.run_until(500 + consts::BOX_WAIT_MS - 1);
    assert_eq!(w.closed(0), None);
    w.run_until(500 + consts::BOX_WAIT_MS);
    assert_eq!(w.closed(0), Some(close::TIMED_OUT));
    // The box is told the phone left.
    assert_eq!(w.bx.session_count(), 0);
}

#[test]
fn what_the_phone_is_shown_depends_on_the_site_seed_only_through_the_box() {
    let lives = |site_seed: u64| {
        let mut w = World::new(1, 1);
        let cfg = w.bx.config().clone();
        w.bx = BoxNode::new(BoxConfig { site_seed, ..cfg }, [2; 32]);
        w.run_until(0);
        w.dial(0);
        w.run_until(4_000);
        w.received(0)
            .into_iter()
            .filter_map(|r| match r.msg {
                Some(Msg::Live(l)) => Some(l.values),
                _ => None,
            })
            .collect::<Vec<_>>()
    };
    assert_eq!(lives(4242), lives(4242));
    assert_ne!(lives(4242), lives(4243));
}

/// The uplink's challenge (box uplink.rs's table): the cloud sends a nonce first and
/// takes the uplink as the box's only once its `Auth` proves the registered key.
#[test]
fn an_uplink_serves_the_box_only_after_its_proof() {
    let (cloud_key, box_key) = (key(200), key(201));
    let mut c = Cloud::new(CloudConfig::new(cloud_key.clone()), [1; 32]);
    c.register_box(BOX_ID, box_key.public);
    let challenge = |c: &mut Cloud, link: LinkId| {
        c.handle_accept(link, link, "/box/box-1", true);
        let Some(Transmit { link: l, op: LinkOp::Send { bytes, .. } }) = c.poll_transmit() else { panic!("a challenge first") };
        let m = UpMsg::decode(&bytes).expect("an uplink message");
        assert_eq!((l, m.kind, m.chan, m.payload.len()), (link, Kind::Challenge, 0, UPLINK_NONCE_LEN));
        m.payload
    };
    // A proof made with another key: refused, 4403, and the box stays offline.
    let nonce = challenge(&mut c, 1);
    assert!(!c.box_online(BOX_ID), "not before the proof");
    let forged = uplink_proof(&key(202).private, &cloud_key.public, &nonce, BOX_ID);
    c.handle_message(1, 1, &UpMsg::auth(&forged).encode());
    assert!(matches!(c.poll_transmit(), Some(Transmit { link: 1, op: LinkOp::Close { code: close::FORBIDDEN, .. } })));
    assert!(!c.box_online(BOX_ID));
    // The right proof for another nonce (a replayed answer): refused too.
    let nonce2 = challenge(&mut c, 2);
    assert_ne!(nonce, nonce2, "a fresh nonce per uplink");
    let replayed = uplink_proof(&box_key.private, &cloud_key.public, &nonce, BOX_ID);
    c.handle_message(2, 2, &UpMsg::auth(&replayed).encode());
    assert!(matches!(c.poll_transmit(), Some(Transmit { link: 2, op: LinkOp::Close { code: close::FORBIDDEN, .. } })));
    // The box's own proof of this nonce: the uplink is the box's.
    let nonce3 = challenge(&mut c, 3);
    c.handle_message(3, 3, &UpMsg::auth(&uplink_proof(&box_key.private, &cloud_key.public, &nonce3, BOX_ID)).encode());
    assert!(c.box_online(BOX_ID));
    assert_eq!((c.stats().uplinks_authed, c.stats().uplinks_refused), (1, 2));
}
