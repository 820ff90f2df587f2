#![allow(dead_code)]
//! Shared helpers for end-to-end tests and benchmarks: an in-memory Kubernetes API server that
//! speaks the real wire protocol, object builders, and bounded polling. Each test crate uses a
//! subset, hence `dead_code` is allowed here.

pub mod apiserver;
pub mod certs;
pub mod deploy;
pub mod dra;
pub mod extender;
pub mod https;
pub mod invariants;
pub mod klog_text;
pub mod objects;
pub mod process;
pub mod promtext;
pub mod promtext_python;
pub mod raw_http;
pub mod wait;

#[allow(unused_imports)]
pub use apiserver::{Authorization, DefaultRoles, Failure, KubeAuth, RequestRecord, ServerOptions, TestApiServer};
#[allow(unused_imports)]
pub use wait::{tempdir, wait_until};
