//! The event recorder: kube-scheduler's event path on its own thread, with its own API client.
//!
//! Upstream (`cmd/kube-scheduler/app/options/options.go`, kubernetes/kubernetes at
//! 008b3652959ca58af8be3fb5b6ecfe9ae7638282, `createClients`) builds `eventClient` as a second
//! clientset from the same `clientConnection` configuration, so events get their own rate limiter
//! with the same qps and burst and never compete with bindings for one budget; the caller passes
//! such a client here. What is recorded goes through client-go's series de-duplication
//! ([`crate::core::events`]) and is written as `recordEvent` does
//! (`staging/src/k8s.io/client-go/tools/events/event_broadcaster.go`, at
//! 015189e7cb3606ff399b4a96f12d7d37c62753aa): a series patch that finds its event gone creates it
//! anew; a write that fails without an answer from the server is retried every ~10 s (jittered by
//! up to 25 %) up to 12 tries; an answer refusing the event is final ("will not retry!").
//!
//! The scheduler never blocks on it: once woken the recorder takes what is queued, then pauses
//! a few milliseconds so that under load a wake-up serves a batch, not one event. The queue
//! holds 1000 records (client-go's broadcaster queue, `maxQueuedEvents`); when it is full,
//! events are dropped and counted (`edgesched_events_dropped_total`). Writes go to
//! `events.k8s.io/v1`; if that API is not served, the recorder falls back to core/v1. On
//! graceful shutdown [`Recorder::flush`] writes what is still queued within a time budget, then
//! the recorder stops (upstream loses queued events at exit).

use crate::core::events::{EventRecord, EventSeries, EventWrite};
use crate::core::logging::Line;
use crate::core::metrics::{names as m, Metrics};
use crate::core::rng::Rng;
use crate::shell::daemon::permissions::{plain, Denials};
use crate::shell::kube::api_error::ApiError;
use crate::shell::kube::client::{Client, PatchType, Verb};
use std::collections::VecDeque;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::mpsc::{sync_channel, Receiver, RecvTimeoutError, SyncSender, TryRecvError, TrySendError};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant, SystemTime};

/// Capacity of the recorder queue (client-go's broadcaster keeps 1000).
const QUEUE: usize = 1000;
/// Tries per write (`maxTriesPerEvent`).
const MAX_TRIES: u32 = 12;
/// Pause between tries (`defaultSleepDuration`, jittered by up to 25 %).
const RETRY_SLEEP: Duration = Duration::from_secs(10);
/// How often idle series are finished and long ones refreshed.
const TICK: Duration = Duration::from_secs(30);
/// Pause after a batch of records, letting the next ones gather (an event is written at most
/// this much later).
const GATHER: Duration = Duration::from_millis(5);
/// Most records taken per wake-up.
const BATCH: usize = 64;
/// How long a graceful shutdown writes queued events when [`FLUSH_BUDGET_ENV`] does not say.
pub const DEFAULT_FLUSH_BUDGET: Duration = Duration::from_secs(5);
/// Environment variable overriding the shutdown flush budget, in seconds.
pub const FLUSH_BUDGET_ENV: &str = "EDGESCHED_EVENT_FLUSH_TIMEOUT";

enum Msg {
    /// Boxed: the channel allocates every slot up front, small slots keep it cheap when idle.
    Record(Box<EventRecord>),
    /// Look at the flush request now.
    Wake,
}

/// Write what is queued until `deadline`, then say how many were left.
struct FlushRequest {
    deadline: Instant,
    done: SyncSender<usize>,
}

/// Handle for recording events from any thread.
#[derive(Clone)]
pub struct Recorder {
    tx: Option<SyncSender<Msg>>,
    queued: Arc<AtomicUsize>,
    flush: Arc<Mutex<Option<FlushRequest>>>,
    metrics: Metrics,
}

impl Recorder {
    /// A recorder that discards everything (for tools that must not write).
    pub fn discard(metrics: Metrics) -> Recorder {
        Recorder { tx: None, queued: Arc::default(), flush: Arc::default(), metrics }
    }

