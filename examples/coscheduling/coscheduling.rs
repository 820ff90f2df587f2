//! Coscheduling (gang scheduling) as an out-of-tree plugin, after kubernetes-sigs/scheduler-plugins
//! `pkg/coscheduling` (coscheduling.go, core/core.go): the pods of a group bind all together or
//! not at all.
//!
//! A pod belongs to the group named by its `scheduling.x-k8s.io/pod-group` label; the group is the
//! `PodGroup` object of that name in the pod's namespace (custom resource
//! `podgroups.scheduling.x-k8s.io/v1alpha1`, which this plugin declares so that the scheduler
//! lists and watches it: see `main.rs`). From it the plugin reads `spec.minMember`,
//! `spec.scheduleTimeoutSeconds` and `spec.minResources`.
//!
//! - QueueSort: priority first, then the group's time (a pod without a group: its own first
//!   attempt), then the group's name and the pod's key — so a group's pods leave the queue one
//!   after another instead of interleaved with others.
//! - PreEnqueue: a group pod is held (gated) while its PodGroup does not exist ("PodGroup not
//!   found") and until `minMember` pods of its group exist (pending or assigned); the arrival of a
//!   sibling and the PodGroup's creation or change ask again (queueing hints).
//! - PreFilter: a pod whose group was just denied fails fast, a group that lost pods below
//!   `minMember` is rejected as unresolvable (no preemption is tried for it), and a group with
//!   `minResources` is rejected when the cluster's free allocatable (the group's own pods
//!   counted as free) cannot hold them and `minMember` pods ("resource gap").
//! - Permit: a group pod waits (assumed on its node) until `minMember` pods of its group are
//!   assumed or bound — at most `scheduleTimeoutSeconds` (else `permitWaitingTimeSeconds`); the
//!   pod that completes the group allows all its waiting siblings. A PodGroup deleted meanwhile
//!   rejects the pod ("PodGroup not found").
//! - PostFilter: when a group pod fits nowhere and the group is more than 10% short, its waiting
//!   siblings are rejected at once ("optimistic rejection") so their room goes back to other
//!   pods, and the group is denied: its pending siblings fail fast at PreFilter instead of each
//!   being assumed and held again.
//! - Unreserve: when a group pod is not bound after all (its wait ran out, it was rejected, its
//!   binding failed) the waiting siblings are rejected with it.
//!
//! Differences from scheduler-plugins, because plugins have no clock and no API client: the
//! group's time in the queue order is the first attempt of the first of its pods the queue
//! compared (scheduler-plugins: the PodGroup's creation time), a denial lasts until each sibling
//! that was pending when it was denied has failed fast once (scheduler-plugins:
//! `podGroupBackoffSeconds`, accepted here for compatibility), the `minResources` check is not
//! cached between the group's pods (scheduler-plugins' `permittedPG`), and the PodGroup's status
//! is not written (scheduler-plugins' controller does that, not the scheduler).

use edgesched::plugin::{
    Cache, ClusterEvent, CustomResource, Diagnosis, EventMask, EventObject, FilterRunner, NodeInfo, PermitOutcome, Plugin,
    PluginState, PodInfo, PodKey, Points, PostFilterResult, PreFilterOutcome, QueuedPod, QueueingHint, Rejection, WaitingHandle,
};
use serde::Deserialize;
use std::collections::{HashMap, HashSet};
use std::sync::Mutex;
use std::time::{Duration, Instant};

/// The plugin's name in configurations.
pub const NAME: &str = "Coscheduling";
/// scheduler-plugins' `PodGroupLabel`.
pub const POD_GROUP_LABEL: &str = "scheduling.x-k8s.io/pod-group";
/// The PodGroup resource as stores and events name it.
pub const POD_GROUPS: &str = "podgroups.scheduling.x-k8s.io";
/// scheduler-plugins' `PodGroupNotFound` status.
const NOT_FOUND: &str = "PodGroup not found";
/// `DefaultWaitTime` of scheduler-plugins' CoschedulingArgs.
const DEFAULT_WAIT_SECONDS: u64 = 60;

/// The custom resource this plugin reads (`scheduling.x-k8s.io/v1alpha1` `podgroups`, namespaced).
pub fn pod_group_resource() -> CustomResource {
    CustomResource::namespaced("scheduling.x-k8s.io", "v1alpha1", "podgroups", "PodGroup")
}

/// `CoschedulingArgs`.
#[derive(Debug, Default, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields, default)]
pub struct CoschedulingArgs {
    /// How long group pods wait at Permit for their siblings when their PodGroup sets no
    /// `scheduleTimeoutSeconds` (0: 60 s).
    pub permit_waiting_time_seconds: u64,
    /// Accepted for compatibility; a denial lasts until the pending siblings failed fast once.
    pub pod_group_backoff_seconds: u64,
}

