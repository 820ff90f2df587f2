//! InterPodAffinity PreFilter/Filter and the preemption what-if extensions
//! (pkg/scheduler/framework/plugins/interpodaffinity/filtering.go).
//!
//! PreFilter counts, per topology pair, (1) existing pods whose required anti-affinity matches
//! the incoming pod (walking only the indexed pods with such terms), (2) existing pods matching
//! all of the incoming pod's required affinity terms and (3) existing pods matching each of its
//! required anti-affinity terms. Filter is then a few lookups per node.

use super::TopologyCounts;
use crate::core::cache::affinity_terms::{AffinityTerm, PodTerms};
use crate::core::cache::domains::Domains;
use crate::core::cache::tally::{Counts, TallyKey};
use crate::core::cache::term_groups::TermKind;
use crate::core::cache::{AssignedPod, Cache, NodeInfo};
use crate::core::framework::{state_as, PluginState, PreFilterOutcome, Rejection};
use crate::core::labels::KeyResolution;
use crate::core::model::{Labels, PodInfo};
use crate::core::texts::inter_pod_affinity::{
    self as texts, ERR_REASON_AFFINITY_RULES_NOT_MATCH, ERR_REASON_ANTI_AFFINITY_RULES_NOT_MATCH,
    ERR_REASON_EXISTING_ANTI_AFFINITY_RULES_NOT_MATCH,
};
use std::sync::{Arc, OnceLock};

/// The empty label set (namespace labels of an unknown namespace, or "not looked up").
pub(crate) fn no_labels() -> &'static Labels {
    static EMPTY: OnceLock<Labels> = OnceLock::new();
    EMPTY.get_or_init(Labels::default)
}

/// The incoming pod's required terms, namespace selectors resolved.
#[derive(Debug)]
pub(crate) struct IncomingTerms {
    pub affinity: Vec<AffinityTerm>,
    pub anti_affinity: Vec<AffinityTerm>,
}

/// `preFilterState`.
#[derive(Debug, Clone)]
pub(crate) struct PreFilterState {
    pub existing_anti_affinity_counts: TopologyCounts,
    pub affinity_counts: TopologyCounts,
    pub anti_affinity_counts: TopologyCounts,
    pub terms: Arc<IncomingTerms>,
    pub namespace_labels: Arc<Labels>,
}

/// `podMatchesAllAffinityTerms` (the incoming pod's terms have their namespace selectors
/// merged into the namespace lists, so no namespace labels are needed).
pub(crate) fn matches_all(terms: &[AffinityTerm], namespace: &str, labels: &Labels) -> bool {
    !terms.is_empty() && terms.iter().all(|t| t.matches(namespace, labels, no_labels()))
}

/// Resolve the namespace selectors of the incoming pod's terms against the known namespaces.
pub(crate) fn resolve_namespaces<'a>(cache: &Cache, terms: impl Iterator<Item = &'a mut AffinityTerm>) {
    for t in terms {
        t.resolve_namespaces(|sel| cache.cluster().namespaces_matching(sel));
    }
}

/// The namespace labels of the incoming pod (`GetNamespaceLabelsSnapshot`).
pub(crate) fn namespace_labels(cache: &Cache, pod: &PodInfo) -> Arc<Labels> {
    Arc::new(cache.cluster().namespace_labels(&pod.namespace).cloned().unwrap_or_default())
}

/// Visit, once each, the placed pods (with their node) that may match `term`: its namespaces ×
/// the candidates of its selector in the cache's label index. Returns `false` without visiting
/// anything when the index cannot narrow the search (no `In` requirement, or a namespace selector
/// selecting every namespace); callers then use [`visit_all`].
pub(crate) fn visit_term_candidates(cache: &Cache, term: &AffinityTerm, f: &mut dyn FnMut(&AssignedPod, &NodeInfo)) -> bool {
    if !term.namespace_selector.is_nothing() || matches!(term.selector.narrowing(), crate::core::labels::Narrowing::Any) {
        return false;
    }
    for (i, ns) in term.namespaces.iter().enumerate() {
        if term.namespaces[..i].contains(ns) {
            continue;
        }
        for p in cache.pod_index().candidates(ns, &term.selector).unwrap_or_default() {
            if let Some(node) = cache.node_by_name(&p.node_name) {
                f(p, node);
            }
        }
    }
    true
}

