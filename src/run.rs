//! Wiring of the live scheduler: API client, watches, the scheduler thread's loop, API workers,
//! event recorder, leader election, serving and graceful shutdown.
//!
//! ```text
//!  watch-nodes ─┐                                   ┌─> api-worker-* (bind, status, evict) ─┐
//!  watch-pods  ─┼─> sync_channel<Input> ─> main loop┤                                       │
//!  watch-pcs   ─┤        ^     (Scheduler core)     └─> event-recorder                      │
//!  election    ─┘        └──────────── BindDone ────────────────────────────────────────────┘
//!  serve-10259 / serve-<port>: /healthz /livez /readyz /metrics /configz
//! ```

use crate::bind::{self, Job, WorkerContext};
use crate::config::SchedulerConfig;
use crate::election::{self, ElectionContext, ElectionStatus};
use crate::framework::plugins::PluginContext;
use crate::framework::Framework;
use crate::kube::api;
use crate::kube::client::{Client, ClientOptions};
use crate::kube::kubeconfig::RestConfig;
use crate::kube::watch::{spawn_watcher, Update, WatchSpec};
use crate::leader::{Elector, Timing};
use crate::logging::Line;
use crate::metrics::{names as m, Metrics};
use crate::rng::Rng;
use crate::scheduler::{Attempt, Change, Effect, Input, Scheduler, Settings};
use crate::serve::{self, auth, AllowPaths, Authorizer, FnCheck, HealthState};
use log::{error, info, warn};
use std::net::{IpAddr, SocketAddr};
use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc::{sync_channel, RecvTimeoutError, SyncSender};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

/// Everything `run` needs, already validated.
pub struct RunSettings {
    pub config: SchedulerConfig,
    /// The effective configuration as JSON for `/configz`.
    pub configz: String,
    pub rest: RestConfig,
    /// Credentials for TokenReview/SubjectAccessReview (`--authentication-kubeconfig` /
    /// `--authorization-kubeconfig`); the main client's when not given.
    pub authn_rest: Option<RestConfig>,
    pub authz_rest: Option<RestConfig>,
    pub bind_address: IpAddr,
    /// 0 disables the secure port.
    pub secure_port: u16,
    pub tls_cert_file: Option<PathBuf>,
    pub tls_key_file: Option<PathBuf>,
    /// Plain-HTTP listeners (`--port`, `healthzBindAddress`, `metricsBindAddress`).
    pub insecure_addrs: Vec<SocketAddr>,
    pub always_allow_paths: Vec<String>,
    pub hostname: String,
    pub api_workers: usize,
    /// `--known-scheduler-names`.
    pub known_scheduler_names: Vec<String>,
    /// `--warn-unserved-scheduler-names`.
    pub warn_unserved_scheduler_names: bool,
}

/// Why the scheduler stopped with an error (exit status 1).
#[derive(Debug)]
pub struct RunError(pub String);

impl std::fmt::Display for RunError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for RunError {}

/// Input channel capacity: watchers block (backpressure) when the scheduler falls behind. The
/// channel allocates (and touches) every slot up front and an `Input` is a few hundred bytes, so
/// this is ~0.5 MiB resident; a watch list page is one message, so 1024 is plenty.
const INPUT_QUEUE: usize = 1024;
/// How long a SIGTERM'd leader waits for in-flight binds before releasing the lease.
const SHUTDOWN_BIND_GRACE: Duration = Duration::from_millis(1400);

/// A random RFC 4122 version-4 UUID (leader identity suffix).
pub fn uuid_v4() -> String {
    let mut rng = Rng::from_os();
    let a = rng.next_u64().to_be_bytes();
    let b = rng.next_u64().to_be_bytes();
    let mut u = [0u8; 16];
    u[..8].copy_from_slice(&a);
    u[8..].copy_from_slice(&b);
    u[6] = (u[6] & 0x0f) | 0x40;
    u[8] = (u[8] & 0x3f) | 0x80;
    let h: Vec<String> = u.iter().map(|x| format!("{x:02x}")).collect();
    format!("{}-{}-{}-{}-{}", h[..4].concat(), h[4..6].concat(), h[6..8].concat(), h[8..10].concat(), h[10..].concat())
}

