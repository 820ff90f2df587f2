//! A ResourceClaim spec (also a template's `spec.spec`) as the API server takes it in: the v1
//! defaults (`pkg/apis/resource/v1/defaults.go`: an exact request or subrequest without
//! `allocationMode` gets `ExactCount`, an `ExactCount` one without `count` gets 1, a toleration
//! without `operator` gets `Equal`) and the structural checks of `validateDeviceClaim`
//! (`pkg/apis/resource/validation/validation.go`): the request set, exactly one of `exactly` and
//! `firstAvailable`, class names, allocation modes, and references to request names from
//! constraints and config. CEL selectors and attribute names are not checked here.

use super::super::field_errors::{BadValue, FieldError};
use super::at_mut;
use super::names::{dns1123_label, dns1123_subdomain};
use serde_json::{json, Value};
use std::collections::BTreeMap;

/// `resource.DeviceRequestsMaxSize` (also the limit of constraints, config and their
/// request lists: `DeviceConstraintsMaxSize`, `DeviceConfigMaxSize`).
pub const REQUESTS_MAX: usize = 32;
/// `resource.FirstAvailableDeviceRequestMaxSize`.
const FIRST_AVAILABLE_MAX: usize = 8;

fn items(v: &Value) -> &[Value] {
    v.as_array().map(Vec::as_slice).unwrap_or(&[])
}

fn str_at<'a>(v: &'a Value, key: &str) -> &'a str {
    v[key].as_str().unwrap_or("")
}

/// Apply the v1 defaults to `devices.requests` of a claim spec.
pub fn set_defaults(spec: &mut Value) {
    let Some(requests) = at_mut(spec, &["devices", "requests"]).and_then(Value::as_array_mut) else { return };
    for request in requests {
        if let Some(exactly) = at_mut(request, &["exactly"]).filter(|e| e.is_object()) {
            default_exact(exactly);
        }
        if let Some(subs) = at_mut(request, &["firstAvailable"]).and_then(Value::as_array_mut) {
            subs.iter_mut().filter(|s| s.is_object()).for_each(default_exact);
        }
    }
}

fn default_exact(r: &mut Value) {
    if str_at(r, "allocationMode").is_empty() {
        r["allocationMode"] = json!("ExactCount");
    }
    if r["allocationMode"] == "ExactCount" && r["count"].as_i64().unwrap_or(0) == 0 {
        r["count"] = json!(1);
    }
    if let Some(tolerations) = at_mut(r, &["tolerations"]).and_then(Value::as_array_mut) {
        for t in tolerations.iter_mut().filter(|t| t.is_object()) {
            if str_at(t, "operator").is_empty() {
                t["operator"] = json!("Equal");
            }
        }
    }
}

/// The request names of a claim and, for `firstAvailable` requests, their subrequest names
/// (`gatherRequestNames`).
#[derive(Debug, Clone, Default)]
pub struct RequestNames(BTreeMap<String, Option<Vec<String>>>);

impl RequestNames {
    /// The names in a claim spec.
    pub fn of(spec: &Value) -> RequestNames {
        let mut names = BTreeMap::new();
        for request in items(&spec["devices"]["requests"]) {
            let subs: Vec<String> = items(&request["firstAvailable"]).iter().map(|s| str_at(s, "name").to_string()).collect();
            names.insert(str_at(request, "name").to_string(), if subs.is_empty() { None } else { Some(subs) });
        }
        RequestNames(names)
    }

    /// `requestNames.Has`: `req` or `req/sub` names a request (and subrequest) of the claim.
    fn has(&self, reference: &str) -> bool {
        let segments: Vec<&str> = reference.split('/').collect();
        match segments.as_slice() {
            [req] => self.0.contains_key(*req),
            [req, sub] => self.0.get(*req).is_some_and(|subs| subs.as_ref().is_some_and(|s| s.iter().any(|x| x == sub))),
            _ => false,
        }
    }
}

const REQUEST_REF_MSG: &str =
    "must be the name of a request in the claim or the name of a request and a subrequest separated by '/'";

/// `validateRequestNameRef`: a reference to a request (or `request/subrequest`) of the claim.
pub fn request_ref(reference: &str, field: &str, names: &RequestNames) -> Vec<FieldError> {
    let segments: Vec<&str> = reference.split('/').collect();
    if segments.len() > 2 {
        return vec![FieldError::invalid(field, BadValue::Str(reference.into()), REQUEST_REF_MSG)];
    }
    let mut errs: Vec<FieldError> = segments.iter().flat_map(|s| dns1123_label(s, field)).collect();
    if !names.has(reference) {
        errs.push(FieldError::invalid(field, BadValue::Str(reference.into()), REQUEST_REF_MSG));
    }
    errs
}

