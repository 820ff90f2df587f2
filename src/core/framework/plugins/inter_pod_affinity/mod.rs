//! InterPodAffinity (pkg/scheduler/framework/plugins/interpodaffinity/{plugin.go,filtering.go,
//! scoring.go}).
//!
//! Filter enforces the incoming pod's required affinity and anti-affinity, and the required
//! anti-affinity of pods already running against it (`filtering.rs`). Score adds the weights of
//! preferred terms in both directions plus existing pods' required affinity weighted by
//! `hardPodAffinityWeight` (`scoring.rs`). Existing pods' terms come parsed from the cache's
//! pod index, so a cycle walks only pods that have terms unless the incoming pod has terms of its
//! own (then every pod is a candidate match, as upstream).

mod filtering;
mod scoring;
#[cfg(test)]
mod tests;

use crate::core::cache::domains::Domains;
use crate::core::cache::{AssignedPod, Cache, NodeInfo};
use crate::core::config::{InterPodAffinityArgs, PluginArgs};
use crate::core::framework::{EventMask, Plugin, PluginState, Points, PreFilterOutcome, PreScoreOutcome, Rejection};
// Unseeded: keyed by interned topology keys (hashed by address) and the cache's value ids.
use crate::core::fxhash::FxHashMap as HashMap;
use crate::core::intern::Name;
use crate::core::model::PodInfo;

/// The plugin with its args.
#[derive(Debug, Clone)]
pub struct InterPodAffinity {
    args: InterPodAffinityArgs,
}

impl InterPodAffinity {
    /// `New`: validate the args.
    pub fn new(args: &InterPodAffinityArgs) -> Result<InterPodAffinity, String> {
        let problems = crate::core::config::validate_inter_pod_affinity_args("", args);
        if !problems.is_empty() {
            return Err(problems
                .iter()
                .map(|p| p.to_string().trim_start_matches('.').to_string())
                .collect::<Vec<_>>()
                .join(", "));
        }
        Ok(InterPodAffinity { args: args.clone() })
    }

    /// Build from the profile's plugin args (upstream defaults when absent).
    pub fn from_args(args: Option<&PluginArgs>) -> Result<InterPodAffinity, String> {
        match args {
            None => InterPodAffinity::new(&InterPodAffinityArgs::default()),
            Some(PluginArgs::InterPodAffinity(a)) => InterPodAffinity::new(a),
            Some(other) => Err(format!("want args to be of type InterPodAffinityArgs, got {}", super::args_kind(other))),
        }
    }
}

/// `topologyToMatchedTermCount`: counts per (topology key, value); entries at zero are removed.
/// Values are the cache's value ids ([`crate::core::cache::domains`]), so Filter compares a
/// node's id instead of hashing its label value.
///
/// Keys whose every value is on one node ([`Domains::is_unique`], `kubernetes.io/hostname`) may
/// instead be counted per node id in one dense vector ([`TopologyCounts::add_per_node`]): with
/// one domain per node a map per value is as large as the cluster, and Filter would hash once
/// per node. A key is counted one way or the other within one set of counts.
#[derive(Debug, Clone, Default)]
pub(crate) struct TopologyCounts {
    map: HashMap<Name, HashMap<u32, i64>>,
    /// The keys counted per node.
    dense_keys: Vec<Name>,
    /// Node id → the sum, over the keys counted per node, of the count of the node's domain
    /// (0 past the end). The counts are of placed pods, never negative, so the sum is positive
    /// exactly when one of them is.
    per_node: Vec<i64>,
    /// The sum of `per_node` (positive exactly when one entry is), so that emptiness, which
    /// Filter asks per node, is not a pass over the vector.
    per_node_total: i64,
}

