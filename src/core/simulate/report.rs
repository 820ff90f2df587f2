//! What `simulate` and `capacity` print: one compact decision per pod and the summary footer.
//!
//! A decision at cluster scale cannot list every node: with 5,000 nodes the per-node reasons and
//! per-plugin scores of one pod are ~90 KB. A [`PodDecision`] keeps the filtered nodes grouped by
//! reason (how many nodes, and the first few names) and the top N scored nodes; `explain`'s
//! per-node [`super::Decision`] stays for single pods. How much is kept is chosen up front
//! ([`Detail`]), so a run that prints only placements does not compute scores at all.

use crate::core::cache::Cache;
use crate::core::extender::ExtenderNote;
use crate::core::framework::cycle::NodeScores;
use crate::core::framework::status::Diagnosis;
use crate::core::framework::ScheduleOutcome;
use serde::Serialize;
use std::collections::{BTreeMap, HashMap};
use std::fmt::Write as _;

/// How much of each decision to keep.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Detail {
    /// Compute and keep per-plugin scores (the cycle's explain mode).
    pub scores: bool,
    /// Group the filtered nodes by reason.
    pub reasons: bool,
    /// How many scored nodes (and node names per reason) to keep; 0 keeps all.
    pub top: usize,
}

impl Detail {
    /// `--output placements`: the node only (reasons when a summary needs them).
    pub fn placements(summary: bool) -> Detail {
        Detail { scores: false, reasons: summary, top: 0 }
    }

    /// `--output table|json --top N`.
    pub fn explained(top: usize) -> Detail {
        Detail { scores: true, reasons: true, top }
    }

    /// Which nodes' per-plugin scores the cycle must keep for this detail.
    pub fn explain(&self) -> crate::core::framework::cycle::Explain {
        use crate::core::framework::cycle::Explain;
        match (self.scores, self.top) {
            (false, _) => Explain::Off,
            (true, 0) => Explain::All,
            (true, n) => Explain::Top(n),
        }
    }

    fn keep(&self, n: usize) -> usize {
        if self.top == 0 {
            n
        } else {
            n.min(self.top)
        }
    }
}

/// Nodes a filter rejected for one reason.
#[derive(Debug, Clone, Serialize, PartialEq, Eq)]
pub struct ReasonGroup {
    pub reason: String,
    /// How many nodes gave this reason.
    pub count: usize,
    /// The first of them by name (up to `--top`; all with `--top 0`).
    pub nodes: Vec<String>,
}

/// One scored node.
#[derive(Debug, Clone, Serialize, PartialEq, Eq)]
pub struct ScoredNode {
    pub node: String,
    pub total: i64,
    /// Each plugin's normalised (unweighted) score.
    pub plugins: BTreeMap<String, i64>,
}

/// A device a placed pod got: which claim and request it was allocated for, and where it is
/// (the claim's `status.allocation.devices.results` entry as PreBind writes it).
#[derive(Debug, Clone, Serialize, PartialEq, Eq)]
pub struct AllocatedDevice {
    /// `namespace/name` of the claim.
    pub claim: String,
    /// The request (`request` or `request/subrequest` for a `firstAvailable` alternative).
    pub request: String,
    pub driver: String,
    pub pool: String,
    pub device: String,
}

impl AllocatedDevice {
    /// The devices allocated in `claim`, in the allocation's order.
    pub fn of_claim(claim: &crate::core::api::ResourceClaim) -> Vec<AllocatedDevice> {
        let key = format!("{}/{}", claim.metadata.namespace, claim.metadata.name);
        claim
            .status
            .allocation
            .iter()
            .flat_map(|a| a.devices.results.iter())
            .map(|r| AllocatedDevice {
                claim: key.clone(),
                request: r.request.clone(),
                driver: r.driver.clone(),
                pool: r.pool.clone(),
                device: r.device.clone(),
            })
            .collect()
    }

    /// `claim ns/name request gpu: driver/pool/device`, as the table outputs print it.
    pub fn line(&self) -> String {
        format!("  device: claim {} request {}: {}/{}/{}", self.claim, self.request, self.driver, self.pool, self.device)
    }
}

