//! Typed, incremental decoding of cluster files.
//!
//! A cluster file is what `kubectl get … -o yaml|json` writes (a `List`, or a typed `NodeList`,
//! `PodList`, …), a multi-document YAML stream of objects, or a mix. A 60,000-pod file must not
//! become a document tree first: this decoder walks the document with serde, and each object of
//! `items` (or each top-level object) is decoded straight into its API type, handed to a sink and
//! dropped. Only the keys an object has before its `kind` (usually just `apiVersion`) are held as
//! small values and replayed; each object passes through a JSON value of its own (never the
//! whole document) into the one Go-rules decoder of its type.
//!
//! The decoder is generic over any serde [`Deserializer`], so it reads JSON and YAML alike and
//! holds no I/O: the shell opens the file and hands over one document at a time. Objects are
//! decoded with Go's rules ([`crate::core::gojson::Go`]), like everything the API server sends.

use super::SimError;
use crate::core::watched::{self, KindChange, KindVisitor, Watched};
use serde::de::{
    self, DeserializeOwned, DeserializeSeed, Deserializer, IgnoredAny, IntoDeserializer, MapAccess, SeqAccess, Visitor,
};
use std::collections::BTreeMap;
use std::fmt;

/// Where an object sits in a cluster file, for error messages.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Origin {
    /// Index of the document in the file (0 for a JSON file).
    pub document: usize,
    /// Index in the document's `items`, when it is a list.
    pub item: Option<usize>,
}

impl fmt::Display for Origin {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "document {}", self.document)?;
        if let Some(i) = self.item {
            write!(f, ": items[{i}]")?;
        }
        Ok(())
    }
}

/// Receives each decoded object, as an `Added` change of its kind.
pub type Sink<'a> = dyn FnMut(Origin, KindChange) -> Result<(), SimError> + 'a;

/// The state shared by the documents of one file.
pub struct DecodeContext<'a> {
    /// The file name, prefixed to every message.
    pub file: String,
    /// Objects of kinds the scheduler does not read, by kind (reported, not fatal).
    pub ignored_kinds: BTreeMap<String, usize>,
    sink: &'a mut Sink<'a>,
    /// `--lenient`: an object whose fields do not decode is skipped and reported here (the
    /// text names the file, document, item, object and field) instead of failing the file.
    pub skip_undecodable: Option<fn(&str)>,
    /// The first problem found (serde errors only carry text; this keeps the typed one).
    failure: Option<SimError>,
}

impl<'a> DecodeContext<'a> {
    pub fn new(file: impl Into<String>, sink: &'a mut Sink<'a>) -> DecodeContext<'a> {
        DecodeContext { file: file.into(), ignored_kinds: BTreeMap::new(), sink, skip_undecodable: None, failure: None }
    }

    /// Decode one document (a list or one object; an empty document is skipped).
    pub fn document<'de, D: Deserializer<'de>>(&mut self, document: usize, de: D) -> Result<(), SimError> {
        let result = de.deserialize_any(DocumentVisitor { ctx: self, document });
        match (result, self.failure.take()) {
            (_, Some(f)) => Err(f),
            (Ok(()), None) => Ok(()),
            (Err(e), None) => Err(SimError(format!("{}: document {document}: {e}", self.file))),
        }
    }

    /// A serde error standing for a problem already recorded in `failure`.
    fn fail<E: de::Error>(&mut self, e: SimError) -> E {
        let text = e.0.clone();
        self.failure.get_or_insert(e);
        E::custom(text)
    }
}

/// `List`, `NodeList`, `PodList`, …: a document whose objects are in `items`.
fn list_item_kind(kind: &str) -> Option<Option<&str>> {
    match kind {
        "List" => Some(None),
        k => k.strip_suffix("List").filter(|k| !k.is_empty()).map(Some),
    }
}

struct DocumentVisitor<'c, 'a> {
    ctx: &'c mut DecodeContext<'a>,
    document: usize,
}

