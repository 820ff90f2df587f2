//! End-to-end: a Prometheus scrape of `/metrics` after a scheduling run, with an identity that
//! RBAC allows to read it (the `system:monitoring` ClusterRole, as on a real cluster), parsed as
//! strictly as Prometheus' own Go reader parses it (`support/promtext.rs`; with
//! `EDGESCHED_PROM_CROSSCHECK=python` also by Prometheus' Python client, which must agree). The
//! families are those kube-scheduler v1.35 exposes, and the values add up to what happened in the
//! run.

mod support;

use serde_json::json;
use std::time::{Duration, Instant};
use support::objects::{node, pod};
use support::process::{Edgesched, Launch};
use support::promtext::{self, Family};
use support::promtext_python;
use support::{https, wait_until, TestApiServer};

const T: Duration = Duration::from_secs(20);
const PROFILE: &str = "edgesched";

/// kube-scheduler v1.35's families (type as Prometheus names it) that this run exercises, so
/// each must have samples. Transcribed from kubernetes v1.35.0: `pkg/scheduler/metrics/metrics.go`
/// (`metricsList`), `component-base/metrics/prometheus/restclient/metrics.go`,
/// `component-base/metrics/registry.go`, `component-base/metrics/version.go`,
/// `apiserver/pkg/authentication/authenticatorfactory/metrics.go`,
/// `apiserver/pkg/authorization/authorizerfactory/metrics.go`,
/// `apiserver/pkg/endpoints/filters/metrics.go` and client_golang's process collector.
const EXERCISED: &[(&str, &str)] = &[
    ("scheduler_schedule_attempts_total", "counter"),
    ("scheduler_scheduling_attempt_duration_seconds", "histogram"),
    ("scheduler_scheduling_algorithm_duration_seconds", "histogram"),
    ("scheduler_event_handling_duration_seconds", "histogram"),
    ("scheduler_preemption_victims", "histogram"),
    ("scheduler_preemption_attempts_total", "counter"),
    ("scheduler_pending_pods", "gauge"),
    ("scheduler_goroutines", "gauge"),
    ("scheduler_pod_scheduling_sli_duration_seconds", "histogram"),
    ("scheduler_pod_scheduling_attempts", "histogram"),
    ("scheduler_pod_scheduled_after_flush_total", "counter"),
    ("scheduler_framework_extension_point_duration_seconds", "histogram"),
    ("scheduler_plugin_execution_duration_seconds", "histogram"),
    ("scheduler_queue_incoming_pods_total", "counter"),
    ("scheduler_cache_size", "gauge"),
    ("scheduler_unschedulable_pods", "gauge"),
    ("scheduler_plugin_evaluation_total", "counter"),
    ("rest_client_request_duration_seconds", "histogram"),
    ("rest_client_request_size_bytes", "histogram"),
    ("rest_client_response_size_bytes", "histogram"),
    ("rest_client_requests_total", "counter"),
    ("rest_client_exec_plugin_ttl_seconds", "gauge"),
    ("rest_client_exec_plugin_certificate_rotation_age", "histogram"),
    ("registered_metrics_total", "counter"),
    ("disabled_metrics_total", "counter"),
    ("hidden_metrics_total", "counter"),
    ("kubernetes_build_info", "gauge"),
    ("apiserver_delegated_authn_request_total", "counter"),
    ("apiserver_delegated_authn_request_duration_seconds", "histogram"),
    ("apiserver_delegated_authz_request_total", "counter"),
    ("apiserver_delegated_authz_request_duration_seconds", "histogram"),
    ("authenticated_user_requests", "counter"),
    ("authentication_attempts", "counter"),
    ("authentication_duration_seconds", "histogram"),
    ("authorization_attempts_total", "counter"),
    ("authorization_duration_seconds", "histogram"),
    ("process_cpu_seconds_total", "counter"),
    ("process_open_fds", "gauge"),
    ("process_max_fds", "gauge"),
    ("process_virtual_memory_bytes", "gauge"),
    ("process_virtual_memory_max_bytes", "gauge"),
    ("process_resident_memory_bytes", "gauge"),
    ("process_start_time_seconds", "gauge"),
];

/// The parsed scrape.
struct Scrape(Vec<Family>);

impl Scrape {
    /// The family of a metric, by its name as exposed (a counter's keeps its `_total`, if any).
    fn family(&self, name: &str) -> Option<&Family> {
        self.0.iter().find(|f| f.name == name)
    }

    /// Sum of the samples named `sample` whose labels include `labels`.
    fn sum(&self, sample: &str, labels: &[(&str, &str)]) -> f64 {
        self.0
            .iter()
            .flat_map(|f| &f.samples)
            .filter(|s| s.name == sample && labels.iter().all(|(k, v)| s.label(k) == Some(*v)))
            .map(|s| s.value)
            .sum()
    }
}

