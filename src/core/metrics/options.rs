//! The metrics flags of component-base (`staging/src/k8s.io/component-base/metrics/options.go`,
//! v1.35): `--disabled-metrics`, `--show-hidden-metrics-for-version`, `--allow-metric-labels`
//! and `--allow-metric-labels-manifest`, parsed and validated with upstream's messages.

use std::collections::{BTreeMap, BTreeSet};

/// The Kubernetes minor version whose metrics edgesched reproduces.
pub const KUBE_MAJOR: u32 = 1;
pub const KUBE_MINOR: u32 = 35;

/// What the metrics flags ask for.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct MetricsOptions {
    /// Fully qualified names never registered.
    pub disabled: Vec<String>,
    /// `--show-hidden-metrics-for-version` (validated: only the previous minor).
    pub show_hidden_for: Option<String>,
    /// metric → label → allowed values; other values are recorded as `unexpected`.
    pub allow_labels: BTreeMap<String, BTreeMap<String, BTreeSet<String>>>,
}

/// A metrics flag value upstream would refuse; the message is upstream's.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct MetricsOptionError(pub String);

impl std::fmt::Display for MetricsOptionError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for MetricsOptionError {}

/// `validateShowHiddenMetricsVersion`: empty, or exactly the previous minor version.
pub fn validate_show_hidden(v: &str) -> Result<(), MetricsOptionError> {
    let valid = format!("{KUBE_MAJOR}.{}", KUBE_MINOR - 1);
    if v.is_empty() || v == valid {
        return Ok(());
    }
    Err(MetricsOptionError(format!(
        "--show-hidden-metrics-for-version must be omitted or have the value '{valid}'. Only the previous minor version is meaningful, other values are not allowed."
    )))
}

/// pflag's `stringToString` value: `k=v` (one `=`: the whole argument is one pair, commas and
/// all), or several CSV fields each `k=v` (double quotes group commas).
pub fn parse_string_to_string(v: &str) -> Result<Vec<(String, String)>, MetricsOptionError> {
    let fields: Vec<String> = match v.matches('=').count() {
        0 => return Err(MetricsOptionError(format!("{v} must be formatted as key=value"))),
        1 => vec![v.trim_matches('"').to_string()],
        _ => csv_fields(v)?,
    };
    fields
        .into_iter()
        .map(|f| match f.split_once('=') {
            Some((k, v)) => Ok((k.to_string(), v.to_string())),
            None => Err(MetricsOptionError(format!("{f} must be formatted as key=value"))),
        })
        .collect()
}

/// One CSV record (encoding/csv's quoting rules for a single line).
fn csv_fields(v: &str) -> Result<Vec<String>, MetricsOptionError> {
    let mut out = Vec::new();
    let mut cur = String::new();
    let mut chars = v.chars().peekable();
    let mut at_start = true;
    let mut quoted = false;
    while let Some(c) = chars.next() {
        match c {
            '"' if quoted && chars.peek() == Some(&'"') => {
                chars.next();
                cur.push('"');
            }
            '"' if quoted => quoted = false,
            '"' if at_start => quoted = true,
            ',' if !quoted => {
                out.push(std::mem::take(&mut cur));
                at_start = true;
                continue;
            }
            c => cur.push(c),
        }
        at_start = false;
    }
    if quoted {
        return Err(MetricsOptionError(format!("parse error: extraneous or missing \" in quoted-field: {v}")));
    }
    out.push(cur);
    Ok(out)
}

/// `validateAllowMetricLabel` and `SetLabelAllowListFromCLI`: keys `metricName,labelName`,
/// values comma-separated allowed label values.
pub fn allow_list(
    pairs: &[(String, String)],
) -> Result<BTreeMap<String, BTreeMap<String, BTreeSet<String>>>, MetricsOptionError> {
    let mut out: BTreeMap<String, BTreeMap<String, BTreeSet<String>>> = BTreeMap::new();
    for (key, values) in pairs {
        let Some((metric, label)) = key.split_once(',').filter(|(m, l)| is_metric_name(m) && is_label_name(l)) else {
            return Err(MetricsOptionError(
                "--allow-metric-labels must have a list of kv pair with format `metricName,labelName=labelValue, labelValue,...`"
                    .into(),
            ));
        };
        let set = out.entry(metric.to_string()).or_default().entry(label.to_string()).or_default();
        set.extend(values.split(',').map(|v| v.trim().to_string()).filter(|v| !v.is_empty()));
    }
    Ok(out)
}

