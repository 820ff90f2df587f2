//! The registry against v1.35's declarations and `--feature-gates` against
//! `component-base/featuregate/feature_gate.go` and `component-base/compatibility/registry.go`
//! (v1.35): each row's expected text is upstream's, written out.

use super::*;

/// What a `--feature-gates` value gives.
enum Want {
    /// Accepted; these gates read these values afterwards; these warnings are logged.
    Ok(&'static [(&'static str, bool)], &'static [&'static str]),
    /// Refused with this text.
    Err(&'static str),
}

fn resolve(values: &[&str]) -> Result<Resolved, GateError> {
    let mut flag = FeatureGatesFlag::default();
    for v in values {
        flag.push(v);
    }
    flag.resolve()
}

#[test]
fn flag_values_as_upstream() {
    use Want::{Err as E, Ok as O};
    let cases: &[(&str, Want)] = &[
        // In-place resize: GA and locked on in v1.35.
        ("InPlacePodVerticalScaling=false", E("cannot set feature gate InPlacePodVerticalScaling to false, feature is locked to true")),
        (
            "InPlacePodVerticalScaling=true",
            O(&[("InPlacePodVerticalScaling", true)], &["Setting GA feature gate InPlacePodVerticalScaling=true. It will be removed in a future release."]),
        ),
        ("DynamicResourceAllocation=false", E("cannot set feature gate DynamicResourceAllocation to false, feature is locked to true")),
        ("DRAPrioritizedList=false", O(&[("DRAPrioritizedList", false)], &[])),
        ("DRAAdminAccess=false", O(&[("DRAAdminAccess", false)], &[])),
        ("DRASchedulerFilterTimeout=false", O(&[("DRASchedulerFilterTimeout", false)], &[])),
        ("DRAResourceClaimDeviceStatus=false", O(&[("DRAResourceClaimDeviceStatus", false)], &[])),
        ("DRAPartitionableDevices=true", O(&[("DRAPartitionableDevices", true)], &[])),
        ("DRAConsumableCapacity=true", O(&[("DRAConsumableCapacity", true)], &[])),
        ("DRADeviceTaints=true", O(&[("DRADeviceTaints", true)], &[])),
        ("DRAExtendedResource=true", O(&[("DRAExtendedResource", true)], &[])),
        ("DRADeviceBindingConditions=true", O(&[("DRADeviceBindingConditions", true)], &[])),
        (
            "DRADeviceBindingConditions=true,DRAResourceClaimDeviceStatus=false",
            E("DRADeviceBindingConditions is enabled, but depends on features that are disabled: [DRAResourceClaimDeviceStatus]"),
        ),
        ("DRADeviceTaintRules=true", E("DRADeviceTaintRules is enabled, but depends on features that are disabled: [DRADeviceTaints]")),
        ("GangScheduling=true", E("GangScheduling is enabled, but depends on features that are disabled: [GenericWorkload]")),
        ("GangScheduling=true,GenericWorkload=true", O(&[("GangScheduling", true), ("GenericWorkload", true)], &[])),
        ("GenericWorkload=true", O(&[("GenericWorkload", true), ("GangScheduling", false)], &[])),
        ("NominatedNodeNameForExpectation=false", O(&[("NominatedNodeNameForExpectation", false)], &[])),
        ("ClearingNominatedNodeNameAfterBinding=false", O(&[("ClearingNominatedNodeNameAfterBinding", false)], &[])),
        ("OpportunisticBatching=false", O(&[("OpportunisticBatching", false)], &[])),
        ("NodeDeclaredFeatures=true", O(&[("NodeDeclaredFeatures", true)], &[])),
        ("TaintTolerationComparisonOperators=true", O(&[("TaintTolerationComparisonOperators", true)], &[])),
        ("SchedulerQueueingHints=false", E("cannot set feature gate SchedulerQueueingHints to false, feature is locked to true")),
        (
            "SchedulerQueueingHints=true",
            O(&[("SchedulerQueueingHints", true)], &["Setting GA feature gate SchedulerQueueingHints=true. It will be removed in a future release."]),
        ),
        ("SchedulerAsyncAPICalls=true", O(&[("SchedulerAsyncAPICalls", true)], &[])),
        ("SchedulerPopFromBackoffQ=false", O(&[("SchedulerPopFromBackoffQ", false)], &[])),
        ("PodLevelResources=false", O(&[("PodLevelResources", false)], &[])),
        (
            "InPlacePodLevelResourcesVerticalScaling=true",
            E("InPlacePodLevelResourcesVerticalScaling is enabled, but depends on features that are disabled: [NodeDeclaredFeatures]"),
        ),
        (
            "InPlacePodLevelResourcesVerticalScaling=true,NodeDeclaredFeatures=true,PodLevelResources=false",
            E("InPlacePodLevelResourcesVerticalScaling is enabled, but depends on features that are disabled: [PodLevelResources]"),
        ),
        ("SidecarContainers=false", E("cannot set feature gate SidecarContainers to false, feature is locked to true")),
        // GA in 1.34, locked only from 1.36: settable in v1.35, with the GA warning.
        (
            "VolumeAttributesClass=false",
            O(&[("VolumeAttributesClass", false)], &["Setting GA feature gate VolumeAttributesClass=false. It will be removed in a future release."]),
        ),
        // Deprecated, unlocked and locked.
        (
            "DisableNodeKubeProxyVersion=false",
            O(
                &[("DisableNodeKubeProxyVersion", false)],
                &["Setting deprecated feature gate DisableNodeKubeProxyVersion=false. It will be removed in a future release."],
            ),
        ),
        (
            "AllowOverwriteTerminationGracePeriodSeconds=true",
            E("cannot set feature gate AllowOverwriteTerminationGracePeriodSeconds to true, feature is locked to false"),
        ),
        // Removed before v1.35 (CPUManager GA 1.26, LegacySidecarContainers deprecated 1.33,
        // ComponentSLIs kept until 1.35) and never existing.
        ("CPUManager=true", E("unrecognized feature gate: CPUManager")),
        ("LegacySidecarContainers=false", E("unrecognized feature gate: LegacySidecarContainers")),
        ("ComponentSLIs=true", E("unrecognized feature gate: ComponentSLIs")),
        ("Foo=true", E("unrecognized feature gate: Foo")),
        // The Go constants' names are not the gates' names.
        ("CPUCFSQuotaPeriod=true", E("unrecognized feature gate: CPUCFSQuotaPeriod")),
        ("CustomCPUCFSQuotaPeriod=true", O(&[("CustomCPUCFSQuotaPeriod", true)], &[])),
        // Several refusals come together, aggregated.
        (
            "SchedulerQueueingHints=false,SidecarContainers=false",
            E("[cannot set feature gate SchedulerQueueingHints to false, feature is locked to true, cannot set feature gate SidecarContainers to false, feature is locked to true]"),
        ),
        // Parsing (featuregate.Set).
        ("WatchList", E("missing bool value for WatchList")),
        ("WatchList=maybe", E("invalid value of WatchList=maybe, err: strconv.ParseBool: parsing \"maybe\": invalid syntax")),
        (" WatchList = F , ,", O(&[("WatchList", false)], &[])),
        ("SchedulerPopFromBackoffQ=true,SchedulerPopFromBackoffQ=0", O(&[("SchedulerPopFromBackoffQ", false)], &[])),
        // Components (compatibility registry).
        ("kube:SchedulerPopFromBackoffQ=false", O(&[("SchedulerPopFromBackoffQ", false)], &[])),
        ("wardle:Foo=true", E("component not registered: wardle")),
        (
            "kube:SchedulerPopFromBackoffQ=false,WatchList=true",
            E("set kube feature gates with default empty prefix or kube: prefix consistently, do not mix use"),
        ),
        // AllAlpha / AllBeta set the gates not named, named ones win.
        (
            "AllAlpha=true",
            O(&[("GangScheduling", true), ("NodeDeclaredFeatures", true), ("LoggingAlphaOptions", true), ("SchedulerPopFromBackoffQ", true)], &[]),
        ),
        ("AllAlpha=true,GenericWorkload=false", E("GangScheduling is enabled, but depends on features that are disabled: [GenericWorkload]")),
        (
            "AllBeta=false",
            O(&[("NominatedNodeNameForExpectation", false), ("OpportunisticBatching", false), ("InPlacePodVerticalScaling", true), ("GangScheduling", false)], &[]),
        ),
        ("AllBeta=false,OpportunisticBatching=true", O(&[("OpportunisticBatching", true), ("SchedulerPopFromBackoffQ", false)], &[])),
    ];
    assert!(cases.len() >= 25);
    for (value, want) in cases {
        let got = resolve(&[value]);
        match want {
            Want::Err(text) => assert_eq!(got.map(|_| ()).unwrap_err().to_string(), *text, "{value}"),
            Want::Ok(values, warnings) => {
                let r = got.unwrap_or_else(|e| panic!("{value}: {e}"));
                for (name, on) in *values {
                    assert_eq!(r.gates.enabled(name), *on, "{value}: {name}");
                }
                assert_eq!(r.warnings, *warnings, "{value}");
            }
        }
    }
}

