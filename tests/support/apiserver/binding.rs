//! `POST pods/{name}/binding`, the scheduler's one write that matters: the checks and messages
//! of `BindingREST.Create` / `setPodNodeAndMetadata` in `pkg/registry/core/pod/storage/
//! storage.go` (UID precondition, being deleted, already assigned), and on success `nodeName`
//! plus a `PodScheduled=True` condition, with `status.nominatedNodeName` cleared.

use super::resources::{self, RESOURCES};
use super::status::{self, ApiError};
use super::store::{ObjKey, Store};
use serde_json::{json, Value};

/// Bind pod `ns/name` as described by a v1 Binding body; returns the node name on success.
pub fn bind(store: &mut Store, ns: &str, name: &str, binding: &Value, transition_time: &str) -> Result<String, ApiError> {
    let pods = &RESOURCES[resources::pods()];
    let binding_name = binding["metadata"]["name"].as_str().unwrap_or("");
    if !binding_name.is_empty() && binding_name != name {
        return Err(status::bad_request("name in URL does not match name in Binding object"));
    }
    let node = binding["target"]["name"].as_str().unwrap_or("").to_string();
    if node.is_empty() {
        return Err(status::invalid(pods, name, "target.name", "FieldValueRequired", "Required value"));
    }
    let key = ObjKey::new(resources::pods(), ns, name);
    let pod = store.get(&key).cloned().ok_or_else(|| status::not_found(pods, name))?;
    let uid = binding["metadata"]["uid"].as_str().unwrap_or("");
    let actual_uid = pod["metadata"]["uid"].as_str().unwrap_or("");
    if !uid.is_empty() && uid != actual_uid {
        return Err(status::uid_precondition_failed(pods, name, uid, actual_uid));
    }
    let conflict = |why: String| status::conflict("pods/binding", "", "pods/binding", name, &why);
    if !pod["metadata"]["deletionTimestamp"].is_null() {
        return Err(conflict(format!("pod {name} is being deleted, cannot be assigned to a host")));
    }
    if let Some(current) = pod["spec"]["nodeName"].as_str().filter(|n| !n.is_empty()) {
        return Err(conflict(format!("pod {name} is already assigned to node \"{current}\"")));
    }
    let mut next = pod;
    next["spec"]["nodeName"] = json!(node);
    // ClearingNominatedNodeNameAfterBinding (beta, on in v1.35's kube-apiserver; KEP-5278): the
    // binding clears `status.nominatedNodeName` (an empty string is omitted on the wire).
    if let Some(status) = next["status"].as_object_mut() {
        status.remove("nominatedNodeName");
    }
    if let Some(annotations) = binding["metadata"]["annotations"].as_object() {
        if !next["metadata"]["annotations"].is_object() {
            next["metadata"]["annotations"] = json!({});
        }
        for (k, v) in annotations {
            next["metadata"]["annotations"][k] = v.clone();
        }
    }
    set_pod_scheduled(&mut next, transition_time);
    store.replace(&key, next);
    Ok(node)
}

/// Add or replace the `PodScheduled=True` condition.
fn set_pod_scheduled(pod: &mut Value, transition_time: &str) {
    let condition =
        json!({"type": "PodScheduled", "status": "True", "lastProbeTime": null, "lastTransitionTime": transition_time});
    if !pod["status"]["conditions"].is_array() {
        pod["status"]["conditions"] = json!([]);
    }
    if let Some(list) = pod["status"]["conditions"].as_array_mut() {
        match list.iter_mut().find(|c| c["type"] == "PodScheduled") {
            Some(c) => *c = condition,
            None => list.push(condition),
        }
    }
}

/// The 201 body of a successful binding.
pub fn created() -> Value {
    status::success(Some(201), None)
}
