//! The hand-written pod decoder (`core::api::pod_wire`) against the general one (`gojson` over
//! the serde derive): whenever the fast decoder returns a pod, the general decoder must accept
//! the same text and build the same pod. Inputs: every pod of the recorded watch fixtures under
//! `tests/fixtures/watch/`, each mutated at every JSON path into values of every JSON type, with
//! repeated keys, escapes and unknown fields; the same for a pod holding every rarely set field
//! (node and pod affinity, ports, spread constraints, volumes, gates, resource claims and their
//! statuses); and pseudo-random pods built along the schema.

use edgesched::core::api::pod_wire::{decode_pod_for, Need};
use edgesched::core::rng::Rng;
use serde_json::{json, Map, Value};

#[path = "support/pod_decoders_agree.rs"]
mod pod_decoders_agree;
#[path = "support/watch_fixtures.rs"]
mod watch_fixtures;
use pod_decoders_agree::agree;
use watch_fixtures::{paths, watch_objects};

/// Pod objects of the recorded watch events.
fn fixture_pods() -> Vec<Value> {
    watch_objects().into_iter().map(|(_, object)| object).filter(|o| o["kind"] == "Pod").collect()
}

/// `text` with the first `"key":` given twice, a `null` first (the key must be there).
fn named_twice(text: &str, key: &str) -> String {
    let needle = format!("\"{key}\":");
    assert!(text.contains(&needle), "{key}");
    text.replacen(&needle, &format!("{needle}null,{needle}"), 1)
}

/// `pod` without the object key that the JSON pointer `path` names, with an unknown field (a
/// nested value the decoders must skip) in its place when `unknown` is set; `None` when `path`
/// names an array element (the root's pointer `""` is the pod itself).
fn key_removed(pod: &Value, path: &str, unknown: bool) -> Option<Value> {
    let (parent, last) = path.rsplit_once('/').expect("pointer");
    let mut v = pod.clone();
    let obj = v.pointer_mut(parent)?.as_object_mut()?;
    obj.remove(&last.replace("~1", "/").replace("~0", "~"))?;
    if unknown {
        obj.insert("unknownField".into(), json!({"deep": [1, "two", {"x": null}]}));
    }
    Some(v)
}

fn replacements() -> Vec<Value> {
    vec![
        Value::Null,
        json!(0),
        json!(-3),
        json!(1.5),
        json!(2147483648u64),
        json!(-9223372036854775808i64),
        json!(true),
        json!(false),
        json!(""),
        json!(" 250m "),
        json!("x"),
        json!([]),
        json!([null]),
        json!(["a"]),
        json!({}),
        json!({"k": null}),
        json!({"k": 1}),
        json!({"k": "v"}),
    ]
}

/// A pod with every rare spec field the decoder reads by hand (node affinity) or hands alone to
/// the general decoder (the others), in the shapes scheduler_perf's templates use.
fn rare_fields_pod() -> Value {
    json!({
        "kind": "Pod",
        "metadata": {"name": "daemonset-x1", "namespace": "ns", "uid": "u1", "labels": {"app": "d"}},
        "spec": {
            "affinity": {
                "nodeAffinity": {
                    "requiredDuringSchedulingIgnoredDuringExecution": {"nodeSelectorTerms": [
                        {"matchFields": [{"key": "metadata.name", "operator": "In", "values": ["node-1", null]}]},
                        {"matchExpressions": [{"key": "zone", "operator": "NotIn", "values": ["a", "b"]},
                                              {"key": "gpu", "operator": "Exists"}]}
                    ]},
                    "preferredDuringSchedulingIgnoredDuringExecution": [
                        {"weight": 7, "preference": {"matchExpressions": [{"key": "zone", "operator": "In", "values": ["c"]}]}},
                        null
                    ]
                },
                "podAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": [
                    {"labelSelector": {"matchLabels": {"app": "d"}}, "topologyKey": "zone", "namespaces": ["ns"]}]},
                "podAntiAffinity": {"preferredDuringSchedulingIgnoredDuringExecution": [
                    {"weight": 3, "podAffinityTerm": {"labelSelector": {"matchExpressions":
                        [{"key": "app", "operator": "In", "values": ["d"]}]}, "topologyKey": "kubernetes.io/hostname"}}]}
            },
            "containers": [{"name": "c", "image": "pause", "ports": [{"containerPort": 80, "hostPort": 8080, "protocol": "TCP"}],
                            "resources": {"requests": {"cpu": "100m"}}}],
            "tolerations": [{"key": "k", "operator": "Exists", "effect": "NoSchedule", "tolerationSeconds": 300}],
            "topologySpreadConstraints": [{"maxSkew": 1, "topologyKey": "zone", "whenUnsatisfiable": "DoNotSchedule",
                                           "labelSelector": {"matchLabels": {"app": "d"}}, "minDomains": 2}],
            "volumes": [{"name": "v", "persistentVolumeClaim": {"claimName": "c", "readOnly": true}}, {"name": "s", "secret": {}}],
            "schedulingGates": [{"name": "g"}],
            "resourceClaims": [{"name": "r", "resourceClaimTemplateName": "t"}, {"name": "s", "resourceClaimName": "c"}, null],
            "schedulerName": "edgesched"
        },
        "status": {"phase": "Pending", "resourceClaimStatuses": [{"name": "r", "resourceClaimName": "daemonset-x1-r-abcde"},
                                                                 {"name": "q", "resourceClaimName": null}, null]}
    })
}

