//! The runtime cost limit of selectors (`CELSelectorExpressionMaxCost`), in cel-go's units.
//!
//! cel-go (`interpreter/runtimecost.go`, with the Kubernetes `library.CostEstimator` for the
//! library functions) adds a cost for every node it evaluates — 1 for an identifier, a field
//! selection, an index or a call; 10 for a list literal, 30 for a map literal; a cost
//! proportional to string or list sizes for the functions that traverse them (`contains`,
//! `matches`, string `+`, `==` on strings, `split`, `join`, `in` on a list …) — and aborts with
//! `operation cancelled: actual cost limit exceeded` as soon as the sum passes the limit.
//!
//! The `cel` crate's interpreter has no such hook, so the cost is accounted in two steps:
//! 1. [`estimate`] bounds the cost of an expression at compile time with the same per-node
//!    costs and the largest sizes the device can hold (`DeviceAttributeMaxValueLength` = 64,
//!    `ResourceSliceMaxAttributesAndCapacitiesPerDevice` = 32, …), multiplying loop bodies by
//!    the largest number of iterations. Every selector over device data has a small bound (tens
//!    to a few thousand); when the bound is within the limit, the evaluation cannot be aborted
//!    and runs unmetered, as fast as the crate goes.
//! 2. Otherwise [`instrument`] rewrites the expression so that every node whose evaluation has
//!    a cost passes through `@cost(value, k)`, which adds `k` to the evaluation's [`Meter`];
//!    nodes whose cost depends on sizes charge from the values themselves. Past the limit the
//!    meter fails the call, and the evaluation's error is the cost error even where `||`, `&&`
//!    or a comprehension would have absorbed it (cel-go aborts at once).
//!
//! What differs from cel-go: an attribute chain such as `device.attributes["d"].x` costs one
//! per identifier, field and index here, where cel-go's planner may fold constant qualifiers;
//! the size-dependent functions charge from the result's size where cel-go uses the arguments'
//! (`replace`, `split`, `substring`); `lists.range(n)` with `n` beyond the limit is refused
//! before it allocates. These shift the total by a few units per node; an expression whose
//! upstream cost is within the limit by less than that could be refused here (none of the
//! upstream test expressions is).

use std::cell::Cell;

use cel::common::ast::{operators, CallExpr, EntryExpr, Expr, LiteralValue};
use cel::common::types::{CelInt, CelString, DYN_TYPE, INT_TYPE};
use cel::common::value::{CowVal, Val};
use cel::{DeclarationError, Env, ExecutionError, IdedExpr};

use crate::core::texts::dra_cel as texts;

/// `common.StringTraversalCostFactor`.
const STRING_TRAVERSAL: f64 = 0.1;
/// `common.RegexStringLengthCostFactor`.
const REGEX_LENGTH: f64 = 0.25;
/// `common.ListCreateBaseCost`.
const LIST_CREATE: u64 = 10;
/// `common.MapCreateBaseCost`.
const MAP_CREATE: u64 = 30;
/// `DeviceAttributeMaxValueLength`: the longest string attribute.
const ATTRIBUTE_VALUE_MAX: u64 = 64;
/// `DriverNameMaxLength`.
const DRIVER_MAX: u64 = 63;
/// `DeviceMaxDomainLength`.
const DOMAIN_MAX: u64 = 63;
/// `DeviceMaxIDLength`.
const ID_MAX: u64 = 32;
/// `ResourceSliceMaxAttributesAndCapacitiesPerDevice`: entries of each device map.
const MAP_ENTRIES_MAX: u64 = 32;

/// Calls whose cost grows with their first operand's size (cel-go's runtime cost of
/// `contains`, `matches`, `startsWith`, `endsWith`, and the Kubernetes estimator's traversal cost
/// of the list functions and sets).
const TRAVERSING: &[&str] = &[
    "contains",
    super::libs::regex::MATCHES,
    "startsWith",
    "endsWith",
    "isSorted",
    "sum",
    "max",
    "min",
    "indexOf",
    "lastIndexOf",
    "sets.contains",
    "sets.equivalent",
    "sets.intersects",
];

