//! Decoding real-shaped `resource.k8s.io/v1` objects with Go's rules, and writing them back as Go
//! would. The fixtures are written after the examples of the Kubernetes documentation (v1.35):
//! "Install Drivers and Allocate Devices with DRA" (`content/en/docs/tutorials/cluster-management/
//! install-use-dra.md`: the dra-example-driver's `gpu.example.com` slices, class and claims),
//! "Dynamic Resource Allocation" (`content/en/docs/concepts/scheduling-eviction/
//! dynamic-resource-allocation.md`: prioritized lists, admin access, partitionable devices with
//! shared counters, device taints) and the API reference of `resource.k8s.io/v1`.

use super::*;
use crate::core::api::{NodeSelectorRequirement, NodeSelectorTerm, Pod};
use crate::core::gojson;
use serde_json::json;

/// A node-local slice as the dra-example-driver publishes it (install-use-dra.md).
const NODE_LOCAL_SLICE: &str = r#"{
  "apiVersion": "resource.k8s.io/v1",
  "kind": "ResourceSlice",
  "metadata": {
    "creationTimestamp": "2025-08-20T10:01:51Z",
    "generateName": "kind-worker-gpu.example.com-",
    "generation": 1,
    "name": "kind-worker-gpu.example.com-k69gd",
    "ownerReferences": [{"apiVersion": "v1", "controller": true, "kind": "Node", "name": "kind-worker", "uid": "3e0f3ec4-5ad2-4e3b-9d3d-6a1fbbcb8b29"}],
    "resourceVersion": "462",
    "uid": "c2b0a4a2-2d8e-4f6a-9d0c-5b1f6f0a7b11"
  },
  "spec": {
    "driver": "gpu.example.com",
    "nodeName": "kind-worker",
    "pool": {"generation": 0, "name": "kind-worker", "resourceSliceCount": 1},
    "devices": [
      {"name": "gpu-0",
       "attributes": {"driverVersion": {"version": "1.0.0"}, "index": {"int": 0}, "model": {"string": "LATEST-GPU-MODEL"},
                      "uuid": {"string": "gpu-18db0e85-99e9-c746-8531-ffeb86328b39"}},
       "capacity": {"memory": {"value": "80Gi"}}},
      {"name": "gpu-1",
       "attributes": {"driverVersion": {"version": "1.0.0"}, "index": {"int": 1}, "model": {"string": "LATEST-GPU-MODEL"},
                      "uuid": {"string": "gpu-93d37703-997c-c46f-a531-755e3e0dc2ac"}},
       "capacity": {"memory": {"value": "80Gi"}}}
    ]
  }
}"#;

/// The class the example driver installs (install-use-dra.md), with an opaque class config.
const CLASS: &str = r#"{
  "apiVersion": "resource.k8s.io/v1",
  "kind": "DeviceClass",
  "metadata": {"name": "gpu.example.com", "resourceVersion": "12", "uid": "0b5c"},
  "spec": {
    "selectors": [{"cel": {"expression": "device.driver == 'gpu.example.com'"}}],
    "config": [{"opaque": {"driver": "gpu.example.com", "parameters": {"apiVersion": "gpu.resource.example.com/v1alpha1", "kind": "GpuConfig", "sharing": {"strategy": "TimeSlicing"}}}}]
  }
}"#;

