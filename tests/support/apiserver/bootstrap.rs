//! The RBAC objects a fresh cluster starts with (the `bootstrap/*.yaml` files, transcribed from
//! upstream's bootstrap policy with citations in their headers), seeded into the store at start
//! so that every client is authorized exactly as on a real cluster.

use super::apply;
use super::store::Store;

/// Which generation of the default roles the cluster has.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub enum DefaultRoles {
    /// Today's defaults: `system::leader-locking-kube-scheduler` lets `system:kube-scheduler`
    /// (and SA kube-system/kube-scheduler) create, get, list, watch and update every lease in
    /// kube-system.
    #[default]
    Current,
    /// A cluster without that Role and RoleBinding (created before they existed, or whose
    /// defaults were not reconciled): `system:kube-scheduler` may create leases and only
    /// get, update, list and watch the one named `kube-scheduler` (a list or watch must pin it
    /// with `fieldSelector=metadata.name=kube-scheduler`).
    LegacyLeaseNameOnly,
}

const CLUSTER_ROLES: &str = include_str!("bootstrap/cluster-roles.yaml");
const KUBE_SCHEDULER_ROLE: &str = include_str!("bootstrap/kube-scheduler.yaml");
const CLUSTER_ROLE_BINDINGS: &str = include_str!("bootstrap/cluster-role-bindings.yaml");
const NAMESPACE_ROLES: &str = include_str!("bootstrap/namespace-roles.yaml");
const LEADER_LOCKING: &str = include_str!("bootstrap/leader-locking-kube-scheduler.yaml");

/// The seed for `variant`, in load order.
pub fn documents(variant: DefaultRoles) -> Vec<&'static str> {
    let mut docs = vec![CLUSTER_ROLES, KUBE_SCHEDULER_ROLE, CLUSTER_ROLE_BINDINGS, NAMESPACE_ROLES];
    if variant == DefaultRoles::Current {
        docs.push(LEADER_LOCKING);
    }
    docs
}

/// Create the default roles and bindings of `variant` in `store`.
pub fn seed(store: &mut Store, variant: DefaultRoles) {
    for yaml in documents(variant) {
        apply::apply_yaml(store, yaml);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::Value;

    fn names(variant: DefaultRoles) -> Vec<(String, String)> {
        documents(variant)
            .into_iter()
            .flat_map(apply::parse_documents)
            .map(|d: Value| (d["kind"].as_str().unwrap().to_string(), d["metadata"]["name"].as_str().unwrap().to_string()))
            .collect()
    }

    #[test]
    fn every_seeded_object_carries_the_bootstrap_label_and_annotation() {
        for doc in documents(DefaultRoles::Current).into_iter().flat_map(apply::parse_documents) {
            assert_eq!(doc["metadata"]["labels"]["kubernetes.io/bootstrapping"], "rbac-defaults", "{doc}");
            assert_eq!(doc["metadata"]["annotations"]["rbac.authorization.kubernetes.io/autoupdate"], "true", "{doc}");
        }
    }

    #[test]
    fn the_legacy_variant_lacks_only_the_leader_locking_role_and_binding() {
        let current = names(DefaultRoles::Current);
        let legacy = names(DefaultRoles::LegacyLeaseNameOnly);
        let missing: Vec<&(String, String)> = current.iter().filter(|n| !legacy.contains(n)).collect();
        let lock = "system::leader-locking-kube-scheduler".to_string();
        assert_eq!(missing, [&("Role".to_string(), lock.clone()), &("RoleBinding".to_string(), lock)]);
    }

    #[test]
    fn every_binding_refers_to_a_seeded_role() {
        let docs: Vec<Value> = documents(DefaultRoles::Current).into_iter().flat_map(apply::parse_documents).collect();
        for b in docs.iter().filter(|d| d["kind"].as_str().unwrap().ends_with("Binding")) {
            let found = docs.iter().any(|r| {
                r["kind"] == b["roleRef"]["kind"]
                    && r["metadata"]["name"] == b["roleRef"]["name"]
                    && (r["kind"] == "ClusterRole" || r["metadata"]["namespace"] == b["metadata"]["namespace"])
            });
            assert!(found, "{b}");
        }
    }
}
