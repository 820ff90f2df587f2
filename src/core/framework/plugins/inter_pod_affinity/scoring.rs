//! InterPodAffinity PreScore/Score/NormalizeScore
//! (pkg/scheduler/framework/plugins/interpodaffinity/scoring.go).
//!
//! PreScore sums, per topology pair of the nodes hosting existing pods: the incoming pod's
//! preferred affinity (+weight) and anti-affinity (−weight) terms matched by existing pods, the
//! existing pods' required affinity terms matched by the incoming pod (+hardPodAffinityWeight),
//! and their preferred affinity/anti-affinity terms matched by the incoming pod (±weight).
//! Score adds up the pairs of a node; NormalizeScore maps min..max onto 0..100.

use super::filtering::{namespace_labels, no_labels, resolve_namespaces, term_counts, visit_all, visit_term_candidates};
use crate::core::cache::affinity_terms::{AffinityTerm, PodTerms};
use crate::core::cache::domains::{Column, Domains};
use crate::core::cache::tally::Counts;
use crate::core::cache::term_groups::TermKind;
use crate::core::cache::{AssignedPod, Cache, NodeInfo};
use crate::core::config::InterPodAffinityArgs;
use crate::core::framework::{state_as, PluginState, PreScoreOutcome, Rejection, MAX_NODE_SCORE};
// Unseeded: keyed by interned topology keys (hashed by address) and the cache's value ids.
use crate::core::fxhash::FxHashMap as HashMap;
use crate::core::intern::Name;
use crate::core::labels::KeyResolution;
use crate::core::model::{Labels, PodInfo};

/// `scoreMap`: topology key → value → score, values by the cache's value ids
/// ([`crate::core::cache::domains`]), so Score compares a node's id instead of hashing its label.
type ScoreMap = HashMap<Name, HashMap<u32, i64>>;

/// `preScoreState`.
#[derive(Debug)]
pub(crate) struct PreScoreState {
    pub topology_score: ScoreMap,
    /// The scores of keys whose every value is on one node ([`Domains::is_unique`],
    /// `kubernetes.io/hostname`), summed per node id instead of kept per value in
    /// `topology_score` (a map as large as the cluster); empty when there are none. Filled
    /// for the nodes PreScore was given.
    pub node_scores: Vec<i64>,
    /// Some pair was scored through `node_scores` (upstream's map would not be empty).
    pub node_pairs: bool,
    /// Why the incoming pod's terms do not parse: upstream's PreScore fails with an Error
    /// status; here Score reports it so the cycle fails the same way.
    pub error: Option<String>,
}

/// `processTerm`: add `weight` to the pair of the existing pod's node when `term` matches the
/// pod (`namespace`, `labels`, namespace labels `ns_labels`).
fn process_term(
    m: &mut ScoreMap,
    term: &AffinityTerm,
    weight: i64,
    namespace: &str,
    labels: &Labels,
    ns_labels: &Labels,
    node: &NodeInfo,
) {
    if !term.matches(namespace, labels, ns_labels) {
        return;
    }
    let Some(key) = term.topology_key else { return };
    let Some(id) = node.value_id(key) else { return };
    add_score(m, key, id, weight);
}

/// Add `weight` to the pair (key, value id), creating it.
fn add_score(m: &mut ScoreMap, key: Name, id: u32, weight: i64) {
    *m.entry(key).or_default().entry(id).or_insert(0) += weight;
}

/// Add `weight × n` for every (value id, n) of a tally or term group.
fn add_scores(m: &mut ScoreMap, key: Name, weight: i64, counts: &HashMap<u32, i64>) {
    if counts.is_empty() {
        return;
    }
    let inner = m.entry(key).or_default();
    inner.reserve(counts.len());
    for (id, n) in counts {
        *inner.entry(*id).or_insert(0) += weight * n;
    }
}

/// What PreScore knows about the incoming pod.
struct Incoming<'a> {
    pod: &'a PodInfo,
    terms: PodTerms,
    ns_labels: &'a Labels,
    hard_weight: i64,
}

/// `processExistingPod`, the existing pod's side: its required affinity terms (weighted by
/// `hardPodAffinityWeight`) and preferred terms matched by the incoming pod.
fn process_existing_terms(m: &mut ScoreMap, inc: &Incoming, et: &PodTerms, node: &NodeInfo) {
    if node.node.labels.is_empty() {
        return;
    }
    let (ns, labels) = (&*inc.pod.namespace, &inc.pod.labels);
    if inc.hard_weight > 0 {
        for t in &et.required_affinity {
            process_term(m, t, inc.hard_weight, ns, labels, inc.ns_labels, node);
        }
    }
    for (w, t) in &et.preferred_affinity {
        process_term(m, t, i64::from(*w), ns, labels, inc.ns_labels, node);
    }
    for (w, t) in &et.preferred_anti_affinity {
        process_term(m, t, -i64::from(*w), ns, labels, inc.ns_labels, node);
    }
}

