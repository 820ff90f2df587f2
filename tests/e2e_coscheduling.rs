//! End-to-end: the gang-scheduling example (`examples/coscheduling`, a custom build made with the
//! plugin API) schedules real pods through the test API server (RBAC enforced, scheduler
//! identity): a group binds all-or-nothing, other pods are not held up by a group that cannot
//! fit, two groups competing for the same room do not deadlock, a group is held before the queue
//! until enough of its pods exist (PreEnqueue) and until its PodGroup exists, a group that lost
//! pods is refused at PreFilter, and without the example's RBAC for PodGroups the scheduler says
//! which rule is missing, and a member waiting for its group has `.status.nominatedNodeName` set
//! while it waits (kube-scheduler v1.35's `NominatedNodeNameForExpectation`), cleared by the
//! binding, and not written with that gate off. Groups are scheduler-plugins' `PodGroup` objects,
//! served by the test API server as the example's CRD (`examples/coscheduling/manifests/`)
//! declares them.

mod support;

use serde_json::json;
use std::time::Duration;
use support::objects::{node, pod};
use support::process::{Edgesched, Launch};
use support::{wait_until, TestApiServer};

const NODES: &str = "/api/v1/nodes";
const PODS: &str = "/api/v1/namespaces/default/pods";
const T: Duration = Duration::from_secs(60);
const GROUP: &str = "scheduling.x-k8s.io/pod-group";
const POD_GROUPS: &str = "/apis/scheduling.x-k8s.io/v1alpha1/namespaces/default/podgroups";

/// The example's RBAC (list/watch of PodGroups for the scheduler's identities), as shipped.
fn grant_pod_groups(server: &TestApiServer) {
    server.apply_file(&support::deploy::repo().join("examples/coscheduling/manifests/rbac.yaml"));
}

fn start(server: &TestApiServer) -> Edgesched {
    grant_pod_groups(server);
    let es = launch(server);
    es.wait_for_log("Caches are synced", T).unwrap_or_else(|e| panic!("{e}\n{}", es.logs()));
    es
}

fn launch(server: &TestApiServer) -> Edgesched {
    launch_with(server, Vec::new())
}

fn launch_with(server: &TestApiServer, extra_args: Vec<String>) -> Edgesched {
    Launch {
        program: Some(support::process::example_binary("coscheduling")),
        extra_args,
        profile_extra: "  plugins:\n    queueSort:\n      enabled:\n      - name: Coscheduling\n      disabled:\n      - name: '*'\n    multiPoint:\n      enabled:\n      - name: Coscheduling\n  pluginConfig:\n  - name: Coscheduling\n    args:\n      permitWaitingTimeSeconds: 3\n".into(),
        ..Default::default()
    }
    .start(server)
}

fn create_pod_group(server: &TestApiServer, group: &str, min: usize) {
    server.create(
        POD_GROUPS,
        json!({"apiVersion": "scheduling.x-k8s.io/v1alpha1", "kind": "PodGroup",
            "metadata": {"name": group, "namespace": "default"}, "spec": {"minMember": min}}),
    );
}

fn create_pods(server: &TestApiServer, group: &str, from: usize, to: usize) {
    for i in from..to {
        server.create(PODS, pod("default", &format!("{group}-{i}")).scheduler("edgesched").cpu("1").label(GROUP, group).build());
    }
}

fn create_group(server: &TestApiServer, group: &str, size: usize, min: usize) {
    create_pod_group(server, group, min);
    create_pods(server, group, 0, size);
}

fn bound(server: &TestApiServer, name: &str) -> bool {
    server.get(&format!("{PODS}/{name}")).and_then(|p| p["spec"]["nodeName"].as_str().map(|n| !n.is_empty())).unwrap_or(false)
}

fn bound_in(server: &TestApiServer, group: &str, size: usize) -> usize {
    (0..size).filter(|i| bound(server, &format!("{group}-{i}"))).count()
}

