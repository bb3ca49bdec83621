//! Handshakes: seeded determinism, pinned keys, and the overlapped outer + inner dial.

mod common;

use ftw_wire::envelope::{Clock, Hello, HelloOk, ProtoRange, Subscription};
use ftw_wire::noise::*;
use ftw_wire::{BugSwitches, ControlBucket, Frame, Msg};

/// A full seeded box-session handshake; returns (m1, m2, hash, first transport message).
fn run(seed: [u8; 32]) -> (Vec<u8>, Vec<u8>, [u8; 32], Vec<u8>) {
    let keys = SeededResolver::new(seed);
    let phone = keys.generate_keypair();
    let boxk = keys.generate_keypair();
    assert_ne!(phone, boxk, "two key pairs from one resolver differ");
    let (i, m1) = Initiator::new(&HandshakeParams::box_session_initiator(phone, boxk.public, keys.clone())).unwrap().write_msg1(b"hello").unwrap();
    let (r, _) = Responder::new(&HandshakeParams::box_session_responder(boxk, keys.clone())).unwrap().read_msg1(&m1).unwrap();
    let (m2, _) = r.write_msg2(b"ok").unwrap();
    let (_, mut s) = i.read_msg2(&m2).unwrap();
    let t = s.seal(b"frame").unwrap();
    (m1, m2, s.handshake_hash(), t)
}

#[test]
fn seeded_runs_are_identical_and_seeds_differ() {
    let a = run([1; 32]);
    assert_eq!(a, run([1; 32]));
    let b = run([2; 32]);
    assert_ne!(a.0, b.0);
    assert_ne!(a.1, b.1);
    assert_ne!(a.2, b.2);
}

#[test]
fn resolver_never_reuses_a_stream() {
    let r = SeededResolver::new([5; 32]);
    let k1 = r.generate_keypair();
    let shared = r.clone();
    let k2 = shared.generate_keypair();
    assert_ne!(k1, k2, "clones share the counter");
    assert_eq!(r.streams_used(), 2);
    // Two handshakes built from one resolver get different ephemerals (different m1 prefix).
    let boxk = Keypair::from_private([9; 32]);
    let m1a = Initiator::new(&HandshakeParams::box_session_initiator(k1.clone(), boxk.public, r.clone())).unwrap().write_msg1(b"").unwrap().1;
    let m1b = Initiator::new(&HandshakeParams::box_session_initiator(k1, boxk.public, r.clone())).unwrap().write_msg1(b"").unwrap().1;
    assert_ne!(m1a[..32], m1b[..32]);
}

#[test]
fn wrong_pinned_box_key_fails_at_message_1() {
    let r = SeededResolver::new([3; 32]);
    let phone = r.generate_keypair();
    let real_box = r.generate_keypair();
    let impostor = r.generate_keypair();
    let (_, m1) = Initiator::new(&HandshakeParams::box_session_initiator(phone, real_box.public, r.clone())).unwrap().write_msg1(b"x").unwrap();
    // The impostor (e.g. a relay) cannot read message 1 meant for the real box.
    assert!(matches!(Responder::new(&HandshakeParams::box_session_responder(impostor, r.clone())).unwrap().read_msg1(&m1), Err(NoiseError::Handshake(_))));
    assert!(Responder::new(&HandshakeParams::box_session_responder(real_box, r)).unwrap().read_msg1(&m1).is_ok());
}

#[test]
fn prologue_is_bound() {
    let r = SeededResolver::new([4; 32]);
    let phone = r.generate_keypair();
    let boxk = r.generate_keypair();
    assert_eq!(session_prologue(&boxk.public)[..15], *b"ftw.session.v1:");
    assert_eq!(tunnel_prologue(&boxk.public)[..14], *b"ftw.tunnel.v1:");
    let (_, m1) = Initiator::new(&HandshakeParams::box_session_initiator(phone, boxk.public, r.clone())).unwrap().write_msg1(b"").unwrap();
    let mut rp = HandshakeParams::box_session_responder(boxk, r);
    rp.prologue = b"ftw1".to_vec();
    assert!(Responder::new(&rp).unwrap().read_msg1(&m1).is_err());
}

