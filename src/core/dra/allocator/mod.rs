//! The structured-parameters allocator: which devices of which ResourceSlices satisfy a pod's
//! unallocated ResourceClaims on one node, as `k8s.io/dynamic-resource-allocation/structured`
//! computes it for kube-scheduler v1.35.
//!
//! Upstream's `NewAllocator` (allocator.go) picks the first of three implementations whose
//! supported features cover the enabled ones. The plugin enables `AdminAccess` and
//! `PrioritizedList` (both beta and on in v1.35), `PartitionableDevices`, `DeviceTaints` and
//! `ConsumableCapacity` when their alpha gates are on, and `DeviceBindingAndStatus` only when
//! both `DRADeviceBindingConditions` (alpha) and `DRAResourceClaimDeviceStatus` are on
//! (`AllocatorFeatures`, dynamicresources.go). With the default gates that picks the "stable"
//! implementation (`internal/stable/allocator_stable.go`, `pools_stable.go`), which this module
//! transcribes: the same checks, errors, search order and backtracking. With the alpha features
//! off it refuses or ignores their inputs exactly as that code does:
//!
//! - per-device node selection and shared-counter slices are skipped (pools.rs);
//! - devices that consume counters are never picked;
//! - device taints are ignored (the requests' tolerations are still copied into the results);
//! - devices with binding conditions are never picked;
//! - `distinctAttribute` constraints (consumable capacity) are "empty constraint" errors;
//! - `adminAccess` on a request is an error while `DRAAdminAccess` is off, and `firstAvailable`
//!   while `DRAPrioritizedList` is off.
//!
//! Enabling partitionable devices, consumable capacity or binding conditions is refused with
//! [`Fatal::UnsupportedFeatures`]: edgesched implements the stable allocator only. Device taints
//! (also in the stable implementation) are honoured when enabled.
//!
//! The allocator is pure: the caller passes the allocated devices (including in-flight and
//! assumed allocations), the classes, the prepared slices, a CEL selector evaluator and a
//! [`Deadline`] checked where upstream checks its context. Where upstream's order is a Go map's
//! (pools, and slices as the informer lists them), this module uses one fixed order (pools by
//! `driver/pool`, slices by name), so results are deterministic and equal to one of upstream's.

mod constraint;
mod error;
mod pools;
mod prepared;
mod result;
mod search;
mod selectors;

#[cfg(test)]
mod tests;

pub use error::{AllocError, Fatal};
pub use pools::{GatherError, Pool};
pub use prepared::{DeviceId, NodeRef, NodeSelection, PrepareError, PreparedDevice, PreparedSlice, SliceIndex};

use crate::core::api;
use std::collections::{BTreeMap, HashMap, HashSet};
use std::hash::BuildHasher;

/// The allocator features (upstream `internal.Features`), filled by the caller from the feature
/// gates as `AllocatorFeatures` does.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Features {
    /// `DRAAdminAccess`.
    pub admin_access: bool,
    /// `DRAConsumableCapacity`.
    pub consumable_capacity: bool,
    /// `DRADeviceBindingConditions` and `DRAResourceClaimDeviceStatus`.
    pub device_binding_and_status: bool,
    /// `DRADeviceTaints`.
    pub device_taints: bool,
    /// `DRAPartitionableDevices`.
    pub partitionable_devices: bool,
    /// `DRAPrioritizedList`.
    pub prioritized_list: bool,
}

impl Features {
    /// The enabled features this allocator does not implement, by their gate names.
    fn unsupported(&self) -> Vec<&'static str> {
        let mut out = Vec::new();
        if self.consumable_capacity {
            out.push("DRAConsumableCapacity");
        }
        if self.device_binding_and_status {
            out.push("DRADeviceBindingConditions");
        }
        if self.partitionable_devices {
            out.push("DRAPartitionableDevices");
        }
        out
    }
}