/// A claim made from a template, allocated and reserved for its pod, with a driver's device
/// status (dynamic-resource-allocation.md, "ResourceClaim device status").
const ALLOCATED_CLAIM: &str = r#"{
  "apiVersion": "resource.k8s.io/v1",
  "kind": "ResourceClaim",
  "metadata": {
    "annotations": {"resource.kubernetes.io/pod-claim-name": "gpu"},
    "finalizers": ["resource.kubernetes.io/delete-protection"],
    "generateName": "pod0-gpu-",
    "name": "pod0-gpu-lhp8j",
    "namespace": "gpu-test1",
    "ownerReferences": [{"apiVersion": "v1", "blockOwnerDeletion": true, "controller": true, "kind": "Pod", "name": "pod0", "uid": "a1b2"}],
    "resourceVersion": "1074",
    "uid": "3b4e"
  },
  "spec": {"devices": {"requests": [{"name": "gpu", "exactly": {"allocationMode": "ExactCount", "count": 1, "deviceClassName": "gpu.example.com"}}]}},
  "status": {
    "allocation": {
      "devices": {
        "results": [{"device": "gpu-0", "driver": "gpu.example.com", "pool": "kind-worker", "request": "gpu"}],
        "config": [{"source": "FromClass", "requests": ["gpu"], "opaque": {"driver": "gpu.example.com", "parameters": {"kind": "GpuConfig"}}}]
      },
      "nodeSelector": {"nodeSelectorTerms": [{"matchFields": [{"key": "metadata.name", "operator": "In", "values": ["kind-worker"]}]}]}
    },
    "reservedFor": [{"name": "pod0", "resource": "pods", "uid": "a1b2"}],
    "devices": [{"driver": "gpu.example.com", "pool": "kind-worker", "device": "gpu-0",
                 "conditions": [{"type": "Ready", "status": "True", "lastTransitionTime": "2025-08-20T10:02:10Z", "reason": "Prepared", "message": ""}],
                 "data": {"healthy": true},
                 "networkData": {"interfaceName": "eth1", "ips": ["10.9.8.0/24"], "hardwareAddress": "ea:9f:cb:40:b1:7b"}}]
  }
}"#;

/// A template with a prioritized list, a constraint and a claim config
/// (dynamic-resource-allocation.md, "Prioritized list").
const TEMPLATE: &str = r#"{
  "apiVersion": "resource.k8s.io/v1",
  "kind": "ResourceClaimTemplate",
  "metadata": {"name": "prioritized-list-claim-template", "namespace": "default"},
  "spec": {
    "metadata": {"labels": {"app": "inference"}},
    "spec": {
      "devices": {
        "requests": [{
          "name": "req-0",
          "firstAvailable": [
            {"name": "large-black", "deviceClassName": "resource.example.com",
             "selectors": [{"cel": {"expression": "device.attributes[\"resource-driver.example.com\"].color == \"black\" && device.attributes[\"resource-driver.example.com\"].size == \"large\""}}]},
            {"name": "small-white", "deviceClassName": "resource.example.com", "allocationMode": "ExactCount", "count": 2,
             "selectors": [{"cel": {"expression": "device.attributes[\"resource-driver.example.com\"].color == \"white\""}}]}
          ]
        }, {
          "name": "nic", "exactly": {"deviceClassName": "nic.example.com", "allocationMode": "All", "adminAccess": true}
        }],
        "constraints": [{"requests": ["req-0", "nic"], "matchAttribute": "resource.kubernetes.io/pcieRoot"}],
        "config": [{"requests": ["req-0/small-white"], "opaque": {"driver": "resource-driver.example.com", "parameters": null}}]
      }
    }
  }
}"#;

