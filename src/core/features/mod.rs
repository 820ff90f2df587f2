//! Feature gates as kube-scheduler v1.35 registers, parses and reports them.
//!
//! [`GATES`] ([`v1_35`]) declares every gate the binary knows with its full versioned history,
//! so "as of 1.35" is a lookup ([`Gate::spec_at`]) and a later release adds specs rather than
//! rewriting rows. [`FeatureGatesFlag`] is the `--feature-gates` flag as
//! `component-base/compatibility/registry.go` stores it (repeatable, `component:key=value` pairs,
//! no `component:` meaning `kube`), and [`FeatureGatesFlag::resolve`] applies it as the registry's
//! `Set` hands it to `component-base/featuregate/feature_gate.go` `Set`/`SetFromMap` (upstream
//! v1.35): the same errors with the same texts (unknown gate, bad bool, locked gate, a gate
//! enabled without the gates it depends on), `AllAlpha`/`AllBeta`, and the warnings upstream
//! logs for setting a GA or deprecated gate. [`FeatureGates::metric_rows`] are the
//! `kubernetes_feature_enabled` samples `AddMetrics` records.
//!
//! Which gates change what edgesched does is declared in [`effects`]: setting any other gate
//! away from its default is accepted, as upstream accepts it, with one warning naming it.
//!
//! Not modelled: `--emulated-version`/`--min-compatibility-version` (edgesched is always
//! v1.35; no v1.35 spec uses `MinCompatibilityVersion`), and upstream's random map order, which
//! makes the order of several errors in one message vary between runs there: here they come in
//! name order.

pub mod effects;
mod v1_35;

pub use v1_35::GATES;

use std::collections::BTreeMap;
use std::fmt;

/// The Kubernetes version edgesched emulates: specs newer than it do not apply yet.
pub const BINARY_VERSION: (u8, u8) = (1, 35);

/// `--min-compatibility-version`'s default (one minor before the binary), for the PreAlpha text.
const MIN_COMPATIBILITY_VERSION: (u8, u8) = (BINARY_VERSION.0, BINARY_VERSION.1 - 1);

/// The two special gates (`feature_gate.go` `allAlphaGate`, `allBetaGate`): known, reported by
/// the metric, and setting every alpha (beta) gate not named explicitly.
pub const ALL_ALPHA: &str = "AllAlpha";
pub const ALL_BETA: &str = "AllBeta";

/// The component the `--feature-gates` flag means when a pair names none
/// (`compatibility.DefaultKubeComponent`).
pub const KUBE_COMPONENT: &str = "kube";

/// A gate's maturity (`featuregate.prerelease`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Stage {
    Alpha,
    Beta,
    Ga,
    Deprecated,
}

impl Stage {
    /// The `stage` label of `kubernetes_feature_enabled` (the prerelease string: `""` for GA).
    pub fn label(self) -> &'static str {
        match self {
            Stage::Alpha => "ALPHA",
            Stage::Beta => "BETA",
            Stage::Ga => "",
            Stage::Deprecated => "DEPRECATED",
        }
    }
}

/// Which upstream file declares a gate (for citations and `docs/feature-gates.md`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Origin {
    /// `pkg/features/kube_features.go`, including the apiserver, apiextensions,
    /// controller-manager and zpages gates it re-lists.
    Kube,
    /// `staging/src/k8s.io/client-go/features/known_features.go`.
    ClientGo,
    /// `staging/src/k8s.io/component-base/logs/api/v1/kube_features.go`.
    Logs,
    /// `staging/src/k8s.io/component-base/metrics/features/kube_features.go`.
    Metrics,
}

/// One versioned spec (`featuregate.FeatureSpec`): from `major.minor` on, until the next spec.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Spec {
    pub major: u8,
    pub minor: u8,
    pub stage: Stage,
    pub default: bool,
    /// `LockToDefault`: setting the gate away from `default` is an error.
    pub locked: bool,
}