/// The machine's hostname (`os.Hostname()`), lowercased as kube components do for identities.
pub fn hostname() -> String {
    let mut buf = [0u8; 256];
    // SAFETY: gethostname writes at most `len` bytes into the buffer we own.
    let rc = unsafe { libc::gethostname(buf.as_mut_ptr() as *mut libc::c_char, buf.len()) };
    if rc == 0 {
        let end = buf.iter().position(|b| *b == 0).unwrap_or(buf.len());
        if let Ok(s) = std::str::from_utf8(&buf[..end]) {
            if !s.is_empty() {
                return s.to_lowercase();
            }
        }
    }
    std::env::var("HOSTNAME").unwrap_or_else(|_| "localhost".into())
}

fn client_options(cfg: &SchedulerConfig) -> ClientOptions {
    ClientOptions { qps: cfg.client_connection.qps, burst: cfg.client_connection.burst, ..Default::default() }
}

/// TokenReview / SubjectAccessReview through the API server.
struct ApiReviewer {
    authn: Client,
    authz: Client,
}

impl auth::Reviewer for ApiReviewer {
    fn token_review(&self, token: &str) -> Result<Option<auth::UserInfo>, String> {
        let body = serde_json::json!({"apiVersion": "authentication.k8s.io/v1", "kind": "TokenReview", "spec": {"token": token}});
        let resp: serde_json::Value =
            self.authn.create("/apis/authentication.k8s.io/v1/tokenreviews", &body).map_err(|e| e.to_string())?;
        let status = &resp["status"];
        if status["authenticated"].as_bool() != Some(true) {
            return Ok(None);
        }
        let user = &status["user"];
        Ok(Some(auth::UserInfo {
            username: user["username"].as_str().unwrap_or_default().to_string(),
            uid: user["uid"].as_str().unwrap_or_default().to_string(),
            groups: user["groups"]
                .as_array()
                .map(|g| g.iter().filter_map(|x| x.as_str().map(str::to_string)).collect())
                .unwrap_or_default(),
        }))
    }

    fn access_review(&self, user: &auth::UserInfo, verb: &str, path: &str) -> Result<bool, String> {
        let body = serde_json::json!({"apiVersion": "authorization.k8s.io/v1", "kind": "SubjectAccessReview",
            "spec": {"user": user.username, "uid": user.uid, "groups": user.groups,
                     "nonResourceAttributes": {"path": path, "verb": verb}}});
        let resp: serde_json::Value =
            self.authz.create("/apis/authorization.k8s.io/v1/subjectaccessreviews", &body).map_err(|e| e.to_string())?;
        Ok(resp["status"]["allowed"].as_bool() == Some(true))
    }
}

/// Environment variable overriding how long a watch may stay completely silent (no event, no
/// bookmark) before it is considered dead and reopened, in seconds (fractions allowed). The
/// default ([`WatchSpec::new`]) is 5 minutes: five times the API server's ~1-minute bookmark
/// period. Meant for tests and for networks whose middleboxes silently drop idle connections.
pub const WATCH_IDLE_TIMEOUT_ENV: &str = "EDGESCHED_WATCH_IDLE_TIMEOUT";

/// Parse [`WATCH_IDLE_TIMEOUT_ENV`]: `None` when unset; an error for anything but a positive
/// number of seconds.
pub fn parse_watch_idle_timeout(value: Option<&str>) -> Result<Option<Duration>, String> {
    let Some(v) = value.map(str::trim).filter(|v| !v.is_empty()) else { return Ok(None) };
    match v.parse::<f64>() {
        Ok(secs) if secs.is_finite() && secs > 0.0 && secs <= 86_400.0 => Ok(Some(Duration::from_secs_f64(secs))),
        _ => Err(format!("{WATCH_IDLE_TIMEOUT_ENV}={v:?}: expected a positive number of seconds (at most 86400)")),
    }
}

