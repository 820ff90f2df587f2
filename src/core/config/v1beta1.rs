//! `kubescheduler.config.k8s.io/v1beta1` (Kubernetes 1.19–1.22), converted to today's plugins.
//!
//! Upstream never converted v1beta1 to a later version: v1beta1 and its legacy plugins were removed
//! together in v1.23, and users rewrote their files. We convert instead, the way the v1.23 migration
//! notes describe:
//! * the score plugins `NodeResourcesLeastAllocated`, `NodeResourcesMostAllocated` and
//!   `RequestedToCapacityRatio` become the `NodeResourcesFit` score plugin (same position, same
//!   weight) with the matching `scoringStrategy`, built from their args (`resources`, `shape`);
//! * `NodeResourcesFitArgs` keeps `ignoredResources`/`ignoredResourceGroups`;
//! * plugins Kubernetes removed are dropped with a warning when they only scored, and refused when
//!   they filtered (see [`super::plugins`]);
//! * `disablePreemption: true` (v1.19) removes DefaultPreemption from PostFilter; `unreserve` (v1.19)
//!   is ignored, as Reserve plugins unreserve since v1.20.
//!
//! Default plugins are those of upstream `pkg/scheduler/apis/config/v1beta1/default_plugins.go`
//! (v1.22; DefaultPodTopologySpread on, so no SelectorSpread), without NodePreferAvoidPods (removed
//! in v1.24) and the in-tree cloud volume-limit plugins; SchedulingGates is added at PreEnqueue so
//! pods that are not ready for scheduling stay queued, as every current profile does.

use super::args::{DecodedArgs, LegacyArgs};
use super::error::Problem;
use super::plugins::{merge_plugins, names, MergeRule};
use super::types::*;

/// The legacy score plugins that became NodeResourcesFit scoring strategies.
const LEGACY_SCORE: [&str; 3] = ["NodeResourcesLeastAllocated", "NodeResourcesMostAllocated", "RequestedToCapacityRatio"];

fn enabled(list: Vec<PluginRef>) -> PluginSet {
    PluginSet { enabled: list, disabled: Vec::new() }
}

