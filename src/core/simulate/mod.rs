//! Offline what-if scheduling (`edgesched simulate`, `edgesched capacity`) and the shared
//! explanation model used by `edgesched explain`.
//!
//! A cluster file (a Kubernetes `List` as `kubectl get nodes,pods,priorityclasses -A -o yaml`
//! writes it, JSON or YAML, or a multi-document YAML stream) is decoded object by object
//! ([`decode`]), checked ([`validate`]) and fed to the very same [`Scheduler`] the live binary
//! runs ([`stream::Simulation`]). Pending pods of our profiles are scheduled one by one in queue
//! order, each placement applied before the next, and each decision is written as soon as it is
//! final ([`report`]).

pub mod capacity;
pub mod claim_maker;
pub mod decode;
pub mod device_diagnosis;
pub mod html;
pub mod report;
pub mod stream;
pub mod synthetic;
pub mod validate;

use crate::core::api;
use crate::core::config::SchedulerConfig;
use crate::core::extender::{ExtenderNote, ExtenderSet, ExtenderTransport};
use crate::core::framework::plugins::PluginContext;
use crate::core::framework::{Framework, ScheduleOutcome};
use crate::core::metrics::Metrics;
use crate::core::rng::Rng;
use crate::core::scheduler::{Attempt, BindOutcome, Input, Scheduler, Settings};
use crate::core::watched::{self, snapshot_kinds, Change, KindChange, KindId, KindVisitor, Watched};
use serde::Serialize;
use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::sync::Arc;
use std::time::{Duration, Instant};

/// Objects of a cluster snapshot, kept per watched kind (the rows of the kind table), so a kind
/// added to the table is carried by cluster files, snapshots and `explain` without code here.
#[derive(Debug, Default, Clone)]
pub struct Cluster {
    /// Every object, as the `Added` change that brought it, by kind.
    objects: BTreeMap<KindId, Vec<KindChange>>,
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

impl Cluster {
    /// Keep a decoded object (an `Added` change; anything else is ignored). Claims and claim
    /// templates get the API server's defaulting (a hand-written file may leave it out).
    pub fn push(&mut self, mut change: KindChange) {
        match &mut change {
            KindChange::ResourceClaim(Change::Added(c)) => crate::core::dra::defaults::default_claim_spec(&mut c.spec),
            KindChange::ResourceClaimTemplate(Change::Added(t)) => {
                crate::core::dra::defaults::default_claim_spec(&mut t.spec.spec)
            }
            _ => {}
        }
        if change.is_added() {
            self.objects.entry(change.id()).or_default().push(change);
        }
    }

    /// The objects of kind `T`, in the order they were added.
    pub fn of<T: Watched + 'static>(&self) -> impl Iterator<Item = &T> {
        self.objects.get(&T::ID).into_iter().flatten().filter_map(KindChange::added::<T>)
    }

    /// The pods.
    pub fn pods(&self) -> impl Iterator<Item = &api::Pod> {
        self.of::<api::Pod>()
    }

    /// How many objects of kind `id` there are.
    pub fn count(&self, id: KindId) -> usize {
        self.objects.get(&id).map_or(0, Vec::len)
    }

    /// Every object as an `Added` change, kind by kind in table order with pods last: the order a
    /// simulation is fed from memory.
    pub fn changes(&self) -> Vec<KindChange> {
        let mut out = Vec::new();
        for row in snapshot_kinds().filter(|k| k.id != KindId::Pod) {
            out.extend(self.objects.get(&row.id).into_iter().flatten().cloned());
        }
        out.extend(self.objects.get(&KindId::Pod).into_iter().flatten().cloned());
        out
    }
}

/// Lists every cluster-state kind but pods into the scheduler, complete lists as an informer
/// delivers them (a kind without objects is listed empty, and so synced).
struct FeedKind<'a> {
    sched: &'a mut Scheduler,
    cluster: &'a Cluster,
    now: Instant,
}

impl KindVisitor for FeedKind<'_> {
    type Output = ();
    fn visit<T>(&mut self)
    where
        T: Watched + serde::de::DeserializeOwned + Send + 'static,
    {
        let items: Vec<Box<T>> = self.cluster.of::<T>().cloned().map(Box::new).collect();
        self.sched.handle(Input::watch_boxed::<T>(Change::ListBegin), self.now);
        self.sched.handle(Input::watch_boxed::<T>(Change::ListPage(items)), self.now);
        self.sched.handle(Input::watch_boxed::<T>(Change::ListDone), self.now);
    }

    /// Snapshots hold the built-in kinds only.
    fn visit_custom(&mut self, _id: KindId) {}
}

/// Everything of a cluster but the pods, listed as the informers would.
fn feed_cluster(sched: &mut Scheduler, c: &Cluster, now: Instant) {
    for row in snapshot_kinds().filter(|k| k.id != KindId::Pod) {
        watched::visit(row.id, &mut FeedKind { sched: &mut *sched, cluster: c, now });
    }
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
    /// What each extender said (filter, prioritize, preempt), in call order.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub extenders: Vec<ExtenderNote>,
    /// Node → the device requests that found no device there (for the nodes filtered with
    /// `cannot allocate all claims`).
    #[serde(skip_serializing_if = "BTreeMap::is_empty")]
    pub devices_missing: BTreeMap<String, Vec<String>>,
    /// For a pod of a gang (GangScheduling in its profile): how far its group is.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub gang: Option<String>,
}

