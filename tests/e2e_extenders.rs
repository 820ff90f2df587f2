//! End-to-end: the real binary consults an upstream-style HTTP extender (filter, prioritize, bind)
//! while scheduling pods of the test API server (which enforces RBAC under the scheduler's
//! identity), alongside an ignorable extender that is slow and one that fails.

mod support;

use serde_json::{json, Value};
use std::sync::mpsc;
use std::time::Duration;
use support::extender::{offered, TestExtender};
use support::objects::{node, pod};
use support::process::Launch;
use support::{wait_until, TestApiServer};

const NODES: &str = "/api/v1/nodes";
const PODS: &str = "/api/v1/namespaces/default/pods";
const T: Duration = Duration::from_secs(30);

fn node_of(server: &TestApiServer, name: &str) -> Option<String> {
    server
        .get(&format!("{PODS}/{name}"))
        .and_then(|p| p["spec"]["nodeName"].as_str().map(str::to_string))
        .filter(|n| !n.is_empty())
}

#[test]
fn extender_filters_prioritizes_and_binds() {
    let server = TestApiServer::start();
    server.create(NODES, node("n-deny").cpu("4").label("ext", "deny").build());
    server.create(NODES, node("n-best").cpu("4").label("ext", "best").build());
    server.create(NODES, node("n-ok").cpu("4").build());

    // The extender server: keeps nodes not labelled ext=deny, scores ext=best 10, binds GPU pods
    // by asking the test (which writes the binding as an administrator would). It is configured
    // twice: as filter and prioritizer for every pod, and as binder for pods using its resource.
    let (bind_tx, bind_rx) = mpsc::channel::<(Value, mpsc::Sender<()>)>();
    let bind_tx = std::sync::Mutex::new(bind_tx);
    let main = TestExtender::start(move |verb, args| match verb {
        "filter" => {
            let items = args["Nodes"]["items"].as_array().cloned().unwrap_or_default();
            let (deny, keep): (Vec<Value>, Vec<Value>) =
                items.into_iter().partition(|n| n["metadata"]["labels"]["ext"] == "deny");
            let failed: serde_json::Map<String, Value> = deny
                .iter()
                .filter_map(|n| n["metadata"]["name"].as_str().map(|s| (s.to_string(), json!("denied by the test extender"))))
                .collect();
            (200, json!({ "Nodes": { "items": keep }, "FailedNodes": failed }).to_string())
        }
        "prioritize" => {
            let scores: Vec<Value> =
                offered(args).into_iter().map(|n| json!({ "Host": n, "Score": if n == "n-best" { 10 } else { 0 } })).collect();
            (200, Value::Array(scores).to_string())
        }
        "bind" => {
            let (done_tx, done_rx) = mpsc::channel();
            if let Ok(tx) = bind_tx.lock() {
                let _ = tx.send((args.clone(), done_tx));
            }
            let ok = done_rx.recv_timeout(Duration::from_secs(20)).is_ok();
            (200, json!({ "Error": if ok { "" } else { "not bound" } }).to_string())
        }
        _ => (404, String::new()),
    });
    // Ignorable helpers: one never answers in time, one answers 500.
    let slow = TestExtender::start(|_, _| {
        std::thread::sleep(Duration::from_millis(1500));
        (200, "{}".into())
    });
    let failing = TestExtender::start(|_, _| (500, "boom".into()));

    let extra = format!(
        "extenders:\n- urlPrefix: {}\n  filterVerb: filter\n  prioritizeVerb: prioritize\n  weight: 5\n- urlPrefix: {}\n  bindVerb: bind\n  managedResources:\n  - name: example.com/gpu\n    ignoredByScheduler: true\n- urlPrefix: {}\n  filterVerb: filter\n  ignorable: true\n  httpTimeout: 200ms\n  nodeCacheCapable: true\n- urlPrefix: {}\n  prioritizeVerb: prioritize\n  weight: 1\n  ignorable: true\n  nodeCacheCapable: true\n",
        main.url(),
        main.url(),
        slow.url(),
        failing.url()
    );
    let es = Launch { extra_config: extra, ..Default::default() }.start(&server);
    es.wait_for_log("Caches are synced", T).unwrap_or_else(|e| panic!("{e}\n{}", es.logs()));

    // A plain pod: the extender filters n-deny out and prefers n-best; the DefaultBinder binds
    // (the binding extender only wants pods using its managed resource).
    server.create(PODS, pod("default", "web").scheduler("edgesched").cpu("100m").build());
    wait_until(T, "web bound", || node_of(&server, "web").is_some()).unwrap_or_else(|e| panic!("{e}\n{}", es.logs()));
    assert_eq!(
        node_of(&server, "web").as_deref(),
        Some("n-best"),
        "{:?}\n{}",
        main.requests.lock().map(|r| r.iter().map(|x| x.0.clone()).collect::<Vec<_>>()),
        es.logs()
    );
    let filter = main.calls("filter");
    assert!(
        !filter.is_empty(),
        "{:?}\n{}",
        main.requests.lock().map(|r| r.iter().map(|x| x.0.clone()).collect::<Vec<_>>()),
        es.logs()
    );
    assert_eq!(filter[0]["Pod"]["metadata"]["name"], "web");
    assert_eq!(filter[0]["NodeNames"], Value::Null, "not nodeCacheCapable: full nodes");
    assert!(main.calls("bind").is_empty());
    assert!(!slow.calls("filter").is_empty() && !failing.calls("prioritize").is_empty(), "the ignorable extenders were asked");

    // A pod using the managed resource: NodeResourcesFit ignores it (no node advertises it) and
    // the extender binds it.
    server.create(PODS, pod("default", "gpu-job").scheduler("edgesched").cpu("100m").resource("example.com/gpu", "1").build());
    let (args, done) = bind_rx.recv_timeout(T).unwrap_or_else(|e| panic!("no bind request: {e}\n{}", es.logs()));
    assert_eq!((args["PodName"].as_str(), args["PodNamespace"].as_str()), (Some("gpu-job"), Some("default")));
    let target = args["Node"].as_str().unwrap_or_default().to_string();
    assert_eq!(target, "n-best");
    server.bind("default", "gpu-job", &target).expect("the extender's binding");
    let _ = done.send(());
    wait_until(T, "gpu-job bound", || node_of(&server, "gpu-job").is_some()).expect("bound");
    wait_until(T, "Scheduled event for gpu-job", || {
        server.events("default").iter().any(|e| e["regarding"]["name"] == "gpu-job" && e["reason"] == "Scheduled")
    })
    .unwrap_or_else(|e| panic!("{e}\n{}", es.logs()));
    assert_eq!(server.bindings("default", "gpu-job"), 1, "the DefaultBinder did not bind it too");

    // A pod only the denied node could take: the extender's reason reaches the event.
    server.create(PODS, pod("default", "nowhere").scheduler("edgesched").cpu("100m").node_selector("ext", "deny").build());
    wait_until(T, "FailedScheduling for nowhere", || {
        server.events("default").iter().any(|e| e["regarding"]["name"] == "nowhere" && e["reason"] == "FailedScheduling")
    })
    .unwrap_or_else(|e| panic!("{e}\n{}", es.logs()));
    let events = server.events("default");
    let note = events
        .iter()
        .find(|e| e["regarding"]["name"] == "nowhere" && e["reason"] == "FailedScheduling")
        .and_then(|e| e["note"].as_str())
        .unwrap_or_default()
        .to_string();
    assert!(
        note.starts_with(
            "0/3 nodes are available: 1 denied by the test extender, 2 node(s) didn't match Pod's node affinity/selector."
        ),
        "{note}"
    );
    assert!(node_of(&server, "nowhere").is_none());
}

