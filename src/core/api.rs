//! The few Kubernetes API types edgesched reads and writes, as minimal serde models.
//!
//! Only the fields scheduling needs are declared; everything else in the API server's JSON is ignored,
//! so new upstream fields never break decoding. Every type defaults its omitted fields
//! (`#[serde(default)]`), and decoding goes through [`crate::core::gojson`], which reads `null`
//! anywhere as the zero value, as client-go's Go decoder does (bookmark events carry
//! `"containers": null`; other servers write `"spec": null`). Enumerations stay strings, so a
//! value this version does not know is kept (the model decides what it means). Quantities accept
//! JSON numbers as well as strings, as `resource.Quantity`'s `UnmarshalJSON` does (hand-written
//! cluster files for `simulate` often say `cpu: 1`).

pub mod pod_wire;
pub mod resource;
pub mod scan;
pub mod workload_v1alpha1;

pub use resource::*;
pub use workload_v1alpha1::{Workload, WorkloadReference};

use serde::de::{self, Deserializer};
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

/// Deserialize `null` (or an absent field, with `#[serde(default)]`) as the type's default.
pub fn null_as_default<'de, D, T>(d: D) -> Result<T, D::Error>
where
    D: Deserializer<'de>,
    T: Default + Deserialize<'de>,
{
    Ok(Option::<T>::deserialize(d)?.unwrap_or_default())
}

/// A `resource.Quantity` as it appears on the wire: normally a string, sometimes a bare number
/// (hand-written YAML, some servers). Decoded as `Quantity.UnmarshalJSON` does
/// (`k8s.io/apimachinery/pkg/api/resource/quantity.go`): `null` is the zero quantity, a string is
/// trimmed of surrounding spaces, a number is read as its decimal text. Parsing into integers
/// happens later (`core::quantity`) so that one bad value becomes a clear per-pod error instead of
/// a failed decode of the whole object.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Default)]
#[serde(transparent)]
pub struct QuantityStr(pub String);

impl<'de> Deserialize<'de> for QuantityStr {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl de::Visitor<'_> for V {
            type Value = QuantityStr;
            fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
                f.write_str("a quantity string or number")
            }
            fn visit_str<E: de::Error>(self, v: &str) -> Result<QuantityStr, E> {
                Ok(QuantityStr(v.trim().to_string()))
            }
            fn visit_unit<E: de::Error>(self) -> Result<QuantityStr, E> {
                Ok(QuantityStr("0".to_string()))
            }
            fn visit_none<E: de::Error>(self) -> Result<QuantityStr, E> {
                self.visit_unit()
            }
            fn visit_i64<E: de::Error>(self, v: i64) -> Result<QuantityStr, E> {
                Ok(QuantityStr(v.to_string()))
            }
            fn visit_u64<E: de::Error>(self, v: u64) -> Result<QuantityStr, E> {
                Ok(QuantityStr(v.to_string()))
            }
            fn visit_f64<E: de::Error>(self, v: f64) -> Result<QuantityStr, E> {
                Ok(QuantityStr(v.to_string()))
            }
        }
        d.deserialize_any(V)
    }
}

/// `v1.ResourceList`: resource name → quantity.
pub type ResourceList = BTreeMap<String, QuantityStr>;

/// `metav1.ObjectMeta`, reduced to what scheduling and leader election use.
#[derive(Debug, Clone, Default, Deserialize, Serialize, PartialEq)]
#[serde(default, rename_all = "camelCase")]
pub struct ObjectMeta {
    #[serde(skip_serializing_if = "String::is_empty")]
    pub name: String,
    #[serde(skip_serializing_if = "String::is_empty")]
    pub namespace: String,
    #[serde(skip_serializing_if = "String::is_empty")]
    pub uid: String,
    #[serde(skip_serializing_if = "String::is_empty")]
    pub resource_version: String,
    #[serde(skip_serializing_if = "BTreeMap::is_empty")]
    pub labels: BTreeMap<String, String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub creation_timestamp: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub deletion_timestamp: Option<String>,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub owner_references: Vec<OwnerReference>,
}

/// `metav1.OwnerReference`: lets PodTopologySpread find a pod's controller for system defaults.
#[derive(Debug, Clone, Default, Deserialize, Serialize, PartialEq)]
#[serde(default, rename_all = "camelCase")]
pub struct OwnerReference {
    pub api_version: String,
    pub kind: String,
    pub name: String,
    pub uid: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub controller: Option<bool>,
}

/// `metav1.ListMeta`.
#[derive(Debug, Clone, Default, Deserialize, Serialize)]
#[serde(default, rename_all = "camelCase")]
pub struct ListMeta {
    pub resource_version: String,
    #[serde(rename = "continue")]
    pub continue_token: String,
    pub remaining_item_count: Option<i64>,
}

/// Any `*List` body: `items` of one kind plus list metadata. Items carry no kind/apiVersion.
#[derive(Debug, Clone, Deserialize)]
#[serde(bound(deserialize = "T: Deserialize<'de>"))]
pub struct ObjectList<T> {
    #[serde(default)]
    pub metadata: ListMeta,
    #[serde(default)]
    pub items: Vec<T>,
}

// ---------------------------------------------------------------------------------------------
// Pods
// ---------------------------------------------------------------------------------------------

