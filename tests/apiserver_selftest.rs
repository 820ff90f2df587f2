//! Self-test of the in-memory API server used by the end-to-end tests: it must answer exactly
//! like a real kube-apiserver on the wire, so each test pins one behaviour against a captured
//! fixture (tests/fixtures/, see README.md) or the upstream semantics.

mod support;

use serde_json::{json, Value};
use std::net::TcpStream;
use std::time::Duration;
use support::objects::{node, pod};
use support::raw_http::{admin, connect, forbidden_body, Auth, Conn};
use support::{Authorization, DefaultRoles, KubeAuth, ServerOptions, TestApiServer};

fn fixture(path: &str) -> String {
    std::fs::read_to_string(format!("{}/tests/fixtures/{path}", env!("CARGO_MANIFEST_DIR"))).unwrap()
}

const PODS: &str = "/api/v1/namespaces/default/pods";

// ---------------------------------------------------------------------------------------------
// Step 1: transport, authentication, CRUD, subresources, discovery
// ---------------------------------------------------------------------------------------------

#[test]
fn unauthenticated_requests_get_the_exact_401_body() {
    let server = TestApiServer::start_with(ServerOptions { anonymous_auth: false, ..Default::default() });
    let r = connect(&server, Auth::None).call("GET", PODS, None);
    assert_eq!(r.code, 401, "no credentials and anonymous auth off");
    assert_eq!(r.text(), fixture("status/status-401-unauthorized.json"));
    assert_eq!(r.header("Content-Type"), Some("application/json"));
    assert_eq!(r.header("Content-Length"), Some("129"));
    let server = TestApiServer::start();
    let r = connect(&server, Auth::Token("unknown")).call("GET", PODS, None);
    assert_eq!(r.code, 401, "a bad token is never anonymous");
    assert_eq!(r.text(), fixture("status/status-401-unauthorized.json"));
}

#[test]
fn identity_comes_from_the_client_certificate_or_the_token_table() {
    let server = TestApiServer::start();
    assert_eq!(connect(&server, Auth::Cert("system:kube-scheduler", &[])).call("GET", PODS, None).code, 200);
    server.add_token("s3cr3t", "bob", &["devs"]);
    server.grant_cluster_admin("bob");
    let mut c = connect(&server, Auth::Token("s3cr3t"));
    assert_eq!(c.call("GET", "/api/v1/nodes", None).code, 200);
    let users: Vec<String> = server.requests().iter().map(|r| r.user.clone()).collect();
    assert_eq!(users, ["system:kube-scheduler", "bob"]);
    server.remove_token("s3cr3t");
    assert_eq!(c.call("GET", "/api/v1/nodes", None).code, 401, "same keep-alive connection, token revoked");
}

