//! Every metric edgesched can expose, declared once: name, help, type, labels, buckets and
//! stability as kube-scheduler v1.35 registers them, where edgesched records it (or why it does
//! not), and the upstream file it is transcribed from. `/metrics`, `--disabled-metrics`, the
//! the metrics table in docs/metrics.md and the scrape test all read this table.
//!
//! Sources (kubernetes v1.35.0, checked against the v1.34 → v1.35 metrics changelog):
//! `pkg/scheduler/metrics/metrics.go`, `pkg/scheduler/framework/plugins/volumebinding/metrics/metrics.go`,
//! `staging/src/k8s.io/component-base/metrics/prometheus/restclient/metrics.go`,
//! `staging/src/k8s.io/component-base/metrics/prometheus/clientgo/leaderelection/metrics.go`,
//! `staging/src/k8s.io/component-base/metrics/{registry.go,version.go}`,
//! `staging/src/k8s.io/component-base/featuregate/feature_gate.go`,
//! `staging/src/k8s.io/apiserver/pkg/authentication/authenticatorfactory/metrics.go`,
//! `staging/src/k8s.io/apiserver/pkg/authorization/authorizerfactory/metrics.go`,
//! `staging/src/k8s.io/apiserver/pkg/endpoints/filters/metrics.go`, and client_golang's
//! `prometheus/process_collector.go` for `process_*`.

/// Metric types.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    Counter,
    Gauge,
    Histogram,
}

impl Kind {
    /// The `# TYPE` word.
    pub fn as_str(self) -> &'static str {
        match self {
            Kind::Counter => "counter",
            Kind::Gauge => "gauge",
            Kind::Histogram => "histogram",
        }
    }
}

/// component-base stability levels; `Raw` marks collectors registered without one
/// (`process_*`), whose help text carries no `[LEVEL]` prefix.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Stability {
    Alpha,
    Beta,
    Stable,
    Raw,
    /// edgesched's own metrics (annotated `[ALPHA]`, as component-base does for unmarked ones).
    Edgesched,
}

impl Stability {
    /// The prefix component-base puts before the help text.
    pub fn help_prefix(self) -> &'static str {
        match self {
            Stability::Alpha | Stability::Edgesched => "[ALPHA] ",
            Stability::Beta => "[BETA] ",
            Stability::Stable => "[STABLE] ",
            Stability::Raw => "",
        }
    }

    /// The `stability_level` label value of `registered_metrics_total`, if counted there.
    pub fn registry_label(self) -> Option<&'static str> {
        match self {
            Stability::Alpha | Stability::Edgesched => Some("ALPHA"),
            Stability::Beta => Some("BETA"),
            Stability::Stable => Some("STABLE"),
            Stability::Raw => None,
        }
    }
}

/// Histogram buckets.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Buckets {
    None,
    /// `ExponentialBuckets(start, factor, count)`.
    Exponential(f64, f64, usize),
    Explicit(&'static [f64]),
}

impl Buckets {
    /// The upper bounds, in order.
    pub fn bounds(self) -> Vec<f64> {
        match self {
            Buckets::None => Vec::new(),
            Buckets::Exponential(start, factor, count) => {
                let mut v = Vec::with_capacity(count);
                let mut b = start;
                for _ in 0..count {
                    v.push(b);
                    b *= factor;
                }
                v
            }
            Buckets::Explicit(list) => list.to_vec(),
        }
    }
}

/// Whether and where edgesched records a metric.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Recording {
    /// Recorded; the text says where (for `docs/metrics.md`).
    At(&'static str),
    /// Declared for `--disabled-metrics` and the tables but never given a value, with the reason.
    /// Families without labels are then not exposed at all.
    Never(&'static str),
}

/// One metric family.
#[derive(Debug, Clone, Copy)]
pub struct Desc {
    pub name: &'static str,
    pub help: &'static str,
    pub kind: Kind,
    /// Label names in upstream's `WithLabelValues` order (values are passed in this order).
    pub labels: &'static [&'static str],
    pub buckets: Buckets,
    pub stability: Stability,
    /// `DeprecatedVersion` (hidden once two minors older, see `--show-hidden-metrics-for-version`).
    pub deprecated_version: Option<&'static str>,
    /// The upstream source file (or "edgesched").
    pub source: &'static str,
    pub recording: Recording,
}

