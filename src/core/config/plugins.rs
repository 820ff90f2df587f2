//! Merging a profile's plugin sets into the version's defaults, and plugins that no longer exist.
//!
//! Three merge rules exist upstream (`mergePluginSet` in each version's `default_plugins.go`):
//! v1/v1beta3 keep the `disabled` list (multiPoint expansion needs it) and re-configure a default
//! plugin in place; v1beta2 re-configures in place but drops `disabled`; v1beta1 appends the custom
//! plugins after the remaining defaults. Duplicates are kept: the framework reports them, as upstream.

use super::error::{invalid, Problem};
use super::types::{PluginRef, PluginSet, Plugins};
use super::version::Version;
use super::wire::{WirePluginSet, WirePlugins};

/// How a version merges one extension point's custom set into its default set.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum MergeRule {
    /// v1 and v1beta3.
    KeepDisabled,
    /// v1beta2.
    ReplaceInPlace,
    /// v1beta1.
    Append,
}

/// Merge `custom` into `default` for one extension point.
pub fn merge_set(rule: MergeRule, default: &PluginSet, custom: &PluginSet) -> PluginSet {
    let disabled_names: Vec<&str> = custom.disabled.iter().chain(&default.disabled).map(|p| p.name.as_str()).collect();
    let all_disabled = disabled_names.contains(&"*");
    let mut enabled = Vec::new();
    let mut replaced = vec![false; custom.enabled.len()];
    if !all_disabled {
        for d in &default.enabled {
            if disabled_names.contains(&d.name.as_str()) {
                continue;
            }
            // Go's map keeps the last custom entry of a name; that one replaces the default.
            let replacement = match rule {
                MergeRule::Append => None,
                _ => custom.enabled.iter().rposition(|c| c.name == d.name),
            };
            match replacement {
                Some(i) => {
                    replaced[i] = true;
                    enabled.push(custom.enabled[i].clone());
                }
                None => enabled.push(d.clone()),
            }
        }
    }
    enabled.extend(custom.enabled.iter().zip(&replaced).filter(|(_, r)| !**r).map(|(c, _)| c.clone()));
    let disabled = match rule {
        MergeRule::KeepDisabled => custom.disabled.iter().chain(&default.disabled).map(|p| PluginRef::new(&p.name, 0)).collect(),
        _ => Vec::new(),
    };
    PluginSet { enabled, disabled }
}

/// Merge every extension point of `custom` into `default`.
pub fn merge_plugins(rule: MergeRule, default: &Plugins, custom: &Plugins) -> Plugins {
    let m = |d: &PluginSet, c: &PluginSet| merge_set(rule, d, c);
    Plugins {
        pre_enqueue: m(&default.pre_enqueue, &custom.pre_enqueue),
        queue_sort: m(&default.queue_sort, &custom.queue_sort),
        pre_filter: m(&default.pre_filter, &custom.pre_filter),
        filter: m(&default.filter, &custom.filter),
        post_filter: m(&default.post_filter, &custom.post_filter),
        pre_score: m(&default.pre_score, &custom.pre_score),
        score: m(&default.score, &custom.score),
        reserve: m(&default.reserve, &custom.reserve),
        permit: m(&default.permit, &custom.permit),
        pre_bind: m(&default.pre_bind, &custom.pre_bind),
        bind: m(&default.bind, &custom.bind),
        post_bind: m(&default.post_bind, &custom.post_bind),
        multi_point: m(&default.multi_point, &custom.multi_point),
    }
}

/// The set of one extension point by its YAML name.
pub fn set_mut<'a>(p: &'a mut Plugins, point: &str) -> Option<&'a mut PluginSet> {
    Some(match point {
        "preEnqueue" => &mut p.pre_enqueue,
        "queueSort" => &mut p.queue_sort,
        "preFilter" => &mut p.pre_filter,
        "filter" => &mut p.filter,
        "postFilter" => &mut p.post_filter,
        "preScore" => &mut p.pre_score,
        "score" => &mut p.score,
        "reserve" => &mut p.reserve,
        "permit" => &mut p.permit,
        "preBind" => &mut p.pre_bind,
        "bind" => &mut p.bind,
        "postBind" => &mut p.post_bind,
        "multiPoint" => &mut p.multi_point,
        _ => return None,
    })
}

/// A list of plugins without weights.
pub fn names(list: &[&str]) -> Vec<PluginRef> {
    list.iter().map(|n| PluginRef::new(n, 0)).collect()
}

