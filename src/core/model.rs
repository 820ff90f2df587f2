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
use crate::core::quantity::{self, QuantityError};
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

pub const RESOURCE_CPU: &str = "cpu";
pub const RESOURCE_MEMORY: &str = "memory";
pub const RESOURCE_EPHEMERAL_STORAGE: &str = "ephemeral-storage";
pub const RESOURCE_PODS: &str = "pods";
/// `schedutil.DefaultMilliCPURequest`: what a container without a cpu request counts as for scoring.
pub const DEFAULT_MILLI_CPU_REQUEST: i64 = 100;
/// `schedutil.DefaultMemoryRequest` (200 MiB).
pub const DEFAULT_MEMORY_REQUEST: i64 = 200 * 1024 * 1024;

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
// Resources
// ---------------------------------------------------------------------------------------------

/// Resource amounts in the units scheduling compares: millicores, bytes, counts.
/// `scalars` holds extended resources, `hugepages-*` and `attachable-volumes-*`, sorted by name.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Resources {
    pub milli_cpu: i64,
    pub memory: i64,
    pub ephemeral_storage: i64,
    /// Only meaningful for node allocatable (`pods`).
    pub allowed_pod_number: i64,
    pub scalars: Vec<(Name, i64)>,
}

impl Resources {
    /// Amount of a scalar resource (0 when absent).
    pub fn scalar(&self, name: Name) -> i64 {
        match self.scalars.binary_search_by(|(k, _)| k.cmp(&name)) {
            Ok(i) => self.scalars[i].1,
            Err(_) => 0,
        }
    }

    fn scalar_mut(&mut self, name: Name) -> &mut i64 {
        let i = match self.scalars.binary_search_by(|(k, _)| k.cmp(&name)) {
            Ok(i) => i,
            Err(i) => {
                self.scalars.insert(i, (name, 0));
                i
            }
        };
        &mut self.scalars[i].1
    }

    /// Amount by resource name, for the scoring strategies' configurable resource lists.
    pub fn get(&self, name: &str) -> i64 {
        match name {
            RESOURCE_CPU => self.milli_cpu,
            RESOURCE_MEMORY => self.memory,
            RESOURCE_EPHEMERAL_STORAGE => self.ephemeral_storage,
            RESOURCE_PODS => self.allowed_pod_number,
            other => Name::lookup(other).map(|n| self.scalar(n)).unwrap_or(0),
        }
    }

    /// Whether the resource is listed at all (a node that does not list a scalar has 0 of it).
    pub fn has_scalar(&self, name: Name) -> bool {
        self.scalars.binary_search_by(|(k, _)| k.cmp(&name)).is_ok()
    }

    /// Add `other` to `self` (saturating).
    pub fn add(&mut self, other: &Resources) {
        self.milli_cpu = self.milli_cpu.saturating_add(other.milli_cpu);
        self.memory = self.memory.saturating_add(other.memory);
        self.ephemeral_storage = self.ephemeral_storage.saturating_add(other.ephemeral_storage);
        self.allowed_pod_number = self.allowed_pod_number.saturating_add(other.allowed_pod_number);
        for (n, v) in &other.scalars {
            let s = self.scalar_mut(*n);
            *s = s.saturating_add(*v);
        }
    }

    /// Subtract `other` from `self`; scalars that reach zero are removed so that a node's totals
    /// after add+remove equal a fresh recomputation exactly.
    pub fn sub(&mut self, other: &Resources) {
        self.milli_cpu = self.milli_cpu.saturating_sub(other.milli_cpu);
        self.memory = self.memory.saturating_sub(other.memory);
        self.ephemeral_storage = self.ephemeral_storage.saturating_sub(other.ephemeral_storage);
        self.allowed_pod_number = self.allowed_pod_number.saturating_sub(other.allowed_pod_number);
        for (n, v) in &other.scalars {
            let s = self.scalar_mut(*n);
            *s = s.saturating_sub(*v);
        }
        self.scalars.retain(|(_, v)| *v != 0);
    }

    /// Per-resource maximum, for the init-container rule.
    pub fn max_with(&mut self, other: &Resources) {
        self.milli_cpu = self.milli_cpu.max(other.milli_cpu);
        self.memory = self.memory.max(other.memory);
        self.ephemeral_storage = self.ephemeral_storage.max(other.ephemeral_storage);
        self.allowed_pod_number = self.allowed_pod_number.max(other.allowed_pod_number);
        for (n, v) in &other.scalars {
            let s = self.scalar_mut(*n);
            *s = (*s).max(*v);
        }
    }

