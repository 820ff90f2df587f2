//! The strict JSON cursor under the pod decoder and the list-page scanner
//! (`core::api::scan::Cursor`): it must accept a subset of what `serde_json` accepts, never more,
//! and read the same values. The input is walked the way the decoders walk it — objects and
//! arrays entered, strings read in place, integers and literals read, anything else (or a miss)
//! rewound and skipped as a raw value — and when the walk takes the whole text, `serde_json` must
//! accept it, and read the same value wherever it builds one. The first byte's bits choose which containers are skipped whole
//! instead of entered, so both the reading and the skipping paths are compared.
#![no_main]

use edgesched::core::api::scan::{Cursor, Miss};
use libfuzzer_sys::fuzz_target;
use serde_json::Value;

/// What the cursor read.
#[derive(Debug)]
enum Read<'a> {
    Null,
    Bool(bool),
    Int(i64),
    Str(&'a str),
    /// Skipped whole (`raw_value`): the raw text of the value.
    Raw(&'a str),
    Array(Vec<Read<'a>>),
    Object(Vec<(&'a str, Read<'a>)>),
}

/// Read one value; `skip` (one bit per value, consumed as values start) says to skip it whole.
fn walk<'a>(c: &mut Cursor<'a>, skip: &mut u32) -> Result<Read<'a>, Miss> {
    let mark = c.mark();
    let skip_this = *skip & 1 == 1;
    *skip = skip.rotate_right(1);
    if skip_this {
        return c.raw_value().map(Read::Raw);
    }
    let read = match c.peek().ok_or(Miss)? {
        b'{' => {
            let mut fields = Vec::new();
            c.object(|c, key| {
                fields.push((key, walk(c, skip)?));
                Ok(())
            })
            .map(|()| Read::Object(fields))
        }
        b'[' => {
            let mut elements = Vec::new();
            c.array(|c| {
                elements.push(walk(c, skip)?);
                Ok(())
            })
            .map(|()| Read::Array(elements))
        }
        b'"' => c.plain_str().map(Read::Str),
        b't' | b'f' => c.boolean().map(Read::Bool),
        b'n' => c.null().map(|_| Read::Null),
        _ => c.int64().map(Read::Int),
    };
    match read {
        Ok(read) => Ok(read),
        // A miss inside an object or array is the caller's to rewind; here, a scalar the typed
        // readers left is skipped as the decoders skip it.
        Err(Miss) if !matches!(read_kind(c, mark), Some(b'{' | b'[')) => {
            c.rewind(mark);
            c.raw_value().map(Read::Raw)
        }
        Err(miss) => Err(miss),
    }
}

/// The first byte of the value at `mark` (the cursor is put back where it was).
fn read_kind(c: &mut Cursor<'_>, mark: edgesched::core::api::scan::Mark) -> Option<u8> {
    let here = c.mark();
    c.rewind(mark);
    let b = c.peek();
    c.rewind(here);
    b
}

/// The cursor's reading agrees with `serde_json`'s value.
fn same(read: &Read<'_>, value: &Value) {
    match (read, value) {
        (Read::Null, Value::Null) => {}
        (Read::Bool(a), Value::Bool(b)) => assert_eq!(a, b),
        (Read::Int(a), Value::Number(b)) => assert_eq!(Some(*a), b.as_i64(), "{b}"),
        (Read::Str(a), Value::String(b)) => assert_eq!(a, b),
        (Read::Raw(raw), value) => {
            let again: Value = serde_json::from_str(raw).unwrap_or_else(|e| panic!("skipped {raw:?}, serde_json refuses it: {e}"));
            assert_eq!(&again, value, "{raw:?}");
        }
        (Read::Array(a), Value::Array(b)) => {
            assert_eq!(a.len(), b.len());
            a.iter().zip(b).for_each(|(a, b)| same(a, b));
        }
        (Read::Object(fields), Value::Object(map)) => {
            // A repeated key: serde_json's map keeps the last value.
            for (i, (key, read)) in fields.iter().enumerate() {
                if !fields[i + 1..].iter().any(|(k, _)| k == key) {
                    same(read, &map[*key]);
                }
            }
            let distinct = fields.iter().enumerate().filter(|(i, (k, _))| !fields[..*i].iter().any(|(j, _)| j == k)).count();
            assert_eq!(distinct, map.len());
        }
        (read, value) => panic!("the cursor read {read:?} where serde_json reads {value}"),
    }
}

fuzz_target!(|input: &[u8]| {
    let Some((first, text)) = input.split_first_chunk::<4>() else { return };
    let Ok(text) = std::str::from_utf8(text) else { return };
    let mut skip = u32::from_le_bytes(*first);
    let mut c = Cursor::new(text);
    let Ok(read) = walk(&mut c, &mut skip) else { return };
    if !c.at_end() {
        return;
    }
    if let Err(e) = serde_json::from_str::<serde::de::IgnoredAny>(text) {
        panic!("the cursor took {text:?}, serde_json refuses it: {e}");
    }
    // Numbers out of `f64`'s range are valid JSON that `serde_json` only refuses to build.
    if let Ok(value) = serde_json::from_str::<Value>(text) {
        same(&read, &value);
    }
});
