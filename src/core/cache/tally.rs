//! Incrementally kept counts of the placed pods a selector matches, per topology value and per
//! node ("tallies").
//!
//! Upstream's PodTopologySpread and InterPodAffinity count, on every cycle, the pods that match
//! the incoming pod's spread-constraint selectors or affinity terms, walking every pod of the
//! cluster (pkg/scheduler/framework/plugins/podtopologyspread/filtering.go `calPreFilterState`,
//! interpodaffinity/filtering.go `getIncomingAffinityAntiAffinityCounts`). Here a plugin names
//! the counts it will read (a [`TallyKey`]: namespaces, selector, topology key, whether
//! terminating pods count); the scheduler registers them before the cycle, and the cache keeps
//! them current on every pod placed or removed (watch add/remove, assume, forget) and every
//! node added, removed or relabelled. A cycle then reads the counts instead of walking pods.
//!
//! A plugin that finds no tally for its key (not registered, evicted, or tallies switched off
//! for a differential test) computes the counts the straightforward way, with the same result.
//! At most [`CAPACITY`] tallies are kept; the least recently requested one goes first.

use crate::core::cache::assigned::AssignedPod;
use crate::core::cache::domains::NodeValueIds;
use crate::core::cache::NodeId;
// Unseeded for the counts by node id and value id only (the scheduler numbers both).
use crate::core::fxhash::FxHashMap as HashMap;
use crate::core::intern::Name;
use crate::core::labels::Selector;
use crate::core::seeded_hash::SeededHashMap;
use std::sync::Arc;

/// How many tallies are kept at most (each costs a namespace check, and in its namespaces a
/// selector match, per placed pod).
pub const CAPACITY: usize = 256;

/// What a tally counts: non-terminating (or all) pods of `namespaces` matching `selector`,
/// grouped by their node's value for `topology_key`.
#[derive(Debug, Clone, Eq)]
pub struct TallyKey {
    /// Sorted, without duplicates; shared with the terms they come from.
    namespaces: Vec<Arc<str>>,
    selector: Selector,
    topology_key: Name,
    skip_terminating: bool,
}

impl PartialEq for TallyKey {
    /// Equal content; namespace names shared with the cache's namespace table (a resolved
    /// namespace selector's, often hundreds) compare by address first.
    fn eq(&self, other: &TallyKey) -> bool {
        self.topology_key == other.topology_key
            && self.skip_terminating == other.skip_terminating
            && self.namespaces.len() == other.namespaces.len()
            && self.namespaces.iter().zip(&other.namespaces).all(|(a, b)| Arc::ptr_eq(a, b) || a == b)
            && self.selector == other.selector
    }
}

impl std::hash::Hash for TallyKey {
    /// The content, as [`PartialEq`] compares it (an address only short-cuts equal content).
    fn hash<H: std::hash::Hasher>(&self, state: &mut H) {
        self.namespaces.hash(state);
        self.selector.hash(state);
        self.topology_key.hash(state);
        self.skip_terminating.hash(state);
    }
}

impl TallyKey {
    /// A key; the namespace list is normalised (sorted, deduplicated).
    pub fn new(
        namespaces: impl IntoIterator<Item = Arc<str>>,
        selector: Selector,
        topology_key: Name,
        skip_terminating: bool,
    ) -> TallyKey {
        let mut namespaces: Vec<Arc<str>> = namespaces.into_iter().collect();
        namespaces.sort();
        namespaces.dedup();
        TallyKey { namespaces, selector, topology_key, skip_terminating }
    }

    /// The namespaces counted.
    pub fn namespaces(&self) -> &[Arc<str>] {
        &self.namespaces
    }

    /// The selector counted.
    pub fn selector(&self) -> &Selector {
        &self.selector
    }

    /// Whether the pod is counted.
    fn counts(&self, pod: &AssignedPod) -> bool {
        !(self.skip_terminating && pod.terminating)
            && self.namespaces.binary_search_by(|n| (**n).cmp(&*pod.namespace)).is_ok()
            && self.selector.matches(&pod.labels)
    }
}

/// The counts of one key: matching pods per topology value id and per node.
///
/// Per node the counts are a dense vector indexed by node id (grown to the highest node id that
/// holds a counted pod; node ids are reused, so it stays as long as the node table): a Filter or
/// Score pass reads a node's count with one load instead of a hash lookup, and for
/// `kubernetes.io/hostname` and any other key whose every value is on one node
/// ([`crate::core::cache::domains::Domains::is_unique`]) a node's domain count *is* its node
/// count ([`Counts::on_node`]). Per value the counts stay a map (one entry per value with
/// matching pods: a few for zones).
#[derive(Debug, Clone, Default)]
pub struct Counts {
    /// Node id → matching pods on it (0 past the end).
    by_node: Vec<u32>,
    /// Topology value id ([`crate::core::cache::domains`]) → matching pods on nodes with that
    /// value (no zero entries). Unseeded: the cache numbers values.
    by_id: HashMap<u32, i64>,
}

