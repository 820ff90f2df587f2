//! The binding cycle and other pod writes, on a small pool of API worker threads.
//!
//! Binding is asynchronous as upstream's: the scheduler thread has already assumed the pod, and a
//! worker POSTs the `binding` subresource (DefaultBinder), then reports back. A 409 means another
//! actor bound or is deleting the pod: we lost it. Status patches (PodScheduled=False, nominated
//! node) and preemption evictions use the same workers, so slow API calls never block scheduling.
//!
//! The binding subresource does not check the node's capacity (neither does upstream's): a pod
//! another client bound or created on a node after our cache last heard from the watch is
//! invisible to the cycle that picks that node, and both binds succeed. The kubelet's admission
//! (OutOfcpu, OutOfmemory, OutOfpods, host ports) is the final arbiter, as with several upstream
//! schedulers sharing nodes. RELIABILITY.md describes this window and what is tested around it.

use crate::core::conditions;
use crate::core::events;
use crate::core::extender::calls::BindDecision;
use crate::core::framework::binding::{BindStep, PreBindStep};
use crate::core::framework::plugins::default_binder::binding_for;
use crate::core::framework::plugins::names;
use crate::core::framework::{instrument, Code};
use crate::core::framework::{ApiFailure, ApiHandle, BindStatus, PreBindAction};
use crate::core::logging::Line;
use crate::core::metrics::{names as m, Batch, Metrics};
use crate::core::scheduler::{BindFailure, BindOutcome, BindRequest, Input, PatchOrigin, StatusPatch};
use crate::core::texts::framework as texts;
use crate::core::timefmt;
use crate::shell::daemon::permissions::{plain, Denials};
use crate::shell::daemon::status_writes::PendingStatusWrites;
use crate::shell::daemon::worker_pool::{Pool, PoolSize};
use crate::shell::kube::api_error::ApiError;
use crate::shell::kube::client::{Client, PatchType, Verb};
use crate::shell::process::clock::{self, Clock};
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::mpsc::SyncSender;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant, SystemTime};

/// Work for the API workers.
#[derive(Debug)]
pub enum Job {
    Bind(BindRequest),
    PatchStatus(StatusPatch),
    Evict(crate::core::scheduler::effects::Eviction),
    /// A write DynamicResources' PostFilter or Unreserve asked for.
    ApiWrite(crate::core::framework::ApiWrite),
}

/// Handle to the worker pool.
#[derive(Clone)]
pub struct Workers {
    pool: Pool<Job>,
    /// Plain binds ([`is_plain`]), pipelined by a few threads.
    binds: Pool<Job>,
    /// Status writes in flight, which a binding of the same pod waits for.
    status_writes: Arc<PendingStatusWrites>,
}

impl Workers {
    /// Queue a job.
    pub fn submit(&self, job: Job) {
        self.submit_all(vec![job]);
    }

    /// Queue several jobs at once (one lock per pool, one wake-up per idle worker needed).
    pub fn submit_all(&self, jobs: Vec<Job>) {
        for job in &jobs {
            if let Job::PatchStatus(p) = job {
                self.status_writes.begin(format!("{}/{}", p.namespace, p.name));
            }
        }
        let (plain, others): (Vec<Job>, Vec<Job>) =
            jobs.into_iter().partition(|job| matches!(job, Job::Bind(req) if is_plain(req)));
        if !others.is_empty() {
            self.pool.submit_all(others);
        }
        if !plain.is_empty() {
            self.binds.submit_all(plain);
        }
    }

    /// Jobs queued or running (graceful shutdown waits for zero).
    pub fn pending(&self) -> usize {
        self.pool.pending() + self.binds.pending()
    }

    /// Binds queued behind busy binders for [`BIND_STALL`] go to the API workers, each on its
    /// own thread as upstream binds each pod on its own goroutine: on a slow API server a
    /// pipeline would make every bind wait for the ones before it. Returns whether binds are
    /// still queued (the caller looks again within [`BIND_STALL`]).
    pub fn unstall(&self, now: Instant) -> bool {
        let stalled = self.binds.take_stalled(now, BIND_STALL);
        if !stalled.is_empty() {
            self.pool.submit_all(stalled);
        }
        self.binds.queued() > 0
    }
}

/// Finished binds on their way back to the scheduler thread, handed over in batches.
///
/// Sending each outcome through the scheduler's channel woke that thread once per pod; here the
/// workers append to a shared list and only the outcome that finds it empty sends a wake-up
/// ([`Input::BindsDone`] with an empty batch). The scheduler thread takes the whole list
/// ([`BindResults::take`]) when it handles that wake-up and before it waits, so under load one
/// hand-off carries every bind that finished since the last.
pub struct BindResults {
    done: Mutex<Vec<BindOutcome>>,
    scheduler: SyncSender<Input>,
}

impl BindResults {
    /// Outcomes for the scheduler thread behind `scheduler`.
    pub fn new(scheduler: SyncSender<Input>) -> BindResults {
        BindResults { done: Mutex::new(Vec::new()), scheduler }
    }

