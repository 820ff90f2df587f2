//! The agreement check between the hand-written pod decoder (`core::api::pod_wire`) and the
//! general one (`gojson` over the serde derive), shared by the `pod_wire` tests and the
//! `pod_decoder` fuzz target: whenever the fast decoder returns a pod, the general decoder must
//! accept the same text and build the same pod (for the node-side decoding, the same less the
//! parts a bound pod's node-side record leaves out).

use edgesched::core::api::pod_wire::{decode_pod, decode_pod_for, Need};
use edgesched::core::api::{ContainerStatus, Pod, ResourceList};
use edgesched::core::gojson;

/// Check one text; returns whether the fast decoder took it.
pub fn agree(text: &str) -> bool {
    agree_node_side(text);
    let Some(fast) = decode_pod(text) else { return false };
    match gojson::from_str::<Pod>(text) {
        Ok(general) => assert_eq!(format!("{fast:?}"), format!("{general:?}"), "decoders differ on {text}"),
        Err(e) => panic!("fast decoder accepted what the general one refuses ({e}): {text}"),
    }
    true
}

/// The pod the scheduler's informers keep ([`Need::NodeSideWhenBound`]): the general decoder's
/// pod when it is not bound; when it is, the same without creation time, owners, node selector,
/// tolerations, (unless it is being deleted) conditions other than `PodResizePending`, pod-level
/// status resources (unless its spec has pod-level requests) and the container statuses that
/// cannot change its requests ([`drop_statuses_repeating_the_spec`]). Only a bound pod may be
/// taken when the general decoder refuses it (those parts are checked as JSON, not as their
/// types).
fn agree_node_side(text: &str) {
    let Some(lean) = decode_pod_for(text, Need::NodeSideWhenBound) else { return };
    match gojson::from_str::<Pod>(text) {
        Ok(mut expected) => {
            if !expected.spec.node_name.is_empty() {
                expected.metadata.creation_timestamp = None;
                expected.metadata.owner_references.clear();
                expected.spec.node_selector.clear();
                expected.spec.tolerations.clear();
                if expected.metadata.deletion_timestamp.is_none() {
                    expected.status.conditions.retain(|c| c.type_ == "PodResizePending");
                }
                if expected.spec.resources.as_ref().is_none_or(|r| r.requests.is_empty()) {
                    expected.status.resources = None;
                    expected.status.allocated_resources.clear();
                }
                drop_statuses_repeating_the_spec(&mut expected);
            }
            assert_eq!(format!("{lean:?}"), format!("{expected:?}"), "node-side decoding differs on {text}");
        }
        Err(e) => assert!(
            !lean.spec.node_name.is_empty(),
            "node-side decoder took an unbound pod the general one refuses ({e}): {text}"
        ),
    }
}

/// The container statuses a bound pod's node-side decoding leaves out, stated independently of
/// the decoder: a status is dropped when it reports no `resources`, or when every container
/// that reads statuses (regular ones, restartable init ones) with its name asks for exactly the
/// requests the status reports and (unless empty) the allocated resources it reports. Nothing
/// is dropped when a name is reported twice across both lists, when there are more than eight
/// statuses, or (conservatively) for a status whose lists have more than eight entries.
fn drop_statuses_repeating_the_spec(pod: &mut Pod) {
    let names: Vec<&str> =
        pod.status.container_statuses.iter().chain(&pod.status.init_container_statuses).map(|s| s.name.as_str()).collect();
    let unique = names.iter().enumerate().all(|(i, n)| !names[..i].contains(n));
    if names.len() > 8 || !unique {
        return;
    }
    let spec = pod.spec.clone();
    let repeats = |s: &ContainerStatus| {
        let Some(reported) = &s.resources else { return true };
        let readers =
            spec.containers.iter().chain(spec.init_containers.iter().filter(|c| c.restart_policy.as_deref() == Some("Always")));
        let fits = |l: &ResourceList| l.len() <= 8;
        readers.filter(|c| c.name == s.name).all(|c| {
            fits(&reported.requests)
                && fits(&s.allocated_resources)
                && reported.requests == c.resources.requests
                && (s.allocated_resources.is_empty() || s.allocated_resources == c.resources.requests)
        })
    };
    pod.status.container_statuses.retain(|s| !repeats(s));
    pod.status.init_container_statuses.retain(|s| !repeats(s));
}