#[test]
fn repeated_flags_accumulate_and_render_as_upstream() {
    let r = resolve(&["SchedulerPopFromBackoffQ=false", "GenericWorkload=true", "GangScheduling=true"]).expect("valid");
    assert!(!r.gates.enabled("SchedulerPopFromBackoffQ") && r.gates.enabled("GangScheduling"));
    let mut flag = FeatureGatesFlag::default();
    flag.push("SchedulerPopFromBackoffQ=false, WatchList=true");
    flag.push("kube:GenericWorkload=true");
    // ColonSeparatedMultimapStringString.String(): sorted by component, "" first.
    assert_eq!(flag.render(), ":SchedulerPopFromBackoffQ=false,:WatchList=true,kube:GenericWorkload=true");
    assert!(FeatureGatesFlag::default().resolve().expect("empty").gates == FeatureGates::default());
}

#[test]
fn defaults_are_v1_35s() {
    let d = FeatureGates::default();
    for (name, on) in [
        ("InPlacePodVerticalScaling", true),
        ("DynamicResourceAllocation", true),
        ("SchedulerAsyncAPICalls", false),
        ("OpportunisticBatching", true),
        ("NominatedNodeNameForExpectation", true),
        ("WatchListClient", true),
        ("GangScheduling", false),
        ("VolumeAttributesClass", true),
        ("NoSuchGate", false),
    ] {
        assert_eq!(d.enabled(name), on, "{name}");
    }
}

