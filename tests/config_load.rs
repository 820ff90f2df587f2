//! Loading `KubeSchedulerConfiguration` files: the documentation examples, upstream's defaulting and
//! validation tables (transcribed, with the upstream test names), decoding errors and round trips.

use edgesched::core::config::*;
use std::path::{Path, PathBuf};

fn fixture(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/config").join(name)
}

fn load_fixture(name: &str) -> Loaded {
    match load_file(&fixture(name)) {
        Ok(l) => l,
        Err(e) => panic!("{name}: {e}"),
    }
}

fn load(text: &str) -> Result<Loaded, ConfigError> {
    load_str(text, "s.yaml")
}

fn err(text: &str) -> String {
    match load(text) {
        Ok(l) => panic!("expected an error, got {:?}", l.config),
        Err(e) => e.to_string(),
    }
}

const V1: &str = "apiVersion: kubescheduler.config.k8s.io/v1\nkind: KubeSchedulerConfiguration\n";

fn names(set: &PluginSet) -> Vec<(&str, i32)> {
    set.enabled.iter().map(|p| (p.name.as_str(), p.weight)).collect()
}

fn assert_round_trip(cfg: &SchedulerConfig) {
    let text = to_yaml(cfg);
    let back = load_str(&text, "dump.yaml").unwrap_or_else(|e| panic!("{e}\n{text}"));
    let mut expected = cfg.clone();
    expected.healthz_bind_address.clear();
    expected.metrics_bind_address.clear();
    assert_eq!(back.config, expected, "round trip changed the configuration:\n{text}");
    assert!(back.warnings.is_empty());
}

#[test]
fn every_fixture_round_trips() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/config");
    let mut loaded = 0;
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.extension().is_some_and(|e| e == "yaml") && !path.to_string_lossy().contains("kubeconfig") {
            if let Ok(l) = load_file(&path) {
                assert_round_trip(&l.config);
                loaded += 1;
            }
        }
    }
    assert!(loaded >= 10, "{loaded}");
    assert_round_trip(&default_config());
}

#[test]
fn docs_minimal() {
    let l = load_fixture("kubescheduler-config-v1-minimal.yaml");
    assert!(l.warnings.is_empty());
    let mut want = default_config();
    want.client_connection.kubeconfig = "/etc/srv/kubernetes/kube-scheduler/kubeconfig".into();
    assert_eq!(l.config, want);
}

#[test]
fn docs_multiple_profiles() {
    let c = load_fixture("kubescheduler-config-v1-multiple-profiles.yaml").config;
    assert_eq!(c.profiles.len(), 2);
    assert_eq!(c.profiles[0], default_config().profiles[0]);
    let p = &c.profiles[1];
    assert_eq!(p.scheduler_name, "no-scoring-scheduler");
    assert_eq!(p.plugins.score.disabled, vec![PluginRef::new("*", 0)]);
    assert_eq!(p.plugins.pre_score.disabled, vec![PluginRef::new("*", 0)]);
    assert!(p.plugins.score.enabled.is_empty());
    assert_eq!(p.plugins.multi_point, default_config().profiles[0].plugins.multi_point);
}

#[test]
fn docs_multipoint() {
    let c = load_fixture("kubescheduler-config-v1-multipoint.yaml").config;
    let p = &c.profiles[0];
    assert_eq!(p.scheduler_name, "multipoint-scheduler");
    let mp = names(&p.plugins.multi_point);
    assert_eq!(mp.len(), 19 + 3);
    assert_eq!(&mp[19..], [("CustomQueueSort", 0), ("CustomPlugin1", 3), ("CustomPlugin2", 0)]);
    assert_eq!(p.plugins.multi_point.disabled, vec![PluginRef::new("DefaultQueueSort", 0)]);
    assert_eq!(p.plugins.filter.disabled, vec![PluginRef::new("DefaultPlugin1", 0)]);
    assert_eq!(names(&p.plugins.score), [("DefaultPlugin2", 0)]);
}

#[test]
fn docs_score_plugins() {
    let p = load_fixture("kubescheduler-config-v1-score-plugins.yaml").config.profiles.remove(0);
    assert_eq!(p.scheduler_name, "default-scheduler");
    assert_eq!(names(&p.plugins.score), [("MyCustomPluginA", 2), ("MyCustomPluginB", 1)]);
    assert_eq!(p.plugins.score.disabled, vec![PluginRef::new("PodTopologySpread", 0)]);
}

