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
//! exactly as before. Rarely set subtrees (affinity, tolerations, volumes, spread constraints,
//! ports, gates, claims) are handed to the general decoder by themselves. Go's `null` rules hold
//! here too: `null` is the zero value (`None` for pointers), for fields, elements and map values.

use super::scan::{Cursor, Miss};
use super::{
    Container, ObjectMeta, OwnerReference, Pod, PodCondition, PodSpec, PodStatus, QuantityStr, ResourceList, ResourceRequirements,
};
use crate::core::gojson;
use serde::de::DeserializeOwned;
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

/// Fields seen in one object: serde's derive refuses an object naming a field twice.
#[derive(Default)]
struct Seen(u32);

impl Seen {
    fn first(&mut self, bit: u32) -> Result<(), Miss> {
        let mask = 1u32 << bit;
        if self.0 & mask != 0 {
            return Err(Miss);
        }
        self.0 |= mask;
        Ok(())
    }
}

/// A struct-valued field: `null` leaves the default.
fn structure<T: Default>(c: &mut Cursor<'_>, read: fn(&mut Cursor<'_>) -> Result<T, Miss>) -> Result<T, Miss> {
    if c.null()? {
        return Ok(T::default());
    }
    read(c)
}

fn string(c: &mut Cursor<'_>) -> Result<String, Miss> {
    if c.null()? {
        return Ok(String::new());
    }
    c.plain_str().map(str::to_owned)
}

fn opt_string(c: &mut Cursor<'_>) -> Result<Option<String>, Miss> {
    if c.null()? {
        return Ok(None);
    }
    c.plain_str().map(|s| Some(s.to_owned()))
}