#[test]
fn versioned_history_answers_as_of_a_version() {
    let ippvs = gate("InPlacePodVerticalScaling").expect("known");
    let history: Vec<_> = ippvs.specs.iter().map(|s| (s.major, s.minor, s.stage, s.default, s.locked)).collect();
    assert_eq!(history, [(1, 27, Stage::Alpha, false, false), (1, 33, Stage::Beta, true, false), (1, 35, Stage::Ga, true, true)]);
    assert_eq!(ippvs.spec_at((1, 26)), None);
    assert_eq!(ippvs.spec_at((1, 34)).map(|s| s.stage), Some(Stage::Beta));
    let vac = gate("VolumeAttributesClass").expect("known");
    assert!(!vac.current().expect("exists").locked);
    assert!(vac.spec_at((1, 36)).expect("exists").locked);
}

#[test]
fn metric_rows_are_every_known_gate_and_the_special_two() {
    let r = resolve(&["AllAlpha=true"]).expect("valid");
    let rows = r.gates.metric_rows();
    assert_eq!(rows.len(), GATES.len() + 2);
    assert!(rows.contains(&("AllAlpha", "ALPHA", true)));
    assert!(rows.contains(&("AllBeta", "BETA", false)));
    assert!(rows.contains(&("InPlacePodVerticalScaling", "", true)));
    assert!(rows.contains(&("GangScheduling", "ALPHA", true)));
    assert!(rows.contains(&("DisableNodeKubeProxyVersion", "DEPRECATED", true)));
    assert!(rows.windows(2).all(|w| w[0].0 < w[1].0));
}

#[test]
fn only_modelled_gates_escape_the_warning() {
    let r = resolve(&["SchedulerPopFromBackoffQ=false,LoggingAlphaOptions=true,VolumeLimitScaling=true,WatchList=true"])
        .expect("valid");
    // WatchList is on by default: setting it to its default is not "away from it".
    assert_eq!(r.gates.without_effect(), ["VolumeLimitScaling"]);
    let r = resolve(&["AllAlpha=true"]).expect("valid");
    let idle = r.gates.without_effect();
    assert!(idle.contains(&"VolumeLimitScaling") && !idle.contains(&"LoggingAlphaOptions") && !idle.contains(&"AllAlpha"));
    assert!(!idle.contains(&"GangScheduling") && !idle.contains(&"GenericWorkload"));
}

#[test]
fn registry_is_sorted_and_unique() {
    let names: Vec<String> = GATES.iter().map(|g| g.name.to_lowercase()).collect();
    assert!(names.windows(2).all(|w| w[0] < w[1]), "sorted case-insensitively, no duplicates");
    assert!(GATES.iter().all(|g| g.name != ALL_ALPHA && g.name != ALL_BETA));
}

