//! Go's JSON decoding rules for the API types, as one serde adapter.
//!
//! client-go decodes API objects with `sigs.k8s.io/json` (Go's `encoding/json`, case-sensitive),
//! whose rules differ from serde's derive in the one way servers exercise: a JSON `null` leaves a
//! Go value at its zero value — `""`, `0`, `false`, an empty slice, map or struct — and only
//! pointers (our `Option`s) become nil (`encoding/json` `decode.go`, `literalStore`: "null ...
//! otherwise, ignore null for primitives/string"). A server that writes `"spec": null`, a `null`
//! list element or a `null` map value is therefore conformant for client-go, and fatal for a
//! plain serde decode.
//!
//! [`Go`] wraps any deserializer and answers a type's request for a string, number, bool,
//! sequence, map or struct with that type's zero value when the input holds `null`, at every
//! depth (fields, sequence elements, map values), so the API types need no per-field annotations.
//! Omitted fields come from `#[serde(default)]` on the types and unknown fields are ignored, as
//! in Go. Invalid UTF-8 becomes U+FFFD, as Go's decoder does in strings.
//!
//! One rule of Go's is not followed: a repeated key in an object replaces the earlier value in
//! Go, while serde's derive rejects the object (the list decoder then skips just that object).

use serde::de::{self, DeserializeSeed, Deserializer, MapAccess, SeqAccess, Visitor};
use serde::Deserialize;
use std::fmt;
use std::marker::PhantomData;

/// Decode `T` from JSON text with Go's rules.
pub fn from_str<'a, T: Deserialize<'a>>(text: &'a str) -> serde_json::Result<T> {
    let mut de = serde_json::Deserializer::from_str(text);
    let value = T::deserialize(Go(&mut de))?;
    de.end()?;
    Ok(value)
}

/// Decode `T` from JSON bytes with Go's rules (invalid UTF-8 replaced, as Go does).
pub fn from_slice<T: de::DeserializeOwned>(bytes: &[u8]) -> serde_json::Result<T> {
    from_str(&text(bytes))
}

/// JSON bytes as text, invalid UTF-8 replaced as Go's decoder does. Valid input (all of it, in
/// practice) is borrowed after the standard library's fast check, which is several times
/// quicker than the replacing scan over a megabyte list page.
pub fn text(bytes: &[u8]) -> std::borrow::Cow<'_, str> {
    match std::str::from_utf8(bytes) {
        Ok(s) => std::borrow::Cow::Borrowed(s),
        Err(_) => String::from_utf8_lossy(bytes),
    }
}

/// Decode `T` from an already parsed document (cluster files) with Go's rules.
pub fn from_value<T: de::DeserializeOwned>(value: serde_json::Value) -> serde_json::Result<T> {
    T::deserialize(Go(value))
}

/// A deserializer with Go's null rules (see the module docs).
pub struct Go<D>(pub D);

