//! edgesched's own allocator cases: the fixed order in which pools, slices and devices are
//! tried (upstream's is a map's, so its table avoids depending on it), the backtracking this
//! order leads to, `All` mode, the per-node slice index and the deadline.

use super::harness::*;
use crate::core::api;
use crate::core::dra::allocator::*;
use crate::core::dra::cel::{CelFeatures, SelectorCache};
use std::cell::Cell;
use std::collections::HashSet;
use std::sync::Arc;

fn cel_selectors() -> SelectorCache {
    SelectorCache::new(CelFeatures::default())
}

fn prepared(slices: &[api::ResourceSlice]) -> Vec<Arc<PreparedSlice>> {
    slices.iter().map(|s| Arc::new(PreparedSlice::new(s).expect("prepares"))).collect()
}

/// Allocate with a sorted index (what the scheduler's cache builds).
fn allocate_sorted(
    features: Features,
    claims: &[api::ResourceClaim],
    allocated: &[DeviceId],
    classes: Vec<api::DeviceClass>,
    slices: &[api::ResourceSlice],
    node_name: &str,
) -> (Result<Vec<api::AllocationResult>, AllocError>, u64) {
    let index = SliceIndex::new(prepared(slices));
    let allocated: HashSet<DeviceId> = allocated.iter().cloned().collect();
    let allocator = Allocator::new(features, &allocated, &classes, &index).expect("features");
    let n = node(node_name, REGION1).expect("node");
    let claims: Vec<&api::ResourceClaim> = claims.iter().collect();
    let got = allocator.allocate(NodeRef { name: &n.name, labels: &n.labels }, &claims, &mut cel_selectors(), &NoDeadline);
    (got, allocator.allocate_one_invocations())
}

fn devices_of(result: &api::AllocationResult) -> Vec<String> {
    result.devices.results.iter().map(|r| format!("{}/{}/{}", r.driver, r.pool, r.device)).collect()
}

#[test]
fn pools_are_tried_by_driver_and_pool_name_slices_by_name_devices_in_order() {
    // Upstream tries pools in Go map order and slices in informer order; edgesched in one fixed
    // order, whatever order the slices arrive in.
    let slices = vec![
        slice("z-slice", Sel::Node(NODE1), pool("pool-b"), DRIVER_A, vec![device("b1", &[], &[])]),
        slice(
            "y-slice",
            Sel::Node(NODE1),
            resource_pool("pool-a", 2),
            DRIVER_A,
            vec![device("a3", &[], &[]), device("a4", &[], &[])],
        ),
        slice(
            "x-slice",
            Sel::Node(NODE1),
            resource_pool("pool-a", 2),
            DRIVER_A,
            vec![device("a2", &[], &[]), device("a1", &[], &[])],
        ),
        slice("w-slice", Sel::Node(NODE1), pool("pool-c"), DRIVER_B, vec![device("c1", &[], &[])]),
    ];
    let claim = claim_with_requests(CLAIM0, vec![], vec![request(REQ0, CLASS_A, 5, vec![])]);
    let mut reversed = slices.clone();
    reversed.reverse();
    for order in [slices, reversed] {
        let (got, _) = allocate_sorted(
            Features::default(),
            std::slice::from_ref(&claim),
            &[],
            vec![class(CLASS_A, DRIVER_A)],
            &order,
            NODE1,
        );
        let got = got.expect("allocated");
        assert_eq!(
            devices_of(&got[0]),
            ["driver-a/pool-a/a2", "driver-a/pool-a/a1", "driver-a/pool-a/a3", "driver-a/pool-a/a4", "driver-a/pool-b/b1"]
        );
    }
}

