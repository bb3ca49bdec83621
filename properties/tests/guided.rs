//! The guided search replays exactly (issue 36, done-when): a guided session with
//! the same seed and budget in cases keeps the same plans, byte for byte, and
//! finds the same failures, on one thread or two; a kept plan replays with the
//! bytes it recorded (`cargo sim replay` on the kept folder).

mod common;

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use ftw_properties::fuzz::{fuzz, FuzzOpts, Guide, Stop, Summary};
use ftw_sim::switch::Switches;

fn scratch(name: &str) -> common::Scratch {
    common::scratch("guided", name)
}

fn session(dir: &Path, scenarios: &[&str], switches: &[&str], cases: u64, jobs: usize) -> Summary {
    session_until(dir, scenarios, switches, Stop::Cases(cases), jobs)
}

fn session_until(dir: &Path, scenarios: &[&str], switches: &[&str], stop: Stop, jobs: usize) -> Summary {
    fuzz(&opts_for(dir, scenarios, switches, stop, jobs)).expect("valid options")
}

fn opts_for(dir: &Path, scenarios: &[&str], switches: &[&str], stop: Stop, jobs: usize) -> FuzzOpts {
    FuzzOpts {
        stop,
        property: None,
        scenarios: scenarios.iter().map(|s| s.to_string()).collect(),
        switches: Switches::parse(switches.iter().copied()).expect("known switches"),
        quic: Default::default(),
        shard: (0, 1),
        seed_from: 700,
        out_dir: dir.join("found"),
        determinism_every: 4,
        jobs,
        progress: false,
        first_only: false,
        guide: Guide { on: true, kept_out: Some(dir.join("kept")), kept_from: vec![] },
        known: Default::default(),
    }
}

/// Every file under `dir` (relative path -> bytes).
fn files(dir: &Path) -> BTreeMap<String, Vec<u8>> {
    let mut out = BTreeMap::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        for e in std::fs::read_dir(&d).into_iter().flatten().flatten() {
            let p = e.path();
            if p.is_dir() {
                stack.push(p);
            } else {
                out.insert(p.strip_prefix(dir).expect("under dir").display().to_string(), std::fs::read(&p).expect("readable"));
            }
        }
    }
    out
}

#[test]
fn a_guided_session_keeps_the_same_plans_on_one_thread_or_two() {
    let scenarios = ["fleet-migrate", "quic-echo", "cloud-door"];
    let (a, b) = (scratch("kept-1"), scratch("kept-2"));
    let one = session(&a, &scenarios, &[], 150, 1);
    let two = session(&b, &scenarios, &[], 150, 2);
    let (ka, kb) = (files(&a.join("kept")), files(&b.join("kept")));
    assert!(one.kept > 3, "the search kept plans: {}", one.kept);
    assert_eq!(ka.len() as u64, one.kept, "one file a kept plan");
    assert_eq!(ka, kb, "the same kept plans, byte for byte");
    assert_eq!((one.keys, one.kept, one.cases), (two.keys, two.kept, two.cases));
    let mutated = ka.values().filter(|t| String::from_utf8_lossy(t).contains("a mutation of a kept plan")).count();
    assert!(mutated > 0, "some kept plans are mutations of kept plans, not only fresh draws");
    // Every kept plan replays to its expectation with the bytes it recorded.
    let kept: Vec<PathBuf> = scenarios.iter().map(|s| a.join("kept").join(s)).filter(|p| p.exists()).collect();
    let replayed = ftw_properties::corpus::replay(&ftw_properties::corpus::collect(&kept).expect("kept files"), 2);
    assert_eq!(replayed.len() as u64, one.kept);
    for r in &replayed {
        assert!(r.met() && r.bytes == ftw_properties::corpus::Bytes::Same, "{} replays as kept: {:?}", r.path.display(), r.bytes);
    }
}