#[test]
fn docs_bin_packing_most_allocated() {
    let p = load_fixture("kubescheduler-config-v1-noderesourcesfit-mostallocated.yaml").config.profiles.remove(0);
    let Some(PluginArgs::NodeResourcesFit(fit)) = p.args("NodeResourcesFit") else { panic!() };
    assert_eq!(fit.scoring_strategy.type_, ScoringStrategyType::MostAllocated);
    let res: Vec<(&str, i64)> = fit.scoring_strategy.resources.iter().map(|r| (r.name.as_str(), r.weight)).collect();
    assert_eq!(res, [("cpu", 1), ("memory", 1), ("intel.com/foo", 3), ("intel.com/bar", 3)]);
    // The user's args come first; defaults for the other enabled plugins follow in name order.
    assert_eq!(p.plugin_config[0].name, "NodeResourcesFit");
    assert_eq!(p.plugin_config.len(), 8);
}

#[test]
fn docs_bin_packing_requested_to_capacity_ratio() {
    let p = load_fixture("kubescheduler-config-v1-noderesourcesfit-requestedtocapacityratio.yaml").config.profiles.remove(0);
    let Some(PluginArgs::NodeResourcesFit(fit)) = p.args("NodeResourcesFit") else { panic!() };
    assert_eq!(fit.scoring_strategy.type_, ScoringStrategyType::RequestedToCapacityRatio);
    let shape = &fit.scoring_strategy.requested_to_capacity_ratio.as_ref().unwrap().shape;
    assert_eq!(
        shape,
        &[UtilizationShapePoint { utilization: 0, score: 0 }, UtilizationShapePoint { utilization: 100, score: 10 }]
    );
}

// Upstream pkg/scheduler/apis/config/v1/defaults_test.go TestSchedulerDefaults.
#[test]
fn upstream_scheduler_defaults() {
    // "empty config" and "no scheduler name"
    assert_eq!(load(V1).unwrap().config, default_config());
    assert_eq!(load(&format!("{V1}profiles:\n- {{}}\n")).unwrap().config, default_config());
    // "set non default parallelism"
    assert_eq!(load(&format!("{V1}parallelism: 8\n")).unwrap().config.parallelism, 8);
    // "set non default delayCacheUntilActive"
    assert!(load(&format!("{V1}delayCacheUntilActive: true\n")).unwrap().config.delay_cache_until_active);
    // "set non default global percentageOfNodesToScore"
    assert_eq!(load(&format!("{V1}percentageOfNodesToScore: 50\n")).unwrap().config.percentage_of_nodes_to_score, 50);
    // "set non default global and profile percentageOfNodesToScore"
    let c = load(&format!("{V1}percentageOfNodesToScore: 10\nprofiles:\n- percentageOfNodesToScore: 50\n")).unwrap().config;
    assert_eq!((c.percentage_of_nodes_to_score, c.profiles[0].percentage_of_nodes_to_score), (10, Some(50)));
    assert_eq!(c.profiles[0].scheduler_name, "default-scheduler");
    // "unknown plugin config": kept as given, before the defaults.
    let c = load(&format!("{V1}profiles:\n- pluginConfig:\n  - name: FooPlugin\n    args:\n      foo: bar\n")).unwrap().config;
    assert_eq!(
        c.profiles[0].plugin_config[0],
        PluginConfig { name: "FooPlugin".into(), args: PluginArgs::Other(serde_json::json!({"foo": "bar"})) }
    );
    assert_eq!(c.profiles[0].plugin_config.len(), 9);
}

// TestSchedulerDefaults "two profiles".
#[test]
fn upstream_two_profiles() {
    let text = format!(
        "{V1}parallelism: 16\nprofiles:\n- schedulerName: default-scheduler\n  pluginConfig:\n  - name: FooPlugin\n\
         - schedulerName: custom-scheduler\n  plugins:\n    bind:\n      enabled:\n      - name: BarPlugin\n      disabled:\n      - name: DefaultBinder\n"
    );
    let c = load(&text).unwrap().config;
    let d = default_config().profiles.remove(0);
    assert_eq!(c.profiles[0].plugins, d.plugins);
    assert_eq!(
        c.profiles[0].plugin_config[0],
        PluginConfig { name: "FooPlugin".into(), args: PluginArgs::Other(serde_json::Value::Null) }
    );
    assert_eq!(&c.profiles[0].plugin_config[1..], &d.plugin_config[..]);
    let p = &c.profiles[1];
    assert_eq!(p.plugins.multi_point, d.plugins.multi_point);
    assert_eq!(
        p.plugins.bind,
        PluginSet { enabled: vec![PluginRef::new("BarPlugin", 0)], disabled: vec![PluginRef::new("DefaultBinder", 0)] }
    );
    assert_eq!(p.plugin_config, d.plugin_config);
}

