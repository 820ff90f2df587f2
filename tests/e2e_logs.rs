//! End-to-end: the binary's logs as a klog text or component-base JSON log shipper reads them —
//! every line of a run parses, lines appear at kube-scheduler's verbosity levels (`--v`) with
//! upstream's messages and keys, and the `FLAG:` dump comes first at V(1).

mod support;

use serde_json::Value;
use std::time::Duration;
use support::klog_text::parse_entry;
use support::objects::{node, pod};
use support::process::{Edgesched, Launch};
use support::{wait_until, TestApiServer};

const NODES: &str = "/api/v1/nodes";
const PODS: &str = "/api/v1/namespaces/default/pods";
const T: Duration = Duration::from_secs(20);

/// One node, one pod that fits and one that does not; returns when both were handled.
fn run(extra_args: &[&str], bound_needle: &str, failed_needle: &str) -> (TestApiServer, Edgesched) {
    let server = TestApiServer::start();
    server.create(NODES, node("n1").cpu("2").build());
    let launch = Launch { extra_args: extra_args.iter().map(|s| s.to_string()).collect(), ..Launch::default() };
    let es = launch.start(&server);
    es.wait_for_log("Caches are synced", T).expect("synced");
    server.create(PODS, pod("default", "fits").scheduler("edgesched").cpu("100m").build());
    server.create(PODS, pod("default", "big").scheduler("edgesched").cpu("4").build());
    es.wait_for_log(bound_needle, T).expect("bound");
    es.wait_for_log(failed_needle, T).expect("unschedulable");
    (server, es)
}

/// Parse the whole text log; every entry must be klog's.
fn entries(logs: &str) -> Vec<support::klog_text::Entry> {
    let mut rest = logs;
    let mut out = Vec::new();
    while !rest.is_empty() {
        let (e, r) = parse_entry(rest).unwrap_or_else(|e| panic!("unparsable log at {:?}: {e}", &rest[..rest.len().min(300)]));
        out.push(e);
        rest = r;
    }
    out
}

#[test]
fn text_logs_at_v4_carry_the_cycle_at_upstream_levels() {
    let (_server, es) = run(
        &["--v=4"],
        r#""Successfully bound pod to node" pod="default/fits" node="n1""#,
        r#""Unable to schedule pod; no fit; waiting" pod="default/big""#,
    );
    wait_until(T, "the failed attempt's queue move", || es.logs().contains(r#"event="ScheduleAttemptFailure""#)).expect("moved");
    let logs = es.logs();
    let all = entries(&logs);
    let has =
        |msg: &str, key: &str, value: &str| all.iter().any(|e| e.msg == msg && e.kv.iter().any(|(k, v)| k == key && v == value));
    // V(1): the flag dump, first, quoted as pflag values are.
    assert!(all[0].msg.starts_with("FLAG: --"), "{}", all[0].msg);
    assert!(all.iter().any(|e| e.msg == r#"FLAG: --v="4""#));
    assert!(all.iter().any(|e| e.msg == r#"FLAG: --leader-elect="true""#));
    // V(2), V(3), V(4) lines of schedule_one.go, eventhandlers.go, default_binder.go.
    assert!(has("Attempting to schedule pod", "pod", "default/fits"));
    assert!(has("About to try and schedule pod", "pod", "default/fits"));
    assert!(has("Attempting to bind pod to node", "node", "n1"));
    assert!(has("Add event for node", "node", "n1"));
    assert!(has("Add event for unscheduled pod", "pod", "default/big"));
    assert!(has("Pod moved to an internal scheduling queue", "unschedulable plugins", "[NodeResourcesFit]"));
    let failed = all.iter().find(|e| e.msg == "Unable to schedule pod; no fit; waiting").expect("failure line");
    assert!(failed.kv.iter().any(|(k, v)| k == "err" && v.starts_with("0/1 nodes are available: 1 Insufficient cpu.")));
    // V(5) is above --v=4.
    assert!(!logs.contains(r#"event="UnschedulablePodAdd""#), "V(5) queue moves at --v=4");
    // The configuration is one multi-line value, at V(2).
    assert!(all.iter().any(|e| e.msg == "Using component config" && e.kv[0].1.contains("kind: KubeSchedulerConfiguration")));
}

#[test]
fn text_logs_at_v2_leave_out_v3_except_where_vmodule_raises_it() {
    let (_server, es) = run(
        &["--vmodule=queue=5"],
        r#""Successfully bound pod to node" pod="default/fits" node="n1""#,
        r#""Unable to schedule pod; no fit; waiting" pod="default/big""#,
    );
    let logs = es.logs();
    entries(&logs);
    assert!(!logs.contains("Attempting to schedule pod"), "V(3) at --v=2");
    // queue.rs at V(5) through --vmodule, as klog matches file names.
    assert!(
        logs.contains(r#""Pod moved to an internal scheduling queue" pod="default/fits" event="UnschedulablePodAdd""#),
        "{logs}"
    );
    assert!(logs.contains(r#""FLAG: --v=\"2\"""#), "the V(1) flag dump at --v=2");
}

#[test]
fn json_logs_have_component_base_shape() {
    let (_server, es) = run(
        &["--logging-format=json", "--v=3"],
        r#""msg":"Successfully bound pod to node""#,
        r#""msg":"Unable to schedule pod; no fit; waiting""#,
    );
    let logs = es.logs();
    let lines: Vec<Value> =
        logs.lines().map(|l| serde_json::from_str(l).unwrap_or_else(|e| panic!("not JSON ({e}): {l}"))).collect();
    for l in &lines {
        assert!(l["ts"].is_number(), "{l}");
        assert!(l["caller"].as_str().is_some_and(|c| c.contains(".rs:")), "{l}");
        assert!(l["msg"].is_string(), "{l}");
    }
    let find = |msg: &str| lines.iter().find(|l| l["msg"] == msg).unwrap_or_else(|| panic!("no {msg:?} in {logs}"));
    let attempt = find("Attempting to schedule pod");
    assert_eq!(attempt["v"], 3);
    assert!(lines
        .iter()
        .any(|l| l["msg"] == "Attempting to schedule pod"
            && l["pod"] == serde_json::json!({"name": "fits", "namespace": "default"})));
    let bound = find("Successfully bound pod to node");
    assert_eq!(bound["v"], 2);
    assert_eq!(bound["node"], serde_json::json!({"name": "n1"}));
    assert_eq!(bound["evaluatedNodes"], 1);
    assert_eq!(find("FLAG: --logging-format=\"json\"")["v"], 1);
    assert!(!logs.contains("About to try and schedule pod"), "V(4) at --v=3");
}