/// One pod's decision, as `simulate` streams it.
#[derive(Debug, Clone, Serialize, PartialEq, Eq)]
#[serde(rename_all = "camelCase")]
pub struct PodDecision {
    pub pod: String,
    pub scheduler_name: String,
    pub node: Option<String>,
    pub evaluated_nodes: usize,
    pub feasible_nodes: usize,
    /// Filtered nodes grouped by reason, most frequent first.
    pub filtered: Vec<ReasonGroup>,
    /// The best scored nodes, highest total first (only when more than one node was feasible).
    pub scores: Vec<ScoredNode>,
    pub message: String,
    /// Pods that would be preempted to make room (`namespace/name`).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub victims: Vec<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub nominated_node: Option<String>,
    /// Set when the pod was not considered (another scheduler's pod).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub skipped: Option<String>,
    /// What each extender said (filter, prioritize, preempt), in call order.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub extenders: Vec<ExtenderNote>,
    /// The devices allocated to the placed pod's claims (Dynamic Resource Allocation).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub devices: Vec<AllocatedDevice>,
}

impl PodDecision {
    /// A decision with nothing decided yet.
    pub fn empty(pod: &str, scheduler_name: &str) -> PodDecision {
        PodDecision {
            pod: pod.into(),
            scheduler_name: scheduler_name.into(),
            node: None,
            evaluated_nodes: 0,
            feasible_nodes: 0,
            filtered: Vec::new(),
            scores: Vec::new(),
            message: String::new(),
            victims: Vec::new(),
            nominated_node: None,
            skipped: None,
            extenders: Vec::new(),
            devices: Vec::new(),
        }
    }

    /// The decision a cycle's outcome stands for, keeping what `detail` asks.
    pub fn from_outcome(pod: &str, scheduler_name: &str, outcome: &ScheduleOutcome, detail: &Detail) -> PodDecision {
        let v = Verdict::of(pod, outcome);
        let mut ranked: Vec<&NodeScores> = v.scores.iter().collect();
        ranked.sort_unstable_by(|a, b| b.total.cmp(&a.total).then_with(|| a.node.cmp(&b.node)));
        ranked.truncate(detail.keep(ranked.len()));
        PodDecision {
            pod: pod.into(),
            scheduler_name: scheduler_name.into(),
            node: v.node,
            evaluated_nodes: v.evaluated_nodes,
            feasible_nodes: v.feasible_nodes,
            filtered: if detail.reasons { group_reasons(v.diagnosis, detail) } else { Vec::new() },
            scores: ranked
                .into_iter()
                .map(|s| ScoredNode { node: s.node.to_string(), total: s.total, plugins: plugin_scores(s) })
                .collect(),
            message: v.message,
            victims: v.victims,
            nominated_node: v.nominated_node,
            skipped: None,
            extenders: v.diagnosis.extender_notes.clone(),
            devices: Vec::new(),
        }
    }

    /// `NAMESPACE/NAME NODE`, or `NAMESPACE/NAME -` when not placed.
    pub fn placement_line(&self) -> String {
        format!("{} {}\n", self.pod, self.node.as_deref().unwrap_or("-"))
    }

    /// One JSON object and a newline.
    pub fn json_line(&self) -> String {
        match serde_json::to_string(self) {
            Ok(mut s) => {
                s.push('\n');
                s
            }
            Err(e) => format!("{{\"pod\":{:?},\"error\":{:?}}}\n", self.pod, e.to_string()),
        }
    }

