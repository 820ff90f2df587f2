//! `edgesched explain` and `edgesched status`: read-only answers to "why is my pod Pending?".
//!
//! Both read the cluster once through the API (nodes, pods, priority classes, leader-election
//! leases). `explain` tells, for each pending pod, which scheduler should serve it, whether any
//! running scheduler does, and — for pods of our profiles — the per-node reasons and per-plugin
//! scores, computed by the same code as `simulate` and the live scheduler. `status` shows
//! leadership, pending pods per scheduler name and recent scheduling outcomes on one screen.

use crate::core::api::{self, Lease};
use crate::core::config::{self, ConfigError, Overrides, SchedulerConfig};
use crate::core::logging::Line;
use crate::core::served_names::{schedulers_from_leases, Schedulers, Served};
use crate::core::simulate::{self, Cluster, Decision, SimError};
use crate::shell::cli::OutputFormat;
use crate::shell::commands::cluster_reader::{self, ReadError};
use crate::shell::kube::api_error::ApiError;
use crate::shell::kube::client::{Client, ClientInitError, ClientOptions};
use crate::shell::kube::config_source::build_config;
use crate::shell::kube::kubeconfig::KubeconfigError;
use crate::shell::kube::query::ListParams;
use serde::Serialize;
use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::path::PathBuf;
use std::time::SystemTime;

/// Arguments of `explain`.
#[derive(Debug, Clone)]
pub struct ExplainArgs {
    pub kubeconfig: Option<PathBuf>,
    pub config: Option<PathBuf>,
    pub master: Option<String>,
    pub namespace: Option<String>,
    pub pods: Vec<String>,
    pub all_pending: bool,
    pub output: OutputFormat,
    pub allow_insecure_http: bool,
    /// `--request-timeout` (kubectl's): bounds each request; `None` keeps the defaults.
    pub request_timeout: Option<std::time::Duration>,
}

/// Arguments of `status`.
#[derive(Debug, Clone)]
pub struct StatusArgs {
    pub kubeconfig: Option<PathBuf>,
    pub config: Option<PathBuf>,
    pub master: Option<String>,
    pub output: OutputFormat,
    pub allow_insecure_http: bool,
    /// `--request-timeout` (kubectl's): bounds each request; `None` keeps the defaults.
    pub request_timeout: Option<std::time::Duration>,
}

/// Why `explain` or `status` could not answer. Setup problems (configuration, connection) exit
/// with status 2 like bad usage; problems talking to the cluster exit with 1.
#[derive(Debug)]
pub enum DiagnoseError {
    /// The scheduler configuration could not be loaded.
    Config(ConfigError),
    /// No client configuration could be built from the kubeconfig / `--master` / in-cluster.
    Kubeconfig(KubeconfigError),
    /// The API client could not be created from that configuration.
    Client(ClientInitError),
    /// An API call failed; `what` says what was being read.
    Api { what: String, source: ApiError },
    /// The API server did not answer (no connection, or no response in time).
    Unreachable { server: String, what: String, source: ApiError },
    /// `explain` was given neither a pod nor `--all-pending`.
    NoPodNamed,
    /// A pod named to `explain` does not exist (or has finished).
    PodNotFound(String),
    /// Replaying the scheduler's decision failed.
    Simulate(SimError),
}

impl DiagnoseError {
    /// Name the server when the failure is that it did not answer (refused, or no response).
    fn naming_server(self, server: &str) -> DiagnoseError {
        match self {
            DiagnoseError::Api { what, source: source @ (ApiError::Transport { .. } | ApiError::Refused { .. }) } => {
                DiagnoseError::Unreachable { server: server.to_string(), what, source }
            }
            other => other,
        }
    }

    /// The process exit status: 2 for setup problems, 1 for problems reading the cluster.
    pub fn exit_code(&self) -> i32 {
        match self {
            DiagnoseError::Config(_) | DiagnoseError::Kubeconfig(_) | DiagnoseError::Client(_) => 2,
            _ => 1,
        }
    }
}