#[test]
fn backtracking_undoes_the_first_choice_when_a_constraint_fails_later() {
    // r0 takes d1 first; no device for r1 shares its numa, so the search returns to r0 and
    // takes d2, then r1 gets d3. Eight steps: r0's first device, past it, r1's first device
    // (a dead end); past r0's second device, r1's first device, past it, past the claim's
    // requests, past the last claim.
    let slices = vec![slice(
        SLICE1,
        Sel::Node(NODE1),
        pool(POOL1),
        DRIVER_A,
        vec![
            device(DEVICE1, &[], &[("numa", int_attr(0))]),
            device(DEVICE2, &[], &[("numa", int_attr(1))]),
            device(DEVICE3, &[], &[("numa", int_attr(1))]),
        ],
    )];
    let claim = claim_with_requests(
        CLAIM0,
        vec![match_attribute(&[], INT_ATTRIBUTE)],
        vec![request(REQ0, CLASS_A, 1, vec![]), request(REQ1, CLASS_A, 1, vec![])],
    );
    let (got, steps) = allocate_sorted(Features::default(), &[claim], &[], vec![class(CLASS_A, DRIVER_A)], &slices, NODE1);
    let got = got.expect("allocated");
    assert_eq!(devices_of(&got[0]), ["driver-a/pool-1/device-2", "driver-a/pool-1/device-3"]);
    assert_eq!(got[0].devices.results.iter().map(|r| r.request.as_str()).collect::<Vec<_>>(), [REQ0, REQ1]);
    assert_eq!(steps, 8);
}

#[test]
fn backtracking_across_claims_and_subrequests() {
    // claim-0 prefers the large device through its first subrequest; claim-1 needs the large
    // one. The search first gives claim-0 the large device, fails claim-1, then backtracks into
    // claim-0's second subrequest.
    let slices = vec![slice(
        SLICE1,
        Sel::Node(NODE1),
        pool(POOL1),
        DRIVER_A,
        vec![device("large", &[("memory", "8Gi")], &[]), device("small", &[("memory", "1Gi")], &[])],
    )];
    let big = cel("device.capacity[\"driver-a\"].memory.compareTo(quantity(\"8Gi\")) >= 0");
    let claims = vec![
        with_requests(
            claim(CLAIM0),
            vec![request_with_prioritized_list(
                REQ0,
                vec![sub_request(SUB_REQ0, CLASS_A, 1, vec![big.clone()]), sub_request(SUB_REQ1, CLASS_A, 1, vec![])],
            )],
        ),
        claim_with_requests(CLAIM1, vec![], vec![request(REQ0, CLASS_A, 1, vec![big])]),
    ];
    let features = Features { prioritized_list: true, ..Default::default() };
    let (got, _) = allocate_sorted(features, &claims, &[], vec![class(CLASS_A, DRIVER_A)], &slices, NODE1);
    let got = got.expect("allocated");
    assert_eq!(
        (got[0].devices.results[0].request.as_str(), devices_of(&got[0])[0].as_str()),
        (REQ0_SUB_REQ1, "driver-a/pool-1/small")
    );
    assert_eq!(devices_of(&got[1]), ["driver-a/pool-1/large"]);
}

