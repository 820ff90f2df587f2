//! Builders and the runner for the transcribed upstream table, after the helpers of
//! `staging/src/k8s.io/dynamic-resource-allocation/structured/internal/allocatortesting/allocator_testing.go`
//! (kubernetes/kubernetes v1.35): the same names, defaults and comparisons, so that each case
//! reads like its Go original.

use super::super::*;
use crate::core::api::{
    AllocationResult, CelDeviceSelector, Device, DeviceAllocationConfiguration, DeviceAllocationResult, DeviceAttribute,
    DeviceCapacity, DeviceClaim, DeviceClaimConfiguration, DeviceClassConfiguration, DeviceClassSpec, DeviceConstraint,
    DeviceRequest, DeviceRequestAllocationResult, DeviceSelector, DeviceSubRequest, DeviceTaint, DeviceToleration,
    ExactDeviceRequest, NodeSelector, NodeSelectorRequirement, NodeSelectorTerm, OpaqueDeviceConfiguration, QuantityStr,
    ResourceClaim, ResourceClaimSpec, ResourceObjectMeta, ResourcePool, ResourceSlice, ResourceSliceSpec,
};
use crate::core::model::Labels;
use std::collections::{BTreeMap, HashSet};
use std::sync::Arc;

pub const REGION1: &str = "region-1";
pub const REGION2: &str = "region-2";
pub const NODE1: &str = "node-1";
pub const NODE2: &str = "node-2";
pub const CLASS_A: &str = "class-a";
pub const CLASS_B: &str = "class-b";
pub const DRIVER_A: &str = "driver-a";
pub const DRIVER_B: &str = "driver-b";
pub const POOL1: &str = "pool-1";
pub const POOL2: &str = "pool-2";
pub const POOL3: &str = "pool-3";
pub const POOL4: &str = "pool-4";
pub const REQ0: &str = "req-0";
pub const REQ1: &str = "req-1";
pub const REQ2: &str = "req-2";
pub const SUB_REQ0: &str = "subReq-0";
pub const SUB_REQ1: &str = "subReq-1";
pub const REQ0_SUB_REQ0: &str = "req-0/subReq-0";
pub const REQ0_SUB_REQ1: &str = "req-0/subReq-1";
pub const REQ1_SUB_REQ0: &str = "req-1/subReq-0";
pub const REQ1_SUB_REQ1: &str = "req-1/subReq-1";
pub const CLAIM0: &str = "claim-0";
pub const CLAIM1: &str = "claim-1";
pub const SLICE1: &str = "slice-1";
pub const SLICE2: &str = "slice-2";
pub const SLICE3: &str = "slice-3";
pub const DEVICE0: &str = "device-0";
pub const DEVICE1: &str = "device-1";
pub const DEVICE2: &str = "device-2";
pub const DEVICE3: &str = "device-3";
pub const DEVICE4: &str = "device-4";
pub const FIELD_NAME_KEY: &str = "metadata.name";
pub const REGION_KEY: &str = "region";
pub const PLANET_KEY: &str = "planet";
pub const PLANET_VALUE_EARTH: &str = "earth";
pub const MAX_SIZE: i64 = crate::core::api::ALLOCATION_RESULTS_MAX_SIZE as i64;

// Attributes of driver-a used by the constraint cases.
pub const NON_EXISTENT_ATTRIBUTE: &str = "driver-a/NonExistentAttribute";
pub const BOOL_ATTRIBUTE: &str = "driver-a/boolAttribute";
pub const STRING_ATTRIBUTE: &str = "driver-a/stringAttribute";
pub const VERSION_ATTRIBUTE: &str = "driver-a/driverVersion";
pub const INT_ATTRIBUTE: &str = "driver-a/numa";

/// A node: its name and labels (`node(name, region)`).
pub struct TestNode {
    pub name: String,
    pub labels: Labels,
}

