//! Unit tests of the box, driven by hand (no cloud, no network).

use super::*;
use ftw_wire::envelope::{Cmd, Hello, ProtoRange};
use ftw_wire::noise::{Initiator, InitiatorAwaitingMsg2};

fn keys(n: u8) -> Keypair {
    SeededResolver::new([n; 32]).generate_keypair()
}

fn new_box(paired: Vec<Key>) -> BoxNode {
    BoxNode::new(BoxConfig::new("box-1", keys(1), paired, 42), [9; 32])
}

fn up(b: &mut BoxNode, now: u64) {
    b.handle_timeout(now);
    assert_eq!(b.poll_output(), Some(BoxOutput::Dial { target: "/box/box-1".into() }));
    b.handle_uplink_up(now, true);
}

fn drain(b: &mut BoxNode) -> Vec<(SendKind, UpMsg)> {
    let mut v = vec![];
    while let Some(o) = b.poll_output() {
        match o {
            BoxOutput::Link(LinkOp::Send { kind, bytes }) => v.push((kind, UpMsg::decode(&bytes).unwrap())),
            other => panic!("unexpected {other:?}"),
        }
    }
    v
}

struct TestPhone {
    key: Keypair,
    chan: u32,
    hs: Option<InitiatorAwaitingMsg2>,
    s: Option<Session>,
}

impl TestPhone {
    fn new(n: u8, chan: u32) -> TestPhone {
        TestPhone { key: keys(n), chan, hs: None, s: None }
    }
    fn open_msg(&mut self, box_pub: Key) -> Vec<u8> {
        let p = HandshakeParams::box_session_initiator(self.key.clone(), box_pub, SeededResolver::new([self.chan as u8; 32]));
        let (hs, m1) = Initiator::new(&p).unwrap().write_msg1(b"").unwrap();
        self.hs = Some(hs);
        UpMsg { kind: Kind::Open, chan: self.chan, payload: m1 }.encode()
    }
    fn msg2(&mut self, m2: &[u8]) {
        let (_, s) = self.hs.take().unwrap().read_msg2(m2).unwrap();
        self.s = Some(s);
    }
    fn send(&mut self, m: &Msg, id: Option<u32>) -> Vec<u8> {
        let bytes = m.to_frame(id).encode(ControlBucket::default()).unwrap();
        let sealed = self.s.as_mut().unwrap().seal(&bytes).unwrap();
        UpMsg { kind: Kind::Data, chan: self.chan, payload: sealed }.encode()
    }
    fn open(&mut self, payload: &[u8]) -> (Option<u32>, Msg, Vec<u8>) {
        let f = self.s.as_mut().unwrap().open(payload).unwrap();
        let (id, m) = Msg::decode(&f.payload).unwrap();
        (id, m, f.payload)
    }
}

fn hello(hidden: bool) -> Msg {
    Msg::Hello(Hello { proto: ProtoRange { min: 1, max: 1 }, caps: vec![], sub: Subscription { fields: vec![], live: true, hidden } })
}

/// Open a session for `p` and say hello; returns the box's replies to hello.
fn handshake(b: &mut BoxNode, p: &mut TestPhone, now: u64, hidden: bool) -> Vec<(SendKind, UpMsg)> {
    let box_pub = b.config().key.public;
    b.handle_message(now, &p.open_msg(box_pub));
    let out = drain(b);
    assert_eq!(out.len(), 1);
    assert_eq!(out[0].1.kind, Kind::Data);
    p.msg2(&out[0].1.payload);
    b.handle_message(now, &p.send(&hello(hidden), Some(1)));
    drain(b)
}

#[test]
fn backoff_schedule_doubles_to_the_cap_with_jitter() {
    let mut b = new_box(vec![]);
    let mut now = 0;
    b.handle_timeout(now);
    assert!(matches!(b.poll_output(), Some(BoxOutput::Dial { .. })));
    let mut delays = vec![];
    for _ in 0..9 {
        b.handle_uplink_failed(now);
        let UplinkState::Down { next_dial_ms } = b.uplink() else { panic!() };
        assert_eq!(b.poll_timeout(), Some(next_dial_ms));
        delays.push(next_dial_ms - now);
        now = next_dial_ms;
        b.handle_timeout(now - 1);
        assert_eq!(b.poll_output(), None, "no dial before the deadline");
        b.handle_timeout(now);
        assert!(matches!(b.poll_output(), Some(BoxOutput::Dial { .. })));
    }
    let ceilings = [1_000, 2_000, 4_000, 8_000, 16_000, 32_000, 60_000, 60_000, 60_000];
    for (d, c) in delays.iter().zip(ceilings) {
        assert!(*d >= c / 2 && *d <= c, "delay {d} ceiling {c}");
    }
    // Jitter: not all at the same point of their range.
    let fracs: std::collections::BTreeSet<u64> = delays.iter().zip(ceilings).map(|(d, c)| d * 1000 / c).collect();
    assert!(fracs.len() > 3);
    // Same seed, same schedule.
    let mut b2 = new_box(vec![]);
    let mut now2 = 0;
    b2.handle_timeout(0);
    b2.poll_output();
    for d in &delays {
        b2.handle_uplink_failed(now2);
        let UplinkState::Down { next_dial_ms } = b2.uplink() else { panic!() };
        assert_eq!(next_dial_ms - now2, *d);
        now2 = next_dial_ms;
        b2.handle_timeout(now2);
        b2.poll_output();
    }
}