    /// A readable block: verdict, top scores, grouped reasons, message.
    pub fn table_block(&self) -> String {
        let mut out = String::new();
        if let Some(why) = &self.skipped {
            let _ = writeln!(out, "POD {}  (schedulerName {})\n  skipped: {why}\n", self.pod, self.scheduler_name);
            return out;
        }
        let verdict = match &self.node {
            Some(n) => format!("-> {n}"),
            None => "-> unschedulable".to_string(),
        };
        let _ = writeln!(
            out,
            "POD {}  (schedulerName {})  {verdict}  evaluated={} feasible={}",
            self.pod, self.scheduler_name, self.evaluated_nodes, self.feasible_nodes
        );
        if let Some(first) = self.scores.first() {
            let plugins: Vec<&String> = first.plugins.keys().collect();
            let width = self.scores.iter().map(|s| s.node.len()).max().unwrap_or(4).max(4);
            let _ = write!(out, "  {:<width$}  {:>6}", "NODE", "TOTAL");
            for p in &plugins {
                let _ = write!(out, "  {p}");
            }
            out.push('\n');
            for s in &self.scores {
                let mark = if self.node.as_deref() == Some(s.node.as_str()) { "*" } else { " " };
                let _ = write!(out, "{mark} {:<width$}  {:>6}", s.node, s.total);
                for p in &plugins {
                    let v = s.plugins.get(*p).copied().unwrap_or(0);
                    let _ = write!(out, "  {v:>w$}", w = p.len());
                }
                out.push('\n');
            }
            if self.feasible_nodes > self.scores.len() {
                let _ = writeln!(out, "  … {} more scored node(s)", self.feasible_nodes - self.scores.len());
            }
        }
        for d in &self.devices {
            let _ = writeln!(out, "{}", d.line());
        }
        for g in &self.filtered {
            let more = if g.count > g.nodes.len() { format!(", … {} more", g.count - g.nodes.len()) } else { String::new() };
            let _ = writeln!(out, "  x {} node(s): {}: {}{more}", g.count, g.reason, g.nodes.join(", "));
        }
        for e in &self.extenders {
            let _ = writeln!(out, "{}", extender_line(e));
        }
        if let Some(n) = &self.nominated_node {
            let _ = writeln!(out, "  nominated node: {n}");
        }
        for v in &self.victims {
            let _ = writeln!(out, "  would preempt: {v}");
        }
        let _ = writeln!(out, "  {}\n", self.message);
        out
    }
}

/// Each plugin's score of a node, by plugin name.
pub fn plugin_scores(s: &NodeScores) -> BTreeMap<String, i64> {
    s.plugins.iter().map(|(n, v)| (n.to_string(), *v)).collect()
}

/// One line of what an extender said, as the table outputs print it.
pub fn extender_line(e: &ExtenderNote) -> String {
    let said = if let Some(err) = &e.error {
        if e.ignored {
            format!("error (ignored): {err}")
        } else {
            format!("error: {err}")
        }
    } else {
        let mut parts = Vec::new();
        if e.call != "prioritize" {
            parts.push(format!("kept [{}]", e.kept.join(" ")));
        }
        for (node, why) in &e.failed {
            parts.push(format!("{node}: {why}"));
        }
        if !e.scores.is_empty() {
            let scores: Vec<String> = e.scores.iter().map(|(n, s)| format!("{n}={s}")).collect();
            parts.push(format!("scores {}", scores.join(" ")));
        }
        parts.join("; ")
    };
    format!("  extender {} {}: {said}", e.extender, e.call)
}

/// What every explanation of a cycle reads from its outcome (`simulate`'s decisions and
/// `explain`'s per-node ones).
pub struct Verdict<'o> {
    pub node: Option<String>,
    pub evaluated_nodes: usize,
    pub feasible_nodes: usize,
    pub message: String,
    pub nominated_node: Option<String>,
    pub victims: Vec<String>,
    pub diagnosis: &'o Diagnosis,
    /// Filled when the cycle kept scores and more than one node was feasible.
    pub scores: &'o [NodeScores],
}

