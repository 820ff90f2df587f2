//! Builders for the Node and Pod objects tests create, shaped like what a kubelet registers and
//! what a user (or controller) submits, so the scheduler sees realistic JSON.

use serde_json::{json, Map, Value};

/// Start building a Node called `name` (Ready, linux/amd64 labels as a kubelet sets them).
pub fn node(name: &str) -> NodeBuilder {
    NodeBuilder {
        name: name.to_string(),
        labels: vec![
            ("kubernetes.io/arch".into(), "amd64".into()),
            ("kubernetes.io/hostname".into(), name.into()),
            ("kubernetes.io/os".into(), "linux".into()),
        ],
        capacity: vec![("cpu".into(), "4".into()), ("memory".into(), "8Gi".into()), ("pods".into(), "110".into())],
        taints: Vec::new(),
        unschedulable: false,
        ready: true,
        images: Vec::new(),
    }
}

/// A Node under construction.
pub struct NodeBuilder {
    name: String,
    labels: Vec<(String, String)>,
    capacity: Vec<(String, String)>,
    taints: Vec<Value>,
    unschedulable: bool,
    ready: bool,
    images: Vec<(String, u64)>,
}

impl NodeBuilder {
    fn set_capacity(mut self, resource: &str, quantity: &str) -> NodeBuilder {
        self.capacity.retain(|(k, _)| k != resource);
        self.capacity.push((resource.to_string(), quantity.to_string()));
        self
    }

    /// Allocatable (and capacity) CPU, e.g. `"4"` or `"3500m"`.
    pub fn cpu(self, q: &str) -> NodeBuilder {
        self.set_capacity("cpu", q)
    }

    /// Allocatable (and capacity) memory, e.g. `"8Gi"`.
    pub fn memory(self, q: &str) -> NodeBuilder {
        self.set_capacity("memory", q)
    }

    /// Maximum pod count.
    pub fn pods(self, n: u32) -> NodeBuilder {
        self.set_capacity("pods", &n.to_string())
    }

    /// Any other allocatable resource (`ephemeral-storage`, `nvidia.com/gpu`, ...).
    pub fn resource(self, name: &str, q: &str) -> NodeBuilder {
        self.set_capacity(name, q)
    }

    /// Add or replace a label.
    pub fn label(mut self, k: &str, v: &str) -> NodeBuilder {
        self.labels.retain(|(key, _)| key != k);
        self.labels.push((k.to_string(), v.to_string()));
        self
    }

    /// Add a taint; an empty `value` is omitted as the API server does.
    pub fn taint(mut self, key: &str, value: &str, effect: &str) -> NodeBuilder {
        let mut t = Map::new();
        t.insert("key".into(), json!(key));
        if !value.is_empty() {
            t.insert("value".into(), json!(value));
        }
        t.insert("effect".into(), json!(effect));
        self.taints.push(Value::Object(t));
        self
    }

    /// `spec.unschedulable: true` (cordoned).
    pub fn unschedulable(mut self) -> NodeBuilder {
        self.unschedulable = true;
        self
    }

    /// Report the Ready condition as False.
    pub fn not_ready(mut self) -> NodeBuilder {
        self.ready = false;
        self
    }

    /// An image present on the node, with its size in bytes (ImageLocality input).
    pub fn image(mut self, name: &str, size_bytes: u64) -> NodeBuilder {
        self.images.push((name.to_string(), size_bytes));
        self
    }

    /// The Node JSON, with kind/apiVersion.
    pub fn build(self) -> Value {
        let labels: Map<String, Value> = self.labels.into_iter().map(|(k, v)| (k, Value::String(v))).collect();
        let capacity: Map<String, Value> = self.capacity.into_iter().map(|(k, v)| (k, Value::String(v))).collect();
        let mut spec = Map::new();
        if !self.taints.is_empty() {
            spec.insert("taints".into(), Value::Array(self.taints));
        }
        if self.unschedulable {
            spec.insert("unschedulable".into(), json!(true));
        }
        let mut images = self.images;
        images.sort_by_key(|(_, size)| std::cmp::Reverse(*size));
        let images: Vec<Value> = images.into_iter().map(|(n, s)| json!({"names": [n], "sizeBytes": s})).collect();
        let ready = if self.ready { "True" } else { "False" };
        json!({
            "kind": "Node",
            "apiVersion": "v1",
            "metadata": {"name": self.name, "labels": labels},
            "spec": spec,
            "status": {
                "capacity": capacity.clone(),
                "allocatable": capacity,
                "conditions": [{
                    "type": "Ready", "status": ready, "reason": "KubeletReady",
                    "message": "kubelet is posting ready status",
                    "lastHeartbeatTime": "2025-01-01T00:00:00Z", "lastTransitionTime": "2025-01-01T00:00:00Z"
                }],
                "images": images,
                "nodeInfo": {"architecture": "amd64", "operatingSystem": "linux", "kubeletVersion": "v1.33.4"}
            }
        })
    }
}