/// `v1.Pod`.
#[derive(Debug, Clone, Default, Deserialize, Serialize)]
#[serde(default)]
pub struct Pod {
    pub metadata: ObjectMeta,
    pub spec: PodSpec,
    pub status: PodStatus,
    /// The object as the API server sent it, kept only while [`keep_pod_sources`] is on (some
    /// extender is configured: upstream sends extenders the whole `v1.Pod`, fields this struct
    /// does not decode included). `None` otherwise.
    #[serde(skip)]
    pub source: Option<std::sync::Arc<str>>,
}

static KEEP_POD_SOURCES: std::sync::atomic::AtomicBool = std::sync::atomic::AtomicBool::new(false);

/// From now on, decoded pods keep their JSON as sent (set once at start-up when extenders are
/// configured; a setting fixed for the process, like the configuration).
pub fn keep_pod_sources() {
    KEEP_POD_SOURCES.store(true, std::sync::atomic::Ordering::Relaxed);
}

impl Pod {
    /// Keep `raw` as the pod's source when sources are kept.
    pub fn keep_source(&mut self, raw: &str) {
        if KEEP_POD_SOURCES.load(std::sync::atomic::Ordering::Relaxed) {
            self.source = Some(raw.into());
        }
    }
}

/// `v1.PodSpec`.
#[derive(Debug, Clone, Default, Deserialize, Serialize)]
#[serde(default, rename_all = "camelCase")]
pub struct PodSpec {
    #[serde(skip_serializing_if = "String::is_empty")]
    pub node_name: String,
    #[serde(skip_serializing_if = "String::is_empty")]
    pub scheduler_name: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub priority: Option<i32>,
    #[serde(skip_serializing_if = "String::is_empty")]
    pub priority_class_name: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub preemption_policy: Option<String>,
    #[serde(skip_serializing_if = "BTreeMap::is_empty")]
    pub node_selector: BTreeMap<String, String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub affinity: Option<Affinity>,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub tolerations: Vec<Toleration>,
    pub containers: Vec<Container>,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub init_containers: Vec<Container>,
    #[serde(skip_serializing_if = "BTreeMap::is_empty")]
    pub overhead: ResourceList,
    /// Pod-level resources (`PodLevelResources`); only cpu, memory and hugepages-* are honoured.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub resources: Option<ResourceRequirements>,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub scheduling_gates: Vec<PodSchedulingGate>,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub topology_spread_constraints: Vec<TopologySpreadConstraint>,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub volumes: Vec<Volume>,
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub host_network: bool,
    /// The pod's dynamic resource allocation claims, by name or through a template.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub resource_claims: Vec<PodResourceClaim>,
    /// `spec.workloadRef` (v1.35, `GenericWorkload`): the pod group the pod belongs to.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub workload_ref: Option<WorkloadReference>,
}

/// `v1.PodResourceClaim`: a claim the pod uses, named directly (`resourceClaimName`) or made for
/// the pod from a template (`resourceClaimTemplateName`); exactly one is set in valid pods.
#[derive(Debug, Clone, Default, Deserialize, Serialize, PartialEq)]
#[serde(default, rename_all = "camelCase")]
pub struct PodResourceClaim {
    pub name: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub resource_claim_name: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub resource_claim_template_name: Option<String>,
}

/// `v1.PodResourceClaimStatus`: the name of the claim the resourceclaim controller made from a
/// template for `spec.resourceClaims[name]`; `None` when none was needed.
#[derive(Debug, Clone, Default, Deserialize, Serialize, PartialEq)]
#[serde(default, rename_all = "camelCase")]
pub struct PodResourceClaimStatus {
    pub name: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub resource_claim_name: Option<String>,
}

/// `v1.PodStatus`.
#[derive(Debug, Clone, Default, Deserialize, Serialize)]
#[serde(default, rename_all = "camelCase")]
pub struct PodStatus {
    #[serde(skip_serializing_if = "String::is_empty")]
    pub phase: String,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub conditions: Vec<PodCondition>,
    #[serde(skip_serializing_if = "String::is_empty")]
    pub nominated_node_name: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub start_time: Option<String>,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub resource_claim_statuses: Vec<PodResourceClaimStatus>,
    /// What the kubelet reports of each container's resources: a bound pod's requests are
    /// counted from these and the spec together while an in-place resize is pending or in
    /// progress ([`crate::core::pod_requests`]).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub container_statuses: Vec<ContainerStatus>,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub init_container_statuses: Vec<ContainerStatus>,
    /// Pod-level resources as configured in the pod's cgroup (`InPlacePodLevelResourcesVerticalScaling`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub resources: Option<StatusResources>,
    /// Pod-level resources the kubelet admitted (`InPlacePodLevelResourcesVerticalScaling`).
    #[serde(skip_serializing_if = "BTreeMap::is_empty")]
    pub allocated_resources: ResourceList,
}

/// `v1.ContainerStatus`, only the parts in-place resize accounting reads.
#[derive(Debug, Clone, Default, Deserialize, Serialize)]
#[serde(default, rename_all = "camelCase")]
pub struct ContainerStatus {
    pub name: String,
    /// The resources the kubelet admitted for the container.
    #[serde(skip_serializing_if = "BTreeMap::is_empty")]
    pub allocated_resources: ResourceList,
    /// The resources configured in the running container (`None`: not reported).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub resources: Option<StatusResources>,
}

/// `v1.ResourceRequirements` as a status reports it; only its requests count for scheduling.
#[derive(Debug, Clone, Default, Deserialize, Serialize)]
#[serde(default, rename_all = "camelCase")]
pub struct StatusResources {
    #[serde(skip_serializing_if = "BTreeMap::is_empty")]
    pub requests: ResourceList,
}

