//! Compact scheduling records built from API objects.
//!
//! The scheduler never works on API objects directly: a node becomes a [`NodeSpecInfo`] (integers
//! for resources, interned label keys, an effect enum for taints) and a pod becomes a [`PodInfo`]
//! with its effective requests precomputed once (init-container max rule, sidecars, overhead,
//! pod-level resources). Conversion never fails as a whole: a pod whose spec cannot be understood
//! keeps its identity and carries the reason in [`PodInfo::spec_error`], so the loop can tell the
//! user why instead of dropping the pod.

mod pod_claims;

pub use pod_claims::{ClaimRef, PodClaim, PodClaimSource, PodClaimStatus, PodClaims};

use crate::core::api;
use crate::core::intern::Name;
use crate::core::pod_requests::{self, is_restartable};
pub use crate::core::pod_requests::{PodResources, RequestGates};
pub use crate::core::resources::{
    is_extended_resource_name, is_scalar_resource_name, Resources, DEFAULT_MEMORY_REQUEST, DEFAULT_MILLI_CPU_REQUEST,
    RESOURCE_CPU, RESOURCE_EPHEMERAL_STORAGE, RESOURCE_MEMORY, RESOURCE_PODS,
};
use crate::core::texts::conditions;
use crate::core::timefmt;
use std::collections::BTreeMap;
use std::sync::Arc;

/// `namespace/name`: the identity used in logs, events and every map.
pub type PodKey = Arc<str>;

/// Build a pod key.
pub fn pod_key(namespace: &str, name: &str) -> PodKey {
    // Assembled on the stack when it fits (a namespace is at most 63 bytes, a name 253), so the
    // key is one allocation: every listed pod gets one.
    let mut buf = [0u8; 320];
    let (ns, n) = (namespace.len(), name.len());
    if let Some(Ok(key)) = buf.get_mut(..ns + n + 1).map(|dst| {
        dst[..ns].copy_from_slice(namespace.as_bytes());
        dst[ns] = b'/';
        dst[ns + 1..].copy_from_slice(name.as_bytes());
        std::str::from_utf8(dst)
    }) {
        return Arc::from(key);
    }
    Arc::from(format!("{namespace}/{name}"))
}

// ---------------------------------------------------------------------------------------------
// Labels
// ---------------------------------------------------------------------------------------------

/// Labels sorted by interned key: O(log n) lookups with pointer compares, values kept as strings.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Labels(Vec<(Name, Box<str>)>);

impl Labels {
    /// Build from an API label map.
    pub fn from_map(map: &BTreeMap<String, String>) -> Labels {
        Labels::sorted(map.iter().map(|(k, v)| (Name::new(k), v.as_str().into())).collect())
    }

    /// Build from an API label map that is not needed afterwards (values move, not copied).
    pub fn from_owned_map(map: BTreeMap<String, String>) -> Labels {
        Labels::sorted(map.into_iter().map(|(k, v)| (Name::new(&k), v.into_boxed_str())).collect())
    }

    /// One sort for both constructors (each closure would be its own copy of the sort).
    fn sorted(mut v: Vec<(Name, Box<str>)>) -> Labels {
        v.sort_by_key(|a| a.0);
        Labels(v)
    }

    /// Value of an interned key.
    pub fn get(&self, key: Name) -> Option<&str> {
        self.0.binary_search_by(|(k, _)| k.cmp(&key)).ok().map(|i| &*self.0[i].1)
    }

    /// Value of a key given as a string (interning lookup first; unknown keys are absent everywhere).
    pub fn get_str(&self, key: &str) -> Option<&str> {
        Name::lookup(key).and_then(|k| self.get(k))
    }

    /// Whether the key is present.
    pub fn has(&self, key: Name) -> bool {
        self.get(key).is_some()
    }

    /// Iterate `(key, value)` pairs (in interning order, not alphabetical).
    pub fn iter(&self) -> impl Iterator<Item = (Name, &str)> {
        self.0.iter().map(|(k, v)| (*k, &**v))
    }