/// `--allow-metric-labels-manifest`: YAML with an `allowListMapping` map of the same pairs.
pub fn allow_list_manifest(yaml: &str) -> Result<Vec<(String, String)>, MetricsOptionError> {
    #[derive(serde::Deserialize)]
    #[serde(rename_all = "camelCase")]
    struct Manifest {
        #[serde(default)]
        allow_list_mapping: BTreeMap<String, String>,
    }
    let m: Manifest =
        serde_saphyr::from_str(yaml).map_err(|e| MetricsOptionError(format!("failed to parse allow-list manifest: {e}")))?;
    Ok(m.allow_list_mapping.into_iter().collect())
}

fn is_metric_name(s: &str) -> bool {
    let mut chars = s.chars();
    chars.next().is_some_and(|c| c.is_ascii_alphabetic() || c == '_' || c == ':')
        && chars.all(|c| c.is_ascii_alphanumeric() || c == '_' || c == ':')
}

fn is_label_name(s: &str) -> bool {
    let mut chars = s.chars();
    chars.next().is_some_and(|c| c.is_ascii_alphabetic() || c == '_') && chars.all(|c| c.is_ascii_alphanumeric() || c == '_')
}

/// Whether a family deprecated in `deprecated` (`major.minor[.patch]`) is hidden in this version
/// (`shouldHide`: from the minor after its deprecation on).
pub fn should_hide(deprecated: &str) -> bool {
    let mut parts = deprecated.split('.').map(|p| p.parse::<u32>().ok());
    match (parts.next().flatten(), parts.next().flatten()) {
        (Some(major), Some(minor)) => (KUBE_MAJOR, KUBE_MINOR) >= (major, minor.saturating_add(1)),
        _ => false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn show_hidden_accepts_only_the_previous_minor() {
        assert!(validate_show_hidden("").is_ok());
        assert!(validate_show_hidden("1.34").is_ok());
        let e = validate_show_hidden("1.33").unwrap_err();
        assert_eq!(e.0, "--show-hidden-metrics-for-version must be omitted or have the value '1.34'. Only the previous minor version is meaningful, other values are not allowed.");
    }

    #[test]
    fn string_to_string_follows_pflag() {
        assert_eq!(
            parse_string_to_string("scheduler_goroutines,operation=binding,other").unwrap(),
            [("scheduler_goroutines,operation".to_string(), "binding,other".to_string())]
        );
        assert_eq!(
            parse_string_to_string(r#""a,b=x,y","c,d=z""#).unwrap(),
            [("a,b".to_string(), "x,y".to_string()), ("c,d".to_string(), "z".to_string())]
        );
        assert!(parse_string_to_string("novalue").is_err());
        // A field without "=" is refused, as pflag refuses it.
        assert!(parse_string_to_string(r#""a,b=x,y",c,d=z"#).is_err());
    }

    #[test]
    fn allow_lists_validate_keys() {
        let m = allow_list(&[("scheduler_goroutines,operation".into(), "binding, other".into())]).unwrap();
        assert_eq!(m["scheduler_goroutines"]["operation"].iter().collect::<Vec<_>>(), ["binding", "other"]);
        assert!(allow_list(&[("9bad,label".into(), "x".into())]).is_err());
        assert!(allow_list(&[("nolabel".into(), "x".into())]).is_err());
        let pairs = allow_list_manifest("allowListMapping:\n  \"m,l\": \"a,b\"\n").unwrap();
        assert_eq!(pairs, [("m,l".to_string(), "a,b".to_string())]);
    }

    #[test]
    fn hiding_starts_one_minor_after_deprecation() {
        assert!(should_hide("1.33.0"));
        assert!(should_hide("1.34.0"));
        assert!(!should_hide("1.35.0"));
        assert!(!should_hide("garbage"));
    }
}
