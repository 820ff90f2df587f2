//! The parts of the selector environment the `cel` crate does not have: the Kubernetes CEL
//! libraries (`staging/src/k8s.io/apiserver/pkg/cel/library/`, kubernetes/kubernetes v1.35) and
//! the cel-go extensions upstream's base environment enables that the crate lacks or words
//! differently. Each function keeps upstream's overload semantics and error texts; each group is
//! registered by one function below.

pub mod k8s_lists;
pub mod macros;
mod net;
pub mod regex;
mod sets;

use cel::common::ast::{EntryExpr, Expr};
use cel::common::types::{CelBool, CelDouble, CelInt, CelString};
use cel::{DeclarationError, Env, ExecutionError, IdedExpr};

use super::quantity::CelQuantity;
use super::semver::Semver;

/// Registers every library of this module on `env`.
pub fn register(env: &mut Env) -> Result<(), DeclarationError> {
    quantity(env)?;
    semver(env)?;
    k8s_lists::register(env)?;
    sets::register(env)?;
    net::register(env)?;
    regex::register(env)?;
    macros::register(env)?;
    Ok(())
}

/// Resolves calls the way cel-go's checker does before the crate interprets them: a namespaced
/// function (`sets.contains(a, b)`, `lists.range(3)`) becomes a global call of its full name
/// (the crate would otherwise take `sets` for the receiver of the string method `contains`), and
/// `matches` goes to the cached [`regex::MATCHES`], `lists.range` to the bounded
/// [`k8s_lists::RANGE`].
pub fn lower(e: &mut IdedExpr) {
    match &mut e.expr {
        Expr::Call(c) => {
            if let Some(q) = c.target.as_deref().and_then(super::check::qualified_name) {
                let full = format!("{q}.{}", c.func_name);
                if super::check::declared(&full).is_some() {
                    c.func_name = full;
                    c.target = None;
                }
            }
            if c.func_name == "matches" {
                c.func_name = regex::MATCHES.to_string();
            }
            if c.func_name == "lists.range" && c.target.is_none() {
                c.func_name = k8s_lists::RANGE.to_string();
            }
            if let Some(t) = c.target.as_deref_mut() {
                lower(t);
            }
            c.args.iter_mut().for_each(lower);
        }
        Expr::Select(s) => lower(&mut s.operand),
        Expr::List(l) => l.elements.iter_mut().for_each(lower),
        Expr::Map(m) => {
            for entry in m.entries.iter_mut() {
                if let EntryExpr::MapEntry(me) = &mut entry.expr {
                    lower(&mut me.key);
                    lower(&mut me.value);
                }
            }
        }
        Expr::Comprehension(c) => {
            for x in [&mut c.iter_range, &mut c.accu_init, &mut c.loop_cond, &mut c.loop_step, &mut c.result] {
                lower(x);
            }
        }
        _ => {}
    }
}

/// An error raised by a library function, with upstream's text as the whole message.
pub(super) fn fail(function: &str, message: impl Into<String>) -> ExecutionError {
    ExecutionError::function_error(function, message.into())
}

// library.Quantity (quantity.go).

fn quantity(env: &mut Env) -> Result<(), DeclarationError> {
    cel::add_overload!(env, fn string_to_quantity: (CelString) -> Result<CelQuantity>, name = "quantity")?;
    cel::add_overload!(env, fn is_quantity: (CelString) -> CelBool, name = "isQuantity")?;
    cel::add_overload!(env, fn quantity_sign: (CelQuantity) -> CelInt, name = "sign")?;
    cel::add_member_overload!(env, fn quantity_is_greater_than: (CelQuantity, CelQuantity) -> CelBool, name = "isGreaterThan")?;
    cel::add_member_overload!(env, fn quantity_is_less_than: (CelQuantity, CelQuantity) -> CelBool, name = "isLessThan")?;
    cel::add_member_overload!(env, fn quantity_compare_to: (CelQuantity, CelQuantity) -> CelInt, name = "compareTo")?;
    cel::add_member_overload!(env, fn quantity_get_float: (CelQuantity) -> CelDouble, name = "asApproximateFloat")?;
    cel::add_member_overload!(env, fn quantity_get_int: (CelQuantity) -> Result<CelInt>, name = "asInteger")?;
    cel::add_member_overload!(env, fn quantity_is_integer: (CelQuantity) -> CelBool, name = "isInteger")?;
    cel::add_member_overload!(env, fn quantity_add: (CelQuantity, CelQuantity) -> CelQuantity, name = "add")?;
    cel::add_member_overload!(env, fn quantity_add_int: (CelQuantity, CelInt) -> CelQuantity, name = "add")?;
    cel::add_member_overload!(env, fn quantity_sub: (CelQuantity, CelQuantity) -> CelQuantity, name = "sub")?;
    cel::add_member_overload!(env, fn quantity_sub_int: (CelQuantity, CelInt) -> CelQuantity, name = "sub")?;
    Ok(())
}

/// Go's `resource.ParseQuantity` errors as `types.WrapErr` prints them.
fn quantity_error_text(e: &crate::core::quantity::QuantityError) -> &'static str {
    use crate::core::quantity::QuantityError;
    match e {
        QuantityError::FormatWrong(_) => {
            "quantities must match the regular expression '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'"
        }
        QuantityError::Suffix(_) => "unable to parse quantity's suffix",
        QuantityError::Numeric(_) => "unable to parse numeric part of quantity",
    }
}

