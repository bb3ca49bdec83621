//! Issue 19 section 3, the part done: every whole-number field of a leg and every
//! timed fault's time has a range beside its definition (`LINK_RANGES`,
//! `AT_MS_MAX` in sim/src/world/plan/mod.rs), and a corpus entry with a value
//! just outside is refused naming the file, the field, the value and the range,
//! while the value just inside loads.

use std::path::PathBuf;

use ftw_properties::corpus;
use ftw_sim::plan::kind::SLOW_FOR_MS_MAX;
use ftw_sim::plan::{AT_MS_MAX, LINK_RANGES, PROCESSING_RANGES};

fn entry(dir: &std::path::Path, name: &str, body: &str) -> PathBuf {
    let p = dir.join(name);
    std::fs::write(&p, format!("scenario = \"quic-echo\"\nseed = 1\nswitches = []\nexpect = \"pass\"\nnote = \"range test\"\n\n{body}")).expect("writes");
    p
}

#[test]
fn every_leg_field_is_refused_just_outside_its_range_and_loads_just_inside() {
    let dir = std::env::temp_dir().join(format!("ftw-ranges-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("dir");
    for &(field, lo, hi, _) in LINK_RANGES {
        let inside = entry(&dir, &format!("{field}-in.toml"), &format!("[plan.box]\n{field} = {hi}\n"));
        corpus::load(&inside).unwrap_or_else(|e| panic!("{field} = {hi} should load: {e}"));
        let mut outside = vec![hi + 1];
        if lo > 0 {
            outside.push(lo - 1);
        }
        for v in outside {
            let p = entry(&dir, &format!("{field}-{v}.toml"), &format!("[plan.box]\n{field} = {v}\n"));
            let e = corpus::load(&p).expect_err(&format!("{field} = {v} is out of range"));
            for part in [p.to_string_lossy().as_ref(), field, &v.to_string(), &format!("from {lo} to {hi}")] {
                assert!(e.contains(part), "{field} = {v}: the error names {part:?}: {e}");
            }
        }
    }
    // The example: a 46-day one-way delay.
    let p = entry(&dir, "46-days.toml", "[plan.phone]\none_way_ms = 4000000000\n");
    assert!(corpus::load(&p).expect_err("46 days").contains("one_way_ms"));
    // A fault's time: a week is the latest.
    let fault = |at: u64| format!("[[plan.faults]]\nat_ms = {at}\nkind = \"rebind\"\nhost = \"phone\"\n");
    corpus::load(&entry(&dir, "at-in.toml", &fault(AT_MS_MAX))).expect("a week loads");
    let e = corpus::load(&entry(&dir, "at-out.toml", &fault(AT_MS_MAX + 1))).expect_err("past a week");
    assert!(e.contains("at_ms") && e.contains(&(AT_MS_MAX + 1).to_string()), "{e}");
    std::fs::remove_dir_all(&dir).ok();
}

/// The hosts' processing (issue 16 section 3): each field of `[plan.processing]`
/// just inside and just outside its range, and a slow host's `for_ms`.
#[test]
fn every_processing_field_is_refused_just_outside_its_range() {
    let dir = std::env::temp_dir().join(format!("ftw-ranges-processing-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("dir");
    let body = |field: &str, v: u64| {
        let mut vals: Vec<String> = PROCESSING_RANGES.iter().map(|(f, lo, _, _)| format!("{f} = {}", if *f == field { v } else { *lo })).collect();
        vals.insert(0, "[plan.processing]".into());
        vals.join("\n") + "\n"
    };
    for &(field, _, hi, _) in PROCESSING_RANGES {
        corpus::load(&entry(&dir, &format!("p-{field}-in.toml"), &body(field, hi))).unwrap_or_else(|e| panic!("{field} = {hi} should load: {e}"));
        let p = entry(&dir, &format!("p-{field}-out.toml"), &body(field, hi + 1));
        let e = corpus::load(&p).expect_err("out of range");
        for part in [p.to_string_lossy().as_ref(), field, &(hi + 1).to_string(), &format!("to {hi}")] {
            assert!(e.contains(part), "{field}: the error names {part:?}: {e}");
        }
    }
    let slow = |ms: u64| format!("[[plan.faults]]\nat_ms = 0\nkind = \"slow_host\"\nhost = \"box\"\nfor_ms = {ms}\n");
    corpus::load(&entry(&dir, "slow-in.toml", &slow(SLOW_FOR_MS_MAX))).expect("an hour loads");
    let e = corpus::load(&entry(&dir, "slow-out.toml", &slow(SLOW_FOR_MS_MAX + 1))).expect_err("past an hour");
    assert!(e.contains("for_ms") && e.contains(&(SLOW_FOR_MS_MAX + 1).to_string()), "{e}");
    std::fs::remove_dir_all(&dir).ok();
}

/// Every timed kind's whole-number fields (issue 19 section 3): each range beside the
/// kind's definition (`TimedKind::ranges`), walked just inside and just outside.
#[test]
fn every_timed_kinds_field_is_refused_just_outside_its_range() {
    use ftw_sim::host::Host;
    use ftw_sim::plan::kind::{Draw, KINDS};
    let dir = std::env::temp_dir().join(format!("ftw-ranges-kinds-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("dir");
    let mut walked = 0;
    for kind in KINDS.iter().filter(|k| k.is_timed()) {
        for tf in kind.draw(&Draw { host: Host::Phone, at_ms: 0, for_ms: 1_000, extra: 1 }) {
            for &(field, lo, hi, _) in tf.fault.def().ranges() {
                let with = |v: u64| {
                    let mut t = toml::Value::try_from(&tf).expect("a fault is TOML");
                    t.as_table_mut().expect("a table").insert(field.into(), toml::Value::Integer(v as i64));
                    format!("[[plan.faults]]\n{}", toml::to_string(&t).expect("renders"))
                };
                let name = kind.name();
                corpus::load(&entry(&dir, &format!("k-{name}-{field}-in.toml"), &with(hi)))
                    .unwrap_or_else(|e| panic!("{name}.{field} = {hi} should load: {e}"));
                let mut outside = vec![hi + 1];
                if lo > 0 {
                    outside.push(lo - 1);
                }
                for v in outside {
                    let p = entry(&dir, &format!("k-{name}-{field}-{v}.toml"), &with(v));
                    let e = corpus::load(&p).expect_err(&format!("{name}.{field} = {v} is out of range"));
                    for part in [p.to_string_lossy().as_ref(), "plan.faults[0]", field, &v.to_string(), &format!("from {lo} to {hi}")] {
                        assert!(e.contains(part), "{name}.{field} = {v}: the error names {part:?}: {e}");
                    }
                }
                walked += 1;
            }
        }
    }
    assert!(walked >= 9, "only {walked} kind fields walked");
    std::fs::remove_dir_all(&dir).ok();
}

/// A kind's own checks beyond ranges: a relay fault's host and its other fields
/// together (a corrupted datagram toward the box, which the uplink never carries;
/// a close code the cloud does not send), refused naming the file, the fault and
/// the field, the value and what it must be.
#[test]
fn a_fault_whose_fields_contradict_each_other_is_refused() {
    let dir = std::env::temp_dir().join(format!("ftw-ranges-kinds-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("dir");
    let corrupt = |host: &str, dg: bool| format!("[[plan.faults]]\nat_ms = 1000\nkind = \"corrupt_message\"\nhost = \"{host}\"\ndatagram = {dg}\n");
    for (host, dg) in [("phone", true), ("phone", false), ("box", false)] {
        corpus::load(&entry(&dir, &format!("corrupt-{host}-{dg}.toml"), &corrupt(host, dg))).unwrap_or_else(|e| panic!("{host} {dg} loads: {e}"));
    }
    let p = entry(&dir, "corrupt-box-datagram.toml", &corrupt("box", true));
    let e = corpus::load(&p).expect_err("a datagram toward the box");
    for part in [p.to_string_lossy().as_ref(), "plan.faults[0]", "datagram = true", "must be false"] {
        assert!(e.contains(part), "the error names {part:?}: {e}");
    }
    let close = |code: u16| format!("[[plan.faults]]\nat_ms = 1000\nkind = \"cloud_close\"\nhost = \"phone\"\ncode = {code}\n");
    corpus::load(&entry(&dir, "close-4408.toml", &close(4408))).expect("4408 loads");
    let p = entry(&dir, "close-4000.toml", &close(4000));
    let e = corpus::load(&p).expect_err("4000 is not a close the cloud sends");
    for part in [p.to_string_lossy().as_ref(), "plan.faults[0]", "code", "4000"] {
        assert!(e.contains(part), "the error names {part:?}: {e}");
    }
    std::fs::remove_dir_all(&dir).ok();
}
