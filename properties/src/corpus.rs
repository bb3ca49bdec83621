//! The corpus: failures (and hard cases) kept as data, one TOML file an entry.
//!
//! ```toml
//! scenario = "quic-echo"
//! seed = 1                     # or "0xdeadbeef"; TOML integers stop at 2^63-1
//! switches = []                # bug switches on
//! expect = "pass"              # or "fails <property>"
//! note = "why this entry exists"
//! reason = "step Fleet.Event.StaleDrop"  # optional, with `fails`: the failure's typed reason
//!                              # (`law`, `step <Kind.Path>`, `event <kind>`; triage::signature)
//! [plan.phone]                 # the concrete fault plan (ftw_sim::plan::FaultPlan)
//! loss_pct = 5.0
//! [[plan.faults]]
//! at_ms = 4500
//! kind = "rebind"
//! host = "phone"
//! ```
//!
//! A bad entry is reported with its file, field and value; the other entries
//! still run.

use std::path::{Path, PathBuf};

use ftw_sim::plan::{FaultPlan, QuicPlan};
use ftw_sim::scenario::{self, Verdict};
use ftw_sim::switch::Switches;
use ftw_sim::RunSpec;
use ftw_sim::{parse_seed, RunSeed};
use serde::{Deserialize, Serialize};

use crate::triage::signature::Reason;

/// What an entry expects.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Expect {
    Pass,
    Fails(String),
}

impl Expect {
    pub fn parse(s: &str) -> Result<Expect, String> {
        let s = s.trim();
        if s == "pass" {
            return Ok(Expect::Pass);
        }
        match s.strip_prefix("fails ") {
            Some(p) if !p.trim().is_empty() => Ok(Expect::Fails(p.trim().to_string())),
            _ => Err(format!("{s:?}: expected \"pass\" or \"fails <property>\"")),
        }
    }
    pub fn render(&self) -> String {
        match self {
            Expect::Pass => "pass".into(),
            Expect::Fails(p) => format!("fails {p}"),
        }
    }
    pub fn met_by(&self, v: &Verdict) -> bool {
        match (self, v) {
            (Expect::Pass, Verdict::Pass) => true,
            (Expect::Fails(p), Verdict::Fail { property, .. }) => p == property,
            _ => false,
        }
    }
}

#[derive(Debug, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
struct RawEntry {
    scenario: String,
    seed: toml::Value,
    #[serde(default)]
    switches: Vec<String>,
    expect: String,
    #[serde(default)]
    note: String,
    /// Why its law failed, as a typed kind (`law`, `step <Kind.Path>`, `event
    /// <kind>`): with `scenario` and `expect`, the failure's signature (issue 38).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    reason: Option<String>,
    #[serde(default)]
    plan: FaultPlan,
    /// What the entry's run produced when it was written or last recorded
    /// (issue 19 section 1). Always the file's last table.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    recorded: Option<Recorded>,
}

/// The bytes an entry's run produced, and what produced them.
#[derive(Clone, Debug, PartialEq, Eq, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct Recorded {
    /// The trace hash (SHA-256, hex).
    pub hash: String,
    /// ftw-properties' version.
    pub version: String,
    /// The first 16 hex digits of the SHA-256 of the workspace's `Cargo.lock`.
    pub lock: String,
}

impl Recorded {
    /// This build's record of a hash.
    pub fn now(hash: &str) -> Recorded {
        Recorded { hash: hash.to_string(), version: env!("CARGO_PKG_VERSION").into(), lock: env!("FTW_CARGO_LOCK_SHA256").into() }
    }

    /// The TOML table, as it ends an entry's file.
    pub fn toml(&self) -> String {
        format!("\n[recorded]\nhash = \"{}\"\nversion = \"{}\"\nlock = \"{}\"\n", self.hash, self.version, self.lock)
    }
}

