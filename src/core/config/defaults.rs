//! Defaulting, after upstream's `SetDefaults_KubeSchedulerConfiguration` and
//! `setDefaults_KubeSchedulerProfile` (pkg/scheduler/apis/config/v1/defaults.go) and component-base's
//! `RecommendedDefaultLeaderElectionConfiguration`: zero values and absent fields take defaults.

use super::args::default_args;
use super::plugins::enabled_names;
use super::types::*;
use super::wire::{WireClientConnection, WireConfig, WireExtender, WireLeaderElection};

/// `config.DefaultInsecureSchedulerPort`, the port a bare IP in v1beta1/v1beta2
/// `healthzBindAddress`/`metricsBindAddress` gets.
const DEFAULT_INSECURE_PORT: u16 = 10251;

/// Every top-level setting of `wire` with defaults filled in; profiles are converted separately.
pub fn top_level(wire: &WireConfig) -> SchedulerConfig {
    let enable_profiling = wire.enable_profiling.unwrap_or(true);
    SchedulerConfig {
        parallelism: wire.parallelism.unwrap_or(16),
        leader_election: leader_election(wire.leader_election.as_ref()),
        client_connection: client_connection(wire.client_connection.as_ref()),
        healthz_bind_address: bind_address(wire.healthz_bind_address.as_deref()),
        metrics_bind_address: bind_address(wire.metrics_bind_address.as_deref()),
        enable_profiling,
        enable_contention_profiling: wire.enable_contention_profiling.unwrap_or(enable_profiling),
        percentage_of_nodes_to_score: wire.percentage_of_nodes_to_score.unwrap_or(0),
        pod_initial_backoff_seconds: wire.pod_initial_backoff_seconds.unwrap_or(1),
        pod_max_backoff_seconds: wire.pod_max_backoff_seconds.unwrap_or(10),
        profiles: Vec::new(),
        delay_cache_until_active: wire.delay_cache_until_active.unwrap_or(false),
        extenders: wire.extenders.iter().flatten().map(extender).collect(),
    }
}

/// An extender as written; upstream defaults none of its fields.
fn extender(w: &WireExtender) -> Extender {
    Extender {
        url_prefix: w.url_prefix.clone().unwrap_or_default(),
        filter_verb: w.filter_verb.clone().unwrap_or_default(),
        preempt_verb: w.preempt_verb.clone().unwrap_or_default(),
        prioritize_verb: w.prioritize_verb.clone().unwrap_or_default(),
        weight: w.weight.unwrap_or(0),
        bind_verb: w.bind_verb.clone().unwrap_or_default(),
        enable_https: w.enable_https.unwrap_or(false),
        tls_config: w.tls_config.as_ref().map(|t| ExtenderTls {
            insecure: t.insecure.unwrap_or(false),
            server_name: t.server_name.clone().unwrap_or_default(),
            cert_file: t.cert_file.clone().unwrap_or_default(),
            key_file: t.key_file.clone().unwrap_or_default(),
            ca_file: t.ca_file.clone().unwrap_or_default(),
            cert_data: t.cert_data.clone().unwrap_or_default(),
            key_data: t.key_data.clone().unwrap_or_default(),
            ca_data: t.ca_data.clone().unwrap_or_default(),
        }),
        http_timeout: w.http_timeout.unwrap_or(GoDuration(std::time::Duration::ZERO)),
        node_cache_capable: w.node_cache_capable.unwrap_or(false),
        managed_resources: w
            .managed_resources
            .iter()
            .flatten()
            .map(|r| ExtenderManagedResource {
                name: r.name.clone().unwrap_or_default(),
                ignored_by_scheduler: r.ignored_by_scheduler.unwrap_or(false),
            })
            .collect(),
        ignorable: w.ignorable.unwrap_or(false),
    }
}

/// Zero durations and empty strings take the recommended defaults, as upstream.
fn leader_election(w: Option<&WireLeaderElection>) -> LeaderElection {
    let d = LeaderElection::default();
    let Some(w) = w else { return d };
    let dur = |v: Option<GoDuration>, def: GoDuration| v.filter(|x| !x.0.is_zero()).unwrap_or(def);
    let text = |v: &Option<String>, def: &str| v.clone().filter(|s| !s.is_empty()).unwrap_or_else(|| def.to_string());
    LeaderElection {
        leader_elect: w.leader_elect.unwrap_or(d.leader_elect),
        lease_duration: dur(w.lease_duration, d.lease_duration),
        renew_deadline: dur(w.renew_deadline, d.renew_deadline),
        retry_period: dur(w.retry_period, d.retry_period),
        resource_lock: text(&w.resource_lock, &d.resource_lock),
        resource_name: text(&w.resource_name, &d.resource_name),
        resource_namespace: text(&w.resource_namespace, &d.resource_namespace),
    }
}

/// The scheduler's own QPS/burst/content-type defaults; 0 and "" mean "default".
fn client_connection(w: Option<&WireClientConnection>) -> ClientConnection {
    let d = ClientConnection::default();
    let Some(w) = w else { return d };
    ClientConnection {
        kubeconfig: w.kubeconfig.clone().unwrap_or_default(),
        accept_content_types: w.accept_content_types.clone().unwrap_or_default(),
        content_type: w.content_type.clone().filter(|s| !s.is_empty()).unwrap_or(d.content_type),
        qps: w.qps.filter(|q| *q != 0.0).unwrap_or(d.qps),
        burst: w.burst.filter(|b| *b != 0).unwrap_or(d.burst),
    }
}

