//! What the DynamicResources plugin reads, kept by the scheduler's cache: DeviceClasses,
//! ResourceSlices prepared for the allocator (once per slice version) with the index that finds
//! one node's slices, ResourceClaims as an assume cache ([`claims`]), the allocations in flight
//! between Reserve and the end of PreBind's write, and the devices all of these hold
//! ([`allocated`]) — upstream's DRA manager (`dra_manager.go`, kubernetes/kubernetes v1.35) and
//! its informers, as plain data owned by the scheduler thread.
//!
//! Everything is kept incrementally: a claim change adjusts the device counts of its old and new
//! allocation; a slice change prepares that slice; the slice index is rebuilt at most once per
//! cycle, and only after slices changed ([`DraState::prepare`]). A pod without claims reads
//! nothing here.
//!
//! ResourceClaimTemplates are kept too, but only the what-if commands fill them in (the live
//! scheduler leaves instantiating them to the resourceclaim controller and does not watch them).

pub mod allocated;
pub mod claims;

#[cfg(test)]
mod tests;

use crate::core::api::{self, Object};
use crate::core::dra::allocator::{AllocatedDevices, DeviceClasses, DeviceId, PrepareError, PreparedSlice, SliceIndex};
// Unseeded for in-flight allocations by claim UID only: the API server assigns UIDs.
use crate::core::fxhash::FxHashMap;
use crate::core::model::PodKey;
use crate::core::seeded_hash::SeededHashMap;
use allocated::AllocatedCounts;
pub use claims::{AssumeError, ClaimChange, ClaimStore};
use std::collections::BTreeMap;
use std::sync::Arc;

/// An allocation decided at Reserve whose PreBind write has not finished
/// (upstream `inFlightAllocations`): the claim with the allocation and finalizer, and the pod.
#[derive(Debug, Clone)]
pub struct InFlight {
    pub claim: Arc<api::ResourceClaim>,
    pub pod: PodKey,
}

/// The `resource.k8s.io` kinds the plugin reads, for [`DraState::unreadable`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum DraKind {
    DeviceClasses,
    ResourceSlices,
    ResourceClaims,
}

impl DraKind {
    /// The resource name (URLs, RBAC rules).
    pub fn resource(self) -> &'static str {
        match self {
            DraKind::DeviceClasses => "deviceclasses",
            DraKind::ResourceSlices => "resourceslices",
            DraKind::ResourceClaims => "resourceclaims",
        }
    }
}

/// The DRA objects and the device accounting.
#[derive(Debug, Default)]
pub struct DraState {
    classes: BTreeMap<String, api::DeviceClass>,
    /// Prepared slices by name (the allocator's order).
    slices: BTreeMap<String, Arc<PreparedSlice>>,
    /// Slices that cannot be prepared (a quantity no API server would store), with why.
    rejected: BTreeMap<String, PrepareError>,
    index: SliceIndex,
    index_dirty: bool,
    claims: ClaimStore,
    /// In-flight allocations by claim UID.
    in_flight: FxHashMap<Box<str>, InFlight>,
    /// The claim UIDs each pod has in flight (what a failed or finished binding releases).
    /// Seeded: pods' `namespace/name` keys are chosen by tenants.
    pod_in_flight: SeededHashMap<PodKey, Vec<Box<str>>>,
    allocated: AllocatedCounts,
    templates: BTreeMap<String, api::ResourceClaimTemplate>,
    /// Kinds RBAC forbids (or the server does not serve) right now.
    unreadable: Vec<DraKind>,
}

impl DraState {
    // --- DeviceClasses -------------------------------------------------------------------

    /// Add or replace a class; the old one, if any.
    pub fn upsert_class(&mut self, class: api::DeviceClass) -> Option<api::DeviceClass> {
        self.classes.insert(class.metadata.name.clone(), class)
    }

    pub fn remove_class(&mut self, name: &str) -> Option<api::DeviceClass> {
        self.classes.remove(name)
    }

