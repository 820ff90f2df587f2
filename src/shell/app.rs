//! The `edgesched` command line as a library function, so that the shipped binary and custom
//! builds with extra plugins ([`crate::plugin::Builder`]) run exactly the same program. Parsing and
//! wiring only. Exit codes: 0 success, 1 runtime failure (lost leadership, API unreachable at
//! startup, port in use), 2 bad usage or configuration.

use crate::core::config::{self, Overrides, SchedulerConfig};
use crate::core::logging::Line;
use crate::core::metrics::{options as metric_options, Metrics};
use crate::shell::cli::{self, Command, RunOptions};
use crate::shell::commands::what_if;
use crate::shell::kube::config_source::build_config;
use crate::shell::kube::kubeconfig;
use crate::shell::process::logging;
use crate::shell::serving;
use crate::{core::simulate, shell::daemon::run, shell::process::signals};
use log::{error, warn};
use std::net::{IpAddr, SocketAddr};
use std::path::{Path, PathBuf};

const EXIT_RUNTIME: i32 = 1;
const EXIT_USAGE: i32 = 2;

/// Run the command line of this process (`std::env::args`) and return the exit code, with every
/// buffered log line written.
pub fn main() -> i32 {
    let code = dispatch();
    logging::flush();
    code
}

fn dispatch() -> i32 {
    let cmd = match cli::parse(std::env::args_os().skip(1)) {
        Ok(c) => c,
        Err(e) => {
            eprintln!("error: {e}");
            eprintln!("Run 'edgesched --help' for usage.");
            return EXIT_USAGE;
        }
    };
    match cmd {
        Command::Help(text) => {
            print!("{text}");
            0
        }
        Command::Version => {
            println!("edgesched v{}", env!("CARGO_PKG_VERSION"));
            0
        }
        Command::CheckConfig { config, overrides, warnings } => check_config(config.as_deref(), &overrides, &warnings),
        // The scheduler's own log lines would drown the answer: what-if commands write warnings
        // to stderr themselves.
        Command::Simulate(opts) => what_if::exit_with(what_if::simulate_cmd(&opts)),
        Command::Snapshot { source } => what_if::exit_with(crate::shell::commands::snapshot::snapshot_cmd(&source)),
        Command::Capacity(opts) => what_if::exit_with(crate::shell::commands::capacity::capacity_cmd(&opts)),
        Command::Explain {
            kubeconfig,
            config,
            master,
            namespace,
            pods,
            all_pending,
            output,
            allow_insecure_http,
            request_timeout,
        } => {
            // Warnings (e.g. a list the user may not read) go to stderr like the scheduler's own.
            logging::init(&logging::Options::default());
            crate::shell::commands::diagnose::explain_cmd(&crate::shell::commands::diagnose::ExplainArgs {
                kubeconfig,
                config,
                master,
                namespace,
                pods,
                all_pending,
                output,
                allow_insecure_http,
                request_timeout,
            })
        }
        Command::Status { kubeconfig, config, master, output, allow_insecure_http, request_timeout } => {
            logging::init(&logging::Options::default());
            crate::shell::commands::diagnose::status_cmd(&crate::shell::commands::diagnose::StatusArgs {
                kubeconfig,
                config,
                master,
                output,
                allow_insecure_http,
                request_timeout,
            })
        }
        Command::Run(opts) => run_cmd(*Box::new(opts)),
    }
}

/// Warnings about how the configuration shares leader-election Leases with kube-scheduler.
fn lease_warnings(cfg: &SchedulerConfig) -> Vec<String> {
    let names: Vec<String> = cfg.profiles.iter().map(|p| p.scheduler_name.clone()).collect();
    let mut out: Vec<String> = crate::core::lease::default_lease_conflict(&cfg.leader_election, &names).into_iter().collect();
    if names.iter().any(|n| n == "default-scheduler")
        && cfg.leader_election.resource_name != crate::core::lease::DEFAULT_LEASE_NAME
    {
        out.push("A profile is named default-scheduler: if kube-scheduler also runs, both will schedule the same pods. Give edgesched its own schedulerName unless it replaces kube-scheduler.".into());
    }
    out
}

/// Load `--config` (or the defaults) and apply flag overrides; errors are printed.
pub fn load_config(path: Option<&Path>, overrides: &Overrides) -> Result<(SchedulerConfig, Vec<String>), String> {
    let (mut cfg, warnings) = match path {
        Some(p) => {
            let loaded = config::load_file(p).map_err(|e| e.to_string())?;
            (loaded.config, loaded.warnings)
        }
        None => (config::default_config(), Vec::new()),
    };
    config::apply_overrides(&mut cfg, overrides).map_err(|e| e.to_string())?;
    Ok((cfg, warnings))
}

