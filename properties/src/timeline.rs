//! A run as a picture: hosts as lanes left to right, simulated time down the
//! page, datagrams as arrows (a `udp.send` joined to each `udp.arrive` with the
//! same datagram hash), drops and refusals as crosses, every other event as a
//! labelled marker on its host's lane, the plan's outages as shaded bands.
//!
//! Idle gaps are compressed: a gap costs at most [`GAP_PX_MAX`] pixels and is
//! labelled with its true length, so a simulated day stays scrollable.
//! `.html` files get a page with a legend around an inline SVG; any other name
//! gets the bare SVG.

use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::time::Duration;

use ftw_sim::plan::FaultPlan;
use ftw_sim::trace::{fmt_time, Event};

/// Lane width.
const LANE_PX: f64 = 190.0;
const LEFT_PX: f64 = 110.0;
const TOP_PX: f64 = 60.0;
/// Pixels per simulated millisecond before compression.
const PX_PER_MS: f64 = 0.6;
/// The most a gap between two instants costs.
const GAP_PX_MAX: f64 = 36.0;
/// Height of one labelled marker.
const LABEL_PX: f64 = 13.0;
const LABEL_CHARS_MAX: usize = 48;

/// What the picture is of (for its title).
#[derive(Clone, Debug, Default)]
pub struct Title {
    pub scenario: String,
    pub seed: String,
    pub verdict: String,
    pub hash: String,
}

pub(crate) fn esc(s: &str) -> String {
    let mut o = String::with_capacity(s.len());
    for c in s.chars() {
        match c {
            '&' => o.push_str("&amp;"),
            '<' => o.push_str("&lt;"),
            '>' => o.push_str("&gt;"),
            '"' => o.push_str("&quot;"),
            '\'' => o.push_str("&#39;"),
            c if (c as u32) < 0x20 && c != '\n' && c != '\t' => o.push(' '),
            c => o.push(c),
        }
    }
    o
}

fn short(s: &str) -> String {
    if s.chars().count() <= LABEL_CHARS_MAX {
        s.to_string()
    } else {
        let mut t: String = s.chars().take(LABEL_CHARS_MAX - 1).collect();
        t.push('…');
        t
    }
}

/// The datagram hash in a udp.* detail (`h=...`).
fn datagram_hash(detail: &str) -> Option<&str> {
    detail.split_whitespace().find_map(|w| w.strip_prefix("h="))
}

/// Whether a kind is drawn as a labelled marker (timers are small ticks: there
/// are thousands of them in a long run).
fn labelled(kind: &str) -> bool {
    !kind.starts_with("udp.") && kind != "timer"
}

/// Colour of a host's messages.
fn colour(i: usize) -> &'static str {
    const C: &[&str] = &["#1f77b4", "#2ca02c", "#9467bd", "#8c564b", "#e377c2", "#17becf", "#bcbd22", "#7f7f7f"];
    C[i % C.len()]
}

/// The hosts of a trace in order of first appearance: the picture's lanes,
/// and the Perfetto trace's processes.
pub fn lanes(events: &[Event]) -> Vec<String> {
    let mut lanes: Vec<String> = Vec::new();
    for e in events {
        if !lanes.contains(&e.host) {
            lanes.push(e.host.clone());
        }
    }
    lanes
}

/// The plan's outages: (host, start ms, length ms, what), as the picture shades them.
pub fn outages(plan: &FaultPlan) -> Vec<(&'static str, u64, u64, String)> {
    let mut out = Vec::new();
    for f in &plan.faults {
        let Some((_, what)) = f.fault.def().outage() else { continue };
        out.push((f.fault.host().name(), f.at_ms, f.fault.def().lasts_ms(), what.to_string()));
    }
    out
}

/// Where everything goes: the lanes (hosts), the y of each instant of the trace
/// (idle gaps compressed), the compressed gaps, and the picture's size.
struct Layout {
    lanes: Vec<String>,
    y_of: BTreeMap<u64, f64>,
    /// (y from, y to, true length) of each compressed gap.
    gaps: Vec<(f64, f64, Duration)>,
    height: f64,
    width: f64,
    end_t: u64,
}

impl Layout {
    fn lane_of(&self, h: &str) -> Option<usize> {
        self.lanes.iter().position(|l| l == h)
    }

