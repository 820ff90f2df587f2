//! Builders for the resource.k8s.io/v1 objects of Dynamic Resource Allocation, shaped like what
//! a DRA driver publishes (ResourceSlices), an administrator creates (DeviceClasses) and a user
//! submits (ResourceClaims and templates), plus the allocation a scheduler writes, so tests
//! read as the cluster they arrange.

use serde_json::{json, Map, Value};

/// Collection path of DeviceClasses.
pub const DEVICE_CLASSES: &str = "/apis/resource.k8s.io/v1/deviceclasses";
/// Collection path of ResourceSlices.
pub const RESOURCE_SLICES: &str = "/apis/resource.k8s.io/v1/resourceslices";

/// Collection path of ResourceClaims in `ns`.
pub fn claims_path(ns: &str) -> String {
    format!("/apis/resource.k8s.io/v1/namespaces/{ns}/resourceclaims")
}

/// Collection path of ResourceClaimTemplates in `ns`.
pub fn templates_path(ns: &str) -> String {
    format!("/apis/resource.k8s.io/v1/namespaces/{ns}/resourceclaimtemplates")
}

/// A DeviceClass selecting devices by CEL expressions (none: every device).
pub fn device_class(name: &str, selectors: &[&str]) -> Value {
    let selectors: Vec<Value> = selectors.iter().map(|e| json!({"cel": {"expression": e}})).collect();
    let mut spec = json!({});
    if !selectors.is_empty() {
        spec["selectors"] = Value::Array(selectors);
    }
    json!({"apiVersion": "resource.k8s.io/v1", "kind": "DeviceClass", "metadata": {"name": name}, "spec": spec})
}

/// Start a device called `name`.
pub fn device(name: &str) -> DeviceBuilder {
    DeviceBuilder { name: name.to_string(), attributes: Map::new(), capacity: Map::new() }
}

/// A device under construction.
pub struct DeviceBuilder {
    name: String,
    attributes: Map<String, Value>,
    capacity: Map<String, Value>,
}

impl DeviceBuilder {
    /// A string attribute.
    pub fn string(mut self, name: &str, v: &str) -> DeviceBuilder {
        self.attributes.insert(name.into(), json!({"string": v}));
        self
    }

    /// An integer attribute.
    pub fn int(mut self, name: &str, v: i64) -> DeviceBuilder {
        self.attributes.insert(name.into(), json!({"int": v}));
        self
    }

    /// A boolean attribute.
    pub fn boolean(mut self, name: &str, v: bool) -> DeviceBuilder {
        self.attributes.insert(name.into(), json!({"bool": v}));
        self
    }

    /// A semantic-version attribute.
    pub fn version(mut self, name: &str, v: &str) -> DeviceBuilder {
        self.attributes.insert(name.into(), json!({"version": v}));
        self
    }

    /// A capacity, e.g. `("memory", "80Gi")`.
    pub fn capacity(mut self, name: &str, quantity: &str) -> DeviceBuilder {
        self.capacity.insert(name.into(), json!({"value": quantity}));
        self
    }

    /// The device as a slice lists it.
    pub fn build(self) -> Value {
        let mut d = json!({"name": self.name});
        if !self.attributes.is_empty() {
            d["attributes"] = Value::Object(self.attributes);
        }
        if !self.capacity.is_empty() {
            d["capacity"] = Value::Object(self.capacity);
        }
        d
    }
}

/// Start a ResourceSlice of `driver` (pool of the same name as the node, generation 1, one
/// slice) for the node `node`.
pub fn resource_slice(name: &str, driver: &str, node: &str) -> SliceBuilder {
    SliceBuilder {
        name: name.to_string(),
        driver: driver.to_string(),
        pool: (node.to_string(), 1, 1),
        access: json!({"nodeName": node}),
        devices: Vec::new(),
    }
}

/// A ResourceSlice under construction.
pub struct SliceBuilder {
    name: String,
    driver: String,
    pool: (String, i64, i64),
    access: Value,
    devices: Vec<Value>,
}

impl SliceBuilder {
    /// The pool: name, generation, and how many slices it has.
    pub fn pool(mut self, name: &str, generation: i64, slices: i64) -> SliceBuilder {
        self.pool = (name.to_string(), generation, slices);
        self
    }

    /// Devices reachable from every node (network-attached) instead of one node's.
    pub fn all_nodes(mut self) -> SliceBuilder {
        self.access = json!({"allNodes": true});
        self
    }

    /// Devices reachable from the nodes a NodeSelector picks.
    pub fn node_selector(mut self, selector: Value) -> SliceBuilder {
        self.access = json!({"nodeSelector": selector});
        self
    }

    /// Add a device.
    pub fn device(mut self, d: DeviceBuilder) -> SliceBuilder {
        self.devices.push(d.build());
        self
    }

