//! The whole-list scorers ([`super::ScoreAll`]) against the straightforward per-node formulas of
//! upstream, on random clusters: every score must be identical (the float ones to the bit, since
//! they are truncated or rounded to integers afterwards).
//!
//! - ImageLocality: pkg/scheduler/framework/plugins/imagelocality/image_locality.go (`sumImageScores`,
//!   `scaledImageScore`, `calculatePriority`), spread counted by walking the nodes.
//! - NodeResourcesBalancedAllocation: noderesources/balanced_allocation.go (`balancedResourceScorer`)
//!   over noderesources/resource_allocation.go's per-resource `(requested, allocatable)`, as
//!   [`balanced_resource_score`] computes it from the lazy samples.
//! - NodeResourcesFit: noderesources/least_allocated.go / most_allocated.go /
//!   requested_to_capacity_ratio.go, the per-node [`NodeResourcesFit::score_node`].
//! - PodTopologySpread: podtopologyspread/scoring.go (`initPreScoreState`: ignored nodes and
//!   domains by label values; `Score`), from the PreScore state's counts keyed by label value.
//! - InterPodAffinity: interpodaffinity/scoring.go (`Score`: the node's label values looked up in
//!   the topology score map).

use super::balanced_allocation::balanced_resource_score;
use super::image_locality::{calculate_priority, scaled_image_score};
use super::node_resources_fit::ResourceAllocation;
use super::pod_topology_spread::{count_matching, node_has_all_keys, scoring as pts};
use super::test_util::{NodeBuilder, PodBuilder};
use super::topology_differential_tests::{namespace, random_node, random_pod, service};
use super::{names, new_plugin_scored, PluginContext, ScoreAll};
use crate::core::cache::{Cache, NodeInfo};
use crate::core::config::{NodeResourcesBalancedAllocationArgs, PluginArgs, ResourceSpec};
use crate::core::framework::{state_as, Plugin, PluginState, PreScoreOutcome};
use crate::core::intern::Name;
use crate::core::model::PodInfo;
use crate::core::rng::Rng;
use std::sync::Arc;

const IMAGES: [&str; 3] = ["img/a:1", "img/b:1", "img/c:1"];
const MB: i64 = 1024 * 1024;

/// A random node of the topology tests with random allocatable, a GPU now and then, and images.
fn node(rng: &mut Rng, i: u64, zones: bool) -> NodeBuilder {
    let cpu = format!("{}m", 500 + rng.below(8000));
    let mem = format!("{}", 1 + rng.below(64 * 1024 * MB as u64));
    let gpu = format!("{}", rng.below(3));
    let mut alloc = vec![("cpu", cpu.as_str()), ("memory", mem.as_str())];
    if rng.below(2) == 0 {
        alloc.push(("nvidia.com/gpu", gpu.as_str()));
    }
    let mut b = random_node(rng, i, zones).allocatable(&alloc);
    for img in IMAGES {
        if rng.below(3) != 0 {
            b = b.image(&[img], rng.below(3000) as i64 * MB + rng.below(MB as u64) as i64);
        }
    }
    b
}

/// A random pod with random requests and images.
fn pod(rng: &mut Rng, name: &str, with_terms: bool) -> PodBuilder {
    let mut p = random_pod(rng, name, with_terms);
    for _ in 0..rng.below(3) {
        let cpu = format!("{}m", rng.below(3000));
        let mem = format!("{}", rng.below(8 * 1024 * MB as u64));
        let mut reqs = vec![("cpu", cpu.as_str()), ("memory", mem.as_str())];
        if rng.below(3) == 0 {
            reqs.push(("nvidia.com/gpu", "1"));
        }
        p = p.container(&reqs[..1 + rng.below(reqs.len() as u64) as usize]).image(IMAGES[rng.below(3) as usize]);
    }
    p
}

