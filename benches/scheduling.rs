//! Scheduling benchmarks: decision throughput and latency of the pure core, end-to-end throughput
//! of the real binary against the in-memory test API server, memory footprint, start-to-ready
//! time and binary size. Plain `std` timing, medians over repeats; no assertions (benchmarks
//! measure, tests assert).
//!
//! ```text
//! cargo bench --bench scheduling                              # everything, writes benches/results.json
//! cargo bench --bench scheduling -- --only decision,e2e       # a subset
//! cargo bench --bench scheduling -- --only decision --metrics # cycles with the live metrics recorder
//! cargo bench --bench scheduling -- --smoke                   # tiny sizes, a few seconds (CI)
//! cargo bench --bench scheduling -- --only simulate           # simulate at 5,000 nodes / 60,000 pods
//! cargo bench --bench scheduling -- --only cel                # DRA CEL selectors, ns per evaluation
//! cargo bench --bench scheduling -- --only workloads          # upstream's scheduler_perf workloads
//! cargo bench --bench scheduling -- --only workloads-decision --workload Topology   # in process only, a subset
//! cargo bench --bench scheduling -- --only workloads --workload Daemonset,Gated     # names containing any of these
//! cargo bench --bench scheduling -- --only real-nodes         # the topology workloads on nodes labelled as real ones
//! cargo bench --bench scheduling -- --only real-nodes-decision --workload Mix      # in process only, a subset
//! cargo bench --bench scheduling -- --only topology-scaling   # cycle cost from 1,000 to 15,000 nodes
//! ```
//!
//! `simulate` runs the binary Cargo built for this bench on a synthetic cluster file
//! (`core::simulate::synthetic`: 5,000 nodes, 50,000 running and 10,000 pending pods): the
//! marginal decide rate is the pending pods over the CPU time (and the wall time) beyond loading
//! the same file without them; peak RSS is the child's `VmHWM`, compared with the daemon's peak
//! for the same objects served by the test API server once it has scheduled them. It runs once
//! with a mix of pending pods (node selectors, tolerations, required anti-affinity, priority
//! classes) and once with plain ones (requests only).
//!
//! The end-to-end and footprint parts start the binary named by `EDGESCHED_BENCH_BINARY`, else the
//! static musl release build (`out/edgesched-linux-amd64` from `cross/build.sh`, then
//! `target/x86_64-unknown-linux-musl/release/edgesched`), else `target/release/edgesched`, else
//! the binary Cargo built for this bench (bench profile).

#[path = "workloads/replay.rs"]
mod replay;
#[path = "../tests/support/mod.rs"]
mod support;

use edgesched::core::api;
use edgesched::core::metrics::Metrics;
use edgesched::core::rng::Rng;
use edgesched::core::scheduler::{BindOutcome, Effect, Input, Scheduler, Settings};
use edgesched::core::watched::Change;
use serde_json::{json, Value};
use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};
use support::objects::{node, pod};
use support::process::Edgesched;
use support::{KubeAuth, ServerOptions, TestApiServer};

const SCHEDULER: &str = "edgesched";

/// `clientConnection` qps/burst; `None` keeps upstream's defaults.
type Qps = Option<(u32, u32)>;
const ZONES: usize = 3;

struct Opts {
    smoke: bool,
    only: Vec<String>,
    repeats: usize,
    out: Option<PathBuf>,
    /// Decision sizes (node counts) instead of the standard ones.
    sizes: Vec<usize>,
    /// Only the replayed workloads whose name contains this (or one of its comma-separated parts).
    workload: Option<String>,
    /// Decision cycles measured as the live scheduler runs them: with the cycle's metrics
    /// recorder (evaluation counts every cycle, plugin durations in sampled ones).
    metrics: bool,
    /// Only these footprint cases (`idle`, `small`, `nodes-only`, `ready`, `large`) and end-to-end
    /// cases (`e2e-1000`, `e2e-5000`, `e2e-default-qps`); empty means all.
    cases: Vec<String>,
}

fn parse_opts() -> Opts {
    let mut o = Opts {
        smoke: false,
        only: Vec::new(),
        repeats: 0,
        out: None,
        sizes: Vec::new(),
        workload: None,
        metrics: false,
        cases: Vec::new(),
    };
    let mut args = std::env::args().skip(1);
    while let Some(a) = args.next() {
        match a.as_str() {
            "--smoke" => o.smoke = true,
            "--metrics" => o.metrics = true,
            "--only" => o.only = args.next().unwrap_or_default().split(',').map(str::to_string).collect(),
            "--repeats" => o.repeats = args.next().and_then(|v| v.parse().ok()).unwrap_or(0),
            "--out" => o.out = args.next().map(PathBuf::from),
            "--workload" => o.workload = args.next(),
            "--cases" => o.cases = args.next().unwrap_or_default().split(',').map(str::to_string).collect(),
            "--sizes" => o.sizes = args.next().unwrap_or_default().split(',').filter_map(|v| v.parse().ok()).collect(),
            // `cargo bench` passes `--bench`; filters and other libtest flags are ignored.
            _ => {}
        }
    }
    if o.repeats == 0 {
        o.repeats = if o.smoke { 1 } else { 5 };
    }
    o
}

impl Opts {
    fn wants(&self, part: &str) -> bool {
        self.only.is_empty() || self.only.iter().any(|p| p == part)
    }

    fn wants_case(&self, case: &str) -> bool {
        self.cases.is_empty() || self.cases.iter().any(|c| c == case)
    }
}

fn median(v: &mut [f64]) -> f64 {
    if v.is_empty() {
        return 0.0;
    }
    v.sort_by(|a, b| a.total_cmp(b));
    let n = v.len();
    if n % 2 == 1 {
        v[n / 2]
    } else {
        (v[n / 2 - 1] + v[n / 2]) / 2.0
    }
}

fn percentile(sorted: &[f64], p: f64) -> f64 {
    if sorted.is_empty() {
        return 0.0;
    }
    let rank = ((p / 100.0) * sorted.len() as f64).ceil() as usize;
    sorted[rank.clamp(1, sorted.len()) - 1]
}

// ---------------------------------------------------------------------------------------------
// Cluster shapes shared by every part.

fn bench_node(i: usize) -> Value {
    bench_node_labelled(i, false)
}

/// A bench node; with `hostname`, labelled `kubernetes.io/hostname` as the kubelet labels every
/// real node (one topology domain per node).
fn bench_node_labelled(i: usize, hostname: bool) -> Value {
    let name = format!("node-{i:05}");
    let b = node(&name);
    let b = if hostname { b.label("kubernetes.io/hostname", &name) } else { b };
    b.cpu("32")
        .memory("128Gi")
        .pods(110)
        .label("topology.kubernetes.io/region", "region-1")
        .label("topology.kubernetes.io/zone", &format!("zone-{}", i % ZONES))
        .image("registry.k8s.io/pause:3.10", 700_000)
        .build()
}

/// An existing (bound) pod; with `affinity`, one in ten carries a required anti-affinity term.
fn existing_pod(i: usize, node_index: usize, affinity: bool) -> Value {
    let mut b = pod("load", &format!("existing-{i:06}"))
        .scheduler(SCHEDULER)
        .cpu("100m")
        .memory("128Mi")
        .label("app", &format!("svc-{}", i % 50))
        .node_name(&format!("node-{node_index:05}"))
        .phase("Running");
    if affinity && i % 10 == 0 {
        b = b.affinity(json!({"podAntiAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": [
            {"labelSelector": {"matchLabels": {"app": "batch"}}, "topologyKey": "kubernetes.io/hostname"}
        ]}}));
    }
    b.build()
}

/// A pending pod; `topology` adds two spread constraints and pod (anti-)affinity preferences.
fn pending_pod(ns: &str, i: usize, topology: bool) -> Value {
    let app = format!("web-{}", i % 20);
    let mut b = pod(ns, &format!("p-{i:06}")).scheduler(SCHEDULER).cpu("100m").memory("64Mi").label("app", &app);
    if topology {
        b = b
            .spec_field(
                "topologySpreadConstraints",
                json!([
                    {"maxSkew": 1, "topologyKey": "topology.kubernetes.io/zone", "whenUnsatisfiable": "DoNotSchedule",
                     "labelSelector": {"matchLabels": {"app": app}}},
                    {"maxSkew": 1, "topologyKey": "kubernetes.io/hostname", "whenUnsatisfiable": "ScheduleAnyway",
                     "labelSelector": {"matchLabels": {"app": app}}}
                ]),
            )
            .affinity(json!({
                "podAntiAffinity": {"preferredDuringSchedulingIgnoredDuringExecution": [
                    {"weight": 100, "podAffinityTerm": {"labelSelector": {"matchLabels": {"app": app}},
                                                        "topologyKey": "kubernetes.io/hostname"}}]},
                "podAffinity": {"preferredDuringSchedulingIgnoredDuringExecution": [
                    {"weight": 50, "podAffinityTerm": {"labelSelector": {"matchLabels": {"app": format!("svc-{}", i % 50)}},
                                                       "topologyKey": "topology.kubernetes.io/zone"}}]}
            }));
    }
    b.build()
}

