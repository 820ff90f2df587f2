//! NodeAffinity (pkg/scheduler/framework/plugins/nodeaffinity/node_affinity.go).
//!
//! Filter: the node must satisfy the scheduler-enforced `addedAffinity.required` (from
//! `NodeAffinityArgs`) and then the pod's `nodeSelector` AND its required node affinity. Both
//! rejections are UnschedulableAndUnresolvable: evicting pods never changes node labels.
//! PreFilter compiles the pod's selector once per cycle and, when every required term pins
//! `metadata.name In [...]`, narrows the candidate nodes to those names.
//! Score: the sum of the weights of matching preferred terms (the pod's and `addedAffinity`'s),
//! normalised so the best node gets 100.

use super::helper::{
    default_normalize_score, CompiledNodeSelector, CompiledPreferredTerms, RequiredNodeAffinity, OBJECT_NAME_FIELD,
};
use crate::core::api;
use crate::core::cache::{Cache, NodeInfo};
use crate::core::config::{NodeAffinityArgs, PluginArgs};
use crate::core::framework::{
    state_as, EventMask, Plugin, PluginState, Points, PreFilterOutcome, PreScoreOutcome, Rejection, MAX_NODE_SCORE,
};
use crate::core::labels::KeyResolution;
use crate::core::model::PodInfo;
use std::collections::BTreeSet;
use std::sync::Arc;

use crate::core::texts::node_affinity::{ERR_REASON_CONFLICT, ERR_REASON_ENFORCED, ERR_REASON_POD};

/// The plugin with its compiled `addedAffinity`.
#[derive(Debug, Default)]
pub struct NodeAffinity {
    added_required: Option<CompiledNodeSelector>,
    added_preferred: Option<CompiledPreferredTerms>,
}

/// PreFilter state: the pod's compiled nodeSelector + required affinity (never changes with
/// pods added or removed, so clones share it).
struct PreFilterState(Arc<RequiredNodeAffinity>);

/// PreScore state: the pod's compiled preferred terms, or why they do not parse.
struct PreScoreState(Result<CompiledPreferredTerms, String>);

impl NodeAffinity {
    /// `New`: validate and compile `addedAffinity` once.
    pub fn new(args: &NodeAffinityArgs) -> Result<NodeAffinity, String> {
        let mut pl = NodeAffinity::default();
        let Some(added) = &args.added_affinity else {
            return Ok(pl);
        };
        if let Some(ns) = &added.required {
            pl.added_required = Some(
                CompiledNodeSelector::compile_strict(ns, KeyResolution::Intern)
                    .map_err(|e| format!("parsing addedAffinity.requiredDuringSchedulingIgnoredDuringExecution: {e}"))?,
            );
        }
        if !added.preferred.is_empty() {
            for (i, t) in added.preferred.iter().enumerate() {
                if !(1..=100).contains(&t.weight) {
                    return Err(format!(
                        "addedAffinity.preferredDuringSchedulingIgnoredDuringExecution[{i}].weight: Invalid value: {}: must be in the range 1-100",
                        t.weight
                    ));
                }
            }
            pl.added_preferred = Some(
                CompiledPreferredTerms::compile(&added.preferred, KeyResolution::Intern)
                    .map_err(|e| format!("parsing addedAffinity.preferredDuringSchedulingIgnoredDuringExecution: {e}"))?,
            );
        }
        Ok(pl)
    }

    /// Build from the profile's plugin args (upstream defaults when absent).
    pub fn from_args(args: Option<&PluginArgs>) -> Result<NodeAffinity, String> {
        match args {
            None => NodeAffinity::new(&NodeAffinityArgs::default()),
            Some(PluginArgs::NodeAffinity(a)) => NodeAffinity::new(a),
            Some(other) => Err(format!("want args to be of type NodeAffinityArgs, got {}", super::args_kind(other))),
        }
    }
}

fn pod_node_affinity(pod: &PodInfo) -> Option<&api::NodeAffinity> {
    pod.affinity.as_ref().and_then(|a| a.node_affinity.as_ref())
}

