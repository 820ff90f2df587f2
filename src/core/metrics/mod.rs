//! The metrics registry: the families of [`catalog::CATALOG`] (kube-scheduler v1.35's names,
//! help, types, labels and buckets), the values recorded into them, and the Prometheus text
//! rendering of `/metrics`.
//!
//! Every thread records into one shared registry (one mutex, held for the few hundred
//! nanoseconds of a map update); the serving thread renders it. As in client_golang, a family
//! without labels is exposed from the start with a zero value, a family with labels once it has
//! a series; families and series are sorted, label pairs ordered by name.

pub mod catalog;
pub mod expfmt;
pub mod options;

pub use catalog::{names, Desc, Kind, Recording, Stability};
pub use options::MetricsOptions;

use crate::core::seeded_hash::SeededState;
use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::hash::{BuildHasher, Hasher};
use std::sync::{Arc, Mutex};

/// Exponential buckets as Prometheus' `ExponentialBuckets(start, factor, count)`.
pub fn exponential_buckets(start: f64, factor: f64, count: usize) -> Vec<f64> {
    catalog::Buckets::Exponential(start, factor, count).bounds()
}

#[derive(Debug, Clone)]
struct Hist {
    /// Samples per bucket (not cumulative: an observation increments one; rendering sums).
    counts: Vec<u64>,
    sum: f64,
    count: u64,
}

#[derive(Debug, Clone)]
enum Value {
    Scalar(f64),
    Hist(Hist),
}

/// One series: its label values (in the family's declared order) and value.
#[derive(Debug, Clone)]
struct Series {
    labels: Box<[Box<str>]>,
    value: Value,
}

#[derive(Debug)]
struct Family {
    desc: &'static Desc,
    /// Shared so that recording can hold them next to a series without copying (a copy was an
    /// allocation per observation).
    bounds: Arc<[f64]>,
    /// label index → allowed values (`--allow-metric-labels`).
    allowed: Vec<Option<BTreeSet<String>>>,
    /// Series by a hash of their label values (collisions share the bucket).
    series: HashMap<u64, Vec<Series>>,
    /// Hashes label values, some of which tenants choose (a pending pod's `schedulerName`):
    /// seeded, so that no precomputed set of values shares one bucket.
    hasher: SeededState,
}

impl Family {
    fn new(desc: &'static Desc) -> Family {
        Family {
            desc,
            bounds: desc.buckets.bounds().into(),
            allowed: vec![None; desc.labels.len()],
            series: HashMap::new(),
            hasher: SeededState::default(),
        }
    }

    fn hash_labels(&self, labels: &[&str]) -> u64 {
        let mut h = self.hasher.build_hasher();
        for l in labels {
            h.write(l.as_bytes());
            h.write_u8(0xff);
        }
        h.finish()
    }

    /// The series for these label values, created empty if new. Wrong arity is a programming
    /// error upstream panics on; here the sample is dropped.
    fn series(&mut self, labels: &[&str]) -> Option<&mut Value> {
        if labels.len() != self.desc.labels.len() {
            debug_assert!(false, "{}: {} label values for {:?}", self.desc.name, labels.len(), self.desc.labels);
            return None;
        }
        let hash = self.hash_labels(labels);
        let bucket = self.series.entry(hash).or_default();
        let pos = match bucket.iter().position(|s| s.labels.iter().map(|l| &**l).eq(labels.iter().copied())) {
            Some(p) => p,
            None => {
                let value = match self.desc.kind {
                    Kind::Histogram => Value::Hist(Hist { counts: vec![0; self.bounds.len()], sum: 0.0, count: 0 }),
                    Kind::Counter | Kind::Gauge => Value::Scalar(0.0),
                };
                bucket.push(Series { labels: labels.iter().map(|l| Box::from(*l)).collect(), value });
                bucket.len() - 1
            }
        };
        bucket.get_mut(pos).map(|s| &mut s.value)
    }

    fn get(&self, labels: &[&str]) -> Option<&Value> {
        self.series
            .get(&self.hash_labels(labels))?
            .iter()
            .find(|s| s.labels.iter().map(|l| &**l).eq(labels.iter().copied()))
            .map(|s| &s.value)
    }
}

#[derive(Debug, Default)]
struct Registry {
    families: BTreeMap<&'static str, Family>,
}

