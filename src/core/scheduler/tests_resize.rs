//! In-place resize through the scheduler's inputs: a bound pod's status updates re-count its
//! node as v1.35 counts it (`types.go` `PodInfo.CalculateResource` with status resources), and
//! a bound pod whose counted requests went down requeues the pods NodeResourcesFit rejected
//! (`extractPodScaleDown` → `isSchedulableAfterPodScaleDown`), while other updates leave them
//! waiting.

use super::tests::{harness, node, pod, Harness};
use super::*;
use crate::core::api::{self, ContainerStatus, PodCondition, QuantityStr, StatusResources};
use crate::core::framework::plugins::test_util::PodBuilder;
use crate::core::texts::conditions;
use crate::core::watched::Change;
use std::time::Duration;

fn list(entries: &[(&str, &str)]) -> api::ResourceList {
    entries.iter().map(|(k, v)| (k.to_string(), QuantityStr(v.to_string()))).collect()
}

/// A running pod `name` on `node` whose one container asks for `spec` cpu and reports
/// `actual` cpu applied and `allocated` cpu admitted, with the resize conditions given.
fn running(name: &str, node: &str, spec: &str, actual: &str, allocated: &str, resize: &[(&str, &str)]) -> PodBuilder {
    let mut p = pod(name, spec).node_name(node);
    p.pod.status.phase = "Running".into();
    p.pod.status.container_statuses = vec![ContainerStatus {
        name: "c0".into(),
        allocated_resources: list(&[("cpu", allocated)]),
        resources: Some(StatusResources { requests: list(&[("cpu", actual)]) }),
    }];
    p.pod.status.conditions = resize
        .iter()
        .map(|(type_, reason)| PodCondition {
            type_: type_.to_string(),
            status: "True".into(),
            reason: (!reason.is_empty()).then(|| reason.to_string()),
            ..Default::default()
        })
        .collect();
    p
}

fn requested_cpu(h: &Harness, node: &str) -> i64 {
    h.s.cache.node_by_name(node).map_or(-1, |n| n.requested.milli_cpu)
}

/// A resize down is counted at the old size until the kubelet reports it actuated; then the
/// node's total drops, and the pod that did not fit is retried at once (not after the
/// five-minute flush) and bound.
#[test]
fn a_resize_down_holds_its_room_until_actuated_then_frees_it() {
    let mut h = harness(&["edgesched"]);
    // Resized from 3 cpu to 1: admitted (allocated 1) but the runtime still gives it 3.
    let in_progress = [(conditions::POD_RESIZE_IN_PROGRESS, "")];
    h.start(&[node("n1", "4")], &[running("shrinking", "n1", "1", "3", "1", &in_progress)]);
    assert_eq!(requested_cpu(&h, "n1"), 3000, "max(spec 1, actual 3, allocated 1)");
    h.feed(Change::Added(pod("newcomer", "2").pod));
    assert!(matches!(h.cycles()[..], [Attempt::Unschedulable { .. }]), "4 - 3 < 2");
    h.effects();
    // An unrelated update of the running pod (a label) does not help it.
    let labelled = running("shrinking", "n1", "1", "3", "1", &in_progress).labels(&[("app", "x")]);
    h.feed(Change::Modified(labelled.pod));
    h.advance(Duration::from_secs(11));
    assert!(h.cycles().is_empty(), "nothing was freed");
    // The kubelet actuates the resize: the node now counts 1 cpu for it.
    h.feed(Change::Modified(running("shrinking", "n1", "1", "1", "1", &[]).labels(&[("app", "x")]).pod));
    assert_eq!(requested_cpu(&h, "n1"), 1000);
    h.s.cache.verify_totals().expect("incremental totals match a recount");
    h.advance(Duration::from_secs(11));
    h.cycles();
    assert_eq!(h.effects(), ["bind default/newcomer -> n1"]);
}

/// A resize up is counted at the new size at once (the kubelet may actuate it any time), so a
/// pod that would overcommit the node is kept off it; if the kubelet finds the resize
/// infeasible, the pod counts what it actually has and the room is there.
#[test]
fn a_resize_up_counts_at_once_unless_it_is_infeasible() {
    let mut h = harness(&["edgesched"]);
    let growing = |resize: &[(&str, &str)]| running("growing", "n1", "3", "1", "1", resize);
    h.start(&[node("n1", "4")], &[growing(&[(conditions::POD_RESIZE_PENDING, conditions::REASON_DEFERRED)])]);
    assert_eq!(requested_cpu(&h, "n1"), 3000, "a deferred resize still counts its spec");
    h.feed(Change::Added(pod("newcomer", "2").pod));
    assert!(matches!(h.cycles()[..], [Attempt::Unschedulable { .. }]));
    h.effects();
    h.feed(Change::Modified(growing(&[(conditions::POD_RESIZE_PENDING, conditions::REASON_INFEASIBLE)]).pod));
    assert_eq!(requested_cpu(&h, "n1"), 1000, "an infeasible resize counts the actual size");
    h.s.cache.verify_totals().expect("incremental totals match a recount");
    h.advance(Duration::from_secs(11));
    h.cycles();
    assert_eq!(h.effects(), ["bind default/newcomer -> n1"]);
}

/// A scale-down of a resource the rejected pod does not request leaves it waiting (the hint
/// says QueueSkip), though the node's total follows it.
#[test]
fn a_shrink_of_another_resource_does_not_requeue() {
    let mut h = harness(&["edgesched"]);
    let mut big_mem = running("mem", "n1", "1", "1", "1", &[]);
    big_mem.pod.spec.containers[0].resources.requests.insert("memory".into(), QuantityStr("4Gi".into()));
    h.start(&[node("n1", "2")], std::slice::from_ref(&big_mem));
    h.feed(Change::Added(pod("newcomer", "2").pod));
    assert!(matches!(h.cycles()[..], [Attempt::Unschedulable { .. }]));
    h.effects();
    let mut smaller = big_mem;
    smaller.pod.spec.containers[0].resources.requests.insert("memory".into(), QuantityStr("1Gi".into()));
    h.feed(Change::Modified(smaller.pod));
    assert_eq!(h.s.cache.node_by_name("n1").map(|n| n.requested.memory), Some(1 << 30));
    h.advance(Duration::from_secs(11));
    assert!(h.cycles().is_empty(), "memory went down; the newcomer needs cpu");
}
