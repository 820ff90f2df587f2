//! Scheduler events as users read them (`kubectl get events`), with client-go's event-series
//! de-duplication (`staging/src/k8s.io/client-go/tools/events/event_broadcaster.go`,
//! kubernetes/kubernetes at 015189e7cb3606ff399b4a96f12d7d37c62753aa: `recordToSink`,
//! `refreshExistingEventSeries`, `finishSeries`, `getKey`): the first occurrence is created, the
//! second turns it into a series (PATCH `series.count=2`), later ones only bump the count,
//! refreshed on a 30-minute heartbeat (`refreshTime`); a series idle for 6 minutes (`finishTime`)
//! is written one last time and finished, so the next occurrence starts a new event. Isomorphic
//! events share `getKey`'s fields: type, action, reason, reporting controller and instance (one
//! instance per process here), the whole `regarding` reference — resourceVersion included,
//! so a pod that changed starts a new event — and the `related` one (a preemption victim's
//! preemptor), so two preemptors of one victim make two events.
//!
//! Pure: callers pass `now` and perform the returned [`EventWrite`]s, whose JSON bodies are
//! written here.

use crate::core::api;
use crate::core::framework::status::truncate_note;
use crate::core::model::PodInfo;
use crate::core::texts::events as texts;
use crate::core::timefmt;
use std::collections::HashMap;
use std::sync::Arc;
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
    /// The object the event is also about (`related`: a preemption victim's preemptor).
    pub related: Option<api::ObjectReference>,
    pub type_: EventType,
    pub reason: String,
    pub action: String,
    pub note: String,
    /// The profile's scheduler name (`reportingController`, `source.component` in core/v1 view).
    pub reporting_controller: String,
}

/// An API write the recorder asks for: the event (as first created) and, once it repeated, its
/// series. It shares the series cache's text, so queueing or retrying one allocates nothing.
#[derive(Debug, Clone)]
pub struct EventWrite {
    /// The event's identity ([`EventSeries`]' packed key).
    key: Arc<str>,
    /// The note of the first occurrence.
    note: Arc<str>,
    /// When the first occurrence was recorded (`eventTime`, and the name's suffix).
    first: SystemTime,
    /// `series.count` and `series.lastObservedTime`, once the event repeated. Upstream's
    /// `recordEvent` creates the event anew, series included, when a series patch finds it gone.
    series: Option<(i32, SystemTime)>,
}

