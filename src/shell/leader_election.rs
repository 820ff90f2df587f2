//! The leader-election thread: drives [`crate::core::lease::Elector`] against the API server.
//!
//! Candidates try every `retryPeriod` (with client-go's 1.2 jitter); the leader renews every
//! `retryPeriod` and, if no renewal succeeds within `renewDeadline`, gives up leadership — and the
//! process exits non-zero so that the kubelet or systemd restarts it, as kube-scheduler does.
//! On shutdown the leader releases the lease (ReleaseOnCancel) so a standby takes over at once.
//!
//! A 403 on the Lease (kubeadm's roles let `system:kube-scheduler` get and update only the Lease
//! named `kube-scheduler` on clusters without the `system::leader-locking-kube-scheduler` Role)
//! is logged at error level with the verb, the Lease and the rule to add, recorded for
//! `/readyz`, and retried with exponential backoff until a grant heals it. A standby that sees
//! another holder keep the lease for several lease durations says who holds it and since when.

use crate::core::api::{self, Lease};
use crate::core::lease::{Decision, Elector, StandbyReporter};
use crate::core::logging::Line;
use crate::core::metrics::{names as m, Metrics};
use crate::core::rng::Rng;
use crate::core::scheduler::Input;
use crate::core::texts::events as texts;
use crate::core::timefmt;
use crate::shell::kube::backoff::Backoff;
use crate::shell::kube::client::{ApiError, Client};
use crate::shell::permissions::{self, Access, Denials};
use log::{error, info, warn};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc::SyncSender;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant, SystemTime};

/// Shared view of the election for health checks.
#[derive(Debug, Default)]
pub struct ElectionStatus {
    pub leading: bool,
    /// On our clock: when the lease we hold expires unless renewed.
    pub lease_expiry: Option<Instant>,
    /// While standing by: who holds the lease and since when (wall clock, approximate).
    pub held_by: Option<(String, SystemTime)>,
}

impl ElectionStatus {
    /// The note `/readyz?verbose` shows for leader election.
    pub fn note(&self, lock: &str) -> Option<String> {
        if self.leading {
            return Some(format!("leading ({lock})"));
        }
        match &self.held_by {
            Some((holder, since)) => {
                Some(format!("standing by: lease {lock} held by {holder} since {}", timefmt::format_rfc3339(*since)))
            }
            None => Some(format!("standing by: acquiring lease {lock}")),
        }
    }
}

/// Healthz watchdog tolerance (kube-scheduler uses 20 s).
pub const WATCHDOG_TOLERANCE: Duration = Duration::from_secs(20);

/// How the thread reports.
pub struct ElectionContext {
    pub client: Client,
    pub elector: Elector,
    pub scheduler: SyncSender<Input>,
    pub status: Arc<Mutex<ElectionStatus>>,
    pub metrics: Metrics,
    /// Set by the main loop when shutting down; the thread then releases the lease and stops.
    pub stop: Arc<AtomicBool>,
    /// Raised by this thread once the lease has been released (or was not held).
    pub released: Arc<AtomicBool>,
    /// Component name for the LeaderElection event (`source.component`).
    pub component: String,
    pub hostname: String,
    /// Where 403s on the Lease are recorded (for `/readyz`).
    pub denials: Arc<Denials>,
    /// The warning of [`crate::core::lease::default_lease_conflict`], repeated in standby reports.
    pub lease_conflict: Option<String>,
}

/// The most a standby waits between attempts while the Lease is forbidden.
const FORBIDDEN_BACKOFF_MAX: Duration = Duration::from_secs(30);

/// A failed lease request: which access it needed and what the server said.
struct LeaseError {
    access: Access,
    err: ApiError,
}

fn lease_path(e: &Elector) -> String {
    format!("/apis/coordination.k8s.io/v1/namespaces/{}/leases/{}", e.namespace, e.name)
}

