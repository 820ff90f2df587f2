//! NodeResourcesFit (pkg/scheduler/framework/plugins/noderesources/fit.go) and the resource
//! allocation scoring it shares with NodeResourcesBalancedAllocation (resource_allocation.go,
//! least_allocated.go, most_allocated.go, requested_to_capacity_ratio.go, helper/shape_score.go).
//!
//! Filter: the node must have room for the pod's effective requests (`Too many pods`,
//! `Insufficient cpu|memory|ephemeral-storage|<scalar>`, every failing reason at once). When a
//! single request exceeds the node's whole allocatable, no eviction can help, so the status is
//! UnschedulableAndUnresolvable (current upstream).
//! Score: LeastAllocated / MostAllocated / RequestedToCapacityRatio over the configured resources,
//! with the 100m/200Mi non-zero defaults for cpu and memory.

use crate::core::cache::{Cache, NodeInfo};
use crate::core::config::{NodeResourcesFitArgs, PluginArgs, ResourceSpec, ScoringStrategyType, UtilizationShapePoint};
use crate::core::framework::status::Reasons;
use crate::core::framework::{
    state_as, ClusterEvent, Code, EventMask, Plugin, PluginState, Points, PreFilterOutcome, PreScoreOutcome, QueueingHint,
    Rejection, MAX_NODE_SCORE,
};
use crate::core::intern::Name;
use crate::core::model::{
    is_extended_resource_name, is_scalar_resource_name, PodInfo, PodResources, Resources, RESOURCE_CPU,
    RESOURCE_EPHEMERAL_STORAGE, RESOURCE_MEMORY,
};
use std::borrow::Cow;
use std::sync::Arc;

/// `config.MaxCustomPriorityScore`: RequestedToCapacityRatio shape scores are 0..=10.
pub const MAX_CUSTOM_PRIORITY_SCORE: i64 = 10;
/// `maxUtilization`.
const MAX_UTILIZATION: i64 = 100;
use crate::core::texts::node_resources::{
    insufficient as insufficient_reason, pod_resources_error, INSUFFICIENT_CPU, INSUFFICIENT_EPHEMERAL_STORAGE,
    INSUFFICIENT_MEMORY, REASON_TOO_MANY_PODS,
};

// ---------------------------------------------------------------------------------------------
// Pure scoring math
// ---------------------------------------------------------------------------------------------

/// `leastRequestedScore`: the free fraction after placing the pod, 0..=100.
#[inline(always)]
pub fn least_requested_score(requested: i64, capacity: i64) -> i64 {
    if capacity == 0 || requested > capacity {
        return 0;
    }
    mul_div(capacity - requested, MAX_NODE_SCORE, capacity)
}

/// `a * b / c` without intermediate overflow (Go's int64 would wrap on absurd quantities; we
/// compute exactly instead, which agrees with Go whenever Go does not overflow).
#[inline(always)]
fn mul_div(a: i64, b: i64, c: i64) -> i64 {
    // The product fits in i64 for every realistic quantity: skip the slow 128-bit division.
    if let Some(p) = a.checked_mul(b) {
        if c != -1 {
            return p / c;
        }
    }
    mul_div_wide(a, b, c)
}

/// [`mul_div`] in 128 bits, out of the scoring loops.
#[inline(never)]
fn mul_div_wide(a: i64, b: i64, c: i64) -> i64 {
    let r = i128::from(a) * i128::from(b) / i128::from(c);
    r.clamp(i128::from(i64::MIN), i128::from(i64::MAX)) as i64
}

/// `mostRequestedScore`: the used fraction after placing the pod, 0..=100 (requests above
/// capacity, possible through the non-zero defaults, count as full).
#[inline(always)]
pub fn most_requested_score(requested: i64, capacity: i64) -> i64 {
    if capacity == 0 {
        return 0;
    }
    mul_div(requested.min(capacity), MAX_NODE_SCORE, capacity)
}

/// One configured resource on one node: `(requested incl. the pod, allocatable, weight)`.
/// `allocatable == 0` means the resource is skipped for this node.
pub type ResourceSample = (i64, i64, i64);

/// Weighted integer average of per-resource scores over the resources the node has
/// (`leastResourceScorer` / `mostResourceScorer`).
/// (The samples are [`ResourceAllocation::samples`], read here without the iterator adapters,
/// which opt-level "z" leaves as calls per resource.)
#[inline(always)]
pub fn weighted_average(
    allocation: &ResourceAllocation,
    node: &NodeInfo,
    pod_requests: &[i64],
    per_resource: impl Fn(i64, i64) -> i64,
) -> i64 {
    let (mut score, mut weights) = (0i64, 0i64);
    for (&(kind, weight), &req) in allocation.resources.iter().zip(pod_requests) {
        let (allocatable, requested) = allocation.allocatable_and_requested(node, kind, req);
        if allocatable == 0 {
            continue;
        }
        score = score.saturating_add(per_resource(requested, allocatable).saturating_mul(weight));
        weights = weights.saturating_add(weight);
    }
    if weights == 0 {
        0
    } else {
        score / weights
    }
}

/// `helper.FunctionShape`: points `(utilization, score)` with scores already on the 0..=100 scale.
pub type FunctionShape = Vec<(i64, i64)>;

/// `helper.BuildBrokenLinearFunction` evaluated at `p`: piecewise linear through the points,
/// flat before the first and after the last (Go integer arithmetic, truncating).
pub fn broken_linear(shape: &[(i64, i64)], p: i64) -> i64 {
    for (i, &(u, s)) in shape.iter().enumerate() {
        if p <= u {
            if i == 0 {
                return s;
            }
            let (u0, s0) = shape[i - 1];
            return s0.saturating_add(mul_div(s - s0, p - u0, u - u0));
        }
    }
    shape.last().map(|&(_, s)| s).unwrap_or(0)
}

/// `requestedToCapacityRatioScorer`: shape value of each resource's utilization; only
/// resources scoring above zero count, and the average is rounded (math.Round).
pub fn requested_to_capacity_ratio(shape: &[(i64, i64)], samples: impl Iterator<Item = ResourceSample>) -> i64 {
    let (mut score, mut weights) = (0i64, 0i64);
    for (requested, allocatable, weight) in samples {
        if allocatable == 0 {
            continue;
        }
        let s = if requested > allocatable {
            broken_linear(shape, MAX_UTILIZATION)
        } else {
            broken_linear(shape, mul_div(requested, MAX_UTILIZATION, allocatable))
        };
        if s > 0 {
            score = score.saturating_add(s.saturating_mul(weight));
            weights = weights.saturating_add(weight);
        }
    }
    if weights == 0 {
        0
    } else {
        (score as f64 / weights as f64).round() as i64
    }
}

/// Scale a configured shape (scores 0..=10) to node scores (0..=100).
pub fn scale_shape(points: &[UtilizationShapePoint]) -> FunctionShape {
    points.iter().map(|p| (i64::from(p.utilization), i64::from(p.score) * (MAX_NODE_SCORE / MAX_CUSTOM_PRIORITY_SCORE))).collect()
}

// ---------------------------------------------------------------------------------------------
// Resource lookup shared with BalancedAllocation
// ---------------------------------------------------------------------------------------------

/// A configured resource resolved once, so per-node lookups are field reads or a binary search.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ResourceKind {
    Cpu,
    Memory,
    EphemeralStorage,
    Scalar(Name),
    /// Native resources a node never reports as allocatable for scoring (e.g. `pods`).
    Unscored,
}

