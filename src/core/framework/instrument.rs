//! What one scheduling cycle measures for `/metrics`, as upstream's framework runtime does
//! (`pkg/scheduler/framework/runtime/framework.go`): the duration of each extension point with
//! its status, every plugin call of a sampled cycle (`scheduler_plugin_execution_duration_seconds`,
//! upstream samples 10% of cycles) and the number of PreFilter/Filter/PreScore/Score calls per
//! plugin (`scheduler_plugin_evaluation_total`).
//!
//! A sampled cycle times each plugin call, as upstream does (`runFilterPlugin`, `runScorePlugin`,
//! … in that file, commit 002774c31572cc25cbf613f864feff62410ae687, read the clock before and
//! after each call, one observation per call and node); within a tight run of calls one reading
//! ends a call and starts the next ([`CycleRecorder::chain`]): the Filter walk and the Score loop,
//! where the clock reads were the sampled cycle's largest cost, read it nearly half as often.
//!
//! The cycle stays pure: the time comes from the [`Ticker`] the caller passes, the numbers are
//! collected here and flushed to the registry by the scheduler core once per cycle.

use super::status::Code;
use crate::core::metrics::{names, Metrics};
use std::cell::{Cell, RefCell};
use std::time::Instant;

/// Where the instrumentation reads the time (the shell passes the system clock; tests a fake).
pub trait Ticker {
    fn now(&self) -> Instant;
}

/// Upstream's extension-point label values.
pub mod point {
    pub const PRE_FILTER: &str = "PreFilter";
    pub const FILTER: &str = "Filter";
    pub const PRE_FILTER_ADD_POD: &str = "PreFilterExtensionAddPod";
    pub const PRE_FILTER_REMOVE_POD: &str = "PreFilterExtensionRemovePod";
    pub const POST_FILTER: &str = "PostFilter";
    pub const PRE_SCORE: &str = "PreScore";
    pub const SCORE: &str = "Score";
    pub const NORMALIZE: &str = "ScoreExtensionNormalize";
    pub const RESERVE: &str = "Reserve";
    pub const PERMIT: &str = "Permit";
    /// Status label of a Permit plugin that asked the pod to wait (`fwk.Wait`).
    pub const WAIT: &str = "Wait";
    /// `RunPreBindPreFlights` (v1.35, with `NominatedNodeNameForExpectation` on).
    pub const PRE_BIND_PRE_FLIGHT: &str = "PreBindPreFlight";
    pub const PRE_BIND: &str = "PreBind";
    pub const BIND: &str = "Bind";
}

/// `fwk.Code.String()` of a result.
pub fn status_label(code: Option<Code>) -> &'static str {
    match code {
        None => "Success",
        Some(Code::Unschedulable) => "Unschedulable",
        Some(Code::UnschedulableAndUnresolvable) => "UnschedulableAndUnresolvable",
        Some(Code::Error) => "Error",
    }
}

/// The label of a skipped plugin (PreFilter/PreScore returned Skip).
pub const SKIP: &str = "Skip";

/// Points whose calls `scheduler_plugin_evaluation_total` counts, in counter order.
const EVALUATED: [&str; 4] = [point::PRE_FILTER, point::FILTER, point::PRE_SCORE, point::SCORE];

/// The timed calls of one plugin at one point with one status.
struct PluginSamples {
    plugin: &'static str,
    point: &'static str,
    status: &'static str,
    secs: Vec<f64>,
}

/// The measurements of one cycle.
pub struct CycleRecorder<'a> {
    ticker: &'a dyn Ticker,
    /// Whether plugin calls are timed in this cycle.
    sample: bool,
    points: RefCell<Vec<(&'static str, &'static str, f64)>>,
    /// Durations of the sampled plugin calls, grouped by series: a sampled cycle times every
    /// Filter call on every node, thousands of samples for a few dozen series.
    plugins: RefCell<Vec<PluginSamples>>,
    /// plugin index → calls per [`EVALUATED`] point.
    evaluations: RefCell<Vec<[u64; 4]>>,
    names: RefCell<Vec<&'static str>>,
    /// plugin index → the series its last timed call went to (looked at first).
    recent: RefCell<Vec<usize>>,
    /// Inside a [`CycleRecorder::chain`]: the end of the last timed call, the start of the next.
    chained: Cell<bool>,
    last: Cell<Option<Instant>>,
}