/// The name of the accounting function the instrumented program calls.
pub const COST_FN: &str = "@cost";
/// The accounting function for size-dependent calls: charges from the value's size.
pub const SIZED_COST_FN: &str = "@cost_sized";

fn traversal(size: u64) -> u64 {
    (size as f64 * STRING_TRAVERSAL).ceil() as u64
}

/// What a (sub)expression is known to be, for sizes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Shape {
    Device,
    Outer,
    Inner,
    /// A value with at most this size (string length, list/map entries; 1 for scalars).
    Sized(u64),
    Unknown,
}

impl Shape {
    fn size(self) -> Option<u64> {
        match self {
            Shape::Device => Some(1),
            Shape::Outer | Shape::Inner => Some(MAP_ENTRIES_MAX),
            Shape::Sized(s) => Some(s),
            Shape::Unknown => None,
        }
    }
}

/// A cost bound and the shape of the result; `None` cost = unbounded.
type Bound = (Option<u64>, Shape);

fn add(a: Option<u64>, b: Option<u64>) -> Option<u64> {
    a?.checked_add(b?)
}

fn mul(a: Option<u64>, b: Option<u64>) -> Option<u64> {
    a?.checked_mul(b?)
}

struct Estimator {
    scopes: Vec<(String, Shape)>,
}

/// An upper bound of the runtime cost of `program` in cel-go's units; `u64::MAX` when the
/// bound depends on data the compile step cannot bound (sizes of computed strings, loops over
/// computed lists).
pub fn estimate(program: &IdedExpr) -> u64 {
    Estimator { scopes: Vec::new() }.walk(program).0.unwrap_or(u64::MAX)
}

impl Estimator {
    fn lookup(&self, name: &str) -> Option<Shape> {
        self.scopes.iter().rev().find(|(n, _)| n == name).map(|(_, s)| *s)
    }

    fn walk(&mut self, e: &IdedExpr) -> Bound {
        match &e.expr {
            Expr::Literal(l) => (
                Some(0),
                Shape::Sized(match l {
                    LiteralValue::String(s) => s.inner().chars().count() as u64,
                    LiteralValue::Bytes(b) => b.inner().len() as u64,
                    _ => 1,
                }),
            ),
            Expr::Ident(name) => {
                let shape = match self.lookup(name) {
                    Some(s) => s,
                    None if name == "device" => Shape::Device,
                    None => Shape::Sized(1),
                };
                (Some(1), shape)
            }
            Expr::Select(s) => {
                let (c, shape) = self.walk(&s.operand);
                if s.test {
                    return (c, Shape::Sized(1));
                }
                let out = match (shape, s.field.as_str()) {
                    (Shape::Device, "driver") => Shape::Sized(DRIVER_MAX),
                    (Shape::Device, "attributes" | "capacity") => Shape::Outer,
                    (Shape::Device, _) => Shape::Sized(1),
                    (Shape::Outer, _) => Shape::Inner,
                    (Shape::Inner, _) => Shape::Sized(ATTRIBUTE_VALUE_MAX),
                    _ => Shape::Unknown,
                };
                (add(c, Some(1)), out)
            }
            Expr::List(l) => {
                let mut cost = Some(LIST_CREATE);
                let mut elem = 0u64;
                for el in &l.elements {
                    let (c, s) = self.walk(el);
                    cost = add(cost, c);
                    elem = elem.max(s.size().unwrap_or(u64::MAX));
                }
                let _ = elem;
                (cost, Shape::Sized(l.elements.len() as u64))
            }
            Expr::Map(m) => {
                let mut cost = Some(MAP_CREATE);
                for entry in &m.entries {
                    if let EntryExpr::MapEntry(me) = &entry.expr {
                        cost = add(cost, self.walk(&me.key).0);
                        cost = add(cost, self.walk(&me.value).0);
                    }
                }
                (cost, Shape::Sized(m.entries.len() as u64))
            }
            Expr::Struct(_) | Expr::Unspecified => (None, Shape::Unknown),
            Expr::Comprehension(c) => {
                let (range_cost, range) = self.walk(&c.iter_range);
                let (init_cost, init) = self.walk(&c.accu_init);
                let iterations = match range {
                    Shape::Outer | Shape::Inner => Some(MAP_ENTRIES_MAX),
                    Shape::Sized(n) => Some(n),
                    _ => None,
                };
                let elem = match range {
                    Shape::Outer => Shape::Sized(DOMAIN_MAX),
                    Shape::Inner => Shape::Sized(ID_MAX),
                    _ => Shape::Unknown,
                };
                // An accumulator that only holds booleans (all, exists, exists_one, bind of a
                // scalar) has size 1; one that grows (map, filter) is unknown.
                let accu = if matches!(init, Shape::Sized(1)) { Shape::Sized(1) } else { Shape::Unknown };
                self.scopes.push((c.accu_var.clone(), if c.iter_range_is_empty() { init } else { accu }));
                self.scopes.push((c.iter_var.clone(), elem));
                let per_iteration = add(self.walk(&c.loop_cond).0, self.walk(&c.loop_step).0);
                self.scopes.pop();
                let (result_cost, result) = self.walk(&c.result);
                self.scopes.pop();
                let loops = if c.iter_range_is_empty() { Some(0) } else { mul(iterations, per_iteration) };
                (add(add(add(range_cost, init_cost), loops), result_cost), result)
            }
            Expr::Call(call) => self.call(call),
            #[allow(unreachable_patterns)]
            _ => (None, Shape::Unknown),
        }
    }

