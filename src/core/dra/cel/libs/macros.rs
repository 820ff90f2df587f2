//! Macros of the upstream environment the crate lacks: `cel.bind` (cel-go `ext.Bindings`,
//! added by compile.go so a domain is written once:
//! `cel.bind(dra, device.attributes["dra.example.com"], dra.a && dra.b)`) and the
//! two-variable comprehensions of `ext.TwoVarComprehensions`, with the two functions their
//! expansions call.

use std::collections::HashMap;

use cel::common::ast::{operators, CallExpr, ComprehensionExpr, Expr, IdedExpr, ListExpr, LiteralValue, MapExpr};
use cel::common::types::{CelInt, CelList, CelMap, CelMapKey, Kind, DYN_TYPE, MAP_TYPE};
use cel::common::value::{CowVal, Val};
use cel::parser::{Macro, MacroExprHelper, ParseError};
use cel::{DeclarationError, Env, ExecutionError};

use super::fail;

/// The `[key, value]` pairs of a map, or `[index, element]` pairs of a list.
pub const PAIRS: &str = "@pairs";
/// `cel.@mapInsert`: a map with one more entry (or the entries of a second map).
pub const MAP_INSERT: &str = "@mapInsert";

/// Registers the macros and their helper functions.
pub fn register(env: &mut Env) -> Result<(), DeclarationError> {
    env.add_macro(Macro::receiver("bind", 3, bind_macro))?;
    env.add_macro(Macro::receiver("all", 3, two_var(TwoVar::All)))?;
    env.add_macro(Macro::receiver("exists", 3, two_var(TwoVar::Exists)))?;
    env.add_macro(Macro::receiver("existsOne", 3, two_var(TwoVar::ExistsOne)))?;
    for (name, kind) in [
        ("transformList", TwoVar::TransformList),
        ("transformMap", TwoVar::TransformMap),
        ("transformMapEntry", TwoVar::TransformMapEntry),
    ] {
        env.add_macro(Macro::receiver(name, 3, two_var(kind)))?;
        env.add_macro(Macro::receiver(name, 4, two_var(kind)))?;
    }
    env.add_overload(PAIRS, "@pairs_dyn", vec![DYN_TYPE], pairs)?;
    env.add_overload(MAP_INSERT, "@mapInsert_map_dyn_dyn", vec![MAP_TYPE, DYN_TYPE, DYN_TYPE], map_insert)?;
    env.add_overload(MAP_INSERT, "@mapInsert_map_map", vec![MAP_TYPE, MAP_TYPE], map_insert)?;
    Ok(())
}

fn pairs<'b, 'v>(args: Vec<CowVal<'b, 'v>>) -> Result<CowVal<'b, 'v>, ExecutionError> {
    let x = args.first().ok_or_else(|| ExecutionError::invalid_argument_count(1, 0))?.as_ref();
    let it = x
        .as_iterable()
        .ok_or_else(|| ExecutionError::UnexpectedType { got: x.get_type().name().to_owned(), want: "iterable".to_owned() })?;
    let is_map = x.get_type().kind() == Kind::Map;
    let mut out: Vec<Box<dyn Val + 'v>> = Vec::new();
    let mut iter = it.iter();
    let mut index = 0i64;
    while let Some(e) = iter.next() {
        let pair: Vec<Box<dyn Val + 'v>> = if is_map {
            let value = x.as_indexer().ok_or_else(|| fail(PAIRS, "no such overload"))?.get(e)?.into_owned();
            vec![e.clone_as_boxed(), value]
        } else {
            vec![Box::new(CelInt::from(index)), e.clone_as_boxed()]
        };
        out.push(Box::new(CelList::from(pair)));
        index += 1;
    }
    Ok(CowVal::owned(CelList::from(out)))
}

/// One map entry.
type Entry<'v> = (CelMapKey<'v>, Box<dyn Val + 'v>);

