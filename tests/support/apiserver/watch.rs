//! Watch streams with the semantics of the API server's watch cache
//! (`k8s.io/apiserver/pkg/storage/cacher/cache_watcher.go`, `convertToWatchEvent`): an object
//! that starts matching the selectors arrives as ADDED, one that stops matching as DELETED
//! (previous state, new resourceVersion); resuming from a compacted version yields HTTP 200 and
//! one ERROR event with a 410 Status; bookmarks carry only the kind and resourceVersion.

use super::compat::{self, Compat};
use super::http;
use super::resources::{ResId, RESOURCES};
use super::selectors::Selectors;
use super::server::Shared;
use super::status;
use super::store::{Change, Event, Store};
use super::wire;
use rustls::{ServerConnection, StreamOwned};
use serde_json::{json, Value};
use std::io;
use std::net::{Shutdown, TcpStream};
use std::sync::atomic::Ordering;
use std::time::{Duration, Instant};

/// Where a watch starts.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Start {
    /// Synthetic ADDED events for the current state, then changes (resourceVersion "" or "0",
    /// or `sendInitialEvents=true`).
    CurrentState,
    /// Only changes after this version.
    After(u64),
    /// Only changes from now on (`sendInitialEvents=false` with no version).
    Now,
}

/// A parsed watch request.
#[derive(Debug, Clone)]
pub struct WatchSpec {
    /// Watched resource.
    pub res: ResId,
    /// Namespace filter (None = all namespaces or cluster-scoped).
    pub ns: Option<String>,
    /// labelSelector / fieldSelector.
    pub selectors: Selectors,
    /// Starting point.
    pub start: Start,
    /// `allowWatchBookmarks=true`.
    pub bookmarks: bool,
    /// `sendInitialEvents=true`: end the initial ADDED burst with an initial-events-end bookmark.
    pub initial_events_end: bool,
    /// `timeoutSeconds`.
    pub timeout: Option<Duration>,
    /// Wire quirks to show.
    pub compat: Compat,
}

/// How long a watch waits for a change before re-checking stop flags and timers.
const POLL: Duration = Duration::from_millis(50);

fn event_line(kind: &str, object: Value) -> Vec<u8> {
    wire::encode_line(&json!({"type": kind, "object": object}))
}

fn with_rv(mut obj: Value, rv: u64) -> Value {
    obj["metadata"]["resourceVersion"] = json!(rv.to_string());
    obj
}

/// The BOOKMARK object: the watched kind with only `metadata.resourceVersion` and the zero
/// values Go serializes for required fields (`"spec":{"containers":null},"status":{}` for pods).
pub fn bookmark_object(res: ResId, rv: u64, initial_events_end: bool) -> Value {
    let r = &RESOURCES[res];
    let mut obj = json!({"kind": r.kind, "apiVersion": r.api_version(), "metadata": {"resourceVersion": rv.to_string()}});
    if initial_events_end {
        obj["metadata"]["annotations"] = json!({"k8s.io/initial-events-end": "true"});
    }
    if r.group.is_empty() && r.plural == "pods" {
        obj["spec"] = json!({"containers": null});
        obj["status"] = json!({});
    } else if r.status_subresource {
        obj["spec"] = json!({});
        obj["status"] = json!({});
    }
    obj
}

impl WatchSpec {
    fn in_scope(&self, ev: &Event) -> bool {
        ev.key.res == self.res && self.ns.as_ref().is_none_or(|n| &ev.key.ns == n)
    }

    /// The event this watcher sees for `ev`, if any (selector transitions included): its type
    /// and object, encoded by the caller once the store is unlocked.
    fn convert(&self, ev: &Event) -> Option<(&'static str, Value)> {
        if !self.in_scope(ev) {
            return None;
        }
        let now_matches = ev.change != Change::Deleted && self.selectors.matches(&ev.object);
        let was_matching = ev.prev.as_ref().is_some_and(|p| self.selectors.matches(p));
        match (now_matches, was_matching) {
            (true, false) => Some(("ADDED", self.compat.object(ev.object.clone()))),
            (true, true) => Some(("MODIFIED", self.compat.object(ev.object.clone()))),
            (false, true) => {
                let last = if ev.change == Change::Deleted { ev.object.clone() } else { with_rv(ev.prev.clone()?, ev.rv) };
                Some(("DELETED", self.compat.object(last)))
            }
            (false, false) => None,
        }
    }

    fn initial_lines(&self, store: &Store) -> Vec<Vec<u8>> {
        let mut lines: Vec<Vec<u8>> = store
            .objects_of(self.res, self.ns.as_deref())
            .filter(|(_, v)| self.selectors.matches(v))
            .map(|(_, v)| event_line("ADDED", self.compat.object(v.clone())))
            .collect();
        if self.initial_events_end && self.bookmarks {
            lines.push(event_line("BOOKMARK", bookmark_object(self.res, store.rv(), true)));
        }
        lines
    }
}

/// What the first look at the store decided.
enum Opening {
    Expired(Vec<u8>),
    Stream { lines: Vec<Vec<u8>>, cursor: u64 },
}