/// The fields of a packed key, in [`pack`]'s order.
struct Fields<'a> {
    type_: &'a str,
    action: &'a str,
    reason: &'a str,
    controller: &'a str,
    /// kind, apiVersion, namespace, name, uid, resourceVersion of `regarding`.
    regarding: [&'a str; 6],
    /// The same fields of `related`, when the event has one.
    related: Option<[&'a str; 6]>,
}

/// Names of the `regarding` reference's fields, as [`Fields::regarding`] holds them.
const REFERENCE_FIELDS: [&str; 6] = ["kind", "apiVersion", "namespace", "name", "uid", "resourceVersion"];

impl EventWrite {
    fn fields(&self) -> Fields<'_> {
        let mut it = self.key.split('\0');
        let mut next = || it.next().unwrap_or("");
        let (type_, action, reason, controller) = (next(), next(), next(), next());
        let regarding = std::array::from_fn(|_| next());
        // `pack` writes the related reference's fields only when there is one.
        let related = it.next().map(|kind| {
            let mut next = || it.next().unwrap_or("");
            [kind, next(), next(), next(), next(), next()]
        });
        Fields { type_, action, reason, controller, regarding, related }
    }

    /// Whether this write patches the series of an event created before.
    pub fn is_series(&self) -> bool {
        self.series.is_some()
    }

    /// The event's reason (for logs).
    pub fn reason(&self) -> &str {
        self.fields().reason
    }

    /// The namespace the event lives in (the regarding object's).
    pub fn namespace(&self) -> &str {
        self.fields().regarding[2]
    }

    /// The event's name; client-go: `fmt.Sprintf("%v.%x", regarding.Name, t.UnixNano())`.
    pub fn name(&self) -> String {
        let nanos = self.first.duration_since(std::time::UNIX_EPOCH).map(|d| d.as_nanos()).unwrap_or(0);
        format!("{}.{:x}", self.fields().regarding[3], nanos)
    }

    /// The events.k8s.io/v1 Event to POST, as JSON (the shape of [`api::Event`]);
    /// `reportingInstance` is `<controller>-<hostname>`.
    pub fn event_json(&self, hostname: &str) -> Vec<u8> {
        let f = self.fields();
        let mut o = Json::object(256 + self.note.len());
        o.field("kind", "Event").field("apiVersion", "events.k8s.io/v1");
        o.key("metadata").open().field("name", &self.name()).field("namespace", f.regarding[2]).close();
        o.field("eventTime", &timefmt::format_micro(self.first)).field("reportingController", f.controller);
        o.field("reportingInstance", &format!("{}-{hostname}", f.controller));
        o.field("action", f.action).field("reason", f.reason).reference("regarding", &f.regarding);
        if let Some(related) = &f.related {
            o.reference("related", related);
        }
        o.field("note", &self.note).field("type", f.type_);
        if let Some((count, last)) = self.series {
            o.key("series").open().number("count", count).field("lastObservedTime", &timefmt::format_micro(last)).close();
        }
        o.finish()
    }

    /// The core/v1 view of the event (the fallback when events.k8s.io is not served; the shape
    /// of [`api::CoreEvent`]): timestamps to the second, the series count as `count`.
    pub fn core_event_json(&self, hostname: &str) -> Vec<u8> {
        let f = self.fields();
        let first = timefmt::format_rfc3339(self.first);
        let (count, last) = match self.series {
            Some((count, last)) => (count, timefmt::format_rfc3339(last)),
            None => (1, first.clone()),
        };
        let mut o = Json::object(256 + self.note.len());
        o.field("kind", "Event").field("apiVersion", "v1");
        o.key("metadata").open().field("name", &self.name()).field("namespace", f.regarding[2]).close();
        o.reference("involvedObject", &f.regarding).field("reason", f.reason).field("message", &self.note);
        o.key("source").open().field_nonempty("component", f.controller).field_nonempty("host", hostname).close();
        o.field("firstTimestamp", &first).field("lastTimestamp", &last).number("count", count).field("type", f.type_);
        o.field_nonempty("reportingComponent", f.controller);
        o.field_nonempty("reportingInstance", &format!("{}-{hostname}", f.controller));
        o.field_nonempty("action", f.action);
        o.finish()
    }

    /// The merge patch that updates the series: `{"series":{...}}` for events.k8s.io/v1,
    /// `{"count":..,"lastTimestamp":..}` for core/v1.
    pub fn series_patch_json(&self, core_v1: bool) -> Vec<u8> {
        let (count, last) = self.series.unwrap_or((1, self.first));
        let mut o = Json::object(96);
        if core_v1 {
            o.number("count", count).field("lastTimestamp", &timefmt::format_rfc3339(last));
        } else {
            o.key("series").open().number("count", count).field("lastObservedTime", &timefmt::format_micro(last)).close();
        }
        o.finish()
    }
}

/// A JSON object written straight into bytes (event bodies are written by the thousand; a tree
/// of values first cost an allocation per field).
struct Json {
    out: Vec<u8>,
    /// Whether the object being written has no member yet.
    first: bool,
}

