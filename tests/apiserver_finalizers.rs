//! The test API server deletes an object with finalizers as kube-apiserver does
//! (k8s.io/apiserver/pkg/registry/generic/registry/store.go, commit
//! 0021a864a65a17f2ad15b60545ef41fdfc30cc4c: `Store.Delete`, `updateForGracefulDeletionAndFinalizers`,
//! `markAsDeleting`, `ShouldDeleteDuringUpdate`): a DELETE sets `metadata.deletionTimestamp` and
//! `deletionGracePeriodSeconds: 0` and keeps the object (a MODIFIED watch event) while
//! `metadata.finalizers` is non-empty; the update or patch that empties the finalizers removes it
//! (a DELETED event). The cases follow upstream's store_test.go `TestGracefulStoreHandleFinalizers`
//! (a delete keeps an object with a finalizer; the update removing the finalizer deletes it).

mod support;

use edgesched::core::api;
use edgesched::shell::kube::client::{Client, ClientOptions, PatchType};
use edgesched::shell::kube::kubeconfig::load_kubeconfig;
use edgesched::shell::kube::query::WatchParams;
use edgesched::shell::kube::watch_stream::WatchEvent;
use serde_json::{json, Value};
use support::objects::pod;
use support::{KubeAuth, TestApiServer};

const PODS: &str = "/api/v1/namespaces/default/pods";

/// A client of the server as a cluster admin, with the temporary directory holding its kubeconfig.
fn admin_client(server: &TestApiServer) -> (Client, support::wait::TempDir) {
    server.grant_cluster_admin("admin");
    let dir = support::tempdir("finalizers");
    let config = load_kubeconfig(&server.write_kubeconfig(&dir, KubeAuth::ClientCert { user: "admin".into() }), None).unwrap();
    let client = Client::new(&config, &ClientOptions { max_retries: 0, ..Default::default() }).unwrap();
    (client, dir)
}

fn with_finalizer(name: &str, finalizers: &[&str]) -> Value {
    let mut p = pod("default", name).build();
    p["metadata"]["finalizers"] = json!(finalizers);
    p
}

/// The watch events on pod `name` after `rv`, as (type, deletionTimestamp set) pairs, until
/// `until` events arrived or the watch timed out.
fn events_of(client: &Client, rv: &str, name: &str, until: usize) -> Vec<(&'static str, bool)> {
    let params = WatchParams { resource_version: rv.to_string(), timeout_seconds: Some(2), ..Default::default() };
    let mut out = Vec::new();
    for event in client.watch::<api::Pod>(PODS, &params).unwrap() {
        let (kind, p) = match event.unwrap() {
            WatchEvent::Added(p) => ("ADDED", p),
            WatchEvent::Modified(p) => ("MODIFIED", p),
            WatchEvent::Deleted(p) => ("DELETED", p),
            _ => continue,
        };
        if p.metadata.name == name {
            out.push((kind, p.metadata.deletion_timestamp.is_some()));
        }
        if out.len() >= until {
            break;
        }
    }
    out
}

#[test]
fn delete_with_finalizers_marks_deleting_and_keeps_the_object() {
    let server = TestApiServer::start();
    let (client, _dir) = admin_client(&server);
    server.create(PODS, with_finalizer("p", &["test.k8s.io/finalizer"]));
    let rv = server.resource_version().to_string();
    client.delete(&format!("{PODS}/p"), None).unwrap();
    let kept = server.get(&format!("{PODS}/p")).expect("an object with finalizers stays");
    assert!(kept["metadata"]["deletionTimestamp"].is_string());
    assert_eq!(kept["metadata"]["deletionGracePeriodSeconds"], json!(0));
    assert_eq!(kept["metadata"]["finalizers"], json!(["test.k8s.io/finalizer"]));
    // A second DELETE changes nothing (the timestamp is not moved later): no new event.
    client.delete(&format!("{PODS}/p"), None).unwrap();
    assert_eq!(server.get(&format!("{PODS}/p")).unwrap()["metadata"]["deletionTimestamp"], kept["metadata"]["deletionTimestamp"]);
    assert_eq!(events_of(&client, &rv, "p", 1), [("MODIFIED", true)]);
}

