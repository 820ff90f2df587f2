//! PodTopologySpread PreScore/Score/NormalizeScore
//! (pkg/scheduler/framework/plugins/podtopologyspread/scoring.go).
//!
//! PreScore finds the domains of the feasible nodes for each `ScheduleAnyway` constraint and
//! counts matching pods in them over all nodes; hostname domains are counted per node at Score.
//! A node scores `Σ count·log(domains+2) + (maxSkew−1)`; fewer matching pods is better after
//! normalisation. Nodes missing a topology key (unless system-defaulted) are ignored and get 0.

use super::filtering::by_value_id;
use super::{action, count_matching, node_has_all_keys, tallies_for, Constraint, PodTopologySpread};
use crate::core::cache::domains::Domains;
use crate::core::cache::{Cache, NodeId, NodeInfo};
use crate::core::framework::plugins::helper::RequiredNodeAffinity;
use crate::core::framework::{state_as, PluginState, PreScoreOutcome, Rejection, MAX_NODE_SCORE};
// Unseeded: keyed by nodes' topology label values (set by administrators and kubelets), node ids
// and the cache's value ids.
use crate::core::fxhash::{FxHashMap as HashMap, FxHashSet};
use crate::core::model::PodInfo;

/// `invalidScore`: the raw score of ignored nodes, turned into 0 by normalisation.
const INVALID_SCORE: i64 = -1;

/// `preScoreState`.
#[derive(Debug)]
pub(crate) struct PreScoreState {
    pub constraints: Vec<Constraint>,
    pub ignored_nodes: FxHashSet<NodeId>,
    pub topology_value_to_pod_counts: Vec<HashMap<Box<str>, i64>>,
    /// `topology_value_to_pod_counts` keyed by the cache's value ids, what Score reads.
    pub counts_by_id: Vec<HashMap<u32, i64>>,
    pub topology_normalizing_weight: Vec<f64>,
    /// Per hostname constraint: matching pods per node id, when the label index could count
    /// them in PreScore (otherwise Score counts the node's pods).
    pub host_counts: Vec<Option<Vec<i64>>>,
    /// Why the constraints do not parse (upstream: PreScore error); reported by Score.
    pub error: Option<String>,
}

/// `topologyNormalizingWeight`.
pub(crate) fn topology_normalizing_weight(size: usize) -> f64 {
    ((size + 2) as f64).ln()
}

/// `scoreForCount`.
fn score_for_count(cnt: i64, max_skew: i32, weight: f64) -> f64 {
    cnt as f64 * weight + f64::from(max_skew - 1)
}

