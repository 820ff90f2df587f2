//! How watch changes reach the scheduler's state, mirroring upstream's event handlers
//! (`pkg/scheduler/eventhandlers.go`): one generic relist/upsert/remove routine
//! ([`apply`]) for every watched kind, and per kind a [`Keep`] implementation saying where its
//! objects live and which queued pods a change may help.

use super::input::Input;
use super::state::{ForeignPod, Scheduler, POD_SPEC};
use crate::core::api::{self, Object};
use crate::core::cache::cluster::ClusterKind;
use crate::core::cache::NodeChange;
use crate::core::custom_resources::CustomObject;
use crate::core::framework::{ClusterEvent, EventMask, EventObject};
use crate::core::logging::{self, Line};
use crate::core::metrics::names as m;
use crate::core::model::{NodeSpecInfo, PodInfo, PodKey};
use crate::core::pod_requests::is_scale_down;
use crate::core::queue::{Location, QueuedPod};
use crate::core::texts;
use crate::core::watched::{Change, KindChange, KindId, Undecodable, Watched};
use std::collections::HashSet;
use std::sync::Arc;
use std::time::Instant;

impl Scheduler {
    /// Feed one input.
    pub fn handle(&mut self, input: Input, now: Instant) {
        match input {
            Input::Watch(change) => self.on_watch(change, now),
            Input::BindDone(o) => self.on_bind_done(o, now),
            Input::BindsDone(batch) => {
                for o in batch {
                    self.on_bind_done(o, now);
                }
            }
            Input::Leading(l) => {
                self.leading = l;
                for p in &self.profiles {
                    crate::core::logging::v(4, || {
                        Line::new("Leadership changed").s("profile", &p.scheduler_name).n("leading", l)
                    });
                }
            }
        }
        self.record_queue_moves();
        self.update_gauges_throttled(now);
    }

    /// A watched kind changed: record its sync state and apply the change where the kind lives.
    fn on_watch(&mut self, change: KindChange, now: Instant) {
        if let Some(state) = change.sync_state() {
            if let Some(s) = self.kinds.get_mut(&change.id()) {
                *s = state;
            }
        }
        match change {
            KindChange::Node(c) => apply(self, c, now),
            KindChange::Pod(c) => apply(self, c, now),
            KindChange::PriorityClass(c) => apply(self, c, now),
            KindChange::PodDisruptionBudget(c) => apply(self, c, now),
            KindChange::PersistentVolumeClaim(c) => apply(self, c, now),
            KindChange::PersistentVolume(c) => apply(self, c, now),
            KindChange::StorageClass(c) => apply(self, c, now),
            KindChange::CsiNode(c) => apply(self, c, now),
            KindChange::Namespace(c) => apply(self, c, now),
            KindChange::Service(c) => apply(self, c, now),
            KindChange::ReplicationController(c) => apply(self, c, now),
            KindChange::ReplicaSet(c) => apply(self, c, now),
            KindChange::StatefulSet(c) => apply(self, c, now),
            KindChange::Lease(c) => apply(self, c, now),
            KindChange::DeviceClass(c) => apply(self, c, now),
            KindChange::ResourceSlice(c) => apply(self, c, now),
            KindChange::ResourceClaim(c) => apply(self, c, now),
            KindChange::ResourceClaimTemplate(c) => apply(self, c, now),
            KindChange::Workload(c) => apply(self, c, now),
            KindChange::Custom(i, c) => {
                if let Some(apply) = CUSTOM_APPLY.get() {
                    apply(self, KindId::Custom(i), c, now);
                }
            }
        }
    }

    pub(super) fn on_pod_upsert(&mut self, mut pod: Box<api::Pod>, now: Instant) {
        if !pod.spec.node_name.is_empty() {
            // A bound pod: only its record is kept, so the API object is converted by moving.
            let info = PodInfo::from_api_for_node(&mut pod, &self.priority_classes, self.request_gates);
            self.upsert_bound_pod(info, now);
            return;
        }
        let info = Arc::new(PodInfo::from_api_with(&pod, &self.priority_classes, self.request_gates));
        self.upsert_pod(pod, info, now);
    }

    /// A listed pod that cannot be decoded stands in the queue as what could be read of it, with
    /// the decoder's complaint as its spec error: a pending pod of ours gets a FailedScheduling
    /// event saying why, and is looked at again when it changes.
    fn on_undecodable_pod(&mut self, u: &Undecodable, now: Instant) {
        let pod = api::Pod {
            metadata: api::ObjectMeta {
                name: u.name.clone(),
                namespace: u.namespace.clone(),
                uid: u.uid.clone(),
                resource_version: u.resource_version.clone(),
                ..Default::default()
            },
            spec: api::PodSpec { scheduler_name: u.scheduler_name.clone(), node_name: u.node_name.clone(), ..Default::default() },
            status: api::PodStatus::default(),
            source: None,
        };
        let mut info = PodInfo::from_api_with(&pod, &self.priority_classes, self.request_gates);
        info.spec_error = Some(texts::pod_spec::undecodable(&u.error));
        self.upsert_pod(Box::new(pod), Arc::new(info), now);
    }

