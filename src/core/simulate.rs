//! Offline what-if scheduling (`edgesched simulate`) and the shared explanation model used by
//! `edgesched explain`.
//!
//! A cluster file (a Kubernetes `List` as `kubectl get nodes,pods,priorityclasses -A -o yaml`
//! writes it, JSON or YAML, or a multi-document YAML stream) is fed to the very same
//! [`Scheduler`] the live binary runs. Pending pods of our profiles are scheduled one by one in
//! queue order, each placement applied before the next; every decision is returned with the
//! per-node filter reasons and per-plugin scores behind it.

use crate::core::api;
use crate::core::config::SchedulerConfig;
use crate::core::framework::plugins::PluginContext;
use crate::core::framework::{Framework, ScheduleOutcome};
use crate::core::metrics::Metrics;
use crate::core::rng::Rng;
use crate::core::scheduler::{Attempt, BindOutcome, Effect, Input, Scheduler, Settings};
use crate::core::watched::{Change, Watched};
use serde::Serialize;
use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::path::Path;
use std::time::{Duration, Instant};

/// Objects of a cluster snapshot.
#[derive(Debug, Default, Clone)]
pub struct Cluster {
    pub nodes: Vec<api::Node>,
    pub pods: Vec<api::Pod>,
    pub priority_classes: Vec<api::PriorityClass>,
    pub pvcs: Vec<api::PersistentVolumeClaim>,
    pub pvs: Vec<api::PersistentVolume>,
    pub storage_classes: Vec<api::StorageClass>,
    pub csi_nodes: Vec<api::CsiNode>,
    pub pdbs: Vec<api::PodDisruptionBudget>,
    pub namespaces: Vec<api::Namespace>,
    pub services: Vec<api::Service>,
    pub replication_controllers: Vec<api::ReplicationController>,
    pub replica_sets: Vec<api::ReplicaSet>,
    pub stateful_sets: Vec<api::StatefulSet>,
    /// Kinds present in the file that the simulation does not use (reported, not fatal).
    pub ignored_kinds: BTreeMap<String, usize>,
}

/// A problem with the cluster file or the configuration.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SimError(pub String);

impl std::fmt::Display for SimError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for SimError {}

/// Largest cluster file accepted (a generous bound against accidents).
const MAX_CLUSTER_FILE: u64 = 256 * 1024 * 1024;

/// Read a cluster file.
pub fn load_cluster(path: &Path) -> Result<Cluster, SimError> {
    let name = path.display().to_string();
    let meta = std::fs::metadata(path).map_err(|e| SimError(format!("{name}: {e}")))?;
    if meta.len() > MAX_CLUSTER_FILE {
        return Err(SimError(format!("{name}: file is larger than {} MiB", MAX_CLUSTER_FILE / (1024 * 1024))));
    }
    let bytes = std::fs::read(path).map_err(|e| SimError(format!("{name}: {e}")))?;
    let text = String::from_utf8(bytes).map_err(|_| SimError(format!("{name}: not UTF-8 text")))?;
    parse_cluster(&text, &name)
}

/// Parse cluster text (JSON, YAML, or multi-document YAML).
pub fn parse_cluster(text: &str, name: &str) -> Result<Cluster, SimError> {
    let docs: Vec<serde_json::Value> = if text.trim_start().starts_with('{') {
        vec![serde_json::from_str(text).map_err(|e| SimError(format!("{name}: {e}")))?]
    } else {
        serde_saphyr::from_multiple::<serde_json::Value>(text).map_err(|e| SimError(format!("{name}: {e}")))?
    };
    let mut cluster = Cluster::default();
    for (i, doc) in docs.into_iter().enumerate() {
        if doc.is_null() {
            continue;
        }
        let kind = doc.get("kind").and_then(|k| k.as_str()).unwrap_or("").to_string();
        if kind == "List" || kind.ends_with("List") {
            let items = doc.get("items").and_then(|i| i.as_array()).cloned().unwrap_or_default();
            let item_kind = kind.strip_suffix("List").filter(|k| !k.is_empty()).map(str::to_string);
            for (j, item) in items.into_iter().enumerate() {
                let k = item
                    .get("kind")
                    .and_then(|k| k.as_str())
                    .map(str::to_string)
                    .or_else(|| item_kind.clone())
                    .unwrap_or_default();
                add_object(&mut cluster, &k, item, &format!("{name}: document {i}: items[{j}]"))?;
            }
        } else {
            add_object(&mut cluster, &kind, doc, &format!("{name}: document {i}"))?;
        }
    }
    Ok(cluster)
}

