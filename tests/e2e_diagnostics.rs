//! End-to-end: "why is my pod Pending?" — unserved scheduler names noticed by the running scheduler
//! (log, metric, and a Warning event only when asked for), `explain` for fitting, non-fitting and
//! foreign pods, and `status` against a running instance. All through the real binary.

mod support;

use serde_json::Value;
use std::io::{Read, Write};
use std::net::TcpStream;
use std::path::Path;
use std::process::Output;
use std::time::Duration;
use support::apiserver::KubeAuth;
use support::objects::{node, pod};
use support::process::{free_port, Launch};
use support::wait::{tempdir, wait_for};
use support::TestApiServer;

const NODES: &str = "/api/v1/nodes";
const NS: &str = "default";
const PODS: &str = "/api/v1/namespaces/default/pods";
const T: Duration = Duration::from_secs(20);
/// The scheduler reports a foreign name only after it stayed unserved for 30 s (UNSERVED_GRACE).
const UNSERVED_T: Duration = Duration::from_secs(75);

/// GET over plain HTTP (the `--port` listener), returning the body.
fn http_get(port: u16, path: &str) -> Result<String, String> {
    let mut s = TcpStream::connect(("127.0.0.1", port)).map_err(|e| e.to_string())?;
    s.set_read_timeout(Some(Duration::from_secs(5))).map_err(|e| e.to_string())?;
    write!(s, "GET {path} HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n").map_err(|e| e.to_string())?;
    let mut raw = String::new();
    s.read_to_string(&mut raw).map_err(|e| e.to_string())?;
    let (head, body) = raw.split_once("\r\n\r\n").ok_or("no header end")?;
    if !head.starts_with("HTTP/1.1 200") {
        return Err(head.lines().next().unwrap_or("").to_string());
    }
    Ok(body.to_string())
}

fn run_cli(args: &[&str]) -> Output {
    support::process::command().args(args).output().expect("run edgesched")
}

fn write_config(dir: &Path, kubeconfig: &Path, leader_elect: bool) -> String {
    let path = dir.join("config.yaml");
    std::fs::write(
        &path,
        format!(
            "apiVersion: kubescheduler.config.k8s.io/v1\nkind: KubeSchedulerConfiguration\nclientConnection:\n  kubeconfig: {}\nleaderElection:\n  leaderElect: {leader_elect}\n  resourceNamespace: kube-system\n  resourceName: edgesched\nprofiles:\n- schedulerName: edgesched\n",
            kubeconfig.display()
        ),
    )
    .expect("write config");
    path.display().to_string()
}

fn unserved_events(server: &TestApiServer, name: &str) -> Vec<Value> {
    server.events(NS).into_iter().filter(|e| e["regarding"]["name"] == name && e["reason"] == "NoSchedulerForName").collect()
}

#[test]
fn unserved_scheduler_names_are_reported_and_warned_about_only_when_enabled() {
    // Two independent clusters: one scheduler asked to warn on pods, one not.
    let warn_server = TestApiServer::start();
    let quiet_server = TestApiServer::start();
    let warn_port = free_port();
    let quiet_port = free_port();
    let mut instances = Vec::new();
    for (server, port, warn) in [(&warn_server, warn_port, true), (&quiet_server, quiet_port, false)] {
        server.create(NODES, node("n1").cpu("4").build());
        let mut extra_args = vec![format!("--port={port}"), "--address=127.0.0.1".to_string()];
        if warn {
            extra_args.push("--warn-unserved-scheduler-names".into());
        }
        let es = Launch { extra_args, ..Launch::default() }.start(server);
        es.wait_for_log("Caches are synced", T).expect("synced");
        server.create(PODS, pod(NS, "typo").scheduler("edgeshed").cpu("100m").build());
        server.create(PODS, pod(NS, "for-default").scheduler("default-scheduler").cpu("100m").build());
        server.create(PODS, pod(NS, "ours").scheduler("edgesched").cpu("100m").build());
        instances.push((server, port, warn, es));
    }

    for (server, port, warn, es) in &instances {
        es.wait_for_log("Pending pod names a scheduler that is not running", UNSERVED_T)
            .unwrap_or_else(|e| panic!("{e}\n{}", es.logs()));
        let logs = es.logs();
        let reported: Vec<&str> = logs.lines().filter(|l| l.contains("Pending pod names a scheduler")).collect();
        assert_eq!(reported.len(), 1, "logged once per pod: {reported:?}");
        assert!(reported[0].contains("pod=\"default/typo\""), "{}", reported[0]);
        assert!(reported[0].contains("schedulerName=\"edgeshed\""), "{}", reported[0]);

        let metrics = wait_for(T, "unserved gauge", || {
            http_get(*port, "/metrics").ok().filter(|m| m.contains("edgesched_pending_pods_unserved_scheduler_name{"))
        })
        .unwrap_or_else(|e| panic!("{e}\n{}", es.logs()));
        let line =
            metrics.lines().find(|l| l.starts_with("edgesched_pending_pods_unserved_scheduler_name{")).expect("gauge line");
        assert_eq!(line, "edgesched_pending_pods_unserved_scheduler_name{scheduler_name=\"edgeshed\"} 1");
        assert!(!metrics.contains("scheduler_name=\"default-scheduler\""), "default-scheduler is assumed served");

        if *warn {
            let events = wait_for(T, "NoSchedulerForName event", || {
                let e = unserved_events(server, "typo");
                (!e.is_empty()).then_some(e)
            })
            .unwrap_or_else(|e| panic!("{e}\n{}", es.logs()));
            assert_eq!(events.len(), 1);
            assert_eq!(events[0]["type"], "Warning");
            let note = events[0]["note"].as_str().unwrap_or_default();
            assert!(note.contains("\"edgeshed\""), "{note}");
            assert!(note.contains("did you mean \"edgesched\""), "{note}");
        } else {
            // The event would have been queued in the same tick as the log line.
            std::thread::sleep(Duration::from_secs(2));
            assert!(unserved_events(server, "typo").is_empty(), "no event without --warn-unserved-scheduler-names");
        }
        assert!(unserved_events(server, "for-default").is_empty());

        // Our own pod is scheduled; the foreign ones are never bound nor patched.
        wait_for(T, "ours bound", || server.get(&format!("{PODS}/ours")).filter(|p| p["spec"]["nodeName"] == "n1"))
            .unwrap_or_else(|e| panic!("{e}\n{}", es.logs()));
        for name in ["typo", "for-default"] {
            let p = server.get(&format!("{PODS}/{name}")).expect("pod exists");
            assert!(p["spec"]["nodeName"].as_str().unwrap_or("").is_empty(), "{name} not bound");
            assert_eq!(server.binding_attempts(NS, name), 0, "{name}: no binding attempt");
            assert_eq!(server.requests_matching("PATCH", &format!("/pods/{name}")), 0, "{name}: never patched");
        }
    }
}