    /// The class of this name (upstream `DeviceClasses().Get`).
    pub fn device_class(&self, name: &str) -> Option<&api::DeviceClass> {
        self.classes.get(name)
    }

    /// The classes as the allocator reads them.
    pub fn classes(&self) -> &dyn DeviceClasses {
        &self.classes
    }

    pub fn class_names(&self) -> Vec<String> {
        self.classes.keys().cloned().collect()
    }

    // --- ResourceSlices ------------------------------------------------------------------

    /// Add or replace a slice, prepared for the allocator. A slice that cannot be prepared is
    /// left out (and the error returned for the caller to report); its devices are offered to
    /// nobody.
    pub fn upsert_slice(&mut self, slice: &api::ResourceSlice) -> Result<(), PrepareError> {
        let name = slice.metadata.name.clone();
        self.index_dirty = true;
        match PreparedSlice::new(slice) {
            Ok(p) => {
                self.rejected.remove(&name);
                self.slices.insert(name, Arc::new(p));
                Ok(())
            }
            Err(e) => {
                self.slices.remove(&name);
                self.rejected.insert(name, e.clone());
                Err(e)
            }
        }
    }

    pub fn remove_slice(&mut self, name: &str) -> bool {
        self.rejected.remove(name);
        let removed = self.slices.remove(name).is_some();
        self.index_dirty |= removed;
        removed
    }

    /// Names of the slices kept (prepared or not).
    pub fn slice_names(&self) -> Vec<String> {
        self.slices.keys().chain(self.rejected.keys()).cloned().collect()
    }

    /// The slices that could not be prepared, with why.
    pub fn rejected_slices(&self) -> &BTreeMap<String, PrepareError> {
        &self.rejected
    }

    /// Bring the slice index up to date (before a cycle: the index is rebuilt once after
    /// slices changed, never per pod).
    pub fn prepare(&mut self) {
        if self.index_dirty {
            self.index = SliceIndex::in_given_order(self.slices.values().cloned());
            self.index_dirty = false;
        }
    }

    /// The prepared slices, indexed (as of the last [`DraState::prepare`]).
    pub fn slice_index(&self) -> &SliceIndex {
        debug_assert!(!self.index_dirty, "prepare() must run before a cycle");
        &self.index
    }

    // --- ResourceClaims ------------------------------------------------------------------

    /// The latest known version of claim `namespace/name` (upstream `ResourceClaims().Get`).
    pub fn resource_claim(&self, namespace: &str, name: &str) -> Option<&Arc<api::ResourceClaim>> {
        self.claims.get(&format!("{namespace}/{name}"))
    }

    /// The claim store (keys, versions, UIDs).
    pub fn claims(&self) -> &ClaimStore {
        &self.claims
    }

    /// An informer add or update of a claim; the change of its latest version, if any.
    pub fn upsert_claim(&mut self, claim: api::ResourceClaim) -> Option<ClaimChange> {
        let change = self.claims.informer_upsert(claim)?;
        self.account(&change);
        Some(change)
    }

    /// An informer delete of `namespace/name`.
    pub fn remove_claim(&mut self, key: &str) -> Option<ClaimChange> {
        let change = self.claims.remove(key)?;
        self.account(&change);
        Some(change)
    }

    /// Keep the claim a write of ours returned until the informer delivers it or a newer one
    /// (`AssumeClaimAfterAPICall`).
    pub fn assume_claim(&mut self, claim: api::ResourceClaim) -> Result<ClaimChange, AssumeError> {
        let change = self.claims.assume(claim)?;
        self.account(&change);
        Ok(change)
    }

    /// Back to the informer's version of `namespace/name` (`AssumedClaimRestore`).
    pub fn restore_claim(&mut self, key: &str) -> Option<ClaimChange> {
        let change = self.claims.restore(key)?;
        self.account(&change);
        Some(change)
    }

