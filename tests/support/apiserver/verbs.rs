//! Object semantics shared by HTTP handlers and the test-facing helpers: create (name, uid,
//! timestamps, AlreadyExists), update with optimistic concurrency, status/spec separation for
//! resources with a `/status` subresource, the three patch flavours, and delete with
//! preconditions (`k8s.io/apiserver/pkg/registry/generic/registry/store.go`).

use super::admission;
use super::clock;
use super::dra;
use super::patch;
use super::resources::{self, ResourceType, RESOURCES};
use super::status::{self, ApiError};
use super::store::{ObjKey, Store};
use serde_json::{json, Value};
use std::time::SystemTime;

/// Which part of an object a write addresses.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Part {
    /// The main resource (status changes are ignored where `/status` exists).
    Main,
    /// The `/status` subresource (only status changes).
    Status,
}

/// How a PATCH body is interpreted.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PatchKind {
    /// `application/merge-patch+json`.
    Merge,
    /// `application/strategic-merge-patch+json`.
    Strategic,
    /// `application/json-patch+json`.
    Json,
}

impl PatchKind {
    /// From a Content-Type header.
    pub fn from_content_type(ct: &str) -> Result<PatchKind, ApiError> {
        match ct.split(';').next().unwrap_or("").trim() {
            "application/merge-patch+json" => Ok(PatchKind::Merge),
            "application/strategic-merge-patch+json" => Ok(PatchKind::Strategic),
            "application/json-patch+json" => Ok(PatchKind::Json),
            other => Err(status::unsupported_media_type(other)),
        }
    }
}

/// `names.MaxGeneratedNameLength`: 63 characters less the 5 random ones.
const MAX_GENERATED_NAME_PREFIX: usize = 58;

fn res_of(key: &ObjKey) -> &'static ResourceType {
    &RESOURCES[key.res]
}

fn meta_str<'a>(obj: &'a Value, field: &str) -> &'a str {
    obj["metadata"][field].as_str().unwrap_or("")
}

fn is_pod(res: &ResourceType) -> bool {
    res.group.is_empty() && res.plural == "pods"
}

/// Fill kind/apiVersion and make sure `metadata` is an object.
fn normalize(res: &ResourceType, obj: &mut Value) -> Result<(), ApiError> {
    if !obj.is_object() {
        return Err(status::bad_request("the body of the request must be a JSON object"));
    }
    if let Some(kind) = obj["kind"].as_str() {
        if !kind.is_empty() && kind != res.kind {
            return Err(status::bad_request(&format!(
                "the API version in the data ({}) does not match the expected API version ({})",
                obj["apiVersion"].as_str().unwrap_or(""),
                res.api_version()
            )));
        }
    }
    obj["kind"] = json!(res.kind);
    obj["apiVersion"] = json!(res.api_version());
    if !obj["metadata"].is_object() {
        obj["metadata"] = json!({});
    }
    Ok(())
}

/// Create an object in collection `res`/`ns`.
pub fn create(store: &mut Store, res_id: usize, ns: &str, mut obj: Value, now: SystemTime) -> Result<Value, ApiError> {
    let res = &RESOURCES[res_id];
    normalize(res, &mut obj)?;
    if meta_str(&obj, "name").is_empty() {
        let prefix = meta_str(&obj, "generateName").to_string();
        if prefix.is_empty() {
            return Err(status::invalid(
                res,
                "",
                "metadata.name",
                "FieldValueRequired",
                "Required value: name or generateName is required",
            ));
        }
        // `names.SimpleNameGenerator`: the prefix is cut so that the name fits 63 characters.
        let base: String = prefix.chars().take(MAX_GENERATED_NAME_PREFIX).collect();
        obj["metadata"]["name"] = json!(format!("{base}{}", clock::name_suffix()));
    }
    let name = meta_str(&obj, "name").to_string();
    if res.namespaced {
        let given = meta_str(&obj, "namespace");
        if !given.is_empty() && given != ns {
            return Err(status::bad_request(
                "the namespace of the provided object does not match the namespace sent on the request",
            ));
        }
        obj["metadata"]["namespace"] = json!(ns);
    } else if let Some(m) = obj["metadata"].as_object_mut() {
        m.remove("namespace");
    }
    admission::check_namespace(store, res, ns)?;
    // The create strategy and validation run before storage finds a name taken.
    dra::prepare_create(res, &mut obj, store.dra_gates())?;
    let key = ObjKey::new(res_id, if res.namespaced { ns } else { "" }, &name);
    if store.get(&key).is_some() {
        return Err(status::already_exists(res, &name));
    }
    if is_pod(res) {
        admission::admit_pod_create(store, &mut obj)?;
    }
    if let Some(m) = obj["metadata"].as_object_mut() {
        m.remove("resourceVersion");
        m.remove("deletionTimestamp");
        m.insert("uid".into(), json!(clock::uuid()));
        m.insert("creationTimestamp".into(), json!(clock::rfc3339(now)));
    }
    Ok(store.insert(key, obj))
}

