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
        let filtered = d["filtered"].as_object().expect("filtered");
        for (node, reason) in filtered {
            assert!(!reason.as_str().unwrap_or("").is_empty(), "{pod}: empty reason for {node}");
        }
        let scores = d["scores"].as_object().expect("scores");
        for (node, s) in scores {
            let plugins = s["plugins"].as_object().expect("plugins");
            let mut weighted = 0;
            for (plugin, v) in plugins {
                let v = v.as_i64().expect("integer score");
                assert!((0..=100).contains(&v), "{pod} {node} {plugin}: normalised score {v} outside 0..=100");
                weighted += v * default_weight(plugin);
            }
            assert_eq!(s["total"].as_i64(), Some(weighted), "{pod} {node}: total is the weighted sum");
            assert!(!filtered.contains_key(node), "{pod}: {node} both filtered and scored");
        }
        match d["node"].as_str() {
            Some(node) => {
                placed += 1;
                assert_eq!(d["message"], format!("Successfully assigned {pod} to {node}"));
                if !scores.is_empty() {
                    let best = scores.values().filter_map(|s| s["total"].as_i64()).max();
                    assert_eq!(scores[node]["total"].as_i64(), best, "{pod}: the chosen node has the highest total");
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
    let o = edgesched(&["simulate", "--config", "examples/config.yaml"]);
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
