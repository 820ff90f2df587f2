//! CEL device selectors: `DeviceClass` and `ResourceClaim` requests pick devices with CEL
//! expressions over a `device` variable (`device.driver`, `device.attributes[domain].id`,
//! `device.capacity[domain].id`, `device.allowMultipleAllocations`), evaluated per candidate
//! device by the allocator.
//!
//! Why this module exists apart from the allocator: the expression language is upstream's
//! interface, so its environment — functions, missing-key semantics, error texts, cost limit —
//! is transcribed in one place from kubernetes/kubernetes v1.35
//! (`staging/src/k8s.io/dynamic-resource-allocation/cel/compile.go` and the libraries it pulls
//! in, see [`env`]), and the allocator only asks "does this device match?".
//!
//! - [`compile`] parses and checks an expression once ([`SelectorCache`] keeps the result per
//!   expression text, as upstream's `cel.Cache` does), reporting upstream's
//!   `compilation failed: ERROR: <input>:line:col: ...` texts.
//! - [`CompiledSelector::matches`] evaluates it for one device: `Ok(bool)` or the evaluation
//!   error in upstream's words (`no such key: x`, `operation cancelled: actual cost limit
//!   exceeded`, `CEL result of type int could not be converted to bool: ...`). It never panics:
//!   the `cel_selector` fuzz target compiles and evaluates arbitrary text.
//! - The runtime cost limit is upstream's `CELSelectorExpressionMaxCost`, counted with cel-go's
//!   cost model ([`cost`]).
//!
//! The `cel` crate parses and interprets; this module supplies the Kubernetes libraries
//! ([`quantity`], [`semver`], [`libs`]), the `device` variable ([`device`]), the checks the
//! crate leaves to runtime ([`check`]) and the cost accounting.

mod check;
pub mod cost;
mod device;
mod env;
mod errors;
mod libs;
pub mod quantity;
pub mod semver;

#[cfg(test)]
mod tests;

use std::collections::HashMap;
use std::fmt;
use std::sync::Arc;

use ::cel::common::types::CelBool;
use ::cel::{Context, IdedExpr, Value};

pub use errors::{CelError, CelErrorKind};

/// `resourceapi.CELSelectorExpressionMaxCost` (k8s.io/api/resource/v1, v1.35): the runtime cost
/// limit of one selector evaluation.
pub const SELECTOR_MAX_COST: u64 = 1_000_000;

/// `resourceapi.CELSelectorExpressionMaxLength` (k8s.io/api/resource/v1, v1.35): the longest
/// expression the API server accepts.
pub const SELECTOR_MAX_LENGTH: usize = 10 * 1024;

/// One device as CEL sees it (`device.driver`, `device.attributes[domain].id`,
/// `device.capacity[domain].id`).
#[derive(Debug, Clone, Copy)]
pub struct CelDevice<'a> {
    pub driver: &'a str,
    /// Fully qualified attribute names (`domain/id`; an unqualified name belongs to `driver`'s
    /// domain, as upstream's `parseQualifiedName` reads it) with their typed values.
    pub attributes: &'a [(&'a str, AttributeValue<'a>)],
    /// Fully qualified capacity names with their quantity.
    pub capacity: &'a [(&'a str, crate::core::quantity::Quantity)],
    /// `device.allowMultipleAllocations` (`None` reads as false, as upstream's `ptr.Deref`).
    pub allow_multiple_allocations: Option<bool>,
}

/// An attribute value (`DeviceAttribute`: exactly one of int, bool, string, version).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum AttributeValue<'a> {
    Int(i64),
    Bool(bool),
    String(&'a str),
    /// A semantic version; CEL sees a `Semver` (one that does not parse fails the evaluation).
    Version(&'a str),
}

/// The feature gates the selector environment depends on.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct CelFeatures {
    /// DRAConsumableCapacity. Upstream's stored-expression environment (what the scheduler
    /// compiles with) declares `device.allowMultipleAllocations` whatever the gate says, so the
    /// gate only matters to API validation of new expressions; it is kept to key the cache the
    /// way upstream's `cel.NewCache(…, Features)` is.
    pub consumable_capacity: bool,
}

/// A compiled selector: the checked expression and what evaluating it needs.
pub struct CompiledSelector {
    expression: String,
    program: IdedExpr,
    /// The program with cost accounting calls, when the static bound may exceed the limit.
    metered: Option<IdedExpr>,
    /// An upper bound of the runtime cost (cel-go's model), `u64::MAX` when unbounded.
    max_cost: u64,
}