    /// Queue an event; never blocks.
    pub fn record(&self, ev: EventRecord) {
        let Some(tx) = &self.tx else { return };
        self.queued.fetch_add(1, Ordering::SeqCst);
        match tx.try_send(Msg::Record(Box::new(ev))) {
            Ok(()) => {}
            Err(TrySendError::Full(Msg::Record(ev))) => {
                self.queued.fetch_sub(1, Ordering::SeqCst);
                self.metrics.inc(m::EVENTS_DROPPED, &[], 1.0);
                crate::core::logging::v(4, || {
                    Line::new("Event queue full, dropping event").s("reason", ev.reason).s("object", ev.regarding.name)
                });
            }
            Err(_) => {
                self.queued.fetch_sub(1, Ordering::SeqCst);
            }
        }
    }

    /// Events queued and not yet taken by the recorder.
    pub fn queued(&self) -> usize {
        self.queued.load(Ordering::SeqCst)
    }

    /// Graceful shutdown: write what is queued (and what waits for a retry) for at most `budget`,
    /// then stop recording. Returns how many events were left unwritten.
    pub fn flush(&self, budget: Duration) -> usize {
        let Some(tx) = &self.tx else { return 0 };
        let (done, result) = sync_channel(1);
        let deadline = Instant::now() + budget;
        *self.flush.lock().unwrap_or_else(|p| p.into_inner()) = Some(FlushRequest { deadline, done });
        // If the queue is full the recorder is busy and sees the request before its next wait.
        let _ = tx.try_send(Msg::Wake);
        // A write in flight is bounded by the deadline too; a little slack lets it report.
        result.recv_timeout(budget + Duration::from_millis(500)).unwrap_or_else(|_| self.queued())
    }
}

/// The API calls the recorder makes (the real one is [`ApiSink`]; tests script one).
pub trait EventSink {
    /// POST `body` (the event's JSON, [`EventWrite::event_json`]) to `path`.
    fn post(&mut self, path: &str, body: Vec<u8>) -> Result<(), ApiError>;
    /// Merge-patch `path` with `body` (JSON).
    fn patch(&mut self, path: &str, body: Vec<u8>) -> Result<(), ApiError>;
    /// POST several events (path, body), results in order; the API sink pipelines them on one
    /// connection.
    fn post_many(&mut self, items: Vec<(String, Vec<u8>)>) -> Vec<Result<(), ApiError>> {
        items.into_iter().map(|(path, body)| self.post(&path, body)).collect()
    }
    /// From now on, every call ends by `deadline` (the shutdown flush).
    fn until(&mut self, deadline: Instant);
}

/// [`EventSink`] over the event client.
pub struct ApiSink {
    client: Client,
    base: Client,
}

impl ApiSink {
    /// Write through `client` (the event client, with its own rate limiter).
    pub fn new(client: Client) -> ApiSink {
        ApiSink { base: client.clone(), client }
    }
}

impl EventSink for ApiSink {
    fn post(&mut self, path: &str, body: Vec<u8>) -> Result<(), ApiError> {
        self.client.send(Verb::Post, path, "application/json", body)
    }
    fn patch(&mut self, path: &str, body: Vec<u8>) -> Result<(), ApiError> {
        self.client.send(Verb::Patch, path, PatchType::Merge.content_type(), body)
    }
    fn post_many(&mut self, items: Vec<(String, Vec<u8>)>) -> Vec<Result<(), ApiError>> {
        self.client.send_pipelined(Verb::Post, "application/json", items)
    }
    fn until(&mut self, deadline: Instant) {
        self.client = self.base.until(deadline);
    }
}

/// Start the recorder thread writing through `client` (the event client).
pub fn spawn(client: Client, hostname: String, metrics: Metrics, denials: Arc<Denials>) -> std::io::Result<Recorder> {
    spawn_with(ApiSink::new(client), hostname, metrics, denials)
}

