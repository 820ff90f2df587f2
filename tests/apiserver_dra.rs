//! Self-test of the test API server's resource.k8s.io/v1 (Dynamic Resource Allocation), which
//! end-to-end tests of the scheduler's DRA run against: discovery, the registry strategies
//! (generation, spec/status split, alpha fields dropped), optimistic concurrency, the
//! validation of claim status writes with real 422 bodies, field selectors and watches, the
//! permissions v1.35 gives `system:kube-scheduler`, and the resourceclaim controller helper.

mod support;

use serde_json::{json, Value};
use support::apiserver::{DraAlphaGates, CLAIM_FINALIZER, POD_CLAIM_ANNOTATION};
use support::dra::{
    allocation, claim, claim_spec, claim_template, claims_path, device, device_class, reserved_for, resource_slice,
    templates_path, DEVICE_CLASSES, RESOURCE_SLICES,
};
use support::objects::pod;
use support::raw_http::{admin, connect, forbidden_body, Auth};
use support::{ServerOptions, TestApiServer};

const NS: &str = "default";
const PODS: &str = "/api/v1/namespaces/default/pods";
const DRIVER: &str = "gpu.example.com";

fn claims() -> String {
    claims_path(NS)
}

fn claim_at(name: &str) -> String {
    format!("{}/{name}", claims())
}

fn gpu_claim(name: &str) -> Value {
    claim(NS, name, claim_spec().request("gpu", "gpu").build())
}

/// A claim allocated to device `dev0` of node `n1`'s pool.
fn allocated(server: &TestApiServer, name: &str) -> Value {
    server.create(&claims(), gpu_claim(name));
    let mut c = server.get(&claim_at(name)).unwrap();
    c["status"]["allocation"] = allocation(&[("gpu", DRIVER, "n1", "dev0")], Some("n1"));
    server.update(&format!("{}/status", claim_at(name)), c)
}

/// The 422 message of writing `status` over the claim `name`.
fn status_refused(server: &TestApiServer, name: &str, status: Value) -> Value {
    let mut c = server.get(&claim_at(name)).unwrap();
    c["status"] = status;
    let e = server.try_update(&format!("{}/status", claim_at(name)), c).expect_err("refused");
    assert_eq!((e.code, e.body["reason"].clone()), (422, json!("Invalid")), "{}", e.body);
    e.body
}

fn consumers(n: usize) -> Vec<Value> {
    (0..n).map(|i| json!({"resource": "pods", "name": format!("p{i}"), "uid": format!("uid-{i}")})).collect()
}

// ---------------------------------------------------------------------------------------------
// Discovery and the registry strategies
// ---------------------------------------------------------------------------------------------

#[test]
fn discovery_lists_resource_k8s_io_v1() {
    let server = TestApiServer::start();
    let mut c = admin(&server);
    let groups = c.call("GET", "/apis", None).json();
    let group = groups["groups"].as_array().unwrap().iter().find(|g| g["name"] == "resource.k8s.io").cloned().expect("group");
    assert_eq!(group["preferredVersion"], json!({"groupVersion": "resource.k8s.io/v1", "version": "v1"}));
    let list = c.call("GET", "/apis/resource.k8s.io/v1", None).json();
    let entries: Vec<(String, bool)> = list["resources"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| (r["name"].as_str().unwrap().to_string(), r["namespaced"].as_bool().unwrap()))
        .collect();
    assert_eq!(
        entries,
        [
            ("deviceclasses".to_string(), false),
            ("resourceslices".into(), false),
            ("resourceclaims".into(), true),
            ("resourceclaims/status".into(), true),
            ("resourceclaimtemplates".into(), true),
        ]
    );
    assert!(list["resources"].as_array().unwrap().iter().all(|r| r.get("shortNames").is_none()));
    assert_eq!(list["resources"][3]["verbs"], json!(["get", "patch", "update"]));
}

#[test]
fn classes_and_slices_count_spec_changes_in_their_generation() {
    let server = TestApiServer::start();
    let mut class = device_class("gpu", &["device.driver == \"gpu.example.com\""]);
    class["metadata"]["generation"] = json!(7);
    let created = server.create(DEVICE_CLASSES, class);
    assert_eq!(created["metadata"]["generation"], 1, "set by the create strategy");
    let mut relabelled = created.clone();
    relabelled["metadata"]["labels"] = json!({"tier": "a"});
    relabelled["metadata"]["generation"] = json!(42);
    assert_eq!(server.update(&format!("{DEVICE_CLASSES}/gpu"), relabelled)["metadata"]["generation"], 1, "metadata only");
    let mut changed = server.get(&format!("{DEVICE_CLASSES}/gpu")).unwrap();
    changed["spec"]["selectors"][0]["cel"]["expression"] = json!("true");
    assert_eq!(server.update(&format!("{DEVICE_CLASSES}/gpu"), changed)["metadata"]["generation"], 2);

    let slice = resource_slice("n1-gpu", DRIVER, "n1").device(device("dev0").string("model", "a100")).build();
    let created = server.create(RESOURCE_SLICES, slice);
    assert_eq!(created["metadata"]["generation"], 1);
    let mut grown = created.clone();
    grown["spec"]["devices"].as_array_mut().unwrap().push(device("dev1").build());
    assert_eq!(server.update(&format!("{RESOURCE_SLICES}/n1-gpu"), grown)["metadata"]["generation"], 2);
}

