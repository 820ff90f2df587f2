//! Shared pieces of the default plugins: score normalisation and node-selector matching.
//!
//! Node selectors are compiled once (per pod at PreFilter/PreScore, or once per plugin for
//! `NodeAffinityArgs.addedAffinity`) into interned keys and parsed operands, so matching a node is
//! a handful of pointer compares and never allocates. Semantics follow
//! staging/src/k8s.io/component-helpers/scheduling/corev1/nodeaffinity/nodeaffinity.go and
//! k8s.io/apimachinery/pkg/labels (Requirement validation; matching is `core::labels`).

use crate::core::api;
use crate::core::cache::domains::Domains;
use crate::core::cache::NodeInfo;
use crate::core::intern::Name;
use crate::core::labels::syntax::{is_qualified_name, is_valid_label_value};
use crate::core::labels::{KeyResolution, Op, Requirement};
use crate::core::model::Labels;

/// `helper.DefaultNormalizeScore` (pkg/scheduler/framework/plugins/helper/normalize_score.go):
/// scale raw scores to `0..=max_priority` by the largest one; `reverse` turns "more is worse" raw
/// scores into "more is better". All-zero input becomes all `max_priority` when reversed.
pub fn default_normalize_score(max_priority: i64, reverse: bool, scores: &mut [i64]) {
    let max_count = scores.iter().copied().fold(0i64, i64::max);
    if max_count == 0 {
        if reverse {
            scores.iter_mut().for_each(|s| *s = max_priority);
        }
        return;
    }
    for s in scores.iter_mut() {
        let scaled = max_priority * *s / max_count;
        *s = if reverse { max_priority - scaled } else { scaled };
    }
}

/// One `matchFields` entry: only `metadata.name` exists as a node field; any other key reads as
/// the empty string (`fields.Set.Get`).
#[derive(Debug, Clone, PartialEq)]
struct FieldRequirement {
    is_name: bool,
    value: Box<str>,
    equal: bool,
}

impl FieldRequirement {
    fn matches(&self, node_name: &str) -> bool {
        let field = if self.is_name { node_name } else { "" };
        (field == &*self.value) == self.equal
    }
}

/// `metav1.ObjectNameField`.
pub const OBJECT_NAME_FIELD: &str = "metadata.name";

/// A parsed `NodeSelectorTerm`; a term that failed to parse never matches.
#[derive(Debug, Clone, PartialEq)]
pub struct CompiledTerm {
    labels: Option<Vec<Requirement>>,
    fields: Option<Vec<FieldRequirement>>,
    /// Why the term is invalid (first problem), if it is.
    pub error: Option<String>,
}

impl CompiledTerm {
    /// `newNodeSelectorTerm`.
    pub fn compile(term: &api::NodeSelectorTerm, how: KeyResolution) -> CompiledTerm {
        let mut error = None;
        let labels = if term.match_expressions.is_empty() {
            None
        } else {
            match term.match_expressions.iter().map(|r| compile_label_requirement(r, how)).collect::<Result<Vec<_>, _>>() {
                Ok(v) => Some(v),
                Err(e) => {
                    error = Some(e);
                    None
                }
            }
        };
        let fields = if term.match_fields.is_empty() {
            None
        } else {
            match term.match_fields.iter().map(compile_field_requirement).collect::<Result<Vec<_>, _>>() {
                Ok(v) => Some(v),
                Err(e) => {
                    error.get_or_insert(e);
                    None
                }
            }
        };
        CompiledTerm { labels, fields, error }
    }

    /// `nodeSelectorTerm.match`: expressions and fields ANDed; fields are ignored for a node
    /// without a name (no fields at all).
    pub fn matches(&self, labels: &Labels, node_name: &str) -> bool {
        if self.error.is_some() {
            return false;
        }
        if let Some(reqs) = &self.labels {
            if !reqs.iter().all(|r| r.matches(labels)) {
                return false;
            }
        }
        if let Some(reqs) = &self.fields {
            if !node_name.is_empty() && !reqs.iter().all(|r| r.matches(node_name)) {
                return false;
            }
        }
        true
    }
}