/// `v1.PodCondition`.
#[derive(Debug, Clone, Default, Deserialize, Serialize, PartialEq)]
#[serde(default, rename_all = "camelCase")]
pub struct PodCondition {
    #[serde(rename = "type")]
    pub type_: String,
    pub status: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub reason: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub message: Option<String>,
    pub last_probe_time: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub last_transition_time: Option<String>,
}

/// `v1.Container` (also used for init containers).
#[derive(Debug, Clone, Default, Deserialize, Serialize)]
#[serde(default, rename_all = "camelCase")]
pub struct Container {
    pub name: String,
    #[serde(skip_serializing_if = "String::is_empty")]
    pub image: String,
    pub resources: ResourceRequirements,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub ports: Vec<ContainerPort>,
    /// `Always` marks a restartable ("sidecar") init container.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub restart_policy: Option<String>,
}

/// `v1.ResourceRequirements`; limits are not used by any default plugin.
#[derive(Debug, Clone, Default, Deserialize, Serialize)]
#[serde(default, rename_all = "camelCase")]
pub struct ResourceRequirements {
    #[serde(skip_serializing_if = "BTreeMap::is_empty")]
    pub requests: ResourceList,
    #[serde(skip_serializing_if = "BTreeMap::is_empty")]
    pub limits: ResourceList,
}

/// `v1.ContainerPort`.
#[derive(Debug, Clone, Default, Deserialize, Serialize)]
#[serde(default, rename_all = "camelCase")]
pub struct ContainerPort {
    pub container_port: i32,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub host_port: Option<i32>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub protocol: Option<String>,
    #[serde(rename = "hostIP", skip_serializing_if = "Option::is_none")]
    pub host_ip: Option<String>,
}

/// `v1.Toleration`.
#[derive(Debug, Clone, Default, Deserialize, Serialize, PartialEq)]
#[serde(default, rename_all = "camelCase")]
pub struct Toleration {
    #[serde(skip_serializing_if = "String::is_empty")]
    pub key: String,
    #[serde(skip_serializing_if = "String::is_empty")]
    pub operator: String,
    #[serde(skip_serializing_if = "String::is_empty")]
    pub value: String,
    #[serde(skip_serializing_if = "String::is_empty")]
    pub effect: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub toleration_seconds: Option<i64>,
}

/// `v1.PodSchedulingGate`.
#[derive(Debug, Clone, Default, Deserialize, Serialize)]
#[serde(default)]
pub struct PodSchedulingGate {
    pub name: String,
}

/// `v1.Affinity`.
#[derive(Debug, Clone, Default, Deserialize, Serialize, PartialEq)]
#[serde(default, rename_all = "camelCase")]
pub struct Affinity {
    #[serde(skip_serializing_if = "Option::is_none")]
    pub node_affinity: Option<NodeAffinity>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub pod_affinity: Option<PodAffinity>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub pod_anti_affinity: Option<PodAffinity>,
}

/// `v1.NodeAffinity`.
#[derive(Debug, Clone, Default, Deserialize, Serialize, PartialEq)]
#[serde(default)]
pub struct NodeAffinity {
    #[serde(rename = "requiredDuringSchedulingIgnoredDuringExecution", skip_serializing_if = "Option::is_none")]
    pub required: Option<NodeSelector>,
    #[serde(rename = "preferredDuringSchedulingIgnoredDuringExecution", skip_serializing_if = "Vec::is_empty")]
    pub preferred: Vec<PreferredSchedulingTerm>,
}

/// `v1.NodeSelector`: terms are ORed.
#[derive(Debug, Clone, Default, Deserialize, Serialize, PartialEq)]
#[serde(default, rename_all = "camelCase")]
pub struct NodeSelector {
    pub node_selector_terms: Vec<NodeSelectorTerm>,
}

/// `v1.NodeSelectorTerm`: expressions and fields are ANDed.
#[derive(Debug, Clone, Default, Deserialize, Serialize, PartialEq)]
#[serde(default, rename_all = "camelCase")]
pub struct NodeSelectorTerm {
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub match_expressions: Vec<NodeSelectorRequirement>,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub match_fields: Vec<NodeSelectorRequirement>,
}

/// `v1.NodeSelectorRequirement`.
#[derive(Debug, Clone, Default, Deserialize, Serialize, PartialEq)]
#[serde(default)]
pub struct NodeSelectorRequirement {
    pub key: String,
    pub operator: String,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub values: Vec<String>,
}

/// `v1.PreferredSchedulingTerm`.
#[derive(Debug, Clone, Default, Deserialize, Serialize, PartialEq)]
#[serde(default)]
pub struct PreferredSchedulingTerm {
    pub weight: i32,
    pub preference: NodeSelectorTerm,
}

/// `v1.PodAffinity` / `v1.PodAntiAffinity` (same shape).
#[derive(Debug, Clone, Default, Deserialize, Serialize, PartialEq)]
#[serde(default)]
pub struct PodAffinity {
    #[serde(rename = "requiredDuringSchedulingIgnoredDuringExecution", skip_serializing_if = "Vec::is_empty")]
    pub required: Vec<PodAffinityTerm>,
    #[serde(rename = "preferredDuringSchedulingIgnoredDuringExecution", skip_serializing_if = "Vec::is_empty")]
    pub preferred: Vec<WeightedPodAffinityTerm>,
}

