//! PodTopologySpread and InterPodAffinity with the cache's incrementally kept counts (tallies
//! and term groups) against the straightforward walk over every pod, on random clusters: random
//! nodes (zone and hostname labels and another key with one value per node, a taint,
//! relabelling that changes or removes a node's hostname or zone, removal), random pods (labels,
//! namespaces, required and preferred (anti-)affinity with namespaces / namespaceSelector /
//! matchLabelKeys / mismatchLabelKeys, spread constraints of both kinds with minDomains,
//! matchLabelKeys and both node inclusion policies, node selectors, terminating pods) and random
//! add / remove / assume / forget sequences. Every PreFilter, Filter (also after a preemption
//! what-if removal and addition), PreScore, Score and NormalizeScore result must be identical,
//! and node selectors matched through the cache's label value ids must select the nodes their
//! label values select.

use super::helper::RequiredNodeAffinity;
use super::inter_pod_affinity::InterPodAffinity;
use super::pod_topology_spread::PodTopologySpread;
use super::test_util::{pod_term, sel_req, selector, NodeBuilder, PodBuilder};
use crate::core::api;
use crate::core::cache::{AssignedPod, Cache};
use crate::core::framework::{Plugin, PluginState, PreScoreOutcome};
use crate::core::model::PodInfo;
use crate::core::rng::Rng;

const HOST: &str = "kubernetes.io/hostname";
const ZONE: &str = "topology.kubernetes.io/zone";
/// A key with one value per node that is not `kubernetes.io/hostname`.
const RACK_SLOT: &str = "example.com/rack-slot";
const NAMESPACES: [&str; 2] = ["default", "other"];

fn pick<'a>(rng: &mut Rng, from: &[&'a str]) -> &'a str {
    from[rng.below(from.len() as u64) as usize]
}

pub(super) fn random_node(rng: &mut Rng, i: u64, zones: bool) -> NodeBuilder {
    let name = format!("n{i}");
    random_node_labelled(rng, &name, &name, zones)
}

/// A node relabelled while pods run on it: its hostname label kept, changed to another node's
/// (two nodes then share a hostname value: the key stops having one value per node) or removed;
/// a zone as [`random_node`] gives one.
fn relabelled_node(rng: &mut Rng, i: u64, num_nodes: u64, zones: bool) -> NodeBuilder {
    let name = format!("n{i}");
    match rng.below(4) {
        0 => {
            let host = format!("n{}", rng.below(num_nodes));
            random_node_labelled(rng, &name, &host, zones)
        }
        1 => random_node_labelled(rng, &name, "", zones),
        _ => random_node(rng, i, zones),
    }
}

/// A random node named `name` with hostname label `host` (none when empty) and a unique
/// per-node key of another name (`RACK_SLOT`: one value per node too, not named hostname).
fn random_node_labelled(rng: &mut Rng, name: &str, host: &str, zones: bool) -> NodeBuilder {
    let zone = format!("z{}", rng.below(3));
    let slot = format!("slot-{name}");
    let mut labels = vec![(RACK_SLOT, slot.as_str())];
    if !host.is_empty() {
        labels.push((HOST, host));
    }
    // Now and then a node without a zone (spread constraints then exclude it).
    if zones && rng.below(8) != 0 {
        labels.push((ZONE, zone.as_str()));
    }
    let mut b = NodeBuilder::new(name).labels(&labels);
    if rng.below(6) == 0 {
        b = b.taint("dedicated", "x", "NoSchedule");
    }
    b
}

fn random_selector(rng: &mut Rng) -> api::LabelSelector {
    match rng.below(5) {
        0 => selector(vec![sel_req("app", "In", &[pick(rng, &["a0", "a1", "a2"])])]),
        1 => selector(vec![sel_req("app", "In", &["a0", "a1"]), sel_req("tier", "NotIn", &["t1"])]),
        2 => selector(vec![sel_req("tier", "Exists", &[])]),
        3 => selector(vec![sel_req("app", "NotIn", &["a2"])]),
        _ => selector(vec![sel_req("app", "In", &[pick(rng, &["a0", "a1"])]), sel_req("tier", "In", &["t0"])]),
    }
}

fn random_term(rng: &mut Rng) -> api::PodAffinityTerm {
    let mut t = pod_term(Some(random_selector(rng)), pick(rng, &[HOST, HOST, ZONE, ZONE, RACK_SLOT]));
    match rng.below(6) {
        0 => t.namespaces = vec!["other".into()],
        1 => t.namespace_selector = Some(selector(vec![sel_req("team", "In", &["blue"])])),
        2 => t.namespace_selector = Some(api::LabelSelector::default()),
        3 => t.match_label_keys = vec!["tier".into()],
        4 => t.mismatch_label_keys = vec!["tier".into()],
        _ => {}
    }
    t
}

