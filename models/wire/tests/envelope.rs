//! Envelope: unknown keys/types ignored; every Msg round-trips.

use std::collections::BTreeMap;

use ciborium::Value;
use ftw_wire::envelope::*;
use ftw_wire::{ControlBucket, Frame};

fn t(s: &str) -> Value {
    Value::Text(s.into())
}

fn cbor(v: &Value) -> Vec<u8> {
    to_cbor(v)
}

/// One message of every kind, with the edge values of its fields.
fn all_msgs() -> Vec<(Option<u32>, Msg)> {
    let mut all = opening_msgs();
    all.extend(session_msgs());
    all
}

/// The messages that open a session: hello, its answers, the snapshot.
fn opening_msgs() -> Vec<(Option<u32>, Msg)> {
    vec![
        (
            Some(1),
            Msg::Hello(Hello {
                proto: ProtoRange { min: 1, max: 2 },
                caps: vec!["status.core".into(), "cmd.lease".into()],
                sub: Subscription { fields: vec![2, 3, 4, 5], live: true, hidden: false },
            }),
        ),
        (
            Some(1),
            Msg::HelloOk(HelloOk {
                proto: 1,
                mode: "full".into(),
                caps: vec!["status.core".into()],
                clock: Clock { source: "ntp".into(), synced_at_ms: 1_700_000_000_000, uptime_ms: 12_345 },
                boot: "ok".into(),
                hint: None,
            }),
        ),
        (
            Some(2),
            Msg::HelloOk(HelloOk {
                proto: 0,
                mode: "floor".into(),
                caps: vec![],
                clock: Clock { source: "none".into(), synced_at_ms: 0, uptime_ms: 1 },
                boot: "booting".into(),
                hint: Some("app_update".into()),
            }),
        ),
        (
            Some(3),
            Msg::Snap(Snap {
                rev: 9,
                dict: IdMap::from([
                    (2, FieldDef { name: "grid_w".into(), unit: "W".into(), src_id: "meter.p1".into() }),
                    (10, FieldDef { name: "ev_w".into(), unit: "W".into(), src_id: "ev.1".into() }),
                ]),
                fields: IdMap::from([(2, -4200), (10, 7000)]),
                sources: BTreeMap::from([(
                    "meter.p1".into(),
                    SourceInfo { kind: "meter".into(), name: Some("P1".into()), last_ok_ms: 1, stale_after_ms: 5000, state: "live".into() },
                )]),
            }),
        ),
    ]
}

/// The messages of an open session: deltas, ticks, commands, live values, errors.
fn session_msgs() -> Vec<(Option<u32>, Msg)> {
    vec![
        (None, Msg::Delta(Delta { seq: u64::MAX, fields: IdMap::from([(3, i64::MIN), (4, i64::MAX)]) })),
        (None, Msg::Tick { seq: Some(0) }),
        (None, Msg::Tick { seq: None }),
        (
            Some(u32::MAX),
            Msg::Cmd(Cmd {
                cmd_id: "c1".into(),
                op: "site.mode.set".into(),
                args: Value::Map(vec![(t("mode"), t("idle"))]),
                not_valid_after_ms: 5,
                expect: None,
            }),
        ),
        (Some(4), Msg::CmdAck(CmdAck { cmd_id: "c1".into(), accepted: true, code: None })),
        (Some(4), Msg::CmdAck(CmdAck { cmd_id: "c1".into(), accepted: false, code: Some("E_SCOPE_DENIED".into()) })),
        (Some(4), Msg::CmdResult(CmdResult { cmd_id: "c1".into(), ok: false, code: Some("E_PRECONDITION".into()) })),
        (None, Msg::Hb(Hb { live_seq: 77 })),
        (
            None,
            Msg::Live(Live {
                live_seq: 78,
                src_rev: 3,
                wall_ms: 1_712_345_678_901,
                values: BTreeMap::from([("grid_w".into(), -300), ("pv_w".into(), 4100), ("battery_w".into(), -1200), ("soc_pct".into(), 64)]),
            }),
        ),
        (Some(5), Msg::Error(ErrorMsg { code: "E_UNAVAILABLE".into(), args: Some(BTreeMap::from([("src".into(), "meter.p1".into())])) })),
        (None, Msg::Error(ErrorMsg { code: "E_BOOTING".into(), args: None })),
        (None, Msg::SessionTerminate(Terminate { reason: "revoked".into() })),
        (None, Msg::NowTun(NowTun { box_id: "box-1".into(), m1: vec![1, 2, 3, 255] })),
        (Some(6), Msg::Unknown("plan.v9".into())),
    ]
}

#[test]
fn every_msg_round_trips_and_encodes_deterministically() {
    let msgs = all_msgs();
    let names: std::collections::BTreeSet<&str> = msgs.iter().map(|(_, m)| m.type_name()).collect();
    for want in ["hello", "hello_ok", "snap", "delta", "tick", "cmd", "cmd.ack", "cmd.result", "hb", "live", "error", "session.terminate", "now.tun"] {
        assert!(names.contains(want), "{want} covered");
    }
    for (id, m) in &msgs {
        let bytes = m.encode(*id);
        assert_eq!(m.encode(*id), bytes, "deterministic");
        assert_eq!(Msg::decode(&bytes).unwrap(), (*id, m.clone()), "{}", m.type_name());
        // And through a frame on its lane.
        let frame = m.to_frame(*id);
        let wire = frame.encode(ControlBucket::Large512).unwrap();
        let back = Frame::decode(&wire).unwrap();
        assert_eq!(back, frame);
        assert_eq!(Msg::decode(&back.payload).unwrap().1, m.clone());
    }
}