impl TopologyCounts {
    /// `update`: add `delta` to the node's value of `key`, if the node has the key.
    pub fn update(&mut self, node: &NodeInfo, key: Option<Name>, delta: i64) {
        let Some(key) = key else { return };
        let Some(id) = node.value_id(key) else { return };
        if self.dense_keys.contains(&key) {
            self.add_on_node(node.id, delta);
        } else {
            self.add(key, id, delta);
        }
    }

    /// Add `delta` to node `node`'s entry of the per-node counts.
    fn add_on_node(&mut self, node: crate::core::cache::NodeId, delta: i64) {
        let slot = node as usize;
        if self.per_node.len() <= slot {
            // Doubling: updates arrive one pod at a time (walks over pods, what-if changes), in any
            // node order, and growing by one node at a time would copy the vector each time.
            self.per_node.resize((slot + 1).next_power_of_two(), 0);
        }
        self.per_node[slot] += delta;
        self.per_node_total += delta;
    }

    /// Add `delta` to the pair (key, value id).
    pub fn add(&mut self, key: Name, id: u32, delta: i64) {
        let inner = self.map.entry(key).or_default();
        let n = inner.entry(id).or_insert(0);
        *n += delta;
        if *n == 0 {
            inner.remove(&id);
            if inner.is_empty() {
                self.map.remove(&key);
            }
        }
    }

    /// Add every (value id, count) of one key at once (a tally's or a term group's counts):
    /// the map is sized once.
    pub fn add_all(&mut self, key: Name, counts: &HashMap<u32, i64>) {
        if counts.is_empty() {
            return;
        }
        let inner = self.map.entry(key).or_default();
        if inner.is_empty() {
            // The usual case: one term per key (the counts hold no zero entries).
            inner.clone_from(counts);
            return;
        }
        inner.reserve(counts.len());
        for (&id, n) in counts {
            let slot = inner.entry(id).or_insert(0);
            *slot += *n;
            if *slot == 0 {
                inner.remove(&id);
            }
        }
        if inner.is_empty() {
            self.map.remove(&key);
        }
    }

    /// Add per-node counts of a key whose every value is on one node (`by_node`, indexed by
    /// node id), for the nodes that have the key: kept in the per-node vector from then on.
    /// `domains` tells which nodes have it when the counts may include others (a tally counts
    /// pods on nodes without the key; a term group's holders do not), `None` when they cannot.
    pub fn add_node_counts(&mut self, key: Name, by_node: &[u32], domains: Option<&Domains>) {
        if !self.dense_keys.contains(&key) {
            self.dense_keys.push(key);
        }
        if self.per_node.len() < by_node.len() {
            self.per_node.resize(by_node.len(), 0);
        }
        // One pass, no per-node lookup of the key's map: the column when nodes must be checked.
        let column = match domains {
            Some(d) => match d.column(key) {
                Some(c) => Some(c),
                None => return, // no node has the key
            },
            None => None,
        };
        let mut added = 0;
        for (node, (slot, &n)) in self.per_node.iter_mut().zip(by_node).enumerate() {
            if n > 0 && column.is_none_or(|c| c.get(node as crate::core::cache::NodeId).is_some()) {
                *slot += i64::from(n);
                added += i64::from(n);
            }
        }
        self.per_node_total += added;
    }

    /// Whether `key` is counted per node (then [`TopologyCounts::get`] does not see it).
    pub fn is_per_node(&self, key: Name) -> bool {
        self.dense_keys.contains(&key)
    }

    /// Whether a key counted per node has a positive count on the node.
    #[inline]
    pub fn positive_on_node(&self, node: crate::core::cache::NodeId) -> bool {
        self.per_node.get(node as usize).is_some_and(|n| *n > 0)
    }

    /// The count of one pair (0 when absent); for keys counted by value id.
    pub fn get(&self, key: Name, id: u32) -> i64 {
        self.map.get(&key).and_then(|m| m.get(&id)).copied().unwrap_or(0)
    }

    /// No pair is counted (`len(map) == 0`).
    pub fn is_empty(&self) -> bool {
        self.map.is_empty() && self.per_node_total == 0
    }

