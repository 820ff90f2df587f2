//! GangScheduling's cases, transcribed from upstream's
//! `pkg/scheduler/framework/plugins/gangscheduling/gangscheduling_test.go` (the table of
//! `Test_isSchedulableAfterPodAdded`, `Test_isSchedulableAfterWorkloadAdded` and
//! `TestGangSchedulingFlow`, as of the v1.35 line that reads Workloads; the stored copy read was
//! already moved to v1.36's PodGroup API, whose cases are the same with a Workload's pod group in
//! place of a PodGroup object).

use super::*;
use crate::core::api::{self, workload_v1alpha1 as wl};
use crate::core::cache::Cache;
use crate::core::framework::waiting::{WaitingAction, WaitingPods};
use crate::core::model::{NoPriorityClasses, NodeSpecInfo};
use std::sync::Arc;
use std::time::{Duration, Instant};

fn pod(ns: &str, name: &str, group: Option<(&str, &str)>) -> PodInfo {
    let mut p = api::Pod::default();
    p.metadata.namespace = ns.into();
    p.metadata.name = name.into();
    p.metadata.uid = name.into();
    p.spec.workload_ref =
        group.map(|(w, g)| api::WorkloadReference { name: w.into(), pod_group: g.into(), ..Default::default() });
    PodInfo::from_api(&p, &NoPriorityClasses)
}

fn workload(ns: &str, name: &str, groups: &[(&str, Option<i32>)]) -> api::Workload {
    let mut w = api::Workload::default();
    w.metadata.namespace = ns.into();
    w.metadata.name = name.into();
    w.spec.pod_groups = groups
        .iter()
        .map(|(g, min)| wl::PodGroup {
            name: (*g).into(),
            policy: match min {
                Some(m) => wl::PodGroupPolicy { gang: Some(wl::GangSchedulingPolicy { min_count: *m }), ..Default::default() },
                None => wl::PodGroupPolicy { basic: Some(wl::BasicSchedulingPolicy {}), ..Default::default() },
            },
        })
        .collect();
    w
}

/// The test's cluster: one node, the Workloads, the pending pods and the pods assumed on it.
fn cache_with(workloads: &[api::Workload], pending: &[&PodInfo], assumed: &[&PodInfo]) -> Cache {
    let mut cache = Cache::new();
    cache.track_pending_pods();
    for w in workloads {
        cache.workloads.upsert(w.clone());
    }
    let mut n = api::Node::default();
    n.metadata.name = "some-node".into();
    cache.upsert_node(NodeSpecInfo::from_api(&n));
    for p in pending {
        cache.set_pending_pod(&Arc::new((*p).clone()));
    }
    for p in assumed {
        let mut p = (*p).clone();
        p.node_name = "some-node".into();
        cache.upsert_assigned_pod(&p);
    }
    cache
}

fn hint_for_pod(target: &PodInfo, added: &PodInfo) -> QueueingHint {
    GangScheduling.queueing_hint(
        &ClusterEvent { mask: EventMask::UNSCHEDULED_POD_ADD, old: None, new: Some(EventObject::Pod(added)) },
        target,
    )
}

