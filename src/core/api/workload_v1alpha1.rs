//! The Workload API as kube-scheduler v1.35 reads it: `scheduling.k8s.io/v1alpha1` `Workload`
//! (its pod groups and their gang or basic policy) and the pod's `spec.workloadRef`
//! (staging `k8s.io/api/scheduling/v1alpha1/types.go` and `core/v1/types.go`
//! `WorkloadReference`, v1.35). Everything that knows this shape is here and in
//! [`crate::core::gang::v1alpha1`]; v1.36 replaces it (v1alpha2: a `PodGroup` object and
//! `pod.spec.schedulingGroup`), which can be added beside it.

use super::ObjectMeta;
use serde::{Deserialize, Serialize};

/// `v1.WorkloadReference` (`pod.spec.workloadRef`, immutable): the Workload, the pod group in it
/// and, for a group replicated several times, which replica the pod belongs to.
#[derive(Debug, Clone, Default, Deserialize, Serialize, PartialEq, Eq, Hash, PartialOrd, Ord)]
#[serde(default, rename_all = "camelCase")]
pub struct WorkloadReference {
    pub name: String,
    pub pod_group: String,
    #[serde(skip_serializing_if = "String::is_empty")]
    pub pod_group_replica_key: String,
}

/// `scheduling.k8s.io/v1alpha1` `Workload` (namespaced).
#[derive(Debug, Clone, Default, Deserialize, Serialize, PartialEq)]
#[serde(default, rename_all = "camelCase")]
pub struct Workload {
    #[serde(skip_serializing_if = "String::is_empty")]
    pub kind: String,
    #[serde(skip_serializing_if = "String::is_empty")]
    pub api_version: String,
    pub metadata: ObjectMeta,
    pub spec: WorkloadSpec,
}

/// `WorkloadSpec`: the pod groups (immutable; `controllerRef` is not read by the scheduler).
#[derive(Debug, Clone, Default, Deserialize, Serialize, PartialEq)]
#[serde(default, rename_all = "camelCase")]
pub struct WorkloadSpec {
    #[serde(skip_serializing_if = "Option::is_none")]
    pub controller_ref: Option<serde_json::Value>,
    pub pod_groups: Vec<PodGroup>,
}

/// `PodGroup`: a named set of pods with one scheduling policy.
#[derive(Debug, Clone, Default, Deserialize, Serialize, PartialEq)]
#[serde(default, rename_all = "camelCase")]
pub struct PodGroup {
    pub name: String,
    pub policy: PodGroupPolicy,
}

/// `PodGroupPolicy`: exactly one of `basic` and `gang` (validated by the API server).
#[derive(Debug, Clone, Default, Deserialize, Serialize, PartialEq)]
#[serde(default, rename_all = "camelCase")]
pub struct PodGroupPolicy {
    #[serde(skip_serializing_if = "Option::is_none")]
    pub basic: Option<BasicSchedulingPolicy>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub gang: Option<GangSchedulingPolicy>,
}

/// `BasicSchedulingPolicy`: pods scheduled one by one, as without a group (no fields in v1.35).
#[derive(Debug, Clone, Default, Deserialize, Serialize, PartialEq)]
pub struct BasicSchedulingPolicy {}

/// `GangSchedulingPolicy`: at least `minCount` pods of the group are placed, or none.
#[derive(Debug, Clone, Default, Deserialize, Serialize, PartialEq)]
#[serde(default, rename_all = "camelCase")]
pub struct GangSchedulingPolicy {
    pub min_count: i32,
}
