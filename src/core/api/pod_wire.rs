//! A hand-written decoder for the pods of list pages and watch events, the one kind that comes by
//! the ten thousand: it builds the same [`Pod`] the general decoder ([`crate::core::gojson`] over
//! the serde derive) builds, in one pass over the text, skipping the fields edgesched never reads
//! (`managedFields`, `annotations`, container environments and probes, the container statuses'
//! states and images, …) without building anything from them.
//!
//! It reads only the common shapes and leaves every doubt to the general decoder: a [`Miss`]
//! (an escape in a string it reads, a repeated field, a number that is not a plain `i32`, a
//! type other than the expected one, nesting deeper than [`super::scan::MAX_DEPTH`]) makes the
//! caller decode the object the general way, which then accepts, rejects and words errors
//! exactly as before. Node affinity (every DaemonSet pod has one) and resource claims (every pod of
//! a DRA workload has them, in spec and status) are read here too; the other rarely set subtrees
//! (pod affinity, volumes, spread constraints, ports, gates) are each handed alone to the general
//! decoder, which keeps this decoder small without sending the whole spec there; a quantity
//! written as a number still sends the whole spec.
//! Go's `null` rules hold here too: `null` is the zero value (`None` for pointers), for fields,
//! elements and map values.
//!
//! The scheduler's informers ask for [`Need::NodeSideWhenBound`]: a start-up lists bound pods by
//! the ten thousand, and of a bound pod only its node-side record is kept
//! ([`crate::core::model::PodInfo::from_api_for_node`]). The parts that only scheduling the pod
//! itself reads ([`Later`]: creation time, owners, node selector, tolerations, conditions) are
//! then kept as text until the pod is known to be bound or not, and a bound pod's are never
//! built. Its status resources (in-place resize accounting) are kept as text too, and of a
//! bound pod only the statuses that can change its requests are built: in a cluster at rest
//! every container reports the resources its spec asks for.

use super::scan::{field_index, Cursor, Miss};
use super::{
    Affinity, Container, ContainerStatus, NodeAffinity, NodeSelector, NodeSelectorRequirement, NodeSelectorTerm, ObjectMeta,
    OwnerReference, Pod, PodCondition, PodResourceClaim, PodResourceClaimStatus, PodSpec, PodStatus, PreferredSchedulingTerm,
    QuantityStr, ResourceList, ResourceRequirements, StatusResources, Toleration,
};
use crate::core::gojson;
use crate::core::texts::conditions::POD_RESIZE_PENDING;
use std::collections::BTreeMap;

/// What the caller keeps of a pod.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Need {
    /// Every field this decoder reads: the general decoder's pod.
    Whole,
    /// The whole pod when it is not bound (`spec.nodeName` empty); a bound one without what only
    /// scheduling it reads (the parts in [`Later`]): of its conditions only `PodResizePending`
    /// is kept (its requests depend on it), all of them while it is being deleted (the
    /// node-side record reads them then); of its container statuses only those that could
    /// change its requests (see [`redundant_status`]); its pod-level status resources only
    /// when its spec has pod-level requests. Those parts of a bound pod are checked as JSON but
    /// not as their types where they are dropped: a malformed toleration does not keep a bound
    /// pod's requests out of the node table.
    NodeSideWhenBound,
}

/// Decode one pod, or `None` when the general decoder must decide.
pub fn decode_pod(text: &str) -> Option<Pod> {
    decode_pod_for(text, Need::Whole)
}

/// [`decode_pod`] for what `need` keeps.
pub fn decode_pod_for(text: &str, need: Need) -> Option<Pod> {
    let mut c = Cursor::new(text);
    let pod = pod(&mut c, need).ok()?;
    c.at_end().then_some(*pod)
}

/// Decode the pod at the cursor (which then stands after it), boxed: the pod is built in place,
/// not assembled on the stack and copied into its box.
pub fn pod_at(c: &mut Cursor<'_>, need: Need) -> Result<Box<Pod>, Miss> {
    pod(c, need)
}

