//! PostFilter (`dynamicresources.go` v1.35): when no node fits, an allocated claim that some
//! node could not use and that no other pod uses is deallocated, so that the next attempt may
//! allocate it where the pod fits. It runs before DefaultPreemption (the default plugin order):
//! freeing an idle claim is better than evicting a pod doing work.
//!
//! Upstream writes the claim's status in PostFilter itself; here the write is returned
//! ([`ApiWrite::DeallocateClaim`]) and the API workers perform it right after the cycle. The
//! message is upstream's either way; a write that then fails is logged, and the pod, already
//! requeued, tries again.

use super::claims::kobj;
use super::state::CycleState;
use crate::core::dra::claim_writes;
use crate::core::framework::{ApiWrite, PostFilterResult, Rejection};
use crate::core::logging::{self, Line};
use crate::core::model::PodInfo;
use crate::core::texts::dynamic_resources as texts;
use std::sync::Arc;

pub(super) fn post_filter(pod: &PodInfo, state: Option<&CycleState>) -> PostFilterResult {
    let unschedulable = |reason: &'static str, writes: Vec<ApiWrite>| PostFilterResult {
        rejection: Some(Rejection::unschedulable(reason)),
        writes,
        ..Default::default()
    };
    let Some(s) = state.filter(|s| !s.claims.is_empty()) else {
        return unschedulable(texts::NO_NEW_CLAIMS_TO_DEALLOCATE, Vec::new());
    };
    // Upstream walks a set (random order): any candidate is as good; the first is taken here.
    let unavailable: Vec<usize> = s.found().unavailable.iter().copied().collect();
    for index in unavailable {
        let claim = &s.claims[index];
        let reserved = &claim.status.reserved_for;
        if reserved.is_empty() || (reserved.len() == 1 && reserved[0].uid == *pod.uid) {
            logging::v(5, || Line::new("Deallocation of ResourceClaim").o("pod", &pod.key).s("resourceclaim", kobj(claim)));
            let write = ApiWrite::DeallocateClaim(Arc::new(claim_writes::deallocated(claim)));
            return unschedulable(texts::DEALLOCATION_COMPLETED, vec![write]);
        }
    }
    unschedulable(texts::STILL_NOT_SCHEDULABLE, Vec::new())
}