    /// Hand over one outcome; wakes the scheduler thread only if nothing was waiting already.
    pub fn push(&self, outcome: BindOutcome) {
        let first = {
            let mut done = self.done.lock().unwrap_or_else(|e| e.into_inner());
            done.push(outcome);
            done.len() == 1
        };
        if first {
            // Fails only when the scheduler thread has gone (shutdown): nothing to report to.
            let _ = self.scheduler.send(Input::BindsDone(Vec::new()));
        }
    }

    /// Every outcome handed over since the last call, in the order they finished.
    pub fn take(&self) -> Vec<BindOutcome> {
        std::mem::take(&mut *self.done.lock().unwrap_or_else(|e| e.into_inner()))
    }
}

/// Everything a worker needs.
#[derive(Clone)]
pub struct WorkerContext {
    pub client: Client,
    /// Where finished binds go for the scheduler thread.
    pub done: Arc<BindResults>,
    pub events: crate::shell::daemon::event_recorder::Recorder,
    pub metrics: Metrics,
    /// Where 403s are recorded (required permissions fail `/readyz`).
    pub denials: Arc<Denials>,
    /// Time for deadlines, waits and timestamps.
    pub clock: Arc<dyn Clock + Send + Sync>,
    /// Raised at shutdown: waits end early.
    pub stop: Arc<AtomicBool>,
    /// The extenders' HTTP clients, for pods an extender binds.
    pub extenders: Option<Arc<dyn crate::core::extender::ExtenderTransport>>,
    /// Status writes in flight ([`Workers::submit_all`] counts them): a binding waits for its
    /// pod's.
    pub status_writes: Arc<PendingStatusWrites>,
}

/// Start the API workers: one thread at first, more while jobs wait (up to `max`), idle ones
/// ending after a minute.
pub fn spawn_workers(max: usize, ctx: WorkerContext) -> std::io::Result<Workers> {
    let size = PoolSize { min: 1, max, idle_exit: WORKER_IDLE_EXIT };
    let binders = PoolSize { min: 1, max: max.clamp(1, BIND_PIPELINES), idle_exit: WORKER_IDLE_EXIT };
    let bind_ctx = ctx.clone();
    let batch = Arc::new(AtomicUsize::new(1));
    let depth = batch.clone();
    let binds = Pool::batched("api-binder", binders, 256 * 1024, batch, move |jobs: Vec<Job>| {
        let reqs = jobs.into_iter().filter_map(|job| match job {
            Job::Bind(req) => Some(req),
            // Only plain binds are queued here ([`Workers::submit_all`]).
            other => {
                run_job(&bind_ctx, other);
                None
            }
        });
        run_plain_binds(&bind_ctx, reqs.collect(), &depth);
    })?;
    let status_writes = ctx.status_writes.clone();
    let pool = Pool::new("api-worker", size, 256 * 1024, move |job| run_job(&ctx, job))?;
    Ok(Workers { pool, binds, status_writes })
}

/// Threads that send plain binds, each on its own pipelined connection: a burst queues behind
/// them and goes out in batches (a thread per bind in flight cost two context switches per
/// pod). Two keep a two-core API server busy while one batch's answers are read; binds that
/// still wait go out on API workers of their own ([`Workers::unstall`]).
const BIND_PIPELINES: usize = 2;

/// How long binds may wait for a binder before they are sent on threads of their own.
pub const BIND_STALL: Duration = Duration::from_millis(20);

/// Most binds one pipelined exchange carries (their requests and answers stay well within the
/// sockets' buffers, so neither side blocks writing while the other does too).
const BIND_BATCH: usize = 32;

/// Most API worker threads the daemon runs at once: upstream binds every pod on its own
/// goroutine, so a burst of bindings needs parallel requests; 32 keeps the API server's round
/// trips overlapped without a thread per pod. The end-to-end benchmark's trivial binding client
/// uses the same number of threads, so its rate is the limit edgesched's is compared with.
pub const MAX_API_WORKERS: usize = 32;

/// How long an API worker beyond the first waits for work before it ends.
const WORKER_IDLE_EXIT: Duration = Duration::from_secs(60);

