//! The cluster events that may make a pod DynamicResources rejected schedulable, and their
//! queueing hints (`EventsToRegister`, `isSchedulableAfterClaimChange`,
//! `isSchedulableAfterPodChange` in `dynamicresources.go` v1.35).
//!
//! With queueing hints on (GA), upstream registers node additions and label and allocatable
//! changes, claim additions and updates (hinted), the pod's own update that names its generated
//! claims (hinted) and DeviceClass and ResourceSlice additions and updates.

use super::claims::{for_each_claim, kobj};
use crate::core::api;
use crate::core::cache::Cache;
use crate::core::framework::{ClusterEvent, EventMask, EventObject, QueueingHint};
use crate::core::logging::{self, Line};
use crate::core::model::PodInfo;

/// `EventsToRegister`.
pub(super) const EVENTS: EventMask = EventMask(
    EventMask::NODE_ADD.0
        | EventMask::NODE_LABEL.0
        | EventMask::NODE_ALLOCATABLE.0
        | EventMask::RESOURCE_CLAIM_ADD.0
        | EventMask::RESOURCE_CLAIM_UPDATE.0
        | EventMask::POD_GENERATED_RESOURCE_CLAIM.0
        | EventMask::DEVICE_CLASS_ADD.0
        | EventMask::DEVICE_CLASS_UPDATE.0
        | EventMask::RESOURCE_SLICE_ADD.0
        | EventMask::RESOURCE_SLICE_UPDATE.0,
);

/// The hint for one event: claims and the pod's own generated claims are looked at, everything
/// else registered queues.
pub(super) fn queueing_hint(cache: &Cache, event: &ClusterEvent<'_>, pod: &PodInfo) -> QueueingHint {
    if event.mask.intersects(EventMask::POD_GENERATED_RESOURCE_CLAIM) {
        return match event.new {
            Some(EventObject::Pod(modified)) => after_pod_change(cache, pod, modified),
            _ => QueueingHint::Queue,
        };
    }
    let claim_event =
        EventMask(EventMask::RESOURCE_CLAIM_ADD.0 | EventMask::RESOURCE_CLAIM_UPDATE.0 | EventMask::RESOURCE_CLAIM_DELETE.0);
    if !event.mask.intersects(claim_event) {
        return QueueingHint::Queue;
    }
    fn claim<'e>(o: Option<EventObject<'e>>) -> Option<&'e api::ResourceClaim> {
        match o {
            Some(EventObject::ResourceClaim(c)) => Some(c),
            _ => None,
        }
    }
    match (claim(event.old), claim(event.new)) {
        (old, Some(new)) => after_claim_change(cache, pod, old, new),
        // A relist's summary event carries no claim: err on the side of an attempt.
        (None, None) => QueueingHint::Queue,
        // A deletion (not registered upstream).
        (Some(_), None) => QueueingHint::QueueSkip,
    }
}

/// `isSchedulableAfterClaimChange`.
pub(super) fn after_claim_change(
    cache: &Cache,
    pod: &PodInfo,
    old: Option<&api::ResourceClaim>,
    new: &api::ResourceClaim,
) -> QueueingHint {
    let Some(claims) = &pod.resource_claims else { return QueueingHint::QueueSkip };
    let mut uses_claim = false;
    if let Err(reason) = for_each_claim(cache, pod, claims, |c| uses_claim |= c.metadata.uid == new.metadata.uid) {
        // Not an unexpected error: the pod is not schedulable.
        logging::v(6, || {
            Line::new("pod is not schedulable after resource claim change")
                .o("pod", &pod.key)
                .s("claim", kobj(new))
                .s("reason", &reason)
        });
        return QueueingHint::QueueSkip;
    }
    if old.is_some_and(|o| o.status.allocation.is_some()) && new.status.allocation.is_none() {
        // Deallocated: its devices may now go to this pod.
        logging::v(6, || Line::new("claim with structured parameters got deallocated").o("pod", &pod.key).s("claim", kobj(new)));
        return QueueingHint::Queue;
    }
    if !uses_claim {
        logging::v(6, || Line::new("unrelated claim got modified").o("pod", &pod.key).s("claim", kobj(new)));
        return QueueingHint::QueueSkip;
    }
    let Some(old) = old else {
        logging::v(5, || Line::new("claim for pod got created").o("pod", &pod.key).s("claim", kobj(new)));
        return QueueingHint::Queue;
    };
    if old.status == new.status {
        // Something else changed (typically the finalizer).
        logging::v(6, || {
            Line::new("claim for pod got modified where the pod doesn't care").o("pod", &pod.key).s("claim", kobj(new))
        });
        return QueueingHint::QueueSkip;
    }
    logging::v(5, || Line::new("status of claim for pod got updated").o("pod", &pod.key).s("claim", kobj(new)));
    QueueingHint::Queue
}

/// `isSchedulableAfterPodChange`: the pod's own update (its generated claims recorded) helps
/// once every claim is usable.
pub(super) fn after_pod_change(cache: &Cache, pod: &PodInfo, modified: &PodInfo) -> QueueingHint {
    if pod.uid != modified.uid {
        logging::v(7, || {
            Line::new("pod is not schedulable after change in other pod").o("pod", &pod.key).o("modifiedPod", &modified.key)
        });
        return QueueingHint::QueueSkip;
    }
    let Some(claims) = &modified.resource_claims else { return QueueingHint::Queue };
    if for_each_claim(cache, modified, claims, |_| {}).is_err() {
        logging::v(6, || Line::new("pod is not schedulable after being updated").o("pod", &pod.key));
        return QueueingHint::QueueSkip;
    }
    logging::v(5, || Line::new("pod got updated and is schedulable").o("pod", &pod.key));
    QueueingHint::Queue
}