pub fn node(name: &str, region: &str) -> Option<TestNode> {
    let labels: BTreeMap<String, String> =
        [(REGION_KEY.to_string(), region.to_string()), (PLANET_KEY.to_string(), PLANET_VALUE_EARTH.to_string())].into();
    Some(TestNode { name: name.to_string(), labels: Labels::from_map(&labels) })
}

pub fn cel(expression: &str) -> DeviceSelector {
    DeviceSelector { cel: Some(CelDeviceSelector { expression: expression.to_string() }) }
}

/// `class(name, driver)`: selects the driver's devices.
pub fn class(name: &str, driver: &str) -> api::DeviceClass {
    api::DeviceClass {
        metadata: ResourceObjectMeta { name: name.to_string(), ..Default::default() },
        spec: DeviceClassSpec { selectors: vec![cel(&format!("device.driver == \"{driver}\""))], ..Default::default() },
        ..Default::default()
    }
}

/// `deviceConfiguration(driver, attribute)`: parameters `{"<attribute>":"<attribute>Value"}`.
pub fn device_configuration(driver: &str, attribute: &str) -> Option<OpaqueDeviceConfiguration> {
    Some(OpaqueDeviceConfiguration {
        driver: driver.to_string(),
        parameters: serde_json::json!({ attribute: format!("{attribute}Value") }),
    })
}

pub fn class_with_config(name: &str, driver: &str, attribute: &str) -> api::DeviceClass {
    let mut c = class(name, driver);
    c.spec.config = vec![DeviceClassConfiguration { opaque: device_configuration(driver, attribute) }];
    c
}

pub fn claim(name: &str) -> ResourceClaim {
    ResourceClaim { metadata: ResourceObjectMeta { name: name.to_string(), ..Default::default() }, ..Default::default() }
}

pub fn claim_with_requests(name: &str, constraints: Vec<DeviceConstraint>, requests: Vec<DeviceRequest>) -> ResourceClaim {
    ResourceClaim {
        metadata: ResourceObjectMeta { name: name.to_string(), ..Default::default() },
        spec: ResourceClaimSpec { devices: DeviceClaim { requests, constraints, config: Vec::new() } },
        ..Default::default()
    }
}

pub fn claim_with_request(name: &str, req: &str, class: &str, constraints: Vec<DeviceConstraint>) -> ResourceClaim {
    claim_with_requests(name, constraints, vec![request(req, class, 1, vec![])])
}

/// `claimWithDeviceConfig`: one request and a claim configuration for all requests.
pub fn claim_with_device_config(name: &str, req: &str, class: &str, driver: &str, attribute: &str) -> ResourceClaim {
    let mut c = claim_with_request(name, req, class, vec![]);
    c.spec.devices.config = vec![DeviceClaimConfiguration { requests: vec![], opaque: device_configuration(driver, attribute) }];
    c
}

pub fn device_claim_config(requests: &[&str], opaque: Option<OpaqueDeviceConfiguration>) -> DeviceClaimConfiguration {
    DeviceClaimConfiguration { requests: requests.iter().map(|r| r.to_string()).collect(), opaque }
}

pub fn request(name: &str, class: &str, count: i64, selectors: Vec<DeviceSelector>) -> DeviceRequest {
    DeviceRequest {
        name: name.to_string(),
        exactly: Some(ExactDeviceRequest {
            count,
            allocation_mode: api::ALLOCATION_MODE_EXACT_COUNT.to_string(),
            device_class_name: class.to_string(),
            selectors,
            ..Default::default()
        }),
        first_available: Vec::new(),
    }
}

pub fn all_device_request(name: &str, class: &str) -> DeviceRequest {
    DeviceRequest {
        name: name.to_string(),
        exactly: Some(ExactDeviceRequest {
            allocation_mode: api::ALLOCATION_MODE_ALL.to_string(),
            device_class_name: class.to_string(),
            ..Default::default()
        }),
        first_available: Vec::new(),
    }
}

pub fn sub_request(name: &str, class: &str, count: i64, selectors: Vec<DeviceSelector>) -> DeviceSubRequest {
    DeviceSubRequest {
        name: name.to_string(),
        count,
        allocation_mode: api::ALLOCATION_MODE_EXACT_COUNT.to_string(),
        device_class_name: class.to_string(),
        selectors,
        ..Default::default()
    }
}

