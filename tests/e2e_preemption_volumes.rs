//! End-to-end: preemption and volumes through the real binary — a high-priority pod evicts the
//! right victim (upstream's minimal set: lowest priority, latest start) and lands on its nominated
//! node; WaitForFirstConsumer claims get `volume.kubernetes.io/selected-node` before the pod is
//! bound, and the pod its `.status.nominatedNodeName` while that PreBind lasts; bound local PVs pin pods to their node; unbound Immediate claims are reported; in-tree
//! AWS EBS volumes count against the node's CSINode attach limit of their CSI driver.

mod support;

use serde_json::{json, Value};
use std::time::Duration;
use support::objects::{node, pod};
use support::process::{Edgesched, Launch};
use support::wait::wait_for;
use support::{wait_until, TestApiServer};

const NODES: &str = "/api/v1/nodes";
const NS: &str = "default";
const PODS: &str = "/api/v1/namespaces/default/pods";
const PVCS: &str = "/api/v1/namespaces/default/persistentvolumeclaims";
const PVS: &str = "/api/v1/persistentvolumes";
const CLASSES: &str = "/apis/storage.k8s.io/v1/storageclasses";
const PRIORITY_CLASSES: &str = "/apis/scheduling.k8s.io/v1/priorityclasses";
const T: Duration = Duration::from_secs(20);

fn node_of(server: &TestApiServer, name: &str) -> Option<String> {
    server
        .get(&format!("{PODS}/{name}"))
        .and_then(|p| p["spec"]["nodeName"].as_str().map(str::to_string))
        .filter(|n| !n.is_empty())
}

fn wait_bound(server: &TestApiServer, es: &Edgesched, name: &str) -> String {
    wait_for(T, &format!("{name} bound"), || node_of(server, name)).unwrap_or_else(|e| panic!("{e}\n{}", es.logs()))
}

fn priority_class(name: &str, value: i64) -> Value {
    json!({"apiVersion": "scheduling.k8s.io/v1", "kind": "PriorityClass", "metadata": {"name": name}, "value": value})
}

/// A running pod already on `node`, started at `started` (RFC 3339).
fn running(server: &TestApiServer, name: &str, node: &str, cpu: &str, class: &str, started: &str) {
    server.create(PODS, pod(NS, name).scheduler("edgesched").cpu(cpu).priority_class(class).node_name(node).build());
    server.patch_merge(&format!("{PODS}/{name}/status"), json!({"status": {"phase": "Running", "startTime": started}}));
}

fn claim(name: &str, class: &str) -> Value {
    json!({
        "apiVersion": "v1", "kind": "PersistentVolumeClaim",
        "metadata": {"name": name, "namespace": NS},
        "spec": {"accessModes": ["ReadWriteOnce"], "storageClassName": class, "resources": {"requests": {"storage": "1Gi"}}}
    })
}

fn with_claim(p: support::objects::PodBuilder, claim: &str) -> Value {
    p.spec_field("volumes", json!([{"name": "data", "persistentVolumeClaim": {"claimName": claim}}])).build()
}

/// Act as the local-path provisioner and the PV controller: create a volume on `node` for the
/// claim and bind the two.
fn provision(server: &TestApiServer, claim_name: &str, pv: &str, node: &str) {
    let claim = server.get(&format!("{PVCS}/{claim_name}")).expect("claim");
    server.create(
        PVS,
        json!({"apiVersion": "v1", "kind": "PersistentVolume", "metadata": {"name": pv},
               "spec": {"capacity": {"storage": "1Gi"}, "accessModes": ["ReadWriteOnce"], "storageClassName": "local-path",
                        "hostPath": {"path": format!("/var/lib/local-path/{pv}")},
                        "claimRef": {"namespace": NS, "name": claim_name, "uid": claim["metadata"]["uid"]},
                        "nodeAffinity": {"required": {"nodeSelectorTerms": [{"matchExpressions": [
                            {"key": "kubernetes.io/hostname", "operator": "In", "values": [node]}]}]}}}}),
    );
    server.patch_merge(&format!("{PVS}/{pv}/status"), json!({"status": {"phase": "Bound"}}));
    server.patch_merge(
        &format!("{PVCS}/{claim_name}"),
        json!({"metadata": {"annotations": {"pv.kubernetes.io/bind-completed": "yes"}}, "spec": {"volumeName": pv}}),
    );
    server.patch_merge(&format!("{PVCS}/{claim_name}/status"), json!({"status": {"phase": "Bound"}}));
}