/// Build the frameworks of a configuration (NodeResourcesFit ignoring the resources extenders
/// take over, as the live scheduler's).
pub fn frameworks(cfg: &SchedulerConfig) -> Result<Vec<Framework>, SimError> {
    let ctx = PluginContext::default();
    let mut profiles = cfg.profiles.clone();
    crate::core::extender::apply_ignored_resources(&cfg.extenders, &mut profiles);
    profiles.iter().map(|p| Framework::new(p, &ctx).map_err(|e| SimError(e.to_string()))).collect()
}

/// The extenders a simulation consults, through `transport` (none without one: binds are
/// always simulated, never delegated).
pub fn extender_set(cfg: &SchedulerConfig, transport: Option<Arc<dyn ExtenderTransport>>) -> Option<ExtenderSet> {
    transport.and_then(|t| ExtenderSet::new(&cfg.extenders, t))
}

/// Convert a cycle outcome into a decision.
pub fn decision_from(pod: &str, scheduler_name: &str, outcome: &ScheduleOutcome) -> Decision {
    let v = report::Verdict::of(pod, outcome);
    Decision {
        pod: pod.into(),
        scheduler_name: scheduler_name.into(),
        node: v.node,
        evaluated_nodes: v.evaluated_nodes,
        feasible_nodes: v.feasible_nodes,
        filtered: v.diagnosis.node_to_status.iter().map(|(node, status)| (node.to_string(), status.message())).collect(),
        scores: v
            .scores
            .iter()
            .map(|s| (s.node.to_string(), NodeScore { total: s.total, plugins: report::plugin_scores(s) }))
            .collect(),
        message: v.message,
        victims: v.victims,
        nominated_node: v.nominated_node,
        skipped: None,
        extenders: v.diagnosis.extender_notes.clone(),
        devices_missing: BTreeMap::new(),
        gang: None,
    }
}

/// Where a gang pod's group stands in a cluster file or snapshot.
struct GangState {
    group: String,
    min_count: usize,
    counts: crate::core::gang::Counts,
}

impl GangState {
    /// The `gang:` line of `explain`; `fits`: the pod found a node (it would then wait at
    /// Permit unless it completes the quorum).
    fn describe(&self, fits: bool) -> String {
        let waits = fits && self.counts.placed + 1 < self.min_count;
        crate::core::texts::what_if_gang::state(&self.group, self.counts.all, self.min_count, self.counts.placed, waits)
    }
}