/// The text of the parts of a pod that only scheduling the pod itself reads, or that a bound
/// pod's requests read only in part, kept while the pod is read ([`Need::NodeSideWhenBound`]):
/// whether it is bound is known only once its spec has been read, after its metadata and
/// perhaps before its status.
#[derive(Default)]
struct Later<'a> {
    creation: Option<&'a str>,
    owners: Option<&'a str>,
    node_selector: Option<&'a str>,
    tolerations: Option<&'a str>,
    conditions: Option<&'a str>,
    container_statuses: Option<&'a str>,
    init_container_statuses: Option<&'a str>,
    pod_resources: Option<&'a str>,
    pod_allocated: Option<&'a str>,
}

impl<'a> Later<'a> {
    /// Keep the value at the cursor in `slot` (of a kept `Later`), else read it now.
    fn keep_or(
        slot: Option<&mut Option<&'a str>>,
        c: &mut Cursor<'a>,
        read_now: impl FnOnce(&mut Cursor<'a>) -> Result<(), Miss>,
    ) -> Result<(), Miss> {
        match slot {
            Some(slot) => {
                *slot = Some(c.raw_value()?);
                Ok(())
            }
            None => read_now(c),
        }
    }

    /// Fill in the kept parts the pod needs: all of them for a pod that is not bound, only the
    /// conditions of a bound pod being deleted. A part that does not read is a [`Miss`] for the
    /// whole pod, as it would have been read in place.
    fn fill(self, pod: &mut Pod) -> Result<(), Miss> {
        let bound = !pod.spec.node_name.is_empty();
        let read = |text: Option<&'a str>, wanted: bool, into: &mut dyn FnMut(&mut Cursor<'a>) -> Result<(), Miss>| match text
            .filter(|_| wanted)
        {
            Some(text) => into(&mut Cursor::new(text)),
            None => Ok(()),
        };
        let (meta, spec) = (&mut pod.metadata, &mut pod.spec);
        if bound {
            // Read only when the general decoder took the spec ([`spec_or_general`]).
            spec.node_selector.clear();
            spec.tolerations = Vec::new();
        }
        read(self.creation, !bound, &mut |c| opt_string(c, &mut meta.creation_timestamp))?;
        read(self.owners, !bound, &mut |c| list(c, owner).map(|o| meta.owner_references = o))?;
        read(self.node_selector, !bound, &mut |c| string_map(c, &mut spec.node_selector))?;
        read(self.tolerations, !bound, &mut |c| list(c, toleration).map(|t| spec.tolerations = t))?;
        let deleting = meta.deletion_timestamp.is_some();
        let status = &mut pod.status;
        // A bound pod's conditions: only a resize's (and only read when the text may hold one).
        let resize_only = bound && !deleting;
        let may_hold_resize = |t: &str| t.contains(POD_RESIZE_PENDING) || t.contains('\\');
        let wanted = !resize_only || self.conditions.is_some_and(may_hold_resize);
        read(self.conditions, wanted, &mut |c| list(c, condition).map(|k| status.conditions = k))?;
        if resize_only {
            status.conditions.retain(|k| k.type_ == POD_RESIZE_PENDING);
        }
        let pod_level = !bound || spec.resources.as_ref().is_some_and(|r| !r.requests.is_empty());
        read(self.pod_resources, pod_level, &mut |c| {
            status.resources = if c.null()? { None } else { Some(status_resources(c)?) };
            Ok(())
        })?;
        read(self.pod_allocated, pod_level, &mut |c| resource_list(c, &mut status.allocated_resources))?;
        let (regular, init) = (self.container_statuses, self.init_container_statuses);
        if bound {
            let (regular, init) = statuses_changing_requests(regular, init, &pod.spec)?;
            (pod.status.container_statuses, pod.status.init_container_statuses) = (regular, init);
            return Ok(());
        }
        let status = &mut pod.status;
        read(regular, true, &mut |c| list(c, container_status).map(|k| status.container_statuses = k))?;
        read(init, true, &mut |c| list(c, container_status).map(|k| status.init_container_statuses = k))
    }
}

/// The fields of an object: `field` reads the value of `names[i]`, other keys are skipped. A
/// field named twice is a [`Miss`] (serde's derive refuses such an object).
fn fields<'a>(
    c: &mut Cursor<'a>,
    names: &[&str],
    field: &mut dyn FnMut(&mut Cursor<'a>, usize) -> Result<(), Miss>,
) -> Result<(), Miss> {
    let mut seen = 0u32;
    c.object(|c, key| match field_index(key, names) {
        Some(i) => {
            let bit = 1u32 << i;
            if seen & bit != 0 {
                return Err(Miss);
            }
            seen |= bit;
            field(c, i)
        }
        None => c.skip_value(),
    })
}

