//! The queueing-hint tables of `dynamicresources_test.go` (kubernetes/kubernetes v1.35):
//! `TestIsSchedulableAfterClaimChange` and `TestIsSchedulableAfterPodChange`, every case but
//! the `backoff-wrong-*` ones (an object of the wrong type cannot reach a Rust hint: events
//! carry typed objects). As upstream's test does, a claim added or updated is in the cache
//! before the hint looks (the informer delivered it).

use super::hints::{after_claim_change, after_pod_change, queueing_hint};
use super::upstream_tests::*;
use crate::core::api::{self, ResourceClaim};
use crate::core::framework::{ClusterEvent, EventMask, EventObject, QueueingHint};
use crate::core::model::{NoPriorityClasses, PodInfo};

fn info(pod: &api::Pod) -> PodInfo {
    PodInfo::from_api(pod, &NoPriorityClasses)
}

/// Run the claim hint with `claims` in the cache and `new` stored over them.
fn claim_hint(
    pod: &api::Pod,
    claims: &[ResourceClaim],
    old: Option<&ResourceClaim>,
    new: Option<&ResourceClaim>,
) -> QueueingHint {
    let mut all: Vec<ResourceClaim> = claims.to_vec();
    if let Some(n) = new {
        all.retain(|c| c.metadata.name != n.metadata.name);
        all.push(n.clone());
    }
    let cache = cache_of(&all);
    let pod = info(pod);
    match new {
        Some(n) => after_claim_change(&cache, &pod, old, n),
        None => {
            let event =
                ClusterEvent { mask: EventMask::RESOURCE_CLAIM_DELETE, old: old.map(EventObject::ResourceClaim), new: None };
            queueing_hint(&cache, &event, &pod)
        }
    }
}

#[test]
fn is_schedulable_after_claim_change() {
    let other_allocated =
        allocated(claim_with("not-my-claim", serde_json::json!([exact(1, CLASS)])), allocation(&[("req-1", "instance-1")]));
    // "skip-deletes"
    assert_eq!(
        claim_hint(&pod_with_claim_template(), &[], Some(&allocated_claim()), None),
        QueueingHint::QueueSkip,
        "skip-deletes"
    );
    // "skip-wrong-claim"
    let mut wrong = allocated_claim();
    wrong.metadata.owner_references[0].uid += "123";
    assert_eq!(claim_hint(&pod_with_claim_template(), &[], None, Some(&wrong)), QueueingHint::QueueSkip, "skip-wrong-claim");
    // "skip-unrelated-claim"
    let mut unrelated = allocated_claim();
    unrelated.metadata.name += "-foo";
    unrelated.metadata.uid += "123";
    assert_eq!(
        claim_hint(&pod_with_claim_template(), &[allocated_claim()], None, Some(&unrelated)),
        QueueingHint::QueueSkip,
        "skip-unrelated-claim"
    );
    // "queue-on-add"
    assert_eq!(claim_hint(&pod_with_claim_name(), &[], None, Some(&pending_claim())), QueueingHint::Queue, "queue-on-add");
    // "skip-adding-finalizer"
    let mut finalized = pending_claim();
    finalized.metadata.finalizers.push("foo".into());
    assert_eq!(
        claim_hint(&pod_with_claim_name(), &[pending_claim()], Some(&pending_claim()), Some(&finalized)),
        QueueingHint::QueueSkip,
        "skip-adding-finalizer"
    );
    // "queue-on-status-change"
    let mut with_status = pending_claim();
    with_status.status.allocation = Some(api::AllocationResult::default());
    assert_eq!(
        claim_hint(&pod_with_claim_name(), &[pending_claim()], Some(&pending_claim()), Some(&with_status)),
        QueueingHint::Queue,
        "queue-on-status-change"
    );
    // "claim-deallocate"
    let mut deallocated = other_allocated.clone();
    deallocated.status.allocation = None;
    assert_eq!(
        claim_hint(
            &pod_with_claim_name(),
            &[pending_claim(), other_allocated.clone()],
            Some(&other_allocated),
            Some(&deallocated)
        ),
        QueueingHint::Queue,
        "claim-deallocate"
    );
}

#[test]
fn is_schedulable_after_pod_change() {
    let hint = |claims: &[ResourceClaim], pod: &api::Pod, modified: &api::Pod| {
        after_pod_change(&cache_of(claims), &info(pod), &info(modified))
    };
    // "complete"
    assert_eq!(
        hint(&[pending_claim()], &pod_with_claim_template(), &pod_with_claim_template_in_status()),
        QueueingHint::Queue,
        "complete"
    );
    // "wrong-pod"
    let mut other = pod_with_claim_template();
    other.metadata.name += "2";
    other.metadata.uid += "2";
    assert_eq!(hint(&[pending_claim()], &other, &pod_with_claim_template_in_status()), QueueingHint::QueueSkip, "wrong-pod");
    // "missing-claim"
    assert_eq!(
        hint(&[], &pod_with_claim_template(), &pod_with_claim_template_in_status()),
        QueueingHint::QueueSkip,
        "missing-claim"
    );
    // "incomplete": only one of two claims created.
    let two = pod_json(
        serde_json::json!([{"name": RESOURCE, "resourceClaimTemplateName": CLAIM}, {"name": "my-resource-2", "resourceClaimTemplateName": CLAIM}]),
        serde_json::json!([]),
    );
    let mut incomplete = two.clone();
    incomplete.status.resource_claim_statuses =
        vec![api::PodResourceClaimStatus { name: RESOURCE.into(), resource_claim_name: Some(CLAIM.into()) }];
    assert_eq!(hint(&[pending_claim()], &two, &incomplete), QueueingHint::QueueSkip, "incomplete");
}

#[test]
fn events_to_register() {
    // EventsToRegister with queueing hints on: nodes (add, label, allocatable), claims (add,
    // update), the pod's generated claims, classes and slices (add, update).
    for (mask, registered) in [
        (EventMask::NODE_ADD, true),
        (EventMask::NODE_LABEL, true),
        (EventMask::NODE_ALLOCATABLE, true),
        (EventMask::NODE_TAINT, false),
        (EventMask::RESOURCE_CLAIM_ADD, true),
        (EventMask::RESOURCE_CLAIM_UPDATE, true),
        (EventMask::RESOURCE_CLAIM_DELETE, false),
        (EventMask::POD_GENERATED_RESOURCE_CLAIM, true),
        (EventMask::DEVICE_CLASS_ADD, true),
        (EventMask::DEVICE_CLASS_UPDATE, true),
        (EventMask::DEVICE_CLASS_DELETE, false),
        (EventMask::RESOURCE_SLICE_ADD, true),
        (EventMask::RESOURCE_SLICE_UPDATE, true),
        (EventMask::RESOURCE_SLICE_DELETE, false),
        (EventMask::ASSIGNED_POD_DELETE, false),
    ] {
        assert_eq!(super::hints::EVENTS.intersects(mask), registered, "{}", mask.label());
    }
}
