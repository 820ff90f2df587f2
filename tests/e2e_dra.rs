//! End-to-end Dynamic Resource Allocation: the real binary, started as the shipped static pod
//! runs it (kube-scheduler's client certificate, kubeadm's roles, `manifests/static-pod/rbac.yaml`),
//! against a test API server serving `resource.k8s.io/v1` with RBAC, the status subresource and
//! optimistic concurrency. Asserted through the API server's eyes: the allocation and the pod's
//! reservation are written to `resourceclaims/status` before the binding, a shared claim is
//! allocated once, a deleted claim holds its pod back until a new one appears, a restart between
//! allocation and binding neither loses the pod nor gives its device twice, two schedulers racing
//! for one claim are decided by the status write's resourceVersion, and a scheduler without the
//! DRA permissions says so once and keeps scheduling everything else.

mod support;

use edgesched::core::texts::dynamic_resources as texts;
use serde_json::Value;
use std::time::Duration;
use support::deploy::{self, Started};
use support::dra::{claim, claim_spec, claim_template, claims_path, device, device_class, resource_slice, templates_path};
use support::dra::{DEVICE_CLASSES, RESOURCE_SLICES};
use support::objects::{node, pod};
use support::process::Edgesched;
use support::wait::wait_for;
use support::{wait_until, Failure, RequestRecord, ServerOptions, TestApiServer};

const NODES: &str = "/api/v1/nodes";
const NS: &str = "default";
const PODS: &str = "/api/v1/namespaces/default/pods";
const LEASES: &str = "/apis/coordination.k8s.io/v1/namespaces/kube-system/leases";
const DRIVER: &str = "gpu.example.com";
/// The shipped static pod's scheduler name (`manifests/static-pod/edgesched-config.yaml`).
const SCHEDULER: &str = "edgesched";
const T: Duration = Duration::from_secs(45);

/// A server with kubeadm's roles and the shipped static pod's RBAC.
fn server_with(opts: ServerOptions) -> TestApiServer {
    let server = TestApiServer::start_with(opts);
    server.apply_file(&deploy::repo().join("manifests/static-pod/rbac.yaml"));
    server
}

/// Nodes `n1` and `n2`; `n1` has the GPUs `devices` in its pool (no slice when there are none),
/// `n2` none; the class `gpu` selects the driver's devices.
fn arrange(server: &TestApiServer, devices: &[&str]) {
    for n in ["n1", "n2"] {
        server.create(NODES, node(n).cpu("4").label("kubernetes.io/hostname", n).build());
    }
    server.create(DEVICE_CLASSES, device_class("gpu", &[&format!("device.driver == \"{DRIVER}\"")]));
    if !devices.is_empty() {
        publish(server, "n1-gpus", "n1", devices);
    }
}

/// The driver on `node` publishes `devices` in one slice (its pool, named after the node, has
/// only this slice).
fn publish(server: &TestApiServer, name: &str, node: &str, devices: &[&str]) {
    let slice = devices.iter().fold(resource_slice(name, DRIVER, node), |s, d| s.device(device(d).string("model", "a100")));
    server.create(RESOURCE_SLICES, slice.build());
}

/// A claim `name` for one GPU.
fn create_claim(server: &TestApiServer, name: &str) -> Value {
    server.create(&claims_path(NS), claim(NS, name, claim_spec().request("gpu", "gpu").build()))
}

/// A pod of `scheduler` using the claim `claim_name`.
fn create_pod(server: &TestApiServer, name: &str, scheduler: &str, claim_name: &str) -> Value {
    server.create(PODS, pod(NS, name).scheduler(scheduler).cpu("100m").claim("gpu", claim_name).build())
}

fn claim_at(name: &str) -> String {
    format!("{}/{name}", claims_path(NS))
}

fn node_of(server: &TestApiServer, name: &str) -> Option<String> {
    server.pod_node(NS, name)
}

fn wait_bound(server: &TestApiServer, es: &Edgesched, name: &str) -> String {
    es.wait_bound(server, NS, name, T)
}

/// Wait for a FailedScheduling event of `pod` whose note contains `text`.
fn wait_failed_scheduling(server: &TestApiServer, es: &Edgesched, pod: &str, text: &str) -> String {
    wait_for(T, &format!("FailedScheduling of {pod} with {text:?}"), || {
        server.events(NS).iter().find_map(|e| {
            let note = e["note"].as_str()?;
            (e["reason"] == "FailedScheduling" && e["regarding"]["name"] == pod && note.contains(text)).then(|| note.to_string())
        })
    })
    .unwrap_or_else(|e| panic!("{e}\n{:#?}\n{}", server.events(NS), es.logs()))
}

