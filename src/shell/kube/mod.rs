//! Talking to the Kubernetes API server: kubeconfig and in-cluster configuration, TLS, the HTTP
//! client with rate limiting and retries, and the list+watch machinery. The API object types
//! live in [`crate::core::api`]: they are data the core reads, not I/O.

pub mod api_error;
pub mod backoff;
pub mod base64;
pub mod client;
pub mod config_source;
pub mod decode;
pub mod files;
pub mod http1;
pub mod kubeconfig;
pub mod proxy_env;
pub mod query;
pub mod ratelimit;
pub mod tls;
pub mod token;
pub mod watch;
pub mod watch_stream;

/// A recorded API server response from `tests/fixtures` (each file notes its source).
#[cfg(test)]
pub(crate) fn fixture(name: &str) -> Vec<u8> {
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures").join(name);
    std::fs::read(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

/// Write `text` to `dir/name` for a test and return the path.
#[cfg(test)]
pub(crate) fn write_file(dir: &std::path::Path, name: &str, text: &str) -> std::path::PathBuf {
    let path = dir.join(name);
    std::fs::write(&path, text).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    path
}
