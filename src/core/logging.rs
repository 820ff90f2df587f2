//! Structured log lines as klog writes them (`"message" key="value" n=3`), built by the core and
//! the shell alike; the logger that prints them (prefix, timestamp, levels) is installed by
//! the shell's logging module, installed by the binary at start.

use std::fmt::{self, Write as _};

/// A structured log line: a quoted message followed by `key=value` pairs; strings are quoted
/// (`pod="ns/name"`), numbers and booleans are not, as klog's structured logging prints them.
pub struct Line {
    text: String,
}

impl Line {
    pub fn new(msg: &str) -> Line {
        let mut text = String::with_capacity(96);
        let _ = write!(text, "{msg:?}");
        Line { text }
    }

    /// Add a string value (quoted).
    pub fn s(mut self, key: &str, value: impl fmt::Display) -> Line {
        let _ = write!(self.text, " {key}={:?}", value.to_string());
        self
    }

    /// Add a number or boolean (unquoted).
    pub fn n(mut self, key: &str, value: impl fmt::Display) -> Line {
        let _ = write!(self.text, " {key}={value}");
        self
    }
}

impl fmt::Display for Line {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.text)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn structured_lines_match_upstream_shape() {
        let l = Line::new("Successfully bound pod to node")
            .s("pod", "apache/web-1")
            .s("node", "n1")
            .n("evaluatedNodes", 4)
            .n("feasibleNodes", 4);
        assert_eq!(
            l.to_string(),
            r#""Successfully bound pod to node" pod="apache/web-1" node="n1" evaluatedNodes=4 feasibleNodes=4"#
        );
    }

    #[test]
    fn quotes_and_line_breaks_inside_values_are_escaped() {
        let l = Line::new("Failed to list").s("resource", "pods").s("err", "pods \"x\" is forbidden:\nnot allowed");
        assert_eq!(l.to_string(), r#""Failed to list" resource="pods" err="pods \"x\" is forbidden:\nnot allowed""#);
    }
}