fn decode<T: serde::de::DeserializeOwned>(v: Value) -> T {
    serde_json::from_value(v).expect("bench object decodes")
}

// ---------------------------------------------------------------------------------------------
// Decision: the scheduling cycle of the core (queue pop, PreFilter/Filter/Score/select, assume).

#[derive(Clone, Debug)]
struct DecisionResult {
    variant: &'static str,
    nodes: usize,
    existing_pods: usize,
    pods_per_round: usize,
    rounds: usize,
    /// Pods per CPU-second of the scheduling thread.
    pods_per_sec: f64,
    /// Pods per wall-clock second spent in cycles (includes time slices lost to other processes).
    pods_per_sec_wall: f64,
    p50_us: f64,
    p99_us: f64,
    p50_wall_us: f64,
    p99_wall_us: f64,
    nodes_evaluated: f64,
    nodes_scored: f64,
    setup_s: f64,
}

fn scheduler_config() -> edgesched::core::config::SchedulerConfig {
    let text = format!(
        "apiVersion: kubescheduler.config.k8s.io/v1\nkind: KubeSchedulerConfiguration\nprofiles:\n- schedulerName: {SCHEDULER}\n"
    );
    edgesched::core::config::load_str(&text, "bench.yaml").expect("bench config").config
}

/// The scheduler core the in-process benches drive: the bench configuration, a fixed seed, and
/// the (empty) priority classes listed.
fn bench_scheduler(now: Instant) -> Scheduler {
    let cfg = scheduler_config();
    let profiles = edgesched::core::simulate::frameworks(&cfg).expect("frameworks");
    let settings = Settings {
        percentage_of_nodes_to_score: cfg.percentage_of_nodes_to_score,
        pod_initial_backoff: Duration::from_secs(1),
        pod_max_backoff: Duration::from_secs(10),
        ..Default::default()
    };
    let mut sched = Scheduler::new(profiles, &settings, Metrics::new(), Rng::seeded(1), now);
    sched.handle(Input::watch::<api::PriorityClass>(Change::ListBegin), now);
    sched.handle(Input::watch::<api::PriorityClass>(Change::ListPage(Vec::new())), now);
    sched.handle(Input::watch::<api::PriorityClass>(Change::ListDone), now);
    sched
}

/// The live scheduler's clock for the cycle's metrics recorder (`--metrics`).
struct SystemTicker;

impl edgesched::core::framework::instrument::Ticker for SystemTicker {
    fn now(&self) -> Instant {
        Instant::now()
    }
}

/// What the decision bench's pods and nodes look like.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum DecisionKind {
    /// Plain pods (requests only) on nodes with a zone.
    Default,
    /// Pods spreading by zone and hostname with (anti-)affinity preferences, one in ten existing
    /// pods with a required hostname anti-affinity term; nodes without a hostname label, as
    /// upstream's scheduler_perf nodes.
    Topology,
    /// The same on nodes labelled with their hostname, as real nodes are: one domain per node.
    HostnameTopology,
}

impl DecisionKind {
    fn topology(self) -> bool {
        self != DecisionKind::Default
    }

    fn name(self, metrics: bool) -> &'static str {
        match (self, metrics) {
            (DecisionKind::Default, false) => "default",
            (DecisionKind::Topology, false) => "topology",
            (DecisionKind::HostnameTopology, false) => "topology+hostname",
            (DecisionKind::Default, true) => "default+metrics",
            (DecisionKind::Topology, true) => "topology+metrics",
            (DecisionKind::HostnameTopology, true) => "topology+hostname+metrics",
        }
    }
}

fn decision(
    nodes: usize,
    per_node: usize,
    kind: DecisionKind,
    pods_per_round: usize,
    rounds: usize,
    metrics: bool,
) -> DecisionResult {
    let topology = kind.topology();
    let setup = Instant::now();
    let mut now = Instant::now();
    let mut sched = bench_scheduler(now);
    if metrics {
        sched.set_ticker(Box::new(SystemTicker));
    }
    let hostname = kind == DecisionKind::HostnameTopology;
    let node_objs: Vec<Box<api::Node>> = (0..nodes).map(|i| Box::new(decode(bench_node_labelled(i, hostname)))).collect();
    sched.handle(Input::watch_boxed::<api::Node>(Change::ListBegin), now);
    sched.handle(Input::watch_boxed::<api::Node>(Change::ListPage(node_objs)), now);
    sched.handle(Input::watch_boxed::<api::Node>(Change::ListDone), now);
    sched.handle(Input::watch_boxed::<api::Pod>(Change::ListBegin), now);
    let total = nodes * per_node;
    let mut i = 0;
    while i < total {
        let page: Vec<Box<api::Pod>> =
            (i..(i + 5000).min(total)).map(|j| Box::new(decode(existing_pod(j, j % nodes, topology)))).collect();
        i += page.len();
        sched.handle(Input::watch_boxed::<api::Pod>(Change::ListPage(page)), now);
    }
    sched.handle(Input::watch_boxed::<api::Pod>(Change::ListDone), now);
    sched.handle(Input::Leading(true), now);
    let setup_s = setup.elapsed().as_secs_f64();

    let mut tput_cpu = Vec::new();
    let mut tput_wall = Vec::new();
    let (mut p50s, mut p99s, mut p50w, mut p99w) = (Vec::new(), Vec::new(), Vec::new(), Vec::new());
    let mut evaluated = 0usize;
    let mut scored = 0usize;
    let mut binds = 0usize;
    let mut next = 0usize;
    for round in 0..rounds {
        let ns = format!("round-{round}");
        let mut round_pods: std::collections::HashMap<String, api::Pod> = std::collections::HashMap::new();
        for _ in 0..pods_per_round {
            now += Duration::from_micros(1);
            let p: api::Pod = decode(pending_pod(&ns, next, topology));
            next += 1;
            round_pods.insert(format!("{}/{}", p.metadata.namespace, p.metadata.name), p.clone());
            sched.handle(Input::watch_boxed::<api::Pod>(Change::Added(Box::new(p))), now);
        }
        let mut cpu: Vec<f64> = Vec::with_capacity(pods_per_round);
        let mut wall: Vec<f64> = Vec::with_capacity(pods_per_round);
        let mut bound: Vec<api::Pod> = Vec::with_capacity(pods_per_round);
        loop {
            now += Duration::from_micros(10);
            let c = thread_cpu_ns();
            let t = Instant::now();
            let r = sched.schedule_one(now, edgesched::core::framework::cycle::Explain::Off);
            let dt = t.elapsed();
            let dc = thread_cpu_ns().saturating_sub(c);
            if r.is_none() {
                break;
            }
            wall.push(dt.as_secs_f64() * 1e6);
            cpu.push(dc as f64 / 1e3);
            for e in sched.take_effects() {
                if let Effect::Bind(b) = e {
                    evaluated += b.evaluated_nodes;
                    scored += b.feasible_nodes;
                    binds += 1;
                    if let Some(mut p) = round_pods.remove(&*b.pod.key) {
                        p.spec.node_name = b.node.to_string();
                        bound.push(p);
                    }
                    sched.handle(Input::BindDone(BindOutcome::new(b.pod.key.clone(), b.node, Ok(()))), now);
                }
            }
        }
        tput_cpu.push(cpu.len() as f64 / (cpu.iter().sum::<f64>() / 1e6).max(1e-9));
        tput_wall.push(wall.len() as f64 / (wall.iter().sum::<f64>() / 1e6).max(1e-9));
        cpu.sort_by(|a, b| a.total_cmp(b));
        wall.sort_by(|a, b| a.total_cmp(b));
        p50s.push(percentile(&cpu, 50.0));
        p99s.push(percentile(&cpu, 99.0));
        p50w.push(percentile(&wall, 50.0));
        p99w.push(percentile(&wall, 99.0));
        // Remove this round's pods so every round starts from the same cluster.
        for p in bound {
            sched.handle(Input::watch_boxed::<api::Pod>(Change::Deleted(Box::new(p))), now);
        }
    }
    DecisionResult {
        variant: kind.name(metrics),
        nodes,
        existing_pods: total,
        pods_per_round,
        rounds,
        pods_per_sec: median(&mut tput_cpu),
        pods_per_sec_wall: median(&mut tput_wall),
        p50_us: median(&mut p50s),
        p99_us: median(&mut p99s),
        p50_wall_us: median(&mut p50w),
        p99_wall_us: median(&mut p99w),
        nodes_evaluated: evaluated as f64 / binds.max(1) as f64,
        nodes_scored: scored as f64 / binds.max(1) as f64,
        setup_s,
    }
}