    /// A pod bound to a node (by us or anyone): it leaves the queue and the foreign list, and
    /// its record moves into the node table.
    fn upsert_bound_pod(&mut self, info: PodInfo, now: Instant) {
        let key = info.key.clone();
        // Empty maps are not hashed into (a start-up lists tens of thousands of bound pods).
        if !self.foreign.is_empty() {
            self.foreign.remove(&key);
        }
        self.cache.nominations_mut().clear(&key);
        if !self.pending.is_empty() && self.pending.remove(&key).is_some() {
            self.cache.remove_pending_pod(&key);
            self.queue.delete(&key);
        }
        if info.phase.is_terminal() {
            if self.cache.remove_pod(&key).is_some() {
                self.move_pods(EventMask::ASSIGNED_POD_DELETE, now);
            }
            return;
        }
        let old = self.cache.upsert_assigned_pod_owned(info);
        let new = || self.cache.assigned_pod(&key);
        let (mask, scaled_down) = match &old {
            None => (EventMask::ASSIGNED_POD_ADD, None),
            Some((_, true)) => return, // our own assumption confirmed: nothing new for other pods
            Some((o, _)) => {
                // The cache has already re-counted the node with the new version (an in-place
                // resize that progressed changes what the pod counts); other pods hear of a
                // label change and, as upstream's `PodSchedulingPropertiesChange` reports them
                // one by one, of requests that went down (`extractPodScaleDown`).
                let Some(n) = new() else { return };
                let shrunk = is_scale_down(&o.resources.requests, &n.resources.requests).then(|| (o.clone(), n.clone()));
                (if o.labels != n.labels { EventMask::ASSIGNED_POD_UPDATE } else { EventMask::NONE }, shrunk)
            }
        };
        if mask != EventMask::NONE {
            // Only out-of-tree plugins read the event's objects: no lookup per listed pod otherwise.
            match self.out_of_tree.then(new).flatten().cloned() {
                Some(new) => {
                    let old = old.as_ref().map(|(o, _)| EventObject::AssignedPod(o));
                    self.move_pods_on(&ClusterEvent { mask, old, new: Some(EventObject::AssignedPod(&new)) }, now);
                }
                None => self.move_pods(mask, now),
            }
        }
        // NodeResourcesFit's queueing hint compares the two versions: always sent with them.
        if let Some((o, n)) = scaled_down {
            let event = ClusterEvent {
                mask: EventMask::ASSIGNED_POD_SCALE_DOWN,
                old: Some(EventObject::AssignedPod(&o)),
                new: Some(EventObject::AssignedPod(&n)),
            };
            self.move_pods_on(&event, now);
        }
    }

    fn upsert_pod(&mut self, pod: Box<api::Pod>, info: Arc<PodInfo>, now: Instant) {
        let key = info.key.clone();
        if info.is_assigned() {
            let mut pod = pod;
            let info = PodInfo::from_api_for_node(&mut pod, &self.priority_classes, self.request_gates);
            self.upsert_bound_pod(info, now);
            return;
        }
        if info.phase.is_terminal() || !self.serves(&info.scheduler_name) {
            self.cache.nominations_mut().clear(&key);
            if self.pending.remove(&key).is_some() {
                self.cache.remove_pending_pod(&key);
                self.queue.delete(&key);
            }
            if info.phase.is_terminal() || info.terminating {
                self.foreign.remove(&key);
            } else {
                let entry = self.foreign.entry(key.clone()).or_insert_with(|| ForeignPod {
                    scheduler_name: info.scheduler_name.to_string(),
                    namespace: info.namespace.to_string(),
                    name: info.name.to_string(),
                    uid: info.uid.to_string(),
                    resource_version: info.resource_version.to_string(),
                    first_seen: now,
                    reported: false,
                });
                if *entry.scheduler_name != *info.scheduler_name {
                    entry.scheduler_name = info.scheduler_name.to_string();
                    entry.reported = false;
                    entry.first_seen = now;
                }
                entry.resource_version = info.resource_version.to_string();
            }
            return;
        }
        self.foreign.remove(&key);
        // The nominator follows the pod's status.nominatedNodeName (upstream AddNominatedPod),
        // except while we are binding the pod: upstream's `updatePodInSchedulingQueue` applies
        // no update of an assumed pod, so the node the binding cycle wrote there
        // (NominatedNodeNameForExpectation) is not counted a second time for other pods.
        let assumed = self.cache.is_assumed(&key);
        if !assumed {
            if info.nominated_node_name.is_empty() {
                self.cache.nominations_mut().clear(&key);
            } else {
                self.cache.nominations_mut().nominate(info.clone(), &info.nominated_node_name.clone());
            }
        }
        let (changed, claims_only) = match self.pending.get(&key) {
            Some(old) => {
                let spec = scheduling_relevant_change(old, &pod);
                let claims = old.status.resource_claim_statuses != pod.status.resource_claim_statuses;
                (spec || claims, claims && !spec)
            }
            None => (true, false),
        };
        self.pending.insert(key.clone(), Arc::from(pod));
        self.cache.set_pending_pod(&info);
        if assumed {
            // Being bound by us; the watch has not caught up (upstream skips assumed pods).
            self.queue.refresh(info);
            return;
        }
        let gate = self.gate(&info);
        match self.queue.location(&key) {
            None => {
                self.queue.add(info.clone(), gate, now);
                if self.out_of_tree {
                    let event =
                        ClusterEvent { mask: EventMask::UNSCHEDULED_POD_ADD, old: None, new: Some(EventObject::Pod(&info)) };
                    self.move_pods_on(&event, now);
                }
            }
            Some(Location::Unschedulable) if claims_only && !self.claims_update_helps(&info) => self.queue.refresh(info),
            Some(_) if changed => {
                if self.queue.get(&key).is_some_and(|q| q.rejectors.contains(&POD_SPEC) || q.gating_plugin.is_some()) {
                    logging::v(4, || Line::new("Pod updated, requeueing").o("pod", &key));
                }
                self.queue.update(info, gate, now);
            }
            Some(_) => self.queue.refresh(info),
        }
    }

