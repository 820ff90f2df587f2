//! Wiring of the live scheduler: API client, watches, the scheduler thread's loop, API workers,
//! event recorder, leader election, serving and graceful shutdown.
//!
//! ```text
//!  watch-nodes ─┐                                   ┌─> api-worker-* (bind, status, evict) ─┐
//!  watch-pods  ─┼─> sync_channel<Input> ─> main loop┤                                       │
//!  watch-pcs   ─┤        ^     (Scheduler core)     └─> event-recorder                      │
//!  election    ─┘        └─────────── BindsDone (batched) ──────────────────────────────────┘
//!  serve-10259 / serve-<port>: /healthz /livez /readyz /metrics /configz
//! ```

use crate::core::config::SchedulerConfig;
use crate::core::extender::{ExtenderSet, ExtenderTransport};
use crate::core::framework::cycle::Explain;
use crate::core::framework::plugins::PluginContext;
use crate::core::framework::{Framework, ProfileError};
use crate::core::lease::{Elector, Timing};
use crate::core::logging::Line;
use crate::core::metrics::{names as m, Metrics};
use crate::core::rng::Rng;
use crate::core::scheduler::{Attempt, Effect, Input, Scheduler, Settings, NOMINATED_NODE_NAME_FOR_EXPECTATION};
use crate::core::watched::{kinds_read_by, KindId, WatchedKind};
use crate::shell::daemon::api_workers::{self, BindResults, Job, WorkerContext};
use crate::shell::daemon::event_recorder;
use crate::shell::daemon::informers::{self, EnvError, Informers, StartError};
use crate::shell::daemon::leader_election::{self, ElectionContext, ElectionStatus, LeadershipLost};
use crate::shell::daemon::permissions::{Denials, Usage};
use crate::shell::kube::client::{Client, ClientInitError, ClientOptions};
use crate::shell::kube::decode::TURN;
use crate::shell::kube::kubeconfig::RestConfig;
use crate::shell::process::clock::SystemClock;
use crate::shell::serving::{self, auth, AllowPaths, Authorizer, FnCheck, HealthState, ServeError};
use std::net::{IpAddr, SocketAddr};
use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc::{sync_channel, Receiver, RecvTimeoutError, SyncSender};
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
    /// Most API worker threads at once (the pool grows to this under load, see [`api_workers`]).
    pub api_workers: usize,
    /// `--known-scheduler-names`.
    pub known_scheduler_names: Vec<String>,
    /// `--warn-unserved-scheduler-names`.
    pub warn_unserved_scheduler_names: bool,
    /// The registry, shaped by the metrics flags.
    pub metrics: Metrics,
    /// `--pod-max-in-unschedulable-pods-duration`.
    pub pod_max_in_unschedulable: Option<Duration>,
    /// `--tls-min-version`, `--tls-cipher-suites`.
    pub tls_policy: serving::TlsPolicy,
    /// `--permit-port-sharing`: `SO_REUSEPORT` on the secure port.
    pub permit_port_sharing: bool,
    /// `--tls-sni-cert-key`.
    pub sni_cert_keys: Vec<serving::sni::NamedCertKey>,
    /// `--feature-gates`.
    pub feature_gates: crate::core::features::FeatureGates,
    /// `--client-ca-file` and `--requestheader-*`, loaded.
    pub client_auth: Option<Arc<serving::client_cert::ClientAuth>>,
    /// `--cert-dir` (used when no `--tls-cert-file` is given).
    pub cert_dir: Option<PathBuf>,
    /// How long review answers are cached.
    pub cache_ttls: auth::CacheTtls,
}

