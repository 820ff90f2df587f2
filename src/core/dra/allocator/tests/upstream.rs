//! The structured allocator's shared test table, transcribed from
//! `staging/src/k8s.io/dynamic-resource-allocation/structured/internal/allocatortesting/allocator_testing.go`
//! (`TestAllocator`, kubernetes/kubernetes v1.35), case by case under upstream's names. Upstream
//! runs each case against every implementation that supports the case's features; these run
//! against edgesched's, which is the stable one with device taints. Cases that need
//! partitionable devices, consumable capacity or binding conditions with their gates on are
//! listed in [`SKIPPED`] with the reason; cases that check what happens while those gates are
//! off are transcribed.

use super::harness::*;
use crate::core::api::{self, DeviceConstraint, DeviceTaint, DeviceToleration};
use crate::core::dra::allocator::Features;
use crate::core::dra::cel::{CelFeatures, SelectorCache};

fn cel_selectors() -> SelectorCache {
    SelectorCache::new(CelFeatures::default())
}

fn admin() -> Features {
    Features { admin_access: true, ..Default::default() }
}

fn prioritized() -> Features {
    Features { prioritized_list: true, ..Default::default() }
}

fn capacity_selector(q: &str) -> api::DeviceSelector {
    cel(&format!("device.capacity[\"{DRIVER_A}\"].memory.compareTo(quantity(\"{q}\")) >= 0"))
}

fn memory(name: &str, q: &str) -> api::Device {
    device(name, &[("memory", q)], &[])
}

/// A claim whose only request is modified by `f`.
fn claim_with(name: &str, req: &str, class: &str, f: impl FnOnce(&mut api::ExactDeviceRequest)) -> api::ResourceClaim {
    let mut c = claim_with_request(name, req, class, vec![]);
    f(exact(&mut c.spec.devices.requests[0]));
    c
}

fn all_mode(name: &str, req: &str, class: &str) -> api::ResourceClaim {
    claim_with_requests(name, vec![], vec![all_device_request(req, class)])
}

fn exact_count(name: &str, req: &str, class: &str, count: i64) -> api::ResourceClaim {
    claim_with_requests(name, vec![], vec![request(req, class, count, vec![])])
}

fn local(node: &str) -> Option<api::NodeSelector> {
    Some(local_node_selector(node))
}

fn n1() -> Option<TestNode> {
    node(NODE1, REGION1)
}

fn one(r: Vec<api::DeviceRequestAllocationResult>) -> Expect {
    Expect::Results(vec![allocation_result(local(NODE1), r)])
}

fn dar(request: &str, driver: &str, pool: &str, device: &str) -> api::DeviceRequestAllocationResult {
    device_allocation_result(request, driver, pool, device, false)
}

fn dar_admin(request: &str, driver: &str, pool: &str, device: &str) -> api::DeviceRequestAllocationResult {
    device_allocation_result(request, driver, pool, device, true)
}

fn nothing() -> Expect {
    Expect::Results(vec![])
}

pub fn cases() -> Vec<Case> {
    let mut cases = Vec::new();
    cases.extend(part1());
    cases.extend(part2());
    cases.extend(part3());
    cases.extend(part4());
    cases
}