/// Objects of cluster files are read as the API server's are: with Go's rules.
fn decode<T: serde::de::DeserializeOwned>(value: serde_json::Value, at: &str) -> Result<T, SimError> {
    serde_path_to_error::deserialize(crate::core::gojson::Go(value))
        .map_err(|e| SimError(format!("{at}: {}: {}", e.path(), e.inner())))
}

fn add_object(c: &mut Cluster, kind: &str, value: serde_json::Value, at: &str) -> Result<(), SimError> {
    match kind {
        "Node" => c.nodes.push(decode(value, at)?),
        "Pod" => c.pods.push(decode(value, at)?),
        "PriorityClass" => c.priority_classes.push(decode(value, at)?),
        "PersistentVolumeClaim" => c.pvcs.push(decode(value, at)?),
        "PersistentVolume" => c.pvs.push(decode(value, at)?),
        "StorageClass" => c.storage_classes.push(decode(value, at)?),
        "CSINode" => c.csi_nodes.push(decode(value, at)?),
        "PodDisruptionBudget" => c.pdbs.push(decode(value, at)?),
        "Namespace" => c.namespaces.push(decode(value, at)?),
        "Service" => c.services.push(decode(value, at)?),
        "ReplicationController" => c.replication_controllers.push(decode(value, at)?),
        "ReplicaSet" => c.replica_sets.push(decode(value, at)?),
        "StatefulSet" => c.stateful_sets.push(decode(value, at)?),
        "" => return Err(SimError(format!("{at}: object has no kind"))),
        other => *c.ignored_kinds.entry(other.to_string()).or_default() += 1,
    }
    Ok(())
}

/// One complete list of kind `T`, as an informer delivers it.
fn feed_list<T: Watched>(sched: &mut Scheduler, items: Vec<T>, now: Instant) {
    sched.handle(Input::watch::<T>(Change::ListBegin), now);
    sched.handle(Input::watch(Change::ListPage(items)), now);
    sched.handle(Input::watch::<T>(Change::ListDone), now);
}

/// Everything of a cluster file but the pods, listed as the informers would.
fn feed_cluster(sched: &mut Scheduler, c: &Cluster, now: Instant) {
    feed_list(sched, c.priority_classes.clone(), now);
    feed_list(sched, c.nodes.clone(), now);
    feed_list(sched, c.pvcs.clone(), now);
    feed_list(sched, c.pvs.clone(), now);
    feed_list(sched, c.storage_classes.clone(), now);
    feed_list(sched, c.csi_nodes.clone(), now);
    feed_list(sched, c.pdbs.clone(), now);
    feed_list(sched, c.namespaces.clone(), now);
    feed_list(sched, c.services.clone(), now);
    feed_list(sched, c.replication_controllers.clone(), now);
    feed_list(sched, c.replica_sets.clone(), now);
    feed_list(sched, c.stateful_sets.clone(), now);
}

/// Scores of one node in a decision.
#[derive(Debug, Clone, Serialize, PartialEq, Eq)]
pub struct NodeScore {
    pub total: i64,
    pub plugins: BTreeMap<String, i64>,
}

/// One explained decision.
#[derive(Debug, Clone, Serialize, PartialEq, Eq)]
#[serde(rename_all = "camelCase")]
pub struct Decision {
    pub pod: String,
    pub scheduler_name: String,
    pub node: Option<String>,
    pub evaluated_nodes: usize,
    pub feasible_nodes: usize,
    /// Node → why it was filtered out.
    pub filtered: BTreeMap<String, String>,
    /// Node → scores (only when more than one node was feasible).
    pub scores: BTreeMap<String, NodeScore>,
    pub message: String,
    /// Pods that would be preempted to make room (`namespace/name`).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub victims: Vec<String>,
    /// Node nominated by preemption, if any.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub nominated_node: Option<String>,
    /// Set when the pod was not considered (another scheduler's pod).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub skipped: Option<String>,
}

/// Build the frameworks of a configuration.
pub fn frameworks(cfg: &SchedulerConfig) -> Result<Vec<Framework>, SimError> {
    let ctx = PluginContext::default();
    cfg.profiles.iter().map(|p| Framework::new(p, &ctx).map_err(|e| SimError(e.to_string()))).collect()
}

