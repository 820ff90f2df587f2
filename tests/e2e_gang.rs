//! End-to-end gang scheduling (kube-scheduler v1.35's GangScheduling behind the `GenericWorkload`
//! and `GangScheduling` gates): the real binary, started as the shipped static pod runs it
//! (kube-scheduler's client certificate, kubeadm's roles, `manifests/static-pod/rbac.yaml` and the
//! extra rule `manifests/gang-scheduling/rbac.yaml`), against a test API server serving
//! `scheduling.k8s.io/v1alpha1` Workloads with RBAC. A gang of `minCount` 3 binds all three pods
//! when there is room for three and none when there is room for two — and then lets the room go
//! after the Permit timeout; with the gates off a pod with `spec.workloadRef` schedules as any pod.

mod support;

use serde_json::{json, Value};
use std::time::Duration;
use support::deploy::{self, Started};
use support::objects::{node, pod};
use support::wait::wait_for;
use support::{ServerOptions, TestApiServer};

const NODES: &str = "/api/v1/nodes";
const NS: &str = "default";
const PODS: &str = "/api/v1/namespaces/default/pods";
const WORKLOADS: &str = "/apis/scheduling.k8s.io/v1alpha1/namespaces/default/workloads";
/// The shipped static pod's scheduler name (`manifests/static-pod/edgesched-config.yaml`).
const SCHEDULER: &str = "edgesched";
const GATES: &str = "--feature-gates=GenericWorkload=true,GangScheduling=true";
const T: Duration = Duration::from_secs(45);

/// A server with kubeadm's roles, the static pod's RBAC and, when `gang_rule`, the gang rule.
fn server(gang_rule: bool) -> TestApiServer {
    let server = TestApiServer::start_with(ServerOptions::default());
    server.apply_file(&deploy::repo().join("manifests/static-pod/rbac.yaml"));
    if gang_rule {
        server.apply_file(&deploy::repo().join("manifests/gang-scheduling/rbac.yaml"));
    }
    server
}

fn workload(name: &str, group: &str, min_count: i32) -> Value {
    json!({
        "apiVersion": "scheduling.k8s.io/v1alpha1", "kind": "Workload",
        "metadata": {"name": name, "namespace": NS},
        "spec": {"podGroups": [{"name": group, "policy": {"gang": {"minCount": min_count}}}]},
    })
}

/// A pod of the static pod's scheduler asking for one CPU, in `workload`'s group `group`.
fn gang_pod(name: &str, workload: &str, group: &str) -> Value {
    pod(NS, name).scheduler(SCHEDULER).cpu("1").spec_field("workloadRef", json!({"name": workload, "podGroup": group})).build()
}

fn start(server: &TestApiServer, env: Vec<(String, String)>, flags: &[&str]) -> Started {
    let started = deploy::static_pod_flags(server, env, |c| c, flags);
    started.es.wait_for_log("Caches are synced", T).unwrap_or_else(|e| panic!("{e}\n{}", started.es.logs()));
    started
}

fn bindings(server: &TestApiServer) -> usize {
    server
        .requests()
        .iter()
        .filter(|r| r.method == "POST" && r.path.ends_with("/binding") && (200..300).contains(&r.code))
        .count()
}

#[test]
fn a_gang_of_three_binds_all_together_when_three_fit() {
    let server = server(true);
    server.create(NODES, node("n1").cpu("4").label("kubernetes.io/hostname", "n1").build());
    let started = start(&server, Vec::new(), &[GATES]);
    server.create(WORKLOADS, workload("training", "workers", 3));
    server.create(PODS, gang_pod("w0", "training", "workers"));
    server.create(PODS, gang_pod("w1", "training", "workers"));
    // Two of three exist: PreEnqueue holds them. A pod created after them is scheduled (the
    // scheduler has seen both) while neither of them is bound.
    server.create(PODS, pod(NS, "probe").scheduler(SCHEDULER).cpu("100m").build());
    assert_eq!(started.es.wait_bound(&server, NS, "probe", T), "n1");
    assert_eq!(bindings(&server), 1, "only the probe is bound");
    server.create(PODS, gang_pod("w2", "training", "workers"));
    for p in ["w0", "w1", "w2"] {
        assert_eq!(started.es.wait_bound(&server, NS, p, T), "n1");
    }
    assert_eq!(bindings(&server), 4);
    assert!(server.forbidden_requests().iter().all(|r| !r.path.contains("workloads")), "{:?}", server.forbidden_requests());
}

