//! Checks every fault scenario and the soak share: each pod bound exactly once (from the
//! server's request log, not from the scheduler's own account), no node overcommitted in cpu,
//! memory, pod count or host ports, and the scheduler process alive with bounded memory.

use super::apiserver::{RequestRecord, TestApiServer};
use super::process::Edgesched;
use serde_json::Value;
use std::collections::{BTreeMap, HashMap};

/// `(namespace, name)` of a pod.
pub type PodKey = (String, String);

/// `(namespace, name)` of the pod a binding request is for, if `r` is one.
pub fn binding_target(r: &RequestRecord) -> Option<PodKey> {
    if r.method != "POST" {
        return None;
    }
    let rest = r.path.strip_prefix("/api/v1/namespaces/")?;
    let mut parts = rest.split('/');
    match (parts.next(), parts.next(), parts.next(), parts.next(), parts.next()) {
        (Some(ns), Some("pods"), Some(name), Some("binding"), None) => Some((ns.to_string(), name.to_string())),
        _ => None,
    }
}

/// Successful (2xx) binding POSTs per pod in the request log, from any HTTP client (the test's
/// own [`TestApiServer::bind`] calls are not HTTP requests and are not counted here).
pub fn successful_binding_posts(requests: &[RequestRecord]) -> HashMap<PodKey, usize> {
    let mut out: HashMap<PodKey, usize> = HashMap::new();
    for r in requests {
        if (200..300).contains(&r.code) {
            if let Some(k) = binding_target(r) {
                *out.entry(k).or_default() += 1;
            }
        }
    }
    out
}