impl Spec {
    fn version(&self) -> (u8, u8) {
        (self.major, self.minor)
    }
}

/// One gate: its `VersionedSpecs` (oldest first) and the gates that must be enabled with it
/// (`defaultKubernetesFeatureGateDependencies`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Gate {
    pub name: &'static str,
    pub origin: Origin,
    pub specs: &'static [Spec],
    pub depends_on: &'static [&'static str],
}

impl Gate {
    /// The spec in force at `version` (`featureSpecAtEmulationAndMinCompatVersion`); `None` when
    /// the gate does not exist yet there (upstream's PreAlpha).
    pub fn spec_at(&self, version: (u8, u8)) -> Option<&'static Spec> {
        self.specs.iter().rev().find(|s| s.version() <= version)
    }

    /// The spec in force in this binary.
    pub fn current(&self) -> Option<&'static Spec> {
        self.spec_at(BINARY_VERSION)
    }

    /// The default in this binary (off where the gate does not exist yet).
    pub fn default(&self) -> bool {
        self.current().is_some_and(|s| s.default)
    }
}

/// The gate named `name`, if kube-scheduler v1.35 registers it (the two special gates aside).
pub fn gate(name: &str) -> Option<&'static Gate> {
    GATES.iter().find(|g| g.name == name)
}

/// Why `--feature-gates` was refused. The texts are upstream's.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum GateError {
    /// `featuregate.Set`: a pair without `=`.
    MissingValue(String),
    /// `featuregate.Set`: a value `strconv.ParseBool` refuses.
    InvalidValue { name: String, value: String },
    /// `registry.Set`: both `Name=v` and `kube:Name=v` pairs were given.
    MixedPrefixes,
    /// `registry.Set`: a `component:` prefix other than `kube`.
    UnknownComponent(String),
    /// `featuregate.SetFromMap`: unknown, locked or not-yet-existing gates, or enabled gates
    /// whose dependencies are disabled (`utilerrors.NewAggregate` of them).
    Rejected(Vec<String>),
}

impl fmt::Display for GateError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            GateError::MissingValue(name) => write!(f, "missing bool value for {name}"),
            GateError::InvalidValue { name, value } => {
                write!(f, "invalid value of {name}={value}, err: strconv.ParseBool: parsing {value:?}: invalid syntax")
            }
            GateError::MixedPrefixes => {
                f.write_str("set kube feature gates with default empty prefix or kube: prefix consistently, do not mix use")
            }
            GateError::UnknownComponent(c) => write!(f, "component not registered: {c}"),
            // apimachinery `aggregate.Error`: one message alone, several in brackets.
            GateError::Rejected(errs) if errs.len() == 1 => f.write_str(&errs[0]),
            GateError::Rejected(errs) => write!(f, "[{}]", errs.join(", ")),
        }
    }
}

impl std::error::Error for GateError {}

fn unrecognized(name: &str) -> String {
    format!("unrecognized feature gate: {name}")
}

fn locked(name: &str, value: bool, default: bool) -> String {
    format!("cannot set feature gate {name} to {value}, feature is locked to {default}")
}

fn pre_alpha(name: &str, value: bool) -> String {
    let (e, m) = (BINARY_VERSION, MIN_COMPATIBILITY_VERSION);
    format!(
        "cannot set feature gate {name} to {value}, feature is PreAlpha at emulated version {}.{}, min compatibility version {}.{}",
        e.0, e.1, m.0, m.1
    )
}

fn disabled_dependencies(name: &str, deps: &[&str]) -> String {
    format!("{name} is enabled, but depends on features that are disabled: [{}]", deps.join(" "))
}

/// The warning `SetFromMap` logs for setting a GA or deprecated gate (whatever the value).
fn setting_warning(name: &str, value: bool, stage: Stage) -> Option<String> {
    let kind = match stage {
        Stage::Deprecated => "deprecated",
        Stage::Ga => "GA",
        Stage::Alpha | Stage::Beta => return None,
    };
    Some(format!("Setting {kind} feature gate {name}={value}. It will be removed in a future release."))
}

