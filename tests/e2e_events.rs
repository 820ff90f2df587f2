//! Events end to end: the real binary writes them through its own event client (its own rate
//! limiter, as kube-scheduler's `eventClient`), so bindings and events do not share one budget,
//! and a graceful shutdown writes what is still queued within its flush budget.

mod support;

use serde_json::Value;
use std::collections::BTreeSet;
use std::time::{Duration, Instant};
use support::deploy;
use support::invariants::assert_each_bound_exactly_once;
use support::objects::{node, pod};
use support::process::{Edgesched, Launch};
use support::{wait_until, TestApiServer};

const NODES: &str = "/api/v1/nodes";
const T: Duration = Duration::from_secs(120);

fn names(prefix: &str, n: usize) -> Vec<String> {
    (0..n).map(|i| format!("{prefix}-{i:04}")).collect()
}

fn create_pods(server: &TestApiServer, ns: &str, names: &[String]) {
    for name in names {
        server.create(
            &format!("/api/v1/namespaces/{ns}/pods"),
            pod(ns, name).scheduler("edgesched").cpu("100m").memory("32Mi").build(),
        );
    }
}

/// The pods `Scheduled` events were posted for (both event APIs).
fn scheduled_events(server: &TestApiServer, ns: &str) -> BTreeSet<String> {
    let regarding =
        |e: &Value| e.get("regarding").or_else(|| e.get("involvedObject")).and_then(|r| r["name"].as_str()).map(str::to_string);
    server.events(ns).iter().filter(|e| e["reason"] == "Scheduled").filter_map(regarding).collect()
}

fn wait_bound(server: &TestApiServer, es: &Edgesched, n: usize) {
    wait_until(T, "every pod bound", || server.total_bindings() >= n)
        .unwrap_or_else(|e| panic!("{e}: {} of {n}\n{}", server.total_bindings(), es.logs()));
}

fn terminate(es: &mut Edgesched) {
    es.terminate();
    let status = es.wait_exit(T).unwrap_or_else(|| panic!("no exit after SIGTERM\n{}", es.logs()));
    assert!(status.success(), "{status:?}\n{}", es.logs());
}

#[test]
fn with_qps_50_every_scheduled_event_of_500_pods_is_posted_and_sigterm_loses_none() {
    const NS: &str = "events";
    let server = TestApiServer::start();
    server.apply_file(&deploy::repo().join("manifests/static-pod/rbac.yaml"));
    for i in 0..10 {
        server.create(NODES, node(&format!("n{i}")).cpu("8").memory("16Gi").pods(60).build());
    }
    // The shipped static pod: kube-scheduler's defaults, qps 50 and burst 100, for both clients.
    let env = vec![("EDGESCHED_EVENT_FLUSH_TIMEOUT".to_string(), "60".to_string())];
    let mut es = deploy::static_pod(&server, env).es;
    es.wait_for_log("Caches are synced", T).expect("synced");
    let pods = names("p", 500);
    create_pods(&server, NS, &pods);
    wait_bound(&server, &es, pods.len());
    // Right after the last binding: whatever is still queued must be written before exit.
    let posted_before = scheduled_events(&server, NS).len();
    terminate(&mut es);
    let posted = scheduled_events(&server, NS);
    let missing: Vec<&String> = pods.iter().filter(|p| !posted.contains(*p)).collect();
    assert!(
        missing.is_empty(),
        "{} Scheduled events missing, e.g. {:?}\n{}",
        missing.len(),
        &missing[..missing.len().min(5)],
        es.logs()
    );
    assert_each_bound_exactly_once(&server, NS, &pods, &[]);
    assert!(!es.logs().contains("dropping"), "{}", es.logs());
    eprintln!("EVENTS qps 50: {posted_before} of {} Scheduled events posted at the last binding, all after SIGTERM", pods.len());
}

#[test]
fn sigterm_writes_queued_events_within_the_flush_budget_and_says_what_it_dropped() {
    // Event writes slowed down so that a backlog is queued when the binds are done.
    let run = |ns: &str, budget: &str| {
        let server = TestApiServer::start();
        for i in 0..3 {
            server.create(NODES, node(&format!("n{i}")).cpu("8").memory("16Gi").pods(60).build());
        }
        server.set_latency_for("/events", Duration::from_millis(150));
        let launch =
            Launch { env: vec![("EDGESCHED_EVENT_FLUSH_TIMEOUT".to_string(), budget.to_string())], ..Default::default() };
        let mut es = launch.start(&server);
        es.wait_for_log("Caches are synced", T).expect("synced");
        let pods = names("q", 30);
        create_pods(&server, ns, &pods);
        wait_bound(&server, &es, pods.len());
        let queued_at = Instant::now();
        let posted_before = scheduled_events(&server, ns).len();
        assert!(posted_before < pods.len(), "the backlog this test needs did not form ({posted_before} posted)");
        terminate(&mut es);
        (scheduled_events(&server, ns).len(), pods.len(), es.logs(), queued_at.elapsed())
    };
    let (posted, total, logs, _) = run("flush", "60");
    assert_eq!(posted, total, "{logs}");
    assert!(logs.contains("Queued events written"), "{logs}");
    // A budget too small for the backlog: the rest is dropped, counted and logged.
    let (posted, total, logs, took) = run("budget", "0.3");
    assert!(posted < total, "{posted} of {total}");
    assert!(logs.contains("Event flush budget exhausted; dropping queued events"), "{logs}");
    eprintln!("EVENTS flush: 0.3 s budget wrote {posted} of {total} and exited after {:.1} s", took.as_secs_f64());
}
