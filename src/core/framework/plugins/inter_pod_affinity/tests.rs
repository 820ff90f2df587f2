//! Conformance tests transcribed from upstream's test tables:
//! pkg/scheduler/framework/plugins/interpodaffinity/filtering_test.go
//! (TestRequiredAffinitySingleNode, TestRequiredAffinityMultipleNodes) and scoring_test.go
//! (TestPreferredAffinity, TestPreferredAffinityWithHardPodAffinitySymmetricWeight). Case names
//! are quoted. Expectations follow the current upstream table (older copies also listed the
//! obsolete aggregate reason "node(s) didn't match pod affinity/anti-affinity" and reported the
//! symmetry cases b1/b2 as existing-pod anti-affinity, from a different check order).

use super::*;
use crate::core::api;
use crate::core::framework::plugins::test_util::{cache_with, pod_term, sel_req, selector, NodeBuilder, PodBuilder};
use crate::core::framework::Code;
use crate::core::texts::inter_pod_affinity::{
    ERR_REASON_AFFINITY_RULES_NOT_MATCH, ERR_REASON_ANTI_AFFINITY_RULES_NOT_MATCH,
    ERR_REASON_EXISTING_ANTI_AFFINITY_RULES_NOT_MATCH,
};

type Want = Option<(Code, &'static str)>;
const OK: Want = None;
const AFF: Want = Some((Code::UnschedulableAndUnresolvable, ERR_REASON_AFFINITY_RULES_NOT_MATCH));
const ANTI: Want = Some((Code::Unschedulable, ERR_REASON_ANTI_AFFINITY_RULES_NOT_MATCH));
const EXISTING: Want = Some((Code::Unschedulable, ERR_REASON_EXISTING_ANTI_AFFINITY_RULES_NOT_MATCH));

fn plugin() -> InterPodAffinity {
    InterPodAffinity::from_args(None).unwrap()
}

fn node(name: &str, labels: &[(&str, &str)]) -> NodeBuilder {
    NodeBuilder::new(name).labels(labels)
}

/// A term `key op values` over `topology_key`.
fn t(key: &str, op: &str, values: &[&str], topology_key: &str) -> api::PodAffinityTerm {
    pod_term(Some(selector(vec![sel_req(key, op, values)])), topology_key)
}

/// A term with several ANDed requirements.
fn t2(reqs: Vec<api::LabelSelectorRequirement>, topology_key: &str) -> api::PodAffinityTerm {
    pod_term(Some(selector(reqs)), topology_key)
}

/// `createPodWithAffinityTerms(ns, node, labels, affinity, antiAffinity)`.
fn pod(
    name: &str,
    node: &str,
    labels: &[(&str, &str)],
    aff: Vec<api::PodAffinityTerm>,
    anti: Vec<api::PodAffinityTerm>,
) -> PodBuilder {
    let mut p = PodBuilder::new(name).labels(labels);
    if !node.is_empty() {
        p = p.node_name(node);
    }
    for a in aff {
        p = p.pod_affinity_required(a);
    }
    for a in anti {
        p = p.pod_anti_affinity_required(a);
    }
    p
}

/// PreFilter once, then Filter each node; compare code and reason.
fn check(name: &str, incoming: PodBuilder, existing: &[PodBuilder], nodes: &[NodeBuilder], want: &[Want]) {
    check_ns(name, incoming, existing, nodes, &[], want);
}

/// [`check`] with namespaces `(name, team label)` known to the cache.
fn check_ns(
    name: &str,
    incoming: PodBuilder,
    existing: &[PodBuilder],
    nodes: &[NodeBuilder],
    namespaces: &[(&str, &str)],
    want: &[Want],
) {
    let mut cache = cache_with(nodes, existing);
    for (n, team) in namespaces {
        let mut ns = api::Namespace::default();
        ns.metadata.name = n.to_string();
        ns.metadata.labels.insert("team".into(), team.to_string());
        cache.cluster.upsert_namespace(&ns);
    }
    cache.verify_pod_index().unwrap();
    let pl = plugin();
    let info = incoming.info();
    let mut state = None;
    let pre = pl.pre_filter(&cache, &info, &mut state);
    assert!(!matches!(pre, PreFilterOutcome::Reject(_)), "{name}: {pre:?}");
    let skip = matches!(pre, PreFilterOutcome::Skip);
    for (n, w) in nodes.iter().zip(want) {
        let ni = cache.node_by_name(&n.node.metadata.name).unwrap();
        let got = if skip { Ok(()) } else { pl.filter(&cache, &info, ni, &state) };
        let got = got.err().map(|r| (r.code, r.reasons.first().map(|s| s.to_string()).unwrap_or_default()));
        let want = w.map(|(c, r)| (c, r.to_string()));
        assert_eq!(got, want, "{name}: node {}", n.node.metadata.name);
    }
}

const SEC: (&str, &str) = ("service", "securityscan");
const S1: (&str, &str) = ("security", "S1");

#[test]
fn required_affinity_single_node() {
    // filtering_test.go TestRequiredAffinitySingleNode.
    let node1 = || vec![node("machine1", &[("region", "r1"), ("zone", "z11")])];
    let plain = || vec![PodBuilder::new("e").node_name("machine1").labels(&[SEC])];
    check(
        "A pod that has no required pod affinity scheduling rules can schedule onto a node with no existing pods",
        PodBuilder::new("p"),
        &[],
        &node1(),
        &[OK],
    );
    check(
        "satisfies with requiredDuringSchedulingIgnoredDuringExecution in PodAffinity using In operator that matches the existing pod",
        pod("p", "", &[S1], vec![t("service", "In", &["securityscan", "value2"], "region")], vec![]),
        &plain(),
        &node1(),
        &[OK],
    );
    check(
        "satisfies the pod with requiredDuringSchedulingIgnoredDuringExecution in PodAffinity using not in operator in labelSelector that matches the existing pod",
        pod("p", "", &[S1], vec![t("service", "NotIn", &["securityscan3", "value3"], "region")], vec![]),
        &plain(),
        &node1(),
        &[OK],
    );
    let mut diff_ns = t("service", "In", &["securityscan", "value2"], "");
    diff_ns.namespaces = vec!["DiffNameSpace".into()];
    check(
        "Does not satisfy the PodAffinity with labelSelector because of diff Namespace",
        pod("p", "", &[S1], vec![diff_ns], vec![]),
        &[PodBuilder::new("e").node_name("machine1").labels(&[SEC]).namespace("ns")],
        &node1(),
        &[AFF],
    );
    check(
        "Doesn't satisfy the PodAffinity because of unmatching labelSelector with the existing pod",
        pod("p", "", &[SEC], vec![t("service", "In", &["antivirusscan", "value2"], "")], vec![]),
        &plain(),
        &node1(),
        &[AFF],
    );
    let multi = |second: &str| {
        vec![
            t2(vec![sel_req("service", "Exists", &[]), sel_req("wrongkey", "DoesNotExist", &[])], "region"),
            t2(vec![sel_req("service", "In", &[second]), sel_req("service", "NotIn", &["WrongValue"])], "region"),
        ]
    };
    check(
        "satisfies the PodAffinity with different label Operators in multiple RequiredDuringSchedulingIgnoredDuringExecution ",
        pod("p", "", &[S1], multi("securityscan"), vec![]),
        &plain(),
        &node1(),
        &[OK],
    );
    check(
        "The labelSelector requirements(items of matchExpressions) are ANDed, the pod cannot schedule onto the node because one of the matchExpression item don't match.",
        pod("p", "", &[S1], multi("securityscan2"), vec![]),
        &plain(),
        &node1(),
        &[AFF],
    );
    let aff_region = || vec![t("service", "In", &["securityscan", "value2"], "region")];
    let anti_node = || vec![t("service", "In", &["antivirusscan", "value2"], "node")];
    check(
        "satisfies the PodAffinity and PodAntiAffinity with the existing pod",
        pod("p", "", &[S1], aff_region(), anti_node()),
        &plain(),
        &node1(),
        &[OK],
    );
    check(
        "satisfies the PodAffinity and PodAntiAffinity and PodAntiAffinity symmetry with the existing pod",
        pod("p", "", &[S1], aff_region(), anti_node()),
        &[pod("e", "machine1", &[SEC], vec![], anti_node())],
        &node1(),
        &[OK],
    );
    check(
        "satisfies the PodAffinity but doesn't satisfy the PodAntiAffinity with the existing pod",
        pod("p", "", &[S1], aff_region(), vec![t("service", "In", &["securityscan", "value2"], "zone")]),
        &plain(),
        &node1(),
        &[ANTI],
    );
    check(
        "satisfies the PodAffinity and PodAntiAffinity but doesn't satisfy PodAntiAffinity symmetry with the existing pod",
        pod("p", "", &[SEC], aff_region(), anti_node()),
        &[pod("e", "machine1", &[SEC], vec![], vec![t("service", "In", &["securityscan", "value2"], "zone")])],
        &node1(),
        &[EXISTING],
    );
    check(
        "pod matches its own Label in PodAffinity and that matches the existing pod Labels",
        pod("p", "", &[SEC], vec![t("service", "NotIn", &["securityscan", "value2"], "region")], vec![]),
        &[PodBuilder::new("e").node_name("machine2").labels(&[SEC])],
        &node1(),
        &[AFF],
    );
    check(
        "verify that PodAntiAffinity from existing pod is respected when pod has no AntiAffinity constraints. doesn't satisfy PodAntiAffinity symmetry with the existing pod",
        PodBuilder::new("p").labels(&[SEC]),
        &[pod("e", "machine1", &[SEC], vec![], vec![t("service", "In", &["securityscan", "value2"], "zone")])],
        &node1(),
        &[EXISTING],
    );
    check(
        "verify that PodAntiAffinity from existing pod is respected when pod has no AntiAffinity constraints. satisfy PodAntiAffinity symmetry with the existing pod",
        PodBuilder::new("p").labels(&[SEC]),
        &[pod("e", "machine1", &[SEC], vec![], vec![t("service", "NotIn", &["securityscan", "value2"], "zone")])],
        &node1(),
        &[OK],
    );
    check(
        "satisfies the PodAntiAffinity with existing pod but doesn't satisfy PodAntiAffinity symmetry with incoming pod",
        pod("p", "", &[SEC], vec![], vec![t("service", "Exists", &[], "region"), t("security", "Exists", &[], "region")]),
        &[pod("e", "machine1", &[S1], vec![], vec![t("security", "Exists", &[], "zone")])],
        &node1(),
        &[ANTI],
    );
    let both = || vec![t("abc", "Exists", &[], "zone"), t("def", "Exists", &[], "zone")];
    check(
        "PodAntiAffinity symmetry check b1: incoming pod and existing pod partially match each other on AffinityTerms",
        pod("p", "", &[("abc", ""), ("xyz", "")], vec![], both()),
        &[pod("e", "machine1", &[("def", ""), ("xyz", "")], vec![], both())],
        &node1(),
        &[ANTI],
    );
    check(
        "PodAntiAffinity symmetry check b2: incoming pod and existing pod partially match each other on AffinityTerms",
        pod("p", "", &[("def", ""), ("xyz", "")], vec![], both()),
        &[pod("e", "machine1", &[("abc", ""), ("xyz", "")], vec![], both())],
        &node1(),
        &[ANTI],
    );
    check(
        "PodAntiAffinity symmetry check a2: incoming pod and existing pod partially match each other on AffinityTerms",
        pod("p", "", &[S1], vec![], vec![t("security", "Exists", &[], "zone")]),
        &[pod("e", "machine1", &[SEC], vec![], vec![t("service", "Exists", &[], "zone"), t("security", "Exists", &[], "zone")])],
        &node1(),
        &[EXISTING],
    );
}

#[test]
fn required_affinity_namespace_selector() {
    // filtering_test.go TestRequiredAffinitySingleNode (namespaceSelector cases).
    let node1 = || vec![node("node1", &[("region", "r1"), ("zone", "z11")])];
    let namespaces = [("subteam1.team1", "team1"), ("subteam2.team1", "team1"), ("subteam1.team2", "team2")];
    let with_ns = |mut term: api::PodAffinityTerm, sel: Option<api::LabelSelector>| {
        term.namespace_selector = sel;
        term
    };
    let team1 = || Some(selector(vec![sel_req("team", "In", &["team1"])]));
    let sec = |topology: &str| t("service", "In", &["securityscan", "value2"], topology);
    let existing_in = |ns: &str| vec![PodBuilder::new("e").node_name("node1").labels(&[SEC]).namespace(ns)];
    check_ns(
        "affinity with NamespaceSelector",
        pod("p", "", &[S1], vec![with_ns(sec("region"), team1())], vec![]),
        &existing_in("subteam1.team1"),
        &node1(),
        &namespaces,
        &[OK],
    );
    check_ns(
        "affinity with non-matching NamespaceSelector",
        pod("p", "", &[S1], vec![with_ns(sec("region"), team1())], vec![]),
        &existing_in("subteam1.team2"),
        &node1(),
        &namespaces,
        &[AFF],
    );
    check_ns(
        "anti-affinity with matching NamespaceSelector",
        pod("p", "", &[S1], vec![], vec![with_ns(sec("zone"), team1())]).namespace("subteam1.team1"),
        &existing_in("subteam2.team1"),
        &node1(),
        &namespaces,
        &[ANTI],
    );
    check_ns(
        "anti-affinity with matching all NamespaceSelector",
        pod("p", "", &[S1], vec![], vec![with_ns(sec("zone"), Some(api::LabelSelector::default()))]).namespace("subteam1.team1"),
        &existing_in("subteam2.team1"),
        &node1(),
        &namespaces,
        &[ANTI],
    );
    check_ns(
        "anti-affinity with non-matching NamespaceSelector",
        pod("p", "", &[S1], vec![], vec![with_ns(sec("zone"), team1())]).namespace("subteam1.team1"),
        &existing_in("subteam1.team2"),
        &node1(),
        &namespaces,
        &[OK],
    );
}

#[test]
fn invalid_terms_fail_prefilter() {
    // filtering_test.go TestRequiredAffinitySingleNode "PodAffinity fails PreFilter with an
    // invalid affinity label syntax": UnschedulableAndUnresolvable "parsing pod: ...".
    let cache = cache_with(&[node("node1", &[("region", "r1")])], &[]);
    let info = pod("p", "", &[SEC], vec![t("service", "In", &["{{.bad-value.}}"], "region")], vec![]).info();
    match plugin().pre_filter(&cache, &info, &mut None) {
        PreFilterOutcome::Reject(r) => {
            assert_eq!(r.code, Code::UnschedulableAndUnresolvable);
            assert!(r.message().starts_with("parsing pod: requiredAffinityTerms: "), "{}", r.message());
        }
        other => panic!("{other:?}"),
    }
}

#[test]
fn required_affinity_multiple_nodes() {
    // filtering_test.go TestRequiredAffinityMultipleNodes.
    let china = [("region", "China")];
    let china_az1 = [("region", "China"), ("az", "az1")];
    let india = [("region", "India")];
    check(
        "A pod can be scheduled onto all the nodes that have the same topology key & label value with one of them has an existing pod that matches the affinity rules",
        pod("p", "", &[], vec![t("foo", "In", &["bar"], "region")], vec![]),
        &[PodBuilder::new("p1").node_name("machine1").labels(&[("foo", "bar")])],
        &[node("machine1", &china), node("machine2", &china_az1), node("machine3", &india)],
        &[OK, OK, AFF],
    );
    check(
        "The affinity rule is to schedule all of the pods of this collection to the same zone. The first pod of the collection should not be blocked from being scheduled onto any node, even there's no existing pod that matches the rule anywhere.",
        pod(
            "p",
            "",
            &[("foo", "bar"), SEC],
            vec![t("foo", "In", &["bar"], "zone"), t("service", "In", &["securityscan"], "zone")],
            vec![],
        ),
        &[PodBuilder::new("p1").node_name("nodeA").labels(&[("foo", "bar")])],
        &[node("nodeA", &[("zone", "az1"), ("hostname", "h1")]), node("nodeB", &[("zone", "az2"), ("hostname", "h2")])],
        &[OK, OK],
    );
    check(
        "The first pod of the collection can only be scheduled on nodes labelled with the requested topology keys",
        pod(
            "p",
            "",
            &[("foo", "bar"), SEC],
            vec![t("foo", "In", &["bar"], "zone"), t("service", "In", &["securityscan"], "zone")],
            vec![],
        ),
        &[PodBuilder::new("p1").node_name("nodeA").labels(&[("foo", "bar")])],
        &[node("nodeA", &[("zoneLabel", "az1"), ("hostname", "h1")]), node("nodeB", &[("zoneLabel", "az2"), ("hostname", "h2")])],
        &[AFF, AFF],
    );
    check(
        "NodeA and nodeB have same topologyKey and label value. NodeA has an existing pod that matches the inter pod affinity rule. The pod can not be scheduled onto nodeA and nodeB.",
        pod("p", "", &[], vec![], vec![t("foo", "In", &["abc"], "region")]),
        &[PodBuilder::new("e").node_name("nodeA").labels(&[("foo", "abc")])],
        &[node("nodeA", &[("region", "r1"), ("hostname", "nodeA")]), node("nodeB", &[("region", "r1"), ("hostname", "nodeB")])],
        &[ANTI, ANTI],
    );
    check(
        "This test ensures that anti-affinity matches a pod when any term of the anti-affinity rule matches a pod.",
        pod("p", "", &[], vec![], vec![t("foo", "In", &["abc"], "region"), t("service", "In", &["securityscan"], "zone")]),
        &[PodBuilder::new("e").node_name("nodeA").labels(&[("foo", "abc"), SEC])],
        &[
            node("nodeA", &[("region", "r1"), ("zone", "z1"), ("hostname", "nodeA")]),
            node("nodeB", &[("region", "r1"), ("zone", "z2"), ("hostname", "nodeB")]),
        ],
        &[ANTI, ANTI],
    );
    check(
        "NodeA and nodeB have same topologyKey and label value. NodeA has an existing pod that matches the inter pod affinity rule. The pod can not be scheduled onto nodeA and nodeB but can be scheduled onto nodeC",
        pod("p", "", &[], vec![], vec![t("foo", "In", &["abc"], "region")]),
        &[PodBuilder::new("e").node_name("nodeA").labels(&[("foo", "abc")])],
        &[node("nodeA", &china), node("nodeB", &china_az1), node("nodeC", &india)],
        &[ANTI, ANTI, OK],
    );
    check(
        "NodeA and nodeB have same topologyKey and label value. NodeA has an existing pod that matches the inter pod affinity rule. The pod can not be scheduled onto nodeA, nodeB, but can be scheduled onto nodeC (NodeC has an existing pod that match the inter pod affinity rule but in different namespace)",
        pod("p", "", &[("foo", "123")], vec![], vec![t("foo", "In", &["bar"], "region")]).namespace("NS1"),
        &[
            PodBuilder::new("e1").node_name("nodeA").labels(&[("foo", "bar")]).namespace("NS1"),
            pod("e2", "nodeC", &[], vec![], vec![t("foo", "In", &["123"], "region")]).namespace("NS2"),
        ],
        &[node("nodeA", &china), node("nodeB", &china_az1), node("nodeC", &india)],
        &[ANTI, ANTI, OK],
    );
    check(
        "Test existing pod's anti-affinity: if an existing pod has a term with invalid topologyKey, labelSelector of the term is fi... (name truncated in the stored upstream copy)",
        PodBuilder::new("p").labels(&[("foo", "")]),
        &[pod("e", "nodeA", &[], vec![], vec![t("foo", "Exists", &[], "invalid-node-label")])],
        &[
            node("nodeA", &[("region", "r1"), ("zone", "z1"), ("hostname", "nodeA")]),
            node("nodeB", &[("region", "r1"), ("zone", "z1"), ("hostname", "nodeB")]),
        ],
        &[OK, OK],
    );
}

#[test]
fn namespace_selector_uses_namespace_labels() {
    // types.go AffinityTerm.Matches + mergeAffinityTermNamespacesIfNotEmpty.
    let mut term = t("app", "In", &["db"], "zone");
    term.namespace_selector = Some(selector(vec![sel_req("team", "In", &["a"])]));
    let nodes = [node("n1", &[("zone", "z1")]), node("n2", &[("zone", "z2")])];
    let existing = [PodBuilder::new("db").node_name("n1").labels(&[("app", "db")]).namespace("team-a")];
    let mut cache = cache_with(&nodes, &existing);
    let pl = plugin();
    let info = pod("p", "", &[], vec![term], vec![]).info();
    let run = |cache: &Cache| {
        let mut st = None;
        pl.pre_filter(cache, &info, &mut st);
        ["n1", "n2"].map(|n| pl.filter(cache, &info, cache.node_by_name(n).unwrap(), &st).is_ok())
    };
    // The namespace is unknown: its pods are not selected, and the pod does not match its own
    // term either (its namespace is not selected), so no node fits.
    assert_eq!(run(&cache), [false, false]);
    let mut ns = api::Namespace::default();
    ns.metadata.name = "team-a".into();
    ns.metadata.labels.insert("team".into(), "a".into());
    cache.cluster.upsert_namespace(&ns);
    assert_eq!(run(&cache), [true, false]);
}

#[test]
fn preemption_what_if_updates_counts() {
    // filtering.go AddPod/RemovePod: removing the existing anti-affinity pod frees the node.
    let existing = [pod("e", "n1", &[SEC], vec![], vec![t("service", "Exists", &[], "zone")])];
    let cache = cache_with(&[node("n1", &[("zone", "z1")])], &existing);
    let pl = plugin();
    let info = PodBuilder::new("p").labels(&[SEC]).info();
    let mut st = None;
    pl.pre_filter(&cache, &info, &mut st);
    let n1 = cache.node_by_name("n1").unwrap();
    assert_eq!(pl.filter(&cache, &info, n1, &st).err().map(|r| r.code), Some(Code::Unschedulable));
    let mut copy = pl.clone_state(&st);
    let victim = n1.pods[0].clone();
    pl.remove_pod(&mut copy, &info, &victim, n1);
    assert!(pl.filter(&cache, &info, n1, &copy).is_ok());
    pl.add_pod(&mut copy, &info, &victim, n1);
    assert!(pl.filter(&cache, &info, n1, &copy).is_err());
}

/// PreScore + Score + NormalizeScore over every node (`None`: PreScore skipped).
fn check_score(
    name: &str,
    args: &crate::core::config::InterPodAffinityArgs,
    incoming: PodBuilder,
    existing: &[PodBuilder],
    nodes: &[NodeBuilder],
    want: Option<&[i64]>,
) {
    let mut cache = cache_with(nodes, existing);
    for (n, team) in
        [("subteam1.team1", "team1"), ("subteam2.team1", "team1"), ("subteam1.team2", "team2"), ("subteam2.team2", "team2")]
    {
        let mut ns = api::Namespace::default();
        ns.metadata.name = n.to_string();
        ns.metadata.labels.insert("team".into(), team.to_string());
        cache.cluster.upsert_namespace(&ns);
    }
    let pl = InterPodAffinity::new(args).unwrap();
    let info = incoming.info();
    let feasible: Vec<&NodeInfo> = nodes.iter().map(|n| cache.node_by_name(&n.node.metadata.name).unwrap()).collect();
    let mut state = None;
    let out = pl.pre_score(&cache, &info, &feasible, &mut state);
    let got = (out == PreScoreOutcome::Run).then(|| {
        let mut raw: Vec<i64> = feasible.iter().map(|n| pl.score(&cache, &info, n, &state).unwrap()).collect();
        pl.normalize(&info, &mut raw, &state);
        raw
    });
    assert_eq!(got.as_deref(), want, "{name}");
}

/// A weighted term `security In (value)` over `topology_key`.
fn sec_in(value: &str, topology_key: &str) -> api::PodAffinityTerm {
    t("security", "In", &[value], topology_key)
}

fn s1() -> PodBuilder {
    PodBuilder::new("p").labels(&[("security", "S1")])
}

fn on(node: &str, security: &str) -> PodBuilder {
    PodBuilder::new(&format!("{node}-{security}-{}", security.len())).node_name(node).labels(&[("security", security)])
}

/// Unique existing pod names.
fn named(mut pods: Vec<PodBuilder>) -> Vec<PodBuilder> {
    for (i, p) in pods.iter_mut().enumerate() {
        p.pod.metadata.name = format!("e{i}");
    }
    pods
}

fn stay_with_s1_in_region(p: PodBuilder) -> PodBuilder {
    p.pod_affinity_preferred(5, sec_in("S1", "region"))
}

fn stay_with_s2_in_region(p: PodBuilder) -> PodBuilder {
    p.pod_affinity_preferred(6, sec_in("S2", "region"))
}

fn away_from_s1_in_az(p: PodBuilder) -> PodBuilder {
    p.pod_anti_affinity_preferred(5, sec_in("S1", "az"))
}

fn away_from_s2_in_az(p: PodBuilder) -> PodBuilder {
    p.pod_anti_affinity_preferred(5, sec_in("S2", "az"))
}

fn stay_s1_away_s2(p: PodBuilder) -> PodBuilder {
    p.pod_affinity_preferred(8, sec_in("S1", "region")).pod_anti_affinity_preferred(5, sec_in("S2", "az"))
}

fn with_ns_selector(mut term: api::PodAffinityTerm) -> api::PodAffinityTerm {
    term.namespaces = vec!["subteam2.team2".into()];
    term.namespace_selector = Some(selector(vec![sel_req("team", "In", &["team1"])]));
    term
}

#[test]
fn preferred_affinity() {
    // scoring_test.go TestPreferredAffinity.
    let args = crate::core::config::InterPodAffinityArgs::default();
    let china = [("region", "China")];
    let india = [("region", "India")];
    let az1 = [("az", "az1")];
    let az2 = [("az", "az2")];
    let china_az1 = [("region", "China"), ("az", "az1")];
    let three = || vec![node("node1", &china), node("node2", &india), node("node3", &az1)];
    check_score("all nodes are same priority as Affinity is nil", &args, s1(), &[], &three(), None);
    check_score(
        "Affinity: pod that matches topology key & pods in nodes will get high score comparing to otherswhich doesn't match either pods in nodes or in topology key",
        &args,
        stay_with_s1_in_region(s1()),
        &named(vec![on("node1", "S1"), on("node2", "S2"), on("node3", "S1")]),
        &three(),
        Some(&[100, 0, 0]),
    );
    check_score(
        "All the nodes that have the same topology key & label value with one of them has an existing pod that match the affinity rules, have the same score",
        &args,
        stay_with_s1_in_region(PodBuilder::new("p")),
        &named(vec![on("node1", "S1")]),
        &[node("node1", &china), node("node2", &china_az1), node("node3", &india)],
        Some(&[100, 100, 0]),
    );
    check_score(
        "Affinity: nodes in one region has more matching pods comparing to other region, so the region which has more matches will get high score",
        &args,
        stay_with_s2_in_region(s1()),
        &named(vec![on("node1", "S2"), on("node1", "S2"), on("node2", "S2"), on("node3", "S2"), on("node4", "S2"), on("node5", "S2")]),
        &[node("node1", &china), node("node2", &india), node("node3", &china), node("node4", &china), node("node5", &india)],
        Some(&[100, 0, 100, 100, 0]),
    );
    let affinity3 = s1()
        .pod_affinity_preferred(8, t2(vec![sel_req("security", "NotIn", &["S1"]), sel_req("security", "In", &["S2"])], "region"))
        .pod_affinity_preferred(
            2,
            t2(vec![sel_req("security", "Exists", &[]), sel_req("wrongkey", "DoesNotExist", &[])], "region"),
        );
    check_score(
        "Affinity: different Label operators and values for pod affinity scheduling preference, including some match failures ",
        &args,
        affinity3,
        &named(vec![on("node1", "S1"), on("node2", "S2"), on("node3", "S1")]),
        &three(),
        Some(&[20, 100, 0]),
    );
    check_score(
        "Affinity symmetry: considered only the preferredDuringSchedulingIgnoredDuringExecution in pod affinity symmetry",
        &args,
        PodBuilder::new("p").labels(&[("security", "S2")]),
        &named(vec![stay_with_s1_in_region(on("node1", "S1")), stay_with_s2_in_region(on("node2", "S2"))]),
        &three(),
        Some(&[0, 100, 0]),
    );
    check_score(
        "Affinity symmetry with namespace selector",
        &args,
        s1().namespace("subteam1.team1"),
        &named(vec![
            on("node1", "S1").pod_affinity_preferred(5, with_ns_selector(sec_in("S1", "region"))),
            stay_with_s2_in_region(on("node2", "S2")),
        ]),
        &three(),
        Some(&[100, 0, 0]),
    );
    check_score(
        "AntiAffinity symmetry with namespace selector",
        &args,
        s1().namespace("subteam1.team1"),
        &named(vec![
            on("node1", "S1").pod_anti_affinity_preferred(5, with_ns_selector(sec_in("S1", "region"))),
            stay_with_s2_in_region(on("node2", "S2")),
        ]),
        &three(),
        Some(&[0, 100, 100]),
    );
    let hard = |p: PodBuilder| {
        p.pod_affinity_required(t("security", "In", &["S1", "value2"], "region")).pod_affinity_required(t2(
            vec![sel_req("security", "Exists", &[]), sel_req("wrongkey", "DoesNotExist", &[])],
            "region",
        ))
    };
    check_score(
        "Affinity symmetry: considered RequiredDuringSchedulingIgnoredDuringExecution in pod affinity symmetry",
        &args,
        s1(),
        &named(vec![hard(on("node1", "S1")), hard(on("node2", "S2"))]),
        &three(),
        Some(&[100, 100, 0]),
    );
    check_score(
        "Anti Affinity: pod that does not match existing pods in node will get high score ",
        &args,
        away_from_s1_in_az(s1()),
        &named(vec![on("node1", "S1"), on("node2", "S2")]),
        &[node("node1", &az1), node("node2", &china)],
        Some(&[0, 100]),
    );
    check_score(
        "Anti Affinity: pod that does not match topology key & match the pods in nodes will get higher score comparing to others ",
        &args,
        away_from_s1_in_az(s1()),
        &named(vec![on("node1", "S1"), on("node2", "S1")]),
        &[node("node1", &az1), node("node2", &china)],
        Some(&[0, 100]),
    );
    check_score(
        "Anti Affinity: one node has more matching pods comparing to other node, so the node which has more unmatches will get high score",
        &args,
        away_from_s1_in_az(s1()),
        &named(vec![on("node1", "S1"), on("node1", "S1"), on("node2", "S2")]),
        &[node("node1", &az1), node("node2", &india)],
        Some(&[0, 100]),
    );
    check_score(
        "Anti Affinity symmetry: the existing pods in node which has anti affinity match will get high score",
        &args,
        PodBuilder::new("p").labels(&[("security", "S2")]),
        &named(vec![away_from_s2_in_az(on("node1", "S1")), away_from_s1_in_az(on("node2", "S2"))]),
        &[node("node1", &az1), node("node2", &az2)],
        Some(&[0, 100]),
    );
    check_score(
        "Affinity and Anti Affinity: considered only preferredDuringSchedulingIgnoredDuringExecution in both pod affinity & anti affinity",
        &args,
        stay_s1_away_s2(s1()),
        &named(vec![on("node1", "S1"), on("node2", "S1")]),
        &[node("node1", &china), node("node2", &az1)],
        Some(&[100, 0]),
    );
    check_score(
        "Affinity and Anti Affinity: considering both affinity and anti-affinity, the pod to schedule and existing pods have the same labels",
        &args,
        stay_s1_away_s2(s1()),
        &named(vec![
            on("node1", "S1"),
            on("node1", "S1"),
            on("node2", "S1"),
            on("node3", "S1"),
            on("node3", "S1"),
            on("node4", "S1"),
            on("node5", "S1"),
        ]),
        &[node("node1", &china_az1), node("node2", &india), node("node3", &china), node("node4", &china), node("node5", &india)],
        Some(&[100, 0, 100, 100, 0]),
    );
    check_score(
        "Affinity and Anti Affinity and symmetry: considered only preferredDuringSchedulingIgnoredDuringExecution in both pod affinity & anti affinity & symmetry",
        &args,
        stay_s1_away_s2(s1()),
        &named(vec![
            on("node1", "S1"),
            on("node2", "S2"),
            stay_s1_away_s2(PodBuilder::new("x").node_name("node3")),
            away_from_s1_in_az(PodBuilder::new("y").node_name("node4")),
        ]),
        &[node("node1", &china), node("node2", &az1), node("node3", &india), node("node4", &az2)],
        Some(&[100, 0, 100, 0]),
    );
    check_score(
        "Avoid panic when partial nodes in a topology don't have pods with affinity",
        &args,
        s1(),
        &named(vec![on("node1", "S1"), stay_s1_away_s2(PodBuilder::new("x").node_name("node2"))]),
        &[node("node1", &china), node("node2", &china)],
        Some(&[0, 0]),
    );
    let ns_pod = |node: &str, ns: &str| on(node, "S1").namespace(ns);
    check_score(
        "Affinity with pods matching NamespaceSelector",
        &args,
        s1().namespace("subteam1.team1").pod_affinity_preferred(5, with_ns_selector(sec_in("S1", "region"))),
        &named(vec![
            ns_pod("node1", "subteam1.team1"),
            ns_pod("node1", "subteam1.team1"),
            ns_pod("node1", "subteam1.team2"),
            ns_pod("node2", "subteam2.team1"),
        ]),
        &[node("node1", &china), node("node2", &india)],
        Some(&[100, 0]),
    );
    check_score(
        "Affinity with pods matching both NamespaceSelector and Namespaces fields",
        &args,
        s1().namespace("subteam1.team1").pod_affinity_preferred(5, with_ns_selector(sec_in("S1", "region"))),
        &named(vec![
            ns_pod("node1", "subteam1.team1"),
            ns_pod("node1", "subteam1.team1"),
            ns_pod("node1", "subteam2.team2"),
            ns_pod("node2", "subteam2.team1"),
        ]),
        &[node("node1", &china), node("node2", &india)],
        Some(&[100, 0]),
    );
    check_score(
        "Affinity with pods matching NamespaceSelector (anti-affinity)",
        &args,
        s1().namespace("subteam1.team1").pod_anti_affinity_preferred(5, with_ns_selector(sec_in("S1", "region"))),
        &named(vec![
            ns_pod("node1", "subteam1.team1"),
            ns_pod("node1", "subteam1.team1"),
            ns_pod("node1", "subteam1.team2"),
            ns_pod("node2", "subteam2.team1"),
        ]),
        &[node("node1", &china), node("node2", &india)],
        Some(&[0, 100]),
    );
    let existing_terms = || named(vec![stay_s1_away_s2(on("node1", "S1")), stay_with_s2_in_region(on("node2", "S2"))]);
    let s2 = || PodBuilder::new("p").labels(&[("security", "S2")]);
    let two = || vec![node("node1", &china), node("node2", &india)];
    let ignore =
        crate::core::config::InterPodAffinityArgs { ignore_preferred_terms_of_existing_pods: true, ..Default::default() };
    check_score("Ignore preferred terms of existing pods", &ignore, s2(), &existing_terms(), &two(), None);
    check_score("Do not ignore preferred terms of existing pods", &args, s2(), &existing_terms(), &two(), Some(&[0, 100]));
    check_score("No nodes to score", &args, s2(), &[], &[], None);
}

#[test]
fn invalid_preferred_terms_fail_prescore() {
    // scoring_test.go TestPreferredAffinity "invalid Affinity fails PreScore" / "invalid
    // AntiAffinity fails PreScore": an Error mentioning the invalid value.
    let nodes = [node("node1", &[("region", "China")]), node("node2", &[("region", "China")])];
    let cache = cache_with(&nodes, &[]);
    let pl = plugin();
    for p in [
        PodBuilder::new("p").pod_affinity_preferred(8, sec_in("{{.bad-value.}}", "region")),
        PodBuilder::new("p").pod_anti_affinity_preferred(5, sec_in("{{.bad-value.}}", "az")),
    ] {
        let info = p.info();
        let feasible: Vec<&NodeInfo> = cache.nodes().collect();
        let mut st = None;
        assert_eq!(pl.pre_score(&cache, &info, &feasible, &mut st), PreScoreOutcome::Run);
        let err = pl.score(&cache, &info, feasible[0], &st).unwrap_err();
        assert_eq!(err.code, Code::Error);
        assert!(err.message().contains("Invalid value: \"{{.bad-value.}}\""), "{}", err.message());
    }
}

#[test]
fn preferred_affinity_with_hard_pod_affinity_symmetric_weight() {
    // scoring_test.go TestPreferredAffinityWithHardPodAffinitySymmetricWeight.
    let mut hard_term = t("service", "In", &["S1"], "region");
    hard_term.namespaces = vec!["".into(), "subteam2.team2".into()];
    hard_term.namespace_selector = Some(selector(vec![sel_req("team", "In", &["team1"])]));
    let existing = || {
        vec![
            PodBuilder::new("e1").namespace("").node_name("node1").pod_affinity_required(hard_term.clone()),
            PodBuilder::new("e2").namespace("").node_name("node2").pod_affinity_required(hard_term.clone()),
        ]
    };
    let nodes =
        || vec![node("node1", &[("region", "China")]), node("node2", &[("region", "India")]), node("node3", &[("az", "az1")])];
    let incoming = |ns: &str| PodBuilder::new("p").namespace(ns).labels(&[("service", "S1")]);
    let weight = |w| crate::core::config::InterPodAffinityArgs { hard_pod_affinity_weight: w, ..Default::default() };
    check_score("with default weight", &weight(1), incoming(""), &existing(), &nodes(), Some(&[100, 100, 0]));
    check_score("with zero weight", &weight(0), incoming(""), &existing(), &nodes(), None);
    check_score("with no matching namespace", &weight(1), incoming("subteam1.team2"), &existing(), &nodes(), None);
    check_score(
        "with matching NamespaceSelector",
        &weight(1),
        incoming("subteam1.team1"),
        &existing(),
        &nodes(),
        Some(&[100, 100, 0]),
    );
    check_score("with matching Namespaces", &weight(1), incoming("subteam2.team2"), &existing(), &nodes(), Some(&[100, 100, 0]));
}

#[test]
fn args_are_validated_as_upstream() {
    // plugin.go New → ValidateInterPodAffinityArgs: hardPodAffinityWeight within [0, 100].
    let bad = crate::core::config::InterPodAffinityArgs { hard_pod_affinity_weight: 101, ..Default::default() };
    let err = InterPodAffinity::new(&bad).unwrap_err();
    assert!(err.starts_with("hardPodAffinityWeight: Invalid value: 101"), "{err}");
}