/// A struct-valued field: `null` leaves the default.
fn structure<T: Default>(c: &mut Cursor<'_>, read: fn(&mut Cursor<'_>) -> Result<T, Miss>) -> Result<T, Miss> {
    if c.null()? {
        return Ok(T::default());
    }
    read(c)
}

// The readers below write into the field (kept out of line: called from every field of every
// struct, inlined they made the decoder several times its size).

/// A string field (`null` is `""`).
#[inline(never)]
fn string(c: &mut Cursor<'_>, out: &mut String) -> Result<(), Miss> {
    if !c.null()? {
        *out = c.plain_str()?.to_owned();
    }
    Ok(())
}

/// A pointer-to-string field (`null` is `None`).
#[inline(never)]
fn opt_string(c: &mut Cursor<'_>, out: &mut Option<String>) -> Result<(), Miss> {
    if !c.null()? {
        *out = Some(c.plain_str()?.to_owned());
    }
    Ok(())
}

/// A `bool` field (`null` is `false`).
#[inline(never)]
fn boolean(c: &mut Cursor<'_>, out: &mut bool) -> Result<(), Miss> {
    *out = !c.null()? && c.boolean()?;
    Ok(())
}

/// A `map[string]string`: a repeated key keeps the last value (as Go and serde's map do).
#[inline(never)]
fn string_map(c: &mut Cursor<'_>, map: &mut BTreeMap<String, String>) -> Result<(), Miss> {
    if c.null()? {
        return Ok(());
    }
    c.object(|c, key| {
        let mut value = String::new();
        string(c, &mut value)?;
        map.insert(key.to_owned(), value);
        Ok(())
    })
}

/// A list whose elements are read by `read` (`null` elements are the element's zero value).
fn list<T: Default>(c: &mut Cursor<'_>, read: fn(&mut Cursor<'_>) -> Result<T, Miss>) -> Result<Vec<T>, Miss> {
    let mut out = Vec::new();
    if c.null()? {
        return Ok(out);
    }
    c.array(|c| {
        out.push(structure(c, read)?);
        Ok(())
    })?;
    Ok(out)
}

/// A list of strings (`null` elements are `""`).
#[inline(never)]
fn string_list(c: &mut Cursor<'_>, out: &mut Vec<String>) -> Result<(), Miss> {
    if c.null()? {
        return Ok(());
    }
    c.array(|c| {
        let mut s = String::new();
        string(c, &mut s)?;
        out.push(s);
        Ok(())
    })
}

/// A rarely set field decoded alone by the general decoder: its text, wrapped in the objects that
/// lead to it from a spec (`{"volumes":…}`, `{"containers":[{"ports":…}]}`), is decoded as a
/// [`PodSpec`]: the serde code the whole spec runs for that field, without a copy of it per field
/// type in the binary. An error is a [`Miss`] (the general decoder then takes the whole spec and
/// words the error); the cursor has bounded the value's nesting as for any other, and the
/// wrapping is never deeper than the field's place in the pod.
#[inline(never)]
fn general(c: &mut Cursor<'_>, open: &str, close: &str) -> Result<PodSpec, Miss> {
    let raw = c.raw_value()?;
    let mut text = String::with_capacity(open.len() + raw.len() + close.len());
    text.push_str(open);
    text.push_str(raw);
    text.push_str(close);
    gojson::from_str(&text).map_err(|_| Miss)
}

/// The spec, by hand for the fields every pod has, node affinity (every DaemonSet pod has one)
/// and resource claims, the other rare fields (pod affinity, volumes, spread constraints, gates, ports)
/// each by the general decoder alone ([`general`]); only a doubt (a quantity written as a number,
/// …) sends the whole spec to the general decoder.
fn spec_or_general<'a>(c: &mut Cursor<'a>, mut later: Option<&mut Later<'a>>, out: &mut PodSpec) -> Result<(), Miss> {
    let start = c.mark();
    match spec(c, later.as_deref_mut(), out) {
        Ok(()) => Ok(()),
        Err(Miss) => {
            // The general decoder reads the spec's parts too.
            if let Some(l) = later {
                (l.node_selector, l.tolerations) = (None, None);
            }
            c.rewind(start);
            *out = gojson::from_str(c.raw_value()?).map_err(|_| Miss)?;
            Ok(())
        }
    }
}

