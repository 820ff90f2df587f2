//! End-to-end under RBAC, as shipped: each deployment path runs the real binary with the command
//! line of its manifest, under the identity that path gives it (kube-scheduler's client
//! certificate for the static pod and the systemd unit, the ServiceAccount token for the
//! Deployment), against a test API server that seeds kubeadm's default roles and loads the RBAC
//! objects from the files in `manifests/`. Each path must become ready, take and renew its own
//! Lease, bind pods, record events, patch `PodScheduled`, preempt, bind volumes and serve
//! `/metrics` through delegated authentication — and a permission taken away or never granted
//! must show up in the logs and `/readyz`, never as a silent hang.

mod support;

use edgesched::shell::daemon::permissions::{self, Access, Usage};
use serde_json::{json, Value};
use std::path::{Path, PathBuf};
use std::time::Duration;
use support::deploy::{self, Identity, Rewrites, Started};
use support::objects::{node, pod};
use support::process::Edgesched;
use support::wait::wait_for;
use support::{https, wait_until, DefaultRoles, KubeAuth, ServerOptions, TestApiServer};

const NODES: &str = "/api/v1/nodes";
const NS: &str = "default";
const PODS: &str = "/api/v1/namespaces/default/pods";
const PVCS: &str = "/api/v1/namespaces/default/persistentvolumeclaims";
const PVS: &str = "/api/v1/persistentvolumes";
const CLASSES: &str = "/apis/storage.k8s.io/v1/storageclasses";
const PRIORITY_CLASSES: &str = "/apis/scheduling.k8s.io/v1/priorityclasses";
const LEASES: &str = "/apis/coordination.k8s.io/v1/namespaces/kube-system/leases";
const T: Duration = Duration::from_secs(30);

fn manifest(rel: &str) -> PathBuf {
    deploy::repo().join(rel)
}

fn server_with(roles: DefaultRoles) -> TestApiServer {
    TestApiServer::start_with(ServerOptions { default_roles: roles, ..Default::default() })
}

/// Start the systemd unit of `systemd/`: the unit's `ExecStart` arguments, its config (the
/// kubeconfig `install.sh` copies to `/etc/edgesched/kubeconfig`: kubeadm's scheduler.conf).
fn start_systemd(server: &TestApiServer) -> Started {
    let dir = deploy::scratch("systemd");
    let (kubeconfig, _) =
        deploy::credentials(server, &dir, &Identity::Kubeconfig(KubeAuth::ClientCert { user: "system:kube-scheduler".into() }));
    let config = dir.join("config.yaml");
    let rewrites = Rewrites::default()
        .with("/etc/edgesched/kubeconfig", kubeconfig.expect("kubeconfig").display().to_string())
        .with("/etc/edgesched/config.yaml", config.display().to_string());
    let text = std::fs::read_to_string(manifest("systemd/config.yaml")).expect("config");
    std::fs::write(&config, rewrites.apply_text(&text)).expect("write config");
    let unit = std::fs::read_to_string(manifest("systemd/edgesched.service")).expect("unit");
    let exec = unit.lines().find_map(|l| l.strip_prefix("ExecStart=")).expect("ExecStart");
    let args: Vec<String> = exec.split_whitespace().skip(1).map(str::to_string).collect();
    deploy::start(rewrites.apply(&args), Vec::new(), dir)
}

/// Start the Deployment of `manifests/deployment/` as its pod runs: the container's command line
/// (the ConfigMap's `config.yaml` where it is mounted), the in-cluster configuration and the
/// ServiceAccount's token. Applies the directory's ServiceAccount and RBAC files first.
fn start_deployment(server: &TestApiServer) -> Started {
    let dir = manifest("manifests/deployment");
    for f in ["namespace-and-serviceaccount.yaml", "rbac.yaml", "configmap.yaml"] {
        server.apply_file(&dir.join(f));
    }
    let deployment = deploy::doc_of_kind(&dir.join("deployment.yaml"), "Deployment");
    let spec = &deployment["spec"]["template"]["spec"];
    let sa = spec["serviceAccountName"].as_str().expect("serviceAccountName").to_string();
    let work = deploy::scratch("deployment");
    let (_, env) = deploy::credentials(server, &work, &Identity::InCluster { namespace: "kube-system".into(), name: sa });
    let container = deploy::first_container(&deployment);
    let args = deploy::container_args(container);
    let config_path = deploy::flag_value(&args, "config").expect("--config");
    let configmap = deploy::doc_of_kind(&dir.join("configmap.yaml"), "ConfigMap");
    let key = config_path.rsplit('/').next().expect("file name");
    let local = work.join(key);
    std::fs::write(&local, configmap["data"][key].as_str().expect("config in the ConfigMap")).expect("write config");
    let args = Rewrites::default().with(&config_path, local.display().to_string()).apply(&args);
    // Bind to loopback like the container's network namespace would keep it private.
    let mut args = args;
    args.push("--bind-address=127.0.0.1".into());
    deploy::start(args, env, work)
}

