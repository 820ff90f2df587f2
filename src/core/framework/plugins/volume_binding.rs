//! VolumeBinding (pkg/scheduler/framework/plugins/volumebinding/volume_binding.go and binder.go):
//! a pod's PersistentVolumeClaims decide where it can run. Bound claims pin the pod to nodes their
//! PV's node affinity allows (local volumes); unbound WaitForFirstConsumer claims — k3s's default
//! `local-path` class — need either a matching static PV reachable from the node or a class that
//! can provision there. At Reserve the plugin plans the API writes that hand the decision to the
//! PV controller / provisioner (pre-bind a PV, or annotate the claim with the selected node) and
//! the wait for the claims to become Bound; the binder threads perform them before binding.
//!
//! Not modelled: CSIStorageCapacity checks (`node(s) did not have enough free storage` is never
//! reported: every node is treated as having capacity, as upstream does for drivers that do not
//! publish capacity), in-tree → CSI PV translation, and VolumeAttributesClass matching. Score is
//! a no-op: upstream only scores with the alpha StorageCapacityScoring gate, so PreScore skips.

use crate::core::cache::storage::{label_selector_matches, volume_claim, ClaimInfo, StorageState, VolumeInfo, ANN_SELECTED_NODE};
use crate::core::cache::{Cache, NodeInfo};
use crate::core::config::VolumeBindingArgs;
use crate::core::framework::{
    state_as, EventMask, Plugin, PluginState, Points, PreBindAction, PreFilterOutcome, PreFlight, PreScoreOutcome, Rejection,
};
use crate::core::model::{Labels, PodInfo};
use std::borrow::Cow;
use std::collections::HashSet;

use crate::core::texts::storage::{ephemeral_not_owned, pvc_not_found};
use crate::core::texts::volume_binding::{
    self as texts, ERR_REASON_BIND_CONFLICT, ERR_REASON_NODE_CONFLICT, ERR_REASON_PV_NOT_EXIST, ERR_REASON_UNBOUND_IMMEDIATE,
};

/// The plugin; its only setting is how long PreBind waits for claims to bind.
pub struct VolumeBinding {
    bind_timeout_seconds: u64,
}

impl VolumeBinding {
    pub fn new(args: Option<&VolumeBindingArgs>) -> VolumeBinding {
        let seconds = args.map_or(VolumeBindingArgs::default().bind_timeout_seconds, |a| a.bind_timeout_seconds);
        VolumeBinding { bind_timeout_seconds: u64::try_from(seconds).unwrap_or(0) }
    }
}

/// The pod's claims split as upstream's `GetPodVolumeClaims` (PreFilter state).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct PodClaims {
    /// Fully bound claims: only their PV's node affinity matters.
    pub bound: Vec<ClaimInfo>,
    /// Unbound claims of WaitForFirstConsumer classes: the scheduler picks their volume.
    pub to_bind: Vec<ClaimInfo>,
}

/// What binding the pod's claims on one node takes (upstream `PodVolumes`).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct PodVolumePlan {
    /// Static PVs to pre-bind: `(pv name, claim)`.
    pub static_bindings: Vec<(String, ClaimInfo)>,
    /// Claims a provisioner will create a volume for on the node.
    pub provisions: Vec<ClaimInfo>,
}

fn not_found(claim: &str) -> Rejection {
    Rejection::unresolvable(pvc_not_found(claim))
}

/// `podHasPVCs`: every claim the pod references exists and is usable. `Ok(false)` when the pod
/// references no claim at all.
fn check_claims_exist(storage: &StorageState, pod: &PodInfo) -> Result<bool, Rejection> {
    let mut has_claim = false;
    for v in &pod.volumes {
        let Some((name, ephemeral)) = volume_claim(&pod.name, v) else {
            continue;
        };
        has_claim = true;
        let Some(c) = storage.claim(&pod.namespace, &name) else {
            return Err(if ephemeral {
                Rejection::unresolvable(texts::waiting_for_ephemeral_claim(&name))
            } else {
                not_found(&name)
            });
        };
        if c.is_lost() {
            return Err(Rejection::unresolvable(texts::claim_lost(&c.name, &c.volume_name)));
        }
        if c.deleting {
            return Err(Rejection::unresolvable(texts::claim_being_deleted(&c.name)));
        }
        if ephemeral {
            ephemeral_owned_by(c, pod)?;
        }
    }
    Ok(has_claim)
}

/// `ephemeral.VolumeIsForPod`: a generic ephemeral claim must be controlled by its pod.
pub fn ephemeral_owned_by(claim: &ClaimInfo, pod: &PodInfo) -> Result<(), Rejection> {
    if claim.controller_uid.as_deref() == Some(&*pod.uid) {
        return Ok(());
    }
    Err(Rejection::unresolvable(ephemeral_not_owned(&claim.namespace, &claim.name, &pod.namespace, &pod.name)))
}

