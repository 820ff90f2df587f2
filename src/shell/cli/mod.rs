//! The command line, shaped like kube-scheduler's so existing manifests and unit files keep working:
//! the same flag names, `--flag=value` and `--flag value`, booleans as `--flag` or `--flag=false`.
//! Flags kube-scheduler has dropped over the years are accepted with a warning when ignoring them is
//! harmless; unknown flags are usage errors that suggest the closest real flag.
//!
//! Subcommands (`check-config`, `simulate`, `snapshot`, `capacity`, `explain`, `status`) must be
//! the first argument; without one the scheduler runs.

use crate::core::config::{parse_go_duration, GoDuration, Overrides};
use crate::core::metrics::options::{self as metric_options, MetricsOptions};
use crate::shell::process::logging::{Format as LogFormat, Options as LogOptions};
use crate::shell::serving::client_cert::RequestHeaderOptions;
use lexopt::Arg;
use std::ffi::OsString;
use std::fmt;
use std::path::PathBuf;
use std::time::Duration;

/// What the user asked for.
#[derive(Debug, Clone, PartialEq)]
#[allow(clippy::large_enum_variant)] // built once at startup; boxing would only add noise for callers
pub enum Command {
    /// Run the scheduler.
    Run(RunOptions),
    /// Load, default and validate a configuration (with flag overrides) and print it as v1.
    CheckConfig { config: Option<PathBuf>, overrides: Overrides, warnings: Vec<String> },
    /// Schedule the pending pods of a cluster file or a live cluster's snapshot (plus added
    /// objects, minus removed nodes) and report the placements.
    Simulate(SimulateOptions),
    /// Write a live cluster's scheduling state as a cluster file.
    Snapshot { source: ClusterSource },
    /// How many more copies of a pod fit, and where.
    Capacity(CapacityOptions),
    /// Explain why pods are pending, against a live cluster.
    Explain {
        kubeconfig: Option<PathBuf>,
        config: Option<PathBuf>,
        master: Option<String>,
        namespace: Option<String>,
        pods: Vec<String>,
        all_pending: bool,
        output: OutputFormat,
        allow_insecure_http: bool,
        request_timeout: Option<Duration>,
    },
    /// Report a running scheduler's health, leadership and profiles.
    Status {
        kubeconfig: Option<PathBuf>,
        config: Option<PathBuf>,
        master: Option<String>,
        output: OutputFormat,
        allow_insecure_http: bool,
        request_timeout: Option<Duration>,
    },
    /// Print the version.
    Version,
    /// Print this help text.
    Help(String),
}

/// How subcommands print results.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum OutputFormat {
    #[default]
    Table,
    Json,
    /// `simulate` only: one `NAMESPACE/NAME NODE` line per pod.
    Placements,
}

/// Where a what-if command reads the cluster from: a cluster file or a live API server.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct ClusterSource {
    /// `--cluster FILE`.
    pub cluster: Option<PathBuf>,
    /// `--kubeconfig` (or the configuration's, or in-cluster) when no `--cluster` is given.
    pub kubeconfig: Option<PathBuf>,
    pub master: Option<String>,
    pub allow_insecure_http: bool,
    pub request_timeout: Option<Duration>,
    /// `--config`: the profiles to simulate with.
    pub config: Option<PathBuf>,
    /// `--lenient`: invalid objects in cluster files are warnings, not errors.
    pub lenient: bool,
}

/// `--add`, `--remove-node`, `--cordon`: the what-if changes applied to the cluster read.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct WhatIf {
    pub add: Vec<PathBuf>,
    pub remove_nodes: Vec<String>,
    pub cordon: Vec<String>,
}

/// `simulate`'s options.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct SimulateOptions {
    pub source: ClusterSource,
    pub what_if: WhatIf,
    pub output: OutputFormat,
    /// `--top N`: scored nodes (and node names per reason) shown per pod; 0 shows all.
    pub top: usize,
    /// `--summary`: a footer with placements by reason and per-node use.
    pub summary: bool,
    /// `--summary-nodes N`: the most utilised nodes the text summary lists; 0 lists all.
    pub summary_nodes: usize,
    pub seed: Option<u64>,
}

/// `capacity`'s options.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct CapacityOptions {
    pub source: ClusterSource,
    pub what_if: WhatIf,
    /// `--pod FILE`: the pod to copy.
    pub pod: PathBuf,
    /// `--max N`: stop after this many copies.
    pub max: Option<usize>,
    pub output: OutputFormat,
    pub seed: Option<u64>,
}

/// `--summary-nodes` when not given.
pub const DEFAULT_SUMMARY_NODES: usize = 10;

/// `--top` when not given.
pub const DEFAULT_TOP: usize = 5;

/// Everything the scheduler needs from the command line.
#[derive(Debug, Clone, PartialEq)]
pub struct RunOptions {
    /// `--config`.
    pub config: Option<PathBuf>,
    /// `--master`: API server address, overriding the kubeconfig's.
    pub master: Option<String>,
    /// Flags that override the configuration (`--kubeconfig`, `--leader-elect*`, `--kube-api-*`, ...).
    pub overrides: Overrides,
    /// `--secure-port` (0 disables HTTPS serving).
    pub secure_port: u16,
    /// `--port`: deprecated insecure port; when > 0, plain-HTTP health and metrics are served there.
    pub port: Option<u16>,
    /// `--address`: deprecated bind address of the `--port` listener.
    pub insecure_address: Option<String>,
    /// `--bind-address` of the secure port.
    pub bind_address: String,
    /// Serving certificate; a self-signed one is generated when unset, as kube-scheduler does.
    pub tls_cert_file: Option<PathBuf>,
    /// Key of `tls_cert_file`.
    pub tls_private_key_file: Option<PathBuf>,
    /// Where TokenReviews are sent (defaults to the scheduler's own connection).
    pub authentication_kubeconfig: Option<PathBuf>,
    /// Where SubjectAccessReviews are sent (defaults to the scheduler's own connection).
    pub authorization_kubeconfig: Option<PathBuf>,
    /// Paths served without authorization.
    pub authorization_always_allow_paths: Vec<String>,
    /// Do not read the extension-apiserver-authentication ConfigMap.
    pub authentication_skip_lookup: bool,
    /// `--v`, `--logging-format`, `--log-*-split-stream`, `--log-*-info-buffer-size`, `--log-flush-frequency`.
    pub logging: LogOptions,
    /// Every flag of the command with its value (given or default), sorted: the `FLAG:` lines
    /// kube-scheduler logs at V(1) (component-base `cliflag.PrintFlags`).
    pub flag_values: Vec<(String, String)>,
    /// Permit `http://` API servers (plain HTTP exposes tokens; off by default).
    pub allow_insecure_http: bool,
    /// Scheduler names served by other schedulers, so their pods are not reported as unserved.
    pub known_scheduler_names: Vec<String>,
    /// Warn about pending pods whose scheduler name no profile and no known scheduler serves.
    pub warn_unserved_scheduler_names: bool,
    /// `--disabled-metrics`, `--show-hidden-metrics-for-version`, `--allow-metric-labels`.
    pub metrics: MetricsOptions,
    /// `--allow-metric-labels-manifest` (read by the caller; the flag's pairs override it).
    pub allow_metric_labels_manifest: Option<PathBuf>,
    /// `--allow-metric-labels` pairs as given.
    pub allow_metric_labels: Vec<(String, String)>,
    /// `--pod-max-in-unschedulable-pods-duration`.
    pub pod_max_in_unschedulable: Option<GoDuration>,
    /// `--tls-min-version`.
    pub tls_min_version: Option<String>,
    /// `--tls-cipher-suites`.
    pub tls_cipher_suites: Vec<String>,
    /// `--feature-gates`.
    pub feature_gates: crate::core::features::FeatureGates,
    /// `--permit-port-sharing`.
    pub permit_port_sharing: bool,
    /// `--tls-sni-cert-key`, in order.
    pub sni_cert_keys: Vec<crate::shell::serving::sni::NamedCertKey>,
    /// `--client-ca-file`: client certificates signed by it authenticate (CN user, O groups).
    pub client_ca_file: Option<PathBuf>,
    /// `--requestheader-*`: front-proxy authentication.
    pub requestheader: RequestHeaderOptions,
    /// `--cert-dir`: where a generated serving certificate is kept.
    pub cert_dir: Option<PathBuf>,
    /// `--write-config-to`: write the effective configuration there and exit.
    pub write_config_to: Option<PathBuf>,
    /// `--authorization-webhook-cache-authorized-ttl`, `-unauthorized-ttl`, `--authentication-token-webhook-cache-ttl`.
    pub cache_ttls: [Option<GoDuration>; 3],
    /// Deprecation and ignored-flag notes for the caller to log.
    pub warnings: Vec<String>,
}

impl Default for RunOptions {
    fn default() -> Self {
        RunOptions {
            config: None,
            master: None,
            overrides: Overrides::default(),
            secure_port: 10259,
            port: None,
            insecure_address: None,
            bind_address: "0.0.0.0".into(),
            tls_cert_file: None,
            tls_private_key_file: None,
            authentication_kubeconfig: None,
            authorization_kubeconfig: None,
            authorization_always_allow_paths: vec!["/healthz".into(), "/readyz".into(), "/livez".into()],
            authentication_skip_lookup: false,
            logging: LogOptions::default(),
            flag_values: Vec::new(),
            allow_insecure_http: false,
            known_scheduler_names: Vec::new(),
            warn_unserved_scheduler_names: false,
            metrics: MetricsOptions::default(),
            allow_metric_labels_manifest: None,
            allow_metric_labels: Vec::new(),
            pod_max_in_unschedulable: None,
            tls_min_version: None,
            tls_cipher_suites: Vec::new(),
            feature_gates: Default::default(),
            sni_cert_keys: Vec::new(),
            permit_port_sharing: false,
            client_ca_file: None,
            requestheader: RequestHeaderOptions::upstream_defaults(),
            cert_dir: None,
            write_config_to: None,
            cache_ttls: [None; 3],
            warnings: Vec::new(),
        }
    }
}

/// A command line that cannot be used; the caller exits with status 2.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct UsageError {
    pub message: String,
}

impl UsageError {
    fn new(message: impl Into<String>) -> UsageError {
        UsageError { message: message.into() }
    }
}

impl fmt::Display for UsageError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} (see --help)", self.message)
    }
}

impl std::error::Error for UsageError {}

/// Which command a flag belongs to.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Cmd {
    Run,
    CheckConfig,
    Simulate,
    Snapshot,
    Capacity,
    Explain,
    Status,
}