/// The node names the required terms pin through `metadata.name In`, as upstream's PreFilter:
/// `None` when some term leaves the node name open (terms are ORed), an empty set when the
/// pinned names conflict.
pub fn pre_filter_node_names(terms: &[api::NodeSelectorTerm]) -> Option<BTreeSet<&str>> {
    let mut union: BTreeSet<&str> = BTreeSet::new();
    for t in terms {
        let mut term_names: Option<BTreeSet<&str>> = None;
        for r in &t.match_fields {
            if r.key == OBJECT_NAME_FIELD && r.operator == "In" {
                let s: BTreeSet<&str> = r.values.iter().map(|v| v.as_str()).collect();
                term_names = Some(match term_names {
                    None => s,
                    Some(prev) => prev.intersection(&s).copied().collect(),
                });
            }
        }
        union.extend(term_names?);
    }
    Some(union)
}

impl Plugin for NodeAffinity {
    fn name(&self) -> &'static str {
        super::names::NODE_AFFINITY
    }

    fn points(&self) -> Points {
        Points { pre_filter: true, filter: true, pre_score: true, score: true, normalize: true, ..Default::default() }
    }

    /// Only a new node or changed labels can start matching.
    fn events(&self) -> EventMask {
        EventMask::NODE_ADD | EventMask::NODE_LABEL
    }

    fn pre_filter(&self, cache: &Cache, pod: &PodInfo, state: &mut PluginState) -> PreFilterOutcome {
        let required = pod_node_affinity(pod).and_then(|na| na.required.as_ref());
        if required.is_none() && self.added_required.is_none() && pod.node_selector.is_empty() {
            return PreFilterOutcome::Skip;
        }
        let compiled = RequiredNodeAffinity::of_pod(&pod.node_selector, pod.affinity.as_deref()).with_value_ids(cache.domains());
        *state = Some(Box::new(PreFilterState(Arc::new(compiled))));
        let Some(required) = required else {
            return PreFilterOutcome::Continue;
        };
        match pre_filter_node_names(&required.node_selector_terms) {
            None => PreFilterOutcome::Continue,
            Some(names) if names.is_empty() => PreFilterOutcome::Reject(Rejection::unresolvable(ERR_REASON_CONFLICT)),
            Some(names) => PreFilterOutcome::Nodes(names.into_iter().map(Box::from).collect()),
        }
    }

    fn clone_state(&self, state: &PluginState) -> PluginState {
        state_as::<PreFilterState>(state).map(|s| Box::new(PreFilterState(s.0.clone())) as Box<dyn std::any::Any + Send>)
    }

    fn filter(&self, cache: &Cache, pod: &PodInfo, node: &NodeInfo, state: &PluginState) -> Result<(), Rejection> {
        let (labels, name) = (&node.node.labels, &*node.node.name);
        if let Some(added) = &self.added_required {
            if !added.matches(labels, name) {
                return Err(Rejection::unresolvable(ERR_REASON_ENFORCED));
            }
        }
        let matched = match state_as::<PreFilterState>(state) {
            Some(s) => s.0.matches_node(cache.domains(), node),
            // PreFilter disabled in this profile: compile here (upstream does the same).
            None => RequiredNodeAffinity::of_pod(&pod.node_selector, pod.affinity.as_deref()).matches(labels, name),
        };
        if matched {
            Ok(())
        } else {
            Err(Rejection::unresolvable(ERR_REASON_POD))
        }
    }

    fn pre_score(&self, _cache: &Cache, pod: &PodInfo, _nodes: &[&NodeInfo], state: &mut PluginState) -> PreScoreOutcome {
        let preferred = pod_node_affinity(pod).map(|na| na.preferred.as_slice()).unwrap_or_default();
        if preferred.is_empty() && self.added_preferred.is_none() {
            return PreScoreOutcome::Skip;
        }
        *state = Some(Box::new(PreScoreState(CompiledPreferredTerms::compile(preferred, KeyResolution::Lookup))));
        PreScoreOutcome::Run
    }

    fn score(&self, _cache: &Cache, pod: &PodInfo, node: &NodeInfo, state: &PluginState) -> Result<i64, Rejection> {
        let (labels, name) = (&node.node.labels, &*node.node.name);
        let mut count = self.added_preferred.as_ref().map(|p| p.score(labels, name)).unwrap_or(0);
        let pod_terms = match state_as::<PreScoreState>(state) {
            Some(PreScoreState(Ok(p))) => p.score(labels, name),
            Some(PreScoreState(Err(e))) => return Err(Rejection::error(e.clone())),
            None => {
                let preferred = pod_node_affinity(pod).map(|na| na.preferred.as_slice()).unwrap_or_default();
                CompiledPreferredTerms::compile(preferred, KeyResolution::Lookup).map_err(Rejection::error)?.score(labels, name)
            }
        };
        count += pod_terms;
        Ok(count)
    }

    fn normalize(&self, _pod: &PodInfo, scores: &mut [i64], _state: &PluginState) {
        default_normalize_score(MAX_NODE_SCORE, false, scores);
    }
}

