//! The trace: every event of a run, with simulated time and host, folded into a
//! running SHA-256. Two runs replay exactly iff their trace hashes are equal;
//! when they are not, [`first_divergence`] names the first event that differs.
//!
//! Events come from the network hook (every datagram sent, dropped, delivered,
//! with the hash of its bytes), from drivers (timers, QUIC events) and from
//! models (decisions). Each is also logged through `tracing` at target
//! `ftw::trace`, so `RUST_LOG=ftw::trace=debug` prints them with sim time.

use std::cell::RefCell;
use std::fmt::Write as _;
use std::time::Duration;

use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};

/// One event.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Event {
    /// Simulated time since the start, in nanoseconds.
    pub t_ns: u64,
    pub host: String,
    pub kind: String,
    pub detail: String,
}

/// What a run's trace keeps. The run is the same whichever: only what is
/// written down of it differs.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Keep {
    /// Every event and the hash (`--trace`, divergence reports; the default).
    Events,
    /// The hash of the events, not the events.
    Hash,
    /// Only how many events of each kind and their tags: a fuzzed case no one
    /// compares or replays (its hash, when wanted, is a run's again). An
    /// event's detail is not even written ([`wanted`]).
    Counts,
}

/// The trace of one run.
#[derive(Clone)]
pub struct Trace {
    hasher: Sha256,
    events: Vec<Event>,
    keep: Keep,
    count: u64,
    /// The time of the last event, kept or not.
    last_t_ns: u64,
    counts: std::collections::BTreeMap<String, u64>,
    /// Typed decisions (`kind~tag`, the tag a model's enum name), counted
    /// beside the events and never hashed: what coverage and laws count.
    tags: std::collections::BTreeMap<String, u64>,
}

impl std::fmt::Debug for Trace {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self.keep {
            Keep::Counts => write!(f, "Trace({} events, not hashed)", self.count),
            _ => write!(f, "Trace({} events, {})", self.count, self.hash()),
        }
    }
}

impl Default for Trace {
    fn default() -> Self {
        Self::new(Keep::Events)
    }
}

impl Trace {
    pub fn new(keep: Keep) -> Self {
        Trace { hasher: Sha256::new(), events: Vec::new(), keep, count: 0, last_t_ns: 0, counts: Default::default(), tags: Default::default() }
    }

    pub fn record(&mut self, ev: Event) {
        self.fold(ev.t_ns, &ev.host, &ev.kind, &ev.detail);
        if self.keep == Keep::Events {
            self.events.push(ev);
        }
    }

    /// Fold one event into the hash and the counts. The hash covers the
    /// event's line `t_ns|host|kind|detail\n`, fed in pieces (the same bytes
    /// as the whole line: SHA-256 is a stream), so no line is built.
    fn fold(&mut self, t_ns: u64, host: &str, kind: &str, detail: &str) {
        if self.keep != Keep::Counts {
            let mut digits = [0u8; 20];
            for piece in [decimal(t_ns, &mut digits), b"|", host.as_bytes(), b"|", kind.as_bytes(), b"|", detail.as_bytes(), b"\n"] {
                self.hasher.update(piece);
            }
        }
        self.count += 1;
        self.last_t_ns = t_ns;
        match self.counts.get_mut(kind) {
            Some(n) => *n += 1,
            None => {
                self.counts.insert(kind.to_string(), 1);
            }
        }
    }

    /// Record an event from its parts; its strings are copied only when the
    /// events are kept.
    fn record_parts(&mut self, t_ns: u64, host: &str, kind: &str, detail: String) {
        self.fold(t_ns, host, kind, &detail);
        if self.keep == Keep::Events {
            self.events.push(Event { t_ns, host: host.to_string(), kind: kind.to_string(), detail });
        }
    }

    /// The time of the last event recorded (kept or not).
    pub fn last_time(&self) -> Duration {
        Duration::from_nanos(self.last_t_ns)
    }

    /// Hex SHA-256 over every event so far. A trace kept as [`Keep::Counts`]
    /// has none: asking is a bug of the caller (run it again kept otherwise).
    pub fn hash(&self) -> String {
        assert!(self.keep != Keep::Counts, "the hash of a run whose trace kept only its counts");
        hex::encode(self.hasher.clone().finalize())
    }

    /// What this trace keeps.
    pub fn keep(&self) -> Keep {
        self.keep
    }

    pub fn events(&self) -> &[Event] {
        &self.events
    }

    pub fn len(&self) -> u64 {
        self.count
    }

    pub fn is_empty(&self) -> bool {
        self.count == 0
    }

    /// How many events of each kind.
    pub fn counts(&self) -> &std::collections::BTreeMap<String, u64> {
        &self.counts
    }

    /// How many typed decisions of each `kind~tag` ([`tag`]).
    pub fn tags(&self) -> &std::collections::BTreeMap<String, u64> {
        &self.tags
    }

    /// The trace as JSON lines, one event a line.
    pub fn to_jsonl(&self) -> String {
        let mut out = String::new();
        for e in &self.events {
            out.push_str(&serde_json::to_string(e).expect("event serialises"));
            out.push('\n');
        }
        out
    }

    /// Events back from [`Trace::to_jsonl`]'s lines; the error names the line.
    pub fn parse_jsonl(text: &str) -> Result<Vec<Event>, String> {
        text.lines()
            .enumerate()
            .filter(|(_, l)| !l.trim().is_empty())
            .map(|(i, l)| serde_json::from_str(l).map_err(|e| format!("line {}: {e}", i + 1)))
            .collect()
    }
}

