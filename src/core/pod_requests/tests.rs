//! Tests of [`super::pod_resources`]: the spec rules (init containers, sidecars, overhead,
//! pod-level resources, non-zero defaults) and, for bound pods, the in-place resize rules,
//! with upstream's test cases transcribed where they pin a behaviour down.

use super::*;
use crate::core::api::{self, ContainerStatus, PodCondition, PodStatus, QuantityStr, StatusResources};

/// A pending pod's requests (no status resources).
fn spec_only(spec: &api::PodSpec) -> Result<PodResources, String> {
    pod_resources(spec, &PodStatus::default(), false, RequestGates::default())
}

fn container(name: &str, reqs: &[(&str, &str)]) -> api::Container {
    api::Container {
        name: name.into(),
        resources: api::ResourceRequirements {
            requests: reqs.iter().map(|(k, v)| (k.to_string(), api::QuantityStr(v.to_string()))).collect(),
            ..Default::default()
        },
        ..Default::default()
    }
}

fn sidecar(name: &str, reqs: &[(&str, &str)]) -> api::Container {
    let mut c = container(name, reqs);
    c.restart_policy = Some("Always".into());
    c
}

#[test]
fn init_container_max_rule() {
    // component-helpers resource helpers_test.go "init container larger than containers".
    let spec = api::PodSpec {
        containers: vec![container("a", &[("cpu", "1"), ("memory", "1Gi")]), container("b", &[("cpu", "1")])],
        init_containers: vec![container("i1", &[("cpu", "3")]), container("i2", &[("memory", "512Mi")])],
        ..Default::default()
    };
    let r = spec_only(&spec).expect("valid");
    assert_eq!(r.requests.milli_cpu, 3000);
    assert_eq!(r.requests.memory, 1 << 30);
    // non-zero: b has no memory -> 200Mi; init i1 has no memory -> 200Mi; i2 no cpu -> 100m
    assert_eq!(r.non_zero_milli_cpu, 3000);
    assert_eq!(r.non_zero_memory, (1 << 30) + DEFAULT_MEMORY_REQUEST);
}

#[test]
fn sidecars_add_to_containers_and_later_inits() {
    // KEP-753 example: sidecar 1 cpu started before a 2 cpu init container -> init peak 3,
    // steady state 1 (sidecar) + 1 (container) = 2; result max(3, 2) = 3.
    let spec = api::PodSpec {
        containers: vec![container("c", &[("cpu", "1")])],
        init_containers: vec![sidecar("s", &[("cpu", "1")]), container("i", &[("cpu", "2")])],
        ..Default::default()
    };
    assert_eq!(spec_only(&spec).expect("valid").requests.milli_cpu, 3000);
    let spec = api::PodSpec {
        containers: vec![container("c", &[("cpu", "5")])],
        init_containers: vec![sidecar("s", &[("cpu", "1")]), container("i", &[("cpu", "2")])],
        ..Default::default()
    };
    assert_eq!(spec_only(&spec).expect("valid").requests.milli_cpu, 6000);
}

#[test]
fn overhead_and_pod_level_resources() {
    let mut spec = api::PodSpec { containers: vec![container("c", &[("cpu", "100m")])], ..Default::default() };
    spec.overhead.insert("cpu".into(), api::QuantityStr("250m".into()));
    let r = spec_only(&spec).expect("valid");
    assert_eq!(r.requests.milli_cpu, 350);
    assert_eq!(r.non_zero_milli_cpu, 350);
    spec.resources = Some(api::ResourceRequirements {
        requests: [("cpu".to_string(), api::QuantityStr("2".into()))].into_iter().collect(),
        ..Default::default()
    });
    assert_eq!(spec_only(&spec).expect("valid").requests.milli_cpu, 2250);
}

#[test]
fn explicit_zero_is_not_defaulted() {
    let spec = api::PodSpec { containers: vec![container("c", &[("cpu", "0"), ("memory", "0")])], ..Default::default() };
    let r = spec_only(&spec).expect("valid");
    assert_eq!((r.non_zero_milli_cpu, r.non_zero_memory), (0, 0));
    let spec = api::PodSpec { containers: vec![container("c", &[])], ..Default::default() };
    let r = spec_only(&spec).expect("valid");
    assert_eq!((r.non_zero_milli_cpu, r.non_zero_memory), (DEFAULT_MILLI_CPU_REQUEST, DEFAULT_MEMORY_REQUEST));
    assert!(r.requests.is_zero());
}