#[test]
fn kubeconfigs_work_with_the_crate_client_for_every_auth_mode() {
    use edgesched::shell::kube::client::Client;
    use edgesched::shell::kube::kubeconfig::load_kubeconfig;
    let server = TestApiServer::start();
    let dir = support::tempdir("selftest-kubeconfig");
    server.add_token("tok-1", "token-user", &[]);
    server.grant_cluster_admin("token-user");
    let token_file = dir.join("token");
    std::fs::write(&token_file, "tok-1\n").unwrap();
    for auth in [
        KubeAuth::ClientCert { user: "system:kube-scheduler".into() },
        KubeAuth::ClientCertWithGroups { user: "ops".into(), groups: vec!["system:masters".into()] },
        KubeAuth::Token("tok-1".into()),
        KubeAuth::TokenFile(token_file),
    ] {
        let path = server.write_kubeconfig(&dir, auth.clone());
        let config = load_kubeconfig(&path, None).unwrap();
        let client = Client::new(&config, &Default::default()).unwrap();
        let ns: Value = client.get("/api/v1/namespaces/kube-system").unwrap();
        assert_eq!(ns["metadata"]["name"], "kube-system", "{auth:?}");
    }
    let _ = std::fs::remove_dir_all(&dir);
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
fn binding_clears_the_nominated_node_as_v1_35_does() {
    // KEP-5278 / ClearingNominatedNodeNameAfterBinding (beta, on in v1.35's kube-apiserver).
    let server = TestApiServer::start();
    server.create(PODS, pod("default", "p").build());
    server.patch_merge(&format!("{PODS}/p/status"), json!({"status": {"nominatedNodeName": "n1"}}));
    assert_eq!(server.get(&format!("{PODS}/p")).unwrap()["status"]["nominatedNodeName"], "n1");
    assert_eq!(server.bind("default", "p", "n2"), Ok(()));
    let bound = server.get(&format!("{PODS}/p")).unwrap();
    assert_eq!(bound["spec"]["nodeName"], "n2");
    assert!(bound["status"].get("nominatedNodeName").is_none(), "{bound}");
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
    let r = admin(&server).call("GET", "/api/v1/namespaces/default/pods/x?pretty=true", None);
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
fn list_pages_are_the_objects_as_get_writes_them_and_follow_writes() {
    // Pages are put together from cached item encodings: byte for byte what encoding the list
    // document gives, i.e. each item is the object's GET body without `kind` and `apiVersion`.
    let server = TestApiServer::start();
    let mut c = admin(&server);
    for i in 0..3 {
        server.create(PODS, pod("default", &format!("p{i}")).cpu("100m").label("app", "web").build());
    }
    let item = |c: &mut Conn, name: &str| {
        let body = c.call("GET", &format!("{PODS}/{name}"), None).text();
        let rest = body.trim_end().strip_prefix(r#"{"kind":"Pod","apiVersion":"v1","#).expect("kind first").to_string();
        format!("{{{rest}")
    };
    for round in 0..2 {
        if round == 1 {
            server.patch_merge(&format!("{PODS}/p1"), json!({"metadata": {"labels": {"app": "db"}}}));
        }
        let rv = server.resource_version();
        let first = c.call("GET", &format!("{PODS}?limit=2"), None).text();
        let token = serde_json::from_str::<Value>(&first).unwrap()["metadata"]["continue"].as_str().unwrap().to_string();
        let expected = format!(
            "{{\"kind\":\"PodList\",\"apiVersion\":\"v1\",\"metadata\":{{\"resourceVersion\":\"{rv}\",\"continue\":\"{token}\",\"remainingItemCount\":1}},\"items\":[{},{}]}}\n",
            item(&mut c, "p0"),
            item(&mut c, "p1")
        );
        assert_eq!(first, expected);
        let last = c.call("GET", &format!("{PODS}?limit=2&continue={token}"), None).text();
        let expected = format!(
            "{{\"kind\":\"PodList\",\"apiVersion\":\"v1\",\"metadata\":{{\"resourceVersion\":\"{rv}\"}},\"items\":[{}]}}\n",
            item(&mut c, "p2")
        );
        assert_eq!(last, expected);
    }
    let db = c.call("GET", &format!("{PODS}?labelSelector=app%3Ddb"), None).json();
    assert_eq!(names(&db), ["p1"]);
    let empty = c.call("GET", "/api/v1/namespaces/none/pods", None).text();
    assert_eq!(
        empty,
        format!(
            "{{\"kind\":\"PodList\",\"apiVersion\":\"v1\",\"metadata\":{{\"resourceVersion\":\"{}\"}},\"items\":[]}}\n",
            server.resource_version()
        )
    );
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
    let server = TestApiServer::start_with(ServerOptions { history_window: 2, ..Default::default() });
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
    let server = TestApiServer::start_with(ServerOptions { graceful_pod_deletion: true, ..Default::default() });
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
    use edgesched::core::api;
    use edgesched::shell::kube::client::{Client, ClientOptions};
    use edgesched::shell::kube::kubeconfig::load_kubeconfig;
    use edgesched::shell::kube::query::{ListParams, WatchParams};
    use edgesched::shell::kube::watch_stream::WatchEvent;
    let server = TestApiServer::start();
    server.set_bookmark_interval(Duration::from_millis(50));
    // The user gets the default scheduler's permissions, which cover everything used below.
    server.apply_yaml(
        "apiVersion: rbac.authorization.k8s.io/v1\nkind: ClusterRoleBinding\nmetadata:\n  name: edgesched\nroleRef:\n  apiGroup: rbac.authorization.k8s.io\n  kind: ClusterRole\n  name: system:kube-scheduler\nsubjects:\n- kind: User\n  name: edgesched\n",
    );
    let dir = support::tempdir("selftest-client");
    let config =
        load_kubeconfig(&server.write_kubeconfig(&dir, KubeAuth::ClientCert { user: "edgesched".into() }), None).unwrap();
    let options = ClientOptions { max_retries: 0, ..Default::default() };
    let client = Client::new(&config, &options).unwrap();
    for i in 0..3 {
        server.create(PODS, pod("default", &format!("p{i}")).build());
    }
    let page = client.list::<api::Pod>("/api/v1/pods", &ListParams { limit: Some(2), ..Default::default() }).unwrap();
    assert_eq!((page.items.len(), page.metadata.remaining_item_count), (2, Some(1)));
    let rest = client
        .list::<api::Pod>(
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
    let mut stream = client.watch::<api::Pod>("/api/v1/pods", &params).unwrap();
    server.set_pod_phase("default", "p1", "Running");
    let mut saw_modified = false;
    let mut saw_bookmark = false;
    for event in stream.by_ref() {
        match event.unwrap() {
            WatchEvent::Modified(p) => saw_modified |= p.metadata.name == "p1",
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
    let _ = std::fs::remove_dir_all(&dir);
}

// ---------------------------------------------------------------------------------------------
// Step 4: authorization (RBAC with upstream's default roles, anonymous requests, reviews)
// ---------------------------------------------------------------------------------------------

const LEASES: &str = "/apis/coordination.k8s.io/v1/namespaces/kube-system/leases";

fn lease(name: &str) -> Value {
    json!({"apiVersion": "coordination.k8s.io/v1", "kind": "Lease", "metadata": {"name": name}, "spec": {"holderIdentity": "a", "leaseDurationSeconds": 15}})
}

fn binding_body(name: &str, node: &str) -> Value {
    json!({"kind": "Binding", "apiVersion": "v1", "metadata": {"name": name}, "target": {"kind": "Node", "name": node}})
}

#[test]
fn a_user_without_bindings_gets_the_exact_403_bodies() {
    let server = TestApiServer::start();
    server.create(PODS, pod("default", "p").build());
    let mut c = connect(&server, Auth::Cert("u", &[]));
    let r = c.call("GET", &format!("{LEASES}/x"), None);
    assert_eq!((r.code, r.header("Content-Type")), (403, Some("application/json")));
    assert_eq!(r.header("X-Content-Type-Options"), Some("nosniff"));
    assert_eq!(
        r.text(),
        forbidden_body(
            "leases.coordination.k8s.io \"x\" is forbidden: User \"u\" cannot get resource \"leases\" in API group \"coordination.k8s.io\" in the namespace \"kube-system\"",
            r#"{"name":"x","group":"coordination.k8s.io","kind":"leases"}"#
        )
    );
    let r = c.call("GET", "/apis/scheduling.k8s.io/v1/priorityclasses", None);
    assert_eq!(
        r.text(),
        forbidden_body(
            "priorityclasses.scheduling.k8s.io is forbidden: User \"u\" cannot list resource \"priorityclasses\" in API group \"scheduling.k8s.io\" at the cluster scope",
            r#"{"group":"scheduling.k8s.io","kind":"priorityclasses"}"#
        )
    );
    let r = c.call("GET", "/api/v1/pods?watch=true&resourceVersion=0", None);
    assert_eq!(r.code, 403, "a refused watch is a plain response, not a stream");
    assert!(r.header("Transfer-Encoding").is_none() && r.header("Content-Length").is_some());
    assert_eq!(
        r.json()["message"],
        "pods is forbidden: User \"u\" cannot watch resource \"pods\" in API group \"\" at the cluster scope"
    );
    let r = c.call("POST", &format!("{PODS}/p/binding"), Some(&binding_body("p", "n1")));
    assert_eq!(
        r.text(),
        forbidden_body(
            "pods \"p\" is forbidden: User \"u\" cannot create resource \"pods/binding\" in API group \"\" in the namespace \"default\"",
            r#"{"name":"p","kind":"pods"}"#
        )
    );
    let status = json!({"status": {"conditions": [{"type": "PodScheduled", "status": "False"}]}});
    let r = c.patch(&format!("{PODS}/p/status"), "application/strategic-merge-patch+json", &status);
    assert_eq!(
        r.json()["message"],
        "pods \"p\" is forbidden: User \"u\" cannot patch resource \"pods/status\" in API group \"\" in the namespace \"default\""
    );
    let r = c.call("GET", "/metrics", None);
    assert_eq!(r.text(), forbidden_body("forbidden: User \"u\" cannot get path \"/metrics\"", "{}"));
    assert_eq!(c.call("GET", "/healthz", None).code, 200, "system:public-info-viewer");
    assert_eq!(c.call("GET", "/apis", None).code, 200, "system:discovery");
    assert_eq!(server.get(&format!("{PODS}/p")).unwrap()["spec"].get("nodeName"), None, "nothing was bound");
    let refused: Vec<(String, String)> = server.forbidden_requests().iter().map(|r| (r.method.clone(), r.path.clone())).collect();
    assert_eq!(
        refused,
        [
            ("GET".to_string(), format!("{LEASES}/x")),
            ("GET".into(), "/apis/scheduling.k8s.io/v1/priorityclasses".into()),
            ("GET".into(), "/api/v1/pods".into()),
            ("POST".into(), format!("{PODS}/p/binding")),
            ("PATCH".into(), format!("{PODS}/p/status")),
            ("GET".into(), "/metrics".into()),
        ]
    );
    assert!(server.forbidden_requests().iter().all(|r| r.code == 403 && r.user == "u"));
}

#[test]
fn system_kube_scheduler_has_the_default_schedulers_permissions() {
    let server = TestApiServer::start();
    server.create("/api/v1/nodes", node("n1").cpu("2").build());
    server.create(PODS, pod("default", "p").build());
    server.create(PODS, pod("default", "q").build());
    let mut c = connect(&server, Auth::Cert("system:kube-scheduler", &[]));
    assert_eq!(c.call("GET", "/api/v1/nodes", None).code, 200);
    assert_eq!(c.call("GET", "/api/v1/pods?fieldSelector=spec.nodeName%3D", None).code, 200);
    assert_eq!(c.call("POST", &format!("{PODS}/p/binding"), Some(&binding_body("p", "n1"))).code, 201);
    let unschedulable =
        json!({"status": {"conditions": [{"type": "PodScheduled", "status": "False", "reason": "Unschedulable"}]}});
    assert_eq!(c.patch(&format!("{PODS}/q/status"), "application/strategic-merge-patch+json", &unschedulable).code, 200);
    let core = json!({"metadata": {"name": "q.1"}, "involvedObject": {"kind": "Pod", "name": "q"}, "reason": "FailedScheduling", "type": "Warning"});
    assert_eq!(c.call("POST", "/api/v1/namespaces/default/events", Some(&core)).code, 201);
    let new = json!({"metadata": {"name": "q.2"}, "regarding": {"kind": "Pod", "name": "q"}, "reason": "FailedScheduling", "type": "Warning", "eventTime": "2025-09-11T20:39:39.123456Z", "reportingController": "default-scheduler", "reportingInstance": "x", "action": "Scheduling"});
    assert_eq!(c.call("POST", "/apis/events.k8s.io/v1/namespaces/default/events", Some(&new)).code, 201);
    assert_eq!(c.call("GET", "/apis/scheduling.k8s.io/v1/priorityclasses", None).code, 403);
    assert_eq!(c.call("PATCH", &format!("{PODS}/q"), None).code, 403, "pods themselves are read-only");
    assert_eq!(c.call("POST", LEASES, Some(&lease("kube-scheduler"))).code, 201);
    let held = c.call("GET", &format!("{LEASES}/kube-scheduler"), None);
    assert_eq!(held.code, 200);
    let mut renewed = held.json();
    renewed["spec"]["holderIdentity"] = json!("b");
    assert_eq!(c.call("PUT", &format!("{LEASES}/kube-scheduler"), Some(&renewed)).code, 200);
    assert_eq!(
        c.call("GET", "/api/v1/namespaces/kube-system/configmaps/extension-apiserver-authentication", None).code,
        404,
        "readable, not there"
    );
    assert_eq!(c.call("GET", "/api/v1/namespaces/kube-system/configmaps/other", None).code, 403);
}

#[test]
fn lease_permissions_follow_the_default_roles_generation() {
    for (roles, current) in [(DefaultRoles::Current, true), (DefaultRoles::LegacyLeaseNameOnly, false)] {
        let server = TestApiServer::start_with(ServerOptions { default_roles: roles, ..Default::default() });
        let mut c = connect(&server, Auth::Cert("system:kube-scheduler", &[]));
        let own = if current { 200 } else { 403 };
        assert_eq!(c.call("POST", LEASES, Some(&lease("edgesched"))).code, 201, "{roles:?}: create is always allowed");
        let r = c.call("GET", &format!("{LEASES}/edgesched"), None);
        assert_eq!(r.code, own, "{roles:?}: get");
        let stored = server.get(&format!("{LEASES}/edgesched")).unwrap();
        assert_eq!(c.call("PUT", &format!("{LEASES}/edgesched"), Some(&stored)).code, own, "{roles:?}: update");
        assert_eq!(c.call("GET", LEASES, None).code, own, "{roles:?}: list");
        assert_eq!(c.call("GET", &format!("{LEASES}?watch=1&timeoutSeconds=1"), None).code, own, "{roles:?}: watch");
        if !current {
            assert_eq!(
                r.json()["message"],
                "leases.coordination.k8s.io \"edgesched\" is forbidden: User \"system:kube-scheduler\" cannot get resource \"leases\" in API group \"coordination.k8s.io\" in the namespace \"kube-system\""
            );
            assert_eq!(c.call("POST", LEASES, Some(&lease("kube-scheduler"))).code, 201);
            assert_eq!(c.call("GET", &format!("{LEASES}/kube-scheduler"), None).code, 200, "the lease named in the ClusterRole");
        }
    }
}

#[test]
fn a_watch_pinned_by_metadata_name_is_authorized_by_a_resource_names_rule() {
    let server = TestApiServer::start();
    server.create(LEASES, lease("kube-scheduler"));
    server.apply_yaml(
        r#"
apiVersion: rbac.authorization.k8s.io/v1
kind: Role
metadata: {name: lease-watcher, namespace: kube-system}
rules:
- apiGroups: [coordination.k8s.io]
  resources: [leases]
  resourceNames: [kube-scheduler]
  verbs: [list, watch]
---
apiVersion: rbac.authorization.k8s.io/v1
kind: RoleBinding
metadata: {name: lease-watcher, namespace: kube-system}
roleRef: {apiGroup: rbac.authorization.k8s.io, kind: Role, name: lease-watcher}
subjects:
- {kind: User, name: watcher}
"#,
    );
    let mut c = connect(&server, Auth::Cert("watcher", &[]));
    assert_eq!(c.call("GET", &format!("{LEASES}?watch=true"), None).code, 403, "no name, no resourceNames match");
    assert_eq!(c.call("GET", &format!("{LEASES}?watch=true&fieldSelector=metadata.name%3Dother"), None).code, 403);
    assert_eq!(c.call("GET", &format!("{LEASES}?fieldSelector=metadata.name%3Dkube-scheduler"), None).code, 200, "list");
    assert_eq!(c.watch(&format!("{LEASES}?watch=true&resourceVersion=0&fieldSelector=metadata.name%3Dkube-scheduler")), 200);
    assert_eq!(c.event().unwrap()["object"]["metadata"]["name"], "kube-scheduler");
}

#[test]
fn system_masters_may_do_anything() {
    let server = TestApiServer::start();
    server.create("/api/v1/nodes", node("n1").build());
    let mut c = admin(&server);
    assert_eq!(c.call("DELETE", "/api/v1/nodes/n1", None).code, 200);
    assert_eq!(c.call("GET", "/api/v1/widgets", None).code, 404, "authorized, then not found");
    assert_eq!(c.call("GET", "/apis/scheduling.k8s.io/v1/priorityclasses", None).code, 200);
    let sar = json!({"apiVersion": "authorization.k8s.io/v1", "kind": "SubjectAccessReview", "spec": {"user": "root", "groups": ["system:masters"], "resourceAttributes": {"verb": "delete", "resource": "nodes"}}});
    let status = c.call("POST", "/apis/authorization.k8s.io/v1/subjectaccessreviews", Some(&sar)).json()["status"].clone();
    assert_eq!(status, json!({"allowed": true}), "the privileged-group authorizer gives no reason");
    assert!(server.forbidden_requests().is_empty());
}

#[test]
fn rbac_objects_written_over_http_take_effect_on_the_next_request() {
    let server = TestApiServer::start();
    let mut a = admin(&server);
    let mut alice = connect(&server, Auth::Cert("alice", &[]));
    assert_eq!(alice.call("GET", PODS, None).code, 403);
    let rbac = "/apis/rbac.authorization.k8s.io/v1";
    let binding = json!({"metadata": {"name": "alice-reads"}, "roleRef": {"apiGroup": "rbac.authorization.k8s.io", "kind": "ClusterRole", "name": "pod-reader"}, "subjects": [{"kind": "User", "name": "alice"}]});
    assert_eq!(a.call("POST", &format!("{rbac}/clusterrolebindings"), Some(&binding)).code, 201);
    let r = alice.call("GET", PODS, None);
    assert_eq!(
        r.json()["message"],
        "pods is forbidden: User \"alice\" cannot list resource \"pods\" in API group \"\" in the namespace \"default\": RBAC: clusterrole.rbac.authorization.k8s.io \"pod-reader\" not found"
    );
    let role = json!({"metadata": {"name": "pod-reader"}, "rules": [{"apiGroups": [""], "resources": ["pods"], "verbs": ["get", "list"]}]});
    assert_eq!(a.call("POST", &format!("{rbac}/clusterroles"), Some(&role)).code, 201);
    assert_eq!(alice.call("GET", PODS, None).code, 200, "same connection, next request");
    let listed = a.call("GET", &format!("{rbac}/clusterroles?fieldSelector=metadata.name%3Dpod-reader"), None).json();
    assert_eq!(listed["kind"], "ClusterRoleList");
    assert_eq!(listed["items"][0]["rules"][0]["verbs"], json!(["get", "list"]));
    assert_eq!(a.call("DELETE", &format!("{rbac}/clusterrolebindings/alice-reads"), None).code, 200);
    assert_eq!(alice.call("GET", PODS, None).code, 403);
    let defaults = a.call("GET", &format!("{rbac}/clusterrolebindings/system:kube-scheduler"), None).json();
    assert_eq!(defaults["metadata"]["labels"]["kubernetes.io/bootstrapping"], "rbac-defaults");
    assert_eq!(defaults["metadata"]["annotations"]["rbac.authorization.kubernetes.io/autoupdate"], "true");
    let discovery = a.call("GET", rbac, None).json();
    let names: Vec<&str> = discovery["resources"].as_array().unwrap().iter().map(|r| r["name"].as_str().unwrap()).collect();
    assert_eq!(names, ["clusterroles", "clusterrolebindings", "roles", "rolebindings"]);
}

#[test]
fn a_role_binding_to_a_cluster_role_grants_only_in_its_namespace() {
    let server = TestApiServer::start();
    server.apply_yaml(
        r#"
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRole
metadata: {name: pod-reader}
rules:
- {apiGroups: [""], resources: [pods], verbs: [get, list, watch]}
---
apiVersion: rbac.authorization.k8s.io/v1
kind: RoleBinding
metadata: {name: reads-team, namespace: team}
roleRef: {apiGroup: rbac.authorization.k8s.io, kind: ClusterRole, name: pod-reader}
subjects:
- {apiGroup: rbac.authorization.k8s.io, kind: Group, name: devs}
"#,
    );
    let mut c = connect(&server, Auth::Cert("carol", &["devs"]));
    assert_eq!(c.call("GET", "/api/v1/namespaces/team/pods", None).code, 200);
    assert_eq!(c.call("GET", "/api/v1/namespaces/default/pods", None).code, 403);
    assert_eq!(c.call("GET", "/api/v1/pods", None).code, 403, "all namespaces is cluster scope");
    assert_eq!(c.call("DELETE", "/api/v1/namespaces/team/pods/x", None).code, 403, "only the verbs granted");
}

#[test]
fn service_account_tokens_are_authorized_through_service_account_subjects() {
    let server = TestApiServer::start();
    let token = server.service_account_token("ci", "builder");
    let sa = server.get("/api/v1/namespaces/ci/serviceaccounts/builder").expect("service account created");
    server.apply_yaml(
        r#"
apiVersion: rbac.authorization.k8s.io/v1
kind: Role
metadata: {name: cm-writer, namespace: ci}
rules:
- {apiGroups: [""], resources: [configmaps], verbs: [create, get]}
---
apiVersion: rbac.authorization.k8s.io/v1
kind: RoleBinding
metadata: {name: builder-writes, namespace: ci}
roleRef: {apiGroup: rbac.authorization.k8s.io, kind: Role, name: cm-writer}
subjects:
- {kind: ServiceAccount, name: builder}
"#,
    );
    let mut c = connect(&server, Auth::Token(&token));
    let cm = json!({"metadata": {"name": "out"}, "data": {"k": "v"}});
    assert_eq!(
        c.call("POST", "/api/v1/namespaces/ci/configmaps", Some(&cm)).code,
        201,
        "subject namespace defaults to the binding's"
    );
    assert_eq!(c.call("POST", "/api/v1/namespaces/default/configmaps", Some(&cm)).code, 403);
    let r = c.call("GET", "/api/v1/namespaces/ci/secrets", None);
    assert_eq!(r.code, 403);
    assert!(r.json()["message"].as_str().unwrap().starts_with("secrets is forbidden: User \"system:serviceaccount:ci:builder\""));
    let review = json!({"apiVersion": "authentication.k8s.io/v1", "kind": "TokenReview", "spec": {"token": token}});
    let user = admin(&server).call("POST", "/apis/authentication.k8s.io/v1/tokenreviews", Some(&review)).json()["status"]["user"]
        .clone();
    assert_eq!(user["username"], "system:serviceaccount:ci:builder");
    assert_eq!(user["uid"], sa["metadata"]["uid"]);
    assert_eq!(user["groups"], json!(["system:serviceaccounts", "system:serviceaccounts:ci", "system:authenticated"]));
    assert_ne!(server.service_account_token("ci", "builder"), token, "a fresh token each time");
}

#[test]
fn anonymous_requests_are_authorized_as_system_anonymous() {
    let server = TestApiServer::start();
    let mut c = connect(&server, Auth::None);
    for path in ["/healthz", "/livez", "/readyz", "/version"] {
        assert_eq!(c.call("GET", path, None).code, 200, "{path} via system:public-info-viewer");
    }
    let r = c.call("GET", "/api/v1/pods", None);
    assert_eq!(r.code, 403);
    assert_eq!(
        r.json()["message"],
        "pods is forbidden: User \"system:anonymous\" cannot list resource \"pods\" in API group \"\" at the cluster scope"
    );
    assert_eq!(c.call("GET", "/api", None).code, 403, "system:discovery is for authenticated users only");
    assert_eq!(server.requests().last().unwrap().user, "system:anonymous");
    let mut bad = connect(&server, Auth::Token("not-a-token"));
    assert_eq!(bad.call("GET", "/healthz", None).code, 401);
    let server = TestApiServer::start_with(ServerOptions { anonymous_auth: false, ..Default::default() });
    assert_eq!(connect(&server, Auth::None).call("GET", "/healthz", None).code, 401);
}

#[test]
fn subject_access_reviews_are_answered_by_rbac_for_callers_allowed_to_ask() {
    let server = TestApiServer::start();
    server.allow_non_resource("prometheus", "/metrics");
    let sars = "/apis/authorization.k8s.io/v1/subjectaccessreviews";
    let sar = |user: &str, attrs: Value| {
        let key = if attrs.get("path").is_some() { "nonResourceAttributes" } else { "resourceAttributes" };
        json!({"apiVersion": "authorization.k8s.io/v1", "kind": "SubjectAccessReview", "spec": {"user": user, "groups": ["system:authenticated"], key: attrs}})
    };
    let r = connect(&server, Auth::Cert("nosy", &[])).call(
        "POST",
        sars,
        Some(&sar("nosy", json!({"path": "/metrics", "verb": "get"}))),
    );
    assert_eq!(
        r.json()["message"],
        "subjectaccessreviews.authorization.k8s.io is forbidden: User \"nosy\" cannot create resource \"subjectaccessreviews\" in API group \"authorization.k8s.io\" at the cluster scope"
    );
    let mut c = connect(&server, Auth::Cert("system:kube-scheduler", &[]));
    let ask = |c: &mut Conn, body: Value| {
        let r = c.call("POST", sars, Some(&body));
        assert_eq!(r.code, 201);
        r.json()["status"].clone()
    };
    let get_lease = json!({"verb": "get", "group": "coordination.k8s.io", "resource": "leases", "namespace": "kube-system", "name": "kube-scheduler"});
    assert_eq!(
        ask(&mut c, sar("system:kube-scheduler", get_lease)),
        json!({"allowed": true, "reason": "RBAC: allowed by ClusterRoleBinding \"system:kube-scheduler\" of ClusterRole \"system:kube-scheduler\" to User \"system:kube-scheduler\""})
    );
    let list_pcs = json!({"verb": "list", "group": "scheduling.k8s.io", "resource": "priorityclasses"});
    assert_eq!(ask(&mut c, sar("system:kube-scheduler", list_pcs)), json!({"allowed": false}));
    let metrics = json!({"path": "/metrics", "verb": "get"});
    let status = ask(&mut c, sar("prometheus", metrics.clone()));
    assert_eq!(status["allowed"], true);
    assert!(status["reason"].as_str().unwrap().ends_with("to User \"prometheus\""), "{status}");
    assert_eq!(ask(&mut c, sar("mallory", metrics))["allowed"], false);
    assert_eq!(ask(&mut c, sar("prometheus", json!({"path": "/debug/pprof", "verb": "get"})))["allowed"], false);
    let token = server.service_account_token("kube-system", "delegate");
    server.apply_yaml("apiVersion: rbac.authorization.k8s.io/v1\nkind: ClusterRoleBinding\nmetadata: {name: delegate}\nroleRef: {apiGroup: rbac.authorization.k8s.io, kind: ClusterRole, name: system:auth-delegator}\nsubjects:\n- {kind: ServiceAccount, name: delegate, namespace: kube-system}\n");
    let mut d = connect(&server, Auth::Token(&token));
    assert_eq!(
        ask(&mut d, sar("anyone", json!({"path": "/healthz", "verb": "get"}))),
        json!({"allowed": true, "reason": "RBAC: allowed by ClusterRoleBinding \"system:discovery\" of ClusterRole \"system:discovery\" to Group \"system:authenticated\""}),
        "system:auth-delegator lets the service account ask"
    );
}

#[test]
fn apply_file_creates_the_deployment_manifests() {
    let server = TestApiServer::start();
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("manifests/deployment");
    let created = server.apply_file(&dir.join("rbac.yaml"));
    let kinds: Vec<String> =
        created.iter().map(|o| format!("{}/{}", o["kind"].as_str().unwrap(), o["metadata"]["name"].as_str().unwrap())).collect();
    assert_eq!(
        kinds,
        [
            "ClusterRoleBinding/edgesched-as-kube-scheduler",
            "ClusterRoleBinding/edgesched-as-volume-scheduler",
            "Role/edgesched",
            "RoleBinding/edgesched",
        ]
    );
    assert!(server.get("/apis/rbac.authorization.k8s.io/v1/namespaces/kube-system/roles/edgesched").is_some());
    let rb = server.get("/apis/rbac.authorization.k8s.io/v1/namespaces/kube-system/rolebindings/edgesched");
    assert_eq!(rb.unwrap()["roleRef"]["name"], "edgesched");
    for file in ["namespace-and-serviceaccount.yaml", "configmap.yaml", "deployment.yaml"] {
        assert_eq!(server.apply_file(&dir.join(file)).len(), 1, "{file}");
    }
    assert_eq!(server.apply_file(&dir.join("rbac.yaml")).len(), 4, "applying again replaces");
    assert!(server.get("/apis/apps/v1/namespaces/kube-system/deployments/edgesched").is_some());
    let sa = server.get("/api/v1/namespaces/kube-system/serviceaccounts/edgesched").unwrap();
    let token = server.service_account_token("kube-system", "edgesched");
    assert_eq!(
        server.get("/api/v1/namespaces/kube-system/serviceaccounts/edgesched").unwrap()["metadata"]["uid"],
        sa["metadata"]["uid"]
    );
    let mut c = connect(&server, Auth::Token(&token));
    assert_eq!(c.call("POST", LEASES, Some(&lease("edgesched"))).code, 201);
    assert_eq!(c.call("GET", &format!("{LEASES}/edgesched"), None).code, 200, "resourceNames: edgesched");
    assert_eq!(c.call("GET", &format!("{LEASES}/someone-else"), None).code, 403, "only its own Lease (and kube-scheduler's)");
    assert_eq!(c.call("GET", "/apis/scheduling.k8s.io/v1/priorityclasses", None).code, 403, "not granted: optional");
    assert_eq!(c.call("GET", "/api/v1/nodes", None).code, 200, "bound to system:kube-scheduler");
    assert_eq!(c.call("GET", "/api/v1/namespaces/kube-system/configmaps/edgesched-config", None).code, 403);
}

#[test]
#[should_panic(expected = "serves no kind \"Widget\"")]
fn apply_refuses_kinds_the_server_does_not_serve() {
    TestApiServer::start().apply_yaml("apiVersion: example.com/v1\nkind: Widget\nmetadata: {name: w}\n");
}

#[test]
fn always_allow_and_grant_cluster_admin_for_tests_not_about_permissions() {
    let server = TestApiServer::start_with(ServerOptions { authorization: Authorization::AlwaysAllow, ..Default::default() });
    assert_eq!(connect(&server, Auth::Cert("anyone", &[])).call("GET", "/api/v1/pods", None).code, 200);
    assert_eq!(connect(&server, Auth::None).call("DELETE", "/api/v1/nodes/x", None).code, 404, "even anonymous");
    let server = TestApiServer::start();
    server.grant_cluster_admin("root");
    let mut c = connect(&server, Auth::Cert("root", &[]));
    assert_eq!(c.call("GET", "/apis/scheduling.k8s.io/v1/priorityclasses", None).code, 200);
    assert_eq!(c.call("GET", "/metrics", None).code, 404, "authorized by cluster-admin's nonResourceURLs, then not served");
}

#[test]
fn rbac_writes_cannot_grant_more_than_the_writer_holds() {
    let server = TestApiServer::start();
    server.apply_yaml(
        r#"
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRole
metadata: {name: rbac-writer}
rules:
- {apiGroups: [rbac.authorization.k8s.io], resources: [roles, rolebindings], verbs: [create, update, patch]}
- {apiGroups: [""], resources: [pods], verbs: [get]}
---
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRole
metadata: {name: pod-getter}
rules:
- {apiGroups: [""], resources: [pods], verbs: [get]}
---
apiVersion: rbac.authorization.k8s.io/v1
kind: RoleBinding
metadata: {name: delegate-writes, namespace: team}
roleRef: {apiGroup: rbac.authorization.k8s.io, kind: ClusterRole, name: rbac-writer}
subjects:
- {kind: User, name: delegate}
"#,
    );
    let roles = "/apis/rbac.authorization.k8s.io/v1/namespaces/team/roles";
    let bindings = "/apis/rbac.authorization.k8s.io/v1/namespaces/team/rolebindings";
    let mut c = connect(&server, Auth::Cert("delegate", &[]));
    let role = |name: &str, verbs: Value| json!({"metadata": {"name": name}, "rules": [{"apiGroups": [""], "resources": ["pods"], "verbs": verbs}]});
    assert_eq!(c.call("POST", roles, Some(&role("getter", json!(["get"])))).code, 201, "holds what it grants");
    let r = c.call("POST", roles, Some(&role("deleter", json!(["get", "delete"]))));
    assert_eq!(r.code, 403);
    assert_eq!(
        r.json()["message"],
        "roles.rbac.authorization.k8s.io \"deleter\" is forbidden: user \"delegate\" (groups=[\"system:authenticated\"]) is attempting to grant RBAC permissions not currently held:\n{APIGroups:[\"\"], Resources:[\"pods\"], Verbs:[\"delete\"]}"
    );
    let widen = json!({"rules": [{"apiGroups": [""], "resources": ["pods"], "verbs": ["get", "list"]}]});
    assert_eq!(c.patch(&format!("{roles}/getter"), "application/merge-patch+json", &widen).code, 403, "patches are checked too");
    let binding = |name: &str, role: &str| json!({"metadata": {"name": name}, "roleRef": {"apiGroup": "rbac.authorization.k8s.io", "kind": "ClusterRole", "name": role}, "subjects": [{"kind": "User", "name": "friend"}]});
    assert_eq!(c.call("POST", bindings, Some(&binding("friend-gets", "pod-getter"))).code, 201);
    let r = c.call("POST", bindings, Some(&binding("friend-admin", "cluster-admin")));
    assert_eq!(r.code, 403);
    assert!(r.json()["message"]
        .as_str()
        .unwrap()
        .starts_with("rolebindings.rbac.authorization.k8s.io \"friend-admin\" is forbidden: user \"delegate\""));
    let r = c.call("POST", bindings, Some(&binding("friend-ghost", "ghost")));
    assert_eq!((r.code, r.json()["message"].clone()), (404, json!("clusterrole.rbac.authorization.k8s.io \"ghost\" not found")));
    server.apply_yaml(
        r#"
apiVersion: rbac.authorization.k8s.io/v1
kind: Role
metadata: {name: may-bind-admin, namespace: team}
rules:
- {apiGroups: [rbac.authorization.k8s.io], resources: [clusterroles], resourceNames: [cluster-admin], verbs: [bind]}
---
apiVersion: rbac.authorization.k8s.io/v1
kind: RoleBinding
metadata: {name: delegate-binds, namespace: team}
roleRef: {apiGroup: rbac.authorization.k8s.io, kind: Role, name: may-bind-admin}
subjects:
- {kind: User, name: delegate}
"#,
    );
    assert_eq!(c.call("POST", bindings, Some(&binding("friend-admin", "cluster-admin"))).code, 201, "bind permission");
    let mut moved = server.get(&format!("{bindings}/friend-gets")).unwrap();
    moved["roleRef"]["name"] = json!("rbac-writer");
    let r = admin(&server).call("PUT", &format!("{bindings}/friend-gets"), Some(&moved));
    assert_eq!(r.code, 422, "roleRef is immutable, even for system:masters");
    assert_eq!(
        r.json()["message"],
        "RoleBinding.rbac.authorization.k8s.io \"friend-gets\" is invalid: roleRef: Invalid value: rbac.RoleRef{APIGroup:\"rbac.authorization.k8s.io\", Kind:\"ClusterRole\", Name:\"rbac-writer\"}: cannot change roleRef"
    );
}

/// Every kind the scheduler watches (its kind table) is served here, at the path it lists.
#[test]
fn serves_every_kind_the_scheduler_watches() {
    let server = TestApiServer::start();
    for kind in edgesched::core::watched::KINDS {
        let mut c = admin(&server);
        let resp = c.call("GET", &kind.path("kube-system"), None);
        assert_eq!(resp.code, 200, "{}: {}", kind.kind, resp.text());
        assert_eq!(resp.json()["kind"], format!("{}List", kind.kind), "{}", kind.kind);
        assert_eq!(resp.json()["apiVersion"], kind.api_version(), "{}", kind.kind);
    }
}

// ---------------------------------------------------------------------------------------------
// Compatibility modes: each quirk shows on the wire, and only when asked for
// ---------------------------------------------------------------------------------------------

#[test]
fn compatibility_quirks_show_on_the_wire_only_when_enabled() {
    use support::apiserver::Compat;
    let make = |compat: Compat| {
        let server = TestApiServer::start_with(ServerOptions { compat, ..Default::default() });
        server.create("/api/v1/nodes", node("n1").cpu("1500m").memory("4Gi").pods(10).build());
        server
    };
    let plain = make(Compat::default());
    let n1 = admin(&plain).call("GET", "/api/v1/nodes/n1", None).json();
    assert_eq!((n1["spec"].clone(), n1["status"]["allocatable"]["cpu"].clone()), (json!({}), json!("1500m")));

    let server = make(Compat::all());
    let mut c = admin(&server);
    let n1 = c.call("GET", "/api/v1/nodes/n1", None).json();
    assert_eq!(n1["spec"], Value::Null, "null for an empty struct");
    assert_eq!(n1["status"]["allocatable"]["cpu"], json!(1.5), "a numeric quantity");
    assert_eq!(n1["status"]["allocatable"]["memory"], json!(4294967296u64));
    let list = c.call("GET", "/api/v1/nodes", None).json();
    assert!(list["items"][0]["metadata"].get("resourceVersion").is_none(), "{list}");
    assert!(list["metadata"]["resourceVersion"].is_string());
    let rv = list["metadata"]["resourceVersion"].as_str().unwrap().to_string();
    // The first watch of a collection, and any watch not saying `watch=true`, gets the list.
    let first = c.call("GET", &format!("/api/v1/nodes?watch=true&resourceVersion={rv}"), None);
    assert_eq!((first.code, first.json()["kind"].clone()), (200, json!("NodeList")));
    let numeric = c.call("GET", &format!("/api/v1/nodes?watch=1&resourceVersion={rv}"), None);
    assert_eq!(numeric.json()["kind"], "NodeList");
    assert_eq!(server.compat_counts().lists_for_watch, 2);
    // Later watches stream, and end halfway through their fifth object event.
    assert_eq!(c.watch(&format!("/api/v1/nodes?watch=true&resourceVersion={rv}")), 200);
    for i in 0..5 {
        server.create("/api/v1/nodes", node(&format!("m{i}")).build());
    }
    for _ in 0..4 {
        let event = c.event().expect("a complete event");
        assert_eq!(event["type"], "ADDED");
    }
    let cut = c.chunk().unwrap().expect("half an event");
    assert!(serde_json::from_slice::<Value>(&cut).is_err(), "{}", String::from_utf8_lossy(&cut));
    assert!(c.chunk().unwrap().is_none(), "then the stream ends");
    assert_eq!(server.compat_counts().watches_cut, 1);
}