#[test]
fn all_mode_takes_every_matching_device_of_every_pool_or_nothing() {
    let slices = vec![
        slice(
            SLICE1,
            Sel::Node(NODE1),
            pool(POOL1),
            DRIVER_A,
            vec![device(DEVICE1, &[("memory", "8Gi")], &[]), device(DEVICE2, &[("memory", "1Gi")], &[])],
        ),
        slice(SLICE2, Sel::All, pool(POOL2), DRIVER_A, vec![device(DEVICE1, &[("memory", "8Gi")], &[])]),
        slice(SLICE3, Sel::Node(NODE2), pool(POOL3), DRIVER_A, vec![device(DEVICE1, &[("memory", "8Gi")], &[])]),
    ];
    let big = cel("device.capacity[\"driver-a\"].memory.compareTo(quantity(\"8Gi\")) >= 0");
    let mut all = all_device_request(REQ0, CLASS_A);
    exact(&mut all).selectors = vec![big];
    let claim = claim_with_requests(CLAIM0, vec![], vec![all]);
    let classes = || vec![class(CLASS_A, DRIVER_A)];
    // Every large device on node-1 (its own and the one available on all nodes), none of node-2.
    let (got, _) = allocate_sorted(Features::default(), std::slice::from_ref(&claim), &[], classes(), &slices, NODE1);
    let got = got.expect("allocated");
    assert_eq!(devices_of(&got[0]), ["driver-a/pool-1/device-1", "driver-a/pool-2/device-1"]);
    // One of them taken by another claim: `All` fails rather than allocating the rest.
    let taken = [id(DRIVER_A, POOL2, DEVICE1)];
    let (got, _) = allocate_sorted(Features::default(), std::slice::from_ref(&claim), &taken, classes(), &slices, NODE1);
    assert_eq!(got, Err(AllocError::CannotAllocate));
    // A device the same pod's earlier claim takes also makes `All` fail.
    let big = cel("device.capacity[\"driver-a\"].memory.compareTo(quantity(\"8Gi\")) >= 0");
    let first = claim_with_requests(CLAIM1, vec![], vec![request(REQ0, CLASS_A, 1, vec![big])]);
    let (got, _) = allocate_sorted(Features::default(), &[first, claim.clone()], &[], classes(), &slices, NODE1);
    assert_eq!(got, Err(AllocError::CannotAllocate));
    // An incomplete pool on the node makes `All` an error, not a miss.
    let mut incomplete = slices.clone();
    incomplete[1].spec.pool.resource_slice_count = 2;
    let (got, _) = allocate_sorted(Features::default(), std::slice::from_ref(&claim), &[], classes(), &incomplete, NODE1);
    assert_eq!(
        got.map_err(|e| e.to_string()),
        Err("claim claim-0, request req-0: asks for all devices, but resource pool driver-a/pool-2 is currently being updated"
            .to_string())
    );
}

#[test]
fn a_node_sees_its_own_slices_and_the_node_independent_ones_in_index_order() {
    let slices = vec![
        slice("a", Sel::Node(NODE2), pool("p-a"), DRIVER_A, vec![]),
        slice("b", Sel::All, pool("p-b"), DRIVER_A, vec![]),
        slice("c", Sel::Node(NODE1), pool("p-c"), DRIVER_A, vec![]),
        slice("d", Sel::Selector(node_label_selector(REGION_KEY, &[REGION1])), pool("p-d"), DRIVER_A, vec![]),
        slice("e", Sel::PerDevice, pool("p-e"), DRIVER_A, vec![]),
        slice_with_counter_sets("f", Sel::Node(NODE2), pool("p-f"), DRIVER_A, vec![counter_set("set", &[("memory", "1Gi")])]),
        slice("g", Sel::Node(NODE1), pool("p-g"), DRIVER_A, vec![]),
    ];
    let index = SliceIndex::new(prepared(&slices));
    let names = |node: &str| index.candidates(node).map(|i| index.slice(i).name.to_string()).collect::<Vec<_>>();
    assert_eq!(names(NODE1), ["b", "c", "d", "e", "f", "g"]);
    assert_eq!(names(NODE2), ["a", "b", "d", "e", "f"]);
    assert_eq!(names("node-3"), ["b", "d", "e", "f"]);
}

#[test]
fn attributes_and_capacities_are_qualified_with_the_driver_domain() {
    let s = slice(
        SLICE1,
        Sel::Node(NODE1),
        pool(POOL1),
        DRIVER_A,
        vec![device(
            DEVICE1,
            &[("memory", "1Gi"), ("other.example.com/cores", "4")],
            &[("numa", int_attr(1)), ("other.example.com/x", bool_attr(true))],
        )],
    );
    let p = PreparedSlice::new(&s).expect("prepares");
    let d = &p.devices[0];
    assert_eq!(d.attribute("driver-a/numa"), Some(&int_attr(1)));
    assert_eq!(d.attribute("other.example.com/x"), Some(&bool_attr(true)));
    assert_eq!(d.attribute("numa"), None, "lookups use fully qualified names");
    let names: Vec<&str> = d.capacity.iter().map(|(n, _)| &**n).collect();
    assert_eq!(names, ["driver-a/memory", "other.example.com/cores"]);
    assert_eq!(d.capacity[0].1.value(), 1 << 30);
    // A quantity the API server would refuse is an error for the slice, not a panic.
    let bad = slice(SLICE1, Sel::Node(NODE1), pool(POOL1), DRIVER_A, vec![device(DEVICE1, &[("memory", "1Gq")], &[])]);
    let err = PreparedSlice::new(&bad).expect_err("refused");
    assert_eq!((err.slice.as_str(), err.device.as_str()), (SLICE1, DEVICE1));
}

