//! Replay of kube-scheduler's scheduler_perf workloads (`performance-config.yaml` and
//! `templates/` beside this file): the same ops at the same sizes, decided in process by the
//! scheduler core and end to end by the shipped binary against the test API server. The metric is
//! upstream's `SchedulingThroughput`: measured pods per second while they are being scheduled.

use super::{decode, launch, median, start_server, thread_cpu_ns, wait_synced, SCHEDULER};
use edgesched::core::api;
use edgesched::core::scheduler::{BindOutcome, Effect, Input};
use edgesched::core::watched::Change;
use serde_json::{json, Value};
use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

/// One op of a workload, with its objects' templates loaded.
#[derive(Debug, Clone)]
pub enum Op {
    /// `createNodes`; `label` is upstream's `labelNodePrepareStrategy` (key, values).
    Nodes { count: usize, template: Value, label: Option<(String, Vec<String>)> },
    /// `createNamespaces`: `{prefix}-0` … `{prefix}-{count-1}`.
    Namespaces { prefix: String, count: usize },
    /// `createAny` (here: Services).
    Any { namespace: String, object: Value },
    /// `createPods`; upstream waits until they are scheduled before the next op (the barrier).
    Pods { count: usize, namespace: String, template: Value, measured: bool },
}

/// A test case's workload with its parameters applied.
#[derive(Debug, Clone)]
pub struct Workload {
    /// `TestCase/workload`, as upstream names the benchmark.
    pub name: String,
    /// Upstream's minimum accepted SchedulingThroughput (pods/s).
    pub threshold: Option<f64>,
    pub ops: Vec<Op>,
}

impl Workload {
    pub fn nodes(&self) -> usize {
        self.ops.iter().map(|o| if let Op::Nodes { count, .. } = o { *count } else { 0 }).sum()
    }

    /// Pods created before the measured ones (`init`) and measured pods.
    pub fn pods(&self) -> (usize, usize) {
        let mut init = 0;
        let mut measured = 0;
        for o in &self.ops {
            if let Op::Pods { count, measured: m, .. } = o {
                if *m {
                    measured += count;
                } else {
                    init += count;
                }
            }
        }
        (init, measured)
    }
}

/// The folder holding `performance-config.yaml` and `templates/`.
pub fn dir() -> PathBuf {
    super::manifest_dir().join("benches/workloads")
}

fn read_yaml(path: &Path) -> Value {
    let text = std::fs::read_to_string(path).unwrap_or_else(|e| panic!("read {}: {e}", path.display()));
    serde_saphyr::from_str::<Value>(&text).unwrap_or_else(|e| panic!("parse {}: {e}", path.display()))
}

/// Every workload of the config; `smoke` divides each `countParam` by 500 (at least 2).
pub fn load(dir: &Path, smoke: bool) -> Vec<Workload> {
    let cases = read_yaml(&dir.join("performance-config.yaml"));
    let mut out = Vec::new();
    for case in cases.as_array().expect("a list of test cases") {
        let case_name = case["name"].as_str().expect("test case name");
        let default_pod = case["defaultPodTemplatePath"].as_str();
        for w in case["workloads"].as_array().expect("workloads") {
            let param = |op: &Value| -> usize {
                if let Some(n) = op["count"].as_u64() {
                    return n as usize;
                }
                let name = op["countParam"].as_str().expect("count or countParam").trim_start_matches('$');
                let n = w["params"][name].as_u64().unwrap_or_else(|| panic!("{case_name}: no param {name}")) as usize;
                if smoke {
                    (n / 500).max(2)
                } else {
                    n
                }
            };
            let mut ops = Vec::new();
            for (i, op) in case["workloadTemplate"].as_array().expect("workloadTemplate").iter().enumerate() {
                // Upstream names an op's namespace after its index when none is given.
                let namespace = op["namespace"].as_str().map(str::to_string).unwrap_or_else(|| format!("namespace-{i}"));
                ops.push(match op["opcode"].as_str().unwrap_or("") {
                    "createNodes" => Op::Nodes {
                        count: param(op),
                        template: read_yaml(&dir.join(op["nodeTemplatePath"].as_str().unwrap_or("templates/node-default.yaml"))),
                        label: op.get("labelNodePrepareStrategy").map(|s| {
                            let key = s["labelKey"].as_str().unwrap_or("").to_string();
                            let values = s["labelValues"].as_array().into_iter().flatten();
                            (key, values.filter_map(|v| v.as_str().map(str::to_string)).collect())
                        }),
                    },
                    "createNamespaces" => {
                        Op::Namespaces { prefix: op["prefix"].as_str().unwrap_or("ns").to_string(), count: param(op) }
                    }
                    "createAny" => {
                        Op::Any { namespace, object: read_yaml(&dir.join(op["templatePath"].as_str().expect("templatePath"))) }
                    }
                    "createPods" => {
                        let path = op["podTemplatePath"].as_str().or(default_pod).unwrap_or("templates/pod-default.yaml");
                        Op::Pods {
                            count: param(op),
                            namespace,
                            template: read_yaml(&dir.join(path)),
                            measured: op["collectMetrics"].as_bool().unwrap_or(false),
                        }
                    }
                    other => panic!("{case_name}: op {other} is not replayed"),
                });
            }
            out.push(Workload {
                name: format!("{case_name}/{}", w["name"].as_str().unwrap_or("")),
                threshold: w["threshold"].as_f64(),
                ops,
            });
        }
    }
    out
}