impl Json {
    fn object(capacity: usize) -> Json {
        let mut out = Vec::with_capacity(capacity);
        out.push(b'{');
        Json { out, first: true }
    }
    fn string(&mut self, s: &str) {
        // Writing a string into a vector cannot fail.
        let _ = serde_json::to_writer(&mut self.out, s);
    }
    fn key(&mut self, k: &str) -> &mut Json {
        if !self.first {
            self.out.push(b',');
        }
        self.first = false;
        self.string(k);
        self.out.push(b':');
        self
    }
    fn open(&mut self) -> &mut Json {
        self.out.push(b'{');
        self.first = true;
        self
    }
    fn close(&mut self) -> &mut Json {
        self.out.push(b'}');
        self.first = false;
        self
    }
    fn field(&mut self, k: &str, v: &str) -> &mut Json {
        self.key(k).string(v);
        self
    }
    /// A string member left out when empty (`omitempty`).
    fn field_nonempty(&mut self, k: &str, v: &str) -> &mut Json {
        if !v.is_empty() {
            self.field(k, v);
        }
        self
    }
    fn number(&mut self, k: &str, v: i32) -> &mut Json {
        self.key(k).out.extend_from_slice(v.to_string().as_bytes());
        self
    }
    /// An `ObjectReference` (every field `omitempty`).
    fn reference(&mut self, k: &str, fields: &[&str; 6]) -> &mut Json {
        self.key(k).open();
        for (name, value) in REFERENCE_FIELDS.iter().zip(fields) {
            self.field_nonempty(name, value);
        }
        self.close()
    }
    fn finish(mut self) -> Vec<u8> {
        self.out.push(b'}');
        self.out
    }
}

/// The identity of an event for series de-duplication (`getKey`: type, action, reason,
/// reporting controller, the whole `regarding` reference and the `related` one when there is
/// one), packed in one string: one allocation per series instead of one per field. NUL cannot
/// occur in these API strings.
fn pack(ev: &EventRecord) -> String {
    fn reference(r: &api::ObjectReference) -> [&str; 6] {
        [&r.kind, &r.api_version, &r.namespace, &r.name, &r.uid, &r.resource_version]
    }
    let head = [ev.type_.as_str(), &ev.action, &ev.reason, &ev.reporting_controller];
    let regarding = reference(&ev.regarding);
    let related = ev.related.as_ref().map(reference);
    let parts = || head.iter().chain(&regarding).chain(related.iter().flatten());
    let mut key = String::with_capacity(parts().map(|p| p.len() + 1).sum());
    for (i, p) in parts().enumerate() {
        if i > 0 {
            key.push('\0');
        }
        key.push_str(p);
    }
    key
}

/// One series in the cache: what is needed to write it again, and its timing. About 100 bytes
/// plus the packed key and the note (a series lives up to [`SERIES_FINISH_AFTER`] after its last
/// occurrence, so thousands may be cached at once).
#[derive(Debug)]
struct Cached {
    /// The map's key, shared (no second copy).
    key: Arc<str>,
    note: Arc<str>,
    first: SystemTime,
    count: u32,
    last_observed: Instant,
    last_observed_wall: SystemTime,
    last_patch: Instant,
}

impl Cached {
    fn write(&self, series: bool) -> EventWrite {
        let series = series.then(|| (i32::try_from(self.count).unwrap_or(i32::MAX), self.last_observed_wall));
        EventWrite { key: self.key.clone(), note: self.note.clone(), first: self.first, series }
    }
}

/// Event-series bookkeeping plus the `reportingInstance` (`<controller>-<hostname>`).
#[derive(Debug)]
pub struct EventSeries {
    cache: HashMap<Arc<str>, Cached>,
}

impl EventSeries {
    pub fn new() -> EventSeries {
        EventSeries { cache: HashMap::new() }
    }

    /// Record one occurrence; returns the API write to perform now, if any.
    pub fn record(&mut self, ev: &EventRecord, now: Instant, wall: SystemTime) -> Option<EventWrite> {
        let key = pack(ev);
        if let Some(c) = self.cache.get_mut(key.as_str()) {
            if now.saturating_duration_since(c.last_observed) <= SERIES_FINISH_AFTER {
                c.count += 1;
                c.last_observed = now;
                c.last_observed_wall = wall;
                if c.count == 2 {
                    c.last_patch = now;
                    return Some(c.write(true));
                }
                return None;
            }
        }
        let key: Arc<str> = key.into();
        let cached = Cached {
            key: key.clone(),
            note: ev.note.as_str().into(),
            first: wall,
            count: 1,
            last_observed: now,
            last_observed_wall: wall,
            last_patch: now,
        };
        let write = cached.write(false);
        self.cache.insert(key, cached);
        Some(write)
    }