/// Convert a cycle outcome into a decision.
pub fn decision_from(pod: &str, scheduler_name: &str, outcome: &ScheduleOutcome) -> Decision {
    let mut d = Decision {
        pod: pod.into(),
        scheduler_name: scheduler_name.into(),
        node: None,
        evaluated_nodes: 0,
        feasible_nodes: 0,
        filtered: BTreeMap::new(),
        scores: BTreeMap::new(),
        message: String::new(),
        victims: Vec::new(),
        nominated_node: None,
        skipped: None,
    };
    let diagnosis = match outcome {
        ScheduleOutcome::Scheduled { result, diagnosis, scores, .. } => {
            d.node = Some(result.node.to_string());
            d.evaluated_nodes = result.evaluated_nodes;
            d.feasible_nodes = result.feasible_nodes;
            for s in scores {
                d.scores.insert(
                    s.node.to_string(),
                    NodeScore { total: s.total, plugins: s.plugins.iter().map(|(n, v)| (n.to_string(), *v)).collect() },
                );
            }
            let (namespace, name) = pod.split_once('/').unwrap_or(("", pod));
            d.message = crate::core::texts::events::scheduled(namespace, name, &result.node);
            diagnosis
        }
        ScheduleOutcome::Unschedulable { diagnosis, message, post_filter, .. } => {
            d.evaluated_nodes = diagnosis.node_to_status.len();
            d.message = message.clone();
            d.nominated_node = post_filter.nominated_node.as_ref().filter(|n| !n.is_empty()).map(|n| n.to_string());
            d.victims = post_filter.victims.iter().map(|v| v.key.to_string()).collect();
            diagnosis
        }
        ScheduleOutcome::Error { message, diagnosis } => {
            d.message = message.clone();
            diagnosis
        }
    };
    for (node, status) in &diagnosis.node_to_status {
        d.filtered.insert(node.to_string(), status.message());
    }
    d
}

