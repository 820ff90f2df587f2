//! JSON encoding as the API server writes it: compact bodies end with "\n", pretty bodies (curl,
//! browsers, `?pretty=true`) use two spaces and no newline, and top-level keys come in Go struct
//! order (`kind`, `apiVersion`, `metadata`, `spec`, `status`, ...) rather than alphabetically.
//! Also the URL-safe base64 used by `continue` tokens and the standard one used by kubeconfigs.

use base64::engine::general_purpose::{GeneralPurpose, GeneralPurposeConfig};
use base64::engine::DecodePaddingMode;
use base64::Engine;
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

/// Go's `base64.RawURLEncoding` (continue tokens): URL-safe alphabet, no padding, unused low
/// bits of the last character ignored.
const RAW_URL: GeneralPurpose = GeneralPurpose::new(
    &base64::alphabet::URL_SAFE,
    GeneralPurposeConfig::new()
        .with_encode_padding(false)
        .with_decode_padding_mode(DecodePaddingMode::RequireNone)
        .with_decode_allow_trailing_bits(true),
);

/// Standard padded base64 (kubeconfig `*-data` fields).
pub fn base64_std(input: &[u8]) -> String {
    base64::engine::general_purpose::STANDARD.encode(input)
}

/// Unpadded URL-safe base64 (Go `base64.RawURLEncoding`, as in continue tokens).
pub fn base64_url(input: &[u8]) -> String {
    RAW_URL.encode(input)
}

/// Decode as Go's `base64.RawURLEncoding.DecodeString`; `None` where Go errs.
pub fn base64_url_decode(input: &str) -> Option<Vec<u8>> {
    RAW_URL.decode(input).ok()
}