/// The request log once every binding POST that has arrived is in it: the server commits a
/// binding before it answers and logs the request after answering, so a test that saw the pod
/// bound may otherwise read the log a moment before its binding request is there.
pub fn settled_requests(server: &TestApiServer) -> Vec<RequestRecord> {
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(10);
    loop {
        let requests = server.requests();
        let logged = requests.iter().filter(|r| binding_target(r).is_some()).count();
        if logged >= server.requests_received("POST", "/binding") || std::time::Instant::now() >= deadline {
            return requests;
        }
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
}

/// Binding POSTs answered 409 Conflict (the scheduler lost the pod to someone else).
pub fn conflicting_binding_posts(requests: &[RequestRecord]) -> usize {
    requests.iter().filter(|r| r.code == 409 && binding_target(r).is_some()).count()
}

/// Every pod in `names` (namespace `ns`) has a node, and exactly one successful binding overall
/// (HTTP or competing test binds); `foreign` are the pods the test itself bound, which must have
/// no successful binding POST, every other one exactly one.
pub fn assert_each_bound_exactly_once(server: &TestApiServer, ns: &str, names: &[String], foreign: &[String]) {
    let posts = successful_binding_posts(&settled_requests(server));
    let mut problems = Vec::new();
    for name in names {
        let key = (ns.to_string(), name.clone());
        let by_http = posts.get(&key).copied().unwrap_or(0);
        let total = server.bindings(ns, name);
        let want_http = usize::from(!foreign.contains(name));
        let bound = server
            .get(&format!("/api/v1/namespaces/{ns}/pods/{name}"))
            .is_some_and(|p| p["spec"]["nodeName"].as_str().is_some_and(|n| !n.is_empty()));
        if !bound || total != 1 || by_http != want_http {
            problems.push(format!(
                "{ns}/{name}: bound={bound} successful bindings={total} successful binding POSTs={by_http} (want {want_http})"
            ));
        }
    }
    assert!(problems.is_empty(), "{} pod(s) not bound exactly once:\n{}", problems.len(), problems.join("\n"));
}

fn milli(q: &str) -> i64 {
    edgesched::core::quantity::parse_milli(q).unwrap_or_else(|e| panic!("quantity {q:?}: {e:?}"))
}

/// A pod's effective request of `resource` in milli-units: max(sum over containers, largest
/// init container), as the scheduler computes it (no overhead in these tests).
fn effective_request(pod: &Value, resource: &str) -> i64 {
    let of = |c: &Value| c["resources"]["requests"][resource].as_str().map(milli).unwrap_or(0);
    let sum: i64 = pod["spec"]["containers"].as_array().into_iter().flatten().map(of).sum();
    let init = pod["spec"]["initContainers"].as_array().into_iter().flatten().map(of).max().unwrap_or(0);
    sum.max(init)
}

/// What the bound, non-terminal pods of one node use.
#[derive(Debug, Default, Clone)]
pub struct NodeUsage {
    pub cpu_milli: i64,
    pub memory_bytes: i64,
    pub pods: i64,
    /// (protocol, hostIP, hostPort) -> pods using it.
    pub host_ports: BTreeMap<(String, String, i64), Vec<String>>,
}

/// Usage per node, from the server's state.
pub fn node_usage(server: &TestApiServer) -> HashMap<String, NodeUsage> {
    let mut used: HashMap<String, NodeUsage> = HashMap::new();
    for p in server.list("/api/v1/pods") {
        let Some(node) = p["spec"]["nodeName"].as_str().filter(|n| !n.is_empty()) else { continue };
        if matches!(p["status"]["phase"].as_str(), Some("Succeeded" | "Failed")) {
            continue;
        }
        let u = used.entry(node.to_string()).or_default();
        u.cpu_milli += effective_request(&p, "cpu");
        u.memory_bytes += effective_request(&p, "memory") / 1000;
        u.pods += 1;
        let who =
            format!("{}/{}", p["metadata"]["namespace"].as_str().unwrap_or(""), p["metadata"]["name"].as_str().unwrap_or(""));
        for c in p["spec"]["containers"].as_array().into_iter().flatten() {
            for port in c["ports"].as_array().into_iter().flatten() {
                let Some(hp) = port["hostPort"].as_i64().filter(|p| *p > 0) else { continue };
                let proto = port["protocol"].as_str().unwrap_or("TCP").to_string();
                let ip = port["hostIP"].as_str().filter(|ip| !ip.is_empty()).unwrap_or("0.0.0.0").to_string();
                u.host_ports.entry((proto, ip, hp)).or_default().push(who.clone());
            }
        }
    }
    used
}

/// No node has more cpu, memory or pods bound than allocatable, nor a host port used twice.
pub fn assert_no_overcommit(server: &TestApiServer) {
    let used = node_usage(server);
    let mut problems = Vec::new();
    for n in server.list("/api/v1/nodes") {
        let name = n["metadata"]["name"].as_str().unwrap_or_default().to_string();
        let alloc = &n["status"]["allocatable"];
        let cap = |r: &str| alloc[r].as_str().map(milli);
        let Some(u) = used.get(&name) else { continue };
        if let Some(cpu) = cap("cpu").filter(|c| u.cpu_milli > *c) {
            problems.push(format!("{name}: cpu {}m > {cpu}m", u.cpu_milli));
        }
        if let Some(mem) = cap("memory").map(|m| m / 1000).filter(|m| u.memory_bytes > *m) {
            problems.push(format!("{name}: memory {} > {mem}", u.memory_bytes));
        }
        if let Some(pods) = cap("pods").map(|p| p / 1000).filter(|p| u.pods > *p) {
            problems.push(format!("{name}: {} pods > {pods}", u.pods));
        }
        for ((proto, ip, port), who) in &u.host_ports {
            if who.len() > 1 {
                problems.push(format!("{name}: hostPort {proto}/{ip}:{port} used by {who:?}"));
            }
        }
    }
    assert!(problems.is_empty(), "overcommitted nodes:\n{}", problems.join("\n"));
}

/// Resident set size of the process in MiB.
pub fn rss_mib(es: &Edgesched) -> Option<f64> {
    es.rss_kib().map(|k| k as f64 / 1024.0)
}

/// The process is still running and its resident set is below `max_mib`.
pub fn assert_alive_and_bounded(es: &mut Edgesched, max_mib: f64) -> f64 {
    assert!(es.alive(), "edgesched exited:\n{}", es.logs());
    let rss = rss_mib(es).expect("VmRSS readable");
    assert!(rss < max_mib, "edgesched RSS {rss:.1} MiB >= {max_mib} MiB");
    rss
}
