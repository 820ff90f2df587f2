//! JSON-pointer walking shared by the decoder mutation tests (`decode_mutations.rs`,
//! `pod_wire.rs`): both mutate real objects at every path and compare decoders.

use serde_json::Value;

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
