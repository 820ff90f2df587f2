//! PreFilter (`dynamicresources.go` v1.35): the pod's claims must all be usable (else the pod
//! waits for a claim event); an allocated claim restricts the nodes to where its devices are; a
//! claim without allocation must not be in the middle of another pod's allocation, and every
//! device class its requests name must exist. The allocator itself needs no setup per pod: the
//! cache keeps the slices prepared and the devices in use counted.
//!
//! v1.35's `resourceclaim.CanBeReserved` allows any number of consumers (the API server's
//! validation enforces the `reservedFor` limit when PreBind writes), so its `resourceclaim in
//! use` rejection never happens and is not modelled.

use super::claims::{error, kobj, pod_claims, unschedulable};
use super::state::{self, CycleState};
use super::DynamicResources;
use crate::core::cache::Cache;
use crate::core::framework::plugins::helper::CompiledNodeSelector;
use crate::core::framework::{PluginState, PreFilterOutcome, Rejection};
use crate::core::labels::KeyResolution;
use crate::core::logging::{self, Line};
use crate::core::model::PodInfo;
use crate::core::texts::dynamic_resources as texts;

pub(super) fn pre_filter(pl: &DynamicResources, cache: &Cache, pod: &PodInfo, state: &mut PluginState) -> PreFilterOutcome {
    let Some(pod_claims_spec) = &pod.resource_claims else { return PreFilterOutcome::Skip };
    let dra = cache.dra();
    if !dra.unreadable().is_empty() {
        let resources: Vec<&str> = dra.unreadable().iter().map(|k| k.resource()).collect();
        return PreFilterOutcome::Reject(unschedulable(pod, texts::unreadable(&resources)));
    }
    let claims = match pod_claims(cache, pod, pod_claims_spec) {
        Ok(c) => c,
        Err(reason) => return PreFilterOutcome::Reject(unschedulable(pod, reason)),
    };
    logging::v(5, || {
        Line::new("pod resource claims")
            .o("pod", &pod.key)
            .s("resourceclaims", claims.iter().map(|c| kobj(c)).collect::<Vec<_>>().join(","))
    });
    if claims.is_empty() {
        return PreFilterOutcome::Skip;
    }

    let mut available_on = Vec::with_capacity(claims.len());
    let mut to_allocate = Vec::new();
    for (index, claim) in claims.iter().enumerate() {
        if let Some(allocation) = &claim.status.allocation {
            let selector = match &allocation.node_selector {
                Some(sel) => match CompiledNodeSelector::compile_strict(sel, KeyResolution::Intern) {
                    Ok(s) => Some(s),
                    Err(e) => return PreFilterOutcome::Reject(error(pod, e)),
                },
                None => None,
            };
            available_on.push(selector);
            continue;
        }
        available_on.push(None);
        to_allocate.push(index);
        // Allocation in flight? Better wait for that to finish.
        if dra.has_pending_allocation(&claim.metadata.uid) {
            return PreFilterOutcome::Reject(unschedulable(pod, texts::being_allocated(&kobj(claim))));
        }
        // Every request's class must exist: otherwise no allocation can proceed.
        for request in &claim.spec.devices.requests {
            let rejected = match (&request.exactly, request.first_available.as_slice()) {
                (Some(exactly), _) => validate_class(cache, pod, &exactly.device_class_name, &request.name),
                (None, subs) if !subs.is_empty() => {
                    if !pl.features.allocator.prioritized_list {
                        Some(unschedulable(pod, texts::subrequests_disabled(&kobj(claim), &request.name)))
                    } else {
                        subs.iter().find_map(|sub| {
                            validate_class(cache, pod, &sub.device_class_name, &format!("{}/{}", request.name, sub.name))
                        })
                    }
                }
                (None, _) => Some(unschedulable(pod, texts::unknown_request_type(&kobj(claim), &request.name))),
            };
            if let Some(r) = rejected {
                return PreFilterOutcome::Reject(r);
            }
        }
    }
    if !to_allocate.is_empty() {
        logging::v(5, || {
            Line::new("Preparing allocation with structured parameters")
                .o("pod", &pod.key)
                .s("resourceclaims", to_allocate.iter().map(|&i| kobj(claims[i])).collect::<Vec<_>>().join(","))
        });
    }
    state::put(state, CycleState::new(claims.into_iter().cloned().collect(), available_on, to_allocate));
    PreFilterOutcome::Continue
}

/// `validateDeviceClass`.
fn validate_class(cache: &Cache, pod: &PodInfo, class: &str, request: &str) -> Option<Rejection> {
    if class.is_empty() {
        return Some(error(pod, texts::unsupported_request_type(request)));
    }
    if cache.dra().device_class(class).is_none() {
        // Unschedulable until a DeviceClass event.
        return Some(unschedulable(pod, texts::class_missing(request, class)));
    }
    None
}