fn watch_into<T, F>(
    client: &Client,
    mut spec: WatchSpec,
    tx: SyncSender<Input>,
    stop: Arc<AtomicBool>,
    metrics: Metrics,
    idle_override: Option<Duration>,
    wrap: F,
) -> Result<(), RunError>
where
    T: serde::de::DeserializeOwned + crate::kube::watch::HasResourceVersion + Send + 'static,
    F: Fn(Change<T>) -> Input + Send + 'static,
{
    let name = spec.name;
    if let Some(idle) = idle_override {
        spec.idle_timeout = idle;
    }
    let seed = Rng::from_os().next_u64();
    spawn_watcher(client.clone(), spec, stop, seed, move |u: Update<T>| {
        let change = match u {
            Update::ListBegin => {
                metrics.inc(m::WATCH_RELISTS, &[name], 1.0);
                Change::ListBegin
            }
            Update::ListPage(items) => Change::ListPage(items),
            Update::ListDone { .. } => Change::ListDone,
            Update::Added(o) => Change::Added(o),
            Update::Modified(o) => Change::Modified(o),
            Update::Deleted(o) => Change::Deleted(o),
        };
        tx.send(wrap(change)).is_ok()
    })
    .map(|_| ())
    .map_err(|e| RunError(format!("starting {name} watcher: {e}")))
}

fn boxed<T>(c: Change<T>) -> Change<Box<T>> {
    match c {
        Change::ListBegin => Change::ListBegin,
        Change::ListPage(v) => Change::ListPage(v.into_iter().map(Box::new).collect()),
        Change::ListDone => Change::ListDone,
        Change::Added(o) => Change::Added(Box::new(o)),
        Change::Modified(o) => Change::Modified(Box::new(o)),
        Change::Deleted(o) => Change::Deleted(Box::new(o)),
    }
}

