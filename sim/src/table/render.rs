//! The tables as Markdown, JSON, CSV and SVG pictures. Pure functions of the rows.

use std::fmt::Write as _;
use std::path::{Path, PathBuf};

use super::{Row, Tables};

fn ms(v: Option<f64>) -> String {
    v.map_or("-".into(), |v| format!("{v:.0}"))
}

fn cell(r: Option<&Row>) -> String {
    let Some(r) = r else { return "-".into() };
    let mut s = format!("{} / {}", ms(r.p50_ms), ms(r.p95_ms));
    if let (Some(a), Some(n)) = (r.arrived, r.sent) {
        let _ = write!(s, " ({a} of {n} arrived)");
    }
    if let Some(m) = r.ticks_missed {
        let _ = write!(s, " ({m} ticks missed)");
    }
    if r.failed > 0 {
        let _ = write!(s, " ({} of {} unfinished)", r.failed, r.failed + r.n);
    }
    s
}

/// The (what, link) groups of a table, in order, with their rows.
fn groups<'a>(t: &'a Tables, table: &str) -> Vec<((&'a str, &'a str), Vec<&'a Row>)> {
    let mut out: Vec<((&str, &str), Vec<&Row>)> = Vec::new();
    for r in t.rows.iter().filter(|r| r.table == table) {
        let key = (r.what.as_str(), r.link);
        match out.iter_mut().find(|(k, _)| *k == key) {
            Some((_, v)) => v.push(r),
            None => out.push((key, vec![r])),
        }
    }
    out
}

fn grid(t: &Tables, table: &str, transports: &[(&str, &str)], s: &mut String) {
    let _ = write!(s, "| what | link |");
    for (_, title) in transports {
        let _ = write!(s, " {title} p50 / p95 ms |");
    }
    let _ = write!(s, "\n|---|---|");
    for _ in transports {
        s.push_str("---|");
    }
    s.push('\n');
    for ((what, link), rows) in groups(t, table) {
        let _ = write!(s, "| {what} | {link} |");
        for (name, _) in transports {
            let _ = write!(s, " {} |", cell(rows.iter().copied().find(|r| r.transport == *name)));
        }
        s.push('\n');
    }
}

/// The command that makes these tables.
pub fn command(t: &Tables) -> String {
    let mut c = "cargo sim table".to_string();
    if t.seed.0 != super::consts::SEED_DEFAULT {
        let _ = write!(c, " --seed {}", t.seed.0);
    }
    if t.samples != super::consts::SAMPLES_DEFAULT {
        let _ = write!(c, " --samples {}", t.samples);
    }
    if t.profile != super::Profile::default() {
        let _ = write!(c, " --profile {}", t.profile.name());
    }
    c
}

/// All three tables as Markdown.
pub fn markdown(t: &Tables) -> String {
    let mut s = String::new();
    let _ = writeln!(s, "Made by `{}` (seed {}, {} samples per row; simulated time).\n", command(t), t.seed.0, t.samples);
    let _ = writeln!(s, "The rig: {}.\n", t.profile.describe());
    s.push_str("**1. The system**: phone, cloud and box; 20 ms each way on both legs, the loss on each packet of both legs; the WebSocket on both legs or QUIC on both.\n\n");
    grid(t, "system", &[("websocket", "WebSocket"), ("quic", "QUIC")], &mut s);
    s.push_str("\n**2. The phone's own view**: only the phone's leg shaped (the box on QUIC, unshaped).\n\n");
    grid(t, "phone", &[("websocket", "WebSocket"), ("quic", "QUIC"), ("race", "race")], &mut s);
    s.push_str("\n**3. Keeping an idle box linked**: IP bytes on the box's leg, both directions, over one simulated day at 40 ms.\n\n");
    s.push_str("| transport | path MTU probing | IP bytes per day | KB per day |\n|---|---|---|---|\n");
    for r in t.rows.iter().filter(|r| r.table == "idle") {
        let probing = match (r.transport, r.mtu_probing) {
            ("websocket", _) => "none (TCP here never probes)",
            (_, Some(true)) => "on (quinn-proto default)",
            _ => "off",
        };
        let b = r.bytes_per_day.unwrap_or(0);
        let _ = writeln!(s, "| {} | {probing} | {b} | {:.1} |", if r.transport == "quic" { "QUIC" } else { "WebSocket" }, b as f64 / 1000.0);
    }
    s
}

/// The tables as one JSON object: the seed, the samples, the profile (its
/// name, description and each setting) and every row.
pub fn json(t: &Tables) -> String {
    let p = t.profile;
    let profile = serde_json::json!({
        "name": p.name(),
        "describe": p.describe(),
        "tcp": p.tcp(),
        "quic": format!("{:?}", p.quic()),
        "processing": p.processing(),
        "phone_leg_ms": p.phone_leg(),
    });
    let obj = serde_json::json!({ "seed": t.seed.0, "samples": t.samples, "profile": profile, "rows": t.rows });
    serde_json::to_string_pretty(&obj).expect("rows serialize")
}

fn csv_field(s: &str) -> String {
    if s.contains([',', '"', '\n']) {
        format!("\"{}\"", s.replace('"', "\"\""))
    } else {
        s.to_string()
    }
}

fn opt<T: ToString>(v: Option<T>) -> String {
    v.map_or(String::new(), |v| v.to_string())
}

