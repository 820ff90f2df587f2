//! Dynamic Resource Allocation (`resource.k8s.io/v1`): what the scheduler needs to give pods the
//! devices their ResourceClaims ask for, as kube-scheduler v1.35 does (the API types are
//! [`crate::core::api::resource`]).
//!
//! Pure like the rest of the core: the CEL device selectors ([`cel`]) compile and evaluate
//! without I/O, and the structured-parameters allocator ([`allocator`]) picks the devices of a
//! pod's claims on one node, so the live scheduler and every what-if command select the same
//! devices.

pub mod allocator;
pub mod cel;
pub mod claim_templates;
pub mod claim_writes;
pub mod defaults;