#[test]
fn fields_of_v1_35_alpha_gates_are_dropped_unless_the_gate_is_on() {
    let alpha = |server: &TestApiServer| {
        let mut slice = resource_slice("s", DRIVER, "n1").device(device("dev0").capacity("memory", "8Gi")).build();
        slice["spec"]["sharedCounters"] = json!([{"name": "mem", "counters": {"memory": {"value": "8Gi"}}}]);
        let d = &mut slice["spec"]["devices"][0];
        d["taints"] = json!([{"key": "broken", "effect": "NoSchedule"}]);
        d["consumesCounters"] = json!([{"counterSet": "mem", "counters": {"memory": {"value": "4Gi"}}}]);
        d["bindingConditions"] = json!(["ready"]);
        d["allowMultipleAllocations"] = json!(true);
        d["capacity"]["memory"]["requestPolicy"] = json!({"default": "1Gi"});
        server.create(RESOURCE_SLICES, slice)
    };
    let stored = alpha(&TestApiServer::start());
    assert_eq!(stored["spec"].get("sharedCounters"), None);
    assert_eq!(stored["spec"]["devices"][0], json!({"name": "dev0", "capacity": {"memory": {"value": "8Gi"}}}));
    let gates = ServerOptions { dra_alpha_gates: DraAlphaGates::all(), ..Default::default() };
    let kept = alpha(&TestApiServer::start_with(gates));
    let d = &kept["spec"]["devices"][0];
    assert!(kept["spec"]["sharedCounters"].is_array() && d["taints"].is_array() && d["consumesCounters"].is_array());
    assert!(d["bindingConditions"].is_array() && d["allowMultipleAllocations"] == true);
    assert!(d["capacity"]["memory"]["requestPolicy"].is_object());
}

#[test]
fn claims_are_defaulted_and_split_into_an_immutable_spec_and_a_status() {
    let server = TestApiServer::start();
    let mut c = gpu_claim("c");
    c["status"] = json!({"allocation": allocation(&[("gpu", DRIVER, "n1", "dev0")], None)});
    let created = server.create(&claims(), c);
    assert_eq!(created["status"], json!({}), "the status is reset on create");
    assert_eq!(created["metadata"].get("generation"), None, "claims have none");
    assert_eq!(
        created["spec"]["devices"]["requests"][0]["exactly"],
        json!({"deviceClassName": "gpu", "allocationMode": "ExactCount", "count": 1})
    );

    // The main resource ignores status; its spec cannot change.
    let mut with_status = created.clone();
    with_status["status"] = json!({"reservedFor": consumers(1)});
    with_status["metadata"]["labels"] = json!({"a": "b"});
    let updated = server.update(&claim_at("c"), with_status);
    assert_eq!((updated["status"].clone(), updated["metadata"]["labels"].clone()), (json!({}), json!({"a": "b"})));
    let mut respecced = updated.clone();
    respecced["spec"]["devices"]["requests"][0]["exactly"]["count"] = json!(2);
    let e = server.try_update(&claim_at("c"), respecced).expect_err("immutable");
    assert_eq!(e.code, 422);
    let message = e.body["message"].as_str().unwrap();
    assert!(message.starts_with("ResourceClaim.resource.k8s.io \"c\" is invalid: spec: Invalid value: "), "{message}");
    assert!(message.ends_with(": field is immutable"), "{message}");
    assert_eq!(e.body["details"]["causes"][0]["field"], "spec");

    // The status subresource ignores spec and metadata.
    let mut status_write = server.get(&claim_at("c")).unwrap();
    status_write["spec"] = json!({"devices": {"requests": []}});
    status_write["metadata"]["labels"] = json!({"a": "changed"});
    status_write["status"] = json!({"allocation": allocation(&[("gpu", DRIVER, "n1", "dev0")], Some("n1"))});
    let written = server.update(&format!("{}/status", claim_at("c")), status_write);
    assert_eq!(written["spec"], created["spec"]);
    assert_eq!(written["metadata"]["labels"], json!({"a": "b"}));
    assert_eq!(written["status"]["allocation"]["devices"]["results"][0]["device"], "dev0");
}

