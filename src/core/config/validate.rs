//! Validation of the defaulted configuration, after upstream's
//! `pkg/scheduler/apis/config/validation/{validation.go,validation_pluginargs.go}` and
//! component-base's leader-election and client-connection checks. Every problem names its field
//! path and uses upstream's `field.Error` wording.

use super::error::{duplicate, forbidden, invalid, not_supported, quoted, required, Problem};
use super::types::*;
use crate::core::api;
use crate::core::labels::syntax::{label_value_errors, qualified_name_errors};
use std::collections::HashSet;

/// `MaxCustomPriorityScore`: the top of the RequestedToCapacityRatio shape's score axis.
pub const MAX_CUSTOM_PRIORITY_SCORE: i32 = 10;

/// client-go's `leaderelection.JitterFactor`: renewDeadline must exceed retryPeriod times this.
const LEADER_JITTER_FACTOR: f64 = 1.2;

/// Validate a whole configuration. `with_args` also validates every pluginConfig's args at its
/// position in `cfg` (loading validates args at their position in the file instead).
pub fn validate_config(cfg: &SchedulerConfig, with_args: bool) -> Vec<Problem> {
    let mut errs = Vec::new();
    errs.extend(validate_client_connection(&cfg.client_connection));
    errs.extend(validate_leader_election(&cfg.leader_election));
    if cfg.parallelism <= 0 {
        errs.push(invalid("parallelism", cfg.parallelism, "should be an integer value greater than zero"));
    }
    errs.extend(validate_bind_address("healthzBindAddress", &cfg.healthz_bind_address));
    errs.extend(validate_bind_address("metricsBindAddress", &cfg.metrics_bind_address));
    errs.extend(validate_profiles(&cfg.profiles, with_args));
    errs.extend(validate_extenders(&cfg.extenders));
    errs.extend(validate_percentage("percentageOfNodesToScore", Some(cfg.percentage_of_nodes_to_score)));
    if cfg.pod_initial_backoff_seconds <= 0 {
        errs.push(invalid("podInitialBackoffSeconds", cfg.pod_initial_backoff_seconds, "must be greater than 0"));
    }
    if cfg.pod_max_backoff_seconds < cfg.pod_initial_backoff_seconds {
        errs.push(invalid(
            "podMaxBackoffSeconds",
            cfg.pod_max_backoff_seconds,
            "must be greater than or equal to PodInitialBackoffSeconds",
        ));
    }
    errs
}

/// `validateExtenders` (validation.go): a prioritizer needs a positive weight, managed resources
/// must be valid, unique extended resource names, and at most one extender may bind.
pub fn validate_extenders(extenders: &[Extender]) -> Vec<Problem> {
    let mut errs = Vec::new();
    let mut binders = 0usize;
    let mut seen: HashSet<&str> = HashSet::new();
    for (i, e) in extenders.iter().enumerate() {
        let path = format!("extenders[{i}]");
        if !e.prioritize_verb.is_empty() && e.weight <= 0 {
            errs.push(invalid(&format!("{path}.weight"), e.weight, "must have a positive weight applied to it"));
        }
        if !e.bind_verb.is_empty() {
            binders += 1;
        }
        for (j, r) in e.managed_resources.iter().enumerate() {
            let rpath = format!("{path}.managedResources[{j}].name");
            let name_errs = qualified_name_errors(&r.name);
            if name_errs.is_empty() {
                if !crate::core::model::is_extended_resource_name(&r.name) {
                    errs.push(invalid(&rpath, &r.name, "is an invalid extended resource name"));
                }
            } else {
                for m in name_errs {
                    errs.push(invalid(&rpath, &r.name, &m));
                }
            }
            if !seen.insert(r.name.as_str()) {
                errs.push(invalid(&rpath, &r.name, "duplicate extender managed resource name"));
            }
        }
    }
    if binders > 1 {
        errs.push(invalid(
            "extenders",
            format!("found {binders} extenders implementing bind"),
            "only one extender can implement bind",
        ));
    }
    errs
}

/// component-base `ValidateClientConnectionConfiguration`.
pub fn validate_client_connection(cc: &ClientConnection) -> Vec<Problem> {
    let mut errs = Vec::new();
    if cc.burst < 0 {
        errs.push(invalid("clientConnection.burst", cc.burst, "must be non-negative"));
    }
    errs
}

