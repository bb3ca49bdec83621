//! A run in the formats of the tools network engineers use (docs/tools.md):
//! the pcapng read back by tshark with its embedded keys, the key log file,
//! the Perfetto trace, qlog; and capture leaves the run's trace unchanged.
//!
//! The tshark tests skip, saying so, only where tshark is not installed
//! (`.ci/run` installs it from Debian).

mod common;

use std::path::{Path, PathBuf};
use std::process::Command;

fn ftwsim(args: &[&str]) -> (i32, String, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_ftwsim")).args(args).current_dir(env!("CARGO_MANIFEST_DIR")).output().expect("ftwsim runs");
    (out.status.code().unwrap_or(-1), String::from_utf8_lossy(&out.stdout).into(), String::from_utf8_lossy(&out.stderr).into())
}

fn scratch(name: &str) -> common::Scratch {
    common::scratch("tools", name)
}

fn s(p: &Path) -> &str {
    p.to_str().expect("utf-8 path")
}

/// The trace hash of a run given as `ftwsim run` arguments.
fn hash_of(args: &[&str]) -> String {
    let mut all = vec!["run", "--json"];
    all.extend_from_slice(args);
    let (code, out, err) = ftwsim(&all);
    assert_eq!(code, 0, "{out}{err}");
    let v: serde_json::Value = serde_json::from_str(out.trim()).expect("one JSON object");
    v["hash"].as_str().expect("hash").to_string()
}

#[test]
fn capturing_changes_no_trace_hash() {
    let dir = scratch("hash");
    let lossy = concat!(env!("CARGO_MANIFEST_DIR"), "/../corpus/quic-echo-loss-rebind.toml");
    let runs: [&[&str]; 3] =
        [&["--scenario", "session", "--seed", "1"], &["--scenario", "ws-echo", "--seed", "2"], &["--scenario", "quic-echo", "--seed", "3", "--plan", lossy]];
    for args in runs {
        let plain = hash_of(args);
        let (pcap, keys, perfetto, qlog) = (dir.join("r.pcapng"), dir.join("k.txt"), dir.join("p.json"), dir.join("qlog"));
        let mut with = args.to_vec();
        with.extend_from_slice(&["--pcap", s(&pcap), "--keylog", s(&keys), "--perfetto", s(&perfetto), "--qlog", s(&qlog)]);
        assert_eq!(hash_of(&with), plain, "capture changed the run {args:?}");
        assert!(std::fs::metadata(&pcap).expect("pcap written").len() > 1000);
        assert!(std::fs::read_to_string(&keys).expect("keylog written").contains("CLIENT_TRAFFIC_SECRET_0 "));
    }
}

#[test]
fn bad_capture_paths_are_clear_errors() {
    let (code, _, err) = ftwsim(&["run", "--scenario", "quic-echo", "--pcap", "/no/such/dir/x.pcapng"]);
    assert_eq!(code, 2);
    assert!(err.contains("--pcap /no/such/dir/x.pcapng: "), "{err}");
    let (code, _, err) = ftwsim(&["run", "--scenario", "quic-echo", "--keylog", "/no/such/dir/k.txt"]);
    assert_eq!(code, 2);
    assert!(err.contains("--keylog /no/such/dir/k.txt: "), "{err}");
    let dir = scratch("badlink");
    let (code, _, err) = ftwsim(&["run", "--scenario", "quic-echo", "--pcap", s(&dir.join("x.pcapng")), "--pcap-link", "clod"]);
    assert_eq!(code, 2);
    assert!(err.contains("--pcap-link: no link \"clod\"") && err.contains("cloud"), "{err}");
}

/// tshark, if installed; else say so (the test then checks nothing more).
fn tshark() -> Option<&'static str> {
    match Command::new("tshark").arg("--version").output() {
        Ok(o) if o.status.success() => Some("tshark"),
        _ => {
            eprintln!("SKIPPED: tshark is not installed (apt-get install -y tshark); the pcapng was not read back");
            None
        }
    }
}

/// tshark's output lines for `file` with extra arguments.
fn tshark_lines(file: &Path, args: &[&str]) -> Vec<String> {
    let out = Command::new("tshark").arg("-r").arg(file).args(args).output().expect("tshark runs");
    assert!(out.status.success(), "tshark {args:?}: {}", String::from_utf8_lossy(&out.stderr));
    String::from_utf8_lossy(&out.stdout).lines().map(str::to_string).collect()
}

