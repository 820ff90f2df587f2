//! The page as a whole: well-formed (every tag closed in order, so no text became markup), every
//! name escaped, one `node-bar` per node, one `zone-bar` per zone, and written in small pieces at
//! any size.

use super::nodes::{Amount, NodeAt, Snapshot, Usage};
use super::*;
use crate::core::simulate::report::{ReasonGroup, ScoredNode};
use std::collections::BTreeMap;

/// HTML's void elements the page uses (no closing tag).
const VOID: [&str; 2] = ["meta", "br"];

/// Check that the tags nest: every `<` starts a tag (text has none: it is escaped), every
/// element is closed in order, `/>` closes itself. Returns the tag names opened, in order.
fn tags(page: &str) -> Vec<String> {
    let mut stack: Vec<String> = Vec::new();
    let mut opened = Vec::new();
    let mut rest = page;
    while let Some(at) = rest.find('<') {
        let end = rest[at..]
            .find('>')
            .unwrap_or_else(|| panic!("unclosed tag at {:?}", rest[at..].chars().take(40).collect::<String>()));
        let tag = &rest[at + 1..at + end];
        rest = &rest[at + end + 1..];
        if tag.starts_with('!') {
            continue;
        }
        if let Some(name) = tag.strip_prefix('/') {
            let open = stack.pop().unwrap_or_else(|| panic!("</{name}> closes nothing"));
            assert_eq!(open, name, "</{name}> closes <{open}>");
            continue;
        }
        let name: String = tag.chars().take_while(|c| c.is_ascii_alphanumeric()).collect();
        assert!(!name.is_empty(), "not a tag: <{tag}>");
        opened.push(name.clone());
        if !tag.ends_with('/') && !VOID.contains(&name.as_str()) {
            stack.push(name);
        }
    }
    assert!(stack.is_empty(), "never closed: {stack:?}");
    opened
}

fn count(page: &str, needle: &str) -> usize {
    page.matches(needle).count()
}

fn usage(cpu: i64, pods: i64, devices: (i64, i64)) -> Usage {
    Usage {
        cpu: Amount { used: cpu, total: 4000 },
        memory: Amount { used: cpu << 20, total: 4000 << 20 },
        pods: Amount { used: pods, total: 110 },
        devices: Amount { used: devices.0, total: devices.1 },
    }
}

fn node(name: &str, zone: Option<&str>, usage: Usage) -> NodeAt {
    NodeAt { name: name.into(), zone: zone.map(str::to_string), usage }
}

const HOSTILE_NODE: &str = "<script>alert(\"n\")</script>";
const HOSTILE_ZONE: &str = "z'one\" onmouseover=\"alert(1)";
const HOSTILE_POD: &str = "ns/<img src=x onerror=alert(1)>";
const HOSTILE_REASON: &str = "node(s) didn't match <b>selector</b> & \"more\"";

fn decision_placed() -> PodDecision {
    let mut d = PodDecision::empty(HOSTILE_POD, "edgesched");
    d.node = Some(HOSTILE_NODE.into());
    d.evaluated_nodes = 3;
    d.feasible_nodes = 3;
    d.scores = vec![
        ScoredNode {
            node: HOSTILE_NODE.into(),
            total: 312,
            plugins: BTreeMap::from([("<Plugin>".to_string(), 78), ("TaintToleration".to_string(), 100)]),
        },
        ScoredNode {
            node: "plain".into(),
            total: 200,
            plugins: BTreeMap::from([("<Plugin>".to_string(), 10), ("TaintToleration".to_string(), 100)]),
        },
    ];
    d.filtered = vec![ReasonGroup { reason: HOSTILE_REASON.into(), count: 1, nodes: vec!["other".into()] }];
    d.message = format!("Successfully assigned {HOSTILE_POD} to {HOSTILE_NODE}");
    d
}