/// component-base `ValidateLeaderElectionConfiguration`, the scheduler's leases-only rule and
/// client-go's renewDeadline/retryPeriod jitter rule. Nothing is checked when leader election is off.
pub fn validate_leader_election(le: &LeaderElection) -> Vec<Problem> {
    let mut errs = Vec::new();
    if !le.leader_elect {
        return errs;
    }
    let show = |d: &GoDuration| quoted(&d.to_string());
    let zero = std::time::Duration::ZERO;
    if le.lease_duration.0 <= zero {
        errs.push(invalid("leaderElection.leaseDuration", show(&le.lease_duration), "must be greater than zero"));
    }
    if le.renew_deadline.0 <= zero {
        errs.push(invalid("leaderElection.renewDeadline", show(&le.renew_deadline), "must be greater than zero"));
    }
    if le.retry_period.0 <= zero {
        errs.push(invalid("leaderElection.retryPeriod", show(&le.retry_period), "must be greater than zero"));
    }
    if le.lease_duration.0 <= le.renew_deadline.0 {
        errs.push(invalid(
            "leaderElection.leaseDuration",
            show(&le.renew_deadline),
            "LeaseDuration must be greater than RenewDeadline",
        ));
    }
    if le.renew_deadline.0.as_secs_f64() <= LEADER_JITTER_FACTOR * le.retry_period.0.as_secs_f64() {
        errs.push(invalid(
            "leaderElection.renewDeadline",
            show(&le.renew_deadline),
            &format!("must be greater than retryPeriod ({}) * {LEADER_JITTER_FACTOR}", le.retry_period),
        ));
    }
    if le.resource_lock.is_empty() {
        errs.push(invalid("leaderElection.resourceLock", quoted(""), "resourceLock is required"));
    } else if le.resource_lock != "leases" {
        errs.push(invalid(
            "leaderElection.resourceLock",
            quoted(&le.resource_lock),
            "resourceLock value must be \"leases\" (endpoints- and configmaps-based locks were removed from \
             Kubernetes; only Lease objects are supported)",
        ));
    }
    if le.resource_namespace.is_empty() {
        errs.push(invalid("leaderElection.resourceNamespace", quoted(""), "resourceNamespace is required"));
    }
    if le.resource_name.is_empty() {
        errs.push(invalid("leaderElection.resourceName", quoted(""), "resourceName is required"));
    }
    errs
}

/// `host:port` with an IP host and a numeric port, or empty (off).
fn validate_bind_address(path: &str, addr: &str) -> Vec<Problem> {
    if addr.is_empty() {
        return Vec::new();
    }
    match split_host_port(addr) {
        Some((host, _)) if host.parse::<std::net::IpAddr>().is_ok() => Vec::new(),
        Some((host, _)) => vec![invalid(path, quoted(addr), &format!("host {host:?} must be a valid IP address"))],
        None => vec![invalid(path, quoted(addr), "must be host:port with a numeric port")],
    }
}

/// Split `host:port` / `[v6]:port`; the port must be a number in 0..=65535.
pub fn split_host_port(addr: &str) -> Option<(String, u16)> {
    let (host, port) = addr.rsplit_once(':')?;
    let host = host.strip_prefix('[').and_then(|h| h.strip_suffix(']')).unwrap_or(host);
    if host.contains(':') && !addr.starts_with('[') {
        return None;
    }
    Some((host.to_string(), port.parse().ok()?))
}

fn validate_percentage(path: &str, value: Option<i32>) -> Vec<Problem> {
    match value {
        Some(v) if !(0..=100).contains(&v) => vec![invalid(path, v, "not in valid range [0-100]")],
        _ => Vec::new(),
    }
}

fn validate_profiles(profiles: &[Profile], with_args: bool) -> Vec<Problem> {
    let mut errs = Vec::new();
    if profiles.is_empty() {
        errs.push(required("profiles", ""));
        return errs;
    }
    let mut seen: Vec<&str> = Vec::new();
    for (i, p) in profiles.iter().enumerate() {
        let path = format!("profiles[{i}]");
        if p.scheduler_name.is_empty() {
            errs.push(required(&format!("{path}.schedulerName"), ""));
        } else if seen.contains(&p.scheduler_name.as_str()) {
            errs.push(duplicate(&format!("{path}.schedulerName"), quoted(&p.scheduler_name)));
        }
        seen.push(&p.scheduler_name);
        errs.extend(validate_percentage(&format!("{path}.percentageOfNodesToScore"), p.percentage_of_nodes_to_score));
        errs.extend(validate_plugin_names(&path, &p.plugins));
        errs.extend(validate_plugin_config(&path, &p.plugin_config, with_args));
    }
    errs.extend(validate_common_queue_sort(profiles));
    errs
}

/// Enabled plugins must have a name and a non-negative weight.
fn validate_plugin_names(profile_path: &str, plugins: &Plugins) -> Vec<Problem> {
    let mut errs = Vec::new();
    for (point, set) in plugin_sets(plugins) {
        for (j, r) in set.enabled.iter().enumerate() {
            if r.name.is_empty() {
                errs.push(required(&format!("{profile_path}.plugins.{point}.enabled[{j}].name"), ""));
            }
            // Score weights feed `weight × MaxNodeScore` sums; a negative one would break them.
            if r.weight < 0 {
                errs.push(invalid(
                    &format!("{profile_path}.plugins.{point}.enabled[{j}].weight"),
                    r.weight,
                    "must be greater than or equal to 0",
                ));
            }
        }
    }
    errs
}