fn is_empty_term(term: &api::NodeSelectorTerm) -> bool {
    term.match_expressions.is_empty() && term.match_fields.is_empty()
}

/// `nodeaffinity.LazyErrorNodeSelector`: terms ORed, empty terms dropped (they select nothing),
/// invalid terms kept but never matching. An empty list matches nothing.
#[derive(Debug, Clone, PartialEq)]
pub struct CompiledNodeSelector {
    terms: Vec<CompiledTerm>,
}

impl CompiledNodeSelector {
    /// Compile every non-empty term; invalid terms are kept and never match (lazy errors).
    pub fn compile(selector: &api::NodeSelector, how: KeyResolution) -> CompiledNodeSelector {
        let terms =
            selector.node_selector_terms.iter().filter(|t| !is_empty_term(t)).map(|t| CompiledTerm::compile(t, how)).collect();
        CompiledNodeSelector { terms }
    }

    /// `nodeaffinity.NewNodeSelector`: like [`CompiledNodeSelector::compile`] but refuses any
    /// invalid term (used for configuration, where errors must surface at startup).
    pub fn compile_strict(selector: &api::NodeSelector, how: KeyResolution) -> Result<CompiledNodeSelector, String> {
        let compiled = CompiledNodeSelector::compile(selector, how);
        match compiled.terms.iter().find_map(|t| t.error.clone()) {
            Some(e) => Err(e),
            None => Ok(compiled),
        }
    }

    /// Whether any term matches the node.
    pub fn matches(&self, labels: &Labels, node_name: &str) -> bool {
        self.terms.iter().any(|t| t.matches(labels, node_name))
    }
}

/// `nodeaffinity.PreferredSchedulingTerms`: weighted terms; a node scores the sum of the weights
/// of the terms it matches. Zero-weight and empty terms are dropped.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct CompiledPreferredTerms {
    terms: Vec<(i64, CompiledTerm)>,
}

impl CompiledPreferredTerms {
    /// `NewPreferredSchedulingTerms`: any invalid term is an error for the whole list.
    pub fn compile(terms: &[api::PreferredSchedulingTerm], how: KeyResolution) -> Result<CompiledPreferredTerms, String> {
        let mut out = Vec::with_capacity(terms.len());
        for t in terms {
            if t.weight == 0 || is_empty_term(&t.preference) {
                continue;
            }
            let compiled = CompiledTerm::compile(&t.preference, how);
            if let Some(e) = compiled.error {
                return Err(e);
            }
            out.push((i64::from(t.weight), compiled));
        }
        Ok(CompiledPreferredTerms { terms: out })
    }

    /// No term can ever add to a score.
    pub fn is_empty(&self) -> bool {
        self.terms.is_empty()
    }

    /// Sum of the weights of the terms the node matches.
    pub fn score(&self, labels: &Labels, node_name: &str) -> i64 {
        self.terms.iter().filter(|(_, t)| t.matches(labels, node_name)).map(|(w, _)| *w).sum()
    }
}

/// `nodeaffinity.RequiredNodeAffinity`: the pod's `nodeSelector` AND its required node affinity.
#[derive(Debug, Clone, PartialEq)]
pub struct RequiredNodeAffinity {
    /// `None` when the pod has no nodeSelector; an entry whose key is `None` matches no node.
    node_selector: Option<Vec<(Option<Name>, Box<str>)>>,
    /// The nodeSelector resolved to the cache's value ids ([`RequiredNodeAffinity::with_value_ids`]):
    /// a node then matches by comparing integers; `None` entries (a key or value no node carries)
    /// match no node.
    selector_ids: Option<Vec<Option<(Name, u32)>>>,
    affinity: Option<CompiledNodeSelector>,
}

