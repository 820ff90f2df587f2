//! An in-memory Kubernetes API server for end-to-end tests, faithful on the wire: HTTPS with
//! client-certificate or bearer-token authentication, the real URL layout, Status error bodies,
//! list paging, watch streams with bookmarks and 410s, pod binding, patches, discovery, and
//! TokenReview/SubjectAccessReview. Every request is authorized with RBAC against the stored
//! roles and bindings, seeded with a fresh cluster's defaults, so a client runs here with exactly
//! the permissions a real deployment gives it. Tests drive it through [`TestApiServer`]: store
//! helpers (acting as cluster-admin) to arrange cluster state, fault knobs to break it, and
//! inspection to assert what the scheduler did and was refused.

mod admission;
mod apply;
mod attributes;
mod auth;
mod authz;
mod binding;
mod bootstrap;
mod claim_controller;
mod clock;
mod compat;
mod discovery;
mod dra;
mod escalation;
mod faults;
mod field_errors;
mod http;
mod inspect;
mod options;
mod patch;
mod rbac;
mod resources;
mod routes;
mod selectors;
mod server;
mod status;
mod store;
pub mod tls;
mod verbs;
mod watch;
mod wire;

pub use authz::Authorization;
pub use bootstrap::DefaultRoles;
#[allow(unused_imports)] // not every test binary names them
pub use claim_controller::{FINALIZER as CLAIM_FINALIZER, POD_CLAIM_ANNOTATION};
pub use compat::{Compat, CompatCounts};
pub use dra::DraAlphaGates;
pub use faults::Failure;
pub use inspect::RequestRecord;
pub use status::ApiError;

use super::certs::TestCa;
use apply::ensure_namespace;
use resources::{RBAC_GROUP, RESOURCES};
use serde_json::{json, Value};
use server::{Listener, Shared};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, SystemTime};
use store::{ObjKey, Store};
use verbs::Part;

/// Knobs fixed at start (some can be changed later through [`TestApiServer`] methods).
#[derive(Debug, Clone)]
pub struct ServerOptions {
    /// Events kept for watch resumption and consistent paging (default 10 000).
    pub history_window: usize,
    /// Period of BOOKMARK events on watches that allow them (default 1 s).
    pub bookmark_interval: Duration,
    /// Port on 127.0.0.1; 0 picks a free one.
    pub port: u16,
    /// DELETE of a bound pod only sets `deletionTimestamp` (as with a kubelet that has not yet
    /// confirmed); default false: pods disappear at once.
    pub graceful_pod_deletion: bool,
    /// Requests without credentials are `system:anonymous` in group `system:unauthenticated`
    /// and then authorized, as kube-apiserver (and kubeadm) run by default; false answers them
    /// 401. A bearer token that does not authenticate is a 401 either way. Default true.
    pub anonymous_auth: bool,
    /// The authorizer: RBAC (default), or AlwaysAllow for the rare test that is not about
    /// permissions.
    pub authorization: Authorization,
    /// Which generation of upstream's default roles and bindings is seeded at start.
    pub default_roles: DefaultRoles,
    /// Wire quirks of other API server implementations to show (none by default).
    pub compat: Compat,
    /// Run kube-controller-manager's resourceclaim controller (and the garbage collector's part
    /// for generated claims): claims are created from templates for pods, released and
    /// deleted as on a cluster. Default false: claims only exist when a test creates them.
    pub claim_controller: bool,
    /// Which alpha resource.k8s.io gates the server runs with (default: none, as v1.35).
    pub dra_alpha_gates: DraAlphaGates,
}

impl Default for ServerOptions {
    fn default() -> ServerOptions {
        ServerOptions {
            history_window: store::DEFAULT_HISTORY_WINDOW,
            bookmark_interval: Duration::from_secs(1),
            port: 0,
            graceful_pod_deletion: false,
            anonymous_auth: true,
            authorization: Authorization::Rbac,
            default_roles: DefaultRoles::Current,
            compat: Compat::default(),
            claim_controller: false,
            dra_alpha_gates: DraAlphaGates::default(),
        }
    }
}

