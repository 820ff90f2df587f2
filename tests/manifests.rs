//! The shipped deployment artefacts agree with each other: a scheduler name, port, lease name or
//! config path changed in one file but not in the others would deploy a scheduler that never
//! becomes ready, cannot take its lease, or serves nobody's pods.

use serde_json::Value;
use std::path::Path;

fn read(rel: &str) -> String {
    std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join(rel)).unwrap_or_else(|e| panic!("{rel}: {e}"))
}

/// Every YAML document of a file (multi-document files split on `---` lines).
fn docs(rel: &str) -> Vec<Value> {
    let text = read(rel);
    let mut out = Vec::new();
    let mut current = String::new();
    for line in text.lines().chain(std::iter::once("---")) {
        if line.trim_end() == "---" {
            if current.lines().any(|l| !l.trim().is_empty() && !l.trim_start().starts_with('#')) {
                out.push(serde_saphyr::from_str::<Value>(&current).unwrap_or_else(|e| panic!("{rel}: {e}")));
            }
            current.clear();
        } else {
            current.push_str(line);
            current.push('\n');
        }
    }
    out
}

fn doc(rel: &str) -> Value {
    let mut d = docs(rel);
    assert_eq!(d.len(), 1, "{rel}: one document");
    d.remove(0)
}

fn by_kind<'a>(docs: &'a [Value], kind: &str) -> Vec<&'a Value> {
    docs.iter().filter(|d| d["kind"] == kind).collect()
}

/// The value of `--name=value` in a container's command/args.
fn flag(container: &Value, name: &str) -> Option<String> {
    let prefix = format!("--{name}=");
    ["command", "args"]
        .iter()
        .filter_map(|k| container[*k].as_array())
        .flatten()
        .filter_map(Value::as_str)
        .find_map(|a| a.strip_prefix(&prefix).map(str::to_string))
}

fn probes(container: &Value) -> Vec<&Value> {
    ["livenessProbe", "readinessProbe", "startupProbe"].iter().map(|p| &container[*p]).filter(|p| !p.is_null()).collect()
}

/// The directory a container mounts `path` from, and the volume name.
fn mount_for<'a>(container: &'a Value, path: &str) -> Option<&'a Value> {
    container["volumeMounts"]
        .as_array()?
        .iter()
        .find(|m| m["mountPath"].as_str().is_some_and(|mp| path == mp || path.starts_with(&format!("{mp}/"))))
}

fn scheduler_names(config: &Value) -> Vec<String> {
    config["profiles"].as_array().into_iter().flatten().filter_map(|p| p["schedulerName"].as_str()).map(str::to_string).collect()
}

fn example_scheduler_name() -> String {
    doc("manifests/examples/pod.yaml")["spec"]["schedulerName"].as_str().expect("example pod names a scheduler").to_string()
}

#[test]
fn static_pod_probes_ports_mounts_and_config_agree() {
    let pod = doc("manifests/static-pod/edgesched.yaml");
    let config = doc("manifests/static-pod/edgesched-config.yaml");
    let spec = &pod["spec"];
    assert_eq!(spec["hostNetwork"], true);
    assert_eq!(spec["priorityClassName"], "system-node-critical");
    let c = &spec["containers"][0];
    let port: u64 = flag(c, "secure-port").and_then(|p| p.parse().ok()).expect("--secure-port");
    assert_ne!(port, 10259, "kube-scheduler owns 10259 on a control-plane node with host networking");
    let probes = probes(c);
    assert!(probes.len() >= 2, "liveness and readiness probes");
    for p in probes {
        assert_eq!(p["httpGet"]["port"].as_u64(), Some(port), "probe port = --secure-port");
        assert_eq!(p["httpGet"]["scheme"], "HTTPS");
        let path = p["httpGet"]["path"].as_str().unwrap_or_default();
        assert!(["/livez", "/readyz", "/healthz"].contains(&path), "probes use always-allowed paths: {path}");
    }
    if let Some(bind) = flag(c, "bind-address") {
        for p in probes_hosts(c) {
            assert_eq!(p, bind, "probes reach the bind address");
        }
    }
    // The config and kubeconfig files come from mounted host paths.
    let config_path = flag(c, "config").expect("--config");
    let kubeconfig = flag(c, "kubeconfig").expect("--kubeconfig");
    for path in [&config_path, &kubeconfig] {
        let m = mount_for(c, path).unwrap_or_else(|| panic!("{path} is mounted"));
        assert_eq!(m["readOnly"], true, "{path} mounted read-only");
        let vol = spec["volumes"].as_array().and_then(|v| v.iter().find(|v| v["name"] == m["name"])).expect("volume");
        assert!(vol["hostPath"]["path"].is_string(), "{path} comes from the host");
    }
    assert_eq!(config_path, "/etc/edgesched/config.yaml");
    assert_eq!(config["clientConnection"]["kubeconfig"].as_str(), Some(kubeconfig.as_str()));
    assert_eq!(scheduler_names(&config), [example_scheduler_name()]);
    let lease = &config["leaderElection"];
    assert_ne!(lease["resourceName"], "kube-scheduler", "its own Lease, not the default scheduler's");
    assert_eq!(c["securityContext"]["readOnlyRootFilesystem"], true);
}