fn probe(es: &Edgesched, path: &str, token: Option<&str>) -> (u16, String) {
    let url = format!("https://127.0.0.1:{}{path}", es.secure_port);
    wait_for(T, &format!("GET {url}"), || https::get(&url, token).ok()).unwrap_or_else(|e| panic!("{e}\n{}", es.logs()))
}

fn wait_ready(es: &Edgesched) {
    wait_until(T, "/readyz 200", || probe(es, "/readyz", None).0 == 200).unwrap_or_else(|e| {
        panic!("{e}\n{}\n{}", probe(es, "/readyz?verbose", None).1, es.logs());
    });
}

fn node_of(server: &TestApiServer, name: &str) -> Option<String> {
    server
        .get(&format!("{PODS}/{name}"))
        .and_then(|p| p["spec"]["nodeName"].as_str().map(str::to_string))
        .filter(|n| !n.is_empty())
}

fn wait_bound(server: &TestApiServer, es: &Edgesched, name: &str) -> String {
    wait_for(T, &format!("{name} bound"), || node_of(server, name)).unwrap_or_else(|e| panic!("{e}\n{}", es.logs()))
}

fn lease(server: &TestApiServer, name: &str) -> Option<Value> {
    server.get(&format!("{LEASES}/{name}"))
}

fn claim(name: &str, class: &str) -> Value {
    json!({"apiVersion": "v1", "kind": "PersistentVolumeClaim", "metadata": {"name": name, "namespace": NS},
           "spec": {"accessModes": ["ReadWriteOnce"], "storageClassName": class, "resources": {"requests": {"storage": "1Gi"}}}})
}

fn with_claim(p: support::objects::PodBuilder, claim: &str) -> Value {
    p.spec_field("volumes", json!([{"name": "data", "persistentVolumeClaim": {"claimName": claim}}])).build()
}

/// The cluster every deployment path is exercised on: two nodes, a low-priority pod filling n1,
/// a WaitForFirstConsumer class with a claim waiting for its pod, and a static local volume
/// available on n2 for a second claim.
fn arrange(server: &TestApiServer, scheduler: &str) {
    server.create(NODES, node("n1").cpu("2").label("kubernetes.io/hostname", "n1").build());
    server.create(NODES, node("n2").cpu("2").label("kubernetes.io/hostname", "n2").build());
    // Below the default 0, so the filler (not the other pods) is the cheapest victim.
    server.create(PRIORITY_CLASSES, json!({"metadata": {"name": "low"}, "value": -10}));
    server.create(PRIORITY_CLASSES, json!({"metadata": {"name": "critical"}, "value": 100000}));
    server.create(PODS, pod(NS, "filler").scheduler(scheduler).cpu("2").priority_class("low").node_name("n1").build());
    server.patch_merge(
        &format!("{PODS}/filler/status"),
        json!({"status": {"phase": "Running", "startTime": "2026-01-01T00:00:00Z"}}),
    );
    server.create(
        CLASSES,
        json!({"metadata": {"name": "local-path"}, "provisioner": "rancher.io/local-path", "volumeBindingMode": "WaitForFirstConsumer"}),
    );
    server.create(
        CLASSES,
        json!({"metadata": {"name": "local"}, "provisioner": "kubernetes.io/no-provisioner", "volumeBindingMode": "WaitForFirstConsumer"}),
    );
    server.create(PVCS, claim("provisioned", "local-path"));
    server.create(PVCS, claim("static", "local"));
    server.create(
        PVS,
        json!({"metadata": {"name": "pv-n2"},
               "spec": {"capacity": {"storage": "5Gi"}, "accessModes": ["ReadWriteOnce"], "storageClassName": "local",
                        "local": {"path": "/mnt/disk1"},
                        "nodeAffinity": {"required": {"nodeSelectorTerms": [{"matchExpressions": [
                            {"key": "kubernetes.io/hostname", "operator": "In", "values": ["n2"]}]}]}}}}),
    );
    server.patch_merge(&format!("{PVS}/pv-n2/status"), json!({"status": {"phase": "Available"}}));
}