/// The decision rows as a text table.
fn decision_table(rows: &[DecisionResult]) -> String {
    let mut out = String::new();
    let _ = writeln!(
        out,
        "{:<18} {:>6} {:>8} {:>8} {:>8} {:>8} {:>8} {:>9} {:>10} {:>8} {:>10}",
        "variant", "nodes", "existing", "pods/s", "[wall]", "p50 µs", "p99 µs", "[p99]", "evaluated", "scored", "ns/scored"
    );
    for r in rows {
        let _ = writeln!(
            out,
            "{:<18} {:>6} {:>8} {:>8.0} {:>8.0} {:>8.1} {:>8.1} {:>9.1} {:>10.0} {:>8.0} {:>10.0}",
            r.variant,
            r.nodes,
            r.existing_pods,
            r.pods_per_sec,
            r.pods_per_sec_wall,
            r.p50_us,
            r.p99_us,
            r.p99_wall_us,
            r.nodes_evaluated,
            r.nodes_scored,
            1e9 / r.pods_per_sec / r.nodes_scored.max(1.0)
        );
    }
    out
}

/// One decision row as `benches/results.json` records it.
fn decision_json(r: &DecisionResult) -> Value {
    json!({
        "variant": r.variant, "nodes": r.nodes, "existing_pods": r.existing_pods,
        "pods_per_round": r.pods_per_round, "rounds": r.rounds,
        "pods_per_sec": r.pods_per_sec.round(), "p50_us": (r.p50_us * 10.0).round() / 10.0,
        "p99_us": (r.p99_us * 10.0).round() / 10.0,
        "pods_per_sec_wall": r.pods_per_sec_wall.round(),
        "p50_wall_us": (r.p50_wall_us * 10.0).round() / 10.0,
        "p99_wall_us": (r.p99_wall_us * 10.0).round() / 10.0,
        "nodes_evaluated": r.nodes_evaluated.round(), "nodes_scored": r.nodes_scored.round(),
        "ns_per_scored_node": (1e9 / r.pods_per_sec / r.nodes_scored.max(1.0)).round(),
    })
}

/// CPU time of the calling thread (excludes time the thread waited for a core: the machine is
/// shared, so wall-clock cycle times include other processes' time slices).
fn thread_cpu_ns() -> u64 {
    let mut ts = libc::timespec { tv_sec: 0, tv_nsec: 0 };
    // SAFETY: `ts` is a valid, writable timespec for the duration of the call.
    let rc = unsafe { libc::clock_gettime(libc::CLOCK_THREAD_CPUTIME_ID, &mut ts) };
    if rc != 0 {
        return 0;
    }
    ts.tv_sec as u64 * 1_000_000_000 + ts.tv_nsec as u64
}

// ---------------------------------------------------------------------------------------------
// The real binary against the test API server.

fn manifest_dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// Which binary the process parts run (see the module comment).
fn pick_binary() -> PathBuf {
    if let Some(p) = std::env::var_os("EDGESCHED_BENCH_BINARY").filter(|p| !p.is_empty()) {
        return PathBuf::from(p);
    }
    let root = manifest_dir();
    for cand in ["out/edgesched-linux-amd64", "target/x86_64-unknown-linux-musl/release/edgesched", "target/release/edgesched"] {
        let p = root.join(cand);
        if p.is_file() {
            return p;
        }
    }
    PathBuf::from(env!("CARGO_BIN_EXE_edgesched"))
}

fn start_server() -> TestApiServer {
    TestApiServer::start_with(ServerOptions {
        history_window: 50_000,
        bookmark_interval: Duration::from_secs(5),
        ..Default::default()
    })
}

/// Start edgesched with a plain configuration; `qps` `None` leaves upstream's defaults (50/100).
fn launch(server: &TestApiServer, qps: Qps) -> Edgesched {
    let dir = support::tempdir("edgesched-bench");
    let kubeconfig = server.write_kubeconfig(&dir, KubeAuth::ClientCert { user: "system:kube-scheduler".into() });
    let client = match qps {
        Some((q, b)) => format!("  qps: {q}\n  burst: {b}\n"),
        None => String::new(),
    };
    let config = format!(
        "apiVersion: kubescheduler.config.k8s.io/v1\nkind: KubeSchedulerConfiguration\nclientConnection:\n  kubeconfig: {}\n{client}leaderElection:\n  leaderElect: false\nprofiles:\n- schedulerName: {SCHEDULER}\n",
        kubeconfig.display()
    );
    let path = dir.join("config.yaml");
    std::fs::write(&path, config).expect("write config");
    let port = support::process::free_port();
    let args = vec![
        format!("--config={}", path.display()),
        format!("--secure-port={port}"),
        "--bind-address=127.0.0.1".to_string(),
        "--v=1".to_string(),
    ];
    Edgesched::spawn(&args, dir, port)
}

const SYNCED: &str = "Caches are synced";

fn wait_synced(es: &Edgesched, timeout: Duration) -> Duration {
    let t = Instant::now();
    while t.elapsed() < timeout {
        if es.logs().contains(SYNCED) {
            return t.elapsed();
        }
        std::thread::sleep(Duration::from_millis(2));
    }
    panic!("edgesched did not sync within {timeout:?}\n{}", es.logs());
}

fn proc_status_kib(pid: i32, field: &str) -> u64 {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).unwrap_or_default();
    status
        .lines()
        .find(|l| l.starts_with(field))
        .and_then(|l| l.split_whitespace().nth(1))
        .and_then(|v| v.parse().ok())
        .unwrap_or(0)
}

/// utime+stime of a process, seconds.
fn proc_cpu_s(pid: i32) -> f64 {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).unwrap_or_default();
    let after = stat.rsplit_once(')').map(|(_, r)| r).unwrap_or("");
    let f: Vec<&str> = after.split_whitespace().collect();
    let ticks: f64 = f.get(11).and_then(|v| v.parse::<f64>().ok()).unwrap_or(0.0)
        + f.get(12).and_then(|v| v.parse::<f64>().ok()).unwrap_or(0.0);
    ticks / 100.0
}

fn proc_threads(pid: i32) -> u64 {
    proc_status_kib(pid, "Threads:")
}

fn add_nodes(server: &TestApiServer, from: usize, to: usize) {
    for i in from..to {
        server.create("/api/v1/nodes", bench_node(i));
    }
}

fn add_existing(server: &TestApiServer, from: usize, to: usize, nodes: usize) {
    for i in from..to {
        server.create("/api/v1/namespaces/load/pods", existing_pod(i, i % nodes, false));
    }
}

#[derive(Clone, Debug)]
struct E2eResult {
    nodes: usize,
    pods: usize,
    qps: String,
    runs: usize,
    pods_per_sec: f64,
    seconds: f64,
    /// edgesched's own CPU time (user + system) per pod while the pods were bound, µs.
    cpu_us_per_pod: f64,
}

fn e2e(nodes: usize, pods: usize, qps: Qps, runs: usize) -> E2eResult {
    let mut rates = Vec::new();
    let mut secs = Vec::new();
    let mut cpu = Vec::new();
    for run in 0..runs {
        let server = start_server();
        add_nodes(&server, 0, nodes);
        let es = launch(&server, qps);
        wait_synced(&es, Duration::from_secs(120));
        let ns = format!("/api/v1/namespaces/e2e-{run}/pods");
        let cpu0 = proc_cpu_s(es.pid());
        let t0 = Instant::now();
        let creator = {
            let objs: Vec<Value> = (0..pods).map(|i| pending_pod(&format!("e2e-{run}"), i, false)).collect();
            let t = Instant::now();
            for o in objs {
                server.create(&ns, o);
            }
            t.elapsed()
        };
        let limit = Duration::from_secs(60 + pods as u64 / 20);
        while server.total_bindings() < pods {
            if t0.elapsed() > limit {
                panic!("only {} of {pods} pods bound after {limit:?}\n{}", server.total_bindings(), es.logs());
            }
            std::thread::sleep(Duration::from_millis(5));
        }
        let dt = t0.elapsed().as_secs_f64();
        let cpu_us = (proc_cpu_s(es.pid()) - cpu0) * 1e6 / pods as f64;
        eprintln!(
            "  e2e run {run}: {nodes} nodes, {pods} pods in {dt:.2}s ({:.0} pods/s; creating took {:.2}s; edgesched CPU {cpu_us:.0} µs/pod)",
            pods as f64 / dt,
            creator.as_secs_f64()
        );
        rates.push(pods as f64 / dt);
        secs.push(dt);
        cpu.push(cpu_us);
        drop(es);
    }
    E2eResult {
        nodes,
        pods,
        qps: match qps {
            Some((q, b)) => format!("{q}/{b}"),
            None => "50/100 (default)".into(),
        },
        runs,
        pods_per_sec: median(&mut rates),
        seconds: median(&mut secs),
        cpu_us_per_pod: median(&mut cpu),
    }
}