/// Every file `ftwsim run --pcap` said it wrote, with its packet count, FILE first.
fn files_written(stderr: &str) -> Vec<(PathBuf, usize)> {
    let lines = stderr.lines().filter(|l| l.contains(" packets on "));
    let files: Vec<(PathBuf, usize)> = lines
        .map(|l| {
            let (head, _) = l.split_once(" packets on ").expect("a summary line");
            let (path, n) = head.trim_start_matches("ftwsim: ").rsplit_once(": ").expect("PATH: N");
            (PathBuf::from(path), n.parse().expect("a number"))
        })
        .collect();
    assert!(!files.is_empty(), "no pcap summary in {stderr}");
    files
}

/// `ftwsim run ARGS --pcap FILE`: every file written (FILE first) and stdout.
fn run_captures(args: &[&str], pcap: &Path) -> (Vec<(PathBuf, usize)>, String) {
    let mut all = vec!["run"];
    all.extend_from_slice(args);
    all.extend_from_slice(&["--pcap", s(pcap)]);
    let (code, out, err) = ftwsim(&all);
    assert!(code == 0 || code == 1, "{out}{err}");
    (files_written(&err), out)
}

/// Each file of the obvious `--pcap FILE` alone, read back: every packet, and
/// decrypted STREAM frames in each one that carries QUIC. Each file's name.
fn every_file_decrypts(args: &[&str], pcap: &Path) -> Vec<String> {
    let (files, _) = run_captures(args, pcap);
    let mut names = Vec::new();
    for (file, written) in &files {
        assert_eq!(tshark_lines(file, &[]).len(), *written, "tshark reads every packet of {}", file.display());
        let udp = tshark_lines(file, &["-Y", "udp.port == 443"]).len();
        if udp > 0 {
            let streams = tshark_lines(file, &["-Y", "quic.stream.stream_id"]).len();
            assert!(streams > 0, "{} carries {udp} QUIC datagrams and tshark decrypts no STREAM frame ({args:?})", file.display());
        }
        names.push(file.file_name().expect("a name").to_string_lossy().into_owned());
    }
    names
}

#[test]
fn tshark_counts_every_packet_and_every_loss() {
    let Some(_) = tshark() else { return };
    let dir = scratch("count");
    let (pcap, trace) = (dir.join("l.pcapng"), dir.join("l.jsonl"));
    let lossy = concat!(env!("CARGO_MANIFEST_DIR"), "/../corpus/quic-echo-loss-rebind.toml");
    let (files, _) = run_captures(&["--scenario", "quic-echo", "--seed", "3", "--plan", lossy, "--trace", s(&trace)], &pcap);
    for (file, n) in &files {
        assert_eq!(tshark_lines(file, &[]).len(), *n, "tshark reads every packet written to {}", file.display());
    }
    let written: usize = files.iter().map(|f| f.1).sum();
    let events = std::fs::read_to_string(&trace).expect("trace");
    let drops = events.lines().filter(|l| l.contains("\"kind\":\"udp.drop\"") || l.contains("\"kind\":\"udp.refused\"")).count();
    assert!(drops > 0, "the lossy plan loses something");
    // Each loss is written once, on the link where it happened, in that link's file.
    let lost: usize = files.iter().map(|(f, _)| tshark_lines(f, &["-Y", "frame.comment contains \"LOST\""]).len()).sum();
    assert_eq!(lost, drops, "one packet marked LOST for each drop in the trace");
    let sends = events.lines().filter(|l| l.contains("\"kind\":\"udp.send\"")).count();
    assert!(written > sends, "each datagram is seen on more than one link ({written} packets, {sends} sends)");
}

/// Hex of the control stream's first bytes: the target's varint length, the target.
fn framed_hex(target: &str) -> String {
    assert!(target.len() < 64, "a one-byte varint");
    std::iter::once(target.len() as u8).chain(target.bytes()).map(|b| format!("{b:02x}")).collect()
}