#[test]
fn templates_are_defaulted_validated_and_immutable() {
    let server = TestApiServer::start();
    let created = server.create(&templates_path(NS), claim_template(NS, "t", claim_spec().request("gpu", "gpu").build()));
    assert_eq!(created["spec"]["spec"]["devices"]["requests"][0]["exactly"]["count"], 1);
    let mut changed = created.clone();
    changed["spec"]["spec"]["devices"]["requests"][0]["name"] = json!("other");
    assert_eq!(server.try_update(&format!("{}/t", templates_path(NS)), changed).unwrap_err().code, 422);
    let bad = claim_template(NS, "u", json!({"devices": {"requests": [{"name": "gpu"}]}}));
    let e = server.try_create(&templates_path(NS), bad).unwrap_err();
    assert_eq!(
        e.body["message"],
        "ResourceClaimTemplate.resource.k8s.io \"u\" is invalid: spec.spec.devices.requests[0]: Required value: exactly one of `exactly` or `firstAvailable` is required"
    );
}

// ---------------------------------------------------------------------------------------------
// Optimistic concurrency and the validation of status writes
// ---------------------------------------------------------------------------------------------

#[test]
fn a_status_write_from_a_stale_version_is_the_exact_409() {
    let server = TestApiServer::start();
    let stale = allocated(&server, "c");
    let mut fresh = stale.clone();
    fresh["status"]["reservedFor"] = json!(consumers(1));
    server.update(&format!("{}/status", claim_at("c")), fresh);
    let mut late = stale;
    late["status"]["reservedFor"] = json!([{"resource": "pods", "name": "other", "uid": "uid-other"}]);
    let mut c = admin(&server);
    let r = c.call("PUT", &format!("{}/status", claim_at("c")), Some(&late));
    assert_eq!(r.code, 409);
    assert_eq!(
        r.text(),
        "{\"kind\":\"Status\",\"apiVersion\":\"v1\",\"metadata\":{},\"status\":\"Failure\",\"message\":\"Operation cannot be fulfilled on resourceclaims.resource.k8s.io \\\"c\\\": the object has been modified; please apply your changes to the latest version and try again\",\"reason\":\"Conflict\",\"details\":{\"name\":\"c\",\"group\":\"resource.k8s.io\",\"kind\":\"resourceclaims\"},\"code\":409}\n"
    );
}

#[test]
fn reserved_for_needs_an_allocation_and_the_exact_422_says_so() {
    let server = TestApiServer::start();
    server.create(&claims(), gpu_claim("c"));
    let mut c = server.get(&claim_at("c")).unwrap();
    c["status"] = json!({"reservedFor": consumers(1)});
    let r = admin(&server).call("PUT", &format!("{}/status", claim_at("c")), Some(&c));
    assert_eq!(r.code, 422);
    assert_eq!(
        r.text(),
        "{\"kind\":\"Status\",\"apiVersion\":\"v1\",\"metadata\":{},\"status\":\"Failure\",\"message\":\"ResourceClaim.resource.k8s.io \\\"c\\\" is invalid: status.reservedFor: Forbidden: may not be specified when `allocated` is not set\",\"reason\":\"Invalid\",\"details\":{\"name\":\"c\",\"group\":\"resource.k8s.io\",\"kind\":\"ResourceClaim\",\"causes\":[{\"reason\":\"FieldValueForbidden\",\"message\":\"Forbidden: may not be specified when `allocated` is not set\",\"field\":\"status.reservedFor\"}]},\"code\":422}\n"
    );
}

#[test]
fn reserved_for_holds_at_most_256_distinct_complete_entries() {
    let server = TestApiServer::start();
    let c = allocated(&server, "c");
    let mut status = c["status"].clone();
    status["reservedFor"] = json!(consumers(256));
    let mut full = c.clone();
    full["status"] = status.clone();
    server.update(&format!("{}/status", claim_at("c")), full);
    status["reservedFor"] = json!(consumers(257));
    assert_eq!(
        status_refused(&server, "c", status.clone())["message"],
        "ResourceClaim.resource.k8s.io \"c\" is invalid: status.reservedFor: Too many: 257: must have at most 256 items"
    );
    let mut dup = consumers(3);
    dup[2]["uid"] = json!("uid-0");
    dup[1]["uid"] = json!("");
    status["reservedFor"] = json!(dup);
    let body = status_refused(&server, "c", status);
    assert_eq!(
        body["message"],
        "ResourceClaim.resource.k8s.io \"c\" is invalid: [status.reservedFor[1].uid: Required value, status.reservedFor[2]: Duplicate value: \"uid-0\"]"
    );
    assert_eq!(body["details"]["causes"][1]["reason"], "FieldValueDuplicate");
}

