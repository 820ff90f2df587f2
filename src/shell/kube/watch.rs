//! The list+watch loop (client-go's reflector) as a named, blocking state machine.
//!
//! A scheduler's picture of the cluster is only as good as this loop: it must never miss an
//! event, never hammer a struggling API server, and always know when its picture must be rebuilt
//! from scratch. The shape follows kube-rs `kube-runtime/src/watcher.rs` (every transition is a
//! named state with its reason next to it); the decisions are client-go's, cited per transition
//! from `kubernetes/client-go` at commit `cad7aa5a474a1ff81643e854548f95523748cee8`
//! (`tools/cache/reflector.go`; the error switch is unchanged up to v1.35):
//!
//! ```text
//! Listing{None}     ─ListBegin, page─────────────────────> Listing{Some(continue)}  (more pages)
//! Listing{..}       ─last page, ListDone─────────────────> Watching{list rv}
//! Listing{Some(..)} ─410: continue expired───────────────> Listing{None}
//! Listing{..}       ─403 Forbidden───────────────────────> Denied, Backoff{then: Listing{None}}
//! Listing{..}       ─other error─────────────────────────> Backoff{then: Listing{None}}
//! Watching{rv}      ─event / bookmark────────────────────> (same stream, rv advances)
//! Watching{rv}      ─stream closed, cut, reset or idle───> Watching{last rv}
//! Watching{rv}      ─closed within 1 s, nothing received─> Backoff{then: Listing{None}}
//! Watching{rv}      ─refused, 429, 5xx + Retry-After─────> Backoff{then: Watching{last rv}}
//! Watching{rv}      ─ERROR event 429─────────────────────> Backoff{then: Watching{last rv}}
//! Watching{rv}      ─403 (HTTP or ERROR event)───────────> Denied, Backoff{then: Listing{None}}
//! Watching{rv}      ─any other error: HTTP error, ERROR──> Backoff{then: Listing{None}}
//!                    event (410 included), undecodable
//!                    event, non-watch response
//! Backoff{until, s} ─until reached───────────────────────> s
//! any               ─stop flag / sink says no────────────> Stopped
//! ```
//!
//! - A relist sends [`Change::ListBegin`], each page as it arrives ([`Change::ListPage`], so
//!   memory stays bounded for very large clusters), then [`Change::ListDone`]; the consumer swaps
//!   its state at `ListDone` (objects not seen since `ListBegin` are gone). Objects of a page that
//!   do not decode are reported one by one ([`Change::Undecodable`]) instead of failing the page.
//! - Lists are paginated consistent reads (no `resourceVersion`); watches always start from the
//!   list's (or the last seen) resource version, never from `""`, which would skip every change
//!   made between the list and the watch.
//! - Watches ask for bookmarks and a random server-side timeout (5–10 minutes by default) so
//!   that many clients do not reconnect in lockstep.
//! - 403 Forbidden (RBAC) is reported to the consumer ([`Sink::denied`]), which decides
//!   whether the kind is required (an error) or optional (a feature turns off). The retry waits
//!   `forbidden_retry` when set (rare retries for optional kinds, so a later grant heals without a
//!   restart), else the normal backoff; it always relists, since nothing was delivered meanwhile.
//! - Every wait uses one backoff (0.8 s doubling to 30 s, with jitter, reset after two healthy
//!   minutes), as client-go's `backoffManager` serves both `Run` and `watch`; a server's
//!   `Retry-After` replaces it.
//!
//! Stopping: the stop flag is checked between requests, between events and while backing off.
//! A watch blocked waiting for data notices it at the next event or bookmark, or when the idle
//! timeout ends the stream, so callers should not wait for watcher threads at shutdown.

use crate::core::api::Object;
use crate::core::logging::Line;
use crate::core::rng::Rng;
use crate::core::watched::Change;
use crate::shell::kube::api_error::ApiError;
use crate::shell::kube::backoff::Backoff;
use crate::shell::kube::client::Client;
use crate::shell::kube::decode::{self, ListPage};
use crate::shell::kube::query::{ListParams, WatchParams};
use crate::shell::kube::watch_stream::{StreamError, WatchEvent, WatchStream};
use crate::shell::process::clock::{self, Clock, SystemClock};
use serde::de::DeserializeOwned;
use std::fmt;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

/// A watch that ends this quickly without delivering anything is treated as a failure
/// (reflector.go `handleAnyWatch`: "very short watch"), so a server that closes watches at once
/// is not hammered.
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
    /// A list answered 404 (the API server does not serve the resource, e.g. a group version an
    /// older cluster lacks) is reported to the consumer ([`Sink::not_served`]) and retried as a
    /// denial is, instead of backing off as a failure.
    pub absent_is_unavailable: bool,
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
            absent_is_unavailable: false,
        }
    }
}

