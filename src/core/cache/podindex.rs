//! The pods that carry pod (anti-)affinity terms, with those terms parsed once.
//!
//! InterPodAffinity must look at every existing pod's terms on each scheduling cycle (existing
//! anti-affinity against the incoming pod, symmetric scoring). Upstream keeps per-node lists
//! (`PodsWithAffinity`, `PodsWithRequiredAntiAffinity`); this index is the cluster-wide
//! equivalent, maintained by the cache on every attach/detach (watch add/remove, assume, forget),
//! so a cycle iterates only the pods that have terms, never all pods.
//!
//! It also keeps every placed pod by (namespace, label key, label value), so counting the pods a
//! selector matches (spread constraints, affinity terms) visits only the pods carrying one of the
//! values of the selector's first `In` requirement instead of every pod on every node.

use crate::core::cache::affinity_terms::PodTerms;
use crate::core::cache::assigned::AssignedPod;
// Unseeded for interned label keys only (see `ByKey`).
use crate::core::fxhash::FxHashMap;
use crate::core::intern::Name;
use crate::core::labels::{Narrowing, Selector};
use crate::core::model::PodKey;
use crate::core::seeded_hash::SeededHashMap;
use std::collections::HashMap;
use std::sync::Arc;

/// Pods by label value, for one namespace and key (values are chosen by whoever creates the pod).
type ByValue = SeededHashMap<Box<str>, Vec<Arc<AssignedPod>>>;

/// Label key → its values' pods, for one namespace. Unseeded: interned keys hash by address,
/// which the process's allocator chooses, not the tenant.
type ByKey = FxHashMap<Name, ByValue>;

/// A pod with affinity terms and where it runs.
#[derive(Debug, Clone)]
pub struct IndexedPod {
    pub pod: Arc<AssignedPod>,
    pub terms: Arc<PodTerms>,
}

/// Pods with (anti-)affinity terms, by key.
#[derive(Debug, Default)]
pub struct PodIndex {
    with_affinity: HashMap<PodKey, IndexedPod>,
    /// How many of them have required anti-affinity terms (lets PreFilter skip the walk).
    with_required_anti_affinity: usize,
    /// Every placed pod by namespace → label key → label value. Namespaces (chosen by tenants
    /// where namespace creation is delegated) and label values use the seeded hasher.
    by_label: SeededHashMap<Box<str>, ByKey>,
}

impl PodIndex {
    /// Index a pod placed on a node (by labels; by terms when it has pod affinity terms).
    pub fn add(&mut self, pod: &Arc<AssignedPod>) {
        if !pod.labels.is_empty() {
            // Look up before inserting: an entry() key would be a new copy of the namespace per pod.
            if !self.by_label.contains_key(&*pod.namespace) {
                self.by_label.insert(pod.namespace.clone(), ByKey::default());
            }
            if let Some(by_key) = self.by_label.get_mut(&*pod.namespace) {
                for (k, v) in pod.labels.iter() {
                    let by_value = by_key.entry(k).or_default();
                    match by_value.get_mut(v) {
                        Some(list) => list.push(pod.clone()),
                        None => {
                            by_value.insert(v.into(), vec![pod.clone()]);
                        }
                    }
                }
            }
        }
        if !pod.has_pod_affinity_terms() {
            return;
        }
        let terms = PodTerms::of_assigned(pod);
        if !terms.required_anti_affinity.is_empty() {
            self.with_required_anti_affinity += 1;
        }
        if let Some(old) = self.with_affinity.insert(pod.key.clone(), IndexedPod { pod: pod.clone(), terms }) {
            if !old.terms.required_anti_affinity.is_empty() {
                self.with_required_anti_affinity -= 1;
            }
        }
    }

    /// Forget a pod that left its node (`pod` is the version that was added).
    pub fn remove_pod(&mut self, pod: &AssignedPod) {
        if let Some(by_key) = self.by_label.get_mut(&*pod.namespace) {
            for (k, v) in pod.labels.iter() {
                let Some(by_value) = by_key.get_mut(&k) else { continue };
                if let Some(list) = by_value.get_mut(v) {
                    if let Some(i) = list.iter().position(|p| std::ptr::eq(&**p, pod)) {
                        list.swap_remove(i);
                    }
                    if list.is_empty() {
                        by_value.remove(v);
                    }
                }
                if by_value.is_empty() {
                    by_key.remove(&k);
                }
            }
            if by_key.is_empty() {
                self.by_label.remove(&*pod.namespace);
            }
        }
        self.remove(&pod.key);
    }