/// Node `i` of a `createNodes` op: named after `generateName`, labelled by the prepare strategy
/// (round robin over the values), allocatable defaulted from capacity as kube-apiserver does
/// (`SetDefaults_NodeStatus`).
fn node_object(template: &Value, label: &Option<(String, Vec<String>)>, i: usize) -> Value {
    let mut n = template.clone();
    if n["metadata"]["name"].as_str().is_none() {
        let prefix = n["metadata"]["generateName"].as_str().unwrap_or("node-").to_string();
        n["metadata"]["name"] = json!(format!("{prefix}{i:05}"));
    }
    if let Some(m) = n["metadata"].as_object_mut() {
        m.remove("generateName");
    }
    if let Some((key, values)) = label {
        if !values.is_empty() {
            n["metadata"]["labels"][key.as_str()] = json!(values[i % values.len()]);
        }
    }
    if n["status"]["allocatable"].is_null() {
        n["status"]["allocatable"] = n["status"]["capacity"].clone();
    }
    n
}

/// Pod `i` of a `createPods` op, for our scheduler.
fn pod_object(template: &Value, namespace: &str, i: usize) -> Value {
    let mut p = template.clone();
    let prefix = p["metadata"]["generateName"].as_str().unwrap_or("pod-").to_string();
    p["metadata"]["name"] = json!(format!("{prefix}{i:06}"));
    p["metadata"]["namespace"] = json!(namespace);
    if let Some(m) = p["metadata"].as_object_mut() {
        m.remove("generateName");
    }
    p["spec"]["schedulerName"] = json!(SCHEDULER);
    p
}

fn namespace_object(name: &str) -> Value {
    json!({"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": name}})
}

fn named(obj: &Value, namespace: &str, i: usize) -> Value {
    let mut o = obj.clone();
    let prefix = o["metadata"]["generateName"].as_str().unwrap_or("obj-").to_string();
    o["metadata"]["name"] = json!(format!("{prefix}{i}"));
    o["metadata"]["namespace"] = json!(namespace);
    if let Some(m) = o["metadata"].as_object_mut() {
        m.remove("generateName");
    }
    o
}

/// What one mode measured.
#[derive(Debug, Clone, Default)]
pub struct Measured {
    /// Measured pods per second (upstream's SchedulingThroughput average).
    pub pods_per_sec: f64,
    /// Measured pods per CPU-second of the scheduling thread (in process only).
    pub pods_per_cpu_sec: f64,
    /// Measured pods that were scheduled (all of them unless the workload cannot fit).
    pub scheduled: usize,
    pub seconds: f64,
}