/// Run the simulation: every pending pod of our profiles is scheduled in queue order with
/// placements applied. `seed` fixes tie-breaks.
pub fn simulate(cfg: &SchedulerConfig, cluster: &Cluster, seed: u64) -> Result<Vec<Decision>, SimError> {
    let profiles = frameworks(cfg)?;
    let settings = Settings {
        percentage_of_nodes_to_score: cfg.percentage_of_nodes_to_score,
        pod_initial_backoff: Duration::from_secs(cfg.pod_initial_backoff_seconds.max(0) as u64),
        pod_max_backoff: Duration::from_secs(cfg.pod_max_backoff_seconds.max(0) as u64),
        ..Default::default()
    };
    let served: Vec<String> = profiles.iter().map(|p| p.scheduler_name.clone()).collect();
    let t0 = Instant::now();
    let mut now = t0;
    let mut sched = Scheduler::new(profiles, &settings, Metrics::new(), Rng::seeded(seed), now);

    feed_cluster(&mut sched, cluster, now);

    // Existing load first, then pending pods in creation order (the queue's arrival order).
    let mut decisions: BTreeMap<String, Decision> = BTreeMap::new();
    let mut order: Vec<String> = Vec::new();
    let mut pending: Vec<&api::Pod> = Vec::new();
    let mut assigned: Vec<Box<api::Pod>> = Vec::new();
    for p in &cluster.pods {
        let key = format!("{}/{}", p.metadata.namespace, p.metadata.name);
        let terminal = matches!(p.status.phase.as_str(), "Succeeded" | "Failed");
        if !p.spec.node_name.is_empty() {
            assigned.push(Box::new(p.clone()));
        } else if terminal {
            continue;
        } else {
            let name = if p.spec.scheduler_name.is_empty() { "default-scheduler" } else { p.spec.scheduler_name.as_str() };
            if served.iter().any(|s| s == name) {
                pending.push(p);
            } else {
                order.push(key.clone());
                decisions.insert(
                    key.clone(),
                    Decision {
                        pod: key,
                        scheduler_name: name.into(),
                        node: None,
                        evaluated_nodes: 0,
                        feasible_nodes: 0,
                        filtered: BTreeMap::new(),
                        scores: BTreeMap::new(),
                        message: String::new(),
                        victims: Vec::new(),
                        nominated_node: None,
                        skipped: Some(format!("schedulerName {name:?} is not served by this configuration")),
                    },
                );
            }
        }
    }
    pending.sort_by_key(|p| {
        p.metadata.creation_timestamp.as_deref().and_then(crate::core::timefmt::parse_rfc3339).unwrap_or((0, 0))
    });
    sched.handle(Input::watch_boxed::<api::Pod>(Change::ListBegin), now);
    sched.handle(Input::watch_boxed::<api::Pod>(Change::ListPage(assigned)), now);
    sched.handle(Input::watch_boxed::<api::Pod>(Change::ListDone), now);
    for p in &pending {
        now += Duration::from_micros(1);
        sched.handle(Input::watch_boxed::<api::Pod>(Change::Added(Box::new((*p).clone()))), now);
    }
    sched.handle(Input::Leading(true), now);
    let by_key: BTreeMap<String, &api::Pod> =
        pending.iter().map(|p| (format!("{}/{}", p.metadata.namespace, p.metadata.name), *p)).collect();
    let mut all_pods: BTreeMap<String, api::Pod> =
        cluster.pods.iter().map(|p| (format!("{}/{}", p.metadata.namespace, p.metadata.name), p.clone())).collect();

    // Each pod may be retried when a placement or eviction wakes it (bounded).
    let budget = pending.len() * 4 + 16;
    for _ in 0..budget {
        now += Duration::from_millis(1);
        let Some((attempt, outcome)) = sched.schedule_one(now, true) else { break };
        let (key, scheduler_name) = match &attempt {
            Attempt::Scheduled { pod, .. }
            | Attempt::Unschedulable { pod, .. }
            | Attempt::Error { pod, .. }
            | Attempt::Skipped { pod } => {
                let name = by_key.get(&**pod).map(|p| {
                    if p.spec.scheduler_name.is_empty() {
                        "default-scheduler".to_string()
                    } else {
                        p.spec.scheduler_name.clone()
                    }
                });
                (pod.to_string(), name.unwrap_or_default())
            }
        };
        if !order.contains(&key) {
            order.push(key.clone());
        }
        let decision = match (&attempt, &outcome) {
            (_, Some(o)) => decision_from(&key, &scheduler_name, o),
            (Attempt::Unschedulable { message, .. }, None) | (Attempt::Error { message, .. }, None) => {
                let mut d = decision_from(
                    &key,
                    &scheduler_name,
                    &ScheduleOutcome::Error { message: message.clone(), diagnosis: Default::default() },
                );
                d.message = message.clone();
                d
            }
            _ => continue,
        };
        // Keep preemption victims recorded by an earlier attempt of the same pod.
        let mut decision = decision;
        if let Some(prev) = decisions.get(&key) {
            if decision.victims.is_empty() && !prev.victims.is_empty() {
                decision.victims = prev.victims.clone();
            }
        }
        decisions.insert(key.clone(), decision);
        for effect in sched.take_effects() {
            match effect {
                Effect::Bind(b) => {
                    if let Some(p) = all_pods.get_mut(&*b.pod.key) {
                        p.spec.node_name = b.node.to_string();
                        sched.handle(Input::watch_boxed::<api::Pod>(Change::Modified(Box::new(p.clone()))), now);
                    }
                    sched.handle(Input::BindDone(BindOutcome { key: b.pod.key.clone(), node: b.node, result: Ok(()) }), now);
                }
                Effect::Evict(e) => {
                    if let Some(p) = all_pods.remove(&format!("{}/{}", e.namespace, e.name)) {
                        sched.handle(Input::watch_boxed::<api::Pod>(Change::Deleted(Box::new(p))), now);
                    }
                }
                Effect::PatchStatus(patch) => {
                    if let (Some(p), Some(n)) =
                        (all_pods.get_mut(&format!("{}/{}", patch.namespace, patch.name)), patch.nominated_node_name)
                    {
                        p.status.nominated_node_name = n;
                        sched.handle(Input::watch_boxed::<api::Pod>(Change::Modified(Box::new(p.clone()))), now);
                    }
                }
                Effect::Event(_) => {}
            }
        }
    }
    Ok(order.into_iter().filter_map(|k| decisions.remove(&k)).collect())
}

/// One JSON object per line.
pub fn render_json(decisions: &[Decision]) -> String {
    let mut out = String::new();
    for d in decisions {
        match serde_json::to_string(d) {
            Ok(s) => {
                out.push_str(&s);
                out.push('\n');
            }
            Err(e) => {
                let _ = writeln!(out, "{{\"pod\":{:?},\"error\":{:?}}}", d.pod, e.to_string());
            }
        }
    }
    out
}