/// Where a watcher delivers what it observes: the changes, in the core's own terms (so a watch
/// event reaches the scheduler through one translation), and the denials, which only the
/// consumer can judge (required kinds are errors, optional ones turn a feature off).
pub trait Sink<T> {
    /// A change to mirror, its objects boxed as the core takes them (a list page is handed over
    /// as decoded); `false` stops the reflector (the consumer is gone).
    fn change(&mut self, change: Change<Box<T>>) -> bool;
    /// The API server refused to `verb` (list or watch) the resource (403); it is retried later.
    /// `false` stops the reflector.
    fn denied(&mut self, verb: &'static str, message: &str) -> bool;
    /// The API server does not serve the resource (404 on a list, only with
    /// [`WatchSpec::absent_is_unavailable`]); it is retried later as a denial is. `false` stops
    /// the reflector.
    fn not_served(&mut self, message: &str) -> bool {
        self.denied("list", message)
    }
}

/// The two calls the state machine needs; the real one is [`ClientTransport`], tests script one.
pub trait ListWatchTransport<T> {
    /// The events of one open watch; ends when the server closes it.
    type Stream: Iterator<Item = Result<WatchEvent<T>, StreamError>>;
    /// Fetch one page of the collection.
    fn list(&mut self, params: &ListParams) -> Result<ListPage<T>, ApiError>;
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
    /// The page being decoded, kept from page to page of one list and released after the last.
    pub page: Vec<u8>,
}

impl<T: DeserializeOwned + Object + 'static> ListWatchTransport<T> for ClientTransport {
    type Stream = WatchStream<T>;

    fn list(&mut self, params: &ListParams) -> Result<ListPage<T>, ApiError> {
        // The previous page has been sent: another informer may decode while this one fetches.
        decode::end_turn();
        let page = self.client.list_into(&self.path, params, &mut self.page);
        if page.is_err() {
            decode::end_turn();
        }
        if !page.as_ref().is_ok_and(|p| !p.metadata.continue_token.is_empty()) {
            // The list is over (or failed): a watching informer keeps no page-sized buffer.
            self.page = Vec::new();
        }
        page
    }

    fn watch(&mut self, params: &WatchParams) -> Result<WatchStream<T>, ApiError> {
        decode::end_turn();
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
}

impl<Tr, C: Clock> Reflector<Tr, C> {
    /// A reflector that has not started; `rng_seed` drives backoff jitter and watch timeouts.
    pub fn new(spec: WatchSpec, transport: Tr, clock: C, stop: Arc<AtomicBool>, rng_seed: u64) -> Reflector<Tr, C> {
        Reflector { spec, transport, clock, backoff: Backoff::reflector(), rng: Rng::seeded(rng_seed), stop }
    }

