//! Pods with ResourceClaims through the whole scheduler core: Reserve's allocations are in
//! flight for the very next cycle, the binding's outcome turns them into assumed claims, a
//! failed binding releases them and asks the shell to take the pod out of `reservedFor`,
//! PostFilter's deallocation leaves as an effect, PreEnqueue holds a pod until the controller
//! made its claim, and unreadable DRA kinds keep only pods with claims back.

use super::tests::{harness, pod, Harness};
use super::*;
use crate::core::api;
use crate::core::framework::plugins::test_util::NodeBuilder;
use crate::core::framework::{ApiWrite, PreBindAction};
use crate::core::gojson;
use crate::core::watched::{Change, KindId};

fn gpu_node(name: &str) -> NodeBuilder {
    super::tests::node(name, "4").labels(&[("kubernetes.io/hostname", name)])
}

fn class() -> api::DeviceClass {
    gojson::from_value(serde_json::json!({"metadata": {"name": "gpu"}})).expect("class")
}

fn slice(node: &str, devices: usize) -> api::ResourceSlice {
    let devices: Vec<serde_json::Value> = (0..devices).map(|i| serde_json::json!({"name": format!("gpu-{i}")})).collect();
    gojson::from_value(serde_json::json!({
        "metadata": {"name": format!("{node}-gpu")},
        "spec": {"driver": "gpu.example.com", "nodeName": node, "pool": {"name": node, "generation": 1, "resourceSliceCount": 1},
                 "devices": devices}
    }))
    .expect("slice")
}

fn claim(name: &str) -> api::ResourceClaim {
    gojson::from_value(serde_json::json!({
        "metadata": {"name": name, "namespace": "default", "uid": format!("uid-{name}"), "resourceVersion": "10"},
        "spec": {"devices": {"requests": [{"name": "gpu", "exactly": {"deviceClassName": "gpu", "allocationMode": "ExactCount", "count": 1}}]}}
    }))
    .expect("claim")
}

fn with_claim(
    p: super::super::framework::plugins::test_util::PodBuilder,
    claim: &str,
) -> super::super::framework::plugins::test_util::PodBuilder {
    let mut p = p;
    p.pod.spec.resource_claims = vec![api::PodResourceClaim {
        name: "gpu".into(),
        resource_claim_name: Some(claim.into()),
        resource_claim_template_name: None,
    }];
    p
}

/// A scheduler for `edgesched` that watches the DRA kinds, with one GPU node per name.
fn dra_harness(nodes: &[&str], devices: usize, claims: &[api::ResourceClaim]) -> Harness {
    let mut h = harness(&["edgesched"]);
    h.s.watch_kinds(&[KindId::Node, KindId::Pod, KindId::DeviceClass, KindId::ResourceSlice, KindId::ResourceClaim]);
    h.feed::<api::DeviceClass>(Change::ListBegin);
    h.feed(Change::ListPage(vec![class()]));
    h.feed::<api::DeviceClass>(Change::ListDone);
    h.feed::<api::ResourceSlice>(Change::ListBegin);
    h.feed(Change::ListPage(nodes.iter().map(|n| slice(n, devices)).collect()));
    h.feed::<api::ResourceSlice>(Change::ListDone);
    h.feed::<api::ResourceClaim>(Change::ListBegin);
    h.feed(Change::ListPage(claims.to_vec()));
    h.feed::<api::ResourceClaim>(Change::ListDone);
    let nodes: Vec<NodeBuilder> = nodes.iter().map(|n| gpu_node(n)).collect();
    h.start(&nodes, &[]);
    h
}

/// The binds among the effects, with their claim reservations.
fn binds(h: &mut Harness) -> Vec<BindRequest> {
    h.s.take_effects()
        .into_iter()
        .filter_map(|e| match e {
            Effect::Bind(b) => Some(b),
            _ => None,
        })
        .collect()
}

/// What PreBind would write for the bind: the claims with allocation and reservation.
fn written(b: &BindRequest) -> Vec<api::ResourceClaim> {
    b.pre_bind
        .iter()
        .filter_map(|a| match a {
            PreBindAction::ReserveClaim(r) => {
                let mut c = crate::core::dra::claim_writes::with_finalizer(&r.claim).unwrap_or_else(|| (*r.claim).clone());
                c.metadata.resource_version = "20".into();
                Some(crate::core::dra::claim_writes::reserved(&c, r.allocation.as_ref(), &r.pod_name, &r.pod_uid))
            }
            _ => None,
        })
        .collect()
}

