//! What a failed attempt leaves behind (upstream `handleSchedulingFailure`): the pod back in the
//! queue (backoff or unschedulable, with the plugins that rejected it), a `FailedScheduling`
//! event, and the `PodScheduled=False` condition when it changed.

use super::effects::{Effect, PatchOrigin, StatusPatch};
use super::state::Scheduler;
use crate::core::conditions;
use crate::core::events;
use crate::core::queue::{QueuedPod, Requeue};
use std::time::Instant;

/// The nomination a failure after the pod fit somewhere leaves (upstream `clearNominatedNode`,
/// schedule_one.go v1.35): none. Written only when the pod entered its cycle with one, because
/// `updatePod` compares with that pod (see [`Scheduler::fail`]).
pub(super) const CLEAR_NOMINATED_NODE: Option<String> = Some(String::new());

impl Scheduler {
    /// handleSchedulingFailure: event, PodScheduled=False condition (only if it changed), requeue,
    /// and the nominating info applied: `Some(node)` patches `.status.nominatedNodeName` when it
    /// differs from the pod's at the start of the cycle, and `Some("")` also drops the pod from
    /// the in-memory nominator (`AddNominatedPod` with `ModeOverride` and no node).
    #[allow(clippy::too_many_arguments)]
    pub(super) fn fail(
        &mut self,
        fw_index: usize,
        qp: &QueuedPod,
        why: Requeue,
        reason: &str,
        message: &str,
        nominated: Option<String>,
        now: Instant,
    ) {
        let pod = &qp.pod;
        self.queue.requeue(&pod.key, why, now);
        let profile = self.profiles[fw_index].scheduler_name.clone();
        self.effects.push(Effect::Event(events::failed_scheduling(pod, &profile, message)));
        let wanted =
            crate::core::model::ScheduledCondition { status: "False".into(), reason: reason.into(), message: message.into() };
        let condition_changed = pod.scheduled_condition.as_ref() != Some(&wanted);
        let nominated_changed = nominated.as_deref().is_some_and(|n| *n != *pod.nominated_node_name);
        if nominated.as_deref() == Some("") {
            self.cache.nominations_mut().clear(&pod.key);
        }
        if condition_changed || nominated_changed {
            self.effects.push(Effect::PatchStatus(StatusPatch {
                namespace: pod.namespace.to_string(),
                name: pod.name.to_string(),
                uid: pod.uid.to_string(),
                condition: condition_changed.then(|| conditions::pod_scheduled_false(reason, message)),
                nominated_node_name: if nominated_changed { nominated } else { None },
                origin: PatchOrigin::Scheduling,
            }));
        }
    }
}