/// `n` in decimal, written into the end of `buf`: the digits `{n}` prints.
fn decimal(mut n: u64, buf: &mut [u8; 20]) -> &[u8] {
    let mut i = buf.len();
    loop {
        i -= 1;
        buf[i] = b'0' + (n % 10) as u8;
        n /= 10;
        if n == 0 {
            return &buf[i..];
        }
    }
}

/// Where two traces first differ: the index and both events (None past the end).
pub fn first_divergence(a: &[Event], b: &[Event]) -> Option<(usize, Option<Event>, Option<Event>)> {
    let n = a.len().max(b.len());
    (0..n).find_map(|i| {
        let (x, y) = (a.get(i), b.get(i));
        (x != y).then(|| (i, x.cloned(), y.cloned()))
    })
}

/// Format a divergence for a person.
pub fn describe_divergence(d: &(usize, Option<Event>, Option<Event>)) -> String {
    let mut s = String::new();
    let show = |e: &Option<Event>| match e {
        Some(e) => format!("t={} host={} {} {}", fmt_time(Duration::from_nanos(e.t_ns)), e.host, e.kind, e.detail),
        None => "(trace ended)".to_string(),
    };
    let _ = write!(s, "first divergence at event #{}:\n  run A: {}\n  run B: {}", d.0, show(&d.1), show(&d.2));
    s
}

/// `12.345s`-style time for people.
pub fn fmt_time(d: Duration) -> String {
    format!("{}.{:06}s", d.as_secs(), d.subsec_micros())
}

thread_local! {
    static CURRENT: RefCell<Option<Trace>> = const { RefCell::new(None) };
}

/// Start recording a new trace on this thread (one world runs per thread).
pub(crate) fn begin(keep: Keep) {
    CURRENT.with(|c| *c.borrow_mut() = Some(Trace::new(keep)));
}

/// Whether an event's detail is read by anyone: the trace hashes or keeps it,
/// or `RUST_LOG` prints it. A caller whose detail costs (a datagram's line and
/// the hash of its bytes) writes it only then, and records the event either way.
pub fn wanted() -> bool {
    let kept = CURRENT.with(|c| c.borrow().as_ref().is_some_and(|t| t.keep != Keep::Counts));
    kept || tracing::enabled!(target: "ftw::trace", tracing::Level::DEBUG)
}

/// Stop recording and hand the trace back.
pub(crate) fn end() -> Trace {
    CURRENT.with(|c| c.borrow_mut().take()).unwrap_or_default()
}

/// Record an event at an explicit time.
pub fn record_at(t: Duration, host: &str, kind: &str, detail: impl Into<String>) {
    let detail = detail.into();
    tracing::debug!(target: "ftw::trace", host, kind, "{detail}");
    CURRENT.with(|c| {
        if let Some(tr) = c.borrow_mut().as_mut() {
            tr.record_parts(t.as_nanos() as u64, host, kind, detail);
        }
    });
}

/// Count a typed decision of a model beside the event that shows it: `kind`
/// is the event's kind, `tag` the decision's name from the model's enum
/// (`Decision::kind`, `Verdict::name`). Not part of the hash.
pub fn tag(kind: &str, tag: &'static str) {
    CURRENT.with(|c| {
        if let Some(tr) = c.borrow_mut().as_mut() {
            *tr.tags.entry(format!("{kind}~{tag}")).or_default() += 1;
        }
    });
}

/// Record an event at the running host's current time.
pub fn record(host: &str, kind: &str, detail: impl Into<String>) {
    let t = turmoil::sim_elapsed().unwrap_or_default();
    record_at(t, host, kind, detail);
}

/// Short hex of a SHA-256 of some bytes (for datagrams in the trace).
pub fn bytes_hash(b: &[u8]) -> String {
    let d = Sha256::digest(b);
    hex::encode(&d[..8])
}

/// A `tracing_subscriber` timer that prints simulated time.
pub struct SimTimer;

impl tracing_subscriber::fmt::time::FormatTime for SimTimer {
    fn format_time(&self, w: &mut tracing_subscriber::fmt::format::Writer<'_>) -> std::fmt::Result {
        match turmoil::sim_elapsed() {
            Some(t) => write!(w, "[sim {}]", fmt_time(t)),
            None => write!(w, "[sim -]"),
        }
    }
}

/// Install logging: `RUST_LOG` filters (default `warn`), sim time on every line, to stderr.
pub fn init_logging() {
    let filter = tracing_subscriber::EnvFilter::try_from_default_env().unwrap_or_else(|_| tracing_subscriber::EnvFilter::new("warn"));
    let _ = tracing_subscriber::fmt().with_env_filter(filter).with_timer(SimTimer).with_writer(std::io::stderr).try_init();
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The hash fed in pieces is the hash of the event's whole line, as it was defined.
    #[test]
    fn the_hash_is_of_each_events_line() {
        let events = [(0u64, "phone", "udp.send", "a->b len=3 h=00"), (9, "box", "k", ""), (u64::MAX, "", "x|y", "z\n")];
        let mut tr = Trace::new(Keep::Hash);
        let mut whole = Sha256::new();
        for (t, h, k, d) in events {
            tr.record_parts(t, h, k, d.to_string());
            whole.update(format!("{t}|{h}|{k}|{d}\n").as_bytes());
        }
        assert_eq!(tr.hash(), hex::encode(whole.finalize()));
        assert_eq!((tr.len(), tr.last_time()), (3, Duration::from_nanos(u64::MAX)));
    }
}
