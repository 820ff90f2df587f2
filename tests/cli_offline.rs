//! The offline subcommands as a user runs them: `check-config` and `simulate` on the files shipped
//! in `examples/`, through the real binary (exit codes, stdout/stderr), so the README's quick start
//! stays true.

use serde_json::Value;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

fn edgesched(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_edgesched"))
        .args(args)
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .output()
        .expect("run edgesched")
}

fn stdout(o: &Output) -> String {
    String::from_utf8_lossy(&o.stdout).into_owned()
}

fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

/// A file in its own scratch directory, removed with the directory when dropped.
struct TempFile(PathBuf);

impl std::ops::Deref for TempFile {
    type Target = Path;
    fn deref(&self) -> &Path {
        &self.0
    }
}

impl Drop for TempFile {
    fn drop(&mut self) {
        if let Some(dir) = self.0.parent() {
            let _ = std::fs::remove_dir_all(dir);
        }
    }
}

fn temp_file(name: &str, text: &str) -> TempFile {
    static N: std::sync::atomic::AtomicU32 = std::sync::atomic::AtomicU32::new(0);
    let n = N.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    let dir = std::env::temp_dir().join(format!("edgesched-cli-{}-{n}-{name}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("temp dir");
    let path = dir.join(name);
    std::fs::write(&path, text).expect("write temp file");
    TempFile(path)
}

fn simulate_json(seed: &str) -> Vec<Value> {
    let o = edgesched(&[
        "simulate",
        "--config",
        "examples/config.yaml",
        "--cluster",
        "examples/cluster.yaml",
        "--output",
        "json",
        "--top",
        "0",
        "--seed",
        seed,
    ]);
    assert!(o.status.success(), "simulate failed: {}", stderr(&o));
    stdout(&o).lines().map(|l| serde_json::from_str(l).unwrap_or_else(|e| panic!("not JSON ({e}): {l}"))).collect()
}

/// Upstream's default score weights (pkg/scheduler/apis/config/v1/default_plugins.go).
fn default_weight(plugin: &str) -> i64 {
    match plugin {
        "TaintToleration" => 3,
        "NodeAffinity" | "PodTopologySpread" | "InterPodAffinity" => 2,
        _ => 1,
    }
}

#[test]
fn check_config_prints_the_effective_v1_configuration_with_defaults() {
    let o = edgesched(&["check-config", "--config", "examples/config.yaml"]);
    assert!(o.status.success(), "{}", stderr(&o));
    let cfg: Value = serde_saphyr::from_str(&stdout(&o)).expect("check-config prints YAML");
    assert_eq!(cfg["apiVersion"], "kubescheduler.config.k8s.io/v1");
    assert_eq!(cfg["kind"], "KubeSchedulerConfiguration");
    assert_eq!(cfg["podInitialBackoffSeconds"], 1);
    assert_eq!(cfg["podMaxBackoffSeconds"], 10);
    assert_eq!(cfg["clientConnection"]["qps"], 50.0);
    assert_eq!(cfg["clientConnection"]["burst"], 100);
    let profiles = cfg["profiles"].as_array().expect("profiles");
    let names: Vec<&str> = profiles.iter().filter_map(|p| p["schedulerName"].as_str()).collect();
    assert_eq!(names, ["edgesched", "edgesched-binpack"]);
    // The defaults are spelled out: the multiPoint plugin set with upstream's weights.
    let multi = profiles[0]["plugins"]["multiPoint"]["enabled"].as_array().expect("multiPoint.enabled");
    let weight_of = |name: &str| multi.iter().find(|p| p["name"] == name).map(|p| p["weight"].clone());
    assert_eq!(weight_of("TaintToleration"), Some(Value::from(3)));
    assert_eq!(weight_of("PodTopologySpread"), Some(Value::from(2)));
    assert!(weight_of("DefaultBinder").is_some());
    let args = profiles[1]["pluginConfig"].as_array().expect("pluginConfig");
    let fit = args.iter().find(|a| a["name"] == "NodeResourcesFit").expect("NodeResourcesFit args");
    assert_eq!(fit["args"]["scoringStrategy"]["type"], "MostAllocated");
    // The printed configuration is itself a valid input.
    let again = temp_file("effective.yaml", &stdout(&o));
    let o2 = edgesched(&["check-config", "--config", again.to_str().expect("utf-8 path")]);
    assert!(o2.status.success(), "{}", stderr(&o2));
    assert_eq!(stdout(&o2), stdout(&o));
}

#[test]
fn check_config_validates_every_shipped_configuration() {
    for file in ["examples/config.yaml", "systemd/config.yaml", "manifests/static-pod/edgesched-config.yaml"] {
        let o = edgesched(&["check-config", "--config", file]);
        assert!(o.status.success(), "{file}: {}", stderr(&o));
    }
    // The ConfigMap embeds a configuration too.
    let cm: Value = serde_saphyr::from_str(
        &std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("manifests/deployment/configmap.yaml"))
            .expect("read configmap"),
    )
    .expect("configmap YAML");
    let data = cm["data"].as_object().expect("configmap data");
    let (key, text) = data.iter().next().expect("one config key");
    let path = temp_file(key, text.as_str().expect("string data"));
    let o = edgesched(&["check-config", "--config", path.to_str().expect("utf-8 path")]);
    assert!(o.status.success(), "configmap {key}: {}", stderr(&o));
}

#[test]
fn check_config_errors_name_the_file_and_field_and_exit_2() {
    let path = temp_file(
        "bad-weight.yaml",
        "apiVersion: kubescheduler.config.k8s.io/v1\nkind: KubeSchedulerConfiguration\nprofiles:\n- schedulerName: a\n  plugins:\n    score:\n      enabled:\n      - name: NodeResourcesFit\n        weight: heavy\n",
    );
    let o = edgesched(&["check-config", "--config", path.to_str().expect("utf-8 path")]);
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    let err = stderr(&o);
    assert!(err.contains("bad-weight.yaml"), "{err}");
    assert!(err.contains("profiles[0].plugins.score.enabled[0].weight"), "{err}");

    let dup = temp_file(
        "dup.yaml",
        "apiVersion: kubescheduler.config.k8s.io/v1\nkind: KubeSchedulerConfiguration\nprofiles:\n- schedulerName: a\n- schedulerName: a\n",
    );
    let o = edgesched(&["check-config", "--config", dup.to_str().expect("utf-8 path")]);
    assert_eq!(o.status.code(), Some(2));
    assert!(stderr(&o).contains("dup.yaml"), "{}", stderr(&o));
    assert!(stderr(&o).contains("profiles[1].schedulerName"), "{}", stderr(&o));
}

#[test]
fn check_config_converts_v1beta1_legacy_scoring_plugins() {
    let path = temp_file(
        "v1beta1.yaml",
        "apiVersion: kubescheduler.config.k8s.io/v1beta1\nkind: KubeSchedulerConfiguration\nleaderElection:\n  leaderElect: false\nprofiles:\n- schedulerName: binpack\n  plugins:\n    score:\n      disabled:\n      - name: NodeResourcesLeastAllocated\n      enabled:\n      - name: NodeResourcesMostAllocated\n        weight: 5\n",
    );
    let o = edgesched(&["check-config", "--config", path.to_str().expect("utf-8 path")]);
    assert!(o.status.success(), "{}", stderr(&o));
    let warning = stderr(&o);
    assert!(warning.contains("v1beta1 was removed") && warning.contains("converted to v1"), "a conversion warning: {warning}");
    assert!(warning.contains("NodeResourcesMostAllocated (weight 5) converted to NodeResourcesFit"), "{warning}");
    let cfg: Value = serde_saphyr::from_str(&stdout(&o)).expect("YAML");
    assert_eq!(cfg["apiVersion"], "kubescheduler.config.k8s.io/v1");
    let profile = &cfg["profiles"][0];
    let fit = profile["pluginConfig"]
        .as_array()
        .and_then(|a| a.iter().find(|p| p["name"] == "NodeResourcesFit"))
        .expect("NodeResourcesFit args");
    assert_eq!(fit["args"]["scoringStrategy"]["type"], "MostAllocated");
}

#[test]
fn simulate_explains_every_pending_pod_with_consistent_scores() {
    let decisions = simulate_json("1");
    assert!(decisions.len() >= 5, "every pending pod of the example is reported: {decisions:?}");
    let mut placed = 0;
    for d in &decisions {
        let pod = d["pod"].as_str().expect("pod");
        for key in ["schedulerName", "node", "evaluatedNodes", "feasibleNodes", "filtered", "scores", "message"] {
            assert!(d.get(key).is_some(), "{pod}: missing {key}");
        }
        if d.get("skipped").is_some() {
            assert!(d["node"].is_null(), "{pod}: skipped pods are not placed");
            continue;
        }
        let mut filtered_nodes = Vec::new();
        for g in d["filtered"].as_array().expect("filtered") {
            assert!(!g["reason"].as_str().unwrap_or("").is_empty(), "{pod}: empty reason");
            let nodes = g["nodes"].as_array().expect("nodes");
            assert_eq!(g["count"].as_u64(), Some(nodes.len() as u64), "{pod}: --top 0 lists every node of a reason");
            filtered_nodes.extend(nodes.iter().filter_map(|n| n.as_str()));
        }
        let scores = d["scores"].as_array().expect("scores");
        let mut previous = i64::MAX;
        for s in scores {
            let node = s["node"].as_str().expect("node");
            let plugins = s["plugins"].as_object().expect("plugins");
            let mut weighted = 0;
            for (plugin, v) in plugins {
                let v = v.as_i64().expect("integer score");
                assert!((0..=100).contains(&v), "{pod} {node} {plugin}: normalised score {v} outside 0..=100");
                weighted += v * default_weight(plugin);
            }
            assert_eq!(s["total"].as_i64(), Some(weighted), "{pod} {node}: total is the weighted sum");
            assert!(weighted <= previous, "{pod}: scores are listed best first");
            previous = weighted;
            assert!(!filtered_nodes.contains(&node), "{pod}: {node} both filtered and scored");
        }
        match d["node"].as_str() {
            Some(node) => {
                placed += 1;
                assert_eq!(d["message"], format!("Successfully assigned {pod} to {node}"));
                if let Some(best) = scores.first() {
                    let chosen = scores.iter().find(|s| s["node"] == node).expect("the chosen node is scored");
                    assert_eq!(chosen["total"], best["total"], "{pod}: the chosen node has the highest total");
                    assert_eq!(d["feasibleNodes"].as_u64(), Some(scores.len() as u64), "{pod}: every feasible node scored");
                }
            }
            None => {
                let msg = d["message"].as_str().expect("message");
                assert!(msg.starts_with("0/"), "{pod}: upstream FitError text: {msg}");
                assert!(msg.contains("nodes are available"), "{pod}: {msg}");
            }
        }
    }
    assert!(placed >= 3, "most example pods fit somewhere");
    let skipped: Vec<&Value> = decisions.iter().filter(|d| d.get("skipped").is_some()).collect();
    assert!(!skipped.is_empty(), "the example's pod with a foreign schedulerName is reported as skipped");
}

#[test]
fn simulate_is_reproducible_with_a_seed_and_the_table_tells_the_same() {
    let a = simulate_json("7");
    let b = simulate_json("7");
    assert_eq!(a, b);
    let o = edgesched(&["simulate", "--config", "examples/config.yaml", "--cluster", "examples/cluster.yaml", "--seed", "7"]);
    assert!(o.status.success(), "{}", stderr(&o));
    let table = stdout(&o);
    let mut by_pod: BTreeMap<&str, Option<&str>> = BTreeMap::new();
    for d in &a {
        by_pod.insert(d["pod"].as_str().expect("pod"), d["node"].as_str());
    }
    for (pod, node) in by_pod {
        assert!(table.contains(&format!("POD {pod} ")), "table lists {pod}:\n{table}");
        if let Some(node) = node {
            assert!(table.contains(&format!("-> {node}")), "table shows {pod} -> {node}:\n{table}");
        }
    }
}

#[test]
fn simulate_usage_errors_exit_2() {
    let o = edgesched(&["simulate", "--config", "examples/config.yaml", "--cluster=c.yaml", "--kubeconfig=k"]);
    assert_eq!(o.status.code(), Some(2));
    assert!(stderr(&o).contains("--cluster"), "{}", stderr(&o));
    let bad = temp_file("cluster.yaml", "apiVersion: v1\nkind: List\nitems: [ {kind: Node, metadata: {name: 3\n");
    let o = edgesched(&["simulate", "--cluster", bad.to_str().expect("utf-8 path")]);
    assert_ne!(o.status.code(), Some(0));
    assert!(stderr(&o).contains("cluster.yaml"), "{}", stderr(&o));
}

/// A kubeconfig whose server refuses connections (nothing listens on port 1).
const DEAD_SERVER_KUBECONFIG: &str = "apiVersion: v1\nkind: Config\nclusters:\n- name: c\n  cluster:\n    server: https://127.0.0.1:1\n    insecure-skip-tls-verify: true\ncontexts:\n- name: c\n  context:\n    cluster: c\n    user: u\ncurrent-context: c\nusers:\n- name: u\n  user:\n    token: t\n";

#[test]
fn client_commands_name_the_server_that_did_not_answer() {
    let kc = temp_file("kubeconfig", DEAD_SERVER_KUBECONFIG);
    let kc = format!("--kubeconfig={}", kc.display());
    for args in [vec!["status", kc.as_str()], vec!["explain", "--all-pending", kc.as_str(), "--request-timeout=5s"]] {
        let o = edgesched(&args);
        assert_eq!(o.status.code(), Some(1), "{args:?}: {}", stderr(&o));
        assert!(stderr(&o).contains("the API server https://127.0.0.1:1 did not answer"), "{args:?}: {}", stderr(&o));
    }
    let o = edgesched(&["status", &kc, "--request-timeout=soon"]);
    assert_eq!(o.status.code(), Some(2));
    assert!(stderr(&o).contains("Timeout must be a single integer in seconds"), "{}", stderr(&o));
}

fn example(args: &[&str]) -> Output {
    let mut all = vec!["simulate", "--config", "examples/config.yaml", "--cluster", "examples/cluster.yaml", "--seed", "1"];
    all.extend_from_slice(args);
    edgesched(&all)
}

#[test]
fn simulate_placements_are_one_line_per_pod_and_agree_with_json() {
    let o = example(&["--output", "placements"]);
    assert!(o.status.success(), "{}", stderr(&o));
    let lines: Vec<String> = stdout(&o).lines().map(str::to_string).collect();
    let json = simulate_json("1");
    assert_eq!(lines.len(), json.len(), "{lines:?}");
    for d in &json {
        let want = format!("{} {}", d["pod"].as_str().expect("pod"), d["node"].as_str().unwrap_or("-"));
        assert!(lines.contains(&want), "{want} in {lines:?}");
    }
    assert!(lines.contains(&"edge/huge-1 -".to_string()), "{lines:?}");
}

#[test]
fn simulate_top_limits_scores_and_summary_ends_the_output() {
    let o = example(&["--output", "json", "--top", "1", "--summary"]);
    assert!(o.status.success(), "{}", stderr(&o));
    let lines: Vec<Value> = stdout(&o).lines().map(|l| serde_json::from_str(l).expect("JSON")).collect();
    let (summary, decisions) = lines.split_last().expect("lines");
    for d in decisions {
        assert!(d["scores"].as_array().map_or(0, Vec::len) <= 1, "{d}");
        for g in d["filtered"].as_array().expect("filtered") {
            assert!(g["nodes"].as_array().map_or(0, Vec::len) <= 1, "{g}");
        }
    }
    let placed = decisions.iter().filter(|d| d["node"].is_string()).count();
    assert_eq!(summary["summary"]["placed"].as_u64(), Some(placed as u64), "{summary}");
    assert_eq!(summary["summary"]["notPlaced"].as_u64(), Some((decisions.len() - placed) as u64), "{summary}");
    assert_eq!(summary["summary"]["notPlacedByReason"]["Insufficient cpu"], 1, "{summary}");
    let nodes = summary["nodes"].as_array().expect("nodes");
    assert_eq!(nodes.len(), 4, "{summary}");
    let b1 = nodes.iter().find(|n| n["node"] == "edge-b1").expect("edge-b1");
    assert!(b1["cpuRequestedMilli"].as_i64() > Some(0) && b1["cpuRequestedMilli"].as_i64() <= b1["cpuAllocatableMilli"].as_i64());

    let o = example(&["--summary"]);
    let table = stdout(&o);
    assert!(table.contains("SUMMARY\n  placed: 5\n  not placed: 2\n"), "{table}");
    assert!(table.contains("    1 pod(s): Insufficient cpu"), "{table}");
    let o = example(&["--output", "placements", "--summary"]);
    assert!(stdout(&o).contains("SUMMARY\n  placed: 5\n"), "{}", stdout(&o));
}

const SMALL_NODES: &str = "apiVersion: v1\nkind: List\nitems:\n\
- {apiVersion: v1, kind: Node, metadata: {name: a, labels: {kubernetes.io/hostname: a}}, status: {allocatable: {cpu: \"4\", memory: 8Gi, pods: \"110\"}}}\n\
- {apiVersion: v1, kind: Node, metadata: {name: b, labels: {kubernetes.io/hostname: b}}, status: {allocatable: {cpu: \"2\", memory: 8Gi, pods: \"110\"}}}\n\
- {apiVersion: v1, kind: Node, metadata: {name: c, labels: {kubernetes.io/hostname: c}}, spec: {taints: [{key: x, effect: NoSchedule}]}, status: {allocatable: {cpu: \"8\", memory: 8Gi, pods: \"110\"}}}\n\
- {apiVersion: v1, kind: Pod, metadata: {name: old, namespace: d}, spec: {nodeName: a, containers: [{name: c, resources: {requests: {cpu: \"1\"}}}]}, status: {phase: Running}}\n";

#[test]
fn simulate_refuses_invalid_objects_naming_object_and_field() {
    let cases = [
        (
            "kind: Node\nmetadata: {name: n1}\nstatus: {allocatable: {cpu: 12abc}}\n",
            "Node n1: status.allocatable.cpu: Invalid value: \"12abc\"",
        ),
        (
            "kind: Pod\nmetadata: {name: p, namespace: d, creationTimestamp: yesterday}\nspec: {containers: [{name: c}]}\n",
            "Pod d/p: metadata.creationTimestamp: Invalid value: \"yesterday\"",
        ),
        (
            "kind: Node\nmetadata: {name: n1, labels: {zone: \"a b\"}}\n",
            "Node n1: metadata.labels[\"zone\"]: Invalid value: \"a b\"",
        ),
        (
            "kind: Node\nmetadata: {name: n1}\n---\nkind: Node\nmetadata: {name: n1}\n",
            "document 1: Node n1: metadata.name: Duplicate value",
        ),
        (
            "kind: List\nitems:\n- kind: Node\n  metadata: {name: n1}\n  spec: {unschedulable: maybe}\n",
            "items[0] (Node): spec.unschedulable",
        ),
    ];
    for (text, want) in cases {
        let file = temp_file("bad.yaml", text);
        let o = edgesched(&["simulate", "--cluster", file.to_str().expect("path")]);
        assert_eq!(o.status.code(), Some(2), "{text}: {}", stderr(&o));
        assert!(stderr(&o).contains(want), "{text}: want {want:?} in {}", stderr(&o));
        assert!(stderr(&o).contains("bad.yaml: document"), "{}", stderr(&o));
        assert!(stdout(&o).is_empty(), "nothing is simulated from a refused file: {}", stdout(&o));
    }
    // --lenient: the problem is a warning and the object is used as it is.
    let file = temp_file("lenient.yaml", &format!("{SMALL_NODES}- {{kind: Pod, metadata: {{name: p, namespace: d, creationTimestamp: yesterday}}, spec: {{containers: [{{name: c}}]}}}}\n"));
    let o = edgesched(&["simulate", "--lenient", "--cluster", file.to_str().expect("path"), "--output=placements"]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(stderr(&o).contains("warning: ") && stderr(&o).contains("metadata.creationTimestamp"), "{}", stderr(&o));
    assert!(stdout(&o).starts_with("d/p "), "{}", stdout(&o));
}

#[test]
fn simulate_what_if_adds_pods_removes_and_cordons_nodes() {
    let cluster = temp_file("small.yaml", SMALL_NODES);
    let added = temp_file(
        "add.yaml",
        "kind: Pod\nmetadata: {name: new, namespace: d}\nspec: {containers: [{name: c, resources: {requests: {cpu: \"3\"}}}]}\n",
    );
    let run = |extra: &[&str]| {
        let mut args = vec!["simulate", "--cluster", cluster.to_str().expect("path"), "--output=placements", "--seed=1"];
        args.extend_from_slice(extra);
        let o = edgesched(&args);
        assert!(o.status.success(), "{extra:?}: {}", stderr(&o));
        stdout(&o)
    };
    let add = format!("--add={}", added.display());
    // 3 cpu fits only on a (4 - 1 used); b has 2, c is tainted.
    assert_eq!(run(&[&add]), "d/new a\n");
    // Draining a: its pod and the new one are scheduled elsewhere; nothing fits 3 cpu.
    assert_eq!(run(&[&add, "--remove-node=a"]), "d/old b\nd/new -\n");
    assert_eq!(run(&[&add, "--cordon=a"]), "d/new -\n");
    let o = edgesched(&["simulate", "--cluster", cluster.to_str().expect("path"), "--cordon=zz"]);
    assert_eq!(o.status.code(), Some(2));
    assert!(stderr(&o).contains("no node named zz"), "{}", stderr(&o));
}

/// A pod of 1 cpu and 1Gi, to copy.
const WEB_POD: &str = "apiVersion: v1\nkind: Pod\nmetadata: {name: web, namespace: d}\nspec:\n  containers: [{name: c, resources: {requests: {cpu: \"1\", memory: 1Gi}}}]\n";

/// `edgesched capacity --pod POD --cluster CLUSTER OUTPUT`.
fn capacity(pod: &Path, cluster: &Path, output: &str) -> Output {
    edgesched(&["capacity", "--pod", pod.to_str().expect("path"), "--cluster", cluster.to_str().expect("path"), output])
}

#[test]
fn capacity_counts_copies_per_node_and_says_what_stops_the_next() {
    let cluster = temp_file("small.yaml", SMALL_NODES);
    let pod = temp_file("pod.yaml", WEB_POD);
    let o = capacity(&pod, &cluster, "--output=json");
    assert!(o.status.success(), "{}", stderr(&o));
    let v: Value = serde_json::from_str(stdout(&o).trim()).expect("one JSON object");
    // a: 4 cpu - 1 used = 3 copies; b: 2; c is tainted.
    assert_eq!(v["count"], 5, "{v}");
    assert_eq!(v["perNode"], serde_json::json!({"a": 3, "b": 2}), "{v}");
    let stopped = v["stoppedBy"].as_str().expect("stoppedBy");
    assert!(stopped.starts_with("0/3 nodes are available: 1 node(s) had untolerated taint(s), 2 Insufficient cpu."), "{stopped}");

    let o =
        edgesched(&["capacity", "--pod", pod.to_str().expect("path"), "--cluster", cluster.to_str().expect("path"), "--max=2"]);
    assert!(o.status.success(), "{}", stderr(&o));
    let text = stdout(&o);
    assert!(text.starts_with("2 more copies of d/web fit\n"), "{text}");
    assert!(text.contains("Stopped by: the limit of 2 copies (--max) was reached"), "{text}");

    // Memory binds first: 3Gi copies, 8Gi per node.
    let big = temp_file("big.yaml", "kind: Pod\nmetadata: {name: big}\nspec:\n  tolerations: [{key: x, operator: Exists}]\n  containers: [{name: c, resources: {requests: {memory: 3Gi}}}]\n");
    let o = edgesched(&[
        "capacity",
        "--pod",
        big.to_str().expect("path"),
        "--cluster",
        cluster.to_str().expect("path"),
        "--output=json",
    ]);
    let v: Value = serde_json::from_str(stdout(&o).trim()).expect("JSON");
    assert_eq!(v["perNode"], serde_json::json!({"a": 2, "b": 2, "c": 2}), "{v}");
    assert!(v["stoppedBy"].as_str().expect("text").contains("3 Insufficient memory"), "{v}");

    let two = temp_file("two.yaml", "kind: Pod\nmetadata: {name: a}\n---\nkind: Pod\nmetadata: {name: b}\n");
    let o = edgesched(&["capacity", "--pod", two.to_str().expect("path"), "--cluster", cluster.to_str().expect("path")]);
    assert_eq!(o.status.code(), Some(2));
    assert!(stderr(&o).contains("exactly one Pod"), "{}", stderr(&o));
}

#[test]
fn simulate_gives_each_device_once() {
    // One GPU node and two pods with claims: the first gets the device (its claim written as
    // PreBind writes it), the second finds none left, as kube-scheduler v1.35 would say.
    // The node, class and slice of ONE_GPU_NODE (its claim template is not used here).
    let cluster = temp_file(
        "gpus.yaml",
        &format!(
            "{ONE_GPU_NODE}---\n{}",
            r#"kind: ResourceClaim
apiVersion: resource.k8s.io/v1
metadata: {name: a, namespace: d, uid: uid-a, resourceVersion: "1"}
spec: {devices: {requests: [{name: gpu, exactly: {deviceClassName: gpu.example.com, allocationMode: ExactCount, count: 1}}]}}
---
kind: ResourceClaim
apiVersion: resource.k8s.io/v1
metadata: {name: b, namespace: d, uid: uid-b, resourceVersion: "1"}
spec: {devices: {requests: [{name: gpu, exactly: {deviceClassName: gpu.example.com, allocationMode: ExactCount, count: 1}}]}}
---
kind: Pod
metadata: {name: first, namespace: d, uid: uid-first, creationTimestamp: "2026-01-01T00:00:00Z"}
spec: {containers: [{name: c}], resourceClaims: [{name: gpu, resourceClaimName: a}]}
---
kind: Pod
metadata: {name: second, namespace: d, uid: uid-second, creationTimestamp: "2026-01-01T00:00:01Z"}
spec: {containers: [{name: c}], resourceClaims: [{name: gpu, resourceClaimName: b}]}
"#
        ),
    );
    let o = edgesched(&["simulate", "--cluster", cluster.to_str().expect("path"), "--output=placements", "--seed=1"]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert_eq!(stdout(&o), "d/first gpu-1\nd/second -\n");
    let o = edgesched(&["simulate", "--cluster", cluster.to_str().expect("path"), "--seed=1"]);
    assert!(stdout(&o).contains("1 cannot allocate all claims"), "{}", stdout(&o));
}

/// One GPU node with a single device and a claim template asking for one GPU.
const ONE_GPU_NODE: &str = r#"kind: Node
metadata: {name: gpu-1, labels: {kubernetes.io/hostname: gpu-1}}
status: {allocatable: {cpu: "4", memory: 8Gi, pods: "10"}}
---
kind: DeviceClass
apiVersion: resource.k8s.io/v1
metadata: {name: gpu.example.com}
spec: {selectors: [{cel: {expression: 'device.driver == "gpu.example.com"'}}]}
---
kind: ResourceSlice
apiVersion: resource.k8s.io/v1
metadata: {name: gpu-1-gpu}
spec: {driver: gpu.example.com, nodeName: gpu-1, pool: {name: gpu-1, generation: 1, resourceSliceCount: 1}, devices: [{name: gpu-0}]}
---
kind: ResourceClaimTemplate
apiVersion: resource.k8s.io/v1
metadata: {name: one-gpu, namespace: ml}
spec: {spec: {devices: {requests: [{name: gpu, exactly: {deviceClassName: gpu.example.com}}]}}}
"#;

#[test]
fn simulate_makes_claims_from_templates_and_shows_the_devices() {
    // One GPU: the first pod's claim (made from the template) gets it, the second pod's claim
    // finds none; a pod whose template does not exist waits for its claim.
    let text = format!(
        "{ONE_GPU_NODE}---
kind: Pod
metadata: {{name: infer-0, namespace: ml, uid: uid-0, creationTimestamp: \"2026-01-01T00:00:00Z\"}}
spec: {{containers: [{{name: c}}], resourceClaims: [{{name: gpu, resourceClaimTemplateName: one-gpu}}]}}
---
kind: Pod
metadata: {{name: infer-1, namespace: ml, uid: uid-1, creationTimestamp: \"2026-01-01T00:00:01Z\"}}
spec: {{containers: [{{name: c}}], resourceClaims: [{{name: gpu, resourceClaimTemplateName: one-gpu}}]}}
---
kind: Pod
metadata: {{name: lost, namespace: ml, uid: uid-2, creationTimestamp: \"2026-01-01T00:00:02Z\"}}
spec: {{containers: [{{name: c}}], resourceClaims: [{{name: gpu, resourceClaimTemplateName: no-such-template}}]}}
"
    );
    let cluster = temp_file("gpu.yaml", &text);
    let path = cluster.to_str().expect("path");
    let o = edgesched(&["simulate", "--cluster", path, "--output=json", "--seed=7"]);
    assert!(o.status.success(), "{}", stderr(&o));
    let out = stdout(&o);
    let decisions: BTreeMap<String, Value> = out
        .lines()
        .map(|l| serde_json::from_str::<Value>(l).expect("JSON"))
        .map(|d| (d["pod"].as_str().unwrap_or("").to_string(), d))
        .collect();
    let first = &decisions["ml/infer-0"];
    assert_eq!(first["node"], "gpu-1", "{out}");
    let device = &first["devices"][0];
    let claim = device["claim"].as_str().expect("claim");
    // `<pod>-<pod claim>-` and five characters of the API server's alphabet.
    assert!(claim.starts_with("ml/infer-0-gpu-") && claim.len() == "ml/infer-0-gpu-".len() + 5, "{claim}");
    assert!(claim["ml/infer-0-gpu-".len()..].chars().all(|c| "bcdfghjklmnpqrstvwxz2456789".contains(c)), "{claim}");
    assert_eq!(
        (&device["request"], &device["driver"], &device["pool"], &device["device"]),
        (&Value::from("gpu"), &Value::from("gpu.example.com"), &Value::from("gpu-1"), &Value::from("gpu-0"))
    );
    let second = &decisions["ml/infer-1"];
    assert_eq!(second["node"], Value::Null);
    assert!(second["devices"].is_null(), "no devices for an unplaced pod: {second}");
    assert!(
        second["message"].as_str().expect("message").starts_with("0/1 nodes are available: 1 cannot allocate all claims."),
        "{second}"
    );
    assert_eq!(
        decisions["ml/lost"]["message"],
        "pod \"ml/lost\": ResourceClaim not created yet (resource claim template \"no-such-template\": resourceclaimtemplate.resource.k8s.io \"no-such-template\" not found)"
    );
    // The same seed names the claims the same way; the table shows the device.
    assert_eq!(stdout(&edgesched(&["simulate", "--cluster", path, "--output=json", "--seed=7"])), out);
    let table = stdout(&edgesched(&["simulate", "--cluster", path, "--seed=7"]));
    assert!(table.contains(&format!("  device: claim {claim} request gpu: gpu.example.com/gpu-1/gpu-0\n")), "{table}");
}

#[test]
fn simulate_allocates_devices_across_classes_nodes_and_cel_selectors() {
    // tests/fixtures/dra/edge-devices.yaml: big GPUs (capacity >= 16Gi) only on edge-a, the A2
    // (attribute) and the NPU only on edge-b, the hand-written claim defaulted to one device.
    let o = edgesched(&["simulate", "--cluster", "tests/fixtures/dra/edge-devices.yaml", "--output=json", "--seed=1"]);
    assert!(o.status.success(), "{}", stderr(&o));
    let out = stdout(&o);
    let decisions: Vec<Value> = out.lines().map(|l| serde_json::from_str(l).expect("JSON")).collect();
    let got: Vec<(String, String, Vec<String>)> = decisions
        .iter()
        .map(|d| {
            let devices = d["devices"]
                .as_array()
                .map(|a| {
                    a.iter()
                        .map(|x| {
                            format!(
                                "{}={}/{}",
                                x["request"].as_str().unwrap_or(""),
                                x["pool"].as_str().unwrap_or(""),
                                x["device"].as_str().unwrap_or("")
                            )
                        })
                        .collect()
                })
                .unwrap_or_default();
            (d["pod"].as_str().unwrap_or("").to_string(), d["node"].as_str().unwrap_or("-").to_string(), devices)
        })
        .collect();
    let want = |pod: &str, node: &str, devices: &[&str]| {
        (pod.to_string(), node.to_string(), devices.iter().map(|s| s.to_string()).collect::<Vec<_>>())
    };
    assert_eq!(
        got,
        vec![
            want("ml/vision-0", "edge-a", &["gpu=edge-a/gpu-0"]),
            want("ml/speech-0", "edge-b", &["gpu=edge-b/gpu-0", "npu=edge-b-npu/npu-0"]),
            want("ml/vision-1", "edge-a", &["gpu=edge-a/gpu-1"]),
            // Every GPU is taken: no device for the last big-GPU pod nor for the defaulted claim.
            want("ml/vision-2", "-", &[]),
            want("ml/batch-0", "-", &[]),
        ],
        "{out}"
    );
    assert!(
        decisions[4]["message"].as_str().expect("message").starts_with("0/3 nodes are available: 3 cannot allocate all claims."),
        "{out}"
    );
}

#[test]
fn capacity_counts_copies_with_their_own_claims_and_stops_on_devices_or_cpu() {
    let cluster = temp_file("gpu.yaml", ONE_GPU_NODE);
    let pod = |cpu: &str| {
        temp_file(
            "pod.yaml",
            &format!("kind: Pod\nmetadata: {{name: infer, namespace: ml}}\nspec: {{containers: [{{name: c, resources: {{requests: {{cpu: \"{cpu}\"}}}}}}], resourceClaims: [{{name: gpu, resourceClaimTemplateName: one-gpu}}]}}\n"),
        )
    };
    // Devices run out first: one copy fits, and the text names the request that found no device.
    let small = pod("1");
    let o = edgesched(&[
        "capacity",
        "--cluster",
        cluster.to_str().expect("path"),
        "--pod",
        small.to_str().expect("path"),
        "--output=json",
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    let v: Value = serde_json::from_str(stdout(&o).trim()).expect("JSON");
    assert_eq!((v["count"].as_u64(), &v["perNode"]["gpu-1"]), (Some(1), &Value::from(1)), "{v}");
    let stopped = v["stoppedBy"].as_str().expect("stoppedBy");
    assert!(stopped.starts_with("0/1 nodes are available: 1 cannot allocate all claims."), "{stopped}");
    assert!(
        stopped.contains(" Devices: claim ml/infer-2-gpu-")
            && stopped.ends_with(" request gpu: no available device of class gpu.example.com matches (1 node(s))"),
        "{stopped}"
    );
    // With a second device cpu runs out first: the text is the cpu one, no devices named.
    let two_gpus = temp_file("gpus.yaml", &format!("{ONE_GPU_NODE}---\nkind: ResourceSlice\napiVersion: resource.k8s.io/v1\nmetadata: {{name: gpu-1-more}}\nspec: {{driver: gpu.example.com, nodeName: gpu-1, pool: {{name: gpu-1-more, generation: 1, resourceSliceCount: 1}}, devices: [{{name: gpu-1}}, {{name: gpu-2}}]}}\n"));
    let big = pod("3");
    let o = edgesched(&[
        "capacity",
        "--cluster",
        two_gpus.to_str().expect("path"),
        "--pod",
        big.to_str().expect("path"),
        "--output=json",
    ]);
    let v: Value = serde_json::from_str(stdout(&o).trim()).expect("JSON");
    assert_eq!(v["count"].as_u64(), Some(1), "{v}");
    let stopped = v["stoppedBy"].as_str().expect("stoppedBy");
    assert!(stopped.contains("Insufficient cpu") && !stopped.contains("Devices:"), "{stopped}");
}

/// A cluster whose decisions go through every map a tenant's names key (pods, namespaces, label
/// values, selectors, affinity terms): 36 nodes in three zones, 72 running pods with affinity
/// terms, 120 pending pods with spread constraints and affinity that tie often (same creation
/// time, same scores), some too large to fit and some high-priority ones that preempt.
fn busy_cluster() -> String {
    use serde_json::json;
    let mut items = vec![
        json!({"apiVersion": "scheduling.k8s.io/v1", "kind": "PriorityClass", "metadata": {"name": "high"}, "value": 1000}),
        json!({"apiVersion": "scheduling.k8s.io/v1", "kind": "PriorityClass", "metadata": {"name": "low"}, "value": 0, "globalDefault": true}),
    ];
    for t in 0..4 {
        items.push(json!({"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": format!("team-{t}"), "labels": {"tier": if t % 2 == 0 { "gold" } else { "iron" }}}}));
    }
    for n in 0..36 {
        let name = format!("node-{n:02}");
        let mut node = json!({
            "apiVersion": "v1", "kind": "Node",
            "metadata": {"name": name, "labels": {"kubernetes.io/hostname": name, "topology.kubernetes.io/zone": format!("zone-{}", n % 3), "rack": format!("rack-{}", n % 6)}},
            "status": {"allocatable": {"cpu": "4", "memory": "8Gi", "pods": "110"}},
        });
        if n % 9 == 0 {
            node["spec"] = json!({"taints": [{"key": "dedicated", "value": "batch", "effect": "NoSchedule"}]});
        }
        items.push(node);
    }
    for i in 0..72 {
        let app = format!("app-{}", i % 5);
        let mut spec = json!({
            "nodeName": format!("node-{:02}", (i * 7) % 36),
            "tolerations": [{"key": "dedicated", "operator": "Exists"}],
            "containers": [{"name": "c", "resources": {"requests": {"cpu": "500m", "memory": "512Mi"}}}],
        });
        if i % 3 == 0 {
            spec["affinity"] = json!({
                "podAntiAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": [{"labelSelector": {"matchLabels": {"app": app}}, "topologyKey": "kubernetes.io/hostname"}]},
                "podAffinity": {"preferredDuringSchedulingIgnoredDuringExecution": [{"weight": 10, "podAffinityTerm": {"labelSelector": {"matchExpressions": [{"key": "app", "operator": "In", "values": ["app-1", "app-2"]}]}, "topologyKey": "topology.kubernetes.io/zone", "namespaceSelector": {"matchLabels": {"tier": "gold"}}}}]},
            });
        }
        items.push(json!({
            "apiVersion": "v1", "kind": "Pod",
            "metadata": {"name": format!("run-{i}"), "namespace": format!("team-{}", i % 4), "labels": {"app": app, "shard": format!("s{}", i % 7)}},
            "spec": spec,
            "status": {"phase": "Running", "startTime": "2026-01-01T00:00:00Z"},
        }));
    }
    for i in 0..120 {
        let app = format!("app-{}", i % 5);
        let cpu = ["300m", "700m", "1500m", "5"][i % 4];
        let mut spec = json!({
            "containers": [{"name": "c", "resources": {"requests": {"cpu": cpu, "memory": "256Mi"}}}],
            "topologySpreadConstraints": [
                {"maxSkew": 1, "topologyKey": "topology.kubernetes.io/zone", "whenUnsatisfiable": "DoNotSchedule", "labelSelector": {"matchLabels": {"app": app}}},
                {"maxSkew": 2, "topologyKey": "kubernetes.io/hostname", "whenUnsatisfiable": "ScheduleAnyway", "labelSelector": {"matchLabels": {"app": app}}},
            ],
            "affinity": {"podAntiAffinity": {"preferredDuringSchedulingIgnoredDuringExecution": [{"weight": 50, "podAffinityTerm": {"labelSelector": {"matchLabels": {"app": app}}, "topologyKey": "rack"}}]}},
        });
        if i % 6 == 0 {
            spec["tolerations"] = json!([{"key": "dedicated", "operator": "Equal", "value": "batch"}]);
            spec["affinity"]["podAffinity"] = json!({"requiredDuringSchedulingIgnoredDuringExecution": [{"labelSelector": {"matchLabels": {"app": "app-0"}}, "topologyKey": "topology.kubernetes.io/zone", "namespaceSelector": {}}]});
        }
        if i % 17 == 0 {
            spec["priorityClassName"] = json!("high");
            spec["containers"][0]["resources"]["requests"]["cpu"] = json!("3500m");
        }
        items.push(json!({
            "apiVersion": "v1", "kind": "Pod",
            "metadata": {"name": format!("pend-{i}"), "namespace": format!("team-{}", i % 4), "labels": {"app": app}, "creationTimestamp": "2026-01-01T01:00:00Z"},
            "spec": spec,
        }));
    }
    json!({"apiVersion": "v1", "kind": "List", "items": items}).to_string()
}

/// Every map keyed by tenant-chosen text is seeded per process, so each run iterates them in a
/// different order: the same `simulate --seed` must still print the same bytes.
#[test]
fn simulate_output_does_not_depend_on_the_processes_hash_seeds() {
    let cluster = temp_file("busy.json", &busy_cluster());
    let run = |output: &str| {
        let o = edgesched(&[
            "simulate",
            "--cluster",
            cluster.to_str().expect("path"),
            "--seed=3",
            "--top=0",
            "--summary",
            "--summary-nodes=0",
            &format!("--output={output}"),
        ]);
        assert!(o.status.success(), "{}", stderr(&o));
        o.stdout
    };
    for output in ["json", "table"] {
        let first = run(output);
        let placed = String::from_utf8_lossy(&first).matches("node-").count();
        assert!(placed > 100, "the simulation places pods and scores nodes: {}", String::from_utf8_lossy(&first));
        for _ in 0..3 {
            let again = run(output);
            assert!(again == first, "{output} output differs between processes:\n{}\n---\n{}", text_of(&first), text_of(&again));
        }
    }
}

fn text_of(b: &[u8]) -> String {
    String::from_utf8_lossy(b).into_owned()
}

/// A cluster file of running pods in each in-place resize state (`status.containerStatuses`
/// as the kubelet writes them, the `PodResizePending` / `PodResizeInProgress` conditions).
const RESIZING_CLUSTER: &str = r#"
apiVersion: v1
kind: List
items:
- {apiVersion: v1, kind: Node, metadata: {name: n1}, status: {allocatable: {cpu: "4", memory: 8Gi, pods: "110"}}}
- {apiVersion: v1, kind: Node, metadata: {name: n2}, status: {allocatable: {cpu: "4", memory: 8Gi, pods: "110"}}}
- {apiVersion: v1, kind: Node, metadata: {name: n3}, status: {allocatable: {cpu: "4", memory: 8Gi, pods: "110"}}}
# Resized down from 3 cpu to 1, admitted, not yet actuated: counts 3.
- apiVersion: v1
  kind: Pod
  metadata: {name: shrinking, namespace: default}
  spec:
    nodeName: n1
    containers: [{name: app, image: app, resources: {requests: {cpu: "1"}}}]
  status:
    phase: Running
    conditions: [{type: PodResizeInProgress, status: "True"}]
    containerStatuses:
    - {name: app, ready: true, allocatedResources: {cpu: "1"}, resources: {requests: {cpu: "3"}}}
# Resized up from 1 cpu to 3, deferred by the kubelet: counts 3.
- apiVersion: v1
  kind: Pod
  metadata: {name: growing-deferred, namespace: default}
  spec:
    nodeName: n2
    containers: [{name: app, image: app, resources: {requests: {cpu: "3"}}}]
  status:
    phase: Running
    conditions: [{type: PodResizePending, status: "True", reason: Deferred}]
    containerStatuses:
    - {name: app, ready: true, allocatedResources: {cpu: "1"}, resources: {requests: {cpu: "1"}}}
# Resized up from 1 cpu to 3, infeasible on its node: counts 1.
- apiVersion: v1
  kind: Pod
  metadata: {name: growing-infeasible, namespace: default}
  spec:
    nodeName: n3
    containers: [{name: app, image: app, resources: {requests: {cpu: "3"}}}]
  status:
    phase: Running
    conditions: [{type: PodResizePending, status: "True", reason: Infeasible}]
    containerStatuses:
    - {name: app, ready: true, allocatedResources: {cpu: "1"}, resources: {requests: {cpu: "1"}}}
- apiVersion: v1
  kind: Pod
  metadata: {name: first, namespace: default, creationTimestamp: "2026-01-01T00:00:01Z"}
  spec:
    schedulerName: edgesched
    containers: [{name: app, image: app, resources: {requests: {cpu: "2"}}}]
- apiVersion: v1
  kind: Pod
  metadata: {name: second, namespace: default, creationTimestamp: "2026-01-01T00:00:02Z"}
  spec:
    schedulerName: edgesched
    containers: [{name: app, image: app, resources: {requests: {cpu: "2"}}}]
"#;

/// `simulate` counts resizing pods as the live scheduler does: the only node with 2 cpu free is
/// the one whose pod's resize is infeasible, and once the first pod takes it the second fits
/// nowhere.
#[test]
fn simulate_counts_resizing_pods_as_kube_scheduler_does() {
    let cluster = temp_file("resizing.yaml", RESIZING_CLUSTER);
    let cluster_path = cluster.to_str().expect("utf-8 path");
    let o = edgesched(&["simulate", "--config", "examples/config.yaml", "--cluster", cluster_path, "--output", "placements"]);
    assert!(o.status.success(), "{}", stderr(&o));
    let lines: Vec<String> = stdout(&o).lines().map(str::to_string).collect();
    assert_eq!(lines, ["default/first n3", "default/second -"], "{}", stderr(&o));
}

/// Text as the HTML page escapes it.
fn html_text(s: &str) -> String {
    s.replace('&', "&amp;").replace('<', "&lt;").replace('>', "&gt;").replace('"', "&quot;").replace('\'', "&#39;")
}

/// The example's nodes, as the JSON summary lists them.
fn example_nodes() -> Vec<String> {
    let o = example(&["--output", "json", "--summary"]);
    let summary: Value = serde_json::from_str(stdout(&o).lines().last().expect("summary line")).expect("JSON");
    summary["nodes"].as_array().expect("nodes").iter().map(|n| n["node"].as_str().expect("name").to_string()).collect()
}

/// `simulate --output html` on the example: one page with every node (one `node-bar` each, in
/// its zone), every pod and where it went, the reasons of the pods that did not fit, and the
/// chosen node's per-plugin scores — the same facts as `--output json`.
#[test]
fn simulate_html_shows_the_example_cluster() {
    let o = example(&["--output", "html"]);
    assert!(o.status.success(), "{}", stderr(&o));
    let page = stdout(&o);
    assert!(page.starts_with("<!DOCTYPE html>\n") && page.ends_with("</html>\n"), "{page}");
    assert!(!page.contains("<script") && !page.contains("http://") && !page.contains("https://"), "self-contained, no script");
    let nodes = example_nodes();
    assert_eq!(page.matches(r#"<g class="node-bar""#).count(), nodes.len(), "one bar per node");
    for node in &nodes {
        assert!(page.contains(&format!(r#"data-node="{}""#, html_text(node))), "{node}");
    }
    for zone in ["zone-a", "zone-b"] {
        assert_eq!(page.matches(&format!(r#"<details class="zone" data-zone="{zone}" open>"#)).count(), 1, "{zone}");
    }
    for d in simulate_json("1") {
        let pod = d["pod"].as_str().expect("pod");
        let to = match (d.get("skipped"), d["node"].as_str()) {
            (Some(_), _) => "skipped",
            (None, Some(node)) => node,
            (None, None) => "unschedulable",
        };
        let headline = format!(r#"<span class="name">{}</span> → <span class="to">{}</span>"#, html_text(pod), html_text(to));
        assert!(page.contains(&headline), "{headline}");
        for g in d["filtered"].as_array().expect("filtered") {
            let reason = g["reason"].as_str().expect("reason");
            assert!(page.contains(&format!("{} node(s): {}: ", g["count"], html_text(reason))), "{pod}: {reason}");
        }
        if let Some(node) = d["node"].as_str() {
            if let Some(chosen) = d["scores"].as_array().expect("scores").iter().find(|s| s["node"] == node) {
                let mut hover = format!("{node}: total {}", chosen["total"]);
                for (plugin, score) in chosen["plugins"].as_object().expect("plugins") {
                    hover.push_str(&format!("\n{plugin} {score}"));
                }
                assert!(page.contains(&format!(r#"<summary title="{}">"#, html_text(&hover))), "{pod}: scores on hover");
            }
        }
    }
    // The summary groups the reasons of the pods not placed.
    assert!(page.contains("placed: 5, not placed: 2"), "{page}");
    assert!(page.contains("<tr><td>1 pod(s)</td><td>Insufficient cpu</td></tr>"), "{page}");
}

/// `--output html` is for `simulate` and `capacity`; the other commands refuse it as usage.
#[test]
fn html_output_is_for_simulate_and_capacity_only() {
    let cluster = temp_file("small.yaml", SMALL_NODES);
    let pod = temp_file("pod.yaml", WEB_POD);
    let o = capacity(&pod, &cluster, "--output=html");
    assert!(o.status.success(), "{}", stderr(&o));
    let page = stdout(&o);
    assert!(page.contains("5 more copies of d/web fit"), "{page}");
    assert!(
        page.contains("Stopped by: 0/3 nodes are available: 1 node(s) had untolerated taint(s), 2 Insufficient cpu."),
        "{page}"
    );
    assert!(page.contains("<li>2 node(s): Insufficient cpu: a, b</li>"), "grouped reasons of the next copy: {page}");
    assert_eq!(page.matches(r#"<g class="node-bar""#).count(), 3);
    assert!(page.contains("<tr><td>a</td><td>3</td></tr><tr><td>b</td><td>2</td></tr>"), "{page}");
    assert!(page.contains(&format!(r#"<details class="zone" data-zone="{}" open>"#, html_text("(no zone label)"))), "{page}");
    for args in [vec!["explain", "--all-pending", "--output=html"], vec!["status", "--output", "html"]] {
        let o = edgesched(&args);
        assert_eq!(o.status.code(), Some(2), "{args:?}");
        assert!(stderr(&o).contains(&format!("--output html is for simulate and capacity, not {}", args[0])), "{}", stderr(&o));
    }
    let o = edgesched(&["simulate", "--help"]);
    assert!(stdout(&o).contains("table|json|placements|html"), "{}", stdout(&o));
}

/// Names, labels and reasons a cluster file controls are text on the page, never markup
/// (`--lenient` lets names through that the API server would refuse).
#[test]
fn simulate_html_escapes_hostile_names() {
    let cluster = temp_file(
        "hostile.yaml",
        "apiVersion: v1\nkind: List\nitems:\n\
- {apiVersion: v1, kind: Node, metadata: {name: '<script>alert(1)</script>', labels: {topology.kubernetes.io/zone: 'a\"b&c'}}, status: {allocatable: {cpu: \"4\", memory: 8Gi, pods: \"110\"}}}\n\
- {apiVersion: v1, kind: Pod, metadata: {name: \"x'<img src=y>\", namespace: d}, spec: {containers: [{name: c, resources: {requests: {cpu: \"1\"}}}]}}\n\
- {apiVersion: v1, kind: Pod, metadata: {name: 'big&<b>', namespace: d}, spec: {containers: [{name: c, resources: {requests: {cpu: \"8\"}}}]}}\n",
    );
    let o = edgesched(&["simulate", "--lenient", "--cluster", cluster.to_str().expect("path"), "--output=html", "--seed=1"]);
    assert!(o.status.success(), "{}", stderr(&o));
    let page = stdout(&o);
    for markup in ["<script", "<img", "<b>"] {
        assert!(!page.contains(markup), "{markup} became markup: {page}");
    }
    assert!(page.contains(r#"data-node="&lt;script&gt;alert(1)&lt;/script&gt;""#), "{page}");
    assert!(page.contains(r#"data-zone="a&quot;b&amp;c""#), "{page}");
    assert!(
        page.contains("d/x&#39;&lt;img src=y&gt;</span> → <span class=\"to\">&lt;script&gt;alert(1)&lt;/script&gt;"),
        "{page}"
    );
    assert!(page.contains("d/big&amp;&lt;b&gt;</span> → <span class=\"to\">unschedulable</span>"), "{page}");
}

/// On a cluster with ResourceSlices the nodes show their devices before and after.
#[test]
fn simulate_html_shows_devices_where_the_cluster_has_them() {
    let o = edgesched(&["simulate", "--cluster", "tests/fixtures/dra/edge-devices.yaml", "--output=html", "--seed=1"]);
    assert!(o.status.success(), "{}", stderr(&o));
    let page = stdout(&o);
    assert!(page.contains(">devices</text>"), "{page}");
    // edge-a publishes two GPUs, edge-c none.
    assert!(page.contains("\ndevices 0/2 (0%) → "), "{page}");
    assert!(page.contains("\ndevices 0/0 (0%) → 0/0 (0%)"), "{page}");
    assert_eq!(page.matches(r#"<g class="node-bar""#).count(), 3);
}

/// The example's page as a browser renders it (headless Chromium's DOM): the text is there and
/// the SVG has one `node-bar` per node. Needs `chromium`; `.ci/run` installs it and runs this.
#[test]
#[ignore = "needs chromium (Debian package); .ci/run runs it"]
fn simulate_html_renders_in_chromium() {
    let o = example(&["--output", "html"]);
    assert!(o.status.success(), "{}", stderr(&o));
    let page = temp_file("example.html", &stdout(&o));
    let dom = Command::new(std::env::var("EDGESCHED_CHROMIUM").unwrap_or_else(|_| "chromium".into()))
        .args(["--headless", "--no-sandbox", "--disable-gpu", "--dump-dom"])
        .arg(format!("file://{}", page.display()))
        .output()
        .expect("run chromium");
    assert!(dom.status.success(), "chromium: {}", stderr(&dom));
    let dom = stdout(&dom);
    let nodes = example_nodes();
    assert_eq!(dom.matches(r#"class="node-bar""#).count(), nodes.len(), "{dom}");
    for text in
        ["Nodes by zone", "zone-a: 3 node(s)", "edge/huge-1", "unschedulable", "Insufficient cpu", "placed: 5, not placed: 2"]
    {
        assert!(dom.contains(text), "{text} not in the rendered page: {dom}");
    }
    for node in &nodes {
        assert!(dom.contains(&format!(r#"data-node="{node}""#)), "{node}");
    }
}

/// A profile with GangScheduling (the what-if commands take it from the configuration: they
/// have no `--feature-gates`), one node with `cpu` CPUs, a gang of three one-CPU pods
/// (minCount 3) and, created after them, a single-pod group.
fn gang_files(cpu: &str) -> (TempFile, TempFile) {
    let config = temp_file(
        &format!("gang-config-{cpu}.yaml"),
        "apiVersion: kubescheduler.config.k8s.io/v1\nkind: KubeSchedulerConfiguration\nprofiles:\n- schedulerName: edgesched\n  plugins:\n    multiPoint:\n      enabled: [{name: GangScheduling}]\n",
    );
    let mut cluster = format!(
        "kind: Node\nmetadata: {{name: n1, labels: {{kubernetes.io/hostname: n1}}}}\nstatus: {{allocatable: {{cpu: \"{cpu}\", memory: 4Gi, pods: \"10\"}}}}\n"
    );
    for (name, min) in [("train", 3), ("small", 1)] {
        cluster += &format!("---\napiVersion: scheduling.k8s.io/v1alpha1\nkind: Workload\nmetadata: {{name: {name}, namespace: d}}\nspec: {{podGroups: [{{name: workers, policy: {{gang: {{minCount: {min}}}}}}}]}}\n");
    }
    for (i, (pod, workload)) in [("w0", "train"), ("w1", "train"), ("w2", "train"), ("solo", "small")].iter().enumerate() {
        cluster += &format!(
            "---\nkind: Pod\nmetadata: {{name: {pod}, namespace: d, creationTimestamp: \"2026-01-01T00:00:0{i}Z\"}}\nspec: {{schedulerName: edgesched, workloadRef: {{name: {workload}, podGroup: workers}}, containers: [{{name: c, resources: {{requests: {{cpu: \"1\"}}}}}}]}}\n"
        );
    }
    (config, temp_file(&format!("gang-cluster-{cpu}.yaml"), &cluster))
}

#[test]
fn simulate_places_a_gang_all_or_nothing() {
    let run = |cpu: &str, output: &str| {
        let (config, cluster) = gang_files(cpu);
        let o = edgesched(&[
            "simulate",
            "--config",
            config.to_str().expect("path"),
            "--cluster",
            cluster.to_str().expect("path"),
            output,
            "--seed=1",
        ]);
        assert!(o.status.success(), "{}", stderr(&o));
        stdout(&o)
    };
    // Room for four: the gang and the single pod.
    let mut lines: Vec<String> = run("4", "--output=placements").lines().map(str::to_string).collect();
    lines.sort();
    assert_eq!(lines, ["d/solo n1", "d/w0 n1", "d/w1 n1", "d/w2 n1"]);
    // Room for two: two gang pods wait at Permit for the third, which fits nowhere; when their
    // wait runs out none of the gang is placed and its room goes to the single pod.
    let mut lines: Vec<String> = run("2", "--output=placements").lines().map(str::to_string).collect();
    lines.sort();
    assert_eq!(lines, ["d/solo n1", "d/w0 -", "d/w1 -", "d/w2 -"]);
    let table = run("2", "--output=table");
    assert!(table.contains("rejected due to timeout after waiting 5m0s at plugin GangScheduling"), "{table}");
}