/// `v1.PodAffinityTerm`.
#[derive(Debug, Clone, Default, Deserialize, Serialize, PartialEq)]
#[serde(default, rename_all = "camelCase")]
pub struct PodAffinityTerm {
    #[serde(skip_serializing_if = "Option::is_none")]
    pub label_selector: Option<LabelSelector>,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub namespaces: Vec<String>,
    pub topology_key: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub namespace_selector: Option<LabelSelector>,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub match_label_keys: Vec<String>,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub mismatch_label_keys: Vec<String>,
}

/// `v1.WeightedPodAffinityTerm`.
#[derive(Debug, Clone, Default, Deserialize, Serialize, PartialEq)]
#[serde(default, rename_all = "camelCase")]
pub struct WeightedPodAffinityTerm {
    pub weight: i32,
    pub pod_affinity_term: PodAffinityTerm,
}

/// `metav1.LabelSelector`.
#[derive(Debug, Clone, Default, Deserialize, Serialize, PartialEq)]
#[serde(default, rename_all = "camelCase")]
pub struct LabelSelector {
    #[serde(skip_serializing_if = "BTreeMap::is_empty")]
    pub match_labels: BTreeMap<String, String>,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub match_expressions: Vec<LabelSelectorRequirement>,
}

/// `metav1.LabelSelectorRequirement` (operators In, NotIn, Exists, DoesNotExist).
#[derive(Debug, Clone, Default, Deserialize, Serialize, PartialEq)]
#[serde(default)]
pub struct LabelSelectorRequirement {
    pub key: String,
    pub operator: String,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub values: Vec<String>,
}

/// `v1.TopologySpreadConstraint`.
#[derive(Debug, Clone, Default, Deserialize, Serialize, PartialEq)]
#[serde(default, rename_all = "camelCase")]
pub struct TopologySpreadConstraint {
    pub max_skew: i32,
    pub topology_key: String,
    pub when_unsatisfiable: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub label_selector: Option<LabelSelector>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub min_domains: Option<i32>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub node_affinity_policy: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub node_taints_policy: Option<String>,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub match_label_keys: Vec<String>,
}

/// `v1.Volume`, reduced to the sources the volume plugins inspect.
#[derive(Debug, Clone, Default, Deserialize, Serialize, PartialEq)]
#[serde(default, rename_all = "camelCase")]
pub struct Volume {
    pub name: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub persistent_volume_claim: Option<PvcSource>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub ephemeral: Option<serde_json::Value>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub gce_persistent_disk: Option<GcePersistentDiskSource>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub aws_elastic_block_store: Option<AwsElasticBlockStoreSource>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub rbd: Option<RbdSource>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub iscsi: Option<IscsiSource>,
}

/// `v1.PersistentVolumeClaimVolumeSource`.
#[derive(Debug, Clone, Default, Deserialize, Serialize, PartialEq)]
#[serde(default, rename_all = "camelCase")]
pub struct PvcSource {
    pub claim_name: String,
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub read_only: bool,
}

// ---------------------------------------------------------------------------------------------
// Nodes
// ---------------------------------------------------------------------------------------------

/// `v1.Node`.
#[derive(Debug, Clone, Default, Deserialize, Serialize)]
#[serde(default)]
pub struct Node {
    pub metadata: ObjectMeta,
    pub spec: NodeSpec,
    pub status: NodeStatus,
}

/// `v1.NodeSpec`.
#[derive(Debug, Clone, Default, Deserialize, Serialize)]
#[serde(default, rename_all = "camelCase")]
pub struct NodeSpec {
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub unschedulable: bool,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub taints: Vec<Taint>,
}

/// `v1.Taint`.
#[derive(Debug, Clone, Default, Deserialize, Serialize, PartialEq)]
#[serde(default, rename_all = "camelCase")]
pub struct Taint {
    pub key: String,
    #[serde(skip_serializing_if = "String::is_empty")]
    pub value: String,
    pub effect: String,
}

/// `v1.NodeStatus`.
#[derive(Debug, Clone, Default, Deserialize, Serialize)]
#[serde(default, rename_all = "camelCase")]
pub struct NodeStatus {
    #[serde(skip_serializing_if = "BTreeMap::is_empty")]
    pub capacity: ResourceList,
    #[serde(skip_serializing_if = "BTreeMap::is_empty")]
    pub allocatable: ResourceList,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub images: Vec<ContainerImage>,
}

/// `v1.ContainerImage`.
#[derive(Debug, Clone, Default, Deserialize, Serialize)]
#[serde(default, rename_all = "camelCase")]
pub struct ContainerImage {
    pub names: Vec<String>,
    pub size_bytes: i64,
}

// ---------------------------------------------------------------------------------------------
// PriorityClass
// ---------------------------------------------------------------------------------------------

/// `scheduling.k8s.io/v1` PriorityClass: resolves `priorityClassName` for pods created before the
/// Priority admission plugin ran (or on clusters without it).
#[derive(Debug, Clone, Default, Deserialize, Serialize)]
#[serde(default, rename_all = "camelCase")]
pub struct PriorityClass {
    pub metadata: ObjectMeta,
    pub value: i32,
    pub global_default: bool,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub preemption_policy: Option<String>,
}

// ---------------------------------------------------------------------------------------------
// Writes: Binding, Event, Status
// ---------------------------------------------------------------------------------------------

/// `v1.Binding`, the body POSTed to `pods/{name}/binding`.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Binding {
    pub kind: String,
    pub api_version: String,
    pub metadata: ObjectMeta,
    pub target: ObjectReference,
}