impl Registry {
    /// [`Metrics::record`] on a locked registry.
    fn record(&mut self, name: &str, labels: &[&str], f: impl FnOnce(&mut Value, &[f64])) {
        let Some(fam) = self.families.get_mut(name) else { return };
        let mut unexpected = 0u32;
        let mapped: Vec<&str>;
        let labels = if fam.allowed.iter().any(Option::is_some) {
            mapped = labels
                .iter()
                .zip(&fam.allowed)
                .map(|(v, allowed)| match allowed {
                    Some(set) if !set.contains(*v) => {
                        unexpected += 1;
                        "unexpected"
                    }
                    _ => *v,
                })
                .collect();
            &mapped[..]
        } else {
            labels
        };
        let bounds = fam.bounds.clone();
        if let Some(v) = fam.series(labels) {
            f(v, &bounds);
        }
        if unexpected > 0 {
            if let Some(Value::Scalar(c)) =
                self.families.get_mut(names::UNEXPECTED_CATEGORIZATIONS).and_then(|fam| fam.series(&[]))
            {
                *c += f64::from(unexpected);
            }
        }
    }

    fn inc(&mut self, name: &str, labels: &[&str], by: f64) {
        self.record(name, labels, |v, _| {
            if let Value::Scalar(c) = v {
                *c += by;
            }
        });
    }

    fn observe_many(&mut self, name: &str, labels: &[&str], samples: &[f64]) {
        self.record(name, labels, |v, bounds| {
            if let Value::Hist(h) = v {
                for &sample in samples {
                    // The first bucket holding the sample (none past the last bound, or NaN: only +Inf).
                    if let Some(c) = h.counts.get_mut(bounds.partition_point(|b| *b < sample || sample.is_nan())) {
                        *c += 1;
                    }
                    h.sum += sample;
                    h.count += 1;
                }
            }
        });
    }
}

/// The registry locked for a few records in a row ([`Metrics::batch`]).
pub struct Batch<'a> {
    reg: &'a mut Registry,
}

impl Batch<'_> {
    /// [`Metrics::inc`] inside the batch.
    pub fn inc(&mut self, name: &str, labels: &[&str], by: f64) {
        self.reg.inc(name, labels, by);
    }

    /// [`Metrics::observe`] inside the batch.
    pub fn observe(&mut self, name: &str, labels: &[&str], sample: f64) {
        self.reg.observe_many(name, labels, &[sample]);
    }

    /// [`Metrics::observe_many`] inside the batch.
    pub fn observe_many(&mut self, name: &str, labels: &[&str], samples: &[f64]) {
        self.reg.observe_many(name, labels, samples);
    }
}

/// A handle on the registry, cheap to clone into every thread.
#[derive(Debug, Clone)]
pub struct Metrics {
    inner: Arc<Mutex<Registry>>,
}

impl Default for Metrics {
    fn default() -> Self {
        Metrics::new()
    }
}

impl Metrics {
    /// A registry with every family of the catalog registered, no flags applied.
    pub fn new() -> Metrics {
        Metrics::with_options(&MetricsOptions::default()).0
    }

    /// A registry as the metrics flags shape it: disabled families are not registered (counted
    /// in `disabled_metrics_total`), hidden ones only with `--show-hidden-metrics-for-version`,
    /// allow-listed labels map other values to `unexpected`. Returns warnings for names that
    /// match no metric.
    pub fn with_options(opts: &MetricsOptions) -> (Metrics, Vec<String>) {
        let mut reg = Registry::default();
        let mut warnings = Vec::new();
        let (mut disabled, mut hidden) = (0u32, 0u32);
        let mut registered: BTreeMap<(&'static str, &'static str), u32> = BTreeMap::new();
        for desc in catalog::CATALOG {
            if opts.disabled.iter().any(|d| d == desc.name) {
                disabled += 1;
                continue;
            }
            if desc.deprecated_version.is_some_and(options::should_hide) && opts.show_hidden_for.is_none() {
                hidden += 1;
                continue;
            }
            let mut fam = Family::new(desc);
            if let Some(per_label) = opts.allow_labels.get(desc.name) {
                for (i, label) in desc.labels.iter().enumerate() {
                    fam.allowed[i] = per_label.get(*label).cloned();
                }
            }
            if let Some(level) = desc.stability.registry_label() {
                *registered.entry((level, desc.deprecated_version.unwrap_or(""))).or_default() += 1;
            }
            reg.families.insert(desc.name, fam);
        }
        for name in &opts.disabled {
            if catalog::find(name).is_none() {
                warnings.push(format!("--disabled-metrics: {name:?} is not a metric edgesched exposes"));
            }
        }
        for name in opts.allow_labels.keys() {
            if catalog::find(name).is_none() {
                warnings.push(format!("--allow-metric-labels: {name:?} is not a metric edgesched exposes"));
            }
        }
        let m = Metrics { inner: Arc::new(Mutex::new(reg)) };
        // Families without labels exist from registration on, as client_golang's do.
        for desc in catalog::CATALOG {
            if desc.labels.is_empty() && matches!(desc.recording, Recording::At(_)) {
                m.with_family(desc.name, |f| {
                    f.series(&[]);
                });
            }
        }
        for ((level, deprecated), n) in registered {
            m.inc(names::REGISTERED_METRICS, &[level, deprecated], f64::from(n));
        }
        m.inc(names::DISABLED_METRICS, &[], f64::from(disabled));
        m.inc(names::HIDDEN_METRICS, &[], f64::from(hidden));
        m.set(names::REST_EXEC_TTL, &[], f64::INFINITY);
        (m, warnings)
    }

