//! Conformance tests transcribed from upstream's test tables:
//! pkg/scheduler/framework/plugins/podtopologyspread/filtering_test.go (TestSingleConstraint,
//! TestMultipleConstraints) and scoring_test.go (TestPodTopologySpreadScore). Case names are
//! quoted above each case. Upstream runs these with the node-inclusion-policy, minDomains and
//! matchLabelKeys features on (all GA or default-on in v1.35), as here.

use super::*;
use crate::core::config::{DefaultingType, PodTopologySpreadArgs};
use crate::core::framework::plugins::test_util::{cache_with, exists, NodeBuilder, PodBuilder};
use crate::core::framework::Code;

const OK: Option<Code> = None;
const U: Option<Code> = Some(Code::Unschedulable);
const UU: Option<Code> = Some(Code::UnschedulableAndUnresolvable);
const DNS: &str = "DoNotSchedule";
const SA: &str = "ScheduleAnyway";

/// The plugin as upstream's filter tests build it: `defaultingType: List`, no defaults.
fn list_plugin() -> PodTopologySpread {
    PodTopologySpread::new(&PodTopologySpreadArgs {
        default_constraints: Vec::new(),
        defaulting_type: DefaultingType::List,
        ..Default::default()
    })
    .unwrap()
}

/// `st.MakeNode().Name(name).Label(...)`.
fn node(name: &str, labels: &[(&str, &str)]) -> NodeBuilder {
    NodeBuilder::new(name).labels(labels)
}

/// node-a/node-b in zone1, node-x/node-y in zone2, each with `node=<name>`.
fn four_nodes() -> Vec<NodeBuilder> {
    vec![
        node("node-a", &[("zone", "zone1"), ("node", "node-a")]),
        node("node-b", &[("zone", "zone1"), ("node", "node-b")]),
        node("node-x", &[("zone", "zone2"), ("node", "node-x")]),
        node("node-y", &[("zone", "zone2"), ("node", "node-y")]),
    ]
}

/// `st.MakePod().Name(name).Node(node).Label("foo", "")`.
fn foo(name: &str, node: &str) -> PodBuilder {
    PodBuilder::new(name).node_name(node).labels(&[("foo", "")])
}

fn bar(name: &str, node: &str) -> PodBuilder {
    PodBuilder::new(name).node_name(node).labels(&[("bar", "")])
}

/// The incoming pod `p` with label foo.
fn incoming() -> PodBuilder {
    PodBuilder::new("p").labels(&[("foo", "")])
}

/// PreFilter once, then Filter every node; compare the codes.
fn check_filter(name: &str, pod: PodBuilder, nodes: &[NodeBuilder], existing: &[PodBuilder], want: &[(&str, Option<Code>)]) {
    let cache = cache_with(nodes, existing);
    let pl = list_plugin();
    let info = pod.info();
    let mut state = None;
    let pre = pl.pre_filter(&cache, &info, &mut state);
    assert!(matches!(pre, PreFilterOutcome::Continue), "{name}: prefilter {pre:?}");
    for (n, code) in want {
        let ni = cache.node_by_name(n).unwrap();
        let got = pl.filter(&cache, &info, ni, &state).err().map(|r| r.code);
        assert_eq!(got, *code, "{name}: node {n}");
    }
}

fn exists_expr(key: &str) -> Option<crate::core::api::LabelSelector> {
    exists(key)
}