#[test]
fn tshark_decrypts_quic_with_the_embedded_keys() {
    let Some(_) = tshark() else { return };
    let dir = scratch("quic");
    let pcap = dir.join("run.pcapng");
    // The obvious command: every file it writes decrypts as written (issue 38).
    let names = every_file_decrypts(&["--scenario", "session", "--seed", "1"], &pcap);
    assert_eq!(names, ["run.pcapng", "run.box.pcapng", "run.phone.pcapng", "run.nat.pcapng"], "FILE is the cloud's link, the others beside it");
    let initials = tshark_lines(&pcap, &["-Y", "quic.long.packet_type == 0 && tls.handshake.type == 1"]);
    assert!(!initials.is_empty(), "the ClientHello in a QUIC Initial");
    // The Finished messages travel in Handshake packets: read only with the keys.
    let finished = tshark_lines(&pcap, &["-Y", "quic.long.packet_type == 2 && tls.handshake.type == 20"]);
    assert!(finished.len() >= 2, "both connections' handshakes decrypted: {finished:?}");
    let app = framed_hex("/app/v1");
    for file in [pcap.clone(), dir.join("run.phone.pcapng"), dir.join("run.nat.pcapng")] {
        let stream0 = tshark_lines(&file, &["-Y", "quic.stream.stream_id == 0", "-T", "fields", "-e", "quic.stream_data"]);
        assert!(
            stream0.iter().any(|l| l.contains(&app)),
            "{}: a decrypted STREAM frame carries the phone's target: {:?}",
            file.display(),
            &stream0[..stream0.len().min(4)]
        );
    }
    // The same without the embedded secrets, from the --keylog file.
    let keys = dir.join("keys.txt");
    let (code, out, err) = ftwsim(&["run", "--scenario", "session", "--seed", "1", "--pcap", s(&pcap), "--keylog", s(&keys)]);
    assert_eq!(code, 0, "{out}{err}");
    let bare = dir.join("bare.pcapng");
    let strip = Command::new("editcap").args(["--discard-all-secrets", s(&pcap), s(&bare)]).output().expect("editcap comes with tshark");
    assert!(strip.status.success(), "{}", String::from_utf8_lossy(&strip.stderr));
    assert!(tshark_lines(&bare, &["-Y", "quic.stream_data"]).is_empty(), "without secrets nothing decrypts");
    let keylog = format!("tls.keylog_file:{}", s(&keys));
    let with_file = tshark_lines(&bare, &["-o", &keylog, "-Y", "quic.stream.stream_id == 0", "-T", "fields", "-e", "quic.stream_data"]);
    assert!(with_file.iter().any(|l| l.contains(&app)), "the key log file decrypts the same");
}

#[test]
fn every_file_decrypts_through_moves_between_nats() {
    let Some(_) = tshark() else { return };
    let dir = scratch("moves");
    let pcap = dir.join("m.pcapng");
    // The phone moves Wi-Fi to cellular: its connection crosses two NATs' outsides,
    // which share one file (m.nat.pcapng) so the moved packets sit with their handshake.
    let names = every_file_decrypts(&["--scenario", "session-moves", "--seed", "2", "--drawn"], &pcap);
    assert_eq!(names, ["m.pcapng", "m.box.pcapng", "m.phone.pcapng", "m.nat.pcapng"]);
    let cell = tshark_lines(&dir.join("m.nat.pcapng"), &["-Y", "frame.interface_name == \"nat-cell\" && quic.stream.stream_id"]);
    assert!(!cell.is_empty(), "STREAM frames decrypted after the move to cellular");
    // --pcap-link still puts the links named together in FILE, one interface each.
    let (code, out, err) =
        ftwsim(&["run", "--scenario", "session-moves", "--seed", "2", "--drawn", "--pcap", s(&pcap), "--pcap-link", "phone", "--pcap-link", "cloud"]);
    assert!(code == 0 || code == 1, "{out}{err}");
    assert!(err.contains("links phone, cloud") && err.contains("stops Wireshark's QUIC decryption"), "{err}");
    let ifaces = tshark_lines(&pcap, &["-T", "fields", "-e", "frame.interface_name"]);
    assert!(ifaces.iter().any(|i| i == "phone") && ifaces.iter().any(|i| i == "cloud") && ifaces.iter().all(|i| i == "phone" || i == "cloud"));
}

#[test]
fn tshark_reads_the_websocket_upgrade_inside_tls() {
    let Some(_) = tshark() else { return };
    let dir = scratch("ws");
    let pcap = dir.join("ws.pcapng");
    let names = every_file_decrypts(&["--scenario", "ws-echo", "--seed", "1"], &pcap);
    assert_eq!(names, ["ws.pcapng", "ws.phone.pcapng", "ws.nat.pcapng"]);
    for name in names {
        let file = dir.join(name);
        let hello = tshark_lines(&file, &["-Y", "tcp && tls.handshake.type == 1"]);
        assert!(!hello.is_empty(), "{}: a TLS ClientHello over the simulated TCP", file.display());
        let upgrade =
            tshark_lines(&file, &["-Y", "http.request.method == \"GET\" && http.upgrade contains \"websocket\"", "-T", "fields", "-e", "http.request.uri"]);
        assert!(upgrade.iter().any(|u| u.starts_with("/v1/app")), "{}: the upgrade request, decrypted: {upgrade:?}", file.display());
        assert!(!tshark_lines(&file, &["-Y", "http.response.code == 101"]).is_empty(), "{}: 101 Switching Protocols", file.display());
        assert!(!tshark_lines(&file, &["-Y", "websocket"]).is_empty(), "{}: WebSocket frames after it", file.display());
    }
}