#[test]
fn https_extender_with_ca_and_client_certificate() {
    let server = TestApiServer::start();
    server.create(NODES, node("n1").cpu("4").build());
    server.create(NODES, node("n2").cpu("4").build());
    let ca = support::certs::TestCa::new();
    let serving = ca.issue_server_cert();
    let client = ca.issue_client_cert("edgesched-extender-client", &[]);
    let clients = std::sync::Arc::new(std::sync::Mutex::new(Vec::new()));
    let ext = TestExtender::start_https(&ca, &serving, clients.clone(), |verb, args| match verb {
        "filter" => {
            let keep: Vec<String> = offered(args).into_iter().filter(|n| n == "n2").collect();
            (200, json!({ "NodeNames": keep }).to_string())
        }
        _ => (404, String::new()),
    });
    let dir = support::tempdir("extender-tls");
    let write = |name: &str, text: &str| {
        let path = dir.path().join(name);
        std::fs::write(&path, text).expect("write");
        path.display().to_string()
    };
    let (ca_file, cert_file, key_file) =
        (write("ca.pem", ca.ca_pem()), write("client.pem", &client.cert_pem), write("client-key.pem", &client.key_pem));
    let extra = format!(
        "extenders:\n- urlPrefix: https://127.0.0.1:{}/\n  filterVerb: filter\n  nodeCacheCapable: true\n  enableHTTPS: true\n  httpTimeout: 10s\n  tlsConfig:\n    caFile: {ca_file}\n    certFile: {cert_file}\n    keyFile: {key_file}\n",
        ext.port
    );
    let es = Launch { extra_config: extra, ..Default::default() }.start(&server);
    es.wait_for_log("Caches are synced", T).unwrap_or_else(|e| panic!("{e}\n{}", es.logs()));
    server.create(PODS, pod("default", "tls").scheduler("edgesched").cpu("100m").build());
    wait_until(T, "tls bound", || node_of(&server, "tls").is_some()).unwrap_or_else(|e| panic!("{e}\n{}", es.logs()));
    assert_eq!(node_of(&server, "tls").as_deref(), Some("n2"), "{}", es.logs());
    let mut asked = offered(&ext.calls("filter")[0]);
    asked.sort();
    assert_eq!(asked, vec!["n1".to_string(), "n2".to_string()], "nodeCacheCapable: node names");
    assert_eq!(clients.lock().map(|c| c.first().cloned()).ok().flatten().as_deref(), Some("edgesched-extender-client"));
}

