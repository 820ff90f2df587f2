//! One scheduling cycle (upstream `schedule_one.go`): pop the next pod, run its profile's
//! framework on a consistent snapshot of the node table, assume the chosen node and ask the shell
//! to bind — or record why it fits nowhere and act on preemption's nomination. Binding results
//! come back here too.

use super::effects::{Attempt, BindRequest, Effect, Eviction, PatchOrigin, StatusPatch};
use super::failure::CLEAR_NOMINATED_NODE;
use super::input::{BindFailure, BindOutcome};
use super::state::{Deferred, Scheduler, GAUGE_PERIOD, PLUGIN_SAMPLE_EVERY, POD_SPEC};
use crate::core::events;
use crate::core::framework::cycle::{CycleExtenders, CycleParams};
use crate::core::framework::instrument::CycleRecorder;
use crate::core::framework::{EventMask, PreFlight, ScheduleOutcome};
use crate::core::logging::{self, Line};
use crate::core::metrics::names as m;
use crate::core::model::PodInfo;
use crate::core::queue::{Location, Requeue};
use crate::core::texts::conditions::{REASON_SCHEDULER_ERROR, REASON_UNSCHEDULABLE};
use crate::core::texts::framework::NO_NODES_AVAILABLE;
use crate::core::texts::{self, logs};
use std::sync::Arc;
use std::time::{Instant, SystemTime};

impl Scheduler {
    /// Whether `schedule_one` would find work now.
    pub fn has_work(&self) -> bool {
        self.leading && self.caches_synced() && self.queue.has_runnable()
    }

    /// When the loop should wake up without new input (backoff expiry, leftover flush).
    pub fn next_wakeup(&self, now: Instant) -> Option<Instant> {
        match (self.queue.next_wakeup(now), self.waiting.next_deadline()) {
            (Some(a), Some(b)) => Some(a.min(b)),
            (a, b) => a.or(b),
        }
    }

    /// Run periodic maintenance: queue flushes and the unserved-name check.
    pub fn tick(&mut self, now: Instant, wall: SystemTime) {
        self.expire_waiting(now);
        self.queue.flush(now);
        self.record_queue_moves();
        if self.caches_synced() {
            self.check_unserved(now, wall);
        }
        self.gauges_due = Some(now + GAUGE_PERIOD);
        self.update_gauges();
    }