#[test]
fn high_priority_pod_preempts_the_least_important_victim_and_lands_on_the_nominated_node() {
    let server = TestApiServer::start();
    server.create(PRIORITY_CLASSES, priority_class("low", 10));
    server.create(PRIORITY_CLASSES, priority_class("mid", 1000));
    server.create(PRIORITY_CLASSES, priority_class("critical", 100_000));
    server.create(NODES, node("n1").cpu("2").build());
    server.create(NODES, node("n2").cpu("2").build());
    // n1: two low-priority pods; n2: one mid-priority pod. Both nodes are full.
    running(&server, "low-old", "n1", "1", "low", "2026-01-01T00:00:00Z");
    running(&server, "low-new", "n1", "1", "low", "2026-01-02T00:00:00Z");
    running(&server, "mid", "n2", "2", "mid", "2026-01-01T00:00:00Z");
    let es = Launch::default().start(&server);
    es.wait_for_log("Caches are synced", T).expect("synced");

    let low_new_uid = server.get(&format!("{PODS}/low-new")).expect("low-new")["metadata"]["uid"].clone();
    server.create(PODS, pod(NS, "critical").scheduler("edgesched").cpu("1").priority_class("critical").build());

    // The victim: on the node whose victims have the lowest priority, the pod that started last.
    wait_until(T, "low-new evicted", || server.get(&format!("{PODS}/low-new")).is_none())
        .unwrap_or_else(|e| panic!("{e}\n{}", es.logs()));
    assert_eq!(wait_bound(&server, &es, "critical"), "n1");
    assert!(server.get(&format!("{PODS}/low-old")).is_some(), "one victim is enough");
    assert!(server.get(&format!("{PODS}/mid")).is_some(), "higher-priority victims are avoided");

    // The preemptor was nominated first, as upstream does.
    // (The status patch and the binding run on different API workers; wait for the patch.)
    let nominated = || {
        server
            .requests()
            .into_iter()
            .any(|r| r.method == "PATCH" && r.path.ends_with("/pods/critical/status") && r.body.contains("nominatedNodeName"))
    };
    wait_until(T, "status.nominatedNodeName set", nominated).unwrap_or_else(|e| panic!("{e}\n{}", es.logs()));
    // The victim got a DisruptionTarget condition, a UID-preconditioned delete and a Preempted event.
    let requests = server.requests();
    let disruption = requests
        .iter()
        .position(|r| r.method == "PATCH" && r.path.ends_with("/pods/low-new/status") && r.body.contains("DisruptionTarget"));
    let delete = requests.iter().position(|r| r.method == "DELETE" && r.path.ends_with("/pods/low-new"));
    assert!(disruption.is_some() && delete.is_some() && disruption < delete, "condition, then delete: {disruption:?} {delete:?}");
    let delete_body = &requests[delete.unwrap_or_default()].body;
    assert!(delete_body.contains(low_new_uid.as_str().unwrap_or("?")), "delete carries the UID precondition: {delete_body}");
    // The event recorder writes asynchronously; the binding may land first.
    let preempted_events = || -> Vec<Value> {
        server.events(NS).into_iter().filter(|e| e["reason"] == "Preempted" && e["regarding"]["name"] == "low-new").collect()
    };
    wait_until(T, "Preempted event", || !preempted_events().is_empty())
        .unwrap_or_else(|e| panic!("{e}: {:?}", server.events(NS)));
    let preempted = preempted_events();
    assert_eq!(preempted.len(), 1, "{:?}", server.events(NS));
    let critical_uid = server.get(&format!("{PODS}/critical")).expect("critical")["metadata"]["uid"].clone();
    assert_eq!(preempted[0]["note"], format!("Preempted by pod {} on node n1", critical_uid.as_str().unwrap_or("?")));
    // The preemptor is the related object (executor.go: `Eventf(victim, preemptor, ...)`).
    assert_eq!(preempted[0]["related"]["kind"], "Pod", "{}", preempted[0]);
    assert_eq!(preempted[0]["related"]["name"], "critical", "{}", preempted[0]);
    assert_eq!(preempted[0]["related"]["uid"], critical_uid, "{}", preempted[0]);
}

