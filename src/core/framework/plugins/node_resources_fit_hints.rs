//! NodeResourcesFit's queueing hint for pod events (`noderesources/fit.go`
//! `isSchedulableAfterPodEvent` / `isSchedulableAfterPodScaleDown`, v1.35: the version that
//! passes `InPlacePodLevelResourcesVerticalScalingEnabled`; the same logic is at 030880a5dc54).
//! With `InPlacePodVerticalScaling` locked on in v1.35 the plugin registers pod deletions and
//! `UpdatePodScaleDown`: a bound pod whose counted requests went down may have freed what a
//! pod it rejected needs. Only a shrink of a resource that pod requests is worth a retry.

use crate::core::framework::{ClusterEvent, EventMask, EventObject, QueueingHint};
use crate::core::model::{PodInfo, Resources};

/// What the hint reads of either version of the pod an event is about.
struct Side<'a> {
    uid: &'a str,
    assigned: bool,
    /// `status.nominatedNodeName` is set (a nominated pod holds room on its node).
    nominated: bool,
    requests: Option<&'a Resources>,
}

fn side<'a>(o: &EventObject<'a>) -> Option<Side<'a>> {
    match o {
        EventObject::AssignedPod(p) => {
            Some(Side { uid: &p.uid, assigned: true, nominated: false, requests: Some(&p.resources.requests) })
        }
        EventObject::Pod(p) => Some(Side {
            uid: &p.uid,
            assigned: p.is_assigned(),
            nominated: !p.nominated_node_name.is_empty(),
            requests: p.resources.as_ref().ok().map(|r| &r.requests),
        }),
        _ => None,
    }
}

/// `isSchedulableAfterPodEvent` for `pod`, which NodeResourcesFit rejected.
pub fn after_pod_event(event: &ClusterEvent<'_>, pod: &PodInfo) -> QueueingHint {
    let (old, new) = (event.old.as_ref().and_then(side), event.new.as_ref().and_then(side));
    match (old, new) {
        // A deletion: an unscheduled pod without a nomination freed nothing.
        (Some(deleted), None) if !deleted.assigned && !deleted.nominated => QueueingHint::QueueSkip,
        (Some(old), Some(new)) if event.mask.intersects(EventMask::ASSIGNED_POD_SCALE_DOWN) => {
            if scale_down_helps(pod, &old, &new) {
                QueueingHint::Queue
            } else {
                QueueingHint::QueueSkip
            }
        }
        _ => QueueingHint::Queue,
    }
}