fn scrape(es: &Edgesched, token: &str) -> Scrape {
    let (code, body) = https::get(&format!("https://127.0.0.1:{}/metrics", es.secure_port), Some(token)).expect("scrape");
    assert_eq!(code, 200, "{body}");
    let families = promtext::parse(&body).unwrap_or_else(|e| panic!("{e}\n{body}"));
    promtext_python::check(&body, &families);
    Scrape(families)
}

/// A Prometheus identity with exactly what `system:monitoring` grants.
fn monitoring_identity(server: &TestApiServer) -> &'static str {
    server.add_token("prometheus-token", "prometheus", &[]);
    server.create(
        "/apis/rbac.authorization.k8s.io/v1/clusterrolebindings",
        json!({"apiVersion": "rbac.authorization.k8s.io/v1", "kind": "ClusterRoleBinding",
               "metadata": {"name": "prometheus-monitoring"},
               "roleRef": {"apiGroup": "rbac.authorization.k8s.io", "kind": "ClusterRole", "name": "system:monitoring"},
               "subjects": [{"apiGroup": "rbac.authorization.k8s.io", "kind": "User", "name": "prometheus"}]}),
    );
    "prometheus-token"
}

#[test]
fn a_scrape_after_a_run_has_upstreams_families_and_adds_up() {
    let server = TestApiServer::start();
    for i in 0..3 {
        server.create("/api/v1/nodes", node(&format!("n{i}")).cpu("2").pods(20).build());
    }
    let token = monitoring_identity(&server);
    let es = Launch::default().start(&server);
    es.wait_for_log("Caches are synced", T).expect("synced");
    let pods = "/api/v1/namespaces/default/pods";
    let scheduled = 5;
    for i in 0..scheduled {
        server.create(pods, pod("default", &format!("p{i}")).scheduler(PROFILE).cpu("100m").build());
    }
    server.create(pods, pod("default", "too-big").scheduler(PROFILE).cpu("100").build());

    let mut s = scrape(&es, token);
    let deadline = Instant::now() + T;
    while Instant::now() < deadline {
        let done = s.sum("scheduler_schedule_attempts_total", &[("result", "scheduled")]) == scheduled as f64
            && s.sum("scheduler_schedule_attempts_total", &[("result", "unschedulable")]) >= 1.0
            && s.sum("scheduler_pending_pods", &[("queue", "unschedulable")]) == 1.0;
        if done {
            break;
        }
        std::thread::sleep(Duration::from_millis(100));
        s = scrape(&es, token);
    }

    // (a) Every upstream family this run exercised is there, with its type and samples.
    for (name, kind) in EXERCISED {
        let f = s.family(name).unwrap_or_else(|| panic!("{name} missing\n{}", es.logs()));
        assert_eq!(f.kind, *kind, "{name}");
        assert!(!f.samples.is_empty(), "{name} has no samples");
    }
    let help = |name: &str| s.family(name).map(|f| f.help.clone()).unwrap_or_default();
    assert_eq!(help("scheduler_pending_pods").get(..9), Some("[STABLE] "));
    assert_eq!(help("scheduler_scheduling_algorithm_duration_seconds"), "[ALPHA] Scheduling algorithm latency in seconds");
    assert_eq!(help("process_open_fds"), "Number of open file descriptors.");

    // (b) The values are what happened.
    let attempts = |result: &str| s.sum("scheduler_schedule_attempts_total", &[("result", result), ("profile", PROFILE)]);
    let (ok, unschedulable, error) = (attempts("scheduled"), attempts("unschedulable"), attempts("error"));
    assert_eq!(ok, scheduled as f64);
    assert!(unschedulable >= 1.0 && error == 0.0, "{unschedulable} {error}");
    let count = |h: &str, labels: &[(&str, &str)]| s.sum(&format!("{h}_count"), labels);
    // Every cycle runs PreFilter once; attempts = scheduled + unschedulable + error.
    assert_eq!(
        count("scheduler_framework_extension_point_duration_seconds", &[("extension_point", "PreFilter")]),
        ok + unschedulable
    );
    assert_eq!(count("scheduler_scheduling_attempt_duration_seconds", &[("result", "scheduled")]), ok);
    assert_eq!(count("scheduler_scheduling_attempt_duration_seconds", &[("result", "unschedulable")]), unschedulable);
    // The algorithm latency only for cycles that found a node; one Bind per scheduled pod.
    assert_eq!(count("scheduler_scheduling_algorithm_duration_seconds", &[]), ok);
    assert_eq!(
        count("scheduler_framework_extension_point_duration_seconds", &[("extension_point", "Bind"), ("status", "Success")]),
        ok
    );
    // Each unschedulable cycle ran DefaultPreemption's PostFilter once, which found no victims.
    assert_eq!(s.sum("scheduler_preemption_attempts_total", &[]), unschedulable);
    assert_eq!(
        count("scheduler_framework_extension_point_duration_seconds", &[("extension_point", "PostFilter")]),
        unschedulable
    );
    assert_eq!(count("scheduler_preemption_victims", &[]), 0.0);
    // Scheduled on the first attempt each.
    assert_eq!(count("scheduler_pod_scheduling_attempts", &[]), ok);
    assert_eq!(s.sum("scheduler_pod_scheduling_attempts_sum", &[]), ok);
    assert_eq!(count("scheduler_pod_scheduling_sli_duration_seconds", &[("attempts", "1")]), ok);
    // Every pod entered activeQ once on creation; the big one now waits, rejected by NodeResourcesFit.
    assert_eq!(
        s.sum("scheduler_queue_incoming_pods_total", &[("queue", "active"), ("event", "UnschedulablePodAdd")]),
        scheduled as f64 + 1.0
    );
    assert!(
        s.sum("scheduler_queue_incoming_pods_total", &[("queue", "unschedulable"), ("event", "ScheduleAttemptFailure")]) >= 1.0
    );
    assert_eq!(s.sum("scheduler_unschedulable_pods", &[("plugin", "NodeResourcesFit"), ("profile", PROFILE)]), 1.0);
    assert_eq!(s.sum("scheduler_cache_size", &[("type", "nodes")]), 3.0);
    assert_eq!(s.sum("scheduler_cache_size", &[("type", "pods")]), scheduled as f64);
    assert_eq!(s.sum("scheduler_goroutines", &[("operation", "binding")]), 0.0);
    // Each cycle evaluated NodeResourcesFit's PreFilter once and its Filter on every node.
    let eval = |point: &str| {
        s.sum(
            "scheduler_plugin_evaluation_total",
            &[("plugin", "NodeResourcesFit"), ("extension_point", point), ("profile", PROFILE)],
        )
    };
    assert_eq!(eval("PreFilter"), ok + unschedulable);
    assert!(eval("Filter") >= 3.0 * (ok + unschedulable), "{}", eval("Filter"));
    // The watch delivered three nodes and six pending pods.
    assert_eq!(count("scheduler_event_handling_duration_seconds", &[("event", "NodeAdd")]), 3.0);
    assert!(count("scheduler_event_handling_duration_seconds", &[("event", "UnschedulablePodAdd")]) >= scheduled as f64 + 1.0);
    // API traffic: one binding POST per scheduled pod at least, and this scrape's reviews.
    let host = server.url().trim_start_matches("https://").to_string();
    assert!(s.sum("rest_client_requests_total", &[("code", "201"), ("method", "POST"), ("host", &host)]) >= ok, "{host}");
    assert!(s.sum("apiserver_delegated_authz_request_total", &[("code", "201")]) >= 1.0);
    assert!(s.sum("authentication_attempts", &[("result", "success")]) >= 1.0);
    assert!(s.sum("process_start_time_seconds", &[]) > 1.0e9);
    assert_eq!(s.sum("rest_client_exec_plugin_ttl_seconds", &[]), f64::INFINITY);
}