#[test]
fn long_uplink_resets_backoff_and_sessions_die_with_it() {
    let mut p = TestPhone::new(5, 1);
    let mut b = new_box(vec![p.key.public]);
    up(&mut b, 0);
    handshake(&mut b, &mut p, 0, false);
    assert_eq!(b.session_count(), 1);
    b.handle_closed(120_000, 1006);
    assert_eq!(b.session_count(), 0);
    let UplinkState::Down { next_dial_ms } = b.uplink() else { panic!() };
    assert!(next_dial_ms - 120_000 <= 1_000);
}

#[test]
fn unpaired_phone_gets_4403_and_no_message_2() {
    let mut p = TestPhone::new(5, 1);
    let mut b = new_box(vec![keys(6).public]);
    up(&mut b, 0);
    let box_pub = b.config().key.public;
    b.handle_message(0, &p.open_msg(box_pub));
    let out = drain(&mut b);
    assert_eq!(out, vec![(SendKind::Message, UpMsg::close(1, 4403))]);
    assert_eq!(b.session_count(), 0);
    assert_eq!(b.stats().refused_unpaired, 1);
}

#[test]
fn hello_gets_hello_ok_and_snap_on_bulk_then_1hz_lane0_and_live() {
    let mut p = TestPhone::new(5, 1);
    let mut b = new_box(vec![p.key.public]);
    up(&mut b, 0);
    let out = handshake(&mut b, &mut p, 0, false);
    assert_eq!(out.len(), 2);
    assert!(out.iter().all(|(k, m)| *k == SendKind::Bulk && m.kind == Kind::Bulk));
    let (id, m, _) = p.open(&out[0].1.payload);
    assert_eq!(id, Some(1));
    assert!(matches!(m, Msg::HelloOk(_)));
    let (_, m, _) = p.open(&out[1].1.payload);
    let Msg::Snap(snap) = m else { panic!("{m:?}") };
    assert_eq!(snap.rev, b.site().src_rev());
    assert_eq!(b.poll_timeout(), Some(1_000));
    let mut lane0 = 0;
    let mut lives = vec![];
    for t in 1..=10u64 {
        b.handle_timeout(t * 1_000);
        for (k, m) in drain(&mut b) {
            let (_, msg, raw) = p.open(&m.payload);
            match msg {
                Msg::Tick { .. } | Msg::Delta(_) => {
                    assert_eq!((k, m.kind), (SendKind::Message, Kind::Data));
                    lane0 += 1
                }
                Msg::Live(l) => {
                    assert_eq!((k, m.kind), (SendKind::Datagram, Kind::Dgram));
                    let table = live_table(&raw);
                    assert_eq!(table.is_some(), l.live_seq == 1, "table only in the first live");
                    lives.push(l)
                }
                Msg::Hb(h) => assert_eq!(h.live_seq, lives.last().unwrap().live_seq),
                Msg::Snap(_) => {}
                other => panic!("{other:?}"),
            }
        }
    }
    assert_eq!(lane0, 10);
    assert_eq!(lives.len(), 10);
    for l in &lives {
        let sent = b.live_sent(&p.key.public, l.live_seq).unwrap();
        assert_eq!(sent.values, l.values);
        assert_eq!(sent.src_rev, l.src_rev);
    }
}