fn set_status(ctx: &ElectionContext, leading: bool, expiry: Option<Instant>) {
    if let Ok(mut s) = ctx.status.lock() {
        s.leading = leading;
        s.lease_expiry = expiry;
        if leading {
            s.held_by = None;
        }
    }
}

fn set_held_by(ctx: &ElectionContext, now: Instant) {
    let held_by = ctx.elector.held_by_other().map(|(h, since)| {
        let ago = now.saturating_duration_since(since);
        (h.to_string(), SystemTime::now().checked_sub(ago).unwrap_or(SystemTime::UNIX_EPOCH))
    });
    if let Ok(mut s) = ctx.status.lock() {
        s.held_by = held_by;
    }
}

fn lease_access(ctx: &ElectionContext, verb: &str) -> Access {
    permissions::call_access(permissions::call(verb, "coordination.k8s.io", "leases"), &ctx.elector.namespace, &ctx.elector.name)
}

/// Run the election until stopped. Returns when the lease was released after `stop`, or when
/// leadership was lost (the caller then exits non-zero).
pub fn run(mut ctx: ElectionContext) -> Result<(), String> {
    let lock = format!("{}/{}", ctx.elector.namespace, ctx.elector.name);
    info!("{}", Line::new("Attempting to acquire leader lease...").s("lock", &lock));
    let mut rng = Rng::from_os();
    let mut leading = false;
    let mut last_renew = Instant::now();
    let mut last_holder: Option<String> = None;
    let mut standby = StandbyReporter::default();
    let period = ctx.elector.timing.retry_period;
    let mut forbidden_backoff = Backoff::new(period, FORBIDDEN_BACKOFF_MAX.max(period), 2.0, 0.2, Duration::from_secs(120));
    let mut forbidden = false;
    // 0 = standby until the lease is acquired, so a scrape tells the leader from its backups.
    ctx.metrics.set(m::LEADER_STATUS, &[&ctx.elector.name], 0.0);
    loop {
        if ctx.stop.load(Ordering::SeqCst) {
            release(&ctx, leading);
            ctx.released.store(true, Ordering::SeqCst);
            return Ok(());
        }
        let now = Instant::now();
        // A leader's renewal must succeed by renewDeadline: bound its requests by that (as
        // client-go's renew loop does with a context), so a hanging API server cannot keep it
        // leading past the deadline.
        let client = if leading { ctx.client.until(last_renew + ctx.elector.timing.renew_deadline) } else { ctx.client.clone() };
        let attempt = try_acquire_or_renew(&mut ctx.elector, &client, now);
        if !matches!(&attempt, Err(e) if e.err.is_forbidden()) && forbidden {
            forbidden = false;
            forbidden_backoff.reset();
            for verb in ["get", "create", "update"] {
                ctx.denials.allowed(&lease_access(&ctx, verb));
            }
            info!("{}", Line::new("Lease access granted").s("lock", &lock));
        }
        match attempt {
            Ok(true) => {
                last_renew = now;
                if !leading {
                    leading = true;
                    info!("{}", Line::new("Successfully acquired lease").s("lock", &lock));
                    ctx.metrics.set(m::LEADER_STATUS, &[&ctx.elector.name], 1.0);
                    record_leader_event(&ctx);
                    let _ = ctx.scheduler.send(Input::Leading(true));
                }
                set_status(&ctx, true, ctx.elector.lease_expiry());
            }
            Ok(false) => {
                if leading {
                    error!("{}", Line::new("Leader lease was taken by another holder").s("lock", &lock));
                    return lose(&ctx, &lock);
                }
                let holder = ctx.elector.observed_holder().map(str::to_string);
                if holder != last_holder {
                    if let Some(h) = &holder {
                        info!("{}", Line::new("New leader elected").s("identity", h));
                    }
                    last_holder = holder;
                }
                set_held_by(&ctx, now);
                if let Some((holder, held)) = standby.due(&ctx.elector, now) {
                    report_standby(&ctx, &lock, &holder, held);
                }
            }
            Err(e) if e.err.is_forbidden() => {
                let LeaseError { access, err } = *e;
                forbidden = true;
                ctx.denials.denied(&access, &err.server_message(), now);
                let wait = forbidden_backoff.next_delay(now, &mut rng);
                error!(
                    "{}",
                    Line::new("Leader election is forbidden to access its Lease; retrying")
                        .s("verb", &access.verb)
                        .s("resource", "leases.coordination.k8s.io")
                        .s("lease", &lock)
                        .s("rule", access.rule())
                        .s("retryIn", format!("{wait:?}"))
                        .s("err", err.server_message())
                );
                sleep_unless_stopped(&ctx.stop, wait);
                continue;
            }
            Err(e) => {
                // Optimistic concurrency: someone wrote first; observe again next round. For a
                // leader this counts as a failed renewal (the renew deadline decides), not a loss.
                let err = if e.err.is_conflict() { format!("lease changed concurrently: {}", e.err) } else { e.err.to_string() };
                warn!("{}", Line::new("Error retrieving or updating the lease").s("lock", &lock).s("err", err));
            }
        }
        // Measured after the attempt: a renewal that hung until its timeout counts against the
        // deadline.
        if leading && last_renew.elapsed() >= ctx.elector.timing.renew_deadline {
            error!("{}", Line::new("Failed to renew lease").s("lock", &lock).s("err", "timed out waiting for the condition"));
            return lose(&ctx, &lock);
        }
        // Candidates jitter their retries (JitterUntil factor 1.2); leaders renew on the period.
        let wait = if leading { period } else { period + period.mul_f64(1.2 * rng.unit()) };
        sleep_unless_stopped(&ctx.stop, wait);
    }
}

