//! Extender rules checked with a fake transport: the cases of upstream's
//! `TestSchedulerWithExtenders` and `TestIsInterested` (pkg/scheduler/extender_test.go, kubernetes
//! v1.35), with upstream's fake predicates and prioritizers re-expressed as replies.

use super::*;
use crate::core::config::ExtenderManagedResource;
use crate::core::framework::cycle::{CycleExtenders, CycleParams};
use crate::core::framework::plugins::default_preemption::Candidate;
use crate::core::framework::plugins::names;
use crate::core::framework::plugins::test_util::{cache_with, framework_with, NodeBuilder, PodBuilder};
use crate::core::framework::{Framework, ScheduleOutcome};
use crate::core::rng::Rng;
use serde_json::{json, Value};

type Reply = Box<dyn Fn(usize, &str, &Value) -> Result<Value, String> + Send + Sync>;

/// Answers every call with `reply(index, verb, request)`.
struct Fake(Reply);

impl ExtenderTransport for Fake {
    fn post(&self, index: usize, verb: &str, body: &[u8]) -> Result<Vec<u8>, String> {
        let request: Value = serde_json::from_slice(body).map_err(|e| e.to_string())?;
        (self.0)(index, verb, &request).map(|v| serde_json::to_vec(&v).unwrap_or_default())
    }
}

fn offered(request: &Value) -> Vec<String> {
    if let Some(names) = request["NodeNames"].as_array() {
        return names.iter().filter_map(|n| n.as_str().map(String::from)).collect();
    }
    request["Nodes"]["items"]
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(|n| n["metadata"]["name"].as_str().map(String::from))
        .collect()
}

/// Upstream's fake predicates as filter replies (node names, for a nodeCacheCapable extender).
fn predicate(kind: &str, request: &Value) -> Result<Value, String> {
    let nodes = offered(request);
    let keep: Vec<&String> = match kind {
        "true" => nodes.iter().collect(),
        "false" => Vec::new(),
        "error" => return Err("some error".into()),
        node => nodes.iter().filter(|n| n.as_str() == node).collect(),
    };
    let failed: serde_json::Map<String, Value> =
        nodes.iter().filter(|n| !keep.contains(n)).map(|n| (n.clone(), json!("extender rejects it"))).collect();
    Ok(json!({ "NodeNames": keep, "FailedNodes": failed }))
}

/// Upstream's fake prioritizers: `nodeN` scores 10 on that node and 1 elsewhere.
fn prioritizer(kind: &str, request: &Value) -> Result<Value, String> {
    if kind == "error" {
        return Err("some error".into());
    }
    Ok(Value::Array(
        offered(request).into_iter().map(|n| json!({ "Host": n, "Score": if n == kind { 10 } else { 1 } })).collect(),
    ))
}

struct Ext {
    filter: Option<&'static str>,
    prioritize: Option<(&'static str, i64)>,
    ignorable: bool,
    managed: Vec<&'static str>,
}

fn ext(filter: Option<&'static str>, prioritize: Option<(&'static str, i64)>) -> Ext {
    Ext { filter, prioritize, ignorable: false, managed: Vec::new() }
}

fn set_of(exts: Vec<Ext>) -> ExtenderSet {
    let configs: Vec<Extender> = exts
        .iter()
        .enumerate()
        .map(|(i, e)| Extender {
            url_prefix: format!("http://fake{}", i + 1),
            filter_verb: e.filter.map(|_| "filter".to_string()).unwrap_or_default(),
            prioritize_verb: e.prioritize.map(|_| "prioritize".to_string()).unwrap_or_default(),
            weight: e.prioritize.map(|p| p.1).unwrap_or(0),
            node_cache_capable: true,
            ignorable: e.ignorable,
            managed_resources: e
                .managed
                .iter()
                .map(|n| ExtenderManagedResource { name: n.to_string(), ignored_by_scheduler: false })
                .collect(),
            ..Default::default()
        })
        .collect();
    let behaviours: Vec<(Option<&'static str>, Option<&'static str>)> =
        exts.iter().map(|e| (e.filter, e.prioritize.map(|p| p.0))).collect();
    let fake = Fake(Box::new(move |i, verb, req| match verb {
        "filter" => predicate(behaviours[i].0.unwrap_or("true"), req),
        "prioritize" => prioritizer(behaviours[i].1.unwrap_or("none"), req),
        other => Err(format!("unexpected verb {other}")),
    }));
    ExtenderSet::new(&configs, Arc::new(fake)).expect("extenders")
}

