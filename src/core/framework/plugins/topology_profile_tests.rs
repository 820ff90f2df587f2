//! PodTopologySpread and InterPodAffinity inside a real [`Framework`] with upstream's default
//! order and weights: the FitError texts and placements a user sees.

use super::names;
use super::test_util::{
    cache_with, chosen, exists, framework_with, message, pod_term, schedule_with, sel_req, selector, NodeBuilder, PodBuilder,
};
use crate::core::framework::cycle::CycleParams;
use crate::core::framework::{Framework, ScheduleOutcome};
use crate::core::rng::Rng;

fn framework() -> Framework {
    framework_with(&[
        (names::PRIORITY_SORT, 0),
        (names::NODE_UNSCHEDULABLE, 0),
        (names::TAINT_TOLERATION, 3),
        (names::NODE_AFFINITY, 2),
        (names::NODE_RESOURCES_FIT, 1),
        (names::POD_TOPOLOGY_SPREAD, 2),
        (names::INTER_POD_AFFINITY, 2),
        (names::DEFAULT_PREEMPTION, 0),
        (names::NODE_RESOURCES_BALANCED_ALLOCATION, 1),
        (names::DEFAULT_BINDER, 0),
    ])
}

fn worker(name: &str, zone: &str) -> NodeBuilder {
    let mut labels = vec![("kubernetes.io/hostname", name)];
    if !zone.is_empty() {
        labels.push(("topology.kubernetes.io/zone", zone));
    }
    NodeBuilder::new(name).allocatable(&[("cpu", "4"), ("memory", "8Gi"), ("pods", "110")]).labels(&labels)
}

fn schedule(nodes: &[NodeBuilder], existing: &[PodBuilder], pod: PodBuilder) -> ScheduleOutcome {
    schedule_with(&framework(), nodes, existing, pod)
}

fn web(name: &str, node: &str) -> PodBuilder {
    PodBuilder::new(name).node_name(node).labels(&[("app", "web")])
}

#[test]
fn spread_constraint_fit_error() {
    let nodes = [worker("a1", "a"), worker("b1", "b"), worker("c1", "")];
    let existing = [web("w1", "a1"), web("w2", "a1")];
    let pod =
        PodBuilder::new("p").labels(&[("app", "web")]).spread(1, "topology.kubernetes.io/zone", "DoNotSchedule", exists("app"));
    // b1 fits (0 + 1 - 0 <= 1); a1 would make the skew 3; c1 has no zone label.
    assert_eq!(chosen(schedule(&nodes, &existing, pod.clone())), "b1");
    let existing = [web("w1", "a1"), web("w2", "a1"), web("w3", "b1")];
    let pod = pod.spread_with(|c| c.max_skew = 1);
    let with_b_full = [worker("a1", "a"), worker("b1", "b").unschedulable(), worker("c1", "")];
    assert_eq!(
        message(schedule(&with_b_full, &existing, pod)),
        "0/3 nodes are available: 1 node(s) didn't match pod topology spread constraints, \
         1 node(s) didn't match pod topology spread constraints (missing required label), \
         1 node(s) were unschedulable. preemption: 0/3 nodes are available: 1 No preemption victims found for incoming pod, \
         2 Preemption is not helpful for scheduling."
    );
}

