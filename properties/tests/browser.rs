//! The fuzzing report page and a run's timeline opened in a real browser
//! (issue 38 section 4): headless Chromium loads each page from disk, no
//! console message appears (the pages log nothing, so any message, an
//! uncaught error above all, is a failure), the key elements are in the DOM
//! once the page's script has run, and a screenshot is kept under
//! `target/tmp/ftw-browser/`. A copy of the page with a script error planted
//! must fail the same check, so the check is seen to catch one.
//!
//! Chromium must be installed (`.ci/run` installs Debian's `chromium`): without
//! it this test fails and says how to install it, never passing unchecked.

use std::path::{Path, PathBuf};
use std::process::Command;

fn ftwsim(args: &[&str]) -> (i32, String, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_ftwsim")).args(args).current_dir(env!("CARGO_MANIFEST_DIR")).output().expect("ftwsim runs");
    (out.status.code().unwrap_or(-1), String::from_utf8_lossy(&out.stdout).into(), String::from_utf8_lossy(&out.stderr).into())
}

fn s(p: &Path) -> &str {
    p.to_str().expect("utf-8 path")
}

/// The kept artifacts: `target/tmp/ftw-browser/`.
fn artifacts() -> PathBuf {
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join("ftw-browser");
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).expect("artifact dir");
    dir
}

/// The browser: `$CHROMIUM`, else the first of Debian's and others' names on the PATH.
fn chromium() -> String {
    let names = std::env::var("CHROMIUM").into_iter().chain(["chromium", "chromium-browser", "google-chrome"].map(String::from));
    for name in names {
        if Command::new(&name).arg("--version").output().is_ok_and(|o| o.status.success()) {
            return name;
        }
    }
    panic!("headless Chromium is needed to check the report page: install it (Debian: apt-get install -y chromium; .ci/run does) or name it in $CHROMIUM");
}

/// Chromium, headless, isolated (a fresh profile, no network of its own) on a
/// file; its stdout and stderr.
fn headless(browser: &str, profile: &Path, extra: &[&str], page: &Path) -> (String, String) {
    let _ = std::fs::remove_dir_all(profile);
    let flags = [
        "--headless",
        "--no-sandbox",
        "--disable-gpu",
        "--disable-quic",
        "--no-first-run",
        "--disable-background-networking",
        "--disable-component-update",
        "--disable-sync",
        "--enable-logging=stderr",
        "--v=0",
    ];
    let url = format!("file://{}", page.canonicalize().expect("page exists").display());
    let out = Command::new(browser).args(flags).arg(format!("--user-data-dir={}", profile.display())).args(extra).arg(&url).output().expect("chromium runs");
    assert!(out.status.success(), "chromium on {url}: {}", String::from_utf8_lossy(&out.stderr));
    (String::from_utf8_lossy(&out.stdout).into(), String::from_utf8_lossy(&out.stderr).into())
}

/// The page's DOM after its scripts ran, and every console message it logged.
fn open(browser: &str, work: &Path, page: &Path) -> (String, Vec<String>) {
    let (dom, log) = headless(browser, &work.join("profile"), &["--dump-dom"], page);
    let console = log.lines().filter(|l| l.contains(":CONSOLE")).map(str::to_string).collect();
    (dom, console)
}

/// Open `page`: no console message, every `needles` in the DOM; a screenshot to `shot`.
fn check(browser: &str, work: &Path, page: &Path, needles: &[&str], shot: &Path) {
    let (dom, console) = open(browser, work, page);
    assert!(console.is_empty(), "{}: console messages: {console:#?}", page.display());
    for n in needles {
        assert!(dom.contains(n), "{}: no {n:?} in the rendered page", page.display());
    }
    let size = "--window-size=1280,1700";
    headless(browser, &work.join("profile"), &[&format!("--screenshot={}", shot.display()), size], page);
    let png = std::fs::read(shot).expect("screenshot written");
    assert!(png.starts_with(b"\x89PNG") && png.len() > 20_000, "{}: a screenshot with something on it ({} bytes)", shot.display(), png.len());
}

#[test]
fn the_report_and_a_timeline_render_headless_without_console_errors() {
    let browser = chromium();
    let work = artifacts();
    let (out_dir, report) = (work.join("found"), work.join("report"));
    let args =
        ["fuzz", "--cases", "4", "--scenario", "fleet-migrate", "--switch", "no-routing", "--seed-from", "300", "--out", s(&out_dir), "--report", s(&report)];
    let (code, out, err) = ftwsim(&args);
    assert_eq!(code, 1, "the planted bug is found: {out}{err}");
    let page = report.join("index.html");
    let key = ["data-ready=\"1\"", "id=\"signature-table\"", "Fleet.Event.StaleDrop", "id=\"growth-plot\"", "class=\"growth-line\""];
    let more =
        ["id=\"scenario-bars\"", "id=\"fault-kinds\"", "id=\"decision-kinds\"", "id=\"determinism\"", "id=\"sessions\"", ".timeline.html\">timeline</a>"];
    check(&browser, &work, &page, &[&key[..], &more[..]].concat(), &work.join("report.png"));

    // The run's timeline (`ftwsim run --timeline`), as linked from the page.
    let timeline =
        std::fs::read_dir(report.join("entries")).expect("entries").filter_map(|e| e.ok().map(|e| e.path())).find(|p| s(p).ends_with(".timeline.html"));
    let timeline = timeline.expect("the signature's timeline beside the page");
    check(&browser, &work, &timeline, &["<svg", "fleet-migrate seed"], &work.join("timeline.png"));

    // The check catches a script error: the same page with one planted.
    let broken = report.join("broken.html");
    let html = std::fs::read_to_string(&page).expect("page");
    std::fs::write(&broken, html.replace("</body>", "<script>notAFunctionOfThePage();</script></body>")).expect("write");
    let (_, console) = open(&browser, &work, &broken);
    assert!(console.iter().any(|l| l.contains("Uncaught ReferenceError")), "the planted error is seen: {console:?}");
}