fn probes_hosts(container: &Value) -> Vec<String> {
    probes(container).iter().filter_map(|p| p["httpGet"]["host"].as_str()).map(str::to_string).collect()
}

#[test]
fn deployment_rbac_configmap_and_kustomization_agree() {
    let dir = "manifests/deployment";
    let deployment = doc(&format!("{dir}/deployment.yaml"));
    let configmap = doc(&format!("{dir}/configmap.yaml"));
    let sa_docs = docs(&format!("{dir}/namespace-and-serviceaccount.yaml"));
    let rbac = docs(&format!("{dir}/rbac.yaml"));
    let kustomization = doc(&format!("{dir}/kustomization.yaml"));

    // Kustomization lists exactly the manifests of the directory.
    let mut listed: Vec<String> =
        kustomization["resources"].as_array().expect("resources").iter().filter_map(|r| r.as_str()).map(str::to_string).collect();
    listed.sort();
    let mut present: Vec<String> = std::fs::read_dir(Path::new(env!("CARGO_MANIFEST_DIR")).join(dir))
        .expect("read dir")
        .filter_map(|e| e.ok().map(|e| e.file_name().to_string_lossy().into_owned()))
        .filter(|n| n.ends_with(".yaml") && n != "kustomization.yaml")
        .collect();
    present.sort();
    assert_eq!(listed, present);
    let namespace = kustomization["namespace"].as_str().expect("namespace").to_string();

    let spec = &deployment["spec"]["template"]["spec"];
    assert_eq!(deployment["spec"]["replicas"].as_u64(), Some(2), "two replicas with leader election");
    let c = &spec["containers"][0];
    let port: u64 = flag(c, "secure-port").and_then(|p| p.parse().ok()).unwrap_or(10259);
    for p in probes(c) {
        assert_eq!(p["httpGet"]["port"].as_u64(), Some(port));
        assert_eq!(p["httpGet"]["scheme"], "HTTPS");
    }
    assert_eq!(c["securityContext"]["readOnlyRootFilesystem"], true);
    assert_eq!(c["securityContext"]["allowPrivilegeEscalation"], false);
    assert_eq!(spec["securityContext"]["runAsNonRoot"], true);

    // The ConfigMap holds the file --config names, through the mounted volume.
    let config_path = flag(c, "config").expect("--config");
    let m = mount_for(c, &config_path).expect("config mounted");
    let vol = spec["volumes"].as_array().and_then(|v| v.iter().find(|v| v["name"] == m["name"])).expect("volume");
    assert_eq!(vol["configMap"]["name"], configmap["metadata"]["name"]);
    let key = config_path.rsplit('/').next().expect("file name");
    let config_text = configmap["data"][key].as_str().unwrap_or_else(|| panic!("ConfigMap has key {key}"));
    let config: Value = serde_saphyr::from_str(config_text).expect("config YAML");
    assert_eq!(scheduler_names(&config), [example_scheduler_name()]);
    let lease_name = config["leaderElection"]["resourceName"].as_str().expect("resourceName");
    let lease_ns = config["leaderElection"]["resourceNamespace"].as_str().unwrap_or("kube-system");
    assert_eq!(config["leaderElection"]["leaderElect"], true);
    assert_eq!(lease_ns, namespace);

    // The ServiceAccount exists and every binding grants to it.
    let sa = by_kind(&sa_docs, "ServiceAccount");
    assert_eq!(sa.len(), 1);
    let sa_name = sa[0]["metadata"]["name"].as_str().expect("sa name");
    assert_eq!(spec["serviceAccountName"], sa_name);
    let bindings: Vec<&Value> = rbac.iter().filter(|d| d["kind"] == "ClusterRoleBinding" || d["kind"] == "RoleBinding").collect();
    assert!(!bindings.is_empty());
    let mut bound_roles = Vec::new();
    for b in &bindings {
        let subject = &b["subjects"][0];
        assert_eq!(subject["kind"], "ServiceAccount");
        assert_eq!(subject["name"], sa_name);
        assert_eq!(subject["namespace"], namespace.as_str());
        bound_roles.push(b["roleRef"]["name"].as_str().unwrap_or_default().to_string());
    }
    for role in ["system:kube-scheduler", "system:volume-scheduler"] {
        assert!(bound_roles.iter().any(|r| r == role), "bound to {role}: {bound_roles:?}");
    }
    // Our own Role (in the lease namespace) lets the ServiceAccount keep exactly the configured
    // Lease. Whether the whole set is enough is checked against a real RBAC evaluator in
    // tests/e2e_rbac.rs.
    let own: Vec<&Value> = by_kind(&rbac, "Role");
    assert_eq!(own.len(), 1);
    assert_eq!(own[0]["metadata"]["namespace"], lease_ns);
    assert!(bound_roles.iter().any(|r| own[0]["metadata"]["name"] == r.as_str()), "our Role is bound");
    assert!(lease_rule(own[0], lease_name), "RBAC lets us update lease {lease_name}");
    assert!(by_kind(&rbac, "ClusterRole").is_empty(), "no cluster-wide grant of our own");
}