// v1 defaults_test.go: a multiPoint default re-configured in place keeps its position.
#[test]
fn reconfigured_default_keeps_position() {
    let c = load(&format!(
        "{V1}profiles:\n- plugins:\n    multiPoint:\n      enabled:\n      - name: TaintToleration\n        weight: 7\n"
    ))
    .unwrap()
    .config;
    let mp = names(&c.profiles[0].plugins.multi_point);
    assert_eq!(mp[4], ("TaintToleration", 7));
    assert_eq!(mp.len(), 19);
}

// Args defaults for plugins that are not enabled are not added (upstream pluginsNames).
#[test]
fn default_args_only_for_enabled_plugins() {
    let c = load(&format!("{V1}profiles:\n- plugins:\n    multiPoint:\n      disabled:\n      - name: '*'\n      enabled:\n      - name: PrioritySort\n      - name: DefaultBinder\n      - name: NodeResourcesFit\n")).unwrap().config;
    let p = &c.profiles[0];
    assert_eq!(p.plugin_config.iter().map(|c| c.name.as_str()).collect::<Vec<_>>(), ["NodeResourcesFit"]);
    // Disabling at one extension point still counts as enabled (it is listed in multiPoint).
    let c = load(&format!("{V1}profiles:\n- plugins:\n    score:\n      disabled:\n      - name: '*'\n")).unwrap().config;
    assert_eq!(c.profiles[0].plugin_config.len(), 8);
}

// v1beta3 uses v1's multiPoint list.
#[test]
fn v1beta3_is_v1_with_a_warning() {
    let l = load("apiVersion: kubescheduler.config.k8s.io/v1beta3\nkind: KubeSchedulerConfiguration\n").unwrap();
    assert_eq!(l.config, default_config());
    assert_eq!(l.warnings, ["KubeSchedulerConfiguration v1beta3 is deprecated in v1.26, will be removed in v1.29"]);
}

// v1beta2 default_plugins.go / defaults_test.go.
#[test]
fn v1beta2_per_point_defaults() {
    let l = load("apiVersion: kubescheduler.config.k8s.io/v1beta2\nkind: KubeSchedulerConfiguration\nhealthzBindAddress: 1.2.3.4\nmetricsBindAddress: :12345\nprofiles:\n- plugins:\n    score:\n      enabled:\n      - name: ImageLocality\n        weight: 4\n      disabled:\n      - name: TaintToleration\n").unwrap();
    assert_eq!(l.warnings, ["KubeSchedulerConfiguration v1beta2 is deprecated in v1.25, will be removed in v1.28"]);
    let c = l.config;
    assert_eq!(c.healthz_bind_address, "1.2.3.4:10251");
    assert_eq!(c.metrics_bind_address, "0.0.0.0:12345");
    let p = &c.profiles[0];
    assert_eq!(
        names(&p.plugins.score),
        [
            ("NodeResourcesBalancedAllocation", 1),
            ("ImageLocality", 4),
            ("InterPodAffinity", 1),
            ("NodeResourcesFit", 1),
            ("NodeAffinity", 1),
            ("PodTopologySpread", 2)
        ]
    );
    assert_eq!(names(&p.plugins.pre_enqueue), [("SchedulingGates", 0)]);
    assert_eq!(p.plugins.multi_point, PluginSet { enabled: vec![], disabled: vec![PluginRef::new("*", 0)] });
    // Default args for every enabled plugin with args (no DynamicResources in v1beta2).
    let cfgs: Vec<&str> = p.plugin_config.iter().map(|c| c.name.as_str()).collect();
    assert_eq!(
        cfgs,
        [
            "DefaultPreemption",
            "InterPodAffinity",
            "NodeAffinity",
            "NodeResourcesBalancedAllocation",
            "NodeResourcesFit",
            "PodTopologySpread",
            "VolumeBinding"
        ]
    );
}