fn part1() -> Vec<Case> {
    vec![
        Case { name: "empty", ..Default::default() },
        Case {
            name: "simple",
            claims: vec![claim_with_request(CLAIM0, REQ0, CLASS_A, vec![])],
            classes: vec![class(CLASS_A, DRIVER_A)],
            slices: vec![slice_with_one_device(SLICE1, Sel::Node(NODE1), pool(POOL1), DRIVER_A)],
            node: n1(),
            expect: one(vec![dar(REQ0, DRIVER_A, POOL1, DEVICE1)]),
            ..Default::default()
        },
        Case {
            name: "other-node",
            claims: vec![claim_with_request(CLAIM0, REQ0, CLASS_A, vec![])],
            classes: vec![class(CLASS_A, DRIVER_A)],
            slices: vec![
                slice_with_one_device(SLICE1, Sel::Node(NODE1), pool(POOL1), DRIVER_B),
                slice_with_one_device(SLICE2, Sel::Node(NODE2), pool(POOL2), DRIVER_A),
            ],
            node: node(NODE2, REGION2),
            expect: Expect::Results(vec![allocation_result(local(NODE2), vec![dar(REQ0, DRIVER_A, POOL2, DEVICE1)])]),
            ..Default::default()
        },
        Case {
            name: "small-and-large",
            claims: vec![claim_with_requests(
                CLAIM0,
                vec![],
                vec![request(REQ0, CLASS_A, 1, vec![capacity_selector("1Gi")]), request(REQ1, CLASS_A, 1, vec![capacity_selector("2Gi")])],
            )],
            classes: vec![class(CLASS_A, DRIVER_A)],
            slices: vec![slice(SLICE1, Sel::Node(NODE1), pool(POOL1), DRIVER_A, vec![memory(DEVICE1, "1Gi"), memory(DEVICE2, "2Gi")])],
            node: n1(),
            expect: one(vec![dar(REQ0, DRIVER_A, POOL1, DEVICE1), dar(REQ1, DRIVER_A, POOL1, DEVICE2)]),
            ..Default::default()
        },
        Case {
            // Listing the large device first makes the small request take it at first; the
            // search must undo that.
            name: "small-and-large-backtrack-requests",
            claims: vec![claim_with_requests(
                CLAIM0,
                vec![],
                vec![request(REQ0, CLASS_A, 1, vec![capacity_selector("1Gi")]), request(REQ1, CLASS_A, 1, vec![capacity_selector("2Gi")])],
            )],
            classes: vec![class(CLASS_A, DRIVER_A)],
            slices: vec![slice(SLICE1, Sel::Node(NODE1), pool(POOL1), DRIVER_A, vec![memory(DEVICE2, "2Gi"), memory(DEVICE1, "1Gi")])],
            node: n1(),
            expect: one(vec![dar(REQ0, DRIVER_A, POOL1, DEVICE1), dar(REQ1, DRIVER_A, POOL1, DEVICE2)]),
            ..Default::default()
        },
        Case {
            name: "small-and-large-backtrack-claims",
            claims: vec![
                claim_with_requests(CLAIM0, vec![], vec![request(REQ0, CLASS_A, 1, vec![capacity_selector("1Gi")])]),
                claim_with_requests(CLAIM1, vec![], vec![request(REQ1, CLASS_A, 1, vec![capacity_selector("2Gi")])]),
            ],
            classes: vec![class(CLASS_A, DRIVER_A)],
            slices: vec![slice(SLICE1, Sel::Node(NODE1), pool(POOL1), DRIVER_A, vec![memory(DEVICE2, "2Gi"), memory(DEVICE1, "1Gi")])],
            node: n1(),
            expect: Expect::Results(vec![
                allocation_result(local(NODE1), vec![dar(REQ0, DRIVER_A, POOL1, DEVICE1)]),
                allocation_result(local(NODE1), vec![dar(REQ1, DRIVER_A, POOL1, DEVICE2)]),
            ]),
            ..Default::default()
        },
        Case {
            name: "devices-split-across-different-slices",
            claims: vec![exact_count(CLAIM0, REQ0, CLASS_A, 2)],
            classes: vec![class(CLASS_A, DRIVER_A)],
            slices: vec![
                slice_with_one_device(SLICE1, Sel::Node(NODE1), pool(POOL1), DRIVER_A),
                slice_with_one_device(SLICE2, Sel::Node(NODE1), pool(POOL2), DRIVER_A),
            ],
            node: n1(),
            expect: one(vec![dar(REQ0, DRIVER_A, POOL1, DEVICE1), dar(REQ0, DRIVER_A, POOL2, DEVICE1)]),
            ..Default::default()
        },
        Case {
            name: "obsolete-slice",
            claims: vec![claim_with_request(CLAIM0, REQ0, CLASS_A, vec![])],
            classes: vec![class(CLASS_A, DRIVER_A)],
            slices: vec![
                slice("slice-1-obsolete", Sel::Node(NODE1), resource_pool(POOL1, 2), DRIVER_A, vec![device(DEVICE1, &[], &[])]),
                slice(
                    "slice-1-obsolete",
                    Sel::Node(NODE1),
                    api::ResourcePool { generation: 2, ..resource_pool(POOL1, 2) },
                    DRIVER_A,
                    vec![device(DEVICE2, &[], &[])],
                ),
            ],
            node: n1(),
            expect: nothing(),
            ..Default::default()
        },
        Case {
            // Identical slices under different names (an out-of-date informer in the driver's
            // slice controller): the pool is invalid.
            name: "duplicate-slice",
            claims: vec![claim_with_request(CLAIM0, REQ0, CLASS_A, vec![])],
            classes: vec![class(CLASS_A, DRIVER_A)],
            slices: {
                let a = slice_with_one_device(SLICE1, Sel::Node(NODE1), resource_pool(POOL1, 2), DRIVER_A);
                let mut b = a.clone();
                b.metadata.name.push_str("-2");
                vec![a, b]
            },
            node: n1(),
            expect: Expect::Error("invalid resource pools were encountered"),
            ..Default::default()
        },
        Case {
            name: "no-slices",
            claims: vec![claim_with_request(CLAIM0, REQ0, CLASS_A, vec![])],
            classes: vec![class(CLASS_A, DRIVER_A)],
            node: n1(),
            expect: nothing(),
            ..Default::default()
        },
        Case {
            name: "not-enough-suitable-devices",
            claims: vec![claim_with_request(CLAIM0, REQ0, CLASS_A, vec![]), claim_with_request(CLAIM0, REQ1, CLASS_A, vec![])],
            classes: vec![class(CLASS_A, DRIVER_A)],
            slices: vec![slice_with_one_device(SLICE1, Sel::Node(NODE1), pool(POOL1), DRIVER_A)],
            node: n1(),
            expect: nothing(),
            ..Default::default()
        },
        Case {
            name: "no-classes",
            claims: vec![claim_with_request(CLAIM0, REQ0, CLASS_A, vec![])],
            slices: vec![slice_with_one_device(SLICE1, Sel::Node(NODE1), pool(POOL1), DRIVER_A)],
            node: n1(),
            expect: Expect::Error("could not retrieve device class class-a"),
            ..Default::default()
        },
        Case {
            name: "unknown-class",
            claims: vec![claim_with_request(CLAIM0, REQ0, "unknown-class", vec![])],
            classes: vec![class(CLASS_A, DRIVER_A)],
            slices: vec![slice_with_one_device(SLICE1, Sel::Node(NODE1), pool(POOL1), DRIVER_A)],
            node: n1(),
            expect: Expect::Error("could not retrieve device class unknown-class"),
            ..Default::default()
        },
        Case {
            name: "empty-class",
            claims: vec![claim_with_request(CLAIM0, REQ0, "", vec![])],
            classes: vec![class(CLASS_A, DRIVER_A)],
            slices: vec![slice_with_one_device(SLICE1, Sel::Node(NODE1), pool(POOL1), DRIVER_A)],
            node: n1(),
            expect: Expect::Error("claim claim-0, request req-0: missing device class name (unsupported request type?)"),
            ..Default::default()
        },
        Case {
            name: "no-claims-to-allocate",
            classes: vec![class(CLASS_A, DRIVER_A)],
            slices: vec![slice_with_one_device(SLICE1, Sel::Node(NODE1), pool(POOL1), DRIVER_A)],
            node: n1(),
            expect: nothing(),
            ..Default::default()
        },
        Case {
            name: "all-devices-single",
            claims: vec![all_mode(CLAIM0, REQ0, CLASS_A)],
            classes: vec![class(CLASS_A, DRIVER_A)],
            slices: vec![slice_with_one_device(SLICE1, Sel::Node(NODE1), pool(POOL1), DRIVER_A)],
            node: n1(),
            expect: one(vec![dar(REQ0, DRIVER_A, POOL1, DEVICE1)]),
            ..Default::default()
        },
        Case {
            name: "all-devices-many",
            claims: vec![all_mode(CLAIM0, REQ0, CLASS_A)],
            classes: vec![class(CLASS_A, DRIVER_A)],
            slices: vec![
                slice_with_one_device(SLICE1, Sel::Node(NODE1), pool(POOL1), DRIVER_A),
                slice_with_one_device(SLICE1, Sel::Node(NODE1), pool(POOL2), DRIVER_A),
            ],
            node: n1(),
            expect: one(vec![dar(REQ0, DRIVER_A, POOL1, DEVICE1), dar(REQ0, DRIVER_A, POOL2, DEVICE1)]),
            ..Default::default()
        },
        Case {
            name: "all-devices-of-the-incomplete-pool",
            claims: vec![claim_with(CLAIM0, REQ0, CLASS_A, |r| {
                r.allocation_mode = api::ALLOCATION_MODE_ALL.into();
                r.count = 1;
            })],
            classes: vec![class(CLASS_A, DRIVER_A)],
            slices: vec![slice_with_one_device(SLICE1, Sel::Node(NODE1), resource_pool(POOL1, 2), DRIVER_A)],
            node: n1(),
            expect: Expect::Error(
                "claim claim-0, request req-0: asks for all devices, but resource pool driver-a/pool-1 is currently being updated",
            ),
            ..Default::default()
        },
        Case {
            name: "all-devices-plus-another",
            claims: vec![all_mode(CLAIM0, REQ0, CLASS_A), exact_count(CLAIM1, REQ0, CLASS_B, 1)],
            classes: vec![class(CLASS_A, DRIVER_A), class(CLASS_B, DRIVER_B)],
            slices: vec![
                slice_with_one_device(SLICE1, Sel::Node(NODE1), pool(POOL1), DRIVER_A),
                slice_with_one_device(SLICE1, Sel::Node(NODE1), pool(POOL1), DRIVER_B),
            ],
            node: n1(),
            expect: Expect::Results(vec![
                allocation_result(local(NODE1), vec![dar(REQ0, DRIVER_A, POOL1, DEVICE1)]),
                allocation_result(local(NODE1), vec![dar(REQ0, DRIVER_B, POOL1, DEVICE1)]),
            ]),
            ..Default::default()
        },
        Case {
            name: "all-devices-plus-another-reversed",
            claims: vec![exact_count(CLAIM1, REQ0, CLASS_B, 1), all_mode(CLAIM0, REQ0, CLASS_A)],
            classes: vec![class(CLASS_A, DRIVER_A), class(CLASS_B, DRIVER_B)],
            slices: vec![
                slice_with_one_device(SLICE1, Sel::Node(NODE1), pool(POOL1), DRIVER_A),
                slice_with_one_device(SLICE1, Sel::Node(NODE1), pool(POOL1), DRIVER_B),
            ],
            node: n1(),
            expect: Expect::Results(vec![
                allocation_result(local(NODE1), vec![dar(REQ0, DRIVER_B, POOL1, DEVICE1)]),
                allocation_result(local(NODE1), vec![dar(REQ0, DRIVER_A, POOL1, DEVICE1)]),
            ]),
            ..Default::default()
        },
        Case {
            name: "all-devices-many-plus-another",
            claims: vec![all_mode(CLAIM0, REQ0, CLASS_A), exact_count(CLAIM1, REQ0, CLASS_B, 1)],
            classes: vec![class(CLASS_A, DRIVER_A), class(CLASS_B, DRIVER_B)],
            slices: vec![
                slice(SLICE1, Sel::Node(NODE1), pool(POOL1), DRIVER_A, vec![device(DEVICE1, &[], &[]), device(DEVICE2, &[], &[])]),
                slice_with_one_device(SLICE1, Sel::Node(NODE1), pool(POOL1), DRIVER_B),
            ],
            node: n1(),
            expect: Expect::Results(vec![
                allocation_result(local(NODE1), vec![dar(REQ0, DRIVER_A, POOL1, DEVICE1), dar(REQ0, DRIVER_A, POOL1, DEVICE2)]),
                allocation_result(local(NODE1), vec![dar(REQ0, DRIVER_B, POOL1, DEVICE1)]),
            ]),
            ..Default::default()
        },
        Case {
            name: "all-devices-many-plus-another-reversed",
            claims: vec![exact_count(CLAIM1, REQ0, CLASS_B, 1), all_mode(CLAIM0, REQ0, CLASS_A)],
            classes: vec![class(CLASS_A, DRIVER_A), class(CLASS_B, DRIVER_B)],
            slices: vec![
                slice(SLICE1, Sel::Node(NODE1), pool(POOL1), DRIVER_A, vec![device(DEVICE1, &[], &[]), device(DEVICE2, &[], &[])]),
                slice_with_one_device(SLICE1, Sel::Node(NODE1), pool(POOL1), DRIVER_B),
            ],
            node: n1(),
            expect: Expect::Results(vec![
                allocation_result(local(NODE1), vec![dar(REQ0, DRIVER_B, POOL1, DEVICE1)]),
                allocation_result(local(NODE1), vec![dar(REQ0, DRIVER_A, POOL1, DEVICE1), dar(REQ0, DRIVER_A, POOL1, DEVICE2)]),
            ]),
            ..Default::default()
        },
        Case {
            // One device, two claims both trying to allocate it.
            name: "all-devices-no-solution",
            claims: vec![exact_count(CLAIM1, REQ0, CLASS_A, 1), all_mode(CLAIM0, REQ0, CLASS_A)],
            classes: vec![class(CLASS_A, DRIVER_A)],
            slices: vec![slice_with_one_device(SLICE1, Sel::Node(NODE1), pool(POOL1), DRIVER_A)],
            node: n1(),
            expect: nothing(),
            ..Default::default()
        },
        Case {
            name: "all-devices-no-solution-reversed",
            claims: vec![all_mode(CLAIM0, REQ0, CLASS_A), exact_count(CLAIM1, REQ0, CLASS_A, 1)],
            classes: vec![class(CLASS_A, DRIVER_A)],
            slices: vec![slice_with_one_device(SLICE1, Sel::Node(NODE1), pool(POOL1), DRIVER_A)],
            node: n1(),
            expect: nothing(),
            ..Default::default()
        },
        Case {
            name: "all-devices-slice-without-devices",
            claims: vec![all_mode(CLAIM0, REQ0, CLASS_A)],
            classes: vec![class(CLASS_A, DRIVER_A)],
            slices: vec![slice_with_no_devices(SLICE1, Sel::Node(NODE1), pool(POOL1), DRIVER_A)],
            node: n1(),
            expect: nothing(),
            ..Default::default()
        },
        Case {
            name: "all-devices-no-slices",
            claims: vec![all_mode(CLAIM0, REQ0, CLASS_A)],
            classes: vec![class(CLASS_A, DRIVER_A)],
            node: n1(),
            expect: nothing(),
            ..Default::default()
        },
        Case {
            name: "all-devices-some-allocated",
            claims: vec![all_mode(CLAIM0, REQ0, CLASS_A)],
            allocated: vec![id(DRIVER_A, POOL1, DEVICE1)],
            classes: vec![class(CLASS_A, DRIVER_A)],
            slices: vec![slice(SLICE1, Sel::Node(NODE1), pool(POOL1), DRIVER_A, vec![device(DEVICE1, &[], &[]), device(DEVICE2, &[], &[])])],
            node: n1(),
            expect: nothing(),
            ..Default::default()
        },
        Case {
            name: "all-devices-some-allocated-admin-access",
            features: admin(),
            claims: vec![claim_with(CLAIM0, REQ0, CLASS_A, |r| {
                r.admin_access = Some(true);
                r.allocation_mode = api::ALLOCATION_MODE_ALL.into();
            })],
            allocated: vec![id(DRIVER_A, POOL1, DEVICE1)],
            classes: vec![class(CLASS_A, DRIVER_A)],
            slices: vec![slice(SLICE1, Sel::Node(NODE1), pool(POOL1), DRIVER_A, vec![device(DEVICE1, &[], &[]), device(DEVICE2, &[], &[])])],
            node: n1(),
            expect: one(vec![dar_admin(REQ0, DRIVER_A, POOL1, DEVICE1), dar_admin(REQ0, DRIVER_A, POOL1, DEVICE2)]),
            ..Default::default()
        },
        Case {
            // The second request, for `All`, cannot be fulfilled: the first claims a device.
            name: "all-devices-some-allocating-admin-access",
            features: admin(),
            claims: vec![{
                let mut c = claim_with_requests(CLAIM0, vec![], vec![request(REQ0, CLASS_A, 1, vec![]), request(REQ1, CLASS_A, 1, vec![])]);
                exact(&mut c.spec.devices.requests[0]).admin_access = Some(true);
                let r1 = exact(&mut c.spec.devices.requests[1]);
                r1.admin_access = Some(true);
                r1.allocation_mode = api::ALLOCATION_MODE_ALL.into();
                c
            }],
            classes: vec![class(CLASS_A, DRIVER_A)],
            slices: vec![slice(SLICE1, Sel::Node(NODE1), pool(POOL1), DRIVER_A, vec![device(DEVICE1, &[], &[]), device(DEVICE2, &[], &[])])],
            node: n1(),
            expect: nothing(),
            ..Default::default()
        },
        Case {
            name: "count-devices-some-allocated-admin-access",
            features: admin(),
            claims: vec![claim_with(CLAIM0, REQ0, CLASS_A, |r| {
                r.admin_access = Some(true);
                r.allocation_mode = api::ALLOCATION_MODE_EXACT_COUNT.into();
                r.count = 2;
            })],
            allocated: vec![id(DRIVER_A, POOL1, DEVICE1)],
            classes: vec![class(CLASS_A, DRIVER_A)],
            slices: vec![slice(SLICE1, Sel::Node(NODE1), pool(POOL1), DRIVER_A, vec![device(DEVICE1, &[], &[]), device(DEVICE2, &[], &[])])],
            node: n1(),
            expect: one(vec![dar_admin(REQ0, DRIVER_A, POOL1, DEVICE1), dar_admin(REQ0, DRIVER_A, POOL1, DEVICE2)]),
            ..Default::default()
        },
        Case {
            name: "separate-claims-share-device-admin-access",
            features: admin(),
            claims: vec![
                claim_with(CLAIM0, REQ0, CLASS_A, |r| r.admin_access = Some(true)),
                claim_with(CLAIM1, REQ0, CLASS_A, |r| r.admin_access = Some(true)),
            ],
            classes: vec![class(CLASS_A, DRIVER_A)],
            slices: vec![slice(SLICE1, Sel::Node(NODE1), pool(POOL1), DRIVER_A, vec![device(DEVICE1, &[], &[]), device(DEVICE2, &[], &[])])],
            node: n1(),
            expect: Expect::Results(vec![
                allocation_result(local(NODE1), vec![dar_admin(REQ0, DRIVER_A, POOL1, DEVICE1)]),
                allocation_result(local(NODE1), vec![dar_admin(REQ0, DRIVER_A, POOL1, DEVICE1)]),
            ]),
            ..Default::default()
        },
        Case {
            name: "admin-access-claims-device-allocating-for-non-admin-access",
            features: admin(),
            claims: vec![
                claim_with_request(CLAIM0, REQ0, CLASS_A, vec![]),
                claim_with(CLAIM1, REQ0, CLASS_A, |r| r.admin_access = Some(true)),
            ],
            classes: vec![class(CLASS_A, DRIVER_A)],
            slices: vec![slice(SLICE1, Sel::Node(NODE1), pool(POOL1), DRIVER_A, vec![device(DEVICE1, &[], &[]), device(DEVICE2, &[], &[])])],
            node: n1(),
            expect: Expect::Results(vec![
                allocation_result(local(NODE1), vec![dar(REQ0, DRIVER_A, POOL1, DEVICE1)]),
                allocation_result(local(NODE1), vec![dar_admin(REQ0, DRIVER_A, POOL1, DEVICE1)]),
            ]),
            ..Default::default()
        },
        Case {
            name: "all-devices-slice-without-devices-prioritized-list",
            features: prioritized(),
            claims: vec![with_requests(
                claim(CLAIM0),
                vec![request_with_prioritized_list(
                    REQ0,
                    vec![
                        api::DeviceSubRequest {
                            allocation_mode: api::ALLOCATION_MODE_ALL.into(),
                            count: 0,
                            ..sub_request(SUB_REQ0, CLASS_A, 1, vec![])
                        },
                        sub_request(SUB_REQ1, CLASS_B, 1, vec![]),
                    ],
                )],
            )],
            classes: vec![class(CLASS_A, DRIVER_A), class(CLASS_B, DRIVER_B)],
            slices: vec![
                slice_with_no_devices(SLICE1, Sel::Node(NODE1), pool(POOL1), DRIVER_A),
                slice_with_one_device(SLICE2, Sel::Node(NODE1), pool(POOL2), DRIVER_B),
            ],
            node: n1(),
            expect: one(vec![dar(REQ0_SUB_REQ1, DRIVER_B, POOL2, DEVICE1)]),
            ..Default::default()
        },
        Case {
            name: "all-devices-no-slices-prioritized-list",
            features: prioritized(),
            claims: vec![with_requests(
                claim(CLAIM0),
                vec![request_with_prioritized_list(
                    REQ0,
                    vec![
                        api::DeviceSubRequest {
                            allocation_mode: api::ALLOCATION_MODE_ALL.into(),
                            count: 0,
                            ..sub_request(SUB_REQ0, CLASS_A, 1, vec![])
                        },
                        sub_request(SUB_REQ1, CLASS_B, 1, vec![]),
                    ],
                )],
            )],
            classes: vec![class(CLASS_A, DRIVER_A), class(CLASS_B, DRIVER_B)],
            slices: vec![slice_with_one_device(SLICE2, Sel::Node(NODE1), pool(POOL2), DRIVER_B)],
            node: n1(),
            expect: one(vec![dar(REQ0_SUB_REQ1, DRIVER_B, POOL2, DEVICE1)]),
            ..Default::default()
        },
        Case {
            name: "all-devices-some-allocated-prioritized-list",
            features: prioritized(),
            claims: vec![with_requests(
                claim(CLAIM0),
                vec![request_with_prioritized_list(
                    REQ0,
                    vec![
                        api::DeviceSubRequest {
                            allocation_mode: api::ALLOCATION_MODE_ALL.into(),
                            count: 0,
                            ..sub_request(SUB_REQ0, CLASS_A, 1, vec![])
                        },
                        sub_request(SUB_REQ1, CLASS_B, 1, vec![]),
                    ],
                )],
            )],
            allocated: vec![id(DRIVER_A, POOL1, DEVICE1)],
            classes: vec![class(CLASS_A, DRIVER_A), class(CLASS_B, DRIVER_B)],
            slices: vec![
                slice(SLICE1, Sel::Node(NODE1), pool(POOL1), DRIVER_A, vec![device(DEVICE1, &[], &[]), device(DEVICE2, &[], &[])]),
                slice_with_one_device(SLICE2, Sel::Node(NODE1), pool(POOL2), DRIVER_B),
            ],
            node: n1(),
            expect: one(vec![dar(REQ0_SUB_REQ1, DRIVER_B, POOL2, DEVICE1)]),
            ..Default::default()
        },
        Case {
            name: "network-attached-device",
            claims: vec![claim_with_request(CLAIM0, REQ0, CLASS_A, vec![])],
            classes: vec![class(CLASS_A, DRIVER_A)],
            slices: vec![slice_with_one_device(SLICE1, Sel::Selector(node_label_selector(REGION_KEY, &[REGION1])), pool(POOL1), DRIVER_A)],
            node: n1(),
            expect: Expect::Results(vec![allocation_result(
                Some(node_label_selector(REGION_KEY, &[REGION1])),
                vec![dar(REQ0, DRIVER_A, POOL1, DEVICE1)],
            )]),
            ..Default::default()
        },
        Case {
            // Wrong region, no devices available.
            name: "unsuccessful-allocation-network-attached-device",
            claims: vec![claim_with_request(CLAIM0, REQ0, CLASS_A, vec![])],
            classes: vec![class(CLASS_A, DRIVER_A)],
            slices: vec![slice_with_one_device(SLICE1, Sel::Selector(node_label_selector(REGION_KEY, &[REGION1])), pool(POOL1), DRIVER_A)],
            node: node(NODE2, REGION2),
            expect: nothing(),
            ..Default::default()
        },
        Case {
            name: "many-network-attached-devices",
            claims: vec![claim_with_requests(CLAIM0, vec![], vec![request(REQ0, CLASS_A, 4, vec![])])],
            classes: vec![class(CLASS_A, DRIVER_A)],
            slices: vec![
                slice_with_one_device(SLICE1, Sel::Selector(node_label_selector(REGION_KEY, &[REGION1])), pool(POOL1), DRIVER_A),
                slice_with_one_device(SLICE1, Sel::All, pool(POOL2), DRIVER_A),
                slice_with_one_device(SLICE1, Sel::Selector(node_label_selector(PLANET_KEY, &[PLANET_VALUE_EARTH])), pool(POOL3), DRIVER_A),
                slice_with_one_device(SLICE1, Sel::Selector(local_node_selector(NODE1)), pool(POOL4), DRIVER_A),
            ],
            node: n1(),
            expect: Expect::Results(vec![allocation_result(
                // A union of the individual selectors.
                Some(api::NodeSelector {
                    node_selector_terms: vec![api::NodeSelectorTerm {
                        match_expressions: vec![
                            api::NodeSelectorRequirement { key: REGION_KEY.into(), operator: "In".into(), values: vec![REGION1.into()] },
                            api::NodeSelectorRequirement {
                                key: PLANET_KEY.into(),
                                operator: "In".into(),
                                values: vec![PLANET_VALUE_EARTH.into()],
                            },
                        ],
                        match_fields: vec![api::NodeSelectorRequirement {
                            key: FIELD_NAME_KEY.into(),
                            operator: "In".into(),
                            values: vec![NODE1.into()],
                        }],
                    }],
                }),
                vec![
                    dar(REQ0, DRIVER_A, POOL1, DEVICE1),
                    dar(REQ0, DRIVER_A, POOL2, DEVICE1),
                    dar(REQ0, DRIVER_A, POOL3, DEVICE1),
                    dar(REQ0, DRIVER_A, POOL4, DEVICE1),
                ],
            )]),
            ..Default::default()
        },
        Case {
            // Once there is any node-local device, the selector is for that node.
            name: "local-and-network-attached-devices",
            claims: vec![claim_with_requests(CLAIM0, vec![], vec![request(REQ0, CLASS_A, 2, vec![])])],
            classes: vec![class(CLASS_A, DRIVER_A)],
            slices: vec![
                slice_with_one_device(SLICE1, Sel::Selector(node_label_selector(REGION_KEY, &[REGION1])), pool(POOL1), DRIVER_A),
                slice_with_one_device(SLICE1, Sel::Node(NODE1), pool(POOL2), DRIVER_A),
            ],
            node: n1(),
            expect: one(vec![dar(REQ0, DRIVER_A, POOL1, DEVICE1), dar(REQ0, DRIVER_A, POOL2, DEVICE1)]),
            ..Default::default()
        },
        Case {
            name: "several-different-drivers",
            claims: vec![claim_with_request(CLAIM0, REQ0, CLASS_A, vec![]), claim_with_request(CLAIM0, REQ0, CLASS_B, vec![])],
            classes: vec![class(CLASS_A, DRIVER_A), class(CLASS_B, DRIVER_B)],
            slices: vec![
                slice(SLICE1, Sel::Node(NODE1), pool(POOL1), DRIVER_A, vec![device(DEVICE1, &[], &[]), device(DEVICE2, &[], &[])]),
                slice_with_one_device(SLICE1, Sel::Node(NODE1), pool(POOL1), DRIVER_B),
            ],
            node: n1(),
            expect: Expect::Results(vec![
                allocation_result(local(NODE1), vec![dar(REQ0, DRIVER_A, POOL1, DEVICE1)]),
                allocation_result(local(NODE1), vec![dar(REQ0, DRIVER_B, POOL1, DEVICE1)]),
            ]),
            ..Default::default()
        },
        Case {
            name: "already-allocated-devices",
            claims: vec![claim_with_request(CLAIM0, REQ0, CLASS_A, vec![])],
            allocated: vec![id(DRIVER_A, POOL1, DEVICE1), id(DRIVER_A, POOL1, DEVICE2)],
            classes: vec![class(CLASS_A, DRIVER_A)],
            slices: vec![slice_with_one_device(SLICE1, Sel::Node(NODE1), pool(POOL1), DRIVER_A)],
            node: n1(),
            expect: nothing(),
            ..Default::default()
        },
        Case {
            name: "admin-access-disabled",
            claims: vec![claim_with(CLAIM0, REQ0, CLASS_A, |r| r.admin_access = Some(true))],
            classes: vec![class(CLASS_A, DRIVER_A)],
            slices: vec![slice_with_one_device(SLICE1, Sel::Node(NODE1), pool(POOL1), DRIVER_A)],
            node: n1(),
            expect: Expect::Error("claim claim-0, request req-0: admin access is requested, but the feature is disabled"),
            ..Default::default()
        },
        Case {
            name: "admin-access-enabled",
            features: admin(),
            claims: vec![claim_with(CLAIM0, REQ0, CLASS_A, |r| r.admin_access = Some(true))],
            allocated: vec![id(DRIVER_A, POOL1, DEVICE1), id(DRIVER_A, POOL1, DEVICE2)],
            classes: vec![class(CLASS_A, DRIVER_A)],
            slices: vec![slice_with_one_device(SLICE1, Sel::Node(NODE1), pool(POOL1), DRIVER_A)],
            node: n1(),
            expect: one(vec![dar_admin(REQ0, DRIVER_A, POOL1, DEVICE1)]),
            ..Default::default()
        },
    ]
}