#[test]
fn preemption_policy_never_waits_instead_of_evicting() {
    let server = TestApiServer::start();
    server.create(PRIORITY_CLASSES, priority_class("low", 10));
    let mut polite = priority_class("polite", 100_000);
    polite["preemptionPolicy"] = json!("Never");
    server.create(PRIORITY_CLASSES, polite);
    server.create(NODES, node("n1").cpu("1").build());
    running(&server, "low", "n1", "1", "low", "2026-01-01T00:00:00Z");
    let es = Launch::default().start(&server);
    es.wait_for_log("Caches are synced", T).expect("synced");
    server.create(PODS, pod(NS, "polite").scheduler("edgesched").cpu("1").priority_class("polite").build());
    wait_until(T, "FailedScheduling for polite", || {
        server.events(NS).iter().any(|e| e["reason"] == "FailedScheduling" && e["regarding"]["name"] == "polite")
    })
    .unwrap_or_else(|e| panic!("{e}\n{}", es.logs()));
    assert!(server.get(&format!("{PODS}/low")).is_some(), "no victim for a pod with preemptionPolicy Never");
    assert_eq!(server.requests_matching("DELETE", "/pods/low"), 0);
    // Room appears: the waiting pod is scheduled.
    server.delete(&format!("{PODS}/low"));
    assert_eq!(wait_bound(&server, &es, "polite"), "n1");
}

#[test]
fn wait_for_first_consumer_claim_gets_the_selected_node_before_the_pod_is_bound() {
    let server = TestApiServer::start();
    server.create(
        CLASSES,
        json!({"apiVersion": "storage.k8s.io/v1", "kind": "StorageClass", "metadata": {"name": "local-path"},
               "provisioner": "rancher.io/local-path", "volumeBindingMode": "WaitForFirstConsumer", "reclaimPolicy": "Delete"}),
    );
    server.create(NODES, node("small").cpu("1").build());
    server.create(NODES, node("big").cpu("8").build());
    server.create(PVCS, claim("data", "local-path"));
    let es = Launch::default().start(&server);
    es.wait_for_log("Caches are synced", T).expect("synced");
    server.create(PODS, with_claim(pod(NS, "db").scheduler("edgesched").cpu("2"), "data"));

    // The scheduler picks the node and tells the provisioner through the claim...
    let selected = wait_for(T, "selected-node annotation", || {
        server
            .get(&format!("{PVCS}/data"))
            .and_then(|c| c["metadata"]["annotations"]["volume.kubernetes.io/selected-node"].as_str().map(str::to_string))
    })
    .unwrap_or_else(|e| panic!("{e}\n{}", es.logs()));
    assert_eq!(selected, "big", "only big has 2 cpu");
    // The pod's node is recorded while PreBind works (v1.35's NominatedNodeNameForExpectation:
    // written before PreBind starts).
    let nominated =
        || server.get(&format!("{PODS}/db")).and_then(|p| p["status"]["nominatedNodeName"].as_str().map(str::to_string));
    assert_eq!(nominated().as_deref(), Some("big"));
    // ...and binds the pod only once the volume exists: upstream's PreBind waits for the claim.
    std::thread::sleep(Duration::from_millis(700));
    assert!(node_of(&server, "db").is_none(), "not bound before the claim is");
    provision(&server, "data", "pv-data", &selected);
    assert_eq!(wait_bound(&server, &es, "db"), "big");
    // The binding cleared it (the v1.35 API server's ClearingNominatedNodeNameAfterBinding).
    assert_eq!(nominated(), None);
    // The provisioner is told first; the pod is bound after.
    let requests = server.requests();
    let annotate = requests.iter().position(|r| {
        matches!(r.method.as_str(), "PUT" | "PATCH")
            && r.path.ends_with("/persistentvolumeclaims/data")
            && r.body.contains("selected-node")
    });
    let bind = requests.iter().position(|r| r.method == "POST" && r.path.ends_with("/pods/db/binding"));
    assert!(annotate.is_some() && bind.is_some() && annotate < bind, "annotate {annotate:?} before bind {bind:?}");
}

