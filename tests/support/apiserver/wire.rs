//! JSON encoding as the API server writes it: compact bodies end with "\n", pretty bodies (curl,
//! browsers, `?pretty=true`) use two spaces and no newline, and top-level keys come in Go struct
//! order (`kind`, `apiVersion`, `metadata`, `spec`, `status`, ...) rather than alphabetically.
//! Also the URL-safe base64 used by `continue` tokens and the standard one used by kubeconfigs.

use serde_json::Value;

/// Keys that Go structs emit first, in this order; all others follow alphabetically. (These
/// are `static`s: the orders are told apart by address, which a `const` does not guarantee.)
static LEADING_KEYS: &[&str] = &["type", "kind", "apiVersion", "metadata", "spec", "items", "status", "object"];
/// `metav1.Status` field order.
static STATUS_KEYS: &[&str] = &["kind", "apiVersion", "metadata", "status", "message", "reason", "details", "code"];
/// `metav1.StatusDetails` field order.
static DETAILS_KEYS: &[&str] = &["name", "group", "kind", "uid", "causes", "retryAfterSeconds"];
/// `metav1.StatusCause` field order (its `type` is written as `reason`).
static CAUSE_KEYS: &[&str] = &["reason", "message", "field"];
/// `metav1.ObjectMeta` / `metav1.ListMeta` field order.
static META_KEYS: &[&str] = &[
    "name",
    "generateName",
    "namespace",
    "selfLink",
    "uid",
    "resourceVersion",
    "continue",
    "remainingItemCount",
    "generation",
    "creationTimestamp",
    "deletionTimestamp",
    "deletionGracePeriodSeconds",
    "labels",
    "annotations",
    "ownerReferences",
    "finalizers",
    "managedFields",
];

/// Which key order a map nested under `key` uses.
fn order_for(value: &Value, parent: &'static [&'static str], key: &str) -> &'static [&'static str] {
    if value.get("kind").and_then(Value::as_str) == Some("Status") {
        STATUS_KEYS
    } else if std::ptr::eq(parent, STATUS_KEYS) && key == "details" {
        DETAILS_KEYS
    } else if std::ptr::eq(parent, DETAILS_KEYS) && key == "causes" {
        CAUSE_KEYS
    } else if key == "metadata" {
        META_KEYS
    } else {
        LEADING_KEYS
    }
}

struct OrderedJson<'a> {
    value: &'a Value,
    order: &'static [&'static str],
}

impl OrderedJson<'_> {
    fn root(value: &Value) -> OrderedJson<'_> {
        OrderedJson { value, order: order_for(value, LEADING_KEYS, "") }
    }
}

impl serde::Serialize for OrderedJson<'_> {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        use serde::ser::{SerializeMap, SerializeSeq};
        match self.value {
            Value::Object(map) => {
                let mut out = s.serialize_map(Some(map.len()))?;
                let leading = self.order.iter().filter_map(|k| map.get_key_value(*k));
                let rest = map.iter().filter(|(k, _)| !self.order.contains(&k.as_str()));
                for (k, v) in leading.chain(rest) {
                    out.serialize_entry(k, &OrderedJson { value: v, order: order_for(v, self.order, k) })?;
                }
                out.end()
            }
            Value::Array(items) => {
                let mut out = s.serialize_seq(Some(items.len()))?;
                for item in items {
                    // The causes list hands its order to its items; other lists start afresh.
                    let order = if std::ptr::eq(self.order, CAUSE_KEYS) { CAUSE_KEYS } else { order_for(item, LEADING_KEYS, "") };
                    out.serialize_element(&OrderedJson { value: item, order })?;
                }
                out.end()
            }
            other => other.serialize(s),
        }
    }
}

/// Body bytes for `value`: compact with a trailing newline, or pretty without one.
pub fn encode(value: &Value, pretty: bool) -> Vec<u8> {
    if pretty {
        serde_json::to_vec_pretty(&OrderedJson::root(value)).unwrap()
    } else {
        let mut v = serde_json::to_vec(&OrderedJson::root(value)).unwrap();
        v.push(b'\n');
        v
    }
}

/// One watch line: compact JSON plus "\n".
pub fn encode_line(value: &Value) -> Vec<u8> {
    encode(value, false)
}

const STD: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
const URL: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";

fn b64(input: &[u8], alphabet: &[u8; 64], pad: bool) -> String {
    let mut out = String::new();
    for chunk in input.chunks(3) {
        let n = chunk.iter().enumerate().fold(0u32, |acc, (i, b)| acc | (u32::from(*b) << (16 - 8 * i)));
        for i in 0..=chunk.len() {
            out.push(char::from(alphabet[((n >> (18 - 6 * i)) & 63) as usize]));
        }
        if pad {
            for _ in chunk.len()..3 {
                out.push('=');
            }
        }
    }
    out
}

/// Standard padded base64 (kubeconfig `*-data` fields).
pub fn base64_std(input: &[u8]) -> String {
    b64(input, STD, true)
}

/// Unpadded URL-safe base64 (Go `base64.RawURLEncoding`, as in continue tokens).
pub fn base64_url(input: &[u8]) -> String {
    b64(input, URL, false)
}

/// Decode unpadded or padded URL-safe base64; `None` on any invalid character.
pub fn base64_url_decode(input: &str) -> Option<Vec<u8>> {
    let mut bits = 0u32;
    let mut nbits = 0;
    let mut out = Vec::new();
    for c in input.bytes().filter(|c| *c != b'=') {
        let v = URL.iter().position(|a| *a == c)? as u32;
        bits = (bits << 6) | v;
        nbits += 6;
        if nbits >= 8 {
            nbits -= 8;
            out.push((bits >> nbits) as u8);
            bits &= (1 << nbits) - 1;
        }
    }
    Some(out)
}
