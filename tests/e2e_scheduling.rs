//! End-to-end: the real binary against the test API server — pods of our scheduler name are bound
//! to suitable nodes with the events and conditions kube-scheduler users expect; nothing else is
//! touched; no node is overcommitted.

mod support;

use serde_json::Value;
use std::collections::HashMap;
use std::time::{Duration, Instant};
use support::objects::{node, pod};
use support::process::{Edgesched, Launch};
use support::{wait_until, TestApiServer};

const NODES: &str = "/api/v1/nodes";
const T: Duration = Duration::from_secs(20);

fn pods_path(ns: &str) -> String {
    format!("/api/v1/namespaces/{ns}/pods")
}

fn node_of(server: &TestApiServer, ns: &str, name: &str) -> Option<String> {
    server
        .get(&format!("{}/{name}", pods_path(ns)))
        .and_then(|p| p["spec"]["nodeName"].as_str().map(str::to_string))
        .filter(|n| !n.is_empty())
}

fn wait_bound(server: &TestApiServer, es: &Edgesched, ns: &str, name: &str) -> String {
    wait_until(T, &format!("{ns}/{name} bound"), || node_of(server, ns, name).is_some())
        .unwrap_or_else(|e| panic!("{e}\n{}", es.logs()));
    node_of(server, ns, name).unwrap_or_default()
}

fn events_for<'a>(events: &'a [Value], name: &str, reason: &str) -> Vec<&'a Value> {
    events.iter().filter(|e| e["regarding"]["name"] == name && e["reason"] == reason).collect()
}