/// A pod with random labels, terms and constraints (`with_terms` false: labels only, as most
/// existing pods are).
pub(super) fn random_pod(rng: &mut Rng, name: &str, with_terms: bool) -> PodBuilder {
    let ns = pick(rng, &NAMESPACES);
    let app = pick(rng, &["a0", "a1", "a2"]);
    let tier = pick(rng, &["t0", "t1", ""]);
    let mut labels = vec![("app", app)];
    if !tier.is_empty() {
        labels.push(("tier", tier));
    }
    let mut p = PodBuilder::new(name).namespace(ns).labels(&labels);
    if rng.below(10) == 0 {
        p = p.terminating();
    }
    if !with_terms {
        return p;
    }
    for _ in 0..rng.below(3) {
        p = match rng.below(4) {
            0 => p.pod_affinity_required(random_term(rng)),
            1 => p.pod_anti_affinity_required(random_term(rng)),
            2 => p.pod_affinity_preferred(1 + rng.below(100) as i32, random_term(rng)),
            _ => p.pod_anti_affinity_preferred(1 + rng.below(100) as i32, random_term(rng)),
        };
    }
    for _ in 0..rng.below(3) {
        let when = pick(rng, &["DoNotSchedule", "ScheduleAnyway"]);
        let key = pick(rng, &[HOST, HOST, ZONE, RACK_SLOT]);
        p = p.spread(1 + rng.below(2) as i32, key, when, Some(random_selector(rng)));
        let (a, b, c, d) = (rng.below(4), rng.below(4), rng.below(4), rng.below(4));
        p = p.spread_with(|c_| {
            if a == 0 {
                c_.min_domains = Some(3);
            }
            if b == 0 {
                c_.match_label_keys = vec!["tier".into()];
            }
            if c == 0 {
                c_.node_affinity_policy = Some("Ignore".into());
            }
            if d == 0 {
                c_.node_taints_policy = Some("Honor".into());
            }
        });
    }
    if rng.below(5) == 0 {
        // "z9": a value no node carries.
        p = p.node_selector(&[(ZONE, pick(rng, &["z0", "z1", "z9"]))]);
    }
    if rng.below(5) == 0 {
        p = p.toleration("dedicated", "Exists", "", "NoSchedule");
    }
    p
}

/// Everything the two plugins decide for `pod` on this cache, as text.
fn decisions(cache: &Cache, pod: &PodInfo, rng_seed: u64) -> String {
    let plugins: [Box<dyn Plugin>; 2] =
        [Box::new(PodTopologySpread::default()), Box::new(InterPodAffinity::from_args(None).unwrap())];
    let nodes: Vec<_> = cache.nodes().collect();
    let mut out = String::new();
    for pl in &plugins {
        let mut state: PluginState = None;
        let pre = pl.pre_filter(cache, pod, &mut state);
        out += &format!("{} prefilter {pre:?}\n", pl.name());
        let mut feasible = Vec::new();
        for n in &nodes {
            let r = pl.filter(cache, pod, n, &state);
            if state.is_some() {
                out += &format!("  filter {} {r:?}\n", n.name());
            }
            if r.is_ok() {
                feasible.push(*n);
            }
        }
        // Preemption's what-if: remove one placed pod, add it back, filter again.
        let mut rng = Rng::seeded(rng_seed);
        if state.is_some() && !nodes.is_empty() {
            let node = nodes[rng.below(nodes.len() as u64) as usize];
            if let Some(victim) = node.pods.first() {
                let mut copy = pl.clone_state(&state);
                pl.remove_pod(&mut copy, pod, victim, node);
                let extra = AssignedPod::from_pod(pod, node.name());
                pl.add_pod(&mut copy, pod, &extra, node);
                for n in &nodes {
                    out += &format!("  what-if filter {} {:?}\n", n.name(), pl.filter(cache, pod, n, &copy));
                }
            }
        }
        let mut sstate: PluginState = None;
        let ps = pl.pre_score(cache, pod, &feasible, &mut sstate);
        out += &format!("  prescore {ps:?}\n");
        if ps == PreScoreOutcome::Run {
            let mut scores: Vec<i64> = Vec::new();
            for n in &feasible {
                match pl.score(cache, pod, n, &sstate) {
                    Ok(s) => scores.push(s),
                    Err(e) => out += &format!("  score {} {e:?}\n", n.name()),
                }
            }
            out += &format!("  raw {scores:?}\n");
            if scores.len() == feasible.len() {
                pl.normalize(pod, &mut scores, &sstate);
                out += &format!("  normalized {scores:?}\n");
            }
        }
    }
    out
}