/// Start the recorder thread writing through `sink`.
pub fn spawn_with<S: EventSink + Send + 'static>(
    sink: S,
    hostname: String,
    metrics: Metrics,
    denials: Arc<Denials>,
) -> std::io::Result<Recorder> {
    let (tx, rx) = sync_channel::<Msg>(QUEUE);
    let recorder = Recorder { tx: Some(tx), queued: Arc::default(), flush: Arc::default(), metrics: metrics.clone() };
    let worker = Worker {
        sink,
        series: EventSeries::new(),
        hostname,
        core_v1: false,
        retries: VecDeque::new(),
        depth: 1,
        rng: Rng::from_os(),
        metrics,
        denials,
        queued: recorder.queued.clone(),
        flush: recorder.flush.clone(),
    };
    std::thread::Builder::new().name("event-recorder".into()).spawn(move || worker.run(&rx))?;
    Ok(recorder)
}

/// A write waiting for its next try.
struct Retry {
    due: Instant,
    write: EventWrite,
    tries: u32,
}

/// What became of one write.
enum Outcome {
    Done,
    /// No answer from the server (or an answer to retry): try again later.
    Retry(ApiError),
}

struct Worker<S> {
    sink: S,
    series: EventSeries,
    hostname: String,
    /// events.k8s.io/v1 is not served: write core/v1 events.
    core_v1: bool,
    retries: VecDeque<Retry>,
    /// How many new events one exchange may carry ([`Client::next_depth`]).
    depth: usize,
    rng: Rng,
    metrics: Metrics,
    denials: Arc<Denials>,
    queued: Arc<AtomicUsize>,
    flush: Arc<Mutex<Option<FlushRequest>>>,
}

impl<S: EventSink> Worker<S> {
    fn run(mut self, rx: &Receiver<Msg>) {
        let mut next_tick = Instant::now() + TICK;
        loop {
            let request = self.flush.lock().unwrap_or_else(|p| p.into_inner()).take();
            if let Some(request) = request {
                self.drain(rx, request);
                return;
            }
            let now = Instant::now();
            let next_retry = self.retries.iter().map(|r| r.due).min().unwrap_or(next_tick);
            let wait = next_tick.min(next_retry).saturating_duration_since(now);
            match rx.recv_timeout(wait) {
                Ok(Msg::Record(ev)) => {
                    self.queued.fetch_sub(1, Ordering::SeqCst);
                    let mut writes = Vec::new();
                    self.collect(&ev, &mut writes);
                    self.record_queued(rx, &mut writes);
                    self.write_batch(writes);
                    // While this thread sleeps, senders queue without waking it: under load a
                    // wake-up serves a batch of events instead of one each.
                    if !self.flush_requested() {
                        std::thread::sleep(GATHER);
                    }
                }
                Ok(Msg::Wake) | Err(RecvTimeoutError::Timeout) => {}
                Err(RecvTimeoutError::Disconnected) => return,
            }
            if self.flush_requested() {
                // Retries (and writes a batch left) are the flush's now, within its budget.
                continue;
            }
            let now = Instant::now();
            self.retry_due(now);
            if now >= next_tick {
                next_tick = now + TICK;
                for w in self.series.tick(now) {
                    self.attempt(w, 1);
                }
            }
        }
    }

    /// Whether a shutdown flush waits to be taken.
    fn flush_requested(&self) -> bool {
        self.flush.lock().unwrap_or_else(|p| p.into_inner()).is_some()
    }

    /// Record what else is queued now (at most [`BATCH`], so retries and ticks stay on time;
    /// none once a shutdown flush is asked for, which has its own budget).
    fn record_queued(&mut self, rx: &Receiver<Msg>, writes: &mut Vec<EventWrite>) {
        for _ in 1..BATCH {
            if self.flush_requested() {
                return;
            }
            let Ok(Msg::Record(ev)) = rx.try_recv() else { return };
            self.queued.fetch_sub(1, Ordering::SeqCst);
            self.collect(&ev, writes);
        }
    }

    /// Record one event now.
    #[cfg(test)]
    fn record(&mut self, ev: &EventRecord) {
        let mut writes = Vec::new();
        self.collect(ev, &mut writes);
        self.write_batch(writes);
    }

    /// Through the series de-duplication: what (if anything) to write for `ev`.
    fn collect(&mut self, ev: &EventRecord, writes: &mut Vec<EventWrite>) {
        if let Some(w) = self.series.record(ev, Instant::now(), SystemTime::now()) {
            writes.push(w);
        }
    }

