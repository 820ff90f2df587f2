//! The running server: state shared by all connection threads, the accept loop on
//! 127.0.0.1, and the per-connection keep-alive loop (TLS, request attributes, authenticate,
//! authorize, inject faults, route, log, respond or stream). Stopping closes the listener and
//! every connection, so a restart on the same port looks to clients like an API server that went
//! away and came back.

use super::super::certs::TestCa;
use super::attributes::{self, RequestInfo};
use super::auth::{self, AuthTables, Identity};
use super::authz::{self, Authorization};
use super::claim_controller;
use super::clock;
use super::compat::{Compat, CompatHits};
use super::faults::Faults;
use super::http::{self, Request, Response};
use super::inspect::{Inspect, RequestRecord};
use super::rbac::User;
use super::resources::ResId;
use super::routes::{self, Reply};
use super::status;
use super::store::Store;
use super::watch;
use super::wire;
use super::ServerOptions;
use rustls::{ServerConfig, ServerConnection, StreamOwned};
use std::collections::{HashMap, HashSet};
use std::io::{self, BufReader, Write};
use std::net::{Shutdown, TcpListener, TcpStream};
use std::sync::atomic::{AtomicBool, AtomicU64, AtomicUsize, Ordering};
use std::sync::{Arc, Condvar, Mutex, MutexGuard};
use std::thread::{self, JoinHandle};
use std::time::{Duration, Instant, SystemTime};

/// State every connection thread shares; it outlives a stop/restart cycle.
pub struct Shared {
    store: Mutex<Store>,
    /// One per resource, signalled after a store write that changed that resource (watches of
    /// the resource wait on it, so a write wakes only the watches that may have something to
    /// send instead of every open watch).
    changed: Vec<Condvar>,
    /// Bearer tokens.
    pub auth: Mutex<AuthTables>,
    /// Whether requests without credentials are `system:anonymous` (else 401).
    pub anonymous_auth: AtomicBool,
    /// Whether authorization is AlwaysAllow (else RBAC).
    always_allow: AtomicBool,
    /// Fault knobs.
    pub faults: Faults,
    /// Request log and binding statistics.
    pub inspect: Inspect,
    /// The CA that signed the serving and client certificates.
    pub ca: TestCa,
    /// TLS configuration.
    pub tls: Arc<ServerConfig>,
    bookmark_interval: Mutex<Duration>,
    /// Whether DELETE of a bound pod only marks it terminating.
    pub graceful_pod_deletion: AtomicBool,
    /// Bumped by stop(): streams and connections of the old incarnation end.
    pub stop_epoch: AtomicU64,
    /// Bumped by drop_watches().
    pub watch_drop_epoch: AtomicU64,
    /// Bumped by stall_open_watches(): watches opened before the bump go silent for good.
    pub watch_stall_epoch: AtomicU64,
    active_watches: AtomicUsize,
    conns: Mutex<HashMap<u64, TcpStream>>,
    next_conn: AtomicU64,
    /// Wire quirks shown (fixed at start).
    pub compat: Compat,
    /// How often they changed a response.
    pub compat_hits: CompatHits,
    /// Collections watched at least once (for [`Compat::list_for_watch`]).
    watched: Mutex<HashSet<(ResId, Option<String>)>>,
    /// Whether the resourceclaim controller reacts to writes.
    claim_controller: AtomicBool,
    /// What the resourceclaim controller could not do, as it would log it.
    claim_controller_log: Mutex<Vec<String>>,
}

/// Decrements the active watch count when a stream ends.
pub struct WatchGuard<'a>(&'a AtomicUsize);

impl Drop for WatchGuard<'_> {
    fn drop(&mut self) {
        self.0.fetch_sub(1, Ordering::SeqCst);
    }
}

