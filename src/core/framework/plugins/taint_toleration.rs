//! TaintToleration (pkg/scheduler/framework/plugins/tainttoleration/taint_toleration.go).
//!
//! Filter: a node with a `NoSchedule`/`NoExecute` taint the pod does not tolerate is rejected
//! (preemption cannot remove taints, hence UnschedulableAndUnresolvable).
//! Score: the number of `PreferNoSchedule` taints the pod does not tolerate, normalised in reverse
//! so the node with the fewest gets 100.
//!
//! Upstream's PreScore keeps only the tolerations with effect `PreferNoSchedule` or empty; those
//! are exactly the tolerations that can tolerate a `PreferNoSchedule` taint at all
//! (`ToleratesTaint` requires an empty or equal effect), so Score can test the pod's tolerations
//! directly and no per-pod state is needed.

use super::helper::default_normalize_score;
use crate::core::cache::{Cache, NodeInfo};
use crate::core::framework::{EventMask, Plugin, PluginState, Points, PreScoreOutcome, Rejection, MAX_NODE_SCORE};
use crate::core::model::{tolerations_tolerate, PodInfo, Taint, TaintEffect, Toleration};

use crate::core::texts::taint_toleration::ERR_REASON_NOT_MATCH;

/// The plugin (stateless).
pub struct TaintToleration;

/// `FindMatchingUntoleratedTaint` restricted to NoSchedule/NoExecute taints.
pub fn find_untolerated_taint<'a>(taints: &'a [Taint], tolerations: &[Toleration]) -> Option<&'a Taint> {
    taints
        .iter()
        .find(|t| matches!(t.effect, TaintEffect::NoSchedule | TaintEffect::NoExecute) && !tolerations_tolerate(tolerations, t))
}

/// `countIntolerableTaintsPreferNoSchedule`.
pub fn count_intolerable_prefer_no_schedule(taints: &[Taint], tolerations: &[Toleration]) -> i64 {
    taints.iter().filter(|t| t.effect == TaintEffect::PreferNoSchedule && !tolerations_tolerate(tolerations, t)).count() as i64
}

impl Plugin for TaintToleration {
    fn name(&self) -> &'static str {
        super::names::TAINT_TOLERATION
    }

    fn points(&self) -> Points {
        Points { filter: true, pre_score: true, score: true, normalize: true, ..Default::default() }
    }

    /// New nodes, taint changes, and the pod's own toleration updates (`Pod/UpdatePodToleration`).
    fn events(&self) -> EventMask {
        EventMask::NODE_ADD | EventMask::NODE_TAINT | EventMask::POD_UPDATE
    }

    fn filter(&self, _cache: &Cache, pod: &PodInfo, node: &NodeInfo, _state: &PluginState) -> Result<(), Rejection> {
        match find_untolerated_taint(&node.node.taints, &pod.tolerations) {
            None => Ok(()),
            Some(_) => Err(Rejection::unresolvable(ERR_REASON_NOT_MATCH)),
        }
    }

    fn pre_score(&self, _cache: &Cache, _pod: &PodInfo, _nodes: &[&NodeInfo], _state: &mut PluginState) -> PreScoreOutcome {
        PreScoreOutcome::Run
    }

    fn score(&self, _cache: &Cache, pod: &PodInfo, node: &NodeInfo, _state: &PluginState) -> Result<i64, Rejection> {
        Ok(count_intolerable_prefer_no_schedule(&node.node.taints, &pod.tolerations))
    }

    fn normalize(&self, _pod: &PodInfo, scores: &mut [i64], _state: &PluginState) {
        default_normalize_score(MAX_NODE_SCORE, true, scores);
    }
}