    /// First tries of a batch of writes, in order: new events.k8s.io events go out together in
    /// pipelined exchanges ([`Client::next_depth`] many at a time: one on a slow server), the rest
    /// one by one. Once a shutdown flush is asked for, what is left goes to it (written within
    /// its budget or counted as dropped).
    fn write_batch(&mut self, writes: Vec<EventWrite>) {
        let mut writes = VecDeque::from(writes);
        while !writes.is_empty() {
            if self.flush_requested() {
                let now = Instant::now();
                self.retries.extend(writes.drain(..).map(|write| Retry { due: now, write, tries: 1 }));
                return;
            }
            let start = Instant::now();
            let together = writes.iter().take(self.depth).take_while(|w| !w.is_series() && !self.core_v1).count();
            if together < 2 {
                if let Some(write) = writes.pop_front() {
                    self.attempt(write, 1);
                }
            } else {
                let batch: Vec<EventWrite> = writes.drain(..together).collect();
                let items = batch.iter().map(|w| (events_path(w.namespace()), w.event_json(&self.hostname))).collect();
                let results = self.sink.post_many(items);
                for (write, result) in batch.into_iter().zip(results) {
                    let result = match self.created(&write, result) {
                        Some(done) => done,
                        None => self.create_core(&write),
                    };
                    let outcome = self.judge(&write, false, result);
                    self.settle(write, 1, outcome);
                }
            }
            self.depth = Client::next_depth(self.depth, start.elapsed(), BATCH);
        }
    }

    /// Try a write; schedule another try if it may still succeed.
    fn attempt(&mut self, write: EventWrite, tries: u32) {
        let outcome = self.perform(&write);
        self.settle(write, tries, outcome);
    }

    /// After a try: done, or another try later while tries are left.
    fn settle(&mut self, write: EventWrite, tries: u32, outcome: Outcome) {
        let Outcome::Retry(err) = outcome else { return };
        if tries >= MAX_TRIES {
            self.metrics.inc(m::EVENTS_DROPPED, &[], 1.0);
            Line::new("Unable to write event (retry limit exceeded!)").s("reason", write.reason()).s("err", err).error();
            return;
        }
        let delay = RETRY_SLEEP + RETRY_SLEEP.mul_f64(0.25 * self.rng.unit());
        crate::core::logging::v(4, || {
            Line::new("Unable to write event (may retry after sleeping)").s("reason", write.reason()).s("err", err)
        });
        self.retries.push_back(Retry { due: Instant::now() + delay, write, tries: tries + 1 });
    }

    fn retry_due(&mut self, now: Instant) {
        let (due, later): (Vec<Retry>, Vec<Retry>) = self.retries.drain(..).partition(|r| r.due <= now);
        self.retries = later.into();
        for r in due {
            self.attempt(r.write, r.tries);
        }
    }

    /// The shutdown flush: every queued record and pending retry gets one try until the deadline.
    fn drain(&mut self, rx: &Receiver<Msg>, request: FlushRequest) {
        self.sink.until(request.deadline);
        let mut pending: VecDeque<EventWrite> = self.retries.drain(..).map(|r| r.write).collect();
        let mut written = 0usize;
        while Instant::now() < request.deadline {
            let write = match pending.pop_front() {
                Some(w) => w,
                None => match rx.try_recv() {
                    Ok(Msg::Record(ev)) => {
                        self.queued.fetch_sub(1, Ordering::SeqCst);
                        match self.series.record(&ev, Instant::now(), SystemTime::now()) {
                            Some(w) => w,
                            None => continue,
                        }
                    }
                    Ok(Msg::Wake) => continue,
                    Err(TryRecvError::Empty | TryRecvError::Disconnected) => break,
                },
            };
            if matches!(self.perform(&write), Outcome::Done) {
                written += 1;
            }
        }
        let mut left = pending.len();
        while let Ok(msg) = rx.try_recv() {
            if matches!(msg, Msg::Record(_)) {
                self.queued.fetch_sub(1, Ordering::SeqCst);
                left += 1;
            }
        }
        if left > 0 {
            self.metrics.inc(m::EVENTS_DROPPED, &[], left as f64);
            Line::new("Event flush budget exhausted; dropping queued events").n("written", written).n("dropped", left).warning();
        } else {
            Line::new("Queued events written").n("count", written).info();
        }
        let _ = request.done.send(left);
    }