#[test]
fn removed_plugins() {
    let l = load("apiVersion: kubescheduler.config.k8s.io/v1beta2\nkind: KubeSchedulerConfiguration\nprofiles:\n- plugins:\n    score:\n      enabled:\n      - name: NodePreferAvoidPods\n        weight: 10000\n    filter:\n      enabled:\n      - name: EBSLimits\n").unwrap();
    assert_eq!(l.warnings.len(), 3, "{:?}", l.warnings);
    assert!(l.warnings[1].starts_with("profiles[0].plugins.filter.enabled[0]: plugin EBSLimits ignored"), "{:?}", l.warnings);
    assert!(!l.config.profiles[0].plugins.score.enabled.iter().any(|p| p.name == "NodePreferAvoidPods"));
    let e = err(&format!("{V1}profiles:\n- plugins:\n    filter:\n      enabled:\n      - name: EBSLimits\n"));
    assert_eq!(
        e,
        "s.yaml: profiles[0].plugins.filter.enabled[0]: Invalid value: \"EBSLimits\": was invalid in version \"kubescheduler.config.k8s.io/v1\" (KubeSchedulerConfiguration is version \"kubescheduler.config.k8s.io/v1\")"
    );
    let e = err(&format!("{V1}profiles:\n- plugins:\n    score:\n      enabled:\n      - name: NodeResourcesMostAllocated\n"));
    assert!(
        e.contains("plugin NodeResourcesMostAllocated is not supported: it was removed in v1.23; enable NodeResourcesFit"),
        "{e}"
    );
}

