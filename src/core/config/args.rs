//! Plugin `args`: decoded by plugin name (`<Plugin>Args`, as upstream's `decodeNestedObjects`),
//! defaulted like upstream's `SetDefaults_*Args`, and validated at their position in the file.
//!
//! Args of plugins this build has no schema for are kept verbatim ([`PluginArgs::Other`]), as upstream
//! keeps out-of-tree plugin args as `runtime.Unknown`. v1beta1's legacy score-plugin args are returned
//! as [`LegacyArgs`] for [`super::v1beta1`] to fold into NodeResourcesFit.

use super::error::{forbidden, invalid, not_supported, Problem};
use super::raw::{decode, Node};
use super::types::*;
use super::validate;
use super::version::{Version, GROUP};
use crate::core::api;
use serde::Deserialize;

/// The result of decoding one pluginConfig entry's args.
#[derive(Debug, Clone, PartialEq)]
pub enum DecodedArgs {
    /// Args of a plugin this build knows, defaulted and validated.
    Typed(PluginArgs),
    /// v1beta1 args of a score plugin that became a NodeResourcesFit scoring strategy.
    Legacy(LegacyArgs),
    /// Args of a plugin removed from Kubernetes (NodeLabel, ServiceAffinity); the caller decides.
    Removed,
}

/// v1beta1 score-plugin args, already defaulted and validated.
#[derive(Debug, Clone, PartialEq)]
pub enum LegacyArgs {
    /// `NodeResourcesLeastAllocatedArgs`.
    LeastAllocated(Vec<ResourceSpec>),
    /// `NodeResourcesMostAllocatedArgs`.
    MostAllocated(Vec<ResourceSpec>),
    /// `RequestedToCapacityRatioArgs`.
    RequestedToCapacityRatio { shape: Vec<UtilizationShapePoint>, resources: Vec<ResourceSpec> },
}

impl LegacyArgs {
    /// The NodeResourcesFit scoring strategy these args become.
    pub fn into_strategy(self) -> ScoringStrategy {
        match self {
            LegacyArgs::LeastAllocated(resources) => {
                ScoringStrategy { type_: ScoringStrategyType::LeastAllocated, resources, requested_to_capacity_ratio: None }
            }
            LegacyArgs::MostAllocated(resources) => {
                ScoringStrategy { type_: ScoringStrategyType::MostAllocated, resources, requested_to_capacity_ratio: None }
            }
            LegacyArgs::RequestedToCapacityRatio { shape, resources } => ScoringStrategy {
                type_: ScoringStrategyType::RequestedToCapacityRatio,
                resources,
                requested_to_capacity_ratio: Some(RequestedToCapacityRatioParam { shape }),
            },
        }
    }
}

/// The v1 API version string stored in typed args (the internal config is versionless and is
/// dumped as v1).
const V1_ARGS: &str = "kubescheduler.config.k8s.io/v1";

/// Plugins whose args have a schema in `version`.
fn has_schema(version: Version, plugin: &str) -> bool {
    let common =
        ["DefaultPreemption", "InterPodAffinity", "NodeAffinity", "PodTopologySpread", "VolumeBinding", "NodeResourcesFit"];
    let legacy =
        ["NodeResourcesLeastAllocated", "NodeResourcesMostAllocated", "RequestedToCapacityRatio", "NodeLabel", "ServiceAffinity"];
    common.contains(&plugin)
        || match version {
            Version::V1beta1 => legacy.contains(&plugin),
            _ => matches!(plugin, "NodeResourcesBalancedAllocation" | "DynamicResources"),
        }
}

