//! Property test: any message and any value round-trip through edgesched's klog text format
//! and its JSON format, read back by parsers written here (the text reader in
//! `support/klog_text.rs`, serde_json for JSON): quotes, backslashes, control characters, line
//! breaks and non-ASCII never break a line apart or change a value. The `log_text` fuzz target
//! runs the same property on fuzzer-chosen strings.

mod support;

use edgesched::core::logging::{json, text, Entry, Line, Severity};
use edgesched::core::rng::Rng;
use support::klog_text::{expected_readback, parse_entry};

/// Characters the generator draws from: the escapes Go knows, other controls, quotes,
/// klog's block markers, separators and a few non-ASCII and non-printable code points.
const ALPHABET: &[char] = &[
    'a',
    'Z',
    '0',
    ' ',
    '"',
    '\\',
    '\n',
    '\r',
    '\t',
    '\x07',
    '\x08',
    '\x0b',
    '\x0c',
    '\x00',
    '\x1b',
    '\x7f',
    '=',
    '<',
    '>',
    '[',
    ']',
    '{',
    '}',
    ':',
    '/',
    '\'',
    '%',
    'é',
    '中',
    '\u{a0}',
    '\u{200b}',
    '\u{2028}',
    '\u{feff}',
    '\u{e000}',
    '😀',
    '\u{10ffff}',
    '\u{fffe}',
];

fn random_string(rng: &mut Rng) -> String {
    let len = rng.below(24) as usize;
    (0..len).map(|_| ALPHABET[rng.below(ALPHABET.len() as u64) as usize]).collect()
}

/// Format `msg` with one string value `v` and a number, in both formats, and read them back.
pub fn check(msg: &str, v: &str, severity: Severity) {
    let line = Line::new(msg).s("value", v).n("count", 7).o("pod", "ns/p");
    let entry = Entry { severity, v: 3, line: &line, file: "src/core/scheduler/schedule_one.rs", lineno: 12 };

    let out = text::format(&entry, "1017 10:59:24.725039", 4242);
    let (parsed, rest) = parse_entry(&out).unwrap_or_else(|e| panic!("{e}: {out:?}"));
    assert_eq!(rest, "", "one entry: {out:?}");
    assert_eq!(parsed.msg, msg, "{out:?}");
    assert_eq!(parsed.caller, "schedule_one.rs:12");
    let get = |k: &str| parsed.kv.iter().find(|(key, _)| key == k).map(|(_, v)| v.as_str());
    assert_eq!(get("value"), Some(expected_readback(v)), "{out:?}");
    assert_eq!(get("count"), Some("7"));
    assert_eq!(get("pod"), Some("ns/p"));

    let out = json::format(&entry, 1_700_000_000_123.456);
    assert!(out.ends_with('\n') && !out[..out.len() - 1].contains('\n'), "one line: {out:?}");
    let j: serde_json::Value = serde_json::from_str(&out).unwrap_or_else(|e| panic!("{e}: {out:?}"));
    assert_eq!(j["msg"], msg);
    assert_eq!(j["value"], v);
    assert_eq!(j["count"], 7);
    assert_eq!(j["pod"], serde_json::json!({"name": "p", "namespace": "ns"}));
    assert_eq!(j["caller"], "scheduler/schedule_one.rs:12");
    assert!(j["ts"].is_f64());
    assert_eq!(j.get("v").is_some(), severity != Severity::Error);
}

#[test]
fn any_string_round_trips_through_both_formats() {
    let mut rng = Rng::seeded(14);
    for i in 0..20_000 {
        let severity = [Severity::Info, Severity::Warning, Severity::Error][i % 3];
        check(&random_string(&mut rng), &random_string(&mut rng), severity);
    }
}

/// Edge cases klog's own tests single out (keyvalues_test.go: multi-line values, values ending
/// in a line break, empty values).
#[test]
fn klog_edge_cases() {
    for v in ["", "\n", "\n\n", "a\nb", "a\nb\n", " >", "\n >\n", "\t\n\t", "x\"y", "\\"] {
        check("msg", v, Severity::Info);
    }
    check("", "", Severity::Error);
    check("multi\nline message", "v", Severity::Warning);
}

/// A block value: the exact layout klog writes.
#[test]
fn multi_line_values_are_klog_blocks() {
    let line = Line::new("Using component config").s("config", "a: 1\nb: 2\n");
    let entry = Entry { severity: Severity::Info, v: 2, line: &line, file: "main.rs", lineno: 1 };
    let out = text::format(&entry, "1017 10:59:24.725039", 1);
    assert!(out.ends_with("] \"Using component config\" config=<\n\ta: 1\n\tb: 2\n >\n"), "{out:?}");
}