    /// The row at or after `t_ns` (outage edges need not be instants of the trace).
    fn y_at(&self, t_ns: u64) -> f64 {
        match self.y_of.range(t_ns..).next() {
            Some((_, y)) => *y,
            None => self.height - 30.0,
        }
    }
}

fn x(i: usize) -> f64 {
    LEFT_PX + LANE_PX * (i as f64 + 0.5)
}

/// Lay the events out: one row per distinct instant, as tall as its labelled
/// markers need; gaps longer than `GAP_PX_MAX` compressed.
fn layout(events: &[Event], order: &[usize]) -> Layout {
    let lanes = lanes(events);
    let lane_of = |h: &str| lanes.iter().position(|l| l == h);
    let mut instants: Vec<u64> = order.iter().map(|&i| events[i].t_ns).collect();
    instants.dedup();
    let mut labels_at: BTreeMap<(u64, usize), usize> = BTreeMap::new();
    for e in events {
        if labelled(&e.kind) {
            if let Some(l) = lane_of(&e.host) {
                *labels_at.entry((e.t_ns, l)).or_default() += 1;
            }
        }
    }
    let mut rows_needed: BTreeMap<u64, usize> = BTreeMap::new();
    for ((t, _), n) in &labels_at {
        let r = rows_needed.entry(*t).or_default();
        *r = (*r).max(*n);
    }
    let mut y_of: BTreeMap<u64, f64> = BTreeMap::new();
    let mut gaps: Vec<(f64, f64, Duration)> = Vec::new();
    let mut y = TOP_PX + 20.0;
    let mut prev: Option<(u64, f64)> = None; // (t, height of that row)
    for &t in &instants {
        if let Some((pt, ph)) = prev {
            let gap_ms = (t - pt) as f64 / 1e6;
            let want = gap_ms * PX_PER_MS;
            let dy = want.clamp(2.0, GAP_PX_MAX);
            let from = y + ph;
            y = from + dy;
            if want > GAP_PX_MAX {
                gaps.push((from, y, Duration::from_nanos(t - pt)));
            }
        }
        y_of.insert(t, y);
        let h = rows_needed.get(&t).copied().unwrap_or(0) as f64 * LABEL_PX;
        prev = Some((t, h));
    }
    let height = y + prev.map_or(0.0, |p| p.1) + 40.0;
    let width = LEFT_PX + LANE_PX * lanes.len().max(1) as f64 + 20.0;
    let end_t = instants.last().copied().unwrap_or(0);
    Layout { lanes, y_of, gaps, height, width, end_t }
}

/// Render the picture as SVG.
pub fn svg(events: &[Event], plan: Option<&FaultPlan>, title: &Title) -> String {
    // Order by time (arrivals are recorded at send time, stamped later).
    let mut order: Vec<usize> = (0..events.len()).collect();
    order.sort_by_key(|&i| (events[i].t_ns, i));
    let lay = layout(events, &order);
    let mut s = String::new();
    draw_frame(&mut s, &lay, events.len(), title);
    draw_outages(&mut s, &lay, plan);
    draw_axis(&mut s, &lay);
    draw_messages(&mut s, &lay, events);
    // Arrow heads, one per sender colour.
    s.push_str("<defs>");
    for i in 0..lay.lanes.len() {
        let _ = write!(
            s,
            r#"<marker id="a{i}" viewBox="0 0 10 10" refX="10" refY="5" markerWidth="6" markerHeight="6" orient="auto-start-reverse"><path d="M0 0L10 5L0 10z" fill="{}"/></marker>"#,
            colour(i)
        );
    }
    s.push_str("</defs>\n");
    draw_markers(&mut s, &lay, events, &order);
    s.push_str("</svg>\n");
    s
}