/// `validateSlice`: more than `max` items is the one error (it short-circuits), else each
/// item's errors.
pub fn validate_slice(
    list: &[Value],
    max: Option<usize>,
    field: &str,
    item: impl Fn(&Value, &str) -> Vec<FieldError>,
) -> Vec<FieldError> {
    if let Some(max) = max.filter(|m| list.len() > *m) {
        return vec![FieldError::too_many(field, list.len(), max)];
    }
    list.iter().enumerate().flat_map(|(i, v)| item(v, &format!("{field}[{i}]"))).collect()
}

/// `validateSet`: [`validate_slice`], then one `Duplicate` per item whose key came before.
pub fn validate_set<K: PartialEq>(
    list: &[Value],
    max: Option<usize>,
    field: &str,
    item: impl Fn(&Value, &str) -> Vec<FieldError>,
    key: impl Fn(&Value) -> (K, BadValue),
) -> Vec<FieldError> {
    let mut errs = validate_slice(list, max, field, item);
    if max.is_some_and(|m| list.len() > m) {
        return errs;
    }
    let mut seen: Vec<K> = Vec::new();
    for (i, v) in list.iter().enumerate() {
        let (k, shown) = key(v);
        if seen.contains(&k) {
            errs.push(FieldError::duplicate(&format!("{field}[{i}]"), shown));
        } else {
            seen.push(k);
        }
    }
    errs
}

fn string_key(v: &Value) -> (String, BadValue) {
    let s = v.as_str().unwrap_or("").to_string();
    (s.clone(), BadValue::Str(s))
}

/// A list of request references (`config[].requests`, `constraints[].requests`).
pub fn request_refs(list: &Value, field: &str, names: &RequestNames) -> Vec<FieldError> {
    validate_set(items(list), Some(REQUESTS_MAX), field, |v, f| request_ref(v.as_str().unwrap_or(""), f, names), string_key)
}

/// `validateDeviceClass`: required, a DNS subdomain.
fn device_class(name: &str, field: &str) -> Vec<FieldError> {
    if name.is_empty() {
        return vec![FieldError::required(field, "")];
    }
    dns1123_subdomain(name, field)
}

/// `validateDeviceAllocationMode`.
fn allocation_mode(r: &Value, field: &str) -> Vec<FieldError> {
    let count = r["count"].as_i64().unwrap_or(0);
    let count_field = format!("{field}.count");
    match str_at(r, "allocationMode") {
        "All" if count != 0 => {
            vec![FieldError::invalid(&count_field, BadValue::Int(count), "must not be specified when allocationMode is 'All'")]
        }
        "ExactCount" if count <= 0 => vec![FieldError::invalid(&count_field, BadValue::Int(count), "must be greater than zero")],
        "All" | "ExactCount" => Vec::new(),
        other => vec![FieldError::not_supported(&format!("{field}.allocationMode"), other, &["All", "ExactCount"])],
    }
}

fn exact_request(r: &Value, field: &str) -> Vec<FieldError> {
    let mut errs = device_class(str_at(r, "deviceClassName"), &format!("{field}.deviceClassName"));
    errs.extend(allocation_mode(r, field));
    errs
}

fn sub_request(r: &Value, field: &str) -> Vec<FieldError> {
    let mut errs = dns1123_label(str_at(r, "name"), &format!("{field}.name"));
    errs.extend(exact_request(r, field));
    errs
}

fn name_key(v: &Value) -> (String, BadValue) {
    let s = str_at(v, "name").to_string();
    (s.clone(), BadValue::Str(s))
}

/// `validateDeviceRequest`.
fn request(r: &Value, field: &str) -> Vec<FieldError> {
    let mut errs = dns1123_label(str_at(r, "name"), &format!("{field}.name"));
    let first_available = items(&r["firstAvailable"]);
    let exactly = r["exactly"].is_object();
    match (exactly, !first_available.is_empty()) {
        (false, false) => errs.push(FieldError::required(field, "exactly one of `exactly` or `firstAvailable` is required")),
        (true, true) => errs.push(FieldError::invalid(
            field,
            BadValue::Null,
            "exactly one of `exactly` or `firstAvailable` is required, but multiple fields are set",
        )),
        (false, true) => errs.extend(validate_set(
            first_available,
            Some(FIRST_AVAILABLE_MAX),
            &format!("{field}.firstAvailable"),
            sub_request,
            name_key,
        )),
        (true, false) => errs.extend(exact_request(&r["exactly"], &format!("{field}.exactly"))),
    }
    errs
}