    pub fn len(&self) -> usize {
        self.0.len()
    }

    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }
}

// ---------------------------------------------------------------------------------------------
// Taints, tolerations, ports
// ---------------------------------------------------------------------------------------------

/// Taint/toleration effect.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum TaintEffect {
    NoSchedule,
    PreferNoSchedule,
    NoExecute,
    /// An effect string this version does not know; never matches a specific toleration effect.
    Other,
}

impl TaintEffect {
    pub fn parse(s: &str) -> TaintEffect {
        match s {
            "NoSchedule" => TaintEffect::NoSchedule,
            "PreferNoSchedule" => TaintEffect::PreferNoSchedule,
            "NoExecute" => TaintEffect::NoExecute,
            _ => TaintEffect::Other,
        }
    }

    pub fn as_str(&self) -> &'static str {
        match self {
            TaintEffect::NoSchedule => "NoSchedule",
            TaintEffect::PreferNoSchedule => "PreferNoSchedule",
            TaintEffect::NoExecute => "NoExecute",
            TaintEffect::Other => "",
        }
    }
}

/// A node taint.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Taint {
    pub key: Box<str>,
    pub value: Box<str>,
    pub effect: TaintEffect,
    /// The effect exactly as written (kept for messages and unknown effects).
    pub effect_raw: Box<str>,
}

/// Toleration operator.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TolerationOperator {
    Equal,
    Exists,
    /// Unknown operator: tolerates nothing (upstream's `ToleratesTaint` default branch).
    Other,
}

/// A pod toleration.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Toleration {
    pub key: Box<str>,
    pub operator: TolerationOperator,
    pub value: Box<str>,
    /// Empty means "all effects".
    pub effect: Box<str>,
}

impl Toleration {
    pub fn from_api(t: &api::Toleration) -> Toleration {
        let operator = match t.operator.as_str() {
            "" | "Equal" => TolerationOperator::Equal,
            "Exists" => TolerationOperator::Exists,
            _ => TolerationOperator::Other,
        };
        Toleration { key: t.key.as_str().into(), operator, value: t.value.as_str().into(), effect: t.effect.as_str().into() }
    }

    /// `v1.Toleration.ToleratesTaint` (k8s.io/api/core/v1/toleration.go).
    pub fn tolerates(&self, taint: &Taint) -> bool {
        if !self.effect.is_empty() && *self.effect != *taint.effect_raw {
            return false;
        }
        if !self.key.is_empty() && self.key != taint.key {
            return false;
        }
        match self.operator {
            TolerationOperator::Exists => true,
            TolerationOperator::Equal => self.value == taint.value,
            TolerationOperator::Other => false,
        }
    }
}

/// Whether any toleration in the list tolerates the taint.
pub fn tolerations_tolerate(tolerations: &[Toleration], taint: &Taint) -> bool {
    tolerations.iter().any(|t| t.tolerates(taint))
}

/// Host port protocol.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Protocol {
    Tcp,
    Udp,
    Sctp,
}

/// A host port a pod wants (or uses) on its node. `ip` is `0.0.0.0` when unspecified.
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct HostPort {
    pub ip: Box<str>,
    pub protocol: Protocol,
    pub port: i32,
}

pub const DEFAULT_BIND_ALL_HOST_IP: &str = "0.0.0.0";

impl HostPort {
    /// `HostPortInfo.CheckConflict` semantics: same protocol and port, and the same IP or either is
    /// the wildcard.
    pub fn conflicts_with(&self, other: &HostPort) -> bool {
        self.port == other.port
            && self.protocol == other.protocol
            && (self.ip == other.ip || &*self.ip == DEFAULT_BIND_ALL_HOST_IP || &*other.ip == DEFAULT_BIND_ALL_HOST_IP)
    }
}

