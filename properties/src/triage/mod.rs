//! `ftwsim triage`: the summaries and entries of several fuzzing shards or
//! nights as one: failures grouped by [`signature::Signature`], the smallest
//! entry of each kept, each signature marked new or known (an entry in
//! `corpus/` with the same signature). `ftwsim fuzz --report` and
//! `ftwsim triage --report` draw the result as a page ([`crate::report`]).

pub mod signature;

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

use serde::Serialize;

use crate::corpus::{self, Entry, Expect};
use crate::coverage::{Coverage, Growth};
use crate::fuzz::{ScenarioShare, Summary};
use signature::{Reason, Signature};

/// One fuzzing session read back: where its summary came from, and the summary.
pub struct Shard {
    pub source: String,
    pub summary: Summary,
}

/// Several sessions as one.
#[derive(Debug, Serialize)]
pub struct Triage {
    pub shards: Vec<ShardRow>,
    pub cases: u64,
    pub wall_s: f64,
    pub determinism_checks: u64,
    pub per_scenario: Vec<ScenarioShare>,
    pub coverage: Coverage,
    pub warnings: Vec<String>,
    /// New signatures first, then known; each by its key.
    pub signatures: Vec<SignatureRow>,
    /// Entries read (every one that expects a failure).
    pub entries: usize,
}

/// One session in the triage.
#[derive(Debug, Serialize)]
pub struct ShardRow {
    pub source: String,
    pub shard: String,
    pub seeds: String,
    pub cases: u64,
    pub wall_s: f64,
    pub determinism_checks: u64,
    pub growth: Vec<Growth>,
}

/// One signature: how often it failed, its smallest entry, new or known.
#[derive(Debug, Serialize)]
pub struct SignatureRow {
    pub signature: Signature,
    pub key: String,
    /// `new`, or `known`: `known_as` is the entry in `corpus/` with this signature.
    pub status: &'static str,
    pub known_as: Option<String>,
    /// Cases that failed with it (the summaries' counts; else its entries).
    pub cases: u64,
    pub entries: usize,
    /// The entry with the fewest timed faults (then the shortest plan, then the path).
    pub smallest: Option<Smallest>,
}

/// A signature's smallest entry.
#[derive(Clone, Debug, Serialize)]
pub struct Smallest {
    pub entry: String,
    pub seed: u64,
    pub faults: usize,
    pub replay: String,
    pub run: String,
}

/// Every file under `dir` (recursively) whose name ends with `.ext`, sorted; not
/// under a folder named `kept` (the guided search's kept plans, `ftwsim fuzz
/// --kept`: plans that reached new keys, not failures).
fn files_under(dir: &Path, ext: &str, out: &mut Vec<PathBuf>) -> Result<(), String> {
    let read = std::fs::read_dir(dir).map_err(|e| format!("{}: cannot read directory: {e}", dir.display()))?;
    let mut paths: Vec<PathBuf> = read.filter_map(|e| e.ok().map(|e| e.path())).collect();
    paths.sort();
    for p in paths {
        if p.is_dir() && p.file_name().is_some_and(|n| n == "kept") {
            continue;
        }
        if p.is_dir() {
            files_under(&p, ext, out)?;
        } else if p.extension().is_some_and(|x| x == ext) {
            out.push(p);
        }
    }
    Ok(())
}

/// Read one summary (`ftwsim fuzz --json` output); the error names the file and the field.
pub fn read_summary(path: &Path) -> Result<Shard, String> {
    let text = std::fs::read_to_string(path).map_err(|e| format!("{}: cannot read: {e}", path.display()))?;
    let summary: Summary = serde_json::from_str(&text).map_err(|e| {
        let field = field_at(&text, e.line(), e.column()).map(|f| format!("field `{f}`: ")).unwrap_or_default();
        format!("{}: not a fuzz summary (`ftwsim fuzz --json`): {field}{e}", path.display())
    })?;
    Ok(Shard { source: path.display().to_string(), summary })
}

/// The name of the last JSON key before line `line`, column `col` (1-based):
/// the field a type error is about (serde names missing and unknown ones itself).
fn field_at(text: &str, line: usize, col: usize) -> Option<String> {
    let start: usize = text.split_inclusive('\n').take(line.saturating_sub(1)).map(str::len).sum();
    let upto = text.get(..(start + col).min(text.len()))?;
    let colon = upto.rfind("\":")?;
    let open = upto[..colon].rfind('"')?;
    Some(upto[open + 1..colon].to_string())
}