/// Why the scheduler stopped with an error (exit status 1). Each variant names the part of the
/// setup or the run that failed, so the log line tells the operator what to fix.
#[derive(Debug)]
pub enum RunError {
    /// An API client could not be created; `connection` names which one (the flag it comes
    /// from, or its purpose).
    Client { connection: &'static str, source: ClientInitError },
    /// An environment override holds something unusable.
    Environment(EnvError),
    /// The health and metrics endpoints could not be served.
    Serving(ServeError),
    /// A profile's plugins could not be built from the configuration.
    Profile(ProfileError),
    /// A thread could not be started (the system is out of threads or memory).
    Thread { name: &'static str, source: std::io::Error },
    /// A watcher thread could not be started.
    Watcher(StartError),
    /// Leadership was lost; a restart makes this instance a candidate again.
    LeadershipLost(LeadershipLost),
    /// Every source of input (watches, leader election) stopped.
    InputsClosed,
    /// An extender's HTTP client could not be built (its TLS material).
    Extender(crate::shell::extender_client::ExtenderClientError),
}

impl std::fmt::Display for RunError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            RunError::Client { connection, source } => write!(f, "{connection}: {source}"),
            RunError::Environment(e) => e.fmt(f),
            RunError::Serving(e) => e.fmt(f),
            RunError::Profile(e) => e.fmt(f),
            RunError::Thread { name, source } => write!(f, "starting the {name} thread: {source}"),
            RunError::Watcher(e) => e.fmt(f),
            RunError::LeadershipLost(e) => e.fmt(f),
            RunError::InputsClosed => f.write_str("all watches stopped"),
            RunError::Extender(e) => e.fmt(f),
        }
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

fn client_options(cfg: &SchedulerConfig, metrics: &Metrics) -> ClientOptions {
    ClientOptions {
        qps: cfg.client_connection.qps,
        burst: cfg.client_connection.burst,
        metrics: Some(metrics.clone()),
        ..Default::default()
    }
}

/// TokenReview / SubjectAccessReview through the API server.
struct ApiReviewer {
    authn: Client,
    authz: Client,
    metrics: Metrics,
}

impl ApiReviewer {
    /// Create a review, counting it as apiserver's delegated authn/authz metrics do: the HTTP
    /// code of the answer (201 for a created review), `<error>` when none arrived.
    fn review(
        &self,
        client: &Client,
        path: &str,
        body: &serde_json::Value,
        names: (&str, &str),
    ) -> Result<serde_json::Value, String> {
        let start = Instant::now();
        let result: Result<serde_json::Value, _> = client.create(path, body);
        let code = match &result {
            Ok(_) => "201".to_string(),
            Err(e) => e.code().map_or_else(|| "<error>".to_string(), |c| c.to_string()),
        };
        self.metrics.inc(names.0, &[&code], 1.0);
        self.metrics.observe(names.1, &[&code], start.elapsed().as_secs_f64());
        result.map_err(|e| e.to_string())
    }
}

impl auth::Reviewer for ApiReviewer {
    fn token_review(&self, token: &str) -> Result<Option<auth::UserInfo>, String> {
        let body = serde_json::json!({"apiVersion": "authentication.k8s.io/v1", "kind": "TokenReview", "spec": {"token": token}});
        let resp = self.review(
            &self.authn,
            "/apis/authentication.k8s.io/v1/tokenreviews",
            &body,
            (m::DELEGATED_AUTHN_REQUESTS, m::DELEGATED_AUTHN_DURATION),
        )?;
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
            extra: serde_json::from_value(user["extra"].clone()).unwrap_or_default(),
        }))
    }

    fn access_review(&self, user: &auth::UserInfo, verb: &str, path: &str) -> Result<bool, String> {
        let body = serde_json::json!({"apiVersion": "authorization.k8s.io/v1", "kind": "SubjectAccessReview",
            "spec": {"user": user.username, "uid": user.uid, "groups": user.groups, "extra": user.extra,
                     "nonResourceAttributes": {"path": path, "verb": verb}}});
        let resp = self.review(
            &self.authz,
            "/apis/authorization.k8s.io/v1/subjectaccessreviews",
            &body,
            (m::DELEGATED_AUTHZ_REQUESTS, m::DELEGATED_AUTHZ_DURATION),
        )?;
        Ok(resp["status"]["allowed"].as_bool() == Some(true))
    }
}

