//! The `ftwsim` command as a user runs it: exact replay across processes, the
//! corpus (including a corrupt entry), and clear errors for bad input.

use std::path::PathBuf;
use std::process::Command;

fn ftwsim(args: &[&str]) -> (i32, String, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_ftwsim"))
        .args(args)
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .output()
        .expect("ftwsim runs");
    (out.status.code().unwrap_or(-1), String::from_utf8_lossy(&out.stdout).into(), String::from_utf8_lossy(&out.stderr).into())
}

fn json_hash(args: &[&str]) -> String {
    let (code, out, err) = ftwsim(args);
    assert_eq!(code, 0, "{out}{err}");
    let v: serde_json::Value = serde_json::from_str(out.trim()).expect("one JSON object");
    for key in ["seed", "scenario", "hash", "verdict", "sim_ms", "wall_ms"] {
        assert!(v.get(key).is_some(), "--json lacks {key}: {out}");
    }
    v["hash"].as_str().expect("hash").to_string()
}

#[test]
fn same_seed_in_two_processes_gives_the_same_hash() {
    let a = json_hash(&["run", "--scenario", "quic-echo", "--seed", "1", "--json"]);
    let b = json_hash(&["run", "--scenario", "quic-echo", "--seed", "1", "--json"]);
    assert_eq!(a, b);
    let c = json_hash(&["run", "--scenario", "quic-echo", "--seed", "2", "--json"]);
    assert_ne!(a, c);
}

#[test]
fn check_determinism_runs_twice_and_agrees() {
    let (code, out, err) = ftwsim(&["run", "--scenario", "quic-echo", "--seed", "5", "--check-determinism"]);
    assert_eq!(code, 0, "{out}{err}");
    assert!(out.contains("determinism: two runs, identical traces"), "{out}");
    assert!(out.contains("replay: cargo sim run --scenario quic-echo --seed 5"), "{out}");
}

#[test]
fn bad_input_is_a_clear_error_with_status_2() {
    let (code, _, err) = ftwsim(&["run", "--scenario", "no-such", "--seed", "1"]);
    assert_eq!(code, 2);
    assert!(err.contains("unknown scenario \"no-such\"") && err.contains("quic-echo"), "{err}");
    let (code, _, err) = ftwsim(&["run", "--seed=12x"]);
    assert_eq!(code, 2);
    assert!(err.contains("bad seed \"12x\""), "{err}");
    let (code, _, err) = ftwsim(&["run", "--switch", "no-such-bug"]);
    assert_eq!(code, 2);
    assert!(err.contains("unknown switch \"no-such-bug\""), "{err}");
}

#[test]
fn list_names_every_kind() {
    let (code, out, _) = ftwsim(&["list"]);
    assert_eq!(code, 0);
    for kind in ["scenario quic-echo", "property echo-in-order", "switch replay-window-64", "switch no-routing"] {
        assert!(out.lines().any(|l| l.starts_with(kind)), "list lacks {kind}:\n{out}");
    }
}

#[test]
fn a_corrupt_entry_is_named_and_the_others_still_run() {
    let dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("corpus-corrupt");
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(dir.join("a-good.toml"), "scenario = \"quic-echo\"\nseed = 1\nexpect = \"pass\"\n").unwrap();
    std::fs::write(dir.join("b-bad-seed.toml"), "scenario = \"quic-echo\"\nseed = -4\nexpect = \"pass\"\n").unwrap();
    std::fs::write(dir.join("c-bad-scenario.toml"), "scenario = \"warp-drive\"\nseed = 1\nexpect = \"pass\"\n").unwrap();
    std::fs::write(dir.join("d-bad-switch.toml"), "scenario = \"quic-echo\"\nseed = 1\nswitches = [\"gremlins\"]\nexpect = \"pass\"\n").unwrap();
    std::fs::write(dir.join("e-not-toml.toml"), "this is [not toml\n").unwrap();
    let (code, out, err) = ftwsim(&["replay", dir.to_str().unwrap()]);
    assert_eq!(code, 1, "{out}{err}");
    assert!(out.contains("ok   ") && out.contains("a-good.toml"), "the good entry still ran:\n{out}");
    assert!(err.contains("b-bad-seed.toml: field `seed`: bad seed -4"), "{err}");
    assert!(err.contains("c-bad-scenario.toml: field `scenario`: unknown scenario \"warp-drive\""), "{err}");
    assert!(err.contains("d-bad-switch.toml: field `switches`: unknown switch \"gremlins\""), "{err}");
    assert!(err.contains("e-not-toml.toml: TOML parse error"), "{err}");
    assert!(out.contains("1 passed, 4 failed"), "{out}");
}

#[test]
fn every_corpus_entry_meets_its_expectation() {
    let corpus = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../corpus");
    let files = ftw_properties::corpus::collect(&[corpus]).expect("corpus readable");
    assert!(!files.is_empty(), "the corpus has entries");
    for r in ftw_properties::corpus::replay(&files) {
        match &r.outcome {
            Ok((e, v, _)) => assert!(e.expect.met_by(v), "{}: expected {}, got {v:?}", r.path.display(), e.expect.render()),
            Err(msg) => panic!("{msg}"),
        }
    }
}