impl fmt::Debug for CompiledSelector {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("CompiledSelector")
            .field("expression", &self.expression)
            .field("max_cost", &self.max_cost)
            .field("metered", &self.metered.is_some())
            .finish()
    }
}

/// Parses and checks `expression` in the DRA environment (upstream `CompileCELExpression`).
pub fn compile(expression: &str, features: CelFeatures) -> Result<CompiledSelector, CelError> {
    let _ = features;
    if expression.len() > SELECTOR_MAX_LENGTH {
        return Err(CelError::too_long(SELECTOR_MAX_LENGTH));
    }
    let env = env::shared().as_ref().map_err(|e| CelError::internal(format!("unexpected error loading CEL environment: {e}")))?;
    let (program, info) = env
        .parser()
        .parse_with_source_info(expression)
        .map_err(|e| CelError::compile(errors::render_parse_errors(expression, &e)))?;
    check::check(expression, &program, &info)?;
    let mut program = program;
    libs::lower(&mut program);
    let max_cost = cost::estimate(&program);
    let metered = if max_cost > SELECTOR_MAX_COST { Some(cost::instrument(&program)) } else { None };
    Ok(CompiledSelector { expression: expression.to_string(), program, metered, max_cost })
}

impl CompiledSelector {
    /// The expression text.
    pub fn expression(&self) -> &str {
        &self.expression
    }

    /// An upper bound of the evaluation cost in cel-go's units (`u64::MAX`: no bound known at
    /// compile time, so the evaluation counts its cost as it goes).
    pub fn max_cost(&self) -> u64 {
        self.max_cost
    }

    /// Upstream `DeviceMatches`: `Ok(bool)`, or the evaluation error (a missing key, a type
    /// error, the cost limit, a result that is not a bool). Never panics.
    pub fn matches(&self, device: &CelDevice<'_>) -> Result<bool, CelError> {
        let env =
            env::shared().as_ref().map_err(|e| CelError::internal(format!("unexpected error loading CEL environment: {e}")))?;
        let prepared = device::Prepared::new(device).map_err(CelError::evaluation)?;
        let resolver = device::DeviceResolver { prepared: &prepared };
        let mut ctx = Context::with_env(Arc::clone(env));
        ctx.set_variable_resolver(&resolver);
        let result = match &self.metered {
            None => Value::resolve_val(&self.program, &ctx),
            Some(metered) => cost::Meter::run(SELECTOR_MAX_COST, || Value::resolve_val(metered, &ctx)),
        };
        let value = result.map_err(|e| CelError::evaluation(errors::execution_error_text(&e)))?;
        match value.downcast_ref::<CelBool>() {
            Some(b) => Ok(*b.inner()),
            None => Err(CelError::evaluation(errors::not_bool_text(value.as_ref()))),
        }
    }
}

/// Compiled selectors by expression text (upstream `cel.Cache`), so an expression compiles once
/// per class or claim rather than per device per cycle. Failed compilations are not kept, as
/// upstream keeps only successful ones: the error is recomputed (cheaply) on the next use.
#[derive(Debug, Default)]
pub struct SelectorCache {
    features: CelFeatures,
    entries: HashMap<String, Arc<CompiledSelector>>,
}

impl SelectorCache {
    /// An empty cache for these features.
    pub fn new(features: CelFeatures) -> SelectorCache {
        SelectorCache { features, entries: HashMap::new() }
    }

    /// The compiled selector for `expression`, compiling it on first use.
    pub fn get_or_compile(&mut self, expression: &str) -> Result<Arc<CompiledSelector>, CelError> {
        if let Some(hit) = self.entries.get(expression) {
            return Ok(Arc::clone(hit));
        }
        let compiled = Arc::new(compile(expression, self.features)?);
        self.entries.insert(expression.to_string(), Arc::clone(&compiled));
        Ok(compiled)
    }

    /// How many compiled selectors are kept.
    pub fn len(&self) -> usize {
        self.entries.len()
    }

    /// True when nothing is kept.
    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }

    /// Keeps only the expressions `keep` approves (the caller drops those of deleted classes
    /// and claims, where upstream's LRU would age them out).
    pub fn retain(&mut self, mut keep: impl FnMut(&str) -> bool) {
        self.entries.retain(|k, _| keep(k));
    }
}
