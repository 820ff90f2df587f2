//! VolumeRestrictions (pkg/scheduler/framework/plugins/volumerestrictions/volume_restrictions.go):
//! volumes that only one pod may use. A ReadWriteOncePod claim already used by a placed pod
//! anywhere in the cluster rejects every node (Unschedulable, so preemption may evict that user),
//! and inline GCE PD / AWS EBS / Ceph RBD / iSCSI disks conflict with the same disk mounted by a
//! pod on the node unless every mount is read-only (EBS: always).
//!
//! Pods on a node are identified by key; their volumes come from the storage state's per-pod
//! index, which the shell maintains from pod add/remove notifications.

use crate::core::api;
use crate::core::cache::storage::{claim_key, is_inline_disk, READ_WRITE_ONCE_POD};
use crate::core::cache::{AssignedPod, Cache, NodeInfo};
use crate::core::framework::{state_as, EventMask, Plugin, PluginState, Points, PreFilterOutcome, Rejection};
use crate::core::model::PodInfo;

use crate::core::texts::storage::pvc_not_found;
use crate::core::texts::volume_restrictions::{ERR_REASON_DISK_CONFLICT, ERR_REASON_RWOP_CONFLICT};

pub struct VolumeRestrictions;

/// PreFilter state: who else uses the pod's ReadWriteOncePod claims.
#[derive(Debug, Clone, Default, PartialEq)]
struct RwopState {
    /// Placed pods using the claims, with how many references each holds.
    users: Vec<(String, i64)>,
    /// References by placed pods (upstream `conflictingPVCRefCount`); > 0 rejects every node.
    conflicts: i64,
}

impl RwopState {
    fn adjust(&mut self, key: &str, sign: i64) {
        if let Some((_, n)) = self.users.iter().find(|(k, _)| k == key) {
            self.conflicts += sign * n;
        }
    }
}

/// `isVolumeConflict` between one volume of the new pod and one of a placed pod.
fn disks_conflict(v: &api::Volume, existing: &api::Volume) -> bool {
    if let (Some(a), Some(b)) = (&v.gce_persistent_disk, &existing.gce_persistent_disk) {
        if a.pd_name == b.pd_name && !(a.read_only && b.read_only) {
            return true;
        }
    }
    if let (Some(a), Some(b)) = (&v.aws_elastic_block_store, &existing.aws_elastic_block_store) {
        if a.volume_id == b.volume_id {
            return true;
        }
    }
    if let (Some(a), Some(b)) = (&v.iscsi, &existing.iscsi) {
        if a.iqn == b.iqn && !(a.read_only && b.read_only) {
            return true;
        }
    }
    if let (Some(a), Some(b)) = (&v.rbd, &existing.rbd) {
        let monitors_overlap = a.monitors.iter().any(|m| b.monitors.contains(m));
        if monitors_overlap && a.pool == b.pool && a.image == b.image && !(a.read_only && b.read_only) {
            return true;
        }
    }
    false
}

/// `satisfyVolumeConflicts`: no inline disk of the pod is mounted conflictingly on the node.
fn inline_disks_fit(cache: &Cache, pod: &PodInfo, node: &NodeInfo) -> bool {
    let storage = cache.storage();
    pod.volumes.iter().filter(|v| is_inline_disk(v)).all(|v| {
        node.pods.iter().all(|p: &std::sync::Arc<AssignedPod>| {
            storage.pod_volumes(&p.key).is_none_or(|pv| pv.volumes.iter().all(|e| !disks_conflict(v, e)))
        })
    })
}

/// `readWriteOncePodPVCsForPod` + `calPreFilterState`: the placed pods using the pod's
/// ReadWriteOncePod claims. Only `persistentVolumeClaim` volumes count, and they must exist.
fn rwop_state(cache: &Cache, pod: &PodInfo) -> Result<RwopState, Rejection> {
    let storage = cache.storage();
    let mut rwop = Vec::new();
    for v in &pod.volumes {
        let Some(src) = &v.persistent_volume_claim else {
            continue;
        };
        let Some(claim) = storage.claim(&pod.namespace, &src.claim_name) else {
            return Err(Rejection::unresolvable(pvc_not_found(&src.claim_name)));
        };
        if claim.has_access_mode(READ_WRITE_ONCE_POD) {
            rwop.push(claim_key(&pod.namespace, &src.claim_name));
        }
    }
    if rwop.is_empty() {
        return Ok(RwopState::default());
    }
    let users: Vec<(String, i64)> = storage.claim_users(&rwop).into_iter().filter(|(k, _)| **k != *pod.key).collect();
    let conflicts = users.iter().map(|(_, n)| n).sum();
    Ok(RwopState { users, conflicts })
}