/// Scores summed per node id for keys with one value per node (see
/// [`PreScoreState::node_scores`]), for the nodes being scored.
struct NodeScores<'a> {
    nodes: &'a [&'a NodeInfo],
    bound: usize,
    scores: Vec<i64>,
    pairs: bool,
}

impl NodeScores<'_> {
    fn slots(&mut self) -> &mut Vec<i64> {
        if self.scores.is_empty() {
            self.scores = vec![0; self.bound];
        }
        &mut self.scores
    }

    /// Per-node counts of a unique key (a tally's matching pods, or a term group's holders)
    /// times `weight`, for the nodes being scored that carry the key (a node's domain count is
    /// its own count). `column` says which nodes carry it when the counts may include others
    /// (a tally counts pods on nodes without the key; a group's holders are only on nodes with
    /// it: `None`).
    fn add_counts(&mut self, column: Option<Column>, weight: i64, counts: &Counts) {
        if counts.by_id().is_empty() {
            return;
        }
        self.pairs = true;
        let nodes = self.nodes;
        let slots = self.slots();
        for n in nodes {
            if column.is_none_or(|c| c.get(n.id).is_some()) {
                if let Some(slot) = slots.get_mut(n.id as usize) {
                    *slot += weight * counts.on_node(n.id);
                }
            }
        }
    }
}

/// `processExistingPod`, the incoming pod's side: one preferred term against the existing pods
/// it may match (found through the label index when possible).
fn process_incoming_term(m: &mut ScoreMap, dense: &mut NodeScores, cache: &Cache, term: &AffinityTerm, weight: i64) {
    if let Some(counts) = term_counts(cache, term) {
        // The cache's tally: `n` matching pods on nodes with value `v`.
        if let (Some(key), Some(counts)) = (term.topology_key, counts) {
            match cache.domains().column(key).filter(|c| c.unique()) {
                Some(column) => dense.add_counts(Some(column), weight, counts),
                None => add_scores(m, key, weight, counts.by_id()),
            }
        }
        return;
    }
    let mut visit = |p: &AssignedPod, node: &NodeInfo| {
        if !node.node.labels.is_empty() {
            process_term(m, term, weight, &p.namespace, &p.labels, no_labels(), node);
        }
    };
    if !visit_term_candidates(cache, term, &mut visit) {
        visit_all(cache, &mut visit);
    }
}