    /// Periodic maintenance: finish idle series, refresh long-running ones.
    pub fn tick(&mut self, now: Instant) -> Vec<EventWrite> {
        let mut writes = Vec::new();
        self.cache.retain(|_, c| {
            if now.saturating_duration_since(c.last_observed) > SERIES_FINISH_AFTER {
                if c.count > 2 && c.last_patch < c.last_observed {
                    writes.push(c.write(true));
                }
                return false;
            }
            if c.count > 2 && now.saturating_duration_since(c.last_patch) >= SERIES_REFRESH_EVERY {
                c.last_patch = now;
                writes.push(c.write(true));
            }
            true
        });
        self.compact();
        writes
    }

    /// Rebuild the map when its free slots run low. Removing an entry mostly leaves a tombstone
    /// in the table (hashbrown), and under steady churn those fill the free slots until an
    /// insert has to resize: because more than half of the slots are live, the table then
    /// doubles instead of being cleaned in place, although the number of series has not grown —
    /// at 100 new keys per second a one-off step of about 8 MiB after 28 minutes (the 30-minute
    /// soak in RELIABILITY.md). A rebuild sized to the live entries drops the tombstones; it is
    /// one pass over the entries, once in many ticks.
    fn compact(&mut self) {
        let live = self.cache.len();
        if self.cache.capacity() - live < live / 8 {
            self.cache = std::mem::take(&mut self.cache).into_iter().collect();
        }
    }

    /// Number of tracked series (for tests and metrics).
    pub fn len(&self) -> usize {
        self.cache.len()
    }

    pub fn is_empty(&self) -> bool {
        self.cache.is_empty()
    }
}

impl Default for EventSeries {
    fn default() -> EventSeries {
        EventSeries::new()
    }
}

/// `FailedScheduling`/`Scheduling` (Warning) on a pod that could not be scheduled, or was skipped
/// (schedule_one.go handleSchedulingFailure, skipPodSchedule); the note is truncated to the
/// events API's limit.
pub fn failed_scheduling(pod: &PodInfo, profile: &str, message: &str) -> EventRecord {
    EventRecord {
        regarding: pod_reference(&pod.namespace, &pod.name, &pod.uid, &pod.resource_version),
        related: None,
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
        related: None,
        type_: EventType::Normal,
        reason: texts::REASON_SCHEDULED.into(),
        action: texts::ACTION_BINDING.into(),
        note: texts::scheduled(&pod.namespace, &pod.name, node),
        reporting_controller: profile.into(),
    }
}

/// `Preempted`/`Preempting` (Normal) on a victim evicted for `preemptor` on `node`, with the
/// preemptor as the related object (`Eventf(victim, preemptor, ...)` in
/// pkg/scheduler/framework/preemption/executor.go, kubernetes/kubernetes v1.35).
pub fn preempted(victim: api::ObjectReference, preemptor: api::ObjectReference, node: &str, profile: &str) -> EventRecord {
    EventRecord {
        note: texts::preempted(&preemptor.uid, node),
        regarding: victim,
        related: Some(preemptor),
        type_: EventType::Normal,
        reason: texts::REASON_PREEMPTED.into(),
        action: texts::ACTION_PREEMPTING.into(),
        reporting_controller: profile.into(),
    }
}

