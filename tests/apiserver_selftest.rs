//! Self-test of the in-memory API server used by the end-to-end tests: it must answer exactly
//! like a real kube-apiserver on the wire, so each test pins one behaviour against a captured
//! fixture (tests/fixtures/, see README.md) or the upstream semantics.

mod support;

use rustls::pki_types::pem::PemObject;
use rustls::pki_types::{CertificateDer, PrivateKeyDer, ServerName};
use rustls::{ClientConfig, ClientConnection, RootCertStore, StreamOwned};
use serde_json::{json, Value};
use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpStream;
use std::sync::Arc;
use std::time::Duration;
use support::objects::{node, pod};
use support::{KubeAuth, TestApiServer};

// ---------------------------------------------------------------------------------------------
// A raw HTTPS client: byte-exact view of what the server sends (framing included).
// ---------------------------------------------------------------------------------------------

enum Auth<'a> {
    None,
    Cert(&'a str, &'a [&'a str]),
    Token(&'a str),
}

struct Resp {
    code: u16,
    headers: Vec<(String, String)>,
    body: Vec<u8>,
}

impl Resp {
    fn json(&self) -> Value {
        serde_json::from_slice(&self.body).unwrap_or_else(|e| panic!("{e}: {}", String::from_utf8_lossy(&self.body)))
    }

    fn text(&self) -> String {
        String::from_utf8(self.body.clone()).unwrap()
    }

    fn header(&self, name: &str) -> Option<&str> {
        self.headers.iter().find(|(k, _)| k.eq_ignore_ascii_case(name)).map(|(_, v)| v.as_str())
    }
}

struct Conn {
    stream: BufReader<StreamOwned<ClientConnection, TcpStream>>,
    token: Option<String>,
}

fn connect(server: &TestApiServer, auth: Auth<'_>) -> Conn {
    let provider = Arc::new(rustls::crypto::ring::default_provider());
    let mut roots = RootCertStore::empty();
    roots.add(CertificateDer::from_pem_slice(server.ca_pem().as_bytes()).unwrap()).unwrap();
    let builder = ClientConfig::builder_with_provider(provider)
        .with_safe_default_protocol_versions()
        .unwrap()
        .with_root_certificates(roots);
    let (config, token) = match auth {
        Auth::Cert(user, groups) => {
            let (cert, key) = server.issue_client_cert(user, groups);
            let chain = vec![CertificateDer::from_pem_slice(cert.as_bytes()).unwrap()];
            let key = PrivateKeyDer::from_pem_slice(key.as_bytes()).unwrap();
            (builder.with_client_auth_cert(chain, key).unwrap(), None)
        }
        Auth::Token(t) => (builder.with_no_client_auth(), Some(t.to_string())),
        Auth::None => (builder.with_no_client_auth(), None),
    };
    let tcp = TcpStream::connect(("127.0.0.1", server.port())).unwrap();
    tcp.set_read_timeout(Some(Duration::from_secs(10))).unwrap();
    let conn = ClientConnection::new(Arc::new(config), ServerName::try_from("127.0.0.1").unwrap()).unwrap();
    Conn { stream: BufReader::new(StreamOwned::new(conn, tcp)), token }
}

impl Conn {
    fn send(&mut self, method: &str, path: &str, content_type: &str, body: &[u8]) {
        let mut req =
            format!("{method} {path} HTTP/1.1\r\nHost: 127.0.0.1\r\nUser-Agent: selftest/1.0\r\nAccept: application/json\r\n");
        if let Some(t) = &self.token {
            req.push_str(&format!("Authorization: Bearer {t}\r\n"));
        }
        if !body.is_empty() {
            req.push_str(&format!("Content-Type: {content_type}\r\nContent-Length: {}\r\n", body.len()));
        }
        req.push_str("\r\n");
        let mut bytes = req.into_bytes();
        bytes.extend_from_slice(body);
        let s = self.stream.get_mut();
        s.write_all(&bytes).unwrap();
        s.flush().unwrap();
    }

    fn line(&mut self) -> std::io::Result<String> {
        let mut l = String::new();
        if self.stream.read_line(&mut l)? == 0 {
            return Err(std::io::Error::new(std::io::ErrorKind::UnexpectedEof, "eof"));
        }
        Ok(l.trim_end_matches(['\r', '\n']).to_string())
    }

    fn head(&mut self) -> std::io::Result<(u16, Vec<(String, String)>)> {
        let status = self.line()?;
        let code = status.split_whitespace().nth(1).unwrap().parse().unwrap();
        let mut headers = Vec::new();
        loop {
            let h = self.line()?;
            if h.is_empty() {
                return Ok((code, headers));
            }
            let (k, v) = h.split_once(':').unwrap();
            headers.push((k.trim().to_string(), v.trim().to_string()));
        }
    }

    /// Next chunk of a chunked body; `Ok(None)` at the terminating chunk.
    fn chunk(&mut self) -> std::io::Result<Option<Vec<u8>>> {
        let size = usize::from_str_radix(&self.line()?, 16).unwrap();
        if size == 0 {
            self.line()?;
            return Ok(None);
        }
        let mut data = vec![0; size];
        self.stream.read_exact(&mut data)?;
        self.line()?;
        Ok(Some(data))
    }

    fn try_call(&mut self, method: &str, path: &str, content_type: &str, body: &[u8]) -> std::io::Result<Resp> {
        self.send(method, path, content_type, body);
        let (code, headers) = self.head()?;
        let len =
            headers.iter().find(|(k, _)| k.eq_ignore_ascii_case("content-length")).map(|(_, v)| v.parse::<usize>().unwrap());
        let mut body = Vec::new();
        match len {
            Some(n) => {
                body.resize(n, 0);
                self.stream.read_exact(&mut body)?;
            }
            None => {
                while let Some(c) = self.chunk()? {
                    body.extend_from_slice(&c);
                }
            }
        }
        Ok(Resp { code, headers, body })
    }

    fn call(&mut self, method: &str, path: &str, body: Option<&Value>) -> Resp {
        let bytes = body.map(|b| serde_json::to_vec(b).unwrap()).unwrap_or_default();
        self.try_call(method, path, "application/json", &bytes).unwrap()
    }

    fn patch(&mut self, path: &str, content_type: &str, body: &Value) -> Resp {
        self.try_call("PATCH", path, content_type, &serde_json::to_vec(body).unwrap()).unwrap()
    }

    /// Start a watch; returns the status code (the stream follows as chunks).
    fn watch(&mut self, path: &str) -> u16 {
        self.send("GET", path, "", b"");
        let (code, headers) = self.head().unwrap();
        assert!(headers.iter().any(|(k, v)| k == "Transfer-Encoding" && v == "chunked"), "{headers:?}");
        code
    }

    /// Next watch event (each chunk is exactly one line).
    fn event(&mut self) -> Option<Value> {
        let chunk = self.chunk().unwrap()?;
        assert_eq!(chunk.last(), Some(&b'\n'), "one event per chunk, newline-terminated");
        Some(serde_json::from_slice(&chunk).unwrap())
    }
}

fn fixture(path: &str) -> String {
    std::fs::read_to_string(format!("{}/tests/fixtures/{path}", env!("CARGO_MANIFEST_DIR"))).unwrap()
}

fn admin(server: &TestApiServer) -> Conn {
    connect(server, Auth::Cert("admin", &["system:masters"]))
}

const PODS: &str = "/api/v1/namespaces/default/pods";

// ---------------------------------------------------------------------------------------------
// Step 1: transport, authentication, CRUD, subresources, discovery
// ---------------------------------------------------------------------------------------------

#[test]
fn unauthenticated_requests_get_the_exact_401_body() {
    let server = TestApiServer::start();
    let r = connect(&server, Auth::None).call("GET", PODS, None);
    assert_eq!(r.code, 401);
    assert_eq!(r.text(), fixture("status/status-401-unauthorized.json"));
    assert_eq!(r.header("Content-Type"), Some("application/json"));
    assert_eq!(r.header("Content-Length"), Some("129"));
    let r = connect(&server, Auth::Token("unknown")).call("GET", PODS, None);
    assert_eq!(r.code, 401);
}

#[test]
fn identity_comes_from_the_client_certificate_or_the_token_table() {
    let server = TestApiServer::start();
    assert_eq!(connect(&server, Auth::Cert("system:kube-scheduler", &[])).call("GET", PODS, None).code, 200);
    server.add_token("s3cr3t", "bob", &["devs"]);
    let mut c = connect(&server, Auth::Token("s3cr3t"));
    assert_eq!(c.call("GET", "/api/v1/nodes", None).code, 200);
    let users: Vec<String> = server.requests().iter().map(|r| r.user.clone()).collect();
    assert_eq!(users, ["system:kube-scheduler", "bob"]);
    server.remove_token("s3cr3t");
    assert_eq!(c.call("GET", "/api/v1/nodes", None).code, 401, "same keep-alive connection, token revoked");
}

#[test]
fn kubeconfigs_work_with_the_crate_client_for_every_auth_mode() {
    use edgesched::kube::client::Client;
    use edgesched::kube::kubeconfig::load_kubeconfig;
    let server = TestApiServer::start();
    let dir = support::tempdir("selftest-kubeconfig");
    server.add_token("tok-1", "token-user", &[]);
    let token_file = dir.join("token");
    std::fs::write(&token_file, "tok-1\n").unwrap();
    for auth in [
        KubeAuth::ClientCert { user: "system:kube-scheduler".into() },
        KubeAuth::Token("tok-1".into()),
        KubeAuth::TokenFile(token_file),
    ] {
        let path = server.write_kubeconfig(&dir, auth.clone());
        let config = load_kubeconfig(&path, None).unwrap();
        let client = Client::new(&config, &Default::default()).unwrap();
        let ns: Value = client.get("/api/v1/namespaces/kube-system").unwrap();
        assert_eq!(ns["metadata"]["name"], "kube-system", "{auth:?}");
    }
}

#[test]
fn create_get_and_conflicts_use_real_status_bodies() {
    let server = TestApiServer::start();
    let mut c = admin(&server);
    let p = pod("default", "web").cpu("100m").build();
    let r = c.call("POST", PODS, Some(&p));
    assert_eq!(r.code, 201);
    assert!(r.body.ends_with(b"}\n"), "compact bodies end with a newline");
    let created = r.json();
    assert_eq!(created["kind"], "Pod");
    assert_eq!(created["apiVersion"], "v1");
    assert_eq!(created["metadata"]["uid"].as_str().unwrap().len(), 36);
    assert!(created["metadata"]["creationTimestamp"].as_str().unwrap().ends_with('Z'));
    assert_eq!(created["status"], json!({"phase": "Pending", "qosClass": "Burstable"}));
    assert_eq!(created["spec"]["schedulerName"], "default-scheduler");
    let r = c.call("POST", PODS, Some(&p));
    assert_eq!(r.code, 409);
    assert_eq!(r.json()["reason"], "AlreadyExists");
    assert_eq!(r.json()["message"], "pods \"web\" already exists");
    let got = c.call("GET", &format!("{PODS}/web"), None).json();
    assert_eq!(got, created);
    let r = c.call("GET", "/api/v1/namespaces/default/pods/nginx-ingress-controller-57f4b84b5-ldkk5", None);
    assert_eq!(r.code, 404);
    assert_eq!(r.text(), fixture("status/status-404-notfound-pod.json"));
    let r = c.call("POST", "/api/v1/namespaces/nowhere/pods", Some(&pod("nowhere", "x").build()));
    assert_eq!((r.code, r.json()["message"].clone()), (404, json!("namespaces \"nowhere\" not found")));
}

#[test]
fn lease_update_with_a_stale_resource_version_is_the_exact_409() {
    let server = TestApiServer::start();
    let mut c = admin(&server);
    let leases = "/apis/coordination.k8s.io/v1/namespaces/kube-system/leases";
    let lease = json!({"apiVersion": "coordination.k8s.io/v1", "kind": "Lease", "metadata": {"name": "abc"}, "spec": {"holderIdentity": "a", "leaseDurationSeconds": 15}});
    let v1 = c.call("POST", leases, Some(&lease)).json();
    let mut renewed = v1.clone();
    renewed["spec"]["holderIdentity"] = json!("b");
    let r = c.call("PUT", &format!("{leases}/abc"), Some(&renewed));
    assert_eq!(r.code, 200);
    assert_ne!(r.json()["metadata"]["resourceVersion"], v1["metadata"]["resourceVersion"]);
    let r = c.call("PUT", &format!("{leases}/abc"), Some(&v1));
    assert_eq!(r.code, 409);
    assert_eq!(r.text(), fixture("status/status-409-conflict-lease-object-modified.RECONSTRUCTED.json"));
}

#[test]
fn binding_sets_node_name_and_condition_and_conflicts_like_upstream() {
    let server = TestApiServer::start();
    let mut c = admin(&server);
    let name = "appupdate-5b8485cd6d-bz2gz";
    let created = server.create(PODS, pod("default", name).build());
    let binding = |uid: &Value, node: &str| json!({"kind": "Binding", "apiVersion": "v1", "metadata": {"name": name, "namespace": "default", "uid": uid}, "target": {"kind": "Node", "name": node}});
    let path = format!("{PODS}/{name}/binding");
    let r = c.call("POST", &path, Some(&binding(&json!("00000000-0000-4000-8000-000000000000"), "n1")));
    assert_eq!(r.code, 409, "uid precondition: {}", r.text());
    let node = "ip-192-168-157-11.us-west-2.compute.internal";
    let r = c.call("POST", &path, Some(&binding(&created["metadata"]["uid"], node)));
    assert_eq!(r.code, 201);
    assert_eq!(r.text(), "{\"kind\":\"Status\",\"apiVersion\":\"v1\",\"metadata\":{},\"status\":\"Success\",\"code\":201}\n");
    let bound = server.get(&format!("{PODS}/{name}")).unwrap();
    assert_eq!(bound["spec"]["nodeName"], node);
    assert_eq!(bound["status"]["conditions"][0]["type"], "PodScheduled");
    assert_eq!(bound["status"]["conditions"][0]["status"], "True");
    let r = c.call("POST", &path, Some(&binding(&created["metadata"]["uid"], "other")));
    assert_eq!(r.code, 409);
    assert_eq!(r.text(), fixture("status/status-409-conflict-binding-already-assigned.RECONSTRUCTED.json"));
    let r =
        c.call("POST", &format!("{PODS}/ghost/binding"), Some(&json!({"metadata": {"name": "ghost"}, "target": {"name": "n1"}})));
    assert_eq!(r.code, 404);
    assert_eq!((server.binding_attempts("default", name), server.bindings("default", name)), (3, 1));
    assert_eq!(server.bind("default", name, "n2"), Err(409));
}

#[test]
fn status_subresource_merges_conditions_by_type_and_main_resource_ignores_status() {
    let server = TestApiServer::start();
    let mut c = admin(&server);
    server.create(PODS, pod("default", "p").build());
    let status_path = format!("{PODS}/p/status");
    let smp = "application/strategic-merge-patch+json";
    let ready = json!({"status": {"conditions": [{"type": "Ready", "status": "False"}]}});
    assert_eq!(c.patch(&status_path, smp, &ready).code, 200);
    let unschedulable = json!({"status": {"$setElementOrder/conditions": [{"type": "PodScheduled"}], "conditions": [{"type": "PodScheduled", "status": "False", "reason": "Unschedulable", "message": "0/1 nodes are available"}]}});
    let r = c.patch(&status_path, smp, &unschedulable);
    let conditions = r.json()["status"]["conditions"].clone();
    assert_eq!(conditions.as_array().unwrap().len(), 2, "{conditions}");
    assert_eq!(conditions[1]["reason"], "Unschedulable");
    let r =
        c.patch(&status_path, smp, &json!({"status": {"conditions": [{"type": "PodScheduled", "reason": "SchedulerError"}]}}));
    assert_eq!(
        r.json()["status"]["conditions"][1],
        json!({"type": "PodScheduled", "status": "False", "reason": "SchedulerError", "message": "0/1 nodes are available"})
    );
    let r = c.patch(
        &format!("{PODS}/p"),
        "application/merge-patch+json",
        &json!({"metadata": {"labels": {"a": "b"}}, "status": {"phase": "Running"}}),
    );
    assert_eq!(
        (r.json()["metadata"]["labels"]["a"].clone(), r.json()["status"]["phase"].clone()),
        (json!("b"), json!("Pending"))
    );
    let ops = json!([{"op": "test", "path": "/metadata/labels/a", "value": "b"}, {"op": "add", "path": "/metadata/annotations", "value": {"x": "y"}}, {"op": "remove", "path": "/metadata/labels/a"}]);
    let r = c.patch(&format!("{PODS}/p"), "application/json-patch+json", &ops);
    assert_eq!(r.json()["metadata"]["annotations"], json!({"x": "y"}));
    assert_eq!(r.json()["metadata"]["labels"], json!({}));
    let r = c.patch(&format!("{PODS}/p"), "application/merge-patch+json", &json!({"spec": {"nodeName": "n1"}}));
    assert_eq!((r.code, r.json()["reason"].clone()), (422, json!("Invalid")), "pod spec is immutable");
    let r = c.patch(&format!("{PODS}/p"), "text/plain", &json!({}));
    assert_eq!(r.code, 415);
}

#[test]
fn no_op_writes_keep_the_resource_version() {
    let server = TestApiServer::start();
    let created = server.create(PODS, pod("default", "p").build());
    let rv = server.resource_version();
    let same = server.patch_merge(&format!("{PODS}/p"), json!({"metadata": {"labels": null}}));
    assert_eq!(same["metadata"]["resourceVersion"], created["metadata"]["resourceVersion"]);
    assert_eq!(server.resource_version(), rv);
}

#[test]
fn delete_honours_uid_preconditions_and_returns_what_upstream_returns() {
    let server = TestApiServer::start();
    let mut c = admin(&server);
    let created = server.create(PODS, pod("default", "p").build());
    let wrong = json!({"kind": "DeleteOptions", "apiVersion": "v1", "preconditions": {"uid": "nope"}});
    let r = c.call("DELETE", &format!("{PODS}/p"), Some(&wrong));
    assert_eq!(r.code, 409);
    assert!(r.json()["message"].as_str().unwrap().contains("Precondition failed: UID in precondition: nope"));
    let right = json!({"preconditions": {"uid": created["metadata"]["uid"]}});
    let r = c.call("DELETE", &format!("{PODS}/p"), Some(&right));
    assert_eq!((r.code, r.json()["kind"].clone()), (200, json!("Pod")), "pods return the deleted object");
    assert_eq!(c.call("DELETE", &format!("{PODS}/p"), None).code, 404);
    let cm = server.create("/api/v1/namespaces/default/configmaps", json!({"metadata": {"name": "c"}, "data": {}}));
    let r = c.call("DELETE", "/api/v1/namespaces/default/configmaps/c", None);
    let expected = json!({"kind": "Status", "apiVersion": "v1", "metadata": {}, "status": "Success", "details": {"name": "c", "kind": "configmaps", "uid": cm["metadata"]["uid"]}});
    assert_eq!(r.json(), expected);
}

#[test]
fn lists_omit_item_kinds_and_cover_all_namespaces() {
    let server = TestApiServer::start();
    let mut c = admin(&server);
    server.create(PODS, pod("default", "b").build());
    server.create(PODS, pod("default", "a").build());
    server.create("/api/v1/namespaces/team/pods", pod("team", "c").build());
    let r = c.call("GET", "/api/v1/pods", None);
    assert!(r.body.ends_with(b"]}\n"));
    let list = r.json();
    assert_eq!((list["kind"].clone(), list["apiVersion"].clone()), (json!("PodList"), json!("v1")));
    assert_eq!(list["metadata"]["resourceVersion"], server.resource_version().to_string());
    let names: Vec<&str> = list["items"].as_array().unwrap().iter().map(|i| i["metadata"]["name"].as_str().unwrap()).collect();
    assert_eq!(names, ["a", "b", "c"]);
    assert!(list["items"][0].get("kind").is_none() && list["items"][0].get("apiVersion").is_none());
    assert_eq!(c.call("GET", PODS, None).json()["items"].as_array().unwrap().len(), 2);
    let nodes = c.call("POST", "/api/v1/nodes", Some(&node("n1").cpu("2").build()));
    assert_eq!(nodes.code, 201);
    assert_eq!(c.call("GET", "/api/v1/nodes/n1/status", None).json()["status"]["allocatable"]["cpu"], "2");
}

#[test]
fn discovery_and_health_endpoints_answer() {
    let server = TestApiServer::start();
    let mut c = admin(&server);
    let api = c.call("GET", "/api", None).json();
    assert_eq!(api["versions"], json!(["v1"]));
    let v1 = c.call("GET", "/api/v1", None).json();
    let names: Vec<&str> = v1["resources"].as_array().unwrap().iter().map(|r| r["name"].as_str().unwrap()).collect();
    for want in ["pods", "pods/binding", "pods/status", "nodes", "nodes/status", "events", "namespaces"] {
        assert!(names.contains(&want), "{want} missing from {names:?}");
    }
    let groups = c.call("GET", "/apis", None).json();
    let gnames: Vec<&str> = groups["groups"].as_array().unwrap().iter().map(|g| g["name"].as_str().unwrap()).collect();
    for want in ["apps", "events.k8s.io", "coordination.k8s.io", "scheduling.k8s.io", "storage.k8s.io", "policy"] {
        assert!(gnames.contains(&want), "{want} missing");
    }
    let leases = c.call("GET", "/apis/coordination.k8s.io/v1", None).json();
    assert_eq!(leases["groupVersion"], "coordination.k8s.io/v1");
    assert_eq!(c.call("GET", "/version", None).json()["major"], "1");
    let h = c.call("GET", "/healthz", None);
    assert_eq!((h.code, h.text()), (200, "ok".to_string()));
    assert_eq!(c.call("GET", "/api/v1/widgets", None).code, 404);
}

#[test]
fn pretty_output_for_curl_like_clients() {
    let server = TestApiServer::start();
    let r = connect(&server, Auth::Cert("admin", &[])).call("GET", "/api/v1/namespaces/default/pods/x?pretty=true", None);
    assert!(r.text().starts_with("{\n  \"kind\": \"Status\",\n  \"apiVersion\": \"v1\","), "{}", r.text());
    assert!(!r.text().ends_with('\n'));
}

#[test]
fn generate_name_priority_classes_and_defaults() {
    let server = TestApiServer::start();
    server.create(
        "/apis/scheduling.k8s.io/v1/priorityclasses",
        json!({"metadata": {"name": "high"}, "value": 1000, "preemptionPolicy": "Never"}),
    );
    let p = server.create(PODS, json!({"metadata": {"generateName": "web-"}, "spec": {"priorityClassName": "high", "containers": [{"name": "c", "resources": {"limits": {"cpu": "1", "memory": "1Gi"}}}]}}));
    assert!(p["metadata"]["name"].as_str().unwrap().starts_with("web-"));
    assert_eq!((p["spec"]["priority"].clone(), p["spec"]["preemptionPolicy"].clone()), (json!(1000), json!("Never")));
    assert_eq!(p["spec"]["containers"][0]["resources"]["requests"], json!({"cpu": "1", "memory": "1Gi"}));
    assert_eq!(p["status"]["qosClass"], "Guaranteed");
    let tolerations = p["spec"]["tolerations"].as_array().unwrap();
    assert_eq!(tolerations.len(), 2, "not-ready and unreachable");
    let err = server.try_create(PODS, pod("default", "q").priority_class("missing").build()).unwrap_err();
    assert_eq!(err.code, 403);
    let running = server.create(PODS, pod("default", "r").node_name("n1").phase("Running").build());
    assert_eq!(running["status"]["phase"], "Running", "helper applies the kubelet-owned status");
}

// ---------------------------------------------------------------------------------------------
// Step 2: selectors, paging, watches
// ---------------------------------------------------------------------------------------------

fn names(list: &Value) -> Vec<String> {
    list["items"].as_array().unwrap().iter().map(|i| i["metadata"]["name"].as_str().unwrap().to_string()).collect()
}

#[test]
fn label_and_field_selectors_filter_lists() {
    let server = TestApiServer::start();
    let mut c = admin(&server);
    server.create(PODS, pod("default", "a").label("app", "web").label("tier", "fe").build());
    server.create(PODS, pod("default", "b").label("app", "db").node_name("n1").build());
    server.create(PODS, pod("default", "c").scheduler("edgesched").build());
    server.set_pod_phase("default", "b", "Succeeded");
    let q = |c: &mut Conn, query: &str| names(&c.call("GET", &format!("{PODS}?{query}"), None).json());
    assert_eq!(q(&mut c, "labelSelector=app%3Dweb"), ["a"]);
    assert_eq!(q(&mut c, "labelSelector=app%20in%20(web,db),tier"), ["a"]);
    assert_eq!(q(&mut c, "labelSelector=app%20notin%20(web)"), ["b", "c"]);
    assert_eq!(q(&mut c, "labelSelector=!tier,app!%3Ddb"), ["c"]);
    assert_eq!(q(&mut c, "fieldSelector=spec.nodeName%3D"), ["a", "c"]);
    assert_eq!(q(&mut c, "fieldSelector=spec.schedulerName%3D%3Dedgesched,metadata.namespace%3Ddefault"), ["c"]);
    assert_eq!(q(&mut c, "fieldSelector=status.phase!%3DSucceeded,status.phase!%3DFailed"), ["a", "c"]);
    assert_eq!(q(&mut c, "fieldSelector=metadata.name%3Db"), ["b"]);
    assert_eq!(server.list("/api/v1/pods?fieldSelector=spec.nodeName%3Dn1").len(), 1);
}

#[test]
fn pagination_is_a_consistent_snapshot_and_expires_with_410() {
    let server = TestApiServer::start();
    let mut c = admin(&server);
    for i in 0..5 {
        server.create(PODS, pod("default", &format!("p{i}")).build());
    }
    let first = c.call("GET", &format!("{PODS}?limit=2"), None).json();
    assert_eq!(names(&first), ["p0", "p1"]);
    assert_eq!(first["metadata"]["remainingItemCount"], 3);
    let token = first["metadata"]["continue"].as_str().unwrap().to_string();
    server.delete(&format!("{PODS}/p2"));
    server.create(PODS, pod("default", "p25").build());
    let second = c.call("GET", &format!("{PODS}?limit=2&continue={token}"), None).json();
    assert_eq!(names(&second), ["p2", "p3"], "snapshot at the first page's version");
    assert_eq!(second["metadata"]["resourceVersion"], first["metadata"]["resourceVersion"]);
    let token2 = second["metadata"]["continue"].as_str().unwrap().to_string();
    let third = c.call("GET", &format!("{PODS}?limit=2&continue={token2}"), None).json();
    assert_eq!(names(&third), ["p4"]);
    assert!(third["metadata"].get("continue").is_none());
    server.compact();
    let r = c.call("GET", &format!("{PODS}?limit=2&continue={token2}"), None);
    assert_eq!(r.code, 410);
    let status = r.json();
    let expected: Value = serde_json::from_str(&fixture("status/status-410-expired-continue-token.json")).unwrap();
    assert_eq!((status["reason"].clone(), status["message"].clone()), (expected["reason"].clone(), expected["message"].clone()));
    let fresh = status["metadata"]["continue"].as_str().unwrap();
    let rest = c.call("GET", &format!("{PODS}?limit=10&continue={fresh}"), None).json();
    assert_eq!(names(&rest), ["p4"], "the fresh token continues inconsistently from the same key");
}

#[test]
fn watch_streams_changes_and_resumes_from_a_resource_version() {
    let server = TestApiServer::start();
    let mut c = admin(&server);
    let created = server.create(PODS, pod("default", "p").build());
    let rv = created["metadata"]["resourceVersion"].as_str().unwrap().to_string();
    server.patch_merge(&format!("{PODS}/p"), json!({"metadata": {"labels": {"x": "1"}}}));
    server.delete(&format!("{PODS}/p"));
    assert_eq!(c.watch(&format!("{PODS}?watch=1&resourceVersion={rv}")), 200);
    let modified = c.event().unwrap();
    assert_eq!((modified["type"].as_str(), modified["object"]["kind"].as_str()), (Some("MODIFIED"), Some("Pod")));
    let deleted = c.event().unwrap();
    assert_eq!(deleted["type"], "DELETED");
    assert_eq!(
        deleted["object"]["metadata"]["resourceVersion"],
        server.resource_version().to_string(),
        "last state, new version"
    );
    server.create(PODS, pod("default", "q").build());
    assert_eq!(c.event().unwrap()["type"], "ADDED");
}

#[test]
fn watch_from_zero_sends_the_current_state_and_initial_events_end_bookmark() {
    let server = TestApiServer::start();
    server.create(PODS, pod("default", "a").build());
    server.create(PODS, pod("default", "b").build());
    let mut c = admin(&server);
    c.watch(&format!(
        "{PODS}?allowWatchBookmarks=true&resourceVersion=0&resourceVersionMatch=NotOlderThan&sendInitialEvents=true&watch=true"
    ));
    assert_eq!(c.event().unwrap()["object"]["metadata"]["name"], "a");
    assert_eq!(c.event().unwrap()["object"]["metadata"]["name"], "b");
    let bookmark = c.event().unwrap();
    let expected: Value =
        serde_json::from_str(&fixture("watch/watch-event-bookmark-initial-events-end-kind-v1.36.json")).unwrap();
    let mut want = expected.clone();
    want["object"]["metadata"]["resourceVersion"] = json!(server.resource_version().to_string());
    assert_eq!(bookmark, want);
}

#[test]
fn selector_transitions_turn_into_added_and_deleted() {
    let server = TestApiServer::start();
    server.create(PODS, pod("default", "p").node_name("n1").build());
    let mut c = admin(&server);
    let rv = server.resource_version();
    c.watch(&format!(
        "/api/v1/pods?watch=true&resourceVersion={rv}&fieldSelector=status.phase%21%3DSucceeded%2Cstatus.phase%21%3DFailed"
    ));
    server.set_pod_phase("default", "p", "Running");
    assert_eq!(c.event().unwrap()["type"], "MODIFIED");
    server.set_pod_phase("default", "p", "Succeeded");
    let gone = c.event().unwrap();
    assert_eq!(gone["type"], "DELETED");
    assert_eq!(gone["object"]["status"]["phase"], "Running", "previous state ...");
    assert_eq!(gone["object"]["metadata"]["resourceVersion"], server.resource_version().to_string(), "... at the new version");
    server.set_pod_phase("default", "p", "Pending");
    assert_eq!(c.event().unwrap()["type"], "ADDED");
}

#[test]
fn bookmarks_arrive_periodically_and_timeout_ends_cleanly() {
    let server = TestApiServer::start();
    server.set_bookmark_interval(Duration::from_millis(100));
    let mut c = admin(&server);
    let rv = server.resource_version();
    c.watch(&format!("/api/v1/nodes?watch=1&allowWatchBookmarks=true&resourceVersion={rv}&timeoutSeconds=1"));
    let b = c.event().unwrap();
    assert_eq!(b["type"], "BOOKMARK");
    assert_eq!(
        b["object"],
        json!({"kind": "Node", "apiVersion": "v1", "metadata": {"resourceVersion": rv.to_string()}, "spec": {}, "status": {}})
    );
    while let Some(e) = c.event() {
        assert_eq!(e["type"], "BOOKMARK");
    }
    assert_eq!(c.call("GET", "/api/v1/nodes", None).code, 200, "connection stays usable after the stream ends");
}

#[test]
fn watch_from_a_compacted_version_gets_one_410_error_event() {
    let server = TestApiServer::start_with(support::ServerOptions { history_window: 2, ..Default::default() });
    let old = server.resource_version();
    for i in 0..4 {
        server.create(PODS, pod("default", &format!("p{i}")).build());
    }
    let mut c = admin(&server);
    assert_eq!(c.watch(&format!("{PODS}?watch=1&resourceVersion={old}")), 200);
    let err = c.event().unwrap();
    let oldest = server.resource_version() - 1;
    let expected = format!(
        "{{\"type\":\"ERROR\",\"object\":{{\"kind\":\"Status\",\"apiVersion\":\"v1\",\"metadata\":{{}},\"status\":\"Failure\",\"message\":\"too old resource version: {old} ({oldest})\",\"reason\":\"Expired\",\"code\":410}}}}"
    );
    assert_eq!(serde_json::to_string(&err).unwrap().len(), expected.len());
    assert_eq!(err, serde_json::from_str::<Value>(&expected).unwrap());
    assert!(c.event().is_none(), "stream ends after the error");
    let shape: Value = serde_json::from_str(fixture("watch/watch-error-410-expired.jsonl").lines().next().unwrap()).unwrap();
    assert_eq!(shape["object"]["reason"], err["object"]["reason"]);
}

// ---------------------------------------------------------------------------------------------
// Step 3: faults, reviews, inspection
// ---------------------------------------------------------------------------------------------

use support::Failure;

#[test]
fn injected_429s_carry_retry_after_in_json_or_plain_text() {
    let server = TestApiServer::start();
    let mut c = admin(&server);
    server.fail_next(1, "GET", "/api/v1/nodes", Failure::TooManyRequests { retry_after: 3 });
    server.fail_next(1, "*", "/api/v1/nodes", Failure::ApfTooManyRequests { retry_after: 2 });
    let r = c.call("GET", "/api/v1/nodes", None);
    assert_eq!((r.code, r.header("Retry-After")), (429, Some("3")));
    let expected = fixture("status/status-429-storage-reinitializing.RECONSTRUCTED.json")
        .replace("\"retryAfterSeconds\":1", "\"retryAfterSeconds\":3");
    assert_eq!(r.text().trim_end(), expected.trim_end());
    let r = c.call("GET", "/api/v1/nodes", None);
    assert_eq!((r.code, r.header("Retry-After"), r.header("Content-Type")), (429, Some("2"), Some("text/plain; charset=utf-8")));
    assert_eq!(r.text(), fixture("status/http-429-apf-too-many-requests.body.txt"));
    assert_eq!(c.call("GET", "/api/v1/nodes", None).code, 200, "only the next N fail");
}

#[test]
fn injected_500_503_and_random_failures() {
    let server = TestApiServer::start();
    let mut c = admin(&server);
    server.fail_next(2, "POST", "/binding", Failure::Status(500));
    server.create(PODS, pod("default", "p").build());
    let bind = json!({"metadata": {"name": "p"}, "target": {"name": "n1"}});
    let r = c.call("POST", &format!("{PODS}/p/binding"), Some(&bind));
    assert_eq!((r.code, r.json()["reason"].clone()), (500, json!("InternalError")));
    assert_eq!(c.call("GET", &format!("{PODS}/p"), None).code, 200, "method must match");
    assert_eq!(c.call("POST", &format!("{PODS}/p/binding"), Some(&bind)).code, 500);
    assert_eq!(c.call("POST", &format!("{PODS}/p/binding"), Some(&bind)).code, 201);
    server.set_failure_rate(1.0, "", "/api/v1/nodes", Failure::Status(503), 7);
    let r = c.call("GET", "/api/v1/nodes", None);
    assert_eq!((r.code, r.json()["reason"].clone()), (503, json!("ServiceUnavailable")));
    server.clear_faults();
    server.set_failure_rate(0.5, "GET", "/api/v1/nodes", Failure::Status(500), 42);
    let codes: Vec<u16> = (0..40).map(|_| c.call("GET", "/api/v1/nodes", None).code).collect();
    assert!(codes.contains(&500) && codes.contains(&200), "{codes:?}");
}

#[test]
fn dropped_watches_end_without_a_terminating_chunk() {
    let server = TestApiServer::start();
    let mut c = admin(&server);
    c.watch("/api/v1/pods?watch=1&resourceVersion=0");
    support::wait_until(Duration::from_secs(5), "watch to start", || server.active_watches() == 1).unwrap();
    server.drop_watches();
    assert!(c.chunk().is_err(), "abrupt close, no 0-length chunk");
    support::wait_until(Duration::from_secs(5), "watch to end", || server.active_watches() == 0).unwrap();
}

#[test]
fn stalled_watches_stay_open_but_silent() {
    let server = TestApiServer::start();
    let mut c = admin(&server);
    c.watch(&format!("/api/v1/pods?watch=1&resourceVersion={}", server.resource_version()));
    support::wait_until(Duration::from_secs(5), "watch to start", || server.active_watches() == 1).unwrap();
    server.stall_watches(true);
    server.create(PODS, pod("default", "p").build());
    c.stream.get_ref().sock.set_read_timeout(Some(Duration::from_millis(300))).unwrap();
    let err = c.chunk().unwrap_err();
    assert!(matches!(err.kind(), std::io::ErrorKind::WouldBlock | std::io::ErrorKind::TimedOut), "{err}");
    c.stream.get_ref().sock.set_read_timeout(Some(Duration::from_secs(10))).unwrap();
    server.stall_watches(false);
    assert_eq!(c.event().unwrap()["type"], "ADDED");
}

#[test]
fn truncated_responses_declare_the_full_length_then_close() {
    let server = TestApiServer::start();
    let mut c = admin(&server);
    server.truncate_next(1, "/api/v1/namespaces");
    let err = c.try_call("GET", "/api/v1/namespaces", "", b"").err().expect("body must be cut short");
    assert_eq!(err.kind(), std::io::ErrorKind::UnexpectedEof);
    let mut c = admin(&server);
    assert_eq!(c.call("GET", "/api/v1/namespaces", None).code, 200);
}

#[test]
fn restart_on_the_same_port_keeps_the_store() {
    let server = TestApiServer::start();
    let port = server.port();
    server.create(PODS, pod("default", "survivor").build());
    let mut watcher = admin(&server);
    watcher.watch("/api/v1/pods?watch=1&resourceVersion=0");
    assert_eq!(watcher.event().unwrap()["object"]["metadata"]["name"], "survivor");
    server.stop();
    assert!(watcher.chunk().is_err(), "streams end with the server");
    assert!(TcpStream::connect(("127.0.0.1", port)).is_err(), "listener closed");
    server.restart();
    assert_eq!(server.port(), port);
    let r = admin(&server).call("GET", &format!("{PODS}/survivor"), None);
    assert_eq!(r.code, 200);
}

#[test]
fn token_review_and_subject_access_review() {
    let server = TestApiServer::start();
    server.add_token("good", "jane", &["devs"]);
    server.allow_non_resource("prometheus", "/metrics");
    let mut c = admin(&server);
    let review = |token: &str| json!({"apiVersion": "authentication.k8s.io/v1", "kind": "TokenReview", "spec": {"token": token, "audiences": ["api"]}});
    let r = c.call("POST", "/apis/authentication.k8s.io/v1/tokenreviews", Some(&review("good")));
    assert_eq!(r.code, 201);
    let status = &r.json()["status"];
    assert_eq!(status["authenticated"], true);
    assert_eq!(status["user"]["username"], "jane");
    assert_eq!(status["user"]["groups"], json!(["devs", "system:authenticated"]));
    assert_eq!(status["audiences"], json!(["api"]));
    let status = c.call("POST", "/apis/authentication.k8s.io/v1/tokenreviews", Some(&review("bad"))).json()["status"].clone();
    assert!(status.get("authenticated").is_none() && status["error"].is_string());
    let sar = |user: &str, path: &str| json!({"apiVersion": "authorization.k8s.io/v1", "kind": "SubjectAccessReview", "spec": {"user": user, "groups": ["system:authenticated"], "nonResourceAttributes": {"path": path, "verb": "get"}}});
    let allowed = |c: &mut Conn, user: &str, path: &str| {
        c.call("POST", "/apis/authorization.k8s.io/v1/subjectaccessreviews", Some(&sar(user, path))).json()["status"]["allowed"]
            .clone()
    };
    assert_eq!(allowed(&mut c, "prometheus", "/metrics"), true);
    assert_eq!(allowed(&mut c, "prometheus", "/debug/pprof"), false);
    assert_eq!(allowed(&mut c, "mallory", "/metrics"), false);
}

#[test]
fn request_log_and_events_from_both_apis() {
    let server = TestApiServer::start();
    let mut c = admin(&server);
    let core = json!({"metadata": {"name": "p.1"}, "involvedObject": {"kind": "Pod", "name": "p"}, "reason": "Scheduled", "type": "Normal"});
    let new = json!({"metadata": {"name": "p.2"}, "regarding": {"kind": "Pod", "name": "p"}, "reason": "Scheduled", "type": "Normal", "eventTime": "2025-09-11T20:39:39.123456Z", "reportingController": "edgesched", "reportingInstance": "edgesched-1", "action": "Binding"});
    assert_eq!(c.call("POST", "/api/v1/namespaces/default/events", Some(&core)).code, 201);
    assert_eq!(c.call("POST", "/apis/events.k8s.io/v1/namespaces/default/events", Some(&new)).code, 201);
    let kinds: Vec<String> = server.events("default").iter().map(|e| e["apiVersion"].as_str().unwrap().to_string()).collect();
    assert_eq!(kinds, ["v1", "events.k8s.io/v1"]);
    assert_eq!(server.requests_matching("POST", "/events"), 2);
    assert_eq!(server.requests_matching("", "events.k8s.io"), 1);
    let last = server.requests().last().unwrap().clone();
    assert_eq!((last.code, last.user.as_str()), (201, "admin"));
}

#[test]
fn graceful_pod_deletion_marks_bound_pods_terminating() {
    let server = TestApiServer::start_with(support::ServerOptions { graceful_pod_deletion: true, ..Default::default() });
    let mut c = admin(&server);
    server.create(PODS, pod("default", "p").node_name("n1").build());
    let r = c.call("DELETE", &format!("{PODS}/p"), None);
    assert!(r.json()["metadata"]["deletionTimestamp"].is_string());
    let bind = json!({"metadata": {"name": "p"}, "target": {"name": "n2"}});
    let r = c.call("POST", &format!("{PODS}/p/binding"), Some(&bind));
    assert_eq!(
        r.json()["message"],
        "Operation cannot be fulfilled on pods/binding \"p\": pod p is being deleted, cannot be assigned to a host"
    );
    assert!(server.delete(&format!("{PODS}/p")));
    assert_eq!(c.call("POST", &format!("{PODS}/p/binding"), Some(&bind)).code, 404);
}

#[test]
fn option_combinations_the_real_server_rejects_get_422() {
    let server = TestApiServer::start();
    let mut c = admin(&server);
    let r = c.call("GET", &format!("{PODS}?sendInitialEvents=true"), None);
    assert_eq!(r.code, 422);
    assert_eq!(
        r.json()["message"],
        "ListOptions.meta.k8s.io \"\" is invalid: sendInitialEvents: Forbidden: sendInitialEvents is forbidden for list"
    );
    assert_eq!(
        r.json()["details"]["causes"][0],
        json!({"reason": "FieldValueForbidden", "message": "Forbidden: sendInitialEvents is forbidden for list", "field": "sendInitialEvents"})
    );
    let r = c.call("GET", &format!("{PODS}?watch=1&sendInitialEvents=true"), None);
    assert_eq!(r.code, 422, "sendInitialEvents needs resourceVersionMatch=NotOlderThan");
    let r = c.call("GET", &format!("{PODS}?watch=1&resourceVersionMatch=NotOlderThan"), None);
    assert_eq!(r.code, 422);
    assert_eq!(c.call("GET", &format!("{PODS}?resourceVersion=0&resourceVersionMatch=NotOlderThan"), None).code, 200);
}

#[test]
fn the_crate_client_pages_watches_and_sees_retry_after() {
    use edgesched::kube::client::{Client, ClientOptions, ListParams, WatchEvent, WatchParams};
    use edgesched::kube::kubeconfig::load_kubeconfig;
    let server = TestApiServer::start();
    server.set_bookmark_interval(Duration::from_millis(50));
    let dir = support::tempdir("selftest-client");
    let config =
        load_kubeconfig(&server.write_kubeconfig(&dir, KubeAuth::ClientCert { user: "edgesched".into() }), None).unwrap();
    let options = ClientOptions { max_retries: 0, ..Default::default() };
    let client = Client::new(&config, &options).unwrap();
    for i in 0..3 {
        server.create(PODS, pod("default", &format!("p{i}")).build());
    }
    let page = client.list::<Value>("/api/v1/pods", &ListParams { limit: Some(2), ..Default::default() }).unwrap();
    assert_eq!((page.items.len(), page.metadata.remaining_item_count), (2, Some(1)));
    let rest = client
        .list::<Value>(
            "/api/v1/pods",
            &ListParams { limit: Some(2), continue_token: Some(page.metadata.continue_token), ..Default::default() },
        )
        .unwrap();
    assert_eq!(rest.items.len(), 1);
    let params = WatchParams {
        resource_version: page.metadata.resource_version.clone(),
        allow_watch_bookmarks: true,
        timeout_seconds: Some(2),
        ..Default::default()
    };
    let mut stream = client.watch::<Value>("/api/v1/pods", &params).unwrap();
    server.set_pod_phase("default", "p1", "Running");
    let mut saw_modified = false;
    let mut saw_bookmark = false;
    for event in stream.by_ref() {
        match event.unwrap() {
            WatchEvent::Modified(p) => saw_modified |= p["metadata"]["name"] == "p1",
            WatchEvent::Bookmark { resource_version } => saw_bookmark |= !resource_version.is_empty(),
            other => panic!("unexpected {other:?}"),
        }
        if saw_modified && saw_bookmark {
            break;
        }
    }
    assert!(saw_modified && saw_bookmark);
    server.fail_next(1, "GET", "/api/v1/nodes", Failure::TooManyRequests { retry_after: 4 });
    let err = client.get::<Value>("/api/v1/nodes").unwrap_err();
    assert_eq!((err.code(), err.retry_after()), (Some(429), Some(Duration::from_secs(4))));
}