impl Shared {
    /// Fresh state around `store`, configured by `opts`.
    pub fn new(ca: TestCa, tls: Arc<ServerConfig>, store: Store, opts: &ServerOptions) -> Shared {
        Shared {
            store: Mutex::new(store),
            changed: super::resources::RESOURCES.iter().map(|_| Condvar::new()).collect(),
            auth: Mutex::new(AuthTables::default()),
            anonymous_auth: AtomicBool::new(opts.anonymous_auth),
            always_allow: AtomicBool::new(opts.authorization == Authorization::AlwaysAllow),
            faults: Faults::default(),
            inspect: Inspect::default(),
            ca,
            tls,
            bookmark_interval: Mutex::new(opts.bookmark_interval),
            graceful_pod_deletion: AtomicBool::new(opts.graceful_pod_deletion),
            stop_epoch: AtomicU64::new(0),
            watch_drop_epoch: AtomicU64::new(0),
            watch_stall_epoch: AtomicU64::new(0),
            active_watches: AtomicUsize::new(0),
            conns: Mutex::new(HashMap::new()),
            next_conn: AtomicU64::new(0),
            compat: opts.compat,
            compat_hits: CompatHits::default(),
            watched: Mutex::new(HashSet::new()),
            claim_controller: AtomicBool::new(opts.claim_controller),
            claim_controller_log: Mutex::new(Vec::new()),
        }
    }

    /// Turn the resourceclaim controller on (it first catches up on everything) or off.
    pub fn set_claim_controller(&self, on: bool) {
        self.claim_controller.store(on, Ordering::SeqCst);
        if on {
            self.run_claim_controller();
        }
    }

    /// One pass of the resourceclaim controller over every pod and claim, on or off.
    pub fn run_claim_controller(&self) {
        self.write(|s| {
            let mut log = Vec::new();
            claim_controller::sync_all(s, &mut log);
            self.claim_controller_log.lock().unwrap_or_else(|e| e.into_inner()).extend(log);
        });
    }

    /// What the resourceclaim controller could not do so far.
    pub fn claim_controller_log(&self) -> Vec<String> {
        self.claim_controller_log.lock().unwrap_or_else(|e| e.into_inner()).clone()
    }

    /// Whether this is the first watch request for the collection (records it).
    pub fn first_watch(&self, res: ResId, ns: Option<&str>) -> bool {
        self.watched.lock().unwrap_or_else(|e| e.into_inner()).insert((res, ns.map(str::to_string)))
    }

    /// The authorizer in force.
    pub fn authorization(&self) -> Authorization {
        if self.always_allow.load(Ordering::SeqCst) {
            Authorization::AlwaysAllow
        } else {
            Authorization::Rbac
        }
    }

    /// Switch the authorizer.
    pub fn set_authorization(&self, mode: Authorization) {
        self.always_allow.store(mode == Authorization::AlwaysAllow, Ordering::SeqCst);
    }

    /// Lock the store (a panicked holder does not poison tests).
    pub fn lock_store(&self) -> MutexGuard<'_, Store> {
        self.store.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Lock the auth tables.
    pub fn lock_auth(&self) -> MutexGuard<'_, AuthTables> {
        self.auth.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Run a store mutation and wake the watches of the resources it changed. With the
    /// resourceclaim controller on, its reactions to the mutation are made before the lock is
    /// released.
    pub fn write<T>(&self, f: impl FnOnce(&mut Store) -> T) -> T {
        let mut store = self.lock_store();
        let before = store.rv();
        let out = f(&mut store);
        if self.claim_controller.load(Ordering::SeqCst) {
            let mut log = Vec::new();
            claim_controller::react(&mut store, before, &mut log);
            if !log.is_empty() {
                self.claim_controller_log.lock().unwrap_or_else(|e| e.into_inner()).extend(log);
            }
        }
        let mut touched = vec![false; self.changed.len()];
        let mut any = false;
        for ev in store.events_after(before) {
            if let Some(t) = touched.get_mut(ev.key.res) {
                *t = true;
                any = true;
            }
        }
        // A version bump whose events already left a tiny history window: wake everyone.
        let unknown = !any && store.rv() != before;
        drop(store);
        for (res, cv) in self.changed.iter().enumerate() {
            if unknown || touched[res] {
                cv.notify_all();
            }
        }
        out
    }

