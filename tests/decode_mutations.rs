//! Every field of the recorded wire objects in `tests/fixtures/` (watch events of kind clusters,
//! a NodeList, an ERROR Status), mutated the ways Go's decoder accepts, must still decode, and
//! decode to what client-go would see:
//!
//! - `null` at any depth is the zero value: for a struct field the same as leaving it out, for a
//!   list element the zero of its type, for a map value the zero of the value type (`"0"` for a
//!   quantity, as `Quantity.UnmarshalJSON` reads `null`);
//! - any field left out;
//! - unknown fields anywhere, keys in any order, strings written with `\u` escapes;
//! - any string replaced by a value this version does not know (enumerations stay strings);
//! - quantities as JSON numbers or with surrounding spaces (`Quantity.UnmarshalJSON`).
//!
//! Each mutated object is decoded the way the reflector decodes it: as the only item of a list
//! page. An object that loses its name is reported as undecodable; nothing else may be.

use edgesched::core::api::{Node, Object, Pod, Status};
use edgesched::core::gojson;
use edgesched::core::quantity::parse_milli;
use edgesched::shell::kube::decode::decode_list;
use serde::de::DeserializeOwned;
use serde::Serialize;
use serde_json::{json, Map, Value};
use std::path::Path;

#[path = "support/watch_fixtures.rs"]
mod watch_fixtures;
use watch_fixtures::{paths, watch_objects};

/// Fields whose JSON object is a Go map (a value's `null` is the value type's zero, not
/// "absent"), and among them the ones holding quantities.
const MAPS: &[&str] = &["labels", "annotations", "nodeSelector", "matchLabels", "selector", "disruptedPods"];
const QUANTITY_MAPS: &[&str] = &["requests", "limits", "overhead", "capacity", "allocatable", "allocatedResources"];

