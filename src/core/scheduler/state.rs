//! The scheduler core's state: what it owns (node table, queue, profiles, the objects it mirrors)
//! and the accessors the shell and tests read it through.

use super::effects::Effect;
use crate::core::api;
use crate::core::cache::Cache;
use crate::core::framework::instrument::Ticker;
use crate::core::framework::Framework;
use crate::core::metrics::{names as m, Metrics};
use crate::core::model::{PodKey, PreemptionPolicy, PriorityResolver};
use crate::core::queue::SchedulingQueue;
use crate::core::rng::Rng;
use crate::core::watched::KindSync;
use crate::core::watched::{self, KindId};
use std::collections::{BTreeMap, HashMap, HashSet};
use std::sync::Arc;
use std::time::{Duration, Instant};

/// PriorityClasses by name, for pods created without `spec.priority`.
#[derive(Debug, Default)]
pub struct PriorityClasses {
    pub(super) classes: HashMap<String, (i32, Option<PreemptionPolicy>, bool)>,
    /// RBAC forbids reading classes: a class name cannot be judged missing.
    pub(super) unavailable: bool,
}

impl PriorityClasses {
    pub(super) fn upsert(&mut self, pc: &api::PriorityClass) {
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
    /// With several global defaults (a race the admission check can lose), the lowest value, as
    /// upstream's priority admission (plugin/pkg/admission/priority/admission.go
    /// `getDefaultPriorityClass`, commit 07ef5fd7); equal values by name, so that the choice
    /// does not follow the map's iteration order.
    fn global_default(&self) -> Option<(i32, Option<PreemptionPolicy>)> {
        self.classes.iter().filter(|(_, c)| c.2).min_by(|a, b| (a.1 .0, a.0).cmp(&(b.1 .0, b.0))).map(|(_, (v, p, _))| (*v, *p))
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
pub(super) struct ForeignPod {
    pub(super) scheduler_name: String,
    pub(super) namespace: String,
    pub(super) name: String,
    pub(super) uid: String,
    pub(super) resource_version: String,
    pub(super) first_seen: Instant,
    pub(super) reported: bool,
}

/// How long a foreign pod may stay pending before its scheduler name is checked (its own
/// scheduler usually binds it within this time).
pub const UNSERVED_GRACE: Duration = Duration::from_secs(30);
/// How often unserved names are re-evaluated.
pub(super) const UNSERVED_CHECK_EVERY: Duration = Duration::from_secs(10);

/// What scheduling waits for when nobody says otherwise: the pods, the nodes and (for pods
/// without `spec.priority`) the priority classes.
const DEFAULT_KINDS: [KindId; 3] = [KindId::Node, KindId::Pod, KindId::PriorityClass];

/// Minimum interval between gauge refreshes from the hot paths.
pub(super) const GAUGE_PERIOD: Duration = Duration::from_millis(100);

/// Rejector name used for pods whose spec we cannot read; only their own update can help.
pub(super) const POD_SPEC: &str = "PodSpec";

/// A pod held at Permit: its binding, its profile and its queue entry (for a rejection).
pub(super) struct Deferred {
    pub(super) bind: super::effects::BindRequest,
    pub(super) fw_index: usize,
    pub(super) qp: crate::core::queue::QueuedPod,
}

/// The scheduler core. Its methods live in the files of this module by concern: watch changes
/// in `handlers.rs`, the cycle in `schedule_one.rs`, failures in `failure.rs`, unserved names in
/// `unserved.rs`.
pub struct Scheduler {
    pub(super) profiles: Vec<Framework>,
    /// Pods assumed on a node but held at Permit, and what binding each waits to start.
    pub(super) waiting: crate::core::framework::waiting::WaitingPods,
    pub(super) deferred: HashMap<PodKey, Deferred>,
    /// The configured HTTP extenders (see [`Scheduler::set_extenders`]).
    pub(super) extenders: Option<crate::core::extender::ExtenderSet>,
    pub(super) cache: Cache,
    pub(super) queue: SchedulingQueue,
    /// Some profile runs a plugin that reads pending pods and event objects (an out-of-tree
    /// plugin, or GangScheduling counting its groups): pending pods are kept in the cache for
    /// plugins to read, and unscheduled-pod additions are cluster events.
    pub(super) out_of_tree: bool,
    pub(super) priority_classes: PriorityClasses,
    /// The feature gates that change how pods' requests are counted.
    pub(super) request_gates: crate::core::model::RequestGates,
    /// Feature gate `NominatedNodeNameForExpectation`: the binding cycle first writes the node
    /// to `.status.nominatedNodeName` when the pod waits at Permit or PreBind has work.
    pub(super) nominate_for_expectation: bool,
    /// Unassigned pods of our profiles, as last seen (for re-conversion and change detection).
    pub(super) pending: HashMap<PodKey, Arc<api::Pod>>,
    pub(super) next_start_node_index: usize,
    pub(super) percentage_of_nodes_to_score: i32,
    pub(super) rng: Rng,
    /// Sync state of every kind scheduling waits for (see [`Scheduler::watch_kinds`]).
    pub(super) kinds: BTreeMap<KindId, KindSync>,
    /// Keys seen since a kind's relist began (objects not seen are gone when it completes).
    pub(super) relists: HashMap<KindId, HashSet<String>>,
    pub(super) leading: bool,
    pub(super) effects: Vec<Effect>,
    pub(super) metrics: Metrics,
    pub(super) known_scheduler_names: Vec<String>,
    pub(super) warn_unserved: bool,
    /// Leader-election Leases of the lease namespace, by `namespace/name` (in key order, so
    /// that which lease answers for a scheduler name is the same in every process).
    pub(super) leases: BTreeMap<String, api::Lease>,
    /// Pending pods of other schedulers, in key order: the unserved check reports them (log
    /// lines, events) in that order in every process.
    pub(super) foreign: BTreeMap<PodKey, ForeignPod>,
    pub(super) last_unserved_check: Option<Instant>,
    /// When the pending/cache gauges may be refreshed again (see `update_gauges_throttled`).
    pub(super) gauges_due: Option<Instant>,
    /// The clock the cycle and event handling are timed with; no timing without one.
    pub(super) ticker: Option<Box<dyn Ticker + Send>>,
    /// Cycles run, for sampling plugin durations (one cycle in [`PLUGIN_SAMPLE_EVERY`]).
    pub(super) cycles: u64,
}

/// The feature gate that makes the binding cycle write the nominated node (see
/// [`Scheduler::set_nominated_node_name_for_expectation`]).
pub const NOMINATED_NODE_NAME_FOR_EXPECTATION: &str = "NominatedNodeNameForExpectation";

/// Plugin execution durations are recorded for one cycle in this many, as upstream records them
/// for 10% of cycles (`pluginMetricsSamplePercent`).
pub(super) const PLUGIN_SAMPLE_EVERY: u64 = 10;

impl Scheduler {
    pub fn new(profiles: Vec<Framework>, settings: &Settings, metrics: Metrics, rng: Rng, now: Instant) -> Scheduler {
        for fw in &profiles {
            for (plugin, point) in crate::core::framework::instrument::evaluated_plugins(fw) {
                metrics.inc(m::PLUGIN_EVALUATIONS, &[plugin, point, &fw.scheduler_name], 0.0);
            }
        }
        let out_of_tree = profiles.iter().any(Framework::reads_pending_pods);
        let mut cache = Cache::new();
        if out_of_tree {
            cache.track_pending_pods();
        }
        let mut queue = SchedulingQueue::new(settings.pod_initial_backoff, settings.pod_max_backoff, now);
        // validateCommonQueueSort made every profile name the same queue-sort plugin.
        if let Some(sort) = profiles.first().and_then(Framework::custom_queue_sort) {
            queue.set_sort(sort);
        }
        Scheduler {
            profiles,
            extenders: None,
            waiting: Default::default(),
            deferred: HashMap::new(),
            cache,
            queue,
            out_of_tree,
            priority_classes: PriorityClasses::default(),
            request_gates: Default::default(),
            nominate_for_expectation: crate::core::features::gate(NOMINATED_NODE_NAME_FOR_EXPECTATION)
                .is_some_and(crate::core::features::Gate::default),
            pending: HashMap::new(),
            next_start_node_index: 0,
            percentage_of_nodes_to_score: settings.percentage_of_nodes_to_score,
            rng,
            kinds: DEFAULT_KINDS.iter().map(|k| (*k, KindSync::Waiting)).collect(),
            relists: HashMap::new(),
            leading: false,
            effects: Vec::new(),
            metrics,
            known_scheduler_names: settings.known_scheduler_names.clone(),
            warn_unserved: settings.warn_unserved_scheduler_names,
            leases: BTreeMap::new(),
            foreign: BTreeMap::new(),
            last_unserved_check: None,
            gauges_due: None,
            ticker: None,
            cycles: 0,
        }
    }

    /// Consult these HTTP extenders in every cycle (their calls go through the set's transport).
    pub fn set_extenders(&mut self, extenders: Option<crate::core::extender::ExtenderSet>) {
        self.extenders = extenders;
    }

    /// Time cycles and event handling with `ticker` (the live scheduler's metrics).
    pub fn set_ticker(&mut self, ticker: Box<dyn Ticker + Send>) {
        self.ticker = Some(ticker);
    }

    /// Whether an empty activeQ pops the head of backoffQ (feature gate `SchedulerPopFromBackoffQ`).
    pub fn set_pop_from_backoff(&mut self, on: bool) {
        self.queue.set_pop_from_backoff(on);
    }

    /// Feature gate `NominatedNodeNameForExpectation` (on by default, as in v1.35): whether the
    /// binding cycle records where the pod is going in `.status.nominatedNodeName` before it waits
    /// at Permit or runs PreBind.
    pub fn set_nominated_node_name_for_expectation(&mut self, on: bool) {
        self.nominate_for_expectation = on;
    }

    /// The feature gates that change how pods' requests are counted
    /// (`InPlacePodLevelResourcesVerticalScaling`); pods seen from now on are counted with them.
    pub fn set_request_gates(&mut self, gates: crate::core::model::RequestGates) {
        self.request_gates = gates;
    }

    /// The queue's waiting limit before the leftover flush (`--pod-max-in-unschedulable-pods-duration`).
    pub fn set_max_in_unschedulable(&mut self, d: Duration) {
        self.queue.set_max_in_unschedulable(d);
    }

    /// Count the queue's moves since the last call (`scheduler_queue_incoming_pods_total`).
    pub(super) fn record_queue_moves(&mut self) {
        for (queue, event) in self.queue.take_incoming() {
            self.metrics.inc(m::QUEUE_INCOMING, &[queue, event], 1.0);
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

    /// The API object of a pending pod of ours (what a binding or status patch changes).
    pub fn pending_pod(&self, key: &str) -> Option<&api::Pod> {
        self.pending.get(key).map(|p| &**p)
    }

    /// Take the effects produced so far.
    pub fn take_effects(&mut self) -> Vec<Effect> {
        std::mem::take(&mut self.effects)
    }

    pub(super) fn profile(&self, name: &str) -> Option<&Framework> {
        self.profiles.iter().find(|p| p.scheduler_name == name)
    }

    pub(super) fn serves(&self, scheduler_name: &str) -> bool {
        self.profile(scheduler_name).is_some()
    }

    /// Gauges walk the whole queue, so they are refreshed at most every [`GAUGE_PERIOD`] from
    /// the hot paths (every input and every cycle) and unconditionally by [`Scheduler::tick`].
    pub(super) fn update_gauges_throttled(&mut self, now: Instant) {
        if self.gauges_due.is_some_and(|due| now < due) {
            return;
        }
        self.gauges_due = Some(now + GAUGE_PERIOD);
        self.update_gauges();
    }

    pub(super) fn update_gauges(&self) {
        let c = self.queue.counts();
        self.metrics.set(m::PENDING_PODS, &["active"], c.active as f64);
        self.metrics.set(m::PENDING_PODS, &["backoff"], c.backoff as f64);
        self.metrics.set(m::PENDING_PODS, &["unschedulable"], c.unschedulable as f64);
        self.metrics.set(m::PENDING_PODS, &["gated"], c.gated as f64);
        self.metrics.set(m::CACHE_SIZE, &["nodes"], self.cache.num_nodes() as f64);
        self.metrics.set(m::CACHE_SIZE, &["pods"], self.cache.num_pods() as f64);
        self.metrics.set(m::CACHE_SIZE, &["assumed_pods"], self.cache.num_assumed() as f64);
        // One count per rejecting plugin of every unschedulable pod, by profile.
        let mut by_plugin: BTreeMap<(&str, &str), usize> = BTreeMap::new();
        for (qp, loc) in self.queue.iter() {
            if loc == crate::core::queue::Location::Unschedulable {
                for plugin in &qp.rejectors {
                    *by_plugin.entry((plugin, &qp.pod.scheduler_name)).or_default() += 1;
                }
            }
        }
        let series: Vec<(Vec<String>, f64)> = by_plugin
            .into_iter()
            .map(|((plugin, profile), n)| (vec![plugin.to_string(), profile.to_string()], n as f64))
            .collect();
        self.metrics.replace_gauge(m::UNSCHEDULABLE_PODS, &series);
    }
}
