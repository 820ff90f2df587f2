//! What one pod's cycle keeps between the extension points (upstream `stateData`): the pod's
//! claims as PreFilter saw them, where each allocated claim is available, which claims must be
//! allocated, and what Filter found per node (the allocations Reserve takes and Score rates, and
//! the allocated claims some node could not use, which PostFilter may deallocate).
//!
//! Filter writes into it through a shared reference, so the mutable part sits behind a mutex
//! (uncontended: the cycle runs on one thread); copies of the state share it, as upstream's
//! `Clone` returns the same pointer.

use crate::core::api;
use crate::core::framework::plugins::helper::CompiledNodeSelector;
use crate::core::framework::{state_as, PluginState};
// Unseeded: keyed by node names (administrators' and kubelets').
use crate::core::fxhash::FxHashMap;
use std::collections::BTreeSet;
use std::sync::{Arc, Mutex, MutexGuard};

/// The state of one cycle.
#[derive(Debug)]
pub(super) struct CycleState {
    /// The pod's claims, in `spec.resourceClaims` order (claims the controller decided not to
    /// create are skipped), as the cycle started.
    pub claims: Vec<Arc<api::ResourceClaim>>,
    /// Per claim: where an allocated claim's devices are (`None`: anywhere, or not allocated).
    pub available_on: Vec<Option<CompiledNodeSelector>>,
    /// Indices of the claims without an allocation, in order (`claims.toAllocate()`).
    pub to_allocate: Vec<usize>,
    /// What Filter found.
    found: Mutex<Found>,
}

/// Filter's findings.
#[derive(Debug, Default)]
pub(super) struct Found {
    /// Node name → the allocations of the claims to allocate, in their order.
    pub node_allocations: FxHashMap<Box<str>, Vec<api::AllocationResult>>,
    /// Indices of allocated claims that were not available on some node.
    pub unavailable: BTreeSet<usize>,
}

impl CycleState {
    pub fn new(
        claims: Vec<Arc<api::ResourceClaim>>,
        available_on: Vec<Option<CompiledNodeSelector>>,
        to_allocate: Vec<usize>,
    ) -> Self {
        CycleState { claims, available_on, to_allocate, found: Mutex::new(Found::default()) }
    }

    /// Filter's findings (a poisoned lock only means a panic elsewhere; the data is still whole).
    pub fn found(&self) -> MutexGuard<'_, Found> {
        self.found.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Whether the allocator runs for this pod (some claim is not allocated).
    pub fn allocates(&self) -> bool {
        !self.to_allocate.is_empty()
    }
}

/// The plugin's state in the framework's slot.
type Slot = Arc<CycleState>;

/// Store the state.
pub(super) fn put(state: &mut PluginState, s: CycleState) {
    *state = Some(Box::new(Arc::new(s)));
}

/// The state, if PreFilter left one (it does not for pods without claims).
pub(super) fn of(state: &PluginState) -> Option<&CycleState> {
    state_as::<Slot>(state).map(|s| &**s)
}

/// A copy sharing the same state (`stateData.Clone`).
pub(super) fn clone(state: &PluginState) -> PluginState {
    state_as::<Slot>(state).map(|s| Box::new(s.clone()) as Box<dyn std::any::Any + Send>)
}
