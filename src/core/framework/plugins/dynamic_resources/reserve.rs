//! Reserve, PreBind and Unreserve (`dynamicresources.go` v1.35).
//!
//! Reserve takes the allocations Filter found on the chosen node; the scheduler core records
//! them as in flight at once ([`crate::core::cache::dra::DraState::signal_pending_allocation`]),
//! so the next cycle counts their devices as taken. It also plans PreBind, which upstream runs
//! on the binding goroutine and edgesched's API workers run the same way
//! ([`PreBindAction::ReserveClaim`]): for each claim not yet reserved for the pod, the finalizer
//! with a normal update, then the allocation (if Reserve chose one) and the pod's `reservedFor`
//! entry with a status update, retried on conflicts with a fresh read.
//!
//! Unreserve's bookkeeping (the in-flight allocations end, an assumed claim goes back to the
//! informer's version) is the scheduler core's, which owns the cache; the plugin adds the API
//! write: a claim allocated and reserved for the pod gets the pod removed from `reservedFor`.

use super::claims::{error, kobj};
use super::state;
use crate::core::cache::{Cache, NodeInfo};
use crate::core::dra::claim_writes;
use crate::core::framework::{ApiWrite, ClaimReservation, PluginState, PreBindAction, Rejection};
use crate::core::logging::{self, Line};
use crate::core::model::{ClaimRef, PodInfo};
use crate::core::texts::dynamic_resources as texts;

pub(super) fn reserve(pod: &PodInfo, node: &NodeInfo, state: &PluginState) -> Result<Vec<PreBindAction>, Rejection> {
    let Some(s) = state::of(state) else { return Ok(Vec::new()) };
    let with_allocator = s.claims.iter().filter(|c| c.status.allocation.is_none()).count();
    let mut allocation_of = vec![None; s.claims.len()];
    if with_allocator > 0 {
        let found = s.found();
        let allocations = match found.node_allocations.get(&*node.node.name) {
            Some(a) if !a.is_empty() => a,
            // Filter found the node suitable: a missing allocation is an internal error.
            _ => return Err(error(pod, texts::ALLOCATION_NOT_FOUND.to_string())),
        };
        if allocations.len() != s.to_allocate.len() || allocations.len() != with_allocator {
            return Err(error(pod, texts::allocation_count_mismatch(allocations.len(), s.to_allocate.len(), with_allocator)));
        }
        for (k, &index) in s.to_allocate.iter().enumerate() {
            let claim = &s.claims[index];
            logging::v(5, || {
                Line::new("Reserved resource in allocation result")
                    .s("claim", kobj(claim))
                    .s("uid", &claim.metadata.uid)
                    .s("resourceVersion", &claim.metadata.resource_version)
            });
            allocation_of[index] = Some(allocations[k].clone());
        }
    }
    // PreBind: every claim not yet reserved for the pod, in order.
    let actions = s
        .claims
        .iter()
        .zip(allocation_of)
        .filter(|(claim, _)| !claim_writes::is_reserved_for(claim, &pod.uid))
        .map(|(claim, allocation)| {
            PreBindAction::ReserveClaim(Box::new(ClaimReservation {
                claim: claim.clone(),
                allocation,
                pod_name: pod.name.to_string(),
                pod_uid: pod.uid.to_string(),
            }))
        })
        .collect();
    Ok(actions)
}

/// Unreserve's writes: the pod leaves `reservedFor` of each of its claims that is allocated
/// and reserved for it (a strategic-merge patch, so no fresh read is needed).
pub(super) fn unreserve_writes(cache: &Cache, pod: &PodInfo) -> Vec<ApiWrite> {
    let Some(claims) = &pod.resource_claims else { return Vec::new() };
    let mut writes = Vec::new();
    // Each claim on its own: one that cannot be found any more needs no write.
    for claim in claims.claims.iter().filter_map(|c| match claims.resolve(c) {
        ClaimRef::Named { name, .. } => cache.dra().resource_claim(&pod.namespace, name),
        _ => None,
    }) {
        if claim.status.allocation.is_some() && claim_writes::is_reserved_for(claim, &pod.uid) {
            logging::v(5, || Line::new("unreserve").s("resourceclaim", kobj(claim)).o("pod", &pod.key));
            writes.push(ApiWrite::UnreserveClaim {
                namespace: claim.metadata.namespace.clone(),
                name: claim.metadata.name.clone(),
                claim_uid: claim.metadata.uid.clone(),
                pod_uid: pod.uid.to_string(),
            });
        }
    }
    writes
}