/// How a generated kubeconfig authenticates.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum KubeAuth {
    /// An embedded client certificate (CN = user, no groups) signed by the server's CA.
    ClientCert {
        /// User name (certificate CN).
        user: String,
    },
    /// An embedded client certificate whose O fields put the user in `groups` (at most two), as
    /// kubeadm's `admin.conf` does with `system:masters`.
    ClientCertWithGroups {
        /// User name (certificate CN).
        user: String,
        /// Group names (certificate O), at most two.
        groups: Vec<String>,
    },
    /// An embedded bearer token (register it with [`TestApiServer::add_token`]).
    Token(String),
    /// A `tokenFile` path, re-read by clients (rotate by rewriting the file).
    TokenFile(PathBuf),
}

/// A running test API server. Dropping it stops it.
pub struct TestApiServer {
    shared: Arc<Shared>,
    port: u16,
    listener: Mutex<Option<Listener>>,
}

fn expect_target(path: &str) -> routes::Target {
    match routes::parse_path(path) {
        Some(Ok(t)) => t,
        _ => panic!("not a resource path: {path}"),
    }
}

fn expect_key(path: &str) -> (routes::Target, ObjKey) {
    let t = expect_target(path);
    let key = t.key().unwrap_or_else(|| panic!("path names no object: {path}"));
    (t, key)
}

fn part_of(t: &routes::Target) -> Part {
    if t.sub.as_deref() == Some("status") {
        Part::Status
    } else {
        Part::Main
    }
}

impl TestApiServer {
    /// Start with default options on a free port.
    pub fn start() -> TestApiServer {
        TestApiServer::start_with(ServerOptions::default())
    }

    /// Start with `opts`.
    pub fn start_with(opts: ServerOptions) -> TestApiServer {
        let ca = TestCa::new();
        let serving = ca.issue_server_cert();
        let tls_config = tls::server_config(&ca, &serving);
        let mut store = Store::new(opts.history_window);
        store.set_dra_gates(opts.dra_alpha_gates);
        for ns in admission::INITIAL_NAMESPACES {
            ensure_namespace(&mut store, ns);
        }
        bootstrap::seed(&mut store, opts.default_roles);
        let shared = Arc::new(Shared::new(ca, tls_config, store, &opts));
        let listener = server::listen(shared.clone(), opts.port).unwrap();
        TestApiServer { shared, port: listener.port, listener: Mutex::new(Some(listener)) }
    }

    /// `https://127.0.0.1:<port>`.
    pub fn url(&self) -> String {
        format!("https://127.0.0.1:{}", self.port)
    }

    /// The listening port (stable across [`TestApiServer::restart`]).
    pub fn port(&self) -> u16 {
        self.port
    }

    /// The CA certificate (PEM) clients must trust.
    pub fn ca_pem(&self) -> String {
        self.shared.ca.ca_pem().to_string()
    }

    /// A client certificate and key (both PEM) for `user` in `groups` (at most two).
    pub fn issue_client_cert(&self, user: &str, groups: &[&str]) -> (String, String) {
        let c = self.shared.ca.issue_client_cert(user, groups);
        (c.cert_pem, c.key_pem)
    }

    /// Accept bearer `token` as `user` in `groups`.
    pub fn add_token(&self, token: &str, user: &str, groups: &[&str]) {
        self.shared.lock_auth().add_token(token, user, groups);
    }

    /// Stop accepting `token` (later requests with it get 401).
    pub fn remove_token(&self, token: &str) {
        self.shared.lock_auth().remove_token(token);
    }

    /// Let `subject` `get` the non-resource `path` (trailing `*` = prefix), in requests and in
    /// SubjectAccessReviews: creates a ClusterRole with that one rule and a ClusterRoleBinding
    /// to both the user and the group named `subject`, as an administrator would.
    pub fn allow_non_resource(&self, subject: &str, path: &str) {
        static COUNTER: AtomicU64 = AtomicU64::new(0);
        let name = format!("edgesched-test:non-resource:{}", COUNTER.fetch_add(1, Ordering::Relaxed));
        let role = json!({"apiVersion": format!("{RBAC_GROUP}/v1"), "kind": "ClusterRole", "metadata": {"name": name},
            "rules": [{"nonResourceURLs": [path], "verbs": ["get"]}]});
        let binding = json!({"apiVersion": format!("{RBAC_GROUP}/v1"), "kind": "ClusterRoleBinding", "metadata": {"name": name},
            "roleRef": {"apiGroup": RBAC_GROUP, "kind": "ClusterRole", "name": name},
            "subjects": [{"apiGroup": RBAC_GROUP, "kind": "User", "name": subject}, {"apiGroup": RBAC_GROUP, "kind": "Group", "name": subject}]});
        self.apply_objects(vec![role, binding]);
    }