#[test]
fn single_constraint() {
    // filtering_test.go TestSingleConstraint.
    let fs = || exists_expr("foo");
    check_filter(
        "no existing pods",
        incoming().spread(1, "zone", DNS, fs()),
        &four_nodes(),
        &[],
        &[("node-a", OK), ("node-b", OK), ("node-x", OK), ("node-y", OK)],
    );
    check_filter(
        "no existing pods, incoming pod doesn't match itself",
        incoming().spread(1, "zone", DNS, exists_expr("bar")),
        &four_nodes(),
        &[],
        &[("node-a", OK), ("node-b", OK), ("node-x", OK), ("node-y", OK)],
    );
    check_filter(
        "existing pods in a different namespace do not count",
        incoming().spread(1, "zone", DNS, fs()),
        &four_nodes(),
        &[
            foo("p-a1", "node-a").namespace("ns1"),
            foo("p-b1", "node-a").namespace("ns2"),
            foo("p-x1", "node-x"),
            foo("p-y1", "node-y"),
        ],
        &[("node-a", OK), ("node-b", OK), ("node-x", U), ("node-y", U)],
    );
    let spread_2_1_0_3 = || {
        vec![
            foo("p-a1", "node-a"),
            foo("p-a2", "node-a"),
            foo("p-b1", "node-b"),
            foo("p-y1", "node-y"),
            foo("p-y2", "node-y"),
            foo("p-y3", "node-y"),
        ]
    };
    check_filter(
        "pods spread across zones as 3/3, all nodes fit",
        incoming().spread(1, "zone", DNS, fs()),
        &four_nodes(),
        &spread_2_1_0_3(),
        &[("node-a", OK), ("node-b", OK), ("node-x", OK), ("node-y", OK)],
    );
    let mut typo = four_nodes();
    typo[1] = node("node-b", &[("zon", "zone1"), ("node", "node-b")]);
    check_filter(
        "pods spread across zones as 1/2 due to absence of label 'zone' on node-b",
        incoming().spread(1, "zone", DNS, fs()),
        &typo,
        &[foo("p-a1", "node-a"), foo("p-b1", "node-b"), foo("p-x1", "node-x"), foo("p-y1", "node-y")],
        &[("node-a", OK), ("node-b", UU), ("node-x", U), ("node-y", U)],
    );
    check_filter(
        "pod cannot be scheduled as all nodes don't have label 'rack'",
        incoming().spread(1, "rack", DNS, fs()),
        &[node("node-a", &[("zone", "zone1"), ("node", "node-a")]), node("node-x", &[("zone", "zone2"), ("node", "node-x")])],
        &[],
        &[("node-a", UU), ("node-x", UU)],
    );
    check_filter(
        "pods spread across nodes as 2/1/0/3, only node-x fits",
        incoming().spread(1, "node", DNS, fs()),
        &four_nodes(),
        &spread_2_1_0_3(),
        &[("node-a", U), ("node-b", U), ("node-x", OK), ("node-y", U)],
    );
    check_filter(
        "pods spread across nodes as 2/1/0/3, maxSkew is 2, node-b and node-x fit",
        incoming().spread(2, "node", DNS, fs()),
        &four_nodes(),
        &spread_2_1_0_3(),
        &[("node-a", U), ("node-b", OK), ("node-x", OK), ("node-y", U)],
    );
    check_filter(
        "pods spread across nodes as 2/1/0/3, but pod doesn't match itself",
        PodBuilder::new("p").labels(&[("bar", "")]).spread(1, "node", DNS, fs()),
        &four_nodes(),
        &spread_2_1_0_3(),
        &[("node-a", U), ("node-b", OK), ("node-x", OK), ("node-y", U)],
    );
    let in_a_y =
        crate::core::framework::plugins::test_util::required(vec![crate::core::framework::plugins::test_util::term(vec![
            crate::core::framework::plugins::test_util::req("node", "In", &["node-a", "node-y"]),
        ])]);
    let mut p = incoming().spread(1, "node", DNS, fs());
    p.pod.spec.affinity = Some(crate::core::api::Affinity { node_affinity: Some(in_a_y), ..Default::default() });
    check_filter(
        "incoming pod has nodeAffinity, pods spread as 2/~1~/~0~/3, hence node-a fits",
        p,
        &four_nodes(),
        &spread_2_1_0_3(),
        &[("node-a", OK), ("node-b", OK), ("node-x", OK), ("node-y", U)],
    );
    check_filter(
        "terminating Pods should be excluded",
        incoming().spread(1, "node", DNS, fs()),
        &[node("node-a", &[("node", "node-a")]), node("node-b", &[("node", "node-b")])],
        &[foo("p-a", "node-a").terminating(), foo("p-b", "node-b")],
        &[("node-a", OK), ("node-b", U)],
    );
    let not_b =
        crate::core::framework::plugins::test_util::required(vec![crate::core::framework::plugins::test_util::term(vec![
            crate::core::framework::plugins::test_util::req("node", "NotIn", &["node-b"]),
        ])]);
    let mut p = incoming().spread(1, "zone", DNS, fs());
    p.pod.spec.affinity = Some(crate::core::api::Affinity { node_affinity: Some(not_b), ..Default::default() });
    check_filter(
        "incoming pod has nodeAffinity, pods spread as 0/~2~/0/1, hence node-a fits",
        p,
        &four_nodes(),
        &[foo("p-b1", "node-b"), foo("p-b2", "node-b"), foo("p-y1", "node-y")],
        &[("node-a", OK), ("node-b", OK), ("node-x", U), ("node-y", U)],
    );
}