    fn perform(&mut self, write: &EventWrite) -> Outcome {
        let series = write.is_series();
        let result = match series {
            false => self.create(write),
            // recordEvent: a series patch that finds its event gone creates the event anew.
            true => match self.patch_series(write) {
                Err(e) if e.is_not_found() => self.create(write),
                other => other,
            },
        };
        self.judge(write, series, result)
    }

    /// What a write's result means: done, or worth another try.
    fn judge(&mut self, write: &EventWrite, series: bool, result: Result<(), ApiError>) -> Outcome {
        match result {
            Ok(()) => Outcome::Done,
            // No answer from the server: it may be back later.
            Err(e @ (ApiError::Transport { .. } | ApiError::Refused { .. } | ApiError::Decode { .. })) => Outcome::Retry(e),
            // The series' event was created meanwhile by another try: patch it next time.
            Err(e) if series && e.is_already_exists() => Outcome::Retry(e),
            Err(e) => {
                Line::new("Server rejected event (will not retry!)").s("reason", write.reason()).s("err", e).warning();
                Outcome::Done
            }
        }
    }

    fn create(&mut self, write: &EventWrite) -> Result<(), ApiError> {
        if !self.core_v1 {
            let result = self.sink.post(&events_path(write.namespace()), write.event_json(&self.hostname));
            if let Some(done) = self.created(write, result) {
                return done;
            }
        }
        self.create_core(write)
    }

    /// The answer to an events.k8s.io create, recorded against the permission; `None` when
    /// that API is not served (from now on core/v1 events are written instead).
    fn created(&mut self, write: &EventWrite, result: Result<(), ApiError>) -> Option<Result<(), ApiError>> {
        self.denials.outcome(|| plain("create", "events.k8s.io", "events"), write.reason(), &result);
        match result {
            Err(e) if e.code() == Some(404) => {
                if !self.core_v1 {
                    Line::new("events.k8s.io/v1 is not served; recording events through core/v1").warning();
                }
                self.core_v1 = true;
                None
            }
            other => Some(other),
        }
    }

    /// Create the event through core/v1.
    fn create_core(&mut self, write: &EventWrite) -> Result<(), ApiError> {
        let ns = write.namespace();
        let path = format!("/api/v1/namespaces/{ns}/events");
        let result = self.sink.post(&path, write.core_event_json(&self.hostname));
        self.denials.outcome(|| plain("create", "", "events"), write.reason(), &result);
        result
    }

    fn patch_series(&mut self, write: &EventWrite) -> Result<(), ApiError> {
        let (ns, name) = (write.namespace(), write.name());
        let path = match self.core_v1 {
            true => format!("/api/v1/namespaces/{ns}/events/{name}"),
            false => format!("/apis/events.k8s.io/v1/namespaces/{ns}/events/{name}"),
        };
        self.sink.patch(&path, write.series_patch_json(self.core_v1))
    }
}

