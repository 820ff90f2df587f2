//! Default plugins of `kubescheduler.config.k8s.io/v1beta2`: one list per extension point, no
//! multiPoint (upstream `pkg/scheduler/apis/config/v1beta2/default_plugins.go` at its last release,
//! v1.27: PodSchedulingReadiness on, so `SchedulingGates` runs at PreEnqueue; VolumeCapacityPriority
//! off). The in-tree cloud volume-limit plugins of that list no longer exist and are left out.
//!
//! The converted profile disables `multiPoint` (`disabled: ["*"]`), so that the v1 form written by
//! [`super::to_yaml`] means the same per-point lists when read back.

use super::plugins::{merge_plugins, names, MergeRule};
use super::types::{PluginRef, PluginSet, Plugins};

fn enabled(list: Vec<PluginRef>) -> PluginSet {
    PluginSet { enabled: list, disabled: Vec::new() }
}

/// The default plugins of a v1beta2 profile.
pub fn default_plugins() -> Plugins {
    Plugins {
        pre_enqueue: enabled(names(&["SchedulingGates"])),
        queue_sort: enabled(names(&["PrioritySort"])),
        pre_filter: enabled(names(&[
            "NodeResourcesFit",
            "NodePorts",
            "VolumeRestrictions",
            "PodTopologySpread",
            "InterPodAffinity",
            "VolumeBinding",
            "VolumeZone",
            "NodeAffinity",
            // Upstream's list ends with TaintToleration, which v1.35's plugin no longer implements
            // at PreFilter (its Filter needs no pre-computation); kube-scheduler v1.35 cannot load
            // v1beta2 at all, so the converted profile keeps only what this version can run.
        ])),
        filter: enabled(names(&[
            "NodeUnschedulable",
            "NodeName",
            "TaintToleration",
            "NodeAffinity",
            "NodePorts",
            "NodeResourcesFit",
            "VolumeRestrictions",
            "NodeVolumeLimits",
            "VolumeBinding",
            "VolumeZone",
            "PodTopologySpread",
            "InterPodAffinity",
        ])),
        post_filter: enabled(names(&["DefaultPreemption"])),
        pre_score: enabled(names(&["InterPodAffinity", "PodTopologySpread", "TaintToleration", "NodeAffinity"])),
        score: enabled(vec![
            PluginRef::new("NodeResourcesBalancedAllocation", 1),
            PluginRef::new("ImageLocality", 1),
            PluginRef::new("InterPodAffinity", 1),
            PluginRef::new("NodeResourcesFit", 1),
            PluginRef::new("NodeAffinity", 1),
            PluginRef::new("PodTopologySpread", 2),
            PluginRef::new("TaintToleration", 1),
        ]),
        reserve: enabled(names(&["VolumeBinding"])),
        pre_bind: enabled(names(&["VolumeBinding"])),
        bind: enabled(names(&["DefaultBinder"])),
        ..Plugins::default()
    }
}

/// A v1beta2 profile's plugins: defaults re-configured in place, custom plugins appended.
pub fn merge(custom: &Plugins) -> Plugins {
    let mut p = merge_plugins(MergeRule::ReplaceInPlace, &default_plugins(), custom);
    p.multi_point = PluginSet { enabled: Vec::new(), disabled: names(&["*"]) };
    p
}

#[cfg(test)]
mod tests {
    use super::*;

    // Upstream v1beta2 default_plugins_test.go TestApplyFeatureGates "Feature gates disabled" shape
    // (minus removed plugins) and weights.
    #[test]
    fn defaults() {
        let p = default_plugins();
        let score: Vec<(&str, i32)> = p.score.enabled.iter().map(|r| (r.name.as_str(), r.weight)).collect();
        assert_eq!(score[5], ("PodTopologySpread", 2));
        assert_eq!(score.iter().map(|s| s.1).sum::<i32>(), 8);
        assert_eq!(p.filter.enabled.len(), 12);
        assert!(p.multi_point.enabled.is_empty());
    }

    // Upstream v1beta2 default_plugins_test.go TestMergePlugins "ReplaceDefaultPluginWithCustomWeight".
    #[test]
    fn re_configures_in_place() {
        let custom = Plugins {
            score: PluginSet {
                enabled: vec![PluginRef::new("ImageLocality", 5), PluginRef::new("X", 1)],
                disabled: names(&["TaintToleration"]),
            },
            ..Plugins::default()
        };
        let got = merge(&custom);
        assert_eq!(got.score.enabled[1], PluginRef::new("ImageLocality", 5));
        assert_eq!(got.score.enabled.last(), Some(&PluginRef::new("X", 1)));
        assert!(got.score.disabled.is_empty());
        assert!(!got.score.enabled.iter().any(|p| p.name == "TaintToleration"));
        assert_eq!(got.multi_point.disabled, names(&["*"]));
    }
}