impl<'de> Visitor<'de> for DocumentVisitor<'_, '_> {
    type Value = ();

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a Kubernetes object or list")
    }
    fn visit_unit<E: de::Error>(self) -> Result<(), E> {
        Ok(())
    }
    fn visit_none<E: de::Error>(self) -> Result<(), E> {
        Ok(())
    }
    fn visit_map<A: MapAccess<'de>>(self, map: A) -> Result<(), A::Error> {
        let origin = Origin { document: self.document, item: None };
        object(self.ctx, origin, None, true, map)
    }
}

/// Read one object's map: keys before `kind` are held, then the rest is decoded as the kind's
/// type. A document may instead be a list (`items` before or after `kind`).
fn object<'de, A: MapAccess<'de>>(
    ctx: &mut DecodeContext<'_>,
    origin: Origin,
    default_kind: Option<&str>,
    may_be_list: bool,
    mut map: A,
) -> Result<(), A::Error> {
    let mut held: Vec<(String, serde_json::Value)> = Vec::new();
    let mut saw_items = false;
    while let Some(key) = map.next_key::<String>()? {
        if key == "kind" {
            let kind: String = map.next_value()?;
            if may_be_list {
                if let Some(item_kind) = list_item_kind(&kind) {
                    while let Some(key) = map.next_key::<String>()? {
                        if key == "items" && !saw_items {
                            map.next_value_seed(Items { ctx, document: origin.document, item_kind })?;
                        } else {
                            map.next_value::<IgnoredAny>()?;
                        }
                    }
                    return Ok(());
                }
            }
            if saw_items {
                return Err(ctx.fail(SimError(format!("{}: {origin}: a {kind} has no items", ctx.file))));
            }
            held.push((key, serde_json::Value::String(kind.clone())));
            return typed(ctx, origin, &kind, Replay { held: held.into_iter(), value: None, rest: Some(map) });
        }
        if key == "items" && may_be_list && !saw_items {
            // kubectl's JSON sorts keys: `items` comes before `kind`; each item names its kind.
            map.next_value_seed(Items { ctx, document: origin.document, item_kind: None })?;
            saw_items = true;
            continue;
        }
        held.push((key, map.next_value()?));
    }
    if saw_items {
        return Ok(());
    }
    match default_kind {
        Some(kind) => typed::<A>(ctx, origin, kind, Replay { held: held.into_iter(), value: None, rest: None }),
        None => Err(ctx.fail(SimError(format!("{}: {origin}: object has no kind", ctx.file)))),
    }
}

/// Decode the object as `kind`'s API type and hand it to the sink.
fn typed<'de, A: MapAccess<'de>>(
    ctx: &mut DecodeContext<'_>,
    origin: Origin,
    kind: &str,
    mut replay: Replay<A>,
) -> Result<(), A::Error> {
    let Some(row) = watched::by_kind(kind) else {
        *ctx.ignored_kinds.entry(kind.to_string()).or_default() += 1;
        replay.held = Vec::new().into_iter();
        if let Some(rest) = replay.rest.as_mut() {
            while rest.next_entry::<IgnoredAny, IgnoredAny>()?.is_some() {}
        }
        return Ok(());
    };
    // The object becomes a small JSON value first and is then decoded, as JSON text, by the same
    // Go-rules decoder the API client uses: one typed decoder per kind in the binary whatever the
    // input format (decoding each type straight from the YAML and JSON readers, or with path
    // tracking, multiplied the decoding code and broke the binary's size budget).
    let value = <serde_json::Value as serde::Deserialize>::deserialize(ObjectDe(replay))?;
    let mut visitor = DecodeAs(Some(value));
    let decoded = watched::visit(row.id, &mut visitor);
    match decoded {
        Ok(change) => (ctx.sink)(origin, change).map_err(|e| ctx.fail(e)),
        Err((at, inner)) => {
            let text = format!("{}: {origin} ({kind}): {at}: {inner}", ctx.file);
            match ctx.skip_undecodable {
                Some(warn) => {
                    let object = visitor.0.as_ref().map(object_name).unwrap_or_default();
                    warn(&format!("{text}; {kind} {object} skipped"));
                    Ok(())
                }
                None => Err(ctx.fail(SimError(text))),
            }
        }
    }
}

