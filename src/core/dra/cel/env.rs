//! The CEL environment of DRA device selectors, built once.
//!
//! Upstream (kubernetes/kubernetes v1.35) compiles selectors in the `StoredExpressions`
//! environment of `environment.MustBaseEnvSet(DefaultCompatibilityVersion())` extended by
//! `staging/src/k8s.io/dynamic-resource-allocation/cel/compile.go`. `StoredExpressions` holds every
//! library of the base set that is not removed (`staging/src/k8s.io/apiserver/pkg/cel/environment/
//! base.go`), whatever the compatibility version and feature gates:
//! - the CEL standard library, optional types, cross-type numeric comparisons;
//! - `ext.Strings(ext.StringsVersion(2))`, `ext.Sets()`, `ext.Lists(ext.ListsVersion(3))`,
//!   `ext.TwoVarComprehensions()`, `ext.Bindings()` (`cel.bind`, added by compile.go);
//! - the Kubernetes libraries `library.URLs`, `Regex`, `Lists`, `Quantity`, `IP`, `CIDR`,
//!   `Format`, `SemverLib(SemverVersion(1))` (and `Authz`/`AuthzSelectors`, whose functions only
//!   apply to an `authorizer` variable that selectors do not have);
//! - the `device` variable of the newest device type (the one with `allowMultipleAllocations`:
//!   the stored environment ignores the consumable-capacity gate, see compile.go's test case
//!   `allow_multiple_allocations_disabled`, which needs `NewExpressions` to get its error).
//!
//! The `cel` crate supplies the parser, the standard library, the strings and lists extensions
//! and the interpreter; [`super::libs`] adds what it lacks, and [`super::check`] rejects what the
//! upstream environment does not declare.
//!
//! Not implemented (rejected at compile time as undeclared, see [`super::check::DECLARED`]):
//! `library.URLs`, `library.Format`, and the standard library's
//! `timestamp`/`duration` functions (the crate's `chrono` feature is off to keep its time-zone
//! database out of the binary).

use std::sync::{Arc, OnceLock};

use cel::{extensions, Env};

use super::libs;

/// The shared environment (the interpreter reads its function table; it is never mutated).
pub fn shared() -> &'static Result<Arc<Env>, String> {
    static ENV: OnceLock<Result<Arc<Env>, String>> = OnceLock::new();
    ENV.get_or_init(|| build().map(Arc::new).map_err(|e| e.to_string()))
}

fn build() -> Result<Env, cel::DeclarationError> {
    let mut env = Env::stdlib();
    // cel-go keeps the last entry of a map literal that repeats a key.
    env.set_error_on_duplicate_map_keys(false);
    env.add_extension(extensions::strings)?;
    env.add_extension(extensions::lists)?;
    env.add_extension(libs::register)?;
    env.add_extension(super::cost::register)?;
    Ok(env)
}