/// Run the scheduler until SIGTERM/SIGINT (Ok) or a fatal error such as lost leadership (Err).
pub fn run(s: RunSettings) -> Result<(), RunError> {
    let cfg = &s.config;
    let metrics = Metrics::new();
    let client = Client::new(&s.rest, &client_options(cfg)).map_err(|e| RunError(e.to_string()))?;
    let idle_override = parse_watch_idle_timeout(std::env::var(WATCH_IDLE_TIMEOUT_ENV).ok().as_deref()).map_err(RunError)?;
    if let Some(idle) = idle_override {
        info!("{}", Line::new("Watch idle timeout overridden").s("timeout", format!("{idle:?}")));
    }
    info!("{}", Line::new("Connecting to the API server").s("server", client.server()).s("origin", &s.rest.origin));

    let ctx = PluginContext::default();
    let profiles: Vec<Framework> =
        cfg.profiles.iter().map(|p| Framework::new(p, &ctx)).collect::<Result<_, _>>().map_err(|e| RunError(e.to_string()))?;
    for p in &profiles {
        info!("{}", Line::new("Profile ready").s("schedulerName", &p.scheduler_name).s("plugins", p.plugin_names().join(",")));
    }
    let settings = Settings {
        percentage_of_nodes_to_score: cfg.percentage_of_nodes_to_score,
        pod_initial_backoff: Duration::from_secs(cfg.pod_initial_backoff_seconds.max(0) as u64),
        pod_max_backoff: Duration::from_secs(cfg.pod_max_backoff_seconds.max(0) as u64),
        known_scheduler_names: s.known_scheduler_names.clone(),
        warn_unserved_scheduler_names: s.warn_unserved_scheduler_names,
    };
    let mut sched = Scheduler::new(profiles, &settings, metrics.clone(), Rng::from_os(), Instant::now());

    let (tx, rx) = sync_channel::<Input>(INPUT_QUEUE);
    let stop = Arc::new(AtomicBool::new(false));

    // Health state and serving.
    let synced = Arc::new(AtomicBool::new(false));
    let election_status = Arc::new(Mutex::new(ElectionStatus::default()));
    let leader_elect = cfg.leader_election.leader_elect;
    let watchdog = {
        let status = election_status.clone();
        Arc::new(FnCheck {
            name: "leaderElection",
            f: move || {
                if !leader_elect {
                    return Ok(());
                }
                let s = status.lock().map_err(|_| "poisoned".to_string())?;
                match (s.leading, s.lease_expiry) {
                    (true, Some(exp)) if Instant::now() > exp + election::WATCHDOG_TOLERANCE => {
                        Err("lease not renewed in time".into())
                    }
                    _ => Ok(()),
                }
            },
        }) as Arc<dyn serve::Check>
    };
    let sync_check = {
        let synced = synced.clone();
        Arc::new(FnCheck {
            name: "sched-handler-sync",
            f: move || if synced.load(Ordering::SeqCst) { Ok(()) } else { Err("caches not synced".into()) },
        }) as Arc<dyn serve::Check>
    };
    let health = Arc::new(HealthState {
        healthz: vec![watchdog.clone()],
        livez: vec![watchdog.clone()],
        readyz: vec![sync_check, watchdog],
        metrics: metrics.clone(),
        configz: Mutex::new(s.configz.clone()),
        shutting_down: AtomicBool::new(false),
    });
    let allow = AllowPaths(s.always_allow_paths.clone());
    if s.secure_port != 0 {
        let tls = serve::tls_config(s.tls_cert_file.as_deref(), s.tls_key_file.as_deref(), &s.hostname)
            .map_err(|e| RunError(e.to_string()))?;
        let listener =
            serve::bind(SocketAddr::new(s.bind_address, s.secure_port), Some(tls)).map_err(|e| RunError(e.to_string()))?;
        let authn = match &s.authn_rest {
            Some(r) => Client::new(r, &client_options(cfg)).map_err(|e| RunError(format!("--authentication-kubeconfig: {e}")))?,
            None => client.clone(),
        };
        let authz = match &s.authz_rest {
            Some(r) => Client::new(r, &client_options(cfg)).map_err(|e| RunError(format!("--authorization-kubeconfig: {e}")))?,
            None => client.clone(),
        };
        let authorizer: Arc<dyn Authorizer> = Arc::new(auth::Delegating::new(ApiReviewer { authn, authz }));
        serve::spawn(listener, health.clone(), authorizer, allow.clone(), serve::ServeLimits::default())
            .map_err(|e| RunError(e.to_string()))?;
    }
    for addr in &s.insecure_addrs {
        let listener = serve::bind(*addr, None).map_err(|e| RunError(e.to_string()))?;
        serve::spawn(listener, health.clone(), Arc::new(serve::AllowAll), allow.clone(), serve::ServeLimits::default())
            .map_err(|e| RunError(e.to_string()))?;
    }

    // API workers and the event recorder.
    let recorder =
        crate::recorder::spawn(client.clone(), s.hostname.clone(), metrics.clone()).map_err(|e| RunError(e.to_string()))?;
    let workers = bind::spawn_workers(
        s.api_workers,
        WorkerContext { client: client.clone(), scheduler: tx.clone(), events: recorder.clone(), metrics: metrics.clone() },
    )
    .map_err(|e| RunError(e.to_string()))?;

    // Watches: nodes, non-terminal pods, priority classes.
    watch_into::<api::Node, _>(
        &client,
        WatchSpec::new("nodes", "/api/v1/nodes"),
        tx.clone(),
        stop.clone(),
        metrics.clone(),
        idle_override,
        |c| Input::Node(boxed(c)),
    )?;
    let mut pods = WatchSpec::new("pods", "/api/v1/pods");
    pods.field_selector = Some("status.phase!=Succeeded,status.phase!=Failed".into());
    watch_into::<api::Pod, _>(&client, pods, tx.clone(), stop.clone(), metrics.clone(), idle_override, |c| Input::Pod(boxed(c)))?;
    watch_into::<api::PriorityClass, _>(
        &client,
        WatchSpec::new("priorityclasses", "/apis/scheduling.k8s.io/v1/priorityclasses"),
        tx.clone(),
        stop.clone(),
        metrics.clone(),
        idle_override,
        Input::PriorityClass,
    )?;
    watch_into::<api::PodDisruptionBudget, _>(
        &client,
        WatchSpec::new("poddisruptionbudgets", "/apis/policy/v1/poddisruptionbudgets"),
        tx.clone(),
        stop.clone(),
        metrics.clone(),
        idle_override,
        Input::PodDisruptionBudget,
    )?;
    watch_into::<api::PersistentVolumeClaim, _>(
        &client,
        WatchSpec::new("persistentvolumeclaims", "/api/v1/persistentvolumeclaims"),
        tx.clone(),
        stop.clone(),
        metrics.clone(),
        idle_override,
        Input::PersistentVolumeClaim,
    )?;
    watch_into::<api::PersistentVolume, _>(
        &client,
        WatchSpec::new("persistentvolumes", "/api/v1/persistentvolumes"),
        tx.clone(),
        stop.clone(),
        metrics.clone(),
        idle_override,
        Input::PersistentVolume,
    )?;
    watch_into::<api::StorageClass, _>(
        &client,
        WatchSpec::new("storageclasses", "/apis/storage.k8s.io/v1/storageclasses"),
        tx.clone(),
        stop.clone(),
        metrics.clone(),
        idle_override,
        Input::StorageClass,
    )?;
    watch_into::<api::CsiNode, _>(
        &client,
        WatchSpec::new("csinodes", "/apis/storage.k8s.io/v1/csinodes"),
        tx.clone(),
        stop.clone(),
        metrics.clone(),
        idle_override,
        Input::CsiNode,
    )?;
    watch_into::<api::Namespace, _>(
        &client,
        WatchSpec::new("namespaces", "/api/v1/namespaces"),
        tx.clone(),
        stop.clone(),
        metrics.clone(),
        idle_override,
        Input::Namespace,
    )?;
    watch_into::<api::Service, _>(
        &client,
        WatchSpec::new("services", "/api/v1/services"),
        tx.clone(),
        stop.clone(),
        metrics.clone(),
        idle_override,
        Input::Service,
    )?;
    watch_into::<api::ReplicationController, _>(
        &client,
        WatchSpec::new("replicationcontrollers", "/api/v1/replicationcontrollers"),
        tx.clone(),
        stop.clone(),
        metrics.clone(),
        idle_override,
        Input::ReplicationController,
    )?;
    watch_into::<api::ReplicaSet, _>(
        &client,
        WatchSpec::new("replicasets", "/apis/apps/v1/replicasets"),
        tx.clone(),
        stop.clone(),
        metrics.clone(),
        idle_override,
        Input::ReplicaSet,
    )?;
    watch_into::<api::StatefulSet, _>(
        &client,
        WatchSpec::new("statefulsets", "/apis/apps/v1/statefulsets"),
        tx.clone(),
        stop.clone(),
        metrics.clone(),
        idle_override,
        Input::StatefulSet,
    )?;
    sched.require_synced(&[
        "PodDisruptionBudget",
        "PersistentVolumeClaim",
        "PersistentVolume",
        "StorageClass",
        "CSINode",
        "Namespace",
        "Service",
        "ReplicationController",
        "ReplicaSet",
        "StatefulSet",
    ]);
    watch_into::<api::Lease, _>(
        &client,
        WatchSpec::new(
            "leases",
            format!("/apis/coordination.k8s.io/v1/namespaces/{}/leases", cfg.leader_election.resource_namespace),
        ),
        tx.clone(),
        stop.clone(),
        metrics.clone(),
        idle_override,
        Input::Lease,
    )?;

    // Leader election (or lead at once).
    let election_stop = Arc::new(AtomicBool::new(false));
    let released = Arc::new(AtomicBool::new(!leader_elect));
    let fatal: Arc<Mutex<Option<String>>> = Arc::new(Mutex::new(None));
    if leader_elect {
        let le = &cfg.leader_election;
        let identity = format!("{}_{}", s.hostname, uuid_v4());
        info!(
            "{}",
            Line::new("Leader election enabled")
                .s("identity", &identity)
                .s("lease", format!("{}/{}", le.resource_namespace, le.resource_name))
        );
        let timing =
            Timing { lease_duration: le.lease_duration.0, renew_deadline: le.renew_deadline.0, retry_period: le.retry_period.0 };
        // Its own client, as client-go's `resourcelock.NewFromKubeconfig`: every request bounded
        // by max(renewDeadline/2, 1s) and no retries inside the client (the election loop retries
        // every retryPeriod), so that a leader whose renewals fail or hang notices it within
        // renewDeadline instead of after the general client's 60 s timeout and 10 retries.
        let election_client = Client::new(
            &s.rest,
            &ClientOptions {
                request_timeout: (timing.renew_deadline / 2).max(Duration::from_secs(1)),
                max_retries: 0,
                user_agent: Some(format!("{}/leader-election", crate::kube::client::default_user_agent())),
                ..client_options(cfg)
            },
        )
        .map_err(|e| RunError(e.to_string()))?;
        let ectx = ElectionContext {
            client: election_client,
            elector: {
                let mut e = Elector::new(&identity, &le.resource_namespace, &le.resource_name, timing);
                e.scheduler_names = cfg.profiles.iter().map(|p| p.scheduler_name.clone()).collect();
                e
            },
            scheduler: tx.clone(),
            status: election_status.clone(),
            metrics: metrics.clone(),
            stop: election_stop.clone(),
            released: released.clone(),
            component: cfg.profiles.first().map(|p| p.scheduler_name.clone()).unwrap_or_else(|| "edgesched".into()),
            hostname: s.hostname.clone(),
        };
        let (fatal2, tx2) = (fatal.clone(), tx.clone());
        std::thread::Builder::new()
            .name("leader-election".into())
            .spawn(move || {
                if let Err(e) = election::run(ectx) {
                    if let Ok(mut f) = fatal2.lock() {
                        *f = Some(e);
                    }
                    let _ = tx2.send(Input::Leading(false));
                }
            })
            .map_err(|e| RunError(e.to_string()))?;
    } else {
        // Directly, not through the channel: the watchers may already have filled it, and this
        // thread is its only consumer.
        sched.handle(Input::Leading(true), Instant::now());
    }
    drop(tx);

    // The scheduler loop.
    let mut shutdown_deadline: Option<Instant> = None;
    let mut was_synced = false;
    let mut last_tick = Instant::now();
    loop {
        if last_tick.elapsed() >= Duration::from_secs(1) {
            last_tick = Instant::now();
            sched.tick(last_tick, std::time::SystemTime::now());
            dispatch(&mut sched, &workers, &recorder);
        }
        if let Some(reason) = fatal.lock().ok().and_then(|f| f.clone()) {
            stop.store(true, Ordering::SeqCst);
            return Err(RunError(reason));
        }
        if crate::signals::terminating() && shutdown_deadline.is_none() {
            info!("{}", Line::new("Received termination signal; stopping scheduling, finishing in-flight binds"));
            health.shutting_down.store(true, Ordering::SeqCst);
            sched.handle(Input::Leading(false), Instant::now());
            shutdown_deadline = Some(Instant::now() + SHUTDOWN_BIND_GRACE);
            crate::sdnotify::notify("STOPPING=1");
        }
        if let Some(deadline) = shutdown_deadline {
            if workers.pending() == 0 || Instant::now() >= deadline {
                if workers.pending() > 0 {
                    warn!("{}", Line::new("Exiting with binds still in flight").n("count", workers.pending()));
                }
                election_stop.store(true, Ordering::SeqCst);
                let wait_release = Instant::now() + Duration::from_millis(500);
                while !released.load(Ordering::SeqCst) && Instant::now() < wait_release {
                    std::thread::sleep(Duration::from_millis(10));
                }
                stop.store(true, Ordering::SeqCst);
                info!("{}", Line::new("Shutdown complete"));
                return Ok(());
            }
        }

        // Drain what has arrived (bounded, so scheduling keeps going under a flood of events).
        let mut drained = 0;
        while drained < 1024 {
            match rx.try_recv() {
                Ok(input) => {
                    sched.handle(input, Instant::now());
                    drained += 1;
                }
                Err(_) => break,
            }
        }
        if !was_synced && sched.caches_synced() {
            was_synced = true;
            synced.store(true, Ordering::SeqCst);
            crate::sdnotify::notify("READY=1");
            info!("{}", Line::new("Caches are synced").n("nodes", sched.cache().num_nodes()).n("pods", sched.cache().num_pods()));
        }
        dispatch(&mut sched, &workers, &recorder);

        if shutdown_deadline.is_none() && sched.has_work() {
            let start = Instant::now();
            if let Some((attempt, _)) = sched.schedule_one(start, false) {
                let elapsed = start.elapsed().as_secs_f64();
                metrics.observe(m::ALGORITHM_DURATION, &[], elapsed);
                match &attempt {
                    Attempt::Unschedulable { .. } | Attempt::Error { .. } => {
                        let result = if matches!(attempt, Attempt::Error { .. }) { "error" } else { "unschedulable" };
                        let profile = profile_of(&sched, &attempt);
                        metrics.inc(m::SCHEDULE_ATTEMPTS, &[result, &profile], 1.0);
                        metrics.observe(m::ATTEMPT_DURATION, &[result, &profile], elapsed);
                    }
                    Attempt::Scheduled { .. } | Attempt::Skipped { .. } => {}
                }
            }
            dispatch(&mut sched, &workers, &recorder);
            continue;
        }

        let now = Instant::now();
        let wait = sched
            .next_wakeup(now)
            .map(|t| t.saturating_duration_since(now))
            .unwrap_or(Duration::from_secs(1))
            .min(Duration::from_millis(200));
        match rx.recv_timeout(wait.max(Duration::from_millis(1))) {
            Ok(input) => sched.handle(input, Instant::now()),
            Err(RecvTimeoutError::Timeout) => {}
            Err(RecvTimeoutError::Disconnected) => {
                error!("{}", Line::new("All event sources stopped"));
                return Err(RunError("all watches stopped".into()));
            }
        }
    }
}