    /// Wait (releasing the store lock) until a write changes `res`, an abort, or `timeout`.
    pub fn wait_changed<'a>(&self, res: ResId, store: MutexGuard<'a, Store>, timeout: Duration) -> MutexGuard<'a, Store> {
        match self.changed.get(res) {
            Some(cv) => cv.wait_timeout(store, timeout).map(|(g, _)| g).unwrap_or_else(|e| e.into_inner().0),
            None => store,
        }
    }

    fn wake_all_watches(&self) {
        for cv in &self.changed {
            cv.notify_all();
        }
    }

    /// Current bookmark period.
    pub fn bookmark_interval(&self) -> Duration {
        *self.bookmark_interval.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Change the bookmark period.
    pub fn set_bookmark_interval(&self, d: Duration) {
        *self.bookmark_interval.lock().unwrap_or_else(|e| e.into_inner()) = d;
    }

    /// Count a watch as active until the guard drops.
    pub fn watch_started(&self) -> WatchGuard<'_> {
        self.active_watches.fetch_add(1, Ordering::SeqCst);
        WatchGuard(&self.active_watches)
    }

    /// Watches currently streaming.
    pub fn active_watches(&self) -> usize {
        self.active_watches.load(Ordering::SeqCst)
    }

    /// End every watch abruptly (no terminating chunk).
    pub fn drop_watches(&self) {
        self.watch_drop_epoch.fetch_add(1, Ordering::SeqCst);
        self.wake_all_watches();
    }

    fn register(&self, stream: &TcpStream) -> Option<u64> {
        let id = self.next_conn.fetch_add(1, Ordering::SeqCst);
        let clone = stream.try_clone().ok()?;
        self.conns.lock().unwrap_or_else(|e| e.into_inner()).insert(id, clone);
        Some(id)
    }

    fn unregister(&self, id: u64) {
        self.conns.lock().unwrap_or_else(|e| e.into_inner()).remove(&id);
    }

    /// Close every open connection and end every stream.
    pub fn close_all(&self) {
        self.stop_epoch.fetch_add(1, Ordering::SeqCst);
        let conns: Vec<TcpStream> = self.conns.lock().unwrap_or_else(|e| e.into_inner()).drain().map(|(_, s)| s).collect();
        for c in conns {
            let _ = c.shutdown(Shutdown::Both);
        }
        self.wake_all_watches();
    }
}

/// A bound listener and its accept thread.
pub struct Listener {
    /// The bound port.
    pub port: u16,
    stop: Arc<AtomicBool>,
    thread: Option<JoinHandle<()>>,
}

/// Bind 127.0.0.1:`port` (0 = any), retrying briefly while a previous incarnation's port is
/// still being released, and start accepting.
pub fn listen(shared: Arc<Shared>, port: u16) -> io::Result<Listener> {
    let deadline = Instant::now() + Duration::from_secs(5);
    let listener = loop {
        match TcpListener::bind(("127.0.0.1", port)) {
            Ok(l) => break l,
            Err(e) if e.kind() == io::ErrorKind::AddrInUse && Instant::now() < deadline => {
                thread::sleep(Duration::from_millis(20));
            }
            Err(e) => return Err(e),
        }
    };
    let port = listener.local_addr()?.port();
    let stop = Arc::new(AtomicBool::new(false));
    let stop_flag = stop.clone();
    let thread = thread::Builder::new().name(format!("apiserver-accept-{port}")).spawn(move || {
        for conn in listener.incoming() {
            if stop_flag.load(Ordering::SeqCst) {
                break;
            }
            let Ok(tcp) = conn else { continue };
            let shared = shared.clone();
            let _ = thread::Builder::new().name("apiserver-conn".into()).spawn(move || serve_connection(&shared, tcp));
        }
    })?;
    Ok(Listener { port, stop, thread: Some(thread) })
}

impl Listener {
    /// Stop accepting and release the port.
    pub fn close(&mut self) {
        self.stop.store(true, Ordering::SeqCst);
        let _ = TcpStream::connect(("127.0.0.1", self.port));
        if let Some(t) = self.thread.take() {
            let _ = t.join();
        }
    }
}

type Tls = StreamOwned<ServerConnection, TcpStream>;

fn serve_connection(shared: &Shared, tcp: TcpStream) {
    let _ = tcp.set_nodelay(true);
    let Some(id) = shared.register(&tcp) else { return };
    if let Ok(conn) = ServerConnection::new(shared.tls.clone()) {
        let mut reader = BufReader::new(StreamOwned::new(conn, tcp));
        while let Ok(Some(req)) = http::read_request(&mut reader) {
            if !handle(shared, &mut reader, &req) {
                break;
            }
        }
        let stream = reader.get_mut();
        stream.conn.send_close_notify();
        let _ = stream.flush();
        let _ = stream.sock.shutdown(Shutdown::Both);
    }
    shared.unregister(id);
}