/// An entry's file with its `[recorded]` table set to `rec` (replacing one
/// already at the end; everything before it is kept byte for byte).
pub fn with_recorded(text: &str, rec: &Recorded) -> String {
    let body = match text.find("\n[recorded]\n") {
        Some(i) => &text[..i],
        None if text.starts_with("[recorded]\n") => "",
        None => text.trim_end_matches('\n'),
    };
    format!("{}\n{}", body.trim_end_matches('\n'), rec.toml())
}

/// The trace saved beside an entry (`<entry>.trace.jsonl`), if any.
pub fn trace_beside(entry: &Path) -> PathBuf {
    entry.with_extension("trace.jsonl")
}

/// A checked corpus entry.
#[derive(Clone, Debug)]
pub struct Entry {
    pub path: PathBuf,
    pub spec: RunSpec,
    pub expect: Expect,
    pub note: String,
    pub recorded: Option<Recorded>,
    /// The failure's typed reason, as the fuzzer wrote it (None: not written).
    pub reason: Option<Reason>,
}

/// Read and check one entry; errors name the file, the field and the value.
pub fn load(path: &Path) -> Result<Entry, String> {
    let p = path.display();
    let text = std::fs::read_to_string(path).map_err(|e| format!("{p}: cannot read: {e}"))?;
    let raw: RawEntry = toml::from_str(&text).map_err(|e| format!("{p}: {}", e.to_string().trim_end().replace('\n', "\n    ")))?;
    scenario::find(&raw.scenario).map_err(|e| format!("{p}: field `scenario`: {e}"))?;
    let seed = match &raw.seed {
        toml::Value::Integer(i) if *i >= 0 => RunSeed(*i as u64),
        toml::Value::String(s) => parse_seed(s).map_err(|e| format!("{p}: field `seed`: {e}"))?,
        other => return Err(format!("{p}: field `seed`: bad seed {other}: expected a whole number from 0, or a string like \"0x1f\"")),
    };
    let switches = Switches::parse(raw.switches.iter().map(String::as_str)).map_err(|e| format!("{p}: field `switches`: {e}"))?;
    let expect = Expect::parse(&raw.expect).map_err(|e| format!("{p}: field `expect`: {e}"))?;
    raw.plan.validate().map_err(|e| format!("{p}: field `{}", e.replacen(": ", "`: ", 1)))?;
    let mut spec = ftw_sim::scenario::spec(&raw.scenario, seed);
    spec.switches = switches;
    spec.plan = raw.plan;
    if let Some(r) = &raw.recorded {
        if r.hash.len() != 64 || !r.hash.bytes().all(|b| b.is_ascii_hexdigit()) {
            return Err(format!("{p}: field `recorded.hash` = {:?}: must be 64 hex digits (a SHA-256)", r.hash));
        }
    }
    let reason = raw.reason.as_deref().map(Reason::parse).transpose().map_err(|e| format!("{p}: field `reason`: {e}"))?;
    if reason.is_some() && expect == Expect::Pass {
        return Err(format!("{p}: field `reason`: an entry that expects \"pass\" has no failure to give a reason for"));
    }
    Ok(Entry { path: path.to_path_buf(), spec, expect, note: raw.note, recorded: raw.recorded, reason })
}

/// Render an entry as TOML (for new failures).
pub fn render(spec: &RunSpec, expect: &Expect, note: &str, reason: Option<&Reason>, recorded: Option<Recorded>) -> String {
    let raw = RawEntry {
        scenario: spec.scenario.name().to_string(),
        seed: if spec.seed.0 <= i64::MAX as u64 { toml::Value::Integer(spec.seed.0 as i64) } else { toml::Value::String(format!("{:#x}", spec.seed.0)) },
        switches: spec.switches.names().into_iter().map(String::from).collect(),
        expect: expect.render(),
        note: note.to_string(),
        reason: reason.map(Reason::to_string),
        plan: spec.plan.clone(),
        recorded: None,
    };
    let text = toml::to_string(&raw).expect("entry renders");
    match recorded {
        Some(r) => with_recorded(&text, &r),
        None => text,
    }
}