#[test]
fn rare_fields_decode_alike_and_fast() {
    let pod = rare_fields_pod();
    assert!(agree(&pod.to_string()), "the rare fields are read without sending the whole spec to the general decoder");
    assert!(agree(&serde_json::to_string_pretty(&pod).expect("json")));
    // Each field alone (and each set to null) also stays on the fast path.
    let spec = pod["spec"].as_object().expect("spec").clone();
    for key in spec.keys() {
        for keep in [true, false] {
            let mut v = pod.clone();
            let s = v["spec"].as_object_mut().expect("spec");
            if keep {
                s.retain(|k, _| k == key);
            } else {
                s.insert(key.clone(), Value::Null);
            }
            assert!(agree(&v.to_string()), "{key} {keep}");
        }
    }
}

#[test]
fn rare_fields_mutated_at_every_path_to_every_type_decode_alike() {
    let pod = rare_fields_pod();
    let mut all = Vec::new();
    paths(&pod["spec"], "/spec", &mut all);
    paths(&pod["status"], "/status", &mut all);
    let (mut fast, mut total) = (0, 0);
    for path in &all {
        for new in replacements() {
            let mut v = pod.clone();
            *v.pointer_mut(path).expect("path") = new;
            total += 1;
            fast += usize::from(agree(&v.to_string()));
        }
        if let Some(v) = key_removed(&pod, path, true) {
            agree(&v.to_string());
        }
    }
    // A key named twice where it is read by hand is left to the general decoder (serde's derive
    // refuses the object); elsewhere both decoders decide alike.
    let text = pod.to_string();
    for key in [
        "affinity",
        "nodeAffinity",
        "requiredDuringSchedulingIgnoredDuringExecution",
        "nodeSelectorTerms",
        "matchFields",
        "key",
        "values",
        "weight",
        "preference",
        "matchExpressions",
        "resourceClaims",
        "resourceClaimTemplateName",
        "resourceClaimStatuses",
        "resourceClaimName",
    ] {
        assert!(!agree(&named_twice(&text, key)), "repeated {key}");
    }
    for key in [
        "podAffinity",
        "podAntiAffinity",
        "ports",
        "topologySpreadConstraints",
        "volumes",
        "schedulingGates",
        "labelSelector",
        "hostPort",
        "claimName",
        "name",
    ] {
        // Either decoder may take these; `agree` fails the test if the two then differ.
        agree(&named_twice(&text, key));
        let needle = format!("\"{key}\":\"");
        agree(&text.replacen(&needle, &format!("{needle}\\u0041"), 1));
    }
    // Not vacuous: a value of another type is mostly refused, every path keeps some fast.
    assert!(fast * 5 > total, "{fast} of {total}");
}

