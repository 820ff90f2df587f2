//! Strict checks of cluster-file objects, with the care the API server takes.
//!
//! The live scheduler reads objects the API server has already validated; a cluster file was
//! written by hand or by a script, so a typo such as `cpu: 12abc` or `creationTimestamp:
//! "yesterday"` would otherwise be read as zero or as "no time" and change every decision without
//! a word. Each problem names the object and the field in the API server's wording
//! (`field: Invalid value: "x": why`, upstream `k8s.io/apimachinery/pkg/util/validation/field`
//! `errors.go`). Label syntax is upstream's `IsQualifiedName` / `IsValidLabelValue`
//! (`k8s.io/apimachinery/pkg/util/validation/validation.go`), quantities `ParseQuantity`
//! (`k8s.io/apimachinery/pkg/api/resource/quantity.go`), timestamps RFC 3339 as
//! `metav1.Time.UnmarshalJSON` reads them.

use crate::core::api::{self, ObjectMeta, ResourceList};
use crate::core::labels::syntax::{label_value_errors, qualified_name_errors};
use crate::core::quantity::Quantity;
use crate::core::timefmt::parse_rfc3339;
use crate::core::watched::{Change, KindChange};

/// Every problem of one object (empty when it is valid), each `field: Invalid value: …`.
pub fn problems(change: &KindChange) -> Vec<String> {
    let mut out = Vec::new();
    if change.object().is_some_and(|o| o.name().is_empty()) {
        out.push("metadata.name: Required value: name is required".into());
    }
    match change {
        KindChange::Node(Change::Added(n)) => {
            metadata(&n.metadata, &mut out);
            node(n, &mut out);
        }
        KindChange::Pod(Change::Added(p)) => {
            metadata(&p.metadata, &mut out);
            pod(p, &mut out);
        }
        KindChange::Namespace(Change::Added(n)) => metadata(&n.metadata, &mut out),
        _ => {}
    }
    out
}

fn invalid(out: &mut Vec<String>, field: &str, value: &str, why: &str) {
    out.push(format!("{field}: Invalid value: {value:?}: {why}"));
}

fn metadata(meta: &ObjectMeta, out: &mut Vec<String>) {
    for (k, v) in &meta.labels {
        for e in qualified_name_errors(k) {
            invalid(out, "metadata.labels", k, &e);
        }
        for e in label_value_errors(v) {
            invalid(out, &format!("metadata.labels[{k:?}]"), v, &e);
        }
    }
    timestamp(out, "metadata.creationTimestamp", meta.creation_timestamp.as_deref());
    timestamp(out, "metadata.deletionTimestamp", meta.deletion_timestamp.as_deref());
}

fn timestamp(out: &mut Vec<String>, field: &str, value: Option<&str>) {
    if let Some(v) = value {
        if parse_rfc3339(v).is_none() {
            invalid(out, field, v, "not an RFC 3339 time (e.g. 2025-01-02T15:04:05Z)");
        }
    }
}

fn quantities(out: &mut Vec<String>, field: &str, list: &ResourceList) {
    for (name, q) in list {
        if let Err(e) = Quantity::parse(&q.0) {
            invalid(out, &format!("{field}.{name}"), &q.0, &e.to_string());
        }
        for e in qualified_name_errors(name) {
            invalid(out, field, name, &e);
        }
    }
}

fn node(n: &api::Node, out: &mut Vec<String>) {
    quantities(out, "status.capacity", &n.status.capacity);
    quantities(out, "status.allocatable", &n.status.allocatable);
}

fn pod(p: &api::Pod, out: &mut Vec<String>) {
    for (field, containers) in [("spec.initContainers", &p.spec.init_containers), ("spec.containers", &p.spec.containers)] {
        for (i, c) in containers.iter().enumerate() {
            quantities(out, &format!("{field}[{i}].resources.requests"), &c.resources.requests);
            quantities(out, &format!("{field}[{i}].resources.limits"), &c.resources.limits);
        }
    }
    quantities(out, "spec.overhead", &p.spec.overhead);
    if let Some(r) = &p.spec.resources {
        quantities(out, "spec.resources.requests", &r.requests);
        quantities(out, "spec.resources.limits", &r.limits);
    }
    timestamp(out, "status.startTime", p.status.start_time.as_deref());
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::core::api::QuantityStr;

    fn node_with(cpu: &str) -> KindChange {
        let mut n = api::Node::default();
        n.metadata.name = "n1".into();
        n.status.allocatable.insert("cpu".into(), QuantityStr(cpu.into()));
        KindChange::Node(Change::Added(Box::new(n)))
    }

    #[test]
    fn bad_quantities_name_the_field() {
        assert!(problems(&node_with("12")).is_empty());
        assert!(problems(&node_with("500m")).is_empty());
        let p = problems(&node_with("12abc"));
        assert_eq!(p.len(), 1, "{p:?}");
        assert!(p[0].starts_with("status.allocatable.cpu: Invalid value: \"12abc\": quantity"), "{p:?}");
    }

    #[test]
    fn timestamps_labels_and_names() {
        let mut pod = api::Pod::default();
        pod.metadata.creation_timestamp = Some("yesterday".into());
        pod.metadata.labels.insert("app".into(), "web server".into());
        pod.metadata.labels.insert("-bad".into(), "x".into());
        let mut c = api::Container::default();
        c.resources.requests.insert("memory".into(), QuantityStr("1Gi".into()));
        c.resources.limits.insert("cpu".into(), QuantityStr("1.5.1".into()));
        pod.spec.containers.push(c);
        let p = problems(&KindChange::Pod(Change::Added(Box::new(pod))));
        let has = |s: &str| p.iter().any(|x| x.starts_with(s));
        assert!(has("metadata.name: Required value"), "{p:?}");
        assert!(has("metadata.creationTimestamp: Invalid value: \"yesterday\""), "{p:?}");
        assert!(has("metadata.labels[\"app\"]: Invalid value: \"web server\""), "{p:?}");
        assert!(has("metadata.labels: Invalid value: \"-bad\""), "{p:?}");
        assert!(has("spec.containers[0].resources.limits.cpu: Invalid value: \"1.5.1\""), "{p:?}");
        assert_eq!(p.len(), 5, "{p:?}");
    }

    #[test]
    fn upstream_timestamps_are_accepted() {
        let mut pod = api::Pod::default();
        pod.metadata.name = "p".into();
        for t in ["2025-09-11T20:39:39Z", "2025-09-11T20:39:39.123456Z", "2025-09-11T20:39:39+02:00"] {
            pod.metadata.creation_timestamp = Some(t.into());
            assert!(problems(&KindChange::Pod(Change::Added(Box::new(pod.clone())))).is_empty(), "{t}");
        }
    }
}