fn host_ports_of(spec: &api::PodSpec) -> Vec<HostPort> {
    // nodeports.getContainerPorts: regular containers and restartable init containers only.
    let mut out = Vec::new();
    let sidecars = spec.init_containers.iter().filter(|c| is_restartable(c));
    for c in spec.containers.iter().chain(sidecars) {
        for p in &c.ports {
            let host_port = p.host_port.unwrap_or(0);
            if host_port <= 0 {
                continue;
            }
            let protocol = match p.protocol.as_deref().unwrap_or("TCP") {
                "UDP" => Protocol::Udp,
                "SCTP" => Protocol::Sctp,
                _ => Protocol::Tcp,
            };
            let ip = match p.host_ip.as_deref() {
                None | Some("") => DEFAULT_BIND_ALL_HOST_IP,
                Some(ip) => ip,
            };
            out.push(HostPort { ip: ip.into(), protocol, port: host_port });
        }
    }
    out
}

/// `imagelocality.normalizedImageName`: append `:latest` when the image has no tag.
pub fn normalized_image_name(name: &str) -> String {
    let last_colon = name.rfind(':');
    let last_slash = name.rfind('/');
    let needs_tag = match (last_colon, last_slash) {
        (None, _) => true,
        (Some(c), Some(s)) => c <= s,
        (Some(_), None) => false,
    };
    if needs_tag {
        format!("{name}:latest")
    } else {
        name.to_string()
    }
}

// ---------------------------------------------------------------------------------------------
// Pods
// ---------------------------------------------------------------------------------------------

/// `spec.preemptionPolicy`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PreemptionPolicy {
    PreemptLowerPriority,
    Never,
}

/// Why the pod is (or is not) in the PodScheduled condition we last saw; used to avoid
/// re-patching an identical condition, as upstream's `updatePod` does.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ScheduledCondition {
    pub status: String,
    pub reason: String,
    pub message: String,
}

/// Pod lifecycle phase.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PodPhase {
    Pending,
    Running,
    Succeeded,
    Failed,
    Unknown,
}

impl PodPhase {
    pub fn parse(s: &str) -> PodPhase {
        match s {
            "Running" => PodPhase::Running,
            "Succeeded" => PodPhase::Succeeded,
            "Failed" => PodPhase::Failed,
            "" | "Pending" => PodPhase::Pending,
            _ => PodPhase::Unknown,
        }
    }

    /// Finished pods release their node's resources.
    pub fn is_terminal(&self) -> bool {
        matches!(self, PodPhase::Succeeded | PodPhase::Failed)
    }
}

/// Everything the queue, the scheduling cycle and the binder need to know about one pod version.
#[derive(Debug, Clone)]
pub struct PodInfo {
    pub key: PodKey,
    pub namespace: Box<str>,
    pub name: Box<str>,
    pub uid: Box<str>,
    pub resource_version: Box<str>,
    pub scheduler_name: Box<str>,
    /// `spec.nodeName` (empty while unassigned).
    pub node_name: Box<str>,
    pub priority: i32,
    pub preemption_policy: PreemptionPolicy,
    pub labels: Labels,
    /// Creation time, seconds since the epoch (0 when unknown).
    pub creation_unix: i64,
    /// Start time (status.startTime), seconds since the epoch; preemption prefers to evict the
    /// youngest victims.
    pub start_unix: i64,
    /// `metadata.deletionTimestamp` is set: a terminating pod still occupies its node.
    pub terminating: bool,
    pub phase: PodPhase,
    pub scheduling_gates: Vec<Box<str>>,
    /// Effective requests, or the reason the pod's resources cannot be understood.
    pub resources: Result<PodResources, String>,
    pub host_ports: Vec<HostPort>,
    pub node_selector: Vec<(Box<str>, Box<str>)>,
    pub affinity: Option<Arc<api::Affinity>>,
    pub tolerations: Vec<Toleration>,
    /// Normalised image names of init and regular containers (ImageLocality).
    pub images: Vec<Box<str>>,
    pub topology_spread_constraints: Vec<api::TopologySpreadConstraint>,
    pub volumes: Vec<api::Volume>,
    pub owner: Option<api::OwnerReference>,
    pub nominated_node_name: Box<str>,
    pub scheduled_condition: Option<ScheduledCondition>,
    /// Any other reason the spec cannot be scheduled as written (e.g. an invalid priority class).
    pub spec_error: Option<String>,
    /// Terminating because the scheduler preempted it (`DisruptionTarget`/`PreemptionByScheduler`).
    pub preempted_by_scheduler: bool,
    /// The pod's DRA resource claims (`None` for a pod without any).
    pub resource_claims: Option<Box<PodClaims>>,
    /// `spec.workloadRef`: the pod group of a Workload the pod belongs to (gang scheduling).
    pub workload_ref: Option<Arc<api::WorkloadReference>>,
}