#[test]
fn hidden_cadence_is_one_in_five_seconds_and_hello_switches_it() {
    let mut p = TestPhone::new(5, 1);
    let mut b = new_box(vec![p.key.public]);
    up(&mut b, 0);
    handshake(&mut b, &mut p, 0, true);
    let count = |b: &mut BoxNode, p: &mut TestPhone, from: u64, to: u64| {
        let mut n = 0;
        for t in from..to {
            b.handle_timeout(t * 100);
            for (_, m) in drain(b) {
                if matches!(p.open(&m.payload).1, Msg::Tick { .. } | Msg::Delta(_)) {
                    n += 1;
                }
            }
        }
        n
    };
    assert_eq!(count(&mut b, &mut p, 1, 601), 12, "0.2 Hz for 60 s");
    // Back in the foreground.
    b.handle_message(60_000, &p.send(&hello(false), Some(2)));
    drain(&mut b);
    assert_eq!(count(&mut b, &mut p, 601, 1201), 60, "1 Hz for 60 s");
}

#[test]
fn four_sessions_max_the_fifth_is_busy() {
    let mut phones: Vec<TestPhone> = (0..5).map(|i| TestPhone::new(10 + i, 100 + i as u32)).collect();
    let mut b = new_box(phones.iter().map(|p| p.key.public).collect());
    up(&mut b, 0);
    for p in phones.iter_mut().take(4) {
        handshake(&mut b, p, 0, false);
    }
    assert_eq!(b.session_count(), 4);
    let box_pub = b.config().key.public;
    let m = phones[4].open_msg(box_pub);
    b.handle_message(0, &m);
    assert_eq!(drain(&mut b), vec![(SendKind::Message, UpMsg::close(104, 4429))]);
    assert_eq!(b.session_count(), 4);
    // One leaves; the fifth gets in.
    b.handle_message(1, &UpMsg::close(100, 1000).encode());
    assert_eq!(b.session_count(), 3);
    handshake(&mut b, &mut phones[4], 1, false);
    assert_eq!(b.session_count(), 4);
}

#[test]
fn cmd_ack_then_result_and_battery_hold_shows() {
    let site_seed = (0..100).find(|&s| Site::new(s).has_battery()).unwrap();
    let mut p = TestPhone::new(5, 1);
    let mut b = BoxNode::new(BoxConfig::new("box-1", keys(1), vec![p.key.public], site_seed), [9; 32]);
    up(&mut b, 0);
    handshake(&mut b, &mut p, 0, false);
    let cmd = |id: &str, op: &str, nva: u64| {
        Msg::Cmd(Cmd {
            cmd_id: id.into(),
            op: op.into(),
            args: Value::Map(vec![(Value::Text("setpoint_w".into()), Value::Integer(777.into()))]),
            not_valid_after_ms: nva,
            expect: None,
        })
    };
    let wall = b.wall_ms(500);
    b.handle_message(500, &p.send(&cmd("c1", "battery.hold", wall + 5_000), Some(7)));
    let out = drain(&mut b);
    assert_eq!(out.len(), 1);
    let (id, m, _) = p.open(&out[0].1.payload);
    assert_eq!(id, Some(7));
    assert_eq!(m, Msg::CmdAck(CmdAck { cmd_id: "c1".into(), accepted: true, code: None }));
    assert_eq!(b.poll_timeout(), Some(500 + consts::CMD_APPLY_MS));
    b.handle_timeout(700);
    let out = drain(&mut b);
    let (id, m, _) = p.open(&out[0].1.payload);
    assert_eq!(id, Some(7));
    assert_eq!(m, Msg::CmdResult(CmdResult { cmd_id: "c1".into(), ok: true, code: None }));
    b.handle_timeout(2_000);
    drain(&mut b);
    assert_eq!(b.site().values()["battery_w"], 777);
    // Expired and unknown.
    b.handle_message(2_000, &p.send(&cmd("c2", "battery.hold", wall), Some(8)));
    b.handle_message(2_000, &p.send(&cmd("c3", "nope", wall + 9_000), Some(9)));
    let codes: Vec<_> = drain(&mut b)
        .iter()
        .map(|(_, m)| match p.open(&m.payload).1 {
            Msg::CmdAck(a) => (a.accepted, a.code),
            other => panic!("{other:?}"),
        })
        .collect();
    assert_eq!(codes, vec![(false, Some("E_CMD_EXPIRED".into())), (false, Some("E_UNKNOWN_OP".into()))]);
}

