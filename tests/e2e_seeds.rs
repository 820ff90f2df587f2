//! The ways people deploy a second scheduler, as printed in the articles this project started
//! from (copies and sources in tests/fixtures/README.md), run end to end with RBAC enforced:
//! each configuration and command line verbatim — only file paths and ports rewritten — under the
//! identity the article gives it. Where an article has a mistake, the test asserts the clear
//! error a user gets instead.

mod support;

use serde_json::{json, Value};
use std::path::Path;
use std::thread;
use std::time::{Duration, Instant, SystemTime};
use support::deploy::{self, fixture, Identity, Rewrites, Started};
use support::objects::{node, pod};
use support::process::{free_port, Edgesched};
use support::wait::wait_for;
use support::{https, wait_until, DefaultRoles, KubeAuth, ServerOptions, TestApiServer};

const NODES: &str = "/api/v1/nodes";
const NS: &str = "default";
const PODS: &str = "/api/v1/namespaces/default/pods";
const LEASES: &str = "/apis/coordination.k8s.io/v1/namespaces/kube-system/leases";
const T: Duration = Duration::from_secs(30);

fn kubeadm_scheduler() -> Identity {
    Identity::Kubeconfig(KubeAuth::ClientCert { user: "system:kube-scheduler".into() })
}

fn node_of(server: &TestApiServer, ns: &str, name: &str) -> Option<String> {
    server
        .get(&format!("/api/v1/namespaces/{ns}/pods/{name}"))
        .and_then(|p| p["spec"]["nodeName"].as_str().map(str::to_string))
        .filter(|n| !n.is_empty())
}

fn wait_bound(server: &TestApiServer, es: &Edgesched, name: &str) -> String {
    wait_for(T, &format!("{name} bound"), || node_of(server, NS, name)).unwrap_or_else(|e| panic!("{e}\n{}", es.logs()))
}

fn scheduled_event(server: &TestApiServer, es: &Edgesched, name: &str) -> Value {
    wait_for(T, &format!("Scheduled event for {name}"), || {
        server.events(NS).into_iter().find(|e| e["reason"] == "Scheduled" && e["regarding"]["name"] == name)
    })
    .unwrap_or_else(|e| panic!("{e}\n{}", es.logs()))
}

fn https_get(es: &Edgesched, path: &str) -> (u16, String) {
    let url = format!("https://127.0.0.1:{}{path}", es.secure_port);
    wait_for(T, &format!("GET {url}"), || https::get(&url, None).ok()).unwrap_or_else(|e| panic!("{e}\n{}", es.logs()))
}

/// The container command of a manifest fixture, program name dropped.
fn fixture_args(rel: &str, kind: &str) -> Vec<String> {
    let doc = deploy::doc_of_kind(&fixture(rel), kind);
    deploy::container_args(deploy::first_container(&doc))
}

/// Copy a fixture config into `dir` with `rewrites` applied to its text; returns the new path.
fn staged_config(dir: &Path, rel: &str, rewrites: &Rewrites) -> String {
    let text = std::fs::read_to_string(fixture(rel)).expect("fixture");
    let path = dir.join(Path::new(rel).file_name().expect("name"));
    std::fs::write(&path, rewrites.apply_text(&text)).expect("write");
    path.display().to_string()
}

/// Start a command line with `identity`'s credentials placed where `kubeconfig_path` (the
/// manifest's path, if any) points, and the rewrites of `extra` applied to the arguments.
fn start(
    server: &TestApiServer,
    args: Vec<String>,
    identity: &Identity,
    kubeconfig_path: Option<&str>,
    extra: Rewrites,
) -> Started {
    let dir = deploy::scratch("seed");
    let (kubeconfig, env) = deploy::credentials(server, &dir, identity);
    let mut rewrites = extra;
    if let (Some(from), Some(to)) = (kubeconfig_path, kubeconfig) {
        rewrites = rewrites.with(from, to.display().to_string());
    }
    deploy::start(rewrites.apply(&args), env, dir)
}