/// Shared state the health endpoints read.
struct Health {
    state: Arc<HealthState>,
    synced: Arc<AtomicBool>,
    /// While not synced: the kinds scheduling still waits for.
    waiting_for: Arc<Mutex<String>>,
}

/// The health checks: `sched-handler-sync` (with the kinds still missing), `api-permissions`
/// (required permissions the API server denies, named) and the leader-election watchdog (with a
/// note saying whether this process leads or stands by, and for whom).
fn health_checks(s: &RunSettings, metrics: &Metrics, election: &Arc<Mutex<ElectionStatus>>, denials: &Arc<Denials>) -> Health {
    let cfg = &s.config;
    let leader_elect = cfg.leader_election.leader_elect;
    let lock = format!("{}/{}", cfg.leader_election.resource_namespace, cfg.leader_election.resource_name);
    let watchdog = {
        let status = election.clone();
        Arc::new(FnCheck {
            name: "leaderElection",
            shows_reason: false,
            f: move || {
                if !leader_elect {
                    return Ok(None);
                }
                status.lock().map_err(|_| "poisoned".to_string())?.check(&lock, Instant::now())
            },
        }) as Arc<dyn serving::Check>
    };
    let synced = Arc::new(AtomicBool::new(false));
    let waiting_for = Arc::new(Mutex::new(String::new()));
    let sync_check = {
        let (synced, waiting_for) = (synced.clone(), waiting_for.clone());
        Arc::new(FnCheck {
            name: "sched-handler-sync",
            shows_reason: true,
            f: move || {
                if synced.load(Ordering::SeqCst) {
                    return Ok(None);
                }
                let waiting = waiting_for.lock().map(|w| w.clone()).unwrap_or_default();
                Err(format!("caches not synced: waiting for {waiting}"))
            },
        }) as Arc<dyn serving::Check>
    };
    let permissions_check = {
        let denials = denials.clone();
        Arc::new(FnCheck {
            name: "api-permissions",
            shows_reason: true,
            f: move || {
                let off = denials.optional_off();
                let off = (!off.is_empty()).then(|| format!("optional features off: {}", off.join("; ")));
                match denials.check_required() {
                    Ok(()) => Ok(off),
                    Err(required) => Err(match off {
                        Some(off) => format!("{required} ({off})"),
                        None => required,
                    }),
                }
            },
        }) as Arc<dyn serving::Check>
    };
    let state = Arc::new(HealthState {
        healthz: vec![watchdog.clone()],
        livez: vec![watchdog.clone()],
        readyz: vec![sync_check, permissions_check, watchdog],
        metrics: metrics.clone(),
        configz: Mutex::new(s.configz.clone()),
        shutting_down: AtomicBool::new(false),
    });
    Health { state, synced, waiting_for }
}

/// The secure port (HTTPS, delegated authentication and authorization through the API server)
/// and any plain-HTTP ports.
fn start_serving(s: &RunSettings, client: &Client, health: &Arc<HealthState>) -> Result<(), RunError> {
    let cfg = &s.config;
    let allow = AllowPaths(s.always_allow_paths.clone());
    if s.secure_port != 0 {
        let generated = match (&s.cert_dir, &s.tls_cert_file, &s.tls_key_file) {
            (Some(dir), None, None) => Some(serving::cert_dir_pair(dir, &s.hostname).map_err(RunError::Serving)?),
            _ => None,
        };
        let (cert, key) = match &generated {
            Some((c, k)) => (Some(c.as_path()), Some(k.as_path())),
            None => (s.tls_cert_file.as_deref(), s.tls_key_file.as_deref()),
        };
        let tls = serving::tls_config(cert, key, &s.hostname, &s.tls_policy, s.client_auth.as_deref(), &s.sni_cert_keys)
            .map_err(RunError::Serving)?;
        let listener = serving::bind(SocketAddr::new(s.bind_address, s.secure_port), Some(tls), s.permit_port_sharing)
            .map_err(RunError::Serving)?
            .with_client_auth(s.client_auth.clone());
        let side_client = |rest: &Option<RestConfig>, connection: &'static str| match rest {
            Some(r) => {
                Client::new(r, &client_options(cfg, &health.metrics)).map_err(|source| RunError::Client { connection, source })
            }
            None => Ok(client.clone()),
        };
        let authn = side_client(&s.authn_rest, "--authentication-kubeconfig")?;
        let authz = side_client(&s.authz_rest, "--authorization-kubeconfig")?;
        let reviewer = ApiReviewer { authn, authz, metrics: health.metrics.clone() };
        let authorizer: Arc<dyn Authorizer> =
            Arc::new(auth::Delegating::new(reviewer).with_metrics(health.metrics.clone()).with_ttls(s.cache_ttls));
        serving::spawn(listener, health.clone(), authorizer, allow.clone(), serving::ServeLimits::default())
            .map_err(|source| RunError::Thread { name: "serving", source })?;
    }
    for addr in &s.insecure_addrs {
        let listener = serving::bind(*addr, None, false).map_err(RunError::Serving)?;
        serving::spawn(listener, health.clone(), Arc::new(serving::AllowAll), allow.clone(), serving::ServeLimits::default())
            .map_err(|source| RunError::Thread { name: "serving", source })?;
    }
    Ok(())
}