#[test]
fn single_constraint_min_domains() {
    // filtering_test.go TestSingleConstraint (minDomains cases).
    let fs = || exists_expr("foo");
    let three = || {
        vec![node("node-a", &[("node", "node-a")]), node("node-b", &[("node", "node-b")]), node("node-c", &[("node", "node-c")])]
    };
    let pods_2_2_1 = || {
        vec![foo("p-a1", "node-a"), foo("p-a2", "node-a"), foo("p-b1", "node-b"), foo("p-b2", "node-b"), foo("p-c1", "node-c")]
    };
    check_filter(
        "pods spread across nodes as 2/2/1, maxSkew is 2, and the number of domains < minDomains, then the third node fits",
        incoming().spread(2, "node", DNS, fs()).spread_with(|c| c.min_domains = Some(4)),
        &three(),
        &pods_2_2_1(),
        &[("node-a", U), ("node-b", U), ("node-c", OK)],
    );
    check_filter(
        "pods spread across nodes as 2/2/1, maxSkew is 2, and the number of domains > minDomains, then the all nodes fit",
        incoming().spread(2, "node", DNS, fs()).spread_with(|c| c.min_domains = Some(2)),
        &three(),
        &pods_2_2_1(),
        &[("node-a", OK), ("node-b", OK), ("node-c", OK)],
    );
    let pods_2_1 = || vec![foo("p-b1", "node-a"), foo("p-b2", "node-b"), foo("p-y1", "node-y")];
    check_filter(
        "pods spread across zone as 2/1, maxSkew is 2 and the number of domains < minDomains, then the third and fourth nodes fit",
        incoming().spread(2, "zone", DNS, fs()).spread_with(|c| c.min_domains = Some(3)),
        &four_nodes(),
        &pods_2_1(),
        &[("node-a", U), ("node-b", U), ("node-x", OK), ("node-y", OK)],
    );
    check_filter(
        "pods spread across zone as 2/1, maxSkew is 2 and the number of domains > minDomains, then the all nodes fit",
        incoming().spread(2, "zone", DNS, fs()).spread_with(|c| c.min_domains = Some(1)),
        &four_nodes(),
        &pods_2_1(),
        &[("node-a", OK), ("node-b", OK), ("node-x", OK), ("node-y", OK)],
    );
}

#[test]
fn single_constraint_inclusion_policies() {
    // filtering_test.go TestSingleConstraint (nodeAffinityPolicy / nodeTaintsPolicy cases).
    let fs = || exists_expr("foo");
    let nodes = || {
        vec![
            node("node-a", &[("node", "node-a"), ("foo", "")]),
            node("node-b", &[("node", "node-b"), ("foo", "")]),
            node("node-x", &[("node", "node-x"), ("foo", "")]),
            node("node-y", &[("node", "node-y")]),
        ]
    };
    let existing = || vec![foo("p-b1", "node-a"), foo("p-b2", "node-b"), foo("p-y1", "node-y")];
    check_filter(
        "NodeAffinityPolicy honored with labelSelectors",
        incoming().node_selector(&[("foo", "")]).spread(1, "node", DNS, fs()),
        &nodes(),
        &existing(),
        &[("node-a", U), ("node-b", U), ("node-x", OK), ("node-y", OK)],
    );
    check_filter(
        "NodeAffinityPolicy ignored with labelSelectors",
        incoming()
            .node_selector(&[("foo", "")])
            .spread(1, "node", DNS, fs())
            .spread_with(|c| c.node_affinity_policy = Some("Ignore".into())),
        &nodes(),
        &existing(),
        &[("node-a", U), ("node-b", U), ("node-x", OK), ("node-y", U)],
    );
    let foo_in = || {
        crate::core::framework::plugins::test_util::required(vec![crate::core::framework::plugins::test_util::term(vec![
            crate::core::framework::plugins::test_util::req("foo", "In", &[""]),
        ])])
    };
    check_filter(
        "NodeAffinityPolicy honored with nodeAffinity",
        incoming().node_affinity(foo_in()).spread(1, "node", DNS, fs()),
        &nodes(),
        &existing(),
        &[("node-a", U), ("node-b", U), ("node-x", OK), ("node-y", OK)],
    );
    check_filter(
        "NodeAffinityPolicy ignored with nodeAffinity",
        incoming()
            .node_affinity(foo_in())
            .spread(1, "node", DNS, fs())
            .spread_with(|c| c.node_affinity_policy = Some("Ignore".into())),
        &nodes(),
        &existing(),
        &[("node-a", U), ("node-b", U), ("node-x", OK), ("node-y", U)],
    );
    let mut tainted = nodes();
    tainted[3] = node("node-y", &[("node", "node-y")]).taint("node.kubernetes.io/unschedulable", "", "NoSchedule");
    check_filter(
        "NodeTaintsPolicy honored",
        incoming().spread(1, "node", DNS, fs()).spread_with(|c| c.node_taints_policy = Some("Honor".into())),
        &tainted,
        &existing(),
        &[("node-a", U), ("node-b", U), ("node-x", OK), ("node-y", OK)],
    );
    check_filter(
        "NodeTaintsPolicy ignored",
        incoming().spread(1, "node", DNS, fs()),
        &tainted,
        &existing(),
        &[("node-a", U), ("node-b", U), ("node-x", OK), ("node-y", U)],
    );
}

