//! The frame of the page — head, style, sections, end — and the nodes section.
//!
//! The page is one self-contained file: inline CSS, inline SVG, no script, nothing fetched. The
//! sections are written in the order the facts become known (pods as they are decided, then the
//! summary and the nodes once the run ends) and shown in reading order by CSS (`order`): summary,
//! nodes, pods.

use super::bars;
use super::escape::Esc;
use super::nodes::{has_devices, zones, NodeRow, Resource};
use crate::core::texts::what_if_html as texts;
use std::fmt;

/// Clusters up to this many nodes show every zone opened.
const OPEN_ZONES_UP_TO: usize = 100;

const STYLE: &str = "\
body{font:14px/1.4 system-ui,sans-serif;margin:1.5em;color:#1d2433;background:#fff}\
main{display:flex;flex-direction:column;gap:1em}\
section.summary{order:1}section.nodes{order:2}section.pods{order:3}\
h1{font-size:1.4em;margin:0 0 .2em}h2{font-size:1.15em;margin:.6em 0 .3em}h3{font-size:1em;margin:.5em 0 .2em}\
.source,.legend,.meta,.more{color:#5a6375}\
table{border-collapse:collapse}td,th{padding:.1em .6em;text-align:left;border-bottom:1px solid #e3e6ec}\
table.scores td+td{text-align:right}tr.chosen{font-weight:600;background:#eef5ff}\
caption{text-align:left;color:#5a6375;padding:.2em 0}\
details{margin:.15em 0}summary{cursor:pointer}\
details.zone>summary{list-style-position:outside}details.zone>summary svg{vertical-align:middle}\
details.pod .body{margin:.3em 0 .6em 1.4em}\
details.pod.unplaced .to{color:#b3261e;font-weight:600}details.pod.placed .to{color:#1b6e3a;font-weight:600}\
details.pod.skipped .to{color:#5a6375}\
ul{margin:.2em 0;padding-left:1.2em}.reasons li{color:#7a2b12}\
svg text{font:12px system-ui,sans-serif;fill:#1d2433}svg .head text{font-weight:600}\
svg .track{fill:#f0f2f6}svg .before{fill:#9ec5f2}svg .after{fill:#1f5fae}svg .after.full{fill:#c2410c}\
svg .range{fill:#111}svg .pct{fill:#5a6375}svg .placed{fill:#1b6e3a;font-weight:600}\
g.node-bar:hover .track{fill:#e1e6ef}\
";

/// The page up to the pods section's first decision.
pub fn head(title: &str, source: &str) -> String {
    format!(
        "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\"><meta name=\"viewport\" content=\"width=device-width\"><title>{t}</title><style>{STYLE}</style></head>\n<body><main>\n<header><h1>{t}</h1><p class=\"source\">{s}</p></header>\n",
        t = Esc(title),
        s = Esc(source)
    )
}

/// The end of the page.
pub const FOOT: &str = "</main></body></html>\n";

/// Opens the section of the pending pods.
pub fn pods_section_start() -> String {
    format!("<section class=\"pods\"><h2>{}</h2>\n", Esc(texts::PODS_HEADING))
}

/// Closes the section of the pending pods.
pub const SECTION_END: &str = "</section>\n";

/// Opens the summary section.
pub fn summary_section_start() -> String {
    format!("<section class=\"summary\"><h2>{}</h2>", Esc(texts::SUMMARY_HEADING))
}

/// The nodes by zone: per zone a `<details>` whose summary is the zone's bar and whose body is
/// one `node-bar` per node. Written zone by zone and node by node to the formatter.
pub struct NodesSection<'a> {
    pub rows: &'a [NodeRow],
}

impl NodesSection<'_> {
    fn resources(&self) -> Vec<Resource> {
        let devices = has_devices(self.rows);
        Resource::ALL.into_iter().filter(|r| *r != Resource::Devices || devices).collect()
    }
}

impl fmt::Display for NodesSection<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let resources = self.resources();
        let width = bars::width(&resources);
        writeln!(
            f,
            "<section class=\"nodes\"><h2>{}</h2><p class=\"legend\">{}</p><p class=\"legend\">{}</p>",
            Esc(texts::NODES_HEADING),
            Esc(texts::ZONES_LEGEND),
            Esc(texts::NODES_LEGEND)
        )?;
        write!(f, r#"<svg class="columns" width="{width}" height="{}">"#, bars::ROW_H)?;
        bars::header(f, &resources, 0)?;
        f.write_str("</svg>\n")?;
        let open = if self.rows.len() <= OPEN_ZONES_UP_TO { " open" } else { "" };
        for zone in zones(self.rows) {
            write!(
                f,
                r#"<details class="zone" data-zone="{}"{open}><summary><svg width="{width}" height="{}">"#,
                Esc(zone.label()),
                bars::ROW_H
            )?;
            bars::zone_bar(f, &zone, &resources)?;
            let height = bars::ROW_H * zone.nodes.len();
            write!(f, r#"</svg></summary><svg class="nodes" width="{width}" height="{height}">"#)?;
            f.write_str("\n")?;
            for (i, row) in zone.nodes.iter().enumerate() {
                bars::node_bar(f, row, zone.label(), &resources, i * bars::ROW_H)?;
                f.write_str("\n")?;
            }
            f.write_str("</svg></details>\n")?;
        }
        f.write_str(SECTION_END)
    }
}
