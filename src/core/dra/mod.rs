//! Dynamic Resource Allocation (`resource.k8s.io/v1`): what the scheduler needs to give pods the
//! devices their ResourceClaims ask for, as kube-scheduler v1.35 does.
//!
//! Pure like the rest of the core: the CEL device selectors ([`cel`]) compile and evaluate
//! without I/O, so the live scheduler and every what-if command select the same devices.

pub mod cel;
