//! Log formatting: any message and any value, split from the input at the first NUL, come back
//! unchanged from a klog text reader written in the tests (`tests/support/klog_text.rs`) and
//! from a JSON parser — no quote, backslash, control character or line break can forge a key,
//! end an entry early or change a value (klog's one loss, a final line break of a multi-line
//! value, aside).
#![no_main]

#[path = "../../tests/support/klog_text.rs"]
mod klog_text;

use edgesched::core::logging::{json, text, Entry, Line, Severity};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|input: &str| {
    let (msg, value) = input.split_once('\0').unwrap_or((input, ""));
    let line = Line::new(msg).s("err", value).n("count", 1).o("pod", "ns/p");
    for severity in [Severity::Info, Severity::Error] {
        let entry = Entry { severity, v: 4, line: &line, file: "src/core/queue.rs", lineno: 1 };
        let out = text::format(&entry, "0101 00:00:00.000000", 1);
        let (parsed, rest) = klog_text::parse_entry(&out).unwrap_or_else(|e| panic!("{e}: {out:?}"));
        assert!(rest.is_empty(), "{out:?}");
        assert_eq!(parsed.msg, msg);
        let err = parsed.kv.iter().find(|(k, _)| k == "err").map(|(_, v)| v.as_str());
        assert_eq!(err, Some(klog_text::expected_readback(value)), "{out:?}");
        assert_eq!(parsed.kv.len(), 3, "{out:?}");

        let out = json::format(&entry, 1.5);
        let j: serde_json::Value = serde_json::from_str(&out).unwrap_or_else(|e| panic!("{e}: {out:?}"));
        assert_eq!(j["msg"], msg);
        assert_eq!(j["err"], value);
    }
});
