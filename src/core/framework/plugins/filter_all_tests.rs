//! The Filter walk with the whole-list filters ([`super::FilterAll`]) against the walk node by
//! node, on random clusters (cordoned, tainted, small and zoned nodes, used host ports, placed
//! pods with and without terms) and random pods (requests, host ports, `nodeName`, node
//! selectors, tolerations, spread constraints, pod (anti-)affinity): the same nodes evaluated in
//! the same order, the same feasible nodes, the same per-node first rejector and status, the
//! same error (a missing PreFilter state makes some filters fail), the same unschedulable
//! plugins and the same evaluation counts; and whole default-profile cycles with the whole-list
//! filters taken away decide the same, start the next cycle at the same node and explain the same.

use super::names;
use super::test_util::{explained_params, NodeBuilder, PodBuilder};
use super::topology_differential_tests::{namespace, random_node, random_pod, service};
use crate::core::cache::Cache;
use crate::core::framework::cycle::filter_walk::{Walk, WalkInput};
use crate::core::framework::instrument::{CycleRecorder, Rec, Ticker};
use crate::core::framework::{Diagnosis, Framework, PluginState, PreFilterOutcome};
use crate::core::metrics::{names as metric, Metrics};
use crate::core::model::PodInfo;
use crate::core::rng::Rng;
use std::time::Instant;

/// The default profile, as a configuration naming none builds it.
fn default_framework() -> Framework {
    let text = "apiVersion: kubescheduler.config.k8s.io/v1\nkind: KubeSchedulerConfiguration\n";
    let config = crate::core::config::load_str(text, "default.yaml").unwrap().config;
    Framework::new(&config.profiles[0], &super::PluginContext::default()).unwrap()
}

/// The same profile walking node by node: no plugin has a whole-list filter.
fn node_by_node_framework() -> Framework {
    let mut fw = default_framework();
    fw.filter_all.clear();
    fw
}

/// A clock that never moves (the walks are compared on counts, not durations).
struct Still(Instant);
impl Ticker for Still {
    fn now(&self) -> Instant {
        self.0
    }
}

fn random_cluster_node(rng: &mut Rng, i: u64) -> NodeBuilder {
    let mut b = random_node(rng, i, i % 5 != 0);
    let (cpu, pods) = (["500m", "1", "4"][rng.below(3) as usize], ["3", "110"][usize::from(rng.below(4) == 0)]);
    b = b.allocatable(&[("cpu", cpu), ("memory", "4Gi"), ("pods", pods)]);
    if rng.below(9) == 0 {
        b = b.unschedulable();
    }
    if rng.below(7) == 0 {
        b = b.taint("flaky", "", ["NoExecute", "PreferNoSchedule"][rng.below(2) as usize]);
    }
    if rng.below(3) == 0 {
        b = b.image(&["app:1"], 300 * 1024 * 1024);
    }
    b
}

fn random_incoming(rng: &mut Rng, num_nodes: u64) -> PodBuilder {
    let with_terms = rng.below(2) == 0;
    let mut p = random_pod(rng, "incoming", with_terms).image("app:1");
    p = p.container(&[("cpu", ["100m", "700m", "2"][rng.below(3) as usize]), ("memory", "100Mi")]);
    if rng.below(5) == 0 {
        p = p.host_port("", "TCP", 8080);
    }
    if rng.below(12) == 0 {
        p = p.node_name(&format!("n{}", rng.below(num_nodes)));
    }
    if rng.below(6) == 0 {
        p = p.toleration("flaky", "Exists", "", "");
    }
    if rng.below(10) == 0 {
        p = p.toleration("node.kubernetes.io/unschedulable", "Exists", "", "NoSchedule");
    }
    p
}

fn random_cache(rng: &mut Rng, seed: u64) -> (Cache, u64) {
    let mut cache = Cache::new();
    cache.cluster.upsert_namespace(&namespace("default", "blue"));
    cache.cluster.upsert_namespace(&namespace("other", "red"));
    if seed % 2 == 0 {
        cache.cluster.upsert_service(&service());
    }
    // Now and then more nodes than a cycle needs to find (100 at least).
    let num_nodes = if rng.below(4) == 0 { 100 + rng.below(80) } else { 1 + rng.below(40) };
    for i in 0..num_nodes {
        cache.upsert_node(random_cluster_node(rng, i).spec());
    }
    for j in 0..rng.below(3 * num_nodes) {
        let node = format!("n{}", rng.below(num_nodes));
        let with_terms = rng.below(4) == 0;
        let mut p = random_pod(rng, &format!("e{j}"), with_terms).container(&[("cpu", "300m")]);
        if rng.below(4) == 0 {
            p = p.host_port("", "TCP", 8080);
        }
        cache.upsert_assigned_pod(&p.node_name(&node).info());
    }
    cache.prepare();
    (cache, num_nodes)
}

