//! Replay of kube-scheduler's scheduler_perf workloads (`performance-config.yaml` and
//! `templates/` beside this file): the same ops at the same sizes, decided in process by the
//! scheduler core and end to end by the shipped binary against the test API server. The metric is
//! upstream's `SchedulingThroughput`: measured pods per second while they are being scheduled.

#[path = "dra.rs"]
mod dra;

use super::support::dra::{claims_path, DEVICE_CLASSES, RESOURCE_SLICES};
use super::support::process::Edgesched;
use super::support::TestApiServer;
use super::{decode, launch, median, start_server, thread_cpu_ns, wait_synced, SCHEDULER};
use edgesched::core::api;
use edgesched::core::dra::claim_writes;
use edgesched::core::framework::{ApiWrite, PreBindAction};
use edgesched::core::scheduler::{BindOutcome, Effect, Input};
use edgesched::core::watched::Change;
use serde_json::{json, Value};
use std::collections::{HashMap, HashSet};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

/// One op of a workload, with its objects' templates loaded.
#[derive(Debug, Clone)]
pub enum Op {
    /// `createNodes`; `label` is upstream's `labelNodePrepareStrategy` (key, values),
    /// `allocatable` its `nodeAllocatableStrategy`; `real_labels`: the nodes also get the labels
    /// the kubelet gives real nodes ([`real_node_labels`]).
    Nodes {
        count: usize,
        template: Template,
        label: Option<(String, Vec<String>)>,
        allocatable: Option<Value>,
        real_labels: bool,
    },
    /// `createNamespaces`: `{prefix}-0` … `{prefix}-{count-1}`, from `namespaceTemplatePath`
    /// when given.
    Namespaces { prefix: String, count: usize, template: Option<Value> },
    /// `createAny`: `count` objects of the template (Services, DeviceClasses,
    /// ResourceClaimTemplates, ResourceClaims).
    Any { namespace: String, object: Template, count: usize },
    /// `createResourceDriver`: the DRA test driver's ResourceSlice for each node whose name
    /// matches `nodes`, with `max_claims` devices (see [`dra::resource_slice`]).
    ResourceDriver { driver: String, nodes: String, max_claims: usize },
    /// `allocResourceClaims`: the claims of `namespace` allocated without a pod (see
    /// [`dra::ClaimAllocator`]).
    AllocClaims { namespace: String },
    /// `createPods`; unless `skipWaitToCompletion` (`wait` false) upstream waits until they are
    /// scheduled before the next op. `volumes`: the PV and PVC templates of
    /// `persistentVolumeTemplatePath` / `persistentVolumeClaimTemplatePath` (see
    /// [`volume_objects`]). `createPodSets` becomes one of these per namespace.
    /// `steady`: upstream's `steadyState` with its `duration`: the pods are created, and each
    /// time all of them are scheduled they are deleted and as many created again, until the
    /// duration is over.
    Pods {
        count: usize,
        namespace: String,
        template: Template,
        measured: bool,
        wait: bool,
        volumes: Option<(Value, Value)>,
        steady: Option<Duration>,
    },
    /// `churn`: from now to the end of the workload, every `interval` one object of each
    /// template is created (`create`, at most `number` of each when non-zero) or, in
    /// `recreate`, created for `number` intervals and deleted (oldest first) for the next
    /// `number`.
    Churn { recreate: bool, number: usize, interval: Duration, templates: Vec<Value>, namespace: String },
    /// `deletePods`: the pods of `namespace` (as listed when the op starts) deleted at
    /// `per_second` (0: all at once); unless `skipWaitToCompletion`, the op waits for it.
    DeletePods { namespace: String, per_second: usize, wait: bool },
    /// `barrier`: wait until the pods created so far (in `namespaces`, all when empty) are
    /// bound (`Scheduled`) or have been tried at least once (`Attempted`; gated pods count once
    /// they are queued).
    Barrier { namespaces: Vec<String>, attempted: bool },
}

/// An object template; `indexed` when it uses upstream's `{{.Index}}` (the object's index within
/// its op), which is then substituted per object.
#[derive(Debug, Clone)]
pub struct Template {
    pub value: Value,
    pub indexed: bool,
}

impl Template {
    fn load(path: &Path) -> Template {
        let value = read_yaml(path);
        let text = value.to_string();
        let indexed = INDEX.iter().any(|i| text.contains(i)) || text.contains(MOD_INDEX);
        Template { value, indexed }
    }

    /// The object for index `i` of its op.
    fn at(&self, i: usize) -> Value {
        if !self.indexed {
            return self.value.clone();
        }
        let mut text = substitute_mod(&self.value.to_string(), i);
        for placeholder in INDEX {
            text = text.replace(placeholder, &i.to_string());
        }
        serde_json::from_str(&text).expect("substituted template stays JSON")
    }
}

/// Upstream's text/template placeholder for the object's index within its op (both spellings
/// its templates use).
const INDEX: [&str; 2] = ["{{.Index}}", "{{ .Index }}"];

/// The start of upstream's `{{Mod .Index N}}` (the `Mod` template function of scheduler_perf's
/// `getTemplateFuncs`, test/integration/scheduler_perf/create.go, commit
/// 0606542c9a6bb4f95466abbfba96dce0642b59a5): the index modulo `N`.
const MOD_INDEX: &str = "{{Mod .Index ";