impl ResourceKind {
    /// Classify a configured resource name (interning scalar names once, at configuration).
    pub fn of(name: &str) -> ResourceKind {
        match name {
            RESOURCE_CPU => ResourceKind::Cpu,
            RESOURCE_MEMORY => ResourceKind::Memory,
            RESOURCE_EPHEMERAL_STORAGE => ResourceKind::EphemeralStorage,
            n if is_scalar_resource_name(n) => ResourceKind::Scalar(Name::new(n)),
            _ => ResourceKind::Unscored,
        }
    }
}

/// `resourceAllocationScorer` minus the strategy: which resources, with which weights, and
/// whether cpu/memory use actual requests (`useRequested`, BalancedAllocation) or the non-zero
/// defaults (NodeResourcesFit).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ResourceAllocation {
    pub resources: Vec<(ResourceKind, i64)>,
    pub use_requested: bool,
}

impl ResourceAllocation {
    /// Resolve the configured resources and their weights.
    pub fn new(specs: &[ResourceSpec], use_requested: bool) -> ResourceAllocation {
        ResourceAllocation { resources: specs.iter().map(|r| (ResourceKind::of(&r.name), r.weight)).collect(), use_requested }
    }

    /// `calculatePodResourceRequest` for one resource.
    pub fn pod_request(&self, pod: &PodResources, kind: ResourceKind) -> i64 {
        match kind {
            ResourceKind::Cpu if self.use_requested => pod.requests.milli_cpu,
            ResourceKind::Cpu => pod.non_zero_milli_cpu,
            ResourceKind::Memory if self.use_requested => pod.requests.memory,
            ResourceKind::Memory => pod.non_zero_memory,
            ResourceKind::EphemeralStorage => pod.requests.ephemeral_storage,
            ResourceKind::Scalar(n) => pod.requests.scalar(n),
            ResourceKind::Unscored => 0,
        }
    }

    /// The pod's request for every configured resource, in configuration order (PreScore state).
    pub fn pod_requests(&self, pod: &PodResources) -> Vec<i64> {
        self.resources.iter().map(|(k, _)| self.pod_request(pod, *k)).collect()
    }

    /// `calculateResourceAllocatableRequest`: `(allocatable, node requested + pod request)`, or
    /// `(0, 0)` when the resource must not be scored on this node.
    /// (CPU and memory inline in the scoring loops; the rest is a call.)
    #[inline(always)]
    pub fn allocatable_and_requested(&self, node: &NodeInfo, kind: ResourceKind, pod_request: i64) -> (i64, i64) {
        let alloc = &node.node.allocatable;
        match kind {
            ResourceKind::Cpu => {
                let used = if self.use_requested { node.requested.milli_cpu } else { node.non_zero_milli_cpu };
                (alloc.milli_cpu, used.saturating_add(pod_request))
            }
            ResourceKind::Memory => {
                let used = if self.use_requested { node.requested.memory } else { node.non_zero_memory };
                (alloc.memory, used.saturating_add(pod_request))
            }
            _ => self.other_allocatable_and_requested(node, kind, pod_request),
        }
    }

    /// [`ResourceAllocation::allocatable_and_requested`] of every resource.
    #[inline(never)]
    fn other_allocatable_and_requested(&self, node: &NodeInfo, kind: ResourceKind, pod_request: i64) -> (i64, i64) {
        let alloc = &node.node.allocatable;
        let (cpu, mem) = if self.use_requested {
            (node.requested.milli_cpu, node.requested.memory)
        } else {
            (node.non_zero_milli_cpu, node.non_zero_memory)
        };
        match kind {
            ResourceKind::Scalar(_) if pod_request == 0 => (0, 0),
            ResourceKind::Cpu => (alloc.milli_cpu, cpu.saturating_add(pod_request)),
            ResourceKind::Memory => (alloc.memory, mem.saturating_add(pod_request)),
            ResourceKind::EphemeralStorage => {
                (alloc.ephemeral_storage, node.requested.ephemeral_storage.saturating_add(pod_request))
            }
            ResourceKind::Scalar(n) if alloc.has_scalar(n) => {
                (alloc.scalar(n), node.requested.scalar(n).saturating_add(pod_request))
            }
            ResourceKind::Scalar(_) | ResourceKind::Unscored => (0, 0),
        }
    }

    /// Per-resource `(requested, allocatable, weight)` of a node; skipped resources have
    /// `allocatable == 0`. Lazy, so scoring a node allocates nothing.
    #[inline(always)]
    pub fn samples<'a>(
        &'a self,
        node: &'a NodeInfo,
        pod_requests: &'a [i64],
    ) -> impl Iterator<Item = ResourceSample> + Clone + 'a {
        self.resources.iter().zip(pod_requests).map(move |(&(kind, weight), &req)| {
            let (alloc, requested) = self.allocatable_and_requested(node, kind, req);
            if alloc == 0 {
                (0, 0, weight)
            } else {
                (requested, alloc, weight)
            }
        })
    }
}

// ---------------------------------------------------------------------------------------------
// The plugin
// ---------------------------------------------------------------------------------------------

/// The configured scoring strategy.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Strategy {
    LeastAllocated,
    MostAllocated,
    RequestedToCapacityRatio(FunctionShape),
}

/// NodeResourcesFit with its validated args.
#[derive(Debug)]
pub struct NodeResourcesFit {
    ignored_resources: Vec<String>,
    ignored_resource_groups: Vec<String>,
    strategy: Strategy,
    allocation: ResourceAllocation,
}

/// PreFilter state: the scalar requests Filter must check (zero and ignored ones dropped),
/// sorted by name so reasons come out in a stable order.
struct FitState(Arc<Vec<ScalarRequest>>);

/// One scalar request Filter checks, with its `Insufficient <name>` text built once per cycle
/// (interned like the name itself), so rejecting thousands of nodes allocates no text.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ScalarRequest {
    pub name: Name,
    pub quantity: i64,
    pub reason: &'static str,
}

impl ScalarRequest {
    pub fn new(name: Name, quantity: i64) -> ScalarRequest {
        ScalarRequest { name, quantity, reason: Name::new(&insufficient_reason(name.as_str())).as_str() }
    }
}

/// PreScore state: the pod's request per configured resource.
struct ScoreState(Vec<i64>);

/// One failing resource (upstream `InsufficientResource`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct InsufficientResource {
    pub reason: Cow<'static, str>,
    pub requested: i64,
    pub used: i64,
    pub capacity: i64,
    /// The request alone exceeds the node's allocatable: preemption cannot help.
    pub unresolvable: bool,
}

fn insufficient(reason: Cow<'static, str>, requested: i64, used: i64, capacity: i64) -> InsufficientResource {
    InsufficientResource { reason, requested, used, capacity, unresolvable: requested > capacity }
}

/// `fitsRequest`: every resource the node lacks for the pod. `scalars` are the pod's scalar
/// requests left after dropping ignored ones.
pub fn fits_request(pod: &Resources, scalars: &[ScalarRequest], node: &NodeInfo) -> Vec<InsufficientResource> {
    let mut out = Vec::new();
    each_insufficient(pod, scalars, node, |r| out.push(r));
    out
}

/// Whether [`fits_request`] finds nothing missing (the common case, checked without building
/// any status).
#[inline(always)]
fn fits(pod: &Resources, scalars: &[ScalarRequest], node: &NodeInfo) -> bool {
    let mut fits = true;
    each_insufficient(pod, scalars, node, |_| fits = false);
    fits
}

