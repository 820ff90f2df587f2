//! The list+watch loop (client-go's reflector) as a named, blocking state machine.
//!
//! A scheduler's picture of the cluster is only as good as this loop: it must never miss an
//! event, never hammer a struggling API server, and always know when its picture must be rebuilt
//! from scratch. The shape follows kube-rs `kube-runtime/src/watcher.rs` (every transition is a
//! named state with its reason next to it); the behaviour follows client-go
//! `tools/cache/reflector.go`:
//!
//! ```text
//! Listing{None}     ─ListBegin, page─────────────> Listing{Some(continue)}  (more pages)
//! Listing{..}       ─last page, ListDone─────────> Watching{list rv}
//! Listing{Some(..)} ─410: continue expired───────> Listing{None}
//! Listing{..}       ─403 Forbidden───────────────> Denied, Backoff{forbidden_retry, then: Listing{None}}
//! Listing{..}       ─other error─────────────────> Backoff{then: Listing{None}}
//! Watching{rv}      ─event / bookmark────────────> (same stream, rv advances)
//! Watching{rv}      ─server ends the stream──────> Watching{last rv}
//! Watching{rv}      ─410 (HTTP or ERROR event)───> Listing{None} (via Backoff if it repeats)
//! Watching{rv}      ─403 Forbidden───────────────> Denied, Backoff{forbidden_retry, then: Listing{None}}
//! Watching{rv}      ─other error─────────────────> Backoff{then: Watching{last rv}}
//! Backoff{until, s} ─until reached───────────────> s
//! any               ─stop flag / sink says no────> Stopped
//! ```
//!
//! - A relist sends [`Change::ListBegin`], each page as it arrives ([`Change::ListPage`], so
//!   memory stays bounded for very large clusters), then [`Change::ListDone`]; the consumer swaps
//!   its state at `ListDone` (objects not seen since `ListBegin` are gone).
//! - Lists are paginated consistent reads (no `resourceVersion`); watches always start from the
//!   list's (or the last seen) resource version, never from `""`, which would skip every change
//!   made between the list and the watch.
//! - Watches ask for bookmarks and a random server-side timeout (5–10 minutes by default) so
//!   that many clients do not reconnect in lockstep.
//! - 410 Gone (as an HTTP status or as an `ERROR` event carrying a Status with code 410) means
//!   our resource version fell out of the server's window: relist. Detected by code only.
//! - 403 Forbidden (RBAC) is reported to the consumer ([`Sink::denied`]), which decides
//!   whether the kind is required (an error) or optional (a feature turns off). The retry waits
//!   `forbidden_retry` when set (rare retries for optional kinds, so a later grant heals without a
//!   restart), else the normal backoff; it always relists, since nothing was delivered meanwhile.
//! - Other failures back off (0.8 s doubling to 30 s, with jitter, reset after two healthy
//!   minutes), honouring `Retry-After`, then resume from where they left off.
//!
//! Stopping: the stop flag is checked between requests, between events and while backing off.
//! A watch blocked waiting for data notices it at the next event or bookmark, or when the idle
//! timeout ends the stream, so callers should not wait for watcher threads at shutdown.

use crate::core::api::{Object, ObjectList};
use crate::core::logging::Line;
use crate::core::rng::Rng;
use crate::core::watched::Change;
use crate::shell::clock::{self, Clock, SystemClock};
use crate::shell::kube::api_error::ApiError;
use crate::shell::kube::backoff::Backoff;
use crate::shell::kube::client::Client;
use crate::shell::kube::query::{ListParams, WatchParams};
use crate::shell::kube::watch_stream::{WatchEvent, WatchStream};
use serde::de::DeserializeOwned;
use std::fmt;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

/// A watch that ends this quickly without delivering anything is treated as a failure (client-go
/// "very short watch"), so a server that closes watches at once is not hammered.
const SHORT_WATCH: Duration = Duration::from_secs(1);
/// Upper bound for a server-requested `Retry-After` between list/watch attempts.
const MAX_RETRY_AFTER: Duration = Duration::from_secs(60);

/// What to list and watch, and how.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct WatchSpec {
    /// Short resource name for logs and the thread name, e.g. `"pods"`.
    pub name: &'static str,
    /// Collection path, e.g. `"/api/v1/pods"`.
    pub path: String,
    /// Server-side field filter, e.g. `status.phase!=Succeeded,status.phase!=Failed`.
    pub field_selector: Option<String>,
    /// Server-side label filter.
    pub label_selector: Option<String>,
    /// Objects per list page (client-go's pager uses 500).
    pub page_size: u32,
    /// Range for the random server-side watch timeout (client-go: 5–10 minutes).
    pub watch_timeout: (Duration, Duration),
    /// A watch that receives nothing for this long is considered dead and reopened.
    pub idle_timeout: Duration,
    /// How long to wait after a 403 before trying again; `None`: the normal backoff.
    pub forbidden_retry: Option<Duration>,
}