    pub(super) fn on_pod_gone(&mut self, key: &str, now: Instant) {
        self.foreign.remove(key);
        self.drop_waiting(key, now);
        self.cache.nominations_mut().clear(key);
        if self.pending.remove(key).is_some() {
            self.cache.remove_pending_pod(key);
            self.queue.delete(key);
        }
        if let Some(old) = self.cache.remove_pod(key) {
            let event =
                ClusterEvent { mask: EventMask::ASSIGNED_POD_DELETE, old: Some(EventObject::AssignedPod(&old)), new: None };
            self.move_pods_on(&event, now);
        }
    }

    pub(super) fn on_node_upsert(&mut self, node: &api::Node, now: Instant) {
        let spec = NodeSpecInfo::from_api(node);
        for w in &spec.warnings {
            Line::new("Ignoring unreadable node resource").s("node", &*spec.name).s("problem", w).warning();
        }
        let (name, zone) = (spec.name.clone(), zone_key(&spec.labels));
        // Queueing hints see the node before and after (only kept for out-of-tree plugins).
        let old = if self.out_of_tree { self.cache.node_by_name(&name).map(|n| n.node.clone()) } else { None };
        let change = self.cache.upsert_node(spec);
        if change.added {
            logging::v(2, || Line::new("Added node in listed group to NodeTree").o("node", &name).s("zone", &zone));
        }
        let mask = node_change_mask(&change);
        if mask == EventMask::NONE {
            return;
        }
        match self.cache.node_by_name(&name).map(|n| n.node.clone()).filter(|_| self.out_of_tree) {
            Some(new) => {
                let event = ClusterEvent { mask, old: old.as_ref().map(EventObject::Node), new: Some(EventObject::Node(&new)) };
                self.move_pods_on(&event, now);
            }
            None => self.move_pods(mask, now),
        }
    }

    /// Pods converted before their PriorityClass was known are converted again.
    pub(super) fn reconvert_pending(&mut self, now: Instant) {
        let mut stale: Vec<Arc<api::Pod>> = self
            .pending
            .values()
            .filter(|p| p.spec.priority.is_none() && !p.spec.priority_class_name.is_empty())
            .cloned()
            .collect();
        // In key order: the pending map iterates differently in every process.
        stale.sort_unstable_by(|a, b| (&a.metadata.namespace, &a.metadata.name).cmp(&(&b.metadata.namespace, &b.metadata.name)));
        for p in stale {
            let info = Arc::new(PodInfo::from_api_with(&p, &self.priority_classes, self.request_gates));
            if self.queue.location(&info.key).is_some() {
                self.queue.update(info, None, now);
            }
        }
    }

    /// The PreEnqueue verdict for a pod: the gating plugin and its message, if held back.
    fn gate(&self, info: &PodInfo) -> Option<(&'static str, String)> {
        self.profile(&info.scheduler_name).and_then(|fw| fw.pre_enqueue(&self.cache, info).err()).map(|r| (r.plugin, r.message()))
    }

    /// Wake unschedulable pods that the event could help (an event without objects).
    pub(super) fn move_pods(&mut self, mask: EventMask, now: Instant) {
        self.move_pods_on(&ClusterEvent::of(mask), now);
    }

    /// Wake unschedulable pods that the event could help (queueing hints, upstream
    /// `MoveAllToActiveOrBackoffQueue` → `isPodWorthRequeuing`), and let gated pods whose
    /// PreEnqueue plugin registered for the event ask PreEnqueue again.
    pub(super) fn move_pods_on(&mut self, event: &ClusterEvent<'_>, now: Instant) {
        let mask = event.mask;
        let profiles = &self.profiles;
        let cache = &self.cache;
        let moved = self.queue.move_on_event(now, mask.label(), |qp: &QueuedPod| {
            if qp.rejectors.contains(&POD_SPEC) {
                return mask.intersects(EventMask::POD_UPDATE);
            }
            match profiles.iter().find(|p| *p.scheduler_name == *qp.pod.scheduler_name) {
                Some(fw) => fw.worth_requeuing(cache, &qp.rejectors, event, &qp.pod),
                None => false,
            }
        });
        if moved > 0 {
            logging::v(4, || Line::new("Moved unschedulable pods").s("event", mask.label()).n("count", moved));
        }
        // Gated pods: SchedulingGates only listens to the pod's own updates (handled by
        // `upsert_pod`); DynamicResources' PreEnqueue waits for claims, an out-of-tree one may
        // wait for other objects.
        if !self.out_of_tree && !mask.intersects(EventMask::DRA_OBJECTS) {
            return;
        }
        let profiles = &self.profiles;
        let cache = &self.cache;
        let mut gated: Vec<Arc<PodInfo>> = self
            .queue
            .gated()
            .filter(|qp| {
                let Some(plugin) = qp.gating_plugin else { return false };
                profiles
                    .iter()
                    .find(|p| *p.scheduler_name == *qp.pod.scheduler_name)
                    .is_some_and(|fw| fw.worth_requeuing(cache, &[plugin], event, &qp.pod))
            })
            .map(|qp| qp.pod.clone())
            .collect();
        // In key order: the queue's map iterates differently in every process.
        gated.sort_unstable_by(|a, b| a.key.cmp(&b.key));
        for info in gated {
            let gate = self.gate(&info);
            if gate.is_none() {
                self.queue.update(info, None, now);
            }
        }
    }