/// `GetPodVolumeClaims`: split the (existing) claims into bound, delayed and immediate. Unbound
/// claims without a class, of an unknown class, of an Immediate class, or pre-bound by volume
/// name are "immediate": the PV controller, not the scheduler, must bind them.
fn classify_claims(storage: &StorageState, pod: &PodInfo) -> Result<PodClaims, Rejection> {
    let mut claims = PodClaims::default();
    for v in &pod.volumes {
        let Some((name, _)) = volume_claim(&pod.name, v) else {
            continue;
        };
        let Some(c) = storage.claim(&pod.namespace, &name) else {
            return Err(not_found(&name));
        };
        if c.is_fully_bound() {
            claims.bound.push(c.clone());
            continue;
        }
        let delayed = storage.class(&c.storage_class).is_some_and(|class| class.wait_for_first_consumer);
        if delayed && c.volume_name.is_empty() {
            claims.to_bind.push(c.clone());
        } else {
            return Err(Rejection::unresolvable(ERR_REASON_UNBOUND_IMMEDIATE));
        }
    }
    Ok(claims)
}

/// PreFilter's work: `None` when the pod references no claim (the plugin has nothing to do).
pub fn pod_claims(storage: &StorageState, pod: &PodInfo) -> Result<Option<PodClaims>, Rejection> {
    if !check_claims_exist(storage, pod)? {
        return Ok(None);
    }
    classify_claims(storage, pod).map(Some)
}

/// The PreFilter state, or the same computed now when PreFilter did not run for this plugin
/// (Reserve also runs for pods PreFilter skipped; a profile may not enable PreFilter at all).
fn claims_of<'a>(cache: &Cache, pod: &PodInfo, state: &'a PluginState) -> Result<Option<Cow<'a, PodClaims>>, Rejection> {
    match state_as::<PodClaims>(state) {
        Some(c) => Ok(Some(Cow::Borrowed(c))),
        None => Ok(pod_claims(cache.storage(), pod)?.map(Cow::Owned)),
    }
}

/// `FindMatchingVolume` on the scheduler path: a PV pre-bound to the claim wins (if big enough
/// and reachable from the node); otherwise the smallest Available, unclaimed PV of the claim's
/// class that fits, matches the claim's selector, access modes and volume mode, and whose node
/// affinity admits the node.
pub fn find_matching_volume<'a>(
    claim: &ClaimInfo,
    volumes: &[&'a VolumeInfo],
    labels: &Labels,
    excluded: &HashSet<&str>,
) -> Option<&'a VolumeInfo> {
    let mut smallest: Option<&VolumeInfo> = None;
    for &pv in volumes {
        if excluded.contains(pv.name.as_str()) || pv.volume_mode != claim.volume_mode || pv.deleting {
            continue;
        }
        let affinity_ok = pv.node_affinity_matches(labels);
        if pv.is_bound_to(claim) {
            if pv.capacity_bytes < claim.requested_bytes {
                continue;
            }
            return affinity_ok.then_some(pv);
        }
        let candidate = pv.phase == "Available"
            && pv.claim_ref.is_none()
            && claim.selector.as_ref().is_none_or(|sel| label_selector_matches(sel, &pv.labels))
            && pv.storage_class == claim.storage_class
            && affinity_ok
            && pv.offers_access_modes(claim)
            && pv.capacity_bytes >= claim.requested_bytes;
        if candidate && smallest.is_none_or(|s| s.capacity_bytes > pv.capacity_bytes) {
            smallest = Some(pv);
        }
    }
    smallest
}

/// Outcome of matching/provisioning the unbound claims on one node.
struct UnboundOutcome {
    satisfied: bool,
    static_bindings: Vec<(String, ClaimInfo)>,
    provisions: Vec<ClaimInfo>,
}

/// `findMatchingVolumes`: claims in increasing size order each take the best PV not yet chosen;
/// claims left without one are returned for provisioning.
fn find_matching_volumes(
    storage: &StorageState,
    claims: &[&ClaimInfo],
    labels: &Labels,
) -> (bool, Vec<(String, ClaimInfo)>, Vec<ClaimInfo>) {
    let mut sorted: Vec<&ClaimInfo> = claims.to_vec();
    sorted.sort_by_key(|c| c.requested_bytes);
    let mut chosen: HashSet<&str> = HashSet::new();
    let mut bindings = Vec::new();
    let mut unmatched = Vec::new();
    for claim in sorted {
        let candidates = storage.volumes_of_class(&claim.storage_class);
        match find_matching_volume(claim, &candidates, labels, &chosen) {
            Some(pv) => {
                chosen.insert(pv.name.as_str());
                bindings.push((pv.name.clone(), claim.clone()));
            }
            None => unmatched.push(claim.clone()),
        }
    }
    (unmatched.is_empty(), bindings, unmatched)
}

