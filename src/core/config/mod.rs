//! Scheduler configuration: `KubeSchedulerConfiguration` in every version users still have, converted
//! into one internal form ([`types::SchedulerConfig`]) with upstream's defaults and validation.
//!
//! Pipeline: [`load_file`]/[`load_str`] → size/UTF-8 checks → YAML tree with positions (`raw`) →
//! `apiVersion`/`kind` → strict decode with field paths (`wire`, plugin `args` by plugin name in
//! `args`) → per-version plugin defaults and merging (`v1`, `v1beta2`, `v1beta1`) → defaults
//! (`defaults`) → validation (`validate`). [`to_yaml`] writes the result back as v1;
//! [`apply_overrides`] applies command-line flags as kube-scheduler does.

mod args;
mod defaults;
mod dump;
mod error;
mod load;
mod overrides;
mod plugins;
mod raw;
pub(crate) mod suggest;
pub mod types;
pub mod v1;
mod v1beta1;
mod v1beta2;
mod validate;
mod version;
mod wire;

pub use error::{ConfigError, Problem};
pub use load::MAX_FILE_BYTES;
pub use overrides::{apply_overrides, override_warnings, Overrides};
pub use types::*;
pub use validate::{validate_inter_pod_affinity_args, validate_pod_topology_spread_args};

use std::path::Path;

/// A loaded configuration and the notes worth logging about it (deprecated version, converted or
/// dropped plugins).
#[derive(Debug, Clone, PartialEq)]
pub struct Loaded {
    pub config: SchedulerConfig,
    pub warnings: Vec<String>,
}

/// Read, decode, default and validate a configuration file.
pub fn load_file(path: &Path) -> Result<Loaded, ConfigError> {
    load::load_file(path)
}

/// Decode, default and validate configuration text; `source_name` names it in errors.
pub fn load_str(text: &str, source_name: &str) -> Result<Loaded, ConfigError> {
    load::load_str(text, source_name)
}

/// Like [`load_str`] for raw bytes, which are checked to be UTF-8 first.
pub fn load_bytes(bytes: &[u8], source_name: &str) -> Result<Loaded, ConfigError> {
    load::load_bytes(bytes, source_name)
}

/// What kube-scheduler uses without `--config`: one `default-scheduler` profile and every v1 default.
pub fn default_config() -> SchedulerConfig {
    let mut warnings = Vec::new();
    let root = raw::Node { value: raw::Value::Map(Vec::new()), line: 1, column: 1 };
    let (cfg, _problems) = load::convert(version::Version::V1, &wire::WireConfig::default(), &root, &mut warnings);
    cfg
}

/// The effective configuration as a `kubescheduler.config.k8s.io/v1` YAML document with every
/// default filled in.
pub fn to_yaml(cfg: &SchedulerConfig) -> String {
    dump::to_yaml(cfg)
}

/// The effective configuration as JSON (the `/configz` body's `componentconfig`).
pub fn to_json(cfg: &SchedulerConfig) -> serde_json::Value {
    dump::to_json(cfg)
}

/// Validate a configuration built or changed in code (loading already validates).
pub fn validate(cfg: &SchedulerConfig) -> Result<(), ConfigError> {
    match ConfigError::from_problems("configuration", validate::validate_config(cfg, true)) {
        Some(e) => Err(e),
        None => Ok(()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn default_config_is_valid_and_complete() {
        let cfg = default_config();
        assert!(validate(&cfg).is_ok());
        assert_eq!(cfg.profiles.len(), 1);
        assert_eq!(cfg.profiles[0].scheduler_name, "default-scheduler");
        assert_eq!(cfg.profiles[0].plugins.multi_point.enabled.len(), 19);
        assert_eq!(cfg.profiles[0].plugin_config.len(), 8);
    }
}