fn check_config(path: Option<&Path>, overrides: &Overrides, warnings: &[String]) -> i32 {
    for w in warnings {
        eprintln!("warning: {w}");
    }
    let (cfg, more) = match load_config(path, overrides) {
        Ok(c) => c,
        Err(e) => {
            eprintln!("error: {e}");
            return EXIT_USAGE;
        }
    };
    for w in more {
        eprintln!("warning: {w}");
    }
    if let Err(e) = simulate::frameworks(&cfg) {
        eprintln!("error: {}: {e}", path.map(|p| p.display().to_string()).unwrap_or_else(|| "default configuration".into()));
        return EXIT_USAGE;
    }
    for w in lease_warnings(&cfg) {
        eprintln!("warning: {w}");
    }
    print!("{}", config::to_yaml(&cfg));
    0
}

fn insecure_addrs(opts: &RunOptions, cfg: &SchedulerConfig) -> Result<Vec<SocketAddr>, String> {
    let mut out: Vec<SocketAddr> = Vec::new();
    if let Some(port) = opts.port.filter(|p| *p > 0) {
        let ip: IpAddr = opts
            .insecure_address
            .as_deref()
            .unwrap_or("0.0.0.0")
            .parse()
            .map_err(|_| format!("--address: invalid IP {:?}", opts.insecure_address))?;
        out.push(SocketAddr::new(ip, port));
    }
    for (field, value) in [("healthzBindAddress", &cfg.healthz_bind_address), ("metricsBindAddress", &cfg.metrics_bind_address)] {
        if value.is_empty() {
            continue;
        }
        let addr: SocketAddr = value.parse().map_err(|_| format!("{field}: invalid address {value:?}"))?;
        if !out.contains(&addr) {
            out.push(addr);
        }
    }
    Ok(out)
}

fn rest_for(path: Option<&Path>, master: Option<&str>, allow_http: bool, what: &str) -> Result<kubeconfig::RestConfig, String> {
    let rest = build_config(path, master, allow_http).map_err(|e| format!("{what}: {e}"))?;
    // Check the certificates and key now: a bad PEM block is a configuration error (exit 2, naming
    // the kubeconfig and field), not a runtime failure discovered when the client is built.
    crate::shell::kube::tls::build_tls_config(&rest).map_err(|e| format!("{what}: {}: {e}", rest.origin))?;
    Ok(rest)
}

/// The metrics registry the metrics flags describe: the allow-list manifest first, the flag's
/// pairs over it, as component-base merges them.
fn metrics_registry(opts: &RunOptions) -> Result<Metrics, String> {
    let mut pairs = Vec::new();
    if let Some(path) = &opts.allow_metric_labels_manifest {
        let text =
            std::fs::read_to_string(path).map_err(|e| format!("--allow-metric-labels-manifest {}: {e}", path.display()))?;
        pairs = metric_options::allow_list_manifest(&text)
            .map_err(|e| format!("--allow-metric-labels-manifest {}: {e}", path.display()))?;
    }
    pairs.extend(opts.allow_metric_labels.iter().cloned());
    let mut options = opts.metrics.clone();
    options.allow_labels = metric_options::allow_list(&pairs).map_err(|e| e.to_string())?;
    let (metrics, warnings) = Metrics::with_options(&options);
    for w in warnings {
        warn!("{w}");
    }
    Ok(metrics)
}