    /// Bind the `cluster-admin` ClusterRole to `user` (ClusterRoleBinding
    /// `edgesched-test:cluster-admin:<user>`), for a test that explicitly needs everything.
    pub fn grant_cluster_admin(&self, user: &str) {
        let binding = json!({"apiVersion": format!("{RBAC_GROUP}/v1"), "kind": "ClusterRoleBinding",
            "metadata": {"name": format!("edgesched-test:cluster-admin:{user}")},
            "roleRef": {"apiGroup": RBAC_GROUP, "kind": "ClusterRole", "name": "cluster-admin"},
            "subjects": [{"apiGroup": RBAC_GROUP, "kind": "User", "name": user}]});
        self.apply_objects(vec![binding]);
    }

    /// Give `user` exactly what kubeadm gives kube-scheduler's own user: bindings to the
    /// ClusterRoles `system:kube-scheduler` and `system:volume-scheduler` and to the kube-system
    /// Role `system::leader-locking-kube-scheduler` (all Leases there). For tests that run the
    /// scheduler under another name to tell processes apart.
    pub fn grant_kube_scheduler_roles(&self, user: &str) {
        let subject = json!([{"apiGroup": RBAC_GROUP, "kind": "User", "name": user}]);
        let cluster = |role: &str| {
            json!({"apiVersion": format!("{RBAC_GROUP}/v1"), "kind": "ClusterRoleBinding",
                "metadata": {"name": format!("edgesched-test:{role}:{user}")},
                "roleRef": {"apiGroup": RBAC_GROUP, "kind": "ClusterRole", "name": role},
                "subjects": subject.clone()})
        };
        let leases = json!({"apiVersion": format!("{RBAC_GROUP}/v1"), "kind": "RoleBinding",
            "metadata": {"name": format!("edgesched-test:leader-locking:{user}"), "namespace": "kube-system"},
            "roleRef": {"apiGroup": RBAC_GROUP, "kind": "Role", "name": "system::leader-locking-kube-scheduler"},
            "subjects": subject.clone()});
        self.apply_objects(vec![cluster("system:kube-scheduler"), cluster("system:volume-scheduler"), leases]);
    }

    /// A fresh bearer token for ServiceAccount `ns/name` (created, with its namespace, if
    /// missing), authenticating as a projected token would: user
    /// `system:serviceaccount:<ns>:<name>` (uid = the ServiceAccount's) in groups
    /// `system:serviceaccounts`, `system:serviceaccounts:<ns>` and `system:authenticated`.
    pub fn service_account_token(&self, ns: &str, name: &str) -> String {
        let path = format!("/api/v1/namespaces/{ns}/serviceaccounts/{name}");
        let sa = match self.get(&path) {
            Some(sa) => sa,
            None => self.create(&format!("/api/v1/namespaces/{ns}/serviceaccounts"), json!({"metadata": {"name": name}})),
        };
        let uid = sa["metadata"]["uid"].as_str().unwrap_or("").to_string();
        let token = format!("sa-token-{}", clock::uuid());
        let groups = ["system:serviceaccounts".to_string(), format!("system:serviceaccounts:{ns}")];
        let identity = auth::Identity::new(&format!("system:serviceaccount:{ns}:{name}"), &uid, &groups);
        self.shared.lock_auth().insert(&token, identity);
        token
    }

    /// Create or replace every object of a multi-document YAML (skipping empty documents,
    /// expanding `kind: List`), as `kubectl apply -f` would as cluster-admin: `apiVersion` and
    /// `kind` pick the resource, namespaced objects without a namespace go to `default`.
    /// Returns the stored objects. Panics on YAML that does not parse, a kind this server does
    /// not serve, or an object the server rejects.
    pub fn apply_yaml(&self, yaml: &str) -> Vec<Value> {
        self.shared.write(|s| apply::apply_yaml(s, yaml))
    }

    /// [`TestApiServer::apply_yaml`] on the contents of the file at `path`.
    pub fn apply_file(&self, path: &Path) -> Vec<Value> {
        let yaml = std::fs::read_to_string(path).unwrap_or_else(|e| panic!("apply: cannot read {}: {e}", path.display()));
        self.apply_yaml(&yaml)
    }

