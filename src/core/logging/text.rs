//! klog's text format (`k8s.io/klog/v2`, `klog.go` `printS` and `internal/serialize/keyvalues.go`):
//!
//! ```text
//! I1017 10:59:24.725039   12345 schedule_one.rs:301] "Successfully bound pod to node" pod="ns/p" node="n1" evaluatedNodes=4
//! ```
//!
//! The header is severity, `MMDD hh:mm:ss.uuuuuu` (UTC here), the process id padded to 7, and
//! `file:line]`. The message is always quoted with Go's `strconv.Quote`; errors put `err` first.
//! String values are quoted the same way unless they contain a line break, in which case klog
//! writes them as an indented block:
//!
//! ```text
//! "msg" key=<
//! <TAB>line 1
//! <TAB>line 2
//!  >
//! ```
//!
//! Numbers, booleans and lists are written bare (Go's `%+v`), and as a block when they contain a
//! line break. As klog's comment says, a block cannot show whether the value ended with a line
//! break; that is the only information the format loses.

use super::{Entry, Line, Severity, Value};
use std::fmt::Write as _;

/// A whole entry: header, body and the final line break.
pub fn format(entry: &Entry<'_>, time_mmdd: &str, pid: u32) -> String {
    let mut out = String::with_capacity(128);
    let sev = match entry.severity {
        Severity::Info => 'I',
        Severity::Warning => 'W',
        Severity::Error => 'E',
    };
    let file = entry.file.rsplit(['/', '\\']).next().unwrap_or(entry.file);
    let _ = write!(out, "{sev}{time_mmdd} {pid:>7} {file}:{}] ", entry.lineno);
    body(entry.severity, entry.line, &mut out);
    out.push('\n');
    out
}

/// The message and pairs (errors: `err` first, as `printS` writes it).
pub fn body(severity: Severity, line: &Line, out: &mut String) {
    go_quote(&line.msg, out);
    let is_err = |k: &str| severity == Severity::Error && k == "err";
    for (k, v) in line.kv.iter().filter(|(k, _)| is_err(k)).chain(line.kv.iter().filter(|(k, _)| !is_err(k))) {
        out.push(' ');
        out.push_str(k);
        match v {
            Value::Str(s) => string_value(s, true, out),
            Value::Num(s) => string_value(s, false, out),
            Value::Ref { namespace, name } if namespace.is_empty() => string_value(name, true, out),
            Value::Ref { namespace, name } => string_value(&format!("{namespace}/{name}"), true, out),
            Value::List(items) => string_value(&format!("[{}]", items.join(" ")), false, out),
        }
    }
}

/// `writeStringValue`: `="quoted"`, `=bare`, or the indented block for multi-line values.
fn string_value(v: &str, quote: bool, out: &mut String) {
    if !v.contains('\n') {
        out.push('=');
        if quote {
            go_quote(v, out);
        } else {
            out.push_str(v);
        }
        return;
    }
    out.push_str("=<\n");
    let mut rest = v;
    while let Some(i) = rest.find('\n') {
        out.push('\t');
        out.push_str(&rest[..=i]);
        rest = &rest[i + 1..];
    }
    if rest.is_empty() {
        out.push_str(" >");
    } else {
        out.push('\t');
        out.push_str(rest);
        out.push_str("\n >");
    }
}

/// Go's `strconv.Quote` (`appendQuotedWith`/`appendEscapedRune`): `\"`, `\\`, the C escapes,
/// `\xNN` for other ASCII controls, `\uNNNN`/`\UNNNNNNNN` for other non-printable runes.
pub fn go_quote(s: &str, out: &mut String) {
    out.push('"');
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            c if is_go_print(c) => out.push(c),
            '\x07' => out.push_str("\\a"),
            '\x08' => out.push_str("\\b"),
            '\x0c' => out.push_str("\\f"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            '\x0b' => out.push_str("\\v"),
            c if (c as u32) < 0x20 || c == '\x7f' => {
                let _ = write!(out, "\\x{:02x}", c as u32);
            }
            c if (c as u32) < 0x10000 => {
                let _ = write!(out, "\\u{:04x}", c as u32);
            }
            c => {
                let _ = write!(out, "\\U{:08x}", c as u32);
            }
        }
    }
    out.push('"');
}