impl Cmd {
    fn name(self) -> &'static str {
        match self {
            Cmd::Run => "",
            Cmd::CheckConfig => "check-config",
            Cmd::Simulate => "simulate",
            Cmd::Snapshot => "snapshot",
            Cmd::Capacity => "capacity",
            Cmd::Explain => "explain",
            Cmd::Status => "status",
        }
    }

    fn from_word(word: &str) -> Option<Cmd> {
        [Cmd::CheckConfig, Cmd::Simulate, Cmd::Snapshot, Cmd::Capacity, Cmd::Explain, Cmd::Status]
            .into_iter()
            .find(|c| c.name() == word)
    }

    fn bit(self) -> u8 {
        match self {
            Cmd::Run => RUN,
            Cmd::CheckConfig => CHECK,
            Cmd::Simulate => SIM,
            Cmd::Snapshot => SNAPSHOT,
            Cmd::Capacity => CAPACITY,
            Cmd::Explain => EXPLAIN,
            Cmd::Status => STATUS,
        }
    }
}

const RUN: u8 = 1;
const CHECK: u8 = 2;
const SIM: u8 = 4;
const EXPLAIN: u8 = 8;
const STATUS: u8 = 16;
const SNAPSHOT: u8 = 32;
const CAPACITY: u8 = 64;
/// The commands that read a cluster to ask what-if questions.
const WHAT_IF: u8 = SIM | SNAPSHOT | CAPACITY;

/// Whether a flag takes a value or is a boolean (`--flag`, `--flag=false`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Kind {
    Bool,
    Value(&'static str),
}

/// One flag: its name, commands, help group and one-line help.
struct Flag {
    name: &'static str,
    kind: Kind,
    cmds: u8,
    group: &'static str,
    help: &'static str,
}

const fn flag(name: &'static str, kind: Kind, cmds: u8, group: &'static str, help: &'static str) -> Flag {
    Flag { name, kind, cmds, group, help }
}

const B: Kind = Kind::Bool;
const MISC: &str = "Misc flags";
const SERVING: &str = "Secure serving flags";
const AUTHN: &str = "Authentication flags";
const AUTHZ: &str = "Authorization flags";
const LE: &str = "Leader election flags";
const LOGS: &str = "Logs flags";
const METRICS: &str = "Metrics flags";
const OURS: &str = "edgesched flags";
const DEPRECATED: &str = "Deprecated flags";
const IGNORED: &str = "Accepted for compatibility and ignored";
const LE_CMDS: u8 = RUN | CHECK;