/// The tally of the existing pods an incoming pod's term matches (`term.matches` with the
/// namespace selector resolved away, terminating pods included).
pub(crate) fn tally_key(term: &AffinityTerm) -> Option<TallyKey> {
    if !term.namespace_selector.is_nothing() {
        return None;
    }
    term.topology_key.map(|k| TallyKey::new(term.namespaces.iter().cloned(), term.selector.clone(), k, false))
}

/// The cache's counts for an incoming term: `None` when not available (walk the pods instead),
/// `Some(None)` when the term counts nothing (no node can carry its topology key).
pub(crate) fn term_counts<'a>(cache: &'a Cache, term: &AffinityTerm) -> Option<Option<&'a Counts>> {
    if term.topology_key.is_none() {
        return Some(None);
    }
    tally_key(term).and_then(|k| cache.tally(&k)).map(Some)
}

/// The incoming pod's terms, parsed with namespace selectors resolved, or `None` when it has
/// none or they do not parse.
fn incoming_terms(cache: &Cache, pod: &PodInfo) -> Option<PodTerms> {
    if !pod.affinity.as_deref().is_some_and(|a| a.pod_affinity.is_some() || a.pod_anti_affinity.is_some()) {
        return None;
    }
    let (mut parsed, errors) = PodTerms::of_pod(pod.affinity.as_deref(), &pod.namespace, &pod.labels, KeyResolution::Lookup);
    if !errors.is_empty() {
        return None;
    }
    resolve_namespaces(
        cache,
        parsed
            .required_affinity
            .iter_mut()
            .chain(parsed.required_anti_affinity.iter_mut())
            .chain(parsed.preferred_affinity.iter_mut().map(|(_, t)| t))
            .chain(parsed.preferred_anti_affinity.iter_mut().map(|(_, t)| t)),
    );
    Some(parsed)
}

/// The tallies PreFilter and PreScore read: one per incoming term (required affinity only when
/// there is a single term: a pod counts when it matches all of them).
pub(crate) fn tallies(cache: &Cache, pod: &PodInfo, out: &mut Vec<TallyKey>) {
    let Some(t) = incoming_terms(cache, pod) else { return };
    if t.required_affinity.len() == 1 {
        out.extend(t.required_affinity.iter().filter_map(tally_key));
    }
    out.extend(t.required_anti_affinity.iter().filter_map(tally_key));
    out.extend(t.preferred_affinity.iter().chain(t.preferred_anti_affinity.iter()).filter_map(|(_, t)| tally_key(t)));
}

/// Visit every placed pod with its node.
pub(crate) fn visit_all(cache: &Cache, f: &mut dyn FnMut(&AssignedPod, &NodeInfo)) {
    for node in cache.nodes() {
        for p in &node.pods {
            f(p, node);
        }
    }
}

