//! Property test: random numbers in every numeric field of a configuration never crash the
//! loader, the validator, the profile builder or a scheduling cycle — the answer is accepted
//! (exit 0) or a configuration error naming the field (exit 2). Debug builds check integer
//! overflow, so an unchecked sum over user input panics here. A few extreme values also run
//! through the real binary (`check-config`) to check its exit status.

mod support;

use edgesched::core::config;
use edgesched::core::rng::Rng;
use edgesched::core::simulate;
use std::process::Command;

/// Every numeric field, as a YAML template with `{}` where the number goes.
const FIELDS: &[&str] = &[
    "parallelism: {}",
    "percentageOfNodesToScore: {}",
    "podInitialBackoffSeconds: {}",
    "podMaxBackoffSeconds: {}",
    "clientConnection:\n  qps: {}",
    "clientConnection:\n  burst: {}",
    "profiles:\n- schedulerName: a\n  percentageOfNodesToScore: {}",
    "profiles:\n- schedulerName: a\n  plugins:\n    score:\n      enabled:\n      - name: ImageLocality\n        weight: {}\n      - name: TaintToleration\n        weight: {}",
    "profiles:\n- schedulerName: a\n  plugins:\n    multiPoint:\n      enabled:\n      - name: ImageLocality\n        weight: {}",
    "profiles:\n- schedulerName: a\n  pluginConfig:\n  - name: InterPodAffinity\n    args:\n      hardPodAffinityWeight: {}",
    "profiles:\n- schedulerName: a\n  pluginConfig:\n  - name: DefaultPreemption\n    args:\n      minCandidateNodesPercentage: {}\n      minCandidateNodesAbsolute: {}",
    "profiles:\n- schedulerName: a\n  pluginConfig:\n  - name: VolumeBinding\n    args:\n      bindTimeoutSeconds: {}",
    "profiles:\n- schedulerName: a\n  pluginConfig:\n  - name: NodeResourcesFit\n    args:\n      scoringStrategy:\n        type: LeastAllocated\n        resources:\n        - name: cpu\n          weight: {}",
    "profiles:\n- schedulerName: a\n  pluginConfig:\n  - name: NodeResourcesFit\n    args:\n      scoringStrategy:\n        type: RequestedToCapacityRatio\n        resources:\n        - name: cpu\n          weight: 1\n        requestedToCapacityRatio:\n          shape:\n          - utilization: {}\n            score: {}",
    "profiles:\n- schedulerName: a\n  pluginConfig:\n  - name: NodeResourcesBalancedAllocation\n    args:\n      resources:\n      - name: cpu\n        weight: {}",
    "profiles:\n- schedulerName: a\n  pluginConfig:\n  - name: PodTopologySpread\n    args:\n      defaultingType: List\n      defaultConstraints:\n      - maxSkew: {}\n        topologyKey: zone\n        whenUnsatisfiable: ScheduleAnyway",
];

const EXTREMES: &[&str] = &[
    "0",
    "-1",
    "1",
    "100",
    "101",
    "2147483647",
    "-2147483648",
    "2147483648",
    "9223372036854775807",
    "-9223372036854775808",
    "18446744073709551616",
    "1e308",
    "-1e308",
    ".nan",
    ".inf",
    "1.5",
];

fn document(template: &str, value: &str) -> String {
    let body = template.replace("{}", value);
    let profiles = if body.contains("profiles:") { "" } else { "profiles:\n- schedulerName: a\n" };
    format!("apiVersion: kubescheduler.config.k8s.io/v1\nkind: KubeSchedulerConfiguration\n{body}\n{profiles}")
}

/// What `check-config` does with a document: load, default, validate, build the profiles.
fn check(doc: &str) -> Result<(), String> {
    let loaded = config::load_str(doc, "random.yaml").map_err(|e| e.to_string())?;
    simulate::frameworks(&loaded.config).map(|_| ()).map_err(|e| e.to_string())
}

fn random_value(rng: &mut Rng) -> String {
    match rng.below(4) {
        0 => EXTREMES[rng.below(EXTREMES.len() as u64) as usize].to_string(),
        1 => (rng.next_u64() as i64).to_string(),
        2 => (rng.next_u64() as i32).to_string(),
        _ => ((rng.next_u64() % 400) as i64 - 200).to_string(),
    }
}

#[test]
fn random_numbers_in_every_numeric_field_are_accepted_or_refused_never_a_crash() {
    let mut rng = Rng::seeded(0x5eed);
    for template in FIELDS {
        for value in EXTREMES {
            let doc = document(template, value);
            if let Err(e) = check(&doc) {
                assert!(
                    e.contains("random.yaml") || e.contains("profile"),
                    "error does not name the file or profile: {e}\n{doc}"
                );
            }
        }
        for _ in 0..200 {
            let doc = document(template, &random_value(&mut rng));
            let _ = check(&doc);
        }
    }
}

#[test]
fn rejected_values_name_their_field() {
    let cases: &[(&str, &str)] = &[
        ("podInitialBackoffSeconds: -5", "podInitialBackoffSeconds"),
        ("percentageOfNodesToScore: 101", "percentageOfNodesToScore"),
        ("clientConnection:\n  burst: -1", "clientConnection.burst"),
        (
            "profiles:\n- schedulerName: a\n  plugins:\n    score:\n      enabled:\n      - name: ImageLocality\n        weight: -1",
            "profiles[0].plugins.score.enabled[0].weight",
        ),
    ];
    for (body, field) in cases {
        let doc = document(body, "");
        let e = check(&doc).expect_err(body);
        assert!(e.contains(field), "{field} not named in {e}");
    }
}

#[test]
fn check_config_exits_0_or_2_on_extreme_values() {
    let dir = support::tempdir("config-property");
    for (i, template) in FIELDS.iter().enumerate() {
        for value in ["-9223372036854775808", "9223372036854775807", "-1"] {
            let path = dir.join(format!("c{i}.yaml"));
            std::fs::write(&path, document(template, value)).expect("write");
            let out = Command::new(support::process::binary())
                .args(["check-config", &format!("--config={}", path.display())])
                .output()
                .expect("run");
            assert!(
                matches!(out.status.code(), Some(0) | Some(2)),
                "{template} = {value}: {:?}\n{}",
                out.status,
                String::from_utf8_lossy(&out.stderr)
            );
        }
    }
}
