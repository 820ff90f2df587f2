//! The pod conditions the scheduler writes — `PodScheduled=False` on a pod it could not place and
//! `DisruptionTarget=True` on a preemption victim — built in one place so the scheduler core, the
//! API workers and the tests write the same types, reasons and messages ([`crate::core::texts`]).

use crate::core::api;
use crate::core::texts::conditions as texts;

/// `PodScheduled=False` with `reason` (`Unschedulable` or `SchedulerError`) and the failure
/// message (schedule_one.go handleSchedulingFailure). Times are filled in by the writer.
pub fn pod_scheduled_false(reason: &str, message: &str) -> api::PodCondition {
    api::PodCondition {
        type_: texts::POD_SCHEDULED.into(),
        status: "False".into(),
        reason: Some(reason.into()),
        message: Some(message.into()),
        last_probe_time: None,
        last_transition_time: None,
    }
}

/// `DisruptionTarget=True`, reason `PreemptionByScheduler`, on a victim evicted by the profile
/// `scheduler_name` (preemption.go). Times are filled in by the writer.
pub fn disruption_target(scheduler_name: &str) -> api::PodCondition {
    api::PodCondition {
        type_: texts::DISRUPTION_TARGET.into(),
        status: "True".into(),
        reason: Some(texts::REASON_PREEMPTION_BY_SCHEDULER.into()),
        message: Some(texts::preempting(scheduler_name)),
        last_probe_time: None,
        last_transition_time: None,
    }
}