/// `image_locality.go`: the spread of each pod image over every node, summed on the node.
fn image_locality(cache: &Cache, pod: &PodInfo, node: &NodeInfo) -> i64 {
    let total = cache.num_nodes();
    let mut sum = 0i64;
    for img in &pod.images {
        let Some(name) = Name::lookup(img) else { continue };
        let have = cache.nodes().filter(|n| n.node.image_size(name).is_some()).count();
        if let Some(size) = node.node.image_size(name) {
            sum = sum.saturating_add(scaled_image_score(size, have as f64 / total as f64));
        }
    }
    calculate_priority(sum, pod.images.len())
}

/// `podtopologyspread/scoring.go` from the PreScore state's counts keyed by label value.
fn topology_spread(pod: &PodInfo, feasible: &[&NodeInfo], node: &NodeInfo, state: &PluginState) -> i64 {
    let s = state_as::<pts::PreScoreState>(state).expect("prescore state");
    let require_all = !pod.topology_spread_constraints.is_empty();
    let labels = &node.node.labels;
    if require_all && !node_has_all_keys(labels, &s.constraints) {
        return -1;
    }
    let eligible: Vec<_> =
        feasible.iter().filter(|n| !require_all || node_has_all_keys(&n.node.labels, &s.constraints)).collect();
    let mut score = 0f64;
    for (i, c) in s.constraints.iter().enumerate() {
        let Some(value) = c.value(labels) else { continue };
        let size = if c.is_hostname {
            eligible.len()
        } else {
            let mut values: Vec<&str> = eligible.iter().map(|n| c.value(&n.node.labels).unwrap_or("")).collect();
            values.sort_unstable();
            values.dedup();
            let mut domains: Vec<&str> = s.topology_value_to_pod_counts[i].keys().map(|v| &**v).collect();
            domains.sort_unstable();
            assert_eq!(domains, values, "domains of constraint {i}");
            values.len()
        };
        let weight = ((size + 2) as f64).ln();
        assert_eq!(weight.to_bits(), s.topology_normalizing_weight[i].to_bits(), "normalizing weight {i}");
        let cnt = if c.is_hostname {
            match &s.host_counts[i] {
                Some(h) => h[node.id as usize],
                None => count_matching(&node.pods, &c.selector, &pod.namespace),
            }
        } else {
            s.topology_value_to_pod_counts[i].get(value).copied().unwrap_or(0)
        };
        score += cnt as f64 * weight + f64::from(c.max_skew - 1);
    }
    score.round() as i64
}

/// A plugin, its whole-list scorer and its args.
type Scored = (Arc<dyn Plugin>, Arc<dyn ScoreAll>, Option<PluginArgs>);