#[test]
fn binds_pods_to_suitable_nodes_with_upstream_events() {
    let server = TestApiServer::start();
    server.create(NODES, node("small").cpu("2").build());
    server.create(NODES, node("gpu").cpu("8").taint("dedicated", "gpu", "NoSchedule").build());
    server.create(NODES, node("cordoned").cpu("16").unschedulable().build());
    server.create(NODES, node("ssd").cpu("2").label("disk", "ssd").build());
    let es = Launch::default().start(&server);
    es.wait_for_log("Caches are synced", T).expect("synced");

    let ns = "default";
    server.create(
        &pods_path(ns),
        pod(ns, "needs-4cpu").scheduler("edgesched").cpu("4").toleration("dedicated", "Equal", "gpu", "NoSchedule").build(),
    );
    server.create(&pods_path(ns), pod(ns, "on-ssd").scheduler("edgesched").cpu("100m").node_selector("disk", "ssd").build());
    server.create(
        &pods_path(ns),
        pod(ns, "port-a").scheduler("edgesched").cpu("100m").host_port(8080).node_selector("disk", "ssd").build(),
    );

    assert_eq!(wait_bound(&server, &es, ns, "needs-4cpu"), "gpu", "only the tolerated, tainted node has 4 cpu");
    assert_eq!(wait_bound(&server, &es, ns, "on-ssd"), "ssd");
    assert_eq!(wait_bound(&server, &es, ns, "port-a"), "ssd");

    // The same host port on the only matching node cannot fit.
    server.create(
        &pods_path(ns),
        pod(ns, "port-b").scheduler("edgesched").cpu("100m").host_port(8080).node_selector("disk", "ssd").build(),
    );
    wait_until(T, "FailedScheduling for port-b", || !events_for(&server.events(ns), "port-b", "FailedScheduling").is_empty())
        .expect("event");
    let events = server.events(ns);
    let failed = events_for(&events, "port-b", "FailedScheduling");
    assert_eq!(
        failed[0]["note"],
        // Filters run in upstream order and each node reports its first failure: the tainted node
        // fails TaintToleration before NodeAffinity is consulted.
        "0/4 nodes are available: 1 node(s) didn't have free ports for the requested pod ports, 1 node(s) didn't match Pod's node affinity/selector, 1 node(s) had untolerated taint(s), 1 node(s) were unschedulable. no new claims to deallocate, preemption: 0/4 nodes are available: 1 No preemption victims found for incoming pod, 3 Preemption is not helpful for scheduling."
    );
    assert_eq!(failed[0]["reportingController"], "edgesched");
    assert_eq!(failed[0]["type"], "Warning");
    assert_eq!(failed[0]["action"], "Scheduling");

    // Successful binds are announced like kube-scheduler's.
    let scheduled = events_for(&events, "on-ssd", "Scheduled");
    assert_eq!(scheduled.len(), 1);
    assert_eq!(scheduled[0]["note"], "Successfully assigned default/on-ssd to ssd");
    assert_eq!(scheduled[0]["action"], "Binding");
    assert!(scheduled[0]["reportingInstance"].as_str().is_some_and(|s| s.starts_with("edgesched-")));
    es.wait_for_log(r#""Successfully bound pod to node" pod="default/on-ssd" node="ssd" evaluatedNodes=4 feasibleNodes=1"#, T)
        .expect("log line");

    // The pod's condition carries the full message (a status write of its own: it may land
    // after the event).
    let cond = support::wait::wait_for(T, "port-b's PodScheduled condition", || {
        server.pod_scheduled(&format!("{}/port-b", pods_path(ns)))
    })
    .expect("condition");
    assert_eq!(cond["status"], "False");
    assert_eq!(cond["reason"], "Unschedulable");
    assert!(cond["message"].as_str().is_some_and(|m| m.starts_with("0/4 nodes are available")));

    // Nothing ever went to the cordoned node.
    for name in ["needs-4cpu", "on-ssd", "port-a"] {
        assert_ne!(node_of(&server, ns, name).as_deref(), Some("cordoned"));
    }
}

#[test]
fn pods_of_other_schedulers_are_never_touched() {
    let server = TestApiServer::start();
    server.create(NODES, node("n1").build());
    let es = Launch::default().start(&server);
    es.wait_for_log("Caches are synced", T).expect("synced");
    server.create(&pods_path("default"), pod("default", "theirs").build());
    server.create(&pods_path("default"), pod("default", "other").scheduler("other-scheduler").build());
    server.create(&pods_path("default"), pod("default", "mine").scheduler("edgesched").build());
    wait_bound(&server, &es, "default", "mine");
    // Give the scheduler a moment in which it would have acted on the others if it were going to.
    std::thread::sleep(Duration::from_millis(300));
    for name in ["theirs", "other"] {
        assert_eq!(server.binding_attempts("default", name), 0, "{name} must not be bound by edgesched");
        assert!(server.events("default").iter().all(|e| e["regarding"]["name"] != name), "no events about {name}");
        let p = server.get(&format!("/api/v1/namespaces/default/pods/{name}")).expect("pod");
        assert!(p["status"]["conditions"].as_array().is_none_or(|c| c.iter().all(|c| c["type"] != "PodScheduled")));
    }
}

#[test]
fn unschedulable_pod_waits_then_lands_on_a_new_node() {
    let server = TestApiServer::start();
    server.create(NODES, node("tiny").cpu("1").build());
    let es = Launch::default().start(&server);
    es.wait_for_log("Caches are synced", T).expect("synced");
    server.create(&pods_path("default"), pod("default", "big").scheduler("edgesched").cpu("4").build());
    wait_until(T, "FailedScheduling", || !events_for(&server.events("default"), "big", "FailedScheduling").is_empty())
        .expect("event");
    let events = server.events("default");
    assert_eq!(
        events_for(&events, "big", "FailedScheduling")[0]["note"],
        "0/1 nodes are available: 1 Insufficient cpu. no new claims to deallocate, preemption: 0/1 nodes are available: 1 Preemption is not helpful for scheduling."
    );
    es.wait_for_log(r#""Unable to schedule pod; no fit; waiting" pod="default/big""#, T).expect("log");
    server.create(NODES, node("large").cpu("8").build());
    assert_eq!(wait_bound(&server, &es, "default", "big"), "large");
}

#[test]
fn pods_bound_by_others_consume_capacity() {
    let server = TestApiServer::start();
    server.create(NODES, node("n1").cpu("2").build());
    server.create(&pods_path("kube-system"), pod("kube-system", "foreign").cpu("1500m").node_name("n1").phase("Running").build());
    let es = Launch::default().start(&server);
    es.wait_for_log("Caches are synced", T).expect("synced");
    server.create(&pods_path("default"), pod("default", "mine").scheduler("edgesched").cpu("1").build());
    wait_until(T, "FailedScheduling", || !events_for(&server.events("default"), "mine", "FailedScheduling").is_empty())
        .expect("event");
    assert!(node_of(&server, "default", "mine").is_none());
    // The foreign pod finishes: its resources are released and ours fits.
    server.set_pod_phase("kube-system", "foreign", "Succeeded");
    assert_eq!(wait_bound(&server, &es, "default", "mine"), "n1");
}

/// Sum of requests per node from the server's view, compared with allocatable.
fn assert_no_overcommit(server: &TestApiServer) {
    let nodes = server.list(NODES);
    let pods = server.list("/api/v1/pods");
    let milli = |q: &str| -> i64 { edgesched::core::quantity::parse_milli(q).expect("quantity") };
    let mut used: HashMap<String, (i64, i64, usize)> = HashMap::new();
    for p in &pods {
        let Some(n) = p["spec"]["nodeName"].as_str().filter(|n| !n.is_empty()) else { continue };
        if matches!(p["status"]["phase"].as_str(), Some("Succeeded" | "Failed")) {
            continue;
        }
        let e = used.entry(n.to_string()).or_default();
        for c in p["spec"]["containers"].as_array().into_iter().flatten() {
            if let Some(q) = c["resources"]["requests"]["cpu"].as_str() {
                e.0 += milli(q);
            }
            if let Some(q) = c["resources"]["requests"]["memory"].as_str() {
                e.1 += milli(q) / 1000;
            }
        }
        e.2 += 1;
    }
    for n in &nodes {
        let name = n["metadata"]["name"].as_str().unwrap_or_default();
        let alloc = &n["status"]["allocatable"];
        let (cpu, mem, count) = used.get(name).copied().unwrap_or_default();
        assert!(cpu <= milli(alloc["cpu"].as_str().unwrap_or("0")), "{name}: cpu overcommitted ({cpu}m)");
        assert!(mem <= milli(alloc["memory"].as_str().unwrap_or("0")) / 1000, "{name}: memory overcommitted");
        assert!(count as i64 <= milli(alloc["pods"].as_str().unwrap_or("0")) / 1000, "{name}: too many pods");
    }
}

#[test]
fn many_pods_over_many_nodes_zero_overcommit() {
    let server = TestApiServer::start();
    for i in 0..60 {
        server.create(NODES, node(&format!("node-{i:02}")).cpu("2").memory("4Gi").pods(12).build());
    }
    let es = Launch::default().start(&server);
    es.wait_for_log("Caches are synced", T).expect("synced");
    let start = Instant::now();
    let n = 600;
    for i in 0..n {
        let cpu = ["100m", "150m", "200m", "250m"][i % 4];
        server
            .create(&pods_path("load"), pod("load", &format!("p-{i:03}")).scheduler("edgesched").cpu(cpu).memory("64Mi").build());
    }
    wait_until(Duration::from_secs(60), "all pods bound", || server.total_bindings() >= n)
        .unwrap_or_else(|e| panic!("{e}\n{}", es.logs()));
    let elapsed = start.elapsed();
    eprintln!("bound {n} pods over 60 nodes in {:.2}s ({:.0} pods/s)", elapsed.as_secs_f64(), n as f64 / elapsed.as_secs_f64());
    for i in 0..n {
        assert_eq!(server.bindings("load", &format!("p-{i:03}")), 1, "p-{i:03} bound exactly once");
    }
    assert_no_overcommit(&server);
}

#[test]
fn faults_neither_lose_nor_double_bind_pods() {
    let server = TestApiServer::start_with(support::ServerOptions { history_window: 50, ..Default::default() });
    for i in 0..10 {
        server.create(NODES, node(&format!("n{i}")).cpu("4").pods(30).build());
    }
    let es = Launch::default().start(&server);
    es.wait_for_log("Caches are synced", T).expect("synced");
    server.set_failure_rate(0.05, "", "/pods", support::Failure::Status(500), 7);
    server.set_failure_rate(0.05, "POST", "/binding", support::Failure::TooManyRequests { retry_after: 1 }, 8);
    let n = 200;
    for i in 0..n {
        server.create(&pods_path("faults"), pod("faults", &format!("f-{i:03}")).scheduler("edgesched").cpu("100m").build());
        if i % 50 == 25 {
            server.drop_watches();
        }
        if i % 60 == 30 {
            server.compact();
        }
    }
    wait_until(Duration::from_secs(90), "all pods bound despite faults", || {
        (0..n).all(|i| node_of(&server, "faults", &format!("f-{i:03}")).is_some())
    })
    .unwrap_or_else(|e| panic!("{e}\n{}", es.logs()));
    server.clear_faults();
    for i in 0..n {
        assert_eq!(server.bindings("faults", &format!("f-{i:03}")), 1, "f-{i:03} bound exactly once");
    }
    assert_no_overcommit(&server);
    assert!(es.logs().contains("410") || es.logs().contains("relist"), "expected a relist after 410");
}

#[test]
fn malformed_config_exits_2_naming_the_file() {
    let dir = support::tempdir("bad-config");
    let path = dir.join("broken.yaml");
    std::fs::write(&path, "apiVersion: kubescheduler.config.k8s.io/v1\nkind: KubeSchedulerConfiguration\nprofiles:\n- schedulerName: a\n  plugins:\n    score:\n      enabled:\n      - name: NodeResourcesFit\n        weight: heavy\n").expect("write");
    let out = support::process::command().arg(format!("--config={}", path.display())).output().expect("run");
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains(&path.display().to_string()), "{err}");
    assert!(err.contains("profiles[0].plugins.score.enabled[0].weight"), "{err}");
    let out = support::process::command().arg("--kube-config=/etc/kubernetes/scheduler.conf").output().expect("run");
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("--kube-config"));
}

