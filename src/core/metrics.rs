//! A small Prometheus registry with upstream's scheduler metric names.
//!
//! The scheduler thread updates it, the serving thread renders it; one mutex, held for
//! nanoseconds per update. Families are declared up front with their help text and label names,
//! so `/metrics` lists them (with zero values) before anything happened, as client_golang does.

use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::sync::{Arc, Mutex};

/// Metric kinds we expose.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    Counter,
    Gauge,
    Histogram,
}

#[derive(Debug, Clone)]
struct Hist {
    counts: Vec<u64>,
    sum: f64,
    count: u64,
}

#[derive(Debug)]
struct Family {
    help: &'static str,
    kind: Kind,
    labels: &'static [&'static str],
    buckets: Vec<f64>,
    values: BTreeMap<Vec<String>, f64>,
    hists: BTreeMap<Vec<String>, Hist>,
}

/// Exponential buckets as Prometheus' `ExponentialBuckets(start, factor, count)`.
pub fn exponential_buckets(start: f64, factor: f64, count: usize) -> Vec<f64> {
    let mut v = Vec::with_capacity(count);
    let mut b = start;
    for _ in 0..count {
        v.push(b);
        b *= factor;
    }
    v
}

/// Metric names (pkg/scheduler/metrics/metrics.go).
pub mod names {
    pub const SCHEDULE_ATTEMPTS: &str = "scheduler_schedule_attempts_total";
    pub const ATTEMPT_DURATION: &str = "scheduler_scheduling_attempt_duration_seconds";
    pub const ALGORITHM_DURATION: &str = "scheduler_scheduling_algorithm_duration_seconds";
    pub const PENDING_PODS: &str = "scheduler_pending_pods";
    pub const SLI_DURATION: &str = "scheduler_pod_scheduling_sli_duration_seconds";
    pub const POD_ATTEMPTS: &str = "scheduler_pod_scheduling_attempts";
    pub const EXTENSION_POINT_DURATION: &str = "scheduler_framework_extension_point_duration_seconds";
    pub const QUEUE_INCOMING: &str = "scheduler_queue_incoming_pods_total";
    pub const PREEMPTION_ATTEMPTS: &str = "scheduler_preemption_attempts_total";
    pub const PREEMPTION_VICTIMS: &str = "scheduler_preemption_victims";
    pub const CACHE_SIZE: &str = "scheduler_cache_size";
    pub const UNSCHEDULABLE_PODS: &str = "scheduler_unschedulable_pods";
    pub const LEADER_STATUS: &str = "leader_election_master_status";
    pub const WATCH_RELISTS: &str = "edgesched_watch_relists_total";
    pub const API_REQUESTS: &str = "edgesched_api_requests_total";
    pub const EVENTS_DROPPED: &str = "edgesched_events_dropped_total";
    pub const UNSERVED: &str = "edgesched_pending_pods_unserved_scheduler_name";
}

/// The registry.
#[derive(Debug, Clone)]
pub struct Metrics {
    inner: Arc<Mutex<BTreeMap<&'static str, Family>>>,
}

impl Default for Metrics {
    fn default() -> Self {
        Metrics::new()
    }
}