#[inline(never)]
fn resource_list(c: &mut Cursor<'_>, map: &mut ResourceList) -> Result<(), Miss> {
    if c.null()? {
        return Ok(());
    }
    c.object(|c, key| {
        // A quoted quantity is trimmed (`Quantity.UnmarshalJSON`); numbers and null are left to
        // the general decoder (with the whole spec).
        let q = match c.peek() {
            Some(b'"') => QuantityStr(c.plain_str()?.trim().to_owned()),
            _ => return Err(Miss),
        };
        map.insert(key.to_owned(), q);
        Ok(())
    })
}

fn pod<'a>(c: &mut Cursor<'a>, need: Need) -> Result<Box<Pod>, Miss> {
    let mut pod = Box::<Pod>::default();
    let mut later = Later::default();
    let lean = need == Need::NodeSideWhenBound;
    const FIELDS: &[&str] = &["metadata", "spec", "status"];
    fields(c, FIELDS, &mut |c, i| {
        let later = lean.then_some(&mut later);
        if c.null()? {
            return Ok(());
        }
        match i {
            0 => meta(c, later, &mut pod.metadata)?,
            1 => spec_or_general(c, later, &mut pod.spec)?,
            _ => status(c, later, &mut pod.status)?,
        }
        Ok(())
    })?;
    if lean {
        later.fill(&mut pod)?;
    }
    Ok(pod)
}

fn meta<'a>(c: &mut Cursor<'a>, mut later: Option<&mut Later<'a>>, m: &mut ObjectMeta) -> Result<(), Miss> {
    const FIELDS: &[&str] =
        &["name", "namespace", "uid", "resourceVersion", "labels", "creationTimestamp", "deletionTimestamp", "ownerReferences"];
    fields(c, FIELDS, &mut |c, i| {
        match i {
            0 => string(c, &mut m.name)?,
            1 => string(c, &mut m.namespace)?,
            2 => string(c, &mut m.uid)?,
            3 => string(c, &mut m.resource_version)?,
            4 => string_map(c, &mut m.labels)?,
            5 => Later::keep_or(later.as_deref_mut().map(|l| &mut l.creation), c, |c| opt_string(c, &mut m.creation_timestamp))?,
            6 => opt_string(c, &mut m.deletion_timestamp)?,
            _ => Later::keep_or(later.as_deref_mut().map(|l| &mut l.owners), c, |c| {
                list(c, owner).map(|o| m.owner_references = o)
            })?,
        }
        Ok(())
    })?;
    Ok(())
}

fn owner(c: &mut Cursor<'_>) -> Result<OwnerReference, Miss> {
    let mut o = OwnerReference::default();
    const FIELDS: &[&str] = &["apiVersion", "kind", "name", "uid", "controller"];
    fields(c, FIELDS, &mut |c, i| {
        match i {
            0 => string(c, &mut o.api_version)?,
            1 => string(c, &mut o.kind)?,
            2 => string(c, &mut o.name)?,
            3 => string(c, &mut o.uid)?,
            _ => o.controller = if c.null()? { None } else { Some(c.boolean()?) },
        }
        Ok(())
    })?;
    Ok(o)
}

