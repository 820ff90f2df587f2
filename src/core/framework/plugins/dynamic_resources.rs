//! DynamicResources (pkg/scheduler/framework/plugins/dynamicresources): part of the default plugin
//! set since dynamic resource allocation went GA. edgesched does not allocate devices: pods
//! without resource claims pass untouched (PreFilter Skip), and its PostFilter answers exactly as
//! upstream's does for them — `no new claims to deallocate` — which is why FailedScheduling
//! messages read "... no new claims to deallocate, preemption: ...". Pods that do reference
//! resource claims are rejected with a clear reason instead of being placed without devices.

use crate::core::cache::Cache;
use crate::core::framework::{
    Diagnosis, EventMask, FilterRunner, Plugin, PluginState, Points, PostFilterResult, PreFilterOutcome, Rejection,
};
use crate::core::model::PodInfo;

pub struct DynamicResources;

use crate::core::texts::dynamic_resources::{CLAIMS_UNSUPPORTED, NO_NEW_CLAIMS_TO_DEALLOCATE};

impl Plugin for DynamicResources {
    fn name(&self) -> &'static str {
        super::names::DYNAMIC_RESOURCES
    }

    fn points(&self) -> Points {
        Points { pre_filter: true, filter: true, post_filter: true, ..Default::default() }
    }

    fn events(&self) -> EventMask {
        EventMask::POD_UPDATE
    }

    fn pre_filter(&self, _cache: &Cache, pod: &PodInfo, _state: &mut PluginState) -> PreFilterOutcome {
        if pod.has_resource_claims() {
            PreFilterOutcome::Reject(Rejection::unresolvable(CLAIMS_UNSUPPORTED))
        } else {
            PreFilterOutcome::Skip
        }
    }

    fn post_filter(
        &self,
        _cache: &Cache,
        pod: &PodInfo,
        _d: &Diagnosis,
        _r: &dyn FilterRunner,
        _rng: &mut crate::core::rng::Rng,
    ) -> PostFilterResult {
        let reason = if pod.has_resource_claims() { CLAIMS_UNSUPPORTED } else { NO_NEW_CLAIMS_TO_DEALLOCATE };
        PostFilterResult { rejection: Some(Rejection::unschedulable(reason)), ..Default::default() }
    }
}