    fn apply_objects(&self, objects: Vec<Value>) -> Vec<Value> {
        self.shared.write(|s| {
            objects
                .into_iter()
                .map(|o| apply::apply_object(s, o).unwrap_or_else(|e| panic!("apply failed: {}", e.body)))
                .collect()
        })
    }

    /// Write a kubeconfig for this server into `dir` and return its path.
    pub fn write_kubeconfig(&self, dir: &Path, auth: KubeAuth) -> PathBuf {
        static COUNTER: AtomicU64 = AtomicU64::new(0);
        let user_block = match &auth {
            KubeAuth::ClientCert { user } | KubeAuth::ClientCertWithGroups { user, .. } => {
                let groups: Vec<&str> = match &auth {
                    KubeAuth::ClientCertWithGroups { groups, .. } => groups.iter().map(String::as_str).collect(),
                    _ => Vec::new(),
                };
                let (cert, key) = self.issue_client_cert(user, &groups);
                format!(
                    "    client-certificate-data: {}\n    client-key-data: {}\n",
                    wire::base64_std(cert.as_bytes()),
                    wire::base64_std(key.as_bytes())
                )
            }
            KubeAuth::Token(token) => format!("    token: \"{token}\"\n"),
            KubeAuth::TokenFile(path) => format!("    tokenFile: \"{}\"\n", path.display()),
        };
        let user_name = match &auth {
            KubeAuth::ClientCert { user } | KubeAuth::ClientCertWithGroups { user, .. } => user.clone(),
            _ => "test-user".to_string(),
        };
        let yaml = format!(
            "apiVersion: v1\nkind: Config\nclusters:\n- name: test\n  cluster:\n    server: {}\n    certificate-authority-data: {}\nusers:\n- name: \"{user_name}\"\n  user:\n{user_block}contexts:\n- name: test\n  context:\n    cluster: test\n    user: \"{user_name}\"\n    namespace: default\ncurrent-context: test\npreferences: {{}}\n",
            self.url(),
            wire::base64_std(self.ca_pem().as_bytes()),
        );
        let n = COUNTER.fetch_add(1, Ordering::Relaxed);
        let path = dir.join(format!("kubeconfig-{n}.yaml"));
        std::fs::write(&path, yaml).unwrap();
        path
    }

    // ----- store helpers -------------------------------------------------------------------

    /// Create `obj` in the collection at `path` (e.g. `/api/v1/namespaces/default/pods`) as a
    /// client would, creating the namespace first if needed. A `status` in a pod body (which
    /// the create strategy resets) is applied afterwards, as a kubelet would.
    pub fn create(&self, path: &str, obj: Value) -> Value {
        self.try_create(path, obj).unwrap_or_else(|e| panic!("create {path} failed: {}", e.body))
    }

    /// Like [`TestApiServer::create`] but returning the API error.
    pub fn try_create(&self, path: &str, obj: Value) -> Result<Value, ApiError> {
        let t = expect_target(path);
        let ns = t.ns.clone().unwrap_or_default();
        let status = obj.get("status").cloned();
        self.shared.write(|s| {
            if !ns.is_empty() {
                ensure_namespace(s, &ns);
            }
            let created = verbs::create(s, t.res, &ns, obj, SystemTime::now())?;
            let is_pod = t.res == resources::pods();
            match status {
                Some(st) if is_pod && created["status"] != st => {
                    let key = ObjKey::new(t.res, &ns, created["metadata"]["name"].as_str().unwrap_or(""));
                    let mut merged = created.clone();
                    patch::merge_patch(&mut merged["status"], &st);
                    verbs::update(s, &key, Part::Status, merged)
                }
                _ => Ok(created),
            }
        })
    }

    /// The object at `path`, if it exists.
    pub fn get(&self, path: &str) -> Option<Value> {
        let (_, key) = expect_key(path);
        self.shared.lock_store().get(&key).cloned()
    }

    /// Remove the rules of ClusterRole `name` that `drop` picks (e.g. a cluster whose default
    /// role predates a permission); returns how many were removed.
    #[allow(dead_code)] // not every test binary edits roles
    pub fn drop_cluster_role_rules(&self, name: &str, drop: impl Fn(&Value) -> bool) -> usize {
        let path = format!("/apis/rbac.authorization.k8s.io/v1/clusterroles/{name}");
        let mut role = self.get(&path).unwrap_or_else(|| panic!("no ClusterRole {name}"));
        let rules: Vec<Value> = role["rules"].as_array().into_iter().flatten().filter(|r| !drop(r)).cloned().collect();
        let removed = role["rules"].as_array().map_or(0, Vec::len) - rules.len();
        role["rules"] = Value::Array(rules);
        self.update(&path, role);
        removed
    }

