//! What the API server checks when a ResourceClaim's status is written, the write a scheduler
//! makes in PreBind and the resourceclaim controller when it releases a claim:
//! `validateResourceClaimStatusUpdate` and `validateAllocationResult` in
//! `pkg/apis/resource/validation/validation.go` (kubernetes/kubernetes, read in the version
//! with `validateSet`/`validateSlice` that short-circuit on size, as v1.35 has them):
//!
//! - `status.reservedFor`: at most 256 entries (`ResourceClaimReservedForMaxSize`; more is the
//!   one error), each with `resource`, `name` and `uid`, no two with the same `uid`;
//! - `status.devices`: each an allocated device of the claim, no device twice;
//! - `reservedFor` needs an allocation, and takes no new entries once the claim is being
//!   deleted;
//! - a set allocation cannot change (it can only be removed, which needs `reservedFor` empty);
//! - a new allocation: at most 32 results (`AllocationResultsMaxSize`), each naming a request
//!   (or `request/subrequest`) of the claim's spec and a valid driver, pool and device; its
//!   config entries with a source, request names and an opaque driver configuration; a node
//!   selector with at least one term.

use super::super::field_errors::{BadValue, FieldError};
use super::claim_spec::{request_ref, request_refs, validate_set, validate_slice, RequestNames, REQUESTS_MAX};
use super::names::{dns1123_label, driver_name, pool_name};
use super::{at_mut, semantic_eq};
use serde_json::Value;

/// `resource.ResourceClaimReservedForMaxSize`.
pub const RESERVED_FOR_MAX: usize = 256;
/// `resource.AllocationResultsMaxSize`.
const RESULTS_MAX: usize = 32;
/// `resource.OpaqueParametersMaxLength`.
const OPAQUE_PARAMETERS_MAX: usize = 10 * 1024;

fn items(v: &Value) -> &[Value] {
    v.as_array().map(Vec::as_slice).unwrap_or(&[])
}

fn str_at<'a>(v: &'a Value, key: &str) -> &'a str {
    v[key].as_str().unwrap_or("")
}

/// `structured.DeviceID` as its `String()` prints it: `driver/pool/device`.
fn device_id(d: &Value) -> String {
    format!("{}/{}/{}", str_at(d, "driver"), str_at(d, "pool"), str_at(d, "device"))
}

/// `structured.SharedDeviceID` as its `String()` prints it: `driver/pool/device[/shareID]`.
fn shared_device_id(d: &Value) -> String {
    let id = device_id(d);
    match d["shareID"].as_str() {
        Some(share) => format!("{id}/{share}"),
        None => id,
    }
}

/// `validateResourceClaimUserReference`.
fn consumer(r: &Value, field: &str) -> Vec<FieldError> {
    ["resource", "name", "uid"]
        .iter()
        .filter(|k| str_at(r, k).is_empty())
        .map(|k| FieldError::required(&format!("{field}.{k}"), ""))
        .collect()
}

fn uid_key(r: &Value) -> (String, BadValue) {
    let uid = str_at(r, "uid").to_string();
    (uid.clone(), BadValue::Str(uid))
}

fn device_key(d: &Value) -> (String, BadValue) {
    let id = shared_device_id(d);
    (id.clone(), BadValue::Text(id))
}

/// `validateDeviceStatus`, without the conditions and network data.
fn device_status(d: &Value, field: &str, allocated: &[String]) -> Vec<FieldError> {
    let mut errs = driver_name(str_at(d, "driver"), &format!("{field}.driver"));
    errs.extend(pool_name(str_at(d, "pool"), &format!("{field}.pool")));
    errs.extend(dns1123_label(str_at(d, "device"), &format!("{field}.device")));
    let id = shared_device_id(d);
    if !allocated.contains(&id) {
        errs.push(FieldError::invalid(field, BadValue::Text(id), "must be an allocated device in the claim"));
    }
    errs
}

/// `validateDeviceRequestAllocationResult`, without binding conditions and share IDs.
fn result(r: &Value, field: &str, names: &RequestNames) -> Vec<FieldError> {
    let mut errs = request_ref(str_at(r, "request"), &format!("{field}.request"), names);
    errs.extend(driver_name(str_at(r, "driver"), &format!("{field}.driver")));
    errs.extend(pool_name(str_at(r, "pool"), &format!("{field}.pool")));
    errs.extend(dns1123_label(str_at(r, "device"), &format!("{field}.device")));
    errs
}

/// `validateRawExtension` for new opaque parameters.
fn opaque_parameters(p: &Value, field: &str) -> Vec<FieldError> {
    match p {
        Value::Null => vec![FieldError::required(field, "")],
        Value::Object(_) if p.to_string().len() > OPAQUE_PARAMETERS_MAX => {
            vec![FieldError::too_long(field, OPAQUE_PARAMETERS_MAX)]
        }
        Value::Object(_) => Vec::new(),
        _ => vec![FieldError::invalid(field, BadValue::Str("<value omitted>".into()), "must be a valid JSON object")],
    }
}

