//! The pods on the page: one collapsible block per decision (the pod, where it went, and on a
//! click the per-plugin scores of the best nodes, the filtered nodes grouped by reason, devices,
//! extenders, preemption and the message; on hover the chosen node's scores), and the summary of
//! pods placed and not placed by reason — the facts of the text and JSON reports.

use super::escape::Esc;
use crate::core::simulate::report::{extender_line, PodDecision, ReasonGroup, Summary};
use crate::core::texts::what_if_html as texts;
use std::fmt::{self, Write};

/// What a pod's headline shows on hover: the chosen node's scores by plugin, or the message.
fn hover(d: &PodDecision) -> String {
    if let Some(why) = &d.skipped {
        return why.clone();
    }
    let chosen = d.node.as_deref().and_then(|n| d.scores.iter().find(|s| s.node == n));
    match chosen {
        Some(s) => {
            let mut out = format!("{}: {} {}", s.node, texts::TOTAL_COLUMN, s.total);
            for (plugin, score) in &s.plugins {
                let _ = write!(out, "\n{plugin} {score}");
            }
            out
        }
        None => d.message.clone(),
    }
}

/// Filtered nodes grouped by reason, as a list.
pub fn reason_list(w: &mut dyn Write, groups: &[ReasonGroup]) -> fmt::Result {
    if groups.is_empty() {
        return Ok(());
    }
    w.write_str(r#"<ul class="reasons">"#)?;
    for g in groups {
        let more = g.count.saturating_sub(g.nodes.len());
        write!(w, "<li>{}</li>", Esc(&texts::filtered(g.count, &g.reason, &g.nodes, more)))?;
    }
    w.write_str("</ul>")
}

/// The best nodes' scores: node, total, each plugin's score; the chosen node marked.
fn scores_table(w: &mut dyn Write, d: &PodDecision) -> fmt::Result {
    let Some(first) = d.scores.first() else { return Ok(()) };
    write!(
        w,
        r#"<table class="scores"><caption>{}</caption><tr><th>{}</th><th>{}</th>"#,
        Esc(texts::SCORES_CAPTION),
        Esc(texts::NODE_COLUMN),
        Esc(texts::TOTAL_COLUMN)
    )?;
    for plugin in first.plugins.keys() {
        write!(w, "<th>{}</th>", Esc(plugin))?;
    }
    w.write_str("</tr>")?;
    for s in &d.scores {
        let chosen = if d.node.as_deref() == Some(s.node.as_str()) { r#" class="chosen""# } else { "" };
        write!(w, "<tr{chosen}><td>{}</td><td>{}</td>", Esc(&s.node), s.total)?;
        for plugin in first.plugins.keys() {
            write!(w, "<td>{}</td>", s.plugins.get(plugin).copied().unwrap_or(0))?;
        }
        w.write_str("</tr>")?;
    }
    w.write_str("</table>")?;
    if d.feasible_nodes > d.scores.len() {
        write!(w, r#"<p class="more">{}</p>"#, Esc(&texts::more_scored(d.feasible_nodes - d.scores.len())))?;
    }
    Ok(())
}

/// A list of lines (devices, extenders, preemption), when there are any.
fn lines(w: &mut dyn Write, class: &str, items: impl Iterator<Item = String>) -> fmt::Result {
    let mut items = items.peekable();
    if items.peek().is_none() {
        return Ok(());
    }
    write!(w, r#"<ul class="{class}">"#)?;
    for item in items {
        write!(w, "<li>{}</li>", Esc(item.trim_start()))?;
    }
    w.write_str("</ul>")
}

/// One decision as a collapsible block.
pub fn pod_block(d: &PodDecision) -> String {
    let mut out = String::with_capacity(512);
    // Writing to a String cannot fail.
    let _ = write_pod(&mut out, d);
    out
}

fn write_pod(w: &mut dyn Write, d: &PodDecision) -> fmt::Result {
    let (class, to) = match (&d.skipped, &d.node) {
        (Some(_), _) => ("skipped", texts::SKIPPED),
        (None, Some(node)) => ("placed", node.as_str()),
        (None, None) => ("unplaced", texts::UNSCHEDULABLE),
    };
    write!(
        w,
        r#"<details class="pod {class}" data-pod="{}"><summary title="{}"><span class="name">{}</span> → <span class="to">{}</span>"#,
        Esc(&d.pod),
        Esc(&hover(d)),
        Esc(&d.pod),
        Esc(to)
    )?;
    if d.skipped.is_none() {
        write!(w, r#" <span class="meta">{}</span>"#, Esc(&texts::evaluated(d.evaluated_nodes, d.feasible_nodes)))?;
    }
    w.write_str(r#"</summary><div class="body">"#)?;
    scores_table(w, d)?;
    lines(w, "devices", d.devices.iter().map(|dev| dev.line()))?;
    reason_list(w, &d.filtered)?;
    lines(w, "extenders", d.extenders.iter().map(extender_line))?;
    lines(
        w,
        "preemption",
        d.nominated_node.iter().map(|n| texts::nominated(n)).chain(d.victims.iter().map(|v| texts::would_preempt(v))),
    )?;
    let message = d.skipped.as_deref().unwrap_or(&d.message);
    write!(w, r#"<p class="message">{}</p></div></details>"#, Esc(message))?;
    w.write_str("\n")
}

/// Pods placed, not placed, and not placed by reason (most pods first).
pub fn summary(w: &mut dyn Write, s: &Summary) -> fmt::Result {
    write!(w, r#"<p class="counts">{}</p>"#, Esc(&texts::placed(s.placed, s.not_placed)))?;
    if s.not_placed_by_reason.is_empty() {
        return Ok(());
    }
    let mut reasons: Vec<(&String, &usize)> = s.not_placed_by_reason.iter().collect();
    reasons.sort_by(|a, b| b.1.cmp(a.1).then_with(|| a.0.cmp(b.0)));
    write!(w, r#"<h3>{}</h3><table class="by-reason">"#, Esc(texts::NOT_PLACED_BY_REASON))?;
    for (reason, n) in reasons {
        write!(w, "<tr><td>{}</td><td>{}</td></tr>", Esc(&texts::pods_with_reason(*n)), Esc(reason))?;
    }
    w.write_str("</table>")
}