/// A readable report with the same facts.
pub fn render_table(decisions: &[Decision]) -> String {
    let mut out = String::new();
    for d in decisions {
        if let Some(why) = &d.skipped {
            let _ = writeln!(out, "POD {}  (schedulerName {})\n  skipped: {why}\n", d.pod, d.scheduler_name);
            continue;
        }
        let verdict = match &d.node {
            Some(n) => format!("-> {n}"),
            None => "-> unschedulable".to_string(),
        };
        let _ = writeln!(
            out,
            "POD {}  (schedulerName {})  {verdict}  evaluated={} feasible={}",
            d.pod, d.scheduler_name, d.evaluated_nodes, d.feasible_nodes
        );
        if !d.scores.is_empty() {
            let plugins: Vec<&String> = d.scores.values().next().map(|s| s.plugins.keys().collect()).unwrap_or_default();
            let mut rows: Vec<(&String, &NodeScore)> = d.scores.iter().collect();
            rows.sort_by(|a, b| b.1.total.cmp(&a.1.total).then(a.0.cmp(b.0)));
            let width = rows.iter().map(|(n, _)| n.len()).max().unwrap_or(4).max(4);
            let _ = write!(out, "  {:<width$}  {:>6}", "NODE", "TOTAL");
            for p in &plugins {
                let _ = write!(out, "  {p}");
            }
            out.push('\n');
            for (node, s) in rows {
                let mark = if d.node.as_deref() == Some(node.as_str()) { "*" } else { " " };
                let _ = write!(out, "{mark} {node:<width$}  {:>6}", s.total);
                for p in &plugins {
                    let v = s.plugins.get(*p).copied().unwrap_or(0);
                    let _ = write!(out, "  {v:>w$}", w = p.len());
                }
                out.push('\n');
            }
        }
        for (node, reason) in &d.filtered {
            let _ = writeln!(out, "  x {node}: {reason}");
        }
        if let Some(n) = &d.nominated_node {
            let _ = writeln!(out, "  nominated node: {n}");
        }
        for v in &d.victims {
            let _ = writeln!(out, "  would preempt: {v}");
        }
        let _ = writeln!(out, "  {}\n", d.message);
    }
    out
}