#[test]
fn battery_added_mid_session_sends_snap_and_live_with_table() {
    let site_seed = (0..100).find(|&s| !Site::new(s).has_battery()).unwrap();
    let mut p = TestPhone::new(5, 1);
    let mut b = BoxNode::new(BoxConfig::new("box-1", keys(1), vec![p.key.public], site_seed), [9; 32]);
    up(&mut b, 0);
    handshake(&mut b, &mut p, 0, false);
    b.handle_timeout(1_000);
    drain(&mut b);
    b.site_mut().add_battery();
    b.handle_timeout(2_000);
    let mut saw_snap = false;
    let mut saw_table = false;
    for (_, m) in drain(&mut b) {
        match p.open(&m.payload) {
            (_, Msg::Snap(s), _) => {
                assert_eq!(s.rev, 2);
                saw_snap = true
            }
            (_, Msg::Live(l), raw) => {
                assert_eq!(l.src_rev, 2);
                assert_eq!(live_table(&raw).unwrap(), vec!["grid_w", "pv_w", "battery_w", "battery_soc"]);
                saw_table = true
            }
            _ => {}
        }
    }
    assert!(saw_snap && saw_table);
}

#[test]
fn a_message_that_does_not_open_is_dropped() {
    let mut p = TestPhone::new(5, 1);
    let mut b = new_box(vec![p.key.public]);
    up(&mut b, 0);
    handshake(&mut b, &mut p, 0, false);
    let mut m = p.send(&hello(false), None);
    let n = m.len();
    m[n - 1] ^= 1;
    b.handle_message(0, &m);
    assert!(drain(&mut b).is_empty());
    assert_eq!(b.stats().dropped, 1);
    assert_eq!(b.session_count(), 1);
}

#[test]
fn a_phone_that_opens_again_replaces_its_old_session() {
    let mut phones: Vec<TestPhone> = (0..4).map(|i| TestPhone::new(10 + i, 100 + i as u32)).collect();
    let mut b = new_box(phones.iter().map(|p| p.key.public).collect());
    up(&mut b, 0);
    for p in phones.iter_mut() {
        handshake(&mut b, p, 0, false);
    }
    assert_eq!(b.session_count(), 4);
    // Phone 0 again, on a new channel, while its old session is still there: not busy.
    let mut again = TestPhone::new(10, 200);
    let box_pub = b.config().key.public;
    b.handle_message(1, &again.open_msg(box_pub));
    let out = drain(&mut b);
    assert_eq!(out[0], (SendKind::Message, UpMsg::close(100, 1000)));
    assert_eq!(out[1].1.kind, Kind::Data);
    assert_eq!(out[1].1.chan, 200);
    assert_eq!(b.session_count(), 4);
    let want: Vec<(u32, Key)> = [(101, 1), (102, 2), (103, 3), (200, 0)].iter().map(|&(c, i)| (c, phones[i].key.public)).collect();
    assert_eq!(b.session_phones(), want, "phone 0 now on channel 200, the others where they were");
}

/// The box answers the cloud's uplink challenge with the proof of its key, once per challenge.
#[test]
fn the_box_answers_the_uplink_challenge() {
    let cloud = keys(77);
    let mut b = BoxNode::new(BoxConfig { cloud_public: cloud.public, ..BoxConfig::new("box-1", keys(1), vec![], 42) }, [9; 32]);
    b.handle_timeout(0);
    assert!(matches!(b.poll_output(), Some(BoxOutput::Dial { .. })));
    b.handle_uplink_up(0, true);
    while b.poll_output().is_some() {}
    let nonce = [5u8; ftw_wire::consts::UPLINK_NONCE_LEN];
    b.handle_message(1, &UpMsg::challenge(&nonce).encode());
    let Some(BoxOutput::Link(LinkOp::Send { bytes, .. })) = b.poll_output() else { panic!("an Auth") };
    let m = UpMsg::decode(&bytes).expect("an uplink message");
    assert_eq!((m.kind, m.chan), (crate::uplink::Kind::Auth, 0));
    assert_eq!(m.payload, ftw_wire::noise::uplink_proof(&cloud.private, &keys(1).public, &nonce, "box-1").to_vec());
    b.handle_message(2, &UpMsg::challenge(&nonce[..4]).encode());
    assert!(b.poll_output().is_none(), "a short nonce is no challenge");
    assert_eq!(b.stats().challenges_answered, 1);
}

/// The box's site is the site at the box's clock: every timeout moves it to that time
/// (what lane 0 and live report are the site's values now, not at boot).
#[test]
fn the_site_follows_the_clock() {
    let mut b = new_box(vec![]);
    let mut at_boot = Site::new(42);
    at_boot.advance_to(0);
    for t in [0, 1_000, 61_000, 3_600_000] {
        b.handle_timeout(t);
        let mut s = Site::new(42);
        s.advance_to(t);
        assert_eq!(b.site().values(), s.values(), "at {t} ms");
    }
    assert_ne!(b.site().values(), at_boot.values(), "an hour on, the site has moved");
}