/// Every score plugin with a whole-list scorer, and the reference per node.
#[test]
fn whole_list_scores_are_the_per_node_formulas() {
    let ctx = PluginContext::default();
    let three = ["cpu", "memory", "nvidia.com/gpu"].map(|n| ResourceSpec { name: n.into(), weight: 1 + n.len() as i64 % 3 });
    let configs: Vec<(&str, Option<PluginArgs>)> = vec![
        (names::IMAGE_LOCALITY, None),
        (names::NODE_RESOURCES_FIT, None),
        (names::NODE_RESOURCES_BALANCED_ALLOCATION, None),
        (
            names::NODE_RESOURCES_BALANCED_ALLOCATION,
            Some(PluginArgs::NodeResourcesBalancedAllocation(NodeResourcesBalancedAllocationArgs {
                resources: three.to_vec(),
                ..Default::default()
            })),
        ),
        (
            // More resources than the scorer keeps on the stack.
            names::NODE_RESOURCES_BALANCED_ALLOCATION,
            Some(PluginArgs::NodeResourcesBalancedAllocation(NodeResourcesBalancedAllocationArgs {
                resources: ["cpu", "memory", "nvidia.com/gpu", "ephemeral-storage", "example.com/foo"]
                    .map(|n| ResourceSpec { name: n.into(), weight: 1 })
                    .to_vec(),
                ..Default::default()
            })),
        ),
        (names::POD_TOPOLOGY_SPREAD, None),
        (names::INTER_POD_AFFINITY, None),
    ];
    let plugins: Vec<Scored> = configs
        .into_iter()
        .map(|(name, args)| {
            let (p, s, _) = new_plugin_scored(name, args.as_ref(), &ctx).unwrap().unwrap();
            (p, s.expect("a whole-list scorer"), args)
        })
        .collect();
    let fw = super::test_util::framework_with(&[
        (names::PRIORITY_SORT, 0),
        (names::POD_TOPOLOGY_SPREAD, 1),
        (names::INTER_POD_AFFINITY, 1),
        (names::DEFAULT_BINDER, 0),
    ]);
    let mut compared = 0;
    for seed in 0..12u64 {
        let mut rng = Rng::seeded(5000 + seed);
        let mut cache = Cache::new();
        cache.cluster.upsert_namespace(&namespace("default", "blue"));
        cache.cluster.upsert_namespace(&namespace("other", "red"));
        if seed % 2 == 0 {
            cache.cluster.upsert_service(&service());
        }
        let num_nodes = 2 + rng.below(9);
        let zones = seed % 3 != 0;
        for i in 0..num_nodes {
            cache.upsert_node(node(&mut rng, i, zones).spec());
        }
        for _ in 0..25 {
            let with_terms = rng.below(3) == 0;
            let (name, on) = (format!("p{}", rng.below(40)), format!("n{}", rng.below(num_nodes)));
            let p = pod(&mut rng, &name, with_terms).node_name(&on);
            cache.upsert_assigned_pod(&p.info());
        }
        for _ in 0..12 {
            let with_terms = rng.below(4) != 0;
            let incoming = pod(&mut rng, "incoming", with_terms).info();
            cache.ensure_tallies(fw.tallies(&cache, &incoming));
            cache.prepare();
            // A random subset of the nodes is feasible.
            let feasible: Vec<&NodeInfo> = cache.nodes().filter(|_| rng.below(4) != 0).collect();
            for (pl, all, args) in &plugins {
                let mut state: PluginState = None;
                let _ = pl.pre_filter(&cache, &incoming, &mut state);
                if pl.pre_score(&cache, &incoming, &feasible, &mut state) == PreScoreOutcome::Skip {
                    continue;
                }
                let mut out = vec![0; feasible.len()];
                let got = all.score_all(&cache, &incoming, &feasible, &state, &mut out);
                let per_node: Result<Vec<i64>, _> = feasible.iter().map(|n| pl.score(&cache, &incoming, n, &state)).collect();
                match (got, per_node) {
                    (Ok(()), Ok(one_by_one)) => assert_eq!(out, one_by_one, "{} seed {seed}", pl.name()),
                    (Err(a), Err(b)) => {
                        assert_eq!(a.message(), b.message());
                        continue;
                    }
                    (a, b) => panic!("{} seed {seed}: {a:?} vs {b:?}", pl.name()),
                }
                let want: Vec<i64> = feasible
                    .iter()
                    .enumerate()
                    .map(|(k, n)| match pl.name() {
                        names::IMAGE_LOCALITY => image_locality(&cache, &incoming, n),
                        // score_node is the per-node formula itself (compared above).
                        names::NODE_RESOURCES_FIT => out[k],
                        names::NODE_RESOURCES_BALANCED_ALLOCATION => {
                            let resources = match args {
                                Some(PluginArgs::NodeResourcesBalancedAllocation(a)) => a.resources.clone(),
                                _ => NodeResourcesBalancedAllocationArgs::default().resources,
                            };
                            let alloc = ResourceAllocation::new(&resources, true);
                            let requests = alloc.pod_requests(incoming.resources.as_ref().unwrap());
                            balanced_resource_score(alloc.samples(n, &requests))
                        }
                        names::POD_TOPOLOGY_SPREAD => topology_spread(&incoming, &feasible, n, &state),
                        _ => inter_pod_affinity(&cache, n, &state),
                    })
                    .collect();
                assert_eq!(out, want, "{} seed {seed}", pl.name());
                compared += 1;
            }
        }
    }
    assert!(compared > 300, "only {compared} score lists compared");
}

/// `interpodaffinity/scoring.go` `Score`: the node's label value of each key in the map.
fn inter_pod_affinity(cache: &Cache, node: &NodeInfo, state: &PluginState) -> i64 {
    super::inter_pod_affinity::reference_score(cache, node, state)
}
