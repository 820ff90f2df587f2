//! Scheduler events as users read them (`kubectl get events`), with client-go's event-series
//! de-duplication (`staging/src/k8s.io/client-go/tools/events/event_broadcaster.go`,
//! kubernetes/kubernetes at 015189e7cb3606ff399b4a96f12d7d37c62753aa: `recordToSink`,
//! `refreshExistingEventSeries`, `finishSeries`, `getKey`): the first occurrence is created, the
//! second turns it into a series (PATCH `series.count=2`), later ones only bump the count,
//! refreshed on a 30-minute heartbeat (`refreshTime`); a series idle for 6 minutes (`finishTime`)
//! is written one last time and finished, so the next occurrence starts a new event. Isomorphic
//! events share `getKey`'s fields: type, action, reason, reporting controller and instance (one
//! instance per process here), and the whole `regarding` reference — resourceVersion included,
//! so a pod that changed starts a new event.
//!
//! Pure: callers pass `now` and perform the returned [`EventWrite`]s.

use crate::core::api;
use crate::core::framework::status::truncate_note;
use crate::core::model::PodInfo;
use crate::core::texts::events as texts;
use crate::core::timefmt;
use std::collections::HashMap;
use std::time::{Duration, Instant, SystemTime};

/// Series idle longer than this are finished (`finishTime`).
pub const SERIES_FINISH_AFTER: Duration = Duration::from_secs(6 * 60);
/// Ongoing series are re-patched this often (`refreshTime`).
pub const SERIES_REFRESH_EVERY: Duration = Duration::from_secs(30 * 60);

/// Normal or Warning.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum EventType {
    Normal,
    Warning,
}

impl EventType {
    pub fn as_str(&self) -> &'static str {
        match self {
            EventType::Normal => texts::TYPE_NORMAL,
            EventType::Warning => texts::TYPE_WARNING,
        }
    }
}

/// What the scheduler wants to say about a pod.
#[derive(Debug, Clone)]
pub struct EventRecord {
    pub regarding: api::ObjectReference,
    pub type_: EventType,
    pub reason: String,
    pub action: String,
    pub note: String,
    /// The profile's scheduler name (`reportingController`, `source.component` in core/v1 view).
    pub reporting_controller: String,
}

/// An API write the recorder asks for.
#[derive(Debug, Clone)]
pub enum EventWrite {
    /// POST a new events.k8s.io/v1 Event into the regarding object's namespace.
    /// Shared with the series cache, which keeps the event to patch its series later.
    Create(std::sync::Arc<api::Event>),
    /// PATCH the `series` of an event created before (the event carries it). Upstream's
    /// `recordEvent` creates the event anew when the patch finds it gone.
    PatchSeries(Box<api::Event>),
}

impl EventWrite {
    /// The event written.
    pub fn event(&self) -> &api::Event {
        match self {
            EventWrite::Create(e) => e,
            EventWrite::PatchSeries(e) => e,
        }
    }
}

#[derive(Debug, Clone, PartialEq, Eq, Hash)]
struct Key {
    type_: EventType,
    action: String,
    reason: String,
    controller: String,
    regarding: api::ObjectReference,
}

#[derive(Debug)]
struct Cached {
    /// The event as created (its series is filled in when written again).
    event: std::sync::Arc<api::Event>,
    count: u32,
    last_observed: Instant,
    last_observed_wall: SystemTime,
    last_patch: Instant,
}

impl Cached {
    fn series_write(&self) -> EventWrite {
        let mut event = api::Event::clone(&self.event);
        event.series = Some(api::EventSeries {
            count: i32::try_from(self.count).unwrap_or(i32::MAX),
            last_observed_time: timefmt::format_micro(self.last_observed_wall),
        });
        EventWrite::PatchSeries(Box::new(event))
    }
}

/// Event-series bookkeeping plus the `reportingInstance` (`<controller>-<hostname>`).
#[derive(Debug)]
pub struct EventSeries {
    hostname: String,
    cache: HashMap<Key, Cached>,
}

impl EventSeries {
    pub fn new(hostname: &str) -> EventSeries {
        EventSeries { hostname: hostname.to_string(), cache: HashMap::new() }
    }