#[test]
fn bound_local_volume_pins_the_pod_and_unbound_immediate_claims_are_reported() {
    let server = TestApiServer::start();
    server.create(
        CLASSES,
        json!({"apiVersion": "storage.k8s.io/v1", "kind": "StorageClass", "metadata": {"name": "local"},
               "provisioner": "kubernetes.io/no-provisioner", "volumeBindingMode": "WaitForFirstConsumer"}),
    );
    server.create(
        CLASSES,
        json!({"apiVersion": "storage.k8s.io/v1", "kind": "StorageClass", "metadata": {"name": "immediate"},
               "provisioner": "example.com/nfs", "volumeBindingMode": "Immediate"}),
    );
    server.create(NODES, node("n1").cpu("2").build());
    server.create(NODES, node("n2").cpu("16").build());
    server.create(
        PVS,
        json!({"apiVersion": "v1", "kind": "PersistentVolume", "metadata": {"name": "pv-n1"},
               "spec": {"capacity": {"storage": "5Gi"}, "accessModes": ["ReadWriteOnce"], "storageClassName": "local",
                        "local": {"path": "/mnt/disk1"},
                        "claimRef": {"namespace": NS, "name": "pinned"},
                        "nodeAffinity": {"required": {"nodeSelectorTerms": [{"matchExpressions": [
                            {"key": "kubernetes.io/hostname", "operator": "In", "values": ["n1"]}]}]}}}}),
    );
    let mut pinned = claim("pinned", "local");
    pinned["spec"]["volumeName"] = json!("pv-n1");
    pinned["metadata"]["annotations"] = json!({"pv.kubernetes.io/bind-completed": "yes"});
    server.create(PVCS, pinned);
    server.patch_merge(&format!("{PVCS}/pinned/status"), json!({"status": {"phase": "Bound"}}));
    server.patch_merge(&format!("{PVS}/pv-n1/status"), json!({"status": {"phase": "Bound"}}));
    server.create(PVCS, claim("pending-nfs", "immediate"));
    let es = Launch::default().start(&server);
    es.wait_for_log("Caches are synced", T).expect("synced");

    // n2 is emptier (scores higher) but the volume lives on n1.
    server.create(PODS, with_claim(pod(NS, "uses-local").scheduler("edgesched").cpu("100m"), "pinned"));
    assert_eq!(wait_bound(&server, &es, "uses-local"), "n1");

    server.create(PODS, with_claim(pod(NS, "uses-nfs").scheduler("edgesched").cpu("100m"), "pending-nfs"));
    let event = wait_for(T, "FailedScheduling for uses-nfs", || {
        server.events(NS).into_iter().find(|e| e["reason"] == "FailedScheduling" && e["regarding"]["name"] == "uses-nfs")
    })
    .unwrap_or_else(|e| panic!("{e}\n{}", es.logs()));
    let note = event["note"].as_str().unwrap_or_default();
    assert!(note.contains("pod has unbound immediate PersistentVolumeClaims"), "{note}");
    assert!(node_of(&server, "uses-nfs").is_none());
}

#[test]
fn in_tree_ebs_volumes_count_against_the_csi_drivers_attach_limit() {
    // CSI migration (upstream's nodevolumelimits/csi.go): on a node with a CSINode, an in-tree
    // AWS EBS PV counts as an `ebs.csi.aws.com` volume, so a limit of 1 admits one such pod.
    let server = TestApiServer::start();
    server.create(NODES, node("n1").build());
    server.create(
        "/apis/storage.k8s.io/v1/csinodes",
        json!({"apiVersion": "storage.k8s.io/v1", "kind": "CSINode", "metadata": {"name": "n1"},
               "spec": {"drivers": [{"name": "ebs.csi.aws.com", "nodeID": "n1", "allocatable": {"count": 1}}]}}),
    );
    for (name, id) in [("a", "aws://us-west-2a/vol-0a"), ("b", "vol-0b")] {
        server.create(
            PVS,
            json!({"apiVersion": "v1", "kind": "PersistentVolume", "metadata": {"name": format!("pv-{name}")},
                   "spec": {"capacity": {"storage": "1Gi"}, "accessModes": ["ReadOnlyMany"],
                            "awsElasticBlockStore": {"volumeID": id},
                            "claimRef": {"namespace": NS, "name": name}},
                   "status": {"phase": "Bound"}}),
        );
        let mut c = claim(name, "");
        c["spec"]["accessModes"] = json!(["ReadOnlyMany"]);
        c["spec"]["volumeName"] = json!(format!("pv-{name}"));
        c["metadata"]["annotations"] = json!({"pv.kubernetes.io/bind-completed": "true"});
        c["status"] = json!({"phase": "Bound"});
        server.create(PVCS, c);
    }
    let es = Launch::default().start(&server);
    es.wait_for_log("Caches are synced", T).expect("synced");

    server.create(PODS, with_claim(pod(NS, "first").scheduler("edgesched").cpu("100m"), "a"));
    assert_eq!(wait_bound(&server, &es, "first"), "n1");
    server.create(PODS, with_claim(pod(NS, "second").scheduler("edgesched").cpu("100m"), "b"));
    let event = wait_for(T, "FailedScheduling for second", || {
        server.events(NS).into_iter().find(|e| e["reason"] == "FailedScheduling" && e["regarding"]["name"] == "second")
    })
    .unwrap_or_else(|e| panic!("{e}\n{}", es.logs()));
    let note = event["note"].as_str().unwrap_or_default();
    assert!(note.contains("node(s) exceed max volume count"), "{note}");
    assert!(node_of(&server, "second").is_none());
}