/// `checkVolumeProvisions`: every remaining claim's class must provision, and its allowed
/// topologies must include the node. Errors (no class, unknown class) are internal errors as
/// upstream: such claims should have been rejected as immediate at PreFilter.
fn check_volume_provisions(
    storage: &StorageState,
    claims: &[ClaimInfo],
    labels: &Labels,
) -> Result<(bool, Vec<ClaimInfo>), Rejection> {
    for c in claims {
        if c.storage_class.is_empty() {
            return Err(Rejection::error(texts::no_class_for_claim(&c.key())));
        }
        let Some(class) = storage.class(&c.storage_class) else {
            return Err(Rejection::error(texts::storage_class_missing(&c.storage_class)));
        };
        if !class.supports_provisioning() || !class.allows_node(labels) {
            return Ok((false, Vec::new()));
        }
    }
    Ok((true, claims.to_vec()))
}

/// The unbound half of `FindPodVolumes`.
fn plan_unbound(storage: &StorageState, to_bind: &[ClaimInfo], node: &NodeInfo) -> Result<UnboundOutcome, Rejection> {
    let labels = &node.node.labels;
    let mut to_provision = Vec::new();
    let mut to_match = Vec::new();
    for c in to_bind {
        match &c.selected_node {
            // Another node was already selected for this claim (by us or a previous scheduler).
            Some(selected) if **selected != *node.name() => {
                return Ok(UnboundOutcome { satisfied: false, static_bindings: Vec::new(), provisions: Vec::new() });
            }
            Some(_) => to_provision.push(c.clone()),
            None => to_match.push(c),
        }
    }
    let mut out = UnboundOutcome { satisfied: true, static_bindings: Vec::new(), provisions: Vec::new() };
    if !to_match.is_empty() {
        let (found, bindings, unmatched) = find_matching_volumes(storage, &to_match, labels);
        out.satisfied = found;
        out.static_bindings = bindings;
        to_provision.extend(unmatched);
    }
    if !to_provision.is_empty() {
        let (satisfied, provisions) = check_volume_provisions(storage, &to_provision, labels)?;
        out.satisfied = satisfied;
        out.provisions = provisions;
    }
    Ok(out)
}

/// `FindPodVolumes`: can the pod's claims be satisfied on this node, and how. The rejection
/// lists every reason in upstream's order (node conflict, bind conflict, missing PVs).
pub fn find_pod_volumes(storage: &StorageState, claims: &PodClaims, node: &NodeInfo) -> Result<PodVolumePlan, Rejection> {
    let mut bound_satisfied = true;
    let mut bound_pvs_found = true;
    for c in &claims.bound {
        match storage.volume(&c.volume_name) {
            None => {
                bound_pvs_found = false;
                break;
            }
            Some(pv) if !pv.node_affinity_matches(&node.node.labels) => {
                bound_satisfied = false;
                break;
            }
            Some(_) => {}
        }
    }
    let unbound = if claims.to_bind.is_empty() {
        UnboundOutcome { satisfied: true, static_bindings: Vec::new(), provisions: Vec::new() }
    } else {
        plan_unbound(storage, &claims.to_bind, node)?
    };
    let mut reasons = Vec::new();
    if !bound_satisfied {
        reasons.push(ERR_REASON_NODE_CONFLICT);
    }
    if !unbound.satisfied {
        reasons.push(ERR_REASON_BIND_CONFLICT);
    }
    if !bound_pvs_found {
        reasons.push(ERR_REASON_PV_NOT_EXIST);
    }
    if !reasons.is_empty() {
        let mut r = Rejection::unresolvable(reasons[0]);
        r.reasons.extend(reasons[1..].iter().map(|s| (*s).into()));
        return Err(r);
    }
    Ok(PodVolumePlan { static_bindings: unbound.static_bindings, provisions: unbound.provisions })
}

impl VolumeBinding {
    /// The API writes of `BindPodVolumes` for a plan: pre-bind static PVs, annotate claims to
    /// provision, then wait for all of them to be Bound.
    fn actions_for(&self, plan: &PodVolumePlan, node: &str) -> Vec<PreBindAction> {
        let mut actions = Vec::new();
        let mut waited = Vec::new();
        for (pv, claim) in &plan.static_bindings {
            actions.push(PreBindAction::BindPv {
                pv: pv.clone(),
                claim_namespace: claim.namespace.clone(),
                claim_name: claim.name.clone(),
                claim_uid: claim.uid.clone(),
            });
            waited.push((claim.namespace.clone(), claim.name.clone()));
        }
        for claim in &plan.provisions {
            actions.push(PreBindAction::AnnotatePvc {
                namespace: claim.namespace.clone(),
                name: claim.name.clone(),
                key: ANN_SELECTED_NODE.into(),
                value: node.into(),
            });
            waited.push((claim.namespace.clone(), claim.name.clone()));
        }
        if !waited.is_empty() {
            actions.push(PreBindAction::WaitForClaims { claims: waited, timeout_seconds: self.bind_timeout_seconds });
        }
        actions
    }
}