/// `text` with every `{{Mod .Index N}}` replaced by `i % N`.
fn substitute_mod(text: &str, i: usize) -> String {
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(at) = rest.find(MOD_INDEX) {
        out.push_str(&rest[..at]);
        let after = &rest[at + MOD_INDEX.len()..];
        let end = after.find("}}").expect("`{{Mod .Index N}}` is closed");
        let n: usize = after[..end].trim().parse().expect("`{{Mod .Index N}}` has a positive integer N");
        out.push_str(&(i % n.max(1)).to_string());
        rest = &after[end + 2..];
    }
    out.push_str(rest);
    out
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

    /// Whether the workload has DRA objects (end to end, the test API server then runs the
    /// resourceclaim controller).
    pub fn uses_dra(&self) -> bool {
        self.ops.iter().any(|o| matches!(o, Op::ResourceDriver { .. }))
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

/// Which workloads a run replays.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Set {
    /// Upstream's workloads as transcribed (`performance-config.yaml`).
    Upstream,
    /// The same on nodes labelled as real nodes are, and this project's own workloads of
    /// `real-nodes-config.yaml` (see [`real_node_variants`]).
    RealNodes,
}

/// The workloads of `set`; `smoke` divides each `countParam` by 500 (at least 2, and 0 stays 0)
/// and each `durationParam` by 50.
pub fn load(dir: &Path, smoke: bool, set: Set) -> Vec<Workload> {
    let upstream = load_file(&dir.join("performance-config.yaml"), dir, smoke, false);
    match set {
        Set::Upstream => upstream,
        Set::RealNodes => {
            let mut out = real_node_variants(&upstream);
            out.extend(load_file(&dir.join(REAL_NODES_CONFIG), dir, smoke, true));
            out
        }
    }
}

/// This project's workloads shaped like real clusters, in upstream's format (every node of them
/// labelled as real nodes are).
const REAL_NODES_CONFIG: &str = "real-nodes-config.yaml";

/// The suffix of a workload replayed on nodes labelled as real nodes are.
pub const REAL_NODES_SUFFIX: &str = "/RealNodeLabels";

/// Every workload whose pods spread or carry pod (anti-)affinity, again on nodes labelled as the
/// kubelet labels real ones ([`real_node_labels`]): upstream's node template has no
/// `kubernetes.io/hostname` label, so there every hostname-keyed spread constraint and
/// (anti-)affinity term matches no domain and costs nothing, while every real node has one.
pub fn real_node_variants(upstream: &[Workload]) -> Vec<Workload> {
    upstream
        .iter()
        .filter(|w| uses_topology(w))
        .map(|w| {
            let ops = w
                .ops
                .iter()
                .map(|op| match op {
                    Op::Nodes { count, template, label, allocatable, .. } => Op::Nodes {
                        count: *count,
                        template: template.clone(),
                        label: label.clone(),
                        allocatable: allocatable.clone(),
                        real_labels: true,
                    },
                    other => other.clone(),
                })
                .collect();
            Workload { name: format!("{}{REAL_NODES_SUFFIX}", w.name), threshold: w.threshold, ops }
        })
        .collect()
}

/// Whether a workload's pods spread over topology domains or carry pod (anti)-affinity: their
/// own spread constraints or terms, or PodTopologySpread's default constraints, which apply to
/// pods a Service selects (a Service of the workload whose selector matches a pod template's
/// labels).
pub fn uses_topology(w: &Workload) -> bool {
    let mut pods: Vec<&Value> = Vec::new();
    let mut services: Vec<&Value> = Vec::new();
    for op in &w.ops {
        match op {
            Op::Pods { template, .. } => pods.push(&template.value),
            Op::Any { object, .. } => services.push(&object.value),
            Op::Churn { templates, .. } => {
                for t in templates {
                    match t["kind"].as_str() {
                        Some("Pod") => pods.push(t),
                        Some("Service") => services.push(t),
                        _ => {}
                    }
                }
            }
            _ => {}
        }
    }
    let own = |p: &Value| {
        let spec = &p["spec"];
        spec["topologySpreadConstraints"].as_array().is_some_and(|c| !c.is_empty())
            || spec["affinity"]["podAffinity"].is_object()
            || spec["affinity"]["podAntiAffinity"].is_object()
    };
    let selected = |p: &Value| {
        services.iter().filter(|s| s["kind"].as_str().unwrap_or("Service") == "Service").any(|s| {
            s["spec"]["selector"]
                .as_object()
                .is_some_and(|sel| !sel.is_empty() && sel.iter().all(|(k, v)| p["metadata"]["labels"][k.as_str()] == *v))
        })
    };
    pods.iter().any(|p| own(p) || selected(p))
}

/// The labels the kubelet puts on a node (`kubernetes.io/hostname`, `kubernetes.io/os`,
/// `kubernetes.io/arch`; the cloud provider's `topology.kubernetes.io/region` and `zone`), for
/// node `i` named `name`: three zones of one region, round robin. A workload's
/// `labelNodePrepareStrategy` is applied after them (it keeps its own zone values).
fn real_node_labels(name: &str, i: usize) -> [(&'static str, String); 5] {
    [
        ("kubernetes.io/hostname", name.to_string()),
        ("kubernetes.io/os", "linux".to_string()),
        ("kubernetes.io/arch", "amd64".to_string()),
        ("topology.kubernetes.io/region", "region-1".to_string()),
        ("topology.kubernetes.io/zone", format!("zone-{}", i % 3)),
    ]
}

/// The workloads of one config file (upstream's format, templates relative to `dir`);
/// `real_labels` labels every node as real nodes are.
fn load_file(config: &Path, dir: &Path, smoke: bool, real_labels: bool) -> Vec<Workload> {
    let cases = read_yaml(config);
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
                if smoke && n > 0 {
                    (n / 500).max(2)
                } else {
                    n
                }
            };
            let create_pods = |op: &Value, namespace: String| {
                let path = op["podTemplatePath"].as_str().or(default_pod).unwrap_or("templates/pod-default.yaml");
                let file = |key: &str| op[key].as_str().map(|p| read_yaml(&dir.join(p)));
                Op::Pods {
                    count: param(op),
                    namespace,
                    template: Template::load(&dir.join(path)),
                    measured: op["collectMetrics"].as_bool().unwrap_or(false),
                    wait: !op["skipWaitToCompletion"].as_bool().unwrap_or(false),
                    volumes: file("persistentVolumeTemplatePath").zip(file("persistentVolumeClaimTemplatePath")),
                    steady: op["steadyState"].as_bool().unwrap_or(false).then(|| {
                        let name = op["durationParam"].as_str().expect("durationParam").trim_start_matches('$');
                        let d = dra::parse_duration(w["params"][name].as_str().expect("duration"));
                        if smoke {
                            d / 50
                        } else {
                            d
                        }
                    }),
                }
            };
            let mut ops = Vec::new();
            for (i, op) in case["workloadTemplate"].as_array().expect("workloadTemplate").iter().enumerate() {
                // Upstream names an op's namespace after its index when none is given.
                let namespace = op["namespace"].as_str().map(str::to_string).unwrap_or_else(|| format!("namespace-{i}"));
                let skip_wait = op["skipWaitToCompletion"].as_bool().unwrap_or(false);
                if op["opcode"].as_str() == Some("createPodSets") {
                    // Upstream's createPodSetsOp: its createPodsOp once per namespace
                    // `{namespacePrefix}-{i}`, each waiting for its pods as a createPods op does.
                    let prefix = op["namespacePrefix"].as_str().expect("namespacePrefix");
                    for n in 0..param(op) {
                        ops.push(create_pods(&op["createPodsOp"], format!("{prefix}-{n}")));
                    }
                    continue;
                }
                ops.push(match op["opcode"].as_str().unwrap_or("") {
                    "createNodes" => Op::Nodes {
                        count: param(op),
                        template: Template::load(
                            &dir.join(op["nodeTemplatePath"].as_str().unwrap_or("templates/node-default.yaml")),
                        ),
                        label: op.get("labelNodePrepareStrategy").map(|s| {
                            let key = s["labelKey"].as_str().unwrap_or("").to_string();
                            let values = s["labelValues"].as_array().into_iter().flatten();
                            (key, values.filter_map(|v| v.as_str().map(str::to_string)).collect())
                        }),
                        allocatable: op.get("nodeAllocatableStrategy").cloned(),
                        real_labels,
                    },
                    "createNamespaces" => Op::Namespaces {
                        prefix: op["prefix"].as_str().unwrap_or("ns").to_string(),
                        count: param(op),
                        template: op["namespaceTemplatePath"].as_str().map(|p| read_yaml(&dir.join(p))),
                    },
                    "createAny" => Op::Any {
                        namespace,
                        object: Template::load(&dir.join(op["templatePath"].as_str().expect("templatePath"))),
                        count: if op["count"].is_null() && op["countParam"].is_null() { 1 } else { param(op) },
                    },
                    "createResourceDriver" => Op::ResourceDriver {
                        driver: op["driverName"].as_str().expect("driverName").to_string(),
                        nodes: op["nodes"].as_str().expect("nodes").to_string(),
                        max_claims: {
                            let name = op["maxClaimsPerNodeParam"].as_str().expect("maxClaimsPerNodeParam");
                            w["params"][name.trim_start_matches('$')].as_u64().expect("maxClaimsPerNode") as usize
                        },
                    },
                    "allocResourceClaims" => Op::AllocClaims { namespace },
                    "createPods" => create_pods(op, namespace),
                    "churn" => Op::Churn {
                        recreate: op["mode"].as_str() == Some("recreate"),
                        number: op["number"].as_u64().unwrap_or(0) as usize,
                        // Upstream's default interval is 500 ms.
                        interval: Duration::from_millis(op["intervalMilliseconds"].as_u64().unwrap_or(500)),
                        templates: op["templatePaths"]
                            .as_array()
                            .expect("templatePaths")
                            .iter()
                            .map(|p| read_yaml(&dir.join(p.as_str().expect("template path"))))
                            .collect(),
                        namespace,
                    },
                    "deletePods" => Op::DeletePods {
                        namespace,
                        per_second: op["deletePodsPerSecond"].as_u64().unwrap_or(0) as usize,
                        wait: !skip_wait,
                    },
                    "barrier" => Op::Barrier {
                        namespaces: op["namespaces"]
                            .as_array()
                            .into_iter()
                            .flatten()
                            .filter_map(|n| n.as_str().map(str::to_string))
                            .collect(),
                        attempted: op["stageRequirement"].as_str() == Some("Attempted"),
                    },
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

/// Node `i` of a `createNodes` op (`index` within the op): named after `generateName`,
/// labelled as a real node when `real` ([`real_node_labels`]), then by the prepare strategy
/// (round robin over the values), allocatable defaulted from capacity as kube-apiserver does
/// (`SetDefaults_NodeStatus`).
fn node_object(template: &Template, label: &Option<(String, Vec<String>)>, i: usize, index: usize, real: bool) -> Value {
    let mut n = template.at(index);
    if n["metadata"]["name"].as_str().is_none() {
        let prefix = n["metadata"]["generateName"].as_str().unwrap_or("node-").to_string();
        n["metadata"]["name"] = json!(format!("{prefix}{i:05}"));
    }
    if let Some(m) = n["metadata"].as_object_mut() {
        m.remove("generateName");
    }
    if real {
        let name = n["metadata"]["name"].as_str().unwrap_or("").to_string();
        for (k, v) in real_node_labels(&name, i) {
            n["metadata"]["labels"][k] = json!(v);
        }
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

/// The node's part of upstream's `NodeAllocatableStrategy` (test/utils/runners.go,
/// `PreparePatch`): its `nodeAllocatable` quantities added to the node's allocatable.
fn with_allocatable(mut n: Value, strategy: &Option<Value>) -> Value {
    if let Some(extra) = strategy.as_ref().and_then(|s| s["nodeAllocatable"].as_object()) {
        for (k, v) in extra {
            n["status"]["allocatable"][k.as_str()] = v.clone();
        }
    }
    n
}

/// The CSINode `NodeAllocatableStrategy.createCSINode` (test/utils/runners.go) creates for a
/// node: one driver per `csiNodeAllocatable` entry (node ID = node name, its allocatable as given)
/// and the `migratedPlugins` joined with commas in the migrated-plugins annotation (present, maybe
/// empty, on every such CSINode).
fn csi_node_object(node: &str, strategy: &Value) -> Value {
    let drivers: Vec<Value> = strategy["csiNodeAllocatable"]
        .as_object()
        .into_iter()
        .flatten()
        .map(|(name, allocatable)| json!({"name": name, "nodeID": node, "allocatable": allocatable}))
        .collect();
    let migrated: Vec<&str> = strategy["migratedPlugins"].as_array().into_iter().flatten().filter_map(Value::as_str).collect();
    json!({"apiVersion": "storage.k8s.io/v1", "kind": "CSINode",
           "metadata": {"name": node, "annotations": {MIGRATED_PLUGINS: migrated.join(",")}},
           "spec": {"drivers": drivers}})
}

/// `v1.MigratedPluginsAnnotationKey`.
const MIGRATED_PLUGINS: &str = "storage.alpha.kubernetes.io/migrated-plugins";

/// The PV and PVC of pod `index` of a createPods op with volume templates, as upstream's
/// `CreatePodWithPersistentVolume` (test/utils/runners.go) with scheduler_perf's
/// `getCustomVolumeFactory` makes them: the claim `pvc-<index>`; the volume `vol-<index>`
/// prefixed with the namespace (PVs are cluster-wide), its CSI `volumeHandle` the PV's name or
/// its AWS EBS `volumeID` `vol-<index>`; the PV's `claimRef` the claim, phase Bound, and the
/// claim's `volumeName` the PV, phase Bound (upstream writes the statuses with UpdateStatus after
/// each create; here they are created with them).
fn volume_objects(volumes: &(Value, Value), namespace: &str, index: usize) -> (Value, Value) {
    let (mut pv, mut pvc) = volumes.clone();
    let claim = format!("pvc-{index}");
    let name = format!("{namespace}-vol-{index}");
    pv["metadata"]["name"] = json!(name);
    if pv["spec"]["csi"].is_object() {
        pv["spec"]["csi"]["volumeHandle"] = json!(name);
    } else if pv["spec"]["awsElasticBlockStore"].is_object() {
        pv["spec"]["awsElasticBlockStore"]["volumeID"] = json!(format!("vol-{index}"));
    }
    pv["spec"]["claimRef"] = json!({"kind": "PersistentVolumeClaim", "namespace": namespace, "name": claim, "apiVersion": "v1"});
    pv["status"] = json!({"phase": "Bound"});
    pvc["metadata"]["name"] = json!(claim);
    pvc["metadata"]["namespace"] = json!(namespace);
    pvc["spec"]["volumeName"] = json!(name);
    pvc["status"] = json!({"phase": "Bound"});
    (pv, pvc)
}

/// A pod of an op with volume templates uses its claim as its only volume (upstream replaces
/// `spec.volumes` with `vol` → `pvc-<index>`).
fn with_claim(mut p: Value, index: usize) -> Value {
    p["spec"]["volumes"] = json!([{"name": "vol", "persistentVolumeClaim": {"claimName": format!("pvc-{index}")}}]);
    p
}

/// Pod `i` of a `createPods` op (`index` within the op), for our scheduler; a template with a
/// fixed name keeps it.
fn pod_object(template: &Template, namespace: &str, i: usize, index: usize) -> Value {
    let mut p = template.at(index);
    if p["metadata"]["name"].as_str().is_none() {
        let prefix = p["metadata"]["generateName"].as_str().unwrap_or("pod-").to_string();
        p["metadata"]["name"] = json!(format!("{prefix}{i:06}"));
    }
    p["metadata"]["namespace"] = json!(namespace);
    if let Some(m) = p["metadata"].as_object_mut() {
        m.remove("generateName");
    }
    p["spec"]["schedulerName"] = json!(SCHEDULER);
    p
}

/// Namespace `name`, from the op's `namespaceTemplatePath` when it has one (upstream's
/// `namespacePreparer` copies the template and sets the name).
fn namespace_object(name: &str, template: &Option<Value>) -> Value {
    let mut ns = template.clone().unwrap_or_else(|| json!({"apiVersion": "v1", "kind": "Namespace", "metadata": {}}));
    ns["metadata"]["name"] = json!(name);
    ns
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

/// Object `i` of a `createAny` op: the template's name (its `{{.Index}}` substituted) or its
/// `generateName` with the index; namespaced kinds in `namespace`.
fn any_object(template: &Template, namespace: &str, i: usize) -> Value {
    let mut o = template.at(i);
    if o["metadata"]["name"].as_str().is_none() {
        return named(&o, namespace, i);
    }
    if !matches!(o["kind"].as_str(), Some("DeviceClass" | "ResourceSlice" | "Namespace" | "Node")) {
        o["metadata"]["namespace"] = json!(namespace);
    }
    o
}

/// Churn object `i` of a template: a pod is for our scheduler; nodes get allocatable.
fn churn_object(template: &Value, namespace: &str, i: usize) -> Value {
    let kind = template["kind"].as_str().unwrap_or("");
    match kind {
        "Pod" => pod_object(&Template { value: template.clone(), indexed: false }, namespace, i, i),
        "Node" => node_object(&Template { value: template.clone(), indexed: false }, &None, i, i, false),
        _ => named(template, namespace, i),
    }
}

/// Where an object of `kind` is created (collection path).
fn collection(kind: &str, namespace: &str) -> String {
    match kind {
        "Node" => "/api/v1/nodes".to_string(),
        "Namespace" => "/api/v1/namespaces".to_string(),
        "DeviceClass" => DEVICE_CLASSES.to_string(),
        "ResourceSlice" => RESOURCE_SLICES.to_string(),
        "ResourceClaim" => claims_path(namespace),
        "ResourceClaimTemplate" => super::support::dra::templates_path(namespace),
        k => format!("/api/v1/namespaces/{namespace}/{}s", k.to_lowercase()),
    }
}

/// The churn op's schedule: what to do at tick `t` (1-based) — create one of each template, or
/// delete the oldest of each (recreate mode's second half), or nothing (create mode at its cap).
fn churn_step(recreate: bool, number: usize, t: usize, created: usize) -> ChurnStep {
    if recreate {
        let n = number.max(1);
        if ((t - 1) / n) % 2 == 0 {
            ChurnStep::Create
        } else {
            ChurnStep::Delete
        }
    } else if number == 0 || created < number {
        ChurnStep::Create
    } else {
        ChurnStep::Idle
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum ChurnStep {
    Create,
    Delete,
    Idle,
}

/// What one mode measured.
#[derive(Debug, Clone, Default)]
pub struct Measured {
    /// Measured pods per second (upstream's SchedulingThroughput average): the pods bound after
    /// the first measured one, over the time from that first binding to the last.
    pub pods_per_sec: f64,
    /// Measured pods per CPU-second of the scheduling thread over the same window (in process
    /// only).
    pub pods_per_cpu_sec: f64,
    /// Measured pods over the time from their first create to their last binding (the replay's
    /// earlier metric; it also counts the time spent on pods queued before the measured ones).
    pub pods_per_sec_from_create: f64,
    /// Measured pods that were scheduled (all of them unless the workload cannot fit).
    pub scheduled: usize,
    pub seconds: f64,
    seconds_from_create: f64,
}

/// One measured op's timings: seconds from the first create to the last binding, and from the
/// first binding to the last (with the scheduling thread's CPU seconds in that window, in process).
#[derive(Debug, Clone, Copy, Default)]
struct Window {
    from_create: f64,
    from_first_bound: f64,
    cpu_from_first_bound: Option<f64>,
}

impl Measured {
    /// Upstream's `throughputCollector` (test/integration/scheduler_perf/util.go, commit
    /// 0c5e832aa2bb32573ca695858bc421d111c90119) samples once a second only after a measured pod
    /// is scheduled and skips that first sample, so time spent on pods created earlier (another
    /// op's backlog) is not in the window; neither is it here: the first measured binding opens it.
    fn add(&mut self, scheduled: usize, w: Window) {
        let after_first = scheduled.saturating_sub(1);
        self.scheduled += scheduled;
        self.seconds += w.from_first_bound;
        self.seconds_from_create += w.from_create;
        self.pods_per_sec = after_first as f64 / w.from_first_bound.max(1e-9);
        self.pods_per_sec_from_create = self.scheduled as f64 / self.seconds_from_create.max(1e-9);
        if let Some(c) = w.cpu_from_first_bound {
            self.pods_per_cpu_sec = after_first as f64 / c.max(1e-9);
        }
    }
}

/// A background op of the in-process replay (churn, paced deletions), driven by wall time.
struct Background {
    started: Instant,
    ticks: usize,
    kind: BackgroundKind,
}

enum BackgroundKind {
    Churn { recreate: bool, number: usize, interval: Duration, templates: Vec<Value>, namespace: String, live: Vec<Vec<Live>> },
    Delete { keys: Vec<String>, per_second: usize },
}

/// An object the churn created and may delete.
enum Live {
    Node(api::Node),
    Pod(String),
    Service(api::Service),
}

/// A steady-state `createPods` op (upstream's `steadyState`) as both modes run it: `count` pods
/// of `template` in `namespace` at a time for `duration`; `first` numbers the first pod.
#[derive(Clone, Copy)]
struct SteadyOp<'a> {
    count: usize,
    namespace: &'a str,
    template: &'a Template,
    duration: Duration,
    first: usize,
}

/// A resource.k8s.io object decoded with Go's rules (`null` where Go accepts it, as the
/// templates write it).
fn decode_go<T: serde::de::DeserializeOwned>(v: Value) -> T {
    edgesched::core::gojson::from_value(v).expect("DRA object decodes")
}

/// A pod as the in-process replay creates it: the pod and, when it uses claim templates, the
/// claims the resourceclaim controller generates for it and the pod with their names in its
/// status (decoded ahead, as the API server's and the informer's work is not the decision's).
struct PodObjects {
    pod: api::Pod,
    claims: Vec<api::ResourceClaim>,
    with_claims: Option<Box<api::Pod>>,
}

/// The in-process replay's world: the scheduler core and what the API server would hold.
struct Sim {
    sched: edgesched::core::scheduler::Scheduler,
    /// Virtual time handed to the core (advanced per cycle; jumped over backoff waits).
    now: Instant,
    /// Live pods by `namespace/name`.
    pods: HashMap<String, api::Pod>,
    /// Pod keys per namespace in creation order.
    by_ns: HashMap<String, Vec<String>>,
    /// Pods created and not yet bound.
    unbound: HashSet<String>,
    /// Pods created with finalizers (a delete only marks them).
    finalized: HashSet<String>,
    /// The unbound pods an op waits for (emptied as they are bound or deleted).
    awaited: HashSet<String>,
    background: Vec<Background>,
    churned: usize,
    /// When the first awaited pod was bound (wall time, scheduling thread's CPU ns).
    first_bound: Option<(Instant, u64)>,
    /// DRA: ResourceClaimTemplates by `namespace/name`.
    claim_templates: HashMap<String, Value>,
    /// DRA: the API server's ResourceClaims by `namespace/name`, with their resourceVersion.
    claims: HashMap<String, api::ResourceClaim>,
    /// DRA: claim keys per namespace in creation order.
    claims_by_ns: HashMap<String, Vec<String>>,
    /// DRA: the claims the in-process resourceclaim controller made for each pod.
    pod_claims: HashMap<String, Vec<String>>,
    /// DRA: the test driver (name, its nodes, devices per node) once `createResourceDriver` ran.
    driver: Option<(String, Vec<String>, usize)>,
}

impl Sim {
    fn new() -> Sim {
        let now = Instant::now();
        let mut sched = super::bench_scheduler(now);
        sched.handle(Input::watch_boxed::<api::Node>(Change::ListBegin), now);
        sched.handle(Input::watch_boxed::<api::Node>(Change::ListPage(Vec::new())), now);
        sched.handle(Input::watch_boxed::<api::Node>(Change::ListDone), now);
        sched.handle(Input::watch_boxed::<api::Pod>(Change::ListBegin), now);
        sched.handle(Input::watch_boxed::<api::Pod>(Change::ListPage(Vec::new())), now);
        sched.handle(Input::watch_boxed::<api::Pod>(Change::ListDone), now);
        sched.handle(Input::Leading(true), now);
        Sim {
            sched,
            now,
            pods: HashMap::new(),
            by_ns: HashMap::new(),
            unbound: HashSet::new(),
            finalized: HashSet::new(),
            awaited: HashSet::new(),
            background: Vec::new(),
            churned: 0,
            first_bound: None,
            claim_templates: HashMap::new(),
            claims: HashMap::new(),
            claims_by_ns: HashMap::new(),
            pod_claims: HashMap::new(),
            driver: None,
        }
    }

    /// A ResourceClaim written as the API server records it: the next resourceVersion, delivered
    /// through the claims' watch (`Added` for a new one).
    fn write_claim(&mut self, mut claim: api::ResourceClaim) {
        let key = format!("{}/{}", claim.metadata.namespace, claim.metadata.name);
        let previous = self.claims.get(&key).map(|c| c.metadata.resource_version.parse::<u64>().unwrap_or(0));
        claim.metadata.resource_version = (previous.unwrap_or(0) + 1).to_string();
        self.claims.insert(key.clone(), claim.clone());
        let change = if previous.is_some() {
            Change::Modified(Box::new(claim))
        } else {
            self.claims_by_ns.entry(claim.metadata.namespace.clone()).or_default().push(key);
            Change::Added(Box::new(claim))
        };
        self.sched.handle(Input::watch_boxed::<api::ResourceClaim>(change), self.now);
    }

    /// A claim deleted (the garbage collector's part for a generated claim whose pod is gone).
    fn delete_claim(&mut self, key: &str) {
        if let Some(c) = self.claims.remove(key) {
            self.sched.handle(Input::watch_boxed::<api::ResourceClaim>(Change::Deleted(Box::new(c))), self.now);
        }
    }

    /// A pod created through the API with, when it uses claim templates, the resourceclaim
    /// controller's reaction as the scheduler sees it: the pod, its generated claims, then the pod
    /// with `status.resourceClaimStatuses`.
    fn create_pod(&mut self, p: PodObjects, finalizers: bool) {
        let key = format!("{}/{}", p.pod.metadata.namespace, p.pod.metadata.name);
        self.add_pod(p.pod, finalizers);
        if let Some(with_status) = p.with_claims {
            let mut keys = Vec::with_capacity(p.claims.len());
            for c in p.claims {
                keys.push(format!("{}/{}", c.metadata.namespace, c.metadata.name));
                self.write_claim(c);
            }
            self.pod_claims.insert(key.clone(), keys);
            self.pods.insert(key, (*with_status).clone());
            self.sched.handle(Input::watch_boxed::<api::Pod>(Change::Modified(with_status)), self.now);
        }
    }

    fn add_pod(&mut self, p: api::Pod, finalizers: bool) {
        let key = format!("{}/{}", p.metadata.namespace, p.metadata.name);
        if finalizers {
            self.finalized.insert(key.clone());
        }
        self.now += Duration::from_micros(1);
        self.unbound.insert(key.clone());
        self.by_ns.entry(p.metadata.namespace.clone()).or_default().push(key.clone());
        self.pods.insert(key, p.clone());
        self.sched.handle(Input::watch_boxed::<api::Pod>(Change::Added(Box::new(p))), self.now);
    }

    /// Delete a pod as the API server would: a pod with finalizers only gets its
    /// `deletionTimestamp`; others are gone.
    fn delete_pod(&mut self, key: &str) {
        let Some(p) = self.pods.get(key) else { return };
        if self.finalized.contains(key) {
            if p.metadata.deletion_timestamp.is_none() {
                let mut p = p.clone();
                p.metadata.deletion_timestamp = Some("2026-01-01T00:00:00Z".into());
                self.pods.insert(key.to_string(), p.clone());
                self.sched.handle(Input::watch_boxed::<api::Pod>(Change::Modified(Box::new(p))), self.now);
            }
            return;
        }
        if let Some(p) = self.pods.remove(key) {
            self.unbound.remove(key);
            self.awaited.remove(key);
            self.sched.handle(Input::watch_boxed::<api::Pod>(Change::Deleted(Box::new(p))), self.now);
            for claim in self.pod_claims.remove(key).unwrap_or_default() {
                self.delete_claim(&claim);
            }
        }
    }

    /// One scheduling cycle and its effects (bindings confirmed, victims deleted); false when
    /// nothing was runnable.
    fn cycle(&mut self) -> bool {
        self.now += Duration::from_micros(10);
        if self.sched.schedule_one(self.now, edgesched::core::framework::cycle::Explain::Off).is_none() {
            return false;
        }
        for e in self.sched.take_effects() {
            match e {
                Effect::Bind(b) => {
                    // DynamicResources' PreBind: the allocation and `reservedFor` written to the
                    // claim before the binding, as the API server records them.
                    for a in &b.pre_bind {
                        if let PreBindAction::ReserveClaim(r) = a {
                            let base = claim_writes::with_finalizer(&r.claim).unwrap_or_else(|| (*r.claim).clone());
                            self.write_claim(claim_writes::reserved(&base, r.allocation.as_ref(), &r.pod_name, &r.pod_uid));
                        }
                    }
                    let key = b.pod.key.clone();
                    let node = b.node.clone();
                    self.sched.handle(Input::BindDone(BindOutcome::new(key.clone(), b.node, Ok(()))), self.now);
                    if let Some(p) = self.pods.get_mut(&*key) {
                        p.spec.node_name = node.to_string();
                        let p = p.clone();
                        self.unbound.remove(&*key);
                        if self.awaited.remove(&*key) && self.first_bound.is_none() {
                            self.first_bound = Some((Instant::now(), thread_cpu_ns()));
                        }
                        self.sched.handle(Input::watch_boxed::<api::Pod>(Change::Modified(Box::new(p))), self.now);
                    }
                }
                Effect::Evict(v) => self.delete_pod(&format!("{}/{}", v.namespace, v.name)),
                Effect::ApiWrite(ApiWrite::DeallocateClaim(c)) => self.write_claim((*c).clone()),
                Effect::ApiWrite(ApiWrite::UnreserveClaim { namespace, name, pod_uid, .. }) => {
                    if let Some(c) = self.claims.get(&format!("{namespace}/{name}")) {
                        let c = claim_writes::unreserved(c, &pod_uid);
                        self.write_claim(c);
                    }
                }
                _ => {}
            }
        }
        true
    }

    /// Let virtual time pass to the core's next wake-up (backoff expiry, flush); false when
    /// nothing is due within `limit` of `since`.
    fn wait_virtual(&mut self, since: Instant, limit: Duration) -> bool {
        let next = self.sched.next_wakeup(self.now).unwrap_or(self.now + Duration::from_secs(1));
        let next = next.max(self.now + Duration::from_millis(1));
        if next.duration_since(since) > limit {
            return false;
        }
        self.now = next;
        self.sched.tick(self.now, std::time::SystemTime::now());
        true
    }

    /// Run the background ops that are due by wall time.
    fn pump(&mut self) {
        let mut bg = std::mem::take(&mut self.background);
        for b in &mut bg {
            let elapsed = b.started.elapsed();
            match &mut b.kind {
                BackgroundKind::Churn { recreate, number, interval, templates, namespace, live } => {
                    let due = (elapsed.as_nanos() / interval.as_nanos().max(1)) as usize;
                    while b.ticks < due {
                        b.ticks += 1;
                        let created = live.first().map_or(0, Vec::len);
                        match churn_step(*recreate, *number, b.ticks, created) {
                            ChurnStep::Create => {
                                for (t, template) in templates.iter().enumerate() {
                                    self.churned += 1;
                                    let obj = churn_object(template, namespace, self.churned);
                                    let l = match template["kind"].as_str().unwrap_or("") {
                                        "Node" => {
                                            let n: api::Node = decode(obj);
                                            self.sched.handle(
                                                Input::watch_boxed::<api::Node>(Change::Added(Box::new(n.clone()))),
                                                self.now,
                                            );
                                            Live::Node(n)
                                        }
                                        "Pod" => {
                                            let p: api::Pod = decode(obj);
                                            let key = format!("{}/{}", p.metadata.namespace, p.metadata.name);
                                            self.add_pod(p, false);
                                            Live::Pod(key)
                                        }
                                        _ => {
                                            let s: api::Service = decode(obj);
                                            self.sched.handle(Input::watch::<api::Service>(Change::Added(s.clone())), self.now);
                                            Live::Service(s)
                                        }
                                    };
                                    if live.len() <= t {
                                        live.resize_with(t + 1, Vec::new);
                                    }
                                    live[t].push(l);
                                }
                            }
                            ChurnStep::Delete => {
                                for objs in live.iter_mut() {
                                    if objs.is_empty() {
                                        continue;
                                    }
                                    match objs.remove(0) {
                                        Live::Node(n) => self
                                            .sched
                                            .handle(Input::watch_boxed::<api::Node>(Change::Deleted(Box::new(n))), self.now),
                                        Live::Pod(key) => self.delete_pod(&key),
                                        Live::Service(s) => {
                                            self.sched.handle(Input::watch::<api::Service>(Change::Deleted(s)), self.now)
                                        }
                                    }
                                }
                            }
                            ChurnStep::Idle => {}
                        }
                    }
                }
                BackgroundKind::Delete { keys, per_second } => {
                    let due = if *per_second == 0 {
                        keys.len()
                    } else {
                        ((elapsed.as_secs_f64() * *per_second as f64) as usize).min(keys.len())
                    };
                    while b.ticks < due {
                        let key = keys[b.ticks].clone();
                        b.ticks += 1;
                        self.delete_pod(&key);
                    }
                }
            }
        }
        bg.retain(|b| !matches!(&b.kind, BackgroundKind::Delete { keys, .. } if b.ticks >= keys.len()));
        self.background = bg;
    }

    /// Schedule until every pod of `keys` is bound (or the core has nothing left to try for
    /// ten virtual minutes); returns how many are bound.
    fn until_bound(&mut self, keys: &[String]) -> usize {
        let mut since = self.now;
        self.first_bound = None;
        self.awaited = keys.iter().filter(|k| self.unbound.contains(*k)).cloned().collect();
        while !self.awaited.is_empty() {
            self.pump();
            if self.cycle() {
                since = self.now;
                continue;
            }
            if !self.awaited.is_empty() && !self.wait_virtual(since, Duration::from_secs(600)) {
                break;
            }
        }
        self.awaited.clear();
        keys.iter().filter(|k| !self.unbound.contains(*k) && self.pods.contains_key(*k)).count()
    }

    /// The objects of pod `p` (see [`PodObjects`]); a pod with claim templates gets a uid (its
    /// claims' owner) and `serial` numbers its claims.
    fn pod_objects(&self, mut p: Value, serial: usize) -> PodObjects {
        if !dra::uses_claim_templates(&p) {
            return PodObjects { pod: decode(p), claims: Vec::new(), with_claims: None };
        }
        let uid =
            format!("uid-{}-{}", p["metadata"]["namespace"].as_str().unwrap_or(""), p["metadata"]["name"].as_str().unwrap_or(""));
        p["metadata"]["uid"] = json!(uid);
        let pod: api::Pod = decode(p.clone());
        let claims = dra::claims_for_pod(&mut p, &self.claim_templates, serial).into_iter().map(decode_go).collect();
        PodObjects { pod, claims, with_claims: Some(Box::new(decode(p))) }
    }

    /// Steady state (`createPods` with `steadyState`): `count` pods created, scheduled, all
    /// deleted (their generated claims with them), again until `duration` is over. Building and
    /// decoding each batch's objects is left out of the window, as for the other ops, whose
    /// objects are decoded before it opens.
    fn steady_state(&mut self, op: &SteadyOp<'_>) -> (usize, Window) {
        let SteadyOp { count, namespace, template, duration, first } = *op;
        let start = Instant::now();
        let mut excluded = Duration::ZERO;
        let mut excluded_cpu = 0u64;
        let mut scheduled = 0usize;
        let mut opened: Option<(Instant, u64, Duration, u64)> = None;
        let mut last = (start, thread_cpu_ns(), excluded, excluded_cpu);
        let mut serial = first;
        while start.elapsed() < duration {
            let (b0, c0) = (Instant::now(), thread_cpu_ns());
            let batch: Vec<PodObjects> = (0..count)
                .map(|i| {
                    serial += 1;
                    self.pod_objects(pod_object(template, namespace, serial, i), serial)
                })
                .collect();
            let keys: Vec<String> =
                batch.iter().map(|p| format!("{}/{}", p.pod.metadata.namespace, p.pod.metadata.name)).collect();
            excluded += b0.elapsed();
            excluded_cpu += thread_cpu_ns().saturating_sub(c0);
            for p in batch {
                self.create_pod(p, false);
            }
            let bound = self.until_bound(&keys);
            scheduled += bound;
            if opened.is_none() {
                opened = self.first_bound.map(|(t, c)| (t, c, excluded, excluded_cpu));
            }
            last = (Instant::now(), thread_cpu_ns(), excluded, excluded_cpu);
            if bound < count {
                eprintln!("  steady state: only {bound} of {count} pods bound");
                break;
            }
            for key in &keys {
                self.delete_pod(key);
            }
        }
        let (t1, c1, e1, ec1) = opened.unwrap_or((start, 0, Duration::ZERO, 0));
        let window = Window {
            from_create: last.0.duration_since(start).saturating_sub(last.2).as_secs_f64(),
            from_first_bound: last.0.duration_since(t1).saturating_sub(last.2 - e1).as_secs_f64(),
            cpu_from_first_bound: Some(last.1.saturating_sub(c1).saturating_sub(last.3 - ec1) as f64 / 1e9),
        };
        (scheduled, window)
    }

    /// Schedule until nothing is runnable (every queued pod tried once, gated ones queued).
    fn until_attempted(&mut self) {
        self.pump();
        while self.cycle() {
            self.pump();
        }
    }
}

/// In process: the scheduler core handles the watch events, schedules, and gets the bindings
/// confirmed (BindDone, then the pod seen bound), as the scheduler thread would; the API server's
/// part (deleting evicted victims and deleted pods, churn) is applied to it directly. Waiting for
/// backoff happens in virtual time: the figure is the decision's cost, not upstream's timers.
pub fn decision(w: &Workload) -> Measured {
    let mut sim = Sim::new();
    let mut result = Measured::default();
    let (mut nodes, mut pods) = (0usize, 0usize);
    let mut node_names: Vec<String> = Vec::new();
    for op in &w.ops {
        match op {
            Op::Nodes { count, template, label, allocatable, real_labels } => {
                for index in 0..*count {
                    let n: api::Node =
                        decode(with_allocatable(node_object(template, label, nodes, index, *real_labels), allocatable));
                    nodes += 1;
                    // As upstream: the node, then its CSINode (`PrepareDependentObjects`).
                    let csi_node = allocatable.as_ref().map(|s| csi_node_object(&n.metadata.name, s));
                    node_names.push(n.metadata.name.clone());
                    sim.sched.handle(Input::watch_boxed::<api::Node>(Change::Added(Box::new(n))), sim.now);
                    if let Some(c) = csi_node {
                        sim.sched.handle(Input::watch::<api::CsiNode>(Change::Added(decode(c))), sim.now);
                    }
                }
            }
            Op::Namespaces { prefix, count, template } => {
                for i in 0..*count {
                    let ns: api::Namespace = decode(namespace_object(&format!("{prefix}-{i}"), template));
                    sim.sched.handle(Input::watch::<api::Namespace>(Change::Added(ns)), sim.now);
                }
            }
            Op::Any { namespace, object, count } => {
                for i in 0..*count {
                    let o = any_object(object, namespace, i);
                    match o["kind"].as_str().unwrap_or("") {
                        "Service" => {
                            let s: api::Service = decode(o);
                            sim.sched.handle(Input::watch::<api::Service>(Change::Added(s)), sim.now);
                        }
                        "DeviceClass" => {
                            let c: api::DeviceClass = decode_go(o);
                            sim.sched.handle(Input::watch::<api::DeviceClass>(Change::Added(c)), sim.now);
                        }
                        "ResourceClaimTemplate" => {
                            let key = format!("{namespace}/{}", o["metadata"]["name"].as_str().unwrap_or(""));
                            sim.claim_templates.insert(key, o);
                        }
                        "ResourceClaim" => {
                            let mut o = o;
                            o["spec"] = dra::with_defaults(o["spec"].take());
                            let mut c: api::ResourceClaim = decode_go(o);
                            c.metadata.uid = format!("claim-uid-{namespace}-{}", c.metadata.name);
                            sim.write_claim(c);
                        }
                        other => panic!("{}: createAny of a {other} is not replayed", w.name),
                    }
                }
            }
            Op::ResourceDriver { driver, nodes: pattern, max_claims } => {
                let names: Vec<String> = node_names.iter().filter(|n| dra::glob_matches(pattern, n)).cloned().collect();
                for n in &names {
                    let slice: api::ResourceSlice = decode_go(dra::resource_slice(driver, n, *max_claims));
                    sim.sched.handle(Input::watch::<api::ResourceSlice>(Change::Added(slice)), sim.now);
                }
                sim.driver = Some((driver.clone(), names, *max_claims));
            }
            Op::AllocClaims { namespace } => {
                let (driver, names, capacity) = sim.driver.clone().expect("allocResourceClaims after createResourceDriver");
                let mut allocator = dra::ClaimAllocator::new(&driver, names, capacity);
                for key in sim.claims_by_ns.get(namespace).cloned().unwrap_or_default() {
                    let Some(mut c) = sim.claims.get(&key).cloned() else { continue };
                    if c.status.allocation.is_some() {
                        continue;
                    }
                    let request = c.spec.devices.requests.first().map_or("req-0".to_string(), |r| r.name.clone());
                    let allocation =
                        allocator.allocate(&request).unwrap_or_else(|| panic!("{}: no device left for {key}", w.name));
                    c.status.allocation = Some(decode_go(allocation));
                    sim.write_claim(c);
                }
            }
            Op::Pods { count, namespace, template, measured, steady: Some(duration), .. } => {
                let (scheduled, window) =
                    sim.steady_state(&SteadyOp { count: *count, namespace, template, duration: *duration, first: pods });
                pods += scheduled + count;
                if *measured {
                    result.add(scheduled, window);
                }
            }
            Op::Pods { count, namespace, template, measured, wait, volumes, steady: None } => {
                // Decoding is the API server's and the informer's work, not the decision's.
                let mut objs: Vec<PodObjects> = Vec::with_capacity(*count);
                let mut storage: Vec<(api::PersistentVolume, api::PersistentVolumeClaim)> = Vec::new();
                for i in 0..*count {
                    let mut p = pod_object(template, namespace, pods + i, i);
                    if let Some(v) = volumes {
                        let (pv, pvc) = volume_objects(v, namespace, i);
                        storage.push((decode(pv), decode(pvc)));
                        p = with_claim(p, i);
                    }
                    objs.push(sim.pod_objects(p, pods + i));
                }
                pods += count;
                let keys: Vec<String> =
                    objs.iter().map(|p| format!("{}/{}", p.pod.metadata.namespace, p.pod.metadata.name)).collect();
                let (t0, c0) = (Instant::now(), thread_cpu_ns());
                let finalizers = template.value["metadata"]["finalizers"].as_array().is_some_and(|f| !f.is_empty());
                let mut storage = storage.into_iter();
                for p in objs {
                    // As upstream: the claim, then the volume, then the pod.
                    if let Some((pv, pvc)) = storage.next() {
                        sim.sched.handle(Input::watch::<api::PersistentVolumeClaim>(Change::Added(pvc)), sim.now);
                        sim.sched.handle(Input::watch::<api::PersistentVolume>(Change::Added(pv)), sim.now);
                    }
                    sim.create_pod(p, finalizers);
                }
                if !*wait {
                    continue;
                }
                let scheduled = sim.until_bound(&keys);
                if *measured {
                    let (t1, c1) = sim.first_bound.unwrap_or((t0, c0));
                    result.add(
                        scheduled,
                        Window {
                            from_create: t0.elapsed().as_secs_f64(),
                            from_first_bound: t1.elapsed().as_secs_f64(),
                            cpu_from_first_bound: Some(thread_cpu_ns().saturating_sub(c1) as f64 / 1e9),
                        },
                    );
                }
            }
            Op::Churn { recreate, number, interval, templates, namespace } => sim.background.push(Background {
                started: Instant::now(),
                ticks: 0,
                kind: BackgroundKind::Churn {
                    recreate: *recreate,
                    number: *number,
                    interval: *interval,
                    templates: templates.clone(),
                    namespace: namespace.clone(),
                    live: Vec::new(),
                },
            }),
            Op::DeletePods { namespace, per_second, wait } => {
                let keys = sim.by_ns.get(namespace).cloned().unwrap_or_default();
                sim.background.push(Background {
                    started: Instant::now(),
                    ticks: 0,
                    kind: BackgroundKind::Delete { keys, per_second: *per_second },
                });
                while *wait && sim.background.iter().any(|b| matches!(b.kind, BackgroundKind::Delete { .. })) {
                    sim.pump();
                    if !sim.cycle() {
                        std::thread::sleep(Duration::from_millis(1));
                    }
                }
            }
            Op::Barrier { namespaces, attempted } => {
                if *attempted {
                    sim.until_attempted();
                } else {
                    let keys: Vec<String> = sim
                        .by_ns
                        .iter()
                        .filter(|(ns, _)| namespaces.is_empty() || namespaces.contains(ns))
                        .flat_map(|(_, k)| k.iter().cloned())
                        .collect();
                    sim.until_bound(&keys);
                }
            }
        }
    }
    result
}

/// Whether the process's `/metrics` shows at least `n` pods in scheduling gates.
fn gated_at_least(es: &Edgesched, token: &str, n: usize) -> bool {
    let url = format!("https://127.0.0.1:{}/metrics", es.secure_port);
    let Ok((200, body)) = super::support::https::get(&url, Some(token)) else { return false };
    let gauge = body
        .lines()
        .find_map(|l| l.strip_prefix("scheduler_pending_pods{queue=\"gated\"} "))
        .and_then(|v| v.trim().parse::<f64>().ok())
        .unwrap_or(0.0);
    gauge as usize >= n
}

/// Pods of `namespace` bound so far (from the test API server's binding log).
fn bound_in(server: &TestApiServer, namespace: &str, names: &[String]) -> usize {
    names.iter().filter(|n| server.bindings(namespace, n) > 0).count()
}

/// End to end: the test API server, the shipped binary, the same objects created through the
/// API; the measured rate is measured pods over the time from their first create to their last
/// binding. Churn and paced deletions run on their own threads until the workload ends.
pub fn e2e(w: &Workload) -> Measured {
    let server = start_server();
    // Upstream's DRA test cases run kube-controller-manager's resourceclaim controller beside the
    // scheduler (dra_test.go); the test API server has it built in.
    server.set_claim_controller(w.uses_dra());
    let token = "bench-metrics-token";
    server.add_token(token, "bench-metrics", &[]);
    server.allow_non_resource("bench-metrics", "/metrics");
    let stop = AtomicBool::new(false);
    let mut result = Measured::default();
    std::thread::scope(|scope| {
        let mut es: Option<Edgesched> = None;
        let (mut nodes, mut pods) = (0usize, 0usize);
        let mut node_names: Vec<String> = Vec::new();
        let mut driver: Option<(String, Vec<String>, usize)> = None;
        let mut created: HashMap<String, Vec<String>> = HashMap::new();
        let mut gated = 0usize;
        let mut waiters = Vec::new();
        for op in &w.ops {
            match op {
                Op::Nodes { count, template, label, allocatable, real_labels } => {
                    for index in 0..*count {
                        let node = node_object(template, label, nodes, index, *real_labels);
                        let n = server.create("/api/v1/nodes", with_allocatable(node, allocatable));
                        nodes += 1;
                        node_names.push(n["metadata"]["name"].as_str().unwrap_or("").to_string());
                        if let Some(strategy) = allocatable {
                            let name = n["metadata"]["name"].as_str().unwrap_or("");
                            server.create("/apis/storage.k8s.io/v1/csinodes", csi_node_object(name, strategy));
                        }
                    }
                }
                Op::Namespaces { prefix, count, template } => {
                    for i in 0..*count {
                        server.create("/api/v1/namespaces", namespace_object(&format!("{prefix}-{i}"), template));
                    }
                }
                Op::Any { namespace, object, count } => {
                    let kind = object.value["kind"].as_str().unwrap_or("Service");
                    for i in 0..*count {
                        server.create(&collection(kind, namespace), any_object(object, namespace, i));
                    }
                }
                Op::ResourceDriver { driver: name, nodes: pattern, max_claims } => {
                    let names: Vec<String> = node_names.iter().filter(|n| dra::glob_matches(pattern, n)).cloned().collect();
                    for n in &names {
                        server.create(RESOURCE_SLICES, dra::resource_slice(name, n, *max_claims));
                    }
                    driver = Some((name.clone(), names, *max_claims));
                }
                Op::AllocClaims { namespace } => {
                    // As upstream's op: each claim not yet allocated gets its allocation through
                    // UpdateStatus, with no pod in reservedFor.
                    let (name, names, capacity) = driver.clone().expect("allocResourceClaims after createResourceDriver");
                    let mut allocator = dra::ClaimAllocator::new(&name, names, capacity);
                    for mut c in server.list(&claims_path(namespace)) {
                        if !c["status"]["allocation"].is_null() {
                            continue;
                        }
                        let allocation = allocator.allocate(dra::first_request(&c)).expect("a free device for every claim");
                        let path = format!("{}/{}/status", claims_path(namespace), c["metadata"]["name"].as_str().unwrap_or(""));
                        c["status"]["allocation"] = allocation;
                        server.update(&path, c);
                    }
                }
                Op::Pods { count, namespace, template, measured, steady: Some(duration), .. } => {
                    if es.is_none() {
                        let started = launch(&server, Some((100_000, 100_000)));
                        wait_synced(&started, Duration::from_secs(120));
                        es = Some(started);
                    }
                    let (bound, window) = steady_state_e2e(
                        &server,
                        &SteadyOp { count: *count, namespace, template, duration: *duration, first: pods },
                    );
                    pods += bound + count;
                    if *measured {
                        result.add(bound, window);
                    }
                }
                Op::Pods { count, namespace, template, measured, wait, volumes, steady: None } => {
                    if es.is_none() {
                        let started = launch(&server, Some((100_000, 100_000)));
                        wait_synced(&started, Duration::from_secs(120));
                        es = Some(started);
                    }
                    let mut objs: Vec<Value> = (0..*count).map(|i| pod_object(template, namespace, pods + i, i)).collect();
                    let mut storage = Vec::new();
                    if let Some(v) = volumes {
                        for (i, p) in objs.iter_mut().enumerate() {
                            storage.push(volume_objects(v, namespace, i));
                            *p = with_claim(p.take(), i);
                        }
                    }
                    let mut storage = storage.into_iter();
                    pods += count;
                    if objs.first().is_some_and(|p| p["spec"]["schedulingGates"].as_array().is_some_and(|g| !g.is_empty())) {
                        gated += count;
                    }
                    let names: Vec<String> =
                        objs.iter().map(|o| o["metadata"]["name"].as_str().unwrap_or("").to_string()).collect();
                    created.entry(namespace.clone()).or_default().extend(names.iter().cloned());
                    let path = format!("/api/v1/namespaces/{namespace}/pods");
                    // Bound pods are counted by name with a cursor over the op's pods in creation
                    // order (the order they are queued in): each poll checks the pods bound since
                    // the last one, not the whole op (with another op's backlog bound first, the
                    // cluster-wide binding count said nothing about this op's pods, and counting
                    // all of them by name every 2 ms took a core from the server and the binary).
                    // The first of them bound opens upstream's window (one of the first few
                    // created, not necessarily the very first: a preemptor may wait for its
                    // victims); it is looked for while the pods are still being created, too.
                    let mut first_bound: Option<Instant> = None;
                    let mut cursor = 0usize;
                    let head = &names[..names.len().min(16)];
                    let advance = |cursor: &mut usize, first_bound: &mut Option<Instant>| {
                        while *cursor < names.len() && server.bindings(namespace, &names[*cursor]) > 0 {
                            *cursor += 1;
                        }
                        if first_bound.is_none() && (*cursor > 0 || bound_in(&server, namespace, head) > 0) {
                            *first_bound = Some(Instant::now());
                        }
                    };
                    let t0 = Instant::now();
                    let claims = format!("/api/v1/namespaces/{namespace}/persistentvolumeclaims");
                    for (i, o) in objs.into_iter().enumerate() {
                        // As upstream: the claim, then the volume, then the pod.
                        if let Some((pv, pvc)) = storage.next() {
                            server.create(&claims, pvc);
                            server.create("/api/v1/persistentvolumes", pv);
                        }
                        server.create(&path, o);
                        if *measured && i % 64 == 63 {
                            advance(&mut cursor, &mut first_bound);
                        }
                    }
                    if !*wait {
                        continue;
                    }
                    // The barrier: this op's pods are bound (or the time is up).
                    let limit = Duration::from_secs(120 + *count as u64 / 50);
                    while t0.elapsed() < limit && cursor < names.len() {
                        advance(&mut cursor, &mut first_bound);
                        if cursor < names.len() {
                            std::thread::sleep(Duration::from_millis(2));
                        }
                    }
                    let mut bound = cursor;
                    let dt = t0.elapsed().as_secs_f64();
                    if bound < *count {
                        bound = bound_in(&server, namespace, &names);
                        eprintln!("  {}: only {bound} of {count} pods bound after {limit:?}", w.name);
                    }
                    if *measured {
                        // A window of a poll or two (tiny smoke sizes) measures the polling, not
                        // the scheduler: the time from the first create stands in then.
                        let from_first_bound =
                            first_bound.map(|t| dt - t.duration_since(t0).as_secs_f64()).filter(|w| *w >= 0.01).unwrap_or(dt);
                        result.add(bound, Window { from_create: dt, from_first_bound, cpu_from_first_bound: None });
                    }
                }
                Op::Churn { recreate, number, interval, templates, namespace } => {
                    let (server, stop) = (&server, &stop);
                    scope.spawn(move || {
                        let start = Instant::now();
                        let mut live: Vec<Vec<(String, String)>> = vec![Vec::new(); templates.len()];
                        let mut t = 0usize;
                        let mut serial = 0usize;
                        while !stop.load(Ordering::Relaxed) {
                            let next = start + *interval * (t as u32 + 1);
                            if let Some(d) = next.checked_duration_since(Instant::now()) {
                                std::thread::sleep(d.min(Duration::from_millis(20)));
                                continue;
                            }
                            t += 1;
                            match churn_step(*recreate, *number, t, live[0].len()) {
                                ChurnStep::Create => {
                                    for (i, template) in templates.iter().enumerate() {
                                        serial += 1;
                                        let obj = churn_object(template, namespace, 1_000_000 + serial);
                                        let kind = template["kind"].as_str().unwrap_or("");
                                        let coll = collection(kind, namespace);
                                        let name = obj["metadata"]["name"].as_str().unwrap_or("").to_string();
                                        if server.try_create(&coll, obj).is_ok() {
                                            live[i].push((coll, name));
                                        }
                                    }
                                }
                                ChurnStep::Delete => {
                                    for objs in live.iter_mut() {
                                        if !objs.is_empty() {
                                            let (coll, name) = objs.remove(0);
                                            server.delete(&format!("{coll}/{name}"));
                                        }
                                    }
                                }
                                ChurnStep::Idle => {}
                            }
                        }
                    });
                }
                Op::DeletePods { namespace, per_second, wait } => {
                    let names = created.get(namespace).cloned().unwrap_or_default();
                    let (server, stop) = (&server, &stop);
                    let namespace = namespace.clone();
                    let per_second = *per_second;
                    let h = scope.spawn(move || {
                        let start = Instant::now();
                        for (i, name) in names.iter().enumerate() {
                            if stop.load(Ordering::Relaxed) {
                                return;
                            }
                            if per_second > 0 {
                                let at = start + Duration::from_secs_f64(i as f64 / per_second as f64);
                                while let Some(d) = at.checked_duration_since(Instant::now()) {
                                    if stop.load(Ordering::Relaxed) {
                                        return;
                                    }
                                    std::thread::sleep(d.min(Duration::from_millis(20)));
                                }
                            }
                            // As upstream's client DELETE: a pod with finalizers is only marked deleting.
                            server.delete_as_client(&format!("/api/v1/namespaces/{namespace}/pods/{name}"));
                        }
                    });
                    if *wait {
                        let _ = h.join();
                    } else {
                        waiters.push(h);
                    }
                }
                Op::Barrier { namespaces, attempted } => {
                    let t0 = Instant::now();
                    let limit = Duration::from_secs(300);
                    let scope_ns: Vec<(&String, &Vec<String>)> =
                        created.iter().filter(|(ns, _)| namespaces.is_empty() || namespaces.contains(ns)).collect();
                    let total: usize = scope_ns.iter().map(|(_, n)| n.len()).sum();
                    while t0.elapsed() < limit {
                        let bound: usize = scope_ns.iter().map(|(ns, names)| bound_in(&server, ns, names)).sum();
                        let done = if *attempted {
                            es.as_ref().is_some_and(|e| gated_at_least(e, token, gated)) && bound + gated >= total
                        } else {
                            bound >= total
                        };
                        if done {
                            break;
                        }
                        std::thread::sleep(Duration::from_millis(20));
                    }
                }
            }
        }
        stop.store(true, Ordering::Relaxed);
        drop(waiters);
        drop(es);
    });
    result
}

/// Steady state end to end (upstream's `createPodsSteadily`): `count` pods created, and when all
/// of them are bound, deleted (DeleteCollection with grace period 0: gone at once) and as many
/// created again, until `duration` is over. The window runs from the first binding to the last.
fn steady_state_e2e(server: &TestApiServer, op: &SteadyOp<'_>) -> (usize, Window) {
    let SteadyOp { count, namespace, template, duration, first } = *op;
    let path = format!("/api/v1/namespaces/{namespace}/pods");
    let start = Instant::now();
    let mut serial = first;
    let mut bound = 0usize;
    let mut first_bound: Option<Instant> = None;
    let mut last = start;
    while start.elapsed() < duration {
        let names: Vec<String> = (0..count)
            .map(|i| {
                serial += 1;
                let p = pod_object(template, namespace, serial, i);
                let name = p["metadata"]["name"].as_str().unwrap_or("").to_string();
                server.create(&path, p);
                name
            })
            .collect();
        let mut done = 0usize;
        let limit = start + duration + Duration::from_secs(60);
        while done < names.len() && Instant::now() < limit {
            while done < names.len() && server.bindings(namespace, &names[done]) > 0 {
                done += 1;
                if first_bound.is_none() {
                    first_bound = Some(Instant::now());
                }
            }
            if done < names.len() {
                std::thread::sleep(Duration::from_micros(200));
            }
        }
        bound += done;
        last = Instant::now();
        if done < names.len() {
            eprintln!("  steady state: only {done} of {count} pods bound");
            break;
        }
        for n in &names {
            server.delete(&format!("{path}/{n}"));
        }
    }
    let from_first_bound = first_bound.map_or(0.0, |t| last.duration_since(t).as_secs_f64());
    (bound, Window { from_create: last.duration_since(start).as_secs_f64(), from_first_bound, cpu_from_first_bound: None })
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

/// The environment variable that makes the harness a child replaying one workload in process.
pub const CHILD_ENV: &str = "EDGESCHED_REPLAY_WORKLOAD";

/// The environment variable that makes the child replay its workload end to end instead.
pub const CHILD_E2E_ENV: &str = "EDGESCHED_REPLAY_END_TO_END";

/// One mode of the replay of `w` (median of `runs`) in a child process of the harness (this
/// executable with [`CHILD_ENV`] set, and [`CHILD_E2E_ENV`] for the end-to-end mode), so that it
/// starts from a fresh heap whatever ran before. In one process, an in-process replay following a
/// large end-to-end one measured up to three times its CPU time alone (TopologySpreading after
/// SchedulingDaemonset: 2,953 against 9,294 pods/s) with no other thread of the harness running
/// by then: what remained was the process's state, a heap grown to hold the test API server's
/// objects (RSS stayed at 0.5–0.75 GB). The end-to-end replays lost as much late in a combined
/// run (SchedulingDaemonset 2,120 pods/s as the 21st workload of one process, 3,637 alone), as the
/// test API server lives in the harness process.
fn isolated(w: &Workload, smoke: bool, runs: usize, end_to_end: bool) -> Measured {
    let exe = std::env::current_exe().expect("the harness's own executable");
    let mut cmd = std::process::Command::new(exe);
    cmd.args(["--repeats", &runs.to_string()]).env(CHILD_ENV, &w.name).stderr(std::process::Stdio::inherit());
    if end_to_end {
        cmd.env(CHILD_E2E_ENV, "1");
    }
    if smoke {
        cmd.arg("--smoke");
    }
    let out = cmd.output().expect("start the child harness");
    let text = String::from_utf8_lossy(&out.stdout);
    let line = text.lines().rev().find(|l| l.starts_with('{'));
    let v: Value =
        line.and_then(|l| serde_json::from_str(l).ok()).unwrap_or_else(|| panic!("{}: child harness said {text:?}", w.name));
    let f = |k: &str| v[k].as_f64().unwrap_or(0.0);
    Measured {
        pods_per_sec: f("pods_per_sec"),
        pods_per_cpu_sec: f("pods_per_cpu_sec"),
        pods_per_sec_from_create: f("pods_per_sec_from_create"),
        scheduled: f("scheduled") as usize,
        seconds: f("seconds"),
        seconds_from_create: f("seconds_from_create"),
    }
}

/// The child's part: replay workload `name` in process (or end to end) `runs` times and print the median as one
/// JSON line on stdout.
pub fn child(name: &str, smoke: bool, runs: usize) {
    let w = [Set::Upstream, Set::RealNodes]
        .into_iter()
        .flat_map(|set| load(&dir(), smoke, set))
        .find(|w| w.name == name)
        .unwrap_or_else(|| panic!("no workload {name}"));
    let m = if std::env::var_os(CHILD_E2E_ENV).is_some() {
        median_of((0..runs.clamp(1, 3)).map(|_| e2e(&w)).collect())
    } else {
        median_of((0..runs.max(1)).map(|_| decision(&w)).collect())
    };
    println!(
        "{}",
        json!({"pods_per_sec": m.pods_per_sec, "pods_per_cpu_sec": m.pods_per_cpu_sec,
               "pods_per_sec_from_create": m.pods_per_sec_from_create, "scheduled": m.scheduled,
               "seconds": m.seconds, "seconds_from_create": m.seconds_from_create})
    );
}

/// Whether a workload is selected by `filter`: names containing any of its comma-separated parts.
fn selected(name: &str, filter: Option<&str>) -> bool {
    filter.is_none_or(|f| f.split(',').any(|part| name.contains(part.trim())))
}

/// Run every workload (whose name contains `filter`, or one of its comma-separated parts) in
/// process and, with `e2e`, end to end: the in-process replays first, each in a fresh child
/// process (see [`isolated`]), then the end-to-end ones, each in its own child as well.
pub fn run(set: Set, smoke: bool, runs: usize, e2e_too: bool, filter: Option<&str>) -> Vec<Row> {
    let workloads: Vec<Workload> = load(&dir(), smoke, set).into_iter().filter(|w| selected(&w.name, filter)).collect();
    let mut rows = Vec::new();
    for w in &workloads {
        let (init, measured) = w.pods();
        eprintln!("workload {}: {} nodes, {init} init pods, {measured} measured", w.name, w.nodes());
        let decision = isolated(w, smoke, runs, false);
        eprintln!(
            "  in process: {:.0} pods/s, {:.0} per CPU-second ({} scheduled; {:.0} pods/s from the first create)",
            decision.pods_per_sec, decision.pods_per_cpu_sec, decision.scheduled, decision.pods_per_sec_from_create
        );
        rows.push(Row {
            name: w.name.clone(),
            nodes: w.nodes(),
            init_pods: init,
            measured_pods: measured,
            threshold: w.threshold,
            decision,
            e2e: None,
        });
    }
    if e2e_too {
        for (w, row) in workloads.iter().zip(rows.iter_mut()) {
            eprintln!("workload {} end to end", w.name);
            let e = isolated(w, smoke, runs, true);
            eprintln!(
                "  end to end: {:.0} pods/s ({} scheduled; {:.0} pods/s from the first create)",
                e.pods_per_sec, e.scheduled, e.pods_per_sec_from_create
            );
            row.e2e = Some(e);
        }
    }
    rows
}

fn ratio(rate: f64, threshold: Option<f64>) -> Option<f64> {
    threshold.filter(|t| *t > 0.0).map(|t| (rate / t * 10.0).round() / 10.0)
}

/// The table printed after a run.
pub fn table(rows: &[Row]) -> String {
    let mut s = format!(
        "{:<66} {:>6} {:>6} {:>7} {:>9} {:>10} {:>7} {:>10} {:>7} {:>10} {:>7}\n",
        "workload", "nodes", "init", "measure", "threshold", "in-proc/s", "ratio", "[cpu/s]", "[ratio]", "e2e/s", "ratio"
    );
    for r in rows {
        let t = r.threshold.map_or("-".into(), |t| format!("{t:.0}"));
        let fmt_ratio = |x: Option<f64>| x.map_or("-".into(), |x| format!("{x:.1}x"));
        let (e, er) = match &r.e2e {
            Some(e) => (format!("{:.0}", e.pods_per_sec), fmt_ratio(ratio(e.pods_per_sec, r.threshold))),
            None => ("-".into(), "-".into()),
        };
        s += &format!(
            "{:<66} {:>6} {:>6} {:>7} {:>9} {:>10.0} {:>7} {:>10.0} {:>7} {:>10} {:>7}\n",
            r.name,
            r.nodes,
            r.init_pods,
            r.measured_pods,
            t,
            r.decision.pods_per_sec,
            fmt_ratio(ratio(r.decision.pods_per_sec, r.threshold)),
            r.decision.pods_per_cpu_sec,
            fmt_ratio(ratio(r.decision.pods_per_cpu_sec, r.threshold)),
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
                    "decision_pods_per_sec_from_create": r.decision.pods_per_sec_from_create.round(),
                    "decision_ratio": ratio(r.decision.pods_per_sec, r.threshold),
                    "decision_cpu_ratio": ratio(r.decision.pods_per_cpu_sec, r.threshold),
                    "e2e_pods_per_sec": r.e2e.as_ref().map(|e| e.pods_per_sec.round()),
                    "e2e_scheduled": r.e2e.as_ref().map(|e| e.scheduled),
                    "e2e_pods_per_sec_from_create": r.e2e.as_ref().map(|e| e.pods_per_sec_from_create.round()),
                    "e2e_ratio": r.e2e.as_ref().and_then(|e| ratio(e.pods_per_sec, r.threshold)),
                })
            })
            .collect(),
    )
}
