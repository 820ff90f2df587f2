//! Coscheduling (gang scheduling) as an out-of-tree plugin, after kubernetes-sigs/scheduler-plugins
//! `pkg/coscheduling` (coscheduling.go, core/core.go): the pods of a group bind all together or
//! not at all.
//!
//! A pod belongs to the group named by its `scheduling.x-k8s.io/pod-group` label (scheduler-plugins'
//! label). The group's `minMember` — in scheduler-plugins a field of the `PodGroup` custom
//! resource — is read from the pod's `edgesched.io/pod-group-min-member` label, so no CRD has to
//! be installed or watched.
//!
//! - QueueSort: priority first, then the group's time (a pod without a group: its own first
//!   attempt), then the group's name and the pod's key — so a group's pods leave the queue one
//!   after another instead of interleaved with others.
//! - PreEnqueue: a group pod is held (gated) until `minMember` pods of its group exist (pending or
//!   assigned); the arrival of a sibling asks again (queueing hint on unscheduled-pod additions).
//! - PreFilter: a pod whose group was just denied fails fast, and a group that lost pods below
//!   `minMember` is rejected as unresolvable (no preemption is tried for it).
//! - Permit: a group pod waits (assumed on its node) until `minMember` pods of its group are
//!   assumed or bound; the pod that completes the group allows all its waiting siblings.
//! - PostFilter: when a group pod fits nowhere and the group is more than 10% short, its waiting
//!   siblings are rejected at once ("optimistic rejection") so their room goes back to other
//!   pods, and the group is denied: its pending siblings fail fast at PreFilter instead of each
//!   being assumed and held again.
//! - Unreserve: when a group pod is not bound after all (its wait ran out, it was rejected, its
//!   binding failed) the waiting siblings are rejected with it.
//!
//! Differences from scheduler-plugins, because no `PodGroup` object exists and plugins have no
//! clock: the group's time is the first attempt of the first of its pods the queue compared
//! (scheduler-plugins: the PodGroup's creation time), and a denial lasts until each sibling that
//! was pending when it was denied has failed fast once (scheduler-plugins: `podGroupBackoffSeconds`,
//! accepted here for compatibility). `minResources` is not checked.

use edgesched::plugin::{
    Cache, ClusterEvent, Diagnosis, EventMask, EventObject, FilterRunner, NodeInfo, PermitOutcome, Plugin, PluginState, PodInfo,
    PodKey, Points, PostFilterResult, PreFilterOutcome, QueuedPod, QueueingHint, Rejection, WaitingHandle,
};
use serde::Deserialize;
use std::collections::{HashMap, HashSet};
use std::sync::Mutex;
use std::time::{Duration, Instant};

/// The plugin's name in configurations.
pub const NAME: &str = "Coscheduling";
/// scheduler-plugins' `PodGroupLabel`.
pub const POD_GROUP_LABEL: &str = "scheduling.x-k8s.io/pod-group";
/// Stands in for `PodGroup.spec.minMember`.
pub const MIN_MEMBER_LABEL: &str = "edgesched.io/pod-group-min-member";
/// `DefaultWaitTime` of scheduler-plugins' CoschedulingArgs.
const DEFAULT_WAIT_SECONDS: u64 = 60;

/// `CoschedulingArgs`.
#[derive(Debug, Default, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields, default)]
pub struct CoschedulingArgs {
    /// How long group pods wait at Permit for their siblings (0: 60 s).
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

/// A pod's group: its namespace, name and `minMember`.
#[derive(Debug, PartialEq, Eq)]
struct Group<'a> {
    namespace: &'a str,
    name: &'a str,
    min_member: usize,
}

impl Group<'_> {
    /// `namespace/name` (`GetPodGroupFullName`).
    fn full_name(&self) -> String {
        format!("{}/{}", self.namespace, self.name)
    }

    fn has(&self, namespace: &str, labels: &edgesched::plugin::Labels) -> bool {
        namespace == self.namespace && labels.get_str(POD_GROUP_LABEL) == Some(self.name)
    }
}

fn group_of(pod: &PodInfo) -> Option<Group<'_>> {
    let name = pod.labels.get_str(POD_GROUP_LABEL).filter(|n| !n.is_empty())?;
    let min_member = pod.labels.get_str(MIN_MEMBER_LABEL).and_then(|m| m.parse::<usize>().ok()).unwrap_or(1);
    Some(Group { namespace: &pod.namespace, name, min_member })
}