#[test]
fn multiple_constraints() {
    // filtering_test.go TestMultipleConstraints.
    let fs = || exists_expr("foo");
    let bs = || exists_expr("bar");
    let two = |p: PodBuilder, a: Option<crate::core::api::LabelSelector>, b: Option<crate::core::api::LabelSelector>| {
        p.spread(1, "zone", DNS, a).spread(1, "node", DNS, b)
    };
    let spread = || {
        vec![
            foo("p-a1", "node-a"),
            foo("p-a2", "node-a"),
            foo("p-b1", "node-b"),
            foo("p-y1", "node-y"),
            foo("p-y2", "node-y"),
            foo("p-y3", "node-y"),
        ]
    };
    check_filter(
        "two Constraints on zone and node, spreads = [3/3, 2/1/0/3]",
        two(incoming(), fs(), fs()),
        &four_nodes(),
        &spread(),
        &[("node-a", U), ("node-b", U), ("node-x", OK), ("node-y", U)],
    );
    let mut more = spread();
    more.push(foo("p-y4", "node-y"));
    check_filter(
        "two Constraints on zone and node, spreads = [3/4, 2/1/0/4]",
        two(incoming(), fs(), fs()),
        &four_nodes(),
        &more,
        &[("node-a", U), ("node-b", U), ("node-x", U), ("node-y", U)],
    );
    let foobar = || incoming().labels(&[("bar", "")]);
    check_filter(
        "Constraints hold different labelSelectors, spreads = [1/0, 1/0/0/1]",
        two(foobar(), fs(), bs()),
        &four_nodes(),
        &[foo("p-a1", "node-a"), bar("p-y1", "node-y")],
        &[("node-a", U), ("node-b", U), ("node-x", OK), ("node-y", U)],
    );
    check_filter(
        "Constraints hold different labelSelectors, spreads = [1/0, 0/0/1/1]",
        two(foobar(), fs(), bs()),
        &four_nodes(),
        &[foo("p-a1", "node-a"), bar("p-x1", "node-x"), bar("p-y1", "node-y")],
        &[("node-a", U), ("node-b", U), ("node-x", U), ("node-y", U)],
    );
    check_filter(
        "Constraints hold different labelSelectors, spreads = [2/3, 1/0/0/1]",
        two(foobar(), fs(), bs()),
        &four_nodes(),
        &[
            foo("p-a1", "node-a"),
            foo("p-a2", "node-a").labels(&[("bar", "")]),
            foo("p-y1", "node-y"),
            foo("p-y2", "node-y").labels(&[("bar", "")]),
            foo("p-y3", "node-y"),
        ],
        &[("node-a", U), ("node-b", OK), ("node-x", U), ("node-y", U)],
    );
    check_filter(
        "Constraints hold different labelSelectors but pod doesn't match itself on 'zone' constraint",
        two(PodBuilder::new("p").labels(&[("bar", "")]), fs(), bs()),
        &four_nodes(),
        &[foo("p-a1", "node-a"), bar("p-x1", "node-x"), bar("p-y1", "node-y")],
        &[("node-a", OK), ("node-b", OK), ("node-x", U), ("node-y", U)],
    );
}