/// A pod holding every part the informers' decoding keeps as text until it knows whether the pod
/// is bound (creation time, owners, node selector, tolerations, conditions, container and
/// pod-level status resources); bound or not, being deleted or not. Of its container statuses
/// one repeats its container's spec (as every running container's does at rest), one is a
/// sidecar's being resized down, one a finished init container's (never read), and its
/// conditions include a deferred resize.
fn node_side_pod(bound: bool, deleting: bool) -> Value {
    let mut pod = json!({
        "kind": "Pod",
        "metadata": {"name": "p1", "namespace": "ns", "uid": "u1", "labels": {"app": "a"},
                     "creationTimestamp": "2026-01-02T03:04:05Z",
                     "ownerReferences": [{"apiVersion": "apps/v1", "kind": "ReplicaSet", "name": "rs", "uid": "u0", "controller": true}]},
        "spec": {
            "containers": [{"name": "c", "image": "pause", "resources": {"requests": {"cpu": "100m", "memory": "64Mi"}}}],
            "initContainers": [{"name": "setup", "image": "pause", "resources": {"requests": {"cpu": "1"}}},
                               {"name": "proxy", "image": "pause", "restartPolicy": "Always", "resources": {"requests": {"cpu": "200m"}}}],
            "nodeSelector": {"zone": "a"},
            "tolerations": [{"key": "node.kubernetes.io/not-ready", "operator": "Exists", "effect": "NoExecute", "tolerationSeconds": 300}],
            "schedulerName": "edgesched",
            "priority": 10
        },
        "status": {"phase": "Running", "startTime": "2026-01-02T03:04:06Z",
                   "conditions": [{"type": "PodScheduled", "status": "True", "lastTransitionTime": "2026-01-02T03:04:05Z"},
                                  {"type": "PodResizePending", "status": "True", "reason": "Deferred", "message": "m"},
                                  {"type": "DisruptionTarget", "status": "True", "reason": "PreemptionByScheduler", "message": "m"}],
                   "containerStatuses": [{"name": "c", "ready": true, "image": "pause", "state": {"running": {}},
                                          "allocatedResources": {"cpu": "100m", "memory": "64Mi"},
                                          "resources": {"requests": {"memory": "64Mi", "cpu": "100m"}, "limits": {"memory": "1Gi"}}}],
                   "initContainerStatuses": [{"name": "setup", "state": {"terminated": {"exitCode": 0}},
                                              "allocatedResources": {"cpu": "1"}, "resources": {"requests": {"cpu": "1"}}},
                                             {"name": "proxy", "allocatedResources": {"cpu": "200m"},
                                              "resources": {"requests": {"cpu": "500m"}}}],
                   "resources": {"requests": {"cpu": "800m"}},
                   "allocatedResources": {"cpu": "800m"}}
    });
    if bound {
        pod["spec"]["nodeName"] = json!("node-1");
    }
    if deleting {
        pod["metadata"]["deletionTimestamp"] = json!("2026-01-02T03:05:00Z");
    }
    pod
}

#[test]
fn node_side_parts_are_left_out_of_bound_pods_only() {
    for (bound, deleting) in [(true, false), (true, true), (false, false), (false, true)] {
        let pod = node_side_pod(bound, deleting);
        let text = pod.to_string();
        assert!(agree(&text), "{bound} {deleting}");
        let lean = decode_pod_for(&text, Need::NodeSideWhenBound).expect("taken by the node-side decoding");
        assert_eq!(lean.spec.tolerations.is_empty(), bound, "{bound} {deleting}");
        assert_eq!(lean.metadata.owner_references.is_empty(), bound);
        // A bound pod keeps its resize condition, and only the status that changes its requests.
        let kinds: Vec<&str> = lean.status.conditions.iter().map(|c| c.type_.as_str()).collect();
        assert_eq!(kinds.len(), if bound && !deleting { 1 } else { 3 }, "{kinds:?}");
        assert!(kinds.contains(&"PodResizePending"));
        assert_eq!(lean.status.container_statuses.is_empty(), bound, "{bound} {deleting}");
        let init: Vec<&str> = lean.status.init_container_statuses.iter().map(|s| s.name.as_str()).collect();
        assert_eq!(init, if bound { vec!["proxy"] } else { vec!["setup", "proxy"] });
        assert_eq!(lean.status.resources.is_none(), bound, "no pod-level requests: pod-level status unread");
        // Every path, mutated to every type, removed, or named twice.
        let mut all = Vec::new();
        paths(&pod, "", &mut all);
        for path in &all {
            for new in replacements() {
                let mut v = pod.clone();
                *v.pointer_mut(path).expect("path") = new;
                agree(&v.to_string());
            }
            if let Some(v) = key_removed(&pod, path, false) {
                agree(&v.to_string());
            }
        }
        for key in [
            "creationTimestamp",
            "ownerReferences",
            "nodeSelector",
            "tolerations",
            "conditions",
            "nodeName",
            "spec",
            "containerStatuses",
            "initContainerStatuses",
            "allocatedResources",
            "resources",
            "cpu",
        ] {
            if text.contains(&format!("\"{key}\":")) {
                agree(&named_twice(&text, key));
            }
        }
    }
}