#[test]
fn anti_affinity_fit_error_and_placement() {
    let nodes = [worker("a1", "a"), worker("b1", "b")];
    let anti = pod_term(Some(selector(vec![sel_req("app", "In", &["web"])])), "kubernetes.io/hostname");
    let pod = PodBuilder::new("p").labels(&[("app", "web")]).pod_anti_affinity_required(anti.clone());
    assert_eq!(chosen(schedule(&nodes, &[web("w1", "a1")], pod.clone())), "b1");
    let msg = message(schedule(&nodes, &[web("w1", "a1"), web("w2", "b1")], pod));
    assert!(msg.starts_with("0/2 nodes are available: 2 node(s) didn't match pod anti-affinity rules."), "{msg}");
    // Existing pods' anti-affinity keeps a matching pod away.
    let guard = PodBuilder::new("g").node_name("a1").labels(&[("role", "guard")]).pod_anti_affinity_required(anti);
    let incoming = PodBuilder::new("p").labels(&[("app", "web")]);
    assert_eq!(chosen(schedule(&nodes, &[guard], incoming)), "b1");
    // Required affinity to a missing group: the first pod of the group may go anywhere, other
    // pods cannot (UnschedulableAndUnresolvable).
    let aff = pod_term(Some(selector(vec![sel_req("app", "In", &["db"])])), "topology.kubernetes.io/zone");
    let lonely = PodBuilder::new("p").labels(&[("app", "web")]).pod_affinity_required(aff);
    assert_eq!(
        message(schedule(&nodes, &[], lonely)),
        "0/2 nodes are available: 2 node(s) didn't match pod affinity rules. \
         preemption: 0/2 nodes are available: 2 Preemption is not helpful for scheduling."
    );
}

#[test]
fn preferred_anti_affinity_spreads_replicas() {
    let nodes = [worker("a1", "a"), worker("a2", "a"), worker("b1", "b")];
    let away = pod_term(Some(selector(vec![sel_req("app", "In", &["web"])])), "topology.kubernetes.io/zone");
    let pod = PodBuilder::new("p").labels(&[("app", "web")]).pod_anti_affinity_preferred(100, away);
    assert_eq!(chosen(schedule(&nodes, &[web("w1", "a1")], pod)), "b1");
}

/// Rough throughput at 5,000 nodes (run with `cargo test --release -- --ignored throughput`);
/// prints, asserts nothing about time.
#[test]
#[ignore]
fn throughput_5000_nodes() {
    use std::time::Instant;
    let nodes: Vec<NodeBuilder> = (0..5000).map(|i| worker(&format!("n{i}"), &format!("z{}", i % 10))).collect();
    let existing: Vec<PodBuilder> = (0..50_000)
        .map(|i| {
            PodBuilder::new(&format!("e{i}")).node_name(&format!("n{}", i % 5000)).labels(&[("app", &format!("a{}", i % 50))])
        })
        .collect();
    let mut cache = cache_with(&nodes, &existing);
    let mut svc = crate::core::api::Service::default();
    svc.metadata.namespace = "default".into();
    svc.metadata.name = "svc".into();
    svc.spec.selector = Some([("app".to_string(), "web".to_string())].into_iter().collect());
    cache.cluster.upsert_service(&svc);
    let fw = framework();
    let (mut start, mut rng) = (0usize, Rng::seeded(7));
    type Make = fn(PodBuilder) -> PodBuilder;
    let kinds: [(&str, Make); 3] = [
        ("plain", |p| p.labels(&[("app", "plain")])),
        ("service-selected (system default spreading)", |p| p.labels(&[("app", "web")])),
        ("required anti-affinity", |p| {
            p.labels(&[("app", "anti")]).pod_anti_affinity_required(pod_term(
                Some(selector(vec![sel_req("app", "In", &["anti"])])),
                "kubernetes.io/hostname",
            ))
        }),
    ];
    for (k, (label, make)) in kinds.iter().enumerate() {
        let n = 500;
        let t0 = Instant::now();
        for i in 0..n {
            let p = make(PodBuilder::new(&format!("p{k}-{i}")).container(&[("cpu", "10m")])).info();
            let mut params = CycleParams {
                next_start_node_index: &mut start,
                percentage_of_nodes_to_score: 0,
                rng: &mut rng,
                explain: crate::core::framework::cycle::Explain::Off,
                extenders: None,
                waiting: None,
                clock: None,
                now: None,
            };
            if let ScheduleOutcome::Scheduled { result, .. } = fw.schedule(&cache, &p, &mut params) {
                cache.assume_pod(&p, &result.node);
                cache.prepare();
            }
        }
        let dt = t0.elapsed().as_secs_f64();
        println!("{label}: {:.0} pods/s", n as f64 / dt);
    }
}