fn mem_attr(name: &str, q: &str, version: &str) -> api::Device {
    device(name, &[("memory", q)], &[("driverVersion", version_attr(version))])
}

fn part2() -> Vec<Case> {
    let numa = |v: i64| vec![("numa", int_attr(v))];
    vec![
        Case {
            name: "with-constraint",
            claims: vec![claim_with_requests(
                CLAIM0,
                vec![
                    match_attribute(&[], INT_ATTRIBUTE),
                    match_attribute(&[], VERSION_ATTRIBUTE),
                    match_attribute(&[], STRING_ATTRIBUTE),
                    match_attribute(&[], BOOL_ATTRIBUTE),
                ],
                vec![request(REQ0, CLASS_A, 1, vec![]), request(REQ1, CLASS_A, 1, vec![])],
            )],
            classes: vec![class(CLASS_A, DRIVER_A)],
            slices: vec![slice(SLICE1, Sel::Node(NODE1), pool(POOL1), DRIVER_A, {
                let attrs = [
                    ("driverVersion", version_attr("1.0.0")),
                    ("numa", int_attr(1)),
                    ("stringAttribute", string_attr("stringAttributeValue")),
                    ("boolAttribute", bool_attr(true)),
                ];
                vec![device(DEVICE1, &[], &attrs), device(DEVICE2, &[], &attrs)]
            })],
            node: n1(),
            expect: one(vec![dar(REQ0, DRIVER_A, POOL1, DEVICE1), dar(REQ1, DRIVER_A, POOL1, DEVICE2)]),
            ..Default::default()
        },
        Case {
            name: "with-constraint-non-existent-attribute",
            claims: vec![claim_with_request(CLAIM0, REQ0, CLASS_A, vec![match_attribute(&[], NON_EXISTENT_ATTRIBUTE)])],
            classes: vec![class(CLASS_A, DRIVER_A)],
            slices: vec![slice_with_one_device(SLICE1, Sel::Node(NODE1), pool(POOL1), DRIVER_A)],
            node: n1(),
            expect: nothing(),
            ..Default::default()
        },
        Case {
            name: "with-constraint-not-matching-int-attribute",
            claims: vec![claim_with_requests(CLAIM0, vec![match_attribute(&[], INT_ATTRIBUTE)], vec![request(REQ0, CLASS_A, 2, vec![])])],
            classes: vec![class(CLASS_A, DRIVER_A), class(CLASS_B, DRIVER_B)],
            slices: vec![slice(SLICE1, Sel::Node(NODE1), pool(POOL1), DRIVER_A, vec![device(DEVICE1, &[], &numa(1)), device(DEVICE2, &[], &numa(2))])],
            node: n1(),
            expect: nothing(),
            ..Default::default()
        },
        Case {
            name: "with-constraint-not-matching-int-attribute-all-devices",
            claims: vec![{
                let mut c = claim_with_requests(CLAIM0, vec![match_attribute(&[], INT_ATTRIBUTE)], vec![request(REQ0, CLASS_A, 0, vec![])]);
                exact(&mut c.spec.devices.requests[0]).allocation_mode = api::ALLOCATION_MODE_ALL.into();
                c
            }],
            classes: vec![class(CLASS_A, DRIVER_A), class(CLASS_B, DRIVER_B)],
            slices: vec![slice(SLICE1, Sel::Node(NODE1), pool(POOL1), DRIVER_A, vec![device(DEVICE1, &[], &numa(1)), device(DEVICE2, &[], &numa(2))])],
            node: n1(),
            expect: Expect::Error(
                "claim claim-0, request req-0: cannot add device driver-a/pool-1/device-2 because a claim constraint would not be satisfied",
            ),
            ..Default::default()
        },
        Case {
            name: "with-constraint-not-matching-string-attribute",
            claims: vec![claim_with_requests(CLAIM0, vec![match_attribute(&[], STRING_ATTRIBUTE)], vec![request(REQ0, CLASS_A, 2, vec![])])],
            classes: vec![class(CLASS_A, DRIVER_A), class(CLASS_B, DRIVER_B)],
            slices: vec![slice(
                SLICE1,
                Sel::Node(NODE1),
                pool(POOL1),
                DRIVER_A,
                vec![
                    device(DEVICE1, &[], &[("stringAttribute", string_attr("stringAttributeValue"))]),
                    device(DEVICE2, &[], &[("stringAttribute", string_attr("stringAttributeValue2"))]),
                ],
            )],
            node: n1(),
            expect: nothing(),
            ..Default::default()
        },
        Case {
            name: "with-constraint-not-matching-bool-attribute",
            claims: vec![claim_with_requests(CLAIM0, vec![match_attribute(&[], BOOL_ATTRIBUTE)], vec![request(REQ0, CLASS_A, 2, vec![])])],
            classes: vec![class(CLASS_A, DRIVER_A), class(CLASS_B, DRIVER_B)],
            slices: vec![slice(
                SLICE1,
                Sel::Node(NODE1),
                pool(POOL1),
                DRIVER_A,
                vec![
                    device(DEVICE1, &[], &[("boolAttribute", bool_attr(true))]),
                    device(DEVICE2, &[], &[("boolAttribute", bool_attr(false))]),
                ],
            )],
            node: n1(),
            expect: nothing(),
            ..Default::default()
        },
        Case {
            name: "with-constraint-not-matching-version-attribute",
            claims: vec![claim_with_requests(CLAIM0, vec![match_attribute(&[], VERSION_ATTRIBUTE)], vec![request(REQ0, CLASS_A, 2, vec![])])],
            classes: vec![class(CLASS_A, DRIVER_A), class(CLASS_B, DRIVER_B)],
            slices: vec![slice(
                SLICE1,
                Sel::Node(NODE1),
                pool(POOL1),
                DRIVER_A,
                vec![
                    device(DEVICE1, &[], &[("driverVersion", version_attr("1.0.0"))]),
                    device(DEVICE2, &[], &[("driverVersion", version_attr("2.0.0"))]),
                ],
            )],
            node: n1(),
            expect: nothing(),
            ..Default::default()
        },
        Case {
            name: "with-constraint-for-request",
            claims: vec![claim_with_requests(
                CLAIM0,
                vec![match_attribute(&[REQ0], VERSION_ATTRIBUTE)],
                vec![request(REQ0, CLASS_A, 1, vec![]), request(REQ1, CLASS_A, 1, vec![])],
            )],
            classes: vec![class(CLASS_A, DRIVER_A), class(CLASS_B, DRIVER_B)],
            slices: vec![slice(
                SLICE1,
                Sel::Node(NODE1),
                pool(POOL1),
                DRIVER_A,
                vec![
                    device(DEVICE1, &[], &[("driverVersion", version_attr("1.0.0"))]),
                    device(DEVICE2, &[], &[("driverVersion", version_attr("2.0.0"))]),
                ],
            )],
            node: n1(),
            expect: one(vec![dar(REQ0, DRIVER_A, POOL1, DEVICE1), dar(REQ1, DRIVER_A, POOL1, DEVICE2)]),
            ..Default::default()
        },
        Case {
            // device-1 does not satisfy the second match attribute, so the search backtracks.
            name: "with-constraint-for-request-retry",
            claims: vec![claim_with_requests(
                CLAIM0,
                vec![match_attribute(&[REQ0], VERSION_ATTRIBUTE), match_attribute(&[], STRING_ATTRIBUTE)],
                vec![request(REQ0, CLASS_A, 1, vec![]), request(REQ1, CLASS_A, 1, vec![])],
            )],
            classes: vec![class(CLASS_A, DRIVER_A), class(CLASS_B, DRIVER_B)],
            slices: vec![slice(
                SLICE1,
                Sel::Node(NODE1),
                pool(POOL1),
                DRIVER_A,
                vec![
                    device(DEVICE1, &[], &[("driverVersion", version_attr("1.0.0")), ("stringAttribute", string_attr("a"))]),
                    device(DEVICE2, &[], &[("driverVersion", version_attr("2.0.0")), ("stringAttribute", string_attr("b"))]),
                    device(DEVICE3, &[], &[("driverVersion", version_attr("3.0.0")), ("stringAttribute", string_attr("b"))]),
                ],
            )],
            node: n1(),
            expect: one(vec![dar(REQ0, DRIVER_A, POOL1, DEVICE2), dar(REQ1, DRIVER_A, POOL1, DEVICE3)]),
            ..Default::default()
        },
        Case {
            name: "with-class-device-config",
            claims: vec![claim_with_request(CLAIM0, REQ0, CLASS_A, vec![])],
            classes: vec![class_with_config(CLASS_A, DRIVER_A, "classAttribute")],
            slices: vec![slice_with_one_device(SLICE1, Sel::Node(NODE1), pool(POOL1), DRIVER_A)],
            node: n1(),
            expect: Expect::Results(vec![allocation_result_with_configs(
                local(NODE1),
                vec![dar(REQ0, DRIVER_A, POOL1, DEVICE1)],
                vec![config(api::CONFIG_SOURCE_CLASS, &[REQ0], device_configuration(DRIVER_A, "classAttribute"))],
            )]),
            ..Default::default()
        },
        Case {
            name: "with-class-device-config-with-multiple-request-and-configs",
            claims: vec![claim_with_requests(
                CLAIM0,
                vec![],
                vec![request(REQ0, CLASS_A, 1, vec![]), request(REQ1, CLASS_A, 1, vec![]), request(REQ2, CLASS_B, 1, vec![])],
            )],
            classes: vec![class_with_config(CLASS_A, DRIVER_A, "classAttribute-A"), class_with_config(CLASS_B, DRIVER_B, "classAttribute-B")],
            slices: vec![
                slice_with_multiple_devices(SLICE1, Sel::Node(NODE1), pool(POOL1), DRIVER_A, 2),
                slice_with_one_device(SLICE2, Sel::Node(NODE1), pool(POOL1), DRIVER_B),
            ],
            node: n1(),
            expect: Expect::Results(vec![allocation_result_with_configs(
                local(NODE1),
                vec![dar(REQ0, DRIVER_A, POOL1, DEVICE0), dar(REQ1, DRIVER_A, POOL1, DEVICE1), dar(REQ2, DRIVER_B, POOL1, DEVICE1)],
                vec![
                    config(api::CONFIG_SOURCE_CLASS, &[REQ0, REQ1], device_configuration(DRIVER_A, "classAttribute-A")),
                    config(api::CONFIG_SOURCE_CLASS, &[REQ2], device_configuration(DRIVER_B, "classAttribute-B")),
                ],
            )]),
            ..Default::default()
        },
        Case {
            name: "claim-with-device-config",
            claims: vec![claim_with_device_config(CLAIM0, REQ0, CLASS_A, DRIVER_A, "deviceAttribute")],
            classes: vec![class(CLASS_A, DRIVER_A)],
            slices: vec![slice_with_one_device(SLICE1, Sel::Node(NODE1), pool(POOL1), DRIVER_A)],
            node: n1(),
            expect: Expect::Results(vec![allocation_result_with_config(
                local(NODE1),
                DRIVER_A,
                api::CONFIG_SOURCE_CLAIM,
                "deviceAttribute",
                vec![dar(REQ0, DRIVER_A, POOL1, DEVICE1)],
            )]),
            ..Default::default()
        },
        Case {
            // An empty selector stands for an unknown future selector type.
            name: "unknown-selector",
            claims: vec![claim_with(CLAIM0, REQ0, CLASS_A, |r| r.selectors = vec![api::DeviceSelector { cel: None }])],
            classes: vec![class(CLASS_A, DRIVER_A)],
            slices: vec![slice_with_one_device(SLICE1, Sel::Node(NODE1), pool(POOL1), DRIVER_A)],
            node: n1(),
            expect: Expect::Error("CEL expression empty (unsupported selector type?)"),
            ..Default::default()
        },
        Case {
            name: "unknown-allocation-mode",
            claims: vec![claim_with(CLAIM0, REQ0, CLASS_A, |r| r.allocation_mode = "future-mode".into())],
            classes: vec![class(CLASS_A, DRIVER_A)],
            slices: vec![slice_with_one_device(SLICE1, Sel::Node(NODE1), pool(POOL1), DRIVER_A)],
            node: n1(),
            expect: Expect::Error("unsupported count mode future-mode"),
            ..Default::default()
        },
        Case {
            // An empty constraint stands for an unknown constraint type.
            name: "unknown-constraint",
            claims: vec![claim_with_request(CLAIM0, REQ0, CLASS_A, vec![DeviceConstraint::default()])],
            classes: vec![class(CLASS_A, DRIVER_A)],
            slices: vec![slice_with_one_device(SLICE1, Sel::Node(NODE1), pool(POOL1), DRIVER_A)],
            node: n1(),
            expect: Expect::Error("empty constraint (unsupported constraint type?)"),
            ..Default::default()
        },
        Case {
            name: "invalid-CEL-one-device",
            claims: vec![claim_with(CLAIM0, REQ0, CLASS_A, |r| r.selectors = vec![cel("noSuchVar")])],
            classes: vec![class(CLASS_A, DRIVER_A)],
            slices: vec![slice_with_one_device(SLICE1, Sel::Node(NODE1), pool(POOL1), DRIVER_A)],
            node: n1(),
            expect: Expect::Error("undeclared reference"),
            ..Default::default()
        },
        Case {
            name: "invalid-CEL-one-device-class",
            claims: vec![claim_with_request(CLAIM0, REQ0, CLASS_A, vec![])],
            classes: vec![{
                let mut c = class(CLASS_A, DRIVER_A);
                c.spec.selectors[0] = cel("noSuchVar");
                c
            }],
            slices: vec![slice_with_one_device(SLICE1, Sel::Node(NODE1), pool(POOL1), DRIVER_A)],
            node: n1(),
            expect: Expect::Error("undeclared reference"),
            ..Default::default()
        },
        Case {
            name: "invalid-CEL-all-devices",
            claims: vec![claim_with(CLAIM0, REQ0, CLASS_A, |r| {
                r.selectors = vec![cel("noSuchVar")];
                r.allocation_mode = api::ALLOCATION_MODE_ALL.into();
            })],
            classes: vec![class(CLASS_A, DRIVER_A)],
            slices: vec![slice_with_one_device(SLICE1, Sel::Node(NODE1), pool(POOL1), DRIVER_A)],
            node: n1(),
            expect: Expect::Error("undeclared reference"),
            ..Default::default()
        },
        Case {
            name: "too-many-devices-single-request",
            claims: vec![claim_with_requests(CLAIM0, vec![], vec![request(REQ0, CLASS_A, 500, vec![])])],
            classes: vec![class(CLASS_A, DRIVER_A)],
            expect: Expect::Error("exceeds the claim limit"),
            ..Default::default()
        },
        Case {
            name: "many-devices-okay",
            claims: vec![claim_with_requests(CLAIM0, vec![], vec![request(REQ0, CLASS_A, MAX_SIZE, vec![])])],
            classes: vec![class(CLASS_A, DRIVER_A)],
            expect: nothing(),
            ..Default::default()
        },
        Case {
            name: "too-many-devices-total",
            claims: vec![claim_with_requests(
                CLAIM0,
                vec![],
                vec![request(REQ0, CLASS_A, MAX_SIZE, vec![]), request(REQ1, CLASS_A, 1, vec![])],
            )],
            classes: vec![class(CLASS_A, DRIVER_A)],
            slices: vec![slice_with_multiple_devices(SLICE1, Sel::Node(NODE1), pool(POOL1), DRIVER_A, MAX_SIZE as usize + 1)],
            node: n1(),
            expect: Expect::Error("exceeds the claim limit"),
            ..Default::default()
        },
        Case {
            name: "all-devices-invalid-CEL",
            claims: vec![claim_with_requests(CLAIM0, vec![], vec![request(REQ0, CLASS_A, 500, vec![])])],
            classes: vec![class(CLASS_A, DRIVER_A)],
            expect: Expect::Error("exceeds the claim limit"),
            ..Default::default()
        },
        Case {
            name: "prioritized-list-first-unavailable",
            features: prioritized(),
            claims: vec![with_requests(
                claim(CLAIM0),
                vec![request_with_prioritized_list(REQ0, vec![sub_request(SUB_REQ0, CLASS_B, 1, vec![]), sub_request(SUB_REQ1, CLASS_A, 1, vec![])])],
            )],
            classes: vec![class(CLASS_A, DRIVER_A), class(CLASS_B, DRIVER_B)],
            slices: vec![slice_with_one_device(SLICE1, Sel::Node(NODE1), pool(POOL1), DRIVER_A)],
            node: n1(),
            expect: one(vec![dar(REQ0_SUB_REQ1, DRIVER_A, POOL1, DEVICE1)]),
            ..Default::default()
        },
        Case {
            name: "prioritized-list-non-available",
            features: prioritized(),
            claims: vec![with_requests(
                claim(CLAIM0),
                vec![request_with_prioritized_list(REQ0, vec![sub_request(SUB_REQ0, CLASS_B, 2, vec![]), sub_request(SUB_REQ1, CLASS_A, 2, vec![])])],
            )],
            classes: vec![class(CLASS_A, DRIVER_A), class(CLASS_B, DRIVER_B)],
            slices: vec![
                slice_with_one_device(SLICE1, Sel::Node(NODE1), pool(POOL1), DRIVER_A),
                slice_with_one_device(SLICE2, Sel::Node(NODE1), pool(POOL2), DRIVER_B),
            ],
            node: n1(),
            expect: nothing(),
            ..Default::default()
        },
        Case {
            name: "prioritized-list-device-config",
            features: prioritized(),
            claims: vec![with_configs(
                with_requests(
                    claim(CLAIM0),
                    vec![request_with_prioritized_list(REQ0, vec![sub_request(SUB_REQ0, CLASS_A, 1, vec![]), sub_request(SUB_REQ1, CLASS_B, 2, vec![])])],
                ),
                vec![
                    device_claim_config(&[REQ0_SUB_REQ0], device_configuration(DRIVER_A, "foo")),
                    device_claim_config(&[REQ0_SUB_REQ1], device_configuration(DRIVER_B, "bar")),
                ],
            )],
            classes: vec![class(CLASS_A, DRIVER_A), class(CLASS_B, DRIVER_B)],
            slices: vec![slice(SLICE1, Sel::Node(NODE1), pool(POOL1), DRIVER_B, vec![device(DEVICE1, &[], &[]), device(DEVICE2, &[], &[])])],
            node: n1(),
            expect: Expect::Results(vec![allocation_result_with_configs(
                local(NODE1),
                vec![dar(REQ0_SUB_REQ1, DRIVER_B, POOL1, DEVICE1), dar(REQ0_SUB_REQ1, DRIVER_B, POOL1, DEVICE2)],
                vec![config(api::CONFIG_SOURCE_CLAIM, &[REQ0_SUB_REQ1], device_configuration(DRIVER_B, "bar"))],
            )]),
            ..Default::default()
        },
        Case {
            name: "prioritized-list-class-config",
            features: prioritized(),
            claims: vec![with_requests(
                claim(CLAIM0),
                vec![request_with_prioritized_list(REQ0, vec![sub_request(SUB_REQ0, CLASS_A, 2, vec![]), sub_request(SUB_REQ1, CLASS_B, 2, vec![])])],
            )],
            classes: vec![class_with_config(CLASS_A, DRIVER_A, "foo"), class_with_config(CLASS_B, DRIVER_B, "bar")],
            slices: vec![
                slice(SLICE1, Sel::Node(NODE1), pool(POOL1), DRIVER_B, vec![device(DEVICE1, &[], &[]), device(DEVICE2, &[], &[])]),
                slice(SLICE2, Sel::Node(NODE1), pool(POOL2), DRIVER_A, vec![device(DEVICE3, &[], &[])]),
            ],
            node: n1(),
            expect: Expect::Results(vec![allocation_result_with_configs(
                local(NODE1),
                vec![dar(REQ0_SUB_REQ1, DRIVER_B, POOL1, DEVICE1), dar(REQ0_SUB_REQ1, DRIVER_B, POOL1, DEVICE2)],
                vec![config(api::CONFIG_SOURCE_CLASS, &[REQ0_SUB_REQ1], device_configuration(DRIVER_B, "bar"))],
            )]),
            ..Default::default()
        },
        Case {
            name: "prioritized-list-subrequests-with-expressions",
            features: prioritized(),
            claims: vec![with_requests(
                claim(CLAIM0),
                vec![
                    request(REQ0, CLASS_A, 1, vec![capacity_selector("1Gi")]),
                    request_with_prioritized_list(
                        REQ1,
                        vec![sub_request(SUB_REQ0, CLASS_A, 1, vec![capacity_selector("4Gi")]), sub_request(SUB_REQ1, CLASS_A, 2, vec![capacity_selector("2Gi")])],
                    ),
                ],
            )],
            classes: vec![class(CLASS_A, DRIVER_A)],
            slices: vec![slice(
                SLICE1,
                Sel::Node(NODE1),
                pool(POOL1),
                DRIVER_A,
                vec![memory(DEVICE1, "2Gi"), memory(DEVICE2, "2Gi"), memory(DEVICE3, "1Gi")],
            )],
            node: n1(),
            expect: one(vec![
                dar(REQ0, DRIVER_A, POOL1, DEVICE3),
                dar(REQ1_SUB_REQ1, DRIVER_A, POOL1, DEVICE1),
                dar(REQ1_SUB_REQ1, DRIVER_A, POOL1, DEVICE2),
            ]),
            ..Default::default()
        },
        Case {
            name: "prioritized-list-subrequests-with-constraints-ref-parent-request",
            features: prioritized(),
            claims: vec![with_requests(
                with_constraints(claim(CLAIM0), vec![match_attribute(&[REQ0, REQ1], VERSION_ATTRIBUTE)]),
                vec![
                    request(REQ0, CLASS_A, 1, vec![capacity_selector("8Gi")]),
                    request_with_prioritized_list(
                        REQ1,
                        vec![sub_request(SUB_REQ0, CLASS_A, 1, vec![capacity_selector("2Gi")]), sub_request(SUB_REQ1, CLASS_A, 1, vec![capacity_selector("1Gi")])],
                    ),
                ],
            )],
            classes: vec![class(CLASS_A, DRIVER_A)],
            slices: vec![
                slice(SLICE1, Sel::Node(NODE1), pool(POOL1), DRIVER_A, vec![mem_attr(DEVICE1, "8Gi", "1.0.0")]),
                slice(SLICE2, Sel::Node(NODE1), pool(POOL2), DRIVER_A, vec![mem_attr(DEVICE2, "2Gi", "2.0.0"), mem_attr(DEVICE3, "1Gi", "1.0.0")]),
            ],
            node: n1(),
            expect: one(vec![dar(REQ0, DRIVER_A, POOL1, DEVICE1), dar(REQ1_SUB_REQ1, DRIVER_A, POOL2, DEVICE3)]),
            ..Default::default()
        },
        Case {
            name: "prioritized-list-subrequests-with-constraints-ref-sub-request",
            features: prioritized(),
            claims: vec![with_requests(
                with_constraints(claim(CLAIM0), vec![match_attribute(&[REQ0, REQ1_SUB_REQ0], VERSION_ATTRIBUTE)]),
                vec![
                    request(REQ0, CLASS_A, 1, vec![capacity_selector("8Gi")]),
                    request_with_prioritized_list(
                        REQ1,
                        vec![sub_request(SUB_REQ0, CLASS_A, 1, vec![capacity_selector("2Gi")]), sub_request(SUB_REQ1, CLASS_A, 1, vec![capacity_selector("1Gi")])],
                    ),
                ],
            )],
            classes: vec![class(CLASS_A, DRIVER_A)],
            slices: vec![
                slice(SLICE1, Sel::Node(NODE1), pool(POOL1), DRIVER_A, vec![mem_attr(DEVICE1, "8Gi", "1.0.0")]),
                slice(SLICE2, Sel::Node(NODE1), pool(POOL2), DRIVER_A, vec![mem_attr(DEVICE2, "2Gi", "2.0.0")]),
            ],
            node: n1(),
            expect: one(vec![dar(REQ0, DRIVER_A, POOL1, DEVICE1), dar(REQ1_SUB_REQ1, DRIVER_A, POOL2, DEVICE2)]),
            ..Default::default()
        },
        Case {
            name: "prioritized-list-subrequests-with-allocation-mode-all",
            features: prioritized(),
            claims: vec![with_requests(
                claim(CLAIM0),
                vec![request_with_prioritized_list(
                    REQ0,
                    vec![
                        api::DeviceSubRequest {
                            allocation_mode: api::ALLOCATION_MODE_ALL.into(),
                            count: 0,
                            ..sub_request(SUB_REQ0, CLASS_A, 1, vec![])
                        },
                        sub_request(SUB_REQ1, CLASS_A, 1, vec![]),
                    ],
                )],
            )],
            classes: vec![class(CLASS_A, DRIVER_A)],
            slices: vec![slice(SLICE1, Sel::Node(NODE1), pool(POOL1), DRIVER_A, vec![device(DEVICE1, &[], &[]), device(DEVICE2, &[], &[])])],
            allocated: vec![id(DRIVER_A, POOL1, DEVICE1)],
            node: n1(),
            expect: one(vec![dar(REQ0_SUB_REQ1, DRIVER_A, POOL1, DEVICE2)]),
            ..Default::default()
        },
        Case {
            name: "prioritized-list-allocation-mode-all-multiple-requests",
            features: prioritized(),
            claims: vec![with_requests(
                claim(CLAIM0),
                vec![
                    request(REQ0, CLASS_A, 1, vec![]),
                    request_with_prioritized_list(
                        REQ1,
                        vec![
                            api::DeviceSubRequest { allocation_mode: api::ALLOCATION_MODE_ALL.into(), ..sub_request(SUB_REQ0, CLASS_A, 0, vec![]) },
                            sub_request(SUB_REQ1, CLASS_A, 1, vec![]),
                        ],
                    ),
                ],
            )],
            classes: vec![class(CLASS_A, DRIVER_A)],
            slices: vec![slice(SLICE1, Sel::Node(NODE1), pool(POOL1), DRIVER_A, vec![device(DEVICE1, &[], &[]), device(DEVICE2, &[], &[])])],
            node: n1(),
            expect: one(vec![dar(REQ0, DRIVER_A, POOL1, DEVICE1), dar(REQ1_SUB_REQ1, DRIVER_A, POOL1, DEVICE2)]),
            ..Default::default()
        },
        Case {
            name: "prioritized-list-disabled",
            claims: vec![with_requests(claim(CLAIM0), vec![request_with_prioritized_list(REQ0, vec![sub_request(SUB_REQ0, CLASS_A, 1, vec![])])])],
            classes: vec![class(CLASS_A, DRIVER_A)],
            slices: vec![slice_with_one_device(SLICE1, Sel::Node(NODE1), pool(POOL1), DRIVER_A)],
            node: n1(),
            expect: Expect::Error("claim claim-0, request req-0: has subrequests, but the DRAPrioritizedList feature is disabled"),
            ..Default::default()
        },
        Case {
            name: "prioritized-list-multi-request",
            features: prioritized(),
            claims: vec![with_requests(
                claim(CLAIM0),
                vec![
                    request(REQ1, CLASS_A, 1, vec![capacity_selector("8Gi")]),
                    request_with_prioritized_list(
                        REQ0,
                        vec![sub_request(SUB_REQ0, CLASS_A, 1, vec![capacity_selector("8Gi")]), sub_request(SUB_REQ1, CLASS_A, 1, vec![capacity_selector("4Gi")])],
                    ),
                ],
            )],
            classes: vec![class(CLASS_A, DRIVER_A)],
            slices: vec![
                slice(SLICE1, Sel::Node(NODE1), pool(POOL1), DRIVER_A, vec![memory(DEVICE1, "8Gi")]),
                slice(SLICE2, Sel::Node(NODE1), pool(POOL2), DRIVER_A, vec![memory(DEVICE2, "4Gi")]),
            ],
            node: n1(),
            expect: one(vec![dar(REQ1, DRIVER_A, POOL1, DEVICE1), dar(REQ0_SUB_REQ1, DRIVER_A, POOL2, DEVICE2)]),
            ..Default::default()
        },
    ]
}

