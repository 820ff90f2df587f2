//! The inline SVG bars: one `node-bar` group per node (a light bar for its use before the
//! simulation above a dark one for after, per resource) and one `zone-bar` group per zone (the
//! range of its nodes' use from least to most used, the median marked). Each group carries a
//! `<title>` with the figures, which browsers show on hover.
//!
//! Every function writes a few hundred bytes to the writer it is given; nothing here holds more
//! than one row.

use super::escape::Esc;
use super::nodes::{NodeRow, Resource, Usage, Zone};
use crate::core::texts::what_if_html as texts;
use std::fmt::{self, Write};

/// Width of the name column.
const NAME_W: usize = 230;
/// Width of one resource's column, and of its bar (100 px = 100%).
const COL_W: usize = 150;
const BAR_W: i64 = 100;
/// Height of one row.
pub const ROW_H: usize = 20;
/// Width of the column of pods placed.
const PLACED_W: usize = 60;
/// Longest name drawn in full (the tooltip always has the whole name).
const NAME_CHARS: usize = 30;

/// Width of an SVG with `resources` columns.
pub fn width(resources: &[Resource]) -> usize {
    NAME_W + resources.len() * COL_W + PLACED_W
}

fn column(i: usize) -> usize {
    NAME_W + i * COL_W
}

/// A bar's length for a percentage (clamped: an overcommitted node fills its bar).
fn len(pct: i64) -> i64 {
    pct.clamp(0, BAR_W)
}

/// `name` cut to what fits the name column.
fn short(name: &str) -> std::borrow::Cow<'_, str> {
    match name.char_indices().nth(NAME_CHARS) {
        Some((at, _)) => format!("{}…", &name[..at]).into(),
        None => name.into(),
    }
}

/// The row of column names at `y`.
pub fn header(w: &mut dyn Write, resources: &[Resource], y: usize) -> fmt::Result {
    write!(w, r#"<g class="head" transform="translate(0,{y})">"#)?;
    for (i, r) in resources.iter().enumerate() {
        write!(w, r#"<text x="{}" y="14">{}</text>"#, column(i), Esc(r.label()))?;
    }
    w.write_str("</g>")
}

/// The tooltip of a node: every resource before → after, and the pods placed.
fn node_title(w: &mut dyn Write, row: &NodeRow, zone: &str, resources: &[Resource]) -> fmt::Result {
    write!(w, "<title>{} ({})", Esc(&row.name), Esc(zone))?;
    let side = |u: &Usage, r: Resource| {
        let a = u.get(r);
        (r.format(a.used), r.format(a.total), a.percent())
    };
    for r in resources {
        let (b, a) = (side(&row.before, *r), side(&row.after, *r));
        let text = texts::use_change(r.label(), (b.0.as_str(), b.1.as_str(), b.2), (a.0.as_str(), a.1.as_str(), a.2));
        write!(w, "\n{}", Esc(&text))?;
    }
    if row.placed > 0 {
        write!(w, "\n{}", Esc(&texts::placed_here(row.placed)))?;
    }
    w.write_str("</title>")
}

/// One node's row at `y`: a `node-bar` group with its tooltip, name, and per resource a track,
/// the before bar, the after bar and the after percentage.
pub fn node_bar(w: &mut dyn Write, row: &NodeRow, zone: &str, resources: &[Resource], y: usize) -> fmt::Result {
    write!(w, r#"<g class="node-bar" data-node="{}" transform="translate(0,{y})">"#, Esc(&row.name))?;
    node_title(w, row, zone, resources)?;
    write!(w, r#"<text x="0" y="14">{}</text>"#, Esc(&short(&row.name)))?;
    for (i, r) in resources.iter().enumerate() {
        let x = column(i);
        let (before, after) = (row.before.get(*r).percent(), row.after.get(*r).percent());
        let full = if after >= 90 { " full" } else { "" };
        write!(
            w,
            r#"<rect class="track" x="{x}" y="2" width="{BAR_W}" height="16"/><rect class="before" x="{x}" y="3" width="{}" height="6"/><rect class="after{full}" x="{x}" y="11" width="{}" height="6"/><text class="pct" x="{}" y="14">{after}%</text>"#,
            len(before),
            len(after),
            x + BAR_W as usize + 4,
        )?;
    }
    if row.placed > 0 {
        write!(
            w,
            r#"<text class="placed" x="{}" y="14">{}</text>"#,
            column(resources.len()),
            Esc(&texts::placed_here(row.placed))
        )?;
    }
    w.write_str("</g>")
}

/// One zone's row: a `zone-bar` group with its tooltip, headline, and per resource its nodes'
/// use before (light) and after (dark) — a bar to the median node's, a whisker from the least
/// to the most used node's — and the zone's total use after.
pub fn zone_bar(w: &mut dyn Write, zone: &Zone<'_>, resources: &[Resource]) -> fmt::Result {
    let headline = texts::zone(zone.label(), zone.nodes.len());
    write!(w, r#"<g class="zone-bar"><title>{}"#, Esc(&headline))?;
    for r in resources {
        for (after, phase) in [(false, texts::BEFORE), (true, texts::AFTER)] {
            let s = zone.spread(*r, after);
            write!(w, "\n{}", Esc(&texts::zone_use(r.label(), phase, s.min, s.median, s.max)))?;
        }
    }
    if zone.placed() > 0 {
        write!(w, "\n{}", Esc(&texts::placed_here(zone.placed())))?;
    }
    write!(w, r#"</title><text x="0" y="14">{}</text>"#, Esc(&short(&headline)))?;
    for (i, r) in resources.iter().enumerate() {
        let x = column(i) as i64;
        write!(w, r#"<rect class="track" x="{x}" y="2" width="{BAR_W}" height="16"/>"#)?;
        // A bar up to the median node's use, and a whisker from the least to the most used node.
        for (after, y, class) in [(false, 3, "before"), (true, 11, "after")] {
            let s = zone.spread(*r, after);
            let (from, to, mid) = (len(s.min), len(s.max), len(s.median));
            write!(
                w,
                r#"<rect class="{class}" x="{x}" y="{y}" width="{mid}" height="6"/><rect class="range" x="{}" y="{}" width="{}" height="2"/><rect class="range" x="{}" y="{}" width="1" height="8"/><rect class="range" x="{}" y="{}" width="1" height="8"/>"#,
                x + from,
                y + 2,
                (to - from).max(1),
                x + from.min(BAR_W - 1),
                y - 1,
                x + to.min(BAR_W - 1),
                y - 1,
            )?;
        }
        let total = zone.total(*r, true).percent();
        write!(w, r#"<text class="pct" x="{}" y="14">{total}%</text>"#, x + BAR_W + 4)?;
    }
    if zone.placed() > 0 {
        write!(
            w,
            r#"<text class="placed" x="{}" y="14">{}</text>"#,
            column(resources.len()),
            Esc(&texts::placed_here(zone.placed()))
        )?;
    }
    w.write_str("</g>")
}