#[test]
fn is_schedulable_after_pod_added() {
    // Test_isSchedulableAfterPodAdded.
    let p = pod("default", "p", Some(("w", "pg")));
    // "add a newPod which matches the pod's workload"
    assert_eq!(hint_for_pod(&p, &pod("default", "n", Some(("w", "pg")))), QueueingHint::Queue);
    // "add a newPod which doesn't match the pod's namespace"
    assert_eq!(hint_for_pod(&p, &pod("foo", "n", Some(("w", "pg")))), QueueingHint::QueueSkip);
    // "add a newPod which doesn't match the pod's workload name"
    assert_eq!(
        hint_for_pod(&pod("default", "p", Some(("w1", "pg"))), &pod("default", "n", Some(("w2", "pg")))),
        QueueingHint::QueueSkip
    );
    // "add a newPod which doesn't match the pod's pod group"
    assert_eq!(
        hint_for_pod(&pod("default", "p", Some(("w", "pg1"))), &pod("default", "n", Some(("w", "pg2")))),
        QueueingHint::QueueSkip
    );
    // A pod without a reference helps nobody (matchingWorkloadReference).
    assert_eq!(hint_for_pod(&p, &pod("default", "n", None)), QueueingHint::QueueSkip);
    // A bound sibling counts as much as a pending one (Pod/Add covers assigned pods).
    let bound = crate::core::cache::AssignedPod::from_pod(&pod("default", "b", Some(("w", "pg"))), "some-node");
    let ev = ClusterEvent { mask: EventMask::ASSIGNED_POD_ADD, old: None, new: Some(EventObject::AssignedPod(&bound)) };
    assert_eq!(GangScheduling.queueing_hint(&ev, &p), QueueingHint::Queue);
}

#[test]
fn is_schedulable_after_workload_added() {
    // Test_isSchedulableAfterWorkloadAdded.
    let hint = |target: &PodInfo, w: &api::Workload| {
        GangScheduling.queueing_hint(
            &ClusterEvent { mask: EventMask::WORKLOAD_ADD, old: None, new: Some(EventObject::Workload(w)) },
            target,
        )
    };
    let p = pod("default", "p", Some(("w", "pg")));
    // "add a workload which matches the pod's workload"
    assert_eq!(hint(&p, &workload("default", "w", &[("pg", Some(1))])), QueueingHint::Queue);
    // "add a workload which doesn't match the pod's workload name"
    assert_eq!(
        hint(&pod("default", "p", Some(("w1", "pg"))), &workload("default", "w2", &[("pg", Some(1))])),
        QueueingHint::QueueSkip
    );
    // "add a workload which doesn't match the pod's workload namespace"
    assert_eq!(hint(&pod("ns1", "p", Some(("w", "pg"))), &workload("ns2", "w", &[("pg", Some(1))])), QueueingHint::QueueSkip);
}

/// TestGangSchedulingFlow's fixtures: Workload w1 with gang groups pg1 (minCount 3) and pg2
/// (minCount 4) and basic group pg3.
struct Flow {
    p: Vec<PodInfo>,
    basic: PodInfo,
    non_gang: PodInfo,
    workload: api::Workload,
}

fn flow() -> Flow {
    let p = vec![
        pod("ns1", "p1", Some(("w1", "pg1"))),
        pod("ns1", "p2", Some(("w1", "pg1"))),
        pod("ns1", "p3", Some(("w1", "pg1"))),
        pod("ns1", "p4", Some(("w1", "pg2"))),
        pod("ns1", "p5", Some(("w1", "pg2"))),
    ];
    Flow {
        p,
        basic: pod("ns1", "basic-pod", Some(("w1", "pg3"))),
        non_gang: pod("ns1", "non-gang", None),
        workload: workload("ns1", "w1", &[("pg1", Some(3)), ("pg2", Some(4)), ("pg3", None)]),
    }
}

fn permit(cache: &Cache, pod: &PodInfo, waiting: Option<&WaitingPods>) -> (PermitOutcome, Vec<WaitingAction>) {
    let node = cache.node_by_name("some-node").expect("node");
    let mut h = WaitingHandle::new(waiting);
    let out = GangScheduling.permit(cache, pod, node, &None, &mut h);
    (out, h.into_actions())
}

#[test]
fn non_gang_and_basic_pods_succeed_immediately() {
    // "non-gang pod succeeds immediately", "basic policy pod succeeds immediately".
    let f = flow();
    let cache = cache_with(std::slice::from_ref(&f.workload), &[&f.non_gang, &f.basic], &[]);
    for p in [&f.non_gang, &f.basic] {
        assert!(GangScheduling.pre_enqueue(&cache, p).is_ok());
        assert!(matches!(permit(&cache, p, None).0, PermitOutcome::Allow));
    }
}

