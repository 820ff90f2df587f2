//! PodTopologySpread (pkg/scheduler/framework/plugins/podtopologyspread/{plugin.go,common.go}).
//!
//! Filter enforces the pod's `DoNotSchedule` constraints (`filtering.rs`); Score prefers nodes
//! that keep `ScheduleAnyway` constraints balanced (`scoring.rs`). A pod without constraints of
//! its own gets the plugin's default constraints (`defaultingType: System` → hostname maxSkew 3
//! and zone maxSkew 5, both ScheduleAnyway; `List` → `defaultConstraints` from the args), with a
//! selector built from the Services / ReplicationControllers / ReplicaSets / StatefulSets that
//! select it. Constraints are compiled once per pod per cycle (selectors with `matchLabelKeys`
//! merged, interned topology keys), so Filter and Score never allocate per node.

mod filtering;
pub(crate) mod scoring;
#[cfg(test)]
mod tests;

use crate::core::api;
use crate::core::cache::tally::{Counts, TallyKey};
use crate::core::cache::{AssignedPod, Cache, NodeInfo};
use crate::core::config::{DefaultingType, PluginArgs, PodTopologySpreadArgs};
use crate::core::framework::plugins::helper::RequiredNodeAffinity;
use crate::core::framework::plugins::taint_toleration::find_untolerated_taint;
use crate::core::framework::{EventMask, Plugin, PluginState, Points, PreFilterOutcome, PreScoreOutcome, Rejection};
use crate::core::intern::Name;
use crate::core::labels::KeyResolution;
use crate::core::labels::{resolve, Selector};
use crate::core::model::{Labels, NodeSpecInfo, PodInfo};

/// `v1.LabelHostname`: per-node domains, counted at Score time.
pub const LABEL_HOSTNAME: &str = "kubernetes.io/hostname";
/// `v1.LabelTopologyZone`.
pub const LABEL_TOPOLOGY_ZONE: &str = "topology.kubernetes.io/zone";

const DO_NOT_SCHEDULE: &str = "DoNotSchedule";
const SCHEDULE_ANYWAY: &str = "ScheduleAnyway";

/// `systemDefaultConstraints`.
pub fn system_default_constraints() -> Vec<api::TopologySpreadConstraint> {
    let c = |key: &str, skew| api::TopologySpreadConstraint {
        max_skew: skew,
        topology_key: key.into(),
        when_unsatisfiable: SCHEDULE_ANYWAY.into(),
        ..Default::default()
    };
    vec![c(LABEL_HOSTNAME, 3), c(LABEL_TOPOLOGY_ZONE, 5)]
}

/// The plugin with its default constraints.
#[derive(Debug, Clone)]
pub struct PodTopologySpread {
    default_constraints: Vec<api::TopologySpreadConstraint>,
    /// `defaultingType: System`: nodes without a zone label still get hostname spreading.
    system_defaulted: bool,
}

impl Default for PodTopologySpread {
    fn default() -> Self {
        PodTopologySpread { default_constraints: system_default_constraints(), system_defaulted: true }
    }
}

/// `topologySpreadConstraint`: a constraint with its selector parsed and defaults applied.
#[derive(Debug, Clone)]
pub(crate) struct Constraint {
    pub max_skew: i32,
    /// `None` when no node can carry the key.
    pub topology_key: Option<Name>,
    pub is_hostname: bool,
    pub selector: Selector,
    pub min_domains: i32,
    /// nodeAffinityPolicy Honor (default) / Ignore.
    pub honor_node_affinity: bool,
    /// nodeTaintsPolicy Honor / Ignore (default).
    pub honor_node_taints: bool,
}

impl Constraint {
    /// The node's value for this constraint's key.
    pub fn value<'a>(&self, labels: &'a Labels) -> Option<&'a str> {
        self.topology_key.and_then(|k| labels.get(k))
    }

    /// `matchNodeInclusionPolicies`.
    pub fn includes(&self, pod: &PodInfo, node: &NodeSpecInfo, required: &RequiredNodeAffinity) -> bool {
        if self.honor_node_affinity && !required.matches(&node.labels, &node.name) {
            return false;
        }
        if self.honor_node_taints && find_untolerated_taint(&node.taints, &pod.tolerations).is_some() {
            return false;
        }
        true
    }
}

impl Constraint {
    /// The tally that counts this constraint's matching pods (non-terminating, of the incoming
    /// pod's namespace) per topology value.
    pub fn tally_key(&self, namespace: &str) -> Option<TallyKey> {
        self.topology_key.map(|k| TallyKey::new([std::sync::Arc::from(namespace)], self.selector.clone(), k, true))
    }
}

