//! GangScheduling (pkg/scheduler/framework/plugins/gangscheduling/gangscheduling.go, v1.35: the
//! version that reads `scheduling.k8s.io/v1alpha1` Workloads and `pod.spec.workloadRef`; in the
//! default profile only with the `GenericWorkload` and `GangScheduling` gates on): the pods of a
//! gang — a Workload's pod group with a `gang` policy — are placed all together or not at all.
//!
//! - PreEnqueue: a pod of a group is held until its Workload exists, names its group, and, for a
//!   gang, `minCount` pods of the group exist (pending, assumed or bound). A basic group is not
//!   held.
//! - Permit: a gang pod waits, assumed on its node, until `minCount` pods of its group are
//!   assumed or bound; the pod that completes the quorum allows its waiting siblings. The group
//!   waits at most [`SCHEDULING_TIMEOUT`] (upstream's `DefaultSchedulingTimeoutDuration`) from
//!   when its first pod started waiting; then the framework rejects its pods and their room goes
//!   back.
//! - Events: a pod added (of the same group: namespace and whole reference equal) and a
//!   Workload added (the one the pod names) requeue a pod this plugin held or rejected.
//!
//! Upstream's Reserve/Unreserve mark the pod assumed in the workload manager; here the cache's
//! assumed pods are those counts (see [`crate::core::gang`]), and the group's deadline is read
//! from its waiting pods (a group none of whose pods waits any more starts a new one; upstream
//! keeps an unexpired deadline even then). Difference: Permit does not `Activate` the group's
//! other unscheduled pods (they are requeued by the events above or the periodic flush).

use crate::core::cache::{Cache, NodeInfo};
use crate::core::framework::cluster_events::{ClusterEvent, EventMask, EventObject, QueueingHint};
use crate::core::framework::waiting::WaitingHandle;
use crate::core::framework::{PermitOutcome, Plugin, PluginState, Points, Rejection};
use crate::core::gang::{v1alpha1, Lookup, Policy};
use crate::core::model::PodInfo;
use crate::core::texts::gang_scheduling as texts;
use std::sync::OnceLock;
use std::time::Duration;

/// `DefaultSchedulingTimeoutDuration` (workloadmanager/podgroupinfo.go): how long gang pods wait
/// at Permit for their quorum.
pub const SCHEDULING_TIMEOUT: Duration = Duration::from_secs(5 * 60);

static TIMEOUT_OVERRIDE: OnceLock<Duration> = OnceLock::new();

/// Replace [`SCHEDULING_TIMEOUT`] for this process (upstream exports the variable for tests;
/// the shell sets it from `EDGESCHED_GANG_SCHEDULING_TIMEOUT`). Only the first call counts.
pub fn set_scheduling_timeout(d: Duration) {
    let _ = TIMEOUT_OVERRIDE.set(d);
}

fn scheduling_timeout() -> Duration {
    TIMEOUT_OVERRIDE.get().copied().unwrap_or(SCHEDULING_TIMEOUT)
}

/// How long `pod` waits: until its group's deadline (`SchedulingTimeout`: set when the first pod
/// of the group starts waiting, a new one once it passed), read from the siblings still waiting;
/// the whole timeout when none waits or the cycle's time is not known.
fn group_wait(waiting: &WaitingHandle<'_>, pod: &PodInfo, mine: Option<&crate::core::api::WorkloadReference>) -> Duration {
    let timeout = scheduling_timeout();
    let Some(now) = waiting.now() else { return timeout };
    waiting
        .iter()
        .filter(|w| v1alpha1::same_group(&pod.namespace, mine, &w.pod.namespace, v1alpha1::reference(&w.pod)))
        .filter_map(|w| w.deadline_for(super::names::GANG_SCHEDULING))
        .filter(|d| *d > now)
        .min()
        .map_or(timeout, |d| d.saturating_duration_since(now))
}

/// The plugin (no arguments, as upstream's).
pub struct GangScheduling;