/// Start building a Pod `name` in namespace `ns` with one container `app` and no requests.
pub fn pod(ns: &str, name: &str) -> PodBuilder {
    PodBuilder {
        ns: ns.to_string(),
        name: name.to_string(),
        labels: Vec::new(),
        annotations: Vec::new(),
        requests: Vec::new(),
        ports: Vec::new(),
        spec: Map::new(),
        init_containers: Vec::new(),
        phase: None,
        claims: Vec::new(),
    }
}

/// A Pod under construction.
pub struct PodBuilder {
    ns: String,
    name: String,
    labels: Vec<(String, String)>,
    annotations: Vec<(String, String)>,
    requests: Vec<(String, String)>,
    ports: Vec<Value>,
    spec: Map<String, Value>,
    init_containers: Vec<Value>,
    phase: Option<String>,
    claims: Vec<String>,
}

impl PodBuilder {
    fn request(mut self, resource: &str, q: &str) -> PodBuilder {
        self.requests.retain(|(k, _)| k != resource);
        self.requests.push((resource.to_string(), q.to_string()));
        self
    }

    fn push_spec_list(&mut self, key: &str, item: Value) {
        let list = self.spec.entry(key.to_string()).or_insert_with(|| Value::Array(Vec::new()));
        if let Value::Array(items) = list {
            items.push(item);
        }
    }

    fn insert_spec_map(&mut self, key: &str, k: &str, v: Value) {
        let map = self.spec.entry(key.to_string()).or_insert_with(|| Value::Object(Map::new()));
        if let Value::Object(m) = map {
            m.insert(k.to_string(), v);
        }
    }

    /// `spec.schedulerName`.
    pub fn scheduler(mut self, name: &str) -> PodBuilder {
        self.spec.insert("schedulerName".into(), json!(name));
        self
    }

    /// CPU request of the app container.
    pub fn cpu(self, q: &str) -> PodBuilder {
        self.request("cpu", q)
    }

    /// Memory request of the app container.
    pub fn memory(self, q: &str) -> PodBuilder {
        self.request("memory", q)
    }

    /// Any other request of the app container (`nvidia.com/gpu`, `ephemeral-storage`).
    pub fn resource(self, name: &str, q: &str) -> PodBuilder {
        self.request(name, q)
    }

    /// A TCP host port on the app container.
    pub fn host_port(mut self, port: u16) -> PodBuilder {
        self.ports.push(json!({"containerPort": port, "hostPort": port, "protocol": "TCP"}));
        self
    }

    /// Add a `spec.nodeSelector` entry.
    pub fn node_selector(mut self, k: &str, v: &str) -> PodBuilder {
        self.insert_spec_map("nodeSelector", k, json!(v));
        self
    }

    /// Add a toleration; empty strings are omitted as the API server does.
    pub fn toleration(mut self, key: &str, operator: &str, value: &str, effect: &str) -> PodBuilder {
        let mut t = Map::new();
        for (k, v) in [("key", key), ("operator", operator), ("value", value), ("effect", effect)] {
            if !v.is_empty() {
                t.insert(k.into(), json!(v));
            }
        }
        self.push_spec_list("tolerations", Value::Object(t));
        self
    }

    /// `spec.priority` (normally filled by the Priority admission plugin).
    pub fn priority(mut self, n: i32) -> PodBuilder {
        self.spec.insert("priority".into(), json!(n));
        self
    }

    /// `spec.priorityClassName`.
    pub fn priority_class(mut self, name: &str) -> PodBuilder {
        self.spec.insert("priorityClassName".into(), json!(name));
        self
    }