#[test]
fn invalid_quantity_names_container_and_resource() {
    let spec = api::PodSpec { containers: vec![container("app", &[("cpu", "lots")])], ..Default::default() };
    let err = spec_only(&spec).expect_err("invalid");
    assert!(err.contains("container \"app\"") && err.contains("cpu"), "{err}");
}

// ---------------------------------------------------------------------------------------------
// In-place resize (status resources of bound pods)
// ---------------------------------------------------------------------------------------------

fn list(entries: &[(&str, &str)]) -> api::ResourceList {
    entries.iter().map(|(k, v)| (k.to_string(), QuantityStr(v.to_string()))).collect()
}

/// A container status reporting `resources.requests` (`None`: no `resources`) and
/// `allocatedResources`.
fn reported(name: &str, actual: Option<&[(&str, &str)]>, allocated: &[(&str, &str)]) -> ContainerStatus {
    ContainerStatus {
        name: name.into(),
        allocated_resources: list(allocated),
        resources: actual.map(|a| StatusResources { requests: list(a) }),
    }
}

fn resize(reason: &str) -> PodCondition {
    PodCondition {
        type_: conditions::POD_RESIZE_PENDING.into(),
        status: "True".into(),
        reason: Some(reason.into()),
        ..Default::default()
    }
}

fn in_progress() -> PodCondition {
    PodCondition { type_: conditions::POD_RESIZE_IN_PROGRESS.into(), status: "True".into(), ..Default::default() }
}

/// One case of upstream's tables: a bound pod's spec and status, what `PodRequests` (with
/// `UseStatusResources`) counts of cpu and memory, in millicores and bytes.
struct Case {
    name: &'static str,
    containers: Vec<api::Container>,
    init_containers: Vec<api::Container>,
    statuses: Vec<ContainerStatus>,
    init_statuses: Vec<ContainerStatus>,
    conditions: Vec<PodCondition>,
    bound: bool,
    cpu: i64,
}

impl Default for Case {
    fn default() -> Case {
        Case {
            name: "",
            containers: Vec::new(),
            init_containers: Vec::new(),
            statuses: Vec::new(),
            init_statuses: Vec::new(),
            conditions: Vec::new(),
            bound: true,
            cpu: 0,
        }
    }
}