#[test]
fn match_label_keys_narrow_the_selector() {
    // common.go filterTopologySpreadConstraints: matchLabelKeys merge the pod's values.
    let p = incoming()
        .labels(&[("version", "v2")])
        .spread(1, "node", DNS, exists_expr("foo"))
        .spread_with(|c| c.match_label_keys = vec!["version".into()]);
    let old = |n: &str, node: &str| foo(n, node).labels(&[("version", "v1")]);
    check_filter(
        "old revision's pods do not count",
        p,
        &[node("node-a", &[("node", "node-a")]), node("node-b", &[("node", "node-b")])],
        &[old("p-a1", "node-a"), old("p-a2", "node-a"), foo("p-b1", "node-b").labels(&[("version", "v2")])],
        &[("node-a", OK), ("node-b", U)],
    );
}

#[test]
fn preemption_what_if_updates_counts() {
    // filtering.go AddPod/RemovePod: removing the pods of node-a makes it fit.
    let cache = cache_with(&four_nodes(), &[foo("p-a1", "node-a"), foo("p-a2", "node-a")]);
    let pl = list_plugin();
    let info = incoming().spread(1, "node", DNS, exists_expr("foo")).info();
    let mut state = None;
    pl.pre_filter(&cache, &info, &mut state);
    let a = cache.node_by_name("node-a").unwrap();
    assert_eq!(pl.filter(&cache, &info, a, &state).err().map(|r| r.code), U);
    let mut copy = pl.clone_state(&state);
    for p in a.pods.clone() {
        pl.remove_pod(&mut copy, &info, &p, a);
    }
    assert!(pl.filter(&cache, &info, a, &copy).is_ok());
    assert_eq!(pl.filter(&cache, &info, a, &state).err().map(|r| r.code), U, "the cycle's own state is untouched");
    let added = a.pods[0].clone();
    pl.add_pod(&mut copy, &info, &added, a);
    pl.add_pod(&mut copy, &info, &added, a);
    assert_eq!(pl.filter(&cache, &info, a, &copy).err().map(|r| r.code), U);
}

/// PreScore + Score + NormalizeScore over the feasible nodes, as TestPodTopologySpreadScore.
fn check_score(
    name: &str,
    pl: &PodTopologySpread,
    pod: PodBuilder,
    nodes: &[NodeBuilder],
    failed: &[&str],
    existing: &[PodBuilder],
    want: &[(&str, i64)],
) {
    let cache = cache_with(nodes, existing);
    let info = pod.info();
    let feasible: Vec<&NodeInfo> = nodes
        .iter()
        .map(|n| cache.node_by_name(&n.node.metadata.name).unwrap())
        .filter(|n| !failed.contains(&n.name()))
        .collect();
    let mut state = None;
    let out = pl.pre_score(&cache, &info, &feasible, &mut state);
    let mut scores: Vec<i64> = if out == PreScoreOutcome::Skip {
        vec![0; feasible.len()]
    } else {
        let mut raw: Vec<i64> = feasible.iter().map(|n| pl.score(&cache, &info, n, &state).unwrap()).collect();
        pl.normalize(&info, &mut raw, &state);
        raw
    };
    let got: Vec<(&str, i64)> = feasible.iter().map(|n| n.name()).zip(scores.drain(..)).collect();
    assert_eq!(got, want, "{name}");
}

/// Pods named `prefix1..=n` with label foo on `node`.
fn foos(prefix: &str, node: &str, n: usize) -> Vec<PodBuilder> {
    (1..=n).map(|i| foo(&format!("{prefix}{i}"), node)).collect()
}

fn hosts(names: &[&str]) -> Vec<NodeBuilder> {
    names.iter().map(|n| node(n, &[("kubernetes.io/hostname", n)])).collect()
}