#[test]
fn a_pod_with_an_invalid_quantity_is_reported_and_does_not_block_others() {
    let server = TestApiServer::start();
    server.create(NODES, node("n1").build());
    let es = Launch::default().start(&server);
    es.wait_for_log("Caches are synced", T).expect("synced");
    server.create(&pods_path("default"), pod("default", "broken").scheduler("edgesched").cpu("lots").build());
    server.create(&pods_path("default"), pod("default", "fine").scheduler("edgesched").cpu("100m").build());
    wait_bound(&server, &es, "default", "fine");
    wait_until(T, "FailedScheduling for broken", || {
        !events_for(&server.events("default"), "broken", "FailedScheduling").is_empty()
    })
    .expect("event");
    let events = server.events("default");
    let note = events_for(&events, "broken", "FailedScheduling")[0]["note"].as_str().unwrap_or_default().to_string();
    assert!(note.contains("cpu") && note.contains("lots"), "{note}");
    assert!(node_of(&server, "default", "broken").is_none());
}

/// InterPodAffinity with a `namespaceSelector` needs the namespaces watched from the API server.
#[test]
fn pod_affinity_follows_namespace_labels_from_the_api() {
    let server = TestApiServer::start();
    for n in ["n1", "n2"] {
        server.create(NODES, node(n).cpu("4").label("kubernetes.io/hostname", n).build());
    }
    server.create(
        "/api/v1/namespaces",
        serde_json::json!({"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": "team-a", "labels": {"team": "a"}}}),
    );
    let es = Launch::default().start(&server);
    es.wait_for_log("Caches are synced", T).expect("synced");
    server.create(&pods_path("team-a"), pod("team-a", "db").scheduler("edgesched").cpu("100m").label("app", "db").build());
    let db_node = wait_bound(&server, &es, "team-a", "db");
    let term = |kind: &str| {
        serde_json::json!({kind: {"requiredDuringSchedulingIgnoredDuringExecution": [{
            "labelSelector": {"matchLabels": {"app": "db"}},
            "namespaceSelector": {"matchLabels": {"team": "a"}},
            "topologyKey": "kubernetes.io/hostname"
        }]}})
    };
    server.create(
        &pods_path("default"),
        pod("default", "near").scheduler("edgesched").cpu("100m").affinity(term("podAffinity")).build(),
    );
    server.create(
        &pods_path("default"),
        pod("default", "far").scheduler("edgesched").cpu("100m").affinity(term("podAntiAffinity")).build(),
    );
    assert_eq!(wait_bound(&server, &es, "default", "near"), db_node);
    assert_ne!(wait_bound(&server, &es, "default", "far"), db_node);
}