// Upstream validation_test.go TestValidateKubeSchedulerConfigurationV1 scenarios, as files.
#[test]
fn upstream_validation_table() {
    let cases: &[(&str, &str)] = &[
        ("parallelism: 0\n", "s.yaml: parallelism: Invalid value: 0: should be an integer value greater than zero"),
        ("leaderElection:\n  resourceName: \"\"\n  leaseDuration: 1s\n", "s.yaml: leaderElection.leaseDuration: Invalid value: \"10s\": LeaseDuration must be greater than RenewDeadline"),
        ("percentageOfNodesToScore: 101\n", "s.yaml: percentageOfNodesToScore: Invalid value: 101: not in valid range [0-100]"),
        ("percentageOfNodesToScore: -1\n", "s.yaml: percentageOfNodesToScore: Invalid value: -1: not in valid range [0-100]"),
        ("profiles:\n- schedulerName: a\n  percentageOfNodesToScore: 101\n", "s.yaml: profiles[0].percentageOfNodesToScore: Invalid value: 101: not in valid range [0-100]"),
        ("profiles:\n- schedulerName: a\n- schedulerName: \"\"\n", "s.yaml: profiles[1].schedulerName: Required value"),
        ("profiles:\n- schedulerName: a\n- {}\n", "s.yaml: profiles[1].schedulerName: Required value"),
        ("profiles:\n- schedulerName: other\n- schedulerName: other\n", "s.yaml: profiles[1].schedulerName: Duplicate value: \"other\""),
        ("podInitialBackoffSeconds: 0\n", "s.yaml: podInitialBackoffSeconds: Invalid value: 0: must be greater than 0"),
        ("podInitialBackoffSeconds: 5\npodMaxBackoffSeconds: 4\n", "s.yaml: podMaxBackoffSeconds: Invalid value: 4: must be greater than or equal to PodInitialBackoffSeconds"),
        ("clientConnection:\n  burst: -1\n", "s.yaml: clientConnection.burst: Invalid value: -1: must be non-negative"),
        ("leaderElection:\n  resourceLock: configmapsleases\n", "s.yaml: leaderElection.resourceLock: Invalid value: \"configmapsleases\": resourceLock value must be \"leases\""),
        (
            "profiles:\n- schedulerName: me\n  pluginConfig:\n  - name: DefaultPreemption\n    args:\n      minCandidateNodesPercentage: 200\n",
            "s.yaml: profiles[0].pluginConfig[0].args.minCandidateNodesPercentage: Invalid value: 200: not in valid range [0, 100]",
        ),
        (
            "profiles:\n- schedulerName: me\n  pluginConfig:\n  - name: DefaultPreemption\n    args:\n      kind: InterPodAffinityArgs\n",
            "s.yaml: profiles[0].pluginConfig[0].args.kind: args for plugin DefaultPreemption were not of type DefaultPreemptionArgs, got InterPodAffinityArgs (line 8 column 13)",
        ),
        (
            "profiles:\n- schedulerName: me\n  pluginConfig:\n  - name: config\n  - name: config\n",
            "s.yaml: profiles[0].pluginConfig[1]: Duplicate value: \"config\"",
        ),
        (
            "profiles:\n- schedulerName: me\n  plugins:\n    queueSort:\n      enabled:\n      - name: CustomSort\n- schedulerName: other\n  plugins:\n    queueSort:\n      enabled:\n      - name: AnotherSort\n",
            "s.yaml: profiles[1].plugins.queueSort: Invalid value: {enabled: [AnotherSort], disabled: []}: must be the same for all profiles",
        ),
        (
            "profiles:\n- schedulerName: me\n  plugins:\n    queueSort:\n      enabled:\n      - name: PrioritySort\n  pluginConfig:\n  - name: PrioritySort\n    args: {a: 1}\n- schedulerName: other\n  plugins:\n    queueSort:\n      enabled:\n      - name: PrioritySort\n  pluginConfig:\n  - name: PrioritySort\n    args: {a: 2}\n",
            "s.yaml: profiles[1].pluginConfig.args: Invalid value: \"PrioritySort\": queueSort must be the same for all profiles",
        ),
        // validation_test.go: extenders.
        ("extenders:\n- urlPrefix: http://x\n  prioritizeVerb: p\n  weight: -2\n", "s.yaml: extenders[0].weight: Invalid value: -2: must have a positive weight applied to it"),
        ("extenders:\n- urlPrefix: http://x\n  bindVerb: b\n- urlPrefix: http://y\n  bindVerb: b\n", "s.yaml: extenders: Invalid value: found 2 extenders implementing bind: only one extender can implement bind"),
        ("extenders:\n- urlPrefix: http://x\n  managedResources:\n  - name: cpu\n", "s.yaml: extenders[0].managedResources[0].name: Invalid value: cpu: is an invalid extended resource name"),
        ("extenders:\n- urlPrefix: http://x\n  managedResources:\n  - name: example.com/gpu\n  - name: example.com/gpu\n", "s.yaml: extenders[0].managedResources[1].name: Invalid value: example.com/gpu: duplicate extender managed resource name"),
        ("extenders:\n- urlPrefix: http://x\n  weigth: 1\n", "s.yaml: extenders[0].weigth: unknown field"),
    ];
    for (body, want) in cases {
        let got = err(&format!("{V1}{body}"));
        assert!(got.starts_with(want), "\n{body}\n got: {got}\nwant: {want}");
    }
}

#[test]
fn all_problems_are_reported() {
    let e = load(&format!("{V1}parallelism: -1\npodInitialBackoffSeconds: 0\n")).unwrap_err();
    assert_eq!(e.problems.len(), 2);
    assert_eq!(e.to_string().lines().count(), 2);
}

#[test]
fn valid_upstream_example() {
    // validation_test.go "good" (extenders and CustomBind aside).
    let text = format!("{V1}parallelism: 8\nclientConnection:\n  acceptContentTypes: application/json\n  contentType: application/json\n  qps: 10\n  burst: 10\nleaderElection:\n  leaderElect: true\n  leaseDuration: 30s\n  renewDeadline: 15s\n  retryPeriod: 5s\n  resourceNamespace: name\n  resourceName: name\npodInitialBackoffSeconds: 1\npodMaxBackoffSeconds: 1\npercentageOfNodesToScore: 35\nprofiles:\n- schedulerName: me\n  plugins:\n    queueSort:\n      enabled:\n      - name: CustomSort\n    score:\n      disabled:\n      - name: '*'\n  pluginConfig:\n  - name: DefaultPreemption\n    args:\n      minCandidateNodesPercentage: 10\n      minCandidateNodesAbsolute: 100\n- schedulerName: other\n  plugins:\n    queueSort:\n      enabled:\n      - name: CustomSort\n    bind:\n      enabled:\n      - name: CustomBind\n");
    let c = load(&text).unwrap().config;
    assert_eq!(c.profiles.len(), 2);
    assert_eq!(c.client_connection.qps, 10.0);
    assert_eq!(c.leader_election.lease_duration, GoDuration::from_secs(30));
}

