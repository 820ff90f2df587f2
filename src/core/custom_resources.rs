//! Custom resources that out-of-tree plugins read (scheduler-plugins' Coscheduling reads
//! `PodGroup`s, `scheduling.x-k8s.io/v1alpha1`): how a plugin declares one, the generic object the
//! scheduler mirrors (kept as JSON: edgesched has no types for other projects' APIs), and the
//! store the scheduling cycle reads them from.
//!
//! A declared resource becomes a run-time row of the watched-kind table
//! ([`crate::core::watched::install_custom`]): it is listed and watched by the same reflector as
//! the built-in kinds, counted in readiness, and its list/watch permissions are checked like
//! theirs. It is [`crate::core::watched::Need::Required`]: the plugin cannot work without it.

use crate::core::api::{self, Object};
use crate::core::seeded_hash::SeededHashMap;
use std::sync::Arc;

/// A custom resource a plugin reads, as its CRD names it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CustomResource {
    /// API group, e.g. `scheduling.x-k8s.io`.
    pub group: String,
    /// Version listed and watched, e.g. `v1alpha1`.
    pub version: String,
    /// Plural resource name, as in URLs and RBAC rules, e.g. `podgroups`.
    pub resource: String,
    /// `kind` of the objects, e.g. `PodGroup`.
    pub kind: String,
    /// Namespaced (watched across all namespaces) or cluster-scoped.
    pub namespaced: bool,
}

impl CustomResource {
    /// A namespaced resource.
    pub fn namespaced(group: &str, version: &str, resource: &str, kind: &str) -> CustomResource {
        CustomResource {
            group: group.into(),
            version: version.into(),
            resource: resource.into(),
            kind: kind.into(),
            namespaced: true,
        }
    }

    /// `podgroups.scheduling.x-k8s.io`: how stores, messages and [`Cache::custom_object`] name it.
    ///
    /// [`Cache::custom_object`]: crate::core::cache::Cache::custom_object
    pub fn qualified(&self) -> String {
        format!("{}.{}", self.resource, self.group)
    }
}

/// One object of a custom resource: its metadata (what stores and relists key by) and the whole
/// object as the API server sent it. [`Object`] and [`CustomObject::resource`] come with the kind
/// table (`crate::core::watched`).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct CustomObject {
    pub metadata: api::ObjectMeta,
    /// The object, `apiVersion`, `kind`, `metadata`, `spec`, `status` and all.
    pub object: serde_json::Value,
    /// Index of its row among the declared custom resources (set when it is handed to the core).
    pub(crate) custom: u8,
}

impl CustomObject {
    /// Wrap a decoded object, reading the metadata stores need.
    pub fn from_value(object: serde_json::Value) -> CustomObject {
        let meta = &object["metadata"];
        let s = |k: &str| meta[k].as_str().unwrap_or_default().to_string();
        let metadata = api::ObjectMeta {
            name: s("name"),
            namespace: s("namespace"),
            uid: s("uid"),
            resource_version: s("resourceVersion"),
            creation_timestamp: meta["creationTimestamp"].as_str().map(str::to_string),
            ..Default::default()
        };
        CustomObject { metadata, object, custom: 0 }
    }
}

impl<'de> serde::Deserialize<'de> for CustomObject {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<CustomObject, D::Error> {
        let v = serde_json::Value::deserialize(d)?;
        if !v.is_object() {
            return Err(serde::de::Error::custom("expected a JSON object"));
        }
        Ok(CustomObject::from_value(v))
    }
}

impl serde::Serialize for CustomObject {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        self.object.serialize(s)
    }
}

/// The mirrored objects of every declared custom resource: qualified resource name →
/// `namespace/name` (or `name`) → object. Object keys are chosen by whoever creates the object:
/// seeded hashing.
#[derive(Debug, Default, Clone)]
pub struct CustomStore {
    resources: SeededHashMap<String, SeededHashMap<String, Arc<CustomObject>>>,
}

impl CustomStore {
    /// Add or replace an object; returns the one it replaced.
    pub fn upsert(&mut self, resource: &str, obj: Arc<CustomObject>) -> Option<Arc<CustomObject>> {
        let key = obj.key();
        self.resources.entry(resource.to_string()).or_default().insert(key, obj)
    }

    /// Forget an object; returns it.
    pub fn remove(&mut self, resource: &str, key: &str) -> Option<Arc<CustomObject>> {
        self.resources.get_mut(resource)?.remove(key)
    }

    /// Forget every object of a resource (RBAC took it away).
    pub fn clear(&mut self, resource: &str) {
        self.resources.remove(resource);
    }

    /// The object `namespace/name` (`namespace` empty for cluster-scoped resources).
    pub fn get(&self, resource: &str, namespace: &str, name: &str) -> Option<&Arc<CustomObject>> {
        let objects = self.resources.get(resource)?;
        if namespace.is_empty() {
            objects.get(name)
        } else {
            objects.get(&format!("{namespace}/{name}"))
        }
    }

    /// Keys of the objects kept for `resource` (what a relist reconciles against).
    pub fn keys(&self, resource: &str) -> Vec<String> {
        self.resources.get(resource).map(|m| m.keys().cloned().collect()).unwrap_or_default()
    }

    /// The objects of `resource`, in no particular order.
    pub fn objects<'a>(&'a self, resource: &str) -> impl Iterator<Item = &'a Arc<CustomObject>> + 'a {
        self.resources.get(resource).into_iter().flat_map(|m| m.values())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn pg(ns: &str, name: &str, min: u64) -> CustomObject {
        serde_json::from_value(json!({
            "apiVersion": "scheduling.x-k8s.io/v1alpha1",
            "kind": "PodGroup",
            "metadata": {"name": name, "namespace": ns, "resourceVersion": "7", "uid": "u1"},
            "spec": {"minMember": min}
        }))
        .expect("decodes")
    }

    #[test]
    fn objects_keep_their_json_and_metadata() {
        let o = pg("ns", "g", 3);
        assert_eq!((o.key(), o.resource_version(), o.metadata.uid.as_str()), ("ns/g".to_string(), "7", "u1"));
        assert_eq!(o.object["spec"]["minMember"], 3);
        assert_eq!(serde_json::to_value(&o).expect("encodes"), o.object);
        assert!(serde_json::from_value::<CustomObject>(json!([1])).is_err());
    }

    #[test]
    fn store_upserts_replaces_and_removes() {
        let r = "podgroups.scheduling.x-k8s.io";
        let mut s = CustomStore::default();
        assert!(s.upsert(r, Arc::new(pg("ns", "g", 3))).is_none());
        assert_eq!(s.upsert(r, Arc::new(pg("ns", "g", 4))).map(|o| o.object["spec"]["minMember"].clone()), Some(json!(3)));
        assert_eq!(s.get(r, "ns", "g").map(|o| o.object["spec"]["minMember"].clone()), Some(json!(4)));
        assert!(s.get(r, "other", "g").is_none());
        assert!(s.get("widgets.example.com", "ns", "g").is_none());
        s.upsert(r, Arc::new(pg("ns", "h", 1)));
        let mut keys = s.keys(r);
        keys.sort();
        assert_eq!(keys, ["ns/g", "ns/h"]);
        assert_eq!(s.objects(r).count(), 2);
        assert!(s.remove(r, "ns/g").is_some());
        assert!(s.remove(r, "ns/g").is_none());
        s.clear(r);
        assert!(s.keys(r).is_empty());
        assert_eq!(CustomResource::namespaced("scheduling.x-k8s.io", "v1alpha1", "podgroups", "PodGroup").qualified(), r);
    }
}