impl std::fmt::Display for DiagnoseError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            DiagnoseError::Config(e) => e.fmt(f),
            DiagnoseError::Kubeconfig(e) => e.fmt(f),
            DiagnoseError::Client(e) => e.fmt(f),
            DiagnoseError::Api { what, source } => write!(f, "reading {what}: {source}"),
            DiagnoseError::Unreachable { server, what, source } => {
                write!(f, "the API server {server} did not answer (reading {what}): {source}")
            }
            DiagnoseError::NoPodNamed => f.write_str("name a pod (NAMESPACE/NAME or NAME with --namespace) or use --all-pending"),
            DiagnoseError::PodNotFound(key) => write!(f, "pod {key} not found (or already finished)"),
            DiagnoseError::Simulate(e) => e.fmt(f),
        }
    }
}

impl std::error::Error for DiagnoseError {}

/// The configuration and an API client, as both commands start.
fn prepare(
    config_path: Option<&std::path::Path>,
    kubeconfig_path: Option<&std::path::Path>,
    master: Option<&str>,
    allow_http: bool,
    request_timeout: Option<std::time::Duration>,
) -> Result<(SchedulerConfig, Client), DiagnoseError> {
    let cfg = match config_path {
        Some(p) => config::load_file(p).map(|l| l.config).map_err(DiagnoseError::Config)?,
        None => {
            let mut c = config::default_config();
            config::apply_overrides(&mut c, &Overrides::default()).map_err(DiagnoseError::Config)?;
            c
        }
    };
    let client = connect(&cfg, kubeconfig_path, master, allow_http, request_timeout)?;
    Ok((cfg, client))
}

/// A command's API client: `--kubeconfig`, else the configuration's, else in-cluster; `--master`
/// overrides the server.
pub fn connect(
    cfg: &SchedulerConfig,
    kubeconfig_path: Option<&std::path::Path>,
    master: Option<&str>,
    allow_http: bool,
    request_timeout: Option<std::time::Duration>,
) -> Result<Client, DiagnoseError> {
    let from_cfg = (!cfg.client_connection.kubeconfig.is_empty()).then(|| PathBuf::from(&cfg.client_connection.kubeconfig));
    let path = kubeconfig_path.map(PathBuf::from).or(from_cfg);
    let rest = build_config(path.as_deref(), master, allow_http).map_err(DiagnoseError::Kubeconfig)?;
    let client = Client::new(&rest, &client_options(request_timeout)).map_err(DiagnoseError::Client)?;
    Ok(client)
}

/// A command's client fails fast, as kubectl's: connections time out after 10 s (or the
/// shorter `--request-timeout`), requests after `--request-timeout` (60 s when unset, kubectl's
/// "0" meaning no limit), and a server that does not answer is not retried.
fn client_options(request_timeout: Option<std::time::Duration>) -> ClientOptions {
    let defaults = ClientOptions::default();
    let connect = std::time::Duration::from_secs(10);
    let (connect_timeout, request_timeout) = match request_timeout {
        Some(t) if t.is_zero() => (connect, std::time::Duration::from_secs(u64::from(u32::MAX))),
        Some(t) => (connect.min(t), t),
        None => (connect, defaults.request_timeout),
    };
    ClientOptions { qps: -1.0, connect_timeout, request_timeout, max_retries: 0, ..defaults }
}

/// Print a command's error and return its exit status.
fn fail(e: &DiagnoseError) -> i32 {
    eprintln!("error: {e}");
    e.exit_code()
}

/// List every page of a collection (objects that do not decode are skipped with a warning).
pub fn list_all<T: serde::de::DeserializeOwned + crate::core::api::Object + 'static>(
    client: &Client,
    path: &str,
    field_selector: Option<&str>,
) -> Result<Vec<T>, DiagnoseError> {
    let mut out = Vec::new();
    let mut token: Option<String> = None;
    loop {
        let params = ListParams {
            limit: Some(500),
            continue_token: token.clone(),
            field_selector: field_selector.map(str::to_string),
            ..Default::default()
        };
        let page = client.list::<T>(path, &params).map_err(|source| DiagnoseError::Api { what: path.to_string(), source })?;
        out.extend(page.items.into_iter().map(|o| *o));
        for u in page.undecodable {
            Line::new("Skipping an object that cannot be decoded")
                .s("path", path)
                .s("object", u.key())
                .s("err", u.error)
                .warning();
        }
        if page.metadata.continue_token.is_empty() {
            return Ok(out);
        }
        token = Some(page.metadata.continue_token);
    }
}

