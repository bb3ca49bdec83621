//! A night of fuzzing as one static page (`ftwsim fuzz --report DIR`, `ftwsim
//! triage --report DIR`): `DIR/index.html`, with no network needed (no
//! external script, style or font; plots are inline SVG), and beside it
//! `DIR/entries/`: each signature's smallest entry with its trace, its pcapng
//! files and its timeline, so the folder is complete as an artifact.

mod page;
mod plot;

use std::path::{Path, PathBuf};

use ftw_sim::scenario::Verdict;

use crate::corpus;
use crate::triage::{Smallest, Triage};

/// The files of one signature's smallest entry, relative to the page.
#[derive(Clone, Debug, Default)]
pub struct Files {
    pub entry: Option<String>,
    pub timeline: Option<String>,
    pub trace: Option<String>,
    /// (link, the vantage point's name: `cloud`, `phone`, `nat`).
    pub pcaps: Vec<(String, String)>,
}

/// Copy `from` into `dir/entries/` under its own name; the page's link to it.
fn copy_in(dir: &Path, from: &Path) -> Result<Option<String>, String> {
    let Some(name) = from.file_name() else { return Ok(None) };
    if !from.exists() {
        return Ok(None);
    }
    let to = dir.join("entries").join(name);
    std::fs::copy(from, &to).map_err(|e| format!("{} -> {}: {e}", from.display(), to.display()))?;
    Ok(Some(format!("entries/{}", name.to_string_lossy())))
}

/// Run the entry again and draw its timeline (`--timeline`'s page) into `dir/entries/`.
fn timeline_of(dir: &Path, entry: &corpus::Entry) -> Result<String, String> {
    let report = ftw_sim::scenario::run(&entry.spec).map_err(|e| format!("{}: {e}", entry.path.display()))?;
    let verdict = match report.verdict() {
        Verdict::Pass => "pass".to_string(),
        Verdict::Fail { property, detail } => format!("FAIL {property}: {detail}"),
    };
    let spec = &entry.spec;
    let title =
        crate::timeline::Title { scenario: spec.scenario.name().to_string(), seed: spec.seed.0.to_string(), verdict, hash: report.outcome.trace.hash() };
    let stem = entry.path.file_stem().map_or("entry".into(), |s| s.to_string_lossy().into_owned());
    let name = format!("{stem}.timeline.html");
    let path = dir.join("entries").join(&name);
    let html = crate::timeline::render_for(&path, report.outcome.trace.events(), Some(&spec.plan), &title);
    std::fs::write(&path, html).map_err(|e| format!("{}: {e}", path.display()))?;
    Ok(format!("entries/{name}"))
}

/// Gather one smallest entry's files into `dir/entries/`.
fn gather(dir: &Path, m: &Smallest) -> Result<Files, String> {
    let path = PathBuf::from(&m.entry);
    let entry = corpus::load(&path)?;
    let pcap = path.with_extension("pcapng");
    let mut pcaps = Vec::new();
    if let Some(href) = copy_in(dir, &pcap)? {
        pcaps.push((href, crate::capture::MAIN_LINK.to_string()));
    }
    for p in crate::capture::link_files_beside(&pcap) {
        let name = p.file_stem().and_then(|s| std::path::Path::new(s).extension()).map_or(String::new(), |n| n.to_string_lossy().into_owned());
        pcaps.extend(copy_in(dir, &p)?.map(|href| (href, name)));
    }
    Ok(Files { entry: copy_in(dir, &path)?, timeline: Some(timeline_of(dir, &entry)?), trace: copy_in(dir, &corpus::trace_beside(&path))?, pcaps })
}

/// Write the page and its entries' files into `dir`; the page's path.
pub fn write(dir: &Path, t: &Triage, title: &str) -> Result<PathBuf, String> {
    std::fs::create_dir_all(dir.join("entries")).map_err(|e| format!("--report {}: {e}", dir.display()))?;
    let mut files = Vec::new();
    for s in &t.signatures {
        files.push(match &s.smallest {
            Some(m) => gather(dir, m).map_err(|e| format!("--report: {e}"))?,
            None => Files::default(),
        });
    }
    let index = dir.join("index.html");
    std::fs::write(&index, page::render(t, &files, title)).map_err(|e| format!("--report {}: {e}", index.display()))?;
    Ok(index)
}
