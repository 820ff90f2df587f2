//! `TestPlugin` of `pkg/scheduler/framework/plugins/dynamicresources/dynamicresources_test.go`
//! (kubernetes/kubernetes v1.35) transcribed: the same objects (built by helpers named after
//! upstream's `st.Make*` wrappers), the same feature switches (the test's defaults: every DRA
//! gate off but the filter timeout), the same sequence of extension points — PreEnqueue,
//! PreFilter, Filter per node (stopping at an error), Score and NormalizeScore when several nodes
//! fit, Reserve on the best node, then Unreserve or PreBind (and Unreserve after a failed bind),
//! or PostFilter when nothing fits — and the same expectations: statuses compared by message as
//! upstream's `verify` does, the claims in flight after Reserve, the claims stored in the API
//! server and the claim assumed after PreBind.
//!
//! Upstream's fake API server is a map of claims here; PreBind's writes are applied to it with
//! the same functions the API workers use ([`crate::core::dra::claim_writes`]), and what they
//! return is handed to the cache as the binding's outcome does.
//!
//! Not transcribed, because edgesched refuses the gates at start-up (see `docs/dra.md`): the
//! `extended-resource-*` cases and `empty-with-extended-resources-enabled` (DRAExtendedResource),
//! the binding-condition cases (`bound-claim-*`, `prebind-fail-with-binding-timeout`,
//! `multi-claims-binding-conditions-*`: DRADeviceBindingConditions); `DRA-disabled`
//! (DynamicResourceAllocation is locked on in v1.35) and `canceled` (edgesched's cycle has no
//! caller that cancels it). `CEL-runtime-error-for-one-of-three-nodes` is transcribed up to its
//! Filter expectation (its PreScore status is a construct of upstream's test harness).

use super::*;
use crate::core::api::{self, ResourceClaim};
use crate::core::cache::Cache;
use crate::core::dra::claim_writes;
use crate::core::framework::plugins::test_util::NodeBuilder;
use crate::core::framework::{Code, PluginState, PostFilterResult, PreBindAction, PreFilterOutcome};
use crate::core::gojson;
use crate::core::model::{NoPriorityClasses, PodInfo};
use crate::core::texts::dynamic_resources as texts;
use std::cell::Cell;
use std::collections::BTreeMap;
use std::sync::Arc;
use std::time::Instant;

pub(super) const NODE: &str = "worker";
pub(super) const NODE2: &str = "worker-2";
pub(super) const NODE3: &str = "worker-3";
pub(super) const DRIVER: &str = "some-driver";
pub(super) const POD: &str = "my-pod";
pub(super) const POD_UID: &str = "1234";
pub(super) const RESOURCE: &str = "my-resource";
pub(super) const CLAIM: &str = "my-pod-my-resource";
pub(super) const CLAIM2: &str = "my-pod-my-resource-2";
pub(super) const CLASS: &str = "my-resource-class";
pub(super) const NS: &str = "default";
const ATTR: &str = "healthy";

// --- Objects (upstream's variables and `st` wrappers) --------------------------------------

/// A node (`st.MakeNode().Name(n).Label("kubernetes.io/hostname", n)`).
pub(super) fn worker(name: &str) -> NodeBuilder {
    NodeBuilder::new(name).labels(&[("kubernetes.io/hostname", name)])
}

/// `st.MakeResourceSlice(node, driver)` with devices (name, attributes as JSON).
pub(super) fn slice(node: &str, driver: &str, devices: &[(&str, serde_json::Value)]) -> api::ResourceSlice {
    let devices: Vec<serde_json::Value> =
        devices.iter().map(|(name, attrs)| serde_json::json!({"name": name, "attributes": attrs})).collect();
    gojson::from_value(serde_json::json!({
        "metadata": {"name": format!("{node}-{driver}")},
        "spec": {"driver": driver, "nodeName": node, "pool": {"name": node, "generation": 1, "resourceSliceCount": 1},
                 "devices": devices}
    }))
    .expect("slice")
}

/// A slice of devices without attributes.
pub(super) fn plain_slice(node: &str, devices: &[&str]) -> api::ResourceSlice {
    let devices: Vec<(&str, serde_json::Value)> = devices.iter().map(|d| (*d, serde_json::json!({}))).collect();
    slice(node, DRIVER, &devices)
}

fn healthy(value: bool) -> serde_json::Value {
    serde_json::json!({ATTR: {"bool": value}})
}

/// `deviceClass`.
pub(super) fn device_class() -> api::DeviceClass {
    gojson::from_value(serde_json::json!({"metadata": {"name": CLASS}})).expect("class")
}

/// `brokenSelector`: an attribute the default node's device lacks.
fn broken_selector() -> serde_json::Value {
    serde_json::json!({"cel": {"expression": format!("device.attributes[\"{DRIVER}\"].{ATTR}")}})
}

/// `st.MakeResourceClaim().Name(name).Namespace(ns)` with requests (JSON), not owned.
pub(super) fn claim_with(name: &str, requests: serde_json::Value) -> ResourceClaim {
    gojson::from_value(serde_json::json!({
        "metadata": {"name": name, "namespace": NS, "uid": format!("uid-{name}"), "resourceVersion": "1"},
        "spec": {"devices": {"requests": requests}}
    }))
    .expect("claim")
}

/// `.Request(className)`: `req-N` asking for one device of the class.
pub(super) fn exact(n: usize, class: &str) -> serde_json::Value {
    serde_json::json!({"name": format!("req-{n}"), "exactly": {"deviceClassName": class, "allocationMode": "ExactCount", "count": 1}})
}

/// `st.SubRequest(name, class, count)`.
fn sub(name: &str, count: i64) -> serde_json::Value {
    serde_json::json!({"name": name, "deviceClassName": CLASS, "allocationMode": "ExactCount", "count": count})
}

/// `st.SubRequestWithSelector(name, class, expr)`.
fn sub_with_selector(name: &str, expression: &str) -> serde_json::Value {
    serde_json::json!({"name": name, "deviceClassName": CLASS, "allocationMode": "ExactCount", "count": 1,
                       "selectors": [{"cel": {"expression": expression}}]})
}

/// `.RequestWithPrioritizedList(subs...)`.
fn prioritized(n: usize, subs: Vec<serde_json::Value>) -> serde_json::Value {
    serde_json::json!({"name": format!("req-{n}"), "firstAvailable": subs})
}