    /// An unschedulable pod's only change is the claims the resourceclaim controller recorded in
    /// its status (upstream's `UpdatePodGeneratedResourceClaim`): whether a plugin that rejected
    /// it says that helps (DynamicResources' `isSchedulableAfterPodChange`).
    fn claims_update_helps(&self, info: &Arc<PodInfo>) -> bool {
        let Some(qp) = self.queue.get(&info.key) else { return true };
        let event = ClusterEvent {
            mask: EventMask::POD_GENERATED_RESOURCE_CLAIM,
            old: Some(EventObject::Pod(&qp.pod)),
            new: Some(EventObject::Pod(info)),
        };
        match self.profiles.iter().find(|p| *p.scheduler_name == *qp.pod.scheduler_name) {
            Some(fw) => fw.worth_requeuing(&self.cache, &qp.rejectors, &event, &qp.pod),
            None => true,
        }
    }

    fn move_pods_if(&mut self, mask: EventMask, now: Instant) {
        if mask != EventMask::NONE {
            self.move_pods(mask, now);
        }
    }
}

/// Where the objects of one watched kind live in the scheduler, and what a change means for
/// the queued pods. `listing` is true while a relist delivers pages (or reconciles what it did
/// not see), false for watch events.
pub(super) trait Keep: Watched {
    /// Add or replace an object.
    fn upsert(s: &mut Scheduler, obj: Box<Self>, listing: bool, now: Instant);
    /// Forget the object with this key (a watch DELETED event, or gone from a relist).
    fn remove(s: &mut Scheduler, key: &str, listing: bool, now: Instant);
    /// Keys of the objects kept (what a relist reconciles against).
    fn keys(s: &Scheduler) -> Vec<String>;
    /// Whether any object is kept: a list that starts with none has nothing to reconcile.
    fn holds_any(s: &Scheduler) -> bool {
        !Self::keys(s).is_empty()
    }
    /// [`Keep::holds_any`] for the row `id`.
    fn holds_any_of(s: &Scheduler, _id: KindId) -> bool {
        Self::holds_any(s)
    }
    /// [`Keep::keys`] of the row `id` (several custom resources share one type).
    fn keys_of(s: &Scheduler, _id: KindId) -> Vec<String> {
        Self::keys(s)
    }
    /// [`Keep::remove`] from the row `id`.
    fn remove_of(s: &mut Scheduler, _id: KindId, key: &str, listing: bool, now: Instant) {
        Self::remove(s, key, listing, now)
    }
    /// [`Keep::unavailable`] for the row `id`.
    fn unavailable_of(s: &mut Scheduler, _id: KindId, now: Instant) {
        Self::unavailable(s, now)
    }
    /// A relist completed.
    fn listed(_s: &mut Scheduler, _now: Instant) {}
    /// RBAC forbids the kind (optional kinds): forget what was kept.
    fn unavailable(_s: &mut Scheduler, _now: Instant) {}
    /// A listed object that cannot be decoded: keep its last known state (what client-go's store
    /// keeps when a list fails) and say so.
    fn undecodable(_s: &mut Scheduler, u: &Undecodable, _now: Instant) {
        Line::new("Skipping an object that cannot be decoded; keeping its last known state")
            .s("kind", crate::core::watched::kind(Self::ID).kind)
            .s("object", u.key())
            .s("err", &u.error)
            .warning();
    }
    /// The cluster event a change is, for `scheduler_event_handling_duration_seconds` (upstream
    /// `ClusterEvent.Label()`), for the kinds upstream's event handlers time; `action` indexes
    /// Add, Update, Delete.
    fn event_label(_s: &Scheduler, _obj: Option<&Self>, _key: &str, _action: usize) -> Option<&'static str> {
        None
    }
}

const ADD: usize = 0;
const UPDATE: usize = 1;
const DELETE: usize = 2;

/// Run one change's handling, timed into `scheduler_event_handling_duration_seconds` when the
/// scheduler has a clock and the change is one of upstream's events.
/// `utilnode.GetZoneKey`: the node tree's zone of a node (`region:\x00:zone`, empty without
/// either label), as `backend/cache/node_tree.go` logs it.
fn zone_key(labels: &crate::core::model::Labels) -> String {
    let get = |keys: [&str; 2]| keys.iter().find_map(|k| labels.get_str(k)).unwrap_or_default().to_string();
    let zone = get(["topology.kubernetes.io/zone", "failure-domain.beta.kubernetes.io/zone"]);
    let region = get(["topology.kubernetes.io/region", "failure-domain.beta.kubernetes.io/region"]);
    if zone.is_empty() && region.is_empty() {
        return String::new();
    }
    format!("{region}:\x00:{zone}")
}