#[test]
fn a_guided_session_finds_the_same_failures_on_one_thread_or_two() {
    let (a, b) = (scratch("fail-1"), scratch("fail-2"));
    let one = session(&a, &["fleet-migrate"], &["no-routing"], 24, 1);
    let two = session(&b, &["fleet-migrate"], &["no-routing"], 24, 2);
    let show = |s: &Summary| s.failures.iter().map(|f| (f.signature.key(), f.seed, f.case, f.repeats, f.hash.clone())).collect::<Vec<_>>();
    assert!(!one.failures.is_empty(), "the planted bug is found");
    assert_eq!(show(&one), show(&two));
    assert_eq!(files(&a.join("kept")), files(&b.join("kept")));
    let entries = |d: &Path| files(&d.join("found")).into_iter().filter(|(n, _)| n.ends_with(".toml")).collect::<BTreeMap<_, _>>();
    assert_eq!(entries(&a), entries(&b), "the same shrunk entries");
}

/// A failure whose signature the session knows (`FuzzOpts::known`: the product's
/// own findings, for the mutation score's fuzz) is passed over: not kept, and it
/// does not end a `first_only` session; any other failure still counts.
#[test]
fn a_known_failure_is_passed_over() {
    let (a, b) = (scratch("known-1"), scratch("known-2"));
    let found = session(&a, &["fleet-migrate"], &["no-routing"], 24, 1);
    let known: std::collections::BTreeSet<_> = found.failures.iter().map(|f| f.signature.clone()).collect();
    assert!(!known.is_empty(), "the planted bug is found");
    let mut opts = opts_for(&b, &["fleet-migrate"], &["no-routing"], Stop::Cases(24), 1);
    (opts.known, opts.first_only) = (known, true);
    let passed = fuzz(&opts).expect("valid options");
    assert!(passed.failures.is_empty(), "{:?}", passed.failures.iter().map(|f| f.signature.key()).collect::<Vec<_>>());
    assert_eq!(passed.cases, 24, "every case ran: the known failure ended nothing");
    let product = ftw_properties::triage::known_findings(&PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../corpus")).expect("the corpus loads");
    assert!(product.iter().any(|s| s.key().contains("rejected-0rtt-loses-nothing")), "{product:?}");
    assert!(product.iter().all(|s| !s.key().contains("fleet-migrate")), "no entry with a switch on: {product:?}");
}

/// Under `--time` cases are merged as they finish (`fuzz::AHEAD_PER_JOB`), not
/// in case order: a long case beside short ones leaves no core idle, every
/// case handed out is counted once, and each kept plan still replays with the
/// bytes it recorded.
#[test]
fn a_timed_guided_session_merges_out_of_order_and_its_kept_plans_replay() {
    let dir = scratch("timed");
    let s = session_until(&dir, &["quic-echo", "phone-race"], &[], Stop::Time(3), 2);
    let per: BTreeMap<&str, u64> = s.per_scenario.iter().map(|p| (p.scenario.as_str(), p.cases)).collect();
    assert_eq!(per.values().sum::<u64>(), s.cases, "every case counted once: {per:?}");
    assert!(per["quic-echo"] > 32 && per["phone-race"] >= 1, "both ran, the short one past its fresh draws: {per:?}");
    assert!(s.kept > 3 && s.keys > 0, "kept {} plans, {} keys", s.kept, s.keys);
    let kept = files(&dir.join("kept"));
    assert_eq!(kept.len() as u64, s.kept, "one file a kept plan");
    assert!(kept.values().any(|t| String::from_utf8_lossy(t).contains("a mutation of a kept plan")), "mutations were kept");
    let folders: Vec<PathBuf> = ["quic-echo", "phone-race"].iter().map(|s| dir.join("kept").join(s)).filter(|p| p.exists()).collect();
    let replayed = ftw_properties::corpus::replay(&ftw_properties::corpus::collect(&folders).expect("kept files"), 2);
    assert_eq!(replayed.len() as u64, s.kept);
    for r in &replayed {
        assert!(r.met() && r.bytes == ftw_properties::corpus::Bytes::Same, "{} replays as kept: {:?}", r.path.display(), r.bytes);
    }
}
