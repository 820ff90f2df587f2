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
use crate::core::lease::{self, Decision, Elector, StandbyReporter};
use crate::core::logging::Line;
use crate::core::metrics::{names as m, Metrics};
use crate::core::rng::Rng;
use crate::core::scheduler::Input;
use crate::core::texts::events as texts;
use crate::core::timefmt;
use crate::shell::daemon::permissions::{self, Access, Denials};
use crate::shell::kube::api_error::ApiError;
use crate::shell::kube::backoff::Backoff;
use crate::shell::kube::client::Client;
use crate::shell::process::clock::{self, Clock};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc::SyncSender;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant, SystemTime};

/// The requests leader election makes on its Lease: through the API client in production, an
/// in-memory store in tests. `deadline` bounds a request (a leader's renewal must finish by its
/// renew deadline).
pub trait LeaseStore: Send {
    /// The Lease, or `None` when it does not exist.
    fn get(&self, deadline: Option<Instant>) -> Result<Option<Lease>, ApiError>;
    fn create(&self, lease: &Lease, deadline: Option<Instant>) -> Result<Lease, ApiError>;
    fn replace(&self, lease: &Lease, deadline: Option<Instant>) -> Result<Lease, ApiError>;
    /// Record the `LeaderElection` event (core/v1, in the Lease's namespace).
    fn record(&self, event: &api::CoreEvent) -> Result<(), ApiError>;
}

/// [`LeaseStore`] over the API server.
pub struct ApiLeases {
    pub client: Client,
    pub namespace: String,
    pub name: String,
}

impl ApiLeases {
    fn client(&self, deadline: Option<Instant>) -> Client {
        match deadline {
            Some(d) => self.client.until(d),
            None => self.client.clone(),
        }
    }
    fn collection(&self) -> String {
        format!("/apis/coordination.k8s.io/v1/namespaces/{}/leases", self.namespace)
    }
}

impl LeaseStore for ApiLeases {
    fn get(&self, deadline: Option<Instant>) -> Result<Option<Lease>, ApiError> {
        match self.client(deadline).get::<Lease>(&format!("{}/{}", self.collection(), self.name)) {
            Ok(l) => Ok(Some(l)),
            Err(e) if e.is_not_found() => Ok(None),
            Err(e) => Err(e),
        }
    }
    fn create(&self, lease: &Lease, deadline: Option<Instant>) -> Result<Lease, ApiError> {
        self.client(deadline).create::<_, Lease>(&self.collection(), lease)
    }
    fn replace(&self, lease: &Lease, deadline: Option<Instant>) -> Result<Lease, ApiError> {
        self.client(deadline).replace::<_, Lease>(&format!("{}/{}", self.collection(), self.name), lease)
    }
    fn record(&self, event: &api::CoreEvent) -> Result<(), ApiError> {
        let path = format!("/api/v1/namespaces/{}/events", self.namespace);
        self.client.create::<_, serde_json::Value>(&path, event).map(|_| ())
    }
}

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
    /// The healthz watchdog (`HealthzAdaptor.Check`) with the note `/readyz?verbose` shows.
    pub fn check(&self, lock: &str, now: Instant) -> Result<Option<String>, String> {
        lease::watchdog(self.leading, self.lease_expiry, now, WATCHDOG_TOLERANCE)?;
        Ok(self.note(lock))
    }

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
    pub store: Box<dyn LeaseStore>,
    pub clock: Box<dyn Clock + Send>,
    /// Seeds the retry jitter.
    pub rng_seed: u64,
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
    let wall = ctx.clock.wall();
    let held_by = ctx.elector.held_by_other().map(|(h, since)| {
        let ago = now.saturating_duration_since(since);
        (h.to_string(), wall.checked_sub(ago).unwrap_or(SystemTime::UNIX_EPOCH))
    });
    if let Ok(mut s) = ctx.status.lock() {
        s.held_by = held_by;
    }
}

fn lease_access(ctx: &ElectionContext, verb: &str) -> Access {
    permissions::call_access(permissions::call(verb, "coordination.k8s.io", "leases"), &ctx.elector.namespace, &ctx.elector.name)
}