#[test]
fn an_allocation_is_immutable_and_removed_only_without_consumers() {
    let server = TestApiServer::start();
    let c = allocated(&server, "c");
    let mut other = c["status"].clone();
    other["allocation"]["devices"]["results"][0]["device"] = json!("dev1");
    let body = status_refused(&server, "c", other);
    let message = body["message"].as_str().unwrap();
    assert!(message.starts_with("ResourceClaim.resource.k8s.io \"c\" is invalid: status.allocation: Invalid value: "));
    assert!(message.ends_with(": field is immutable"), "{message}");
    // Semantically equal (an empty config list is no config) is no change.
    let mut same = server.get(&claim_at("c")).unwrap();
    same["status"]["allocation"]["devices"]["config"] = json!([]);
    server.update(&format!("{}/status", claim_at("c")), same);

    let mut reserved = server.get(&claim_at("c")).unwrap();
    reserved["status"]["reservedFor"] = json!(consumers(1));
    server.update(&format!("{}/status", claim_at("c")), reserved);
    let body = status_refused(&server, "c", json!({"reservedFor": consumers(1)}));
    assert_eq!(
        body["message"],
        "ResourceClaim.resource.k8s.io \"c\" is invalid: status.reservedFor: Forbidden: may not be specified when `allocated` is not set"
    );
    let mut released = server.get(&claim_at("c")).unwrap();
    released["status"] = json!({});
    let released = server.update(&format!("{}/status", claim_at("c")), released);
    assert_eq!(released["status"], json!({}), "deallocated");
}

#[test]
fn a_new_allocation_must_fit_the_claims_requests() {
    let server = TestApiServer::start();
    let spec = claim_spec().request("gpu", "gpu").first_available("nic", &[("fast", "nic-fast", 1), ("slow", "nic", 1)]).build();
    server.create(&claims(), claim(NS, "c", spec));
    let ok = allocation(&[("gpu", DRIVER, "n1", "dev0"), ("nic/slow", "nic.example.com", "n1", "eth1")], Some("n1"));
    let mut c = server.get(&claim_at("c")).unwrap();
    c["status"]["allocation"] = ok;
    server.update(&format!("{}/status", claim_at("c")), c);

    server.create(&claims(), claim(NS, "d", claim_spec().first_available("nic", &[("fast", "nic-fast", 1)]).build()));
    let body = status_refused(
        &server,
        "d",
        json!({"allocation": allocation(&[("nic", DRIVER, "Pool_1", "dev0"), ("nic/slow", DRIVER, "n1", "dev1")], None)}),
    );
    let causes: Vec<String> =
        body["details"]["causes"].as_array().unwrap().iter().map(|c| c["field"].as_str().unwrap().to_string()).collect();
    assert_eq!(causes, ["status.allocation.devices.results[0].pool", "status.allocation.devices.results[1].request"]);
    assert!(body["message"].as_str().unwrap().contains("status.allocation.devices.results[1].request: Invalid value: \"nic/slow\": must be the name of a request in the claim or the name of a request and a subrequest separated by '/'"));

    let many: Vec<(&str, &str, &str, &str)> = (0..33).map(|_| ("gpu", DRIVER, "n1", "dev0")).collect();
    server.create(&claims(), gpu_claim("e"));
    assert_eq!(
        status_refused(&server, "e", json!({"allocation": allocation(&many, None)}))["message"],
        "ResourceClaim.resource.k8s.io \"e\" is invalid: status.allocation.devices.results: Too many: 33: must have at most 32 items"
    );
}

#[test]
fn a_claim_being_deleted_takes_no_new_consumers() {
    let server = TestApiServer::start();
    let mut c = allocated(&server, "c");
    c["status"]["reservedFor"] = json!(consumers(1));
    let mut c = server.update(&format!("{}/status", claim_at("c")), c);
    c["metadata"]["finalizers"] = json!([CLAIM_FINALIZER]);
    server.update(&claim_at("c"), c);
    let deleting = server.delete_as_client(&claim_at("c")).expect("kept by its finalizer");
    assert!(deleting["metadata"]["deletionTimestamp"].is_string());
    let mut status = deleting["status"].clone();
    status["reservedFor"] = json!(consumers(2));
    assert_eq!(
        status_refused(&server, "c", status)["message"],
        "ResourceClaim.resource.k8s.io \"c\" is invalid: status.reservedFor: Forbidden: new entries may not be added while `deallocationRequested` or `deletionTimestamp` are set"
    );
    let mut fewer = server.get(&claim_at("c")).unwrap();
    fewer["status"]["reservedFor"] = json!([]);
    server.update(&format!("{}/status", claim_at("c")), fewer);
}

#[test]
fn strategic_merge_patches_add_consumers_by_uid() {
    let server = TestApiServer::start();
    let mut c = allocated(&server, "c");
    c["status"]["reservedFor"] = json!(consumers(1));
    server.update(&format!("{}/status", claim_at("c")), c);
    let patch = json!({"status": {"reservedFor": [{"resource": "pods", "name": "p9", "uid": "uid-9"}]}});
    let mut conn = admin(&server);
    let r = conn.patch(&format!("{}/status", claim_at("c")), "application/strategic-merge-patch+json", &patch);
    assert_eq!(r.code, 200, "{}", r.text());
    let merged = r.json();
    let uids: Vec<&str> =
        merged["status"]["reservedFor"].as_array().unwrap().iter().map(|x| x["uid"].as_str().unwrap()).collect();
    assert_eq!(uids, ["uid-0", "uid-9"]);
    let r = conn.patch(&format!("{}/status", claim_at("c")), "application/merge-patch+json", &patch);
    assert_eq!(r.json()["status"]["reservedFor"], patch["status"]["reservedFor"], "a merge patch replaces the list");
}

