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

/// Dynamic Resource Allocation in the what-if commands against a live cluster, under the shipped
/// what-if role: the resource.k8s.io kinds are listed, claims the cluster's resourceclaim
/// controller made are used as they are (and claims it has not made are made by the simulation),
/// each placed pod's devices are reported, the snapshot carries the DRA kinds and simulates to the
/// same decisions, `explain` names the request that found no device and `capacity` stops on
/// devices.
#[test]
fn what_if_commands_read_and_write_the_dra_kinds_under_the_what_if_role() {
    let server = TestApiServer::start();
    server.apply_file(&manifest("manifests/what-if/rbac.yaml"));
    server.apply_file(&manifest("tests/fixtures/dra/edge-devices.yaml"));
    // The controller makes the claims of the fixture's pods; then it stops, so the pod added
    // below has no claim yet and the simulation makes it.
    server.run_claim_controller();
    server.apply_yaml(
        "apiVersion: resource.k8s.io/v1\nkind: ResourceClaimTemplate\nmetadata: {name: three-big, namespace: ml}\nspec:\n  spec:\n    devices:\n      requests:\n      - name: gpus\n        exactly: {deviceClassName: big-gpu.example.com, allocationMode: ExactCount, count: 3}\n---\napiVersion: v1\nkind: Pod\nmetadata: {name: trainer, namespace: ml, creationTimestamp: \"2026-01-01T00:00:09Z\"}\nspec:\n  containers: [{name: c}]\n  resourceClaims: [{name: gpus, resourceClaimTemplateName: three-big}]\n",
    );
    let dir = tempdir("what-if-dra");
    let reader = KubeAuth::ClientCertWithGroups { user: "alice".into(), groups: vec!["edgesched:what-if".into()] };
    let kc = server.write_kubeconfig(dir.path(), reader);
    let kc = format!("--kubeconfig={}", kc.display());
    server.take_requests();

    let snapshot = ok(&["snapshot", &kc]);
    for kind in ["DeviceClass", "ResourceSlice", "ResourceClaim", "ResourceClaimTemplate"] {
        assert!(snapshot.contains(&format!("apiVersion: resource.k8s.io/v1\nkind: {kind}\n")), "{kind}: {snapshot}");
    }
    assert!(snapshot.contains("resource.kubernetes.io/pod-claim-name"), "the controller's claims are in: {snapshot}");
    let file = dir.path().join("cluster.yaml");
    std::fs::write(&file, &snapshot).expect("write snapshot");
    let common = ["--seed=1", "--output=json", "--top=0"];
    let live = ok(&[&["simulate", &kc][..], &common[..]].concat());
    let offline = ok(&[&["simulate", &format!("--cluster={}", file.display())][..], &common[..]].concat());
    assert_eq!(live, offline, "simulate --kubeconfig and simulate --cluster on its snapshot");
    let decisions: Vec<Value> = live.lines().map(|l| serde_json::from_str(l).expect("JSON")).collect();
    let of = |pod: &str| decisions.iter().find(|d| d["pod"] == pod).unwrap_or_else(|| panic!("{pod}: {live}"));
    // The controller named vision-0's claim; its device is the first big GPU on edge-a.
    let vision = of("ml/vision-0");
    assert_eq!(vision["node"], "edge-a", "{live}");
    assert_eq!(vision["devices"][0]["pool"], "edge-a", "{live}");
    // The API server set the creation times, so which of speech-0 and batch-0 came first is its
    // choice; either way no device is given twice, and both big GPUs went to vision pods.
    let mut given: Vec<String> = decisions
        .iter()
        .flat_map(|d| d["devices"].as_array().cloned().unwrap_or_default())
        .map(|d| format!("{}/{}", d["pool"].as_str().unwrap_or(""), d["device"].as_str().unwrap_or("")))
        .collect();
    let count = given.len();
    given.sort();
    given.dedup();
    assert_eq!(given.len(), count, "a device given twice: {live}");
    assert!(given.contains(&"edge-a/gpu-0".to_string()) && given.contains(&"edge-a/gpu-1".to_string()), "{live}");
    assert!(given.contains(&"edge-b/gpu-0".to_string()), "{live}");
    // Nobody has three big GPUs; the simulation made the trainer's claim itself.
    let trainer = of("ml/trainer");
    assert_eq!(trainer["node"], Value::Null, "{live}");
    assert!(trainer["message"].as_str().expect("message").contains("cannot allocate all claims"), "{live}");

    // explain: per node, the request that found no device.
    let explained = ok(&["explain", &kc, "-n", "ml", "trainer"]);
    let after = explained.split("x edge-c: cannot allocate all claims\n").nth(1).expect("edge-c filtered");
    assert!(after.trim_start().starts_with("claim ml/trainer-gpus-"), "{explained}");
    assert!(explained.contains(" request gpus: no available device of class big-gpu.example.com matches\n"), "{explained}");

    // capacity: copies of a big-GPU pod, each with its own claim, until the big GPUs run out.
    let pod = dir.path().join("pod.yaml");
    std::fs::write(
        &pod,
        "apiVersion: v1\nkind: Pod\nmetadata: {name: probe, namespace: ml}\nspec:\n  containers: [{name: c}]\n  resourceClaims: [{name: gpu, resourceClaimTemplateName: big-gpu}]\n",
    )
    .expect("write pod");
    let capacity = ok(&["capacity", &kc, &format!("--pod={}", pod.display()), "--output=json"]);
    let v: Value = serde_json::from_str(capacity.trim()).expect("JSON");
    // Two big GPUs on edge-a: the cluster's own vision pods take both before any copy.
    assert_eq!(v["count"], 0, "{v}");
    let stopped = v["stoppedBy"].as_str().expect("stoppedBy");
    assert!(
        stopped.contains(" Devices: claim ml/probe-1-gpu-")
            && stopped.contains("no available device of class big-gpu.example.com matches (3 node(s))"),
        "{stopped}"
    );

    // Read-only, and the DRA kinds were listed. (`explain` also asks for the schedulers'
    // leases, which the what-if role does not grant: it goes on without them.)
    let requests: Vec<_> = server.take_requests().into_iter().filter(|r| r.user == "alice").collect();
    for r in &requests {
        let lease = r.path.starts_with("/apis/coordination.k8s.io/");
        assert_eq!((r.method.as_str(), r.denied && !lease), ("GET", false), "{} {}?{}", r.method, r.path, r.query);
    }
    for resource in ["deviceclasses", "resourceslices", "resourceclaims", "resourceclaimtemplates"] {
        let path = format!("/apis/resource.k8s.io/v1/{resource}");
        assert!(requests.iter().any(|r| r.path == path && r.code == 200), "{path} listed");
    }
}