impl Plugin for VolumeBinding {
    fn name(&self) -> &'static str {
        super::names::VOLUME_BINDING
    }

    fn points(&self) -> Points {
        Points {
            pre_filter: true,
            filter: true,
            pre_score: true,
            score: true,
            reserve: true,
            pre_bind: true,
            ..Default::default()
        }
    }

    fn events(&self) -> EventMask {
        EventMask::PVC_CHANGE
            | EventMask::PV_CHANGE
            | EventMask::STORAGE_CLASS_CHANGE
            | EventMask::CSI_NODE_CHANGE
            | EventMask::NODE_ADD
            | EventMask::NODE_LABEL
    }

    fn pre_filter(&self, cache: &Cache, pod: &PodInfo, state: &mut PluginState) -> PreFilterOutcome {
        match pod_claims(cache.storage(), pod) {
            Err(r) => PreFilterOutcome::Reject(r),
            Ok(None) => PreFilterOutcome::Skip,
            Ok(Some(claims)) => {
                *state = Some(Box::new(claims));
                PreFilterOutcome::Continue
            }
        }
    }

    fn clone_state(&self, state: &PluginState) -> PluginState {
        state_as::<PodClaims>(state).map(|c| Box::new(c.clone()) as Box<dyn std::any::Any + Send>)
    }

    fn filter(&self, cache: &Cache, pod: &PodInfo, node: &NodeInfo, state: &PluginState) -> Result<(), Rejection> {
        match claims_of(cache, pod, state)? {
            Some(claims) => find_pod_volumes(cache.storage(), &claims, node).map(|_| ()),
            None => Ok(()),
        }
    }

    fn pre_score(&self, _cache: &Cache, _pod: &PodInfo, _nodes: &[&NodeInfo], _state: &mut PluginState) -> PreScoreOutcome {
        // Upstream's scorer exists only with the StorageCapacityScoring alpha gate.
        PreScoreOutcome::Skip
    }

    fn reserve(
        &self,
        cache: &Cache,
        pod: &PodInfo,
        node: &NodeInfo,
        state: &PluginState,
    ) -> Result<Vec<PreBindAction>, Rejection> {
        let Some(claims) = claims_of(cache, pod, state)? else {
            return Ok(Vec::new());
        };
        if claims.to_bind.is_empty() {
            return Ok(Vec::new());
        }
        let plan = find_pod_volumes(cache.storage(), &claims, node)?;
        Ok(self.actions_for(&plan, node.name()))
    }

    /// `PreBindPreFlight` (volume_binding.go, v1.35): Skip when Reserve found every claim bound
    /// (`allBound`, here: no write planned), work otherwise.
    fn pre_bind_pre_flight(&self, _cache: &Cache, _pod: &PodInfo, _node: &str, planned: &[PreBindAction]) -> PreFlight {
        if planned.iter().any(|a| a.plugin() == self.name()) {
            PreFlight::Work
        } else {
            PreFlight::Skip
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::core::api;
    use crate::core::cache::storage::testutil::*;
    use crate::core::config::{PluginRef, Profile};
    use crate::core::framework::cycle::CycleParams;
    use crate::core::framework::{Framework, ScheduleOutcome};
    use crate::core::model::NodeSpecInfo;
    use crate::core::rng::Rng;

    const WAIT_SC: &str = "wait-sc";
    const IMMEDIATE_SC: &str = "immediate-sc";

    fn node(name: &str, labels: &[(&str, &str)]) -> NodeSpecInfo {
        let mut n = api::Node::default();
        n.metadata.name = name.into();
        n.metadata.labels.insert("kubernetes.io/hostname".into(), name.into());
        for (k, v) in labels {
            n.metadata.labels.insert((*k).into(), (*v).into());
        }
        n.status.allocatable.insert("cpu".into(), api::QuantityStr("4".into()));
        n.status.allocatable.insert("memory".into(), api::QuantityStr("8Gi".into()));
        n.status.allocatable.insert("pods".into(), api::QuantityStr("110".into()));
        NodeSpecInfo::from_api(&n)
    }

    /// The classes of upstream's volume_binding_test.go: neither provisions.
    fn cache_with(nodes: Vec<NodeSpecInfo>, pvcs: Vec<api::PersistentVolumeClaim>, pvs: Vec<api::PersistentVolume>) -> Cache {
        let mut c = Cache::new();
        for n in nodes {
            c.upsert_node(n);
        }
        c.storage_mut().upsert_storage_class(&class(WAIT_SC, true, ""));
        c.storage_mut().upsert_storage_class(&class(IMMEDIATE_SC, false, ""));
        for p in &pvcs {
            c.storage_mut().upsert_pvc(p);
        }
        for v in &pvs {
            c.storage_mut().upsert_pv(v);
        }
        c.prepare();
        c
    }

    fn pod(claims: &[&str]) -> PodInfo {
        pod_with_volumes("default", "pod-a", claims.iter().enumerate().map(|(i, c)| pvc_volume(&format!("v{i}"), c)).collect())
    }

    /// Run PreFilter then Filter on every node, as the upstream table does.
    fn run(cache: &Cache, pod: &PodInfo) -> (PreFilterOutcome, Vec<Result<(), Rejection>>) {
        let pl = VolumeBinding::new(None);
        let mut state = None;
        let pre = pl.pre_filter(cache, pod, &mut state);
        let filters = cache.nodes().map(|n| pl.filter(cache, pod, n, &state)).collect();
        (pre, filters)
    }

    fn reject_msg(o: &PreFilterOutcome) -> Option<String> {
        match o {
            PreFilterOutcome::Reject(r) => {
                assert_eq!(r.code, crate::core::framework::Code::UnschedulableAndUnresolvable);
                Some(r.message())
            }
            _ => None,
        }
    }

    fn filter_msg(r: &Result<(), Rejection>) -> Option<String> {
        r.as_ref().err().map(|e| {
            assert_eq!(e.code, crate::core::framework::Code::UnschedulableAndUnresolvable);
            e.message()
        })
    }

    // volume_binding_test.go TestVolumeBinding, the cases not gated on capacity scoring.

    #[test]
    fn pod_has_no_pvcs() {
        let c = cache_with(vec![node("node-a", &[])], vec![], vec![]);
        let (pre, filters) = run(&c, &pod(&[]));
        assert!(matches!(pre, PreFilterOutcome::Skip));
        assert_eq!(filters, vec![Ok(())]);
    }

    #[test]
    fn all_bound() {
        let c = cache_with(
            vec![node("node-a", &[])],
            vec![bound(pvc("default", "pvc-a", WAIT_SC), "pv-a")],
            vec![pv("pv-a", WAIT_SC)],
        );
        let (pre, filters) = run(&c, &pod(&["pvc-a"]));
        assert!(matches!(pre, PreFilterOutcome::Continue));
        assert_eq!(filters, vec![Ok(())]);
    }

    #[test]
    fn pvc_does_not_exist_and_part_of_pvcs_do_not_exist() {
        let c = cache_with(vec![node("node-a", &[])], vec![], vec![]);
        assert_eq!(reject_msg(&run(&c, &pod(&["pvc-a"])).0).as_deref(), Some(r#"persistentvolumeclaim "pvc-a" not found"#));
        let c = cache_with(vec![node("node-a", &[])], vec![bound(pvc("default", "pvc-a", WAIT_SC), "pv-a")], vec![]);
        assert_eq!(
            reject_msg(&run(&c, &pod(&["pvc-a", "pvc-b"])).0).as_deref(),
            Some(r#"persistentvolumeclaim "pvc-b" not found"#)
        );
    }

    #[test]
    fn immediate_claims_not_bound() {
        let c = cache_with(vec![node("node-a", &[])], vec![pvc("default", "pvc-a", IMMEDIATE_SC)], vec![]);
        assert_eq!(reject_msg(&run(&c, &pod(&["pvc-a"])).0).as_deref(), Some(ERR_REASON_UNBOUND_IMMEDIATE));
        // No class at all, and a pre-bound (volumeName set, not bind-completed) claim are immediate too.
        let mut prebound = pvc("default", "pvc-c", WAIT_SC);
        prebound.spec.volume_name = "pv-c".into();
        let c = cache_with(vec![node("node-a", &[])], vec![pvc("default", "pvc-b", ""), prebound], vec![]);
        assert_eq!(reject_msg(&run(&c, &pod(&["pvc-b"])).0).as_deref(), Some(ERR_REASON_UNBOUND_IMMEDIATE));
        assert_eq!(reject_msg(&run(&c, &pod(&["pvc-c"])).0).as_deref(), Some(ERR_REASON_UNBOUND_IMMEDIATE));
    }

    #[test]
    fn unbound_claims_no_matches() {
        let c = cache_with(vec![node("node-a", &[])], vec![pvc("default", "pvc-a", WAIT_SC)], vec![]);
        let (pre, filters) = run(&c, &pod(&["pvc-a"]));
        assert!(matches!(pre, PreFilterOutcome::Continue));
        assert_eq!(filter_msg(&filters[0]).as_deref(), Some(ERR_REASON_BIND_CONFLICT));
    }

    #[test]
    fn bound_and_unbound_unsatisfied() {
        let c = cache_with(
            vec![node("node-a", &[("foo", "barbar")])],
            vec![bound(pvc("default", "pvc-a", WAIT_SC), "pv-a"), pvc("default", "pvc-b", WAIT_SC)],
            vec![node_affinity(pv("pv-a", WAIT_SC), &[("foo", &["bar"])])],
        );
        let (_, filters) = run(&c, &pod(&["pvc-a", "pvc-b"]));
        let r = filters[0].as_ref().unwrap_err();
        assert_eq!(r.reasons, vec![ERR_REASON_NODE_CONFLICT, ERR_REASON_BIND_CONFLICT]);
    }

    #[test]
    fn pv_not_found_and_claim_lost() {
        let c = cache_with(vec![node("node-a", &[])], vec![bound(pvc("default", "pvc-a", WAIT_SC), "pv-a")], vec![]);
        let (pre, filters) = run(&c, &pod(&["pvc-a"]));
        assert!(matches!(pre, PreFilterOutcome::Continue));
        assert_eq!(filter_msg(&filters[0]).as_deref(), Some(ERR_REASON_PV_NOT_EXIST));
        let mut lost = bound(pvc("default", "pvc-a", WAIT_SC), "pv-a");
        lost.status.phase = "Lost".into();
        let c = cache_with(vec![node("node-a", &[])], vec![lost], vec![]);
        assert_eq!(
            reject_msg(&run(&c, &pod(&["pvc-a"])).0).as_deref(),
            Some(r#"persistentvolumeclaim "pvc-a" bound to non-existent persistentvolume "pv-a""#)
        );
    }

    #[test]
    fn local_volumes_filter_by_node_affinity() {
        // "local volumes with close capacity are preferred": the filter half (scores are gated).
        let host = "kubernetes.io/hostname";
        let mk = |name: &str, cap: &str, n: &str| node_affinity(capacity(pv(name, WAIT_SC), cap), &[(host, &[n])]);
        let c = cache_with(
            vec![node("node-a", &[]), node("node-b", &[]), node("node-c", &[])],
            vec![request(pvc("default", "pvc-a", WAIT_SC), "50Gi")],
            vec![mk("pv-a-0", "200Gi", "node-a"), mk("pv-a-1", "200Gi", "node-a"), mk("pv-b-0", "100Gi", "node-b")],
        );
        let (_, filters) = run(&c, &pod(&["pvc-a"]));
        let by_node: Vec<(String, Option<String>)> =
            c.nodes().zip(filters.iter()).map(|(n, f)| (n.name().to_string(), filter_msg(f))).collect();
        for (name, msg) in by_node {
            let want = (name == "node-c").then(|| ERR_REASON_BIND_CONFLICT.to_string());
            assert_eq!(msg, want, "{name}");
        }
    }

    // binder_test.go TestFindPodVolumesWithoutProvisioning / WithProvisioning core cases.

    fn claims_for(c: &Cache, p: &PodInfo) -> PodClaims {
        classify_claims(c.storage(), p).unwrap()
    }

    #[test]
    fn find_matching_volume_prefers_prebound_then_smallest_fit() {
        let n = node("node1", &[]);
        let c = cache_with(
            vec![n.clone()],
            vec![request(pvc("default", "pvc-a", WAIT_SC), "1G"), request(pvc("default", "pvc-b", WAIT_SC), "5G")],
            vec![
                capacity(pv("pv-small", WAIT_SC), "1G"),
                capacity(pv("pv-big", WAIT_SC), "10G"),
                capacity(pv("pv-mid", WAIT_SC), "5G"),
                claimed(capacity(pv("pv-other-claim", WAIT_SC), "1G"), "default", "someone"),
            ],
        );
        let node_info = c.node_by_name("node1").unwrap();
        // "two-bindings": smallest fits, chosen PVs are excluded for the next claim.
        let plan = find_pod_volumes(c.storage(), &claims_for(&c, &pod(&["pvc-a", "pvc-b"])), node_info).unwrap();
        let names: Vec<&str> = plan.static_bindings.iter().map(|(pv, _)| pv.as_str()).collect();
        assert_eq!(names, ["pv-small", "pv-mid"]);
        // "prebound-pvc": a PV whose claimRef names the claim wins over a smaller free one.
        let mut c2 = c;
        c2.storage_mut().upsert_pv(&claimed(capacity(pv("pv-pre", WAIT_SC), "10G"), "default", "pvc-a"));
        let node_info = c2.node_by_name("node1").unwrap();
        let plan = find_pod_volumes(c2.storage(), &claims_for(&c2, &pod(&["pvc-a"])), node_info).unwrap();
        assert_eq!(plan.static_bindings[0].0, "pv-pre");
    }

    #[test]
    fn access_modes_and_selected_node() {
        let mut rwx = pvc("default", "pvc-rwx", WAIT_SC);
        rwx.spec.access_modes = vec!["ReadWriteMany".into()];
        let mut pv_rwo = pv("pv-rwo", WAIT_SC);
        pv_rwo.spec.access_modes = vec!["ReadWriteOnce".into()];
        let mut selected = pvc("default", "pvc-sel", WAIT_SC);
        selected.metadata.annotations.insert(ANN_SELECTED_NODE.into(), "node2".into());
        let c = cache_with(vec![node("node1", &[]), node("node2", &[])], vec![rwx, selected], vec![pv_rwo]);
        let n1 = c.node_by_name("node1").unwrap();
        // "unbound-pvc,pv-different-access-modes" → no match.
        let r = find_pod_volumes(c.storage(), &claims_for(&c, &pod(&["pvc-rwx"])), n1).unwrap_err();
        assert_eq!(r.reasons, vec![ERR_REASON_BIND_CONFLICT]);
        // A claim whose selected node is another node fails fast.
        let r = find_pod_volumes(c.storage(), &claims_for(&c, &pod(&["pvc-sel"])), n1).unwrap_err();
        assert_eq!(r.reasons, vec![ERR_REASON_BIND_CONFLICT]);
    }

    #[test]
    fn provisioning_respects_provisioner_and_allowed_topologies() {
        let mut c = cache_with(vec![node("node1", &[("zone", "a")]), node("node2", &[("zone", "b")])], vec![], vec![]);
        let mut topo = class("topo-sc", true, "example.com/p");
        topo.allowed_topologies = vec![api::TopologySelectorTerm {
            match_label_expressions: vec![api::TopologySelectorLabelRequirement { key: "zone".into(), values: vec!["a".into()] }],
        }];
        c.storage_mut().upsert_storage_class(&topo);
        c.storage_mut().upsert_storage_class(&class("static-sc", true, crate::core::cache::storage::NOT_SUPPORTED_PROVISIONER));
        c.storage_mut().upsert_pvc(&pvc("default", "pvc-topo", "topo-sc"));
        c.storage_mut().upsert_pvc(&pvc("default", "pvc-static", "static-sc"));
        let (n1, n2) = (c.node_by_name("node1").unwrap(), c.node_by_name("node2").unwrap());
        // "one-provisioned" on a node in the allowed topology.
        let plan = find_pod_volumes(c.storage(), &claims_for(&c, &pod(&["pvc-topo"])), n1).unwrap();
        assert_eq!(plan.provisions.len(), 1);
        // "provisioning-topology-mismatch" / "invalid-provisioner".
        assert!(find_pod_volumes(c.storage(), &claims_for(&c, &pod(&["pvc-topo"])), n2).is_err());
        assert!(find_pod_volumes(c.storage(), &claims_for(&c, &pod(&["pvc-static"])), n1).is_err());
    }

    #[test]
    fn ephemeral_claims_need_their_pod_as_owner() {
        let mut p = api::Pod::default();
        p.metadata.namespace = "default".into();
        p.metadata.name = "web".into();
        p.metadata.uid = "pod-uid".into();
        p.spec.volumes =
            vec![api::Volume { name: "scratch".into(), ephemeral: Some(serde_json::json!({})), ..Default::default() }];
        let pod = PodInfo::from_api(&p, &crate::core::model::NoPriorityClasses);
        let c = cache_with(vec![node("node-a", &[])], vec![], vec![]);
        assert_eq!(
            reject_msg(&run(&c, &pod).0).as_deref(),
            Some(r#"waiting for ephemeral volume controller to create the persistentvolumeclaim "web-scratch""#)
        );
        let mut claim = pvc("default", "web-scratch", WAIT_SC);
        let c = cache_with(vec![node("node-a", &[])], vec![claim.clone()], vec![]);
        assert_eq!(
            reject_msg(&run(&c, &pod).0).as_deref(),
            Some("PVC default/web-scratch was not created for pod default/web (pod is not owner)")
        );
        claim.metadata.owner_references = vec![api::OwnerReference {
            kind: "Pod".into(),
            name: "web".into(),
            uid: "pod-uid".into(),
            controller: Some(true),
            ..Default::default()
        }];
        let c = cache_with(vec![node("node-a", &[])], vec![claim], vec![]);
        assert!(matches!(run(&c, &pod).0, PreFilterOutcome::Continue));
    }

    // End to end through the framework: what a k3s cluster with local-path storage sees.

    fn framework() -> Framework {
        let mut profile = Profile {
            scheduler_name: "default-scheduler".into(),
            percentage_of_nodes_to_score: None,
            plugins: Default::default(),
            plugin_config: Vec::new(),
        };
        profile.plugins.multi_point.enabled =
            ["PrioritySort", "VolumeBinding", "DefaultBinder"].iter().map(|n| PluginRef::new(n, 0)).collect();
        Framework::new(&profile, &Default::default()).unwrap()
    }

    fn schedule(fw: &Framework, cache: &Cache, pod: &PodInfo, seed: u64) -> ScheduleOutcome {
        let mut next = 0;
        let mut rng = Rng::seeded(seed);
        let mut params = CycleParams {
            next_start_node_index: &mut next,
            percentage_of_nodes_to_score: 0,
            rng: &mut rng,
            explain: crate::core::framework::cycle::Explain::All, // the tests read placed pods' filter statuses
            extenders: None,
            waiting: None,
            clock: None,
            now: None,
        };
        fw.schedule(cache, pod, &mut params)
    }

    fn local_path_cache() -> Cache {
        let mut c = Cache::new();
        for n in ["n1", "n2", "n3"] {
            c.upsert_node(node(n, &[]));
        }
        c.storage_mut().upsert_storage_class(&class("local-path", true, "rancher.io/local-path"));
        c.prepare();
        c
    }

    #[test]
    fn local_path_claim_is_annotated_with_the_chosen_node() {
        let mut c = local_path_cache();
        c.storage_mut().upsert_pvc(&request(pvc("default", "data", "local-path"), "1Gi"));
        let fw = framework();
        let p = pod(&["data"]);
        let ScheduleOutcome::Scheduled { result, pre_bind, .. } = schedule(&fw, &c, &p, 7) else {
            panic!("should schedule");
        };
        assert_eq!(
            pre_bind,
            vec![
                PreBindAction::AnnotatePvc {
                    namespace: "default".into(),
                    name: "data".into(),
                    key: ANN_SELECTED_NODE.into(),
                    value: result.node.to_string(),
                },
                PreBindAction::WaitForClaims { claims: vec![("default".into(), "data".into())], timeout_seconds: 600 },
            ]
        );
        // Once assumed, a second pod sharing the claim follows the first to the same node.
        c.assume_pod(&p, &result.node);
        c.storage_mut().pod_added(&p, &result.node);
        c.storage_mut().assume_actions(&p.key, &pre_bind);
        let mut p2 = pod(&["data"]);
        p2.key = crate::core::model::pod_key("default", "pod-b");
        for seed in 0..5 {
            let ScheduleOutcome::Scheduled { result: r2, .. } = schedule(&fw, &c, &p2, seed) else {
                panic!("should schedule");
            };
            assert_eq!(r2.node, result.node);
        }
    }

    #[test]
    fn bound_local_pv_pins_the_pod_to_its_node() {
        let mut c = local_path_cache();
        c.storage_mut().upsert_pvc(&bound(pvc("default", "data", "local-path"), "pvc-123"));
        c.storage_mut().upsert_pv(&node_affinity(
            claimed(pv("pvc-123", "local-path"), "default", "data"),
            &[("kubernetes.io/hostname", &["n2"])],
        ));
        let fw = framework();
        for seed in 0..8 {
            let ScheduleOutcome::Scheduled { result, pre_bind, diagnosis, .. } = schedule(&fw, &c, &pod(&["data"]), seed) else {
                panic!("should schedule");
            };
            assert_eq!(&*result.node, "n2");
            assert!(pre_bind.is_empty(), "nothing to bind");
            for status in diagnosis.node_to_status.values() {
                assert_eq!(status.message(), ERR_REASON_NODE_CONFLICT);
            }
        }
    }

    #[test]
    fn static_pv_is_not_given_to_two_claims() {
        let mut c = local_path_cache();
        c.storage_mut().upsert_storage_class(&class(
            "local-static",
            true,
            crate::core::cache::storage::NOT_SUPPORTED_PROVISIONER,
        ));
        c.storage_mut().upsert_pvc(&pvc("default", "a", "local-static"));
        c.storage_mut().upsert_pvc(&pvc("default", "b", "local-static"));
        c.storage_mut()
            .upsert_pv(&node_affinity(capacity(pv("disk-1", "local-static"), "10Gi"), &[("kubernetes.io/hostname", &["n3"])]));
        let fw = framework();
        let pa = pod(&["a"]);
        let ScheduleOutcome::Scheduled { result, pre_bind, .. } = schedule(&fw, &c, &pa, 1) else {
            panic!("should schedule");
        };
        assert_eq!(&*result.node, "n3");
        assert!(matches!(&pre_bind[0], PreBindAction::BindPv { pv, claim_name, .. } if pv == "disk-1" && claim_name == "a"));
        assert!(matches!(&pre_bind[1], PreBindAction::WaitForClaims { .. }));
        c.storage_mut().assume_actions(&pa.key, &pre_bind);
        let mut pb = pod(&["b"]);
        pb.key = crate::core::model::pod_key("default", "pod-b");
        let ScheduleOutcome::Unschedulable { message, .. } = schedule(&fw, &c, &pb, 1) else {
            panic!("the only PV is taken");
        };
        assert_eq!(message, "0/3 nodes are available: 3 node(s) didn't find available persistent volumes to bind.");
        // Binding failed: the PV is offered again.
        c.storage_mut().forget_assumed_for_pod(&pa.key);
        assert!(matches!(schedule(&fw, &c, &pb, 1), ScheduleOutcome::Scheduled { .. }));
    }
}