#[test]
fn decoding_errors_name_path_and_position() {
    let text = format!("{V1}profiles:\n- schedulerName: a\n- schedulerName: b\n  plugins:\n    score:\n      enabled:\n      - name: X\n        weight: abc\n");
    assert_eq!(err(&text), "s.yaml: profiles[1].plugins.score.enabled[0].weight: expected integer (line 10 column 17)");
    assert_eq!(err(&format!("{V1}parallelism: \"8\"\n")), "s.yaml: parallelism: expected integer (line 3 column 14)");
    assert_eq!(err(&format!("{V1}profiles: {{}}\n")), "s.yaml: profiles: expected list (line 3 column 11)");
    assert_eq!(err(&format!("{V1}leaderElection: []\n")), "s.yaml: leaderElection: expected mapping (line 3 column 17)");
    assert_eq!(
        err(&format!("{V1}leaderElection:\n  leaderElect: maybe\n")),
        "s.yaml: leaderElection.leaderElect: expected boolean (line 4 column 16)"
    );
    assert_eq!(
        err(&format!("{V1}clientConnection:\n  kubeconfig: [a]\n")),
        "s.yaml: clientConnection.kubeconfig: expected string (line 4 column 15)"
    );
    assert_eq!(
        err(&format!("{V1}leaderElection:\n  leaseDuration: 15\n")),
        "s.yaml: leaderElection.leaseDuration: expected string (line 4 column 18)"
    );
    assert_eq!(
        err(&format!("{V1}leaderElection:\n  leaseDuration: 15x\n")),
        "s.yaml: leaderElection.leaseDuration: invalid duration \"15x\" (line 4 column 18)"
    );
    assert_eq!(
        err(&format!("{V1}parallelizm: 3\n")),
        "s.yaml: parallelizm: unknown field \"parallelizm\" (did you mean \"parallelism\"?) (line 3 column 1)"
    );
    assert_eq!(err(&format!("{V1}kind: KubeSchedulerConfiguration\n")), "s.yaml: duplicate field \"kind\" (line 3 column 1)");
    let deep = format!("{V1}profiles:\n- pluginConfig:\n  - name: NodeResourcesFit\n    args:\n      scoringStrategy:\n        type: MostAllocated\n        resources:\n        - name: cpu\n          weight: x\n");
    assert_eq!(
        err(&deep),
        "s.yaml: profiles[0].pluginConfig[0].args.scoringStrategy.resources[0].weight: expected integer (line 11 column 19)"
    );
    let unknown_arg =
        format!("{V1}profiles:\n- pluginConfig:\n  - name: InterPodAffinity\n    args:\n      hardPodAffinityWeigth: 2\n");
    assert!(err(&unknown_arg).starts_with("s.yaml: profiles[0].pluginConfig[0].args.hardPodAffinityWeigth: unknown field \"hardPodAffinityWeigth\" (did you mean \"hardPodAffinityWeight\"?)"));
}

#[test]
fn whole_file_errors() {
    assert_eq!(err(""), "s.yaml: file is empty; expected a KubeSchedulerConfiguration");
    assert_eq!(err("# just a comment\n"), "s.yaml: file is empty; expected a KubeSchedulerConfiguration");
    assert!(err("a: [\n").starts_with("s.yaml: not valid YAML: unclosed bracket"));
    assert!(err("just text\n").starts_with("s.yaml: expected a YAML mapping"));
    let big = format!("{V1}# {}\n", "x".repeat(2 * 1024 * 1024));
    assert_eq!(
        err(&big),
        format!("s.yaml: file is {} bytes; configuration files larger than 1 MiB (1048576 bytes) are refused", big.len())
    );
    let e = load_bytes(b"apiVersion: \xff\n", "b.yaml").unwrap_err().to_string();
    assert_eq!(e, "b.yaml: not UTF-8 text (invalid byte at offset 12)");
    let e = load_file(Path::new("/nonexistent/s.yaml")).unwrap_err().to_string();
    assert!(e.starts_with("/nonexistent/s.yaml: cannot read file:"), "{e}");
}