    fn call(&mut self, call: &CallExpr) -> Bound {
        let mut cost = Some(0);
        let mut shapes = Vec::with_capacity(call.args.len() + 1);
        if let Some(t) = &call.target {
            let (c, s) = self.walk(t);
            cost = add(cost, c);
            shapes.push(s);
        }
        for a in &call.args {
            let (c, s) = self.walk(a);
            cost = add(cost, c);
            shapes.push(s);
        }
        let size = |i: usize| shapes.get(i).and_then(|s: &Shape| s.size());
        let name = call.func_name.as_str();
        let (own, out): (Option<u64>, Shape) = match name {
            operators::NOT_STRICTLY_FALSE => (Some(1), Shape::Sized(1)),
            operators::LOGICAL_AND | operators::LOGICAL_OR | operators::LOGICAL_NOT | operators::CONDITIONAL => {
                let out = if name == operators::CONDITIONAL {
                    match (shapes.get(1), shapes.get(2)) {
                        (Some(a), Some(b)) => Shape::Sized(a.size().unwrap_or(u64::MAX).max(b.size().unwrap_or(u64::MAX))),
                        _ => Shape::Unknown,
                    }
                } else {
                    Shape::Sized(1)
                };
                (Some(if name == operators::LOGICAL_NOT { 1 } else { 0 }), out)
            }
            operators::INDEX | operators::OPT_INDEX => {
                let out = match shapes.first() {
                    Some(Shape::Outer) => Shape::Inner,
                    Some(Shape::Inner) => Shape::Sized(ATTRIBUTE_VALUE_MAX),
                    _ => Shape::Unknown,
                };
                (Some(1), out)
            }
            operators::EQUALS
            | operators::NOT_EQUALS
            | operators::LESS
            | operators::LESS_EQUALS
            | operators::GREATER
            | operators::GREATER_EQUALS => (size(0).zip(size(1)).map(|(a, b)| traversal(a.min(b)).max(1)), Shape::Sized(1)),
            operators::ADD => match (size(0), size(1)) {
                (Some(a), Some(b)) => (Some(traversal(a + b).max(1)), Shape::Sized(a + b)),
                _ => (None, Shape::Unknown),
            },
            operators::IN => (size(1), Shape::Sized(1)),
            "contains" => (size(0).zip(size(1)).map(|(a, b)| traversal(a) * traversal(b)), Shape::Sized(1)),
            "startsWith" | "endsWith" => (size(1).map(traversal), Shape::Sized(1)),
            "matches" | super::libs::regex::MATCHES | "find" | "findAll" => (
                size(0).zip(size(1)).map(|(a, b)| {
                    ((1.0 + a as f64) * STRING_TRAVERSAL).ceil() as u64 * ((b as f64) * REGEX_LENGTH).ceil() as u64
                }),
                if name == "find" {
                    Shape::Sized(size(0).unwrap_or(u64::MAX))
                } else if name == "findAll" {
                    Shape::Unknown
                } else {
                    Shape::Sized(1)
                },
            ),
            "lowerAscii" | "upperAscii" | "trim" | "substring" => {
                (size(0).map(traversal), Shape::Sized(size(0).unwrap_or(u64::MAX)))
            }
            "size" | "int" | "uint" | "double" | "bool" | "type" | "quantity" | "isQuantity" | "semver" | "isSemver"
            | "isGreaterThan" | "isLessThan" | "compareTo" | "asInteger" | "isInteger" | "asApproximateFloat" | "sign"
            | "major" | "minor" | "patch" | "add" | "sub" | "hasValue" | "optional.none" | "charAt" | "indexOf"
            | "lastIndexOf" => (Some(1), Shape::Sized(1)),
            "string" => (Some(1), Shape::Sized(size(0).unwrap_or(1).max(20))),
            _ => (None, Shape::Unknown),
        };
        let own = if name == operators::LOGICAL_AND || name == operators::LOGICAL_OR || name == operators::CONDITIONAL {
            own
        } else {
            own.map(|c| c.max(1))
        };
        (add(cost, own), out)
    }
}