#[test]
fn a_gang_of_three_binds_none_when_two_fit_and_lets_the_room_go_after_the_timeout() {
    let server = server(true);
    server.create(NODES, node("n1").cpu("2").label("kubernetes.io/hostname", "n1").build());
    let env = vec![("EDGESCHED_GANG_SCHEDULING_TIMEOUT".to_string(), "2".to_string())];
    let started = start(&server, env, &[GATES]);
    server.create(WORKLOADS, workload("training", "workers", 3));
    for p in ["w0", "w1", "w2"] {
        server.create(PODS, gang_pod(p, "training", "workers"));
    }
    // Two pods are assumed and wait at Permit; the third fits nowhere; the wait runs out.
    let note = wait_for(T, "a Permit timeout of GangScheduling", || {
        server.events(NS).iter().find_map(|e| {
            let note = e["note"].as_str()?;
            (e["reason"] == "FailedScheduling"
                && note.contains("rejected due to timeout after waiting 2s at plugin GangScheduling"))
            .then(|| note.to_string())
        })
    })
    .unwrap_or_else(|e| panic!("{e}\n{:#?}\n{}", server.events(NS), started.es.logs()));
    assert!(!note.is_empty());
    assert_eq!(bindings(&server), 0, "all or nothing: no pod of the gang is bound\n{}", started.es.logs());
    for p in ["w0", "w1", "w2"] {
        assert_eq!(server.pod_node(NS, p), None, "{p}");
    }
}

#[test]
fn with_the_gates_off_a_pod_with_a_workload_ref_schedules_as_any_pod() {
    // No gates, no gang rule, no Workload: nothing reads workloadRef or watches Workloads.
    let server = server(false);
    server.create(NODES, node("n1").cpu("4").label("kubernetes.io/hostname", "n1").build());
    let started = start(&server, Vec::new(), &[]);
    server.create(PODS, gang_pod("solo", "missing", "workers"));
    assert_eq!(started.es.wait_bound(&server, NS, "solo", T), "n1");
    assert_eq!(server.requests_received("GET", "workloads"), 0, "Workloads are not listed or watched");
}

#[test]
fn gang_scheduling_without_generic_workload_is_refused_at_start() {
    // docs/feature-gates.md: a gate enabled while a gate it depends on is off stops the start.
    let (code, out) = deploy::run_to_exit(&["--feature-gates=GangScheduling=true".to_string()]);
    assert_eq!(code, Some(2), "{out}");
    assert!(out.contains("GangScheduling is enabled, but depends on features that are disabled: [GenericWorkload]"), "{out}");
}

#[test]
fn without_the_gang_rule_the_scheduler_names_it_and_schedules_every_other_pod() {
    // The gates on under the shipped RBAC alone: Workloads are forbidden.
    let server = server(false);
    server.create(NODES, node("n1").cpu("4").label("kubernetes.io/hostname", "n1").build());
    let started = start(&server, Vec::new(), &[GATES]);
    started.es.wait_for_log("resource=\"workloads.scheduling.k8s.io\"", T).unwrap_or_else(|e| panic!("{e}"));
    let logs = started.es.logs();
    let line = logs.lines().find(|l| l.contains("resource=\"workloads.scheduling.k8s.io\"")).expect("the warning");
    assert!(line.contains("Permission denied; continuing without it"), "{line}");
    assert!(
        line.contains(
            r#"toEnable="{apiGroups: [\"scheduling.k8s.io\"], resources: [\"workloads\"], verbs: [\"list\"]} in a ClusterRole""#
        ),
        "{line}"
    );
    server.create(PODS, pod(NS, "plain").scheduler(SCHEDULER).cpu("100m").build());
    assert_eq!(started.es.wait_bound(&server, NS, "plain", T), "n1");
    // A gang pod waits for its Workload, which cannot be read.
    server.create(WORKLOADS, workload("training", "workers", 1));
    server.create(PODS, gang_pod("w0", "training", "workers"));
    server.create(PODS, pod(NS, "after").scheduler(SCHEDULER).cpu("100m").build());
    assert_eq!(started.es.wait_bound(&server, NS, "after", T), "n1");
    assert_eq!(server.pod_node(NS, "w0"), None);
}

#[test]
fn a_gang_created_before_its_workload_waits_for_it_then_binds() {
    // PreEnqueue holds the pods until their Workload appears; its Add event requeues them.
    let server = server(true);
    server.create(NODES, node("n1").cpu("4").label("kubernetes.io/hostname", "n1").build());
    let started = start(&server, Vec::new(), &[GATES]);
    for p in ["w0", "w1"] {
        server.create(PODS, gang_pod(p, "late", "workers"));
    }
    server.create(PODS, pod(NS, "probe").scheduler(SCHEDULER).cpu("100m").build());
    assert_eq!(started.es.wait_bound(&server, NS, "probe", T), "n1");
    assert_eq!(bindings(&server), 1, "the gang waits for its Workload");
    server.create(WORKLOADS, workload("late", "workers", 2));
    for p in ["w0", "w1"] {
        assert_eq!(started.es.wait_bound(&server, NS, p, T), "n1");
    }
}
