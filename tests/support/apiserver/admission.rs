//! What the real API server adds to or rejects in a pod on its way into storage, so the
//! scheduler sees what it would see in a cluster: defaulting (`pkg/apis/core/v1/defaults.go`:
//! requests default to limits, restartPolicy, dnsPolicy, schedulerName...), the create strategy
//! (`pkg/registry/core/pod/strategy.go`: status reset to Pending + qosClass), the Priority and
//! DefaultTolerationSeconds admission plugins, NamespaceLifecycle, and pod update validation
//! (only a few spec fields may change).

use super::resources::{self, ResourceType, RESOURCES};
use super::status::{self, ApiError};
use super::store::{ObjKey, Store};
use serde_json::{json, Map, Value};

/// Built-in priority classes every cluster has.
const SYSTEM_CLASSES: [(&str, i64); 2] = [("system-node-critical", 2_000_001_000), ("system-cluster-critical", 2_000_000_000)];

/// Namespaces a fresh cluster has.
pub const INITIAL_NAMESPACES: [&str; 4] = ["default", "kube-node-lease", "kube-public", "kube-system"];

/// Reject writes into a namespace that does not exist (NamespaceLifecycle admission).
pub fn check_namespace(store: &Store, res: &ResourceType, ns: &str) -> Result<(), ApiError> {
    if !res.namespaced {
        return Ok(());
    }
    let key = ObjKey::new(resources::namespaces(), "", ns);
    match store.get(&key) {
        Some(_) => Ok(()),
        None => Err(status::not_found(&RESOURCES[resources::namespaces()], ns)),
    }
}

fn set_default(map: &mut Map<String, Value>, key: &str, value: Value) {
    map.entry(key.to_string()).or_insert(value);
}

/// Requests default to limits for each resource that has a limit but no request.
fn default_requests_from_limits(container: &mut Value) {
    let limits = container["resources"]["limits"].as_object().cloned().unwrap_or_default();
    if limits.is_empty() {
        return;
    }
    if !container["resources"]["requests"].is_object() {
        container["resources"]["requests"] = json!({});
    }
    if let Some(requests) = container["resources"]["requests"].as_object_mut() {
        for (k, v) in limits {
            requests.entry(k).or_insert(v);
        }
    }
}

fn containers_mut(spec: &mut Value) -> impl Iterator<Item = &mut Value> {
    let spec_map = spec.as_object_mut().map(|m| m.iter_mut()).into_iter().flatten();
    spec_map
        .filter(|(k, _)| *k == "containers" || *k == "initContainers")
        .filter_map(|(_, v)| v.as_array_mut())
        .flat_map(|a| a.iter_mut())
}

/// `qos.GetPodQOS`, for cpu and memory: Guaranteed when every container's requests equal its
/// limits for both, BestEffort when nothing is requested or limited, else Burstable.
fn qos_class(spec: &Value) -> &'static str {
    let containers: Vec<&Value> =
        ["containers", "initContainers"].iter().filter_map(|k| spec[*k].as_array()).flat_map(|a| a.iter()).collect();
    let tracked = |m: &Value| -> Vec<(String, String)> {
        ["cpu", "memory"].iter().filter_map(|r| m[*r].as_str().map(|q| (r.to_string(), q.to_string()))).collect()
    };
    let mut any = false;
    let mut guaranteed = true;
    for c in &containers {
        let requests = tracked(&c["resources"]["requests"]);
        let limits = tracked(&c["resources"]["limits"]);
        any |= !requests.is_empty() || !limits.is_empty();
        guaranteed &= limits.len() == 2 && requests == limits;
    }
    match (any, guaranteed) {
        (false, _) => "BestEffort",
        (true, true) => "Guaranteed",
        (true, false) => "Burstable",
    }
}

/// The not-ready/unreachable NoExecute tolerations (DefaultTolerationSeconds admission).
fn add_default_tolerations(spec: &mut Map<String, Value>) {
    let tolerations = spec.entry("tolerations").or_insert_with(|| json!([]));
    let Some(list) = tolerations.as_array_mut() else { return };
    for key in ["node.kubernetes.io/not-ready", "node.kubernetes.io/unreachable"] {
        let covered = list.iter().any(|t| {
            let effect_ok = t["effect"].as_str().is_none_or(|e| e.is_empty() || e == "NoExecute");
            let key_ok =
                t["key"].as_str() == Some(key) || (t["key"].as_str().is_none_or(str::is_empty) && t["operator"] == "Exists");
            effect_ok && key_ok
        });
        if !covered {
            list.push(json!({"key": key, "operator": "Exists", "effect": "NoExecute", "tolerationSeconds": 300}));
        }
    }
}

