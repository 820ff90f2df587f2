//! component-base's JSON log format (`--logging-format=json`,
//! `staging/src/k8s.io/component-base/logs/json/json.go`: zap's JSON encoder behind zapr):
//!
//! ```text
//! {"ts":1580306777047.28,"caller":"scheduler/schedule_one.rs:77","msg":"Attempting to schedule pod","v":3,"pod":{"name":"web-1","namespace":"default"}}
//! ```
//!
//! `ts` is what upstream's `epochMillisTimeEncoder` writes: milliseconds since the epoch as a
//! float. `caller` is zap's short caller (directory and file). Info lines carry `v`; errors do
//! not, and put `err` last (`zapr.ErrorKey("err")`), as `klog_test.go`'s `ErrorS` case shows.
//! Object references become `{"name":…,"namespace":…}` (klog's `ObjectRef.MarshalLog`).

use super::{Entry, Severity, Value};
use std::fmt::Write as _;

/// One entry as one JSON line (with the final line break). `epoch_millis` is the time.
pub fn format(entry: &Entry<'_>, epoch_millis: f64) -> String {
    let mut out = String::with_capacity(160);
    out.push_str("{\"ts\":");
    number(&format!("{epoch_millis}"), &mut out);
    out.push_str(",\"caller\":");
    string(short_caller(entry.file, entry.lineno).as_str(), &mut out);
    out.push_str(",\"msg\":");
    string(&entry.line.msg, &mut out);
    if entry.severity != Severity::Error {
        let _ = write!(out, ",\"v\":{}", entry.v);
    }
    let is_err = |k: &str| entry.severity == Severity::Error && k == "err";
    let pairs = entry.line.kv.iter();
    for (k, v) in pairs.clone().filter(|(k, _)| !is_err(k)).chain(pairs.filter(|(k, _)| is_err(k))) {
        out.push(',');
        string(k, &mut out);
        out.push(':');
        match v {
            Value::Str(s) => string(s, &mut out),
            Value::Num(s) => number(s, &mut out),
            Value::Ref { namespace, name } => {
                out.push_str("{\"name\":");
                string(name, &mut out);
                if !namespace.is_empty() {
                    out.push_str(",\"namespace\":");
                    string(namespace, &mut out);
                }
                out.push('}');
            }
            Value::List(items) => {
                out.push('[');
                for (i, item) in items.iter().enumerate() {
                    if i > 0 {
                        out.push(',');
                    }
                    string(item, &mut out);
                }
                out.push(']');
            }
        }
    }
    out.push_str("}\n");
    out
}

/// zap's `ShortCallerEncoder`: the last directory and the file, with the line.
fn short_caller(file: &str, line: u32) -> String {
    let mut parts = file.rsplit(['/', '\\']);
    let base = parts.next().unwrap_or(file);
    match parts.next() {
        Some(dir) if !dir.is_empty() => format!("{dir}/{base}:{line}"),
        _ => format!("{base}:{line}"),
    }
}

/// A number or boolean as written; anything that is not a JSON number (NaN, a word) is a string.
fn number(s: &str, out: &mut String) {
    let is_json_number = s.parse::<f64>().is_ok_and(f64::is_finite)
        && s.bytes().all(|b| b.is_ascii_digit() || matches!(b, b'-' | b'.' | b'e' | b'E' | b'+'))
        && !s.starts_with('+')
        && !s.starts_with('.')
        && !s.ends_with('.');
    if is_json_number || s == "true" || s == "false" {
        out.push_str(s);
    } else {
        string(s, out);
    }
}

/// zap's `safeAddString`: `\"`, `\\`, `\n`, `\r`, `\t`, other controls as `\u00XX`; everything
/// else (including `<`, `>`, `&` and non-ASCII) as is.
pub fn string(s: &str, out: &mut String) {
    out.push('"');
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            c if (c as u32) < 0x20 => {
                let _ = write!(out, "\\u{:04x}", c as u32);
            }
            c => out.push(c),
        }
    }
    out.push('"');
}

#[cfg(test)]
mod tests {
    use super::super::Line;
    use super::*;

    fn entry<'a>(severity: Severity, v: u8, line: &'a Line) -> Entry<'a> {
        Entry { severity, v, line, file: "src/shell/json/klog_test.rs", lineno: 42 }
    }

    /// `klog_test.go` `TestKlogIntegration`: InfoS, V(1).InfoS, KObj and ErrorS.
    #[test]
    fn shapes_match_component_base() {
        let l = Line::new("test").n("count", 1);
        assert_eq!(
            format(&entry(Severity::Info, 0, &l), 0.000123),
            "{\"ts\":0.000123,\"caller\":\"json/klog_test.rs:42\",\"msg\":\"test\",\"v\":0,\"count\":1}\n"
        );
        assert!(format(&entry(Severity::Info, 1, &l), 1.0).contains("\"v\":1,\"count\":1}"));
        let l = Line::new("some").o("pod", "kube-system/pod-1");
        assert!(
            format(&entry(Severity::Info, 0, &l), 1.0).ends_with("\"pod\":{\"name\":\"pod-1\",\"namespace\":\"kube-system\"}}\n")
        );
        let l = Line::new("test").s("err", "fail").n("count", 1);
        assert_eq!(
            format(&entry(Severity::Error, 0, &l), 1.5),
            "{\"ts\":1.5,\"caller\":\"json/klog_test.rs:42\",\"msg\":\"test\",\"count\":1,\"err\":\"fail\"}\n"
        );
    }

    #[test]
    fn strings_escape_as_zap() {
        let mut out = String::new();
        string("a\"b\\c\nd\u{1}<>&é", &mut out);
        assert_eq!(out, "\"a\\\"b\\\\c\\nd\\u0001<>&é\"");
        let mut out = String::new();
        number("NaN", &mut out);
        assert_eq!(out, "\"NaN\"");
    }
}
