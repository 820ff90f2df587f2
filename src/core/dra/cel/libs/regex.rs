//! library.Regex (`staging/src/k8s.io/apiserver/pkg/cel/library/regex.go`, v1.35):
//! `<string>.find(<regex>)` (the first match or ""), `<string>.findAll(<regex>)` and
//! `<string>.findAll(<regex>, <limit>)` (all matches, at most `limit` when it is not negative).
//! Go's RE2 and the `regex` crate share the syntax upstream relies on; the error text for an
//! invalid pattern is the crate's.

use cel::common::types::{CelBool, CelInt, CelList, CelString};
use cel::common::value::Val;
use cel::{DeclarationError, Env, ExecutionError};

use super::fail;

/// Registers the library.
pub fn register(env: &mut Env) -> Result<(), DeclarationError> {
    cel::add_member_overload!(env, fn string_find_n: (CelString, CelString) -> Result<CelString>, name = "find")?;
    cel::add_member_overload!(env, fn string_find_all: (CelString, CelString) -> Result<CelList>, name = "findAll")?;
    cel::add_member_overload!(env, fn string_find_all_n: (CelString, CelString, CelInt) -> Result<CelList>, name = "findAll")?;
    register_matches(env)
}

/// Compiled patterns of this thread: selectors evaluate the same few patterns once per device,
/// and a loop may evaluate one many times (cel-go compiles constant patterns once per program).
const CACHE_ENTRIES: usize = 64;

thread_local! {
    static CACHE: std::cell::RefCell<Vec<(String, regex::Regex)>> = const { std::cell::RefCell::new(Vec::new()) };
}

/// The compiled `pattern`, from this thread's cache when it is there.
pub(super) fn compile(function: &str, pattern: &str) -> Result<regex::Regex, ExecutionError> {
    if let Some(hit) = CACHE.with(|c| c.borrow().iter().find(|(p, _)| p == pattern).map(|(_, r)| r.clone())) {
        return Ok(hit);
    }
    let re = regex::Regex::new(pattern).map_err(|e| fail(function, e.to_string()))?;
    CACHE.with(|c| {
        let mut c = c.borrow_mut();
        if c.len() >= CACHE_ENTRIES {
            c.remove(0);
        }
        c.push((pattern.to_string(), re.clone()));
    });
    Ok(re)
}

fn string_find_n(s: &CelString, pattern: &CelString) -> Result<CelString<'static>, ExecutionError> {
    let re = compile("find", pattern.inner())?;
    Ok(CelString::from(re.find(s.inner()).map_or_else(String::new, |m| m.as_str().to_string())))
}

fn find_all(s: &str, pattern: &str, limit: i64) -> Result<CelList<'static>, ExecutionError> {
    let re = compile("findAll", pattern)?;
    let take = if limit < 0 { usize::MAX } else { usize::try_from(limit).unwrap_or(usize::MAX) };
    let found: Vec<Box<dyn Val + 'static>> =
        re.find_iter(s).take(take).map(|m| Box::new(CelString::from(m.as_str().to_string())) as Box<dyn Val>).collect();
    Ok(CelList::from(found))
}

fn string_find_all(s: &CelString, pattern: &CelString) -> Result<CelList<'static>, ExecutionError> {
    find_all(s.inner(), pattern.inner(), -1)
}

fn string_find_all_n(s: &CelString, pattern: &CelString, limit: &CelInt) -> Result<CelList<'static>, ExecutionError> {
    find_all(s.inner(), pattern.inner(), *limit.inner())
}

/// The function `matches` calls are redirected to: the standard `matches` with this module's
/// cache of compiled patterns (the crate compiles the pattern on every call).
pub const MATCHES: &str = "@matches";

/// Registers the cached `matches`.
pub fn register_matches(env: &mut Env) -> Result<(), DeclarationError> {
    cel::add_overload!(env, fn cached_matches: (CelString, CelString) -> Result<CelBool>, name = MATCHES)?;
    cel::add_member_overload!(env, fn cached_matches: (CelString, CelString) -> Result<CelBool>, name = MATCHES)?;
    Ok(())
}

fn cached_matches(s: &CelString, pattern: &CelString) -> Result<CelBool, ExecutionError> {
    Ok(CelBool::from(compile("matches", pattern.inner())?.is_match(s.inner())))
}