/// PreFilter.
pub(crate) fn pre_filter(cache: &Cache, pod: &PodInfo, state: &mut PluginState) -> PreFilterOutcome {
    let has_terms = pod.affinity.as_deref().is_some_and(|a| a.pod_affinity.is_some() || a.pod_anti_affinity.is_some());
    if !has_terms && cache.pod_index().num_with_required_anti_affinity() == 0 {
        // No term can apply: upstream reaches the same Skip after computing empty counts.
        return PreFilterOutcome::Skip;
    }
    let (mut parsed, errors) = PodTerms::of_pod(pod.affinity.as_deref(), &pod.namespace, &pod.labels, KeyResolution::Lookup);
    if !errors.is_empty() {
        return PreFilterOutcome::Reject(Rejection::unresolvable(texts::parsing_pod(&errors)));
    }
    resolve_namespaces(cache, parsed.required_affinity.iter_mut().chain(parsed.required_anti_affinity.iter_mut()));
    let terms = IncomingTerms { affinity: parsed.required_affinity, anti_affinity: parsed.required_anti_affinity };
    let ns_labels = namespace_labels(cache, pod);

    // Existing pods' required anti-affinity against the incoming pod.
    let mut existing = TopologyCounts::default();
    if let (true, Some(groups)) = (cache.pod_index().num_with_required_anti_affinity() > 0, cache.term_groups()) {
        // The cache's groups of identical terms stand for their holders.
        for g in groups.filter(|g| g.kind == TermKind::RequiredAntiAffinity) {
            let Some(key) = g.term.topology_key else { continue };
            if g.term.matches(&pod.namespace, &pod.labels, &ns_labels) {
                if cache.domains().is_unique(key) {
                    // One domain per node (hostname): per node id, no map as large as the cluster.
                    existing.add_node_counts(key, g.counts.by_node(), None);
                } else {
                    existing.add_all(key, g.counts.by_id());
                }
            }
        }
    } else if cache.pod_index().num_with_required_anti_affinity() > 0 {
        for ip in cache.pod_index().pods() {
            if ip.terms.required_anti_affinity.is_empty() {
                continue;
            }
            let Some(node) = cache.node_by_name(&ip.pod.node_name) else { continue };
            for t in &ip.terms.required_anti_affinity {
                if t.matches(&pod.namespace, &pod.labels, &ns_labels) {
                    existing.update(node, t.topology_key, 1);
                }
            }
        }
    }

    // Existing pods matching the incoming pod's required terms.
    let mut affinity = TopologyCounts::default();
    let mut anti = TopologyCounts::default();
    let single = match terms.affinity.as_slice() {
        [only] => term_counts(cache, only).map(|c| (only, c)),
        _ => None,
    };
    if let Some((term, counts)) = single {
        if let (Some(key), Some(counts)) = (term.topology_key, counts) {
            affinity.add_all(key, counts.by_id());
        }
    } else if let Some(first) = terms.affinity.first() {
        // A pod counts only if it matches every term, so the first term's candidates suffice.
        let mut visit = |p: &AssignedPod, node: &NodeInfo| {
            if matches_all(&terms.affinity, &p.namespace, &p.labels) {
                for t in &terms.affinity {
                    affinity.update(node, t.topology_key, 1);
                }
            }
        };
        if !visit_term_candidates(cache, first, &mut visit) {
            visit_all(cache, &mut visit);
        }
    }
    for t in &terms.anti_affinity {
        if let Some(counts) = term_counts(cache, t) {
            match (t.topology_key, counts) {
                // One domain per node (hostname): Filter reads one entry per node, no hash.
                (Some(key), Some(counts)) if cache.domains().is_unique(key) => {
                    anti.add_node_counts(key, counts.by_node(), Some(cache.domains()))
                }
                (Some(key), Some(counts)) => anti.add_all(key, counts.by_id()),
                _ => {}
            }
            continue;
        }
        let mut visit = |p: &AssignedPod, node: &NodeInfo| {
            if t.matches(&p.namespace, &p.labels, no_labels()) {
                anti.update(node, t.topology_key, 1);
            }
        };
        if !visit_term_candidates(cache, t, &mut visit) {
            visit_all(cache, &mut visit);
        }
    }

    if existing.is_empty() && terms.affinity.is_empty() && terms.anti_affinity.is_empty() {
        return PreFilterOutcome::Skip;
    }
    *state = Some(Box::new(PreFilterState {
        existing_anti_affinity_counts: existing,
        affinity_counts: affinity,
        anti_affinity_counts: anti,
        terms: Arc::new(terms),
        namespace_labels: ns_labels,
    }));
    PreFilterOutcome::Continue
}

/// Copy for preemption (terms shared).
pub(crate) fn clone_state(state: &PluginState) -> PluginState {
    state_as::<PreFilterState>(state).map(|s| Box::new(s.clone()) as Box<dyn std::any::Any + Send>)
}

