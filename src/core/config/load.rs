//! Reading a configuration file: size and encoding checks, YAML parsing, `apiVersion`/`kind`
//! detection, strict decoding with field paths, conversion of every version into the internal
//! configuration, defaulting and validation.

use super::args::{decode_args, DecodedArgs};
use super::error::{duplicate, quoted, ConfigError, Problem};
use super::raw::{decode, parse_yaml, Node, Value};
use super::types::*;
use super::version::{self, Version, GROUP, KIND};
use super::wire::{WireConfig, WireProfile};
use super::{defaults, plugins, v1, v1beta1, v1beta2, validate, Loaded};
use std::path::Path;

/// Files above this size are refused before parsing.
pub const MAX_FILE_BYTES: usize = 1024 * 1024;

/// Read and load a configuration file.
pub fn load_file(path: &Path) -> Result<Loaded, ConfigError> {
    let name = path.display().to_string();
    let meta = std::fs::metadata(path).map_err(|e| ConfigError::whole(&name, format!("cannot read file: {e}")))?;
    if meta.len() > MAX_FILE_BYTES as u64 {
        return Err(too_large(&name, meta.len()));
    }
    let bytes = std::fs::read(path).map_err(|e| ConfigError::whole(&name, format!("cannot read file: {e}")))?;
    load_bytes(&bytes, &name)
}

/// Load configuration from raw bytes (checked for size and UTF-8 first).
pub fn load_bytes(bytes: &[u8], source_name: &str) -> Result<Loaded, ConfigError> {
    if bytes.len() > MAX_FILE_BYTES {
        return Err(too_large(source_name, bytes.len() as u64));
    }
    let text = std::str::from_utf8(bytes)
        .map_err(|e| ConfigError::whole(source_name, format!("not UTF-8 text (invalid byte at offset {})", e.valid_up_to())))?;
    load_str(text, source_name)
}

fn too_large(name: &str, len: u64) -> ConfigError {
    ConfigError::whole(
        name,
        format!("file is {len} bytes; configuration files larger than 1 MiB ({MAX_FILE_BYTES} bytes) are refused"),
    )
}

/// Load configuration from text.
pub fn load_str(text: &str, source_name: &str) -> Result<Loaded, ConfigError> {
    if text.len() > MAX_FILE_BYTES {
        return Err(too_large(source_name, text.len() as u64));
    }
    let whole = |m: String| ConfigError::whole(source_name, m);
    let root = match parse_yaml(text) {
        Ok(Some(root)) if !root.is_null() => root,
        Ok(_) => return Err(whole("file is empty; expected a KubeSchedulerConfiguration".into())),
        // Duplicate fields are a strict-decoding error upstream, not a syntax error.
        Err(e) if e.message.starts_with("duplicate field") => return Err(whole(e.message)),
        Err(e) => return Err(whole(format!("not valid YAML: {}", e.message))),
    };
    let version = detect_version(&root).map_err(whole)?;
    let mut warnings: Vec<String> = version.deprecation().map(str::to_string).into_iter().collect();
    let fail = |problems: Vec<Problem>| ConfigError::from_problems(source_name, problems);
    if let Some(e) = fail(misplaced_fields(version, &root)) {
        return Err(e);
    }
    let wire: WireConfig = decode(&root, "").map_err(|p| ConfigError::new(source_name, with_indentation_hint(p)))?;
    let (config, problems) = convert(version, &wire, &root, &mut warnings);
    if let Some(e) = fail(problems) {
        return Err(e);
    }
    if let Some(e) = fail(validate::validate_config(&config, false)) {
        return Err(e);
    }
    Ok(Loaded { config, warnings })
}

/// The version named by `apiVersion`, after checking `kind`. Errors are whole-file messages.
fn detect_version(root: &Node) -> Result<Version, String> {
    if !matches!(root.value, Value::Map(_)) {
        return Err(format!("expected a YAML mapping with apiVersion and kind (a {KIND}) {}", root.position()));
    }
    let kind = root.get("kind").and_then(Node::as_str);
    let api_version = root.get("apiVersion").and_then(Node::as_str);
    match kind {
        None => return Err(format!("missing kind; expected kind: {KIND}")),
        Some(k) if k != KIND => return Err(format!("kind is {k:?}, expected {KIND:?}")),
        Some(_) => {}
    }
    let Some(av) = api_version else {
        return Err(format!("missing apiVersion; expected apiVersion: {}", Version::V1.api_version()));
    };
    Version::parse(av).ok_or_else(|| unknown_api_version(av))
}

fn unknown_api_version(av: &str) -> String {
    let supported: Vec<&str> = Version::ALL.iter().map(|v| v.api_version()).collect();
    let (group, ver) = av.rsplit_once('/').unwrap_or(("", av));
    if group == GROUP && ver.starts_with("v1alpha") {
        return format!(
            "apiVersion {av:?} was removed from Kubernetes; rewrite the file as {:?} (supported: {})",
            Version::V1.api_version(),
            supported.join(", ")
        );
    }
    let guess = Version::ALL.iter().find(|v| v.api_version().ends_with(&format!("/{ver}"))).unwrap_or(&Version::V1);
    format!("unknown apiVersion {av:?} for {KIND}; did you mean {:?}? (supported: {})", guess.api_version(), supported.join(", "))
}

