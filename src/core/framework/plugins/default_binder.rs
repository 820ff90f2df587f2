//! DefaultBinder (pkg/scheduler/framework/plugins/defaultbinder/default_binder.go): binds by POSTing
//! a `Binding` to the pod's `binding` subresource. The POST itself runs on the binder threads
//! (`crate::shell::daemon::api_workers`); this plugin is what a profile enables to ask for it.

use crate::core::api;
use crate::core::framework::{Plugin, Points};

pub struct DefaultBinder;

impl Plugin for DefaultBinder {
    fn name(&self) -> &'static str {
        super::names::DEFAULT_BINDER
    }

    fn points(&self) -> Points {
        Points { bind: true, ..Default::default() }
    }
}

/// The body DefaultBinder sends: pod name/namespace/uid and a Node target.
pub fn binding_for(namespace: &str, name: &str, uid: &str, node: &str) -> api::Binding {
    api::Binding {
        kind: "Binding".into(),
        api_version: "v1".into(),
        metadata: api::ObjectMeta { name: name.into(), namespace: namespace.into(), uid: uid.into(), ..Default::default() },
        target: api::ObjectReference { kind: "Node".into(), name: node.into(), ..Default::default() },
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn binding_body_has_the_scheduler_shape() {
        // fixtures: binding/binding-request-scheduler-shape.RECONSTRUCTED.json
        let b = binding_for("default", "p", "u-1", "n1");
        let v = serde_json::to_value(&b).expect("serialises");
        assert_eq!(
            v,
            serde_json::json!({"kind":"Binding","apiVersion":"v1",
                "metadata":{"name":"p","namespace":"default","uid":"u-1"},
                "target":{"kind":"Node","name":"n1"}})
        );
    }
}
