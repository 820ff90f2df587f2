//! The versionless, fully defaulted scheduler configuration the rest of the program reads.
//!
//! Every accepted API version (`kubescheduler.config.k8s.io/v1`, `v1beta3`, `v1beta2`, `v1beta1`) is
//! decoded into its own wire form and converted into these types, like upstream's internal
//! `config.KubeSchedulerConfiguration`. Serialising them produces the effective `v1` configuration
//! (the "Using component config" dump and `check-config`).

use crate::core::api;
use serde::{Deserialize, Serialize};

/// `KubeSchedulerConfiguration` after conversion, defaulting and validation.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct SchedulerConfig {
    pub parallelism: i32,
    pub leader_election: LeaderElection,
    pub client_connection: ClientConnection,
    /// Plain-HTTP health address (v1beta1 `healthzBindAddress`; empty = off).
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub healthz_bind_address: String,
    /// Plain-HTTP metrics address (v1beta1 `metricsBindAddress`; empty = off).
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub metrics_bind_address: String,
    pub enable_profiling: bool,
    pub enable_contention_profiling: bool,
    /// 0 means adaptive (upstream `DefaultPercentageOfNodesToScore`).
    pub percentage_of_nodes_to_score: i32,
    pub pod_initial_backoff_seconds: i64,
    pub pod_max_backoff_seconds: i64,
    pub profiles: Vec<Profile>,
    #[serde(default)]
    pub delay_cache_until_active: bool,
    /// HTTP extenders, in the order they are called (`extenders`; see [`crate::core::extender`]).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub extenders: Vec<Extender>,
}

/// `Extender` (pkg/scheduler/apis/config/types.go): an HTTP webhook consulted after the plugins'
/// Filter and Score, for preemption and, when `bindVerb` is set, for binding. The same in every
/// configuration version. Nothing is defaulted here: a zero `httpTimeout` means 5 s when the
/// client is built, as upstream's `NewHTTPExtender`.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Extender {
    pub url_prefix: String,
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub filter_verb: String,
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub preempt_verb: String,
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub prioritize_verb: String,
    /// Multiplies the extender's 0–10 scores (must be positive when `prioritizeVerb` is set).
    #[serde(default)]
    pub weight: i64,
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub bind_verb: String,
    #[serde(default, rename = "enableHTTPS")]
    pub enable_https: bool,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tls_config: Option<ExtenderTls>,
    /// Zero means the 5 s default.
    #[serde(default = "zero_duration")]
    pub http_timeout: GoDuration,
    #[serde(default)]
    pub node_cache_capable: bool,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub managed_resources: Vec<ExtenderManagedResource>,
    #[serde(default)]
    pub ignorable: bool,
}

fn zero_duration() -> GoDuration {
    GoDuration(std::time::Duration::ZERO)
}

/// `ExtenderTLSConfig`; the `*Data` fields are base64 on the wire and kept so here (decoded
/// where the client is built).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ExtenderTls {
    #[serde(default)]
    pub insecure: bool,
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub server_name: String,
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub cert_file: String,
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub key_file: String,
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub ca_file: String,
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub cert_data: String,
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub key_data: String,
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub ca_data: String,
}

/// `ExtenderManagedResource`: an extended resource the extender manages; pods requesting one
/// are the ones it is "interested" in. `ignoredByScheduler` makes NodeResourcesFit skip it.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ExtenderManagedResource {
    pub name: String,
    #[serde(default)]
    pub ignored_by_scheduler: bool,
}

/// `componentbaseconfig.LeaderElectionConfiguration`; durations in seconds on the wire as Go
/// duration strings (`15s`), here as [`GoDuration`].
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct LeaderElection {
    pub leader_elect: bool,
    pub lease_duration: GoDuration,
    pub renew_deadline: GoDuration,
    pub retry_period: GoDuration,
    pub resource_lock: String,
    pub resource_name: String,
    pub resource_namespace: String,
}

impl Default for LeaderElection {
    fn default() -> Self {
        LeaderElection {
            leader_elect: true,
            lease_duration: GoDuration::from_secs(15),
            renew_deadline: GoDuration::from_secs(10),
            retry_period: GoDuration::from_secs(2),
            resource_lock: "leases".into(),
            resource_name: "kube-scheduler".into(),
            resource_namespace: "kube-system".into(),
        }
    }
}

/// `componentbaseconfig.ClientConnectionConfiguration`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ClientConnection {
    pub kubeconfig: String,
    pub accept_content_types: String,
    pub content_type: String,
    /// Queries per second; negative disables client-side rate limiting.
    pub qps: f32,
    pub burst: i32,
}

