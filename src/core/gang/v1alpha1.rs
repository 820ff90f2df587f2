//! Pod groups as v1.35 declares them: a `scheduling.k8s.io/v1alpha1` Workload lists its pod
//! groups with their policies, and a pod joins one through `spec.workloadRef` (the Workload's
//! name, the group's name and, for a replicated group, the replica key). Two pods are in the same
//! group when their namespaces and whole references are equal (`matchingWorkloadReference` and
//! `newPodGroupKey` in v1.35's `gangscheduling.go` / `workloadmanager/podgroupinfo.go`).

use super::{Counts, Lookup, Policy};
use crate::core::api::{Workload, WorkloadReference};
use crate::core::cache::Cache;
use crate::core::model::PodInfo;

/// The reference of a pod (`None`: the pod belongs to no group).
pub fn reference(pod: &PodInfo) -> Option<&WorkloadReference> {
    pod.workload_ref.as_deref()
}

/// Whether two pods (by namespace and reference) belong to the same group.
pub fn same_group(ns_a: &str, a: Option<&WorkloadReference>, ns_b: &str, b: Option<&WorkloadReference>) -> bool {
    matches!((a, b), (Some(a), Some(b)) if ns_a == ns_b && a == b)
}

/// The policy of the group named `pod_group` in `workload` (`podGroupPolicy`).
pub fn policy_of(workload: &Workload, pod_group: &str) -> Option<Policy> {
    let group = workload.spec.pod_groups.iter().find(|g| g.name == pod_group)?;
    Some(match &group.policy.gang {
        // A negative minCount is refused by the API server's validation; read it as 0.
        Some(g) => Policy::Gang { min_count: usize::try_from(g.min_count).unwrap_or(0) },
        None => Policy::Basic,
    })
}

/// What the pod's reference resolves to in the cache's Workloads.
pub fn lookup(cache: &Cache, pod: &PodInfo) -> Lookup {
    let Some(r) = reference(pod) else { return Lookup::NoGroup };
    let Some(workload) = cache.workloads.get(&pod.namespace, &r.name) else {
        return Lookup::MissingWorkload { workload: r.name.clone() };
    };
    match policy_of(workload, &r.pod_group) {
        Some(p) => Lookup::Found(p),
        None => Lookup::MissingPodGroup { workload: r.name.clone(), pod_group: r.pod_group.clone() },
    }
}

/// The counts of `pod`'s group: its pods assumed or bound on nodes, and every pod of it the
/// scheduler knows (pending ones too; a pod being bound is both, counted once).
pub fn counts(cache: &Cache, pod: &PodInfo) -> Counts {
    let placed = cache.nodes().flat_map(|n| n.pods.iter()).map(|p| (&*p.namespace, p.workload_ref.as_deref(), &*p.key, true));
    let pending = cache.pending_pods().map(|p| (&*p.namespace, reference(p), &*p.key, false));
    count_among(&pod.namespace, reference(pod), placed.chain(pending))
}

/// The counts of the group (`namespace`, `mine`) among `pods` — `(namespace, reference, key,
/// placed)`, a pod listed twice (pending and placed) counted once, as placed.
pub fn count_among<'a>(
    namespace: &str,
    mine: Option<&WorkloadReference>,
    pods: impl Iterator<Item = (&'a str, Option<&'a WorkloadReference>, &'a str, bool)>,
) -> Counts {
    let mut seen: std::collections::HashMap<&str, bool> = std::collections::HashMap::new();
    for (ns, r, key, placed) in pods {
        if same_group(namespace, mine, ns, r) {
            *seen.entry(key).or_insert(false) |= placed;
        }
    }
    Counts { all: seen.len(), placed: seen.values().filter(|p| **p).count() }
}

/// Whether the Workload `added` is the one `pod` references (`isSchedulableAfterWorkloadAdded`:
/// namespace and name; the group inside it is not compared).
pub fn references_workload(pod: &PodInfo, added: &Workload) -> bool {
    reference(pod).is_some_and(|r| *pod.namespace == *added.metadata.namespace && r.name == added.metadata.name)
}
