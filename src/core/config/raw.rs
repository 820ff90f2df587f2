//! A located YAML tree and a strict serde decoder over it.
//!
//! The document is parsed once (by serde-saphyr) into [`Node`]s that remember their line and column.
//! Typed decoding then runs over that tree with [`decode`], which (through serde_path_to_error)
//! reports the field path and position of the first problem. Decoding from a tree rather than from
//! the text lets us look at `apiVersion`/`kind` first and decode plugin `args` by plugin name even
//! when `args:` comes before `name:` in the file, as upstream's two-step decoding does.

use super::error::Problem;
use serde::de::{self, DeserializeOwned, Deserializer, IntoDeserializer, MapAccess, SeqAccess, Visitor};
use serde::Deserialize;
use serde_saphyr::Spanned;
use std::fmt;

/// A YAML node with the position where it starts (1-based).
#[derive(Debug, Clone, PartialEq)]
pub struct Node {
    pub value: Value,
    pub line: u64,
    pub column: u64,
}

/// The content of a [`Node`].
#[derive(Debug, Clone, PartialEq)]
pub enum Value {
    Null,
    Bool(bool),
    Int(i64),
    UInt(u64),
    Float(f64),
    Str(String),
    Seq(Vec<Node>),
    Map(Vec<(Key, Node)>),
}

/// A mapping key with its position.
#[derive(Debug, Clone, PartialEq)]
pub struct Key {
    pub name: String,
    pub line: u64,
    pub column: u64,
}

impl Node {
    /// The value of `key` when this node is a mapping.
    pub fn get(&self, key: &str) -> Option<&Node> {
        match &self.value {
            Value::Map(entries) => entries.iter().find(|(k, _)| k.name == key).map(|(_, v)| v),
            _ => None,
        }
    }

    /// The `i`-th element when this node is a sequence.
    pub fn index(&self, i: usize) -> Option<&Node> {
        match &self.value {
            Value::Seq(items) => items.get(i),
            _ => None,
        }
    }

    /// The keys of a mapping node (empty for other nodes).
    pub fn keys(&self) -> Vec<&Key> {
        match &self.value {
            Value::Map(entries) => entries.iter().map(|(k, _)| k).collect(),
            _ => Vec::new(),
        }
    }

    /// The string value, if this is a string scalar.
    pub fn as_str(&self) -> Option<&str> {
        match &self.value {
            Value::Str(s) => Some(s),
            _ => None,
        }
    }

    pub fn is_null(&self) -> bool {
        matches!(self.value, Value::Null)
    }

    /// `(line L column C)`, appended to decoding messages.
    pub fn position(&self) -> String {
        position(self.line, self.column)
    }

    /// The node as JSON, for plugin args this program keeps verbatim.
    pub fn to_json(&self) -> serde_json::Value {
        match &self.value {
            Value::Null => serde_json::Value::Null,
            Value::Bool(b) => serde_json::Value::Bool(*b),
            Value::Int(i) => serde_json::Value::from(*i),
            Value::UInt(u) => serde_json::Value::from(*u),
            Value::Float(f) => serde_json::Number::from_f64(*f).map(serde_json::Value::Number).unwrap_or_default(),
            Value::Str(s) => serde_json::Value::String(s.clone()),
            Value::Seq(items) => serde_json::Value::Array(items.iter().map(Node::to_json).collect()),
            Value::Map(entries) => {
                serde_json::Value::Object(entries.iter().map(|(k, v)| (k.name.clone(), v.to_json())).collect())
            }
        }
    }
}

/// ` (line L column C)`-style position text.
pub fn position(line: u64, column: u64) -> String {
    format!("(line {line} column {column})")
}

/// Deepest nesting of mappings and lists accepted in a configuration file.
pub const MAX_DEPTH: usize = 32;

/// Most YAML nodes (mappings, sequences and scalars, aliases expanded) accepted in one file.
pub const MAX_NODES: usize = 20_000;

/// Why the text is not a YAML document, with the position serde-saphyr reported.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ParseFailure {
    pub message: String,
}

