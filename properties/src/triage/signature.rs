//! A failure's signature: its scenario, its law, and the typed reason the law
//! gives (issue 38 section 2), never the detail's free text. Two failures with
//! one signature are one bug as far as triage can tell; the fuzzer keeps one
//! failure a signature and `ftwsim triage` one entry a signature.
//!
//! The reason is the kind of the first divergent decision where there is one:
//! for a reference law (`<model>-agrees-with-spec`) the journal step where the
//! model and the SPEC first differ (`Fleet.Event.StaleDrop`: the step's type
//! path, from its enum variants); for the determinism check (`replay`) the kind
//! of the first trace event two runs differ at (`udp.send`). A scenario's own
//! law judges one rule: the law is its own reason (`law`).

use std::fmt;

use ftw_sim::journal::Step;
use ftw_sim::scenario::RunReport;
use ftw_sim::trace::Event;
use serde::{Deserialize, Serialize};

use ftw_sim::law::reference::{Lockstep, REFERENCES};

/// A failure's signature.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Signature {
    pub scenario: String,
    pub law: String,
    pub reason: Reason,
}

/// Why the law failed, as a typed kind.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(into = "String", try_from = "String")]
pub enum Reason {
    /// A scenario's law: one rule, the law's own.
    Law,
    /// The kind of the journal step where a reference first differs from its model.
    Step(String),
    /// The kind of the first trace event where two runs of one case differ.
    Event(String),
}

/// The most levels of a step's type path kept (`Fleet.Event.StaleDrop`).
const STEP_PATH_DEPTH_MAX: usize = 4;

impl fmt::Display for Reason {
    fn fmt(&self, f: &mut fmt::Formatter) -> fmt::Result {
        match self {
            Reason::Law => f.write_str("law"),
            Reason::Step(k) => write!(f, "step {k}"),
            Reason::Event(k) => write!(f, "event {k}"),
        }
    }
}

impl From<Reason> for String {
    fn from(r: Reason) -> String {
        r.to_string()
    }
}

impl TryFrom<String> for Reason {
    type Error = String;
    fn try_from(s: String) -> Result<Reason, String> {
        Reason::parse(&s)
    }
}

fn is_kind(k: &str) -> bool {
    !k.is_empty() && k.bytes().all(|b| b.is_ascii_alphanumeric() || matches!(b, b'.' | b'-' | b'_' | b'~'))
}

impl Reason {
    /// `law`, `step <Type.Path>` or `event <kind>`.
    pub fn parse(s: &str) -> Result<Reason, String> {
        let bad = || format!("bad reason {s:?}: expected \"law\", \"step <Kind.Path>\" or \"event <kind>\"");
        match s.split_once(' ') {
            None if s == "law" => Ok(Reason::Law),
            Some(("step", k)) if is_kind(k) => Ok(Reason::Step(k.to_string())),
            Some(("event", k)) if is_kind(k) => Ok(Reason::Event(k.to_string())),
            _ => Err(bad()),
        }
    }
}

impl Signature {
    /// One line: `scenario law reason`.
    pub fn key(&self) -> String {
        format!("{} {} {}", self.scenario, self.law, self.reason)
    }
}

impl fmt::Display for Signature {
    fn fmt(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str(&self.key())
    }
}

/// The signature of `law` failing in a run of `scenario`.
pub fn of_run(scenario: &str, law: &str, report: &RunReport) -> Signature {
    let journal = &report.outcome.journal;
    let reason = match REFERENCES.iter().find(|r| r.law.name == law).and_then(|r| r.lockstep(journal)) {
        Some(Lockstep::Differs { index, .. }) if index < journal.len() => Reason::Step(step_kind(&journal[index].step)),
        _ => Reason::Law,
    };
    Signature { scenario: scenario.to_string(), law: law.to_string(), reason }
}

