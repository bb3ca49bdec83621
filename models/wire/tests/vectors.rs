//! Reproduce every entry of shared/vectors/webapp-vectors.json byte for byte
//! (from the copy in tests/data/, see its README).

use ftw_wire::envelope::{Cmd, Delta, Expect, FieldDef, IdMap, Snap, SourceInfo};
use ftw_wire::noise::{HandshakeParams, Initiator, Keypair, Responder, SeededResolver, Session};
use ftw_wire::{consts, BugSwitches, ControlBucket, Envelope, Frame, Msg};
use serde_json::Value as Json;
use std::collections::BTreeMap;

const COPY: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/data/webapp-vectors.json");
const SHARED: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../../../shared/vectors/webapp-vectors.json");

fn vectors() -> Json {
    serde_json::from_str(&std::fs::read_to_string(COPY).expect("vector file")).expect("json")
}

#[test]
fn the_copy_matches_shared_where_present() {
    if let Ok(shared) = std::fs::read(SHARED) {
        assert_eq!(std::fs::read(COPY).expect("copy"), shared, "tests/data/webapp-vectors.json differs from shared/vectors/");
    }
}

fn hx(v: &Json) -> Vec<u8> {
    hex::decode(v.as_str().expect("hex string")).expect("hex")
}

fn key(v: &Json) -> [u8; 32] {
    hx(v).try_into().expect("32 bytes")
}

fn frame_vector<'a>(v: &'a Json, name: &str) -> &'a Json {
    v["frames"].as_array().unwrap().iter().find(|f| f["name"] == name).expect(name)
}

/// The typed message each named vector frame carries, and its envelope id.
fn typed(name: &str) -> Option<(Option<u32>, Msg)> {
    Some(match name {
        "tick" => (None, Msg::Tick { seq: Some(41) }),
        "tick_no_body" => (None, Msg::Tick { seq: None }),
        "delta_export" => (None, Msg::Delta(Delta { seq: 42, fields: IdMap::from([(2, -4200), (3, 6200), (4, -1500), (5, 875), (6, 13400)]) })),
        "delta_truncated" => (None, Msg::Delta(Delta { seq: 43, fields: IdMap::from([(2, 11400)]) })),
        "cmd_with_id" => (
            Some(7),
            Msg::Cmd(Cmd {
                cmd_id: "018f3a2b-0000-7000-8000-000000000001".into(),
                op: "set_mode".into(),
                args: ciborium::Value::Map(vec![("mode".into(), "idle".into())]),
                not_valid_after_ms: 1712345678901,
                expect: Some(Expect { rev: 12, guards: vec![] }),
            }),
        ),
        "small_control_bucket" => (None, Msg::Tick { seq: Some(44) }),
        "snap_bulk" => (
            Some(3),
            Msg::Snap(Snap {
                rev: 12,
                dict: IdMap::from([(2, FieldDef { name: "grid_w".into(), unit: "W".into(), src_id: "meter.p1".into() })]),
                fields: IdMap::from([(2, -4200), (5, 875)]),
                sources: BTreeMap::from([(
                    "meter.p1".to_string(),
                    SourceInfo { kind: "meter".into(), name: None, last_ok_ms: 900, stale_after_ms: 5000, state: "live".into() },
                )]),
            }),
        ),
        _ => return None,
    })
}

#[test]
fn handshake_vector() {
    let v = vectors();
    let h = &v["handshake"];
    assert_eq!(v["protocolName"], consts::NOISE_PROTOCOL_NAME);
    assert_eq!(hx(&h["prologue"]), consts::VECTOR_PROLOGUE);

    let phone = Keypair::from_private(key(&h["initiatorStatic"]));
    let boxk = Keypair::from_private(key(&h["responderStatic"]));
    assert_eq!(phone.public, key(&h["initiatorStaticPublic"]));
    assert_eq!(boxk.public, key(&h["responderStaticPublic"]));

    let (app, boxs) = run_vector_handshake(&v);
    assert_eq!(app.handshake_hash().to_vec(), hx(&h["handshakeHash"]));
    assert_eq!(boxs.handshake_hash(), app.handshake_hash());
    assert_eq!(boxs.remote_static(), phone.public);
    assert_eq!(app.remote_static(), boxk.public);
}