fn zone_hosts(names: &[(&str, &str)]) -> Vec<NodeBuilder> {
    names.iter().map(|(n, z)| node(n, &[("zone", z), ("kubernetes.io/hostname", n)])).collect()
}

#[test]
fn pod_topology_spread_score() {
    // scoring_test.go TestPodTopologySpreadScore.
    let pl = list_plugin();
    let fs = || exists_expr("foo");
    let bs = || exists_expr("bar");
    let host_spread = |skew| incoming().spread(skew, "kubernetes.io/hostname", SA, fs());
    check_score(
        "one constraint on node, no existing pods",
        &pl,
        host_spread(1),
        &hosts(&["node-a", "node-b"]),
        &[],
        &[],
        &[("node-a", 100), ("node-b", 100)],
    );
    check_score(
        "one constraint on node, only one node is candidate",
        &pl,
        host_spread(1),
        &hosts(&["node-a", "node-b"]),
        &["node-b"],
        &[foo("p-a1", "node-a"), foo("p-a2", "node-a"), foo("p-b1", "node-b")],
        &[("node-a", 100)],
    );
    check_score(
        "one constraint on node, all nodes have the same number of matching pods",
        &pl,
        host_spread(1),
        &hosts(&["node-a", "node-b"]),
        &[],
        &[foo("p-a1", "node-a"), foo("p-b1", "node-b")],
        &[("node-a", 100), ("node-b", 100)],
    );
    let spread_2_1_0_3 = || [foos("p-a", "node-a", 2), foos("p-b", "node-b", 1), foos("p-d", "node-d", 3)].concat();
    let abcd = || hosts(&["node-a", "node-b", "node-c", "node-d"]);
    check_score(
        "one constraint on node, all 4 nodes are candidates",
        &pl,
        host_spread(1),
        &abcd(),
        &[],
        &spread_2_1_0_3(),
        &[("node-a", 20), ("node-b", 60), ("node-c", 100), ("node-d", 0)],
    );
    check_score(
        "one constraint on node, null selector",
        &pl,
        incoming().spread(1, "kubernetes.io/hostname", SA, None),
        &abcd(),
        &[],
        &spread_2_1_0_3(),
        &[("node-a", 100), ("node-b", 100), ("node-c", 100), ("node-d", 100)],
    );
    check_score(
        "one constraint on node, all 4 nodes are candidates, maxSkew=2",
        &pl,
        host_spread(2),
        &abcd(),
        &[],
        &spread_2_1_0_3(),
        &[("node-a", 33), ("node-b", 66), ("node-c", 100), ("node-d", 16)],
    );
    let spread_4_3_2_1 =
        || [foos("p-a", "node-a", 4), foos("p-b", "node-b", 3), foos("p-c", "node-c", 2), foos("p-d", "node-d", 1)].concat();
    check_score(
        "one constraint on node, all 4 nodes are candidates, maxSkew=3",
        &pl,
        host_spread(3),
        &abcd(),
        &[],
        &spread_4_3_2_1(),
        &[("node-a", 44), ("node-b", 66), ("node-c", 77), ("node-d", 100)],
    );
    let spread_4_2_1_3 =
        || [foos("p-a", "node-a", 4), foos("p-b", "node-b", 2), foos("p-x", "node-x", 1), foos("p-y", "node-y", 3)].concat();
    check_score(
        "one constraint on node, 3 out of 4 nodes are candidates",
        &pl,
        host_spread(1),
        &hosts(&["node-a", "node-b", "node-x", "node-y"]),
        &["node-y"],
        &spread_4_2_1_3(),
        &[("node-a", 33), ("node-b", 83), ("node-x", 100)],
    );
    let mut odd = hosts(&["node-a", "node-b", "node-x", "node-y"]);
    odd[1] = node("node-b", &[("n", "node-b")]);
    check_score(
        "one constraint on node, 3 out of 4 nodes are candidates, one node doesn't match topology key",
        &pl,
        host_spread(1),
        &odd,
        &["node-y"],
        &spread_4_2_1_3(),
        &[("node-a", 16), ("node-b", 0), ("node-x", 100)],
    );
    let zones = || zone_hosts(&[("node-a", "zone1"), ("node-b", "zone1"), ("node-x", "zone2"), ("node-y", "zone2")]);
    check_score(
        "one constraint on zone, 3 out of 4 nodes are candidates",
        &pl,
        incoming().spread(1, "zone", SA, fs()),
        &zones(),
        &["node-y"],
        &spread_4_2_1_3(),
        &[("node-a", 75), ("node-b", 75), ("node-x", 100)],
    );
    check_score(
        "two Constraints on zone and node, 2 out of 4 nodes are candidates",
        &pl,
        incoming().spread(1, "zone", SA, fs()).spread(1, "kubernetes.io/hostname", SA, fs()),
        &zones(),
        &["node-b", "node-y"],
        &[foos("p-a", "node-a", 2), foos("p-b", "node-b", 1), foos("p-x", "node-x", 2), foos("p-y", "node-y", 4)].concat(),
        &[("node-a", 100), ("node-x", 63)],
    );
    let two_selectors =
        || incoming().labels(&[("bar", "")]).spread(1, "zone", SA, fs()).spread(1, "kubernetes.io/hostname", SA, bs());
    let mixed = || {
        vec![foo("p-a1", "node-a"), foo("p-b1", "node-b").labels(&[("bar", "")]), foo("p-y1", "node-y"), bar("p-y2", "node-y")]
    };
    check_score(
        "two Constraints on zone and node, with different labelSelectors",
        &pl,
        two_selectors(),
        &zones(),
        &[],
        &mixed(),
        &[("node-a", 60), ("node-b", 20), ("node-x", 100), ("node-y", 60)],
    );
    check_score(
        "two Constraints on zone and node, with different labelSelectors, some nodes have 0 pods",
        &pl,
        two_selectors(),
        &zones(),
        &[],
        &[bar("p-b1", "node-b"), foo("p-x1", "node-x"), foo("p-y1", "node-y").labels(&[("bar", "")])],
        &[("node-a", 100), ("node-b", 60), ("node-x", 40), ("node-y", 0)],
    );
    check_score(
        "two Constraints on zone and node, with different labelSelectors, 3 out of 4 nodes are candidates",
        &pl,
        two_selectors(),
        &zones(),
        &["node-y"],
        &mixed(),
        &[("node-a", 50), ("node-b", 25), ("node-x", 100)],
    );
    check_score(
        "existing pods in a different namespace do not count",
        &pl,
        host_spread(1),
        &hosts(&["node-a", "node-b"]),
        &[],
        &[foo("p-a1", "node-a").namespace("ns1"), foo("p-a2", "node-a"), foo("p-b1", "node-b"), foo("p-b2", "node-b")],
        &[("node-a", 100), ("node-b", 33)],
    );
    check_score(
        "terminating Pods should be excluded",
        &pl,
        host_spread(1),
        &hosts(&["node-a", "node-b"]),
        &[],
        &[foo("p-a", "node-a").terminating(), foo("p-b", "node-b")],
        &[("node-a", 100), ("node-b", 0)],
    );
    let abc = || {
        vec![node("node-a", &[("node", "node-a")]), node("node-b", &[("node", "node-b")]), node("node-c", &[("node", "node-c")])]
    };
    check_score(
        "minDomains has no effect when ScheduleAnyway",
        &pl,
        incoming().spread(2, "node", SA, fs()).spread_with(|c| c.min_domains = Some(10)),
        &abc(),
        &[],
        &[foos("p-a", "node-a", 2), foos("p-b", "node-b", 2), foos("p-c", "node-c", 1)].concat(),
        &[("node-a", 75), ("node-b", 75), ("node-c", 100)],
    );
    let foo_nodes = || {
        vec![
            node("node-a", &[("node", "node-a"), ("foo", "")]),
            node("node-b", &[("node", "node-b"), ("foo", "")]),
            node("node-c", &[("node", "node-c")]),
        ]
    };
    let pods_2_1_1 = || [foos("p-a", "node-a", 2), foos("p-b", "node-b", 1), foos("p-c", "node-c", 1)].concat();
    check_score(
        "NodeAffinityPolicy honoed with labelSelectors",
        &pl,
        incoming().node_selector(&[("foo", "")]).spread(1, "node", SA, fs()),
        &foo_nodes(),
        &[],
        &pods_2_1_1(),
        &[("node-a", 0), ("node-b", 33), ("node-c", 100)],
    );
    check_score(
        "NodeAffinityPolicy ignored with labelSelectors",
        &pl,
        incoming()
            .node_selector(&[("foo", "")])
            .spread(1, "node", SA, fs())
            .spread_with(|c| c.node_affinity_policy = Some("Ignore".into())),
        &foo_nodes(),
        &[],
        &pods_2_1_1(),
        &[("node-a", 66), ("node-b", 100), ("node-c", 100)],
    );
    let tainted = || {
        vec![
            node("node-a", &[("node", "node-a")]),
            node("node-b", &[("node", "node-b")]),
            node("node-c", &[("node", "node-c")]).taint("node.kubernetes.io/unschedulable", "", "NoSchedule"),
        ]
    };
    check_score(
        "NodeTaintsPolicy honored",
        &pl,
        incoming().spread(1, "node", SA, fs()).spread_with(|c| c.node_taints_policy = Some("Honor".into())),
        &tainted(),
        &[],
        &pods_2_1_1(),
        &[("node-a", 0), ("node-b", 33), ("node-c", 100)],
    );
    check_score(
        "NodeTaintsPolicy ignored",
        &pl,
        incoming().spread(1, "node", SA, fs()),
        &tainted(),
        &[],
        &pods_2_1_1(),
        &[("node-a", 66), ("node-b", 100), ("node-c", 100)],
    );
}