fn lock<T>(m: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|poisoned| poisoned.into_inner())
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
        match group_of(&q.pod) {
            Some(g) => *lock(&self.group_times).entry(g.full_name()).or_insert(own),
            None => own,
        }
    }

    /// The key pods are ordered by last: the group's name, then the pod's key.
    fn sort_key(pod: &PodInfo) -> (String, &str) {
        (group_of(pod).map(|g| g.full_name()).unwrap_or_default(), &pod.key)
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

    /// `EventsToRegister`: a pod added (a sibling may complete the group) — and, because a group
    /// that timed out at Permit was rejected by this plugin alone, room freed or added.
    fn events(&self) -> EventMask {
        EventMask::UNSCHEDULED_POD_ADD | EventMask::ASSIGNED_POD_DELETE | EventMask::NODE_ADD | EventMask::NODE_ALLOCATABLE
    }

    /// A new pod only helps pods of its own group.
    fn queueing_hint(&self, event: &ClusterEvent<'_>, pod: &PodInfo) -> QueueingHint {
        match (event.mask == EventMask::UNSCHEDULED_POD_ADD, event.new) {
            (true, Some(EventObject::Pod(added))) => match group_of(pod) {
                Some(g) if g.has(&added.namespace, &added.labels) => QueueingHint::Queue,
                _ => QueueingHint::QueueSkip,
            },
            _ => QueueingHint::Queue,
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
        let Some(g) = group_of(pod) else { return Ok(()) };
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
        let Some(g) = group_of(pod) else { return PreFilterOutcome::Skip };
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
        let Some(g) = group_of(pod) else { return PermitOutcome::Allow };
        // The pod itself is not yet counted among the assumed pods.
        if Self::assigned(cache, &g) + 1 < g.min_member {
            return PermitOutcome::Wait(self.wait);
        }
        let siblings: Vec<_> =
            waiting.iter().filter(|w| g.has(&w.pod.namespace, &w.pod.labels)).map(|w| w.pod.key.clone()).collect();
        for key in siblings {
            waiting.allow(&key, NAME);
        }
        PermitOutcome::Allow
    }

    fn unreserve(&self, _cache: &Cache, pod: &PodInfo, _node: &str, waiting: &mut WaitingHandle<'_>) {
        if let Some(g) = group_of(pod) {
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
        let Some(g) = group_of(pod) else { return unschedulable("can not find pod group".into()) };
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
    use std::sync::Arc;
    use std::time::Instant;

    fn pod(name: &str, group: Option<(&str, usize)>) -> PodInfo {
        let mut p = api::Pod::default();
        p.metadata.namespace = "ns".into();
        p.metadata.name = name.into();
        if let Some((g, min)) = group {
            p.metadata.labels.insert(POD_GROUP_LABEL.into(), g.into());
            p.metadata.labels.insert(MIN_MEMBER_LABEL.into(), min.to_string());
        }
        PodInfo::from_api(&p, &NoPriorityClasses)
    }

    fn cache_with(assigned: &[PodInfo]) -> Cache {
        let mut cache = Cache::new();
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
        let cache = cache_with(&[]);
        let node = cache.node_by_name("n1").expect("node");
        let mut h = WaitingHandle::new(None);
        assert!(matches!(cs.permit(&cache, &pod("p", None), node, &None, &mut h), PermitOutcome::Allow));
    }

    #[test]
    fn a_group_waits_until_min_member_pods_are_assumed_then_all_are_allowed() {
        // coscheduling_test.go TestPermit: "pods belong to a podGroup, Wait" / "Allow".
        let cs = Coscheduling::new(CoschedulingArgs { permit_waiting_time_seconds: 10, ..Default::default() }).expect("plugin");
        let a = pod("a", Some(("g", 3)));
        let cache = cache_with(std::slice::from_ref(&a));
        let node = cache.node_by_name("n1").expect("node");
        let mut h = WaitingHandle::new(None);
        assert!(
            matches!(cs.permit(&cache, &pod("b", Some(("g", 3))), node, &None, &mut h), PermitOutcome::Wait(d) if d == Duration::from_secs(10))
        );

        let b = pod("b", Some(("g", 3)));
        let cache = cache_with(&[a.clone(), b.clone()]);
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
        let mut cache = cache_with(&[pod("a", Some(("g", 3)))]);
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
        let mut cache = cache_with(&[]);
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
        let mut cache = cache_with(&[]);
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
        let cache = cache_with(&[]);
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
}