/// Parse one YAML document. `Ok(None)` means the document is empty (nothing but comments).
pub fn parse_yaml(text: &str) -> Result<Option<Node>, ParseFailure> {
    let mut options = serde_saphyr::options::Options::default();
    options.with_snippet = false;
    // Configurations nest about a dozen levels deep; a low limit keeps every recursive walk over
    // the tree (ours and serde-saphyr's) far from the end of a thread's stack.
    let mut budget = serde_saphyr::budget::Budget::default();
    budget.max_depth = MAX_DEPTH;
    // A real configuration has a few hundred nodes. serde-saphyr's defaults (250 000 nodes, a
    // million replayed alias events) let a 1 KiB alias bomb cost seconds of CPU before it is
    // refused; these caps refuse it at once.
    budget.max_nodes = MAX_NODES;
    budget.max_events = 4 * MAX_NODES;
    options.budget = Some(budget);
    options.alias_limits.max_total_replayed_events = MAX_NODES;
    let parsed: Option<Spanned<RawValue>> =
        serde_saphyr::from_str_with_options(text, options).map_err(|e| ParseFailure { message: yaml_error_message(&e) })?;
    Ok(parsed.map(into_node))
}

/// serde-saphyr's message without its own location suffix, reworded where it helps, plus our
/// `(line L column C)` suffix.
fn yaml_error_message(e: &serde_saphyr::Error) -> String {
    let text = e.to_string();
    let bare = match text.rfind(" at line ") {
        Some(i) => text[..i].to_string(),
        None => text,
    };
    let reworded = if let Some(rest) = bare.strip_prefix("duplicate mapping key: ") {
        let key = rest.split(',').next().unwrap_or(rest);
        format!("duplicate field {key:?}")
    } else if bare.starts_with("budget breached: Depth") || bare.starts_with("recursion limit exceeded") {
        format!("nested more than {MAX_DEPTH} levels deep")
    } else if bare.starts_with("multiple YAML documents") {
        "more than one YAML document; the file must hold exactly one KubeSchedulerConfiguration".to_string()
    } else {
        bare
    };
    match e.location() {
        Some(l) => format!("{reworded} {}", position(l.line(), l.column())),
        None => reworded,
    }
}

/// What serde-saphyr builds; converted into [`Node`] right away.
enum RawValue {
    Null,
    Bool(bool),
    Int(i64),
    UInt(u64),
    Float(f64),
    Str(String),
    Seq(Vec<Spanned<RawValue>>),
    Map(Vec<(Spanned<String>, Spanned<RawValue>)>),
}

impl<'de> Deserialize<'de> for RawValue {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<RawValue, D::Error> {
        struct V;
        impl<'de> Visitor<'de> for V {
            type Value = RawValue;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("any YAML value")
            }
            fn visit_unit<E>(self) -> Result<RawValue, E> {
                Ok(RawValue::Null)
            }
            fn visit_none<E>(self) -> Result<RawValue, E> {
                Ok(RawValue::Null)
            }
            fn visit_some<D2: Deserializer<'de>>(self, d: D2) -> Result<RawValue, D2::Error> {
                RawValue::deserialize(d)
            }
            fn visit_bool<E>(self, v: bool) -> Result<RawValue, E> {
                Ok(RawValue::Bool(v))
            }
            fn visit_i64<E>(self, v: i64) -> Result<RawValue, E> {
                Ok(RawValue::Int(v))
            }
            fn visit_u64<E>(self, v: u64) -> Result<RawValue, E> {
                Ok(RawValue::UInt(v))
            }
            fn visit_f64<E>(self, v: f64) -> Result<RawValue, E> {
                Ok(RawValue::Float(v))
            }
            fn visit_str<E>(self, v: &str) -> Result<RawValue, E> {
                Ok(RawValue::Str(v.to_string()))
            }
            fn visit_string<E>(self, v: String) -> Result<RawValue, E> {
                Ok(RawValue::Str(v))
            }
            fn visit_seq<A: SeqAccess<'de>>(self, mut a: A) -> Result<RawValue, A::Error> {
                let mut items = Vec::new();
                while let Some(item) = a.next_element()? {
                    items.push(item);
                }
                Ok(RawValue::Seq(items))
            }
            fn visit_map<A: MapAccess<'de>>(self, mut a: A) -> Result<RawValue, A::Error> {
                let mut entries = Vec::new();
                while let Some(k) = a.next_key()? {
                    let v = a.next_value()?;
                    entries.push((k, v));
                }
                Ok(RawValue::Map(entries))
            }
        }
        d.deserialize_any(V)
    }
}

fn into_node(s: Spanned<RawValue>) -> Node {
    let (line, column) = (s.referenced.line(), s.referenced.column());
    let value = match s.value {
        RawValue::Null => Value::Null,
        RawValue::Bool(b) => Value::Bool(b),
        RawValue::Int(i) => Value::Int(i),
        RawValue::UInt(u) => Value::UInt(u),
        RawValue::Float(f) => Value::Float(f),
        RawValue::Str(s) => Value::Str(s),
        RawValue::Seq(items) => Value::Seq(items.into_iter().map(into_node).collect()),
        RawValue::Map(entries) => Value::Map(
            entries
                .into_iter()
                .map(|(k, v)| {
                    let key = Key { name: k.value, line: k.referenced.line(), column: k.referenced.column() };
                    (key, into_node(v))
                })
                .collect(),
        ),
    };
    Node { value, line, column }
}