/// PreScore: Skip when the pod has no `ScheduleAnyway` constraints (own or default).
pub(crate) fn pre_score(
    pl: &PodTopologySpread,
    cache: &Cache,
    pod: &PodInfo,
    nodes: &[&NodeInfo],
    state: &mut PluginState,
) -> PreScoreOutcome {
    if cache.num_nodes() == 0 {
        return PreScoreOutcome::Skip;
    }
    // Only require every topology key on the nodes for non-system-default rules, so nodes
    // without a zone label still get hostname spreading.
    let require_all = !pod.topology_spread_constraints.is_empty() || !pl.system_defaulted;
    let constraints = match pl.constraints(cache, pod, action::SCHEDULE_ANYWAY) {
        Ok(c) => c,
        Err(e) => {
            *state = Some(Box::new(PreScoreState {
                constraints: Vec::new(),
                ignored_nodes: FxHashSet::default(),
                topology_value_to_pod_counts: Vec::new(),
                counts_by_id: Vec::new(),
                topology_normalizing_weight: Vec::new(),
                host_counts: Vec::new(),
                error: Some(format!("calculating preScoreState: {e}")),
            }));
            return PreScoreOutcome::Run;
        }
    };
    if constraints.is_empty() {
        return PreScoreOutcome::Skip;
    }
    let mut s = PreScoreState {
        ignored_nodes: FxHashSet::default(),
        topology_value_to_pod_counts: vec![HashMap::default(); constraints.len()],
        counts_by_id: Vec::new(),
        topology_normalizing_weight: Vec::with_capacity(constraints.len()),
        host_counts: vec![None; constraints.len()],
        constraints,
        error: None,
    };
    // The nodes' values by the cache's value ids (a node has an id for a key exactly when its
    // labels have the key): per constraint, the first node carrying each value, and whether a
    // node without the key counts (value "").
    let columns: Vec<_> = s.constraints.iter().map(|c| c.topology_key.and_then(|k| cache.domains().column(k))).collect();
    // (The node index kept as i64: the map type the counts use, no other instantiation.)
    let mut first: Vec<HashMap<u32, i64>> = vec![HashMap::default(); s.constraints.len()];
    let mut keyless = vec![false; s.constraints.len()];
    for (k, n) in nodes.iter().enumerate() {
        if require_all && !columns.iter().all(|col| col.and_then(|col| col.get(n.id)).is_some()) {
            s.ignored_nodes.insert(n.id);
            continue;
        }
        for (i, c) in s.constraints.iter().enumerate() {
            if c.is_hostname {
                continue;
            }
            match columns[i].and_then(|col| col.get(n.id)) {
                Some(id) => {
                    first[i].entry(id).or_insert(k as i64);
                }
                None => keyless[i] = true,
            }
        }
    }
    for (i, c) in s.constraints.iter().enumerate() {
        let values = &mut s.topology_value_to_pod_counts[i];
        let labels = first[i].values().filter_map(|&k| nodes.get(k as usize)).map(|n| &n.node.labels);
        for value in labels.map(|l| c.value(l).unwrap_or("")).chain(keyless[i].then_some("")) {
            if !values.contains_key(value) {
                values.insert(value.into(), 0);
            }
        }
        let size = if c.is_hostname { nodes.len() - s.ignored_nodes.len() } else { values.len() };
        s.topology_normalizing_weight.push(topology_normalizing_weight(size));
    }

    let bound = cache.node_id_bound();
    if let Some(tallies) = tallies_for(cache, pod, &s.constraints) {
        // Every node is eligible: the cache's counts per value (and per node) are the sums.
        for (i, t) in tallies.iter().enumerate() {
            // A key on no node: Score never reads this constraint's counts.
            let Some(t) = t else { continue };
            if s.constraints[i].is_hostname {
                let mut host = vec![0i64; bound];
                for n in nodes {
                    host[n.id as usize] = t.on_node(n.id);
                }
                s.host_counts[i] = Some(host);
            } else {
                for (v, slot) in s.topology_value_to_pod_counts[i].iter_mut() {
                    *slot = s.constraints[i].topology_key.and_then(|k| cache.domains().id(k, v)).map_or(0, |id| t.on_id(id));
                }
            }
        }
        s.counts_by_id = by_value_id(cache.domains(), &s.constraints, &s.topology_value_to_pod_counts);
        *state = Some(Box::new(s));
        return PreScoreOutcome::Run;
    }
    let required = RequiredNodeAffinity::of_pod(&pod.node_selector, pod.affinity.as_deref());
    let n = s.constraints.len();
    // eligible[node id * n + i]: the node's pods count towards constraint i's domains.
    let mut eligible = vec![false; bound * n];
    for node in cache.nodes() {
        if require_all && !node_has_all_keys(&node.node.labels, &s.constraints) {
            continue;
        }
        for (i, c) in s.constraints.iter().enumerate() {
            if c.includes(pod, &node.node, &required) {
                eligible[node.id as usize * n + i] = true;
            }
        }
    }
    for i in 0..n {
        let c = &s.constraints[i];
        match cache.pod_index().candidates(&pod.namespace, &c.selector) {
            Some(candidates) => {
                let mut host = c.is_hostname.then(|| vec![0i64; bound]);
                for p in candidates {
                    if p.terminating || !c.selector.matches(&p.labels) {
                        continue;
                    }
                    let Some(node) = cache.node_by_name(&p.node_name) else { continue };
                    if let Some(h) = host.as_mut() {
                        h[node.id as usize] += 1;
                    }
                    if !eligible[node.id as usize * n + i] {
                        continue;
                    }
                    let value = c.value(&node.node.labels).unwrap_or("");
                    // Domains without a feasible node (and hostname domains) are not counted.
                    if let Some(slot) = s.topology_value_to_pod_counts[i].get_mut(value) {
                        *slot += 1;
                    }
                }
                s.host_counts[i] = host;
            }
            None => {
                for node in cache.nodes() {
                    if !eligible[node.id as usize * n + i] {
                        continue;
                    }
                    let value = c.value(&node.node.labels).unwrap_or("");
                    let Some(slot) = s.topology_value_to_pod_counts[i].get_mut(value) else { continue };
                    *slot += count_matching(&node.pods, &c.selector, &pod.namespace);
                }
            }
        }
    }
    s.counts_by_id = by_value_id(cache.domains(), &s.constraints, &s.topology_value_to_pod_counts);
    *state = Some(Box::new(s));
    PreScoreOutcome::Run
}

