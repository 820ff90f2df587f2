//! The plugin registry: one file per upstream plugin, names as in upstream's `names.go`.
//! [`new_plugin`] is the only way the framework obtains plugins, so every plugin listed here is
//! exercised by the profiles that enable it.

pub mod default_binder;
pub mod default_preemption;
pub mod dynamic_resources;
pub mod node_volume_limits;
pub mod priority_sort;
pub mod scheduling_gates;
pub mod volume_binding;
pub mod volume_restrictions;
pub mod volume_zone;

use super::Plugin;
use crate::config::PluginArgs;
use std::sync::Arc;

/// Plugin names (pkg/scheduler/framework/plugins/names/names.go).
pub mod names {
    pub const PRIORITY_SORT: &str = "PrioritySort";
    pub const DEFAULT_BINDER: &str = "DefaultBinder";
    pub const DEFAULT_PREEMPTION: &str = "DefaultPreemption";
    pub const DYNAMIC_RESOURCES: &str = "DynamicResources";
    pub const IMAGE_LOCALITY: &str = "ImageLocality";
    pub const INTER_POD_AFFINITY: &str = "InterPodAffinity";
    pub const NODE_AFFINITY: &str = "NodeAffinity";
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

/// Context shared by plugin constructors (feature switches that are not per-plugin args).
#[derive(Debug, Clone, Default)]
pub struct PluginContext {}

/// Instantiate a plugin by name. `Ok(None)` means no plugin of that name exists.
pub fn new_plugin(name: &str, args: Option<&PluginArgs>, ctx: &PluginContext) -> Result<Option<Arc<dyn Plugin>>, String> {
    let _ = ctx;
    let p: Arc<dyn Plugin> = match name {
        names::PRIORITY_SORT => Arc::new(priority_sort::PrioritySort),
        names::DEFAULT_BINDER => Arc::new(default_binder::DefaultBinder),
        names::SCHEDULING_GATES => Arc::new(scheduling_gates::SchedulingGates),
        names::DYNAMIC_RESOURCES => Arc::new(dynamic_resources::DynamicResources),
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
        _ => return Ok(None),
    };
    Ok(Some(p))
}

/// Whether a plugin name is known to this build (for validating `pluginConfig`).
pub fn is_known(name: &str) -> bool {
    matches!(new_plugin(name, None, &PluginContext::default()), Ok(Some(_)))
}