fn decision_unplaced() -> PodDecision {
    let mut d = PodDecision::empty("ns/big & bold", "edgesched");
    d.evaluated_nodes = 3;
    d.filtered = vec![
        ReasonGroup { reason: "Insufficient cpu".into(), count: 2, nodes: vec![HOSTILE_NODE.into(), "plain".into()] },
        ReasonGroup { reason: HOSTILE_REASON.into(), count: 1, nodes: vec!["other".into()] },
    ];
    d.victims = vec!["ns/<victim>".into()];
    d.message = "0/3 nodes are available: 2 Insufficient cpu, 1 node(s) didn't match <b>selector</b>.".into();
    d
}

/// A whole `simulate` page for three nodes (one in a hostile zone, one without a zone) and two
/// pods with hostile names, reasons and plugin names.
fn hostile_page() -> String {
    let mut page = SimulatePage::new();
    page.before = Snapshot::from_nodes(vec![
        node(HOSTILE_NODE, Some(HOSTILE_ZONE), usage(1000, 1, (0, 2))),
        node("plain", Some("zone-a"), usage(0, 0, (0, 0))),
        node("other", None, usage(3900, 5, (0, 0))),
    ]);
    let mut summary = Summary::default();
    let mut out = page.begin(&texts::source(Some("<cluster>.yaml")));
    for d in [decision_placed(), decision_unplaced()] {
        summary.record(&d);
        out.push_str(&page.pod(&d));
    }
    let after = Snapshot::from_nodes(vec![
        node(HOSTILE_NODE, Some(HOSTILE_ZONE), usage(3000, 2, (1, 2))),
        node("plain", Some("zone-a"), usage(0, 0, (0, 0))),
        node("other", None, usage(3900, 5, (0, 0))),
    ]);
    out.push_str(&page.end_with(&summary, after).to_string());
    out
}

#[test]
fn every_name_reason_and_message_is_escaped_and_the_tags_nest() {
    let page = hostile_page();
    let opened = tags(&page);
    for markup in ["script", "img", "b"] {
        assert!(!opened.iter().any(|t| t == markup), "<{markup}> became markup");
    }
    assert!(!page.contains("onmouseover=\"alert"), "an attribute was broken out of");
    assert!(page.contains("&lt;script&gt;alert(&quot;n&quot;)&lt;/script&gt;"), "the node name is shown as text");
    assert!(page.contains("z&#39;one&quot; onmouseover=&quot;alert(1)"), "the zone is shown as text");
    assert!(page.contains("ns/&lt;img src=x onerror=alert(1)&gt;"));
    assert!(page.contains("didn&#39;t match &lt;b&gt;selector&lt;/b&gt; &amp; &quot;more&quot;"));
    assert!(page.contains("<th>&lt;Plugin&gt;</th>"));
    assert!(page.contains("&lt;cluster&gt;.yaml"));
    assert!(page.contains("ns/big &amp; bold"));
    assert!(page.contains(&format!("<li>{}</li>", escape::Esc(&texts::would_preempt("ns/<victim>")))));
}

