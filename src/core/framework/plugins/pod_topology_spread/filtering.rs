//! PodTopologySpread PreFilter/Filter and the preemption what-if extensions
//! (pkg/scheduler/framework/plugins/podtopologyspread/filtering.go).
//!
//! PreFilter counts, per `DoNotSchedule` constraint, the pods matching the constraint's selector
//! in every topology domain of the eligible nodes, and keeps the two smallest domains ("critical
//! paths"). Filter then checks `matchNum + selfMatch - globalMin <= maxSkew` with map lookups only.

use super::{action, count_matching, node_has_all_keys, tallies_for, Constraint, PodTopologySpread};
use crate::core::cache::domains::Domains;
use crate::core::cache::{AssignedPod, Cache, NodeInfo};
use crate::core::framework::plugins::helper::RequiredNodeAffinity;
use crate::core::framework::{state_as, PluginState, PreFilterOutcome, Rejection};
// Unseeded: keyed by nodes' topology label values (set by administrators and kubelets) and by
// the cache's value ids.
use crate::core::fxhash::FxHashMap as HashMap;
use crate::core::model::PodInfo;
use crate::core::texts::pod_topology_spread::{self as texts, ERR_REASON_CONSTRAINTS_NOT_MATCH, ERR_REASON_NODE_LABEL_NOT_MATCH};
use std::sync::Arc;

/// `criticalPaths`: two domains, `[0]` always holding the minimum match count.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct CriticalPaths([(Box<str>, i64); 2]);

impl CriticalPaths {
    fn new() -> CriticalPaths {
        CriticalPaths([("".into(), i64::from(i32::MAX)), ("".into(), i64::from(i32::MAX))])
    }

    /// `criticalPaths.update`.
    fn update(&mut self, value: &str, num: i64) {
        let p = &mut self.0;
        let i = if *p[0].0 == *value {
            Some(0)
        } else if *p[1].0 == *value {
            Some(1)
        } else {
            None
        };
        match i {
            Some(i) => {
                p[i].1 = num;
                if p[0].1 > p[1].1 {
                    p.swap(0, 1);
                }
            }
            None => {
                if num < p[0].1 {
                    p[1] = p[0].clone();
                    p[0] = (value.into(), num);
                } else if num < p[1].1 {
                    p[1] = (value.into(), num);
                }
            }
        }
    }

    /// The two smallest domains of `counts`, ties going to the smaller value, so that the
    /// paths (which preemption's what-if updates approximately, as upstream) do not depend on
    /// the map's iteration order. Upstream iterates a Go map: any tie order is upstream's.
    fn of(counts: &HashMap<Box<str>, i64>) -> CriticalPaths {
        let mut p = CriticalPaths::new();
        for (v, n) in counts {
            let cand = (*n, &**v);
            if cand < (p.0[0].1, &*p.0[0].0) {
                p.0[1] = std::mem::replace(&mut p.0[0], (v.clone(), *n));
            } else if cand < (p.0[1].1, &*p.0[1].0) {
                p.0[1] = (v.clone(), *n);
            }
        }
        p
    }

    pub fn min(&self) -> i64 {
        self.0[0].1
    }
}

/// `preFilterState`.
#[derive(Debug, Clone)]
pub(crate) struct PreFilterState {
    pub constraints: Arc<Vec<Constraint>>,
    pub critical_paths: Vec<CriticalPaths>,
    pub tp_value_to_match_num: Vec<HashMap<Box<str>, i64>>,
    /// The incoming pod's nodeSelector + required node affinity (nodeAffinityPolicy: Honor).
    pub required: Arc<RequiredNodeAffinity>,
    /// Per constraint, 1 when its selector matches the incoming pod (`selfMatchNum`), computed
    /// once per cycle rather than per node.
    pub self_match: Vec<i64>,
    /// `tp_value_to_match_num` keyed by the cache's value ids ([`crate::core::cache::domains`]),
    /// so Filter compares a node's id instead of hashing its label value.
    pub match_by_id: Vec<HashMap<u32, i64>>,
}

/// The counts of each constraint keyed by value id instead of value (values no node carries,
/// like the `""` of nodes without the key, have no id and no node reads them).
pub(crate) fn by_value_id(
    domains: &Domains,
    constraints: &[Constraint],
    counts: &[HashMap<Box<str>, i64>],
) -> Vec<HashMap<u32, i64>> {
    constraints
        .iter()
        .zip(counts)
        .map(|(c, m)| match c.topology_key {
            Some(k) => m.iter().filter_map(|(v, n)| Some((domains.id(k, v)?, *n))).collect(),
            None => HashMap::default(),
        })
        .collect()
}