/// Leader election on its own thread (its own client, as client-go's resource lock), or leading
/// at once when it is off.
#[allow(clippy::too_many_arguments)]
fn start_election(
    s: &RunSettings,
    sched: &mut Scheduler,
    tx: &SyncSender<Input>,
    metrics: &Metrics,
    status: &Arc<Mutex<ElectionStatus>>,
    denials: &Arc<Denials>,
    fatal: &Arc<Mutex<Option<LeadershipLost>>>,
) -> Result<Election, RunError> {
    let cfg = &s.config;
    let stop = Arc::new(AtomicBool::new(false));
    if !cfg.leader_election.leader_elect {
        // Directly, not through the channel: the watchers may already have filled it, and this
        // thread is its only consumer.
        sched.handle(Input::Leading(true), Instant::now());
        return Ok(Election { stop, released: Arc::new(AtomicBool::new(true)) });
    }
    let le = &cfg.leader_election;
    let identity = format!("{}_{}", s.hostname, uuid_v4());
    Line::new("Leader election enabled")
        .s("identity", &identity)
        .s("lease", format!("{}/{}", le.resource_namespace, le.resource_name))
        .info();
    let timing =
        Timing { lease_duration: le.lease_duration.0, renew_deadline: le.renew_deadline.0, retry_period: le.retry_period.0 };
    // Its own client, as client-go's `resourcelock.NewFromKubeconfig`: every request bounded by
    // max(renewDeadline/2, 1s) and no retries inside the client (the election loop retries every
    // retryPeriod), so that a leader whose renewals fail or hang notices it within renewDeadline
    // instead of after the general client's 60 s timeout and 10 retries.
    let client = Client::new(
        &s.rest,
        &ClientOptions {
            request_timeout: (timing.renew_deadline / 2).max(Duration::from_secs(1)),
            max_retries: 0,
            user_agent: Some(format!("{}/leader-election", crate::shell::kube::client::default_user_agent())),
            ..client_options(cfg, metrics)
        },
    )
    .map_err(|source| RunError::Client { connection: "leader election", source })?;
    let names: Vec<String> = cfg.profiles.iter().map(|p| p.scheduler_name.clone()).collect();
    let released = Arc::new(AtomicBool::new(false));
    let ctx = ElectionContext {
        store: Box::new(leader_election::ApiLeases {
            client,
            namespace: le.resource_namespace.clone(),
            name: le.resource_name.clone(),
        }),
        clock: Box::new(SystemClock),
        rng_seed: Rng::from_os().next_u64(),
        elector: {
            let mut e = Elector::new(&identity, &le.resource_namespace, &le.resource_name, timing);
            e.scheduler_names = names.clone();
            e
        },
        scheduler: tx.clone(),
        status: status.clone(),
        metrics: metrics.clone(),
        stop: stop.clone(),
        released: released.clone(),
        component: names.first().cloned().unwrap_or_else(|| "edgesched".into()),
        hostname: s.hostname.clone(),
        denials: denials.clone(),
        lease_conflict: crate::core::lease::default_lease_conflict(le, &names),
    };
    let (fatal, tx) = (fatal.clone(), tx.clone());
    std::thread::Builder::new()
        .name("leader-election".into())
        .spawn(move || {
            if let Err(e) = leader_election::run(ctx) {
                if let Ok(mut f) = fatal.lock() {
                    *f = Some(e);
                }
                let _ = tx.send(Input::Leading(false));
            }
        })
        .map_err(|source| RunError::Thread { name: "leader election", source })?;
    Ok(Election { stop, released })
}