impl RequiredNodeAffinity {
    /// `GetRequiredNodeAffinity`.
    pub fn of_pod(node_selector: &[(Box<str>, Box<str>)], affinity: Option<&api::Affinity>) -> RequiredNodeAffinity {
        let node_selector = (!node_selector.is_empty())
            .then(|| node_selector.iter().map(|(k, v)| (Name::lookup(k), v.clone())).collect::<Vec<_>>());
        let affinity = affinity
            .and_then(|a| a.node_affinity.as_ref())
            .and_then(|na| na.required.as_ref())
            .map(|ns| CompiledNodeSelector::compile(ns, KeyResolution::Lookup));
        RequiredNodeAffinity { node_selector, selector_ids: None, affinity }
    }

    /// Resolve the nodeSelector's values to the value ids of `domains`, for
    /// [`RequiredNodeAffinity::matches_node`] on that cache's nodes.
    pub fn with_value_ids(mut self, domains: &Domains) -> RequiredNodeAffinity {
        self.selector_ids = self
            .node_selector
            .as_ref()
            .map(|sel| sel.iter().map(|(k, v)| k.and_then(|k| Some((k, domains.id(k, v)?)))).collect());
        self
    }

    /// [`RequiredNodeAffinity::matches`] for a node of the cache whose `domains` the ids were
    /// resolved against.
    pub fn matches_node(&self, domains: &Domains, node: &NodeInfo) -> bool {
        let Some(ids) = &self.selector_ids else {
            return self.matches(&node.node.labels, &node.node.name);
        };
        if !ids.iter().all(|e| e.is_some_and(|(k, id)| domains.node_value(k, node.id) == Some(id))) {
            return false;
        }
        match &self.affinity {
            Some(a) => a.matches(&node.node.labels, &node.node.name),
            None => true,
        }
    }

    /// `RequiredNodeAffinity.Match` (parse errors only make terms not match).
    pub fn matches(&self, labels: &Labels, node_name: &str) -> bool {
        if let Some(sel) = &self.node_selector {
            let all = sel.iter().all(|(k, v)| k.and_then(|k| labels.get(k)).is_some_and(|have| have == &**v));
            if !all {
                return false;
            }
        }
        match &self.affinity {
            Some(a) => a.matches(labels, node_name),
            None => true,
        }
    }
}

fn compile_label_requirement(r: &api::NodeSelectorRequirement, how: KeyResolution) -> Result<Requirement, String> {
    let values = &r.values;
    let op = match r.operator.as_str() {
        "In" | "NotIn" => {
            if values.is_empty() {
                return Err(format!("{}: for 'in', 'notin' operators, values set can't be empty", r.key));
            }
            let vals = values.iter().map(|v| v.as_str().into()).collect();
            if r.operator == "In" {
                Op::In(vals)
            } else {
                Op::NotIn(vals)
            }
        }
        "Exists" | "DoesNotExist" => {
            if !values.is_empty() {
                return Err(format!("{}: values set must be empty for exists and does not exist", r.key));
            }
            if r.operator == "Exists" {
                Op::Exists
            } else {
                Op::DoesNotExist
            }
        }
        "Gt" | "Lt" => {
            if values.len() != 1 {
                return Err(format!("{}: for 'Gt', 'Lt' operators, exactly one value is required", r.key));
            }
            let n: i64 =
                values[0].parse().map_err(|_| format!("{}: for 'Gt', 'Lt' operators, the value must be an integer", r.key))?;
            if r.operator == "Gt" {
                Op::Gt(n)
            } else {
                Op::Lt(n)
            }
        }
        other => {
            return Err(format!(
            "{}: Unsupported value: {other:?}: supported values: \"In\", \"NotIn\", \"Exists\", \"DoesNotExist\", \"Gt\", \"Lt\"",
            r.key
        ))
        }
    };
    if !is_qualified_name(&r.key) {
        return Err(format!("{:?}: invalid label key", r.key));
    }
    if let Some(bad) = values.iter().find(|v| !is_valid_label_value(v)) {
        return Err(format!("{}: {bad:?}: invalid label value", r.key));
    }
    Ok(Requirement::new(&r.key, op, how))
}