    /// The node the pod `ns/name` is bound to, if it exists and is bound.
    #[allow(dead_code)] // not every test binary reads bindings this way
    pub fn pod_node(&self, ns: &str, name: &str) -> Option<String> {
        let pod = self.get(&format!("/api/v1/namespaces/{ns}/pods/{name}"))?;
        pod["spec"]["nodeName"].as_str().filter(|n| !n.is_empty()).map(str::to_string)
    }

    /// The `PodScheduled` condition of the pod at `path`, if the pod exists and has one.
    #[allow(dead_code)] // not every test binary reads conditions
    pub fn pod_scheduled(&self, path: &str) -> Option<Value> {
        let pod = self.get(path)?;
        pod["status"]["conditions"].as_array()?.iter().find(|c| c["type"] == "PodScheduled").cloned()
    }

    /// All objects in the collection at `path` (with kind/apiVersion), sorted by
    /// namespace/name. A `?labelSelector=...&fieldSelector=...` suffix filters.
    pub fn list(&self, path: &str) -> Vec<Value> {
        let (path, query) = path.split_once('?').unwrap_or((path, ""));
        let param = |name: &str| {
            query
                .split('&')
                .find_map(|p| p.strip_prefix(name).and_then(|r| r.strip_prefix('=')))
                .map(|v| http::percent_decode(v, true))
        };
        let sel = selectors::Selectors::parse(param("labelSelector").as_deref(), param("fieldSelector").as_deref()).unwrap();
        let t = expect_target(path);
        let store = self.shared.lock_store();
        store.objects_of(t.res, t.ns.as_deref()).map(|(_, v)| v).filter(|v| sel.matches(v)).cloned().collect()
    }

    /// Replace the object at `path` (a `/status` path replaces only status).
    pub fn update(&self, path: &str, obj: Value) -> Value {
        self.try_update(path, obj).unwrap_or_else(|e| panic!("update {path} failed: {}", e.body))
    }

    /// Like [`TestApiServer::update`] but returning the API error.
    pub fn try_update(&self, path: &str, obj: Value) -> Result<Value, ApiError> {
        let (t, key) = expect_key(path);
        self.shared.write(|s| verbs::update(s, &key, part_of(&t), obj))
    }

    /// Merge-patch the object at `path` (a `/status` path patches only status).
    pub fn patch_merge(&self, path: &str, patch: Value) -> Value {
        let (t, key) = expect_key(path);
        self.shared
            .write(|s| verbs::patch(s, &key, part_of(&t), verbs::PatchKind::Merge, &patch))
            .unwrap_or_else(|e| panic!("patch {path} failed: {}", e.body))
    }

    /// Delete the object at `path` at once (no grace period); returns whether it existed.
    pub fn delete(&self, path: &str) -> bool {
        let (_, key) = expect_key(path);
        self.shared.write(|s| s.remove(&key)).is_some()
    }

    /// Delete the object at `path` as a client's DELETE without options would: an object with
    /// finalizers is only marked deleting (and a bound pod only terminating with graceful
    /// deletion on). Returns the object if it is still stored.
    pub fn delete_as_client(&self, path: &str) -> Option<Value> {
        let (_, key) = expect_key(path);
        let graceful = self.shared.graceful_pod_deletion.load(Ordering::SeqCst);
        match self.shared.write(|s| verbs::delete(s, &key, &json!({}), graceful, SystemTime::now())) {
            Ok(verbs::Deleted::Terminating(obj)) => Some(obj),
            Ok(verbs::Deleted::Gone(_)) | Err(_) => None,
        }
    }

    /// Bind a pod server-side, as a competing scheduler would; the error is the HTTP code the
    /// binding would have got (404, 409). Counts in [`TestApiServer::bindings`].
    pub fn bind(&self, ns: &str, name: &str, node: &str) -> Result<(), u16> {
        self.shared.inspect.binding_attempt(ns, name);
        let body = json!({"kind": "Binding", "apiVersion": "v1", "metadata": {"name": name, "namespace": ns}, "target": {"kind": "Node", "name": node}});
        let when = clock::rfc3339(SystemTime::now());
        let node = self.shared.write(|s| binding::bind(s, ns, name, &body, &when)).map_err(|e| e.code)?;
        self.shared.inspect.binding_success(ns, name, &node);
        Ok(())
    }

