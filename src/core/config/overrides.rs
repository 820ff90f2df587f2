//! Command-line flags that override the configuration, applied the way kube-scheduler applies them
//! (cmd/kube-scheduler/app/options/options.go `ApplyTo`): the leader-election flags always win over
//! the file, while the deprecated flags (`--kubeconfig`, `--kube-api-*`, `--scheduler-name`,
//! `--lock-object-*`, `--profiling`, `--contention-profiling`) only apply when no `--config` file is
//! given — with a file they are ignored, and [`override_warnings`] says so.

use super::error::{ConfigError, Problem};
use super::types::{GoDuration, SchedulerConfig};
use super::validate::validate_config;

/// Source name used in errors about flags.
const FLAGS: &str = "command line";

/// Flag values that override the configuration; `None` means the flag was not given.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Overrides {
    /// Whether `--config` was given: the deprecated flags are then ignored, as upstream.
    pub config_file_given: bool,
    /// `--leader-elect`.
    pub leader_elect: Option<bool>,
    /// `--leader-elect-lease-duration`.
    pub leader_elect_lease_duration: Option<GoDuration>,
    /// `--leader-elect-renew-deadline`.
    pub leader_elect_renew_deadline: Option<GoDuration>,
    /// `--leader-elect-retry-period`.
    pub leader_elect_retry_period: Option<GoDuration>,
    /// `--leader-elect-resource-lock`.
    pub leader_elect_resource_lock: Option<String>,
    /// `--leader-elect-resource-name`.
    pub leader_elect_resource_name: Option<String>,
    /// `--leader-elect-resource-namespace`.
    pub leader_elect_resource_namespace: Option<String>,
    /// `--kubeconfig` (deprecated: `clientConnection.kubeconfig`).
    pub kubeconfig: Option<String>,
    /// `--kube-api-qps` (deprecated).
    pub kube_api_qps: Option<f32>,
    /// `--kube-api-burst` (deprecated).
    pub kube_api_burst: Option<i32>,
    /// `--kube-api-content-type` (deprecated).
    pub kube_api_content_type: Option<String>,
    /// `--scheduler-name` (deprecated): renames the only profile.
    pub scheduler_name: Option<String>,
    /// `--lock-object-name` (deprecated alias of `--leader-elect-resource-name`).
    pub lock_object_name: Option<String>,
    /// `--lock-object-namespace` (deprecated alias of `--leader-elect-resource-namespace`).
    pub lock_object_namespace: Option<String>,
    /// `--profiling` (deprecated).
    pub profiling: Option<bool>,
    /// `--contention-profiling` (deprecated).
    pub contention_profiling: Option<bool>,
}

impl Overrides {
    /// The deprecated flags that were given, with the configuration field that replaces each.
    fn deprecated_given(&self) -> Vec<(&'static str, &'static str)> {
        let mut v = Vec::new();
        let mut add = |given: bool, flag, field| {
            if given {
                v.push((flag, field));
            }
        };
        add(self.kubeconfig.is_some(), "--kubeconfig", "clientConnection.kubeconfig");
        add(self.kube_api_qps.is_some(), "--kube-api-qps", "clientConnection.qps");
        add(self.kube_api_burst.is_some(), "--kube-api-burst", "clientConnection.burst");
        add(self.kube_api_content_type.is_some(), "--kube-api-content-type", "clientConnection.contentType");
        add(self.scheduler_name.is_some(), "--scheduler-name", "profiles[].schedulerName");
        add(self.lock_object_name.is_some(), "--lock-object-name", "leaderElection.resourceName");
        add(self.lock_object_namespace.is_some(), "--lock-object-namespace", "leaderElection.resourceNamespace");
        add(self.profiling.is_some(), "--profiling", "enableProfiling");
        add(self.contention_profiling.is_some(), "--contention-profiling", "enableContentionProfiling");
        v
    }
}

/// Warnings for flags that [`apply_overrides`] will ignore because a configuration file is used.
/// `--kubeconfig` is the one exception (see [`apply_overrides`]) and is not reported here.
pub fn override_warnings(o: &Overrides) -> Vec<String> {
    if !o.config_file_given {
        return Vec::new();
    }
    o.deprecated_given()
        .into_iter()
        .filter(|(flag, _)| *flag != "--kubeconfig")
        .map(|(flag, field)| {
            format!("{flag} is ignored because --config is set (as kube-scheduler does); set {field} in the configuration file")
        })
        .collect()
}

/// Apply flag overrides to `cfg` and validate the result.
///
/// As kube-scheduler, a configuration file makes the deprecated flags inert, with one deliberate
/// exception: `--kubeconfig` still fills `clientConnection.kubeconfig` when the file leaves it
/// empty (the flag's own help says the file's value "takes precedence"). Static-pod manifests
/// pass both, and silently falling back to in-cluster credentials there would only confuse.
pub fn apply_overrides(cfg: &mut SchedulerConfig, o: &Overrides) -> Result<(), ConfigError> {
    if !o.config_file_given {
        apply_deprecated(cfg, o)?;
    } else if let Some(k) = &o.kubeconfig {
        if cfg.client_connection.kubeconfig.is_empty() {
            cfg.client_connection.kubeconfig = k.clone();
        }
    }
    let le = &mut cfg.leader_election;
    set(&mut le.leader_elect, o.leader_elect);
    set(&mut le.lease_duration, o.leader_elect_lease_duration);
    set(&mut le.renew_deadline, o.leader_elect_renew_deadline);
    set(&mut le.retry_period, o.leader_elect_retry_period);
    set(&mut le.resource_lock, o.leader_elect_resource_lock.clone());
    set(&mut le.resource_name, o.leader_elect_resource_name.clone());
    set(&mut le.resource_namespace, o.leader_elect_resource_namespace.clone());
    match ConfigError::from_problems(FLAGS, validate_config(cfg, true)) {
        Some(e) => Err(e),
        None => Ok(()),
    }
}