/// The SVG's head, style and title, the compressed gaps' bands and the lanes.
fn draw_frame(s: &mut String, lay: &Layout, n_events: usize, title: &Title) {
    let (width, height) = (lay.width, lay.height);
    let _ = writeln!(
        s,
        r#"<svg xmlns="http://www.w3.org/2000/svg" width="{width:.0}" height="{height:.0}" viewBox="0 0 {width:.0} {height:.0}" font-family="monospace" font-size="10">"#
    );
    let _ = writeln!(
        s,
        r#"<style>.lane{{stroke:#ccc;stroke-width:1}} .msg{{stroke-width:1;fill:none;opacity:.75}} .drop{{stroke:#d62728;stroke-width:2}} .refused{{stroke:#ff7f0e;stroke-width:2}} .ev{{fill:#333}} .fault{{fill:#d62728}} .gap{{fill:#f4f4f4}} .outage{{fill:#d62728;opacity:.12}} text.t{{fill:#666}}</style>"#
    );
    let _ = writeln!(
        s,
        r#"<text x="8" y="16" font-size="12" font-weight="bold">{} seed {}: {}</text><text x="8" y="30" class="t">trace {} · {} events · {} simulated · idle gaps over {:.0} ms compressed</text>"#,
        esc(&title.scenario),
        esc(&title.seed),
        esc(&title.verdict),
        esc(&title.hash),
        n_events,
        fmt_time(Duration::from_nanos(lay.end_t)),
        GAP_PX_MAX / PX_PER_MS
    );
    // Compressed gaps as bands with their true length.
    for (a, b, d) in &lay.gaps {
        let _ = writeln!(
            s,
            r#"<rect class="gap" x="0" y="{a:.1}" width="{width:.0}" height="{:.1}"/><text x="{:.0}" y="{:.1}" class="t">⋯ {} idle ⋯</text>"#,
            b - a,
            width / 2.0 - 40.0,
            (a + b) / 2.0 + 3.0,
            fmt_time(*d)
        );
    }
    for (i, h) in lay.lanes.iter().enumerate() {
        let _ = writeln!(
            s,
            r#"<line class="lane" x1="{0:.1}" y1="{1:.1}" x2="{0:.1}" y2="{2:.1}"/><text x="{0:.1}" y="{3:.1}" text-anchor="middle" font-size="12" font-weight="bold">{4}</text>"#,
            x(i),
            TOP_PX,
            height - 20.0,
            TOP_PX - 6.0,
            esc(h)
        );
    }
}

/// The plan's outages, shaded on their host's lane.
fn draw_outages(s: &mut String, lay: &Layout, plan: Option<&FaultPlan>) {
    for (host, at_ms, for_ms, what) in plan.map(outages).unwrap_or_default() {
        if let Some(l) = lay.lane_of(host) {
            let (a, b) = (lay.y_at(at_ms * 1_000_000), lay.y_at((at_ms + for_ms) * 1_000_000));
            let _ = writeln!(
                s,
                r#"<rect class="outage" x="{:.1}" y="{a:.1}" width="{:.1}" height="{:.1}"><title>{what} on {} from {at_ms} ms for {for_ms} ms</title></rect>"#,
                x(l) - LANE_PX / 2.0 + 4.0,
                LANE_PX - 8.0,
                (b - a).max(2.0),
                esc(host),
            );
        }
    }
}