    /// `kubernetes_build_info` for this binary: version `vX.Y.Z` split into major and minor,
    /// compiler `rustc` (no Go version), and the `os/arch` platform.
    pub fn set_build_info(&self, version: &str, platform: &str) {
        let mut parts = version.split('.');
        let (major, minor) = (parts.next().unwrap_or_default(), parts.next().unwrap_or_default());
        let git_version = format!("v{version}");
        self.set(names::BUILD_INFO, &[major, minor, &git_version, "", "", "", "", "rustc", platform], 1.0);
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, Registry> {
        match self.inner.lock() {
            Ok(g) => g,
            Err(p) => p.into_inner(),
        }
    }

    fn with_family<R>(&self, name: &str, f: impl FnOnce(&mut Family) -> R) -> Option<R> {
        self.lock().families.get_mut(name).map(f)
    }

    /// Record through a family, mapping label values the allow-list refuses to `unexpected`.
    fn record(&self, name: &str, labels: &[&str], f: impl FnOnce(&mut Value, &[f64])) {
        self.lock().record(name, labels, f);
    }

    /// Several records under one lock: a bind or an API request records half a dozen samples,
    /// and taking the registry's lock for each was a hand-off between the API workers each time.
    pub fn batch<R>(&self, f: impl FnOnce(&mut Batch<'_>) -> R) -> R {
        f(&mut Batch { reg: &mut self.lock() })
    }

    /// Add to a counter.
    pub fn inc(&self, name: &str, labels: &[&str], by: f64) {
        self.lock().inc(name, labels, by);
    }

    /// Set a gauge.
    pub fn set(&self, name: &str, labels: &[&str], value: f64) {
        self.record(name, labels, |v, _| {
            if let Value::Scalar(g) = v {
                *g = value;
            }
        });
    }

    /// Replace every series of a gauge (label sets that come and go).
    pub fn replace_gauge(&self, name: &str, series: &[(Vec<String>, f64)]) {
        if let Some(fam) = self.lock().families.get_mut(name) {
            fam.series.clear();
            for (labels, value) in series {
                let refs: Vec<&str> = labels.iter().map(String::as_str).collect();
                if let Some(Value::Scalar(g)) = fam.series(&refs) {
                    *g = *value;
                }
            }
        }
    }

    /// Observe a histogram sample.
    pub fn observe(&self, name: &str, labels: &[&str], sample: f64) {
        self.observe_many(name, labels, &[sample]);
    }

    /// Observe several samples of one series: one lock and one series lookup for all of them
    /// (a sampled scheduling cycle times every plugin call on every node it filters).
    pub fn observe_many(&self, name: &str, labels: &[&str], samples: &[f64]) {
        self.lock().observe_many(name, labels, samples);
    }

    /// Whether a family is registered (not disabled or hidden).
    pub fn is_registered(&self, name: &str) -> bool {
        self.lock().families.contains_key(name)
    }

    /// Current value of a counter or gauge series (tests, status output).
    pub fn value(&self, name: &str, labels: &[&str]) -> f64 {
        match self.lock().families.get(name).and_then(|f| f.get(labels).cloned()) {
            Some(Value::Scalar(v)) => v,
            _ => 0.0,
        }
    }

    /// Number of observations of a histogram series.
    pub fn histogram_count(&self, name: &str, labels: &[&str]) -> u64 {
        match self.lock().families.get(name).and_then(|f| f.get(labels).cloned()) {
            Some(Value::Hist(h)) => h.count,
            _ => 0,
        }
    }

    /// Prometheus text exposition format 0.0.4, as client_golang writes it.
    pub fn render(&self) -> String {
        let reg = self.lock();
        let mut out = String::with_capacity(16 * 1024);
        for (name, fam) in &reg.families {
            if fam.series.is_empty() {
                continue;
            }
            let desc = fam.desc;
            out.push_str("# HELP ");
            out.push_str(name);
            out.push(' ');
            out.push_str(&expfmt::escape_help(&format!("{}{}", desc.stability.help_prefix(), desc.help)));
            out.push_str("\n# TYPE ");
            out.push_str(name);
            out.push(' ');
            out.push_str(desc.kind.as_str());
            out.push('\n');
            // Label pairs sorted by name; series sorted by those pairs.
            let mut order: Vec<usize> = (0..desc.labels.len()).collect();
            order.sort_by_key(|i| desc.labels[*i]);
            let mut series: Vec<&Series> = fam.series.values().flatten().collect();
            series.sort_by(|a, b| order.iter().map(|i| &a.labels[*i]).cmp(order.iter().map(|i| &b.labels[*i])));
            for s in series {
                let pairs: Vec<(&str, &str)> = order.iter().map(|i| (desc.labels[*i], &*s.labels[*i])).collect();
                match &s.value {
                    Value::Scalar(v) => {
                        writeln_sample(&mut out, name, "", &pairs, None, *v);
                    }
                    Value::Hist(h) => {
                        let mut cumulative = 0;
                        for (b, n) in fam.bounds.iter().zip(&h.counts) {
                            cumulative += n;
                            writeln_sample(&mut out, name, "_bucket", &pairs, Some(&expfmt::go_float(*b)), cumulative as f64);
                        }
                        writeln_sample(&mut out, name, "_bucket", &pairs, Some("+Inf"), h.count as f64);
                        writeln_sample(&mut out, name, "_sum", &pairs, None, h.sum);
                        writeln_sample(&mut out, name, "_count", &pairs, None, h.count as f64);
                    }
                }
            }
        }
        out
    }
}

fn writeln_sample(out: &mut String, name: &str, suffix: &str, pairs: &[(&str, &str)], le: Option<&str>, v: f64) {
    out.push_str(name);
    out.push_str(suffix);
    out.push_str(&expfmt::label_block(pairs, le));
    out.push(' ');
    out.push_str(&expfmt::go_float(v));
    out.push('\n');
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn renders_prometheus_text_as_client_golang() {
        let m = Metrics::new();
        m.inc(names::SCHEDULE_ATTEMPTS, &["scheduled", "my-scheduler"], 1.0);
        m.observe(names::ATTEMPT_DURATION, &["scheduled", "my-scheduler"], 0.0015);
        let text = m.render();
        assert!(text.contains("# HELP scheduler_schedule_attempts_total [STABLE] Number of attempts to schedule pods"));
        assert!(text.contains("# TYPE scheduler_schedule_attempts_total counter"));
        assert!(text.contains("scheduler_schedule_attempts_total{profile=\"my-scheduler\",result=\"scheduled\"} 1\n"));
        assert!(text.contains(
            "scheduler_scheduling_attempt_duration_seconds_bucket{profile=\"my-scheduler\",result=\"scheduled\",le=\"0.001\"} 0\n"
        ));
        assert!(text.contains(
            "scheduler_scheduling_attempt_duration_seconds_bucket{profile=\"my-scheduler\",result=\"scheduled\",le=\"0.002\"} 1\n"
        ));
        assert!(text
            .contains("scheduler_scheduling_attempt_duration_seconds_count{profile=\"my-scheduler\",result=\"scheduled\"} 1\n"));
        // Families without labels are there from the start; labelled ones only with a series.
        assert!(text.contains("scheduler_preemption_attempts_total 0\n"));
        assert!(text.contains("# HELP process_cpu_seconds_total Total user and system CPU time spent in seconds.\n"));
        assert!(!text.contains("scheduler_permit_wait_duration_seconds"));
        assert!(text.contains("rest_client_exec_plugin_ttl_seconds +Inf\n"));
        assert!(text.contains("registered_metrics_total{deprecated_version=\"\",stability_level=\"STABLE\"} 8\n"), "{text}");
        assert_eq!(m.value(names::SCHEDULE_ATTEMPTS, &["scheduled", "my-scheduler"]), 1.0);
        // Exponential buckets print as Go does.
        m.observe(names::PLUGIN_DURATION, &["NodeAffinity", "Filter", "Success"], 0.00002);
        assert!(m.render().contains("scheduler_plugin_execution_duration_seconds_bucket{extension_point=\"Filter\",plugin=\"NodeAffinity\",status=\"Success\",le=\"2.2500000000000005e-05\"} 1\n"));
    }

    #[test]
    fn a_batch_records_as_separate_calls_do() {
        let (one, batched) = (Metrics::new(), Metrics::new());
        one.inc(names::SCHEDULE_ATTEMPTS, &["scheduled", "p"], 1.0);
        one.observe(names::ATTEMPT_DURATION, &["scheduled", "p"], 0.003);
        one.inc(names::GOROUTINES, &["binding"], -1.0);
        batched.batch(|b| {
            b.inc(names::SCHEDULE_ATTEMPTS, &["scheduled", "p"], 1.0);
            b.observe(names::ATTEMPT_DURATION, &["scheduled", "p"], 0.003);
            b.inc(names::GOROUTINES, &["binding"], -1.0);
        });
        assert_eq!(one.render(), batched.render());
    }

    #[test]
    fn a_batch_maps_refused_label_values_to_unexpected() {
        let opts = MetricsOptions {
            allow_labels: options::allow_list(&[("scheduler_goroutines,operation".into(), "binding".into())]).expect("valid"),
            ..Default::default()
        };
        let (m, _) = Metrics::with_options(&opts);
        m.batch(|b| b.inc(names::GOROUTINES, &["surprise"], 1.0));
        let text = m.render();
        assert!(text.contains("scheduler_goroutines{operation=\"unexpected\"} 1\n"), "{text}");
        assert!(text.contains("cardinality_enforcement_unexpected_categorizations_total 1\n"));
    }

    #[test]
    fn families_and_series_are_sorted() {
        let m = Metrics::new();
        m.set(names::PENDING_PODS, &["unschedulable"], 2.0);
        m.set(names::PENDING_PODS, &["active"], 1.0);
        let text = m.render();
        let active = text.find("scheduler_pending_pods{queue=\"active\"} 1").expect("active");
        let unsched = text.find("scheduler_pending_pods{queue=\"unschedulable\"} 2").expect("unschedulable");
        assert!(active < unsched);
        let names: Vec<&str> = text.lines().filter_map(|l| l.strip_prefix("# TYPE ")).collect();
        let mut sorted = names.clone();
        sorted.sort_unstable();
        assert_eq!(names, sorted);
    }

    #[test]
    fn options_disable_and_restrict_labels() {
        let opts = MetricsOptions {
            disabled: vec![names::PREEMPTION_ATTEMPTS.into(), "no_such_metric".into()],
            allow_labels: options::allow_list(&[("scheduler_goroutines,operation".into(), "binding".into())]).expect("valid"),
            ..Default::default()
        };
        let (m, warnings) = Metrics::with_options(&opts);
        assert_eq!(warnings.len(), 1, "{warnings:?}");
        assert!(!m.is_registered(names::PREEMPTION_ATTEMPTS));
        m.inc(names::PREEMPTION_ATTEMPTS, &[], 1.0);
        m.set(names::GOROUTINES, &["binding"], 2.0);
        m.set(names::GOROUTINES, &["surprise"], 3.0);
        let text = m.render();
        assert!(!text.contains("scheduler_preemption_attempts_total"));
        assert!(text.contains("disabled_metrics_total 1\n"));
        assert!(text.contains("scheduler_goroutines{operation=\"binding\"} 2\n"));
        assert!(text.contains("scheduler_goroutines{operation=\"unexpected\"} 3\n"));
        assert!(text.contains("cardinality_enforcement_unexpected_categorizations_total 1\n"));
    }

    #[test]
    fn the_readme_metrics_table_is_the_catalog() {
        let readme = include_str!("../../../docs/metrics.md");
        let begin = "<!-- metrics-table:begin -->\n";
        let end = "<!-- metrics-table:end -->";
        let start = readme.find(begin).expect("docs/metrics.md has the metrics table markers") + begin.len();
        let stop = readme[start..].find(end).expect("end marker") + start;
        assert_eq!(
            &readme[start..stop],
            catalog::readme_table(),
            "regenerate the metrics table in docs/metrics.md from the catalog"
        );
    }

    #[test]
    fn every_declared_family_is_unique_and_well_formed() {
        let mut seen = BTreeSet::new();
        for d in catalog::CATALOG {
            assert!(seen.insert(d.name), "{} declared twice", d.name);
            assert_eq!(d.kind == Kind::Histogram, d.buckets != catalog::Buckets::None, "{}", d.name);
            assert!(!d.help.is_empty(), "{}", d.name);
        }
    }
}