// ---------------------------------------------------------------------------------------------
// Field selectors and watches
// ---------------------------------------------------------------------------------------------

fn names(list: &Value) -> Vec<String> {
    list["items"].as_array().unwrap().iter().map(|i| i["metadata"]["name"].as_str().unwrap().to_string()).collect()
}

#[test]
fn field_selectors_are_the_ones_v1_35_supports() {
    let server = TestApiServer::start();
    server.create(RESOURCE_SLICES, resource_slice("a", DRIVER, "n1").build());
    server.create(RESOURCE_SLICES, resource_slice("b", DRIVER, "n2").build());
    server.create(RESOURCE_SLICES, resource_slice("c", "nic.example.com", "n1").build());
    server.create(RESOURCE_SLICES, resource_slice("d", DRIVER, "n1").all_nodes().build());
    let mut c = admin(&server);
    let list = |c: &mut support::raw_http::Conn, q: &str| c.call("GET", &format!("{RESOURCE_SLICES}?fieldSelector={q}"), None);
    assert_eq!(names(&list(&mut c, "spec.nodeName%3Dn1").json()), ["a", "c"]);
    assert_eq!(names(&list(&mut c, "spec.nodeName%3D").json()), ["d"], "no node name compares as empty");
    assert_eq!(names(&list(&mut c, "spec.driver%3Dgpu.example.com,spec.nodeName!%3Dn2").json()), ["a", "d"]);
    assert_eq!(names(&list(&mut c, "metadata.name%3Db").json()), ["b"]);
    let r = list(&mut c, "spec.pool.name%3Dn1");
    assert_eq!(r.code, 400);
    assert_eq!(r.json()["message"], "field label not supported for resource.k8s.io/v1, Kind=ResourceSlice: spec.pool.name");
    assert_eq!(list(&mut c, "metadata.namespace%3D").code, 400, "a cluster-scoped kind with its own conversion");
    let r = c.call("GET", &format!("{}?fieldSelector=spec.devices%3Dx", claims()), None);
    assert_eq!((r.code, r.json()["reason"].clone()), (400, json!("BadRequest")));
    assert_eq!(
        r.json()["message"],
        "\"spec.devices\" is not a known field selector: only \"metadata.name\", \"metadata.namespace\""
    );
    let r = c.call("GET", "/apis/resource.k8s.io/v1/resourceclaims?fieldSelector=metadata.namespace%3Ddefault", None);
    assert_eq!(r.code, 200);
    let r = c.call("GET", &format!("{RESOURCE_SLICES}?watch=true&fieldSelector=spec.nodeName2%3Dx"), None);
    assert_eq!(r.code, 400, "watches are checked the same way");
}

#[test]
fn a_watch_on_a_nodes_slices_follows_them_in_and_out_of_the_selector() {
    let server = TestApiServer::start();
    server.create(RESOURCE_SLICES, resource_slice("a", DRIVER, "n1").build());
    let rv = server.resource_version();
    let mut c = admin(&server);
    assert_eq!(c.watch(&format!("{RESOURCE_SLICES}?watch=true&resourceVersion={rv}&fieldSelector=spec.nodeName%3Dn1")), 200);
    server.create(RESOURCE_SLICES, resource_slice("b", DRIVER, "n2").build());
    server.create(RESOURCE_SLICES, resource_slice("c", DRIVER, "n1").build());
    let added = c.event().unwrap();
    assert_eq!((added["type"].clone(), added["object"]["metadata"]["name"].clone()), (json!("ADDED"), json!("c")));
    let mut moved = server.get(&format!("{RESOURCE_SLICES}/a")).unwrap();
    moved["spec"]["nodeName"] = json!("n2");
    server.update(&format!("{RESOURCE_SLICES}/a"), moved);
    let gone = c.event().unwrap();
    assert_eq!((gone["type"].clone(), gone["object"]["metadata"]["name"].clone()), (json!("DELETED"), json!("a")));
    assert_eq!(gone["object"]["spec"]["nodeName"], "n1", "the last state that matched");
    assert_eq!(server.get(&format!("{RESOURCE_SLICES}/a")).unwrap()["metadata"]["generation"], 2);
}