/// `--feature-gates` as given: every occurrence's pairs, by component (upstream's
/// `ColonSeparatedMultimapStringString` with an empty default key). Storing never fails; the
/// values are checked by [`FeatureGatesFlag::resolve`] once all flags are read.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct FeatureGatesFlag {
    by_component: BTreeMap<String, Vec<String>>,
}

impl FeatureGatesFlag {
    /// Add one occurrence of the flag: `,`-separated `[component:]key=value` pairs, each part
    /// trimmed.
    pub fn push(&mut self, value: &str) {
        for pair in value.split(',').filter(|p| !p.is_empty()) {
            let (component, rest) = match pair.split_once(':') {
                Some((c, r)) => (c.trim(), r.trim()),
                None => ("", pair.trim()),
            };
            self.by_component.entry(component.to_string()).or_default().push(rest.to_string());
        }
    }

    /// Whether the flag was given with any pair.
    pub fn is_empty(&self) -> bool {
        self.by_component.is_empty()
    }

    /// The flag's value as `cliflag.PrintFlags` shows it (`String()`: `component:pair`, sorted
    /// by component, pairs in the order given).
    pub fn render(&self) -> String {
        let pairs: Vec<String> =
            self.by_component.iter().flat_map(|(c, pairs)| pairs.iter().map(move |p| format!("{c}:{p}"))).collect();
        pairs.join(",")
    }

    /// Apply the flag as `registry.Set` does: the `kube` pairs (named with or without the
    /// prefix, not both) go to one `featureGate.Set`; any other component is unknown.
    pub fn resolve(&self) -> Result<Resolved, GateError> {
        if self.by_component.contains_key("") && self.by_component.contains_key(KUBE_COMPONENT) {
            return Err(GateError::MixedPrefixes);
        }
        if let Some(other) = self.by_component.keys().find(|c| !c.is_empty() && *c != KUBE_COMPONENT) {
            return Err(GateError::UnknownComponent(other.clone()));
        }
        let mut gates = FeatureGates::default();
        let warnings = match self.by_component.values().next() {
            Some(pairs) => gates.set(&pairs.join(","))?,
            None => Vec::new(),
        };
        Ok(Resolved { gates, warnings })
    }
}

/// The outcome of a valid `--feature-gates`.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Resolved {
    pub gates: FeatureGates,
    /// What upstream logs as warnings while setting them, in order.
    pub warnings: Vec<String>,
}

/// The gates' state: upstream's `enabledRaw` (the names as given) and `enabled` (the values
/// set, those `AllAlpha`/`AllBeta` set included); every other gate has its default.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct FeatureGates {
    raw: BTreeMap<String, bool>,
    enabled: BTreeMap<&'static str, bool>,
}

impl FeatureGates {
    /// `featureGate.Set`: parse `key=value` pairs (the last of a repeated key wins) and apply
    /// them with everything set before (`SetFromMap`). Returns the warnings upstream logs. On
    /// error nothing changes.
    pub fn set(&mut self, value: &str) -> Result<Vec<String>, GateError> {
        let mut pairs = BTreeMap::new();
        for piece in value.split(',').filter(|p| !p.is_empty()) {
            let Some((name, value)) = piece.split_once('=') else {
                return Err(GateError::MissingValue(piece.trim().to_string()));
            };
            let (name, value) = (name.trim(), value.trim());
            let on = parse_go_bool(value)
                .ok_or_else(|| GateError::InvalidValue { name: name.to_string(), value: value.to_string() })?;
            pairs.insert(name.to_string(), on);
        }
        let mut raw = self.raw.clone();
        raw.extend(pairs);
        let mut enabled = self.enabled.clone();
        let warnings = apply(&raw, &mut enabled)?;
        self.raw = raw;
        self.enabled = enabled;
        Ok(warnings)
    }