#[test]
fn patch_emptying_the_finalizers_removes_the_object() {
    let server = TestApiServer::start();
    let (client, _dir) = admin_client(&server);
    server.create(PODS, with_finalizer("p", &["a.example.com/x", "b.example.com/y"]));
    let rv = server.resource_version().to_string();
    client.delete(&format!("{PODS}/p"), None).unwrap();
    // Removing one of two finalizers keeps it.
    let _: Value =
        client.patch(&format!("{PODS}/p"), PatchType::Merge, &json!({"metadata": {"finalizers": ["b.example.com/y"]}})).unwrap();
    assert_eq!(server.get(&format!("{PODS}/p")).unwrap()["metadata"]["finalizers"], json!(["b.example.com/y"]));
    let _: Value = client.patch(&format!("{PODS}/p"), PatchType::Merge, &json!({"metadata": {"finalizers": null}})).unwrap();
    assert!(server.get(&format!("{PODS}/p")).is_none(), "the last finalizer removed deletes it");
    assert_eq!(events_of(&client, &rv, "p", 3), [("MODIFIED", true), ("MODIFIED", true), ("DELETED", true)]);
}

#[test]
fn update_emptying_the_finalizers_removes_the_object() {
    let server = TestApiServer::start();
    let (client, _dir) = admin_client(&server);
    server.create(PODS, with_finalizer("p", &["test.k8s.io/finalizer"]));
    client.delete(&format!("{PODS}/p"), None).unwrap();
    let mut current = server.get(&format!("{PODS}/p")).unwrap();
    current["metadata"]["finalizers"] = json!([]);
    let _: Value = client.replace(&format!("{PODS}/p"), &current).unwrap();
    assert!(server.get(&format!("{PODS}/p")).is_none());
}

#[test]
fn finalizers_without_a_delete_request_or_with_a_grace_period_keep_the_object() {
    let server = TestApiServer::start();
    let (client, _dir) = admin_client(&server);
    // Emptying the finalizers of an object nobody asked to delete is a plain update.
    server.create(PODS, with_finalizer("p", &["test.k8s.io/finalizer"]));
    let _: Value = client.patch(&format!("{PODS}/p"), PatchType::Merge, &json!({"metadata": {"finalizers": null}})).unwrap();
    assert!(server.get(&format!("{PODS}/p")).is_some());
    // A bound pod under graceful deletion (grace period 30 s) waits for its kubelet even once
    // its finalizers are gone (ShouldDeleteDuringUpdate wants a grace period of 0).
    server.restart_with(support::ServerOptions { graceful_pod_deletion: true, ..Default::default() });
    let (client, _dir2) = admin_client(&server);
    let mut bound = with_finalizer("q", &["test.k8s.io/finalizer"]);
    bound["spec"]["nodeName"] = json!("n1");
    server.create(PODS, bound);
    client.delete(&format!("{PODS}/q"), None).unwrap();
    let q = server.get(&format!("{PODS}/q")).unwrap();
    assert_eq!(q["metadata"]["deletionGracePeriodSeconds"], json!(30));
    let _: Value = client.patch(&format!("{PODS}/q"), PatchType::Merge, &json!({"metadata": {"finalizers": null}})).unwrap();
    assert!(server.get(&format!("{PODS}/q")).is_some());
}

#[test]
fn delete_without_finalizers_still_removes_at_once() {
    let server = TestApiServer::start();
    let (client, _dir) = admin_client(&server);
    server.create(PODS, pod("default", "p").build());
    client.delete(&format!("{PODS}/p"), None).unwrap();
    assert!(server.get(&format!("{PODS}/p")).is_none());
    // The harness's client-like delete takes the same path.
    server.create(PODS, with_finalizer("f", &["test.k8s.io/finalizer"]));
    let kept = server.delete_as_client(&format!("{PODS}/f")).expect("kept while finalizers are pending");
    assert!(kept["metadata"]["deletionTimestamp"].is_string());
}