/// `namespace/name` (or `name`) of an object's value, for messages.
fn object_name(v: &serde_json::Value) -> String {
    let field = |f: &str| v.pointer(f).and_then(|n| n.as_str()).filter(|n| !n.is_empty());
    match (field("/metadata/namespace"), field("/metadata/name")) {
        (Some(ns), Some(name)) => format!("{ns}/{name}"),
        (None, Some(name)) => name.to_string(),
        (_, None) => "(unnamed)".to_string(),
    }
}

/// Decodes one object's value as the type of the visited kind (the value stays when it does
/// not decode, so the message can name the object).
struct DecodeAs(Option<serde_json::Value>);

impl KindVisitor for DecodeAs {
    /// The object, or the path of the field that did not decode and why.
    type Output = Result<KindChange, (String, String)>;

    fn visit<T>(&mut self) -> Self::Output
    where
        T: Watched + DeserializeOwned + Send + 'static,
    {
        let value = self.0.take().unwrap_or_default();
        let text = serde_json::to_string_pretty(&value).map_err(|e| (String::new(), e.to_string()))?;
        let obj: Result<T, _> = crate::core::gojson::from_str(&text).map_err(|e| {
            // The position is in the text made here, not in the user's file: the field says where.
            let message = e.to_string();
            let message = message.split(" at line ").next().unwrap_or_default().to_string();
            (field_at(&text, e.line()), message)
        });
        let obj = match obj {
            Ok(o) => o,
            Err(e) => {
                self.0 = Some(value);
                return Err(e);
            }
        };
        Ok(T::wrap(crate::core::watched::Change::Added(Box::new(obj))))
    }

    /// Cluster files hold the built-in kinds: `simulate` does not model plugins' custom resources.
    fn visit_custom(&mut self, _id: crate::core::watched::KindId) -> Self::Output {
        Err((String::new(), "custom resources are not simulated".into()))
    }
}

/// The field on `line` (1-based) of pretty-printed JSON, as `spec.containers[0].name`: where a
/// decode error points, named without a second, path-tracking instantiation of every API type's
/// decoder.
fn field_at(pretty: &str, line: usize) -> String {
    // One frame per open object or array: its indentation, its name in the path, and for arrays
    // the index of the next element.
    struct Frame {
        indent: usize,
        name: String,
        next: Option<usize>,
    }
    let mut stack: Vec<Frame> = Vec::new();
    for text in pretty.lines().take(line) {
        let trimmed = text.trim_start();
        let indent = text.len() - trimmed.len();
        while stack.last().is_some_and(|f| f.indent >= indent) {
            stack.pop();
        }
        if trimmed.starts_with('}') || trimmed.starts_with(']') {
            continue;
        }
        let (name, rest) = match trimmed.strip_prefix('"').and_then(|t| t.split_once("\": ")) {
            Some((key, rest)) if stack.last().is_none_or(|f| f.next.is_none()) => (key.to_string(), rest),
            _ => {
                let index = stack.last_mut().and_then(|f| {
                    let i = f.next?;
                    f.next = Some(i + 1);
                    Some(i)
                });
                (index.map(|i| format!("[{i}]")).unwrap_or_default(), trimmed)
            }
        };
        let next = rest.starts_with('[').then_some(0);
        stack.push(Frame { indent, name, next });
    }
    let mut path = String::new();
    for f in stack.iter().filter(|f| !f.name.is_empty()) {
        if !path.is_empty() && !f.name.starts_with('[') {
            path.push('.');
        }
        path.push_str(&f.name);
    }
    if path.is_empty() {
        ".".to_string()
    } else {
        path
    }
}

/// The held entries, then the rest of the map.
struct Replay<A> {
    held: std::vec::IntoIter<(String, serde_json::Value)>,
    value: Option<serde_json::Value>,
    rest: Option<A>,
}