impl PreFilterState {
    fn new(
        domains: &Domains,
        pod: &PodInfo,
        constraints: Vec<Constraint>,
        tp: Vec<HashMap<Box<str>, i64>>,
        required: Arc<RequiredNodeAffinity>,
    ) -> PreFilterState {
        let critical_paths = tp.iter().map(CriticalPaths::of).collect();
        let self_match = constraints.iter().map(|c| i64::from(c.selector.matches(&pod.labels))).collect();
        let match_by_id = by_value_id(domains, &constraints, &tp);
        PreFilterState {
            constraints: Arc::new(constraints),
            critical_paths,
            tp_value_to_match_num: tp,
            required,
            self_match,
            match_by_id,
        }
    }

    /// `minMatchNum`: the global minimum, 0 while fewer than `minDomains` domains exist.
    pub fn min_match_num(&self, i: usize, min_domains: i32) -> i64 {
        if self.tp_value_to_match_num[i].len() < usize::try_from(min_domains).unwrap_or(0) {
            0
        } else {
            self.critical_paths[i].min()
        }
    }
}

fn add_count(map: &mut HashMap<Box<str>, i64>, value: &str, delta: i64) -> i64 {
    match map.get_mut(value) {
        Some(n) => {
            *n += delta;
            *n
        }
        None => {
            map.insert(value.into(), delta);
            delta
        }
    }
}

/// `calPreFilterState` over every node of the snapshot. Domains are registered from the nodes;
/// matching pods are counted from the cache's label index when the selector allows it (the same
/// sums as walking every node's pods, which remains the fallback).
pub(crate) fn compute_state(pod: &PodInfo, constraints: Vec<Constraint>, cache: &Cache) -> PreFilterState {
    let required = Arc::new(RequiredNodeAffinity::of_pod(&pod.node_selector, pod.affinity.as_deref()));
    if let Some(tallies) = tallies_for(cache, pod, &constraints) {
        // Every node is eligible: the domains are all values of each key, counted by the cache;
        // with a key on no node, no node has every key and there is no domain at all.
        let none_eligible = tallies.iter().any(Option::is_none);
        let tp: Vec<HashMap<Box<str>, i64>> = constraints
            .iter()
            .zip(&tallies)
            .map(|(c, t)| match (c.topology_key, t) {
                (Some(k), Some(t)) if !none_eligible => {
                    cache.domains().values(k).map(|(v, id)| (Box::from(v), t.on_id(id))).collect()
                }
                _ => HashMap::default(),
            })
            .collect();
        return PreFilterState::new(cache.domains(), pod, constraints, tp, required);
    }
    let mut tp: Vec<HashMap<Box<str>, i64>> = vec![HashMap::default(); constraints.len()];
    // eligible[node id * n + i]: the node counts for constraint i.
    let n = constraints.len();
    let mut eligible = vec![false; cache.node_id_bound() * n];
    for node in cache.nodes() {
        let labels = &node.node.labels;
        if !node_has_all_keys(labels, &constraints) {
            continue;
        }
        for (i, c) in constraints.iter().enumerate() {
            if !c.includes(pod, &node.node, &required) {
                continue;
            }
            let Some(value) = c.value(labels) else { continue };
            add_count(&mut tp[i], value, 0);
            eligible[node.id as usize * n + i] = true;
        }
    }
    for (i, c) in constraints.iter().enumerate() {
        match cache.pod_index().candidates(&pod.namespace, &c.selector) {
            Some(candidates) => {
                for p in candidates {
                    if p.terminating || !c.selector.matches(&p.labels) {
                        continue;
                    }
                    let Some(node) = cache.node_by_name(&p.node_name) else { continue };
                    if !eligible[node.id as usize * n + i] {
                        continue;
                    }
                    if let Some(value) = c.value(&node.node.labels) {
                        add_count(&mut tp[i], value, 1);
                    }
                }
            }
            None => {
                for node in cache.nodes() {
                    if !eligible[node.id as usize * n + i] {
                        continue;
                    }
                    let Some(value) = c.value(&node.node.labels) else { continue };
                    let count = count_matching(&node.pods, &c.selector, &pod.namespace);
                    add_count(&mut tp[i], value, count);
                }
            }
        }
    }
    PreFilterState::new(cache.domains(), pod, constraints, tp, required)
}