    /// Whether any counted pair with a positive count is one of the node's labels (its ids
    /// read from the cache's columns).
    pub fn any_positive_on(&self, domains: &Domains, node: &NodeInfo) -> bool {
        self.positive_on_node(node.id)
            || self
                .map
                .iter()
                .any(|(k, values)| domains.node_value(*k, node.id).and_then(|id| values.get(&id)).is_some_and(|n| *n > 0))
    }
}

impl Plugin for InterPodAffinity {
    fn name(&self) -> &'static str {
        super::names::INTER_POD_AFFINITY
    }

    fn points(&self) -> Points {
        Points { pre_filter: true, filter: true, pre_score: true, score: true, normalize: true, ..Default::default() }
    }

    /// `EventsToRegister`: assigned pod add/update/delete, node add and label changes, and
    /// namespace label changes (they change what `namespaceSelector` selects).
    fn events(&self) -> EventMask {
        EventMask::ASSIGNED_POD_ADD
            | EventMask::ASSIGNED_POD_UPDATE
            | EventMask::ASSIGNED_POD_DELETE
            | EventMask::NODE_ADD
            | EventMask::NODE_LABEL
            | EventMask::NAMESPACE_CHANGE
    }

    /// One tally per incoming term the cycle counts existing pods for.
    fn tallies(&self, cache: &Cache, pod: &PodInfo, out: &mut Vec<crate::core::cache::tally::TallyKey>) {
        filtering::tallies(cache, pod, out);
    }

    fn pre_filter(&self, cache: &Cache, pod: &PodInfo, state: &mut PluginState) -> PreFilterOutcome {
        filtering::pre_filter(cache, pod, state)
    }

    fn clone_state(&self, state: &PluginState) -> PluginState {
        filtering::clone_state(state)
    }

    fn add_pod(&self, state: &mut PluginState, pod: &PodInfo, added: &AssignedPod, node: &NodeInfo) {
        filtering::update_with_pod(state, pod, added, node, 1);
    }

    fn remove_pod(&self, state: &mut PluginState, pod: &PodInfo, removed: &AssignedPod, node: &NodeInfo) {
        filtering::update_with_pod(state, pod, removed, node, -1);
    }

    fn filter(&self, cache: &Cache, pod: &PodInfo, node: &NodeInfo, state: &PluginState) -> Result<(), Rejection> {
        filtering::filter(cache.domains(), pod, node, state)
    }

    fn pre_score(&self, cache: &Cache, pod: &PodInfo, nodes: &[&NodeInfo], state: &mut PluginState) -> PreScoreOutcome {
        scoring::pre_score(&self.args, cache, pod, nodes, state)
    }

    fn score(&self, cache: &Cache, pod: &PodInfo, node: &NodeInfo, state: &PluginState) -> Result<i64, Rejection> {
        super::score_one(self, cache, pod, node, state)
    }

    fn normalize(&self, _pod: &PodInfo, scores: &mut [i64], state: &PluginState) {
        scoring::normalize(scores, state);
    }
}

impl super::FilterAll for InterPodAffinity {
    fn filter_all(&self, cache: &Cache, pod: &PodInfo, nodes: &[&NodeInfo], state: &PluginState, out: &mut super::Rejections) {
        filtering::filter_all(cache.domains(), pod, nodes, state, out)
    }
}

impl super::ScoreAll for InterPodAffinity {
    fn score_all(
        &self,
        cache: &Cache,
        _pod: &PodInfo,
        nodes: &[&NodeInfo],
        state: &PluginState,
        out: &mut [i64],
    ) -> Result<(), Rejection> {
        scoring::score_all(cache.domains(), nodes, state, out)
    }
}

/// The straightforward per-node score, for the whole-list scorer's differential test.
#[cfg(test)]
pub(crate) use scoring::reference_score;