/// `NoSchedulerForName`/`Scheduling` (Warning) on a pending pod whose scheduler name nobody
/// serves (edgesched's own; `note` from [`texts::no_scheduler_for_name`]).
pub fn no_scheduler_for_name(regarding: api::ObjectReference, reporter: &str, note: String) -> EventRecord {
    EventRecord {
        regarding,
        related: None,
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
            related: None,
            type_: EventType::Warning,
            reason: "FailedScheduling".into(),
            action: "Scheduling".into(),
            note: note.into(),
            reporting_controller: "my-scheduler".into(),
        }
    }

    fn json(bytes: &[u8]) -> serde_json::Value {
        serde_json::from_slice(bytes).expect("valid JSON")
    }

    #[test]
    fn first_event_matches_the_real_post_body_shape() {
        // fixtures: events/events.k8s.io-v1-FailedScheduling-post-body-k3s-v1.33.RECONSTRUCTED.json
        let mut s = EventSeries::new();
        let wall = timefmt::parse_system_time("2025-09-11T20:50:21.450412Z").expect("time");
        let ev = s.record(&failed("0/1 nodes are available: 1 Insufficient cpu."), Instant::now(), wall).expect("create");
        assert!(!ev.is_series());
        let v = json(&ev.event_json("node-a"));
        let name = format!("p.{:x}", wall.duration_since(std::time::UNIX_EPOCH).expect("after epoch").as_nanos());
        assert_eq!(
            v,
            serde_json::json!({"kind": "Event", "apiVersion": "events.k8s.io/v1",
                "metadata": {"name": name, "namespace": "default"},
                "eventTime": "2025-09-11T20:50:21.450412Z", "reportingController": "my-scheduler",
                "reportingInstance": "my-scheduler-node-a", "action": "Scheduling", "reason": "FailedScheduling",
                "regarding": {"kind": "Pod", "apiVersion": "v1", "namespace": "default", "name": "p", "uid": "u1",
                    "resourceVersion": "7"},
                "note": "0/1 nodes are available: 1 Insufficient cpu.", "type": "Warning"})
        );
        // The typed event decodes it (the recorder's body and the API type agree).
        let typed: api::Event = serde_json::from_value(v).expect("decodes");
        assert_eq!((typed.metadata.name, typed.series.is_none()), (name, true));
    }

    #[test]
    fn bodies_escape_json_and_the_core_view_carries_the_series_count() {
        let mut s = EventSeries::new();
        let t0 = Instant::now();
        let wall = timefmt::parse_system_time("2025-09-11T20:50:21.450412Z").expect("time");
        let later = timefmt::parse_system_time("2025-09-11T20:55:00.000001Z").expect("time");
        let note = "quote \" backslash \\ newline \n tab \t";
        s.record(&failed(note), t0, wall);
        let ev = s.record(&failed(note), t0 + Duration::from_secs(1), later).expect("series");
        assert!(ev.is_series());
        assert_eq!(json(&ev.event_json("h"))["note"], note);
        assert_eq!(
            json(&ev.event_json("h"))["series"],
            serde_json::json!({"count": 2, "lastObservedTime": "2025-09-11T20:55:00.000001Z"})
        );
        let core: api::CoreEvent = serde_json::from_slice(&ev.core_event_json("h")).expect("core event");
        assert_eq!(
            (core.count, core.first_timestamp.as_deref(), core.last_timestamp.as_deref(), core.message.as_str()),
            (2, Some("2025-09-11T20:50:21Z"), Some("2025-09-11T20:55:00Z"), note)
        );
        assert_eq!((core.source.component.as_str(), core.source.host.as_str()), ("my-scheduler", "h"));
        assert_eq!((core.involved_object.name.as_str(), core.reporting_instance.as_str()), ("p", "my-scheduler-h"));
        assert_eq!(core.metadata.name, ev.name());
        assert_eq!(
            json(&ev.series_patch_json(false)),
            serde_json::json!({"series": {"count": 2, "lastObservedTime": "2025-09-11T20:55:00.000001Z"}})
        );
        assert_eq!(json(&ev.series_patch_json(true)), serde_json::json!({"count": 2, "lastTimestamp": "2025-09-11T20:55:00Z"}));
    }

    #[test]
    fn repeats_become_a_series_and_idle_series_finish() {
        let mut s = EventSeries::new();
        let t0 = Instant::now();
        let wall = SystemTime::now();
        let series_count = |w: Option<EventWrite>| w.and_then(|w| w.series).map(|(count, _)| count);
        let first = s.record(&failed("a"), t0, wall).expect("create");
        assert!(!first.is_series());
        let second = s.record(&failed("b"), t0 + Duration::from_secs(1), wall);
        assert_eq!(second.as_ref().map(EventWrite::name), Some(first.name()));
        assert_eq!(second.as_ref().map(|w| json(&w.event_json("h"))["note"].clone()), Some("a".into()), "first note kept");
        assert_eq!(series_count(second), Some(2));
        assert!(s.record(&failed("c"), t0 + Duration::from_secs(2), wall).is_none());
        assert!(s.tick(t0 + Duration::from_secs(60)).is_empty());
        let writes = s.tick(t0 + Duration::from_secs(2) + SERIES_FINISH_AFTER + Duration::from_secs(1));
        assert_eq!(writes.len(), 1);
        assert_eq!(series_count(writes.into_iter().next()), Some(3));
        assert!(s.is_empty());
        assert!(s.record(&failed("d"), t0 + Duration::from_secs(900), wall).is_some_and(|w| !w.is_series()));
    }

    /// The cache's bound (RELIABILITY.md, "The event-series cache"): with `tick` run every
    /// `period`, an entry is dropped between [`SERIES_FINISH_AFTER`] and that plus `period` after
    /// its last occurrence, so at a steady rate of new keys the cache holds between
    /// `rate × SERIES_FINISH_AFTER` and `rate × (SERIES_FINISH_AFTER + period)` entries whatever
    /// the run's length; a series that never stops stays one entry; and a quiet cache empties.
    /// Periods: the recorder's 30 s and client-go's 6 minutes (`finishSeries` every `finishTime`).
    #[test]
    fn the_cache_holds_one_finish_window_of_keys_and_empties_when_quiet() {
        const RATE: u64 = 10;
        for period in [Duration::from_secs(30), SERIES_FINISH_AFTER] {
            let mut s = EventSeries::new();
            let (t0, wall) = (Instant::now(), SystemTime::now());
            let mut next_tick = t0 + period;
            let (mut most, mut least_after_first_window) = (0, usize::MAX);
            let minutes = 20;
            for second in 0..minutes * 60 {
                let now = t0 + Duration::from_secs(second);
                for i in 0..RATE {
                    // A new pod every time, and each one's failure repeated a second later:
                    // keys arrive at RATE per second, half of them become series.
                    let mut ev = failed("0/3 nodes are available");
                    ev.regarding.name = format!("p-{}", second * RATE + i);
                    s.record(&ev, now, wall);
                    if second > 0 && i % 2 == 0 {
                        ev.regarding.name = format!("p-{}", (second - 1) * RATE + i);
                        s.record(&ev, now, wall);
                    }
                }
                // One series that never stops.
                s.record(&failed("forever"), now, wall);
                if now >= next_tick {
                    next_tick = now + period;
                    s.tick(now);
                }
                most = most.max(s.len());
                if Duration::from_secs(second) > SERIES_FINISH_AFTER + period {
                    least_after_first_window = least_after_first_window.min(s.len());
                }
            }
            let window = |d: Duration| usize::try_from(RATE * d.as_secs()).expect("small");
            // + 1: the series that never stops; + RATE: keys of the second being recorded.
            assert!(most <= window(SERIES_FINISH_AFTER + period) + RATE as usize + 1, "{period:?}: {most}");
            assert!(least_after_first_window >= window(SERIES_FINISH_AFTER), "{period:?}: {least_after_first_window}");
            let end = t0 + Duration::from_secs(minutes * 60);
            let mut quiet = end;
            while quiet <= end + SERIES_FINISH_AFTER + period {
                quiet += period;
                s.tick(quiet);
            }
            assert!(s.is_empty(), "{period:?}: {} left", s.len());
        }
    }

    #[test]
    fn the_cache_table_stays_the_size_its_entries_need_under_steady_churn() {
        // 100 new keys a second (the soak's binds), ticks every 30 s, for 35 minutes: the
        // entries settle at one finish window, and the table must stay the size a map of that
        // many entries has. Without `compact`, removals' tombstones made it double at 28
        // minutes with no more entries than before.
        const RATE: u64 = 100;
        let mut s = EventSeries::new();
        let (t0, wall) = (Instant::now(), SystemTime::now());
        let period = Duration::from_secs(30);
        let mut next_tick = t0 + period;
        let (mut most, mut largest_table) = (0, 0);
        for second in 0..35 * 60 {
            let now = t0 + Duration::from_secs(second);
            for i in 0..RATE {
                let mut ev = failed("0/3 nodes are available");
                ev.regarding.name = format!("p-{}", second * RATE + i);
                s.record(&ev, now, wall);
            }
            if now >= next_tick {
                next_tick = now + period;
                s.tick(now);
            }
            most = most.max(s.len());
            largest_table = largest_table.max(s.cache.capacity());
        }
        let needed = HashMap::<u64, ()>::with_capacity(most).capacity();
        assert!(largest_table <= needed, "table of {largest_table} for at most {most} entries (a fresh map: {needed})");
    }

    #[test]
    fn isomorphic_means_the_whole_regarding_reference_and_type() {
        // event_broadcaster.go getKey: regarding (resourceVersion included) and type are keys.
        let mut s = EventSeries::new();
        let (t0, wall) = (Instant::now(), SystemTime::now());
        let created = |w: Option<EventWrite>| w.is_some_and(|w| !w.is_series());
        assert!(created(s.record(&failed("a"), t0, wall)));
        let mut changed_pod = failed("a");
        changed_pod.regarding.resource_version = "8".into();
        assert!(created(s.record(&changed_pod, t0, wall)));
        let mut normal = failed("a");
        normal.type_ = EventType::Normal;
        assert!(created(s.record(&normal, t0, wall)));
        assert!(s.record(&normal, t0, wall).is_some_and(|w| w.is_series()), "the same key again is a series");
        assert_eq!(s.len(), 3);
    }

    #[test]
    fn the_related_object_is_part_of_the_key_and_of_the_body() {
        // event_broadcaster.go getKey: `related` is a key; executor.go records a victim's event
        // with its preemptor as the related object.
        let mut s = EventSeries::new();
        let (t0, wall) = (Instant::now(), SystemTime::now());
        let victim = pod_reference("default", "low", "u-low", "");
        let by = |name: &str| preempted(victim.clone(), pod_reference("default", name, &format!("u-{name}"), "3"), "n1", "s");
        let first = s.record(&by("high-1"), t0, wall).expect("created");
        assert!(!first.is_series());
        let second = s.record(&by("high-2"), t0, wall).expect("created");
        assert!(!second.is_series(), "another preemptor of the same victim is another event");
        assert!(s.record(&by("high-1"), t0, wall).is_some_and(|w| w.is_series()), "the same preemptor again is a series");
        let body = json(&second.event_json("host"));
        assert_eq!(body["regarding"]["name"], "low");
        assert_eq!(
            body["related"],
            serde_json::json!({"kind": "Pod", "apiVersion": "v1", "namespace": "default", "name": "high-2", "uid": "u-high-2", "resourceVersion": "3"})
        );
        assert_eq!(body["note"], "Preempted by pod u-high-2 on node n1");
        assert_eq!(body["metadata"]["name"].as_str().map(|n| n.starts_with("low.")), Some(true));
        // An event without a related object writes none.
        assert!(json(&s.record(&failed("x"), t0, wall).expect("created").event_json("host")).get("related").is_none());
    }
}