#[test]
fn extenders_receive_the_pod_as_the_api_server_sent_it() {
    // Upstream sends the whole v1.Pod: fields the scheduler itself never reads are there too.
    let server = TestApiServer::start();
    server.create(NODES, node("n1").cpu("4").build());
    let ext = TestExtender::start(|verb, args| match verb {
        "filter" => (200, json!({ "NodeNames": offered(args) }).to_string()),
        _ => (404, String::new()),
    });
    let extra = format!("extenders:\n- urlPrefix: {}\n  filterVerb: filter\n  nodeCacheCapable: true\n", ext.url());
    let es = Launch { extra_config: extra, ..Default::default() }.start(&server);
    es.wait_for_log("Caches are synced", T).unwrap_or_else(|e| panic!("{e}\n{}", es.logs()));
    let mut p = pod("default", "full").scheduler("edgesched").cpu("100m").build();
    p["spec"]["containers"][0]["env"] = json!([{ "name": "EDGE_SITE", "value": "north" }]);
    p["spec"]["terminationGracePeriodSeconds"] = json!(7);
    server.create(PODS, p);
    wait_until(T, "full bound", || node_of(&server, "full").is_some()).unwrap_or_else(|e| panic!("{e}\n{}", es.logs()));
    let sent = &ext.calls("filter")[0]["Pod"];
    assert_eq!(sent["spec"]["containers"][0]["env"][0]["value"], "north", "{sent}");
    assert_eq!(sent["spec"]["terminationGracePeriodSeconds"], 7);
    assert_eq!(sent["metadata"]["name"], "full");
}