impl Default for ClientConnection {
    fn default() -> Self {
        ClientConnection {
            kubeconfig: String::new(),
            accept_content_types: String::new(),
            content_type: "application/vnd.kubernetes.protobuf".into(),
            qps: 50.0,
            burst: 100,
        }
    }
}

/// A duration as Go's `time.Duration` marshals it in component configs (`"15s"`, `"1m30s"`).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct GoDuration(pub std::time::Duration);

impl GoDuration {
    pub fn from_secs(s: u64) -> GoDuration {
        GoDuration(std::time::Duration::from_secs(s))
    }
}

/// One scheduling profile: a scheduler name and its plugin set.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Profile {
    pub scheduler_name: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub percentage_of_nodes_to_score: Option<i32>,
    pub plugins: Plugins,
    pub plugin_config: Vec<PluginConfig>,
}

/// Plugins per extension point, as configured (defaults merged in, `multiPoint` not yet expanded:
/// expansion happens when the framework is built, exactly as upstream's runtime does).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Plugins {
    #[serde(default)]
    pub pre_enqueue: PluginSet,
    #[serde(default)]
    pub queue_sort: PluginSet,
    #[serde(default)]
    pub pre_filter: PluginSet,
    #[serde(default)]
    pub filter: PluginSet,
    #[serde(default)]
    pub post_filter: PluginSet,
    #[serde(default)]
    pub pre_score: PluginSet,
    #[serde(default)]
    pub score: PluginSet,
    #[serde(default)]
    pub reserve: PluginSet,
    #[serde(default)]
    pub permit: PluginSet,
    #[serde(default)]
    pub pre_bind: PluginSet,
    #[serde(default)]
    pub bind: PluginSet,
    #[serde(default)]
    pub post_bind: PluginSet,
    #[serde(default)]
    pub multi_point: PluginSet,
}

/// Enabled and disabled plugins of one extension point. `"*"` in `disabled` disables every default.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct PluginSet {
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub enabled: Vec<PluginRef>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub disabled: Vec<PluginRef>,
}

/// A plugin name with an optional score weight (0 = unset).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct PluginRef {
    pub name: String,
    #[serde(default, skip_serializing_if = "is_zero")]
    pub weight: i32,
}

fn is_zero(w: &i32) -> bool {
    *w == 0
}

impl PluginRef {
    pub fn new(name: &str, weight: i32) -> PluginRef {
        PluginRef { name: name.to_string(), weight }
    }
}

/// Arguments of one plugin.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct PluginConfig {
    pub name: String,
    pub args: PluginArgs,
}

/// Typed plugin arguments; serialises with `apiVersion`/`kind` as upstream's defaulted config dump.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "kind")]
pub enum PluginArgs {
    #[serde(rename = "NodeResourcesFitArgs")]
    NodeResourcesFit(NodeResourcesFitArgs),
    #[serde(rename = "NodeResourcesBalancedAllocationArgs")]
    NodeResourcesBalancedAllocation(NodeResourcesBalancedAllocationArgs),
    #[serde(rename = "NodeAffinityArgs")]
    NodeAffinity(NodeAffinityArgs),
    #[serde(rename = "PodTopologySpreadArgs")]
    PodTopologySpread(PodTopologySpreadArgs),
    #[serde(rename = "InterPodAffinityArgs")]
    InterPodAffinity(InterPodAffinityArgs),
    #[serde(rename = "DefaultPreemptionArgs")]
    DefaultPreemption(DefaultPreemptionArgs),
    #[serde(rename = "VolumeBindingArgs")]
    VolumeBinding(VolumeBindingArgs),
    #[serde(rename = "DynamicResourcesArgs")]
    DynamicResources(DynamicResourcesArgs),
    /// Args of a plugin this build does not interpret, kept verbatim.
    #[serde(untagged)]
    Other(serde_json::Value),
}

/// `NodeResourcesFitArgs`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct NodeResourcesFitArgs {
    #[serde(default)]
    pub api_version: String,
    #[serde(default)]
    pub ignored_resources: Vec<String>,
    #[serde(default)]
    pub ignored_resource_groups: Vec<String>,
    pub scoring_strategy: ScoringStrategy,
}

impl Default for NodeResourcesFitArgs {
    fn default() -> Self {
        NodeResourcesFitArgs {
            api_version: "kubescheduler.config.k8s.io/v1".into(),
            ignored_resources: Vec::new(),
            ignored_resource_groups: Vec::new(),
            scoring_strategy: ScoringStrategy::default(),
        }
    }
}

