//! Start edgesched the way a deployment manifest does: its container command taken verbatim from
//! the manifest (only file paths and ports rewritten to the test's), its configuration from the
//! manifest's files or ConfigMap, and the identity the deployment path gives it — kube-scheduler's
//! client certificate for a static pod or systemd unit, the ServiceAccount token (through the
//! in-cluster configuration) for a Deployment. What is shipped is what is tested.

use super::apiserver::{KubeAuth, TestApiServer};
use super::process::{free_port, Edgesched};
use super::wait::{tempdir, TempDir};
use serde_json::Value;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

/// The repository root (where `manifests/` lives).
pub fn repo() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// Every document of a multi-document YAML file, `null` documents skipped.
pub fn yaml_docs(path: &Path) -> Vec<Value> {
    let text = std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    serde_saphyr::from_multiple::<Value>(&text)
        .unwrap_or_else(|e| panic!("{}: {e}", path.display()))
        .into_iter()
        .filter(|d| !d.is_null())
        .collect()
}

/// The first document of `kind` in a file.
pub fn doc_of_kind(path: &Path, kind: &str) -> Value {
    yaml_docs(path).into_iter().find(|d| d["kind"] == kind).unwrap_or_else(|| panic!("{}: no {kind}", path.display()))
}

/// The first container of a Pod, or of a Deployment's pod template.
pub fn first_container(manifest: &Value) -> &Value {
    let spec = if manifest["kind"] == "Pod" { &manifest["spec"] } else { &manifest["spec"]["template"]["spec"] };
    &spec["containers"][0]
}

/// A container's `command` + `args` after the program name, as the kubelet passes them.
pub fn container_args(container: &Value) -> Vec<String> {
    let strings = |k: &str| -> Vec<String> {
        container[k].as_array().into_iter().flatten().filter_map(Value::as_str).map(str::to_string).collect()
    };
    let mut args = strings("command");
    if !args.is_empty() {
        args.remove(0);
    }
    args.extend(strings("args"));
    args
}

/// Rewrites of a command line: file paths and ports of the manifest replaced by the test's. A
/// flag value (in `--flag=value` or `--flag value` form) equal to a key is replaced.
#[derive(Debug, Default, Clone)]
pub struct Rewrites(pub BTreeMap<String, String>);

impl Rewrites {
    /// Replace `from` by `to` wherever it is a flag's whole value.
    pub fn with(mut self, from: &str, to: impl Into<String>) -> Rewrites {
        self.0.insert(from.to_string(), to.into());
        self
    }

    /// Apply to a command line.
    pub fn apply(&self, args: &[String]) -> Vec<String> {
        args.iter()
            .map(|a| match a.split_once('=') {
                Some((flag, value)) if flag.starts_with("--") => match self.0.get(value) {
                    Some(to) => format!("{flag}={to}"),
                    None => a.clone(),
                },
                _ => self.0.get(a).cloned().unwrap_or_else(|| a.clone()),
            })
            .collect()
    }

    /// Apply to a file's text (paths inside configuration files).
    pub fn apply_text(&self, text: &str) -> String {
        self.0.iter().fold(text.to_string(), |t, (from, to)| t.replace(from.as_str(), to))
    }
}

/// The value of `--name=value` or `--name value` in a command line.
pub fn flag_value(args: &[String], name: &str) -> Option<String> {
    let long = format!("--{name}");
    let prefix = format!("{long}=");
    args.iter().enumerate().find_map(|(i, a)| {
        a.strip_prefix(&prefix).map(str::to_string).or_else(|| (*a == long).then(|| args.get(i + 1).cloned()).flatten())
    })
}

/// How the process authenticates, as its deployment path does.
pub enum Identity {
    /// A kubeconfig with a client certificate for this user (kubeadm's `scheduler.conf`), written
    /// where `--kubeconfig`/`clientConnection.kubeconfig` point after rewriting.
    Kubeconfig(KubeAuth),
    /// The in-cluster configuration: `KUBERNETES_SERVICE_HOST/PORT` and a mounted ServiceAccount
    /// token and CA, for ServiceAccount `namespace/name`.
    InCluster { namespace: String, name: String },
}

/// A process started from a manifest, with the files it was given.
pub struct Started {
    pub es: Edgesched,
    pub args: Vec<String>,
    /// The rewritten secure port (0 when disabled).
    pub secure_port: u16,
}

