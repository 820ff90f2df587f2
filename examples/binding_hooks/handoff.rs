//! Binding-cycle plugins: `Handoff` shows PreBind, Bind and PostBind, which run on the
//! scheduler's binder threads with an [`ApiHandle`] (the scheduler's own API client, its RBAC).
//!
//! - PreBind: GETs the pod as the API server has it now and fails the binding while the pod is
//!   annotated `example.com/hold: "true"` (the pod is unreserved and retried after a backoff).
//! - Bind: binds pods labelled `example.com/binder: handoff` itself, with a binding that
//!   carries the `example.com/bound-by` annotation (the API server copies a binding's
//!   annotations onto the pod); other pods are skipped, so the DefaultBinder binds them.
//! - PostBind: logs the binding (a klog line, as the scheduler's own).
//!
//! Enable it in the binding-cycle lists, Bind before the DefaultBinder (which binds what it
//! skips). Bind plugins run in configured order and the default configuration lists
//! DefaultBinder first, so the list is replaced, as with upstream:
//!
//! ```yaml
//! plugins:
//!   preBind: {enabled: [{name: Handoff}]}
//!   bind: {enabled: [{name: Handoff}, {name: DefaultBinder}], disabled: [{name: '*'}]}
//!   postBind: {enabled: [{name: Handoff}]}
//! ```

use edgesched::plugin::{ApiHandle, BindStatus, Line, Plugin, PodInfo, Points};

/// The plugin's name in configurations.
pub const NAME: &str = "Handoff";
/// Pods carrying this label with value [`OWNER`] are bound by the plugin.
pub const BINDER_LABEL: &str = "example.com/binder";
pub const OWNER: &str = "handoff";
/// A pod annotated `"true"` here is held at PreBind.
pub const HOLD_ANNOTATION: &str = "example.com/hold";
/// Set on the pods the plugin bound.
pub const BOUND_BY_ANNOTATION: &str = "example.com/bound-by";

pub struct Handoff;

fn pod_path(pod: &PodInfo) -> String {
    format!("/api/v1/namespaces/{}/pods/{}", pod.namespace, pod.name)
}

/// The Binding the plugin POSTs: the DefaultBinder's, plus the annotation.
pub fn binding(pod: &PodInfo, node: &str) -> serde_json::Value {
    serde_json::json!({
        "apiVersion": "v1",
        "kind": "Binding",
        "metadata": {"name": &*pod.name, "namespace": &*pod.namespace, "uid": &*pod.uid,
                     "annotations": {BOUND_BY_ANNOTATION: NAME}},
        "target": {"apiVersion": "v1", "kind": "Node", "name": node}
    })
}

/// Whether the live pod object asks to be held.
pub fn held(live: &serde_json::Value) -> bool {
    live.pointer("/metadata/annotations").and_then(|a| a.get(HOLD_ANNOTATION)).and_then(|v| v.as_str()) == Some("true")
}

impl Plugin for Handoff {
    fn name(&self) -> &'static str {
        NAME
    }

    fn points(&self) -> Points {
        Points { pre_bind: true, bind: true, post_bind: true, ..Default::default() }
    }

    fn pre_bind(&self, api: &dyn ApiHandle, pod: &PodInfo, _node: &str) -> Result<(), String> {
        let live = api.get(&pod_path(pod)).map_err(|e| format!("reading the pod: {e}"))?;
        if held(&live) {
            return Err(format!("pod is on hold ({HOLD_ANNOTATION})"));
        }
        Ok(())
    }

    fn bind(&self, api: &dyn ApiHandle, pod: &PodInfo, node: &str) -> BindStatus {
        if pod.labels.get_str(BINDER_LABEL) != Some(OWNER) {
            return BindStatus::Skip;
        }
        match api.create(&format!("{}/binding", pod_path(pod)), &binding(pod, node)) {
            Ok(_) => BindStatus::Bound,
            Err(e) => BindStatus::Failed(e.to_string()),
        }
    }

    fn post_bind(&self, _api: &dyn ApiHandle, pod: &PodInfo, node: &str) {
        Line::new("Handoff: pod bound").o("pod", &pod.key).o("node", node).info();
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use edgesched::plugin::ApiFailure;
    use std::cell::RefCell;
    use std::time::Duration;

    /// Records the requests and answers GETs with `live`.
    struct FakeApi {
        live: serde_json::Value,
        requests: RefCell<Vec<String>>,
    }

    impl ApiHandle for FakeApi {
        fn get(&self, path: &str) -> Result<serde_json::Value, ApiFailure> {
            self.requests.borrow_mut().push(format!("GET {path}"));
            Ok(self.live.clone())
        }
        fn create(&self, path: &str, body: &serde_json::Value) -> Result<serde_json::Value, ApiFailure> {
            self.requests.borrow_mut().push(format!("POST {path} {}", body["target"]["name"]));
            Ok(serde_json::json!({}))
        }
        fn merge_patch(&self, path: &str, _: &serde_json::Value) -> Result<serde_json::Value, ApiFailure> {
            Err(ApiFailure { code: Some(403), message: format!("{path}: forbidden") })
        }
        fn wait(&self, _: Duration) -> bool {
            true
        }
        fn default_bind(&self, _: &PodInfo, _: &str) -> Result<(), ApiFailure> {
            Ok(())
        }
    }

    fn pod(labels: &[(&str, &str)]) -> PodInfo {
        let mut p = edgesched::core::api::Pod::default();
        p.metadata.namespace = "ns".into();
        p.metadata.name = "p".into();
        for (k, v) in labels {
            p.metadata.labels.insert((*k).into(), (*v).into());
        }
        PodInfo::from_api(&p, &edgesched::core::model::NoPriorityClasses)
    }

    #[test]
    fn pre_bind_holds_pods_annotated_on_the_live_object() {
        let api = FakeApi {
            live: serde_json::json!({"metadata": {"annotations": {HOLD_ANNOTATION: "true"}}}),
            requests: RefCell::default(),
        };
        assert_eq!(Handoff.pre_bind(&api, &pod(&[]), "n1"), Err("pod is on hold (example.com/hold)".into()));
        assert_eq!(*api.requests.borrow(), vec!["GET /api/v1/namespaces/ns/pods/p"]);
        let free = FakeApi { live: serde_json::json!({"metadata": {}}), requests: RefCell::default() };
        assert_eq!(Handoff.pre_bind(&free, &pod(&[]), "n1"), Ok(()));
    }

    #[test]
    fn bind_owns_labelled_pods_and_skips_the_others() {
        let api = FakeApi { live: serde_json::Value::Null, requests: RefCell::default() };
        assert_eq!(Handoff.bind(&api, &pod(&[]), "n1"), BindStatus::Skip);
        assert_eq!(Handoff.bind(&api, &pod(&[(BINDER_LABEL, OWNER)]), "n1"), BindStatus::Bound);
        assert_eq!(*api.requests.borrow(), vec![r#"POST /api/v1/namespaces/ns/pods/p/binding "n1""#]);
        assert_eq!(binding(&pod(&[]), "n1")["metadata"]["annotations"][BOUND_BY_ANNOTATION], NAME);
    }
}