impl<'o> Verdict<'o> {
    pub fn of(pod: &str, outcome: &'o ScheduleOutcome) -> Verdict<'o> {
        match outcome {
            ScheduleOutcome::Scheduled { result, diagnosis, scores, .. } => {
                let (namespace, name) = pod.split_once('/').unwrap_or(("", pod));
                Verdict {
                    node: Some(result.node.to_string()),
                    evaluated_nodes: result.evaluated_nodes,
                    feasible_nodes: result.feasible_nodes,
                    message: crate::core::texts::events::scheduled(namespace, name, &result.node),
                    nominated_node: None,
                    victims: Vec::new(),
                    diagnosis,
                    scores,
                }
            }
            ScheduleOutcome::Unschedulable { diagnosis, message, post_filter, .. } => Verdict {
                node: None,
                evaluated_nodes: diagnosis.node_to_status.len(),
                feasible_nodes: 0,
                message: message.clone(),
                nominated_node: post_filter.nominated_node.as_ref().filter(|n| !n.is_empty()).map(|n| n.to_string()),
                victims: post_filter.victims.iter().map(|v| v.key.to_string()).collect(),
                diagnosis,
                scores: &[],
            },
            ScheduleOutcome::Error { message, diagnosis } => Verdict {
                node: None,
                evaluated_nodes: 0,
                feasible_nodes: 0,
                message: message.clone(),
                nominated_node: None,
                victims: Vec::new(),
                diagnosis,
                scores: &[],
            },
        }
    }
}

/// Filtered nodes grouped by each reason they gave (a node with two reasons counts in both, as
/// in the FitError summary), most frequent first, then by reason.
fn group_reasons(diagnosis: &Diagnosis, detail: &Detail) -> Vec<ReasonGroup> {
    let mut groups: HashMap<&str, ReasonGroup> = HashMap::new();
    // node_to_status is ordered by node name, so each group's nodes come out sorted.
    for (node, status) in &diagnosis.node_to_status {
        for reason in &status.reasons {
            let g = groups.entry(reason.as_ref()).or_insert_with(|| ReasonGroup {
                reason: reason.to_string(),
                count: 0,
                nodes: Vec::new(),
            });
            g.count += 1;
            if detail.top == 0 || g.nodes.len() < detail.top {
                g.nodes.push(node.to_string());
            }
        }
    }
    let mut out: Vec<ReasonGroup> = groups.into_values().collect();
    out.sort_by(|a, b| b.count.cmp(&a.count).then_with(|| a.reason.cmp(&b.reason)));
    out
}

/// One node's use after the simulated placements.
#[derive(Debug, Clone, Serialize, PartialEq, Eq)]
#[serde(rename_all = "camelCase")]
pub struct NodeUse {
    pub node: String,
    pub cpu_requested_milli: i64,
    pub cpu_allocatable_milli: i64,
    pub memory_requested: i64,
    pub memory_allocatable: i64,
    pub pods: usize,
    pub pods_allocatable: i64,
}

impl NodeUse {
    /// Every node of the table, by name.
    pub fn of(cache: &Cache) -> Vec<NodeUse> {
        let mut out: Vec<NodeUse> = cache
            .nodes()
            .map(|n| NodeUse {
                node: n.name().to_string(),
                cpu_requested_milli: n.requested.milli_cpu,
                cpu_allocatable_milli: n.node.allocatable.milli_cpu,
                memory_requested: n.requested.memory,
                memory_allocatable: n.node.allocatable.memory,
                pods: n.pod_count(),
                pods_allocatable: n.node.allocatable.allowed_pod_number,
            })
            .collect();
        out.sort_by(|a, b| a.node.cmp(&b.node));
        out
    }
}

impl NodeUse {
    /// The node's highest use in percent: of cpu, memory and pods, whichever is fullest.
    pub fn highest_use(&self) -> i64 {
        percent(self.cpu_requested_milli, self.cpu_allocatable_milli)
            .max(percent(self.memory_requested, self.memory_allocatable))
            .max(percent(self.pods as i64, self.pods_allocatable))
    }
}

/// Percent of `part` in `whole` (0 when `whole` is 0), for display.
pub fn percent(part: i64, whole: i64) -> i64 {
    if whole <= 0 {
        return 0;
    }
    (i128::from(part) * 100 / i128::from(whole)).clamp(0, i128::from(i64::MAX)) as i64
}

/// Pods placed and not placed (by reason), gathered as decisions stream by.
#[derive(Debug, Clone, Default, Serialize, PartialEq, Eq)]
#[serde(rename_all = "camelCase")]
pub struct Summary {
    pub placed: usize,
    pub not_placed: usize,
    /// Reason → pods that were not placed with that reason (a pod may count under several).
    pub not_placed_by_reason: BTreeMap<String, usize>,
}

impl Summary {
    /// Count one final decision.
    pub fn record(&mut self, d: &PodDecision) {
        if d.node.is_some() {
            self.placed += 1;
            return;
        }
        self.not_placed += 1;
        let mut count = |reason: &str| *self.not_placed_by_reason.entry(reason.to_string()).or_default() += 1;
        match (&d.skipped, d.filtered.is_empty()) {
            (Some(why), _) => count(why),
            (None, false) => d.filtered.iter().for_each(|g| count(&g.reason)),
            (None, true) => count(&d.message),
        }
    }