/// In process: the scheduler core handles the watch events, schedules, and gets the bindings
/// confirmed (BindDone, then the pod seen bound), as the scheduler thread would.
pub fn decision(w: &Workload) -> Measured {
    let mut now = Instant::now();
    let mut sched = super::bench_scheduler(now);
    sched.handle(Input::watch_boxed::<api::Node>(Change::ListBegin), now);
    sched.handle(Input::watch_boxed::<api::Node>(Change::ListPage(Vec::new())), now);
    sched.handle(Input::watch_boxed::<api::Node>(Change::ListDone), now);
    sched.handle(Input::watch_boxed::<api::Pod>(Change::ListBegin), now);
    sched.handle(Input::watch_boxed::<api::Pod>(Change::ListPage(Vec::new())), now);
    sched.handle(Input::watch_boxed::<api::Pod>(Change::ListDone), now);
    sched.handle(Input::Leading(true), now);
    let mut result = Measured::default();
    let (mut nodes, mut pods) = (0usize, 0usize);
    for op in &w.ops {
        match op {
            Op::Nodes { count, template, label } => {
                for _ in 0..*count {
                    let n: api::Node = decode(node_object(template, label, nodes));
                    nodes += 1;
                    sched.handle(Input::watch_boxed::<api::Node>(Change::Added(Box::new(n))), now);
                }
            }
            Op::Namespaces { prefix, count } => {
                for i in 0..*count {
                    let ns: api::Namespace = decode(namespace_object(&format!("{prefix}-{i}")));
                    sched.handle(Input::watch::<api::Namespace>(Change::Added(ns)), now);
                }
            }
            Op::Any { namespace, object } => {
                let s: api::Service = decode(named(object, namespace, 0));
                sched.handle(Input::watch::<api::Service>(Change::Added(s)), now);
            }
            Op::Pods { count, namespace, template, measured } => {
                // Decoding is the API server's and the informer's work, not the decision's.
                let objs: Vec<api::Pod> = (0..*count).map(|i| decode(pod_object(template, namespace, pods + i))).collect();
                pods += count;
                let mut pending: HashMap<String, api::Pod> =
                    objs.iter().map(|p| (format!("{}/{}", p.metadata.namespace, p.metadata.name), p.clone())).collect();
                let (t0, c0) = (Instant::now(), thread_cpu_ns());
                for p in objs {
                    now += Duration::from_micros(1);
                    sched.handle(Input::watch_boxed::<api::Pod>(Change::Added(Box::new(p))), now);
                }
                let mut scheduled = 0usize;
                loop {
                    now += Duration::from_micros(10);
                    if sched.schedule_one(now, edgesched::core::framework::cycle::Explain::Off).is_none() {
                        break;
                    }
                    for e in sched.take_effects() {
                        if let Effect::Bind(b) = e {
                            let key = b.pod.key.clone();
                            let node = b.node.clone();
                            sched.handle(Input::BindDone(BindOutcome { key: key.clone(), node: b.node, result: Ok(()) }), now);
                            if let Some(mut p) = pending.remove(&*key) {
                                p.spec.node_name = node.to_string();
                                sched.handle(Input::watch_boxed::<api::Pod>(Change::Modified(Box::new(p))), now);
                                scheduled += 1;
                            }
                        }
                    }
                }
                if *measured {
                    let dt = t0.elapsed().as_secs_f64();
                    let dc = thread_cpu_ns().saturating_sub(c0) as f64 / 1e9;
                    result.scheduled += scheduled;
                    result.seconds += dt;
                    result.pods_per_sec = result.scheduled as f64 / result.seconds.max(1e-9);
                    result.pods_per_cpu_sec = scheduled as f64 / dc.max(1e-9);
                }
            }
        }
    }
    result
}

/// End to end: the test API server, the shipped binary, the same objects created through the
/// API; the measured rate is measured pods over the time from their first create to their last
/// binding.
pub fn e2e(w: &Workload) -> Measured {
    let server = start_server();
    let mut es = None;
    let mut result = Measured::default();
    let (mut nodes, mut pods) = (0usize, 0usize);
    for op in &w.ops {
        match op {
            Op::Nodes { count, template, label } => {
                for _ in 0..*count {
                    server.create("/api/v1/nodes", node_object(template, label, nodes));
                    nodes += 1;
                }
            }
            Op::Namespaces { prefix, count } => {
                for i in 0..*count {
                    server.create("/api/v1/namespaces", namespace_object(&format!("{prefix}-{i}")));
                }
            }
            Op::Any { namespace, object } => {
                let kind = object["kind"].as_str().unwrap_or("Service").to_lowercase();
                server.create(&format!("/api/v1/namespaces/{namespace}/{kind}s"), named(object, namespace, 0));
            }
            Op::Pods { count, namespace, template, measured } => {
                if es.is_none() {
                    let started = launch(&server, Some((100_000, 100_000)));
                    wait_synced(&started, Duration::from_secs(120));
                    es = Some(started);
                }
                let objs: Vec<Value> = (0..*count).map(|i| pod_object(template, namespace, pods + i)).collect();
                pods += count;
                let path = format!("/api/v1/namespaces/{namespace}/pods");
                let before = server.total_bindings();
                let t0 = Instant::now();
                for o in objs {
                    server.create(&path, o);
                }
                // The barrier: this op's pods are bound (or the time is up).
                let limit = Duration::from_secs(120 + *count as u64 / 50);
                while server.total_bindings() < before + count && t0.elapsed() < limit {
                    std::thread::sleep(Duration::from_millis(2));
                }
                let dt = t0.elapsed().as_secs_f64();
                let bound = server.total_bindings().saturating_sub(before);
                if bound < *count {
                    eprintln!("  {}: only {bound} of {count} pods bound after {limit:?}", w.name);
                }
                if *measured {
                    result.scheduled += bound;
                    result.seconds += dt;
                    result.pods_per_sec = result.scheduled as f64 / result.seconds.max(1e-9);
                }
            }
        }
    }
    drop(es);
    result
}