#[test]
fn fixture_pods_decode_alike_and_mostly_fast() {
    let pods = fixture_pods();
    assert!(pods.len() >= 10, "{}", pods.len());
    let fast = pods.iter().filter(|p| agree(&p.to_string())).count();
    assert_eq!(fast, pods.len(), "every recorded pod is in the shapes the fast decoder reads");
}

#[test]
fn every_path_mutated_to_every_type_decodes_alike() {
    let (mut fast, mut total) = (0, 0);
    for pod in fixture_pods().into_iter().step_by(2) {
        let mut all = Vec::new();
        paths(&pod, "", &mut all);
        // Every path gets null and three other types, in rotation (all of them would take minutes).
        let kinds = replacements();
        for (j, path) in all.iter().enumerate() {
            let picked = [0, 1 + j % (kinds.len() - 1), 1 + (j + 6) % (kinds.len() - 1), 1 + (j + 12) % (kinds.len() - 1)];
            for new in picked.map(|k| kinds[k].clone()) {
                let mut v = pod.clone();
                *v.pointer_mut(path).expect("path") = new;
                total += 1;
                fast += usize::from(agree(&v.to_string()));
            }
            if let Some(v) = key_removed(&pod, path, true) {
                agree(&v.to_string());
            }
        }
    }
    // The fast path is not vacuous: most mutations keep the shapes it reads.
    assert!(fast * 2 > total, "{fast} of {total}");
}

#[test]
fn repeated_keys_escapes_and_odd_numbers_are_left_to_the_general_decoder() {
    let pod = fixture_pods().remove(0).to_string();
    let keys = [
        "metadata",
        "spec",
        "status",
        "name",
        "namespace",
        "uid",
        "resourceVersion",
        "labels",
        "creationTimestamp",
        "ownerReferences",
        "controller",
        "nodeName",
        "schedulerName",
        "priority",
        "containers",
        "resources",
        "requests",
        "image",
        "phase",
        "conditions",
        "type",
        "tolerations",
        "affinity",
    ];
    for key in keys {
        let needle = format!("\"{key}\":");
        if !pod.contains(&needle) {
            continue;
        }
        let repeated = pod.replacen(&needle, &format!("{needle}null,{needle}"), 1);
        assert!(!agree(&repeated), "repeated {key}");
        let escaped = pod.replacen(&needle, &format!("\"\\u{:04x}{}\":", key.as_bytes()[0], &key[1..]), 1);
        agree(&escaped);
        let value_escaped = pod.replacen(&format!("{needle}\""), &format!("{needle}\"\\u0041"), 1);
        agree(&value_escaped);
    }
    for (find, with) in [("\"priority\":", "\"priority\":-0,\"x\":"), ("\"priority\":", "\"priority\":1e2,\"x\":")] {
        agree(&pod.replacen(find, with, 1));
    }
    for bad in ["", "null", "[]", "{", "{}x", "{\"metadata\":{\"name\":\"a\"}", "{\"spec\":{\"priority\":01}}"] {
        agree(bad);
    }
}

/// A random value of any JSON type (shallow).
fn random_scalar(rng: &mut Rng) -> Value {
    match rng.below(9) {
        0 => Value::Null,
        1 => json!(rng.below(2000) as i64 - 1000),
        2 => json!(rng.unit() * 10.0),
        3 => json!(rng.below(2) == 0),
        4 => json!(format!("{}m", rng.below(4000))),
        5 => json!(["a", null]),
        6 => json!({"k": "v", "n": null}),
        7 => json!(""),
        _ => json!("Running"),
    }
}