/// `v1.ObjectReference`.
#[derive(Debug, Clone, Default, Serialize, Deserialize, PartialEq, Eq, Hash)]
#[serde(default, rename_all = "camelCase")]
pub struct ObjectReference {
    #[serde(skip_serializing_if = "String::is_empty")]
    pub kind: String,
    #[serde(skip_serializing_if = "String::is_empty")]
    pub api_version: String,
    #[serde(skip_serializing_if = "String::is_empty")]
    pub namespace: String,
    #[serde(skip_serializing_if = "String::is_empty")]
    pub name: String,
    #[serde(skip_serializing_if = "String::is_empty")]
    pub uid: String,
    #[serde(skip_serializing_if = "String::is_empty")]
    pub resource_version: String,
}

/// `events.k8s.io/v1` Event, with exactly the fields kube-scheduler's recorder writes. Decoding is
/// lenient: list items carry no kind/apiVersion, and events converted from core/v1 may lack the
/// newer fields or hold nulls.
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
#[serde(default, rename_all = "camelCase")]
pub struct Event {
    pub kind: String,
    pub api_version: String,
    pub metadata: ObjectMeta,
    pub event_time: String,
    pub reporting_controller: String,
    pub reporting_instance: String,
    pub action: String,
    pub reason: String,
    pub regarding: ObjectReference,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub related: Option<ObjectReference>,
    pub note: String,
    #[serde(rename = "type")]
    pub type_: String,
    /// Set once an isomorphic event repeats (client-go tools/events: the second occurrence turns
    /// the event into a series).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub series: Option<EventSeries>,
}

/// `events.k8s.io/v1` EventSeries.
#[derive(Debug, Clone, Default, Serialize, Deserialize, PartialEq)]
#[serde(default, rename_all = "camelCase")]
pub struct EventSeries {
    pub count: i32,
    /// MicroTime (RFC 3339 with 6 fractional digits).
    pub last_observed_time: String,
}

/// `metav1.Status`: the body of every API error (and of some successes).
#[derive(Debug, Clone, Default, Deserialize, Serialize, PartialEq)]
#[serde(default, rename_all = "camelCase")]
pub struct Status {
    pub status: String,
    pub message: String,
    pub reason: String,
    pub details: Option<StatusDetails>,
    pub code: u16,
}

/// `metav1.StatusDetails`.
#[derive(Debug, Clone, Default, Deserialize, Serialize, PartialEq)]
#[serde(default, rename_all = "camelCase")]
pub struct StatusDetails {
    pub name: String,
    pub group: String,
    pub kind: String,
    pub retry_after_seconds: Option<i64>,
}

/// `metav1.DeleteOptions`, sent with DELETE so a delete only removes the object we looked at.
#[derive(Debug, Clone, Default, Serialize, Deserialize, PartialEq)]
#[serde(default, rename_all = "camelCase")]
pub struct DeleteOptions {
    pub kind: String,
    pub api_version: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub preconditions: Option<Preconditions>,
}

/// `metav1.Preconditions`: the server refuses the delete (409) when the object's UID differs.
#[derive(Debug, Clone, Default, Serialize, Deserialize, PartialEq)]
#[serde(default, rename_all = "camelCase")]
pub struct Preconditions {
    #[serde(skip_serializing_if = "Option::is_none")]
    pub uid: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub resource_version: Option<String>,
}

// ---------------------------------------------------------------------------------------------
// Leases (leader election)
// ---------------------------------------------------------------------------------------------

/// `coordination.k8s.io/v1` Lease.
#[derive(Debug, Clone, Default, Deserialize, Serialize, PartialEq)]
#[serde(default, rename_all = "camelCase")]
pub struct Lease {
    #[serde(skip_serializing_if = "String::is_empty")]
    pub kind: String,
    #[serde(skip_serializing_if = "String::is_empty")]
    pub api_version: String,
    pub metadata: LeaseMeta,
    pub spec: LeaseSpec,
}

/// Lease metadata: identity plus annotations (edgesched records the scheduler names it serves
/// there, so `status` and unserved-name detection can tell which names a lease stands for).
#[derive(Debug, Clone, Default, Deserialize, Serialize, PartialEq)]
#[serde(default, rename_all = "camelCase")]
pub struct LeaseMeta {
    #[serde(skip_serializing_if = "String::is_empty")]
    pub name: String,
    #[serde(skip_serializing_if = "String::is_empty")]
    pub namespace: String,
    #[serde(skip_serializing_if = "String::is_empty")]
    pub resource_version: String,
    #[serde(skip_serializing_if = "BTreeMap::is_empty")]
    pub annotations: BTreeMap<String, String>,
    /// The rest of `metadata` (labels, uid, ownerReferences, ...), sent back unchanged on update:
    /// like client-go's LeaseLock, leader election rewrites only `spec` (and our annotation).
    #[serde(flatten)]
    pub other: BTreeMap<String, serde_json::Value>,
}

/// `coordination.k8s.io/v1` LeaseSpec. Times are MicroTime strings (RFC 3339, 6 fractional digits).
#[derive(Debug, Clone, Default, Deserialize, Serialize, PartialEq)]
#[serde(default, rename_all = "camelCase")]
pub struct LeaseSpec {
    #[serde(skip_serializing_if = "Option::is_none")]
    pub holder_identity: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub lease_duration_seconds: Option<i32>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub acquire_time: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub renew_time: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub lease_transitions: Option<i32>,
}