    /// The pods of `namespace` that can match `sel` (a superset: callers still match them), or
    /// `None` when the selector has no `In`/`Exists` requirement to narrow with and callers must
    /// walk the nodes' pod lists.
    pub fn candidates<'a>(&'a self, namespace: &str, sel: &'a Selector) -> Option<Vec<&'a Arc<AssignedPod>>> {
        let (key, values) = match sel.narrowing() {
            Narrowing::Nothing => return Some(Vec::new()),
            Narrowing::Any => return None,
            Narrowing::In(k, v) => (k, Some(v)),
            Narrowing::Exists(k) => (k, None),
        };
        let mut out = Vec::new();
        let Some(by_value) = self.by_label.get(namespace).and_then(|m| m.get(&key)) else { return Some(out) };
        let Some(values) = values else {
            out.extend(by_value.values().flatten());
            return Some(out);
        };
        for (i, v) in values.iter().enumerate() {
            if values[..i].contains(v) {
                continue;
            }
            if let Some(list) = by_value.get(v) {
                out.extend(list.iter());
            }
        }
        Some(out)
    }

    /// Forget a pod's terms.
    fn remove(&mut self, key: &str) {
        if let Some(old) = self.with_affinity.remove(key) {
            if !old.terms.required_anti_affinity.is_empty() {
                self.with_required_anti_affinity -= 1;
            }
        }
    }

    /// Every indexed pod (any order: callers only sum).
    pub fn pods(&self) -> impl Iterator<Item = &IndexedPod> {
        self.with_affinity.values()
    }

    /// The parsed terms of an indexed pod.
    pub fn terms(&self, key: &str) -> Option<&Arc<PodTerms>> {
        self.with_affinity.get(key).map(|p| &p.terms)
    }

    /// The parsed terms of a placed pod, if it has any.
    pub fn terms_of(&self, pod: &AssignedPod) -> Option<&Arc<PodTerms>> {
        if !pod.has_pod_affinity_terms() {
            return None;
        }
        self.with_affinity.get(&*pod.key).map(|p| &p.terms)
    }

    /// Number of indexed pods.
    pub fn len(&self) -> usize {
        self.with_affinity.len()
    }

    /// No pod has affinity terms.
    pub fn is_empty(&self) -> bool {
        self.with_affinity.is_empty()
    }

    /// Number of indexed pods with required anti-affinity terms.
    pub fn num_with_required_anti_affinity(&self) -> usize {
        self.with_required_anti_affinity
    }