fn run_cmd(opts: RunOptions) -> i32 {
    logging::init(&opts.logging);
    signals::install();
    for w in &opts.warnings {
        warn!("{w}");
    }
    // component-base cliflag.PrintFlags: every flag at V(1), before anything else.
    for (name, value) in &opts.flag_values {
        crate::core::logging::v(1, || {
            let mut quoted = String::new();
            crate::core::logging::text::go_quote(value, &mut quoted);
            Line::new(format!("FLAG: --{name}={quoted}"))
        });
    }
    // cmd/kube-scheduler/app/server.go runCommand.
    Line::new("Starting Kubernetes Scheduler").s("version", concat!("edgesched-", env!("CARGO_PKG_VERSION"))).info();
    crate::core::logging::v(1, || {
        Line::new("Golang settings")
            .s("GOGC", std::env::var("GOGC").unwrap_or_default())
            .s("GOMAXPROCS", std::env::var("GOMAXPROCS").unwrap_or_default())
            .s("GOTRACEBACK", std::env::var("GOTRACEBACK").unwrap_or_default())
    });
    let (cfg, warnings) = match load_config(opts.config.as_deref(), &opts.overrides) {
        Ok(c) => c,
        Err(e) => {
            error!("{e}");
            eprintln!("error: {e}");
            return EXIT_USAGE;
        }
    };
    for w in &warnings {
        warn!("{w}");
    }
    crate::core::logging::v(2, || Line::new("Using component config").s("config", config::to_yaml(&cfg)));
    if let Err(e) = simulate::frameworks(&cfg) {
        error!("{e}");
        eprintln!("error: {e}");
        return EXIT_USAGE;
    }
    if let Some(path) = &opts.write_config_to {
        // WriteConfigFile, then exit 0, as kube-scheduler does.
        return match std::fs::write(path, config::to_yaml(&cfg)) {
            Ok(()) => {
                Line::new("Wrote configuration").s("file", path.display()).info();
                0
            }
            Err(e) => {
                Line::new("Failed to write the configuration").s("file", path.display()).s("err", &e).error();
                EXIT_RUNTIME
            }
        };
    }
    let kubeconfig_path =
        (!cfg.client_connection.kubeconfig.is_empty()).then(|| PathBuf::from(&cfg.client_connection.kubeconfig));
    let rest = match rest_for(kubeconfig_path.as_deref(), opts.master.as_deref(), opts.allow_insecure_http, "kubeconfig") {
        Ok(r) => r,
        Err(e) => {
            error!("{e}");
            eprintln!("error: {e}");
            return EXIT_USAGE;
        }
    };
    if rest.insecure_skip_tls_verify {
        warn!("insecure-skip-tls-verify is set: the API server's certificate is NOT verified; anyone on the network path can impersonate it");
    }
    if rest.server.get(..7).is_some_and(|s| s.eq_ignore_ascii_case("http://")) {
        // Only reachable with --allow-insecure-http; say what it costs every time.
        warn!(
            "--allow-insecure-http: talking to the API server over plain HTTP; credentials and cluster data are sent unencrypted"
        );
    }
    let side = |p: &Option<PathBuf>, what: &str| -> Result<Option<kubeconfig::RestConfig>, String> {
        match p {
            Some(path) => rest_for(Some(path), opts.master.as_deref(), opts.allow_insecure_http, what).map(Some),
            None => Ok(None),
        }
    };
    let (authn_rest, authz_rest) = match (
        side(&opts.authentication_kubeconfig, "--authentication-kubeconfig"),
        side(&opts.authorization_kubeconfig, "--authorization-kubeconfig"),
    ) {
        (Ok(a), Ok(b)) => (a, b),
        (Err(e), _) | (_, Err(e)) => {
            eprintln!("error: {e}");
            return EXIT_USAGE;
        }
    };
    let bind_address: IpAddr = match opts.bind_address.parse() {
        Ok(a) => a,
        Err(_) => {
            eprintln!("error: --bind-address: invalid IP address {:?}", opts.bind_address);
            return EXIT_USAGE;
        }
    };
    let insecure = match insecure_addrs(&opts, &cfg) {
        Ok(a) => a,
        Err(e) => {
            eprintln!("error: {e}");
            return EXIT_USAGE;
        }
    };
    for w in lease_warnings(&cfg) {
        warn!("{w}");
    }
    let client_auth = match serving::client_cert::ClientAuth::load(opts.client_ca_file.as_deref(), &opts.requestheader) {
        Ok(a) => a.map(std::sync::Arc::new),
        Err(e) => {
            eprintln!("error: {e}");
            return EXIT_USAGE;
        }
    };
    let (tls_policy, tls_warnings) = match serving::tls_policy(opts.tls_min_version.as_deref(), &opts.tls_cipher_suites) {
        Ok(p) => p,
        Err(e) => {
            eprintln!("error: {e}");
            return EXIT_USAGE;
        }
    };
    for w in tls_warnings {
        warn!("{w}");
    }
    let defaults = serving::auth::CacheTtls::default();
    let ttl = |i: usize, d: std::time::Duration| opts.cache_ttls[i].map_or(d, |t| t.0);
    let cache_ttls = serving::auth::CacheTtls {
        allowed: ttl(0, defaults.allowed),
        denied: ttl(1, defaults.denied),
        token: ttl(2, defaults.token),
    };
    let metrics = match metrics_registry(&opts) {
        Ok(m) => m,
        Err(e) => {
            eprintln!("error: {e}");
            return EXIT_USAGE;
        }
    };
    let configz = serde_json::json!({ "componentconfig": config::to_json(&cfg) }).to_string();
    let settings = run::RunSettings {
        configz,
        rest,
        authn_rest,
        authz_rest,
        bind_address,
        secure_port: opts.secure_port,
        tls_cert_file: opts.tls_cert_file.clone(),
        tls_key_file: opts.tls_private_key_file.clone(),
        insecure_addrs: insecure,
        always_allow_paths: opts.authorization_always_allow_paths.clone(),
        hostname: run::hostname(),
        api_workers: crate::shell::daemon::api_workers::MAX_API_WORKERS,
        known_scheduler_names: opts.known_scheduler_names.clone(),
        warn_unserved_scheduler_names: opts.warn_unserved_scheduler_names,
        metrics,
        pod_max_in_unschedulable: opts.pod_max_in_unschedulable.map(|d| d.0),
        tls_policy,
        client_auth,
        feature_gates: opts.feature_gates.clone(),
        sni_cert_keys: opts.sni_cert_keys.clone(),
        permit_port_sharing: opts.permit_port_sharing,
        cert_dir: opts.cert_dir.clone(),
        cache_ttls,
        config: cfg,
    };
    match run::run(settings) {
        Ok(()) => 0,
        Err(e) => {
            error!("{e}");
            EXIT_RUNTIME
        }
    }
}