/// Check one Chrome trace event's required fields; its (pid, tid) and span if it is one.
fn check_event(e: &serde_json::Value) -> Option<((u64, u64), (f64, f64))> {
    let ph = e["ph"].as_str().expect("ph");
    for key in ["name", "pid", "tid", "ts"] {
        assert!(e.get(key).is_some(), "an event without {key}: {e}");
    }
    assert!(e["name"].is_string() && e["pid"].is_u64() && e["tid"].is_u64() && e["ts"].is_number(), "{e}");
    let track = (e["pid"].as_u64().unwrap(), e["tid"].as_u64().unwrap());
    match ph {
        "X" => {
            let (ts, dur) = (e["ts"].as_f64().unwrap(), e["dur"].as_f64().expect("an X event has dur"));
            assert!(dur >= 0.0, "{e}");
            Some((track, (ts, ts + dur)))
        }
        "i" => {
            assert!(matches!(e["s"].as_str(), Some("t" | "p" | "g")), "instant scope: {e}");
            None
        }
        "M" => {
            assert!(e["args"]["name"].is_string(), "{e}");
            None
        }
        other => panic!("unexpected phase {other}: {e}"),
    }
}

#[test]
fn perfetto_trace_is_chrome_trace_event_format_with_nested_spans() {
    let dir = scratch("perfetto");
    let path = dir.join("run.json");
    let moves = concat!(env!("CARGO_MANIFEST_DIR"), "/../corpus/session-moves-loss-patched-recovers.toml");
    let (code, out, err) = ftwsim(&["run", "--scenario", "session-moves", "--seed", "27", "--plan", moves, "--perfetto", s(&path)]);
    assert!(code == 0 || code == 1, "{out}{err}");
    let v: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(&path).expect("written")).expect("JSON");
    let events = v["traceEvents"].as_array().expect("a traceEvents array");
    let mut spans: std::collections::BTreeMap<(u64, u64), Vec<(f64, f64)>> = Default::default();
    for e in events {
        if let Some((track, span)) = check_event(e) {
            spans.entry(track).or_default().push(span);
        }
    }
    for (track, list) in &mut spans {
        list.sort_by(|a, b| a.0.total_cmp(&b.0).then(b.1.total_cmp(&a.1)));
        let mut stack: Vec<f64> = Vec::new();
        for &(from, to) in list.iter() {
            while stack.last().is_some_and(|&end| end <= from) {
                stack.pop();
            }
            assert!(stack.last().is_none_or(|&end| to <= end), "spans cross on track {track:?} at {from} us");
            stack.push(to);
        }
    }
    let named = |n: &str| events.iter().filter(|e| e["ph"] == "X" && e["name"] == n).count();
    for span in ["quic handshake", "race", "session"] {
        assert!(named(span) > 0, "no {span} span");
    }
    let hosts: Vec<&str> = events.iter().filter(|e| e["name"] == "process_name").filter_map(|e| e["args"]["name"].as_str()).collect();
    for h in ["phone", "box", "cloud"] {
        assert!(hosts.contains(&h), "no process for {h}: {hosts:?}");
    }
    assert!(events.iter().any(|e| e["ph"] == "i" && e["name"] == "net.move"), "the moves as instants");
    assert!(events.iter().any(|e| e["ph"] == "i" && e["name"] == "udp.drop" && e["cat"] == "loss"), "the drops as instants");
}