const TAINT_KEY: &str = "taint-key";

fn taint_none() -> DeviceTaint {
    DeviceTaint { key: TAINT_KEY.into(), value: "taint-value".into(), effect: "None".into(), time_added: None }
}
fn taint_no_schedule() -> DeviceTaint {
    DeviceTaint { key: TAINT_KEY.into(), value: "taint-value".into(), effect: "NoSchedule".into(), time_added: None }
}
fn taint_no_execute() -> DeviceTaint {
    DeviceTaint { key: TAINT_KEY.into(), value: "taint-value-2".into(), effect: "NoExecute".into(), time_added: None }
}
fn toleration_no_schedule() -> DeviceToleration {
    DeviceToleration { operator: "Exists".into(), key: TAINT_KEY.into(), effect: "NoSchedule".into(), ..Default::default() }
}
fn toleration_no_execute() -> DeviceToleration {
    DeviceToleration {
        operator: "Equal".into(),
        key: TAINT_KEY.into(),
        value: "taint-value-2".into(),
        effect: "NoExecute".into(),
        ..Default::default()
    }
}

fn taints() -> Features {
    Features { device_taints: true, ..Default::default() }
}

fn all_sub(name: &str, class: &str) -> api::DeviceSubRequest {
    api::DeviceSubRequest { allocation_mode: api::ALLOCATION_MODE_ALL.into(), ..sub_request(name, class, 0, vec![]) }
}