#[test]
fn profiles_without_volume_or_spread_plugins_open_no_watches_for_them() {
    // A profile that disables the volume plugins and PodTopologySpread reads no storage objects
    // and no controllers: edgesched neither lists nor watches them (nor needs RBAC for them).
    let server = TestApiServer::start();
    server.create(NODES, node("n1").build());
    let es = Launch {
        profile_extra: "  plugins:\n    multiPoint:\n      disabled:\n      - name: VolumeBinding\n      - name: VolumeRestrictions\n      - name: VolumeZone\n      - name: NodeVolumeLimits\n      - name: PodTopologySpread\n".into(),
        ..Launch::default()
    }
    .start(&server);
    es.wait_for_log("Caches are synced", T).expect("synced");
    server.create(&pods_path("default"), pod("default", "web").scheduler("edgesched").build());
    assert_eq!(wait_bound(&server, &es, "default", "web"), "n1");
    for resource in
        ["persistentvolumeclaims", "persistentvolumes", "storageclasses", "csinodes", "services", "replicasets", "statefulsets"]
    {
        assert_eq!(server.requests_received("GET", &format!("/{resource}")), 0, "{resource} must not be listed or watched");
    }
    for resource in ["nodes", "pods", "poddisruptionbudgets", "namespaces"] {
        assert!(server.requests_received("GET", &format!("/{resource}")) > 0, "{resource} is read");
    }
}