/// Whether a role has a rule for `get` and `update` on exactly the Lease `name`.
fn lease_rule(role: &Value, name: &str) -> bool {
    let has = |r: &Value, field: &str, want: &str| r[field].as_array().is_some_and(|v| v.iter().any(|x| x == want));
    role["rules"].as_array().into_iter().flatten().any(|r| {
        has(r, "resources", "leases")
            && has(r, "verbs", "get")
            && has(r, "verbs", "update")
            && r["resourceNames"].as_array().is_some_and(|n| n.len() == 1 && n[0] == name)
    })
}

#[test]
fn static_pod_rbac_grants_its_lease_to_kube_schedulers_user() {
    let rbac = docs("manifests/static-pod/rbac.yaml");
    let config = doc("manifests/static-pod/edgesched-config.yaml");
    let lease = config["leaderElection"]["resourceName"].as_str().expect("resourceName");
    let ns = config["leaderElection"]["resourceNamespace"].as_str().expect("resourceNamespace");
    let role = by_kind(&rbac, "Role");
    assert_eq!(role.len(), 1);
    assert_eq!(role[0]["metadata"]["namespace"], ns);
    assert!(lease_rule(role[0], lease));
    let binding = by_kind(&rbac, "RoleBinding");
    assert_eq!(binding.len(), 1);
    assert_eq!(binding[0]["roleRef"]["name"], role[0]["metadata"]["name"]);
    assert_eq!(binding[0]["subjects"][0]["kind"], "User");
    assert_eq!(binding[0]["subjects"][0]["name"], "system:kube-scheduler", "the user of kubeadm's scheduler.conf");
    // The systemd unit runs under the same identity and lease name.
    let systemd = doc("systemd/config.yaml");
    assert_eq!(systemd["leaderElection"]["resourceName"].as_str(), Some(lease));
}

#[test]
fn systemd_unit_and_config_agree() {
    let unit = read("systemd/edgesched.service");
    let exec = unit.lines().find_map(|l| l.strip_prefix("ExecStart=")).expect("ExecStart");
    let arg = |name: &str| exec.split_whitespace().find_map(|a| a.strip_prefix(&format!("--{name}=")).map(str::to_string));
    assert_eq!(arg("config").as_deref(), Some("/etc/edgesched/config.yaml"));
    assert_ne!(arg("secure-port").as_deref(), Some("10259"), "kube-scheduler owns 10259 on a master");
    assert!(unit.contains("Type=notify"));
    let install = read("systemd/install.sh");
    assert!(install.contains("/etc/edgesched/config.yaml"), "install.sh puts the config where the unit reads it");
    assert!(install.contains("edgesched.service"));
    let config = doc("systemd/config.yaml");
    assert_eq!(scheduler_names(&config), [example_scheduler_name()]);
    assert_ne!(config["leaderElection"]["resourceName"], "kube-scheduler");
}

const WHAT_IF_HEADING: &str = "## What-if commands\n";

/// `(verbs, resources, required)` of each row of the markdown tables in `section`.
fn table_rows(section: &str) -> Vec<(Vec<String>, Vec<String>, bool)> {
    section
        .lines()
        .filter(|l| l.starts_with("| ") && !l.starts_with("| verbs") && !l.starts_with("|---"))
        .map(|l| {
            let cells: Vec<&str> = l.trim_matches('|').split('|').map(str::trim).collect();
            let list = |c: &str| c.split(',').map(|x| x.trim().to_string()).collect::<Vec<_>>();
            (list(cells[0]), list(cells[1]), cells[4] == "yes")
        })
        .collect()
}

