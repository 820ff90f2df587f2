//! Which of a pod's device requests found no device on a node: the detail behind kube-scheduler's
//! one reason `cannot allocate all claims`, for `explain` and `capacity`.
//!
//! The DynamicResources plugin allocates all of a pod's unallocated claims at once and says only
//! that it failed (`dynamicresources.go` v1.35, Filter). Here each request of those claims is
//! tried alone on the node with the same allocator, the same allocated devices and the same CEL
//! selectors: a request that finds nothing even alone is named; when every request finds devices
//! alone, the node fails them only together (a `matchAttribute` constraint, or too few devices
//! for all of them).

use crate::core::api;
use crate::core::cache::Cache;
use crate::core::dra::allocator::{AllocError, Allocator, Features, NoDeadline, NodeRef};
use crate::core::dra::cel::{CelFeatures, SelectorCache};
use crate::core::texts::what_if_devices as texts;

/// The pod's claims that still need devices (no allocation yet), as the cache has them.
fn claims_to_allocate(cache: &Cache, pod: &api::Pod) -> Vec<api::ResourceClaim> {
    let ns = &pod.metadata.namespace;
    pod.spec
        .resource_claims
        .iter()
        .filter_map(|c| match (&c.resource_claim_name, &c.resource_claim_template_name) {
            (Some(name), _) => Some(name.clone()),
            (None, Some(_)) => {
                pod.status.resource_claim_statuses.iter().find(|s| s.name == c.name).and_then(|s| s.resource_claim_name.clone())
            }
            (None, None) => None,
        })
        .filter_map(|name| cache.dra().resource_claim(ns, &name))
        .filter(|c| c.status.allocation.is_none())
        .map(|c| (**c).clone())
        .collect()
}

/// The claim reduced to one request (no constraints between requests).
fn only_request(claim: &api::ResourceClaim, request: &api::DeviceRequest) -> api::ResourceClaim {
    let mut c = claim.clone();
    c.spec.devices.requests = vec![request.clone()];
    c.spec.devices.constraints.clear();
    c
}

/// Why the pod's claims get no devices on `node`, one text per request that finds none alone
/// (or [`texts::NOT_ALL_TOGETHER`]); empty when the pod has no claim to allocate or the claims
/// fit on the node.
pub fn unallocatable(cache: &Cache, features: Features, pod: &api::Pod, node: &str) -> Vec<String> {
    let Some(info) = cache.nodes().find(|n| n.name() == node) else { return Vec::new() };
    let node_ref = NodeRef { name: &info.node.name, labels: &info.node.labels };
    let claims = claims_to_allocate(cache, pod);
    if claims.is_empty() {
        return Vec::new();
    }
    let dra = cache.dra();
    let allocator = match Allocator::new(features, dra.allocated(), dra.classes(), dra.slice_index()) {
        Ok(a) => a,
        Err(e) => return vec![e.to_string()],
    };
    let mut selectors = SelectorCache::new(CelFeatures { consumable_capacity: features.consumable_capacity });
    let all: Vec<&api::ResourceClaim> = claims.iter().collect();
    if allocator.allocate(node_ref, &all, &mut selectors, &NoDeadline).is_ok() {
        return Vec::new();
    }
    let mut out = Vec::new();
    for claim in &claims {
        let key = format!("{}/{}", claim.metadata.namespace, claim.metadata.name);
        for request in &claim.spec.devices.requests {
            let alone = only_request(claim, request);
            match allocator.allocate(node_ref, &[&alone], &mut selectors, &NoDeadline) {
                Ok(_) => {}
                Err(AllocError::CannotAllocate | AllocError::InvalidPools) => out.push(match &request.exactly {
                    Some(e) => texts::request_found_no_device(&key, &request.name, &e.device_class_name),
                    None => {
                        let classes: Vec<&str> = request.first_available.iter().map(|s| s.device_class_name.as_str()).collect();
                        texts::alternatives_found_no_device(&key, &request.name, &classes)
                    }
                }),
                Err(e) => out.push(texts::request_failed(&key, &request.name, &e.to_string())),
            }
        }
    }
    if out.is_empty() {
        out.push(texts::NOT_ALL_TOGETHER.to_string());
    }
    out
}