/// A network-attached pool with partitionable devices (alpha in v1.35): shared counters in one
/// slice, devices consuming them with per-device node selection in another
/// (dynamic-resource-allocation.md, "Partitionable devices"; taints from "Device taints").
const PARTITIONABLE_SLICES: [&str; 2] = [
    r#"{"metadata": {"name": "counters"}, "spec": {"driver": "gpu.example.com", "pool": {"name": "fabric", "generation": 3, "resourceSliceCount": 2},
        "nodeSelector": {"nodeSelectorTerms": [{"matchExpressions": [{"key": "rack", "operator": "In", "values": ["r1"]}]}]},
        "sharedCounters": [{"name": "gpu-1-counters", "counters": {"memory": {"value": "8Gi"}}}]}}"#,
    r#"{"metadata": {"name": "devices"}, "spec": {"driver": "gpu.example.com", "pool": {"name": "fabric", "generation": 3, "resourceSliceCount": 2},
        "perDeviceNodeSelection": true,
        "devices": [{"name": "gpu-1-mig-1g", "nodeName": "node-a", "allowMultipleAllocations": false,
                     "consumesCounters": [{"counterSet": "gpu-1-counters", "counters": {"memory": {"value": "1Gi"}}}],
                     "capacity": {"memory": {"value": "1Gi", "requestPolicy": {"default": "1Gi", "validRange": {"min": "1Gi", "step": "1Gi"}}}},
                     "taints": [{"key": "dra.example.com/unhealthy", "value": "Broken", "effect": "NoSchedule", "timeAdded": "2025-08-20T10:00:00Z"}],
                     "bindsToNode": true, "bindingConditions": ["dra.example.com/attached"], "bindingFailureConditions": ["dra.example.com/failed"]},
                    {"name": "gpu-1-mig-all", "allNodes": true}]}}"#,
];

#[test]
fn node_local_slice_decodes() {
    let s: ResourceSlice = gojson::from_str(NODE_LOCAL_SLICE).expect("decodes");
    assert_eq!(s.metadata.name, "kind-worker-gpu.example.com-k69gd");
    assert_eq!(s.metadata.owner_references[0].kind, "Node");
    assert_eq!((s.spec.driver.as_str(), s.spec.node_name.as_deref()), ("gpu.example.com", Some("kind-worker")));
    assert_eq!(s.spec.pool, ResourcePool { name: "kind-worker".into(), generation: 0, resource_slice_count: 1 });
    assert_eq!(s.spec.node_selector, None);
    assert_eq!(s.spec.all_nodes, None);
    let gpu = &s.spec.devices[1];
    assert_eq!(gpu.name, "gpu-1");
    assert_eq!(gpu.attributes["index"], DeviceAttribute { int_value: Some(1), ..Default::default() });
    assert_eq!(gpu.attributes["driverVersion"].version_value.as_deref(), Some("1.0.0"));
    assert_eq!(gpu.attributes["model"].string_value.as_deref(), Some("LATEST-GPU-MODEL"));
    let memory = crate::core::quantity::Quantity::parse(&gpu.capacity["memory"].value.0).expect("quantity");
    assert_eq!(memory.value(), 80 << 30);
}

#[test]
fn class_decodes_with_its_config() {
    let c: DeviceClass = gojson::from_str(CLASS).expect("decodes");
    assert_eq!(c.metadata.name, "gpu.example.com");
    assert_eq!(c.spec.selectors[0].cel.as_ref().map(|s| s.expression.as_str()), Some("device.driver == 'gpu.example.com'"));
    let opaque = c.spec.config[0].opaque.as_ref().expect("opaque");
    assert_eq!(opaque.driver, "gpu.example.com");
    assert_eq!(opaque.parameters["sharing"]["strategy"], "TimeSlicing");
    assert_eq!(c.spec.extended_resource_name, None);
}