fn run_job(ctx: &WorkerContext, job: Job) {
    match job {
        Job::Bind(req) => ctx.done.push(run_bind(ctx, req)),
        Job::PatchStatus(p) => {
            let pod = format!("{}/{}", p.namespace, p.name);
            let result = patch_status(&ctx.client, &p, ctx.clock.wall());
            ctx.status_writes.end(&pod);
            ctx.denials.outcome(|| plain("patch", "", "pods/status"), &pod, &result);
            if let Err(e) = result {
                match p.origin {
                    PatchOrigin::Scheduling => Line::new("Error updating pod").s("pod", &pod).s("err", e).warning(),
                    // schedule_one.go bindingCycle: logged, and the binding goes on.
                    PatchOrigin::BindingCycle => Line::new("Failed to update the nominated node name in the binding cycle")
                        .s("err", e)
                        .o("pod", &pod)
                        .s("nominatedNodeName", p.nominated_node_name.as_deref().unwrap_or_default())
                        .error(),
                }
            }
        }
        Job::Evict(ev) => {
            let (namespace, name) = (&ev.namespace, &ev.name);
            if let Err(e) = evict(ctx, &ev) {
                // preemption.go prepareCandidate.
                Line::new("Preempted pod").s("err", e).o("pod", &format!("{namespace}/{name}")).error();
            }
        }
        Job::ApiWrite(w) => crate::shell::daemon::dra_writes::execute(&ctx.client, &w, &ctx.denials),
    }
}

/// POST the binding and classify the result.
pub fn bind(client: &Client, pod: &crate::core::model::PodInfo, node: &str, denials: &Denials) -> Result<(), BindFailure> {
    // plugins/defaultbinder/default_binder.go Bind.
    crate::core::logging::v(3, || Line::new("Attempting to bind pod to node").o("pod", &pod.key).o("node", node));
    let body = binding_for(&pod.namespace, &pod.name, &pod.uid, node);
    let result = client.create::<_, serde::de::IgnoredAny>(&binding_path(pod), &body).map(|_| ());
    classify_bind(client, pod, node, denials, result)
}

/// The `pods/binding` subresource of a pod.
fn binding_path(pod: &crate::core::model::PodInfo) -> String {
    format!("/api/v1/namespaces/{}/pods/{}/binding", pod.namespace, pod.name)
}

/// What a binding POST's result means for the pod (recording a denial against the declared
/// permission).
fn classify_bind(
    client: &Client,
    pod: &crate::core::model::PodInfo,
    node: &str,
    denials: &Denials,
    result: Result<(), ApiError>,
) -> Result<(), BindFailure> {
    denials.outcome(|| plain("create", "", "pods/binding"), &pod.key, &result);
    match result {
        Ok(_) => Ok(()),
        Err(e) if e.is_conflict() => Err(BindFailure::Conflict(e.to_string())),
        // No status code: the connection broke or the response was cut after the request may
        // have reached the server, so the pod may well be bound. Reporting a plain failure would
        // make the scheduler forget the assumed pod and offer the node's capacity to the next
        // pod before the watch shows the bind (an overcommit we could have known about). Ask the
        // server instead. upstream kube-scheduler forgets the pod here; see RELIABILITY.md.
        Err(e) if e.code().is_none() => verify_ambiguous_bind(client, pod, node, &e),
        Err(e) => Err(BindFailure::Other(texts::bind_plugin_error(names::DEFAULT_BINDER, &e.to_string()))),
    }
}

/// After a binding POST with an unknown outcome: GET the pod and classify by its `nodeName`.
fn verify_ambiguous_bind(
    client: &Client,
    pod: &crate::core::model::PodInfo,
    node: &str,
    err: &ApiError,
) -> Result<(), BindFailure> {
    let path = format!("/api/v1/namespaces/{}/pods/{}", pod.namespace, pod.name);
    match client.get::<crate::core::api::Pod>(&path) {
        Ok(current) if current.metadata.uid != *pod.uid => Err(BindFailure::Conflict(format!("{err} (pod was replaced)"))),
        Ok(current) if current.spec.node_name == node => {
            Line::new("Binding response lost; the pod is bound to the chosen node").s("pod", &*pod.key).s("node", node).info();
            Ok(())
        }
        Ok(current) if !current.spec.node_name.is_empty() => {
            Err(BindFailure::Conflict(format!("{err} (pod is bound to {})", current.spec.node_name)))
        }
        Ok(_) => Err(BindFailure::Other(texts::bind_plugin_error(names::DEFAULT_BINDER, &err.to_string()))),
        Err(e) if e.is_not_found() => Err(BindFailure::Conflict(format!("{err} (pod is gone)"))),
        // Still unknown: give up like upstream does (the race window in RELIABILITY.md).
        Err(e) => Err(BindFailure::Other(texts::bind_plugin_error(
            names::DEFAULT_BINDER,
            &format!("{err} (checking the pod failed: {e})"),
        ))),
    }
}

/// Why the PreBind writes (VolumeBinding) did not complete; the text becomes the PreBind plugin
/// error of the pod's FailedScheduling event.
#[derive(Debug)]
pub enum PreBindError {
    /// An API call failed.
    Api(ApiError),
    /// The PersistentVolume chosen at Reserve was bound to another claim meanwhile.
    VolumeTaken { pv: String },
    /// A claim was not bound within the plugin's `bindTimeoutSeconds`.
    ClaimNotBound { namespace: String, name: String },
    /// The scheduler is shutting down.
    Stopped,
}