trait EmptyRange {
    fn iter_range_is_empty(&self) -> bool;
}

impl EmptyRange for cel::common::ast::ComprehensionExpr {
    /// `cel.bind`'s comprehension: an empty list literal, no iterations.
    fn iter_range_is_empty(&self) -> bool {
        matches!(&self.iter_range.expr, Expr::List(l) if l.elements.is_empty())
    }
}

/// The program with every costed node passed through the accounting functions.
pub fn instrument(program: &IdedExpr) -> IdedExpr {
    let mut next_id = max_id(program) + 1;
    rewrite(program.clone(), &mut next_id)
}

fn max_id(e: &IdedExpr) -> u64 {
    let mut m = e.id;
    visit(e, &mut |x| m = m.max(x.id));
    m
}

fn visit(e: &IdedExpr, f: &mut impl FnMut(&IdedExpr)) {
    f(e);
    match &e.expr {
        Expr::Call(c) => {
            if let Some(t) = &c.target {
                visit(t, f);
            }
            c.args.iter().for_each(|a| visit(a, f));
        }
        Expr::Select(s) => visit(&s.operand, f),
        Expr::List(l) => l.elements.iter().for_each(|a| visit(a, f)),
        Expr::Map(m) => m.entries.iter().for_each(|en| {
            if let EntryExpr::MapEntry(me) = &en.expr {
                visit(&me.key, f);
                visit(&me.value, f);
            }
        }),
        Expr::Comprehension(c) => {
            for x in [&c.iter_range, &c.accu_init, &c.loop_cond, &c.loop_step, &c.result] {
                visit(x, f);
            }
        }
        _ => {}
    }
}

fn wrap(e: IdedExpr, k: u64, next_id: &mut u64) -> IdedExpr {
    let k_id = *next_id;
    let call_id = *next_id + 1;
    *next_id += 2;
    let k = IdedExpr { id: k_id, expr: Expr::Literal(LiteralValue::Int(CelInt::from(i64::try_from(k).unwrap_or(i64::MAX)))) };
    IdedExpr { id: call_id, expr: Expr::Call(CallExpr { func_name: COST_FN.to_string(), target: None, args: vec![e, k] }) }
}

