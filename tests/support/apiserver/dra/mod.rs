//! The registry strategies of resource.k8s.io/v1 (`pkg/registry/resource/*/strategy.go`,
//! kubernetes/kubernetes): what the API server does to a DeviceClass, ResourceSlice,
//! ResourceClaim or ResourceClaimTemplate on its way into storage beyond the generic create and
//! update, and the validation that answers 422.
//!
//! - DeviceClass and ResourceSlice: `metadata.generation` 1 on create, +1 on a spec change.
//! - ResourceSlice: fields of v1.35's alpha gates (device taints, partitionable devices, binding
//!   conditions, consumable capacity) are dropped unless the gate is on or the stored slice
//!   already uses them (`dropDisabledFields`).
//! - ResourceClaim: the v1 defaults, an empty status on create, the spec immutable; a status write
//!   keeps spec and metadata (`ResetObjectMetaForStatus`), drops the statuses of deallocated
//!   devices and is validated ([`claim_status`]).
//! - ResourceClaimTemplate: the defaults and checks of its `spec.spec`, the spec immutable.
//!
//! Every update keeps the stored `generation` (`rest.BeforeUpdate`), so a client cannot set it.

pub mod claim_spec;
pub mod claim_status;
pub mod names;

use super::field_errors::{self, BadValue, FieldError};
use super::resources::{ResourceType, RESOURCE_GROUP};
use super::status::ApiError;
use super::verbs::Part;
use serde_json::{json, Value};

/// The resource.k8s.io feature gates that are alpha (off) in v1.35 and change what the API
/// server stores. Default: all off, as on a v1.35 cluster with default gates.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct DraAlphaGates {
    /// `DRADeviceTaints`: `spec.devices[].taints` of ResourceSlices.
    pub device_taints: bool,
    /// `DRAPartitionableDevices`: shared counters and per-device node selection.
    pub partitionable_devices: bool,
    /// `DRADeviceBindingConditions`: binding conditions of devices.
    pub device_binding_conditions: bool,
    /// `DRAConsumableCapacity`: multiple allocations of a device and capacity request policies.
    pub consumable_capacity: bool,
}

impl DraAlphaGates {
    /// Every gate on, as on a cluster that enabled them all.
    pub fn all() -> DraAlphaGates {
        DraAlphaGates {
            device_taints: true,
            partitionable_devices: true,
            device_binding_conditions: true,
            consumable_capacity: true,
        }
    }
}

/// `apiequality.Semantic.DeepEqual` on JSON: its forked `reflect.DeepEqual` takes a nil and an
/// empty slice or map for equal, and JSON from Go omits empty (and nil) ones, so absent, `null`,
/// `[]` and `{}` compare equal here.
pub fn semantic_eq(a: &Value, b: &Value) -> bool {
    normalized(a) == normalized(b)
}

fn is_empty(v: &Value) -> bool {
    match v {
        Value::Null => true,
        Value::Array(a) => a.is_empty(),
        Value::Object(o) => o.is_empty(),
        _ => false,
    }
}

fn normalized(v: &Value) -> Value {
    match v {
        Value::Object(o) => {
            Value::Object(o.iter().map(|(k, v)| (k.clone(), normalized(v))).filter(|(_, v)| !is_empty(v)).collect())
        }
        Value::Array(a) => Value::Array(a.iter().map(normalized).collect()),
        other => other.clone(),
    }
}

/// The value at `path` below `v`, if every step exists: unlike `v["a"]["b"]` on a `&mut`,
/// this never inserts `null` on the way.
pub fn at_mut<'a>(v: &'a mut Value, path: &[&str]) -> Option<&'a mut Value> {
    path.iter().try_fold(v, |v, k| v.get_mut(*k))
}

fn is_dra(res: &ResourceType) -> bool {
    res.group == RESOURCE_GROUP
}

fn name_of(obj: &Value) -> String {
    obj["metadata"]["name"].as_str().unwrap_or("").to_string()
}

fn remove(obj: &mut Value, key: &str) {
    if let Some(m) = obj.as_object_mut() {
        m.remove(key);
    }
}

/// What the create strategy does to `obj` (already named and namespaced); `Err` is the 422.
pub fn prepare_create(res: &ResourceType, obj: &mut Value, gates: DraAlphaGates) -> Result<(), ApiError> {
    if !is_dra(res) {
        return Ok(());
    }
    let name = name_of(obj);
    match res.plural {
        "deviceclasses" => obj["metadata"]["generation"] = json!(1),
        "resourceslices" => {
            obj["metadata"]["generation"] = json!(1);
            drop_disabled_slice_fields(obj, None, gates);
        }
        "resourceclaims" => {
            if let Some(spec) = at_mut(obj, &["spec"]) {
                claim_spec::set_defaults(spec);
            }
            // The status is reset; the empty struct is still written (`"status":{}`).
            obj["status"] = json!({});
            field_errors::check(res, &name, claim_spec::validate(&obj["spec"], "spec"))?;
        }
        "resourceclaimtemplates" => {
            if let Some(spec) = at_mut(obj, &["spec", "spec"]) {
                claim_spec::set_defaults(spec);
            }
            field_errors::check(res, &name, claim_spec::validate(&obj["spec"]["spec"], "spec.spec"))?;
        }
        _ => {}
    }
    Ok(())
}

