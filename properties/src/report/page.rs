//! The page's HTML: totals, signatures, cases per scenario, coverage with its
//! growth, determinism checks, the sessions read. Every text is escaped; the
//! one script (sorting the signatures table) is inline.

use std::fmt::Write as _;

use super::{plot, Files};
use crate::timeline::esc;
use crate::triage::{SignatureRow, Triage};

const STYLE: &str = "body{font:14px/1.4 system-ui,sans-serif;margin:24px;color:#222}h1{font-size:22px}h2{font-size:17px;margin-top:28px}\
table{border-collapse:collapse;margin:6px 0}td,th{border:1px solid #ccc;padding:3px 8px;text-align:left;vertical-align:top}\
th{background:#f1f3f5;cursor:default}td.n{text-align:right}code{background:#f6f6f6;padding:1px 3px}\
.new{background:#d9480f;color:#fff;padding:1px 6px;border-radius:3px}.known{background:#868e96;color:#fff;padding:1px 6px;border-radius:3px}\
.warn{color:#c92a2a}.totals span{margin-right:18px}.pair{display:flex;gap:32px;align-items:flex-start;flex-wrap:wrap}";

/// Sorts a table by a clicked header (numbers as numbers); marks the page ready.
const SCRIPT: &str = "(function(){var t=document.getElementById('signature-table');if(t){var hs=t.querySelectorAll('th');\
hs.forEach(function(h,i){h.addEventListener('click',function(){var b=t.tBodies[0];var rows=Array.prototype.slice.call(b.rows);\
rows.sort(function(x,y){var a=x.cells[i].textContent,c=y.cells[i].textContent,p=parseFloat(a),q=parseFloat(c);\
return isNaN(p)||isNaN(q)?a.localeCompare(c):p-q;});rows.forEach(function(r){b.appendChild(r);});});});}\
document.body.setAttribute('data-ready','1');})();";

/// The whole page.
pub fn render(t: &Triage, files: &[Files], title: &str) -> String {
    let mut s = format!("<!doctype html>\n<html lang=\"en\"><head><meta charset=\"utf-8\"><title>{}</title><style>{STYLE}</style></head><body>\n", esc(title));
    let _ = writeln!(s, "<h1 id=\"title\">{}</h1>", esc(title));
    s.push_str(&totals(t));
    s.push_str(&signatures(t, files));
    s.push_str(&scenarios(t));
    s.push_str(&coverage(t));
    s.push_str(&determinism(t));
    s.push_str(&shards(t));
    let _ = write!(s, "<script>{SCRIPT}</script>\n</body></html>\n");
    s
}

fn totals(t: &Triage) -> String {
    let new = t.signatures.iter().filter(|s| s.status == "new").count();
    format!(
        "<p id=\"totals\" class=\"totals\"><span>{} cases</span><span>{:.1} s wall</span><span>{} sessions</span><span>{} signatures ({new} new, {} known)</span><span>{} determinism checks</span></p>\n",
        t.cases,
        t.wall_s,
        t.shards.len(),
        t.signatures.len(),
        t.signatures.len() - new,
        t.determinism_checks
    )
}

/// A link if the file is there.
fn link(href: &Option<String>, text: &str) -> String {
    href.as_ref().map(|h| format!("<a href=\"{}\">{text}</a>", esc(h))).unwrap_or_default()
}

fn signature_row(r: &SignatureRow, f: &Files) -> String {
    let status = match &r.known_as {
        Some(k) => format!("<span class=\"known\">known</span> <code>{}</code>", esc(k)),
        None => "<span class=\"new\">new</span>".to_string(),
    };
    let (entry, replay) = match &r.smallest {
        Some(m) => (
            format!("{} (seed {}, {} timed faults)", esc(&m.entry), m.seed, m.faults),
            format!("<code>{}</code><br><code>{}</code>", esc(&m.replay), esc(&m.run)),
        ),
        None => ("no entry".into(), String::new()),
    };
    let pcaps: Vec<String> = f.pcaps.iter().map(|(href, name)| link(&Some(href.clone()), name)).collect();
    let pcaps = if pcaps.is_empty() { String::new() } else { format!("pcapng: {}", pcaps.join(" ")) };
    let links = [link(&f.entry, "entry"), link(&f.timeline, "timeline"), link(&f.trace, "trace"), pcaps]
        .into_iter()
        .filter(|l| !l.is_empty())
        .collect::<Vec<_>>()
        .join(" · ");
    format!(
        "<tr class=\"signature\"><td>{status}</td><td><code>{}</code></td><td><code>{}</code></td><td><code>{}</code></td><td class=\"n\">{}</td><td class=\"n\">{}</td><td>{entry}<br>{replay}</td><td class=\"links\">{links}</td></tr>\n",
        esc(&r.signature.scenario),
        esc(&r.signature.law),
        esc(&r.signature.reason.to_string()),
        r.cases,
        r.entries
    )
}