/// The summaries (`*.json`) and the entries (`*.toml`) under each of `dirs`.
pub fn read_dirs(dirs: &[PathBuf]) -> Result<(Vec<Shard>, Vec<Entry>), String> {
    let (mut jsons, mut tomls) = (Vec::new(), Vec::new());
    for d in dirs {
        if !d.is_dir() {
            return Err(format!("{}: not a directory (triage reads the directories `ftwsim fuzz --out` wrote)", d.display()));
        }
        files_under(d, "json", &mut jsons)?;
        files_under(d, "toml", &mut tomls)?;
    }
    let shards = jsons.iter().map(|p| read_summary(p)).collect::<Result<Vec<_>, _>>()?;
    let entries = tomls.iter().map(|p| corpus::load(p)).collect::<Result<Vec<_>, _>>()?;
    Ok((shards, entries))
}

/// An entry's signature: None when it expects a pass. The reason is the one the
/// fuzzer wrote; for an entry without one (written before signatures, or by
/// hand), a reference law's entry is run to find its first divergent step and
/// any other law is its own reason.
pub fn entry_signature(e: &Entry) -> Result<Option<Signature>, String> {
    let Expect::Fails(law) = &e.expect else { return Ok(None) };
    if let Some(reason) = &e.reason {
        return Ok(Some(Signature { scenario: e.spec.scenario.name().to_string(), law: law.clone(), reason: reason.clone() }));
    }
    if ftw_sim::law::reference::REFERENCES.iter().any(|r| r.law.name == law) {
        let report = ftw_sim::scenario::run(&e.spec).map_err(|err| format!("{}: {err}", e.path.display()))?;
        return Ok(Some(signature::of_run(e.spec.scenario.name(), law, &report)));
    }
    Ok(Some(Signature { scenario: e.spec.scenario.name().to_string(), law: law.clone(), reason: Reason::Law }))
}

/// The signatures of the entries directly in `corpus` (not its subdirectories:
/// `corpus/found` is the fuzzer's), each with its entries' bug switches and paths.
pub fn known_signatures(corpus: &Path) -> Result<Known, String> {
    let mut known = Known::new();
    if !corpus.is_dir() {
        return Ok(known);
    }
    for p in corpus::collect(&[corpus.to_path_buf()])? {
        let e = corpus::load(&p)?;
        if let Some(sig) = entry_signature(&e)? {
            known.entry(sig).or_default().push((e.spec.switches.clone(), p.display().to_string()));
        }
    }
    Ok(known)
}

/// The corpus's signatures, each with the bug switches and path of its entries: a
/// failure is known only as an entry run with the same switches (a run with none on
/// that fails a law is not a switch's bug of the same broad signature).
pub type Known = BTreeMap<Signature, Vec<(ftw_sim::switch::Switches, String)>>;

/// The entry `sig` is known as for a failure run with `switches`, if any.
fn known_as(known: &Known, sig: &Signature, switches: &ftw_sim::switch::Switches) -> Option<String> {
    known.get(sig)?.iter().find(|(s, _)| s == switches).map(|(_, p)| p.clone())
}

/// The signatures of `dir`'s entries that expect a failure with no bug switch on:
/// the product's findings that fail with the models as they are (a pin outliving its
/// connection's close, docs/findings/fleet-pin-outlives-close.md), which a fuzz of the
/// unmutated models may meet at any time.
pub fn known_findings(dir: &Path) -> Result<BTreeSet<Signature>, String> {
    let none = ftw_sim::switch::Switches::default();
    Ok(known_signatures(dir)?.into_iter().filter(|(_, entries)| entries.iter().any(|(s, _)| *s == none)).map(|(sig, _)| sig).collect())
}

/// How big an entry is: timed faults, then the plan's length as TOML, then its path.
fn size(e: &Entry) -> (usize, usize, PathBuf) {
    (e.spec.plan.faults.len(), toml::to_string(&e.spec.plan).map_or(usize::MAX, |t| t.len()), e.path.clone())
}

/// The smallest of a signature's entries.
fn smallest(entries: &[&Entry]) -> Option<Smallest> {
    let e = entries.iter().min_by_key(|e| size(e))?;
    Some(Smallest {
        entry: e.path.display().to_string(),
        seed: e.spec.seed.0,
        faults: e.spec.plan.faults.len(),
        replay: format!("cargo sim replay {}", e.path.display()),
        run: crate::harness::run_command(&e.spec, Some(&e.path)),
    })
}