/// Decode `node` strictly into `T`. On failure the problem's path is `prefix` joined with the path
/// inside `node`, and its message ends with the position.
pub fn decode<T: DeserializeOwned>(node: &Node, prefix: &str) -> Result<T, Problem> {
    let mut track = serde_path_to_error::Track::new();
    let de = serde_path_to_error::Deserializer::new(NodeDe { node }, &mut track);
    T::deserialize(de).map_err(|e| {
        let inner = track.path().to_string();
        Problem::at(join_path(prefix, &inner), e.with_position())
    })
}

/// Join a path prefix with a serde_path_to_error path (`.` means "here").
pub fn join_path(prefix: &str, inner: &str) -> String {
    let inner = if inner == "." { "" } else { inner };
    match (prefix.is_empty(), inner.is_empty()) {
        (true, _) => inner.to_string(),
        (false, true) => prefix.to_string(),
        (false, false) if inner.starts_with('[') => format!("{prefix}{inner}"),
        (false, false) => format!("{prefix}.{inner}"),
    }
}

/// A decoding problem with the position of the node where it happened.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DecodeError {
    pub message: String,
    pub line: Option<u64>,
    pub column: Option<u64>,
}

impl DecodeError {
    fn new(message: String) -> DecodeError {
        DecodeError { message, line: None, column: None }
    }

    /// Attach a position unless a deeper node already did.
    fn located(mut self, line: u64, column: u64) -> DecodeError {
        if self.line.is_none() {
            self.line = Some(line);
            self.column = Some(column);
        }
        self
    }

    /// The message followed by ` (line L column C)` when the position is known.
    pub fn with_position(&self) -> String {
        match (self.line, self.column) {
            (Some(l), Some(c)) => format!("{} {}", self.message, position(l, c)),
            _ => self.message.clone(),
        }
    }
}

impl fmt::Display for DecodeError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.with_position())
    }
}

impl std::error::Error for DecodeError {}

impl de::Error for DecodeError {
    fn custom<T: fmt::Display>(msg: T) -> Self {
        DecodeError::new(msg.to_string())
    }

    fn invalid_type(_unexp: de::Unexpected, exp: &dyn de::Expected) -> Self {
        DecodeError::new(expected_kind(&exp.to_string()))
    }

    fn invalid_value(unexp: de::Unexpected, exp: &dyn de::Expected) -> Self {
        let exp = exp.to_string();
        match unexp {
            de::Unexpected::Signed(v) => DecodeError::new(format!("integer {v} out of range for {exp}")),
            de::Unexpected::Unsigned(v) => DecodeError::new(format!("integer {v} out of range for {exp}")),
            _ => DecodeError::new(expected_kind(&exp)),
        }
    }

    fn unknown_field(field: &str, expected: &'static [&'static str]) -> Self {
        let hint = super::suggest::closest(field, expected.iter().copied())
            .map(|s| format!(" (did you mean {s:?}?)"))
            .unwrap_or_default();
        DecodeError::new(format!("unknown field {field:?}{hint}"))
    }

    fn missing_field(field: &'static str) -> Self {
        DecodeError::new(format!("missing required field {field:?}"))
    }

    fn duplicate_field(field: &'static str) -> Self {
        DecodeError::new(format!("duplicate field {field:?}"))
    }

    fn unknown_variant(variant: &str, expected: &'static [&'static str]) -> Self {
        let list: Vec<String> = expected.iter().map(|s| format!("{s:?}")).collect();
        DecodeError::new(format!("unsupported value {variant:?}: supported values: {}", list.join(", ")))
    }
}

/// "expected integer" / "expected string" / ... from serde's description of the wanted type.
fn expected_kind(exp: &str) -> String {
    let e = exp.to_ascii_lowercase();
    let kind = if ["i8", "i16", "i32", "i64", "u8", "u16", "u32", "u64", "integer"].iter().any(|t| e.contains(t)) {
        "integer"
    } else if e.contains("f32") || e.contains("f64") || e.contains("float") {
        "number"
    } else if e.contains("bool") {
        "boolean"
    } else if e.contains("sequence") || e.contains("seq") || e.contains("vec") || e.contains("list") {
        "list"
    } else if e.contains("struct") || e.contains("map") {
        "mapping"
    } else if e.contains("str") || e.contains("char") {
        "string"
    } else {
        return format!("expected {exp}");
    };
    format!("expected {kind}")
}