impl Metrics {
    /// A registry with every family edgesched exports declared.
    pub fn new() -> Metrics {
        let m = Metrics { inner: Arc::new(Mutex::new(BTreeMap::new())) };
        use names::*;
        let attempt_buckets = exponential_buckets(0.001, 2.0, 15);
        m.declare(SCHEDULE_ATTEMPTS, "Number of attempts to schedule pods, by the result. 'unschedulable' means a pod could not be scheduled, while 'error' means an internal scheduler problem.", Kind::Counter, &["result", "profile"], vec![]);
        m.declare(
            ATTEMPT_DURATION,
            "Scheduling attempt latency in seconds (scheduling algorithm + binding)",
            Kind::Histogram,
            &["result", "profile"],
            attempt_buckets.clone(),
        );
        m.declare(ALGORITHM_DURATION, "Scheduling algorithm latency in seconds", Kind::Histogram, &[], attempt_buckets);
        m.declare(PENDING_PODS, "Number of pending pods, by the queue type. 'active' means number of pods in activeQ; 'backoff' means number of pods in backoffQ; 'unschedulable' means number of pods in unschedulablePods that the scheduler attempted to schedule and failed; 'gated' is the number of unschedulable pods that the scheduler never attempted to schedule because they are gated.", Kind::Gauge, &["queue"], vec![]);
        m.declare(SLI_DURATION, "E2e latency for a pod being scheduled, from the time the pod enters the scheduling queue and might involve multiple scheduling attempts.", Kind::Histogram, &["attempts"], exponential_buckets(0.01, 2.0, 20));
        m.declare(
            POD_ATTEMPTS,
            "Number of attempts to successfully schedule a pod.",
            Kind::Histogram,
            &[],
            exponential_buckets(1.0, 2.0, 5),
        );
        m.declare(
            EXTENSION_POINT_DURATION,
            "Latency for running all plugins of a specific extension point.",
            Kind::Histogram,
            &["extension_point", "status", "profile"],
            exponential_buckets(0.0001, 2.0, 12),
        );
        m.declare(
            QUEUE_INCOMING,
            "Number of pods added to scheduling queues by event and queue type.",
            Kind::Counter,
            &["queue", "event"],
            vec![],
        );
        m.declare(PREEMPTION_ATTEMPTS, "Total preemption attempts in the cluster till now", Kind::Counter, &[], vec![]);
        m.declare(
            PREEMPTION_VICTIMS,
            "Number of selected preemption victims",
            Kind::Histogram,
            &[],
            exponential_buckets(1.0, 2.0, 7),
        );
        m.declare(
            CACHE_SIZE,
            "Number of nodes, pods, and assumed (bound) pods in the scheduler cache.",
            Kind::Gauge,
            &["type"],
            vec![],
        );
        m.declare(UNSCHEDULABLE_PODS, "The number of unschedulable pods broken down by plugin name. A pod will increment the gauge for all plugins that caused it to not schedule and so this metric have meaning only when broken down by plugin.", Kind::Gauge, &["plugin", "profile"], vec![]);
        m.declare(LEADER_STATUS, "Gauge of if the reporting system is master of the relevant lease, 0 indicates backup, 1 indicates master. 'name' is the string used to identify the lease. Please make sure to group by name.", Kind::Gauge, &["name"], vec![]);
        m.declare(
            WATCH_RELISTS,
            "Number of full relists per watched resource (410 Gone, errors, start).",
            Kind::Counter,
            &["resource"],
            vec![],
        );
        m.declare(
            API_REQUESTS,
            "API requests made by edgesched, by verb and HTTP code.",
            Kind::Counter,
            &["verb", "code"],
            vec![],
        );
        m.declare(
            EVENTS_DROPPED,
            "Events not recorded: the recorder queue was full, a write failed for good, or the shutdown flush ran out of time.",
            Kind::Counter,
            &[],
            vec![],
        );
        m.declare(
            UNSERVED,
            "Pending pods whose spec.schedulerName is served by no known scheduler.",
            Kind::Gauge,
            &["scheduler_name"],
            vec![],
        );
        for q in ["active", "backoff", "unschedulable", "gated"] {
            m.set(PENDING_PODS, &[q], 0.0);
        }
        m
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, BTreeMap<&'static str, Family>> {
        match self.inner.lock() {
            Ok(g) => g,
            Err(p) => p.into_inner(),
        }
    }