    /// True when every amount is zero.
    pub fn is_zero(&self) -> bool {
        self.milli_cpu == 0
            && self.memory == 0
            && self.ephemeral_storage == 0
            && self.allowed_pod_number == 0
            && self.scalars.iter().all(|(_, v)| *v == 0)
    }

    /// Parse a `ResourceList`. Every entry is parsed; the first bad one is reported with its name.
    pub fn from_list(list: &api::ResourceList) -> Result<Resources, String> {
        let mut r = Resources::default();
        for (name, q) in list {
            set_resource(&mut r, name, &q.0).map_err(|e| format!("{name}: {e}"))?;
        }
        Ok(r)
    }

    /// Like [`Resources::from_list`] but keeps what parses, for objects we must account for anyway.
    pub fn from_list_lenient(list: &api::ResourceList) -> (Resources, Vec<String>) {
        let mut r = Resources::default();
        let mut errors = Vec::new();
        for (name, q) in list {
            if let Err(e) = set_resource(&mut r, name, &q.0) {
                errors.push(format!("{name}: {e}"));
            }
        }
        (r, errors)
    }
}

fn set_resource(r: &mut Resources, name: &str, q: &str) -> Result<(), QuantityError> {
    match name {
        RESOURCE_CPU => r.milli_cpu = quantity::parse_milli(q)?,
        RESOURCE_MEMORY => r.memory = quantity::parse_value(q)?,
        RESOURCE_EPHEMERAL_STORAGE => r.ephemeral_storage = quantity::parse_value(q)?,
        RESOURCE_PODS => r.allowed_pod_number = quantity::parse_value(q)?,
        other if is_scalar_resource_name(other) => *r.scalar_mut(Name::new(other)) = quantity::parse_value(q)?,
        // Other native resources (e.g. `storage`) are not scheduled on; still validate the value.
        _ => {
            quantity::Quantity::parse(q)?;
        }
    }
    Ok(())
}

/// `schedutil.IsScalarResourceName`: extended resources, hugepages, prefixed native resources
/// (`kubernetes.io/...`, `IsPrefixedNativeResource`) and attachable volumes.
pub fn is_scalar_resource_name(name: &str) -> bool {
    is_extended_resource_name(name)
        || name.starts_with("hugepages-")
        || name.contains("kubernetes.io/")
        || name.starts_with("attachable-volumes-")
}