    /// Schedule the next pod, if any. `explain` says whose per-plugin scores the returned outcome keeps.
    pub fn schedule_one(
        &mut self,
        now: Instant,
        explain: crate::core::framework::cycle::Explain,
    ) -> Option<(Attempt, Option<ScheduleOutcome>)> {
        if !self.leading || !self.caches_synced() {
            return None;
        }
        self.expire_waiting(now);
        self.cache.prepare();
        let qp = self.queue.pop(now)?;
        let pod = qp.pod.clone();
        let key = pod.key.clone();
        // Levels and wording of this file's lines: pkg/scheduler/schedule_one.go (v1.35).
        logging::v(4, || Line::new("About to try and schedule pod").o("pod", &key));
        let Some(fw_index) = self.profiles.iter().position(|p| *p.scheduler_name == *pod.scheduler_name) else {
            self.queue.done(&key);
            return Some((Attempt::Skipped { pod: key }, None));
        };
        if pod.terminating {
            let profile = self.profiles[fw_index].scheduler_name.clone();
            let note = texts::events::skip_deleting_pod(&pod.namespace, &pod.name);
            self.effects.push(Effect::Event(events::failed_scheduling(&pod, &profile, &note)));
            logging::v(3, || Line::new("Skip schedule deleting pod").o("pod", &key));
            self.queue.done(&key);
            return Some((Attempt::Skipped { pod: key }, None));
        }
        if self.cache.is_assumed(&key) {
            self.queue.done(&key);
            return Some((Attempt::Skipped { pod: key }, None));
        }
        logging::v(3, || Line::new("Attempting to schedule pod").o("pod", &key));
        if let Some(reason) = pod.unschedulable_reason() {
            let message = texts::pod_spec::cannot_be_scheduled(reason);
            self.fail(fw_index, &qp, Requeue::Rejected { plugins: vec![POD_SPEC] }, REASON_UNSCHEDULABLE, &message, None, now);
            return Some((Attempt::Unschedulable { pod: key, message }, None));
        }
        // Extenders receive the pod as the API server sent it (the last version seen while pending).
        let fallback;
        let pod_object: &crate::core::api::Pod = match self.pending.get(&key) {
            Some(p) => p,
            None => {
                fallback = minimal_pod(&pod);
                &fallback
            }
        };
        let extenders = self.extenders.as_ref().map(|set| CycleExtenders::new(set, pod_object));
        let bind_target = self.extenders.as_ref().and_then(|set| set.bind_target(pod_object));
        let mut params = CycleParams {
            next_start_node_index: &mut self.next_start_node_index,
            percentage_of_nodes_to_score: self.percentage_of_nodes_to_score,
            rng: &mut self.rng,
            explain,
            extenders,
            waiting: Some(&self.waiting),
            clock: self.ticker.as_deref().map(|t| t as &dyn crate::core::framework::Ticker),
            now: Some(now),
        };
        let fw = &self.profiles[fw_index];
        self.cache.ensure_tallies(fw.tallies(&self.cache, &pod));
        let sample = self.cycles % PLUGIN_SAMPLE_EVERY == 0;
        self.cycles = self.cycles.wrapping_add(1);
        let recorder = self.ticker.as_deref().map(|t| CycleRecorder::new(t, sample));
        let algorithm_start = recorder.as_ref().map(CycleRecorder::now);
        let outcome = fw.schedule_recorded(&self.cache, &pod, &mut params, recorder.as_ref());
        // The binding cycle's first step with NominatedNodeNameForExpectation on (bindingCycle,
        // schedule_one.go v1.35): does PreBind have work for the pod? Asked here, where the
        // cycle's recorder still runs (see `framework::cycle::pre_flight`).
        let (pre_bind_work, pre_bind_skipped) = match &outcome {
            ScheduleOutcome::Scheduled { result, pre_bind, .. } if self.nominate_for_expectation => {
                let (answer, skipped) = fw.run_pre_bind_pre_flights(&self.cache, &pod, &result.node, pre_bind, recorder.as_ref());
                (answer == PreFlight::Work, skipped)
            }
            _ => (false, Vec::new()),
        };
        if let (Some(rec), Some(start)) = (&recorder, algorithm_start) {
            // SchedulingAlgorithmLatency is observed only when a node was found, as upstream.
            if matches!(outcome, ScheduleOutcome::Scheduled { .. }) {
                self.metrics.observe(m::ALGORITHM_DURATION, &[], rec.now().saturating_duration_since(start).as_secs_f64());
            }
            rec.flush(&self.metrics, &fw.scheduler_name);
        }
        drop(recorder);
        let attempt = match &outcome {
            ScheduleOutcome::Scheduled { result, pre_bind, permit_wait, .. } => {
                self.cache.assume_pod(&pod, &result.node);
                self.cache.nominations_mut().clear(&key);
                if !pre_bind.is_empty() {
                    self.cache.storage_mut().assume_actions(&key, pre_bind);
                    assume_claim_reservations(self.cache.dra_mut(), &key, pre_bind);
                }
                let bind = BindRequest {
                    pod: pod.clone(),
                    node: result.node.clone(),
                    pre_bind: pre_bind.clone(),
                    profile: fw.scheduler_name.clone(),
                    evaluated_nodes: result.evaluated_nodes,
                    feasible_nodes: result.feasible_nodes,
                    attempts: qp.attempts,
                    initial_attempt: qp.initial_attempt,
                    cycle_start: now,
                    flushed: qp.flushed,
                    extender_binder: bind_target.clone(),
                    binding: fw.binding_plugins(),
                    pre_bind_skipped,
                };
                if !permit_wait.is_empty() {
                    // RunPermitPlugins (framework.go, v1.35), the scheduling cycle's last line.
                    logging::v(4, || Line::new("One or more plugins asked to wait and no plugin rejected pod").o("pod", &key));
                }
                // Upstream writes it only when WaitOnPermit or PreBind will work: otherwise the
                // pod is bound at once anyway.
                if self.nominate_for_expectation && (pre_bind_work || !permit_wait.is_empty()) {
                    self.nominate_for_binding(&pod, &result.node);
                }
                if permit_wait.is_empty() {
                    self.effects.push(Effect::Bind(bind));
                } else {
                    self.hold(Deferred { bind, fw_index, qp: qp.clone() }, permit_wait, now);
                }
                Attempt::Scheduled { pod: key, node: result.node.clone() }
            }
            ScheduleOutcome::Unschedulable { message, diagnosis, post_filter, .. } => {
                if message == NO_NODES_AVAILABLE {
                    logging::v(2, || {
                        Line::new("Unable to schedule pod; no nodes are registered to the cluster; waiting").o("pod", &key)
                    });
                } else {
                    logging::v(2, || Line::new("Unable to schedule pod; no fit; waiting").o("pod", &key).s("err", message));
                }
                let plugins = diagnosis.unschedulable_plugins.clone();
                let nominated = post_filter.nominated_node.as_ref().map(|n| n.to_string());
                let victims = post_filter.victims.clone();
                let profile = fw.scheduler_name.clone();
                // DefaultPreemption's PostFilter ran (it does not when no node exists at all).
                if message != NO_NODES_AVAILABLE && fw.has_plugin(crate::core::framework::plugins::names::DEFAULT_PREEMPTION) {
                    self.metrics.inc(m::PREEMPTION_ATTEMPTS, &[], 1.0);
                }
                let message = message.clone();
                self.fail(fw_index, &qp, Requeue::Rejected { plugins }, REASON_UNSCHEDULABLE, &message, nominated.clone(), now);
                match nominated.as_deref() {
                    // `fail` dropped the pod from the nominator.
                    Some("") => {}
                    Some(node) => {
                        logging::v(3, || {
                            Line::new("Preempting to make room for pod")
                                .o("pod", &key)
                                .o("node", node)
                                .n("victims", victims.len())
                        });
                        self.metrics.observe(m::PREEMPTION_VICTIMS, &[], victims.len() as f64);
                        self.cache.nominations_mut().nominate(pod.clone(), node);
                        for v in &victims {
                            self.effects.push(Effect::Evict(Eviction {
                                namespace: v.namespace.to_string(),
                                name: v.key.split_once('/').map(|(_, n)| n.to_string()).unwrap_or_default(),
                                uid: v.uid.to_string(),
                                preemptor_reference: crate::core::events::pod_reference(
                                    &pod.namespace,
                                    &pod.name,
                                    &pod.uid,
                                    &pod.resource_version,
                                ),
                                preemptor: key.to_string(),
                                node: node.to_string(),
                                profile: profile.clone(),
                            }));
                        }
                        // Lower-priority pods nominated to this node may no longer fit there.
                        let lower: Vec<Arc<PodInfo>> = self
                            .cache
                            .nominations()
                            .pods_on(node)
                            .iter()
                            .filter(|p| p.priority < pod.priority)
                            .cloned()
                            .collect();
                        for p in lower {
                            self.cache.nominations_mut().clear(&p.key);
                            self.effects.push(Effect::PatchStatus(StatusPatch {
                                namespace: p.namespace.to_string(),
                                name: p.name.to_string(),
                                uid: p.uid.to_string(),
                                condition: None,
                                nominated_node_name: Some(String::new()),
                                origin: PatchOrigin::Scheduling,
                            }));
                        }
                    }
                    None => {}
                }
                Attempt::Unschedulable { pod: key, message: message.clone() }
            }
            ScheduleOutcome::Error { message, .. } => {
                Line::new("Error scheduling pod; retrying").s("err", message).o("pod", &key).error();
                self.fail(fw_index, &qp, Requeue::Error, REASON_SCHEDULER_ERROR, message, CLEAR_NOMINATED_NODE, now);
                Attempt::Error { pod: key, message: message.clone() }
            }
        };
        let (actions, writes) = match &outcome {
            ScheduleOutcome::Scheduled { diagnosis, .. }
            | ScheduleOutcome::Unschedulable { diagnosis, .. }
            | ScheduleOutcome::Error { diagnosis, .. } => (diagnosis.waiting_actions.clone(), diagnosis.api_writes.clone()),
        };
        self.effects.extend(writes.into_iter().map(Effect::ApiWrite));
        self.apply_waiting_actions(actions, now);
        self.record_queue_moves();
        self.update_gauges_throttled(now);
        Some((attempt, Some(outcome)))
    }