fn failed_scheduling(server: &TestApiServer, prefix: &str) -> Vec<String> {
    server
        .events("default")
        .iter()
        .filter(|e| e["reason"] == "FailedScheduling" && e["regarding"]["name"].as_str().is_some_and(|n| n.starts_with(prefix)))
        .filter_map(|e| e["note"].as_str().map(String::from))
        .collect()
}

/// The message of each named pod's `PodScheduled` condition ("" when it has none).
fn unscheduled_messages(server: &TestApiServer, names: &[&str]) -> Vec<String> {
    names
        .iter()
        .map(|name| {
            let cond = server.pod_scheduled(&format!("{PODS}/{name}")).unwrap_or_default();
            cond["message"].as_str().unwrap_or_default().to_string()
        })
        .collect()
}

#[test]
fn a_group_larger_than_the_room_binds_none_and_others_are_unaffected() {
    let server = TestApiServer::start();
    server.create(NODES, node("n1").cpu("3").build());
    let es = start(&server);
    create_group(&server, "big", 4, 4);
    server.create(PODS, pod("default", "solo").scheduler("edgesched").cpu("500m").build());
    wait_until(T, "solo bound", || bound(&server, "solo")).unwrap_or_else(|e| panic!("{e}\n{}", es.logs()));
    wait_until(T, "a group member rejected by Coscheduling", || {
        failed_scheduling(&server, "big-").iter().any(|n| n.contains("gets rejected due to Pod") || n.contains("Coscheduling"))
    })
    .unwrap_or_else(|e| panic!("{e}\n{}", es.logs()));
    assert_eq!(bound_in(&server, "big", 4), 0, "no member of a group that cannot fit is bound\n{}", es.logs());
    for i in 0..4 {
        assert_eq!(server.bindings("default", &format!("big-{i}")), 0);
    }
}

#[test]
fn a_group_that_fits_binds_all() {
    let server = TestApiServer::start();
    server.create(NODES, node("n1").cpu("2").build());
    server.create(NODES, node("n2").cpu("2").build());
    let es = start(&server);
    create_group(&server, "fit", 4, 4);
    wait_until(T, "the whole group bound", || bound_in(&server, "fit", 4) == 4).unwrap_or_else(|e| panic!("{e}\n{}", es.logs()));
}

#[test]
fn two_groups_competing_for_the_room_do_not_deadlock() {
    let server = TestApiServer::start();
    server.create(NODES, node("n1").cpu("4").build());
    let es = start(&server);
    create_pod_group(&server, "a", 3);
    create_pod_group(&server, "b", 3);
    // Interleaved creation: both groups get some room at first.
    for i in 0..3 {
        for g in ["a", "b"] {
            create_pods(&server, g, i, i + 1);
        }
    }
    wait_until(T, "one group fully bound", || bound_in(&server, "a", 3) == 3 || bound_in(&server, "b", 3) == 3)
        .unwrap_or_else(|e| panic!("{e}\n{}", es.logs()));
    let (a, b) = (bound_in(&server, "a", 3), bound_in(&server, "b", 3));
    let loser = if a == 3 { "b" } else { "a" };
    // The other group cannot fit in the remaining room: its members keep failing, none binds.
    wait_until(T, "the other group keeps failing", || failed_scheduling(&server, &format!("{loser}-")).len() >= 2)
        .unwrap_or_else(|e| panic!("{e}\n{}", es.logs()));
    assert_eq!(bound_in(&server, loser, 3), 0, "a={a} b={b}\n{}", es.logs());
}