impl<'a> CycleRecorder<'a> {
    pub fn new(ticker: &'a dyn Ticker, sample: bool) -> CycleRecorder<'a> {
        CycleRecorder {
            ticker,
            sample,
            points: RefCell::new(Vec::new()),
            plugins: RefCell::new(Vec::new()),
            evaluations: RefCell::new(Vec::new()),
            names: RefCell::new(Vec::new()),
            recent: RefCell::new(Vec::new()),
            chained: Cell::new(false),
            last: Cell::new(None),
        }
    }

    /// Start (`true`) or end a tight run of plugin calls (the Filter plugins on one node, one
    /// Score plugin on every node), timed with one clock reading between consecutive calls
    /// instead of two: the reading that ends a call starts the next. Between them runs only the
    /// recording of the call and the loop that picks the next one.
    pub fn chain(&self, on: bool) {
        self.chained.set(on && self.sample);
        self.last.set(None);
    }

    /// The current time, for timing a step.
    pub fn now(&self) -> Instant {
        self.ticker.now()
    }

    /// A whole extension point ran from `start` with this status.
    pub fn point(&self, point: &'static str, status: &'static str, start: Instant) {
        let secs = self.ticker.now().saturating_duration_since(start).as_secs_f64();
        self.points.borrow_mut().push((point, status, secs));
    }

    /// Run one plugin call: counted for the evaluated points, timed in sampled cycles.
    pub fn plugin<R>(
        &self,
        index: usize,
        plugin: &'static str,
        point: &'static str,
        call: impl FnOnce() -> R,
        status: impl FnOnce(&R) -> &'static str,
    ) -> R {
        self.count(index, plugin, point, 1);
        if !self.sample {
            return call();
        }
        let start = match self.last.take() {
            Some(t) => t,
            None => self.ticker.now(),
        };
        let r = call();
        self.record(index, plugin, point, status(&r), start);
        r
    }

    /// Record a timed call that started at `start` and ends now (one copy for every caller).
    #[inline(never)]
    fn record(&self, index: usize, plugin: &'static str, point: &'static str, status: &'static str, start: Instant) {
        let end = self.ticker.now();
        if self.chained.get() {
            self.last.set(Some(end));
        }
        let secs = end.saturating_duration_since(start).as_secs_f64();
        let mut plugins = self.plugins.borrow_mut();
        // Label values are constants: their addresses find the series without comparing text
        // (a sampled cycle gets here for every Filter call on every node), starting with the
        // series of the plugin's previous call; equal text at another address is the same series.
        let by_address =
            |s: &PluginSamples| std::ptr::eq(s.plugin, plugin) && std::ptr::eq(s.point, point) && std::ptr::eq(s.status, status);
        let mut recent = self.recent.borrow_mut();
        let hint = recent.get(index).copied().filter(|&k| plugins.get(k).is_some_and(by_address));
        let found = hint
            .or_else(|| plugins.iter().position(by_address))
            .or_else(|| plugins.iter().position(|s| s.plugin == plugin && s.point == point && s.status == status));
        let k = match found {
            Some(k) => k,
            None => {
                plugins.push(PluginSamples { plugin, point, status, secs: Vec::new() });
                plugins.len() - 1
            }
        };
        if let Some(series) = plugins.get_mut(k) {
            series.secs.push(secs);
        }
        if recent.len() <= index {
            recent.resize(index + 1, usize::MAX);
        }
        recent[index] = k;
    }

    /// Count `n` calls of a plugin at a point without timing them (`plugin` does both).
    pub fn count(&self, index: usize, plugin: &'static str, point: &'static str, n: usize) {
        // By address first: the points are constants (see `plugin`).
        let slot = match EVALUATED.iter().position(|p| std::ptr::eq(*p, point)) {
            Some(slot) => Some(slot),
            None => EVALUATED.iter().position(|p| *p == point),
        };
        if let Some(slot) = slot {
            let mut ev = self.evaluations.borrow_mut();
            let mut names = self.names.borrow_mut();
            if ev.len() <= index {
                ev.resize(index + 1, [0; 4]);
                names.resize(index + 1, "");
            }
            ev[index][slot] += n as u64;
            names[index] = plugin;
        }
    }

    /// Push everything measured into the registry, for `profile`, under one lock: a cycle
    /// records a dozen series, and the binder threads record into the same registry.
    pub fn flush(&self, metrics: &Metrics, profile: &str) {
        metrics.batch(|b| {
            for (point, status, secs) in self.points.borrow().iter() {
                b.observe(names::EXTENSION_POINT_DURATION, &[point, status, profile], *secs);
            }
            for s in self.plugins.borrow().iter() {
                b.observe_many(names::PLUGIN_DURATION, &[s.plugin, s.point, s.status], &s.secs);
            }
            let names = self.names.borrow();
            for (i, counts) in self.evaluations.borrow().iter().enumerate() {
                for (slot, n) in counts.iter().enumerate() {
                    if *n > 0 {
                        b.inc(names::PLUGIN_EVALUATIONS, &[names[i], EVALUATED[slot], profile], *n as f64);
                    }
                }
            }
        });
    }
}

/// The (plugin, extension point) pairs `scheduler_plugin_evaluation_total` counts for a
/// profile; upstream creates their series (at zero) when it builds the framework.
pub fn evaluated_plugins(fw: &super::Framework) -> Vec<(&'static str, &'static str)> {
    let name = |i: &usize| fw.plugins[*i].name();
    let mut out: Vec<(&'static str, &'static str)> = Vec::new();
    out.extend(fw.pre_filter.iter().map(|i| (name(i), point::PRE_FILTER)));
    out.extend(fw.filter.iter().map(|i| (name(i), point::FILTER)));
    out.extend(fw.pre_score.iter().map(|i| (name(i), point::PRE_SCORE)));
    out.extend(fw.score.iter().map(|(i, _)| (name(i), point::SCORE)));
    out
}

/// An optional recorder, so the cycle reads the same with and without one.
#[derive(Clone, Copy, Default)]
pub struct Rec<'a>(pub Option<&'a CycleRecorder<'a>>);

impl Rec<'_> {
    pub fn start(self) -> Option<Instant> {
        self.0.map(CycleRecorder::now)
    }