fn string_to_quantity(s: &CelString) -> Result<CelQuantity, ExecutionError> {
    CelQuantity::parse(s.inner()).map_err(|e| fail("quantity", quantity_error_text(&e)))
}

fn is_quantity(s: &CelString) -> CelBool {
    CelBool::from(CelQuantity::parse(s.inner()).is_ok())
}

fn quantity_sign(q: &CelQuantity) -> CelInt {
    CelInt::from(q.sign())
}

fn quantity_is_greater_than(a: &CelQuantity, b: &CelQuantity) -> CelBool {
    CelBool::from(a.compare(b).is_gt())
}

fn quantity_is_less_than(a: &CelQuantity, b: &CelQuantity) -> CelBool {
    CelBool::from(a.compare(b).is_lt())
}

fn quantity_compare_to(a: &CelQuantity, b: &CelQuantity) -> CelInt {
    CelInt::from(a.compare(b) as i64)
}

fn quantity_get_float(q: &CelQuantity) -> CelDouble {
    CelDouble::from(q.as_approximate_f64())
}

fn quantity_get_int(q: &CelQuantity) -> Result<CelInt, ExecutionError> {
    q.as_i64().map(CelInt::from).ok_or_else(|| fail("asInteger", "cannot convert value to integer"))
}

fn quantity_is_integer(q: &CelQuantity) -> CelBool {
    CelBool::from(q.as_i64().is_some())
}

fn quantity_add(a: &CelQuantity, b: &CelQuantity) -> CelQuantity {
    a.add(b)
}

fn quantity_add_int(a: &CelQuantity, b: &CelInt) -> CelQuantity {
    a.add(&CelQuantity::from_i64(*b.inner()))
}

fn quantity_sub(a: &CelQuantity, b: &CelQuantity) -> CelQuantity {
    a.sub(b)
}

fn quantity_sub_int(a: &CelQuantity, b: &CelInt) -> CelQuantity {
    a.sub(&CelQuantity::from_i64(*b.inner()))
}

// library.SemverLib(SemverVersion(1)) (semverlib.go).

fn semver(env: &mut Env) -> Result<(), DeclarationError> {
    cel::add_overload!(env, fn string_to_semver: (CelString) -> Result<Semver>, name = "semver")?;
    cel::add_overload!(env, fn string_bool_to_semver: (CelString, CelBool) -> Result<Semver>, name = "semver")?;
    cel::add_overload!(env, fn is_semver_string: (CelString) -> CelBool, name = "isSemver")?;
    cel::add_overload!(env, fn is_semver_string_bool: (CelString, CelBool) -> CelBool, name = "isSemver")?;
    cel::add_member_overload!(env, fn semver_is_greater_than: (Semver, Semver) -> CelBool, name = "isGreaterThan")?;
    cel::add_member_overload!(env, fn semver_is_less_than: (Semver, Semver) -> CelBool, name = "isLessThan")?;
    cel::add_member_overload!(env, fn semver_compare_to: (Semver, Semver) -> CelInt, name = "compareTo")?;
    cel::add_member_overload!(env, fn semver_major: (Semver) -> CelInt, name = "major")?;
    cel::add_member_overload!(env, fn semver_minor: (Semver) -> CelInt, name = "minor")?;
    cel::add_member_overload!(env, fn semver_patch: (Semver) -> CelInt, name = "patch")?;
    Ok(())
}

fn string_to_semver(s: &CelString) -> Result<Semver, ExecutionError> {
    Semver::parse(s.inner()).map_err(|e| fail("semver", e))
}

fn string_bool_to_semver(s: &CelString, normalize: &CelBool) -> Result<Semver, ExecutionError> {
    let parsed = if *normalize.inner() { Semver::parse_normalized(s.inner()) } else { Semver::parse(s.inner()) };
    parsed.map_err(|e| fail("semver", e))
}

fn is_semver_string(s: &CelString) -> CelBool {
    CelBool::from(Semver::parse(s.inner()).is_ok())
}

fn is_semver_string_bool(s: &CelString, normalize: &CelBool) -> CelBool {
    let parsed = if *normalize.inner() { Semver::parse_normalized(s.inner()) } else { Semver::parse(s.inner()) };
    CelBool::from(parsed.is_ok())
}

fn semver_is_greater_than(a: &Semver, b: &Semver) -> CelBool {
    CelBool::from(a.compare(b).is_gt())
}

fn semver_is_less_than(a: &Semver, b: &Semver) -> CelBool {
    CelBool::from(a.compare(b).is_lt())
}

fn semver_compare_to(a: &Semver, b: &Semver) -> CelInt {
    CelInt::from(a.compare(b) as i64)
}

// `types.Int(v.Major)`: Go converts the uint64 with wrap-around.
fn semver_major(v: &Semver) -> CelInt {
    CelInt::from(v.major as i64)
}

fn semver_minor(v: &Semver) -> CelInt {
    CelInt::from(v.minor as i64)
}

fn semver_patch(v: &Semver) -> CelInt {
    CelInt::from(v.patch as i64)
}