/// The devices of a claim's allocation as `(request, driver, pool, device)`.
fn allocated_devices(claim: &Value) -> Vec<(String, String, String, String)> {
    let text = |v: &Value| v.as_str().unwrap_or_default().to_string();
    claim["status"]["allocation"]["devices"]["results"]
        .as_array()
        .into_iter()
        .flatten()
        .map(|r| (text(&r["request"]), text(&r["driver"]), text(&r["pool"]), text(&r["device"])))
        .collect()
}

/// The pod names in a claim's `status.reservedFor`, sorted.
fn reserved_for(claim: &Value) -> Vec<String> {
    let mut names: Vec<String> = claim["status"]["reservedFor"]
        .as_array()
        .into_iter()
        .flatten()
        .filter(|c| c["resource"] == "pods")
        .filter_map(|c| c["name"].as_str().map(str::to_string))
        .collect();
    names.sort();
    names
}

/// Wait until the claim `name` is allocated and reserved for exactly `pods`.
fn wait_claim(server: &TestApiServer, es: &Edgesched, name: &str, pods: &[&str]) -> Value {
    wait_for(T, &format!("claim {name} allocated and reserved for {pods:?}"), || {
        server.get(&claim_at(name)).filter(|c| !allocated_devices(c).is_empty() && reserved_for(c) == pods)
    })
    .unwrap_or_else(|e| panic!("{e}\n{:#?}\n{}", server.get(&claim_at(name)), es.logs()))
}

fn wait_ready(started: &Started) {
    started.es.wait_for_log("Caches are synced", T).unwrap_or_else(|e| panic!("{e}\n{}", started.es.logs()));
}

/// Successful writes of a claim's status, in the order the server made them.
fn status_writes<'a>(log: &'a [RequestRecord], claim_name: &str) -> Vec<&'a RequestRecord> {
    let path = format!("{}/status", claim_at(claim_name));
    log.iter().filter(|r| r.path == path && r.method != "GET" && (200..300).contains(&r.code)).collect()
}

/// Index in the log of the successful binding of `pod`.
/// The server's request log once `ready` holds for it. The server applies a request before it
/// logs it, so a change seen in the store may still be missing from the log for a moment.
fn log_once(server: &TestApiServer, what: &str, ready: impl Fn(&[RequestRecord]) -> bool) -> Vec<RequestRecord> {
    wait_for(T, what, || Some(server.requests()).filter(|log| ready(log))).unwrap_or_else(|e| panic!("{e}"))
}

fn binding_index(log: &[RequestRecord], pod: &str) -> Option<usize> {
    let path = format!("{PODS}/{pod}/binding");
    log.iter().position(|r| r.path == path && r.method == "POST" && (200..300).contains(&r.code))
}

/// The Lease the static pod takes (`leaderElection.resourceName`).
fn lease_path(name: &str) -> String {
    format!("{LEASES}/{name}")
}

#[test]
fn a_claim_is_allocated_and_reserved_in_its_status_before_the_pod_is_bound() {
    let server = server_with(ServerOptions::default());
    arrange(&server, &["gpu-0"]);
    let started = deploy::static_pod(&server, Vec::new());
    wait_ready(&started);
    create_claim(&server, "gpu-claim");
    let p = create_pod(&server, "trainer", SCHEDULER, "gpu-claim");
    // Devices are on n1 only: the node choice follows the device.
    assert_eq!(wait_bound(&server, &started.es, "trainer"), "n1");
    let c = wait_claim(&server, &started.es, "gpu-claim", &["trainer"]);
    assert_eq!(allocated_devices(&c), [("gpu".into(), DRIVER.into(), "n1".into(), "gpu-0".into())]);
    assert_eq!(c["status"]["reservedFor"][0]["uid"], p["metadata"]["uid"], "{c}");
    // The allocation pins the claim to the node of its node-local device.
    let term = &c["status"]["allocation"]["nodeSelector"]["nodeSelectorTerms"][0];
    assert_eq!(term["matchFields"][0]["values"][0], "n1", "{c}");
    // Delete protection, as upstream's PreBind adds it.
    assert!(c["metadata"]["finalizers"]
        .as_array()
        .is_some_and(|f| f.iter().any(|f| f == "resource.kubernetes.io/delete-protection")));

    // The order through the server's eyes: one status write (allocation and reservation at once),
    // then the binding.
    let log = log_once(&server, "trainer's binding in the request log", |log| binding_index(log, "trainer").is_some());
    let writes = status_writes(&log, "gpu-claim");
    assert_eq!(writes.len(), 1, "{writes:#?}");
    assert!(writes[0].body.contains("\"allocation\"") && writes[0].body.contains("\"reservedFor\""), "{}", writes[0].body);
    assert!(writes[0].user == "system:kube-scheduler", "{}", writes[0].user);
    let write_at = log.iter().position(|r| std::ptr::eq(r, writes[0])).expect("in the log");
    let bind_at = binding_index(&log, "trainer").expect("bound through pods/binding");
    assert!(write_at < bind_at, "the claim status (#{write_at}) must be written before the binding (#{bind_at})");
    assert!(server.forbidden_requests().iter().all(|r| !r.path.contains("resource.k8s.io")), "{:?}", server.forbidden_requests());
}