/// The cache's tallies for every constraint, when they can stand for the walk over the nodes:
/// every node is eligible for every constraint whose key some node carries (each node carries
/// that key, and neither the pod's required node affinity nor taints exclude any) and every
/// such tally is registered. `Some(None)` for a constraint whose key no node carries: no
/// domain exists and no count is ever read. `None` sends the caller down the straightforward
/// path.
pub(crate) fn tallies_for<'a>(cache: &'a Cache, pod: &PodInfo, constraints: &[Constraint]) -> Option<Vec<Option<&'a Counts>>> {
    let n = cache.num_nodes();
    if n == 0 {
        return None;
    }
    let no_required_node_affinity = pod.node_selector.is_empty()
        && pod.affinity.as_deref().and_then(|a| a.node_affinity.as_ref()).and_then(|na| na.required.as_ref()).is_none();
    constraints
        .iter()
        .map(|c| {
            let Some(key) = c.topology_key else { return Some(None) };
            match cache.domains().nodes_with_key(key) {
                0 => return Some(None),
                k if k != n => return None,
                _ => {}
            }
            if c.honor_node_taints || (c.honor_node_affinity && !no_required_node_affinity) {
                return None;
            }
            cache.tally(&c.tally_key(&pod.namespace)?).map(Some)
        })
        .collect()
}

/// `nodeLabelsMatchSpreadConstraints`: the node has every constraint's topology key.
pub(crate) fn node_has_all_keys(labels: &Labels, constraints: &[Constraint]) -> bool {
    constraints.iter().all(|c| c.value(labels).is_some())
}

/// `countPodsMatchSelector`: pods of `namespace` on the node matching the selector, terminating
/// pods excluded.
pub(crate) fn count_matching(pods: &[std::sync::Arc<AssignedPod>], selector: &Selector, namespace: &str) -> i64 {
    pods.iter().filter(|p| !p.terminating && *p.namespace == *namespace && selector.matches(&p.labels)).count() as i64
}

/// `filterTopologySpreadConstraints`: the constraints with the given `whenUnsatisfiable`,
/// parsed, with `matchLabelKeys` merged into the selector.
pub(crate) fn filter_constraints(
    constraints: &[api::TopologySpreadConstraint],
    pod_labels: &Labels,
    action: &str,
) -> Result<Vec<Constraint>, String> {
    let mut out = Vec::new();
    for c in constraints.iter().filter(|c| c.when_unsatisfiable == action) {
        let mut selector = Selector::from_api(c.label_selector.as_ref(), KeyResolution::Lookup)?;
        if !c.match_label_keys.is_empty() {
            // mergeLabelSetWithSelector: the pod's values for the keys, then the selector's
            // requirements (a nil selector has none, so the merged one is just the set).
            let mut merged = Selector::everything();
            let mut any = false;
            for k in &c.match_label_keys {
                if let Some(v) = pod_labels.get_str(k) {
                    merged.add_in(k, v, KeyResolution::Lookup);
                    any = true;
                }
            }
            if any {
                merged.extend(&selector);
                selector = merged;
            }
        }
        out.push(Constraint {
            max_skew: c.max_skew,
            topology_key: resolve(&c.topology_key, KeyResolution::Lookup),
            is_hostname: c.topology_key == LABEL_HOSTNAME,
            selector,
            min_domains: c.min_domains.unwrap_or(1),
            honor_node_affinity: c.node_affinity_policy.as_deref() != Some("Ignore"),
            honor_node_taints: c.node_taints_policy.as_deref() == Some("Honor"),
        });
    }
    Ok(out)
}

impl PodTopologySpread {
    /// `New`: validate the args and pick the default constraints.
    pub fn new(args: &PodTopologySpreadArgs) -> Result<PodTopologySpread, String> {
        let problems = crate::core::config::validate_pod_topology_spread_args("", args);
        if !problems.is_empty() {
            return Err(problems
                .iter()
                .map(|p| p.to_string().trim_start_matches('.').to_string())
                .collect::<Vec<_>>()
                .join(", "));
        }
        Ok(match args.defaulting_type {
            DefaultingType::System => PodTopologySpread::default(),
            DefaultingType::List => {
                PodTopologySpread { default_constraints: args.default_constraints.clone(), system_defaulted: false }
            }
        })
    }