/// How `priorityClassName` is resolved when `spec.priority` is missing (the Priority admission
/// plugin normally fills it in; clusters without it, and `simulate` files, rely on this).
pub trait PriorityResolver {
    /// Value and preemption policy of a class; `None` when the class does not exist.
    fn class(&self, name: &str) -> Option<(i32, Option<PreemptionPolicy>)>;
    /// The `globalDefault` class, if any.
    fn global_default(&self) -> Option<(i32, Option<PreemptionPolicy>)>;
    /// Whether the classes are known at all; when not (RBAC forbids reading them), a class name
    /// that resolves to nothing is not an error and the pod gets priority 0, as kube-scheduler
    /// (which reads only `spec.priority`) would give it.
    fn knows_classes(&self) -> bool {
        true
    }
}

/// A resolver that knows no classes (every pod without `spec.priority` gets 0).
pub struct NoPriorityClasses;

impl PriorityResolver for NoPriorityClasses {
    fn class(&self, _name: &str) -> Option<(i32, Option<PreemptionPolicy>)> {
        None
    }
    fn global_default(&self) -> Option<(i32, Option<PreemptionPolicy>)> {
        None
    }
}

fn parse_preemption_policy(s: Option<&str>) -> Option<PreemptionPolicy> {
    match s {
        Some("Never") => Some(PreemptionPolicy::Never),
        Some(_) => Some(PreemptionPolicy::PreemptLowerPriority),
        None => None,
    }
}

/// The parts of a [`PodInfo`] that are the API pod's own data, copied from a borrowed pod or
/// moved out of an owned one (a pod listed by the ten thousand is converted once and dropped:
/// moving saves a copy and a free of each string).
struct Moved {
    namespace: Box<str>,
    name: Box<str>,
    uid: Box<str>,
    resource_version: Box<str>,
    scheduler_name: Box<str>,
    node_name: Box<str>,
    labels: Labels,
    affinity: Option<Arc<api::Affinity>>,
    topology_spread_constraints: Vec<api::TopologySpreadConstraint>,
    volumes: Vec<api::Volume>,
    nominated_node_name: Box<str>,
}

impl Moved {
    fn copied(pod: &api::Pod) -> Moved {
        let (meta, spec) = (&pod.metadata, &pod.spec);
        Moved {
            namespace: meta.namespace.as_str().into(),
            name: meta.name.as_str().into(),
            uid: meta.uid.as_str().into(),
            resource_version: meta.resource_version.as_str().into(),
            scheduler_name: scheduler_name_of(spec.scheduler_name.as_str().into()),
            node_name: spec.node_name.as_str().into(),
            labels: Labels::from_map(&meta.labels),
            affinity: spec.affinity.clone().map(Arc::new),
            topology_spread_constraints: spec.topology_spread_constraints.clone(),
            volumes: spec.volumes.clone(),
            nominated_node_name: pod.status.nominated_node_name.as_str().into(),
        }
    }

