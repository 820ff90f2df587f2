//! What the scheduler writes into ResourceClaims, as pure functions over the claim
//! (`dynamicresources.go` v1.35: `bindClaim`, `PostFilter`, `Unreserve`), so that the shell's API
//! workers and the what-if commands change claims the same way: the shell sends the results to
//! the API server, `simulate` applies them to its own cluster.

use crate::core::api;
use serde_json::json;

/// The consumer reference a pod gets in `status.reservedFor` (`{Resource: "pods", Name, UID}`).
pub fn pod_reference(pod_name: &str, pod_uid: &str) -> api::ResourceClaimConsumerReference {
    api::ResourceClaimConsumerReference {
        api_group: String::new(),
        resource: "pods".to_string(),
        name: pod_name.to_string(),
        uid: pod_uid.to_string(),
    }
}

/// Whether the claim lists the pod in `reservedFor` (`resourceclaim.IsReservedForPod`).
pub fn is_reserved_for(claim: &api::ResourceClaim, pod_uid: &str) -> bool {
    claim.status.reserved_for.iter().any(|r| r.uid == pod_uid)
}

/// The claim with the delete-protection finalizer, or `None` when it has it already (the
/// finalizer goes in with a normal update before the allocation is written).
pub fn with_finalizer(claim: &api::ResourceClaim) -> Option<api::ResourceClaim> {
    if claim.metadata.finalizers.iter().any(|f| f == api::CLAIM_FINALIZER) {
        return None;
    }
    let mut c = claim.clone();
    c.metadata.finalizers.push(api::CLAIM_FINALIZER.to_string());
    Some(c)
}

/// The status update `bindClaim` sends: the allocation (when Reserve chose one) and the pod
/// appended to `reservedFor`, without checking anything (the API server refuses what it must).
pub fn reserved(
    claim: &api::ResourceClaim,
    allocation: Option<&api::AllocationResult>,
    pod_name: &str,
    pod_uid: &str,
) -> api::ResourceClaim {
    let mut c = claim.clone();
    if let Some(a) = allocation {
        c.status.allocation = Some(a.clone());
    }
    c.status.reserved_for.push(pod_reference(pod_name, pod_uid));
    c
}

/// PostFilter's deallocation: the claim with `reservedFor`, the allocation and the devices'
/// status cleared.
pub fn deallocated(claim: &api::ResourceClaim) -> api::ResourceClaim {
    let mut c = claim.clone();
    c.status.reserved_for.clear();
    c.status.allocation = None;
    c.status.devices.clear();
    c
}

/// Unreserve's strategic-merge patch of `status`: removes the pod's `reservedFor` entry without
/// needing the latest claim (the UID precondition guards against a replaced claim).
pub fn unreserve_patch(claim_uid: &str, pod_uid: &str) -> serde_json::Value {
    json!({"metadata": {"uid": claim_uid}, "status": {"reservedFor": [{"$patch": "delete", "uid": pod_uid}]}})
}

/// What [`unreserve_patch`] does to a claim.
pub fn unreserved(claim: &api::ResourceClaim, pod_uid: &str) -> api::ResourceClaim {
    let mut c = claim.clone();
    c.status.reserved_for.retain(|r| r.uid != pod_uid);
    c
}
