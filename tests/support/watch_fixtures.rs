//! The recorded watch events and JSON-pointer walking shared by the decoder mutation tests
//! (`decode_mutations.rs`, `pod_wire.rs`): both mutate real objects at every path and compare
//! decoders.

use serde_json::Value;
use std::path::Path;

/// The objects of every recorded watch event under `tests/fixtures/watch`, by event type.
pub fn watch_objects() -> Vec<(String, Value)> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/watch");
    let mut files: Vec<_> = std::fs::read_dir(&dir).expect("fixtures").map(|e| e.expect("entry").path()).collect();
    files.sort();
    let mut out = Vec::new();
    for f in files {
        let text = std::fs::read_to_string(&f).expect("fixture");
        for line in text.lines().filter(|l| !l.trim().is_empty()) {
            let event: Value = serde_json::from_str(line).unwrap_or_else(|e| panic!("{}: {e}", f.display()));
            out.push((event["type"].as_str().unwrap_or_default().to_string(), event["object"].clone()));
        }
    }
    out
}

/// `token` escaped for a JSON pointer (RFC 6901: `~` → `~0`, `/` → `~1`).
pub fn escape_pointer(token: &str) -> String {
    token.replace('~', "~0").replace('/', "~1")
}

/// Every JSON pointer into `v` (the root excluded). `managedFields` is not descended into: no
/// type reads it, and its hundreds of entries would only slow the tests down.
pub fn paths(v: &Value, at: &str, out: &mut Vec<String>) {
    match v {
        Value::Object(m) => {
            for (k, child) in m {
                let p = format!("{at}/{}", escape_pointer(k));
                out.push(p.clone());
                if k != "managedFields" {
                    paths(child, &p, out);
                }
            }
        }
        Value::Array(items) => {
            for (i, child) in items.iter().enumerate() {
                let p = format!("{at}/{i}");
                out.push(p.clone());
                paths(child, &p, out);
            }
        }
        _ => {}
    }
}