/// Every flag, in help order.
const FLAGS: &[Flag] = &[
    flag("config", Kind::Value("path"), RUN | CHECK | SIM | CAPACITY | EXPLAIN | STATUS, MISC, "The path to the KubeSchedulerConfiguration file."),
    flag("master", Kind::Value("url"), RUN | WHAT_IF | EXPLAIN | STATUS, MISC, "The address of the Kubernetes API server (overrides any value in kubeconfig)."),
    flag("cluster", Kind::Value("path"), SIM | CAPACITY, MISC, "Cluster file (nodes, pods, ...: a List or multi-document YAML, or JSON) to simulate on; without it the cluster is read (read-only) from the API server."),
    flag("output", Kind::Value("table|json|placements"), SIM | CAPACITY | EXPLAIN | STATUS, MISC, "Output format; placements (simulate only) prints one NAMESPACE/NAME NODE line per pod. (default table)"),
    flag("top", Kind::Value("n"), SIM, MISC, "Scored nodes (and node names per filter reason) shown per pod; 0 shows all. (default 5)"),
    flag("summary", B, SIM, MISC, "End with a summary: pods placed, not placed by reason, and the nodes' use after placement."),
    flag("summary-nodes", Kind::Value("n"), SIM, MISC, "Nodes the text summary lists, most utilised first, after a line on the use of all of them; 0 lists every node by name (the JSON summary always has every node). (default 10)"),
    flag("add", Kind::Value("path"), SIM | CAPACITY, MISC, "Also simulate the objects of this file (pods, nodes, ...; repeatable)."),
    flag("remove-node", Kind::Value("names"), SIM | CAPACITY, MISC, "Simulate without these nodes (comma-separated, repeatable): their pods are scheduled again."),
    flag("cordon", Kind::Value("names"), SIM | CAPACITY, MISC, "Simulate with these nodes cordoned (comma-separated, repeatable)."),
    flag("lenient", B, SIM | CAPACITY, MISC, "Warn about invalid objects of cluster files instead of refusing them."),
    flag("pod", Kind::Value("path"), CAPACITY, MISC, "The pod to place copies of (YAML or JSON)."),
    flag("max", Kind::Value("n"), CAPACITY, MISC, "Stop after this many copies. (default 10000)"),
    flag("seed", Kind::Value("n"), SIM | CAPACITY, MISC, "Seed of the tie-breaking random choice, for reproducible simulations."),
    flag("namespace", Kind::Value("name"), EXPLAIN, MISC, "Namespace of the named pods (-n). (default \"default\")"),
    flag("all-pending", B, EXPLAIN, MISC, "Explain every pending pod this scheduler serves."),
    flag("request-timeout", Kind::Value("string"), WHAT_IF | EXPLAIN | STATUS, MISC, "The length of time to wait before giving up on a single server request, as kubectl's: a number of seconds or a duration (1s, 2m); 0 waits forever. Connections time out after 10s or this, whichever is shorter. (default \"0\")"),
    flag("bind-address", Kind::Value("ip"), RUN, SERVING, "The IP address on which to listen for the --secure-port port. (default 0.0.0.0)"),
    flag("secure-port", Kind::Value("port"), RUN, SERVING, "The port on which to serve HTTPS with authentication and authorization; 0 disables it. (default 10259)"),
    flag("tls-cert-file", Kind::Value("path"), RUN, SERVING, "File containing the x509 certificate for HTTPS; a self-signed one is generated when unset."),
    flag("tls-private-key-file", Kind::Value("path"), RUN, SERVING, "File containing the x509 private key matching --tls-cert-file."),
    flag("cert-dir", Kind::Value("string"), RUN, SERVING, "The directory where the TLS certs are located. If --tls-cert-file and --tls-private-key-file are provided, this flag will be ignored."),
    flag("tls-min-version", Kind::Value("string"), RUN, SERVING, "Minimum TLS version supported. Possible values: VersionTLS10, VersionTLS11, VersionTLS12, VersionTLS13 (TLS 1.2 is the lowest edgesched speaks)."),
    flag("permit-port-sharing", B, RUN, SERVING, "If true, SO_REUSEPORT will be used when binding the port, which allows more than one instance to bind on the same address and port. [default=false]"),
    flag("tls-sni-cert-key", Kind::Value("namedCertKey"), RUN, SERVING, "A pair of x509 certificate and private key file paths, optionally suffixed with a list of domain patterns which are fully qualified domain names, possibly with prefixed wildcard segments. If no domain patterns are provided, the names of the certificate are extracted. Non-wildcard matches trump over wildcard matches, explicit domain patterns trump over extracted names. For multiple key/certificate pairs, use the --tls-sni-cert-key multiple times. Examples: \"example.crt,example.key\" or \"foo.crt,foo.key:*.foo.com,foo.com\". (default [])"),
    flag("tls-cipher-suites", Kind::Value("strings"), RUN, SERVING, "Comma-separated list of cipher suites for the server (Go names; TLS 1.3 suites are always on, as in Go). If omitted, rustls' safe defaults are used."),
    flag("authentication-kubeconfig", Kind::Value("path"), RUN, AUTHN, "kubeconfig pointing at the API server that performs TokenReviews."),
    flag("authentication-token-webhook-cache-ttl", Kind::Value("duration"), RUN, AUTHN, "The duration to cache responses from the webhook token authenticator. (default 10s)"),
    flag("authentication-skip-lookup", B, RUN, AUTHN, "Do not look up missing authentication configuration from the cluster."),
    flag("client-ca-file", Kind::Value("string"), RUN, AUTHN, "If set, any request presenting a client certificate signed by one of the authorities in the client-ca-file is authenticated with an identity corresponding to the CommonName of the client certificate."),
    flag("requestheader-client-ca-file", Kind::Value("string"), RUN, AUTHN, "Root certificate bundle to use to verify client certificates on incoming requests before trusting usernames in headers specified by --requestheader-username-headers. WARNING: generally do not depend on authorization being already done for incoming requests."),
    flag("requestheader-allowed-names", Kind::Value("strings"), RUN, AUTHN, "List of client certificate common names to allow to provide usernames in headers specified by --requestheader-username-headers. If empty, any client certificate validated by the authorities in --requestheader-client-ca-file is allowed."),
    flag("requestheader-extra-headers-prefix", Kind::Value("strings"), RUN, AUTHN, "List of request header prefixes to inspect. X-Remote-Extra- is suggested. (default [x-remote-extra-])"),
    flag("requestheader-group-headers", Kind::Value("strings"), RUN, AUTHN, "List of request headers to inspect for groups. X-Remote-Group is suggested. (default [x-remote-group])"),
    flag("requestheader-username-headers", Kind::Value("strings"), RUN, AUTHN, "List of request headers to inspect for usernames. X-Remote-User is common. (default [x-remote-user])"),
    flag("requestheader-uid-headers", Kind::Value("strings"), RUN, AUTHN, "List of request headers to inspect for UIDs. X-Remote-Uid is suggested."),
    flag("authorization-kubeconfig", Kind::Value("path"), RUN, AUTHZ, "kubeconfig pointing at the API server that performs SubjectAccessReviews."),
    flag("authorization-webhook-cache-authorized-ttl", Kind::Value("duration"), RUN, AUTHZ, "The duration to cache 'authorized' responses from the webhook authorizer. (default 10s)"),
    flag("authorization-webhook-cache-unauthorized-ttl", Kind::Value("duration"), RUN, AUTHZ, "The duration to cache 'unauthorized' responses from the webhook authorizer. (default 10s)"),
    flag("authorization-always-allow-paths", Kind::Value("paths"), RUN, AUTHZ, "Comma-separated HTTP paths served without authorization. (default \"/healthz,/readyz,/livez\")"),
    flag("write-config-to", Kind::Value("string"), RUN, MISC, "If set, write the configuration values to this file and exit."),
    flag("kubeconfig", Kind::Value("path"), RUN | CHECK | WHAT_IF | EXPLAIN | STATUS, MISC, "Path to a kubeconfig with authorization and master location (with --config, used only when the file leaves clientConnection.kubeconfig empty)."),
    flag("kube-api-qps", Kind::Value("qps"), LE_CMDS, DEPRECATED, "QPS to use while talking with the API server (ignored when --config is set)."),
    flag("kube-api-burst", Kind::Value("n"), LE_CMDS, DEPRECATED, "Burst to use while talking with the API server (ignored when --config is set)."),
    flag("kube-api-content-type", Kind::Value("type"), LE_CMDS, DEPRECATED, "Content type of requests sent to the API server (ignored when --config is set)."),
    flag("scheduler-name", Kind::Value("name"), LE_CMDS, DEPRECATED, "Renames the only profile (ignored when --config is set)."),
    flag("lock-object-name", Kind::Value("name"), LE_CMDS, DEPRECATED, "Alias of --leader-elect-resource-name (ignored when --config is set)."),
    flag("lock-object-namespace", Kind::Value("ns"), LE_CMDS, DEPRECATED, "Alias of --leader-elect-resource-namespace (ignored when --config is set)."),
    flag("profiling", B, LE_CMDS, DEPRECATED, "Sets enableProfiling (no profiling endpoints are served)."),
    flag("contention-profiling", B, LE_CMDS, DEPRECATED, "Sets enableContentionProfiling (no profiling endpoints are served)."),
    flag("port", Kind::Value("port"), RUN, DEPRECATED, "Serve plain-HTTP /healthz and /metrics on this port (removed from kube-scheduler in v1.24)."),
    flag("address", Kind::Value("ip"), RUN, DEPRECATED, "Bind address of the --port listener. (default 0.0.0.0)"),
    flag("leader-elect", B, LE_CMDS, LE, "Acquire a Lease before scheduling, for replicated high availability. (default true)"),
    flag("leader-elect-lease-duration", Kind::Value("duration"), LE_CMDS, LE, "How long non-leaders wait after a renewal before trying to take over. (default 15s)"),
    flag("leader-elect-renew-deadline", Kind::Value("duration"), LE_CMDS, LE, "How long the leader keeps trying to renew before giving up. (default 10s)"),
    flag("leader-elect-retry-period", Kind::Value("duration"), LE_CMDS, LE, "How long to wait between attempts to acquire or renew. (default 2s)"),
    flag("leader-elect-resource-lock", Kind::Value("type"), LE_CMDS, LE, "Lock object type; only \"leases\" is supported. (default \"leases\")"),
    flag("leader-elect-resource-name", Kind::Value("name"), LE_CMDS, LE, "Name of the Lease. (default \"kube-scheduler\")"),
    flag("leader-elect-resource-namespace", Kind::Value("ns"), LE_CMDS, LE, "Namespace of the Lease. (default \"kube-system\")"),
    flag("v", Kind::Value("Level"), RUN, LOGS, "number for the log level verbosity (-v); lines are logged at kube-scheduler's levels (2: binds and failures, 3: attempts and cluster events, 4: updates, 5: queue moves)."),
    flag("disabled-metrics", Kind::Value("strings"), RUN, METRICS, "This flag provides an escape hatch for misbehaving metrics. You must provide the fully qualified metric name in order to disable it. Disclaimer: disabling metrics is higher in precedence than showing hidden metrics."),
    flag("show-hidden-metrics-for-version", Kind::Value("string"), RUN, METRICS, "The previous version for which you want to show hidden metrics. Only the previous minor version is meaningful, other values will not be allowed. The format is <major>.<minor>, e.g.: '1.16'."),
    flag("allow-metric-labels", Kind::Value("stringToString"), RUN, METRICS, "The map from metric-label to value allow-list of this label. The key's format is <MetricName>,<LabelName>. The value's format is <allowed_value>,<allowed_value>...e.g. metric1,label1='v1,v2,v3', metric1,label2='v1,v2,v3' metric2,label1='v1,v2,v3'. (default [])"),
    flag("allow-metric-labels-manifest", Kind::Value("string"), RUN, METRICS, "The path to the manifest file that contains the allow-list mapping. The format of the file is the same as the flag --allow-metric-labels. Note that the flag --allow-metric-labels will override the manifest file."),
    flag("pod-max-in-unschedulable-pods-duration", Kind::Value("duration"), LE_CMDS, DEPRECATED, "DEPRECATED: the maximum time a pod can stay in unschedulablePods. If a pod stays in unschedulablePods for longer than this value, the pod will be moved from unschedulablePods to backoffQ or activeQ. (default 5m0s)"),
    flag("logging-format", Kind::Value("string"), RUN, LOGS, "Sets the log format. Permitted formats: \"json\", \"text\". (default \"text\")"),
    flag("vmodule", Kind::Value("pattern=N,..."), RUN, LOGS, "comma-separated list of pattern=N settings for file-filtered logging (only works for text log format); patterns match source file names without .rs (schedule_one=4)."),
    flag("log-flush-frequency", Kind::Value("duration"), RUN, LOGS, "Maximum number of seconds between log flushes (of a buffered --log-*-info-buffer-size stream). (default 5s)"),
    flag("log-json-split-stream", B, RUN, LOGS, "[Alpha] In JSON format, write error messages to stderr and info messages to stdout. The default is to write a single stream to stderr."),
    flag("log-json-info-buffer-size", Kind::Value("quantity"), RUN, LOGS, "[Alpha] In JSON format with split output streams, the info messages can be buffered for a while to increase performance. The default value of zero bytes disables buffering. The size can be specified as number of bytes (512), multiples of 1000 (1K), multiples of 1024 (2Ki), or powers of those (3M, 4G, 5Mi, 6Gi)."),
    flag("log-text-split-stream", B, RUN, LOGS, "[Alpha] In text format, write error messages to stderr and info messages to stdout. The default is to write a single stream to stderr."),
    flag("log-text-info-buffer-size", Kind::Value("quantity"), RUN, LOGS, "[Alpha] In text format with split output streams, the info messages can be buffered for a while to increase performance. The default value of zero bytes disables buffering."),
    flag("allow-insecure-http", B, RUN | WHAT_IF | EXPLAIN | STATUS, OURS, "Permit http:// API servers (credentials would travel in clear text)."),
    flag("known-scheduler-names", Kind::Value("names"), RUN, OURS, "Comma-separated scheduler names served by other schedulers."),
    flag("warn-unserved-scheduler-names", B, RUN, OURS, "Also record a NoSchedulerForName Warning event on pods whose scheduler name nobody serves."),
    flag("version", B, RUN, MISC, "Print version information and quit."),
    flag("help", B, RUN | CHECK | WHAT_IF | EXPLAIN | STATUS, MISC, "Show this help (-h)."),
    flag("algorithm-provider", Kind::Value("name"), RUN, IGNORED, "Removed in v1.23; use profiles in --config."),
    flag("policy-config-file", Kind::Value("path"), RUN, IGNORED, "Removed in v1.23; use profiles in --config."),
    flag("policy-configmap", Kind::Value("name"), RUN, IGNORED, "Removed in v1.23; use profiles in --config."),
    flag("policy-configmap-namespace", Kind::Value("ns"), RUN, IGNORED, "Removed in v1.23; use profiles in --config."),
    flag("use-legacy-policy-config", B, RUN, IGNORED, "Removed in v1.23; use profiles in --config."),
    flag("feature-gates", Kind::Value("mapStringBool"), RUN, MISC, "A set of key=value pairs that describe feature gates for alpha/experimental features, checked against kube-scheduler v1.35's gates (unknown names and locked gates are errors). SchedulerPopFromBackoffQ and LoggingAlphaOptions change what edgesched does; others set away from their default are accepted with a warning that they have no effect."),
    flag("add-dir-header", B, RUN, IGNORED, "klog flag removed in v1.26; logs go to stderr."),
    flag("alsologtostderr", B, RUN, IGNORED, "klog flag removed in v1.26; logs go to stderr."),
    flag("logtostderr", B, RUN, IGNORED, "klog flag removed in v1.26; logs go to stderr."),
    flag("log-dir", Kind::Value("path"), RUN, IGNORED, "klog flag removed in v1.26; logs go to stderr."),
    flag("log-file", Kind::Value("path"), RUN, IGNORED, "klog flag removed in v1.26; logs go to stderr."),
    flag("log-file-max-size", Kind::Value("mb"), RUN, IGNORED, "klog flag removed in v1.26; logs go to stderr."),
    flag("skip-headers", B, RUN, IGNORED, "klog flag removed in v1.26."),
    flag("skip-log-headers", B, RUN, IGNORED, "klog flag removed in v1.26."),
    flag("stderrthreshold", Kind::Value("level"), RUN, IGNORED, "klog flag removed in v1.26."),
    flag("one-output", B, RUN, IGNORED, "klog flag removed in v1.26."),
    flag("permit-address-sharing", B, RUN, IGNORED, "SO_REUSEADDR is always set on the listeners."),
    flag("tls-curve-preferences", Kind::Value("int32Slice"), RUN, IGNORED, "Go curve IDs do not apply; rustls' key-exchange groups are used."),
    flag("http2-max-streams-per-connection", Kind::Value("int"), RUN, IGNORED, "The secure port speaks HTTP/1.1 only."),
    flag("disable-http2-serving", B, RUN, IGNORED, "The secure port speaks HTTP/1.1 only (HTTP/2 is always off)."),
    flag("authentication-tolerate-lookup-failure", B, RUN, IGNORED, "The extension-apiserver-authentication ConfigMap is not read."),
    flag("emulated-version", Kind::Value("strings"), RUN, IGNORED, "edgesched behaves as kube-scheduler v1.35 only."),
    flag("min-compatibility-version", Kind::Value("strings"), RUN, IGNORED, "edgesched behaves as kube-scheduler v1.35 only."),
    flag("log-backtrace-at", Kind::Value("traceLocation"), RUN, IGNORED, "klog flag removed in v1.26."),
];

fn find_flag(name: &str) -> Option<&'static Flag> {
    FLAGS.iter().find(|f| f.name == name)
}

/// Parse the arguments after the program name.
pub fn parse(args: impl IntoIterator<Item = OsString>) -> Result<Command, UsageError> {
    let mut args: Vec<OsString> = args.into_iter().collect();
    let cmd = match args.first().and_then(|a| a.to_str()).and_then(Cmd::from_word) {
        Some(c) => {
            args.remove(0);
            c
        }
        None => Cmd::Run,
    };
    let mut acc = Acc::default();
    let mut parser = lexopt::Parser::from_args(args);
    while let Some(arg) = parser.next().map_err(lexopt_error)? {
        let name = match arg {
            Arg::Short('h') => "help".to_string(),
            Arg::Short('v') if cmd == Cmd::Run => "v".to_string(),
            Arg::Short('n') if cmd == Cmd::Explain => "namespace".to_string(),
            Arg::Short(c) => return Err(UsageError::new(format!("unknown flag: -{c}"))),
            Arg::Long(l) => l.to_string(),
            Arg::Value(v) => {
                acc.positional(cmd, v)?;
                continue;
            }
        };
        let f = find_flag(&name).filter(|f| f.cmds & cmd.bit() != 0).ok_or_else(|| unknown_flag(cmd, &name))?;
        let value = match f.kind {
            Kind::Bool => match parser.optional_value() {
                None => "true".to_string(),
                Some(v) => utf8(&name, v)?,
            },
            Kind::Value(_) => {
                let v = parser.value().map_err(|_| UsageError::new(format!("flag needs an argument: --{name}")))?;
                utf8(&name, v)?
            }
        };
        if name == "help" && parse_bool(&name, &value)? {
            return Ok(Command::Help(help(cmd)));
        }
        acc.set(f, &value)?;
    }
    acc.finish(cmd)
}

