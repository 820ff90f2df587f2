//! The scheduling queue: activeQ, backoffQ and the unschedulable pool, as upstream's
//! `pkg/scheduler/backend/queue/scheduling_queue.go` (see its AGENTS.md state machine).
//!
//! ```text
//!  add ──PreEnqueue ok──► active ──pop──► in flight ──bind ok──► done
//!    └──gated──► unschedulable(gated) ◄── rejected ─┘   │
//!                     │  cluster event that can help /  └─ error ──► backoff(error)
//!                     │  5 min leftover flush                             │
//!                     └──► backoff (if still backing off) ──expiry──► active
//!                                  └── popped directly when active is empty
//!                                      (SchedulerPopFromBackoffQ, default on)
//! ```
//!
//! Pure: every method takes `now`. The scheduler thread owns the queue; no locks inside.

use crate::core::framework::plugins::priority_sort;
use crate::core::framework::Plugin;
use crate::core::logging::{self, Line};
use crate::core::model::{PodInfo, PodKey};
use std::cmp::Ordering;
use std::collections::{BinaryHeap, HashMap};
use std::sync::Arc;
use std::time::{Duration, Instant};

/// `DefaultPodMaxInUnschedulablePodsDuration`.
pub const MAX_IN_UNSCHEDULABLE: Duration = Duration::from_secs(5 * 60);
/// How often the unschedulable pool is checked for leftovers (`flushUnschedulablePodsLeftover`).
pub const LEFTOVER_FLUSH_INTERVAL: Duration = Duration::from_secs(30);

/// The `event` labels of queue moves that are not cluster events
/// (`pkg/scheduler/framework/events.go`, v1.35).
pub mod event {
    pub const UNSCHEDULED_POD_ADD: &str = crate::core::framework::cluster_events::UNSCHEDULED_POD_ADD_LABEL;
    pub const UNSCHEDULED_POD_UPDATE: &str = "UnschedulablePodUpdate";
    pub const SCHEDULE_ATTEMPT_FAILURE: &str = "ScheduleAttemptFailure";
    pub const BACKOFF_COMPLETE: &str = "BackoffComplete";
    pub const UNSCHEDULABLE_TIMEOUT: &str = "UnschedulableTimeout";
}

/// Where a pod currently is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Location {
    Active,
    /// Backing off after rejection by plugins.
    Backoff,
    /// Backing off after an error (API failure, internal error).
    ErrorBackoff,
    /// Waiting for a cluster event that could help it.
    Unschedulable,
    /// Held back by a PreEnqueue plugin (scheduling gates).
    Gated,
    /// Popped and being scheduled or bound.
    InFlight,
}

pub use crate::core::framework::queued_pod::QueuedPod;

/// Why a popped pod is coming back.
#[derive(Debug, Clone)]
pub enum Requeue {
    /// Filters/PreFilter rejected it; wait for a helpful event.
    Rejected { plugins: Vec<&'static str> },
    /// Something failed that is not the pod's fault; back off and retry.
    Error,
}

/// Sizes per sub-queue, for `scheduler_pending_pods{queue}`.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct PendingCounts {
    pub active: usize,
    pub backoff: usize,
    pub unschedulable: usize,
    pub gated: usize,
}

struct Entry {
    q: QueuedPod,
    loc: Location,
    /// Bumped on every move so stale heap entries can be recognised and skipped.
    seq: u64,
    backoff_expiry: Option<Instant>,
}

struct ActiveItem {
    priority: i32,
    ts: u128,
    seq: u64,
    key: PodKey,
    /// The pod as an out-of-tree QueueSort plugin compares it (`None` under PrioritySort).
    custom: Option<Box<(Arc<dyn Plugin>, QueuedPod)>>,
}

impl PartialEq for ActiveItem {
    fn eq(&self, other: &Self) -> bool {
        self.cmp(other) == Ordering::Equal
    }
}
impl Eq for ActiveItem {}