    /// The slice.
    pub fn build(self) -> Value {
        let mut spec = json!({"driver": self.driver,
            "pool": {"name": self.pool.0, "generation": self.pool.1, "resourceSliceCount": self.pool.2},
            "devices": self.devices});
        if let (Some(spec), Some(access)) = (spec.as_object_mut(), self.access.as_object()) {
            spec.extend(access.clone());
        }
        json!({"apiVersion": "resource.k8s.io/v1", "kind": "ResourceSlice", "metadata": {"name": self.name}, "spec": spec})
    }
}

/// Start a claim spec.
pub fn claim_spec() -> ClaimSpecBuilder {
    ClaimSpecBuilder { requests: Vec::new(), constraints: Vec::new() }
}

/// A claim spec (`spec` of a ResourceClaim, `spec.spec` of a template) under construction.
pub struct ClaimSpecBuilder {
    requests: Vec<Value>,
    constraints: Vec<Value>,
}

impl ClaimSpecBuilder {
    /// One device of class `class` (the defaults: `ExactCount`, 1).
    pub fn request(mut self, name: &str, class: &str) -> ClaimSpecBuilder {
        self.requests.push(json!({"name": name, "exactly": {"deviceClassName": class}}));
        self
    }

    /// `count` devices of class `class` matching the CEL `selectors`.
    pub fn request_count(mut self, name: &str, class: &str, count: i64, selectors: &[&str]) -> ClaimSpecBuilder {
        let mut exactly = json!({"deviceClassName": class, "allocationMode": "ExactCount", "count": count});
        if !selectors.is_empty() {
            exactly["selectors"] = selectors.iter().map(|e| json!({"cel": {"expression": e}})).collect();
        }
        self.requests.push(json!({"name": name, "exactly": exactly}));
        self
    }

    /// Every matching device of class `class`.
    pub fn request_all(mut self, name: &str, class: &str) -> ClaimSpecBuilder {
        self.requests.push(json!({"name": name, "exactly": {"deviceClassName": class, "allocationMode": "All"}}));
        self
    }

    /// Prioritized alternatives: the first subrequest `(name, class, count)` that fits.
    pub fn first_available(mut self, name: &str, alternatives: &[(&str, &str, i64)]) -> ClaimSpecBuilder {
        let subs: Vec<Value> = alternatives
            .iter()
            .map(|(n, c, k)| json!({"name": n, "deviceClassName": c, "allocationMode": "ExactCount", "count": k}))
            .collect();
        self.requests.push(json!({"name": name, "firstAvailable": subs}));
        self
    }

    /// The devices of `requests` (all when empty) must agree on attribute `attribute`.
    pub fn match_attribute(mut self, attribute: &str, requests: &[&str]) -> ClaimSpecBuilder {
        let mut c = json!({"matchAttribute": attribute});
        if !requests.is_empty() {
            c["requests"] = json!(requests);
        }
        self.constraints.push(c);
        self
    }

    /// The spec.
    pub fn build(self) -> Value {
        let mut devices = json!({"requests": self.requests});
        if !self.constraints.is_empty() {
            devices["constraints"] = Value::Array(self.constraints);
        }
        json!({"devices": devices})
    }
}

/// A ResourceClaim `ns/name` with `spec`.
pub fn claim(ns: &str, name: &str, spec: Value) -> Value {
    json!({"apiVersion": "resource.k8s.io/v1", "kind": "ResourceClaim", "metadata": {"name": name, "namespace": ns}, "spec": spec})
}

/// A ResourceClaimTemplate `ns/name` whose claims get `spec`.
pub fn claim_template(ns: &str, name: &str, spec: Value) -> Value {
    json!({"apiVersion": "resource.k8s.io/v1", "kind": "ResourceClaimTemplate", "metadata": {"name": name, "namespace": ns},
        "spec": {"spec": spec}})
}

/// One allocated device: `(request, driver, pool, device)`.
pub type Allocated<'a> = (&'a str, &'a str, &'a str, &'a str);

/// `status.allocation` as a scheduler writes it: the devices, and a node selector pinning the
/// claim to `node` (for node-local devices).
pub fn allocation(devices: &[Allocated<'_>], node: Option<&str>) -> Value {
    let results: Vec<Value> =
        devices.iter().map(|(r, d, p, n)| json!({"request": r, "driver": d, "pool": p, "device": n})).collect();
    let mut a = json!({"devices": {"results": results}});
    if let Some(node) = node {
        a["nodeSelector"] = json!({"nodeSelectorTerms": [{"matchFields": [
            {"key": "metadata.name", "operator": "In", "values": [node]}]}]});
    }
    a
}

/// A `status.reservedFor` entry for a pod.
pub fn reserved_for(pod: &Value) -> Value {
    json!({"resource": "pods", "name": pod["metadata"]["name"], "uid": pod["metadata"]["uid"]})
}