    /// Declare a family (idempotent).
    pub fn declare(
        &self,
        name: &'static str,
        help: &'static str,
        kind: Kind,
        labels: &'static [&'static str],
        buckets: Vec<f64>,
    ) {
        self.lock().entry(name).or_insert(Family {
            help,
            kind,
            labels,
            buckets,
            values: BTreeMap::new(),
            hists: BTreeMap::new(),
        });
    }

    fn key(labels: &[&str]) -> Vec<String> {
        labels.iter().map(|s| s.to_string()).collect()
    }

    /// Add to a counter.
    pub fn inc(&self, name: &str, labels: &[&str], by: f64) {
        if let Some(f) = self.lock().get_mut(name) {
            *f.values.entry(Self::key(labels)).or_insert(0.0) += by;
        }
    }

    /// Set a gauge.
    pub fn set(&self, name: &str, labels: &[&str], v: f64) {
        if let Some(f) = self.lock().get_mut(name) {
            f.values.insert(Self::key(labels), v);
        }
    }

    /// Replace every series of a gauge (for label sets that come and go).
    pub fn replace_gauge(&self, name: &str, series: &[(Vec<String>, f64)]) {
        if let Some(f) = self.lock().get_mut(name) {
            f.values = series.iter().cloned().collect();
        }
    }

    /// Observe a histogram sample.
    pub fn observe(&self, name: &str, labels: &[&str], v: f64) {
        if let Some(f) = self.lock().get_mut(name) {
            let n = f.buckets.len();
            let h = f.hists.entry(Self::key(labels)).or_insert_with(|| Hist { counts: vec![0; n], sum: 0.0, count: 0 });
            for (i, b) in f.buckets.iter().enumerate() {
                if v <= *b {
                    h.counts[i] += 1;
                }
            }
            h.sum += v;
            h.count += 1;
        }
    }

    /// Current value of a counter/gauge series (tests, status output).
    pub fn value(&self, name: &str, labels: &[&str]) -> f64 {
        self.lock().get(name).and_then(|f| f.values.get(&Self::key(labels)).copied()).unwrap_or(0.0)
    }

    /// Number of observations of a histogram series.
    pub fn histogram_count(&self, name: &str, labels: &[&str]) -> u64 {
        self.lock().get(name).and_then(|f| f.hists.get(&Self::key(labels)).map(|h| h.count)).unwrap_or(0)
    }

    /// Prometheus text exposition format 0.0.4.
    pub fn render(&self) -> String {
        let mut out = String::new();
        for (name, f) in self.lock().iter() {
            let kind = match f.kind {
                Kind::Counter => "counter",
                Kind::Gauge => "gauge",
                Kind::Histogram => "histogram",
            };
            let _ = writeln!(out, "# HELP {name} {}", f.help);
            let _ = writeln!(out, "# TYPE {name} {kind}");
            for (labels, v) in &f.values {
                let _ = writeln!(out, "{name}{} {}", fmt_labels(f.labels, labels, None), fmt_value(*v));
            }
            for (labels, h) in &f.hists {
                for (i, b) in f.buckets.iter().enumerate() {
                    let _ = writeln!(out, "{name}_bucket{} {}", fmt_labels(f.labels, labels, Some(&fmt_value(*b))), h.counts[i]);
                }
                let _ = writeln!(out, "{name}_bucket{} {}", fmt_labels(f.labels, labels, Some("+Inf")), h.count);
                let _ = writeln!(out, "{name}_sum{} {}", fmt_labels(f.labels, labels, None), fmt_value(h.sum));
                let _ = writeln!(out, "{name}_count{} {}", fmt_labels(f.labels, labels, None), h.count);
            }
        }
        out
    }
}

fn escape(v: &str) -> String {
    v.replace('\\', "\\\\").replace('"', "\\\"").replace('\n', "\\n")
}

fn fmt_labels(names: &[&str], values: &[String], le: Option<&str>) -> String {
    let mut parts: Vec<String> = names.iter().zip(values).map(|(n, v)| format!("{n}=\"{}\"", escape(v))).collect();
    if let Some(le) = le {
        parts.push(format!("le=\"{le}\""));
    }
    if parts.is_empty() {
        String::new()
    } else {
        format!("{{{}}}", parts.join(","))
    }
}

fn fmt_value(v: f64) -> String {
    if v.is_infinite() {
        if v > 0.0 {
            "+Inf".into()
        } else {
            "-Inf".into()
        }
    } else if v == v.trunc() && v.abs() < 1e15 {
        format!("{}", v as i64)
    } else {
        format!("{v}")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn renders_prometheus_text() {
        let m = Metrics::new();
        m.inc(names::SCHEDULE_ATTEMPTS, &["scheduled", "my-scheduler"], 1.0);
        m.observe(names::ATTEMPT_DURATION, &["scheduled", "my-scheduler"], 0.0015);
        let text = m.render();
        assert!(text.contains("# TYPE scheduler_schedule_attempts_total counter"));
        assert!(text.contains("scheduler_schedule_attempts_total{result=\"scheduled\",profile=\"my-scheduler\"} 1"));
        assert!(text.contains(
            "scheduler_scheduling_attempt_duration_seconds_bucket{result=\"scheduled\",profile=\"my-scheduler\",le=\"0.001\"} 0"
        ));
        assert!(text.contains(
            "scheduler_scheduling_attempt_duration_seconds_bucket{result=\"scheduled\",profile=\"my-scheduler\",le=\"0.002\"} 1"
        ));
        assert!(
            text.contains("scheduler_scheduling_attempt_duration_seconds_count{result=\"scheduled\",profile=\"my-scheduler\"} 1")
        );
        assert!(text.contains("scheduler_pending_pods{queue=\"active\"} 0"));
        assert_eq!(m.value(names::SCHEDULE_ATTEMPTS, &["scheduled", "my-scheduler"]), 1.0);
    }
}
