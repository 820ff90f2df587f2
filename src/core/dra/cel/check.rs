//! The compile-time checks cel-go's checker makes that the `cel` crate leaves to runtime.
//!
//! cel-go type-checks an expression against the environment's declarations before it runs;
//! upstream's `CompileCELExpression` then requires the result type to be `bool` or the attribute
//! type (`must evaluate to bool or the unknown type, not int`). The crate has no checker, so this
//! module rejects at compile time, with cel-go's messages and positions:
//! - references to undeclared variables (`undeclared reference to 'x' (in container '')`),
//! - calls of functions the upstream environment does not declare, or declares only in the
//!   other call style (global vs. member) — this also keeps out the crate's own extras, such as
//!   `string.reverse()` of the newer strings extension,
//! - fields of `device` that do not exist (`undefined field 'x'`),
//! - an expression whose type is statically known not to be `bool` (literals, arithmetic,
//!   comparisons' operands aside, conversions, the typed functions of [`DECLARED`]).
//!
//! What is not checked: argument types of calls (cel-go reports `found no matching overload`
//! at compile time; here the same call fails at evaluation with `no such overload`).

use cel::common::ast::{operators, EntryExpr, Expr, LiteralValue, SourceInfo};
use cel::IdedExpr;

use super::device::FIELDS;
use super::errors::{render, CelError, Issue};
use crate::core::texts::dra_cel as texts;

/// How a function may be called.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Style {
    /// `f(x)`.
    Global,
    /// `x.f()`.
    Member,
    /// Both.
    Both,
}

/// Every function of the v1.35 stored-expression environment of DRA selectors that this
/// environment implements (beyond operators and macros), with its call style and, where every
/// overload agrees, its result type. Not implemented, so rejected at compile time as undeclared:
/// the URL library (`url`, `isURL`, `getScheme`, …) and the Format library (`format.named`,
/// `format.dns1123Label()`, `validate`), which no device selector has a use for.
/// Sources: cel-go's standard library and `ext` libraries at the versions `base.go` pins, and
/// `staging/src/k8s.io/apiserver/pkg/cel/library/*.go` (see [`super::env`]).
pub const DECLARED: &[(&str, Style, Option<&str>)] = &[
    // CEL standard library.
    ("size", Style::Both, Some("int")),
    ("int", Style::Global, Some("int")),
    ("uint", Style::Global, Some("uint")),
    ("double", Style::Global, Some("double")),
    ("string", Style::Global, Some("string")),
    ("bytes", Style::Global, Some("bytes")),
    ("bool", Style::Global, Some("bool")),
    ("dyn", Style::Global, None),
    ("type", Style::Global, Some("type")),
    ("matches", Style::Both, Some("bool")),
    ("contains", Style::Member, Some("bool")),
    ("startsWith", Style::Member, Some("bool")),
    ("endsWith", Style::Member, Some("bool")),
    // Optional types (cel.OptionalTypes).
    ("optional.of", Style::Global, None),
    ("optional.ofNonZeroValue", Style::Global, None),
    ("optional.none", Style::Global, None),
    ("value", Style::Member, None),
    ("hasValue", Style::Member, Some("bool")),
    ("or", Style::Member, None),
    ("orValue", Style::Member, None),
    // ext.Strings(StringsVersion(2)).
    ("charAt", Style::Member, Some("string")),
    ("indexOf", Style::Member, Some("int")),
    ("lastIndexOf", Style::Member, Some("int")),
    ("lowerAscii", Style::Member, Some("string")),
    ("upperAscii", Style::Member, Some("string")),
    ("replace", Style::Member, Some("string")),
    ("split", Style::Member, None),
    ("substring", Style::Member, Some("string")),
    ("trim", Style::Member, Some("string")),
    ("join", Style::Member, Some("string")),
    ("format", Style::Member, Some("string")),
    ("strings.quote", Style::Global, Some("string")),
    // ext.Sets().
    ("sets.contains", Style::Global, Some("bool")),
    ("sets.equivalent", Style::Global, Some("bool")),
    ("sets.intersects", Style::Global, Some("bool")),
    // ext.Lists(ListsVersion(3)).
    ("slice", Style::Member, None),
    ("flatten", Style::Member, None),
    ("distinct", Style::Member, None),
    ("reverse", Style::Member, None),
    ("sort", Style::Member, None),
    ("first", Style::Member, None),
    ("last", Style::Member, None),
    ("lists.range", Style::Global, None),
    ("@sortByAssociatedKeys", Style::Member, None),
    // library.Lists.
    ("isSorted", Style::Member, Some("bool")),
    ("sum", Style::Member, None),
    ("max", Style::Member, None),
    ("min", Style::Member, None),
    // library.Regex.
    ("find", Style::Member, Some("string")),
    ("findAll", Style::Member, None),
    // library.Quantity (`sign` is declared with cel.Overload, a global function).
    ("quantity", Style::Global, Some("kubernetes.Quantity")),
    ("isQuantity", Style::Global, Some("bool")),
    ("sign", Style::Global, Some("int")),
    ("isGreaterThan", Style::Member, Some("bool")),
    ("isLessThan", Style::Member, Some("bool")),
    ("compareTo", Style::Member, Some("int")),
    ("asApproximateFloat", Style::Member, Some("double")),
    ("asInteger", Style::Member, Some("int")),
    ("isInteger", Style::Member, Some("bool")),
    ("add", Style::Member, None),
    ("sub", Style::Member, None),
    // library.SemverLib(SemverVersion(1)).
    ("semver", Style::Global, Some("kubernetes.Semver")),
    ("isSemver", Style::Global, Some("bool")),
    ("major", Style::Member, Some("int")),
    ("minor", Style::Member, Some("int")),
    ("patch", Style::Member, Some("int")),
    // library.IP and library.CIDR.
    ("ip", Style::Both, Some("net.IP")),
    ("isIP", Style::Global, Some("bool")),
    ("ip.isCanonical", Style::Global, Some("bool")),
    ("family", Style::Member, Some("int")),
    ("isUnspecified", Style::Member, Some("bool")),
    ("isLoopback", Style::Member, Some("bool")),
    ("isLinkLocalMulticast", Style::Member, Some("bool")),
    ("isLinkLocalUnicast", Style::Member, Some("bool")),
    ("isGlobalUnicast", Style::Member, Some("bool")),
    ("cidr", Style::Global, Some("net.CIDR")),
    ("isCIDR", Style::Global, Some("bool")),
    ("containsIP", Style::Member, Some("bool")),
    ("containsCIDR", Style::Member, Some("bool")),
    ("masked", Style::Member, Some("net.CIDR")),
    ("prefixLength", Style::Member, Some("int")),
];

