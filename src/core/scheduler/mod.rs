//! The scheduler core: a deterministic state machine fed with watch changes and binding results,
//! producing effects (bind, record an event, patch a pod's status) for the shell to perform.
//!
//! It owns the node table, the queue and the profiles, mirrors upstream's event handlers
//! (pkg/scheduler/eventhandlers.go) and failure handling (schedule_one.go `handleSchedulingFailure`),
//! and never performs I/O itself, so the live loop, `simulate` and tests drive the same code.

use crate::core::api;
use crate::core::cache::{Cache, NodeChange};
use crate::core::events::{pod_reference, EventRecord, EventType};
use crate::core::framework::cycle::{CycleParams, NO_NODES_AVAILABLE};
use crate::core::framework::{status::truncate_note, EventMask, Framework, ScheduleOutcome};
use crate::core::logging::Line;
use crate::core::metrics::{names as m, Metrics};
use crate::core::model::{NodeSpecInfo, PodInfo, PodKey, PreemptionPolicy, PriorityResolver};
use crate::core::queue::{Location, QueuedPod, Requeue, SchedulingQueue};
use crate::core::rng::Rng;
use crate::core::watched::{self, KindId};
use log::{debug, info, warn};
use std::collections::{BTreeMap, HashMap, HashSet};
use std::sync::Arc;
use std::time::{Duration, Instant, SystemTime};

/// A change observed by a watch (the shell converts the watcher's updates into these).
#[derive(Debug)]
pub enum Change<T> {
    /// A full relist starts; objects not seen before `ListDone` are gone afterwards.
    ListBegin,
    ListPage(Vec<T>),
    ListDone,
    Added(T),
    Modified(T),
    Deleted(T),
    /// The kind cannot be read (RBAC forbids it): an optional kind's feature is off and its
    /// objects are forgotten until a later list succeeds.
    Unavailable,
}

impl<T> Change<T> {
    /// What this change says about the kind's sync state, if anything.
    fn sync_state(&self) -> Option<KindSync> {
        match self {
            Change::ListDone => Some(KindSync::Synced),
            Change::Unavailable => Some(KindSync::Unavailable),
            _ => None,
        }
    }
}

/// How far a watched kind has come.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum KindSync {
    /// No complete list yet.
    Waiting,
    /// Listed at least once.
    Synced,
    /// Forbidden (only meaningful for optional kinds, which then do not hold up scheduling).
    Unavailable,
}

/// Everything the scheduler thread reacts to.
#[derive(Debug)]
pub enum Input {
    Pod(Change<Box<api::Pod>>),
    Node(Change<Box<api::Node>>),
    PriorityClass(Change<api::PriorityClass>),
    /// Leader-election leases (which other schedulers run).
    Lease(Change<api::Lease>),
    PodDisruptionBudget(Change<api::PodDisruptionBudget>),
    PersistentVolumeClaim(Change<api::PersistentVolumeClaim>),
    PersistentVolume(Change<api::PersistentVolume>),
    StorageClass(Change<api::StorageClass>),
    CsiNode(Change<api::CsiNode>),
    /// Namespace labels (InterPodAffinity `namespaceSelector`).
    Namespace(Change<api::Namespace>),
    /// Controller selectors for PodTopologySpread's default constraints.
    Service(Change<api::Service>),
    ReplicationController(Change<api::ReplicationController>),
    ReplicaSet(Change<api::ReplicaSet>),
    StatefulSet(Change<api::StatefulSet>),
    BindDone(BindOutcome),
    /// Leadership gained (`true`) or lost.
    Leading(bool),
}

impl Input {
    /// The watched kind this input comes from and the sync state it reports, if any.
    fn kind_sync(&self) -> Option<(KindId, KindSync)> {
        let (id, state) = match self {
            Input::Pod(c) => (KindId::Pod, c.sync_state()),
            Input::Node(c) => (KindId::Node, c.sync_state()),
            Input::PriorityClass(c) => (KindId::PriorityClass, c.sync_state()),
            Input::Lease(c) => (KindId::Lease, c.sync_state()),
            Input::PodDisruptionBudget(c) => (KindId::PodDisruptionBudget, c.sync_state()),
            Input::PersistentVolumeClaim(c) => (KindId::PersistentVolumeClaim, c.sync_state()),
            Input::PersistentVolume(c) => (KindId::PersistentVolume, c.sync_state()),
            Input::StorageClass(c) => (KindId::StorageClass, c.sync_state()),
            Input::CsiNode(c) => (KindId::CsiNode, c.sync_state()),
            Input::Namespace(c) => (KindId::Namespace, c.sync_state()),
            Input::Service(c) => (KindId::Service, c.sync_state()),
            Input::ReplicationController(c) => (KindId::ReplicationController, c.sync_state()),
            Input::ReplicaSet(c) => (KindId::ReplicaSet, c.sync_state()),
            Input::StatefulSet(c) => (KindId::StatefulSet, c.sync_state()),
            Input::BindDone(_) | Input::Leading(_) => return None,
        };
        state.map(|s| (id, s))
    }
}

/// Result of a binding performed by the shell.
#[derive(Debug, Clone)]
pub struct BindOutcome {
    pub key: PodKey,
    pub node: Box<str>,
    pub result: Result<(), BindFailure>,
}

/// Why a binding failed.
#[derive(Debug, Clone)]
pub enum BindFailure {
    /// 409: the pod is already bound (another scheduler won) or being deleted. We lost it.
    Conflict(String),
    /// Anything else (404, 5xx after retries, transport): forget and retry with backoff.
    Other(String),
}

/// A request to bind a pod, with what the binder needs to log and measure.
#[derive(Debug, Clone)]
pub struct BindRequest {
    pub pod: Arc<PodInfo>,
    pub node: Box<str>,
    /// Writes to perform before the binding (volume claims), in order.
    pub pre_bind: Vec<crate::core::framework::PreBindAction>,
    pub profile: String,
    pub evaluated_nodes: usize,
    pub feasible_nodes: usize,
    pub attempts: u32,
    pub initial_attempt: Option<Instant>,
    pub cycle_start: Instant,
}

/// The PodScheduled condition (and nominated node) to write to a pod's status.
#[derive(Debug, Clone)]
pub struct StatusPatch {
    pub namespace: String,
    pub name: String,
    pub uid: String,
    pub condition: Option<api::PodCondition>,
    /// `Some(node)` sets `status.nominatedNodeName` (empty string clears it).
    pub nominated_node_name: Option<String>,
}