    /// Compare with an index rebuilt from `pods` (tests and the property test).
    pub fn verify<'a>(&self, pods: impl Iterator<Item = &'a Arc<AssignedPod>>) -> Result<(), String> {
        let mut fresh = PodIndex::default();
        for p in pods {
            fresh.add(p);
        }
        if fresh.with_required_anti_affinity != self.with_required_anti_affinity {
            return Err(format!(
                "required anti-affinity count {} != recomputed {}",
                self.with_required_anti_affinity, fresh.with_required_anti_affinity
            ));
        }
        let count = |m: &SeededHashMap<Box<str>, ByKey>| -> Vec<(String, Name, String, usize)> {
            let mut v: Vec<_> = m
                .iter()
                .flat_map(|(ns, ks)| {
                    ks.iter()
                        .flat_map(move |(k, vs)| vs.iter().map(move |(val, l)| (ns.to_string(), *k, val.to_string(), l.len())))
                })
                .collect();
            v.sort_by(|a, b| (&a.0, a.1.as_str(), &a.2).cmp(&(&b.0, b.1.as_str(), &b.2)));
            v
        };
        if count(&fresh.by_label) != count(&self.by_label) {
            return Err("label index differs from recomputation".into());
        }
        if fresh.with_affinity.len() != self.with_affinity.len() {
            return Err(format!("{} indexed pods != recomputed {}", self.with_affinity.len(), fresh.with_affinity.len()));
        }
        for (k, v) in &fresh.with_affinity {
            match self.with_affinity.get(k) {
                Some(mine) if Arc::ptr_eq(&mine.pod, &v.pod) && mine.terms == v.terms => {}
                _ => return Err(format!("pod {k}: index entry differs from recomputation")),
            }
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use crate::core::cache::Cache;
    use crate::core::framework::plugins::test_util::{pod_term, sel_req, selector, NodeBuilder, PodBuilder};
    use crate::core::labels::KeyResolution;
    use crate::core::labels::Selector;
    use crate::core::rng::Rng;

    /// A pod with or without (anti-)affinity terms, chosen by `kind`.
    fn pod(name: &str, kind: u64, app: u64) -> PodBuilder {
        let app = format!("a{app}");
        let p = PodBuilder::new(name).labels(&[("app", &app)]);
        let term = || pod_term(Some(selector(vec![sel_req("app", "In", &[&app])])), "zone");
        match kind {
            0 => p,
            1 => p.pod_anti_affinity_required(term()),
            2 => p.pod_affinity_preferred(3, term()),
            _ => p.pod_affinity_required(term()).pod_anti_affinity_preferred(1, term()),
        }
    }

    #[test]
    fn index_equals_recomputation_after_random_operations() {
        let mut rng = Rng::seeded(42);
        // Intern the keys first so that the selectors resolve them.
        let _ = pod("warmup", 3, 0).info();
        let selectors: Vec<Selector> = [
            selector(vec![sel_req("app", "In", &["a0", "a2", "a0"])]),
            selector(vec![sel_req("app", "Exists", &[])]),
            selector(vec![sel_req("app", "Exists", &[]), sel_req("app", "NotIn", &["a1"])]),
        ]
        .iter()
        .map(|s| Selector::from_api(Some(s), KeyResolution::Lookup).unwrap())
        .collect();
        let mut cache = Cache::new();
        let nodes: Vec<String> = (0..4).map(|i| format!("n{i}")).collect();
        for n in &nodes {
            cache.upsert_node(NodeBuilder::new(n).labels(&[("zone", n)]).spec());
        }
        for step in 0..3000 {
            let name = format!("p{}", rng.below(40));
            let key = format!("default/{name}");
            let node = &nodes[rng.below(4) as usize];
            let p = pod(&name, rng.below(4), rng.below(3));
            match rng.below(7) {
                0 | 1 => cache.upsert_assigned_pod(&p.node_name(node).info()),
                2 | 3 => cache.assume_pod(&p.info(), node),
                4 => {
                    cache.forget_pod(&key);
                }
                5 => {
                    cache.remove_pod(&key);
                }
                _ => {
                    // A node leaves (its pods become orphans) or comes back.
                    if cache.node_by_name(node).is_some() {
                        cache.remove_node(node);
                    } else {
                        cache.upsert_node(NodeBuilder::new(node).labels(&[("zone", node)]).spec());
                    }
                }
            }
            if let Err(e) = cache.verify_pod_index() {
                panic!("step {step}: {e}");
            }
            // Candidates from the label index select exactly what a walk over the nodes selects.
            for sel in &selectors {
                let mut from_index: Vec<String> = cache
                    .pod_index()
                    .candidates("default", sel)
                    .expect("narrowable selector")
                    .into_iter()
                    .filter(|p| sel.matches(&p.labels) && cache.node_by_name(&p.node_name).is_some())
                    .map(|p| p.key.to_string())
                    .collect();
                let mut from_nodes: Vec<String> = cache
                    .nodes()
                    .flat_map(|n| n.pods.iter())
                    .filter(|p| sel.matches(&p.labels))
                    .map(|p| p.key.to_string())
                    .collect();
                from_index.sort();
                from_nodes.sort();
                assert_eq!(from_index, from_nodes, "step {step}");
            }
            if let Err(e) = cache.verify_totals() {
                panic!("step {step}: {e}");
            }
        }
        assert!(cache.pod_index().len() <= cache.num_pods());
    }
}