/// `explain` lists the cluster kind by kind from the watched-kinds table: an identity that may list
/// pods but not nodes is told which rule to add, and nothing is explained from half a cluster.
#[test]
fn explain_names_the_rule_a_forbidden_list_needs() {
    let server = TestApiServer::start();
    server.create(NODES, node("n1").cpu("2").build());
    server.create(PODS, pod(NS, "p").scheduler("edgesched").cpu("100m").build());
    let dir = tempdir("edgesched-explain-forbidden");
    let kubeconfig = server.write_kubeconfig(&dir, KubeAuth::ClientCert { user: "nobody".into() });
    let config = write_config(&dir, &kubeconfig, false);
    let o = run_cli(&["explain", "--config", &config, "-n", NS, "p"]);
    let stderr = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(1), "{stderr}");
    assert!(stderr.contains("/api/v1/nodes (the identity needs"), "{stderr}");
    assert!(stderr.contains(r#"resources: ["nodes"], verbs: ["list"]"#), "{stderr}");
    assert!(o.stdout.is_empty(), "{}", String::from_utf8_lossy(&o.stdout));
}

#[test]
fn explain_tells_why_fitting_failing_and_foreign_pods_are_pending() {
    let server = TestApiServer::start();
    server.create(NODES, node("small").cpu("2").build());
    server.create(NODES, node("tainted").cpu("8").taint("dedicated", "gpu", "NoSchedule").build());
    server.create(PODS, pod(NS, "fits").scheduler("edgesched").cpu("500m").build());
    server.create(PODS, pod(NS, "too-big").scheduler("edgesched").cpu("16").build());
    server.create(PODS, pod(NS, "foreign").scheduler("edgeshed").cpu("100m").build());
    server.create(PODS, pod(NS, "for-default").scheduler("default-scheduler").cpu("100m").build());
    let dir = tempdir("edgesched-explain");
    let kubeconfig = server.write_kubeconfig(&dir, KubeAuth::ClientCert { user: "system:kube-scheduler".into() });
    let config = write_config(&dir, &kubeconfig, false);

    let o = run_cli(&["explain", "--config", &config, "--all-pending", "--namespace", NS, "--output", "json"]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let out = String::from_utf8_lossy(&o.stdout);
    let by_pod: std::collections::BTreeMap<String, Value> = out
        .lines()
        .map(|l| serde_json::from_str::<Value>(l).unwrap_or_else(|e| panic!("not JSON ({e}): {l}")))
        .map(|v| (v["pod"].as_str().unwrap_or_default().to_string(), v))
        .collect();

    let fits = &by_pod["default/fits"];
    assert_eq!(fits["served"], true);
    assert_eq!(fits["decision"]["node"], "small");
    assert_eq!(fits["decision"]["filtered"]["tainted"], "node(s) had untolerated taint(s)");

    let too_big = &by_pod["default/too-big"];
    assert!(too_big["decision"]["node"].is_null());
    let msg = too_big["decision"]["message"].as_str().unwrap_or_default();
    assert!(msg.starts_with("0/2 nodes are available:"), "{msg}");
    assert!(msg.contains("1 Insufficient cpu"), "{msg}");
    assert!(msg.contains("1 node(s) had untolerated taint(s)"), "{msg}");

    let foreign = &by_pod["default/foreign"];
    assert_eq!(foreign["schedulerName"], "edgeshed");
    assert_eq!(foreign["served"], false);
    assert!(foreign["decision"].is_null(), "no decision for a name our configuration does not define");
    assert!(foreign["hint"].as_str().unwrap_or_default().contains("edgesched"), "suggests the near name: {foreign}");

    // The table says the same for people, and a named pod works too.
    let o = run_cli(&["explain", "--config", &config, "-n", NS, "too-big"]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let table = String::from_utf8_lossy(&o.stdout);
    assert!(table.contains("default/too-big"), "{table}");
    assert!(table.contains("Insufficient cpu"), "{table}");
    // Read-only: nothing was bound, patched or recorded.
    assert_eq!(server.requests_matching("POST", "/binding"), 0);
    assert_eq!(server.requests_matching("PATCH", "/pods/"), 0);
    assert!(server.events(NS).is_empty());
}

const STATUS_READER_RBAC: &str = "apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRole
metadata: {name: edgesched-status-reader}
rules:
- {apiGroups: [\"\"], resources: [pods], verbs: [list]}
- {apiGroups: [\"\", events.k8s.io], resources: [events], verbs: [list]}
- {apiGroups: [coordination.k8s.io], resources: [leases], verbs: [get, list]}
---
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRoleBinding
metadata: {name: edgesched-status-reader}
roleRef: {apiGroup: rbac.authorization.k8s.io, kind: ClusterRole, name: edgesched-status-reader}
subjects:
- {apiGroup: rbac.authorization.k8s.io, kind: User, name: status-reader}
";

#[test]
fn status_summarises_a_running_scheduler() {
    let server = TestApiServer::start();
    server.create(NODES, node("n1").cpu("2").build());
    let es = Launch { leader_elect: true, ..Launch::default() }.start(&server);
    es.wait_for_log("Caches are synced", T).expect("synced");
    server.create(PODS, pod(NS, "ok").scheduler("edgesched").cpu("100m").build());
    server.create(PODS, pod(NS, "huge").scheduler("edgesched").cpu("64").build());
    server.create(PODS, pod(NS, "foreign").scheduler("edgeshed").cpu("100m").build());
    wait_for(T, "ok bound", || server.get(&format!("{PODS}/ok")).filter(|p| p["spec"]["nodeName"] == "n1"))
        .unwrap_or_else(|e| panic!("{e}\n{}", es.logs()));
    wait_for(T, "huge failed", || server.events(NS).into_iter().find(|e| e["reason"] == "FailedScheduling"))
        .unwrap_or_else(|e| panic!("{e}\n{}", es.logs()));

    // What `status` reads (documented in docs/what-if.md): pods, the Leases of the lease namespace and
    // the events of both APIs. An operator with only this sees the whole report.
    server.apply_yaml(STATUS_READER_RBAC);
    let kubeconfig = server.write_kubeconfig(&es.dir, KubeAuth::ClientCert { user: "status-reader".into() });
    let config = write_config(&es.dir, &kubeconfig, true);
    let o = run_cli(&["status", "--config", &config, "--output", "json"]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let r: Value = serde_json::from_slice(&o.stdout).expect("status JSON");
    assert_eq!(r["lease"], "kube-system/edgesched");
    let leader = r["leader"].as_str().unwrap_or_default();
    assert!(leader.contains('_'), "holderIdentity hostname_uuid: {r}");
    assert_eq!(r["profiles"], serde_json::json!(["edgesched"]));
    assert_eq!(r["pending"]["edgesched"]["pods"], 1, "{r}");
    assert_eq!(r["pending"]["edgeshed"]["pods"], 1, "{r}");
    assert!(r["pending"]["edgeshed"]["servedBy"].is_null(), "{r}");
    assert!(r["recentEvents"]["Scheduled"].as_u64() >= Some(1), "{r}");
    assert!(r["recentEvents"]["FailedScheduling"].as_u64() >= Some(1), "{r}");
    let failures = r["lastFailures"].as_array().expect("lastFailures");
    assert!(failures.iter().any(|f| f.as_str().unwrap_or_default().contains("default/huge")), "{r}");

    let o = run_cli(&["status", "--config", &config]);
    assert!(o.status.success());
    let table = String::from_utf8_lossy(&o.stdout);
    assert!(table.contains(leader), "{table}");
    assert!(table.contains("edgeshed"), "{table}");
}
