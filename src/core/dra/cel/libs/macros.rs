//! Macros of the upstream environment the crate lacks: `cel.bind` (cel-go `ext.Bindings`,
//! added by compile.go so a domain is written once:
//! `cel.bind(dra, device.attributes["dra.example.com"], dra.a && dra.b)`).

use cel::common::ast::{ComprehensionExpr, Expr, IdedExpr, ListExpr, LiteralValue};
use cel::parser::{Macro, MacroExprHelper, ParseError};
use cel::{DeclarationError, Env};

/// Registers the macros.
pub fn register(env: &mut Env) -> Result<(), DeclarationError> {
    env.add_macro(Macro::receiver("bind", 3, bind))?;
    Ok(())
}

/// `cel.bind(var, init, body)`: a comprehension over an empty list whose accumulator is `var`
/// (cel-go `ext/bindings.go`); on any other target the call is left alone.
fn bind(
    helper: &mut MacroExprHelper<'_>,
    target: &mut Option<IdedExpr>,
    args: &mut Vec<IdedExpr>,
) -> Result<Option<IdedExpr>, ParseError> {
    if !matches!(target.as_ref().map(|t| &t.expr), Some(Expr::Ident(n)) if n == "cel") {
        return Ok(None);
    }
    let var = match args.first().map(|a| &a.expr) {
        Some(Expr::Ident(n)) => n.clone(),
        _ => {
            let id = args.first().map_or(0, |a| a.id);
            return Err(helper.new_error(id, "cel.bind() variable names must be simple identifiers"));
        }
    };
    let body = args.pop().unwrap_or_default();
    let init = args.pop().unwrap_or_default();
    args.clear();
    *target = None;
    let empty = helper.next_expr(Expr::List(ListExpr::new(Vec::new())));
    let cond = helper.next_expr(Expr::Literal(LiteralValue::Boolean(false.into())));
    let step = helper.next_expr(Expr::Ident(var.clone()));
    Ok(Some(helper.next_expr(Expr::Comprehension(Box::new(ComprehensionExpr {
        iter_range: empty,
        iter_var: "#unused".to_string(),
        iter_var2: None,
        accu_var: var,
        accu_init: init,
        loop_cond: cond,
        loop_step: step,
        result: body,
    })))))
}