/// The current object or 404.
pub fn get(store: &Store, key: &ObjKey) -> Result<Value, ApiError> {
    store.get(key).cloned().ok_or_else(|| status::not_found(res_of(key), &key.name))
}

/// Validate and store `new` as the next state of the object at `key`, whose current state is
/// `old`: name check, resourceVersion precondition, immutable metadata, spec/status split.
fn commit(store: &mut Store, key: &ObjKey, part: Part, old: Value, mut new: Value) -> Result<Value, ApiError> {
    let res = res_of(key);
    normalize(res, &mut new)?;
    let name = meta_str(&new, "name");
    if !name.is_empty() && name != key.name {
        return Err(status::bad_request(&format!(
            "the name of the object ({name}) does not match the name on the URL ({})",
            key.name
        )));
    }
    let rv = meta_str(&new, "resourceVersion");
    if !rv.is_empty() && rv != meta_str(&old, "resourceVersion") {
        return Err(status::object_modified(res, &key.name));
    }
    let mut next = match (res.status_subresource, part) {
        (true, Part::Status) => {
            let mut next = old.clone();
            next["status"] = new["status"].clone();
            next
        }
        (true, Part::Main) => {
            match old.get("status") {
                Some(s) => new["status"] = s.clone(),
                None => {
                    if let Some(m) = new.as_object_mut() {
                        m.remove("status");
                    }
                }
            }
            new
        }
        (false, _) => new,
    };
    for field in ["name", "namespace", "uid", "creationTimestamp", "deletionTimestamp", "deletionGracePeriodSeconds"] {
        match old["metadata"].get(field) {
            Some(v) => next["metadata"][field] = v.clone(),
            None => {
                if let Some(m) = next["metadata"].as_object_mut() {
                    m.remove(field);
                }
            }
        }
    }
    if is_pod(res) && part == Part::Main {
        admission::validate_pod_update(&old, &next)?;
    }
    dra::prepare_update(res, part, &old, &mut next, store.dra_gates())?;
    if res.group == resources::RBAC_GROUP && res.plural.ends_with("bindings") && old.get("roleRef") != next.get("roleRef") {
        return Err(role_ref_changed(res, &key.name, &next["roleRef"]));
    }
    if finalized(&old, &next) {
        // The stored state (finalizers and all) is what the DELETED event carries.
        return store.remove(key).ok_or_else(|| status::not_found(res, &key.name));
    }
    Ok(store.replace(key, next))
}

fn has_finalizers(obj: &Value) -> bool {
    obj["metadata"]["finalizers"].as_array().is_some_and(|f| !f.is_empty())
}

/// `ShouldDeleteDuringUpdate` (k8s.io/apiserver/pkg/registry/generic/registry/store.go, commit
/// 0021a864a65a17f2ad15b60545ef41fdfc30cc4c): an update that leaves no finalizers on an object
/// whose deletion was requested (deletionTimestamp set, grace period nil or 0) deletes it.
fn finalized(old: &Value, next: &Value) -> bool {
    let grace = old["metadata"]["deletionGracePeriodSeconds"].as_i64().unwrap_or(0);
    !has_finalizers(next) && !old["metadata"]["deletionTimestamp"].is_null() && grace == 0
}

/// 422 for a binding update that changes `roleRef` (`ValidateRoleBindingUpdate`), which upstream
/// words with the Go value of the internal `rbac.RoleRef`.
fn role_ref_changed(res: &ResourceType, name: &str, role_ref: &Value) -> ApiError {
    let field = |k: &str| status::quote(role_ref[k].as_str().unwrap_or(""));
    let value = format!("rbac.RoleRef{{APIGroup:{}, Kind:{}, Name:{}}}", field("apiGroup"), field("kind"), field("name"));
    let detail = format!("Invalid value: {value}: cannot change roleRef");
    let mut details = serde_json::Map::new();
    details.insert("name".into(), json!(name));
    details.insert("group".into(), json!(res.group));
    details.insert("kind".into(), json!(res.kind));
    details.insert("causes".into(), json!([{"reason": "FieldValueInvalid", "message": detail, "field": "roleRef"}]));
    let message = format!("{}.{} {} is invalid: roleRef: {detail}", res.kind, res.group, status::quote(name));
    status::failure(422, "Invalid", &message, details)
}

/// PUT: replace the object (or its status).
pub fn update(store: &mut Store, key: &ObjKey, part: Part, new: Value) -> Result<Value, ApiError> {
    let old = get(store, key)?;
    commit(store, key, part, old, new)
}

