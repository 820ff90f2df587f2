//! Talking to the Kubernetes API server: kubeconfig and in-cluster configuration, TLS, the HTTP
//! client with rate limiting and retries, and the list+watch machinery. The API object types
//! live in [`crate::core::api`]: they are data the core reads, not I/O.

pub mod backoff;
pub mod base64;
pub mod client;
pub mod kubeconfig;
pub mod ratelimit;
pub mod tls;
pub mod watch;
