//! A run's trace as Chrome trace events (`ftwsim run --perfetto run.json`),
//! which ui.perfetto.dev and chrome://tracing open: one process per host (the
//! timeline's lanes), complete spans (`X`) for handshakes, races and sessions,
//! the plan's outages as spans on a `faults` thread, instants (`i`) for drops,
//! refusals, NAT and path events and every other decision. Times are
//! microseconds of simulated time. Datagrams and timers are left out (the
//! pcapng has the datagrams; timers run to thousands).
//!
//! Spans of one kind that overlap on a host go on separate threads of it
//! ("quic handshake #2"), so every thread's spans nest.

use std::collections::BTreeMap;

use ftw_sim::plan::FaultPlan;
use ftw_sim::trace::Event;
use serde_json::{json, Value};

use crate::timeline;

/// A span: the event that opens it and the one that closes it, on the same host.
struct SpanDef {
    name: &'static str,
    opens: fn(&Event) -> bool,
    closes: fn(&Event) -> bool,
}

fn is(e: &Event, kind: &str, prefix: &str) -> bool {
    e.kind == kind && e.detail.starts_with(prefix)
}

const SPANS: &[SpanDef] = &[
    SpanDef { name: "quic handshake", opens: |e| e.kind == "quic.dial", closes: |e| e.kind == "quic.connected" },
    SpanDef { name: "tcp handshake", opens: |e| e.kind == "tcp.connect", closes: |e| e.kind == "tcp.connected" },
    SpanDef { name: "websocket open", opens: |e| e.kind == "ws.dial", closes: |e| e.kind == "ws.open" },
    SpanDef {
        name: "race",
        opens: |e| is(e, "phone.race", "race started"),
        closes: |e| is(e, "phone.session", "link #") || is(e, "phone.session", "race failed"),
    },
    SpanDef { name: "session", opens: |e| is(e, "phone.session", "link #"), closes: |e| is(e, "phone.session", "close #") },
];

/// Kinds left out: too many, or shown better elsewhere.
fn left_out(kind: &str) -> bool {
    matches!(kind, "timer" | "udp.send" | "udp.arrive" | "udp.release")
}

/// A closed (or, at the trace's end, unfinished) span on a host.
struct Span {
    host: String,
    name: &'static str,
    from_ns: u64,
    to_ns: u64,
    detail: String,
    finished: bool,
}

/// Pair each span's opening event with the next closing one on its host.
fn spans(events: &[Event]) -> Vec<Span> {
    let end_ns = events.iter().map(|e| e.t_ns).max().unwrap_or(0);
    let mut open: BTreeMap<(&str, usize), Vec<&Event>> = BTreeMap::new();
    let mut out = Vec::new();
    for e in events {
        for (i, def) in SPANS.iter().enumerate() {
            if (def.closes)(e) {
                let queue = open.entry((e.host.as_str(), i)).or_default();
                if !queue.is_empty() {
                    let o = queue.remove(0);
                    out.push(Span { host: e.host.clone(), name: def.name, from_ns: o.t_ns, to_ns: e.t_ns, detail: o.detail.clone(), finished: true });
                }
            }
            if (def.opens)(e) {
                open.entry((e.host.as_str(), i)).or_default().push(e);
            }
        }
    }
    for ((host, i), queue) in open {
        for o in queue {
            out.push(Span { host: host.to_string(), name: SPANS[i].name, from_ns: o.t_ns, to_ns: end_ns, detail: o.detail.clone(), finished: false });
        }
    }
    out.sort_by_key(|s| (s.from_ns, s.to_ns));
    out
}

fn us(ns: u64) -> f64 {
    ns as f64 / 1000.0
}

/// The threads of one host: a name each, and the spans' lanes (when each ends).
#[derive(Default)]
struct Threads {
    names: Vec<String>,
    busy_until: BTreeMap<String, Vec<(usize, u64)>>,
}

fn thread_named(names: &mut Vec<String>, name: &str) -> usize {
    match names.iter().position(|n| n == name) {
        Some(i) => i + 1,
        None => {
            names.push(name.to_string());
            names.len()
        }
    }
}

impl Threads {
    fn named(&mut self, name: &str) -> usize {
        thread_named(&mut self.names, name)
    }

