//! Coverage of a fuzzing session: how often each trace event kind happened,
//! in how many cases, and a warning for each interesting kind that never did.
//!
//! [`EXPECTED`] is the one list of interesting kinds; extend it when a model
//! starts recording a new decision. A kind is only expected once its family
//! (the text before the first `.`) showed up at all: `fleet.pin` is not
//! missed in a session that never ran a fleet.

use std::collections::{BTreeMap, BTreeSet};

use serde::{Deserialize, Serialize};

/// An interesting event: its kind, optionally narrowed to one typed decision
/// (the tag a model's enum names it by, counted with `trace::tag`; never a
/// word of its display text), and why it matters.
pub struct Expected {
    pub kind: &'static str,
    pub tag: Option<&'static str>,
    pub about: &'static str,
}

const fn kind(kind: &'static str, about: &'static str) -> Expected {
    Expected { kind, tag: None, about }
}

/// Every interesting kind (one place; append as models grow).
pub const EXPECTED: &[Expected] = &[
    kind("nat.rebind", "a NAT gave a flow a new outside port"),
    kind("net.move", "the phone moved to another network"),
    kind("quic.path", "the server saw a QUIC migration"),
    kind("quic.lost", "a QUIC connection ended"),
    kind("udp.drop", "a datagram was dropped (fault or NAT)"),
    kind("udp.refused", "UDP was refused at once"),
    kind("fleet.forward", "a reactor forwarded a short header to its owner"),
    kind("fleet.pin", "an owner pinned a moved client's address"),
    kind("fleet.unpin", "a pin was released"),
    kind("fleet.move", "a client re-hashed to another reactor"),
    kind("fleet.stale", "a short header dropped as stale"),
    kind("phone.race", "the phone's race decided"),
    kind("phone.dial_failed", "a dial failed during the race"),
    narrowed("phone.race", "demoted", "QUIC was demoted on a network"),
    narrowed("phone.race", "learning-win", "a learning win: the probe made QUIC the winner"),
    narrowed("phone.carrier", "drop", "the carrier dropped a replayed datagram"),
    narrowed("phone.carrier", "end-session", "the carrier ended a session for a replay"),
    kind("quic.0rtt", "a client's 0-RTT was accepted"),
];

const fn narrowed(kind: &'static str, word: &'static str, about: &'static str) -> Expected {
    Expected { kind, tag: Some(word), about }
}

/// Counts over a session.
#[derive(Clone, Debug, Default, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Coverage {
    pub cases: u64,
    /// kind -> (events, cases it happened in).
    pub kinds: BTreeMap<String, KindCount>,
    /// Expected entries with a detail word: "kind~word" -> counts.
    pub narrowed: BTreeMap<String, KindCount>,
    /// Fault kind (`strategy::Kind`) -> the cases whose plan used it.
    #[serde(default)]
    pub faults: BTreeMap<String, u64>,
}

/// A point of the coverage's growth: after `case` cases (and `wall_s` seconds),
/// `keys` fault kinds and decision kinds had happened.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Growth {
    pub case: u64,
    pub wall_s: f64,
    pub keys: usize,
}

#[derive(Clone, Debug, Default, Serialize, Deserialize, PartialEq, Eq)]
#[serde(deny_unknown_fields)]
pub struct KindCount {
    pub events: u64,
    pub cases: u64,
}

impl Coverage {
    /// Add one run's per-kind counts and its typed decisions' (`kind~tag`) counts.
    pub fn add(&mut self, counts: &BTreeMap<String, u64>, tags: &BTreeMap<String, u64>) {
        self.cases += 1;
        for (k, n) in counts {
            let c = self.kinds.entry(k.clone()).or_default();
            c.events += n;
            c.cases += 1;
        }
        for e in EXPECTED {
            let Some(tag) = e.tag else { continue };
            let key = format!("{}~{tag}", e.kind);
            let n = tags.get(&key).copied().unwrap_or(0);
            if n > 0 {
                let c = self.narrowed.entry(key).or_default();
                c.events += n;
                c.cases += 1;
            }
        }
    }

    /// Count one case's fault kinds (the kinds its plan used).
    pub fn add_faults(&mut self, kinds: &[&str]) {
        for k in kinds {
            *self.faults.entry(k.to_string()).or_default() += 1;
        }
    }

    /// How many fault kinds and decision kinds (event kinds, typed decisions) happened.
    pub fn keys(&self) -> usize {
        self.faults.len() + self.kinds.len() + self.narrowed.len()
    }

    /// Add another session's counts (shards or nights merged).
    pub fn merge(&mut self, other: &Coverage) {
        self.cases += other.cases;
        for (mine, theirs) in [(&mut self.kinds, &other.kinds), (&mut self.narrowed, &other.narrowed)] {
            for (k, c) in theirs {
                let m = mine.entry(k.clone()).or_default();
                m.events += c.events;
                m.cases += c.cases;
            }
        }
        for (k, n) in &other.faults {
            *self.faults.entry(k.clone()).or_default() += n;
        }
    }

    fn families(&self) -> BTreeSet<&str> {
        self.kinds.keys().map(|k| k.split('.').next().unwrap_or(k)).collect()
    }

    /// One warning per expected kind of a family that ran but never happened.
    pub fn warnings(&self) -> Vec<String> {
        let fams = self.families();
        let mut out = Vec::new();
        for e in EXPECTED {
            let fam = e.kind.split('.').next().unwrap_or(e.kind);
            if !fams.contains(fam) {
                continue;
            }
            let seen = match e.tag {
                None => self.kinds.get(e.kind).is_some_and(|c| c.events > 0),
                Some(w) => self.narrowed.get(&format!("{}~{w}", e.kind)).is_some_and(|c| c.events > 0),
            };
            if !seen {
                let name = match e.tag {
                    None => e.kind.to_string(),
                    Some(w) => format!("{} ({w})", e.kind),
                };
                out.push(format!("never happened in {} cases: {name} ({})", self.cases, e.about));
            }
        }
        out
    }

    /// The report for people: every kind with events and cases.
    pub fn render(&self) -> String {
        let mut s = format!("coverage over {} cases (kind: events in cases):\n", self.cases);
        let width = self.kinds.keys().chain(self.narrowed.keys()).map(|k| k.len()).max().unwrap_or(0);
        for (k, c) in self.kinds.iter().chain(self.narrowed.iter()) {
            let mark = if EXPECTED.iter().any(|e| e.kind == k.as_str() || k.starts_with(&format!("{}~", e.kind))) { "*" } else { " " };
            s.push_str(&format!("  {mark} {k:width$}  {:>9} in {:>6}\n", c.events, c.cases));
        }
        s.push_str("  (* = on the expected list)\n");
        for w in self.warnings() {
            s.push_str(&format!("warning: {w}\n"));
        }
        s
    }
}