    fn account(&mut self, change: &ClaimChange) {
        let old = change.old.as_deref().and_then(|c| c.status.allocation.as_ref());
        let new = change.new.as_deref().and_then(|c| c.status.allocation.as_ref());
        if old != new {
            self.allocated.replace(old, new);
        }
    }

    // --- In-flight allocations -----------------------------------------------------------

    /// Whether an allocation of the claim with this UID is in flight (`ClaimHasPendingAllocation`).
    pub fn has_pending_allocation(&self, uid: &str) -> bool {
        self.in_flight.contains_key(uid)
    }

    /// The in-flight allocation of the claim with this UID.
    pub fn pending_allocation(&self, uid: &str) -> Option<&InFlight> {
        self.in_flight.get(uid)
    }

    /// Record an allocation Reserve decided for `pod` (`SignalClaimPendingAllocation`): its
    /// devices count as allocated at once.
    pub fn signal_pending_allocation(&mut self, pod: &PodKey, claim: Arc<api::ResourceClaim>) {
        let uid: Box<str> = claim.metadata.uid.as_str().into();
        if let Some(alloc) = &claim.status.allocation {
            self.allocated.add(alloc);
        }
        crate::core::logging::v(5, || {
            crate::core::logging::Line::new("Added in-flight claim")
                .s("claim", claim.key())
                .s("uid", &*uid)
                .s("version", &claim.metadata.resource_version)
        });
        if let Some(prev) = self.in_flight.insert(uid.clone(), InFlight { claim, pod: pod.clone() }) {
            if let Some(alloc) = &prev.claim.status.allocation {
                self.allocated.remove(alloc);
            }
            self.unlink(&prev.pod, &uid);
        }
        self.pod_in_flight.entry(pod.clone()).or_default().push(uid);
    }

    /// Forget the in-flight allocation of this claim (`RemoveClaimPendingAllocation`).
    pub fn remove_pending_allocation(&mut self, uid: &str) -> Option<InFlight> {
        let Some(f) = self.in_flight.remove(uid) else {
            crate::core::logging::v(5, || {
                crate::core::logging::Line::new("Redundant remove of in-flight claim, not found").s("uid", uid)
            });
            return None;
        };
        if let Some(alloc) = &f.claim.status.allocation {
            self.allocated.remove(alloc);
        }
        self.unlink(&f.pod, uid);
        crate::core::logging::v(5, || {
            crate::core::logging::Line::new("Removed in-flight claim")
                .s("claim", f.claim.key())
                .s("uid", uid)
                .s("version", &f.claim.metadata.resource_version)
        });
        Some(f)
    }

    /// Forget every in-flight allocation of `pod` (its binding finished or failed, or it was
    /// rejected while waiting).
    pub fn remove_pending_allocations_of(&mut self, pod: &str) -> Vec<InFlight> {
        let uids = self.pod_in_flight.remove(pod).unwrap_or_default();
        uids.iter().filter_map(|u| self.remove_pending_allocation(u)).collect()
    }

    /// The claims `pod` has in flight.
    pub fn pending_allocations_of(&self, pod: &str) -> impl Iterator<Item = &InFlight> {
        self.pod_in_flight.get(pod).into_iter().flatten().filter_map(|u| self.in_flight.get(u))
    }

    /// Number of in-flight allocations.
    pub fn num_in_flight(&self) -> usize {
        self.in_flight.len()
    }

    fn unlink(&mut self, pod: &str, uid: &str) {
        if let Some(list) = self.pod_in_flight.get_mut(pod) {
            list.retain(|u| &**u != uid);
            if list.is_empty() {
                self.pod_in_flight.remove(pod);
            }
        }
    }

    // --- Devices in use ------------------------------------------------------------------

    /// Every device allocated, assumed or in flight (`ListAllAllocatedDevices`), as the
    /// allocator reads it.
    pub fn allocated(&self) -> &AllocatedCounts {
        &self.allocated
    }

    /// Whether a device is in use.
    pub fn is_allocated(&self, id: &DeviceId) -> bool {
        self.allocated.contains(id)
    }