/// Where the search stops early: checked before every step, as upstream checks its context.
pub trait Deadline {
    fn expired(&self) -> bool;
}

/// No time limit (`DRASchedulerFilterTimeout` off, or a zero timeout).
pub struct NoDeadline;

impl Deadline for NoDeadline {
    fn expired(&self) -> bool {
        false
    }
}

/// The devices already allocated to claims (written, in flight or assumed): not available
/// unless a request asks for admin access.
pub trait AllocatedDevices {
    fn contains(&self, id: &DeviceId) -> bool;
}

impl<S: BuildHasher> AllocatedDevices for HashSet<DeviceId, S> {
    fn contains(&self, id: &DeviceId) -> bool {
        HashSet::contains(self, id)
    }
}

/// The DeviceClasses by name (upstream's `DeviceClassLister.Get`).
pub trait DeviceClasses {
    fn get(&self, name: &str) -> Option<&api::DeviceClass>;
}

impl<S: BuildHasher> DeviceClasses for HashMap<String, api::DeviceClass, S> {
    fn get(&self, name: &str) -> Option<&api::DeviceClass> {
        HashMap::get(self, name)
    }
}

impl DeviceClasses for BTreeMap<String, api::DeviceClass> {
    fn get(&self, name: &str) -> Option<&api::DeviceClass> {
        BTreeMap::get(self, name)
    }
}

impl DeviceClasses for Vec<api::DeviceClass> {
    fn get(&self, name: &str) -> Option<&api::DeviceClass> {
        self.iter().find(|c| c.metadata.name == name)
    }
}

/// Why a CEL selector gave no answer.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum SelectorFailure {
    /// The expression does not compile (text of the compile error).
    Compile(String),
    /// Evaluating it failed for this device (no such key, cost limit, ...).
    Runtime(String),
}

/// Evaluates CEL device selectors (compiled once per expression by the implementation).
pub trait SelectorEvaluator {
    fn matches(&mut self, expression: &str, device: &PreparedDevice) -> Result<bool, SelectorFailure>;
}

/// The allocator for one pod's scheduling cycle (upstream `Allocator`): built from the cluster
/// state, it computes allocations node by node.
pub struct Allocator<'a> {
    features: Features,
    allocated: &'a dyn AllocatedDevices,
    classes: &'a dyn DeviceClasses,
    slices: &'a SliceIndex,
    /// Steps of the search over all calls (upstream's `NumAllocateOneInvocations` statistic).
    invocations: std::cell::Cell<u64>,
}

impl<'a> Allocator<'a> {
    /// `NewAllocator`: refuses feature sets whose implementation edgesched does not have.
    pub fn new(
        features: Features,
        allocated: &'a dyn AllocatedDevices,
        classes: &'a dyn DeviceClasses,
        slices: &'a SliceIndex,
    ) -> Result<Allocator<'a>, AllocError> {
        let unsupported = features.unsupported();
        if !unsupported.is_empty() {
            return Err(AllocError::Fatal(Fatal::UnsupportedFeatures(unsupported)));
        }
        Ok(Allocator { features, allocated, classes, slices, invocations: std::cell::Cell::new(0) })
    }

    /// `Allocate`: one allocation result per claim, in the order of `claims`, for `node`.
    pub fn allocate(
        &self,
        node: NodeRef<'_>,
        claims: &[&api::ResourceClaim],
        selectors: &mut dyn SelectorEvaluator,
        deadline: &dyn Deadline,
    ) -> Result<Vec<api::AllocationResult>, AllocError> {
        let solved = search::search(self, node, claims, selectors, deadline)?;
        result::build(&solved)
    }

    /// How many search steps all calls took so far (upstream `GetStats().NumAllocateOneInvocations`):
    /// a measure of the work, and what upstream's tests use to pin the backtracking down.
    pub fn allocate_one_invocations(&self) -> u64 {
        self.invocations.get()
    }
}
