//! Parsed pod (anti-)affinity terms (upstream `framework.AffinityTerm` / `WeightedAffinityTerm`
//! and `newAffinityTerm` in pkg/scheduler/framework/types.go).
//!
//! A term is compiled once per pod: its label selector, with `matchLabelKeys` /
//! `mismatchLabelKeys` merged in as `key in (v)` / `key notin (v)` using the owning pod's labels
//! (what kube-apiserver does on pod creation; merging again is idempotent), the namespace set
//! (the owner's namespace when neither `namespaces` nor `namespaceSelector` is given) and the
//! namespace selector.

use crate::core::api;
use crate::core::intern::Name;
use crate::core::labels::resolve;
use crate::core::labels::KeyResolution;
use crate::core::labels::Selector;
use crate::core::model::Labels;
use std::sync::Arc;

/// One parsed `PodAffinityTerm`.
#[derive(Debug, Clone, PartialEq)]
pub struct AffinityTerm {
    /// Shared names (a resolved namespace selector's come from the cache's namespace table).
    pub namespaces: Vec<Arc<str>>,
    pub namespace_selector: Selector,
    pub selector: Selector,
    /// `None` when no node can carry the key.
    pub topology_key: Option<Name>,
}

impl AffinityTerm {
    /// `newAffinityTerm` for a term owned by a pod in `namespace` with `labels`.
    pub fn compile(
        term: &api::PodAffinityTerm,
        namespace: &str,
        labels: &Labels,
        how: KeyResolution,
    ) -> Result<AffinityTerm, String> {
        let mut selector = Selector::from_api(term.label_selector.as_ref(), how)?;
        if term.label_selector.is_some() {
            for k in &term.match_label_keys {
                if let Some(v) = labels.get_str(k) {
                    selector.add_in(k, v, how);
                }
            }
            for k in &term.mismatch_label_keys {
                if let Some(v) = labels.get_str(k) {
                    selector.add_not_in(k, v, how);
                }
            }
        }
        let namespaces = if term.namespaces.is_empty() && term.namespace_selector.is_none() {
            vec![namespace.into()]
        } else {
            term.namespaces.iter().map(|n| n.as_str().into()).collect()
        };
        let namespace_selector = Selector::from_api(term.namespace_selector.as_ref(), how)?;
        Ok(AffinityTerm { namespaces, namespace_selector, selector, topology_key: resolve(&term.topology_key, how) })
    }

    /// `AffinityTerm.Matches`: the pod's namespace is listed or its labels (`ns_labels`, empty
    /// when unknown) match the namespace selector, and the pod's labels match the selector.
    pub fn matches(&self, namespace: &str, pod_labels: &Labels, ns_labels: &Labels) -> bool {
        (self.namespaces.iter().any(|n| **n == *namespace) || self.namespace_selector.matches(ns_labels))
            && self.selector.matches(pod_labels)
    }

    /// `mergeAffinityTermNamespacesIfNotEmpty`: resolve a non-empty namespace selector into
    /// namespace names (for the incoming pod's terms), leaving `Nothing` behind.
    pub fn resolve_namespaces(&mut self, matching: impl FnOnce(&Selector) -> Vec<Arc<str>>) {
        if self.namespace_selector.is_empty() {
            return;
        }
        // A selector may pick hundreds of namespaces: the list is a set (its order means
        // nothing), merged by sorting once rather than searched per name; the cache hands the
        // selected names out sorted, so a term without `namespaces` needs no merge.
        let listed = !self.namespaces.is_empty();
        self.namespaces.extend(matching(&self.namespace_selector));
        if listed {
            self.namespaces.sort_unstable();
            self.namespaces.dedup();
        }
        self.namespace_selector = Selector::nothing();
    }

    /// The topology value of a node for this term, if the node has the key.
    pub fn topology_value<'a>(&self, node_labels: &'a Labels) -> Option<&'a str> {
        self.topology_key.and_then(|k| node_labels.get(k))
    }
}

/// The (anti-)affinity terms of one pod, parsed.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct PodTerms {
    pub required_affinity: Vec<AffinityTerm>,
    pub required_anti_affinity: Vec<AffinityTerm>,
    pub preferred_affinity: Vec<(i32, AffinityTerm)>,
    pub preferred_anti_affinity: Vec<(i32, AffinityTerm)>,
}

fn compile_list(
    terms: &[api::PodAffinityTerm],
    ns: &str,
    labels: &Labels,
    how: KeyResolution,
) -> Result<Vec<AffinityTerm>, String> {
    terms.iter().map(|t| AffinityTerm::compile(t, ns, labels, how)).collect()
}

fn compile_weighted(
    terms: &[api::WeightedPodAffinityTerm],
    ns: &str,
    labels: &Labels,
    how: KeyResolution,
) -> Result<Vec<(i32, AffinityTerm)>, String> {
    terms.iter().map(|t| AffinityTerm::compile(&t.pod_affinity_term, ns, labels, how).map(|a| (t.weight, a))).collect()
}

impl PodTerms {
    /// Parse every term list of a pod (`PodInfo.Update`). A list with an invalid term is left
    /// empty and its error reported, as upstream does.
    pub fn of_pod(
        affinity: Option<&api::Affinity>,
        namespace: &str,
        labels: &Labels,
        how: KeyResolution,
    ) -> (PodTerms, Vec<String>) {
        let mut t = PodTerms::default();
        let mut errors = Vec::new();
        let Some(a) = affinity else { return (t, errors) };
        let mut take = |r: Result<_, String>, what: &str| match r {
            Ok(v) => v,
            Err(e) => {
                errors.push(format!("{what}: {e}"));
                Vec::new()
            }
        };
        if let Some(pa) = &a.pod_affinity {
            t.required_affinity = take(compile_list(&pa.required, namespace, labels, how), "requiredAffinityTerms");
        }
        if let Some(pa) = &a.pod_anti_affinity {
            t.required_anti_affinity = take(compile_list(&pa.required, namespace, labels, how), "requiredAntiAffinityTerms");
        }
        let mut take_w = |r: Result<_, String>, what: &str| match r {
            Ok(v) => v,
            Err(e) => {
                errors.push(format!("{what}: {e}"));
                Vec::new()
            }
        };
        if let Some(pa) = &a.pod_affinity {
            t.preferred_affinity = take_w(compile_weighted(&pa.preferred, namespace, labels, how), "preferredAffinityTerms");
        }
        if let Some(pa) = &a.pod_anti_affinity {
            t.preferred_anti_affinity =
                take_w(compile_weighted(&pa.preferred, namespace, labels, how), "preferredAntiAffinityTerms");
        }
        (t, errors)
    }

    /// Terms of a pod already on a node (parse errors drop the affected lists).
    pub fn of_assigned(pod: &crate::core::cache::assigned::AssignedPod) -> Arc<PodTerms> {
        Arc::new(PodTerms::of_pod(pod.affinity.as_deref(), &pod.namespace, &pod.labels, KeyResolution::Intern).0)
    }

    /// The pod has no parsed term at all.
    pub fn is_empty(&self) -> bool {
        self.required_affinity.is_empty()
            && self.required_anti_affinity.is_empty()
            && self.preferred_affinity.is_empty()
            && self.preferred_anti_affinity.is_empty()
    }
}