/// Evaluate `targets` (`namespace/name`) one at a time against the cluster as it is, without
/// applying any placement: what the scheduler would decide for each right now. Shares the cycle
/// with the live scheduler and [`simulate`].
pub fn explain_pods(cfg: &SchedulerConfig, cluster: &Cluster, targets: &[String], seed: u64) -> Result<Vec<Decision>, SimError> {
    let profiles = frameworks(cfg)?;
    let settings = Settings {
        percentage_of_nodes_to_score: cfg.percentage_of_nodes_to_score,
        pod_initial_backoff: Duration::from_secs(1),
        pod_max_backoff: Duration::from_secs(1),
        ..Default::default()
    };
    let mut now = Instant::now();
    let mut sched = Scheduler::new(profiles, &settings, Metrics::new(), Rng::seeded(seed), now);
    feed_cluster(&mut sched, cluster, now);
    let assigned: Vec<Box<api::Pod>> = cluster
        .pods
        .iter()
        .filter(|p| !p.spec.node_name.is_empty() && !matches!(p.status.phase.as_str(), "Succeeded" | "Failed"))
        .cloned()
        .map(Box::new)
        .collect();
    sched.handle(Input::watch_boxed::<api::Pod>(Change::ListBegin), now);
    sched.handle(Input::watch_boxed::<api::Pod>(Change::ListPage(assigned)), now);
    sched.handle(Input::watch_boxed::<api::Pod>(Change::ListDone), now);
    sched.handle(Input::Leading(true), now);
    let mut out = Vec::new();
    for key in targets {
        let Some(pod) = cluster.pods.iter().find(|p| format!("{}/{}", p.metadata.namespace, p.metadata.name) == *key) else {
            continue;
        };
        let scheduler_name =
            if pod.spec.scheduler_name.is_empty() { "default-scheduler".to_string() } else { pod.spec.scheduler_name.clone() };
        now += Duration::from_millis(1);
        // A gated pod never reaches a cycle: report the gate instead.
        if !pod.spec.scheduling_gates.is_empty() {
            let gates: Vec<&str> = pod.spec.scheduling_gates.iter().map(|g| g.name.as_str()).collect();
            let mut d = decision_from(
                key,
                &scheduler_name,
                &ScheduleOutcome::Error { message: String::new(), diagnosis: Default::default() },
            );
            d.message = crate::core::texts::scheduling_gates::waiting_for_gates(&gates);
            out.push(d);
            continue;
        }
        sched.handle(Input::watch_boxed::<api::Pod>(Change::Added(Box::new(pod.clone()))), now);
        let result = sched.schedule_one(now, true);
        // Undo: forget any assumption and drop the pod from the queue.
        let _ = sched.take_effects();
        let key_arc: crate::core::model::PodKey = std::sync::Arc::from(key.as_str());
        sched.handle(
            Input::BindDone(BindOutcome {
                key: key_arc,
                node: "".into(),
                result: Err(crate::core::scheduler::BindFailure::Conflict("explain".into())),
            }),
            now,
        );
        sched.handle(Input::watch_boxed::<api::Pod>(Change::Deleted(Box::new(pod.clone()))), now);
        let _ = sched.take_effects();
        match result {
            Some((_, Some(outcome))) => out.push(decision_from(key, &scheduler_name, &outcome)),
            Some((Attempt::Unschedulable { message, .. }, None)) | Some((Attempt::Error { message, .. }, None)) => {
                let mut d = decision_from(
                    key,
                    &scheduler_name,
                    &ScheduleOutcome::Error { message: message.clone(), diagnosis: Default::default() },
                );
                d.message = message;
                out.push(d);
            }
            _ => {}
        }
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_lists_multi_documents_and_reports_bad_items() {
        let yaml = "apiVersion: v1\nkind: List\nitems:\n- apiVersion: v1\n  kind: Node\n  metadata: {name: n1}\n- apiVersion: v1\n  kind: Pod\n  metadata: {name: p, namespace: default}\n  spec: {containers: [{name: c}]}\n- apiVersion: v1\n  kind: ConfigMap\n  metadata: {name: s}\n---\napiVersion: scheduling.k8s.io/v1\nkind: PriorityClass\nmetadata: {name: high}\nvalue: 1000\n";
        let c = parse_cluster(yaml, "c.yaml").expect("parses");
        assert_eq!((c.nodes.len(), c.pods.len(), c.priority_classes.len()), (1, 1, 1));
        assert_eq!(c.ignored_kinds.get("ConfigMap"), Some(&1));
        let bad = "kind: List\nitems:\n- kind: Node\n  metadata: {name: [1]}\n";
        let e = parse_cluster(bad, "bad.yaml").expect_err("bad");
        assert!(e.0.contains("bad.yaml: document 0: items[0]: metadata.name"), "{e}");
        let json = r#"{"kind":"NodeList","items":[{"metadata":{"name":"n1"}}]}"#;
        assert_eq!(parse_cluster(json, "c.json").expect("json").nodes.len(), 1);
    }

    #[test]
    fn parses_the_objects_topology_plugins_read() {
        let yaml = "kind: Namespace\nmetadata: {name: team-a, labels: {team: a}}\n---\n\
                    kind: Service\nmetadata: {name: web, namespace: team-a}\nspec: {selector: {app: web}}\n---\n\
                    kind: ReplicationController\nmetadata: {name: rc, namespace: team-a}\nspec: {selector: {app: rc}}\n---\n\
                    apiVersion: apps/v1\nkind: ReplicaSet\nmetadata: {name: rs, namespace: team-a}\n\
                    spec: {selector: {matchLabels: {app: web}}}\n---\n\
                    apiVersion: apps/v1\nkind: StatefulSet\nmetadata: {name: db, namespace: team-a}\n\
                    spec: {selector: {matchExpressions: [{key: app, operator: In, values: [db]}]}}\n";
        let c = parse_cluster(yaml, "c.yaml").expect("parses");
        assert_eq!(c.namespaces.len(), 1);
        assert_eq!(c.services[0].spec.selector.as_ref().map(|s| s.len()), Some(1));
        assert_eq!(c.replication_controllers.len(), 1);
        assert_eq!(c.replica_sets.len(), 1);
        assert_eq!(c.stateful_sets[0].spec.selector.as_ref().map(|s| s.match_expressions.len()), Some(1));
        assert!(c.ignored_kinds.is_empty());
    }
}