pub struct Coscheduling {
    wait: Duration,
    /// Each group's time in the queue order, fixed the first time the queue compares one of
    /// its pods (so the heap's order never changes under it). One entry per group name seen.
    group_times: Mutex<HashMap<String, Instant>>,
    /// Denied groups (`backedOffPG`): the siblings still to fail fast.
    denied: Mutex<HashMap<String, HashSet<PodKey>>>,
}

/// A pod's group as its PodGroup describes it.
#[derive(Debug)]
struct Group<'a> {
    namespace: &'a str,
    name: &'a str,
    min_member: usize,
    /// `spec.scheduleTimeoutSeconds` when set and not 0.
    timeout: Option<Duration>,
    /// `spec.minResources`.
    min_resources: Option<&'a serde_json::Map<String, serde_json::Value>>,
}

impl Group<'_> {
    /// `namespace/name` (`GetPodGroupFullName`).
    fn full_name(&self) -> String {
        full_name(self.namespace, self.name)
    }

    fn has(&self, namespace: &str, labels: &edgesched::plugin::Labels) -> bool {
        namespace == self.namespace && labels.get_str(POD_GROUP_LABEL) == Some(self.name)
    }
}

fn full_name(namespace: &str, name: &str) -> String {
    format!("{namespace}/{name}")
}

/// The group a pod names (`GetPodGroupLabel`), without looking it up.
fn label_of(pod: &PodInfo) -> Option<&str> {
    pod.labels.get_str(POD_GROUP_LABEL).filter(|n| !n.is_empty())
}

/// What `GetPodGroup` finds for a pod.
enum Lookup<'a> {
    /// The pod names no group.
    NoGroup,
    /// The pod names a group whose PodGroup does not exist.
    NotFound,
    Found(Group<'a>),
}

fn lookup<'a>(cache: &'a Cache, pod: &'a PodInfo) -> Lookup<'a> {
    let Some(name) = label_of(pod) else { return Lookup::NoGroup };
    let Some(pg) = cache.custom_object(POD_GROUPS, &pod.namespace, name) else {
        return Lookup::NotFound;
    };
    let spec = &pg.object["spec"];
    // int32 fields: a negative or absent minMember asks for nothing.
    let min_member = spec["minMember"].as_u64().and_then(|m| usize::try_from(m).ok()).unwrap_or(0);
    let timeout = spec["scheduleTimeoutSeconds"].as_u64().filter(|s| *s > 0).map(Duration::from_secs);
    let min_resources = spec["minResources"].as_object().filter(|m| !m.is_empty());
    Lookup::Found(Group { namespace: &pod.namespace, name, min_member, timeout, min_resources })
}

fn lock<T>(m: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|poisoned| poisoned.into_inner())
}

/// `CheckClusterResource`: whether the nodes' free allocatable — the group's own pods counted as
/// free — holds `minResources` plus `minMember` pods, node by node greedily as scheduler-plugins
/// does; the error lists what is missing. Resources the cluster does not know are missing.
fn check_cluster_resource(cache: &Cache, g: &Group<'_>, min: &serde_json::Map<String, serde_json::Value>) -> Result<(), String> {
    use edgesched::core::quantity::{parse_milli, parse_value};
    // What is still wanted, by resource name: cpu in millicores, the rest in units.
    let mut wanted: Vec<(String, i64)> = Vec::new();
    for (name, q) in min {
        let q = q.as_str().map(str::to_string).unwrap_or_else(|| q.to_string());
        let amount = if name == "cpu" { parse_milli(&q) } else { parse_value(&q) };
        let amount = amount.map_err(|e| format!("podGroup {}: minResources {name}: {e}", g.full_name()))?;
        wanted.push((name.clone(), amount));
    }
    wanted.retain(|(n, _)| n != "pods");
    wanted.push(("pods".into(), i64::try_from(g.min_member).unwrap_or(i64::MAX)));
    for node in cache.nodes() {
        let mut free = node.node.allocatable.clone();
        let req = &node.requested;
        free.milli_cpu = free.milli_cpu.saturating_sub(req.milli_cpu);
        free.memory = free.memory.saturating_sub(req.memory);
        free.ephemeral_storage = free.ephemeral_storage.saturating_sub(req.ephemeral_storage);
        let mut pods = node.pods.len() as i64;
        for p in node.pods.iter().filter(|p| g.has(&p.namespace, &p.labels)) {
            let r = &p.resources.requests;
            free.milli_cpu = free.milli_cpu.saturating_add(r.milli_cpu);
            free.memory = free.memory.saturating_add(r.memory);
            free.ephemeral_storage = free.ephemeral_storage.saturating_add(r.ephemeral_storage);
            pods -= 1;
        }
        for (name, want) in wanted.iter_mut() {
            let have = match name.as_str() {
                "cpu" => free.milli_cpu,
                "memory" => free.memory,
                "ephemeral-storage" => free.ephemeral_storage,
                "pods" => free.allowed_pod_number.saturating_sub(pods),
                other => {
                    let alloc = free.scalars.iter().find(|(n, _)| n.as_str() == other).map_or(0, |(_, v)| *v);
                    let used = req.scalars.iter().find(|(n, _)| n.as_str() == other).map_or(0, |(_, v)| *v);
                    let own: i64 = node
                        .pods
                        .iter()
                        .filter(|p| g.has(&p.namespace, &p.labels))
                        .flat_map(|p| p.resources.requests.scalars.iter())
                        .filter(|(n, _)| n.as_str() == other)
                        .map(|(_, v)| *v)
                        .sum();
                    alloc.saturating_sub(used).saturating_add(own)
                }
            };
            *want = want.saturating_sub(have.max(0));
        }
        wanted.retain(|(_, w)| *w > 0);
        if wanted.is_empty() {
            return Ok(());
        }
    }
    let gap: Vec<String> =
        wanted.iter().map(|(n, w)| if n == "cpu" { format!("{n}: {w}m") } else { format!("{n}: {w}") }).collect();
    Err(format!("resource gap: {}", gap.join(", ")))
}