    fn taken(pod: &mut api::Pod) -> Moved {
        let (meta, spec) = (&mut pod.metadata, &mut pod.spec);
        let take = |s: &mut String| std::mem::take(s).into_boxed_str();
        Moved {
            namespace: take(&mut meta.namespace),
            name: take(&mut meta.name),
            uid: take(&mut meta.uid),
            resource_version: take(&mut meta.resource_version),
            scheduler_name: scheduler_name_of(take(&mut spec.scheduler_name)),
            node_name: take(&mut spec.node_name),
            labels: Labels::from_owned_map(std::mem::take(&mut meta.labels)),
            affinity: spec.affinity.take().map(Arc::new),
            topology_spread_constraints: std::mem::take(&mut spec.topology_spread_constraints),
            volumes: std::mem::take(&mut spec.volumes),
            nominated_node_name: take(&mut pod.status.nominated_node_name),
        }
    }
}

/// `spec.schedulerName`, defaulted as the API server defaults it.
fn scheduler_name_of(name: Box<str>) -> Box<str> {
    if name.is_empty() {
        "default-scheduler".into()
    } else {
        name
    }
}

impl PodInfo {
    /// The pod references DRA resource claims (`len(pod.Spec.ResourceClaims) > 0` upstream).
    pub fn has_resource_claims(&self) -> bool {
        self.resource_claims.is_some()
    }

    /// Convert an API pod. Never fails: problems land in `resources` / `spec_error`. Requests
    /// are counted with v1.35's default feature gates ([`PodInfo::from_api_with`]).
    pub fn from_api(pod: &api::Pod, priorities: &dyn PriorityResolver) -> PodInfo {
        Self::from_api_with(pod, priorities, RequestGates::default())
    }

    /// [`PodInfo::from_api`] with the gates that change how requests are counted.
    pub fn from_api_with(pod: &api::Pod, priorities: &dyn PriorityResolver, gates: RequestGates) -> PodInfo {
        Self::convert(pod, Moved::copied(pod), priorities, true, gates)
    }

    /// [`PodInfo::from_api`] for a pod bound to a node whose record only goes into the node
    /// table ([`crate::core::cache::Cache::upsert_assigned_pod_owned`]): the API object is not
    /// needed afterwards, so its strings, labels and larger parts move instead of being copied,
    /// and what only scheduling the pod itself reads stays empty (images, node selector,
    /// tolerations, scheduling gates, owner, PodScheduled condition, creation time): a start-up
    /// converts tens of thousands of bound pods, and the node-side record
    /// ([`crate::core::cache::AssignedPod::from_owned`]) reads none of them.
    pub fn from_api_for_node(pod: &mut api::Pod, priorities: &dyn PriorityResolver, gates: RequestGates) -> PodInfo {
        let moved = Moved::taken(pod);
        Self::convert(pod, moved, priorities, false, gates)
    }