/// PreFilter: Skip without `DoNotSchedule` constraints, otherwise count.
pub(crate) fn pre_filter(pl: &PodTopologySpread, cache: &Cache, pod: &PodInfo, state: &mut PluginState) -> PreFilterOutcome {
    let constraints = match pl.constraints(cache, pod, action::DO_NOT_SCHEDULE) {
        Ok(c) => c,
        Err(e) => return PreFilterOutcome::Reject(Rejection::error(texts::constraints_error(&e.to_string()))),
    };
    if constraints.is_empty() {
        return PreFilterOutcome::Skip;
    }
    *state = Some(Box::new(compute_state(pod, constraints, cache)));
    PreFilterOutcome::Continue
}

/// Deep copy for preemption (constraints shared).
pub(crate) fn clone_state(state: &PluginState) -> PluginState {
    state_as::<PreFilterState>(state).map(|s| Box::new(s.clone()) as Box<dyn std::any::Any + Send>)
}

/// `updateWithPod`: account a pod added to / removed from `node` during preemption's what-if.
pub(crate) fn update_with_pod(state: &mut PluginState, pod: &PodInfo, updated: &AssignedPod, node: &NodeInfo, delta: i64) {
    let Some(s) = state.as_mut().and_then(|b| b.downcast_mut::<PreFilterState>()) else { return };
    if *updated.namespace != *pod.namespace {
        return;
    }
    let labels = &node.node.labels;
    if !node_has_all_keys(labels, &s.constraints) {
        return;
    }
    let constraints = s.constraints.clone();
    for (i, c) in constraints.iter().enumerate() {
        if !c.selector.matches(&updated.labels) || !c.includes(pod, &node.node, &s.required) {
            continue;
        }
        let Some(value) = c.value(labels) else { continue };
        let n = add_count(&mut s.tp_value_to_match_num[i], value, delta);
        s.critical_paths[i].update(value, n);
        if let Some(id) = c.topology_key.and_then(|k| node.value_id(k)) {
            *s.match_by_id[i].entry(id).or_insert(0) += delta;
        }
    }
}

/// [`filter`] over many nodes: the state downcast, and each constraint's value column,
/// minimum and self-match read, once for the list.
pub(crate) fn filter_all(
    d: &Domains,
    nodes: &[&NodeInfo],
    state: &PluginState,
    out: &mut crate::core::framework::plugins::Rejections,
) {
    use crate::core::framework::plugins::reject_each;
    let Some(s) = state_as::<PreFilterState>(state) else {
        return reject_each(nodes, out, |node| filter(d, node, state));
    };
    // (column of the key, minimum, self-match, maxSkew, counts by value id) per constraint.
    let per: Vec<_> = s
        .constraints
        .iter()
        .enumerate()
        .map(|(i, c)| {
            let column = c.topology_key.and_then(|k| d.column(k));
            (column, s.min_match_num(i, c.min_domains), s.self_match[i], i64::from(c.max_skew), &s.match_by_id[i])
        })
        .collect();
    reject_each(nodes, out, |node| {
        for &(column, min, self_match, max_skew, by_id) in &per {
            let Some(id) = column.and_then(|c| c.get(node.id)) else {
                return Err(Rejection::unresolvable(ERR_REASON_NODE_LABEL_NOT_MATCH));
            };
            let match_num = by_id.get(&id).copied().unwrap_or(0);
            if match_num + self_match - min > max_skew {
                return Err(Rejection::unschedulable(ERR_REASON_CONSTRAINTS_NOT_MATCH));
            }
        }
        Ok(())
    })
}

/// Filter: every `DoNotSchedule` constraint must keep its skew within `maxSkew` (`d`: the
/// cache's value ids, read for the node's values).
pub(crate) fn filter(d: &Domains, node: &NodeInfo, state: &PluginState) -> Result<(), Rejection> {
    let Some(s) = state_as::<PreFilterState>(state) else {
        return Err(Rejection::error(texts::PRE_FILTER_STATE_MISSING));
    };
    for (i, c) in s.constraints.iter().enumerate() {
        let Some(id) = c.topology_key.and_then(|k| d.node_value(k, node.id)) else {
            return Err(Rejection::unresolvable(ERR_REASON_NODE_LABEL_NOT_MATCH));
        };
        let min = s.min_match_num(i, c.min_domains);
        let self_match = s.self_match[i];
        let match_num = s.match_by_id[i].get(&id).copied().unwrap_or(0);
        if match_num + self_match - min > i64::from(c.max_skew) {
            return Err(Rejection::unschedulable(ERR_REASON_CONSTRAINTS_NOT_MATCH));
        }
    }
    Ok(())
}
