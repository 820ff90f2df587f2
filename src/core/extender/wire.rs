//! The extender protocol's documents (staging/src/k8s.io/kube-scheduler/extender/v1/types.go).
//!
//! Those Go types carry no JSON tags, so requests use the Go field names (`Pod`, `NodeNames`,
//! `FailedNodes`, …) and a nil pointer or map is sent as `null`. Replies are decoded the way Go's
//! `encoding/json` decodes into them: a key matches its field exactly or, failing that, ignoring
//! case (extenders written in other languages often answer `nodeNames`), unknown keys are
//! ignored, and `null` is the zero value.

use serde_json::{json, Map, Value};
use std::collections::BTreeMap;

/// `ExtenderArgs`: the pod and either the candidate nodes (`Nodes`, a NodeList) or, for
/// `nodeCacheCapable` extenders, only their names (`NodeNames`).
pub fn extender_args(pod: &Value, nodes: Option<Vec<Value>>, node_names: Option<Vec<&str>>) -> Value {
    json!({
        "Pod": pod,
        "Nodes": nodes.map(|items| json!({ "metadata": {}, "items": items })),
        "NodeNames": node_names,
    })
}

/// Victims on one node as sent in `ExtenderPreemptionArgs`: full pods (`Victims`) or only their
/// UIDs (`MetaVictims`, for `nodeCacheCapable` extenders).
pub enum VictimsDoc {
    Full { pods: Vec<Value>, pdb_violations: i64 },
    Meta { uids: Vec<String>, pdb_violations: i64 },
}

/// `ExtenderPreemptionArgs`: exactly one of the two maps is set, the other is `null`.
pub fn preemption_args(pod: &Value, victims: Vec<(String, VictimsDoc)>, node_cache_capable: bool) -> Value {
    let mut map = Map::new();
    for (node, v) in victims {
        let doc = match v {
            VictimsDoc::Full { pods, pdb_violations } => json!({ "Pods": pods, "NumPDBViolations": pdb_violations }),
            VictimsDoc::Meta { uids, pdb_violations } => json!({
                "Pods": uids.into_iter().map(|u| json!({ "UID": u })).collect::<Vec<_>>(),
                "NumPDBViolations": pdb_violations,
            }),
        };
        map.insert(node, doc);
    }
    if node_cache_capable {
        json!({ "Pod": pod, "NodeNameToVictims": null, "NodeNameToMetaVictims": map })
    } else {
        json!({ "Pod": pod, "NodeNameToVictims": map, "NodeNameToMetaVictims": null })
    }
}

/// `ExtenderBindingArgs`.
pub fn binding_args(name: &str, namespace: &str, uid: &str, node: &str) -> Value {
    json!({ "PodName": name, "PodNamespace": namespace, "PodUID": uid, "Node": node })
}

/// `ExtenderFilterResult`.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct FilterReply {
    /// `Nodes.items[].metadata.name` (only the names matter: nodes are matched to the input).
    pub nodes: Option<Vec<String>>,
    pub node_names: Option<Vec<String>>,
    pub failed: BTreeMap<String, String>,
    pub failed_and_unresolvable: BTreeMap<String, String>,
    pub error: String,
}

/// One `MetaVictims` entry of an `ExtenderPreemptionResult`; `None` when the extender sent `null`.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct MetaVictims {
    pub uids: Vec<String>,
    pub pdb_violations: i64,
}

/// Why a reply could not be decoded (the body is not the document the protocol defines).
pub fn decode_error(what: &str, detail: impl std::fmt::Display) -> String {
    format!("decoding the extender's {what} reply: {detail}")
}

/// A field as Go's decoder finds it: exact name first, then ignoring ASCII case; `null` is absent.
fn field<'a>(obj: &'a Map<String, Value>, name: &str) -> Option<&'a Value> {
    obj.get(name).or_else(|| obj.iter().find(|(k, _)| k.eq_ignore_ascii_case(name)).map(|(_, v)| v)).filter(|v| !v.is_null())
}

fn object<'a>(v: &'a Value, what: &str) -> Result<&'a Map<String, Value>, String> {
    v.as_object().ok_or_else(|| decode_error(what, format!("expected a JSON object, got {}", kind(v))))
}

fn kind(v: &Value) -> &'static str {
    match v {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "an array",
        Value::Object(_) => "an object",
    }
}

fn string(v: Option<&Value>, what: &str, at: &str) -> Result<String, String> {
    match v {
        None => Ok(String::new()),
        Some(Value::String(s)) => Ok(s.clone()),
        Some(other) => Err(decode_error(what, format!("{at}: expected a string, got {}", kind(other)))),
    }
}

fn int(v: Option<&Value>, what: &str, at: &str) -> Result<i64, String> {
    match v {
        None => Ok(0),
        Some(Value::Number(n)) => n.as_i64().ok_or_else(|| decode_error(what, format!("{at}: {n} is not a 64-bit integer"))),
        Some(other) => Err(decode_error(what, format!("{at}: expected an integer, got {}", kind(other)))),
    }
}