    /// The footer as text. With `limit` > 0 and more nodes than that, a line on the use of all
    /// nodes (percentiles of each node's highest use of cpu, memory and pods) and the `limit`
    /// most used nodes, most used first; with `limit` 0 every node, by name.
    pub fn render_text(&self, nodes: &[NodeUse], limit: usize) -> String {
        let mut out = String::new();
        let _ = writeln!(out, "SUMMARY\n  placed: {}\n  not placed: {}", self.placed, self.not_placed);
        for (reason, n) in &self.not_placed_by_reason {
            let _ = writeln!(out, "    {n} pod(s): {reason}");
        }
        let mut shown: Vec<&NodeUse> = nodes.iter().collect();
        if limit > 0 && nodes.len() > limit {
            let mut uses: Vec<i64> = nodes.iter().map(NodeUse::highest_use).collect();
            uses.sort_unstable();
            let at = |q: usize| uses[(uses.len() - 1) * q / 100];
            let _ = writeln!(
                out,
                "  node use (highest of cpu, memory, pods) over {} nodes: min {}%, p50 {}%, p90 {}%, p99 {}%, max {}%",
                uses.len(),
                at(0),
                at(50),
                at(90),
                at(99),
                at(100)
            );
            let _ = writeln!(out, "  {limit} most used nodes (--summary-nodes 0 lists all):");
            // The `limit` most used, by insertion (no sort code instantiated for a footer).
            let mut most: Vec<&NodeUse> = Vec::with_capacity(limit + 1);
            fn key(u: &NodeUse) -> (i64, std::cmp::Reverse<&str>) {
                (u.highest_use(), std::cmp::Reverse(u.node.as_str()))
            }
            for n in nodes {
                let at = most.iter().position(|m| key(n) > key(m)).unwrap_or(most.len());
                if at < limit {
                    most.insert(at, n);
                    most.truncate(limit);
                }
            }
            shown = most;
        }
        let nodes = shown;
        let width = nodes.iter().map(|n| n.node.len()).max().unwrap_or(4).max(4);
        let _ = writeln!(out, "  {:<width$}  {:>22}  {:>30}  {:>14}", "NODE", "CPU(m) REQ/ALLOC", "MEMORY REQ/ALLOC", "PODS");
        for n in nodes {
            let cpu = format!(
                "{}/{} {:>3}%",
                n.cpu_requested_milli,
                n.cpu_allocatable_milli,
                percent(n.cpu_requested_milli, n.cpu_allocatable_milli)
            );
            let mem = format!(
                "{}/{} {:>3}%",
                n.memory_requested,
                n.memory_allocatable,
                percent(n.memory_requested, n.memory_allocatable)
            );
            let pods = format!("{}/{}", n.pods, n.pods_allocatable);
            let _ = writeln!(out, "  {:<width$}  {cpu:>22}  {mem:>30}  {pods:>14}", n.node);
        }
        out
    }

    /// The footer as one JSON object line: `{"summary": {...}, "nodes": [...]}`.
    pub fn render_json(&self, nodes: &[NodeUse]) -> String {
        let v = serde_json::json!({ "summary": self, "nodes": nodes });
        format!("{v}\n")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn node(name: &str, cpu: i64, pods: usize) -> NodeUse {
        NodeUse {
            node: name.into(),
            cpu_requested_milli: cpu,
            cpu_allocatable_milli: 1000,
            memory_requested: 0,
            memory_allocatable: 100,
            pods,
            pods_allocatable: 10,
        }
    }

    /// The node names of a summary's table rows.
    fn listed(text: &str) -> Vec<&str> {
        text.lines()
            .filter_map(|l| l.split_whitespace().next())
            .filter(|w| w.len() == 3 && w.starts_with('n') && w[1..].bytes().all(|b| b.is_ascii_digit()))
            .collect()
    }

    #[test]
    fn summary_lists_the_most_used_nodes_after_a_distribution_line() {
        let nodes: Vec<NodeUse> = (0..20).map(|i| node(&format!("n{i:02}"), i * 50, 1)).collect();
        let s = Summary { placed: 3, ..Default::default() };
        let text = s.render_text(&nodes, 2);
        assert!(
            text.contains("node use (highest of cpu, memory, pods) over 20 nodes: min 10%, p50 45%, p90 85%, p99 90%, max 95%\n"),
            "{text}"
        );
        assert!(text.contains("2 most used nodes (--summary-nodes 0 lists all):\n"), "{text}");
        assert_eq!(listed(&text), ["n19", "n18"]);
        // 0, or no more nodes than the limit: every node by name, no distribution line.
        for (limit, nodes) in [(0, &nodes[..]), (20, &nodes[..])] {
            let text = s.render_text(nodes, limit);
            assert!(!text.contains("node use"), "{text}");
            assert_eq!(listed(&text).len(), 20);
        }
    }
}
