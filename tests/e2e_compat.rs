//! End to end against API servers that are not kube-apiserver: the real binary, started as the
//! shipped static pod runs it (its command line and configuration, kube-scheduler's client
//! certificate, the shipped RBAC, leader election on), against the test API server showing each
//! compatibility quirk alone and all of them at once — `null` for empty structs and slices,
//! quantities as JSON numbers, list items without `metadata.resourceVersion`, watch streams that
//! stop in the middle of an event, a LIST answered to a watch request. Pods exist before the
//! scheduler starts (they arrive by list) and are created after it is ready (they arrive by
//! watch, or by the relists the quirks force); every one must be bound exactly once and the
//! scheduler must become and stay ready.

mod support;

use edgesched::core::watched::{KindId, ReadBy, KINDS};
use std::time::Duration;
use support::apiserver::Compat;
use support::deploy;
use support::invariants::assert_each_bound_exactly_once;
use support::objects::{node, pod};
use support::process::Edgesched;
use support::wait::wait_for;
use support::{https, wait_until, ServerOptions, TestApiServer};

const NODES: &str = "/api/v1/nodes";
const NS: &str = "compat";
const T: Duration = Duration::from_secs(60);
/// Pods created before the scheduler starts, and as many after it is ready.
const PODS: usize = 20;

fn probe(es: &Edgesched, path: &str) -> (u16, String) {
    let url = format!("https://127.0.0.1:{}{path}", es.secure_port);
    wait_for(T, &format!("GET {url}"), || https::get(&url, None).ok()).unwrap_or_else(|e| panic!("{e}\n{}", es.logs()))
}

fn wait_ready(es: &Edgesched, quirk: &str) {
    wait_until(T, "/readyz 200", || probe(es, "/readyz").0 == 200).unwrap_or_else(|e| {
        panic!("{quirk}: {e}\n{}\n{}", probe(es, "/readyz?verbose").1, es.logs());
    });
}

fn create_pods(server: &TestApiServer, names: &[String]) {
    for (i, name) in names.iter().enumerate() {
        let cpu = ["100m", "250m", "500m"][i % 3];
        server.create(
            &format!("/api/v1/namespaces/{NS}/pods"),
            pod(NS, name).scheduler("edgesched").cpu(cpu).memory("64Mi").build(),
        );
    }
}

fn unbound(server: &TestApiServer, names: &[String]) -> Vec<String> {
    names
        .iter()
        .filter(|n| {
            server
                .get(&format!("/api/v1/namespaces/{NS}/pods/{n}"))
                .and_then(|p| p["spec"]["nodeName"].as_str().map(|s| s.is_empty()))
                .unwrap_or(true)
        })
        .cloned()
        .collect()
}

/// One scenario: the server shows `compat`; every pod ends bound exactly once, the scheduler ready.
fn scenario(quirk: &str, compat: Compat) {
    let server = TestApiServer::start_with(ServerOptions { compat, ..Default::default() });
    server.apply_file(&deploy::repo().join("manifests/static-pod/rbac.yaml"));
    for i in 0..5 {
        server.create(NODES, node(&format!("n{i}")).cpu("4").memory("8Gi").pods(40).build());
    }
    let names: Vec<String> = (0..2 * PODS).map(|i| format!("p-{i:03}")).collect();
    create_pods(&server, &names[..PODS]);
    let started = deploy::static_pod(&server, Vec::new());
    let es = &started.es;
    wait_ready(es, quirk);
    create_pods(&server, &names[PODS..]);
    wait_until(T, "every pod bound", || unbound(&server, &names).is_empty())
        .unwrap_or_else(|e| panic!("{quirk}: {e}: {:?}\n{}", unbound(&server, &names), es.logs()));
    assert_each_bound_exactly_once(&server, NS, &names, &[]);
    assert_eq!(probe(es, "/readyz").0, 200, "{quirk}: still ready\n{}", probe(es, "/readyz?verbose").1);

    // The quirks that change the conversation must have happened.
    let counts = server.compat_counts();
    if compat.list_for_watch {
        let watched = server.requests().iter().filter(|r| r.query.contains("watch=")).count();
        // Every kind the default profile watches (not the what-if-only rows, nor Workloads, read
        // only by GangScheduling), but one.
        let watched_kinds = KINDS.iter().filter(|k| k.read_by != ReadBy::WhatIf && k.id != KindId::Workload).count();
        assert!(counts.lists_for_watch >= watched_kinds - 1, "{quirk}: {counts:?}");
        // Only first watches got a LIST: every watch says `watch=true`.
        assert!(server.requests().iter().filter(|r| r.query.contains("watch=")).all(|r| r.query.contains("watch=true")));
        assert!(watched > counts.lists_for_watch, "{quirk}: watches resumed after the LISTs: {watched} vs {counts:?}");
    }
    if compat.watch_closes_mid_event {
        assert!(counts.watches_cut >= 1, "{quirk}: {counts:?}");
    }
    eprintln!("COMPAT {quirk}: {} pods bound once each, {counts:?}", names.len());
}

#[test]
fn null_for_empty_structs() {
    let (name, compat) = Compat::each()[0];
    scenario(name, compat);
}

#[test]
fn numeric_quantities() {
    let (name, compat) = Compat::each()[1];
    scenario(name, compat);
}

#[test]
fn list_items_without_resource_version() {
    let (name, compat) = Compat::each()[2];
    scenario(name, compat);
}

#[test]
fn watch_streams_that_close_mid_event() {
    let (name, compat) = Compat::each()[3];
    scenario(name, compat);
}

#[test]
fn a_list_answered_to_a_watch_request() {
    let (name, compat) = Compat::each()[4];
    scenario(name, compat);
}

#[test]
fn every_quirk_at_once() {
    scenario("all", Compat::all());
}
