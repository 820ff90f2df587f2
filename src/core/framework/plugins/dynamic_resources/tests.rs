//! edgesched's own checks of the plugin beside upstream's tables: the gates it refuses, that a
//! pod without claims costs nothing at any point, and the texts that depend on its state.

use super::upstream_tests::*;
use super::*;
use crate::core::framework::plugins::test_util::{cache_with, PodBuilder};
use crate::core::framework::PreFilterOutcome;

#[test]
fn alpha_gates_it_does_not_implement_are_refused() {
    let mut gates = FeatureGates::default();
    assert!(DynamicResources::new(None, &gates).is_ok(), "v1.35's defaults are fine");
    gates.set("DRAPartitionableDevices=true,DRAExtendedResource=true").expect("gates");
    let err = DynamicResources::new(None, &gates).err().expect("refused");
    assert_eq!(
        err,
        "the structured allocator of edgesched does not implement the alpha features DRAExtendedResource, DRAPartitionableDevices (enabled by feature gates); disable them to schedule pods with resource claims"
    );
    // Device taints are implemented by the allocator; their rules objects are not.
    let mut taints = FeatureGates::default();
    taints.set("DRADeviceTaints=true").expect("gates");
    assert!(DynamicResources::new(None, &taints).is_ok());
    taints.set("DRADeviceTaintRules=true").expect("gates");
    assert!(DynamicResources::new(None, &taints).is_err());
}

#[test]
fn defaults_follow_v1_35() {
    let f = DraFeatures::defaults();
    assert!(f.allocator.admin_access && f.allocator.prioritized_list && f.filter_timeout);
    assert!(!f.allocator.device_taints && !f.allocator.partitionable_devices && !f.allocator.consumable_capacity);
    let pl = DynamicResources::new(None, &FeatureGates::default()).expect("plugin");
    assert_eq!(pl.filter_timeout, Some(Duration::from_secs(10)));
}

#[test]
fn pods_without_claims_skip_every_point() {
    let pl = DynamicResources::with_features(None, DraFeatures::defaults());
    let cache = cache_with(&[worker(NODE)], &[]);
    let pod = PodBuilder::new("plain").info();
    assert!(pl.pre_enqueue(&cache, &pod).is_ok());
    let mut state = None;
    assert!(matches!(pl.pre_filter(&cache, &pod, &mut state), PreFilterOutcome::Skip));
    assert!(state.is_none());
    assert_eq!(pl.pre_score(&cache, &pod, &[], &mut state), PreScoreOutcome::Skip);
    let node = cache.node_by_name(NODE).expect("node");
    assert_eq!(pl.reserve(&cache, &pod, node, &state).map(|a| a.len()), Ok(0));
    assert!(pl.unreserve_writes(&cache, &pod, NODE).is_empty());
}
