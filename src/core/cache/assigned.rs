//! The node-side view of a pod that occupies a node, shared by the node table and its indexes
//! (in its own file so the indexes need not import the table).

use crate::core::api;
use crate::core::model::{HostPort, Labels, PodInfo, PodKey, PodResources};
use std::sync::Arc;

/// A pod that occupies a node: bound (seen through the watch) or assumed (chosen by us, binding).
#[derive(Debug, Clone)]
pub struct AssignedPod {
    pub key: PodKey,
    pub uid: Box<str>,
    pub namespace: Box<str>,
    pub node_name: Box<str>,
    pub priority: i32,
    /// status.startTime (seconds since the epoch, 0 if unknown).
    pub start_unix: i64,
    pub resources: PodResources,
    pub host_ports: Vec<HostPort>,
    pub labels: Labels,
    pub affinity: Option<Arc<api::Affinity>>,
    pub terminating: bool,
    /// Being deleted by a scheduler preemption (victims in their graceful termination).
    pub preempted_by_scheduler: bool,
    /// `spec.workloadRef` (GangScheduling counts a group's assumed and bound pods).
    pub workload_ref: Option<Arc<api::WorkloadReference>>,
}

impl AssignedPod {
    /// Build the node-side view of a pod placed on `node_name`.
    pub fn from_pod(pod: &PodInfo, node_name: &str) -> AssignedPod {
        AssignedPod {
            key: pod.key.clone(),
            uid: pod.uid.clone(),
            namespace: pod.namespace.clone(),
            node_name: node_name.into(),
            priority: pod.priority,
            start_unix: pod.start_unix,
            resources: pod.requests_or_default(),
            host_ports: pod.host_ports.clone(),
            labels: pod.labels.clone(),
            affinity: pod.affinity.clone(),
            terminating: pod.terminating,
            preempted_by_scheduler: pod.preempted_by_scheduler,
            workload_ref: pod.workload_ref.clone(),
        }
    }

    /// [`AssignedPod::from_pod`] for a pod record that is not needed afterwards (a bound pod
    /// from the watch): its identity, labels and affinity move instead of being copied.
    pub fn from_owned(pod: PodInfo) -> AssignedPod {
        AssignedPod {
            key: pod.key,
            uid: pod.uid,
            namespace: pod.namespace,
            node_name: pod.node_name,
            priority: pod.priority,
            start_unix: pod.start_unix,
            resources: pod.resources.unwrap_or_default(),
            host_ports: pod.host_ports,
            labels: pod.labels,
            affinity: pod.affinity,
            terminating: pod.terminating,
            preempted_by_scheduler: pod.preempted_by_scheduler,
            workload_ref: pod.workload_ref,
        }
    }

    /// Whether the pod declares any (anti-)affinity term that InterPodAffinity must consider.
    pub fn has_pod_affinity_terms(&self) -> bool {
        self.affinity.as_ref().is_some_and(|a| a.pod_affinity.is_some() || a.pod_anti_affinity.is_some())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::core::gojson;
    use crate::core::model::NoPriorityClasses;

    /// A bound pod converted by moving (the start-up path) is the pod converted by copying.
    #[test]
    fn moving_conversion_equals_copying_one() {
        let raw = r#"{"metadata":{"name":"p","namespace":"ns","uid":"u","resourceVersion":"7",
            "labels":{"app":"web","tier":"x"},"creationTimestamp":"2026-01-02T03:04:05Z",
            "deletionTimestamp":"2026-01-02T03:05:05Z",
            "ownerReferences":[{"apiVersion":"apps/v1","kind":"ReplicaSet","name":"rs","uid":"r","controller":true}]},
            "spec":{"nodeName":"n1","priority":5,"nodeSelector":{"disk":"ssd"},"schedulingGates":[{"name":"g"}],
            "tolerations":[{"key":"k","operator":"Exists","effect":"NoSchedule"}],"containers":[{"name":"c","image":"nginx",
            "resources":{"requests":{"cpu":"250m","memory":"64Mi"}},"ports":[{"containerPort":80,"hostPort":8080}]}],
            "affinity":{"podAntiAffinity":{"requiredDuringSchedulingIgnoredDuringExecution":[
              {"labelSelector":{"matchLabels":{"app":"web"}},"topologyKey":"kubernetes.io/hostname"}]}},
            "volumes":[{"name":"v","persistentVolumeClaim":{"claimName":"c"}}],
            "topologySpreadConstraints":[{"maxSkew":1,"topologyKey":"zone","whenUnsatisfiable":"DoNotSchedule"}]},
            "status":{"phase":"Running","startTime":"2026-01-02T03:04:06Z","nominatedNodeName":"n2",
            "conditions":[{"type":"DisruptionTarget","status":"True","reason":"PreemptionByScheduler"},
              {"type":"PodScheduled","status":"True"}]}}"#;
        let pod: api::Pod = gojson::from_str(raw).expect("pod");
        let mut copied = PodInfo::from_api(&pod, &NoPriorityClasses);
        let moved = PodInfo::from_api_for_node(&mut pod.clone(), &NoPriorityClasses, Default::default());
        // What only scheduling the pod itself reads is left out of the node-side conversion.
        assert!(!copied.images.is_empty() && moved.images.is_empty());
        assert!(copied.owner.is_some() && moved.owner.is_none());
        assert!(!copied.tolerations.is_empty() && moved.tolerations.is_empty());
        assert!(!copied.node_selector.is_empty() && moved.node_selector.is_empty());
        assert!(!copied.scheduling_gates.is_empty() && moved.scheduling_gates.is_empty());
        assert!(copied.scheduled_condition.is_some() && moved.scheduled_condition.is_none());
        assert!(copied.creation_unix != 0 && moved.creation_unix == 0);
        copied.images.clear();
        copied.owner = None;
        copied.tolerations.clear();
        copied.node_selector.clear();
        copied.scheduling_gates.clear();
        copied.scheduled_condition = None;
        copied.creation_unix = 0;
        assert_eq!(format!("{copied:?}"), format!("{moved:?}"));
        let from_copy = AssignedPod::from_pod(&copied, &copied.node_name);
        assert_eq!(format!("{from_copy:?}"), format!("{:?}", AssignedPod::from_owned(moved)));
        assert!(from_copy.preempted_by_scheduler && from_copy.terminating && from_copy.has_pod_affinity_terms());
    }
}