fn wrap_sized(e: IdedExpr, next_id: &mut u64) -> IdedExpr {
    let call_id = *next_id;
    *next_id += 1;
    IdedExpr { id: call_id, expr: Expr::Call(CallExpr { func_name: SIZED_COST_FN.to_string(), target: None, args: vec![e] }) }
}

fn rewrite(e: IdedExpr, next_id: &mut u64) -> IdedExpr {
    let IdedExpr { id, expr } = e;
    match expr {
        Expr::Literal(_) | Expr::Unspecified | Expr::Struct(_) => IdedExpr { id, expr },
        Expr::Ident(_) => wrap(IdedExpr { id, expr }, 1, next_id),
        Expr::Select(mut s) => {
            let operand = std::mem::take(&mut *s.operand);
            *s.operand = rewrite(operand, next_id);
            let test = s.test;
            let node = IdedExpr { id, expr: Expr::Select(s) };
            // `has()` costs nothing itself (PresenceTestHasCost(false) in the base environment).
            if test {
                node
            } else {
                wrap(node, 1, next_id)
            }
        }
        Expr::List(mut l) => {
            l.elements = l.elements.into_iter().map(|x| rewrite(x, next_id)).collect();
            wrap(IdedExpr { id, expr: Expr::List(l) }, LIST_CREATE, next_id)
        }
        Expr::Map(mut m) => {
            for entry in m.entries.iter_mut() {
                if let EntryExpr::MapEntry(me) = &mut entry.expr {
                    me.key = rewrite(std::mem::take(&mut me.key), next_id);
                    me.value = rewrite(std::mem::take(&mut me.value), next_id);
                }
            }
            wrap(IdedExpr { id, expr: Expr::Map(m) }, MAP_CREATE, next_id)
        }
        Expr::Comprehension(mut c) => {
            c.iter_range = rewrite(std::mem::take(&mut c.iter_range), next_id);
            c.accu_init = rewrite(std::mem::take(&mut c.accu_init), next_id);
            c.loop_cond = rewrite(std::mem::take(&mut c.loop_cond), next_id);
            c.loop_step = rewrite(std::mem::take(&mut c.loop_step), next_id);
            c.result = rewrite(std::mem::take(&mut c.result), next_id);
            IdedExpr { id, expr: Expr::Comprehension(c) }
        }
        Expr::Call(mut call) => {
            // A namespace (`sets.contains`, `lists.range`) is part of the function's name.
            let namespaced = call
                .target
                .as_deref()
                .and_then(super::check::qualified_name)
                .is_some_and(|q| super::check::declared(&format!("{q}.{}", call.func_name)).is_some());
            if !namespaced {
                call.target = call.target.map(|t| Box::new(rewrite(*t, next_id)));
            }
            call.args = call.args.into_iter().map(|a| rewrite(a, next_id)).collect();
            let name = call.func_name.clone();
            // Functions that traverse their first operand (a list or a string) charge its size.
            if name == operators::IN && call.args.len() == 2 {
                let container = call.args.remove(1);
                call.args.push(wrap_sized(container, next_id));
            } else if TRAVERSING.contains(&name.as_str()) {
                if let Some(t) = call.target.take() {
                    call.target = Some(Box::new(wrap_sized(*t, next_id)));
                } else if !call.args.is_empty() {
                    let first = call.args.remove(0);
                    call.args.insert(0, wrap_sized(first, next_id));
                }
            }
            let node = IdedExpr { id, expr: Expr::Call(call) };
            match name.as_str() {
                operators::LOGICAL_AND | operators::LOGICAL_OR | operators::CONDITIONAL => node,
                operators::ADD
                | "join"
                | "replace"
                | "split"
                | "substring"
                | "lowerAscii"
                | "upperAscii"
                | "trim"
                | "format"
                | "findAll"
                | "find"
                | "string" => wrap_sized(node, next_id),
                _ => wrap(node, 1, next_id),
            }
        }
        #[allow(unreachable_patterns)]
        other => IdedExpr { id, expr: other },
    }
}