/// The what-if table lists exactly the declared lists, with whether each is required.
fn check_what_if_table(section: &str) {
    use edgesched::shell::daemon::permissions::what_if_accesses;
    let mut listed: Vec<(String, bool)> = Vec::new();
    for (verbs, resources, required) in table_rows(section) {
        for v in &verbs {
            for r in &resources {
                listed.push((format!("{v} {r}"), required));
            }
        }
    }
    let mut declared: Vec<(String, bool)> =
        what_if_accesses().iter().map(|a| (format!("{} {}", a.verb, a.qualified_resource()), a.required)).collect();
    listed.sort();
    declared.sort();
    assert_eq!(listed, declared, "docs/permissions.md's what-if permission table");
}

/// The permission table in docs/permissions.md lists every request the scheduler declares (src/shell/daemon/permissions.rs),
/// with its verb and resource, and nothing the code does not make.
#[test]
fn readme_permission_table_matches_the_declaration() {
    use edgesched::shell::daemon::permissions::{accesses, Usage};
    let whole = read("docs/permissions.md");
    let (section, what_if) = whole.split_once(WHAT_IF_HEADING).expect("the what-if subsection");
    let rows = table_rows(section);
    check_what_if_table(what_if);
    let cfg = edgesched::core::config::default_config();
    let declared = accesses(&cfg, &Usage::of(&cfg, true).expect("profiles"));
    for a in &declared {
        let resource = a.qualified_resource();
        let row = rows.iter().find(|(verbs, resources, _)| verbs.contains(&a.verb) && resources.contains(&resource));
        let Some((_, _, required)) = row else { panic!("docs/permissions.md's permission table lacks {a}") };
        assert_eq!(*required, a.required, "docs/permissions.md says required={required} for {a}");
    }
    for (verbs, resources, _) in &rows {
        for v in verbs {
            for r in resources {
                assert!(
                    declared.iter().any(|a| &a.verb == v && &a.qualified_resource() == r),
                    "docs/permissions.md lists {v} {r}, which the code does not declare"
                );
            }
        }
    }
}

/// The `list` rules the what-if ClusterRole carries for Dynamic Resource Allocation: the four
/// resource.k8s.io/v1 kinds a v1.35 cluster holds its devices, classes, claims and claim
/// templates in (a simulation instantiates templates as the resourceclaim controller would).
/// The check below takes them with the declared lists, so it stays exact whether or not the
/// watched-kind table has their rows.
const DRA_WHAT_IF_LISTS: [&str; 4] = [
    "list deviceclasses.resource.k8s.io",
    "list resourceslices.resource.k8s.io",
    "list resourceclaims.resource.k8s.io",
    "list resourceclaimtemplates.resource.k8s.io",
];

/// The what-if ClusterRole grants exactly `list` of each kind a snapshot reads (the declaration
/// in src/shell/daemon/permissions.rs) and of the DRA kinds, nothing more.
#[test]
fn what_if_role_grants_exactly_the_declared_lists() {
    use edgesched::shell::daemon::permissions::what_if_accesses;
    let docs = docs("manifests/what-if/rbac.yaml");
    let role = by_kind(&docs, "ClusterRole");
    assert_eq!(role.len(), 1);
    let mut granted: Vec<String> = Vec::new();
    for rule in role[0]["rules"].as_array().expect("rules") {
        let group = rule["apiGroups"][0].as_str().expect("group");
        for verb in rule["verbs"].as_array().expect("verbs") {
            for r in rule["resources"].as_array().expect("resources") {
                let r = r.as_str().expect("resource");
                let q = if group.is_empty() { r.to_string() } else { format!("{r}.{group}") };
                granted.push(format!("{} {q}", verb.as_str().expect("verb")));
            }
        }
    }
    let mut declared: Vec<String> = what_if_accesses().iter().map(|a| format!("{} {}", a.verb, a.qualified_resource())).collect();
    declared.extend(DRA_WHAT_IF_LISTS.iter().map(|s| s.to_string()));
    granted.sort();
    declared.sort();
    declared.dedup();
    assert_eq!(granted, declared);
    let binding = by_kind(&docs, "ClusterRoleBinding");
    assert_eq!(binding[0]["roleRef"]["name"], role[0]["metadata"]["name"]);
}
