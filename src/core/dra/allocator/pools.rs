//! The resource pools one node can use (upstream `GatherPools`, `internal/stable/pools_stable.go`
//! at kubernetes/kubernetes v1.35, including the complete-pool check of PR #134466 that looks at
//! a pool's slices for other nodes before calling it incomplete).
//!
//! Only a pool's highest generation counts; a pool is incomplete while fewer slices of that
//! generation exist than its `resourceSliceCount` says (its devices are then not allocated, and
//! `All` requests fail), invalid when a device name repeats (allocation may use other pools; the
//! node fails with [`super::AllocError::InvalidPools`] if nothing else fits).
//! Pools come out in the order of their `driver/pool` id: upstream's order is that of a Go map,
//! random on every call, so this fixed order is one upstream may take.

use super::prepared::{NodeRef, NodeSelection, PreparedSlice, SliceIndex};
use super::Features;
// Unseeded: device names within one pool, published by a DRA driver.
use crate::core::fxhash::FxHashSet;
use std::collections::BTreeMap;
use std::sync::Arc;

/// One pool as the allocator sees it on one node.
#[derive(Debug, Clone)]
pub struct Pool {
    pub driver: Arc<str>,
    pub pool: Arc<str>,
    pub incomplete: bool,
    /// The device name that repeats in the pool, which makes it invalid (upstream's
    /// `InvalidReason` is `duplicate device name <name>`, only logged).
    pub invalid: Option<Arc<str>>,
    /// The pool's slices of its newest generation that have devices for the node
    /// (`DeviceSlicesTargetingNode`), as indices into the [`SliceIndex`].
    pub slices: Vec<u32>,
}

impl Pool {
    /// `driver/pool` (`PoolID.String`).
    pub fn id(&self) -> String {
        format!("{}/{}", self.driver, self.pool)
    }
}

/// A node selector that does not parse: upstream fails the whole allocation.
#[derive(Debug, Clone, PartialEq)]
pub enum GatherError {
    Slice { slice: String, error: String },
    Device { slice: String, device: String, error: String },
}

/// The pools with devices for `node` (see the module documentation).
pub fn gather(index: &SliceIndex, node: NodeRef<'_>, features: &Features) -> Result<Vec<Pool>, GatherError> {
    let mut pools: BTreeMap<(Arc<str>, Arc<str>), Vec<u32>> = BTreeMap::new();
    for i in index.candidates(node.name) {
        let slice = index.slice(i);
        if !features.partitionable_devices && (slice.per_device_node_selection.is_some() || slice.has_shared_counters) {
            continue;
        }
        let relevant = if slice.has_shared_counters {
            // Counter sets matter for every node of the pool.
            true
        } else if slice.node_selection.is_set() {
            slice
                .node_selection
                .matches(node)
                .map_err(|e| GatherError::Slice { slice: slice.name.to_string(), error: e.to_string() })?
        } else if slice.per_device_node_selection == Some(true) {
            device_for_node(slice, node)?
        } else {
            // Nothing known is set: some future extension this version cannot interpret.
            false
        };
        if relevant {
            add_slice(&mut pools, index, i);
        }
    }

    let mut result = Vec::with_capacity(pools.len());
    for ((driver, pool), slices) in pools {
        let newest = index.slice(slices[0]);
        let (generation, count) = (newest.generation, newest.resource_slice_count);
        if slices.len() as i64 == count {
            result.push(build_pool(index, driver, pool, slices));
            continue;
        }
        // Some slices of the pool may have been left out because they have nothing for this
        // node: count the pool's slices of this generation everywhere.
        let all = index.pool_slices(&driver, &pool);
        if all.iter().any(|&s| index.slice(s).generation > generation) {
            // The driver is replacing this generation: ignore the old devices.
            continue;
        }
        let seen = all.iter().filter(|&&s| index.slice(s).generation == generation).count() as i64;
        if seen != count {
            result.push(Pool { driver, pool, incomplete: true, invalid: None, slices: Vec::new() });
            continue;
        }
        result.push(build_pool(index, driver, pool, slices));
    }
    Ok(result)
}

/// Whether a slice with per-device node selection has some device for the node.
fn device_for_node(slice: &PreparedSlice, node: NodeRef<'_>) -> Result<bool, GatherError> {
    for device in &slice.devices {
        let matches = match &device.node_selection {
            NodeSelection::Unset => false,
            selection => selection.matches(node).map_err(|e| GatherError::Device {
                slice: slice.name.to_string(),
                device: device.id.device.to_string(),
                error: e.to_string(),
            })?,
        };
        if matches {
            return Ok(true);
        }
    }
    Ok(false)
}

/// `addSlice`: a newer generation replaces the pool's slices, an older one is ignored.
fn add_slice(pools: &mut BTreeMap<(Arc<str>, Arc<str>), Vec<u32>>, index: &SliceIndex, i: u32) {
    let slice = index.slice(i);
    let slices = pools.entry((slice.driver.clone(), slice.pool.clone())).or_default();
    match slices.first().map(|&first| index.slice(first).generation) {
        None => slices.push(i),
        Some(g) if slice.generation < g => {}
        Some(g) if slice.generation > g => *slices = vec![i],
        Some(_) => slices.push(i),
    }
}

/// `buildPool` without partitionable devices: a pool in which a device name repeats is invalid
/// (the first repeat, in slice order, is the reason).
fn build_pool(index: &SliceIndex, driver: Arc<str>, pool: Arc<str>, slices: Vec<u32>) -> Pool {
    let mut seen = FxHashSet::default();
    let invalid =
        slices.iter().flat_map(|&s| index.slice(s).devices.iter().map(|d| &d.id.device)).find(|n| !seen.insert(*n)).cloned();
    Pool { driver, pool, incomplete: false, invalid, slices }
}