/// Deserializer over a [`Node`]. `null` reads as an absent option, an empty list or an empty mapping,
/// like Go's JSON decoding of `null`.
struct NodeDe<'a> {
    node: &'a Node,
}

impl<'de> Deserializer<'de> for NodeDe<'_> {
    type Error = DecodeError;

    fn deserialize_any<V: Visitor<'de>>(self, v: V) -> Result<V::Value, DecodeError> {
        let n = self.node;
        let r = match &n.value {
            Value::Null => v.visit_unit(),
            Value::Bool(b) => v.visit_bool(*b),
            Value::Int(i) => v.visit_i64(*i),
            Value::UInt(u) => v.visit_u64(*u),
            Value::Float(f) => v.visit_f64(*f),
            Value::Str(s) => v.visit_str(s),
            Value::Seq(items) => v.visit_seq(SeqDe { items: items.iter() }),
            Value::Map(entries) => v.visit_map(MapDe { entries: entries.iter(), value: None }),
        };
        r.map_err(|e| e.located(n.line, n.column))
    }

    fn deserialize_option<V: Visitor<'de>>(self, v: V) -> Result<V::Value, DecodeError> {
        let n = self.node;
        let r = if n.is_null() { v.visit_none() } else { v.visit_some(self) };
        r.map_err(|e| e.located(n.line, n.column))
    }

    fn deserialize_seq<V: Visitor<'de>>(self, v: V) -> Result<V::Value, DecodeError> {
        let n = self.node;
        if n.is_null() {
            return v.visit_seq(SeqDe { items: [].iter() }).map_err(|e| e.located(n.line, n.column));
        }
        self.deserialize_any(v)
    }

    fn deserialize_map<V: Visitor<'de>>(self, v: V) -> Result<V::Value, DecodeError> {
        let n = self.node;
        match &n.value {
            Value::Null => v.visit_map(MapDe { entries: [].iter(), value: None }).map_err(|e| e.located(n.line, n.column)),
            Value::Map(_) => self.deserialize_any(v),
            _ => Err(DecodeError::new("expected mapping".into()).located(n.line, n.column)),
        }
    }

    fn deserialize_struct<V: Visitor<'de>>(
        self,
        _name: &'static str,
        _fields: &'static [&'static str],
        v: V,
    ) -> Result<V::Value, DecodeError> {
        self.deserialize_map(v)
    }

    fn deserialize_newtype_struct<V: Visitor<'de>>(self, _name: &'static str, v: V) -> Result<V::Value, DecodeError> {
        let n = self.node;
        v.visit_newtype_struct(self).map_err(|e| e.located(n.line, n.column))
    }

    fn deserialize_enum<V: Visitor<'de>>(
        self,
        _name: &'static str,
        _variants: &'static [&'static str],
        v: V,
    ) -> Result<V::Value, DecodeError> {
        let n = self.node;
        match &n.value {
            Value::Str(s) => {
                let d: de::value::StrDeserializer<'_, DecodeError> = s.as_str().into_deserializer();
                v.visit_enum(d).map_err(|e| e.located(n.line, n.column))
            }
            _ => Err(DecodeError::new("expected string".into()).located(n.line, n.column)),
        }
    }

    serde::forward_to_deserialize_any! {
        bool i8 i16 i32 i64 i128 u8 u16 u32 u64 u128 f32 f64 char str string
        bytes byte_buf unit unit_struct tuple tuple_struct identifier ignored_any
    }
}

struct SeqDe<'a> {
    items: std::slice::Iter<'a, Node>,
}

impl<'de> SeqAccess<'de> for SeqDe<'_> {
    type Error = DecodeError;

    fn next_element_seed<T: de::DeserializeSeed<'de>>(&mut self, seed: T) -> Result<Option<T::Value>, DecodeError> {
        match self.items.next() {
            Some(node) => seed.deserialize(NodeDe { node }).map(Some),
            None => Ok(None),
        }
    }
}

struct MapDe<'a> {
    entries: std::slice::Iter<'a, (Key, Node)>,
    value: Option<&'a Node>,
}