#[test]
fn the_page_shows_nodes_by_zone_placements_reasons_and_scores() {
    let page = hostile_page();
    assert_eq!(count(&page, r#"<g class="node-bar""#), 3, "one bar per node");
    assert_eq!(count(&page, r#"<g class="zone-bar""#), 3, "one bar per zone: two zones and the unlabelled nodes");
    assert_eq!(count(&page, r#"<details class="zone""#), 3);
    // Zones by name, unlabelled last; a small cluster shows its zones open.
    let zone_a = page.find(r#"data-zone="zone-a""#).expect("zone-a");
    let hostile = page.find(r#"data-zone="z&#39;one"#).expect("hostile zone");
    let none = page.find(&format!(r#"data-zone="{}""#, escape::Esc(texts::NO_ZONE))).expect("no zone");
    assert!(hostile < zone_a && zone_a < none, "zones by name, unlabelled last");
    assert_eq!(count(&page, r#"<details class="zone" data-zone="zone-a" open>"#), 1);
    // Devices are drawn, as one node has some; the figures are in the tooltip.
    assert!(page.contains(">devices</text>"), "devices column");
    assert!(page.contains("devices 0/2 (0%) → 1/2 (50%)"), "{page}");
    assert!(page.contains("cpu 1000m/4000m (25%) → 3000m/4000m (75%)"));
    // Where each pod went, with the chosen node's scores on hover and all of them on click.
    let hover = format!("<summary title=\"{}: total 312\n&lt;Plugin&gt; 78\nTaintToleration 100\">", escape::Esc(HOSTILE_NODE));
    assert!(page.contains(&hover), "{hover}");
    assert!(page.contains(
        r#"<tr class="chosen"><td>&lt;script&gt;alert(&quot;n&quot;)&lt;/script&gt;</td><td>312</td><td>78</td><td>100</td></tr>"#
    ));
    assert!(page.contains(r#"<span class="to">unschedulable</span>"#));
    assert!(page.contains("<li>2 node(s): Insufficient cpu: &lt;script&gt;alert(&quot;n&quot;)&lt;/script&gt;, plain</li>"));
    // The summary groups the reasons of the pods not placed, most pods first.
    assert!(page.contains("placed: 1, not placed: 1"));
    assert!(page.contains("<tr><td>1 pod(s)</td><td>Insufficient cpu</td></tr>"));
    // One placement shows on its node's bar and its zone's.
    assert_eq!(count(&page, r#"<text class="placed""#), 2);
}

/// Counts what is written, and the largest single piece.
#[derive(Default)]
struct Pieces {
    bytes: usize,
    largest: usize,
    text: String,
}

impl std::fmt::Write for Pieces {
    fn write_str(&mut self, s: &str) -> std::fmt::Result {
        self.bytes += s.len();
        self.largest = self.largest.max(s.len());
        self.text.push_str(s);
        Ok(())
    }
}

#[test]
fn five_thousand_nodes_aggregate_per_zone_and_are_written_row_by_row() {
    use std::fmt::Write as _;
    let nodes = |after: bool| -> Snapshot {
        Snapshot::from_nodes(
            (0..5000)
                .map(|i| {
                    let zone = if i < 4990 { Some(format!("zone-{}", i % 3)) } else { None };
                    let cpu = (i as i64 * 7) % 4000 + if after { 100 } else { 0 };
                    NodeAt { name: format!("node-{i:05}"), zone, usage: usage(cpu, 3, (0, 0)) }
                })
                .collect(),
        )
    };
    let mut page = SimulatePage::new();
    page.before = nodes(false);
    let summary = Summary { placed: 5000, ..Default::default() };
    let end = page.end_with(&summary, nodes(true));
    let mut out = Pieces::default();
    write!(out, "{}{end}", page.begin("synthetic")).expect("writes");
    let text = &out.text;
    tags(text);
    assert_eq!(count(text, r#"<g class="node-bar""#), 5000);
    // Four zone bars (three zones and the unlabelled nodes) on top; the nodes only inside their
    // zone's closed <details>.
    assert_eq!(count(text, r#"<g class="zone-bar""#), 4);
    assert_eq!(count(text, r#"<details class="zone""#), 4);
    assert_eq!(count(text, " open>"), 0, "a large cluster's zones start closed");
    let first_node = text.find(r#"<g class="node-bar""#).expect("a node");
    assert!(text[..first_node].contains(r#"<g class="zone-bar""#), "the zone's bar comes before its nodes");
    assert!(text.contains("zone-0: 1664 node(s)") && text.contains(&texts::zone(texts::NO_ZONE, 10)), "zone headlines");
    assert!(!text.contains(">devices</text>"), "no devices column without devices");
    // Streamed: no piece is more than a row (or the page's head), however many nodes.
    assert!(out.largest <= page.begin("synthetic").len().max(2048), "largest piece {} bytes", out.largest);
    assert!(out.bytes > 5000 * 300, "{} bytes", out.bytes);
}