/// Metric names, for the call sites.
pub mod names {
    pub const SCHEDULE_ATTEMPTS: &str = "scheduler_schedule_attempts_total";
    pub const EVENT_HANDLING_DURATION: &str = "scheduler_event_handling_duration_seconds";
    pub const ATTEMPT_DURATION: &str = "scheduler_scheduling_attempt_duration_seconds";
    pub const ALGORITHM_DURATION: &str = "scheduler_scheduling_algorithm_duration_seconds";
    pub const PREEMPTION_VICTIMS: &str = "scheduler_preemption_victims";
    pub const PREEMPTION_ATTEMPTS: &str = "scheduler_preemption_attempts_total";
    pub const PENDING_PODS: &str = "scheduler_pending_pods";
    pub const INFLIGHT_EVENTS: &str = "scheduler_inflight_events";
    pub const GOROUTINES: &str = "scheduler_goroutines";
    pub const BATCH_ATTEMPTS: &str = "scheduler_batch_attempts_total";
    pub const BATCH_CACHE_FLUSHED: &str = "scheduler_batch_cache_flushed_total";
    pub const SLI_DURATION: &str = "scheduler_pod_scheduling_sli_duration_seconds";
    pub const POD_ATTEMPTS: &str = "scheduler_pod_scheduling_attempts";
    pub const SCHEDULED_AFTER_FLUSH: &str = "scheduler_pod_scheduled_after_flush_total";
    pub const EXTENSION_POINT_DURATION: &str = "scheduler_framework_extension_point_duration_seconds";
    pub const PLUGIN_DURATION: &str = "scheduler_plugin_execution_duration_seconds";
    pub const QUEUEING_HINT_DURATION: &str = "scheduler_queueing_hint_execution_duration_seconds";
    pub const QUEUE_INCOMING: &str = "scheduler_queue_incoming_pods_total";
    pub const PERMIT_WAIT_DURATION: &str = "scheduler_permit_wait_duration_seconds";
    pub const CACHE_SIZE: &str = "scheduler_cache_size";
    pub const UNSCHEDULABLE_PODS: &str = "scheduler_unschedulable_pods";
    pub const PLUGIN_EVALUATIONS: &str = "scheduler_plugin_evaluation_total";
    pub const PREEMPTION_GOROUTINES_DURATION: &str = "scheduler_preemption_goroutines_duration_seconds";
    pub const PREEMPTION_GOROUTINES_EXECUTIONS: &str = "scheduler_preemption_goroutines_execution_total";
    pub const GET_NODE_HINT_DURATION: &str = "scheduler_get_node_hint_duration_seconds";
    pub const STORE_SCHEDULE_RESULTS_DURATION: &str = "scheduler_store_schedule_results_duration_seconds";
    pub const VOLUME_BINDER_CACHE_REQUESTS: &str = "scheduler_volume_binder_cache_requests_total";
    pub const VOLUME_SCHEDULING_STAGE_ERRORS: &str = "scheduler_volume_scheduling_stage_error_total";
    pub const REST_REQUEST_DURATION: &str = "rest_client_request_duration_seconds";
    pub const REST_DNS_DURATION: &str = "rest_client_dns_resolution_duration_seconds";
    pub const REST_REQUEST_SIZE: &str = "rest_client_request_size_bytes";
    pub const REST_RESPONSE_SIZE: &str = "rest_client_response_size_bytes";
    pub const REST_RATE_LIMITER_DURATION: &str = "rest_client_rate_limiter_duration_seconds";
    pub const REST_REQUESTS: &str = "rest_client_requests_total";
    pub const REST_RETRIES: &str = "rest_client_request_retries_total";
    pub const REST_EXEC_TTL: &str = "rest_client_exec_plugin_ttl_seconds";
    pub const REST_EXEC_ROTATION_AGE: &str = "rest_client_exec_plugin_certificate_rotation_age";
    pub const REST_EXEC_CALLS: &str = "rest_client_exec_plugin_call_total";
    pub const REST_EXEC_POLICY_CALLS: &str = "rest_client_exec_plugin_policy_call_total";
    pub const REST_TRANSPORT_CACHE_ENTRIES: &str = "rest_client_transport_cache_entries";
    pub const REST_TRANSPORT_CREATE_CALLS: &str = "rest_client_transport_create_calls_total";
    pub const LEADER_STATUS: &str = "leader_election_master_status";
    pub const LEADER_SLOWPATH: &str = "leader_election_slowpath_total";
    pub const REGISTERED_METRICS: &str = "registered_metrics_total";
    pub const DISABLED_METRICS: &str = "disabled_metrics_total";
    pub const HIDDEN_METRICS: &str = "hidden_metrics_total";
    pub const UNEXPECTED_CATEGORIZATIONS: &str = "cardinality_enforcement_unexpected_categorizations_total";
    pub const BUILD_INFO: &str = "kubernetes_build_info";
    pub const FEATURE_ENABLED: &str = "kubernetes_feature_enabled";
    pub const DELEGATED_AUTHN_REQUESTS: &str = "apiserver_delegated_authn_request_total";
    pub const DELEGATED_AUTHN_DURATION: &str = "apiserver_delegated_authn_request_duration_seconds";
    pub const DELEGATED_AUTHZ_REQUESTS: &str = "apiserver_delegated_authz_request_total";
    pub const DELEGATED_AUTHZ_DURATION: &str = "apiserver_delegated_authz_request_duration_seconds";
    pub const AUTHENTICATED_USER_REQUESTS: &str = "authenticated_user_requests";
    pub const AUTHENTICATION_ATTEMPTS: &str = "authentication_attempts";
    pub const AUTHENTICATION_DURATION: &str = "authentication_duration_seconds";
    pub const AUTHORIZATION_ATTEMPTS: &str = "authorization_attempts_total";
    pub const AUTHORIZATION_DURATION: &str = "authorization_duration_seconds";
    pub const PROCESS_CPU: &str = "process_cpu_seconds_total";
    pub const PROCESS_OPEN_FDS: &str = "process_open_fds";
    pub const PROCESS_MAX_FDS: &str = "process_max_fds";
    pub const PROCESS_VIRTUAL_MEMORY: &str = "process_virtual_memory_bytes";
    pub const PROCESS_VIRTUAL_MEMORY_MAX: &str = "process_virtual_memory_max_bytes";
    pub const PROCESS_RESIDENT_MEMORY: &str = "process_resident_memory_bytes";
    pub const PROCESS_START_TIME: &str = "process_start_time_seconds";
    pub const PROCESS_NETWORK_RECEIVE: &str = "process_network_receive_bytes_total";
    pub const PROCESS_NETWORK_TRANSMIT: &str = "process_network_transmit_bytes_total";
    pub const WATCH_RELISTS: &str = "edgesched_watch_relists_total";
    pub const EVENTS_DROPPED: &str = "edgesched_events_dropped_total";
    pub const UNSERVED: &str = "edgesched_pending_pods_unserved_scheduler_name";
}