#[test]
fn disabled_metrics_and_label_allow_lists_apply() {
    let server = TestApiServer::start();
    server.create("/api/v1/nodes", node("n0").cpu("2").build());
    let token = monitoring_identity(&server);
    let launch = Launch {
        extra_args: vec![
            "--disabled-metrics=scheduler_cache_size".into(),
            "--allow-metric-labels".into(),
            "scheduler_pending_pods,queue=active,backoff".into(),
        ],
        ..Default::default()
    };
    let es = launch.start(&server);
    es.wait_for_log("Caches are synced", T).expect("synced");
    let mut s = scrape(&es, token);
    wait_until(T, "pending gauges", || {
        s = scrape(&es, token);
        s.family("scheduler_pending_pods").is_some()
    })
    .unwrap_or_else(|e| panic!("{e}\n{}", es.logs()));
    assert!(s.family("scheduler_cache_size").is_none(), "disabled");
    assert_eq!(s.sum("disabled_metrics_total", &[]), 1.0);
    assert!(s.sum("scheduler_pending_pods", &[("queue", "unexpected")]) == 0.0);
    let queues: Vec<String> = s
        .family("scheduler_pending_pods")
        .map(|f| f.samples.iter().filter_map(|x| x.label("queue").map(str::to_string)).collect())
        .unwrap_or_default();
    assert!(queues.iter().all(|q| ["active", "backoff", "unexpected"].contains(&q.as_str())), "{queues:?}");
    assert!(queues.contains(&"unexpected".to_string()), "{queues:?}");
    assert!(s.sum("cardinality_enforcement_unexpected_categorizations_total", &[]) >= 1.0);
}