/// The entries of a map value.
fn entries<'v>(m: &(dyn Val + 'v)) -> Result<Vec<Entry<'v>>, ExecutionError> {
    let mut out = Vec::new();
    let it = m.as_iterable().ok_or_else(|| fail(MAP_INSERT, "no such overload"))?;
    let ix = m.as_indexer().ok_or_else(|| fail(MAP_INSERT, "no such overload"))?;
    let mut iter = it.iter();
    while let Some(k) = iter.next() {
        let key: CelMapKey<'v> = CowVal::Owned(k.clone_as_boxed()).try_into()?;
        out.push((key, ix.get(k)?.into_owned()));
    }
    Ok(out)
}

fn map_insert<'b, 'v>(args: Vec<CowVal<'b, 'v>>) -> Result<CowVal<'b, 'v>, ExecutionError> {
    let mut map: HashMap<CelMapKey<'v>, Box<dyn Val + 'v>> = entries(args[0].as_ref())?.into_iter().collect();
    let added = match args.len() {
        3 => vec![(CowVal::Owned(args[1].as_ref().clone_as_boxed()).try_into()?, args[2].as_ref().clone_as_boxed())],
        _ => entries(args[1].as_ref())?,
    };
    for (k, v) in added {
        if map.contains_key(&k) {
            return Err(fail(MAP_INSERT, format!("insert failed: key {:?} already exists", k)));
        }
        map.insert(k, v);
    }
    Ok(CowVal::owned(CelMap::from(map)))
}