fn signatures(t: &Triage, files: &[Files]) -> String {
    let mut s = String::from("<h2>Signatures</h2>\n<section id=\"signatures\">\n");
    if t.signatures.is_empty() {
        s.push_str("<p id=\"no-failures\">No failures.</p>\n");
    } else {
        s.push_str("<table id=\"signature-table\"><thead><tr><th>status</th><th>scenario</th><th>law</th><th>reason</th><th>cases</th><th>entries</th><th>smallest entry, replay</th><th>files</th></tr></thead><tbody>\n");
        for (r, f) in t.signatures.iter().zip(files) {
            s.push_str(&signature_row(r, f));
        }
        s.push_str("</tbody></table>\n");
    }
    s.push_str("</section>\n");
    s
}

fn scenarios(t: &Triage) -> String {
    let mut s = String::from(
        "<h2>Cases per scenario</h2>\n<section id=\"scenarios\" class=\"pair\">\n<table><thead><tr><th>scenario</th><th>cases</th><th>wall s</th></tr></thead><tbody>\n",
    );
    for p in &t.per_scenario {
        let _ = writeln!(s, "<tr><td>{}</td><td class=\"n\">{}</td><td class=\"n\">{:.1}</td></tr>", esc(&p.scenario), p.cases, p.wall_s);
    }
    s.push_str("</tbody></table>\n");
    let rows: Vec<(String, f64, String)> =
        t.per_scenario.iter().map(|p| (p.scenario.clone(), p.cases as f64, format!("{} cases, {:.1} s", p.cases, p.wall_s))).collect();
    s.push_str(&plot::bars("scenario-bars", &rows));
    s.push_str("\n</section>\n");
    s
}

fn coverage(t: &Triage) -> String {
    let c = &t.coverage;
    let mut s = String::from("<h2>Coverage</h2>\n<section id=\"coverage\">\n<h3>New coverage over time</h3>\n");
    let lines: Vec<(String, f64, Vec<crate::coverage::Growth>)> =
        t.shards.iter().map(|r| (format!("{} (shard {})", r.source, r.shard), r.wall_s, r.growth.clone())).collect();
    s.push_str(&plot::growth("growth-plot", &lines));
    s.push_str("\n<div class=\"pair\"><div><h3>Fault kinds</h3>\n<table id=\"fault-kinds\"><thead><tr><th>fault kind</th><th>cases</th></tr></thead><tbody>\n");
    for (k, n) in &c.faults {
        let _ = writeln!(s, "<tr><td><code>{}</code></td><td class=\"n\">{n}</td></tr>", esc(k));
    }
    s.push_str(
        "</tbody></table></div>\n<div><h3>Decision kinds</h3>\n<table id=\"decision-kinds\"><thead><tr><th>kind</th><th>events</th><th>cases</th></tr></thead><tbody>\n",
    );
    for (k, n) in c.kinds.iter().chain(&c.narrowed) {
        let _ = writeln!(s, "<tr><td><code>{}</code></td><td class=\"n\">{}</td><td class=\"n\">{}</td></tr>", esc(k), n.events, n.cases);
    }
    s.push_str("</tbody></table></div></div>\n");
    for w in &t.warnings {
        let _ = writeln!(s, "<p class=\"warn\">{}</p>", esc(w));
    }
    s.push_str("</section>\n");
    s
}

fn determinism(t: &Triage) -> String {
    let broken: Vec<&SignatureRow> = t.signatures.iter().filter(|r| r.signature.law == "replay").collect();
    let mut s = format!(
        "<h2>Determinism</h2>\n<section id=\"determinism\">\n<p>{} cases run twice and their trace hashes compared: {}.</p>\n",
        t.determinism_checks,
        if broken.is_empty() { "every pair the same".to_string() } else { format!("{} signatures of runs that differed", broken.len()) }
    );
    for r in broken {
        let _ = writeln!(s, "<p class=\"warn\"><code>{}</code></p>", esc(&r.key));
    }
    s.push_str("</section>\n");
    s
}

fn shards(t: &Triage) -> String {
    let mut s = String::from("<h2>Sessions</h2>\n<section id=\"sessions\">\n<table><thead><tr><th>summary</th><th>shard</th><th>seeds</th><th>cases</th><th>wall s</th><th>determinism checks</th></tr></thead><tbody>\n");
    for r in &t.shards {
        let _ = writeln!(
            s,
            "<tr><td><code>{}</code></td><td>{}</td><td><code>{}</code></td><td class=\"n\">{}</td><td class=\"n\">{:.1}</td><td class=\"n\">{}</td></tr>",
            esc(&r.source),
            esc(&r.shard),
            esc(&r.seeds),
            r.cases,
            r.wall_s,
            r.determinism_checks
        );
    }
    s.push_str("</tbody></table>\n</section>\n");
    s
}