fn run(fw: &Framework, set: &ExtenderSet, nodes: &[NodeBuilder], pod: PodBuilder) -> ScheduleOutcome {
    let cache = cache_with(nodes, &[]);
    let (mut start, mut rng) = (0usize, Rng::seeded(7));
    let api_pod = pod.pod.clone();
    let mut params = CycleParams {
        next_start_node_index: &mut start,
        percentage_of_nodes_to_score: 0,
        rng: &mut rng,
        explain: crate::core::framework::cycle::Explain::All,
        extenders: Some(CycleExtenders::new(set, &api_pod)),
        waiting: None,
        clock: None,
        now: None,
    };
    fw.schedule(&cache, &pod.info(), &mut params)
}

/// (node, evaluated, feasible), or `Err` for upstream's `expectsErr` (an error or a FitError).
fn result(o: &ScheduleOutcome) -> Result<(String, usize, usize), String> {
    match o {
        ScheduleOutcome::Scheduled { result, .. } => Ok((result.node.to_string(), result.evaluated_nodes, result.feasible_nodes)),
        ScheduleOutcome::Unschedulable { message, .. } | ScheduleOutcome::Error { message, .. } => Err(message.clone()),
    }
}

fn nodes(names: &[&str]) -> Vec<NodeBuilder> {
    names.iter().map(|n| NodeBuilder::new(n).allocatable(&[("cpu", "4"), ("memory", "8Gi"), ("pods", "10")])).collect()
}

/// A filter that passes every node (upstream's `TrueFilter`).
fn true_filter() -> Framework {
    framework_with(&[(names::PRIORITY_SORT, 0), (names::NODE_UNSCHEDULABLE, 0), (names::DEFAULT_BINDER, 0)])
}

/// `TrueFilter` plus a score plugin that gives node2 the top score (upstream's Node2Prioritizer,
/// here ImageLocality with a large image present only on node2).
fn node2_prioritizer(weight: i32) -> (Framework, Vec<NodeBuilder>, PodBuilder) {
    let fw = framework_with(&[
        (names::PRIORITY_SORT, 0),
        (names::NODE_UNSCHEDULABLE, 0),
        (names::IMAGE_LOCALITY, weight),
        (names::DEFAULT_BINDER, 0),
    ]);
    let mut ns = nodes(&["node1", "node2"]);
    ns[1] = ns[1].clone().image(&["big:1"], 4_000_000_000);
    (fw, ns, PodBuilder::new("p").image("big:1"))
}

#[test]
fn scheduler_with_extenders_upstream_cases() {
    let pod = || PodBuilder::new("p");
    let two = nodes(&["node1", "node2"]);
    // test 1: an erroring filter extender fails the cycle.
    let s = set_of(vec![ext(Some("true"), None), ext(Some("error"), None)]);
    assert_eq!(result(&run(&true_filter(), &s, &two, pod())), Err("some error".into()));
    // test 2: an extender rejecting every node: FitError.
    let s = set_of(vec![ext(Some("true"), None), ext(Some("false"), None)]);
    let o = run(&true_filter(), &s, &two, pod());
    assert_eq!(result(&o).unwrap_err(), "0/2 nodes are available: 2 extender rejects it.");
    match &o {
        ScheduleOutcome::Unschedulable { diagnosis, .. } => assert_eq!(diagnosis.unschedulable_plugins, vec![EXTENDER_NAME]),
        other => panic!("{other:?}"),
    }
    // test 3: the second extender keeps node1 only.
    let s = set_of(vec![ext(Some("true"), None), ext(Some("node1"), None)]);
    assert_eq!(result(&run(&true_filter(), &s, &two, pod())), Ok(("node1".into(), 2, 1)));
    // test 4: the extenders keep disjoint nodes.
    let s = set_of(vec![ext(Some("node2"), None), ext(Some("node1"), None)]);
    assert!(result(&run(&true_filter(), &s, &two, pod())).is_err());
    // test 5: a failing prioritizer is ignored.
    let s = set_of(vec![ext(Some("true"), Some(("error", 1)))]);
    assert_eq!(result(&run(&true_filter(), &s, &nodes(&["node1"]), pod())), Ok(("node1".into(), 1, 1)));
    // test 6: weights: node1 = 10*1*10 + 1*5*10 = 150, node2 = 1*1*10 + 10*5*10 = 510.
    let s = set_of(vec![ext(Some("true"), Some(("node1", 1))), ext(Some("true"), Some(("node2", 5)))]);
    let o = run(&true_filter(), &s, &two, pod());
    assert_eq!(result(&o), Ok(("node2".into(), 2, 2)));
    // test 7: a score plugin of weight 20 outweighs the extender.
    let (fw, ns, p) = node2_prioritizer(20);
    let s = set_of(vec![ext(Some("true"), Some(("node1", 1)))]);
    assert_eq!(result(&run(&fw, &s, &ns, p)), Ok(("node2".into(), 2, 2)));
    // test 8: an extender not interested in the pod is never called.
    let (fw, ns, p) = node2_prioritizer(1);
    let mut e = ext(Some("error"), Some(("error", 10)));
    e.managed = vec!["example.com/gpu"];
    assert_eq!(result(&run(&fw, &set_of(vec![e]), &ns, p)), Ok(("node2".into(), 2, 2)));
    // test 9: an ignorable failing extender is skipped.
    let mut e = ext(Some("error"), None);
    e.ignorable = true;
    let s = set_of(vec![e, ext(Some("node1"), None)]);
    assert_eq!(result(&run(&true_filter(), &s, &two, pod())), Ok(("node1".into(), 2, 1)));
    // test 10: no scoring but filtering extenders: every node is evaluated.
    let s = set_of(vec![ext(Some("true"), None), ext(Some("node1"), None)]);
    let fw = framework_with(&[(names::PRIORITY_SORT, 0), (names::NODE_UNSCHEDULABLE, 0), (names::DEFAULT_BINDER, 0)]);
    assert_eq!(result(&run(&fw, &s, &two, pod())), Ok(("node1".into(), 2, 1)));
    // test 11: no scoring and no filtering extender: one feasible node is enough.
    let s = set_of(vec![ext(None, None)]);
    let fw = framework_with(&[(names::PRIORITY_SORT, 0), (names::DEFAULT_BINDER, 0)]);
    assert_eq!(result(&run(&fw, &s, &two, pod())).map(|r| (r.1, r.2)), Ok((1, 1)));
}