/// The metadata every object the scheduler mirrors carries: enough to key it in a store and to
/// resume a watch after it. One implementation per type, generated below.
pub trait Object {
    fn name(&self) -> &str;
    /// "" for cluster-scoped objects.
    fn namespace(&self) -> &str;
    /// `metadata.resourceVersion` ("" if unknown).
    fn resource_version(&self) -> &str;
    /// `namespace/name`, or `name` for cluster-scoped objects: how stores key it.
    fn key(&self) -> String {
        if self.namespace().is_empty() {
            self.name().to_string()
        } else {
            format!("{}/{}", self.namespace(), self.name())
        }
    }
}

impl Object for Event {
    fn name(&self) -> &str {
        &self.metadata.name
    }
    fn namespace(&self) -> &str {
        &self.metadata.namespace
    }
    fn resource_version(&self) -> &str {
        &self.metadata.resource_version
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::core::gojson;

    #[test]
    fn bookmark_pod_with_null_containers_decodes() {
        // Shape of a real BOOKMARK object (watch/watch-event-bookmark-initial-events-end-kind-v1.36.json).
        let raw = r#"{"kind":"Pod","apiVersion":"v1","metadata":{"resourceVersion":"554","creationTimestamp":null,
            "annotations":{"k8s.io/initial-events-end":"true"}},"spec":{"containers":null},"status":{}}"#;
        let pod: Pod = gojson::from_str(raw).expect("decodes");
        assert_eq!(pod.metadata.resource_version, "554");
        assert!(pod.spec.containers.is_empty());
    }

    #[test]
    fn quantities_decode_as_unmarshal_json_does() {
        // quantity_test.go TestJSON / TestQuantityUnmarshalJSON cases: numbers, quoted strings with
        // spaces, null (the zero quantity).
        let raw = r#"{"requests":{"cpu":1,"memory":"128Mi","nvidia.com/gpu":0.5,"big":1e3,"spaced":" 100m ","none":null}}"#;
        let r: ResourceRequirements = gojson::from_str(raw).expect("decodes");
        let got = |k: &str| r.requests[k].0.as_str();
        assert_eq!(
            [got("cpu"), got("memory"), got("nvidia.com/gpu"), got("big"), got("spaced"), got("none")],
            ["1", "128Mi", "0.5", "1000", "100m", "0"]
        );
    }

    #[test]
    fn null_specs_and_unknown_enum_strings_decode() {
        let raw = r#"{"metadata":{"name":"n1","labels":null},"spec":null,"status":{"capacity":null,
            "allocatable":{"cpu":"2"},"images":[null,{"names":null,"sizeBytes":null}]}}"#;
        let node: Node = gojson::from_str(raw).expect("decodes");
        assert_eq!(node.metadata.name, "n1");
        assert!(node.spec.taints.is_empty() && !node.spec.unschedulable);
        assert_eq!(node.status.images.len(), 2);
        let raw = r#"{"spec":{"tolerations":[{"key":"k","operator":"Sometimes","effect":"NoLunch"}],
            "topologySpreadConstraints":[{"whenUnsatisfiable":"Maybe","maxSkew":null}]}}"#;
        let pod: Pod = gojson::from_str(raw).expect("decodes");
        assert_eq!(pod.spec.tolerations[0].operator, "Sometimes");
        assert_eq!(pod.spec.topology_spread_constraints[0].when_unsatisfiable, "Maybe");
    }
}

/// core/v1 Event: used for leader-election events (as upstream's legacy recorder) and as the
/// fallback when the events.k8s.io API is not served.
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
#[serde(default, rename_all = "camelCase")]
pub struct CoreEvent {
    pub kind: String,
    pub api_version: String,
    pub metadata: ObjectMeta,
    pub involved_object: ObjectReference,
    pub reason: String,
    pub message: String,
    pub source: EventSource,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub first_timestamp: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub last_timestamp: Option<String>,
    pub count: i32,
    #[serde(rename = "type")]
    pub type_: String,
    #[serde(skip_serializing_if = "String::is_empty")]
    pub reporting_component: String,
    #[serde(skip_serializing_if = "String::is_empty")]
    pub reporting_instance: String,
    #[serde(skip_serializing_if = "String::is_empty")]
    pub action: String,
}

/// core/v1 EventSource.
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
#[serde(default)]
pub struct EventSource {
    #[serde(skip_serializing_if = "String::is_empty")]
    pub component: String,
    #[serde(skip_serializing_if = "String::is_empty")]
    pub host: String,
}

/// `policy/v1` PodDisruptionBudget (what preemption reads).
#[derive(Debug, Clone, Default, Deserialize, Serialize)]
#[serde(default)]
pub struct PodDisruptionBudget {
    pub metadata: ObjectMeta,
    pub spec: PdbSpec,
    pub status: PdbStatus,
}

/// `policy/v1` PodDisruptionBudgetSpec (selector only).
#[derive(Debug, Clone, Default, Deserialize, Serialize)]
#[serde(default)]
pub struct PdbSpec {
    #[serde(skip_serializing_if = "Option::is_none")]
    pub selector: Option<LabelSelector>,
}

/// `policy/v1` PodDisruptionBudgetStatus.
#[derive(Debug, Clone, Default, Deserialize, Serialize)]
#[serde(default, rename_all = "camelCase")]
pub struct PdbStatus {
    pub disruptions_allowed: i32,
    pub disrupted_pods: BTreeMap<String, String>,
}

// ---------------------------------------------------------------------------------------------
// Storage: inline disk sources, claims, volumes, classes, CSI nodes (read by the volume plugins)
// ---------------------------------------------------------------------------------------------

