//! The `ftwsim` command as a user runs it: exact replay across processes, the
//! corpus (including a corrupt entry), and clear errors for bad input.

use std::path::PathBuf;
use std::process::Command;

fn ftwsim(args: &[&str]) -> (i32, String, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_ftwsim")).args(args).current_dir(env!("CARGO_MANIFEST_DIR")).output().expect("ftwsim runs");
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

/// Issue 19 section 1: replay tells same bytes, other bytes (naming the first
/// divergent event against the trace saved beside the entry) and another
/// verdict apart; only the last fails, unless `--strict`; `--record` mends.
#[test]
fn replay_reports_same_bytes_other_bytes_and_other_verdict() {
    let dir = std::env::temp_dir().join(format!("ftw-recorded-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("dir");
    let (code, out, err) = ftwsim(&["run", "--scenario", "quic-echo", "--seed", "3", "--json", "--trace", dir.join("a.trace.jsonl").to_str().expect("path")]);
    assert_eq!(code, 0, "{out}{err}");
    let v: serde_json::Value = serde_json::from_str(out.trim()).expect("json");
    let hash = v["hash"].as_str().expect("hash");
    let entry = |name: &str, expect: &str, hash: &str| {
        let body = format!(
            "scenario = \"quic-echo\"\nseed = 3\nexpect = \"{expect}\"\n\n[recorded]\nhash = \"{hash}\"\nversion = \"0.0.1\"\nlock = \"0000000000000000\"\n"
        );
        std::fs::write(dir.join(name), body).expect("writes");
    };
    entry("a.toml", "pass", hash);
    let (code, out, _) = ftwsim(&["replay", "--strict", dir.join("a.toml").to_str().expect("path")]);
    assert_eq!(code, 0, "{out}");
    assert!(out.contains("(same bytes)"), "{out}");
    // Other bytes: a recorded hash this run does not give; the saved trace is the run's own.
    let other = "0".repeat(64);
    entry("a.toml", "pass", &other);
    let (code, out, _) = ftwsim(&["replay", dir.join("a.toml").to_str().expect("path")]);
    assert_eq!(code, 0, "other bytes alone do not fail: {out}");
    assert!(out.contains("OTHER BYTES than recorded 0000000000000000 (version 0.0.1"), "{out}");
    assert!(out.contains("every saved event matches"), "the saved trace is this run's own: {out}");
    std::fs::write(dir.join("a.trace.jsonl"), "{\"t_ns\":0,\"host\":\"phone\",\"kind\":\"made.up\",\"detail\":\"x\"}\n").expect("writes");
    let (_, out, _) = ftwsim(&["replay", dir.join("a.toml").to_str().expect("path")]);
    assert!(out.contains("first divergence at event #0") && out.contains("made.up"), "{out}");
    let (code, out, _) = ftwsim(&["replay", "--strict", dir.join("a.toml").to_str().expect("path")]);
    assert_eq!(code, 1, "--strict fails on other bytes: {out}");
    // --record mends it; another verdict fails whatever the bytes.
    let (code, out, _) = ftwsim(&["replay", "--record", dir.join("a.toml").to_str().expect("path")]);
    assert_eq!(code, 0, "{out}");
    let text = std::fs::read_to_string(dir.join("a.toml")).expect("reads");
    assert!(text.contains(hash) && text.starts_with("scenario = \"quic-echo\"") && text.matches("[recorded]").count() == 1, "{text}");
    entry("a.toml", "fails no-such-law", hash);
    let (code, out, _) = ftwsim(&["replay", dir.join("a.toml").to_str().expect("path")]);
    assert_eq!(code, 1, "{out}");
    assert!(out.contains("FAIL") && out.contains("expected fails no-such-law, got pass"), "{out}");
    std::fs::remove_dir_all(&dir).ok();
}

/// Issue 8: for every bug switch, corpus/ keeps a shrunk case of its law failing
/// with the switch on (the replay above checks it still fails that way).
#[test]
fn every_switch_keeps_a_failing_case_in_the_corpus() {
    let corpus = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../corpus");
    let files = ftw_properties::corpus::collect(&[corpus]).expect("corpus readable");
    let entries: Vec<_> = files.iter().map(|f| ftw_properties::corpus::load(f).expect("entry loads")).collect();
    for (switch, scenario, property) in ftw_properties::laws::switch_laws() {
        let kept = entries.iter().any(|e| {
            e.spec.switches.names().contains(&switch)
                && e.spec.scenario.name() == scenario
                && e.expect == ftw_properties::corpus::Expect::Fails(property.to_string())
        });
        assert!(kept, "no corpus entry for switch {switch}: scenario {scenario}, expect fails {property}");
    }
}

/// A minimal well-formedness check: every tag opened is closed, in order.
fn balanced_xml(text: &str) -> Result<(), String> {
    let mut stack: Vec<String> = Vec::new();
    let mut rest = text;
    while let Some(i) = rest.find('<') {
        rest = &rest[i + 1..];
        let end = rest.find('>').ok_or("unclosed <")?;
        let tag = &rest[..end];
        rest = &rest[end + 1..];
        if tag.starts_with('!') || tag.starts_with('?') {
            continue;
        }
        if let Some(name) = tag.strip_prefix('/') {
            let open = stack.pop().ok_or(format!("</{name}> closes nothing"))?;
            if open != name.trim() {
                return Err(format!("<{open}> closed by </{name}>"));
            }
        } else if !tag.ends_with('/') {
            let name = tag.split_whitespace().next().unwrap_or("").to_string();
            if !matches!(name.as_str(), "meta" | "br") {
                stack.push(name);
            }
        }
    }
    if stack.is_empty() {
        Ok(())
    } else {
        Err(format!("left open: {stack:?}"))
    }
}

#[test]
fn timeline_draws_every_host_as_svg_and_html() {
    let dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("timeline");
    std::fs::create_dir_all(&dir).unwrap();
    let svg = dir.join("run.svg");
    let html = dir.join("run.html");
    let trace = dir.join("run.jsonl");
    let (code, out, err) = ftwsim(&[
        "run",
        "--scenario",
        "quic-echo",
        "--seed",
        "7",
        "--plan",
        "../corpus/quic-echo-wifi-to-cellular.toml",
        "--timeline",
        svg.to_str().unwrap(),
        "--trace",
        trace.to_str().unwrap(),
    ]);
    assert_eq!(code, 0, "{out}{err}");
    let text = std::fs::read_to_string(&svg).expect("svg written");
    assert!(text.starts_with("<svg xmlns=\"http://www.w3.org/2000/svg\""), "{}", &text[..80.min(text.len())]);
    balanced_xml(&text).expect("well-formed SVG");
    // Every host of the trace is a lane, messages are arrows, the move is marked.
    for host in ["phone", "cloud", "nat-wifi", "nat-cell"] {
        assert!(text.contains(&format!("font-weight=\"bold\">{host}</text>")), "no lane for {host}");
    }
    assert!(text.matches("class=\"msg\"").count() > 20, "datagrams drawn as arrows");
    assert!(text.contains("net.move now behind nat-cell"), "the network move is labelled");
    // The saved trace draws the same lanes as HTML.
    let (code, out, err) = ftwsim(&["timeline", trace.to_str().unwrap(), "--out", html.to_str().unwrap()]);
    assert_eq!(code, 0, "{out}{err}");
    let page = std::fs::read_to_string(&html).expect("html written");
    assert!(page.starts_with("<!DOCTYPE html>") && page.contains("<svg"), "a page with inline SVG");
    balanced_xml(page.trim_start_matches("<!DOCTYPE html>")).expect("well-formed page");
    for host in ["phone", "cloud", "nat-wifi", "nat-cell"] {
        assert!(page.contains(&format!("font-weight=\"bold\">{host}</text>")), "no lane for {host}");
    }
}

#[test]
fn timeline_compresses_a_simulated_day() {
    let dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("timeline-day");
    std::fs::create_dir_all(&dir).unwrap();
    let svg = dir.join("day.svg");
    let (code, out, err) = ftwsim(&["run", "--scenario", "idle-link", "--seed", "1", "--timeline", svg.to_str().unwrap()]);
    assert_eq!(code, 0, "{out}{err}");
    let text = std::fs::read_to_string(&svg).unwrap();
    let height: f64 = text.split("height=\"").nth(1).unwrap().split('"').next().unwrap().parse().unwrap();
    // 86 400 s at 0.6 px/ms would be 52 million pixels.
    assert!(height < 2_000_000.0, "a day is {height} px tall");
    assert!(text.contains(" idle ⋯"), "compressed gaps are labelled");
    for host in ["phone", "box", "cloud"] {
        assert!(text.contains(&format!("font-weight=\"bold\">{host}</text>")), "no lane for {host}");
    }
}

#[test]
fn fuzz_reports_coverage_and_json_and_fails_on_a_bug_switch() {
    let dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("fuzz-clean");
    let _ = std::fs::remove_dir_all(&dir);
    let (code, out, err) = ftwsim(&["fuzz", "--cases", "6", "--scenario", "quic-echo", "--json", "--determinism-every", "2", "--out", dir.to_str().unwrap()]);
    assert_eq!(code, 0, "{out}{err}");
    let v: serde_json::Value = serde_json::from_str(out.trim()).expect("one JSON object");
    assert_eq!(v["cases"], 6);
    assert_eq!(v["determinism_checks"], 3);
    assert_eq!(v["failures"].as_array().unwrap().len(), 0);
    assert!(v["coverage"]["kinds"]["udp.send"]["cases"] == 6, "{}", v["coverage"]);
    assert!(v["wall_s"].as_f64().is_some() && v["warnings"].is_array());
    assert!(!err.contains("fuzz [") && !err.contains("cases, 0 failures"), "no progress bar when stderr is not a terminal: {err}");
    // No entries without failures: only the guided search's kept plans, in their own folder.
    let names: Vec<String> = std::fs::read_dir(&dir).map(|d| d.flatten().map(|e| e.file_name().to_string_lossy().into_owned()).collect()).unwrap_or_default();
    assert_eq!(names, ["kept"], "no entries without failures");
    assert!(v["kept"].as_u64().unwrap() > 0 && v["keys"].as_u64().unwrap() > 0 && v["guided"] == true, "{}", v);
    let kept = ftw_properties::corpus::collect(&[dir.join("kept").join("quic-echo")]).unwrap();
    assert_eq!(kept.len() as u64, v["kept"].as_u64().unwrap(), "one file a kept plan");

    // A bug switch on: the failure is shrunk, written, and the exit status is 1.
    let dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("fuzz-switch");
    let _ = std::fs::remove_dir_all(&dir);
    let (code, out, err) = ftwsim(&["fuzz", "--cases", "2", "--scenario", "fleet-migrate", "--switch", "no-routing", "--out", dir.to_str().unwrap()]);
    assert_eq!(code, 1, "{out}{err}");
    assert!(out.contains("FAIL fleet-migrate same-connection"), "{out}");
    assert!(out.contains("shrunk plan") && out.contains("cargo sim replay "), "{out}");
    let entries = ftw_properties::corpus::collect(std::slice::from_ref(&dir)).unwrap();
    assert_eq!(entries.len(), 1, "one entry for one property");
    let (code, rout, rerr) = ftwsim(&["replay", entries[0].to_str().unwrap()]);
    assert_eq!(code, 0, "the written entry replays to its expectation: {rout}{rerr}");
}

#[test]
fn fuzz_shards_split_the_seeds_and_bad_input_is_status_2() {
    let (code, out, err) =
        ftwsim(&["fuzz", "--cases", "2", "--scenario", "quic-echo", "--shard", "1/3", "--seed-from", "10", "--json", "--out", "/nonexistent-never-written"]);
    assert_eq!(code, 0, "{out}{err}");
    let v: serde_json::Value = serde_json::from_str(out.trim()).unwrap();
    assert_eq!(v["seeds"], "11..=14 step 3");
    for args in [vec!["fuzz", "--shard", "3/3"], vec!["fuzz", "--property", "no-such-law"], vec!["fuzz", "--scenario", "warp"], vec!["fuzz", "--quic", "apple"]]
    {
        let (code, _, err) = ftwsim(&args);
        assert_eq!(code, 2, "{args:?}: {err}");
        assert!(err.starts_with("ftwsim: "), "{err}");
    }
}

/// `fuzz --quic patched` runs every case on quinn's own migration (the rig's
/// stand-in is the default), and a failure's entry keeps `quic = "patched"` in
/// its plan: a planted bug found there replays as found.
#[test]
fn fuzz_on_the_patched_stand_in_writes_entries_that_replay_on_it() {
    let dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("fuzz-patched");
    let _ = std::fs::remove_dir_all(&dir);
    let (code, out, err) = ftwsim(&[
        "fuzz",
        "--quic",
        "patched",
        "--cases",
        "4",
        "--scenario",
        "fleet-migrate",
        "--switch",
        "no-routing",
        "--json",
        "--out",
        dir.to_str().unwrap(),
    ]);
    assert_eq!(code, 1, "the planted bug fails a case: {out}{err}");
    let entry = std::fs::read_dir(&dir).unwrap().map(|e| e.unwrap().path()).find(|p| p.extension().is_some_and(|x| x == "toml")).expect("an entry");
    let text = std::fs::read_to_string(&entry).unwrap();
    assert!(text.contains("quic = \"patched\""), "the entry keeps the patched stand-in: {text}");
    let (rcode, rout, rerr) = ftwsim(&["replay", entry.to_str().unwrap()]);
    assert_eq!(rcode, 0, "the entry replays to its expectation: {rout}{rerr}");
}

/// `replay --quic rig` replays an entry with the rig's stand-in instead of its
/// own: a quinn bug switch that has nothing to act on under the rig (its server
/// never sends to an unvalidated path) ends otherwise; a bad profile and
/// `--record` with it are clear errors.
#[test]
fn replay_under_another_stand_in_keeps_the_expectation_and_skips_the_bytes() {
    let entry = concat!(env!("CARGO_MANIFEST_DIR"), "/../corpus/session-move-mtud-on-unvalidated-path.toml");
    let (code, out, err) = ftwsim(&["replay", entry]);
    assert_eq!(code, 0, "the entry meets its expectation with its own stand-in: {out}{err}");
    let (code, out, err) = ftwsim(&["replay", "--quic", "rig", entry]);
    assert_eq!(code, 1, "under the rig it fails: {out}{err}");
    assert!(out.contains("expected fails move-recovers-within-pto, got pass") && out.contains("0 with other bytes"), "{out}");
    let (code, _, err) = ftwsim(&["replay", "--quic", "quicgo", entry]);
    assert!(code == 2 && err.contains("--quic: unknown QUIC profile \"quicgo\""), "{err}");
    let (code, _, err) = ftwsim(&["replay", "--quic", "rig", "--record", entry]);
    assert!(code == 2 && err.contains("--quic with --record"), "{err}");
}

/// Issue 14 section 6: a model's own assertion firing inside a case (the
/// planted `pin-gauge-drift` bug makes the fleet's `check()` fail) is a
/// finding: `run` fails the law `no-panic` with the message and the location
/// and prints the replay command; `fuzz` goes on, shrinks it, writes its entry
/// and its JSON summary; the entry replays to its expectation.
#[test]
fn a_panic_in_a_model_is_a_saved_shrunk_failure() {
    let (code, out, err) = ftwsim(&["run", "--scenario", "fleet-migrate", "--seed", "1", "--switch", "pin-gauge-drift"]);
    assert_eq!(code, 1, "{out}{err}");
    assert!(out.contains("verdict: FAIL no-panic: panicked at models/fleet/src/fleet.rs:"), "{out}");
    assert!(out.contains("pin gauges agree with the kernel"), "{out}");
    assert!(err.contains("replay with: cargo sim run --scenario fleet-migrate --seed 1 --switch pin-gauge-drift"), "{err}");
    assert!(!err.contains("RUST_BACKTRACE"), "no panic report on stderr: {err}");

    let dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("fuzz-panic");
    let _ = std::fs::remove_dir_all(&dir);
    let args = [
        "fuzz",
        "--cases",
        "3",
        "--scenario",
        "fleet-migrate",
        "--scenario",
        "quic-echo",
        "--switch",
        "pin-gauge-drift",
        "--json",
        "--out",
        dir.to_str().unwrap(),
    ];
    let (code, out, err) = ftwsim(&args);
    assert_eq!(code, 1, "{out}{err}");
    let v: serde_json::Value = serde_json::from_str(out.trim()).expect("the JSON summary, after the panic");
    assert_eq!(v["cases"], 3, "the fuzzer went on after the panic: {v}");
    let f = &v["failures"][0];
    assert_eq!(f["property"], "no-panic", "{v}");
    assert!(f["detail"].as_str().unwrap().contains("fleet.rs"), "{v}");
    assert!(f["replay"].as_str().unwrap().contains("--switch pin-gauge-drift"), "{v}");
    let entries = ftw_properties::corpus::collect(std::slice::from_ref(&dir)).unwrap();
    assert_eq!(entries.len(), 1, "{entries:?}");
    let (code, rout, rerr) = ftwsim(&["replay", entries[0].to_str().unwrap()]);
    assert_eq!(code, 0, "the written entry replays to its expectation: {rout}{rerr}");
    assert!(rout.contains("expected fails no-panic, got fails no-panic"), "{rout}");
}

/// Issue 17 section 4: the main job runs the whole system on a drawn fault plan
/// (the fuzzer's case of the seed), ends with its verdict, its laws, and the
/// commands to replay and to picture it; the same command gives the same bytes.
#[test]
fn the_main_job_runs_the_system_on_a_drawn_plan() {
    let (code, out, err) = ftwsim(&["run", "--drawn"]);
    assert_eq!(code, 0, "{out}{err}");
    assert!(out.starts_with("verdict: pass"), "{out}");
    for part in [
        "fleet-agrees-with-spec",
        "moves-keep-the-session",
        "replay: cargo sim run --scenario session --seed 1 --drawn",
        "picture: cargo sim run --scenario session --seed 1 --drawn --timeline run.html",
        "plan: ",
    ] {
        assert!(out.contains(part), "no {part:?}: {out}");
    }
    let drawn = json_hash(&["run", "--drawn", "--json"]);
    assert_eq!(drawn, json_hash(&["run", "--drawn", "--json"]));
    assert_ne!(drawn, json_hash(&["run", "--json"]), "the drawn plan is not the calm one");
}

/// Issue 19 section 3: every number on the command line has a range, and a value
/// outside is refused (status 2) naming the flag, the value and the range.
#[test]
fn command_line_numbers_out_of_range_are_refused() {
    let cases: &[(&[&str], &str, &str)] = &[
        (&["fuzz", "--time", "0"], "--time", "1..=604800"),
        (&["fuzz", "--time", "604801"], "--time", "1..=604800"),
        (&["fuzz", "--cases", "0"], "--cases", "1..=1000000000"),
        (&["fuzz", "--jobs", "0"], "--jobs", "1..=256"),
        (&["fuzz", "--jobs", "257"], "--jobs", "1..=256"),
        (&["fuzz", "--determinism-every", "0"], "--determinism-every", "1..=1000000000"),
        (&["table", "--samples", "0"], "--samples", "1..=10000"),
        (&["table", "--samples", "10001"], "--samples", "1..=10000"),
        (&["table", "--seeds", "0"], "--seeds", "1..=1000"),
        (&["table", "--seeds", "1001"], "--seeds", "1..=1000"),
        (&["bench", "--catch", "--blocks", "51"], "--blocks", "1..=50"),
        (&["bench", "--catch", "--limit", "0"], "--limit", "1..=3600"),
        (&["replay", "--jobs", "0"], "--jobs", "1..=256"),
        (&["replay", "--jobs", "257"], "--jobs", "1..=256"),
    ];
    for (args, flag, range) in cases {
        let (code, out, err) = ftwsim(args);
        assert_eq!(code, 2, "{args:?}: {out}{err}");
        let value = args.last().expect("a value");
        assert!(err.contains(flag) && err.contains(&format!("'{value}'")) && err.contains(range), "{args:?}: {err}");
    }
    // Just inside: the most jobs on one case.
    let (code, out, err) = ftwsim(&[
        "fuzz",
        "--cases",
        "1",
        "--jobs",
        "256",
        "--scenario",
        "race-clock",
        "--out",
        std::env::temp_dir().join("ftw-jobs-256").to_str().expect("path"),
    ]);
    assert_eq!(code, 0, "{out}{err}");
    // Just inside for replay: one entry on 256 threads and on one.
    let entry = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../corpus/quic-echo-lossy-rebind-unconfirmed.toml");
    for jobs in ["256", "1"] {
        let (code, out, err) = ftwsim(&["replay", "--jobs", jobs, entry.to_str().expect("path")]);
        assert_eq!(code, 0, "--jobs {jobs}: {out}{err}");
    }
}

/// Issue 34 section 3: `table --seeds N` prints every row of the one-seed table
/// once, each p50 and p95 as "median [lowest–highest]" over the N seeds, with
/// the lowest <= the median <= the highest; JSON gives each seed's value too.
#[test]
fn table_over_seeds_prints_medians_and_ranges() {
    let (code, out, err) = ftwsim(&["table", "--seeds", "2", "--samples", "2"]);
    assert_eq!(code, 0, "{out}{err}");
    assert!(out.starts_with("Made by `cargo sim table --samples 2 --seeds 2` (seeds 1 to 2"), "{out}");
    let cell = |c: &str| -> Option<(f64, f64, f64)> {
        let (median, rest) = c.trim().split_once(" [")?;
        let (lo, hi) = rest.strip_suffix(']')?.split_once('–')?;
        Some((median.parse().ok()?, lo.parse().ok()?, hi.parse().ok()?))
    };
    let rows: Vec<Vec<&str>> =
        out.lines().filter(|l| l.starts_with("| system") || l.starts_with("| phone") || l.starts_with("| idle")).map(|l| l.split('|').collect()).collect();
    let (_, one, _) = ftwsim(&["table", "--samples", "2", "--json"]);
    let one: serde_json::Value = serde_json::from_str(one.trim()).expect("JSON");
    assert_eq!(rows.len(), one["rows"].as_array().expect("rows").len(), "one line per row of the table");
    for r in &rows {
        assert_eq!(r.len(), 8, "{r:?}");
        let (median, lo, hi) = cell(r[5]).unwrap_or_else(|| panic!("p50 cell {:?}", r[5]));
        assert!(lo <= median && median <= hi, "{r:?}");
        assert!(r[6].trim() == "-" || cell(r[6]).is_some(), "p95 cell {:?}", r[6]);
    }
    let (code, out, err) = ftwsim(&["table", "--seeds", "2", "--samples", "2", "--json"]);
    assert_eq!(code, 0, "{out}{err}");
    let v: serde_json::Value = serde_json::from_str(out.trim()).expect("JSON");
    assert_eq!(v["seeds"], serde_json::json!([1, 2]));
    let row = &v["rows"][0];
    assert_eq!(row["p50_each"].as_array().expect("each seed").len(), 2, "{row}");
    assert!(row["p50_ms"]["min"].as_f64() <= row["p50_ms"]["max"].as_f64(), "{row}");
    let (code, _, err) = ftwsim(&["table", "--seeds", "2", "--out", "/tmp/x"]);
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("--out"), "{err}");
}

/// A case that runs past the hang limit (here 300 ms of wall clock, against the
/// 3 s a `fleet-pin-flood` case takes) stops the session with status 3, its plan
/// written under `--out` and the command that runs it again printed
/// (properties/src/fuzz/watchdog.rs); a session whose cases finish is untouched.
#[test]
fn a_hung_case_is_written_out_with_its_command() {
    let dir = std::env::temp_dir().join(format!("ftwsim-hung-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    let out = Command::new(env!("CARGO_BIN_EXE_ftwsim"))
        .args(["fuzz", "--cases", "1", "--scenario", "fleet-pin-flood", "--jobs", "1", "--unguided", "--out"])
        .arg(&dir)
        .env("FTWSIM_HANG_AFTER_MS", "300")
        .output()
        .expect("ftwsim runs");
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(ftw_properties::fuzz::HUNG_STATUS), "{err}");
    let plan = dir.join("fleet-pin-flood-hung-1.toml");
    assert!(err.contains("fleet-pin-flood seed 1") && err.contains(&format!("cargo sim replay {}", plan.display())), "{err}");
    let entry = ftw_properties::corpus::load(&plan).expect("the hung case's plan loads as a corpus entry");
    assert_eq!((entry.spec.scenario.name(), entry.spec.seed.0), ("fleet-pin-flood", 1));
    std::fs::remove_dir_all(&dir).expect("clean up");
}