/// Read the cluster state scheduling needs: every cluster-state kind of the watched-kinds table.
pub fn fetch_cluster(client: &Client) -> Result<Cluster, DiagnoseError> {
    let mut cluster = Cluster::default();
    cluster_reader::for_each_object(client, &mut |change| {
        cluster.push(change);
        true
    })
    .map_err(|e| match e {
        ReadError::Forbidden { path, rule, source, .. } => {
            DiagnoseError::Api { what: format!("{path} (the identity needs {rule})"), source: *source }
        }
        ReadError::Api { path, source, .. } => DiagnoseError::Api { what: path, source: *source },
    })?;
    Ok(cluster)
}

/// Running schedulers as far as we can see them.
pub fn schedulers(client: &Client, cfg: &SchedulerConfig, known: &[String]) -> Schedulers {
    let ns = &cfg.leader_election.resource_namespace;
    let leases: Vec<Lease> =
        list_all(client, &format!("/apis/coordination.k8s.io/v1/namespaces/{ns}/leases"), None).unwrap_or_default();
    Schedulers {
        ours: Vec::new(),
        seen: schedulers_from_leases(&leases, SystemTime::now()),
        known: known.to_vec(),
        assume_default_served: true,
    }
    .with_ours(cfg)
}

impl Schedulers {
    /// The profiles of the given configuration are ours (whether or not a lease shows them live;
    /// `describe` says which).
    fn with_ours(mut self, cfg: &SchedulerConfig) -> Schedulers {
        self.ours = cfg.profiles.iter().map(|p| p.scheduler_name.clone()).collect();
        self
    }
}

/// One explained pod.
#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Explanation {
    pub pod: String,
    pub scheduler_name: String,
    /// Human description of who serves the name, or null when nobody does.
    pub served_by: Option<String>,
    pub served: bool,
    /// What the profile in `--config` would decide now (only for names it defines).
    pub decision: Option<Decision>,
    /// The PodScheduled condition message the real scheduler last wrote, if any.
    pub last_scheduler_message: Option<String>,
    pub hint: Option<String>,
}

fn describe(s: &Served, name: &str, scheds: &Schedulers) -> Option<String> {
    match s {
        Served::Ours => {
            let live = scheds.seen.iter().find(|x| x.live && x.names.iter().any(|n| n == name));
            Some(match live {
                Some(l) => format!("edgesched profile {name:?} (lease {} held by {})", l.lease, l.holder),
                None => format!("edgesched profile {name:?} from --config (no live lease names it: is edgesched running with leader election?)"),
            })
        }
        Served::Seen(seen) => {
            let age = seen.renewed_ago.map(|a| format!(", renewed {}s ago", a.as_secs())).unwrap_or_default();
            Some(format!("scheduler holding lease {} ({}{age})", seen.lease, seen.holder))
        }
        Served::Known => Some("a scheduler listed in --known-scheduler-names".into()),
        Served::AssumedDefault => Some("kube-scheduler (assumed for default-scheduler)".into()),
        Served::Nobody => None,
    }
}