#[test]
fn a_claims_status_write_is_one_modified_event() {
    let server = TestApiServer::start();
    let mut c = server.create(&claims(), gpu_claim("c"));
    let rv = server.resource_version();
    let mut w = admin(&server);
    assert_eq!(w.watch(&format!("{}?watch=true&resourceVersion={rv}", claims())), 200);
    c["status"]["allocation"] = allocation(&[("gpu", DRIVER, "n1", "dev0")], Some("n1"));
    let c = server.update(&format!("{}/status", claim_at("c")), c);
    let ev = w.event().unwrap();
    assert_eq!(ev["type"], "MODIFIED");
    assert_eq!(ev["object"]["metadata"]["resourceVersion"], c["metadata"]["resourceVersion"]);
    assert_eq!(ev["object"]["status"]["allocation"], c["status"]["allocation"]);
}

// ---------------------------------------------------------------------------------------------
// system:kube-scheduler's DRA permissions, as v1.35 grants them
// ---------------------------------------------------------------------------------------------

const VERBS: [&str; 8] = ["get", "list", "watch", "create", "update", "patch", "delete", "deletecollection"];

/// Which of [`VERBS`] v1.35's system:kube-scheduler has on each resource (and subresource).
const V1_35_DRA_GRANTS: &[(&str, &str, &[&str])] = &[
    ("resource.k8s.io", "deviceclasses", &["get", "list", "watch"]),
    ("resource.k8s.io", "resourceslices", &["get", "list", "watch"]),
    ("resource.k8s.io", "resourceclaims", &["get", "list", "watch", "update", "patch"]),
    ("resource.k8s.io", "resourceclaims/status", &["get", "list", "watch", "update", "patch"]),
    ("resource.k8s.io", "resourceclaimtemplates", &[]),
    ("resource.k8s.io", "devicetaintrules", &[]),
    ("resource.k8s.io", "resourceclaims/binding", &[]),
    ("", "pods/finalizers", &["update"]),
];

#[test]
fn system_kube_scheduler_has_exactly_the_dra_verbs_v1_35_grants() {
    let server = TestApiServer::start();
    let mut c = admin(&server);
    for (group, resource, granted) in V1_35_DRA_GRANTS {
        let (resource, subresource) = resource.split_once('/').unwrap_or((resource, ""));
        let namespace = if matches!(resource, "deviceclasses" | "resourceslices" | "devicetaintrules") { "" } else { NS };
        for verb in VERBS {
            let sar = json!({"apiVersion": "authorization.k8s.io/v1", "kind": "SubjectAccessReview",
                "spec": {"user": "system:kube-scheduler", "groups": ["system:authenticated"], "resourceAttributes": {
                    "verb": verb, "group": group, "resource": resource, "subresource": subresource, "namespace": namespace}}});
            let answer = c.call("POST", "/apis/authorization.k8s.io/v1/subjectaccessreviews", Some(&sar)).json();
            assert_eq!(answer["status"]["allowed"], granted.contains(&verb), "{verb} {resource}/{subresource}");
        }
    }
}

#[test]
fn system_kube_scheduler_writes_claim_status_and_gets_the_real_403_otherwise() {
    let server = TestApiServer::start();
    let stored = allocated(&server, "c");
    server.create(&templates_path(NS), claim_template(NS, "t", claim_spec().request("gpu", "gpu").build()));
    let mut s = connect(&server, Auth::Cert("system:kube-scheduler", &[]));
    for path in [DEVICE_CLASSES.to_string(), RESOURCE_SLICES.to_string(), "/apis/resource.k8s.io/v1/resourceclaims".into()] {
        assert_eq!(s.call("GET", &path, None).code, 200, "{path}");
    }
    let mut finalized = stored.clone();
    finalized["metadata"]["finalizers"] = json!([CLAIM_FINALIZER]);
    let finalized = s.call("PUT", &claim_at("c"), Some(&finalized));
    assert_eq!(finalized.code, 200, "the finalizer before the allocation");
    let mut reserve = finalized.json();
    reserve["status"]["reservedFor"] = json!([{"resource": "pods", "name": "p", "uid": "uid-p"}]);
    assert_eq!(s.call("PUT", &format!("{}/status", claim_at("c")), Some(&reserve)).code, 200);

    let r = s.call("POST", &claims(), Some(&gpu_claim("x")));
    assert_eq!(
        r.text(),
        forbidden_body(
            "resourceclaims.resource.k8s.io is forbidden: User \"system:kube-scheduler\" cannot create resource \"resourceclaims\" in API group \"resource.k8s.io\" in the namespace \"default\"",
            r#"{"group":"resource.k8s.io","kind":"resourceclaims"}"#
        )
    );
    let r = s.call("GET", &templates_path(NS), None);
    assert_eq!(
        r.text(),
        forbidden_body(
            "resourceclaimtemplates.resource.k8s.io is forbidden: User \"system:kube-scheduler\" cannot list resource \"resourceclaimtemplates\" in API group \"resource.k8s.io\" in the namespace \"default\"",
            r#"{"group":"resource.k8s.io","kind":"resourceclaimtemplates"}"#
        )
    );
    let r = s.call("DELETE", &claim_at("c"), None);
    assert_eq!(
        r.json()["message"],
        "resourceclaims.resource.k8s.io \"c\" is forbidden: User \"system:kube-scheduler\" cannot delete resource \"resourceclaims\" in API group \"resource.k8s.io\" in the namespace \"default\""
    );
    let r = s.call("PUT", &format!("{DEVICE_CLASSES}/gpu"), Some(&device_class("gpu", &[])));
    assert_eq!(r.code, 403);
    assert!(server.get(&claim_at("c")).is_some());
}

