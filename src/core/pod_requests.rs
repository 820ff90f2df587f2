//! A pod's requests as kube-scheduler v1.35 counts them, in-place resizes included.
//!
//! Upstream (`kubernetes/kubernetes` at 8a84988bd671, the tree just after the v1.35.0 release,
//! whose `CHANGELOG-1.35.md` ends at v1.35.0): `pkg/scheduler/framework/types.go`
//! `PodInfo.CalculateResource` computes what a pod adds to its node with
//! `staging/src/k8s.io/component-helpers/resource/helpers.go` `PodRequests`, passing
//! `UseStatusResources` (`InPlacePodVerticalScaling`, GA and locked on in v1.35) and
//! `InPlacePodLevelResourcesVerticalScalingEnabled` (alpha, off by default), then a second time
//! with `NonMissingContainerRequests` for the non-zero cpu/memory that scoring spreads by.
//!
//! With status resources, a container counts `max(spec, actuated, allocated)` per resource —
//! `determineEffectiveRequests`: the spec (what the user asked for), `status.containerStatuses[]
//! .resources.requests` (what the runtime applied) and `.allocatedResources` (what the kubelet
//! admitted) — so a pod being resized down keeps its old size until the kubelet has actuated
//! the change, and one being resized up is counted at its new size at once. When the
//! `PodResizePending` condition says `Infeasible`, the spec is left out: the node can never
//! give the pod that size, so it counts what it actually has. `Deferred` (pending for now) and
//! `PodResizeInProgress` change nothing: the maximum already covers both sizes. A container's
//! status is used only when it reports `resources`; init containers use theirs only when they
//! are restartable (sidecars). Pod-level requests (`spec.resources`) replace the container
//! aggregate; with the alpha gate on, `status.resources` / `status.allocatedResources` join them
//! by the same rule. Overhead is added last.
//!
//! Status resources are read for bound pods only: a pending pod's requests are its spec, as
//! `noderesources` Fit's PreFilter computes them (no status resources exist before the kubelet
//! runs the pod). A status list that does not parse counts as not reported (the spec stands):
//! the API server validates what kubelets write, so this only guards against malformed input.

use crate::core::api;
use crate::core::features::FeatureGates;
use crate::core::intern::Name;
use crate::core::resources::{
    set_resource, Resources, DEFAULT_MEMORY_REQUEST, DEFAULT_MILLI_CPU_REQUEST, RESOURCE_CPU, RESOURCE_MEMORY,
};
use crate::core::texts::conditions;

/// The resource view of a pod that every resource plugin uses.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct PodResources {
    /// `resourcehelper.PodRequests`: what NodeResourcesFit filters on and nodes account.
    pub requests: Resources,
    /// cpu/memory with 100m/200Mi for containers that do not list them (scoring only).
    pub non_zero_milli_cpu: i64,
    pub non_zero_memory: i64,
}

/// The feature gates that change how a pod's requests are counted, read from the gate
/// registry as `types.go` `PodInfo.CalculateResource` and `noderesources` Fit read them;
/// `Default` is v1.35's defaults.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RequestGates {
    /// `InPlacePodVerticalScaling` (GA and locked on in v1.35): `UseStatusResources`, a bound
    /// pod's container statuses count with its spec.
    pub status_resources: bool,
    /// `PodLevelResources` (beta, on in v1.35): `spec.resources` requests replace the
    /// container aggregate (off: `SkipPodLevelResources`, they are not read).
    pub pod_level_resources: bool,
    /// `InPlacePodLevelResourcesVerticalScaling` (alpha in v1.35, off by default): a bound pod's
    /// pod-level status resources count with its pod-level spec.
    pub pod_level_resize: bool,
}

impl RequestGates {
    /// The gates as set (`--feature-gates`), each gate not set at its v1.35 default.
    pub fn from_features(gates: &FeatureGates) -> RequestGates {
        RequestGates {
            status_resources: gates.enabled(IN_PLACE_POD_VERTICAL_SCALING),
            pod_level_resources: gates.enabled(POD_LEVEL_RESOURCES),
            pod_level_resize: gates.enabled(IN_PLACE_POD_LEVEL_RESOURCES_VERTICAL_SCALING),
        }
    }
}

impl Default for RequestGates {
    fn default() -> RequestGates {
        RequestGates::from_features(&FeatureGates::default())
    }
}

/// The gate names read here (declared in [`crate::core::features`]' registry).
const IN_PLACE_POD_VERTICAL_SCALING: &str = "InPlacePodVerticalScaling";
const POD_LEVEL_RESOURCES: &str = "PodLevelResources";
const IN_PLACE_POD_LEVEL_RESOURCES_VERTICAL_SCALING: &str = "InPlacePodLevelResourcesVerticalScaling";

/// Whether a container is a restartable init container (a sidecar).
pub fn is_restartable(c: &api::Container) -> bool {
    c.restart_policy.as_deref() == Some("Always")
}