fn spec<'a>(c: &mut Cursor<'a>, mut later: Option<&mut Later<'a>>, s: &mut PodSpec) -> Result<(), Miss> {
    const FIELDS: &[&str] = &[
        "nodeName",
        "schedulerName",
        "priority",
        "priorityClassName",
        "preemptionPolicy",
        "nodeSelector",
        "affinity",
        "tolerations",
        "containers",
        "initContainers",
        "overhead",
        "resources",
        "schedulingGates",
        "topologySpreadConstraints",
        "volumes",
        "hostNetwork",
        "workloadRef",
        "resourceClaims",
    ];
    fields(c, FIELDS, &mut |c, i| {
        match i {
            0 => string(c, &mut s.node_name)?,
            1 => string(c, &mut s.scheduler_name)?,
            2 => {
                s.priority = if c.null()? { None } else { Some(c.int32()?) };
            }
            3 => string(c, &mut s.priority_class_name)?,
            4 => opt_string(c, &mut s.preemption_policy)?,
            5 => Later::keep_or(later.as_deref_mut().map(|l| &mut l.node_selector), c, |c| string_map(c, &mut s.node_selector))?,
            6 => s.affinity = if c.null()? { None } else { Some(affinity(c)?) },
            7 => Later::keep_or(later.as_deref_mut().map(|l| &mut l.tolerations), c, |c| {
                list(c, toleration).map(|t| s.tolerations = t)
            })?,
            8 => s.containers = list(c, container)?,
            9 => s.init_containers = list(c, container)?,
            10 => resource_list(c, &mut s.overhead)?,
            11 => {
                s.resources = if c.null()? { None } else { Some(requirements(c)?) };
            }
            12 => s.scheduling_gates = general(c, "{\"schedulingGates\":", "}")?.scheduling_gates,
            13 => {
                s.topology_spread_constraints = general(c, "{\"topologySpreadConstraints\":", "}")?.topology_spread_constraints;
            }
            14 => s.volumes = general(c, "{\"volumes\":", "}")?.volumes,
            15 => boolean(c, &mut s.host_network)?,
            16 => s.workload_ref = general(c, "{\"workloadRef\":", "}")?.workload_ref,
            _ => s.resource_claims = list(c, pod_claim)?,
        }
        Ok(())
    })?;
    Ok(())
}

/// `spec.resourceClaims[]`.
fn pod_claim(c: &mut Cursor<'_>) -> Result<PodResourceClaim, Miss> {
    let mut r = PodResourceClaim::default();
    const FIELDS: &[&str] = &["name", "resourceClaimName", "resourceClaimTemplateName"];
    fields(c, FIELDS, &mut |c, i| {
        match i {
            0 => string(c, &mut r.name)?,
            1 => opt_string(c, &mut r.resource_claim_name)?,
            _ => opt_string(c, &mut r.resource_claim_template_name)?,
        }
        Ok(())
    })?;
    Ok(r)
}

/// `status.resourceClaimStatuses[]`.
fn pod_claim_status(c: &mut Cursor<'_>) -> Result<PodResourceClaimStatus, Miss> {
    let mut r = PodResourceClaimStatus::default();
    const FIELDS: &[&str] = &["name", "resourceClaimName"];
    fields(c, FIELDS, &mut |c, i| {
        match i {
            0 => string(c, &mut r.name)?,
            _ => opt_string(c, &mut r.resource_claim_name)?,
        }
        Ok(())
    })?;
    Ok(r)
}

fn container(c: &mut Cursor<'_>) -> Result<Container, Miss> {
    let mut k = Container::default();
    const FIELDS: &[&str] = &["name", "image", "resources", "ports", "restartPolicy"];
    fields(c, FIELDS, &mut |c, i| {
        match i {
            0 => string(c, &mut k.name)?,
            1 => string(c, &mut k.image)?,
            2 => k.resources = structure(c, requirements)?,
            3 => {
                let spec = general(c, "{\"containers\":[{\"ports\":", "}]}")?;
                k.ports = spec.containers.into_iter().next().map(|k| k.ports).unwrap_or_default();
            }
            _ => opt_string(c, &mut k.restart_policy)?,
        }
        Ok(())
    })?;
    Ok(k)
}

/// Tolerations: every pod has some (the API server's `DefaultTolerationSeconds` admission).
fn toleration(c: &mut Cursor<'_>) -> Result<Toleration, Miss> {
    let mut t = Toleration::default();
    const FIELDS: &[&str] = &["key", "operator", "value", "effect", "tolerationSeconds"];
    fields(c, FIELDS, &mut |c, i| {
        match i {
            0 => string(c, &mut t.key)?,
            1 => string(c, &mut t.operator)?,
            2 => string(c, &mut t.value)?,
            3 => string(c, &mut t.effect)?,
            _ => t.toleration_seconds = if c.null()? { None } else { Some(c.int64()?) },
        }
        Ok(())
    })?;
    Ok(t)
}