/// `TestPodResourceRequests`' resize cases, from
/// `staging/src/k8s.io/component-helpers/resource/helpers_test.go` (the version whose resize
/// status is the `PodResizePending` condition); each expectation holds for v1.35's
/// `helpers.go` (8a84988bd671), `determineEffectiveRequests`.
#[test]
fn upstream_pod_resource_requests_resize_cases() {
    let cases = vec![
        Case {
            name: "resized, infeasible",
            containers: vec![container("container-1", &[("cpu", "4")])],
            statuses: vec![reported("container-1", Some(&[("cpu", "2")]), &[])],
            conditions: vec![resize(conditions::REASON_INFEASIBLE)],
            cpu: 2000,
            ..Default::default()
        },
        Case {
            name: "resized, infeasible & in-progress",
            containers: vec![container("container-1", &[("cpu", "6")])],
            statuses: vec![reported("container-1", Some(&[("cpu", "2")]), &[("cpu", "4")])],
            conditions: vec![resize(conditions::REASON_INFEASIBLE)],
            cpu: 4000,
            ..Default::default()
        },
        Case {
            name: "resized, no resize status",
            containers: vec![container("container-1", &[("cpu", "4")])],
            statuses: vec![reported("container-1", Some(&[("cpu", "2")]), &[])],
            init_statuses: vec![reported("restartable-init-1", None, &[("cpu", "2")])],
            cpu: 4000,
            ..Default::default()
        },
        Case {
            name: "resized, infeasible, but don't use status",
            containers: vec![container("container-1", &[("cpu", "4")])],
            statuses: vec![reported("container-1", Some(&[("cpu", "2")]), &[])],
            conditions: vec![resize(conditions::REASON_INFEASIBLE)],
            bound: false,
            cpu: 4000,
            ..Default::default()
        },
        Case {
            name: "resized, restartable init container, infeasible",
            init_containers: vec![sidecar("restartable-init-1", &[("cpu", "4")])],
            init_statuses: vec![reported("restartable-init-1", Some(&[("cpu", "2")]), &[])],
            conditions: vec![resize(conditions::REASON_INFEASIBLE)],
            cpu: 2000,
            ..Default::default()
        },
        Case {
            name: "resized, restartable init container, no resize status",
            init_containers: vec![sidecar("restartable-init-1", &[("cpu", "4")])],
            init_statuses: vec![reported("restartable-init-1", Some(&[("cpu", "2")]), &[])],
            cpu: 4000,
            ..Default::default()
        },
        Case {
            name: "resized, restartable init container, infeasible, but don't use status",
            init_containers: vec![sidecar("restartable-init-1", &[("cpu", "4")])],
            init_statuses: vec![reported("restartable-init-1", Some(&[("cpu", "2")]), &[])],
            conditions: vec![resize(conditions::REASON_INFEASIBLE)],
            bound: false,
            cpu: 4000,
            ..Default::default()
        },
        // Statuses without `resources` are not read in v1.35 (the later
        // `containerAllocatedRequests` reads them; the sum is 3 either way here).
        Case {
            name: "aggregate request resolves max of sums instead of sum of maxes",
            containers: vec![container("c1", &[("cpu", "1")]), container("c2", &[("cpu", "2")])],
            statuses: vec![reported("c1", None, &[("cpu", "2")]), reported("c2", None, &[("cpu", "1")])],
            cpu: 3000,
            ..Default::default()
        },
        // `TestAggregateContainerRequestsAndLimits`' status cases.
        Case {
            name: "regularcontainers with empty requests, but status with non-empty requests",
            containers: vec![container("container-1", &[])],
            statuses: vec![reported("container-1", Some(&[("cpu", "2")]), &[])],
            cpu: 2000,
            ..Default::default()
        },
        Case {
            name: "always-restart init containers with empty requests, but status with non-empty requests",
            init_containers: vec![sidecar("container-1", &[])],
            init_statuses: vec![reported("container-1", Some(&[("cpu", "2")]), &[])],
            cpu: 2000,
            ..Default::default()
        },
        // v1.35 itself (helpers.go at 8a84988bd671): each container counts its own maximum, so
        // with `resources` reported the sum is of maxima (2 + 2); a regular init container's
        // status is never read; a deferred resize and one in progress keep the spec's share.
        Case {
            name: "v1.35: per-container maxima add up",
            containers: vec![container("c1", &[("cpu", "1")]), container("c2", &[("cpu", "2")])],
            statuses: vec![reported("c1", Some(&[("cpu", "2")]), &[]), reported("c2", Some(&[("cpu", "1")]), &[])],
            cpu: 4000,
            ..Default::default()
        },
        Case {
            name: "v1.35: a regular init container's status is not read",
            containers: vec![container("c", &[("cpu", "1")])],
            init_containers: vec![container("init", &[("cpu", "2")])],
            init_statuses: vec![reported("init", Some(&[("cpu", "8")]), &[("cpu", "8")])],
            cpu: 2000,
            ..Default::default()
        },
        Case {
            name: "v1.35: deferred keeps the larger spec",
            containers: vec![container("c", &[("cpu", "3")])],
            statuses: vec![reported("c", Some(&[("cpu", "1")]), &[("cpu", "1")])],
            conditions: vec![resize(conditions::REASON_DEFERRED)],
            cpu: 3000,
            ..Default::default()
        },
        Case {
            name: "v1.35: shrinking in progress keeps the actual size until actuated",
            containers: vec![container("c", &[("cpu", "1")])],
            statuses: vec![reported("c", Some(&[("cpu", "3")]), &[("cpu", "1")])],
            conditions: vec![in_progress()],
            cpu: 3000,
            ..Default::default()
        },
        Case {
            name: "v1.35: only the first PodResizePending condition decides",
            containers: vec![container("c", &[("cpu", "4")])],
            statuses: vec![reported("c", Some(&[("cpu", "2")]), &[])],
            conditions: vec![resize(conditions::REASON_DEFERRED), resize(conditions::REASON_INFEASIBLE)],
            cpu: 4000,
            ..Default::default()
        },
    ];
    for c in cases {
        let spec = api::PodSpec { containers: c.containers, init_containers: c.init_containers, ..Default::default() };
        let status = PodStatus {
            container_statuses: c.statuses,
            init_container_statuses: c.init_statuses,
            conditions: c.conditions,
            ..Default::default()
        };
        let r = pod_resources(&spec, &status, c.bound, RequestGates::default()).expect(c.name);
        assert_eq!(r.requests.milli_cpu, c.cpu, "{}", c.name);
    }
}