/// Explain the selected pods.
pub fn explain(
    cfg: &SchedulerConfig,
    cluster: &Cluster,
    scheds: &Schedulers,
    targets: &[String],
    seed: u64,
) -> Result<Vec<Explanation>, DiagnoseError> {
    let ours: Vec<String> = cfg.profiles.iter().map(|p| p.scheduler_name.clone()).collect();
    let mut ours_targets = Vec::new();
    let mut out = Vec::new();
    for key in targets {
        let Some(pod) = cluster.pods().find(|p| format!("{}/{}", p.metadata.namespace, p.metadata.name) == *key) else {
            return Err(DiagnoseError::PodNotFound(key.clone()));
        };
        let name =
            if pod.spec.scheduler_name.is_empty() { "default-scheduler".to_string() } else { pod.spec.scheduler_name.clone() };
        let served = scheds.serving(&name);
        let mut hint = None;
        if !pod.spec.node_name.is_empty() {
            hint = Some(format!("already bound to node {}", pod.spec.node_name));
        } else if served == Served::Nobody {
            hint = Some(match scheds.suggestion(&name) {
                Some(s) => format!("no running scheduler serves {name:?}: did you mean {s:?}? Pods naming an unserved scheduler stay Pending without events."),
                None => format!("no running scheduler serves {name:?}; running: {}", scheds.running_names().join(", ")),
            });
        }
        if ours.contains(&name) && pod.spec.node_name.is_empty() {
            ours_targets.push(key.clone());
            if hint.is_none() {
                hint = crate::core::lease::default_lease_conflict(&cfg.leader_election, &ours).map(|c| {
                    let holder = scheds.seen.iter().find(|s| s.lease.ends_with("/kube-scheduler") && s.live);
                    match holder {
                        Some(h) => format!("{c} (the lease is held by {})", h.holder),
                        None => c,
                    }
                });
            }
        }
        let last = pod
            .status
            .conditions
            .iter()
            .find(|c| c.type_ == crate::core::texts::conditions::POD_SCHEDULED && c.status == "False")
            .and_then(|c| c.message.clone());
        out.push(Explanation {
            pod: key.clone(),
            scheduler_name: name.clone(),
            served_by: describe(&served, &name, scheds),
            served: served != Served::Nobody,
            decision: None,
            last_scheduler_message: last,
            hint,
        });
    }
    let transport = crate::shell::extender_client::transport_for(cfg)
        .map_err(|e| DiagnoseError::Simulate(simulate::SimError(e.to_string())))?;
    let decisions = simulate::explain_pods(cfg, cluster, &ours_targets, seed, transport).map_err(DiagnoseError::Simulate)?;
    for d in decisions {
        if let Some(e) = out.iter_mut().find(|e| e.pod == d.pod) {
            e.decision = Some(d);
        }
    }
    Ok(out)
}

/// Render explanations as a table.
pub fn render_explanations(list: &[Explanation]) -> String {
    let mut out = String::new();
    for e in list {
        let _ = writeln!(out, "POD {}", e.pod);
        let _ = writeln!(out, "  schedulerName:  {}", e.scheduler_name);
        let _ = writeln!(out, "  served by:      {}", e.served_by.as_deref().unwrap_or("NOBODY"));
        if let Some(m) = &e.last_scheduler_message {
            let _ = writeln!(out, "  last message:   {m}");
        }
        if let Some(h) = &e.hint {
            let _ = writeln!(out, "  hint:           {h}");
        }
        if let Some(d) = &e.decision {
            for line in simulate::render_table(std::slice::from_ref(d)).lines() {
                let _ = writeln!(out, "  {line}");
            }
        } else {
            out.push('\n');
        }
    }
    out
}

fn select_targets(args: &ExplainArgs, cluster: &Cluster) -> Result<Vec<String>, DiagnoseError> {
    let ns_default = args.namespace.clone().unwrap_or_else(|| "default".into());
    if args.all_pending {
        let mut v: Vec<String> = cluster
            .pods()
            .filter(|p| p.spec.node_name.is_empty())
            .filter(|p| args.namespace.as_ref().is_none_or(|ns| *ns == p.metadata.namespace))
            .map(|p| format!("{}/{}", p.metadata.namespace, p.metadata.name))
            .collect();
        v.sort();
        return Ok(v);
    }
    if args.pods.is_empty() {
        return Err(DiagnoseError::NoPodNamed);
    }
    Ok(args.pods.iter().map(|p| if p.contains('/') { p.clone() } else { format!("{ns_default}/{p}") }).collect())
}