/// Handles to stop the election thread and learn when it has released the lease.
struct Election {
    stop: Arc<AtomicBool>,
    released: Arc<AtomicBool>,
}

/// Run the scheduler until SIGTERM/SIGINT (Ok) or a fatal error such as lost leadership (Err).
pub fn run(s: RunSettings) -> Result<(), RunError> {
    let cfg = &s.config;
    let metrics = s.metrics.clone();
    metrics.set_build_info(env!("CARGO_PKG_VERSION"), &crate::shell::kube::client::platform());
    // component-base featuregate: one sample per gate, 1 when enabled.
    for (name, stage, on) in s.feature_gates.metric_rows() {
        metrics.set(m::FEATURE_ENABLED, &[name, stage], if on { 1.0 } else { 0.0 });
    }
    let client = Client::new(&s.rest, &client_options(cfg, &metrics))
        .map_err(|source| RunError::Client { connection: "API server", source })?;
    let idle_override = informers::parse_watch_idle_timeout(std::env::var(informers::WATCH_IDLE_TIMEOUT_ENV).ok().as_deref())
        .map_err(RunError::Environment)?;
    if let Some(idle) = idle_override {
        Line::new("Watch idle timeout overridden").s("timeout", format!("{idle:?}")).info();
    }
    let optional_retry = informers::parse_seconds_env(
        informers::FORBIDDEN_RETRY_ENV,
        std::env::var(informers::FORBIDDEN_RETRY_ENV).ok().as_deref(),
    )
    .map_err(RunError::Environment)?
    .unwrap_or(informers::OPTIONAL_FORBIDDEN_RETRY);
    if let Some(t) = informers::parse_seconds_env(GANG_TIMEOUT_ENV, std::env::var(GANG_TIMEOUT_ENV).ok().as_deref())
        .map_err(RunError::Environment)?
    {
        crate::core::framework::plugins::gang_scheduling::set_scheduling_timeout(t);
        Line::new("Gang scheduling timeout overridden").s("timeout", format!("{t:?}")).info();
    }
    Line::new("Connecting to the API server").s("server", client.server()).s("origin", &s.rest.origin).info();

    let extenders = extender_transport(cfg)?;
    let mut sched = build_scheduler(cfg, &s, &metrics, extenders.clone())?;
    let (tx, rx) = sync_channel::<Input>(INPUT_QUEUE);
    let stop = Arc::new(AtomicBool::new(false));
    let denials = Arc::new(Denials::default());
    let election_status = Arc::new(Mutex::new(ElectionStatus::default()));
    let health = health_checks(&s, &metrics, &election_status, &denials);
    start_serving(&s, &client, &health.state)?;

    // API workers and the event recorder. Events get their own client, hence their own rate
    // limiter with the same qps/burst, as kube-scheduler's `eventClient`
    // (cmd/kube-scheduler/app/options/options.go, createClients).
    let event_client = Client::new(&s.rest, &client_options(cfg, &metrics))
        .map_err(|source| RunError::Client { connection: "events", source })?;
    let flush_budget = informers::parse_seconds_env(
        event_recorder::FLUSH_BUDGET_ENV,
        std::env::var(event_recorder::FLUSH_BUDGET_ENV).ok().as_deref(),
    )
    .map_err(RunError::Environment)?
    .unwrap_or(event_recorder::DEFAULT_FLUSH_BUDGET);
    let recorder = event_recorder::spawn(event_client, s.hostname.clone(), metrics.clone(), denials.clone())
        .map_err(|source| RunError::Thread { name: "event recorder", source })?;
    let bind_results = Arc::new(BindResults::new(tx.clone()));
    let workers = api_workers::spawn_workers(
        s.api_workers,
        WorkerContext {
            client: client.clone(),
            done: bind_results.clone(),
            events: recorder.clone(),
            metrics: metrics.clone(),
            denials: denials.clone(),
            clock: Arc::new(SystemClock),
            stop: stop.clone(),
            extenders,
            status_writes: Default::default(),
        },
    )
    .map_err(|source| RunError::Thread { name: "API worker", source })?;

    // One informer per kind the profiles read; scheduling waits for all of them.
    let informers = Informers {
        client: client.clone(),
        tx: tx.clone(),
        stop: stop.clone(),
        metrics: metrics.clone(),
        idle_override,
        optional_retry,
        denials: denials.clone(),
        lease_namespace: cfg.leader_election.resource_namespace.clone(),
    };
    let usage = Usage::of_profiles(sched.profiles(), s.secure_port != 0);
    let kinds: Vec<&'static WatchedKind> = kinds_read_by(&usage.plugins).collect();
    sched.watch_kinds(&kinds.iter().map(|k| k.id).collect::<Vec<KindId>>());
    for kind in kinds {
        informers.start(kind).map_err(RunError::Watcher)?;
    }

    let fatal: Arc<Mutex<Option<LeadershipLost>>> = Arc::new(Mutex::new(None));
    let election = start_election(&s, &mut sched, &tx, &metrics, &election_status, &denials, &fatal)?;
    drop(tx);
    let parts = LoopParts {
        workers: &workers,
        bind_results: &bind_results,
        recorder: &recorder,
        flush_budget,
        metrics: &metrics,
        health: &health,
        stop: &stop,
        fatal: &fatal,
    };
    main_loop(&mut sched, &rx, &parts, &election)
}

