//! Default plugins of `kubescheduler.config.k8s.io/v1` (and v1beta3, which used the same list).
//!
//! Upstream `pkg/scheduler/apis/config/v1/default_plugins.go` `getDefaultPlugins` as of v1.34:
//! one `multiPoint` list; each plugin runs at every extension point it implements, in this order.
//! `applyFeatureGates` inserts `DynamicResources` just before `DefaultPreemption` (the
//! DynamicResourceAllocation gate is GA and on since v1.34), and `SchedulingGates` heads the list
//! (PodSchedulingReadiness GA). The in-tree cloud volume-limit plugins (EBSLimits, GCEPDLimits,
//! AzureDiskLimits) were dropped from the list in v1.31 and are invalid in v1.

use super::plugins::{merge_plugins, MergeRule};
use super::types::{PluginRef, PluginSet, Plugins};

/// The default `multiPoint` plugins and their score weights (0 = not a scorer).
pub const DEFAULT_MULTI_POINT: [(&str, i32); 19] = [
    ("SchedulingGates", 0),
    ("PrioritySort", 0),
    ("NodeUnschedulable", 0),
    ("NodeName", 0),
    ("TaintToleration", 3),
    ("NodeAffinity", 2),
    ("NodePorts", 0),
    ("NodeResourcesFit", 1),
    ("VolumeRestrictions", 0),
    ("NodeVolumeLimits", 0),
    ("VolumeBinding", 0),
    ("VolumeZone", 0),
    ("PodTopologySpread", 2),
    ("InterPodAffinity", 2),
    ("DynamicResources", 0),
    ("DefaultPreemption", 0),
    ("NodeResourcesBalancedAllocation", 1),
    ("ImageLocality", 1),
    ("DefaultBinder", 0),
];

/// The default plugins of a v1 profile.
pub fn default_plugins() -> Plugins {
    let enabled = DEFAULT_MULTI_POINT.iter().map(|(n, w)| PluginRef::new(n, *w)).collect();
    Plugins { multi_point: PluginSet { enabled, disabled: Vec::new() }, ..Plugins::default() }
}

/// A v1 profile's plugins: its own sets merged into the defaults (`mergePlugins`).
pub fn merge(custom: &Plugins) -> Plugins {
    merge_plugins(MergeRule::KeepDisabled, &default_plugins(), custom)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::core::config::plugins::names;

    /// The default plugin table of `docs/configuration.md`.
    fn docs_table() -> String {
        let mut out = String::from("| plugin | score weight |\n|---|---:|\n");
        for (name, weight) in DEFAULT_MULTI_POINT {
            let weight = if weight == 0 { "–".to_string() } else { weight.to_string() };
            out += &format!("| {name} | {weight} |\n");
        }
        out
    }

    #[test]
    fn the_documented_default_plugins_are_these() {
        let doc = include_str!("../../../docs/configuration.md");
        let begin = "<!-- default-plugins:begin -->\n";
        let start = doc.find(begin).expect("docs/configuration.md has the default-plugins markers") + begin.len();
        let stop = doc[start..].find("<!-- default-plugins:end -->").expect("end marker") + start;
        assert_eq!(&doc[start..stop], docs_table(), "docs/configuration.md's default plugin table");
    }

    #[test]
    fn dynamic_resources_sits_before_default_preemption() {
        let names: Vec<&str> = DEFAULT_MULTI_POINT.iter().map(|(n, _)| *n).collect();
        let dra = names.iter().position(|n| *n == "DynamicResources").unwrap();
        assert_eq!(names[dra + 1], "DefaultPreemption");
        assert_eq!(names[0], "SchedulingGates");
    }

    // Upstream v1 default_plugins_test.go TestMergePlugins "multipoint with only disabled gets merged".
    #[test]
    fn multi_point_disable_all() {
        let custom = Plugins {
            multi_point: PluginSet { enabled: vec![PluginRef::new("Custom", 2)], disabled: names(&["*"]) },
            ..Plugins::default()
        };
        let got = merge(&custom);
        assert_eq!(got.multi_point.enabled, vec![PluginRef::new("Custom", 2)]);
        assert_eq!(got.multi_point.disabled, names(&["*"]));
    }

    #[test]
    fn merge_is_idempotent() {
        let custom = Plugins {
            multi_point: PluginSet { enabled: vec![PluginRef::new("TaintToleration", 5)], disabled: names(&["ImageLocality"]) },
            score: PluginSet { enabled: vec![PluginRef::new("X", 1)], disabled: names(&["*"]) },
            ..Plugins::default()
        };
        let once = merge(&custom);
        assert_eq!(merge(&once), once);
        assert_eq!(once.multi_point.enabled[4], PluginRef::new("TaintToleration", 5));
        assert!(!once.multi_point.enabled.iter().any(|p| p.name == "ImageLocality"));
    }
}