/// Runs the vector handshake, asserting both messages and payloads; returns (app, box) sessions.
fn run_vector_handshake(v: &Json) -> (Session, Session) {
    let h = &v["handshake"];
    let phone = Keypair::from_private(key(&h["initiatorStatic"]));
    let boxk = Keypair::from_private(key(&h["responderStatic"]));
    let resolver = SeededResolver::new([0; 32]); // unused: ephemerals are fixed
    let mut ip = HandshakeParams::box_session_initiator(phone, boxk.public, resolver.clone());
    ip.prologue = hx(&h["prologue"]);
    ip.fixed_ephemeral = Some(key(&h["initiatorEphemeral"]));
    let mut rp = HandshakeParams::box_session_responder(boxk, resolver);
    rp.prologue = hx(&h["prologue"]);
    rp.fixed_ephemeral = Some(key(&h["responderEphemeral"]));

    let (i, m1) = Initiator::new(&ip).unwrap().write_msg1(&hx(&h["message1Payload"])).unwrap();
    assert_eq!(hex::encode(&m1), h["message1"].as_str().unwrap(), "message 1");
    let (r, p1) = Responder::new(&rp).unwrap().read_msg1(&m1).unwrap();
    assert_eq!(p1, hx(&h["message1Payload"]));
    let (m2, boxs) = r.write_msg2(&hx(&h["message2Payload"])).unwrap();
    assert_eq!(hex::encode(&m2), h["message2"].as_str().unwrap(), "message 2");
    let (p2, app) = i.read_msg2(&m2).unwrap();
    assert_eq!(p2, hx(&h["message2Payload"]));
    (app, boxs)
}

#[test]
fn frame_vectors() {
    let v = vectors();
    let frames = v["frames"].as_array().unwrap();
    assert_eq!(frames.len(), 8);
    for f in frames {
        let name = f["name"].as_str().unwrap();
        let bytes = hx(&f["bytes"]);
        let bucket = f["bucket"].as_u64().unwrap() as usize;
        assert_eq!(bytes.len(), bucket, "{name}");

        // Decode: header fields and declared length.
        let frame = Frame::decode(&bytes).unwrap();
        assert_eq!(frame.lane as u64, f["lane"].as_u64().unwrap(), "{name}");
        assert_eq!(frame.flags as u64, f["flags"].as_u64().unwrap(), "{name}");
        assert_eq!(frame.payload.len() as u64, f["payloadLen"].as_u64().unwrap(), "{name}");
        assert_eq!(frame.is_trunc(), name == "delta_truncated");

        // The frame layer re-encodes byte for byte.
        let control = ControlBucket::from_len(bucket).unwrap_or_default();
        assert_eq!(frame.encode(control).unwrap(), bytes, "{name}");

        // The envelope: keys as listed.
        let env = Envelope::decode(&frame.payload).unwrap();
        let keys: Vec<&str> = f["envelopeKeys"].as_array().unwrap().iter().map(|k| k.as_str().unwrap()).collect();
        assert_eq!(env.id.is_some(), keys.contains(&"id"), "{name}");
        assert_eq!(env.b.is_some(), keys.contains(&"b"), "{name}");

        let (id, msg) = Msg::decode(&frame.payload).unwrap();
        match typed(name) {
            Some((want_id, want)) => {
                // Decoded into the typed message, and rebuilt from it byte for byte.
                assert_eq!((id, &msg), (want_id, &want), "{name}");
                let rebuilt = Frame { lane: want.lane(), flags: frame.flags, payload: want.encode(want_id) };
                assert_eq!(rebuilt.encode(control).unwrap(), bytes, "{name} rebuilt from typed Msg");
            }
            None => {
                // Unknown type with unknown keys: ignored, not an error.
                assert_eq!(name, "unknown_type_with_unknown_keys");
                assert_eq!(msg, Msg::Unknown("plan.v2".into()));
                assert_eq!(id, None);
                assert!(keys.contains(&"futureField"));
            }
        }
    }
}

#[test]
fn transport_vectors() {
    let v = vectors();
    let (mut app, mut boxs) = run_vector_handshake(&v);
    let steps = v["transport"].as_array().unwrap();
    assert_eq!(steps.len(), 7);
    for step in steps {
        let frame_bytes = hx(&frame_vector(&v, step["frame"].as_str().unwrap())["bytes"]);
        let (sender, receiver) = if step["from"] == "app" { (&mut app, &mut boxs) } else { (&mut boxs, &mut app) };
        assert_eq!(sender.next_seq(), step["seq"].as_u64().unwrap());
        let wire = sender.seal(&frame_bytes).unwrap();
        assert_eq!(hex::encode(&wire), step["wire"].as_str().unwrap(), "{step}");
        let opened = receiver.open(&wire).unwrap();
        assert_eq!(opened, Frame::decode(&frame_bytes).unwrap());
        // A second delivery is a replay.
        assert!(matches!(receiver.open(&wire), Err(ftw_wire::OpenError::Replay { .. })));
    }
}

#[test]
fn transport_vectors_open_out_of_order() {
    // Messages may arrive out of order: the box's five messages opened in reverse.
    let v = vectors();
    let (mut app, _boxs) = run_vector_handshake(&v);
    let mut from_box: Vec<&Json> = v["transport"].as_array().unwrap().iter().filter(|s| s["from"] == "box").collect();
    from_box.reverse();
    for step in from_box {
        let frame = app.open(&hx(&step["wire"])).unwrap();
        assert_eq!(frame, Frame::decode(&hx(&frame_vector(&v, step["frame"].as_str().unwrap())["bytes"])).unwrap());
    }
    let _ = BugSwitches::default();
}