    /// Each node's own devices — those of the latest generation of a pool published for the
    /// node by name (`nodeName` of the slice, or of the device with `perDeviceNodeSelection`) —
    /// as (devices, of which in use), by node name. Devices offered to several nodes (all
    /// nodes, a node selector) belong to no one node and are left out. For the what-if report,
    /// which shows devices per node beside cpu and memory.
    pub fn node_devices(&self) -> BTreeMap<String, (u64, u64)> {
        use crate::core::dra::allocator::NodeSelection;
        let mut latest: BTreeMap<(&str, &str), i64> = BTreeMap::new();
        for s in self.slices.values() {
            let g = latest.entry((&*s.driver, &*s.pool)).or_insert(s.generation);
            *g = (*g).max(s.generation);
        }
        let mut out: BTreeMap<String, (u64, u64)> = BTreeMap::new();
        for s in self.slices.values() {
            if latest.get(&(&*s.driver, &*s.pool)) != Some(&s.generation) {
                continue;
            }
            let per_device = s.per_device_node_selection == Some(true);
            for d in &s.devices {
                let node = match (&s.node_selection, per_device) {
                    (NodeSelection::Node(n), false) => n,
                    (_, true) => match &d.node_selection {
                        NodeSelection::Node(n) => n,
                        _ => continue,
                    },
                    _ => continue,
                };
                let entry = out.entry(node.to_string()).or_default();
                entry.0 += 1;
                entry.1 += u64::from(self.is_allocated(&d.id));
            }
        }
        out
    }

    /// The devices in use, recounted from scratch: what [`DraState::allocated`] must always
    /// equal (for tests and consistency checks).
    pub fn recount(&self) -> AllocatedCounts {
        let mut counts = AllocatedCounts::default();
        for claim in self.claims.iter() {
            if let Some(a) = &claim.status.allocation {
                counts.add(a);
            }
        }
        for f in self.in_flight.values() {
            if let Some(a) = &f.claim.status.allocation {
                counts.add(a);
            }
        }
        counts
    }

    // --- ResourceClaimTemplates (what-if) ------------------------------------------------

    pub fn upsert_template(&mut self, template: api::ResourceClaimTemplate) {
        self.templates.insert(template.key(), template);
    }

    pub fn remove_template(&mut self, key: &str) -> Option<api::ResourceClaimTemplate> {
        self.templates.remove(key)
    }

    /// The template `namespace/name`.
    pub fn template(&self, namespace: &str, name: &str) -> Option<&api::ResourceClaimTemplate> {
        self.templates.get(&format!("{namespace}/{name}"))
    }

    pub fn template_keys(&self) -> Vec<String> {
        self.templates.keys().cloned().collect()
    }

    // --- Readability ---------------------------------------------------------------------

    /// The kinds RBAC forbids (or the server does not serve), in order.
    pub fn unreadable(&self) -> &[DraKind] {
        &self.unreadable
    }

    /// A kind cannot be read: what was kept of it is forgotten.
    pub fn set_unreadable(&mut self, kind: DraKind) -> Vec<ClaimChange> {
        if !self.unreadable.contains(&kind) {
            self.unreadable.push(kind);
            self.unreadable.sort();
        }
        match kind {
            DraKind::DeviceClasses => {
                self.classes.clear();
                Vec::new()
            }
            DraKind::ResourceSlices => {
                self.slices.clear();
                self.rejected.clear();
                self.index_dirty = true;
                Vec::new()
            }
            DraKind::ResourceClaims => {
                let removed = self.claims.clear();
                self.allocated.clear();
                for f in self.in_flight.values() {
                    if let Some(a) = &f.claim.status.allocation {
                        self.allocated.add(a);
                    }
                }
                removed.into_iter().map(|c| ClaimChange { old: Some(c), new: None }).collect()
            }
        }
    }

    /// A kind was listed: it is readable again.
    pub fn set_readable(&mut self, kind: DraKind) {
        self.unreadable.retain(|k| *k != kind);
    }
}
