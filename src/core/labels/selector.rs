//! Compiled label selectors (`k8s.io/apimachinery/pkg/labels` + `metav1.LabelSelectorAsSelector`).
//!
//! Pod (anti-)affinity terms, topology spread constraints and the selectors of Services and
//! controllers are matched against many pods per scheduling cycle, so they are compiled once into
//! interned keys. A key nobody ever interned is on no pod or namespace, so lookups never grow the
//! intern pool with arbitrary input.

use super::requirement::{KeyResolution, Op, Requirement};
use super::syntax::{is_qualified_name, is_valid_label_value};
use crate::core::api;
use crate::core::intern::Name;
use crate::core::model::Labels;
use std::collections::BTreeMap;

/// How a selector can narrow the pods to look at (see [`Selector::narrowing`]).
#[derive(Debug, Clone, Copy)]
pub enum Narrowing<'a> {
    /// The selector matches nothing.
    Nothing,
    /// No `In` requirement: every pod is a candidate.
    Any,
    /// Only pods with `key` set to one of these values can match.
    In(Name, &'a [Box<str>]),
    /// Only pods carrying `key` can match.
    Exists(Name),
}

/// A parsed selector: `Nothing` (from a nil selector) or a conjunction of requirements (none =
/// `Everything`).
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct Selector {
    nothing: bool,
    reqs: Vec<Requirement>,
}

impl Default for Selector {
    fn default() -> Self {
        Selector::nothing()
    }
}

impl Selector {
    /// `labels.Nothing()`: matches no object.
    pub fn nothing() -> Selector {
        Selector { nothing: true, reqs: Vec::new() }
    }

    /// `labels.Everything()`: matches every object.
    pub fn everything() -> Selector {
        Selector { nothing: false, reqs: Vec::new() }
    }

    /// `metav1.LabelSelectorAsSelector`: `None` selects nothing, an empty selector everything;
    /// invalid operators, keys or values are errors.
    pub fn from_api(sel: Option<&api::LabelSelector>, how: KeyResolution) -> Result<Selector, String> {
        let Some(sel) = sel else { return Ok(Selector::nothing()) };
        let mut s = Selector::everything();
        for (k, v) in &sel.match_labels {
            check_key(k)?;
            check_value(0, k, v)?;
            s.reqs.push(Requirement::new(k, Op::In(vec![v.as_str().into()]), how));
        }
        for e in &sel.match_expressions {
            check_key(&e.key)?;
            let op = match e.operator.as_str() {
                "In" | "NotIn" => {
                    if e.values.is_empty() {
                        return Err(format!("{}: for 'in', 'notin' operators, values set can't be empty", e.key));
                    }
                    for (i, v) in e.values.iter().enumerate() {
                        check_value(i, &e.key, v)?;
                    }
                    let vals = e.values.iter().map(|v| v.as_str().into()).collect();
                    if e.operator == "In" {
                        Op::In(vals)
                    } else {
                        Op::NotIn(vals)
                    }
                }
                "Exists" | "DoesNotExist" => {
                    if !e.values.is_empty() {
                        return Err(format!("{}: values set must be empty for exists and does not exist", e.key));
                    }
                    if e.operator == "Exists" {
                        Op::Exists
                    } else {
                        Op::DoesNotExist
                    }
                }
                other => return Err(format!("{other:?} is not a valid label selector operator")),
            };
            s.reqs.push(Requirement::new(&e.key, op, how));
        }
        Ok(s)
    }

    /// `labels.SelectorFromSet` of an equality map (Services, ReplicationControllers).
    pub fn from_map(map: &BTreeMap<String, String>, how: KeyResolution) -> Selector {
        let mut s = Selector::everything();
        for (k, v) in map {
            s.add_in(k, v, how);
        }
        s
    }

    /// Add `key in (value)` (matchLabelKeys, merged selectors).
    pub fn add_in(&mut self, key: &str, value: &str, how: KeyResolution) {
        self.reqs.push(Requirement::new(key, Op::In(vec![value.into()]), how));
    }

    /// Add `key notin (value)` (mismatchLabelKeys).
    pub fn add_not_in(&mut self, key: &str, value: &str, how: KeyResolution) {
        self.reqs.push(Requirement::new(key, Op::NotIn(vec![value.into()]), how));
    }