/// Identifiers that name types (cel-go declares them as type values).
const TYPE_IDENTS: &[&str] = &["int", "uint", "double", "string", "bytes", "bool", "list", "map", "null_type", "type", "dyn"];

pub(super) fn declared(name: &str) -> Option<(Style, Option<&'static str>)> {
    DECLARED.iter().find(|(n, _, _)| *n == name).map(|(_, s, t)| (*s, *t))
}

struct Checker {
    scopes: Vec<String>,
    issues: Vec<(u64, String)>,
}

/// Checks `program`; the error carries cel-go's rendering of the first issues.
pub fn check(source: &str, program: &IdedExpr, info: &SourceInfo) -> Result<(), CelError> {
    let mut c = Checker { scopes: Vec::new(), issues: Vec::new() };
    c.walk(program);
    if c.issues.is_empty() {
        if let Some(t) = static_type(program) {
            if t != "bool" {
                return Err(CelError::invalid(texts::must_evaluate_to_bool(t)));
            }
        }
        return Ok(());
    }
    let issues: Vec<Issue> = c
        .issues
        .iter()
        .map(|(id, m)| {
            let (line, column) = position(source, info, *id);
            Issue { line, column, message: m.clone() }
        })
        .collect();
    Err(CelError::compile(render(source, &issues)))
}

/// 1-based line and column (in characters) of a node.
fn position(source: &str, info: &SourceInfo, id: u64) -> (usize, usize) {
    let Some((start, _)) = info.offset_for(id) else {
        return (1, 1);
    };
    let start = start as usize;
    let mut line_start = 0;
    let mut line = 1;
    for (i, b) in source.bytes().enumerate() {
        if i >= start {
            break;
        }
        if b == b'\n' {
            line += 1;
            line_start = i + 1;
        }
    }
    let col = source.get(line_start..start.min(source.len())).map_or(0, |s| s.chars().count());
    (line, col + 1)
}

/// `a.b.c` as a dotted name, when the expression is only identifiers and selections.
pub(super) fn qualified_name(e: &IdedExpr) -> Option<String> {
    match &e.expr {
        Expr::Ident(n) => Some(n.clone()),
        Expr::Select(s) if !s.test => qualified_name(&s.operand).map(|p| format!("{p}.{}", s.field)),
        _ => None,
    }
}

impl Checker {
    fn in_scope(&self, name: &str) -> bool {
        self.scopes.iter().any(|s| s == name)
    }