#[test]
fn a_group_is_held_until_min_member_pods_exist() {
    let server = TestApiServer::start();
    server.create(NODES, node("n1").cpu("4").build());
    let es = start(&server);
    create_group(&server, "early", 2, 3);
    server.create(PODS, pod("default", "solo").scheduler("edgesched").cpu("100m").build());
    wait_until(T, "solo bound", || bound(&server, "solo")).unwrap_or_else(|e| panic!("{e}\n{}", es.logs()));
    // Gated at PreEnqueue: never attempted, so neither bound nor reported as failed.
    assert_eq!(bound_in(&server, "early", 2), 0);
    assert!(failed_scheduling(&server, "early-").is_empty(), "{:?}", failed_scheduling(&server, "early-"));
    create_pods(&server, "early", 2, 3);
    wait_until(T, "the completed group bound", || bound_in(&server, "early", 3) == 3)
        .unwrap_or_else(|e| panic!("{e}\n{}", es.logs()));
}

#[test]
fn a_group_that_lost_pods_is_refused_at_pre_filter() {
    let server = TestApiServer::start();
    server.create(NODES, node("n1").cpu("2").build());
    let es = start(&server);
    create_group(&server, "short", 3, 3);
    wait_until(T, "the group rejected for lack of room", || !failed_scheduling(&server, "short-").is_empty())
        .unwrap_or_else(|e| panic!("{e}\n{}", es.logs()));
    server.delete(&format!("{PODS}/short-2"));
    // A pending pod's deletion is no event Coscheduling registered for (as scheduler-plugins');
    // a new node is, and the group now fits, but two pods are fewer than minMember.
    server.create(NODES, node("n2").cpu("2").build());
    // The pods' PodScheduled condition carries the latest reason; their FailedScheduling events
    // may not (a later failure of the same pod is a series of its first event, whose note stays).
    // Each sibling pending when the group was denied fails fast once ("failed recently") and then
    // waits for the next event. Which pods were pending at the denial depends on the order of the
    // attempts: when both remaining pods have failed fast, neither meets the sibling check until
    // another event comes, so the test gives one (a third node: the group still cannot reach
    // minMember with two pods).
    let mut nudged = false;
    wait_until(T, "the others refused for lack of siblings", || {
        let messages = unscheduled_messages(&server, &["short-0", "short-1"]);
        if messages.iter().any(|n| n.contains("cannot find enough sibling pods, current pods number: 2, minMember of group: 3")) {
            return true;
        }
        if !nudged && messages.iter().all(|n| n.contains("failed recently")) {
            server.create(NODES, node("n3").cpu("2").build());
            nudged = true;
        }
        false
    })
    .unwrap_or_else(|e| panic!("{e}\n{}", es.logs()));
    assert_eq!(bound_in(&server, "short", 2), 0);
}

#[test]
fn a_group_whose_pod_group_comes_later_binds_once_it_appears() {
    let server = TestApiServer::start();
    server.create(NODES, node("n1").cpu("4").build());
    let es = start(&server);
    create_pods(&server, "late", 0, 3);
    server.create(PODS, pod("default", "solo").scheduler("edgesched").cpu("100m").build());
    wait_until(T, "solo bound", || bound(&server, "solo")).unwrap_or_else(|e| panic!("{e}\n{}", es.logs()));
    // Gated at PreEnqueue ("PodGroup not found"): never attempted.
    assert_eq!(bound_in(&server, "late", 3), 0);
    assert!(failed_scheduling(&server, "late-").is_empty(), "{:?}", failed_scheduling(&server, "late-"));
    create_pod_group(&server, "late", 3);
    wait_until(T, "the group bound once its PodGroup exists", || bound_in(&server, "late", 3) == 3)
        .unwrap_or_else(|e| panic!("{e}\n{}", es.logs()));
}