/// The fully defaulted args of a plugin, if it takes args (the plugins upstream's v1 scheme
/// registers `<Plugin>Args` for): enabled plugins without pluginConfig get these.
pub fn default_args(plugin: &str) -> Option<PluginArgs> {
    Some(match plugin {
        "DefaultPreemption" => PluginArgs::DefaultPreemption(DefaultPreemptionArgs::default()),
        "DynamicResources" => PluginArgs::DynamicResources(DynamicResourcesArgs::default()),
        "InterPodAffinity" => PluginArgs::InterPodAffinity(InterPodAffinityArgs::default()),
        "NodeAffinity" => PluginArgs::NodeAffinity(NodeAffinityArgs { api_version: V1_ARGS.into(), added_affinity: None }),
        "NodeResourcesBalancedAllocation" => {
            PluginArgs::NodeResourcesBalancedAllocation(NodeResourcesBalancedAllocationArgs::default())
        }
        "NodeResourcesFit" => PluginArgs::NodeResourcesFit(NodeResourcesFitArgs::default()),
        "PodTopologySpread" => PluginArgs::PodTopologySpread(PodTopologySpreadArgs::default()),
        "VolumeBinding" => PluginArgs::VolumeBinding(VolumeBindingArgs::default()),
        _ => return None,
    })
}

/// Decode the args of `plugin` found at `path` (`profiles[i].pluginConfig[j].args`). `node` is `None`
/// when the entry has no args.
pub fn decode_args(version: Version, plugin: &str, node: Option<&Node>, path: &str) -> Result<DecodedArgs, Vec<Problem>> {
    if !has_schema(version, plugin) {
        let value = node.map(Node::to_json).unwrap_or(serde_json::Value::Null);
        return Ok(DecodedArgs::Typed(PluginArgs::Other(value)));
    }
    let version = args_version(version, plugin, node, path)?;
    let empty = Node { value: super::raw::Value::Null, line: 0, column: 0 };
    let node = node.unwrap_or(&empty);
    let decoded = match plugin {
        "DefaultPreemption" => typed(decode_default_preemption(node, path)),
        "InterPodAffinity" => typed(decode_inter_pod_affinity(node, path)),
        "NodeAffinity" => typed(decode_node_affinity(node, path)),
        "PodTopologySpread" => typed(decode_pod_topology_spread(version, node, path)),
        "VolumeBinding" => typed(decode_volume_binding(node, path)),
        "NodeResourcesFit" if version == Version::V1beta1 => typed(decode_fit_v1beta1(node, path)),
        "NodeResourcesFit" => typed(decode_fit(node, path)),
        "NodeResourcesBalancedAllocation" => typed(decode_balanced(node, path)),
        "DynamicResources" => typed(decode_dynamic_resources(node, path)),
        "NodeResourcesLeastAllocated" => {
            decode_legacy_resources(node, path).map(|r| DecodedArgs::Legacy(LegacyArgs::LeastAllocated(r)))
        }
        "NodeResourcesMostAllocated" => {
            decode_legacy_resources(node, path).map(|r| DecodedArgs::Legacy(LegacyArgs::MostAllocated(r)))
        }
        "RequestedToCapacityRatio" => decode_legacy_rtcr(node, path).map(DecodedArgs::Legacy),
        "NodeLabel" => one(decode::<WireNodeLabelArgs>(node, path)).map(|_| DecodedArgs::Removed),
        _ => one(decode::<WireServiceAffinityArgs>(node, path)).map(|_| DecodedArgs::Removed),
    }?;
    if let DecodedArgs::Typed(args) = &decoded {
        let problems = validate::validate_args(path, plugin, args);
        if !problems.is_empty() {
            return Err(problems);
        }
    }
    Ok(decoded)
}

fn typed(r: Result<PluginArgs, Vec<Problem>>) -> Result<DecodedArgs, Vec<Problem>> {
    r.map(DecodedArgs::Typed)
}

fn one<T>(r: Result<T, Problem>) -> Result<T, Vec<Problem>> {
    r.map_err(|p| vec![p])
}