    /// `spec.nodeName` (an already bound pod).
    pub fn node_name(mut self, node: &str) -> PodBuilder {
        self.spec.insert("nodeName".into(), json!(node));
        self
    }

    /// Add a label.
    pub fn label(mut self, k: &str, v: &str) -> PodBuilder {
        self.labels.push((k.to_string(), v.to_string()));
        self
    }

    /// Add an annotation.
    pub fn annotation(mut self, k: &str, v: &str) -> PodBuilder {
        self.annotations.push((k.to_string(), v.to_string()));
        self
    }

    /// Add a scheduling gate (`spec.schedulingGates`).
    pub fn scheduling_gate(mut self, name: &str) -> PodBuilder {
        self.push_spec_list("schedulingGates", json!({"name": name}));
        self
    }

    /// Add an init container requesting `q` CPU.
    pub fn init_container_cpu(mut self, q: &str) -> PodBuilder {
        let n = self.init_containers.len();
        self.init_containers.push(json!({
            "name": format!("init-{n}"), "image": "busybox:1.36",
            "resources": {"requests": {"cpu": q}}
        }));
        self
    }

    /// `spec.affinity` as raw JSON.
    pub fn affinity(mut self, affinity: Value) -> PodBuilder {
        self.spec.insert("affinity".into(), affinity);
        self
    }

    /// Any other spec field as raw JSON (escape hatch for rarely used fields).
    pub fn spec_field(mut self, key: &str, value: Value) -> PodBuilder {
        self.spec.insert(key.to_string(), value);
        self
    }

    /// A `spec.resourceClaims` entry `name` for the ResourceClaim `claim`, used by the container.
    pub fn claim(mut self, name: &str, claim: &str) -> PodBuilder {
        self.push_spec_list("resourceClaims", json!({"name": name, "resourceClaimName": claim}));
        self.claims.push(name.to_string());
        self
    }

    /// A `spec.resourceClaims` entry `name` whose claim the resourceclaim controller creates from
    /// the ResourceClaimTemplate `template`, used by the container.
    pub fn claim_from_template(mut self, name: &str, template: &str) -> PodBuilder {
        self.push_spec_list("resourceClaims", json!({"name": name, "resourceClaimTemplateName": template}));
        self.claims.push(name.to_string());
        self
    }

    /// `status.phase` (e.g. `Running`, `Succeeded`).
    pub fn phase(mut self, phase: &str) -> PodBuilder {
        self.phase = Some(phase.to_string());
        self
    }

    /// The Pod JSON, with kind/apiVersion.
    pub fn build(self) -> Value {
        let mut container = Map::new();
        container.insert("name".into(), json!("app"));
        container.insert("image".into(), json!("registry.k8s.io/pause:3.10"));
        if !self.requests.is_empty() {
            let requests: Map<String, Value> = self.requests.into_iter().map(|(k, v)| (k, Value::String(v))).collect();
            container.insert("resources".into(), json!({ "requests": requests }));
        }
        if !self.claims.is_empty() {
            let claims: Vec<Value> = self.claims.iter().map(|c| json!({"name": c})).collect();
            let resources = container.entry("resources").or_insert_with(|| json!({}));
            resources["claims"] = Value::Array(claims);
        }
        if !self.ports.is_empty() {
            container.insert("ports".into(), Value::Array(self.ports));
        }
        let mut spec = self.spec;
        spec.insert("containers".into(), json!([Value::Object(container)]));
        if !self.init_containers.is_empty() {
            spec.insert("initContainers".into(), Value::Array(self.init_containers));
        }
        let mut metadata = Map::new();
        metadata.insert("name".into(), json!(self.name));
        metadata.insert("namespace".into(), json!(self.ns));
        if !self.labels.is_empty() {
            let labels: Map<String, Value> = self.labels.into_iter().map(|(k, v)| (k, Value::String(v))).collect();
            metadata.insert("labels".into(), Value::Object(labels));
        }
        if !self.annotations.is_empty() {
            let ann: Map<String, Value> = self.annotations.into_iter().map(|(k, v)| (k, Value::String(v))).collect();
            metadata.insert("annotations".into(), Value::Object(ann));
        }
        let mut pod = json!({"kind": "Pod", "apiVersion": "v1", "metadata": metadata, "spec": spec});
        if let Some(phase) = self.phase {
            pod["status"] = json!({ "phase": phase });
        }
        pod
    }
}