    /// Run until stopped: the state machine's trampoline.
    pub fn run<T, S>(&mut self, mut sink: S)
    where
        T: Object,
        Tr: ListWatchTransport<T>,
        S: Sink<T>,
    {
        Line::new("Starting reflector").s("resource", self.spec.name).s("path", &self.spec.path).info();
        let mut state = State::fresh_list();
        while state != State::Stopped {
            state = self.step(state, &mut sink);
        }
        decode::end_turn();
        Line::new("Stopping reflector").s("resource", self.spec.name).info();
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
            crate::core::logging::v(4, || Line::new("Listing and watching").s("resource", name));
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
            // full list in the same situation: tools/pager/pager.go, FullListIfExpired).
            Err(err) if err.is_gone() && continue_token.is_some() => {
                Line::new("List continuation expired - restarting list").s("resource", name).s("err", &err).info();
                return State::fresh_list();
            }
            Err(err) if err.is_forbidden() => return self.denied("list", &err, sink),
            Err(err) if err.is_not_found() && self.spec.absent_is_unavailable => {
                let go_on = sink.not_served(&err.server_message());
                return self.after_denial("list", go_on);
            }
            // Any other failure: reflector.go `list` returns it, `Run` backs off
            // (wait.BackoffUntil with the backoffManager) and ListAndWatch lists again.
            Err(err) => return self.back_off("Failed to list", &err, State::fresh_list()),
        };
        let ListPage { metadata, items, undecodable } = page;
        if !items.is_empty() && !sink.change(Change::ListPage(items)) {
            return State::Stopped;
        }
        for u in undecodable {
            if !sink.change(Change::Undecodable(Box::new(u))) {
                return State::Stopped;
            }
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
        Line::new("Caches populated").s("resource", name).s("resourceVersion", &metadata.resource_version).info();
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
            Err(err) if err.is_forbidden() => return self.denied("watch", &err, sink),
            // Nothing listens, or the server asked us to come back: the version is still good.
            // reflector.go `watch`: `isWatchErrorRetriable` (connection refused, 429) backs off
            // and re-watches; rest/with_retry.go `checkWait`: the REST client itself repeats a
            // watch answered 5xx with a `Retry-After`.
            Err(err) if rewatch_after(&err) => {
                return self.back_off("Failed to watch", &err, State::Watching { resource_version })
            }
            // Any other failure (410, 5xx, a broken connection): reflector.go `watch` returns
            // the error, `Run` backs off and ListAndWatch lists again.
            Err(err) => return self.relist("Failed to watch", &err),
        };
        let mut events = 0u64;
        for item in stream {
            if self.stopped() {
                return State::Stopped;
            }
            let update = match item {
                Ok(WatchEvent::Added(obj)) => Some(Change::Added(Box::new(obj))),
                Ok(WatchEvent::Modified(obj)) => Some(Change::Modified(Box::new(obj))),
                Ok(WatchEvent::Deleted(obj)) => Some(Change::Deleted(Box::new(obj))),
                // Bookmarks only move our version forward, so a reconnect resumes later.
                Ok(WatchEvent::Bookmark { resource_version: rv }) => {
                    if !rv.is_empty() {
                        resource_version = rv;
                    }
                    None
                }
                // handleAnyWatch returns `apierrors.FromObject` of an ERROR event; reflector.go
                // `watch` re-watches only after a 429 and lists again for everything else (410
                // Expired, 500, ...). A 403 is reported before the relist.
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
                    if err.is_too_many_requests() {
                        return self.back_off("Watch failed", &err, State::Watching { resource_version });
                    }
                    return self.relist("Watch failed", &err);
                }
                // streamwatcher.go `receive`: a cut stream (unexpected EOF, reset, timeout) just
                // closes the result channel, which handleAnyWatch takes as the end of the watch.
                Err(StreamError::Ended(err)) => {
                    crate::core::logging::v(4, || Line::new("Watch stream ended").s("resource", name).s("reason", &err));
                    break;
                }
                // streamwatcher.go `receive` reports what it cannot decode as an ERROR event
                // (code 500, ClientWatchDecoding), which ends in a relist as above.
                Err(StreamError::Failed(err)) => return self.relist("Watch failed", &err),
            };
            events += 1;
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
            // handleAnyWatch: "very short watch" is an error; the reflector backs off and lists.
            let err = ApiError::Transport {
                request: format!("WATCH {}", self.spec.path),
                message: "very short watch: closed within a second without any event".to_string(),
            };
            return self.relist("Watch failed", &err);
        }
        // The server ended the watch (its timeoutSeconds), or the stream was cut: handleAnyWatch
        // returns nil and reflector.go `watch` loops to a new watch from the last version.
        crate::core::logging::v(4, || {
            Line::new("Watch close").s("resource", name).n("events", events).s("resourceVersion", &resource_version)
        });
        State::Watching { resource_version }
    }

    /// The watch ended in an error: back off, then list again (client-go's ListAndWatch returns
    /// and `Run` starts it over after its backoff).
    fn relist(&mut self, what: &str, err: &ApiError) -> State {
        let delay = self.delay(err);
        let line = Line::new("Watch close - relisting")
            .s("resource", self.spec.name)
            .s("what", what)
            .s("err", err)
            .s("retryIn", format!("{delay:?}"));
        if err.is_gone() {
            line.info()
        } else {
            line.warning()
        }
        State::Backoff { until: self.clock.now() + delay, then: Box::new(State::fresh_list()) }
    }

    /// 403: tell the consumer (it logs with the context it has and decides what the denial
    /// means), then wait and list again from scratch.
    fn denied<T, S>(&mut self, verb: &'static str, err: &ApiError, sink: &mut S) -> State
    where
        S: Sink<T>,
    {
        let go_on = sink.denied(verb, &err.server_message());
        self.after_denial(verb, go_on)
    }

    /// The part of [`Self::denied`] that does not depend on the kind (compiled once, not once
    /// per watched kind).
    fn after_denial(&mut self, verb: &'static str, go_on: bool) -> State {
        if !go_on {
            return State::Stopped;
        }
        let now = self.clock.now();
        let delay = match self.spec.forbidden_retry {
            Some(d) => d,
            None => self.backoff.next_delay(now, &mut self.rng),
        };
        crate::core::logging::v(4, || {
            Line::new("Forbidden; retrying").s("resource", self.spec.name).s("verb", verb).s("retryIn", format!("{delay:?}"))
        });
        State::Backoff { until: now + delay, then: Box::new(State::fresh_list()) }
    }

    /// Failure: wait, then enter `then`.
    fn back_off(&mut self, what: &str, err: &ApiError, then: State) -> State {
        let delay = self.delay(err);
        Line::new(what).s("resource", self.spec.name).s("err", err).s("retryIn", format!("{delay:?}")).warning();
        State::Backoff { until: self.clock.now() + delay, then: Box::new(then) }
    }

    /// The next wait: the server's `Retry-After` if it gave one, else the exponential backoff.
    fn delay(&mut self, err: &ApiError) -> Duration {
        let backoff = self.backoff.next_delay(self.clock.now(), &mut self.rng);
        err.retry_after().map(|d| d.min(MAX_RETRY_AFTER)).unwrap_or(backoff)
    }

    /// Sleep until `until` in short slices so a stop request is honoured promptly.
    fn wait_until(&mut self, until: Instant, then: State) -> State {
        // A list that failed after a decoded page leaves no one waiting for its turn meanwhile.
        decode::end_turn();
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

/// Whether a failed watch request is repeated from the same version rather than followed by a
/// relist: connection refused and 429 (reflector.go `isWatchErrorRetriable`), and 5xx with a
/// `Retry-After` (rest/with_retry.go `checkWait`, retried inside the REST client).
fn rewatch_after(err: &ApiError) -> bool {
    matches!(err, ApiError::Refused { .. })
        || err.is_too_many_requests()
        || (err.code().is_some_and(|c| c >= 500) && err.retry_after().is_some())
}

/// An event's object version. client-go records whatever the object carries, even `""` (which
/// would make the next watch start "now"); an empty version keeps the last one instead.
fn object_version<T: Object>(update: &Change<Box<T>>) -> Option<&str> {
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
    // List pages are decoded in turn with the scheduler thread consuming them (decode::TURN).
    decode::take_turns();
    // The scheduler keeps only the node-side record of a bound pod.
    decode::node_side_bound_pods();
    let transport = ClientTransport { client, path: spec.path.clone(), page: Vec::new() };
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
    use crate::core::watched::Undecodable;
    use crate::shell::process::clock::fake::FakeClock;
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

    /// Everything that happened, in order, as short words: requests (`list`, `list tok1`,
    /// `watch 10`), waits (`backoff`), what the sink saw (`begin`, `[a b]`, `done`, `+a`, `~a`,
    /// `-a`, `undecodable a`, `denied watch`), and `end` when the script ran out.
    type Trace = Rc<RefCell<Vec<String>>>;

    /// A sink that writes to the trace and says yes (or no, for `refuse`).
    struct Recorder {
        trace: Trace,
        refuse: Option<&'static str>,
    }

    impl Sink<Obj> for Recorder {
        fn change(&mut self, change: Change<Box<Obj>>) -> bool {
            let word = match change {
                Change::ListBegin => "begin".to_string(),
                Change::ListPage(v) => format!("[{}]", v.iter().map(|o| o.0).collect::<Vec<_>>().join(" ")),
                Change::ListDone => "done".to_string(),
                Change::Added(o) => format!("+{}", o.0),
                Change::Modified(o) => format!("~{}", o.0),
                Change::Deleted(o) => format!("-{}", o.0),
                Change::Undecodable(u) => format!("undecodable {}", u.name),
                Change::Unavailable => unreachable!("the reflector never reports Unavailable"),
            };
            let refused = self.refuse.is_some_and(|r| word.starts_with(r));
            self.trace.borrow_mut().push(word);
            !refused
        }
        fn denied(&mut self, verb: &'static str, _message: &str) -> bool {
            self.trace.borrow_mut().push(format!("denied {verb}"));
            true
        }
        fn not_served(&mut self, _message: &str) -> bool {
            self.trace.borrow_mut().push("not served".to_string());
            true
        }
    }

    enum Step {
        List(Result<ListPage<Obj>, ApiError>),
        /// Watch outcome, and how long the stream stays open.
        Watch(Result<Vec<Result<WatchEvent<Obj>, StreamError>>, ApiError>, Duration),
    }

    /// Replays a script; when it runs out it raises the stop flag.
    struct FakeTransport {
        script: VecDeque<Step>,
        clock: FakeClock,
        stop: Arc<AtomicBool>,
        trace: Trace,
        lists: Rc<RefCell<Vec<ListParams>>>,
        watches: Rc<RefCell<Vec<WatchParams>>>,
    }

    fn exhausted() -> ApiError {
        ApiError::Transport { request: String::new(), message: "script exhausted".into() }
    }

    impl FakeTransport {
        fn next(&mut self, call: String) -> Option<Step> {
            self.trace.borrow_mut().push(call);
            let step = self.script.pop_front();
            if step.is_none() {
                self.trace.borrow_mut().push("end".into());
                self.stop.store(true, Ordering::Relaxed);
            }
            step
        }
    }

    impl ListWatchTransport<Obj> for FakeTransport {
        type Stream = std::vec::IntoIter<Result<WatchEvent<Obj>, StreamError>>;

        fn list(&mut self, params: &ListParams) -> Result<ListPage<Obj>, ApiError> {
            self.lists.borrow_mut().push(params.clone());
            let call = match &params.continue_token {
                Some(t) => format!("list {t}"),
                None => "list".to_string(),
            };
            match self.next(call) {
                Some(Step::List(r)) => r,
                Some(Step::Watch(..)) => panic!("expected a list, script wants a watch: {params:?}"),
                None => Err(exhausted()),
            }
        }

        fn watch(&mut self, params: &WatchParams) -> Result<Self::Stream, ApiError> {
            self.watches.borrow_mut().push(params.clone());
            match self.next(format!("watch {}", params.resource_version)) {
                Some(Step::Watch(r, lasts)) => {
                    self.clock.advance(lasts);
                    r.map(Vec::into_iter)
                }
                Some(Step::List(_)) => panic!("expected a watch, script wants a list: {params:?}"),
                None => Err(exhausted()),
            }
        }
    }

    struct Harness {
        reflector: Reflector<FakeTransport, FakeClock>,
        clock: FakeClock,
        trace: Trace,
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
        harness_with(spec(), script)
    }

    fn harness_with(spec: WatchSpec, script: Vec<Step>) -> Harness {
        let clock = FakeClock::new();
        let stop = Arc::new(AtomicBool::new(false));
        let trace: Trace = Rc::new(RefCell::new(Vec::new()));
        let lists = Rc::new(RefCell::new(Vec::new()));
        let watches = Rc::new(RefCell::new(Vec::new()));
        let transport = FakeTransport {
            script: script.into(),
            clock: clock.clone(),
            stop: stop.clone(),
            trace: trace.clone(),
            lists: lists.clone(),
            watches: watches.clone(),
        };
        let reflector = Reflector::new(spec, transport, clock.clone(), stop.clone(), 42);
        Harness { reflector, clock, trace, lists, watches, stop }
    }

    impl Harness {
        /// Run to the end of the script, recording backoffs (and their lengths) in the trace.
        fn run(&mut self, refuse: Option<&'static str>) -> Vec<Duration> {
            let mut sink = Recorder { trace: self.trace.clone(), refuse };
            let mut delays = Vec::new();
            let mut state = State::fresh_list();
            while state != State::Stopped {
                if let State::Backoff { until, .. } = &state {
                    if !self.stop.load(Ordering::Relaxed) {
                        self.trace.borrow_mut().push("backoff".into());
                        delays.push(until.saturating_duration_since(self.clock.now()));
                    }
                }
                state = self.reflector.step(state, &mut sink);
            }
            delays
        }

        fn trace(&self) -> String {
            self.trace.borrow().join("; ")
        }
    }

    fn page(items: Vec<Obj>, rv: &str, cont: &str) -> Step {
        let meta = api::ListMeta { resource_version: rv.into(), continue_token: cont.into(), remaining_item_count: None };
        Step::List(Ok(ListPage::of(meta, items)))
    }

    fn events(events: Vec<WatchEvent<Obj>>) -> Vec<Result<WatchEvent<Obj>, StreamError>> {
        events.into_iter().map(Ok).collect()
    }

    /// A watch that delivers `events` and stays open long enough not to be "very short".
    fn watch_ok(evs: Vec<WatchEvent<Obj>>) -> Step {
        Step::Watch(Ok(events(evs)), Duration::from_secs(300))
    }

    /// A watch stream whose items end with `last` (after `evs`), open for `lasts`.
    fn watch_then(evs: Vec<WatchEvent<Obj>>, last: StreamError, lasts: Duration) -> Step {
        let mut items = events(evs);
        items.push(Err(last));
        Step::Watch(Ok(items), lasts)
    }

    fn open_err(err: ApiError) -> Step {
        Step::Watch(Err(err), Duration::ZERO)
    }

    fn status(code: u16, reason: &str) -> api::Status {
        api::Status { status: "Failure".into(), message: "m".into(), reason: reason.into(), details: None, code }
    }

    fn status_err(code: u16, retry_after: Option<u64>) -> ApiError {
        ApiError::Status {
            request: "GET /api/v1/pods".into(),
            code,
            status: Box::new(status(code, "x")),
            retry_after: retry_after.map(Duration::from_secs),
        }
    }

    fn transport_err() -> ApiError {
        ApiError::Transport { request: "GET /api/v1/pods".into(), message: "connection reset by peer".into() }
    }

    fn refused() -> ApiError {
        ApiError::Refused { request: "GET /api/v1/pods".into(), message: "Connection refused".into() }
    }

    fn cut(message: &str) -> StreamError {
        StreamError::Ended(ApiError::Transport { request: "WATCH /api/v1/pods".into(), message: message.into() })
    }

    fn garbled(message: &str) -> StreamError {
        StreamError::Failed(ApiError::Decode { request: "WATCH /api/v1/pods".into(), message: message.into() })
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

    fn added(name: &'static str, rv: &'static str) -> WatchEvent<Obj> {
        WatchEvent::Added(Obj(name, rv))
    }

    /// One transition of the state machine: the script the fake transport plays, the trace it
    /// must produce, and the client-go behaviour it pins.
    struct Case {
        name: &'static str,
        script: Vec<Step>,
        trace: &'static str,
    }

    /// Every transition, from a fresh start. Citations are to kubernetes/client-go at
    /// cad7aa5a474a1ff81643e854548f95523748cee8 (tools/cache/reflector.go unless named) and
    /// kubernetes/apimachinery at 6c92a5c0324f4edf0035fd0dbe5f437e674aaf11 (streamwatcher.go).
    fn cases() -> Vec<Case> {
        let listed = || page(vec![Obj("a", "1")], "10", "");
        vec![
            // reflector.go `list` (pager) then `watch` from LastSyncResourceVersion.
            Case {
                name: "pages are listed, then watched from the list's version",
                script: vec![
                    page(vec![Obj("a", "1"), Obj("b", "2")], "10", "tok1"),
                    page(vec![Obj("c", "3")], "10", ""),
                    watch_ok(vec![added("d", "11")]),
                ],
                trace: "begin; list; [a b]; list tok1; [c]; done; watch 10; +d; watch 11; end",
            },
            // handleAnyWatch: the result channel closed -> `watch` loops to a new watch from the
            // last version, without waiting.
            Case {
                name: "a clean close re-watches from the last version at once",
                script: vec![
                    listed(),
                    watch_ok(vec![added("b", "11"), WatchEvent::Modified(Obj("b", "12"))]),
                    watch_ok(vec![WatchEvent::Deleted(Obj("b", "13"))]),
                ],
                trace: "begin; list; [a]; done; watch 10; +b; ~b; watch 12; -b; watch 13; end",
            },
            // handleAnyWatch, watch.Bookmark: only the resource version moves.
            Case {
                name: "bookmarks move the version",
                script: vec![
                    listed(),
                    watch_ok(vec![WatchEvent::Bookmark { resource_version: "50".into() }]),
                    watch_ok(vec![WatchEvent::Bookmark { resource_version: String::new() }]),
                ],
                trace: "begin; list; [a]; done; watch 10; watch 50; watch 50; end",
            },
            // streamwatcher.go `receive`: io.ErrUnexpectedEOF closes the channel like io.EOF.
            Case {
                name: "a stream cut mid-event re-watches from the last complete event",
                script: vec![
                    listed(),
                    watch_then(
                        vec![added("b", "11")],
                        cut("watch stream ended in the middle of an event"),
                        Duration::from_secs(5),
                    ),
                ],
                trace: "begin; list; [a]; done; watch 10; +b; watch 11; end",
            },
            // streamwatcher.go `receive`: net.IsProbableEOF (reset) and net.IsTimeout close quietly.
            Case {
                name: "a reset or idle stream re-watches like a close",
                script: vec![
                    listed(),
                    watch_then(
                        vec![added("b", "11")],
                        cut("watch stream read failed: connection reset by peer"),
                        Duration::from_secs(5),
                    ),
                    watch_then(vec![added("c", "12")], cut("watch stream idle for too long"), Duration::from_secs(300)),
                ],
                trace: "begin; list; [a]; done; watch 10; +b; watch 11; +c; watch 12; end",
            },
            // handleAnyWatch: "very short watch" error -> `watch` returns -> Run backs off -> list.
            Case {
                name: "a watch closed within a second with nothing is a failure: relist after backoff",
                script: vec![listed(), Step::Watch(Ok(vec![]), Duration::from_millis(200)), listed()],
                trace: "begin; list; [a]; done; watch 10; backoff; begin; list; [a]; done; watch 10; end",
            },
            Case {
                name: "a stream cut at once with nothing is a very short watch too",
                script: vec![
                    listed(),
                    watch_then(vec![], cut("watch stream ended in the middle of an event"), Duration::ZERO),
                    listed(),
                ],
                trace: "begin; list; [a]; done; watch 10; backoff; begin; list; [a]; done; watch 10; end",
            },
            // handleAnyWatch returns apierrors.FromObject(ERROR); `watch`: isExpiredError -> return
            // -> Run backs off (BackoffUntil) -> ListAndWatch lists again.
            Case {
                name: "an ERROR event 410 relists after a backoff",
                script: vec![
                    listed(),
                    watch_ok(vec![added("b", "11"), WatchEvent::Error(status(410, "Expired"))]),
                    page(vec![], "20", ""),
                ],
                trace: "begin; list; [a]; done; watch 10; +b; backoff; begin; list; done; watch 20; end",
            },
            // `watch`: IsInternalError && retry.ShouldRetry() is false for informers
            // (MaxInternalErrorRetryDuration 0) -> default -> return -> relist.
            Case {
                name: "an ERROR event 500 relists after a backoff",
                script: vec![listed(), watch_ok(vec![WatchEvent::Error(status(500, "InternalError"))]), listed()],
                trace: "begin; list; [a]; done; watch 10; backoff; begin; list; [a]; done; watch 10; end",
            },
            // `watch`: apierrors.IsTooManyRequests -> backoffManager.Backoff() -> continue.
            Case {
                name: "an ERROR event 429 re-watches from the last version after a backoff",
                script: vec![listed(), watch_ok(vec![added("b", "11"), WatchEvent::Error(status(429, "TooManyRequests"))])],
                trace: "begin; list; [a]; done; watch 10; +b; backoff; watch 11; end",
            },
            Case {
                name: "an ERROR event 403 is reported, then relisted after a backoff",
                script: vec![listed(), watch_ok(vec![WatchEvent::Error(status(403, "Forbidden"))]), listed()],
                trace: "begin; list; [a]; done; watch 10; denied watch; backoff; begin; list; [a]; done; watch 10; end",
            },
            // streamwatcher.go `receive`: a decode error becomes an ERROR event (500,
            // ClientWatchDecoding) -> relist as for a 500.
            Case {
                name: "an undecodable event relists after a backoff",
                script: vec![
                    listed(),
                    watch_then(vec![added("b", "11")], garbled("MODIFIED event object: invalid type"), Duration::from_secs(5)),
                    listed(),
                ],
                trace: "begin; list; [a]; done; watch 10; +b; backoff; begin; list; [a]; done; watch 10; end",
            },
            Case {
                name: "a list answered to a watch request relists after a backoff",
                script: vec![
                    listed(),
                    watch_then(vec![], garbled("watch event: missing field `type`"), Duration::ZERO),
                    listed(),
                ],
                trace: "begin; list; [a]; done; watch 10; backoff; begin; list; [a]; done; watch 10; end",
            },
            // `watch`: isWatchErrorRetriable (utilnet.IsConnectionRefused) -> backoff, re-watch.
            Case {
                name: "a refused watch re-watches from the same version after a backoff",
                script: vec![listed(), open_err(refused())],
                trace: "begin; list; [a]; done; watch 10; backoff; watch 10; end",
            },
            // `watch`: isWatchErrorRetriable (apierrors.IsTooManyRequests).
            Case {
                name: "a watch answered 429 re-watches after a backoff",
                script: vec![listed(), open_err(status_err(429, None))],
                trace: "begin; list; [a]; done; watch 10; backoff; watch 10; end",
            },
            // rest/with_retry.go `checkWait`: 5xx with Retry-After is retried by the REST client.
            Case {
                name: "a watch answered 503 with Retry-After is repeated after it",
                script: vec![listed(), open_err(status_err(503, Some(2)))],
                trace: "begin; list; [a]; done; watch 10; backoff; watch 10; end",
            },
            // `watch`: any other error is returned -> Run backs off -> list.
            Case {
                name: "a watch answered 503 without Retry-After relists after a backoff",
                script: vec![listed(), open_err(status_err(503, None)), listed()],
                trace: "begin; list; [a]; done; watch 10; backoff; begin; list; [a]; done; watch 10; end",
            },
            Case {
                name: "a watch answered 410 relists after a backoff",
                script: vec![listed(), open_err(status_err(410, None)), page(vec![], "20", "")],
                trace: "begin; list; [a]; done; watch 10; backoff; begin; list; done; watch 20; end",
            },
            Case {
                name: "a watch whose connection breaks relists after a backoff",
                script: vec![listed(), open_err(transport_err()), listed()],
                trace: "begin; list; [a]; done; watch 10; backoff; begin; list; [a]; done; watch 10; end",
            },
            Case {
                name: "a forbidden watch is reported, then relisted after a backoff",
                script: vec![listed(), open_err(forbidden()), listed()],
                trace: "begin; list; [a]; done; watch 10; denied watch; backoff; begin; list; [a]; done; watch 10; end",
            },
            // `list` returns the error -> Run backs off -> ListAndWatch lists from the start.
            Case {
                name: "a failed list backs off and lists again from the first page",
                script: vec![page(vec![Obj("a", "1")], "10", "tok1"), Step::List(Err(transport_err())), listed()],
                trace: "begin; list; [a]; list tok1; backoff; begin; list; [a]; done; watch 10; end",
            },
            // tools/pager/pager.go: an expired continue token falls back to a full list at once.
            Case {
                name: "an expired continue token restarts the list at once",
                script: vec![page(vec![Obj("a", "1")], "10", "tok1"), Step::List(Err(status_err(410, None))), listed()],
                trace: "begin; list; [a]; list tok1; begin; list; [a]; done; watch 10; end",
            },
            Case {
                name: "a forbidden list is reported, then retried after a backoff",
                script: vec![Step::List(Err(forbidden())), listed()],
                trace: "begin; list; denied list; backoff; begin; list; [a]; done; watch 10; end",
            },
            Case {
                name: "a list without a resourceVersion is retried after a backoff",
                script: vec![page(vec![], "", ""), listed()],
                trace: "begin; list; backoff; begin; list; [a]; done; watch 10; end",
            },
            // Not client-go: an object that does not decode is skipped, the page is used.
            Case {
                name: "an undecodable object is reported and the list goes on",
                script: vec![
                    Step::List(Ok(ListPage {
                        metadata: api::ListMeta { resource_version: "10".into(), ..Default::default() },
                        items: vec![Box::new(Obj("a", "1"))],
                        undecodable: vec![Undecodable { name: "bad".into(), error: "invalid type".into(), ..Default::default() }],
                    })),
                    watch_ok(vec![]),
                ],
                trace: "begin; list; [a]; undecodable bad; done; watch 10; watch 10; end",
            },
        ]
    }

    #[test]
    fn every_transition_matches_client_go() {
        for case in cases() {
            let mut h = harness(case.script);
            h.run(None);
            assert_eq!(h.trace(), case.trace, "{}", case.name);
        }
    }

    #[test]
    fn a_resource_the_server_does_not_serve_is_reported_only_for_optional_kinds() {
        // An optional kind answered 404 (resource.k8s.io/v1 on an older cluster) turns its
        // feature off and is retried like a denial; any other kind backs off as on a failure.
        let script = || vec![Step::List(Err(status_err(404, None))), page(vec![Obj("a", "1")], "10", "")];
        let mut h = harness_with(WatchSpec { absent_is_unavailable: true, ..spec() }, script());
        h.run(None);
        assert_eq!(h.trace(), "begin; list; not served; backoff; begin; list; [a]; done; watch 10; end");
        let mut h = harness(script());
        h.run(None);
        assert_eq!(h.trace(), "begin; list; backoff; begin; list; [a]; done; watch 10; end");
    }

    #[test]
    fn requests_carry_client_gos_parameters() {
        let mut h =
            harness(vec![page(vec![Obj("a", "1"), Obj("b", "2")], "10", "tok1"), page(vec![], "10", ""), watch_ok(vec![])]);
        h.run(None);
        let lists = h.lists.borrow();
        assert_eq!(lists[0].limit, Some(2));
        assert_eq!(lists[0].resource_version, None, "lists are consistent reads");
        assert_eq!(lists[0].field_selector.as_deref(), Some("status.phase!=Succeeded"));
        let watches = h.watches.borrow();
        assert!(watches[0].allow_watch_bookmarks);
        assert_eq!(watches[0].field_selector.as_deref(), Some("status.phase!=Succeeded"));
        let t = watches[0].timeout_seconds.expect("timeout");
        assert!((300..=600).contains(&t), "{t}");
        assert_eq!(watches[0].idle_timeout, Some(Duration::from_secs(300)));
    }

    #[test]
    fn repeated_failures_back_off_longer_and_reset_after_two_healthy_minutes() {
        // reflector.go NewReflectorWithOptions: NewExponentialBackoffManager(800ms, 30s, 2m, 2.0, 1.0).
        let mut h = harness(vec![
            page(vec![], "10", ""),
            open_err(refused()),
            open_err(refused()),
            open_err(refused()),
            // A long healthy watch...
            Step::Watch(Ok(events(vec![added("a", "11")])), Duration::from_secs(180)),
            // ...then a failure starts the sequence again at 800 ms.
            open_err(refused()),
        ]);
        let delays = h.run(None);
        let bases = [800u64, 1600, 3200, 800];
        assert_eq!(delays.len(), 4, "{delays:?}");
        for (d, base) in delays.iter().zip(bases) {
            assert!(*d >= Duration::from_millis(base) && *d < Duration::from_millis(2 * base), "{d:?} vs {base}: {delays:?}");
        }
    }

    #[test]
    fn retry_after_replaces_the_backoff() {
        let mut h = harness(vec![page(vec![], "10", ""), open_err(status_err(429, Some(7)))]);
        let delays = h.run(None);
        assert_eq!(delays[0], Duration::from_secs(7));
    }

    #[test]
    fn forbidden_retry_waits_its_own_delay() {
        let mut h = harness(vec![Step::List(Err(forbidden())), page(vec![], "10", "")]);
        h.reflector.spec.forbidden_retry = Some(Duration::from_secs(300));
        let delays = h.run(None);
        assert_eq!(delays[0], Duration::from_secs(300));
    }

    #[test]
    fn stop_flag_ends_the_loop_even_while_backing_off() {
        let mut h = harness(vec![Step::List(Err(transport_err()))]);
        let mut sink = Recorder { trace: h.trace.clone(), refuse: None };
        let state = h.reflector.step(State::fresh_list(), &mut sink);
        assert!(matches!(state, State::Backoff { .. }));
        h.stop.store(true, Ordering::Relaxed);
        assert_eq!(h.reflector.step(state, &mut sink), State::Stopped);
        assert_eq!(h.clock.slept(), Duration::ZERO);
    }

    #[test]
    fn sink_refusal_stops() {
        let mut h = harness(vec![page(vec![Obj("a", "1")], "10", "")]);
        h.run(Some("["));
        assert_eq!(h.trace(), "begin; list; [a]");
        assert!(h.watches.borrow().is_empty());
    }

    #[test]
    fn watch_timeouts_are_spread_over_the_range() {
        let mut h = harness(vec![]);
        let timeouts: Vec<u32> = (0..200).map(|_| h.reflector.random_watch_timeout()).collect();
        assert!(timeouts.iter().all(|t| (300..=600).contains(t)));
        assert!(timeouts.iter().any(|t| *t < 350) && timeouts.iter().any(|t| *t > 550), "{timeouts:?}");
    }
}