/// The HTTP clients of the configured extenders (`None` without extenders).
fn extender_transport(cfg: &SchedulerConfig) -> Result<Option<Arc<dyn ExtenderTransport>>, RunError> {
    if cfg.extenders.is_empty() {
        return Ok(None);
    }
    for e in &cfg.extenders {
        Line::new("Creating extender").s("extender", &e.url_prefix).info();
    }
    crate::shell::extender_client::transport_for(cfg).map_err(RunError::Extender)
}

/// Environment variable replacing how long gang pods wait at Permit for their quorum (upstream's
/// `DefaultSchedulingTimeoutDuration`, 5 minutes, a variable upstream exports for tests), in
/// seconds. Meant for tests.
pub const GANG_TIMEOUT_ENV: &str = "EDGESCHED_GANG_SCHEDULING_TIMEOUT";

/// The profiles and the scheduler core.
fn build_scheduler(
    cfg: &SchedulerConfig,
    s: &RunSettings,
    metrics: &Metrics,
    extenders: Option<Arc<dyn ExtenderTransport>>,
) -> Result<Scheduler, RunError> {
    let ctx = PluginContext { features: s.feature_gates.clone(), ..PluginContext::default() };
    let mut profile_configs = cfg.profiles.clone();
    crate::core::config::v1::apply_feature_gates(&mut profile_configs, &s.feature_gates);
    crate::core::extender::apply_ignored_resources(&cfg.extenders, &mut profile_configs);
    let profiles: Vec<Framework> =
        profile_configs.iter().map(|p| Framework::new(p, &ctx)).collect::<Result<_, _>>().map_err(RunError::Profile)?;
    for p in &profiles {
        Line::new("Profile ready").s("schedulerName", &p.scheduler_name).s("plugins", p.plugin_names().join(",")).info();
    }
    let settings = Settings {
        percentage_of_nodes_to_score: cfg.percentage_of_nodes_to_score,
        pod_initial_backoff: Duration::from_secs(cfg.pod_initial_backoff_seconds.max(0) as u64),
        pod_max_backoff: Duration::from_secs(cfg.pod_max_backoff_seconds.max(0) as u64),
        known_scheduler_names: s.known_scheduler_names.clone(),
        warn_unserved_scheduler_names: s.warn_unserved_scheduler_names,
    };
    let mut sched = Scheduler::new(profiles, &settings, metrics.clone(), Rng::from_os(), Instant::now());
    sched.set_extenders(extenders.and_then(|t| ExtenderSet::new(&cfg.extenders, t)));
    sched.set_ticker(Box::new(SystemClock));
    if let Some(d) = s.pod_max_in_unschedulable {
        sched.set_max_in_unschedulable(d);
    }
    sched.set_pop_from_backoff(s.feature_gates.enabled("SchedulerPopFromBackoffQ"));
    sched.set_nominated_node_name_for_expectation(s.feature_gates.enabled(NOMINATED_NODE_NAME_FOR_EXPECTATION));
    sched.set_request_gates(crate::core::model::RequestGates::from_features(&s.feature_gates));
    Ok(sched)
}

