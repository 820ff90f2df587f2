//! Talking to the Kubernetes API server: types, quantities, kubeconfig, the HTTP client and the
//! list+watch machinery.

pub mod api;
pub mod backoff;
pub mod base64;
pub mod client;
pub mod kubeconfig;
pub mod quantity;
pub mod ratelimit;
pub mod tls;
pub mod watch;