fn lose(ctx: &ElectionContext, lock: &str) -> Result<(), String> {
    ctx.metrics.set(m::LEADER_STATUS, &[&ctx.elector.name], 0.0);
    set_status(ctx, false, None);
    let _ = ctx.scheduler.send(Input::Leading(false));
    error!("{}", Line::new("Leaderelection lost").s("lock", lock));
    Err(format!("leader election lost for {lock}"))
}

fn sleep_unless_stopped(stop: &AtomicBool, total: Duration) {
    let step = Duration::from_millis(50);
    let start = Instant::now();
    while start.elapsed() < total {
        if stop.load(Ordering::SeqCst) {
            return;
        }
        std::thread::sleep(step.min(total.saturating_sub(start.elapsed())));
    }
}

/// One round of `tryAcquireOrRenew`: `Ok(true)` when we hold the lease afterwards.
fn try_acquire_or_renew(elector: &mut Elector, client: &Client, now: Instant) -> Result<bool, Box<LeaseError>> {
    let path = lease_path(elector);
    let (namespace, name) = (elector.namespace.clone(), elector.name.clone());
    let failed = |verb: &str, err: ApiError| {
        Box::new(LeaseError {
            access: permissions::call_access(permissions::call(verb, "coordination.k8s.io", "leases"), &namespace, &name),
            err,
        })
    };
    let current: Option<Lease> = match client.get::<Lease>(&path) {
        Ok(l) => Some(l),
        Err(e) if e.is_not_found() => None,
        Err(e) => return Err(failed("get", e)),
    };
    // A changed lease counts as observed when the GET returns, not when it was sent (client-go's
    // setObservedRecord runs after Lock.Get): a renewal the server applied while our GET was in
    // flight must not be dated earlier than it happened, or a standby would take the lease over
    // before it expires by up to the GET's latency. `now` (before the GET) stays the time the
    // validity is judged at, which errs the same safe way.
    if let Some(lease) = &current {
        elector.observe(lease, Instant::now());
    }
    match elector.decide(current.as_ref(), now, SystemTime::now()) {
        Decision::Wait { .. } => Ok(false),
        Decision::Create(lease) => {
            let collection = format!("/apis/coordination.k8s.io/v1/namespaces/{}/leases", elector.namespace);
            match client.create::<_, Lease>(&collection, &lease) {
                Ok(created) => {
                    elector.observe(&created, now);
                    Ok(true)
                }
                Err(e) if e.is_already_exists() || e.is_conflict() => Ok(false),
                Err(e) => Err(failed("create", e)),
            }
        }
        Decision::Update(lease) => match client.replace::<_, Lease>(&path, &lease) {
            Ok(updated) => {
                elector.observe(&updated, now);
                Ok(true)
            }
            // Optimistic concurrency: someone wrote first; observe again next round. For a leader
            // this counts as a failed renewal (the renew deadline decides), not as a loss.
            Err(e) => Err(failed("update", e)),
        },
    }
}