/// What the type asked the deserializer for: decides the zero value `null` stands for.
#[derive(Clone, Copy)]
enum Want {
    Bool,
    Signed,
    Unsigned,
    Float,
    Str,
    Bytes,
    Seq,
    Map,
    Struct(&'static str, &'static [&'static str]),
    Unit,
    Char,
    Tuple(usize),
    TupleStruct(&'static str, usize),
    UnitStruct(&'static str),
    Newtype(&'static str),
}

/// Ask `d` for what `want` names, keeping Go's rules for what lies inside.
fn forward<'de, D: Deserializer<'de>, V: Visitor<'de>>(d: D, want: Want, v: V) -> Result<V::Value, D::Error> {
    // serde's derive also fills a struct from an array, by position; Go refuses that.
    let v = Wrap(v, matches!(want, Want::Struct(..)));
    match want {
        Want::Bool => d.deserialize_bool(v),
        Want::Signed => d.deserialize_i64(v),
        Want::Unsigned => d.deserialize_u64(v),
        Want::Float => d.deserialize_f64(v),
        Want::Str => d.deserialize_string(v),
        Want::Bytes => d.deserialize_byte_buf(v),
        Want::Seq => d.deserialize_seq(v),
        Want::Map => d.deserialize_map(v),
        Want::Struct(name, fields) => d.deserialize_struct(name, fields, v),
        Want::Unit => d.deserialize_unit(v),
        Want::Char => d.deserialize_char(v),
        Want::Tuple(n) => d.deserialize_tuple(n, v),
        Want::TupleStruct(name, n) => d.deserialize_tuple_struct(name, n, v),
        Want::UnitStruct(name) => d.deserialize_unit_struct(name, v),
        Want::Newtype(name) => d.deserialize_newtype_struct(name, v),
    }
}

/// The zero value of what `want` names, handed to the visitor.
fn zero<'de, V: Visitor<'de>, E: de::Error>(want: Want, v: V) -> Result<V::Value, E> {
    match want {
        Want::Bool => v.visit_bool(false),
        Want::Signed => v.visit_i64(0),
        Want::Unsigned => v.visit_u64(0),
        Want::Float => v.visit_f64(0.0),
        Want::Str => v.visit_str(""),
        Want::Bytes => v.visit_bytes(&[]),
        Want::Seq | Want::Tuple(_) | Want::TupleStruct(..) => v.visit_seq(Empty(PhantomData)),
        Want::Map | Want::Struct(..) => v.visit_map(Empty(PhantomData)),
        Want::Newtype(_) => v.visit_newtype_struct(Go(de::value::UnitDeserializer::<E>::new())),
        // Go has no char; a unit has no other value.
        Want::Unit | Want::UnitStruct(_) | Want::Char => v.visit_unit(),
    }
}

/// `null` → the zero value; anything else → what was asked for.
fn null_or<'de, D: Deserializer<'de>, V: Visitor<'de>>(d: D, want: Want, v: V) -> Result<V::Value, D::Error> {
    d.deserialize_option(NullOr { want, v })
}

struct NullOr<V> {
    want: Want,
    v: V,
}

impl<'de, V: Visitor<'de>> Visitor<'de> for NullOr<V> {
    type Value = V::Value;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.v.expecting(f)
    }
    fn visit_none<E: de::Error>(self) -> Result<V::Value, E> {
        zero(self.want, self.v)
    }
    fn visit_unit<E: de::Error>(self) -> Result<V::Value, E> {
        zero(self.want, self.v)
    }
    fn visit_some<D: Deserializer<'de>>(self, d: D) -> Result<V::Value, D::Error> {
        forward(d, self.want, self.v)
    }
}

/// An empty sequence or map (the zero value of collections and structs).
struct Empty<E>(PhantomData<E>);

impl<'de, E: de::Error> SeqAccess<'de> for Empty<E> {
    type Error = E;
    fn next_element_seed<T: DeserializeSeed<'de>>(&mut self, _seed: T) -> Result<Option<T::Value>, E> {
        Ok(None)
    }
    fn size_hint(&self) -> Option<usize> {
        Some(0)
    }
}

impl<'de, E: de::Error> MapAccess<'de> for Empty<E> {
    type Error = E;
    fn next_key_seed<K: DeserializeSeed<'de>>(&mut self, _seed: K) -> Result<Option<K::Value>, E> {
        Ok(None)
    }
    fn next_value_seed<T: DeserializeSeed<'de>>(&mut self, _seed: T) -> Result<T::Value, E> {
        Err(E::custom("value requested from an empty map"))
    }
    fn size_hint(&self) -> Option<usize> {
        Some(0)
    }
}

macro_rules! null_is_zero {
    ($($method:ident => $want:expr),* $(,)?) => {
        $(fn $method<V: Visitor<'de>>(self, v: V) -> Result<V::Value, D::Error> {
            null_or(self.0, $want, v)
        })*
    };
}