fn peer_certificate(stream: &Tls) -> Option<Vec<u8>> {
    stream.conn.peer_certificates().and_then(|certs| certs.first()).map(|c| c.as_ref().to_vec())
}

fn error_response(e: status::ApiError, pretty: bool) -> Response {
    let headers = e.retry_after.map(|s| vec![("Retry-After".to_string(), s.to_string())]).unwrap_or_default();
    Response { code: e.code, content_type: "application/json", headers, body: wire::encode(&e.body, pretty) }
}

/// The plain-text 500 of `responsewriters.InternalError` for a path `NewRequestInfo` rejects.
fn request_info_error(req: &Request, e: &attributes::InfoError) -> Response {
    let uri = if req.raw_query.is_empty() { req.path.clone() } else { format!("{}?{}", req.path, req.raw_query) };
    let text = format!("Internal Server Error: {}: failed to create RequestInfo: {}", status::quote(&uri), e.0);
    let text = text.replace('&', "&amp;").replace('<', "&lt;").replace('>', "&gt;");
    Response {
        code: 500,
        content_type: "text/plain; charset=utf-8",
        headers: vec![("X-Content-Type-Options".into(), "nosniff".into())],
        body: format!("{text}\n").into_bytes(),
    }
}

/// The authorization filter: `Err` is the 403 to send instead of serving the request.
fn authorize(shared: &Shared, info: &RequestInfo, who: &Identity, pretty: bool) -> Result<(), Response> {
    let user = User { name: &who.user, groups: &who.groups };
    authz::check(&shared.lock_store(), shared.authorization(), user, info).map_err(|e| {
        let mut resp = error_response(e, pretty);
        resp.headers.push(("X-Content-Type-Options".into(), "nosniff".into()));
        resp
    })
}

/// How much of a request body the request log keeps (enough for any object a scheduler writes).
const MAX_RECORDED_BODY: usize = 16 * 1024;

/// Serve one request; returns whether the connection stays open.
fn handle(shared: &Shared, reader: &mut BufReader<Tls>, req: &Request) -> bool {
    shared.inspect.receive(&req.method, &req.path);
    let delay = shared.faults.latency_for(&req.path);
    if !delay.is_zero() {
        thread::sleep(delay);
    }
    let info = attributes::request_info(&req.method, &req.path, &req.query);
    let identity: Option<Identity> = {
        let cert = peer_certificate(reader.get_ref());
        let anonymous = shared.anonymous_auth.load(Ordering::SeqCst);
        auth::authenticate(cert.as_deref(), req.header("authorization"), &shared.lock_auth(), anonymous)
    };
    let mut denied = false;
    let reply = match (&info, &identity) {
        (Err(e), _) => Reply::Full(request_info_error(req, e)),
        (_, None) => Reply::Full(error_response(status::unauthorized(), req.wants_pretty())),
        (Ok(info), Some(who)) => match authorize(shared, info, who, req.wants_pretty()) {
            Err(forbidden) => {
                denied = true;
                Reply::Full(forbidden)
            }
            Ok(()) => match shared.faults.take_failure(&req.method, &req.path) {
                Some(f) => Reply::Full(f.response()),
                None => routes::route(shared, req, who),
            },
        },
    };
    let code = match &reply {
        Reply::Full(r) => r.code,
        Reply::Watch(_) => 200,
    };
    shared.inspect.record(RequestRecord {
        method: req.method.clone(),
        path: req.path.clone(),
        query: req.raw_query.clone(),
        code,
        user: identity.map(|i| i.user).unwrap_or_default(),
        denied,
        body: String::from_utf8_lossy(&req.body[..req.body.len().min(MAX_RECORDED_BODY)]).into_owned(),
        at: Instant::now(),
    });
    let audit_id = clock::uuid();
    let date = clock::http_date(SystemTime::now());
    let stream = reader.get_mut();
    match reply {
        Reply::Full(resp) => {
            let truncate = shared.faults.take_truncate(&req.path);
            let written = http::write_response(stream, &resp, &audit_id, &date, truncate);
            if truncate {
                let _ = stream.sock.shutdown(Shutdown::Both);
                return false;
            }
            written.is_ok() && !req.close
        }
        Reply::Watch(spec) => matches!(watch::serve(shared, stream, &spec, &audit_id, &date), Ok(true)) && !req.close,
    }
}