#[test]
fn overlapped_outer_and_inner_handshake_end_to_end() {
    let keys = SeededResolver::new([42; 32]);
    let phone = keys.generate_keypair();
    let cloud = keys.generate_keypair();
    let boxk = keys.generate_keypair();
    let phone_rng = SeededResolver::new([43; 32]);

    // Phone: one flight carries the outer m1 with the inner m1 inside (now.tun).
    let outer_p = HandshakeParams::tunnel_initiator(phone.clone(), cloud.public, phone_rng.clone());
    let inner_p = HandshakeParams::box_session_initiator(phone.clone(), boxk.public, phone_rng.clone());
    let (dial, outer_m1) = PhoneDial::start(&outer_p, &inner_p, "box-1", b"pair").unwrap();

    // Cloud: reads the outer m1, learns the box and the inner m1, answers the outer m2 at once.
    let cloud_r = Responder::new(&HandshakeParams::tunnel_responder(cloud, SeededResolver::new([44; 32]))).unwrap();
    let (got, tun) = cloud_read_msg1(cloud_r, &outer_m1).unwrap();
    assert_eq!(got.remote_static(), phone.public);
    assert_eq!(tun.box_id, "box-1");
    let (outer_m2, mut cloud_tunnel) = got.write_msg2(b"").unwrap();

    // Phone: outer tunnel open before the box has answered.
    let (_, mut phone_tunnel) = dial.outer.read_msg2(&outer_m2).unwrap();
    assert_eq!(phone_tunnel.handshake_hash(), cloud_tunnel.handshake_hash());

    // Box: gets the inner m1 (relayed by the cloud, which cannot read it), answers m2.
    let box_r = Responder::new(&HandshakeParams::box_session_responder(boxk.clone(), SeededResolver::new([45; 32]))).unwrap();
    let (box_got, p1) = box_r.read_msg1(&tun.m1).unwrap();
    assert_eq!(p1, b"pair");
    assert_eq!(box_got.remote_static(), phone.public);
    let (inner_m2, mut box_session) = box_got.write_msg2(b"boot=ok").unwrap();

    // Cloud -> phone: inner m2 as an outer transport message.
    let carried = cloud_tunnel.seal(&inner_m2).unwrap();
    let inner_m2_at_phone = phone_tunnel.open_raw(&carried).unwrap();
    let (p2, mut phone_session) = dial.inner.read_msg2(&inner_m2_at_phone).unwrap();
    assert_eq!(p2, b"boot=ok");
    assert_eq!(phone_session.handshake_hash(), box_session.handshake_hash());
    assert_ne!(phone_session.handshake_hash(), phone_tunnel.handshake_hash());

    // hello over the box session, inside the tunnel.
    let hello = Msg::Hello(Hello { proto: ProtoRange { min: 1, max: 1 }, caps: vec![], sub: Subscription { fields: vec![], live: true, hidden: false } });
    let inner = phone_session.seal(&hello.to_frame(Some(1)).encode(ControlBucket::Large512).unwrap()).unwrap();
    let outer = phone_tunnel.seal(&inner).unwrap();
    let at_cloud = cloud_tunnel.open_raw(&outer).unwrap();
    assert_eq!(at_cloud, inner, "the cloud sees only the box session's ciphertext");
    let f = box_session.open(&at_cloud).unwrap();
    assert_eq!(Msg::decode(&f.payload).unwrap(), (Some(1), hello));

    // hello_ok back on the bulk lane.
    let ok = Msg::HelloOk(HelloOk {
        proto: 1,
        mode: "full".into(),
        caps: vec![],
        clock: Clock { source: "ntp".into(), synced_at_ms: 1, uptime_ms: 2 },
        boot: "ok".into(),
        hint: None,
    });
    let wire = box_session.seal(&ok.to_frame(Some(1)).encode(ControlBucket::Large512).unwrap()).unwrap();
    let back = phone_tunnel.open_raw(&cloud_tunnel.seal(&wire).unwrap()).unwrap();
    let f: Frame = phone_session.open(&back).unwrap();
    assert_eq!(f.lane, 1);
    assert_eq!(Msg::decode(&f.payload).unwrap().1, ok);
    let _ = BugSwitches::default();
}

#[test]
fn tunnel_without_now_tun_is_refused() {
    let r = SeededResolver::new([8; 32]);
    let phone = r.generate_keypair();
    let cloud = r.generate_keypair();
    let (_, m1) = Initiator::new(&HandshakeParams::tunnel_initiator(phone, cloud.public, r.clone())).unwrap().write_msg1(b"not cbor \xff").unwrap();
    let resp = Responder::new(&HandshakeParams::tunnel_responder(cloud, r)).unwrap();
    assert!(matches!(cloud_read_msg1(resp, &m1), Err(NoiseError::NoTunnelPayload(_))));
}