impl Plugin for VolumeRestrictions {
    fn name(&self) -> &'static str {
        super::names::VOLUME_RESTRICTIONS
    }

    fn points(&self) -> Points {
        Points { pre_filter: true, filter: true, ..Default::default() }
    }

    fn events(&self) -> EventMask {
        EventMask::ASSIGNED_POD_DELETE | EventMask::NODE_ADD | EventMask::PVC_CHANGE
    }

    fn pre_filter(&self, cache: &Cache, pod: &PodInfo, state: &mut PluginState) -> PreFilterOutcome {
        match rwop_state(cache, pod) {
            Err(r) => PreFilterOutcome::Reject(r),
            Ok(s) if s.conflicts == 0 && !pod.volumes.iter().any(is_inline_disk) => PreFilterOutcome::Skip,
            Ok(s) => {
                *state = Some(Box::new(s));
                PreFilterOutcome::Continue
            }
        }
    }

    fn clone_state(&self, state: &PluginState) -> PluginState {
        state_as::<RwopState>(state).map(|s| Box::new(s.clone()) as Box<dyn std::any::Any + Send>)
    }

    fn add_pod(&self, state: &mut PluginState, _pod: &PodInfo, added: &AssignedPod, _node: &NodeInfo) {
        if let Some(s) = state.as_mut().and_then(|b| b.downcast_mut::<RwopState>()) {
            s.adjust(&added.key, 1);
        }
    }

    fn remove_pod(&self, state: &mut PluginState, _pod: &PodInfo, removed: &AssignedPod, _node: &NodeInfo) {
        if let Some(s) = state.as_mut().and_then(|b| b.downcast_mut::<RwopState>()) {
            s.adjust(&removed.key, -1);
        }
    }

    fn filter(&self, cache: &Cache, pod: &PodInfo, node: &NodeInfo, state: &PluginState) -> Result<(), Rejection> {
        if !inline_disks_fit(cache, pod, node) {
            return Err(Rejection::unschedulable(ERR_REASON_DISK_CONFLICT));
        }
        // Without PreFilter (a profile that does not enable it) compute the state here.
        let conflicts = match state_as::<RwopState>(state) {
            Some(s) => s.conflicts,
            None => rwop_state(cache, pod)?.conflicts,
        };
        if conflicts > 0 {
            return Err(Rejection::unschedulable(ERR_REASON_RWOP_CONFLICT));
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::core::cache::storage::testutil::*;
    use crate::core::framework::Code;
    use crate::core::model::NodeSpecInfo;

    fn node(name: &str) -> NodeSpecInfo {
        let mut n = api::Node::default();
        n.metadata.name = name.into();
        n.status.allocatable.insert("pods".into(), api::QuantityStr("110".into()));
        NodeSpecInfo::from_api(&n)
    }

    /// Place a pod on a node in both the node table and the storage index (what the shell does).
    fn place(c: &mut Cache, pod: &PodInfo, node: &str) {
        c.assume_pod(pod, node);
        c.storage_mut().pod_added(pod, node);
    }

    fn run(c: &Cache, pod: &PodInfo, node: &str) -> (PreFilterOutcome, Option<Result<(), Rejection>>) {
        let mut state = None;
        let pre = VolumeRestrictions.pre_filter(c, pod, &mut state);
        let filter = matches!(pre, PreFilterOutcome::Continue)
            .then(|| VolumeRestrictions.filter(c, pod, c.node_by_name(node).unwrap(), &state));
        (pre, filter)
    }

    fn gce(pd: &str, read_only: bool) -> api::Volume {
        api::Volume {
            name: "v".into(),
            gce_persistent_disk: Some(api::GcePersistentDiskSource { pd_name: pd.into(), read_only }),
            ..Default::default()
        }
    }

    fn cache() -> Cache {
        let mut c = Cache::new();
        c.upsert_node(node("n1"));
        c.upsert_node(node("n2"));
        c
    }

    #[test]
    fn gce_disk_conflicts() {
        // volume_restrictions_test.go TestGCEDiskConflicts: nothing / one state / same state /
        // different state, plus the read-only exception.
        let mut c = cache();
        let new = pod_with_volumes("ns", "new", vec![gce("foo", false)]);
        assert_eq!(run(&c, &new, "n1").1, Some(Ok(())), "nothing");
        place(&mut c, &pod_with_volumes("ns", "a", vec![gce("bar", false)]), "n1");
        assert_eq!(run(&c, &new, "n1").1, Some(Ok(())), "different state");
        place(&mut c, &pod_with_volumes("ns", "b", vec![gce("foo", false)]), "n1");
        let r = run(&c, &new, "n1").1.unwrap().unwrap_err();
        assert_eq!((r.code, r.message()), (Code::Unschedulable, ERR_REASON_DISK_CONFLICT.to_string()), "same state");
        assert_eq!(run(&c, &new, "n2").1, Some(Ok(())), "other node");
        let mut c = cache();
        place(&mut c, &pod_with_volumes("ns", "ro", vec![gce("foo", true)]), "n1");
        assert_eq!(run(&c, &pod_with_volumes("ns", "new", vec![gce("foo", true)]), "n1").1, Some(Ok(())), "all read-only");
    }

    #[test]
    fn aws_rbd_iscsi_conflicts() {
        // TestAWSDiskConflicts / TestRBDDiskConflicts / TestISCSIDiskConflicts "same state".
        let ebs = |id: &str| api::Volume {
            aws_elastic_block_store: Some(api::AwsElasticBlockStoreSource { volume_id: id.into() }),
            ..Default::default()
        };
        let rbd = |mons: &[&str], image: &str| api::Volume {
            rbd: Some(api::RbdSource {
                monitors: mons.iter().map(|s| s.to_string()).collect(),
                pool: "rbd".into(),
                image: image.into(),
                read_only: false,
            }),
            ..Default::default()
        };
        let iscsi =
            |iqn: &str| api::Volume { iscsi: Some(api::IscsiSource { iqn: iqn.into(), read_only: false }), ..Default::default() };
        let mut c = cache();
        place(&mut c, &pod_with_volumes("ns", "a", vec![ebs("foo"), rbd(&["a", "b"], "img"), iscsi("iqn.1")]), "n1");
        for (v, conflict) in [
            (ebs("foo"), true),
            (ebs("bar"), false),
            (rbd(&["b", "c"], "img"), true),
            (rbd(&["c"], "img"), false),
            (rbd(&["a"], "other"), false),
            (iscsi("iqn.1"), true),
            (iscsi("iqn.2"), false),
        ] {
            let res = run(&c, &pod_with_volumes("ns", "new", vec![v.clone()]), "n1").1.unwrap();
            assert_eq!(res.is_err(), conflict, "{v:?}");
        }
    }

    #[test]
    fn read_write_once_pod_conflicts() {
        // TestAccessModeConflicts.
        let mut c = cache();
        let mut rwop = pvc("ns", "claim-with-rwop-1", "sc");
        rwop.spec.access_modes = vec![READ_WRITE_ONCE_POD.into()];
        let mut rwop2 = pvc("ns", "claim-with-rwop-2", "sc");
        rwop2.spec.access_modes = vec![READ_WRITE_ONCE_POD.into()];
        c.storage_mut().upsert_pvc(&rwop);
        c.storage_mut().upsert_pvc(&rwop2);
        let new = pod_with_volumes("ns", "new", vec![pvc_volume("v", "claim-with-rwop-1")]);
        // "nothing": no volumes → Skip.
        assert!(matches!(run(&c, &pod_with_volumes("ns", "x", vec![]), "n1").0, PreFilterOutcome::Skip));
        // "failed to get PVC".
        let missing = pod_with_volumes("ns", "x", vec![pvc_volume("v", "claim-missing")]);
        let PreFilterOutcome::Reject(r) = run(&c, &missing, "n1").0 else { panic!("reject") };
        assert_eq!(
            (r.code, r.message()),
            (Code::UnschedulableAndUnresolvable, r#"persistentvolumeclaim "claim-missing" not found"#.into())
        );
        // "no access mode conflict": another RWOP claim is in use.
        place(&mut c, &pod_with_volumes("ns", "other", vec![pvc_volume("v", "claim-with-rwop-2")]), "n2");
        assert!(matches!(run(&c, &new, "n1").0, PreFilterOutcome::Skip));
        // "access mode conflict, unschedulable": the claim is used on another node → every node fails.
        let user = pod_with_volumes("ns", "user", vec![pvc_volume("v", "claim-with-rwop-1")]);
        place(&mut c, &user, "n2");
        for n in ["n1", "n2"] {
            let r = run(&c, &new, n).1.unwrap().unwrap_err();
            assert_eq!((r.code, r.message()), (Code::Unschedulable, ERR_REASON_RWOP_CONFLICT.to_string()));
        }
        assert!(VolumeRestrictions.filter(&c, &new, c.node_by_name("n1").unwrap(), &None).is_err(), "no PreFilter");
        // Preemption simulation: removing the user clears the conflict; adding it back restores it.
        let mut state = None;
        let _ = VolumeRestrictions.pre_filter(&c, &new, &mut state);
        let n2 = c.node_by_name("n2").unwrap();
        let assigned = c.assigned_pod(&user.key).unwrap().clone();
        VolumeRestrictions.remove_pod(&mut state, &new, &assigned, n2);
        assert!(VolumeRestrictions.filter(&c, &new, n2, &state).is_ok());
        VolumeRestrictions.add_pod(&mut state, &new, &assigned, n2);
        assert!(VolumeRestrictions.filter(&c, &new, n2, &state).is_err());
    }
}