impl<'de> MapAccess<'de> for MapDe<'_> {
    type Error = DecodeError;

    fn next_key_seed<K: de::DeserializeSeed<'de>>(&mut self, seed: K) -> Result<Option<K::Value>, DecodeError> {
        match self.entries.next() {
            Some((key, value)) => {
                self.value = Some(value);
                let d: de::value::StrDeserializer<'_, DecodeError> = key.name.as_str().into_deserializer();
                seed.deserialize(d).map(Some).map_err(|e| e.located(key.line, key.column))
            }
            None => Ok(None),
        }
    }

    fn next_value_seed<V: de::DeserializeSeed<'de>>(&mut self, seed: V) -> Result<V::Value, DecodeError> {
        match self.value.take() {
            Some(node) => seed.deserialize(NodeDe { node }),
            None => Err(DecodeError::new("value requested before key".into())),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde::Deserialize;

    #[derive(Debug, Deserialize, PartialEq)]
    #[serde(deny_unknown_fields, rename_all = "camelCase")]
    struct Item {
        name: Option<String>,
        weight: Option<i32>,
        on: Option<bool>,
        list: Option<Vec<String>>,
        qps: Option<f32>,
    }

    fn node(text: &str) -> Node {
        parse_yaml(text).unwrap().unwrap()
    }

    #[test]
    fn decodes_and_reports_paths_with_positions() {
        let n = node("items:\n- name: a\n  weight: 3\n- name: b\n  weight: abc\n");
        let list = n.get("items").unwrap();
        let ok: Item = decode(list.index(0).unwrap(), "items[0]").unwrap();
        assert_eq!(ok.weight, Some(3));
        let err = decode::<Item>(list.index(1).unwrap(), "items[1]").unwrap_err();
        assert_eq!(err.to_string(), "items[1].weight: expected integer (line 5 column 11)");
    }

    #[test]
    fn friendly_type_messages() {
        let cases = [
            ("on: maybe", "on: expected boolean (line 1 column 5)"),
            ("list: x", "list: expected list (line 1 column 7)"),
            ("name: [a]", "name: expected string (line 1 column 7)"),
            ("weight: 99999999999", "weight: integer 99999999999 out of range for i32 (line 1 column 9)"),
            ("weight: 1.5", "weight: expected integer (line 1 column 9)"),
            ("nme: x", "nme: unknown field \"nme\" (did you mean \"name\"?) (line 1 column 1)"),
        ];
        for (text, want) in cases {
            let err = decode::<Item>(&node(text), "").unwrap_err();
            assert_eq!(err.to_string(), want, "{text}");
        }
        let err = decode::<Item>(&node("- a"), "x").unwrap_err();
        assert_eq!(err.to_string(), "x: expected mapping (line 1 column 1)");
    }

    #[test]
    fn null_means_absent_or_empty() {
        let it: Item = decode(&node("name: ~\nlist:\nqps: 5"), "").unwrap();
        assert_eq!(it, Item { name: None, weight: None, on: None, list: None, qps: Some(5.0) });
        let v: Vec<String> = decode(&Node { value: Value::Null, line: 1, column: 1 }, "").unwrap();
        assert!(v.is_empty());
    }

    #[test]
    fn yaml_errors_are_positioned() {
        assert_eq!(parse_yaml("a: [\n").unwrap_err().message, "unclosed bracket '[' (line 1 column 4)");
        assert_eq!(parse_yaml("a: 1\na: 2\n").unwrap_err().message, "duplicate field \"a\" (line 2 column 1)");
        assert!(parse_yaml("a: 1\n---\nb: 2\n").unwrap_err().message.starts_with("more than one YAML document"));
        assert_eq!(parse_yaml("# nothing\n").unwrap(), None);
        // Billion laughs: refused by the node budget, not expanded.
        let mut bomb = "a0: &a0 [x, x, x, x, x, x, x, x, x]\n".to_string();
        for i in 1..10 {
            let p = i - 1;
            bomb.push_str(&format!("a{i}: &a{i} [*a{p}, *a{p}, *a{p}, *a{p}, *a{p}, *a{p}, *a{p}, *a{p}, *a{p}]\n"));
        }
        let message = parse_yaml(&bomb).unwrap_err().message;
        assert!(message.contains("alias replay limit") || message.contains("budget"), "{message}");
    }

    #[test]
    fn joins_paths() {
        assert_eq!(join_path("a", "."), "a");
        assert_eq!(join_path("a", "b.c"), "a.b.c");
        assert_eq!(join_path("a", "[1]"), "a[1]");
        assert_eq!(join_path("", "b"), "b");
    }

    #[test]
    fn converts_to_json() {
        let n = node("a: [1, x, true, ~, 1.5]");
        assert_eq!(n.to_json(), serde_json::json!({"a": [1, "x", true, null, 1.5]}));
    }
}