fn lexopt_error(e: lexopt::Error) -> UsageError {
    UsageError::new(e.to_string())
}

fn utf8(name: &str, v: OsString) -> Result<String, UsageError> {
    v.into_string().map_err(|v| UsageError::new(format!("invalid argument {v:?} for --{name}: not UTF-8")))
}

fn unknown_flag(cmd: Cmd, name: &str) -> UsageError {
    // `--address = 127.0.0.1` (one argument with spaces, as some manifests print it).
    let trimmed = name.trim();
    if trimmed != name && find_flag(trimmed).is_some_and(|f| f.cmds & cmd.bit() != 0) {
        return UsageError::new(format!(
            "flag --{trimmed} is written with spaces around \"=\" in one argument: write --{trimmed}=VALUE (no spaces) or --{trimmed} VALUE as two arguments"
        ));
    }
    let candidates = FLAGS.iter().filter(|f| f.cmds & cmd.bit() != 0).map(|f| f.name);
    let hint =
        crate::core::config::suggest::closest(name, candidates).map(|s| format!(" (did you mean --{s}?)")).unwrap_or_default();
    let scope = match cmd {
        Cmd::Run => String::new(),
        c => format!(" for {}", c.name()),
    };
    UsageError::new(format!("unknown flag{scope}: --{name}{hint}"))
}

/// pflag/strconv.ParseBool spellings.
fn parse_bool(name: &str, v: &str) -> Result<bool, UsageError> {
    match v {
        "1" | "t" | "T" | "true" | "TRUE" | "True" => Ok(true),
        "0" | "f" | "F" | "false" | "FALSE" | "False" => Ok(false),
        _ => Err(UsageError::new(format!("invalid argument {v:?} for --{name}: expected true or false"))),
    }
}

fn parse_num<T: std::str::FromStr>(name: &str, v: &str, what: &str) -> Result<T, UsageError> {
    v.trim().parse().map_err(|_| UsageError::new(format!("invalid argument {v:?} for --{name}: expected {what}")))
}

fn parse_duration(name: &str, v: &str) -> Result<GoDuration, UsageError> {
    parse_go_duration(v)
        .map(GoDuration)
        .map_err(|_| UsageError::new(format!("invalid argument {v:?} for --{name}: expected a duration such as 15s or 1m30s")))
}

/// kubectl's `--request-timeout`: a plain integer is seconds, otherwise a duration; 0 is none.
fn parse_request_timeout(v: &str) -> Result<Duration, UsageError> {
    if let Ok(secs) = v.trim().parse::<u64>() {
        return Ok(Duration::from_secs(secs));
    }
    parse_go_duration(v).map_err(|_| {
        UsageError::new(format!(
            "invalid argument {v:?} for --request-timeout: invalid timeout value. Timeout must be a single integer in seconds, or an integer followed by a corresponding time unit (e.g. 1s | 2m | 3h)"
        ))
    })
}

fn comma_list(v: &str) -> Vec<String> {
    v.split(',').map(str::trim).filter(|s| !s.is_empty()).map(str::to_string).collect()
}

fn parse_output(v: &str) -> Result<OutputFormat, UsageError> {
    match v {
        "table" | "text" => Ok(OutputFormat::Table),
        "json" => Ok(OutputFormat::Json),
        "placements" => Ok(OutputFormat::Placements),
        _ => Err(UsageError::new(format!("invalid argument {v:?} for --output: expected table, json or placements"))),
    }
}

/// Flag values seen so far, for any command.
#[derive(Default)]
struct Acc {
    run: RunOptions,
    secure_port: Option<u16>,
    cluster: Option<PathBuf>,
    output: OutputFormat,
    seed: Option<u64>,
    namespace: Option<String>,
    all_pending: bool,
    request_timeout: Option<Duration>,
    positionals: Vec<String>,
    version: bool,
    top: Option<usize>,
    summary: bool,
    summary_nodes: Option<usize>,
    lenient: bool,
    what_if: WhatIf,
    pod: Option<PathBuf>,
    max: Option<usize>,
    /// (split stream, info buffer size) for JSON and for text; the format chosen picks one.
    log_streams: [(bool, u64); 2],
    /// Flags as given, in order (for the `FLAG:` dump).
    given: Vec<(&'static str, String)>,
}

impl Acc {
    fn positional(&mut self, cmd: Cmd, v: OsString) -> Result<(), UsageError> {
        let v = v.to_string_lossy().to_string();
        if cmd == Cmd::Explain {
            self.positionals.push(v);
            return Ok(());
        }
        if Cmd::from_word(&v).is_some() {
            return Err(UsageError::new(format!("the subcommand must come first: edgesched {v} [flags]")));
        }
        if matches!(v.as_str(), "true" | "false") {
            return Err(UsageError::new(format!(
                "unexpected argument {v:?}: boolean flags take their value with '=', e.g. --leader-elect=false"
            )));
        }
        Err(UsageError::new(format!("unexpected argument {v:?}")))
    }

    fn set(&mut self, f: &Flag, v: &str) -> Result<(), UsageError> {
        let name = f.name;
        let o = &mut self.run.overrides;
        let text = || Some(v.to_string());
        let path = || Some(PathBuf::from(v));
        match name {
            "config" => self.run.config = path(),
            "master" => self.run.master = text(),
            "kubeconfig" => o.kubeconfig = text(),
            "cluster" => self.cluster = path(),
            "output" => self.output = parse_output(v)?,
            "seed" => self.seed = Some(parse_num(name, v, "a non-negative integer")?),
            "top" => self.top = Some(parse_num(name, v, "a non-negative integer")?),
            "summary" => self.summary = parse_bool(name, v)?,
            "summary-nodes" => self.summary_nodes = Some(parse_num(name, v, "a non-negative integer")?),
            "lenient" => self.lenient = parse_bool(name, v)?,
            "add" => self.what_if.add.push(PathBuf::from(v)),
            "remove-node" => self.what_if.remove_nodes.extend(comma_list(v)),
            "cordon" => self.what_if.cordon.extend(comma_list(v)),
            "pod" => self.pod = path(),
            "max" => self.max = Some(parse_num(name, v, "a non-negative integer")?),
            "namespace" => self.namespace = text(),
            "all-pending" => self.all_pending = parse_bool(name, v)?,
            "request-timeout" => self.request_timeout = Some(parse_request_timeout(v)?),
            "bind-address" => self.run.bind_address = parse_ip(name, v)?,
            "secure-port" => self.secure_port = Some(parse_num(name, v, "a port number 0-65535")?),
            "tls-cert-file" => self.run.tls_cert_file = path(),
            "tls-private-key-file" => self.run.tls_private_key_file = path(),
            "cert-dir" => self.run.cert_dir = (!v.is_empty()).then(|| PathBuf::from(v)),
            "tls-min-version" => self.run.tls_min_version = (!v.is_empty()).then(|| v.to_string()),
            "tls-cipher-suites" => self.run.tls_cipher_suites = comma_list(v),
            "feature-gates" => self
                .run
                .feature_gates
                .set_from(v)
                .map_err(|e| UsageError::new(format!("invalid argument {v:?} for \"--feature-gates\" flag: {e}")))?,
            "tls-sni-cert-key" => self.run.sni_cert_keys.push(
                crate::shell::serving::sni::parse(v)
                    .map_err(|e| UsageError::new(format!("invalid argument {v:?} for \"--tls-sni-cert-key\" flag: {e}")))?,
            ),
            "permit-port-sharing" => self.run.permit_port_sharing = parse_bool(name, v)?,
            "client-ca-file" => self.run.client_ca_file = (!v.is_empty()).then(|| PathBuf::from(v)),
            "requestheader-client-ca-file" => self.run.requestheader.client_ca_file = (!v.is_empty()).then(|| PathBuf::from(v)),
            "requestheader-allowed-names" => self.run.requestheader.allowed_names = comma_list(v),
            "requestheader-extra-headers-prefix" => self.run.requestheader.extra_headers_prefix = comma_list(v),
            "requestheader-group-headers" => self.run.requestheader.group_headers = comma_list(v),
            "requestheader-username-headers" => self.run.requestheader.username_headers = comma_list(v),
            "requestheader-uid-headers" => self.run.requestheader.uid_headers = comma_list(v),
            "write-config-to" => self.run.write_config_to = (!v.is_empty()).then(|| PathBuf::from(v)),
            "authorization-webhook-cache-authorized-ttl" => self.run.cache_ttls[0] = Some(parse_duration(name, v)?),
            "authorization-webhook-cache-unauthorized-ttl" => self.run.cache_ttls[1] = Some(parse_duration(name, v)?),
            "authentication-token-webhook-cache-ttl" => self.run.cache_ttls[2] = Some(parse_duration(name, v)?),
            "authentication-kubeconfig" => self.run.authentication_kubeconfig = path(),
            "authentication-skip-lookup" => self.run.authentication_skip_lookup = parse_bool(name, v)?,
            "authorization-kubeconfig" => self.run.authorization_kubeconfig = path(),
            "authorization-always-allow-paths" => self.run.authorization_always_allow_paths = comma_list(v),
            "kube-api-qps" => o.kube_api_qps = Some(parse_num(name, v, "a number")?),
            "kube-api-burst" => o.kube_api_burst = Some(parse_num(name, v, "an integer")?),
            "kube-api-content-type" => o.kube_api_content_type = text(),
            "scheduler-name" => o.scheduler_name = text(),
            "lock-object-name" => o.lock_object_name = text(),
            "lock-object-namespace" => o.lock_object_namespace = text(),
            "profiling" => o.profiling = Some(parse_bool(name, v)?),
            "contention-profiling" => o.contention_profiling = Some(parse_bool(name, v)?),
            "leader-elect" => o.leader_elect = Some(parse_bool(name, v)?),
            "leader-elect-lease-duration" => o.leader_elect_lease_duration = Some(parse_duration(name, v)?),
            "leader-elect-renew-deadline" => o.leader_elect_renew_deadline = Some(parse_duration(name, v)?),
            "leader-elect-retry-period" => o.leader_elect_retry_period = Some(parse_duration(name, v)?),
            "leader-elect-resource-lock" => o.leader_elect_resource_lock = text(),
            "leader-elect-resource-name" => o.leader_elect_resource_name = text(),
            "leader-elect-resource-namespace" => o.leader_elect_resource_namespace = text(),
            "port" => self.run.port = Some(parse_num(name, v, "a port number 0-65535")?),
            "address" => self.run.insecure_address = Some(parse_ip(name, v)?),
            "v" => self.run.logging.verbosity = parse_num(name, v, "a verbosity level 0-255")?,
            "logging-format" => {
                self.run.logging.format = LogFormat::parse(v).ok_or_else(|| {
                    UsageError::new(format!("format: Unsupported value: {v:?}: supported values: \"json\", \"text\""))
                })?
            }
            "vmodule" => {
                self.run.logging.vmodule = crate::core::logging::parse_vmodule(v)
                    .map_err(|e| UsageError::new(format!("invalid argument {v:?} for \"--vmodule\" flag: {e}")))?
            }
            "log-flush-frequency" => self.run.logging.flush_frequency = parse_duration(name, v)?.0,
            "log-json-split-stream" => self.log_streams[0].0 = parse_bool(name, v)?,
            "log-text-split-stream" => self.log_streams[1].0 = parse_bool(name, v)?,
            "log-json-info-buffer-size" => self.log_streams[0].1 = parse_buffer_size(name, v)?,
            "log-text-info-buffer-size" => self.log_streams[1].1 = parse_buffer_size(name, v)?,
            "allow-insecure-http" => self.run.allow_insecure_http = parse_bool(name, v)?,
            "known-scheduler-names" => self.run.known_scheduler_names = comma_list(v),
            "disabled-metrics" => self.run.metrics.disabled.extend(comma_list(v)),
            "show-hidden-metrics-for-version" => {
                metric_options::validate_show_hidden(v).map_err(|e| UsageError::new(e.0))?;
                self.run.metrics.show_hidden_for = (!v.is_empty()).then(|| v.to_string());
            }
            "allow-metric-labels" => {
                let pairs = metric_options::parse_string_to_string(v)
                    .map_err(|e| UsageError::new(format!("invalid argument {v:?} for --{name}: {e}")))?;
                metric_options::allow_list(&pairs).map_err(|e| UsageError::new(e.0))?;
                self.run.allow_metric_labels.extend(pairs);
            }
            "allow-metric-labels-manifest" => self.run.allow_metric_labels_manifest = path(),
            "pod-max-in-unschedulable-pods-duration" => self.run.pod_max_in_unschedulable = Some(parse_duration(name, v)?),
            "warn-unserved-scheduler-names" => self.run.warn_unserved_scheduler_names = parse_bool(name, v)?,
            "version" => self.version = !matches!(v, "false" | "0" | "f" | "F" | "FALSE" | "False"),
            _ if f.kind == Kind::Bool => {
                parse_bool(name, v)?;
            }
            _ => {}
        }
        self.given.push((f.name, v.to_string()));
        self.note(f, v);
        Ok(())
    }

