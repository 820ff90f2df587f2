//! DynamicResources (`pkg/scheduler/framework/plugins/dynamicresources/dynamicresources.go`,
//! kubernetes/kubernetes v1.35): pods that ask for devices through ResourceClaims get them —
//! each claim's devices picked by the structured allocator ([`crate::core::dra::allocator`]) on
//! the node the pod goes to, the allocation written to the claim before the pod is bound.
//!
//! One file per extension point, as upstream's plugin implements them:
//! - [`claims`]: the pod's claims (`foreachPodResourceClaim`) and PreEnqueue;
//! - [`pre_filter`]: which claims are allocated, which must be, and whether they can be;
//! - [`filter`]: per node, the allocated claims' node selectors and an allocation of the rest,
//!   within `filterTimeout`;
//! - [`post_filter`]: deallocating a claim that keeps the pod off every node;
//! - [`score`]: the prioritized-list score (earlier `firstAvailable` alternatives score higher);
//! - [`reserve`]: Reserve (the node's allocations, in flight from then on), the PreBind writes it
//!   plans (executed by the shell's API workers: finalizer, then allocation and `reservedFor`)
//!   and Unreserve's `reservedFor` removal;
//! - [`hints`]: the cluster events that may help a rejected pod, and their queueing hints.
//!
//! The state a pod's cycle keeps ([`state`]) is shared by its copies, as upstream's
//! `stateData.Clone` returns the same pointer. Pods without claims skip every point after a
//! look at `spec.resourceClaims`.

mod claims;
mod filter;
mod hints;
mod post_filter;
mod pre_filter;
mod reserve;
mod score;
mod state;

#[cfg(test)]
mod hint_tests;
#[cfg(test)]
mod tests;
#[cfg(test)]
mod upstream_tests;

use crate::core::cache::{Cache, NodeInfo};
use crate::core::config::DynamicResourcesArgs;
use crate::core::dra::allocator::Features;
use crate::core::dra::cel::{CelFeatures, SelectorCache};
use crate::core::features::FeatureGates;
use crate::core::framework::{
    ApiWrite, ClusterEvent, Diagnosis, EventMask, FilterRunner, Plugin, PluginState, Points, PostFilterResult, PreBindAction,
    PreFilterOutcome, PreFlight, PreScoreOutcome, QueueingHint, Rejection, Ticker,
};
use crate::core::model::PodInfo;
use crate::core::texts::dra_allocator::unsupported_features;
use std::sync::Mutex;
use std::time::Duration;

/// How many compiled CEL expressions are kept across cycles before the cache starts over
/// (upstream keeps the ten most recent in an LRU; classes and claims of a cluster rarely use more
/// distinct expressions than this).
const SELECTOR_CACHE_SIZE: usize = 64;

/// The gates the plugin reads (upstream `feature.Features`' DRA fields).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct DraFeatures {
    /// What the allocator implements (`AllocatorFeatures`).
    pub allocator: Features,
    /// `DRASchedulerFilterTimeout`: Filter stops searching a node after `filterTimeout`.
    pub filter_timeout: bool,
}

impl DraFeatures {
    /// The DRA gates as `gates` set them.
    pub fn from_gates(gates: &FeatureGates) -> DraFeatures {
        let on = |name: &str| gates.enabled(name);
        DraFeatures {
            allocator: Features {
                admin_access: on("DRAAdminAccess"),
                consumable_capacity: on("DRAConsumableCapacity"),
                device_binding_and_status: on("DRADeviceBindingConditions") && on("DRAResourceClaimDeviceStatus"),
                device_taints: on("DRADeviceTaints"),
                partitionable_devices: on("DRAPartitionableDevices"),
                prioritized_list: on("DRAPrioritizedList"),
            },
            filter_timeout: on("DRASchedulerFilterTimeout"),
        }
    }

    /// v1.35's defaults.
    pub fn defaults() -> DraFeatures {
        DraFeatures::from_gates(&FeatureGates::default())
    }
}

/// The gates that turn on parts of v1.35's DRA this plugin does not implement: the allocator's
/// (partitionable devices, consumable capacity, binding conditions) and the plugin's own
/// (extended resources backed by devices, DeviceTaintRule objects).
pub fn unsupported_gates(gates: &FeatureGates) -> Vec<&'static str> {
    let mut out = DraFeatures::from_gates(gates).allocator.unsupported();
    for gate in ["DRAExtendedResource", "DRADeviceTaintRules"] {
        if gates.enabled(gate) {
            out.push(gate);
        }
    }
    out.sort_unstable();
    out
}

/// The plugin.
pub struct DynamicResources {
    features: DraFeatures,
    /// `filterTimeout`, when the gate is on and it is not zero.
    filter_timeout: Option<Duration>,
    /// Compiled selectors, shared by the cycles (upstream's `celCache`).
    selectors: Mutex<SelectorCache>,
}

