//! The devices in use, counted incrementally: every device of a claim's allocation (written, or
//! assumed after the scheduler's own write) and of an allocation in flight (Reserve until
//! PreBind's write finished) — upstream's `allocatedDevices` plus `ListAllAllocatedDevices`'
//! walk over the in-flight claims (`allocateddevices.go`, `dra_manager.go`, kubernetes/kubernetes
//! v1.35), kept up to date on each change instead of gathered per pod.
//!
//! Devices allocated with admin access are not counted: they may be shared
//! (`foreachAllocatedDevice`). Upstream keeps a set; here each device counts the allocations
//! that hold it, so that one of two allocations naming the same device (two schedulers racing)
//! going away does not make the device look free while the other still holds it.

use crate::core::api;
use crate::core::dra::allocator::{AllocatedDevices, DeviceId};
// Unseeded: device ids are driver, pool and device names that DRA drivers (components an
// administrator installs) publish in ResourceSlices; no tenant chooses them.
use crate::core::fxhash::FxHashMap;

/// How many allocations hold each device.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct AllocatedCounts {
    counts: FxHashMap<DeviceId, u32>,
}

/// The devices of an allocation that are allocated exclusively (`foreachAllocatedDevice`).
pub fn exclusive_devices(allocation: &api::AllocationResult) -> impl Iterator<Item = DeviceId> + '_ {
    allocation
        .devices
        .results
        .iter()
        .filter(|r| !r.admin_access.unwrap_or(false))
        .map(|r| DeviceId::new(&r.driver, &r.pool, &r.device))
}

impl AllocatedCounts {
    /// Count the devices of `allocation`.
    pub fn add(&mut self, allocation: &api::AllocationResult) {
        for id in exclusive_devices(allocation) {
            *self.counts.entry(id).or_default() += 1;
        }
    }

    /// Stop counting the devices of `allocation` (one that was added before).
    pub fn remove(&mut self, allocation: &api::AllocationResult) {
        for id in exclusive_devices(allocation) {
            if let Some(n) = self.counts.get_mut(&id) {
                *n -= 1;
                if *n == 0 {
                    self.counts.remove(&id);
                }
            }
        }
    }

    /// The change of one claim's allocation (`None` for no allocation).
    pub fn replace(&mut self, old: Option<&api::AllocationResult>, new: Option<&api::AllocationResult>) {
        if let Some(old) = old {
            self.remove(old);
        }
        if let Some(new) = new {
            self.add(new);
        }
    }

    /// How many allocations hold `id`.
    pub fn count(&self, id: &DeviceId) -> u32 {
        self.counts.get(id).copied().unwrap_or(0)
    }

    /// How many devices are in use.
    pub fn len(&self) -> usize {
        self.counts.len()
    }

    pub fn is_empty(&self) -> bool {
        self.counts.is_empty()
    }

    /// The devices in use, sorted (logs and tests).
    pub fn devices(&self) -> Vec<&DeviceId> {
        let mut v: Vec<&DeviceId> = self.counts.keys().collect();
        v.sort();
        v
    }

    pub fn clear(&mut self) {
        self.counts.clear();
    }
}

impl AllocatedDevices for AllocatedCounts {
    fn contains(&self, id: &DeviceId) -> bool {
        self.counts.contains_key(id)
    }
}
