//! `KubeSchedulerConfiguration` as written in files, for every supported version at once.
//!
//! Every field is optional (an absent field and `null` both mean "use the default", as with Go's
//! pointer fields) and unknown fields are rejected, like upstream's strict decoder. The union of all
//! versions' fields is declared here; [`super::load`] rejects, with the position, fields that the
//! document's own version does not have (e.g. `multiPoint` in v1beta2, `healthzBindAddress` in v1).
//! Plugin `args` are decoded separately by plugin name (see [`super::args`]).

use super::types::GoDuration;
use serde::de::IgnoredAny;
use serde::Deserialize;

/// Top level of the document.
#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct WireConfig {
    /// Checked on the YAML tree before decoding.
    #[allow(dead_code)]
    pub api_version: Option<String>,
    #[allow(dead_code)]
    pub kind: Option<String>,
    pub parallelism: Option<i32>,
    pub leader_election: Option<WireLeaderElection>,
    pub client_connection: Option<WireClientConnection>,
    /// v1beta1 and v1beta2 only.
    pub healthz_bind_address: Option<String>,
    /// v1beta1 and v1beta2 only.
    pub metrics_bind_address: Option<String>,
    pub enable_profiling: Option<bool>,
    pub enable_contention_profiling: Option<bool>,
    pub percentage_of_nodes_to_score: Option<i32>,
    pub pod_initial_backoff_seconds: Option<i64>,
    pub pod_max_backoff_seconds: Option<i64>,
    pub profiles: Option<Vec<WireProfile>>,
    pub extenders: Option<Vec<WireExtender>>,
    /// v1 and v1beta3 only.
    pub delay_cache_until_active: Option<bool>,
    /// v1beta1 (Kubernetes 1.19) only.
    pub disable_preemption: Option<bool>,
}

/// `LeaderElectionConfiguration` (component-base v1alpha1).
#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct WireLeaderElection {
    pub leader_elect: Option<bool>,
    pub lease_duration: Option<GoDuration>,
    pub renew_deadline: Option<GoDuration>,
    pub retry_period: Option<GoDuration>,
    pub resource_lock: Option<String>,
    pub resource_name: Option<String>,
    pub resource_namespace: Option<String>,
}

/// `ClientConnectionConfiguration` (component-base v1alpha1).
#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct WireClientConnection {
    pub kubeconfig: Option<String>,
    pub accept_content_types: Option<String>,
    pub content_type: Option<String>,
    pub qps: Option<f32>,
    pub burst: Option<i32>,
}

/// `KubeSchedulerProfile`.
#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct WireProfile {
    pub scheduler_name: Option<String>,
    /// v1 and v1beta3 only.
    pub percentage_of_nodes_to_score: Option<i32>,
    pub plugins: Option<WirePlugins>,
    pub plugin_config: Option<Vec<WirePluginConfig>>,
}

/// `Plugins`: one plugin set per extension point.
#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct WirePlugins {
    /// v1, v1beta3 and v1beta2.
    pub pre_enqueue: Option<WirePluginSet>,
    pub queue_sort: Option<WirePluginSet>,
    pub pre_filter: Option<WirePluginSet>,
    pub filter: Option<WirePluginSet>,
    pub post_filter: Option<WirePluginSet>,
    pub pre_score: Option<WirePluginSet>,
    pub score: Option<WirePluginSet>,
    pub reserve: Option<WirePluginSet>,
    pub permit: Option<WirePluginSet>,
    pub pre_bind: Option<WirePluginSet>,
    pub bind: Option<WirePluginSet>,
    pub post_bind: Option<WirePluginSet>,
    /// v1 and v1beta3 only.
    pub multi_point: Option<WirePluginSet>,
    /// v1beta1 (Kubernetes 1.19) only; merged into `reserve` since 1.20.
    pub unreserve: Option<WirePluginSet>,
}

/// `PluginSet`.
#[derive(Debug, Default, Clone, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct WirePluginSet {
    pub enabled: Option<Vec<WirePlugin>>,
    pub disabled: Option<Vec<WirePlugin>>,
}

/// `Plugin`: a name and an optional score weight.
#[derive(Debug, Default, Clone, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct WirePlugin {
    pub name: Option<String>,
    pub weight: Option<i32>,
}

/// `PluginConfig`; `args` is only checked to be well-formed YAML here and decoded by
/// [`super::args`] once the plugin name is known.
#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct WirePluginConfig {
    pub name: Option<String>,
    #[allow(dead_code)]
    pub args: Option<IgnoredAny>,
}

/// `Extender` (the same in every version).
#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct WireExtender {
    pub url_prefix: Option<String>,
    pub filter_verb: Option<String>,
    pub preempt_verb: Option<String>,
    pub prioritize_verb: Option<String>,
    pub weight: Option<i64>,
    pub bind_verb: Option<String>,
    #[serde(rename = "enableHTTPS")]
    pub enable_https: Option<bool>,
    pub tls_config: Option<WireExtenderTls>,
    pub http_timeout: Option<GoDuration>,
    pub node_cache_capable: Option<bool>,
    pub managed_resources: Option<Vec<WireManagedResource>>,
    pub ignorable: Option<bool>,
}

/// `ExtenderTLSConfig`.
#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct WireExtenderTls {
    pub insecure: Option<bool>,
    pub server_name: Option<String>,
    pub cert_file: Option<String>,
    pub key_file: Option<String>,
    pub ca_file: Option<String>,
    pub cert_data: Option<String>,
    pub key_data: Option<String>,
    pub ca_data: Option<String>,
}

/// `ExtenderManagedResource`.
#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct WireManagedResource {
    pub name: Option<String>,
    pub ignored_by_scheduler: Option<bool>,
}

impl WirePlugins {
    /// Every declared extension point with its name, in upstream's order; `multiPoint` last.
    pub fn points(&self) -> [(&'static str, Option<&WirePluginSet>); 14] {
        [
            ("preEnqueue", self.pre_enqueue.as_ref()),
            ("queueSort", self.queue_sort.as_ref()),
            ("preFilter", self.pre_filter.as_ref()),
            ("filter", self.filter.as_ref()),
            ("postFilter", self.post_filter.as_ref()),
            ("preScore", self.pre_score.as_ref()),
            ("score", self.score.as_ref()),
            ("reserve", self.reserve.as_ref()),
            ("permit", self.permit.as_ref()),
            ("preBind", self.pre_bind.as_ref()),
            ("bind", self.bind.as_ref()),
            ("postBind", self.post_bind.as_ref()),
            ("multiPoint", self.multi_point.as_ref()),
            ("unreserve", self.unreserve.as_ref()),
        ]
    }
}