#[test]
fn without_the_pod_group_rule_the_scheduler_names_it() {
    let server = TestApiServer::start();
    server.create(NODES, node("n1").cpu("4").build());
    // The scheduler's own roles only: PodGroups are forbidden.
    let es = launch(&server);
    // klog quotes the value: the rule's own quotes are escaped.
    let rule = r#"rule="{apiGroups: [\"scheduling.x-k8s.io\"], resources: [\"podgroups\"], verbs: [\"list\"]} in a ClusterRole""#;
    es.wait_for_log(rule, T).unwrap_or_else(|e| panic!("{e}\n{}", es.logs()));
    let logs = es.logs();
    assert!(logs.contains("Permission denied; scheduling waits for it"), "{logs}");
    assert!(!logs.contains("Caches are synced"), "not ready without a required kind\n{logs}");
    // Granted while running: the reflector's retry lists it and the scheduler becomes ready.
    grant_pod_groups(&server);
    es.wait_for_log("Caches are synced", T).unwrap_or_else(|e| panic!("{e}\n{}", es.logs()));
    create_group(&server, "g", 2, 2);
    wait_until(T, "the group bound", || bound_in(&server, "g", 2) == 2).unwrap_or_else(|e| panic!("{e}\n{}", es.logs()));
}

#[test]
fn the_shipped_crd_declares_what_the_example_reads_and_the_server_serves() {
    let crd = support::deploy::doc_of_kind(
        &support::deploy::repo().join("examples/coscheduling/manifests/podgroup-crd.yaml"),
        "CustomResourceDefinition",
    );
    let spec = &crd["spec"];
    assert_eq!(crd["metadata"]["name"], "podgroups.scheduling.x-k8s.io");
    assert_eq!((spec["group"].as_str(), spec["scope"].as_str()), (Some("scheduling.x-k8s.io"), Some("Namespaced")));
    assert_eq!((spec["names"]["plural"].as_str(), spec["names"]["kind"].as_str()), (Some("podgroups"), Some("PodGroup")));
    assert_eq!(spec["versions"][0]["name"], "v1alpha1");
    let fields = &spec["versions"][0]["schema"]["openAPIV3Schema"]["properties"]["spec"]["properties"];
    for f in ["minMember", "minResources", "scheduleTimeoutSeconds"] {
        assert!(fields.get(f).is_some(), "{f}");
    }
    // The example's declaration (coscheduling.rs pod_group_resource) lists and watches this path.
    let source = std::fs::read_to_string(support::deploy::repo().join("examples/coscheduling/coscheduling.rs")).expect("source");
    assert!(source.contains(r#"CustomResource::namespaced("scheduling.x-k8s.io", "v1alpha1", "podgroups", "PodGroup")"#));
    assert!(POD_GROUPS.starts_with("/apis/scheduling.x-k8s.io/v1alpha1/"));
}

/// The status writes of pod `name` that set or clear its nominated node, in order.
fn nominated_node_writes(server: &TestApiServer, name: &str) -> Vec<String> {
    server
        .requests()
        .into_iter()
        .filter(|r| r.method == "PATCH" && r.path == format!("{PODS}/{name}/status") && r.body.contains("nominatedNodeName"))
        .map(|r| r.body)
        .collect()
}

/// The pod's `.status.nominatedNodeName` ("" when unset).
fn nominated_node(server: &TestApiServer, name: &str) -> String {
    server
        .get(&format!("{PODS}/{name}"))
        .and_then(|p| p["status"]["nominatedNodeName"].as_str().map(String::from))
        .unwrap_or_default()
}

/// A group of two whose second member is held by a scheduling gate: the first is assumed on n1
/// and waits at Permit (up to the group's ten minutes) until the second is let in.
fn group_with_a_gated_member(server: &TestApiServer) {
    server.create(
        POD_GROUPS,
        json!({"apiVersion": "scheduling.x-k8s.io/v1alpha1", "kind": "PodGroup",
            "metadata": {"name": "g", "namespace": "default"}, "spec": {"minMember": 2, "scheduleTimeoutSeconds": 600}}),
    );
    server.create(
        PODS,
        pod("default", "g-1").scheduler("edgesched").cpu("1").label(GROUP, "g").scheduling_gate("example.com/hold").build(),
    );
    server.create(PODS, pod("default", "g-0").scheduler("edgesched").cpu("1").label(GROUP, "g").build());
}

fn ungate(server: &TestApiServer, name: &str) {
    server.patch_merge(&format!("{PODS}/{name}"), json!({"spec": {"schedulingGates": null}}));
}

#[test]
fn a_waiting_member_is_nominated_to_its_node_and_the_binding_clears_it() {
    let server = TestApiServer::start();
    server.create(NODES, node("n1").cpu("4").build());
    let es = start(&server);
    group_with_a_gated_member(&server);
    // schedule_one.go bindingCycle (v1.35): the node is recorded before WaitOnPermit.
    wait_until(T, "g-0 nominated to n1 while it waits", || nominated_node(&server, "g-0") == "n1")
        .unwrap_or_else(|e| panic!("{e}\n{}", es.logs()));
    assert!(!bound(&server, "g-0"), "still waiting for its sibling");
    ungate(&server, "g-1");
    wait_until(T, "the group bound", || bound_in(&server, "g", 2) == 2).unwrap_or_else(|e| panic!("{e}\n{}", es.logs()));
    // The v1.35 API server clears it when it binds the pod.
    assert_eq!(nominated_node(&server, "g-0"), "");
    assert_eq!(nominated_node_writes(&server, "g-0"), vec![r#"{"status":{"nominatedNodeName":"n1"}}"#.to_string()]);
    // The member that completed the group did not wait, and had no PreBind work: bound at once.
    assert!(nominated_node_writes(&server, "g-1").is_empty());
    // The write was answered before the binding was sent. (The server applies a request before
    // it logs it: the binding seen in the store may be missing from the log for a moment.)
    let binding_path = format!("{PODS}/g-0/binding");
    let requests = support::wait::wait_for(T, "g-0's binding in the request log", || {
        Some(server.requests()).filter(|log| log.iter().any(|r| r.method == "POST" && r.path == binding_path))
    })
    .unwrap_or_else(|e| panic!("{e}\n{}", es.logs()));
    let write = requests
        .iter()
        .position(|r| r.method == "PATCH" && r.path == format!("{PODS}/g-0/status") && r.body.contains("nominatedNodeName"));
    let binding = requests.iter().position(|r| r.method == "POST" && r.path == binding_path);
    assert!(write.is_some() && write < binding, "write {write:?}, binding {binding:?}\n{}", es.logs());
}

#[test]
fn with_the_gate_off_a_waiting_member_is_not_nominated() {
    let server = TestApiServer::start();
    server.create(NODES, node("n1").cpu("4").build());
    grant_pod_groups(&server);
    let gates = "--feature-gates=NominatedNodeNameForExpectation=false,ClearingNominatedNodeNameAfterBinding=false";
    // --v=4 shows the Permit wait (RunPermitPlugins' V(4) line).
    let es = launch_with(&server, vec![gates.to_string(), "--v=4".to_string()]);
    es.wait_for_log("Caches are synced", T).unwrap_or_else(|e| panic!("{e}\n{}", es.logs()));
    // kube-apiserver reads that one, not the scheduler: accepted and named as without effect.
    assert!(
        es.logs().contains("feature gates without effect in edgesched: ClearingNominatedNodeNameAfterBinding"),
        "{}",
        es.logs()
    );
    group_with_a_gated_member(&server);
    es.wait_for_log(r#""One or more plugins asked to wait and no plugin rejected pod" pod="default/g-0""#, T)
        .unwrap_or_else(|e| panic!("{e}\n{}", es.logs()));
    ungate(&server, "g-1");
    wait_until(T, "the group bound", || bound_in(&server, "g", 2) == 2).unwrap_or_else(|e| panic!("{e}\n{}", es.logs()));
    // With the gate on, g-0's write would have been answered before its binding started.
    for name in ["g-0", "g-1"] {
        assert!(nominated_node_writes(&server, name).is_empty(), "{name}: {:?}", nominated_node_writes(&server, name));
        assert_eq!(nominated_node(&server, name), "", "{name}");
    }
}
