//! End-to-end: the what-if commands against the RBAC-enforcing test API server, run as the real
//! binary under an identity bound only to the shipped read-only ClusterRole
//! (`manifests/what-if/rbac.yaml`): `snapshot` writes a cluster file that `simulate --cluster`
//! reads back to the same decisions as `simulate --kubeconfig`, what-if changes and `capacity`
//! answer against the live cluster, every request is a list, and an identity without the role
//! is told which rule it lacks.

mod support;

use serde_json::Value;
use std::path::Path;
use std::process::Output;
use support::apiserver::KubeAuth;
use support::wait::tempdir;
use support::TestApiServer;

fn run(args: &[&str]) -> Output {
    support::process::command().args(args).current_dir(env!("CARGO_MANIFEST_DIR")).output().expect("run edgesched")
}

fn text(b: &[u8]) -> String {
    String::from_utf8_lossy(b).into_owned()
}

fn ok(args: &[&str]) -> String {
    let o = run(args);
    assert!(o.status.success(), "{args:?}: {}", text(&o.stderr));
    text(&o.stdout)
}

fn manifest(rel: &str) -> std::path::PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join(rel)
}

#[test]
fn snapshot_simulate_and_capacity_need_only_the_what_if_role() {
    let server = TestApiServer::start();
    server.apply_file(&manifest("examples/cluster.yaml"));
    server.apply_file(&manifest("manifests/what-if/rbac.yaml"));
    let dir = tempdir("what-if");
    let reader = KubeAuth::ClientCertWithGroups { user: "alice".into(), groups: vec!["edgesched:what-if".into()] };
    let kc = server.write_kubeconfig(dir.path(), reader);
    let kc = format!("--kubeconfig={}", kc.display());
    server.take_requests();

    // The snapshot, read back: the same decisions as simulating the live cluster.
    let snapshot = ok(&["snapshot", &kc]);
    assert!(snapshot.contains("kind: Node") && snapshot.contains("kind: Pod"), "{snapshot}");
    let file = dir.path().join("cluster.yaml");
    std::fs::write(&file, &snapshot).expect("write snapshot");
    let cluster = format!("--cluster={}", file.display());
    let common = ["--config=examples/config.yaml", "--seed=1", "--output=json", "--top=0"];
    let live = ok(&[&["simulate", &kc][..], &common[..]].concat());
    let offline = ok(&[&["simulate", &cluster][..], &common[..]].concat());
    assert_eq!(live, offline, "simulate --kubeconfig and simulate --cluster on its snapshot");
    let decisions: Vec<Value> = live.lines().map(|l| serde_json::from_str(l).expect("JSON")).collect();
    assert!(decisions.iter().any(|d| d["pod"] == "edge/web-1" && d["node"].is_string()), "{live}");
    // The snapshot is stable: snapshotting again writes the same file.
    assert_eq!(ok(&["snapshot", &kc]), snapshot);

    // What if: add a pod, drain a node, cordon another.
    let added = dir.path().join("add.yaml");
    std::fs::write(
        &added,
        "apiVersion: v1\nkind: Pod\nmetadata: {name: extra, namespace: edge}\nspec:\n  schedulerName: edgesched\n  containers: [{name: c, resources: {requests: {cpu: 100m}}}]\n",
    )
    .expect("write pod");
    let add = format!("--add={}", added.display());
    let placements = ok(&["simulate", &kc, "--config=examples/config.yaml", "--seed=1", "--output=placements", &add]);
    assert!(placements.lines().any(|l| l.starts_with("edge/extra edge-")), "{placements}");
    let drained = ok(&[
        "simulate",
        &kc,
        "--config=examples/config.yaml",
        "--seed=1",
        "--output=placements",
        "--remove-node=edge-a1",
        "--cordon=edge-a2",
    ]);
    // telemetry-0 ran on edge-a1: it is scheduled again; nothing new lands on edge-a1 or edge-a2.
    assert!(drained.lines().any(|l| l.starts_with("edge/telemetry-0 ")), "{drained}");
    assert!(!drained.contains(" edge-a1\n") && !drained.contains(" edge-a2\n"), "{drained}");

    // Capacity against the live cluster.
    let pod = dir.path().join("pod.yaml");
    std::fs::write(
        &pod,
        "apiVersion: v1\nkind: Pod\nmetadata: {name: probe, namespace: edge}\nspec:\n  schedulerName: edgesched\n  containers: [{name: c, resources: {requests: {cpu: 500m, memory: 64Mi}}}]\n",
    )
    .expect("write pod");
    let capacity = ok(&["capacity", &kc, "--config=examples/config.yaml", &format!("--pod={}", pod.display()), "--output=json"]);
    let v: Value = serde_json::from_str(capacity.trim()).expect("JSON");
    let count = v["count"].as_u64().expect("count");
    let per_node: u64 = v["perNode"].as_object().expect("perNode").values().filter_map(Value::as_u64).sum();
    assert!(count > 0 && count == per_node, "{v}");
    assert!(v["stoppedBy"].as_str().expect("stoppedBy").starts_with("0/4 nodes are available"), "{v}");

    // Read-only: every request alice made was an allowed GET of a collection.
    let requests: Vec<_> = server.take_requests().into_iter().filter(|r| r.user == "alice").collect();
    assert!(requests.len() >= 13, "one list per kind at least: {}", requests.len());
    for r in &requests {
        assert_eq!((r.method.as_str(), r.code, r.denied), ("GET", 200, false), "{} {}?{}", r.method, r.path, r.query);
    }
    assert!(
        requests.iter().any(|r| r.path == "/api/v1/pods" && r.query.contains("status.phase")),
        "pods listed with the selector"
    );

    // Without the role: the command stops and names the rule to add.
    let stranger = server.write_kubeconfig(dir.path(), KubeAuth::ClientCert { user: "bob".into() });
    let o = run(&["snapshot", &format!("--kubeconfig={}", stranger.display())]);
    assert_eq!(o.status.code(), Some(1), "{}", text(&o.stderr));
    assert!(text(&o.stderr).contains("listing nodes (/api/v1/nodes) is forbidden: the identity needs {apiGroups: [\"\"], resources: [\"nodes\"], verbs: [\"list\"]} in a ClusterRole"), "{}", text(&o.stderr));
}