#[test]
fn allocated_claim_decodes() {
    let c: ResourceClaim = gojson::from_str(ALLOCATED_CLAIM).expect("decodes");
    assert_eq!(c.metadata.finalizers, [CLAIM_FINALIZER]);
    assert_eq!(c.metadata.annotations["resource.kubernetes.io/pod-claim-name"], "gpu");
    assert_eq!(c.metadata.owner_references[0].uid, "a1b2");
    let request = &c.spec.devices.requests[0];
    let exactly = request.exactly.as_ref().expect("exactly");
    assert_eq!(
        (exactly.device_class_name.as_str(), exactly.allocation_mode.as_str(), exactly.count),
        ("gpu.example.com", "ExactCount", 1)
    );
    let allocation = c.status.allocation.as_ref().expect("allocated");
    let r = &allocation.devices.results[0];
    assert_eq!(
        (r.request.as_str(), r.driver.as_str(), r.pool.as_str(), r.device.as_str()),
        ("gpu", "gpu.example.com", "kind-worker", "gpu-0")
    );
    assert_eq!(allocation.devices.config[0].source, CONFIG_SOURCE_CLASS);
    let term = &allocation.node_selector.as_ref().expect("node selector").node_selector_terms[0];
    assert_eq!(term.match_fields[0].values, ["kind-worker"]);
    assert_eq!(
        c.status.reserved_for,
        [ResourceClaimConsumerReference {
            api_group: String::new(),
            resource: "pods".into(),
            name: "pod0".into(),
            uid: "a1b2".into()
        }]
    );
    let device = &c.status.devices[0];
    assert_eq!(device.conditions[0].type_, "Ready");
    assert_eq!(device.data, Some(json!({"healthy": true})));
    assert_eq!(device.network_data.as_ref().map(|n| n.ips.clone()), Some(vec!["10.9.8.0/24".to_string()]));
}

#[test]
fn template_with_prioritized_list_decodes() {
    let t: ResourceClaimTemplate = gojson::from_str(TEMPLATE).expect("decodes");
    assert_eq!(t.spec.metadata.labels["app"], "inference");
    let devices = &t.spec.spec.devices;
    let first = &devices.requests[0];
    assert!(first.exactly.is_none());
    assert_eq!(first.first_available.iter().map(|s| s.name.as_str()).collect::<Vec<_>>(), ["large-black", "small-white"]);
    assert_eq!((first.first_available[1].allocation_mode.as_str(), first.first_available[1].count), ("ExactCount", 2));
    let nic = devices.requests[1].exactly.as_ref().expect("exactly");
    assert_eq!((nic.allocation_mode.as_str(), nic.admin_access, nic.count), ("All", Some(true), 0));
    assert_eq!(devices.constraints[0].match_attribute.as_deref(), Some("resource.kubernetes.io/pcieRoot"));
    assert_eq!(devices.constraints[0].requests, ["req-0", "nic"]);
    // `parameters: null` is a nil RawExtension.
    assert_eq!(devices.config[0].opaque.as_ref().map(|o| o.parameters.clone()), Some(serde_json::Value::Null));
}

#[test]
fn alpha_fields_decode_so_the_allocator_can_refuse_them() {
    let counters: ResourceSlice = gojson::from_str(PARTITIONABLE_SLICES[0]).expect("decodes");
    assert_eq!(counters.spec.shared_counters[0].counters["memory"].value.0, "8Gi");
    assert!(counters.spec.node_selector.is_some());
    let devices: ResourceSlice = gojson::from_str(PARTITIONABLE_SLICES[1]).expect("decodes");
    assert_eq!(devices.spec.per_device_node_selection, Some(true));
    let d = &devices.spec.devices[0];
    assert_eq!(d.node_name.as_deref(), Some("node-a"));
    assert_eq!(d.consumes_counters[0].counter_set, "gpu-1-counters");
    assert_eq!(d.consumes_counters[0].counters["memory"].value.0, "1Gi");
    let policy = d.capacity["memory"].request_policy.as_ref().expect("policy");
    assert_eq!(policy.default.as_ref().map(|q| q.0.as_str()), Some("1Gi"));
    assert_eq!(policy.valid_range.as_ref().and_then(|r| r.step.clone()).map(|q| q.0), Some("1Gi".to_string()));
    assert_eq!(d.taints[0].effect, "NoSchedule");
    assert_eq!((d.binds_to_node, d.binding_conditions.len(), d.binding_failure_conditions.len()), (Some(true), 1, 1));
    assert_eq!(d.allow_multiple_allocations, Some(false));
    assert_eq!(devices.spec.devices[1].all_nodes, Some(true));
}