/// Score: each node's weighted matching-pod count of its domains (ignored nodes: −1, see
/// [`normalize`]; `d`: the cache's value ids, read for the nodes' values), into `out`.
pub(crate) fn score_all(
    d: &Domains,
    pod: &PodInfo,
    nodes: &[&NodeInfo],
    state: &PluginState,
    out: &mut [i64],
) -> Result<(), Rejection> {
    if nodes.is_empty() {
        return Ok(());
    }
    let Some(s) = state_as::<PreScoreState>(state) else {
        return Err(Rejection::error(crate::core::texts::pod_topology_spread::PRE_SCORE_STATE_MISSING));
    };
    if let Some(e) = &s.error {
        return Err(Rejection::error(e.clone()));
    }
    // Each constraint's key column looked up once for all nodes.
    let columns: Vec<_> = s.constraints.iter().map(|c| c.topology_key.and_then(|k| d.column(k))).collect();
    // Slices, not `Vec`s, are indexed per node: opt-level "z" leaves `Vec`'s indexing a call.
    let (columns, host_counts, counts_by_id, weights) =
        (columns.as_slice(), s.host_counts.as_slice(), s.counts_by_id.as_slice(), s.topology_normalizing_weight.as_slice());
    for (o, node) in out.iter_mut().zip(nodes) {
        if s.ignored_nodes.contains(&node.id) {
            *o = INVALID_SCORE;
            continue;
        }
        let mut score = 0f64;
        for (i, c) in s.constraints.iter().enumerate() {
            let Some(id) = columns[i].and_then(|col| col.get(node.id)) else { continue };
            let cnt = if c.is_hostname {
                match &host_counts[i] {
                    Some(h) => h.get(node.id as usize).copied().unwrap_or(0),
                    None => count_matching(&node.pods, &c.selector, &pod.namespace),
                }
            } else {
                counts_by_id[i].get(&id).copied().unwrap_or(0)
            };
            score += score_for_count(cnt, c.max_skew, weights[i]);
        }
        *o = score.round() as i64;
    }
    Ok(())
}

/// NormalizeScore: `100·(max+min−s)/max` over non-ignored nodes, 100 each when max is 0, and 0
/// for ignored nodes.
pub(crate) fn normalize(scores: &mut [i64]) {
    let mut min = i64::MAX;
    let mut max = 0i64;
    for &s in scores.iter() {
        if s == INVALID_SCORE {
            continue;
        }
        min = min.min(s);
        max = max.max(s);
    }
    for s in scores.iter_mut() {
        if *s == INVALID_SCORE {
            *s = 0;
        } else if max == 0 {
            *s = MAX_NODE_SCORE;
        } else {
            *s = MAX_NODE_SCORE * (max + min - *s) / max;
        }
    }
}
