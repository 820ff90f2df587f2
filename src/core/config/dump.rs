//! The effective configuration as a `kubescheduler.config.k8s.io/v1` document, like upstream's
//! "Using component config" log and `--write-config-to`: every default filled in, keys sorted as
//! upstream's YAML encoder sorts them (apart from `apiVersion`/`kind`, which come first), plugin args
//! with their `apiVersion`/`kind`, durations as Go duration strings.

use super::types::*;
use serde_json::{json, Map, Value};

/// Render `cfg` as YAML. Reading the result back yields `cfg` again, except the v1beta1/v1beta2-only
/// `healthzBindAddress`/`metricsBindAddress`, which v1 cannot hold; they are shown as comments.
pub fn to_yaml(cfg: &SchedulerConfig) -> String {
    let mut out = String::from("apiVersion: kubescheduler.config.k8s.io/v1\nkind: KubeSchedulerConfiguration\n");
    match serde_saphyr::to_string(&body(cfg)) {
        Ok(text) => out.push_str(&text),
        Err(e) => out.push_str(&format!("# could not render the configuration: {e}\n")),
    }
    for (field, value) in [("healthzBindAddress", &cfg.healthz_bind_address), ("metricsBindAddress", &cfg.metrics_bind_address)] {
        if !value.is_empty() {
            out.push_str(&format!("# {field}: {value}  (v1beta1/v1beta2 only; served over plain HTTP)\n"));
        }
    }
    out
}

/// The same document as JSON (for `/configz`).
pub fn to_json(cfg: &SchedulerConfig) -> Value {
    let mut v = body(cfg);
    if let Some(m) = v.as_object_mut() {
        m.insert("apiVersion".into(), json!("kubescheduler.config.k8s.io/v1"));
        m.insert("kind".into(), json!("KubeSchedulerConfiguration"));
    }
    v
}

/// Everything but `apiVersion`/`kind`, as JSON with sorted keys.
fn body(cfg: &SchedulerConfig) -> Value {
    let le = &cfg.leader_election;
    let cc = &cfg.client_connection;
    let mut m = Map::new();
    m.insert(
        "clientConnection".into(),
        json!({
            "acceptContentTypes": cc.accept_content_types,
            "burst": cc.burst,
            "contentType": cc.content_type,
            "kubeconfig": cc.kubeconfig,
            "qps": float(cc.qps),
        }),
    );
    m.insert("enableContentionProfiling".into(), json!(cfg.enable_contention_profiling));
    m.insert("enableProfiling".into(), json!(cfg.enable_profiling));
    m.insert(
        "leaderElection".into(),
        json!({
            "leaderElect": le.leader_elect,
            "leaseDuration": le.lease_duration.to_string(),
            "renewDeadline": le.renew_deadline.to_string(),
            "resourceLock": le.resource_lock,
            "resourceName": le.resource_name,
            "resourceNamespace": le.resource_namespace,
            "retryPeriod": le.retry_period.to_string(),
        }),
    );
    m.insert("parallelism".into(), json!(cfg.parallelism));
    m.insert("percentageOfNodesToScore".into(), json!(cfg.percentage_of_nodes_to_score));
    m.insert("podInitialBackoffSeconds".into(), json!(cfg.pod_initial_backoff_seconds));
    m.insert("podMaxBackoffSeconds".into(), json!(cfg.pod_max_backoff_seconds));
    m.insert("profiles".into(), Value::Array(cfg.profiles.iter().map(profile).collect()));
    if cfg.delay_cache_until_active {
        m.insert("delayCacheUntilActive".into(), json!(true));
    }
    if !cfg.extenders.is_empty() {
        m.insert("extenders".into(), Value::Array(cfg.extenders.iter().map(extender).collect()));
    }
    Value::Object(m)
}

/// What the dump shows instead of TLS material.
const REDACTED: &str = "<redacted>";