impl PartialEq for Counts {
    /// The same counts, however long the per-node vectors grew (zeros past the end).
    fn eq(&self, other: &Counts) -> bool {
        let (short, long) = if self.by_node.len() <= other.by_node.len() { (self, other) } else { (other, self) };
        self.by_id == other.by_id
            && long.by_node[..short.by_node.len()] == short.by_node[..]
            && long.by_node[short.by_node.len()..].iter().all(|n| *n == 0)
    }
}

impl Counts {
    /// Matching pods per topology value id (values with none are absent).
    pub fn by_id(&self) -> &HashMap<u32, i64> {
        &self.by_id
    }

    /// Matching pods per node id (nodes past the end have none).
    pub fn by_node(&self) -> &[u32] {
        &self.by_node
    }

    /// Matching pods on nodes with this topology value id.
    #[inline]
    pub fn on_id(&self, id: u32) -> i64 {
        self.by_id.get(&id).copied().unwrap_or(0)
    }

    /// Matching pods on one node.
    #[inline]
    pub fn on_node(&self, id: NodeId) -> i64 {
        i64::from(self.by_node.get(id as usize).copied().unwrap_or(0))
    }

    /// Count `delta` pods on node `id`, whose value of the key is `value` (`None`: the node
    /// lacks the key; counted per node only).
    pub(super) fn add(&mut self, id: NodeId, value: Option<u32>, delta: i64) {
        let slot = id as usize;
        if self.by_node.len() <= slot {
            self.by_node.resize(slot + 1, 0);
        }
        let n = &mut self.by_node[slot];
        // Counts never go below zero (a pod leaves only where it was counted).
        *n = u32::try_from(i64::from(*n).saturating_add(delta)).unwrap_or(0);
        if let Some(k) = value {
            let n = self.by_id.entry(k).or_insert(0);
            *n += delta;
            if *n == 0 {
                self.by_id.remove(&k);
            }
        }
    }
}

#[derive(Debug, Clone)]
struct Tally {
    counts: Counts,
    last_used: u64,
}

/// Every registered tally.
#[derive(Debug, Default)]
pub struct Tallies {
    /// Keyed by the namespaces and selectors of pods' spread constraints and affinity terms,
    /// which tenants write: seeded.
    list: SeededHashMap<TallyKey, Tally>,
    clock: u64,
    /// Lookups answer `None` (plugins take the straightforward path); maintenance goes on.
    disabled: bool,
}

impl Tallies {
    /// The counts for `key`, if registered (and tallies are on).
    pub fn get(&self, key: &TallyKey) -> Option<&Counts> {
        if self.disabled {
            return None;
        }
        self.list.get(key).map(|t| &t.counts)
    }

    /// Switch lookups off or on (differential tests compare both paths on one cache).
    pub fn set_enabled(&mut self, on: bool) {
        self.disabled = !on;
    }

    /// Mark `key` as used; `false` when it is not registered.
    pub fn touch(&mut self, key: &TallyKey) -> bool {
        self.clock += 1;
        match self.list.get_mut(key) {
            Some(t) => {
                t.last_used = self.clock;
                true
            }
            None => false,
        }
    }

    /// Register `key`, counted from `placed`: every pod on an existing node that the key may
    /// count (a superset is fine), with the node's id and label value ids.
    pub fn insert<'a>(&mut self, key: TallyKey, placed: impl Iterator<Item = (&'a AssignedPod, NodeId, &'a NodeValueIds)>) {
        self.clock += 1;
        if self.list.len() >= CAPACITY {
            if let Some(oldest) = self.list.iter().min_by_key(|(_, t)| t.last_used).map(|(k, _)| k.clone()) {
                self.list.remove(&oldest);
            }
        }
        let mut counts = Counts::default();
        for (pod, id, values) in placed {
            if key.counts(pod) {
                counts.add(id, values.get(key.topology_key), 1);
            }
        }
        self.list.insert(key, Tally { counts, last_used: self.clock });
    }

    /// A pod was placed on (`delta` 1) or left (−1) the node `id` with label value ids `values`.
    pub fn pod_placed(&mut self, pod: &AssignedPod, id: NodeId, values: &NodeValueIds, delta: i64) {
        for (key, t) in &mut self.list {
            if key.counts(pod) {
                t.counts.add(id, values.get(key.topology_key), delta);
            }
        }
    }

    /// No tally is registered.
    pub fn is_empty(&self) -> bool {
        self.list.is_empty()
    }

    /// Compare every tally with a recount from `placed` (tests).
    pub fn verify<'a>(
        &self,
        placed: impl Iterator<Item = (&'a AssignedPod, NodeId, &'a NodeValueIds)> + Clone,
    ) -> Result<(), String> {
        for (key, t) in &self.list {
            let mut fresh = Counts::default();
            for (pod, id, values) in placed.clone() {
                if key.counts(pod) {
                    fresh.add(id, values.get(key.topology_key), 1);
                }
            }
            if fresh != t.counts {
                return Err(format!("tally {key:?} differs from a recount"));
            }
        }
        Ok(())
    }
}
