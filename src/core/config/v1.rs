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

/// The gates of v1.35's `applyFeatureGates` that add a plugin to the defaults beyond
/// DynamicResources (GA, always in [`DEFAULT_MULTI_POINT`]): GangScheduling, appended to the
/// `multiPoint` defaults when `GangScheduling` is on (which needs `GenericWorkload`).
pub const GATED_DEFAULT_PLUGINS: &[(&str, &str)] = &[("GangScheduling", "GangScheduling")];

/// Add the gated default plugins to merged profiles, where merging them into the defaults would
/// have put them: right after the last default `multiPoint` plugin the profile kept (custom
/// plugins follow the defaults), unless the profile disables it (or every default, `*`) or
/// names it itself. The flag's gates are only known after the configuration is loaded.
pub fn apply_feature_gates(profiles: &mut [super::types::Profile], gates: &crate::core::features::FeatureGates) {
    for (plugin, gate) in GATED_DEFAULT_PLUGINS {
        if !gates.enabled(gate) {
            continue;
        }
        for p in profiles.iter_mut() {
            let set = &mut p.plugins.multi_point;
            let named = |refs: &[PluginRef]| refs.iter().any(|r| r.name == *plugin || r.name == "*");
            if named(&set.disabled) || set.enabled.iter().any(|r| r.name == *plugin) {
                continue;
            }
            let last_default = set.enabled.iter().rposition(|r| DEFAULT_MULTI_POINT.iter().any(|(n, _)| *n == r.name));
            let at = last_default.map_or(set.enabled.len(), |i| i + 1);
            set.enabled.insert(at, PluginRef::new(plugin, 0));
        }
    }
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
    fn gang_scheduling_joins_the_defaults_only_with_its_gate() {
        use crate::core::config::types::Profile;
        let profile = |custom: &Plugins| Profile {
            scheduler_name: "s".into(),
            percentage_of_nodes_to_score: None,
            plugins: merge(custom),
            plugin_config: Vec::new(),
        };
        let names = |p: &Profile| p.plugins.multi_point.enabled.iter().map(|r| r.name.clone()).collect::<Vec<_>>();
        let mut flag = crate::core::features::FeatureGatesFlag::default();
        flag.push("GenericWorkload=true,GangScheduling=true");
        let on = flag.resolve().expect("gates").gates;
        let mut off = vec![profile(&Plugins::default())];
        apply_feature_gates(&mut off, &Default::default());
        assert!(!names(&off[0]).contains(&"GangScheduling".to_string()));
        let custom = Plugins {
            multi_point: PluginSet { enabled: vec![PluginRef::new("Custom", 0)], disabled: Vec::new() },
            ..Plugins::default()
        };
        let mut ps = vec![profile(&Plugins::default()), profile(&custom)];
        apply_feature_gates(&mut ps, &on);
        assert_eq!(names(&ps[0]).last().map(String::as_str), Some("GangScheduling"));
        let n = names(&ps[1]);
        assert_eq!(&n[n.len() - 2..], ["GangScheduling", "Custom"], "after the defaults, before custom plugins");
        let disabled = Plugins {
            multi_point: PluginSet { enabled: Vec::new(), disabled: names_of(&["GangScheduling"]) },
            ..Plugins::default()
        };
        let mut ps = vec![profile(&disabled)];
        apply_feature_gates(&mut ps, &on);
        assert!(!names(&ps[0]).contains(&"GangScheduling".to_string()));
    }

    fn names_of(n: &[&str]) -> Vec<PluginRef> {
        names(n)
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
