//! cel-go `ext.Sets()` (`ext/sets.go`): `sets.contains(list, sublist)`,
//! `sets.equivalent(a, b)`, `sets.intersects(a, b)`, comparing elements with CEL equality.

use cel::common::types::{CelBool, LIST_TYPE};
use cel::common::value::{CowVal, Val};
use cel::{DeclarationError, Env, ExecutionError};

/// Registers the library.
pub fn register(env: &mut Env) -> Result<(), DeclarationError> {
    env.add_overload("sets.contains", "list_sets_contains_list", vec![LIST_TYPE, LIST_TYPE], contains)?;
    env.add_overload("sets.equivalent", "list_sets_equivalent_list", vec![LIST_TYPE, LIST_TYPE], equivalent)?;
    env.add_overload("sets.intersects", "list_sets_intersects_list", vec![LIST_TYPE, LIST_TYPE], intersects)?;
    Ok(())
}

fn items<'b, 'v>(v: &'b (dyn Val + 'v)) -> Vec<&'b (dyn Val + 'v)> {
    let mut out = Vec::new();
    if let Some(it) = v.as_iterable() {
        let mut iter = it.iter();
        while let Some(x) = iter.next() {
            out.push(x);
        }
    }
    out
}

fn includes_all(list: &dyn Val, sub: &dyn Val) -> bool {
    let l = items(list);
    items(sub).iter().all(|x| l.iter().any(|y| y.equals(*x)))
}

fn contains<'b, 'v>(args: Vec<CowVal<'b, 'v>>) -> Result<CowVal<'b, 'v>, ExecutionError> {
    Ok(CowVal::owned(CelBool::from(includes_all(args[0].as_ref(), args[1].as_ref()))))
}

fn equivalent<'b, 'v>(args: Vec<CowVal<'b, 'v>>) -> Result<CowVal<'b, 'v>, ExecutionError> {
    let (a, b) = (args[0].as_ref(), args[1].as_ref());
    Ok(CowVal::owned(CelBool::from(includes_all(a, b) && includes_all(b, a))))
}

fn intersects<'b, 'v>(args: Vec<CowVal<'b, 'v>>) -> Result<CowVal<'b, 'v>, ExecutionError> {
    let a = items(args[0].as_ref());
    let hit = items(args[1].as_ref()).iter().any(|x| a.iter().any(|y| y.equals(*x)));
    Ok(CowVal::owned(CelBool::from(hit)))
}
