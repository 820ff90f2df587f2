//! The (anti-)affinity terms of placed pods, grouped by identical term, with the number of pods
//! holding each term per topology value of their nodes.
//!
//! Upstream's InterPodAffinity walks, on every cycle, every pod with required anti-affinity
//! (Filter: do they reject the incoming pod?) and every pod with affinity terms (Score: do their
//! terms attract or repel it?) — interpodaffinity/filtering.go `getExistingAntiAffinityCounts`
//! and scoring.go `processExistingPod`. Pods of one workload carry the same terms, so the cache
//! keeps one group per distinct term: the term is matched against the incoming pod once per
//! group, and the group's per-value counts give what the walk over its pods would have summed.
//! Kept current on every pod placed or removed and every node added, removed or relabelled.

use crate::core::cache::affinity_terms::{AffinityTerm, PodTerms};
use crate::core::cache::domains::NodeValueIds;
use crate::core::cache::tally::Counts;
use crate::core::cache::NodeId;
use crate::core::seeded_hash::SeededHashMap;

/// Which of a pod's term lists a group comes from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TermKind {
    RequiredAffinity,
    RequiredAntiAffinity,
    PreferredAffinity,
    PreferredAntiAffinity,
}

/// Pods on existing nodes holding one term.
#[derive(Debug, Clone, PartialEq)]
pub struct Group {
    pub kind: TermKind,
    /// The preference weight (0 for required terms).
    pub weight: i32,
    pub term: AffinityTerm,
    /// The holders on nodes with the topology key, per topology value id
    /// ([`crate::core::cache::domains`]) and per node id. For a key whose every value is on one
    /// node ([`crate::core::cache::domains::Domains::is_unique`]) the per-node counts are the
    /// per-domain counts, which a cycle reads or adds up by node id without hashing.
    pub counts: Counts,
    /// Holders, including those on nodes without the topology key.
    holders: i64,
}

/// Every group, by a signature of (kind, weight, term).
#[derive(Debug, Default)]
pub struct TermGroups {
    /// Keyed by the text of pods' affinity terms, which tenants write: seeded.
    groups: SeededHashMap<String, Group>,
    disabled: bool,
}

fn each_term(terms: &PodTerms, mut f: impl FnMut(TermKind, i32, &AffinityTerm)) {
    for t in &terms.required_affinity {
        f(TermKind::RequiredAffinity, 0, t);
    }
    for t in &terms.required_anti_affinity {
        f(TermKind::RequiredAntiAffinity, 0, t);
    }
    for (w, t) in &terms.preferred_affinity {
        f(TermKind::PreferredAffinity, *w, t);
    }
    for (w, t) in &terms.preferred_anti_affinity {
        f(TermKind::PreferredAntiAffinity, *w, t);
    }
}

impl TermGroups {
    /// The groups, or `None` when switched off (plugins then walk the pods).
    pub fn groups(&self) -> Option<impl Iterator<Item = &Group>> {
        (!self.disabled).then(|| self.groups.values())
    }

    /// Switch lookups off or on (differential tests compare both paths on one cache).
    pub fn set_enabled(&mut self, on: bool) {
        self.disabled = !on;
    }

    /// A pod with `terms` was placed on (`delta` 1) or left (−1) node `node` with label value
    /// ids `values`.
    pub fn pod_placed(&mut self, terms: &PodTerms, node: NodeId, values: &NodeValueIds, delta: i64) {
        each_term(terms, |kind, weight, term| {
            let sig = format!("{kind:?}/{weight}/{term:?}");
            let g = self.groups.entry(sig.clone()).or_insert_with(|| Group {
                kind,
                weight,
                term: term.clone(),
                counts: Counts::default(),
                holders: 0,
            });
            g.holders += delta;
            if let Some(id) = term.topology_key.and_then(|k| values.get(k)) {
                g.counts.add(node, Some(id), delta);
            }
            if g.holders == 0 {
                self.groups.remove(&sig);
            }
        });
    }

    /// Compare with groups rebuilt from `placed` (terms, node and node label values of every
    /// holder).
    pub fn verify<'a>(&self, placed: impl Iterator<Item = (&'a PodTerms, NodeId, &'a NodeValueIds)>) -> Result<(), String> {
        let mut fresh = TermGroups::default();
        for (terms, node, values) in placed {
            fresh.pod_placed(terms, node, values, 1);
        }
        if fresh.groups != self.groups {
            return Err(format!("{} term groups differ from {} recomputed", self.groups.len(), fresh.groups.len()));
        }
        Ok(())
    }
}
