//! Selector errors in upstream's words.
//!
//! Upstream's compile errors are `apiservercel.Error{Type, Detail}` whose text is the detail
//! (`compilation failed: ` + cel-go's `Issues.String()`, compile.go v1.35); evaluation errors are
//! cel-go's runtime errors as `DeviceMatches` returns them. The allocator wraps both
//! (`CEL compile error: …`, `CEL runtime error: …`).

use std::fmt;

use cel::common::value::Val;
use cel::{ExecutionError, ParseErrors};

use crate::core::texts::dra_cel as texts;

/// What went wrong, as upstream classifies it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CelErrorKind {
    /// The expression does not compile (`apiservercel.ErrorTypeInvalid`).
    Compile,
    /// The expression is longer than `CELSelectorExpressionMaxLength` (API validation's check).
    TooLong,
    /// The environment could not be built (`apiservercel.ErrorTypeInternal`; never expected).
    Internal,
    /// Evaluation failed (missing key, type error, non-bool result, bad device data).
    Evaluation,
    /// Evaluation was cancelled at the runtime cost limit.
    CostLimit,
}

/// A selector error: its kind and upstream's text.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CelError {
    pub kind: CelErrorKind,
    pub message: String,
}

impl CelError {
    pub(super) fn compile(detail: String) -> CelError {
        CelError { kind: CelErrorKind::Compile, message: texts::compilation_failed(&detail) }
    }

    pub(super) fn invalid(message: String) -> CelError {
        CelError { kind: CelErrorKind::Compile, message }
    }

    pub(super) fn too_long(max: usize) -> CelError {
        CelError { kind: CelErrorKind::TooLong, message: texts::too_long(max) }
    }

    pub(super) fn internal(message: String) -> CelError {
        CelError { kind: CelErrorKind::Internal, message }
    }

    pub(super) fn evaluation(message: String) -> CelError {
        if message == texts::COST_LIMIT_EXCEEDED {
            return CelError { kind: CelErrorKind::CostLimit, message };
        }
        CelError { kind: CelErrorKind::Evaluation, message }
    }

    /// True for a compile-time error (what the allocator reports as `CEL compile error`).
    pub fn is_compile_error(&self) -> bool {
        matches!(self.kind, CelErrorKind::Compile | CelErrorKind::TooLong | CelErrorKind::Internal)
    }
}

impl fmt::Display for CelError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.message)
    }
}

impl std::error::Error for CelError {}

/// One issue at a position (1-based line and column, as displayed).
pub(super) struct Issue {
    pub line: usize,
    pub column: usize,
    pub message: String,
}

/// cel-go's `Errors.ToDisplayString` (common/errors.go): each issue as
/// `ERROR: <input>:L:C: msg`, the source line, and a caret under the column (`.` per character
/// before it, full-width for multi-byte ones); issues joined by newlines.
pub(super) fn render(source: &str, issues: &[Issue]) -> String {
    let mut out = String::new();
    for (i, issue) in issues.iter().enumerate() {
        if i > 0 {
            out.push('\n');
        }
        out.push_str(&format!("ERROR: <input>:{}:{}: {}", issue.line, issue.column, issue.message));
        if let Some(line) = source.split('\n').nth(issue.line.saturating_sub(1)) {
            let snippet = line.replace('\t', " ");
            out.push_str("\n | ");
            out.push_str(&snippet);
            out.push_str("\n | ");
            let mut chars = snippet.chars();
            for _ in 0..issue.column.saturating_sub(1) {
                match chars.next() {
                    Some(c) if c.len_utf8() > 1 => out.push('\u{ff0e}'),
                    Some(_) => out.push('.'),
                    None => break,
                }
            }
            match chars.next() {
                Some(c) if c.len_utf8() > 1 => out.push('\u{ff3e}'),
                _ => out.push('^'),
            }
        }
    }
    out
}

/// The parser's errors in cel-go's display form.
pub(super) fn render_parse_errors(source: &str, errors: &ParseErrors) -> String {
    let issues: Vec<Issue> = errors
        .errors
        .iter()
        .map(|e| Issue {
            line: usize::try_from(e.pos.0).unwrap_or(1).max(1),
            column: usize::try_from(e.pos.1).unwrap_or(1).max(1),
            message: e.msg.clone(),
        })
        .collect();
    render(source, &issues)
}

/// An interpreter error in cel-go's runtime words.
pub(super) fn execution_error_text(e: &ExecutionError) -> String {
    match e {
        ExecutionError::NoSuchKey(k) => texts::no_such_key(k),
        ExecutionError::UndeclaredReference(name) => format!("no such attribute(s): {name}"),
        ExecutionError::DivisionByZero(_) => "division by zero".into(),
        ExecutionError::RemainderByZero(_) => "modulus by zero".into(),
        ExecutionError::Overflow(..) => "integer overflow".into(),
        ExecutionError::IndexOutOfBounds(i) => format!("index out of range: {}", value_text(i)),
        ExecutionError::FunctionError { message, .. } => message.clone(),
        ExecutionError::NoSuchOverload(_) | ExecutionError::UnexpectedType { .. } | ExecutionError::ValuesNotComparable(..) => {
            "no such overload".into()
        }
        ExecutionError::UnsupportedBinaryOperator(..) => "no such overload".into(),
        other => other.to_string(),
    }
}

fn value_text(v: &cel::Value) -> String {
    match v {
        cel::Value::Int(i) => i.to_string(),
        cel::Value::UInt(u) => u.to_string(),
        cel::Value::Float(f) => f.to_string(),
        other => format!("{other:?}"),
    }
}

/// cel-go's type name of a value, as `TypeName()` reports it.
pub(super) fn type_name(v: &dyn Val) -> String {
    match v.get_type().name() {
        "null" => "null_type".into(),
        other => other.to_string(),
    }
}

/// `DeviceMatches`' error for a result that is not a bool: the type, then cel-go's
/// `ConvertToNative` error (lists and maps are named without quotes there).
pub(super) fn not_bool_text(v: &dyn Val) -> String {
    let name = type_name(v);
    let detail = match name.as_str() {
        "list" | "map" => format!("type conversion error from {name} to 'bool'"),
        _ => format!("type conversion error from '{name}' to 'bool'"),
    };
    texts::not_bool(&name, &detail)
}