/// How many bindings per second the test API server absorbs from a trivial client: the pods are
/// created pending (nobody schedules them), then as many threads as edgesched has API workers
/// (`MAX_API_WORKERS`), sharing one `Client` (edgesched's own, so the same TLS stack,
/// keep-alive pool and request body), POST `pods/binding` for them round-robin over the nodes.
/// Timed from the first POST to the last response; the creation is not timed. This is the
/// ceiling edgesched's end-to-end rate is reported against (it also creates the pods, receives
/// their watch events, schedules, binds and records an Event per pod).
fn binding_limit(nodes: usize, pods: usize, runs: usize) -> f64 {
    use edgesched::core::framework::plugins::default_binder::binding_for;
    use edgesched::shell::daemon::api_workers::MAX_API_WORKERS;
    use edgesched::shell::kube::client::{Client, ClientOptions};
    use std::sync::atomic::{AtomicUsize, Ordering};
    let mut rates = Vec::new();
    for run in 0..runs {
        let server = start_server();
        add_nodes(&server, 0, nodes);
        let ns = format!("limit-{run}");
        let uids: Vec<String> = (0..pods)
            .map(|i| {
                let created = server.create(&format!("/api/v1/namespaces/{ns}/pods"), pending_pod(&ns, i, false));
                created["metadata"]["uid"].as_str().unwrap_or("").to_string()
            })
            .collect();
        let dir = support::tempdir("edgesched-bench-limit");
        let kubeconfig = server.write_kubeconfig(&dir, KubeAuth::ClientCert { user: "system:kube-scheduler".into() });
        let rest = edgesched::shell::kube::kubeconfig::load_kubeconfig(&kubeconfig, None).expect("bench kubeconfig");
        let options = ClientOptions { qps: 100_000.0, burst: 100_000, ..Default::default() };
        let client = Client::new(&rest, &options).expect("bench client");
        let next = AtomicUsize::new(0);
        let failed = AtomicUsize::new(0);
        let t0 = Instant::now();
        std::thread::scope(|scope| {
            for _ in 0..MAX_API_WORKERS {
                scope.spawn(|| loop {
                    let i = next.fetch_add(1, Ordering::Relaxed);
                    let Some(uid) = uids.get(i) else { break };
                    let name = format!("p-{i:06}");
                    let body = binding_for(&ns, &name, uid, &format!("node-{:05}", i % nodes.max(1)));
                    let path = format!("/api/v1/namespaces/{ns}/pods/{name}/binding");
                    if client.create::<_, Value>(&path, &body).is_err() {
                        failed.fetch_add(1, Ordering::Relaxed);
                    }
                });
            }
        });
        let dt = t0.elapsed().as_secs_f64();
        let bound = server.total_bindings();
        eprintln!(
            "  binding limit run {run}: {bound} of {pods} bound in {dt:.2}s ({:.0} bindings/s, {MAX_API_WORKERS} threads, {} failed)",
            bound as f64 / dt,
            failed.load(Ordering::Relaxed)
        );
        rates.push(bound as f64 / dt);
    }
    median(&mut rates)
}

/// How long a trivial client takes to page through what edgesched lists before it is ready
/// (nodes, then pods with edgesched's field selector, 500 per page as client-go pages), reading
/// each page's continue token and skipping the objects: the test API server's share of the
/// ready time, which no scheduler can beat against this server. Returns wall seconds and the
/// CPU seconds of this process (server and trivial client) meanwhile.
fn list_floor(server: &TestApiServer) -> (f64, f64) {
    use edgesched::shell::kube::client::{Client, ClientOptions};
    #[derive(serde::Deserialize)]
    struct Page {
        metadata: PageMeta,
    }
    #[derive(serde::Deserialize)]
    struct PageMeta {
        #[serde(default, rename = "continue")]
        token: String,
    }
    fn encode(s: &str) -> String {
        s.bytes()
            .map(|b| match b {
                b'A'..=b'Z' | b'a'..=b'z' | b'0'..=b'9' | b'-' | b'_' | b'.' | b'~' => (b as char).to_string(),
                _ => format!("%{b:02X}"),
            })
            .collect()
    }
    let dir = support::tempdir("edgesched-bench-list");
    let kubeconfig = server.write_kubeconfig(&dir, KubeAuth::ClientCert { user: "system:kube-scheduler".into() });
    let rest = edgesched::shell::kube::kubeconfig::load_kubeconfig(&kubeconfig, None).expect("bench kubeconfig");
    let client = Client::new(&rest, &ClientOptions { qps: 100_000.0, burst: 100_000, ..Default::default() }).expect("client");
    let me = std::process::id() as i32;
    let (t0, cpu0) = (Instant::now(), proc_cpu_s(me));
    for (path, selector) in [("/api/v1/nodes", ""), ("/api/v1/pods", "status.phase!=Succeeded,status.phase!=Failed")] {
        let mut token = String::new();
        loop {
            let mut query = format!("{path}?limit=500");
            if !selector.is_empty() {
                query += &format!("&fieldSelector={}", encode(selector));
            }
            if !token.is_empty() {
                query += &format!("&continue={}", encode(&token));
            }
            let page: Page = client.get(&query).expect("list page");
            if page.metadata.token.is_empty() {
                break;
            }
            token = page.metadata.token;
        }
    }
    (t0.elapsed().as_secs_f64(), proc_cpu_s(me) - cpu0)
}

#[derive(Clone, Debug)]
struct FootprintResult {
    nodes: usize,
    pods: usize,
    ready_s: f64,
    ready_cpu_s: f64,
    rss_kib: u64,
    hwm_kib: u64,
    /// Anonymous (heap, stacks) and file-backed (the binary's pages) parts of `rss_kib`.
    anon_kib: u64,
    file_kib: u64,
    threads: u64,
}

/// Start edgesched against the server as it is, wait until synced, settle, measure, stop.
fn footprint_once(server: &TestApiServer, nodes: usize, pods: usize) -> FootprintResult {
    let es = launch(server, Some((100_000, 100_000)));
    let ready = wait_synced(&es, Duration::from_secs(300));
    let cpu = proc_cpu_s(es.pid());
    std::thread::sleep(Duration::from_millis(1500));
    let r = FootprintResult {
        nodes,
        pods,
        ready_s: ready.as_secs_f64(),
        ready_cpu_s: cpu,
        rss_kib: proc_status_kib(es.pid(), "VmRSS:"),
        hwm_kib: proc_status_kib(es.pid(), "VmHWM:"),
        anon_kib: proc_status_kib(es.pid(), "RssAnon:"),
        file_kib: proc_status_kib(es.pid(), "RssFile:"),
        threads: proc_threads(es.pid()),
    };
    eprintln!(
        "  footprint {nodes} nodes/{pods} pods: ready {:.2}s (cpu {:.2}s), RSS {} KiB (anon {}, file {}), peak {} KiB, {} threads",
        r.ready_s, r.ready_cpu_s, r.rss_kib, r.anon_kib, r.file_kib, r.hwm_kib, r.threads
    );
    r
}

/// Median of `runs` starts (by peak RSS and ready time separately).
fn footprint(server: &TestApiServer, nodes: usize, pods: usize, runs: usize) -> FootprintResult {
    let all: Vec<FootprintResult> = (0..runs).map(|_| footprint_once(server, nodes, pods)).collect();
    let med = |f: &dyn Fn(&FootprintResult) -> f64| median(&mut all.iter().map(f).collect::<Vec<_>>());
    FootprintResult {
        nodes,
        pods,
        ready_s: med(&|r| r.ready_s),
        ready_cpu_s: med(&|r| r.ready_cpu_s),
        rss_kib: med(&|r| r.rss_kib as f64) as u64,
        hwm_kib: med(&|r| r.hwm_kib as f64) as u64,
        anon_kib: med(&|r| r.anon_kib as f64) as u64,
        file_kib: med(&|r| r.file_kib as f64) as u64,
        threads: all.last().map(|r| r.threads).unwrap_or(0),
    }
}

fn file_size(p: &Path) -> Option<u64> {
    std::fs::metadata(p).ok().map(|m| m.len())
}

// ---------------------------------------------------------------------------------------------
// simulate: the what-if command at cluster scale.

/// One run of the binary: wall and CPU seconds, peak RSS (KiB, `VmHWM`) and stdout bytes.
struct ChildRun {
    secs: f64,
    /// User + system CPU time (the machine is shared: wall time includes other processes' slices).
    cpu_secs: f64,
    peak_kib: u64,
    out_bytes: u64,
}

