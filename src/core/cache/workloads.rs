//! The Workload objects (`scheduling.k8s.io/v1alpha1`) the GangScheduling plugin reads, as
//! upstream's plugin reads them from the Workload informer's lister: by namespace and name.
//! Kept only when a profile enables GangScheduling (its row of the kind table is read by it).

use crate::core::api::Workload;
use std::collections::BTreeMap;
use std::sync::Arc;

/// Workloads by `namespace/name`.
#[derive(Debug, Default, Clone)]
pub struct Workloads {
    by_key: BTreeMap<String, Arc<Workload>>,
}

fn key(namespace: &str, name: &str) -> String {
    format!("{namespace}/{name}")
}

impl Workloads {
    /// Add or replace; returns whether the Workload is new (an add event, not an update).
    pub fn upsert(&mut self, w: Workload) -> bool {
        self.by_key.insert(key(&w.metadata.namespace, &w.metadata.name), Arc::new(w)).is_none()
    }

    /// Forget the Workload with this `namespace/name` key.
    pub fn remove(&mut self, key: &str) -> Option<Arc<Workload>> {
        self.by_key.remove(key)
    }

    /// The Workload `namespace/name` (`WorkloadLister.Workloads(ns).Get(name)`).
    pub fn get(&self, namespace: &str, name: &str) -> Option<&Arc<Workload>> {
        self.by_key.get(&key(namespace, name))
    }

    /// Keys of every Workload kept (a relist reconciles against them).
    pub fn keys(&self) -> Vec<String> {
        self.by_key.keys().cloned().collect()
    }

    /// Forget every Workload (RBAC forbids reading them).
    pub fn clear(&mut self) {
        self.by_key.clear();
    }
}