    pub(super) fn on_bind_done(&mut self, mut o: BindOutcome, now: Instant) {
        // The claims PreBind wrote are kept first, so that Unreserve sees them reserved for the
        // pod (as upstream's PreBind updates its cycle state before Unreserve runs).
        let claims = std::mem::take(&mut o.claims);
        if !claims.is_empty() || self.cache.dra().num_in_flight() > 0 {
            self.dra_binding_finished(&o.key, claims, now);
        }
        if o.result.is_err() {
            self.unreserve_in_flight(&o.key, &o.node, now);
        }
        match o.result {
            Ok(()) => self.queue.done(&o.key),
            Err(BindFailure::Conflict(msg)) => {
                self.cache.storage_mut().forget_assumed_for_pod(&o.key);
                Line::new(logs::BOUND_ELSEWHERE).o("pod", &o.key).o("node", &o.node).s("err", &msg).info();
                self.queue.done(&o.key);
                if self.cache.forget_pod(&o.key) {
                    self.move_pods(EventMask::ASSIGNED_POD_DELETE, now);
                }
            }
            Err(BindFailure::Other(msg)) => {
                self.cache.storage_mut().forget_assumed_for_pod(&o.key);
                Line::new("Failed to bind pod").o("pod", &o.key).o("node", &o.node).s("err", &msg).error();
                if self.cache.forget_pod(&o.key) {
                    self.move_pods(EventMask::ASSIGNED_POD_DELETE, now);
                }
                if let Some(qp) = self.queue.get(&o.key).cloned() {
                    if self.queue.location(&o.key) == Some(Location::InFlight) {
                        if let Some(i) = self.profiles.iter().position(|p| *p.scheduler_name == *qp.pod.scheduler_name) {
                            // handleBindingCycleError passes clearNominatedNode.
                            self.fail(i, &qp, Requeue::Error, REASON_SCHEDULER_ERROR, &msg, CLEAR_NOMINATED_NODE, now);
                            return;
                        }
                    }
                }
                self.queue.done(&o.key);
            }
        }
    }
}