/// Everything a deployment path must do, asserted through the API server's eyes.
fn exercise(server: &TestApiServer, es: &Edgesched, scheduler: &str, lease_name: &str) {
    wait_ready(es);
    // Its own Lease: taken, and renewed.
    let first = wait_for(T, "the Lease", || lease(server, lease_name)).unwrap_or_else(|e| panic!("{e}\n{}", es.logs()));
    let holder = first["spec"]["holderIdentity"].as_str().unwrap_or_default().to_string();
    assert!(holder.contains('_'), "hostname_uuid holder: {first}");
    wait_until(T, "a renewal", || {
        lease(server, lease_name).is_some_and(|l| l["spec"]["renewTime"] != first["spec"]["renewTime"])
    })
    .unwrap_or_else(|e| panic!("{e}\n{}", es.logs()));
    assert_eq!(lease(server, lease_name).expect("lease")["spec"]["holderIdentity"], holder.as_str());

    // Binds, with a Scheduled event.
    server.create(PODS, pod(NS, "web").scheduler(scheduler).cpu("500m").build());
    assert_eq!(wait_bound(server, es, "web"), "n2");
    wait_until(T, "Scheduled event", || {
        server.events(NS).iter().any(|e| e["reason"] == "Scheduled" && e["regarding"]["name"] == "web")
    })
    .unwrap_or_else(|e| panic!("{e}\n{}", es.logs()));

    // An impossible pod: FailedScheduling and PodScheduled=False patched on its status.
    server.create(PODS, pod(NS, "huge").scheduler(scheduler).cpu("64").build());
    wait_until(T, "PodScheduled=False", || {
        server.get(&format!("{PODS}/huge")).is_some_and(|p| {
            p["status"]["conditions"]
                .as_array()
                .is_some_and(|c| c.iter().any(|c| c["type"] == "PodScheduled" && c["status"] == "False"))
        })
    })
    .unwrap_or_else(|e| panic!("{e}\n{}", es.logs()));
    server.delete(&format!("{PODS}/huge"));

    // Preemption: only the low-priority filler's node can make room.
    server.create(PODS, pod(NS, "critical").scheduler(scheduler).cpu("1600m").priority_class("critical").build());
    wait_until(T, "filler evicted", || server.get(&format!("{PODS}/filler")).is_none())
        .unwrap_or_else(|e| panic!("{e}\n{}", es.logs()));
    assert_eq!(wait_bound(server, es, "critical"), "n1");

    // Volumes: a provisioned claim gets its selected node (then the provisioner binds it), and a
    // static volume is bound to its claim by the scheduler.
    server.create(PODS, with_claim(pod(NS, "db").scheduler(scheduler).cpu("100m"), "provisioned"));
    let selected = wait_for(T, "selected-node", || {
        server
            .get(&format!("{PVCS}/provisioned"))
            .and_then(|c| c["metadata"]["annotations"]["volume.kubernetes.io/selected-node"].as_str().map(str::to_string))
    })
    .unwrap_or_else(|e| panic!("{e}\n{}", es.logs()));
    provision(server, "provisioned", "pv-provisioned", &selected);
    assert_eq!(wait_bound(server, es, "db"), selected);
    server.create(PODS, with_claim(pod(NS, "cache").scheduler(scheduler).cpu("100m"), "static"));
    wait_until(T, "pv-n2 bound to its claim by the scheduler", || {
        server.get(&format!("{PVS}/pv-n2")).is_some_and(|pv| pv["spec"]["claimRef"]["name"] == "static")
    })
    .unwrap_or_else(|e| panic!("{e}\n{}", es.logs()));
    complete_binding(server, "static", "pv-n2");
    assert_eq!(wait_bound(server, es, "cache"), "n2");

    // /metrics through delegated authentication: a monitoring user may scrape, others may not.
    server.add_token("prom-token", "prometheus", &["system:monitoring"]);
    server.add_token("nosy-token", "nosy", &[]);
    let (code, body) = probe(es, "/metrics", Some("prom-token"));
    assert_eq!(code, 200, "{body}");
    assert!(body.contains("scheduler_schedule_attempts_total"), "{body}");
    assert_eq!(probe(es, "/metrics", Some("nosy-token")).0, 403);

    // Nothing required was refused along the way.
    let forbidden: Vec<String> = server.forbidden_requests().iter().map(|r| format!("{} {}", r.method, r.path)).collect();
    for f in &forbidden {
        assert!(f.contains("/priorityclasses") || f.contains("/leases"), "only optional reads may be refused: {forbidden:?}");
        assert!(f.starts_with("GET "), "{forbidden:?}");
    }
    let verbose = probe(es, "/readyz?verbose", None).1;
    assert!(verbose.contains("[+]api-permissions ok"), "{verbose}");
    assert!(verbose.contains(&format!("[+]leaderElection ok: leading (kube-system/{lease_name})")), "{verbose}");
}