/// v1beta1/v1beta2 `healthzBindAddress`/`metricsBindAddress`: `:port` means all interfaces, a bare IP
/// gets port 10251, port 0 switches the endpoint off. Unlike upstream, an absent field stays off
/// instead of opening 0.0.0.0:10251 (plain-HTTP serving is opt-in here).
fn bind_address(v: Option<&str>) -> String {
    let Some(v) = v.map(str::trim).filter(|s| !s.is_empty()) else { return String::new() };
    if let Some((host, port)) = super::validate::split_host_port(v) {
        if port == 0 {
            return String::new();
        }
        let host = if host.is_empty() { "0.0.0.0".to_string() } else { host };
        return join_host_port(&host, port);
    }
    match v.parse::<std::net::IpAddr>() {
        Ok(ip) => join_host_port(&ip.to_string(), DEFAULT_INSECURE_PORT),
        Err(_) => v.to_string(),
    }
}

fn join_host_port(host: &str, port: u16) -> String {
    if host.contains(':') {
        format!("[{host}]:{port}")
    } else {
        format!("{host}:{port}")
    }
}

/// Append default args for every enabled plugin that takes args and has none configured, in name
/// order (upstream iterates the sorted `pluginsNames`).
pub fn append_default_args(profile: &mut Profile) {
    for name in enabled_names(&profile.plugins) {
        if profile.plugin_config.iter().any(|c| c.name == name) {
            continue;
        }
        if let Some(args) = default_args(&name) {
            profile.plugin_config.push(PluginConfig { name, args });
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    // Upstream v1 defaults_test.go TestSchedulerDefaults "empty config" (top-level part).
    #[test]
    fn empty_config_top_level() {
        let c = top_level(&WireConfig::default());
        assert_eq!(c.parallelism, 16);
        assert_eq!(c.leader_election, LeaderElection::default());
        assert_eq!(c.client_connection, ClientConnection::default());
        assert!(c.enable_profiling && c.enable_contention_profiling);
        assert_eq!((c.percentage_of_nodes_to_score, c.pod_initial_backoff_seconds, c.pod_max_backoff_seconds), (0, 1, 10));
        assert!(c.healthz_bind_address.is_empty());
    }

    // TestSchedulerDefaults "enable profiling false": contention profiling follows profiling.
    #[test]
    fn contention_profiling_follows_profiling() {
        let w = WireConfig { enable_profiling: Some(false), ..Default::default() };
        assert!(!top_level(&w).enable_contention_profiling);
        let w = WireConfig { enable_profiling: Some(false), enable_contention_profiling: Some(true), ..Default::default() };
        assert!(top_level(&w).enable_contention_profiling);
    }

    #[test]
    fn zero_values_take_defaults() {
        let w = WireConfig {
            leader_election: Some(WireLeaderElection {
                lease_duration: Some(GoDuration::from_secs(0)),
                resource_name: Some(String::new()),
                leader_elect: Some(false),
                ..Default::default()
            }),
            client_connection: Some(WireClientConnection { qps: Some(0.0), burst: Some(0), ..Default::default() }),
            ..Default::default()
        };
        let c = top_level(&w);
        assert_eq!(c.leader_election.lease_duration, GoDuration::from_secs(15));
        assert_eq!(c.leader_election.resource_name, "kube-scheduler");
        assert!(!c.leader_election.leader_elect);
        assert_eq!((c.client_connection.qps, c.client_connection.burst), (50.0, 100));
    }

    // v1beta2 defaults_test.go "metrics and healthz address with no port" / "with port" cases.
    #[test]
    fn bind_addresses() {
        assert_eq!(bind_address(Some("1.2.3.4")), "1.2.3.4:10251");
        assert_eq!(bind_address(Some(":12345")), "0.0.0.0:12345");
        assert_eq!(bind_address(Some("1.2.3.4:12345")), "1.2.3.4:12345");
        assert_eq!(bind_address(Some("0.0.0.0:0")), "");
        assert_eq!(bind_address(Some("::1")), "[::1]:10251");
        assert_eq!(bind_address(None), "");
        assert_eq!(bind_address(Some("nonsense")), "nonsense");
    }

    #[test]
    fn default_args_in_name_order() {
        let mut p = Profile {
            scheduler_name: "x".into(),
            percentage_of_nodes_to_score: None,
            plugins: super::super::v1::default_plugins(),
            plugin_config: vec![PluginConfig { name: "FooPlugin".into(), args: PluginArgs::Other(serde_json::Value::Null) }],
        };
        append_default_args(&mut p);
        let names: Vec<&str> = p.plugin_config.iter().map(|c| c.name.as_str()).collect();
        assert_eq!(
            names,
            [
                "FooPlugin",
                "DefaultPreemption",
                "DynamicResources",
                "InterPodAffinity",
                "NodeAffinity",
                "NodeResourcesBalancedAllocation",
                "NodeResourcesFit",
                "PodTopologySpread",
                "VolumeBinding"
            ]
        );
    }
}