/// Every plugin set of a profile with its YAML name, in upstream's order.
pub fn plugin_sets(p: &Plugins) -> [(&'static str, &PluginSet); 13] {
    [
        ("preEnqueue", &p.pre_enqueue),
        ("queueSort", &p.queue_sort),
        ("preFilter", &p.pre_filter),
        ("filter", &p.filter),
        ("postFilter", &p.post_filter),
        ("preScore", &p.pre_score),
        ("score", &p.score),
        ("reserve", &p.reserve),
        ("permit", &p.permit),
        ("preBind", &p.pre_bind),
        ("bind", &p.bind),
        ("postBind", &p.post_bind),
        ("multiPoint", &p.multi_point),
    ]
}

fn validate_plugin_config(profile_path: &str, configs: &[PluginConfig], with_args: bool) -> Vec<Problem> {
    let mut errs = Vec::new();
    let mut seen = HashSet::new();
    for (j, c) in configs.iter().enumerate() {
        let path = format!("{profile_path}.pluginConfig[{j}]");
        if !seen.insert(c.name.as_str()) {
            errs.push(duplicate(&path, quoted(&c.name)));
        }
        if with_args {
            errs.extend(validate_args(&format!("{path}.args"), &c.name, &c.args));
        }
    }
    errs
}

/// `validateCommonQueueSort`: every profile must use the first profile's queue-sort plugin set and
/// the same args for it.
fn validate_common_queue_sort(profiles: &[Profile]) -> Vec<Problem> {
    let mut errs = Vec::new();
    let canon = &profiles[0].plugins.queue_sort;
    if canon.enabled.len() > 1 {
        errs.push(invalid(
            "profiles[0].plugins.queueSort.enabled",
            canon.enabled.len(),
            "only one queue sort plugin can be enabled",
        ));
    }
    let name = canon.enabled.first().map(|p| p.name.as_str()).unwrap_or("");
    let canon_args = profiles[0].plugin_config.iter().find(|c| !name.is_empty() && c.name == name).map(|c| &c.args);
    for (i, p) in profiles.iter().enumerate().skip(1) {
        if &p.plugins.queue_sort != canon {
            errs.push(invalid(
                &format!("profiles[{i}].plugins.queueSort"),
                describe_set(&p.plugins.queue_sort),
                "must be the same for all profiles",
            ));
        }
        for c in &p.plugin_config {
            if !name.is_empty() && c.name == name && Some(&c.args) != canon_args {
                errs.push(invalid(
                    &format!("profiles[{i}].pluginConfig.args"),
                    quoted(&c.name),
                    "queueSort must be the same for all profiles",
                ));
            }
        }
    }
    errs
}

fn describe_set(s: &PluginSet) -> String {
    let names = |v: &[PluginRef]| v.iter().map(|p| p.name.clone()).collect::<Vec<_>>().join(",");
    format!("{{enabled: [{}], disabled: [{}]}}", names(&s.enabled), names(&s.disabled))
}

/// Validate one plugin's args at `path` (upstream validates args by plugin name).
pub fn validate_args(path: &str, plugin: &str, args: &PluginArgs) -> Vec<Problem> {
    let kind_matches = match args {
        PluginArgs::NodeResourcesFit(_) => plugin == "NodeResourcesFit",
        PluginArgs::NodeResourcesBalancedAllocation(_) => plugin == "NodeResourcesBalancedAllocation",
        PluginArgs::NodeAffinity(_) => plugin == "NodeAffinity",
        PluginArgs::PodTopologySpread(_) => plugin == "PodTopologySpread",
        PluginArgs::InterPodAffinity(_) => plugin == "InterPodAffinity",
        PluginArgs::DefaultPreemption(_) => plugin == "DefaultPreemption",
        PluginArgs::VolumeBinding(_) => plugin == "VolumeBinding",
        PluginArgs::DynamicResources(_) => plugin == "DynamicResources",
        PluginArgs::Other(_) => true,
    };
    if !kind_matches {
        return vec![invalid(path, quoted(plugin), "has to match plugin args")];
    }
    match args {
        PluginArgs::NodeResourcesFit(a) => validate_fit_args(path, a),
        PluginArgs::NodeResourcesBalancedAllocation(a) => validate_balanced_allocation_args(path, a),
        PluginArgs::NodeAffinity(a) => validate_node_affinity_args(path, a),
        PluginArgs::PodTopologySpread(a) => validate_pod_topology_spread_args(path, a),
        PluginArgs::InterPodAffinity(a) => validate_inter_pod_affinity_args(path, a),
        PluginArgs::DefaultPreemption(a) => validate_default_preemption_args(path, a),
        PluginArgs::VolumeBinding(a) => validate_volume_binding_args(path, a),
        PluginArgs::DynamicResources(_) | PluginArgs::Other(_) => Vec::new(),
    }
}

/// `ValidateDefaultPreemptionArgs`.
pub fn validate_default_preemption_args(path: &str, a: &DefaultPreemptionArgs) -> Vec<Problem> {
    let mut errs = Vec::new();
    let pct = format!("{path}.minCandidateNodesPercentage");
    let abs = format!("{path}.minCandidateNodesAbsolute");
    if !(0..=100).contains(&a.min_candidate_nodes_percentage) {
        errs.push(invalid(&pct, a.min_candidate_nodes_percentage, "not in valid range [0, 100]"));
    }
    if a.min_candidate_nodes_absolute < 0 {
        errs.push(invalid(&abs, a.min_candidate_nodes_absolute, "not in valid range [0, inf)"));
    }
    if a.min_candidate_nodes_percentage == 0 && a.min_candidate_nodes_absolute == 0 {
        errs.push(invalid(&pct, 0, "cannot be zero at the same time as minCandidateNodesAbsolute"));
        errs.push(invalid(&abs, 0, "cannot be zero at the same time as minCandidateNodesPercentage"));
    }
    errs
}

/// `ValidateInterPodAffinityArgs`.
pub fn validate_inter_pod_affinity_args(path: &str, a: &InterPodAffinityArgs) -> Vec<Problem> {
    if (0..=100).contains(&a.hard_pod_affinity_weight) {
        Vec::new()
    } else {
        vec![invalid(&format!("{path}.hardPodAffinityWeight"), a.hard_pod_affinity_weight, "not in valid range [0, 100]")]
    }
}

/// `ValidateVolumeBindingArgs` with the StorageCapacityScoring gate off (its default).
pub fn validate_volume_binding_args(path: &str, a: &VolumeBindingArgs) -> Vec<Problem> {
    let mut errs = Vec::new();
    if a.bind_timeout_seconds < 0 {
        errs.push(invalid(
            &format!("{path}.bindTimeoutSeconds"),
            a.bind_timeout_seconds,
            "invalid BindTimeoutSeconds, should not be a negative value",
        ));
    }
    if !a.shape.is_empty() {
        errs.push(invalid(
            &format!("{path}.shape"),
            format!("{} points", a.shape.len()),
            "unexpected field `shape`, remove it or turn on the feature gate StorageCapacityScoring",
        ));
    }
    errs
}

/// `ValidateNodeResourcesBalancedAllocationArgs`: unique resources, each with weight 1.
pub fn validate_balanced_allocation_args(path: &str, a: &NodeResourcesBalancedAllocationArgs) -> Vec<Problem> {
    let mut errs = Vec::new();
    let mut seen = HashSet::new();
    for (i, r) in a.resources.iter().enumerate() {
        let rpath = format!("{path}.resources[{i}]");
        if !seen.insert(r.name.as_str()) {
            errs.push(duplicate(&format!("{rpath}.name"), quoted(&r.name)));
        }
        if r.weight != 1 {
            errs.push(invalid(&format!("{rpath}.weight"), r.weight, "must be 1"));
        }
    }
    errs
}

/// `ValidateNodeResourcesFitArgs`.
pub fn validate_fit_args(path: &str, a: &NodeResourcesFitArgs) -> Vec<Problem> {
    let mut errs = Vec::new();
    for (i, r) in a.ignored_resources.iter().enumerate() {
        for m in qualified_name_errors(r) {
            errs.push(invalid(&format!("{path}.ignoredResources[{i}]"), quoted(r), &m));
        }
    }
    for (i, g) in a.ignored_resource_groups.iter().enumerate() {
        let gpath = format!("{path}.ignoredResourceGroups[{i}]");
        if g.contains('/') {
            errs.push(invalid(&gpath, quoted(g), "resource group name can't contain '/'"));
        }
        for m in qualified_name_errors(g) {
            errs.push(invalid(&gpath, quoted(g), &m));
        }
    }
    let spath = format!("{path}.scoringStrategy");
    let s = &a.scoring_strategy;
    errs.extend(validate_resource_weights(&format!("{spath}.resources"), &s.resources));
    match (s.type_, &s.requested_to_capacity_ratio) {
        (ScoringStrategyType::RequestedToCapacityRatio, None) => errs.push(required(
            &format!("{spath}.requestedToCapacityRatio"),
            "must be specified when type is RequestedToCapacityRatio",
        )),
        (ScoringStrategyType::RequestedToCapacityRatio, Some(p)) => {
            errs.extend(validate_shape(&format!("{spath}.requestedToCapacityRatio.shape"), &p.shape))
        }
        (_, Some(_)) => errs.push(forbidden(
            &format!("{spath}.requestedToCapacityRatio"),
            "must be nil when type is not RequestedToCapacityRatio",
        )),
        (_, None) => {}
    }
    errs
}

/// Resource weights of scoring strategies must be in (0, 100].
pub fn validate_resource_weights(path: &str, resources: &[ResourceSpec]) -> Vec<Problem> {
    let mut errs = Vec::new();
    for (i, r) in resources.iter().enumerate() {
        if r.weight <= 0 || r.weight > 100 {
            errs.push(invalid(
                &format!("{path}[{i}].weight"),
                r.weight,
                &format!("resource weight of {} not in valid range (0, 100]", r.name),
            ));
        }
    }
    errs
}

/// `validateFunctionShape`: at least one point, utilization strictly increasing in [0, 100], score in
/// [0, 10].
pub fn validate_shape(path: &str, shape: &[UtilizationShapePoint]) -> Vec<Problem> {
    let mut errs = Vec::new();
    if shape.is_empty() {
        errs.push(required(path, "at least one point must be specified"));
        return errs;
    }
    if let Some(i) = (1..shape.len()).find(|&i| shape[i - 1].utilization >= shape[i].utilization) {
        errs.push(invalid(
            &format!("{path}[{i}].utilization"),
            shape[i].utilization,
            "values must be sorted in increasing order",
        ));
    }
    for (i, p) in shape.iter().enumerate() {
        if !(0..=100).contains(&p.utilization) {
            errs.push(invalid(&format!("{path}[{i}].utilization"), p.utilization, "not in valid range [0, 100]"));
        }
        if !(0..=MAX_CUSTOM_PRIORITY_SCORE).contains(&p.score) {
            errs.push(invalid(
                &format!("{path}[{i}].score"),
                p.score,
                &format!("not in valid range [0, {MAX_CUSTOM_PRIORITY_SCORE}]"),
            ));
        }
    }
    errs
}

/// `ValidatePodTopologySpreadArgs`.
pub fn validate_pod_topology_spread_args(path: &str, a: &PodTopologySpreadArgs) -> Vec<Problem> {
    let mut errs = Vec::new();
    if a.defaulting_type == DefaultingType::System && !a.default_constraints.is_empty() {
        errs.push(invalid(&format!("{path}.defaultingType"), quoted("System"), "when .defaultConstraints are not empty"));
    }
    let cpath = format!("{path}.defaultConstraints");
    for (i, c) in a.default_constraints.iter().enumerate() {
        let p = format!("{cpath}[{i}]");
        if c.max_skew <= 0 {
            errs.push(invalid(&format!("{p}.maxSkew"), c.max_skew, "not in valid range (0, inf)"));
        }
        if c.topology_key.is_empty() {
            errs.push(required(&format!("{p}.topologyKey"), "can not be empty"));
        } else {
            for m in qualified_name_errors(&c.topology_key) {
                errs.push(invalid(&format!("{p}.topologyKey"), quoted(&c.topology_key), &m));
            }
        }
        if c.when_unsatisfiable.is_empty() {
            errs.push(required(&format!("{p}.whenUnsatisfiable"), "can not be empty"));
        } else if !matches!(c.when_unsatisfiable.as_str(), "DoNotSchedule" | "ScheduleAnyway") {
            errs.push(not_supported(
                &format!("{p}.whenUnsatisfiable"),
                &c.when_unsatisfiable,
                &["DoNotSchedule", "ScheduleAnyway"],
            ));
        }
        if c.label_selector.is_some() {
            errs.push(forbidden(
                &format!("{p}.labelSelector"),
                "constraint must not define a selector, as they deduced for each pod",
            ));
        }
        let repeated = a.default_constraints[..i]
            .iter()
            .any(|o| o.topology_key == c.topology_key && o.when_unsatisfiable == c.when_unsatisfiable);
        if repeated {
            errs.push(duplicate(&p, format!("{{{}, {}}}", c.topology_key, c.when_unsatisfiable)));
        }
    }
    errs
}

/// `ValidateNodeAffinityArgs`: `addedAffinity` must be a selector the scheduler can evaluate.
pub fn validate_node_affinity_args(path: &str, a: &NodeAffinityArgs) -> Vec<Problem> {
    let mut errs = Vec::new();
    let Some(aff) = &a.added_affinity else {
        return errs;
    };
    let base = format!("{path}.addedAffinity");
    if let Some(sel) = &aff.required {
        let rpath = format!("{base}.requiredDuringSchedulingIgnoredDuringExecution.nodeSelectorTerms");
        for (i, term) in sel.node_selector_terms.iter().enumerate() {
            errs.extend(validate_node_selector_term(&format!("{rpath}[{i}]"), term));
        }
    }
    for (i, pref) in aff.preferred.iter().enumerate() {
        let ppath = format!("{base}.preferredDuringSchedulingIgnoredDuringExecution[{i}].preference");
        errs.extend(validate_node_selector_term(&ppath, &pref.preference));
    }
    errs
}

/// component-helpers `nodeaffinity.newNodeSelectorTerm`: label requirements and field selectors.
fn validate_node_selector_term(path: &str, term: &api::NodeSelectorTerm) -> Vec<Problem> {
    let mut errs = Vec::new();
    for (j, req) in term.match_expressions.iter().enumerate() {
        errs.extend(validate_label_requirement(&format!("{path}.matchExpressions[{j}]"), req));
    }
    for (j, req) in term.match_fields.iter().enumerate() {
        let p = format!("{path}.matchFields[{j}]");
        if req.values.len() != 1 {
            errs.push(invalid(&format!("{p}.values"), format!("{:?}", req.values), "must have one element"));
            continue;
        }
        if !matches!(req.operator.as_str(), "In" | "NotIn") {
            errs.push(not_supported(&format!("{p}.operator"), &req.operator, &["In", "NotIn"]));
        }
    }
    errs
}

fn validate_label_requirement(p: &str, req: &api::NodeSelectorRequirement) -> Vec<Problem> {
    let mut errs = Vec::new();
    let op = req.operator.as_str();
    if !matches!(op, "In" | "NotIn" | "Exists" | "DoesNotExist" | "Gt" | "Lt") {
        errs.push(Problem::at(format!("{p}.operator"), format!("Unsupported value: {op:?}")));
        return errs;
    }
    for m in qualified_name_errors(&req.key) {
        errs.push(invalid(&format!("{p}.key"), quoted(&req.key), &m));
    }
    let vpath = format!("{p}.values");
    let shown = format!("{:?}", req.values);
    match op {
        "In" | "NotIn" if req.values.is_empty() => {
            errs.push(invalid(&vpath, shown, "for 'in', 'notin' operators, values set can't be empty"))
        }
        "Exists" | "DoesNotExist" if !req.values.is_empty() => {
            errs.push(invalid(&vpath, shown, "values set must be empty for exists and does not exist"))
        }
        "Gt" | "Lt" if req.values.len() != 1 => {
            errs.push(invalid(&vpath, shown, "for 'Gt', 'Lt' operators, exactly one value is required"))
        }
        "Gt" | "Lt" => {
            for (i, v) in req.values.iter().enumerate() {
                if v.parse::<i64>().is_err() {
                    errs.push(invalid(
                        &format!("{vpath}[{i}]"),
                        quoted(v),
                        "for 'Gt', 'Lt' operators, the value must be an integer",
                    ));
                }
            }
        }
        _ => {}
    }
    for (i, v) in req.values.iter().enumerate() {
        for m in label_value_errors(v) {
            errs.push(invalid(&format!("{vpath}[{i}]"), quoted(v), &m));
        }
    }
    errs
}

#[cfg(test)]
mod tests {
    use super::*;

    fn msgs(errs: &[Problem]) -> Vec<String> {
        errs.iter().map(|e| e.to_string()).collect()
    }

    // Cases from upstream validation_pluginargs_test.go TestValidateDefaultPreemptionArgs.
    #[test]
    fn default_preemption_args() {
        let ok = DefaultPreemptionArgs::default();
        assert!(validate_default_preemption_args("a", &ok).is_empty());
        let a = DefaultPreemptionArgs { min_candidate_nodes_percentage: -1, ..ok.clone() };
        assert_eq!(
            msgs(&validate_default_preemption_args("a", &a)),
            ["a.minCandidateNodesPercentage: Invalid value: -1: not in valid range [0, 100]"]
        );
        let a = DefaultPreemptionArgs { min_candidate_nodes_percentage: 900, ..ok.clone() };
        assert_eq!(validate_default_preemption_args("a", &a).len(), 1);
        let a = DefaultPreemptionArgs { min_candidate_nodes_absolute: -1, ..ok.clone() };
        assert_eq!(
            msgs(&validate_default_preemption_args("a", &a)),
            ["a.minCandidateNodesAbsolute: Invalid value: -1: not in valid range [0, inf)"]
        );
        let a = DefaultPreemptionArgs { min_candidate_nodes_percentage: 0, min_candidate_nodes_absolute: 0, ..ok };
        assert_eq!(
            msgs(&validate_default_preemption_args("a", &a)),
            [
                "a.minCandidateNodesPercentage: Invalid value: 0: cannot be zero at the same time as minCandidateNodesAbsolute",
                "a.minCandidateNodesAbsolute: Invalid value: 0: cannot be zero at the same time as minCandidateNodesPercentage"
            ]
        );
    }

    // TestValidateInterPodAffinityArgs.
    #[test]
    fn inter_pod_affinity_args() {
        let mut a = InterPodAffinityArgs::default();
        assert!(validate_inter_pod_affinity_args("a", &a).is_empty());
        a.hard_pod_affinity_weight = 0;
        assert!(validate_inter_pod_affinity_args("a", &a).is_empty());
        a.hard_pod_affinity_weight = 101;
        assert_eq!(
            msgs(&validate_inter_pod_affinity_args("a", &a)),
            ["a.hardPodAffinityWeight: Invalid value: 101: not in valid range [0, 100]"]
        );
        a.hard_pod_affinity_weight = -1;
        assert_eq!(validate_inter_pod_affinity_args("a", &a).len(), 1);
    }

    fn constraint(key: &str, when: &str) -> api::TopologySpreadConstraint {
        api::TopologySpreadConstraint {
            max_skew: 1,
            topology_key: key.into(),
            when_unsatisfiable: when.into(),
            ..Default::default()
        }
    }

    fn list_args(c: Vec<api::TopologySpreadConstraint>) -> PodTopologySpreadArgs {
        PodTopologySpreadArgs { default_constraints: c, defaulting_type: DefaultingType::List, ..Default::default() }
    }

    // TestValidatePodTopologySpreadArgs.
    #[test]
    fn pod_topology_spread_args() {
        let ok = list_args(vec![constraint("node", "ScheduleAnyway"), constraint("zone", "DoNotSchedule")]);
        assert!(validate_pod_topology_spread_args("a", &ok).is_empty());
        let mut bad = constraint("node", "ScheduleAnyway");
        bad.max_skew = -1;
        assert_eq!(
            msgs(&validate_pod_topology_spread_args("a", &list_args(vec![bad]))),
            ["a.defaultConstraints[0].maxSkew: Invalid value: -1: not in valid range (0, inf)"]
        );
        assert_eq!(
            msgs(&validate_pod_topology_spread_args("a", &list_args(vec![constraint("", "ScheduleAnyway")]))),
            ["a.defaultConstraints[0].topologyKey: Required value: can not be empty"]
        );
        assert_eq!(
            msgs(&validate_pod_topology_spread_args("a", &list_args(vec![constraint("node", "")]))),
            ["a.defaultConstraints[0].whenUnsatisfiable: Required value: can not be empty"]
        );
        assert_eq!(
            msgs(&validate_pod_topology_spread_args("a", &list_args(vec![constraint("node", "Foo")]))),
            ["a.defaultConstraints[0].whenUnsatisfiable: Unsupported value: \"Foo\": supported values: \"DoNotSchedule\", \"ScheduleAnyway\""]
        );
        let dup = list_args(vec![constraint("node", "DoNotSchedule"), constraint("node", "DoNotSchedule")]);
        assert_eq!(
            msgs(&validate_pod_topology_spread_args("a", &dup)),
            ["a.defaultConstraints[1]: Duplicate value: {node, DoNotSchedule}"]
        );
        let mut sel = constraint("node", "DoNotSchedule");
        sel.label_selector = Some(api::LabelSelector::default());
        assert_eq!(
            msgs(&validate_pod_topology_spread_args("a", &list_args(vec![sel]))),
            ["a.defaultConstraints[0].labelSelector: Forbidden: constraint must not define a selector, as they deduced for each pod"]
        );
        let mut system = list_args(vec![constraint("node", "DoNotSchedule")]);
        system.defaulting_type = DefaultingType::System;
        assert_eq!(
            msgs(&validate_pod_topology_spread_args("a", &system)),
            ["a.defaultingType: Invalid value: \"System\": when .defaultConstraints are not empty"]
        );
    }

    // TestValidateNodeResourcesBalancedAllocationArgs.
    #[test]
    fn balanced_allocation_args() {
        let ok = NodeResourcesBalancedAllocationArgs::default();
        assert!(validate_balanced_allocation_args("a", &ok).is_empty());
        let mut bad = ok.clone();
        bad.resources = vec![ResourceSpec { name: "cpu".into(), weight: 2 }, ResourceSpec { name: "cpu".into(), weight: 1 }];
        assert_eq!(
            msgs(&validate_balanced_allocation_args("a", &bad)),
            ["a.resources[0].weight: Invalid value: 2: must be 1", "a.resources[1].name: Duplicate value: \"cpu\""]
        );
    }

    // TestValidateFitArgs.
    #[test]
    fn fit_args() {
        let ok = NodeResourcesFitArgs::default();
        assert!(validate_fit_args("a", &ok).is_empty());
        let mut a = ok.clone();
        a.ignored_resources = vec!["valid".into(), "in/va/lid".into()];
        a.ignored_resource_groups = vec!["example.com/x".into()];
        let m = msgs(&validate_fit_args("a", &a));
        assert!(m[0].starts_with("a.ignoredResources[1]: Invalid value: \"in/va/lid\": a qualified name"), "{m:?}");
        assert_eq!(m[1], "a.ignoredResourceGroups[0]: Invalid value: \"example.com/x\": resource group name can't contain '/'");
        let mut a = ok.clone();
        a.scoring_strategy.resources[0].weight = 101;
        assert_eq!(
            msgs(&validate_fit_args("a", &a)),
            ["a.scoringStrategy.resources[0].weight: Invalid value: 101: resource weight of cpu not in valid range (0, 100]"]
        );
        let mut a = ok.clone();
        a.scoring_strategy.type_ = ScoringStrategyType::RequestedToCapacityRatio;
        assert_eq!(
            msgs(&validate_fit_args("a", &a)),
            ["a.scoringStrategy.requestedToCapacityRatio: Required value: must be specified when type is RequestedToCapacityRatio"]
        );
        a.scoring_strategy.requested_to_capacity_ratio = Some(RequestedToCapacityRatioParam {
            shape: vec![
                UtilizationShapePoint { utilization: 30, score: 11 },
                UtilizationShapePoint { utilization: 20, score: 5 },
            ],
        });
        assert_eq!(
            msgs(&validate_fit_args("a", &a)),
            [
                "a.scoringStrategy.requestedToCapacityRatio.shape[1].utilization: Invalid value: 20: values must be sorted in increasing order",
                "a.scoringStrategy.requestedToCapacityRatio.shape[0].score: Invalid value: 11: not in valid range [0, 10]"
            ]
        );
        a.scoring_strategy.type_ = ScoringStrategyType::MostAllocated;
        assert_eq!(
            msgs(&validate_fit_args("a", &a)),
            ["a.scoringStrategy.requestedToCapacityRatio: Forbidden: must be nil when type is not RequestedToCapacityRatio"]
        );
    }

    #[test]
    fn shapes() {
        assert_eq!(msgs(&validate_shape("s", &[])), ["s: Required value: at least one point must be specified"]);
        let p = |u, s| UtilizationShapePoint { utilization: u, score: s };
        assert_eq!(msgs(&validate_shape("s", &[p(-1, 0), p(101, -1)])).len(), 3);
    }

    // TestValidateVolumeBindingArgs.
    #[test]
    fn volume_binding_args() {
        let mut a = VolumeBindingArgs::default();
        assert!(validate_volume_binding_args("a", &a).is_empty());
        a.bind_timeout_seconds = -10;
        assert_eq!(
            msgs(&validate_volume_binding_args("a", &a)),
            ["a.bindTimeoutSeconds: Invalid value: -10: invalid BindTimeoutSeconds, should not be a negative value"]
        );
    }

    fn req(key: &str, op: &str, values: &[&str]) -> api::NodeSelectorRequirement {
        api::NodeSelectorRequirement {
            key: key.into(),
            operator: op.into(),
            values: values.iter().map(|s| s.to_string()).collect(),
        }
    }

    // TestValidateNodeAffinityArgs.
    #[test]
    fn node_affinity_args() {
        let term = api::NodeSelectorTerm {
            match_expressions: vec![req("foo", "In", &["x"]), req("$bad", "Exists", &[]), req("n", "Gt", &["a"])],
            match_fields: vec![req("metadata.name", "In", &["a", "b"]), req("metadata.name", "Exists", &["a"])],
        };
        let args = NodeAffinityArgs {
            api_version: String::new(),
            added_affinity: Some(api::NodeAffinity {
                required: Some(api::NodeSelector { node_selector_terms: vec![term.clone()] }),
                preferred: vec![api::PreferredSchedulingTerm {
                    weight: 1,
                    preference: api::NodeSelectorTerm { match_expressions: vec![req("x", "Foo", &[])], ..Default::default() },
                }],
            }),
        };
        let m = msgs(&validate_node_affinity_args("a", &args));
        let base = "a.addedAffinity.requiredDuringSchedulingIgnoredDuringExecution.nodeSelectorTerms[0]";
        assert!(
            m[0].starts_with(&format!("{base}.matchExpressions[1].key: Invalid value: \"$bad\": name part must consist")),
            "{m:?}"
        );
        assert_eq!(m[1], format!("{base}.matchExpressions[2].values[0]: Invalid value: \"a\": for 'Gt', 'Lt' operators, the value must be an integer"));
        assert_eq!(m[2], format!("{base}.matchFields[0].values: Invalid value: [\"a\", \"b\"]: must have one element"));
        assert_eq!(
            m[3],
            format!("{base}.matchFields[1].operator: Unsupported value: \"Exists\": supported values: \"In\", \"NotIn\"")
        );
        assert_eq!(m[4], "a.addedAffinity.preferredDuringSchedulingIgnoredDuringExecution[0].preference.matchExpressions[0].operator: Unsupported value: \"Foo\"");
        assert_eq!(m.len(), 5);
    }

    #[test]
    fn leader_election() {
        let mut le = LeaderElection::default();
        assert!(validate_leader_election(&le).is_empty());
        le.renew_deadline = GoDuration::from_secs(20);
        assert_eq!(
            msgs(&validate_leader_election(&le))[0],
            "leaderElection.leaseDuration: Invalid value: \"20s\": LeaseDuration must be greater than RenewDeadline"
        );
        let mut le = LeaderElection { resource_lock: "endpointsleases".into(), ..Default::default() };
        assert!(msgs(&validate_leader_election(&le))[0].starts_with(
            "leaderElection.resourceLock: Invalid value: \"endpointsleases\": resourceLock value must be \"leases\""
        ));
        le.leader_elect = false;
        assert!(validate_leader_election(&le).is_empty());
        let le = LeaderElection { retry_period: GoDuration::from_secs(9), ..Default::default() };
        assert!(msgs(&validate_leader_election(&le))[0].contains("must be greater than retryPeriod (9s) * 1.2"));
        let le = LeaderElection { resource_name: String::new(), resource_namespace: String::new(), ..Default::default() };
        assert_eq!(
            msgs(&validate_leader_election(&le)),
            [
                "leaderElection.resourceNamespace: Invalid value: \"\": resourceNamespace is required",
                "leaderElection.resourceName: Invalid value: \"\": resourceName is required"
            ]
        );
    }

    #[test]
    fn host_ports() {
        assert_eq!(split_host_port("0.0.0.0:10251"), Some(("0.0.0.0".into(), 10251)));
        assert_eq!(split_host_port("[::1]:80"), Some(("::1".into(), 80)));
        assert_eq!(split_host_port("::1"), None);
        assert_eq!(split_host_port("a:b"), None);
        assert!(validate_bind_address("h", "localhost:1")[0].to_string().contains("must be a valid IP address"));
    }
}
