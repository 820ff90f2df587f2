//! `simulate --output html` and `capacity --output html`: the what-if as one self-contained page
//! (inline CSS and SVG, no script, nothing fetched) — the nodes grouped by zone with cpu, memory,
//! pods and devices before and after, where each pending pod went, why the others did not fit,
//! and each pod's per-plugin scores on hover or click.
//!
//! Pure: the pieces are strings or [`std::fmt::Display`] values that write themselves row by row,
//! so the shell streams them to stdout as the other outputs are streamed — a pod's block as its
//! decision is made, the nodes zone by zone and node by node at the end — and never holds the
//! page. At 5,000 nodes the page stays readable: one bar per zone (its nodes' least, median and
//! most use) opens onto one bar per node.
//!
//! - [`escape`]: every name, reason and message is escaped.
//! - [`nodes`]: the numbers per node and per zone.
//! - [`bars`]: the SVG of one node's or one zone's row.
//! - [`pods`]: the block of one decision and the summary.
//! - [`page`]: head, style, sections, and the nodes section.

pub mod bars;
pub mod escape;
pub mod nodes;
pub mod page;
pub mod pods;

#[cfg(test)]
mod tests;

use super::capacity::CapacityReport;
use super::report::{PodDecision, Summary};
use crate::core::cache::Cache;
use crate::core::texts::what_if_html as texts;
use escape::Esc;
use nodes::{NodeRow, Snapshot};
use std::collections::HashMap;
use std::fmt;

/// `simulate`'s page, written as the simulation runs: [`SimulatePage::begin`] before the first
/// decision, [`SimulatePage::pod`] for each, [`SimulatePage::end`] after the last.
#[derive(Debug, Default)]
pub struct SimulatePage {
    /// The nodes as loaded, before any pending pod was placed.
    before: Snapshot,
    /// Pods placed per node.
    placed: HashMap<String, usize>,
}

impl SimulatePage {
    pub fn new() -> SimulatePage {
        SimulatePage::default()
    }

    /// The page's head and the start of the pods section. `source` says where the cluster was
    /// read from ([`texts::source`]).
    pub fn begin(&self, source: &str) -> String {
        page::head(texts::SIMULATE_TITLE, source) + &page::pods_section_start()
    }

    /// Keep the node table as it is before the pending pods are scheduled.
    pub fn set_before(&mut self, cache: &Cache) {
        self.before = Snapshot::of(cache);
    }

    /// One decision's block.
    pub fn pod(&mut self, d: &PodDecision) -> String {
        if let (Some(node), None) = (&d.node, &d.skipped) {
            *self.placed.entry(node.clone()).or_default() += 1;
        }
        pods::pod_block(d)
    }

    /// The rest of the page: the summary and the nodes as they are in `cache` now.
    pub fn end<'a>(&self, summary: &'a Summary, cache: &Cache) -> SimulateEnd<'a> {
        self.end_with(summary, Snapshot::of(cache))
    }

    /// The rest of the page, with the nodes as they are in `after`.
    pub fn end_with<'a>(&self, summary: &'a Summary, after: Snapshot) -> SimulateEnd<'a> {
        SimulateEnd { summary, rows: nodes::rows(&self.before, after, &self.placed) }
    }
}

/// The end of `simulate`'s page (see [`SimulatePage::end`]).
pub struct SimulateEnd<'a> {
    summary: &'a Summary,
    rows: Vec<NodeRow>,
}

impl fmt::Display for SimulateEnd<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(page::SECTION_END)?;
        f.write_str(&page::summary_section_start())?;
        pods::summary(f, self.summary)?;
        f.write_str(page::SECTION_END)?;
        write!(f, "{}", page::NodesSection { rows: &self.rows })?;
        f.write_str(page::FOOT)
    }
}

/// `capacity`'s page: how many copies fit and what stopped the next, and the nodes before the
/// copies (the cluster with its own pending pods placed) and after.
pub struct CapacityPage<'a> {
    pub source: &'a str,
    /// `namespace/name` of the pod copied.
    pub pod: &'a str,
    pub report: &'a CapacityReport,
    pub rows: Vec<NodeRow>,
}

impl<'a> CapacityPage<'a> {
    /// The page for `report`, with the nodes of `before` and as they are in `cache` now.
    pub fn new(source: &'a str, pod: &'a str, report: &'a CapacityReport, before: &Snapshot, cache: &Cache) -> Self {
        let placed: HashMap<String, usize> = report.per_node.iter().map(|(n, c)| (n.clone(), *c)).collect();
        CapacityPage { source, pod, report, rows: nodes::rows(before, Snapshot::of(cache), &placed) }
    }
}

impl fmt::Display for CapacityPage<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let r = self.report;
        f.write_str(&page::head(texts::CAPACITY_TITLE, self.source))?;
        f.write_str(&page::summary_section_start())?;
        write!(f, r#"<p class="counts">{}</p>"#, Esc(&texts::copies_fit(r.count, self.pod)))?;
        write!(f, r#"<p class="stopped">{}</p>"#, Esc(&texts::stopped_by(&r.stopped_by)))?;
        if !r.stopped_reasons.is_empty() {
            write!(f, "<h3>{}</h3>", Esc(texts::NEXT_COPY_REASONS))?;
            pods::reason_list(f, &r.stopped_reasons)?;
        }
        if !r.per_node.is_empty() {
            write!(
                f,
                r#"<h3>{}</h3><table class="copies"><tr><th>{}</th><th>{}</th></tr>"#,
                Esc(texts::COPIES_HEADING),
                Esc(texts::NODE_COLUMN),
                Esc(texts::COPIES_COLUMN)
            )?;
            for (node, n) in &r.per_node {
                write!(f, "<tr><td>{}</td><td>{n}</td></tr>", Esc(node))?;
            }
            f.write_str("</table>")?;
        }
        f.write_str(page::SECTION_END)?;
        write!(f, "{}", page::NodesSection { rows: &self.rows })?;
        f.write_str(page::FOOT)
    }
}