/// `ScoringStrategy` of NodeResourcesFit.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ScoringStrategy {
    #[serde(rename = "type")]
    pub type_: ScoringStrategyType,
    pub resources: Vec<ResourceSpec>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub requested_to_capacity_ratio: Option<RequestedToCapacityRatioParam>,
}

impl Default for ScoringStrategy {
    fn default() -> Self {
        ScoringStrategy {
            type_: ScoringStrategyType::LeastAllocated,
            resources: default_cpu_memory_resources(),
            requested_to_capacity_ratio: None,
        }
    }
}

/// cpu and memory with weight 1: the default of every resource list in plugin args.
pub fn default_cpu_memory_resources() -> Vec<ResourceSpec> {
    vec![ResourceSpec { name: "cpu".into(), weight: 1 }, ResourceSpec { name: "memory".into(), weight: 1 }]
}

/// The three scoring strategies.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub enum ScoringStrategyType {
    LeastAllocated,
    MostAllocated,
    RequestedToCapacityRatio,
}

/// A resource and its weight in a scoring formula.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ResourceSpec {
    pub name: String,
    #[serde(default)]
    pub weight: i64,
}

/// `RequestedToCapacityRatioParam`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct RequestedToCapacityRatioParam {
    pub shape: Vec<UtilizationShapePoint>,
}

/// One point of the RequestedToCapacityRatio shape: utilization 0..100 → score 0..10.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct UtilizationShapePoint {
    pub utilization: i32,
    pub score: i32,
}

/// `NodeResourcesBalancedAllocationArgs`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct NodeResourcesBalancedAllocationArgs {
    #[serde(default)]
    pub api_version: String,
    pub resources: Vec<ResourceSpec>,
}

impl Default for NodeResourcesBalancedAllocationArgs {
    fn default() -> Self {
        NodeResourcesBalancedAllocationArgs {
            api_version: "kubescheduler.config.k8s.io/v1".into(),
            resources: default_cpu_memory_resources(),
        }
    }
}

/// `NodeAffinityArgs`.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct NodeAffinityArgs {
    #[serde(default)]
    pub api_version: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub added_affinity: Option<api::NodeAffinity>,
}

/// `PodTopologySpreadArgs`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct PodTopologySpreadArgs {
    #[serde(default)]
    pub api_version: String,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub default_constraints: Vec<api::TopologySpreadConstraint>,
    pub defaulting_type: DefaultingType,
}

impl Default for PodTopologySpreadArgs {
    fn default() -> Self {
        PodTopologySpreadArgs {
            api_version: "kubescheduler.config.k8s.io/v1".into(),
            default_constraints: Vec::new(),
            defaulting_type: DefaultingType::System,
        }
    }
}

/// How PodTopologySpread picks default constraints.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub enum DefaultingType {
    System,
    List,
}

/// `InterPodAffinityArgs`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct InterPodAffinityArgs {
    #[serde(default)]
    pub api_version: String,
    pub hard_pod_affinity_weight: i32,
    #[serde(default)]
    pub ignore_preferred_terms_of_existing_pods: bool,
}

impl Default for InterPodAffinityArgs {
    fn default() -> Self {
        InterPodAffinityArgs {
            api_version: "kubescheduler.config.k8s.io/v1".into(),
            hard_pod_affinity_weight: 1,
            ignore_preferred_terms_of_existing_pods: false,
        }
    }
}

/// `DefaultPreemptionArgs`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct DefaultPreemptionArgs {
    #[serde(default)]
    pub api_version: String,
    pub min_candidate_nodes_percentage: i32,
    pub min_candidate_nodes_absolute: i32,
}

impl Default for DefaultPreemptionArgs {
    fn default() -> Self {
        DefaultPreemptionArgs {
            api_version: "kubescheduler.config.k8s.io/v1".into(),
            min_candidate_nodes_percentage: 10,
            min_candidate_nodes_absolute: 100,
        }
    }
}

/// `VolumeBindingArgs`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct VolumeBindingArgs {
    #[serde(default)]
    pub api_version: String,
    pub bind_timeout_seconds: i64,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub shape: Vec<UtilizationShapePoint>,
}

impl Default for VolumeBindingArgs {
    fn default() -> Self {
        VolumeBindingArgs { api_version: "kubescheduler.config.k8s.io/v1".into(), bind_timeout_seconds: 600, shape: Vec::new() }
    }
}

