//! Escaping for text the page did not write itself: node, pod, zone and plugin names, reasons,
//! messages, file names. Everything user-controlled goes through [`Esc`], in element text and in
//! quoted attribute values alike (the same five characters are enough for both), so a pod named
//! `<script>` is text on the page, never markup.
//!
//! Hand-written rather than a crate: it is a fixed five-character substitution with no parsing
//! and no state, smaller than the glue a dependency would need.

use std::fmt;

/// `text`, escaped for HTML (and inline SVG) element text and double- or single-quoted
/// attribute values. C0 control characters other than tab, newline and carriage return, and DEL
/// (which HTML does not allow as text), become U+FFFD.
#[derive(Debug, Clone, Copy)]
pub struct Esc<'a>(pub &'a str);

impl fmt::Display for Esc<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let mut rest = self.0;
        while let Some(at) = rest.find(|c: char| matches!(c, '&' | '<' | '>' | '"' | '\'') || is_forbidden_control(c)) {
            f.write_str(&rest[..at])?;
            let c = rest[at..].chars().next().unwrap_or('\u{fffd}');
            f.write_str(match c {
                '&' => "&amp;",
                '<' => "&lt;",
                '>' => "&gt;",
                '"' => "&quot;",
                '\'' => "&#39;",
                _ => "\u{fffd}",
            })?;
            rest = &rest[at + c.len_utf8()..];
        }
        f.write_str(rest)
    }
}

fn is_forbidden_control(c: char) -> bool {
    (c < '\u{20}' && !matches!(c, '\t' | '\n' | '\r')) || c == '\u{7f}'
}

#[cfg(test)]
mod tests {
    use super::Esc;

    #[test]
    fn markup_quotes_and_ampersands_become_text() {
        let cases = [
            ("plain-name.example", "plain-name.example"),
            ("<script>alert(1)</script>", "&lt;script&gt;alert(1)&lt;/script&gt;"),
            ("a\"b'c", "a&quot;b&#39;c"),
            ("&amp; already", "&amp;amp; already"),
            ("tab\tnewline\n", "tab\tnewline\n"),
            ("nul\u{0}bell\u{7}del\u{7f}", "nul\u{fffd}bell\u{fffd}del\u{fffd}"),
            ("zoné → ü", "zoné → ü"),
            ("", ""),
        ];
        for (raw, want) in cases {
            assert_eq!(Esc(raw).to_string(), want, "{raw:?}");
        }
    }
}