impl Ord for ActiveItem {
    fn cmp(&self, other: &Self) -> Ordering {
        // BinaryHeap is a max-heap: "greater" = scheduled first.
        if let (Some(a), Some(b)) = (&self.custom, &other.custom) {
            let sort = &a.0;
            return if sort.less(&a.1, &b.1) {
                Ordering::Greater
            } else if sort.less(&b.1, &a.1) {
                Ordering::Less
            } else {
                other.seq.cmp(&self.seq)
            };
        }
        if priority_sort::less(self.priority, self.ts, other.priority, other.ts) {
            Ordering::Greater
        } else if priority_sort::less(other.priority, other.ts, self.priority, self.ts) {
            Ordering::Less
        } else {
            other.seq.cmp(&self.seq)
        }
    }
}
impl PartialOrd for ActiveItem {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}

#[derive(PartialEq, Eq)]
struct BackoffItem {
    /// Backoff expiry, and its 1 s ordering window (SchedulerPopFromBackoffQ).
    expiry: u128,
    window: u128,
    inner: ActiveItem,
}

impl Ord for BackoffItem {
    fn cmp(&self, other: &Self) -> Ordering {
        // Earliest window first; within a window, queue-sort order.
        other.window.cmp(&self.window).then_with(|| self.inner.cmp(&other.inner))
    }
}
impl PartialOrd for BackoffItem {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}

/// The scheduling queue.
pub struct SchedulingQueue {
    /// An out-of-tree QueueSort plugin replacing PrioritySort's order.
    sort: Option<Arc<dyn Plugin>>,
    entries: HashMap<PodKey, Entry>,
    active: BinaryHeap<ActiveItem>,
    backoff: BinaryHeap<BackoffItem>,
    error_backoff: BinaryHeap<BackoffItem>,
    initial_backoff: Duration,
    max_backoff: Duration,
    /// Reference point for converting instants to integers.
    epoch: Instant,
    seq: u64,
    last_leftover_flush: Instant,
    /// `pod-max-in-unschedulable-pods-duration`.
    max_in_unschedulable: Duration,
    /// SchedulerPopFromBackoffQ (on by default in v1.35).
    pop_from_backoff: bool,
    /// (queue, event) of every move since the last [`SchedulingQueue::take_incoming`].
    incoming: Vec<(&'static str, &'static str)>,
}

/// `scheduling_queue.go`'s "Pod moved to an internal scheduling queue": V(3) after a failed
/// attempt (with the rejecting plugins), V(5) for every other move. Queue names as upstream's
/// constants (`Active`, `Backoff`, `Unschedulable`; gated pods wait in unschedulablePods).
fn log_move(q: &QueuedPod, loc: Location, event: &'static str) {
    let queue = match loc {
        Location::Active => "Active",
        Location::Backoff | Location::ErrorBackoff => "Backoff",
        Location::Unschedulable | Location::Gated => "Unschedulable",
        Location::InFlight => return,
    };
    let failed = event == event::SCHEDULE_ATTEMPT_FAILURE;
    logging::v(if failed { 3 } else { 5 }, || {
        let line =
            Line::new("Pod moved to an internal scheduling queue").o("pod", &q.pod.key).s("event", event).s("queue", queue);
        if failed {
            line.l("unschedulable plugins", q.rejectors.iter())
        } else {
            line
        }
    });
}

impl SchedulingQueue {
    pub fn new(initial_backoff: Duration, max_backoff: Duration, now: Instant) -> SchedulingQueue {
        SchedulingQueue {
            sort: None,
            entries: HashMap::new(),
            active: BinaryHeap::new(),
            backoff: BinaryHeap::new(),
            error_backoff: BinaryHeap::new(),
            initial_backoff,
            max_backoff,
            epoch: now,
            seq: 0,
            last_leftover_flush: now,
            max_in_unschedulable: MAX_IN_UNSCHEDULABLE,
            pop_from_backoff: true,
            incoming: Vec::new(),
        }
    }

    /// Override how long a pod may wait in the unschedulable pool before the leftover flush
    /// moves it (`--pod-max-in-unschedulable-pods-duration`).
    /// Order pods with an out-of-tree QueueSort plugin's `less` instead of PrioritySort's
    /// (set before pods arrive). `less` must be a strict weak order: it is what keeps the heap.
    pub fn set_sort(&mut self, sort: Arc<dyn Plugin>) {
        self.sort = Some(sort);
    }

    /// The pods held back by a PreEnqueue plugin.
    pub fn gated(&self) -> impl Iterator<Item = &QueuedPod> {
        self.entries.values().filter(|e| e.loc == Location::Gated).map(|e| &e.q)
    }