/// Every fixture survives decode → encode → decode unchanged.
#[test]
fn fixtures_round_trip() {
    fn round_trip<T: serde::de::DeserializeOwned + Serialize + PartialEq + std::fmt::Debug>(text: &str) {
        let first: T = gojson::from_str(text).expect("decodes");
        let written = serde_json::to_string(&first).expect("encodes");
        let second: T = gojson::from_str(&written).expect("decodes again");
        assert_eq!(first, second, "{written}");
    }
    round_trip::<ResourceSlice>(NODE_LOCAL_SLICE);
    round_trip::<ResourceSlice>(PARTITIONABLE_SLICES[0]);
    round_trip::<ResourceSlice>(PARTITIONABLE_SLICES[1]);
    round_trip::<DeviceClass>(CLASS);
    round_trip::<ResourceClaim>(ALLOCATED_CLAIM);
    round_trip::<ResourceClaimTemplate>(TEMPLATE);
}

/// What the scheduler writes into `status` is the JSON Go's encoder writes for the same values:
/// field names and order of the Go structs, `omitempty` fields left out when empty, fields
/// without it always present.
#[test]
fn allocation_status_is_written_as_go_writes_it() {
    let status = ResourceClaimStatus {
        allocation: Some(AllocationResult {
            devices: DeviceAllocationResult {
                results: vec![DeviceRequestAllocationResult {
                    request: "gpu".into(),
                    driver: "gpu.example.com".into(),
                    pool: "kind-worker".into(),
                    device: "gpu-0".into(),
                    ..Default::default()
                }],
                config: vec![DeviceAllocationConfiguration {
                    source: CONFIG_SOURCE_CLASS.into(),
                    requests: vec!["gpu".into()],
                    opaque: Some(OpaqueDeviceConfiguration { driver: "gpu.example.com".into(), parameters: json!({"a": 1}) }),
                }],
            },
            node_selector: Some(NodeSelector {
                node_selector_terms: vec![NodeSelectorTerm {
                    match_fields: vec![NodeSelectorRequirement {
                        key: "metadata.name".into(),
                        operator: "In".into(),
                        values: vec!["kind-worker".into()],
                    }],
                    ..Default::default()
                }],
            }),
            allocation_timestamp: None,
        }),
        reserved_for: vec![ResourceClaimConsumerReference {
            api_group: String::new(),
            resource: "pods".into(),
            name: "pod0".into(),
            uid: "a1b2".into(),
        }],
        devices: Vec::new(),
    };
    assert_eq!(
        serde_json::to_string(&status).expect("encodes"),
        concat!(
            r#"{"allocation":{"devices":{"results":[{"request":"gpu","driver":"gpu.example.com","pool":"kind-worker","device":"gpu-0"}],"#,
            r#""config":[{"source":"FromClass","requests":["gpu"],"opaque":{"driver":"gpu.example.com","parameters":{"a":1}}}]},"#,
            r#""nodeSelector":{"nodeSelectorTerms":[{"matchFields":[{"key":"metadata.name","operator":"In","values":["kind-worker"]}]}]}},"#,
            r#""reservedFor":[{"resource":"pods","name":"pod0","uid":"a1b2"}]}"#
        )
    );
    // An allocation without devices still writes `devices` (a struct: Go's omitempty keeps it);
    // admin access is written only when set.
    let empty = AllocationResult::default();
    assert_eq!(serde_json::to_string(&empty).expect("encodes"), r#"{"devices":{}}"#);
    let admin = DeviceRequestAllocationResult { admin_access: Some(true), ..Default::default() };
    assert_eq!(
        serde_json::to_string(&admin).expect("encodes"),
        r#"{"request":"","driver":"","pool":"","device":"","adminAccess":true}"#
    );
}

/// Go's rules: `null` is the zero value at any depth, unknown fields (here the v1.36+ list-typed
/// attributes, `partitionTypeAttribute`, `skipNodeOperations`) are ignored, quantities may be
/// numbers, a value of the wrong type fails the object.
#[test]
fn nulls_unknown_fields_and_numbers_decode_as_go_does() {
    let raw = r#"{"metadata": null, "spec": {"driver": null, "pool": null, "nodeName": null, "devices": [null,
        {"name": "d", "attributes": {"a": null, "b": {"ints": [1, 2]}, "c": {"int": null, "bool": true}}, "capacity": {"m": {"value": 4}, "n": null},
         "nodeAllocatableResources": {"cpu": {"mapping": {"deviceMultiplier": "8"}}}}],
        "partitionTypeAttribute": "x/y", "skipNodeOperations": ["*"]}}"#;
    let s: ResourceSlice = gojson::from_str(raw).expect("decodes");
    assert_eq!(s.spec.driver, "");
    assert_eq!(s.spec.pool, ResourcePool::default());
    assert_eq!(s.spec.node_name, None);
    assert_eq!(s.spec.devices[0], Device::default());
    let d = &s.spec.devices[1];
    assert_eq!(d.attributes["a"], DeviceAttribute::default());
    assert_eq!(d.attributes["b"], DeviceAttribute::default(), "list attributes are not v1.35's");
    assert_eq!(d.attributes["c"], DeviceAttribute { bool_value: Some(true), ..Default::default() });
    assert_eq!((d.capacity["m"].value.0.as_str(), d.capacity["n"].value.0.as_str()), ("4", ""));

    let raw = r#"{"spec": {"devices": {"requests": [{"name": "r", "exactly": {"deviceClassName": "c", "count": null, "selectors": null,
        "derivedAttributes": [{"name": "x/y", "expression": "1"}]}}], "constraints": null}}, "status": {"allocation": null, "reservedFor": null}}"#;
    let c: ResourceClaim = gojson::from_str(raw).expect("decodes");
    assert_eq!(c.spec.devices.requests[0].exactly.as_ref().map(|e| e.count), Some(0));
    assert_eq!(c.status, ResourceClaimStatus::default());

    // Wrong types are errors, as Go's decoder reports them.
    for bad in [
        r#"{"spec": {"pool": {"generation": "1"}}}"#,
        r#"{"spec": {"pool": {"generation": 1.5}}}"#,
        r#"{"spec": {"devices": [{"attributes": {"a": {"int": "1"}}}]}}"#,
        r#"{"spec": {"devices": {}}}"#,
    ] {
        assert!(gojson::from_str::<ResourceSlice>(bad).is_err(), "{bad}");
    }
}