impl<'de, D: Deserializer<'de>> Deserializer<'de> for Go<D> {
    type Error = D::Error;

    null_is_zero! {
        deserialize_bool => Want::Bool,
        deserialize_i8 => Want::Signed,
        deserialize_i16 => Want::Signed,
        deserialize_i32 => Want::Signed,
        deserialize_i64 => Want::Signed,
        deserialize_i128 => Want::Signed,
        deserialize_u8 => Want::Unsigned,
        deserialize_u16 => Want::Unsigned,
        deserialize_u32 => Want::Unsigned,
        deserialize_u64 => Want::Unsigned,
        deserialize_u128 => Want::Unsigned,
        deserialize_f32 => Want::Float,
        deserialize_f64 => Want::Float,
        deserialize_char => Want::Char,
        deserialize_str => Want::Str,
        deserialize_string => Want::Str,
        deserialize_bytes => Want::Bytes,
        deserialize_byte_buf => Want::Bytes,
        deserialize_unit => Want::Unit,
        deserialize_seq => Want::Seq,
        deserialize_map => Want::Map,
    }

    fn deserialize_any<V: Visitor<'de>>(self, v: V) -> Result<V::Value, D::Error> {
        self.0.deserialize_any(Wrap(v, false))
    }
    fn deserialize_option<V: Visitor<'de>>(self, v: V) -> Result<V::Value, D::Error> {
        self.0.deserialize_option(Wrap(v, false))
    }
    fn deserialize_unit_struct<V: Visitor<'de>>(self, name: &'static str, v: V) -> Result<V::Value, D::Error> {
        null_or(self.0, Want::UnitStruct(name), v)
    }
    fn deserialize_newtype_struct<V: Visitor<'de>>(self, name: &'static str, v: V) -> Result<V::Value, D::Error> {
        null_or(self.0, Want::Newtype(name), v)
    }
    fn deserialize_tuple<V: Visitor<'de>>(self, len: usize, v: V) -> Result<V::Value, D::Error> {
        null_or(self.0, Want::Tuple(len), v)
    }
    fn deserialize_tuple_struct<V: Visitor<'de>>(self, name: &'static str, len: usize, v: V) -> Result<V::Value, D::Error> {
        null_or(self.0, Want::TupleStruct(name, len), v)
    }
    fn deserialize_struct<V: Visitor<'de>>(
        self,
        name: &'static str,
        fields: &'static [&'static str],
        v: V,
    ) -> Result<V::Value, D::Error> {
        null_or(self.0, Want::Struct(name, fields), v)
    }
    // The API types have no enums (Go has none: enumerations are strings).
    fn deserialize_enum<V: Visitor<'de>>(
        self,
        name: &'static str,
        variants: &'static [&'static str],
        v: V,
    ) -> Result<V::Value, D::Error> {
        self.0.deserialize_enum(name, variants, v)
    }
    fn deserialize_identifier<V: Visitor<'de>>(self, v: V) -> Result<V::Value, D::Error> {
        self.0.deserialize_identifier(v)
    }
    fn deserialize_ignored_any<V: Visitor<'de>>(self, v: V) -> Result<V::Value, D::Error> {
        self.0.deserialize_ignored_any(v)
    }
    fn is_human_readable(&self) -> bool {
        self.0.is_human_readable()
    }
}

/// A visitor whose nested values (option contents, elements, map values) are read with Go's
/// rules too; `true` refuses arrays (for structs).
struct Wrap<V>(V, bool);

macro_rules! pass {
    ($($method:ident($ty:ty)),* $(,)?) => {
        $(fn $method<E: de::Error>(self, value: $ty) -> Result<V::Value, E> {
            self.0.$method(value)
        })*
    };
}

impl<'de, V: Visitor<'de>> Visitor<'de> for Wrap<V> {
    type Value = V::Value;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.0.expecting(f)
    }

    pass! {
        visit_bool(bool), visit_i8(i8), visit_i16(i16), visit_i32(i32), visit_i64(i64), visit_i128(i128),
        visit_u8(u8), visit_u16(u16), visit_u32(u32), visit_u64(u64), visit_u128(u128),
        visit_f32(f32), visit_f64(f64), visit_char(char), visit_str(&str), visit_borrowed_str(&'de str),
        visit_string(String), visit_bytes(&[u8]), visit_borrowed_bytes(&'de [u8]), visit_byte_buf(Vec<u8>),
    }

    fn visit_none<E: de::Error>(self) -> Result<V::Value, E> {
        self.0.visit_none()
    }
    fn visit_unit<E: de::Error>(self) -> Result<V::Value, E> {
        self.0.visit_unit()
    }
    fn visit_some<D: Deserializer<'de>>(self, d: D) -> Result<V::Value, D::Error> {
        self.0.visit_some(Go(d))
    }
    fn visit_newtype_struct<D: Deserializer<'de>>(self, d: D) -> Result<V::Value, D::Error> {
        self.0.visit_newtype_struct(Go(d))
    }
    fn visit_seq<A: SeqAccess<'de>>(self, seq: A) -> Result<V::Value, A::Error> {
        if self.1 {
            return Err(de::Error::invalid_type(de::Unexpected::Seq, &self));
        }
        self.0.visit_seq(GoSeq(seq))
    }
    fn visit_map<A: MapAccess<'de>>(self, map: A) -> Result<V::Value, A::Error> {
        self.0.visit_map(GoMap(map))
    }
    fn visit_enum<A: de::EnumAccess<'de>>(self, data: A) -> Result<V::Value, A::Error> {
        self.0.visit_enum(data)
    }
}