/// The informer event handlers' lines (`pkg/scheduler/eventhandlers.go`, v1.35): adds and
/// deletes at V(3), updates at V(4), for nodes, unscheduled and scheduled pods.
fn log_event(label: Option<&'static str>, key: &str) {
    if let Some(label) = label {
        log_event_with(label, || key.to_string());
    }
}

/// [`log_event`] with the key built only when the line is written.
fn log_event_with(label: &'static str, key: impl FnOnce() -> String) {
    let (level, msg, what) = match label {
        "NodeAdd" => (3, "Add event for node", "node"),
        "NodeUpdate" => (4, "Update event for node", "node"),
        "NodeDelete" => (3, "Delete event for node", "node"),
        "UnschedulablePodAdd" => (3, "Add event for unscheduled pod", "pod"),
        "UnschedulablePodUpdate" => (4, "Update event for unscheduled pod", "pod"),
        "UnschedulablePodDelete" => (3, "Delete event for unscheduled pod", "pod"),
        "AssignedPodAdd" => (3, "Add event for scheduled pod", "pod"),
        "AssignedPodUpdate" => (4, "Update event for scheduled pod", "pod"),
        "AssignedPodDelete" => (3, "Delete event for scheduled pod", "pod"),
        _ => return,
    };
    logging::v(level, || Line::new(msg).o(what, &key()));
}

fn timed(s: &mut Scheduler, label: Option<&'static str>, handle: impl FnOnce(&mut Scheduler)) {
    let start = label.and(s.ticker.as_ref()).map(|t| t.now());
    handle(s);
    if let (Some(label), Some(start), Some(t)) = (label, start, &s.ticker) {
        let secs = t.now().saturating_duration_since(start).as_secs_f64();
        s.metrics.observe(m::EVENT_HANDLING_DURATION, &[label], secs);
    }
}

/// Apply one page of a list of kind `id`: each object is upserted as an `Added` change would
/// be and, during a relist, recorded as seen. A page is one input of tens to hundreds of
/// objects, so what is the same for all of them is done once: the relist set is looked up once,
/// keys are built only when a relist or the log needs them, the clock is read once per object
/// (one object's handling ends where the next one's begins) and the handling times reach the
/// histogram once per page and label.
fn apply_page<T: Keep>(s: &mut Scheduler, id: KindId, items: Vec<Box<T>>, now: Instant) {
    let mut seen = s.relists.remove(&id);
    let mut samples: Vec<(&'static str, Vec<f64>)> = Vec::new();
    // When the previous object's timed handling ended (this one's starts there).
    let mut last = None;
    for o in items {
        let label = T::event_label(s, Some(&o), "", ADD);
        let start = match (label, &s.ticker) {
            (Some(_), Some(t)) => Some(last.take().unwrap_or_else(|| t.now())),
            _ => None,
        };
        if let Some(seen) = seen.as_mut() {
            seen.insert(o.key());
        }
        if let Some(label) = label {
            log_event_with(label, || o.key());
        }
        T::upsert(s, o, true, now);
        last = None;
        if let (Some(label), Some(start), Some(t)) = (label, start, &s.ticker) {
            let end = t.now();
            last = Some(end);
            let secs = end.saturating_duration_since(start).as_secs_f64();
            // Labels are the literals of `event_label`: the same one is the same pointer.
            match samples.iter_mut().find(|(l, _)| std::ptr::eq(*l, label)) {
                Some((_, v)) => v.push(secs),
                None => samples.push((label, vec![secs])),
            }
        }
    }
    if let Some(seen) = seen {
        s.relists.insert(id, seen);
    }
    for (label, secs) in samples {
        s.metrics.observe_many(m::EVENT_HANDLING_DURATION, &[label], &secs);
    }
}

/// Apply one change of kind `T`: relist bookkeeping (objects not seen between `ListBegin` and
/// `ListDone` are removed), then the kind's own upsert/remove.
pub(super) fn apply<T: Keep>(s: &mut Scheduler, change: Change<Box<T>>, now: Instant) {
    apply_as(s, T::ID, change, now)
}

/// [`apply`] for the row `id` of type `T`.
fn apply_as<T: Keep>(s: &mut Scheduler, id: KindId, change: Change<Box<T>>, now: Instant) {
    match change {
        Change::ListBegin => {
            // The first list of a kind (start-up) finds nothing to remove: no bookkeeping.
            if T::holds_any_of(s, id) {
                s.relists.insert(id, HashSet::new());
            } else {
                s.relists.remove(&id);
            }
        }
        Change::ListPage(items) => apply_page(s, id, items, now),
        Change::ListDone => {
            if let Some(seen) = s.relists.remove(&id) {
                // In key order: the stores' iteration order differs from process to process.
                let mut keys = T::keys_of(s, id);
                keys.sort_unstable();
                for key in keys {
                    if !seen.contains(&key) {
                        let label = T::event_label(s, None, &key, DELETE);
                        log_event(label, &key);
                        timed(s, label, |s| T::remove_of(s, id, &key, true, now));
                    }
                }
            }
            T::listed(s, now);
        }
        Change::Added(o) => {
            let label = T::event_label(s, Some(&o), "", ADD);
            log_event(label, &o.key());
            timed(s, label, |s| T::upsert(s, o, false, now));
        }
        Change::Modified(o) => {
            let label = T::event_label(s, Some(&o), "", UPDATE);
            log_event(label, &o.key());
            timed(s, label, |s| T::upsert(s, o, false, now));
        }
        Change::Deleted(o) => {
            let key = o.key();
            let label = T::event_label(s, Some(&o), &key, DELETE);
            log_event(label, &key);
            timed(s, label, |s| T::remove_of(s, id, &key, false, now));
        }
        Change::Unavailable => {
            s.relists.remove(&id);
            T::unavailable_of(s, id, now);
        }
        Change::Undecodable(u) => {
            // Seen by the list: a relist must not drop it as gone.
            if let Some(seen) = s.relists.get_mut(&id) {
                seen.insert(u.key());
            }
            T::undecodable(s, &u, now);
        }
    }
}

impl Keep for api::Pod {
    fn upsert(s: &mut Scheduler, pod: Box<Self>, _listing: bool, now: Instant) {
        s.on_pod_upsert(pod, now);
    }
    fn remove(s: &mut Scheduler, key: &str, listing: bool, now: Instant) {
        // Assumed pods are ours and in flight: a relist may predate their binding.
        if listing && s.cache.is_assumed(key) {
            return;
        }
        s.on_pod_gone(key, now);
    }
    fn event_label(s: &Scheduler, pod: Option<&Self>, key: &str, action: usize) -> Option<&'static str> {
        let assigned = match pod {
            Some(p) => !p.spec.node_name.is_empty(),
            None => s.cache.assigned_pod(key).is_some(),
        };
        let labels = if assigned {
            ["AssignedPodAdd", "AssignedPodUpdate", "AssignedPodDelete"]
        } else {
            ["UnschedulablePodAdd", "UnschedulablePodUpdate", "UnschedulablePodDelete"]
        };
        labels.get(action).copied()
    }
    fn holds_any(s: &Scheduler) -> bool {
        s.cache.has_pods() || !s.pending.is_empty() || !s.foreign.is_empty()
    }
    fn keys(s: &Scheduler) -> Vec<String> {
        let mut known: HashSet<PodKey> = s.cache.pod_keys().into_iter().collect();
        known.extend(s.pending.keys().cloned());
        known.extend(s.foreign.keys().cloned());
        known.into_iter().map(|k| k.to_string()).collect()
    }
    /// A pending pod is queued as what could be read of it, so that it gets a FailedScheduling
    /// event saying why; a bound one keeps its last known state (its requests still count).
    fn undecodable(s: &mut Scheduler, u: &Undecodable, now: Instant) {
        Line::new("Skipping a pod that cannot be decoded").s("pod", u.key()).s("err", &u.error).warning();
        if u.node_name.is_empty() {
            s.on_undecodable_pod(u, now);
        }
    }
}