/// Every `.toml` file under the given paths (files or directories), sorted.
pub fn collect(paths: &[PathBuf]) -> Result<Vec<PathBuf>, String> {
    let mut out = Vec::new();
    for p in paths {
        if p.is_dir() {
            let mut files: Vec<PathBuf> = std::fs::read_dir(p)
                .map_err(|e| format!("{}: cannot read directory: {e}", p.display()))?
                .filter_map(|e| e.ok().map(|e| e.path()))
                .filter(|f| f.extension().is_some_and(|x| x == "toml"))
                .collect();
            files.sort();
            out.extend(files);
        } else if p.exists() {
            out.push(p.clone());
        } else {
            return Err(format!("{}: no such file or directory", p.display()));
        }
    }
    Ok(out)
}

/// The result of replaying one file.
pub struct Replayed {
    pub path: PathBuf,
    /// Err: the entry could not be read (corrupt, unknown names).
    pub outcome: Result<(Entry, Verdict, String), String>,
    /// Against the entry's recorded hash (issue 19 section 1).
    pub bytes: Bytes,
    /// The laws the run judged, in its checks' order (none when it could not run).
    pub judged: Vec<&'static str>,
}

/// How a replay's bytes compare with what the entry recorded.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Bytes {
    /// The entry records no hash.
    Unrecorded,
    Same,
    /// Other bytes; with the first divergent event against the trace saved
    /// beside the entry, when there is one.
    Other {
        recorded: Recorded,
        divergence: Option<String>,
    },
}

impl Replayed {
    pub fn met(&self) -> bool {
        matches!(&self.outcome, Ok((e, v, _)) if e.expect.met_by(v))
    }
}

/// Compare a replay's hash (and events) with the entry's record.
fn compare(e: &Entry, report: &ftw_sim::scenario::RunReport) -> Bytes {
    let Some(rec) = &e.recorded else { return Bytes::Unrecorded };
    if rec.hash == report.outcome.trace.hash() {
        return Bytes::Same;
    }
    let saved = trace_beside(&e.path);
    let divergence = std::fs::read_to_string(&saved).ok().map(|text| match ftw_sim::trace::Trace::parse_jsonl(&text) {
        Ok(events) => match ftw_sim::trace::first_divergence(&events, report.outcome.trace.events()) {
            Some(d) => ftw_sim::trace::describe_divergence(&d),
            None => "every saved event matches (the saved trace is shorter or was cut)".into(),
        },
        Err(err) => format!("{}: {err}", saved.display()),
    });
    Bytes::Other { recorded: rec.clone(), divergence }
}

/// Replay every entry on up to `jobs` threads, the results in the files' order;
/// a bad entry does not stop the others.
pub fn replay(files: &[PathBuf], jobs: usize) -> Vec<Replayed> {
    replay_as(files, jobs, None)
}

/// [`replay`], with every plan's QUIC stand-in set to `quic` when given (the
/// entries' recorded bytes are then not compared: they were recorded under the
/// entry's own stand-in, unless it is the same).
pub fn replay_as(files: &[PathBuf], jobs: usize, quic: Option<QuicPlan>) -> Vec<Replayed> {
    crate::pool::map_ordered(files, jobs, |f| {
        let (mut bytes, mut judged) = (Bytes::Unrecorded, Vec::new());
        let outcome = load(f).and_then(|mut e| {
            let own = quic.is_none_or(|q| q == e.spec.plan.quic);
            if let Some(q) = quic {
                e.spec.plan.quic = q;
            }
            let report = ftw_sim::scenario::run(&e.spec)?;
            if own {
                bytes = compare(&e, &report);
            }
            let hash = report.outcome.trace.hash();
            judged = report.checks.iter().map(|c| c.law.name).collect();
            Ok((e, report.verdict(), hash))
        });
        Replayed { path: f.clone(), outcome, bytes, judged }
    })
}