/// `v1.GCEPersistentDiskVolumeSource`: only the identity VolumeRestrictions compares.
#[derive(Debug, Clone, Default, Deserialize, Serialize, PartialEq)]
#[serde(default, rename_all = "camelCase")]
pub struct GcePersistentDiskSource {
    #[serde(rename = "pdName")]
    pub pd_name: String,
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub read_only: bool,
}

/// `v1.AWSElasticBlockStoreVolumeSource`.
#[derive(Debug, Clone, Default, Deserialize, Serialize, PartialEq)]
#[serde(default, rename_all = "camelCase")]
pub struct AwsElasticBlockStoreSource {
    #[serde(rename = "volumeID")]
    pub volume_id: String,
}

/// `v1.RBDVolumeSource`.
#[derive(Debug, Clone, Default, Deserialize, Serialize, PartialEq)]
#[serde(default, rename_all = "camelCase")]
pub struct RbdSource {
    pub monitors: Vec<String>,
    pub image: String,
    pub pool: String,
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub read_only: bool,
}

/// `v1.ISCSIVolumeSource`.
#[derive(Debug, Clone, Default, Deserialize, Serialize, PartialEq)]
#[serde(default, rename_all = "camelCase")]
pub struct IscsiSource {
    pub iqn: String,
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub read_only: bool,
}

/// Object metadata of storage objects: unlike pods they carry annotations the binder reads
/// (`volume.kubernetes.io/selected-node`, `pv.kubernetes.io/bind-completed`).
#[derive(Debug, Clone, Default, Deserialize, Serialize, PartialEq)]
#[serde(default, rename_all = "camelCase")]
pub struct StorageObjectMeta {
    pub name: String,
    #[serde(skip_serializing_if = "String::is_empty")]
    pub namespace: String,
    #[serde(skip_serializing_if = "String::is_empty")]
    pub uid: String,
    #[serde(skip_serializing_if = "String::is_empty")]
    pub resource_version: String,
    #[serde(skip_serializing_if = "BTreeMap::is_empty")]
    pub labels: BTreeMap<String, String>,
    #[serde(skip_serializing_if = "BTreeMap::is_empty")]
    pub annotations: BTreeMap<String, String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub deletion_timestamp: Option<String>,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub owner_references: Vec<OwnerReference>,
}

/// `v1.PersistentVolumeClaim`.
#[derive(Debug, Clone, Default, Deserialize, Serialize, PartialEq)]
#[serde(default)]
pub struct PersistentVolumeClaim {
    pub metadata: StorageObjectMeta,
    pub spec: PersistentVolumeClaimSpec,
    pub status: PersistentVolumeClaimStatus,
}

/// `v1.PersistentVolumeClaimSpec`.
#[derive(Debug, Clone, Default, Deserialize, Serialize, PartialEq)]
#[serde(default, rename_all = "camelCase")]
pub struct PersistentVolumeClaimSpec {
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub access_modes: Vec<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub selector: Option<LabelSelector>,
    pub resources: VolumeResourceRequirements,
    #[serde(skip_serializing_if = "String::is_empty")]
    pub volume_name: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub storage_class_name: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub volume_mode: Option<String>,
}

/// `v1.VolumeResourceRequirements`.
#[derive(Debug, Clone, Default, Deserialize, Serialize, PartialEq)]
#[serde(default)]
pub struct VolumeResourceRequirements {
    #[serde(skip_serializing_if = "BTreeMap::is_empty")]
    pub requests: ResourceList,
}

/// `v1.PersistentVolumeClaimStatus`.
#[derive(Debug, Clone, Default, Deserialize, Serialize, PartialEq)]
#[serde(default)]
pub struct PersistentVolumeClaimStatus {
    #[serde(skip_serializing_if = "String::is_empty")]
    pub phase: String,
}

/// `v1.PersistentVolume`.
#[derive(Debug, Clone, Default, Deserialize, Serialize, PartialEq)]
#[serde(default)]
pub struct PersistentVolume {
    pub metadata: StorageObjectMeta,
    pub spec: PersistentVolumeSpec,
    pub status: PersistentVolumeStatus,
}

/// `v1.PersistentVolumeSpec`, with the CSI source and the in-tree AWS EBS one (which
/// NodeVolumeLimits counts as its CSI driver's once migrated) as the only volume sources kept.
#[derive(Debug, Clone, Default, Deserialize, Serialize, PartialEq)]
#[serde(default, rename_all = "camelCase")]
pub struct PersistentVolumeSpec {
    #[serde(skip_serializing_if = "BTreeMap::is_empty")]
    pub capacity: ResourceList,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub access_modes: Vec<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub claim_ref: Option<ClaimReference>,
    #[serde(skip_serializing_if = "String::is_empty")]
    pub storage_class_name: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub node_affinity: Option<VolumeNodeAffinity>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub csi: Option<CsiPersistentVolumeSource>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub aws_elastic_block_store: Option<AwsElasticBlockStoreSource>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub volume_mode: Option<String>,
}

/// `spec.claimRef` of a PV (a `v1.ObjectReference`; only the claim's identity matters).
#[derive(Debug, Clone, Default, Deserialize, Serialize, PartialEq)]
#[serde(default)]
pub struct ClaimReference {
    pub namespace: String,
    pub name: String,
    #[serde(skip_serializing_if = "String::is_empty")]
    pub uid: String,
}

/// `v1.VolumeNodeAffinity`.
#[derive(Debug, Clone, Default, Deserialize, Serialize, PartialEq)]
#[serde(default)]
pub struct VolumeNodeAffinity {
    #[serde(skip_serializing_if = "Option::is_none")]
    pub required: Option<NodeSelector>,
}