/// `TestPodResourceRequests` "resized: per-resource 3-way maximum" (helpers_test.go).
#[test]
fn upstream_per_resource_three_way_maximum() {
    let spec = api::PodSpec {
        containers: vec![container("container-1", &[("cpu", "30m"), ("memory", "20M"), ("ephemeral-storage", "10G")])],
        ..Default::default()
    };
    let status = PodStatus {
        container_statuses: vec![reported(
            "container-1",
            Some(&[("cpu", "10m"), ("memory", "30M"), ("ephemeral-storage", "20G")]),
            &[("cpu", "20m"), ("memory", "10M"), ("ephemeral-storage", "30G")],
        )],
        ..Default::default()
    };
    let r = pod_resources(&spec, &status, true, RequestGates::default()).expect("valid").requests;
    assert_eq!((r.milli_cpu, r.memory, r.ephemeral_storage), (30, 30_000_000, 30_000_000_000));
}

const CPU_500M: i64 = 500;
const CPU_700M: i64 = 700;
const MEM_500MI: i64 = 500 << 20;
const MEM_800MI: i64 = 800 << 20;

/// `pkg/scheduler/framework/types_test.go` `TestCalculatePodResourcesWithResize` (the version
/// with `InPlacePodLevelResourcesVerticalScaling` on; every case also holds for v1.35's
/// `PodInfo.CalculateResource`, types.go at 8a84988bd671): requests and the non-zero cpu/memory
/// of a running pod for each resize state, pod-level resources, init containers and sidecars.
#[test]
fn upstream_calculate_pod_resources_with_resize() {
    type L = &'static [(&'static str, &'static str)];
    const R500: L = &[("cpu", "500m"), ("memory", "500Mi")];
    const R700_500: L = &[("cpu", "700m"), ("memory", "500Mi")];
    const R700_800: L = &[("cpu", "700m"), ("memory", "800Mi")];
    struct Row {
        name: &'static str,
        pod_level: Option<L>,
        requests: L,
        status: L,
        pod_level_status: Option<L>,
        init: Option<(L, L)>,
        sidecar: Option<(L, L)>,
        condition: Option<PodCondition>,
        expected: (i64, i64),
    }
    let rows = [
        Row {
            name: "Pod with no pending resize",
            pod_level: None,
            requests: R500,
            status: R500,
            pod_level_status: None,
            init: None,
            sidecar: None,
            condition: None,
            expected: (CPU_500M, MEM_500MI),
        },
        Row {
            name: "Pod with pod-level resources no pending resize",
            pod_level: Some(R700_500),
            requests: R500,
            status: R700_500,
            pod_level_status: Some(R500),
            init: None,
            sidecar: None,
            condition: None,
            expected: (CPU_700M, MEM_500MI),
        },
        Row {
            name: "Pod with resize in progress",
            pod_level: None,
            requests: R500,
            status: R500,
            pod_level_status: None,
            init: None,
            sidecar: None,
            condition: Some(in_progress()),
            expected: (CPU_500M, MEM_500MI),
        },
        Row {
            name: "Pod with pod-level resources and resize in progress",
            pod_level: Some(R700_500),
            requests: R500,
            status: R700_500,
            pod_level_status: Some(R500),
            init: None,
            sidecar: None,
            condition: Some(in_progress()),
            expected: (CPU_700M, MEM_500MI),
        },
        Row {
            name: "Pod with deferred resize",
            pod_level: None,
            requests: R700_800,
            status: R500,
            pod_level_status: None,
            init: None,
            sidecar: None,
            condition: Some(resize(conditions::REASON_DEFERRED)),
            expected: (CPU_700M, MEM_800MI),
        },
        Row {
            name: "Pod with pod-level resources and with deferred resize",
            pod_level: Some(R700_800),
            requests: R500,
            status: R500,
            pod_level_status: Some(R500),
            init: None,
            sidecar: None,
            condition: Some(resize(conditions::REASON_DEFERRED)),
            expected: (CPU_700M, MEM_800MI),
        },
        Row {
            name: "Pod with infeasible resize",
            pod_level: None,
            requests: R700_800,
            status: R500,
            pod_level_status: None,
            init: None,
            sidecar: None,
            condition: Some(resize(conditions::REASON_INFEASIBLE)),
            expected: (CPU_500M, MEM_500MI),
        },
        Row {
            name: "Pod with init container and no pending resize",
            pod_level: None,
            requests: R500,
            status: R500,
            pod_level_status: None,
            init: Some((R700_800, R700_800)),
            sidecar: None,
            condition: None,
            expected: (CPU_700M, MEM_800MI),
        },
        Row {
            name: "Pod with sider container and no pending resize",
            pod_level: None,
            requests: R500,
            status: R500,
            pod_level_status: None,
            init: Some((R700_800, R700_800)),
            sidecar: Some((R700_800, R700_800)),
            condition: None,
            expected: (CPU_500M + CPU_700M, MEM_500MI + MEM_800MI),
        },
    ];
    for row in rows {
        let mut spec = api::PodSpec { containers: vec![container("c1", row.requests)], ..Default::default() };
        let mut status = PodStatus {
            container_statuses: vec![reported("c1", Some(row.status), &[])],
            conditions: row.condition.into_iter().collect(),
            ..Default::default()
        };
        if let Some(pl) = row.pod_level {
            spec.resources = Some(api::ResourceRequirements { requests: list(pl), ..Default::default() });
        }
        if let Some(pl) = row.pod_level_status {
            status.resources = Some(StatusResources { requests: list(pl) });
        }
        if let Some((requests, reported_now)) = row.init {
            spec.init_containers.push(container("i1", requests));
            status.init_container_statuses.push(reported("i1", Some(reported_now), &[]));
        }
        if let Some((requests, reported_now)) = row.sidecar {
            spec.init_containers.push(sidecar("s1", requests));
            status.init_container_statuses.push(reported("s1", Some(reported_now), &[]));
        }
        let r = pod_resources(&spec, &status, true, RequestGates { pod_level_resize: true, ..RequestGates::default() })
            .expect(row.name);
        assert_eq!((r.requests.milli_cpu, r.requests.memory), row.expected, "{}: requests", row.name);
        assert_eq!((r.non_zero_milli_cpu, r.non_zero_memory), row.expected, "{}: non-zero", row.name);
    }
}