#[test]
fn reserve_makes_devices_taken_for_the_next_cycle() {
    let mut h = dra_harness(&["n1"], 1, &[claim("a"), claim("b")]);
    h.feed(Change::Added(with_claim(pod("a", "1"), "a").pod));
    h.feed(Change::Added(with_claim(pod("b", "1"), "b").pod));
    let attempts = h.cycles();
    assert!(matches!(&attempts[0], Attempt::Scheduled { node, .. } if &**node == "n1"), "{attempts:?}");
    match &attempts[1] {
        Attempt::Unschedulable { message, .. } => {
            assert!(message.starts_with("0/1 nodes are available: 1 cannot allocate all claims."), "{message}")
        }
        other => panic!("{other:?}"),
    }
    assert_eq!(h.s.cache().dra().num_in_flight(), 1);
    assert_eq!(h.s.cache().dra().allocated().len(), 1);
    let b = binds(&mut h).remove(0);
    let reservations: Vec<&PreBindAction> = b.pre_bind.iter().collect();
    assert!(matches!(reservations.as_slice(), [PreBindAction::ReserveClaim(r)] if r.allocation.is_some()), "{reservations:?}");

    // PreBind wrote the claim and the pod was bound: no longer in flight, the claim is assumed
    // with its allocation until the informer delivers it.
    let claims = written(&b);
    let mut done = BindOutcome::new(b.pod.key.clone(), b.node.clone(), Ok(()));
    done.claims = claims.clone();
    h.s.handle(Input::BindDone(done), h.now);
    assert_eq!(h.s.cache().dra().num_in_flight(), 0);
    assert!(h.s.cache().dra().claims().is_assumed("default/a"));
    assert_eq!(h.s.cache().dra().allocated().len(), 1, "the device stays taken");
    // The informer's copy of that very version changes nothing (upstream's assume cache keeps
    // its object); a newer one replaces the assumption.
    h.feed(Change::Modified(claims[0].clone()));
    assert!(h.s.cache().dra().claims().is_assumed("default/a"));
    let mut newer = claims[0].clone();
    newer.metadata.resource_version = "21".into();
    h.feed(Change::Modified(newer));
    assert!(!h.s.cache().dra().claims().is_assumed("default/a"), "the informer caught up");
    assert_eq!(h.s.cache().dra().allocated().len(), 1);
}

#[test]
fn failed_binding_releases_and_unreserves() {
    let mut h = dra_harness(&["n1"], 1, &[claim("a")]);
    h.feed(Change::Added(with_claim(pod("a", "1"), "a").pod));
    h.cycles();
    let b = binds(&mut h).remove(0);
    // The claim was written, then the bind failed: Unreserve asks for the reservedFor removal.
    let mut done = BindOutcome::new(b.pod.key.clone(), b.node.clone(), Err(BindFailure::Other("boom".into())));
    done.claims = written(&b);
    h.s.handle(Input::BindDone(done), h.now);
    assert_eq!(h.s.cache().dra().num_in_flight(), 0);
    let writes: Vec<ApiWrite> =
        h.s.take_effects()
            .into_iter()
            .filter_map(|e| match e {
                Effect::ApiWrite(w) => Some(w),
                _ => None,
            })
            .collect();
    assert_eq!(
        writes,
        vec![ApiWrite::UnreserveClaim {
            namespace: "default".into(),
            name: "a".into(),
            claim_uid: "uid-a".into(),
            pod_uid: "uid-a".into()
        }]
    );
}

#[test]
fn failed_binding_before_any_write_frees_the_devices() {
    let mut h = dra_harness(&["n1"], 1, &[claim("a"), claim("b")]);
    h.feed(Change::Added(with_claim(pod("a", "1"), "a").pod));
    h.cycles();
    let b = binds(&mut h).remove(0);
    h.s.handle(Input::BindDone(BindOutcome::new(b.pod.key.clone(), b.node.clone(), Err(BindFailure::Other("x".into())))), h.now);
    assert_eq!(h.s.cache().dra().num_in_flight(), 0);
    assert!(h.s.cache().dra().allocated().is_empty());
    assert!(!h.s.take_effects().iter().any(|e| matches!(e, Effect::ApiWrite(_))), "nothing was reserved: nothing to unreserve");
}

#[test]
fn claims_of_templates_hold_the_pod_until_created() {
    let mut h = dra_harness(&["n1"], 1, &[]);
    let mut p = pod("a", "1");
    p.pod.spec.resource_claims = vec![api::PodResourceClaim {
        name: "gpu".into(),
        resource_claim_name: None,
        resource_claim_template_name: Some("tmpl".into()),
    }];
    h.feed(Change::Added(p.pod.clone()));
    assert!(h.cycles().is_empty(), "gated: the claim is not created yet");
    // The controller creates the claim, owned by the pod, and records it in the pod's status.
    let mut c = claim("a-gpu-x");
    c.metadata.owner_references = vec![api::OwnerReference {
        api_version: "v1".into(),
        kind: "Pod".into(),
        name: "a".into(),
        uid: "uid-a".into(),
        controller: Some(true),
    }];
    h.feed(Change::Added(c));
    assert!(h.cycles().is_empty(), "still gated: the pod's status does not name it");
    p.pod.status.resource_claim_statuses =
        vec![api::PodResourceClaimStatus { name: "gpu".into(), resource_claim_name: Some("a-gpu-x".into()) }];
    h.feed(Change::Modified(p.pod));
    let attempts = h.cycles();
    assert!(matches!(&attempts[..], [Attempt::Scheduled { .. }]), "{attempts:?}");
}

