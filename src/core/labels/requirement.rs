//! One label requirement (`k8s.io/apimachinery/pkg/labels` `Requirement`), shared by label
//! selectors and node selectors, with keys resolved to interned names so matching an object is a
//! pointer compare and never allocates.

use crate::core::intern::Name;
use crate::core::model::Labels;

/// How selector keys are resolved to interned names.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum KeyResolution {
    /// Look keys up only: a key nobody interned is on no object (per-cycle pod selectors; keeps the
    /// pool from growing with arbitrary pod input).
    Lookup,
    /// Intern keys (scheduler configuration and long-lived selectors: a key may appear on objects
    /// later than the selector that names it).
    Intern,
}

/// Interned name of a key, per `how`; `None` when no object can carry it.
pub fn resolve(key: &str, how: KeyResolution) -> Option<Name> {
    match how {
        KeyResolution::Lookup => Name::lookup(key),
        KeyResolution::Intern => Some(Name::new(key)),
    }
}

/// A requirement operator with its parsed operands (`selection.Operator`).
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub enum Op {
    /// The value is one of these.
    In(Vec<Box<str>>),
    /// The key is absent or its value is none of these.
    NotIn(Vec<Box<str>>),
    /// The key is present.
    Exists,
    /// The key is absent.
    DoesNotExist,
    /// The value parses as an integer greater than this (node selectors only).
    Gt(i64),
    /// The value parses as an integer less than this (node selectors only).
    Lt(i64),
}

/// One requirement; `key` is `None` when no object can carry the key.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct Requirement {
    /// The interned key, if any object can carry it.
    pub key: Option<Name>,
    /// The operator and its operands.
    pub op: Op,
}

impl Requirement {
    /// A requirement on `key`, resolved per `how`.
    pub fn new(key: &str, op: Op, how: KeyResolution) -> Requirement {
        Requirement { key: resolve(key, how), op }
    }

    /// `labels.Requirement.Matches`.
    pub fn matches(&self, labels: &Labels) -> bool {
        let value = self.key.and_then(|k| labels.get(k));
        match (&self.op, value) {
            (Op::In(values), Some(v)) => values.iter().any(|x| **x == *v),
            (Op::In(_), None) => false,
            (Op::NotIn(values), Some(v)) => !values.iter().any(|x| **x == *v),
            (Op::NotIn(_), None) => true,
            (Op::Exists, v) => v.is_some(),
            (Op::DoesNotExist, v) => v.is_none(),
            (Op::Gt(bound), Some(v)) => v.parse::<i64>().is_ok_and(|n| n > *bound),
            (Op::Lt(bound), Some(v)) => v.parse::<i64>().is_ok_and(|n| n < *bound),
            (Op::Gt(_) | Op::Lt(_), None) => false,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn operators_match_as_upstream() {
        let l = Labels::from_map(&[("n".to_string(), "5".to_string()), ("s".to_string(), "x".to_string())].into());
        let r = |key: &str, op: Op| Requirement::new(key, op, KeyResolution::Intern).matches(&l);
        assert!(r("n", Op::Gt(4)) && !r("n", Op::Gt(5)) && r("n", Op::Lt(6)));
        assert!(!r("s", Op::Gt(0)), "a non-integer value never satisfies Gt");
        assert!(!r("missing", Op::Lt(100)), "an absent key never satisfies Lt");
        assert!(r("missing", Op::NotIn(vec!["x".into()])) && !r("s", Op::NotIn(vec!["x".into()])));
        assert!(r("s", Op::Exists) && r("missing", Op::DoesNotExist));
    }
}