/// helpers_test.go `TestPodRequestsAndLimitsVerticalScalingWrappers`' pod-level cases, and the
/// alpha gate's state honoured: off (v1.35's default), the pod-level spec stands.
#[test]
fn upstream_pod_level_resize_cases_and_the_gate() {
    let pod = |conditions: Vec<PodCondition>, actual: &str, allocated: &str, spec_cpu: &str| {
        let spec = api::PodSpec {
            containers: vec![container("c1", &[("cpu", "1")])],
            resources: Some(api::ResourceRequirements { requests: list(&[("cpu", spec_cpu)]), ..Default::default() }),
            ..Default::default()
        };
        let status = PodStatus {
            conditions,
            resources: Some(StatusResources { requests: list(&[("cpu", actual)]) }),
            allocated_resources: list(&[("cpu", allocated)]),
            ..Default::default()
        };
        (spec, status)
    };
    let on = RequestGates { pod_level_resize: true, ..RequestGates::default() };
    // "pod level requests/limits with PLR vertical scaling enabled and status populated"
    let (spec, status) = pod(vec![], "3.5", "3", "2");
    assert_eq!(pod_resources(&spec, &status, true, on).expect("valid").requests.milli_cpu, 3500);
    // "pod level requests/limits with PLR vertical scaling enabled and infeasible resize"
    let (spec, status) = pod(vec![resize(conditions::REASON_INFEASIBLE)], "4", "3", "10");
    assert_eq!(pod_resources(&spec, &status, true, on).expect("valid").requests.milli_cpu, 4000);
    // The gate off: the pod-level spec alone, status or not.
    let (spec, status) = pod(vec![], "3.5", "3", "2");
    assert_eq!(pod_resources(&spec, &status, true, RequestGates::default()).expect("valid").requests.milli_cpu, 2000);
    // A pending pod never reads its status.
    assert_eq!(pod_resources(&spec, &status, false, on).expect("valid").requests.milli_cpu, 2000);
    // v1.35 reads pod-level status only with pod-level requests in the spec (the later
    // "resolves directly from pod status" aggregation is not v1.35's).
    let mut spec = spec;
    spec.resources = None;
    assert_eq!(pod_resources(&spec, &status, true, on).expect("valid").requests.milli_cpu, 1000);
}