/// Fields that exist in some version but not in this document's, reported with their position.
fn misplaced_fields(version: Version, root: &Node) -> Vec<Problem> {
    let mut problems = Vec::new();
    let top_ok = |k: &str| version::COMMON_TOP_LEVEL.contains(&k) || version.extra_top_level().contains(&k);
    for key in root.keys() {
        if !top_ok(&key.name) && version::any_version_top_level(&key.name) {
            problems.push(not_in_version(&key.name, key, version, ""));
        }
    }
    let profiles = root.get("profiles").map(|p| match &p.value {
        Value::Seq(items) => items.iter().collect::<Vec<_>>(),
        _ => Vec::new(),
    });
    for (i, profile) in profiles.unwrap_or_default().into_iter().enumerate() {
        let path = format!("profiles[{i}]");
        for key in profile.keys() {
            let ok = version::COMMON_PROFILE.contains(&key.name.as_str()) || version.extra_profile().contains(&key.name.as_str());
            if !ok && version::any_version_profile(&key.name) {
                problems.push(not_in_version(&key.name, key, version, &path));
            }
        }
        for key in profile.get("plugins").map(Node::keys).unwrap_or_default() {
            let name = key.name.as_str();
            let ok = version::COMMON_POINTS.contains(&name) || version.extra_points().contains(&name);
            let known = Version::ALL.iter().any(|v| v.extra_points().contains(&name));
            if !ok && known {
                problems.push(not_in_version(name, key, version, &format!("{path}.plugins")));
            }
        }
    }
    problems
}

fn not_in_version(field: &str, key: &super::raw::Key, version: Version, parent: &str) -> Problem {
    let path = if parent.is_empty() { field.to_string() } else { format!("{parent}.{field}") };
    Problem::at(
        path,
        format!(
            "unknown field {field:?}: it is not part of {} {}",
            version.api_version(),
            super::raw::position(key.line, key.column)
        ),
    )
}

/// Strict-decoding errors about a field that belongs one level up or down get a hint, because a
/// mis-indented block is the usual cause (see the web pages users copy configurations from).
fn with_indentation_hint(p: Problem) -> Problem {
    let Some(path) = &p.path else { return p };
    if !p.message.starts_with("unknown field") {
        return p;
    }
    let (parent, field) = path.rsplit_once('.').unwrap_or(("", path.as_str()));
    let hint = if parent.is_empty() && version::any_version_profile(field) {
        format!("{field} belongs inside a profile (profiles[].{field}); check the indentation")
    } else if parent.starts_with("profiles[") && !parent.contains('.') && version::any_version_top_level(field) {
        format!("{field} is a top-level field, not a profile field; check the indentation")
    } else {
        return p;
    };
    Problem::at(path.clone(), format!("{}: {hint}", p.message))
}

/// Convert the decoded document into the internal configuration (defaults included). Problems are
/// reported at their position in the file.
pub fn convert(version: Version, wire: &WireConfig, root: &Node, warnings: &mut Vec<String>) -> (SchedulerConfig, Vec<Problem>) {
    let mut problems = Vec::new();
    let mut cfg = defaults::top_level(wire);
    let empty = [WireProfile::default()];
    let wire_profiles = match wire.profiles.as_deref() {
        Some(p) if !p.is_empty() => p,
        _ => &empty[..],
    };
    for (i, wp) in wire_profiles.iter().enumerate() {
        let node = root.get("profiles").and_then(|p| p.index(i));
        let mut profile = convert_profile(version, wire, wp, node, i, warnings, &mut problems);
        if wire_profiles.len() == 1 && wp.scheduler_name.is_none() {
            profile.scheduler_name = "default-scheduler".to_string();
        }
        defaults::append_default_args(&mut profile);
        cfg.profiles.push(profile);
    }
    (cfg, problems)
}

fn convert_profile(
    version: Version,
    wire: &WireConfig,
    wp: &WireProfile,
    node: Option<&Node>,
    i: usize,
    warnings: &mut Vec<String>,
    problems: &mut Vec<Problem>,
) -> Profile {
    let path = format!("profiles[{i}]");
    let custom = plugins::custom_plugins(version, wp.plugins.as_ref(), &path, warnings, problems);
    let entries = decode_plugin_config(version, wp, node, &path, problems);
    let (plugins, plugin_config) = match version {
        Version::V1 | Version::V1beta3 => (v1::merge(&custom), typed_only(entries)),
        Version::V1beta2 => (v1beta2::merge(&custom), typed_only(entries)),
        Version::V1beta1 => {
            let unreserve_used = wp
                .plugins
                .as_ref()
                .and_then(|p| p.unreserve.as_ref())
                .is_some_and(|s| s.enabled.as_ref().is_some_and(|e| !e.is_empty()));
            let input = v1beta1::ProfileInput {
                path: &path,
                custom: &custom,
                unreserve_used,
                disable_preemption: wire.disable_preemption.unwrap_or(false),
                entries,
            };
            v1beta1::convert_profile(input, warnings, problems)
        }
    };
    Profile {
        scheduler_name: wp.scheduler_name.clone().unwrap_or_default(),
        percentage_of_nodes_to_score: wp.percentage_of_nodes_to_score,
        plugins,
        plugin_config,
    }
}