/// One extender with upstream's field names; empty optional fields are left out.
fn extender(e: &Extender) -> Value {
    let text = |m: &mut Map<String, Value>, k: &str, v: &str| {
        if !v.is_empty() {
            m.insert(k.into(), Value::from(v));
        }
    };
    let mut m = Map::new();
    m.insert("urlPrefix".into(), Value::from(e.url_prefix.as_str()));
    text(&mut m, "filterVerb", &e.filter_verb);
    text(&mut m, "preemptVerb", &e.preempt_verb);
    text(&mut m, "prioritizeVerb", &e.prioritize_verb);
    text(&mut m, "bindVerb", &e.bind_verb);
    m.insert("weight".into(), Value::from(e.weight));
    m.insert("enableHTTPS".into(), Value::Bool(e.enable_https));
    m.insert("httpTimeout".into(), Value::from(e.http_timeout.to_string()));
    m.insert("nodeCacheCapable".into(), Value::Bool(e.node_cache_capable));
    m.insert("ignorable".into(), Value::Bool(e.ignorable));
    if !e.managed_resources.is_empty() {
        let mut resources = Vec::new();
        for r in &e.managed_resources {
            let mut rm = Map::new();
            rm.insert("name".into(), Value::from(r.name.as_str()));
            rm.insert("ignoredByScheduler".into(), Value::Bool(r.ignored_by_scheduler));
            resources.push(Value::Object(rm));
        }
        m.insert("managedResources".into(), Value::Array(resources));
    }
    if let Some(t) = &e.tls_config {
        let mut tls = Map::new();
        tls.insert("insecure".into(), Value::Bool(t.insecure));
        text(&mut tls, "serverName", &t.server_name);
        text(&mut tls, "certFile", &t.cert_file);
        text(&mut tls, "keyFile", &t.key_file);
        text(&mut tls, "caFile", &t.ca_file);
        // The dump is logged and served (/configz): key and certificate material never is.
        for (k, v) in [("certData", &t.cert_data), ("keyData", &t.key_data), ("caData", &t.ca_data)] {
            if !v.is_empty() {
                tls.insert(k.into(), Value::from(REDACTED));
            }
        }
        m.insert("tlsConfig".into(), Value::Object(tls));
    }
    Value::Object(m)
}

/// Whole numbers print as integers (`qps: 50`), as upstream's encoder does.
fn float(v: f32) -> Value {
    if v.fract() == 0.0 && v.abs() < 1e15 {
        json!(v as i64)
    } else {
        json!(v)
    }
}

fn profile(p: &Profile) -> Value {
    let mut m = Map::new();
    m.insert("schedulerName".into(), json!(p.scheduler_name));
    if let Some(pct) = p.percentage_of_nodes_to_score {
        m.insert("percentageOfNodesToScore".into(), json!(pct));
    }
    let mut plugins = Map::new();
    for (point, set) in super::validate::plugin_sets(&p.plugins) {
        plugins.insert(point.into(), plugin_set(set));
    }
    m.insert("plugins".into(), Value::Object(plugins));
    m.insert(
        "pluginConfig".into(),
        Value::Array(p.plugin_config.iter().map(|c| json!({ "name": c.name, "args": args(&c.args) })).collect()),
    );
    Value::Object(m)
}

fn plugin_set(s: &PluginSet) -> Value {
    let entry = |r: &PluginRef| {
        if r.weight == 0 {
            json!({ "name": r.name })
        } else {
            json!({ "name": r.name, "weight": r.weight })
        }
    };
    let mut m = Map::new();
    if !s.enabled.is_empty() {
        m.insert("enabled".into(), Value::Array(s.enabled.iter().map(entry).collect()));
    }
    if !s.disabled.is_empty() {
        m.insert("disabled".into(), Value::Array(s.disabled.iter().map(|r| json!({ "name": r.name })).collect()));
    }
    Value::Object(m)
}

/// Typed args with `apiVersion`/`kind`; args of other plugins as they were given.
fn args(a: &PluginArgs) -> Value {
    if let PluginArgs::Other(v) = a {
        return v.clone();
    }
    let mut v = serde_json::to_value(a).unwrap_or(Value::Null);
    if let Value::Object(m) = &mut v {
        m.insert("apiVersion".into(), json!("kubescheduler.config.k8s.io/v1"));
        // Upstream omits empty optional lists (`omitempty`); reading them back gives empty lists again.
        m.retain(|_, val| !val.is_null() && val.as_array().is_none_or(|a| !a.is_empty()));
    }
    v
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn floats_print_like_go() {
        assert_eq!(float(50.0), json!(50));
        assert_eq!(float(12.5), json!(12.5));
    }

    #[test]
    fn typed_args_carry_api_version_and_kind() {
        let v = args(&PluginArgs::DefaultPreemption(DefaultPreemptionArgs::default()));
        assert_eq!(
            v,
            json!({"apiVersion": "kubescheduler.config.k8s.io/v1", "kind": "DefaultPreemptionArgs",
                   "minCandidateNodesPercentage": 10, "minCandidateNodesAbsolute": 100})
        );
        let v = args(&PluginArgs::DynamicResources(DynamicResourcesArgs::default()));
        assert_eq!(v["filterTimeout"], json!("10s"));
    }

    #[test]
    fn empty_sets_render_as_empty_mappings() {
        assert_eq!(plugin_set(&PluginSet::default()), json!({}));
    }
}
