//! NodeDeclaredFeatures (pkg/scheduler/framework/plugins/nodedeclaredfeatures, v1.35): with its
//! gate off — the default, NodeDeclaredFeatures is alpha in v1.35 — upstream's `New` returns the
//! plugin disabled: PreFilter skips it and Filter passes every node, so a profile that names it
//! is valid and unchanged. That is all edgesched implements: the gate on (node
//! `status.declaredFeatures` matched against the features a pod's spec needs) is not modelled,
//! and `--feature-gates=NodeDeclaredFeatures=true` gets the "without effect" warning.

use crate::core::cache::{Cache, NodeInfo};
use crate::core::framework::{Plugin, PluginState, Points, PreFilterOutcome, Rejection};
use crate::core::model::PodInfo;

/// The plugin as upstream builds it with its gate off.
pub struct NodeDeclaredFeatures;

impl Plugin for NodeDeclaredFeatures {
    fn name(&self) -> &'static str {
        super::names::NODE_DECLARED_FEATURES
    }

    /// The points upstream's type implements (a profile may enable it at either).
    fn points(&self) -> Points {
        Points { pre_filter: true, filter: true, ..Default::default() }
    }

    fn pre_filter(&self, _cache: &Cache, _pod: &PodInfo, _state: &mut PluginState) -> PreFilterOutcome {
        PreFilterOutcome::Skip
    }

    fn filter(&self, _cache: &Cache, _pod: &PodInfo, _node: &NodeInfo, _state: &PluginState) -> Result<(), Rejection> {
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::core::framework::plugins::test_util::PodBuilder;

    /// Named in a profile it is known and, as upstream's disabled plugin, keeps every node.
    #[test]
    fn known_and_without_effect() {
        assert!(super::super::is_known("NodeDeclaredFeatures"));
        let pod = PodBuilder::new("p").info();
        let mut state = None;
        assert!(matches!(NodeDeclaredFeatures.pre_filter(&Cache::new(), &pod, &mut state), PreFilterOutcome::Skip));
    }
}
