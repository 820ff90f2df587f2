//! NodeName (pkg/scheduler/framework/plugins/nodename/node_name.go): a pod that already names its
//! node (`spec.nodeName`) fits only that node.

use crate::core::cache::{Cache, NodeInfo};
use crate::core::framework::{EventMask, Plugin, PluginState, Points, Rejection};
use crate::core::model::PodInfo;

use crate::core::texts::node_name::ERR_REASON;

/// The plugin (stateless).
pub struct NodeName;

impl Plugin for NodeName {
    fn name(&self) -> &'static str {
        super::names::NODE_NAME
    }

    fn points(&self) -> Points {
        Points { filter: true, ..Default::default() }
    }

    /// Only a new node can carry the requested name.
    fn events(&self) -> EventMask {
        EventMask::NODE_ADD
    }

    fn filter(&self, _cache: &Cache, pod: &PodInfo, node: &NodeInfo, _state: &PluginState) -> Result<(), Rejection> {
        if pod.node_name.is_empty() || *pod.node_name == *node.node.name {
            Ok(())
        } else {
            Err(Rejection::unresolvable(ERR_REASON))
        }
    }
}

impl super::FilterAll for NodeName {
    fn filter_all(&self, cache: &Cache, pod: &PodInfo, nodes: &[&NodeInfo], state: &PluginState, out: &mut super::Rejections) {
        if !pod.node_name.is_empty() {
            super::reject_each(nodes, out, |node| self.filter(cache, pod, node, state))
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::core::framework::plugins::test_util::{single_node, NodeBuilder, PodBuilder};
    use crate::core::framework::Code;

    #[test]
    fn upstream_table() {
        // node_name_test.go TestNodeName.
        let cache = single_node(NodeBuilder::new("foo"), &[]);
        let n = cache.nodes().next().unwrap();
        // "no host specified"
        assert!(NodeName.filter(&cache, &PodBuilder::new("p").info(), n, &None).is_ok());
        // "host matches"
        assert!(NodeName.filter(&cache, &PodBuilder::new("p").node_name("foo").info(), n, &None).is_ok());
        // "host doesn't match"
        let r = NodeName.filter(&cache, &PodBuilder::new("p").node_name("bar").info(), n, &None).unwrap_err();
        assert_eq!((r.code, r.message().as_str()), (Code::UnschedulableAndUnresolvable, ERR_REASON));
    }
}