impl Keep for api::Node {
    fn upsert(s: &mut Scheduler, node: Box<Self>, _listing: bool, now: Instant) {
        s.on_node_upsert(&node, now);
    }
    fn remove(s: &mut Scheduler, name: &str, listing: bool, now: Instant) {
        let zone = s.cache.node_by_name(name).map(|n| zone_key(&n.node.labels));
        if s.cache.remove_node(name) {
            let zone = zone.unwrap_or_default();
            logging::v(2, || Line::new("Removed node in listed group from NodeTree").o("node", name).s("zone", &zone));
        }
        if !listing {
            s.move_pods(EventMask::NODE_DELETE, now);
        }
    }
    fn event_label(_s: &Scheduler, _node: Option<&Self>, _key: &str, action: usize) -> Option<&'static str> {
        ["NodeAdd", "NodeUpdate", "NodeDelete"].get(action).copied()
    }
    fn holds_any(s: &Scheduler) -> bool {
        s.cache.num_nodes() > 0
    }
    fn keys(s: &Scheduler) -> Vec<String> {
        s.cache.node_names().into_iter().map(|n| n.to_string()).collect()
    }
}

impl Keep for api::PriorityClass {
    fn upsert(s: &mut Scheduler, pc: Box<Self>, listing: bool, now: Instant) {
        s.priority_classes.upsert(&pc);
        if !listing {
            s.reconvert_pending(now);
        }
    }
    fn remove(s: &mut Scheduler, name: &str, _listing: bool, _now: Instant) {
        s.priority_classes.classes.remove(name);
    }
    fn keys(s: &Scheduler) -> Vec<String> {
        s.priority_classes.classes.keys().cloned().collect()
    }
    fn listed(s: &mut Scheduler, now: Instant) {
        s.priority_classes.unavailable = false;
        s.reconvert_pending(now);
    }
    // Pods without spec.priority then get 0, as in kube-scheduler (which never reads
    // PriorityClasses), instead of being refused for a class we cannot look up.
    fn unavailable(s: &mut Scheduler, now: Instant) {
        s.priority_classes.classes.clear();
        s.priority_classes.unavailable = true;
        s.reconvert_pending(now);
    }
}

impl Keep for api::Lease {
    fn upsert(s: &mut Scheduler, lease: Box<Self>, _listing: bool, _now: Instant) {
        s.leases.insert(lease.key(), *lease);
    }
    fn remove(s: &mut Scheduler, key: &str, _listing: bool, _now: Instant) {
        s.leases.remove(key);
    }
    fn keys(s: &Scheduler) -> Vec<String> {
        s.leases.keys().cloned().collect()
    }
    fn unavailable(s: &mut Scheduler, _now: Instant) {
        s.leases.clear();
    }
}

