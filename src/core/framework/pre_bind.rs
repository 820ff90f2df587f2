//! The API writes the binding cycle performs before the pod is bound (upstream's PreBind of the
//! in-tree plugins VolumeBinding and DynamicResources): planned at Reserve by the pure core,
//! assumed in the cache at once (so the next cycle already sees them), and executed in order by
//! the shell's API workers, each plugin's writes at that plugin's place in the PreBind list.

use super::plugins::names;
use crate::core::api;
use std::sync::Arc;

/// An API write the binding cycle must perform before the pod is bound.
#[derive(Debug, Clone, PartialEq)]
pub enum PreBindAction {
    /// Set an annotation on a PVC (`volume.kubernetes.io/selected-node` for WaitForFirstConsumer
    /// claims that a provisioner will satisfy).
    AnnotatePvc { namespace: String, name: String, key: String, value: String },
    /// Pre-bind a static PV to a claim by setting `spec.claimRef` (the PV controller completes it).
    BindPv { pv: String, claim_namespace: String, claim_name: String, claim_uid: String },
    /// Wait until these claims are Bound (provisioning / PV controller), up to `timeout_seconds`.
    WaitForClaims { claims: Vec<(String, String)>, timeout_seconds: u64 },
    /// DynamicResources: record the allocation Reserve chose (if any) and the pod's `reservedFor`
    /// entry in a ResourceClaim not yet reserved for the pod (`bindClaim`).
    ReserveClaim(Box<ClaimReservation>),
}

/// What `bindClaim` needs for one claim.
#[derive(Debug, Clone, PartialEq)]
pub struct ClaimReservation {
    /// The claim as the scheduling cycle saw it (the first write's base; a conflict reads it
    /// again).
    pub claim: Arc<api::ResourceClaim>,
    /// The allocation Reserve chose; `None` when the claim is allocated already and only the
    /// reservation is missing.
    pub allocation: Option<api::AllocationResult>,
    pub pod_name: String,
    pub pod_uid: String,
}

impl PreBindAction {
    /// The in-tree plugin whose PreBind performs this write.
    pub fn plugin(&self) -> &'static str {
        match self {
            PreBindAction::AnnotatePvc { .. } | PreBindAction::BindPv { .. } | PreBindAction::WaitForClaims { .. } => {
                names::VOLUME_BINDING
            }
            PreBindAction::ReserveClaim(_) => names::DYNAMIC_RESOURCES,
        }
    }
}

/// What a PreBind plugin's PreBindPreFlight says about one pod on its chosen node (upstream
/// v1.35 `PreBindPlugin.PreBindPreFlight`: Success or Skip). With the
/// `NominatedNodeNameForExpectation` gate on, the binding cycle writes the pod's
/// `.status.nominatedNodeName` first when some PreBind plugin has work for it: PreBind may take
/// long (volumes, devices), and cluster autoscalers must see the node as taken meanwhile.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PreFlight {
    /// PreBind will do something for this pod (upstream Success).
    Work,
    /// PreBind has nothing to do for this pod (upstream Skip).
    Skip,
}