/// What the scheduler loop drives besides the core.
struct LoopParts<'a> {
    workers: &'a api_workers::Workers,
    /// Finished binds, taken when their wake-up arrives.
    bind_results: &'a BindResults,
    recorder: &'a event_recorder::Recorder,
    /// How long shutdown writes queued events.
    flush_budget: Duration,
    metrics: &'a Metrics,
    health: &'a Health,
    stop: &'a Arc<AtomicBool>,
    fatal: &'a Arc<Mutex<Option<LeadershipLost>>>,
}

/// The scheduler thread: feed inputs to the core, schedule, hand effects to the workers, and
/// shut down gracefully on SIGTERM.
fn main_loop(sched: &mut Scheduler, rx: &Receiver<Input>, p: &LoopParts<'_>, election: &Election) -> Result<(), RunError> {
    let mut shutdown_deadline: Option<Instant> = None;
    let mut was_synced = false;
    let mut last_tick = Instant::now();
    loop {
        let binds_queued = p.workers.unstall(Instant::now());
        if last_tick.elapsed() >= Duration::from_secs(1) {
            last_tick = Instant::now();
            sched.tick(last_tick, std::time::SystemTime::now());
            dispatch(sched, p.workers, p.recorder);
        }
        if let Some(reason) = p.fatal.lock().ok().and_then(|f| f.clone()) {
            p.stop.store(true, Ordering::SeqCst);
            return Err(RunError::LeadershipLost(reason));
        }
        if crate::shell::process::signals::terminating() && shutdown_deadline.is_none() {
            Line::new("Received termination signal; stopping scheduling, finishing in-flight binds").info();
            p.health.state.shutting_down.store(true, Ordering::SeqCst);
            sched.handle(Input::Leading(false), Instant::now());
            shutdown_deadline = Some(Instant::now() + SHUTDOWN_BIND_GRACE);
            crate::shell::process::sdnotify::notify("STOPPING=1");
        }
        if let Some(deadline) = shutdown_deadline {
            if p.workers.pending() == 0 || Instant::now() >= deadline {
                if p.workers.pending() > 0 {
                    Line::new("Exiting with binds still in flight").n("count", p.workers.pending()).warning();
                }
                election.stop.store(true, Ordering::SeqCst);
                crate::shell::process::clock::wait_for(&SystemClock, Duration::from_millis(500), || {
                    election.released.load(Ordering::SeqCst)
                });
                // After the Lease is released (a standby need not wait for our events): the
                // events of the binds just finished, and whatever else is queued.
                p.recorder.flush(p.flush_budget);
                p.stop.store(true, Ordering::SeqCst);
                Line::new("Shutdown complete").info();
                return Ok(());
            }
        }

        // Drain what has arrived (bounded, so scheduling keeps going under a flood of events).
        let mut drained = 0;
        while drained < 1024 {
            match rx.try_recv() {
                Ok(input) => {
                    handle(sched, input, p.bind_results);
                    drained += 1;
                }
                Err(_) => break,
            }
        }
        if !was_synced {
            if sched.caches_synced() {
                was_synced = true;
                p.health.synced.store(true, Ordering::SeqCst);
                crate::shell::process::sdnotify::notify("READY=1");
                Line::new("Caches are synced").n("nodes", sched.cache().num_nodes()).n("pods", sched.cache().num_pods()).info();
                crate::shell::process::code_pages::release_startup_code();
            } else if let Ok(mut w) = p.health.waiting_for.lock() {
                let names: Vec<&str> =
                    sched.kinds_not_synced().iter().map(|id| crate::core::watched::kind(*id).resource).collect();
                *w = names.join(", ");
            }
        }
        dispatch(sched, p.workers, p.recorder);

        if shutdown_deadline.is_none() && sched.has_work() {
            let start = Instant::now();
            if let Some((attempt, _)) = sched.schedule_one(start, Explain::Off) {
                let elapsed = start.elapsed().as_secs_f64();
                match &attempt {
                    Attempt::Unschedulable { .. } | Attempt::Error { .. } => {
                        let result = if matches!(attempt, Attempt::Error { .. }) { "error" } else { "unschedulable" };
                        let profile = profile_of(sched, &attempt);
                        p.metrics.inc(m::SCHEDULE_ATTEMPTS, &[result, &profile], 1.0);
                        p.metrics.observe(m::ATTEMPT_DURATION, &[result, &profile], elapsed);
                    }
                    Attempt::Scheduled { .. } | Attempt::Skipped { .. } => {}
                }
            }
            dispatch(sched, p.workers, p.recorder);
            continue;
        }

        let now = Instant::now();
        let wait = sched
            .next_wakeup(now)
            .map(|t| t.saturating_duration_since(now))
            .unwrap_or(Duration::from_secs(1))
            .min(if binds_queued { api_workers::BIND_STALL } else { Duration::from_millis(200) });
        match rx.recv_timeout(wait.max(Duration::from_millis(1))) {
            Ok(input) => handle(sched, input, p.bind_results),
            Err(RecvTimeoutError::Timeout) => {}
            Err(RecvTimeoutError::Disconnected) => {
                Line::new("All event sources stopped").error();
                return Err(RunError::InputsClosed);
            }
        }
    }
}