    /// Deprecation and ignored-flag warnings.
    fn note(&mut self, f: &Flag, v: &str) {
        let w = &mut self.run.warnings;
        match (f.group, f.name) {
            (IGNORED, name) => w.push(format!("flag --{name} is ignored: {}", f.help)),
            (DEPRECATED, "port") if v != "0" => {
                w.push("flag --port is deprecated: plain-HTTP /healthz and /metrics are served on it; use --secure-port".into())
            }
            (DEPRECATED, "address") => {
                w.push("flag --address is deprecated: it only binds the --port listener; use --bind-address".into())
            }
            (DEPRECATED, "scheduler-name") => {
                w.push("flag --scheduler-name is deprecated: set profiles[].schedulerName in --config".into())
            }
            (DEPRECATED, "lock-object-name") => {
                w.push("flag --lock-object-name is deprecated: use --leader-elect-resource-name".into())
            }
            (DEPRECATED, "lock-object-namespace") => {
                w.push("flag --lock-object-namespace is deprecated: use --leader-elect-resource-namespace".into())
            }
            (DEPRECATED, "pod-max-in-unschedulable-pods-duration") => w.push(
                "flag --pod-max-in-unschedulable-pods-duration is deprecated: this flag is deprecated and will be removed in a future version".into(),
            ),
            (DEPRECATED, name @ ("profiling" | "contention-profiling")) => {
                w.push(format!("flag --{name} is deprecated: no profiling endpoints are served"))
            }
            _ => {}
        }
    }

    /// The cluster source of a what-if command.
    fn source(&mut self, kubeconfig: Option<PathBuf>) -> ClusterSource {
        ClusterSource {
            cluster: self.cluster.take(),
            kubeconfig,
            master: self.run.master.take(),
            allow_insecure_http: self.run.allow_insecure_http,
            request_timeout: self.request_timeout,
            config: self.run.config.take(),
            lenient: self.lenient,
        }
    }