// ---------------------------------------------------------------------------------------------
// "K8s 2.10 - Multiple Schedulers" (blog post)
// ---------------------------------------------------------------------------------------------

#[test]
fn k8s_2_10_configs_and_pod_command_are_refused_with_the_fix() {
    // The scheduler-config.yaml / custom-scheduler-config.yaml of the post: a bogus apiVersion.
    let bogus = fixture("config/web-k8s-2-10-scheduler-config.yaml").display().to_string();
    let (code, err) = deploy::run_to_exit(&[format!("--config={bogus}")]);
    assert_eq!(code, Some(2), "{err}");
    assert!(err.contains(r#"unknown apiVersion "kube-scheduler.k8s.io/v1" for KubeSchedulerConfiguration; did you mean "kubescheduler.config.k8s.io/v1"?"#), "{err}");
    // The systemd unit's `--config FILE` (flag and value as two words) reaches the file.
    let (code, err) = deploy::run_to_exit(&["--config".to_string(), bogus.clone()]);
    assert_eq!(code, Some(2));
    assert!(err.contains("unknown apiVersion"), "the value form is accepted; the file is what is wrong: {err}");
    // The pod's config with leaderElection indented under the profile.
    let nested = fixture("config/web-k8s-2-10-custom-scheduler-config.yaml").display().to_string();
    let (code, err) = deploy::run_to_exit(&[format!("--config={nested}")]);
    assert_eq!(code, Some(2));
    assert!(err.contains("leaderElection is a top-level field, not a profile field"), "{err}");
    // The pod's command line as printed: `--address = 127.0.0.1` and `--kube-config`.
    let args = fixture_args("seeds/k8s-2-10-custom-scheduler-pod.yaml", "Pod");
    let (code, err) = deploy::run_to_exit(&args);
    assert_eq!(code, Some(2));
    assert!(err.contains(r#"flag --address is written with spaces around "=" in one argument"#), "{err}");
    let (code, err) = deploy::run_to_exit(&args[1..]);
    assert_eq!(code, Some(2));
    assert!(err.contains("unknown flag: --kube-config (did you mean --kubeconfig?)"), "{err}");
}

/// kube-scheduler as seen through its Lease `kube-system/kube-scheduler`: created as held, and
/// renewed whenever the test calls [`FakeKubeScheduler::renew`] (it stops renewing when the test
/// stops calling, as a kube-scheduler that went away would).
struct FakeKubeScheduler;

impl FakeKubeScheduler {
    const IDENTITY: &'static str = "master-1_6c3f0b7e-0d5d-4c57-9a43-1e5cbd6b3a7e";

    fn start(server: &TestApiServer) -> FakeKubeScheduler {
        let now = edgesched::core::timefmt::format_micro(SystemTime::now());
        server.create(
            LEASES,
            json!({"metadata": {"name": "kube-scheduler"},
                   "spec": {"holderIdentity": Self::IDENTITY, "leaseDurationSeconds": 15, "acquireTime": now, "renewTime": now, "leaseTransitions": 0}}),
        );
        FakeKubeScheduler
    }

    fn renew(&self, server: &TestApiServer) {
        let now = edgesched::core::timefmt::format_micro(SystemTime::now());
        server.patch_merge(&format!("{LEASES}/kube-scheduler"), json!({"spec": {"renewTime": now}}));
    }
}

#[test]
fn k8s_2_10_config_without_leader_election_contends_for_kube_schedulers_lease_and_says_so() {
    // The post's custom-scheduler config with its apiVersion corrected: no leaderElection block,
    // so the defaults apply (Lease kube-system/kube-scheduler). Only the timings are shortened so
    // that the test sees several lease durations pass.
    let server = TestApiServer::start();
    server.create(NODES, node("n1").build());
    let kube_scheduler = FakeKubeScheduler::start(&server);
    let dir = deploy::scratch("contend");
    let config = dir.join("custom-scheduler.yaml");
    let text = std::fs::read_to_string(fixture("seeds/k8s-2-10-scheduler-config-corrected.yaml")).expect("fixture");
    std::fs::write(&config, format!("{text}leaderElection:\n  leaseDuration: 2s\n  renewDeadline: 1s\n  retryPeriod: 250ms\n"))
        .expect("write");
    // The pod's command line with the post's two typos fixed (as its author meant it).
    let args = vec![
        "--address=127.0.0.1".to_string(),
        "--kubeconfig=/etc/kubernetes/scheduler.conf".to_string(),
        format!("--config={}", config.display()),
    ];
    let started = start(&server, args, &kubeadm_scheduler(), Some("/etc/kubernetes/scheduler.conf"), Rewrites::default());
    let es = &started.es;
    es.wait_for_log("leader election uses the Lease kube-system/kube-scheduler, which the default scheduler holds", T)
        .expect("warned at start");
    server.create(PODS, pod(NS, "nginx").scheduler("custom-scheduler").build());
    // Keep the fake kube-scheduler renewing while edgesched stands by for several lease durations.
    let deadline = Instant::now() + T;
    while !es.logs().contains("Standing by: another scheduler holds the leader lease") {
        assert!(Instant::now() < deadline, "no standby report\n{}", es.logs());
        kube_scheduler.renew(&server);
        thread::sleep(Duration::from_millis(200));
    }
    let logs = es.logs();
    assert!(logs.contains(&format!(r#"holder="{}""#, FakeKubeScheduler::IDENTITY)), "{logs}");
    assert!(logs.contains("problem=") && logs.contains("Set leaderElection.resourceName"), "{logs}");
    let (code, verbose) = https_get(es, "/readyz?verbose");
    assert_eq!(code, 200, "a standby is ready, as kube-scheduler's is: {verbose}");
    assert!(
        verbose.contains(&format!(
            "[+]leaderElection ok: standing by: lease kube-system/kube-scheduler held by {}",
            FakeKubeScheduler::IDENTITY
        )),
        "{verbose}"
    );
    assert!(node_of(&server, NS, "nginx").is_none(), "a standby binds nothing");

    // status and explain say it too.
    let kubeconfig = server.write_kubeconfig(&started.es.dir, KubeAuth::ClientCert { user: "admin".into() });
    server.grant_cluster_admin("admin");
    let cli = |sub: &[&str]| {
        let mut a: Vec<String> = sub.iter().map(|s| s.to_string()).collect();
        a.extend([format!("--config={}", config.display()), format!("--kubeconfig={}", kubeconfig.display())]);
        deploy::run_to_exit(&a).1 + &String::from_utf8_lossy(&support::process::command().args(&a).output().expect("run").stdout)
    };
    let status = cli(&["status"]);
    assert!(
        status.contains(FakeKubeScheduler::IDENTITY) && status.contains("WARNING: leader election uses the Lease"),
        "{status}"
    );
    let explain = cli(&["explain", "nginx"]);
    assert!(explain.contains(&format!("(the lease is held by {})", FakeKubeScheduler::IDENTITY)), "{explain}");
    kube_scheduler.renew(&server);

    // When kube-scheduler goes away, the standby takes the Lease and schedules.
    assert_eq!(wait_bound(&server, es, "nginx"), "n1");
}

// ---------------------------------------------------------------------------------------------
// Platform9 PMK article: a Deployment with a v1beta1 ConfigMap and its own kubeconfig
// ---------------------------------------------------------------------------------------------

#[test]
fn pmk_configmap_as_published_is_refused_at_start() {
    let args = fixture_args("seeds/pmk-my-scheduler-deployment.yaml", "Deployment");
    for (file, expected) in [
        ("config/web-pmk-v1beta1-as-published.yaml", "not valid YAML: simple key expected ':' (line 5 column 1)"),
        ("config/web-pmk-v1beta1-plugins-misindented.yaml", "plugins belongs inside a profile (profiles[].plugins)"),
    ] {
        let rewrites = Rewrites::default()
            .with("/etc/kubernetes/my-scheduler/my-scheduler.yaml", fixture(file).display().to_string())
            .with("10260", free_port().to_string());
        let (code, err) = deploy::run_to_exit(&rewrites.apply(&args));
        assert_eq!(code, Some(2), "{file}: {err}");
        assert!(err.contains(expected), "{file}: {err}");
    }
}

#[test]
fn pmk_deployment_as_intended_schedules_with_its_own_kubeconfig_and_health_port() {
    let server = TestApiServer::start();
    server.create(NODES, node("n1").cpu("2").build());
    server.create(NODES, node("n2").cpu("4").build());
    server.apply_file(&fixture("seeds/pmk-my-scheduler-rbac.yaml"));
    let dir = deploy::scratch("pmk");
    let health_port = free_port();
    // The ConfigMap as intended; its kubeconfig (user system:kube-scheduler, as the article's
    // second ConfigMap) and its 0.0.0.0:10252 health address moved to the test's.
    let (kubeconfig, _) = deploy::credentials(&server, &dir, &kubeadm_scheduler());
    let kubeconfig = kubeconfig.expect("kubeconfig").display().to_string();
    let file_rewrites = Rewrites::default()
        .with("/srv/kubernetes/kubeconfigs/kubeconfig-for-my-scheduler.yaml", kubeconfig)
        .with("0.0.0.0:10252", format!("127.0.0.1:{health_port}"));
    let config = staged_config(&dir, "config/web-pmk-v1beta1-intended.yaml", &file_rewrites);
    let args = Rewrites::default()
        .with("/etc/kubernetes/my-scheduler/my-scheduler.yaml", config)
        .apply(&fixture_args("seeds/pmk-my-scheduler-deployment.yaml", "Deployment"));
    let started = deploy::start(args, Vec::new(), dir);
    let es = &started.es;
    // The probes of the Deployment: /healthz over HTTPS on --secure-port.
    wait_until(T, "/healthz", || https_get(es, "/healthz").0 == 200).unwrap_or_else(|e| panic!("{e}\n{}", es.logs()));
    es.wait_for_log("Caches are synced", T).expect("synced");
    // The v1beta1 healthz/metrics address serves plain HTTP.
    let plain = https::get(&format!("http://127.0.0.1:{health_port}/healthz"), None).expect("plain healthz");
    assert_eq!(plain, (200, "ok".to_string()));
    es.wait_for_log("--scheduler-name", T).expect("the ignored --scheduler-name is called out");
    server.create(PODS, pod(NS, "web").scheduler("my-scheduler").cpu("100m").build());
    wait_bound(&server, es, "web");
    let ev = scheduled_event(&server, es, "web");
    assert_eq!(ev["reportingController"], "my-scheduler");
    // NodeResourcesLeastAllocated (weight 3) became NodeResourcesFit with weight 3.
    es.wait_for_log("converted to NodeResourcesFit", T).expect("conversion warning");
}

// ---------------------------------------------------------------------------------------------
// networkandcode "extra scheduler": a copy of kubeadm's kube-scheduler static pod
// ---------------------------------------------------------------------------------------------

#[test]
fn extra_scheduler_static_pod_flags_as_printed() {
    let server = TestApiServer::start();
    server.create(NODES, node("k8s-node-2").build());
    let insecure = free_port();
    let args = fixture_args("seeds/networkandcode-kube-extra-scheduler.yaml", "Pod");
    let started = start(
        &server,
        args,
        &kubeadm_scheduler(),
        Some("/etc/kubernetes/scheduler.conf"),
        Rewrites::default().with("10255", insecure.to_string()),
    );
    let es = &started.es;
    es.wait_for_log("Caches are synced", T).expect("synced");
    let po37 = deploy::yaml_docs(&fixture("seeds/networkandcode-kube-extra-scheduler.yaml"))
        .into_iter()
        .find(|d| d["metadata"]["name"] == "po37")
        .expect("po37");
    server.create(PODS, po37);
    assert_eq!(wait_bound(&server, es, "po37"), "k8s-node-2");
    let ev = scheduled_event(&server, es, "po37");
    // `kubectl describe po po37`: Normal Scheduled ... kube-extra-scheduler Successfully assigned default/po37 to k8s-node-2
    assert_eq!(ev["reportingController"], "kube-extra-scheduler");
    assert_eq!(ev["note"], "Successfully assigned default/po37 to k8s-node-2");
    // --port serves /healthz in plain HTTP (the post's telnet checks).
    assert_eq!(https::get(&format!("http://127.0.0.1:{insecure}/healthz"), None).expect("healthz"), (200, "ok".to_string()));
    assert_eq!(https_get(es, "/healthz").0, 200);
    // Its identity needed nothing beyond kubeadm's default roles.
    assert!(server.forbidden_requests().iter().all(|r| r.path.contains("/priorityclasses")), "{:?}", server.forbidden_requests());
}

// ---------------------------------------------------------------------------------------------
// Scheduler profiles, priority and leader election (the "multiple schedulers" concept notes)
// ---------------------------------------------------------------------------------------------

#[test]
fn priority_classes_profiles_and_a_named_lease_under_the_documented_rbac() {
    // The notes describe a my-new-scheduler.yaml with leaderElect and a resourceName, a profile
    // of PrioritySort, NodeResourcesFit, NodeName, NodeUnschedulable, ImageLocality and
    // DefaultBinder, a PriorityClass, and several profiles in one process. Deployed as the
    // Kubernetes walkthrough deploys a second scheduler (a ServiceAccount bound to
    // system:kube-scheduler and system:volume-scheduler).
    let server = TestApiServer::start_with(ServerOptions { default_roles: DefaultRoles::Current, ..Default::default() });
    server.create(NODES, node("n1").cpu("1").build());
    for doc in deploy::yaml_docs(&fixture("seeds/k8s-docs-my-scheduler.yaml")) {
        if matches!(doc["kind"].as_str(), Some("ServiceAccount" | "ClusterRoleBinding" | "RoleBinding")) {
            server.apply_yaml(&serde_json::to_string(&doc).expect("json"));
        }
    }
    server.create(
        "/apis/scheduling.k8s.io/v1/priorityclasses",
        json!({"metadata": {"name": "high-priority"}, "value": 1000000, "description": "urgent"}),
    );
    let dir = deploy::scratch("profiles");
    let config = dir.join("my-new-scheduler.yaml");
    std::fs::write(
        &config,
        "apiVersion: kubescheduler.config.k8s.io/v1\nkind: KubeSchedulerConfiguration\nleaderElection:\n  leaderElect: true\n  resourceNamespace: kube-system\n  resourceName: my-new-scheduler\nprofiles:\n- schedulerName: my-new-scheduler\n  plugins:\n    multiPoint:\n      enabled:\n      - name: PrioritySort\n      - name: NodeResourcesFit\n      - name: NodeName\n      - name: NodeUnschedulable\n      - name: ImageLocality\n      - name: DefaultBinder\n      disabled:\n      - name: \"*\"\n- schedulerName: my-other-scheduler\n",
    )
    .expect("write");
    let (_, env) =
        deploy::credentials(&server, &dir, &Identity::InCluster { namespace: "kube-system".into(), name: "my-scheduler".into() });
    let started = deploy::start(vec![format!("--config={}", config.display())], env, dir);
    let es = &started.es;
    // Bound to system:kube-scheduler, which lets it update only the Lease named kube-scheduler.
    es.wait_for_log("Leader election is forbidden to access its Lease", T).expect("the missing rule is named");
    assert!(es.logs().contains(r#"resourceNames: [\"my-new-scheduler\"]"#), "{}", es.logs());
    // Two pods for the one free slot, the urgent one created last: it gets the slot.
    server.create(PODS, pod(NS, "routine").scheduler("my-new-scheduler").cpu("600m").build());
    server.create(PODS, pod(NS, "urgent").scheduler("my-other-scheduler").cpu("600m").priority_class("high-priority").build());
    // The documented step: add the scheduler's name to the Lease rule of system:kube-scheduler.
    let role_path = "/apis/rbac.authorization.k8s.io/v1/clusterroles/system:kube-scheduler";
    let mut role = server.get(role_path).expect("role");
    for rule in role["rules"].as_array_mut().expect("rules") {
        if rule["resourceNames"].as_array().is_some_and(|n| n.iter().any(|x| x == "kube-scheduler")) {
            rule["resourceNames"].as_array_mut().expect("names").push(json!("my-new-scheduler"));
        }
    }
    server.update(role_path, role);
    assert_eq!(wait_bound(&server, es, "urgent"), "n1");
    thread::sleep(Duration::from_millis(300));
    assert!(node_of(&server, NS, "routine").is_none(), "queue order is by priority across profiles");
    let urgent = server.get(&format!("{PODS}/urgent")).expect("urgent");
    assert_eq!(urgent["spec"]["priority"], 1000000, "the Priority admission plugin resolved the class");
    assert!(
        server
            .get(&format!("{LEASES}/my-new-scheduler"))
            .is_some_and(|l| l["spec"]["holderIdentity"].as_str().is_some_and(|h| h.contains('_'))),
        "its own Lease"
    );
}

// ---------------------------------------------------------------------------------------------
// Korean CKA study notes: my-scheduler as a pod with kubeadm's scheduler.conf, and a v1beta2
// ConfigMap
// ---------------------------------------------------------------------------------------------

#[test]
fn cka_notes_pod_with_the_lock_object_lease_schedules_and_the_mistyped_pod_is_explained() {
    let server = TestApiServer::start();
    server.create(NODES, node("n1").build());
    let dir = deploy::scratch("cka");
    let config = staged_config(&dir, "config/web-cka-notes-my-scheduler-leader-election.yaml", &Rewrites::default());
    let args = Rewrites::default()
        .with("/etc/kubernetes/my-scheduler-config.yaml", config.clone())
        .apply(&fixture_args("seeds/cka-notes-my-custom-scheduler-pod.yaml", "Pod"));
    let started = start(&server, args, &kubeadm_scheduler(), Some("/etc/kubernetes/scheduler.conf"), Rewrites::default());
    let es = &started.es;
    wait_until(T, "lease lock-object-my-scheduler", || server.get(&format!("{LEASES}/lock-object-my-scheduler")).is_some())
        .unwrap_or_else(|e| panic!("{e}\n{}", es.logs()));
    server.create(PODS, pod(NS, "mine").scheduler("my-scheduler").build());
    wait_bound(&server, es, "mine");
    // The notes' nginx pod names my-custom-scheduler, which nobody runs.
    let nginx = deploy::yaml_docs(&fixture("seeds/cka-notes-my-custom-scheduler-pod.yaml"))
        .into_iter()
        .find(|d| d["metadata"]["name"] == "nginx")
        .expect("nginx");
    server.create(PODS, nginx);
    server.grant_cluster_admin("admin");
    let kubeconfig = server.write_kubeconfig(&es.dir, KubeAuth::ClientCert { user: "admin".into() });
    let out = support::process::command()
        .args(["explain", "nginx", &format!("--config={config}"), &format!("--kubeconfig={}", kubeconfig.display())])
        .output()
        .expect("explain");
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        text.contains(r#"no running scheduler serves "my-custom-scheduler"; running: default-scheduler, my-scheduler"#),
        "{text}\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(node_of(&server, NS, "nginx").is_none());
}

#[test]
fn cka_notes_v1beta2_configmap_runs_as_the_walkthrough_deployment() {
    let server = TestApiServer::start();
    server.create(NODES, node("n1").build());
    for doc in deploy::yaml_docs(&fixture("seeds/k8s-docs-my-scheduler.yaml")) {
        if matches!(doc["kind"].as_str(), Some("ServiceAccount" | "ClusterRoleBinding" | "RoleBinding")) {
            server.apply_yaml(&serde_json::to_string(&doc).expect("json"));
        }
    }
    let dir = deploy::scratch("v1beta2");
    let config = staged_config(&dir, "config/web-cka-notes-v1beta2-configmap.yaml", &Rewrites::default());
    let (_, env) =
        deploy::credentials(&server, &dir, &Identity::InCluster { namespace: "kube-system".into(), name: "my-scheduler".into() });
    let started = deploy::start(vec![format!("--config={config}")], env, dir);
    let es = &started.es;
    es.wait_for_log("Caches are synced", T).expect("synced");
    server.create(PODS, pod(NS, "p").scheduler("my-scheduler").build());
    wait_bound(&server, es, "p");
    assert!(es.logs().contains("v1beta2"), "the deprecated version is called out: {}", es.logs());
}

#[test]
fn cka_notes_config_without_leader_election_is_flagged_by_check_config() {
    let file = fixture("config/web-cka-notes-my-scheduler.yaml").display().to_string();
    let out = support::process::command().args(["check-config", "--config", &file]).output().expect("check-config");
    assert!(out.status.success());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("warning: leader election uses the Lease kube-system/kube-scheduler"), "{err}");
    assert!(err.contains(r#"(for example to "my-scheduler")"#), "{err}");
}

// ---------------------------------------------------------------------------------------------
// Kubernetes documentation: "Configure Multiple Schedulers"
// ---------------------------------------------------------------------------------------------

#[test]
fn kubernetes_docs_multiple_schedulers_walkthrough() {
    let server = TestApiServer::start();
    server.create(NODES, node("n1").build());
    let file = fixture("seeds/k8s-docs-my-scheduler.yaml");
    server.apply_file(&file);
    let deployment = deploy::doc_of_kind(&file, "Deployment");
    let args = deploy::container_args(deploy::first_container(&deployment));
    let configmap = deploy::doc_of_kind(&file, "ConfigMap");
    let dir = deploy::scratch("walkthrough");
    let config = dir.join("my-scheduler-config.yaml");
    std::fs::write(&config, configmap["data"]["my-scheduler-config.yaml"].as_str().expect("config")).expect("write");
    let (_, env) =
        deploy::credentials(&server, &dir, &Identity::InCluster { namespace: "kube-system".into(), name: "my-scheduler".into() });
    let mut args = Rewrites::default()
        .with("/etc/kubernetes/my-scheduler/my-scheduler-config.yaml", config.display().to_string())
        .apply(&args);
    // Keep the test's listener on loopback (the pod has its own network namespace).
    args.push("--bind-address=127.0.0.1".into());
    let started = deploy::start(args, env, dir);
    let es = &started.es;
    // The Deployment's probes: /healthz over HTTPS.
    wait_until(T, "/healthz", || https_get(es, "/healthz").0 == 200).unwrap_or_else(|e| panic!("{e}\n{}", es.logs()));
    // The walkthrough's pod (created with the file) is scheduled by my-scheduler.
    assert_eq!(wait_bound(&server, es, "annotation-second-scheduler"), "n1");
    assert_eq!(scheduled_event(&server, es, "annotation-second-scheduler")["reportingController"], "my-scheduler");
}