impl WatchSpec {
    /// A spec with client-go's defaults: pages of 500, watch timeouts of 5–10 minutes, and an
    /// idle timeout of 5 minutes (servers send a bookmark about every minute to watchers that
    /// ask for them, so five silent minutes mean a dead connection).
    pub fn new(name: &'static str, path: impl Into<String>) -> WatchSpec {
        WatchSpec {
            name,
            path: path.into(),
            field_selector: None,
            label_selector: None,
            page_size: 500,
            watch_timeout: (Duration::from_secs(300), Duration::from_secs(600)),
            idle_timeout: Duration::from_secs(300),
            forbidden_retry: None,
        }
    }
}

/// Where a watcher delivers what it observes: the changes, in the core's own terms (so a watch
/// event reaches the scheduler through one translation), and the denials, which only the
/// consumer can judge (required kinds are errors, optional ones turn a feature off).
pub trait Sink<T> {
    /// A change to mirror; `false` stops the reflector (the consumer is gone).
    fn change(&mut self, change: Change<T>) -> bool;
    /// The API server refused to `verb` (list or watch) the resource (403); it is retried later.
    /// `false` stops the reflector.
    fn denied(&mut self, verb: &'static str, message: &str) -> bool;
}

/// The two calls the state machine needs; the real one is [`ClientTransport`], tests script one.
pub trait ListWatchTransport<T> {
    /// The events of one open watch; ends when the server closes it.
    type Stream: Iterator<Item = Result<WatchEvent<T>, ApiError>>;
    /// Fetch one page of the collection.
    fn list(&mut self, params: &ListParams) -> Result<ObjectList<T>, ApiError>;
    /// Open a watch on the collection.
    fn watch(&mut self, params: &WatchParams) -> Result<Self::Stream, ApiError>;
}

/// [`ListWatchTransport`] over a real [`Client`] for one collection path.
#[derive(Debug, Clone)]
pub struct ClientTransport {
    /// The API client.
    pub client: Client,
    /// Collection path, e.g. `/api/v1/pods`.
    pub path: String,
}

impl<T: DeserializeOwned> ListWatchTransport<T> for ClientTransport {
    type Stream = WatchStream<T>;

    fn list(&mut self, params: &ListParams) -> Result<ObjectList<T>, ApiError> {
        self.client.list(&self.path, params)
    }

    fn watch(&mut self, params: &WatchParams) -> Result<WatchStream<T>, ApiError> {
        self.client.watch(&self.path, params)
    }
}

/// Where the watcher is. Each transition's reason is documented where it happens in
/// [`Reflector::step`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum State {
    /// Paging through a LIST. `None`: a fresh list (nothing sent yet for it); `Some`: the
    /// continue token of the next page.
    Listing { continue_token: Option<String> },
    /// Open (or reopen) a WATCH starting after `resource_version`.
    Watching { resource_version: String },
    /// Something failed: wait until `until`, then enter `then`.
    Backoff { until: Instant, then: Box<State> },
    /// The stop flag was raised or the consumer refused an update.
    Stopped,
}

impl State {
    fn fresh_list() -> State {
        State::Listing { continue_token: None }
    }
}

/// The list+watch state machine for one resource.
pub struct Reflector<Tr, C> {
    spec: WatchSpec,
    transport: Tr,
    clock: C,
    backoff: Backoff,
    rng: Rng,
    stop: Arc<AtomicBool>,
    /// Relists caused by 410 since the last watch event; a second one in a row backs off first.
    gone_relists_without_progress: u32,
}

impl<Tr, C: Clock> Reflector<Tr, C> {
    /// A reflector that has not started; `rng_seed` drives backoff jitter and watch timeouts.
    pub fn new(spec: WatchSpec, transport: Tr, clock: C, stop: Arc<AtomicBool>, rng_seed: u64) -> Reflector<Tr, C> {
        Reflector {
            spec,
            transport,
            clock,
            backoff: Backoff::reflector(),
            rng: Rng::seeded(rng_seed),
            stop,
            gone_relists_without_progress: 0,
        }
    }

    /// Run until stopped: the state machine's trampoline.
    pub fn run<T, S>(&mut self, mut sink: S)
    where
        T: Object,
        Tr: ListWatchTransport<T>,
        S: Sink<T>,
    {
        log::info!("{}", Line::new("Starting reflector").s("resource", self.spec.name).s("path", &self.spec.path));
        let mut state = State::fresh_list();
        while state != State::Stopped {
            state = self.step(state, &mut sink);
        }
        log::info!("{}", Line::new("Stopping reflector").s("resource", self.spec.name));
    }

    /// Perform one transition.
    pub fn step<T, S>(&mut self, state: State, sink: &mut S) -> State
    where
        T: Object,
        Tr: ListWatchTransport<T>,
        S: Sink<T>,
    {
        if self.stopped() {
            return State::Stopped;
        }
        match state {
            State::Listing { continue_token } => self.list_page(continue_token, sink),
            State::Watching { resource_version } => self.watch(resource_version, sink),
            State::Backoff { until, then } => self.wait_until(until, *then),
            State::Stopped => State::Stopped,
        }
    }

    fn stopped(&self) -> bool {
        self.stop.load(Ordering::Relaxed)
    }