use names::*;
use Buckets::{Explicit, Exponential as Exp};
use Kind::{Counter, Gauge, Histogram};
use Recording::{At, Never};
use Stability::{Alpha, Beta, Raw, Stable};

const SCHED: &str = "pkg/scheduler/metrics/metrics.go";
const VOLUME: &str = "pkg/scheduler/framework/plugins/volumebinding/metrics/metrics.go";
const REST: &str = "component-base/metrics/prometheus/restclient/metrics.go";
const LEADER: &str = "component-base/metrics/prometheus/clientgo/leaderelection/metrics.go";
const REGISTRY: &str = "component-base/metrics/registry.go";
const AUTHN_FACTORY: &str = "apiserver/pkg/authentication/authenticatorfactory/metrics.go";
const AUTHZ_FACTORY: &str = "apiserver/pkg/authorization/authorizerfactory/metrics.go";
const FILTERS: &str = "apiserver/pkg/endpoints/filters/metrics.go";
const PROCESS: &str = "client_golang prometheus/process_collector.go";
const OURS: &str = "edgesched";

const NO_BATCHING: &str = "opportunistic batching is not implemented: every pod gets a full scheduling cycle";
const NO_EXEC: &str = "exec credential plugins are refused (kubeconfig validation)";
const LATENCY: &[f64] = &[0.005, 0.025, 0.1, 0.25, 0.5, 1.0, 2.0, 4.0, 8.0, 15.0, 30.0, 60.0];
const SIZES: &[f64] = &[64.0, 256.0, 512.0, 1024.0, 4096.0, 16384.0, 65536.0, 262144.0, 1048576.0, 4194304.0, 16777216.0];
const DELEGATED: &[f64] = &[0.25, 0.5, 0.7, 1.0, 1.5, 3.0, 5.0, 10.0];
const ROTATION: &[f64] =
    &[600.0, 1800.0, 3600.0, 14400.0, 86400.0, 604800.0, 2592000.0, 7776000.0, 15552000.0, 31104000.0, 124416000.0];

