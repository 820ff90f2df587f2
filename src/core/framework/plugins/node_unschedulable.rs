//! NodeUnschedulable (pkg/scheduler/framework/plugins/nodeunschedulable/node_unschedulable.go):
//! a cordoned node (`spec.unschedulable`) takes only pods that tolerate the
//! `node.kubernetes.io/unschedulable:NoSchedule` taint (DaemonSet pods do).

use crate::core::cache::{Cache, NodeInfo};
use crate::core::framework::{EventMask, Plugin, PluginState, Points, Rejection};
use crate::core::model::{PodInfo, TolerationOperator};

use crate::core::texts::node_unschedulable::ERR_REASON_UNSCHEDULABLE;
/// `v1.TaintNodeUnschedulable`.
pub const TAINT_NODE_UNSCHEDULABLE: &str = "node.kubernetes.io/unschedulable";

/// The plugin (stateless).
pub struct NodeUnschedulable;

/// Whether the pod tolerates `{node.kubernetes.io/unschedulable, NoSchedule}` (empty value):
/// `v1.Toleration.ToleratesTaint` specialised to that taint, so the check never allocates.
pub fn tolerates_unschedulable(pod: &PodInfo) -> bool {
    pod.tolerations.iter().any(|t| {
        (t.effect.is_empty() || &*t.effect == "NoSchedule")
            && (t.key.is_empty() || &*t.key == TAINT_NODE_UNSCHEDULABLE)
            && match t.operator {
                TolerationOperator::Exists => true,
                TolerationOperator::Equal => t.value.is_empty(),
                TolerationOperator::Other => false,
            }
    })
}

impl Plugin for NodeUnschedulable {
    fn name(&self) -> &'static str {
        super::names::NODE_UNSCHEDULABLE
    }

    fn points(&self) -> Points {
        Points { filter: true, ..Default::default() }
    }

    /// Node added, taints or `spec.unschedulable` changed; or the pod's tolerations changed
    /// (upstream registers `Pod/UpdatePodToleration` too).
    fn events(&self) -> EventMask {
        EventMask::NODE_ADD | EventMask::NODE_SPEC_UNSCHEDULABLE | EventMask::NODE_TAINT | EventMask::POD_UPDATE
    }

    fn filter(&self, _cache: &Cache, pod: &PodInfo, node: &NodeInfo, _state: &PluginState) -> Result<(), Rejection> {
        if node.node.unschedulable && !tolerates_unschedulable(pod) {
            return Err(Rejection::unresolvable(ERR_REASON_UNSCHEDULABLE));
        }
        Ok(())
    }
}

impl super::FilterAll for NodeUnschedulable {
    fn filter_all(&self, _cache: &Cache, pod: &PodInfo, nodes: &[&NodeInfo], _state: &PluginState, out: &mut super::Rejections) {
        // The pod's tolerations are read once, and only if some node is cordoned.
        let mut tolerates = None;
        super::reject_each(nodes, out, |node| {
            if node.node.unschedulable && !*tolerates.get_or_insert_with(|| tolerates_unschedulable(pod)) {
                return Err(Rejection::unresolvable(ERR_REASON_UNSCHEDULABLE));
            }
            Ok(())
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::core::framework::plugins::test_util::{single_node, NodeBuilder, PodBuilder};
    use crate::core::framework::Code;

    fn run(pod: PodBuilder, node: NodeBuilder) -> Result<(), Rejection> {
        let cache = single_node(node, &[]);
        let n = cache.nodes().next().unwrap();
        NodeUnschedulable.filter(&cache, &pod.info(), n, &None)
    }

    #[test]
    fn upstream_table() {
        // node_unschedulable_test.go TestNodeUnschedulable.
        // "Does not schedule pod to unschedulable node (node.Spec.Unschedulable==true)"
        let r = run(PodBuilder::new("p"), NodeBuilder::new("n").unschedulable()).unwrap_err();
        assert_eq!((r.code, r.message().as_str()), (Code::UnschedulableAndUnresolvable, ERR_REASON_UNSCHEDULABLE));
        // "Schedule pod to normal node"
        assert!(run(PodBuilder::new("p"), NodeBuilder::new("n")).is_ok());
        // "Schedule pod with toleration to unschedulable node (node.Spec.Unschedulable==true)"
        let tolerant = PodBuilder::new("p").toleration(TAINT_NODE_UNSCHEDULABLE, "Exists", "", "NoSchedule");
        assert!(run(tolerant, NodeBuilder::new("n").unschedulable()).is_ok());
        // A toleration for another effect does not help.
        let wrong = PodBuilder::new("p").toleration(TAINT_NODE_UNSCHEDULABLE, "Exists", "", "NoExecute");
        assert!(run(wrong, NodeBuilder::new("n").unschedulable()).is_err());
        // Tolerate-everything (empty key, Exists) also covers it.
        assert!(run(PodBuilder::new("p").toleration("", "Exists", "", ""), NodeBuilder::new("n").unschedulable()).is_ok());
    }
}