/// A pod's claims and the names the controller recorded decode into the typed fields and write
/// back with Go's names.
#[test]
fn pod_claims_decode_and_write_back() {
    let raw = r#"{"metadata": {"name": "pod0", "namespace": "gpu-test1"},
        "spec": {"containers": [{"name": "ctr0", "image": "ubuntu:22.04", "resources": {"claims": [{"name": "gpu"}]}}],
                 "resourceClaims": [{"name": "gpu", "resourceClaimTemplateName": "single-gpu"}, {"name": "shared", "resourceClaimName": "shared-gpu"}]},
        "status": {"resourceClaimStatuses": [{"name": "gpu", "resourceClaimName": "pod0-gpu-lhp8j"}]}}"#;
    let pod: Pod = gojson::from_str(raw).expect("decodes");
    assert_eq!(pod.spec.resource_claims[0].resource_claim_template_name.as_deref(), Some("single-gpu"));
    assert_eq!(pod.spec.resource_claims[1].resource_claim_name.as_deref(), Some("shared-gpu"));
    assert_eq!(pod.status.resource_claim_statuses[0].resource_claim_name.as_deref(), Some("pod0-gpu-lhp8j"));
    let written = serde_json::to_value(&pod.spec.resource_claims).expect("encodes");
    assert_eq!(
        written,
        json!([{"name": "gpu", "resourceClaimTemplateName": "single-gpu"}, {"name": "shared", "resourceClaimName": "shared-gpu"}])
    );
}