fn open(spec: &WatchSpec, store: &Store) -> Opening {
    match spec.start {
        Start::After(rv) if rv < store.compacted_rv() => {
            let err = status::too_old_resource_version(rv, store.compacted_rv() + 1);
            Opening::Expired(event_line("ERROR", err.body))
        }
        Start::After(rv) => Opening::Stream { lines: Vec::new(), cursor: rv },
        Start::CurrentState => Opening::Stream { lines: spec.initial_lines(store), cursor: store.rv() },
        Start::Now => Opening::Stream { lines: Vec::new(), cursor: store.rv() },
    }
}

type Tls = StreamOwned<ServerConnection, TcpStream>;

fn abort(stream: &mut Tls) -> io::Error {
    let _ = stream.sock.shutdown(Shutdown::Both);
    io::Error::new(io::ErrorKind::ConnectionAborted, "watch dropped")
}

/// Stream a watch until it times out (clean end, returns `Ok(true)` to keep the connection),
/// the client goes away, or a fault drops it (abrupt close, `Err`).
pub fn serve(shared: &Shared, stream: &mut Tls, spec: &WatchSpec, audit_id: &str, date: &str) -> io::Result<bool> {
    let stop_epoch = shared.stop_epoch.load(Ordering::SeqCst);
    let drop_epoch = shared.watch_drop_epoch.load(Ordering::SeqCst);
    let stall_epoch = shared.watch_stall_epoch.load(Ordering::SeqCst);
    let opening = open(spec, &shared.lock_store());
    http::write_stream_head(stream, "application/json", audit_id, date)?;
    let (lines, mut cursor) = match opening {
        Opening::Expired(line) => {
            http::write_chunk(stream, &line)?;
            http::write_last_chunk(stream)?;
            return Ok(true);
        }
        Opening::Stream { lines, cursor } => (lines, cursor),
    };
    let mut out = Out { shared, spec, object_events: 0 };
    for line in lines {
        if out.send(stream, &line)? {
            return Ok(true);
        }
    }
    let _active = shared.watch_started();
    let deadline = spec.timeout.map(|t| Instant::now() + t);
    let mut next_bookmark = Instant::now() + shared.bookmark_interval();
    loop {
        if shared.stop_epoch.load(Ordering::SeqCst) != stop_epoch || shared.watch_drop_epoch.load(Ordering::SeqCst) != drop_epoch
        {
            return Err(abort(stream));
        }
        // Stalled (all watches, or this one because it was open when open watches were stalled):
        // keep the connection but send nothing, not even bookmarks, like a dead NAT mapping.
        if shared.faults.stalled() || shared.watch_stall_epoch.load(Ordering::SeqCst) != stall_epoch {
            std::thread::sleep(POLL);
            continue;
        }
        let now = Instant::now();
        if deadline.is_some_and(|d| now >= d) {
            http::write_last_chunk(stream)?;
            return Ok(true);
        }
        let store = shared.lock_store();
        if cursor < store.compacted_rv() {
            // Fell behind the history window: the watch cache terminates such a watcher.
            drop(store);
            http::write_last_chunk(stream)?;
            return Ok(true);
        }
        // Only selected and copied under the lock; encoded after it is released, so writers and
        // other watches do not wait for this watch's serialization.
        let mut events: Vec<(&str, Value)> = store.events_after(cursor).filter_map(|ev| spec.convert(ev)).collect();
        cursor = store.rv();
        if events.is_empty() && spec.bookmarks && now >= next_bookmark {
            events.push(("BOOKMARK", bookmark_object(spec.res, cursor, false)));
            next_bookmark = now + shared.bookmark_interval();
        }
        if events.is_empty() {
            let mut wait = POLL;
            if let Some(d) = deadline {
                wait = wait.min(d.saturating_duration_since(now));
            }
            if spec.bookmarks {
                wait = wait.min(next_bookmark.saturating_duration_since(now));
            }
            drop(shared.wait_changed(spec.res, store, wait));
            continue;
        }
        drop(store);
        for (kind, object) in events {
            if out.send(stream, &event_line(kind, object))? {
                return Ok(true);
            }
        }
    }
}

/// Writes a stream's lines, cutting the stream mid-event when [`Compat::watch_closes_mid_event`]
/// says so.
struct Out<'a> {
    shared: &'a Shared,
    spec: &'a WatchSpec,
    object_events: usize,
}

impl Out<'_> {
    /// Send one line; `true` when the stream was cut (and ended) instead.
    fn send(&mut self, stream: &mut Tls, line: &[u8]) -> io::Result<bool> {
        if compat::is_object_event(line) {
            if self.spec.compat.watch_closes_mid_event && self.object_events == compat::EVENTS_BEFORE_CUT {
                // Counted first: a client may look as soon as it has read the end.
                self.shared.compat_hits.watch_cut();
                http::write_chunk(stream, compat::half(line))?;
                http::write_last_chunk(stream)?;
                return Ok(true);
            }
            self.object_events += 1;
        }
        http::write_chunk(stream, line)?;
        Ok(false)
    }
}