/// `preFilterState.updateWithPod`.
pub(crate) fn update_with_pod(state: &mut PluginState, pod: &PodInfo, updated: &AssignedPod, node: &NodeInfo, delta: i64) {
    let Some(s) = state.as_mut().and_then(|b| b.downcast_mut::<PreFilterState>()) else { return };
    if updated.has_pod_affinity_terms() {
        let updated_terms = PodTerms::of_assigned(updated);
        for t in &updated_terms.required_anti_affinity {
            if t.matches(&pod.namespace, &pod.labels, &s.namespace_labels) {
                s.existing_anti_affinity_counts.update(node, t.topology_key, delta);
            }
        }
    }
    if matches_all(&s.terms.affinity, &updated.namespace, &updated.labels) {
        for t in &s.terms.affinity {
            s.affinity_counts.update(node, t.topology_key, delta);
        }
    }
    for t in &s.terms.anti_affinity {
        if t.matches(&updated.namespace, &updated.labels, no_labels()) {
            s.anti_affinity_counts.update(node, t.topology_key, delta);
        }
    }
}

/// `satisfyPodAffinity`, including the "first pod of a group" rule: when no pod in the cluster
/// matches the terms yet, a pod matching its own terms may go to any node with the keys.
fn satisfies_pod_affinity(d: &Domains, s: &PreFilterState, pod: &PodInfo, node: &NodeInfo) -> bool {
    let mut pods_exist = true;
    for t in &s.terms.affinity {
        let Some((key, value)) = t.topology_key.and_then(|k| Some((k, d.node_value(k, node.id)?))) else {
            // All topology labels must exist on the node.
            return false;
        };
        if s.affinity_counts.get(key, value) <= 0 {
            pods_exist = false;
        }
    }
    pods_exist || (s.affinity_counts.is_empty() && matches_all(&s.terms.affinity, &pod.namespace, &pod.labels))
}

/// `satisfyPodAntiAffinity`.
fn satisfies_pod_anti_affinity(d: &Domains, s: &PreFilterState, node: &NodeInfo) -> bool {
    let counts = &s.anti_affinity_counts;
    if counts.is_empty() {
        return true;
    }
    // Keys counted per node are counted only on nodes with the key: a positive entry is a
    // term's domain (this node) holding a match.
    if counts.positive_on_node(node.id) {
        return false;
    }
    !s.terms.anti_affinity.iter().any(|t| match t.topology_key.and_then(|k| Some((k, d.node_value(k, node.id)?))) {
        Some((key, id)) if !counts.is_per_node(key) => counts.get(key, id) > 0,
        _ => false,
    })
}

/// Filter (`d`: the cache's value ids, which the counts are keyed by).
pub(crate) fn filter(d: &Domains, pod: &PodInfo, node: &NodeInfo, state: &PluginState) -> Result<(), Rejection> {
    let Some(s) = state_as::<PreFilterState>(state) else {
        return Err(Rejection::error(texts::PRE_FILTER_STATE_MISSING));
    };
    filter_with(d, s, pod, node)
}

/// [`filter`] over many nodes, the state downcast once.
pub(crate) fn filter_all(
    d: &Domains,
    pod: &PodInfo,
    nodes: &[&NodeInfo],
    state: &PluginState,
    out: &mut crate::core::framework::plugins::Rejections,
) {
    use crate::core::framework::plugins::reject_each;
    match state_as::<PreFilterState>(state) {
        Some(s) => reject_each(nodes, out, |node| filter_with(d, s, pod, node)),
        None => reject_each(nodes, out, |node| filter(d, pod, node, state)),
    }
}

/// [`filter`] with the state at hand.
#[inline(always)]
fn filter_with(d: &Domains, s: &PreFilterState, pod: &PodInfo, node: &NodeInfo) -> Result<(), Rejection> {
    if !satisfies_pod_affinity(d, s, pod, node) {
        return Err(Rejection::unresolvable(ERR_REASON_AFFINITY_RULES_NOT_MATCH));
    }
    if !satisfies_pod_anti_affinity(d, s, node) {
        return Err(Rejection::unschedulable(ERR_REASON_ANTI_AFFINITY_RULES_NOT_MATCH));
    }
    if s.existing_anti_affinity_counts.any_positive_on(d, node) {
        return Err(Rejection::unschedulable(ERR_REASON_EXISTING_ANTI_AFFINITY_RULES_NOT_MATCH));
    }
    Ok(())
}