fn array<'a>(v: &'a Value, what: &str, at: &str) -> Result<&'a Vec<Value>, String> {
    v.as_array().ok_or_else(|| decode_error(what, format!("{at}: expected an array, got {}", kind(v))))
}

fn string_map(v: Option<&Value>, what: &str, at: &str) -> Result<BTreeMap<String, String>, String> {
    let Some(v) = v else { return Ok(BTreeMap::new()) };
    let obj = v.as_object().ok_or_else(|| decode_error(what, format!("{at}: expected an object, got {}", kind(v))))?;
    let mut out = BTreeMap::new();
    for (k, v) in obj {
        out.insert(k.clone(), string(Some(v).filter(|v| !v.is_null()), what, &format!("{at}.{k}"))?);
    }
    Ok(out)
}

fn parse(body: &[u8], what: &str) -> Result<Value, String> {
    serde_json::from_slice(body).map_err(|e| decode_error(what, e))
}

/// Decode an `ExtenderFilterResult`.
pub fn decode_filter(body: &[u8]) -> Result<FilterReply, String> {
    const W: &str = "filter";
    let v = parse(body, W)?;
    let obj = object(&v, W)?;
    let nodes = match field(obj, "Nodes") {
        None => None,
        Some(list) => {
            let list = object(list, W)?;
            let mut names = Vec::new();
            if let Some(items) = field(list, "items") {
                for (i, item) in array(items, W, "Nodes.items")?.iter().enumerate() {
                    let at = format!("Nodes.items[{i}]");
                    let meta = object(item, W)?.get("metadata").and_then(Value::as_object);
                    names.push(string(meta.and_then(|m| field(m, "name")), W, &format!("{at}.metadata.name"))?);
                }
            }
            Some(names)
        }
    };
    let node_names = match field(obj, "NodeNames") {
        None => None,
        Some(v) => Some(
            array(v, W, "NodeNames")?
                .iter()
                .enumerate()
                .map(|(i, n)| string(Some(n), W, &format!("NodeNames[{i}]")))
                .collect::<Result<Vec<_>, _>>()?,
        ),
    };
    Ok(FilterReply {
        nodes,
        node_names,
        failed: string_map(field(obj, "FailedNodes"), W, "FailedNodes")?,
        failed_and_unresolvable: string_map(field(obj, "FailedAndUnresolvableNodes"), W, "FailedAndUnresolvableNodes")?,
        error: string(field(obj, "Error"), W, "Error")?,
    })
}

/// Decode a `HostPriorityList`: `(host, score)` pairs in the extender's order (`null` = empty).
pub fn decode_priorities(body: &[u8]) -> Result<Vec<(String, i64)>, String> {
    const W: &str = "prioritize";
    let v = parse(body, W)?;
    if v.is_null() {
        return Ok(Vec::new());
    }
    let mut out = Vec::new();
    for (i, item) in array(&v, W, "list")?.iter().enumerate() {
        let obj = object(item, W)?;
        let host = string(field(obj, "Host"), W, &format!("[{i}].Host"))?;
        let score = int(field(obj, "Score"), W, &format!("[{i}].Score"))?;
        out.push((host, score));
    }
    Ok(out)
}

/// Decode an `ExtenderPreemptionResult`: node → victims (`None` for a `null` entry).
pub fn decode_preemption(body: &[u8]) -> Result<BTreeMap<String, Option<MetaVictims>>, String> {
    const W: &str = "preempt";
    let v = parse(body, W)?;
    let obj = object(&v, W)?;
    let mut out = BTreeMap::new();
    let Some(map) = field(obj, "NodeNameToMetaVictims") else { return Ok(out) };
    let map = object(map, W)?;
    for (node, victims) in map {
        if victims.is_null() {
            out.insert(node.clone(), None);
            continue;
        }
        let at = format!("NodeNameToMetaVictims.{node}");
        let vobj = object(victims, W)?;
        let mut uids = Vec::new();
        if let Some(pods) = field(vobj, "Pods") {
            for (i, p) in array(pods, W, &format!("{at}.Pods"))?.iter().enumerate() {
                if p.is_null() {
                    continue;
                }
                uids.push(string(field(object(p, W)?, "UID"), W, &format!("{at}.Pods[{i}].UID"))?);
            }
        }
        let pdb_violations = int(field(vobj, "NumPDBViolations"), W, &format!("{at}.NumPDBViolations"))?;
        out.insert(node.clone(), Some(MetaVictims { uids, pdb_violations }));
    }
    Ok(out)
}

/// Decode an `ExtenderBindingResult`: its `Error` (empty on success).
pub fn decode_binding(body: &[u8]) -> Result<String, String> {
    const W: &str = "bind";
    let v = parse(body, W)?;
    string(field(object(&v, W)?, "Error"), W, "Error")
}