/// Decode every pluginConfig entry of a profile; duplicates and bad args become problems.
fn decode_plugin_config(
    version: Version,
    wp: &WireProfile,
    node: Option<&Node>,
    path: &str,
    problems: &mut Vec<Problem>,
) -> Vec<(usize, String, DecodedArgs)> {
    let mut out: Vec<(usize, String, DecodedArgs)> = Vec::new();
    for (j, entry) in wp.plugin_config.iter().flatten().enumerate() {
        let epath = format!("{path}.pluginConfig[{j}]");
        let name = entry.name.clone().unwrap_or_default();
        if out.iter().any(|(_, n, _)| *n == name) {
            problems.push(duplicate(&epath, quoted(&name)));
            continue;
        }
        let args_node = node.and_then(|n| n.get("pluginConfig")).and_then(|c| c.index(j)).and_then(|e| e.get("args"));
        match decode_args(version, &name, args_node, &format!("{epath}.args")) {
            Ok(decoded) => out.push((j, name, decoded)),
            Err(ps) => problems.extend(ps),
        }
    }
    out
}

/// Entries of versions without legacy plugins are all typed.
fn typed_only(entries: Vec<(usize, String, DecodedArgs)>) -> Vec<PluginConfig> {
    entries
        .into_iter()
        .filter_map(|(_, name, d)| match d {
            DecodedArgs::Typed(args) => Some(PluginConfig { name, args }),
            DecodedArgs::Legacy(_) | DecodedArgs::Removed => None,
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn err(text: &str) -> String {
        load_str(text, "f.yaml").unwrap_err().to_string()
    }

    #[test]
    fn version_detection() {
        assert!(err("kind: KubeSchedulerConfiguration\n").contains("missing apiVersion"));
        assert!(err("apiVersion: kubescheduler.config.k8s.io/v1\n").contains("missing kind"));
        assert_eq!(
            err("apiVersion: kubescheduler.config.k8s.io/v1\nkind: Pod\n"),
            "f.yaml: kind is \"Pod\", expected \"KubeSchedulerConfiguration\""
        );
        let e = err("apiVersion: kube-scheduler.k8s.io/v1\nkind: KubeSchedulerConfiguration\n");
        assert!(e.starts_with("f.yaml: unknown apiVersion \"kube-scheduler.k8s.io/v1\" for KubeSchedulerConfiguration; did you mean \"kubescheduler.config.k8s.io/v1\"?"), "{e}");
        let e = err("apiVersion: kubescheduler.config.k8s.io/v1alpha1\nkind: KubeSchedulerConfiguration\n");
        assert!(e.contains("was removed from Kubernetes"), "{e}");
        assert!(err("- a\n").contains("expected a YAML mapping"));
    }

    #[test]
    fn fields_of_other_versions() {
        let e =
            err("apiVersion: kubescheduler.config.k8s.io/v1\nkind: KubeSchedulerConfiguration\nhealthzBindAddress: 0.0.0.0:1\n");
        assert_eq!(e, "f.yaml: healthzBindAddress: unknown field \"healthzBindAddress\": it is not part of kubescheduler.config.k8s.io/v1 (line 3 column 1)");
        let e = err("apiVersion: kubescheduler.config.k8s.io/v1beta2\nkind: KubeSchedulerConfiguration\nprofiles:\n- plugins:\n    multiPoint: {}\n");
        assert!(e.starts_with("f.yaml: profiles[0].plugins.multiPoint: unknown field \"multiPoint\": it is not part of kubescheduler.config.k8s.io/v1beta2 (line 5 column 5)"), "{e}");
    }

    #[test]
    fn indentation_hints() {
        let e = err("apiVersion: kubescheduler.config.k8s.io/v1\nkind: KubeSchedulerConfiguration\nplugins: {}\n");
        assert!(e.ends_with("plugins belongs inside a profile (profiles[].plugins); check the indentation"), "{e}");
        let e = err(
            "apiVersion: kubescheduler.config.k8s.io/v1\nkind: KubeSchedulerConfiguration\nprofiles:\n- leaderElection: {}\n",
        );
        assert!(e.contains("profiles[0].leaderElection: unknown field \"leaderElection\" (line 4 column 3): leaderElection is a top-level field"), "{e}");
    }
}