/// PreScore: Skip when nothing can contribute.
pub(crate) fn pre_score(
    args: &InterPodAffinityArgs,
    cache: &Cache,
    pod: &PodInfo,
    nodes: &[&NodeInfo],
    state: &mut PluginState,
) -> PreScoreOutcome {
    if nodes.is_empty() {
        return PreScoreOutcome::Skip;
    }
    let affinity = pod.affinity.as_deref();
    let has_preferred_affinity = affinity.and_then(|a| a.pod_affinity.as_ref()).is_some_and(|p| !p.preferred.is_empty());
    let has_preferred_anti = affinity.and_then(|a| a.pod_anti_affinity.as_ref()).is_some_and(|p| !p.preferred.is_empty());
    let has_constraints = has_preferred_affinity || has_preferred_anti;
    if args.ignore_preferred_terms_of_existing_pods && !has_constraints {
        return PreScoreOutcome::Skip;
    }
    if !has_constraints && cache.pod_index().is_empty() {
        // Nothing can contribute (upstream reaches the same Skip after an empty walk).
        return PreScoreOutcome::Skip;
    }
    let (mut terms, errors) = PodTerms::of_pod(affinity, &pod.namespace, &pod.labels, KeyResolution::Lookup);
    if !errors.is_empty() {
        let error = Some(format!("failed to parse pod: {}", errors.join(", ")));
        *state = Some(Box::new(PreScoreState {
            topology_score: ScoreMap::default(),
            node_scores: Vec::new(),
            node_pairs: false,
            error,
        }));
        return PreScoreOutcome::Run;
    }
    resolve_namespaces(
        cache,
        terms.preferred_affinity.iter_mut().chain(terms.preferred_anti_affinity.iter_mut()).map(|(_, t)| t),
    );
    let ns_labels = namespace_labels(cache, pod);
    let inc = Incoming { pod, terms, ns_labels: &ns_labels, hard_weight: i64::from(args.hard_pod_affinity_weight) };
    let mut m = ScoreMap::default();
    let mut dense = NodeScores { nodes, bound: cache.node_id_bound(), scores: Vec::new(), pairs: false };
    for (w, t) in &inc.terms.preferred_affinity {
        process_incoming_term(&mut m, &mut dense, cache, t, i64::from(*w));
    }
    for (w, t) in &inc.terms.preferred_anti_affinity {
        process_incoming_term(&mut m, &mut dense, cache, t, -i64::from(*w));
    }
    // Only pods with affinity terms contribute from their side; the cache's groups of identical
    // terms stand for their holders.
    if let Some(groups) = cache.term_groups() {
        for g in groups {
            let w = match g.kind {
                TermKind::RequiredAffinity if inc.hard_weight > 0 => inc.hard_weight,
                TermKind::PreferredAffinity => i64::from(g.weight),
                TermKind::PreferredAntiAffinity => -i64::from(g.weight),
                _ => continue,
            };
            let Some(key) = g.term.topology_key else { continue };
            if g.term.matches(&pod.namespace, &pod.labels, &ns_labels) {
                if cache.domains().is_unique(key) {
                    dense.add_counts(None, w, &g.counts);
                } else {
                    add_scores(&mut m, key, w, g.counts.by_id());
                }
            }
        }
    } else {
        for ip in cache.pod_index().pods() {
            let Some(node) = cache.node_by_name(&ip.pod.node_name) else { continue };
            process_existing_terms(&mut m, &inc, &ip.terms, node);
        }
    }
    if m.is_empty() && !dense.pairs {
        return PreScoreOutcome::Skip;
    }
    *state = Some(Box::new(PreScoreState { topology_score: m, node_scores: dense.scores, node_pairs: dense.pairs, error: None }));
    PreScoreOutcome::Run
}

/// Score: the sum of each node's topology pairs (`d`: the cache's value ids), into `out`.
pub(crate) fn score_all(d: &Domains, nodes: &[&NodeInfo], state: &PluginState, out: &mut [i64]) -> Result<(), Rejection> {
    if nodes.is_empty() {
        return Ok(());
    }
    let Some(s) = state_as::<PreScoreState>(state) else {
        return Err(Rejection::error(crate::core::texts::inter_pod_affinity::PRE_SCORE_STATE_MISSING));
    };
    if let Some(e) = &s.error {
        return Err(Rejection::error(e.clone()));
    }
    // Each key's column looked up once for all nodes; keys on no node add nothing.
    let pairs: Vec<_> = s.topology_score.iter().filter_map(|(key, values)| Some((d.column(*key)?, values))).collect();
    let per_node = s.node_scores.as_slice();
    for (o, node) in out.iter_mut().zip(nodes) {
        let mut score = per_node.get(node.id as usize).copied().unwrap_or(0);
        for (column, values) in &pairs {
            if let Some(id) = column.get(node.id) {
                score += values.get(&id).copied().unwrap_or(0);
            }
        }
        *o = score;
    }
    Ok(())
}

/// `Score` as upstream computes it: the node's label value of each key looked up in the map
/// (the reference for [`score_all`]).
#[cfg(test)]
pub(crate) fn reference_score(cache: &Cache, node: &NodeInfo, state: &PluginState) -> i64 {
    let s = state_as::<PreScoreState>(state).expect("prescore state");
    let mut score = s.node_scores.get(node.id as usize).copied().unwrap_or(0);
    for (key, values) in &s.topology_score {
        let Some(value) = node.node.labels.get(*key) else { continue };
        let id = cache.domains().id(*key, value).expect("a value some node carries has an id");
        score += values.get(&id).copied().unwrap_or(0);
    }
    score
}

/// NormalizeScore: `int64(100·(s−min)/(max−min))`, all 0 when max == min.
pub(crate) fn normalize(scores: &mut [i64], state: &PluginState) {
    match state_as::<PreScoreState>(state) {
        Some(s) if !s.topology_score.is_empty() || s.node_pairs => {}
        _ => return,
    }
    let min = scores.iter().copied().min().unwrap_or(0);
    let max = scores.iter().copied().max().unwrap_or(0);
    let diff = max - min;
    for s in scores.iter_mut() {
        let f = if diff > 0 { MAX_NODE_SCORE as f64 * ((*s - min) as f64 / diff as f64) } else { 0.0 };
        *s = f as i64;
    }
}