/// `v1.CSIPersistentVolumeSource`: driver and handle identify the volume for attach limits.
#[derive(Debug, Clone, Default, Deserialize, Serialize, PartialEq)]
#[serde(default, rename_all = "camelCase")]
pub struct CsiPersistentVolumeSource {
    pub driver: String,
    pub volume_handle: String,
}

/// `v1.PersistentVolumeStatus`.
#[derive(Debug, Clone, Default, Deserialize, Serialize, PartialEq)]
#[serde(default)]
pub struct PersistentVolumeStatus {
    #[serde(skip_serializing_if = "String::is_empty")]
    pub phase: String,
}

/// `storage.k8s.io/v1` `StorageClass` (its fields sit at the top level, not under `spec`).
#[derive(Debug, Clone, Default, Deserialize, Serialize, PartialEq)]
#[serde(default, rename_all = "camelCase")]
pub struct StorageClass {
    pub metadata: StorageObjectMeta,
    pub provisioner: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub volume_binding_mode: Option<String>,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub allowed_topologies: Vec<TopologySelectorTerm>,
}

/// `v1.TopologySelectorTerm`: requirements are ANDed, terms ORed.
#[derive(Debug, Clone, Default, Deserialize, Serialize, PartialEq)]
#[serde(default, rename_all = "camelCase")]
pub struct TopologySelectorTerm {
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub match_label_expressions: Vec<TopologySelectorLabelRequirement>,
}

/// `v1.TopologySelectorLabelRequirement`: the label must have one of the values.
#[derive(Debug, Clone, Default, Deserialize, Serialize, PartialEq)]
#[serde(default)]
pub struct TopologySelectorLabelRequirement {
    pub key: String,
    pub values: Vec<String>,
}

/// `storage.k8s.io/v1` `CSINode`: per-node attach limits of CSI drivers.
#[derive(Debug, Clone, Default, Deserialize, Serialize, PartialEq)]
#[serde(default)]
pub struct CsiNode {
    pub metadata: StorageObjectMeta,
    pub spec: CsiNodeSpec,
}

/// `v1.CSINodeSpec`.
#[derive(Debug, Clone, Default, Deserialize, Serialize, PartialEq)]
#[serde(default)]
pub struct CsiNodeSpec {
    pub drivers: Vec<CsiNodeDriver>,
}

/// `v1.CSINodeDriver`.
#[derive(Debug, Clone, Default, Deserialize, Serialize, PartialEq)]
#[serde(default, rename_all = "camelCase")]
pub struct CsiNodeDriver {
    pub name: String,
    #[serde(rename = "nodeID", skip_serializing_if = "String::is_empty")]
    pub node_id: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub allocatable: Option<VolumeNodeResources>,
}

/// `v1.VolumeNodeResources`: `count` absent means unlimited.
#[derive(Debug, Clone, Default, Deserialize, Serialize, PartialEq)]
#[serde(default)]
pub struct VolumeNodeResources {
    #[serde(skip_serializing_if = "Option::is_none")]
    pub count: Option<i64>,
}

// ---------------------------------------------------------------------------------------------
// Cluster objects PodTopologySpread and InterPodAffinity read: namespaces (labels for
// `namespaceSelector`) and the selectors of the controllers that system default spreading uses.
// ---------------------------------------------------------------------------------------------

/// `v1.Namespace` (metadata only: its labels feed `namespaceSelector`).
#[derive(Debug, Clone, Default, Deserialize, Serialize, PartialEq)]
#[serde(default)]
pub struct Namespace {
    pub metadata: ObjectMeta,
}

/// A spec holding a plain equality selector (`v1.ServiceSpec`, `v1.ReplicationControllerSpec`).
/// `None` (absent or null) selects nothing; an empty map selects every pod.
#[derive(Debug, Clone, Default, Deserialize, Serialize, PartialEq)]
#[serde(default)]
pub struct MapSelectorSpec {
    #[serde(skip_serializing_if = "Option::is_none")]
    pub selector: Option<BTreeMap<String, String>>,
}

/// A spec holding a `metav1.LabelSelector` (`apps/v1` ReplicaSet and StatefulSet).
#[derive(Debug, Clone, Default, Deserialize, Serialize, PartialEq)]
#[serde(default)]
pub struct LabelSelectorSpec {
    #[serde(skip_serializing_if = "Option::is_none")]
    pub selector: Option<LabelSelector>,
}

/// `v1.Service` (selector only).
#[derive(Debug, Clone, Default, Deserialize, Serialize, PartialEq)]
#[serde(default)]
pub struct Service {
    pub metadata: ObjectMeta,
    pub spec: MapSelectorSpec,
}

/// `v1.ReplicationController` (selector only).
#[derive(Debug, Clone, Default, Deserialize, Serialize, PartialEq)]
#[serde(default)]
pub struct ReplicationController {
    pub metadata: ObjectMeta,
    pub spec: MapSelectorSpec,
}

/// `apps/v1` ReplicaSet (selector only).
#[derive(Debug, Clone, Default, Deserialize, Serialize, PartialEq)]
#[serde(default)]
pub struct ReplicaSet {
    pub metadata: ObjectMeta,
    pub spec: LabelSelectorSpec,
}

/// `apps/v1` StatefulSet (selector only).
#[derive(Debug, Clone, Default, Deserialize, Serialize, PartialEq)]
#[serde(default)]
pub struct StatefulSet {
    pub metadata: ObjectMeta,
    pub spec: LabelSelectorSpec,
}