/// Run `binary args`, counting its stdout, and reap it with `wait4` for its CPU time.
#[allow(clippy::zombie_processes)] // reaped by wait4, which std's wait cannot replace (it drops the rusage)
fn run_measured(binary: &Path, args: &[String]) -> ChildRun {
    use std::io::Read as _;
    let t0 = Instant::now();
    let mut child = std::process::Command::new(binary)
        .args(args)
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::null())
        .spawn()
        .expect("spawn edgesched");
    let mut stdout = child.stdout.take().expect("stdout");
    let reader = std::thread::spawn(move || {
        let mut buf = vec![0u8; 1 << 16];
        let mut n = 0u64;
        while let Ok(k) = stdout.read(&mut buf) {
            if k == 0 {
                break;
            }
            n += k as u64;
        }
        n
    });
    let pid = child.id() as libc::pid_t;
    // The child's own high-water mark, read from /proc while it runs (VmHWM only grows, so the
    // last read is its peak). `ru_maxrss` cannot be used: Linux carries the parent's peak over
    // exec into it, and this harness is larger than a small simulation.
    let done = std::sync::Arc::new(std::sync::atomic::AtomicBool::new(false));
    let hwm = {
        let done = done.clone();
        std::thread::spawn(move || {
            let mut peak = 0;
            while !done.load(std::sync::atomic::Ordering::Relaxed) {
                peak = peak.max(proc_status_kib(pid, "VmHWM:"));
                std::thread::sleep(Duration::from_millis(5));
            }
            peak
        })
    };
    let mut status = 0;
    // SAFETY: rusage is plain data filled by the kernel; pid is our own unreaped child.
    let mut usage: libc::rusage = unsafe { std::mem::zeroed() };
    let rc = unsafe { libc::wait4(pid, &mut status, 0, &mut usage) };
    let secs = t0.elapsed().as_secs_f64();
    done.store(true, std::sync::atomic::Ordering::Relaxed);
    let peak_kib = hwm.join().unwrap_or(0);
    assert_eq!(rc, pid, "wait4");
    assert!(libc::WIFEXITED(status) && libc::WEXITSTATUS(status) == 0, "edgesched {args:?} failed: status {status}");
    let out_bytes = reader.join().unwrap_or(0);
    let tv = |t: libc::timeval| t.tv_sec as f64 + t.tv_usec as f64 / 1e6;
    ChildRun { secs, cpu_secs: tv(usage.ru_utime) + tv(usage.ru_stime), peak_kib, out_bytes }
}

/// The daemon's peak RSS with the same objects in the test API server, once it has scheduled
/// what it can (bindings stable for 2 s).
fn daemon_peak_kib(items: &[String]) -> (u64, usize) {
    use edgesched::core::simulate::synthetic::cluster_yaml;
    let server = start_server();
    // In pieces: the test server's YAML parser keeps its default limits.
    for chunk in items.chunks(2_000) {
        server.apply_yaml(&cluster_yaml(chunk));
    }
    let es = launch(&server, Some((100_000, 100_000)));
    wait_synced(&es, Duration::from_secs(600));
    let (mut last, mut since) = (usize::MAX, Instant::now());
    let t0 = Instant::now();
    while since.elapsed() < Duration::from_secs(2) && t0.elapsed() < Duration::from_secs(600) {
        let n = server.total_bindings();
        if n != last {
            (last, since) = (n, Instant::now());
        }
        std::thread::sleep(Duration::from_millis(50));
    }
    (proc_status_kib(es.pid(), "VmHWM:"), last)
}

fn simulate_bench(smoke: bool, runs: usize) -> (String, Value) {
    let mut out = String::new();
    let mut rows = Vec::new();
    for plain in [false, true] {
        let (text, v) = simulate_variant(smoke, runs, plain);
        out.push_str(&text);
        rows.push(v);
    }
    (out, Value::Array(rows))
}

fn simulate_variant(smoke: bool, runs: usize, plain: bool) -> (String, Value) {
    use edgesched::core::simulate::synthetic::{self, Shape};
    let (nodes, running, pending) = if smoke { (100, 1_000, 200) } else { (5_000, 50_000, 10_000) };
    let variant = if plain { "plain" } else { "mixed" };
    eprintln!("simulate ({variant}): {nodes} nodes, {running} running, {pending} pending");
    let dir = support::tempdir("bench-simulate");
    let items = synthetic::items(&Shape { nodes, running, pending, scheduler_name: SCHEDULER, plain }, 1);
    let full = synthetic::cluster_yaml(&items);
    let (full_path, load_path, cfg_path) =
        (dir.path().join("cluster.yaml"), dir.path().join("load.yaml"), dir.path().join("config.yaml"));
    std::fs::write(&full_path, &full).expect("write cluster");
    std::fs::write(&load_path, synthetic::cluster_yaml(&items[..items.len() - pending])).expect("write load");
    std::fs::write(
        &cfg_path,
        format!("apiVersion: kubescheduler.config.k8s.io/v1\nkind: KubeSchedulerConfiguration\nprofiles:\n- schedulerName: {SCHEDULER}\n"),
    )
    .expect("write config");
    // The same build for the command and the daemon (release builds on disk may predate it).
    let binary = PathBuf::from(env!("CARGO_BIN_EXE_edgesched"));
    let args = |cluster: &Path, output: &[&str]| -> Vec<String> {
        let mut a: Vec<String> = ["simulate", "--seed", "1", "--config"].iter().map(|s| s.to_string()).collect();
        a.push(cfg_path.display().to_string());
        a.push("--cluster".into());
        a.push(cluster.display().to_string());
        a.extend(output.iter().map(|s| s.to_string()));
        a
    };
    // [load, placements, json]: wall, cpu, peak; output bytes of the last run.
    let mut wall: [Vec<f64>; 3] = Default::default();
    let mut cpu: [Vec<f64>; 3] = Default::default();
    let mut peak: [Vec<f64>; 3] = Default::default();
    let mut bytes = [0u64; 3];
    for run in 0..runs {
        let r = [
            run_measured(&binary, &args(&load_path, &["--output", "placements"])),
            run_measured(&binary, &args(&full_path, &["--output", "placements"])),
            run_measured(&binary, &args(&full_path, &["--output", "json", "--top", "5"])),
        ];
        eprintln!(
            "  run {run}: load {:.2}s (cpu {:.2}s, {} KiB), placements {:.2}s (cpu {:.2}s, {} KiB), json --top 5 {:.2}s (cpu {:.2}s, {} KiB, {} bytes)",
            r[0].secs, r[0].cpu_secs, r[0].peak_kib, r[1].secs, r[1].cpu_secs, r[1].peak_kib, r[2].secs, r[2].cpu_secs, r[2].peak_kib, r[2].out_bytes
        );
        for i in 0..3 {
            wall[i].push(r[i].secs);
            cpu[i].push(r[i].cpu_secs);
            peak[i].push(r[i].peak_kib as f64);
            bytes[i] = r[i].out_bytes;
        }
    }
    let wall = wall.map(|mut v| median(&mut v));
    let cpu = cpu.map(|mut v| median(&mut v));
    let peak = peak.map(|mut v| median(&mut v) as u64);
    let rate = |t: &[f64; 3], i: usize| pending as f64 / (t[i] - t[0]).max(1e-6);
    let (daemon_kib, bound) = daemon_peak_kib(&items);
    let rss_ratio = peak[1].max(peak[2]) as f64 / daemon_kib.max(1) as f64;
    let load_avg = std::fs::read_to_string("/proc/loadavg").unwrap_or_default();
    let load3 = load_avg.split_whitespace().take(3).collect::<Vec<_>>().join(" ");
    let mut out = String::new();
    let _ = writeln!(
        out,
        "\nsimulate, {variant} pending pods: {nodes} nodes, {running} running, {pending} pending ({} MB file; median of {runs} runs; load average {load3})",
        full.len() / 1_000_000
    );
    let _ = writeln!(
        out,
        "{:<14} {:>7} {:>7} {:>16} {:>16} {:>9} {:>12}",
        "run", "wall s", "cpu s", "marginal pod/s", "[wall pod/s]", "peak MiB", "output bytes"
    );
    for (i, name) in ["load only", "placements", "json --top 5"].iter().enumerate() {
        let (r, rw) = if i == 0 {
            ("-".to_string(), "-".to_string())
        } else {
            (format!("{:.0}", rate(&cpu, i)), format!("{:.0}", rate(&wall, i)))
        };
        let _ = writeln!(
            out,
            "{name:<14} {:>7.2} {:>7.2} {r:>16} {rw:>16} {:>9.1} {:>12}",
            wall[i],
            cpu[i],
            peak[i] as f64 / 1024.0,
            bytes[i]
        );
    }
    let _ = writeln!(
        out,
        "daemon peak RSS {:.1} MiB after {bound} bindings; simulate/daemon peak {rss_ratio:.2}x (budget 2x); json/placements cpu {:.2}x, marginal {:.2}x (budget 2x)",
        daemon_kib as f64 / 1024.0,
        cpu[2] / cpu[1],
        (cpu[2] - cpu[0]) / (cpu[1] - cpu[0]).max(1e-6)
    );
    let r3 = |x: f64| (x * 1000.0).round() / 1000.0;
    let v = json!({
        "variant": variant, "nodes": nodes, "running": running, "pending": pending, "file_bytes": full.len(), "runs": runs,
        "loadavg_after": load_avg.trim(),
        "load_only_s": r3(wall[0]), "placements_s": r3(wall[1]), "json_top5_s": r3(wall[2]),
        "load_only_cpu_s": r3(cpu[0]), "placements_cpu_s": r3(cpu[1]), "json_top5_cpu_s": r3(cpu[2]),
        "placements_marginal_pods_per_cpu_sec": rate(&cpu, 1).round(),
        "json_top5_marginal_pods_per_cpu_sec": rate(&cpu, 2).round(),
        "placements_marginal_pods_per_wall_sec": rate(&wall, 1).round(),
        "json_top5_marginal_pods_per_wall_sec": rate(&wall, 2).round(),
        "json_over_placements_cpu": (cpu[2] / cpu[1] * 100.0).round() / 100.0,
        "load_only_peak_rss_kib": peak[0], "placements_peak_rss_kib": peak[1], "json_top5_peak_rss_kib": peak[2],
        "daemon_peak_rss_kib": daemon_kib, "daemon_bindings": bound,
        "peak_rss_over_daemon": (rss_ratio * 100.0).round() / 100.0,
        "placements_output_bytes": bytes[1], "json_top5_output_bytes": bytes[2],
    });
    (out, v)
}