impl Keep for api::PodDisruptionBudget {
    fn upsert(s: &mut Scheduler, b: Box<Self>, _listing: bool, _now: Instant) {
        s.cache.budgets_mut().upsert(&b);
    }
    fn remove(s: &mut Scheduler, key: &str, _listing: bool, _now: Instant) {
        if let Some((ns, name)) = key.split_once('/') {
            s.cache.budgets_mut().remove(ns, name);
        }
    }
    fn keys(s: &Scheduler) -> Vec<String> {
        s.cache.budgets().iter().map(|b| format!("{}/{}", b.namespace, b.name)).collect()
    }
}

/// The storage kinds the volume plugins read: kept in the cache's storage state, each change
/// waking the pods its event mask may help.
macro_rules! keep_storage {
    ($ty:ty, $events:expr, $mask:expr, $upsert:ident, $keys:ident, |$st:ident, $key:ident| $remove:expr) => {
        impl Keep for $ty {
            fn event_label(_s: &Scheduler, _o: Option<&Self>, _key: &str, action: usize) -> Option<&'static str> {
                $events.get(action).copied()
            }
            fn upsert(s: &mut Scheduler, o: Box<Self>, listing: bool, now: Instant) {
                s.cache.storage_mut().$upsert(&o);
                if !listing {
                    s.move_pods($mask, now);
                }
            }
            fn remove(s: &mut Scheduler, $key: &str, listing: bool, now: Instant) {
                let $st = s.cache.storage_mut();
                $remove;
                if !listing {
                    s.move_pods($mask, now);
                }
            }
            fn keys(s: &Scheduler) -> Vec<String> {
                s.cache.storage().$keys()
            }
            fn listed(s: &mut Scheduler, now: Instant) {
                s.move_pods($mask, now);
            }
        }
    };
}

keep_storage!(
    api::PersistentVolumeClaim,
    ["PersistentVolumeClaimAdd", "PersistentVolumeClaimUpdate", "PersistentVolumeClaimDelete"],
    EventMask::PVC_CHANGE,
    upsert_pvc,
    claim_keys,
    |st, key| {
        if let Some((ns, name)) = key.split_once('/') {
            st.remove_pvc(ns, name);
        }
    }
);
keep_storage!(
    api::PersistentVolume,
    ["PersistentVolumeAdd", "PersistentVolumeUpdate", "PersistentVolumeDelete"],
    EventMask::PV_CHANGE,
    upsert_pv,
    volume_names,
    |st, key| st.remove_pv(key)
);
keep_storage!(
    api::StorageClass,
    ["StorageClassAdd", "StorageClassUpdate", "StorageClassDelete"],
    EventMask::STORAGE_CLASS_CHANGE,
    upsert_storage_class,
    class_names,
    |st, key| st.remove_storage_class(key)
);
keep_storage!(
    api::CsiNode,
    ["CSINodeAdd", "CSINodeUpdate", "CSINodeDelete"],
    EventMask::CSI_NODE_CHANGE,
    upsert_csi_node,
    csi_node_names,
    |st, key| st.remove_csi_node(key)
);

/// Namespaces and the controllers PodTopologySpread's default constraints select by: kept in the
/// cache's cluster objects. Upstream registers queueing events only for namespaces (pod
/// affinity's namespaceSelector); the controllers update the table without moving pods.
macro_rules! keep_cluster {
    ($ty:ty, $kind:expr, $mask:expr, $upsert:ident) => {
        impl Keep for $ty {
            fn upsert(s: &mut Scheduler, o: Box<Self>, listing: bool, now: Instant) {
                s.cache.cluster.$upsert(&o);
                if !listing {
                    s.move_pods_if($mask, now);
                }
            }
            fn remove(s: &mut Scheduler, key: &str, listing: bool, now: Instant) {
                s.cache.cluster.remove($kind, key);
                if !listing {
                    s.move_pods_if($mask, now);
                }
            }
            fn keys(s: &Scheduler) -> Vec<String> {
                s.cache.cluster.keys($kind)
            }
            fn listed(s: &mut Scheduler, now: Instant) {
                s.move_pods_if($mask, now);
            }
        }
    };
}

keep_cluster!(api::Namespace, ClusterKind::Namespace, EventMask::NAMESPACE_CHANGE, upsert_namespace);
keep_cluster!(api::Service, ClusterKind::Service, EventMask::NONE, upsert_service);
keep_cluster!(api::ReplicationController, ClusterKind::ReplicationController, EventMask::NONE, upsert_replication_controller);
keep_cluster!(api::ReplicaSet, ClusterKind::ReplicaSet, EventMask::NONE, upsert_replica_set);
keep_cluster!(api::StatefulSet, ClusterKind::StatefulSet, EventMask::NONE, upsert_stateful_set);

/// Which cluster events a node change represents.
pub fn node_change_mask(c: &NodeChange) -> EventMask {
    let mut mask = EventMask::NONE;
    if c.added {
        mask |= EventMask::NODE_ADD;
    }
    if c.allocatable {
        mask |= EventMask::NODE_ALLOCATABLE;
    }
    if c.labels {
        mask |= EventMask::NODE_LABEL;
    }
    if c.taints {
        mask |= EventMask::NODE_TAINT;
    }
    if c.unschedulable {
        mask |= EventMask::NODE_SPEC_UNSCHEDULABLE;
    }
    if c.images {
        mask |= EventMask::NODE_IMAGES;
    }
    mask
}

