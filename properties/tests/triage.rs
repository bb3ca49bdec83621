//! Failures grouped by signature across sessions (issue 38 section 2): two
//! shards that find the same planted bug give one signature after `ftwsim
//! triage`; a signature already in `corpus/` is marked known; bad input names
//! its file and field.
//!
//! The planted bug is the switch `no-routing` in `fleet-migrate` (the cloud's
//! reactors drop a moved client's short headers). Its cases fail two ways,
//! each one signature: `fleet-agrees-with-spec` at a `Fleet.Event.StaleDrop`
//! step (seeds 300.. and 400..: new), and `same-connection` (seeds 100..:
//! known, as `corpus/fleet-migrate-no-routing.toml`).

mod common;

use std::path::Path;
use std::process::Command;

fn ftwsim(args: &[&str]) -> (i32, String, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_ftwsim")).args(args).current_dir(env!("CARGO_MANIFEST_DIR")).output().expect("ftwsim runs");
    (out.status.code().unwrap_or(-1), String::from_utf8_lossy(&out.stdout).into(), String::from_utf8_lossy(&out.stderr).into())
}

fn scratch(name: &str) -> common::Scratch {
    common::scratch("triage", name)
}

fn s(p: &Path) -> &str {
    p.to_str().expect("utf-8 path")
}

const CORPUS: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../corpus");

/// A short fuzzing session into `dir` with its summary saved there; the summary.
fn shard(dir: &Path, seed_from: &str) -> serde_json::Value {
    let args = ["fuzz", "--cases", "4", "--scenario", "fleet-migrate", "--switch", "no-routing", "--seed-from", seed_from, "--out", s(dir), "--json"];
    let (code, out, err) = ftwsim(&args);
    assert_eq!(code, 1, "the planted bug is found: {out}{err}");
    std::fs::write(dir.join("summary.json"), &out).expect("summary saved");
    serde_json::from_str(out.trim()).expect("one JSON object")
}

fn triage(dirs: &[&Path]) -> serde_json::Value {
    let mut args = vec!["triage", "--json", "--corpus", CORPUS];
    args.extend(dirs.iter().map(|d| s(d)));
    let (code, out, err) = ftwsim(&args);
    assert_eq!(code, 0, "{out}{err}");
    serde_json::from_str(out.trim()).expect("one JSON object")
}

#[test]
fn two_shards_with_one_bug_give_one_signature_and_a_corpus_one_is_known() {
    let root = scratch("shards");
    let (a, b, c) = (root.join("a"), root.join("b"), root.join("c"));
    // Shards whose failing cases all show the bug first as the fleet reference's
    // stale drop (since the kernel hashes as Linux does, session 33, a no-routing case
    // as often loses its connection first: same-connection, the third shard's).
    let (sa, sb) = (shard(&a, "1800"), shard(&b, "400"));
    // The fuzzer's own summary groups its failures by signature, never by text.
    let key = "fleet-migrate fleet-agrees-with-spec step Fleet.Event.StaleDrop";
    for summary in [&sa, &sb] {
        assert!(summary["signatures"][key].as_u64().is_some_and(|n| n >= 1), "{}", summary["signatures"]);
        assert!(summary["failures"].as_array().unwrap().iter().all(|f| f["signature"]["reason"].is_string()));
    }
    let t = triage(&[&a, &b]);
    let sigs = t["signatures"].as_array().expect("signatures");
    assert_eq!(sigs.len(), 1, "one bug, one signature: {sigs:?}");
    let one = &sigs[0];
    assert_eq!(one["key"], key);
    assert_eq!(one["status"], "new", "no entry in corpus/ fails fleet-agrees-with-spec this way");
    assert_eq!(one["entries"], 2, "both shards' entries are in it");
    let smallest = one["smallest"]["entry"].as_str().expect("its smallest entry");
    let faults = |p: &str| std::fs::read_to_string(p).expect("entry").matches("[[plan.faults]]").count();
    let other = sa["failures"][0]["entry"].as_str().filter(|e| *e != smallest).or(sb["failures"][0]["entry"].as_str()).expect("the other entry");
    assert!(faults(smallest) <= faults(other), "the smaller entry is kept: {smallest} over {other}");
    assert_eq!(t["cases"], 8);

    // A third shard finds the bug as the corpus already has it: known.
    shard(&c, "100");
    let t = triage(&[&a, &b, &c]);
    let sigs = t["signatures"].as_array().expect("signatures");
    assert_eq!(sigs.len(), 2, "{sigs:?}");
    let known = sigs.iter().find(|r| r["status"] == "known").expect("a known signature");
    assert_eq!(known["key"], "fleet-migrate same-connection law");
    assert!(known["known_as"].as_str().is_some_and(|p| p.ends_with("fleet-migrate-no-routing.toml")), "{known}");
    assert_eq!(sigs[0]["status"], "new", "new signatures first");
}

#[test]
fn a_malformed_summary_is_named_with_its_field() {
    let dir = scratch("bad");
    std::fs::write(dir.join("summary.json"), r#"{"cases": "many", "shard": "0/1"}"#).expect("write");
    let (code, _, err) = ftwsim(&["triage", "--corpus", CORPUS, s(&dir)]);
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("summary.json") && err.contains("field `cases`") && err.contains("\"many\""), "{err}");
    std::fs::write(dir.join("summary.json"), r#"{"cases": 1}"#).expect("write");
    let (_, _, err) = ftwsim(&["triage", "--corpus", CORPUS, s(&dir)]);
    assert!(err.contains("summary.json") && err.contains("missing field `shard`"), "{err}");
    std::fs::remove_file(dir.join("summary.json")).expect("rm");
    std::fs::write(dir.join("e.toml"), "scenario = \"fleet-migrate\"\nseed = 1\nexpect = \"fails same-connection\"\nreason = \"because\"\n").expect("write");
    let (code, _, err) = ftwsim(&["triage", "--corpus", CORPUS, s(&dir)]);
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("e.toml: field `reason`") && err.contains("\"because\""), "{err}");
    let (code, _, err) = ftwsim(&["triage", "--corpus", CORPUS, s(&dir.join("nowhere"))]);
    assert_eq!(code, 2);
    assert!(err.contains("nowhere: not a directory"), "{err}");
}

/// A corpus that is not there would call every failure new: named, not taken as empty.
#[test]
fn a_missing_corpus_is_named_not_taken_as_empty() {
    let dir = scratch("no-corpus");
    std::fs::write(dir.join("e.toml"), "scenario = \"fleet-migrate\"\nseed = 1\nexpect = \"fails same-connection\"\n").expect("write");
    let nowhere = dir.join("no-such-corpus");
    let (code, _, err) = ftwsim(&["triage", "--corpus", s(&nowhere), s(&dir)]);
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("--corpus") && err.contains("no-such-corpus: not a directory") && err.contains("no failure could be known"), "{err}");
}