/// `DynamicResourcesArgs`: how long Filter may search for devices on one node (0 = no limit).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct DynamicResourcesArgs {
    #[serde(default)]
    pub api_version: String,
    pub filter_timeout: GoDuration,
}

impl Default for DynamicResourcesArgs {
    fn default() -> Self {
        DynamicResourcesArgs { api_version: "kubescheduler.config.k8s.io/v1".into(), filter_timeout: GoDuration::from_secs(10) }
    }
}

impl Profile {
    /// Typed args of a plugin, if configured.
    pub fn args(&self, plugin: &str) -> Option<&PluginArgs> {
        self.plugin_config.iter().find(|c| c.name == plugin).map(|c| &c.args)
    }
}

impl std::fmt::Display for GoDuration {
    /// Go's `time.Duration.String()` form: `15s`, `1m30s`, `1h0m0s`, `500ms`, `0s`.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let d = self.0;
        let total_ns = d.as_nanos();
        if total_ns == 0 {
            return f.write_str("0s");
        }
        if total_ns < 1_000_000_000 {
            return if total_ns % 1_000_000 == 0 {
                write!(f, "{}ms", total_ns / 1_000_000)
            } else if total_ns % 1_000 == 0 {
                write!(f, "{}µs", total_ns / 1_000)
            } else {
                write!(f, "{total_ns}ns")
            };
        }
        let secs = d.as_secs();
        let (h, m, s) = (secs / 3600, (secs % 3600) / 60, secs % 60);
        let frac = d.subsec_nanos();
        let sec_str = if frac == 0 {
            format!("{s}")
        } else {
            let f9 = format!("{frac:09}");
            format!("{s}.{}", f9.trim_end_matches('0'))
        };
        if h > 0 {
            write!(f, "{h}h{m}m{sec_str}s")
        } else if m > 0 {
            write!(f, "{m}m{sec_str}s")
        } else {
            write!(f, "{sec_str}s")
        }
    }
}

/// Parse a Go duration string (`300ms`, `1.5h`, `2h45m`, `15s`). Negative durations are rejected.
pub fn parse_go_duration(s: &str) -> Result<std::time::Duration, String> {
    let err = || format!("invalid duration {s:?}");
    let mut rest = s.trim();
    if rest == "0" {
        return Ok(std::time::Duration::ZERO);
    }
    if rest.is_empty() || rest.starts_with('-') {
        return Err(err());
    }
    if let Some(r) = rest.strip_prefix('+') {
        rest = r;
    }
    let mut total: f64 = 0.0;
    while !rest.is_empty() {
        let num_end = rest.find(|c: char| !(c.is_ascii_digit() || c == '.')).ok_or_else(err)?;
        if num_end == 0 {
            return Err(err());
        }
        let value: f64 = rest[..num_end].parse().map_err(|_| err())?;
        rest = &rest[num_end..];
        let unit_end = rest.find(|c: char| c.is_ascii_digit() || c == '.').unwrap_or(rest.len());
        let unit = &rest[..unit_end];
        rest = &rest[unit_end..];
        let scale = match unit {
            "ns" => 1e-9,
            "us" | "µs" | "μs" => 1e-6,
            "ms" => 1e-3,
            "s" => 1.0,
            "m" => 60.0,
            "h" => 3600.0,
            _ => return Err(err()),
        };
        total += value * scale;
    }
    if !total.is_finite() || total > 1e12 {
        return Err(err());
    }
    Ok(std::time::Duration::from_secs_f64(total))
}

impl Serialize for GoDuration {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.collect_str(self)
    }
}

impl<'de> Deserialize<'de> for GoDuration {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let s = String::deserialize(d)?;
        parse_go_duration(&s).map(GoDuration).map_err(serde::de::Error::custom)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::Duration;

    #[test]
    fn go_durations_round_trip() {
        for (s, d) in [("15s", 15), ("10s", 10), ("2s", 2), ("1m30s", 90), ("1h0m0s", 3600)] {
            assert_eq!(parse_go_duration(s), Ok(Duration::from_secs(d)));
            assert_eq!(GoDuration(Duration::from_secs(d)).to_string(), s);
        }
        assert_eq!(parse_go_duration("1.5h"), Ok(Duration::from_secs(5400)));
        assert_eq!(parse_go_duration("500ms"), Ok(Duration::from_millis(500)));
        assert_eq!(GoDuration(Duration::from_millis(500)).to_string(), "500ms");
        assert!(parse_go_duration("15").is_err());
        assert!(parse_go_duration("-1s").is_err());
        assert!(parse_go_duration("abc").is_err());
    }
}
