//! Pods held at Permit (upstream: `RunPermitPlugins` in the scheduling cycle, `WaitOnPermit` at
//! the start of the binding cycle, `handleBindingCycleError` on rejection — schedule_one.go).
//!
//! A pod a Permit plugin asked to wait stays assumed on its node; its binding is deferred here
//! until every waiting plugin allowed it (then the Bind effect leaves), or until a plugin
//! rejects it or a wait runs out (then it is forgotten on the node, other pods get the room back,
//! and it is requeued as unschedulable by that plugin).

use super::failure::CLEAR_NOMINATED_NODE;
use super::state::{Deferred, Scheduler};
use super::Effect;
use crate::core::framework::status::fit_error_message;
use crate::core::framework::waiting::WaitingAction;
use crate::core::framework::{Diagnosis, EventMask, Rejection};
use crate::core::logging::{self, Line};
use crate::core::metrics::names as m;
use crate::core::model::PodKey;
use crate::core::queue::Requeue;
use crate::core::texts::conditions::REASON_UNSCHEDULABLE;
use std::time::Instant;

/// `scheduler_permit_wait_duration_seconds{result}` labels (`fwk.Code.String()`).
const RESULT_SUCCESS: &str = "Success";
const RESULT_UNSCHEDULABLE: &str = "Unschedulable";

impl Scheduler {
    /// Hold a pod that passed the cycle until its waiting plugins allow it.
    pub(super) fn hold(&mut self, d: Deferred, waits: &[(&'static str, std::time::Duration)], now: Instant) {
        let key = d.bind.pod.key.clone();
        // WaitOnPermit (framework.go, v1.35), as the binding cycle starts waiting.
        logging::v(4, || Line::new("Pod waiting on permit").o("pod", &key));
        self.waiting.add(d.bind.pod.clone(), d.bind.node.clone(), waits, now);
        self.deferred.insert(key, d);
    }

    /// Apply what plugins decided about waiting pods during a cycle.
    pub(super) fn apply_waiting_actions(&mut self, actions: Vec<WaitingAction>, now: Instant) {
        for a in actions {
            match a {
                WaitingAction::Allow { pod, plugin } => {
                    if let Some(wp) = self.waiting.allow(&pod, plugin) {
                        self.release(&pod, wp.since, now);
                    }
                }
                WaitingAction::Reject { pod, plugin, message } => {
                    if let Some(wp) = self.waiting.remove(&pod) {
                        self.reject_waiting(&pod, plugin, &message, wp.since, now);
                    }
                }
            }
        }
    }

    /// Reject the pods whose wait ran out (`rejected due to timeout after waiting 10s at plugin X`);
    /// `simulate` calls it when only waiting pods are left.
    pub fn expire_waiting(&mut self, now: Instant) {
        for (wp, plugin, wait) in self.waiting.expired(now) {
            let message =
                crate::core::texts::framework::permit_timeout(&crate::core::config::GoDuration(wait).to_string(), plugin);
            self.reject_waiting(&wp.pod.key.clone(), plugin, &message, wp.since, now);
        }
    }

    /// Every plugin allowed the pod: bind it.
    fn release(&mut self, key: &PodKey, since: Instant, now: Instant) {
        let Some(d) = self.deferred.remove(key) else { return };
        self.metrics.observe(m::PERMIT_WAIT_DURATION, &[RESULT_SUCCESS], now.saturating_duration_since(since).as_secs_f64());
        self.effects.push(Effect::Bind(d.bind));
    }

    /// A plugin rejected the waiting pod: forget it on its node and requeue it.
    fn reject_waiting(&mut self, key: &PodKey, plugin: &'static str, message: &str, since: Instant, now: Instant) {
        let Some(d) = self.deferred.remove(key) else { return };
        self.metrics.observe(
            m::PERMIT_WAIT_DURATION,
            &[RESULT_UNSCHEDULABLE],
            now.saturating_duration_since(since).as_secs_f64(),
        );
        // WaitOnPermit (framework.go, v1.35).
        logging::v(4, || Line::new("Pod rejected while waiting on permit").o("pod", key).s("status", message));
        let unreserved = self.profiles[d.fw_index].unreserve(&self.cache, &d.bind.pod, &d.bind.node, Some(&self.waiting));
        self.effects.extend(unreserved.writes.into_iter().map(Effect::ApiWrite));
        self.dra_release(key, now);
        self.cache.storage_mut().forget_assumed_for_pod(key);
        if self.cache.forget_pod(key) {
            self.move_pods(EventMask::ASSIGNED_POD_DELETE, now);
        }
        let mut diagnosis = Diagnosis::default();
        diagnosis.add_plugin(plugin);
        diagnosis.node_to_status.insert((*d.bind.node).into(), Rejection::unschedulable(message.to_string()).with_plugin(plugin));
        let fit = fit_error_message(1, &diagnosis);
        // handleBindingCycleError passes clearNominatedNode.
        self.fail(
            d.fw_index,
            &d.qp,
            Requeue::Rejected { plugins: vec![plugin] },
            REASON_UNSCHEDULABLE,
            &fit,
            CLEAR_NOMINATED_NODE,
            now,
        );
        self.apply_waiting_actions(unreserved.waiting, now);
    }

    /// A waiting pod was deleted: drop it (its assumption goes with the pod, and so do its
    /// claims' allocations in flight: its binding never starts).
    pub(super) fn drop_waiting(&mut self, key: &str, now: Instant) {
        if self.waiting.remove(key).is_some() {
            self.deferred.remove(key);
            self.dra_release(key, now);
        }
    }

    /// The pods waiting at Permit (for tests and `status`).
    pub fn waiting_pods(&self) -> &crate::core::framework::waiting::WaitingPods {
        &self.waiting
    }
}