fn maybe(rng: &mut Rng, m: &mut Map<String, Value>, key: &str, good: Value) {
    match rng.below(10) {
        0 => {}
        1 => {
            m.insert(key.into(), random_scalar(rng));
        }
        _ => {
            m.insert(key.into(), good);
        }
    }
}

fn random_pod(rng: &mut Rng, i: u64) -> Value {
    let mut meta = Map::new();
    maybe(rng, &mut meta, "name", json!(format!("p-{i}")));
    maybe(rng, &mut meta, "namespace", json!("ns"));
    maybe(rng, &mut meta, "uid", json!(format!("u-{i}")));
    maybe(rng, &mut meta, "resourceVersion", json!(i.to_string()));
    let app = rng.below(5);
    maybe(rng, &mut meta, "labels", json!({"app": format!("a{app}"), "tier": null}));
    maybe(rng, &mut meta, "creationTimestamp", json!("2026-01-02T03:04:05Z"));
    maybe(rng, &mut meta, "deletionTimestamp", Value::Null);
    maybe(rng, &mut meta, "annotations", json!({"a": "b"}));
    maybe(
        rng,
        &mut meta,
        "ownerReferences",
        json!([{"apiVersion": "apps/v1", "kind": "ReplicaSet", "name": "rs", "uid": "x", "controller": true}, null]),
    );
    let mut requests = Map::new();
    maybe(rng, &mut requests, "cpu", json!("100m"));
    maybe(rng, &mut requests, "memory", json!(128));
    maybe(rng, &mut requests, "nvidia.com/gpu", json!(" 1 "));
    let mut container = Map::new();
    maybe(rng, &mut container, "name", json!("c"));
    maybe(rng, &mut container, "image", json!("registry.k8s.io/pause:3.10"));
    maybe(rng, &mut container, "resources", json!({"requests": requests, "limits": null}));
    maybe(rng, &mut container, "ports", json!([{"containerPort": 80, "hostPort": 8080}]));
    maybe(rng, &mut container, "restartPolicy", json!("Always"));
    maybe(rng, &mut container, "env", json!([{"name": "A", "value": "1"}]));
    let mut spec = Map::new();
    let node = rng.below(3);
    maybe(rng, &mut spec, "nodeName", json!(format!("node-{node}")));
    maybe(rng, &mut spec, "schedulerName", json!("edgesched"));
    let priority = rng.below(100) as i64 - 50;
    maybe(rng, &mut spec, "priority", json!(priority));
    maybe(rng, &mut spec, "priorityClassName", json!("high"));
    maybe(rng, &mut spec, "preemptionPolicy", json!("Never"));
    maybe(rng, &mut spec, "nodeSelector", json!({"zone": "a"}));
    let mut requirement = Map::new();
    maybe(rng, &mut requirement, "key", json!("metadata.name"));
    maybe(rng, &mut requirement, "operator", json!("In"));
    maybe(rng, &mut requirement, "values", json!([format!("node-{node}"), null]));
    let mut term = Map::new();
    maybe(rng, &mut term, "matchFields", json!([Value::Object(requirement.clone()), null]));
    maybe(rng, &mut term, "matchExpressions", json!([Value::Object(requirement)]));
    let mut preferred = Map::new();
    maybe(rng, &mut preferred, "weight", json!(priority));
    maybe(rng, &mut preferred, "preference", Value::Object(term.clone()));
    let mut node_affinity = Map::new();
    maybe(
        rng,
        &mut node_affinity,
        "requiredDuringSchedulingIgnoredDuringExecution",
        json!({"nodeSelectorTerms": [Value::Object(term), null]}),
    );
    maybe(rng, &mut node_affinity, "preferredDuringSchedulingIgnoredDuringExecution", json!([Value::Object(preferred)]));
    let mut affinity = Map::new();
    maybe(rng, &mut affinity, "nodeAffinity", Value::Object(node_affinity));
    maybe(
        rng,
        &mut affinity,
        "podAntiAffinity",
        json!({"requiredDuringSchedulingIgnoredDuringExecution": [
        {"labelSelector": {"matchLabels": {"app": "x"}}, "topologyKey": "kubernetes.io/hostname"}]}),
    );
    maybe(rng, &mut spec, "affinity", Value::Object(affinity));
    maybe(rng, &mut spec, "tolerations", json!([{"key": "k", "operator": "Exists"}]));
    maybe(rng, &mut spec, "containers", json!([Value::Object(container.clone()), null]));
    maybe(rng, &mut spec, "initContainers", json!([Value::Object(container)]));
    maybe(rng, &mut spec, "overhead", json!({"cpu": "10m"}));
    maybe(rng, &mut spec, "resources", json!({"requests": {"cpu": 1}}));
    maybe(rng, &mut spec, "schedulingGates", json!([{"name": "g"}]));
    maybe(
        rng,
        &mut spec,
        "topologySpreadConstraints",
        json!([{"maxSkew": 1, "topologyKey": "zone", "whenUnsatisfiable": "DoNotSchedule"}]),
    );
    maybe(rng, &mut spec, "volumes", json!([{"name": "v", "persistentVolumeClaim": {"claimName": "c"}}]));
    maybe(rng, &mut spec, "hostNetwork", json!(true));
    maybe(
        rng,
        &mut spec,
        "resourceClaims",
        json!([{"name": "r", "resourceClaimTemplateName": "t"}, {"name": "s", "resourceClaimName": "c"}]),
    );
    let mut status = Map::new();
    maybe(rng, &mut status, "phase", json!("Pending"));
    maybe(rng, &mut status, "nominatedNodeName", json!("node-1"));
    maybe(rng, &mut status, "startTime", json!("2026-01-02T03:04:06Z"));
    maybe(
        rng,
        &mut status,
        "conditions",
        json!([{"type": "PodScheduled", "status": "False", "reason": "Unschedulable", "message": "no", "lastProbeTime": null}]),
    );
    maybe(rng, &mut status, "resourceClaimStatuses", json!([{"name": "r", "resourceClaimName": "p-r-x"}, {"name": "s"}]));
    // Container statuses repeating the spec's requests (a cluster at rest), or resized.
    let reported = |rng: &mut Rng| -> Value {
        match rng.below(4) {
            0 | 1 => Value::Object(requests.clone()),
            2 => json!({"cpu": "50m"}),
            _ => json!({"cpu": "100m", "memory": "1Gi"}),
        }
    };
    let (allocated, actual) = (reported(rng), reported(rng));
    let container_status = json!({"name": "c", "ready": true, "allocatedResources": allocated,
                                  "resources": {"requests": actual, "limits": {"memory": "1Gi"}}});
    if rng.below(2) == 0 {
        maybe(rng, &mut status, "containerStatuses", json!([container_status.clone()]));
    } else {
        maybe(rng, &mut status, "initContainerStatuses", json!([container_status, null]));
    }
    if rng.below(4) == 0 {
        status.insert("resources".into(), json!({"requests": {"cpu": "1"}}));
        status.insert("allocatedResources".into(), json!({"cpu": "2"}));
    }
    if rng.below(3) == 0 {
        let resize = json!({"type": "PodResizePending", "status": "True", "reason": "Infeasible"});
        let conditions = status.entry("conditions").or_insert(json!([]));
        if let Some(list) = conditions.as_array_mut() {
            list.push(resize);
        }
    }
    let mut pod = Map::new();
    pod.insert("kind".into(), json!("Pod"));
    maybe(rng, &mut pod, "metadata", Value::Object(meta));
    maybe(rng, &mut pod, "spec", Value::Object(spec));
    maybe(rng, &mut pod, "status", Value::Object(status));
    Value::Object(pod)
}

#[test]
fn random_pods_decode_alike() {
    let mut rng = Rng::seeded(7);
    let mut fast = 0;
    for i in 0..3000 {
        let pod = random_pod(&mut rng, i);
        let text = if i % 2 == 0 { pod.to_string() } else { serde_json::to_string_pretty(&pod).expect("json") };
        fast += usize::from(agree(&text));
    }
    assert!(fast > 100, "{fast}");
}