/// Act as the local-path provisioner and the PV controller for a claim.
fn provision(server: &TestApiServer, claim_name: &str, pv: &str, node: &str) {
    let claim = server.get(&format!("{PVCS}/{claim_name}")).expect("claim");
    server.create(
        PVS,
        json!({"metadata": {"name": pv},
               "spec": {"capacity": {"storage": "1Gi"}, "accessModes": ["ReadWriteOnce"], "storageClassName": "local-path",
                        "hostPath": {"path": format!("/var/lib/local-path/{pv}")},
                        "claimRef": {"namespace": NS, "name": claim_name, "uid": claim["metadata"]["uid"]},
                        "nodeAffinity": {"required": {"nodeSelectorTerms": [{"matchExpressions": [
                            {"key": "kubernetes.io/hostname", "operator": "In", "values": [node]}]}]}}}}),
    );
    complete_binding(server, claim_name, pv);
}

/// The PV controller's side of a binding: claim and volume both Bound.
fn complete_binding(server: &TestApiServer, claim_name: &str, pv: &str) {
    server.patch_merge(&format!("{PVS}/{pv}/status"), json!({"status": {"phase": "Bound"}}));
    server.patch_merge(
        &format!("{PVCS}/{claim_name}"),
        json!({"metadata": {"annotations": {"pv.kubernetes.io/bind-completed": "yes"}}, "spec": {"volumeName": pv}}),
    );
    server.patch_merge(&format!("{PVCS}/{claim_name}/status"), json!({"status": {"phase": "Bound"}}));
}

fn scheduler_name(config: &Path) -> String {
    let cfg = edgesched::core::config::load_file(config).expect("config").config;
    cfg.profiles[0].scheduler_name.clone()
}