/// `claim`: one request for the class.
pub(super) fn claim() -> ResourceClaim {
    claim_with(CLAIM, serde_json::json!([exact(1, CLASS)]))
}

/// `largeClaim`: five requests.
fn large_claim() -> ResourceClaim {
    claim_with(CLAIM, serde_json::json!((1..=5).map(|n| exact(n, CLASS)).collect::<Vec<_>>()))
}

/// `.OwnerReference(podName, podUID, podKind)`.
pub(super) fn owned(mut c: ResourceClaim) -> ResourceClaim {
    c.metadata.owner_references = vec![api::OwnerReference {
        api_version: "v1".into(),
        kind: "Pod".into(),
        name: POD.into(),
        uid: POD_UID.into(),
        controller: Some(true),
    }];
    c
}

/// `pendingClaim`.
pub(super) fn pending_claim() -> ResourceClaim {
    owned(claim())
}

/// An allocation of `devices` of `DRIVER` on `NODE` for `request` (`allocationResult` and its
/// variants), restricted to the node.
pub(super) fn allocation(results: &[(&str, &str)]) -> api::AllocationResult {
    gojson::from_value(serde_json::json!({
        "devices": {"results": results.iter().map(|(req, dev)| serde_json::json!(
            {"request": req, "driver": DRIVER, "pool": NODE, "device": dev})).collect::<Vec<_>>()},
        "nodeSelector": {"nodeSelectorTerms": [{"matchFields": [{"key": "metadata.name", "operator": "In", "values": [NODE]}]}]}
    }))
    .expect("allocation")
}

/// `st.FromResourceClaim(c).Allocation(a)`: the allocation and the finalizer.
pub(super) fn allocated(mut c: ResourceClaim, a: api::AllocationResult) -> ResourceClaim {
    c.status.allocation = Some(a);
    c.metadata.finalizers = vec![api::CLAIM_FINALIZER.to_string()];
    c
}

/// `allocatedClaim`.
pub(super) fn allocated_claim() -> ResourceClaim {
    allocated(pending_claim(), allocation(&[("req-1", "instance-1")]))
}

/// `reserve(claim, pod)`: the pod in `reservedFor`.
pub(super) fn reserved(mut c: ResourceClaim) -> ResourceClaim {
    c.status.reserved_for.push(claim_writes::pod_reference(POD, POD_UID));
    c
}

/// `adminAccess(claim)`.
fn admin_access(mut c: ResourceClaim) -> ResourceClaim {
    for r in &mut c.spec.devices.requests {
        if let Some(e) = &mut r.exactly {
            e.admin_access = Some(true);
        }
    }
    if let Some(a) = &mut c.status.allocation {
        for r in &mut a.devices.results {
            r.admin_access = Some(true);
        }
    }
    c
}

/// `breakCELInClaim`.
fn break_cel_in_claim(mut c: ResourceClaim) -> ResourceClaim {
    for r in &mut c.spec.devices.requests {
        if let Some(e) = &mut r.exactly {
            e.selectors = vec![gojson::from_value(broken_selector()).expect("selector")];
        }
    }
    c
}

/// `breakCELInClass`.
fn break_cel_in_class(mut c: api::DeviceClass) -> api::DeviceClass {
    c.spec.selectors = vec![gojson::from_value(broken_selector()).expect("selector")];
    c
}

/// `updateDeviceClassName`.
fn with_class(mut c: ResourceClaim, class: &str) -> ResourceClaim {
    for r in &mut c.spec.devices.requests {
        match &mut r.exactly {
            Some(e) => e.device_class_name = class.into(),
            None => r.first_available.iter_mut().for_each(|s| s.device_class_name = class.into()),
        }
    }
    c
}

/// A pod (`st.MakePod().Name(podName).Namespace(namespace).UID(podUID)`) with claims.
pub(super) fn pod_json(claims: serde_json::Value, statuses: serde_json::Value) -> api::Pod {
    gojson::from_value(serde_json::json!({
        "metadata": {"name": POD, "namespace": NS, "uid": POD_UID},
        "spec": {"schedulerName": "default-scheduler", "resourceClaims": claims},
        "status": {"resourceClaimStatuses": statuses}
    }))
    .expect("pod")
}

/// `podWithClaimName`.
pub(super) fn pod_with_claim_name() -> api::Pod {
    pod_json(serde_json::json!([{"name": RESOURCE, "resourceClaimName": CLAIM}]), serde_json::json!([]))
}

/// `podWithTwoClaimNames`.
pub(super) fn pod_with_two_claim_names() -> api::Pod {
    pod_json(
        serde_json::json!([{"name": RESOURCE, "resourceClaimName": CLAIM}, {"name": "my-resource-2", "resourceClaimName": CLAIM2}]),
        serde_json::json!([]),
    )
}

/// `podWithClaimTemplate`.
pub(super) fn pod_with_claim_template() -> api::Pod {
    pod_json(serde_json::json!([{"name": RESOURCE, "resourceClaimTemplateName": CLAIM}]), serde_json::json!([]))
}

/// `podWithClaimTemplateInStatus`.
pub(super) fn pod_with_claim_template_in_status() -> api::Pod {
    pod_json(
        serde_json::json!([{"name": RESOURCE, "resourceClaimTemplateName": CLAIM}]),
        serde_json::json!([{"name": RESOURCE, "resourceClaimName": CLAIM}]),
    )
}

// --- The harness ------------------------------------------------------------------------------