/// Why an enabled plugin named in a file cannot be used as such.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Removal {
    /// Dropped with a warning: it only influenced scores, or something else now does its job.
    Drop(&'static str),
    /// Refused: it filtered nodes, so dropping it would place pods where the user forbade them.
    Refuse(&'static str),
    /// v1 rejects it outright (upstream `invalidPluginsByVersion`).
    InvalidInV1,
}

/// What happened to a plugin Kubernetes has removed, by name and extension point.
fn removal(version: Version, name: &str, point: &str) -> Option<Removal> {
    const VOLUME_LIMITS: &str = "the in-tree volume limit plugins were removed in v1.31; NodeVolumeLimits \
                                 counts every CSI volume";
    const SPREAD: &str = "it was removed in v1.27; PodTopologySpread's system default constraints spread \
                          pods of the same Service/ReplicaSet/StatefulSet instead";
    let filters = matches!(point, "preFilter" | "filter" | "multiPoint");
    Some(match name {
        "EBSLimits" | "GCEPDLimits" | "AzureDiskLimits" | "CinderLimits" if version == Version::V1 => Removal::InvalidInV1,
        "EBSLimits" | "GCEPDLimits" | "AzureDiskLimits" | "CinderLimits" => Removal::Drop(VOLUME_LIMITS),
        "NodePreferAvoidPods" => Removal::Drop("it was removed in v1.24 with the preferAvoidPods node annotation"),
        "SelectorSpread" | "DefaultPodTopologySpread" => Removal::Drop(SPREAD),
        "NodeResourcesLimits" => Removal::Drop("it was an alpha score plugin removed in v1.22"),
        "NodeLabel" | "ServiceAffinity" if filters => Removal::Refuse(
            "it was removed in v1.23 and filtered nodes, so it cannot simply be dropped; express the rule with \
             node affinity (NodeLabel) or pod affinity (ServiceAffinity) in the pods, or in NodeAffinityArgs.addedAffinity",
        ),
        "NodeLabel" | "ServiceAffinity" => Removal::Drop("it was removed in v1.23; its scoring has no replacement"),
        "NodeResourcesLeastAllocated" | "NodeResourcesMostAllocated" | "RequestedToCapacityRatio"
            if version != Version::V1beta1 =>
        {
            Removal::Refuse(
                "it was removed in v1.23; enable NodeResourcesFit and set NodeResourcesFitArgs.scoringStrategy.type \
                 (LeastAllocated, MostAllocated or RequestedToCapacityRatio) instead",
            )
        }
        _ => return None,
    })
}

/// The profile's own plugin sets as written (v1beta1's `unreserve` excluded), with plugins that
/// Kubernetes removed dropped (with a warning) or refused (with a problem at their path).
pub fn custom_plugins(
    version: Version,
    wire: Option<&WirePlugins>,
    profile_path: &str,
    warnings: &mut Vec<String>,
    problems: &mut Vec<Problem>,
) -> Plugins {
    let mut out = Plugins::default();
    let Some(wire) = wire else { return out };
    for (point, set) in wire.points() {
        let (Some(set), Some(target)) = (set, set_mut(&mut out, point)) else { continue };
        *target = custom_set(version, set, &format!("{profile_path}.plugins.{point}"), point, warnings, problems);
    }
    out
}

fn custom_set(
    version: Version,
    set: &WirePluginSet,
    path: &str,
    point: &str,
    warnings: &mut Vec<String>,
    problems: &mut Vec<Problem>,
) -> PluginSet {
    let mut out = PluginSet::default();
    for (j, p) in set.enabled.iter().flatten().enumerate() {
        let name = p.name.clone().unwrap_or_default();
        let epath = format!("{path}.enabled[{j}]");
        match removal(version, &name, point) {
            None => out.enabled.push(PluginRef::new(&name, p.weight.unwrap_or(0))),
            Some(Removal::Drop(why)) => warnings.push(format!("{epath}: plugin {name} ignored: {why}")),
            Some(Removal::Refuse(why)) => problems.push(Problem::at(epath, format!("plugin {name} is not supported: {why}"))),
            Some(Removal::InvalidInV1) => {
                let v = Version::V1.api_version();
                problems.push(invalid(
                    &epath,
                    format!("{name:?}"),
                    &format!("was invalid in version {v:?} (KubeSchedulerConfiguration is version {v:?})"),
                ));
            }
        }
    }
    for p in set.disabled.iter().flatten() {
        let name = p.name.clone().unwrap_or_default();
        if removal(version, &name, point).is_none() {
            out.disabled.push(PluginRef::new(&name, 0));
        }
    }
    out
}

/// Sorted, de-duplicated names of every enabled plugin (upstream `pluginsNames`): the plugins that
/// get default args when the profile configures none.
pub fn enabled_names(p: &Plugins) -> Vec<String> {
    let mut names: Vec<String> =
        super::validate::plugin_sets(p).iter().flat_map(|(_, s)| s.enabled.iter().map(|r| r.name.clone())).collect();
    names.sort();
    names.dedup();
    names
}

#[cfg(test)]
mod tests {
    use super::*;

    fn set(enabled: &[(&str, i32)], disabled: &[&str]) -> PluginSet {
        PluginSet { enabled: enabled.iter().map(|(n, w)| PluginRef::new(n, *w)).collect(), disabled: names(disabled) }
    }

    // Upstream v1 default_plugins_test.go TestMergePlugins cases.
    #[test]
    fn v1_merge_cases() {
        let default = set(&[("DefaultPlugin1", 0), ("DefaultPlugin2", 0)], &[]);
        // "AppendCustomPlugin"
        let got = merge_set(MergeRule::KeepDisabled, &default, &set(&[("CustomPlugin", 0)], &[]));
        assert_eq!(got, set(&[("DefaultPlugin1", 0), ("DefaultPlugin2", 0), ("CustomPlugin", 0)], &[]));
        // "InsertAfterDefaultPlugins2"
        let got = merge_set(
            MergeRule::KeepDisabled,
            &default,
            &set(&[("CustomPlugin", 0), ("DefaultPlugin2", 0)], &["DefaultPlugin2"]),
        );
        assert_eq!(got, set(&[("DefaultPlugin1", 0), ("CustomPlugin", 0), ("DefaultPlugin2", 0)], &["DefaultPlugin2"]));
        // "InsertBeforeAllPlugins"
        let got = merge_set(
            MergeRule::KeepDisabled,
            &default,
            &set(&[("CustomPlugin", 0), ("DefaultPlugin2", 0), ("DefaultPlugin1", 0)], &["*"]),
        );
        assert_eq!(got, set(&[("CustomPlugin", 0), ("DefaultPlugin2", 0), ("DefaultPlugin1", 0)], &["*"]));
        // "ReorderDefaultPlugins"
        let got = merge_set(MergeRule::KeepDisabled, &default, &set(&[("DefaultPlugin2", 0), ("DefaultPlugin1", 0)], &["*"]));
        assert_eq!(got, set(&[("DefaultPlugin2", 0), ("DefaultPlugin1", 0)], &["*"]));
        // "ApplyCustomWeightToDefaultPlugin": replaced in place.
        let got = merge_set(MergeRule::KeepDisabled, &default, &set(&[("DefaultPlugin1", 5)], &[]));
        assert_eq!(got, set(&[("DefaultPlugin1", 5), ("DefaultPlugin2", 0)], &[]));
        // "RepeatedCustomPlugin": the last duplicate replaces, the others are appended.
        let got = merge_set(MergeRule::KeepDisabled, &default, &set(&[("DefaultPlugin1", 1), ("DefaultPlugin1", 2)], &[]));
        assert_eq!(got, set(&[("DefaultPlugin1", 2), ("DefaultPlugin2", 0), ("DefaultPlugin1", 1)], &[]));
    }

    #[test]
    fn other_rules() {
        let default = set(&[("A", 1), ("B", 1)], &[]);
        let custom = set(&[("A", 3)], &["B"]);
        assert_eq!(merge_set(MergeRule::ReplaceInPlace, &default, &custom), set(&[("A", 3)], &[]));
        // v1beta1 appends even a default it re-enables (the framework then reports the duplicate).
        assert_eq!(merge_set(MergeRule::Append, &default, &custom), set(&[("A", 1), ("A", 3)], &[]));
    }

    #[test]
    fn removed_plugins() {
        let wire = WirePlugins::default();
        let mut w = Vec::new();
        let mut p = Vec::new();
        assert_eq!(custom_plugins(Version::V1, Some(&wire), "profiles[0]", &mut w, &mut p), Plugins::default());
        assert_eq!(removal(Version::V1, "EBSLimits", "filter"), Some(Removal::InvalidInV1));
        assert!(matches!(removal(Version::V1beta2, "EBSLimits", "filter"), Some(Removal::Drop(_))));
        assert!(matches!(removal(Version::V1beta1, "NodeLabel", "filter"), Some(Removal::Refuse(_))));
        assert!(matches!(removal(Version::V1beta1, "NodeLabel", "score"), Some(Removal::Drop(_))));
        assert_eq!(removal(Version::V1beta1, "NodeResourcesMostAllocated", "score"), None);
        assert!(matches!(removal(Version::V1, "NodeResourcesMostAllocated", "score"), Some(Removal::Refuse(_))));
        assert_eq!(removal(Version::V1, "NodeResourcesFit", "score"), None);
    }

    #[test]
    fn enabled_names_are_sorted_and_unique() {
        let p = Plugins { multi_point: set(&[("B", 0), ("A", 0)], &[]), score: set(&[("A", 1)], &["C"]), ..Default::default() };
        assert_eq!(enabled_names(&p), ["A", "B"]);
    }
}