impl Coscheduling {
    pub fn new(args: CoschedulingArgs) -> Result<Coscheduling, String> {
        let secs = if args.permit_waiting_time_seconds == 0 { DEFAULT_WAIT_SECONDS } else { args.permit_waiting_time_seconds };
        Ok(Coscheduling { wait: Duration::from_secs(secs), group_times: Mutex::default(), denied: Mutex::default() })
    }

    /// `CalculateAssignedPods`: pods of the group assumed or bound on some node.
    fn assigned(cache: &Cache, g: &Group<'_>) -> usize {
        cache.nodes().flat_map(|n| n.pods.iter()).filter(|p| g.has(&p.namespace, &p.labels)).count()
    }

    /// The group's pods that exist: pending or assigned (a pod being bound is both, counted once),
    /// as scheduler-plugins lists them from the pod informer.
    fn members(cache: &Cache, g: &Group<'_>) -> usize {
        let pending: HashSet<&str> = cache.pending_pods().filter(|p| g.has(&p.namespace, &p.labels)).map(|p| &*p.key).collect();
        let assigned = cache
            .nodes()
            .flat_map(|n| n.pods.iter())
            .filter(|p| g.has(&p.namespace, &p.labels) && !pending.contains(&*p.key))
            .count();
        pending.len() + assigned
    }

    /// `GetCreationTimestamp`: the group's time, or the pod's first attempt without a group.
    fn queue_time(&self, q: &QueuedPod) -> Instant {
        let own = q.initial_attempt.unwrap_or(q.timestamp);
        match label_of(&q.pod) {
            Some(name) => *lock(&self.group_times).entry(full_name(&q.pod.namespace, name)).or_insert(own),
            None => own,
        }
    }

    /// The key pods are ordered by last: the group's name, then the pod's key.
    fn sort_key(pod: &PodInfo) -> (String, &str) {
        (label_of(pod).map(|n| full_name(&pod.namespace, n)).unwrap_or_default(), &pod.key)
    }

    fn reject_waiting_siblings(g: &Group<'_>, waiting: &mut WaitingHandle<'_>, message: &str) {
        let siblings: Vec<PodKey> =
            waiting.iter().filter(|w| g.has(&w.pod.namespace, &w.pod.labels)).map(|w| w.pod.key.clone()).collect();
        for key in siblings {
            waiting.reject(&key, NAME, message);
        }
    }
}