#[test]
fn a_claim_from_a_template_is_created_by_the_controller_and_then_allocated() {
    let server = server_with(ServerOptions { claim_controller: true, ..Default::default() });
    arrange(&server, &["gpu-0"]);
    server.create(&templates_path(NS), claim_template(NS, "one-gpu", claim_spec().request("gpu", "gpu").build()));
    let started = deploy::static_pod(&server, Vec::new());
    wait_ready(&started);
    server.create(PODS, pod(NS, "inference").scheduler(SCHEDULER).cpu("100m").claim_from_template("gpu", "one-gpu").build());
    assert_eq!(wait_bound(&server, &started.es, "inference"), "n1");
    let p = server.get(&format!("{PODS}/inference")).expect("pod");
    let generated = p["status"]["resourceClaimStatuses"][0]["resourceClaimName"].as_str().expect("claim generated").to_string();
    let c = wait_claim(&server, &started.es, &generated, &["inference"]);
    assert_eq!(allocated_devices(&c)[0].3, "gpu-0");
    let log = log_once(&server, "inference's binding in the request log", |log| binding_index(log, "inference").is_some());
    let write_at = log.iter().position(|r| r.path == format!("{}/status", claim_at(&generated)) && r.code == 200);
    assert!(write_at.expect("status written") < binding_index(&log, "inference").expect("bound"));
}

#[test]
fn a_shared_claim_is_allocated_once_and_reserved_for_every_pod_using_it() {
    let server = server_with(ServerOptions::default());
    arrange(&server, &["gpu-0", "gpu-1"]);
    let started = deploy::static_pod(&server, Vec::new());
    wait_ready(&started);
    create_claim(&server, "shared");
    create_pod(&server, "a", SCHEDULER, "shared");
    create_pod(&server, "b", SCHEDULER, "shared");
    assert_eq!(wait_bound(&server, &started.es, "a"), "n1");
    assert_eq!(wait_bound(&server, &started.es, "b"), "n1");
    let c = wait_claim(&server, &started.es, "shared", &["a", "b"]);
    assert_eq!(allocated_devices(&c).len(), 1, "one device for both pods: {c}");
    // One allocation: every later write only adds a reservation to the same allocation.
    let log = log_once(&server, "both status writes in the request log", |log| status_writes(log, "shared").len() >= 2);
    let writes = status_writes(&log, "shared");
    assert_eq!(writes.len(), 2, "one write per pod: {writes:#?}");
    // The second pod's claim still lets another claim have the other GPU.
    create_claim(&server, "other");
    create_pod(&server, "c", SCHEDULER, "other");
    wait_bound(&server, &started.es, "c");
    let other = wait_claim(&server, &started.es, "other", &["c"]);
    assert_ne!(allocated_devices(&other)[0].3, allocated_devices(&c)[0].3);
}