/// PATCH: apply `body` to the current object, then store as an update.
pub fn patch(store: &mut Store, key: &ObjKey, part: Part, kind: PatchKind, body: &Value) -> Result<Value, ApiError> {
    let old = get(store, key)?;
    let patched = patched(store, key, kind, body)?;
    commit(store, key, part, old, patched)
}

/// The object at `key` with `body` applied, not stored (to check it before an update).
pub fn patched(store: &Store, key: &ObjKey, kind: PatchKind, body: &Value) -> Result<Value, ApiError> {
    let mut patched = get(store, key)?;
    match kind {
        PatchKind::Merge => patch::merge_patch(&mut patched, body),
        PatchKind::Strategic => patch::strategic_merge_patch(&mut patched, body),
        PatchKind::Json => {
            patch::json_patch(&mut patched, body).map_err(|e| status::failure(422, "Invalid", &e, Default::default()))?
        }
    }
    Ok(patched)
}

/// What a DELETE did.
#[derive(Debug, Clone)]
pub enum Deleted {
    /// The object is gone; its last state.
    Gone(Value),
    /// Graceful pod deletion started, or finalizers pending: the object with `deletionTimestamp`
    /// set, still stored.
    Terminating(Value),
}

/// DELETE with optional `preconditions` (uid, resourceVersion) and grace period. Pods bound to a
/// node are only marked terminating when `graceful` is set (a kubelet would finish the job). An
/// object with finalizers is never removed here (`Store.Delete` and
/// `updateForGracefulDeletionAndFinalizers` in k8s.io/apiserver/pkg/registry/generic/registry/
/// store.go, commit 0021a864a65a17f2ad15b60545ef41fdfc30cc4c): it is marked deleting
/// (`markAsDeleting`: deletionTimestamp now unless already earlier, deletionGracePeriodSeconds 0)
/// and stays until an update empties its finalizers ([`finalized`]).
pub fn delete(store: &mut Store, key: &ObjKey, options: &Value, graceful: bool, now: SystemTime) -> Result<Deleted, ApiError> {
    let res = res_of(key);
    let current = get(store, key)?;
    if let Some(uid) = options["preconditions"]["uid"].as_str() {
        let actual = meta_str(&current, "uid");
        if uid != actual {
            return Err(status::uid_precondition_failed(res, &key.name, uid, actual));
        }
    }
    if let Some(rv) = options["preconditions"]["resourceVersion"].as_str() {
        let actual = meta_str(&current, "resourceVersion");
        if rv != actual {
            let why =
                format!("Precondition failed: ResourceVersion in precondition: {rv}, ResourceVersion in object meta: {actual}");
            return Err(status::conflict(&res.qualified(), res.group, res.plural, &key.name, &why));
        }
    }
    let grace = options["gracePeriodSeconds"]
        .as_i64()
        .or_else(|| current["spec"]["terminationGracePeriodSeconds"].as_i64())
        .unwrap_or(30);
    let bound = !current["spec"]["nodeName"].as_str().unwrap_or("").is_empty();
    if graceful && is_pod(res) && bound && grace > 0 && current["metadata"]["deletionTimestamp"].is_null() {
        let mut next = current.clone();
        let at = now + std::time::Duration::from_secs(grace as u64);
        next["metadata"]["deletionTimestamp"] = json!(clock::rfc3339(at));
        next["metadata"]["deletionGracePeriodSeconds"] = json!(grace);
        return Ok(Deleted::Terminating(store.replace(key, next)));
    }
    if has_finalizers(&current) {
        let mut next = current.clone();
        let at = clock::rfc3339(now);
        // RFC 3339 UTC timestamps of one format order as text.
        if next["metadata"]["deletionTimestamp"].as_str().is_none_or(|t| t > at.as_str()) {
            next["metadata"]["deletionTimestamp"] = json!(at);
        }
        next["metadata"]["deletionGracePeriodSeconds"] = json!(0);
        return Ok(Deleted::Terminating(store.replace(key, next)));
    }
    store.remove(key).map(Deleted::Gone).ok_or_else(|| status::not_found(res, &key.name))
}

/// The body a DELETE answers with: pods and namespaces return the object
/// (`ReturnDeletedObject`), everything else a Success Status with details.
pub fn delete_response(key: &ObjKey, deleted: &Deleted) -> Value {
    let res = res_of(key);
    match deleted {
        Deleted::Terminating(obj) => obj.clone(),
        Deleted::Gone(obj) if is_pod(res) || key.res == resources::namespaces() => obj.clone(),
        Deleted::Gone(obj) => status::success(None, Some(status::deleted_details(res, &key.name, meta_str(obj, "uid")))),
    }
}
