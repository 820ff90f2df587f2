//! Coscheduling (gang scheduling) as an out-of-tree plugin, after kubernetes-sigs/scheduler-plugins
//! `pkg/coscheduling` (coscheduling.go, core/core.go): the pods of a group bind all together or
//! not at all.
//!
//! A pod belongs to the group named by its `scheduling.x-k8s.io/pod-group` label (scheduler-plugins'
//! label). The group's `minMember` — in scheduler-plugins a field of the `PodGroup` custom
//! resource — is read from the pod's `edgesched.io/pod-group-min-member` label, so no CRD has to
//! be installed or watched.
//!
//! - Permit: a group pod waits (assumed on its node) until `minMember` pods of its group are
//!   assumed or bound; the pod that completes the group allows all its waiting siblings.
//! - PostFilter: when a group pod fits nowhere and the group is more than 10% short, its waiting
//!   siblings are rejected at once so their room goes back to other pods (scheduler-plugins'
//!   "optimistic rejection"); otherwise they would hold it until `permitWaitingTimeSeconds`.
//!
//! Not carried over: the QueueSort by group creation time (edgesched's queue orders by priority
//! and pod creation time), the PreFilter check that enough pods of the group exist, and the denied
//! group cache.

use edgesched::plugin::{
    Cache, Diagnosis, FilterRunner, NodeInfo, PermitOutcome, Plugin, PluginState, PodInfo, Points, PostFilterResult, Rejection,
    WaitingHandle,
};
use serde::Deserialize;
use std::time::Duration;

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
    /// Accepted for compatibility; the denied-group cache is not implemented.
    pub pod_group_backoff_seconds: u64,
}

pub struct Coscheduling {
    wait: Duration,
}

/// A pod's group: its namespace, name and `minMember`.
#[derive(Debug, PartialEq, Eq)]
struct Group<'a> {
    namespace: &'a str,
    name: &'a str,
    min_member: usize,
}

fn group_of(pod: &PodInfo) -> Option<Group<'_>> {
    let name = pod.labels.get_str(POD_GROUP_LABEL).filter(|n| !n.is_empty())?;
    let min_member = pod.labels.get_str(MIN_MEMBER_LABEL).and_then(|m| m.parse::<usize>().ok()).unwrap_or(1);
    Some(Group { namespace: &pod.namespace, name, min_member })
}

impl Coscheduling {
    pub fn new(args: CoschedulingArgs) -> Result<Coscheduling, String> {
        let secs = if args.permit_waiting_time_seconds == 0 { DEFAULT_WAIT_SECONDS } else { args.permit_waiting_time_seconds };
        Ok(Coscheduling { wait: Duration::from_secs(secs) })
    }

    /// `CalculateAssignedPods`: pods of the group assumed or bound on some node.
    fn assigned(cache: &Cache, g: &Group<'_>) -> usize {
        cache
            .nodes()
            .flat_map(|n| n.pods.iter())
            .filter(|p| *p.namespace == *g.namespace && p.labels.get_str(POD_GROUP_LABEL) == Some(g.name))
            .count()
    }

    fn same_group(pod: &PodInfo, g: &Group<'_>) -> bool {
        *pod.namespace == *g.namespace && pod.labels.get_str(POD_GROUP_LABEL) == Some(g.name)
    }
}

impl Plugin for Coscheduling {
    fn name(&self) -> &'static str {
        NAME
    }

    fn points(&self) -> Points {
        Points { post_filter: true, permit: true, ..Default::default() }
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
        let siblings: Vec<_> = waiting.iter().filter(|w| Self::same_group(&w.pod, &g)).map(|w| w.pod.key.clone()).collect();
        for key in siblings {
            waiting.allow(&key, NAME);
        }
        PermitOutcome::Allow
    }

    fn post_filter(
        &self,
        cache: &Cache,
        pod: &PodInfo,
        _diagnosis: &Diagnosis,
        runner: &dyn FilterRunner,
        _rng: &mut edgesched::core::rng::Rng,
    ) -> PostFilterResult {
        let unschedulable =
            |msg: String| PostFilterResult { rejection: Some(Rejection::unschedulable(msg)), ..Default::default() };
        let Some(g) = group_of(pod) else { return unschedulable("can not find pod group".into()) };
        let assigned = Self::assigned(cache, &g);
        // Enough pods already satisfy the group, or it is within 10% of doing so: keep the others.
        if assigned >= g.min_member || (g.min_member - assigned) * 10 <= g.min_member {
            return unschedulable(String::new());
        }
        for w in runner.waiting_pods() {
            if Self::same_group(&w.pod, &g) {
                runner.reject_waiting_pod(&w.pod.key, NAME, "optimistic rejection in PostFilter".into());
            }
        }
        unschedulable(format!(
            "PodGroup {}/{} gets rejected due to Pod {} is unschedulable even after PostFilter",
            g.namespace, g.name, pod.name
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
}