/// In-place resize (`InPlacePodVerticalScaling`, GA in v1.35): a running pod resized down from
/// 3 cpu to 1 still has 3 until the kubelet reports the change actuated, so a 2-cpu pod would
/// overcommit its 4-cpu node and is kept off it; once `status.containerStatuses[].resources`
/// shows 1 cpu, the node's count drops and the waiting pod is retried at once (the scale-down
/// event), not after the five-minute flush, and bound.
#[test]
fn a_resize_in_progress_keeps_a_new_pod_off_the_node_until_actuated() {
    let server = TestApiServer::start();
    server.create(NODES, node("n1").cpu("4").build());
    let ns = "default";
    server.create(&pods_path(ns), pod(ns, "shrinking").cpu("1").node_name("n1").phase("Running").build());
    let status = |actual: &str, conditions: Value| {
        serde_json::json!({"status": {
            "conditions": conditions,
            "containerStatuses": [{"name": "app", "ready": true, "image": "app",
                                   "allocatedResources": {"cpu": "1"},
                                   "resources": {"requests": {"cpu": actual}}}]}})
    };
    let in_progress = serde_json::json!([{"type": "PodResizeInProgress", "status": "True"}]);
    server.patch_merge(&format!("{}/shrinking/status", pods_path(ns)), status("3", in_progress));
    let es = Launch::default().start(&server);
    es.wait_for_log("Caches are synced", T).expect("synced");

    server.create(&pods_path(ns), pod(ns, "newcomer").scheduler("edgesched").cpu("2").build());
    wait_until(T, "FailedScheduling", || !events_for(&server.events(ns), "newcomer", "FailedScheduling").is_empty())
        .expect("event");
    let events = server.events(ns);
    let note = &events_for(&events, "newcomer", "FailedScheduling")[0]["note"];
    assert!(note.as_str().is_some_and(|n| n.starts_with("0/1 nodes are available: 1 Insufficient cpu.")), "{note}");
    es.wait_for_log(r#""Unable to schedule pod; no fit; waiting" pod="default/newcomer""#, T).expect("log");
    assert!(node_of(&server, ns, "newcomer").is_none());

    // The kubelet actuates the resize: the pod now has 1 cpu and the newcomer fits beside it.
    server.patch_merge(&format!("{}/shrinking/status", pods_path(ns)), status("1", serde_json::json!([])));
    assert_eq!(wait_bound(&server, &es, ns, "newcomer"), "n1");
}