/// [`fits_request`] as a visitor, in upstream's order, so Filter can build its status without
/// collecting the failures first.
#[inline(always)]
fn each_insufficient(pod: &Resources, scalars: &[ScalarRequest], node: &NodeInfo, mut out: impl FnMut(InsufficientResource)) {
    let alloc = &node.node.allocatable;
    let used = &node.requested;
    let pods = node.pod_count() as i64;
    if pods + 1 > alloc.allowed_pod_number {
        out(InsufficientResource {
            reason: Cow::Borrowed(REASON_TOO_MANY_PODS),
            requested: 1,
            used: pods,
            capacity: alloc.allowed_pod_number,
            unresolvable: false,
        });
    }
    if pod.milli_cpu == 0 && pod.memory == 0 && pod.ephemeral_storage == 0 && scalars.is_empty() {
        return;
    }
    if pod.milli_cpu > 0 && pod.milli_cpu > alloc.milli_cpu - used.milli_cpu {
        out(insufficient(Cow::Borrowed(INSUFFICIENT_CPU), pod.milli_cpu, used.milli_cpu, alloc.milli_cpu));
    }
    if pod.memory > 0 && pod.memory > alloc.memory - used.memory {
        out(insufficient(Cow::Borrowed(INSUFFICIENT_MEMORY), pod.memory, used.memory, alloc.memory));
    }
    if pod.ephemeral_storage > 0 && pod.ephemeral_storage > alloc.ephemeral_storage - used.ephemeral_storage {
        out(insufficient(
            Cow::Borrowed(INSUFFICIENT_EPHEMERAL_STORAGE),
            pod.ephemeral_storage,
            used.ephemeral_storage,
            alloc.ephemeral_storage,
        ));
    }
    for s in scalars {
        let (capacity, in_use) = (alloc.scalar(s.name), used.scalar(s.name));
        if s.quantity > capacity - in_use {
            out(insufficient(Cow::Borrowed(s.reason), s.quantity, in_use, capacity));
        }
    }
}

/// The status Filter returns for the node, `None` when it fits: one failing resource (the
/// common case) is held inline, so rejecting a node allocates nothing.
fn fit_rejection(pod: &Resources, scalars: &[ScalarRequest], node: &NodeInfo) -> Option<Rejection> {
    let mut rejection: Option<Rejection> = None;
    each_insufficient(pod, scalars, node, |r| match &mut rejection {
        None => {
            let code = if r.unresolvable { Code::UnschedulableAndUnresolvable } else { Code::Unschedulable };
            rejection = Some(Rejection { code, reasons: Reasons::One(r.reason), plugin: "" });
        }
        Some(rej) => {
            if r.unresolvable {
                rej.code = Code::UnschedulableAndUnresolvable;
            }
            rej.reasons.extend(std::iter::once(r.reason));
        }
    });
    rejection
}

impl NodeResourcesFit {
    /// `NewFit`: validate the args and resolve the scoring resources.
    pub fn new(args: &NodeResourcesFitArgs) -> Result<NodeResourcesFit, String> {
        let s = &args.scoring_strategy;
        validate_resources("scoringStrategy.resources", &s.resources)?;
        let strategy = match s.type_ {
            ScoringStrategyType::LeastAllocated => Strategy::LeastAllocated,
            ScoringStrategyType::MostAllocated => Strategy::MostAllocated,
            ScoringStrategyType::RequestedToCapacityRatio => {
                let shape = s
                    .requested_to_capacity_ratio
                    .as_ref()
                    .map(|p| p.shape.as_slice())
                    .ok_or("scoringStrategy.requestedToCapacityRatio: Required value")?;
                validate_shape(shape)?;
                Strategy::RequestedToCapacityRatio(scale_shape(shape))
            }
        };
        Ok(NodeResourcesFit {
            ignored_resources: args.ignored_resources.clone(),
            ignored_resource_groups: args.ignored_resource_groups.clone(),
            strategy,
            allocation: ResourceAllocation::new(&s.resources, false),
        })
    }

    /// Build from the profile's plugin args (upstream defaults when absent).
    pub fn from_args(args: Option<&PluginArgs>) -> Result<NodeResourcesFit, String> {
        match args {
            None => NodeResourcesFit::new(&NodeResourcesFitArgs::default()),
            Some(PluginArgs::NodeResourcesFit(a)) => NodeResourcesFit::new(a),
            Some(other) => Err(format!("want args to be of type NodeResourcesFitArgs, got {}", super::args_kind(other))),
        }
    }

    /// Whether Filter skips this scalar: an extended resource listed in `ignoredResources` or
    /// whose domain is in `ignoredResourceGroups`.
    fn is_ignored(&self, name: &str) -> bool {
        if !is_extended_resource_name(name) {
            return false;
        }
        let group = name.split('/').next().unwrap_or("");
        self.ignored_resources.iter().any(|r| r == name) || self.ignored_resource_groups.iter().any(|g| g == group)
    }

    fn checked_scalars(&self, requests: &Resources) -> Vec<ScalarRequest> {
        let mut v: Vec<ScalarRequest> = requests
            .scalars
            .iter()
            .filter(|(n, q)| *q != 0 && !self.is_ignored(n.as_str()))
            .map(|&(n, q)| ScalarRequest::new(n, q))
            .collect();
        v.sort_by(|a, b| a.name.as_str().cmp(b.name.as_str()));
        v
    }

    /// Score one node from the pod's per-resource requests.
    pub fn score_node(&self, node: &NodeInfo, pod_requests: &[i64]) -> i64 {
        let a = &self.allocation;
        match &self.strategy {
            Strategy::LeastAllocated => weighted_average(a, node, pod_requests, least_requested_score),
            Strategy::MostAllocated => weighted_average(a, node, pod_requests, most_requested_score),
            Strategy::RequestedToCapacityRatio(shape) => requested_to_capacity_ratio(shape, a.samples(node, pod_requests)),
        }
    }
}

/// Resource weights must be 1..=100 and names unique (`validateResources`).
pub fn validate_resources(path: &str, resources: &[ResourceSpec]) -> Result<(), String> {
    for (i, r) in resources.iter().enumerate() {
        if !(1..=MAX_NODE_SCORE).contains(&r.weight) {
            return Err(format!(
                "{path}[{i}].weight: Invalid value: {}: resource weight of {} should be in a range of 1-100",
                r.weight, r.name
            ));
        }
        if resources[..i].iter().any(|o| o.name == r.name) {
            return Err(format!("{path}[{i}].name: Duplicate value: {:?}", r.name));
        }
    }
    Ok(())
}

fn validate_shape(shape: &[UtilizationShapePoint]) -> Result<(), String> {
    if shape.is_empty() {
        return Err("scoringStrategy.requestedToCapacityRatio.shape: Required value: at least one point must be specified".into());
    }
    for (i, p) in shape.iter().enumerate() {
        if !(0..=100).contains(&p.utilization) {
            return Err(format!("shape[{i}].utilization: Invalid value: {}: not in valid range [0, 100]", p.utilization));
        }
        if !(0..=MAX_CUSTOM_PRIORITY_SCORE as i32).contains(&p.score) {
            return Err(format!("shape[{i}].score: Invalid value: {}: not in valid range [0, 10]", p.score));
        }
        if i > 0 && shape[i - 1].utilization >= p.utilization {
            return Err(format!(
                "shape[{i}].utilization: Invalid value: {}: utilization values must be sorted in increasing order",
                p.utilization
            ));
        }
    }
    Ok(())
}