fn set<T>(field: &mut T, value: Option<T>) {
    if let Some(v) = value {
        *field = v;
    }
}

fn apply_deprecated(cfg: &mut SchedulerConfig, o: &Overrides) -> Result<(), ConfigError> {
    let cc = &mut cfg.client_connection;
    set(&mut cc.kubeconfig, o.kubeconfig.clone());
    set(&mut cc.qps, o.kube_api_qps);
    set(&mut cc.burst, o.kube_api_burst);
    set(&mut cc.content_type, o.kube_api_content_type.clone());
    set(&mut cfg.enable_profiling, o.profiling);
    set(&mut cfg.enable_contention_profiling, o.contention_profiling);
    set(&mut cfg.leader_election.resource_name, o.lock_object_name.clone());
    set(&mut cfg.leader_election.resource_namespace, o.lock_object_namespace.clone());
    if let Some(name) = &o.scheduler_name {
        match cfg.profiles.as_mut_slice() {
            [only] => only.scheduler_name = name.clone(),
            profiles => {
                return Err(ConfigError::new(
                    FLAGS,
                    Problem::at(
                        "profiles",
                        format!("--scheduler-name renames the only profile, but there are {} profiles", profiles.len()),
                    ),
                ))
            }
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::core::config::default_config;

    #[test]
    fn without_config_file_every_flag_applies() {
        let mut cfg = default_config();
        let o = Overrides {
            kubeconfig: Some("/etc/kubernetes/scheduler.conf".into()),
            scheduler_name: Some("kube-extra-scheduler".into()),
            leader_elect: Some(false),
            kube_api_qps: Some(20.0),
            lock_object_name: Some("old".into()),
            leader_elect_resource_namespace: Some("edge".into()),
            ..Default::default()
        };
        apply_overrides(&mut cfg, &o).unwrap();
        assert_eq!(cfg.client_connection.kubeconfig, "/etc/kubernetes/scheduler.conf");
        assert_eq!(cfg.profiles[0].scheduler_name, "kube-extra-scheduler");
        assert!(!cfg.leader_election.leader_elect);
        assert_eq!(cfg.client_connection.qps, 20.0);
        assert_eq!(cfg.leader_election.resource_name, "old");
        assert_eq!(cfg.leader_election.resource_namespace, "edge");
        assert!(override_warnings(&o).is_empty());
    }

    #[test]
    fn with_config_file_only_leader_election_flags_apply() {
        let mut cfg = default_config();
        let o = Overrides {
            config_file_given: true,
            kubeconfig: Some("/x".into()),
            scheduler_name: Some("y".into()),
            leader_elect: Some(false),
            ..Default::default()
        };
        apply_overrides(&mut cfg, &o).unwrap();
        assert_eq!(cfg.client_connection.kubeconfig, "/x", "--kubeconfig fills an empty clientConnection.kubeconfig");
        assert_eq!(cfg.profiles[0].scheduler_name, "default-scheduler");
        assert!(!cfg.leader_election.leader_elect);
        let w = override_warnings(&o);
        assert_eq!(w.len(), 1);
        assert!(w[0].starts_with("--scheduler-name is ignored because --config is set"));
        let mut cfg = default_config();
        cfg.client_connection.kubeconfig = "/from-file".into();
        apply_overrides(&mut cfg, &o).unwrap();
        assert_eq!(cfg.client_connection.kubeconfig, "/from-file", "the file's value takes precedence");
    }

    #[test]
    fn leader_election_flag_beats_deprecated_alias() {
        let mut cfg = default_config();
        let o = Overrides {
            lock_object_name: Some("alias".into()),
            leader_elect_resource_name: Some("new".into()),
            ..Default::default()
        };
        apply_overrides(&mut cfg, &o).unwrap();
        assert_eq!(cfg.leader_election.resource_name, "new");
    }

    #[test]
    fn result_is_validated() {
        let mut cfg = default_config();
        let o = Overrides { leader_elect_renew_deadline: Some(GoDuration::from_secs(30)), ..Default::default() };
        let e = apply_overrides(&mut cfg, &o).unwrap_err().to_string();
        assert!(e.starts_with("command line: leaderElection.leaseDuration: Invalid value: \"30s\""), "{e}");
        let mut cfg = default_config();
        let o = Overrides { leader_elect_resource_lock: Some("configmapsleases".into()), ..Default::default() };
        assert!(apply_overrides(&mut cfg, &o).unwrap_err().to_string().contains("resourceLock value must be \"leases\""));
    }

    #[test]
    fn scheduler_name_needs_a_single_profile() {
        let mut cfg = default_config();
        let mut second = cfg.profiles[0].clone();
        second.scheduler_name = "b".into();
        cfg.profiles.push(second);
        let o = Overrides { scheduler_name: Some("x".into()), ..Default::default() };
        let e = apply_overrides(&mut cfg, &o).unwrap_err().to_string();
        assert_eq!(e, "command line: profiles: --scheduler-name renames the only profile, but there are 2 profiles");
    }
}
