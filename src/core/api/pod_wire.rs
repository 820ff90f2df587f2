//! A hand-written decoder for the pods of list pages and watch events, the one kind that comes by
//! the ten thousand: it builds the same [`Pod`] the general decoder ([`crate::core::gojson`] over
//! the serde derive) builds, in one pass over the text, skipping the fields edgesched never reads
//! (`managedFields`, `annotations`, container environments and probes, `containerStatuses`, …)
//! without building anything from them.
//!
//! It reads only the common shapes and leaves every doubt to the general decoder: a [`Miss`]
//! (an escape in a string it reads, a repeated field, a number that is not a plain `i32`, a
//! type other than the expected one, nesting deeper than [`super::scan::MAX_DEPTH`]) makes the
//! caller decode the object the general way, which then accepts, rejects and words errors
//! exactly as before. Node affinity (every DaemonSet pod has one) is read here too; the other
//! rarely set subtrees (pod affinity, volumes, spread constraints, ports, gates, claims) are each
//! handed alone to the general decoder, which keeps this decoder small without sending the whole
//! spec there; a quantity written as a number still sends the whole spec.
//! Go's `null` rules hold here too: `null` is the zero value (`None` for pointers), for fields,
//! elements and map values.

use super::scan::{field_index, Cursor, Miss};
use super::{
    Affinity, Container, NodeAffinity, NodeSelector, NodeSelectorRequirement, NodeSelectorTerm, ObjectMeta, OwnerReference, Pod,
    PodCondition, PodSpec, PodStatus, PreferredSchedulingTerm, QuantityStr, ResourceList, ResourceRequirements, Toleration,
};
use crate::core::gojson;
use std::collections::BTreeMap;

/// Decode one pod, or `None` when the general decoder must decide.
pub fn decode_pod(text: &str) -> Option<Pod> {
    let mut c = Cursor::new(text);
    let pod = pod(&mut c).ok()?;
    c.at_end().then_some(pod)
}

/// Decode the pod at the cursor (which then stands after it).
pub fn pod_at(c: &mut Cursor<'_>) -> Result<Pod, Miss> {
    pod(c)
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

/// The spec, by hand for the fields every pod has and node affinity (every DaemonSet pod has
/// one), the other rare fields (pod affinity, volumes, spread constraints, gates, claims, ports)
/// each by the general decoder alone ([`general`]); only a doubt (a quantity written as a number,
/// …) sends the whole spec to the general decoder.
fn spec_or_general(c: &mut Cursor<'_>) -> Result<PodSpec, Miss> {
    let start = c.mark();
    match structure(c, spec) {
        Ok(s) => Ok(s),
        Err(Miss) => {
            c.rewind(start);
            gojson::from_str(c.raw_value()?).map_err(|_| Miss)
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

fn pod(c: &mut Cursor<'_>) -> Result<Pod, Miss> {
    let mut pod = Pod::default();
    const FIELDS: &[&str] = &["metadata", "spec", "status"];
    fields(c, FIELDS, &mut |c, i| {
        match i {
            0 => pod.metadata = structure(c, meta)?,
            1 => pod.spec = spec_or_general(c)?,
            _ => pod.status = structure(c, status)?,
        }
        Ok(())
    })?;
    Ok(pod)
}

fn meta(c: &mut Cursor<'_>) -> Result<ObjectMeta, Miss> {
    let mut m = ObjectMeta::default();
    const FIELDS: &[&str] =
        &["name", "namespace", "uid", "resourceVersion", "labels", "creationTimestamp", "deletionTimestamp", "ownerReferences"];
    fields(c, FIELDS, &mut |c, i| {
        match i {
            0 => string(c, &mut m.name)?,
            1 => string(c, &mut m.namespace)?,
            2 => string(c, &mut m.uid)?,
            3 => string(c, &mut m.resource_version)?,
            4 => string_map(c, &mut m.labels)?,
            5 => opt_string(c, &mut m.creation_timestamp)?,
            6 => opt_string(c, &mut m.deletion_timestamp)?,
            _ => m.owner_references = list(c, owner)?,
        }
        Ok(())
    })?;
    Ok(m)
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

fn spec(c: &mut Cursor<'_>) -> Result<PodSpec, Miss> {
    let mut s = PodSpec::default();
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
            5 => string_map(c, &mut s.node_selector)?,
            6 => s.affinity = if c.null()? { None } else { Some(affinity(c)?) },
            7 => s.tolerations = list(c, toleration)?,
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
            _ => s.resource_claims = general(c, "{\"resourceClaims\":", "}")?.resource_claims,
        }
        Ok(())
    })?;
    Ok(s)
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

fn status(c: &mut Cursor<'_>) -> Result<PodStatus, Miss> {
    let mut s = PodStatus::default();
    const FIELDS: &[&str] = &["phase", "conditions", "nominatedNodeName", "startTime"];
    fields(c, FIELDS, &mut |c, i| {
        match i {
            0 => string(c, &mut s.phase)?,
            1 => s.conditions = list(c, condition)?,
            2 => string(c, &mut s.nominated_node_name)?,
            _ => opt_string(c, &mut s.start_time)?,
        }
        Ok(())
    })?;
    Ok(s)
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