impl DynamicResources {
    /// `New`: refuses gates whose behaviour edgesched does not implement, so a cluster relying
    /// on them learns it at start-up instead of by wrong allocations.
    pub fn new(args: Option<&DynamicResourcesArgs>, gates: &FeatureGates) -> Result<DynamicResources, String> {
        let unsupported = unsupported_gates(gates);
        if !unsupported.is_empty() {
            return Err(unsupported_features(&unsupported));
        }
        Ok(DynamicResources::with_features(args, DraFeatures::from_gates(gates)))
    }

    /// The plugin with these gates, unchecked (tests of feature combinations).
    pub fn with_features(args: Option<&DynamicResourcesArgs>, features: DraFeatures) -> DynamicResources {
        let timeout = args.cloned().unwrap_or_default().filter_timeout.0;
        DynamicResources {
            features,
            filter_timeout: (features.filter_timeout && !timeout.is_zero()).then_some(timeout),
            selectors: Mutex::new(SelectorCache::new(CelFeatures {
                consumable_capacity: features.allocator.consumable_capacity,
            })),
        }
    }
}

impl Plugin for DynamicResources {
    fn name(&self) -> &'static str {
        super::names::DYNAMIC_RESOURCES
    }

    fn points(&self) -> Points {
        Points {
            pre_enqueue: true,
            pre_filter: true,
            filter: true,
            post_filter: true,
            pre_score: true,
            score: true,
            normalize: true,
            reserve: true,
            pre_bind: true,
            ..Default::default()
        }
    }

    fn events(&self) -> EventMask {
        hints::EVENTS
    }

    fn queueing_hint_in(&self, cache: &Cache, event: &ClusterEvent<'_>, pod: &PodInfo) -> QueueingHint {
        hints::queueing_hint(cache, event, pod)
    }

    fn pre_enqueue(&self, cache: &Cache, pod: &PodInfo) -> Result<(), Rejection> {
        claims::pre_enqueue(cache, pod)
    }

    fn pre_filter(&self, cache: &Cache, pod: &PodInfo, state: &mut PluginState) -> PreFilterOutcome {
        pre_filter::pre_filter(self, cache, pod, state)
    }

    fn clone_state(&self, state: &PluginState) -> PluginState {
        state::clone(state)
    }

    fn filter(&self, cache: &Cache, pod: &PodInfo, node: &NodeInfo, state: &PluginState) -> Result<(), Rejection> {
        filter::filter(self, cache, pod, node, state, None)
    }

    fn filter_timed(
        &self,
        cache: &Cache,
        pod: &PodInfo,
        node: &NodeInfo,
        state: &PluginState,
        clock: Option<&dyn Ticker>,
    ) -> Result<(), Rejection> {
        filter::filter(self, cache, pod, node, state, clock)
    }

    fn post_filter(
        &self,
        _cache: &Cache,
        pod: &PodInfo,
        _diagnosis: &Diagnosis,
        runner: &dyn FilterRunner,
        _rng: &mut crate::core::rng::Rng,
    ) -> PostFilterResult {
        let index = runner.states().iter().position(|s| state::of(s).is_some());
        post_filter::post_filter(pod, index.and_then(|i| state::of(&runner.states()[i])))
    }

    fn pre_score(&self, _cache: &Cache, _pod: &PodInfo, _nodes: &[&NodeInfo], state: &mut PluginState) -> PreScoreOutcome {
        score::pre_score(state)
    }

    fn score(&self, _cache: &Cache, _pod: &PodInfo, node: &NodeInfo, state: &PluginState) -> Result<i64, Rejection> {
        score::score(node, state)
    }

    fn normalize(&self, _pod: &PodInfo, scores: &mut [i64], _state: &PluginState) {
        super::helper::default_normalize_score(crate::core::framework::MAX_NODE_SCORE, false, scores);
    }

    fn reserve(
        &self,
        _cache: &Cache,
        pod: &PodInfo,
        node: &NodeInfo,
        state: &PluginState,
    ) -> Result<Vec<PreBindAction>, Rejection> {
        reserve::reserve(pod, node, state)
    }

    fn unreserve_writes(&self, cache: &Cache, pod: &PodInfo, _node: &str) -> Vec<ApiWrite> {
        reserve::unreserve_writes(cache, pod)
    }

    /// `PreBindPreFlight` (dynamicresources.go, v1.35): work whenever the pod has claims
    /// (`state.claims` not empty), even when they are allocated and reserved for it already.
    fn pre_bind_pre_flight(&self, _cache: &Cache, pod: &PodInfo, _node: &str, _planned: &[PreBindAction]) -> PreFlight {
        if pod.has_resource_claims() {
            PreFlight::Work
        } else {
            PreFlight::Skip
        }
    }
}