/// The cost meter of one evaluation on this thread.
#[derive(Debug, Clone, Copy)]
pub struct Meter {
    used: u64,
    limit: u64,
    exceeded: bool,
}

thread_local! {
    static METER: Cell<Option<Meter>> = const { Cell::new(None) };
}

impl Meter {
    /// Runs `eval` with a meter of `limit`; a result obtained after the limit was passed is the
    /// cost error, whatever `eval` returned.
    pub fn run<T>(limit: u64, eval: impl FnOnce() -> Result<T, ExecutionError>) -> Result<T, ExecutionError> {
        struct Reset(Option<Meter>);
        impl Drop for Reset {
            fn drop(&mut self) {
                METER.with(|m| m.set(self.0));
            }
        }
        let previous = METER.with(|m| m.replace(Some(Meter { used: 0, limit, exceeded: false })));
        let _reset = Reset(previous);
        let result = eval();
        let exceeded = METER.with(|m| m.get().is_some_and(|m| m.exceeded));
        if exceeded {
            return Err(cost_error());
        }
        result
    }

    /// Adds `k`; fails once past the limit (and from then on).
    fn charge(k: u64) -> Result<(), ExecutionError> {
        METER.with(|cell| {
            let Some(mut m) = cell.get() else {
                return Ok(());
            };
            m.used = m.used.saturating_add(k);
            if m.used > m.limit {
                m.exceeded = true;
            }
            cell.set(Some(m));
            if m.exceeded {
                Err(cost_error())
            } else {
                Ok(())
            }
        })
    }

    /// The cost used so far by the evaluation running on this thread (for tests).
    pub fn used() -> Option<u64> {
        METER.with(|m| m.get().map(|m| m.used))
    }
}

fn cost_error() -> ExecutionError {
    ExecutionError::function_error(COST_FN, texts::COST_LIMIT_EXCEEDED)
}

/// cel-go's `actualSize`: a string's length in code points, a list's or map's entry count, 1
/// for anything else.
pub fn actual_size(v: &dyn Val) -> u64 {
    if let Some(s) = v.downcast_ref::<CelString>() {
        return s.inner().chars().count() as u64;
    }
    match v.as_sizer() {
        Some(s) => u64::try_from(*s.size().inner()).unwrap_or(0),
        None => 1,
    }
}

/// Registers the accounting functions on `env`.
pub fn register(env: &mut Env) -> Result<(), DeclarationError> {
    env.add_overload(COST_FN, "@cost_dyn_int", vec![DYN_TYPE, INT_TYPE], cost_fn)?;
    env.add_overload(SIZED_COST_FN, "@cost_sized_dyn", vec![DYN_TYPE], sized_cost_fn)?;
    Ok(())
}

fn cost_fn<'b, 'v>(mut args: Vec<CowVal<'b, 'v>>) -> Result<CowVal<'b, 'v>, ExecutionError> {
    let k = args.get(1).and_then(|k| k.downcast_ref::<CelInt>()).map_or(1, |k| u64::try_from(*k.inner()).unwrap_or(1));
    Meter::charge(k)?;
    if args.is_empty() {
        return Err(ExecutionError::invalid_argument_count(2, 0));
    }
    Ok(args.swap_remove(0))
}

fn sized_cost_fn<'b, 'v>(mut args: Vec<CowVal<'b, 'v>>) -> Result<CowVal<'b, 'v>, ExecutionError> {
    if args.is_empty() {
        return Err(ExecutionError::invalid_argument_count(1, 0));
    }
    let v = args.swap_remove(0);
    Meter::charge(traversal(actual_size(v.as_ref())).max(1))?;
    Ok(v)
}