/// A Service selecting `app: a0` in `default`: pods without constraints of their own get the
/// plugin's default constraints with its selector.
pub(super) fn service() -> api::Service {
    let mut s: api::Service = serde_json::from_value(serde_json::json!({
        "metadata": {"name": "svc", "namespace": "default"},
        "spec": {"selector": {"app": "a0"}}
    }))
    .unwrap();
    s.metadata.namespace = "default".into();
    s
}

pub(super) fn namespace(name: &str, team: &str) -> api::Namespace {
    let mut ns = api::Namespace { metadata: Default::default() };
    ns.metadata.name = name.into();
    ns.metadata.labels.insert("team".into(), team.into());
    ns
}

/// A whole cycle of a profile with both plugins (and preemption): the outcome, explained.
fn whole_cycle(fw: &crate::core::framework::Framework, cache: &Cache, pod: &PodInfo) -> String {
    let (mut start, mut rng) = (0usize, Rng::seeded(7));
    let mut params = super::test_util::explained_params(&mut start, &mut rng);
    format!("{:?}\n", fw.schedule(cache, pod, &mut params))
}

#[test]
fn incremental_counts_decide_as_the_walk_over_every_pod() {
    let fw_plugins = super::test_util::framework_with(&[
        (super::names::PRIORITY_SORT, 0),
        (super::names::POD_TOPOLOGY_SPREAD, 2),
        (super::names::INTER_POD_AFFINITY, 2),
        (super::names::TAINT_TOLERATION, 3),
        (super::names::DEFAULT_PREEMPTION, 0),
        (super::names::DEFAULT_BINDER, 0),
    ]);
    let mut compared = 0;
    for seed in 0..15u64 {
        let mut rng = Rng::seeded(1000 + seed);
        let mut cache = Cache::new();
        cache.cluster.upsert_namespace(&namespace("default", "blue"));
        cache.cluster.upsert_namespace(&namespace("other", "red"));
        if seed % 2 == 0 {
            cache.cluster.upsert_service(&service());
        }
        let num_nodes = 2 + rng.below(7);
        // Every third cluster has no zone label at all (a key on no node).
        let zones = seed % 3 != 0;
        for i in 0..num_nodes {
            cache.upsert_node(random_node(&mut rng, i, zones).spec());
        }
        for step in 0..120 {
            let name = format!("p{}", rng.below(30));
            let node = format!("n{}", rng.below(num_nodes));
            let with_terms = rng.below(3) == 0;
            let p = random_pod(&mut rng, &name, with_terms);
            let key = format!("{}", p.info().key);
            match rng.below(10) {
                0..=2 => cache.upsert_assigned_pod(&p.node_name(&node).info()),
                3..=4 => cache.assume_pod(&p.info(), &node),
                5 => {
                    cache.forget_pod(&key);
                }
                6 => {
                    cache.remove_pod(&key);
                }
                7 => {
                    // Relabel a node (another zone, another node's hostname, no hostname) or
                    // let it go and come back.
                    let other = rng.below(num_nodes);
                    if rng.below(2) == 0 {
                        cache.upsert_node(relabelled_node(&mut rng, other, num_nodes, zones).spec());
                    } else if cache.node_by_name(&node).is_some() {
                        cache.remove_node(&node);
                    } else {
                        cache.upsert_node(random_node(&mut rng, other, zones).spec());
                    }
                }
                _ => {
                    // A scheduling cycle: register the tallies as the scheduler does, compare.
                    let with_terms = rng.below(4) != 0;
                    let incoming = random_pod(&mut rng, "incoming", with_terms).info();
                    cache.ensure_tallies(fw_plugins.tallies(&cache, &incoming));
                    cache.prepare();
                    cache.set_incremental_counts(true);
                    let fast = decisions(&cache, &incoming, step) + &whole_cycle(&fw_plugins, &cache, &incoming);
                    cache.set_incremental_counts(false);
                    let walk = decisions(&cache, &incoming, step) + &whole_cycle(&fw_plugins, &cache, &incoming);
                    cache.set_incremental_counts(true);
                    assert_eq!(fast, walk, "seed {seed} step {step}");
                    // The node selector matched by value ids as by label values.
                    let required = RequiredNodeAffinity::of_pod(&incoming.node_selector, incoming.affinity.as_deref());
                    let by_ids = required.clone().with_value_ids(cache.domains());
                    for n in cache.nodes() {
                        let want = required.matches(&n.node.labels, n.name());
                        assert_eq!(by_ids.matches_node(cache.domains(), n), want, "seed {seed} step {step} node {}", n.name());
                    }
                    compared += 1;
                }
            }
            if let Err(e) = cache.verify_topology_counts() {
                panic!("seed {seed} step {step}: {e}");
            }
        }
    }
    assert!(compared > 100, "only {compared} cycles compared");
}