fn part3() -> Vec<Case> {
    let tainted = |name: &str, taints: &[DeviceTaint]| with_taints(device(name, &[], &[]), taints);
    vec![
        Case {
            name: "prioritized-list-with-backtracking",
            features: prioritized(),
            claims: vec![with_requests(
                claim(CLAIM0),
                vec![
                    request_with_prioritized_list(
                        REQ0,
                        vec![
                            sub_request(SUB_REQ0, CLASS_A, 1, vec![capacity_selector("8Gi")]),
                            sub_request(SUB_REQ1, CLASS_A, 1, vec![capacity_selector("4Gi")]),
                        ],
                    ),
                    request(REQ1, CLASS_A, 1, vec![capacity_selector("8Gi")]),
                ],
            )],
            classes: vec![class(CLASS_A, DRIVER_A)],
            slices: vec![
                slice(SLICE1, Sel::Node(NODE1), pool(POOL1), DRIVER_A, vec![memory(DEVICE1, "8Gi")]),
                slice(SLICE2, Sel::Node(NODE1), pool(POOL2), DRIVER_A, vec![memory(DEVICE2, "4Gi")]),
            ],
            node: n1(),
            expect: one(vec![dar(REQ0_SUB_REQ1, DRIVER_A, POOL2, DEVICE2), dar(REQ1, DRIVER_A, POOL1, DEVICE1)]),
            ..Default::default()
        },
        Case {
            name: "prioritized-list-too-many-in-first-subrequest",
            features: prioritized(),
            claims: vec![with_requests(
                claim(CLAIM0),
                vec![request_with_prioritized_list(
                    REQ0,
                    vec![sub_request(SUB_REQ0, CLASS_B, 500, vec![]), sub_request(SUB_REQ1, CLASS_A, 1, vec![])],
                )],
            )],
            classes: vec![class(CLASS_A, DRIVER_A), class(CLASS_B, DRIVER_B)],
            slices: vec![slice_with_one_device(SLICE1, Sel::Node(NODE1), pool(POOL1), DRIVER_A)],
            node: n1(),
            expect: one(vec![dar(REQ0_SUB_REQ1, DRIVER_A, POOL1, DEVICE1)]),
            ..Default::default()
        },
        Case {
            name: "partitionable-devices-disabled-device-consumes-counters",
            claims: vec![claim_with_requests(CLAIM0, vec![], vec![request(REQ0, CLASS_A, 1, vec![])])],
            classes: vec![class(CLASS_A, DRIVER_A)],
            slices: vec![
                slice(
                    SLICE1,
                    Sel::Node(NODE1),
                    pool(POOL1),
                    DRIVER_A,
                    vec![consumes(device(DEVICE1, &[], &[]), "counter-set-1", &[("memory", "4Gi")])],
                ),
                slice_with_counter_sets(
                    SLICE2,
                    Sel::Node(NODE1),
                    pool(POOL1),
                    DRIVER_A,
                    vec![counter_set("counter-set-1", &[("memory", "18Gi")])],
                ),
            ],
            node: n1(),
            expect: nothing(),
            ..Default::default()
        },
        Case {
            // The counter slice is left out, but the pool still counts as complete: its slices
            // are all there (PR #134466).
            name: "partitionable-devices-disabled-other-device-do-not-consume-counters",
            claims: vec![claim_with_requests(CLAIM0, vec![], vec![request(REQ0, CLASS_A, 1, vec![])])],
            classes: vec![class(CLASS_A, DRIVER_A)],
            slices: vec![
                slice(
                    SLICE1,
                    Sel::Node(NODE1),
                    resource_pool(POOL1, 2),
                    DRIVER_A,
                    vec![consumes(device(DEVICE1, &[], &[]), "counter-set-1", &[("memory", "4Gi")]), device(DEVICE2, &[], &[])],
                ),
                slice_with_counter_sets(
                    SLICE2,
                    Sel::Node(NODE1),
                    resource_pool(POOL1, 2),
                    DRIVER_A,
                    vec![counter_set("counter-set-1", &[("memory", "18Gi")])],
                ),
            ],
            node: n1(),
            expect: one(vec![dar(REQ0, DRIVER_A, POOL1, DEVICE2)]),
            ..Default::default()
        },
        Case {
            name: "partitionable-devices-disabled-per-device-node-selection",
            claims: vec![claim_with_requests(CLAIM0, vec![], vec![request(REQ0, CLASS_A, 1, vec![])])],
            classes: vec![class(CLASS_A, DRIVER_A)],
            slices: vec![slice(
                SLICE1,
                Sel::PerDevice,
                pool(POOL1),
                DRIVER_A,
                vec![with_node_selection(device(DEVICE2, &[], &[]), Sel::Node(NODE1))],
            )],
            node: n1(),
            expect: nothing(),
            ..Default::default()
        },
        Case {
            name: "tainted-two-devices",
            features: taints(),
            claims: vec![claim_with_request(CLAIM0, REQ0, CLASS_A, vec![])],
            classes: vec![class(CLASS_A, DRIVER_A)],
            slices: vec![slice(
                SLICE1,
                Sel::Node(NODE1),
                pool(POOL1),
                DRIVER_A,
                vec![tainted(DEVICE1, &[taint_no_schedule()]), tainted(DEVICE2, &[taint_no_execute()])],
            )],
            node: n1(),
            expect: nothing(),
            ..Default::default()
        },
        Case {
            name: "tainted-one-device-two-taints",
            features: taints(),
            claims: vec![claim_with_request(CLAIM0, REQ0, CLASS_A, vec![])],
            classes: vec![class(CLASS_A, DRIVER_A)],
            slices: vec![slice(
                SLICE1,
                Sel::Node(NODE1),
                pool(POOL1),
                DRIVER_A,
                vec![tainted(DEVICE1, &[taint_no_schedule(), taint_no_execute()])],
            )],
            node: n1(),
            expect: nothing(),
            ..Default::default()
        },
        Case {
            // Only the second device's taint is tolerated.
            name: "tainted-two-devices-tolerated",
            features: taints(),
            claims: vec![with_tolerations(claim_with_request(CLAIM0, REQ0, CLASS_A, vec![]), &[toleration_no_execute()])],
            classes: vec![class(CLASS_A, DRIVER_A)],
            slices: vec![slice(
                SLICE1,
                Sel::Node(NODE1),
                pool(POOL1),
                DRIVER_A,
                vec![tainted(DEVICE1, &[taint_no_schedule()]), tainted(DEVICE2, &[taint_no_execute()])],
            )],
            node: n1(),
            expect: one(vec![device_allocation_result_with_tolerations(
                REQ0,
                DRIVER_A,
                POOL1,
                DEVICE2,
                &[toleration_no_execute()],
            )]),
            ..Default::default()
        },
        Case {
            name: "tainted-two-devices-prioritized-list-tolerated",
            features: Features { device_taints: true, prioritized_list: true, ..Default::default() },
            claims: vec![with_requests(
                claim(CLAIM0),
                vec![request_with_prioritized_list(
                    REQ0,
                    vec![
                        sub_request(SUB_REQ0, CLASS_A, 1, vec![]),
                        sub_request_with_tolerations(SUB_REQ1, CLASS_A, 1, vec![toleration_no_execute()]),
                    ],
                )],
            )],
            classes: vec![class(CLASS_A, DRIVER_A)],
            slices: vec![slice(
                SLICE1,
                Sel::Node(NODE1),
                pool(POOL1),
                DRIVER_A,
                vec![tainted(DEVICE1, &[taint_no_schedule()]), tainted(DEVICE2, &[taint_no_execute()])],
            )],
            node: n1(),
            expect: one(vec![device_allocation_result_with_tolerations(
                REQ0_SUB_REQ1,
                DRIVER_A,
                POOL1,
                DEVICE2,
                &[toleration_no_execute()],
            )]),
            ..Default::default()
        },
        Case {
            name: "tainted-no-effect",
            features: taints(),
            claims: vec![claim_with_request(CLAIM0, REQ0, CLASS_A, vec![])],
            classes: vec![class(CLASS_A, DRIVER_A)],
            slices: vec![slice(SLICE1, Sel::Node(NODE1), pool(POOL1), DRIVER_A, vec![tainted(DEVICE1, &[taint_none()])])],
            node: n1(),
            expect: one(vec![dar(REQ0, DRIVER_A, POOL1, DEVICE1)]),
            ..Default::default()
        },
        Case {
            name: "tainted-one-device-two-taints-both-tolerated",
            features: taints(),
            claims: vec![with_tolerations(
                claim_with_request(CLAIM0, REQ0, CLASS_A, vec![]),
                &[toleration_no_schedule(), toleration_no_execute()],
            )],
            classes: vec![class(CLASS_A, DRIVER_A)],
            slices: vec![slice(
                SLICE1,
                Sel::Node(NODE1),
                pool(POOL1),
                DRIVER_A,
                vec![tainted(DEVICE1, &[taint_no_schedule(), taint_no_execute()])],
            )],
            node: n1(),
            expect: one(vec![device_allocation_result_with_tolerations(
                REQ0,
                DRIVER_A,
                POOL1,
                DEVICE1,
                &[toleration_no_schedule(), toleration_no_execute()],
            )]),
            ..Default::default()
        },
        Case {
            name: "tainted-disabled",
            claims: vec![claim_with_request(CLAIM0, REQ0, CLASS_A, vec![])],
            classes: vec![class(CLASS_A, DRIVER_A)],
            slices: vec![slice(
                SLICE1,
                Sel::Node(NODE1),
                pool(POOL1),
                DRIVER_A,
                vec![tainted(DEVICE1, &[taint_no_schedule(), taint_no_execute()])],
            )],
            node: n1(),
            expect: one(vec![dar(REQ0, DRIVER_A, POOL1, DEVICE1)]),
            ..Default::default()
        },
        Case {
            name: "tainted-prioritized-list",
            features: Features { device_taints: true, prioritized_list: true, ..Default::default() },
            claims: vec![with_requests(
                claim(CLAIM0),
                vec![request_with_prioritized_list(
                    REQ0,
                    vec![sub_request(SUB_REQ0, CLASS_B, 1, vec![]), sub_request(SUB_REQ1, CLASS_A, 1, vec![])],
                )],
            )],
            classes: vec![class(CLASS_A, DRIVER_A), class(CLASS_B, DRIVER_B)],
            slices: vec![slice(SLICE1, Sel::Node(NODE1), pool(POOL1), DRIVER_A, vec![tainted(DEVICE1, &[taint_no_schedule()])])],
            node: n1(),
            expect: nothing(),
            ..Default::default()
        },
        Case {
            name: "tainted-prioritized-list-disabled",
            features: prioritized(),
            claims: vec![with_requests(
                claim(CLAIM0),
                vec![request_with_prioritized_list(
                    REQ0,
                    vec![sub_request(SUB_REQ0, CLASS_B, 1, vec![]), sub_request(SUB_REQ1, CLASS_A, 1, vec![])],
                )],
            )],
            classes: vec![class(CLASS_A, DRIVER_A), class(CLASS_B, DRIVER_B)],
            slices: vec![slice(SLICE1, Sel::Node(NODE1), pool(POOL1), DRIVER_A, vec![tainted(DEVICE1, &[taint_no_schedule()])])],
            node: n1(),
            expect: one(vec![dar(REQ0_SUB_REQ1, DRIVER_A, POOL1, DEVICE1)]),
            ..Default::default()
        },
        Case {
            name: "tainted-admin-access",
            features: Features { device_taints: true, admin_access: true, ..Default::default() },
            claims: vec![claim_with(CLAIM0, REQ0, CLASS_A, |r| r.admin_access = Some(true))],
            allocated: vec![id(DRIVER_A, POOL1, DEVICE1), id(DRIVER_A, POOL1, DEVICE2)],
            classes: vec![class(CLASS_A, DRIVER_A)],
            slices: vec![slice(SLICE1, Sel::Node(NODE1), pool(POOL1), DRIVER_A, vec![tainted(DEVICE1, &[taint_no_schedule()])])],
            node: n1(),
            expect: nothing(),
            ..Default::default()
        },
        Case {
            name: "tainted-admin-access-disabled",
            features: admin(),
            claims: vec![claim_with(CLAIM0, REQ0, CLASS_A, |r| r.admin_access = Some(true))],
            allocated: vec![id(DRIVER_A, POOL1, DEVICE1), id(DRIVER_A, POOL1, DEVICE2)],
            classes: vec![class(CLASS_A, DRIVER_A)],
            slices: vec![slice(SLICE1, Sel::Node(NODE1), pool(POOL1), DRIVER_A, vec![tainted(DEVICE1, &[taint_no_schedule()])])],
            node: n1(),
            expect: one(vec![dar_admin(REQ0, DRIVER_A, POOL1, DEVICE1)]),
            ..Default::default()
        },
        Case {
            name: "tainted-all-devices-single",
            features: taints(),
            claims: vec![all_mode(CLAIM0, REQ0, CLASS_A)],
            classes: vec![class(CLASS_A, DRIVER_A)],
            slices: vec![slice(SLICE1, Sel::Node(NODE1), pool(POOL1), DRIVER_A, vec![tainted(DEVICE1, &[taint_no_schedule()])])],
            node: n1(),
            expect: nothing(),
            ..Default::default()
        },
        Case {
            name: "tainted-all-devices-single-disabled",
            claims: vec![all_mode(CLAIM0, REQ0, CLASS_A)],
            classes: vec![class(CLASS_A, DRIVER_A)],
            slices: vec![slice(SLICE1, Sel::Node(NODE1), pool(POOL1), DRIVER_A, vec![tainted(DEVICE1, &[taint_no_schedule()])])],
            node: n1(),
            expect: one(vec![dar(REQ0, DRIVER_A, POOL1, DEVICE1)]),
            ..Default::default()
        },
        Case {
            name: "prioritized-list-allocation-mode-all",
            features: prioritized(),
            claims: vec![with_requests(
                claim(CLAIM0),
                vec![request_with_prioritized_list(
                    REQ0,
                    vec![all_sub(SUB_REQ0, CLASS_A), sub_request(SUB_REQ1, CLASS_A, 1, vec![])],
                )],
            )],
            classes: vec![class(CLASS_A, DRIVER_A)],
            slices: vec![slice(
                SLICE1,
                Sel::Node(NODE1),
                pool(POOL1),
                DRIVER_A,
                vec![device(DEVICE1, &[], &[]), device(DEVICE2, &[], &[])],
            )],
            allocated: vec![id(DRIVER_A, POOL1, DEVICE2)],
            node: n1(),
            expect: one(vec![dar(REQ0_SUB_REQ1, DRIVER_A, POOL1, DEVICE1)]),
            ..Default::default()
        },
        Case {
            name: "max-number-devices",
            claims: vec![claim_with_requests(CLAIM0, vec![], vec![request(REQ0, CLASS_A, MAX_SIZE, vec![])])],
            classes: vec![class(CLASS_A, DRIVER_A)],
            slices: vec![slice_with_multiple_devices(SLICE1, Sel::Node(NODE1), pool(POOL1), DRIVER_A, MAX_SIZE as usize)],
            node: n1(),
            expect: one(multiple_device_allocation_results(REQ0, DRIVER_A, POOL1, MAX_SIZE as usize, 0)),
            ..Default::default()
        },
        Case {
            name: "prioritized-list-max-allocation-limit-request",
            features: prioritized(),
            claims: vec![with_requests(
                claim(CLAIM0),
                vec![
                    request_with_prioritized_list(
                        REQ0,
                        vec![
                            sub_request(SUB_REQ0, CLASS_A, MAX_SIZE, vec![]),
                            sub_request(SUB_REQ1, CLASS_A, MAX_SIZE / 2, vec![]),
                        ],
                    ),
                    request_with_prioritized_list(
                        REQ1,
                        vec![
                            sub_request(SUB_REQ0, CLASS_A, MAX_SIZE, vec![]),
                            sub_request(SUB_REQ1, CLASS_A, MAX_SIZE / 2, vec![]),
                        ],
                    ),
                ],
            )],
            classes: vec![class(CLASS_A, DRIVER_A)],
            slices: vec![slice_with_multiple_devices(SLICE1, Sel::Node(NODE1), pool(POOL1), DRIVER_A, MAX_SIZE as usize * 2)],
            node: n1(),
            expect: one([
                multiple_device_allocation_results(REQ0_SUB_REQ1, DRIVER_A, POOL1, MAX_SIZE as usize / 2, 0),
                multiple_device_allocation_results(REQ1_SUB_REQ1, DRIVER_A, POOL1, MAX_SIZE as usize / 2, MAX_SIZE as usize / 2),
            ]
            .concat()),
            invocations: 75,
            ..Default::default()
        },
        Case {
            name: "prioritized-list-max-allocation-allocation-mode-all",
            features: prioritized(),
            claims: vec![with_requests(
                claim(CLAIM0),
                vec![
                    request_with_prioritized_list(
                        REQ0,
                        vec![all_sub(SUB_REQ0, CLASS_A), sub_request(SUB_REQ1, CLASS_A, 2, vec![])],
                    ),
                    request(REQ1, CLASS_B, 2, vec![]),
                ],
            )],
            classes: vec![class(CLASS_A, DRIVER_A), class(CLASS_B, DRIVER_B)],
            slices: vec![
                slice_with_multiple_devices(SLICE1, Sel::Node(NODE1), pool(POOL1), DRIVER_A, MAX_SIZE as usize - 1),
                slice_with_multiple_devices(SLICE2, Sel::Node(NODE1), pool(POOL2), DRIVER_B, 2),
            ],
            node: n1(),
            expect: one(vec![
                dar(REQ0_SUB_REQ1, DRIVER_A, POOL1, "device-0"),
                dar(REQ0_SUB_REQ1, DRIVER_A, POOL1, "device-1"),
                dar(REQ1, DRIVER_B, POOL2, "device-0"),
                dar(REQ1, DRIVER_B, POOL2, "device-1"),
            ]),
            invocations: 42,
            ..Default::default()
        },
        Case {
            name: "binding-conditions-without-feature-gate",
            claims: vec![claim_with_requests(CLAIM0, vec![], vec![request(REQ0, CLASS_A, 1, vec![])])],
            classes: vec![class(CLASS_A, DRIVER_A)],
            slices: vec![slice(
                SLICE1,
                Sel::Node(NODE1),
                pool(POOL1),
                DRIVER_A,
                vec![with_binding_conditions(device(DEVICE1, &[], &[]), &["IsPrepare"], &["BindingFailed"])],
            )],
            node: n1(),
            expect: nothing(),
            ..Default::default()
        },
    ]
}