/// The default plugins of a v1beta1 profile.
pub fn default_plugins() -> Plugins {
    Plugins {
        pre_enqueue: enabled(names(&["SchedulingGates"])),
        queue_sort: enabled(names(&["PrioritySort"])),
        pre_filter: enabled(names(&[
            "NodeResourcesFit",
            "NodePorts",
            "PodTopologySpread",
            "InterPodAffinity",
            "VolumeBinding",
            "NodeAffinity",
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
            PluginRef::new("NodeResourcesLeastAllocated", 1),
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

/// What the file said about one v1beta1 profile beyond its plugin sets.
pub struct ProfileInput<'a> {
    /// `profiles[i]`.
    pub path: &'a str,
    /// The profile's own plugin sets (removed plugins already filtered out).
    pub custom: &'a Plugins,
    /// Whether `plugins.unreserve` listed anything.
    pub unreserve_used: bool,
    /// Top-level `disablePreemption`.
    pub disable_preemption: bool,
    /// Decoded pluginConfig entries: (index in the file, plugin name, args).
    pub entries: Vec<(usize, String, DecodedArgs)>,
}

/// Plugins and plugin config of a converted v1beta1 profile.
pub fn convert_profile(
    input: ProfileInput<'_>,
    warnings: &mut Vec<String>,
    problems: &mut Vec<Problem>,
) -> (Plugins, Vec<PluginConfig>) {
    let path = input.path;
    let mut plugins = merge_plugins(MergeRule::Append, &default_plugins(), input.custom);
    plugins.multi_point = PluginSet { enabled: Vec::new(), disabled: names(&["*"]) };
    if input.unreserve_used {
        warnings.push(format!("{path}.plugins.unreserve: ignored: since v1.20 Reserve plugins also unreserve"));
    }
    if input.disable_preemption {
        plugins.post_filter.enabled.retain(|p| p.name != "DefaultPreemption");
        warnings.push("disablePreemption: converted to disabling the DefaultPreemption PostFilter plugin".to_string());
    }
    let chosen = legacy_score_plugin(&plugins, path, problems);
    for r in plugins.score.enabled.iter_mut().filter(|r| LEGACY_SCORE.contains(&r.name.as_str())) {
        warnings.push(format!(
            "{path}.plugins.score: {} (weight {}) converted to NodeResourcesFit with the matching scoringStrategy",
            r.name,
            if r.weight == 0 { 1 } else { r.weight }
        ));
        r.name = "NodeResourcesFit".to_string();
    }
    let configs = convert_plugin_config(path, chosen.as_deref(), input.entries, warnings, problems);
    (plugins, configs)
}

/// The one legacy score plugin the merged profile enables, if any; several different ones, or one
/// enabled twice, cannot become a single NodeResourcesFit and are refused.
fn legacy_score_plugin(plugins: &Plugins, path: &str, problems: &mut Vec<Problem>) -> Option<String> {
    let mut found: Vec<&str> = Vec::new();
    for r in &plugins.score.enabled {
        let name = r.name.as_str();
        if !LEGACY_SCORE.contains(&name) {
            continue;
        }
        if found.contains(&name) {
            problems.push(Problem::at(
                format!("{path}.plugins.score"),
                format!(
                    "plugin {name:?} already registered as \"ScorePlugin\" (it is a default score plugin: disable it \
                     in score.disabled to change its weight)"
                ),
            ));
            return None;
        }
        found.push(name);
    }
    if found.len() > 1 {
        problems.push(Problem::at(
            format!("{path}.plugins.score"),
            format!(
                "{} are all enabled, but they are now one NodeResourcesFit scoring strategy: keep one of them",
                found.join(" and ")
            ),
        ));
        return None;
    }
    found.first().map(|s| s.to_string())
}

/// The profile's plugin config with the chosen legacy plugin's args folded into NodeResourcesFit's.
fn convert_plugin_config(
    path: &str,
    chosen: Option<&str>,
    entries: Vec<(usize, String, DecodedArgs)>,
    warnings: &mut Vec<String>,
    problems: &mut Vec<Problem>,
) -> Vec<PluginConfig> {
    let mut configs: Vec<PluginConfig> = Vec::new();
    let mut strategy: Option<(usize, ScoringStrategy)> = None;
    for (j, name, decoded) in entries {
        match decoded {
            DecodedArgs::Typed(args) => configs.push(PluginConfig { name, args }),
            DecodedArgs::Legacy(l) if chosen == Some(name.as_str()) => strategy = Some((configs.len(), l.into_strategy())),
            DecodedArgs::Legacy(_) => {
                warnings.push(format!("{path}.pluginConfig[{j}]: args for {name} ignored: the plugin is not enabled in score"))
            }
            DecodedArgs::Removed => {
                warnings.push(format!("{path}.pluginConfig[{j}]: args for {name} ignored: the plugin was removed in v1.23"))
            }
        }
    }
    let strategy = match (strategy, chosen) {
        (Some(s), _) => Some(s),
        (None, Some("RequestedToCapacityRatio")) => {
            problems.push(Problem::at(
                format!("{path}.pluginConfig"),
                "RequestedToCapacityRatio is enabled without RequestedToCapacityRatioArgs: shape: Required value: at \
                 least one point must be specified",
            ));
            None
        }
        (None, Some("NodeResourcesMostAllocated")) => {
            Some((configs.len(), LegacyArgs::MostAllocated(default_cpu_memory_resources()).into_strategy()))
        }
        (None, Some(_)) => Some((configs.len(), LegacyArgs::LeastAllocated(default_cpu_memory_resources()).into_strategy())),
        (None, None) => None,
    };
    if let Some((pos, s)) = strategy {
        set_fit_strategy(&mut configs, pos, s);
    }
    configs
}

/// Put the strategy into the NodeResourcesFit args, creating them at `pos` when the file had none.
fn set_fit_strategy(configs: &mut Vec<PluginConfig>, pos: usize, strategy: ScoringStrategy) {
    for c in configs.iter_mut() {
        if let PluginArgs::NodeResourcesFit(fit) = &mut c.args {
            fit.scoring_strategy = strategy;
            return;
        }
    }
    let args = NodeResourcesFitArgs { scoring_strategy: strategy, ..NodeResourcesFitArgs::default() };
    configs.insert(
        pos.min(configs.len()),
        PluginConfig { name: "NodeResourcesFit".into(), args: PluginArgs::NodeResourcesFit(args) },
    );
}

#[cfg(test)]
mod tests {
    use super::*;

    fn input<'a>(custom: &'a Plugins, entries: Vec<(usize, String, DecodedArgs)>) -> ProfileInput<'a> {
        ProfileInput { path: "profiles[0]", custom, unreserve_used: false, disable_preemption: false, entries }
    }

    #[test]
    fn defaults_become_fit_least_allocated() {
        let (mut w, mut p) = (Vec::new(), Vec::new());
        let (plugins, configs) = convert_profile(input(&Plugins::default(), vec![]), &mut w, &mut p);
        assert!(p.is_empty());
        assert_eq!(plugins.score.enabled[3], PluginRef::new("NodeResourcesFit", 1));
        let PluginArgs::NodeResourcesFit(f) = &configs[0].args else { panic!("{configs:?}") };
        assert_eq!(f.scoring_strategy, ScoringStrategy::default());
    }

    #[test]
    fn most_allocated_with_args_and_weight() {
        let custom = Plugins {
            score: PluginSet {
                enabled: vec![PluginRef::new("NodeResourcesMostAllocated", 5)],
                disabled: names(&["NodeResourcesLeastAllocated"]),
            },
            ..Plugins::default()
        };
        let res = vec![ResourceSpec { name: "cpu".into(), weight: 3 }];
        let entries = vec![
            (0, "NodeResourcesMostAllocated".to_string(), DecodedArgs::Legacy(LegacyArgs::MostAllocated(res.clone()))),
            (1, "NodeResourcesLeastAllocated".to_string(), DecodedArgs::Legacy(LegacyArgs::LeastAllocated(res.clone()))),
        ];
        let (mut w, mut p) = (Vec::new(), Vec::new());
        let (plugins, configs) = convert_profile(input(&custom, entries), &mut w, &mut p);
        assert!(p.is_empty(), "{p:?}");
        assert_eq!(plugins.score.enabled.last(), Some(&PluginRef::new("NodeResourcesFit", 5)));
        assert_eq!(plugins.score.enabled.iter().filter(|r| r.name == "NodeResourcesFit").count(), 1);
        assert_eq!(configs.len(), 1);
        let PluginArgs::NodeResourcesFit(f) = &configs[0].args else { panic!() };
        assert_eq!(f.scoring_strategy.type_, ScoringStrategyType::MostAllocated);
        assert_eq!(f.scoring_strategy.resources, res);
        assert!(w.iter().any(|m| m.contains("args for NodeResourcesLeastAllocated ignored")), "{w:?}");
    }

    #[test]
    fn two_strategies_or_duplicates_are_refused() {
        let custom = Plugins {
            score: PluginSet { enabled: vec![PluginRef::new("NodeResourcesMostAllocated", 1)], disabled: vec![] },
            ..Plugins::default()
        };
        let (mut w, mut p) = (Vec::new(), Vec::new());
        convert_profile(input(&custom, vec![]), &mut w, &mut p);
        assert_eq!(p.len(), 1);
        assert!(p[0].to_string().contains("NodeResourcesLeastAllocated and NodeResourcesMostAllocated are all enabled"), "{p:?}");
        let custom = Plugins {
            score: PluginSet { enabled: vec![PluginRef::new("NodeResourcesLeastAllocated", 3)], disabled: vec![] },
            ..Plugins::default()
        };
        let (mut w, mut p) = (Vec::new(), Vec::new());
        convert_profile(input(&custom, vec![]), &mut w, &mut p);
        assert!(p[0].to_string().contains("already registered as \"ScorePlugin\""), "{p:?}");
    }

    #[test]
    fn rtcr_needs_args_and_fit_args_are_kept() {
        let custom = Plugins {
            score: PluginSet {
                enabled: vec![PluginRef::new("RequestedToCapacityRatio", 2)],
                disabled: names(&["NodeResourcesLeastAllocated"]),
            },
            ..Plugins::default()
        };
        let (mut w, mut p) = (Vec::new(), Vec::new());
        convert_profile(input(&custom, vec![]), &mut w, &mut p);
        assert!(p[0].to_string().contains("shape: Required value"), "{p:?}");
        let fit = NodeResourcesFitArgs { ignored_resources: vec!["example.com/x".into()], ..Default::default() };
        let shape = vec![UtilizationShapePoint { utilization: 0, score: 10 }];
        let entries = vec![
            (
                0,
                "RequestedToCapacityRatio".to_string(),
                DecodedArgs::Legacy(LegacyArgs::RequestedToCapacityRatio {
                    shape: shape.clone(),
                    resources: default_cpu_memory_resources(),
                }),
            ),
            (1, "NodeResourcesFit".to_string(), DecodedArgs::Typed(PluginArgs::NodeResourcesFit(fit))),
        ];
        let (mut w, mut p) = (Vec::new(), Vec::new());
        let (_, configs) = convert_profile(input(&custom, entries), &mut w, &mut p);
        assert!(p.is_empty());
        let PluginArgs::NodeResourcesFit(f) = &configs[0].args else { panic!() };
        assert_eq!(f.ignored_resources, vec!["example.com/x".to_string()]);
        assert_eq!(f.scoring_strategy.requested_to_capacity_ratio, Some(RequestedToCapacityRatioParam { shape }));
    }

    #[test]
    fn disable_preemption_and_unreserve() {
        let custom = Plugins::default();
        let mut i = input(&custom, vec![]);
        i.disable_preemption = true;
        i.unreserve_used = true;
        let (mut w, mut p) = (Vec::new(), Vec::new());
        let (plugins, _) = convert_profile(i, &mut w, &mut p);
        assert!(plugins.post_filter.enabled.is_empty());
        assert_eq!(w.len(), 3, "{w:?}");
    }
}