/// `resourcehelper.IsPodResizeInfeasible`: the first `PodResizePending` condition decides.
pub fn is_resize_infeasible(status: &api::PodStatus) -> bool {
    status
        .conditions
        .iter()
        .find(|c| c.type_ == conditions::POD_RESIZE_PENDING)
        .is_some_and(|c| c.reason.as_deref() == Some(conditions::REASON_INFEASIBLE))
}

/// `resourcehelper.IsSupportedPodLevelResource`: cpu, memory and hugepages.
pub fn is_supported_pod_level(name: &str) -> bool {
    name == RESOURCE_CPU || name == RESOURCE_MEMORY || name.starts_with("hugepages-")
}

/// `types.go` `PodInfo.CalculateResource` for a pod: its requests, and the non-zero cpu/memory.
/// `bound` says whether status resources count (see the module documentation). Errors name
/// the container and resource: `container "app": cpu: quantity "1x": ...`.
pub fn pod_resources(
    spec: &api::PodSpec,
    status: &api::PodStatus,
    bound: bool,
    gates: RequestGates,
) -> Result<PodResources, String> {
    // `UseStatusResources`: status resources exist only for a pod a kubelet runs.
    let use_status = bound && gates.status_resources;
    let infeasible = use_status && is_resize_infeasible(status);
    let effective = |c: &api::Container, spec: List| {
        if !use_status {
            return spec;
        }
        match find_status(status, &c.name) {
            Some(cs) => container_effective(spec, cs, infeasible),
            None => spec,
        }
    };

    // `AggregateContainerRequests`: regular containers add up; each init container needs its
    // own request plus the sidecars started before it; sidecars also run alongside the main
    // containers (KEP-753). The non-zero view does the same with 100m / 200Mi for cpu / memory
    // a container does not name.
    let mut sum = List::default();
    let mut nz = (0i64, 0i64);
    for c in &spec.containers {
        let l = effective(c, container_spec(c)?);
        let (cpu, mem) = l.non_zero();
        sum.add(&l);
        nz = (nz.0.saturating_add(cpu), nz.1.saturating_add(mem));
    }
    let mut sidecars = List::default();
    let mut sidecars_nz = (0i64, 0i64);
    let mut init_max = List::default();
    let mut init_max_nz = (0i64, 0i64);
    for c in &spec.init_containers {
        let own = container_spec(c)?;
        if is_restartable(c) {
            let l = effective(c, own);
            let (cpu, mem) = l.non_zero();
            sum.add(&l);
            nz = (nz.0.saturating_add(cpu), nz.1.saturating_add(mem));
            sidecars.add(&l);
            sidecars_nz = (sidecars_nz.0.saturating_add(cpu), sidecars_nz.1.saturating_add(mem));
            init_max.max_with(&sidecars);
            init_max_nz = (init_max_nz.0.max(sidecars_nz.0), init_max_nz.1.max(sidecars_nz.1));
        } else {
            let (cpu, mem) = own.non_zero();
            let mut combined = own;
            combined.add(&sidecars);
            init_max.max_with(&combined);
            init_max_nz =
                (init_max_nz.0.max(cpu.saturating_add(sidecars_nz.0)), init_max_nz.1.max(mem.saturating_add(sidecars_nz.1)));
        }
    }
    sum.max_with(&init_max);
    let defaulted_nz = (nz.0.max(init_max_nz.0), nz.1.max(init_max_nz.1));
    let plain = (sum.r.milli_cpu, sum.r.memory);
    let mut reqs = sum.r;
    let mut non_zero = defaulted_nz;

    // Pod-level requests (`IsPodLevelRequestsSet`) replace the container aggregate for the
    // resources they name. Without them every container falls back to the defaults above;
    // with them (`getNonMissingContainerRequests`) a default applies only to a resource
    // neither level names.
    // With `PodLevelResources` off (`SkipPodLevelResources`) they are not read at all.
    let pod_level =
        spec.resources.as_ref().filter(|r| gates.pod_level_resources && r.requests.keys().any(|n| is_supported_pod_level(n)));
    if let Some(pod_level) = pod_level {
        let declared =
            pod_level_list(&pod_level.requests).map_err(|e| crate::core::texts::node_resources::pod_resources_error(&e))?;
        let from_status = match (&status.resources, use_status && gates.pod_level_resize) {
            (Some(actual), true) => pod_level_effective(&declared, actual, status, infeasible),
            _ => None,
        };
        let used = from_status.as_ref().unwrap_or(&declared);
        for name in pod_level.requests.keys().filter(|n| is_supported_pod_level(n)) {
            // An effective list without the resource counts it as zero (Go's zero Quantity).
            let value = used.r.get(name);
            match name.as_str() {
                RESOURCE_CPU => reqs.milli_cpu = value,
                RESOURCE_MEMORY => reqs.memory = value,
                _ => *reqs.scalar_mut(Name::new(name)) = value,
            }
        }
        let names = |n: &str| pod_level.requests.contains_key(n);
        non_zero.0 = match (names(RESOURCE_CPU), sum.cpu) {
            (true, _) => reqs.milli_cpu,
            (false, true) => plain.0,
            (false, false) => defaulted_nz.0,
        };
        non_zero.1 = match (names(RESOURCE_MEMORY), sum.mem) {
            (true, _) => reqs.memory,
            (false, true) => plain.1,
            (false, false) => defaulted_nz.1,
        };
    }

    if !spec.overhead.is_empty() {
        let o = Resources::from_list(&spec.overhead).map_err(|e| format!("overhead: {e}"))?;
        reqs.add(&o);
        non_zero = (non_zero.0.saturating_add(o.milli_cpu), non_zero.1.saturating_add(o.memory));
    }
    reqs.scalars.retain(|(_, v)| *v != 0);
    Ok(PodResources { requests: reqs, non_zero_milli_cpu: non_zero.0, non_zero_memory: non_zero.1 })
}