/// A slice of pool-1 for `node` with one device, of `generation` in a pool of two slices.
fn multi_host(name: &str, node: &'static str, device_name: &str, generation: i64) -> api::ResourceSlice {
    slice(
        name,
        Sel::Node(node),
        api::ResourcePool { name: POOL1.into(), generation, resource_slice_count: 2 },
        DRIVER_A,
        vec![device(device_name, &[], &[])],
    )
}

fn part4() -> Vec<Case> {
    let found_device1 = || one(vec![dar(REQ0, DRIVER_A, POOL1, DEVICE1)]);
    vec![
        Case {
            name: "allocation-mode-all-with-multi-host-resource-pool",
            claims: vec![all_mode(CLAIM0, REQ0, CLASS_A)],
            classes: vec![class(CLASS_A, DRIVER_A)],
            slices: vec![multi_host(SLICE1, NODE1, DEVICE1, 1), multi_host(SLICE2, NODE2, DEVICE2, 1)],
            node: n1(),
            expect: found_device1(),
            ..Default::default()
        },
        Case {
            name: "multi-host-resource-pool-with-stale-slice-for-current-node",
            claims: vec![claim_with_request(CLAIM0, REQ0, CLASS_A, vec![])],
            classes: vec![class(CLASS_A, DRIVER_A)],
            slices: vec![multi_host(SLICE1, NODE1, DEVICE1, 1), multi_host(SLICE2, NODE2, DEVICE2, 2)],
            node: n1(),
            expect: nothing(),
            ..Default::default()
        },
        Case {
            // Upstream would rather not allocate here, but a complete old generation is used,
            // as it would be if the scheduler had not seen the update yet.
            name: "multi-host-resource-pool-complete-update-from-node-1-to-node-2",
            claims: vec![claim_with_request(CLAIM0, REQ0, CLASS_A, vec![])],
            classes: vec![class(CLASS_A, DRIVER_A)],
            slices: vec![
                multi_host(SLICE1, NODE1, DEVICE1, 1),
                multi_host(SLICE1, NODE1, DEVICE2, 1),
                multi_host(SLICE2, NODE2, DEVICE1, 2),
                multi_host(SLICE2, NODE2, DEVICE2, 2),
            ],
            node: n1(),
            expect: found_device1(),
            ..Default::default()
        },
        Case {
            name: "multi-host-resource-pool-complete-update-from-node-2-to-node-1",
            claims: vec![claim_with_request(CLAIM0, REQ0, CLASS_A, vec![])],
            classes: vec![class(CLASS_A, DRIVER_A)],
            slices: vec![
                multi_host(SLICE1, NODE2, DEVICE1, 1),
                multi_host(SLICE1, NODE2, DEVICE2, 1),
                multi_host(SLICE2, NODE1, DEVICE1, 2),
                multi_host(SLICE2, NODE1, DEVICE2, 2),
            ],
            node: n1(),
            expect: found_device1(),
            ..Default::default()
        },
        Case {
            name: "multi-host-resource-pool-incomplete-update-from-node-1-to-node-2",
            claims: vec![claim_with_request(CLAIM0, REQ0, CLASS_A, vec![])],
            classes: vec![class(CLASS_A, DRIVER_A)],
            slices: vec![
                multi_host(SLICE1, NODE1, DEVICE1, 1),
                multi_host(SLICE1, NODE1, DEVICE2, 1),
                multi_host(SLICE2, NODE2, DEVICE1, 2),
            ],
            node: n1(),
            expect: found_device1(),
            ..Default::default()
        },
        Case {
            // Not allocated: the newer generation is incomplete.
            name: "multi-host-resource-pool-incomplete-update-from-node-2-to-node-1",
            claims: vec![claim_with_request(CLAIM0, REQ0, CLASS_A, vec![])],
            classes: vec![class(CLASS_A, DRIVER_A)],
            slices: vec![
                multi_host(SLICE1, NODE2, DEVICE1, 1),
                multi_host(SLICE1, NODE2, DEVICE2, 1),
                multi_host(SLICE2, NODE1, DEVICE1, 2),
            ],
            node: n1(),
            expect: nothing(),
            ..Default::default()
        },
        Case {
            name: "different-resourceslices-in-pool-can-target-different-nodes",
            claims: vec![claim_with_requests(CLAIM0, vec![], vec![request(REQ0, CLASS_A, 1, vec![])])],
            classes: vec![class(CLASS_A, DRIVER_A)],
            slices: vec![
                slice(SLICE1, Sel::Node(NODE2), resource_pool(POOL1, 2), DRIVER_A, vec![device(DEVICE1, &[], &[])]),
                slice(SLICE2, Sel::Node(NODE1), resource_pool(POOL1, 2), DRIVER_A, vec![device(DEVICE2, &[], &[])]),
            ],
            node: n1(),
            expect: one(vec![dar(REQ0, DRIVER_A, POOL1, DEVICE2)]),
            ..Default::default()
        },
        Case {
            name: "invalid-pool-is-ok-if-devices-can-be-allocated-from-other",
            claims: vec![claim_with_requests(CLAIM0, vec![], vec![request(REQ0, CLASS_A, 1, vec![])])],
            classes: vec![class(CLASS_A, DRIVER_A)],
            slices: vec![
                slice(SLICE1, Sel::Node(NODE1), resource_pool(POOL1, 2), DRIVER_A, vec![device(DEVICE1, &[], &[])]),
                slice(SLICE2, Sel::Node(NODE1), resource_pool(POOL1, 2), DRIVER_A, vec![device(DEVICE1, &[], &[])]),
                slice(SLICE3, Sel::Node(NODE1), resource_pool(POOL2, 1), DRIVER_A, vec![device(DEVICE2, &[], &[])]),
            ],
            node: n1(),
            expect: one(vec![dar(REQ0, DRIVER_A, POOL2, DEVICE2)]),
            ..Default::default()
        },
        Case {
            name: "invalid-pool-is-error-if-no-other-device-can-be-allocated",
            claims: vec![claim_with_requests(CLAIM0, vec![], vec![request(REQ0, CLASS_A, 1, vec![])])],
            classes: vec![class(CLASS_A, DRIVER_A)],
            slices: vec![
                slice(SLICE1, Sel::Node(NODE1), resource_pool(POOL1, 2), DRIVER_A, vec![device(DEVICE1, &[], &[])]),
                slice(SLICE2, Sel::Node(NODE1), resource_pool(POOL1, 2), DRIVER_A, vec![device(DEVICE1, &[], &[])]),
                slice(SLICE3, Sel::Node(NODE1), resource_pool(POOL2, 1), DRIVER_A, vec![device(DEVICE2, &[], &[])]),
            ],
            allocated: vec![id(DRIVER_A, POOL2, DEVICE2)],
            node: n1(),
            expect: Expect::Error("invalid resource pools were encountered"),
            ..Default::default()
        },
        Case {
            name: "no-allocation-from-incomplete-pools",
            claims: vec![claim_with_requests(CLAIM0, vec![], vec![request(REQ0, CLASS_A, 1, vec![])])],
            classes: vec![class(CLASS_A, DRIVER_A)],
            slices: vec![slice(SLICE1, Sel::Node(NODE1), resource_pool(POOL1, 2), DRIVER_A, vec![device(DEVICE1, &[], &[])])],
            node: n1(),
            expect: nothing(),
            ..Default::default()
        },
    ]
}