impl std::fmt::Display for PreBindError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            PreBindError::Api(e) => e.fmt(f),
            PreBindError::VolumeTaken { pv } => write!(f, "PersistentVolume {pv} was bound to another claim meanwhile"),
            PreBindError::ClaimNotBound { namespace, name } => {
                write!(f, "binding volumes: timed out waiting for the condition (claim {namespace}/{name} not bound)")
            }
            PreBindError::Stopped => f.write_str("binding volumes: the scheduler is shutting down"),
        }
    }
}

impl std::error::Error for PreBindError {}

/// How often a PreBind waiting for claims to be bound looks again.
const CLAIM_POLL: Duration = Duration::from_millis(500);

/// A request's result with its outcome recorded against the declared permission.
fn checked<T>(
    denials: &Denials,
    verb: &str,
    resource: &str,
    object: &str,
    result: Result<T, ApiError>,
) -> Result<T, PreBindError> {
    denials.outcome(|| plain(verb, "", resource), object, &result);
    result.map_err(PreBindError::Api)
}

/// Perform the PreBind writes planned at Reserve (volume claims), in order. Waiting for claims
/// uses `clock` and gives up when `stop` is raised.
pub fn pre_bind(
    client: &Client,
    actions: &[PreBindAction],
    denials: &Denials,
    clock: &dyn Clock,
    stop: &AtomicBool,
) -> Result<(), PreBindError> {
    for a in actions {
        match a {
            PreBindAction::AnnotatePvc { namespace, name, key, value } => {
                let path = format!("/api/v1/namespaces/{namespace}/persistentvolumeclaims/{name}");
                let body = serde_json::json!({"metadata": {"annotations": {key: value}}});
                let object = format!("{namespace}/{name}");
                let result = client.patch::<serde_json::Value>(&path, PatchType::Merge, &body);
                checked(denials, "patch", "persistentvolumeclaims", &object, result)?;
            }
            PreBindAction::BindPv { pv, claim_namespace, claim_name, claim_uid } => {
                let path = format!("/api/v1/persistentvolumes/{pv}");
                let mut obj: serde_json::Value = checked(denials, "get", "persistentvolumes", pv, client.get(&path))?;
                let bound_to = obj.pointer("/spec/claimRef/uid").and_then(|u| u.as_str()).unwrap_or("");
                if !bound_to.is_empty() && bound_to != claim_uid {
                    return Err(PreBindError::VolumeTaken { pv: pv.clone() });
                }
                obj["spec"]["claimRef"] = serde_json::json!({"kind": "PersistentVolumeClaim", "apiVersion": "v1",
                    "namespace": claim_namespace, "name": claim_name, "uid": claim_uid});
                obj["metadata"]["annotations"]["pv.kubernetes.io/bound-by-controller"] = serde_json::json!("yes");
                checked(denials, "update", "persistentvolumes", pv, client.replace::<_, serde_json::Value>(&path, &obj))?;
            }
            // DynamicResources' writes are run by `run_pre_bind` (they return the claims).
            PreBindAction::ReserveClaim(_) => {}
            PreBindAction::WaitForClaims { claims, timeout_seconds } => {
                let deadline = clock.now() + Duration::from_secs(*timeout_seconds);
                for (ns, name) in claims {
                    let path = format!("/api/v1/namespaces/{ns}/persistentvolumeclaims/{name}");
                    loop {
                        let object = format!("{ns}/{name}");
                        let pvc: serde_json::Value =
                            checked(denials, "get", "persistentvolumeclaims", &object, client.get(&path))?;
                        if pvc.pointer("/status/phase").and_then(|p| p.as_str()) == Some("Bound") {
                            break;
                        }
                        if clock.now() >= deadline {
                            return Err(PreBindError::ClaimNotBound { namespace: ns.clone(), name: name.clone() });
                        }
                        if !clock::sleep_for(clock, stop, CLAIM_POLL) {
                            return Err(PreBindError::Stopped);
                        }
                    }
                }
            }
        }
    }
    Ok(())
}

/// `scheduler_framework_extension_point_duration_seconds` for a binding-cycle extension point
/// that ran from `start` to `end`.
fn observe_point(b: &mut Batch<'_>, point: &str, ok: bool, profile: &str, (start, end): (Instant, Instant)) {
    let status = instrument::status_label((!ok).then_some(Code::Error));
    b.observe(m::EXTENSION_POINT_DURATION, &[point, status, profile], end.saturating_duration_since(start).as_secs_f64());
}

