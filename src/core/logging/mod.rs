//! Structured log entries as kube-scheduler writes them through klog: a message, a verbosity
//! level (`V(n)`) or a severity, and key/value pairs. The core builds and emits them; the shell
//! installs the [`Sink`] that prints them (klog's text format, [`text`], or component-base's
//! JSON, [`json`]) and sets the `--v` threshold. Without a sink (unit tests, tools) entries are
//! dropped.
//!
//! Emitting is not I/O here: the entry is handed to the installed sink, as the `log` facade
//! does. Levels follow upstream's call sites (each cites its file), so a log pipeline built for
//! kube-scheduler at `--v=N` sees the same messages and keys.

pub mod json;
pub mod text;

use std::fmt;
use std::sync::atomic::{AtomicU8, Ordering};
use std::sync::OnceLock;

/// klog's severities: `I`, `W`, `E` in the text header; in JSON, errors carry no `v`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Severity {
    Info,
    Warning,
    Error,
}

/// One value, typed as klog types it: strings are quoted, numbers and booleans are not, object
/// references (`klog.KObj`/`KRef`) print as `ns/name` in text and as an object in JSON.
#[derive(Debug, Clone, PartialEq)]
pub enum Value {
    Str(String),
    /// A number or boolean, already formatted.
    Num(String),
    /// `klog.KObj`: namespace (empty for cluster-scoped objects) and name.
    Ref {
        namespace: String,
        name: String,
    },
    /// A list of strings (`%+v` of a Go slice in text: `[a b]`; an array in JSON).
    List(Vec<String>),
}

/// A structured log line: a message followed by `key=value` pairs, built with the chained
/// methods and emitted with [`Line::info`], [`Line::warning`], [`Line::error`] or [`v`].
#[derive(Debug, Clone, PartialEq)]
pub struct Line {
    pub msg: String,
    pub kv: Vec<(&'static str, Value)>,
}

impl Line {
    pub fn new(msg: impl Into<String>) -> Line {
        Line { msg: msg.into(), kv: Vec::new() }
    }

    /// Add a string value (quoted).
    pub fn s(mut self, key: &'static str, value: impl fmt::Display) -> Line {
        self.kv.push((key, Value::Str(value.to_string())));
        self
    }

    /// Add a number or boolean (unquoted).
    pub fn n(mut self, key: &'static str, value: impl fmt::Display) -> Line {
        self.kv.push((key, Value::Num(value.to_string())));
        self
    }

    /// Add an object reference given as `namespace/name` or `name` (klog.KObj / klog.KRef).
    pub fn o(mut self, key: &'static str, key_or_name: &str) -> Line {
        let (namespace, name) = match key_or_name.split_once('/') {
            Some((ns, name)) => (ns.to_string(), name.to_string()),
            None => (String::new(), key_or_name.to_string()),
        };
        self.kv.push((key, Value::Ref { namespace, name }));
        self
    }

    /// Add a list of strings.
    pub fn l<S: fmt::Display>(mut self, key: &'static str, values: impl IntoIterator<Item = S>) -> Line {
        self.kv.push((key, Value::List(values.into_iter().map(|v| v.to_string()).collect())));
        self
    }

    /// `klog.InfoS` / `logger.Info` at V(0).
    #[track_caller]
    pub fn info(self) {
        emit(Severity::Info, 0, &self, std::panic::Location::caller());
    }

    /// `klog.Warning`: printed whatever `--v` is.
    #[track_caller]
    pub fn warning(self) {
        emit(Severity::Warning, 0, &self, std::panic::Location::caller());
    }

    /// `klog.ErrorS` / `logger.Error` (and `utilruntime.HandleError`): printed whatever `--v` is.
    #[track_caller]
    pub fn error(self) {
        emit(Severity::Error, 0, &self, std::panic::Location::caller());
    }
}

/// The klog text rendering of the message and pairs, without the header (for messages that
/// embed a line, and for tests).
impl fmt::Display for Line {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let mut out = String::new();
        text::body(Severity::Info, self, &mut out);
        f.write_str(&out)
    }
}

/// One emitted entry, as a sink receives it.
#[derive(Debug)]
pub struct Entry<'a> {
    pub severity: Severity,
    /// The `V(n)` level (0 for warnings and errors).
    pub v: u8,
    pub line: &'a Line,
    /// Source file and line of the call (the `caller` of JSON, `file:line]` of the text header).
    pub file: &'a str,
    pub lineno: u32,
}