/// Upstream cases not run here, with the reason: each needs an alpha feature enabled
/// (partitionable devices, consumable capacity or binding conditions, which edgesched's
/// allocator refuses to enable), or, for the two `consumable-capacity-disabled-feature` cases,
/// forces upstream's experimental implementation, whose refusal text the stable
/// implementation v1.35 uses does not have (it ignores capacity requests).
pub const SKIPPED: &[&str] = &[
    "partitionable-devices-single-device",
    "partitionable-devices-prioritized-list",
    "partitionable-devices-multiple-devices",
    "partitionable-devices-multiple-capacity-pools",
    "partitionable-devices-multiple-counters",
    "partitionable-devices-multiple-pools",
    "partitionable-devices-unused-counters-in-counter-set",
    "partitionable-devices-no-capacity-available",
    "partitionable-devices-overallocated-capacity-pool",
    "partitionable-devices-per-device-node-selection-nodename",
    "partitionable-devices-per-device-node-selection-node-selector",
    "partitionable-devices-per-device-node-selection-node-selector-multiple-devices",
    "partitionable-devices-with-attribute-selector",
    "device-binding-conditions",
    "binding-conditions-multiple-devices",
    "binding-conditions-with-and-without",
    "node-restriction",
    "partitionable-devices-with-binding-conditions",
    "partitionable-devices-with-binding-conditions-multiple",
    "partitionable-devices-with-binding-conditions-some-devices-no-conditions",
    "partitionable-devices-with-binding-conditions-multi-slices",
    "partitionable-devices-with-binding-conditions-and-taints",
    "partitionable-devices-with-binding-conditions-and-taints-tolerated",
    "consumable-capacity-disabled-feature",
    "consumable-capacity-disabled-feature-with-prioritized-list",
    "consumable-capacity-multi-allocatable-device-with-missing-capacity-request",
    "consumable-capacity-multi-allocatable-device-allocation-mode-all-with-missing-capacity-request",
    "consumable-capacity-multi-allocatable-device-without-capacity-without-capacity-request",
    "consumable-capacity-multi-allocatable-device-without-policy-without-capacity-request",
    "consumable-capacity-multi-allocatable-device-without-policy-without-capacity-request-block",
    "consumable-capacity-multi-allocatable-device-without-policy-with-capacity-request",
    "consumable-capacity-multi-allocatable-device-with-policy-without-capacity-request",
    "consumable-capacity-multi-allocatable-device-with-zero-request-policy",
    "consumable-capacity-multi-allocatable-device-violates-zero-request-policy",
    "consumable-capacity-multi-allocatable-device-with-range-policy-with-capacity-request",
    "consumable-capacity-multi-allocatable-device-with-range-policy-step",
    "consumable-capacity-multi-allocatable-device-with-valid-values-policy",
    "consumable-capacity-multi-allocatable-device-with-valid-values-policy-round-up",
    "consumable-capacity-multi-allocatable-device-with-exceeded-consumable-capacity-request",
    "consumable-capacity-multi-allocatable-device-with-request-over-max-sharing-policy",
    "consumable-capacity-multi-allocatable-device-with-allocated-capacity-use-remaining",
    "consumable-capacity-multi-allocatable-device-with-allocated-capacity-next-device",
    "consumable-capacity-with-multi-allocatable-device-backtrack",
    "consumable-capacity-multi-allocatable-device-with-subrequest",
    "consumable-capacity-multi-allocatable-device-with-no-available-consumable-capacity",
    "consumable-capacity-multi-allocatable-device-allocation-mode-all-filter-out-no-capacity",
    "consumable-capacity-multi-allocatable-device-allocation-mode-all-filter-out-insufficient-capacity",
    "consumable-capacity-multi-allocatable-device-allocation-mode-all-allocating-sufficient",
    "consumable-capacity-multi-allocatable-device-allocation-mode-all-in-use-sufficient",
    "consumable-capacity-multi-allocatable-device-allocation-mode-all-allocating-insufficient",
    "consumable-capacity-multi-allocatable-device-allocation-mode-all-in-use-insufficient",
    "consumable-capacity-dedicated-device-with-consumable-capacity-request",
    "consumable-capacity-dedicated-device-with-multiple-consumable-capacity-request",
    "allow-multiple-allocations-exclude-multi-allocatable-device-by-class-selector",
    "allow-multiple-allocations-not-allocate-multi-allocatable-device-which-already-dedicated",
    "allow-multiple-allocations-not-allocate-dedicated-device-which-change-from-multi-allocatable",
    "allow-multiple-allocations-with-partitionable-device",
    "consumable-capacity-with-partitionable-device-multiple-capacity-pools",
    "with-distinct-constraints",
    "with-distinct-constraints-attribute-not-set",
    "with-distinct-constraints-unknown-type-attribute",
    "with-distinct-constraints-with-subrequests",
    "distinct-constraint-one-multi-allocatable-device-with-distinct-constraint",
    "distinct-constraint-two-multi-allocatable-devices-with-distinct-constraint",
    "partitionable-devices-same-counter-set-name-in-different-resource-slices",
    "partitionable-devices-device-counter-consumption-references-unknown-counter-set",
    "partitionable-devices-device-counter-consumption-references-unknown-counter-in-counter-set",
    "partitionable-devices-device-counter-consumption-references-counter-set-in-other-pool",
    "partitionable-devices-devices-on-different-nodes-consume-same-counter-set",
    "partitionable-devices-validation-error-on-non-targeting-slice",
];