impl Scheduler {
    /// The binding cycle failed: its profile's Reserve plugins unreserve the pod (before it is
    /// forgotten on the node, as `handleBindingCycleError`).
    fn unreserve_in_flight(&mut self, key: &str, node: &str, now: Instant) {
        let Some(pod) = self.queue.get(key).map(|q| q.pod.clone()) else { return };
        let Some(fw) = self.profiles.iter().find(|p| *p.scheduler_name == *pod.scheduler_name) else { return };
        if fw.reserve.is_empty() {
            return;
        }
        let unreserved = fw.unreserve(&self.cache, &pod, node, Some(&self.waiting));
        self.effects.extend(unreserved.writes.into_iter().map(Effect::ApiWrite));
        self.apply_waiting_actions(unreserved.waiting, now);
    }
}

/// Reserve's claim allocations become in flight at once (`SignalClaimPendingAllocation`): the
/// next cycle already counts their devices as taken. The claim in flight is the one PreBind
/// will write: with the finalizer and the allocation.
fn assume_claim_reservations(
    dra: &mut crate::core::cache::dra::DraState,
    pod: &crate::core::model::PodKey,
    actions: &[crate::core::framework::PreBindAction],
) {
    for a in actions {
        if let crate::core::framework::PreBindAction::ReserveClaim(r) = a {
            if let Some(allocation) = &r.allocation {
                let mut claim = crate::core::dra::claim_writes::with_finalizer(&r.claim).unwrap_or_else(|| (*r.claim).clone());
                claim.status.allocation = Some(allocation.clone());
                dra.signal_pending_allocation(pod, Arc::new(claim));
            }
        }
    }
}

/// The identity of a pod whose API object is not at hand (extenders still learn which pod).
fn minimal_pod(pod: &PodInfo) -> crate::core::api::Pod {
    let mut p = crate::core::api::Pod::default();
    p.metadata.name = pod.name.to_string();
    p.metadata.namespace = pod.namespace.to_string();
    p.metadata.uid = pod.uid.to_string();
    p.spec.scheduler_name = pod.scheduler_name.to_string();
    p
}