#[test]
fn ignorable_extenders_are_called_last() {
    let mut first = ext(Some("error"), None);
    first.ignorable = true;
    let s = set_of(vec![first, ext(Some("true"), None)]);
    let order: Vec<&str> = s.entries.iter().map(|e| e.name()).collect();
    assert_eq!(order, vec!["http://fake2", "http://fake1"]);
    assert_eq!(s.entries[1].index, 0, "the transport still receives the configured position");
}

#[test]
fn is_interested_upstream_cases() {
    // TestIsInterested.
    let with = |managed: &[&'static str]| {
        set_of(vec![Ext { filter: None, prioritize: None, ignorable: false, managed: managed.to_vec() }]).entries[0].clone()
    };
    assert!(with(&[]).is_interested(&api::Pod::default()), "empty managed resources");
    let mem = with(&["memory"]);
    assert!(!mem.is_interested(&PodBuilder::new("p").container(&[]).pod), "managed memory, empty resources");
    assert!(mem.is_interested(&PodBuilder::new("p").container(&[("memory", "0")]).pod), "container memory request");
    let mut lim = PodBuilder::new("p").container(&[]).pod;
    lim.spec.containers[0].resources.limits.insert("memory".into(), api::QuantityStr("0".into()));
    assert!(mem.is_interested(&lim), "container memory limit");
    assert!(mem.is_interested(&PodBuilder::new("p").container(&[]).init_container(&[("memory", "0")]).pod), "init container");
}

#[test]
fn filter_statuses_follow_upstream_precedence() {
    // FailedAndUnresolvableNodes win over FailedNodes for the same node; both are recorded.
    let configs = vec![Extender { url_prefix: "http://x".into(), filter_verb: "f".into(), ..Default::default() }];
    let fake = Fake(Box::new(|_, _, _| {
        Ok(json!({
            "nodes": { "items": [ { "metadata": { "name": "node1" } } ] },
            "failedNodes": { "node2": "busy", "node3": "full" },
            "FailedAndUnresolvableNodes": { "node3": "never" },
        }))
    }));
    let s = ExtenderSet::new(&configs, Arc::new(fake)).expect("set");
    let o = run(&true_filter(), &s, &nodes(&["node1", "node2", "node3"]), PodBuilder::new("p"));
    let ScheduleOutcome::Scheduled { diagnosis, result, .. } = o else { panic!("{o:?}") };
    assert_eq!(&*result.node, "node1");
    let st = |n: &str| diagnosis.node_to_status.get(n).map(|r| (r.code, r.message()));
    assert_eq!(st("node2"), Some((crate::core::framework::Code::Unschedulable, "busy".into())));
    assert_eq!(st("node3"), Some((crate::core::framework::Code::UnschedulableAndUnresolvable, "never".into())));
    assert_eq!(diagnosis.extender_notes.len(), 1, "{:?}", diagnosis.extender_notes);
    assert_eq!(diagnosis.extender_notes[0].kept, vec!["node1".to_string()]);
}