/// `v1helper.IsExtendedResourceName`: a domain-qualified name outside `kubernetes.io/` and not
/// `requests.`-prefixed.
pub fn is_extended_resource_name(name: &str) -> bool {
    if !name.contains('/') || name.starts_with("requests.") {
        return false;
    }
    let native = !name.contains('/') || name.contains("kubernetes.io/");
    !native
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

fn is_restartable(c: &api::Container) -> bool {
    c.restart_policy.as_deref() == Some("Always")
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

/// The resource view of a pod that every resource plugin uses.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct PodResources {
    /// `resourcehelper.PodRequests`: what NodeResourcesFit filters on and nodes account.
    pub requests: Resources,
    /// cpu/memory with 100m/200Mi for containers that do not list them (scoring only).
    pub non_zero_milli_cpu: i64,
    pub non_zero_memory: i64,
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

    /// Convert an API pod. Never fails: problems land in `resources` / `spec_error`.
    pub fn from_api(pod: &api::Pod, priorities: &dyn PriorityResolver) -> PodInfo {
        Self::convert(pod, Moved::copied(pod), priorities, true)
    }

    /// [`PodInfo::from_api`] for a pod bound to a node whose record only goes into the node
    /// table ([`crate::core::cache::Cache::upsert_assigned_pod_owned`]): the API object is not
    /// needed afterwards, so its strings, labels and larger parts move instead of being copied,
    /// and what only scheduling the pod itself reads stays empty (images, node selector,
    /// tolerations, scheduling gates, owner, PodScheduled condition, creation time): a start-up
    /// converts tens of thousands of bound pods, and the node-side record
    /// ([`crate::core::cache::AssignedPod::from_owned`]) reads none of them.
    pub fn from_api_for_node(pod: &mut api::Pod, priorities: &dyn PriorityResolver) -> PodInfo {
        let moved = Moved::taken(pod);
        Self::convert(pod, moved, priorities, false)
    }

    /// Everything but `moved` is read from `pod` (whose moved fields may be empty by now);
    /// `whole` is false for the node-side conversion ([`PodInfo::from_api_for_node`]).
    fn convert(pod: &api::Pod, moved: Moved, priorities: &dyn PriorityResolver, whole: bool) -> PodInfo {
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
            resources: pod_resources(spec),
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

/// `resourcehelper.PodRequests` plus the non-zero variant (`framework.calculateResource`).
/// Errors name the container and resource: `container "app": cpu: quantity "1x": ...`.
pub fn pod_resources(spec: &api::PodSpec) -> Result<PodResources, String> {
    // Real requests (no defaults) and the non-zero cpu/memory view in one pass.
    let mut reqs = Resources::default();
    let mut nz = (0i64, 0i64);
    let parse = |c: &api::Container| -> Result<(Resources, (i64, i64)), String> {
        let r = Resources::from_list(&c.resources.requests).map_err(|e| format!("container {:?}: {e}", c.name))?;
        let cpu = if c.resources.requests.contains_key(RESOURCE_CPU) { r.milli_cpu } else { DEFAULT_MILLI_CPU_REQUEST };
        let mem = if c.resources.requests.contains_key(RESOURCE_MEMORY) { r.memory } else { DEFAULT_MEMORY_REQUEST };
        Ok((r, (cpu, mem)))
    };
    for c in &spec.containers {
        let (r, (cpu, mem)) = parse(c)?;
        reqs.add(&r);
        nz.0 = nz.0.saturating_add(cpu);
        nz.1 = nz.1.saturating_add(mem);
    }
    // Init containers: each one's need is its own request plus the sidecars started before it;
    // sidecars also run alongside the main containers (KEP-753).
    let mut sidecars = Resources::default();
    let mut sidecars_nz = (0i64, 0i64);
    let mut init_max = Resources::default();
    let mut init_max_nz = (0i64, 0i64);
    for c in &spec.init_containers {
        let (r, (cpu, mem)) = parse(c)?;
        if is_restartable(c) {
            reqs.add(&r);
            nz.0 = nz.0.saturating_add(cpu);
            nz.1 = nz.1.saturating_add(mem);
            sidecars.add(&r);
            sidecars_nz.0 = sidecars_nz.0.saturating_add(cpu);
            sidecars_nz.1 = sidecars_nz.1.saturating_add(mem);
            init_max.max_with(&sidecars);
            init_max_nz.0 = init_max_nz.0.max(sidecars_nz.0);
            init_max_nz.1 = init_max_nz.1.max(sidecars_nz.1);
        } else {
            let mut combined = r;
            combined.add(&sidecars);
            init_max.max_with(&combined);
            init_max_nz.0 = init_max_nz.0.max(cpu.saturating_add(sidecars_nz.0));
            init_max_nz.1 = init_max_nz.1.max(mem.saturating_add(sidecars_nz.1));
        }
    }
    reqs.max_with(&init_max);
    nz.0 = nz.0.max(init_max_nz.0);
    nz.1 = nz.1.max(init_max_nz.1);

    // Pod-level resources (cpu, memory, hugepages-*) replace the container aggregate.
    if let Some(pod_level) = &spec.resources {
        for (name, q) in &pod_level.requests {
            let supported = name == RESOURCE_CPU || name == RESOURCE_MEMORY || name.starts_with("hugepages-");
            if !supported {
                continue;
            }
            let mut one = Resources::default();
            set_resource(&mut one, name, &q.0)
                .map_err(|e| crate::core::texts::node_resources::pod_resources_error(&format!("{name}: {e}")))?;
            match name.as_str() {
                RESOURCE_CPU => {
                    reqs.milli_cpu = one.milli_cpu;
                    nz.0 = one.milli_cpu;
                }
                RESOURCE_MEMORY => {
                    reqs.memory = one.memory;
                    nz.1 = one.memory;
                }
                _ => {
                    let n = Name::new(name);
                    *reqs.scalar_mut(n) = one.scalar(n);
                }
            }
        }
    }

    if !spec.overhead.is_empty() {
        let o = Resources::from_list(&spec.overhead).map_err(|e| format!("overhead: {e}"))?;
        reqs.add(&o);
        nz.0 = nz.0.saturating_add(o.milli_cpu);
        nz.1 = nz.1.saturating_add(o.memory);
    }
    reqs.scalars.retain(|(_, v)| *v != 0);
    Ok(PodResources { requests: reqs, non_zero_milli_cpu: nz.0, non_zero_memory: nz.1 })
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

    fn container(name: &str, reqs: &[(&str, &str)]) -> api::Container {
        api::Container {
            name: name.into(),
            resources: api::ResourceRequirements {
                requests: reqs.iter().map(|(k, v)| (k.to_string(), api::QuantityStr(v.to_string()))).collect(),
                ..Default::default()
            },
            ..Default::default()
        }
    }

    fn sidecar(name: &str, reqs: &[(&str, &str)]) -> api::Container {
        let mut c = container(name, reqs);
        c.restart_policy = Some("Always".into());
        c
    }

    #[test]
    fn init_container_max_rule() {
        // component-helpers resource helpers_test.go "init container larger than containers".
        let spec = api::PodSpec {
            containers: vec![container("a", &[("cpu", "1"), ("memory", "1Gi")]), container("b", &[("cpu", "1")])],
            init_containers: vec![container("i1", &[("cpu", "3")]), container("i2", &[("memory", "512Mi")])],
            ..Default::default()
        };
        let r = pod_resources(&spec).expect("valid");
        assert_eq!(r.requests.milli_cpu, 3000);
        assert_eq!(r.requests.memory, 1 << 30);
        // non-zero: b has no memory -> 200Mi; init i1 has no memory -> 200Mi; i2 no cpu -> 100m
        assert_eq!(r.non_zero_milli_cpu, 3000);
        assert_eq!(r.non_zero_memory, (1 << 30) + DEFAULT_MEMORY_REQUEST);
    }

    #[test]
    fn sidecars_add_to_containers_and_later_inits() {
        // KEP-753 example: sidecar 1 cpu started before a 2 cpu init container -> init peak 3,
        // steady state 1 (sidecar) + 1 (container) = 2; result max(3, 2) = 3.
        let spec = api::PodSpec {
            containers: vec![container("c", &[("cpu", "1")])],
            init_containers: vec![sidecar("s", &[("cpu", "1")]), container("i", &[("cpu", "2")])],
            ..Default::default()
        };
        assert_eq!(pod_resources(&spec).expect("valid").requests.milli_cpu, 3000);
        let spec = api::PodSpec {
            containers: vec![container("c", &[("cpu", "5")])],
            init_containers: vec![sidecar("s", &[("cpu", "1")]), container("i", &[("cpu", "2")])],
            ..Default::default()
        };
        assert_eq!(pod_resources(&spec).expect("valid").requests.milli_cpu, 6000);
    }

    #[test]
    fn overhead_and_pod_level_resources() {
        let mut spec = api::PodSpec { containers: vec![container("c", &[("cpu", "100m")])], ..Default::default() };
        spec.overhead.insert("cpu".into(), api::QuantityStr("250m".into()));
        let r = pod_resources(&spec).expect("valid");
        assert_eq!(r.requests.milli_cpu, 350);
        assert_eq!(r.non_zero_milli_cpu, 350);
        spec.resources = Some(api::ResourceRequirements {
            requests: [("cpu".to_string(), api::QuantityStr("2".into()))].into_iter().collect(),
            ..Default::default()
        });
        assert_eq!(pod_resources(&spec).expect("valid").requests.milli_cpu, 2250);
    }

    #[test]
    fn explicit_zero_is_not_defaulted() {
        let spec = api::PodSpec { containers: vec![container("c", &[("cpu", "0"), ("memory", "0")])], ..Default::default() };
        let r = pod_resources(&spec).expect("valid");
        assert_eq!((r.non_zero_milli_cpu, r.non_zero_memory), (0, 0));
        let spec = api::PodSpec { containers: vec![container("c", &[])], ..Default::default() };
        let r = pod_resources(&spec).expect("valid");
        assert_eq!((r.non_zero_milli_cpu, r.non_zero_memory), (DEFAULT_MILLI_CPU_REQUEST, DEFAULT_MEMORY_REQUEST));
        assert!(r.requests.is_zero());
    }

    #[test]
    fn invalid_quantity_names_container_and_resource() {
        let spec = api::PodSpec { containers: vec![container("app", &[("cpu", "lots")])], ..Default::default() };
        let err = pod_resources(&spec).expect_err("invalid");
        assert!(err.contains("container \"app\"") && err.contains("cpu"), "{err}");
    }

    #[test]
    fn extended_resources_are_scalars() {
        assert!(is_scalar_resource_name("nvidia.com/gpu"));
        assert!(is_scalar_resource_name("hugepages-2Mi"));
        assert!(is_scalar_resource_name("attachable-volumes-aws-ebs"));
        assert!(!is_scalar_resource_name("cpu"));
        // fit_test.go "kubernetes.io resource capacity enforced": prefixed native resources are
        // scalars (though not extended resources, so ignoredResources never skips them).
        assert!(is_scalar_resource_name("kubernetes.io/something"));
        assert!(!is_extended_resource_name("kubernetes.io/something"));
        assert!(!is_scalar_resource_name("requests.nvidia.com/gpu"));
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