/// Leadership was lost: the lease was taken by another holder or could not be renewed within
/// `renewDeadline`. The process exits non-zero so that the kubelet or systemd restarts it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LeadershipLost {
    /// `namespace/name` of the Lease.
    pub lock: String,
}

impl std::fmt::Display for LeadershipLost {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "leader election lost for {}", self.lock)
    }
}

impl std::error::Error for LeadershipLost {}

/// Run the election until stopped. Returns when the lease was released after `stop`, or when
/// leadership was lost (the caller then exits non-zero).
pub fn run(mut ctx: ElectionContext) -> Result<(), LeadershipLost> {
    let lock = format!("{}/{}", ctx.elector.namespace, ctx.elector.name);
    // client-go tools/leaderelection/leaderelection.go wording and levels (printf-style lines).
    Line::new(format!("attempting to acquire leader lease {lock}...")).info();
    let mut rng = Rng::seeded(ctx.rng_seed);
    let mut leading = false;
    let mut last_renew = ctx.clock.now();
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
        let now = ctx.clock.now();
        // A leader's renewal must succeed by renewDeadline: bound its requests by that (as
        // client-go's renew loop does with a context), so a hanging API server cannot keep it
        // leading past the deadline.
        let deadline = leading.then(|| last_renew + ctx.elector.timing.renew_deadline);
        let attempt = try_acquire_or_renew(&mut ctx.elector, &*ctx.store, &*ctx.clock, deadline, now);
        if !matches!(&attempt, Err(e) if e.err.is_forbidden()) && forbidden {
            forbidden = false;
            forbidden_backoff.reset();
            for verb in ["get", "create", "update"] {
                ctx.denials.allowed(&lease_access(&ctx, verb));
            }
            Line::new("Lease access granted").s("lock", &lock).info();
        }
        match attempt {
            Ok(true) => {
                last_renew = now;
                if leading {
                    crate::core::logging::v(4, || Line::new(format!("successfully renewed lease {lock}")));
                } else {
                    leading = true;
                    Line::new(format!("successfully acquired lease {lock}")).info();
                    ctx.metrics.set(m::LEADER_STATUS, &[&ctx.elector.name], 1.0);
                    record_leader_event(&ctx);
                    let _ = ctx.scheduler.send(Input::Leading(true));
                }
                set_status(&ctx, true, ctx.elector.lease_expiry());
            }
            Ok(false) => {
                if leading {
                    Line::new("Leader lease was taken by another holder").s("lock", &lock).error();
                    return lose(&ctx, &lock);
                }
                let holder = ctx.elector.observed_holder().map(str::to_string);
                if let Some(h) = &holder {
                    crate::core::logging::v(4, || Line::new(format!("lock is held by {h} and has not yet expired")));
                }
                if holder != last_holder {
                    if let Some(h) = &holder {
                        Line::new("New leader elected").s("identity", h).info();
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
                Line::new("Leader election is forbidden to access its Lease; retrying")
                    .s("verb", &access.verb)
                    .s("resource", "leases.coordination.k8s.io")
                    .s("lease", &lock)
                    .s("rule", access.rule())
                    .s("retryIn", format!("{wait:?}"))
                    .s("err", err.server_message())
                    .error();
                clock::sleep_for(&*ctx.clock, &ctx.stop, wait);
                continue;
            }
            Err(e) => {
                // Optimistic concurrency: someone wrote first; observe again next round. For a
                // leader this counts as a failed renewal (the renew deadline decides), not a loss.
                let err = if e.err.is_conflict() { format!("lease changed concurrently: {}", e.err) } else { e.err.to_string() };
                Line::new(format!("error retrieving resource lock {lock}: {err}")).error();
            }
        }
        // Measured after the attempt: a renewal that hung until its timeout counts against the
        // deadline.
        if leading && ctx.clock.now().saturating_duration_since(last_renew) >= ctx.elector.timing.renew_deadline {
            Line::new(format!("failed to renew lease {lock}: timed out waiting for the condition")).info();
            return lose(&ctx, &lock);
        }
        // Candidates jitter their retries (JitterUntil factor 1.2); leaders renew on the period.
        let wait = if leading { period } else { period + period.mul_f64(1.2 * rng.unit()) };
        clock::sleep_for(&*ctx.clock, &ctx.stop, wait);
    }
}

fn lose(ctx: &ElectionContext, lock: &str) -> Result<(), LeadershipLost> {
    ctx.metrics.set(m::LEADER_STATUS, &[&ctx.elector.name], 0.0);
    set_status(ctx, false, None);
    let _ = ctx.scheduler.send(Input::Leading(false));
    // cmd/kube-scheduler/app/server.go OnStoppedLeading.
    Line::new("Leaderelection lost").error();
    Err(LeadershipLost { lock: lock.to_string() })
}

/// One round of `tryAcquireOrRenew`: `Ok(true)` when we hold the lease afterwards.
fn try_acquire_or_renew(
    elector: &mut Elector,
    store: &dyn LeaseStore,
    clock: &dyn Clock,
    deadline: Option<Instant>,
    now: Instant,
) -> Result<bool, Box<LeaseError>> {
    let (namespace, name) = (elector.namespace.clone(), elector.name.clone());
    let failed = |verb: &str, err: ApiError| {
        Box::new(LeaseError {
            access: permissions::call_access(permissions::call(verb, "coordination.k8s.io", "leases"), &namespace, &name),
            err,
        })
    };
    let current = store.get(deadline).map_err(|e| failed("get", e))?;
    // A changed lease counts as observed when the GET returns, not when it was sent (client-go's
    // setObservedRecord runs after Lock.Get): a renewal the server applied while our GET was in
    // flight must not be dated earlier than it happened, or a standby would take the lease over
    // before it expires by up to the GET's latency. `now` (before the GET) stays the time the
    // validity is judged at, which errs the same safe way.
    if let Some(lease) = &current {
        elector.observe(lease, clock.now());
    }
    match elector.decide(current.as_ref(), now, clock.wall()) {
        Decision::Wait { .. } => Ok(false),
        Decision::Create(lease) => match store.create(&lease, deadline) {
            Ok(created) => {
                elector.observe(&created, now);
                Ok(true)
            }
            Err(e) if e.is_already_exists() || e.is_conflict() => Ok(false),
            Err(e) => Err(failed("create", e)),
        },
        // A conflict (someone wrote first) is an error like any other here: observe again next
        // round. For a leader it counts as a failed renewal (the renew deadline decides).
        Decision::Update(lease) => match store.replace(&lease, deadline) {
            Ok(updated) => {
                elector.observe(&updated, now);
                Ok(true)
            }
            Err(e) => Err(failed("update", e)),
        },
    }
}

/// A standby has watched another holder keep the lease for several lease durations: say who and
/// since when, and why (with the fix) when this process contends for kube-scheduler's Lease.
fn report_standby(ctx: &ElectionContext, lock: &str, holder: &str, held: Duration) {
    let since = ctx.clock.wall().checked_sub(held).unwrap_or(SystemTime::UNIX_EPOCH);
    let line = Line::new("Standing by: another scheduler holds the leader lease")
        .s("lock", lock)
        .s("holder", holder)
        .s("since", timefmt::format_rfc3339(since))
        .s("heldFor", format!("{}s", held.as_secs()));
    match &ctx.lease_conflict {
        Some(why) => line.s("problem", why).warning(),
        None => line.info(),
    }
}

fn release(ctx: &ElectionContext, leading: bool) {
    if !leading {
        return;
    }
    let Ok(Some(current)) = ctx.store.get(None) else { return };
    if let Some(released) = ctx.elector.release(&current, ctx.clock.wall()) {
        match ctx.store.replace(&released, None) {
            Ok(_) => {
                Line::new("Released leader lease").s("lock", format!("{}/{}", ctx.elector.namespace, ctx.elector.name)).info()
            }
            Err(e) => Line::new("Failed to release lease").s("err", e).warning(),
        }
    }
    ctx.metrics.set(m::LEADER_STATUS, &[&ctx.elector.name], 0.0);
    set_status(ctx, false, None);
}

/// `<identity> became leader` on the Lease, through core/v1 as upstream's legacy recorder does.
fn record_leader_event(ctx: &ElectionContext) {
    let wall = ctx.clock.wall();
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
    if let Err(e) = ctx.store.record(&ev) {
        Line::new("Could not record leader election event").s("err", e).warning();
    }
}

#[cfg(test)]
mod tests {
    //! The election loop against an in-memory Lease and a fake clock: acquisition, renewal,
    //! takeover after expiry, loss after the renew deadline, release on shutdown, and 403s that
    //! back off and heal — all without real waiting.

    use super::*;
    use crate::core::lease::Timing;
    use crate::shell::process::clock::fake::FakeClock;
    use std::collections::VecDeque;
    use std::sync::mpsc::{sync_channel, Receiver};

    /// What the fake API server does with the next request.
    #[derive(Debug, Clone, Copy, PartialEq)]
    enum Fault {
        Forbidden,
        ServerError,
    }

    #[derive(Debug, Default)]
    struct Store {
        lease: Option<Lease>,
        rv: u64,
        /// Faults for upcoming requests (any verb), in order.
        faults: VecDeque<Fault>,
        /// Every request from this index on fails with a server error.
        fail_from: Option<usize>,
        /// (verb, time of the request) of every request, on the fake clock.
        requests: Vec<(&'static str, Instant)>,
        events: Vec<String>,
    }

    /// An in-memory Lease with optimistic concurrency, shared with the test.
    #[derive(Clone)]
    struct FakeLeases {
        state: Arc<Mutex<Store>>,
        clock: FakeClock,
    }

    fn err(fault: Fault, verb: &str) -> ApiError {
        let (code, reason) = match fault {
            Fault::Forbidden => (403, "Forbidden"),
            Fault::ServerError => (500, "InternalError"),
        };
        ApiError::Status {
            request: format!("{verb} lease"),
            code,
            status: Box::new(api::Status {
                status: "Failure".into(),
                message: format!("leases.coordination.k8s.io \"l\" is forbidden: User \"u\" cannot {verb} resource \"leases\""),
                reason: reason.into(),
                details: None,
                code,
            }),
            retry_after: None,
        }
    }

    impl FakeLeases {
        fn new(clock: &FakeClock) -> FakeLeases {
            FakeLeases { state: Arc::new(Mutex::new(Store::default())), clock: clock.clone() }
        }
        fn store(&self) -> std::sync::MutexGuard<'_, Store> {
            self.state.lock().unwrap_or_else(|e| e.into_inner())
        }
        fn request(&self, verb: &'static str) -> Result<(), ApiError> {
            let mut s = self.store();
            s.requests.push((verb, self.clock.now()));
            if s.fail_from.is_some_and(|n| s.requests.len() > n) {
                return Err(err(Fault::ServerError, verb));
            }
            match s.faults.pop_front() {
                Some(f) => Err(err(f, verb)),
                None => Ok(()),
            }
        }
        fn stored(&self, mut lease: Lease) -> Lease {
            let mut s = self.store();
            s.rv += 1;
            lease.metadata.resource_version = s.rv.to_string();
            s.lease = Some(lease.clone());
            lease
        }
    }

    impl LeaseStore for FakeLeases {
        fn get(&self, _deadline: Option<Instant>) -> Result<Option<Lease>, ApiError> {
            self.request("get")?;
            Ok(self.store().lease.clone())
        }
        fn create(&self, lease: &Lease, _deadline: Option<Instant>) -> Result<Lease, ApiError> {
            self.request("create")?;
            Ok(self.stored(lease.clone()))
        }
        fn replace(&self, lease: &Lease, _deadline: Option<Instant>) -> Result<Lease, ApiError> {
            self.request("update")?;
            let current = self.store().lease.as_ref().map(|l| l.metadata.resource_version.clone());
            if current.as_deref() != Some(lease.metadata.resource_version.as_str()) {
                return Err(ApiError::Status {
                    request: "update lease".into(),
                    code: 409,
                    status: Box::new(api::Status { reason: "Conflict".into(), code: 409, ..Default::default() }),
                    retry_after: None,
                });
            }
            Ok(self.stored(lease.clone()))
        }
        fn record(&self, event: &api::CoreEvent) -> Result<(), ApiError> {
            self.store().events.push(event.message.clone());
            Ok(())
        }
    }

    /// A clock that raises `stop` once it passes `stop_at` (so a loop under test ends).
    struct StoppingClock {
        clock: FakeClock,
        stop: Arc<AtomicBool>,
        stop_at: Instant,
    }

    impl Clock for StoppingClock {
        fn now(&self) -> Instant {
            self.clock.now()
        }
        fn wall(&self) -> SystemTime {
            self.clock.wall()
        }
        fn sleep(&self, d: Duration) {
            self.clock.sleep(d);
            if self.clock.now() >= self.stop_at {
                self.stop.store(true, Ordering::SeqCst);
            }
        }
    }

    struct Run {
        clock: FakeClock,
        result: Result<(), LeadershipLost>,
        inputs: Receiver<Input>,
        denials: Arc<Denials>,
        status: Arc<Mutex<ElectionStatus>>,
        released: bool,
    }

    fn timing() -> Timing {
        Timing {
            lease_duration: Duration::from_secs(15),
            renew_deadline: Duration::from_secs(10),
            retry_period: Duration::from_secs(2),
        }
    }

    /// Run the election of `identity` for `duration` of fake time against `leases`.
    fn run_for(identity: &str, leases: &FakeLeases, clock: &FakeClock, duration: Duration) -> Run {
        let stop = Arc::new(AtomicBool::new(false));
        let (tx, inputs) = sync_channel(16);
        let status = Arc::new(Mutex::new(ElectionStatus::default()));
        let denials = Arc::new(Denials::default());
        let released = Arc::new(AtomicBool::new(false));
        let ctx = ElectionContext {
            store: Box::new(leases.clone()),
            clock: Box::new(StoppingClock { clock: clock.clone(), stop: stop.clone(), stop_at: clock.now() + duration }),
            rng_seed: 3,
            elector: Elector::new(identity, "kube-system", "edgesched", timing()),
            scheduler: tx,
            status: status.clone(),
            metrics: Metrics::new(),
            stop,
            released: released.clone(),
            component: "edgesched".into(),
            hostname: "host".into(),
            denials: denials.clone(),
            lease_conflict: None,
        };
        let result = run(ctx);
        Run { clock: clock.clone(), result, inputs, denials, status, released: released.load(Ordering::SeqCst) }
    }

    fn leading_inputs(r: &Run) -> Vec<bool> {
        r.inputs.try_iter().filter_map(|i| if let Input::Leading(l) = i { Some(l) } else { None }).collect()
    }

    #[test]
    fn acquires_renews_every_retry_period_and_releases_on_shutdown() {
        let clock = FakeClock::new();
        let leases = FakeLeases::new(&clock);
        let r = run_for("me_1", &leases, &clock, Duration::from_secs(9));
        assert_eq!(r.result, Ok(()));
        assert!(r.released);
        assert_eq!(leading_inputs(&r), [true]);
        let s = leases.store();
        let verbs: Vec<&str> = s.requests.iter().map(|(v, _)| *v).collect();
        // get (404) + create, then get + update every 2 s, then the release.
        assert_eq!(verbs[..2], ["get", "create"]);
        let renewals: Vec<Duration> = s
            .requests
            .iter()
            .filter(|(v, _)| *v == "update")
            .map(|(_, t)| t.saturating_duration_since(s.requests[0].1))
            .collect();
        assert_eq!(renewals[..3], [Duration::from_secs(2), Duration::from_secs(4), Duration::from_secs(6)]);
        let lease = s.lease.clone().expect("lease");
        assert_eq!(lease.spec.holder_identity.as_deref(), Some(""), "released for the standby");
        assert_eq!(lease.spec.lease_duration_seconds, Some(1));
        assert_eq!(s.events, ["me_1 became leader"]);
        drop(s);
        assert!(!r.status.lock().expect("status").leading);
        let _ = r.clock.slept();
    }

    #[test]
    fn a_standby_waits_while_the_holder_renews_and_takes_over_after_expiry() {
        let clock = FakeClock::new();
        let leases = FakeLeases::new(&clock);
        // Another candidate holds the lease and stops renewing at once.
        let mut held = Lease::default();
        held.metadata.name = "edgesched".into();
        held.metadata.namespace = "kube-system".into();
        held.spec.holder_identity = Some("other_2".into());
        held.spec.lease_duration_seconds = Some(15);
        held.spec.renew_time = Some("2026-01-01T00:00:00.000000Z".into());
        leases.stored(held);
        let r = run_for("me_1", &leases, &clock, Duration::from_secs(30));
        assert_eq!(r.result, Ok(()));
        assert_eq!(leading_inputs(&r), [true]);
        let s = leases.store();
        let first_update = s.requests.iter().find(|(v, _)| *v == "update").map(|(_, t)| *t).expect("took over");
        let waited = first_update.saturating_duration_since(s.requests[0].1);
        assert!(waited >= Duration::from_secs(15), "waited the lease duration after the last observed change: {waited:?}");
        assert!(waited < Duration::from_secs(15) + Duration::from_millis(4400), "within one jittered retry: {waited:?}");
    }

    #[test]
    fn a_leader_whose_renewals_fail_gives_up_after_the_renew_deadline() {
        let clock = FakeClock::new();
        let leases = FakeLeases::new(&clock);
        // get + create acquire the lease; from the first renewal on, the API server fails.
        leases.store().fail_from = Some(2);
        let start = clock.now();
        let r = run_for("me_1", &leases, &clock, Duration::from_secs(60));
        assert_eq!(r.result, Err(LeadershipLost { lock: "kube-system/edgesched".into() }));
        assert_eq!(leading_inputs(&r), [true, false]);
        let lost_after = r.clock.now().saturating_duration_since(start);
        // Acquired at 0; the last successful renewal is that acquisition, so the loop gives up
        // at the first check after renewDeadline (10 s), i.e. by 10 s + one retry period.
        assert!(lost_after >= Duration::from_secs(10) && lost_after <= Duration::from_secs(12), "{lost_after:?}");
        assert!(!r.status.lock().expect("status").leading);
        assert!(!r.released, "a lost lease is not released");
    }

    #[test]
    fn a_first_attempt_that_fails_is_retried_without_leading() {
        let clock = FakeClock::new();
        let leases = FakeLeases::new(&clock);
        leases.store().faults.extend([Fault::ServerError, Fault::ServerError]);
        let r = run_for("me_1", &leases, &clock, Duration::from_secs(20));
        assert_eq!(r.result, Ok(()));
        assert_eq!(leading_inputs(&r), [true], "acquired on a later attempt");
        assert!(r.denials.check_required().is_ok(), "a 500 is not a denial");
    }

    #[test]
    fn a_forbidden_lease_backs_off_is_recorded_and_heals_when_granted() {
        let clock = FakeClock::new();
        let leases = FakeLeases::new(&clock);
        leases.store().faults.extend(std::iter::repeat_n(Fault::Forbidden, 4));
        let r = run_for("me_1", &leases, &clock, Duration::from_secs(60));
        assert_eq!(r.result, Ok(()));
        assert_eq!(leading_inputs(&r), [true], "acquired once the grant arrived");
        let s = leases.store();
        let gets: Vec<Instant> = s.requests.iter().filter(|(v, _)| *v == "get").map(|(_, t)| *t).collect();
        let gaps: Vec<Duration> = gets.windows(2).take(4).map(|w| w[1].saturating_duration_since(w[0])).collect();
        // retryPeriod 2 s doubling (jitter up to 20 %): 2, 4, 8, 16 s.
        for (gap, base) in gaps.iter().zip([2u64, 4, 8, 16]) {
            let base = Duration::from_secs(base);
            assert!(*gap >= base && *gap <= base.mul_f64(1.21), "{gaps:?}");
        }
        assert!(r.denials.check_required().is_ok(), "the denial is cleared once access works");
    }

    #[test]
    fn a_denied_lease_is_named_for_readiness_while_it_lasts() {
        let clock = FakeClock::new();
        let leases = FakeLeases::new(&clock);
        leases.store().faults.extend(std::iter::repeat_n(Fault::Forbidden, 100));
        let r = run_for("me_1", &leases, &clock, Duration::from_secs(20));
        assert_eq!(r.result, Ok(()));
        assert!(leading_inputs(&r).is_empty());
        assert_eq!(
            r.denials.check_required(),
            Err("get leases.coordination.k8s.io \"edgesched\" in kube-system forbidden".to_string())
        );
        let status = r.status.lock().expect("status");
        assert_eq!(
            status.check("kube-system/edgesched", r.clock.now()),
            Ok(Some("standing by: acquiring lease kube-system/edgesched".into()))
        );
    }
}