/// Check `kind`/`apiVersion` inside the args and pick the version whose schema applies (an explicit
/// `apiVersion` wins over the document's, as in upstream).
fn args_version(doc: Version, plugin: &str, node: Option<&Node>, path: &str) -> Result<Version, Vec<Problem>> {
    let Some(node) = node else { return Ok(doc) };
    let want = format!("{plugin}Args");
    if let Some(k) = node.get("kind") {
        if k.as_str() != Some(want.as_str()) {
            let got = k.as_str().unwrap_or("a non-string value");
            return Err(vec![Problem::at(
                format!("{path}.kind"),
                format!("args for plugin {plugin} were not of type {want}, got {got} {}", k.position()),
            )]);
        }
    }
    let Some(av) = node.get("apiVersion") else { return Ok(doc) };
    match av.as_str().and_then(Version::parse) {
        Some(v) => Ok(v),
        None => Err(vec![Problem::at(
            format!("{path}.apiVersion"),
            format!("unknown apiVersion {:?} for {want}; expected {GROUP}/v1 {}", av.as_str().unwrap_or_default(), av.position()),
        )]),
    }
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
struct WireDefaultPreemptionArgs {
    #[allow(dead_code)]
    api_version: Option<String>,
    #[allow(dead_code)]
    kind: Option<String>,
    min_candidate_nodes_percentage: Option<i32>,
    min_candidate_nodes_absolute: Option<i32>,
}

fn decode_default_preemption(node: &Node, path: &str) -> Result<PluginArgs, Vec<Problem>> {
    let w: WireDefaultPreemptionArgs = one(decode(node, path))?;
    let d = DefaultPreemptionArgs::default();
    Ok(PluginArgs::DefaultPreemption(DefaultPreemptionArgs {
        api_version: V1_ARGS.into(),
        min_candidate_nodes_percentage: w.min_candidate_nodes_percentage.unwrap_or(d.min_candidate_nodes_percentage),
        min_candidate_nodes_absolute: w.min_candidate_nodes_absolute.unwrap_or(d.min_candidate_nodes_absolute),
    }))
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
struct WireInterPodAffinityArgs {
    #[allow(dead_code)]
    api_version: Option<String>,
    #[allow(dead_code)]
    kind: Option<String>,
    hard_pod_affinity_weight: Option<i32>,
    ignore_preferred_terms_of_existing_pods: Option<bool>,
}

fn decode_inter_pod_affinity(node: &Node, path: &str) -> Result<PluginArgs, Vec<Problem>> {
    let w: WireInterPodAffinityArgs = one(decode(node, path))?;
    Ok(PluginArgs::InterPodAffinity(InterPodAffinityArgs {
        api_version: V1_ARGS.into(),
        hard_pod_affinity_weight: w.hard_pod_affinity_weight.unwrap_or(1),
        ignore_preferred_terms_of_existing_pods: w.ignore_preferred_terms_of_existing_pods.unwrap_or(false),
    }))
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
struct WireNodeAffinityArgs {
    #[allow(dead_code)]
    api_version: Option<String>,
    #[allow(dead_code)]
    kind: Option<String>,
    added_affinity: Option<api::NodeAffinity>,
}

fn decode_node_affinity(node: &Node, path: &str) -> Result<PluginArgs, Vec<Problem>> {
    let w: WireNodeAffinityArgs = one(decode(node, path))?;
    Ok(PluginArgs::NodeAffinity(NodeAffinityArgs { api_version: V1_ARGS.into(), added_affinity: w.added_affinity }))
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
struct WirePodTopologySpreadArgs {
    #[allow(dead_code)]
    api_version: Option<String>,
    #[allow(dead_code)]
    kind: Option<String>,
    default_constraints: Option<Vec<api::TopologySpreadConstraint>>,
    defaulting_type: Option<String>,
}

/// v1beta1 defaulted `defaultingType` to List when constraints were given (upstream
/// v1beta1 `SetDefaults_PodTopologySpreadArgs`); later versions always default to System.
fn decode_pod_topology_spread(version: Version, node: &Node, path: &str) -> Result<PluginArgs, Vec<Problem>> {
    let w: WirePodTopologySpreadArgs = one(decode(node, path))?;
    let constraints = w.default_constraints.unwrap_or_default();
    let defaulting_type = match w.defaulting_type.as_deref().unwrap_or("") {
        "" if version == Version::V1beta1 && !constraints.is_empty() => DefaultingType::List,
        "" | "System" => DefaultingType::System,
        "List" => DefaultingType::List,
        other => return Err(vec![not_supported(&format!("{path}.defaultingType"), other, &["List", "System"])]),
    };
    Ok(PluginArgs::PodTopologySpread(PodTopologySpreadArgs {
        api_version: V1_ARGS.into(),
        default_constraints: constraints,
        defaulting_type,
    }))
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
struct WireVolumeBindingArgs {
    #[allow(dead_code)]
    api_version: Option<String>,
    #[allow(dead_code)]
    kind: Option<String>,
    bind_timeout_seconds: Option<i64>,
    shape: Option<Vec<WireShapePoint>>,
}

fn decode_volume_binding(node: &Node, path: &str) -> Result<PluginArgs, Vec<Problem>> {
    let w: WireVolumeBindingArgs = one(decode(node, path))?;
    Ok(PluginArgs::VolumeBinding(VolumeBindingArgs {
        api_version: V1_ARGS.into(),
        bind_timeout_seconds: w.bind_timeout_seconds.unwrap_or(600),
        shape: w.shape.unwrap_or_default().into_iter().map(WireShapePoint::into_point).collect(),
    }))
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
struct WireDynamicResourcesArgs {
    #[allow(dead_code)]
    api_version: Option<String>,
    #[allow(dead_code)]
    kind: Option<String>,
    filter_timeout: Option<SignedDuration>,
    binding_timeout: Option<SignedDuration>,
}

/// A `metav1.Duration` as decoded, sign kept: negative values decode and validation refuses them
/// with upstream's text.
struct SignedDuration {
    negative: bool,
    magnitude: GoDuration,
}

impl<'de> Deserialize<'de> for SignedDuration {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let s = String::deserialize(d)?;
        let (negative, rest) = match s.strip_prefix('-') {
            Some(rest) => (true, rest),
            None => (false, s.strip_prefix('+').unwrap_or(&s)),
        };
        let magnitude = parse_go_duration(rest).map(GoDuration).map_err(serde::de::Error::custom)?;
        Ok(SignedDuration { negative: negative && !magnitude.0.is_zero(), magnitude })
    }
}

/// Decode `DynamicResourcesArgs` with v1.35's defaults and `ValidateDynamicResourcesArgs`
/// (`pkg/scheduler/apis/config/validation/validation_pluginargs.go`) at v1.35's default gates:
/// DRASchedulerFilterTimeout is on (`filterTimeout` defaults to 10s and must not be negative),
/// DRADeviceBindingConditions is off (`bindingTimeout` is refused).
fn decode_dynamic_resources(node: &Node, path: &str) -> Result<PluginArgs, Vec<Problem>> {
    let w: WireDynamicResourcesArgs = one(decode(node, path))?;
    let mut errs = Vec::new();
    if let Some(t) = w.filter_timeout.as_ref().filter(|t| t.negative) {
        errs.push(invalid(&format!("{path}.filterTimeout"), format!("-{}", t.magnitude), "must be zero or positive"));
    }
    if w.binding_timeout.is_some() {
        errs.push(forbidden(
            &format!("{path}.bindingTimeout"),
            "DRADeviceBindingConditions or DRAResourceClaimDeviceStatus feature gate is disabled",
        ));
    }
    if !errs.is_empty() {
        return Err(errs);
    }
    let d = DynamicResourcesArgs::default();
    Ok(PluginArgs::DynamicResources(DynamicResourcesArgs {
        api_version: V1_ARGS.into(),
        filter_timeout: w.filter_timeout.map_or(d.filter_timeout, |t| t.magnitude),
    }))
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
struct WireResourceSpec {
    name: Option<String>,
    weight: Option<i64>,
}

impl WireResourceSpec {
    fn into_spec(self) -> ResourceSpec {
        ResourceSpec { name: self.name.unwrap_or_default(), weight: self.weight.unwrap_or(0) }
    }
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
struct WireShapePoint {
    utilization: Option<i32>,
    score: Option<i32>,
}

impl WireShapePoint {
    fn into_point(self) -> UtilizationShapePoint {
        UtilizationShapePoint { utilization: self.utilization.unwrap_or(0), score: self.score.unwrap_or(0) }
    }
}

fn into_specs(v: Option<Vec<WireResourceSpec>>) -> Vec<ResourceSpec> {
    v.unwrap_or_default().into_iter().map(WireResourceSpec::into_spec).collect()
}

/// Empty resource lists become cpu+memory and weight 0 becomes 1 (upstream `SetDefaults_*Args`).
fn default_weights(mut resources: Vec<ResourceSpec>) -> Vec<ResourceSpec> {
    if resources.is_empty() {
        return default_cpu_memory_resources();
    }
    for r in &mut resources {
        if r.weight == 0 {
            r.weight = 1;
        }
    }
    resources
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
struct WireScoringStrategy {
    #[serde(rename = "type")]
    type_: Option<String>,
    resources: Option<Vec<WireResourceSpec>>,
    requested_to_capacity_ratio: Option<WireRtcrParam>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
struct WireRtcrParam {
    shape: Option<Vec<WireShapePoint>>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
struct WireFitArgs {
    #[allow(dead_code)]
    api_version: Option<String>,
    #[allow(dead_code)]
    kind: Option<String>,
    ignored_resources: Option<Vec<String>>,
    ignored_resource_groups: Option<Vec<String>>,
    scoring_strategy: Option<WireScoringStrategy>,
}

fn decode_fit(node: &Node, path: &str) -> Result<PluginArgs, Vec<Problem>> {
    let w: WireFitArgs = one(decode(node, path))?;
    let scoring_strategy = match w.scoring_strategy {
        None => ScoringStrategy::default(),
        Some(s) => {
            let type_ = match s.type_.as_deref().unwrap_or("") {
                "LeastAllocated" => ScoringStrategyType::LeastAllocated,
                "MostAllocated" => ScoringStrategyType::MostAllocated,
                "RequestedToCapacityRatio" => ScoringStrategyType::RequestedToCapacityRatio,
                other => {
                    return Err(vec![not_supported(
                        &format!("{path}.scoringStrategy.type"),
                        other,
                        &["LeastAllocated", "MostAllocated", "RequestedToCapacityRatio"],
                    )])
                }
            };
            ScoringStrategy {
                type_,
                resources: default_weights(into_specs(s.resources)),
                requested_to_capacity_ratio: s.requested_to_capacity_ratio.map(|p| RequestedToCapacityRatioParam {
                    shape: p.shape.unwrap_or_default().into_iter().map(WireShapePoint::into_point).collect(),
                }),
            }
        }
    };
    Ok(PluginArgs::NodeResourcesFit(NodeResourcesFitArgs {
        api_version: V1_ARGS.into(),
        ignored_resources: w.ignored_resources.unwrap_or_default(),
        ignored_resource_groups: w.ignored_resource_groups.unwrap_or_default(),
        scoring_strategy,
    }))
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
struct WireFitArgsV1beta1 {
    #[allow(dead_code)]
    api_version: Option<String>,
    #[allow(dead_code)]
    kind: Option<String>,
    ignored_resources: Option<Vec<String>>,
    ignored_resource_groups: Option<Vec<String>>,
}

/// v1beta1 NodeResourcesFit only filtered; its scoring strategy comes from the legacy score plugin.
fn decode_fit_v1beta1(node: &Node, path: &str) -> Result<PluginArgs, Vec<Problem>> {
    let w: WireFitArgsV1beta1 = one(decode(node, path))?;
    Ok(PluginArgs::NodeResourcesFit(NodeResourcesFitArgs {
        api_version: V1_ARGS.into(),
        ignored_resources: w.ignored_resources.unwrap_or_default(),
        ignored_resource_groups: w.ignored_resource_groups.unwrap_or_default(),
        scoring_strategy: ScoringStrategy::default(),
    }))
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
struct WireBalancedArgs {
    #[allow(dead_code)]
    api_version: Option<String>,
    #[allow(dead_code)]
    kind: Option<String>,
    resources: Option<Vec<WireResourceSpec>>,
}

fn decode_balanced(node: &Node, path: &str) -> Result<PluginArgs, Vec<Problem>> {
    let w: WireBalancedArgs = one(decode(node, path))?;
    Ok(PluginArgs::NodeResourcesBalancedAllocation(NodeResourcesBalancedAllocationArgs {
        api_version: V1_ARGS.into(),
        resources: default_weights(into_specs(w.resources)),
    }))
}

/// `NodeResourcesLeastAllocatedArgs` / `NodeResourcesMostAllocatedArgs` (v1beta1): resources with
/// weights in (0, 100]; empty means cpu and memory.
fn decode_legacy_resources(node: &Node, path: &str) -> Result<Vec<ResourceSpec>, Vec<Problem>> {
    let w: WireBalancedArgs = one(decode(node, path))?;
    let mut resources = into_specs(w.resources);
    if resources.is_empty() {
        resources = default_cpu_memory_resources();
    }
    let problems = validate::validate_resource_weights(&format!("{path}.resources"), &resources);
    if problems.is_empty() {
        Ok(resources)
    } else {
        Err(problems)
    }
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
struct WireRtcrArgs {
    #[allow(dead_code)]
    api_version: Option<String>,
    #[allow(dead_code)]
    kind: Option<String>,
    shape: Option<Vec<WireShapePoint>>,
    resources: Option<Vec<WireResourceSpec>>,
}

/// `RequestedToCapacityRatioArgs` (v1beta1). Upstream allowed any weight ≥ 1 here; NodeResourcesFit,
/// which it becomes, caps weights at 100, so larger weights are refused with that reason.
fn decode_legacy_rtcr(node: &Node, path: &str) -> Result<LegacyArgs, Vec<Problem>> {
    let w: WireRtcrArgs = one(decode(node, path))?;
    let shape: Vec<UtilizationShapePoint> = w.shape.unwrap_or_default().into_iter().map(WireShapePoint::into_point).collect();
    let mut resources = into_specs(w.resources);
    if resources.is_empty() {
        resources = default_cpu_memory_resources();
    }
    let mut problems = validate::validate_shape(&format!("{path}.shape"), &shape);
    for (i, r) in resources.iter().enumerate() {
        let p = format!("{path}.resources[{i}].weight");
        if r.weight < 1 {
            let msg = format!("resource weight of {} not in valid range [1, inf)", r.name);
            problems.push(super::error::invalid(&p, r.weight, &msg));
        } else if r.weight > 100 {
            let msg = format!(
                "resource weight of {} not in valid range [1, 100] (RequestedToCapacityRatio is converted to \
                 NodeResourcesFit, whose resource weights are at most 100)",
                r.name
            );
            problems.push(super::error::invalid(&p, r.weight, &msg));
        }
    }
    if problems.is_empty() {
        Ok(LegacyArgs::RequestedToCapacityRatio { shape, resources })
    } else {
        Err(problems)
    }
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
#[allow(dead_code)]
struct WireNodeLabelArgs {
    api_version: Option<String>,
    kind: Option<String>,
    present_labels: Option<Vec<String>>,
    absent_labels: Option<Vec<String>>,
    present_labels_preference: Option<Vec<String>>,
    absent_labels_preference: Option<Vec<String>>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
#[allow(dead_code)]
struct WireServiceAffinityArgs {
    api_version: Option<String>,
    kind: Option<String>,
    affinity_labels: Option<Vec<String>>,
    anti_affinity_labels_preference: Option<Vec<String>>,
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::core::config::raw::parse_yaml;

    fn args(version: Version, plugin: &str, yaml: &str) -> Result<DecodedArgs, Vec<String>> {
        let node = parse_yaml(yaml).unwrap();
        decode_args(version, plugin, node.as_ref(), "p.args").map_err(|ps| ps.iter().map(|p| p.to_string()).collect())
    }

    fn typed_args(version: Version, plugin: &str, yaml: &str) -> PluginArgs {
        match args(version, plugin, yaml) {
            Ok(DecodedArgs::Typed(a)) => a,
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn missing_args_are_defaulted() {
        assert_eq!(
            typed_args(Version::V1, "NodeResourcesFit", ""),
            PluginArgs::NodeResourcesFit(NodeResourcesFitArgs::default())
        );
        assert_eq!(typed_args(Version::V1, "DefaultPreemption", "{}"), default_args("DefaultPreemption").unwrap());
    }

    // Upstream v1 defaults_test.go TestPluginArgsDefaults: "NodeResourcesFitArgs resources empty",
    // "NodeResourcesFitArgs with zero weight", "InterPodAffinityArgs empty", "PodTopologySpreadArgs
    // resources empty", "VolumeBindingArgs empty", "NodeResourcesBalancedAllocationArgs ...".
    #[test]
    fn plugin_args_defaults() {
        let fit = typed_args(Version::V1, "NodeResourcesFit", "scoringStrategy:\n  type: MostAllocated\n");
        let PluginArgs::NodeResourcesFit(f) = fit else { panic!() };
        assert_eq!(f.scoring_strategy.type_, ScoringStrategyType::MostAllocated);
        assert_eq!(f.scoring_strategy.resources, default_cpu_memory_resources());
        let fit = typed_args(
            Version::V1,
            "NodeResourcesFit",
            "scoringStrategy:\n  type: LeastAllocated\n  resources:\n  - name: cpu\n",
        );
        let PluginArgs::NodeResourcesFit(f) = fit else { panic!() };
        assert_eq!(f.scoring_strategy.resources, vec![ResourceSpec { name: "cpu".into(), weight: 1 }]);
        assert_eq!(
            typed_args(Version::V1, "InterPodAffinity", "{}"),
            PluginArgs::InterPodAffinity(InterPodAffinityArgs::default())
        );
        assert_eq!(
            typed_args(Version::V1, "PodTopologySpread", "{}"),
            PluginArgs::PodTopologySpread(PodTopologySpreadArgs::default())
        );
        assert_eq!(typed_args(Version::V1, "VolumeBinding", "{}"), PluginArgs::VolumeBinding(VolumeBindingArgs::default()));
        let bal =
            typed_args(Version::V1, "NodeResourcesBalancedAllocation", "resources:\n- name: cpu\n- name: memory\n  weight: 0\n");
        assert_eq!(bal, PluginArgs::NodeResourcesBalancedAllocation(NodeResourcesBalancedAllocationArgs::default()));
        let dra = typed_args(Version::V1, "DynamicResources", "filterTimeout: 5s");
        assert_eq!(
            dra,
            PluginArgs::DynamicResources(DynamicResourcesArgs {
                api_version: V1_ARGS.into(),
                filter_timeout: GoDuration::from_secs(5)
            })
        );
    }

    // v1beta1 defaults_test.go "PodTopologySpreadArgs with constraints" defaulted to List.
    #[test]
    fn v1beta1_topology_spread_defaults_to_list_with_constraints() {
        let yaml = "defaultConstraints:\n- maxSkew: 1\n  topologyKey: zone\n  whenUnsatisfiable: ScheduleAnyway\n";
        let PluginArgs::PodTopologySpread(a) = typed_args(Version::V1beta1, "PodTopologySpread", yaml) else { panic!() };
        assert_eq!(a.defaulting_type, DefaultingType::List);
        let err = args(Version::V1, "PodTopologySpread", yaml).unwrap_err();
        assert_eq!(err, ["p.args.defaultingType: Invalid value: \"System\": when .defaultConstraints are not empty"]);
    }

    #[test]
    fn unknown_plugins_keep_args_verbatim() {
        let a = typed_args(Version::V1, "MyPlugin", "foo: [1, 2]\n");
        assert_eq!(a, PluginArgs::Other(serde_json::json!({"foo": [1, 2]})));
        assert_eq!(
            typed_args(Version::V1, "NodeResourcesLeastAllocated", "x: 1"),
            PluginArgs::Other(serde_json::json!({"x": 1}))
        );
    }

    #[test]
    fn kind_and_api_version_are_checked() {
        let err = args(Version::V1, "DefaultPreemption", "kind: InterPodAffinityArgs\n").unwrap_err();
        assert_eq!(
            err,
            ["p.args.kind: args for plugin DefaultPreemption were not of type DefaultPreemptionArgs, got InterPodAffinityArgs (line 1 column 7)"]
        );
        let err = args(Version::V1, "DefaultPreemption", "apiVersion: foo/v1\n").unwrap_err();
        assert!(err[0].starts_with("p.args.apiVersion: unknown apiVersion \"foo/v1\""), "{err:?}");
        // An explicit apiVersion selects that version's schema (v1beta1 Fit args have no scoringStrategy).
        let err = args(Version::V1, "NodeResourcesFit", "apiVersion: kubescheduler.config.k8s.io/v1beta1\nscoringStrategy: {}\n")
            .unwrap_err();
        assert!(err[0].starts_with("p.args.scoringStrategy: unknown field"), "{err:?}");
        assert!(args(
            Version::V1,
            "NodeResourcesFit",
            "apiVersion: kubescheduler.config.k8s.io/v1\nkind: NodeResourcesFitArgs\n"
        )
        .is_ok());
    }

    #[test]
    fn strict_and_validated() {
        let err = args(Version::V1, "NodeResourcesFit", "scoringStrategy:\n  type: Foo\n").unwrap_err();
        assert_eq!(
            err,
            ["p.args.scoringStrategy.type: Unsupported value: \"Foo\": supported values: \"LeastAllocated\", \"MostAllocated\", \"RequestedToCapacityRatio\""]
        );
        let err = args(
            Version::V1,
            "NodeResourcesFit",
            "scoringStrategy:\n  type: LeastAllocated\n  resources:\n  - name: cpu\n    weight: 200\n",
        )
        .unwrap_err();
        assert_eq!(
            err,
            ["p.args.scoringStrategy.resources[0].weight: Invalid value: 200: resource weight of cpu not in valid range (0, 100]"]
        );
        let err = args(Version::V1, "DefaultPreemption", "minCandidateNodesPercentage: x").unwrap_err();
        assert_eq!(err, ["p.args.minCandidateNodesPercentage: expected integer (line 1 column 30)"]);
        let err = args(Version::V1, "DynamicResources", "bindingTimeout: 1m").unwrap_err();
        assert!(err[0].starts_with("p.args.bindingTimeout: Forbidden:"));
        // ValidateDynamicResourcesArgs: a negative filterTimeout, shown as Go prints the duration.
        let err = args(Version::V1, "DynamicResources", "filterTimeout: -90s").unwrap_err();
        assert_eq!(err, ["p.args.filterTimeout: Invalid value: -1m30s: must be zero or positive"]);
        assert!(args(Version::V1, "DynamicResources", "filterTimeout: -0s").is_ok());
        let err = args(Version::V1, "VolumeBinding", "shape:\n- utilization: 0\n  score: 0\n").unwrap_err();
        assert!(err[0].contains("StorageCapacityScoring"));
    }

    #[test]
    fn legacy_args() {
        let a = args(Version::V1beta1, "NodeResourcesMostAllocated", "resources:\n- name: cpu\n  weight: 2\n").unwrap();
        assert_eq!(a, DecodedArgs::Legacy(LegacyArgs::MostAllocated(vec![ResourceSpec { name: "cpu".into(), weight: 2 }])));
        let a = args(Version::V1beta1, "NodeResourcesLeastAllocated", "{}").unwrap();
        assert_eq!(a, DecodedArgs::Legacy(LegacyArgs::LeastAllocated(default_cpu_memory_resources())));
        let err = args(Version::V1beta1, "NodeResourcesLeastAllocated", "resources:\n- name: cpu\n  weight: 0\n").unwrap_err();
        assert_eq!(err, ["p.args.resources[0].weight: Invalid value: 0: resource weight of cpu not in valid range (0, 100]"]);
        let rtcr = "shape:\n- utilization: 0\n  score: 0\n- utilization: 100\n  score: 10\nresources:\n- name: intel.com/foo\n  weight: 3\n";
        let a = args(Version::V1beta1, "RequestedToCapacityRatio", rtcr).unwrap();
        let DecodedArgs::Legacy(l) = a else { panic!() };
        let s = l.into_strategy();
        assert_eq!(s.type_, ScoringStrategyType::RequestedToCapacityRatio);
        assert_eq!(s.requested_to_capacity_ratio.unwrap().shape.len(), 2);
        let err = args(Version::V1beta1, "RequestedToCapacityRatio", "shape: []\nresources:\n- name: cpu\n  weight: 500\n")
            .unwrap_err();
        assert_eq!(err.len(), 2);
        assert!(err[1].contains("whose resource weights are at most 100"));
        assert_eq!(args(Version::V1beta1, "NodeLabel", "presentLabels: [a]").unwrap(), DecodedArgs::Removed);
        assert!(args(Version::V1beta1, "NodeLabel", "presentLabel: [a]").is_err());
    }
}