/// `edgesched explain`.
pub fn explain_cmd(args: &ExplainArgs) -> i32 {
    let (cfg, client) = match prepare(
        args.config.as_deref(),
        args.kubeconfig.as_deref(),
        args.master.as_deref(),
        args.allow_insecure_http,
        args.request_timeout,
    ) {
        Ok(ready) => ready,
        Err(e) => return fail(&e),
    };
    let result = fetch_cluster(&client)
        .and_then(|cluster| {
            let targets = select_targets(args, &cluster)?;
            let scheds = schedulers(&client, &cfg, &[]);
            explain(&cfg, &cluster, &scheds, &targets, 0)
        })
        .map_err(|e| e.naming_server(client.server()));
    match result {
        Ok(list) => {
            match args.output {
                OutputFormat::Json => {
                    for e in &list {
                        println!("{}", serde_json::to_string(e).unwrap_or_default());
                    }
                }
                OutputFormat::Table | OutputFormat::Placements | OutputFormat::Html => print!("{}", render_explanations(&list)),
            }
            0
        }
        Err(e) => fail(&e),
    }
}

/// What `status` reports.
#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct StatusReport {
    pub lease: String,
    pub leader: Option<String>,
    /// When the current holder acquired the lease (RFC 3339), if known.
    pub lease_held_since: Option<String>,
    pub lease_renewed_seconds_ago: Option<u64>,
    /// This configuration contends for kube-scheduler's own Lease without serving
    /// `default-scheduler` (see [`crate::core::lease::default_lease_conflict`]).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub lease_conflict: Option<String>,
    pub lease_transitions: Option<i32>,
    pub profiles: Vec<String>,
    /// schedulerName → (pending pods, served by).
    pub pending: BTreeMap<String, PendingSummary>,
    /// Recent events by our profiles: reason → count.
    pub recent_events: BTreeMap<String, usize>,
    pub last_failures: Vec<String>,
}

/// Pending pods of one scheduler name.
#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct PendingSummary {
    pub pods: usize,
    pub served_by: Option<String>,
}

/// Build the status report.
pub fn status(client: &Client, cfg: &SchedulerConfig) -> Result<StatusReport, DiagnoseError> {
    let le = &cfg.leader_election;
    let lease_path = format!("/apis/coordination.k8s.io/v1/namespaces/{}/leases/{}", le.resource_namespace, le.resource_name);
    let lease: Option<Lease> = match client.get::<Lease>(&lease_path) {
        Ok(l) => Some(l),
        Err(e) if e.is_not_found() => None,
        Err(source) => return Err(DiagnoseError::Api { what: lease_path, source }),
    };
    let now = SystemTime::now();
    let renewed = lease
        .as_ref()
        .and_then(|l| l.spec.renew_time.as_deref())
        .and_then(crate::core::timefmt::parse_system_time)
        .and_then(|t| now.duration_since(t).ok())
        .map(|d| d.as_secs());
    let pods: Vec<api::Pod> =
        list_all(client, "/api/v1/pods", Some("spec.nodeName=,status.phase!=Succeeded,status.phase!=Failed"))?;
    let scheds = schedulers(client, cfg, &[]);
    let mut pending: BTreeMap<String, PendingSummary> = BTreeMap::new();
    for p in &pods {
        let name = if p.spec.scheduler_name.is_empty() { "default-scheduler".to_string() } else { p.spec.scheduler_name.clone() };
        let entry = pending
            .entry(name.clone())
            .or_insert_with(|| PendingSummary { pods: 0, served_by: describe(&scheds.serving(&name), &name, &scheds) });
        entry.pods += 1;
    }
    let profiles: Vec<String> = cfg.profiles.iter().map(|p| p.scheduler_name.clone()).collect();
    let mut recent_events: BTreeMap<String, usize> = BTreeMap::new();
    let mut last_failures = Vec::new();
    let events = list_all::<api::Event>(client, "/apis/events.k8s.io/v1/events", None);
    if let Err(e) = &events {
        log::warn!("cannot list events, recent outcomes are not shown: {e}");
    }
    if let Ok(events) = events {
        let cutoff = now.checked_sub(std::time::Duration::from_secs(3600)).unwrap_or(now);
        let mut failures: Vec<(String, String)> = Vec::new();
        for e in events.iter().filter(|e| profiles.contains(&e.reporting_controller)) {
            let t = crate::core::timefmt::parse_system_time(&e.event_time).unwrap_or(now);
            if t < cutoff {
                continue;
            }
            *recent_events.entry(e.reason.clone()).or_default() += 1;
            if e.reason == crate::core::texts::events::REASON_FAILED_SCHEDULING {
                failures.push((e.event_time.clone(), format!("{}/{}: {}", e.regarding.namespace, e.regarding.name, e.note)));
            }
        }
        failures.sort();
        last_failures = failures.into_iter().rev().take(5).map(|(_, m)| m).collect();
    }
    Ok(StatusReport {
        lease: format!("{}/{}", le.resource_namespace, le.resource_name),
        leader: lease.as_ref().and_then(|l| l.spec.holder_identity.clone()).filter(|h| !h.is_empty()),
        lease_held_since: lease.as_ref().and_then(|l| l.spec.acquire_time.clone()),
        lease_renewed_seconds_ago: renewed,
        lease_conflict: crate::core::lease::default_lease_conflict(le, &profiles),
        lease_transitions: lease.as_ref().and_then(|l| l.spec.lease_transitions),
        profiles,
        pending,
        recent_events,
        last_failures,
    })
}