/// upstream `isPodUpdated`: ignore resourceVersion, generation and status; anything else in
/// metadata labels or the spec may change the scheduling outcome. (The claims the resourceclaim
/// controller names in `status.resourceClaimStatuses` are upstream's separate
/// `UpdatePodGeneratedResourceClaim` event, see `upsert_pod`.)
pub(super) fn scheduling_relevant_change(old: &api::Pod, new: &api::Pod) -> bool {
    if old.metadata.labels != new.metadata.labels || old.metadata.deletion_timestamp != new.metadata.deletion_timestamp {
        return true;
    }
    match (serde_json::to_vec(&old.spec), serde_json::to_vec(&new.spec)) {
        (Ok(a), Ok(b)) => a != b,
        _ => true,
    }
}

/// Applies a change of a custom resource's row. Set by [`enable_custom_resources`], which only
/// custom builds call (`edgesched::plugin::Builder::run`): the shipped binary, which never has
/// such a row, then carries none of the code that keeps their objects.
type CustomApply = fn(&mut Scheduler, KindId, Change<Box<CustomObject>>, Instant);

static CUSTOM_APPLY: std::sync::OnceLock<CustomApply> = std::sync::OnceLock::new();

/// Keep the objects of custom resources' rows and deliver their events. Only custom builds call
/// it (`edgesched::plugin::Builder::run`), so the shipped binary carries none of that code.
pub fn enable_custom_resources() {
    let _ = CUSTOM_APPLY.set(apply_as::<CustomObject>);
}

/// Custom resources of out-of-tree plugins: kept as JSON in the cache, each change an
/// [`EventMask::CUSTOM_RESOURCE`] event with the objects before and after, so the queueing hints
/// and gated pods' PreEnqueue see, e.g., a pod's PodGroup appear.
/// Workloads (gang scheduling's pod groups): an added one requeues the pods that name it; a
/// Workload's groups are immutable, so an update moves nothing (upstream registers Add only).
impl Keep for api::Workload {
    fn upsert(s: &mut Scheduler, w: Box<Self>, listing: bool, now: Instant) {
        let (ns, name) = (w.metadata.namespace.clone(), w.metadata.name.clone());
        let added = s.cache.workloads.upsert(*w);
        if added && !listing {
            if let Some(w) = s.cache.workloads.get(&ns, &name).cloned() {
                s.move_pods_on(
                    &ClusterEvent { mask: EventMask::WORKLOAD_ADD, old: None, new: Some(EventObject::Workload(&w)) },
                    now,
                );
            }
        }
    }
    fn remove(s: &mut Scheduler, key: &str, _listing: bool, _now: Instant) {
        s.cache.workloads.remove(key);
    }
    fn keys(s: &Scheduler) -> Vec<String> {
        s.cache.workloads.keys()
    }
    fn listed(s: &mut Scheduler, now: Instant) {
        s.move_pods(EventMask::WORKLOAD_ADD, now);
    }
    fn unavailable(s: &mut Scheduler, _now: Instant) {
        s.cache.workloads.clear();
    }
    fn event_label(_s: &Scheduler, _o: Option<&Self>, _key: &str, action: usize) -> Option<&'static str> {
        ["WorkloadAdd", "WorkloadUpdate", "WorkloadDelete"].get(action).copied()
    }
}

impl Keep for CustomObject {
    fn upsert(s: &mut Scheduler, obj: Box<Self>, _listing: bool, now: Instant) {
        let resource = obj.resource();
        let new = Arc::new(*obj);
        let old = s.cache.custom.upsert(&resource, new.clone());
        if old.as_ref().is_some_and(|o| o.object == new.object) {
            return;
        }
        let event = ClusterEvent {
            mask: EventMask::CUSTOM_RESOURCE,
            old: old.as_deref().map(EventObject::Custom),
            new: Some(EventObject::Custom(&new)),
        };
        s.move_pods_on(&event, now);
    }
    fn remove(_s: &mut Scheduler, _key: &str, _listing: bool, _now: Instant) {}
    fn remove_of(s: &mut Scheduler, id: KindId, key: &str, _listing: bool, now: Instant) {
        let resource = crate::core::watched::kind(id).qualified_resource();
        if let Some(old) = s.cache.custom.remove(&resource, key) {
            let event = ClusterEvent { mask: EventMask::CUSTOM_RESOURCE, old: Some(EventObject::Custom(&old)), new: None };
            s.move_pods_on(&event, now);
        }
    }
    fn keys(_s: &Scheduler) -> Vec<String> {
        Vec::new()
    }
    fn keys_of(s: &Scheduler, id: KindId) -> Vec<String> {
        s.cache.custom.keys(&crate::core::watched::kind(id).qualified_resource())
    }
    fn holds_any_of(s: &Scheduler, id: KindId) -> bool {
        !Self::keys_of(s, id).is_empty()
    }
    fn unavailable_of(s: &mut Scheduler, id: KindId, _now: Instant) {
        s.cache.custom.clear(&crate::core::watched::kind(id).qualified_resource());
    }
}