    /// Append every requirement of `other` (`selector.Add(other.Requirements()...)`); a
    /// `Nothing` selector has no requirements to add.
    pub fn extend(&mut self, other: &Selector) {
        if !other.nothing {
            self.reqs.extend(other.reqs.iter().cloned());
        }
    }

    /// `Selector.Empty()`: true for `Everything` (no requirements), false for `Nothing`.
    pub fn is_empty(&self) -> bool {
        !self.nothing && self.reqs.is_empty()
    }

    /// Whether this is `labels.Nothing()`.
    pub fn is_nothing(&self) -> bool {
        self.nothing
    }

    /// The first `In` requirement (matchLabels included), else the first `Exists`, which bounds
    /// the candidates a label index must return; `Nothing` when no object can match.
    pub fn narrowing(&self) -> Narrowing<'_> {
        if self.nothing {
            return Narrowing::Nothing;
        }
        for r in &self.reqs {
            if let Op::In(values) = &r.op {
                return match r.key {
                    Some(k) => Narrowing::In(k, values),
                    None => Narrowing::Nothing,
                };
            }
        }
        for r in &self.reqs {
            if let Op::Exists = r.op {
                return match r.key {
                    Some(k) => Narrowing::Exists(k),
                    None => Narrowing::Nothing,
                };
            }
        }
        Narrowing::Any
    }

    /// `Selector.Matches`.
    pub fn matches(&self, labels: &Labels) -> bool {
        !self.nothing && self.reqs.iter().all(|r| r.matches(labels))
    }
}

fn check_key(k: &str) -> Result<(), String> {
    if is_qualified_name(k) {
        Ok(())
    } else {
        Err(format!("{k:?}: invalid label key"))
    }
}

/// `validation.IsValidLabelValue`, with upstream's message (`values[i][key]: Invalid value: ...`).
fn check_value(i: usize, k: &str, v: &str) -> Result<(), String> {
    if is_valid_label_value(v) {
        Ok(())
    } else {
        Err(format!(
            "values[{i}][{k}]: Invalid value: {v:?}: a valid label must be an empty string or consist of alphanumeric \
             characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyValue',  or \
             'my_value',  or '12345', regex used for validation is '(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?')"
        ))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn labels(pairs: &[(&str, &str)]) -> Labels {
        Labels::from_map(&pairs.iter().map(|(k, v)| (k.to_string(), v.to_string())).collect())
    }

    fn expr(key: &str, op: &str, values: &[&str]) -> api::LabelSelectorRequirement {
        api::LabelSelectorRequirement {
            key: key.into(),
            operator: op.into(),
            values: values.iter().map(|s| s.to_string()).collect(),
        }
    }

    #[test]
    fn nil_empty_and_operators() {
        let l = labels(&[("app", "web"), ("tier", "fe")]);
        assert!(!Selector::from_api(None, KeyResolution::Lookup).unwrap().matches(&l));
        assert!(Selector::from_api(Some(&api::LabelSelector::default()), KeyResolution::Lookup).unwrap().matches(&l));
        let sel = api::LabelSelector {
            match_labels: [("app".to_string(), "web".to_string())].into_iter().collect(),
            match_expressions: vec![expr("tier", "In", &["fe", "be"]), expr("gone", "DoesNotExist", &[])],
        };
        assert!(Selector::from_api(Some(&sel), KeyResolution::Intern).unwrap().matches(&l));
        let sel = api::LabelSelector { match_expressions: vec![expr("tier", "NotIn", &["fe"])], ..Default::default() };
        assert!(!Selector::from_api(Some(&sel), KeyResolution::Intern).unwrap().matches(&l));
        let bad = api::LabelSelector { match_expressions: vec![expr("tier", "In", &[])], ..Default::default() };
        assert!(Selector::from_api(Some(&bad), KeyResolution::Intern).is_err());
        let bad = api::LabelSelector { match_expressions: vec![expr("tier", "Gt", &["1"])], ..Default::default() };
        assert!(Selector::from_api(Some(&bad), KeyResolution::Intern).is_err());
        let mut s = Selector::everything();
        s.add_not_in("app", "web", KeyResolution::Lookup);
        assert!(!s.matches(&l));
        assert!(s.matches(&labels(&[])));
    }
}