    pub fn point(self, point: &'static str, status: &'static str, start: Option<Instant>) {
        if let (Some(r), Some(s)) = (self.0, start) {
            r.point(point, status, s);
        }
    }

    /// Whether this cycle times every plugin call (then each must be a call of its own).
    pub fn times_plugins(self) -> bool {
        self.0.is_some_and(|r| r.sample)
    }

    /// See [`CycleRecorder::chain`].
    pub fn chain(self, on: bool) {
        if let Some(r) = self.0 {
            r.chain(on);
        }
    }

    /// Count `n` untimed calls (see [`CycleRecorder::count`]).
    pub fn count(self, index: usize, plugin: &'static str, point: &'static str, n: usize) {
        if let Some(r) = self.0 {
            r.count(index, plugin, point, n);
        }
    }

    pub fn plugin<R>(
        self,
        index: usize,
        plugin: &'static str,
        point: &'static str,
        call: impl FnOnce() -> R,
        status: impl FnOnce(&R) -> &'static str,
    ) -> R {
        match self.0 {
            Some(r) => r.plugin(index, plugin, point, call, status),
            None => call(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::cell::Cell;
    use std::time::Duration;

    struct Steps(Cell<Instant>);
    impl Ticker for Steps {
        fn now(&self) -> Instant {
            let t = self.0.get() + Duration::from_millis(1);
            self.0.set(t);
            t
        }
    }

    #[test]
    fn sampled_cycles_time_plugins_and_every_cycle_counts_calls() {
        let ticker = Steps(Cell::new(Instant::now()));
        let m = Metrics::new();
        let rec = CycleRecorder::new(&ticker, true);
        let start = rec.now();
        let r: Result<(), Code> =
            rec.plugin(0, "NodeName", point::FILTER, || Err(Code::Unschedulable), |r| status_label(r.err()));
        assert!(r.is_err());
        rec.plugin(0, "NodeName", point::FILTER, || (), |_| "Success");
        rec.point(point::PRE_FILTER, "Success", start);
        rec.flush(&m, "p");
        assert_eq!(m.value(names::PLUGIN_EVALUATIONS, &["NodeName", "Filter", "p"]), 2.0);
        assert_eq!(m.histogram_count(names::PLUGIN_DURATION, &["NodeName", "Filter", "Unschedulable"]), 1);
        assert_eq!(m.histogram_count(names::EXTENSION_POINT_DURATION, &["PreFilter", "Success", "p"]), 1);
        let unsampled = CycleRecorder::new(&ticker, false);
        unsampled.plugin(0, "NodeName", point::FILTER, || (), |_| "Success");
        unsampled.flush(&m, "p");
        assert_eq!(m.value(names::PLUGIN_EVALUATIONS, &["NodeName", "Filter", "p"]), 3.0);
        assert_eq!(m.histogram_count(names::PLUGIN_DURATION, &["NodeName", "Filter", "Success"]), 1);
    }

    /// A clock that counts its readings (each one a millisecond after the last).
    struct Counting(Steps, Cell<u32>);
    impl Ticker for Counting {
        fn now(&self) -> Instant {
            self.1.set(self.1.get() + 1);
            self.0.now()
        }
    }

    #[test]
    fn chained_calls_share_readings_and_each_is_still_one_sample() {
        let ticker = Counting(Steps(Cell::new(Instant::now())), Cell::new(0));
        let m = Metrics::new();
        let rec = CycleRecorder::new(&ticker, true);
        rec.chain(true);
        for plugin in ["NodeName", "TaintToleration", "NodeName"] {
            rec.plugin(0, plugin, point::FILTER, || (), |_| "Success");
        }
        rec.chain(false);
        // Three calls, four readings (not six); after the chain, a call reads the clock twice.
        assert_eq!(ticker.1.get(), 4);
        rec.plugin(1, "NodeName", point::SCORE, || (), |_| "Success");
        assert_eq!(ticker.1.get(), 6);
        rec.flush(&m, "p");
        assert_eq!(m.histogram_count(names::PLUGIN_DURATION, &["NodeName", "Filter", "Success"]), 2);
        assert_eq!(m.histogram_count(names::PLUGIN_DURATION, &["TaintToleration", "Filter", "Success"]), 1);
        assert_eq!(m.histogram_count(names::PLUGIN_DURATION, &["NodeName", "Score", "Success"]), 1);
        // Each sample is the one step between its readings.
        let sum = "scheduler_plugin_execution_duration_seconds_sum{extension_point=\"Filter\",plugin=\"NodeName\",status=\"Success\"} 0.002\n";
        assert!(m.render().contains(sum), "{}", m.render());
        // Unsampled cycles read no clock for plugin calls, chained or not.
        let unsampled = CycleRecorder::new(&ticker, false);
        unsampled.chain(true);
        unsampled.plugin(0, "NodeName", point::FILTER, || (), |_| "Success");
        assert_eq!(ticker.1.get(), 6);
    }
}