    /// Record one occurrence; returns the API write to perform now, if any.
    pub fn record(&mut self, ev: &EventRecord, now: Instant, wall: SystemTime) -> Option<EventWrite> {
        let key = Key {
            type_: ev.type_,
            action: ev.action.clone(),
            reason: ev.reason.clone(),
            controller: ev.reporting_controller.clone(),
            regarding: ev.regarding.clone(),
        };
        if let Some(c) = self.cache.get_mut(&key) {
            if now.saturating_duration_since(c.last_observed) <= SERIES_FINISH_AFTER {
                c.count += 1;
                c.last_observed = now;
                c.last_observed_wall = wall;
                if c.count == 2 {
                    c.last_patch = now;
                    return Some(c.series_write());
                }
                return None;
            }
        }
        let event = std::sync::Arc::new(self.build(ev, wall));
        let cached = Cached { event: event.clone(), count: 1, last_observed: now, last_observed_wall: wall, last_patch: now };
        self.cache.insert(key, cached);
        Some(EventWrite::Create(event))
    }

    /// Periodic maintenance: finish idle series, refresh long-running ones.
    pub fn tick(&mut self, now: Instant) -> Vec<EventWrite> {
        let mut writes = Vec::new();
        self.cache.retain(|_, c| {
            if now.saturating_duration_since(c.last_observed) > SERIES_FINISH_AFTER {
                if c.count > 2 && c.last_patch < c.last_observed {
                    writes.push(c.series_write());
                }
                return false;
            }
            if c.count > 2 && now.saturating_duration_since(c.last_patch) >= SERIES_REFRESH_EVERY {
                c.last_patch = now;
                writes.push(c.series_write());
            }
            true
        });
        writes
    }

    /// Number of tracked series (for tests and metrics).
    pub fn len(&self) -> usize {
        self.cache.len()
    }

    pub fn is_empty(&self) -> bool {
        self.cache.is_empty()
    }

    fn build(&self, ev: &EventRecord, wall: SystemTime) -> api::Event {
        let nanos = wall.duration_since(std::time::UNIX_EPOCH).map(|d| d.as_nanos()).unwrap_or(0);
        api::Event {
            kind: "Event".into(),
            api_version: "events.k8s.io/v1".into(),
            metadata: api::ObjectMeta {
                // client-go: fmt.Sprintf("%v.%x", regarding.Name, t.UnixNano())
                name: format!("{}.{:x}", ev.regarding.name, nanos),
                namespace: ev.regarding.namespace.clone(),
                ..Default::default()
            },
            event_time: timefmt::format_micro(wall),
            reporting_controller: ev.reporting_controller.clone(),
            reporting_instance: format!("{}-{}", ev.reporting_controller, self.hostname),
            action: ev.action.clone(),
            reason: ev.reason.clone(),
            regarding: ev.regarding.clone(),
            related: None,
            note: ev.note.clone(),
            type_: ev.type_.as_str().into(),
            series: None,
        }
    }
}

/// `FailedScheduling`/`Scheduling` (Warning) on a pod that could not be scheduled, or was skipped
/// (schedule_one.go handleSchedulingFailure, skipPodSchedule); the note is truncated to the
/// events API's limit.
pub fn failed_scheduling(pod: &PodInfo, profile: &str, message: &str) -> EventRecord {
    EventRecord {
        regarding: pod_reference(&pod.namespace, &pod.name, &pod.uid, &pod.resource_version),
        type_: EventType::Warning,
        reason: texts::REASON_FAILED_SCHEDULING.into(),
        action: texts::ACTION_SCHEDULING.into(),
        note: truncate_note(message),
        reporting_controller: profile.into(),
    }
}

/// `Scheduled`/`Binding` (Normal) on a pod bound to `node` (schedule_one.go bindingCycle).
pub fn scheduled(pod: &PodInfo, node: &str, profile: &str) -> EventRecord {
    EventRecord {
        regarding: pod_reference(&pod.namespace, &pod.name, &pod.uid, &pod.resource_version),
        type_: EventType::Normal,
        reason: texts::REASON_SCHEDULED.into(),
        action: texts::ACTION_BINDING.into(),
        note: texts::scheduled(&pod.namespace, &pod.name, node),
        reporting_controller: profile.into(),
    }
}

/// `Preempted`/`Preempting` (Normal) on a victim evicted for `preemptor_uid` on `node`
/// (preemption.go).
pub fn preempted(namespace: &str, name: &str, uid: &str, preemptor_uid: &str, node: &str, profile: &str) -> EventRecord {
    EventRecord {
        regarding: pod_reference(namespace, name, uid, ""),
        type_: EventType::Normal,
        reason: texts::REASON_PREEMPTED.into(),
        action: texts::ACTION_PREEMPTING.into(),
        note: texts::preempted(preemptor_uid, node),
        reporting_controller: profile.into(),
    }
}

