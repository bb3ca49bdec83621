//! The page's plots as inline SVG: bars (cases per scenario) and steps (new
//! coverage over wall time, one line a shard).

use std::fmt::Write as _;

use crate::coverage::Growth;
use crate::timeline::esc;

const BAR_PX_MAX: f64 = 300.0;
const BAR_ROW_PX: f64 = 20.0;
const LABEL_PX: f64 = 200.0;
const PLOT_W_PX: f64 = 640.0;
const PLOT_H_PX: f64 = 260.0;
const MARGIN_PX: f64 = 44.0;
const LEGEND_ROW_PX: f64 = 14.0;
/// One colour a shard, in turn.
const COLOURS: &[&str] = &["#2a6fdb", "#d9480f", "#2b8a3e", "#862e9c", "#e67700", "#0b7285", "#c2255c", "#5c940d"];

/// Horizontal bars: one row a `(label, value, note)`, scaled to the largest value.
pub fn bars(id: &str, rows: &[(String, f64, String)]) -> String {
    let max = rows.iter().map(|r| r.1).fold(0.0, f64::max).max(1e-9);
    let h = BAR_ROW_PX * rows.len() as f64 + 4.0;
    let w = LABEL_PX + BAR_PX_MAX + 160.0;
    let mut s = format!(r#"<svg id="{id}" xmlns="http://www.w3.org/2000/svg" width="{w}" height="{h}" role="img">"#);
    for (i, (label, v, note)) in rows.iter().enumerate() {
        let y = i as f64 * BAR_ROW_PX + 2.0;
        let len = (v / max * BAR_PX_MAX).max(1.0);
        let _ = write!(
            s,
            r##"<text x="{:.0}" y="{:.1}" text-anchor="end" font-size="12">{}</text><rect x="{LABEL_PX}" y="{y:.1}" width="{len:.1}" height="{:.0}" fill="#2a6fdb"><title>{}: {}</title></rect><text x="{:.1}" y="{:.1}" font-size="12">{}</text>"##,
            LABEL_PX - 6.0,
            y + 13.0,
            esc(label),
            BAR_ROW_PX - 6.0,
            esc(label),
            esc(note),
            LABEL_PX + len + 6.0,
            y + 13.0,
            esc(note)
        );
    }
    s.push_str("</svg>");
    s
}

/// The axes of the growth plot, with their largest values.
fn axes(s: &mut String, x_max: f64, y_max: usize) {
    let (x0, y0) = (MARGIN_PX, PLOT_H_PX - MARGIN_PX);
    let _ = write!(
        s,
        r##"<line x1="{x0}" y1="{y0}" x2="{:.0}" y2="{y0}" stroke="#444"/><line x1="{x0}" y1="{y0}" x2="{x0}" y2="12" stroke="#444"/><text x="{x0}" y="{:.0}" font-size="11">0</text><text x="{:.0}" y="{:.0}" font-size="11" text-anchor="end">{x_max:.1} s (wall)</text><text x="{:.0}" y="16" font-size="11" text-anchor="end">{y_max}</text><text x="{:.0}" y="10" font-size="11">fault and decision kinds reached</text>"##,
        PLOT_W_PX - 10.0,
        y0 + 14.0,
        PLOT_W_PX - 10.0,
        y0 + 14.0,
        x0 - 4.0,
        x0 + 6.0
    );
}

/// New coverage over wall time: a step line a shard (`(label, its wall
/// seconds, points)`), each drawn on to its shard's end; the labels below.
pub fn growth(id: &str, shards: &[(String, f64, Vec<Growth>)]) -> String {
    let x_max = shards.iter().flat_map(|(_, end, g)| g.iter().map(|p| p.wall_s).chain([*end])).fold(0.0, f64::max).max(1e-9);
    let y_max = shards.iter().flat_map(|(_, _, g)| g.iter().map(|p| p.keys)).max().unwrap_or(0).max(1);
    let x = |t: f64| MARGIN_PX + t / x_max * (PLOT_W_PX - MARGIN_PX - 10.0);
    let y = |k: usize| (PLOT_H_PX - MARGIN_PX) - k as f64 / y_max as f64 * (PLOT_H_PX - MARGIN_PX - 12.0);
    let height = PLOT_H_PX + LEGEND_ROW_PX * shards.len() as f64;
    let mut s = format!(r#"<svg id="{id}" xmlns="http://www.w3.org/2000/svg" width="{PLOT_W_PX}" height="{height}" role="img">"#);
    axes(&mut s, x_max, y_max);
    for (i, (label, end, points)) in shards.iter().enumerate() {
        let colour = COLOURS[i % COLOURS.len()];
        let mut d = String::new();
        let mut last = 0;
        for p in points {
            let _ = write!(d, "{}{:.1},{:.1} L{:.1},{:.1} ", if d.is_empty() { "M" } else { "L" }, x(p.wall_s), y(last), x(p.wall_s), y(p.keys));
            last = p.keys;
        }
        let _ = write!(d, "L{:.1},{:.1}", x(*end), y(last));
        let _ = write!(
            s,
            r#"<path class="growth-line" d="{d}" fill="none" stroke="{colour}" stroke-width="2"><title>{}</title></path><text x="{MARGIN_PX}" y="{:.0}" font-size="11" fill="{colour}">— {}</text>"#,
            esc(label),
            PLOT_H_PX + LEGEND_ROW_PX * i as f64,
            esc(label)
        );
    }
    s.push_str("</svg>");
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_step_line_a_shard_and_labels_escaped() {
        let g = |case, wall_s, keys| Growth { case, wall_s, keys };
        let svg = growth("g", &[("a<b".into(), 3.0, vec![g(0, 0.0, 5), g(9, 2.0, 8)]), ("c".into(), 1.0, vec![g(0, 0.5, 3)])]);
        assert_eq!(svg.matches("class=\"growth-line\"").count(), 2);
        assert!(svg.contains("a&lt;b") && !svg.contains("a<b"));
        assert!(svg.contains("3.0 s (wall)"), "the axis runs to the longest shard's end");
        let b = bars("b", &[("x".into(), 2.0, "2 cases".into()), ("y".into(), 1.0, "1 case".into())]);
        assert_eq!(b.matches("<rect").count(), 2);
    }
}