/// Write `identity`'s credentials into `dir` and return (kubeconfig path if any, environment).
pub fn credentials(server: &TestApiServer, dir: &Path, identity: &Identity) -> (Option<PathBuf>, Vec<(String, String)>) {
    match identity {
        Identity::Kubeconfig(auth) => (Some(server.write_kubeconfig(dir, auth.clone())), Vec::new()),
        Identity::InCluster { namespace, name } => {
            let token = server.service_account_token(namespace, name);
            let sa_dir = dir.join("serviceaccount");
            std::fs::create_dir_all(&sa_dir).expect("sa dir");
            std::fs::write(sa_dir.join("token"), token).expect("token");
            std::fs::write(sa_dir.join("ca.crt"), server.ca_pem()).expect("ca");
            std::fs::write(sa_dir.join("namespace"), namespace).expect("namespace");
            let env = vec![
                ("KUBERNETES_SERVICE_HOST".to_string(), "127.0.0.1".to_string()),
                ("KUBERNETES_SERVICE_PORT".to_string(), server.port().to_string()),
                ("EDGESCHED_SERVICEACCOUNT_DIR".to_string(), sa_dir.display().to_string()),
            ];
            (None, env)
        }
    }
}

/// Start edgesched with `args` (already rewritten by the caller except for the secure port,
/// which is replaced by a free one), the given environment, in `dir`.
pub fn start(args: Vec<String>, env: Vec<(String, String)>, dir: TempDir) -> Started {
    let manifest_port = flag_value(&args, "secure-port").unwrap_or_else(|| "10259".into());
    let port = if manifest_port == "0" { 0 } else { free_port() };
    let mut args = Rewrites::default().with(&manifest_port, port.to_string()).apply(&args);
    if flag_value(&args, "secure-port").is_none() {
        args.push(format!("--secure-port={port}"));
    }
    let es = Edgesched::spawn_with_env(&args, &env, dir, port);
    Started { es, args, secure_port: port }
}

/// A scratch directory for one deployment's files (removed when dropped).
pub fn scratch(tag: &str) -> TempDir {
    tempdir(tag)
}

/// Run edgesched with `args` until it exits (for command lines that must be refused); returns
/// the exit code and stderr.
pub fn run_to_exit(args: &[String]) -> (Option<i32>, String) {
    let out = super::process::command().args(args).stdin(std::process::Stdio::null()).output().expect("run edgesched");
    (out.status.code(), String::from_utf8_lossy(&out.stderr).into_owned())
}

/// Start the static pod of `manifests/static-pod/` as kubeadm runs it: its command line with the
/// host paths (`/etc/edgesched/config.yaml`, `/etc/kubernetes/scheduler.conf`) pointing at test
/// files, the shipped config, and kube-scheduler's client certificate.
pub fn static_pod(server: &TestApiServer, env: Vec<(String, String)>) -> Started {
    static_pod_with(server, env, |config| config)
}

/// [`static_pod`] with its configuration file edited by `edit` first (e.g. a second scheduler
/// with its own `schedulerName` and Lease beside the first).
pub fn static_pod_with(server: &TestApiServer, env: Vec<(String, String)>, edit: impl FnOnce(String) -> String) -> Started {
    static_pod_flags(server, env, edit, &[])
}

/// [`static_pod_with`] with `flags` added to the static pod's command line (e.g. feature gates).
pub fn static_pod_flags(
    server: &TestApiServer,
    env: Vec<(String, String)>,
    edit: impl FnOnce(String) -> String,
    flags: &[&str],
) -> Started {
    let dir = scratch("static-pod");
    let (kubeconfig, _) =
        credentials(server, &dir, &Identity::Kubeconfig(KubeAuth::ClientCert { user: "system:kube-scheduler".into() }));
    let kubeconfig = kubeconfig.expect("kubeconfig").display().to_string();
    let config = dir.join("config.yaml");
    let rewrites = Rewrites::default()
        .with("/etc/kubernetes/scheduler.conf", kubeconfig)
        .with("/etc/edgesched/config.yaml", config.display().to_string());
    let text = std::fs::read_to_string(repo().join("manifests/static-pod/edgesched-config.yaml")).expect("config");
    std::fs::write(&config, edit(rewrites.apply_text(&text))).expect("write config");
    let pod = doc_of_kind(&repo().join("manifests/static-pod/edgesched.yaml"), "Pod");
    let mut args = rewrites.apply(&container_args(first_container(&pod)));
    args.extend(flags.iter().map(|f| f.to_string()));
    start(args, env, dir)
}

/// The fixture path `tests/fixtures/<rel>`.
pub fn fixture(rel: &str) -> PathBuf {
    repo().join("tests/fixtures").join(rel)
}
