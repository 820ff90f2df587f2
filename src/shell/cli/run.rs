//! The scheduler's own command line: [`RunOptions`], the flags only `edgesched` (no subcommand)
//! reads — serving, delegated authentication and authorization, leader election, client
//! connection, logs, metrics, feature gates —, the deprecation and ignored-flag warnings, and
//! the checks kube-scheduler makes once every flag is read.

use super::flags::{flag_values, Cmd, Flag, DEPRECATED, IGNORED};
use super::values::{comma_list, parse_bool, parse_buffer_size, parse_duration, parse_ip, parse_num};
use super::{Acc, Command, UsageError};
use crate::core::config::{GoDuration, Overrides};
use crate::core::metrics::options::{self as metric_options, MetricsOptions};
use crate::shell::process::logging::{Format as LogFormat, Options as LogOptions};
use crate::shell::serving::client_cert::RequestHeaderOptions;
use std::path::PathBuf;

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

impl Acc {
    /// Take `name` if it is one of the scheduler's own flags.
    pub(super) fn set_run(&mut self, name: &'static str, v: &str) -> Result<bool, UsageError> {
        let o = &mut self.run.overrides;
        let text = || Some(v.to_string());
        let path = || Some(PathBuf::from(v));
        match name {
            "bind-address" => self.run.bind_address = parse_ip(name, v)?,
            "secure-port" => self.secure_port = Some(parse_num(name, v, "a port number 0-65535")?),
            "tls-cert-file" => self.run.tls_cert_file = path(),
            "tls-private-key-file" => self.run.tls_private_key_file = path(),
            "cert-dir" => self.run.cert_dir = (!v.is_empty()).then(|| PathBuf::from(v)),
            "tls-min-version" => self.run.tls_min_version = (!v.is_empty()).then(|| v.to_string()),
            "tls-cipher-suites" => self.run.tls_cipher_suites = comma_list(v),
            "feature-gates" => self.feature_gate_flag.push(v),
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
            _ => return Ok(false),
        }
        Ok(true)
    }

    /// Deprecation and ignored-flag warnings.
    pub(super) fn note(&mut self, f: &Flag, v: &str) {
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

    /// The scheduler's options once every flag is read: the logging options checked as
    /// component-base checks them, the `FLAG:` dump and the warnings.
    pub(super) fn finish_run(mut self, mut warnings: Vec<String>) -> Result<Command, UsageError> {
        self.run.secure_port = self.secure_port.unwrap_or(10259);
        // component-base compatibility registry Set → featureGate.Set: refused values
        // stop the start with upstream's text; GA/deprecated settings are warned about.
        let resolved = self.feature_gate_flag.resolve().map_err(|e| UsageError::new(e.to_string()))?;
        warnings.extend(resolved.warnings);
        self.run.feature_gates = resolved.gates;
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
        // Every occurrence counts, shown as ColonSeparatedMultimapStringString.String().
        if let Some(v) = self.run.flag_values.iter_mut().find(|(n, _)| n == "feature-gates") {
            v.1 = self.feature_gate_flag.render();
        }
        self.run.warnings = warnings;
        Ok(Command::Run(self.run))
    }
}

#[cfg(test)]
mod tests {
    use super::super::testing::{args, run, usage};
    use super::super::*;
    use super::*;

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
            "--feature-gates=SchedulerPopFromBackoffQ=false,VolumeLimitScaling=true",
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
        assert!(o.warnings.iter().any(|w| w == "feature gates without effect in edgesched: VolumeLimitScaling"));
        assert!(!o.feature_gates.enabled("SchedulerPopFromBackoffQ"));
        assert_eq!(usage(&["--feature-gates=Foo=true"]), "unrecognized feature gate: Foo");
        // Checked once all flags are read: a dependency given in a later occurrence counts.
        assert_eq!(
            usage(&["--feature-gates=GangScheduling=true"]),
            "GangScheduling is enabled, but depends on features that are disabled: [GenericWorkload]"
        );
        let o = run(&["--feature-gates=GangScheduling=true", "--feature-gates", "GenericWorkload=true"]);
        assert!(o.feature_gates.enabled("GangScheduling"));
        let dumped = o.flag_values.iter().find(|(n, _)| n == "feature-gates").map(|(_, v)| v.as_str());
        assert_eq!(dumped, Some(":GangScheduling=true,:GenericWorkload=true"));
        let o = run(&["--feature-gates=SchedulerQueueingHints=true"]);
        assert!(o
            .warnings
            .iter()
            .any(|w| w == "Setting GA feature gate SchedulerQueueingHints=true. It will be removed in a future release."));
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
}
