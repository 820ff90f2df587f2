//! Cluster objects the topology plugins read besides nodes and pods: namespace labels (for
//! `namespaceSelector` in pod affinity terms) and the selectors of Services, ReplicationControllers,
//! ReplicaSets and StatefulSets (for PodTopologySpread's system default constraints, upstream
//! `helper.DefaultSelector` in pkg/scheduler/framework/plugins/helper/spread.go).
//!
//! Only selectors and labels are kept; the scheduler thread owns this table inside the cache.

use crate::core::api;
use crate::core::labels::KeyResolution;
use crate::core::labels::Selector;
use crate::core::model::{Labels, PodInfo};
use std::collections::{BTreeMap, HashMap};
use std::sync::Arc;

/// Objects of one kind by namespace, then name.
type ByNamespace<T> = HashMap<Box<str>, BTreeMap<Box<str>, T>>;

/// Namespaces and controller selectors.
#[derive(Debug, Default)]
pub struct ClusterObjects {
    /// Shared names: a namespace selector's resolution hands them out without copying, in name
    /// order (the order an affinity term keeps them in).
    namespaces: BTreeMap<Arc<str>, Labels>,
    /// Service selector; `None` selects nothing.
    services: ByNamespace<Option<Selector>>,
    replication_controllers: ByNamespace<Option<Selector>>,
    /// ReplicaSet / StatefulSet selectors; `None` when the selector does not parse (ignored).
    /// One value type for the four tables: each type was its own copy of the table code.
    replica_sets: ByNamespace<Option<Selector>>,
    stateful_sets: ByNamespace<Option<Selector>>,
}

fn put<T>(m: &mut ByNamespace<T>, ns: &str, name: &str, v: T) {
    m.entry(ns.into()).or_default().insert(name.into(), v);
}

fn del<T>(m: &mut ByNamespace<T>, ns: &str, name: &str) {
    if let Some(inner) = m.get_mut(ns) {
        inner.remove(name);
        if inner.is_empty() {
            m.remove(ns);
        }
    }
}

fn keys<T>(m: &ByNamespace<T>) -> Vec<String> {
    m.iter().flat_map(|(ns, inner)| inner.keys().map(move |n| format!("{ns}/{n}"))).collect()
}

/// The kinds kept here, for generic watch handling.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ClusterKind {
    Namespace,
    Service,
    ReplicationController,
    ReplicaSet,
    StatefulSet,
}

impl ClusterKind {
    /// The API kind (also the key used for "listed before scheduling" bookkeeping).
    pub fn name(self) -> &'static str {
        match self {
            ClusterKind::Namespace => "Namespace",
            ClusterKind::Service => "Service",
            ClusterKind::ReplicationController => "ReplicationController",
            ClusterKind::ReplicaSet => "ReplicaSet",
            ClusterKind::StatefulSet => "StatefulSet",
        }
    }
}

impl ClusterObjects {
    /// Labels of a namespace (`None` when the namespace is unknown).
    pub fn namespace_labels(&self, ns: &str) -> Option<&Labels> {
        self.namespaces.get(ns)
    }

    /// Names of the namespaces whose labels match `sel` (`nsLister.List(selector)`), sorted.
    pub fn namespaces_matching(&self, sel: &Selector) -> Vec<Arc<str>> {
        self.namespaces.iter().filter(|(_, l)| sel.matches(l)).map(|(n, _)| Arc::clone(n)).collect()
    }

    /// Add or replace a namespace's labels.
    pub fn upsert_namespace(&mut self, ns: &api::Namespace) {
        self.namespaces.insert(ns.metadata.name.as_str().into(), Labels::from_map(&ns.metadata.labels));
    }

    /// Add or replace a Service's selector.
    pub fn upsert_service(&mut self, s: &api::Service) {
        let sel = s.spec.selector.as_ref().map(|m| Selector::from_map(m, KeyResolution::Intern));
        put(&mut self.services, &s.metadata.namespace, &s.metadata.name, sel);
    }

    /// Add or replace a ReplicationController's selector.
    pub fn upsert_replication_controller(&mut self, rc: &api::ReplicationController) {
        let sel = rc.spec.selector.as_ref().map(|m| Selector::from_map(m, KeyResolution::Intern));
        put(&mut self.replication_controllers, &rc.metadata.namespace, &rc.metadata.name, sel);
    }

    /// Add or replace a ReplicaSet's selector.
    pub fn upsert_replica_set(&mut self, rs: &api::ReplicaSet) {
        let sel = Selector::from_api(rs.spec.selector.as_ref(), KeyResolution::Intern).ok();
        put(&mut self.replica_sets, &rs.metadata.namespace, &rs.metadata.name, sel);
    }

    /// Add or replace a StatefulSet's selector.
    pub fn upsert_stateful_set(&mut self, ss: &api::StatefulSet) {
        let sel = Selector::from_api(ss.spec.selector.as_ref(), KeyResolution::Intern).ok();
        put(&mut self.stateful_sets, &ss.metadata.namespace, &ss.metadata.name, sel);
    }