    /// A thread for a span of `kind` from `from` to `to` that no other span on it overlaps.
    fn for_span(&mut self, kind: &str, from: u64, to: u64) -> usize {
        let lanes = self.busy_until.entry(kind.to_string()).or_default();
        if let Some(lane) = lanes.iter_mut().find(|(_, until)| *until <= from) {
            lane.1 = to;
            return lane.0;
        }
        let name = if lanes.is_empty() { kind.to_string() } else { format!("{kind} #{}", lanes.len() + 1) };
        let tid = thread_named(&mut self.names, &name);
        lanes.push((tid, to));
        tid
    }
}

/// The Chrome trace event JSON of a run.
pub fn trace_events(events: &[Event], plan: Option<&FaultPlan>, about: Value) -> Value {
    let hosts = timeline::lanes(events);
    let pid = |h: &str| hosts.iter().position(|x| x == h).map(|i| i + 1).unwrap_or(0);
    let mut threads: BTreeMap<String, Threads> = BTreeMap::new();
    let mut out = Vec::new();
    for s in spans(events) {
        let tid = threads.entry(s.host.clone()).or_default().for_span(s.name, s.from_ns, s.to_ns);
        let args = json!({ "detail": s.detail, "finished": s.finished });
        out.push(json!({ "ph": "X", "name": s.name, "cat": "span", "pid": pid(&s.host), "tid": tid, "ts": us(s.from_ns), "dur": us(s.to_ns - s.from_ns), "args": args }));
    }
    for (host, at_ms, for_ms, what) in plan.map(timeline::outages).unwrap_or_default() {
        let tid = threads.entry(host.to_string()).or_default().for_span("faults", at_ms * 1_000_000, (at_ms + for_ms) * 1_000_000);
        out.push(json!({ "ph": "X", "name": what, "cat": "fault", "pid": pid(host), "tid": tid, "ts": us(at_ms * 1_000_000), "dur": us(for_ms * 1_000_000) }));
    }
    for e in events.iter().filter(|e| !left_out(&e.kind)) {
        let tid = threads.entry(e.host.clone()).or_default().named("events");
        let cat = if e.kind.ends_with(".drop") || e.kind.ends_with(".refused") { "loss" } else { "event" };
        out.push(json!({ "ph": "i", "s": "t", "name": e.kind, "cat": cat, "pid": pid(&e.host), "tid": tid, "ts": us(e.t_ns), "args": { "detail": e.detail } }));
    }
    out.extend(metadata(&hosts, &threads));
    json!({ "traceEvents": out, "displayTimeUnit": "ms", "otherData": about })
}

/// Names for the processes (hosts) and their threads.
fn metadata(hosts: &[String], threads: &BTreeMap<String, Threads>) -> Vec<Value> {
    let mut out = Vec::new();
    for (i, h) in hosts.iter().enumerate() {
        out.push(json!({ "ph": "M", "name": "process_name", "pid": i + 1, "tid": 0, "ts": 0, "args": { "name": h } }));
        for (t, name) in threads.get(h).map(|t| t.names.as_slice()).unwrap_or_default().iter().enumerate() {
            out.push(json!({ "ph": "M", "name": "thread_name", "pid": i + 1, "tid": t + 1, "ts": 0, "args": { "name": name } }));
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ev(t_ms: u64, host: &str, kind: &str, detail: &str) -> Event {
        Event { t_ns: t_ms * 1_000_000, host: host.into(), kind: kind.into(), detail: detail.into() }
    }

    #[test]
    fn overlapping_handshakes_take_two_threads() {
        let events = [
            ev(0, "box", "quic.dial", "a"),
            ev(1, "box", "quic.dial", "b"),
            ev(5, "box", "quic.connected", ""),
            ev(6, "box", "quic.connected", ""),
            ev(7, "box", "udp.drop", "x"),
        ];
        let v = trace_events(&events, None, json!({}));
        let spans: Vec<&Value> = v["traceEvents"].as_array().unwrap().iter().filter(|e| e["ph"] == "X").collect();
        assert_eq!(spans.len(), 2);
        assert_ne!(spans[0]["tid"], spans[1]["tid"], "overlapping spans never share a thread");
        assert_eq!(spans[0]["dur"], 5000.0);
        let drop = v["traceEvents"].as_array().unwrap().iter().find(|e| e["name"] == "udp.drop").unwrap();
        assert_eq!(drop["cat"], "loss");
    }
}