/// The PreFilter states and skips of `pod` (`None` when PreFilter ends the cycle).
fn pre_filter(fw: &Framework, cache: &Cache, pod: &PodInfo) -> Option<(Vec<PluginState>, Vec<bool>)> {
    let n = fw.plugins.len();
    let (mut states, mut skip): (Vec<PluginState>, Vec<bool>) = ((0..n).map(|_| None).collect(), vec![false; n]);
    for &i in &fw.pre_filter {
        match fw.plugins[i].pre_filter(cache, pod, &mut states[i]) {
            PreFilterOutcome::Skip => skip[i] = true,
            PreFilterOutcome::Reject(_) => return None,
            PreFilterOutcome::Continue | PreFilterOutcome::Nodes(_) => {}
        }
    }
    Some((states, skip))
}

/// A walk and what it counted, as text.
fn described(walk: &Walk<'_>, diagnosis: &Diagnosis, metrics: &Metrics, fw: &Framework) -> String {
    let feasible: Vec<&str> = walk.feasible.iter().map(|n| n.name()).collect();
    let mut out = format!(
        "feasible {feasible:?}\nfailed {}\nrejected {:?}\nerror {:?}\nplugins {:?}\n",
        walk.failed, walk.rejected, walk.error, diagnosis.unschedulable_plugins
    );
    for &i in &fw.filter {
        let name = fw.plugins[i].name();
        out += &format!("{name} {}\n", metrics.value(metric::PLUGIN_EVALUATIONS, &[name, "Filter", "p"]));
    }
    out
}

#[test]
fn whole_list_filters_walk_as_node_by_node() {
    let fw = default_framework();
    let ticker = Still(Instant::now());
    let (mut compared, mut errors, mut stopped_early) = (0, 0, 0);
    for seed in 0..60u64 {
        let mut rng = Rng::seeded(7000 + seed);
        let (mut cache, num_nodes) = random_cache(&mut rng, seed);
        for step in 0..12 {
            let pod = random_incoming(&mut rng, num_nodes).info();
            cache.ensure_tallies(fw.tallies(&cache, &pod));
            cache.prepare();
            let Some((mut states, skip)) = pre_filter(&fw, &cache, &pod) else { continue };
            if rng.below(8) == 0 {
                // A filter without its PreFilter state reports an error on every node.
                for &i in &fw.filter {
                    if [names::POD_TOPOLOGY_SPREAD, names::INTER_POD_AFFINITY].contains(&fw.plugins[i].name()) && !skip[i] {
                        states[i] = None;
                    }
                }
            }
            let nodes = cache.node_order_snapshot();
            let (start, num_to_find) = (rng.below(nodes.len() as u64) as usize, 1 + rng.below(nodes.len() as u64) as usize);
            let active = fw.whole_list_filters(&cache, &skip, Rec(None)).expect("no pod here has volumes");
            let mut described_walks = Vec::new();
            for whole in [false, true] {
                let (metrics, recorder) = (Metrics::new(), CycleRecorder::new(&ticker, false));
                let rec = Rec(Some(&recorder));
                let input = WalkInput {
                    cache: &cache,
                    pod: &pod,
                    nodes,
                    start,
                    num_to_find,
                    states: &states,
                    skip: &skip,
                    rec,
                    clock: None,
                };
                let mut diagnosis = Diagnosis::default();
                let walk = if whole {
                    fw.walk_whole_lists(input, &active, &mut diagnosis)
                } else {
                    fw.walk_node_by_node(input, &mut diagnosis)
                };
                recorder.flush(&metrics, "p");
                errors += usize::from(walk.error.is_some() && whole);
                stopped_early += usize::from(whole && walk.feasible.len() + walk.failed < nodes.len());
                described_walks.push(described(&walk, &diagnosis, &metrics, &fw));
            }
            assert_eq!(described_walks[0], described_walks[1], "seed {seed} step {step}");
            compared += 1;
        }
    }
    assert!(
        compared > 400 && errors > 10 && stopped_early > 100,
        "{compared} walks, {errors} errors, {stopped_early} stopped early"
    );
}

#[test]
fn default_profile_cycles_decide_as_node_by_node() {
    let (whole, by_node) = (default_framework(), node_by_node_framework());
    assert!(by_node.whole_list_filters(&Cache::new(), &vec![false; by_node.plugins.len()], Rec(None)).is_none());
    let mut compared = 0;
    for seed in 0..40u64 {
        let mut rng = Rng::seeded(9000 + seed);
        let (mut cache, num_nodes) = random_cache(&mut rng, seed);
        let mut start_a = rng.below(num_nodes) as usize;
        let mut start_b = start_a;
        let percentage = [0, 1, 30][rng.below(3) as usize];
        for step in 0..10 {
            let pod = random_incoming(&mut rng, num_nodes).info();
            cache.ensure_tallies(whole.tallies(&cache, &pod));
            cache.prepare();
            let mut outcomes = Vec::new();
            for (fw, start) in [(&whole, &mut start_a), (&by_node, &mut start_b)] {
                let mut rng = Rng::seeded(seed * 100 + step);
                let mut params = explained_params(start, &mut rng);
                params.percentage_of_nodes_to_score = percentage;
                outcomes.push(format!("{:?}", fw.schedule(&cache, &pod, &mut params)));
            }
            assert_eq!(outcomes[0], outcomes[1], "seed {seed} step {step}");
            assert_eq!(start_a, start_b, "seed {seed} step {step}: next start index");
            compared += 1;
        }
    }
    assert!(compared >= 400);
}