#[test]
fn gang_pod_fails_pre_enqueue_when_workload_is_not_yet_created() {
    // "gang pod fails PreEnqueue when workload is not yet created".
    let f = flow();
    let pending: Vec<&PodInfo> = f.p.iter().collect();
    let cache = cache_with(&[], &pending, &[]);
    let r = GangScheduling.pre_enqueue(&cache, &f.p[0]).expect_err("held");
    assert_eq!(r.code, crate::core::framework::Code::UnschedulableAndUnresolvable);
    assert_eq!(r.message(), "waiting for pods's workload \"w1\" to appear in scheduling queue");
}

#[test]
fn gang_pod_fails_pre_enqueue_when_its_pod_group_is_missing() {
    // podGroupPolicy finds no group of that name.
    let f = flow();
    let stray = pod("ns1", "stray", Some(("w1", "pg9")));
    let cache = cache_with(std::slice::from_ref(&f.workload), &[&stray], &[]);
    assert_eq!(
        GangScheduling.pre_enqueue(&cache, &stray).map_err(|r| r.message()),
        Err("pod group \"pg9\" doesn't exist for a workload \"w1\"".into())
    );
}

#[test]
fn gang_pod_fails_pre_enqueue_when_quorum_is_not_met() {
    // "gang pod fails PreEnqueue when quorum is not met": only p1 and p2 of pg1 exist.
    let f = flow();
    let cache = cache_with(std::slice::from_ref(&f.workload), &[&f.p[0], &f.p[1], &f.p[3], &f.p[4]], &[]);
    let r = GangScheduling.pre_enqueue(&cache, &f.p[0]).expect_err("held");
    assert_eq!(r.code, crate::core::framework::Code::UnschedulableAndUnresolvable);
    assert_eq!(r.message(), "waiting for minCount pods from a gang to appear in scheduling queue");
}

#[test]
fn gang_pod_passes_pre_enqueue_but_waits_at_permit() {
    // "gang pod passes PreEnqueue, but waits at Permit": p2 (and pg2's p4, p5) already wait;
    // with p1 assumed the count is 2 of minCount 3.
    let f = flow();
    let pending: Vec<&PodInfo> = f.p.iter().collect();
    let cache = cache_with(std::slice::from_ref(&f.workload), &pending, &[&f.p[1], &f.p[3], &f.p[4]]);
    assert!(GangScheduling.pre_enqueue(&cache, &f.p[0]).is_ok());
    let (out, actions) = permit(&cache, &f.p[0], None);
    assert!(matches!(out, PermitOutcome::Wait(d) if d == SCHEDULING_TIMEOUT), "{out:?}");
    assert!(actions.is_empty());
}

#[test]
fn final_gang_pod_arrives_at_permit_and_allows_all_waiting_pods_of_its_gang() {
    // "final gang pod arrives at Permit and allows all waiting pods from a gang": p2, p3 (pg1)
    // and p4, p5 (pg2) wait; p1 completes pg1 and allows p2 and p3 only.
    let f = flow();
    let pending: Vec<&PodInfo> = f.p.iter().collect();
    let cache = cache_with(std::slice::from_ref(&f.workload), &pending, &[&f.p[1], &f.p[2], &f.p[3], &f.p[4]]);
    let mut waiting = WaitingPods::default();
    let now = Instant::now();
    for p in &f.p[1..] {
        waiting.add(Arc::new(p.clone()), "some-node".into(), &[(names_gang(), SCHEDULING_TIMEOUT)], now);
    }
    let (out, actions) = permit(&cache, &f.p[0], Some(&waiting));
    assert!(matches!(out, PermitOutcome::Allow), "{out:?}");
    let allowed: Vec<String> = actions
        .into_iter()
        .map(|a| match a {
            WaitingAction::Allow { pod, .. } => pod.to_string(),
            WaitingAction::Reject { pod, .. } => format!("reject {pod}"),
        })
        .collect();
    assert_eq!(allowed, ["ns1/p2", "ns1/p3"]);
}

