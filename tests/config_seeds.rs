//! Configurations copied from web pages users deploy from (see tests/fixtures/README.md):
//! what loads, what is refused, and that the refusals say what to fix.

use edgesched::core::config::*;
use std::path::Path;

/// Load a fixture and build every profile's framework, as the scheduler does at start: a
/// configuration that parses but cannot run is a failure here too.
fn load_fixture(name: &str) -> Result<Loaded, ConfigError> {
    let loaded = load_file(&Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/config").join(name))?;
    if let Err(e) = edgesched::core::simulate::frameworks(&loaded.config) {
        panic!("{name} loads but its profiles do not build: {e}");
    }
    Ok(loaded)
}

#[test]
fn every_config_version_default_profile_builds() {
    for version in ["v1", "v1beta3", "v1beta2", "v1beta1"] {
        let text = format!(
            "apiVersion: kubescheduler.config.k8s.io/{version}\nkind: KubeSchedulerConfiguration\nprofiles:\n- schedulerName: a\n- schedulerName: b\n"
        );
        let loaded = load_str(&text, version).unwrap_or_else(|e| panic!("{version}: {e}"));
        let frameworks = edgesched::core::simulate::frameworks(&loaded.config).unwrap_or_else(|e| panic!("{version}: {e}"));
        assert_eq!(frameworks.len(), 2, "{version}");
        for fw in &frameworks {
            let points = fw.extension_points();
            let filter = &points.iter().find(|(p, _)| *p == "filter").expect("filter").1;
            assert!(filter.iter().any(|n| n == "TaintToleration"), "{version}: {filter:?}");
            let bind = &points.iter().find(|(p, _)| *p == "bind").expect("bind").1;
            assert_eq!(bind, &["DefaultBinder".to_string()], "{version}");
        }
    }
}

fn message(name: &str) -> String {
    match load_fixture(name) {
        Ok(_) => panic!("{name} should not load"),
        Err(e) => e.problems.iter().map(|p| p.to_string()).collect::<Vec<_>>().join("\n"),
    }
}

#[test]
fn bogus_api_version_suggests_the_right_one() {
    let m = message("web-k8s-2-10-scheduler-config.yaml");
    assert!(
        m.starts_with("unknown apiVersion \"kube-scheduler.k8s.io/v1\" for KubeSchedulerConfiguration; did you mean \"kubescheduler.config.k8s.io/v1\"?"),
        "{m}"
    );
}

#[test]
fn leader_election_under_a_profile_is_refused_with_a_hint() {
    let m = message("web-k8s-2-10-custom-scheduler-config.yaml");
    assert_eq!(
        m,
        "profiles[0].leaderElection: unknown field \"leaderElection\" (line 5 column 3): leaderElection is a top-level \
         field, not a profile field; check the indentation"
    );
}

#[test]
fn cka_notes_configs() {
    let c = load_fixture("web-cka-notes-default-scheduler.yaml").unwrap().config;
    assert_eq!(c, default_config());
    let c = load_fixture("web-cka-notes-my-scheduler.yaml").unwrap().config;
    assert_eq!(c.profiles[0].scheduler_name, "my-scheduler");
    let c = load_fixture("web-cka-notes-my-scheduler-leader-election.yaml").unwrap().config;
    assert_eq!(c.leader_election.resource_name, "lock-object-my-scheduler");
    assert_eq!(c.leader_election.resource_namespace, "kube-system");
    assert!(c.leader_election.leader_elect);
    let l = load_fixture("web-cka-notes-v1beta2-configmap.yaml").unwrap();
    assert_eq!(l.config.profiles[0].scheduler_name, "my-scheduler");
    assert!(!l.config.leader_election.leader_elect);
    assert_eq!(l.warnings.len(), 1);
}

#[test]
fn pmk_v1beta1_as_intended() {
    let l = load_fixture("web-pmk-v1beta1-intended.yaml").unwrap();
    let c = &l.config;
    assert_eq!(c.client_connection.kubeconfig, "/srv/kubernetes/kubeconfigs/kubeconfig-for-my-scheduler.yaml");
    assert!(!c.leader_election.leader_elect);
    assert_eq!(c.healthz_bind_address, "0.0.0.0:10252");
    assert_eq!(c.metrics_bind_address, "0.0.0.0:10252");
    let p = &c.profiles[0];
    assert_eq!(p.scheduler_name, "my-scheduler");
    // NodeResourcesLeastAllocated (disabled, then re-enabled with weight 3) is now NodeResourcesFit with
    // weight 3, appended after the remaining default score plugins as v1beta1 merged it.
    let score: Vec<(&str, i32)> = p.plugins.score.enabled.iter().map(|r| (r.name.as_str(), r.weight)).collect();
    assert_eq!(
        score,
        [
            ("NodeResourcesBalancedAllocation", 1),
            ("ImageLocality", 1),
            ("InterPodAffinity", 1),
            ("NodeAffinity", 1),
            ("PodTopologySpread", 2),
            ("TaintToleration", 1),
            ("NodeResourcesFit", 3)
        ]
    );
    let Some(PluginArgs::NodeResourcesFit(fit)) = p.args("NodeResourcesFit") else { panic!() };
    assert_eq!(fit.scoring_strategy, ScoringStrategy::default());
    assert!(l.warnings[0].contains("v1beta1 was removed in v1.23"));
    assert!(l.warnings[1].contains("NodeResourcesLeastAllocated (weight 3) converted to NodeResourcesFit"));
}

#[test]
fn pmk_v1beta1_as_published_is_a_yaml_error_at_the_wrapped_line() {
    // The kubeconfig path wrapped onto its own line at column 1 breaks the YAML, as it would for
    // kube-scheduler.
    assert_eq!(message("web-pmk-v1beta1-as-published.yaml"), "not valid YAML: simple key expected ':' (line 5 column 1)");
}

#[test]
fn pmk_v1beta1_misindented_plugins_are_refused_like_upstream() {
    // Upstream's strict decoder also refuses a top-level `plugins` (unknown field); the hint says why.
    assert_eq!(
        message("web-pmk-v1beta1-plugins-misindented.yaml"),
        "plugins: unknown field \"plugins\" (line 7 column 1): plugins belongs inside a profile (profiles[].plugins); \
         check the indentation"
    );
}
