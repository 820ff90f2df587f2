//! Filter (`dynamicresources.go` v1.35), per node: an allocated claim whose node selector does
//! not match makes the node unusable (and the claim a candidate for PostFilter's deallocation);
//! the claims without allocation must all get devices from this node's pools, found by the
//! structured allocator within `filterTimeout` when `DRASchedulerFilterTimeout` is on. The
//! allocations found are kept for Score and Reserve.
//!
//! The time limit reads the cycle's clock ([`Ticker`]): the live scheduler passes its system
//! clock; the what-if commands pass none, their virtual time does not move during a cycle.

use super::claims::{error, kobj, unschedulable};
use super::state;
use super::DynamicResources;
use crate::core::api;
use crate::core::cache::{Cache, NodeInfo};
use crate::core::dra::allocator::{AllocError, Allocator, Deadline, NoDeadline, NodeRef};
use crate::core::framework::{PluginState, Rejection, Ticker};
use crate::core::logging::{self, Line};
use crate::core::model::PodInfo;
use crate::core::texts::dynamic_resources as texts;
use std::time::Instant;

/// The end of one node's Filter time.
struct FilterDeadline<'a> {
    clock: &'a dyn Ticker,
    until: Instant,
}

impl Deadline for FilterDeadline<'_> {
    fn expired(&self) -> bool {
        self.clock.now() >= self.until
    }
}

pub(super) fn filter(
    pl: &DynamicResources,
    cache: &Cache,
    pod: &PodInfo,
    node: &NodeInfo,
    state: &PluginState,
    clock: Option<&dyn Ticker>,
) -> Result<(), Rejection> {
    let Some(s) = state::of(state) else { return Ok(()) };
    let node_ref = NodeRef { name: &node.node.name, labels: &node.node.labels };

    let mut unavailable = Vec::new();
    for (index, claim) in s.claims.iter().enumerate() {
        logging::v(10, || {
            Line::new("filtering based on resource claims of the pod")
                .o("pod", &pod.key)
                .o("node", node.name())
                .s("resourceclaim", kobj(claim))
        });
        if let Some(selector) = &s.available_on[index] {
            if !selector.matches(node_ref.labels, node_ref.name) {
                logging::v(5, || {
                    Line::new("allocation's node selector does not match")
                        .o("pod", &pod.key)
                        .o("node", node.name())
                        .s("resourceclaim", kobj(claim))
                });
                unavailable.push(index);
            }
        }
    }

    let mut allocations: Option<Vec<api::AllocationResult>> = None;
    if s.allocates() {
        let dra = cache.dra();
        let allocator = Allocator::new(pl.features.allocator, dra.allocated(), dra.classes(), dra.slice_index())
            .map_err(|e| error(pod, e.to_string()))?;
        let to_allocate: Vec<&api::ResourceClaim> = s.to_allocate.iter().map(|&i| &*s.claims[i]).collect();
        let deadline: Box<dyn Deadline + '_> = match (pl.filter_timeout, clock) {
            (Some(timeout), Some(clock)) => Box::new(FilterDeadline { clock, until: clock.now() + timeout }),
            _ => Box::new(NoDeadline),
        };
        let found = {
            let mut selectors = pl.selectors.lock().unwrap_or_else(|e| e.into_inner());
            if selectors.len() > super::SELECTOR_CACHE_SIZE {
                // Bounded: start over (the expressions in use compile again once).
                selectors.retain(|_| false);
            }
            allocator.allocate(node_ref, &to_allocate, &mut *selectors, &*deadline)
        };
        match found {
            Ok(a) => allocations = Some(a),
            Err(AllocError::TimedOut) => return Err(unschedulable(pod, texts::TIMED_OUT.to_string())),
            // Not fatal: only this node failed (`ErrFailedAllocationOnNode`); the text is only
            // surfaced when every node fails.
            Err(e @ AllocError::InvalidPools) => return Err(unschedulable(pod, e.to_string())),
            Err(AllocError::CannotAllocate) => {
                return Err(unschedulable(pod, texts::CANNOT_ALLOCATE_ALL_CLAIMS.to_string()));
            }
            // Something is wrong with a claim or class: scheduling the pod is aborted.
            Err(e @ AllocError::Fatal(_)) => return Err(error(pod, e.to_string())),
        }
    }

    if !unavailable.is_empty() {
        s.found().unavailable.extend(unavailable);
        return Err(unschedulable(pod, texts::NOT_AVAILABLE_ON_NODE.to_string()));
    }
    if let Some(a) = allocations {
        s.found().node_allocations.insert(node.node.name.as_ref().into(), a);
    }
    Ok(())
}