fn fixture(rel: &str) -> String {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures").join(rel);
    std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

fn parent_and_last(path: &str) -> (&str, String) {
    let (parent, last) = path.rsplit_once('/').expect("pointer");
    (parent, last.replace("~1", "/").replace("~0", "~"))
}

/// The name of the field holding the container of `path` (`requests` for
/// `/spec/containers/0/resources/requests/cpu`).
fn container_field(path: &str) -> String {
    let (parent, _) = parent_and_last(path);
    if parent.is_empty() {
        return String::new();
    }
    parent_and_last(parent).1
}

/// Go's zero value for what `original` is.
fn zero_like(original: &Value) -> Value {
    match original {
        Value::Object(_) => json!({}),
        Value::Array(_) => json!([]),
        Value::String(_) => json!(""),
        Value::Number(_) => json!(0),
        Value::Bool(_) => json!(false),
        Value::Null => Value::Null,
    }
}

fn with(v: &Value, path: &str, new: Value) -> Value {
    let mut v = v.clone();
    *v.pointer_mut(path).expect("path exists") = new;
    v
}

fn without(v: &Value, path: &str) -> Option<Value> {
    let (parent, last) = parent_and_last(path);
    let mut v = v.clone();
    let target = if parent.is_empty() { Some(&mut v) } else { v.pointer_mut(parent) };
    target?.as_object_mut()?.remove(&last)?;
    Some(v)
}

/// A quantity string as the JSON number it denotes, when it is one exactly.
fn as_number(q: &str) -> Option<Value> {
    let suffixes: [(&str, f64); 9] = [
        ("Ki", 1024.0),
        ("Mi", 1048576.0),
        ("Gi", 1073741824.0),
        ("m", 0.001),
        ("k", 1e3),
        ("M", 1e6),
        ("G", 1e9),
        ("", 1.0),
        ("Ti", 1099511627776.0),
    ];
    suffixes.iter().find_map(|(suffix, scale)| {
        let digits = q.strip_suffix(suffix)?;
        let n: u64 = digits.parse().ok()?;
        let value = n as f64 * scale;
        if value.fract() == 0.0 && value < 9.0e15 {
            Some(json!(value as u64))
        } else {
            Some(json!(value))
        }
    })
}

/// `v` serialized with every string character written as a `\u` escape and the keys of every
/// object in reverse order, plus an unknown field in every object that is not a map.
fn disguised(v: &Value, field: &str) -> String {
    match v {
        Value::String(s) => {
            let mut out = String::from("\"");
            for unit in s.encode_utf16() {
                out.push_str(&format!("\\u{unit:04x}"));
            }
            out.push('"');
            out
        }
        Value::Array(items) => format!("[{}]", items.iter().map(|i| disguised(i, field)).collect::<Vec<_>>().join(",")),
        Value::Object(m) => {
            let mut fields: Vec<String> =
                m.iter().rev().map(|(k, v)| format!("{}:{}", disguised(&json!(k), ""), disguised(v, k))).collect();
            if !MAPS.contains(&field) && !QUANTITY_MAPS.contains(&field) {
                fields.push(r#""zzNotAField":{"nested":[1,null,{"x":"y"}]}"#.to_string());
            }
            format!("{{{}}}", fields.join(","))
        }
        other => other.to_string(),
    }
}

/// How a kind is decoded: as a list item (`Object` kinds) or on its own (Status).
trait Decode: Sized {
    /// The decoded object as JSON, or `Err(why)` if it was refused.
    fn decode(text: &str) -> Result<Value, String>;
}

fn as_list_item<T: DeserializeOwned + Object + Serialize + 'static>(text: &str) -> Result<Value, String> {
    let body = format!(r#"{{"kind":"List","metadata":{{"resourceVersion":"1"}},"items":[{text}]}}"#);
    let page = decode_list::<T>(body.as_bytes()).map_err(|e| format!("the page failed: {e}"))?;
    match (page.items.first(), page.undecodable.first()) {
        (Some(obj), None) => Ok(serde_json::to_value(obj).expect("encodes")),
        (None, Some(u)) => Err(u.error.clone()),
        _ => Err("not exactly one object".to_string()),
    }
}

impl Decode for Pod {
    fn decode(text: &str) -> Result<Value, String> {
        as_list_item::<Pod>(text)
    }
}

impl Decode for Node {
    fn decode(text: &str) -> Result<Value, String> {
        as_list_item::<Node>(text)
    }
}

/// A BOOKMARK's object: a pod without a name, read on its own for its version.
struct Bookmark;

impl Decode for Bookmark {
    fn decode(text: &str) -> Result<Value, String> {
        gojson::from_str::<Pod>(text).map(|p| serde_json::to_value(p).expect("encodes")).map_err(|e| e.to_string())
    }
}

impl Decode for Status {
    fn decode(text: &str) -> Result<Value, String> {
        gojson::from_str::<Status>(text).map(|s| serde_json::to_value(s).expect("encodes")).map_err(|e| e.to_string())
    }
}

/// Whether losing `path` leaves the object without a name (then it must be refused, and only
/// because of that).
fn names_it(path: &str, named: bool) -> bool {
    named && (path == "/metadata" || path == "/metadata/name")
}

fn decode_ok<T: Decode>(what: &str, v: &Value, path: &str, named: bool) -> Option<Value> {
    let text = v.to_string();
    match T::decode(&text) {
        Ok(got) => {
            assert!(!names_it(path, named), "{what} at {path}: an object without a name was accepted");
            Some(got)
        }
        Err(e) if names_it(path, named) => {
            assert_eq!(e, "object has no metadata.name", "{what} at {path}");
            None
        }
        Err(e) => panic!("{what} at {path} was refused: {e}\n{text}"),
    }
}

/// Apply every mutation to `object` and check the outcomes. Returns how many variants were tried.
fn mutate_all<T: Decode>(label: &str, object: &Value, named: bool) -> usize {
    let original = T::decode(&object.to_string()).unwrap_or_else(|e| panic!("{label}: the fixture itself fails: {e}"));
    assert_eq!(
        T::decode(&disguised(object, "")),
        Ok(original.clone()),
        "{label}: escapes, key order and unknown fields change nothing"
    );
    let mut all = Vec::new();
    paths(object, "", &mut all);
    let mut tried = 1;
    for path in &all {
        let here = object.pointer(path).expect("path");
        let (_, last) = parent_and_last(path);
        let in_array = last.parse::<usize>().is_ok() && object.pointer(parent_and_last(path).0).is_some_and(Value::is_array);
        let field = container_field(path);
        // Whether the type reads this field at all (ignored fields may decode to anything).
        let typed = original.pointer(path).is_some();
        let map_value = !in_array && (MAPS.contains(&field.as_str()) || QUANTITY_MAPS.contains(&field.as_str()));

        // null: the zero value.
        let nulled = decode_ok::<T>(&format!("{label}: null"), &with(object, path, Value::Null), path, named);
        let expected = if in_array {
            Some(with(object, path, zero_like(here)))
        } else if QUANTITY_MAPS.contains(&field.as_str()) && here.is_string() {
            Some(with(object, path, json!("0")))
        } else if map_value {
            Some(with(object, path, zero_like(here)))
        } else {
            without(object, path)
        };
        if let (Some(nulled), Some(expected)) = (nulled, expected) {
            if let Some(want) = decode_ok::<T>(&format!("{label}: Go's zero"), &expected, path, named) {
                assert_eq!(nulled, want, "{label}: null at {path} is not the zero value");
            }
        }
        // Left out.
        if let Some(removed) = without(object, path) {
            decode_ok::<T>(&format!("{label}: omitted"), &removed, path, named);
        }
        // A string this version does not know.
        if here.is_string() && !path.ends_with("/name") && !QUANTITY_MAPS.contains(&field.as_str()) {
            decode_ok::<T>(&format!("{label}: unknown string"), &with(object, path, json!("SomethingNew")), path, false);
        }
        // Quantities: as numbers and with spaces, same value.
        if let (true, Some(q)) = (QUANTITY_MAPS.contains(&field.as_str()), here.as_str()) {
            let want = parse_milli(q).expect("fixture quantity");
            let padded = decode_ok::<T>(&format!("{label}: padded"), &with(object, path, json!(format!(" {q} "))), path, named);
            if typed {
                assert_eq!(padded.and_then(|p| p.pointer(path).cloned()), Some(json!(q)), "{label}: padded quantity at {path}");
            }
            if let Some(number) = as_number(q) {
                let got = decode_ok::<T>(&format!("{label}: number"), &with(object, path, number.clone()), path, named)
                    .and_then(|v| v.pointer(path).and_then(Value::as_str).map(str::to_string));
                if typed {
                    let got = got.unwrap_or_else(|| panic!("{label}: numeric quantity at {path} lost"));
                    assert_eq!(parse_milli(&got), Ok(want), "{label}: {number} at {path} read as {got:?}");
                }
            }
            tried += 2;
        }
        tried += 3;
    }
    tried
}

#[test]
fn recorded_pods_decode_under_every_go_accepted_mutation() {
    let mut tried = 0;
    let mut objects = 0;
    for (event_type, object) in watch_objects() {
        if event_type == "ERROR" {
            continue;
        }
        let label = format!("{event_type} pod {}", object["metadata"]["name"]);
        // Bookmarks carry no name; they are decoded for their version only.
        tried += if event_type == "BOOKMARK" {
            mutate_all::<Bookmark>(&label, &object, false)
        } else {
            mutate_all::<Pod>(&label, &object, true)
        };
        objects += 1;
    }
    assert!(objects >= 15 && tried > 3000, "{objects} objects, {tried} variants");
}

#[test]
fn recorded_node_list_decodes_under_every_go_accepted_mutation() {
    let list: Value = serde_json::from_str(&fixture("lists/nodelist-kind-v1.25.json")).expect("fixture");
    let node = &list["items"][0];
    let tried = mutate_all::<Node>("node", node, true);
    assert!(tried > 200, "{tried}");
    // The page itself: a null or absent envelope field is an empty one.
    for (path, value) in [("/metadata", Value::Null), ("/metadata/resourceVersion", Value::Null), ("/items", Value::Null)] {
        let page = decode_list::<Node>(with(&list, path, value).to_string().as_bytes()).expect("page");
        assert!(page.undecodable.is_empty(), "{path}");
    }
    let mut no_item_versions = list.clone();
    if let Some(meta) = no_item_versions.pointer_mut("/items/0/metadata").and_then(Value::as_object_mut) {
        meta.remove("resourceVersion");
    }
    let page = decode_list::<Node>(no_item_versions.to_string().as_bytes()).expect("page");
    assert_eq!((page.items.len(), page.metadata.resource_version.as_str()), (1, "5353"));
}

#[test]
fn recorded_error_status_decodes_under_every_go_accepted_mutation() {
    let errors: Vec<Value> = watch_objects().into_iter().filter(|(t, _)| t == "ERROR").map(|(_, o)| o).collect();
    assert!(!errors.is_empty());
    for status in errors {
        mutate_all::<Status>("ERROR status", &status, false);
        let nulls: Map<String, Value> = status.as_object().expect("object").keys().map(|k| (k.clone(), Value::Null)).collect();
        let zero = Status::decode(&Value::Object(nulls).to_string()).expect("all-null status");
        assert_eq!(zero["code"], 0);
    }
}
