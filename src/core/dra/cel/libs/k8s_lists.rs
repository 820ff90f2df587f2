//! library.Lists (`staging/src/k8s.io/apiserver/pkg/cel/library/lists.go`, v1.35):
//! `isSorted()`, `sum()`, `max()`, `min()`, `indexOf(x)`, `lastIndexOf(x)` on lists; and the
//! version-3 additions of cel-go's `ext.Lists` the crate lacks, `first()` and `last()`
//! (optionals). Elements compare and add with CEL's own operators, so `[1, 2.0].max()` behaves
//! as the operators do.

use std::cmp::Ordering;

use cel::common::types::{CelBool, CelInt, CelList, CelOptional, LIST_TYPE};
use cel::common::value::{CowVal, Val};
use cel::{DeclarationError, Env, ExecutionError};

use super::fail;

/// Registers the library.
pub fn register(env: &mut Env) -> Result<(), DeclarationError> {
    env.add_member_overload("isSorted", "list_is_sorted", LIST_TYPE, vec![], is_sorted)?;
    env.add_member_overload("sum", "list_sum", LIST_TYPE, vec![], sum)?;
    env.add_member_overload("max", "list_max", LIST_TYPE, vec![], max)?;
    env.add_member_overload("min", "list_min", LIST_TYPE, vec![], min)?;
    env.add_member_overload("indexOf", "list_index_of", LIST_TYPE, vec![cel::common::types::DYN_TYPE], index_of)?;
    env.add_member_overload("lastIndexOf", "list_last_index_of", LIST_TYPE, vec![cel::common::types::DYN_TYPE], last_index_of)?;
    env.add_member_overload("first", "list_first", LIST_TYPE, vec![], first)?;
    env.add_member_overload("last", "list_last", LIST_TYPE, vec![], last)?;
    cel::add_overload!(env, fn bounded_range: (CelInt) -> Result<CelList>, name = RANGE)?;
    Ok(())
}

/// What `lists.range` calls are lowered to: the same list, refused with the cost error before
/// it is built when it has more elements than the cost limit (cel-go would build it, then stop
/// at the first traversal).
pub const RANGE: &str = "@lists.range";

fn bounded_range(n: &CelInt) -> Result<CelList<'static>, ExecutionError> {
    let n = *n.inner();
    if n > i64::try_from(crate::core::dra::cel::SELECTOR_MAX_COST).unwrap_or(i64::MAX) {
        return Err(fail("lists.range", crate::core::texts::dra_cel::COST_LIMIT_EXCEEDED));
    }
    let items: Vec<Box<dyn Val + 'static>> = (0..n.max(0)).map(|i| Box::new(CelInt::from(i)) as Box<dyn Val>).collect();
    Ok(CelList::from(items))
}

/// The elements of the list argument (by reference).
fn elements<'b, 'v>(list: &'b (dyn Val + 'v)) -> Result<Vec<&'b (dyn Val + 'v)>, ExecutionError> {
    let it = list
        .as_iterable()
        .ok_or_else(|| ExecutionError::UnexpectedType { got: list.get_type().name().to_owned(), want: "list".to_owned() })?;
    let mut out = Vec::new();
    let mut iter = it.iter();
    while let Some(v) = iter.next() {
        out.push(v);
    }
    Ok(out)
}

fn compare(function: &str, a: &dyn Val, b: &dyn Val) -> Result<Ordering, ExecutionError> {
    a.as_comparer().ok_or_else(|| fail(function, "no such overload"))?.compare(b)
}

fn is_sorted<'b, 'v>(args: Vec<CowVal<'b, 'v>>) -> Result<CowVal<'b, 'v>, ExecutionError> {
    let list = elements(args[0].as_ref())?;
    for w in list.windows(2) {
        if compare("isSorted", w[0], w[1])? == Ordering::Greater {
            return Ok(CowVal::owned(CelBool::from(false)));
        }
    }
    Ok(CowVal::owned(CelBool::from(true)))
}

fn sum<'b, 'v>(args: Vec<CowVal<'b, 'v>>) -> Result<CowVal<'b, 'v>, ExecutionError> {
    let list = elements(args[0].as_ref())?;
    let Some((head, rest)) = list.split_first() else {
        // The int overload's zero (the typed overloads agree for an empty list of ints).
        return Ok(CowVal::owned(CelInt::from(0)));
    };
    let mut acc: Box<dyn Val + 'v> = head.clone_as_boxed();
    for v in rest {
        let next = acc.as_adder().ok_or_else(|| fail("sum", "no such overload"))?.add(*v)?.into_owned();
        acc = next;
    }
    Ok(CowVal::Owned(acc))
}

fn extreme<'b, 'v>(args: Vec<CowVal<'b, 'v>>, function: &str, keep: Ordering) -> Result<CowVal<'b, 'v>, ExecutionError> {
    let list = elements(args[0].as_ref())?;
    let Some((head, rest)) = list.split_first() else {
        return Err(fail(function, format!("{function} called on empty list")));
    };
    let mut best = *head;
    for v in rest {
        if compare(function, *v, best)? == keep {
            best = *v;
        }
    }
    Ok(CowVal::Owned(best.clone_as_boxed()))
}

fn max<'b, 'v>(args: Vec<CowVal<'b, 'v>>) -> Result<CowVal<'b, 'v>, ExecutionError> {
    extreme(args, "max", Ordering::Greater)
}

fn min<'b, 'v>(args: Vec<CowVal<'b, 'v>>) -> Result<CowVal<'b, 'v>, ExecutionError> {
    extreme(args, "min", Ordering::Less)
}

fn position<'b, 'v>(args: Vec<CowVal<'b, 'v>>, from_end: bool) -> Result<CowVal<'b, 'v>, ExecutionError> {
    let list = elements(args[0].as_ref())?;
    let needle = args.get(1).ok_or_else(|| ExecutionError::invalid_argument_count(2, 1))?;
    let found = if from_end {
        list.iter().rposition(|v| v.equals(needle.as_ref()))
    } else {
        list.iter().position(|v| v.equals(needle.as_ref()))
    };
    Ok(CowVal::owned(CelInt::from(found.map_or(-1, |i| i as i64))))
}

fn index_of<'b, 'v>(args: Vec<CowVal<'b, 'v>>) -> Result<CowVal<'b, 'v>, ExecutionError> {
    position(args, false)
}

fn last_index_of<'b, 'v>(args: Vec<CowVal<'b, 'v>>) -> Result<CowVal<'b, 'v>, ExecutionError> {
    position(args, true)
}

fn end<'b, 'v>(args: Vec<CowVal<'b, 'v>>, last: bool) -> Result<CowVal<'b, 'v>, ExecutionError> {
    let list = elements(args[0].as_ref())?;
    let pick = if last { list.last() } else { list.first() };
    Ok(CowVal::owned(match pick {
        Some(v) => CelOptional::of(v.clone_as_boxed()),
        None => CelOptional::none(),
    }))
}

fn first<'b, 'v>(args: Vec<CowVal<'b, 'v>>) -> Result<CowVal<'b, 'v>, ExecutionError> {
    end(args, false)
}

fn last<'b, 'v>(args: Vec<CowVal<'b, 'v>>) -> Result<CowVal<'b, 'v>, ExecutionError> {
    end(args, true)
}