#[test]
fn unreadable_kinds_hold_back_pods_with_claims_only() {
    let mut h = harness(&["edgesched"]);
    h.s.watch_kinds(&[KindId::Node, KindId::Pod, KindId::ResourceClaim]);
    h.feed::<api::ResourceClaim>(Change::Unavailable);
    h.start(&[gpu_node("n1")], &[]);
    h.feed(Change::Added(with_claim(pod("a", "1"), "a").pod));
    h.feed(Change::Added(pod("plain", "1").pod));
    let attempts = h.cycles();
    assert!(attempts.iter().any(|a| matches!(a, Attempt::Scheduled { pod, .. } if &**pod == "default/plain")), "{attempts:?}");
    let held = attempts.iter().find_map(|a| match a {
        Attempt::Unschedulable { pod, message } if &**pod == "default/a" => Some(message.clone()),
        _ => None,
    });
    assert_eq!(
        held.as_deref(),
        Some("0/1 nodes are available: the resource.k8s.io/v1 kinds resourceclaims cannot be read (forbidden by RBAC or not served by the API server); pods with resource claims wait until the scheduler may list and watch them. no new claims to deallocate, preemption: 0/1 nodes are available: 1 Preemption is not helpful for scheduling.")
    );
}

#[test]
fn post_filter_deallocation_is_an_effect() {
    // A claim allocated on another node (gone): the pod fits nowhere, PostFilter deallocates.
    let mut c = claim("a");
    c.status.allocation = Some(
        gojson::from_value(serde_json::json!({
            "devices": {"results": [{"request": "gpu", "driver": "gpu.example.com", "pool": "old", "device": "gpu-0"}]},
            "nodeSelector": {"nodeSelectorTerms": [{"matchFields": [{"key": "metadata.name", "operator": "In", "values": ["old"]}]}]}
        }))
        .expect("allocation"),
    );
    let mut h = dra_harness(&["n1"], 1, &[c]);
    h.feed(Change::Added(with_claim(pod("a", "1"), "a").pod));
    let attempts = h.cycles();
    match &attempts[..] {
        [Attempt::Unschedulable { message, .. }] => assert!(
            message.starts_with(
                "0/1 nodes are available: 1 resourceclaim not available on the node. deallocation of ResourceClaim completed"
            ),
            "{message}"
        ),
        other => panic!("{other:?}"),
    }
    let writes: Vec<String> =
        h.s.take_effects()
            .into_iter()
            .filter_map(|e| match e {
                Effect::ApiWrite(ApiWrite::DeallocateClaim(c)) => Some(format!(
                    "{} allocated={} reserved={}",
                    c.metadata.name,
                    c.status.allocation.is_some(),
                    c.status.reserved_for.len()
                )),
                _ => None,
            })
            .collect();
    assert_eq!(writes, ["a allocated=false reserved=0"]);
}

#[test]
fn pods_without_claims_leave_no_dra_trace() {
    let mut h = dra_harness(&["n1", "n2"], 1, &[]);
    h.feed(Change::Added(pod("plain", "1").pod));
    let attempts = h.cycles();
    assert!(matches!(&attempts[..], [Attempt::Scheduled { .. }]), "{attempts:?}");
    let b = binds(&mut h).remove(0);
    assert!(b.pre_bind.is_empty());
    assert_eq!(h.s.cache().dra().num_in_flight(), 0);
}

#[test]
fn a_pod_with_claims_is_nominated_before_its_binding_cycle() {
    // dynamicresources.go PreBindPreFlight (v1.35): PreBind has work whenever the pod has
    // claims, so NominatedNodeNameForExpectation records the node first.
    let mut h = dra_harness(&["n1"], 1, &[claim("a")]);
    h.feed(Change::Added(with_claim(pod("a", "1"), "a").pod));
    h.cycles();
    assert_eq!(h.effects(), vec![r#"status default/a: nominatedNodeName="n1""#, "bind default/a -> n1"]);
    // Without claims, PreBind has nothing to do: bound without the write.
    h.feed(Change::Added(pod("plain", "100m").pod));
    h.cycles();
    assert_eq!(h.effects(), vec!["bind default/plain -> n1"]);
}