/// `NoSchedulerForName`/`Scheduling` (Warning) on a pending pod whose scheduler name nobody
/// serves (edgesched's own; `note` from [`texts::no_scheduler_for_name`]).
pub fn no_scheduler_for_name(regarding: api::ObjectReference, reporter: &str, note: String) -> EventRecord {
    EventRecord {
        regarding,
        type_: EventType::Warning,
        reason: texts::REASON_NO_SCHEDULER_FOR_NAME.into(),
        action: texts::ACTION_SCHEDULING.into(),
        note,
        reporting_controller: reporter.into(),
    }
}

/// The reference an event about a pod carries (`regarding`).
pub fn pod_reference(namespace: &str, name: &str, uid: &str, resource_version: &str) -> api::ObjectReference {
    api::ObjectReference {
        kind: "Pod".into(),
        api_version: "v1".into(),
        namespace: namespace.into(),
        name: name.into(),
        uid: uid.into(),
        resource_version: resource_version.into(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn failed(note: &str) -> EventRecord {
        EventRecord {
            regarding: pod_reference("default", "p", "u1", "7"),
            type_: EventType::Warning,
            reason: "FailedScheduling".into(),
            action: "Scheduling".into(),
            note: note.into(),
            reporting_controller: "my-scheduler".into(),
        }
    }

    #[test]
    fn first_event_matches_the_real_post_body_shape() {
        // fixtures: events/events.k8s.io-v1-FailedScheduling-post-body-k3s-v1.33.RECONSTRUCTED.json
        let mut s = EventSeries::new("node-a");
        let wall = timefmt::parse_system_time("2025-09-11T20:50:21.450412Z").expect("time");
        let Some(EventWrite::Create(ev)) =
            s.record(&failed("0/1 nodes are available: 1 Insufficient cpu."), Instant::now(), wall)
        else {
            panic!("expected create")
        };
        assert_eq!(ev.event_time, "2025-09-11T20:50:21.450412Z");
        assert_eq!(ev.reporting_instance, "my-scheduler-node-a");
        assert!(ev.metadata.name.starts_with("p.") && ev.metadata.name.len() > 3);
        assert_eq!(ev.type_, "Warning");
        let v = serde_json::to_value(&*ev).expect("json");
        for field in ["action", "eventTime", "note", "reason", "regarding", "reportingController", "reportingInstance", "type"] {
            assert!(v.get(field).is_some(), "missing {field}");
        }
    }

    #[test]
    fn repeats_become_a_series_and_idle_series_finish() {
        let mut s = EventSeries::new("h");
        let t0 = Instant::now();
        let wall = SystemTime::now();
        let series_count = |w: Option<EventWrite>| match w {
            Some(EventWrite::PatchSeries(e)) => e.series.map(|s| s.count),
            _ => None,
        };
        let Some(EventWrite::Create(first)) = s.record(&failed("a"), t0, wall) else { panic!("expected create") };
        let second = s.record(&failed("b"), t0 + Duration::from_secs(1), wall);
        assert_eq!(second.as_ref().map(|w| w.event().metadata.name.clone()), Some(first.metadata.name.clone()));
        assert_eq!(series_count(second), Some(2));
        assert!(s.record(&failed("c"), t0 + Duration::from_secs(2), wall).is_none());
        assert!(s.tick(t0 + Duration::from_secs(60)).is_empty());
        let writes = s.tick(t0 + Duration::from_secs(2) + SERIES_FINISH_AFTER + Duration::from_secs(1));
        assert_eq!(writes.len(), 1);
        assert_eq!(series_count(writes.into_iter().next()), Some(3));
        assert!(s.is_empty());
        assert!(matches!(s.record(&failed("d"), t0 + Duration::from_secs(900), wall), Some(EventWrite::Create(_))));
    }

    #[test]
    fn isomorphic_means_the_whole_regarding_reference_and_type() {
        // event_broadcaster.go getKey: regarding (resourceVersion included) and type are keys.
        let mut s = EventSeries::new("h");
        let (t0, wall) = (Instant::now(), SystemTime::now());
        assert!(matches!(s.record(&failed("a"), t0, wall), Some(EventWrite::Create(_))));
        let mut changed_pod = failed("a");
        changed_pod.regarding.resource_version = "8".into();
        assert!(matches!(s.record(&changed_pod, t0, wall), Some(EventWrite::Create(_))));
        let mut normal = failed("a");
        normal.type_ = EventType::Normal;
        assert!(matches!(s.record(&normal, t0, wall), Some(EventWrite::Create(_))));
        assert_eq!(s.len(), 3);
    }
}