impl<'de, A: MapAccess<'de>> MapAccess<'de> for Replay<A> {
    type Error = A::Error;

    fn next_key_seed<K: DeserializeSeed<'de>>(&mut self, seed: K) -> Result<Option<K::Value>, A::Error> {
        if let Some((k, v)) = self.held.next() {
            self.value = Some(v);
            return seed.deserialize(IntoDeserializer::<A::Error>::into_deserializer(k)).map(Some);
        }
        match self.rest.as_mut() {
            Some(rest) => rest.next_key_seed(seed),
            None => Ok(None),
        }
    }

    fn next_value_seed<V: DeserializeSeed<'de>>(&mut self, seed: V) -> Result<V::Value, A::Error> {
        if let Some(v) = self.value.take() {
            return seed.deserialize(v).map_err(de::Error::custom);
        }
        match self.rest.as_mut() {
            Some(rest) => rest.next_value_seed(seed),
            None => Err(de::Error::custom("a value without a key")),
        }
    }
}

/// One object as a deserializer: a map, never null.
struct ObjectDe<A>(Replay<A>);

impl<'de, A: MapAccess<'de>> Deserializer<'de> for ObjectDe<A> {
    type Error = A::Error;

    fn deserialize_any<V: Visitor<'de>>(self, v: V) -> Result<V::Value, A::Error> {
        v.visit_map(self.0)
    }
    fn deserialize_option<V: Visitor<'de>>(self, v: V) -> Result<V::Value, A::Error> {
        v.visit_some(self)
    }
    serde::forward_to_deserialize_any! {
        bool i8 i16 i32 i64 i128 u8 u16 u32 u64 u128 f32 f64 char str string bytes byte_buf unit
        unit_struct newtype_struct seq tuple tuple_struct map struct enum identifier ignored_any
    }
}

/// The `items` of a list document.
struct Items<'c, 'a, 'k> {
    ctx: &'c mut DecodeContext<'a>,
    document: usize,
    item_kind: Option<&'k str>,
}

impl<'de> DeserializeSeed<'de> for Items<'_, '_, '_> {
    type Value = ();
    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<(), D::Error> {
        d.deserialize_any(self)
    }
}

impl<'de> Visitor<'de> for Items<'_, '_, '_> {
    type Value = ();

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a list of objects")
    }
    // Go reads `items: null` as an empty list.
    fn visit_unit<E: de::Error>(self) -> Result<(), E> {
        Ok(())
    }
    fn visit_none<E: de::Error>(self) -> Result<(), E> {
        Ok(())
    }
    fn visit_seq<S: SeqAccess<'de>>(self, mut seq: S) -> Result<(), S::Error> {
        let mut index = 0;
        loop {
            let origin = Origin { document: self.document, item: Some(index) };
            let item = Item { ctx: &mut *self.ctx, origin, item_kind: self.item_kind };
            if seq.next_element_seed(item)?.is_none() {
                return Ok(());
            }
            index += 1;
        }
    }
}

/// One element of `items`.
struct Item<'c, 'a, 'k> {
    ctx: &'c mut DecodeContext<'a>,
    origin: Origin,
    item_kind: Option<&'k str>,
}

impl<'de> DeserializeSeed<'de> for Item<'_, '_, '_> {
    type Value = ();
    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<(), D::Error> {
        d.deserialize_any(self)
    }
}

impl<'de> Visitor<'de> for Item<'_, '_, '_> {
    type Value = ();

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a Kubernetes object")
    }
    /// An item of a `List` may itself be a `List` (lists of lists, as several `kubectl get`
    /// outputs gathered into one); a typed list's items are objects.
    fn visit_map<A: MapAccess<'de>>(self, map: A) -> Result<(), A::Error> {
        object(self.ctx, self.origin, self.item_kind, self.item_kind.is_none(), map)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn field_at_names_the_field_of_a_pretty_printed_line() {
        let v =
            serde_json::json!({"kind": "Pod", "spec": {"containers": [{"name": "a"}, {"name": 5, "ports": [1, 2]}], "x": true}});
        let text = serde_json::to_string_pretty(&v).unwrap();
        let line_of = |needle: &str| text.lines().position(|l| l.contains(needle)).unwrap() + 1;
        assert_eq!(field_at(&text, line_of("\"name\": 5")), "spec.containers[1].name");
        assert_eq!(field_at(&text, line_of("2")), "spec.containers[1].ports[1]");
        assert_eq!(field_at(&text, line_of("\"x\"")), "spec.x");
        assert_eq!(field_at(&text, line_of("\"kind\"")), "kind");
        assert_eq!(field_at(&text, 1), ".");
    }
}