    fn walk(&mut self, e: &IdedExpr) {
        match &e.expr {
            Expr::Ident(name) if !(name == "device" || self.in_scope(name) || TYPE_IDENTS.contains(&name.as_str())) => {
                self.issues.push((e.id, format!("undeclared reference to '{name}' (in container '')")));
            }
            Expr::Ident(_) => {}
            Expr::Select(s) => {
                if let Some(name) = qualified_name(e) {
                    if self.is_namespace_root(&name) && !self.in_scope(root(&name)) {
                        return;
                    }
                }
                if matches!(&s.operand.expr, Expr::Ident(n) if n == "device" && !self.in_scope("device"))
                    && !FIELDS.contains(&s.field.as_str())
                {
                    self.issues.push((e.id, format!("undefined field '{}'", s.field)));
                    return;
                }
                self.walk(&s.operand);
            }
            Expr::Call(call) => {
                let fname = call.func_name.as_str();
                let is_operator = fname.starts_with('_')
                    || fname.starts_with('@') && fname != "@sortByAssociatedKeys"
                    || fname == "!_"
                    || fname == "-_";
                if !is_operator {
                    let mut resolved = false;
                    if let Some(t) = &call.target {
                        if let Some(q) = qualified_name(t) {
                            let full = format!("{q}.{fname}");
                            if !self.in_scope(root(&q)) && declared(&full).is_some() {
                                resolved = true;
                                if let Some((style, _)) = declared(&full) {
                                    if style == Style::Member {
                                        self.issues.push((e.id, format!("undeclared reference to '{full}' (in container '')")));
                                    }
                                }
                            }
                        }
                    }
                    if !resolved {
                        match declared(fname) {
                            None => self.issues.push((e.id, format!("undeclared reference to '{fname}' (in container '')"))),
                            Some((style, _)) => {
                                let member = call.target.is_some();
                                if (member && style == Style::Global) || (!member && style == Style::Member) {
                                    self.issues.push((e.id, format!("undeclared reference to '{fname}' (in container '')")));
                                }
                            }
                        }
                        if let Some(t) = &call.target {
                            self.walk(t);
                        }
                    }
                }
                for a in &call.args {
                    self.walk(a);
                }
            }
            Expr::List(l) => {
                for el in &l.elements {
                    self.walk(el);
                }
            }
            Expr::Map(m) => {
                for entry in &m.entries {
                    if let EntryExpr::MapEntry(me) = &entry.expr {
                        self.walk(&me.key);
                        self.walk(&me.value);
                    }
                }
            }
            Expr::Struct(s) => {
                self.issues.push((e.id, format!("undeclared reference to '{}' (in container '')", s.type_name)));
            }
            Expr::Comprehension(c) => {
                self.walk(&c.iter_range);
                self.walk(&c.accu_init);
                self.scopes.push(c.accu_var.clone());
                self.scopes.push(c.iter_var.clone());
                if let Some(v2) = &c.iter_var2 {
                    self.scopes.push(v2.clone());
                }
                self.walk(&c.loop_cond);
                self.walk(&c.loop_step);
                if c.iter_var2.is_some() {
                    self.scopes.pop();
                }
                self.scopes.pop();
                self.walk(&c.result);
                self.scopes.pop();
            }
            Expr::Literal(_) | Expr::Unspecified => {}
            #[allow(unreachable_patterns)]
            _ => {}
        }
    }

    fn is_namespace_root(&self, name: &str) -> bool {
        declared(name).is_some()
    }
}

fn root(name: &str) -> &str {
    name.split('.').next().unwrap_or(name)
}

/// The type of `e` where it is known without type-checking the whole expression.
pub fn static_type(e: &IdedExpr) -> Option<&'static str> {
    match &e.expr {
        Expr::Literal(l) => Some(match l {
            LiteralValue::Boolean(_) => "bool",
            LiteralValue::Bytes(_) => "bytes",
            LiteralValue::Double(_) => "double",
            LiteralValue::Int(_) => "int",
            LiteralValue::Null => "null_type",
            LiteralValue::String(_) => "string",
            LiteralValue::UInt(_) => "uint",
        }),
        // Aggregates print with their element types (`list(int)`): left to the runtime check.
        Expr::List(_) | Expr::Map(_) => None,
        Expr::Select(s) if s.test => Some("bool"),
        Expr::Select(s) => match (&s.operand.expr, s.field.as_str()) {
            (Expr::Ident(n), "driver") if n == "device" => Some("string"),
            (Expr::Ident(n), "allowMultipleAllocations") if n == "device" => Some("bool"),
            _ => None,
        },
        Expr::Call(call) => match call.func_name.as_str() {
            operators::LOGICAL_AND | operators::LOGICAL_OR | operators::LOGICAL_NOT => Some("bool"),
            operators::EQUALS
            | operators::NOT_EQUALS
            | operators::LESS
            | operators::LESS_EQUALS
            | operators::GREATER
            | operators::GREATER_EQUALS
            | operators::IN => Some("bool"),
            operators::CONDITIONAL => {
                let (a, b) = (call.args.get(1).and_then(static_type), call.args.get(2).and_then(static_type));
                if a == b {
                    a
                } else {
                    None
                }
            }
            operators::ADD | operators::SUBSTRACT | operators::MULTIPLY | operators::DIVIDE | operators::MODULO => {
                let a = call.args.first().and_then(static_type);
                let b = call.args.get(1).and_then(static_type);
                match (a, b) {
                    (Some(x), Some(y)) if x == y && x != "bool" => Some(x),
                    _ => None,
                }
            }
            operators::NEGATE => call.args.first().and_then(static_type).filter(|t| *t == "int" || *t == "double"),
            name => {
                let full = call.target.as_ref().and_then(|t| qualified_name(t)).map(|q| format!("{q}.{name}"));
                let decl = full.as_deref().and_then(declared).or_else(|| declared(name));
                decl.and_then(|(_, t)| t)
            }
        },
        Expr::Comprehension(c) => static_type(&c.result),
        _ => None,
    }
}