/// Non-zero defaults follow the effective lists: a container whose spec names no cpu but
/// whose status does counts the status's cpu, not 100m; with pod-level requests naming only
/// memory, containers that name cpu make the default cpu go away
/// (`getNonMissingContainerRequests`).
#[test]
fn non_zero_defaults_follow_status_and_pod_level_names() {
    let spec = api::PodSpec { containers: vec![container("c", &[("memory", "1Gi")])], ..Default::default() };
    let status = PodStatus { container_statuses: vec![reported("c", Some(&[("cpu", "20m")]), &[])], ..Default::default() };
    let r = pod_resources(&spec, &status, true, RequestGates::default()).expect("valid");
    assert_eq!((r.requests.milli_cpu, r.non_zero_milli_cpu), (20, 20));
    let r = pod_resources(&spec, &status, false, RequestGates::default()).expect("valid");
    assert_eq!((r.requests.milli_cpu, r.non_zero_milli_cpu), (0, DEFAULT_MILLI_CPU_REQUEST));

    let spec = api::PodSpec {
        containers: vec![container("a", &[("cpu", "300m")]), container("b", &[])],
        resources: Some(api::ResourceRequirements { requests: list(&[("memory", "1Gi")]), ..Default::default() }),
        ..Default::default()
    };
    let r = spec_only(&spec).expect("valid");
    assert_eq!(r.non_zero_milli_cpu, 300, "cpu is named by a container: no default for b");
    assert_eq!(r.non_zero_memory, 1 << 30);
}

/// A status that does not parse counts as not reported: the spec stands.
#[test]
fn unreadable_status_leaves_the_spec() {
    let spec = api::PodSpec { containers: vec![container("c", &[("cpu", "1")])], ..Default::default() };
    let status = PodStatus { container_statuses: vec![reported("c", Some(&[("cpu", "lots")]), &[])], ..Default::default() };
    assert_eq!(pod_resources(&spec, &status, true, RequestGates::default()).expect("valid").requests.milli_cpu, 1000);
}

/// `events.go` `extractPodScaleDown`: any resource requested less is a scale-down.
#[test]
fn scale_down_is_any_resource_requested_less() {
    let r = |cpu: i64, mem: i64, gpu: i64| {
        let mut r = Resources { milli_cpu: cpu, memory: mem, ..Default::default() };
        if gpu > 0 {
            *r.scalar_mut(Name::new("example.com/gpu")) = gpu;
        }
        r
    };
    assert!(is_scale_down(&r(2000, 10, 0), &r(1000, 10, 0)));
    assert!(is_scale_down(&r(1000, 20, 0), &r(1000, 10, 0)));
    assert!(is_scale_down(&r(1000, 10, 2), &r(1000, 10, 1)));
    assert!(is_scale_down(&r(1000, 10, 2), &r(1000, 10, 0)), "a scalar no longer requested");
    assert!(!is_scale_down(&r(1000, 10, 0), &r(1000, 10, 0)));
    assert!(!is_scale_down(&r(1000, 10, 0), &r(2000, 10, 1)));
}

/// The gates read from the registry: v1.35's defaults, and `PodLevelResources=false` leaving
/// pod-level requests unread (`SkipPodLevelResources`) for pending and bound pods alike.
#[test]
fn gates_come_from_the_registry() {
    use crate::core::features::FeatureGates;
    let d = RequestGates::default();
    assert_eq!((d.status_resources, d.pod_level_resources, d.pod_level_resize), (true, true, false));
    let mut set = FeatureGates::default();
    set.set("PodLevelResources=false").expect("a beta gate can be turned off");
    let off = RequestGates::from_features(&set);
    assert_eq!((off.status_resources, off.pod_level_resources), (true, false));

    let spec = api::PodSpec {
        containers: vec![container("c", &[("cpu", "1")])],
        resources: Some(api::ResourceRequirements { requests: list(&[("cpu", "3")]), ..Default::default() }),
        ..Default::default()
    };
    let status = PodStatus::default();
    assert_eq!(pod_resources(&spec, &status, false, d).expect("valid").requests.milli_cpu, 3000);
    for bound in [false, true] {
        assert_eq!(pod_resources(&spec, &status, bound, off).expect("valid").requests.milli_cpu, 1000, "bound: {bound}");
    }
    // Without `UseStatusResources` a bound pod counts its spec alone (not settable in v1.35,
    // where the gate is locked on; kept as upstream reads it).
    let spec = api::PodSpec { containers: vec![container("c", &[("cpu", "1")])], ..Default::default() };
    let status = PodStatus { container_statuses: vec![reported("c", Some(&[("cpu", "3")]), &[])], ..Default::default() };
    let no_status = RequestGates { status_resources: false, ..d };
    assert_eq!(pod_resources(&spec, &status, true, no_status).expect("valid").requests.milli_cpu, 1000);
    assert_eq!(pod_resources(&spec, &status, true, d).expect("valid").requests.milli_cpu, 3000);
}