/// A status as upstream's `verify` compares it: rejections by message (its `ErrorContains`),
/// plus the code where the case pins it down.
#[derive(Debug, Clone, PartialEq)]
pub(super) enum Want {
    Ok,
    Skip,
    /// A rejection whose message is this.
    Rejected(&'static str),
    /// An error (`fwk.AsStatus`) with this message.
    Error(String),
}

fn rejected(r: &Rejection) -> Want {
    if r.code == Code::Error {
        Want::Error(r.message())
    } else {
        Want::Rejected(Box::leak(r.message().into_boxed_str()))
    }
}

/// What PreBind and the writes after it must leave in the API server and the cache.
#[derive(Default)]
pub(super) struct Stored {
    /// Claims in the API server afterwards (compared ignoring UID, resourceVersion, device).
    pub claims: Vec<ResourceClaim>,
    /// The claim the cache holds as assumed afterwards.
    pub assumed: Option<ResourceClaim>,
}

/// One case.
#[derive(Default)]
pub(super) struct Case {
    pub name: &'static str,
    pub nodes: Vec<NodeBuilder>,
    pub pod: api::Pod,
    pub claims: Vec<ResourceClaim>,
    pub classes: Vec<api::DeviceClass>,
    pub slices: Vec<api::ResourceSlice>,
    pub args: Option<DynamicResourcesArgs>,
    pub admin_access: bool,
    pub prioritized_list: bool,
    pub device_taints: bool,
    pub disable_filter_timeout: bool,
    /// Change the stored claims right before PreBind (`prepare.prebind`).
    pub before_prebind: Option<fn(&mut ResourceClaim)>,
    pub preenqueue: Option<Want>,
    pub prefilter: Option<Want>,
    /// Per node: Filter's status (nodes not named must pass).
    pub filter: Vec<(&'static str, Want)>,
    pub score: Vec<(&'static str, i64)>,
    pub normalized: Vec<(&'static str, i64)>,
    /// The claims in flight after Reserve.
    pub in_flight: Vec<ResourceClaim>,
    pub prebind: Option<Stored>,
    pub unreserve_before_prebind: bool,
    pub unreserve_after_bind_failure: Option<Stored>,
    /// PostFilter's status message and the claims stored afterwards (`None`: unchanged).
    pub postfilter: Option<(&'static str, Option<Vec<ResourceClaim>>)>,
}

/// A clock that moves one millisecond per reading (so a 1 ns limit is past at the next look).
struct Ticking(Cell<Instant>);

impl Ticker for Ticking {
    fn now(&self) -> Instant {
        let t = self.0.get() + Duration::from_millis(1);
        self.0.set(t);
        t
    }
}

/// Claims as compared (upstream ignores UID, resourceVersion and which device was picked).
fn comparable(claims: &[ResourceClaim]) -> Vec<ResourceClaim> {
    let mut out: Vec<ResourceClaim> = claims
        .iter()
        .map(|c| {
            let mut c = c.clone();
            c.metadata.uid.clear();
            c.metadata.resource_version.clear();
            if let Some(a) = &mut c.status.allocation {
                a.devices.results.iter_mut().for_each(|r| r.device.clear());
            }
            c
        })
        .collect();
    out.sort_by(|a, b| a.metadata.name.cmp(&b.metadata.name));
    out
}

/// The API server of the test: claims by name with resourceVersions.
struct Server {
    claims: BTreeMap<String, ResourceClaim>,
    version: u64,
}

impl Server {
    fn store(&mut self, mut c: ResourceClaim) -> ResourceClaim {
        self.version += 1;
        c.metadata.resource_version = self.version.to_string();
        self.claims.insert(c.metadata.name.clone(), c.clone());
        c
    }

    fn all(&self) -> Vec<ResourceClaim> {
        self.claims.values().cloned().collect()
    }

    /// PreBind's `bindClaim` as the API workers perform it (no conflicts happen here).
    fn bind_claim(&mut self, r: &crate::core::framework::ClaimReservation) -> Result<ResourceClaim, String> {
        let kobj = format!("{}/{}", r.claim.metadata.namespace, r.claim.metadata.name);
        let current = self.claims.get(&r.claim.metadata.name).cloned().ok_or_else(|| format!("claim {kobj} not found"))?;
        if current.metadata.deletion_timestamp.is_some() {
            return Err(crate::core::texts::dynamic_resources::claim_deleted_meanwhile(&kobj));
        }
        let mut base = current.clone();
        if r.allocation.is_some() {
            if current.status.allocation.is_some() {
                return Err(crate::core::texts::dynamic_resources::claim_allocated_elsewhere(&kobj));
            }
            if let Some(with) = claim_writes::with_finalizer(&current) {
                base = self.store(with);
            }
        }
        Ok(self.store(claim_writes::reserved(&base, r.allocation.as_ref(), &r.pod_name, &r.pod_uid)))
    }

    fn apply(&mut self, w: &ApiWrite) {
        match w {
            ApiWrite::DeallocateClaim(c) => {
                self.store((**c).clone());
            }
            ApiWrite::UnreserveClaim { name, pod_uid, .. } => {
                if let Some(c) = self.claims.get(name).cloned() {
                    self.store(claim_writes::unreserved(&c, pod_uid));
                }
            }
        }
    }
}

fn feed(cache: &mut Cache, server: &Server) {
    for c in server.claims.values() {
        cache.dra_mut().upsert_claim(c.clone());
    }
}

/// Run one case and check every expectation.
pub(super) fn run(case: Case) {
    let name = case.name;
    let nodes = if case.nodes.is_empty() { vec![worker(NODE)] } else { case.nodes };
    let mut cache = crate::core::framework::plugins::test_util::cache_with(&nodes, &[]);
    let mut server = Server { claims: BTreeMap::new(), version: 0 };
    for c in case.claims {
        server.store(c);
    }
    feed(&mut cache, &server);
    for class in case.classes {
        cache.dra_mut().upsert_class(class);
    }
    for s in &case.slices {
        cache.dra_mut().upsert_slice(s).expect("slice");
    }
    cache.prepare();
    let features = DraFeatures {
        allocator: Features {
            admin_access: case.admin_access,
            prioritized_list: case.prioritized_list,
            device_taints: case.device_taints,
            ..Default::default()
        },
        filter_timeout: !case.disable_filter_timeout,
    };
    let pl = DynamicResources::with_features(case.args.as_ref(), features);
    let pod = Arc::new(PodInfo::from_api(&case.pod, &NoPriorityClasses));
    let clock = Ticking(Cell::new(Instant::now()));

    // PreEnqueue.
    let got = match pl.pre_enqueue(&cache, &pod) {
        Ok(()) => Want::Ok,
        Err(r) => rejected(&r),
    };
    assert_eq!(got, case.preenqueue.clone().unwrap_or(Want::Ok), "{name}: PreEnqueue");
    if got != Want::Ok {
        return;
    }

    // PreFilter.
    let mut state: PluginState = None;
    let got = match pl.pre_filter(&cache, &pod, &mut state) {
        PreFilterOutcome::Continue => Want::Ok,
        PreFilterOutcome::Skip => Want::Skip,
        PreFilterOutcome::Reject(r) => rejected(&r),
        PreFilterOutcome::Nodes(n) => panic!("{name}: unexpected node set {n:?}"),
    };
    assert_eq!(got, case.prefilter.clone().unwrap_or(Want::Ok), "{name}: PreFilter");
    let mut unschedulable = matches!(got, Want::Rejected(_) | Want::Error(_));

    // Filter, node by node; an error aborts scheduling.
    let mut feasible: Vec<&str> = Vec::new();
    if !unschedulable {
        for n in &nodes {
            let node_name: &str = &n.node.metadata.name;
            let info = cache.node_by_name(node_name).expect("node");
            let got = match pl.filter_timed(&cache, &pod, info, &state, Some(&clock)) {
                Ok(()) => Want::Ok,
                Err(r) => rejected(&r),
            };
            let want = case.filter.iter().find(|(n, _)| *n == node_name).map(|(_, w)| w.clone()).unwrap_or(Want::Ok);
            assert_eq!(got, want, "{name}: Filter on {node_name}");
            match got {
                Want::Ok => feasible.push(node_name),
                Want::Error(_) => return,
                _ => {}
            }
        }
        unschedulable = feasible.is_empty();
    }

    // Score and NormalizeScore when there is a choice.
    let mut scores: Vec<(String, i64)> = Vec::new();
    if !unschedulable && feasible.len() > 1 {
        let runs = pl.pre_score(&cache, &pod, &[], &mut state) == PreScoreOutcome::Run;
        for &n in &feasible {
            let s = if runs { pl.score(&cache, &pod, cache.node_by_name(n).expect("node"), &state).expect("score") } else { 0 };
            let want = case.score.iter().find(|(w, _)| *w == n).map(|(_, s)| *s).unwrap_or(0);
            assert_eq!(s, want, "{name}: Score on {n}");
            scores.push((n.to_string(), s));
        }
        let mut raw: Vec<i64> = scores.iter().map(|(_, s)| *s).collect();
        pl.normalize(&pod, &mut raw, &state);
        if !case.normalized.is_empty() {
            let got: Vec<(&str, i64)> = scores.iter().map(|(n, _)| n.as_str()).zip(raw.iter().copied()).collect();
            assert_eq!(got, case.normalized, "{name}: NormalizeScore");
        }
        for (s, r) in scores.iter_mut().zip(raw) {
            s.1 = r;
        }
    }

    if unschedulable || feasible.is_empty() {
        // PostFilter.
        let result: PostFilterResult = post_filter::post_filter(&pod, state::of(&state));
        let message = result.rejection.as_ref().map(|r| r.message()).unwrap_or_default();
        let (want_message, want_claims) = case.postfilter.unwrap_or((texts::NO_NEW_CLAIMS_TO_DEALLOCATE, None));
        assert_eq!(message, want_message, "{name}: PostFilter");
        let before = server.all();
        for w in &result.writes {
            server.apply(w);
        }
        assert_eq!(comparable(&server.all()), comparable(&want_claims.unwrap_or(before)), "{name}: claims after PostFilter");
        return;
    }

    // Reserve on the best node (the first of the highest scores, as upstream's harness picks).
    let selected = match scores.iter().fold(None::<&(String, i64)>, |best, s| match best {
        Some(b) if b.1 >= s.1 => Some(b),
        _ => Some(s),
    }) {
        Some((n, _)) => n.clone(),
        None => feasible[0].to_string(),
    };
    let node = cache.node_by_name(&selected).expect("node").clone();
    let actions = pl.reserve(&cache, &pod, &node, &state).unwrap_or_else(|r| panic!("{name}: Reserve: {r:?}"));
    // The scheduler core records Reserve's allocations as in flight.
    for a in &actions {
        if let PreBindAction::ReserveClaim(r) = a {
            if let Some(alloc) = &r.allocation {
                let mut c = claim_writes::with_finalizer(&r.claim).unwrap_or_else(|| (*r.claim).clone());
                c.status.allocation = Some(alloc.clone());
                cache.dra_mut().signal_pending_allocation(&pod.key, Arc::new(c));
            }
        }
    }
    let in_flight: Vec<ResourceClaim> = cache.dra().pending_allocations_of(&pod.key).map(|f| (*f.claim).clone()).collect();
    assert_eq!(comparable(&in_flight), comparable(&case.in_flight), "{name}: claims in flight after Reserve");

    if case.unreserve_before_prebind {
        // Another PreBind plugin failed: Unreserve; nothing is written, nothing stays in flight.
        cache.dra_mut().remove_pending_allocations_of(&pod.key);
        let writes = pl.unreserve_writes(&cache, &pod, &selected);
        assert!(writes.is_empty(), "{name}: Unreserve before PreBind writes nothing: {writes:?}");
        assert_eq!(cache.dra().num_in_flight(), 0, "{name}: in flight after Unreserve");
        return;
    }

    // PreBind, as the API workers run it, then its outcome handed to the cache.
    if let Some(change) = case.before_prebind {
        for c in server.claims.values_mut() {
            change(c);
        }
        let changed: Vec<ResourceClaim> = server.claims.values().cloned().collect();
        for c in changed {
            let stored = server.store(c);
            cache.dra_mut().upsert_claim(stored);
        }
    }
    let mut written = Vec::new();
    for a in &actions {
        if let PreBindAction::ReserveClaim(r) = a {
            written.push(server.bind_claim(r).unwrap_or_else(|e| panic!("{name}: PreBind: {e}")));
        }
    }
    cache.dra_mut().remove_pending_allocations_of(&pod.key);
    for c in written {
        let _ = cache.dra_mut().assume_claim(c);
    }
    let want = case.prebind.unwrap_or_default();
    if !want.claims.is_empty() {
        assert_eq!(comparable(&server.all()), comparable(&want.claims), "{name}: claims after PreBind");
    }
    check_assumed(name, &cache, want.assumed.as_ref(), "PreBind");

    if let Some(after) = case.unreserve_after_bind_failure {
        for w in pl.unreserve_writes(&cache, &pod, &selected) {
            server.apply(&w);
        }
        assert_eq!(comparable(&server.all()), comparable(&after.claims), "{name}: claims after Unreserve");
    }
}

/// The claim the cache holds as assumed (or as the informer's, when equal) must be `want`.
fn check_assumed(name: &str, cache: &Cache, want: Option<&ResourceClaim>, step: &str) {
    let Some(want) = want else {
        let assumed: Vec<&String> = cache.dra().claims().keys().filter(|k| cache.dra().claims().is_assumed(k)).collect();
        assert!(assumed.is_empty(), "{name}: no claim assumed after {step}, got {assumed:?}");
        return;
    };
    let got = cache.dra().claims().get(&format!("{}/{}", want.metadata.namespace, want.metadata.name)).map(|c| (**c).clone());
    assert_eq!(
        comparable(&got.into_iter().collect::<Vec<_>>()),
        comparable(std::slice::from_ref(want)),
        "{name}: assumed claim after {step}"
    );
}

// --- The cases ----------------------------------------------------------------------------------

/// `inUseClaim.Status`: allocated and reserved for the pod.
fn in_use(c: ResourceClaim) -> ResourceClaim {
    reserved(c)
}

/// The stored claims after a PreBind that wrote `c` (with `other` unchanged).
fn stored(claims: &[ResourceClaim], assumed: ResourceClaim) -> Stored {
    Stored { claims: claims.to_vec(), assumed: Some(assumed) }
}

#[test]
fn empty() {
    run(Case {
        name: "empty",
        pod: gojson::from_value(serde_json::json!({"metadata": {"name": "foo", "namespace": "default"}})).expect("pod"),
        prefilter: Some(Want::Skip),
        postfilter: Some((texts::NO_NEW_CLAIMS_TO_DEALLOCATE, None)),
        ..Default::default()
    });
}

#[test]
fn claim_reference() {
    let other = claim_with("not-my-claim", serde_json::json!([exact(1, CLASS)]));
    run(Case {
        name: "claim-reference",
        pod: pod_with_claim_name(),
        claims: vec![allocated_claim(), other.clone()],
        prebind: Some(stored(&[reserved(allocated_claim()), other], reserved(allocated_claim()))),
        ..Default::default()
    });
}

#[test]
fn claim_template() {
    let other = claim_with("not-my-claim", serde_json::json!([exact(1, CLASS)]));
    run(Case {
        name: "claim-template",
        pod: pod_with_claim_template_in_status(),
        claims: vec![allocated_claim(), other.clone()],
        prebind: Some(stored(&[reserved(allocated_claim()), other], reserved(allocated_claim()))),
        ..Default::default()
    });
}

#[test]
fn missing_claim() {
    run(Case {
        name: "missing-claim",
        pod: pod_with_claim_template(),
        claims: vec![allocated_claim()],
        preenqueue: Some(Want::Rejected("pod \"default/my-pod\": ResourceClaim not created yet")),
        ..Default::default()
    });
}

#[test]
fn deleted_claim() {
    let mut c = allocated_claim();
    c.metadata.deletion_timestamp = Some("2025-01-01T00:00:00Z".into());
    run(Case {
        name: "deleted-claim",
        pod: pod_with_claim_template_in_status(),
        claims: vec![c],
        preenqueue: Some(Want::Rejected("resourceclaim \"my-pod-my-resource\" is being deleted")),
        ..Default::default()
    });
}

#[test]
fn wrong_claim() {
    let mut c = allocated_claim();
    c.metadata.owner_references[0].uid += "123";
    run(Case {
        name: "wrong-claim",
        pod: pod_with_claim_template_in_status(),
        claims: vec![c],
        preenqueue: Some(Want::Rejected(
            "ResourceClaim default/my-pod-my-resource was not created for pod default/my-pod (pod is not owner)",
        )),
        ..Default::default()
    });
}

#[test]
fn no_resources() {
    run(Case {
        name: "no-resources",
        pod: pod_with_claim_name(),
        claims: vec![pending_claim()],
        classes: vec![device_class()],
        filter: vec![(NODE, Want::Rejected("cannot allocate all claims"))],
        postfilter: Some(("still not schedulable", None)),
        ..Default::default()
    });
}

/// The `with-resources` family: a pending claim, its class and one device on the node; Reserve
/// puts the allocation in flight, PreBind stores it with the finalizer and the reservation.
fn with_resources(name: &'static str) -> Case {
    Case {
        name,
        pod: pod_with_claim_name(),
        claims: vec![pending_claim()],
        classes: vec![device_class()],
        slices: vec![plain_slice(NODE, &["instance-1"])],
        in_flight: vec![allocated_claim()],
        prebind: Some(stored(&[in_use(allocated_claim())], reserved(allocated_claim()))),
        ..Default::default()
    }
}

/// `pendingClaim` with the finalizer already set (the scheduler was interrupted before).
fn pending_claim_with_finalizer() -> ResourceClaim {
    let mut c = pending_claim();
    c.metadata.finalizers = vec![api::CLAIM_FINALIZER.to_string()];
    c
}

#[test]
fn with_resources_case() {
    run(with_resources("with-resources"));
}

#[test]
fn with_resources_has_finalizer() {
    run(Case { claims: vec![pending_claim_with_finalizer()], ..with_resources("with-resources-has-finalizer") });
}

#[test]
fn with_resources_finalizer_gets_removed() {
    run(Case {
        claims: vec![pending_claim_with_finalizer()],
        before_prebind: Some(|c| c.metadata.finalizers.clear()),
        ..with_resources("with-resources-finalizer-gets-removed")
    });
}

#[test]
fn with_resources_finalizer_gets_added() {
    run(Case {
        before_prebind: Some(|c| c.metadata.finalizers = vec![api::CLAIM_FINALIZER.to_string()]),
        ..with_resources("with-resources-finalizer-gets-added")
    });
}

#[test]
fn skip_bind() {
    run(Case { prebind: None, unreserve_before_prebind: true, ..with_resources("skip-bind") });
}

/// `otherAllocatedClaim`.
fn other_allocated_claim() -> ResourceClaim {
    allocated(claim_with("not-my-claim", serde_json::json!([exact(1, CLASS)])), allocation(&[("req-1", "instance-1")]))
}

#[test]
fn exhausted_resources() {
    run(Case {
        name: "exhausted-resources",
        pod: pod_with_claim_name(),
        claims: vec![pending_claim(), other_allocated_claim()],
        classes: vec![device_class()],
        slices: vec![plain_slice(NODE, &["instance-1"])],
        filter: vec![(NODE, Want::Rejected("cannot allocate all claims"))],
        postfilter: Some(("still not schedulable", None)),
        ..Default::default()
    });
}

/// `taintDevices(workerNodeSlice)`.
fn tainted_slice() -> api::ResourceSlice {
    let mut s = plain_slice(NODE, &["instance-1"]);
    for d in &mut s.spec.devices {
        d.taints.push(api::DeviceTaint {
            key: "taint-key".into(),
            value: "taint-value".into(),
            effect: "NoSchedule".into(),
            time_added: None,
        });
    }
    s
}

#[test]
fn tainted_device_disabled() {
    run(Case { slices: vec![tainted_slice()], ..with_resources("tainted-device-disabled") });
}

#[test]
fn tainted_device_enabled() {
    run(Case {
        name: "tainted-device-enabled",
        device_taints: true,
        pod: pod_with_claim_name(),
        claims: vec![pending_claim()],
        classes: vec![device_class()],
        slices: vec![tainted_slice()],
        filter: vec![(NODE, Want::Rejected("cannot allocate all claims"))],
        postfilter: Some(("still not schedulable", None)),
        ..Default::default()
    });
}

#[test]
fn request_admin_access_with_dra_admin_access_featuregate() {
    run(Case {
        name: "request-admin-access-with-DRAAdminAccess-featuregate",
        admin_access: true,
        pod: pod_with_claim_name(),
        claims: vec![admin_access(pending_claim()), other_allocated_claim()],
        classes: vec![device_class()],
        slices: vec![plain_slice(NODE, &["instance-1"])],
        in_flight: vec![admin_access(allocated_claim())],
        prebind: Some(stored(
            &[in_use(admin_access(allocated_claim())), other_allocated_claim()],
            reserved(admin_access(allocated_claim())),
        )),
        ..Default::default()
    });
}

#[test]
fn request_admin_access_without_dra_admin_access_featuregate() {
    run(Case {
        name: "request-admin-access-without-DRAAdminAccess-featuregate",
        pod: pod_with_claim_name(),
        claims: vec![admin_access(pending_claim()), other_allocated_claim()],
        classes: vec![device_class()],
        slices: vec![plain_slice(NODE, &["instance-1"])],
        filter: vec![(
            NODE,
            Want::Error(
                "claim default/my-pod-my-resource, request req-1: admin access is requested, but the feature is disabled".into(),
            ),
        )],
        ..Default::default()
    });
}

#[test]
fn structured_ignore_allocated_admin_access() {
    run(Case {
        name: "structured-ignore-allocated-admin-access",
        pod: pod_with_claim_name(),
        claims: vec![pending_claim(), admin_access(other_allocated_claim())],
        classes: vec![device_class()],
        slices: vec![plain_slice(NODE, &["instance-1"])],
        in_flight: vec![allocated_claim()],
        prebind: Some(stored(&[in_use(allocated_claim()), admin_access(other_allocated_claim())], reserved(allocated_claim()))),
        ..Default::default()
    });
}

#[test]
fn claim_parameters_cel_runtime_error() {
    run(Case {
        name: "claim-parameters-CEL-runtime-error",
        pod: pod_with_claim_name(),
        claims: vec![break_cel_in_claim(pending_claim())],
        classes: vec![device_class()],
        slices: vec![plain_slice(NODE, &["instance-1"])],
        filter: vec![(
            NODE,
            Want::Error("claim default/my-pod-my-resource: selector #0: CEL runtime error: no such key: healthy".into()),
        )],
        ..Default::default()
    });
}

#[test]
fn class_parameters_cel_runtime_error() {
    run(Case {
        name: "class-parameters-CEL-runtime-error",
        pod: pod_with_claim_name(),
        claims: vec![pending_claim()],
        classes: vec![break_cel_in_class(device_class())],
        slices: vec![plain_slice(NODE, &["instance-1"])],
        filter: vec![(NODE, Want::Error("class my-resource-class: selector #0: CEL runtime error: no such key: healthy".into()))],
        ..Default::default()
    });
}

#[test]
fn cel_runtime_error_for_one_of_two_nodes() {
    run(Case {
        name: "CEL-runtime-error-for-one-of-two-nodes",
        nodes: vec![worker(NODE), worker(NODE2)],
        pod: pod_with_claim_name(),
        claims: vec![break_cel_in_claim(pending_claim())],
        classes: vec![device_class()],
        slices: vec![plain_slice(NODE, &["instance-1"]), slice(NODE2, DRIVER, &[("instance-1", healthy(true))])],
        filter: vec![(
            NODE,
            Want::Error("claim default/my-pod-my-resource: selector #0: CEL runtime error: no such key: healthy".into()),
        )],
        ..Default::default()
    });
}

#[test]
fn cel_runtime_error_for_one_of_three_nodes() {
    run(Case {
        name: "CEL-runtime-error-for-one-of-three-nodes",
        nodes: vec![worker(NODE), worker(NODE2), worker(NODE3)],
        pod: pod_with_claim_name(),
        claims: vec![break_cel_in_claim(pending_claim())],
        classes: vec![device_class()],
        slices: vec![
            plain_slice(NODE, &["instance-1"]),
            slice(NODE2, DRIVER, &[("instance-1", healthy(true))]),
            slice(NODE3, DRIVER, &[("instance-1", healthy(true))]),
        ],
        filter: vec![(
            NODE,
            Want::Error("claim default/my-pod-my-resource: selector #0: CEL runtime error: no such key: healthy".into()),
        )],
        ..Default::default()
    });
}

#[test]
fn missing_class() {
    run(Case {
        name: "missing-class",
        pod: pod_with_claim_name(),
        claims: vec![pending_claim()],
        prefilter: Some(Want::Rejected("request req-1: device class my-resource-class does not exist")),
        postfilter: Some((texts::NO_NEW_CLAIMS_TO_DEALLOCATE, None)),
        ..Default::default()
    });
}

/// `allocatedClaimWithWrongTopology` / `...GoodTopology`: an allocation without devices whose
/// node selector is a label requirement.
fn allocated_with_topology(key: &str, value: &str) -> ResourceClaim {
    let a: api::AllocationResult = gojson::from_value(serde_json::json!({
        "nodeSelector": {"nodeSelectorTerms": [{"matchExpressions": [{"key": key, "operator": "In", "values": [value]}]}]}
    }))
    .expect("allocation");
    allocated(pending_claim(), a)
}

#[test]
fn wrong_topology() {
    let c = allocated_with_topology("no-such-label", "no-such-value");
    let mut deallocated = c.clone();
    deallocated.status.allocation = None;
    run(Case {
        name: "wrong-topology",
        pod: pod_with_claim_name(),
        claims: vec![c],
        filter: vec![(NODE, Want::Rejected("resourceclaim not available on the node"))],
        postfilter: Some(("deallocation of ResourceClaim completed", Some(vec![deallocated]))),
        ..Default::default()
    });
}

#[test]
fn good_topology() {
    let c = allocated_with_topology("kubernetes.io/hostname", NODE);
    run(Case {
        name: "good-topology",
        pod: pod_with_claim_name(),
        claims: vec![c.clone()],
        prebind: Some(stored(&[reserved(c.clone())], reserved(c))),
        ..Default::default()
    });
}

#[test]
fn bind_failure() {
    let c = allocated_with_topology("kubernetes.io/hostname", NODE);
    run(Case {
        name: "bind-failure",
        pod: pod_with_claim_name(),
        claims: vec![c.clone()],
        prebind: Some(stored(&[reserved(c.clone())], reserved(c.clone()))),
        unreserve_after_bind_failure: Some(Stored { claims: vec![c], assumed: None }),
        ..Default::default()
    });
}

#[test]
fn reserved_okay() {
    run(Case {
        name: "reserved-okay",
        pod: pod_with_claim_name(),
        claims: vec![in_use(allocated_claim())],
        prebind: Some(Stored { claims: vec![in_use(allocated_claim())], assumed: None }),
        ..Default::default()
    });
}

#[test]
fn claim_with_request_with_unknown_device_class() {
    run(Case {
        name: "claim-with-request-with-unknown-device-class",
        pod: pod_with_claim_name(),
        claims: vec![with_class(claim(), "does-not-exist")],
        prefilter: Some(Want::Rejected("request req-1: device class does-not-exist does not exist")),
        postfilter: Some((texts::NO_NEW_CLAIMS_TO_DEALLOCATE, None)),
        ..Default::default()
    });
}

/// `claimWithPrioritzedList`: `req-1` with one alternative, `subreq-1`.
fn prioritized_claim() -> ResourceClaim {
    claim_with(CLAIM, serde_json::json!([prioritized(1, vec![sub("subreq-1", 1)])]))
}

#[test]
fn claim_with_prioritized_list_feature_disabled() {
    run(Case {
        name: "claim-with-prioritized-list-feature-disabled",
        pod: pod_with_claim_name(),
        claims: vec![prioritized_claim()],
        classes: vec![device_class()],
        prefilter: Some(Want::Rejected(
            "resource claim default/my-pod-my-resource, request req-1: has subrequests, but the DRAPrioritizedList feature is disabled",
        )),
        postfilter: Some((texts::NO_NEW_CLAIMS_TO_DEALLOCATE, None)),
        ..Default::default()
    });
}

#[test]
fn claim_with_prioritized_list_unknown_device_class() {
    run(Case {
        name: "claim-with-prioritized-list-unknown-device-class",
        prioritized_list: true,
        pod: pod_with_claim_name(),
        claims: vec![with_class(prioritized_claim(), "does-not-exist")],
        prefilter: Some(Want::Rejected("request req-1/subreq-1: device class does-not-exist does not exist")),
        postfilter: Some((texts::NO_NEW_CLAIMS_TO_DEALLOCATE, None)),
        ..Default::default()
    });
}

#[test]
fn claim_with_prioritized_list() {
    let allocated_claim = allocated(owned(prioritized_claim()), allocation(&[("req-1/subreq-1", "instance-1")]));
    run(Case {
        name: "claim-with-prioritized-list",
        prioritized_list: true,
        pod: pod_with_claim_name(),
        claims: vec![owned(prioritized_claim())],
        classes: vec![device_class()],
        slices: vec![plain_slice(NODE, &["instance-1"])],
        in_flight: vec![allocated_claim.clone()],
        prebind: Some(stored(&[in_use(allocated_claim.clone())], reserved(allocated_claim))),
        ..Default::default()
    });
}

/// `DynamicResourcesArgs{FilterTimeout: d}`.
fn filter_timeout(d: Duration) -> DynamicResourcesArgs {
    DynamicResourcesArgs { filter_timeout: crate::core::config::GoDuration(d), ..Default::default() }
}

#[test]
fn timeout() {
    run(Case {
        name: "timeout",
        args: Some(DynamicResourcesArgs {
            filter_timeout: crate::core::config::GoDuration(Duration::from_nanos(1)),
            ..Default::default()
        }),
        pod: pod_with_claim_name(),
        claims: vec![large_claim()],
        classes: vec![device_class()],
        slices: vec![plain_slice(NODE, &["instance-1", "instance-2", "instance-3", "instance-4"])],
        filter: vec![(NODE, Want::Rejected("timed out trying to allocate devices"))],
        postfilter: Some(("still not schedulable", None)),
        ..Default::default()
    });
}

#[test]
fn timeout_disabled() {
    run(Case {
        disable_filter_timeout: true,
        args: Some(filter_timeout(Duration::from_nanos(1))),
        ..with_resources("timeout_disabled")
    });
}

#[test]
fn timeout_zero() {
    run(Case { args: Some(filter_timeout(Duration::ZERO)), ..with_resources("timeout_zero") });
}

#[test]
fn single_claim_prioritized_list_scoring() {
    let expression = format!("device.attributes[\"{DRIVER}\"].{ATTR}");
    let pending = owned(claim_with(
        CLAIM,
        serde_json::json!([prioritized(1, vec![sub_with_selector("subreq-1", &expression), sub("subreq-2", 1)])]),
    ));
    let allocated_claim = allocated(pending.clone(), allocation(&[("req-1/subreq-1", "instance-1")]));
    run(Case {
        name: "single-claim-prioritized-list-scoring",
        prioritized_list: true,
        nodes: vec![worker(NODE), worker(NODE2)],
        pod: pod_with_claim_name(),
        claims: vec![pending],
        classes: vec![device_class()],
        slices: vec![
            slice(NODE, DRIVER, &[("instance-1", healthy(true))]),
            slice(NODE2, DRIVER, &[("instance-1", healthy(false))]),
        ],
        score: vec![(NODE, 8), (NODE2, 7)],
        normalized: vec![(NODE, 100), (NODE2, 87)],
        in_flight: vec![allocated_claim.clone()],
        prebind: Some(stored(&[in_use(allocated_claim.clone())], reserved(allocated_claim))),
        ..Default::default()
    });
}

#[test]
fn multiple_claims_prioritized_list_scoring() {
    let first = owned(prioritized_claim());
    let second = owned(claim_with(
        CLAIM2,
        serde_json::json!([prioritized(1, vec![sub("subreq-1", 4), sub("subreq-2", 3), sub("subreq-3", 2), sub("subreq-4", 1)])]),
    ));
    let first_allocated = allocated(first.clone(), allocation(&[("req-1/subreq-1", "instance-1")]));
    let second_allocated = allocated(
        second.clone(),
        allocation(&[("req-1/subreq-2", "instance-1"), ("req-1/subreq-2", "instance-2"), ("req-1/subreq-2", "instance-3")]),
    );
    run(Case {
        name: "multiple-claims-prioritized-list-scoring",
        prioritized_list: true,
        nodes: vec![worker(NODE), worker(NODE2), worker(NODE3)],
        pod: pod_with_two_claim_names(),
        claims: vec![first, second],
        classes: vec![device_class()],
        slices: vec![
            plain_slice(NODE, &["instance-1", "instance-2", "instance-3", "instance-4"]),
            plain_slice(NODE2, &["instance-1", "instance-2"]),
            plain_slice(NODE3, &["instance-1"]),
        ],
        filter: vec![(NODE3, Want::Rejected("cannot allocate all claims"))],
        score: vec![(NODE, 15), (NODE2, 13)],
        normalized: vec![(NODE, 100), (NODE2, 86)],
        in_flight: vec![first_allocated.clone(), second_allocated.clone()],
        prebind: Some(stored(&[in_use(first_allocated.clone()), in_use(second_allocated)], reserved(first_allocated))),
        ..Default::default()
    });
}

#[test]
fn multiple_requests_prioritized_list_scoring() {
    let request = |n| prioritized(n, vec![sub("subreq-1", 2), sub("subreq-2", 1)]);
    let pending = owned(claim_with(CLAIM, serde_json::json!([request(1), request(2)])));
    let allocated_claim = allocated(
        pending.clone(),
        allocation(&[
            ("req-1/subreq-1", "instance-1"),
            ("req-1/subreq-1", "instance-2"),
            ("req-2/subreq-1", "instance-1"),
            ("req-2/subreq-1", "instance-2"),
        ]),
    );
    run(Case {
        name: "multiple-requests-prioritized-list-scoring",
        prioritized_list: true,
        nodes: vec![worker(NODE), worker(NODE2), worker(NODE3)],
        pod: pod_with_claim_name(),
        claims: vec![pending],
        classes: vec![device_class()],
        slices: vec![
            plain_slice(NODE, &["instance-1", "instance-2", "instance-3", "instance-4"]),
            plain_slice(NODE2, &["instance-1", "instance-2", "instance-3"]),
            plain_slice(NODE3, &["instance-1", "instance-2"]),
        ],
        score: vec![(NODE, 16), (NODE2, 15), (NODE3, 14)],
        normalized: vec![(NODE, 100), (NODE2, 93), (NODE3, 87)],
        in_flight: vec![allocated_claim.clone()],
        prebind: Some(stored(&[in_use(allocated_claim.clone())], reserved(allocated_claim))),
        ..Default::default()
    });
}

// --- Test_computesScore ---------------------------------------------------------------------

#[test]
fn computes_score() {
    // dynamicresources_test.go Test_computesScore (v1.35), every case.
    let subs = |n: usize| (1..=n).map(|i| sub(&format!("subreq-{i}"), 1)).collect::<Vec<_>>();
    let named = |requests: Vec<(&str, usize)>| {
        claim_with(
            "c",
            serde_json::json!(requests
                .iter()
                .map(|(name, n)| serde_json::json!({"name": name, "firstAvailable": subs(*n)}))
                .collect::<Vec<_>>()),
        )
    };
    let results = |requests: &[&str]| -> api::AllocationResult {
        gojson::from_value(serde_json::json!({"devices": {"results": requests.iter().map(|r| serde_json::json!({"request": r})).collect::<Vec<_>>()}}))
            .expect("allocation")
    };
    type ScoreCase<'a> = (&'a str, Vec<ResourceClaim>, Vec<api::AllocationResult>, Result<i64, ()>);
    let cases: Vec<ScoreCase<'_>> = vec![
        ("more-claims-than-allocations", vec![named(vec![("req-1", 1)]), named(vec![("req-2", 1)])], vec![], Err(())),
        ("single-request-only-subrequest-allocated", vec![named(vec![("req-1", 1)])], vec![results(&["req-1/subreq-1"])], Ok(8)),
        ("single-request-last-subrequest-allocated", vec![named(vec![("req-1", 8)])], vec![results(&["req-1/subreq-8"])], Ok(1)),
        (
            "multiple-requests-with-middle-subrequests-allocated",
            vec![named(vec![("req-1", 4), ("req-2", 5)])],
            vec![results(&["req-1/subreq-4", "req-2/subreq-5"])],
            Ok(9),
        ),
        (
            "multiple-requests-with-top-subrequests-allocated",
            vec![named(vec![("req-1", 8), ("req-2", 1)])],
            vec![results(&["req-1/subreq-8", "req-2/subreq-1"])],
            Ok(9),
        ),
        (
            "multiple-claims-with-last-subrequests-allocated",
            vec![named(vec![("req-1", 8)]), named(vec![("req-2", 8)])],
            vec![results(&["req-1/subreq-8"]), results(&["req-2/subreq-8"])],
            Ok(2),
        ),
        (
            "multiple-claims-with-top-subrequests-allocated",
            vec![named(vec![("req-1", 1)]), named(vec![("req-2", 1)])],
            vec![results(&["req-1/subreq-1"]), results(&["req-2/subreq-1"])],
            Ok(16),
        ),
    ];
    for (name, claims, allocations, want) in cases {
        let got = score::compute_score(&claims.iter().map(|c| Arc::new(c.clone())).collect::<Vec<_>>(), &allocations);
        match want {
            Ok(w) => assert_eq!(got, Ok(w), "{name}"),
            Err(()) => assert_eq!(got, Err("number of allocations 0 is smaller than number of claims".to_string()), "{name}"),
        }
    }
}

/// A cache with the case's objects, for the hint tables.
pub(super) fn cache_of(claims: &[ResourceClaim]) -> Cache {
    let mut cache = Cache::new();
    for c in claims {
        cache.dra_mut().upsert_claim(c.clone());
    }
    cache.prepare();
    cache
}