    /// Set a pod's `status.phase` (as its kubelet would).
    pub fn set_pod_phase(&self, ns: &str, name: &str, phase: &str) {
        let key = ObjKey::new(resources::pods(), ns, name);
        self.shared
            .write(|s| verbs::patch(s, &key, Part::Status, verbs::PatchKind::Merge, &json!({"status": {"phase": phase}})))
            .unwrap_or_else(|e| panic!("set phase of {ns}/{name} failed: {}", e.body));
    }

    /// The store's latest resourceVersion.
    pub fn resource_version(&self) -> u64 {
        self.shared.lock_store().rv()
    }

    // ----- the resourceclaim controller ------------------------------------------------------

    /// Turn kube-controller-manager's resourceclaim controller on (it catches up on every pod
    /// and claim at once, then reacts to each write) or off (claims stay as they are, e.g. not
    /// created yet for a pod that names a template).
    pub fn set_claim_controller(&self, on: bool) {
        self.shared.set_claim_controller(on);
    }

    /// Run the resourceclaim controller once over every pod and claim, whether it is on or not.
    pub fn run_claim_controller(&self) {
        self.shared.run_claim_controller();
    }

    /// What the resourceclaim controller could not do so far (a pod naming a missing template,
    /// a write the server refused), as it would log it.
    pub fn claim_controller_log(&self) -> Vec<String> {
        self.shared.claim_controller_log()
    }

    // ----- faults ----------------------------------------------------------------------------

    /// Delay every request by `delay` (zero removes).
    pub fn set_latency(&self, delay: Duration) {
        self.shared.faults.set_latency("", delay);
    }

    /// Delay requests whose path contains `path_substring` by `delay` (zero removes).
    pub fn set_latency_for(&self, path_substring: &str, delay: Duration) {
        self.shared.faults.set_latency(path_substring, delay);
    }

    /// Fail the next `n` requests with `method` ("" or "*" = any) whose path contains
    /// `path_substring`.
    pub fn fail_next(&self, n: usize, method: &str, path_substring: &str, failure: Failure) {
        self.shared.faults.fail_next(n, method, path_substring, failure);
    }

    /// Fail matching requests with probability `p` (seeded, reproducible).
    pub fn set_failure_rate(&self, p: f64, method: &str, path_substring: &str, failure: Failure, seed: u64) {
        self.shared.faults.set_failure_rate(p, method, path_substring, failure, seed);
    }

    /// Remove all latency, failure, truncation and stall faults.
    pub fn clear_faults(&self) {
        self.shared.faults.clear();
    }

    /// Close every active watch abruptly (no terminating chunk).
    pub fn drop_watches(&self) {
        self.shared.drop_watches();
    }

    /// Keep watches open but silent (`true`), or let them continue (`false`).
    pub fn stall_watches(&self, stalled: bool) {
        self.shared.faults.set_stalled(stalled);
    }

    /// Silence every watch open right now, for good (no events, no bookmarks, no close), while
    /// watches opened later work normally: a client only recovers by noticing the silence and
    /// reconnecting.
    pub fn stall_open_watches(&self) {
        self.shared.watch_stall_epoch.fetch_add(1, Ordering::SeqCst);
    }

    /// Send only half of the next `n` response bodies whose path contains `path_substring`
    /// (full Content-Length declared), then close the connection.
    pub fn truncate_next(&self, n: usize, path_substring: &str) {
        self.shared.faults.truncate_next(n, path_substring);
    }

    /// Change how many events of history are kept.
    pub fn set_history_window(&self, events: usize) {
        self.shared.write(|s| s.set_window(events));
    }

    /// Expire all history now: older watch versions and continue tokens get 410.
    pub fn compact(&self) {
        self.shared.write(|s| s.compact());
    }

    /// Change the bookmark period of watches.
    pub fn set_bookmark_interval(&self, d: Duration) {
        self.shared.set_bookmark_interval(d);
    }

    /// Close the listener and every connection (the store survives).
    pub fn stop(&self) {
        let taken = self.listener.lock().unwrap_or_else(|e| e.into_inner()).take();
        if let Some(mut l) = taken {
            l.close();
        }
        self.shared.close_all();
    }