// ---------------------------------------------------------------------------------------------

fn machine() -> Value {
    let cpu = std::fs::read_to_string("/proc/cpuinfo")
        .unwrap_or_default()
        .lines()
        .find(|l| l.starts_with("model name"))
        .and_then(|l| l.split_once(':'))
        .map(|(_, v)| v.trim().to_string())
        .unwrap_or_default();
    let mem_kib = std::fs::read_to_string("/proc/meminfo")
        .unwrap_or_default()
        .lines()
        .find(|l| l.starts_with("MemTotal:"))
        .and_then(|l| l.split_whitespace().nth(1))
        .and_then(|v| v.parse::<u64>().ok())
        .unwrap_or(0);
    let load = std::fs::read_to_string("/proc/loadavg").unwrap_or_default();
    json!({
        "cpu": cpu,
        "cpus": std::thread::available_parallelism().map(|n| n.get()).unwrap_or(1),
        "memory_mib": mem_kib / 1024,
        "loadavg_at_start": load.trim(),
    })
}

/// DRA CEL device selectors: nanoseconds per `CompiledSelector::matches` on one device (the
/// selector compiled once, as the allocator's cache does), median of rounds; and the one-off
/// compile time.
fn cel_bench(smoke: bool, repeats: usize) -> (String, Value) {
    use edgesched::core::dra::cel::{compile, AttributeValue, CelDevice, CelFeatures};
    use edgesched::core::quantity::Quantity;
    let cases = [
        (
            "typical",
            r#"device.driver == "gpu.example.com" && device.attributes["gpu.example.com"].model == "a100" && device.capacity["gpu.example.com"].memory.compareTo(quantity("40Gi")) >= 0"#,
        ),
        ("driver only", r#"device.driver == "gpu.example.com""#),
        ("semver", r#"device.attributes["gpu.example.com"].driverVersion.isGreaterThan(semver("1.0.0"))"#),
        ("regex", r#"device.attributes["gpu.example.com"].model.matches("^a[0-9]+$")"#),
        ("loop over ids", r#"device.attributes["gpu.example.com"].exists(k, k.startsWith("mod"))"#),
    ];
    let memory = Quantity::parse("80Gi").expect("valid quantity");
    let capacity =
        [("gpu.example.com/memory", memory), ("gpu.example.com/cores", Quantity::parse("108").expect("valid quantity"))];
    let attributes = [
        ("gpu.example.com/model", AttributeValue::String("a100")),
        ("gpu.example.com/driverVersion", AttributeValue::Version("535.104.5")),
        ("gpu.example.com/index", AttributeValue::Int(0)),
        ("gpu.example.com/uuid", AttributeValue::String("GPU-8a5b1c2d-0000-0000-0000-000000000000")),
        ("gpu.example.com/mig", AttributeValue::Bool(false)),
    ];
    let device =
        CelDevice { driver: "gpu.example.com", attributes: &attributes, capacity: &capacity, allow_multiple_allocations: None };
    let evals = if smoke { 2_000 } else { 200_000 };
    let mut text = String::from("\nDRA CEL selectors (ns per matches on one device, compiled once; median of rounds)\n");
    let mut rows = Vec::new();
    for (name, expression) in cases {
        let t = Instant::now();
        let selector = compile(expression, CelFeatures::default()).expect("bench selector compiles");
        let compile_us = t.elapsed().as_secs_f64() * 1e6;
        let mut per_eval = Vec::new();
        for _ in 0..repeats.max(1) {
            let t = Instant::now();
            for _ in 0..evals {
                let m = selector.matches(std::hint::black_box(&device));
                std::hint::black_box(m.ok());
            }
            per_eval.push(t.elapsed().as_nanos() as f64 / evals as f64);
        }
        let ns = median(&mut per_eval);
        let _ =
            writeln!(text, "  {name:<14} {ns:>8.0} ns/eval   compile {compile_us:>7.0} µs   max cost {}", selector.max_cost());
        rows.push(json!({"case": name, "expression": expression, "ns_per_eval": ns, "compile_us": compile_us, "max_cost": selector.max_cost()}));
    }
    (text, json!({"evals_per_round": evals, "cases": rows}))
}

fn main() {
    let opts = parse_opts();
    if let Ok(name) = std::env::var(replay::CHILD_ENV) {
        replay::child(&name, opts.smoke, opts.repeats);
        return;
    }
    let started = Instant::now();
    let mut out = String::new();
    let mut results = serde_json::Map::new();
    let run_started_at = edgesched::core::timefmt::format_rfc3339(std::time::SystemTime::now());
    // The load average when each part ended (parts run one after another).
    let mut part_ends = std::collections::BTreeMap::new();
    results.insert("machine".into(), machine());
    results.insert("smoke".into(), json!(opts.smoke));
    results.insert("repeats".into(), json!(opts.repeats));

    if opts.wants("decision") {
        let (mut sizes, per_round): (&[usize], usize) =
            if opts.smoke { (&[100, 1000], 200) } else { (&[100, 1_000, 5_000, 15_000], 2_000) };
        if !opts.sizes.is_empty() {
            sizes = &opts.sizes;
        }
        let mut rows = Vec::new();
        for kind in [DecisionKind::Default, DecisionKind::Topology] {
            let topology = kind.topology();
            for &n in sizes {
                eprintln!("decision: {n} nodes, {} pods existing, topology={topology}", n * 10);
                // About one new pod per node per round (the topology variant's cycles are ~50x
                // slower, so fewer pods keep the run short); rounds start from the same cluster.
                let cap = if topology { per_round / 4 } else { per_round };
                let r = decision(n, 10, kind, cap.min(n.max(200)), opts.repeats, opts.metrics);
                eprintln!(
                    "  {:.0} pods/s (wall {:.0}), p50 {:.1} µs, p99 {:.1} µs (wall {:.1}/{:.1}; setup {:.1}s)",
                    r.pods_per_sec, r.pods_per_sec_wall, r.p50_us, r.p99_us, r.p50_wall_us, r.p99_wall_us, r.setup_s
                );
                rows.push(r);
            }
        }
        let _ = writeln!(
            out,
            "\nDecision (scheduling cycle only, thread CPU time; wall-clock in brackets; median of {} rounds)",
            opts.repeats
        );
        out += &decision_table(&rows);
        results.insert("decision".into(), Value::Array(rows.iter().map(decision_json).collect()));
    }

    note_part_ends(&mut part_ends, &results);
    if opts.wants("topology-scaling") {
        // How a cycle's cost grows with the cluster: plain pods, and pods spreading and
        // (anti-)affine by hostname on nodes labelled with their hostname (one domain per node).
        let sizes: &[usize] = if opts.smoke { &[100, 200] } else { &[1_000, 2_000, 5_000, 10_000, 15_000] };
        let per_round = if opts.smoke { 100 } else { 1_000 };
        let mut rows = Vec::new();
        for kind in [DecisionKind::Default, DecisionKind::HostnameTopology] {
            for &n in sizes {
                eprintln!("topology-scaling: {} at {n} nodes, {} pods existing", kind.name(false), n * 10);
                let r = decision(n, 10, kind, per_round.min(n), opts.repeats.max(1), false);
                eprintln!("  {:.0} pods/s, p50 {:.1} µs, p99 {:.1} µs", r.pods_per_sec, r.p50_us, r.p99_us);
                rows.push(r);
            }
        }
        let rounds = opts.repeats.max(1);
        let _ = writeln!(out, "\nCycle cost by cluster size (thread CPU time; median of {rounds} rounds)");
        out += &decision_table(&rows);
        let rows = rows.iter().map(|r| {
            let mut v = decision_json(r);
            v["us_per_pod"] = json!((1e7 / r.pods_per_sec.max(1e-9)).round() / 10.0);
            v
        });
        results.insert("topology_scaling".into(), Value::Array(rows.collect()));
    }

    let binary = pick_binary();
    note_part_ends(&mut part_ends, &results);
    if opts.wants("e2e") || opts.wants("footprint") || opts.wants("workloads") || opts.wants("real-nodes") {
        // process::command() honours this variable.
        std::env::set_var("EDGESCHED_TEST_BINARY", &binary);
        results.insert("binary".into(), json!(binary.strip_prefix(manifest_dir()).unwrap_or(&binary).display().to_string()));
    }

    if opts.wants("e2e") {
        let cases: Vec<(usize, usize, Qps)> = if opts.smoke {
            vec![(100, 300, Some((100_000, 100_000)))]
        } else {
            vec![(1_000, 10_000, Some((100_000, 100_000))), (5_000, 10_000, Some((100_000, 100_000))), (1_000, 500, None)]
        };
        let runs = if opts.smoke { 1 } else { opts.repeats.min(3) };
        let mut rows = Vec::new();
        for (n, p, q) in cases {
            let name = if q.is_some() { format!("e2e-{n}") } else { "e2e-default-qps".to_string() };
            if !opts.wants_case(&name) {
                continue;
            }
            eprintln!("e2e: {n} nodes, {p} pods, qps {q:?}");
            let r = e2e(n, p, q, runs);
            // The ceiling only means something where the client is not rate limited.
            let limit = q.filter(|(qps, _)| *qps >= 100_000).map(|_| {
                eprintln!("binding limit: {n} nodes, {p} pods");
                binding_limit(n, p, runs)
            });
            rows.push((r, limit));
        }
        let _ = writeln!(
            out,
            "\nEnd to end (pod created -> binding confirmed by the API server; median of {runs} runs; limit = bindings/s of a trivial client)"
        );
        let _ = writeln!(
            out,
            "{:>6} {:>7} {:>18} {:>10} {:>9} {:>10} {:>9} {:>10}",
            "nodes", "pods", "qps/burst", "pods/s", "seconds", "limit/s", "of limit", "CPU µs/pod"
        );
        for (r, limit) in &rows {
            let _ = writeln!(
                out,
                "{:>6} {:>7} {:>18} {:>10.0} {:>9.2} {:>10.0} {:>8.0}% {:>10.0}",
                r.nodes,
                r.pods,
                r.qps,
                r.pods_per_sec,
                r.seconds,
                limit.unwrap_or(f64::NAN),
                limit.map(|l| 100.0 * r.pods_per_sec / l).unwrap_or(f64::NAN),
                r.cpu_us_per_pod
            );
        }
        results.insert(
            "e2e".into(),
            Value::Array(
                rows.iter()
                    .map(|(r, limit)| {
                        json!({"nodes": r.nodes, "pods": r.pods, "qps_burst": r.qps, "runs": r.runs,
                               "pods_per_sec": r.pods_per_sec.round(), "seconds": (r.seconds * 100.0).round() / 100.0,
                               "cpu_us_per_pod": r.cpu_us_per_pod.round(),
                               "binding_limit_per_sec": limit.map(f64::round),
                               "fraction_of_limit": limit.map(|l| (r.pods_per_sec / l * 1000.0).round() / 1000.0)})
                    })
                    .collect(),
            ),
        );
    }

    note_part_ends(&mut part_ends, &results);
    if opts.wants("workloads") || opts.wants("workloads-decision") {
        let runs = if opts.smoke { 1 } else { opts.repeats.min(3) };
        let rows = replay::run(replay::Set::Upstream, opts.smoke, runs, opts.wants("workloads"), opts.workload.as_deref());
        let _ = writeln!(
            out,
            "\nUpstream scheduler_perf workloads (SchedulingThroughput, measured pods/s; ratio to upstream's threshold; median of {runs} runs)"
        );
        out += &replay::table(&rows);
        results.insert("workloads".into(), replay::to_json(&rows));
    }

    if opts.wants("real-nodes") || opts.wants("real-nodes-decision") {
        // The workloads with topology on nodes labelled as real nodes are (and this project's own
        // workloads shaped like real clusters); end to end beside the binding limit of the same run.
        let runs = if opts.smoke { 1 } else { opts.repeats.min(3) };
        let e2e_too = opts.wants("real-nodes");
        let rows = replay::run(replay::Set::RealNodes, opts.smoke, runs, e2e_too, opts.workload.as_deref());
        let _ = writeln!(
            out,
            "\nscheduler_perf workloads on nodes labelled as real nodes are (measured pods/s; ratio to upstream's threshold; median of {runs} runs)"
        );
        out += &replay::table(&rows);
        let mut v = json!({"rows": replay::to_json(&rows)});
        if e2e_too {
            let (nodes, pods) = if opts.smoke { (100, 200) } else { (5000, 5000) };
            eprintln!("binding limit: {nodes} nodes, {pods} pods");
            let limit = binding_limit(nodes, pods, runs);
            let _ = writeln!(
                out,
                "binding limit of the test API server in this run: {limit:.0} bindings/s ({nodes} nodes, {pods} pods)"
            );
            v["binding_limit"] = json!({"nodes": nodes, "pods": pods, "bindings_per_sec": limit.round()});
        }
        results.insert("real_node_workloads".into(), v);
    }

    note_part_ends(&mut part_ends, &results);
    if opts.wants("footprint") {
        let runs = if opts.smoke { 1 } else { opts.repeats.min(3) };
        let mut rows: Vec<(&'static str, FootprintResult)> = Vec::new();
        // The test API server's own time to serve the lists edgesched reads before it is ready.
        let mut list_floor_s: Option<f64> = None;
        let mut list_floor_cpu_s: Option<f64> = None;
        let mut measure = |case: &'static str, server: &TestApiServer, nodes: usize, pods: usize, runs: usize| {
            if opts.wants_case(case) {
                eprintln!("footprint {case}: {nodes} nodes, {pods} pods");
                rows.push((case, footprint(server, nodes, pods, runs)));
            }
        };
        if ["idle", "small"].iter().any(|c| opts.wants_case(c)) {
            let server = start_server();
            measure("idle", &server, 0, 0, runs);
            let (n, p) = if opts.smoke { (100, 300) } else { (100, 3_000) };
            add_nodes(&server, 0, n);
            add_existing(&server, 0, p, n);
            measure("small", &server, n, p, runs);
        }
        if !opts.smoke && ["nodes-only", "ready", "large"].iter().any(|c| opts.wants_case(c)) {
            let server = start_server();
            add_nodes(&server, 0, 5_000);
            measure("nodes-only", &server, 5_000, 0, runs);
            add_existing(&server, 0, 50_000, 5_000);
            if opts.wants_case("ready") {
                // The first list encodes every object once (the server keeps the encodings, as a
                // real API server's watch cache keeps its objects); the floor is what follows.
                let (cold, cold_cpu) = list_floor(&server);
                let floors: Vec<(f64, f64)> = (0..runs).map(|_| list_floor(&server)).collect();
                let floor = median(&mut floors.iter().map(|r| r.0).collect::<Vec<_>>());
                let cpu = median(&mut floors.iter().map(|r| r.1).collect::<Vec<_>>());
                eprintln!(
                    "  listing 5000 nodes and 50000 pods with a trivial client: {floor:.2}s, server and client CPU {cpu:.2}s (first list {cold:.2}s, CPU {cold_cpu:.2}s)"
                );
                list_floor_s = Some(floor);
                list_floor_cpu_s = Some(cpu);
            }
            measure("ready", &server, 5_000, 50_000, runs);
            if opts.wants_case("large") {
                add_existing(&server, 50_000, 150_000, 5_000);
                measure("large", &server, 5_000, 150_000, runs.min(2));
            }
        }
        let find = |k: &str| rows.iter().find(|(n, _)| *n == k).map(|(_, r)| r.clone());
        let idle = find("idle");
        let per_node = match (&idle, find("nodes-only")) {
            (Some(i), Some(n)) => Some((n.rss_kib.saturating_sub(i.rss_kib)) as f64 * 1024.0 / n.nodes as f64),
            _ => None,
        };
        let per_pod = match (find("nodes-only"), find("large")) {
            (Some(n), Some(l)) => Some((l.rss_kib.saturating_sub(n.rss_kib)) as f64 * 1024.0 / l.pods as f64),
            _ => None,
        };
        let _ = writeln!(out, "\nFootprint of {} (median of {runs} starts; RSS after sync + 1.5 s)", binary.display());
        let _ = writeln!(
            out,
            "{:<11} {:>6} {:>7} {:>9} {:>7} {:>9} {:>9} {:>9} {:>9}",
            "case", "nodes", "pods", "ready s", "cpu s", "RSS MiB", "peak MiB", "anon MiB", "file MiB"
        );
        for (k, r) in &rows {
            let _ = writeln!(
                out,
                "{:<11} {:>6} {:>7} {:>9.2} {:>7.2} {:>9.1} {:>9.1} {:>9.1} {:>9.1}",
                k,
                r.nodes,
                r.pods,
                r.ready_s,
                r.ready_cpu_s,
                r.rss_kib as f64 / 1024.0,
                r.hwm_kib as f64 / 1024.0,
                r.anon_kib as f64 / 1024.0,
                r.file_kib as f64 / 1024.0
            );
        }
        if let (Some(n), Some(p)) = (per_node, per_pod) {
            let _ = writeln!(out, "bytes per node ≈ {n:.0}, bytes per pod ≈ {p:.0} (RSS deltas)");
        }
        if let (Some(s), Some(cpu)) = (list_floor_s, list_floor_cpu_s) {
            let _ = writeln!(
                out,
                "the test API server serves those lists to a trivial client in {s:.2}s (wall; {cpu:.2}s CPU of both)"
            );
        }
        let size = file_size(&binary);
        let _ = writeln!(out, "binary size: {} bytes ({})", size.unwrap_or(0), binary.display());
        results.insert(
            "footprint".into(),
            json!({
                "cases": rows.iter().map(|(k, r)| json!({
                    "case": k, "nodes": r.nodes, "pods": r.pods, "ready_s": (r.ready_s * 1000.0).round() / 1000.0,
                    "ready_cpu_s": r.ready_cpu_s, "rss_kib": r.rss_kib, "peak_rss_kib": r.hwm_kib, "rss_anon_kib": r.anon_kib,
                    "rss_file_kib": r.file_kib, "threads": r.threads,
                })).collect::<Vec<_>>(),
                "server_list_s_5000_nodes_50000_pods": list_floor_s.map(|s| (s * 1000.0).round() / 1000.0),
                "server_list_cpu_s_5000_nodes_50000_pods": list_floor_cpu_s.map(|s| (s * 1000.0).round() / 1000.0),
                "bytes_per_node": per_node.map(f64::round),
                "bytes_per_pod": per_pod.map(f64::round),
                "binary_bytes": size,
            }),
        );
    }

    note_part_ends(&mut part_ends, &results);
    if opts.wants("simulate") {
        eprintln!("simulate: synthetic cluster file");
        let runs = if opts.smoke { 1 } else { opts.repeats.min(3) };
        let (text, v) = simulate_bench(opts.smoke, runs);
        out.push_str(&text);
        results.insert("simulate".into(), v);
    }

    note_part_ends(&mut part_ends, &results);
    if opts.wants("cel") {
        eprintln!("cel: DRA device selectors");
        let (text, v) = cel_bench(opts.smoke, opts.repeats);
        out.push_str(&text);
        results.insert("cel".into(), v);
    }

    let _ = writeln!(out, "\ntotal bench time {:.0}s", started.elapsed().as_secs_f64());
    print!("{out}");
    note_part_ends(&mut part_ends, &results);
    let path = opts.out.clone().unwrap_or_else(|| {
        if opts.smoke {
            manifest_dir().join("target/bench-smoke-results.json")
        } else if !opts.cases.is_empty() {
            // A few cases are for looking into something, not for publishing.
            manifest_dir().join("target/bench-cases-results.json")
        } else if opts.only.iter().all(|p| p == "cel") && !opts.only.is_empty() {
            // The selector figures alone would replace the published results.
            manifest_dir().join("target/bench-cel-results.json")
        } else {
            manifest_dir().join("benches/results.json")
        }
    });
    // Each part measured in this invocation records when, on what and under which load it ran, so
    // a partial run that merges into older results keeps every part's own conditions.
    for part in MEASURED_PARTS {
        if results.contains_key(part) && !opts.smoke {
            let mut run = results.get("machine").cloned().unwrap_or(Value::Null);
            if let Value::Object(fields) = &mut run {
                fields.insert("loadavg_at_end".into(), json!(part_ends.get(part).cloned().unwrap_or_default()));
                fields.insert("when".into(), json!(run_started_at.clone()));
                fields.insert("repeats".into(), json!(opts.repeats));
                if let Some(w) = &opts.workload {
                    fields.insert("workload_filter".into(), json!(w));
                }
            }
            if (part == "workloads" || part == "real_node_workloads") && opts.workload.is_some() {
                // A filtered run measured some workloads only: its conditions go with those
                // rows, and `workloads_run` keeps describing the run of every workload.
                let rows = match results.get_mut(part) {
                    Some(Value::Object(o)) => o.get_mut("rows"),
                    other => other,
                };
                if let Some(Value::Array(rows)) = rows {
                    for row in rows.iter_mut() {
                        if let Value::Object(fields) = row {
                            fields.insert("run".into(), run.clone());
                        }
                    }
                }
                continue;
            }
            results.insert(format!("{part}_run"), run);
        }
    }
    // A run merges into the existing results: parts it did not measure (and what only people
    // record there, such as the release binaries' sizes) are kept.
    let mut merged: serde_json::Map<String, Value> =
        std::fs::read_to_string(&path).ok().and_then(|t| serde_json::from_str(&t).ok()).unwrap_or_default();
    for (k, v) in results {
        let v = match (k.as_str(), merged.remove(&k)) {
            ("workloads", Some(previous)) => merge_workload_rows(previous, v),
            ("real_node_workloads", Some(mut previous)) => {
                // Rows merged by name as the upstream workloads'; the binding limit of the last
                // run that measured one.
                let mut v = v;
                let rows = merge_workload_rows(previous["rows"].take(), v["rows"].take());
                v["rows"] = rows;
                if v.get("binding_limit").is_none() {
                    if let Some(limit) = previous.get("binding_limit") {
                        v["binding_limit"] = limit.clone();
                    }
                }
                v
            }
            (_, _) => v,
        };
        merged.insert(k, v);
    }
    match serde_json::to_string_pretty(&Value::Object(merged)) {
        Ok(text) => match std::fs::write(&path, text + "\n") {
            Ok(()) => println!("wrote {}", path.display()),
            Err(e) => eprintln!("cannot write {}: {e}", path.display()),
        },
        Err(e) => eprintln!("cannot encode results: {e}"),
    }
}

/// A partial workloads run (`--workload NAME`, or `workloads-decision` alone) replaces only the rows
/// it measured, matched by workload name; a row measured in process only keeps the end-to-end
/// figures of the previous run of that workload.
fn merge_workload_rows(previous: Value, new: Value) -> Value {
    let (Value::Array(mut rows), Value::Array(fresh)) = (previous, new.clone()) else { return new };
    for row in fresh {
        let name = row.get("workload").cloned();
        match rows.iter_mut().find(|r| r.get("workload") == name.as_ref()) {
            Some(old) => {
                let mut row = row;
                if let (Value::Object(new_fields), Value::Object(old_fields)) = (&mut row, &*old) {
                    for (field, value) in old_fields {
                        if field.starts_with("e2e_") && new_fields.get(field).is_none_or(Value::is_null) {
                            new_fields.insert(field.clone(), value.clone());
                        }
                    }
                }
                *old = row;
            }
            None => rows.push(row),
        }
    }
    Value::Array(rows)
}

/// The parts whose results record their own run (`<part>_run`).
const MEASURED_PARTS: [&str; 8] =
    ["decision", "topology_scaling", "e2e", "footprint", "workloads", "real_node_workloads", "simulate", "cel"];

/// Records the load average now for every part that has results and no end yet: called between
/// parts, so each part's end is when the next one starts.
fn note_part_ends(ends: &mut std::collections::BTreeMap<&'static str, String>, results: &serde_json::Map<String, Value>) {
    let load = std::fs::read_to_string("/proc/loadavg").unwrap_or_default().trim().to_string();
    for part in MEASURED_PARTS {
        if results.contains_key(part) && !ends.contains_key(part) {
            ends.insert(part, load.clone());
        }
    }
}