/// `unicode.IsPrint`: letters, marks, numbers, punctuation, symbols and the ASCII space. Without
/// Unicode's category tables this refuses controls, every space but U+0020, the format and
/// private-use ranges and non-characters; unassigned code points pass as printable (Go escapes
/// them), which only changes how they look, not what a parser reads back.
fn is_go_print(c: char) -> bool {
    let u = c as u32;
    if u < 0x80 {
        return (0x20..0x7f).contains(&u);
    }
    if c.is_control() || c.is_whitespace() {
        return false;
    }
    !matches!(u,
        0xad | 0x600..=0x605 | 0x61c | 0x6dd | 0x70f | 0x890..=0x891 | 0x8e2 | 0x180e
        | 0x200b..=0x200f | 0x202a..=0x202e | 0x2060..=0x2064 | 0x2066..=0x206f
        | 0xd800..=0xdfff | 0xe000..=0xf8ff | 0xfdd0..=0xfdef | 0xfeff | 0xfff9..=0xfffb
        | 0x110bd | 0x110cd | 0x13430..=0x1343f | 0x1bca0..=0x1bca3 | 0x1d173..=0x1d17a
        | 0xe0001 | 0xe0020..=0xe007f | 0xf0000..=0x10ffff)
        && (u & 0xfffe) != 0xfffe
}

#[cfg(test)]
mod tests {
    use super::*;

    fn q(s: &str) -> String {
        let mut out = String::new();
        go_quote(s, &mut out);
        out
    }

    /// Cases from Go's `strconv` `quotetests` (quote_test.go) that apply to valid UTF-8.
    #[test]
    fn quote_matches_go_strconv() {
        assert_eq!(q("\x07\x08\x0c\r\n\t\x0b"), r#""\a\b\f\r\n\t\v""#);
        assert_eq!(q("\\"), r#""\\""#);
        assert_eq!(q("abc\u{ff}def"), "\"abc\u{ff}def\"");
        assert_eq!(q("\u{263a}"), "\"\u{263a}\"");
        assert_eq!(q("\u{10ffff}"), r#""\U0010ffff""#);
        assert_eq!(q("\x04"), r#""\x04""#);
        assert_eq!(q("!\u{00a0}!\u{2000}!\u{3000}!"), r#""!\u00a0!\u2000!\u3000!""#);
        assert_eq!(q("\x7f"), r#""\x7f""#);
        assert_eq!(q("\u{feff}"), r#""\ufeff""#);
    }

    /// klog's `TestKVListFormat`-style cases: quoting, bare numbers, multi-line blocks, err first.
    #[test]
    fn bodies_match_klog() {
        let mut out = String::new();
        body(Severity::Info, &Line::new("test").n("count", 1).s("s", "x\"y"), &mut out);
        assert_eq!(out, r#""test" count=1 s="x\"y""#);

        let mut out = String::new();
        body(Severity::Info, &Line::new("hello world").s("key", "line 1\nline 2"), &mut out);
        assert_eq!(out, "\"hello world\" key=<\n\tline 1\n\tline 2\n >");

        let mut out = String::new();
        body(Severity::Info, &Line::new("m").s("key", "ends\n"), &mut out);
        assert_eq!(out, "\"m\" key=<\n\tends\n >");

        let mut out = String::new();
        body(Severity::Error, &Line::new("Failed").o("pod", "ns/p").s("err", "boom"), &mut out);
        assert_eq!(out, r#""Failed" err="boom" pod="ns/p""#);

        let mut out = String::new();
        body(Severity::Info, &Line::new("multi\nline msg").l("plugins", ["A", "B"]), &mut out);
        assert_eq!(out, r#""multi\nline msg" plugins=[A B]"#);
    }

    #[test]
    fn header_is_klogs() {
        let line = Line::new("Attempting to schedule pod").o("pod", "default/web-1");
        let e = Entry { severity: Severity::Info, v: 3, line: &line, file: "src/core/scheduler/schedule_one.rs", lineno: 77 };
        assert_eq!(
            format(&e, "1017 10:59:24.725039", 12345),
            "I1017 10:59:24.725039   12345 schedule_one.rs:77] \"Attempting to schedule pod\" pod=\"default/web-1\"\n"
        );
    }
}