    /// Remove an object by key (`name` for namespaces, `namespace/name` otherwise).
    pub fn remove(&mut self, kind: ClusterKind, key: &str) {
        if kind == ClusterKind::Namespace {
            self.namespaces.remove(key);
            return;
        }
        let Some((ns, name)) = key.split_once('/') else { return };
        match kind {
            ClusterKind::Namespace => {}
            ClusterKind::Service => del(&mut self.services, ns, name),
            ClusterKind::ReplicationController => del(&mut self.replication_controllers, ns, name),
            ClusterKind::ReplicaSet => del(&mut self.replica_sets, ns, name),
            ClusterKind::StatefulSet => del(&mut self.stateful_sets, ns, name),
        }
    }

    /// Keys of every object of a kind (for relist reconciliation).
    pub fn keys(&self, kind: ClusterKind) -> Vec<String> {
        match kind {
            ClusterKind::Namespace => self.namespaces.keys().map(|k| k.to_string()).collect(),
            ClusterKind::Service => keys(&self.services),
            ClusterKind::ReplicationController => keys(&self.replication_controllers),
            ClusterKind::ReplicaSet => keys(&self.replica_sets),
            ClusterKind::StatefulSet => keys(&self.stateful_sets),
        }
    }

    /// `helper.DefaultSelector`: the merged selectors of the Services selecting the pod, plus
    /// those of its controller when that is a ReplicationController, ReplicaSet or StatefulSet
    /// (found by the owner reference's name in the pod's namespace). Empty when nothing applies.
    pub fn default_selector(&self, pod: &PodInfo) -> Selector {
        let mut sel = Selector::everything();
        // Services, RCs, RSs and SSs that match the pod cannot have conflicting labels, so
        // merging is safe (upstream's comment); equal requirements are simply repeated.
        if let Some(services) = self.services.get(&*pod.namespace) {
            for s in services.values().flatten() {
                if s.matches(&pod.labels) {
                    sel.extend(s);
                }
            }
        }
        let Some(owner) = &pod.owner else { return sel };
        let ns = &*pod.namespace;
        let name = owner.name.as_str();
        match (owner.api_version.as_str(), owner.kind.as_str()) {
            ("v1", "ReplicationController") => {
                if let Some(Some(rc)) = self.replication_controllers.get(ns).and_then(|m| m.get(name)) {
                    sel.extend(rc);
                }
            }
            ("apps/v1", "ReplicaSet") => {
                if let Some(Some(rs)) = self.replica_sets.get(ns).and_then(|m| m.get(name)) {
                    sel.extend(rs);
                }
            }
            ("apps/v1", "StatefulSet") => {
                if let Some(Some(ss)) = self.stateful_sets.get(ns).and_then(|m| m.get(name)) {
                    sel.extend(ss);
                }
            }
            _ => {}
        }
        sel
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::core::framework::plugins::test_util::PodBuilder;

    #[test]
    fn default_selector_merges_services_and_controller() {
        let mut c = ClusterObjects::default();
        let mut svc = api::Service::default();
        svc.metadata.namespace = "default".into();
        svc.metadata.name = "web".into();
        svc.spec.selector = Some([("app".to_string(), "web".to_string())].into_iter().collect());
        c.upsert_service(&svc);
        let mut other = svc.clone();
        other.metadata.name = "nil".into();
        other.spec.selector = None;
        c.upsert_service(&other);
        let mut rs = api::ReplicaSet::default();
        rs.metadata.namespace = "default".into();
        rs.metadata.name = "web-1".into();
        rs.spec.selector = Some(api::LabelSelector {
            match_labels: [("hash".to_string(), "1".to_string())].into_iter().collect(),
            ..Default::default()
        });
        c.upsert_replica_set(&rs);
        let mut p = PodBuilder::new("p").labels(&[("app", "web"), ("hash", "1")]);
        let info = p.info();
        let sel = c.default_selector(&info);
        assert!(!sel.is_empty());
        assert!(sel.matches(&info.labels));
        p.pod.metadata.owner_references.push(api::OwnerReference {
            api_version: "apps/v1".into(),
            kind: "ReplicaSet".into(),
            name: "web-1".into(),
            uid: "u".into(),
            controller: Some(true),
        });
        let info = p.info();
        let sel = c.default_selector(&info);
        let only_app = PodBuilder::new("q").labels(&[("app", "web")]).info();
        assert!(sel.matches(&info.labels));
        assert!(!sel.matches(&only_app.labels), "the ReplicaSet's requirement is merged");
        c.remove(ClusterKind::Service, "default/web");
        c.remove(ClusterKind::ReplicaSet, "default/web-1");
        assert!(c.default_selector(&info).is_empty());
    }
}