/// Affinity: node affinity by hand, pod (anti-)affinity by the general decoder.
fn affinity(c: &mut Cursor<'_>) -> Result<Affinity, Miss> {
    let mut a = Affinity::default();
    const FIELDS: &[&str] = &["nodeAffinity", "podAffinity", "podAntiAffinity"];
    fields(c, FIELDS, &mut |c, i| {
        match i {
            0 => a.node_affinity = if c.null()? { None } else { Some(node_affinity(c)?) },
            1 => {
                let spec = general(c, "{\"affinity\":{\"podAffinity\":", "}}")?;
                a.pod_affinity = spec.affinity.and_then(|a| a.pod_affinity);
            }
            _ => {
                let spec = general(c, "{\"affinity\":{\"podAntiAffinity\":", "}}")?;
                a.pod_anti_affinity = spec.affinity.and_then(|a| a.pod_anti_affinity);
            }
        }
        Ok(())
    })?;
    Ok(a)
}

fn node_affinity(c: &mut Cursor<'_>) -> Result<NodeAffinity, Miss> {
    let mut n = NodeAffinity::default();
    const FIELDS: &[&str] =
        &["requiredDuringSchedulingIgnoredDuringExecution", "preferredDuringSchedulingIgnoredDuringExecution"];
    fields(c, FIELDS, &mut |c, i| {
        match i {
            0 => n.required = if c.null()? { None } else { Some(node_selector(c)?) },
            _ => n.preferred = list(c, preferred_term)?,
        }
        Ok(())
    })?;
    Ok(n)
}

fn node_selector(c: &mut Cursor<'_>) -> Result<NodeSelector, Miss> {
    let mut n = NodeSelector::default();
    fields(c, &["nodeSelectorTerms"], &mut |c, _| {
        n.node_selector_terms = list(c, selector_term)?;
        Ok(())
    })?;
    Ok(n)
}

fn preferred_term(c: &mut Cursor<'_>) -> Result<PreferredSchedulingTerm, Miss> {
    let mut p = PreferredSchedulingTerm::default();
    const FIELDS: &[&str] = &["weight", "preference"];
    fields(c, FIELDS, &mut |c, i| {
        match i {
            0 => p.weight = if c.null()? { 0 } else { c.int32()? },
            _ => p.preference = structure(c, selector_term)?,
        }
        Ok(())
    })?;
    Ok(p)
}

fn selector_term(c: &mut Cursor<'_>) -> Result<NodeSelectorTerm, Miss> {
    let mut t = NodeSelectorTerm::default();
    const FIELDS: &[&str] = &["matchExpressions", "matchFields"];
    fields(c, FIELDS, &mut |c, i| {
        match i {
            0 => t.match_expressions = list(c, selector_requirement)?,
            _ => t.match_fields = list(c, selector_requirement)?,
        }
        Ok(())
    })?;
    Ok(t)
}

fn selector_requirement(c: &mut Cursor<'_>) -> Result<NodeSelectorRequirement, Miss> {
    let mut r = NodeSelectorRequirement::default();
    const FIELDS: &[&str] = &["key", "operator", "values"];
    fields(c, FIELDS, &mut |c, i| {
        match i {
            0 => string(c, &mut r.key)?,
            1 => string(c, &mut r.operator)?,
            _ => string_list(c, &mut r.values)?,
        }
        Ok(())
    })?;
    Ok(r)
}

fn requirements(c: &mut Cursor<'_>) -> Result<ResourceRequirements, Miss> {
    let mut r = ResourceRequirements::default();
    const FIELDS: &[&str] = &["requests", "limits"];
    fields(c, FIELDS, &mut |c, i| {
        match i {
            0 => resource_list(c, &mut r.requests)?,
            _ => resource_list(c, &mut r.limits)?,
        }
        Ok(())
    })?;
    Ok(r)
}