/// Time axis: a tick at each row that has room.
fn draw_axis(s: &mut String, lay: &Layout) {
    let mut last_label_y = f64::NEG_INFINITY;
    for (&t, &ty) in &lay.y_of {
        if ty - last_label_y >= 14.0 {
            last_label_y = ty;
            let _ = writeln!(s, r#"<text x="4" y="{:.1}" class="t">{}</text>"#, ty + 3.0, fmt_time(Duration::from_nanos(t)));
        }
    }
}

/// Messages: each arrival joined to the latest send of the same datagram before it in the trace.
fn draw_messages(s: &mut String, lay: &Layout, events: &[Event]) {
    let mut last_send: BTreeMap<&str, usize> = BTreeMap::new();
    for (i, e) in events.iter().enumerate() {
        match e.kind.as_str() {
            "udp.send" => {
                if let Some(h) = datagram_hash(&e.detail) {
                    last_send.insert(h, i);
                }
            }
            "udp.arrive" => {
                let Some(&si) = datagram_hash(&e.detail).and_then(|h| last_send.get(h)) else { continue };
                let snd = &events[si];
                let (Some(a), Some(b)) = (lay.lane_of(&snd.host), lay.lane_of(&e.host)) else { continue };
                let (y1, y2) = (lay.y_of[&snd.t_ns], lay.y_of[&e.t_ns]);
                let _ = writeln!(
                    s,
                    r#"<line class="msg" stroke="{c}" x1="{:.1}" y1="{y1:.1}" x2="{:.1}" y2="{y2:.1}" marker-end="url(#a{a})"><title>{} → {}  {}  ({} → {})</title></line>"#,
                    x(a),
                    x(b),
                    esc(&snd.host),
                    esc(&e.host),
                    esc(&snd.detail),
                    fmt_time(Duration::from_nanos(snd.t_ns)),
                    fmt_time(Duration::from_nanos(e.t_ns)),
                    c = colour(a)
                );
            }
            _ => {}
        }
    }
}

/// Markers: drops, refusals, timers, and labelled events.
fn draw_markers(s: &mut String, lay: &Layout, events: &[Event], order: &[usize]) {
    let mut used: BTreeMap<(u64, usize), usize> = BTreeMap::new();
    for &i in order {
        let e = &events[i];
        let Some(l) = lay.lane_of(&e.host) else { continue };
        let (ex, ey) = (x(l), lay.y_of[&e.t_ns]);
        let tip = format!("{} {} {}: {}", fmt_time(Duration::from_nanos(e.t_ns)), e.host, e.kind, e.detail);
        match e.kind.as_str() {
            "udp.drop" | "udp.refused" => {
                let class = if e.kind == "udp.drop" { "drop" } else { "refused" };
                let _ = writeln!(
                    s,
                    r#"<g class="{class}"><title>{}</title><line x1="{:.1}" y1="{:.1}" x2="{:.1}" y2="{:.1}"/><line x1="{:.1}" y1="{:.1}" x2="{:.1}" y2="{:.1}"/></g>"#,
                    esc(&tip),
                    ex - 4.0,
                    ey - 4.0,
                    ex + 4.0,
                    ey + 4.0,
                    ex - 4.0,
                    ey + 4.0,
                    ex + 4.0,
                    ey - 4.0
                );
            }
            "udp.send" | "udp.arrive" => {}
            "timer" => {
                let _ =
                    writeln!(s, r##"<rect x="{:.1}" y="{:.1}" width="3" height="1.5" fill="#aaa"><title>{}</title></rect>"##, ex - 1.5, ey - 0.75, esc(&tip));
            }
            _ => {
                let slot = used.entry((e.t_ns, l)).or_default();
                let ly = ey + *slot as f64 * LABEL_PX;
                *slot += 1;
                let fault = matches!(e.kind.as_str(), "nat.rebind" | "net.move") || e.kind.ends_with(".lost") || e.kind.ends_with(".refused");
                let class = if fault { "fault" } else { "ev" };
                let _ = writeln!(
                    s,
                    r#"<g><title>{}</title><circle class="{class}" cx="{ex:.1}" cy="{ly:.1}" r="3"/><text x="{:.1}" y="{:.1}" class="{class}">{}</text></g>"#,
                    esc(&tip),
                    ex + 5.0,
                    ly + 3.5,
                    esc(&short(&format!("{} {}", e.kind, e.detail)))
                );
            }
        }
    }
}

/// A self-contained HTML page around the SVG.
pub fn html(events: &[Event], plan: Option<&FaultPlan>, title: &Title) -> String {
    let body = svg(events, plan, title);
    format!(
        "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\"><title>{} seed {} timeline</title>\n<style>body{{font-family:sans-serif;margin:12px}} .legend span{{margin-right:18px}}</style></head>\n<body><h1>{} seed {}: {}</h1>\n<p class=\"legend\"><span>lanes: hosts</span><span>down: simulated time (idle gaps compressed, true length in the grey bands)</span><span>arrows: datagrams (send → arrive, coloured by sender)</span><span style=\"color:#d62728\">× dropped</span><span style=\"color:#ff7f0e\">× refused</span><span>● decisions and events (hover for the detail)</span><span style=\"color:#d62728\">● faults</span></p>\n{}</body></html>\n",
        esc(&title.scenario),
        esc(&title.seed),
        esc(&title.scenario),
        esc(&title.seed),
        esc(&title.verdict),
        body
    )
}

/// SVG or HTML by the file name's extension.
pub fn render_for(path: &std::path::Path, events: &[Event], plan: Option<&FaultPlan>, title: &Title) -> String {
    let is_html = path.extension().is_some_and(|x| x.eq_ignore_ascii_case("html") || x.eq_ignore_ascii_case("htm"));
    if is_html {
        html(events, plan, title)
    } else {
        svg(events, plan, title)
    }
}

/// Read a trace saved with `--trace` (JSON lines).
pub fn read_jsonl(text: &str) -> Result<Vec<Event>, String> {
    text.lines()
        .enumerate()
        .filter(|(_, l)| !l.trim().is_empty())
        .map(|(i, l)| serde_json::from_str::<Event>(l).map_err(|e| format!("line {}: {e}", i + 1)))
        .collect()
}