/// Work for the shell.
#[derive(Debug, Clone)]
pub enum Effect {
    Bind(BindRequest),
    Event(EventRecord),
    PatchStatus(StatusPatch),
    /// Evict a preemption victim (delete with a uid precondition) after marking it with a
    /// `DisruptionTarget` condition.
    Evict {
        namespace: String,
        name: String,
        uid: String,
        preemptor_uid: String,
        node: String,
        profile: String,
    },
}

/// What one scheduling attempt did (for metrics and tests).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Attempt {
    Scheduled {
        pod: PodKey,
        node: Box<str>,
    },
    Unschedulable {
        pod: PodKey,
        message: String,
    },
    Error {
        pod: PodKey,
        message: String,
    },
    /// Popped but not attempted (being deleted, already assumed, profile gone).
    Skipped {
        pod: PodKey,
    },
}

/// PriorityClasses by name, for pods created without `spec.priority`.
#[derive(Debug, Default)]
pub struct PriorityClasses {
    classes: HashMap<String, (i32, Option<PreemptionPolicy>, bool)>,
    /// RBAC forbids reading classes: a class name cannot be judged missing.
    unavailable: bool,
}

impl PriorityClasses {
    fn upsert(&mut self, pc: &api::PriorityClass) {
        let policy = pc.preemption_policy.as_deref().map(|p| {
            if p == "Never" {
                PreemptionPolicy::Never
            } else {
                PreemptionPolicy::PreemptLowerPriority
            }
        });
        self.classes.insert(pc.metadata.name.clone(), (pc.value, policy, pc.global_default));
    }
}

impl PriorityResolver for PriorityClasses {
    fn class(&self, name: &str) -> Option<(i32, Option<PreemptionPolicy>)> {
        self.classes.get(name).map(|(v, p, _)| (*v, *p))
    }
    fn global_default(&self) -> Option<(i32, Option<PreemptionPolicy>)> {
        self.classes.values().find(|c| c.2).map(|(v, p, _)| (*v, *p))
    }
    fn knows_classes(&self) -> bool {
        !self.unavailable
    }
}

/// Static settings of the scheduler core.
#[derive(Debug, Clone, Default)]
pub struct Settings {
    pub percentage_of_nodes_to_score: i32,
    pub pod_initial_backoff: Duration,
    pub pod_max_backoff: Duration,
    /// Scheduler names served by schedulers we cannot see (`--known-scheduler-names`).
    pub known_scheduler_names: Vec<String>,
    /// Record a Warning event on pods whose scheduler name nobody serves.
    pub warn_unserved_scheduler_names: bool,
}

/// A pending pod that names another scheduler.
#[derive(Debug, Clone)]
struct ForeignPod {
    scheduler_name: String,
    namespace: String,
    name: String,
    uid: String,
    resource_version: String,
    first_seen: Instant,
    reported: bool,
}

/// How long a foreign pod may stay pending before its scheduler name is checked (its own
/// scheduler usually binds it within this time).
pub const UNSERVED_GRACE: Duration = Duration::from_secs(30);
/// How often unserved names are re-evaluated.
const UNSERVED_CHECK_EVERY: Duration = Duration::from_secs(10);

/// What scheduling waits for when nobody says otherwise: the pods, the nodes and (for pods
/// without `spec.priority`) the priority classes.
const DEFAULT_KINDS: [KindId; 3] = [KindId::Node, KindId::Pod, KindId::PriorityClass];

/// Minimum interval between gauge refreshes from the hot paths.
const GAUGE_PERIOD: Duration = Duration::from_millis(100);

/// Rejector name used for pods whose spec we cannot read; only their own update can help.
const POD_SPEC: &str = "PodSpec";

/// The scheduler core.
pub struct Scheduler {
    profiles: Vec<Framework>,
    cache: Cache,
    queue: SchedulingQueue,
    priority_classes: PriorityClasses,
    /// Unassigned pods of our profiles, as last seen (for re-conversion and change detection).
    pending: HashMap<PodKey, Arc<api::Pod>>,
    next_start_node_index: usize,
    percentage_of_nodes_to_score: i32,
    rng: Rng,
    /// Sync state of every kind scheduling waits for (see [`Scheduler::watch_kinds`]).
    kinds: BTreeMap<KindId, KindSync>,
    relisting_pods: Option<HashSet<PodKey>>,
    relisting_nodes: Option<HashSet<Box<str>>>,
    relisting_classes: Option<HashSet<String>>,
    leading: bool,
    effects: Vec<Effect>,
    metrics: Metrics,
    known_scheduler_names: Vec<String>,
    warn_unserved: bool,
    leases: HashMap<String, api::Lease>,
    relisting_leases: Option<HashSet<String>>,
    relisting_budgets: Option<HashSet<(String, String)>>,
    foreign: HashMap<PodKey, ForeignPod>,
    last_unserved_check: Option<Instant>,
    relisting_storage: HashMap<&'static str, HashSet<String>>,
    /// When the pending/cache gauges may be refreshed again (see `update_gauges_throttled`).
    gauges_due: Option<Instant>,
}

/// Namespaces and controllers the topology plugins read, handled uniformly by the scheduler.
pub trait ClusterObject {
    const KIND: crate::core::cache::cluster::ClusterKind;
    fn key(&self) -> String;
    fn upsert(&self, c: &mut crate::core::cache::cluster::ClusterObjects);
}

fn namespaced_key(meta: &api::ObjectMeta) -> String {
    format!("{}/{}", meta.namespace, meta.name)
}

impl ClusterObject for api::Namespace {
    const KIND: crate::core::cache::cluster::ClusterKind = crate::core::cache::cluster::ClusterKind::Namespace;
    fn key(&self) -> String {
        self.metadata.name.clone()
    }
    fn upsert(&self, c: &mut crate::core::cache::cluster::ClusterObjects) {
        c.upsert_namespace(self);
    }
}

impl ClusterObject for api::Service {
    const KIND: crate::core::cache::cluster::ClusterKind = crate::core::cache::cluster::ClusterKind::Service;
    fn key(&self) -> String {
        namespaced_key(&self.metadata)
    }
    fn upsert(&self, c: &mut crate::core::cache::cluster::ClusterObjects) {
        c.upsert_service(self);
    }
}