/// `validateDeviceAllocationConfiguration`.
fn config(c: &Value, field: &str, names: &RequestNames) -> Vec<FieldError> {
    let source_field = format!("{field}.source");
    let mut errs = match str_at(c, "source") {
        "" => vec![FieldError::required(&source_field, "")],
        "FromClaim" | "FromClass" => Vec::new(),
        other => vec![FieldError::not_supported(&source_field, other, &["FromClaim", "FromClass"])],
    };
    errs.extend(request_refs(&c["requests"], &format!("{field}.requests"), names));
    let opaque = &c["opaque"];
    if opaque.is_object() {
        errs.extend(driver_name(str_at(opaque, "driver"), &format!("{field}.opaque.driver")));
        errs.extend(opaque_parameters(&opaque["parameters"], &format!("{field}.opaque.parameters")));
    } else {
        errs.push(FieldError::required(&format!("{field}.opaque"), ""));
    }
    errs
}

/// `validateAllocationResult` for an allocation being set.
fn new_allocation(a: &Value, field: &str, names: &RequestNames) -> Vec<FieldError> {
    let devices = &a["devices"];
    let results = |r: &Value, f: &str| result(r, f, names);
    let mut errs = validate_slice(items(&devices["results"]), Some(RESULTS_MAX), &format!("{field}.devices.results"), results);
    let configs = |c: &Value, f: &str| config(c, f, names);
    errs.extend(validate_slice(items(&devices["config"]), Some(2 * REQUESTS_MAX), &format!("{field}.devices.config"), configs));
    let selector = &a["nodeSelector"];
    if selector.is_object() && items(&selector["nodeSelectorTerms"]).is_empty() {
        errs.push(FieldError::required(
            &format!("{field}.nodeSelector.nodeSelectorTerms"),
            "must have at least one node selector term",
        ));
    }
    errs
}

/// The errors of writing `new` (spec and metadata already taken from `old` by the status
/// strategy) over `old`.
pub fn validate_update(new: &Value, old: &Value) -> Vec<FieldError> {
    let status = &new["status"];
    let old_status = &old["status"];
    let names = RequestNames::of(&new["spec"]);
    let reserved = items(&status["reservedFor"]);
    let mut errs = validate_set(reserved, Some(RESERVED_FOR_MAX), "status.reservedFor", consumer, uid_key);
    let allocated: Vec<String> = items(&status["allocation"]["devices"]["results"]).iter().map(shared_device_id).collect();
    let device = |d: &Value, f: &str| device_status(d, f, &allocated);
    errs.extend(validate_set(items(&status["devices"]), None, "status.devices", device, device_key));
    let allocation = &status["allocation"];
    let old_allocation = &old_status["allocation"];
    if !reserved.is_empty() {
        if allocation.is_null() {
            errs.push(FieldError::forbidden("status.reservedFor", "may not be specified when `allocated` is not set"));
        } else if !new["metadata"]["deletionTimestamp"].is_null() {
            let before = items(&old_status["reservedFor"]);
            if reserved.iter().any(|r| !before.iter().any(|b| semantic_eq(b, r))) {
                errs.push(FieldError::forbidden(
                    "status.reservedFor",
                    "new entries may not be added while `deallocationRequested` or `deletionTimestamp` are set",
                ));
            }
        }
    }
    match (old_allocation.is_null(), allocation.is_null()) {
        (false, false) if !semantic_eq(allocation, old_allocation) => {
            errs.push(FieldError::invalid("status.allocation", BadValue::Json(allocation.clone()), "field is immutable"));
        }
        (true, false) => errs.extend(new_allocation(allocation, "status.allocation", &names)),
        _ => {}
    }
    errs
}

/// `dropDeallocatedStatusDevices` (the claim status strategy): device statuses of devices the
/// write deallocates go with them.
pub fn drop_deallocated_devices(new: &mut Value, old: &Value) {
    let old_ids: Vec<String> = items(&old["status"]["allocation"]["devices"]["results"]).iter().map(device_id).collect();
    let new_ids: Vec<String> = items(&new["status"]["allocation"]["devices"]["results"]).iter().map(device_id).collect();
    let gone: Vec<&String> = old_ids.iter().filter(|id| !new_ids.contains(id)).collect();
    let Some(devices) = at_mut(new, &["status", "devices"]).and_then(Value::as_array_mut) else { return };
    devices.retain(|d| !gone.contains(&&device_id(d)));
    if devices.is_empty() {
        if let Some(status) = at_mut(new, &["status"]).and_then(Value::as_object_mut) {
            status.remove("devices");
        }
    }
}