#[test]
fn requests_carry_full_nodes_unless_the_extender_caches_them() {
    let seen = Arc::new(std::sync::Mutex::new(Vec::new()));
    let log = seen.clone();
    let configs = vec![Extender { url_prefix: "http://x".into(), filter_verb: "f".into(), ..Default::default() }];
    let fake = Fake(Box::new(move |_, _, req| {
        log.lock().map(|mut l| l.push(req.clone())).ok();
        predicate("true", req)
    }));
    let s = ExtenderSet::new(&configs, Arc::new(fake)).expect("set");
    let ns = vec![NodeBuilder::new("n1").labels(&[("zone", "a")]).allocatable(&[("cpu", "2")])];
    let _ = run(&true_filter(), &s, &ns, PodBuilder::new("p").namespace("ns"));
    let req = seen.lock().map(|l| l[0].clone()).unwrap_or_default();
    assert_eq!(req["NodeNames"], Value::Null);
    assert_eq!(req["Nodes"]["items"][0]["metadata"]["labels"]["zone"], "a");
    assert_eq!(req["Nodes"]["items"][0]["status"]["allocatable"]["cpu"], "2000m");
    assert_eq!(req["Pod"]["metadata"]["name"], "p");
    assert_eq!(req["Pod"]["metadata"]["namespace"], "ns");
}

