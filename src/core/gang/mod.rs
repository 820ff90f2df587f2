//! Pod groups for gang scheduling, as the GangScheduling plugin sees them: which group a pod
//! belongs to, the group's policy, and how many of its pods the scheduler knows and has placed.
//!
//! Upstream v1.35 keeps the counts in a workload manager fed by the pod informer
//! (`pkg/scheduler/backend/workloadmanager/podgroupinfo.go` at 9f0333b48499affeb41099c442af823d0e93c97c:
//! all, unscheduled, assumed and assigned pods per group). Here the cache already holds every
//! one of them — pending pods ([`Cache::pending_pods`]) and assumed or bound pods on their nodes —
//! so the counts are read from it and nothing is kept twice; the plugin's Reserve/Unreserve
//! bookkeeping is the cache's assume and forget.
//!
//! The API shape that names groups changes between releases; the v1.35 one
//! (`scheduling.k8s.io/v1alpha1` Workload, `pod.spec.workloadRef`) is [`v1alpha1`]; a later
//! version goes beside it.

pub mod v1alpha1;

/// A group's scheduling policy (`PodGroupPolicy`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Policy {
    /// Pods are scheduled one by one, as without a group.
    Basic,
    /// At least `min_count` pods of the group are placed together, or none.
    Gang { min_count: usize },
}

/// What a pod's group reference resolves to.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Lookup {
    /// The pod belongs to no group.
    NoGroup,
    /// The object that declares the group (v1.35: the Workload) does not exist (yet).
    MissingWorkload { workload: String },
    /// The Workload exists but declares no group of that name.
    MissingPodGroup { workload: String, pod_group: String },
    /// The group and its policy.
    Found(Policy),
}

/// How many pods of one group the scheduler knows (upstream `podGroupInfo`).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Counts {
    /// Every pod of the group: pending, assumed or bound (`AllPods`).
    pub all: usize,
    /// Assumed (held at Permit or being bound) or bound (`AssumedPods ∪ AssignedPods`).
    pub placed: usize,
}