    /// Build from the profile's plugin args (upstream defaults when absent).
    pub fn from_args(args: Option<&PluginArgs>) -> Result<PodTopologySpread, String> {
        match args {
            None => Ok(PodTopologySpread::default()),
            Some(PluginArgs::PodTopologySpread(a)) => PodTopologySpread::new(a),
            Some(other) => Err(format!("want args to be of type PodTopologySpreadArgs, got {}", super::args_kind(other))),
        }
    }

    /// `buildDefaultConstraints`: default constraints with the pod's default selector, or none
    /// when nothing selects the pod.
    fn default_constraints(&self, cache: &Cache, pod: &PodInfo, action: &str) -> Result<Vec<Constraint>, String> {
        let mut constraints = filter_constraints(&self.default_constraints, &pod.labels, action)?;
        if constraints.is_empty() {
            return Ok(constraints);
        }
        let selector = cache.cluster().default_selector(pod);
        if selector.is_empty() {
            return Ok(Vec::new());
        }
        for c in &mut constraints {
            c.selector = selector.clone();
        }
        Ok(constraints)
    }

    /// `getConstraints` for one `whenUnsatisfiable` action: the pod's own, else the defaults.
    pub(crate) fn constraints(&self, cache: &Cache, pod: &PodInfo, action: &str) -> Result<Vec<Constraint>, String> {
        if pod.topology_spread_constraints.is_empty() {
            self.default_constraints(cache, pod, action)
        } else {
            filter_constraints(&pod.topology_spread_constraints, &pod.labels, action)
        }
    }
}

impl Plugin for PodTopologySpread {
    fn name(&self) -> &'static str {
        super::names::POD_TOPOLOGY_SPREAD
    }

    fn points(&self) -> Points {
        Points { pre_filter: true, filter: true, pre_score: true, score: true, normalize: true, ..Default::default() }
    }

    /// `EventsToRegister`: any assigned pod change, node add/delete/label (and taint, for
    /// nodeTaintsPolicy Honor).
    fn events(&self) -> EventMask {
        EventMask::ASSIGNED_POD_ADD
            | EventMask::ASSIGNED_POD_UPDATE
            | EventMask::ASSIGNED_POD_DELETE
            | EventMask::NODE_ADD
            | EventMask::NODE_DELETE
            | EventMask::NODE_LABEL
            | EventMask::NODE_TAINT
    }

    /// One tally per constraint of either action.
    fn tallies(&self, cache: &Cache, pod: &PodInfo, out: &mut Vec<TallyKey>) {
        for a in [DO_NOT_SCHEDULE, SCHEDULE_ANYWAY] {
            for c in self.constraints(cache, pod, a).unwrap_or_default() {
                out.extend(c.tally_key(&pod.namespace));
            }
        }
    }

    fn pre_filter(&self, cache: &Cache, pod: &PodInfo, state: &mut PluginState) -> PreFilterOutcome {
        filtering::pre_filter(self, cache, pod, state)
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

    fn filter(&self, cache: &Cache, _pod: &PodInfo, node: &NodeInfo, state: &PluginState) -> Result<(), Rejection> {
        filtering::filter(cache.domains(), node, state)
    }

    fn pre_score(&self, cache: &Cache, pod: &PodInfo, nodes: &[&NodeInfo], state: &mut PluginState) -> PreScoreOutcome {
        scoring::pre_score(self, cache, pod, nodes, state)
    }

    fn score(&self, cache: &Cache, pod: &PodInfo, node: &NodeInfo, state: &PluginState) -> Result<i64, Rejection> {
        super::score_one(self, cache, pod, node, state)
    }

    fn normalize(&self, _pod: &PodInfo, scores: &mut [i64], _state: &PluginState) {
        scoring::normalize(scores);
    }
}

impl super::FilterAll for PodTopologySpread {
    fn filter_all(&self, cache: &Cache, _pod: &PodInfo, nodes: &[&NodeInfo], state: &PluginState, out: &mut super::Rejections) {
        filtering::filter_all(cache.domains(), nodes, state, out)
    }
}

impl super::ScoreAll for PodTopologySpread {
    fn score_all(
        &self,
        cache: &Cache,
        pod: &PodInfo,
        nodes: &[&NodeInfo],
        state: &PluginState,
        out: &mut [i64],
    ) -> Result<(), Rejection> {
        scoring::score_all(cache.domains(), pod, nodes, state, out)
    }
}

/// The `whenUnsatisfiable` values.
pub(crate) mod action {
    pub const DO_NOT_SCHEDULE: &str = super::DO_NOT_SCHEDULE;
    pub const SCHEDULE_ANYWAY: &str = super::SCHEDULE_ANYWAY;
}
