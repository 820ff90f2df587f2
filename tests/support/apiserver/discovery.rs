//! Discovery documents (`/api`, `/api/v1`, `/apis`, `/apis/<group>[/<version>]`, `/version`)
//! built from the resource table, in the shapes of the captured fixtures, so clients that probe
//! for an API (events.k8s.io, coordination.k8s.io, ...) find it.

use super::resources::{is_review, ResourceType, RESOURCES};
use serde_json::{json, Value};

/// Verbs this server implements on ordinary resources.
const VERBS: [&str; 7] = ["create", "delete", "get", "list", "patch", "update", "watch"];

/// `/version` (a k3s-like v1.33 build).
pub fn version() -> Value {
    json!({
        "major": "1", "minor": "33", "emulationMajor": "1", "emulationMinor": "33",
        "minCompatibilityMajor": "1", "minCompatibilityMinor": "32",
        "gitVersion": "v1.33.4", "gitCommit": "74cdb426efed1a3e2ce3f4a2d1cd1abd64f4f5aa",
        "gitTreeState": "clean", "buildDate": "2025-08-12T18:35:03Z", "goVersion": "go1.24.5",
        "compiler": "gc", "platform": "linux/amd64"
    })
}

/// `/api`: the legacy group's versions and where to reach the server.
pub fn api_versions(server_address: &str) -> Value {
    json!({
        "kind": "APIVersions",
        "versions": ["v1"],
        "serverAddressByClientCIDRs": [{"clientCIDR": "0.0.0.0/0", "serverAddress": server_address}]
    })
}

fn singular(kind: &str) -> String {
    kind.to_ascii_lowercase()
}

fn resource_entries(r: &ResourceType) -> Vec<Value> {
    if is_review(r) {
        return vec![
            json!({"name": r.plural, "singularName": singular(r.kind), "namespaced": false, "kind": r.kind, "verbs": ["create"]}),
        ];
    }
    let mut main = json!({
        "name": r.plural, "singularName": singular(r.kind), "namespaced": r.namespaced, "kind": r.kind, "verbs": VERBS
    });
    if !r.short_names.is_empty() {
        main["shortNames"] = json!(r.short_names);
    }
    let mut out = vec![main];
    if r.group.is_empty() && r.plural == "pods" {
        out.push(json!({"name": "pods/binding", "singularName": "", "namespaced": true, "kind": "Binding", "verbs": ["create"]}));
    }
    if r.status_subresource {
        out.push(json!({
            "name": format!("{}/status", r.plural), "singularName": "", "namespaced": r.namespaced,
            "kind": r.kind, "verbs": ["get", "patch", "update"]
        }));
    }
    out
}

/// `/api/v1` or `/apis/<group>/<version>`; `None` if nothing is served there.
pub fn resource_list(group: &str, version: &str) -> Option<Value> {
    let served: Vec<&ResourceType> = RESOURCES.iter().filter(|r| r.group == group && r.version == version).collect();
    if served.is_empty() {
        return None;
    }
    let resources: Vec<Value> = served.iter().flat_map(|r| resource_entries(r)).collect();
    let mut doc = json!({"kind": "APIResourceList", "groupVersion": served[0].api_version(), "resources": resources});
    if !group.is_empty() {
        doc["apiVersion"] = json!("v1");
    }
    Some(doc)
}

fn groups() -> Vec<&'static str> {
    let mut names: Vec<&'static str> = Vec::new();
    for r in RESOURCES.iter().filter(|r| !r.group.is_empty()) {
        if !names.contains(&r.group) {
            names.push(r.group);
        }
    }
    names
}

/// One `APIGroup` entry.
pub fn api_group(name: &str) -> Option<Value> {
    let r = RESOURCES.iter().find(|r| r.group == name)?;
    let gv = json!({"groupVersion": r.api_version(), "version": r.version});
    Some(json!({"name": name, "versions": [gv.clone()], "preferredVersion": gv}))
}

/// `/apis`.
pub fn api_group_list() -> Value {
    let groups: Vec<Value> = groups().into_iter().filter_map(api_group).collect();
    json!({"kind": "APIGroupList", "apiVersion": "v1", "groups": groups})
}

/// `/apis/<group>`.
pub fn api_group_doc(name: &str) -> Option<Value> {
    let mut g = api_group(name)?;
    g["kind"] = json!("APIGroup");
    g["apiVersion"] = json!("v1");
    Some(g)
}