fn profile_of(sched: &Scheduler, attempt: &Attempt) -> String {
    let key = match attempt {
        Attempt::Scheduled { pod, .. }
        | Attempt::Unschedulable { pod, .. }
        | Attempt::Error { pod, .. }
        | Attempt::Skipped { pod } => pod,
    };
    sched.queue().get(key).map(|q| q.pod.scheduler_name.to_string()).unwrap_or_default()
}

fn dispatch(sched: &mut Scheduler, workers: &bind::Workers, recorder: &crate::recorder::Recorder) {
    for effect in sched.take_effects() {
        match effect {
            Effect::Bind(b) => workers.submit(Job::Bind(b)),
            Effect::PatchStatus(p) => workers.submit(Job::PatchStatus(p)),
            Effect::Event(e) => recorder.record(e),
            Effect::Evict { namespace, name, uid, preemptor_uid, node, profile } => {
                workers.submit(Job::Evict { namespace, name, uid, preemptor_uid, node, profile })
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn watch_idle_timeout_override_parses_positive_seconds() {
        assert_eq!(parse_watch_idle_timeout(None), Ok(None));
        assert_eq!(parse_watch_idle_timeout(Some(" ")), Ok(None));
        assert_eq!(parse_watch_idle_timeout(Some("3")), Ok(Some(Duration::from_secs(3))));
        assert_eq!(parse_watch_idle_timeout(Some("0.5")), Ok(Some(Duration::from_millis(500))));
        for bad in ["0", "-1", "soon", "inf", "NaN", "100000"] {
            assert!(parse_watch_idle_timeout(Some(bad)).is_err(), "{bad}");
        }
    }

    #[test]
    fn uuids_are_version_4() {
        let u = uuid_v4();
        assert_eq!(u.len(), 36);
        assert_eq!(&u[14..15], "4");
        assert!(matches!(&u[19..20], "8" | "9" | "a" | "b"));
        assert_ne!(uuid_v4(), u);
    }
}