#[test]
fn large_file_on_disk_is_refused_before_reading() {
    let dir = std::env::temp_dir().join(format!("edgesched-config-test-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("big.yaml");
    std::fs::write(&path, vec![b'#'; 2 * 1024 * 1024]).unwrap();
    let loaded = load_file(&path);
    // Removed before the checks, so a failing run leaves nothing in the temp dir either.
    std::fs::remove_dir_all(&dir).unwrap();
    assert!(loaded.unwrap_err().to_string().contains("larger than 1 MiB"));
}

#[test]
fn dump_looks_like_upstream() {
    let text = to_yaml(&default_config());
    assert!(text.starts_with("apiVersion: kubescheduler.config.k8s.io/v1\nkind: KubeSchedulerConfiguration\nclientConnection:\n"));
    assert!(text.contains("  leaseDuration: 15s\n"));
    assert!(text.contains("      kind: DefaultPreemptionArgs\n"));
    assert!(text.contains("  qps: 50\n"));
    let v1beta1 = load_fixture("web-pmk-v1beta1-intended.yaml").config;
    assert!(to_yaml(&v1beta1).ends_with("# metricsBindAddress: 0.0.0.0:10252  (v1beta1/v1beta2 only; served over plain HTTP)\n"));
}

#[test]
fn deep_nesting_is_an_error_not_a_crash() {
    let deep = format!("{V1}x: {}{}\n", "[".repeat(50_000), "]".repeat(50_000));
    assert!(err(&deep).starts_with("s.yaml: not valid YAML: nested more than 32 levels deep (line 3"), "{}", err(&deep));
    let deep_map =
        format!("{V1}profiles:\n- pluginConfig:\n  - name: Out\n    args: {}1{}\n", "{a: ".repeat(20_000), "}".repeat(20_000));
    assert!(err(&deep_map).contains("nested more than 32 levels deep"));
    // Run on a thread with the default 2 MiB stack: the limit keeps every walk shallow.
    let at_limit = format!("{V1}profiles:\n- pluginConfig:\n  - name: Out\n    args: {}1{}\n", "{a: ".repeat(24), "}".repeat(24));
    let h = std::thread::Builder::new()
        .stack_size(2 * 1024 * 1024)
        .spawn(move || load_str(&at_limit, "s").map(|l| to_yaml(&l.config)));
    assert!(h.unwrap().join().unwrap().is_ok());
}

#[test]
fn extenders_in_every_version() {
    // The Extender block is the same in v1, v1beta3, v1beta2 and v1beta1; it survives the dump.
    for version in ["v1", "v1beta3", "v1beta2", "v1beta1"] {
        let text = format!(
            "apiVersion: kubescheduler.config.k8s.io/{version}\nkind: KubeSchedulerConfiguration\nextenders:\n- urlPrefix: https://ext:8888/scheduler\n  filterVerb: filter\n  prioritizeVerb: prioritize\n  weight: 3\n  bindVerb: bind\n  preemptVerb: preempt\n  enableHTTPS: true\n  httpTimeout: 2s\n  nodeCacheCapable: true\n  ignorable: true\n  tlsConfig:\n    insecure: true\n  managedResources:\n  - name: example.com/gpu\n    ignoredByScheduler: true\n"
        );
        let cfg = load(&text).unwrap_or_else(|e| panic!("{version}: {e}")).config;
        assert_eq!(cfg.extenders.len(), 1, "{version}");
        let e = &cfg.extenders[0];
        assert_eq!(
            (e.weight, e.http_timeout.0, e.ignorable, e.node_cache_capable),
            (3, std::time::Duration::from_secs(2), true, true)
        );
        assert_eq!(e.managed_resources[0].name, "example.com/gpu");
        assert!(e.tls_config.as_ref().is_some_and(|t| t.insecure));
        assert_round_trip(&cfg);
    }
}

#[test]
fn extender_tls_material_is_not_dumped() {
    let cfg = load(&format!("{V1}extenders:\n- urlPrefix: https://x\n  tlsConfig:\n    keyData: c2VjcmV0\n    certData: Y2VydA==\n    caFile: /etc/ca.pem\n"))
        .expect("loads")
        .config;
    let dump = edgesched::core::config::to_yaml(&cfg);
    assert!(!dump.contains("c2VjcmV0") && !dump.contains("Y2VydA=="), "{dump}");
    assert!(dump.contains("keyData: <redacted>") && dump.contains("caFile: /etc/ca.pem"), "{dump}");
}
