//! The Dynamic Resource Allocation parts of the scheduler_perf replay: the objects upstream's DRA
//! ops create (the test driver's ResourceSlices, claims allocated without pods) and, for the
//! in-process mode, what kube-controller-manager's resourceclaim controller does for a pod whose
//! claim comes from a ResourceClaimTemplate. Upstream: test/integration/scheduler_perf/dra.go
//! (kubernetes/kubernetes; `createResourceDriverOp`, `resourceSlice`, `allocResourceClaimsOp`).

use serde_json::{json, Value};
use std::collections::HashMap;
use std::time::Duration;

/// `podResourceClaimAnnotation`: which `spec.resourceClaims[]` entry of the pod a generated claim
/// is for.
const POD_CLAIM_ANNOTATION: &str = "resource.kubernetes.io/pod-claim-name";

/// Whether `name` matches upstream's `filepath.Match` pattern as the DRA workloads use it: text
/// with at most one `*`, which matches any run of characters.
pub fn glob_matches(pattern: &str, name: &str) -> bool {
    match pattern.split_once('*') {
        None => pattern == name,
        Some((head, tail)) => {
            assert!(!tail.contains('*'), "node pattern {pattern:?}: one '*' at most is replayed");
            name.len() >= head.len() + tail.len() && name.starts_with(head) && name.ends_with(tail)
        }
    }
}

/// The ResourceSlice upstream's `resourceSlice(driverName, nodeName, capacity)` publishes for a
/// node of the test driver: one pool named after the node with one slice, and `capacity` devices
/// `instance-<i>`, each with the attributes model `A100`, family `GPU`, driverVersion `1.2.3`,
/// `dra.example.com/numa` `i`, and 1Gi of memory (read in its v1beta1 form, whose `basic` wrapper
/// resource.k8s.io/v1 dropped).
pub fn resource_slice(driver: &str, node: &str, capacity: usize) -> Value {
    let devices: Vec<Value> = (0..capacity)
        .map(|i| {
            json!({
                "name": format!("instance-{i}"),
                "attributes": {
                    "model": {"string": "A100"},
                    "family": {"string": "GPU"},
                    "driverVersion": {"version": "1.2.3"},
                    "dra.example.com/numa": {"int": i},
                },
                "capacity": {"memory": {"value": "1Gi"}},
            })
        })
        .collect();
    json!({
        "apiVersion": "resource.k8s.io/v1", "kind": "ResourceSlice",
        "metadata": {"name": node},
        "spec": {"driver": driver, "nodeName": node, "pool": {"name": node, "generation": 1, "resourceSliceCount": 1},
                 "devices": devices},
    })
}

/// `allocResourceClaimsOp`: each claim not yet allocated is allocated on the first node of a
/// random order that has a device for it, without a pod (no `reservedFor`). The claims of these
/// workloads ask for one device of the class that selects every device of the test driver, so the
/// allocator's answer on a node is its first free device; this keeps that per node and picks the
/// nodes from a seeded generator (upstream shuffles with math/rand), so every run allocates the
/// same devices.
pub struct ClaimAllocator {
    driver: String,
    /// Per node of the driver, in creation order: devices in use so far.
    nodes: Vec<(String, usize)>,
    capacity: usize,
    state: u64,
}

impl ClaimAllocator {
    pub fn new(driver: &str, nodes: Vec<String>, capacity: usize) -> ClaimAllocator {
        ClaimAllocator {
            driver: driver.to_string(),
            nodes: nodes.into_iter().map(|n| (n, 0)).collect(),
            capacity,
            state: 0x9e37_79b9_7f4a_7c15,
        }
    }

    /// splitmix64: a fixed sequence of node choices.
    fn next(&mut self) -> u64 {
        self.state = self.state.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.state;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }

    /// `status.allocation` for the next claim with one request `request`: a random node with a
    /// free device (the first node of upstream's shuffled order that fits), its first free
    /// device, and the node selector the structured allocator writes for a node-local slice.
    /// `None` when every device is in use (upstream fails the workload then).
    pub fn allocate(&mut self, request: &str) -> Option<Value> {
        let free: Vec<usize> = (0..self.nodes.len()).filter(|i| self.nodes[*i].1 < self.capacity).collect();
        if free.is_empty() {
            return None;
        }
        let pick = free[(self.next() % free.len() as u64) as usize];
        let (node, used) = &mut self.nodes[pick];
        let device = format!("instance-{used}");
        *used += 1;
        Some(json!({
            "devices": {"results": [{"request": request, "driver": self.driver, "pool": node, "device": device}]},
            "nodeSelector": {"nodeSelectorTerms": [{"matchFields": [
                {"key": "metadata.name", "operator": "In", "values": [node]}]}]},
        }))
    }
}

