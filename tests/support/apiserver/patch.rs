//! The three patch flavours clients send: JSON merge patch (RFC 7386), strategic merge patch
//! (merge patch, except the lists of [`MERGE_KEYS`] merge by their key as `patchMergeKey`
//! declares, and `$setElementOrder`/`$retainKeys` directives are ignored) and JSON patch (RFC 6902).

use serde_json::{Map, Value};

/// RFC 7386: objects merge recursively, `null` deletes, everything else replaces.
pub fn merge_patch(target: &mut Value, patch: &Value) {
    let Value::Object(patch_map) = patch else {
        *target = patch.clone();
        return;
    };
    if !target.is_object() {
        *target = Value::Object(Map::new());
    }
    if let Value::Object(t) = target {
        for (k, v) in patch_map {
            if v.is_null() {
                t.remove(k);
            } else {
                merge_patch(t.entry(k.clone()).or_insert(Value::Null), v);
            }
        }
    }
}

/// Whether a strategic-merge directive key (`$setElementOrder/...`, `$retainKeys`, `$patch`).
fn is_directive(key: &str) -> bool {
    key.starts_with('$')
}

/// Lists merged by a key: (path from the root, merge key). Besides conditions: a pod's
/// `status.resourceClaimStatuses` by `name` and a ResourceClaim's `status.reservedFor` by `uid`
/// (`patchMergeKey` in `k8s.io/api/core/v1/types.go` and `k8s.io/api/resource/v1/types.go`).
const MERGE_KEYS: &[(&[&str], &str)] =
    &[(&["status", "conditions"], "type"), (&["status", "resourceClaimStatuses"], "name"), (&["status", "reservedFor"], "uid")];

fn merge_key_at(path: &[String]) -> Option<&'static str> {
    MERGE_KEYS.iter().find(|(p, _)| p.len() == path.len() && p.iter().zip(path).all(|(a, b)| a == b)).map(|(_, k)| *k)
}

/// Merge `patch` items into `target` items by `key`; an item with `"$patch": "delete"` removes.
fn merge_list_by_key(target: &mut Vec<Value>, patch: &[Value], key: &str) {
    for item in patch {
        let id = item.get(key).cloned();
        let pos = target.iter().position(|t| id.is_some() && t.get(key) == id.as_ref());
        let delete = item.get("$patch").and_then(Value::as_str) == Some("delete");
        match (pos, delete) {
            (Some(i), true) => {
                target.remove(i);
            }
            (None, true) => {}
            (Some(i), false) => strategic_at(&mut target[i], item, &mut Vec::new()),
            (None, false) => {
                let mut fresh = Value::Object(Map::new());
                strategic_at(&mut fresh, item, &mut Vec::new());
                target.push(fresh);
            }
        }
    }
}

fn strategic_at(target: &mut Value, patch: &Value, path: &mut Vec<String>) {
    let Value::Object(patch_map) = patch else {
        *target = patch.clone();
        return;
    };
    if !target.is_object() {
        *target = Value::Object(Map::new());
    }
    let Value::Object(t) = target else { return };
    for (k, v) in patch_map.iter().filter(|(k, _)| !is_directive(k)) {
        path.push(k.clone());
        if v.is_null() {
            t.remove(k);
        } else if let (Some(key), Value::Array(items)) = (merge_key_at(path), v) {
            let slot = t.entry(k.clone()).or_insert_with(|| Value::Array(Vec::new()));
            if !slot.is_array() {
                *slot = Value::Array(Vec::new());
            }
            if let Value::Array(existing) = slot {
                merge_list_by_key(existing, items, key);
            }
        } else {
            strategic_at(t.entry(k.clone()).or_insert(Value::Null), v, path);
        }
        path.pop();
    }
}

/// Strategic merge patch for the built-in types this server needs.
pub fn strategic_merge_patch(target: &mut Value, patch: &Value) {
    strategic_at(target, patch, &mut Vec::new());
}

/// Decode one RFC 6901 pointer token.
fn unescape(token: &str) -> String {
    token.replace("~1", "/").replace("~0", "~")
}

/// Split a pointer into (parent pointer, last token).
fn split_pointer(pointer: &str) -> Result<(String, String), String> {
    let idx = pointer.rfind('/').ok_or_else(|| format!("invalid JSON pointer {pointer:?}"))?;
    Ok((pointer[..idx].to_string(), unescape(&pointer[idx + 1..])))
}

fn add(doc: &mut Value, pointer: &str, value: Value) -> Result<(), String> {
    if pointer.is_empty() {
        *doc = value;
        return Ok(());
    }
    let (parent, last) = split_pointer(pointer)?;
    match doc.pointer_mut(&parent) {
        Some(Value::Object(m)) => {
            m.insert(last, value);
            Ok(())
        }
        Some(Value::Array(a)) => {
            let i = if last == "-" { a.len() } else { last.parse::<usize>().map_err(|_| format!("bad index {last:?}"))? };
            if i > a.len() {
                return Err(format!("index {i} out of bounds"));
            }
            a.insert(i, value);
            Ok(())
        }
        _ => Err(format!("doc is missing path: {pointer:?}")),
    }
}

fn remove(doc: &mut Value, pointer: &str) -> Result<Value, String> {
    let (parent, last) = split_pointer(pointer)?;
    let missing = || format!("doc is missing path: {pointer:?}");
    match doc.pointer_mut(&parent) {
        Some(Value::Object(m)) => m.remove(&last).ok_or_else(missing),
        Some(Value::Array(a)) => {
            let i = last.parse::<usize>().map_err(|_| missing())?;
            if i >= a.len() {
                return Err(missing());
            }
            Ok(a.remove(i))
        }
        _ => Err(missing()),
    }
}

/// RFC 6902 `add`/`remove`/`replace`/`move`/`copy`/`test`; the error is the 422/500 message.
pub fn json_patch(doc: &mut Value, ops: &Value) -> Result<(), String> {
    let ops = ops.as_array().ok_or("json patch must be an array")?;
    for op in ops {
        let path = op["path"].as_str().ok_or("missing path")?;
        match op["op"].as_str().unwrap_or("") {
            "add" => add(doc, path, op["value"].clone())?,
            "remove" => {
                remove(doc, path)?;
            }
            "replace" => {
                remove(doc, path)?;
                add(doc, path, op["value"].clone())?;
            }
            "move" => {
                let from = op["from"].as_str().ok_or("missing from")?;
                let v = remove(doc, from)?;
                add(doc, path, v)?;
            }
            "copy" => {
                let from = op["from"].as_str().ok_or("missing from")?;
                let v = doc.pointer(from).cloned().ok_or_else(|| format!("doc is missing from path: {from:?}"))?;
                add(doc, path, v)?;
            }
            "test" => {
                if doc.pointer(path) != Some(&op["value"]) {
                    return Err(format!("testing value {path} failed"));
                }
            }
            other => return Err(format!("Unexpected kind: {other}")),
        }
    }
    Ok(())
}