#[test]
fn the_deadline_stops_the_search_where_upstream_checks_its_context() {
    /// Expires after `left` checks.
    struct After {
        left: Cell<u32>,
    }
    impl Deadline for After {
        fn expired(&self) -> bool {
            let left = self.left.get();
            self.left.set(left.saturating_sub(1));
            left == 0
        }
    }
    let slices = vec![slice_with_multiple_devices(SLICE1, Sel::Node(NODE1), pool(POOL1), DRIVER_A, 3)];
    let index = SliceIndex::new(prepared(&slices));
    let classes = vec![class(CLASS_A, DRIVER_A)];
    let allocated = HashSet::new();
    let allocator = Allocator::new(Features::default(), &allocated, &classes, &index).expect("features");
    let n = node(NODE1, REGION1).expect("node");
    let claim = claim_with_requests(CLAIM0, vec![], vec![request(REQ0, CLASS_A, 2, vec![])]);
    let node = NodeRef { name: &n.name, labels: &n.labels };
    // Two devices take five steps (device 0, device 1, past the request, past the claim's
    // requests, past the last claim).
    let enough = After { left: Cell::new(5) };
    assert!(allocator.allocate(node, &[&claim], &mut cel_selectors(), &enough).is_ok());
    let short = After { left: Cell::new(4) };
    assert_eq!(allocator.allocate(node, &[&claim], &mut cel_selectors(), &short), Err(AllocError::TimedOut));
}

#[test]
fn alpha_features_edgesched_does_not_implement_are_refused_when_enabled() {
    let index = SliceIndex::default();
    let classes: Vec<api::DeviceClass> = vec![];
    let allocated: HashSet<DeviceId> = HashSet::new();
    for (features, gate) in [
        (Features { partitionable_devices: true, ..Default::default() }, "DRAPartitionableDevices"),
        (Features { consumable_capacity: true, ..Default::default() }, "DRAConsumableCapacity"),
        (Features { device_binding_and_status: true, ..Default::default() }, "DRADeviceBindingConditions"),
    ] {
        let err = Allocator::new(features, &allocated, &classes, &index).err().expect("refused");
        assert!(err.to_string().contains(gate), "{err}");
        assert!(!err.is_node_failure());
    }
    // The default v1.35 features and device taints are supported.
    let defaults = Features { admin_access: true, prioritized_list: true, ..Default::default() };
    assert!(Allocator::new(defaults, &allocated, &classes, &index).is_ok());
    assert!(Allocator::new(Features { device_taints: true, ..defaults }, &allocated, &classes, &index).is_ok());
}

#[test]
fn distinct_attribute_constraints_are_refused_while_consumable_capacity_is_off() {
    // The stable implementation knows only matchAttribute: anything else is an empty constraint.
    let claim = claim_with_request(
        CLAIM0,
        REQ0,
        CLASS_A,
        vec![api::DeviceConstraint { requests: vec![], match_attribute: None, distinct_attribute: Some(INT_ATTRIBUTE.into()) }],
    );
    let slices = vec![slice_with_one_device(SLICE1, Sel::Node(NODE1), pool(POOL1), DRIVER_A)];
    let (got, _) = allocate_sorted(Features::default(), &[claim], &[], vec![class(CLASS_A, DRIVER_A)], &slices, NODE1);
    assert_eq!(
        got.map_err(|e| e.to_string()),
        Err("claim claim-0, constraint #0: empty constraint (unsupported constraint type?)".to_string())
    );
}