pub fn sub_request_with_tolerations(name: &str, class: &str, count: i64, tolerations: Vec<DeviceToleration>) -> DeviceSubRequest {
    DeviceSubRequest { tolerations, ..sub_request(name, class, count, vec![]) }
}

pub fn request_with_prioritized_list(name: &str, subs: Vec<DeviceSubRequest>) -> DeviceRequest {
    DeviceRequest { name: name.to_string(), exactly: None, first_available: subs }
}

/// The request's exact part (for the cases that tweak it).
pub fn exact(r: &mut DeviceRequest) -> &mut ExactDeviceRequest {
    r.exactly.get_or_insert_with(Default::default)
}

/// `claim.withTolerations`: every request gets the tolerations.
pub fn with_tolerations(mut c: ResourceClaim, tolerations: &[DeviceToleration]) -> ResourceClaim {
    for r in &mut c.spec.devices.requests {
        exact(r).tolerations.extend(tolerations.iter().cloned());
    }
    c
}

pub fn with_requests(mut c: ResourceClaim, requests: Vec<DeviceRequest>) -> ResourceClaim {
    c.spec.devices.requests = requests;
    c
}

pub fn with_constraints(mut c: ResourceClaim, constraints: Vec<DeviceConstraint>) -> ResourceClaim {
    c.spec.devices.constraints = constraints;
    c
}

pub fn with_configs(mut c: ResourceClaim, configs: Vec<DeviceClaimConfiguration>) -> ResourceClaim {
    c.spec.devices.config = configs;
    c
}

pub fn match_attribute(requests: &[&str], attribute: &str) -> DeviceConstraint {
    DeviceConstraint {
        requests: requests.iter().map(|r| r.to_string()).collect(),
        match_attribute: Some(attribute.to_string()),
        distinct_attribute: None,
    }
}

pub fn int_attr(v: i64) -> DeviceAttribute {
    DeviceAttribute { int_value: Some(v), ..Default::default() }
}
pub fn bool_attr(v: bool) -> DeviceAttribute {
    DeviceAttribute { bool_value: Some(v), ..Default::default() }
}
pub fn string_attr(v: &str) -> DeviceAttribute {
    DeviceAttribute { string_value: Some(v.to_string()), ..Default::default() }
}
pub fn version_attr(v: &str) -> DeviceAttribute {
    DeviceAttribute { version_value: Some(v.to_string()), ..Default::default() }
}

/// `device(name, capacity, attributes)`.
pub fn device(name: &str, capacity: &[(&str, &str)], attributes: &[(&str, DeviceAttribute)]) -> Device {
    Device {
        name: name.to_string(),
        attributes: attributes.iter().map(|(k, v)| (k.to_string(), v.clone())).collect(),
        capacity: capacity
            .iter()
            .map(|(k, v)| (k.to_string(), DeviceCapacity { value: QuantityStr(v.to_string()), request_policy: None }))
            .collect(),
        ..Default::default()
    }
}

pub fn with_taints(mut d: Device, taints: &[DeviceTaint]) -> Device {
    d.taints.extend(taints.iter().cloned());
    d
}

pub fn with_binding_conditions(mut d: Device, conditions: &[&str], failure: &[&str]) -> Device {
    d.binding_conditions = conditions.iter().map(|c| c.to_string()).collect();
    d.binding_failure_conditions = failure.iter().map(|c| c.to_string()).collect();
    d
}

/// `deviceCounterConsumption(counterSet, counters)`.
pub fn consumes(mut d: Device, counter_set: &str, counters: &[(&str, &str)]) -> Device {
    d.consumes_counters.push(api::DeviceCounterConsumption {
        counter_set: counter_set.to_string(),
        counters: counters.iter().map(|(k, v)| (k.to_string(), api::Counter { value: QuantityStr(v.to_string()) })).collect(),
    });
    d
}

