//! PodDisruptionBudgets as preemption needs them: which pods a budget selects and how many
//! disruptions it still allows (`status.disruptionsAllowed`, `status.disruptedPods`).

use crate::core::api;
use crate::core::model::Labels;
use std::collections::BTreeMap;

/// One PodDisruptionBudget.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Budget {
    pub namespace: String,
    pub name: String,
    pub selector: Option<api::LabelSelector>,
    pub disruptions_allowed: i32,
    /// Pods already being disrupted (processed by the API server's eviction logic).
    pub disrupted_pods: Vec<String>,
}

/// All known budgets.
#[derive(Debug, Default)]
pub struct Budgets {
    by_key: BTreeMap<(String, String), Budget>,
}

impl Budget {
    /// Whether the budget's selector selects a pod with `labels` (a nil or empty selector selects
    /// nothing, as upstream's `filterPodsWithPDBViolation`).
    pub fn selects(&self, namespace: &str, labels: &Labels) -> bool {
        if self.namespace != namespace {
            return false;
        }
        let Some(sel) = &self.selector else { return false };
        if sel.match_labels.is_empty() && sel.match_expressions.is_empty() {
            return false;
        }
        selector_matches(sel, labels)
    }
}

/// `metav1.LabelSelector` semantics over our label representation. Invalid operators match
/// nothing (upstream: a selector that fails to convert matches nothing).
pub fn selector_matches(sel: &api::LabelSelector, labels: &Labels) -> bool {
    for (k, v) in &sel.match_labels {
        if labels.get_str(k) != Some(v.as_str()) {
            return false;
        }
    }
    for e in &sel.match_expressions {
        let value = labels.get_str(&e.key);
        let ok = match e.operator.as_str() {
            "In" => value.is_some_and(|v| e.values.iter().any(|x| x == v)),
            "NotIn" => value.is_none_or(|v| !e.values.iter().any(|x| x == v)),
            "Exists" => value.is_some(),
            "DoesNotExist" => value.is_none(),
            _ => false,
        };
        if !ok {
            return false;
        }
    }
    true
}

impl Budgets {
    /// Add or replace a budget from its API object.
    pub fn upsert(&mut self, pdb: &api::PodDisruptionBudget) {
        let b = Budget {
            namespace: pdb.metadata.namespace.clone(),
            name: pdb.metadata.name.clone(),
            selector: pdb.spec.selector.clone(),
            disruptions_allowed: pdb.status.disruptions_allowed,
            disrupted_pods: pdb.status.disrupted_pods.keys().cloned().collect(),
        };
        self.by_key.insert((b.namespace.clone(), b.name.clone()), b);
    }

    pub fn remove(&mut self, namespace: &str, name: &str) {
        self.by_key.remove(&(namespace.to_string(), name.to_string()));
    }

    /// Keep only the named budgets (relist reconciliation).
    pub fn retain(&mut self, keep: &std::collections::HashSet<(String, String)>) {
        self.by_key.retain(|k, _| keep.contains(k));
    }

    /// Every budget.
    pub fn iter(&self) -> impl Iterator<Item = &Budget> {
        self.by_key.values()
    }
}