/// The signature of a case whose two runs differ at `a` (run A) and `b` (run B).
pub fn of_divergence(scenario: &str, a: Option<&Event>, b: Option<&Event>) -> Signature {
    let kind = a.or(b).map_or("end".to_string(), |e| e.kind.clone());
    let kind = if is_kind(&kind) { kind } else { "other".into() };
    Signature { scenario: scenario.to_string(), law: "replay".into(), reason: Reason::Event(kind) }
}

/// A journal step's type path from its enum variants and types, outermost
/// first (`Fleet(Event(StaleDrop { .. }))` is `Fleet.Event.StaleDrop`): the
/// names of the derived `Debug`, never a value.
pub fn step_kind(step: &Step) -> String {
    type_path(&format!("{step:?}"))
}

/// The leading chain of type names in a derived `Debug` rendering: a name,
/// then `(` and the next name, until a value. A journal's wrapper struct
/// (`LifeStep { .. }`, a name ending in `Step`) is looked into: its first field
/// whose value is a named type continues the chain.
fn type_path(debug: &str) -> String {
    let mut rest = debug;
    let mut names = Vec::new();
    while names.len() < STEP_PATH_DEPTH_MAX {
        let len = rest.find(|c: char| !(c.is_ascii_alphanumeric() || c == '_')).unwrap_or(rest.len());
        let name = &rest[..len];
        if !name.starts_with(|c: char| c.is_ascii_uppercase()) {
            break;
        }
        names.push(name);
        rest = &rest[len..];
        if let Some(r) = rest.strip_prefix('(') {
            rest = r;
        } else if let Some(r) = rest.strip_prefix(" { ").filter(|_| name.ends_with("Step")) {
            let Some(value) = first_named_field(r) else { break };
            rest = value;
        } else {
            break;
        }
    }
    if names.is_empty() {
        "Unknown".into()
    } else {
        names.join(".")
    }
}

/// In the fields of a struct (`a: 1, b: Name(..), ..}`), the first value that
/// begins with a type name, and what follows it.
fn first_named_field(fields: &str) -> Option<&str> {
    let mut depth = 0usize;
    let mut in_str = false;
    let mut prev = ' ';
    for (i, c) in fields.char_indices() {
        match c {
            '"' if prev != '\\' => in_str = !in_str,
            _ if in_str => {}
            '(' | '[' | '{' => depth += 1,
            ')' | ']' | '}' if depth == 0 => return None,
            ')' | ']' | '}' => depth -= 1,
            ':' if depth == 0 => {
                let value = fields[i + 1..].trim_start();
                if value.starts_with(|c: char| c.is_ascii_uppercase()) {
                    return Some(value);
                }
            }
            _ => {}
        }
        prev = c;
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_step_kind_is_its_type_path_never_a_value() {
        assert_eq!(type_path("Fleet(Event(StaleDrop { reactor: ReactorId(2), bytes: 40 }))"), "Fleet.Event.StaleDrop");
        assert_eq!(type_path("Life(LifeStep { event: Background { now_ms: 0 }, asks: [] })"), "Life.LifeStep.Background");
        assert_eq!(type_path("Race(RaceStep { instance: 0, what: Dialed { at: \"x: Y\", n: [1] } })"), "Race.RaceStep.Dialed");
        assert_eq!(type_path("Race(RaceStep { instance: 0, note: \"a: B\" })"), "Race.RaceStep");
        assert_eq!(type_path("Nat(Mapped(\"x\"))"), "Nat.Mapped");
        assert_eq!(type_path("Wire(Open { ok: true })"), "Wire.Open");
        assert_eq!(type_path("A(B(C(D(E(F)))))"), "A.B.C.D");
    }

    #[test]
    fn reasons_round_trip_and_bad_ones_are_named() {
        for r in [Reason::Law, Reason::Step("Box.Uplink".into()), Reason::Event("udp.send".into())] {
            assert_eq!(Reason::parse(&r.to_string()), Ok(r));
        }
        let e = Reason::parse("step two words").unwrap_err();
        assert!(e.contains("\"step two words\""), "{e}");
        assert!(Reason::parse("because").is_err());
    }
}