#[test]
fn system_default_constraints_follow_services() {
    // scoring_test.go TestPodTopologySpreadScore "system defaulting, nodes don't have zone, pods
    // match service": the Service selecting the pod drives the default constraints, and nodes
    // without a zone label still get hostname spreading.
    let pl = PodTopologySpread::default();
    let nodes = hosts(&["node-a", "node-b", "node-c", "node-d"]);
    let existing =
        [foos("p-a", "node-a", 4), foos("p-b", "node-b", 3), foos("p-c", "node-c", 2), foos("p-d", "node-d", 1)].concat();
    // Without a Service nothing selects the pod: no default constraints.
    let cache = cache_with(&nodes, &existing);
    let info = incoming().info();
    let feasible: Vec<&NodeInfo> = cache.nodes().collect();
    assert_eq!(pl.pre_score(&cache, &info, &feasible, &mut None), PreScoreOutcome::Skip);
    let mut svc = crate::core::api::Service::default();
    svc.metadata.namespace = "default".into();
    svc.metadata.name = "svc".into();
    svc.spec.selector = Some([("foo".to_string(), String::new())].into_iter().collect());
    let mut cache = cache_with(&nodes, &existing);
    cache.cluster.upsert_service(&svc);
    let feasible: Vec<&NodeInfo> =
        ["node-a", "node-b", "node-c", "node-d"].iter().map(|n| cache.node_by_name(n).unwrap()).collect();
    let mut state = None;
    assert_eq!(pl.pre_score(&cache, &info, &feasible, &mut state), PreScoreOutcome::Run);
    let mut raw: Vec<i64> = feasible.iter().map(|n| pl.score(&cache, &info, n, &state).unwrap()).collect();
    pl.normalize(&info, &mut raw, &state);
    assert_eq!(raw, [44, 66, 77, 100], "same scores as one hostname constraint with maxSkew 3");
    assert!(matches!(pl.pre_filter(&cache, &info, &mut None), PreFilterOutcome::Skip), "defaults are ScheduleAnyway only");
}

#[test]
fn args_are_validated_as_upstream() {
    // plugin.go New → ValidatePodTopologySpreadArgs: System defaulting takes no constraints.
    let args = PodTopologySpreadArgs {
        default_constraints: vec![crate::core::api::TopologySpreadConstraint {
            max_skew: 1,
            topology_key: "zone".into(),
            when_unsatisfiable: SA.into(),
            ..Default::default()
        }],
        defaulting_type: DefaultingType::System,
        ..Default::default()
    };
    let err = PodTopologySpread::new(&args).unwrap_err();
    assert!(err.starts_with("defaultingType: Invalid value"), "{err}");
    let list = PodTopologySpreadArgs { defaulting_type: DefaultingType::List, ..args };
    let pl = PodTopologySpread::new(&list).unwrap();
    assert!(!pl.system_defaulted);
    assert!(PodTopologySpread::from_args(Some(&crate::core::config::PluginArgs::InterPodAffinity(Default::default()))).is_err());
}