/// Render the status report for people.
pub fn render_status(r: &StatusReport, leader_elect: bool) -> String {
    let mut out = String::new();
    let _ = writeln!(out, "Profiles:       {}", r.profiles.join(", "));
    if leader_elect {
        let _ = writeln!(
            out,
            "Leader lease:   {}  holder={}  since={}  renewed={}  transitions={}",
            r.lease,
            r.leader.as_deref().unwrap_or("<none>"),
            r.lease_held_since.as_deref().unwrap_or("-"),
            r.lease_renewed_seconds_ago.map(|s| format!("{s}s ago")).unwrap_or_else(|| "never".into()),
            r.lease_transitions.map(|t| t.to_string()).unwrap_or_else(|| "-".into())
        );
        if let Some(problem) = &r.lease_conflict {
            let _ = writeln!(out, "  WARNING: {problem}");
        }
    } else {
        let _ = writeln!(out, "Leader lease:   leader election disabled in this configuration");
    }
    let _ = writeln!(out, "\nPending pods by schedulerName:");
    if r.pending.is_empty() {
        let _ = writeln!(out, "  (none)");
    }
    for (name, s) in &r.pending {
        let _ = writeln!(
            out,
            "  {name:<28} {:>6}  {}",
            s.pods,
            s.served_by.as_deref().unwrap_or("NOT SERVED by any running scheduler")
        );
    }
    let _ = writeln!(out, "\nEvents by these profiles in the last hour:");
    if r.recent_events.is_empty() {
        let _ = writeln!(out, "  (none)");
    }
    for (reason, n) in &r.recent_events {
        let _ = writeln!(out, "  {reason:<28} {n:>6}");
    }
    if !r.last_failures.is_empty() {
        let _ = writeln!(out, "\nLatest FailedScheduling:");
        for f in &r.last_failures {
            let _ = writeln!(out, "  {f}");
        }
    }
    out
}

/// `edgesched status`.
pub fn status_cmd(args: &StatusArgs) -> i32 {
    let (cfg, client) = match prepare(
        args.config.as_deref(),
        args.kubeconfig.as_deref(),
        args.master.as_deref(),
        args.allow_insecure_http,
        args.request_timeout,
    ) {
        Ok(ready) => ready,
        Err(e) => return fail(&e),
    };
    match status(&client, &cfg).map_err(|e| e.naming_server(client.server())) {
        Ok(r) => {
            match args.output {
                OutputFormat::Json => println!("{}", serde_json::to_string(&r).unwrap_or_default()),
                OutputFormat::Table | OutputFormat::Placements | OutputFormat::Html => {
                    print!("{}", render_status(&r, cfg.leader_election.leader_elect))
                }
            }
            0
        }
        Err(e) => fail(&e),
    }
}