fn names_gang() -> &'static str {
    crate::core::framework::plugins::names::GANG_SCHEDULING
}

#[test]
fn a_workload_gone_before_permit_is_an_error() {
    // Permit: "failed to get workload %s/%s: %w" around the lister's NotFound.
    let f = flow();
    let cache = cache_with(&[], &[&f.p[0]], &[]);
    match permit(&cache, &f.p[0], None).0 {
        PermitOutcome::Reject(r) => {
            assert_eq!(r.code, crate::core::framework::Code::Error);
            assert_eq!(r.message(), "failed to get workload ns1/w1: workload.scheduling.k8s.io \"w1\" not found");
        }
        other => panic!("{other:?}"),
    }
}

#[test]
fn replicas_of_a_group_are_separate_gangs() {
    // newPodGroupKey: the replica key is part of the group's identity.
    let w = workload("ns1", "w1", &[("pg1", Some(2))]);
    let with_replica = |name: &str, key: &str| {
        let mut p = pod("ns1", name, Some(("w1", "pg1")));
        p.workload_ref = Some(Arc::new(api::WorkloadReference {
            name: "w1".into(),
            pod_group: "pg1".into(),
            pod_group_replica_key: key.into(),
        }));
        p
    };
    let (a0, b0, a1) = (with_replica("a0", "0"), with_replica("b0", "0"), with_replica("a1", "1"));
    let cache = cache_with(std::slice::from_ref(&w), &[&a0, &a1], &[]);
    assert!(GangScheduling.pre_enqueue(&cache, &a0).is_err(), "replica 1's pod does not count for replica 0");
    let cache = cache_with(std::slice::from_ref(&w), &[&a0, &b0, &a1], &[]);
    assert!(GangScheduling.pre_enqueue(&cache, &a0).is_ok());
    assert!(GangScheduling.pre_enqueue(&cache, &a1).is_err());
}

#[test]
fn a_gang_shares_one_deadline_set_by_its_first_waiting_pod() {
    // podgroupinfo.go SchedulingTimeout: the remaining time to the group's deadline, which the
    // first pod to wait set; a new deadline once the old one passed.
    let f = flow();
    let pending: Vec<&PodInfo> = f.p.iter().collect();
    let cache = cache_with(std::slice::from_ref(&f.workload), &pending, &[&f.p[1]]);
    let node = cache.node_by_name("some-node").expect("node");
    let t0 = Instant::now();
    let mut waiting = WaitingPods::default();
    waiting.add(Arc::new(f.p[1].clone()), "some-node".into(), &[(names_gang(), SCHEDULING_TIMEOUT)], t0);
    // A pod of another group waiting does not count.
    waiting.add(Arc::new(f.p[3].clone()), "some-node".into(), &[(names_gang(), Duration::from_secs(10))], t0);
    let wait_at = |now: Instant| {
        let mut h = WaitingHandle::new(Some(&waiting)).at(Some(now));
        match GangScheduling.permit(&cache, &f.p[0], node, &None, &mut h) {
            PermitOutcome::Wait(d) => d,
            other => panic!("{other:?}"),
        }
    };
    assert_eq!(wait_at(t0 + Duration::from_secs(60)), SCHEDULING_TIMEOUT - Duration::from_secs(60));
    assert_eq!(wait_at(t0 + SCHEDULING_TIMEOUT + Duration::from_secs(1)), SCHEDULING_TIMEOUT, "a new deadline");
    // Without the cycle's time: the whole timeout.
    let mut h = WaitingHandle::new(Some(&waiting));
    assert!(
        matches!(GangScheduling.permit(&cache, &f.p[0], node, &None, &mut h), PermitOutcome::Wait(d) if d == SCHEDULING_TIMEOUT)
    );
}