    fn list_page<T, S>(&mut self, continue_token: Option<String>, sink: &mut S) -> State
    where
        Tr: ListWatchTransport<T>,
        S: Sink<T>,
    {
        let name = self.spec.name;
        if continue_token.is_none() {
            log::debug!("{}", Line::new("Listing and watching").s("resource", name));
            // A new list: the consumer starts collecting a fresh set.
            if !sink.change(Change::ListBegin) {
                return State::Stopped;
            }
        }
        let params = ListParams {
            label_selector: self.spec.label_selector.clone(),
            field_selector: self.spec.field_selector.clone(),
            limit: Some(self.spec.page_size).filter(|n| *n > 0),
            continue_token: continue_token.clone(),
            // Consistent read: paginated lists are served from etcd (or the consistent cache),
            // never from a possibly stale cache.
            resource_version: None,
        };
        let page = match self.transport.list(&params) {
            Ok(page) => page,
            // The continue token outlived etcd's compaction window: the snapshot we were paging
            // through is gone, so start the whole list again (client-go's pager falls back to a
            // full list in the same situation).
            Err(err) if err.is_gone() && continue_token.is_some() => {
                log::info!("{}", Line::new("List continuation expired - restarting list").s("resource", name).s("err", &err));
                return State::fresh_list();
            }
            Err(err) if err.is_forbidden() => return self.denied("list", &err, sink),
            // Any other failure: back off and list again from the first page.
            Err(err) => return self.back_off("Failed to list", &err, State::fresh_list()),
        };
        let ObjectList { metadata, items } = page;
        if !items.is_empty() && !sink.change(Change::ListPage(items)) {
            return State::Stopped;
        }
        if !metadata.continue_token.is_empty() {
            // More pages of the same snapshot.
            return State::Listing { continue_token: Some(metadata.continue_token) };
        }
        if metadata.resource_version.is_empty() {
            // Without a version there is nothing safe to watch from.
            let err = ApiError::Decode {
                request: format!("GET {}", self.spec.path),
                message: "list has no metadata.resourceVersion".to_string(),
            };
            return self.back_off("Failed to list", &err, State::fresh_list());
        }
        log::info!("{}", Line::new("Caches populated").s("resource", name).s("resourceVersion", &metadata.resource_version));
        if !sink.change(Change::ListDone) {
            return State::Stopped;
        }
        // Listed: watch from exactly the list's version so no change in between is missed.
        State::Watching { resource_version: metadata.resource_version }
    }

    fn watch<T, S>(&mut self, mut resource_version: String, sink: &mut S) -> State
    where
        T: Object,
        Tr: ListWatchTransport<T>,
        S: Sink<T>,
    {
        let name = self.spec.name;
        let params = WatchParams {
            label_selector: self.spec.label_selector.clone(),
            field_selector: self.spec.field_selector.clone(),
            resource_version: resource_version.clone(),
            timeout_seconds: Some(self.random_watch_timeout()),
            allow_watch_bookmarks: true,
            idle_timeout: Some(self.spec.idle_timeout),
        };
        let started = self.clock.now();
        let stream = match self.transport.watch(&params) {
            Ok(stream) => stream,
            Err(err) if err.is_gone() => return self.relist_after_gone(&err.to_string()),
            Err(err) if err.is_forbidden() => return self.denied("watch", &err, sink),
            // Connection refused, 429, 5xx...: the version is still good, retry the watch.
            Err(err) => return self.back_off("Failed to watch", &err, State::Watching { resource_version }),
        };
        let mut events = 0u64;
        for item in stream {
            if self.stopped() {
                return State::Stopped;
            }
            let update = match item {
                Ok(WatchEvent::Added(obj)) => Some(Change::Added(obj)),
                Ok(WatchEvent::Modified(obj)) => Some(Change::Modified(obj)),
                Ok(WatchEvent::Deleted(obj)) => Some(Change::Deleted(obj)),
                // Bookmarks only move our version forward, so a reconnect resumes later.
                Ok(WatchEvent::Bookmark { resource_version: rv }) => {
                    if !rv.is_empty() {
                        resource_version = rv;
                    }
                    None
                }
                // The server ended the watch because our version is too old: relist.
                Ok(WatchEvent::Error(status)) if status.code == 410 => {
                    return self.relist_after_gone(&format!("{} {}: {}", status.code, status.reason, status.message));
                }
                // Another server-side error: resume from the last version after a pause (or, for a
                // 403, report the denial and relist later).
                Ok(WatchEvent::Error(status)) => {
                    let err = ApiError::Status {
                        request: format!("WATCH {}", self.spec.path),
                        code: status.code,
                        status: Box::new(status),
                        retry_after: None,
                    };
                    if err.is_forbidden() {
                        return self.denied("watch", &err, sink);
                    }
                    return self.back_off("Watch failed", &err, State::Watching { resource_version });
                }
                // Broken connection, idle timeout or undecodable event: reconnect after a pause.
                Err(err) => return self.back_off("Watch failed", &err, State::Watching { resource_version }),
            };
            events += 1;
            self.gone_relists_without_progress = 0;
            if let Some(update) = update {
                if let Some(rv) = object_version(&update) {
                    resource_version = rv.to_string();
                }
                if !sink.change(update) {
                    return State::Stopped;
                }
            }
        }
        let lasted = self.clock.now().saturating_duration_since(started);
        if events == 0 && lasted < SHORT_WATCH {
            // Closed at once with nothing delivered: something is wrong server-side; do not spin.
            let err = ApiError::Transport {
                request: format!("WATCH {}", self.spec.path),
                message: "very short watch: closed within a second without any event".to_string(),
            };
            return self.back_off("Watch failed", &err, State::Watching { resource_version });
        }
        // The server ended the watch (its timeoutSeconds): reopen from the last version.
        log::debug!(
            "{}",
            Line::new("Watch close").s("resource", name).n("events", events).s("resourceVersion", &resource_version)
        );
        State::Watching { resource_version }
    }