impl Plugin for GangScheduling {
    fn name(&self) -> &'static str {
        super::names::GANG_SCHEDULING
    }

    fn points(&self) -> Points {
        Points { pre_enqueue: true, permit: true, ..Default::default() }
    }

    /// `EventsToRegister`: Pod/Add (unscheduled or assigned) and Workload/Add; a pod's
    /// reference and a Workload's groups are immutable, so no update is registered.
    fn events(&self) -> EventMask {
        EventMask::UNSCHEDULED_POD_ADD | EventMask::ASSIGNED_POD_ADD | EventMask::WORKLOAD_ADD
    }

    /// `isSchedulableAfterPodAdded` and `isSchedulableAfterWorkloadAdded`.
    fn queueing_hint(&self, event: &ClusterEvent<'_>, pod: &PodInfo) -> QueueingHint {
        let mine = v1alpha1::reference(pod);
        let helps = match event.new {
            Some(EventObject::Pod(added)) => {
                v1alpha1::same_group(&pod.namespace, mine, &added.namespace, v1alpha1::reference(added))
            }
            Some(EventObject::AssignedPod(added)) => {
                v1alpha1::same_group(&pod.namespace, mine, &added.namespace, added.workload_ref.as_deref())
            }
            Some(EventObject::Workload(w)) => v1alpha1::references_workload(pod, w),
            // An event without its object (a relist): ask again.
            None => true,
            Some(_) => false,
        };
        if helps {
            QueueingHint::Queue
        } else {
            QueueingHint::QueueSkip
        }
    }

    fn pre_enqueue(&self, cache: &Cache, pod: &PodInfo) -> Result<(), Rejection> {
        match v1alpha1::lookup(cache, pod) {
            Lookup::NoGroup | Lookup::Found(Policy::Basic) => Ok(()),
            Lookup::MissingWorkload { workload } => Err(Rejection::unresolvable(texts::waiting_for_workload(&workload))),
            Lookup::MissingPodGroup { workload, pod_group } => {
                Err(Rejection::unresolvable(texts::no_pod_group(&pod_group, &workload)))
            }
            Lookup::Found(Policy::Gang { min_count }) => {
                if v1alpha1::counts(cache, pod).all < min_count {
                    Err(Rejection::unresolvable(texts::WAITING_FOR_MIN_COUNT))
                } else {
                    Ok(())
                }
            }
        }
    }

    fn permit(
        &self,
        cache: &Cache,
        pod: &PodInfo,
        _node: &NodeInfo,
        _state: &PluginState,
        waiting: &mut WaitingHandle<'_>,
    ) -> PermitOutcome {
        let min_count = match v1alpha1::lookup(cache, pod) {
            Lookup::NoGroup | Lookup::Found(Policy::Basic) => return PermitOutcome::Allow,
            Lookup::MissingWorkload { workload } => {
                return PermitOutcome::Reject(Rejection::error(texts::workload_gone(&pod.namespace, &workload)))
            }
            Lookup::MissingPodGroup { workload, pod_group } => {
                return PermitOutcome::Reject(Rejection::error(texts::no_pod_group(&pod_group, &workload)))
            }
            Lookup::Found(Policy::Gang { min_count }) => min_count,
        };
        // Upstream's Reserve assumed the pod before Permit; the cache assumes it after, so it
        // is counted here.
        let counts = v1alpha1::counts(cache, pod);
        let mine = v1alpha1::reference(pod);
        if counts.placed + 1 < min_count {
            return PermitOutcome::Wait(group_wait(waiting, pod, mine));
        }
        let siblings: Vec<_> = waiting
            .iter()
            .filter(|w| v1alpha1::same_group(&pod.namespace, mine, &w.pod.namespace, v1alpha1::reference(&w.pod)))
            .map(|w| w.pod.key.clone())
            .collect();
        for key in siblings {
            waiting.allow(&key, super::names::GANG_SCHEDULING);
        }
        PermitOutcome::Allow
    }
}

#[cfg(test)]
mod tests;
