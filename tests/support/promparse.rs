//! Prometheus text exposition parsed by the Prometheus project's own parser
//! (`prometheus_client.parser.text_string_to_metric_families`, PyPI `prometheus-client`), so the
//! scrape tests check `/metrics` against a parser written elsewhere. CI installs the package
//! (`.ci/run`); without it the test fails and says how to install it.

use serde_json::Value;
use std::io::Write;
use std::process::{Command, Stdio};

/// The parser harness: families as JSON (values as strings, so `+Inf`/`NaN` survive).
const SCRIPT: &str = r#"
import json, sys
from prometheus_client.parser import text_string_to_metric_families
out = []
for f in text_string_to_metric_families(sys.stdin.read()):
    out.append({"name": f.name, "type": f.type, "help": f.documentation,
                "samples": [{"name": s.name, "labels": s.labels, "value": repr(s.value)} for s in f.samples]})
print(json.dumps(out))
"#;

/// One parsed family.
#[derive(Debug, Clone)]
pub struct Family {
    pub name: String,
    pub kind: String,
    pub help: String,
    pub samples: Vec<Sample>,
}

/// One sample of a family (a histogram's `_bucket`, `_sum` and `_count` lines are samples).
#[derive(Debug, Clone)]
pub struct Sample {
    pub name: String,
    pub labels: Vec<(String, String)>,
    pub value: f64,
}

impl Sample {
    pub fn label(&self, name: &str) -> Option<&str> {
        self.labels.iter().find(|(k, _)| k == name).map(|(_, v)| v.as_str())
    }
}

/// Parse `text`; `Err` carries the parser's complaint.
pub fn parse(text: &str) -> Result<Vec<Family>, String> {
    let mut child = Command::new("python3")
        .args(["-B", "-c", SCRIPT])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .map_err(|e| format!("python3: {e}"))?;
    child.stdin.take().ok_or("stdin")?.write_all(text.as_bytes()).map_err(|e| e.to_string())?;
    let out = child.wait_with_output().map_err(|e| e.to_string())?;
    let stderr = String::from_utf8_lossy(&out.stderr);
    if stderr.contains("No module named 'prometheus_client'") {
        return Err("the Prometheus parser is missing: python3 -m pip install prometheus-client".into());
    }
    if !out.status.success() {
        return Err(format!("prometheus_client rejected the text: {stderr}"));
    }
    let families: Vec<Value> = serde_json::from_slice(&out.stdout).map_err(|e| e.to_string())?;
    Ok(families
        .iter()
        .map(|f| Family {
            name: f["name"].as_str().unwrap_or_default().to_string(),
            kind: f["type"].as_str().unwrap_or_default().to_string(),
            help: f["help"].as_str().unwrap_or_default().to_string(),
            samples: f["samples"]
                .as_array()
                .map(|s| {
                    s.iter()
                        .map(|s| Sample {
                            name: s["name"].as_str().unwrap_or_default().to_string(),
                            labels: s["labels"]
                                .as_object()
                                .map(|l| l.iter().map(|(k, v)| (k.clone(), v.as_str().unwrap_or_default().to_string())).collect())
                                .unwrap_or_default(),
                            value: parse_value(s["value"].as_str().unwrap_or_default()),
                        })
                        .collect()
                })
                .unwrap_or_default(),
        })
        .collect())
}

fn parse_value(v: &str) -> f64 {
    match v {
        "inf" => f64::INFINITY,
        "-inf" => f64::NEG_INFINITY,
        "nan" => f64::NAN,
        v => v.parse().unwrap_or(f64::NAN),
    }
}