/// `sched.bind`: an interested binding extender first (`extendersBinding`), then the Bind steps
/// in configured order — out-of-tree Bind plugins and the DefaultBinder — until one does not skip.
fn bind_delegated(ctx: &WorkerContext, req: &BindRequest) -> Result<(), BindFailure> {
    if let (Some(target), Some(transport)) = (&req.extender_binder, &ctx.extenders) {
        match crate::core::extender::calls::bind(&**transport, target, &req.pod, &req.node) {
            BindDecision::Bound => return Ok(()),
            BindDecision::Failed(err) => return Err(BindFailure::Other(err)),
            BindDecision::FallBack(_) => {}
        }
    }
    let Some(plan) = &req.binding else { return bind(&ctx.client, &req.pod, &req.node, &ctx.denials) };
    let api = PluginApi { ctx };
    for step in &plan.bind {
        match step {
            BindStep::Default => return bind(&ctx.client, &req.pod, &req.node, &ctx.denials),
            BindStep::Plugin(p) => match p.bind(&api, &req.pod, &req.node) {
                BindStatus::Skip => {}
                BindStatus::Bound => return Ok(()),
                BindStatus::Failed(e) => return Err(BindFailure::Other(texts::bind_plugin_error(p.name(), &e))),
            },
        }
    }
    // RunBindPlugins: every Bind plugin skipped.
    Err(BindFailure::Other(texts::all_bind_plugins_skipped()))
}

/// What a binding-cycle plugin may do through the scheduler's API client (see
/// `crate::core::framework::binding`). Its requests are not declared permissions: a 403 is the
/// plugin's error to report, not a readiness failure.
struct PluginApi<'a> {
    ctx: &'a WorkerContext,
}

fn failure(e: ApiError) -> ApiFailure {
    ApiFailure { code: e.code(), message: e.to_string() }
}

impl ApiHandle for PluginApi<'_> {
    fn get(&self, path: &str) -> Result<serde_json::Value, ApiFailure> {
        self.ctx.client.get(path).map_err(failure)
    }
    fn create(&self, path: &str, body: &serde_json::Value) -> Result<serde_json::Value, ApiFailure> {
        self.ctx.client.create(path, body).map_err(failure)
    }
    fn merge_patch(&self, path: &str, patch: &serde_json::Value) -> Result<serde_json::Value, ApiFailure> {
        self.ctx.client.patch(path, PatchType::Merge, patch).map_err(failure)
    }
    fn wait(&self, d: Duration) -> bool {
        clock::sleep_for(&*self.ctx.clock, &self.ctx.stop, d)
    }
    fn default_bind(&self, pod: &crate::core::model::PodInfo, node: &str) -> Result<(), ApiFailure> {
        bind(&self.ctx.client, pod, node, &self.ctx.denials).map_err(|e| match e {
            BindFailure::Conflict(m) => ApiFailure { code: Some(409), message: m },
            BindFailure::Other(m) => ApiFailure { code: None, message: m },
        })
    }
}

/// One in-tree plugin's PreBind: its writes planned at Reserve, in order. The claims
/// DynamicResources wrote are added to `written` (also when a later one fails).
fn in_tree_pre_bind(
    ctx: &WorkerContext,
    req: &BindRequest,
    plugin: &'static str,
    written: &mut Vec<crate::core::api::ResourceClaim>,
) -> Result<(), BindFailure> {
    let actions: Vec<PreBindAction> = req.pre_bind.iter().filter(|a| a.plugin() == plugin).cloned().collect();
    if actions.is_empty() {
        return Ok(());
    }
    let failed = |e: String| BindFailure::Other(texts::prebind_plugin_error(plugin, &e));
    if plugin != names::DYNAMIC_RESOURCES {
        return pre_bind(&ctx.client, &actions, &ctx.denials, &*ctx.clock, &ctx.stop).map_err(|e| failed(e.to_string()));
    }
    for a in &actions {
        if let PreBindAction::ReserveClaim(r) = a {
            let claim = crate::shell::daemon::dra_writes::bind_claim(&ctx.client, r, &ctx.denials, &*ctx.clock, &ctx.stop)
                .map_err(failed)?;
            written.push(claim);
        }
    }
    Ok(())
}

/// PreBind: the in-tree plugins' writes planned at Reserve (VolumeBinding, DynamicResources)
/// and the out-of-tree PreBind plugins, in configured order; the claims written come back with
/// the outcome.
fn run_pre_bind(ctx: &WorkerContext, req: &BindRequest) -> (Result<(), BindFailure>, Vec<crate::core::api::ResourceClaim>) {
    let mut written = Vec::new();
    let result = (|| {
        let Some(plan) = &req.binding else {
            // In the order Reserve planned them (the profile's Reserve and PreBind orders agree).
            let mut plugins: Vec<&'static str> = Vec::new();
            for a in &req.pre_bind {
                if !plugins.contains(&a.plugin()) {
                    plugins.push(a.plugin());
                }
            }
            for plugin in plugins {
                in_tree_pre_bind(ctx, req, plugin, &mut written)?;
            }
            return Ok(());
        };
        let api = PluginApi { ctx };
        for step in &plan.pre_bind {
            match step {
                PreBindStep::InTree(plugin) => in_tree_pre_bind(ctx, req, plugin, &mut written)?,
                // RunPreBindPlugins: a plugin whose PreBindPreFlight skipped does not run.
                PreBindStep::Plugin(p) if req.pre_bind_skipped.contains(&p.name()) => {}
                PreBindStep::Plugin(p) => p
                    .pre_bind(&api, &req.pod, &req.node)
                    .map_err(|e| BindFailure::Other(texts::prebind_plugin_error(p.name(), &e)))?,
            }
        }
        Ok(())
    })();
    (result, written)
}