/// `featureGate.AddVersioned`'s checks: a malformed history fails kube-scheduler at start, so
/// a transcription error that upstream could not have shipped fails here.
#[test]
fn every_history_is_one_upstream_accepts() {
    for g in GATES {
        assert!(!g.specs.is_empty(), "{}", g.name);
        let first = g.specs[0];
        assert!(first.stage != Stage::Deprecated || first.minor == 0, "{}: introduced as deprecated needs a 1.0 entry", g.name);
        let (mut was_beta, mut was_ga, mut was_deprecated, mut was_locked) = (false, false, false, false);
        for (i, s) in g.specs.iter().enumerate() {
            if i > 0 {
                let last = g.specs[i - 1];
                assert!(s.version() > last.version(), "{}: versions increase", g.name);
                assert!(
                    (s.stage, s.default, s.locked) != (last.stage, last.default, last.locked),
                    "{}: transition without stability change",
                    g.name
                );
                assert!(!was_locked || s.locked, "{}: unlocks after locking", g.name);
                assert!(!was_deprecated || s.stage == Stage::Deprecated, "{}: resurrects from deprecated", g.name);
                assert!(!(s.stage == Stage::Alpha && (was_beta || was_ga)), "{}: regresses to alpha", g.name);
                assert!(!(s.stage == Stage::Beta && was_ga), "{}: regresses to beta", g.name);
            }
            assert!(!s.locked || s.stage == Stage::Ga || s.stage == Stage::Deprecated, "{}: only GA/deprecated lock", g.name);
            was_beta |= s.stage == Stage::Beta;
            was_ga |= s.stage == Stage::Ga;
            was_deprecated |= s.stage == Stage::Deprecated;
            was_locked |= s.locked;
        }
    }
}

/// `featureGate.AddDependencies`'s checks, at every version the dependent declares.
#[test]
fn every_dependency_is_one_upstream_accepts() {
    fn order(spec: Option<&Spec>) -> i32 {
        match spec.map(|s| s.stage) {
            Some(Stage::Deprecated) => 0,
            None | Some(Stage::Alpha) => 1,
            Some(Stage::Beta) => 2,
            Some(Stage::Ga) => 3,
        }
    }
    let mut with_deps = 0;
    for g in GATES.iter().filter(|g| !g.depends_on.is_empty()) {
        with_deps += 1;
        let mut sorted = g.depends_on.to_vec();
        sorted.sort_unstable();
        assert_eq!(sorted, g.depends_on, "{}: dependencies sorted as upstream sorts them", g.name);
        for dep in g.depends_on {
            let d = gate(dep).unwrap_or_else(|| panic!("{}: unknown dependency {dep}", g.name));
            for s in g.specs {
                let ds = d.spec_at(s.version());
                let at = |what: &str| format!("{} {}.{}: {what} {dep}", g.name, s.major, s.minor);
                assert!(order(Some(s)) <= order(ds), "{}", at("less stable dependency"));
                assert!(!s.default || ds.is_some_and(|d| d.default), "{}", at("on by default, needs on"));
                assert!(!s.locked || ds.is_some_and(|d| d.locked), "{}", at("locked, needs locked"));
            }
        }
        // No cycles: following dependencies from any gate never comes back to it.
        let mut stack: Vec<&str> = g.depends_on.to_vec();
        let mut seen = std::collections::HashSet::new();
        while let Some(n) = stack.pop() {
            assert_ne!(n, g.name, "{}: dependency cycle", g.name);
            if seen.insert(n) {
                stack.extend(gate(n).map_or(&[][..], |d| d.depends_on));
            }
        }
    }
    assert_eq!(with_deps, 34);
}

#[test]
fn scheduler_gate_table_names_known_gates_once() {
    let mut seen = std::collections::HashSet::new();
    for e in effects::SCHEDULER_GATES {
        assert!(gate(e.gate).is_some(), "{}", e.gate);
        assert!(seen.insert(e.gate), "{} twice", e.gate);
    }
    // Every gate whose setting is acted on is one a user can set away from its default.
    for e in effects::SCHEDULER_GATES.iter().filter(|e| e.settable) {
        assert!(!gate(e.gate).and_then(Gate::current).expect("exists").locked, "{}", e.gate);
    }
}

#[test]
fn readme_lists_the_scheduler_gates() {
    let readme = include_str!("../../../docs/feature-gates.md");
    assert!(
        readme.contains(&effects::readme_table()),
        "docs/feature-gates.md's table differs from effects::readme_table():\n{}",
        effects::readme_table()
    );
}
