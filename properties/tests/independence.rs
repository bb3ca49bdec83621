//! Issue 19 section 2: a run's bytes do not depend on how it is run: the test
//! harness's threads, the order cases run in, or what ran before in the same
//! process (thread-locals, statics, caches). Each test compares against hashes
//! made elsewhere: a fresh `ftwsim` process, or (`corpus_runs.rs`, which
//! replays the corpus once for two tests) the corpus's recorded bytes, written
//! by `ftwsim replay --record` on one thread.

use std::process::Command;

use ftw_sim::RunSeed;
use ftw_sim::RunSpec;

fn hash_of(spec: &RunSpec) -> String {
    ftw_sim::scenario::run(spec).expect("runs").outcome.trace.hash()
}

/// The hash a fresh `ftwsim` process gives a scenario's seed.
fn fresh_process_hash(scenario: &str, seed: u64) -> String {
    let out = Command::new(env!("CARGO_BIN_EXE_ftwsim"))
        .args(["run", "--scenario", scenario, "--seed", &seed.to_string(), "--json"])
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .output()
        .expect("ftwsim runs");
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).expect("one JSON object");
    v["hash"].as_str().expect("hash").to_string()
}

/// A case run after a hundred others in one process gives the hash a fresh
/// process gives it alone.
#[test]
fn a_case_after_a_hundred_others_gives_its_hash_alone() {
    let alone = fresh_process_hash("session", 11);
    // Every kind of party and link runs before it: QUIC, the WebSocket, the wire's
    // window, the fleet, the box's door, and one simulated day of an idle link
    // (once: a day is most of a second).
    let others = ["quic-echo", "ws-echo", "wire-window", "fleet-migrate", "box-door"];
    hash_of(&ftw_sim::scenario::spec("idle-link", RunSeed(999)));
    for i in 1..100u64 {
        hash_of(&ftw_sim::scenario::spec(others[(i % 5) as usize], RunSeed(1_000 + i)));
    }
    assert_eq!(hash_of(&ftw_sim::scenario::spec("session", RunSeed(11))), alone);
}

/// The same seeds run forward and backward in one process give the same hashes.
#[test]
fn seeds_in_two_orders_give_the_same_hashes() {
    let seeds: Vec<u64> = (1..=12).collect();
    let forward: Vec<String> = seeds.iter().map(|s| hash_of(&ftw_sim::scenario::spec("box-reconnect", RunSeed(*s)))).collect();
    let backward: Vec<String> = seeds.iter().rev().map(|s| hash_of(&ftw_sim::scenario::spec("box-reconnect", RunSeed(*s)))).collect();
    assert_eq!(forward, backward.into_iter().rev().collect::<Vec<_>>());
    assert_eq!(forward[4], fresh_process_hash("box-reconnect", 5));
}

/// The failures of the same seeds fuzzed with `--jobs 1` and `--jobs 2`: the
/// same cases, shrunk to the same plans, with the same trace hashes (the kept
/// failure is the lowest failing case of its law, whichever worker found it first).
#[test]
fn fuzz_jobs_do_not_change_the_failures_or_their_hashes() {
    let failures = |jobs: &str| {
        let dir = std::env::temp_dir().join(format!("ftw-jobs-{jobs}-{}", std::process::id()));
        let out = Command::new(env!("CARGO_BIN_EXE_ftwsim"))
            .args(["fuzz", "--cases", "60", "--jobs", jobs, "--switch", "replay-window-64", "--scenario", "wire-window,session", "--json", "--out"])
            .arg(&dir)
            .output()
            .expect("ftwsim runs");
        let v: serde_json::Value = serde_json::from_slice(&out.stdout).expect("the JSON summary");
        std::fs::remove_dir_all(&dir).ok();
        let mut got: Vec<(String, String, u64, String)> = v["failures"]
            .as_array()
            .expect("failures")
            .iter()
            .map(|f| {
                (
                    f["scenario"].as_str().unwrap().into(),
                    f["property"].as_str().unwrap().into(),
                    f["seed"].as_u64().unwrap(),
                    f["hash"].as_str().unwrap().into(),
                )
            })
            .collect();
        got.sort();
        got
    };
    // Two processes at once; each writes to its own directory.
    let (one, two) = std::thread::scope(|s| {
        let two = s.spawn(|| failures("2"));
        (failures("1"), two.join().expect("runs"))
    });
    assert!(!one.is_empty(), "the switch is caught");
    assert_eq!(one, two);
}