impl ClusterObject for api::ReplicationController {
    const KIND: crate::core::cache::cluster::ClusterKind = crate::core::cache::cluster::ClusterKind::ReplicationController;
    fn key(&self) -> String {
        namespaced_key(&self.metadata)
    }
    fn upsert(&self, c: &mut crate::core::cache::cluster::ClusterObjects) {
        c.upsert_replication_controller(self);
    }
}

impl ClusterObject for api::ReplicaSet {
    const KIND: crate::core::cache::cluster::ClusterKind = crate::core::cache::cluster::ClusterKind::ReplicaSet;
    fn key(&self) -> String {
        namespaced_key(&self.metadata)
    }
    fn upsert(&self, c: &mut crate::core::cache::cluster::ClusterObjects) {
        c.upsert_replica_set(self);
    }
}

impl ClusterObject for api::StatefulSet {
    const KIND: crate::core::cache::cluster::ClusterKind = crate::core::cache::cluster::ClusterKind::StatefulSet;
    fn key(&self) -> String {
        namespaced_key(&self.metadata)
    }
    fn upsert(&self, c: &mut crate::core::cache::cluster::ClusterObjects) {
        c.upsert_stateful_set(self);
    }
}

/// The storage objects the volume plugins read, handled uniformly by the scheduler.
pub trait StorageObject {
    const KIND: &'static str;
    fn key(&self) -> String;
    fn upsert(&self, s: &mut crate::core::cache::storage::StorageState);
    fn keys(s: &crate::core::cache::storage::StorageState) -> Vec<String>;
    fn remove_key(s: &mut crate::core::cache::storage::StorageState, key: &str);
}

impl StorageObject for api::PersistentVolumeClaim {
    const KIND: &'static str = "PersistentVolumeClaim";
    fn key(&self) -> String {
        format!("{}/{}", self.metadata.namespace, self.metadata.name)
    }
    fn upsert(&self, s: &mut crate::core::cache::storage::StorageState) {
        s.upsert_pvc(self);
    }
    fn keys(s: &crate::core::cache::storage::StorageState) -> Vec<String> {
        s.claim_keys()
    }
    fn remove_key(s: &mut crate::core::cache::storage::StorageState, key: &str) {
        if let Some((ns, name)) = key.split_once('/') {
            s.remove_pvc(ns, name);
        }
    }
}

impl StorageObject for api::PersistentVolume {
    const KIND: &'static str = "PersistentVolume";
    fn key(&self) -> String {
        self.metadata.name.clone()
    }
    fn upsert(&self, s: &mut crate::core::cache::storage::StorageState) {
        s.upsert_pv(self);
    }
    fn keys(s: &crate::core::cache::storage::StorageState) -> Vec<String> {
        s.volume_names()
    }
    fn remove_key(s: &mut crate::core::cache::storage::StorageState, key: &str) {
        s.remove_pv(key);
    }
}

impl StorageObject for api::StorageClass {
    const KIND: &'static str = "StorageClass";
    fn key(&self) -> String {
        self.metadata.name.clone()
    }
    fn upsert(&self, s: &mut crate::core::cache::storage::StorageState) {
        s.upsert_storage_class(self);
    }
    fn keys(s: &crate::core::cache::storage::StorageState) -> Vec<String> {
        s.class_names()
    }
    fn remove_key(s: &mut crate::core::cache::storage::StorageState, key: &str) {
        s.remove_storage_class(key);
    }
}

impl StorageObject for api::CsiNode {
    const KIND: &'static str = "CSINode";
    fn key(&self) -> String {
        self.metadata.name.clone()
    }
    fn upsert(&self, s: &mut crate::core::cache::storage::StorageState) {
        s.upsert_csi_node(self);
    }
    fn keys(s: &crate::core::cache::storage::StorageState) -> Vec<String> {
        s.csi_node_names()
    }
    fn remove_key(s: &mut crate::core::cache::storage::StorageState, key: &str) {
        s.remove_csi_node(key);
    }
}

impl Scheduler {
    pub fn new(profiles: Vec<Framework>, settings: &Settings, metrics: Metrics, rng: Rng, now: Instant) -> Scheduler {
        Scheduler {
            profiles,
            cache: Cache::new(),
            queue: SchedulingQueue::new(settings.pod_initial_backoff, settings.pod_max_backoff, now),
            priority_classes: PriorityClasses::default(),
            pending: HashMap::new(),
            next_start_node_index: 0,
            percentage_of_nodes_to_score: settings.percentage_of_nodes_to_score,
            rng,
            kinds: DEFAULT_KINDS.iter().map(|k| (*k, KindSync::Waiting)).collect(),
            relisting_pods: None,
            relisting_nodes: None,
            relisting_classes: None,
            leading: false,
            effects: Vec::new(),
            metrics,
            known_scheduler_names: settings.known_scheduler_names.clone(),
            warn_unserved: settings.warn_unserved_scheduler_names,
            leases: HashMap::new(),
            relisting_leases: None,
            relisting_budgets: None,
            foreign: HashMap::new(),
            last_unserved_check: None,
            relisting_storage: HashMap::new(),
            gauges_due: None,
        }
    }

    /// Read access for diagnostics and tests.
    pub fn cache(&self) -> &Cache {
        &self.cache
    }

    pub fn queue(&self) -> &SchedulingQueue {
        &self.queue
    }

    pub fn profiles(&self) -> &[Framework] {
        &self.profiles
    }

