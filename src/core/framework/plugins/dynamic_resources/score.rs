//! Score and NormalizeScore (`dynamicresources.go` v1.35, `computeScore`): a node scores
//! `FirstAvailableDeviceRequestMaxSize − i` (8 − i) for each request whose allocation there took
//! the `firstAvailable` alternative at index `i`, so nodes offering the earlier (preferred)
//! alternatives win; the scores are then scaled to 0–100 (`DefaultNormalizeScore`). Requests
//! without alternatives add nothing.
//!
//! PreScore skips the plugin for a pod with nothing to allocate (no claim, or every claim
//! allocated): upstream's Score returns 0 on every node then, which the normalization keeps at 0,
//! so the node totals are the same without the per-node calls.
//!
//! As upstream, the claims are walked with all of the pod's claims' indices into the node's
//! allocations, which hold only the claims that had to be allocated: a pod with allocated and
//! unallocated claims together fails at Score with upstream's error when several nodes fit.

use super::state;
use crate::core::api;
use crate::core::cache::NodeInfo;
use crate::core::framework::{PluginState, PreScoreOutcome, Rejection};
use crate::core::texts::dynamic_resources as texts;
use std::collections::BTreeSet;

/// `resourceapi.FirstAvailableDeviceRequestMaxSize`.
const FIRST_AVAILABLE_MAX_SIZE: i64 = 8;

pub(super) fn pre_score(state: &PluginState) -> PreScoreOutcome {
    match state::of(state) {
        Some(s) if s.allocates() => PreScoreOutcome::Run,
        _ => PreScoreOutcome::Skip,
    }
}

pub(super) fn score(node: &NodeInfo, state: &PluginState) -> Result<i64, Rejection> {
    let Some(s) = state::of(state) else { return Ok(0) };
    let found = s.found();
    let Some(allocations) = found.node_allocations.get(&*node.node.name) else { return Ok(0) };
    compute_score(&s.claims, allocations).map_err(Rejection::error)
}

/// `computeScore`.
pub(super) fn compute_score<C: AsRef<api::ResourceClaim>>(
    claims: &[C],
    allocations: &[api::AllocationResult],
) -> Result<i64, String> {
    let mut score = 0;
    for (i, claim) in claims.iter().enumerate() {
        let Some(allocation) = allocations.get(i) else {
            return Err(texts::fewer_allocations_than_claims(allocations.len()));
        };
        let allocated: BTreeSet<&str> =
            allocation.devices.results.iter().map(|r| r.request.as_str()).filter(|r| r.contains('/')).collect();
        for request in &claim.as_ref().spec.devices.requests {
            if request.exactly.is_some() {
                continue;
            }
            for (i, sub) in request.first_available.iter().enumerate() {
                if allocated.contains(format!("{}/{}", request.name, sub.name).as_str()) {
                    score += FIRST_AVAILABLE_MAX_SIZE - i as i64;
                }
            }
        }
    }
    Ok(score)
}
