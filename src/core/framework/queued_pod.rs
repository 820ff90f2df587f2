//! A pod in the scheduling queue with its history — what QueueSort plugins compare and the queue
//! ([`crate::core::queue`]) keeps per pod.

use crate::core::model::PodInfo;
use std::sync::Arc;
use std::time::Instant;

/// A pod in the queue and its scheduling history.
#[derive(Debug, Clone)]
pub struct QueuedPod {
    pub pod: Arc<PodInfo>,
    /// When the pod last entered the queue (PrioritySort's tie-breaker, backoff base).
    pub timestamp: Instant,
    /// First time the pod was popped (for the scheduling SLI).
    pub initial_attempt: Option<Instant>,
    /// Number of pops (scheduling attempts).
    pub attempts: u32,
    pub unschedulable_count: u32,
    pub consecutive_errors: u32,
    /// Plugins that rejected the pod in its last attempt (queueing hints).
    pub rejectors: Vec<&'static str>,
    /// The PreEnqueue plugin holding the pod back, if gated.
    pub gating_plugin: Option<&'static str>,
    /// Message of the gate, for diagnostics.
    pub gate_message: String,
    /// Moved out of the unschedulable pool by the leftover flush, not by an event
    /// (`scheduler_pod_scheduled_after_flush_total`).
    pub flushed: bool,
}

impl QueuedPod {
    /// A pod entering the queue at `now`, not yet attempted (also how tests of QueueSort
    /// plugins build the pods they compare).
    pub fn new(pod: Arc<PodInfo>, now: Instant) -> QueuedPod {
        QueuedPod {
            pod,
            timestamp: now,
            initial_attempt: None,
            attempts: 0,
            unschedulable_count: 0,
            consecutive_errors: 0,
            rejectors: Vec::new(),
            gating_plugin: None,
            gate_message: String::new(),
            flushed: false,
        }
    }
}
