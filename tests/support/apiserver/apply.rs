//! `kubectl apply -f` for tests and the bootstrap seed: every document of a multi-document YAML
//! (or the items of a `kind: List`) is created, or replaces the object of the same name, in the
//! resource its `apiVersion` and `kind` name. It writes straight to the store, as an
//! administrator would: nothing here is authorized.

use super::resources::{self, find_kind, RESOURCES};
use super::status::ApiError;
use super::store::{ObjKey, Store};
use super::verbs::{self, Part};
use serde_json::{json, Value};
use std::time::SystemTime;

/// Make sure namespace `ns` exists (Active, with the `kubernetes` finalizer).
pub fn ensure_namespace(store: &mut Store, ns: &str) {
    let key = ObjKey::new(resources::namespaces(), "", ns);
    if store.get(&key).is_none() {
        let obj = json!({"metadata": {"name": ns}, "spec": {"finalizers": ["kubernetes"]}, "status": {"phase": "Active"}});
        let _ = verbs::create(store, resources::namespaces(), "", obj, SystemTime::now());
    }
}

/// The non-empty documents of `yaml`, each as JSON. Panics on YAML that does not parse.
pub fn parse_documents(yaml: &str) -> Vec<Value> {
    serde_saphyr::from_multiple::<Value>(yaml)
        .unwrap_or_else(|e| panic!("apply: the YAML does not parse: {e}"))
        .into_iter()
        .filter(|d| !d.is_null())
        .collect()
}

/// Create `obj`, or replace the existing object of that name (its resourceVersion is ignored,
/// as `kubectl apply` does not conflict on it). Namespaced objects without a namespace go to
/// `default`; the namespace is created if missing.
pub fn apply_object(store: &mut Store, mut obj: Value) -> Result<Value, ApiError> {
    let api_version = obj["apiVersion"].as_str().unwrap_or("").to_string();
    let kind = obj["kind"].as_str().unwrap_or("").to_string();
    let res = find_kind(&api_version, &kind)
        .unwrap_or_else(|| panic!("apply: the test API server serves no kind {kind:?} of apiVersion {api_version:?}"));
    let ns = if RESOURCES[res].namespaced {
        let ns = obj["metadata"]["namespace"].as_str().filter(|n| !n.is_empty()).unwrap_or("default").to_string();
        ensure_namespace(store, &ns);
        ns
    } else {
        String::new()
    };
    if let Some(meta) = obj["metadata"].as_object_mut() {
        meta.remove("resourceVersion");
        meta.remove("creationTimestamp");
    }
    let name = obj["metadata"]["name"].as_str().unwrap_or("").to_string();
    let key = ObjKey::new(res, &ns, &name);
    if name.is_empty() || store.get(&key).is_none() {
        verbs::create(store, res, &ns, obj, SystemTime::now())
    } else {
        verbs::update(store, &key, Part::Main, obj)
    }
}

/// Apply every document of `yaml` in order (the items of a `kind: List` one by one) and return
/// the stored objects. Panics with the API error when the server rejects one.
pub fn apply_yaml(store: &mut Store, yaml: &str) -> Vec<Value> {
    let mut out = Vec::new();
    for doc in parse_documents(yaml) {
        let objects = match doc["kind"].as_str() {
            Some("List") => doc["items"].as_array().cloned().unwrap_or_default(),
            _ => vec![doc],
        };
        for obj in objects {
            let what = format!("{} {}", obj["kind"].as_str().unwrap_or("?"), obj["metadata"]["name"].as_str().unwrap_or("?"));
            let stored = apply_object(store, obj).unwrap_or_else(|e| panic!("apply: {what} was rejected: {}", e.body));
            out.push(stored);
        }
    }
    out
}
