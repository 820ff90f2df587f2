//! Talking to the Kubernetes API server: types, quantities, kubeconfig, the HTTP client and the
//! list+watch machinery.

pub mod api;
pub mod quantity;