    fn item(&self, q: &QueuedPod, seq: u64, key: PodKey) -> ActiveItem {
        ActiveItem {
            priority: q.pod.priority,
            ts: self.nanos(q.timestamp),
            seq,
            key,
            custom: self.sort.as_ref().map(|s| Box::new((s.clone(), q.clone()))),
        }
    }

    pub fn set_max_in_unschedulable(&mut self, d: Duration) {
        self.max_in_unschedulable = d;
    }

    /// Feature gate `SchedulerPopFromBackoffQ`: when off, pods wait out their backoff even
    /// while activeQ is empty.
    pub fn set_pop_from_backoff(&mut self, on: bool) {
        self.pop_from_backoff = on;
    }

    /// The (queue, event) pairs of the moves since the last call
    /// (`scheduler_queue_incoming_pods_total`).
    pub fn take_incoming(&mut self) -> Vec<(&'static str, &'static str)> {
        std::mem::take(&mut self.incoming)
    }

    fn nanos(&self, t: Instant) -> u128 {
        t.saturating_duration_since(self.epoch).as_nanos()
    }

    fn next_seq(&mut self) -> u64 {
        self.seq += 1;
        self.seq
    }

    /// Number of pods known to the queue (including in-flight ones).
    pub fn len(&self) -> usize {
        self.entries.len()
    }

    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }

    /// Where a pod is, if queued.
    pub fn location(&self, key: &str) -> Option<Location> {
        self.entries.get(key).map(|e| e.loc)
    }

    /// The queued version of a pod.
    pub fn get(&self, key: &str) -> Option<&QueuedPod> {
        self.entries.get(key).map(|e| &e.q)
    }

    /// Backoff duration after `count` failures: initial·2^(count−1), capped at max; 0 when max is 0.
    pub fn backoff_duration(&self, count: u32) -> Duration {
        if count == 0 || self.max_backoff.is_zero() {
            return Duration::ZERO;
        }
        let mut d = self.initial_backoff;
        for _ in 1..count {
            if d > self.max_backoff.saturating_sub(d) {
                return self.max_backoff;
            }
            d += d;
        }
        d.min(self.max_backoff)
    }

    fn backoff_expiry(&self, q: &QueuedPod) -> Instant {
        let count = if q.consecutive_errors > 0 { q.consecutive_errors } else { q.unschedulable_count };
        q.timestamp + self.backoff_duration(count)
    }

    /// Put a pod in `loc`; `event` names the move for the incoming-pods counter (`None` when
    /// the pod only changes in place).
    fn place(&mut self, key: PodKey, mut q: QueuedPod, loc: Location, now: Instant, event: Option<&'static str>) {
        if let Some(event) = event {
            let queue = match loc {
                Location::Active => Some("active"),
                Location::Backoff | Location::ErrorBackoff => Some("backoff"),
                Location::Unschedulable => Some("unschedulable"),
                Location::Gated => Some("gated"),
                Location::InFlight => None,
            };
            if let Some(queue) = queue {
                self.incoming.push((queue, event));
                log_move(&q, loc, event);
            }
        }
        // InitialAttemptTimestamp: the first time the pod enters activeQ (the SLI's start).
        if loc == Location::Active && q.initial_attempt.is_none() {
            q.initial_attempt = Some(now);
        }
        let seq = self.next_seq();
        let mut backoff_expiry = None;
        match loc {
            Location::Active => {
                let item = self.item(&q, seq, key.clone());
                self.active.push(item);
            }
            Location::Backoff | Location::ErrorBackoff => {
                let expiry = self.backoff_expiry(&q);
                backoff_expiry = Some(expiry);
                let e = self.nanos(expiry);
                let item = BackoffItem { expiry: e, window: e / 1_000_000_000, inner: self.item(&q, seq, key.clone()) };
                if loc == Location::Backoff {
                    self.backoff.push(item);
                } else {
                    self.error_backoff.push(item);
                }
            }
            Location::Unschedulable | Location::Gated | Location::InFlight => {}
        }
        if loc == Location::Gated {
            q.timestamp = now;
        }
        self.entries.insert(key, Entry { q, loc, seq, backoff_expiry });
    }

    /// A new unscheduled pod arrives. `gate` is the PreEnqueue verdict (plugin, message) if gated.
    pub fn add(&mut self, pod: Arc<PodInfo>, gate: Option<(&'static str, String)>, now: Instant) {
        let key = pod.key.clone();
        if self.entries.contains_key(&key) {
            self.update(pod, gate, now);
            return;
        }
        let mut q = QueuedPod::new(pod, now);
        match gate {
            Some((plugin, msg)) => {
                q.gating_plugin = Some(plugin);
                q.gate_message = msg;
                self.place(key, q, Location::Gated, now, Some(event::UNSCHEDULED_POD_ADD));
            }
            None => self.place(key, q, Location::Active, now, Some(event::UNSCHEDULED_POD_ADD)),
        }
    }

    /// The pod object changed. Gated pods whose gates are gone and unschedulable pods whose spec
    /// changed get another chance (upstream `Update` → `isPodUpdated` → move).
    pub fn update(&mut self, pod: Arc<PodInfo>, gate: Option<(&'static str, String)>, now: Instant) {
        let key = pod.key.clone();
        let Some(entry) = self.entries.remove(&key) else {
            self.add(pod, gate, now);
            return;
        };
        let mut q = entry.q;
        q.pod = pod;
        match (entry.loc, gate) {
            (Location::InFlight, _) => {
                self.entries.insert(key, Entry { q, ..entry });
            }
            (loc, Some((plugin, msg))) => {
                q.gating_plugin = Some(plugin);
                q.gate_message = msg;
                let moved = (loc != Location::Gated).then_some(event::UNSCHEDULED_POD_UPDATE);
                self.place(key, q, Location::Gated, now, moved);
            }
            (Location::Gated, None) => {
                q.gating_plugin = None;
                q.gate_message.clear();
                q.timestamp = now;
                self.place(key, q, Location::Active, now, Some(event::UNSCHEDULED_POD_UPDATE));
            }
            (Location::Unschedulable, None) => {
                let loc = if self.backoff_expiry(&q) > now { Location::Backoff } else { Location::Active };
                self.place(key, q, loc, now, Some(event::UNSCHEDULED_POD_UPDATE));
            }
            (loc, None) => self.place(key, q, loc, now, None),
        }
    }

    /// Replace the pod object without moving it (an update that cannot change the scheduling
    /// outcome, e.g. a status-only change such as our own PodScheduled condition).
    pub fn refresh(&mut self, pod: Arc<PodInfo>) {
        if let Some(e) = self.entries.get_mut(&*pod.key) {
            e.q.pod = pod;
        }
    }

    /// The pod was deleted (or is no longer ours): it leaves the queue wherever it is.
    pub fn delete(&mut self, key: &str) -> bool {
        self.entries.remove(key).is_some()
    }

    /// Move completed backoffs to active and, every 30 s, unschedulable leftovers older than 5 min.
    pub fn flush(&mut self, now: Instant) {
        for error_queue in [false, true] {
            loop {
                let heap = if error_queue { &self.error_backoff } else { &self.backoff };
                let Some(top) = heap.peek() else { break };
                let live = self.entries.get(&top.inner.key).is_some_and(|e| e.seq == top.inner.seq);
                if live && top.expiry > self.nanos(now) {
                    break;
                }
                let heap = if error_queue { &mut self.error_backoff } else { &mut self.backoff };
                let Some(item) = heap.pop() else { break };
                if !live {
                    continue;
                }
                if let Some(e) = self.entries.remove(&item.inner.key) {
                    self.place(item.inner.key, e.q, Location::Active, now, Some(event::BACKOFF_COMPLETE));
                }
            }
        }
        if now.saturating_duration_since(self.last_leftover_flush) >= LEFTOVER_FLUSH_INTERVAL {
            self.last_leftover_flush = now;
            let mut stale: Vec<PodKey> = self
                .entries
                .iter()
                .filter(|(_, e)| {
                    e.loc == Location::Unschedulable && now.saturating_duration_since(e.q.timestamp) > self.max_in_unschedulable
                })
                .map(|(k, _)| k.clone())
                .collect();
            // In key order: equal timestamps are ordered by when pods were placed, which must
            // not follow the map's iteration order (it differs from process to process).
            stale.sort_unstable();
            for key in stale {
                self.requeue_from_unschedulable(&key, now, event::UNSCHEDULABLE_TIMEOUT);
            }
        }
    }

    fn requeue_from_unschedulable(&mut self, key: &str, now: Instant, event: &'static str) {
        if let Some(mut e) = self.entries.remove(key) {
            e.q.flushed = event == event::UNSCHEDULABLE_TIMEOUT;
            let loc = if self.backoff_expiry(&e.q) > now { Location::Backoff } else { Location::Active };
            self.place(e.q.pod.key.clone(), e.q, loc, now, Some(event));
        }
    }

    /// Pop the next pod to schedule: the head of activeQ, or — when activeQ is empty — the head of
    /// the (rejection) backoffQ even if its backoff has not expired (SchedulerPopFromBackoffQ).
    pub fn pop(&mut self, now: Instant) -> Option<QueuedPod> {
        self.flush(now);
        let key = loop {
            if let Some(item) = self.active.pop() {
                if self.entries.get(&item.key).is_some_and(|e| e.seq == item.seq && e.loc == Location::Active) {
                    break item.key;
                }
                continue;
            }
            if !self.pop_from_backoff {
                return None;
            }
            let item = self.backoff.pop()?;
            if self.entries.get(&item.inner.key).is_some_and(|e| e.seq == item.inner.seq && e.loc == Location::Backoff) {
                break item.inner.key;
            }
        };
        let e = self.entries.get_mut(&key)?;
        e.loc = Location::InFlight;
        e.q.attempts += 1;
        if e.q.initial_attempt.is_none() {
            e.q.initial_attempt = Some(now);
        }
        Some(e.q.clone())
    }

    /// The popped pod is bound (or being bound) or dropped: forget it.
    pub fn done(&mut self, key: &str) {
        if self.entries.get(key).is_some_and(|e| e.loc == Location::InFlight) {
            self.entries.remove(key);
        }
    }

    /// A popped pod failed (`AddUnschedulableIfNotPresent`). Only pods still in flight are
    /// requeued: a pod deleted meanwhile stays gone, and a newer version that arrived meanwhile
    /// is kept with this attempt's history.
    pub fn requeue(&mut self, key: &str, why: Requeue, now: Instant) {
        let Some(e) = self.entries.remove(key) else { return };
        if e.loc != Location::InFlight {
            self.entries.insert(e.q.pod.key.clone(), e);
            return;
        }
        let mut q = e.q;
        q.timestamp = now;
        let loc = match why {
            Requeue::Rejected { plugins } => {
                q.unschedulable_count += 1;
                q.consecutive_errors = 0;
                q.rejectors = plugins;
                Location::Unschedulable
            }
            Requeue::Error => {
                q.consecutive_errors += 1;
                q.rejectors.clear();
                Location::ErrorBackoff
            }
        };
        let key = q.pod.key.clone();
        self.place(key, q, loc, now, Some(event::SCHEDULE_ATTEMPT_FAILURE));
    }

    /// A cluster event happened: unschedulable (and gated) pods for which `helps` says the event
    /// could make them schedulable move to backoffQ (still backing off) or activeQ.
    /// `event` is the cluster event's label.
    pub fn move_on_event(&mut self, now: Instant, event: &'static str, mut helps: impl FnMut(&QueuedPod) -> bool) -> usize {
        let mut candidates: Vec<PodKey> = self
            .entries
            .iter()
            .filter(|(_, e)| e.loc == Location::Unschedulable && helps(&e.q))
            .map(|(k, _)| k.clone())
            .collect();
        // In key order (see `flush`).
        candidates.sort_unstable();
        let n = candidates.len();
        for key in candidates {
            self.requeue_from_unschedulable(&key, now, event);
        }
        n
    }

    /// When the scheduler loop should wake up next to make progress without new input.
    pub fn next_wakeup(&self, now: Instant) -> Option<Instant> {
        let mut next: Option<Instant> = None;
        let mut consider = |t: Instant| next = Some(next.map_or(t, |n| n.min(t)));
        for e in self.entries.values() {
            if let (Location::Backoff | Location::ErrorBackoff, Some(t)) = (e.loc, e.backoff_expiry) {
                consider(t);
            }
        }
        if self.entries.values().any(|e| e.loc == Location::Unschedulable) {
            consider(self.last_leftover_flush + LEFTOVER_FLUSH_INTERVAL);
        }
        next.map(|t| t.max(now))
    }

    /// Whether a pod is ready to pop right now.
    pub fn has_runnable(&self) -> bool {
        // Fast path: a live head of activeQ or backoffQ (the heaps keep stale items until
        // popped, so a stale head falls back to the full scan).
        let live = |key: &PodKey, seq: u64, loc: Location| self.entries.get(key).is_some_and(|e| e.seq == seq && e.loc == loc);
        let backoff = self.pop_from_backoff;
        if self.active.peek().is_some_and(|i| live(&i.key, i.seq, Location::Active))
            || (backoff && self.backoff.peek().is_some_and(|i| live(&i.inner.key, i.inner.seq, Location::Backoff)))
        {
            return true;
        }
        self.entries.values().any(|e| e.loc == Location::Active || (backoff && e.loc == Location::Backoff))
    }

    /// Pending pods per sub-queue.
    pub fn counts(&self) -> PendingCounts {
        let mut c = PendingCounts::default();
        for e in self.entries.values() {
            match e.loc {
                Location::Active => c.active += 1,
                Location::Backoff | Location::ErrorBackoff => c.backoff += 1,
                Location::Unschedulable => c.unschedulable += 1,
                Location::Gated => c.gated += 1,
                Location::InFlight => {}
            }
        }
        c
    }

    /// Every queued pod with its location (for status/explain and tests).
    pub fn iter(&self) -> impl Iterator<Item = (&QueuedPod, Location)> {
        self.entries.values().map(|e| (&e.q, e.loc))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::core::api;
    use crate::core::model::NoPriorityClasses;

    fn pod(name: &str, priority: i32) -> Arc<PodInfo> {
        let mut p = api::Pod::default();
        p.metadata.namespace = "ns".into();
        p.metadata.name = name.into();
        p.spec.priority = Some(priority);
        Arc::new(PodInfo::from_api(&p, &NoPriorityClasses))
    }

    fn q(now: Instant) -> SchedulingQueue {
        SchedulingQueue::new(Duration::from_secs(1), Duration::from_secs(10), now)
    }

    fn names(queue: &mut SchedulingQueue, now: Instant) -> Vec<String> {
        let mut out = Vec::new();
        while let Some(p) = queue.pop(now) {
            out.push(p.pod.name.to_string());
            queue.done(&p.pod.key);
        }
        out
    }

    #[test]
    fn priority_then_arrival_order() {
        let t0 = Instant::now();
        let mut queue = q(t0);
        queue.add(pod("low-early", 0), None, t0);
        queue.add(pod("high", 10), None, t0 + Duration::from_millis(1));
        queue.add(pod("low-late", 0), None, t0 + Duration::from_millis(2));
        queue.add(pod("mid", 5), None, t0 + Duration::from_millis(3));
        assert_eq!(names(&mut queue, t0), ["high", "mid", "low-early", "low-late"]);
    }

    #[test]
    fn backoff_doubles_up_to_max() {
        let queue = q(Instant::now());
        let secs: Vec<u64> = (1..=6).map(|n| queue.backoff_duration(n).as_secs()).collect();
        assert_eq!(secs, [1, 2, 4, 8, 10, 10]);
        assert_eq!(queue.backoff_duration(0), Duration::ZERO);
        let none = SchedulingQueue::new(Duration::from_secs(1), Duration::ZERO, Instant::now());
        assert_eq!(none.backoff_duration(3), Duration::ZERO);
    }

    #[test]
    fn rejected_pod_waits_for_helpful_event_then_backs_off() {
        let t0 = Instant::now();
        let mut queue = q(t0);
        queue.add(pod("a", 0), None, t0);
        let p = queue.pop(t0).expect("pod");
        queue.requeue(&p.pod.key, Requeue::Rejected { plugins: vec!["NodeResourcesFit"] }, t0);
        assert_eq!(queue.location("ns/a"), Some(Location::Unschedulable));
        assert!(queue.pop(t0).is_none(), "unschedulable pods are not popped");
        // an event that does not help keeps it there
        assert_eq!(queue.move_on_event(t0, "NodeAdd", |qp| !qp.rejectors.contains(&"NodeResourcesFit")), 0);
        assert_eq!(queue.location("ns/a"), Some(Location::Unschedulable));
        // a helpful event within the backoff window moves it to backoffQ ...
        assert_eq!(queue.move_on_event(t0 + Duration::from_millis(100), "NodeAdd", |_| true), 1);
        assert_eq!(queue.location("ns/a"), Some(Location::Backoff));
        // ... from which an idle scheduler may pop it directly (SchedulerPopFromBackoffQ)
        let p = queue.pop(t0 + Duration::from_millis(200)).expect("popped from backoffQ");
        assert_eq!(p.attempts, 2);
    }

    #[test]
    fn errors_back_off_and_are_not_popped_early() {
        let t0 = Instant::now();
        let mut queue = q(t0);
        queue.add(pod("a", 0), None, t0);
        let p = queue.pop(t0).expect("pod");
        queue.requeue(&p.pod.key, Requeue::Error, t0);
        assert_eq!(queue.location("ns/a"), Some(Location::ErrorBackoff));
        assert!(queue.pop(t0 + Duration::from_millis(999)).is_none());
        assert_eq!(queue.next_wakeup(t0), Some(t0 + Duration::from_secs(1)));
        let p = queue.pop(t0 + Duration::from_secs(1)).expect("backoff expired");
        queue.requeue(&p.pod.key, Requeue::Error, t0 + Duration::from_secs(1));
        assert!(queue.pop(t0 + Duration::from_millis(2999)).is_none(), "second error backs off 2 s");
        assert!(queue.pop(t0 + Duration::from_secs(3)).is_some());
    }

    #[test]
    fn leftover_flush_after_five_minutes() {
        let t0 = Instant::now();
        let mut queue = q(t0);
        queue.add(pod("a", 0), None, t0);
        let p = queue.pop(t0).expect("pod");
        queue.requeue(&p.pod.key, Requeue::Rejected { plugins: vec!["X"] }, t0);
        queue.flush(t0 + Duration::from_secs(299));
        assert_eq!(queue.location("ns/a"), Some(Location::Unschedulable));
        queue.flush(t0 + Duration::from_secs(330));
        assert_eq!(queue.location("ns/a"), Some(Location::Active));
    }

    #[test]
    fn gates_hold_pods_until_removed_and_deletes_leave() {
        let t0 = Instant::now();
        let mut queue = q(t0);
        queue.add(pod("g", 0), Some(("SchedulingGates", "waiting".into())), t0);
        assert_eq!(queue.counts(), PendingCounts { gated: 1, ..Default::default() });
        assert!(queue.pop(t0).is_none());
        queue.update(pod("g", 0), None, t0);
        assert_eq!(queue.location("ns/g"), Some(Location::Active));
        assert!(queue.delete("ns/g"));
        assert!(queue.pop(t0).is_none());
    }

    #[test]
    fn requeue_after_delete_is_ignored_and_update_in_flight_keeps_attempt() {
        let t0 = Instant::now();
        let mut queue = q(t0);
        queue.add(pod("a", 0), None, t0);
        let p = queue.pop(t0).expect("pod");
        queue.delete(&p.pod.key);
        queue.requeue(&p.pod.key, Requeue::Error, t0);
        assert!(queue.is_empty());
        queue.add(pod("b", 0), None, t0);
        let p = queue.pop(t0).expect("pod");
        queue.update(pod("b", 7), None, t0);
        assert_eq!(queue.location("ns/b"), Some(Location::InFlight));
        queue.requeue(&p.pod.key, Requeue::Rejected { plugins: vec![] }, t0);
        assert_eq!(queue.get("ns/b").map(|q| q.pod.priority), Some(7));
    }

    /// SchedulerPopFromBackoffQ off: a pod backing off is not popped early even with activeQ
    /// empty; it is once its backoff completes.
    #[test]
    fn without_pop_from_backoff_pods_wait_out_their_backoff() {
        let now = Instant::now();
        let mut q = SchedulingQueue::new(Duration::from_secs(1), Duration::from_secs(10), now);
        q.set_pop_from_backoff(false);
        q.add(pod("p", 0), None, now);
        let popped = q.pop(now).expect("active");
        q.requeue(&popped.pod.key, Requeue::Rejected { plugins: vec!["NodeResourcesFit"] }, now);
        q.move_on_event(now, "NodeAdd", |_| true);
        assert_eq!(q.location(&popped.pod.key), Some(Location::Backoff));
        assert!(!q.has_runnable());
        assert!(q.pop(now).is_none());
        let later = now + Duration::from_secs(2);
        assert!(q.pop(later).is_some(), "after the backoff");
    }
}