/// One workload's row: both modes, median over `runs`.
#[derive(Debug, Clone)]
pub struct Row {
    pub name: String,
    pub nodes: usize,
    pub init_pods: usize,
    pub measured_pods: usize,
    pub threshold: Option<f64>,
    pub decision: Measured,
    pub e2e: Option<Measured>,
}

fn median_of(mut runs: Vec<Measured>) -> Measured {
    let mut rates: Vec<f64> = runs.iter().map(|m| m.pods_per_sec).collect();
    let m = median(&mut rates);
    runs.sort_by(|a, b| (a.pods_per_sec - m).abs().total_cmp(&(b.pods_per_sec - m).abs()));
    runs.into_iter().next().unwrap_or_default()
}

/// Run every workload (whose name contains `filter`) in process and, with `e2e`, end to end.
pub fn run(smoke: bool, runs: usize, e2e_too: bool, filter: Option<&str>) -> Vec<Row> {
    let mut rows = Vec::new();
    for w in load(&dir(), smoke) {
        if filter.is_some_and(|f| !w.name.contains(f)) {
            continue;
        }
        let (init, measured) = w.pods();
        eprintln!("workload {}: {} nodes, {init} init pods, {measured} measured", w.name, w.nodes());
        let decision = median_of((0..runs).map(|_| decision(&w)).collect());
        eprintln!("  in process: {:.0} pods/s ({} scheduled)", decision.pods_per_sec, decision.scheduled);
        let e2e = e2e_too.then(|| median_of((0..runs.min(3)).map(|_| e2e(&w)).collect()));
        if let Some(e) = &e2e {
            eprintln!("  end to end: {:.0} pods/s ({} scheduled)", e.pods_per_sec, e.scheduled);
        }
        rows.push(Row {
            name: w.name.clone(),
            nodes: w.nodes(),
            init_pods: init,
            measured_pods: measured,
            threshold: w.threshold,
            decision,
            e2e,
        });
    }
    rows
}

fn ratio(rate: f64, threshold: Option<f64>) -> Option<f64> {
    threshold.filter(|t| *t > 0.0).map(|t| (rate / t * 10.0).round() / 10.0)
}

/// The table printed after a run.
pub fn table(rows: &[Row]) -> String {
    let mut s = format!(
        "{:<53} {:>6} {:>6} {:>7} {:>9} {:>10} {:>7} {:>10} {:>7}\n",
        "workload", "nodes", "init", "measure", "threshold", "in-proc/s", "ratio", "e2e/s", "ratio"
    );
    for r in rows {
        let t = r.threshold.map_or("-".into(), |t| format!("{t:.0}"));
        let fmt_ratio = |x: Option<f64>| x.map_or("-".into(), |x| format!("{x:.1}x"));
        let (e, er) = match &r.e2e {
            Some(e) => (format!("{:.0}", e.pods_per_sec), fmt_ratio(ratio(e.pods_per_sec, r.threshold))),
            None => ("-".into(), "-".into()),
        };
        s += &format!(
            "{:<53} {:>6} {:>6} {:>7} {:>9} {:>10.0} {:>7} {:>10} {:>7}\n",
            r.name,
            r.nodes,
            r.init_pods,
            r.measured_pods,
            t,
            r.decision.pods_per_sec,
            fmt_ratio(ratio(r.decision.pods_per_sec, r.threshold)),
            e,
            er
        );
    }
    s
}

/// The rows as JSON for results files.
pub fn to_json(rows: &[Row]) -> Value {
    Value::Array(
        rows.iter()
            .map(|r| {
                json!({
                    "workload": r.name, "nodes": r.nodes, "init_pods": r.init_pods, "measured_pods": r.measured_pods,
                    "upstream_threshold": r.threshold,
                    "decision_pods_per_sec": r.decision.pods_per_sec.round(),
                    "decision_pods_per_cpu_sec": r.decision.pods_per_cpu_sec.round(),
                    "decision_scheduled": r.decision.scheduled,
                    "decision_ratio": ratio(r.decision.pods_per_sec, r.threshold),
                    "e2e_pods_per_sec": r.e2e.as_ref().map(|e| e.pods_per_sec.round()),
                    "e2e_scheduled": r.e2e.as_ref().map(|e| e.scheduled),
                    "e2e_ratio": r.e2e.as_ref().and_then(|e| ratio(e.pods_per_sec, r.threshold)),
                })
            })
            .collect(),
    )
}