/// A `map[string]string`: a repeated key keeps the last value (as Go and serde's map do).
fn string_map(c: &mut Cursor<'_>) -> Result<BTreeMap<String, String>, Miss> {
    let mut map = BTreeMap::new();
    if c.null()? {
        return Ok(map);
    }
    c.object(|c, key| {
        map.insert(key.to_owned(), string(c)?);
        Ok(())
    })?;
    Ok(map)
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

/// A value left to the general decoder, by itself.
fn general<T: DeserializeOwned>(c: &mut Cursor<'_>) -> Result<T, Miss> {
    let raw = c.raw_value()?;
    gojson::from_str(raw).map_err(|_| Miss)
}

fn resource_list(c: &mut Cursor<'_>) -> Result<ResourceList, Miss> {
    let mut map = ResourceList::new();
    if c.null()? {
        return Ok(map);
    }
    c.object(|c, key| {
        // A quoted quantity is trimmed (`Quantity.UnmarshalJSON`); numbers and null go the general way.
        let q = match c.peek() {
            Some(b'"') => QuantityStr(c.plain_str()?.trim().to_owned()),
            _ => general::<QuantityStr>(c)?,
        };
        map.insert(key.to_owned(), q);
        Ok(())
    })?;
    Ok(map)
}

fn pod(c: &mut Cursor<'_>) -> Result<Pod, Miss> {
    let mut pod = Pod::default();
    let mut seen = Seen::default();
    c.object(|c, key| match key {
        "metadata" => {
            seen.first(0)?;
            pod.metadata = structure(c, meta)?;
            Ok(())
        }
        "spec" => {
            seen.first(1)?;
            pod.spec = structure(c, spec)?;
            Ok(())
        }
        "status" => {
            seen.first(2)?;
            pod.status = structure(c, status)?;
            Ok(())
        }
        _ => c.skip_value(),
    })?;
    Ok(pod)
}

fn meta(c: &mut Cursor<'_>) -> Result<ObjectMeta, Miss> {
    let mut m = ObjectMeta::default();
    let mut seen = Seen::default();
    c.object(|c, key| {
        match key {
            "name" => {
                seen.first(0)?;
                m.name = string(c)?;
            }
            "namespace" => {
                seen.first(1)?;
                m.namespace = string(c)?;
            }
            "uid" => {
                seen.first(2)?;
                m.uid = string(c)?;
            }
            "resourceVersion" => {
                seen.first(3)?;
                m.resource_version = string(c)?;
            }
            "labels" => {
                seen.first(4)?;
                m.labels = string_map(c)?;
            }
            "creationTimestamp" => {
                seen.first(5)?;
                m.creation_timestamp = opt_string(c)?;
            }
            "deletionTimestamp" => {
                seen.first(6)?;
                m.deletion_timestamp = opt_string(c)?;
            }
            "ownerReferences" => {
                seen.first(7)?;
                m.owner_references = list(c, owner)?;
            }
            _ => c.skip_value()?,
        };
        Ok(())
    })?;
    Ok(m)
}

fn owner(c: &mut Cursor<'_>) -> Result<OwnerReference, Miss> {
    let mut o = OwnerReference::default();
    let mut seen = Seen::default();
    c.object(|c, key| {
        match key {
            "apiVersion" => {
                seen.first(0)?;
                o.api_version = string(c)?;
            }
            "kind" => {
                seen.first(1)?;
                o.kind = string(c)?;
            }
            "name" => {
                seen.first(2)?;
                o.name = string(c)?;
            }
            "uid" => {
                seen.first(3)?;
                o.uid = string(c)?;
            }
            "controller" => {
                seen.first(4)?;
                o.controller = if c.null()? { None } else { Some(c.boolean()?) };
            }
            _ => c.skip_value()?,
        };
        Ok(())
    })?;
    Ok(o)
}

fn spec(c: &mut Cursor<'_>) -> Result<PodSpec, Miss> {
    let mut s = PodSpec::default();
    let mut seen = Seen::default();
    c.object(|c, key| {
        match key {
            "nodeName" => {
                seen.first(0)?;
                s.node_name = string(c)?;
            }
            "schedulerName" => {
                seen.first(1)?;
                s.scheduler_name = string(c)?;
            }
            "priority" => {
                seen.first(2)?;
                s.priority = if c.null()? { None } else { Some(c.int32()?) };
            }
            "priorityClassName" => {
                seen.first(3)?;
                s.priority_class_name = string(c)?;
            }
            "preemptionPolicy" => {
                seen.first(4)?;
                s.preemption_policy = opt_string(c)?;
            }
            "nodeSelector" => {
                seen.first(5)?;
                s.node_selector = string_map(c)?;
            }
            "affinity" => {
                seen.first(6)?;
                s.affinity = general(c)?;
            }
            "tolerations" => {
                seen.first(7)?;
                s.tolerations = general(c)?;
            }
            "containers" => {
                seen.first(8)?;
                s.containers = list(c, container)?;
            }
            "initContainers" => {
                seen.first(9)?;
                s.init_containers = list(c, container)?;
            }
            "overhead" => {
                seen.first(10)?;
                s.overhead = resource_list(c)?;
            }
            "resources" => {
                seen.first(11)?;
                s.resources = if c.null()? { None } else { Some(requirements(c)?) };
            }
            "schedulingGates" => {
                seen.first(12)?;
                s.scheduling_gates = general(c)?;
            }
            "topologySpreadConstraints" => {
                seen.first(13)?;
                s.topology_spread_constraints = general(c)?;
            }
            "volumes" => {
                seen.first(14)?;
                s.volumes = general(c)?;
            }
            "hostNetwork" => {
                seen.first(15)?;
                s.host_network = !c.null()? && c.boolean()?;
            }
            "resourceClaims" => {
                seen.first(16)?;
                s.resource_claims = general(c)?;
            }
            _ => c.skip_value()?,
        };
        Ok(())
    })?;
    Ok(s)
}

fn container(c: &mut Cursor<'_>) -> Result<Container, Miss> {
    let mut k = Container::default();
    let mut seen = Seen::default();
    c.object(|c, key| {
        match key {
            "name" => {
                seen.first(0)?;
                k.name = string(c)?;
            }
            "image" => {
                seen.first(1)?;
                k.image = string(c)?;
            }
            "resources" => {
                seen.first(2)?;
                k.resources = structure(c, requirements)?;
            }
            "ports" => {
                seen.first(3)?;
                k.ports = general(c)?;
            }
            "restartPolicy" => {
                seen.first(4)?;
                k.restart_policy = opt_string(c)?;
            }
            _ => c.skip_value()?,
        };
        Ok(())
    })?;
    Ok(k)
}

fn requirements(c: &mut Cursor<'_>) -> Result<ResourceRequirements, Miss> {
    let mut r = ResourceRequirements::default();
    let mut seen = Seen::default();
    c.object(|c, key| {
        match key {
            "requests" => {
                seen.first(0)?;
                r.requests = resource_list(c)?;
            }
            "limits" => {
                seen.first(1)?;
                r.limits = resource_list(c)?;
            }
            _ => c.skip_value()?,
        };
        Ok(())
    })?;
    Ok(r)
}

fn status(c: &mut Cursor<'_>) -> Result<PodStatus, Miss> {
    let mut s = PodStatus::default();
    let mut seen = Seen::default();
    c.object(|c, key| {
        match key {
            "phase" => {
                seen.first(0)?;
                s.phase = string(c)?;
            }
            "conditions" => {
                seen.first(1)?;
                s.conditions = list(c, condition)?;
            }
            "nominatedNodeName" => {
                seen.first(2)?;
                s.nominated_node_name = string(c)?;
            }
            "startTime" => {
                seen.first(3)?;
                s.start_time = opt_string(c)?;
            }
            _ => c.skip_value()?,
        };
        Ok(())
    })?;
    Ok(s)
}

fn condition(c: &mut Cursor<'_>) -> Result<PodCondition, Miss> {
    let mut k = PodCondition::default();
    let mut seen = Seen::default();
    c.object(|c, key| {
        match key {
            "type" => {
                seen.first(0)?;
                k.type_ = string(c)?;
            }
            "status" => {
                seen.first(1)?;
                k.status = string(c)?;
            }
            "reason" => {
                seen.first(2)?;
                k.reason = opt_string(c)?;
            }
            "message" => {
                seen.first(3)?;
                k.message = opt_string(c)?;
            }
            "lastProbeTime" => {
                seen.first(4)?;
                k.last_probe_time = opt_string(c)?;
            }
            "lastTransitionTime" => {
                seen.first(5)?;
                k.last_transition_time = opt_string(c)?;
            }
            _ => c.skip_value()?,
        };
        Ok(())
    })?;
    Ok(k)
}