/// `counterSet(name, counters)`.
pub fn counter_set(name: &str, counters: &[(&str, &str)]) -> api::CounterSet {
    api::CounterSet {
        name: name.to_string(),
        counters: counters.iter().map(|(k, v)| (k.to_string(), api::Counter { value: QuantityStr(v.to_string()) })).collect(),
    }
}

/// `sliceWithCounterSets(name, nodeSelection, pool, driver, counterSets...)`.
pub fn slice_with_counter_sets(
    name: &str,
    selection: Sel,
    pool: ResourcePool,
    driver: &str,
    sets: Vec<api::CounterSet>,
) -> ResourceSlice {
    let mut s = slice(name, selection, pool, driver, vec![]);
    s.spec.shared_counters = sets;
    s
}

/// How a slice (or device) selects nodes (`nodeSelection` of the Go helpers).
#[derive(Clone)]
pub enum Sel {
    Node(&'static str),
    All,
    PerDevice,
    Selector(NodeSelector),
}

/// A pool: name only (one slice, generation 1) or a full `ResourcePool`.
pub fn pool(name: &str) -> ResourcePool {
    ResourcePool { name: name.to_string(), generation: 1, resource_slice_count: 1 }
}

/// `resourcePool(name, count)`.
pub fn resource_pool(name: &str, count: i64) -> ResourcePool {
    ResourcePool { name: name.to_string(), generation: 1, resource_slice_count: count }
}

pub fn slice(name: &str, selection: Sel, pool: ResourcePool, driver: &str, devices: Vec<Device>) -> ResourceSlice {
    let mut spec = ResourceSliceSpec { driver: driver.to_string(), pool, devices, ..Default::default() };
    match selection {
        Sel::Node(n) => spec.node_name = Some(n.to_string()),
        Sel::All => spec.all_nodes = Some(true),
        Sel::PerDevice => spec.per_device_node_selection = Some(true),
        Sel::Selector(s) => spec.node_selector = Some(s),
    }
    ResourceSlice { metadata: ResourceObjectMeta { name: name.to_string(), ..Default::default() }, spec, ..Default::default() }
}

pub fn slice_with_no_devices(name: &str, selection: Sel, pool: ResourcePool, driver: &str) -> ResourceSlice {
    slice(name, selection, pool, driver, vec![])
}

pub fn slice_with_one_device(name: &str, selection: Sel, pool: ResourcePool, driver: &str) -> ResourceSlice {
    slice(name, selection, pool, driver, vec![device(DEVICE1, &[], &[])])
}

pub fn slice_with_multiple_devices(name: &str, selection: Sel, pool: ResourcePool, driver: &str, count: usize) -> ResourceSlice {
    slice(name, selection, pool, driver, (0..count).map(|i| device(&format!("device-{i}"), &[], &[])).collect())
}

/// Set a device's own node selection (per-device node selection).
pub fn with_node_selection(mut d: Device, selection: Sel) -> Device {
    match selection {
        Sel::Node(n) => d.node_name = Some(n.to_string()),
        Sel::All => d.all_nodes = Some(true),
        Sel::Selector(s) => d.node_selector = Some(s),
        Sel::PerDevice => unreachable!("nodeSelectionPerDevice is not supported for devices"),
    }
    d
}

/// `nodeLabelSelector(key, values...)`.
pub fn node_label_selector(key: &str, values: &[&str]) -> NodeSelector {
    NodeSelector {
        node_selector_terms: vec![NodeSelectorTerm {
            match_expressions: vec![NodeSelectorRequirement {
                key: key.to_string(),
                operator: "In".to_string(),
                values: values.iter().map(|v| v.to_string()).collect(),
            }],
            ..Default::default()
        }],
    }
}

/// `localNodeSelector(node)`.
pub fn local_node_selector(node: &str) -> NodeSelector {
    let mut s = node_label_selector(FIELD_NAME_KEY, &[node]);
    let term = &mut s.node_selector_terms[0];
    std::mem::swap(&mut term.match_fields, &mut term.match_expressions);
    s
}

pub fn device_allocation_result(
    request: &str,
    driver: &str,
    pool: &str,
    device: &str,
    admin: bool,
) -> DeviceRequestAllocationResult {
    DeviceRequestAllocationResult {
        request: request.to_string(),
        driver: driver.to_string(),
        pool: pool.to_string(),
        device: device.to_string(),
        admin_access: admin.then_some(true),
        ..Default::default()
    }
}

pub fn device_allocation_result_with_tolerations(
    request: &str,
    driver: &str,
    pool: &str,
    device: &str,
    tolerations: &[DeviceToleration],
) -> DeviceRequestAllocationResult {
    DeviceRequestAllocationResult {
        tolerations: tolerations.to_vec(),
        ..device_allocation_result(request, driver, pool, device, false)
    }
}

/// `multipleDeviceAllocationResults(request, driver, pool, count, startIndex)`.
pub fn multiple_device_allocation_results(
    request: &str,
    driver: &str,
    pool: &str,
    count: usize,
    start: usize,
) -> Vec<DeviceRequestAllocationResult> {
    (start..start + count).map(|i| device_allocation_result(request, driver, pool, &format!("device-{i}"), false)).collect()
}

/// What one claim's result must be.
#[derive(Debug, Clone)]
pub enum Want {
    /// `allocationResult(selector, results...)`: results in any order, no config, the node
    /// selector with terms, requirements and values in any order.
    Matcher { selector: Option<NodeSelector>, results: Vec<DeviceRequestAllocationResult> },
    /// A plain `AllocationResult`: equal as is.
    Exact(AllocationResult),
}

pub fn allocation_result(selector: Option<NodeSelector>, results: Vec<DeviceRequestAllocationResult>) -> Want {
    Want::Matcher { selector, results }
}

/// `allocationResultWithConfig`: one configuration (without request names).
pub fn allocation_result_with_config(
    selector: Option<NodeSelector>,
    driver: &str,
    source: &str,
    attribute: &str,
    results: Vec<DeviceRequestAllocationResult>,
) -> Want {
    Want::Exact(AllocationResult {
        devices: DeviceAllocationResult {
            results,
            config: vec![DeviceAllocationConfiguration {
                source: source.to_string(),
                requests: vec![],
                opaque: device_configuration(driver, attribute),
            }],
        },
        node_selector: selector,
        allocation_timestamp: None,
    })
}

pub fn allocation_result_with_configs(
    selector: Option<NodeSelector>,
    results: Vec<DeviceRequestAllocationResult>,
    config: Vec<DeviceAllocationConfiguration>,
) -> Want {
    Want::Exact(AllocationResult {
        devices: DeviceAllocationResult { results, config },
        node_selector: selector,
        allocation_timestamp: None,
    })
}

pub fn config(source: &str, requests: &[&str], opaque: Option<OpaqueDeviceConfiguration>) -> DeviceAllocationConfiguration {
    DeviceAllocationConfiguration {
        source: source.to_string(),
        requests: requests.iter().map(|r| r.to_string()).collect(),
        opaque,
    }
}

/// What a case expects.
#[derive(Debug, Clone)]
pub enum Expect {
    /// `expectResults` (nil or empty: nothing is allocated and there is no error).
    Results(Vec<Want>),
    /// `expectError: ContainSubstring(...)`.
    Error(&'static str),
}

/// One case of the table.
pub struct Case {
    pub name: &'static str,
    pub features: Features,
    pub claims: Vec<ResourceClaim>,
    pub allocated: Vec<DeviceId>,
    pub classes: Vec<api::DeviceClass>,
    pub slices: Vec<ResourceSlice>,
    pub node: Option<TestNode>,
    pub expect: Expect,
    /// `expectNumAllocateOneInvocations` (0: not checked).
    pub invocations: u64,
}

impl Default for Case {
    fn default() -> Case {
        Case {
            name: "",
            features: Features::default(),
            claims: vec![],
            allocated: vec![],
            classes: vec![],
            slices: vec![],
            node: None,
            expect: Expect::Results(vec![]),
            invocations: 0,
        }
    }
}

pub fn id(driver: &str, pool: &str, device: &str) -> DeviceId {
    DeviceId::new(driver, pool, device)
}

fn sorted_selector(s: &NodeSelector) -> NodeSelector {
    let mut s = s.clone();
    for t in &mut s.node_selector_terms {
        for r in t.match_expressions.iter_mut().chain(t.match_fields.iter_mut()) {
            r.values.sort();
        }
        t.match_expressions.sort_by(|a, b| (&a.key, &a.operator, &a.values).cmp(&(&b.key, &b.operator, &b.values)));
        t.match_fields.sort_by(|a, b| (&a.key, &a.operator, &a.values).cmp(&(&b.key, &b.operator, &b.values)));
    }
    s.node_selector_terms.sort_by_key(|t| format!("{t:?}"));
    s
}

fn sorted_results(r: &[DeviceRequestAllocationResult]) -> Vec<DeviceRequestAllocationResult> {
    let mut r = r.to_vec();
    r.sort_by_key(|d| format!("{d:?}"));
    r
}

impl Want {
    fn matches(&self, got: &AllocationResult) -> bool {
        match self {
            Want::Exact(want) => want == got,
            Want::Matcher { selector, results } => {
                got.devices.config.is_empty()
                    && got.allocation_timestamp.is_none()
                    && sorted_results(results) == sorted_results(&got.devices.results)
                    && selector.as_ref().map(sorted_selector) == got.node_selector.as_ref().map(sorted_selector)
            }
        }
    }
}

/// `gomega.ConsistOf`: each wanted result matches a different actual one.
fn consist_of(got: &[AllocationResult], want: &[Want]) -> bool {
    fn assign(got: &[AllocationResult], want: &[Want], used: &mut Vec<bool>) -> bool {
        let Some((first, rest)) = want.split_first() else { return true };
        for i in 0..got.len() {
            if !used[i] && first.matches(&got[i]) {
                used[i] = true;
                if assign(got, rest, used) {
                    return true;
                }
                used[i] = false;
            }
        }
        false
    }
    got.len() == want.len() && assign(got, want, &mut vec![false; got.len()])
}

/// Run one case against the allocator with the given selector evaluator.
pub fn run(case: &Case, selectors: &mut dyn SelectorEvaluator) {
    let name = case.name;
    let allocated: HashSet<DeviceId> = case.allocated.iter().cloned().collect();
    let classes: Vec<api::DeviceClass> = case.classes.clone();
    let prepared: Vec<Arc<PreparedSlice>> =
        case.slices.iter().map(|s| Arc::new(PreparedSlice::new(s).expect("slice prepares"))).collect();
    // Listers return the objects in the order of the case.
    let index = SliceIndex::in_given_order(prepared);
    let allocator = Allocator::new(case.features, &allocated, &classes, &index).expect("features supported");
    let empty = Labels::default();
    let node = match &case.node {
        Some(n) => NodeRef { name: &n.name, labels: &n.labels },
        None => NodeRef { name: "", labels: &empty },
    };
    let claims: Vec<&ResourceClaim> = case.claims.iter().collect();
    let got = allocator.allocate(node, &claims, selectors, &NoDeadline);
    match (&case.expect, &got) {
        (Expect::Results(want), Ok(got)) => {
            assert!(consist_of(got, want), "{name}: results differ\n got: {got:#?}\nwant: {want:#?}")
        }
        (Expect::Results(want), Err(AllocError::CannotAllocate)) => {
            assert!(want.is_empty(), "{name}: nothing allocated, want {want:#?}")
        }
        (Expect::Error(text), Err(e)) if !matches!(e, AllocError::CannotAllocate) => {
            assert!(e.to_string().contains(text), "{name}: error {e:?} does not contain {text:?}")
        }
        (want, got) => panic!("{name}: got {got:#?}, want {want:#?}"),
    }
    if case.invocations > 0 {
        assert_eq!(allocator.allocate_one_invocations(), case.invocations, "{name}: allocateOne invocations");
    }
}