/// Elements read with Go's rules.
struct GoSeq<A>(A);

impl<'de, A: SeqAccess<'de>> SeqAccess<'de> for GoSeq<A> {
    type Error = A::Error;
    fn next_element_seed<T: DeserializeSeed<'de>>(&mut self, seed: T) -> Result<Option<T::Value>, A::Error> {
        self.0.next_element_seed(GoSeed(seed))
    }
    fn size_hint(&self) -> Option<usize> {
        self.0.size_hint()
    }
}

/// Values (not keys: JSON keys are always strings) read with Go's rules.
struct GoMap<A>(A);

impl<'de, A: MapAccess<'de>> MapAccess<'de> for GoMap<A> {
    type Error = A::Error;
    fn next_key_seed<K: DeserializeSeed<'de>>(&mut self, seed: K) -> Result<Option<K::Value>, A::Error> {
        self.0.next_key_seed(seed)
    }
    fn next_value_seed<T: DeserializeSeed<'de>>(&mut self, seed: T) -> Result<T::Value, A::Error> {
        self.0.next_value_seed(GoSeed(seed))
    }
    fn size_hint(&self) -> Option<usize> {
        self.0.size_hint()
    }
}

struct GoSeed<S>(S);

impl<'de, S: DeserializeSeed<'de>> DeserializeSeed<'de> for GoSeed<S> {
    type Value = S::Value;
    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<S::Value, D::Error> {
        self.0.deserialize(Go(d))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::BTreeMap;

    #[derive(Debug, Default, Deserialize, PartialEq)]
    #[serde(default, rename_all = "camelCase")]
    struct Inner {
        name: String,
        count: i32,
        ratio: f64,
        on: bool,
    }

    #[derive(Debug, Default, Deserialize, PartialEq)]
    #[serde(default, rename_all = "camelCase")]
    struct Outer {
        inner: Inner,
        list: Vec<Inner>,
        names: Vec<String>,
        labels: BTreeMap<String, String>,
        pointer: Option<Inner>,
        size: u64,
        any: serde_json::Value,
    }

    #[test]
    fn null_is_the_zero_value_at_every_depth() {
        // encoding/json decode_test.go: null leaves non-pointer values at their zero value.
        let all_null = r#"{"inner":null,"list":null,"names":null,"labels":null,"pointer":null,"size":null,"any":null}"#;
        assert_eq!(from_str::<Outer>(all_null).expect("decodes"), Outer::default());
        let nested = r#"{"inner":{"name":null,"count":null,"ratio":null,"on":null},
            "list":[null,{"name":"b","count":null}],"names":["a",null],"labels":{"k":null},
            "pointer":{"name":null}}"#;
        let got: Outer = from_str(nested).expect("decodes");
        assert_eq!(got.inner, Inner::default());
        assert_eq!(got.list, vec![Inner::default(), Inner { name: "b".into(), ..Default::default() }]);
        assert_eq!(got.names, vec!["a".to_string(), String::new()]);
        assert_eq!(got.labels.get("k").map(String::as_str), Some(""));
        assert_eq!(got.pointer, Some(Inner::default()));
    }

    #[test]
    fn omitted_and_unknown_fields_are_fine_and_type_errors_still_fail() {
        let got: Outer = from_str(r#"{"unknown":{"deep":[1,2]},"size":7}"#).expect("decodes");
        assert_eq!(got.size, 7);
        // Go refuses these too (UnmarshalTypeError).
        for bad in [r#"{"size":"7"}"#, r#"{"inner":[]}"#, r#"{"names":"a"}"#, r#"{"size":-1}"#, r#"{"size":1.5}"#] {
            assert!(from_str::<Outer>(bad).is_err(), "{bad}");
        }
        assert!(from_str::<Outer>(r#"{} trailing"#).is_err());
    }

    #[test]
    fn invalid_utf8_becomes_the_replacement_character() {
        let got: Inner = from_slice(b"{\"name\":\"a\xffb\"}").expect("decodes");
        assert_eq!(got.name, "a\u{fffd}b");
    }

    #[test]
    fn parsed_documents_follow_the_same_rules() {
        let got: Outer = from_value(serde_json::json!({"inner": null, "names": [null]})).expect("decodes");
        assert_eq!(got.names, vec![String::new()]);
    }
}