/// `cel.bind(var, init, body)`: a comprehension over an empty list whose accumulator is `var`
/// (cel-go `ext/bindings.go`); on any other target the call is left alone.
fn bind_macro(
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

/// The two-variable comprehensions of cel-go's `ext.TwoVarComprehensions` (`ext/comprehensions.go`):
/// `all(k, v, p)`, `exists(k, v, p)`, `existsOne(k, v, p)`, `transformList(k, v, [filter,] e)`,
/// `transformMap(k, v, [filter,] e)`, `transformMapEntry(k, v, [filter,] e)`. For a list `k` is
/// the index and `v` the element; for a map, the key and its value. The crate's comprehensions
/// have one variable, so the range becomes the list of `[k, v]` pairs (`@pairs`) and both names
/// are bound per element.
fn two_var(
    kind: TwoVar,
) -> impl Fn(&mut MacroExprHelper<'_>, &mut Option<IdedExpr>, &mut Vec<IdedExpr>) -> Result<Option<IdedExpr>, ParseError> {
    move |helper, target, args| {
        let names: Vec<String> = args
            .iter()
            .take(2)
            .filter_map(|a| match &a.expr {
                Expr::Ident(n) => Some(n.clone()),
                _ => None,
            })
            .collect();
        if names.len() != 2 {
            let id = args.first().map_or(0, |a| a.id);
            return Err(helper.new_error(id, "argument must be a simple name"));
        }
        if names[0] == names[1] {
            let id = args.get(1).map_or(0, |a| a.id);
            return Err(helper.new_error(id, "duplicate variable name"));
        }
        let Some(range) = target.take() else {
            return Ok(None);
        };
        let body = args.pop().unwrap_or_default();
        let filter = if args.len() == 3 { args.pop() } else { None };
        args.clear();
        let (k, v) = (names[0].clone(), names[1].clone());
        let pairs = call(helper, PAIRS, vec![range]);
        let result = || "@result".to_string();
        // Binds `k` and `v` to the current pair around `e`.
        let bound = |helper: &mut MacroExprHelper<'_>, e: IdedExpr| {
            let kv = ident(helper, "@kv");
            let zero = lit_int(helper, 0);
            let first = call(helper, operators::INDEX, vec![kv, zero]);
            let kv = ident(helper, "@kv");
            let one = lit_int(helper, 1);
            let second = call(helper, operators::INDEX, vec![kv, one]);
            let inner = bind(helper, &v, second, e);
            bind(helper, &k, first, inner)
        };
        let accu = |helper: &mut MacroExprHelper<'_>| ident(helper, "@result");
        let (init, cond, step, res) = match kind {
            TwoVar::All | TwoVar::Exists => {
                let all = kind == TwoVar::All;
                let init = lit_bool(helper, all);
                let a = accu(helper);
                let cond_arg = if all { a } else { call(helper, operators::LOGICAL_NOT, vec![a]) };
                let cond = call(helper, operators::NOT_STRICTLY_FALSE, vec![cond_arg]);
                let pred = bound(helper, body);
                let a = accu(helper);
                let op = if all { operators::LOGICAL_AND } else { operators::LOGICAL_OR };
                let step = call(helper, op, vec![a, pred]);
                let res = accu(helper);
                (init, cond, step, res)
            }
            TwoVar::ExistsOne => {
                let init = lit_int(helper, 0);
                let cond = lit_bool(helper, true);
                let pred = bound(helper, body);
                let a = accu(helper);
                let one = lit_int(helper, 1);
                let plus = call(helper, operators::ADD, vec![a, one]);
                let a = accu(helper);
                let step = call(helper, operators::CONDITIONAL, vec![pred, plus, a]);
                let a = accu(helper);
                let one = lit_int(helper, 1);
                let res = call(helper, operators::EQUALS, vec![a, one]);
                (init, cond, step, res)
            }
            TwoVar::TransformList | TwoVar::TransformMap | TwoVar::TransformMapEntry => {
                let init = match kind {
                    TwoVar::TransformList => helper.next_expr(Expr::List(ListExpr::new(Vec::new()))),
                    _ => helper.next_expr(Expr::Map(MapExpr::default())),
                };
                let cond = lit_bool(helper, true);
                let a = accu(helper);
                let grown = match kind {
                    TwoVar::TransformList => {
                        let single = helper.next_expr(Expr::List(ListExpr::new(vec![body])));
                        call(helper, operators::ADD, vec![a, single])
                    }
                    TwoVar::TransformMap => {
                        let key = ident(helper, &k);
                        call(helper, MAP_INSERT, vec![a, key, body])
                    }
                    _ => call(helper, MAP_INSERT, vec![a, body]),
                };
                let inner = match filter {
                    Some(f) => {
                        let a = accu(helper);
                        call(helper, operators::CONDITIONAL, vec![f, grown, a])
                    }
                    None => grown,
                };
                let step = bound(helper, inner);
                let res = accu(helper);
                (init, cond, step, res)
            }
        };
        Ok(Some(helper.next_expr(Expr::Comprehension(Box::new(ComprehensionExpr {
            iter_range: pairs,
            iter_var: "@kv".to_string(),
            iter_var2: None,
            accu_var: result(),
            accu_init: init,
            loop_cond: cond,
            loop_step: step,
            result: res,
        })))))
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum TwoVar {
    All,
    Exists,
    ExistsOne,
    TransformList,
    TransformMap,
    TransformMapEntry,
}

fn ident(helper: &mut MacroExprHelper<'_>, name: &str) -> IdedExpr {
    helper.next_expr(Expr::Ident(name.to_string()))
}

fn lit_int(helper: &mut MacroExprHelper<'_>, i: i64) -> IdedExpr {
    helper.next_expr(Expr::Literal(LiteralValue::Int(i.into())))
}

fn lit_bool(helper: &mut MacroExprHelper<'_>, b: bool) -> IdedExpr {
    helper.next_expr(Expr::Literal(LiteralValue::Boolean(b.into())))
}

fn call(helper: &mut MacroExprHelper<'_>, name: &str, args: Vec<IdedExpr>) -> IdedExpr {
    helper.next_expr(Expr::Call(CallExpr { func_name: name.to_string(), target: None, args }))
}

/// `cel.bind(var, init, body)` as a node.
fn bind(helper: &mut MacroExprHelper<'_>, var: &str, init: IdedExpr, body: IdedExpr) -> IdedExpr {
    let empty = helper.next_expr(Expr::List(ListExpr::new(Vec::new())));
    let cond = lit_bool(helper, false);
    let step = ident(helper, var);
    helper.next_expr(Expr::Comprehension(Box::new(ComprehensionExpr {
        iter_range: empty,
        iter_var: "#unused".to_string(),
        iter_var2: None,
        accu_var: var.to_string(),
        accu_init: init,
        loop_cond: cond,
        loop_step: step,
        result: body,
    })))
}