#[test]
fn a_claim_deleted_while_its_pod_waits_holds_the_pod_until_a_new_claim_appears() {
    let server = server_with(ServerOptions::default());
    // No devices yet: the pod waits with upstream's Filter reason.
    arrange(&server, &[]);
    let started = deploy::static_pod(&server, Vec::new());
    let es = &started.es;
    wait_ready(&started);
    let old = create_claim(&server, "gpu-claim");
    create_pod(&server, "waiting", SCHEDULER, "gpu-claim");
    wait_failed_scheduling(&server, es, "waiting", texts::CANNOT_ALLOCATE_ALL_CLAIMS);

    // The claim goes away (it was never allocated: no finalizer holds it), then a device
    // appears: the pod may not use it (PreEnqueue keeps it out of the active queue while its
    // claim is missing), a pod without claims still schedules.
    assert!(server.delete(&claim_at("gpu-claim")));
    publish(&server, "n1-gpus-late", "n1", &["gpu-0"]);
    server.create(PODS, pod(NS, "plain").scheduler(SCHEDULER).cpu("100m").build());
    wait_bound(&server, es, "plain");
    assert_eq!(node_of(&server, "waiting"), None, "a pod whose claim is gone must wait\n{}", es.logs());
    assert_eq!(server.requests_matching("POST", &format!("{PODS}/waiting/binding")), 0);

    // A new claim of that name: the pod is scheduled with it, not with the old one.
    let new = create_claim(&server, "gpu-claim");
    assert_ne!(new["metadata"]["uid"], old["metadata"]["uid"]);
    assert_eq!(wait_bound(&server, es, "waiting"), "n1");
    let c = wait_claim(&server, es, "gpu-claim", &["waiting"]);
    assert_eq!(c["metadata"]["uid"], new["metadata"]["uid"]);
    assert_eq!(allocated_devices(&c)[0].3, "gpu-0");
}

#[test]
fn a_restart_between_allocation_and_binding_binds_the_pod_without_giving_its_device_twice() {
    let server = server_with(ServerOptions::default());
    arrange(&server, &["gpu-0", "gpu-1"]);
    let mut first = deploy::static_pod(&server, Vec::new());
    wait_ready(&first);
    // Bindings are held and then refused while the first process runs, so it is killed after
    // PreBind wrote the claim and before any binding could succeed.
    server.set_latency_for("/binding", Duration::from_secs(2));
    server.fail_next(1_000, "POST", "/binding", Failure::Status(500));
    create_claim(&server, "gpu-claim");
    create_pod(&server, "trainer", SCHEDULER, "gpu-claim");
    wait_until(T, "the binding of trainer arrived", || server.requests_received("POST", "/pods/trainer/binding") > 0)
        .unwrap_or_else(|e| panic!("{e}\n{}", first.es.logs()));
    first.es.kill();
    // The held binding is refused; afterwards nothing is held or refused any more.
    wait_until(T, "the held binding answered", || server.requests_matching("POST", "/pods/trainer/binding") > 0)
        .unwrap_or_else(|e| panic!("{e}"));
    server.clear_faults();
    assert_eq!(node_of(&server, "trainer"), None);
    let before = server.get(&claim_at("gpu-claim")).expect("claim");
    let device = allocated_devices(&before);
    assert_eq!(device.len(), 1, "the allocation was written before the binding: {before}");
    assert_eq!(reserved_for(&before), ["trainer"]);
    // The old process's Lease would expire; take it away instead of waiting for that.
    assert!(server.delete(&lease_path("edgesched")));

    let second = deploy::static_pod(&server, Vec::new());
    wait_ready(&second);
    assert_eq!(wait_bound(&server, &second.es, "trainer"), "n1");
    let after = server.get(&claim_at("gpu-claim")).expect("claim");
    assert_eq!(allocated_devices(&after), device, "the allocation is kept: {after}");
    assert_eq!(reserved_for(&after), ["trainer"]);
    // The restarted scheduler knows the device is taken: the next claim gets the other GPU and a
    // third finds none.
    create_claim(&server, "next");
    create_pod(&server, "next", SCHEDULER, "next");
    wait_bound(&server, &second.es, "next");
    let next = wait_claim(&server, &second.es, "next", &["next"]);
    assert_ne!(allocated_devices(&next)[0].3, device[0].3);
    create_claim(&server, "third");
    create_pod(&server, "third", SCHEDULER, "third");
    wait_failed_scheduling(&server, &second.es, "third", texts::CANNOT_ALLOCATE_ALL_CLAIMS);
    assert!(allocated_devices(&server.get(&claim_at("third")).expect("claim")).is_empty());
}