#[allow(clippy::too_many_arguments)]
const fn d(
    name: &'static str,
    help: &'static str,
    kind: Kind,
    labels: &'static [&'static str],
    buckets: Buckets,
    stability: Stability,
    source: &'static str,
    recording: Recording,
) -> Desc {
    Desc { name, help, kind, labels, buckets, stability, deprecated_version: None, source, recording }
}

/// Every family, in registration order (rendering sorts by name, as client_golang does).
pub static CATALOG: &[Desc] = &[
    d(SCHEDULE_ATTEMPTS, "Number of attempts to schedule pods, by the result. 'unschedulable' means a pod could not be scheduled, while 'error' means an internal scheduler problem.", Counter, &["result", "profile"], Buckets::None, Stable, SCHED, At("each cycle's end (unschedulable, error) and each binding (scheduled)")),
    d(ATTEMPT_DURATION, "Scheduling attempt latency in seconds (scheduling algorithm + binding)", Histogram, &["result", "profile"], Exp(0.001, 2.0, 15), Stable, SCHED, At("with scheduler_schedule_attempts_total, from the cycle's start")),
    d(ALGORITHM_DURATION, "Scheduling algorithm latency in seconds", Histogram, &[], Exp(0.001, 2.0, 15), Alpha, SCHED, At("each cycle that found a node")),
    d(EVENT_HANDLING_DURATION, "Event handling latency in seconds.", Histogram, &["event"], Exp(0.0001, 2.0, 12), Alpha, SCHED, At("each watch event the scheduler applies, by cluster event")),
    d(PREEMPTION_VICTIMS, "Number of selected preemption victims", Histogram, &[], Exp(1.0, 2.0, 7), Stable, SCHED, At("each preemption that nominated a node")),
    d(PREEMPTION_ATTEMPTS, "Total preemption attempts in the cluster till now", Counter, &[], Buckets::None, Stable, SCHED, At("each DefaultPreemption PostFilter run")),
    d(PENDING_PODS, "Number of pending pods, by the queue type. 'active' means number of pods in activeQ; 'backoff' means number of pods in backoffQ; 'unschedulable' means number of pods in unschedulablePods that the scheduler attempted to schedule and failed; 'gated' is the number of unschedulable pods that the scheduler never attempted to schedule because they are gated.", Gauge, &["queue"], Buckets::None, Stable, SCHED, At("the queue, refreshed with every change")),
    d(INFLIGHT_EVENTS, "Number of events currently tracked in the scheduling queue.", Gauge, &["event"], Buckets::None, Alpha, SCHED, Never("the queue keeps no in-flight event list: a pod is judged against the event masks of the plugins that rejected it")),
    d(GOROUTINES, "Number of running goroutines split by the work they do such as binding.", Gauge, &["operation"], Buckets::None, Alpha, SCHED, At("binding jobs running on the binder threads and API workers (operation=\"binding\")")),
    d(BATCH_ATTEMPTS, "Counts of results when we attempt to use batching.", Counter, &["profile", "result"], Buckets::None, Alpha, SCHED, Never(NO_BATCHING)),
    d(BATCH_CACHE_FLUSHED, "Counts of cache flushes by reason.", Counter, &["profile", "reason"], Buckets::None, Alpha, SCHED, Never(NO_BATCHING)),
    d(SLI_DURATION, "E2e latency for a pod being scheduled, from the time the pod enters the scheduling queue and might involve multiple scheduling attempts.", Histogram, &["attempts"], Exp(0.01, 2.0, 20), Beta, SCHED, At("each successful binding")),
    d(POD_ATTEMPTS, "Number of attempts to successfully schedule a pod.", Histogram, &[], Exp(1.0, 2.0, 5), Stable, SCHED, At("each successful binding")),
    d(SCHEDULED_AFTER_FLUSH, "Number of pods that were successfully scheduled after being flushed from unschedulablePods due to timeout. This metric helps detect potential queueing hint misconfigurations or event handling issues.", Counter, &[], Buckets::None, Alpha, SCHED, At("each successful binding of a pod the 5-minute flush moved")),
    d(EXTENSION_POINT_DURATION, "Latency for running all plugins of a specific extension point.", Histogram, &["extension_point", "status", "profile"], Exp(0.0001, 2.0, 12), Stable, SCHED, At("PreFilter, PostFilter, PreScore, Score, Reserve, Permit in the cycle; PreBind, Bind on the binder threads and API workers (no PostBind or Unreserve point exists)")),
    d(PLUGIN_DURATION, "Duration for running a plugin at a specific extension point.", Histogram, &["plugin", "extension_point", "status"], Exp(0.00001, 1.5, 20), Alpha, SCHED, At("every plugin call of one cycle in ten (upstream samples 10%)")),
    d(QUEUEING_HINT_DURATION, "Duration for running a queueing hint function of a plugin.", Histogram, &["plugin", "event", "hint"], Exp(0.00001, 1.5, 20), Alpha, SCHED, Never("the in-tree plugins' queueing hints are static event masks; out-of-tree plugins' hint functions are not timed")),
    d(QUEUE_INCOMING, "Number of pods added to scheduling queues by event and queue type.", Counter, &["queue", "event"], Buckets::None, Stable, SCHED, At("every move into activeQ, backoffQ, unschedulablePods or the gated set")),
    d(PERMIT_WAIT_DURATION, "Duration of waiting on permit.", Histogram, &["result"], Exp(0.001, 2.0, 15), Alpha, SCHED, At("each pod a Permit plugin held, when it is allowed (Success) or rejected or timed out (Unschedulable)")),
    d(CACHE_SIZE, "Number of nodes, pods, and assumed (bound) pods in the scheduler cache.", Gauge, &["type"], Buckets::None, Alpha, SCHED, At("the node table, refreshed with every change")),
    d(UNSCHEDULABLE_PODS, "The number of unschedulable pods broken down by plugin name. A pod will increment the gauge for all plugins that caused it to not schedule and so this metric have meaning only when broken down by plugin.", Gauge, &["plugin", "profile"], Buckets::None, Alpha, SCHED, At("the unschedulable pods of the queue, by rejecting plugin")),
    d(PLUGIN_EVALUATIONS, "Number of attempts to schedule pods by each plugin and the extension point (available only in PreFilter, Filter, PreScore, and Score).", Counter, &["plugin", "extension_point", "profile"], Buckets::None, Alpha, SCHED, At("every PreFilter, Filter, PreScore and Score plugin call")),
    d(PREEMPTION_GOROUTINES_DURATION, "Duration in seconds for running goroutines for the preemption.", Histogram, &["result"], Exp(0.01, 2.0, 20), Alpha, SCHED, Never("victims are evicted by the API workers one request at a time; there is no preemption goroutine to time")),
    d(PREEMPTION_GOROUTINES_EXECUTIONS, "Number of preemption goroutines executed.", Counter, &["result"], Buckets::None, Alpha, SCHED, Never("victims are evicted by the API workers one request at a time; there is no preemption goroutine to count")),
    d(GET_NODE_HINT_DURATION, "Latency for getting a node hint.", Histogram, &["hinted", "profile"], Exp(0.00001, 2.0, 12), Alpha, SCHED, Never(NO_BATCHING)),
    d(STORE_SCHEDULE_RESULTS_DURATION, "Latency for getting a no.", Histogram, &["profile"], Exp(0.00001, 2.0, 12), Alpha, SCHED, Never(NO_BATCHING)),
    d(VOLUME_BINDER_CACHE_REQUESTS, "Total number for request volume binding cache", Counter, &["operation"], Buckets::None, Alpha, VOLUME, Never("VolumeBinding keeps claims and volumes in the node table, not in an assume cache")),
    d(VOLUME_SCHEDULING_STAGE_ERRORS, "Volume scheduling stage error count", Counter, &["operation"], Buckets::None, Alpha, VOLUME, Never("volume binding errors surface as PreBind failures (scheduler_framework_extension_point_duration_seconds{extension_point=\"PreBind\",status=\"Error\"})")),
    d(REST_REQUEST_DURATION, "Request latency in seconds. Broken down by verb, and host.", Histogram, &["verb", "host"], Explicit(LATENCY), Alpha, REST, At("every API request attempt")),
    d(REST_DNS_DURATION, "DNS resolver latency in seconds. Broken down by host.", Histogram, &["host"], Explicit(&[0.005, 0.025, 0.1, 0.25, 0.5, 1.0, 2.0, 4.0, 8.0, 15.0, 30.0]), Alpha, REST, Never("the HTTP client resolves names inside its connector; lookups are not timed separately")),
    d(REST_REQUEST_SIZE, "Request size in bytes. Broken down by verb and host.", Histogram, &["verb", "host"], Explicit(SIZES), Alpha, REST, At("every API request attempt (body bytes)")),
    d(REST_RESPONSE_SIZE, "Response size in bytes. Broken down by verb and host.", Histogram, &["verb", "host"], Explicit(SIZES), Alpha, REST, At("every API response read whole (body bytes; watch streams are not counted)")),
    d(REST_RATE_LIMITER_DURATION, "Client side rate limiter latency in seconds. Broken down by verb, and host.", Histogram, &["verb", "host"], Explicit(LATENCY), Alpha, REST, At("every request's wait for the client-side rate limiter")),
    d(REST_REQUESTS, "Number of HTTP requests, partitioned by status code, method, and host.", Counter, &["code", "method", "host"], Buckets::None, Alpha, REST, At("every API request attempt (code \"<error>\" when no response arrived)")),
    d(REST_RETRIES, "Number of request retries, partitioned by status code, verb, and host.", Counter, &["code", "verb", "host"], Buckets::None, Alpha, REST, At("every retried API request")),
    d(REST_EXEC_TTL, "Gauge of the shortest TTL (time-to-live) of the client certificate(s) managed by the auth exec plugin. The value is in seconds until certificate expiry (negative if already expired). If auth exec plugins are unused or manage no TLS certificates, the value will be +INF.", Gauge, &[], Buckets::None, Alpha, REST, At("always +Inf: exec plugins are refused, so none manages a certificate")),
    d(REST_EXEC_ROTATION_AGE, "Histogram of the number of seconds the last auth exec plugin client certificate lived before being rotated. If auth exec plugin client certificates are unused, histogram will contain no data.", Histogram, &[], Explicit(ROTATION), Alpha, REST, At("never observed: exec plugins are refused, so the histogram holds no data, as upstream's without them")),
    d(REST_EXEC_CALLS, "Number of calls to an exec plugin, partitioned by the type of event encountered (no_error, plugin_execution_error, plugin_not_found_error, client_internal_error) and an optional exit code. The exit code will be set to 0 if and only if the plugin call was successful.", Counter, &["code", "call_status"], Buckets::None, Alpha, REST, Never(NO_EXEC)),
    d(REST_EXEC_POLICY_CALLS, "Number of comparisons of an exec plugin to the plugin policy and allowlist (if any), partitioned by whether or not the policy permits the plugin", Counter, &["allowed", "denied"], Buckets::None, Alpha, REST, Never(NO_EXEC)),
    d(REST_TRANSPORT_CACHE_ENTRIES, "Number of transport entries in the internal cache.", Gauge, &[], Buckets::None, Alpha, REST, Never("each API client owns its connection pool; there is no shared transport cache")),
    d(REST_TRANSPORT_CREATE_CALLS, "Number of calls to get a new transport, partitioned by the result of the operation hit: obtained from the cache, miss: created and added to the cache, uncacheable: created and not cached", Counter, &["result"], Buckets::None, Alpha, REST, Never("each API client owns its connection pool; there is no shared transport cache")),
    d(LEADER_STATUS, "Gauge of if the reporting system is master of the relevant lease, 0 indicates backup, 1 indicates master. 'name' is the string used to identify the lease. Please make sure to group by name.", Gauge, &["name"], Buckets::None, Alpha, LEADER, At("leader election: 1 while leading, 0 otherwise")),
    d(LEADER_SLOWPATH, "Total number of slow path exercised in renewing leader leases. 'name' is the string used to identify the lease. Please make sure to group by name.", Counter, &["name"], Buckets::None, Alpha, LEADER, Never("every renewal reads the Lease first (client-go's slow path), so there is no fast path to fall back from")),
    d(REGISTERED_METRICS, "The count of registered metrics broken by stability level and deprecation version.", Counter, &["stability_level", "deprecated_version"], Buckets::None, Beta, REGISTRY, At("at start, one per family registered")),
    d(DISABLED_METRICS, "The count of disabled metrics.", Counter, &[], Buckets::None, Beta, REGISTRY, At("at start, one per --disabled-metrics name")),
    d(HIDDEN_METRICS, "The count of hidden metrics.", Counter, &[], Buckets::None, Beta, REGISTRY, At("at start, one per deprecated family hidden")),
    d(UNEXPECTED_CATEGORIZATIONS, "The count of unexpected categorizations during cardinality enforcement.", Counter, &[], Buckets::None, Alpha, REGISTRY, At("each label value --allow-metric-labels turns into \"unexpected\"")),
    d(BUILD_INFO, "A metric with a constant '1' value labeled by major, minor, git version, git commit, git tree state, build date, Go version, and compiler from which Kubernetes was built, and platform on which it is running.", Gauge, &["major", "minor", "git_version", "git_commit", "git_tree_state", "build_date", "go_version", "compiler", "platform"], Buckets::None, Alpha, "component-base/metrics/version.go", At("at start, edgesched's version")),
    d(FEATURE_ENABLED, "This metric records the data about the stage and enablement of a k8s feature.", Gauge, &["name", "stage"], Buckets::None, Beta, "component-base/featuregate/feature_gate.go", At("at start, one sample per gate of --feature-gates' registry, AllAlpha and AllBeta included")),
    d(DELEGATED_AUTHN_REQUESTS, "Number of HTTP requests partitioned by status code.", Counter, &["code"], Buckets::None, Alpha, AUTHN_FACTORY, At("every TokenReview sent for the secure port")),
    d(DELEGATED_AUTHN_DURATION, "Request latency in seconds. Broken down by status code.", Histogram, &["code"], Explicit(DELEGATED), Alpha, AUTHN_FACTORY, At("every TokenReview sent for the secure port")),
    d(DELEGATED_AUTHZ_REQUESTS, "Number of HTTP requests partitioned by status code.", Counter, &["code"], Buckets::None, Alpha, AUTHZ_FACTORY, At("every SubjectAccessReview sent for the secure port")),
    d(DELEGATED_AUTHZ_DURATION, "Request latency in seconds. Broken down by status code.", Histogram, &["code"], Explicit(DELEGATED), Alpha, AUTHZ_FACTORY, At("every SubjectAccessReview sent for the secure port")),
    d(AUTHENTICATED_USER_REQUESTS, "Counter of authenticated requests broken out by username.", Counter, &["username"], Buckets::None, Alpha, FILTERS, At("every authenticated request to a protected path")),
    d(AUTHENTICATION_ATTEMPTS, "Counter of authenticated attempts.", Counter, &["result"], Buckets::None, Alpha, FILTERS, At("every request to a protected path")),
    d(AUTHENTICATION_DURATION, "Authentication duration in seconds broken out by result.", Histogram, &["result"], Exp(0.001, 2.0, 15), Alpha, FILTERS, At("every request to a protected path")),
    d(AUTHORIZATION_ATTEMPTS, "Counter of authorization attempts broken down by result. It can be either 'allowed', 'denied', 'no-opinion' or 'error'.", Counter, &["result"], Buckets::None, Alpha, FILTERS, At("every authenticated request to a protected path")),
    d(AUTHORIZATION_DURATION, "Authorization duration in seconds broken out by result.", Histogram, &["result"], Exp(0.001, 2.0, 15), Alpha, FILTERS, At("every authenticated request to a protected path")),
    d(PROCESS_CPU, "Total user and system CPU time spent in seconds.", Counter, &[], Buckets::None, Raw, PROCESS, At("each scrape, from /proc/self/stat")),
    d(PROCESS_OPEN_FDS, "Number of open file descriptors.", Gauge, &[], Buckets::None, Raw, PROCESS, At("each scrape, from /proc/self/fd")),
    d(PROCESS_MAX_FDS, "Maximum number of open file descriptors.", Gauge, &[], Buckets::None, Raw, PROCESS, At("each scrape, from /proc/self/limits")),
    d(PROCESS_VIRTUAL_MEMORY, "Virtual memory size in bytes.", Gauge, &[], Buckets::None, Raw, PROCESS, At("each scrape, from /proc/self/stat")),
    d(PROCESS_VIRTUAL_MEMORY_MAX, "Maximum amount of virtual memory available in bytes.", Gauge, &[], Buckets::None, Raw, PROCESS, At("each scrape, from /proc/self/limits (-1 when unlimited)")),
    d(PROCESS_RESIDENT_MEMORY, "Resident memory size in bytes.", Gauge, &[], Buckets::None, Raw, PROCESS, At("each scrape, from /proc/self/stat")),
    d(PROCESS_START_TIME, "Start time of the process since unix epoch in seconds.", Gauge, &[], Buckets::None, Raw, PROCESS, At("each scrape, from /proc/self/stat and /proc/stat")),
    d(PROCESS_NETWORK_RECEIVE, "Number of bytes received by the process over the network.", Counter, &[], Buckets::None, Raw, PROCESS, At("each scrape, from /proc/self/net/netstat")),
    d(PROCESS_NETWORK_TRANSMIT, "Number of bytes sent by the process over the network.", Counter, &[], Buckets::None, Raw, PROCESS, At("each scrape, from /proc/self/net/netstat")),
    d(WATCH_RELISTS, "Number of full relists per watched resource (410 Gone, errors, start).", Counter, &["resource"], Buckets::None, Stability::Edgesched, OURS, At("each list a watcher starts")),
    d(EVENTS_DROPPED, "Events not recorded: the recorder queue was full, a write failed for good, or the shutdown flush ran out of time.", Counter, &[], Buckets::None, Stability::Edgesched, OURS, At("each event the full recorder queue refuses, each write given up, each event left at the end of the shutdown flush")),
    d(UNSERVED, "Pending pods whose spec.schedulerName is served by no known scheduler.", Gauge, &["scheduler_name"], Buckets::None, Stability::Edgesched, OURS, At("the unserved-name check, every 10 s")),
];

/// The declaration of a name, if any.
pub fn find(name: &str) -> Option<&'static Desc> {
    CATALOG.iter().find(|d| d.name == name)
}

/// The metrics table of docs/metrics.md, generated from [`CATALOG`] (a test keeps the document equal to it).
pub fn readme_table() -> String {
    let mut out = String::from("| metric | type | labels | recorded |\n|---|---|---|---|\n");
    let mut rows: Vec<&Desc> = CATALOG.iter().collect();
    rows.sort_by_key(|d| d.name);
    for d in rows {
        let labels = if d.labels.is_empty() { "—".to_string() } else { d.labels.join(", ") };
        let recorded = match d.recording {
            Recording::At(at) => at.to_string(),
            Recording::Never(why) => format!("**never**: {why}"),
        };
        out.push_str(&format!("| `{}` | {} | {} | {} |\n", d.name, d.kind.as_str(), labels, recorded.replace('|', "\\|")));
    }
    out
}