/// A standby has watched another holder keep the lease for several lease durations: say who and
/// since when, and why (with the fix) when this process contends for kube-scheduler's Lease.
fn report_standby(ctx: &ElectionContext, lock: &str, holder: &str, held: Duration) {
    let since = SystemTime::now().checked_sub(held).unwrap_or(SystemTime::UNIX_EPOCH);
    let line = Line::new("Standing by: another scheduler holds the leader lease")
        .s("lock", lock)
        .s("holder", holder)
        .s("since", timefmt::format_rfc3339(since))
        .s("heldFor", format!("{}s", held.as_secs()));
    match &ctx.lease_conflict {
        Some(why) => warn!("{}", line.s("problem", why)),
        None => info!("{line}"),
    }
}

fn release(ctx: &ElectionContext, leading: bool) {
    if !leading {
        return;
    }
    let path = lease_path(&ctx.elector);
    let Ok(current) = ctx.client.get::<Lease>(&path) else { return };
    if let Some(released) = ctx.elector.release(&current, SystemTime::now()) {
        match ctx.client.replace::<_, Lease>(&path, &released) {
            Ok(_) => info!(
                "{}",
                Line::new("Released leader lease").s("lock", format!("{}/{}", ctx.elector.namespace, ctx.elector.name))
            ),
            Err(e) => warn!("{}", Line::new("Failed to release lease").s("err", e)),
        }
    }
    ctx.metrics.set(m::LEADER_STATUS, &[&ctx.elector.name], 0.0);
    set_status(ctx, false, None);
}

/// `<identity> became leader` on the Lease, through core/v1 as upstream's legacy recorder does.
fn record_leader_event(ctx: &ElectionContext) {
    let wall = SystemTime::now();
    let ts = timefmt::format_rfc3339(wall);
    let nanos = wall.duration_since(SystemTime::UNIX_EPOCH).map(|d| d.as_nanos()).unwrap_or(0);
    let ev = api::CoreEvent {
        kind: "Event".into(),
        api_version: "v1".into(),
        metadata: api::ObjectMeta {
            name: format!("{}.{nanos:x}", ctx.elector.name),
            namespace: ctx.elector.namespace.clone(),
            ..Default::default()
        },
        involved_object: api::ObjectReference {
            kind: "Lease".into(),
            api_version: "coordination.k8s.io/v1".into(),
            namespace: ctx.elector.namespace.clone(),
            name: ctx.elector.name.clone(),
            ..Default::default()
        },
        reason: texts::REASON_LEADER_ELECTION.into(),
        message: texts::became_leader(&ctx.elector.identity),
        source: api::EventSource { component: ctx.component.clone(), host: ctx.hostname.clone() },
        first_timestamp: Some(ts.clone()),
        last_timestamp: Some(ts),
        count: 1,
        type_: texts::TYPE_NORMAL.into(),
        ..Default::default()
    };
    let path = format!("/api/v1/namespaces/{}/events", ctx.elector.namespace);
    if let Err(e) = ctx.client.create::<_, serde_json::Value>(&path, &ev) {
        warn!("{}", Line::new("Could not record leader election event").s("err", e));
    }
}