impl super::FilterAll for NodeAffinity {
    fn filter_all(&self, cache: &Cache, pod: &PodInfo, nodes: &[&NodeInfo], state: &PluginState, out: &mut super::Rejections) {
        match state_as::<PreFilterState>(state) {
            // The common case (PreFilter ran, no enforced terms): the state downcast once.
            Some(s) if self.added_required.is_none() => {
                let d = cache.domains();
                super::reject_each(nodes, out, |node| {
                    if s.0.matches_node(d, node) {
                        Ok(())
                    } else {
                        Err(Rejection::unresolvable(ERR_REASON_POD))
                    }
                })
            }
            _ => super::reject_each(nodes, out, |node| self.filter(cache, pod, node, state)),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::core::framework::plugins::test_util::{
        cache_with, field_term, node, preferred, req, required, term, NodeBuilder, PodBuilder,
    };
    use crate::core::framework::Code;

    /// PreFilter + Filter of one pod against one node (as TestNodeAffinity does).
    fn run(pl: &NodeAffinity, pod: PodBuilder, n: NodeBuilder) -> (PreFilterOutcome, Result<(), Rejection>) {
        let cache = cache_with(&[n], &[]);
        let ni = cache.nodes().next().unwrap();
        let info = pod.info();
        let mut state = None;
        let pre = pl.pre_filter(&cache, &info, &mut state);
        let f = pl.filter(&cache, &info, ni, &state);
        (pre, f)
    }

    fn filter(pod: PodBuilder, n: NodeBuilder) -> Result<(), Rejection> {
        run(&NodeAffinity::default(), pod, n).1
    }

    fn unresolvable_pod() -> Result<(), Rejection> {
        Err(Rejection::unresolvable(ERR_REASON_POD))
    }

    fn names(o: PreFilterOutcome) -> Option<Vec<String>> {
        match o {
            PreFilterOutcome::Nodes(v) => Some(v.iter().map(|s| s.to_string()).collect()),
            _ => None,
        }
    }

    #[test]
    fn filter_table() {
        // node_affinity_test.go TestNodeAffinity (Filter cases).
        let n = |labels: &[(&str, &str)]| NodeBuilder::new("node1").labels(labels);
        let p = || PodBuilder::new("p");
        // "missing labels"
        assert_eq!(filter(p().node_selector(&[("foo", "bar")]), n(&[])), unresolvable_pod());
        // "same labels"
        assert!(filter(p().node_selector(&[("foo", "bar")]), n(&[("foo", "bar")])).is_ok());
        // "node labels are superset"
        assert!(filter(p().node_selector(&[("foo", "bar")]), n(&[("foo", "bar"), ("baz", "blah")])).is_ok());
        // "node labels are subset"
        assert!(filter(p().node_selector(&[("foo", "bar"), ("baz", "blah")]), n(&[("foo", "bar")])).is_err());
        // "Pod with matchExpressions using In operator that matches the existing node"
        let a = required(vec![term(vec![req("foo", "In", &["bar", "value2"])])]);
        assert!(filter(p().node_affinity(a), n(&[("foo", "bar")])).is_ok());
        // "Pod with matchExpressions using Gt operator that matches the existing node"
        let a = required(vec![term(vec![req("kernel-version", "Gt", &["0204"])])]);
        assert!(filter(p().node_affinity(a), n(&[("kernel-version", "0206")])).is_ok());
        // "Pod with matchExpressions using NotIn operator that matches the existing node"
        let a = required(vec![term(vec![req("mem-type", "NotIn", &["DDR", "DDR2"])])]);
        assert!(filter(p().node_affinity(a), n(&[("mem-type", "DDR3")])).is_ok());
        // "Pod with matchExpressions using Exists operator that matches the existing node"
        let a = required(vec![term(vec![req("GPU", "Exists", &[])])]);
        assert!(filter(p().node_affinity(a), n(&[("GPU", "NVIDIA-GRID-K1")])).is_ok());
        // "Pod with affinity that don't match node's labels won't schedule onto the node"
        let a = required(vec![term(vec![req("foo", "In", &["value1", "value2"])])]);
        assert_eq!(filter(p().node_affinity(a), n(&[("foo", "bar")])), unresolvable_pod());
        // "Pod with empty MatchExpressions is not a valid value will match no objects and won't
        // schedule onto the node"
        let a = required(vec![term(vec![])]);
        assert_eq!(filter(p().node_affinity(a), n(&[("foo", "bar")])), unresolvable_pod());
        // "Pod with no Affinity will schedule onto a node"
        assert!(filter(p(), n(&[("foo", "bar")])).is_ok());
        // "Pod with Affinity but nil NodeSelector will schedule onto a node"
        assert!(filter(p().node_affinity(api::NodeAffinity::default()), n(&[("foo", "bar")])).is_ok());
        // "Pod with multiple matchExpressions ANDed that matches the existing node"
        let a = required(vec![term(vec![req("GPU", "Exists", &[]), req("GPU", "NotIn", &["AMD", "INTER"])])]);
        assert!(filter(p().node_affinity(a), n(&[("GPU", "NVIDIA-GRID-K1")])).is_ok());
        // "Pod with multiple matchExpressions ANDed that doesn't match the existing node"
        let a = required(vec![term(vec![req("GPU", "Exists", &[]), req("GPU", "In", &["AMD", "INTER"])])]);
        assert!(filter(p().node_affinity(a), n(&[("GPU", "NVIDIA-GRID-K1")])).is_err());
        // "Pod with multiple NodeSelectorTerms ORed in affinity, matches the node's labels and
        // will schedule onto the node"
        let a = required(vec![
            term(vec![req("foo", "In", &["bar", "value2"])]),
            term(vec![req("diffkey", "In", &["wrong", "value2"])]),
        ]);
        assert!(filter(p().node_affinity(a), n(&[("foo", "bar")])).is_ok());
        // "Pod with an Affinity and a PodSpec.NodeSelector(the old thing that we are deprecating)
        // both are satisfied, will schedule onto the node"
        let a = || required(vec![term(vec![req("foo", "Exists", &[])])]);
        assert!(filter(p().node_selector(&[("foo", "bar")]).node_affinity(a()), n(&[("foo", "bar")])).is_ok());
        // "Pod with an Affinity matches node's labels but the PodSpec.NodeSelector(the old thing
        // that we are deprecating) is not satisfied, won't schedule onto the node"
        assert!(filter(p().node_selector(&[("foo", "bar")]).node_affinity(a()), n(&[("foo", "barrrrrr")])).is_err());
        // "Pod with an invalid value in Affinity term won't be scheduled onto the node"
        let a = required(vec![term(vec![req("foo", "NotIn", &["invalid value: ___@#$%^"])])]);
        assert!(filter(p().node_affinity(a), n(&[("foo", "bar")])).is_err());
    }

    #[test]
    fn match_fields_and_prefilter_node_names() {
        // node_affinity_test.go TestNodeAffinity (matchFields cases with wantPreFilterResult).
        let pl = NodeAffinity::default();
        let node1 = || NodeBuilder::new("node1").labels(&[("foo", "bar")]);
        let node2 = || NodeBuilder::new("node2").labels(&[("foo", "bar")]);
        let pin1 = || req("metadata.name", "In", &["node1"]);
        // "Pod with matchFields using In operator that matches the existing node"
        let (pre, f) = run(&pl, PodBuilder::new("p").node_affinity(required(vec![field_term(vec![pin1()])])), node1());
        assert_eq!(names(pre), Some(vec!["node1".to_string()]));
        assert!(f.is_ok());
        // "Pod with matchFields using In operator that does not match the existing node"
        let (pre, f) = run(&pl, PodBuilder::new("p").node_affinity(required(vec![field_term(vec![pin1()])])), node2());
        assert_eq!(names(pre), Some(vec!["node1".to_string()]));
        assert_eq!(f, unresolvable_pod());
        // "Pod with two terms: matchFields does not match, but matchExpressions matches"
        let a = required(vec![field_term(vec![pin1()]), term(vec![req("foo", "In", &["bar"])])]);
        let (pre, f) = run(&pl, PodBuilder::new("p").node_affinity(a), node2());
        assert!(matches!(pre, PreFilterOutcome::Continue));
        assert!(f.is_ok());
        // "Pod with one term: matchFields does not match, but matchExpressions matches"
        let one = || api::NodeSelectorTerm { match_expressions: vec![req("foo", "In", &["bar"])], match_fields: vec![pin1()] };
        let (pre, f) = run(&pl, PodBuilder::new("p").node_affinity(required(vec![one()])), node2());
        assert_eq!(names(pre), Some(vec!["node1".to_string()]));
        assert!(f.is_err());
        // "Pod with one term: both matchFields and matchExpressions match"
        let (_, f) = run(&pl, PodBuilder::new("p").node_affinity(required(vec![one()])), node1());
        assert!(f.is_ok());
        // "Pod with two terms: both matchFields and matchExpressions do not match"
        let a = required(vec![field_term(vec![pin1()]), term(vec![req("foo", "In", &["not-match-to-bar"])])]);
        let (pre, f) = run(&pl, PodBuilder::new("p").node_affinity(a), node2());
        assert!(matches!(pre, PreFilterOutcome::Continue));
        assert!(f.is_err());
        // "Pod with two terms of node.Name affinity"
        let a = required(vec![field_term(vec![pin1()]), field_term(vec![req("metadata.name", "In", &["node2"])])]);
        let (pre, _) = run(&pl, PodBuilder::new("p").node_affinity(a), node1());
        assert_eq!(names(pre), Some(vec!["node1".to_string(), "node2".to_string()]));
        // "Pod with two conflicting mach field requirements"
        let a = required(vec![field_term(vec![pin1(), req("metadata.name", "In", &["node2"])])]);
        let (pre, _) = run(&pl, PodBuilder::new("p").node_affinity(a), node1());
        match pre {
            PreFilterOutcome::Reject(r) => {
                assert_eq!((r.code, r.message().as_str()), (Code::UnschedulableAndUnresolvable, ERR_REASON_CONFLICT))
            }
            other => panic!("{other:?}"),
        }
        // Nothing to check: Skip.
        let (pre, _) = run(&pl, PodBuilder::new("p"), node1());
        assert!(matches!(pre, PreFilterOutcome::Skip));
    }

    #[test]
    fn added_affinity() {
        // node_affinity_test.go TestNodeAffinity: "Matches added affinity and Pod's node
        // affinity", "Matches added affinity but not Pod's node affinity", "Doesn't match added
        // affinity".
        let args = NodeAffinityArgs {
            added_affinity: Some(required(vec![term(vec![req("zone", "In", &["foo"])])])),
            ..Default::default()
        };
        let pl = NodeAffinity::new(&args).unwrap();
        let pod = || PodBuilder::new("p").node_affinity(required(vec![term(vec![req("zone", "In", &["foo", "bar"])])]));
        let (_, f) = run(&pl, pod(), NodeBuilder::new("node1").labels(&[("zone", "foo")]));
        assert!(f.is_ok());
        let strict = || PodBuilder::new("p").node_affinity(required(vec![term(vec![req("zone", "In", &["bar"])])]));
        let (_, f) = run(&pl, strict(), NodeBuilder::new("node1").labels(&[("zone", "foo")]));
        assert_eq!(f, unresolvable_pod());
        let (pre, f) = run(&pl, PodBuilder::new("p"), NodeBuilder::new("node1").labels(&[("zone", "bar")]));
        assert!(matches!(pre, PreFilterOutcome::Continue), "added affinity alone keeps Filter on");
        assert_eq!(f, Err(Rejection::unresolvable(ERR_REASON_ENFORCED)));
        // Invalid added affinity is a configuration error.
        let bad =
            NodeAffinityArgs { added_affinity: Some(required(vec![term(vec![req("zone", "In", &[])])])), ..Default::default() };
        assert!(NodeAffinity::new(&bad).unwrap_err().contains("addedAffinity.requiredDuringScheduling"));
    }

    fn scores(pl: &NodeAffinity, pod: PodBuilder, nodes: &[NodeBuilder]) -> Vec<i64> {
        let cache = cache_with(nodes, &[]);
        let info = pod.info();
        let infos: Vec<&NodeInfo> = nodes.iter().map(|n| node(&cache, &n.node.metadata.name)).collect();
        let mut state = None;
        if pl.pre_score(&cache, &info, &infos, &mut state) == PreScoreOutcome::Skip {
            return vec![0; nodes.len()];
        }
        let mut raw: Vec<i64> = infos.iter().map(|n| pl.score(&cache, &info, n, &state).unwrap()).collect();
        pl.normalize(&info, &mut raw, &state);
        raw
    }

    #[test]
    fn score_table() {
        // node_affinity_test.go TestNodeAffinityPriority.
        let label1 = &[("foo", "bar")][..];
        let label2 = &[("key", "value")][..];
        let label3 = &[("az", "az1")][..];
        let label5 = &[("foo", "bar"), ("key", "value"), ("az", "az1")][..];
        let affinity1 = || preferred(vec![(2, term(vec![req("foo", "In", &["bar"])]))]);
        let affinity2 = || {
            preferred(vec![
                (2, term(vec![req("foo", "In", &["bar"])])),
                (4, term(vec![req("key", "In", &["value"])])),
                (5, term(vec![req("foo", "In", &["bar"]), req("key", "In", &["value"]), req("az", "In", &["az1"])])),
            ])
        };
        let nodes = |ls: &[&[(&str, &str)]]| -> Vec<NodeBuilder> {
            ls.iter().enumerate().map(|(i, l)| NodeBuilder::new(&format!("node{}", i + 1)).labels(l)).collect()
        };
        let pl = NodeAffinity::default();
        // "all nodes are same priority as NodeAffinity is nil"
        assert_eq!(scores(&pl, PodBuilder::new("p"), &nodes(&[label1, label2, label3])), vec![0, 0, 0]);
        // "no node matches preferred scheduling requirements in NodeAffinity of pod so all
        // nodes' priority is zero"
        assert_eq!(scores(&pl, PodBuilder::new("p").node_affinity(affinity1()), &nodes(&[label2, label3])), vec![0, 0]);
        // "only node1 matches the preferred scheduling requirements of pod"
        assert_eq!(
            scores(&pl, PodBuilder::new("p").node_affinity(affinity1()), &nodes(&[label1, label2, label3])),
            vec![100, 0, 0]
        );
        // "all nodes matches the preferred scheduling requirements of pod but with different
        // priorities"
        assert_eq!(
            scores(&pl, PodBuilder::new("p").node_affinity(affinity2()), &nodes(&[label1, label5, label2])),
            vec![18, 100, 36]
        );
        // "added affinity" (adapted: one preferred term from the args only)
        let added = NodeAffinity::new(&NodeAffinityArgs {
            added_affinity: Some(preferred(vec![(5, term(vec![req("key", "In", &["value"])]))])),
            ..Default::default()
        })
        .unwrap();
        assert_eq!(scores(&added, PodBuilder::new("p"), &nodes(&[label1, label2, label3])), vec![0, 100, 0]);
        // "added affinity and pod has default affinity"
        let added = NodeAffinity::new(&NodeAffinityArgs {
            added_affinity: Some(preferred(vec![(3, term(vec![req("key", "In", &["value"])]))])),
            ..Default::default()
        })
        .unwrap();
        assert_eq!(
            scores(&added, PodBuilder::new("p").node_affinity(affinity1()), &nodes(&[label1, label2, label5])),
            vec![40, 60, 100]
        );
    }

    #[test]
    fn invalid_preferred_terms_are_an_error_at_score() {
        let bad = preferred(vec![(1, term(vec![req("foo", "In", &[])]))]);
        let cache = cache_with(&[NodeBuilder::new("n")], &[]);
        let info = PodBuilder::new("p").node_affinity(bad).info();
        let pl = NodeAffinity::default();
        let n = node(&cache, "n");
        let mut state = None;
        assert_eq!(pl.pre_score(&cache, &info, &[n], &mut state), PreScoreOutcome::Run);
        assert_eq!(pl.score(&cache, &info, n, &state).unwrap_err().code, Code::Error);
    }
}