#[test]
fn static_pod_runs_as_kubeadms_scheduler_user_with_the_shipped_rbac() {
    let server = server_with(DefaultRoles::Current);
    server.apply_file(&manifest("manifests/static-pod/rbac.yaml"));
    let name = scheduler_name(&manifest("manifests/static-pod/edgesched-config.yaml"));
    arrange(&server, &name);
    let started = deploy::static_pod(&server, Vec::new());
    exercise(&server, &started.es, &name, "edgesched");
    // PriorityClasses are not granted: one warning, the feature off, scheduling unaffected.
    let logs = started.es.logs();
    let warned = logs.matches("Permission denied; continuing without it").count();
    assert!(warned >= 1, "{logs}");
    assert!(logs.contains(r#"resource="priorityclasses.scheduling.k8s.io""#), "{logs}");
    assert!(!logs.contains("Permission denied; scheduling waits"), "{logs}");
    let verbose = probe(&started.es, "/readyz?verbose", None).1;
    assert!(verbose.contains("optional features off: list priorityclasses.scheduling.k8s.io forbidden"), "{verbose}");
}

#[test]
fn systemd_unit_runs_as_kubeadms_scheduler_user_with_the_shipped_rbac() {
    let server = server_with(DefaultRoles::LegacyLeaseNameOnly);
    server.apply_file(&manifest("manifests/static-pod/rbac.yaml"));
    let name = scheduler_name(&manifest("systemd/config.yaml"));
    arrange(&server, &name);
    let started = start_systemd(&server);
    exercise(&server, &started.es, &name, "edgesched");
    // Type=notify: the unit is ready when the caches are; the log says so.
    started.es.wait_for_log("Caches are synced", T).expect("synced");
}

#[test]
fn static_pod_on_a_cluster_with_the_older_lease_rule_needs_the_shipped_role_and_heals_when_it_is_applied() {
    // Clusters without system::leader-locking-kube-scheduler let kube-scheduler's user get and
    // update only the Lease named kube-scheduler.
    let server = server_with(DefaultRoles::LegacyLeaseNameOnly);
    let name = scheduler_name(&manifest("manifests/static-pod/edgesched-config.yaml"));
    arrange(&server, &name);
    let started = deploy::static_pod(&server, Vec::new());
    let es = &started.es;
    es.wait_for_log("Leader election is forbidden to access its Lease", T).expect("the denial is logged");
    let logs = es.logs();
    assert!(logs.contains(r#"verb="get""#) && logs.contains(r#"lease="kube-system/edgesched""#), "{logs}");
    assert!(logs.contains(r#"resourceNames: [\"edgesched\"]"#), "the log says which rule to add: {logs}");
    // Other schedulers' leases cannot be listed either: that feature is off, readiness not held up
    // by it; only the Lease itself is.
    wait_until(T, "readyz names the Lease", || {
        let (code, verbose) = probe(es, "/readyz?verbose", None);
        code == 500
            && verbose
                .contains(r#"[-]api-permissions failed: get leases.coordination.k8s.io "edgesched" in kube-system forbidden"#)
            && verbose.contains("[+]sched-handler-sync ok")
            && verbose.contains("list leases.coordination.k8s.io in kube-system forbidden")
    })
    .unwrap_or_else(|e| panic!("{e}\n{}\n{}", probe(es, "/readyz?verbose", None).1, es.logs()));

    // The README's one step for this path; no restart.
    server.apply_file(&manifest("manifests/static-pod/rbac.yaml"));
    wait_ready(es);
    server.create(PODS, pod(NS, "after-grant").scheduler(&name).cpu("100m").build());
    wait_bound(&server, es, "after-grant");
    es.wait_for_log("Lease access granted", T).expect("the grant is noticed");
}

#[test]
fn deployment_runs_as_its_service_account_with_the_shipped_rbac() {
    let server = server_with(DefaultRoles::Current);
    let configmap = deploy::doc_of_kind(&manifest("manifests/deployment/configmap.yaml"), "ConfigMap");
    let config: Value = serde_saphyr::from_str(configmap["data"]["config.yaml"].as_str().expect("config")).expect("yaml");
    let name = config["profiles"][0]["schedulerName"].as_str().expect("name").to_string();
    let lease_name = config["leaderElection"]["resourceName"].as_str().expect("lease").to_string();
    arrange(&server, &name);
    let started = start_deployment(&server);
    exercise(&server, &started.es, &name, &lease_name);
    let user = "system:serviceaccount:kube-system:edgesched";
    assert!(server.requests().iter().any(|r| r.user == user && r.path.ends_with("/binding")), "bound as the ServiceAccount");
    // The shipped Role lets it see other schedulers' leases: only PriorityClasses are refused.
    let refused: Vec<String> = server.forbidden_requests().iter().map(|r| r.path.clone()).collect();
    assert!(refused.iter().all(|p| p.contains("/priorityclasses")), "{refused:?}");
}

#[test]
fn optional_permission_granted_later_turns_its_feature_on_without_a_restart() {
    let server = server_with(DefaultRoles::Current);
    server.create(NODES, node("n1").build());
    let env = vec![("EDGESCHED_FORBIDDEN_RETRY".to_string(), "0.5".to_string())];
    let started = deploy::static_pod(&server, env);
    let es = &started.es;
    wait_ready(es);
    es.wait_for_log("Permission denied; continuing without it", T).expect("warned");
    server.apply_yaml(
        "apiVersion: rbac.authorization.k8s.io/v1\nkind: ClusterRole\nmetadata: {name: read-priorityclasses}\nrules:\n- {apiGroups: [scheduling.k8s.io], resources: [priorityclasses], verbs: [get, list, watch]}\n---\napiVersion: rbac.authorization.k8s.io/v1\nkind: ClusterRoleBinding\nmetadata: {name: read-priorityclasses}\nroleRef: {apiGroup: rbac.authorization.k8s.io, kind: ClusterRole, name: read-priorityclasses}\nsubjects:\n- {apiGroup: rbac.authorization.k8s.io, kind: User, name: \"system:kube-scheduler\"}\n",
    );
    es.wait_for_log(r#""Permission granted; watching again" resource="priorityclasses.scheduling.k8s.io""#, T).expect("healed");
    wait_until(T, "no optional feature off", || !probe(es, "/readyz?verbose", None).1.contains("optional features off"))
        .unwrap_or_else(|e| panic!("{e}\n{}", es.logs()));
    // Warned once, then quiet while retrying.
    assert_eq!(es.logs().matches("Permission denied; continuing without it").count(), 1, "{}", es.logs());
}

#[test]
fn a_required_permission_taken_away_fails_readiness_with_its_name_and_heals_when_restored() {
    let server = server_with(DefaultRoles::Current);
    server.create(NODES, node("n1").build());
    server.apply_file(&manifest("manifests/static-pod/rbac.yaml"));
    let binding = "/apis/rbac.authorization.k8s.io/v1/clusterrolebindings/system:kube-scheduler";
    let saved = server.get(binding).expect("kubeadm binds system:kube-scheduler");
    assert!(server.delete(binding));
    let started = deploy::static_pod(&server, Vec::new());
    let es = &started.es;
    // An error line: klog puts err first, then the pairs.
    es.wait_for_log(r#""Permission denied; scheduling waits for it" err="#, T).expect("logged");
    es.wait_for_log(r#"verb="list" resource="nodes""#, T).expect("logged");
    wait_until(T, "readyz names what is missing", || {
        let (code, body) = probe(es, "/readyz?verbose", None);
        code == 500 && body.contains("[-]sched-handler-sync failed: caches not synced: waiting for nodes, pods")
    })
    .unwrap_or_else(|e| panic!("{e}\n{}", probe(es, "/readyz?verbose", None).1));
    assert!(probe(es, "/readyz?verbose", None).1.contains("list nodes forbidden"));

    let mut restored = saved;
    if let Some(m) = restored["metadata"].as_object_mut() {
        m.remove("resourceVersion");
        m.remove("uid");
    }
    server.create("/apis/rbac.authorization.k8s.io/v1/clusterrolebindings", restored);
    wait_ready(es);
    server.create(PODS, pod(NS, "p").scheduler("edgesched").build());
    wait_bound(&server, es, "p");
}

#[test]
fn a_refused_binding_is_an_error_in_the_log_and_readyz_until_granted() {
    let server = server_with(DefaultRoles::Current);
    server.create(NODES, node("n1").build());
    server.apply_file(&manifest("manifests/static-pod/rbac.yaml"));
    // kube-scheduler's role without the binding rule, for its user.
    let role_path = "/apis/rbac.authorization.k8s.io/v1/clusterroles/system:kube-scheduler";
    let mut role = server.get(role_path).expect("role");
    let rules: Vec<Value> = role["rules"]
        .as_array()
        .expect("rules")
        .iter()
        .filter(|r| !r["resources"].as_array().is_some_and(|res| res.iter().any(|x| x == "pods/binding")))
        .cloned()
        .collect();
    let full_rules = role["rules"].clone();
    role["rules"] = Value::Array(rules);
    server.update(role_path, role);
    let started = deploy::static_pod(&server, Vec::new());
    let es = &started.es;
    wait_ready(es);
    server.create(PODS, pod(NS, "p").scheduler("edgesched").build());
    // An error line: klog puts err first, then the pairs.
    es.wait_for_log(r#""Permission denied" err="#, T).expect("logged");
    es.wait_for_log(r#"verb="create" resource="pods/binding" object="default/p""#, T).expect("logged");
    wait_until(T, "readyz names the binding", || {
        let (code, body) = probe(es, "/readyz?verbose", None);
        code == 500 && body.contains("[-]api-permissions failed: create pods/binding forbidden")
    })
    .unwrap_or_else(|e| panic!("{e}\n{}", es.logs()));
    wait_until(T, "FailedScheduling says why", || {
        server.events(NS).iter().any(|e| {
            e["reason"] == "FailedScheduling"
                && e["regarding"]["name"] == "p"
                // framework.go RunBindPlugins wraps the API error: `running Bind plugin "DefaultBinder": ...`.
                && e["note"].as_str().is_some_and(|n| n.contains(r#"running Bind plugin "DefaultBinder": "#) && n.contains("forbidden"))
        })
    })
    .unwrap_or_else(|e| panic!("{e}\n{}", es.logs()));

    let mut role = server.get(role_path).expect("role");
    role["rules"] = full_rules;
    server.update(role_path, role);
    wait_bound(&server, es, "p");
    wait_ready(es);
}

/// Ask the API server (as an administrator) whether `user` in `groups` may make each access.
fn allowed(server: &TestApiServer, user: &str, groups: &[&str], accesses: &[Access]) -> Vec<(Access, bool)> {
    server.grant_cluster_admin("rbac-checker");
    let dir = deploy::scratch("sar");
    let kubeconfig = server.write_kubeconfig(&dir, KubeAuth::ClientCert { user: "rbac-checker".into() });
    let rest = edgesched::shell::kube::kubeconfig::load_kubeconfig(&kubeconfig, None).expect("kubeconfig");
    let client = edgesched::shell::kube::client::Client::new(&rest, &Default::default()).expect("client");
    let out = accesses
        .iter()
        .map(|a| {
            let body = json!({"apiVersion": "authorization.k8s.io/v1", "kind": "SubjectAccessReview",
                "spec": {"user": user, "groups": groups, "resourceAttributes": {
                    "verb": a.verb, "group": a.group, "resource": a.resource, "subresource": a.subresource,
                    "namespace": a.namespace, "name": a.name}}});
            let resp: Value = client.create("/apis/authorization.k8s.io/v1/subjectaccessreviews", &body).expect("SAR");
            (a.clone(), resp["status"]["allowed"] == true)
        })
        .collect();
    drop(dir);
    out
}

fn denied(results: &[(Access, bool)], required: bool) -> Vec<String> {
    results.iter().filter(|(a, ok)| !ok && a.required == required).map(|(a, _)| a.to_string()).collect()
}

#[test]
fn every_declared_permission_is_granted_by_the_shipped_rbac_and_kubeadms_roles() {
    let static_cfg =
        edgesched::core::config::load_file(&manifest("manifests/static-pod/edgesched-config.yaml")).expect("config").config;
    let usage = Usage::of(&static_cfg, true).expect("profiles");
    let accesses = permissions::accesses(&static_cfg, &usage);
    assert!(accesses.len() > 30, "{accesses:?}");

    // Static pod / systemd: kube-scheduler's user, kubeadm's roles, plus manifests/static-pod/rbac.yaml.
    for roles in [DefaultRoles::Current, DefaultRoles::LegacyLeaseNameOnly] {
        let server = server_with(roles);
        let user = "system:kube-scheduler";
        let bare = allowed(&server, user, &[], &accesses);
        let missing = denied(&bare, true);
        match roles {
            // Since v1.31 kubeadm's leader-locking Role covers every Lease in kube-system.
            DefaultRoles::Current => assert!(missing.is_empty(), "{missing:?}"),
            // Before: exactly the own Lease is missing, which is what the shipped Role adds.
            DefaultRoles::LegacyLeaseNameOnly => assert_eq!(
                missing,
                [
                    "get leases.coordination.k8s.io \"edgesched\" in kube-system",
                    "update leases.coordination.k8s.io \"edgesched\" in kube-system"
                ]
            ),
        }
        server.apply_file(&manifest("manifests/static-pod/rbac.yaml"));
        let with_rbac = allowed(&server, user, &[], &accesses);
        assert!(denied(&with_rbac, true).is_empty(), "{:?}", denied(&with_rbac, true));
        let optional = denied(&with_rbac, false);
        let expected_optional: Vec<&str> = match roles {
            DefaultRoles::Current => vec!["list priorityclasses.scheduling.k8s.io", "watch priorityclasses.scheduling.k8s.io"],
            DefaultRoles::LegacyLeaseNameOnly => vec![
                "list priorityclasses.scheduling.k8s.io",
                "watch priorityclasses.scheduling.k8s.io",
                "list leases.coordination.k8s.io in kube-system",
                "watch leases.coordination.k8s.io in kube-system",
            ],
        };
        assert_eq!(optional, expected_optional);
    }

    // Deployment: its ServiceAccount with manifests/deployment/rbac.yaml.
    let server = server_with(DefaultRoles::Current);
    for f in ["namespace-and-serviceaccount.yaml", "rbac.yaml"] {
        server.apply_file(&manifest(&format!("manifests/deployment/{f}")));
    }
    let sa = "system:serviceaccount:kube-system:edgesched";
    let groups = ["system:serviceaccounts", "system:serviceaccounts:kube-system", "system:authenticated"];
    let configmap = deploy::doc_of_kind(&manifest("manifests/deployment/configmap.yaml"), "ConfigMap");
    let cfg = edgesched::core::config::load_str(configmap["data"]["config.yaml"].as_str().expect("config"), "configmap")
        .expect("config")
        .config;
    let results = allowed(&server, sa, &groups, &permissions::accesses(&cfg, &Usage::of(&cfg, true).expect("profiles")));
    assert!(denied(&results, true).is_empty(), "{:?}", denied(&results, true));
    assert_eq!(denied(&results, false), ["list priorityclasses.scheduling.k8s.io", "watch priorityclasses.scheduling.k8s.io"]);
    // Least privilege: no Lease beyond its own may be written, no pod created.
    let extra = [
        access("update", "coordination.k8s.io", "leases", "kube-system", "kube-scheduler"),
        access("create", "", "pods", "default", ""),
    ];
    let checked = allowed(&server, sa, &groups, &extra);
    // kube-scheduler's ClusterRole itself grants update on the Lease named kube-scheduler.
    assert!(checked[0].1, "system:kube-scheduler grants kube-scheduler's Lease to whoever it is bound to");
    assert!(!checked[1].1, "no pod creation");
}

/// A required access to `resource` (`plural` or `plural/subresource`) of `group` in `namespace`
/// ("" for all), to the object `name` ("" for any), for a SubjectAccessReview.
fn access(verb: &str, group: &str, resource: &str, namespace: &str, name: &str) -> Access {
    let (resource, subresource) = resource.split_once('/').unwrap_or((resource, ""));
    let text = |s: &str| s.to_string();
    Access {
        verb: text(verb),
        group: text(group),
        resource: text(resource),
        subresource: text(subresource),
        namespace: text(namespace),
        name: text(name),
        required: true,
        why: String::new(),
    }
}

/// What kube-scheduler v1.35 does for Dynamic Resource Allocation: watch classes, slices and
/// claims, put its finalizer on a claim, and write allocation and reservation to its status.
fn kube_scheduler_dra_accesses() -> Vec<Access> {
    let mut out = Vec::new();
    for r in ["deviceclasses", "resourceslices", "resourceclaims"] {
        for verb in ["get", "list", "watch"] {
            out.push(access(verb, "resource.k8s.io", r, "", ""));
        }
    }
    for r in ["resourceclaims", "resourceclaims/status"] {
        for verb in ["update", "patch"] {
            out.push(access(verb, "resource.k8s.io", r, NS, ""));
        }
    }
    out
}

#[test]
fn every_deployment_path_grants_what_kube_scheduler_needs_for_dra() {
    let dra = kube_scheduler_dra_accesses();
    // Static pod and systemd: kube-scheduler's user with kubeadm's roles and the shipped Role.
    let server = server_with(DefaultRoles::Current);
    server.apply_file(&manifest("manifests/static-pod/rbac.yaml"));
    let results = allowed(&server, "system:kube-scheduler", &["system:authenticated"], &dra);
    assert!(denied(&results, true).is_empty(), "static pod: {:?}", denied(&results, true));

    // Deployment: the ServiceAccount, through its binding to system:kube-scheduler.
    for f in ["namespace-and-serviceaccount.yaml", "rbac.yaml"] {
        server.apply_file(&manifest(&format!("manifests/deployment/{f}")));
    }
    let sa = "system:serviceaccount:kube-system:edgesched";
    let groups = ["system:serviceaccounts", "system:serviceaccounts:kube-system", "system:authenticated"];
    let results = allowed(&server, sa, &groups, &dra);
    assert!(denied(&results, true).is_empty(), "deployment: {:?}", denied(&results, true));
    // Nothing beyond: claims are the resourceclaim controller's to create and delete.
    let beyond = [
        access("create", "resource.k8s.io", "resourceclaims", NS, ""),
        access("delete", "resource.k8s.io", "resourceclaims", NS, ""),
    ];
    assert!(allowed(&server, sa, &groups, &beyond).iter().all(|(_, ok)| !ok));

    // What-if: list, and only list, of the four DRA kinds.
    server.apply_file(&manifest("manifests/what-if/rbac.yaml"));
    let kinds = ["deviceclasses", "resourceslices", "resourceclaims", "resourceclaimtemplates"];
    let lists: Vec<Access> = kinds.iter().map(|k| access("list", "resource.k8s.io", k, "", "")).collect();
    let results = allowed(&server, "analyst", &["edgesched:what-if", "system:authenticated"], &lists);
    assert!(denied(&results, true).is_empty(), "what-if: {:?}", denied(&results, true));
    let watches: Vec<Access> = kinds.iter().map(|k| access("watch", "resource.k8s.io", k, "", "")).collect();
    assert!(allowed(&server, "analyst", &["edgesched:what-if", "system:authenticated"], &watches).iter().all(|(_, ok)| !ok));
}