#[inline(always)]
fn pod_resources(pod: &PodInfo) -> Result<&PodResources, Rejection> {
    pod.resources.as_ref().map_err(|e| Rejection::error(pod_resources_error(e)))
}

impl Plugin for NodeResourcesFit {
    fn name(&self) -> &'static str {
        super::names::NODE_RESOURCES_FIT
    }

    fn points(&self) -> Points {
        Points { pre_filter: true, filter: true, pre_score: true, score: true, ..Default::default() }
    }

    /// Resources are freed by deleted pods and by bound pods whose counted requests went down
    /// (in-place resize; `InPlacePodVerticalScaling` is locked on in v1.35), and added by new
    /// nodes or allocatable changes.
    fn events(&self) -> EventMask {
        EventMask::ASSIGNED_POD_DELETE | EventMask::ASSIGNED_POD_SCALE_DOWN | EventMask::NODE_ADD | EventMask::NODE_ALLOCATABLE
    }

    fn queueing_hint(&self, event: &ClusterEvent<'_>, pod: &PodInfo) -> QueueingHint {
        super::node_resources_fit_hints::after_pod_event(event, pod)
    }

    fn pre_filter(&self, _cache: &Cache, pod: &PodInfo, state: &mut PluginState) -> PreFilterOutcome {
        match pod_resources(pod) {
            Ok(r) => {
                *state = Some(Box::new(FitState(Arc::new(self.checked_scalars(&r.requests)))));
                PreFilterOutcome::Continue
            }
            Err(e) => PreFilterOutcome::Reject(e),
        }
    }

    fn clone_state(&self, state: &PluginState) -> PluginState {
        state_as::<FitState>(state).map(|s| Box::new(FitState(s.0.clone())) as Box<dyn std::any::Any + Send>)
    }

    fn filter(&self, _cache: &Cache, pod: &PodInfo, node: &NodeInfo, state: &PluginState) -> Result<(), Rejection> {
        let requests = &pod_resources(pod)?.requests;
        let computed;
        let scalars: &[ScalarRequest] = match state_as::<FitState>(state) {
            Some(s) => &s.0,
            None => {
                computed = self.checked_scalars(requests);
                &computed
            }
        };
        match fit_rejection(requests, scalars, node) {
            None => Ok(()),
            Some(r) => Err(r),
        }
    }

    fn pre_score(&self, _cache: &Cache, pod: &PodInfo, _nodes: &[&NodeInfo], state: &mut PluginState) -> PreScoreOutcome {
        if let Ok(r) = pod.resources.as_ref() {
            *state = Some(Box::new(ScoreState(self.allocation.pod_requests(r))));
        }
        PreScoreOutcome::Run
    }

    fn score(&self, cache: &Cache, pod: &PodInfo, node: &NodeInfo, state: &PluginState) -> Result<i64, Rejection> {
        super::score_one(self, cache, pod, node, state)
    }
}

impl super::ScoreAll for NodeResourcesFit {
    fn score_all(
        &self,
        _cache: &Cache,
        pod: &PodInfo,
        nodes: &[&NodeInfo],
        state: &PluginState,
        out: &mut [i64],
    ) -> Result<(), Rejection> {
        match state_as::<ScoreState>(state) {
            Some(s) => super::fill_each(out, nodes, |node| self.score_node(node, &s.0)),
            None if nodes.is_empty() => Ok(()),
            None => {
                let requests = self.allocation.pod_requests(pod_resources(pod)?);
                super::fill_each(out, nodes, |node| self.score_node(node, &requests))
            }
        }
    }
}