/// Where entries go; installed once by the shell.
pub trait Sink: Send + Sync {
    fn write(&self, entry: &Entry<'_>);
}

static SINK: OnceLock<Box<dyn Sink>> = OnceLock::new();
static VERBOSITY: AtomicU8 = AtomicU8::new(0);
static VMODULE: OnceLock<Vec<(String, u8)>> = OnceLock::new();

/// Install the sink and the `--v` threshold; a second call only changes the threshold.
pub fn install(sink: Box<dyn Sink>, verbosity: u8) {
    VERBOSITY.store(verbosity, Ordering::Relaxed);
    let _ = SINK.set(sink);
}

/// `--vmodule` settings (`pattern=N`), installed once.
pub fn install_vmodule(settings: Vec<(String, u8)>) {
    let _ = VMODULE.set(settings);
}

/// Parse `--vmodule` (klog's `moduleSpec.Set`): comma-separated `pattern=N`.
pub fn parse_vmodule(spec: &str) -> Result<Vec<(String, u8)>, String> {
    let mut out = Vec::new();
    for pat in spec.split(',').map(str::trim).filter(|p| !p.is_empty()) {
        let Some((pattern, level)) = pat.split_once('=') else {
            return Err("syntax error: expect comma-separated list of filename=N".into());
        };
        if pattern.is_empty() {
            return Err("syntax error: expect comma-separated list of filename=N".into());
        }
        let level: u8 = level.parse().map_err(|_| "syntax error: expect comma-separated list of filename=N".to_string())?;
        out.push((pattern.to_string(), level));
    }
    Ok(out)
}

/// Whether `--vmodule` enables `level` for the source file `file` (klog: the pattern is
/// matched with `filepath.Match` against the file's base name without extension, or against
/// the whole path without extension when it contains a `/`; the first matching pattern decides).
fn vmodule_enables(level: u8, file: &str) -> bool {
    let Some(settings) = VMODULE.get() else { return false };
    let path = file.strip_suffix(".rs").unwrap_or(file);
    let base = path.rsplit(['/', '\\']).next().unwrap_or(path);
    settings
        .iter()
        .find(|(pattern, _)| glob(pattern, if pattern.contains('/') { path } else { base }))
        .is_some_and(|(_, v)| level <= *v)
}

/// `filepath.Match` for `*` and `?` (no character classes).
fn glob(pattern: &str, name: &str) -> bool {
    let (p, n): (Vec<char>, Vec<char>) = (pattern.chars().collect(), name.chars().collect());
    let (mut pi, mut ni, mut star, mut mark) = (0, 0, None, 0);
    while ni < n.len() {
        if pi < p.len() && (p[pi] == '?' || p[pi] == n[ni]) && p[pi] != '*' {
            pi += 1;
            ni += 1;
        } else if pi < p.len() && p[pi] == '*' {
            star = Some(pi);
            mark = ni;
            pi += 1;
        } else if let Some(s) = star {
            pi = s + 1;
            mark += 1;
            ni = mark;
        } else {
            return false;
        }
    }
    p[pi..].iter().all(|c| *c == '*')
}

/// Whether `V(level)` lines are printed (`logger.V(level).Enabled()`).
pub fn enabled(level: u8) -> bool {
    level <= VERBOSITY.load(Ordering::Relaxed)
}

/// `logger.V(level).Info(...)`: the line is built only when the level is enabled.
#[track_caller]
pub fn v(level: u8, build: impl FnOnce() -> Line) {
    let at = std::panic::Location::caller();
    if enabled(level) || vmodule_enables(level, at.file()) {
        emit(Severity::Info, level, &build(), at);
    }
}

fn emit(severity: Severity, v: u8, line: &Line, at: &std::panic::Location<'_>) {
    emit_from(severity, v, line, at.file(), at.line());
}

/// Emit with an explicit caller (records bridged from the `log` facade).
pub fn emit_from(severity: Severity, v: u8, line: &Line, file: &str, lineno: u32) {
    if let Some(sink) = SINK.get() {
        sink.write(&Entry { severity, v, line, file, lineno });
    }
}

/// Unit tests' view of what the core logs: entries emitted on this thread while `f` runs, as
/// `(severity, v, body)`.
#[cfg(test)]
pub mod capture {
    use super::{Entry, Severity, Sink};
    use std::cell::RefCell;

    thread_local! {
        static LINES: RefCell<Option<Vec<(Severity, u8, String)>>> = const { RefCell::new(None) };
    }

    struct Capture;

    impl Sink for Capture {
        fn write(&self, e: &Entry<'_>) {
            LINES.with(|l| {
                if let Some(v) = l.borrow_mut().as_mut() {
                    v.push((e.severity, e.v, e.line.to_string()));
                }
            });
        }
    }

    /// Run `f` and return the entries logged on this thread meanwhile (every level).
    pub fn entries(f: impl FnOnce()) -> Vec<(Severity, u8, String)> {
        super::install(Box::new(Capture), 10);
        LINES.with(|l| *l.borrow_mut() = Some(Vec::new()));
        f();
        LINES.with(|l| l.borrow_mut().take().unwrap_or_default())
    }

    /// The bodies of [`entries`].
    pub fn lines(f: impl FnOnce()) -> Vec<String> {
        entries(f).into_iter().map(|(_, _, l)| l).collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn structured_lines_match_upstream_shape() {
        let l = Line::new("Successfully bound pod to node")
            .o("pod", "apache/web-1")
            .o("node", "n1")
            .n("evaluatedNodes", 4)
            .n("feasibleNodes", 4);
        assert_eq!(
            l.to_string(),
            r#""Successfully bound pod to node" pod="apache/web-1" node="n1" evaluatedNodes=4 feasibleNodes=4"#
        );
    }

    /// klog's `TestVmodule*` cases: globs on the file's base name.
    #[test]
    fn vmodule_specs_and_globs() {
        assert_eq!(parse_vmodule("queue=5,schedule_*=3"), Ok(vec![("queue".into(), 5), ("schedule_*".into(), 3)]));
        assert!(parse_vmodule("queue").is_err());
        assert!(parse_vmodule("queue=x").is_err());
        assert!(parse_vmodule("=1").is_err());
        assert!(glob("schedule_*", "schedule_one"));
        assert!(glob("q?eue", "queue"));
        assert!(!glob("queue", "queues"));
        assert!(glob("*", ""));
    }

    #[test]
    fn quotes_inside_values_are_escaped() {
        let l = Line::new("Failed to list").s("resource", "pods").s("err", "pods \"x\" is forbidden: not allowed");
        assert_eq!(l.to_string(), r#""Failed to list" resource="pods" err="pods \"x\" is forbidden: not allowed""#);
    }
}