#[test]
fn lanes_follow_spec() {
    for (_, m) in all_msgs() {
        let bulk = matches!(m, Msg::Snap(_) | Msg::HelloOk(_));
        assert_eq!(m.lane(), if bulk { 1 } else { 0 }, "{}", m.type_name());
    }
}

#[test]
fn envelope_key_order_is_t_id_b() {
    let bytes = Msg::Hb(Hb { live_seq: 1 }).encode(Some(2));
    // a3, "t" "hb", "id" 2, "b" {liveSeq: 1}
    assert_eq!(hex::encode(&bytes), "a361746268626269640261 62a1676c6976655365710 1".replace(' ', ""));
}

#[test]
fn unknown_keys_ignored_everywhere() {
    // Envelope keys in another order, plus unknown keys, non-text keys and a non-u32 id.
    let env = Value::Map(vec![
        (t("zz"), Value::Array(vec![])),
        (Value::Integer(7.into()), t("x")),
        (t("b"), Value::Map(vec![(t("extra"), Value::Bool(true)), (t("liveSeq"), Value::Integer(9.into())), (t("more"), Value::Null)])),
        (t("id"), Value::Integer((-1).into())),
        (t("t"), t("hb")),
    ]);
    assert_eq!(Msg::decode(&cbor(&env)).unwrap(), (None, Msg::Hb(Hb { live_seq: 9 })));

    // Unknown keys inside nested bodies, and non-numeric keys in a field-id map.
    let env = Value::Map(vec![
        (t("t"), t("delta")),
        (
            t("b"),
            Value::Map(vec![
                (t("fields"), Value::Map(vec![(t("2"), Value::Integer(5.into())), (t("future"), Value::Integer(1.into()))])),
                (t("seq"), Value::Integer(3.into())),
                (t("prio"), t("hi")),
            ]),
        ),
    ]);
    assert_eq!(Msg::decode(&cbor(&env)).unwrap().1, Msg::Delta(Delta { seq: 3, fields: IdMap::from([(2, 5)]) }));

    // Unknown type with a body and unknown keys: Unknown, id kept.
    let env = Value::Map(vec![(t("t"), t("price.v3")), (t("id"), Value::Integer(4.into())), (t("b"), Value::Bytes(vec![1])), (t("q"), Value::Null)]);
    assert_eq!(Msg::decode(&cbor(&env)).unwrap(), (Some(4), Msg::Unknown("price.v3".into())));
}

#[test]
fn malformed_envelopes_are_typed_errors() {
    assert!(matches!(Envelope::decode(&[0xff, 0x00]), Err(EnvelopeError::Cbor(_))));
    assert_eq!(Envelope::decode(&cbor(&Value::Array(vec![]))), Err(EnvelopeError::NotAMap));
    assert_eq!(Envelope::decode(&cbor(&Value::Map(vec![(t("b"), Value::Null)]))), Err(EnvelopeError::NoType));
    assert_eq!(Envelope::decode(&cbor(&Value::Map(vec![(t("t"), Value::Integer(1.into()))]))), Err(EnvelopeError::TypeNotText));
    // A known type whose body lacks a required field.
    let env = Value::Map(vec![(t("t"), t("hb")), (t("b"), Value::Map(vec![]))]);
    assert!(matches!(Msg::decode(&cbor(&env)), Err(EnvelopeError::Body { t, .. }) if t == "hb"));
}

#[test]
fn fit_delta_truncates_lowest_priority_and_sets_trunc() {
    // Few fields: fits, no TRUNC (compare the vector delta_export).
    let small = IdMap::from([(2, -4200), (3, 6200)]);
    let (f, dropped) = fit_delta(42, &small, ControlBucket::Large512);
    assert_eq!((f.flags, dropped.len()), (0, 0));

    // Many large fields: the frozen ids survive, the tail is dropped, TRUNC set, bucket unchanged.
    let big: IdMap<i64> = IdMap((1..=120u32).map(|k| (k, i64::MIN + k as i64)).collect());
    for bucket in [ControlBucket::Small256, ControlBucket::Large512] {
        let (f, dropped) = fit_delta(43, &big, bucket);
        assert!(f.is_trunc());
        assert!(!dropped.is_empty());
        let wire = f.encode(bucket).expect("fits its bucket");
        assert_eq!(wire.len(), bucket.len_bytes());
        let Msg::Delta(d) = Msg::decode(&f.payload).unwrap().1 else { panic!("delta") };
        let kept: Vec<u32> = d.fields.0.keys().copied().collect();
        assert_eq!(kept, (1..=kept.len() as u32).collect::<Vec<_>>(), "a prefix of ids, lowest first");
        assert_eq!(kept.len() + dropped.len(), 120);
        assert!(kept.contains(&2) && kept.contains(&9));
    }
}