#[test]
fn malformed_replies_are_errors_with_context() {
    let configs = vec![Extender { url_prefix: "http://x".into(), filter_verb: "f".into(), ..Default::default() }];
    for (reply, want) in [
        (json!([1, 2]), "decoding the extender's filter reply: expected a JSON object, got an array"),
        (json!({ "NodeNames": "n1" }), "decoding the extender's filter reply: NodeNames: expected an array, got a string"),
        (json!({ "Error": "quota exceeded" }), "quota exceeded"),
        (
            json!({ "Nodes": { "items": [ { "metadata": { "name": "ghost" } } ] } }),
            "extender \"http://x\" claims a filtered node \"ghost\" which is not found in the input node list",
        ),
    ] {
        let fake = Fake(Box::new(move |_, _, _| Ok(reply.clone())));
        let s = ExtenderSet::new(&configs, Arc::new(fake)).expect("set");
        let o = run(&true_filter(), &s, &nodes(&["n1"]), PodBuilder::new("p"));
        assert!(matches!(&o, ScheduleOutcome::Error { message, .. } if message == want), "{o:?}");
    }
    assert!(wire::decode_filter(b"{not json").unwrap_err().starts_with("decoding the extender's filter reply: "));
    assert_eq!(wire::decode_priorities(b"null"), Ok(Vec::new()));
    assert_eq!(wire::decode_priorities(br#"[{"host":"a","score":3}]"#), Ok(vec![("a".to_string(), 3)]));
    assert!(wire::decode_priorities(br#"[{"Host":"a","Score":"x"}]"#).is_err());
}

#[test]
fn preemption_victims_from_extenders() {
    // TestConvertToVictims: UIDs map back to the node's pods; PDB violations carried over.
    use crate::core::cache::AssignedPod;
    let mut cache = cache_with(&nodes(&["node1", "node2"]), &[]);
    let mut victims = Vec::new();
    for (name, node) in [("pod1", "node1"), ("pod2", "node2"), ("pod3", "node1"), ("pod4", "node2")] {
        let mut p = PodBuilder::new(name).node_name(node);
        p.pod.metadata.uid = format!("uid{}", &name[3..]);
        cache.upsert_assigned_pod(&p.info());
        victims.push((node, Arc::new(AssignedPod::from_pod(&p.info(), node))));
    }
    let cand = |node: &str, pdb: usize| Candidate {
        node: node.into(),
        victims: victims.iter().filter(|(n, _)| *n == node).map(|(_, v)| v.clone()).collect(),
        pdb_violations: pdb,
    };
    let configs = vec![Extender {
        url_prefix: "http://x".into(),
        preempt_verb: "p".into(),
        node_cache_capable: true,
        ..Default::default()
    }];
    let fake = Fake(Box::new(|_, _, req| {
        assert_eq!(req["NodeNameToVictims"], Value::Null);
        assert_eq!(req["NodeNameToMetaVictims"]["node1"]["Pods"][1]["UID"], "uid3");
        Ok(json!({ "NodeNameToMetaVictims": {
            "node1": { "Pods": [ { "UID": "uid1" }, { "UID": "uid3" } ], "NumPDBViolations": 1 },
            "node2": { "Pods": [ { "UID": "uid2" } ], "NumPDBViolations": 2 },
        } }))
    }));
    let s = ExtenderSet::new(&configs, Arc::new(fake)).expect("set");
    let pod = api::Pod::default();
    let mut notes = Vec::new();
    let out = s.preempt(&cache, &pod, &Value::Null, vec![cand("node1", 0), cand("node2", 0)], &mut notes).expect("ok");
    let summary: Vec<(String, Vec<String>, usize)> = out
        .iter()
        .map(|c| (c.node.to_string(), c.victims.iter().map(|v| v.uid.to_string()).collect(), c.pdb_violations))
        .collect();
    assert_eq!(summary, vec![("node1".into(), vec!["uid1".into(), "uid3".into()], 1), ("node2".into(), vec!["uid2".into()], 2)]);

    // A victim the node does not have, and a node without victims, are errors.
    for (reply, want) in [
        (
            json!({ "NodeNameToMetaVictims": { "node1": { "Pods": [ { "UID": "uid2" } ] } } }),
            "extender: http://x claims to preempt pod (UID: &{uid2}) on node: node1, but the pod is not found on that node",
        ),
        (json!({ "NodeNameToMetaVictims": { "node1": { "Pods": [] } } }), "expected at least one victim pod on node \"node1\""),
        (json!({ "NodeNameToMetaVictims": { "nodeX": null } }), "nodeinfo not found for node name \"nodeX\""),
    ] {
        let fake = Fake(Box::new(move |_, _, _| Ok(reply.clone())));
        let s = ExtenderSet::new(&configs, Arc::new(fake)).expect("set");
        let got = s.preempt(&cache, &pod, &Value::Null, vec![cand("node1", 0)], &mut notes);
        assert_eq!(got.map(|c| c.len()), Err(want.to_string()));
    }
}

#[test]
fn binding_is_delegated_to_the_interested_binder() {
    let configs = vec![Extender {
        url_prefix: "http://gpu".into(),
        bind_verb: "bind".into(),
        ignorable: true,
        managed_resources: vec![ExtenderManagedResource { name: "example.com/gpu".into(), ignored_by_scheduler: true }],
        ..Default::default()
    }];
    let fake = Fake(Box::new(|_, verb, req| {
        assert_eq!(verb, "bind");
        assert_eq!(req["PodName"], "p");
        assert_eq!(req["Node"], "n1");
        if req["PodNamespace"] == "bad" {
            return Ok(json!({ "Error": "no device" }));
        }
        Ok(json!({}))
    }));
    let transport: Arc<dyn ExtenderTransport> = Arc::new(fake);
    let s = ExtenderSet::new(&configs, transport.clone()).expect("set");
    let plain = PodBuilder::new("p");
    assert_eq!(s.bind_target(&plain.pod), None, "not interested: the DefaultBinder binds");
    let gpu = PodBuilder::new("p").container(&[("example.com/gpu", "1")]);
    let target = s.bind_target(&gpu.pod).expect("interested");
    assert_eq!(calls::bind(&*transport, &target, &gpu.info(), "n1"), calls::BindDecision::Bound);
    let bad = PodBuilder::new("p").namespace("bad").container(&[("example.com/gpu", "1")]);
    assert_eq!(calls::bind(&*transport, &target, &bad.info(), "n1"), calls::BindDecision::FallBack("no device".into()));
    let strict = BindTarget { ignorable: false, ..target };
    assert_eq!(calls::bind(&*transport, &strict, &bad.info(), "n1"), calls::BindDecision::Failed("no device".into()));
    assert_eq!(ignored_resources(&configs), vec!["example.com/gpu".to_string()]);
}

#[test]
fn the_pod_document_is_the_source_when_it_was_kept() {
    let mut pod = PodBuilder::new("p").pod;
    assert_eq!(calls::pod_document(&pod)["metadata"]["name"], "p", "without a source: what was decoded");
    pod.source = Some(r#"{"metadata":{"name":"p"},"spec":{"hostname":"h","containers":[{"name":"c","env":[]}]}}"#.into());
    let doc = calls::pod_document(&pod);
    assert_eq!(doc["spec"]["hostname"], "h");
    assert_eq!(doc["spec"]["containers"][0]["env"], json!([]));
}