    /// 410 Gone: our version is older than the server keeps. Relist at once the first time; if
    /// the watch right after a relist is gone again, back off so we do not relist in a loop.
    fn relist_after_gone(&mut self, reason: &str) -> State {
        log::info!("{}", Line::new("Watch close - relisting").s("resource", self.spec.name).s("reason", reason));
        self.gone_relists_without_progress += 1;
        if self.gone_relists_without_progress > 1 {
            let delay = self.backoff.next_delay(self.clock.now(), &mut self.rng);
            return State::Backoff { until: self.clock.now() + delay, then: Box::new(State::fresh_list()) };
        }
        State::fresh_list()
    }

    /// 403: tell the consumer (it logs with the context it has and decides what the denial
    /// means), then wait and list again from scratch.
    fn denied<T, S>(&mut self, verb: &'static str, err: &ApiError, sink: &mut S) -> State
    where
        S: Sink<T>,
    {
        if !sink.denied(verb, &err.server_message()) {
            return State::Stopped;
        }
        let now = self.clock.now();
        let delay = match self.spec.forbidden_retry {
            Some(d) => d,
            None => self.backoff.next_delay(now, &mut self.rng),
        };
        log::debug!(
            "{}",
            Line::new("Forbidden; retrying").s("resource", self.spec.name).s("verb", verb).s("retryIn", format!("{delay:?}"))
        );
        State::Backoff { until: now + delay, then: Box::new(State::fresh_list()) }
    }

    /// Failure: wait (the server's `Retry-After` if it gave one, else exponential backoff), then
    /// enter `then`.
    fn back_off(&mut self, what: &str, err: &ApiError, then: State) -> State {
        let now = self.clock.now();
        let backoff = self.backoff.next_delay(now, &mut self.rng);
        let delay = err.retry_after().map(|d| d.min(MAX_RETRY_AFTER)).unwrap_or(backoff);
        log::warn!("{}", Line::new(what).s("resource", self.spec.name).s("err", err).s("retryIn", format!("{delay:?}")));
        State::Backoff { until: now + delay, then: Box::new(then) }
    }

    /// Sleep until `until` in short slices so a stop request is honoured promptly.
    fn wait_until(&mut self, until: Instant, then: State) -> State {
        if clock::sleep_until(&self.clock, &self.stop, until) {
            then
        } else {
            State::Stopped
        }
    }

    /// A whole number of seconds spread uniformly over the spec's timeout range.
    fn random_watch_timeout(&mut self) -> u32 {
        let (a, b) = self.spec.watch_timeout;
        let (lo, hi) = (a.min(b).as_secs(), a.max(b).as_secs());
        let secs = lo + self.rng.below(hi - lo + 1);
        u32::try_from(secs.max(1)).unwrap_or(u32::MAX)
    }
}

fn object_version<T: Object>(update: &Change<T>) -> Option<&str> {
    match update {
        Change::Added(obj) | Change::Modified(obj) | Change::Deleted(obj) => {
            Some(obj.resource_version()).filter(|rv| !rv.is_empty())
        }
        _ => None,
    }
}

impl<Tr, C> fmt::Debug for Reflector<Tr, C> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Reflector").field("spec", &self.spec).finish_non_exhaustive()
    }
}

/// List and watch `spec` with `client` on the current thread until `stop` is raised or `sink`
/// returns `false`.
pub fn run_watcher<T>(client: Client, spec: WatchSpec, stop: Arc<AtomicBool>, rng_seed: u64, sink: impl Sink<T>)
where
    T: DeserializeOwned + Object + Send + 'static,
{
    let transport = ClientTransport { client, path: spec.path.clone() };
    Reflector::new(spec, transport, SystemClock, stop, rng_seed).run(sink);
}