#[test]
fn two_schedulers_racing_for_one_claim_allocate_its_device_once() {
    let server = server_with(ServerOptions::default());
    arrange(&server, &["gpu-0"]);
    // A second scheduler beside the shipped one: its own name and Lease (kubeadm's
    // leader-locking Role covers every Lease in kube-system).
    let second_config = |c: String| {
        c.replace("schedulerName: edgesched", "schedulerName: second").replace("resourceName: edgesched", "resourceName: second")
    };
    let first = deploy::static_pod(&server, Vec::new());
    let second = deploy::static_pod_with(&server, Vec::new(), second_config);
    wait_ready(&first);
    wait_ready(&second);
    wait_until(T, "both lead", || server.get(&lease_path("edgesched")).is_some() && server.get(&lease_path("second")).is_some())
        .unwrap_or_else(|e| panic!("{e}\n{}\n{}", first.es.logs(), second.es.logs()));
    create_claim(&server, "contended");
    // Writes of the claim are held, so both schedulers have chosen before either write lands:
    // the resourceVersion of the claim they read decides.
    server.set_latency_for("/resourceclaims/contended", Duration::from_secs(2));
    create_pod(&server, "a", SCHEDULER, "contended");
    create_pod(&server, "b", "second", "contended");
    let logs = || format!("{}\n----\n{}", first.es.logs(), second.es.logs());
    for p in ["a", "b"] {
        wait_for(T, &format!("{p} bound"), || node_of(&server, p)).unwrap_or_else(|e| panic!("{e}\n{}", logs()));
    }
    let c =
        wait_for(T, "claim reserved for both", || server.get(&claim_at("contended")).filter(|c| reserved_for(c) == ["a", "b"]))
            .unwrap_or_else(|e| panic!("{e}\n{}", logs()));
    assert_eq!(allocated_devices(&c).len(), 1, "{c}");
    let log = server.requests();
    let conflicts = log.iter().filter(|r| r.path.starts_with(&claim_at("contended")) && r.code == 409).count();
    assert!(conflicts >= 1, "the loser's write conflicted: {:#?}", status_writes(&log, "contended"));
    // Every successful status write kept the first allocation: none replaced it by another.
    let allocations: Vec<Value> = status_writes(&log, "contended")
        .iter()
        .filter_map(|r| serde_json::from_str::<Value>(&r.body).ok())
        .map(|b| b["status"]["allocation"]["devices"].clone())
        .collect();
    assert!(allocations.windows(2).all(|w| w[0] == w[1]), "{allocations:#?}");
}

#[test]
fn without_the_dra_permissions_pods_with_claims_wait_with_a_reason_and_others_schedule() {
    let server = server_with(ServerOptions::default());
    // kube-scheduler's role as it was before DRA: every resource.k8s.io rule removed.
    let role_path = "/apis/rbac.authorization.k8s.io/v1/clusterroles/system:kube-scheduler";
    let full_rules = server.get(role_path).expect("role")["rules"].clone();
    let dra_rule = |r: &Value| r["apiGroups"].as_array().is_some_and(|g| g.iter().any(|g| g == "resource.k8s.io"));
    assert!(server.drop_cluster_role_rules("system:kube-scheduler", dra_rule) > 0, "the role had DRA rules");
    arrange(&server, &["gpu-0"]);
    let retry = vec![("EDGESCHED_FORBIDDEN_RETRY".to_string(), "0.5".to_string())];
    let started = deploy::static_pod(&server, retry);
    let es = &started.es;
    wait_ready(&started);
    create_claim(&server, "gpu-claim");
    create_pod(&server, "needs-gpu", SCHEDULER, "gpu-claim");
    server.create(PODS, pod(NS, "plain").scheduler(SCHEDULER).cpu("100m").build());
    wait_bound(&server, es, "plain");
    let note = wait_failed_scheduling(&server, es, "needs-gpu", "cannot be read");
    assert!(note.contains("resourceclaims"), "{note}");
    assert_eq!(node_of(&server, "needs-gpu"), None);
    // One warning naming the rule, however many kinds it covers.
    let logs = es.logs();
    let warnings: Vec<&str> = logs.lines().filter(|l| l.contains("Permission denied; continuing without it")).collect();
    let dra: Vec<&&str> = warnings.iter().filter(|l| l.contains("resource.k8s.io")).collect();
    assert_eq!(dra.len(), 1, "{logs}");
    assert!(
        dra[0].contains(r#"toEnable="{apiGroups: [\"resource.k8s.io\"], resources: [\"deviceclasses\", \"resourceslices\", \"resourceclaims\"]"#),
        "the warning names the one rule: {}",
        dra[0]
    );
    assert!(!logs.contains("Permission denied; scheduling waits"), "{logs}");

    // The rule granted again: no restart, the waiting pod gets its device.
    let mut role = server.get(role_path).expect("role");
    role["rules"] = full_rules;
    server.update(role_path, role);
    assert_eq!(wait_bound(&server, es, "needs-gpu"), "n1");
    wait_claim(&server, es, "gpu-claim", &["needs-gpu"]);
}