    fn finish(mut self, cmd: Cmd) -> Result<Command, UsageError> {
        if self.version {
            return Ok(Command::Version);
        }
        if self.output == OutputFormat::Placements && cmd != Cmd::Simulate {
            return Err(UsageError::new(format!("--output placements is for simulate, not {}", cmd.name())));
        }
        if self.cluster.is_some() && self.run.overrides.kubeconfig.is_some() {
            return Err(UsageError::new("give --cluster FILE or --kubeconfig, not both"));
        }
        self.run.overrides.config_file_given = self.run.config.is_some();
        let mut warnings = std::mem::take(&mut self.run.warnings);
        warnings.extend(crate::core::config::override_warnings(&self.run.overrides));
        let kubeconfig = self.run.overrides.kubeconfig.clone().map(PathBuf::from);
        Ok(match cmd {
            Cmd::Run => {
                self.run.secure_port = self.secure_port.unwrap_or(10259);
                let (split, buffer) = self.log_streams[usize::from(self.run.logging.format == LogFormat::Text)];
                // component-base logs/api/v1 validateFormatOptions: both are alpha options.
                let json = self.run.logging.format == LogFormat::Json;
                let field = |f: &str| format!("options.{}.{f}", if json { "json" } else { "text" });
                if !self.run.feature_gates.enabled("LoggingAlphaOptions") {
                    if split {
                        return Err(UsageError::new(format!(
                            "{}: Forbidden: Feature LoggingAlphaOptions is disabled",
                            field("splitStream")
                        )));
                    }
                    if buffer != 0 {
                        return Err(UsageError::new(format!(
                            "{}: Forbidden: Feature LoggingAlphaOptions is disabled",
                            field("infoBufferSize")
                        )));
                    }
                }
                if !self.run.logging.vmodule.is_empty() && json {
                    return Err(UsageError::new("vmodule: Forbidden: Only supported for text log format"));
                }
                let idle = self.run.feature_gates.without_effect();
                if !idle.is_empty() {
                    warnings.push(format!("feature gates without effect in edgesched: {}", idle.join(", ")));
                }
                self.run.logging.split_stream = split;
                self.run.logging.info_buffer_size = buffer;
                self.run.flag_values = flag_values(Cmd::Run, &self.given);
                self.run.warnings = warnings;
                Command::Run(self.run)
            }
            Cmd::CheckConfig => Command::CheckConfig { config: self.run.config, overrides: self.run.overrides, warnings },
            Cmd::Simulate => {
                if self.top.is_some() && self.output == OutputFormat::Placements {
                    return Err(UsageError::new("--top has no effect with --output placements"));
                }
                Command::Simulate(SimulateOptions {
                    source: self.source(kubeconfig),
                    what_if: self.what_if,
                    output: self.output,
                    top: self.top.unwrap_or(DEFAULT_TOP),
                    summary: self.summary,
                    summary_nodes: self.summary_nodes.unwrap_or(DEFAULT_SUMMARY_NODES),
                    seed: self.seed,
                })
            }
            Cmd::Snapshot => Command::Snapshot { source: self.source(kubeconfig) },
            Cmd::Capacity => {
                if self.output == OutputFormat::Placements {
                    return Err(UsageError::new("capacity prints table or json"));
                }
                Command::Capacity(CapacityOptions {
                    pod: self.pod.clone().ok_or_else(|| UsageError::new("capacity needs --pod FILE"))?,
                    source: self.source(kubeconfig),
                    what_if: self.what_if,
                    max: self.max,
                    output: self.output,
                    seed: self.seed,
                })
            }
            Cmd::Explain => {
                if self.positionals.is_empty() && !self.all_pending {
                    return Err(UsageError::new("explain needs pod names or --all-pending"));
                }
                Command::Explain {
                    kubeconfig,
                    config: self.run.config,
                    master: self.run.master,
                    namespace: self.namespace,
                    pods: self.positionals,
                    all_pending: self.all_pending,
                    output: self.output,
                    allow_insecure_http: self.run.allow_insecure_http,
                    request_timeout: self.request_timeout,
                }
            }
            Cmd::Status => Command::Status {
                kubeconfig,
                config: self.run.config,
                master: self.run.master,
                output: self.output,
                allow_insecure_http: self.run.allow_insecure_http,
                request_timeout: self.request_timeout,
            },
        })
    }
}

/// A `resource.QuantityValue` of bytes (`512`, `1K`, `2Ki`).
fn parse_buffer_size(name: &str, v: &str) -> Result<u64, UsageError> {
    crate::core::quantity::Quantity::parse(v)
        .ok()
        .and_then(|q| u64::try_from(q.value()).ok())
        .ok_or_else(|| UsageError::new(format!("invalid argument {v:?} for --{name}: expected a non-negative quantity of bytes")))
}

/// Upstream defaults of flags whose zero value is not the default (pflag's `Value.String()`).
const DEFAULTS: &[(&str, &str)] = &[
    ("address", "0.0.0.0"),
    ("authentication-token-webhook-cache-ttl", "10s"),
    ("authorization-always-allow-paths", "[/healthz,/readyz,/livez]"),
    ("authorization-webhook-cache-authorized-ttl", "10s"),
    ("authorization-webhook-cache-unauthorized-ttl", "10s"),
    ("bind-address", "0.0.0.0"),
    ("contention-profiling", "true"),
    ("kube-api-burst", "100"),
    ("kube-api-content-type", "application/vnd.kubernetes.protobuf"),
    ("kube-api-qps", "50"),
    ("leader-elect", "true"),
    ("leader-elect-lease-duration", "15s"),
    ("leader-elect-renew-deadline", "10s"),
    ("leader-elect-resource-lock", "leases"),
    ("leader-elect-resource-name", "kube-scheduler"),
    ("leader-elect-resource-namespace", "kube-system"),
    ("leader-elect-retry-period", "2s"),
    ("lock-object-name", "kube-scheduler"),
    ("lock-object-namespace", "kube-system"),
    ("log-flush-frequency", "5s"),
    ("log-json-info-buffer-size", "0"),
    ("log-text-info-buffer-size", "0"),
    ("logging-format", "text"),
    ("pod-max-in-unschedulable-pods-duration", "5m0s"),
    ("profiling", "true"),
    ("requestheader-extra-headers-prefix", "[x-remote-extra-]"),
    ("requestheader-group-headers", "[x-remote-group]"),
    ("requestheader-username-headers", "[x-remote-user]"),
    ("secure-port", "10259"),
    ("tls-sni-cert-key", "[]"),
    ("v", "0"),
];

/// Every flag of `cmd` with the value pflag would print: the last one given (lists as
/// `[a,b]`, booleans as `true`/`false`), else the default. Sorted by name, as `VisitAll` visits.
fn flag_values(cmd: Cmd, given: &[(&'static str, String)]) -> Vec<(String, String)> {
    let mut out: Vec<(String, String)> = FLAGS
        .iter()
        .filter(|f| f.cmds & cmd.bit() != 0)
        .map(|f| {
            let value = match given.iter().rev().find(|(n, _)| *n == f.name) {
                Some((_, v)) if f.kind == Kind::Bool => {
                    parse_bool(f.name, v).map(|b| b.to_string()).unwrap_or_else(|_| v.clone())
                }
                Some((_, v)) if matches!(f.kind, Kind::Value("strings" | "paths" | "names" | "headers" | "prefixes")) => {
                    format!("[{}]", comma_list(v).join(","))
                }
                Some((_, v)) => v.clone(),
                None => match DEFAULTS.iter().find(|(n, _)| *n == f.name) {
                    Some((_, d)) => d.to_string(),
                    None if f.kind == Kind::Bool => "false".into(),
                    None if matches!(
                        f.kind,
                        Kind::Value("strings" | "paths" | "names" | "headers" | "prefixes" | "stringToString")
                    ) =>
                    {
                        "[]".into()
                    }
                    None => String::new(),
                },
            };
            (f.name.to_string(), value)
        })
        .collect();
    out.sort();
    out
}

fn parse_ip(name: &str, v: &str) -> Result<String, UsageError> {
    v.trim()
        .parse::<std::net::IpAddr>()
        .map(|ip| ip.to_string())
        .map_err(|_| UsageError::new(format!("invalid argument {v:?} for --{name}: expected an IP address")))
}

/// The help text of a command: usage, then its flags grouped like kube-scheduler's `--help`.
pub fn help_text(subcommand: Option<&str>) -> String {
    help(subcommand.and_then(Cmd::from_word).unwrap_or(Cmd::Run))
}

fn help(cmd: Cmd) -> String {
    let mut out = String::new();
    out.push_str(match cmd {
        Cmd::Run => {
            "edgesched: a small kube-scheduler-compatible scheduler.\n\nUsage:\n  edgesched [flags]                           run the scheduler\n  \
             edgesched check-config [--config FILE]      validate a configuration and print it as v1\n  \
             edgesched simulate --cluster FILE [flags]   schedule a cluster file offline\n  \
             edgesched simulate [--kubeconfig F] [flags] what-if on a live cluster (read-only)\n  \
             edgesched snapshot [--kubeconfig F]         write a live cluster as a cluster file\n  \
             edgesched capacity --pod FILE [flags]       how many more copies of a pod fit\n  \
             edgesched explain [flags] POD...            explain why pods are pending\n  \
             edgesched status [flags]                    show a running scheduler's state\n"
        }
        Cmd::CheckConfig => "Usage:\n  edgesched check-config [--config FILE] [flags]\n\nLoads, defaults and validates the configuration (with the flag overrides the scheduler would apply) and prints it as kubescheduler.config.k8s.io/v1.\n",
        Cmd::Simulate => "Usage:\n  edgesched simulate --cluster FILE [--config FILE] [flags]\n  edgesched simulate [--kubeconfig FILE] [--add FILE]... [--remove-node NAME]... [--cordon NAME]... [flags]\n\nSchedules the pending pods of a cluster file, or of a live cluster read once (read-only), plus added objects, and reports where each would go.\n",
        Cmd::Snapshot => "Usage:\n  edgesched snapshot [--kubeconfig FILE] > cluster.yaml\n\nReads (read-only) what scheduling needs from the API server and writes it as a cluster file that simulate --cluster reads back.\n",
        Cmd::Capacity => "Usage:\n  edgesched capacity --pod FILE [--cluster FILE | --kubeconfig FILE] [--max N] [flags]\n\nPlaces copies of the pod one by one with the configured profile until one does not fit, and reports how many fit, where, and what stopped the next one.\n",
        Cmd::Explain => "Usage:\n  edgesched explain [flags] POD...\n  edgesched explain --all-pending [flags]\n\nExplains, node by node, why pods are pending.\n",
        Cmd::Status => "Usage:\n  edgesched status [flags]\n\nShows the leader, health and profiles of the scheduler running in the cluster.\n",
    });
    let groups = [MISC, SERVING, AUTHN, AUTHZ, LE, METRICS, LOGS, OURS, DEPRECATED, IGNORED];
    for group in groups {
        let flags: Vec<&Flag> = FLAGS.iter().filter(|f| f.group == group && f.cmds & cmd.bit() != 0).collect();
        if flags.is_empty() {
            continue;
        }
        out.push_str(&format!("\n{group}:\n"));
        for f in flags {
            let left = match f.kind {
                Kind::Bool => format!("--{}", f.name),
                Kind::Value(t) => format!("--{} {t}", f.name),
            };
            out.push_str(&format!("  {left:<48}"));
            wrap_into(&mut out, f.help, 51, 120);
        }
    }
    out
}

/// Append `text` word-wrapped at `width` columns, continuation lines indented by `indent`.
fn wrap_into(out: &mut String, text: &str, indent: usize, width: usize) {
    let mut col = indent;
    for (i, word) in text.split(' ').enumerate() {
        if i > 0 && col + 1 + word.len() > width {
            out.push('\n');
            out.push_str(&" ".repeat(indent));
            col = indent;
        } else {
            out.push(' ');
            col += 1;
        }
        out.push_str(word);
        col += word.len();
    }
    out.push('\n');
}

#[cfg(test)]
mod tests {
    use super::*;

    fn args(list: &[&str]) -> Vec<OsString> {
        list.iter().map(OsString::from).collect()
    }

    fn run(list: &[&str]) -> RunOptions {
        match parse(args(list)) {
            Ok(Command::Run(o)) => o,
            other => panic!("{other:?}"),
        }
    }

    fn usage(list: &[&str]) -> String {
        match parse(args(list)) {
            Err(e) => e.message,
            Ok(c) => panic!("expected a usage error, got {c:?}"),
        }
    }

    #[test]
    fn defaults() {
        let o = run(&[]);
        assert_eq!(RunOptions { flag_values: Vec::new(), ..o.clone() }, RunOptions::default());
        // The FLAG: dump lists every flag of the command once, sorted, with pflag's defaults.
        let names: Vec<&str> = o.flag_values.iter().map(|(n, _)| n.as_str()).collect();
        assert!(names.windows(2).all(|w| w[0] < w[1]), "{names:?}");
        assert!(o.flag_values.contains(&("leader-elect".into(), "true".into())));
        assert!(o.flag_values.contains(&("v".into(), "0".into())));
        let given = run(&["--v=4", "--disabled-metrics=a, b", "--leader-elect=f"]).flag_values;
        assert!(given.contains(&("v".into(), "4".into())));
        assert!(given.contains(&("disabled-metrics".into(), "[a,b]".into())));
        assert!(given.contains(&("leader-elect".into(), "false".into())));
        assert_eq!(o.secure_port, 10259);
        assert_eq!(o.bind_address, "0.0.0.0");
        assert_eq!(o.authorization_always_allow_paths, ["/healthz", "/readyz", "/livez"]);
        assert!(!o.warn_unserved_scheduler_names);
    }

    #[test]
    fn both_value_forms() {
        for list in [&["--config=/etc/s.yaml"][..], &["--config", "/etc/s.yaml"][..]] {
            let o = run(list);
            assert_eq!(o.config, Some(PathBuf::from("/etc/s.yaml")));
            assert!(o.overrides.config_file_given);
        }
        assert_eq!(run(&["--secure-port", "10260"]).secure_port, 10260);
        assert_eq!(run(&["--secure-port=0"]).secure_port, 0);
    }

    #[test]
    fn boolean_forms() {
        assert_eq!(run(&["--leader-elect"]).overrides.leader_elect, Some(true));
        assert_eq!(run(&["--leader-elect=false"]).overrides.leader_elect, Some(false));
        assert_eq!(run(&["--leader-elect=true"]).overrides.leader_elect, Some(true));
        assert_eq!(run(&["--leader-elect=0"]).overrides.leader_elect, Some(false));
        assert_eq!(run(&[]).overrides.leader_elect, None);
        assert!(usage(&["--leader-elect=maybe"]).contains("expected true or false"));
        assert!(usage(&["--leader-elect", "false"]).contains("boolean flags take their value with '='"));
        assert!(!run(&["--warn-unserved-scheduler-names=false"]).warn_unserved_scheduler_names);
        assert!(run(&["--warn-unserved-scheduler-names"]).warn_unserved_scheduler_names);
        assert!(run(&["--allow-insecure-http"]).allow_insecure_http);
        assert!(run(&["--authentication-skip-lookup"]).authentication_skip_lookup);
    }

    #[test]
    fn leader_election_flags() {
        let o = run(&[
            "--leader-elect-lease-duration=30s",
            "--leader-elect-renew-deadline",
            "20s",
            "--leader-elect-retry-period=3s",
            "--leader-elect-resource-lock=leases",
            "--leader-elect-resource-name=my-scheduler",
            "--leader-elect-resource-namespace=edge",
        ]);
        let ov = &o.overrides;
        assert_eq!(ov.leader_elect_lease_duration, Some(GoDuration::from_secs(30)));
        assert_eq!(ov.leader_elect_renew_deadline, Some(GoDuration::from_secs(20)));
        assert_eq!(ov.leader_elect_retry_period, Some(GoDuration::from_secs(3)));
        assert_eq!(ov.leader_elect_resource_lock.as_deref(), Some("leases"));
        assert_eq!(ov.leader_elect_resource_name.as_deref(), Some("my-scheduler"));
        assert_eq!(ov.leader_elect_resource_namespace.as_deref(), Some("edge"));
        assert!(usage(&["--leader-elect-lease-duration=15"]).contains("expected a duration"));
    }

    #[test]
    fn client_and_serving_flags() {
        let o = run(&[
            "--kubeconfig=/k",
            "--master",
            "https://10.0.0.1:6443",
            "--kube-api-qps=20.5",
            "--kube-api-burst=40",
            "--kube-api-content-type=application/json",
            "--bind-address=127.0.0.1",
            "--tls-cert-file=/c",
            "--tls-private-key-file=/k.pem",
            "--authentication-kubeconfig=/a",
            "--authorization-kubeconfig=/z",
            "--authorization-always-allow-paths=/healthz, /metrics",
            "--known-scheduler-names=a,b",
            "--logging-format=text",
        ]);
        assert_eq!(o.overrides.kubeconfig.as_deref(), Some("/k"));
        assert_eq!(o.master.as_deref(), Some("https://10.0.0.1:6443"));
        assert_eq!(o.overrides.kube_api_qps, Some(20.5));
        assert_eq!(o.overrides.kube_api_burst, Some(40));
        assert_eq!(o.overrides.kube_api_content_type.as_deref(), Some("application/json"));
        assert_eq!(o.bind_address, "127.0.0.1");
        assert_eq!(o.tls_cert_file, Some(PathBuf::from("/c")));
        assert_eq!(o.tls_private_key_file, Some(PathBuf::from("/k.pem")));
        assert_eq!(o.authentication_kubeconfig, Some(PathBuf::from("/a")));
        assert_eq!(o.authorization_kubeconfig, Some(PathBuf::from("/z")));
        assert_eq!(o.authorization_always_allow_paths, ["/healthz", "/metrics"]);
        assert_eq!(o.known_scheduler_names, ["a", "b"]);
        assert!(o.warnings.is_empty(), "{:?}", o.warnings);
        assert!(usage(&["--logging-format=xml"]).contains("Unsupported value: \"xml\""));
        assert_eq!(run(&["--logging-format", "json"]).logging.format, LogFormat::Json);
        assert!(usage(&["--bind-address=localhost"]).contains("expected an IP address"));
        assert!(usage(&["--secure-port=70000"]).contains("expected a port number"));
    }

    #[test]
    fn verbosity() {
        assert_eq!(run(&["--v=2"]).logging.verbosity, 2);
        assert_eq!(run(&["--v", "4"]).logging.verbosity, 4);
        assert_eq!(run(&["-v", "3"]).logging.verbosity, 3);
        assert_eq!(run(&["-v5"]).logging.verbosity, 5);
        assert_eq!(run(&["-v=6"]).logging.verbosity, 6);
        assert!(usage(&["--v=x"]).contains("verbosity"));
    }

    // kube-extra-scheduler manifest (no --config): the deprecated flags apply.
    #[test]
    fn extra_scheduler_manifest() {
        let o = run(&[
            "--authentication-kubeconfig=/etc/kubernetes/scheduler.conf",
            "--authorization-kubeconfig=/etc/kubernetes/scheduler.conf",
            "--bind-address=127.0.0.1",
            "--kubeconfig=/etc/kubernetes/scheduler.conf",
            "--leader-elect=false",
            "--scheduler-name=kube-extra-scheduler",
            "--port=10255",
            "--secure-port=10260",
        ]);
        assert_eq!(o.port, Some(10255));
        assert_eq!(o.secure_port, 10260);
        assert_eq!(o.overrides.scheduler_name.as_deref(), Some("kube-extra-scheduler"));
        assert!(!o.overrides.config_file_given);
        assert_eq!(o.warnings.len(), 2, "{:?}", o.warnings);
        assert!(o.warnings[0].starts_with("flag --scheduler-name is deprecated"));
        assert!(o.warnings[1].starts_with("flag --port is deprecated"));
    }

    // PMK manifest: --scheduler-name together with --config is ignored, as kube-scheduler does.
    #[test]
    fn scheduler_name_with_config_is_ignored_with_a_warning() {
        let o = run(&[
            "--secure-port=10260",
            "--leader-elect=false",
            "--v=2",
            "--scheduler-name=my-scheduler",
            "--config=/etc/kubernetes/my-scheduler/my-scheduler.yaml",
        ]);
        assert!(o.overrides.config_file_given);
        assert!(
            o.warnings.iter().any(|w| w.starts_with("--scheduler-name is ignored because --config is set")),
            "{:?}",
            o.warnings
        );
    }

    // Static-pod manifest from CKA notes: --kubeconfig next to --config is kept; it fills
    // clientConnection.kubeconfig when the file leaves it empty (see config::apply_overrides).
    #[test]
    fn kubeconfig_next_to_config() {
        let o = run(&[
            "--address=127.0.0.1",
            "--kubeconfig=/etc/kubernetes/scheduler.conf",
            "--config=/etc/kubernetes/my-scheduler-config.yaml",
        ]);
        assert_eq!(o.overrides.kubeconfig.as_deref(), Some("/etc/kubernetes/scheduler.conf"));
        assert!(o.overrides.config_file_given);
        assert_eq!(o.warnings.len(), 1, "only --address warns: {:?}", o.warnings);
    }

    #[test]
    fn deprecated_and_ignored_flags_warn() {
        let o = run(&[
            "--address=127.0.0.1",
            "--algorithm-provider=DefaultProvider",
            "--policy-config-file=/p",
            "--use-legacy-policy-config",
            "--add-dir-header=false",
            "--log-dir=/var/log",
            "--log-file=/l",
            "--logtostderr",
            "--alsologtostderr=true",
            "--profiling=false",
            "--contention-profiling",
            "--feature-gates=SchedulerPopFromBackoffQ=false,DRADeviceTaints=true",
            "--requestheader-client-ca-file=/ca",
            "--requestheader-allowed-names=front-proxy-client",
            "--requestheader-extra-headers-prefix=X-Remote-Extra-",
            "--requestheader-group-headers=X-Remote-Group",
            "--requestheader-username-headers=X-Remote-User",
            "--client-ca-file=/ca",
            "--tls-min-version=VersionTLS12",
            "--tls-cipher-suites=TLS_AES_128_GCM_SHA256",
            "--permit-port-sharing",
            "--permit-address-sharing=true",
            "--lock-object-name=lock",
            "--lock-object-namespace=ns",
        ]);
        assert_eq!(o.insecure_address.as_deref(), Some("127.0.0.1"));
        assert_eq!(o.overrides.profiling, Some(false));
        assert_eq!(o.overrides.contention_profiling, Some(true));
        assert_eq!(o.overrides.lock_object_name.as_deref(), Some("lock"));
        assert_eq!(o.overrides.lock_object_namespace.as_deref(), Some("ns"));
        assert_eq!(o.warnings.len(), 15, "{:#?}", o.warnings);
        assert!(o.permit_port_sharing);
        assert_eq!(o.client_ca_file.as_deref(), Some(std::path::Path::new("/ca")));
        assert_eq!(o.requestheader.allowed_names, ["front-proxy-client"]);
        assert_eq!(o.requestheader.username_headers, ["X-Remote-User"]);
        assert!(o.warnings.iter().any(|w| w == "feature gates without effect in edgesched: DRADeviceTaints"));
        assert!(!o.feature_gates.enabled("SchedulerPopFromBackoffQ"));
        assert!(usage(&["--feature-gates=Foo=true"]).contains("unrecognized feature gate: Foo"));
        assert!(usage(&["--log-json-split-stream", "--logging-format=json"])
            .contains("options.json.splitStream: Forbidden: Feature LoggingAlphaOptions is disabled"));
        let o = run(&["--feature-gates=LoggingAlphaOptions=true", "--log-text-split-stream", "--log-text-info-buffer-size=1Ki"]);
        assert!(o.logging.split_stream);
        assert_eq!(o.logging.info_buffer_size, 1024);
        assert!(usage(&["--logtostderr=maybe"]).contains("expected true or false"));
    }

    /// Every flag of `kube-scheduler --help` (the command-line reference generated from
    /// cmd/kube-scheduler, kubernetes v1.35, plus the v1.36 additions), each with a value of
    /// its type, is accepted in both forms.
    #[test]
    fn every_kube_scheduler_flag_is_accepted() {
        let upstream: &[(&str, &str)] = &[
            ("allow-metric-labels", "scheduler_goroutines,operation=binding"),
            ("allow-metric-labels-manifest", "/m.yaml"),
            ("authentication-kubeconfig", "/k"),
            ("authentication-skip-lookup", "true"),
            ("authentication-token-webhook-cache-ttl", "10s"),
            ("authentication-tolerate-lookup-failure", "true"),
            ("authorization-always-allow-paths", "/healthz,/readyz,/livez"),
            ("authorization-kubeconfig", "/k"),
            ("authorization-webhook-cache-authorized-ttl", "10s"),
            ("authorization-webhook-cache-unauthorized-ttl", "10s"),
            ("bind-address", "0.0.0.0"),
            ("cert-dir", "/var/run/kubernetes"),
            ("client-ca-file", "/ca.crt"),
            ("config", "/c.yaml"),
            ("contention-profiling", "true"),
            ("disable-http2-serving", "false"),
            ("disabled-metrics", "scheduler_goroutines"),
            ("emulated-version", "kube=1.35"),
            ("feature-gates", "SchedulerQueueingHints=true"),
            ("help", "false"),
            ("http2-max-streams-per-connection", "0"),
            ("kube-api-burst", "100"),
            ("kube-api-content-type", "application/vnd.kubernetes.protobuf"),
            ("kube-api-qps", "50"),
            ("kubeconfig", "/k"),
            ("leader-elect", "true"),
            ("leader-elect-lease-duration", "15s"),
            ("leader-elect-renew-deadline", "10s"),
            ("leader-elect-resource-lock", "leases"),
            ("leader-elect-resource-name", "kube-scheduler"),
            ("leader-elect-resource-namespace", "kube-system"),
            ("leader-elect-retry-period", "2s"),
            ("log-flush-frequency", "5s"),
            ("log-text-info-buffer-size", "0"),
            ("log-text-split-stream", "false"),
            ("logging-format", "text"),
            ("master", "https://10.0.0.1:6443"),
            ("min-compatibility-version", "kube=1.34"),
            ("permit-address-sharing", "false"),
            ("permit-port-sharing", "false"),
            ("pod-max-in-unschedulable-pods-duration", "5m0s"),
            ("profiling", "true"),
            ("requestheader-allowed-names", "front-proxy-client"),
            ("requestheader-client-ca-file", "/front-proxy-ca.crt"),
            ("requestheader-extra-headers-prefix", "x-remote-extra-"),
            ("requestheader-group-headers", "x-remote-group"),
            ("requestheader-uid-headers", "x-remote-uid"),
            ("requestheader-username-headers", "x-remote-user"),
            ("secure-port", "10259"),
            ("show-hidden-metrics-for-version", "1.34"),
            ("tls-cert-file", "/c.crt"),
            ("tls-cipher-suites", "TLS_ECDHE_RSA_WITH_AES_128_GCM_SHA256"),
            ("tls-curve-preferences", "23,24"),
            ("tls-min-version", "VersionTLS12"),
            ("tls-private-key-file", "/c.key"),
            ("tls-sni-cert-key", "/a.crt,/a.key:*.example.com"),
            ("v", "2"),
            ("vmodule", "schedule_one=4"),
            ("write-config-to", "/out.yaml"),
        ];
        for (name, value) in upstream {
            let joined = format!("--{name}={value}");
            let r = parse(args(&[joined.as_str()]));
            assert!(matches!(r, Ok(Command::Run(_)) | Ok(Command::Help(_))), "{joined}: {r:?}");
            if find_flag(name).is_some_and(|f| f.kind != Kind::Bool) {
                let r = parse(args(&[&format!("--{name}"), value]));
                assert!(matches!(r, Ok(Command::Run(_))), "--{name} {value}: {r:?}");
            }
        }
    }

    #[test]
    fn unknown_flags_suggest_the_real_one() {
        assert_eq!(
            usage(&["--kube-config=/etc/kubernetes/scheduler.conf"]),
            "unknown flag: --kube-config (did you mean --kubeconfig?)"
        );
        assert_eq!(usage(&["--no-such-thing"]), "unknown flag: --no-such-thing");
        assert_eq!(
            usage(&["--address = 127.0.0.1"]),
            "flag --address is written with spaces around \"=\" in one argument: write --address=VALUE (no spaces) or --address VALUE as two arguments"
        );
        assert_eq!(usage(&["-x"]), "unknown flag: -x");
        assert_eq!(usage(&["simulate", "--secure-port=1", "--cluster=c"]), "unknown flag for simulate: --secure-port");
        // The spaced `--address = 127.0.0.1` of a web page: "=" is the value, the IP is stray.
        assert!(usage(&["--address", "=", "127.0.0.1"]).contains("expected an IP address"));
        assert_eq!(usage(&["--config"]), "flag needs an argument: --config");
        assert_eq!(usage(&["stray"]), "unexpected argument \"stray\"");
    }

    #[test]
    fn subcommands() {
        assert_eq!(
            parse(args(&["check-config", "--config=/c.yaml", "--leader-elect=false"])).unwrap(),
            Command::CheckConfig {
                config: Some(PathBuf::from("/c.yaml")),
                overrides: Overrides { config_file_given: true, leader_elect: Some(false), ..Default::default() },
                warnings: vec![],
            }
        );
        assert_eq!(
            parse(args(&["simulate", "--cluster", "c.yaml", "--output=json", "--seed=7"])).unwrap(),
            Command::Simulate(SimulateOptions {
                source: ClusterSource { cluster: Some(PathBuf::from("c.yaml")), ..Default::default() },
                output: OutputFormat::Json,
                top: DEFAULT_TOP,
                summary_nodes: DEFAULT_SUMMARY_NODES,
                seed: Some(7),
                ..Default::default()
            })
        );
        assert_eq!(
            parse(args(&[
                "simulate",
                "--kubeconfig=/k",
                "--add",
                "a.yaml",
                "--add=b.yaml",
                "--remove-node=n1,n2",
                "--cordon",
                "n3",
                "--output=placements",
                "--summary",
                "--lenient"
            ]))
            .unwrap(),
            Command::Simulate(SimulateOptions {
                source: ClusterSource { kubeconfig: Some(PathBuf::from("/k")), lenient: true, ..Default::default() },
                what_if: WhatIf {
                    add: vec![PathBuf::from("a.yaml"), PathBuf::from("b.yaml")],
                    remove_nodes: vec!["n1".into(), "n2".into()],
                    cordon: vec!["n3".into()],
                },
                output: OutputFormat::Placements,
                top: DEFAULT_TOP,
                summary: true,
                summary_nodes: DEFAULT_SUMMARY_NODES,
                seed: None,
            })
        );
        assert_eq!(usage(&["simulate", "--cluster=c", "--kubeconfig=k"]), "give --cluster FILE or --kubeconfig, not both");
        assert_eq!(usage(&["simulate", "--output=placements", "--top=3"]), "--top has no effect with --output placements");
        assert!(usage(&["simulate", "--cluster=c", "--output=yaml"]).contains("expected table, json or placements"));
        assert_eq!(
            usage(&["explain", "--all-pending", "--output=placements"]),
            "--output placements is for simulate, not explain"
        );
        assert_eq!(usage(&["capacity"]), "capacity needs --pod FILE");
        assert_eq!(
            parse(args(&["capacity", "--pod=p.yaml", "--cluster=c.yaml", "--max=3", "--output=json"])).unwrap(),
            Command::Capacity(CapacityOptions {
                source: ClusterSource { cluster: Some(PathBuf::from("c.yaml")), ..Default::default() },
                pod: PathBuf::from("p.yaml"),
                max: Some(3),
                output: OutputFormat::Json,
                ..Default::default()
            })
        );
        assert_eq!(
            parse(args(&["snapshot", "--kubeconfig=/k"])).unwrap(),
            Command::Snapshot { source: ClusterSource { kubeconfig: Some(PathBuf::from("/k")), ..Default::default() } }
        );
        assert!(usage(&["snapshot", "--cluster=c"]).starts_with("unknown flag for snapshot: --cluster"));
        assert_eq!(
            parse(args(&["explain", "-n", "apps", "web-0", "web-1", "--kubeconfig=/k"])).unwrap(),
            Command::Explain {
                kubeconfig: Some(PathBuf::from("/k")),
                config: None,
                master: None,
                namespace: Some("apps".into()),
                pods: vec!["web-0".into(), "web-1".into()],
                all_pending: false,
                output: OutputFormat::Table,
                allow_insecure_http: false,
                request_timeout: None,
            }
        );
        assert!(matches!(parse(args(&["explain", "--all-pending"])).unwrap(), Command::Explain { all_pending: true, .. }));
        assert_eq!(usage(&["explain"]), "explain needs pod names or --all-pending");
        assert_eq!(
            parse(args(&["status", "--master=http://m", "--output", "json", "--allow-insecure-http"])).unwrap(),
            Command::Status {
                kubeconfig: None,
                config: None,
                master: Some("http://m".into()),
                output: OutputFormat::Json,
                allow_insecure_http: true,
                request_timeout: None,
            }
        );
        assert_eq!(usage(&["--v=2", "simulate"]), "the subcommand must come first: edgesched simulate [flags]");
    }

    #[test]
    fn version_and_help() {
        assert_eq!(parse(args(&["--version"])).unwrap(), Command::Version);
        assert_eq!(parse(args(&["--version=raw"])).unwrap(), Command::Version);
        let Command::Help(text) = parse(args(&["-h"])).unwrap() else { panic!() };
        assert!(text.contains("Leader election flags:"));
        let Command::Help(sim) = parse(args(&["simulate", "--help"])).unwrap() else { panic!() };
        assert!(sim.contains("--cluster path") && !sim.contains("--secure-port"));
        assert_eq!(help_text(Some("simulate")), sim);
    }

    #[test]
    fn help_lists_every_run_flag_once() {
        let text = help_text(None);
        for f in FLAGS.iter().filter(|f| f.cmds & RUN != 0) {
            let needle = format!("  --{} ", f.name);
            let trimmed = format!("  --{}\n", f.name);
            assert!(text.contains(&needle) || text.contains(&trimmed), "--{} missing", f.name);
        }
        assert!(text.lines().all(|l| l.len() < 200));
    }

    /// The README's "Command line" section is checked against [`FLAGS`]: every flag it names
    /// exists, every implemented flag of the scheduler is documented there, and a default the
    /// flags table states is the one `--v=1`'s `FLAG:` dump prints.
    #[test]
    fn the_readme_flags_table_matches_the_declarations() {
        let readme = include_str!("../../../README.md");
        let start = readme.find("\n## Command line\n").expect("README has a Command line section");
        let section = &readme[start + 1..];
        let section = &section[..section[3..].find("\n## ").map_or(section.len(), |i| i + 3)];
        let mut named = std::collections::BTreeSet::new();
        for (i, _) in section.match_indices("--") {
            let name: String =
                section[i + 2..].chars().take_while(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || *c == '-').collect();
            // `--flag=value` and `--bool-flag` are the syntax explained in prose.
            if !name.is_empty() && !name.ends_with('-') && name != "flag" && name != "bool-flag" {
                named.insert(name);
            }
        }
        for name in &named {
            assert!(find_flag(name).is_some(), "README names --{name}, which is not a flag");
        }
        for f in FLAGS.iter().filter(|f| f.cmds & RUN != 0 && f.group != IGNORED && f.name != "help" && f.name != "version") {
            let documented = named.contains(f.name)
                || (f.name.starts_with("requestheader-") && named.contains("requestheader-client-ca-file"))
                || (f.name.starts_with("log-") && named.contains("log-json-split-stream"));
            assert!(documented, "--{} is not in the README's Command line section", f.name);
        }
        // Rows `| `--flag ...` | `default` | ...`: the default is pflag's.
        let defaults = flag_values(Cmd::Run, &[]);
        for row in section.lines().filter(|l| l.starts_with("| `--")) {
            let cells: Vec<&str> = row.split('|').map(str::trim).collect();
            let (Some(flag_cell), Some(default_cell)) = (cells.get(1), cells.get(2)) else { continue };
            let flags: Vec<&str> = flag_cell.split(", ").collect();
            let Some(value) = default_cell.strip_prefix('`').and_then(|d| d.strip_suffix('`')) else { continue };
            if flags.len() != 1 || value.contains('`') {
                continue;
            }
            let name = flags[0].trim_matches('`').trim_start_matches("--").split([' ', '=']).next().unwrap_or_default();
            if let Some((_, v)) = defaults.iter().find(|(n, _)| n == name) {
                let v = v.trim_start_matches('[').trim_end_matches(']');
                assert_eq!(v, value, "README's default of --{name}");
            }
        }
    }
}