    /// `Enabled`: the value set, else the gate's default (unknown names are off).
    pub fn enabled(&self, name: &str) -> bool {
        match self.enabled.get(name) {
            Some(on) => *on,
            None => gate(name).is_some_and(Gate::default),
        }
    }

    /// `AddMetrics`: `(name, stage label, enabled)` for every gate that exists at this version,
    /// the two special gates included, in name order.
    pub fn metric_rows(&self) -> Vec<(&'static str, &'static str, bool)> {
        let special = [(ALL_ALPHA, Stage::Alpha), (ALL_BETA, Stage::Beta)];
        let mut rows: Vec<(&'static str, &'static str, bool)> = special
            .iter()
            .map(|(n, stage)| (*n, stage.label(), self.enabled.get(n).copied().unwrap_or(false)))
            .chain(GATES.iter().filter_map(|g| g.current().map(|s| (g.name, s.stage.label(), self.enabled(g.name)))))
            .collect();
        rows.sort_unstable_by(|a, b| a.0.cmp(b.0));
        rows
    }

    /// Gates set away from their default whose setting edgesched does not act on
    /// ([`effects::takes_effect`]), for the one warning.
    pub fn without_effect(&self) -> Vec<&'static str> {
        self.enabled
            .iter()
            .filter(|(n, on)| **n != ALL_ALPHA && **n != ALL_BETA && gate(n).is_some_and(|g| g.default() != **on))
            .filter(|(n, _)| !effects::takes_effect(n))
            .map(|(n, _)| *n)
            .collect()
    }
}

/// `unsafeSetFromMap`: apply every raw pair to `enabled`, then check dependencies.
fn apply(raw: &BTreeMap<String, bool>, enabled: &mut BTreeMap<&'static str, bool>) -> Result<Vec<String>, GateError> {
    let mut errs = Vec::new();
    let mut warnings = Vec::new();
    for (name, &on) in raw {
        let (key, spec) = match name.as_str() {
            ALL_ALPHA => (ALL_ALPHA, None),
            ALL_BETA => (ALL_BETA, None),
            _ => match gate(name) {
                Some(g) => (g.name, Some(g.current())),
                None => {
                    // Upstream returns at the first unknown gate, with the errors so far.
                    errs.push(unrecognized(name));
                    return Err(GateError::Rejected(errs));
                }
            },
        };
        match spec {
            // AllAlpha / AllBeta: every gate of that stage not set explicitly.
            None => {
                let stage = if key == ALL_ALPHA { Stage::Alpha } else { Stage::Beta };
                for g in GATES.iter().filter(|g| g.current().is_some_and(|s| s.stage == stage)) {
                    enabled.entry(g.name).or_insert(on);
                }
                enabled.insert(key, on);
            }
            Some(Some(spec)) if spec.locked && spec.default != on => errs.push(locked(key, on, spec.default)),
            Some(None) => errs.push(pre_alpha(key, on)),
            Some(Some(spec)) => {
                enabled.insert(key, on);
                warnings.extend(setting_warning(key, on, spec.stage));
            }
        }
    }
    if !errs.is_empty() {
        return Err(GateError::Rejected(errs));
    }
    let is_on = |name: &str| enabled.get(name).copied().unwrap_or_else(|| gate(name).is_some_and(Gate::default));
    for g in GATES.iter().filter(|g| !g.depends_on.is_empty() && is_on(g.name)) {
        let off: Vec<&str> = g.depends_on.iter().copied().filter(|d| !is_on(d)).collect();
        if !off.is_empty() {
            errs.push(disabled_dependencies(g.name, &off));
        }
    }
    if errs.is_empty() {
        Ok(warnings)
    } else {
        Err(GateError::Rejected(errs))
    }
}

/// `strconv.ParseBool`.
fn parse_go_bool(v: &str) -> Option<bool> {
    match v {
        "1" | "t" | "T" | "true" | "TRUE" | "True" => Some(true),
        "0" | "f" | "F" | "false" | "FALSE" | "False" => Some(false),
        _ => None,
    }
}

#[cfg(test)]
mod tests;
