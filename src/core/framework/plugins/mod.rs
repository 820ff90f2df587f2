//! The plugin registry: one file per upstream plugin, names as in upstream's `names.go`.
//! [`new_plugin`] is the only way the framework obtains plugins, so every plugin listed here is
//! exercised by the profiles that enable it.

pub mod balanced_allocation;
pub mod default_binder;
pub mod default_preemption;
pub mod dynamic_resources;
#[cfg(test)]
mod filter_all_tests;
pub mod gang_scheduling;
pub mod helper;
pub mod image_locality;
pub mod inter_pod_affinity;
pub mod node_affinity;
pub mod node_declared_features;
pub mod node_name;
pub mod node_ports;
pub mod node_resources_fit;
pub mod node_resources_fit_hints;
pub mod node_unschedulable;
pub mod node_volume_limits;
pub mod pod_topology_spread;
pub mod priority_sort;
pub mod scheduling_gates;
#[cfg(test)]
mod score_all_tests;
pub mod taint_toleration;
#[cfg(test)]
pub mod test_util;
#[cfg(test)]
mod topology_differential_tests;
#[cfg(test)]
mod topology_profile_tests;
pub mod volume_binding;
pub mod volume_restrictions;
pub mod volume_zone;

use super::{Plugin, PluginState, Rejection};
use crate::core::cache::{Cache, NodeInfo};
use crate::core::config::PluginArgs;
use crate::core::model::PodInfo;
use std::sync::Arc;

/// Score every feasible node in one call. The in-tree score plugins whose per-node work is a few
/// loads implement it: called node by node through the framework, the dispatch, the state's
/// downcast and the `Result` around each score cost as much as the score itself. The framework
/// uses it when it is not timing plugins one call at a time (see `cycle/score.rs`).
pub(crate) trait ScoreAll: Send + Sync {
    /// `out[k]` = what [`Plugin::score`] returns for `nodes[k]`. An error is the pod's (its
    /// state, its requests), the same for every node: the framework counts one call for it.
    fn score_all(
        &self,
        cache: &Cache,
        pod: &PodInfo,
        nodes: &[&NodeInfo],
        state: &PluginState,
        out: &mut [i64],
    ) -> Result<(), Rejection>;
}

/// [`Plugin::score`] of a [`ScoreAll`] plugin: one implementation of the score per plugin.
pub(crate) fn score_one(
    s: &dyn ScoreAll,
    cache: &Cache,
    pod: &PodInfo,
    node: &NodeInfo,
    state: &PluginState,
) -> Result<i64, Rejection> {
    let mut out = [0i64];
    s.score_all(cache, pod, std::slice::from_ref(&node), state, &mut out)?;
    Ok(out[0])
}

/// `out[k] = score(nodes[k])`: the loop of the whole-list scorers that cannot fail per node.
#[inline(always)]
pub(crate) fn fill_each(out: &mut [i64], nodes: &[&NodeInfo], mut score: impl FnMut(&NodeInfo) -> i64) -> Result<(), Rejection> {
    for (o, node) in out.iter_mut().zip(nodes) {
        *o = score(node);
    }
    Ok(())
}

/// Filter many nodes in one call. The in-tree Filter plugins that run for most pods implement
/// it (not the volume plugins, which skip pods without volumes): node by node
/// through the framework, the dispatch, the state's downcast and the `Result` moved out of each
/// call cost more than most filters' own checks. The framework uses it when no plugin call is
/// timed and every Filter plugin running for the pod has one (see `cycle/filter_walk.rs`).
pub(crate) trait FilterAll: Send + Sync {
    /// What [`Plugin::filter`] returns for each of `nodes`: every rejection is pushed to `out`
    /// with its node's index, indices ascending. Must have no effect but `out` (the framework
    /// may evaluate nodes the walk then does not take).
    fn filter_all(&self, cache: &Cache, pod: &PodInfo, nodes: &[&NodeInfo], state: &PluginState, out: &mut Rejections);
}

/// Rejections of a whole-list filter: `(index in the node list, rejection)`.
pub(crate) type Rejections = Vec<(usize, Rejection)>;

/// The loop of the whole-list filters: `(k, rejection)` for every node `check` rejects.
#[inline(always)]
pub(crate) fn reject_each(nodes: &[&NodeInfo], out: &mut Rejections, mut check: impl FnMut(&NodeInfo) -> Result<(), Rejection>) {
    for (k, node) in nodes.iter().enumerate() {
        if let Err(r) = check(node) {
            out.push((k, r));
        }
    }
}