fn run_bind(ctx: &WorkerContext, req: BindRequest) -> BindOutcome {
    ctx.status_writes.wait_for(&req.pod.key, &ctx.stop);
    // The binding cycle runs on its own goroutine upstream (scheduler_goroutines{operation="binding"}).
    ctx.metrics.inc(m::GOROUTINES, &["binding"], 1.0);
    // Three clock reads: the end of PreBind is the start of Bind.
    let start = ctx.clock.now();
    let (pre_bound, claims) = run_pre_bind(ctx, &req);
    let pre_bind_end = ctx.clock.now();
    let pre_bound_ok = pre_bound.is_ok();
    let mut bind_end = pre_bind_end;
    let result = pre_bound.and_then(|()| {
        let bound = bind_delegated(ctx, &req);
        bind_end = ctx.clock.now();
        bound
    });
    let mut outcome = finish_bind(ctx, &req, (start, pre_bind_end, bind_end), pre_bound_ok, result);
    outcome.claims = claims;
    outcome
}

/// The end of a binding cycle whose PreBind ran from `times.0` to `times.1` and Bind (when
/// PreBind succeeded) to `times.2`: log, metrics, the Scheduled event, PostBind, and the outcome
/// for the scheduler thread.
fn finish_bind(
    ctx: &WorkerContext,
    req: &BindRequest,
    (start, pre_bind_end, bind_end): (Instant, Instant, Instant),
    pre_bound_ok: bool,
    result: Result<(), BindFailure>,
) -> BindOutcome {
    let pod = &req.pod;
    let now = bind_end;
    if result.is_ok() {
        // schedule_one.go bindingCycle.
        crate::core::logging::v(2, || {
            Line::new("Successfully bound pod to node")
                .o("pod", &pod.key)
                .o("node", &req.node)
                .n("evaluatedNodes", req.evaluated_nodes)
                .n("feasibleNodes", req.feasible_nodes)
        });
    } else {
        // schedule_one.go finishBinding.
        crate::core::logging::v(1, || Line::new("Failed to bind pod").o("pod", &pod.key));
    }
    // Every sample of the binding cycle under one lock of the registry.
    ctx.metrics.batch(|b| {
        observe_point(b, instrument::point::PRE_BIND, pre_bound_ok, &req.profile, (start, pre_bind_end));
        if pre_bound_ok {
            observe_point(b, instrument::point::BIND, result.is_ok(), &req.profile, (pre_bind_end, bind_end));
        }
        b.inc(m::GOROUTINES, &["binding"], -1.0);
        let elapsed = now.saturating_duration_since(req.cycle_start).as_secs_f64();
        if result.is_err() {
            b.inc(m::SCHEDULE_ATTEMPTS, &["error", &req.profile], 1.0);
            b.observe(m::ATTEMPT_DURATION, &["error", &req.profile], elapsed);
            return;
        }
        b.inc(m::SCHEDULE_ATTEMPTS, &["scheduled", &req.profile], 1.0);
        b.observe(m::ATTEMPT_DURATION, &["scheduled", &req.profile], elapsed);
        b.observe(m::POD_ATTEMPTS, &[], f64::from(req.attempts));
        if req.flushed {
            b.inc(m::SCHEDULED_AFTER_FLUSH, &[], 1.0);
        }
        if let Some(first) = req.initial_attempt {
            let label = attempts_label(req.attempts);
            b.observe(m::SLI_DURATION, &[label], now.saturating_duration_since(first).as_secs_f64());
        }
    });
    if result.is_ok() {
        ctx.events.record(events::scheduled(pod, &req.node, &req.profile));
        if let Some(plan) = &req.binding {
            let api = PluginApi { ctx };
            for p in &plan.post_bind {
                p.post_bind(&api, pod, &req.node);
            }
        }
    }
    BindOutcome::new(req.pod.key.clone(), req.node.clone(), result)
}

/// The `attempts` label of `scheduler_pod_scheduling_sli_duration_seconds` (15 and more share
/// one), without formatting a number per bind.
fn attempts_label(attempts: u32) -> &'static str {
    const SMALL: [&str; 15] = ["0", "1", "2", "3", "4", "5", "6", "7", "8", "9", "10", "11", "12", "13", "14"];
    usize::try_from(attempts).ok().and_then(|i| SMALL.get(i)).copied().unwrap_or("15+")
}

/// Whether a bind needs nothing but the DefaultBinder's POST: no volume writes, no out-of-tree
/// binding plugins, no binding extender. Such binds are pipelined ([`run_plain_binds`]).
fn is_plain(req: &BindRequest) -> bool {
    req.pre_bind.is_empty() && req.binding.is_none() && req.extender_binder.is_none()
}