/// What the update strategy does to `next` (the stored object `old` with the write applied and
/// the generic spec/status split done); `Err` is the 422.
pub fn prepare_update(
    res: &ResourceType,
    part: Part,
    old: &Value,
    next: &mut Value,
    gates: DraAlphaGates,
) -> Result<(), ApiError> {
    if !is_dra(res) {
        return Ok(());
    }
    let name = name_of(old);
    match old["metadata"].get("generation") {
        Some(g) => next["metadata"]["generation"] = g.clone(),
        None => remove(&mut next["metadata"], "generation"),
    }
    let spec_changed = |next: &Value| !semantic_eq(&next["spec"], &old["spec"]);
    match (res.plural, part) {
        ("deviceclasses", _) => bump_generation(next, spec_changed(next)),
        ("resourceslices", _) => {
            drop_disabled_slice_fields(next, Some(old), gates);
            bump_generation(next, spec_changed(next));
        }
        ("resourceclaims", Part::Main) => {
            if let Some(spec) = at_mut(next, &["spec"]) {
                claim_spec::set_defaults(spec);
            }
            field_errors::check(res, &name, immutable_spec(next, old))?;
        }
        ("resourceclaims", Part::Status) => {
            claim_status::drop_deallocated_devices(next, old);
            field_errors::check(res, &name, claim_status::validate_update(next, old))?;
        }
        ("resourceclaimtemplates", _) => {
            if let Some(spec) = at_mut(next, &["spec", "spec"]) {
                claim_spec::set_defaults(spec);
            }
            field_errors::check(res, &name, immutable_spec(next, old))?;
        }
        _ => {}
    }
    Ok(())
}

fn bump_generation(next: &mut Value, changed: bool) {
    if changed {
        let g = next["metadata"]["generation"].as_i64().unwrap_or(0);
        next["metadata"]["generation"] = json!(g.saturating_add(1));
    }
}

/// `ValidateImmutableField(spec, oldSpec, "spec")`.
fn immutable_spec(next: &Value, old: &Value) -> Vec<FieldError> {
    if semantic_eq(&next["spec"], &old["spec"]) {
        return Vec::new();
    }
    vec![FieldError::invalid("spec", BadValue::Json(next["spec"].clone()), "field is immutable")]
}

/// The per-device fields each gate covers.
const TAINT_FIELDS: &[&str] = &["taints"];
const PARTITIONABLE_FIELDS: &[&str] = &["consumesCounters", "nodeName", "nodeSelector", "allNodes"];
const BINDING_FIELDS: &[&str] = &["bindingConditions", "bindingFailureConditions", "bindsToNode"];

fn devices(slice: &Value) -> &[Value] {
    slice["spec"]["devices"].as_array().map(Vec::as_slice).unwrap_or(&[])
}

fn device_uses(slice: Option<&Value>, fields: &[&str]) -> bool {
    slice.is_some_and(|s| devices(s).iter().any(|d| fields.iter().any(|f| !is_empty(&d[*f]))))
}

fn uses_consumable_capacity(slice: Option<&Value>) -> bool {
    slice.is_some_and(|s| {
        devices(s).iter().any(|d| {
            !d["allowMultipleAllocations"].is_null()
                || d["capacity"].as_object().is_some_and(|c| c.values().any(|q| !q["requestPolicy"].is_null()))
        })
    })
}

fn drop_device_fields(slice: &mut Value, fields: &[&str]) {
    if let Some(devices) = at_mut(slice, &["spec", "devices"]).and_then(Value::as_array_mut) {
        for d in devices {
            for f in fields {
                remove(d, f);
            }
        }
    }
}

/// `dropDisabledFields` of the ResourceSlice strategy for the gates of [`DraAlphaGates`].
fn drop_disabled_slice_fields(slice: &mut Value, old: Option<&Value>, gates: DraAlphaGates) {
    if !gates.device_taints && !device_uses(old, TAINT_FIELDS) {
        drop_device_fields(slice, TAINT_FIELDS);
    }
    let partitionable_in_use = device_uses(old, PARTITIONABLE_FIELDS)
        || old.is_some_and(|o| !is_empty(&o["spec"]["sharedCounters"]) || !o["spec"]["perDeviceNodeSelection"].is_null());
    if !gates.partitionable_devices && !partitionable_in_use {
        if let Some(spec) = at_mut(slice, &["spec"]) {
            remove(spec, "sharedCounters");
            remove(spec, "perDeviceNodeSelection");
        }
        drop_device_fields(slice, PARTITIONABLE_FIELDS);
    }
    if !gates.device_binding_conditions && !device_uses(old, BINDING_FIELDS) {
        drop_device_fields(slice, BINDING_FIELDS);
    }
    if !gates.consumable_capacity && !uses_consumable_capacity(old) {
        drop_device_fields(slice, &["allowMultipleAllocations"]);
        if let Some(devices) = at_mut(slice, &["spec", "devices"]).and_then(Value::as_array_mut) {
            for capacity in devices.iter_mut().filter_map(|d| at_mut(d, &["capacity"]).and_then(Value::as_object_mut)) {
                capacity.values_mut().for_each(|q| remove(q, "requestPolicy"));
            }
        }
    }
}