// ---------------------------------------------------------------------------------------------
// The resourceclaim controller helper
// ---------------------------------------------------------------------------------------------

fn template(server: &TestApiServer) {
    let mut t = claim_template(NS, "gpu-template", claim_spec().request("gpu", "gpu").build());
    t["spec"]["metadata"] = json!({"labels": {"team": "ml"}, "annotations": {"note": "from the template"}});
    server.create(&templates_path(NS), t);
}

fn claim_of(server: &TestApiServer, pod_name: &str, pod_claim: &str) -> Option<Value> {
    let p = server.get(&format!("{PODS}/{pod_name}"))?;
    let status = p["status"]["resourceClaimStatuses"].as_array()?.iter().find(|s| s["name"] == pod_claim)?.clone();
    server.get(&claim_at(status["resourceClaimName"].as_str()?))
}

#[test]
fn without_the_controller_no_claim_is_created_until_it_runs() {
    let server = TestApiServer::start();
    template(&server);
    let p = server.create(PODS, pod(NS, "web-0").claim_from_template("gpu", "gpu-template").build());
    assert!(server.list(&claims()).is_empty(), "nothing creates claims");
    assert_eq!(p["status"].get("resourceClaimStatuses"), None);

    server.set_claim_controller(true);
    let c = claim_of(&server, "web-0", "gpu").expect("created and recorded");
    let name = c["metadata"]["name"].as_str().unwrap();
    assert!(name.starts_with("web-0-gpu-") && name.len() == "web-0-gpu-".len() + 5, "{name}");
    assert_eq!(c["metadata"]["generateName"], "web-0-gpu-");
    assert_eq!(
        c["metadata"]["ownerReferences"],
        json!([{"apiVersion": "v1", "kind": "Pod", "name": "web-0", "uid": p["metadata"]["uid"], "controller": true, "blockOwnerDeletion": true}])
    );
    assert_eq!(c["metadata"]["annotations"], json!({"note": "from the template", POD_CLAIM_ANNOTATION: "gpu"}));
    assert_eq!(c["metadata"]["labels"], json!({"team": "ml"}));
    assert_eq!(c["spec"]["devices"]["requests"][0]["exactly"]["count"], 1);
    assert!(server.claim_controller_log().is_empty(), "{:?}", server.claim_controller_log());
    // Running again changes nothing.
    let rv = server.resource_version();
    server.run_claim_controller();
    assert_eq!(server.resource_version(), rv);
}

#[test]
fn with_the_controller_a_new_pods_claims_exist_when_its_create_returns() {
    let server = TestApiServer::start_with(ServerOptions { claim_controller: true, ..Default::default() });
    template(&server);
    server.create(PODS, pod(NS, "a").claim_from_template("gpu", "gpu-template").claim("shared", "shared-claim").build());
    let created = claim_of(&server, "a", "gpu").expect("created with the pod");
    assert_eq!(server.list(&claims()).len(), 1, "a named claim is the user's to create");
    // The controller made its writes after the pod's, in order: claim, then pod status.
    let pod_rv: u64 = server.get(&format!("{PODS}/a")).unwrap()["metadata"]["resourceVersion"].as_str().unwrap().parse().unwrap();
    let claim_rv: u64 = created["metadata"]["resourceVersion"].as_str().unwrap().parse().unwrap();
    assert!(claim_rv < pod_rv);
}

#[test]
fn a_missing_template_is_logged_and_the_claim_follows_the_template() {
    let server = TestApiServer::start_with(ServerOptions { claim_controller: true, ..Default::default() });
    server.create(PODS, pod(NS, "a").claim_from_template("gpu", "gpu-template").build());
    assert_eq!(
        server.claim_controller_log(),
        ["pod default/a, PodResourceClaim gpu: resource claim template \"gpu-template\": resourceclaimtemplate.resource.k8s.io \"gpu-template\" not found"]
    );
    template(&server);
    assert!(claim_of(&server, "a", "gpu").is_some(), "retried when the template appeared");
}