    /// Everything but `moved` is read from `pod` (whose moved fields may be empty by now);
    /// `whole` is false for the node-side conversion ([`PodInfo::from_api_for_node`]). A bound
    /// pod's requests count its status resources too ([`crate::core::pod_requests`]).
    fn convert(pod: &api::Pod, moved: Moved, priorities: &dyn PriorityResolver, whole: bool, gates: RequestGates) -> PodInfo {
        let meta = &pod.metadata;
        let spec = &pod.spec;
        let mut spec_error = None;

        let (priority, class_policy) = match spec.priority {
            Some(p) => (p, None),
            None if !spec.priority_class_name.is_empty() => match priorities.class(&spec.priority_class_name) {
                Some((v, pol)) => (v, pol),
                None if !priorities.knows_classes() => (0, None),
                None => {
                    spec_error = Some(crate::core::texts::pod_spec::no_priority_class(&spec.priority_class_name));
                    (0, None)
                }
            },
            None => priorities.global_default().unwrap_or((0, None)),
        };
        let preemption_policy = parse_preemption_policy(spec.preemption_policy.as_deref())
            .or(class_policy)
            .unwrap_or(PreemptionPolicy::PreemptLowerPriority);

        let preempted_by_scheduler = meta.deletion_timestamp.is_some()
            && pod.status.conditions.iter().any(|c| {
                c.type_ == conditions::DISRUPTION_TARGET
                    && c.status == "True"
                    && c.reason.as_deref() == Some(conditions::REASON_PREEMPTION_BY_SCHEDULER)
            });

        let bound = !moved.node_name.is_empty();
        let mut info = PodInfo {
            key: pod_key(&moved.namespace, &moved.name),
            namespace: moved.namespace,
            name: moved.name,
            uid: moved.uid,
            resource_version: moved.resource_version,
            scheduler_name: moved.scheduler_name,
            node_name: moved.node_name,
            priority,
            preemption_policy,
            labels: moved.labels,
            creation_unix: 0,
            start_unix: pod.status.start_time.as_deref().and_then(timefmt::parse_rfc3339).map(|t| t.0).unwrap_or(0),
            terminating: meta.deletion_timestamp.is_some(),
            phase: PodPhase::parse(&pod.status.phase),
            scheduling_gates: Default::default(),
            resources: pod_requests::pod_resources(spec, &pod.status, bound, gates),
            host_ports: host_ports_of(spec),
            node_selector: Default::default(),
            affinity: moved.affinity,
            tolerations: Vec::new(),
            images: Vec::new(),
            topology_spread_constraints: moved.topology_spread_constraints,
            volumes: moved.volumes,
            owner: None,
            nominated_node_name: moved.nominated_node_name,
            scheduled_condition: None,
            spec_error,
            preempted_by_scheduler,
            resource_claims: PodClaims::from_api(spec, &pod.status),
            workload_ref: spec.workload_ref.clone().map(Arc::new),
        };
        if whole {
            info.read_scheduling_fields(pod);
        }
        info
    }

    /// The fields only scheduling the pod itself reads (left empty in the node-side conversion,
    /// [`PodInfo::from_api_for_node`]).
    fn read_scheduling_fields(&mut self, pod: &api::Pod) {
        let (meta, spec) = (&pod.metadata, &pod.spec);
        self.creation_unix = meta.creation_timestamp.as_deref().and_then(timefmt::parse_rfc3339).map(|t| t.0).unwrap_or(0);
        self.scheduling_gates = spec.scheduling_gates.iter().map(|g| g.name.as_str().into()).collect();
        self.node_selector = spec.node_selector.iter().map(|(k, v)| (k.as_str().into(), v.as_str().into())).collect();
        self.tolerations = spec.tolerations.iter().map(Toleration::from_api).collect();
        self.images = spec
            .init_containers
            .iter()
            .chain(spec.containers.iter())
            .filter(|c| !c.image.is_empty())
            .map(|c| normalized_image_name(&c.image).into_boxed_str())
            .collect();
        self.owner = meta.owner_references.iter().find(|o| o.controller == Some(true)).cloned();
        self.scheduled_condition =
            pod.status.conditions.iter().find(|c| c.type_ == conditions::POD_SCHEDULED).map(|c| ScheduledCondition {
                status: c.status.clone(),
                reason: c.reason.clone().unwrap_or_default(),
                message: c.message.clone().unwrap_or_default(),
            });
    }

    /// Whether the pod is bound (or being bound) to a node.
    pub fn is_assigned(&self) -> bool {
        !self.node_name.is_empty()
    }

    /// The reason this pod cannot be considered at all, if any.
    pub fn unschedulable_reason(&self) -> Option<&str> {
        if let Some(e) = &self.spec_error {
            return Some(e);
        }
        self.resources.as_ref().err().map(|s| s.as_str())
    }

    /// Requests, or zero when they could not be parsed (used only for accounting pods that are
    /// already on a node, where we must count *something*).
    pub fn requests_or_default(&self) -> PodResources {
        self.resources.clone().unwrap_or_default()
    }
}

// ---------------------------------------------------------------------------------------------
// Nodes
// ---------------------------------------------------------------------------------------------