/// Where events.k8s.io/v1 events of a namespace are created.
fn events_path(namespace: &str) -> String {
    format!("/apis/events.k8s.io/v1/namespaces/{namespace}/events")
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::core::api;
    use crate::core::events::{pod_reference, EventType};
    use serde_json::Value;

    type Calls = Arc<Mutex<Vec<(String, String, Value)>>>;

    /// Records calls; answers each with the next scripted result (Ok when the script is empty).
    struct FakeSink {
        calls: Calls,
        script: Arc<Mutex<VecDeque<Result<(), ApiError>>>>,
        /// Set by `until`.
        deadline: Arc<Mutex<Option<Instant>>>,
    }

    impl EventSink for FakeSink {
        fn post(&mut self, path: &str, body: Vec<u8>) -> Result<(), ApiError> {
            let body: Value = serde_json::from_slice(&body).unwrap();
            self.calls.lock().unwrap().push(("POST".into(), path.into(), body));
            self.script.lock().unwrap().pop_front().unwrap_or(Ok(()))
        }
        fn patch(&mut self, path: &str, body: Vec<u8>) -> Result<(), ApiError> {
            let body: Value = serde_json::from_slice(&body).unwrap();
            self.calls.lock().unwrap().push(("PATCH".into(), path.into(), body));
            self.script.lock().unwrap().pop_front().unwrap_or(Ok(()))
        }
        fn until(&mut self, deadline: Instant) {
            *self.deadline.lock().unwrap() = Some(deadline);
        }
    }

    struct Setup {
        calls: Calls,
        script: Arc<Mutex<VecDeque<Result<(), ApiError>>>>,
        deadline: Arc<Mutex<Option<Instant>>>,
        metrics: Metrics,
    }

    fn setup() -> Setup {
        Setup { calls: Arc::default(), script: Arc::default(), deadline: Arc::default(), metrics: Metrics::new() }
    }

    impl Setup {
        fn sink(&self) -> FakeSink {
            FakeSink { calls: self.calls.clone(), script: self.script.clone(), deadline: self.deadline.clone() }
        }
        /// A worker run by hand (no thread), for the retry and series paths.
        fn worker(&self) -> Worker<FakeSink> {
            Worker {
                sink: self.sink(),
                series: EventSeries::new(),
                hostname: "host".into(),
                core_v1: false,
                retries: VecDeque::new(),
                depth: 1,
                rng: Rng::seeded(1),
                metrics: self.metrics.clone(),
                denials: Arc::default(),
                queued: Arc::default(),
                flush: Arc::default(),
            }
        }
        fn calls(&self) -> Vec<(String, String)> {
            self.calls.lock().unwrap().iter().map(|(m, p, _)| (m.clone(), p.clone())).collect()
        }
    }

    fn scheduled(name: &str) -> EventRecord {
        EventRecord {
            regarding: pod_reference("default", name, &format!("uid-{name}"), "1"),
            related: None,
            type_: EventType::Normal,
            reason: "Scheduled".into(),
            action: "Binding".into(),
            note: format!("Successfully assigned default/{name} to n1"),
            reporting_controller: "edgesched".into(),
        }
    }

    fn status(code: u16, reason: &str) -> ApiError {
        ApiError::Status {
            request: "POST /x".into(),
            code,
            status: Box::new(api::Status { code, reason: reason.into(), ..Default::default() }),
            retry_after: None,
        }
    }

    fn reset() -> ApiError {
        ApiError::Transport { request: "POST /x".into(), message: "connection reset".into() }
    }

    #[test]
    fn failed_writes_without_an_answer_are_retried_answers_are_final() {
        let s = setup();
        let mut w = s.worker();
        s.script.lock().unwrap().extend([Err(reset()), Err(status(422, "Invalid"))]);
        w.record(&scheduled("a"));
        assert_eq!(w.retries.len(), 1, "no answer: retried later");
        let due = w.retries[0].due;
        let wait = due.saturating_duration_since(Instant::now());
        assert!(wait > RETRY_SLEEP - Duration::from_secs(1) && wait <= RETRY_SLEEP.mul_f64(1.25), "{wait:?}");
        w.retry_due(due);
        assert!(w.retries.is_empty(), "the server refused it: final");
        assert_eq!(s.calls().len(), 2);
    }

    #[test]
    fn retries_stop_after_twelve_tries() {
        let s = setup();
        let mut w = s.worker();
        s.script.lock().unwrap().extend((0..MAX_TRIES).map(|_| Err(reset())));
        w.record(&scheduled("a"));
        while let Some(due) = w.retries.front().map(|r| r.due) {
            w.retry_due(due);
        }
        assert_eq!(s.calls().len(), MAX_TRIES as usize);
        assert_eq!(s.metrics.value(m::EVENTS_DROPPED, &[]), 1.0);
    }

    #[test]
    fn a_series_patch_that_finds_no_event_creates_it_with_its_series() {
        let s = setup();
        let mut w = s.worker();
        w.record(&scheduled("a"));
        s.script.lock().unwrap().push_back(Err(status(404, "NotFound")));
        w.record(&scheduled("a"));
        let calls = s.calls.lock().unwrap().clone();
        let methods: Vec<&str> = calls.iter().map(|c| c.0.as_str()).collect();
        assert_eq!(methods, ["POST", "PATCH", "POST"]);
        assert_eq!(calls[1].2["series"]["count"], 2);
        assert_eq!(calls[2].2["series"]["count"], 2, "created with its series");
        assert_eq!(calls[0].2["metadata"]["name"], calls[2].2["metadata"]["name"]);
    }

    #[test]
    fn events_api_not_served_falls_back_to_core_v1() {
        let s = setup();
        let mut w = s.worker();
        s.script.lock().unwrap().push_back(Err(status(404, "NotFound")));
        w.record(&scheduled("a"));
        w.record(&scheduled("b"));
        let paths: Vec<String> = s.calls().into_iter().map(|c| c.1).collect();
        assert_eq!(
            paths,
            [
                "/apis/events.k8s.io/v1/namespaces/default/events",
                "/api/v1/namespaces/default/events",
                "/api/v1/namespaces/default/events"
            ]
        );
    }

    #[test]
    fn a_batch_is_created_together_and_only_refused_writes_fall_back_to_core_v1() {
        let s = setup();
        let mut w = s.worker();
        s.script.lock().unwrap().push_back(Err(status(404, "NotFound")));
        w.depth = 4;
        let mut writes = Vec::new();
        for name in ["a", "b", "c"] {
            w.collect(&scheduled(name), &mut writes);
        }
        w.write_batch(writes);
        w.record(&scheduled("d"));
        let calls = s.calls.lock().unwrap().clone();
        let seen: Vec<(&str, &str)> = calls
            .iter()
            .map(|c| {
                (c.1.as_str(), c.2["regarding"]["name"].as_str().unwrap_or(c.2["involvedObject"]["name"].as_str().unwrap_or("")))
            })
            .collect();
        assert_eq!(
            seen,
            [
                ("/apis/events.k8s.io/v1/namespaces/default/events", "a"),
                ("/apis/events.k8s.io/v1/namespaces/default/events", "b"),
                ("/apis/events.k8s.io/v1/namespaces/default/events", "c"),
                ("/api/v1/namespaces/default/events", "a"),
                ("/api/v1/namespaces/default/events", "d"),
            ]
        );
        assert!(w.retries.is_empty());
    }

    #[test]
    fn writes_left_in_a_batch_when_a_flush_is_asked_for_go_to_the_flush() {
        let s = setup();
        let mut w = s.worker();
        let (done, _result) = sync_channel(1);
        *w.flush.lock().unwrap() = Some(FlushRequest { deadline: Instant::now(), done });
        let mut writes = Vec::new();
        for name in ["a", "b"] {
            w.collect(&scheduled(name), &mut writes);
        }
        w.write_batch(writes);
        assert!(s.calls().is_empty(), "nothing written past the flush request");
        assert_eq!(w.retries.len(), 2, "handed to the flush");
    }

    #[test]
    fn flush_writes_everything_queued_when_the_budget_allows() {
        let s = setup();
        let recorder = spawn_with(s.sink(), "host".into(), s.metrics.clone(), Arc::default()).expect("thread");
        for i in 0..50 {
            recorder.record(scheduled(&format!("p{i}")));
        }
        assert_eq!(recorder.flush(Duration::from_secs(30)), 0);
        assert_eq!(s.calls().len(), 50);
        assert!(s.deadline.lock().unwrap().is_some(), "flush writes are bounded by the deadline");
        // The recorder has stopped: later events are not written.
        recorder.record(scheduled("late"));
        assert_eq!(s.calls().len(), 50);
    }

    #[test]
    fn flush_drops_and_counts_what_the_budget_does_not_allow() {
        let s = setup();
        let mut w = s.worker();
        let (tx, rx) = sync_channel(QUEUE);
        for i in 0..5 {
            tx.send(Msg::Record(Box::new(scheduled(&format!("p{i}"))))).expect("queued");
        }
        w.queued.store(5, Ordering::SeqCst);
        let (done, result) = sync_channel(1);
        w.drain(&rx, FlushRequest { deadline: Instant::now(), done });
        assert_eq!(result.recv().expect("report"), 5);
        assert!(s.calls().is_empty());
        assert_eq!(s.metrics.value(m::EVENTS_DROPPED, &[]), 5.0);
        assert_eq!(w.queued.load(Ordering::SeqCst), 0);
    }
}