/// [`run_watcher`] on its own thread, named `watch-<name>`.
pub fn spawn_watcher<T, S>(
    client: Client,
    spec: WatchSpec,
    stop: Arc<AtomicBool>,
    rng_seed: u64,
    sink: S,
) -> std::io::Result<JoinHandle<()>>
where
    T: DeserializeOwned + Object + Send + 'static,
    S: Sink<T> + Send + 'static,
{
    std::thread::Builder::new()
        .name(format!("watch-{}", spec.name))
        .spawn(move || run_watcher(client, spec, stop, rng_seed, sink))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::core::api;
    use crate::shell::clock::fake::FakeClock;
    use std::cell::RefCell;
    use std::collections::VecDeque;
    use std::rc::Rc;

    /// A test object: name and resource version.
    #[derive(Debug, Clone, PartialEq)]
    struct Obj(&'static str, &'static str);

    impl Object for Obj {
        fn name(&self) -> &str {
            self.0
        }
        fn namespace(&self) -> &str {
            ""
        }
        fn resource_version(&self) -> &str {
            self.1
        }
    }

    /// What a sink saw, flattened for comparisons.
    #[derive(Debug, Clone, PartialEq)]
    enum Update<T> {
        ListBegin,
        ListPage(Vec<T>),
        ListDone,
        Added(T),
        Modified(T),
        Deleted(T),
        Denied { verb: &'static str, message: String },
    }

    /// A sink that hands what it sees to a closure.
    struct Recorder<F>(F);

    impl<T, F: FnMut(Update<T>) -> bool> Sink<T> for Recorder<F> {
        fn change(&mut self, change: Change<T>) -> bool {
            (self.0)(match change {
                Change::ListBegin => Update::ListBegin,
                Change::ListPage(v) => Update::ListPage(v),
                Change::ListDone => Update::ListDone,
                Change::Added(o) => Update::Added(o),
                Change::Modified(o) => Update::Modified(o),
                Change::Deleted(o) => Update::Deleted(o),
                Change::Unavailable => unreachable!("the reflector never reports Unavailable"),
            })
        }
        fn denied(&mut self, verb: &'static str, message: &str) -> bool {
            (self.0)(Update::Denied { verb, message: message.to_string() })
        }
    }

    enum Step {
        List(Result<ObjectList<Obj>, ApiError>),
        /// Watch outcome, and how long the stream stays open.
        Watch(Result<Vec<Result<WatchEvent<Obj>, ApiError>>, ApiError>, Duration),
    }

    /// Replays a script; when it runs out it raises the stop flag.
    struct FakeTransport {
        script: VecDeque<Step>,
        clock: FakeClock,
        stop: Arc<AtomicBool>,
        lists: Rc<RefCell<Vec<ListParams>>>,
        watches: Rc<RefCell<Vec<WatchParams>>>,
    }

    fn exhausted() -> ApiError {
        ApiError::Transport { request: String::new(), message: "script exhausted".into() }
    }

    impl ListWatchTransport<Obj> for FakeTransport {
        type Stream = std::vec::IntoIter<Result<WatchEvent<Obj>, ApiError>>;

        fn list(&mut self, params: &ListParams) -> Result<ObjectList<Obj>, ApiError> {
            self.lists.borrow_mut().push(params.clone());
            match self.script.pop_front() {
                Some(Step::List(r)) => r,
                Some(Step::Watch(..)) => panic!("expected a list, script wants a watch: {params:?}"),
                None => {
                    self.stop.store(true, Ordering::Relaxed);
                    Err(exhausted())
                }
            }
        }

        fn watch(&mut self, params: &WatchParams) -> Result<Self::Stream, ApiError> {
            self.watches.borrow_mut().push(params.clone());
            match self.script.pop_front() {
                Some(Step::Watch(r, lasts)) => {
                    self.clock.advance(lasts);
                    r.map(Vec::into_iter)
                }
                Some(Step::List(_)) => panic!("expected a watch, script wants a list: {params:?}"),
                None => {
                    self.stop.store(true, Ordering::Relaxed);
                    Err(exhausted())
                }
            }
        }
    }

    struct Harness {
        reflector: Reflector<FakeTransport, FakeClock>,
        clock: FakeClock,
        lists: Rc<RefCell<Vec<ListParams>>>,
        watches: Rc<RefCell<Vec<WatchParams>>>,
        stop: Arc<AtomicBool>,
    }

    fn spec() -> WatchSpec {
        WatchSpec {
            field_selector: Some("status.phase!=Succeeded".into()),
            page_size: 2,
            ..WatchSpec::new("pods", "/api/v1/pods")
        }
    }

    fn harness(script: Vec<Step>) -> Harness {
        let clock = FakeClock::new();
        let stop = Arc::new(AtomicBool::new(false));
        let lists = Rc::new(RefCell::new(Vec::new()));
        let watches = Rc::new(RefCell::new(Vec::new()));
        let transport = FakeTransport {
            script: script.into(),
            clock: clock.clone(),
            stop: stop.clone(),
            lists: lists.clone(),
            watches: watches.clone(),
        };
        let reflector = Reflector::new(spec(), transport, clock.clone(), stop.clone(), 42);
        Harness { reflector, clock, lists, watches, stop }
    }

    impl Harness {
        fn run(&mut self) -> Vec<Update<Obj>> {
            let mut out = Vec::new();
            self.reflector.run(Recorder(|u| {
                out.push(u);
                true
            }));
            out
        }
        fn watch_versions(&self) -> Vec<String> {
            self.watches.borrow().iter().map(|w| w.resource_version.clone()).collect()
        }
        fn list_tokens(&self) -> Vec<Option<String>> {
            self.lists.borrow().iter().map(|l| l.continue_token.clone()).collect()
        }
    }

    fn page(items: Vec<Obj>, rv: &str, cont: &str) -> Step {
        Step::List(Ok(ObjectList {
            metadata: api::ListMeta { resource_version: rv.into(), continue_token: cont.into(), remaining_item_count: None },
            items,
        }))
    }

    fn watch_ok(events: Vec<WatchEvent<Obj>>) -> Step {
        Step::Watch(Ok(events.into_iter().map(Ok).collect()), Duration::from_secs(300))
    }

    fn status(code: u16, reason: &str) -> api::Status {
        api::Status { status: "Failure".into(), message: "m".into(), reason: reason.into(), details: None, code }
    }

    fn api_status_err(code: u16, retry_after: Option<u64>) -> ApiError {
        ApiError::Status {
            request: "GET /api/v1/pods".into(),
            code,
            status: Box::new(status(code, "x")),
            retry_after: retry_after.map(Duration::from_secs),
        }
    }

    fn transport_err() -> ApiError {
        ApiError::Transport { request: "GET /api/v1/pods".into(), message: "connection refused".into() }
    }

    #[test]
    fn paginates_then_watches_from_the_list_version() {
        let mut h = harness(vec![
            page(vec![Obj("a", "1"), Obj("b", "2")], "10", "tok1"),
            page(vec![Obj("c", "3")], "10", ""),
            watch_ok(vec![WatchEvent::Added(Obj("d", "11"))]),
        ]);
        let updates = h.run();
        assert_eq!(
            updates,
            vec![
                Update::ListBegin,
                Update::ListPage(vec![Obj("a", "1"), Obj("b", "2")]),
                Update::ListPage(vec![Obj("c", "3")]),
                Update::ListDone,
                Update::Added(Obj("d", "11")),
            ]
        );
        assert_eq!(h.list_tokens(), vec![None, Some("tok1".to_string())]);
        let lists = h.lists.borrow();
        assert_eq!(lists[0].limit, Some(2));
        assert_eq!(lists[0].resource_version, None, "lists are consistent reads");
        assert_eq!(lists[0].field_selector.as_deref(), Some("status.phase!=Succeeded"));
        let watches = h.watches.borrow();
        assert_eq!(watches[0].resource_version, "10", "watch starts at the list's version, never \"\"");
        assert!(watches[0].allow_watch_bookmarks);
        assert_eq!(watches[0].field_selector.as_deref(), Some("status.phase!=Succeeded"));
        let t = watches[0].timeout_seconds.unwrap();
        assert!((300..=600).contains(&t), "{t}");
        assert_eq!(watches[0].idle_timeout, Some(Duration::from_secs(300)));
    }

    #[test]
    fn resumes_from_last_seen_version_after_clean_stream_end() {
        let mut h = harness(vec![
            page(vec![], "10", ""),
            watch_ok(vec![WatchEvent::Added(Obj("a", "11")), WatchEvent::Modified(Obj("a", "12"))]),
            watch_ok(vec![WatchEvent::Deleted(Obj("a", "13"))]),
        ]);
        let updates = h.run();
        assert_eq!(
            updates,
            vec![
                Update::ListBegin,
                Update::ListDone,
                Update::Added(Obj("a", "11")),
                Update::Modified(Obj("a", "12")),
                Update::Deleted(Obj("a", "13")),
            ]
        );
        assert_eq!(h.watch_versions(), vec!["10", "12", "13"]);
        assert_eq!(h.lists.borrow().len(), 1, "no relist after a clean end");
        assert_eq!(h.clock.slept(), Duration::ZERO, "no backoff after a clean end");
    }

    #[test]
    fn bookmarks_advance_the_version_without_updates() {
        let mut h = harness(vec![
            page(vec![], "10", ""),
            watch_ok(vec![WatchEvent::Bookmark { resource_version: "50".into() }]),
            watch_ok(vec![WatchEvent::Bookmark { resource_version: String::new() }]),
        ]);
        let updates = h.run();
        assert_eq!(updates, vec![Update::ListBegin, Update::ListDone]);
        assert_eq!(h.watch_versions(), vec!["10", "50", "50"]);
    }

    #[test]
    fn gone_as_http_status_relists_immediately() {
        let mut h = harness(vec![
            page(vec![Obj("a", "1")], "10", ""),
            watch_ok(vec![WatchEvent::Added(Obj("b", "11"))]),
            Step::Watch(Err(api_status_err(410, None)), Duration::ZERO),
            page(vec![Obj("b", "11")], "20", ""),
        ]);
        let updates = h.run();
        assert_eq!(
            updates,
            vec![
                Update::ListBegin,
                Update::ListPage(vec![Obj("a", "1")]),
                Update::ListDone,
                Update::Added(Obj("b", "11")),
                Update::ListBegin,
                Update::ListPage(vec![Obj("b", "11")]),
                Update::ListDone,
            ]
        );
        assert_eq!(h.watch_versions(), vec!["10", "11", "20"]);
        assert_eq!(h.clock.slept(), Duration::ZERO);
    }

    #[test]
    fn gone_as_error_event_relists_and_repeated_gone_backs_off() {
        let mut h = harness(vec![
            page(vec![], "10", ""),
            watch_ok(vec![WatchEvent::Error(status(410, "Expired"))]),
            page(vec![], "20", ""),
            // Gone again before any event: the second relist waits first.
            watch_ok(vec![WatchEvent::Error(status(410, "Expired"))]),
            page(vec![], "30", ""),
        ]);
        let updates = h.run();
        assert_eq!(
            updates,
            vec![Update::ListBegin, Update::ListDone, Update::ListBegin, Update::ListDone, Update::ListBegin, Update::ListDone]
        );
        let slept = h.clock.slept();
        assert!(slept >= Duration::from_millis(800) && slept < Duration::from_millis(1600), "{slept:?}");
    }

    #[test]
    fn other_error_events_resume_from_the_last_version_after_backoff() {
        let mut h = harness(vec![
            page(vec![], "10", ""),
            watch_ok(vec![WatchEvent::Added(Obj("a", "11")), WatchEvent::Error(status(500, "InternalError"))]),
        ]);
        h.run();
        assert_eq!(h.watch_versions(), vec!["10", "11"]);
        assert_eq!(h.lists.borrow().len(), 1);
        assert!(h.clock.slept() >= Duration::from_millis(800));
    }

    #[test]
    fn expired_continue_token_restarts_the_list_from_scratch() {
        let mut h = harness(vec![
            page(vec![Obj("a", "1"), Obj("b", "2")], "10", "tok1"),
            Step::List(Err(api_status_err(410, None))),
            page(vec![Obj("a", "1"), Obj("b", "2")], "12", "tok2"),
            page(vec![Obj("c", "3")], "12", ""),
        ]);
        let updates = h.run();
        assert_eq!(
            updates,
            vec![
                Update::ListBegin,
                Update::ListPage(vec![Obj("a", "1"), Obj("b", "2")]),
                Update::ListBegin,
                Update::ListPage(vec![Obj("a", "1"), Obj("b", "2")]),
                Update::ListPage(vec![Obj("c", "3")]),
                Update::ListDone,
            ]
        );
        assert_eq!(h.list_tokens(), vec![None, Some("tok1".into()), None, Some("tok2".into())]);
        assert_eq!(h.clock.slept(), Duration::ZERO);
    }

    #[test]
    fn list_errors_back_off_with_growing_delays_then_relist_from_scratch() {
        let mut h = harness(vec![
            Step::List(Err(transport_err())),
            Step::List(Err(transport_err())),
            Step::List(Err(transport_err())),
            page(vec![], "10", ""),
        ]);
        let mut delays = Vec::new();
        let mut state = State::fresh_list();
        let mut sink = Recorder(|_u: Update<Obj>| true);
        while state != State::Stopped {
            if let State::Backoff { until, .. } = &state {
                delays.push(until.saturating_duration_since(h.clock.now()));
            }
            state = h.reflector.step(state, &mut sink);
        }
        // Three list failures, then the final backoff when the script runs out.
        assert_eq!(delays.len(), 4);
        let bases = [800u64, 1600, 3200];
        for (d, base) in delays.iter().zip(bases) {
            assert!(*d >= Duration::from_millis(base) && *d < Duration::from_millis(2 * base), "{d:?} vs {base}");
        }
        assert_eq!(h.list_tokens(), vec![None, None, None, None]);
    }

    fn forbidden() -> ApiError {
        ApiError::Status {
            request: "GET /api/v1/pods".into(),
            code: 403,
            status: Box::new(api::Status {
                status: "Failure".into(),
                message: "pods is forbidden: User \"u\" cannot list resource \"pods\" in API group \"\" at the cluster scope"
                    .into(),
                reason: "Forbidden".into(),
                details: None,
                code: 403,
            }),
            retry_after: None,
        }
    }

    #[test]
    fn forbidden_list_is_reported_then_retried_after_the_forbidden_delay() {
        let mut h = harness(vec![Step::List(Err(forbidden())), page(vec![Obj("a", "1")], "10", "")]);
        h.reflector.spec.forbidden_retry = Some(Duration::from_secs(300));
        let updates = h.run();
        assert_eq!(
            updates[..4],
            [
                Update::ListBegin,
                Update::Denied {
                    verb: "list",
                    message: "pods is forbidden: User \"u\" cannot list resource \"pods\" in API group \"\" at the cluster scope"
                        .into()
                },
                Update::ListBegin,
                Update::ListPage(vec![Obj("a", "1")]),
            ]
        );
        assert_eq!(updates[4], Update::ListDone);
        // Waited exactly the forbidden delay (no jitter) before the second list.
        assert!(h.clock.slept() >= Duration::from_secs(300));
        assert_eq!(h.list_tokens()[..2], [None, None]);
    }

    #[test]
    fn forbidden_watch_or_error_event_relists_after_a_backoff() {
        let forbidden_event =
            WatchEvent::Error(api::Status { code: 403, reason: "Forbidden".into(), ..status(403, "Forbidden") });
        let mut h = harness(vec![
            page(vec![], "10", ""),
            Step::Watch(Err(forbidden()), Duration::ZERO),
            page(vec![], "20", ""),
            watch_ok(vec![forbidden_event]),
            page(vec![], "30", ""),
        ]);
        let updates = h.run();
        let denied: Vec<&Update<Obj>> = updates.iter().filter(|u| matches!(u, Update::Denied { verb: "watch", .. })).collect();
        assert_eq!(denied.len(), 2, "{updates:?}");
        // Each denial is followed by a fresh list, not a re-watch from the old version.
        assert_eq!(h.list_tokens(), vec![None, None, None]);
        assert_eq!(h.watch_versions()[..2], ["10".to_string(), "20".to_string()]);
        // Without a forbidden delay the normal backoff applies (at least 0.8 s per denial).
        assert!(h.clock.slept() >= Duration::from_millis(1600));
    }

    #[test]
    fn backoff_resets_after_two_healthy_minutes() {
        let mut h = harness(vec![
            page(vec![], "10", ""),
            Step::Watch(Err(transport_err()), Duration::ZERO),
            Step::Watch(Err(transport_err()), Duration::ZERO),
            // A long healthy watch...
            Step::Watch(Ok(vec![Ok(WatchEvent::Added(Obj("a", "11")))]), Duration::from_secs(180)),
            // ...then a failure starts the sequence again at 800 ms.
            Step::Watch(Err(transport_err()), Duration::ZERO),
        ]);
        let mut delays = Vec::new();
        let mut state = State::fresh_list();
        let mut sink = Recorder(|_u: Update<Obj>| true);
        while state != State::Stopped {
            if let State::Backoff { until, .. } = &state {
                delays.push(until.saturating_duration_since(h.clock.now()));
            }
            state = h.reflector.step(state, &mut sink);
        }
        assert!(delays.len() >= 3, "{delays:?}");
        assert!(delays[1] >= Duration::from_millis(1600), "second failure grows: {delays:?}");
        assert!(delays[2] < Duration::from_millis(1600), "reset after healthy minutes: {delays:?}");
        assert_eq!(h.watch_versions()[..4], ["10", "10", "10", "11"]);
    }

    #[test]
    fn retry_after_is_honoured() {
        let mut h = harness(vec![page(vec![], "10", ""), Step::Watch(Err(api_status_err(429, Some(7))), Duration::ZERO)]);
        let mut state = State::fresh_list();
        let mut sink = Recorder(|_u: Update<Obj>| true);
        state = h.reflector.step(state, &mut sink);
        assert_eq!(state, State::Watching { resource_version: "10".into() });
        state = h.reflector.step(state, &mut sink);
        match state {
            State::Backoff { until, then } => {
                assert_eq!(until - h.clock.now(), Duration::from_secs(7));
                assert_eq!(*then, State::Watching { resource_version: "10".into() });
            }
            other => panic!("unexpected {other:?}"),
        }
    }

    #[test]
    fn very_short_empty_watch_backs_off_instead_of_spinning() {
        let mut h = harness(vec![page(vec![], "10", ""), Step::Watch(Ok(vec![]), Duration::ZERO), watch_ok(vec![])]);
        h.run();
        assert_eq!(h.watch_versions(), vec!["10", "10", "10"]);
        assert!(h.clock.slept() >= Duration::from_millis(800));
    }

    #[test]
    fn stream_errors_resume_from_the_last_seen_version() {
        let mut h = harness(vec![
            page(vec![], "10", ""),
            Step::Watch(Ok(vec![Ok(WatchEvent::Modified(Obj("a", "15"))), Err(transport_err())]), Duration::from_secs(5)),
        ]);
        h.run();
        assert_eq!(h.watch_versions(), vec!["10", "15"]);
    }

    #[test]
    fn stop_flag_ends_the_loop_even_while_backing_off() {
        let mut h = harness(vec![Step::List(Err(transport_err()))]);
        let mut sink = Recorder(|_u: Update<Obj>| true);
        let state = h.reflector.step(State::fresh_list(), &mut sink);
        assert!(matches!(state, State::Backoff { .. }));
        h.stop.store(true, Ordering::Relaxed);
        assert_eq!(h.reflector.step(state, &mut sink), State::Stopped);
        assert_eq!(h.clock.slept(), Duration::ZERO);
    }

    #[test]
    fn sink_refusal_stops() {
        let mut h = harness(vec![page(vec![Obj("a", "1")], "10", "")]);
        let mut seen = Vec::new();
        h.reflector.run(Recorder(|u: Update<Obj>| {
            let keep_going = !matches!(u, Update::ListPage(_));
            seen.push(u);
            keep_going
        }));
        assert_eq!(seen, vec![Update::ListBegin, Update::ListPage(vec![Obj("a", "1")])]);
        assert!(h.watches.borrow().is_empty());
    }

    #[test]
    fn list_without_resource_version_backs_off() {
        let mut h = harness(vec![page(vec![], "", "")]);
        let mut sink = Recorder(|_u: Update<Obj>| true);
        let state = h.reflector.step(State::fresh_list(), &mut sink);
        assert!(matches!(state, State::Backoff { ref then, .. } if **then == State::fresh_list()), "{state:?}");
    }

    #[test]
    fn watch_timeouts_are_spread_over_the_range() {
        let mut h = harness(vec![]);
        let timeouts: Vec<u32> = (0..200).map(|_| h.reflector.random_watch_timeout()).collect();
        assert!(timeouts.iter().all(|t| (300..=600).contains(t)));
        assert!(timeouts.iter().any(|t| *t < 350) && timeouts.iter().any(|t| *t > 550), "{timeouts:?}");
    }
}
