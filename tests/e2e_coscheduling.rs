//! End-to-end: the gang-scheduling example (`examples/coscheduling`, a custom build made with the
//! plugin API) schedules real pods through the test API server (RBAC enforced, scheduler
//! identity): a group binds all-or-nothing, other pods are not held up by a group that cannot
//! fit, two groups competing for the same room do not deadlock, a group is held before the queue
//! until enough of its pods exist (PreEnqueue), and a group that lost pods is refused at PreFilter.

mod support;

use std::time::Duration;
use support::objects::{node, pod};
use support::process::{Edgesched, Launch};
use support::{wait_until, TestApiServer};

const NODES: &str = "/api/v1/nodes";
const PODS: &str = "/api/v1/namespaces/default/pods";
const T: Duration = Duration::from_secs(60);
const GROUP: &str = "scheduling.x-k8s.io/pod-group";
const MIN_MEMBER: &str = "edgesched.io/pod-group-min-member";

fn start(server: &TestApiServer) -> Edgesched {
    let es = Launch {
        program: Some(support::process::example_binary("coscheduling")),
        profile_extra: "  plugins:\n    queueSort:\n      enabled:\n      - name: Coscheduling\n      disabled:\n      - name: '*'\n    multiPoint:\n      enabled:\n      - name: Coscheduling\n  pluginConfig:\n  - name: Coscheduling\n    args:\n      permitWaitingTimeSeconds: 3\n".into(),
        ..Default::default()
    }
    .start(server);
    es.wait_for_log("Caches are synced", T).unwrap_or_else(|e| panic!("{e}\n{}", es.logs()));
    es
}

fn create_group(server: &TestApiServer, group: &str, size: usize, min: usize) {
    for i in 0..size {
        server.create(
            PODS,
            pod("default", &format!("{group}-{i}"))
                .scheduler("edgesched")
                .cpu("1")
                .label(GROUP, group)
                .label(MIN_MEMBER, &min.to_string())
                .build(),
        );
    }
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
    // Interleaved creation: both groups get some room at first.
    for i in 0..3 {
        for g in ["a", "b"] {
            server.create(
                PODS,
                pod("default", &format!("{g}-{i}"))
                    .scheduler("edgesched")
                    .cpu("1")
                    .label(GROUP, g)
                    .label(MIN_MEMBER, "3")
                    .build(),
            );
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
    server.create(
        PODS,
        pod("default", "early-2").scheduler("edgesched").cpu("1").label(GROUP, "early").label(MIN_MEMBER, "3").build(),
    );
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
    wait_until(T, "the others refused for lack of siblings", || {
        failed_scheduling(&server, "short-")
            .iter()
            .any(|n| n.contains("cannot find enough sibling pods, current pods number: 2, minMember of group: 3"))
    })
    .unwrap_or_else(|e| panic!("{e}\n{}", es.logs()));
    assert_eq!(bound_in(&server, "short", 2), 0);
}