    /// The kinds scheduling waits for, with their sync state.
    pub fn kind_states(&self) -> impl Iterator<Item = (KindId, KindSync)> + '_ {
        self.kinds.iter().map(|(k, s)| (*k, *s))
    }

    /// All informers synced: scheduling may start (upstream WaitForCacheSync). An optional kind
    /// that RBAC forbids counts as answered.
    pub fn caches_synced(&self) -> bool {
        self.kinds.iter().all(|(id, state)| match state {
            KindSync::Synced => true,
            KindSync::Unavailable => !watched::kind(*id).is_required(),
            KindSync::Waiting => false,
        })
    }

    /// The kinds still holding up scheduling (for readiness messages).
    pub fn kinds_not_synced(&self) -> Vec<KindId> {
        self.kinds
            .iter()
            .filter(|(id, s)| match s {
                KindSync::Synced => false,
                KindSync::Unavailable => watched::kind(**id).is_required(),
                KindSync::Waiting => true,
            })
            .map(|(id, _)| *id)
            .collect()
    }

    /// Wait for exactly these kinds before scheduling (the live scheduler waits for every kind it
    /// watches, as upstream waits for every informer; `simulate` feeds what its file holds).
    pub fn watch_kinds(&mut self, ids: &[KindId]) {
        let old = std::mem::take(&mut self.kinds);
        self.kinds = ids.iter().map(|id| (*id, old.get(id).copied().unwrap_or(KindSync::Waiting))).collect();
    }

    pub fn is_leading(&self) -> bool {
        self.leading
    }

    /// Take the effects produced so far.
    pub fn take_effects(&mut self) -> Vec<Effect> {
        std::mem::take(&mut self.effects)
    }

    fn profile(&self, name: &str) -> Option<&Framework> {
        self.profiles.iter().find(|p| p.scheduler_name == name)
    }

    fn serves(&self, scheduler_name: &str) -> bool {
        self.profile(scheduler_name).is_some()
    }

    /// Feed one input.
    pub fn handle(&mut self, input: Input, now: Instant) {
        if let Some((id, state)) = input.kind_sync() {
            if let Some(s) = self.kinds.get_mut(&id) {
                *s = state;
            }
        }
        match input {
            Input::Pod(c) => self.on_pod_change(c, now),
            Input::Node(c) => self.on_node_change(c, now),
            Input::PriorityClass(c) => self.on_priority_class_change(c, now),
            Input::Lease(c) => self.on_lease_change(c),
            Input::PodDisruptionBudget(c) => self.on_budget_change(c),
            Input::PersistentVolumeClaim(c) => self.on_storage_change(c, now, EventMask::PVC_CHANGE),
            Input::PersistentVolume(c) => self.on_storage_change(c, now, EventMask::PV_CHANGE),
            Input::StorageClass(c) => self.on_storage_change(c, now, EventMask::STORAGE_CLASS_CHANGE),
            Input::CsiNode(c) => self.on_storage_change(c, now, EventMask::CSI_NODE_CHANGE),
            Input::Namespace(c) => self.on_cluster_change(c, now, EventMask::NAMESPACE_CHANGE),
            // Upstream registers no queueing events for these (PodTopologySpread only reacts to
            // pods and nodes), so they update the table without moving pods.
            Input::Service(c) => self.on_cluster_change(c, now, EventMask::NONE),
            Input::ReplicationController(c) => self.on_cluster_change(c, now, EventMask::NONE),
            Input::ReplicaSet(c) => self.on_cluster_change(c, now, EventMask::NONE),
            Input::StatefulSet(c) => self.on_cluster_change(c, now, EventMask::NONE),
            Input::BindDone(o) => self.on_bind_done(o, now),
            Input::Leading(l) => {
                self.leading = l;
                for p in &self.profiles {
                    debug!("{}", Line::new("Leadership changed").s("profile", &p.scheduler_name).n("leading", l));
                }
            }
        }
        self.update_gauges_throttled(now);
    }

    // ------------------------------------------------------------------------------------------
    // Pods
    // ------------------------------------------------------------------------------------------

    fn on_pod_change(&mut self, c: Change<Box<api::Pod>>, now: Instant) {
        match c {
            Change::ListBegin => self.relisting_pods = Some(HashSet::new()),
            Change::ListPage(pods) => {
                for pod in pods {
                    if let Some(seen) = self.relisting_pods.as_mut() {
                        seen.insert(crate::core::model::pod_key(&pod.metadata.namespace, &pod.metadata.name));
                    }
                    self.on_pod_upsert(pod, now);
                }
            }
            Change::ListDone => {
                if let Some(seen) = self.relisting_pods.take() {
                    let mut known: HashSet<PodKey> = self.cache.pod_keys().into_iter().collect();
                    known.extend(self.pending.keys().cloned());
                    known.extend(self.foreign.keys().cloned());
                    for key in known.difference(&seen) {
                        // Assumed pods are ours and in flight: the relist may predate their binding.
                        if self.cache.is_assumed(key) {
                            continue;
                        }
                        self.on_pod_gone(key, now);
                    }
                }
            }
            Change::Added(p) | Change::Modified(p) => self.on_pod_upsert(p, now),
            Change::Deleted(p) => {
                let key = crate::core::model::pod_key(&p.metadata.namespace, &p.metadata.name);
                self.on_pod_gone(&key, now);
            }
            Change::Unavailable => {}
        }
    }

    fn on_pod_upsert(&mut self, pod: Box<api::Pod>, now: Instant) {
        let info = Arc::new(PodInfo::from_api(&pod, &self.priority_classes));
        let key = info.key.clone();
        if info.is_assigned() {
            self.foreign.remove(&key);
            self.cache.nominations_mut().clear(&key);
            if self.pending.remove(&key).is_some() {
                self.queue.delete(&key);
            }
            if info.phase.is_terminal() {
                if self.cache.remove_pod(&key).is_some() {
                    self.move_pods(EventMask::ASSIGNED_POD_DELETE, now);
                }
                return;
            }
            let previous = self.cache.assigned_pod(&key).map(|p| (p.labels.clone(), self.cache.is_assumed(&key)));
            self.cache.upsert_assigned_pod(&info);
            match previous {
                None => self.move_pods(EventMask::ASSIGNED_POD_ADD, now),
                Some((_, true)) => {} // our own assumption confirmed: nothing new for other pods
                Some((labels, false)) if labels != info.labels => self.move_pods(EventMask::ASSIGNED_POD_UPDATE, now),
                Some(_) => {}
            }
            return;
        }
        if info.phase.is_terminal() || !self.serves(&info.scheduler_name) {
            self.cache.nominations_mut().clear(&key);
            if self.pending.remove(&key).is_some() {
                self.queue.delete(&key);
            }
            if info.phase.is_terminal() || info.terminating {
                self.foreign.remove(&key);
            } else {
                let entry = self.foreign.entry(key.clone()).or_insert_with(|| ForeignPod {
                    scheduler_name: info.scheduler_name.to_string(),
                    namespace: info.namespace.to_string(),
                    name: info.name.to_string(),
                    uid: info.uid.to_string(),
                    resource_version: info.resource_version.to_string(),
                    first_seen: now,
                    reported: false,
                });
                if *entry.scheduler_name != *info.scheduler_name {
                    entry.scheduler_name = info.scheduler_name.to_string();
                    entry.reported = false;
                    entry.first_seen = now;
                }
                entry.resource_version = info.resource_version.to_string();
            }
            return;
        }
        self.foreign.remove(&key);
        // The nominator follows the pod's status.nominatedNodeName (upstream AddNominatedPod).
        if info.nominated_node_name.is_empty() {
            self.cache.nominations_mut().clear(&key);
        } else {
            self.cache.nominations_mut().nominate(info.clone(), &info.nominated_node_name.clone());
        }
        let changed = match self.pending.get(&key) {
            Some(old) => scheduling_relevant_change(old, &pod),
            None => true,
        };
        self.pending.insert(key.clone(), Arc::from(pod));
        if self.cache.is_assumed(&key) {
            // Being bound by us; the watch has not caught up (upstream skips assumed pods).
            self.queue.refresh(info);
            return;
        }
        let gate = self.profile(&info.scheduler_name).and_then(|fw| fw.pre_enqueue(&info).err()).map(|r| (r.plugin, r.message()));
        match self.queue.location(&key) {
            None => {
                self.metrics.inc(m::QUEUE_INCOMING, &[if gate.is_some() { "gated" } else { "active" }, "PodAdd"], 1.0);
                self.queue.add(info, gate, now);
            }
            Some(_) if changed => {
                if self.queue.get(&key).is_some_and(|q| q.rejectors.contains(&POD_SPEC) || q.gating_plugin.is_some()) {
                    debug!("{}", Line::new("Pod updated, requeueing").s("pod", &*key));
                }
                self.queue.update(info, gate, now);
            }
            Some(_) => self.queue.refresh(info),
        }
    }

    fn on_pod_gone(&mut self, key: &str, now: Instant) {
        self.foreign.remove(key);
        self.cache.nominations_mut().clear(key);
        if self.pending.remove(key).is_some() {
            self.queue.delete(key);
        }
        if self.cache.remove_pod(key).is_some() {
            self.move_pods(EventMask::ASSIGNED_POD_DELETE, now);
        }
    }

    // ------------------------------------------------------------------------------------------
    // Nodes and priority classes
    // ------------------------------------------------------------------------------------------

    fn on_node_change(&mut self, c: Change<Box<api::Node>>, now: Instant) {
        match c {
            Change::ListBegin => self.relisting_nodes = Some(HashSet::new()),
            Change::ListPage(nodes) => {
                for n in nodes {
                    if let Some(seen) = self.relisting_nodes.as_mut() {
                        seen.insert(n.metadata.name.as_str().into());
                    }
                    self.on_node_upsert(&n, now);
                }
            }
            Change::ListDone => {
                if let Some(seen) = self.relisting_nodes.take() {
                    for name in self.cache.node_names() {
                        if !seen.contains(&name) {
                            self.cache.remove_node(&name);
                        }
                    }
                }
            }
            Change::Added(n) | Change::Modified(n) => self.on_node_upsert(&n, now),
            Change::Deleted(n) => {
                self.cache.remove_node(&n.metadata.name);
                self.move_pods(EventMask::NODE_DELETE, now);
            }
            // Required: stays unsynced; the shell reports the denial.
            Change::Unavailable => {}
        }
    }

    fn on_node_upsert(&mut self, node: &api::Node, now: Instant) {
        let spec = NodeSpecInfo::from_api(node);
        for w in &spec.warnings {
            warn!("{}", Line::new("Ignoring unreadable node resource").s("node", &*spec.name).s("problem", w));
        }
        let change = self.cache.upsert_node(spec);
        let mask = node_change_mask(&change);
        if mask != EventMask::NONE {
            self.move_pods(mask, now);
        }
    }

    fn on_priority_class_change(&mut self, c: Change<api::PriorityClass>, now: Instant) {
        match c {
            Change::ListBegin => self.relisting_classes = Some(HashSet::new()),
            Change::ListPage(items) => {
                for pc in items {
                    if let Some(seen) = self.relisting_classes.as_mut() {
                        seen.insert(pc.metadata.name.clone());
                    }
                    self.priority_classes.upsert(&pc);
                }
            }
            Change::ListDone => {
                if let Some(seen) = self.relisting_classes.take() {
                    self.priority_classes.classes.retain(|k, _| seen.contains(k));
                }
                self.priority_classes.unavailable = false;
                self.reconvert_pending(now);
            }
            Change::Added(pc) | Change::Modified(pc) => {
                self.priority_classes.upsert(&pc);
                self.reconvert_pending(now);
            }
            Change::Deleted(pc) => {
                self.priority_classes.classes.remove(&pc.metadata.name);
            }
            // Pods without spec.priority then get 0, as in kube-scheduler (which never reads
            // PriorityClasses), instead of being refused for a class we cannot look up.
            Change::Unavailable => {
                self.relisting_classes = None;
                self.priority_classes.classes.clear();
                self.priority_classes.unavailable = true;
                self.reconvert_pending(now);
            }
        }
    }

    /// Pods converted before their PriorityClass was known are converted again.
    fn reconvert_pending(&mut self, now: Instant) {
        let stale: Vec<Arc<api::Pod>> = self
            .pending
            .values()
            .filter(|p| p.spec.priority.is_none() && !p.spec.priority_class_name.is_empty())
            .cloned()
            .collect();
        for p in stale {
            let info = Arc::new(PodInfo::from_api(&p, &self.priority_classes));
            if self.queue.location(&info.key).is_some() {
                self.queue.update(info, None, now);
            }
        }
    }

    fn on_lease_change(&mut self, c: Change<api::Lease>) {
        match c {
            Change::ListBegin => self.relisting_leases = Some(HashSet::new()),
            Change::ListPage(items) => {
                for l in items {
                    if let Some(seen) = self.relisting_leases.as_mut() {
                        seen.insert(l.metadata.name.clone());
                    }
                    self.leases.insert(l.metadata.name.clone(), l);
                }
            }
            Change::ListDone => {
                if let Some(seen) = self.relisting_leases.take() {
                    self.leases.retain(|k, _| seen.contains(k));
                }
            }
            Change::Added(l) | Change::Modified(l) => {
                self.leases.insert(l.metadata.name.clone(), l);
            }
            Change::Deleted(l) => {
                self.leases.remove(&l.metadata.name);
            }
            Change::Unavailable => {
                self.relisting_leases = None;
                self.leases.clear();
            }
        }
    }

    fn on_budget_change(&mut self, c: Change<api::PodDisruptionBudget>) {
        match c {
            Change::ListBegin => self.relisting_budgets = Some(HashSet::new()),
            Change::ListPage(items) => {
                for b in items {
                    if let Some(seen) = self.relisting_budgets.as_mut() {
                        seen.insert((b.metadata.namespace.clone(), b.metadata.name.clone()));
                    }
                    self.cache.budgets_mut().upsert(&b);
                }
            }
            Change::ListDone => {
                if let Some(seen) = self.relisting_budgets.take() {
                    self.cache.budgets_mut().retain(&seen);
                }
            }
            Change::Added(b) | Change::Modified(b) => self.cache.budgets_mut().upsert(&b),
            Change::Deleted(b) => self.cache.budgets_mut().remove(&b.metadata.namespace, &b.metadata.name),
            Change::Unavailable => {}
        }
    }

    fn on_storage_change<T: StorageObject>(&mut self, c: Change<T>, now: Instant, mask: EventMask) {
        match c {
            Change::ListBegin => {
                self.relisting_storage.insert(T::KIND, HashSet::new());
            }
            Change::ListPage(items) => {
                for o in items {
                    if let Some(seen) = self.relisting_storage.get_mut(T::KIND) {
                        seen.insert(o.key());
                    }
                    o.upsert(self.cache.storage_mut());
                }
            }
            Change::ListDone => {
                if let Some(seen) = self.relisting_storage.remove(T::KIND) {
                    for key in T::keys(self.cache.storage()) {
                        if !seen.contains(&key) {
                            T::remove_key(self.cache.storage_mut(), &key);
                        }
                    }
                }
                self.move_pods(mask, now);
            }
            Change::Added(o) | Change::Modified(o) => {
                o.upsert(self.cache.storage_mut());
                self.move_pods(mask, now);
            }
            Change::Deleted(o) => {
                T::remove_key(self.cache.storage_mut(), &o.key());
                self.move_pods(mask, now);
            }
            Change::Unavailable => {}
        }
    }

    fn on_cluster_change<T: ClusterObject>(&mut self, c: Change<T>, now: Instant, mask: EventMask) {
        let kind = T::KIND;
        match c {
            Change::ListBegin => {
                self.relisting_storage.insert(kind.name(), HashSet::new());
            }
            Change::ListPage(items) => {
                for o in items {
                    if let Some(seen) = self.relisting_storage.get_mut(kind.name()) {
                        seen.insert(o.key());
                    }
                    o.upsert(&mut self.cache.cluster);
                }
            }
            Change::ListDone => {
                if let Some(seen) = self.relisting_storage.remove(kind.name()) {
                    for key in self.cache.cluster.keys(kind) {
                        if !seen.contains(&key) {
                            self.cache.cluster.remove(kind, &key);
                        }
                    }
                }
                self.move_pods_if(mask, now);
            }
            Change::Added(o) | Change::Modified(o) => {
                o.upsert(&mut self.cache.cluster);
                self.move_pods_if(mask, now);
            }
            Change::Deleted(o) => {
                self.cache.cluster.remove(kind, &o.key());
                self.move_pods_if(mask, now);
            }
            Change::Unavailable => {}
        }
    }

    fn move_pods_if(&mut self, mask: EventMask, now: Instant) {
        if mask != EventMask::NONE {
            self.move_pods(mask, now);
        }
    }

    /// Which scheduler names are served, as far as this process can see.
    pub fn schedulers(&self, wall: SystemTime) -> crate::core::served_names::Schedulers {
        let leases: Vec<api::Lease> = self.leases.values().cloned().collect();
        crate::core::served_names::Schedulers {
            ours: self.profiles.iter().map(|p| p.scheduler_name.clone()).collect(),
            seen: crate::core::served_names::schedulers_from_leases(&leases, wall),
            known: self.known_scheduler_names.clone(),
            assume_default_served: true,
        }
    }

    /// Report pending pods whose `schedulerName` nobody serves: a log line once per pod, the
    /// `edgesched_pending_pods_unserved_scheduler_name` gauge, and — only when enabled, since
    /// it writes to pods we do not own — one Warning event per pod. Never binds or patches them.
    fn check_unserved(&mut self, now: Instant, wall: SystemTime) {
        // Without other schedulers' leases every foreign name would look unserved.
        if self.kinds.get(&KindId::Lease) != Some(&KindSync::Synced) {
            return;
        }
        if self.last_unserved_check.is_some_and(|t| now.saturating_duration_since(t) < UNSERVED_CHECK_EVERY) {
            return;
        }
        self.last_unserved_check = Some(now);
        let scheds = self.schedulers(wall);
        let running = scheds.running_names();
        let mut counts: std::collections::BTreeMap<String, usize> = std::collections::BTreeMap::new();
        let reporter = self.profiles.first().map(|p| p.scheduler_name.clone()).unwrap_or_else(|| "edgesched".into());
        for f in self.foreign.values_mut() {
            if now.saturating_duration_since(f.first_seen) < UNSERVED_GRACE {
                continue;
            }
            if scheds.serving(&f.scheduler_name) != crate::core::served_names::Served::Nobody {
                f.reported = false;
                continue;
            }
            *counts.entry(f.scheduler_name.clone()).or_default() += 1;
            if f.reported {
                continue;
            }
            f.reported = true;
            let hint = scheds.suggestion(&f.scheduler_name).map(|s| format!(" (did you mean {s:?}?)")).unwrap_or_default();
            warn!(
                "{}",
                Line::new("Pending pod names a scheduler that is not running")
                    .s("pod", format!("{}/{}", f.namespace, f.name))
                    .s("schedulerName", &f.scheduler_name)
                    .s("running", running.join(","))
            );
            if self.warn_unserved {
                self.effects.push(Effect::Event(EventRecord {
                    regarding: pod_reference(&f.namespace, &f.name, &f.uid, &f.resource_version),
                    type_: EventType::Warning,
                    reason: "NoSchedulerForName".into(),
                    action: "Scheduling".into(),
                    note: format!(
                        "no running scheduler serves schedulerName {:?}{hint}; running schedulers: {}",
                        f.scheduler_name,
                        if running.is_empty() { "none seen".to_string() } else { running.join(", ") }
                    ),
                    reporting_controller: reporter.clone(),
                }));
            }
        }
        let series: Vec<(Vec<String>, f64)> = counts.into_iter().map(|(k, v)| (vec![k], v as f64)).collect();
        self.metrics.replace_gauge(m::UNSERVED, &series);
    }

    /// Wake unschedulable pods that the event could help (queueing hints).
    fn move_pods(&mut self, mask: EventMask, now: Instant) {
        let profiles = &self.profiles;
        let moved = self.queue.move_on_event(now, |qp: &QueuedPod| {
            if qp.rejectors.contains(&POD_SPEC) {
                return mask.intersects(EventMask::POD_UPDATE);
            }
            match profiles.iter().find(|p| *p.scheduler_name == *qp.pod.scheduler_name) {
                Some(fw) => fw.events_for(&qp.rejectors).intersects(mask),
                None => false,
            }
        });
        if moved > 0 {
            debug!("{}", Line::new("Moved unschedulable pods").s("event", format!("{mask:?}")).n("count", moved));
        }
    }

    // ------------------------------------------------------------------------------------------
    // Scheduling
    // ------------------------------------------------------------------------------------------

    /// Whether `schedule_one` would find work now.
    pub fn has_work(&self) -> bool {
        self.leading && self.caches_synced() && self.queue.has_runnable()
    }

    /// When the loop should wake up without new input (backoff expiry, leftover flush).
    pub fn next_wakeup(&self, now: Instant) -> Option<Instant> {
        self.queue.next_wakeup(now)
    }

    /// Run periodic maintenance: queue flushes and the unserved-name check.
    pub fn tick(&mut self, now: Instant, wall: SystemTime) {
        self.queue.flush(now);
        if self.caches_synced() {
            self.check_unserved(now, wall);
        }
        self.gauges_due = Some(now + GAUGE_PERIOD);
        self.update_gauges();
    }

    /// Schedule the next pod, if any. `explain` keeps per-plugin scores in the returned outcome.
    pub fn schedule_one(&mut self, now: Instant, explain: bool) -> Option<(Attempt, Option<ScheduleOutcome>)> {
        if !self.leading || !self.caches_synced() {
            return None;
        }
        self.cache.prepare();
        let qp = self.queue.pop(now)?;
        let pod = qp.pod.clone();
        let key = pod.key.clone();
        let Some(fw_index) = self.profiles.iter().position(|p| *p.scheduler_name == *pod.scheduler_name) else {
            self.queue.done(&key);
            return Some((Attempt::Skipped { pod: key }, None));
        };
        if pod.terminating {
            self.record(
                fw_index,
                &pod,
                EventType::Warning,
                "FailedScheduling",
                "Scheduling",
                format!("skip schedule deleting pod: {}/{}", pod.namespace, pod.name),
            );
            info!("{}", Line::new("Skip schedule deleting pod").s("pod", &*key));
            self.queue.done(&key);
            return Some((Attempt::Skipped { pod: key }, None));
        }
        if self.cache.is_assumed(&key) {
            self.queue.done(&key);
            return Some((Attempt::Skipped { pod: key }, None));
        }
        if let Some(reason) = pod.unschedulable_reason() {
            let message = format!("pod spec cannot be scheduled: {reason}");
            self.fail(fw_index, &qp, Requeue::Rejected { plugins: vec![POD_SPEC] }, "Unschedulable", &message, None, now);
            return Some((Attempt::Unschedulable { pod: key, message }, None));
        }
        let mut params = CycleParams {
            next_start_node_index: &mut self.next_start_node_index,
            percentage_of_nodes_to_score: self.percentage_of_nodes_to_score,
            rng: &mut self.rng,
            explain,
        };
        let fw = &self.profiles[fw_index];
        let outcome = fw.schedule(&self.cache, &pod, &mut params);
        let attempt = match &outcome {
            ScheduleOutcome::Scheduled { result, pre_bind, .. } => {
                self.cache.assume_pod(&pod, &result.node);
                self.cache.nominations_mut().clear(&key);
                if !pre_bind.is_empty() {
                    self.cache.storage_mut().assume_actions(&key, pre_bind);
                }
                self.effects.push(Effect::Bind(BindRequest {
                    pod: pod.clone(),
                    node: result.node.clone(),
                    pre_bind: pre_bind.clone(),
                    profile: fw.scheduler_name.clone(),
                    evaluated_nodes: result.evaluated_nodes,
                    feasible_nodes: result.feasible_nodes,
                    attempts: qp.attempts,
                    initial_attempt: qp.initial_attempt,
                    cycle_start: now,
                }));
                Attempt::Scheduled { pod: key, node: result.node.clone() }
            }
            ScheduleOutcome::Unschedulable { message, diagnosis, post_filter, .. } => {
                if message == NO_NODES_AVAILABLE {
                    info!(
                        "{}",
                        Line::new("Unable to schedule pod; no nodes are registered to the cluster; waiting").s("pod", &*key)
                    );
                } else {
                    info!("{}", Line::new("Unable to schedule pod; no fit; waiting").s("pod", &*key).s("err", message));
                }
                let plugins = diagnosis.unschedulable_plugins.clone();
                let nominated = post_filter.nominated_node.as_ref().map(|n| n.to_string());
                let victims = post_filter.victims.clone();
                let profile = fw.scheduler_name.clone();
                if fw.has_plugin(crate::core::framework::plugins::names::DEFAULT_PREEMPTION) {
                    self.metrics.inc(m::PREEMPTION_ATTEMPTS, &[], 1.0);
                }
                let message = message.clone();
                self.fail(fw_index, &qp, Requeue::Rejected { plugins }, "Unschedulable", &message, nominated.clone(), now);
                match nominated.as_deref() {
                    Some("") => self.cache.nominations_mut().clear(&key),
                    Some(node) => {
                        info!(
                            "{}",
                            Line::new("Preempting to make room for pod")
                                .s("pod", &*key)
                                .s("node", node)
                                .n("victims", victims.len())
                        );
                        self.metrics.observe(m::PREEMPTION_VICTIMS, &[], victims.len() as f64);
                        self.cache.nominations_mut().nominate(pod.clone(), node);
                        for v in &victims {
                            self.effects.push(Effect::Evict {
                                namespace: v.namespace.to_string(),
                                name: v.key.split_once('/').map(|(_, n)| n.to_string()).unwrap_or_default(),
                                uid: v.uid.to_string(),
                                preemptor_uid: pod.uid.to_string(),
                                node: node.to_string(),
                                profile: profile.clone(),
                            });
                        }
                        // Lower-priority pods nominated to this node may no longer fit there.
                        let lower: Vec<Arc<PodInfo>> = self
                            .cache
                            .nominations()
                            .pods_on(node)
                            .iter()
                            .filter(|p| p.priority < pod.priority)
                            .cloned()
                            .collect();
                        for p in lower {
                            self.cache.nominations_mut().clear(&p.key);
                            self.effects.push(Effect::PatchStatus(StatusPatch {
                                namespace: p.namespace.to_string(),
                                name: p.name.to_string(),
                                uid: p.uid.to_string(),
                                condition: None,
                                nominated_node_name: Some(String::new()),
                            }));
                        }
                    }
                    None => {}
                }
                Attempt::Unschedulable { pod: key, message: message.clone() }
            }
            ScheduleOutcome::Error { message, .. } => {
                warn!("{}", Line::new("Error scheduling pod; retrying").s("pod", &*key).s("err", message));
                self.fail(fw_index, &qp, Requeue::Error, "SchedulerError", message, None, now);
                Attempt::Error { pod: key, message: message.clone() }
            }
        };
        self.update_gauges_throttled(now);
        Some((attempt, Some(outcome)))
    }

    /// handleSchedulingFailure: event, PodScheduled=False condition (only if it changed), requeue.
    #[allow(clippy::too_many_arguments)]
    fn fail(
        &mut self,
        fw_index: usize,
        qp: &QueuedPod,
        why: Requeue,
        reason: &str,
        message: &str,
        nominated: Option<String>,
        now: Instant,
    ) {
        let pod = &qp.pod;
        self.queue.requeue(&pod.key, why, now);
        self.record(fw_index, pod, EventType::Warning, "FailedScheduling", "Scheduling", truncate_note(message));
        let wanted =
            crate::core::model::ScheduledCondition { status: "False".into(), reason: reason.into(), message: message.into() };
        let condition_changed = pod.scheduled_condition.as_ref() != Some(&wanted);
        let nominated_changed = nominated.as_deref().is_some_and(|n| *n != *pod.nominated_node_name);
        if condition_changed || nominated_changed {
            self.effects.push(Effect::PatchStatus(StatusPatch {
                namespace: pod.namespace.to_string(),
                name: pod.name.to_string(),
                uid: pod.uid.to_string(),
                condition: condition_changed.then(|| api::PodCondition {
                    type_: "PodScheduled".into(),
                    status: "False".into(),
                    reason: Some(reason.into()),
                    message: Some(message.into()),
                    last_probe_time: None,
                    last_transition_time: None,
                }),
                nominated_node_name: if nominated_changed { nominated } else { None },
            }));
        }
    }

    fn record(&mut self, fw_index: usize, pod: &PodInfo, type_: EventType, reason: &str, action: &str, note: String) {
        self.effects.push(Effect::Event(EventRecord {
            regarding: pod_reference(&pod.namespace, &pod.name, &pod.uid, &pod.resource_version),
            type_,
            reason: reason.into(),
            action: action.into(),
            note,
            reporting_controller: self.profiles[fw_index].scheduler_name.clone(),
        }));
    }

    fn on_bind_done(&mut self, o: BindOutcome, now: Instant) {
        match o.result {
            Ok(()) => self.queue.done(&o.key),
            Err(BindFailure::Conflict(msg)) => {
                self.cache.storage_mut().forget_assumed_for_pod(&o.key);
                info!(
                    "{}",
                    Line::new("Pod was bound elsewhere; forgetting it").s("pod", &*o.key).s("node", &*o.node).s("err", &msg)
                );
                self.queue.done(&o.key);
                if self.cache.forget_pod(&o.key) {
                    self.move_pods(EventMask::ASSIGNED_POD_DELETE, now);
                }
            }
            Err(BindFailure::Other(msg)) => {
                self.cache.storage_mut().forget_assumed_for_pod(&o.key);
                warn!("{}", Line::new("Failed to bind pod").s("pod", &*o.key).s("node", &*o.node).s("err", &msg));
                if self.cache.forget_pod(&o.key) {
                    self.move_pods(EventMask::ASSIGNED_POD_DELETE, now);
                }
                if let Some(qp) = self.queue.get(&o.key).cloned() {
                    if self.queue.location(&o.key) == Some(Location::InFlight) {
                        if let Some(i) = self.profiles.iter().position(|p| *p.scheduler_name == *qp.pod.scheduler_name) {
                            self.fail(i, &qp, Requeue::Error, "SchedulerError", &format!("binding rejected: {msg}"), None, now);
                            return;
                        }
                    }
                }
                self.queue.done(&o.key);
            }
        }
    }

    /// Gauges walk the whole queue, so they are refreshed at most every [`GAUGE_PERIOD`] from
    /// the hot paths (every input and every cycle) and unconditionally by [`Scheduler::tick`].
    fn update_gauges_throttled(&mut self, now: Instant) {
        if self.gauges_due.is_some_and(|due| now < due) {
            return;
        }
        self.gauges_due = Some(now + GAUGE_PERIOD);
        self.update_gauges();
    }

    fn update_gauges(&self) {
        let c = self.queue.counts();
        self.metrics.set(m::PENDING_PODS, &["active"], c.active as f64);
        self.metrics.set(m::PENDING_PODS, &["backoff"], c.backoff as f64);
        self.metrics.set(m::PENDING_PODS, &["unschedulable"], c.unschedulable as f64);
        self.metrics.set(m::PENDING_PODS, &["gated"], c.gated as f64);
        self.metrics.set(m::CACHE_SIZE, &["nodes"], self.cache.num_nodes() as f64);
        self.metrics.set(m::CACHE_SIZE, &["pods"], self.cache.num_pods() as f64);
    }
}

/// Which cluster events a node change represents.
pub fn node_change_mask(c: &NodeChange) -> EventMask {
    let mut mask = EventMask::NONE;
    if c.added {
        mask |= EventMask::NODE_ADD;
    }
    if c.allocatable {
        mask |= EventMask::NODE_ALLOCATABLE;
    }
    if c.labels {
        mask |= EventMask::NODE_LABEL;
    }
    if c.taints {
        mask |= EventMask::NODE_TAINT;
    }
    if c.unschedulable {
        mask |= EventMask::NODE_SPEC_UNSCHEDULABLE;
    }
    if c.images {
        mask |= EventMask::NODE_IMAGES;
    }
    mask
}

/// upstream `isPodUpdated`: ignore resourceVersion, generation and status; anything else in
/// metadata labels or the spec may change the scheduling outcome.
fn scheduling_relevant_change(old: &api::Pod, new: &api::Pod) -> bool {
    if old.metadata.labels != new.metadata.labels || old.metadata.deletion_timestamp != new.metadata.deletion_timestamp {
        return true;
    }
    match (serde_json::to_vec(&old.spec), serde_json::to_vec(&new.spec)) {
        (Ok(a), Ok(b)) => a != b,
        _ => true,
    }
}