/// A plugin with its whole-list scorer and filter, when it has them.
pub(crate) type WithScorer = (Arc<dyn Plugin>, Option<Arc<dyn ScoreAll>>, Option<Arc<dyn FilterAll>>);

fn scoring<P: Plugin + ScoreAll + 'static>(p: P) -> WithScorer {
    let p = Arc::new(p);
    (p.clone(), Some(p), None)
}

fn filtering<P: Plugin + FilterAll + 'static>(p: P) -> WithScorer {
    let p = Arc::new(p);
    (p.clone(), None, Some(p))
}

fn scoring_filtering<P: Plugin + ScoreAll + FilterAll + 'static>(p: P) -> WithScorer {
    let p = Arc::new(p);
    (p.clone(), Some(p.clone()), Some(p))
}

/// Plugin names (pkg/scheduler/framework/plugins/names/names.go).
pub mod names {
    pub const PRIORITY_SORT: &str = "PrioritySort";
    pub const DEFAULT_BINDER: &str = "DefaultBinder";
    pub const DEFAULT_PREEMPTION: &str = "DefaultPreemption";
    pub const DYNAMIC_RESOURCES: &str = "DynamicResources";
    pub const GANG_SCHEDULING: &str = "GangScheduling";
    pub const IMAGE_LOCALITY: &str = "ImageLocality";
    pub const INTER_POD_AFFINITY: &str = "InterPodAffinity";
    pub const NODE_AFFINITY: &str = "NodeAffinity";
    pub const NODE_DECLARED_FEATURES: &str = "NodeDeclaredFeatures";
    pub const NODE_NAME: &str = "NodeName";
    pub const NODE_PORTS: &str = "NodePorts";
    pub const NODE_RESOURCES_BALANCED_ALLOCATION: &str = "NodeResourcesBalancedAllocation";
    pub const NODE_RESOURCES_FIT: &str = "NodeResourcesFit";
    pub const NODE_UNSCHEDULABLE: &str = "NodeUnschedulable";
    pub const NODE_VOLUME_LIMITS: &str = "NodeVolumeLimits";
    pub const POD_TOPOLOGY_SPREAD: &str = "PodTopologySpread";
    pub const SCHEDULING_GATES: &str = "SchedulingGates";
    pub const TAINT_TOLERATION: &str = "TaintToleration";
    pub const VOLUME_BINDING: &str = "VolumeBinding";
    pub const VOLUME_RESTRICTIONS: &str = "VolumeRestrictions";
    pub const VOLUME_ZONE: &str = "VolumeZone";
}

/// Context shared by plugin constructors: the out-of-tree plugins of this process.
#[derive(Debug, Clone)]
pub struct PluginContext {
    pub registry: super::registry::Registry,
    /// The feature gates the in-tree plugins read (upstream's `feature.Features`).
    pub features: crate::core::features::FeatureGates,
}

impl Default for PluginContext {
    /// The installed out-of-tree plugins (none in the shipped binary) and v1.35's default gates.
    fn default() -> Self {
        PluginContext { registry: super::registry::installed().clone(), features: Default::default() }
    }
}

/// Instantiate a plugin by name. `Ok(None)` means no plugin of that name exists.
pub fn new_plugin(name: &str, args: Option<&PluginArgs>, ctx: &PluginContext) -> Result<Option<Arc<dyn Plugin>>, String> {
    Ok(new_plugin_scored(name, args, ctx)?.map(|(p, _, _)| p))
}

/// [`new_plugin`] with the plugin's [`ScoreAll`] (what the framework builds profiles from).
pub(crate) fn new_plugin_scored(
    name: &str,
    args: Option<&PluginArgs>,
    ctx: &PluginContext,
) -> Result<Option<WithScorer>, String> {
    if let Some(p) = new_in_tree(name, args, &ctx.features)? {
        return Ok(Some(p));
    }
    let Some(factory) = ctx.registry.get(name) else { return Ok(None) };
    let raw = match args {
        None => None,
        Some(PluginArgs::Other(v)) => Some(v),
        Some(other) => return Err(format!("unexpected args {}", args_kind(other))),
    };
    factory(raw).map(|p| Some((p, None, None)))
}

/// Whether this build has a plugin of that name (out-of-tree plugins may not reuse it).
pub fn is_in_tree(name: &str) -> bool {
    matches!(new_in_tree(name, None, &Default::default()), Ok(Some(_)))
}