/// A claim spec with kube-apiserver's defaults for resource.k8s.io/v1 applied, as the API server
/// stores a created claim (`SetDefaults_ExactDeviceRequest` and `SetDefaults_DeviceSubRequest`,
/// pkg/apis/resource/v1/defaults.go): `allocationMode` `ExactCount` and, for that mode, `count` 1.
pub fn with_defaults(mut spec: Value) -> Value {
    fn default_request(r: &mut Value) {
        if r.is_object() {
            if r["allocationMode"].as_str().is_none_or(str::is_empty) {
                r["allocationMode"] = json!("ExactCount");
            }
            if r["allocationMode"] == "ExactCount" && r["count"].is_null() {
                r["count"] = json!(1);
            }
        }
    }
    if let Some(requests) = spec["devices"]["requests"].as_array_mut() {
        for r in requests {
            default_request(&mut r["exactly"]);
            if let Some(subs) = r["firstAvailable"].as_array_mut() {
                subs.iter_mut().for_each(default_request);
            }
        }
    }
    spec
}

/// The first request's name of a claim (the request an allocation answers).
pub fn first_request(claim: &Value) -> &str {
    claim["spec"]["devices"]["requests"][0]["name"].as_str().unwrap_or("req-0")
}

/// The claims the resourceclaim controller (pkg/controller/resourceclaim/controller.go,
/// `handleClaim`) creates for a pod, in process: for each `spec.resourceClaims[]` entry naming a
/// template, a claim `<pod>-<entry>-<serial>` in the pod's namespace with the template's
/// `spec.spec`, its labels and annotations, the entry's annotation and the pod as controlling
/// owner; and the pod's `status.resourceClaimStatuses` naming them. `templates` holds the
/// ResourceClaimTemplates by `namespace/name`.
pub fn claims_for_pod(pod: &mut Value, templates: &HashMap<String, Value>, serial: usize) -> Vec<Value> {
    let ns = pod["metadata"]["namespace"].as_str().unwrap_or("").to_string();
    let name = pod["metadata"]["name"].as_str().unwrap_or("").to_string();
    let uid = pod["metadata"]["uid"].as_str().unwrap_or("").to_string();
    let mut claims = Vec::new();
    let mut statuses = Vec::new();
    for entry in pod["spec"]["resourceClaims"].as_array().cloned().unwrap_or_default() {
        let Some(template) = entry["resourceClaimTemplateName"].as_str() else { continue };
        let entry_name = entry["name"].as_str().unwrap_or("");
        let t = templates.get(&format!("{ns}/{template}")).unwrap_or_else(|| panic!("no ResourceClaimTemplate {ns}/{template}"));
        let claim_name = format!("{name}-{entry_name}-{serial:05}");
        let mut annotations = t["spec"]["metadata"]["annotations"].as_object().cloned().unwrap_or_default();
        annotations.insert(POD_CLAIM_ANNOTATION.into(), json!(entry_name));
        claims.push(json!({
            "apiVersion": "resource.k8s.io/v1", "kind": "ResourceClaim",
            "metadata": {
                "name": claim_name, "namespace": ns, "uid": format!("claim-uid-{ns}-{claim_name}"), "resourceVersion": "1",
                "labels": t["spec"]["metadata"]["labels"].clone(),
                "annotations": annotations,
                "ownerReferences": [{"apiVersion": "v1", "kind": "Pod", "name": name, "uid": uid,
                                     "controller": true, "blockOwnerDeletion": true}],
            },
            "spec": with_defaults(t["spec"]["spec"].clone()),
        }));
        statuses.push(json!({"name": entry_name, "resourceClaimName": claim_name}));
    }
    if !statuses.is_empty() {
        pod["status"]["resourceClaimStatuses"] = Value::Array(statuses);
    }
    claims
}

/// Whether a pod template asks for claims from templates (the controller's work then).
pub fn uses_claim_templates(pod: &Value) -> bool {
    pod["spec"]["resourceClaims"].as_array().is_some_and(|c| c.iter().any(|e| e["resourceClaimTemplateName"].is_string()))
}

/// A duration as scheduler_perf's `durationParam` writes it (`metav1.Duration`: `10s`, `500ms`,
/// `2m`).
pub fn parse_duration(text: &str) -> Duration {
    let text = text.trim();
    let (number, unit) = text.split_at(text.find(|c: char| !c.is_ascii_digit() && c != '.').unwrap_or(text.len()));
    let n: f64 = number.parse().unwrap_or_else(|_| panic!("duration {text:?}"));
    let seconds = match unit {
        "ms" => n / 1000.0,
        "s" => n,
        "m" => n * 60.0,
        other => panic!("duration {text:?}: unit {other:?} is not replayed"),
    };
    Duration::from_secs_f64(seconds)
}