/// Feed one input to the core; each watch change handled lets the informers decode their next
/// list page ([`TURN`]). An empty [`Input::BindsDone`] is the API workers' wake-up: the batch is
/// what they have handed over since ([`BindResults`]).
fn handle(sched: &mut Scheduler, input: Input, bind_results: &BindResults) {
    let input = match input {
        Input::BindsDone(batch) if batch.is_empty() => Input::BindsDone(bind_results.take()),
        other => other,
    };
    let watched = matches!(input, Input::Watch(_));
    sched.handle(input, Instant::now());
    if watched {
        TURN.handled();
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

/// Hand the core's effects over: API writes to the workers in one submission, events to the
/// recorder.
fn dispatch(sched: &mut Scheduler, workers: &api_workers::Workers, recorder: &event_recorder::Recorder) {
    let effects = sched.take_effects();
    if effects.is_empty() {
        return;
    }
    let mut jobs = Vec::with_capacity(effects.len());
    for effect in effects {
        match effect {
            Effect::Bind(b) => jobs.push(Job::Bind(b)),
            Effect::PatchStatus(p) => jobs.push(Job::PatchStatus(p)),
            Effect::Evict(eviction) => jobs.push(Job::Evict(eviction)),
            Effect::ApiWrite(w) => jobs.push(Job::ApiWrite(w)),
            Effect::Event(e) => recorder.record(e),
        }
    }
    workers.submit_all(jobs);
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn uuids_are_version_4() {
        let u = uuid_v4();
        assert_eq!(u.len(), 36);
        assert_eq!(&u[14..15], "4");
        assert!(matches!(&u[19..20], "8" | "9" | "a" | "b"));
        assert_ne!(uuid_v4(), u);
    }
}