fn status<'a>(c: &mut Cursor<'a>, mut later: Option<&mut Later<'a>>, s: &mut PodStatus) -> Result<(), Miss> {
    const FIELDS: &[&str] = &[
        "phase",
        "conditions",
        "nominatedNodeName",
        "startTime",
        "containerStatuses",
        "initContainerStatuses",
        "resources",
        "allocatedResources",
        "resourceClaimStatuses",
    ];
    fields(c, FIELDS, &mut |c, i| {
        let later = later.as_deref_mut();
        match i {
            0 => string(c, &mut s.phase)?,
            1 => Later::keep_or(later.map(|l| &mut l.conditions), c, |c| list(c, condition).map(|k| s.conditions = k))?,
            2 => string(c, &mut s.nominated_node_name)?,
            3 => opt_string(c, &mut s.start_time)?,
            4 => Later::keep_or(later.map(|l| &mut l.container_statuses), c, |c| {
                list(c, container_status).map(|k| s.container_statuses = k)
            })?,
            5 => Later::keep_or(later.map(|l| &mut l.init_container_statuses), c, |c| {
                list(c, container_status).map(|k| s.init_container_statuses = k)
            })?,
            6 => Later::keep_or(later.map(|l| &mut l.pod_resources), c, |c| {
                s.resources = if c.null()? { None } else { Some(status_resources(c)?) };
                Ok(())
            })?,
            7 => Later::keep_or(later.map(|l| &mut l.pod_allocated), c, |c| resource_list(c, &mut s.allocated_resources))?,
            _ => s.resource_claim_statuses = list(c, pod_claim_status)?,
        }
        Ok(())
    })?;
    Ok(())
}

fn container_status(c: &mut Cursor<'_>) -> Result<ContainerStatus, Miss> {
    let mut k = ContainerStatus::default();
    const FIELDS: &[&str] = &["name", "allocatedResources", "resources"];
    fields(c, FIELDS, &mut |c, i| {
        match i {
            0 => string(c, &mut k.name)?,
            1 => resource_list(c, &mut k.allocated_resources)?,
            _ => k.resources = if c.null()? { None } else { Some(status_resources(c)?) },
        }
        Ok(())
    })?;
    Ok(k)
}

fn status_resources(c: &mut Cursor<'_>) -> Result<StatusResources, Miss> {
    let mut r = StatusResources::default();
    fields(c, &["requests"], &mut |c, _| resource_list(c, &mut r.requests))?;
    Ok(r)
}

/// Up to this many quantities per list are compared where they stand in the text; a longer
/// list makes its status count as changing the requests (it is then read as it is).
const COMPARED: usize = 8;

/// A `ResourceList` read without copying: its entries as `(name, trimmed quantity)`.
#[derive(Clone, Copy)]
struct Entries<'a> {
    items: [(&'a str, &'a str); COMPARED],
    len: usize,
}

impl<'a> Entries<'a> {
    const EMPTY: Entries<'static> = Entries { items: [("", ""); COMPARED], len: 0 };

    fn as_slice(&self) -> &[(&'a str, &'a str)] {
        self.items.get(..self.len).unwrap_or_default()
    }
}

/// The list at the cursor as [`Entries`]; `None` beyond [`COMPARED`] entries.
fn borrowed_list<'a>(c: &mut Cursor<'a>) -> Result<Option<Entries<'a>>, Miss> {
    let mut out = Entries::EMPTY;
    let mut fits = true;
    if c.null()? {
        return Ok(Some(out));
    }
    c.object(|c, key| {
        let q = match c.peek() {
            Some(b'"') => c.plain_str()?.trim(),
            _ => return Err(Miss),
        };
        match out.items.get_mut(out.len) {
            Some(slot) => {
                *slot = (key, q);
                out.len += 1;
            }
            None => fits = false,
        }
        Ok(())
    })?;
    Ok(fits.then_some(out))
}

/// Whether borrowed entries, read as a map reads them (a key named twice: the last value), name
/// exactly the spec's requests with the same quantities.
fn same_as(entries: &[(&str, &str)], spec: &ResourceList) -> bool {
    let mut distinct = 0usize;
    for (i, (k, q)) in entries.iter().enumerate() {
        if entries[i + 1..].iter().any(|(later, _)| later == k) {
            continue;
        }
        if spec.get(*k).is_none_or(|s| s.0 != *q) {
            return false;
        }
        distinct += 1;
    }
    distinct == spec.len()
}

