//! The one table of every flag — its name, the commands that take it, its help group and line —
//! and what is derived from it: the help text, the hint for an unknown flag, and the `FLAG:`
//! dump of every flag's value that kube-scheduler logs at V(1).

use super::values::{comma_list, parse_bool, UsageError};

/// Which command a flag belongs to.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Cmd {
    Run,
    CheckConfig,
    Simulate,
    Snapshot,
    Capacity,
    Explain,
    Status,
}

impl Cmd {
    pub(super) fn name(self) -> &'static str {
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

    pub(super) fn from_word(word: &str) -> Option<Cmd> {
        [Cmd::CheckConfig, Cmd::Simulate, Cmd::Snapshot, Cmd::Capacity, Cmd::Explain, Cmd::Status]
            .into_iter()
            .find(|c| c.name() == word)
    }

    pub(super) fn bit(self) -> u8 {
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

pub(super) const RUN: u8 = 1;
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
pub(super) enum Kind {
    Bool,
    Value(&'static str),
}

/// One flag: its name, commands, help group and one-line help.
pub(super) struct Flag {
    pub(super) name: &'static str,
    pub(super) kind: Kind,
    pub(super) cmds: u8,
    pub(super) group: &'static str,
    pub(super) help: &'static str,
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
pub(super) const DEPRECATED: &str = "Deprecated flags";
pub(super) const IGNORED: &str = "Accepted for compatibility and ignored";
const LE_CMDS: u8 = RUN | CHECK;

/// Every flag, in help order.
pub(super) const FLAGS: &[Flag] = &[
    flag("config", Kind::Value("path"), RUN | CHECK | SIM | CAPACITY | EXPLAIN | STATUS, MISC, "The path to the KubeSchedulerConfiguration file."),
    flag("master", Kind::Value("url"), RUN | WHAT_IF | EXPLAIN | STATUS, MISC, "The address of the Kubernetes API server (overrides any value in kubeconfig)."),
    flag("cluster", Kind::Value("path"), SIM | CAPACITY, MISC, "Cluster file (nodes, pods, ...: a List or multi-document YAML, or JSON) to simulate on; without it the cluster is read (read-only) from the API server."),
    flag("output", Kind::Value("table|json|placements|html"), SIM | CAPACITY | EXPLAIN | STATUS, MISC, "Output format; placements (simulate only) prints one NAMESPACE/NAME NODE line per pod; html (simulate and capacity) writes one self-contained page: nodes by zone before and after, placements, reasons, scores. (default table)"),
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
    flag("feature-gates", Kind::Value("colonSeparatedMultimapStringString"), RUN, MISC, "Comma-separated list of [kube:]key=value pairs that describe feature gates; may be repeated. Checked as kube-scheduler v1.35 checks them (unknown gates, locked gates set away from their default and gates enabled without the gates they depend on are errors; setting a GA or deprecated gate is warned about). SchedulerPopFromBackoffQ, PodLevelResources, InPlacePodLevelResourcesVerticalScaling, LoggingAlphaOptions, NominatedNodeNameForExpectation and GenericWorkload with GangScheduling change what edgesched does; other gates set away from their default are accepted with a warning that they have no effect here."),
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

pub(super) fn find_flag(name: &str) -> Option<&'static Flag> {
    FLAGS.iter().find(|f| f.name == name)
}

pub(super) fn unknown_flag(cmd: Cmd, name: &str) -> UsageError {
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
pub(super) fn flag_values(cmd: Cmd, given: &[(&'static str, String)]) -> Vec<(String, String)> {
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

pub(super) fn help(cmd: Cmd) -> String {
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
    use super::super::help_text;
    use super::super::testing::usage;
    use super::*;

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

    /// `--output`'s help names the values of the one table of output formats, and every format
    /// has its row there.
    #[test]
    fn output_help_names_every_output_format() {
        use super::super::values::{output_values, OUTPUT_FORMATS};
        use super::super::OutputFormat;
        let output = find_flag("output").expect("--output");
        assert!(matches!(output.kind, Kind::Value(v) if v == output_values()), "--output's values are not {}", output_values());
        for format in [OutputFormat::Table, OutputFormat::Json, OutputFormat::Placements, OutputFormat::Html] {
            assert_eq!(OUTPUT_FORMATS.iter().filter(|r| r.format == format).count(), 1, "{format:?}");
            assert!(help(Cmd::Simulate).contains(format.name()), "{format:?}");
        }
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

    /// The command-line reference (`docs/command-line.md` and `docs/feature-gates.md`) is checked
    /// against [`FLAGS`]: every flag it names exists, every implemented flag of the scheduler is
    /// documented there, and a default the flags table states is the one `--v=1`'s `FLAG:` dump
    /// prints.
    #[test]
    fn the_readme_flags_table_matches_the_declarations() {
        let section = [include_str!("../../../docs/command-line.md"), include_str!("../../../docs/feature-gates.md")].concat();
        let section = section.as_str();
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
            assert!(find_flag(name).is_some(), "docs/command-line.md names --{name}, which is not a flag");
        }
        for f in FLAGS.iter().filter(|f| f.cmds & RUN != 0 && f.group != IGNORED && f.name != "help" && f.name != "version") {
            let documented = named.contains(f.name)
                || (f.name.starts_with("requestheader-") && named.contains("requestheader-client-ca-file"))
                || (f.name.starts_with("log-") && named.contains("log-json-split-stream"));
            assert!(documented, "--{} is not in docs/command-line.md", f.name);
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
                assert_eq!(v, value, "docs/command-line.md's default of --{name}");
            }
        }
    }
}