/// `validateResourceClaimSpec` under `field` (`spec` for a claim, `spec.spec` for a template).
pub fn validate(spec: &Value, field: &str) -> Vec<FieldError> {
    let devices = &spec["devices"];
    let names = RequestNames::of(spec);
    let mut errs =
        validate_set(items(&devices["requests"]), Some(REQUESTS_MAX), &format!("{field}.devices.requests"), request, name_key);
    for list in ["constraints", "config"] {
        let refs = |c: &Value, f: &str| request_refs(&c["requests"], &format!("{f}.requests"), &names);
        errs.extend(validate_slice(items(&devices[list]), Some(REQUESTS_MAX), &format!("{field}.devices.{list}"), refs));
    }
    errs
}

#[cfg(test)]
#[allow(unused_imports)] // a bench includes this file with cfg(test) but without the #[test] functions
mod tests {
    //! Cases after `TestValidateClaim` (`pkg/apis/resource/validation/validation_resourceclaim_test.go`).

    use super::*;

    fn messages(errs: &[FieldError]) -> Vec<String> {
        errs.iter().map(FieldError::message).collect()
    }

    #[test]
    fn defaults_fill_mode_count_and_operator() {
        let mut spec = json!({"devices": {"requests": [
            {"name": "a", "exactly": {"deviceClassName": "gpu", "tolerations": [{"key": "k"}]}},
            {"name": "b", "exactly": {"deviceClassName": "gpu", "allocationMode": "All"}},
            {"name": "c", "firstAvailable": [{"name": "x", "deviceClassName": "gpu", "count": 2}]}]}});
        set_defaults(&mut spec);
        let r = &spec["devices"]["requests"];
        assert_eq!(
            (r[0]["exactly"]["allocationMode"].clone(), r[0]["exactly"]["count"].clone()),
            (json!("ExactCount"), json!(1))
        );
        assert_eq!(r[0]["exactly"]["tolerations"][0]["operator"], "Equal");
        assert_eq!(r[1]["exactly"].get("count"), None, "All takes no count");
        assert_eq!(
            (r[2]["firstAvailable"][0]["allocationMode"].clone(), r[2]["firstAvailable"][0]["count"].clone()),
            (json!("ExactCount"), json!(2))
        );
    }

    #[test]
    fn requests_are_a_set_with_one_kind_each() {
        let spec = json!({"devices": {"requests": [
            {"name": "a", "exactly": {"deviceClassName": "gpu", "allocationMode": "ExactCount", "count": 1}},
            {"name": "a", "exactly": {"deviceClassName": "", "allocationMode": "All", "count": 2}},
            {"name": "b"}],
            "config": [{"requests": ["a", "zz", "a/x"]}]}});
        assert_eq!(
            messages(&validate(&spec, "spec")),
            [
                "spec.devices.requests[1].exactly.deviceClassName: Required value",
                "spec.devices.requests[1].exactly.count: Invalid value: 2: must not be specified when allocationMode is 'All'",
                "spec.devices.requests[2]: Required value: exactly one of `exactly` or `firstAvailable` is required",
                "spec.devices.requests[1]: Duplicate value: \"a\"",
                "spec.devices.config[0].requests[1]: Invalid value: \"zz\": must be the name of a request in the claim or the name of a request and a subrequest separated by '/'",
                "spec.devices.config[0].requests[2]: Invalid value: \"a/x\": must be the name of a request in the claim or the name of a request and a subrequest separated by '/'",
            ]
        );
        let many: Vec<Value> = (0..33).map(|i| json!({"name": format!("r{i}"), "exactly": {"deviceClassName": "c"}})).collect();
        assert_eq!(
            messages(&validate(&json!({"devices": {"requests": many}}), "spec.spec")),
            ["spec.spec.devices.requests: Too many: 33: must have at most 32 items"]
        );
    }

    #[test]
    fn subrequests_are_referenced_with_a_slash() {
        let spec = json!({"devices": {"requests": [{"name": "gpu", "firstAvailable": [
            {"name": "big", "deviceClassName": "a", "allocationMode": "ExactCount", "count": 1},
            {"name": "small", "deviceClassName": "b", "allocationMode": "ExactCount", "count": 2}]}]}});
        let names = RequestNames::of(&spec);
        assert!(request_ref("gpu/small", "r", &names).is_empty());
        assert!(request_ref("gpu", "r", &names).is_empty());
        assert_eq!(request_ref("gpu/huge", "r", &names).len(), 1);
        assert_eq!(
            messages(&request_ref("gpu/small/x", "r", &names)),
            ["r: Invalid value: \"gpu/small/x\": must be the name of a request in the claim or the name of a request and a subrequest separated by '/'"]
        );
    }
}