fn compile_field_requirement(r: &api::NodeSelectorRequirement) -> Result<FieldRequirement, String> {
    let equal = match r.operator.as_str() {
        "In" => true,
        "NotIn" => false,
        other => return Err(format!("{}: Unsupported value: {other:?}: supported values: \"In\", \"NotIn\"", r.key)),
    };
    if r.values.len() != 1 {
        return Err(format!("{}: must have one element", r.key));
    }
    Ok(FieldRequirement { is_name: r.key == OBJECT_NAME_FIELD, value: r.values[0].as_str().into(), equal })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::core::framework::plugins::test_util::{field_term, req, term};
    use std::collections::BTreeMap;

    fn labels(pairs: &[(&str, &str)]) -> Labels {
        Labels::from_map(&pairs.iter().map(|(k, v)| (k.to_string(), v.to_string())).collect::<BTreeMap<_, _>>())
    }

    fn selector(terms: Vec<api::NodeSelectorTerm>) -> CompiledNodeSelector {
        CompiledNodeSelector::compile(&api::NodeSelector { node_selector_terms: terms }, KeyResolution::Intern)
    }

    #[test]
    fn normalize_matches_upstream_table() {
        // helper/normalize_score_test.go TestDefaultNormalizeScore.
        let cases: &[(bool, &[i64], &[i64])] = &[
            (false, &[10, 20, 30], &[33, 66, 100]),
            (true, &[10, 20, 30], &[67, 34, 0]),
            (false, &[1, 2, 3], &[33, 66, 100]),
            (true, &[1, 2, 3], &[67, 34, 0]),
            (false, &[1000, 2000, 3000], &[33, 66, 100]),
            (true, &[1000, 2000, 3000], &[67, 34, 0]),
            (false, &[0, 0, 0], &[0, 0, 0]),
            (true, &[0, 0, 0], &[100, 100, 100]),
            (false, &[0, 1, 1], &[0, 100, 100]),
            (true, &[0, 1, 1], &[100, 0, 0]),
        ];
        for (reverse, input, want) in cases {
            let mut s = input.to_vec();
            default_normalize_score(100, *reverse, &mut s);
            assert_eq!(&s, want, "reverse={reverse} input={input:?}");
        }
    }

    #[test]
    fn operators() {
        // nodeaffinity_test.go TestNodeSelectorMatch / labels selector_test.go semantics.
        let node = labels(&[("foo", "bar"), ("num", "5"), ("word", "five")]);
        let m = |r| selector(vec![term(vec![r])]).matches(&node, "n1");
        assert!(m(req("foo", "In", &["bar", "baz"])));
        assert!(!m(req("foo", "In", &["baz"])));
        assert!(m(req("foo", "NotIn", &["baz"])));
        assert!(!m(req("foo", "NotIn", &["bar"])));
        assert!(m(req("absent", "NotIn", &["x"])), "NotIn matches when the key is absent");
        assert!(m(req("foo", "Exists", &[])));
        assert!(!m(req("absent", "Exists", &[])));
        assert!(m(req("absent", "DoesNotExist", &[])));
        assert!(!m(req("foo", "DoesNotExist", &[])));
        assert!(m(req("num", "Gt", &["4"])));
        assert!(!m(req("num", "Gt", &["5"])));
        assert!(m(req("num", "Lt", &["6"])));
        assert!(!m(req("word", "Gt", &["1"])), "unparsable label value");
        assert!(!m(req("absent", "Lt", &["1"])));
    }

    #[test]
    fn invalid_requirements_never_match() {
        let node = labels(&[("foo", "bar")]);
        let m = |r| selector(vec![term(vec![r])]).matches(&node, "n1");
        assert!(!m(req("foo", "In", &[])), "In needs values");
        assert!(!m(req("foo", "Exists", &["bar"])), "Exists takes no values");
        assert!(!m(req("foo", "Gt", &["1", "2"])), "Gt takes one value");
        assert!(!m(req("foo", "Gt", &["x"])), "Gt takes an integer");
        assert!(!m(req("foo", "Bogus", &["bar"])));
        assert!(!m(req("foo", "NotIn", &["inv@lid"])), "invalid value poisons even NotIn");
        assert!(!m(req("-foo", "DoesNotExist", &[])), "invalid key");
        // An invalid term does not stop a valid sibling term from matching (terms are ORed).
        let s = selector(vec![term(vec![req("foo", "In", &[])]), term(vec![req("foo", "In", &["bar"])])]);
        assert!(s.matches(&node, "n1"));
        assert!(CompiledNodeSelector::compile_strict(
            &api::NodeSelector { node_selector_terms: vec![term(vec![req("foo", "In", &[])])] },
            KeyResolution::Intern
        )
        .is_err());
    }

    #[test]
    fn empty_terms_match_nothing() {
        let node = labels(&[("foo", "bar")]);
        assert!(!selector(vec![]).matches(&node, "n1"));
        assert!(!selector(vec![api::NodeSelectorTerm::default()]).matches(&node, "n1"));
    }

    #[test]
    fn match_fields_on_node_name() {
        let node = labels(&[]);
        let m = |r| selector(vec![field_term(vec![r])]).matches(&node, "n1");
        assert!(m(req("metadata.name", "In", &["n1"])));
        assert!(!m(req("metadata.name", "In", &["n2"])));
        assert!(m(req("metadata.name", "NotIn", &["n2"])));
        assert!(!m(req("metadata.name", "In", &["n1", "n2"])), "fields take exactly one value");
        assert!(!m(req("metadata.name", "Exists", &[])), "only In/NotIn for fields");
        assert!(!m(req("metadata.uid", "In", &["n1"])), "unknown field reads as empty");
        // Expressions and fields of one term are ANDed.
        let t = api::NodeSelectorTerm {
            match_expressions: vec![req("foo", "Exists", &[])],
            match_fields: vec![req("metadata.name", "In", &["n1"])],
        };
        assert!(!selector(vec![t]).matches(&node, "n1"));
    }

    #[test]
    fn label_syntax() {
        assert!(is_qualified_name("kubernetes.io/hostname"));
        assert!(is_qualified_name("foo"));
        assert!(!is_qualified_name("Example.com/foo"));
        assert!(!is_qualified_name("a/b/c"));
        assert!(!is_qualified_name("/foo"));
        assert!(!is_qualified_name(&"a".repeat(64)));
        assert!(is_valid_label_value(""));
        assert!(is_valid_label_value("v1.2_3-x"));
        assert!(!is_valid_label_value("-x"));
        assert!(!is_valid_label_value(&"a".repeat(64)));
    }

    #[test]
    fn preferred_terms_sum_matching_weights() {
        let node = labels(&[("foo", "bar"), ("key", "value")]);
        let terms = vec![
            api::PreferredSchedulingTerm { weight: 2, preference: term(vec![req("foo", "In", &["bar"])]) },
            api::PreferredSchedulingTerm { weight: 3, preference: term(vec![req("key", "In", &["value"])]) },
            api::PreferredSchedulingTerm { weight: 5, preference: term(vec![req("key", "In", &["other"])]) },
            api::PreferredSchedulingTerm { weight: 0, preference: term(vec![req("foo", "Exists", &[])]) },
            api::PreferredSchedulingTerm { weight: 7, preference: api::NodeSelectorTerm::default() },
        ];
        let p = CompiledPreferredTerms::compile(&terms, KeyResolution::Intern).unwrap();
        assert_eq!(p.score(&node, "n1"), 5);
        let bad = vec![api::PreferredSchedulingTerm { weight: 1, preference: term(vec![req("foo", "In", &[])]) }];
        assert!(CompiledPreferredTerms::compile(&bad, KeyResolution::Intern).is_err());
    }
}