/// Several plain binds ([`is_plain`]): their binding cycles as [`run_bind`]'s, the POSTs sent
/// pipelined on one connection ([`Client::send_pipelined`]). Each pod's PreBind (nothing to
/// write) ends before the POSTs go out and its Bind when the whole exchange has been read.
///
/// `depth` is how many binds a binder takes at once ([`Client::next_depth`]): one at first,
/// doubled while the server answers quickly, one again after a slow answer.
fn run_plain_binds(ctx: &WorkerContext, reqs: Vec<BindRequest>, depth: &AtomicUsize) {
    let start = ctx.clock.now();
    if reqs.len() == 1 {
        for req in reqs {
            ctx.done.push(run_bind(ctx, req));
        }
        adapt_depth(depth, ctx.clock.now().saturating_duration_since(start));
        return;
    }
    for req in &reqs {
        ctx.status_writes.wait_for(&req.pod.key, &ctx.stop);
    }
    ctx.metrics.inc(m::GOROUTINES, &["binding"], reqs.len() as f64);
    let mut items = Vec::with_capacity(reqs.len());
    for req in &reqs {
        let pod = &req.pod;
        // plugins/defaultbinder/default_binder.go Bind.
        crate::core::logging::v(3, || Line::new("Attempting to bind pod to node").o("pod", &pod.key).o("node", &req.node));
        let body = binding_for(&pod.namespace, &pod.name, &pod.uid, &req.node);
        // Encoding a plain struct of strings cannot fail; an empty body would be refused (400).
        items.push((binding_path(pod), serde_json::to_vec(&body).unwrap_or_default()));
    }
    let results = ctx.client.send_pipelined(Verb::Post, "application/json", items);
    let bind_end = ctx.clock.now();
    adapt_depth(depth, bind_end.saturating_duration_since(start));
    for (req, result) in reqs.iter().zip(results) {
        let result = classify_bind(&ctx.client, &req.pod, &req.node, &ctx.denials, result);
        ctx.done.push(finish_bind(ctx, req, (start, start, bind_end), true, result));
    }
}

/// The next pipeline depth after an exchange that took `took` ([`run_plain_binds`]).
fn adapt_depth(depth: &AtomicUsize, took: Duration) {
    depth.store(Client::next_depth(depth.load(Ordering::Relaxed), took, BIND_BATCH), Ordering::Relaxed);
}

/// The strategic-merge patch for a pod's PodScheduled condition / nominated node.
pub fn status_patch_body(p: &StatusPatch, wall: SystemTime) -> serde_json::Value {
    let mut status = serde_json::Map::new();
    if let Some(c) = &p.condition {
        let mut cond = serde_json::to_value(c).unwrap_or_else(|_| serde_json::json!({}));
        if let Some(obj) = cond.as_object_mut() {
            obj.insert("lastProbeTime".into(), serde_json::Value::Null);
            obj.insert("lastTransitionTime".into(), serde_json::Value::String(timefmt::format_rfc3339(wall)));
        }
        status.insert("conditions".into(), serde_json::Value::Array(vec![cond]));
    }
    if let Some(n) = &p.nominated_node_name {
        status.insert(
            "nominatedNodeName".into(),
            if n.is_empty() { serde_json::Value::Null } else { serde_json::Value::String(n.clone()) },
        );
    }
    serde_json::json!({ "status": status })
}

/// PATCH `pods/{name}/status` (strategic merge, as upstream's PatchPodStatus).
pub fn patch_status(client: &Client, p: &StatusPatch, wall: SystemTime) -> Result<(), ApiError> {
    let path = format!("/api/v1/namespaces/{}/pods/{}/status", p.namespace, p.name);
    client.patch::<serde_json::Value>(&path, PatchType::StrategicMerge, &status_patch_body(p, wall)).map(|_| ())
}