impl super::FilterAll for NodeResourcesFit {
    fn filter_all(&self, cache: &Cache, pod: &PodInfo, nodes: &[&NodeInfo], state: &PluginState, out: &mut super::Rejections) {
        match (pod_resources(pod), state_as::<FitState>(state)) {
            // The pod's requests and the state read once for the list.
            (Ok(r), Some(s)) => {
                let (requests, scalars) = (&r.requests, &s.0[..]);
                super::reject_each(nodes, out, |node| {
                    if fits(requests, scalars, node) {
                        return Ok(());
                    }
                    match fit_rejection(requests, scalars, node) {
                        None => Ok(()),
                        Some(r) => Err(r),
                    }
                })
            }
            _ => super::reject_each(nodes, out, |node| self.filter(cache, pod, node, state)),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::core::config::{RequestedToCapacityRatioParam, ScoringStrategy};
    use crate::core::framework::plugins::test_util::{cache_with, node, NodeBuilder, PodBuilder};

    #[test]
    fn mul_div_agrees_with_wide_arithmetic() {
        let wide = |a: i64, b: i64, c: i64| {
            (i128::from(a) * i128::from(b) / i128::from(c)).clamp(i128::from(i64::MIN), i128::from(i64::MAX)) as i64
        };
        let values = [0, 1, -1, 7, 100, 4_000, 128 << 30, i64::MAX / 3, i64::MAX, i64::MIN, i64::MIN + 1];
        for a in values {
            for b in values {
                for c in values.into_iter().filter(|c| *c != 0) {
                    assert_eq!(mul_div(a, b, c), wide(a, b, c), "{a} * {b} / {c}");
                }
            }
        }
    }

    const EXT_A: &str = "example.com/aaa";
    const EXT_B: &str = "example.com/bbb";
    const K8S_IO_A: &str = "kubernetes.io/something";
    const HUGE_A: &str = "hugepages-2Mi";

    fn fit(args: NodeResourcesFitArgs) -> NodeResourcesFit {
        NodeResourcesFit::new(&args).unwrap()
    }

    /// fit_test.go `makeAllocatableResources(10, 20, 32, 5, 20, 5)`: milliCPU 10, memory 20,
    /// pods 32, example.com/aaa 5, ephemeral-storage 20, hugepages-2Mi 5.
    fn test_node(pods: &str) -> NodeBuilder {
        NodeBuilder::new("node").allocatable(&[
            ("cpu", "10m"),
            ("memory", "20"),
            ("pods", pods),
            (EXT_A, "5"),
            ("ephemeral-storage", "20"),
            (HUGE_A, "5"),
        ])
    }

    /// `newResourcePod(...)`: one container per entry with the given requests.
    fn res_pod(name: &str, containers: &[&[(&str, &str)]]) -> PodBuilder {
        containers.iter().fold(PodBuilder::new(name), |b, c| b.container(c))
    }

    fn init(mut b: PodBuilder, inits: &[&[(&str, &str)]]) -> PodBuilder {
        for c in inits {
            b = b.init_container(c);
        }
        b
    }

    /// PreFilter + Filter of `pod` on a node already running `existing`.
    fn filter_with(pl: &NodeResourcesFit, n: NodeBuilder, existing: PodBuilder, pod: PodBuilder) -> Result<(), Rejection> {
        let cache = cache_with(&[n], &[existing.node_name("node")]);
        let info = pod.info();
        let mut state = None;
        assert!(matches!(pl.pre_filter(&cache, &info, &mut state), PreFilterOutcome::Continue));
        pl.filter(&cache, &info, node(&cache, "node"), &state)
    }

    fn enough(existing: PodBuilder, pod: PodBuilder) -> Result<(), Rejection> {
        filter_with(&fit(NodeResourcesFitArgs::default()), test_node("32"), existing, pod)
    }

    fn fails(code: Code, reasons: &[&'static str]) -> Result<(), Rejection> {
        Err(Rejection { code, reasons: reasons.iter().map(|r| Cow::Borrowed(*r)).collect(), plugin: "" })
    }

    fn cm(cpu: &'static str, mem: &'static str) -> [(&'static str, &'static str); 2] {
        [("cpu", cpu), ("memory", mem)]
    }

    #[test]
    fn enough_requests_table() {
        // fit_test.go TestEnoughRequests (statuses per current fit.go: Unresolvable when a
        // request alone exceeds allocatable).
        let u = Code::Unschedulable;
        let uu = Code::UnschedulableAndUnresolvable;
        let on = |c: &str, m: &str| res_pod("existing", &[&[("cpu", c), ("memory", m)]]);
        let c = |cpu: &'static str, mem: &'static str| res_pod("p", &[&cm(cpu, mem)]);
        assert_eq!(enough(on("10m", "20"), PodBuilder::new("p")), Ok(()), "no resources requested always fits");
        assert_eq!(
            enough(on("10m", "20"), c("1m", "1")),
            fails(u, &["Insufficient cpu", "Insufficient memory"]),
            "too many resources fails"
        );
        assert_eq!(
            enough(on("8m", "19"), init(c("1m", "1"), &[&cm("3m", "1")])),
            fails(u, &["Insufficient cpu"]),
            "too many resources fails due to init container cpu"
        );
        assert_eq!(
            enough(on("8m", "19"), init(c("1m", "1"), &[&cm("3m", "1"), &cm("2m", "1")])),
            fails(u, &["Insufficient cpu"]),
            "too many resources fails due to highest init container cpu"
        );
        assert_eq!(
            enough(on("9m", "19"), init(c("1m", "1"), &[&cm("1m", "3")])),
            fails(u, &["Insufficient memory"]),
            "too many resources fails due to init container memory"
        );
        assert_eq!(
            enough(on("9m", "19"), init(c("1m", "1"), &[&cm("1m", "3"), &cm("1m", "2")])),
            fails(u, &["Insufficient memory"]),
            "too many resources fails due to highest init container memory"
        );
        assert_eq!(
            enough(on("9m", "19"), init(c("1m", "1"), &[&cm("1m", "1")])),
            Ok(()),
            "init container fits because it's the max, not sum, of containers and init containers"
        );
        assert_eq!(
            enough(on("9m", "19"), init(c("1m", "1"), &[&cm("1m", "1"), &cm("1m", "1")])),
            Ok(()),
            "multiple init containers fit because it's the max, not sum, of containers and init containers"
        );
        assert_eq!(enough(on("5m", "5"), c("1m", "1")), Ok(()), "both resources fit");
        assert_eq!(enough(on("9m", "5"), c("2m", "1")), fails(u, &["Insufficient cpu"]), "one resource memory fits");
        assert_eq!(enough(on("5m", "19"), c("1m", "2")), fails(u, &["Insufficient memory"]), "one resource cpu fits");
        assert_eq!(enough(on("5m", "19"), c("5m", "1")), Ok(()), "equal edge case");
        assert_eq!(enough(on("5m", "19"), init(c("4m", "1"), &[&cm("5m", "1")])), Ok(()), "equal edge case for init container");
        let ext = |q: &'static str| res_pod("p", &[&[("cpu", "1m"), ("memory", "1"), (EXT_A, q)]]);
        let ext_used = |q: &'static str| res_pod("existing", &[&[(EXT_A, q)]]);
        assert_eq!(enough(on("0", "0"), res_pod("p", &[&[(EXT_A, "1")]])), Ok(()), "extended resource fits");
        assert_eq!(
            enough(on("0", "0"), init(PodBuilder::new("p"), &[&[(EXT_A, "1")]])),
            Ok(()),
            "extended resource fits for init container"
        );
        assert_eq!(
            enough(ext_used("0"), ext("10")),
            fails(uu, &["Insufficient example.com/aaa"]),
            "extended resource capacity enforced"
        );
        assert_eq!(
            enough(ext_used("0"), init(PodBuilder::new("p"), &[&[("cpu", "1m"), ("memory", "1"), (EXT_A, "10")]])),
            fails(uu, &["Insufficient example.com/aaa"]),
            "extended resource capacity enforced for init container"
        );
        assert_eq!(
            enough(ext_used("5"), ext("1")),
            fails(u, &["Insufficient example.com/aaa"]),
            "extended resource allocatable enforced"
        );
        assert_eq!(
            enough(ext_used("2"), res_pod("p", &[&[(EXT_A, "3")], &[(EXT_A, "3")]])),
            fails(uu, &["Insufficient example.com/aaa"]),
            "extended resource allocatable enforced for multiple containers"
        );
        assert_eq!(
            enough(ext_used("2"), init(PodBuilder::new("p"), &[&[(EXT_A, "3")], &[(EXT_A, "3")]])),
            Ok(()),
            "extended resource allocatable admits multiple init containers"
        );
        assert_eq!(
            enough(ext_used("2"), init(PodBuilder::new("p"), &[&[(EXT_A, "6")], &[(EXT_A, "3")]])),
            fails(uu, &["Insufficient example.com/aaa"]),
            "extended resource allocatable enforced for multiple init containers"
        );
        assert_eq!(
            enough(on("0", "0"), res_pod("p", &[&[("cpu", "1m"), ("memory", "1"), (EXT_B, "1")]])),
            fails(uu, &["Insufficient example.com/bbb"]),
            "extended resource allocatable enforced for unknown resource"
        );
        assert_eq!(
            enough(on("0", "0"), res_pod("p", &[&[("cpu", "1m"), ("memory", "1"), (K8S_IO_A, "10")]])),
            fails(uu, &["Insufficient kubernetes.io/something"]),
            "kubernetes.io resource capacity enforced"
        );
        assert_eq!(
            enough(res_pod("existing", &[&[(HUGE_A, "0")]]), res_pod("p", &[&[("cpu", "1m"), ("memory", "1"), (HUGE_A, "10")]])),
            fails(uu, &["Insufficient hugepages-2Mi"]),
            "hugepages resource capacity enforced"
        );
        assert_eq!(
            enough(res_pod("existing", &[&[(HUGE_A, "2")]]), res_pod("p", &[&[(HUGE_A, "3")], &[(HUGE_A, "3")]])),
            fails(uu, &["Insufficient hugepages-2Mi"]),
            "hugepages resource allocatable enforced for multiple containers"
        );
        assert_eq!(
            enough(on("5m", "5"), c("1m", "1").overhead(&[("cpu", "3m"), ("memory", "13")])),
            Ok(()),
            "resources + pod overhead fits"
        );
        assert_eq!(
            enough(on("5m", "5"), c("1m", "1").overhead(&[("cpu", "1m"), ("memory", "15")])),
            fails(u, &["Insufficient memory"]),
            "requests + overhead does not fit for memory"
        );
        assert_eq!(
            enough(ext_used("6"), res_pod("p", &[&[("cpu", "1m"), ("memory", "1"), (EXT_A, "0")]])),
            Ok(()),
            "skip checking extended resource request with quantity zero via resource groups"
        );
        assert_eq!(
            enough(res_pod("existing", &[&[("cpu", "20m"), ("memory", "30"), (EXT_A, "1")]]), res_pod("p", &[&[(EXT_A, "1")]])),
            Ok(()),
            "skip checking resource request with quantity zero"
        );
    }

    #[test]
    fn ignored_resources() {
        // fit_test.go TestEnoughRequests: "skip checking ignored extended resource" and "skip
        // checking ignored extended resource via resource groups".
        let pl = fit(NodeResourcesFitArgs { ignored_resources: vec![EXT_B.into()], ..Default::default() });
        let pod = || res_pod("p", &[&[("cpu", "1m"), ("memory", "1"), (EXT_B, "1")]]);
        assert_eq!(filter_with(&pl, test_node("32"), PodBuilder::new("e"), pod()), Ok(()));
        let pl = fit(NodeResourcesFitArgs { ignored_resource_groups: vec!["example.com".into()], ..Default::default() });
        let pod = res_pod("p", &[&[("cpu", "1m"), ("memory", "1"), (EXT_B, "1"), (K8S_IO_A, "1")]]);
        assert_eq!(
            filter_with(&pl, test_node("32"), PodBuilder::new("e"), pod),
            fails(Code::UnschedulableAndUnresolvable, &["Insufficient kubernetes.io/something"])
        );
    }

    #[test]
    fn not_enough_requests_table() {
        // fit_test.go TestNotEnoughRequests: allocatable pods = 1 and one pod already there.
        let pl = fit(NodeResourcesFitArgs::default());
        let n = || NodeBuilder::new("node").allocatable(&[("cpu", "10m"), ("memory", "20"), ("pods", "1")]);
        let too_many = fails(Code::Unschedulable, &[REASON_TOO_MANY_PODS]);
        let on = |c: &str, m: &str| res_pod("existing", &[&[("cpu", c), ("memory", m)]]);
        let c = |cpu: &'static str, mem: &'static str| res_pod("p", &[&cm(cpu, mem)]);
        assert_eq!(
            filter_with(&pl, n(), on("10m", "20"), PodBuilder::new("p")),
            too_many,
            "even without specified resources, predicate fails when there's no space for additional pod"
        );
        assert_eq!(
            filter_with(&pl, n(), on("5m", "5"), c("1m", "1")),
            too_many,
            "even if both resources fit, predicate fails when there's no space for additional pod"
        );
        assert_eq!(
            filter_with(&pl, n(), on("5m", "19"), c("5m", "1")),
            too_many,
            "even for equal edge case, predicate fails when there's no space for additional pod"
        );
        assert_eq!(
            filter_with(&pl, n(), on("5m", "19"), init(c("5m", "1"), &[&cm("5m", "1")])),
            too_many,
            "even for equal edge case, predicate fails when there's no space for additional pod due to init container"
        );
        // A node that does not list `pods` in allocatable takes no pods at all.
        let bare = NodeBuilder::new("node").allocatable(&[("cpu", "10m"), ("memory", "20")]);
        let cache = cache_with(&[bare], &[]);
        let info = PodBuilder::new("p").info();
        assert_eq!(pl.filter(&cache, &info, node(&cache, "node"), &None), too_many);
    }

    #[test]
    fn storage_requests_table() {
        // fit_test.go TestStorageRequests.
        let on = |r: &[(&'static str, &'static str)]| res_pod("existing", &[r]);
        assert_eq!(enough(on(&cm("2m", "10")), res_pod("p", &[&cm("1m", "1")])), Ok(()), "empty storage requested, and pod fits");
        assert_eq!(
            enough(on(&cm("2m", "2")), res_pod("p", &[&[("ephemeral-storage", "25")]])),
            fails(Code::UnschedulableAndUnresolvable, &["Insufficient ephemeral-storage"]),
            "storage ephemeral local storage request exceeds allocatable"
        );
        assert_eq!(
            enough(
                on(&[("cpu", "2m"), ("memory", "2"), ("ephemeral-storage", "10")]),
                res_pod("p", &[&[("ephemeral-storage", "5")]])
            ),
            Ok(()),
            "ephemeral local storage is sufficient"
        );
        assert_eq!(enough(on(&cm("2m", "2")), res_pod("p", &[&[("ephemeral-storage", "10")]])), Ok(()), "pod fits");
    }

    #[test]
    fn sidecars_count_for_the_whole_pod_life() {
        // fit_test.go TestFitScore/TestEnoughRequests sidecar flavour: a restartable init
        // container's request stays allocated next to the regular containers.
        let pod = PodBuilder::new("p").sidecar(&cm("3m", "1")).container(&cm("5m", "1"));
        assert_eq!(enough(PodBuilder::new("e"), pod), Ok(()));
        let pod = PodBuilder::new("p").sidecar(&cm("6m", "1")).container(&cm("5m", "1"));
        assert_eq!(enough(PodBuilder::new("e"), pod), fails(Code::UnschedulableAndUnresolvable, &["Insufficient cpu"]));
    }

    // ---- scoring -----------------------------------------------------------------------

    fn strategy(type_: ScoringStrategyType, resources: &[(&str, i64)], shape: &[(i32, i32)]) -> NodeResourcesFitArgs {
        NodeResourcesFitArgs {
            scoring_strategy: ScoringStrategy {
                type_,
                resources: resources.iter().map(|(n, w)| ResourceSpec { name: n.to_string(), weight: *w }).collect(),
                requested_to_capacity_ratio: (!shape.is_empty()).then(|| RequestedToCapacityRatioParam {
                    shape: shape.iter().map(|&(utilization, score)| UtilizationShapePoint { utilization, score }).collect(),
                }),
            },
            ..Default::default()
        }
    }

    const DEFAULT_RES: &[(&str, i64)] = &[("cpu", 1), ("memory", 1)];

    /// Scores of `pod` over `nodes` (`(name, allocatable)`) running `existing` (`(node, requests)`).
    fn scores(
        pl: &NodeResourcesFit,
        pod: PodBuilder,
        nodes: &[(&str, &[(&str, &str)])],
        existing: &[(&str, &[(&str, &str)])],
    ) -> Vec<i64> {
        let nb: Vec<NodeBuilder> = nodes.iter().map(|(n, a)| NodeBuilder::new(n).allocatable(a)).collect();
        let pods: Vec<PodBuilder> = existing
            .iter()
            .enumerate()
            .map(|(i, (n, r))| {
                let b = PodBuilder::new(&format!("e{i}")).node_name(n);
                if r.is_empty() {
                    b
                } else {
                    b.container(r)
                }
            })
            .collect();
        let cache = cache_with(&nb, &pods);
        let info = pod.info();
        let infos: Vec<&NodeInfo> = nodes.iter().map(|(n, _)| node(&cache, n)).collect();
        let mut state = None;
        assert_eq!(pl.pre_score(&cache, &info, &infos, &mut state), PreScoreOutcome::Run);
        infos.iter().map(|n| pl.score(&cache, &info, n, &state).unwrap()).collect()
    }

    /// `st.MakePod().Req(a).Req(b)` of the scoring tests: cpu in whole cores, memory in bytes.
    fn req_pod(containers: &[&[(&str, &str)]]) -> PodBuilder {
        res_pod("p", containers)
    }

    #[test]
    fn least_allocated_table() {
        // least_allocated_test.go TestLeastAllocatedScoringStrategy.
        let pl = fit(strategy(ScoringStrategyType::LeastAllocated, DEFAULT_RES, &[]));
        let n4 = &[("cpu", "4000"), ("memory", "10000")][..];
        let n6 = &[("cpu", "6000"), ("memory", "10000")][..];
        let n10 = &[("cpu", "10000"), ("memory", "20000")][..];
        let two = || req_pod(&[&cm("1000", "2000"), &cm("2000", "3000")]);
        assert_eq!(
            scores(&pl, PodBuilder::new("p"), &[("node1", n4), ("node2", n4)], &[]),
            vec![100, 100],
            "nothing scheduled, nothing requested"
        );
        assert_eq!(
            scores(&pl, two(), &[("node1", n4), ("node2", n6)], &[]),
            vec![37, 50],
            "nothing scheduled, resources requested, differently sized nodes"
        );
        assert_eq!(
            scores(
                &pl,
                PodBuilder::new("p"),
                &[("node1", n4), ("node2", n4)],
                &[("node1", &[]), ("node1", &[]), ("node2", &[]), ("node2", &[])]
            ),
            vec![100, 100],
            "no resources requested, pods scheduled"
        );
        assert_eq!(
            scores(
                &pl,
                PodBuilder::new("p"),
                &[("node1", n10), ("node2", n10)],
                &[
                    ("node1", &cm("3000", "0")),
                    ("node1", &cm("3000", "0")),
                    ("node2", &cm("3000", "0")),
                    ("node2", &cm("3000", "5000"))
                ]
            ),
            vec![70, 57],
            "no resources requested, pods scheduled with resources"
        );
        assert_eq!(
            scores(&pl, two(), &[("node1", n10), ("node2", n10)], &[("node1", &cm("3000", "0")), ("node2", &cm("3000", "5000"))]),
            vec![57, 45],
            "resources requested, pods scheduled with resources"
        );
        assert_eq!(
            scores(
                &pl,
                two(),
                &[("node1", n10), ("node2", &[("cpu", "10000"), ("memory", "50000")])],
                &[("node1", &cm("3000", "0")), ("node2", &cm("3000", "5000"))]
            ),
            vec![57, 60],
            "resources requested, pods scheduled with resources, differently sized nodes"
        );
        assert_eq!(
            scores(
                &pl,
                req_pod(&[&cm("3000", "0")]),
                &[("node1", n4), ("node2", n4)],
                &[("node1", &cm("3000", "0")), ("node2", &cm("3000", "5000"))]
            ),
            vec![50, 25],
            "requested resources exceed node capacity"
        );
        assert_eq!(
            scores(
                &pl,
                PodBuilder::new("p"),
                &[("node1", &[]), ("node2", &[])],
                &[("node1", &cm("3000", "0")), ("node2", &cm("3000", "5000"))]
            ),
            vec![0, 0],
            "zero node resources, pods scheduled with resources"
        );
        let weighted = fit(strategy(ScoringStrategyType::LeastAllocated, &[("memory", 2), ("cpu", 1)], &[]));
        assert_eq!(
            scores(&weighted, two(), &[("node1", n4), ("node2", n6)], &[]),
            vec![41, 50],
            "nothing scheduled, resources requested with different weight on CPU and memory, differently sized nodes"
        );
        // "resource with negative weight" / "resource with zero weight" / "resource weight
        // larger than MaxNodeScore"
        for bad in [&[("memory", -1), ("cpu", 1)][..], &[("memory", 1), ("cpu", 0)], &[("memory", 1), ("cpu", 101)]] {
            assert!(NodeResourcesFit::new(&strategy(ScoringStrategyType::LeastAllocated, bad, &[])).is_err());
        }
        let ext_set = &[("cpu", 1), ("memory", 1), ("example.com/aaa", 1)][..];
        let ext = fit(strategy(ScoringStrategyType::LeastAllocated, ext_set, &[]));
        let n6x = &[("cpu", "6000"), ("memory", "10000"), ("example.com/aaa", "4")][..];
        assert_eq!(
            scores(&ext, two(), &[("node1", n6), ("node2", n6x)], &[]),
            vec![50, 50],
            "bypass extended resource if the pod does not request"
        );
        let with_ext = req_pod(&[&cm("1000", "2000"), &[("cpu", "2000"), ("memory", "3000"), ("example.com/aaa", "2")]]);
        assert_eq!(
            scores(
                &ext,
                with_ext,
                &[("node1", n6x), ("node2", &[("cpu", "6000"), ("memory", "10000"), ("example.com/aaa", "10")])],
                &[]
            ),
            vec![50, 60],
            "honor extended resource if the pod requests"
        );
        let ext2 = fit(strategy(ScoringStrategyType::LeastAllocated, &[("example.com/aaa", 2), ("cpu", 1), ("memory", 1)], &[]));
        assert_eq!(
            scores(&ext2, req_pod(&[&cm("3000", "4000")]), &[("node1", n6), ("node2", n6x)], &[]),
            vec![55, 55],
            "if the node doesn't have a resource"
        );
    }

    #[test]
    fn most_allocated_table() {
        // most_allocated_test.go TestMostAllocatedScoringStrategy (main cases).
        let pl = fit(strategy(ScoringStrategyType::MostAllocated, DEFAULT_RES, &[]));
        let n4 = &[("cpu", "4000"), ("memory", "10000")][..];
        let n6 = &[("cpu", "6000"), ("memory", "10000")][..];
        let n10 = &[("cpu", "10000"), ("memory", "20000")][..];
        let two = || req_pod(&[&cm("1000", "2000"), &cm("2000", "3000")]);
        assert_eq!(
            scores(&pl, PodBuilder::new("p"), &[("node1", n4), ("node2", n4)], &[]),
            vec![0, 0],
            "nothing scheduled, nothing requested"
        );
        // cpu 3000/4000 = 75, memory 5000/10000 = 50 → 62; cpu 50, memory 50 → 50.
        assert_eq!(
            scores(&pl, two(), &[("node1", n4), ("node2", n6)], &[]),
            vec![62, 50],
            "nothing scheduled, resources requested, differently sized nodes"
        );
        // cpu 6000/10000 = 60, memory 0 → 30; cpu 60, memory 25 → 42.
        assert_eq!(
            scores(
                &pl,
                PodBuilder::new("p"),
                &[("node1", n10), ("node2", n10)],
                &[
                    ("node1", &cm("3000", "0")),
                    ("node1", &cm("3000", "0")),
                    ("node2", &cm("3000", "0")),
                    ("node2", &cm("3000", "5000"))
                ]
            ),
            vec![30, 42],
            "no resources requested, pods scheduled with resources"
        );
        // cpu 6000/10000 = 60, memory 5000/20000 = 25 → 42; cpu 60, memory 50 → 55.
        assert_eq!(
            scores(&pl, two(), &[("node1", n10), ("node2", n10)], &[("node1", &cm("3000", "0")), ("node2", &cm("3000", "5000"))]),
            vec![42, 55],
            "resources requested, pods scheduled with resources"
        );
        // Requests above capacity count as full (current most_allocated.go caps them): node1 cpu
        // 5000/4000 → 100, memory 90 → 95; node2 cpu 50, memory 9000/8000 → 100 → 75.
        let n10x8 = &[("cpu", "10000"), ("memory", "8000")][..];
        assert_eq!(
            scores(&pl, req_pod(&[&cm("2000", "4000"), &cm("3000", "5000")]), &[("node1", n4), ("node2", n10x8)], &[]),
            vec![95, 75],
            "resources requested with more than the node, pods scheduled with resources"
        );
        let weighted = fit(strategy(ScoringStrategyType::MostAllocated, &[("memory", 2), ("cpu", 1)], &[]));
        // node1: cpu 75, memory 50 → (75 + 100) / 3 = 58; node2: cpu 50, memory 50 → 50.
        assert_eq!(
            scores(&weighted, two(), &[("node1", n4), ("node2", n6)], &[]),
            vec![58, 50],
            "nothing scheduled, resources requested, differently sized nodes, different weights"
        );
    }

    #[test]
    fn requested_to_capacity_ratio_table() {
        // requested_to_capacity_ratio_test.go TestRequestedToCapacityRatioScoringStrategy.
        let pl = fit(strategy(ScoringStrategyType::RequestedToCapacityRatio, DEFAULT_RES, &[(0, 10), (100, 0)]));
        let n4 = &[("cpu", "4000"), ("memory", "10000")][..];
        let n6 = &[("cpu", "6000"), ("memory", "10000")][..];
        assert_eq!(
            scores(&pl, PodBuilder::new("p"), &[("node1", n4), ("node2", n4)], &[("node1", &[]), ("node1", &[])]),
            vec![100, 100],
            "nothing scheduled, nothing requested (default - least requested nodes have priority)"
        );
        assert_eq!(
            scores(
                &pl,
                req_pod(&[&cm("1000", "2000"), &cm("2000", "3000")]),
                &[("node1", n4), ("node2", n6)],
                &[("node1", &[]), ("node1", &[])]
            ),
            vec![38, 50],
            "nothing scheduled, resources requested, differently sized nodes (default - least requested nodes have priority)"
        );
        assert_eq!(
            scores(
                &pl,
                PodBuilder::new("p"),
                &[("node1", n4), ("node2", n6)],
                &[("node1", &cm("3000", "5000")), ("node2", &cm("3000", "5000"))]
            ),
            vec![38, 50],
            "no resources requested, pods scheduled with resources (default - least requested nodes have priority)"
        );
    }

    #[test]
    fn broken_linear_function_table() {
        // requested_to_capacity_ratio_test.go TestBrokenLinearFunction.
        type Points = &'static [(i64, i64)];
        let cases: &[(Points, Points)] = &[
            (
                &[(10, 1), (90, 9)],
                &[(-10, 1), (0, 1), (9, 1), (10, 1), (15, 1), (19, 1), (20, 2), (89, 8), (90, 9), (99, 9), (100, 9), (110, 9)],
            ),
            (&[(0, 2), (40, 10), (100, 0)], &[(-10, 2), (0, 2), (20, 6), (30, 8), (40, 10), (70, 5), (100, 0), (110, 0)]),
            (&[(0, 2), (40, 2), (100, 2)], &[(-10, 2), (0, 2), (20, 2), (30, 2), (40, 2), (70, 2), (100, 2), (110, 2)]),
        ];
        for (shape, assertions) in cases {
            for &(p, want) in *assertions {
                assert_eq!(broken_linear(shape, p), want, "shape {shape:?} at {p}");
            }
        }
    }

    #[test]
    fn bin_packing_extended_tables() {
        // requested_to_capacity_ratio_test.go TestResourceBinPackingSingleExtended /
        // TestResourceBinPackingMultipleExtended (makeNode: 4000 milli-cpu, 10000Mi memory).
        let node = |foo: &'static str, bar: &'static str| -> Vec<(&'static str, &'static str)> {
            vec![("cpu", "4"), ("memory", "10000Mi"), ("intel.com/foo", foo), ("intel.com/bar", bar)]
        };
        let (n1, n2) = (node("8", "4"), node("4", "8"));
        let nodes = [("node1", n1.as_slice()), ("node2", n2.as_slice())];
        let single = fit(strategy(ScoringStrategyType::RequestedToCapacityRatio, &[("intel.com/foo", 1)], &[(0, 0), (100, 1)]));
        assert_eq!(scores(&single, PodBuilder::new("p"), &nodes, &[]), vec![0, 0], "nothing scheduled, nothing requested");
        let foo = |q: &'static str| req_pod(&[&[("intel.com/foo", q)]]);
        assert_eq!(
            scores(&single, foo("2"), &nodes, &[("node1", &[])]),
            vec![2, 5],
            "resources requested, pods scheduled with less resources"
        );
        assert_eq!(
            scores(&single, foo("2"), &nodes, &[("node2", &[("intel.com/foo", "2")])]),
            vec![2, 10],
            "resources requested, pods scheduled with resources, on node with existing pod running"
        );
        assert_eq!(
            scores(&single, foo("4"), &nodes, &[]),
            vec![5, 10],
            "resources requested, pods scheduled with more resources"
        );

        let multi = fit(strategy(
            ScoringStrategyType::RequestedToCapacityRatio,
            &[("intel.com/foo", 3), ("intel.com/bar", 5)],
            &[(0, 0), (100, 1)],
        ));
        let pod1 = || req_pod(&[&[("intel.com/foo", "2"), ("intel.com/bar", "2")]]);
        assert_eq!(scores(&multi, PodBuilder::new("p"), &nodes, &[]), vec![0, 0], "nothing scheduled, nothing requested");
        assert_eq!(scores(&multi, pod1(), &nodes, &[]), vec![4, 3], "resources requested, pods scheduled with less resources");
        assert_eq!(
            scores(&multi, pod1(), &nodes, &[("node2", &[("intel.com/foo", "4"), ("intel.com/bar", "2")])]),
            vec![4, 7],
            "resources requested, pods scheduled with resources, on node with existing pod running"
        );
        assert_eq!(
            scores(&multi, req_pod(&[&[("intel.com/foo", "4"), ("intel.com/bar", "2")]]), &nodes, &[]),
            vec![5, 5],
            "resources requested, pods scheduled with more resources"
        );
    }

    #[test]
    fn non_zero_defaults_apply_to_cpu_and_memory_scoring() {
        // A container without requests counts as 100m / 200Mi for scoring.
        let pl = fit(NodeResourcesFitArgs::default());
        let n = &[("cpu", "1"), ("memory", "1000Mi")][..];
        // cpu (1000 - 100) * 100 / 1000 = 90; memory (1000 - 200) / 1000 = 80 → 85.
        assert_eq!(scores(&pl, PodBuilder::new("p").container(&[]), &[("node1", n)], &[]), vec![85]);
        // An explicit zero stays zero; the unlisted memory still counts 200Mi: cpu 100, memory 80.
        assert_eq!(scores(&pl, PodBuilder::new("p"), &[("node1", n)], &[("node1", &[("cpu", "0")])]), vec![90]);
    }

    #[test]
    fn args_validation() {
        assert!(NodeResourcesFit::from_args(None).is_ok());
        assert!(NodeResourcesFit::new(&strategy(ScoringStrategyType::RequestedToCapacityRatio, DEFAULT_RES, &[])).is_err());
        assert!(NodeResourcesFit::new(&strategy(
            ScoringStrategyType::RequestedToCapacityRatio,
            DEFAULT_RES,
            &[(50, 1), (10, 2)]
        ))
        .is_err());
        assert!(NodeResourcesFit::new(&strategy(ScoringStrategyType::RequestedToCapacityRatio, DEFAULT_RES, &[(0, 11)])).is_err());
        assert!(NodeResourcesFit::from_args(Some(&PluginArgs::NodeAffinity(Default::default()))).is_err());
    }
}