#[test]
fn https_extender_verified_against_a_server_name_other_than_the_url_host() {
    // tlsConfig.serverName (Go's tls.Config.ServerName): the certificate names only
    // `extender.test`, the URL has the address; SNI and verification use the server name.
    let server = TestApiServer::start();
    server.create(NODES, node("n1").cpu("4").build());
    server.create(NODES, node("n2").cpu("4").build());
    let ca = support::certs::TestCa::new();
    let serving = ca.issue_server_cert_for(&["extender.test"]);
    let clients = std::sync::Arc::new(std::sync::Mutex::new(Vec::new()));
    let ext = TestExtender::start_https(&ca, &serving, clients, |verb, args| match verb {
        "filter" => {
            let keep: Vec<String> = offered(args).into_iter().filter(|n| n == "n1").collect();
            (200, json!({ "NodeNames": keep }).to_string())
        }
        _ => (404, String::new()),
    });
    let dir = support::tempdir("extender-sni");
    let ca_file = dir.path().join("ca.pem");
    std::fs::write(&ca_file, ca.ca_pem()).expect("write");
    let extra = format!(
        "extenders:\n- urlPrefix: https://127.0.0.1:{}/\n  filterVerb: filter\n  nodeCacheCapable: true\n  enableHTTPS: true\n  httpTimeout: 10s\n  tlsConfig:\n    caFile: {}\n    serverName: extender.test\n",
        ext.port,
        ca_file.display()
    );
    let es = Launch { extra_config: extra, ..Default::default() }.start(&server);
    es.wait_for_log("Caches are synced", T).unwrap_or_else(|e| panic!("{e}\n{}", es.logs()));
    server.create(PODS, pod("default", "sni").scheduler("edgesched").cpu("100m").build());
    wait_until(T, "sni bound", || node_of(&server, "sni").is_some()).unwrap_or_else(|e| panic!("{e}\n{}", es.logs()));
    assert_eq!(node_of(&server, "sni").as_deref(), Some("n1"), "the extender was reached and trusted\n{}", es.logs());
}

#[test]
fn a_preempting_extender_narrows_the_candidates() {
    let server = TestApiServer::start();
    server.create(NODES, node("n1").cpu("1").build());
    server.create(NODES, node("n2").cpu("1").build());
    // Alone, DefaultPreemption would choose n1: its victim started last.
    for (name, node_name, started) in [("low-1", "n1", "2026-01-02T00:00:00Z"), ("low-2", "n2", "2026-01-01T00:00:00Z")] {
        server.create(PODS, pod("default", name).scheduler("edgesched").cpu("1").priority(1).node_name(node_name).build());
        server.patch_merge(&format!("{PODS}/{name}/status"), json!({"status": {"phase": "Running", "startTime": started}}));
    }
    // The extender keeps only n2's victims (by UID, as nodeCacheCapable extenders answer).
    let ext = TestExtender::start(|verb, args| match verb {
        "preempt" => {
            let victims = &args["NodeNameToMetaVictims"]["n2"];
            (200, json!({ "NodeNameToMetaVictims": { "n2": victims } }).to_string())
        }
        _ => (404, String::new()),
    });
    let extra = format!("extenders:\n- urlPrefix: {}\n  preemptVerb: preempt\n  nodeCacheCapable: true\n", ext.url());
    let es = Launch { extra_config: extra, ..Default::default() }.start(&server);
    es.wait_for_log("Caches are synced", T).unwrap_or_else(|e| panic!("{e}\n{}", es.logs()));
    server.create(PODS, pod("default", "high").scheduler("edgesched").cpu("1").priority(1000).build());
    wait_until(T, "low-2 evicted", || server.get(&format!("{PODS}/low-2")).is_none())
        .unwrap_or_else(|e| panic!("{e}\n{}", es.logs()));
    wait_until(T, "high bound", || node_of(&server, "high").is_some()).unwrap_or_else(|e| panic!("{e}\n{}", es.logs()));
    assert_eq!(node_of(&server, "high").as_deref(), Some("n2"));
    assert!(server.get(&format!("{PODS}/low-1")).is_some(), "the extender's choice, not DefaultPreemption's");
    let asked = ext.calls("preempt");
    let mut offered: Vec<&String> = asked[0]["NodeNameToMetaVictims"].as_object().map(|m| m.keys().collect()).unwrap_or_default();
    offered.sort();
    assert_eq!(offered, vec!["n1", "n2"], "both candidates were offered");
    assert_eq!(asked[0]["NodeNameToVictims"], Value::Null);
}