/// `events.go` `extractPodScaleDown` on the counted requests: some resource the old version
/// requested is requested less (or not at all) by the new one. (Upstream also calls a request
/// removed at an explicit zero a scale-down; a zero here is not told apart from no request,
/// and freeing nothing, it cannot make another pod fit.)
pub fn is_scale_down(old: &Resources, new: &Resources) -> bool {
    old.milli_cpu > new.milli_cpu
        || old.memory > new.memory
        || old.ephemeral_storage > new.ephemeral_storage
        || old.scalars.iter().any(|(n, v)| *v > new.scalar(*n))
}

/// A parsed `ResourceList` and whether it names cpu and memory (the non-zero defaults apply to
/// names missing, not to explicit zeros; a maximum or sum names what any part names).
#[derive(Debug, Clone, Default)]
struct List {
    r: Resources,
    cpu: bool,
    mem: bool,
}

impl List {
    fn parse(list: &api::ResourceList) -> Result<List, String> {
        Ok(List { r: Resources::from_list(list)?, cpu: list.contains_key(RESOURCE_CPU), mem: list.contains_key(RESOURCE_MEMORY) })
    }

    fn add(&mut self, o: &List) {
        self.r.add(&o.r);
        self.cpu |= o.cpu;
        self.mem |= o.mem;
    }

    fn max_with(&mut self, o: &List) {
        self.r.max_with(&o.r);
        self.cpu |= o.cpu;
        self.mem |= o.mem;
    }

    /// `applyNonMissing` with the scheduler's defaults: (cpu, memory).
    fn non_zero(&self) -> (i64, i64) {
        let cpu = if self.cpu { self.r.milli_cpu } else { DEFAULT_MILLI_CPU_REQUEST };
        let mem = if self.mem { self.r.memory } else { DEFAULT_MEMORY_REQUEST };
        (cpu, mem)
    }
}

fn container_spec(c: &api::Container) -> Result<List, String> {
    List::parse(&c.resources.requests).map_err(|e| format!("container {:?}: {e}", c.name))
}

/// The status reported for the container `name`: `AggregateContainerRequests` maps the
/// regular containers' statuses, then the init containers', by name (a later one wins).
fn find_status<'a>(status: &'a api::PodStatus, name: &str) -> Option<&'a api::ContainerStatus> {
    let last = |list: &'a [api::ContainerStatus]| list.iter().rev().find(|s| s.name == name);
    last(&status.init_container_statuses).or_else(|| last(&status.container_statuses))
}

/// `determineEffectiveRequests` for one container whose status was found: used only when it
/// reports `resources`.
fn container_effective(spec: List, cs: &api::ContainerStatus, infeasible: bool) -> List {
    let Some(actual) = &cs.resources else { return spec };
    let (Ok(actuated), Ok(allocated)) = (List::parse(&actual.requests), List::parse(&cs.allocated_resources)) else {
        return spec;
    };
    effective(spec, actuated, allocated, infeasible)
}

/// `max(spec, actuated, allocated)`, or `max(actuated, allocated)` for an infeasible resize.
fn effective(spec: List, actuated: List, allocated: List, infeasible: bool) -> List {
    let mut out = match infeasible {
        true => actuated,
        false => {
            let mut out = spec;
            out.max_with(&actuated);
            out
        }
    };
    out.max_with(&allocated);
    out
}

/// The supported pod-level resources of a list (others are not read, as upstream ignores them).
fn pod_level_list(list: &api::ResourceList) -> Result<List, String> {
    let mut out = List::default();
    for (name, q) in list.iter().filter(|(n, _)| is_supported_pod_level(n)) {
        set_resource(&mut out.r, name, &q.0).map_err(|e| format!("{name}: {e}"))?;
        out.cpu |= name == RESOURCE_CPU;
        out.mem |= name == RESOURCE_MEMORY;
    }
    Ok(out)
}

/// `PodRequests` with `InPlacePodLevelResourcesVerticalScalingEnabled` and `status.resources`
/// set: the pod-level spec, `status.resources.requests` and `status.allocatedResources` by the
/// container rule. `None` (the spec stands) when a status list does not parse.
fn pod_level_effective(
    declared: &List,
    actual: &api::StatusResources,
    status: &api::PodStatus,
    infeasible: bool,
) -> Option<List> {
    let actuated = pod_level_list(&actual.requests).ok()?;
    let allocated = pod_level_list(&status.allocated_resources).ok()?;
    Some(effective(declared.clone(), actuated, allocated, infeasible))
}

#[cfg(test)]
mod tests;
