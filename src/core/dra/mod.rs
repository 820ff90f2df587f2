//! Dynamic resource allocation (`resource.k8s.io/v1`): what kube-scheduler's DynamicResources
//! plugin needs besides the API types ([`crate::core::api::resource`]) — the structured-parameters
//! allocator that picks devices for a pod's claims on one node.

pub mod allocator;