/// A bound pod's container statuses (`regular` and `init`, the two lists' text) without those
/// that cannot change its requests ([`redundant_status`]). The statuses are compared where they
/// stand in the text and only the others are built. When a container name is reported twice
/// (across both lists: the lookup spans them) or there are more than [`COMPARED`], every
/// status is kept: which one counts is then the full reading's business.
fn statuses_changing_requests(
    regular: Option<&str>,
    init: Option<&str>,
    spec: &PodSpec,
) -> Result<(Vec<ContainerStatus>, Vec<ContainerStatus>), Miss> {
    let mut names = [""; COMPARED];
    let mut keep = [false; COMPARED];
    let mut n = 0usize;
    let mut compared = true;
    for text in [regular, init].into_iter().flatten() {
        let mut c = Cursor::new(text);
        if c.null()? {
            continue;
        }
        c.array(|c| {
            let (name, redundant) = redundant_status(c, spec)?;
            if n >= COMPARED || names[..n].contains(&name) {
                compared = false;
            } else {
                names[n] = name;
                keep[n] = !redundant;
            }
            n += 1;
            Ok(())
        })?;
    }
    let mut next = 0usize;
    let mut build = |text: Option<&str>| -> Result<Vec<ContainerStatus>, Miss> {
        let Some(text) = text else { return Ok(Vec::new()) };
        if !compared {
            return list(&mut Cursor::new(text), container_status);
        }
        let mut out = Vec::new();
        let mut c = Cursor::new(text);
        if c.null()? {
            return Ok(out);
        }
        c.array(|c| {
            if keep[next] {
                out.push(structure(c, container_status)?);
            } else {
                c.skip_value()?;
            }
            next += 1;
            Ok(())
        })?;
        Ok(out)
    };
    Ok((build(regular)?, build(init)?))
}

/// Read one container status in place: its name, and whether it is redundant for a bound pod
/// — it reports no `resources` (then it is never read), or no container that reads a status
/// (regular containers, sidecars) has its name, or for every one that does both its reported
/// requests and its allocated resources (when present) name the container's spec requests
/// with the same quantities. A redundant status leaves `max(spec, actuated, allocated)` at the
/// spec whatever the resize conditions say, so dropping it changes nothing
/// (`determineEffectiveRequests`, [`crate::core::pod_requests`]).
fn redundant_status<'a>(c: &mut Cursor<'a>, spec: &PodSpec) -> Result<(&'a str, bool), Miss> {
    let mut name = "";
    let mut allocated = Some(Entries::EMPTY);
    let mut actuated = None;
    let mut reported = false;
    if c.null()? {
        return Ok(("", true));
    }
    fields(c, &["name", "allocatedResources", "resources"], &mut |c, i| {
        match i {
            0 => {
                if !c.null()? {
                    name = c.plain_str()?;
                }
            }
            1 => allocated = borrowed_list(c)?,
            _ => {
                reported = !c.null()?;
                if reported {
                    actuated = Some(Entries::EMPTY);
                    fields(c, &["requests"], &mut |c, _| {
                        actuated = borrowed_list(c)?;
                        Ok(())
                    })?;
                }
            }
        }
        Ok(())
    })?;
    if !reported {
        return Ok((name, true));
    }
    let sidecars = spec.init_containers.iter().filter(|k| crate::core::pod_requests::is_restartable(k));
    let redundant = spec.containers.iter().chain(sidecars).filter(|k| k.name == name).all(|k| {
        let want = &k.resources.requests;
        let same =
            |l: Option<Entries<'_>>, empty_ok: bool| l.is_some_and(|l| (empty_ok && l.len == 0) || same_as(l.as_slice(), want));
        same(actuated, false) && same(allocated, true)
    });
    Ok((name, redundant))
}

fn condition(c: &mut Cursor<'_>) -> Result<PodCondition, Miss> {
    let mut k = PodCondition::default();
    const FIELDS: &[&str] = &["type", "status", "reason", "message", "lastProbeTime", "lastTransitionTime"];
    fields(c, FIELDS, &mut |c, i| {
        match i {
            0 => string(c, &mut k.type_)?,
            1 => string(c, &mut k.status)?,
            2 => opt_string(c, &mut k.reason)?,
            3 => opt_string(c, &mut k.message)?,
            4 => opt_string(c, &mut k.last_probe_time)?,
            _ => opt_string(c, &mut k.last_transition_time)?,
        }
        Ok(())
    })?;
    Ok(k)
}
