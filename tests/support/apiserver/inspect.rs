//! What tests assert on afterwards: every request (method, path, query, code, user, whether
//! authorization refused it) and every
//! binding attempt and success per pod, so a test can prove each pod was bound exactly once.

use std::collections::HashMap;
use std::sync::Mutex;
use std::time::Instant;

/// One served request.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RequestRecord {
    /// HTTP method.
    pub method: String,
    /// Path without query.
    pub path: String,
    /// Raw query string.
    pub query: String,
    /// Response status code (200 for a watch that started streaming).
    pub code: u16,
    /// Authenticated user (`system:anonymous` without credentials, "" when the request got a 401).
    pub user: String,
    /// Refused by authorization (a 403 `Forbidden` before any handler ran), as opposed to a 403
    /// from admission.
    pub denied: bool,
    /// The request body (first 16 KiB, lossily decoded), to check what a client wrote and in which order.
    pub body: String,
    /// When the server finished handling the request (after any write it made), so tests can
    /// order writes of different clients, e.g. bindings against lease renewals.
    pub at: Instant,
}

#[derive(Debug, Default)]
struct BindingStats {
    attempts: usize,
    nodes: Vec<String>,
}

#[derive(Debug, Default)]
struct State {
    requests: Vec<RequestRecord>,
    /// (method, path) of requests as they arrive, before latency and faults apply.
    received: Vec<(String, String)>,
    bindings: HashMap<(String, String), BindingStats>,
}

/// The request log and binding statistics.
#[derive(Debug, Default)]
pub struct Inspect(Mutex<State>);

impl Inspect {
    fn state(&self) -> std::sync::MutexGuard<'_, State> {
        self.0.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Append a request.
    pub fn record(&self, r: RequestRecord) {
        self.state().requests.push(r);
    }

    /// A copy of the log.
    pub fn requests(&self) -> Vec<RequestRecord> {
        self.state().requests.clone()
    }

    /// The log so far, leaving it empty (long runs drain it to keep the test's memory flat).
    pub fn take_requests(&self) -> Vec<RequestRecord> {
        let mut s = self.state();
        s.received.clear();
        std::mem::take(&mut s.requests)
    }

    /// Note a request as soon as its head is read.
    pub fn receive(&self, method: &str, path: &str) {
        self.state().received.push((method.to_string(), path.to_string()));
    }

    /// Requests received so far (answered or not) with `method` and a path containing `path`.
    pub fn received_matching(&self, method: &str, path: &str) -> usize {
        self.state().received.iter().filter(|(m, p)| m == method && p.contains(path)).count()
    }

    /// Count a binding attempt for a pod.
    pub fn binding_attempt(&self, ns: &str, name: &str) {
        self.state().bindings.entry((ns.to_string(), name.to_string())).or_default().attempts += 1;
    }

    /// Record a successful binding of a pod to `node`.
    pub fn binding_success(&self, ns: &str, name: &str, node: &str) {
        self.state().bindings.entry((ns.to_string(), name.to_string())).or_default().nodes.push(node.to_string());
    }

    /// Binding attempts for a pod.
    pub fn binding_attempts(&self, ns: &str, name: &str) -> usize {
        self.state().bindings.get(&(ns.to_string(), name.to_string())).map_or(0, |b| b.attempts)
    }

    /// Nodes the pod was successfully bound to, in order.
    pub fn binding_nodes(&self, ns: &str, name: &str) -> Vec<String> {
        self.state().bindings.get(&(ns.to_string(), name.to_string())).map(|b| b.nodes.clone()).unwrap_or_default()
    }

    /// Total successful bindings across all pods.
    pub fn total_bindings(&self) -> usize {
        self.state().bindings.values().map(|b| b.nodes.len()).sum()
    }
}