/// Preempt a victim as upstream's `PreemptPod`: add the `DisruptionTarget` condition, delete with
/// a UID precondition, and record a `Preempted` event on the victim.
fn evict(ctx: &WorkerContext, ev: &crate::core::scheduler::effects::Eviction) -> Result<(), ApiError> {
    let (namespace, name, uid) = (&ev.namespace, &ev.name, &ev.uid);
    let (preemptor_key, node, profile) = (&ev.preemptor, &ev.node, &ev.profile);
    let wall = ctx.clock.wall();
    let c = conditions::disruption_target(profile);
    let cond = serde_json::json!({"status": {"conditions": [{
        "type": c.type_, "status": c.status, "reason": c.reason,
        "message": c.message, "lastTransitionTime": timefmt::format_rfc3339(wall)
    }]}});
    let status_path = format!("/api/v1/namespaces/{namespace}/pods/{name}/status");
    let object = format!("{namespace}/{name}");
    let patched = ctx.client.patch::<serde_json::Value>(&status_path, PatchType::StrategicMerge, &cond);
    ctx.denials.outcome(|| plain("patch", "", "pods/status"), &object, &patched);
    match patched {
        Ok(_) => {}
        Err(e) if e.is_not_found() => return Ok(()),
        Err(e) => {
            Line::new("Could not add DisruptionTarget condition").s("pod", format!("{namespace}/{name}")).s("err", e).warning()
        }
    }
    let path = format!("/api/v1/namespaces/{namespace}/pods/{name}");
    let deleted = ctx.client.delete(&path, Some(uid));
    ctx.denials.outcome(|| plain("delete", "", "pods"), &object, &deleted);
    match deleted {
        Ok(()) => crate::core::logging::v(2, || {
            Line::new("Preemptor Pod preempted victim Pod").o("preemptor", preemptor_key).o("victim", &object).o("node", node)
        }),
        Err(e) if e.is_not_found() => {
            crate::core::logging::v(2, || {
                Line::new("Victim Pod is already deleted").o("preemptor", preemptor_key).o("victim", &object).o("node", node)
            });
            return Ok(());
        }
        Err(e) => return Err(e),
    }
    // Upstream's reference to the victim carries the resourceVersion its informer last saw; the
    // cache keeps none for bound pods (a string per pod at 150,000 pods), so it is left out.
    let victim = events::pod_reference(namespace, name, uid, "");
    ctx.events.record(events::preempted(victim, ev.preemptor_reference.clone(), node, profile));
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::core::api;

    fn outcome(key: &str) -> BindOutcome {
        BindOutcome::new(key.into(), "n1".into(), Ok(()))
    }

    #[test]
    fn finished_binds_wake_the_scheduler_once_per_batch_in_order() {
        let (tx, rx) = std::sync::mpsc::sync_channel(16);
        let results = BindResults::new(tx);
        results.push(outcome("default/a"));
        results.push(outcome("default/b"));
        results.push(outcome("default/c"));
        // One wake-up for the three: an empty batch, the outcomes wait to be taken.
        assert!(matches!(rx.try_recv(), Ok(Input::BindsDone(b)) if b.is_empty()));
        assert!(rx.try_recv().is_err());
        let keys: Vec<String> = results.take().iter().map(|o| o.key.to_string()).collect();
        assert_eq!(keys, ["default/a", "default/b", "default/c"]);
        assert!(results.take().is_empty());
        // Once taken, the next outcome wakes the scheduler again.
        results.push(outcome("default/d"));
        assert!(matches!(rx.try_recv(), Ok(Input::BindsDone(b)) if b.is_empty()));
        assert_eq!(results.take().len(), 1);
    }

    #[test]
    fn a_gone_scheduler_thread_does_not_stop_the_workers() {
        let (tx, rx) = std::sync::mpsc::sync_channel(1);
        drop(rx);
        let results = BindResults::new(tx);
        results.push(outcome("default/a"));
        assert_eq!(results.take().len(), 1);
    }

    #[test]
    fn pipeline_depth_doubles_while_answers_are_quick_and_drops_to_one_when_slow() {
        let depth = AtomicUsize::new(1);
        let quick = crate::shell::kube::client::QUICK_ANSWER / 2;
        let seen: Vec<usize> = (0..7)
            .map(|_| {
                adapt_depth(&depth, quick);
                depth.load(Ordering::Relaxed)
            })
            .collect();
        assert_eq!(seen, [2, 4, 8, 16, 32, 32, 32]);
        adapt_depth(&depth, crate::shell::kube::client::QUICK_ANSWER * 2);
        assert_eq!(depth.load(Ordering::Relaxed), 1);
    }

    #[test]
    fn sli_attempt_labels_are_the_count_up_to_fifteen() {
        assert_eq!(attempts_label(1), "1");
        assert_eq!(attempts_label(14), "14");
        assert_eq!(attempts_label(15), "15+");
        assert_eq!(attempts_label(u32::MAX), "15+");
    }

    #[test]
    fn status_patch_is_a_strategic_merge_of_the_condition() {
        let p = StatusPatch {
            namespace: "default".into(),
            name: "p".into(),
            uid: "u".into(),
            condition: Some(api::PodCondition {
                type_: "PodScheduled".into(),
                status: "False".into(),
                reason: Some("Unschedulable".into()),
                message: Some("0/1 nodes are available: 1 Insufficient cpu.".into()),
                last_probe_time: None,
                last_transition_time: None,
            }),
            nominated_node_name: Some("n1".into()),
            origin: crate::core::scheduler::PatchOrigin::Scheduling,
        };
        let wall = timefmt::parse_system_time("2025-09-11T20:50:21Z").expect("time");
        assert_eq!(
            status_patch_body(&p, wall),
            serde_json::json!({"status": {"conditions": [{"type": "PodScheduled", "status": "False", "reason": "Unschedulable",
                "message": "0/1 nodes are available: 1 Insufficient cpu.", "lastProbeTime": null,
                "lastTransitionTime": "2025-09-11T20:50:21Z"}], "nominatedNodeName": "n1"}})
        );
    }
}