#[test]
fn a_fuzz_failure_leaves_its_pcapng_beside_its_entry() {
    let dir = scratch("fuzz");
    let (code, out, err) = ftwsim(&["fuzz", "--cases", "2", "--scenario", "fleet-migrate", "--switch", "no-routing", "--out", s(&dir)]);
    assert_eq!(code, 1, "{out}{err}");
    let entries = ftw_properties::corpus::collect(&[dir.to_path_buf()]).expect("entries");
    assert_eq!(entries.len(), 1, "{out}");
    let pcap = entries[0].with_extension("pcapng");
    assert!(pcap.exists(), "no {}", pcap.display());
    let open = format!("packets: tshark -r {}", pcap.display());
    assert!(out.contains(&open) && err.contains(&format!("its {open}")), "the report says how to open it: {out}{err}");
    assert!(out.contains(&format!("{}", pcap.with_extension("nat.pcapng").display())), "and names the other files: {out}");
    // The replay of the entry names the file, and --pcap makes it again, the same bytes.
    let before = std::fs::read(&pcap).expect("pcap");
    let (code, rout, rerr) = ftwsim(&["replay", "--pcap", s(&entries[0])]);
    assert_eq!(code, 0, "{rout}{rerr}");
    assert!(rout.contains(&open), "{rout}");
    assert_eq!(std::fs::read(&pcap).expect("pcap"), before, "a replay captures the same packets");
    let others: Vec<PathBuf> = ["phone", "nat"].iter().map(|n| pcap.with_extension(format!("{n}.pcapng"))).collect();
    for p in &others {
        assert!(p.exists(), "no {}", p.display());
    }
    if tshark().is_some() {
        // Each file one vantage point, so tshark decrypts the failure's QUIC in each.
        for p in std::iter::once(&pcap).chain(&others) {
            assert!(!tshark_lines(p, &["-Y", "quic.stream.stream_id"]).is_empty(), "tshark decrypts the failure's STREAM frames in {}", p.display());
        }
    }
}

/// The records of a `.sqlog` file (JSON-SEQ: each record after an RS byte).
fn sqlog_records(path: &Path) -> Vec<serde_json::Value> {
    let text = std::fs::read_to_string(path).expect("sqlog");
    assert!(text.starts_with('\u{1e}'), "JSON-SEQ records begin with RS: {}", path.display());
    text.split('\u{1e}').filter(|r| !r.trim().is_empty()).map(|r| serde_json::from_str(r).expect("each record is JSON")).collect()
}

#[test]
fn qlog_has_one_file_per_connection_and_side_in_simulated_time() {
    let runs = [scratch("qlog-a"), scratch("qlog-b")];
    let trace = runs[0].join("t.jsonl");
    for dir in &runs {
        let q = dir.join("q");
        let (code, out, err) = ftwsim(&["run", "--scenario", "fleet-resume", "--seed", "1", "--qlog", s(&q), "--trace", s(&trace), "--json"]);
        assert_eq!(code, 0, "{out}{err}");
    }
    let events = std::fs::read_to_string(&trace).expect("trace");
    let count = |k: &str| events.lines().filter(|l| l.contains(&format!("\"kind\":\"{k}\""))).count();
    let files: Vec<PathBuf> = {
        let mut f: Vec<PathBuf> = std::fs::read_dir(runs[0].join("q")).expect("dir").map(|e| e.expect("entry").path()).collect();
        f.sort();
        f
    };
    let named = |side: &str| files.iter().filter(|p| p.file_name().unwrap().to_str().unwrap().starts_with(side)).count();
    assert_eq!(named("client-"), count("quic.dial"), "{files:?}");
    assert_eq!(named("server-"), count("quic.accept"), "{files:?}");
    let last_ms = events.lines().last().map(|l| serde_json::from_str::<serde_json::Value>(l).unwrap()["t_ns"].as_u64().unwrap() as f64 / 1e6).unwrap();
    for f in &files {
        let recs = sqlog_records(f);
        let side = if f.file_name().unwrap().to_str().unwrap().starts_with("client-") { "client" } else { "server" };
        assert_eq!(recs[0]["qlog_format"], "JSON-SEQ");
        assert_eq!(recs[0]["trace"]["vantage_point"]["type"], side);
        let times: Vec<f64> = recs[1..].iter().map(|r| r["time"].as_f64().expect("time")).collect();
        assert!(times.windows(2).all(|w| w[0] <= w[1]), "times in order in {}", f.display());
        assert!(times.iter().all(|&t| t <= last_ms), "simulated milliseconds, within the run");
        assert!(recs.iter().any(|r| r["name"] == "transport:packet_sent") && recs.iter().any(|r| r["name"] == "recovery:metrics_updated"));
        let group = recs[1]["group_id"].clone();
        assert!(recs[1..].iter().all(|r| r["group_id"] == group), "one connection a file");
        let again = runs[1].join("q").join(f.file_name().unwrap());
        assert_eq!(std::fs::read(f).unwrap(), std::fs::read(again).unwrap(), "the same bytes on a replay");
    }
}