/// The `interrupt` subtests: a search with no solution (6 devices asked, 5 exist) that is
/// stopped by the deadline before it starts ("timeout", "deadline" and "cancel" upstream are
/// one case here: the deadline has passed) or runs to its end ("off").
#[test]
fn upstream_interrupt() {
    use crate::core::dra::allocator::{AllocError, Allocator, Deadline, NoDeadline, NodeRef, PreparedSlice, SliceIndex};
    use std::collections::HashSet;
    use std::sync::Arc;
    struct Passed;
    impl Deadline for Passed {
        fn expired(&self) -> bool {
            true
        }
    }
    let classes = vec![class(CLASS_A, DRIVER_A)];
    let claim = claim_with_requests(CLAIM0, vec![], vec![request(REQ0, CLASS_A, 6, vec![])]);
    let devices = [DEVICE1, DEVICE2, DEVICE3, DEVICE4, "device-5"].iter().map(|d| device(d, &[], &[])).collect();
    let slices = [slice(SLICE1, Sel::Node(NODE1), pool(POOL1), DRIVER_A, devices)];
    let index = SliceIndex::in_given_order(slices.iter().map(|s| Arc::new(PreparedSlice::new(s).expect("prepares"))));
    let allocated = HashSet::new();
    let allocator = Allocator::new(Features::default(), &allocated, &classes, &index).expect("features");
    let n = n1().expect("node");
    let node = NodeRef { name: &n.name, labels: &n.labels };
    let off = allocator.allocate(node, &[&claim], &mut cel_selectors(), &NoDeadline);
    assert_eq!(off, Err(AllocError::CannotAllocate), "off");
    let stopped = allocator.allocate(node, &[&claim], &mut cel_selectors(), &Passed);
    assert_eq!(stopped, Err(AllocError::TimedOut), "deadline");
}

#[test]
fn upstream_table() {
    let all = cases();
    let mut names: Vec<&str> = all.iter().map(|c| c.name).collect();
    names.sort_unstable();
    names.dedup();
    assert_eq!(names.len(), all.len(), "case names are unique");
    for case in &all {
        run(case, &mut cel_selectors());
    }
    assert!(all.iter().all(|c| !SKIPPED.contains(&c.name)), "a case is both run and skipped");
    assert_eq!(all.len() + SKIPPED.len(), UPSTREAM_CASES, "every upstream case is run or skipped");
}

/// The number of cases of upstream's table (without the `interrupt` subtests).
const UPSTREAM_CASES: usize = 179;