/// The rows as CSV.
pub fn csv(t: &Tables) -> String {
    let mut s = "table,link,transport,what,p50_ms,p95_ms,n,failed,arrived,sent,bytes_per_day,mtu_probing,ticks_missed\n".to_string();
    for r in &t.rows {
        let _ = writeln!(
            s,
            "{},{},{},{},{},{},{},{},{},{},{},{},{}",
            r.table,
            r.link,
            r.transport,
            csv_field(&r.what),
            opt(r.p50_ms),
            opt(r.p95_ms),
            r.n,
            r.failed,
            opt(r.arrived),
            opt(r.sent),
            opt(r.bytes_per_day),
            opt(r.mtu_probing),
            opt(r.ticks_missed)
        );
    }
    s
}

/// Every sample as CSV.
pub fn samples_csv(t: &Tables) -> String {
    let mut s = "table,link,transport,what,i,ms\n".to_string();
    for r in &t.rows {
        for (i, v) in r.samples_ms.iter().enumerate() {
            let _ = writeln!(s, "{},{},{},{},{i},{v}", r.table, r.link, r.transport, csv_field(&r.what));
        }
    }
    s
}

fn slug(s: &str) -> String {
    let mut out = String::new();
    for ch in s.chars() {
        if ch.is_ascii_alphanumeric() {
            out.push(ch.to_ascii_lowercase());
        } else if !out.ends_with('-') {
            out.push('-');
        }
    }
    out.trim_matches('-').to_string()
}

const PANEL_W: f64 = 300.0;
const PANEL_H: f64 = 180.0;
const PAD: f64 = 40.0;

/// One picture: each transport's distribution (empirical CDF) side by side, on one scale.
pub fn svg(title: &str, rows: &[&Row]) -> String {
    let max = rows.iter().flat_map(|r| r.samples_ms.iter().copied()).fold(1.0f64, f64::max);
    let w = PAD + rows.len() as f64 * (PANEL_W + PAD);
    let h = PANEL_H + 2.5 * PAD;
    let mut s = format!("<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"{w:.0}\" height=\"{h:.0}\" font-family=\"sans-serif\" font-size=\"11\">\n");
    let _ = writeln!(s, "<rect width=\"100%\" height=\"100%\" fill=\"white\"/>");
    let _ = writeln!(s, "<text x=\"{PAD}\" y=\"16\" font-size=\"13\">{}</text>", xml(title));
    for (i, r) in rows.iter().enumerate() {
        let x0 = PAD + i as f64 * (PANEL_W + PAD);
        let y0 = 1.5 * PAD;
        let _ = writeln!(s, "<rect x=\"{x0:.1}\" y=\"{y0:.1}\" width=\"{PANEL_W}\" height=\"{PANEL_H}\" fill=\"none\" stroke=\"#999\"/>");
        let _ =
            writeln!(s, "<text x=\"{x0:.1}\" y=\"{:.1}\">{} (n={}): p50 {} ms, p95 {} ms</text>", y0 - 6.0, xml(r.transport), r.n, ms(r.p50_ms), ms(r.p95_ms));
        let _ = writeln!(
            s,
            "<text x=\"{x0:.1}\" y=\"{:.1}\">0</text><text x=\"{:.1}\" y=\"{:.1}\" text-anchor=\"end\">{max:.0} ms</text>",
            y0 + PANEL_H + 14.0,
            x0 + PANEL_W,
            y0 + PANEL_H + 14.0
        );
        let n = r.samples_ms.len();
        if n == 0 {
            continue;
        }
        let mut d = format!("M{x0:.1},{:.1}", y0 + PANEL_H);
        for (k, v) in r.samples_ms.iter().enumerate() {
            let x = x0 + v / max * PANEL_W;
            let y_before = y0 + PANEL_H - (k as f64 / n as f64) * PANEL_H;
            let y_after = y0 + PANEL_H - ((k + 1) as f64 / n as f64) * PANEL_H;
            let _ = write!(d, " L{x:.1},{y_before:.1} L{x:.1},{y_after:.1}");
        }
        let color = match r.transport {
            "quic" => "#1f77b4",
            "websocket" => "#d62728",
            _ => "#2ca02c",
        };
        let _ = writeln!(s, "<path d=\"{d}\" fill=\"none\" stroke=\"{color}\" stroke-width=\"1.5\"/>");
    }
    s.push_str("</svg>\n");
    s
}

fn xml(s: &str) -> String {
    s.replace('&', "&amp;").replace('<', "&lt;").replace('>', "&gt;")
}

/// Write `tables.csv`, `samples.csv` and one SVG per (table, measure, link) into `dir`.
pub fn write_out(t: &Tables, dir: &Path) -> std::io::Result<Vec<PathBuf>> {
    std::fs::create_dir_all(dir)?;
    let mut written = Vec::new();
    let mut put = |name: String, body: String| -> std::io::Result<()> {
        let p = dir.join(name);
        std::fs::write(&p, body)?;
        written.push(p);
        Ok(())
    };
    put("tables.csv".into(), csv(t))?;
    put("samples.csv".into(), samples_csv(t))?;
    for table in ["system", "phone"] {
        for ((what, link), rows) in groups(t, table) {
            let title = format!("{table}: {what}, {link}");
            put(format!("{table}-{}-{}.svg", slug(what), slug(link)), svg(&title, &rows))?;
        }
    }
    Ok(written)
}