impl super::FilterAll for TaintToleration {
    fn filter_all(&self, _cache: &Cache, pod: &PodInfo, nodes: &[&NodeInfo], _state: &PluginState, out: &mut super::Rejections) {
        super::reject_each(nodes, out, |node| {
            // Most nodes carry no taint: no call for them.
            if node.node.taints.is_empty() || find_untolerated_taint(&node.node.taints, &pod.tolerations).is_none() {
                Ok(())
            } else {
                Err(Rejection::unresolvable(ERR_REASON_NOT_MATCH))
            }
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::core::framework::plugins::test_util::{cache_with, node, NodeBuilder, PodBuilder};
    use crate::core::framework::Code;

    fn filter(pod: PodBuilder, n: NodeBuilder) -> Result<(), Rejection> {
        let cache = cache_with(&[n], &[]);
        let ni = cache.nodes().next().unwrap();
        TaintToleration.filter(&cache, &pod.info(), ni, &None)
    }

    fn scores(pod: PodBuilder, nodes: &[NodeBuilder]) -> Vec<i64> {
        let cache = cache_with(nodes, &[]);
        let info = pod.info();
        let mut raw: Vec<i64> = nodes
            .iter()
            .map(|n| TaintToleration.score(&cache, &info, node(&cache, &n.node.metadata.name), &None).unwrap())
            .collect();
        TaintToleration.normalize(&info, &mut raw, &None);
        raw
    }

    #[test]
    fn filter_table() {
        // taint_toleration_test.go TestTaintTolerationFilter.
        let tainted = || NodeBuilder::new("n").taint("dedicated", "user1", "NoSchedule");
        // "A pod having no tolerations can't be scheduled onto a node with nonempty taints."
        let r = filter(PodBuilder::new("p"), tainted()).unwrap_err();
        assert_eq!((r.code, r.message().as_str()), (Code::UnschedulableAndUnresolvable, ERR_REASON_NOT_MATCH));
        // "A pod which can be scheduled on a dedicated node assigned to user1 with effect NoSchedule"
        assert!(filter(PodBuilder::new("p").toleration("dedicated", "Equal", "user1", "NoSchedule"), tainted()).is_ok());
        // "A pod which can't be scheduled on a dedicated node assigned to user2 with effect NoSchedule"
        assert!(filter(PodBuilder::new("p").toleration("dedicated", "Equal", "user2", "NoSchedule"), tainted()).is_err());
        // "A pod can be scheduled onto the node, with a toleration uses operator Exists that
        // tolerates the taints on the node"
        let foo = || NodeBuilder::new("n").taint("foo", "bar", "NoSchedule");
        assert!(filter(PodBuilder::new("p").toleration("foo", "Exists", "", "NoSchedule"), foo()).is_ok());
        // "A pod has multiple tolerations, node has multiple taints, all the taints are tolerated"
        let pod = PodBuilder::new("p").toleration("dedicated", "Equal", "user2", "NoSchedule").toleration(
            "foo",
            "Exists",
            "",
            "NoSchedule",
        );
        let n = NodeBuilder::new("n").taint("dedicated", "user2", "NoSchedule").taint("foo", "bar", "NoSchedule");
        assert!(filter(pod, n).is_ok());
        // "... keys and values match the taint on the node, but (non-empty) effect doesn't match"
        assert!(filter(PodBuilder::new("p").toleration("foo", "Equal", "bar", "PreferNoSchedule"), foo()).is_err());
        // "... the effect of toleration is empty, and the effect of taint is NoSchedule"
        assert!(filter(PodBuilder::new("p").toleration("foo", "Equal", "bar", ""), foo()).is_ok());
        // "... key and value don't match the taint on the node, but the effect of taint on node is
        // PreferNoSchedule"
        let prefer = || NodeBuilder::new("n").taint("dedicated", "user1", "PreferNoSchedule");
        assert!(filter(PodBuilder::new("p").toleration("dedicated", "Equal", "user2", "NoSchedule"), prefer()).is_ok());
        // "The pod has no toleration, but the effect of taint on node is PreferNoSchedule"
        assert!(filter(PodBuilder::new("p"), prefer()).is_ok());
        // NoExecute counts like NoSchedule.
        assert!(filter(PodBuilder::new("p"), NodeBuilder::new("n").taint("k", "", "NoExecute")).is_err());
    }

    #[test]
    fn score_table() {
        // taint_toleration_test.go TestTaintTolerationScore.
        // "node with taints tolerated by the pod, gets a higher score than those node with
        // intolerable taints"
        let pod = PodBuilder::new("p").toleration("foo", "Equal", "bar", "PreferNoSchedule");
        assert_eq!(
            scores(
                pod,
                &[
                    NodeBuilder::new("nodeA").taint("foo", "bar", "PreferNoSchedule"),
                    NodeBuilder::new("nodeB").taint("foo", "blah", "PreferNoSchedule"),
                ]
            ),
            vec![100, 0]
        );
        // "the nodes that all of their taints are tolerated by the pod, get the same score, no
        // matter how many tolerable taints a node has"
        let pod = PodBuilder::new("p").toleration("cpu-type", "Equal", "arm64", "PreferNoSchedule").toleration(
            "disk-type",
            "Equal",
            "ssd",
            "PreferNoSchedule",
        );
        assert_eq!(
            scores(
                pod,
                &[
                    NodeBuilder::new("nodeA"),
                    NodeBuilder::new("nodeB").taint("cpu-type", "arm64", "PreferNoSchedule"),
                    NodeBuilder::new("nodeC").taint("cpu-type", "arm64", "PreferNoSchedule").taint(
                        "disk-type",
                        "ssd",
                        "PreferNoSchedule"
                    ),
                ]
            ),
            vec![100, 100, 100]
        );
        // "the more intolerable taints a node has, the lower score it gets."
        let pod = PodBuilder::new("p").toleration("foo", "Equal", "bar", "PreferNoSchedule");
        assert_eq!(
            scores(
                pod,
                &[
                    NodeBuilder::new("nodeA"),
                    NodeBuilder::new("nodeB").taint("cpu-type", "arm64", "PreferNoSchedule"),
                    NodeBuilder::new("nodeC").taint("cpu-type", "arm64", "PreferNoSchedule").taint(
                        "disk-type",
                        "ssd",
                        "PreferNoSchedule"
                    ),
                ]
            ),
            vec![100, 50, 0]
        );
        // "only taints and tolerations that have effect PreferNoSchedule are checked by
        // prioritizer function"
        let pod = PodBuilder::new("p").toleration("cpu-type", "Equal", "arm64", "NoSchedule").toleration(
            "disk-type",
            "Equal",
            "ssd",
            "NoSchedule",
        );
        assert_eq!(
            scores(
                pod,
                &[
                    NodeBuilder::new("nodeA"),
                    NodeBuilder::new("nodeB").taint("cpu-type", "arm64", "NoSchedule"),
                    NodeBuilder::new("nodeC").taint("cpu-type", "arm64", "PreferNoSchedule").taint(
                        "disk-type",
                        "ssd",
                        "PreferNoSchedule"
                    ),
                ]
            ),
            vec![100, 100, 0]
        );
        // "Default behaviour No taints and tolerations, lands on node with no taints"
        assert_eq!(
            scores(
                PodBuilder::new("p"),
                &[NodeBuilder::new("nodeA"), NodeBuilder::new("nodeB").taint("cpu-type", "arm64", "PreferNoSchedule")]
            ),
            vec![100, 0]
        );
        // An empty-effect toleration also tolerates PreferNoSchedule taints.
        assert_eq!(
            scores(
                PodBuilder::new("p").toleration("cpu-type", "Exists", "", ""),
                &[NodeBuilder::new("nodeA"), NodeBuilder::new("nodeB").taint("cpu-type", "arm64", "PreferNoSchedule")]
            ),
            vec![100, 100]
        );
    }
}