fn new_in_tree(
    name: &str,
    args: Option<&PluginArgs>,
    features: &crate::core::features::FeatureGates,
) -> Result<Option<WithScorer>, String> {
    let p: Arc<dyn Plugin> = match name {
        names::PRIORITY_SORT => Arc::new(priority_sort::PrioritySort),
        names::DEFAULT_BINDER => Arc::new(default_binder::DefaultBinder),
        names::SCHEDULING_GATES => Arc::new(scheduling_gates::SchedulingGates),
        names::DYNAMIC_RESOURCES => Arc::new(dynamic_resources::DynamicResources::new(
            match args {
                Some(PluginArgs::DynamicResources(a)) => Some(a),
                None => None,
                Some(other) => return Err(format!("unexpected args {other:?}")),
            },
            features,
        )?),
        names::DEFAULT_PREEMPTION => Arc::new(default_preemption::DefaultPreemption {
            args: match args {
                Some(PluginArgs::DefaultPreemption(a)) => a.clone(),
                None => Default::default(),
                Some(other) => return Err(format!("unexpected args {other:?}")),
            },
        }),
        names::VOLUME_BINDING => Arc::new(volume_binding::VolumeBinding::new(match args {
            Some(PluginArgs::VolumeBinding(a)) => Some(a),
            _ => None,
        })),
        names::VOLUME_RESTRICTIONS => Arc::new(volume_restrictions::VolumeRestrictions),
        names::VOLUME_ZONE => Arc::new(volume_zone::VolumeZone),
        names::NODE_VOLUME_LIMITS => Arc::new(node_volume_limits::NodeVolumeLimits),
        names::NODE_DECLARED_FEATURES => Arc::new(node_declared_features::NodeDeclaredFeatures),
        names::GANG_SCHEDULING => Arc::new(gang_scheduling::GangScheduling),
        names::NODE_UNSCHEDULABLE => return Ok(Some(filtering(node_unschedulable::NodeUnschedulable))),
        names::NODE_NAME => return Ok(Some(filtering(node_name::NodeName))),
        names::NODE_PORTS => return Ok(Some(filtering(node_ports::NodePorts))),
        names::TAINT_TOLERATION => return Ok(Some(filtering(taint_toleration::TaintToleration))),
        names::NODE_AFFINITY => return Ok(Some(filtering(node_affinity::NodeAffinity::from_args(args)?))),
        names::NODE_RESOURCES_FIT => return Ok(Some(scoring_filtering(node_resources_fit::NodeResourcesFit::from_args(args)?))),
        names::NODE_RESOURCES_BALANCED_ALLOCATION => {
            return Ok(Some(scoring(balanced_allocation::BalancedAllocation::from_args(args)?)))
        }
        names::IMAGE_LOCALITY => return Ok(Some(scoring(image_locality::ImageLocality))),
        names::POD_TOPOLOGY_SPREAD => {
            return Ok(Some(scoring_filtering(pod_topology_spread::PodTopologySpread::from_args(args)?)))
        }
        names::INTER_POD_AFFINITY => return Ok(Some(scoring_filtering(inter_pod_affinity::InterPodAffinity::from_args(args)?))),
        _ => return Ok(None),
    };
    Ok(Some((p, None, None)))
}

/// The `kind` of plugin args, for "wrong args type" errors.
pub(crate) fn args_kind(args: &PluginArgs) -> &'static str {
    match args {
        PluginArgs::NodeResourcesFit(_) => "NodeResourcesFitArgs",
        PluginArgs::NodeResourcesBalancedAllocation(_) => "NodeResourcesBalancedAllocationArgs",
        PluginArgs::NodeAffinity(_) => "NodeAffinityArgs",
        PluginArgs::PodTopologySpread(_) => "PodTopologySpreadArgs",
        PluginArgs::InterPodAffinity(_) => "InterPodAffinityArgs",
        PluginArgs::DefaultPreemption(_) => "DefaultPreemptionArgs",
        PluginArgs::VolumeBinding(_) => "VolumeBindingArgs",
        PluginArgs::DynamicResources(_) => "DynamicResourcesArgs",
        PluginArgs::Other(_) => "unknown args",
    }
}

/// Whether a plugin name is known to this build (for validating `pluginConfig`).
pub fn is_known(name: &str) -> bool {
    matches!(new_plugin(name, None, &PluginContext::default()), Ok(Some(_)))
}
