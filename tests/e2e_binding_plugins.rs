//! End-to-end: out-of-tree binding-cycle plugins (`examples/binding_hooks`, a custom build made
//! with the plugin API) run on the binder threads against the test API server, under the
//! scheduler's identity and RBAC: a Bind plugin binds the pods it owns with its own binding, the
//! DefaultBinder binds the ones it skips, a PreBind plugin reading the live pod holds a pod
//! (which fails with the plugin's message and binds once released), PostBind runs after each
//! binding.

mod support;

use serde_json::json;
use std::time::Duration;
use support::objects::{node, pod};
use support::process::{example_binary, Edgesched, Launch};
use support::{wait_until, TestApiServer};

const NODES: &str = "/api/v1/nodes";
const PODS: &str = "/api/v1/namespaces/default/pods";
const T: Duration = Duration::from_secs(60);

fn start(server: &TestApiServer) -> Edgesched {
    let es = Launch {
        program: Some(example_binary("binding_hooks")),
        profile_extra: "  plugins:\n    preBind:\n      enabled:\n      - name: Handoff\n    bind:\n      enabled:\n      - name: Handoff\n      - name: DefaultBinder\n      disabled:\n      - name: '*'\n    postBind:\n      enabled:\n      - name: Handoff\n".into(),
        ..Default::default()
    }
    .start(server);
    es.wait_for_log("Caches are synced", T).unwrap_or_else(|e| panic!("{e}\n{}", es.logs()));
    es
}

fn node_of(server: &TestApiServer, name: &str) -> String {
    server.get(&format!("{PODS}/{name}")).and_then(|p| p["spec"]["nodeName"].as_str().map(String::from)).unwrap_or_default()
}

#[test]
fn bind_pre_bind_and_post_bind_plugins_take_part_in_binding() {
    let server = TestApiServer::start();
    server.create(NODES, node("n1").cpu("4").build());
    let es = start(&server);
    server
        .create(PODS, pod("default", "owned").scheduler("edgesched").cpu("100m").label("example.com/binder", "handoff").build());
    server.create(PODS, pod("default", "plain").scheduler("edgesched").cpu("100m").build());
    let mut held = pod("default", "held").scheduler("edgesched").cpu("100m").build();
    held["metadata"]["annotations"] = json!({"example.com/hold": "true"});
    server.create(PODS, held);

    wait_until(T, "owned and plain bound", || node_of(&server, "owned") == "n1" && node_of(&server, "plain") == "n1")
        .unwrap_or_else(|e| panic!("{e}\n{}", es.logs()));
    let owned = server.get(&format!("{PODS}/owned")).expect("owned");
    assert_eq!(owned["metadata"]["annotations"]["example.com/bound-by"], "Handoff", "the plugin's own binding");
    let plain = server.get(&format!("{PODS}/plain")).expect("plain");
    assert!(plain["metadata"]["annotations"]["example.com/bound-by"].is_null(), "skipped: bound by the DefaultBinder");
    for name in ["owned", "plain"] {
        es.wait_for_log(&format!(r#""Handoff: pod bound" pod="default/{name}" node="n1""#), T)
            .unwrap_or_else(|e| panic!("{e}\n{}", es.logs()));
    }

    wait_until(T, "held fails at PreBind", || {
        server.events("default").iter().any(|e| {
            e["reason"] == "FailedScheduling"
                && e["regarding"]["name"] == "held"
                && e["note"]
                    .as_str()
                    .is_some_and(|n| n.contains(r#"running PreBind plugin "Handoff": pod is on hold (example.com/hold)"#))
        })
    })
    .unwrap_or_else(|e| panic!("{e}\n{}", es.logs()));
    assert_eq!(node_of(&server, "held"), "");
    assert_eq!(server.bindings("default", "held"), 0);

    // Released: the retry after the backoff binds it (an update of the pod also requeues it).
    let mut released = server.get(&format!("{PODS}/held")).expect("held");
    released["metadata"]["annotations"]["example.com/hold"] = json!("false");
    server.update(&format!("{PODS}/held"), released);
    wait_until(T, "held bound once released", || node_of(&server, "held") == "n1")
        .unwrap_or_else(|e| panic!("{e}\n{}", es.logs()));
}
