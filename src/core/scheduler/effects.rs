//! What the scheduler core asks the shell to do ([`Effect`]s) and what one scheduling attempt did
//! ([`Attempt`]).

use crate::core::api;
use crate::core::events::EventRecord;
use crate::core::model::{PodInfo, PodKey};
use std::sync::Arc;
use std::time::Instant;

/// A request to bind a pod, with what the binder needs to log and measure.
#[derive(Debug, Clone)]
pub struct BindRequest {
    pub pod: Arc<PodInfo>,
    pub node: Box<str>,
    /// Writes to perform before the binding (volume claims), in order.
    pub pre_bind: Vec<crate::core::framework::PreBindAction>,
    pub profile: String,
    pub evaluated_nodes: usize,
    pub feasible_nodes: usize,
    pub attempts: u32,
    pub initial_attempt: Option<Instant>,
    pub cycle_start: Instant,
    /// The pod reached activeQ through the leftover flush (`scheduler_pod_scheduled_after_flush_total`).
    pub flushed: bool,
    /// The extender that binds this pod instead of the DefaultBinder (`extendersBinding`).
    pub extender_binder: Option<crate::core::extender::BindTarget>,
    /// The profile's out-of-tree PreBind/Bind/PostBind plugins (`None`: in-tree only).
    pub binding: Option<Arc<crate::core::framework::binding::BindingPlugins>>,
    /// PreBind plugins whose PreBindPreFlight said they have nothing to do for this pod: their
    /// PreBind is not run (upstream `SkipPreBindPlugins`; empty with
    /// `NominatedNodeNameForExpectation` off, where no PreBindPreFlight runs).
    pub pre_bind_skipped: Vec<&'static str>,
}

/// The PodScheduled condition (and nominated node) to write to a pod's status.
#[derive(Debug, Clone)]
pub struct StatusPatch {
    pub namespace: String,
    pub name: String,
    pub uid: String,
    pub condition: Option<api::PodCondition>,
    /// `Some(node)` sets `status.nominatedNodeName` (empty string clears it).
    pub nominated_node_name: Option<String>,
    /// Which upstream call writes it (it decides the log line of a failed write).
    pub origin: PatchOrigin,
}

/// Where upstream writes a pod's status (its `updatePod` / `PatchPodStatus` callers).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PatchOrigin {
    /// A failed attempt (`handleSchedulingFailure`) or preemption clearing the nominations of
    /// lower-priority pods.
    Scheduling,
    /// The start of the binding cycle: where the pod is going, before it waits at Permit or runs
    /// PreBind (`NominatedNodeNameForExpectation`).
    BindingCycle,
}

/// Work for the shell.
#[derive(Debug, Clone)]
pub enum Effect {
    Bind(BindRequest),
    Event(EventRecord),
    PatchStatus(StatusPatch),
    /// Evict a preemption victim (delete with a uid precondition) after marking it with a
    /// `DisruptionTarget` condition.
    Evict(Eviction),
    /// An API write a plugin asked for outside the binding cycle (DynamicResources' PostFilter
    /// and Unreserve).
    ApiWrite(crate::core::framework::ApiWrite),
}

/// A preemption victim to evict, and for whom.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Eviction {
    pub namespace: String,
    pub name: String,
    pub uid: String,
    /// The preemptor as the event on the victim names it (`related`; its uid is in the note).
    pub preemptor_reference: crate::core::api::ObjectReference,
    /// `namespace/name` of the preemptor (for the log line).
    pub preemptor: String,
    pub node: String,
    pub profile: String,
}

/// What one scheduling attempt did (for metrics and tests).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Attempt {
    Scheduled {
        pod: PodKey,
        node: Box<str>,
    },
    Unschedulable {
        pod: PodKey,
        message: String,
    },
    Error {
        pod: PodKey,
        message: String,
    },
    /// Popped but not attempted (being deleted, already assumed, profile gone).
    Skipped {
        pod: PodKey,
    },
}
