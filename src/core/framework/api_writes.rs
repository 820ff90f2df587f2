//! API writes plugins need outside the binding cycle: upstream's DynamicResources calls the API
//! server from PostFilter (deallocating a claim that blocks the pod) and Unreserve (taking the
//! pod out of a claim's `reservedFor`). The pure core cannot, so those plugins return the writes
//! ([`super::PostFilterResult::writes`], [`super::Plugin::unreserve_writes`]), the scheduler core
//! hands them to the shell as effects, and the API workers perform them; a failure is logged, as
//! upstream's Unreserve logs its own (the pod's next attempt gets there again).

use crate::core::api;
use std::sync::Arc;

/// One write.
#[derive(Debug, Clone, PartialEq)]
pub enum ApiWrite {
    /// `UpdateStatus` of the claim with its allocation, `reservedFor` and device status cleared
    /// (DynamicResources' PostFilter). The claim is the version the cycle saw: a concurrent change
    /// makes the write conflict, as upstream's does.
    DeallocateClaim(Arc<api::ResourceClaim>),
    /// Strategic-merge patch of the claim's `status` removing the pod's `reservedFor` entry
    /// (DynamicResources' Unreserve).
    UnreserveClaim { namespace: String, name: String, claim_uid: String, pod_uid: String },
}