/// What the scheduler keeps of a Node object (its accounting lives in the cache).
#[derive(Debug, Clone)]
pub struct NodeSpecInfo {
    /// Shared: every node a filter rejects is recorded by name in the cycle's diagnosis.
    pub name: std::sync::Arc<str>,
    pub uid: Box<str>,
    pub labels: Labels,
    pub taints: Vec<Taint>,
    pub unschedulable: bool,
    pub allocatable: Resources,
    /// Every name of every image on the node with the image's size, sorted by name.
    pub images: Vec<(Name, i64)>,
    /// Problems met while reading the node (bad quantities); logged once, never fatal.
    pub warnings: Vec<String>,
}

impl NodeSpecInfo {
    pub fn from_api(node: &api::Node) -> NodeSpecInfo {
        let (allocatable, warnings) = Resources::from_list_lenient(&node.status.allocatable);
        let mut images: Vec<(Name, i64)> = Vec::new();
        for img in &node.status.images {
            for n in &img.names {
                images.push((Name::new(n), img.size_bytes));
            }
        }
        images.sort_by_key(|a| a.0);
        images.dedup_by(|a, b| a.0 == b.0);
        NodeSpecInfo {
            name: node.metadata.name.as_str().into(),
            uid: node.metadata.uid.as_str().into(),
            labels: Labels::from_map(&node.metadata.labels),
            taints: node
                .spec
                .taints
                .iter()
                .map(|t| Taint {
                    key: t.key.as_str().into(),
                    value: t.value.as_str().into(),
                    effect: TaintEffect::parse(&t.effect),
                    effect_raw: t.effect.as_str().into(),
                })
                .collect(),
            unschedulable: node.spec.unschedulable,
            allocatable,
            images,
            warnings,
        }
    }

    /// Size of an image on this node, if present (by interned normalised name).
    pub fn image_size(&self, image: Name) -> Option<i64> {
        self.images.binary_search_by(|(k, _)| k.cmp(&image)).ok().map(|i| self.images[i].1)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pod_keys_of_any_length() {
        assert_eq!(&*pod_key("ns", "p"), "ns/p");
        assert_eq!(&*pod_key("", "p"), "/p");
        assert_eq!(&*pod_key("nämespace", "pöd"), "nämespace/pöd");
        let long = "x".repeat(400);
        assert_eq!(*pod_key("ns", &long), format!("ns/{long}"));
        let fits = "y".repeat(320 - 3);
        assert_eq!(*pod_key("ns", &fits), format!("ns/{fits}"));
    }

    #[test]
    fn image_names_are_normalised() {
        assert_eq!(normalized_image_name("nginx"), "nginx:latest");
        assert_eq!(normalized_image_name("nginx:1.25"), "nginx:1.25");
        assert_eq!(normalized_image_name("localhost:5000/app"), "localhost:5000/app:latest");
        assert_eq!(normalized_image_name("gcr.io/x/y@sha256:abc"), "gcr.io/x/y@sha256:abc");
    }

    #[test]
    fn toleration_matching() {
        let taint =
            Taint { key: "k".into(), value: "v".into(), effect: TaintEffect::NoSchedule, effect_raw: "NoSchedule".into() };
        let tol = |key: &str, op: &str, value: &str, effect: &str| {
            Toleration::from_api(&api::Toleration {
                key: key.into(),
                operator: op.into(),
                value: value.into(),
                effect: effect.into(),
                toleration_seconds: None,
            })
        };
        assert!(tol("k", "Equal", "v", "NoSchedule").tolerates(&taint));
        assert!(tol("k", "", "v", "").tolerates(&taint));
        assert!(tol("", "Exists", "", "").tolerates(&taint));
        assert!(!tol("k", "Equal", "w", "").tolerates(&taint));
        assert!(!tol("k", "Exists", "", "NoExecute").tolerates(&taint));
        assert!(!tol("k", "Gt", "1", "").tolerates(&taint));
    }
}