/// `isSchedulableAfterPodScaleDown`: the pod itself shrank, or a scheduled pod now requests
/// less of a resource the pod requests.
fn scale_down_helps(target: &PodInfo, old: &Side<'_>, new: &Side<'_>) -> bool {
    if *new.uid == *target.uid {
        return true;
    }
    if !new.assigned {
        return false;
    }
    let (Some(before), Some(after)) = (old.requests, new.requests) else { return true };
    let Ok(wanted) = target.resources.as_ref().map(|r| &r.requests) else { return true };
    (wanted.milli_cpu != 0 && before.milli_cpu > after.milli_cpu)
        || (wanted.memory != 0 && before.memory > after.memory)
        || (wanted.ephemeral_storage != 0 && before.ephemeral_storage > after.ephemeral_storage)
        || wanted.scalars.iter().any(|(n, v)| *v != 0 && before.scalar(*n) > after.scalar(*n))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::core::cache::AssignedPod;
    use crate::core::framework::plugins::test_util::PodBuilder;

    /// A pod as the scheduler holds it: pending ones as they are, bound ones as the node table's
    /// record.
    fn event_object<'a>(p: &'a PodInfo, assigned: &'a AssignedPod) -> EventObject<'a> {
        if p.is_assigned() {
            EventObject::AssignedPod(assigned)
        } else {
            EventObject::Pod(p)
        }
    }

    /// `Test_isSchedulableAfterPodChange` (`noderesources/fit_test.go`, the version with the
    /// pod-level cases): every case whose objects are pods. Not transcribed: the wrong-object
    /// cases (the objects are typed here) and "skip-queue-on-disable-inplace-pod-vertical-scaling"
    /// (the gate is locked on in v1.35).
    #[test]
    fn upstream_is_schedulable_after_pod_change() {
        let cpu = |n: &'static str| [("cpu", n)];
        let mem = |n: &'static str| [("memory", n)];
        type Case = (&'static str, PodBuilder, Option<PodBuilder>, Option<PodBuilder>, QueueingHint);
        let p1 = || PodBuilder::new("pod1").uid("pod1");
        let p2 = || PodBuilder::new("pod2").uid("pod2");
        let cases: Vec<Case> = vec![
            (
                "queue-on-other-pod-deleted",
                p1().container(&cpu("1")),
                Some(p2().container(&cpu("1")).node_name("fake")),
                None,
                QueueingHint::Queue,
            ),
            ("skip-queue-on-unscheduled-pod-deleted", p1(), Some(p2()), None, QueueingHint::QueueSkip),
            (
                "skip-queue-on-other-unscheduled-pod",
                p1().container(&cpu("1")).uid("uid0"),
                Some(p2().container(&cpu("2")).uid("uid1")),
                Some(p2().container(&cpu("1")).uid("uid1")),
                QueueingHint::QueueSkip,
            ),
            (
                "skip-queue-on-other-pod-unrelated-resource-scaled-down",
                p1().container(&cpu("1")),
                Some(p2().container(&mem("2")).node_name("fake")),
                Some(p2().container(&mem("1")).node_name("fake")),
                QueueingHint::QueueSkip,
            ),
            (
                "skip-queue-on-other-pod-unrelated-pod-level-resource-scaled-down",
                p1().pod_level(&cpu("1")),
                Some(p2().pod_level(&mem("2")).node_name("fake")),
                Some(p2().pod_level(&mem("1")).node_name("fake")),
                QueueingHint::QueueSkip,
            ),
            (
                "queue-on-other-pod-some-resource-scale-down",
                p1().container(&cpu("1")),
                Some(p2().container(&cpu("2")).node_name("fake")),
                Some(p2().container(&cpu("1")).node_name("fake")),
                QueueingHint::Queue,
            ),
            (
                "queue-on-other-pod-some-pod-level-resource-scale-down",
                p1().pod_level(&cpu("1")),
                Some(p2().pod_level(&cpu("2")).node_name("fake")),
                Some(p2().pod_level(&cpu("1")).node_name("fake")),
                QueueingHint::Queue,
            ),
            (
                "queue-on-target-pod-some-resource-scale-down",
                p1().container(&cpu("1")),
                Some(p1().container(&cpu("2"))),
                Some(p1().container(&cpu("1"))),
                QueueingHint::Queue,
            ),
            (
                "queue-on-target-pod-some-pod-level-resource-scale-down",
                p1().pod_level(&cpu("1")),
                Some(p1().pod_level(&cpu("2"))),
                Some(p1().pod_level(&cpu("1"))),
                QueueingHint::Queue,
            ),
        ];
        for (name, target, old, new, want) in cases {
            let target = target.info();
            let old = old.map(|b| b.info());
            let new = new.map(|b| b.info());
            let old_node = old.as_ref().map(|p| AssignedPod::from_pod(p, &p.node_name));
            let new_node = new.as_ref().map(|p| AssignedPod::from_pod(p, &p.node_name));
            let assigned_delete = new.is_none() && old.as_ref().is_some_and(|p| p.is_assigned());
            let mask = match (&new, assigned_delete) {
                (None, true) => EventMask::ASSIGNED_POD_DELETE,
                (None, false) => EventMask::NONE,
                (Some(_), _) => EventMask::ASSIGNED_POD_SCALE_DOWN,
            };
            let event = ClusterEvent {
                mask,
                old: old.as_ref().zip(old_node.as_ref()).map(|(p, a)| event_object(p, a)),
                new: new.as_ref().zip(new_node.as_ref()).map(|(p, a)| event_object(p, a)),
            };
            assert_eq!(after_pod_event(&event, &target), want, "{name}");
        }
    }

    /// A shrink of a scalar the pod requests helps; one of a scalar it does not, does not.
    #[test]
    fn scalar_scale_down_helps_only_pods_requesting_it() {
        let gpu = |n: &'static str| [("example.com/gpu", n)];
        let wants_gpu = PodBuilder::new("p").container(&gpu("1")).info();
        let wants_cpu = PodBuilder::new("p").container(&[("cpu", "1")]).info();
        let old = AssignedPod::from_pod(&PodBuilder::new("q").container(&gpu("2")).node_name("n").info(), "n");
        let new = AssignedPod::from_pod(&PodBuilder::new("q").container(&gpu("1")).node_name("n").info(), "n");
        let event = ClusterEvent {
            mask: EventMask::ASSIGNED_POD_SCALE_DOWN,
            old: Some(EventObject::AssignedPod(&old)),
            new: Some(EventObject::AssignedPod(&new)),
        };
        assert_eq!(after_pod_event(&event, &wants_gpu), QueueingHint::Queue);
        assert_eq!(after_pod_event(&event, &wants_cpu), QueueingHint::QueueSkip);
    }
}