impl Plugin for Coscheduling {
    fn name(&self) -> &'static str {
        NAME
    }

    fn points(&self) -> Points {
        Points {
            queue_sort: true,
            pre_enqueue: true,
            pre_filter: true,
            post_filter: true,
            reserve: true,
            permit: true,
            ..Default::default()
        }
    }

    /// `EventsToRegister`: a pod added (a sibling may complete the group), a PodGroup added or
    /// changed — and, because a group that timed out at Permit was rejected by this plugin
    /// alone, room freed or added.
    fn events(&self) -> EventMask {
        EventMask::UNSCHEDULED_POD_ADD
            | EventMask::CUSTOM_RESOURCE
            | EventMask::ASSIGNED_POD_DELETE
            | EventMask::NODE_ADD
            | EventMask::NODE_ALLOCATABLE
    }

    /// A new pod only helps pods of its own group, a PodGroup only its own pods.
    fn queueing_hint(&self, event: &ClusterEvent<'_>, pod: &PodInfo) -> QueueingHint {
        let same_group =
            |namespace: &str, name: Option<&str>| namespace == &*pod.namespace && name.is_some() && name == label_of(pod);
        let helps = match (event.mask, event.new) {
            (EventMask::UNSCHEDULED_POD_ADD, Some(EventObject::Pod(added))) => {
                same_group(&added.namespace, added.labels.get_str(POD_GROUP_LABEL))
            }
            (EventMask::CUSTOM_RESOURCE, Some(EventObject::Custom(pg))) => {
                pg.resource() == POD_GROUPS && same_group(&pg.metadata.namespace, Some(&pg.metadata.name))
            }
            // A PodGroup deleted helps nobody.
            (EventMask::CUSTOM_RESOURCE, _) => false,
            _ => true,
        };
        if helps {
            QueueingHint::Queue
        } else {
            QueueingHint::QueueSkip
        }
    }

    /// `Less`: priority, then the group's (or pod's) time, then group and pod key.
    fn less(&self, a: &QueuedPod, b: &QueuedPod) -> bool {
        if a.pod.priority != b.pod.priority {
            return a.pod.priority > b.pod.priority;
        }
        let (ta, tb) = (self.queue_time(a), self.queue_time(b));
        if ta != tb {
            return ta < tb;
        }
        Self::sort_key(&a.pod) < Self::sort_key(&b.pod)
    }

    fn pre_enqueue(&self, cache: &Cache, pod: &PodInfo) -> Result<(), Rejection> {
        let g = match lookup(cache, pod) {
            Lookup::NoGroup => return Ok(()),
            Lookup::NotFound => return Err(Rejection::unresolvable(NOT_FOUND)),
            Lookup::Found(g) => g,
        };
        let n = Self::members(cache, &g);
        if n < g.min_member {
            return Err(Rejection::unresolvable(format!(
                "pre-enqueue pod {} cannot find enough sibling pods, current pods number: {n}, minMember of group: {}",
                pod.name, g.min_member
            )));
        }
        Ok(())
    }

    fn pre_filter(&self, cache: &Cache, pod: &PodInfo, _state: &mut PluginState) -> PreFilterOutcome {
        // A pod whose PodGroup is gone is treated as no group here and refused at Permit.
        let Lookup::Found(g) = lookup(cache, pod) else { return PreFilterOutcome::Skip };
        let full = g.full_name();
        {
            let mut denied = lock(&self.denied);
            if let Some(left) = denied.get_mut(&full) {
                let failing_fast = left.remove(&*pod.key);
                if left.is_empty() {
                    denied.remove(&full);
                }
                if failing_fast {
                    return PreFilterOutcome::Reject(Rejection::unresolvable(format!("podGroup {full} failed recently")));
                }
            }
        }
        let n = Self::members(cache, &g);
        if n < g.min_member {
            return PreFilterOutcome::Reject(Rejection::unresolvable(format!(
                "pre-filter pod {} cannot find enough sibling pods, current pods number: {n}, minMember of group: {}",
                pod.name, g.min_member
            )));
        }
        if let Some(min) = g.min_resources {
            if let Err(gap) = check_cluster_resource(cache, &g, min) {
                return PreFilterOutcome::Reject(Rejection::unresolvable(gap));
            }
        }
        PreFilterOutcome::Skip
    }

    fn permit(
        &self,
        cache: &Cache,
        pod: &PodInfo,
        _node: &NodeInfo,
        _state: &PluginState,
        waiting: &mut WaitingHandle<'_>,
    ) -> PermitOutcome {
        let g = match lookup(cache, pod) {
            Lookup::NoGroup => return PermitOutcome::Allow,
            Lookup::NotFound => return PermitOutcome::Reject(Rejection::unresolvable(NOT_FOUND)),
            Lookup::Found(g) => g,
        };
        // The pod itself is not yet counted among the assumed pods.
        if Self::assigned(cache, &g) + 1 < g.min_member {
            return PermitOutcome::Wait(g.timeout.unwrap_or(self.wait));
        }
        let siblings: Vec<_> =
            waiting.iter().filter(|w| g.has(&w.pod.namespace, &w.pod.labels)).map(|w| w.pod.key.clone()).collect();
        for key in siblings {
            waiting.allow(&key, NAME);
        }
        PermitOutcome::Allow
    }

    fn unreserve(&self, cache: &Cache, pod: &PodInfo, _node: &str, waiting: &mut WaitingHandle<'_>) {
        if let Lookup::Found(g) = lookup(cache, pod) {
            Self::reject_waiting_siblings(&g, waiting, "rejection in Unreserve");
        }
    }

    fn post_filter(
        &self,
        cache: &Cache,
        pod: &PodInfo,
        diagnosis: &Diagnosis,
        runner: &dyn FilterRunner,
        _rng: &mut edgesched::core::rng::Rng,
    ) -> PostFilterResult {
        let unschedulable =
            |msg: String| PostFilterResult { rejection: Some(Rejection::unschedulable(msg)), ..Default::default() };
        let Lookup::Found(g) = lookup(cache, pod) else { return unschedulable("can not find pod group".into()) };
        // Refused by this plugin's own PreFilter (the group was denied or is short of pods):
        // nothing was assumed for it, and denying the group again would never end the denial.
        if diagnosis.unschedulable_plugins.contains(&NAME) {
            return unschedulable(String::new());
        }
        let assigned = Self::assigned(cache, &g);
        // Enough pods already satisfy the group, or it is within 10% of doing so: keep the others.
        if assigned >= g.min_member || (g.min_member - assigned) * 10 <= g.min_member {
            return unschedulable(String::new());
        }
        for w in runner.waiting_pods() {
            if g.has(&w.pod.namespace, &w.pod.labels) {
                runner.reject_waiting_pod(&w.pod.key, NAME, "optimistic rejection in PostFilter".into());
            }
        }
        // Deny the group: the siblings pending now fail fast once.
        let siblings: HashSet<PodKey> =
            cache.pending_pods().filter(|p| g.has(&p.namespace, &p.labels) && p.key != pod.key).map(|p| p.key.clone()).collect();
        if !siblings.is_empty() {
            lock(&self.denied).insert(g.full_name(), siblings);
        }
        unschedulable(format!(
            "PodGroup {} gets rejected due to Pod {} is unschedulable even after PostFilter",
            g.full_name(),
            pod.name
        ))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use edgesched::core::api;
    use edgesched::core::framework::waiting::{WaitingAction, WaitingPods};
    use edgesched::core::model::{NoPriorityClasses, NodeSpecInfo};
    use edgesched::plugin::CustomObject;
    use std::sync::Arc;
    use std::time::Instant;

    fn pod(name: &str, group: Option<(&str, usize)>) -> PodInfo {
        let mut p = api::Pod::default();
        p.metadata.namespace = "ns".into();
        p.metadata.name = name.into();
        if let Some((g, _min)) = group {
            p.metadata.labels.insert(POD_GROUP_LABEL.into(), g.into());
        }
        PodInfo::from_api(&p, &NoPriorityClasses)
    }

    /// Create (or replace) PodGroup `ns/name` with this spec.
    fn pod_group(cache: &mut Cache, name: &str, spec: serde_json::Value) {
        let pg = CustomObject::from_value(serde_json::json!({
            "apiVersion": "scheduling.x-k8s.io/v1alpha1", "kind": "PodGroup",
            "metadata": {"name": name, "namespace": "ns"}, "spec": spec,
        }));
        cache.custom.upsert(POD_GROUPS, Arc::new(pg));
    }

    /// One node `n1` with these pods assigned, and PodGroups of these names and `minMember`s.
    fn cache_with(assigned: &[PodInfo], groups: &[(&str, usize)]) -> Cache {
        let mut cache = Cache::new();
        for (g, min) in groups {
            pod_group(&mut cache, g, serde_json::json!({"minMember": min}));
        }
        let mut n = api::Node::default();
        n.metadata.name = "n1".into();
        cache.upsert_node(NodeSpecInfo::from_api(&n));
        for p in assigned {
            let mut p = p.clone();
            p.node_name = "n1".into();
            cache.upsert_assigned_pod(&p);
        }
        cache
    }

    #[test]
    fn pods_without_a_group_are_allowed() {
        let cs = Coscheduling::new(CoschedulingArgs::default()).expect("plugin");
        let cache = cache_with(&[], &[]);
        let node = cache.node_by_name("n1").expect("node");
        let mut h = WaitingHandle::new(None);
        assert!(matches!(cs.permit(&cache, &pod("p", None), node, &None, &mut h), PermitOutcome::Allow));
    }

    #[test]
    fn a_group_waits_until_min_member_pods_are_assumed_then_all_are_allowed() {
        // coscheduling_test.go TestPermit: "pods belong to a podGroup, Wait" / "Allow".
        let cs = Coscheduling::new(CoschedulingArgs { permit_waiting_time_seconds: 10, ..Default::default() }).expect("plugin");
        let a = pod("a", Some(("g", 3)));
        let cache = cache_with(std::slice::from_ref(&a), &[("g", 3)]);
        let node = cache.node_by_name("n1").expect("node");
        let mut h = WaitingHandle::new(None);
        assert!(
            matches!(cs.permit(&cache, &pod("b", Some(("g", 3))), node, &None, &mut h), PermitOutcome::Wait(d) if d == Duration::from_secs(10))
        );

        let b = pod("b", Some(("g", 3)));
        let cache = cache_with(&[a.clone(), b.clone()], &[("g", 3)]);
        let node = cache.node_by_name("n1").expect("node");
        let mut waiting = WaitingPods::default();
        let now = Instant::now();
        waiting.add(Arc::new(a), "n1".into(), &[(NAME, Duration::from_secs(10))], now);
        waiting.add(Arc::new(b), "n1".into(), &[(NAME, Duration::from_secs(10))], now);
        waiting.add(Arc::new(pod("other", Some(("h", 2)))), "n1".into(), &[(NAME, Duration::from_secs(10))], now);
        let mut h = WaitingHandle::new(Some(&waiting));
        assert!(matches!(cs.permit(&cache, &pod("c", Some(("g", 3))), node, &None, &mut h), PermitOutcome::Allow));
        let allowed: Vec<String> = h
            .into_actions()
            .into_iter()
            .map(|a| match a {
                WaitingAction::Allow { pod, .. } => pod.to_string(),
                WaitingAction::Reject { pod, .. } => format!("reject {pod}"),
            })
            .collect();
        assert_eq!(allowed, vec!["ns/a".to_string(), "ns/b".to_string()]);
    }

    #[test]
    fn default_wait_is_sixty_seconds() {
        assert_eq!(Coscheduling::new(CoschedulingArgs::default()).map(|c| c.wait).ok(), Some(Duration::from_secs(60)));
        let args: CoschedulingArgs =
            edgesched::plugin::decode_args(Some(&serde_json::json!({"permitWaitingTimeSeconds": 5}))).expect("args");
        assert_eq!(args.permit_waiting_time_seconds, 5);
        assert!(edgesched::plugin::decode_args::<CoschedulingArgs>(Some(&serde_json::json!({"typo": 1}))).is_err());
    }

    fn pending(cache: &mut Cache, pods: &[PodInfo]) {
        cache.track_pending_pods();
        for p in pods {
            cache.set_pending_pod(&Arc::new(p.clone()));
        }
    }

    fn queued(p: PodInfo, at: Instant, priority: i32) -> QueuedPod {
        let mut p = p;
        p.priority = priority;
        // A QueuedPod as the queue hands it to QueueSort.
        let mut q = QueuedPod::new(Arc::new(p), at);
        q.initial_attempt = Some(at);
        q
    }

    #[test]
    fn queue_sort_keeps_a_group_together_after_priority() {
        // coscheduling_test.go TestLess: priority first, then the group's time, then the key.
        let cs = Coscheduling::new(CoschedulingArgs::default()).expect("plugin");
        let t0 = Instant::now();
        let s = Duration::from_secs(1);
        let g1 = queued(pod("g1-a", Some(("g", 2))), t0, 0);
        let other = queued(pod("other", None), t0 + s, 0);
        let g2 = queued(pod("g1-b", Some(("g", 2))), t0 + s * 2, 0);
        let urgent = queued(pod("urgent", None), t0 + s * 3, 10);
        assert!(cs.less(&urgent, &g1), "priority first");
        assert!(cs.less(&g1, &other));
        // g1-b arrived after `other` but shares its group's (earlier) time.
        assert!(cs.less(&g2, &other), "a group's pods stay together");
        assert!(cs.less(&g1, &g2) && !cs.less(&g2, &g1), "then by key");
    }

    #[test]
    fn pre_enqueue_holds_a_group_until_min_member_pods_exist() {
        let cs = Coscheduling::new(CoschedulingArgs::default()).expect("plugin");
        let mut cache = cache_with(&[pod("a", Some(("g", 3)))], &[("g", 3)]);
        let b = pod("b", Some(("g", 3)));
        pending(&mut cache, std::slice::from_ref(&b));
        assert_eq!(
            cs.pre_enqueue(&cache, &b).map_err(|r| r.message()),
            Err("pre-enqueue pod b cannot find enough sibling pods, current pods number: 2, minMember of group: 3".into())
        );
        pending(&mut cache, &[pod("c", Some(("g", 3)))]);
        assert!(cs.pre_enqueue(&cache, &b).is_ok());
        assert!(cs.pre_enqueue(&cache, &pod("solo", None)).is_ok());
        // Only a sibling's arrival is worth asking again.
        let sibling = pod("d", Some(("g", 3)));
        let stranger = pod("e", Some(("h", 3)));
        fn added(p: &PodInfo) -> ClusterEvent<'_> {
            ClusterEvent { mask: EventMask::UNSCHEDULED_POD_ADD, old: None, new: Some(EventObject::Pod(p)) }
        }
        assert_eq!(cs.queueing_hint(&added(&sibling), &b), QueueingHint::Queue);
        assert_eq!(cs.queueing_hint(&added(&stranger), &b), QueueingHint::QueueSkip);
    }

    #[test]
    fn pre_filter_rejects_a_group_short_of_pods_as_unresolvable() {
        // core_test.go TestPreFilter: "pod belongs to a podGroup with not enough pods".
        let cs = Coscheduling::new(CoschedulingArgs::default()).expect("plugin");
        let mut cache = cache_with(&[], &[("g", 2)]);
        let a = pod("a", Some(("g", 2)));
        pending(&mut cache, std::slice::from_ref(&a));
        match cs.pre_filter(&cache, &a, &mut None) {
            PreFilterOutcome::Reject(r) => {
                assert_eq!(r.code, edgesched::plugin::Code::UnschedulableAndUnresolvable);
                assert_eq!(
                    r.message(),
                    "pre-filter pod a cannot find enough sibling pods, current pods number: 1, minMember of group: 2"
                );
            }
            other => panic!("{other:?}"),
        }
        pending(&mut cache, &[pod("b", Some(("g", 2)))]);
        assert!(matches!(cs.pre_filter(&cache, &a, &mut None), PreFilterOutcome::Skip));
    }

    #[test]
    fn a_denied_group_fails_fast_once_per_pending_sibling() {
        let cs = Coscheduling::new(CoschedulingArgs::default()).expect("plugin");
        let mut cache = cache_with(&[], &[("g", 3)]);
        let pods: Vec<PodInfo> = ["a", "b", "c"].iter().map(|n| pod(n, Some(("g", 3)))).collect();
        pending(&mut cache, &pods);
        struct NoWaiting;
        impl FilterRunner for NoWaiting {
            fn states(&self) -> &[PluginState] {
                &[]
            }
            fn clone_states(&self, _: &Cache, _: &PodInfo, _: &[PluginState]) -> Vec<PluginState> {
                Vec::new()
            }
            fn remove_pod(&self, _: &mut [PluginState], _: &PodInfo, _: &edgesched::plugin::AssignedPod, _: &NodeInfo) {}
            fn add_pod(&self, _: &mut [PluginState], _: &PodInfo, _: &edgesched::plugin::AssignedPod, _: &NodeInfo) {}
            fn run_filters(&self, _: &Cache, _: &PodInfo, _: &NodeInfo, _: &[PluginState]) -> Result<(), Rejection> {
                Ok(())
            }
        }
        let r = cs.post_filter(&cache, &pods[0], &Diagnosis::default(), &NoWaiting, &mut edgesched::core::rng::Rng::seeded(1));
        assert_eq!(
            r.rejection.map(|r| r.message()),
            Some("PodGroup ns/g gets rejected due to Pod a is unschedulable even after PostFilter".into())
        );
        let fails_fast = |p: &PodInfo| matches!(cs.pre_filter(&cache, p, &mut None), PreFilterOutcome::Reject(r) if r.message() == "podGroup ns/g failed recently");
        assert!(fails_fast(&pods[1]));
        assert!(!fails_fast(&pods[1]), "once");
        assert!(fails_fast(&pods[2]));
        assert!(!fails_fast(&pods[0]), "the pod that failed is not denied again");
    }

    #[test]
    fn unreserve_rejects_the_waiting_siblings() {
        // coscheduling_test.go TestUnreserve.
        let cs = Coscheduling::new(CoschedulingArgs::default()).expect("plugin");
        let cache = cache_with(&[], &[("g", 3), ("h", 3)]);
        let mut waiting = WaitingPods::default();
        let now = Instant::now();
        waiting.add(Arc::new(pod("a", Some(("g", 3)))), "n1".into(), &[(NAME, Duration::from_secs(10))], now);
        waiting.add(Arc::new(pod("x", Some(("h", 3)))), "n1".into(), &[(NAME, Duration::from_secs(10))], now);
        let mut h = WaitingHandle::new(Some(&waiting));
        cs.unreserve(&cache, &pod("b", Some(("g", 3))), "n1", &mut h);
        assert_eq!(
            h.into_actions(),
            vec![WaitingAction::Reject { pod: "ns/a".into(), plugin: NAME, message: "rejection in Unreserve".into() }]
        );
    }

    #[test]
    fn a_pod_whose_pod_group_does_not_exist_is_gated_until_it_appears() {
        // The row of the PodGroups, as main.rs declares it (events name their resource by it).
        edgesched::core::watched::install_custom(&[(NAME.to_string(), pod_group_resource())]);
        let cs = Coscheduling::new(CoschedulingArgs::default()).expect("plugin");
        let mut cache = cache_with(&[], &[]);
        let a = pod("a", Some(("g", 1)));
        pending(&mut cache, std::slice::from_ref(&a));
        assert_eq!(cs.pre_enqueue(&cache, &a).map_err(|r| r.message()), Err("PodGroup not found".into()));
        let node = cache.node_by_name("n1").expect("node");
        let mut h = WaitingHandle::new(None);
        assert!(
            matches!(cs.permit(&cache, &a, node, &None, &mut h), PermitOutcome::Reject(r) if r.message() == "PodGroup not found")
        );
        // Its PodGroup's creation asks again; another group's does not, nor does a deletion.
        let pg = |name: &str| {
            let mut o = CustomObject::from_value(serde_json::json!({
                "apiVersion": "scheduling.x-k8s.io/v1alpha1", "kind": "PodGroup",
                "metadata": {"name": name, "namespace": "ns"}, "spec": {"minMember": 1},
            }));
            // As the scheduler hands it over: the object of the (only) declared row.
            o = serde_json::from_value(serde_json::to_value(&o).expect("encodes")).expect("decodes");
            o
        };
        let (mine, other) = (pg("g"), pg("h"));
        let ev = |o: &CustomObject, new: bool| {
            let obj = Some(EventObject::Custom(o));
            let (old, new) = if new { (None, obj) } else { (obj, None) };
            cs.queueing_hint(&ClusterEvent { mask: EventMask::CUSTOM_RESOURCE, old, new }, &a)
        };
        assert_eq!(ev(&mine, true), QueueingHint::Queue);
        assert_eq!(ev(&other, true), QueueingHint::QueueSkip);
        assert_eq!(ev(&mine, false), QueueingHint::QueueSkip);
        pod_group(&mut cache, "g", serde_json::json!({"minMember": 1}));
        assert!(cs.pre_enqueue(&cache, &a).is_ok());
    }

    #[test]
    fn schedule_timeout_seconds_overrides_the_permit_wait() {
        // util.GetWaitTimeDuration: the PodGroup's scheduleTimeoutSeconds when set, else the args'.
        let cs = Coscheduling::new(CoschedulingArgs { permit_waiting_time_seconds: 10, ..Default::default() }).expect("plugin");
        let mut cache = cache_with(&[], &[]);
        pod_group(&mut cache, "g", serde_json::json!({"minMember": 2, "scheduleTimeoutSeconds": 4}));
        pod_group(&mut cache, "h", serde_json::json!({"minMember": 2, "scheduleTimeoutSeconds": 0}));
        let node = cache.node_by_name("n1").expect("node");
        let mut h = WaitingHandle::new(None);
        let wait = |p: &PodInfo, h: &mut WaitingHandle<'_>| match cs.permit(&cache, p, node, &None, h) {
            PermitOutcome::Wait(d) => Some(d),
            _ => None,
        };
        assert_eq!(wait(&pod("a", Some(("g", 2))), &mut h), Some(Duration::from_secs(4)));
        assert_eq!(wait(&pod("b", Some(("h", 2))), &mut h), Some(Duration::from_secs(10)));
    }

    #[test]
    fn min_resources_are_checked_against_the_free_allocatable() {
        // core.go CheckClusterResource: minResources plus minMember pods against the nodes'
        // free allocatable (enough / not enough room, an unknown resource, a bad quantity).
        let cs = Coscheduling::new(CoschedulingArgs::default()).expect("plugin");
        let mut cache = Cache::new();
        let mut n = api::Node::default();
        n.metadata.name = "n1".into();
        for (k, v) in [("cpu", "4"), ("memory", "4Gi"), ("pods", "10")] {
            n.status.allocatable.insert(k.into(), api::QuantityStr(v.into()));
        }
        cache.upsert_node(NodeSpecInfo::from_api(&n));
        let a = pod("a", Some(("g", 2)));
        let b = pod("b", Some(("g", 2)));
        pending(&mut cache, &[a.clone(), b.clone()]);
        let outcome = |cache: &Cache| match cs.pre_filter(cache, &a, &mut None) {
            PreFilterOutcome::Reject(r) => Err(r.message()),
            _ => Ok(()),
        };
        pod_group(&mut cache, "g", serde_json::json!({"minMember": 2, "minResources": {"cpu": "3", "memory": "1Gi"}}));
        assert_eq!(outcome(&cache), Ok(()));
        pod_group(&mut cache, "g", serde_json::json!({"minMember": 2, "minResources": {"cpu": "5", "nvidia.com/gpu": "1"}}));
        assert_eq!(outcome(&cache), Err("resource gap: cpu: 1000m, nvidia.com/gpu: 1".into()));
        pod_group(&mut cache, "g", serde_json::json!({"minMember": 2, "minResources": {"cpu": "lots"}}));
        assert!(outcome(&cache).is_err_and(|e| e.starts_with("podGroup ns/g: minResources cpu:")));
    }
}
