//! An optional second opinion on a scrape: with `EDGESCHED_PROM_CROSSCHECK=python`, the scrape
//! tests also parse each scrape with the Prometheus project's Python client
//! (`prometheus_client.parser`, PyPI `prometheus-client`) and require it to agree with
//! [`super::promtext`] on every family and sample. Without the variable nothing here runs, so
//! the tests need nothing but the Rust toolchain; CI sets it after installing the package.

use super::promtext::{Family, Kind};
use serde_json::Value;
use std::io::Write;
use std::process::{Command, Stdio};

/// The environment variable that asks for the cross-check, and the value that does.
const SWITCH: (&str, &str) = ("EDGESCHED_PROM_CROSSCHECK", "python");

/// The parser harness: families as JSON (values as `repr` strings, so `inf`/`nan` survive).
const SCRIPT: &str = r#"
import json, sys
from prometheus_client.parser import text_string_to_metric_families
out = []
for f in text_string_to_metric_families(sys.stdin.read()):
    out.append({"name": f.name, "type": f.type, "help": f.documentation,
                "samples": [{"name": s.name, "labels": s.labels, "value": repr(s.value)} for s in f.samples]})
print(json.dumps(out))
"#;

/// Whether this run asked for the cross-check.
pub fn requested() -> bool {
    std::env::var(SWITCH.0).is_ok_and(|v| v == SWITCH.1)
}

/// When requested, parse `text` with prometheus_client and panic unless it sees the same
/// families (name, type, help) with the same samples (name, labels, value) as `ours`.
pub fn check(text: &str, ours: &[Family]) {
    if !requested() {
        return;
    }
    let theirs = python_view(text).unwrap_or_else(|e| panic!("{}={}: {e}", SWITCH.0, SWITCH.1));
    let ours: Vec<Comparable> = ours.iter().map(Comparable::ours).collect();
    assert_eq!(ours.len(), theirs.len(), "family count differs from prometheus_client's");
    for (a, b) in ours.iter().zip(&theirs) {
        assert_eq!(a, b, "prometheus_client reads a family differently");
    }
}

/// A family in the terms both parsers share. prometheus_client names a counter's family without
/// `_total` and each of its samples with it, where the Go reader (and `promtext`) keeps the names
/// as written; both sides drop a counter's `_total` here. Values are compared by their bits, so
/// NaN matches NaN.
#[derive(Debug, PartialEq)]
struct Comparable {
    name: String,
    kind: String,
    help: String,
    samples: Vec<Line<u64>>,
}

/// A sample: its name, its labels and its value (as a float, or its bits for comparison).
type Line<V> = (String, Vec<(String, String)>, V);

impl Comparable {
    fn new(name: &str, kind: &str, help: &str, samples: Vec<Line<f64>>) -> Comparable {
        let counter = kind == Kind::Counter.as_str();
        let plain = |n: &str| if counter { n.strip_suffix("_total").unwrap_or(n).to_string() } else { n.to_string() };
        let bits = |v: f64| if v.is_nan() { f64::NAN.to_bits() } else { v.to_bits() };
        Comparable {
            name: plain(name),
            kind: kind.to_string(),
            help: help.to_string(),
            samples: samples
                .into_iter()
                .map(|(n, mut labels, v)| {
                    labels.sort();
                    (plain(&n), labels, bits(v))
                })
                .collect(),
        }
    }

    fn ours(f: &Family) -> Comparable {
        let samples = f.samples.iter().map(|s| (s.name.clone(), s.labels.clone(), s.value)).collect();
        Comparable::new(&f.name, f.kind.as_str(), &f.help, samples)
    }
}

/// prometheus_client's families, less those without samples (which the Go reader drops).
fn python_view(text: &str) -> Result<Vec<Comparable>, String> {
    let mut child = Command::new("python3")
        .args(["-B", "-c", SCRIPT])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .map_err(|e| format!("python3: {e}"))?;
    child.stdin.take().ok_or("python3 has no stdin")?.write_all(text.as_bytes()).map_err(|e| e.to_string())?;
    let out = child.wait_with_output().map_err(|e| e.to_string())?;
    if !out.status.success() {
        return Err(format!("prometheus_client failed: {}", String::from_utf8_lossy(&out.stderr)));
    }
    let families: Vec<Value> = serde_json::from_slice(&out.stdout).map_err(|e| format!("harness output: {e}"))?;
    let text = |v: &Value| v.as_str().map(str::to_string).ok_or_else(|| format!("not a string: {v}"));
    let mut view = Vec::new();
    for f in &families {
        let mut samples = Vec::new();
        for s in f["samples"].as_array().ok_or("samples is not a list")? {
            let labels = s["labels"].as_object().ok_or("labels is not an object")?;
            let labels = labels.iter().map(|(k, v)| Ok((k.clone(), text(v)?))).collect::<Result<Vec<_>, String>>()?;
            samples.push((text(&s["name"])?, labels, python_float(&text(&s["value"])?)?));
        }
        // prometheus_client calls a family without a TYPE line `unknown` (OpenMetrics' word).
        let kind = match text(&f["type"])?.as_str() {
            "unknown" => Kind::Untyped.as_str().to_string(),
            other => other.to_string(),
        };
        if !samples.is_empty() {
            view.push(Comparable::new(&text(&f["name"])?, &kind, &text(&f["help"])?, samples));
        }
    }
    Ok(view)
}

/// A float as Python's `repr` prints it.
fn python_float(repr: &str) -> Result<f64, String> {
    match repr {
        "inf" => Ok(f64::INFINITY),
        "-inf" => Ok(f64::NEG_INFINITY),
        "nan" => Ok(f64::NAN),
        v => v.parse().map_err(|e| format!("value {v:?}: {e}")),
    }
}