/// Resolve `priorityClassName` into `spec.priority` (Priority admission). A pod that names no
/// class gets the global default class or 0; an explicit `spec.priority` without a class is kept.
fn admit_priority(store: &Store, pod_name: &str, spec: &mut Map<String, Value>) -> Result<(), ApiError> {
    let pods = &RESOURCES[resources::pods()];
    let pc_res = resources::find("scheduling.k8s.io", "v1", "priorityclasses").unwrap_or(0);
    let class_name = spec.get("priorityClassName").and_then(Value::as_str).unwrap_or("").to_string();
    let (value, policy) = if class_name.is_empty() {
        let global = store.objects_of(pc_res, None).map(|(_, v)| v).find(|pc| pc["globalDefault"] == json!(true));
        match global {
            Some(pc) => {
                spec.insert("priorityClassName".into(), pc["metadata"]["name"].clone());
                (pc["value"].as_i64().unwrap_or(0), pc["preemptionPolicy"].as_str().map(String::from))
            }
            None => (spec.get("priority").and_then(Value::as_i64).unwrap_or(0), None),
        }
    } else if let Some((_, v)) = SYSTEM_CLASSES.iter().find(|(n, _)| *n == class_name) {
        (*v, None)
    } else {
        match store.get(&ObjKey::new(pc_res, "", &class_name)) {
            Some(pc) => (pc["value"].as_i64().unwrap_or(0), pc["preemptionPolicy"].as_str().map(String::from)),
            None => {
                return Err(status::forbidden(pods, pod_name, &format!("no PriorityClass with name {class_name} was found")));
            }
        }
    };
    if let Some(given) = spec.get("priority").and_then(Value::as_i64) {
        if !class_name.is_empty() && given != value {
            let why = format!("the integer value of priority ({given}) must not be provided in pod spec; priority admission controller computed {value} from the given PriorityClass name");
            return Err(status::forbidden(pods, pod_name, &why));
        }
    }
    spec.insert("priority".into(), json!(value));
    spec.insert("preemptionPolicy".into(), json!(policy.unwrap_or_else(|| "PreemptLowerPriority".into())));
    Ok(())
}

/// Apply defaulting, the create strategy and admission to a new pod.
pub fn admit_pod_create(store: &Store, pod: &mut Value) -> Result<(), ApiError> {
    let name = pod["metadata"]["name"].as_str().unwrap_or("").to_string();
    if !pod["spec"].is_object() {
        pod["spec"] = json!({});
    }
    for c in containers_mut(&mut pod["spec"]) {
        default_requests_from_limits(c);
        if let Some(m) = c.as_object_mut() {
            set_default(m, "terminationMessagePath", json!("/dev/termination-log"));
            set_default(m, "terminationMessagePolicy", json!("File"));
            set_default(m, "imagePullPolicy", json!("IfNotPresent"));
        }
    }
    let qos = qos_class(&pod["spec"]);
    let Some(spec) = pod["spec"].as_object_mut() else { return Ok(()) };
    set_default(spec, "restartPolicy", json!("Always"));
    set_default(spec, "terminationGracePeriodSeconds", json!(30));
    set_default(spec, "dnsPolicy", json!("ClusterFirst"));
    set_default(spec, "securityContext", json!({}));
    set_default(spec, "schedulerName", json!("default-scheduler"));
    set_default(spec, "enableServiceLinks", json!(true));
    add_default_tolerations(spec);
    admit_priority(store, &name, spec)?;
    pod["status"] = json!({"phase": "Pending", "qosClass": qos});
    Ok(())
}

/// Spec fields a pod update may change (`ValidatePodUpdate`): images, activeDeadlineSeconds,
/// added tolerations and removed scheduling gates. Everything else must stay as it was.
pub fn validate_pod_update(old: &Value, new: &Value) -> Result<(), ApiError> {
    let masked = |spec: &Value| {
        let mut s = spec.clone();
        for c in containers_mut(&mut s) {
            if let Some(m) = c.as_object_mut() {
                m.remove("image");
            }
        }
        if let Some(m) = s.as_object_mut() {
            for k in ["activeDeadlineSeconds", "tolerations", "schedulingGates"] {
                m.remove(k);
            }
        }
        s
    };
    let gates = |spec: &Value| spec["schedulingGates"].as_array().cloned().unwrap_or_default();
    let gates_only_removed = gates(&new["spec"]).iter().all(|g| gates(&old["spec"]).contains(g));
    if masked(&old["spec"]) == masked(&new["spec"]) && gates_only_removed {
        return Ok(());
    }
    let name = new["metadata"]["name"].as_str().unwrap_or("");
    let message = "Forbidden: pod updates may not change fields other than `spec.containers[*].image`,`spec.initContainers[*].image`,`spec.activeDeadlineSeconds`,`spec.tolerations` (only additions to existing tolerations),`spec.terminationGracePeriodSeconds` (allow it to be set to 1 if it was previously negative)";
    Err(status::invalid(&RESOURCES[resources::pods()], name, "spec", "FieldValueForbidden", message))
}