/// The sessions' counts added up: cases, time, checks, scenarios, coverage.
fn totals(shards: &[Shard]) -> (Vec<ShardRow>, Vec<ScenarioShare>, Coverage) {
    let mut rows = Vec::new();
    let mut per: Vec<ScenarioShare> = Vec::new();
    let mut coverage = Coverage::default();
    for s in shards {
        let m = &s.summary;
        rows.push(ShardRow {
            source: s.source.clone(),
            shard: m.shard.clone(),
            seeds: m.seeds.clone(),
            cases: m.cases,
            wall_s: m.wall_s,
            determinism_checks: m.determinism_checks,
            growth: m.growth.clone(),
        });
        for p in &m.per_scenario {
            match per.iter_mut().find(|q| q.scenario == p.scenario) {
                Some(q) => {
                    q.cases += p.cases;
                    q.wall_s += p.wall_s;
                }
                None => per.push(p.clone()),
            }
        }
        coverage.merge(&m.coverage);
    }
    (rows, per, coverage)
}

/// Group the entries (and the summaries' failures) by signature and mark each
/// new or known against `known` ([`known_signatures`]).
pub fn triage(shards: &[Shard], entries: &[Entry], known: &Known) -> Result<Triage, String> {
    let mut groups: BTreeMap<Signature, Vec<&Entry>> = BTreeMap::new();
    let mut read = 0;
    for e in entries {
        if let Some(sig) = entry_signature(e)? {
            groups.entry(sig).or_default().push(e);
            read += 1;
        }
    }
    let mut counted: BTreeMap<Signature, u64> = BTreeMap::new();
    for f in shards.iter().flat_map(|s| &s.summary.failures) {
        *counted.entry(f.signature.clone()).or_default() += 1 + f.repeats;
        groups.entry(f.signature.clone()).or_default();
    }
    let mut signatures: Vec<SignatureRow> = groups
        .into_iter()
        .map(|(sig, list)| {
            let switches = list.first().map(|e| e.spec.switches.clone()).unwrap_or_default();
            (known_as(known, &sig, &switches), sig, list)
        })
        .map(|(known_as, sig, list)| SignatureRow {
            key: sig.key(),
            status: if known_as.is_some() { "known" } else { "new" },
            known_as,
            cases: counted.get(&sig).copied().unwrap_or(list.len() as u64),
            entries: list.len(),
            smallest: smallest(&list),
            signature: sig,
        })
        .collect();
    signatures.sort_by(|a, b| (a.status != "new", &a.key).cmp(&(b.status != "new", &b.key)));
    let (rows, per_scenario, coverage) = totals(shards);
    Ok(Triage {
        cases: rows.iter().map(|r| r.cases).sum(),
        wall_s: rows.iter().map(|r| r.wall_s).sum(),
        determinism_checks: rows.iter().map(|r| r.determinism_checks).sum(),
        shards: rows,
        per_scenario,
        warnings: coverage.warnings(),
        coverage,
        signatures,
        entries: read,
    })
}

impl Triage {
    /// The triage for people: totals, then each signature with its smallest entry.
    pub fn render(&self) -> String {
        let new = self.signatures.iter().filter(|s| s.status == "new").count();
        let mut out = format!(
            "triaged {} summaries and {} entries: {} cases in {:.1} s, {} determinism checks\n{} signatures: {new} new, {} known\n",
            self.shards.len(),
            self.entries,
            self.cases,
            self.wall_s,
            self.determinism_checks,
            self.signatures.len(),
            self.signatures.len() - new
        );
        for s in &self.signatures {
            let known = s.known_as.as_deref().map(|k| format!(" (as {k})")).unwrap_or_default();
            out.push_str(&format!("\n{:<5} {}{known}\n  {} cases, {} entries", s.status.to_uppercase(), s.key, s.cases, s.entries));
            match &s.smallest {
                Some(m) => out.push_str(&format!("; smallest: {} ({} timed faults)\n  replay: {}\n", m.entry, m.faults, m.replay)),
                None => out.push_str("; no entry found\n"),
            }
        }
        out
    }
}

#[cfg(test)]
mod known_tests {
    use super::*;
    use ftw_sim::switch::Switches;

    /// A failure is known only as an entry with its own switches: a switch-free run that
    /// fails `fleet-migrate same-connection` is not the `no-routing` switch's entry
    /// (session 34: fresh seed 14620217405 was called known as fleet-migrate-no-routing.toml).
    #[test]
    fn a_failure_is_known_only_as_an_entry_with_its_switches() {
        let sig = Signature { scenario: "fleet-migrate".into(), law: "same-connection".into(), reason: signature::Reason::Law };
        let no_routing = Switches::parse(["no-routing"]).expect("a switch");
        let known: Known = BTreeMap::from([(sig.clone(), vec![(no_routing.clone(), "corpus/fleet-migrate-no-routing.toml".to_string())])]);
        assert_eq!(known_as(&known, &sig, &no_routing).as_deref(), Some("corpus/fleet-migrate-no-routing.toml"));
        assert_eq!(known_as(&known, &sig, &Switches::default()), None);
    }
}