    /// Stop (if running) and listen again on the same port with the same store, CA and tokens.
    pub fn restart(&self) {
        self.stop();
        let l = server::listen(self.shared.clone(), self.port).unwrap();
        *self.listener.lock().unwrap_or_else(|e| e.into_inner()) = Some(l);
    }

    /// Like [`TestApiServer::restart`], applying the history window, bookmark interval,
    /// graceful deletion, anonymous auth, authorizer, resourceclaim controller and alpha DRA
    /// gates of `opts` (its port is ignored: the port stays; its default roles too: the stored
    /// roles and bindings survive a restart).
    pub fn restart_with(&self, opts: ServerOptions) {
        self.shared.write(|s| s.set_dra_gates(opts.dra_alpha_gates));
        self.shared.set_claim_controller(opts.claim_controller);
        self.set_history_window(opts.history_window);
        self.set_bookmark_interval(opts.bookmark_interval);
        self.shared.graceful_pod_deletion.store(opts.graceful_pod_deletion, Ordering::SeqCst);
        self.shared.anonymous_auth.store(opts.anonymous_auth, Ordering::SeqCst);
        self.shared.set_authorization(opts.authorization);
        self.restart();
    }

    // ----- inspection ------------------------------------------------------------------------

    /// Every request served so far.
    pub fn requests(&self) -> Vec<RequestRecord> {
        self.shared.inspect.requests()
    }

    /// Requests authorization refused (403 `Forbidden` from RBAC, before any handler ran), to
    /// assert on what a client was denied.
    pub fn forbidden_requests(&self) -> Vec<RequestRecord> {
        self.requests().into_iter().filter(|r| r.denied).collect()
    }

    /// Every request served since the last call (or the start), removing them from the log: for
    /// long runs that would otherwise keep every request in memory.
    pub fn take_requests(&self) -> Vec<RequestRecord> {
        self.shared.inspect.take_requests()
    }

    /// Requests with `method` and a path containing `path_substring` that have arrived, including
    /// those still being delayed or processed (the request log only has finished ones).
    pub fn requests_received(&self, method: &str, path_substring: &str) -> usize {
        self.shared.inspect.received_matching(method, path_substring)
    }

    /// How many requests had `method` ("" or "*" = any) and a path containing `path_substring`.
    pub fn requests_matching(&self, method: &str, path_substring: &str) -> usize {
        let any = method.is_empty() || method == "*";
        self.requests()
            .iter()
            .filter(|r| (any || r.method.eq_ignore_ascii_case(method)) && r.path.contains(path_substring))
            .count()
    }

    /// Binding attempts (HTTP and [`TestApiServer::bind`]) for a pod.
    pub fn binding_attempts(&self, ns: &str, name: &str) -> usize {
        self.shared.inspect.binding_attempts(ns, name)
    }

    /// Successful bindings of a pod (should end up exactly 1 for every scheduled pod).
    pub fn bindings(&self, ns: &str, name: &str) -> usize {
        self.shared.inspect.binding_nodes(ns, name).len()
    }

    /// The nodes a pod was successfully bound to, in order.
    pub fn binding_nodes(&self, ns: &str, name: &str) -> Vec<String> {
        self.shared.inspect.binding_nodes(ns, name)
    }

    /// Successful bindings across all pods.
    pub fn total_bindings(&self) -> usize {
        self.shared.inspect.total_bindings()
    }

    /// Events in namespace `ns` from both core/v1 and events.k8s.io/v1.
    pub fn events(&self, ns: &str) -> Vec<Value> {
        let store = self.shared.lock_store();
        RESOURCES
            .iter()
            .enumerate()
            .filter(|(_, r)| r.plural == "events")
            .flat_map(|(id, _)| store.objects_of(id, Some(ns)).map(|(_, v)| v.clone()).collect::<Vec<_>>())
            .collect()
    }

    /// How often the compatibility quirks changed a response.
    pub fn compat_counts(&self) -> CompatCounts {
        self.shared.compat_hits.counts()
    }

    /// Watches currently streaming (to wait until a client has started watching).
    pub fn active_watches(&self) -> usize {
        self.shared.active_watches()
    }
}

impl Drop for TestApiServer {
    fn drop(&mut self) {
        self.stop();
    }
}