#[test]
fn an_orphaned_generated_claim_is_adopted_not_duplicated() {
    let server = TestApiServer::start();
    template(&server);
    let p = server.create(PODS, pod(NS, "a").claim_from_template("gpu", "gpu-template").build());
    let mut orphan = gpu_claim("a-gpu-zzzzz");
    orphan["metadata"]["annotations"] = json!({POD_CLAIM_ANNOTATION: "gpu"});
    orphan["metadata"]["ownerReferences"] =
        json!([{"apiVersion": "v1", "kind": "Pod", "name": "a", "uid": p["metadata"]["uid"], "controller": true}]);
    server.create(&claims(), orphan);
    server.run_claim_controller();
    assert_eq!(claim_of(&server, "a", "gpu").unwrap()["metadata"]["name"], "a-gpu-zzzzz");
    assert_eq!(server.list(&claims()).len(), 1);
}

/// As a scheduler does in PreBind: the finalizer, then allocation and reservation.
fn allocate_for(server: &TestApiServer, claim_name: &str, p: &Value) {
    let mut c = server.get(&claim_at(claim_name)).unwrap();
    c["metadata"]["finalizers"] = json!([CLAIM_FINALIZER]);
    let mut c = server.update(&claim_at(claim_name), c);
    c["status"]["allocation"] = allocation(&[("gpu", DRIVER, "n1", "dev0")], Some("n1"));
    c["status"]["reservedFor"] = json!([reserved_for(p)]);
    server.update(&format!("{}/status", claim_at(claim_name)), c);
}

#[test]
fn a_deleted_pods_reservation_is_dropped_and_the_claim_deallocated() {
    let server = TestApiServer::start_with(ServerOptions { claim_controller: true, ..Default::default() });
    server.create(&claims(), gpu_claim("shared"));
    let a = server.create(PODS, pod(NS, "a").claim("gpu", "shared").node_name("n1").build());
    let b = server.create(PODS, pod(NS, "b").claim("gpu", "shared").node_name("n1").build());
    allocate_for(&server, "shared", &a);
    let mut c = server.get(&claim_at("shared")).unwrap();
    c["status"]["reservedFor"] = json!([reserved_for(&a), reserved_for(&b)]);
    server.update(&format!("{}/status", claim_at("shared")), c);

    server.delete(&format!("{PODS}/a"));
    let c = server.get(&claim_at("shared")).unwrap();
    assert_eq!(c["status"]["reservedFor"], json!([reserved_for(&b)]), "only the gone pod's entry");
    assert!(c["status"]["allocation"].is_object());
    server.set_pod_phase(NS, "b", "Succeeded");
    let c = server.get(&claim_at("shared")).unwrap();
    assert_eq!(c["status"], json!({}), "unreserved and deallocated");
    assert_eq!(c["metadata"].get("finalizers"), None, "the finalizer went with the allocation");
    assert!(server.claim_controller_log().is_empty(), "{:?}", server.claim_controller_log());
}

#[test]
fn a_generated_claim_goes_with_its_pod() {
    let server = TestApiServer::start_with(ServerOptions { claim_controller: true, ..Default::default() });
    template(&server);
    let p = server.create(PODS, pod(NS, "a").claim_from_template("gpu", "gpu-template").build());
    let name = claim_of(&server, "a", "gpu").unwrap()["metadata"]["name"].as_str().unwrap().to_string();
    allocate_for(&server, &name, &p);
    server.bind(NS, "a", "n1").unwrap();
    server.delete(&format!("{PODS}/a"));
    assert!(server.get(&claim_at(&name)).is_none(), "released, unfinalized and deleted");
    assert!(server.claim_controller_log().is_empty(), "{:?}", server.claim_controller_log());
}

#[test]
fn a_bound_pod_gets_its_allocated_claim_reserved() {
    let server = TestApiServer::start_with(ServerOptions { claim_controller: true, ..Default::default() });
    allocated(&server, "c");
    let p = server.create(PODS, pod(NS, "a").claim("gpu", "c").node_name("n1").build());
    assert_eq!(server.get(&claim_at("c")).unwrap()["status"]["reservedFor"], json!([reserved_for(&p)]));
}

#[test]
fn the_controller_runs_under_its_own_writes_only_when_on() {
    let server = TestApiServer::start();
    server.create(&claims(), gpu_claim("c"));
    let p = server.create(PODS, pod(NS, "a").claim("gpu", "c").build());
    allocate_for(&server, "c", &p);
    server.delete(&format!("{PODS}/a"));
    assert_eq!(server.get(&claim_at("c")).unwrap()["status"]["reservedFor"], json!([reserved_for(&p)]), "off: stale");
    server.set_claim_controller(true);
    assert_eq!(server.get(&claim_at("c")).unwrap()["status"], json!({}), "on: catches up");
    server.set_claim_controller(false);
    let q = server.create(PODS, pod(NS, "b").claim("gpu", "c").build());
    allocate_for(&server, "c", &q);
    server.delete(&format!("{PODS}/b"));
    assert!(server.get(&claim_at("c")).unwrap()["status"]["reservedFor"].is_array(), "off again");
}