/// The gang `pod` belongs to (a Workload's group with a `gang` policy), counted among the
/// cluster's pods (pending and bound); `None` for any other pod.
fn gang_state(cluster: &Cluster, pod: &api::Pod) -> Option<GangState> {
    use crate::core::gang::{v1alpha1, Policy};
    let r = pod.spec.workload_ref.as_ref()?;
    let ns = &pod.metadata.namespace;
    let workload = cluster.of::<api::Workload>().find(|w| w.metadata.namespace == *ns && w.metadata.name == r.name)?;
    let Some(Policy::Gang { min_count }) = v1alpha1::policy_of(workload, &r.pod_group) else { return None };
    let pods = cluster.pods().filter(|p| !matches!(p.status.phase.as_str(), "Succeeded" | "Failed"));
    let key = |p: &api::Pod| format!("{}/{}", p.metadata.namespace, p.metadata.name);
    let keys: Vec<(String, &api::Pod)> = pods.map(|p| (key(p), p)).collect();
    let counts = v1alpha1::count_among(
        ns,
        Some(r),
        keys.iter().map(|(k, p)| {
            (p.metadata.namespace.as_str(), p.spec.workload_ref.as_ref(), k.as_str(), !p.spec.node_name.is_empty())
        }),
    );
    Some(GangState { group: format!("{ns}/{}/{}", r.name, r.pod_group), min_count, counts })
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
            for miss in d.devices_missing.get(node).into_iter().flatten() {
                let _ = writeln!(out, "      {miss}");
            }
        }
        for e in &d.extenders {
            let _ = writeln!(out, "{}", report::extender_line(e));
        }
        if let Some(g) = &d.gang {
            let _ = writeln!(out, "  gang: {g}");
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
/// with the live scheduler and `simulate`.
///
/// `extenders` reaches the configured extenders (filter, prioritize and preempt are called);
/// `None` leaves them out.
pub fn explain_pods(
    cfg: &SchedulerConfig,
    cluster: &Cluster,
    targets: &[String],
    seed: u64,
    extenders: Option<Arc<dyn ExtenderTransport>>,
) -> Result<Vec<Decision>, SimError> {
    let profiles = frameworks(cfg)?;
    let gang_profiles: Vec<String> = profiles
        .iter()
        .filter(|f| f.has_plugin(crate::core::framework::plugins::names::GANG_SCHEDULING))
        .map(|f| f.scheduler_name.to_string())
        .collect();
    let settings = Settings {
        percentage_of_nodes_to_score: cfg.percentage_of_nodes_to_score,
        pod_initial_backoff: Duration::from_secs(1),
        pod_max_backoff: Duration::from_secs(1),
        ..Default::default()
    };
    let mut now = Instant::now();
    let mut sched = Scheduler::new(profiles, &settings, Metrics::new(), Rng::seeded(seed), now);
    sched.set_extenders(extender_set(cfg, extenders));
    feed_cluster(&mut sched, cluster, now);
    // Claims from templates are made per explained pod (and removed after), as `simulate` makes them.
    let mut claim_maker = claim_maker::ClaimMaker::new(seed);
    for t in cluster.of::<api::ResourceClaimTemplate>() {
        claim_maker.add_template(t.clone());
    }
    for c in cluster.of::<api::ResourceClaim>() {
        claim_maker.claim_exists(&c.metadata.namespace, &c.metadata.name);
    }
    let dra_features = crate::core::framework::plugins::dynamic_resources::DraFeatures::defaults().allocator;
    let assigned: Vec<Box<api::Pod>> = cluster
        .pods()
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
        let Some(pod) = cluster.pods().find(|p| format!("{}/{}", p.metadata.namespace, p.metadata.name) == *key) else {
            continue;
        };
        let mut pod = pod.clone();
        let (made, _) = claim_maker.make_for(&mut pod);
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
        let gang = gang_profiles.contains(&scheduler_name).then(|| gang_state(cluster, &pod)).flatten();
        if let Some(g) = gang.as_ref().filter(|g| g.counts.all < g.min_count) {
            // Held at PreEnqueue: it never reaches a cycle.
            let mut d = decision_from(
                key,
                &scheduler_name,
                &ScheduleOutcome::Error { message: String::new(), diagnosis: Default::default() },
            );
            d.message = crate::core::texts::gang_scheduling::WAITING_FOR_MIN_COUNT.to_string();
            d.gang = Some(g.describe(false));
            out.push(d);
            continue;
        }
        for claim in &made {
            sched.handle(Input::watch_boxed::<api::ResourceClaim>(Change::Added(Box::new(claim.clone()))), now);
        }
        sched.handle(Input::watch_boxed::<api::Pod>(Change::Added(Box::new(pod.clone()))), now);
        // A gang pod is counted with its pending siblings, which arrive after it (so it stays
        // first in the queue once they complete its quorum) and leave with it.
        let siblings: Vec<api::Pod> = if gang.is_some() {
            cluster
                .pods()
                .filter(|p| p.spec.node_name.is_empty() && !matches!(p.status.phase.as_str(), "Succeeded" | "Failed"))
                .filter(|p| p.metadata.namespace == pod.metadata.namespace && p.metadata.name != pod.metadata.name)
                .filter(|p| p.spec.workload_ref.is_some() && p.spec.workload_ref == pod.spec.workload_ref)
                .cloned()
                .collect()
        } else {
            Vec::new()
        };
        for s in &siblings {
            sched.handle(Input::watch_boxed::<api::Pod>(Change::Added(Box::new(s.clone()))), now);
        }
        let result = sched.schedule_one(now, crate::core::framework::cycle::Explain::All);
        // Undo: forget any assumption and drop the pod from the queue.
        let _ = sched.take_effects();
        let key_arc: crate::core::model::PodKey = std::sync::Arc::from(key.as_str());
        sched.handle(
            Input::BindDone(BindOutcome::new(
                key_arc,
                "".into(),
                Err(crate::core::scheduler::BindFailure::Conflict("explain".into())),
            )),
            now,
        );
        sched.handle(Input::watch_boxed::<api::Pod>(Change::Deleted(Box::new(pod.clone()))), now);
        for s in siblings {
            sched.handle(Input::watch_boxed::<api::Pod>(Change::Deleted(Box::new(s))), now);
        }
        let _ = sched.take_effects();
        let devices_missing = |d: &Decision| -> BTreeMap<String, Vec<String>> {
            d.filtered
                .iter()
                .filter(|(_, reason)| reason.as_str() == crate::core::texts::dynamic_resources::CANNOT_ALLOCATE_ALL_CLAIMS)
                .map(|(node, _)| (node.clone(), device_diagnosis::unallocatable(sched.cache(), dra_features, &pod, node)))
                .filter(|(_, misses)| !misses.is_empty())
                .collect()
        };
        let decision = match &result {
            Some((_, Some(outcome))) => {
                let mut d = decision_from(key, &scheduler_name, outcome);
                d.devices_missing = devices_missing(&d);
                d.gang = gang.as_ref().map(|g| g.describe(d.node.is_some()));
                Some(d)
            }
            _ => None,
        };
        for claim in made {
            sched.handle(Input::watch_boxed::<api::ResourceClaim>(Change::Deleted(Box::new(claim))), now);
        }
        let _ = sched.take_effects();
        match result {
            Some((_, Some(_))) => out.extend(decision),
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
