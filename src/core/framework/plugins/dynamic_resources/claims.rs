//! A pod's claims as the plugin finds them (upstream `foreachPodResourceClaim` and
//! `resourceclaim.Name` / `IsForPod`): each entry of `spec.resourceClaims` names a claim, or a
//! template whose claim the resourceclaim controller records in `status.resourceClaimStatuses`;
//! the claim must exist, must not be being deleted, and a generated one must be the pod's own.
//! PreEnqueue holds the pod back until that is so.

use crate::core::api;
use crate::core::cache::Cache;
use crate::core::framework::Rejection;
use crate::core::logging::{self, Line};
use crate::core::model::PodInfo;
use crate::core::model::{ClaimRef, PodClaims};
use crate::core::texts::dynamic_resources as texts;
use std::sync::Arc;

/// Why the pod cannot be scheduled yet (the text of upstream's error).
pub(super) type NotReady = String;

/// Call `each` with every claim of the pod (in `spec.resourceClaims` order, skipping those the
/// controller decided not to create), or say why one is not usable.
pub(super) fn for_each_claim<'c>(
    cache: &'c Cache,
    pod: &PodInfo,
    claims: &PodClaims,
    mut each: impl FnMut(&'c Arc<api::ResourceClaim>),
) -> Result<(), NotReady> {
    for pod_claim in claims.claims.iter() {
        let (name, must_check_owner) = match claims.resolve(pod_claim) {
            ClaimRef::Named { name, must_check_owner } => (name, must_check_owner),
            ClaimRef::NotNeeded => continue,
            ClaimRef::NotCreatedYet => return Err(texts::claim_not_created(&pod.namespace, &pod.name)),
            ClaimRef::Unsupported => return Err(texts::api_unsupported(&pod.namespace, &pod.name, &pod_claim.name)),
        };
        let Some(claim) = cache.dra().resource_claim(&pod.namespace, name) else {
            return Err(texts::claim_not_found(&format!("{}/{name}", pod.namespace)));
        };
        if claim.metadata.deletion_timestamp.is_some() {
            return Err(texts::being_deleted(&claim.metadata.name));
        }
        if must_check_owner && !is_for_pod(pod, claim) {
            return Err(texts::not_owner(&claim.metadata.namespace, &claim.metadata.name, &pod.namespace, &pod.name));
        }
        each(claim);
    }
    Ok(())
}

/// The pod's claims (`podResourceClaims`).
pub(super) fn pod_claims<'c>(
    cache: &'c Cache,
    pod: &PodInfo,
    claims: &PodClaims,
) -> Result<Vec<&'c Arc<api::ResourceClaim>>, NotReady> {
    let mut out = Vec::with_capacity(claims.claims.len());
    for_each_claim(cache, pod, claims, |c| out.push(c))?;
    Ok(out)
}

/// `resourceclaim.IsForPod`: same namespace and the pod is the claim's controller.
pub(super) fn is_for_pod(pod: &PodInfo, claim: &api::ResourceClaim) -> bool {
    claim.metadata.namespace == *pod.namespace
        && claim.metadata.owner_references.iter().find(|o| o.controller == Some(true)).is_some_and(|o| o.uid == *pod.uid)
}

/// `klog.KObj` of a claim.
pub(super) fn kobj(claim: &api::ResourceClaim) -> String {
    format!("{}/{}", claim.metadata.namespace, claim.metadata.name)
}

/// `statusUnschedulable`: the reason, logged at V(5) where it arises, as an
/// UnschedulableAndUnresolvable rejection.
pub(super) fn unschedulable(pod: &PodInfo, reason: String) -> Rejection {
    logging::v(5, || Line::new("pod unschedulable").o("pod", &pod.key).s("reason", &reason));
    Rejection::unresolvable(reason)
}

/// `statusError`: the error, logged at V(5), as an Error.
pub(super) fn error(pod: &PodInfo, err: String) -> Rejection {
    logging::v(5, || Line::new("dynamic resource plugin failed").o("pod", &pod.key).s("err", &err));
    Rejection::error(err)
}

/// PreEnqueue: every claim exists, is not being deleted and, when generated, is the pod's. A pod
/// without claims passes at once; while the `resource.k8s.io` kinds cannot be read, PreFilter
/// says so instead (with an event the pod's owner sees).
pub(super) fn pre_enqueue(cache: &Cache, pod: &PodInfo) -> Result<(), Rejection> {
    let Some(claims) = &pod.resource_claims else { return Ok(()) };
    if !cache.dra().unreadable().is_empty() {
        return Ok(());
    }
    for_each_claim(cache, pod, claims, |_| {}).map_err(|reason| unschedulable(pod, reason))
}
